#!/usr/bin/env python3
"""Ranking settings compared on repositories nobody tuned on: `code-intel eval --from-git`.

Each repository's newest qualifying commits become change requests (subject -> query, changed
source files -> gold, searched in the commit's parent; see docs/EVALUATION.md, "code-intel
eval"), and every setting of `--set NAME=JSON` (RankParams overrides, `{}` = the defaults) is run
over the same requests. The repositories are git clones (e.g. of `fetch` mirrors) in other
languages than the development kit's, so nothing in the shipped parameters was chosen on them.

    python3 tests/eval/git_heldout.py --repos /tmp/ho/redis,/tmp/ho/gin \
        --set default={} --set plain='{"file_extra": 0, ...}' [--depth 600] [--limit 60]

Prints one line per repository and setting (R@1, R@10, MRR@10, F-R@10) and the means over the
repositories (each repository weighs the same); `--out F` keeps every per-query row as JSON.
Lexical mode, no model (CODE_INTEL_MODEL_DIR is pointed at a missing directory).
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "target" / "release" / "code-intel"


def history_range(repo, depth):
    """`HEAD~depth..HEAD`, or the whole history when it is shorter."""
    count = int(subprocess.run(["git", "-C", repo, "rev-list", "--first-parent", "--count", "HEAD"],
                               capture_output=True, text=True, check=True).stdout)
    return f"HEAD~{min(depth, count - 1)}..HEAD"


def run(repo, rng, limit, rank):
    cmd = [str(BIN), "eval", "--repo", repo, "--from-git", rng, "--limit", str(limit),
           "--json", "--mode", "lexical"]
    if rank:
        cmd += ["--rank", json.dumps(rank)]
    env = dict(os.environ, CODE_INTEL_MODEL_DIR="/nonexistent-model-dir")
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repos", required=True)
    ap.add_argument("--set", action="append", default=[], metavar="NAME=JSON")
    ap.add_argument("--depth", type=int, default=600, help="commits looked at: HEAD~DEPTH..HEAD")
    ap.add_argument("--limit", type=int, default=60)
    ap.add_argument("--out")
    a = ap.parse_args()
    sets = [(s.split("=", 1)[0], json.loads(s.split("=", 1)[1])) for s in a.set] or [("default", {})]
    rows, dump = {}, {}
    for repo in a.repos.split(","):
        name = Path(repo).name
        for sname, rank in sets:
            rep = run(repo, history_range(repo, a.depth), a.limit, rank)
            s = rep["summary"]
            rows.setdefault(sname, []).append(s)
            dump[f"{name}/{sname}"] = rep["queries"]
            if a.out:
                Path(a.out).write_text(json.dumps(dump))
            fr = s.get("function_recall_at_10")
            print(f"{name:16s} {sname:12s} n={s['queries']:3d} R@1 {s['recall_at_1']:.3f} "
                  f"R@10 {s['recall_at_10']:.3f} MRR {s['mrr_at_10']:.3f} "
                  f"F-R@10 {fr if fr is None else format(fr, '.3f')}", flush=True)
    for sname, ss in rows.items():
        mean = lambda k: sum(s[k] or 0 for s in ss) / len(ss)
        print(f"{'MEAN':16s} {sname:12s} repos={len(ss)} R@1 {mean('recall_at_1'):.3f} "
              f"R@10 {mean('recall_at_10'):.3f} MRR {mean('mrr_at_10'):.3f} "
              f"F-R@10 {mean('function_recall_at_10'):.3f}")


if __name__ == "__main__":
    main()
