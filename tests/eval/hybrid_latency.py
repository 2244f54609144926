#!/usr/bin/env python3
"""Ranked-search latency by mode in one run (docs/BENCHMARKS.md, "Semantic": hybrid query).

Runs `code-intel eval --repo REPO --queries QUERIES --mode M --json` for lexical, vector and
hybrid, interleaved over `--rounds` rounds (so the three see the same machine load), and prints
each run's p50 / p95 per query in ms with the 1-minute load average read before it. Each eval
loads the index (and the model for vector/hybrid) and searches one untimed warm-up query first,
so the timings are per query: lexical = BM25 candidates + ranking + stored documents; vector =
the query embedding (the query alone, one ONNX Runtime thread) + the vector scan + rows;
hybrid = the query embedding on one thread while BM25 searches on another, then vectors and
fusion. The vector run is there to split hybrid's cost: hybrid p50 - lexical p50 against vector
p50 says how much of the extra is the embedding.

The queries should be distinct: the eval caches a query's vector within a run, as a session
repeating a query would not pay for it twice.

Usage: python3 tests/eval/hybrid_latency.py [--bin target/release/code-intel] [--rounds 2]
       [--modes lexical,vector,hybrid] REPO QUERIES
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run(binary: str, repo: str, queries: str, mode: str) -> dict:
    out = subprocess.run(
        [binary, "eval", "--repo", repo, "--queries", queries, "--mode", mode, "--json"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    report = json.loads(out)
    summary = report.get("summary", report)
    return {
        "p50": summary["latency_p50_ms"],
        "p95": summary["latency_p95_ms"],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=str(REPO / "target/release/code-intel"))
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--modes", default="lexical,vector,hybrid")
    ap.add_argument("repo")
    ap.add_argument("queries")
    args = ap.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    results: dict[str, list[dict]] = {m: [] for m in modes}
    print("| round | mode | load (1 min) | p50 ms | p95 ms |")
    print("|---|---|---|---|---|")
    for r in range(1, args.rounds + 1):
        for m in modes:
            load = os.getloadavg()[0]
            try:
                res = run(args.bin, args.repo, args.queries, m)
            except subprocess.CalledProcessError as e:
                print(f"code-intel eval --mode {m} failed:\n{e.stderr}", file=sys.stderr)
                return 1
            res["load"] = load
            results[m].append(res)
            print(f"| {r} | {m} | {load:.1f} | {res['p50']:.1f} | {res['p95']:.1f} |", flush=True)
    print()
    for m in modes:
        p50 = statistics.median(x["p50"] for x in results[m])
        p95 = statistics.median(x["p95"] for x in results[m])
        load = statistics.mean(x["load"] for x in results[m])
        print(f"{m}: median over rounds p50 {p50:.1f} ms, p95 {p95:.1f} ms, mean load {load:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
