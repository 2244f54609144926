#!/usr/bin/env python3
"""One edited file's vectors refreshed: how long from the edit until its new chunk is found by
vector search through `code-intel serve` (docs/BENCHMARKS.md, "Search and the server").

The repository must be embedded already (`code-intel index --embed`). The script starts the MCP
server over stdio with `search_mode: vector` (the hit can only come from the chunk's vector),
searches once so the model is loaded and the vectors are open, then, per round: appends a new
function with a made-up name and doc comment to an existing source file, and calls
`semantic_search` (collection forest, no session) with the doc comment's words until a hit lies
in that file and covers the new lines. Prints per round the wall time from the end of the write
to the answer that found it (which includes the freshness check, the lexical sync of the file,
embedding its pending chunks and the search), and the p50. The file is restored at the end.

Usage: python3 tests/eval/edit_refresh.py [--bin target/release/code-intel] [--rounds 5] REPO FILE
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from mcp_client import McpClient

REPO = Path(__file__).resolve().parents[2]
WORDS = ["amber", "basalt", "cobalt", "dune", "ember", "fjord", "glacier", "harbor", "indigo",
         "juniper"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(REPO / "target" / "release" / "code-intel"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("repo")
    ap.add_argument("file", help="a source file of REPO (relative), Java/Python/JS/TS/PHP")
    args = ap.parse_args()
    repo = Path(args.repo)
    config = repo / ".code-intel" / "config.json"
    saved_config = config.read_text() if config.exists() else None
    config.write_text(json.dumps({"search_mode": "vector"}))
    target = repo / args.file
    original = target.read_bytes()
    server: McpClient | None = None

    def search(query: str) -> dict:
        return server.call_tool("semantic_search", {"query": query, "collection": "forest",
                                                    "n_results": 10})

    times = []
    try:
        server = McpClient(args.bin, str(repo), client_name="edit-refresh",
                           env={"PATH": "/usr/bin:/bin", "HOME": str(Path.home()),
                                "CODE_INTEL_LOG": "warn"})
        while search("where is the configuration read?").get("error") == "initializing":
            time.sleep(0.5)
        for i in range(args.rounds):
            a, b = WORDS[i % len(WORDS)], WORDS[(i + 3) % len(WORDS)]
            name = f"{a}{b.capitalize()}Sieve{i}"
            phrase = f"sift the {a} and {b} pebbles through a sieve into the {b} jar"
            text = target.read_text()
            start_line = text.count("\n") + 2
            if args.file.endswith(".java"):
                body = f"\n/** {phrase}. */\nclass {name} {{ void sift() {{ }} }}\n"
            elif args.file.endswith(".py"):
                body = f"\n\ndef {name}():\n    \"\"\"{phrase}.\"\"\"\n    return None\n"
            else:
                body = f"\n/** {phrase}. */\nfunction {name}() {{ return null; }}\n"
            time.sleep(1.0)
            with open(target, "a") as f:
                f.write(body)
            t0 = time.perf_counter()
            calls = 0
            while True:
                calls += 1
                res = search(phrase)
                hits = res.get("forest_hits", [])
                found = any(h.get("file") == args.file and h.get("end_line", 0) >= start_line
                            for h in hits)
                if found:
                    break
                if time.perf_counter() - t0 > 60:
                    print(json.dumps({"round": i, "timeout": True,
                                      "notes": res.get("notes")}), file=sys.stderr)
                    return 1
            dt = time.perf_counter() - t0
            times.append(dt)
            print(json.dumps({"round": i, "seconds": round(dt, 3), "searches": calls,
                              "notes": res.get("notes", [])}))
    finally:
        target.write_bytes(original)
        if saved_config is None:
            config.unlink()
        else:
            config.write_text(saved_config)
        if server is not None:
            server.close()
    print(json.dumps({"p50_s": round(statistics.median(times), 3),
                      "max_s": round(max(times), 3), "rounds": len(times)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
