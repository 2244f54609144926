#!/usr/bin/env python3
"""Compares two `.code-intel/` directories of the same tree, built by two code-intel builds: the
per-file SHA-256, chunk count, skip and fallback reasons of `sync_state.json`, and when both have
vectors the rows of `index/vectors/state.json` (per chunk SHA-256, lines, symbol, kind,
signature, snippet and embedding key, which hashes the embedding text). Prints the counts and
the first differing paths; exits 1 when anything differs.

Usage: scripts/compare-index-state.py A/.code-intel B/.code-intel
(docs/log/2026-11-28-first-index-speed.md: a speed change must leave both the same.)
"""
import json
import os
import sys


def files(d: str) -> dict:
    s = json.load(open(f"{d}/sync_state.json"))
    return {
        p: (f.get("sha256"), f.get("chunks"), f.get("skipped"), f.get("fallback"))
        for p, f in s["files"].items()
    }


def main() -> None:
    a, b = sys.argv[1:3]
    sa, sb = files(a), files(b)
    chunks = lambda s: sum(v[1] or 0 for v in s.values())
    print("files", len(sa), len(sb), "chunks", chunks(sa), chunks(sb))
    differ = sorted(p for p in set(sa) | set(sb) if sa.get(p) != sb.get(p))
    print("files differing in sync_state.json:", len(differ), differ[:5])
    va, vb = f"{a}/index/vectors/state.json", f"{b}/index/vectors/state.json"
    rows_differ = []
    if os.path.exists(va) and os.path.exists(vb):
        fa, fb = json.load(open(va))["files"], json.load(open(vb))["files"]
        rows = lambda f: sum(len(r["rows"]) for r in f.values())
        rows_differ = sorted(p for p in set(fa) | set(fb) if fa.get(p) != fb.get(p))
        print("vector rows", rows(fa), rows(fb), "files differing:", len(rows_differ), rows_differ[:5])
    sys.exit(1 if differ or rows_differ else 0)


if __name__ == "__main__":
    main()
