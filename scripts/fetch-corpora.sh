#!/usr/bin/env bash
# Downloads the real-code corpora of the index tests (core/tests/real_code.rs) once into a cache
# directory and prints that directory on stdout.
#
#   flask/    Flask sdist from PyPI (Python)                   pip download --no-binary :all:
#   laravel/  Debian's php-laravel-framework (PHP, Blade)      apt-get download + dpkg-deb -x
#   express/  Express from npm (JavaScript)                    npm pack
#
# Usage: scripts/fetch-corpora.sh [DEST]      # DEST defaults to <workspace>/.e2e-cache/corpora
# Idempotent: a corpus whose `.done` marker exists is not fetched again; delete DEST/<name> to
# refetch. Logs go to stderr; stdout is only the cache directory.
#
# Pins: the versions below are the ones the assertions of real_code.rs were written against.
# Debian keeps one version per release, so when the pinned .deb is not in the apt lists (another
# distribution release) the script falls back to the candidate version and says so.
set -euo pipefail

readonly FLASK_VERSION="3.1.1"
readonly EXPRESS_VERSION="4.21.2"
readonly LARAVEL_DEB_VERSION="8.83.26+dfsg-2"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-$repo_root/.e2e-cache/corpora}"
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"

log() { printf 'fetch-corpora: %s\n' "$*" >&2; }
need() { command -v "$1" >/dev/null || { log "$1 not found on PATH (needed for the $2 corpus)"; exit 1; }; }

# Runs "$2..." in a fresh work dir and moves the result to $dest/$1 with a .done marker.
# The fetch function receives the work dir as $1 and must leave the corpus in $1/out.
fetch() {
    local name="$1" fn="$2"
    if [[ -f "$dest/$name/.done" ]]; then
        log "$name already present"
        return 0
    fi
    local work
    work="$(mktemp -d "$dest/.tmp-$name.XXXXXX")"
    # shellcheck disable=SC2064
    trap "rm -rf '$work'" RETURN
    "$fn" "$work"
    rm -rf "${dest:?}/$name"
    mv "$work/out" "$dest/$name"
    touch "$dest/$name/.done"
    log "$name ready in $dest/$name"
}

fetch_flask() {
    local work="$1"
    need pip flask
    log "downloading flask==$FLASK_VERSION (sdist)"
    pip download --quiet --no-deps --no-binary :all: --dest "$work/dl" "flask==$FLASK_VERSION" >&2
    mkdir -p "$work/out"
    tar -xzf "$work"/dl/[Ff]lask-*.tar.gz -C "$work/out" --strip-components=1
}

fetch_express() {
    local work="$1"
    need npm express
    log "downloading express@$EXPRESS_VERSION"
    mkdir -p "$work/dl" "$work/out"
    (cd "$work/dl" && npm pack --silent "express@$EXPRESS_VERSION" >/dev/null)
    tar -xzf "$work"/dl/express-*.tgz -C "$work/out" --strip-components=1
}

fetch_laravel() {
    local work="$1"
    need apt-get laravel
    need dpkg-deb laravel
    local policy
    policy="$(apt-cache policy php-laravel-framework 2>/dev/null || true)"
    if [[ "$policy" != *"Candidate: "[0-9]* ]]; then
        log "php-laravel-framework is not in the apt lists; running apt-get update"
        apt-get update -qq >&2 || log "apt-get update failed (not root?); trying anyway"
    fi
    mkdir -p "$work/dl" "$work/out"
    # Debian splits the framework by component: php-laravel-framework holds Illuminate/Foundation
    # and depends on php-illuminate-* (same source package, same version) for the rest.
    local version="$LARAVEL_DEB_VERSION"
    if ! apt-cache show "php-laravel-framework=$version" >/dev/null 2>&1; then
        version="$(apt-cache policy php-laravel-framework | sed -n 's/^ *Candidate: //p')"
        log "php-laravel-framework=$LARAVEL_DEB_VERSION is unavailable; using the candidate $version"
    fi
    local components
    components="$(apt-cache show "php-laravel-framework=$version" | sed -n 's/^Depends: //p' \
        | tr ',' '\n' | sed -n 's/^ *\(php-illuminate-[a-z0-9-]*\) .*/\1/p' | sort -u)"
    local pkgs=("php-laravel-framework=$version")
    local c
    for c in $components; do pkgs+=("$c=$version"); done
    log "downloading ${#pkgs[@]} packages of laravel-framework $version"
    (cd "$work/dl" && apt-get download -qq "${pkgs[@]}" 2>&1 | grep -v 'unsandboxed as root' >&2 || true)
    local deb n=0
    for deb in "$work"/dl/*.deb; do
        dpkg-deb -x "$deb" "$work/out"
        n=$((n + 1))
    done
    [[ $n -ge 2 ]] || { log "apt-get download fetched $n packages; expected ${#pkgs[@]}"; exit 1; }
}

fetch flask fetch_flask
fetch express fetch_express
fetch laravel fetch_laravel
printf '%s\n' "$dest"
