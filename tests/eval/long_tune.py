#!/usr/bin/env python3
"""Two-fold choice of the long-request weights (docs/EVALUATION.md, "Long requests").

Reads `code-intel eval --json` reports made with `--variants GRID --baseline bm25-file` (one per
corpus or query set), splits their long requests in two folds, chooses on each fold the grid
setting with the best R@1 + R@5 + MRR@10, and reports it on the other fold; the held-out
figures of both folds together are each request scored once, by the setting chosen without it.

    python3 tests/eval/long_tune.py --split id laravel.json paperless.json tracebacks.json
    python3 tests/eval/long_tune.py --split corpus laravel.json paperless.json tracebacks.json

--split id: a request's fold is the parity of the first hex digit of the SHA-1 of its id (each
corpus split in halves); --split corpus: fold A is the first report given, fold B the others.
A request id seen in an earlier report (overlapping ranges) is counted once.
"""

import argparse
import hashlib
import json


def metrics(ranks):
    n = len(ranks) or 1
    r1 = sum(1 for r in ranks if r is not None and r <= 1) / n
    r5 = sum(1 for r in ranks if r is not None and r <= 5) / n
    r10 = sum(1 for r in ranks if r is not None and r <= 10) / n
    mrr = sum(1 / r for r in ranks if r is not None) / n
    return {"n": len(ranks), "R@1": r1, "R@5": r5, "R@10": r10, "MRR@10": mrr}


def objective(m):
    return m["R@1"] + m["R@5"] + m["MRR@10"]


def fmt(m):
    return f"{m['R@1']:.3f} {m['R@5']:.3f} {m['R@10']:.3f} {m['MRR@10']:.3f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("reports", nargs="+")
    ap.add_argument("--split", choices=["id", "corpus"], default="id")
    ap.add_argument("--show", type=int, default=5, help="best settings shown per fold")
    ap.add_argument(
        "--among",
        help="JSON list of grid settings (objects, as in the grid) the folds choose among "
        "(default: the whole grid)",
    )
    ap.add_argument(
        "--setting",
        help="a grid setting (JSON object) also reported on each fold and on both, beside "
        "bm25-file (a setting fixed without the development set, e.g. by latency)",
    )
    a = ap.parse_args()
    rows, grid, seen = [], None, set()
    for i, path in enumerate(a.reports):
        rep = json.load(open(path))
        settings = [v["rank"] for v in rep["variants"]]
        if grid is None:
            grid = settings
        elif grid != settings:
            raise SystemExit(f"{path}: another grid than {a.reports[0]}")
        for q in rep["queries"]:
            if not q["long"]:
                continue
            qid = str(q.get("id"))
            if qid in seen:
                continue  # the same commit from overlapping ranges
            seen.add(qid)
            if a.split == "id":
                fold = int(hashlib.sha1(qid.encode()).hexdigest()[0], 16) % 2
            else:
                fold = 0 if i == 0 else 1
            rows.append({
                "fold": fold,
                "source": path,
                "variants": q["variant_ranks"],
                "default": q["rank"],
                "bm25": (q.get("baseline") or {}).get("rank"),
            })
    folds = [[r for r in rows if r["fold"] == f] for f in (0, 1)]
    print(f"{len(rows)} long requests; fold A {len(folds[0])}, fold B {len(folds[1])}")
    chosen = []
    for f, name in ((0, "A"), (1, "B")):
        scored = []
        among = json.loads(a.among) if a.among else grid
        for v in range(len(grid)):
            if grid[v] not in among:
                continue
            m = metrics([r["variants"][v] for r in folds[f]])
            scored.append((objective(m), v, m))
        scored.sort(key=lambda t: (-t[0], t[1]))
        print(f"\nfold {name}: best settings on its own requests (R@1 R@5 R@10 MRR@10)")
        for obj, v, m in scored[: a.show]:
            print(f"  {fmt(m)}  {json.dumps(grid[v], sort_keys=True)}")
        chosen.append(scored[0][1])
    print("\nheld out (R@1 R@5 R@10 MRR@10):")
    held = []
    for f, name in ((0, "A"), (1, "B")):
        other = chosen[1 - f]
        test = folds[f]
        held += [r["variants"][other] for r in test]
        print(f"  fold {name} ({len(test)}), chosen on the other fold {json.dumps(grid[other], sort_keys=True)}:")
        print(f"    chosen     {fmt(metrics([r['variants'][other] for r in test]))}")
        print(f"    shipped    {fmt(metrics([r['default'] for r in test]))}")
        print(f"    bm25-file  {fmt(metrics([r['bm25'] for r in test]))}")
        off = next((i for i, g in enumerate(grid) if g.get("request_analysis") == 0), None)
        if off is not None:
            print(f"    no analysis {fmt(metrics([r['variants'][off] for r in test]))}")
    if a.setting:
        want = json.loads(a.setting)
        v = grid.index(want)
        print(f"\nthe setting {json.dumps(want, sort_keys=True)} (R@1 R@5 R@10 MRR@10):")
        for f, name in ((0, "A"), (1, "B")):
            print(f"  fold {name} ({len(folds[f])}): {fmt(metrics([r['variants'][v] for r in folds[f]]))}"
                  f" | bm25-file {fmt(metrics([r['bm25'] for r in folds[f]]))}")
        m = metrics([r["variants"][v] for r in rows])
        b = metrics([r["bm25"] for r in rows])
        print(f"  both ({m['n']}): {fmt(m)} | bm25-file {fmt(b)}; "
              f"R@1 {m['R@1'] - b['R@1']:+.3f}, R@5 {m['R@5'] - b['R@5']:+.3f}")
    both = metrics(held)
    bm25 = metrics([r["bm25"] for r in rows])
    print(f"\nboth held-out halves ({both['n']}): {fmt(both)}")
    print(f"bm25-file, same requests:    {fmt(bm25)}")
    print(f"gain: R@1 {both['R@1'] - bm25['R@1']:+.3f}, R@5 {both['R@5'] - bm25['R@5']:+.3f} (targets +0.08)")
    by_source = {}
    for r in rows:
        by_source.setdefault(r["source"], []).append(r)
    print("\nper report, shipped defaults vs bm25-file (R@1 R@5 R@10 MRR@10):")
    for src, rs in by_source.items():
        print(f"  {src} ({len(rs)}): {fmt(metrics([r['default'] for r in rs]))} | {fmt(metrics([r['bm25'] for r in rs]))}")


if __name__ == "__main__":
    main()
