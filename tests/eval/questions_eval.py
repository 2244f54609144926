#!/usr/bin/env python3
"""Issue 37, item 2: the question set (tests/eval/questions/) through code-intel (lexical, vector,
hybrid) and two simple alternatives, scored the same way, per corpus and per fold.

    python3 tests/eval/questions_eval.py --bin target/release/code-intel \
        --copies /work/kitx --corpora vite,akaunting --out questions.json

* code-intel: `code-intel eval --repo COPIES/<corpus> --queries tests/eval/questions/<corpus>.jsonl
  --mode M --json` (the metrics are computed by `code_intel_core::eval`; this script re-scores the
  shown chunks with its own copy of the definitions and fails if the two disagree). A mode whose
  index has no vectors is skipped (vector) or reported as lexical by code-intel (hybrid): the
  script only runs vector/hybrid where `code-intel index --embed` was run on the copy.
* bm25-chunk: the development kit's BM25 over AST chunks (`baseline_cli.py --batch --method
  bm25-chunk`, run with BENCH_VENV's Python on BENCH_DATA/src/<corpus>; the kit indexes only its
  source extensions).
* semble-bm25: semble's BM25 with its code-aware re-ranking, dense side off
  (tests/eval/semble_lexical.py, run with SEMBLE_VENV's Python).

Metrics (docs/EVALUATION.md, "Questions about behaviour"): file-level NDCG@10 over the first ten
distinct files of the result list; span-level NDCG@10 over the first ten result chunks, a chunk
gaining 1 when at least half of its lines lie inside a gold span not yet credited; R@10 and
MRR@10 on files; F-R@10 (any of the first ten chunks half inside a gold span). The chunk
systems are asked for 50 chunks so that ten distinct files are there; code-intel returns one
chunk per file.
"""
import argparse
import json
import math
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CUTOFF = 10


def load(corpus):
    rows = [json.loads(l) for l in open(HERE / "questions" / f"{corpus}.jsonl") if l.strip()]
    for r in rows:
        r["gold_files"] = list(dict.fromkeys(g["path"] for g in r["gold"]))
    return rows


def ndcg(gains, relevant):
    disc = lambda i: 1.0 / math.log2(i + 2)
    dcg = sum(disc(i) for i, g in enumerate(gains[:CUTOFF]) if g)
    ideal = sum(disc(i) for i in range(min(relevant, CUTOFF)))
    return dcg / ideal if ideal else 0.0


def half_inside(c, g):
    if c["path"] != g["path"]:
        return False
    s, e = sorted((c["start_line"], c["end_line"]))
    overlap = min(e, g["end_line"]) - max(s, g["start_line"]) + 1
    return overlap > 0 and 2 * overlap >= e - s + 1


def score(q, chunks):
    files = []
    for c in chunks:
        if len(files) == CUTOFF:
            break
        if c["path"] not in files:
            files.append(c["path"])
    gold = q["gold_files"]
    rank = next((i + 1 for i, f in enumerate(files) if f in gold), None)
    spans = q["gold"]
    credited = [False] * len(spans)
    gains = []
    for c in [c for c in chunks if "start_line" in c][:CUTOFF]:
        hit = next((i for i, g in enumerate(spans) if not credited[i] and half_inside(c, g)), None)
        if hit is not None:
            credited[hit] = True
        gains.append(hit is not None)
    shown = [c for c in chunks if "start_line" in c][:CUTOFF]
    return {
        "ndcg": ndcg([f in gold for f in files], len(gold)),
        "span_ndcg": ndcg(gains, len(spans)),
        "r10": 1.0 if rank else 0.0,
        "mrr": 1.0 / rank if rank else 0.0,
        "fr10": 1.0 if any(half_inside(c, g) for c in shown for g in spans) else 0.0,
    }


def summarize(scores):
    n = len(scores)
    keys = ["ndcg", "span_ndcg", "r10", "mrr", "fr10"]
    return {"n": n, **{k: (sum(s[k] for s in scores) / n if n else 0.0) for k in keys}}


def folds(qs, scores):
    return {
        "all": summarize(scores),
        "even": summarize([s for q, s in zip(qs, scores) if q["id"] % 2 == 0]),
        "odd": summarize([s for q, s in zip(qs, scores) if q["id"] % 2 == 1]),
    }


def paired(a, b, key, seed=37, rounds=2000):
    """Mean of b - a over the same questions, wins/ties/losses of b, and a paired bootstrap 95 %
    interval of the mean difference (percentile method, fixed seed)."""
    import random
    d = [y[key] - x[key] for x, y in zip(a, b)]
    n = len(d)
    rng = random.Random(seed)
    means = sorted(sum(d[rng.randrange(n)] for _ in range(n)) / n for _ in range(rounds))
    return {
        "diff": sum(d) / n,
        "wins": sum(1 for v in d if v > 1e-12),
        "ties": sum(1 for v in d if abs(v) <= 1e-12),
        "losses": sum(1 for v in d if v < -1e-12),
        "ci95": [means[int(0.025 * rounds)], means[int(0.975 * rounds) - 1]],
    }


