#!/usr/bin/env python3
"""Retrieval evaluation of `code-intel search` on real code (docs/EVALUATION.md).

Runs the real CLI: `code-intel index --embed` per corpus and embedding-text recipe, then
`code-intel search --batch` with every query of a query set under every ranking variant (one
process per corpus and recipe; per-line `mode`/`fusion`/`weights` overrides), and scores the
answers at file level:

  recall@k  fraction of queries with an expected file among the first k distinct files
  MRR@10    mean of 1/rank of the first expected file (0 beyond rank 10)

An expected entry ending in `/` matches any file under that directory; otherwise a hit matches
when its path ends with the entry.

Usage:
  scripts/fetch-corpora.sh                                   # once
  python3 tests/eval/run_eval.py [--bin target/release/code-intel] [--recipes summary,body]
      [--queries tests/eval/queries.jsonl] [--work .e2e-cache/eval] [--grid] [--json OUT]

Corpora are copied from .e2e-cache/corpora into --work once; their .code-intel/ (index,
embedding cache) is kept there between runs, so only new texts are embedded again. Embedding
all of laravel-framework takes several minutes per recipe on one core.
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORPORA = ["flask", "express", "laravel"]
SEED_WEIGHTS = {"vector": 0.4, "keyword": 0.2, "definition": 0.3, "reference": 0.1}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def prepare(work: Path, name: str) -> Path:
    dst = work / name
    if not dst.exists():
        src = REPO / ".e2e-cache" / "corpora" / name
        if not (src / ".done").exists():
            subprocess.run(["bash", str(REPO / "scripts" / "fetch-corpora.sh")], check=True,
                           stdout=subprocess.DEVNULL)
        shutil.copytree(src, dst, symlinks=True)
        (dst / ".done").unlink(missing_ok=True)
    return dst


def set_recipe(root: Path, recipe: str | None) -> None:
    """Sets `embedding_text` in the corpus config (None: removes it, i.e. the default)."""
    cfg_path = root / ".code-intel" / "config.json"
    cfg = json.loads(cfg_path.read_text()) if cfg_path.exists() else {}
    if recipe is None:
        cfg.pop("embedding_text", None)
    else:
        cfg["embedding_text"] = recipe
    cfg_path.parent.mkdir(parents=True, exist_ok=True)
    cfg_path.write_text(json.dumps(cfg, indent=2) + "\n")


def index(binary: str, root: Path, threads: int) -> dict:
    t = time.time()
    out = subprocess.run([binary, "--repo", str(root), "index", "--embed", "--json",
                          "--threads", str(threads)],
                         check=True, capture_output=True, text=True)
    report = json.loads(out.stdout)
    report["wall_s"] = time.time() - t
    return report


def matches(path: str, expected: list[str]) -> bool:
    for e in expected:
        if e.endswith("/"):
            if e in path or path.startswith(e):
                return True
        elif path == e or path.endswith("/" + e) or path.endswith(e):
            return True
    return False


def first_rank(hits: list[dict], expected: list[str], k: int = 10) -> int | None:
    files: list[str] = []
    for h in hits:
        if h["file"] not in files:
            files.append(h["file"])
        if len(files) > k:
            break
    for i, f in enumerate(files[:k], 1):
        if matches(f, expected):
            return i
    return None


def variants(grid: bool) -> list[dict]:
    v = [
        {"name": "lexical", "mode": "lexical"},
        {"name": "vector", "mode": "vector"},
        {"name": "hybrid/weighted/seed", "mode": "hybrid", "fusion": "weighted",
         "weights": SEED_WEIGHTS},
        {"name": "hybrid/rrf/seed", "mode": "hybrid", "fusion": "rrf", "weights": SEED_WEIGHTS},
        {"name": "hybrid/weighted/kv", "mode": "hybrid", "fusion": "weighted",
         "weights": {"vector": 0.5, "keyword": 0.5, "definition": 0.0, "reference": 0.0}},
        {"name": "hybrid/rrf/kv", "mode": "hybrid", "fusion": "rrf",
         "weights": {"vector": 0.5, "keyword": 0.5, "definition": 0.0, "reference": 0.0}},
        {"name": "hybrid/default", "mode": "hybrid"},
    ]
    if grid:
        steps = [round(0.05 * i, 2) for i in range(21)]
        for fusion in ["weighted", "rrf"]:
            for vec, kw, de, ref in itertools.product(steps, steps, [0.0, 0.05, 0.1, 0.2, 0.3],
                                                      [0.0, 0.05, 0.1]):
                if vec + kw == 0 or abs(vec + kw + de + ref - 1.0) > 1e-6:
                    continue
                v.append({"name": f"grid/{fusion}/v{vec}-k{kw}-d{de}-r{ref}", "mode": "hybrid",
                          "fusion": fusion,
                          "weights": {"vector": vec, "keyword": kw, "definition": de,
                                      "reference": ref}})
    return v


def search(binary: str, root: Path, queries: list[dict], vs: list[dict]) -> dict:
    lines = []
    for q in queries:
        for v in vs:
            line = {"id": [q["id"], v["name"]], "query": q["query"], "top": 50}
            for k in ("mode", "fusion", "weights"):
                if k in v:
                    line[k] = v[k]
            lines.append(json.dumps(line, ensure_ascii=False))
    out = subprocess.run([binary, "--repo", str(root), "search", "--batch"],
                         input="\n".join(lines) + "\n", check=True, capture_output=True,
                         text=True)
    answers = {}
    for line in out.stdout.splitlines():
        a = json.loads(line)
        answers[tuple(a["id"])] = a
    return answers


def score(ranks: list[int | None]) -> dict:
    n = len(ranks)
    if n == 0:
        return {"n": 0}
    return {
        "n": n,
        "recall@1": sum(1 for r in ranks if r is not None and r <= 1) / n,
        "recall@5": sum(1 for r in ranks if r is not None and r <= 5) / n,
        "recall@10": sum(1 for r in ranks if r is not None and r <= 10) / n,
        "mrr@10": sum(1.0 / r for r in ranks if r is not None) / n,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=str(REPO / "target" / "release" / "code-intel"))
    ap.add_argument("--queries", default=str(REPO / "tests" / "eval" / "queries.jsonl"))
    ap.add_argument("--work", default=str(REPO / ".e2e-cache" / "eval"))
    ap.add_argument("--recipes", default="summary")
    ap.add_argument("--corpora", default=",".join(CORPORA))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--grid", action="store_true", help="also a grid of fusion weights")
    ap.add_argument("--json", help="write all ranks and metrics here")
    args = ap.parse_args()

    queries = [json.loads(l) for l in open(args.queries, encoding="utf-8") if l.strip()]
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    vs = variants(args.grid)
    results: dict = {"recipes": {}, "ranks": {}}
    for recipe in args.recipes.split(","):
        rec = results["recipes"].setdefault(recipe, {"index": {}, "metrics": {}})
        ranks: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
        for corpus in args.corpora.split(","):
            qs = [q for q in queries if q["corpus"] == corpus]
            if not qs:
                continue
            root = prepare(work, corpus)
            set_recipe(root, recipe)
            log(f"[{recipe}] {corpus}: index --embed")
            report = index(args.bin, root, args.threads)
            rec["index"][corpus] = {
                "chunks": report["chunks"],
                "embedded_now": (report["vectors"].get("embed") or {}).get("embedded", 0),
                "embed_ms": (report["vectors"].get("embed") or {}).get("duration_ms", 0),
                "coverage": report["vectors"]["coverage"],
            }
            all_files = None
            log(f"[{recipe}] {corpus}: {len(qs)} queries x {len(vs)} variants")
            answers = search(args.bin, root, qs, vs)
            for q in qs:
                for v in vs:
                    a = answers[(q["id"], v["name"])]
                    r = first_rank(a["hits"], q["expected"])
                    ranks[v["name"]][q["id"]] = r
                    results["ranks"].setdefault(recipe, {}).setdefault(v["name"], {})[q["id"]] = r
        by_id = {q["id"]: q for q in queries}
        for name, rs in ranks.items():
            m = {}
            for lang in ["en", "ja", "id", "all"]:
                sel = [r for qid, r in rs.items() if lang == "all" or by_id[qid]["lang"] == lang]
                m[lang] = score(sel)
            for corpus in CORPORA:
                sel = [r for qid, r in rs.items() if by_id[qid]["corpus"] == corpus]
                m[corpus] = score(sel)
            rec["metrics"][name] = m
        # Print the named variants (not the grid) as a table.
        print(f"\n## recipe {recipe}")
        for c, i in rec["index"].items():
            print(f"  {c}: {i['chunks']} chunks; embedded {i['embedded_now']} texts now in "
                  f"{i['embed_ms'] / 1000:.1f} s; coverage {i['coverage']['ratio']:.3f}")
        print(f"{'variant':32} {'lang':4} {'n':>3} {'R@1':>6} {'R@5':>6} {'R@10':>6} {'MRR':>6}")
        for name in [v["name"] for v in vs if not v["name"].startswith("grid/")]:
            for lang in ["en", "ja", "id", "all"]:
                s = rec["metrics"][name][lang]
                print(f"{name:32} {lang:4} {s['n']:>3} {s['recall@1']:6.3f} {s['recall@5']:6.3f} "
                      f"{s['recall@10']:6.3f} {s['mrr@10']:6.3f}")
        if args.grid:
            grid = [(n, m) for n, m in rec["metrics"].items() if n.startswith("grid/")]
            grid.sort(key=lambda x: -x[1]["all"]["mrr@10"])
            print("\ntop grid points by MRR@10 (all queries):")
            for n, m in grid[:15]:
                print(f"  {n:44} all {m['all']['mrr@10']:.3f}  en {m['en']['mrr@10']:.3f}  "
                      f"ja {m['ja']['mrr@10']:.3f}  id {m['id']['mrr@10']:.3f}  "
                      f"R@1 {m['all']['recall@1']:.3f}  R@10 {m['all']['recall@10']:.3f}")
    # Leave the corpora on the default recipe (benchmarks and later runs read their config).
    for corpus in args.corpora.split(","):
        if (work / corpus).exists():
            set_recipe(work / corpus, None)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
