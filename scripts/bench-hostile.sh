#!/usr/bin/env bash
# Time and peak memory of code-intel on hostile repository files (issue 15), measured with
# /usr/bin/time -v: a sparse multi-GB file (function-at-line, analyze-structure, search-text) and a
# 400 KB JavaScript file of nested object literals (function-at-line, index).
#
# Usage: scripts/bench-hostile.sh [path/to/code-intel]   (default: target/release/code-intel;
#        build it with `cargo build --release -p code-intel-mcp`)
# Prints one line per case: case, exit code, wall seconds, peak RSS in MiB, then the protocol
# soak's summary (SOAK=0 skips it; SOAK_FILES sizes its repository). Numbers go into
# docs/BENCHMARKS.md ("Hostile inputs").
set -euo pipefail

bin=${1:-target/release/code-intel}
[ -x "$bin" ] || { echo "no $bin: cargo build --release -p code-intel-mcp" >&2; exit 2; }
bin=$(realpath "$bin")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

repo=$work/repo
mkdir -p "$repo/src"
printf 'def ok():\n    return 1\n' > "$repo/src/ok.py"
# 8 GiB sparse: one stat must be all it costs.
truncate -s 8G "$repo/src/huge.py"
# ~400 KB of {a:{a:...}} nested 80,000 deep, one level per line (the index's minified rule skips
# long-line files before parsing; this shape reaches the parser).
python3 - "$repo/src/data.js" <<'EOF'
import sys
n = 80_000
with open(sys.argv[1], "w") as f:
    f.write("function outer() { return 1; }\nconst o = " + "{a:\n" * n + "1" + "}" * n + ";\n")
EOF

measure() {
  local name=$1; shift
  local log=$work/time.log code=0
  /usr/bin/time -v "$@" >/dev/null 2>"$log" || code=$?
  local wall rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log" | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2/1024}' "$log")
  printf '%-44s exit %-3s %8.2f s %8s MiB\n' "$name" "$code" "$wall" "$rss"
}

export CODE_INTEL_EMBEDDINGS=off CODE_INTEL_LOG=warn
measure "function-at-line src/huge.py (8 GiB sparse)" "$bin" function-at-line src/huge.py 1 --repo "$repo"
measure "analyze-structure src (with the 8 GiB file)" "$bin" analyze-structure src --repo "$repo"
measure "search-text return src (with the 8 GiB file)" "$bin" search-text return --path src --repo "$repo"
measure "function-at-line src/data.js (nested JS)" "$bin" function-at-line src/data.js 1 --repo "$repo"
measure "index (nested JS + 8 GiB file)" "$bin" index --repo "$repo"

# Protocol soak (issue 40): 1,000 valid, malformed and hostile JSON-RPC requests in one burst
# through one `serve` of this binary on a generated 10,000-file repository; every request must be
# answered; prints latencies and the server's peak RSS (docs/BENCHMARKS.md, "Hostile protocol and
# concurrency"). The driver is the test mcp/tests/protocol_soak.rs (debug build is fine: the
# server measured is "$bin").
if [ "${SOAK:-1}" != 0 ]; then
  CODE_INTEL_SOAK_BIN="$bin" CODE_INTEL_SOAK_FILES="${SOAK_FILES:-10000}" \
    cargo test -q -p code-intel-mcp --test protocol_soak -- --nocapture 2>&1 | grep -E '^soak:|panicked|test result'
fi
