#!/usr/bin/env python3
"""Resident memory of `code-intel serve` with the model loaded (docs/BENCHMARKS.md, "Semantic").

Starts the MCP server on a repository over stdio, speaks just enough JSON-RPC (initialize,
start_session, semantic_search until the model answers and the embeddings cover the index),
waits until the server is idle, and prints VmRSS / VmHWM from /proc/<pid>/status.

With `--until model` it waits only until `get_session_status` says the model is ready (no search
is made, so nothing opens the vectors; the background embedding runs unless `search_mode` is
`lexical`).

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
    ap.add_argument("--no-model", action="store_true",
                    help="CODE_INTEL_EMBEDDINGS=off: the server without the model (implies --until model)")
    ap.add_argument("--until", choices=["model", "embedded"], default="embedded",
                    help="wait until the model answers, or until the embeddings cover the index")
    args = ap.parse_args()
    proc = subprocess.Popen([args.bin, "serve", "--repo", args.repo], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={"PATH": "/usr/bin:/bin", "HOME": str(Path.home()),
                                 "CODE_INTEL_LOG": "warn", **({"CODE_INTEL_EMBEDDINGS": "off"}
                                                             if args.no_model else {})})
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
    while args.until == "model" and not args.no_model:
        r = call("tools/call", {"name": "get_session_status", "arguments": {}})
        body = r["result"].get("structuredContent", {})
        if body.get("model", {}).get("state") != "loading":
            break
        time.sleep(0.5)
    while args.until == "embedded":
        r = call("tools/call", {"name": "semantic_search",
                                "arguments": {"query": "load configuration", "collection": "map"}})
        body = r["result"].get("structuredContent", {})
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
                      "VmRSS_idle": st["VmRSS"], "RssAnon": st.get("RssAnon"),
                      "RssFile": st.get("RssFile"), "VmHWM": st["VmHWM"]}))
    proc.stdin.close()
    proc.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
