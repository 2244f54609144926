#!/usr/bin/env bash
# Builds what users install: the four binaries in the dist profiles, stripped, with their debug
# info kept apart, their sizes checked, and (unless --no-pack) the npm tarballs.
#
#   code-intel                   cargo build --profile dist -p code-intel-mcp --features dynamic-grammars
#   bin/grammars/*.so            the 17 tree-sitter grammars as shared libraries, linked from the
#                                archives the grammar crates' build scripts compiled in that build
#                                (code-intel opens each on first use: grammars/src/lib.rs)
#   code-intel-pre-tool-use,     cargo build --profile dist-hooks -p code-intel-hooks
#   code-intel-post-tool-use,    (their own invocation: built with the server, Cargo would unify
#   code-intel-sandbox            features and link index code into them)
#
# Each binary is split with objcopy: `<out>/debug/<bin>.debug` keeps the line tables (what a crash
# report's addresses are resolved against: `addr2line -e <bin>.debug`), `<out>/bin/<bin>` is
# stripped and names its debug file (`.gnu_debuglink`). Size limits (docs/DIST.md): the hooks and
# the launcher at most 3,000,000 bytes each, code-intel at most 30,000,000 bytes; over a limit the
# script fails after printing every size. The grammars' total and the installed total are printed.
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
# Grammar library (file tree-sitter-<name>) -> the language functions it exports.
declare -A grammar_symbols=(
  [python]=tree_sitter_python [php]=tree_sitter_php [javascript]=tree_sitter_javascript
  [typescript]="tree_sitter_typescript tree_sitter_tsx" [html]=tree_sitter_html
  [css]=tree_sitter_css [scss]=tree_sitter_scss [go]=tree_sitter_go [rust]=tree_sitter_rust
  [java]=tree_sitter_java [ruby]=tree_sitter_ruby [c-sharp]=tree_sitter_c_sharp [c]=tree_sitter_c
  [cpp]=tree_sitter_cpp [kotlin-ng]=tree_sitter_kotlin [swift]=tree_sitter_swift
)
if [[ $hooks_only == 0 ]]; then
  messages="$(mktemp)"
  timed cargo build --locked --profile dist -p code-intel-mcp --features dynamic-grammars \
    --message-format=json-render-diagnostics >"$messages"
  from[code-intel]="$target_dir/dist/code-intel"
  # Each grammar crate's build script compiled its parser (and scanner) into an archive in its
  # OUT_DIR; link that archive into a shared library exporting only the language functions
  # (--gc-sections then drops what they do not reach, e.g. tree-sitter-php's php_only).
  rm -rf "$out/bin/grammars" && mkdir -p "$out/bin/grammars"
  python3 - "$messages" >"$messages.dirs" <<'PY'
import json, re, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    name = re.search(r"[#/]([A-Za-z0-9_-]+)@", m.get("package_id", ""))
    if m.get("reason") == "build-script-executed" and name and name.group(1).startswith("tree-sitter-"):
        print(name.group(1).removeprefix("tree-sitter-"), m["out_dir"])
