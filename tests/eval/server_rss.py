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
import sys
import time
from pathlib import Path

from mcp_client import McpClient

REPO = Path(__file__).resolve().parents[2]


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
    t0 = time.time()
    server = McpClient(args.bin, args.repo, client_name="rss",
                       env={"PATH": "/usr/bin:/bin", "HOME": str(Path.home()),
                            "CODE_INTEL_LOG": "warn", **({"CODE_INTEL_EMBEDDINGS": "off"}
                                                        if args.no_model else {})})
    rss_started = server.proc_status()["VmRSS"]
    if args.until not in ("embedded", "question"):
        # (Without a session `semantic_search` may search the forest: EXPLORATION allows only
        # the map, whose entries are what would load the model there.)
        server.call_tool("start_session",
                         {"intent": "QUESTION", "query": "how is the app configured"})
    while args.until == "model" and not args.no_model:
        body = server.call_tool("validate_symbol_relevance",
                                {"target_feature": "configuration loading",
                                 "symbols": ["load", "parse"]})
        if body.get("error") != "initializing":
            break
        time.sleep(0.5)
    if args.until == "lexical":
        for name, arguments in [("find_definitions", {"symbol": "load"}),
                                ("search_text", {"pattern": "configuration"}),
                                ("semantic_search", {"query": "fix the configuration loader",
                                                     "collection": "map"})]:
            server.call_tool(name, arguments)
    while args.until == "question":
        body = server.call_tool("semantic_search", {"query": "how is the configuration loaded?",
                                                    "collection": "forest"})
        if body.get("error") != "initializing":
            break
        time.sleep(0.5)
    while args.until == "embedded":
        body = server.call_tool("semantic_search", {"query": "how is the configuration loaded?",
                                                    "collection": "forest"})
        if body.get("coverage", {}).get("ratio") == 1.0:
            break
        if time.time() - t0 > 1800:
            print("timeout", body, file=sys.stderr)
            server.close()
            return 1
        time.sleep(1)
    ready = time.time() - t0
    time.sleep(args.idle)
    st = server.proc_status()
    model_state = server.call_tool("get_session_status", {}).get("model", {}).get("state")
    print(json.dumps({"repo": args.repo, "until": args.until, "model": model_state,
                      "ready_s": round(ready, 1), "rss_after_start": rss_started,
                      "VmRSS_idle": st["VmRSS"], "RssAnon": st.get("RssAnon"),
                      "RssFile": st.get("RssFile"), "VmHWM": st["VmHWM"]}))
    server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
