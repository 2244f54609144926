#!/usr/bin/env python3
"""What freshness costs an index-backed answer (docs/BENCHMARKS.md, "Freshness").

Starts `code-intel serve` on a git repository over stdio (lexical only), runs `start_session`,
then measures through the MCP server:

1. the latency of `find_definitions` when nothing changed (p50/p95 over --calls calls), with the
   tree watch (the default) and without it (CODE_INTEL_NO_TREE_WATCH=1: every call runs the sync's
   stat check, the simple alternative), beside the same call's cost on a server whose check is
   skipped entirely would be (not measurable from outside: the no-watch row shows the check's
   share);
2. the first answer after the working tree changed N files (N = 10, 100, 1000: N - 1 indexed files
   get a comment line appended, as a checkout rewriting them would, and one new file defines a
   function), asking for that function: its latency and whether the answer has it (or names the
   files in stale_files);
3. a real branch switch when --checkout REV is given: `git checkout REV`, then the first answer.

Every change is undone with `git checkout -- . && git clean -fdq -e .code-intel` afterwards (the repository must be
a clean git work tree you do not mind being reset).

Usage: python3 scripts/bench-freshness.py [--bin target/release/code-intel] REPO [--calls 200]
       [--checkout REV]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "eval"))
from mcp_client import McpClient  # noqa: E402  (tests/eval is on the path only now)

# A name nothing defines: the index lookup is as cheap as it gets, so the call's time is the MCP
# round trip, the freshness check and the lookup.
PROBE = "zz_freshness_probe_nothing_defines"


def start_server(binary: str, repo: str, watch: bool) -> McpClient:
    """`code-intel serve` without the model; `watch` False turns the tree watch off."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(Path.home()),
           "CODE_INTEL_LOG": "warn", "CODE_INTEL_EMBEDDINGS": "off"}
    if not watch:
        env["CODE_INTEL_NO_TREE_WATCH"] = "1"
    return McpClient(binary, repo, env=env, client_name="bench-freshness")


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(p / 100 * len(xs) + 0.5) - 1))]


def git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True,
                          text=True).stdout


def reset(repo: str) -> None:
    git(repo, "checkout", "-q", "--", ".")
    git(repo, "clean", "-fdq", "-e", ".code-intel")


def indexed_files(repo: str) -> list[str]:
    state = json.loads((Path(repo) / ".code-intel" / "sync_state.json").read_text())
    return sorted(p for p, f in state["files"].items() if f.get("chunks", 0) > 0)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(ROOT / "target" / "release" / "code-intel"))
    ap.add_argument("repo")
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--checkout", help="a revision to switch to for the branch-switch row")
    args = ap.parse_args()
    repo = str(Path(args.repo).resolve())
    out = {"repo": repo}
    # The first index is not what is measured here.
    t = time.perf_counter()
    subprocess.run([args.bin, "index", "--repo", repo], check=True, capture_output=True,
                   env={**os.environ, "CODE_INTEL_EMBEDDINGS": "off"})
    out["index_s"] = round(time.perf_counter() - t, 1)
    for watch in (True, False):
        s = start_server(args.bin, repo, watch)
        t = time.perf_counter()
        start = s.call_tool("start_session",
                            {"intent": "QUESTION", "query": "how is the app set up"})
        out.setdefault("start_session_ms", round((time.perf_counter() - t) * 1000, 1))
        out["files"] = start.get("sync_status"), len(indexed_files(repo))
        for _ in range(5):
            s.call_tool("find_definitions", {"symbol": PROBE})
        times = [s.timed_call_tool("find_definitions", {"symbol": PROBE})[0]
                 for _ in range(args.calls)]
        key = "no_change_watch" if watch else "no_change_stat_check"
        out[key] = {"p50_ms": round(pct(times, 50), 2), "p95_ms": round(pct(times, 95), 2)}
        if watch:
            # The floor: a call that reads no index (one MCP round trip and a session read).
            floor = [s.timed_call_tool("get_session_status", {})[0] for _ in range(args.calls)]
            out["floor_get_session_status"] = {"p50_ms": round(pct(floor, 50), 2),
                                               "p95_ms": round(pct(floor, 95), 2)}
        if watch:
            files = indexed_files(repo)
            for n in (10, 100, 1000):
                if n > len(files):
                    break
                step = max(1, len(files) // n)
                chosen = files[::step][:n - 1]
                marker = f"fresh_marker_{n}_{int(time.time())}"
                for f in chosen:
                    hash_comment = f.endswith((".py", ".rb", ".sh", ".yml", ".yaml", ".toml"))
                    with open(Path(repo) / f, "a") as fh:
                        fh.write("\n# changed\n" if hash_comment else "\n// changed\n")
                # The n-th file is new and defines the function asked for.
                (Path(repo) / f"{marker}.py").write_text(f"def {marker}_0():\n    return 0\n")
                ms, body = s.timed_call_tool("find_definitions", {"symbol": f"{marker}_0"})
                found = bool(body.get("definitions"))
                stale = body.get("stale_files_total")
                out[f"changed_{n}"] = {"first_answer_ms": round(ms, 1), "found": found,
                                       "stale_files_total": stale}
                # Let a sync past the budget finish before undoing.
                for _ in range(600):
                    b = s.call_tool("find_definitions", {"symbol": f"{marker}_0"})
                    if b.get("definitions") and "stale_files" not in b:
                        break
                    time.sleep(0.1)
                reset(repo)
                s.call_tool("find_definitions", {"symbol": PROBE})
            if args.checkout:
                head = git(repo, "rev-parse", "HEAD").strip()
                changed = len(git(repo, "diff", "--name-only", head, args.checkout).split())
                git(repo, "checkout", "-q", args.checkout)
                ms, body = s.timed_call_tool("find_definitions", {"symbol": PROBE})
                out["checkout"] = {"rev": args.checkout, "files_changed": changed,
                                   "first_answer_ms": round(ms, 1),
                                   "stale_files_total": body.get("stale_files_total")}
                git(repo, "checkout", "-q", head)
        s.close()
    out["loadavg"] = Path("/proc/loadavg").read_text().split()[:3]
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