PY
  declare -A out_dir=()
  while read -r name dir; do out_dir[$name]=$dir; done <"$messages.dirs"
  rm -f "$messages" "$messages.dirs"
  for name in "${!grammar_symbols[@]}"; do
    dir="${out_dir[$name]:-}"
    archive=$(ls "$dir"/*.a 2>/dev/null | head -1)
    [[ -n "$archive" ]] || { log "no archive of tree-sitter-$name (build script output dir: ${dir:-none})"; exit 1; }
    script="$(mktemp)"
    { printf '{ global: '; printf '%s; ' ${grammar_symbols[$name]}; printf '\n  local: *; };\n'; } >"$script"
    cc -shared -s -o "$out/bin/grammars/libtree-sitter-$name.so" -Wl,--gc-sections \
      -Wl,--version-script="$script" -Wl,--whole-archive "$archive" -Wl,--no-whole-archive
    rm -f "$script"
  done
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
if [[ $hooks_only == 0 ]]; then
  grammars=$(cat "$out"/bin/grammars/*.so | wc -c)
  installed=$(cat "$out"/bin/code-intel* "$out"/bin/grammars/*.so | wc -c)
  printf 'dist: %-26s %10d bytes (%d libraries)\n' grammars/ "$grammars" \
    "$(ls "$out"/bin/grammars/*.so | wc -l)" >&2
  printf 'dist: %-26s %10d bytes\n' "installed total" "$installed" >&2
fi
(( failed == 0 )) || { log "a binary is over its size limit (docs/DIST.md)"; exit 1; }

if [[ $hooks_only == 0 ]]; then
  # Every grammar loads from bin/grammars: index one file per parsed language with the stripped
  # binary and fail on any file chunked as line windows (a grammar that did not load, or a
  # chunk query that does not compile against it, is recorded as the file's `fallback`).
  check="$(mktemp -d)"
  cp core/tests/fixtures/languages/* "$check/"
  printf 'def area(r):\n    return 3.14 * r * r\n' >"$check/geo.py"
  printf '<?php\nclass Cart { public function total(): int { return 1; } }\n' >"$check/Cart.php"
  printf 'export function add(a, b) {\n  return a + b;\n}\n' >"$check/add.js"
  printf 'export function add(a: number, b: number): number {\n  return a + b;\n}\n' >"$check/add.ts"
  printf 'export function App() {\n  return <div>hi</div>;\n}\n' >"$check/App.tsx"
  printf '<html><body><h1 id="t">Title</h1></body></html>\n' >"$check/index.html"
  printf '.card {\n  color: red;\n}\n' >"$check/card.css"
  printf '$c: red;\n.card {\n  .title { color: $c; }\n}\n' >"$check/card.scss"
  printf '<template><p>{{ n }}</p></template>\n<script>\nexport default { data() { return { n: 1 } } }\n</script>\n' >"$check/Counter.vue"
  git -C "$check" init -q
  # First as a broken install would: the executable alone, no grammars beside it. Its files are
  # line windows and `doctor` says so; the complete install then re-chunks them by itself (the
  # missing libraries are part of the index's options fingerprint).
  lone="$(mktemp -d)"
  cp "$out/bin/code-intel" "$lone/"
  (cd "$check" && env -u CODE_INTEL_GRAMMARS "$lone/code-intel" index --json >/dev/null)
  (cd "$check" && env -u CODE_INTEL_GRAMMARS "$lone/code-intel" doctor --json --no-model-load >"$lone/doctor.json" || true)
  python3 - "$check/.code-intel/sync_state.json" "$lone/doctor.json" <<'PY'
import json, sys
files = json.load(open(sys.argv[1]))["files"]
windowed = [p for p, f in files.items() if "grammar did not load" in (f.get("fallback") or "")]
grammars = next(c for c in json.load(open(sys.argv[2]))["checks"] if c["name"] == "grammars")
if len(windowed) < 17 or grammars["status"] != "fail":
    sys.exit(f"dist: without bin/grammars expected line windows and a failing doctor check: {len(windowed)} windowed, doctor {grammars}")
print(f"dist: without bin/grammars: {len(windowed)} files windowed, doctor: {grammars['detail'][:80]}…", file=sys.stderr)
PY
  rm -rf "$lone"
  (cd "$check" && env -u CODE_INTEL_GRAMMARS "$out/bin/code-intel" index --json >/dev/null)
  (cd "$check" && env -u CODE_INTEL_GRAMMARS "$out/bin/code-intel" doctor --json --no-model-load >"$check/doctor.json" || true)
  python3 - "$check/.code-intel/sync_state.json" "$check/doctor.json" <<'PY'
import json, sys
files = json.load(open(sys.argv[1]))["files"]
bad = {p: f.get("fallback") or f.get("skipped") for p, f in files.items() if f.get("fallback") or f.get("skipped") or not f.get("chunks")}
if len(files) < 19 or bad:
    sys.exit(f"dist: grammar check failed ({len(files)} files indexed): {bad}")
grammars = next(c for c in json.load(open(sys.argv[2]))["checks"] if c["name"] == "grammars")
if grammars["status"] != "pass":
    sys.exit(f"dist: doctor's grammars check: {grammars}")
print(f"dist: grammar check: {len(files)} files of 17 grammars chunked by their grammars (re-chunked after the install was completed); doctor: {grammars['detail']}", file=sys.stderr)
PY
  rm -rf "$check"
fi

if [[ $pack == 1 ]]; then
  bash scripts/npm-pack.sh --bin-dir "$out/bin" --out "$out/npm"
fi
log "binaries in $out/bin, debug info in $out/debug"
