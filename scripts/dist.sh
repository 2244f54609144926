#!/usr/bin/env bash
# Builds what users install: the four binaries in the dist profiles, stripped, with their debug
# info kept apart, their sizes checked, and (unless --no-pack) the npm tarballs.
#
#   code-intel                   cargo build --profile dist -p code-intel-mcp
#   code-intel-pre-tool-use,     cargo build --profile dist-hooks -p code-intel-hooks
#   code-intel-post-tool-use,    (their own invocation: built with the server, Cargo would unify
#   code-intel-sandbox            features and link index code into them)
#
# Each binary is split with objcopy: `<out>/debug/<bin>.debug` keeps the line tables (what a crash
# report's addresses are resolved against: `addr2line -e <bin>.debug`), `<out>/bin/<bin>` is
# stripped and names its debug file (`.gnu_debuglink`). Size limits (docs/DIST.md): the hooks and
# the launcher at most 3,000,000 bytes each, code-intel at most 30,000,000 bytes; over a limit the
# script fails after printing every size.
#
# Usage: scripts/dist.sh [--hooks-only] [--no-pack] [--out DIR]
#   --hooks-only  build and check the hooks and the launcher only (what CI checks: a few minutes
#                 instead of the server's LTO build)
#   --no-pack     skip scripts/npm-pack.sh
#   --out DIR     default target/dist-out/<platform>
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"
hooks_only=0 pack=1 out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --hooks-only) hooks_only=1; pack=0 ;;
    --no-pack) pack=0 ;;
    --out) out="${2:?--out needs a directory}"; shift ;;
    *) echo "dist: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
log() { printf 'dist: %s\n' "$*" >&2; }
target_dir="${CARGO_TARGET_DIR:-$repo_root/target}"
out="${out:-$target_dir/dist-out/$(uname -s | tr A-Z a-z)-$(uname -m)}"
mkdir -p "$out/bin" "$out/debug"

readonly HOOK_LIMIT=3000000 SERVER_LIMIT=30000000
hooks=(code-intel-pre-tool-use code-intel-post-tool-use code-intel-sandbox)

timed() {
  local start=$SECONDS
  "$@"
  log "$* took $((SECONDS - start)) s"
}

timed cargo build --locked --profile dist-hooks -p code-intel-hooks
declare -A from=()
for b in "${hooks[@]}"; do from[$b]="$target_dir/dist-hooks/$b"; done
if [[ $hooks_only == 0 ]]; then
  timed cargo build --locked --profile dist -p code-intel-mcp
  from[code-intel]="$target_dir/dist/code-intel"
fi

failed=0
for b in "${!from[@]}"; do
  src="${from[$b]}"
  objcopy --only-keep-debug "$src" "$out/debug/$b.debug"
  objcopy --strip-all --add-gnu-debuglink="$out/debug/$b.debug" "$src" "$out/bin/$b"
  size=$(stat -c %s "$out/bin/$b")
  limit=$HOOK_LIMIT
  [[ $b == code-intel ]] && limit=$SERVER_LIMIT
  verdict=ok
  if (( size > limit )); then verdict="OVER the limit of $limit"; failed=1; fi
  printf 'dist: %-26s %10d bytes stripped (debug info %d bytes apart)  %s\n' \
    "$b" "$size" "$(stat -c %s "$out/debug/$b.debug")" "$verdict" >&2
done
(( failed == 0 )) || { log "a binary is over its size limit (docs/DIST.md)"; exit 1; }

if [[ $pack == 1 ]]; then
  bash scripts/npm-pack.sh --bin-dir "$out/bin" --out "$out/npm"
fi
log "binaries in $out/bin, debug info in $out/debug"
