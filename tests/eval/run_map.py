#!/usr/bin/env python3
"""Calibration of the map short-circuit (docs/log/2026-11-21-semantic-defaults.md, "5. Map short-circuit").

For each corpus, topics that have an English and a Japanese query in tests/eval/queries.jsonl
are split in two: the even ones become learned pairs (nl_term = the Japanese query, symbol = the
expected file's name), written to the corpus's .code-intel/learned_pairs.json; the odd ones stay
out of the map. Then every topic's English query runs through `code-intel search --batch` with
collection `map`, and the top map hit's calibrated z (against the query's cosines to the
corpus's code) is recorded:

  in map      the right entry should come first with a high z (a cross-lingual paraphrase of
              a past success: the short-circuit should fire)
  not in map  the top entry is some other topic (the short-circuit must not fire)

The learned_pairs.json is removed afterwards.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_eval import REPO  # noqa: E402

# (English id, Japanese id) of the same topic, per corpus.
TOPICS = {
    "flask": [(f"en-{i:02d}", f"ja-{i:02d}") for i in range(1, 15)],
    "express": [(f"en-{i:02d}", f"ja-{i + 3:02d}") for i in range(15, 27)],
    "laravel": [("en-27", "ja-33"), ("en-28", "ja-34"), ("en-29", "ja-32")]
    + [(f"en-{i:02d}", f"ja-{i + 5:02d}") for i in range(30, 42)],
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=str(REPO / "target" / "release" / "code-intel"))
    ap.add_argument("--queries", default=str(REPO / "tests" / "eval" / "queries.jsonl"))
    ap.add_argument("--work", default=str(REPO / ".e2e-cache" / "eval"))
    ap.add_argument("--json", help="write every observation here")
    args = ap.parse_args()
    qs = {q["id"]: q for q in (json.loads(l) for l in open(args.queries, encoding="utf-8")
                               if l.strip())}
    rows = []
    for corpus, topics in TOPICS.items():
        root = Path(args.work) / corpus
        pairs_path = root / ".code-intel" / "learned_pairs.json"
        in_map = topics[0::2]
        pairs = []
        for en, ja in in_map:
            expected = qs[en]["expected"][0].rstrip("/")
            symbol = Path(expected).stem if "." in Path(expected).name else Path(expected).name
            pairs.append({"nl_term": qs[ja]["query"], "symbol": symbol})
        pairs_path.write_text(json.dumps({"version": 2, "pairs": pairs}, ensure_ascii=False))
        try:
            lines = [json.dumps({"id": en, "query": qs[en]["query"], "collection": "map"},
                                ensure_ascii=False) for en, _ in topics]
            out = subprocess.run([args.bin, "--repo", str(root), "search", "--batch"],
                                 input="\n".join(lines) + "\n", capture_output=True, text=True,
                                 check=True)
        finally:
            pairs_path.unlink(missing_ok=True)
        want = {en: qs[ja]["query"] for en, ja in in_map}
        for line in out.stdout.splitlines():
            a = json.loads(line)
            top = a["map_hits"][0] if a["map_hits"] else None
            rows.append({
                "corpus": corpus,
                "id": a["id"],
                "in_map": a["id"] in want,
                "right_first": bool(top) and top.get("nl_term") == want.get(a["id"]),
                "z": top["z"] if top else None,
                "cosine": top["cosine"] if top else None,
                "second_z": a["map_hits"][1]["z"] if len(a["map_hits"]) > 1 else None,
            })
    ins = [r for r in rows if r["in_map"]]
    outs = [r for r in rows if not r["in_map"]]
    print(f"{len(ins)} queries with their topic in the map, {len(outs)} without")
    print("in map    : z of the top hit", sorted(round(r["z"], 2) for r in ins),
          f"right entry first {sum(r['right_first'] for r in ins)}/{len(ins)}")
    print("in map    : z of the 2nd hit", sorted(round(r["second_z"], 2) for r in ins))
    print("not in map: z of the top hit", sorted(round(r["z"], 2) for r in outs))
    print("cosines   : in map", sorted(round(r["cosine"], 3) for r in ins))
    print("cosines   : not   ", sorted(round(r["cosine"], 3) for r in outs))
    for t in [2.5, 3.0, 3.5, 4.0, 4.5, 5.0]:
        tp = sum(1 for r in ins if r["z"] >= t and r["right_first"])
        fp = sum(1 for r in outs if r["z"] >= t) + sum(
            1 for r in ins if r["z"] >= t and not r["right_first"])
        print(f"threshold z >= {t}: short-circuits {tp}/{len(ins)} right, {fp} wrong")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
