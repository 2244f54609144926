#!/usr/bin/env bash
# Installs the pinned Claude Code CLI into a project-local npm prefix for the end-to-end tests
# (crate `tests/` = code-intel-e2e) and prints the path of the `claude` binary on stdout.
#
# Pinned to 2.1.328 because that is the version whose private wire format and hook behaviour are
# recorded in shared/docs/CLAUDE_CODE.md; the e2e fake Messages API depends on it.
#
# Usage: scripts/install-claude-code.sh            # idempotent: skips when the pinned version is present
#        CODE_INTEL_E2E_CACHE=/some/dir scripts/install-claude-code.sh
# Then:  cargo build --workspace && cargo test -p code-intel-e2e
#
# Needs Node >= 20 and npm. The package is ~370 MB (a native binary in
# @anthropic-ai/claude-code-linux-x64). Its `engines: node>=22` warning is harmless. Do not pass
# --ignore-scripts: the postinstall links the native binary into bin/claude.exe.
set -euo pipefail

readonly VERSION="2.1.328"
readonly PACKAGE="@anthropic-ai/claude-code"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache_dir="${CODE_INTEL_E2E_CACHE:-$repo_root/.e2e-cache}"
prefix="$cache_dir/claude-code"
pkg_json="$prefix/node_modules/$PACKAGE/package.json"

log() { printf 'install-claude-code: %s\n' "$*" >&2; }

# Prints the claude binary path if the pinned version is installed and runs; else returns 1.
installed_binary() {
    [[ -f "$pkg_json" ]] || return 1
    local have
    have="$(node -e 'process.stdout.write(require(process.argv[1]).version)' "$pkg_json" 2>/dev/null)" || return 1
    [[ "$have" == "$VERSION" ]] || { log "found $PACKAGE $have, want $VERSION"; return 1; }
    local candidate
    for candidate in \
        "$prefix/node_modules/.bin/claude" \
        "$prefix/node_modules/$PACKAGE/bin/claude.exe" \
        "$prefix/node_modules/$PACKAGE-linux-x64/claude"; do
        if [[ -x "$candidate" ]] && "$candidate" --version >/dev/null 2>&1; then
            printf '%s\n' "$candidate"
            return 0
        fi
    done
    log "$PACKAGE $VERSION is present but no runnable claude binary was found"
    return 1
}

if bin="$(installed_binary)"; then
    log "$PACKAGE@$VERSION already installed"
    printf '%s\n' "$bin"
    exit 0
fi

command -v npm >/dev/null || { log "npm not found on PATH (Node >= 20 with npm is required)"; exit 1; }

mkdir -p "$prefix"
# A package.json of its own keeps npm from walking up into another project.
if [[ ! -f "$prefix/package.json" ]]; then
    printf '{\n  "name": "code-intel-e2e-claude-code",\n  "private": true\n}\n' >"$prefix/package.json"
fi

log "installing $PACKAGE@$VERSION into $prefix (about 370 MB)"
npm install --prefix "$prefix" --save-exact --no-audit --no-fund --loglevel=error \
    "$PACKAGE@$VERSION" >&2

if bin="$(installed_binary)"; then
    log "installed: $("$bin" --version 2>/dev/null || true)"
    printf '%s\n' "$bin"
else
    log "install finished but the claude binary does not run; see the npm output above"
    exit 1
fi
