#!/usr/bin/env python3
"""Resident memory of `code-intel serve` with the model loaded (docs/BENCHMARKS.md, "Semantic").

Starts the MCP server on a repository over stdio, speaks just enough JSON-RPC (initialize,
start_session, semantic_search until the model answers and the embeddings cover the index),
waits until the server is idle, and prints VmRSS / VmHWM from /proc/<pid>/status.

With `--until model` (the default `search_mode: auto` embeds nothing until a request needs the
vectors) it waits only until the model answers.

Usage: python3 tests/eval/server_rss.py [--bin target/release/code-intel] [--until model|embedded] REPO
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def status(pid: int) -> dict[str, str]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        k, _, v = line.partition(":")
        out[k] = v.strip()
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(REPO / "target" / "release" / "code-intel"))
    ap.add_argument("repo")
    ap.add_argument("--idle", type=float, default=10.0, help="seconds idle before measuring")
    ap.add_argument("--until", choices=["model", "embedded"], default="embedded",
                    help="wait until the model answers, or until the embeddings cover the index")
    args = ap.parse_args()
    proc = subprocess.Popen([args.bin, "serve", "--repo", args.repo], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={"PATH": "/usr/bin:/bin", "HOME": str(Path.home()),
                                 "CODE_INTEL_LOG": "warn"})
    n = 0

    def call(method: str, params: dict) -> dict:
        nonlocal n
        n += 1
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": n, "method": method,
                                     "params": params}) + "\n")
        proc.stdin.flush()
        while True:
            msg = json.loads(proc.stdout.readline())
            if msg.get("id") == n:
                return msg

    t0 = time.time()
    call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "rss", "version": "0"}})
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    proc.stdin.flush()
    rss_started = status(proc.pid)["VmRSS"]
    call("tools/call", {"name": "start_session",
                        "arguments": {"intent": "QUESTION", "query": "how is the app configured"}})
    while True:
        r = call("tools/call", {"name": "semantic_search",
                                "arguments": {"query": "load configuration", "collection": "map"}})
        body = r["result"].get("structuredContent", {})
        if args.until == "model" and body.get("error") != "initializing":
            break
        if body.get("coverage", {}).get("ratio") == 1.0:
            break
        if time.time() - t0 > 1800:
            print("timeout", body, file=sys.stderr)
            return 1
        time.sleep(1)
    ready = time.time() - t0
    time.sleep(args.idle)
    st = status(proc.pid)
    print(json.dumps({"repo": args.repo, "until": args.until, "ready_s": round(ready, 1), "rss_after_start": rss_started,
                      "VmRSS_idle": st["VmRSS"], "VmHWM": st["VmHWM"]}))
    proc.stdin.close()
    proc.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
