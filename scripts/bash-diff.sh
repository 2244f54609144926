#!/usr/bin/env bash
# Differential check of the Bash analyser against an earlier commit: builds the `bash/` crate of
# REV under another name next to the working tree's and compares `analyze` on generated command
# lines (each program of PROGRAMS with random sequences of option and operand words, bare, under
# `sudo`, in a pipeline with a redirection, after `cd`). Prints the first differences and the
# count; exits 1 when any differ. Used to show that turning a rule written as code into a spec
# of the registry (bash/src/registry.rs) decides exactly as before.
#
# Usage: scripts/bash-diff.sh REV [PROGRAM...]     (default programs: the registry's)
#        scripts/bash-diff.sh REV --corpus FILE     (FILE: command lines separated by NUL;
#        scripts/bash-corpus.py writes the lists' and the unit tests' commands, with variants)
set -euo pipefail
rev="${1:?usage: scripts/bash-diff.sh REV [PROGRAM...]}"
shift
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/old" "$work/dump/src"
git -C "$repo" archive "$rev" bash/src | tar -x -C "$work/old" --strip-components=1
cat > "$work/old/Cargo.toml" <<TOML
[package]
name = "code-intel-bash-old"
version = "0.1.0"
edition = "2024"
[lib]
name = "old_bash"
path = "src/lib.rs"
[lints.rust]
unexpected_cfgs = "allow"
[workspace]
TOML
cat > "$work/dump/Cargo.toml" <<TOML
[package]
name = "bash-diff"
version = "0.1.0"
edition = "2024"
[dependencies]
code-intel-bash-old = { path = "../old" }
code-intel-bash = { path = "$repo/bash" }
[workspace]
TOML
cp "$repo/scripts/bash-diff/main.rs" "$work/dump/src/main.rs"
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target/bash-diff}" \
    cargo run --release -q --manifest-path "$work/dump/Cargo.toml" -- "$@"
