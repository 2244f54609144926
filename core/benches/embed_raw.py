#!/usr/bin/env python3
"""Raw ONNX Runtime baseline for core/benches/embed.rs: the same chunks, the same model files, the
same batching (sorted by length, batches of 8, "passage: " prefix, mean pooling, L2 norm), through
ONNX Runtime's Python wheel and the `tokenizers` package with no wrapper in between.

    cargo bench -p code-intel-core --bench embed -- --chunks-out /tmp/chunks.jsonl
    python3 core/benches/embed_raw.py --model-dir ~/.cache/code-intel/models/multilingual-e5-small \
        --chunks /tmp/chunks.jsonl --threads 1 2

Needs `onnxruntime==1.24.4 numpy tokenizers` (a venv; scripts/model/requirements.txt pins them).
Prints one JSON line per thread count: chunks/s (best of 2 passes after one warm-up batch), load
seconds, CPU-seconds per pass. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer


def load(model_dir: Path, threads: int, spinning: bool):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.add_session_config_entry("session.intra_op.allow_spinning", "1" if spinning else "0")
    session = ort.InferenceSession(str(model_dir / "model.onnx"), opts, providers=["CPUExecutionProvider"])
    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.enable_truncation(512)
    tok.enable_padding(pad_id=1, pad_token="<pad>")
    return session, tok


def embed(session, tok, texts: list[str]) -> np.ndarray:
    enc = tok.encode_batch(texts)
    ids = np.array([e.ids for e in enc], dtype=np.int64)
    mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
    out = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
    m = mask[:, :, None].astype(np.float32)
    pooled = (out * m).sum(1) / np.maximum(m.sum(1), 1e-9)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model-dir", type=Path, required=True)
    ap.add_argument("--chunks", type=Path, required=True, help="JSON lines {\"text\": ...}")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--spinning", action="store_true")
    args = ap.parse_args()
    texts = ["passage: " + json.loads(line)["text"] for line in args.chunks.read_text(encoding="utf-8").splitlines()]
    texts.sort(key=lambda t: len(t.encode()))  # as FastEmbedder: by UTF-8 length
    for threads in args.threads:
        t0 = time.perf_counter()
        session, tok = load(args.model_dir, threads, args.spinning)
        load_s = time.perf_counter() - t0
        embed(session, tok, texts[: args.batch])
        best, cpu = float("inf"), 0.0
        for _ in range(2):
            c0, t0 = time.process_time(), time.perf_counter()
            for i in range(0, len(texts), args.batch):
                embed(session, tok, texts[i : i + args.batch])
            best = min(best, time.perf_counter() - t0)
            cpu += time.process_time() - c0
        print(json.dumps({
            "threads": threads, "batch": args.batch, "spinning": args.spinning, "chunks": len(texts),
            "chunks_per_s": round(len(texts) / best, 2), "seconds": round(best, 2),
            "chunks_per_cpu_s": round(2 * len(texts) / cpu, 2), "load_s": round(load_s, 2),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        }), flush=True)


if __name__ == "__main__":
    main()
