#!/usr/bin/env python3
"""Error-message requests made by running a Python repository's own code (docs/EVALUATION.md,
"Long requests"): each top-level function of the repository's modules is called once with
every argument None (a broken call); when that raises inside the repository's code, the
traceback becomes a request as a user pastes it, and the file of the innermost frame in the
repository (where the error is raised, the file to fix) is the gold.

Imports the repository cannot satisfy here (Django, Celery, ...) are stubbed with
unittest.mock modules, so only the repository's own code runs for real; functions replaced by a
stub (decorated by a stubbed decorator) never raise and are not used. Frames in stubs, the
standard library or this script are not gold. Paths are shown as a Docker install shows them
(`/usr/src/<name>/...`).

    python3 tests/eval/make_tracebacks.py --repo /path/to/snapshot --src src --name paperless \
        --out tracebacks.jsonl

Writes JSON lines {"id", "query", "gold_files"} for `code-intel eval --queries`. Deterministic:
modules and functions in sorted order, one request per raising function, at most --limit.
"""

import argparse
import importlib
import importlib.abc
import importlib.machinery
import inspect
import json
import os
import sys
import traceback
from unittest import mock

PROSE = [
    "I get this error and don't know what causes it:",
    "After the last update this fails with the traceback below.",
    "The worker crashes with:",
    "Running it on my instance ends with this exception:",
]


# The broken calls: every argument the same wrong value.
BAD_ARGS = [None, "", 0, {}]


class StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Last on sys.meta_path: any module nothing else finds is a MagicMock package."""

    def find_spec(self, name, path, target=None):
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec):
        m = mock.MagicMock(name=spec.name)
        m.__path__ = []
        m.__spec__ = spec
        m.__name__ = spec.name
        m.__file__ = f"<stub {spec.name}>"
        return m

    def exec_module(self, module):
        pass


def modules(src_root):
    for dirpath, dirnames, filenames in os.walk(src_root):
        dirnames[:] = sorted(d for d in dirnames if d not in ("tests", "migrations", "management", "__pycache__", "static", "templates", "locale"))
        for f in sorted(filenames):
            if not f.endswith(".py") or f.startswith("test") or f in ("__init__.py", "manage.py", "settings.py", "asgi.py", "wsgi.py", "urls.py"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), src_root)
            if os.sep not in rel:
                continue  # top-level scripts
            yield rel[:-3].replace(os.sep, ".")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True)
    ap.add_argument("--src", default="src", help="import root, relative to --repo")
    ap.add_argument("--name", required=True, help="shown install path /usr/src/<name>")
    ap.add_argument("--limit", type=int, default=200)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    repo = os.path.realpath(a.repo)
    src_root = os.path.join(repo, a.src)
    sys.path.insert(0, src_root)
    sys.meta_path.append(StubFinder())
    shown = f"/usr/src/{a.name}"
    out = []
    seen_gold_func = set()
    for name in modules(src_root):
        try:
            with open(os.devnull, "w") as null:
                old = sys.stdout, sys.stderr
                sys.stdout = sys.stderr = null
                try:
                    mod = importlib.import_module(name)
                finally:
                    sys.stdout, sys.stderr = old
        except BaseException:  # noqa: BLE001 - a module that cannot import is skipped
            continue
        for fname, fn in sorted(vars(mod).items()):
            if len(out) >= a.limit:
                break
            if not inspect.isfunction(fn) or fn.__module__ != name or fname.startswith("__"):
                continue
            try:
                sig = inspect.signature(fn)
            except (TypeError, ValueError):
                continue
            params = [p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
            if not params or inspect.iscoroutinefunction(fn) or inspect.isgeneratorfunction(fn):
                continue
            for bad in BAD_ARGS:
                if len(out) >= a.limit:
                    break
                call = f"{fname}({', '.join(repr(bad) for _ in params)})"
                try:
                    with open(os.devnull, "w") as null:
                        old = sys.stdout, sys.stderr
                        sys.stdout = sys.stderr = null
                        try:
                            fn(*[bad] * len(params))
                        finally:
                            sys.stdout, sys.stderr = old
                    continue
                except RecursionError:
                    continue
                except BaseException as e:  # noqa: BLE001
                    record(a, e, name, fname, call, repo, src_root, shown, out, seen_gold_func)
    with open(a.out, "w") as f:
        for q in out:
            f.write(json.dumps(q) + "\n")
    print(f"{len(out)} requests -> {a.out}", file=sys.stderr)


def record(a, e, name, fname, call, repo, src_root, shown, out, seen):
    """Keeps the traceback of `e` as a request when it is raised in the repository's code."""
    if True:
        if True:
            if True:
                tb = e.__traceback__
                frames = traceback.extract_tb(tb)
                if any("<stub" in f.filename or "unittest/mock" in f.filename for f in frames):
                    return
                if "mock" in str(e).lower():
                    return
                repo_frames = [f for f in frames if os.path.realpath(f.filename).startswith(src_root + os.sep)]
                if not repo_frames:
                    return
                gold = os.path.relpath(os.path.realpath(repo_frames[-1].filename), repo)
                text = "".join(traceback.format_exception(type(e), e, tb))
                # The caller's frame (this script) reads as a shell session's.
                lines = text.splitlines()
                keep = [lines[0], '  File "<stdin>", line 1, in <module>']
                skip = True
                for line in lines[1:]:
                    if line.startswith('  File "') and src_root in line:
                        skip = False
                    if not skip:
                        keep.append(line.replace(repo, shown))
                key = (gold, fname, type(e).__name__)
                if key in seen:
                    return
                seen.add(key)
                n = len(out)
                body = "\n".join(keep)
                query = f"{PROSE[n % len(PROSE)]}\n\n```\n>>> from {name} import {fname}\n>>> {call}\n{body}\n```\n"
                out.append({"id": f"{a.name}:tb{n:03d}:{name}.{fname}", "query": query, "gold_files": [gold]})


if __name__ == "__main__":
    main()
