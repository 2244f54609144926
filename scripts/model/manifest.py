#!/usr/bin/env python3
"""Write, check and show the manifest of a provisioned model cache (standard library only, so that
fetch.sh can check an existing cache with the system python3 before creating any venv).

Layout of a cache (CACHE_DIR):
  onnxruntime/libonnxruntime.so.<version>        the runtime library (ORT_DYLIB_PATH)
  multilingual-e5-small/                         model.onnx, tokenizer files, manifest.json
  multilingual-e5-small/manifest.json            this file's subject (written last: its presence and
                                                 matching hashes mean the install is complete)

Commands:
  write CACHE_DIR --model NAME --runtime REL --info JSON_FILE   hash every file and write the manifest
  check CACHE_DIR --model NAME [--expect KEY=VALUE ...]          exit 0 iff every hash and expectation holds
  show  CACHE_DIR --model NAME                                   print what is installed
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

MANIFEST = "manifest.json"
SCHEMA_VERSION = 1


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def describe(path: Path) -> dict:
    return {"sha256": sha256(path), "bytes": path.stat().st_size}


def write(cache: Path, model: str, runtime_rel: str, info: dict) -> Path:
    model_dir = cache / model
    files = {p.name: describe(p) for p in sorted(model_dir.iterdir())
             if p.is_file() and p.name != MANIFEST and not p.name.startswith(".")}
    runtime = cache / runtime_rel
    manifest = {
        "schema": SCHEMA_VERSION,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **info,
        "files": files,
        # Relative to the model directory, so the cache can be moved as a whole.
        "runtime": {**info.get("runtime", {}), "library": os.path.relpath(runtime, model_dir),
                    **describe(runtime)},
    }
    out = model_dir / MANIFEST
    fd, tmp = tempfile.mkstemp(dir=model_dir, prefix=".manifest.")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2, ensure_ascii=False)
        f.write("\n")
    os.chmod(tmp, 0o644)
    os.replace(tmp, out)
    return out


def load(cache: Path, model: str) -> dict | None:
    try:
        return json.loads((cache / model / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def lookup(manifest: dict, dotted: str):
    node = manifest
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def check(cache: Path, model: str, expect: list[str]) -> list[str]:
    """Problems found (empty = the cache is complete and matches the expectations)."""
    manifest = load(cache, model)
    if manifest is None:
        return [f"no readable {cache / model / MANIFEST}"]
    problems = []
    if manifest.get("schema") != SCHEMA_VERSION:
        problems.append(f"manifest schema {manifest.get('schema')}, expected {SCHEMA_VERSION}")
    for item in expect:
        key, _, want = item.partition("=")
        have = lookup(manifest, key)
        if str(have) != want:
            problems.append(f"{key} is {have!r}, expected {want!r}")
    entries = [(cache / model / name, meta) for name, meta in manifest.get("files", {}).items()]
    runtime = manifest.get("runtime", {})
    if "library" in runtime:
        entries.append(((cache / model / runtime["library"]).resolve(), runtime))
    for path, meta in entries:
        if not path.is_file():
            problems.append(f"missing {path}")
        elif path.stat().st_size != meta.get("bytes") or sha256(path) != meta.get("sha256"):
            problems.append(f"{path} does not match its recorded sha256")
    return problems


def show(cache: Path, model: str) -> None:
    m = load(cache, model)
    if m is None:
        print(f"nothing installed in {cache / model}")
        return
    model_dir = (cache / model).resolve()
    mib = lambda n: f"{n / 2**20:.1f} MiB"  # noqa: E731
    print(f"model    {m['model']['id']} ({m['model']['format']}, {m['model']['dims']} dims, "
          f"pooling {m['model']['pooling']}, normalise {m['model']['normalise']})")
    print(f"  dir    {model_dir}")
    for name, meta in m["files"].items():
        print(f"  {name:<26} {mib(meta['bytes']):>11}  sha256 {meta['sha256'][:16]}…")
    rt = m["runtime"]
    print(f"runtime  ONNX Runtime {rt.get('version')}: {(model_dir / rt['library']).resolve()} ({mib(rt['bytes'])})")
    print("sources  " + ", ".join(f"{k}=={v['version']}" for k, v in m.get("sources", {}).items()))
    ver = m.get("verification", {})
    if ver:
        print(f"verified {'ok' if ver.get('ok') else 'FAILED'}; reference cosine min "
              f"{ver.get('reference_cosine_min', 'n/a')}; created {m.get('created')}")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["write", "check", "show"])
    ap.add_argument("cache", type=Path)
    ap.add_argument("--model", required=True, help="model directory name inside the cache")
    ap.add_argument("--runtime", help="runtime library path relative to the cache (write)")
    ap.add_argument("--info", type=Path, help="JSON with model/sources/tools/verification (write)")
    ap.add_argument("--expect", action="append", default=[], help="KEY.PATH=VALUE that must hold (check)")
    args = ap.parse_args(argv)

    if args.command == "write":
        if not args.runtime or not args.info:
            ap.error("write needs --runtime and --info")
        print(write(args.cache, args.model, args.runtime, json.loads(args.info.read_text(encoding="utf-8"))))
        return 0
    if args.command == "check":
        problems = check(args.cache, args.model, args.expect)
        for p in problems:
            print(f"manifest: {p}", file=sys.stderr)
        return 1 if problems else 0
    show(args.cache, args.model)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
