#!/usr/bin/env bash
# Packs the npm distribution (esbuild/biome style) from built binaries:
#   @code-intel/cli              npm/cli: the `code-intel` command (a Node launcher, no binaries)
#   @code-intel/cli-<platform>   the four binaries of one platform, in bin/ (and the dist build's
#                                grammar libraries in bin/grammars/), with os/cpu/libc set
#                                so npm installs only the one that fits (npm/platforms.json)
#
# Usage: scripts/npm-pack.sh --bin-dir DIR [--platform KEY] [--out DIR]
#   --bin-dir   the binaries: code-intel, code-intel-pre-tool-use, code-intel-post-tool-use,
#               code-intel-sandbox (scripts/dist.sh passes its stripped dist build; the e2e test
#               may pass target/debug)
#   --platform  npm/platforms.json key (default: this machine's, e.g. linux-x64-gnu)
#   --out       where the two .tgz files go (default target/npm)
# Prints the two tarball paths on stdout (the CLI package first). Needs node and npm.
# The version is the workspace's (Cargo.toml), written into both package.json files.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin_dir="" platform="" out="$repo_root/target/npm"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin-dir) bin_dir="${2:?--bin-dir needs a directory}"; shift ;;
    --platform) platform="${2:?--platform needs a key of npm/platforms.json}"; shift ;;
    --out) out="${2:?--out needs a directory}"; shift ;;
    *) echo "npm-pack: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
[[ -n "$bin_dir" ]] || { echo "npm-pack: --bin-dir is required" >&2; exit 2; }
log() { printf 'npm-pack: %s\n' "$*" >&2; }

version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$repo_root/Cargo.toml" | head -1)"
[[ -n "$version" ]] || { log "no workspace version in Cargo.toml"; exit 1; }
if [[ -z "$platform" ]]; then
  platform="$(node -e '
    const { platform, arch } = process
    const glibc = platform === "linux" && process.report.getReport().header.glibcVersionRuntime
    process.stdout.write(platform === "linux" ? `linux-${arch}-${glibc ? "gnu" : "musl"}`
      : platform === "win32" ? `${platform}-${arch}-msvc` : `${platform}-${arch}`)')"
fi

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# The platform package: package.json from npm/platforms.json, the binaries in bin/.
pkg_dir="$stage/cli-$platform"
mkdir -p "$pkg_dir/bin"
node - "$repo_root/npm/platforms.json" "$platform" "$version" "$pkg_dir/package.json" <<'JS'
const [file, key, version, dest] = process.argv.slice(2)
const p = require(file).platforms[key]
if (!p) { console.error(`npm-pack: no platform ${key} in ${file}`); process.exit(2) }
const pkg = {
  name: `@code-intel/cli-${key}`,
  version,
  description: `code-intel's binaries for ${key} (${p.rust_target}); installed by @code-intel/cli`,
  license: 'MIT',
  repository: 'https://example.invalid/code-intel',
  os: [p.os],
  cpu: [p.cpu],
  ...(p.libc ? { libc: [p.libc] } : {}),
  files: ['bin/'],
  preferUnplugged: true,
}
require('fs').writeFileSync(dest, JSON.stringify(pkg, null, 2) + '\n')
JS
exe="$(node -e 'process.stdout.write(require(process.argv[1]).platforms[process.argv[2]].exe)' \
  "$repo_root/npm/platforms.json" "$platform")"
for bin in code-intel code-intel-pre-tool-use code-intel-post-tool-use code-intel-sandbox; do
  src="$bin_dir/$bin$exe"
  [[ -f "$src" ]] || { log "missing $src"; exit 1; }
  install -m 0755 "$src" "$pkg_dir/bin/$bin$exe"
done
# The dist build's grammars (shared libraries code-intel opens from bin/grammars on first use);
# a build with the grammars linked in (the e2e test's debug binaries) has none.
if [[ -d "$bin_dir/grammars" ]]; then
  mkdir -p "$pkg_dir/bin/grammars"
  install -m 0644 "$bin_dir"/grammars/* "$pkg_dir/bin/grammars/"
fi
printf '# @code-intel/cli-%s\n\nThe code-intel binaries for %s. Install `@code-intel/cli`, which depends on this package.\n' \
  "$platform" "$platform" >"$pkg_dir/README.md"

# The launcher package, every platform package pinned to this version.
cli_dir="$stage/cli"
mkdir -p "$cli_dir/bin"
cp "$repo_root/npm/cli/bin/code-intel.js" "$cli_dir/bin/"
cp "$repo_root/npm/platforms.json" "$cli_dir/"
cp "$repo_root/npm/cli/README.md" "$cli_dir/"
node - "$repo_root/npm/cli/package.json" "$version" "$cli_dir/package.json" <<'JS'
const [file, version, dest] = process.argv.slice(2)
const pkg = require(file)
pkg.version = version
for (const dep of Object.keys(pkg.optionalDependencies)) pkg.optionalDependencies[dep] = version
require('fs').writeFileSync(dest, JSON.stringify(pkg, null, 2) + '\n')
JS

for dir in "$cli_dir" "$pkg_dir"; do
  (cd "$dir" && npm pack --silent --pack-destination "$out" >/dev/null)
done
log "packed $platform $version into $out"
printf '%s\n' "$out/code-intel-cli-$version.tgz" "$out/code-intel-cli-$platform-$version.tgz"
