#!/usr/bin/env python3
"""Resident memory of `code-intel serve` with the model loaded (docs/BENCHMARKS.md, "Semantic").

Starts the MCP server on a repository over stdio, speaks just enough JSON-RPC (initialize,
start_session, semantic_search until the model answers and the embeddings cover the index),
waits until the server is idle, and prints VmRSS / VmHWM from /proc/<pid>/status.

The model loads lazily (docs/DESIGN.md#sync-ux), so `--until model` makes it load the way a
session does: `validate_symbol_relevance` until it stops answering "initializing" (the model and
the repository's relevance background; no search, so nothing opens the vectors and the
background embedding does not start). `--until lexical` runs a lexical session (`start_session`,
`find_definitions`, `search_text`, `semantic_search` of a change request) and reports the model's
state after it (`not_loaded` expected). `--until embedded` (no session) searches the forest with
a question (which loads the model and starts the background embedding) until the embeddings
cover the index; `--until question` stops after its first answer (the vector state open, the
background embedding started).

Usage: python3 tests/eval/server_rss.py [--bin target/release/code-intel] [--until model|lexical|question|embedded] REPO
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
    ap.add_argument("--until", choices=["model", "lexical", "question", "embedded"], default="embedded",
                    help="wait until the model answers, run a lexical session, or wait until the embeddings cover the index")
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
    if args.until not in ("embedded", "question"):
        # (Without a session `semantic_search` may search the forest: EXPLORATION allows only
        # the map, whose entries are what would load the model there.)
        call("tools/call", {"name": "start_session",
                            "arguments": {"intent": "QUESTION", "query": "how is the app configured"}})
    while args.until == "model" and not args.no_model:
        r = call("tools/call", {"name": "validate_symbol_relevance",
                                "arguments": {"target_feature": "configuration loading",
                                              "symbols": ["load", "parse"]}})
        body = r["result"].get("structuredContent", {})
        if body.get("error") != "initializing":
            break
        time.sleep(0.5)
    if args.until == "lexical":
        for name, arguments in [("find_definitions", {"symbol": "load"}),
                                ("search_text", {"pattern": "configuration"}),
                                ("semantic_search", {"query": "fix the configuration loader",
                                                     "collection": "map"})]:
            call("tools/call", {"name": name, "arguments": arguments})
    while args.until == "question":
        r = call("tools/call", {"name": "semantic_search",
                                "arguments": {"query": "how is the configuration loaded?",
                                              "collection": "forest"}})
        if r["result"].get("structuredContent", {}).get("error") != "initializing":
            break
        time.sleep(0.5)
    while args.until == "embedded":
        r = call("tools/call", {"name": "semantic_search",
                                "arguments": {"query": "how is the configuration loaded?",
                                              "collection": "forest"}})
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
    r = call("tools/call", {"name": "get_session_status", "arguments": {}})
    model_state = r["result"].get("structuredContent", {}).get("model", {}).get("state")
    print(json.dumps({"repo": args.repo, "until": args.until, "model": model_state,
                      "ready_s": round(ready, 1), "rss_after_start": rss_started,
                      "VmRSS_idle": st["VmRSS"], "RssAnon": st.get("RssAnon"),
                      "RssFile": st.get("RssFile"), "VmHWM": st["VmHWM"]}))
    proc.stdin.close()
    proc.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
