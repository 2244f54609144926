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

# N concurrent `search_text {"pattern": "\\w{1,10000}"}` through one `serve` (issue 40: ~110 MB
# per call in flight before the memory budget): wall time until every answer, the answers, and
# the server's peak RSS (VmHWM).
for n in 1 4 16 64 200; do
  python3 - "$bin" "$repo" "$n" <<'EOF2'
import json, os, subprocess, sys, time
bin, repo, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
env = dict(os.environ, CODE_INTEL_EMBEDDINGS="off", CODE_INTEL_LOG="error")
p = subprocess.Popen([bin, "serve", "--repo", repo], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
def send(m):
    p.stdin.write((json.dumps(m) + "\n").encode()); p.stdin.flush()
send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}})
p.stdout.readline()
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
t = time.time()
for i in range(n):
    send({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {"name": "search_text", "arguments": {"pattern": "\\w{1,10000}"}}})
kinds = {}
for _ in range(n):
    r = json.loads(p.stdout.readline())
    k = r.get("result", {}).get("structuredContent", {}).get("error", "?")
    kinds[k] = kinds.get(k, 0) + 1
wall = time.time() - t
hwm = next(int(l.split()[1]) for l in open(f"/proc/{p.pid}/status") if l.startswith("VmHWM:"))
p.stdin.close(); p.wait()
print(f"concurrent \\w{{1,10000}} x{n:<4} {wall:8.2f} s {hwm / 1024:8.1f} MiB  {kinds}")
EOF2
done

# Protocol soak (issue 40): 1,000 valid, malformed and hostile JSON-RPC requests in one burst
# through one `serve` of this binary on a generated 10,000-file repository; every request must be
# answered; prints latencies and the server's peak RSS (docs/BENCHMARKS.md, "Hostile protocol and
# concurrency"). The driver is the test mcp/tests/protocol_soak.rs (debug build is fine: the
# server measured is "$bin").
if [ "${SOAK:-1}" != 0 ]; then
  CODE_INTEL_SOAK_BIN="$bin" CODE_INTEL_SOAK_FILES="${SOAK_FILES:-10000}" \
    cargo test -q -p code-intel-mcp --test protocol_soak -- --nocapture 2>&1 | grep -E '^soak:|panicked|test result'
fi
