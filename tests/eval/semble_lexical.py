#!/usr/bin/env python3
"""Semble's offline half as a batch search CLI: its chunker, BM25 and code-aware re-ranking, with
the dense side switched off (alpha 0), because its embedding model (a model2vec model on the
Hugging Face Hub) cannot be downloaded on this project's machines.

Run with the Python of a venv where `pip install semble` was done (tests/eval/questions_eval.py
does). Reads `{"query": ...}` JSON lines on stdin, writes `{"results": [{"path", "start_line",
"end_line"}, ...]}` per line, best first (the kit's baseline_cli.py format).

    python semble_lexical.py --repo DIR [--top 10] < queries.jsonl

The stub model returns zero vectors (dimension 8) so the index builds without the model; with
alpha 0 the semantic scores have weight 0 and `search` drops zero-score candidates, so the
ranking is exactly semble's BM25 + `boost_multi_chunk_files` + `apply_query_boost` +
`rerank_topk(penalise_paths=True)` (semble 0.7.0's `semble.search.search`).
"""
import argparse
import json
import sys
from pathlib import Path

import numpy as np
from semble.index.create import create_index_from_path
from semble.search import search
from semble.types import ContentType


class ZeroModel:
    """Stands in for the model2vec StaticModel: zero vectors."""

    dim = 8

    def encode(self, texts, **_kw):
        return np.zeros((len(texts), self.dim), dtype=np.float32)


class NoSemantic:
    """A vector index that finds nothing."""

    def query(self, vectors, k, selector=None):
        return [(np.array([], dtype=np.int64), np.array([], dtype=np.float32)) for _ in vectors]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True)
    ap.add_argument("--top", type=int, default=10)
    a = ap.parse_args()
    root = Path(a.repo).resolve()
    bm25, _semantic, chunks, _manifest = create_index_from_path(
        root, model=ZeroModel(), content=(ContentType.CODE,), display_root=root
    )
    print(f"semble: {len(chunks)} chunks", file=sys.stderr)
    model, semantic = ZeroModel(), NoSemantic()
    for line in sys.stdin:
        if not line.strip():
            continue
        q = json.loads(line)["query"]
        hits = search(q, model, semantic, bm25, chunks, a.top, alpha=0.0, rerank=True)
        out = [
            {"path": h.chunk.file_path, "start_line": h.chunk.start_line, "end_line": h.chunk.end_line}
            for h in hits
        ]
        print(json.dumps({"results": out}), flush=True)


if __name__ == "__main__":
    main()
