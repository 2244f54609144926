#!/usr/bin/env python3
"""Recall@10 of the HNSW graph for real query vectors, against the exact top ten.

The graph bench (`cargo bench -p code-intel-core --bench vector -- --cache …`) searches with the
stored passage vectors themselves ("self-queries"); a user's query is embedded with the model's
query prefix and lies elsewhere. This replays `Hnsw::search` (core/src/index/vector/hnsw.rs:
greedy descent through the upper layers with a beam of one, then a beam of `ef` at layer 0) in
numpy over an embedded repository's graph dump, its embedding cache and its state, with each
query embedded as the index embeds queries (`query: ` prefix, mean pooling, L2 norm), and counts
how many of the graph's first ten reach the exact tenth cosine (ties count as found).

    /work/venv/bin/python tests/eval/graph_query_recall.py REPO QUERIES.jsonl [--ef 64,128,256]

REPO: a repository whose index is embedded past the graph's threshold (20,000 live vectors) and
was saved by the current build (`vectors/graph-*.hnsw`, format `CIHNSW\\x02`, of as many nodes as
`state.json` has slots; records appended to `state.log` since are not read). QUERIES: JSON lines
with a "query" field. Needs numpy, onnxruntime and tokenizers (docs/MODEL.md) and the model in
the model cache. Cosines use the embedding cache's f32 vectors, not the int8 slot matrix the
server searches, so a result within rounding of the tenth counts either way.
"""
import argparse
import glob
import heapq
import json
import os
import sys

import numpy as np

ABSENT = 255


def load_graph(path):
    b = open(path, "rb").read()
    if not b.startswith(b"CIHNSW\x02\x00"):
        sys.exit(f"{path}: not a graph dump of this format")
    m = int.from_bytes(b[8:12], "little")
    n = int.from_bytes(b[16:24], "little")
    entry = int.from_bytes(b[24:28], "little")
    top = b[28]
    off = 29
    levels = np.frombuffer(b[off:off + n], dtype=np.uint8)
    off += n
    layer0 = np.frombuffer(b[off:off + n * 2 * m * 4], dtype=np.uint32).reshape(n, 2 * m)
    off += n * 2 * m * 4
    upper = {}
    for node in range(n):
        level = int(levels[node])
        if level != ABSENT and level > 0:
            upper[node] = np.frombuffer(b[off:off + level * m * 4], dtype=np.uint32).reshape(level, m)
            off += level * m * 4
    return layer0, upper, entry, top


def load_vectors(index_dir, slots):
    [path] = glob.glob(os.path.join(index_dir, "embeddings", "*.emb"))
    b = open(path, "rb").read()
    dims = int.from_bytes(b[12:16], "little")
    id_len = int.from_bytes(b[16:20], "little")
    at = 20 + id_len + 4
    record = 32 + 4 * dims + 4
    by_key = {}
    while at + record <= len(b):
        by_key[b[at:at + 32].hex()] = np.frombuffer(b[at + 32:at + 32 + 4 * dims], dtype=np.float32)
        at += record
    zero = np.zeros(dims, np.float32)
    return np.stack([by_key.get(k, zero) for k in slots])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo")
    ap.add_argument("queries")
    ap.add_argument("--ef", default="64,128,256")
    ap.add_argument("--model", default=os.path.expanduser("~/.cache/code-intel/models/multilingual-e5-small"))
    args = ap.parse_args()

    import onnxruntime as ort
    from tokenizers import Tokenizer

    index_dir = os.path.join(args.repo, ".code-intel", "index")
    vectors_dir = os.path.join(index_dir, "vectors")
    state = json.load(open(os.path.join(vectors_dir, "state.json")))
    [graph_path] = glob.glob(os.path.join(vectors_dir, "graph-*.hnsw"))
    layer0, upper, entry, top = load_graph(graph_path)
    matrix = load_vectors(index_dir, state["slots"])
    if layer0.shape[0] != matrix.shape[0]:
        sys.exit(f"graph of {layer0.shape[0]} nodes, state.json of {matrix.shape[0]} slots: the dump and "
                 "state.json are of different saves (records appended to state.log since)")

    tok = Tokenizer.from_file(os.path.join(args.model, "tokenizer.json"))
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(os.path.join(args.model, "model.onnx"), options, providers=["CPUExecutionProvider"])
    inputs = {i.name for i in session.get_inputs()}

    def embed(text):
        ids = np.array([tok.encode(text).ids[:512]], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        if "token_type_ids" in inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        v = session.run(None, feed)[0][0].mean(0)
        return v / np.linalg.norm(v)

    queries = [json.loads(l)["query"] for l in open(args.queries) if l.strip()]
    embedded = np.stack([embed("query: " + q) for q in queries])

    def links(node, layer):
        row = layer0[node] if layer == 0 else (upper[node][layer - 1] if node in upper else ())
        return [int(x) for x in row if x != 0xFFFFFFFF]

    def search_layer(sims, entries, ef, layer):
        visited = {e for _, e in entries}
        candidates = [(-s, e) for s, e in entries]
        heapq.heapify(candidates)
        found = list(entries)
        heapq.heapify(found)
        while candidates:
            neg, c = heapq.heappop(candidates)
            if len(found) >= ef and -neg < found[0][0]:
                break
            for x in links(c, layer):
                if x in visited:
                    continue
                visited.add(x)
                s = float(sims[x])
                if len(found) < ef or s > found[0][0]:
                    heapq.heappush(candidates, (-s, x))
                    heapq.heappush(found, (s, x))
                    if len(found) > ef:
                        heapq.heappop(found)
        return sorted(found, reverse=True)

    print(f"{matrix.shape[0]} vectors, {len(queries)} queries")
    for ef in (int(x) for x in args.ef.split(",")):
        recall = []
        for q in embedded:
            sims = matrix @ q
            tenth = np.partition(sims, -10)[-10]
            entries = [(float(sims[entry]), entry)]
            for layer in range(top, 0, -1):
                entries = search_layer(sims, entries, 1, layer)
            got = search_layer(sims, entries, max(ef, 10), 0)[:10]
            recall.append(sum(1 for s, _ in got if s >= tenth - 1e-5) / 10)
        recall = np.array(recall)
        print(f"ef {ef}: recall@10 {recall.mean():.3f}, queries below 0.8 {int((recall < 0.8).sum())}, "
              f"at 0 {int((recall == 0).sum())}")


if __name__ == "__main__":
    main()