def run_code_intel(binary, repo, corpus, mode, qs):
    qfile = HERE / "questions" / f"{corpus}.jsonl"
    env = dict(os.environ)
    if mode == "lexical":
        env["CODE_INTEL_EMBEDDINGS"] = "off"
    out = subprocess.run(
        [binary, "eval", "--repo", str(repo), "--queries", str(qfile), "--mode", mode, "--json"],
        capture_output=True, text=True, env=env, check=True,
    ).stdout
    rep = json.loads(out)
    by_id = {r["id"]: r for r in rep["queries"]}
    scores, modes = [], set()
    for q in qs:
        r = by_id[q["id"]]
        modes.add(r["mode"])
        chunks = [{"path": c["file"], "start_line": c["start_line"], "end_line": c["end_line"]}
                  for c in r["shown"]]
        s = score(q, chunks)
        # The Rust metrics and this script's must agree.
        assert abs(s["ndcg"] - r["ndcg"]) < 1e-9, (q["id"], s["ndcg"], r["ndcg"])
        assert abs(s["span_ndcg"] - r["span_ndcg"]) < 1e-9, (q["id"], s["span_ndcg"], r["span_ndcg"])
        scores.append(s)
    summ = rep["summary"]
    mine = summarize(scores)
    assert abs(summ["ndcg_at_10"] - mine["ndcg"]) < 1e-9
    assert abs(summ["span_ndcg_at_10"] - mine["span_ndcg"]) < 1e-9
    assert abs(summ["recall_at_10"] - mine["r10"]) < 1e-9
    assert abs(summ["mrr_at_10"] - mine["mrr"]) < 1e-9
    return scores, {"modes": sorted(modes), "p50_ms": summ["latency_p50_ms"], "notes": rep.get("notes", [])}


def run_batch(cmd, qs, env=None):
    inp = "".join(json.dumps({"query": q["question"]}) + "\n" for q in qs)
    out = subprocess.run(cmd, input=inp, capture_output=True, text=True, check=True, env=env).stdout
    lines = [json.loads(l) for l in out.splitlines() if l.strip().startswith("{")]
    assert len(lines) == len(qs), (cmd, len(lines), len(qs))
    return [score(q, l["results"]) for q, l in zip(qs, lines)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="target/release/code-intel")
    ap.add_argument("--copies", default="/work/kitx", help="indexed copies of the kit's snapshots, one folder per corpus")
    ap.add_argument("--corpora", default="vite,akaunting,laravel,paperless")
    ap.add_argument("--modes", default="lexical,vector,hybrid")
    ap.add_argument("--baselines", default="bm25-chunk,semble-bm25")
    ap.add_argument("--kit", default=os.environ.get("BENCH_KIT", "../shared/bench-kit"))
    ap.add_argument("--bench-data", default=os.environ.get("BENCH_DATA", "/work/bench-data"))
    ap.add_argument("--bench-python", default=os.environ.get("BENCH_VENV", "/work/bench-venv") + "/bin/python")
    ap.add_argument("--semble-python", default=os.environ.get("SEMBLE_VENV", "/tmp/qx/semble-venv") + "/bin/python")
    ap.add_argument("--out", help="write every score here (JSON)")
    a = ap.parse_args()
    report = {}
    for corpus in a.corpora.split(","):
        qs = load(corpus)
        repo = Path(a.copies) / corpus
        systems = {}
        for mode in a.modes.split(","):
            scores, info = run_code_intel(a.bin, repo, corpus, mode, qs)
            if mode != "lexical" and info["modes"] != [mode]:
                print(f"{corpus} {mode}: ran as {info['modes']} ({info['notes']}); skipped", file=sys.stderr)
                continue
            systems[f"code-intel {mode}"] = {**folds(qs, scores), **info, "per_query": scores}
        src = Path(a.bench_data) / "src" / corpus
        if "bm25-chunk" in a.baselines:
            env = dict(os.environ, BENCH_DATA=a.bench_data)
            cmd = [a.bench_python, str(Path(a.kit) / "baseline_cli.py"), "--batch", "--method", "bm25-chunk",
                   "--repo", str(src), "--top", "50"]
            scores = run_batch(cmd, qs, env)
            systems["bm25-chunk (kit)"] = {**folds(qs, scores), "per_query": scores}
        if "semble-bm25" in a.baselines:
            cmd = [a.semble_python, str(HERE / "semble_lexical.py"), "--repo", str(src), "--top", "50"]
            scores = run_batch(cmd, qs)
            systems["semble BM25+rerank (dense off)"] = {**folds(qs, scores), "per_query": scores}
        base = systems.get("code-intel lexical")
        comparisons = {}
        for name in ("code-intel vector", "code-intel hybrid"):
            if base and name in systems:
                for key in ("ndcg", "span_ndcg"):
                    comparisons[f"{name} - lexical, {key}"] = paired(
                        base["per_query"], systems[name]["per_query"], key
                    )
        systems["comparisons"] = comparisons
        report[corpus] = systems
        print(f"\n{corpus} ({len(qs)} questions)")
        print(f"{'system':34} {'fold':5} {'n':>3} {'NDCG@10':>8} {'sNDCG@10':>9} {'R@10':>6} {'MRR@10':>7} {'F-R@10':>7}")
        for name, s in systems.items():
            if name == "comparisons":
                continue
            for fold in ("all", "even", "odd"):
                m = s[fold]
                print(f"{name:34} {fold:5} {m['n']:>3} {m['ndcg']:>8.3f} {m['span_ndcg']:>9.3f} {m['r10']:>6.3f} {m['mrr']:>7.3f} {m['fr10']:>7.3f}")
        for name, c in comparisons.items():
            print(f"{name}: {c['diff']:+.3f} (95 % CI {c['ci95'][0]:+.3f} .. {c['ci95'][1]:+.3f}), "
                  f"better on {c['wins']}, equal on {c['ties']}, worse on {c['losses']}")
        sys.stdout.flush()
    if a.out:
        with open(a.out, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
