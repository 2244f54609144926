#!/usr/bin/env python3
"""Change-request evaluation (docs/log/2026-11-21-semantic-defaults.md, "4. Change requests"): a changelog entry of a
Flask release is the query, the source files that release changed for it are the answer, and
the index is built from the release *before* the change.

Pairs: tests/eval/changes.jsonl (34 entries of Flask 2.3.0, 3.0.0, 3.1.0 and 3.1.1's CHANGES.rst,
each mapped by hand to the files whose diff carries it; entries without a source change, such as
dependency bumps, and unmappable ones like "Remove previously deprecated code" are left out).

For each earlier release (2.2.5, 2.3.3, 3.0.3, 3.1.0) the sdist is fetched from PyPI with
`pip download --no-binary :all:` into --work, indexed and embedded with `code-intel index --embed`,
and searched with `code-intel search --batch` in each variant. Scores per query:
  hit@k        an expected file among the first k distinct files (as run_eval.py's recall@k)
  files@10     fraction of the expected files among the first 10 distinct files
  MRR@10       1/rank of the first expected file
Baseline: always answering the release's largest source file (app.py).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_eval import REPO, index, log, matches, search  # noqa: E402

VARIANTS = [
    {"name": "lexical", "mode": "lexical"},
    {"name": "vector", "mode": "vector"},
    {"name": "hybrid (default)", "mode": "hybrid"},
    {"name": "hybrid rrf", "mode": "hybrid", "fusion": "rrf"},
]


def fetch(work: Path, version: str) -> Path:
    root = work / f"flask-{version}"
    if (root / "src" / "flask").is_dir():
        return root
    dl = work / f"dl-flask-{version}"
    dl.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                    "--no-binary", ":all:", "--dest", str(dl), f"flask=={version}"], check=True)
    sdist = next(dl.glob("*.tar.gz"))
    root.mkdir(parents=True, exist_ok=True)
    with tarfile.open(sdist) as tar:
        for m in tar.getmembers():
            parts = Path(m.name).parts[1:]
            if not parts:
                continue
            m.name = str(Path(*parts))
            tar.extract(m, root, filter="data")
    return root


def files_of(hits: list[dict], k: int = 10) -> list[str]:
    out: list[str] = []
    for h in hits:
        if h["file"] not in out:
            out.append(h["file"])
        if len(out) >= k:
            break
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=str(REPO / "target" / "release" / "code-intel"))
    ap.add_argument("--pairs", default=str(REPO / "tests" / "eval" / "changes.jsonl"))
    ap.add_argument("--work", default=str(REPO / ".e2e-cache" / "eval-changes"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json", help="write per-pair ranks here")
    args = ap.parse_args()
    pairs = [json.loads(l) for l in open(args.pairs, encoding="utf-8") if l.strip()]
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    scores: dict[str, list[dict]] = defaultdict(list)
    per_pair = []
    for before in sorted({p["before"] for p in pairs}):
        qs = [p for p in pairs if p["before"] == before]
        root = fetch(work, before)
        log(f"flask {before}: index --embed")
        index(args.bin, root, args.threads)
        answers = search(args.bin, root, qs, VARIANTS)
        for p in qs:
            row = {"id": p["id"], "before": before}
            for v in VARIANTS:
                files = files_of(answers[(p["id"], v["name"])]["hits"])
                rank = next((i for i, f in enumerate(files, 1) if matches(f, p["expected"])), None)
                found = sum(1 for e in p["expected"] if any(matches(f, [e]) for f in files))
                scores[v["name"]].append({"rank": rank, "files": found / len(p["expected"])})
                row[v["name"]] = {"rank": rank, "top": files[:3]}
            base = 1 if matches("src/flask/app.py", p["expected"]) else None
            scores["baseline: always app.py"].append(
                {"rank": base, "files": (1 / len(p["expected"])) if base else 0.0})
            per_pair.append(row)
    n = len(pairs)
    print(f"\n{n} change requests (Flask 2.2.5→2.3.0, 2.3.3→3.0.0, 3.0.3→3.1.0, 3.1.0→3.1.1)")
    print(f"{'variant':26} {'hit@1':>6} {'hit@5':>6} {'hit@10':>6} {'files@10':>8} {'MRR@10':>7}")
    for name, s in scores.items():
        hit = lambda k: sum(1 for x in s if x["rank"] and x["rank"] <= k) / n  # noqa: E731
        mrr = sum(1 / x["rank"] for x in s if x["rank"]) / n
        files = sum(x["files"] for x in s) / n
        print(f"{name:26} {hit(1):6.3f} {hit(5):6.3f} {hit(10):6.3f} {files:8.3f} {mrr:7.3f}")
    if args.json:
        Path(args.json).write_text(json.dumps(per_pair, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
