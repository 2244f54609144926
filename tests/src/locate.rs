//! Finding what an end-to-end case runs: the workspace's built binaries and the pinned Claude Code.
//!
//! Tests never build binaries themselves: the README's test command runs `cargo build --workspace`
//! first, and a missing binary fails the test with a message saying so.

use std::path::{Path, PathBuf};

/// Environment variable naming the `claude` binary to use instead of the project-local install.
pub const CLAUDE_ENV: &str = "CODE_INTEL_CLAUDE";

/// Environment variable that, set to `1`, turns a missing Claude Code into a loud skip.
pub const SKIP_ENV: &str = "CODE_INTEL_SKIP_CLAUDE_E2E";

/// The Claude Code version the harness and `scripts/install-claude-code.sh` are pinned to: the
/// version whose wire format and hook behaviour shared/docs/CLAUDE_CODE.md records.
pub const CLAUDE_VERSION: &str = "2.1.328";

/// Where a required program could not be found.
#[derive(Debug, thiserror::Error)]
pub enum LocateError {
    /// No usable Claude Code.
    #[error(
        "claude code not found at {tried}: run scripts/install-claude-code.sh \
         (or set {CLAUDE_ENV}=<path to claude>, or {SKIP_ENV}=1 to skip these tests)"
    )]
    ClaudeMissing {
        /// The path that was checked.
        tried: PathBuf,
    },
    /// A workspace binary has not been built.
    #[error(
        "binary `{name}` not found in {dir}: build the workspace first \
         (`cargo build --workspace`, then run the tests)"
    )]
    BinaryMissing {
        /// The binary's file name.
        name: String,
        /// The directory searched.
        dir: PathBuf,
    },
}

/// The workspace root (the parent of this crate's directory), fixed at compile time.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), Path::to_owned)
}

/// The directory holding the workspace's built binaries for the profile the tests were built with.
///
/// Order: the test executable's own profile directory (`<target>/<profile>/deps/<test>` →
/// `<target>/<profile>`, which also works under nextest), else `$CARGO_TARGET_DIR/debug` (relative
/// values are taken from the workspace root), else `<workspace>/target/debug`.
pub fn bin_dir() -> PathBuf {
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_owned))
        .filter(|deps| deps.file_name().is_some_and(|n| n == "deps"))
        .and_then(|deps| deps.parent().map(Path::to_owned))
    {
        return dir;
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map_or_else(
            || workspace_root().join("target"),
            |dir| {
                if dir.is_absolute() {
                    dir
                } else {
                    workspace_root().join(dir)
                }
            },
        );
    target.join("debug")
}

/// The path of workspace binary `name` in [`bin_dir`].
///
/// # Errors
/// [`LocateError::BinaryMissing`] if it is not there.
pub fn workspace_binary(name: &str) -> Result<PathBuf, LocateError> {
    let dir = bin_dir();
    let path = dir.join(name);
    if path.is_file() {
        Ok(path)
    } else {
        Err(LocateError::BinaryMissing {
            name: name.to_owned(),
            dir,
        })
    }
}

/// Checks that every binary in `names` is built.
///
/// # Errors
/// [`LocateError::BinaryMissing`] for the first missing one.
pub fn require_binaries(names: &[&str]) -> Result<(), LocateError> {
    names
        .iter()
        .try_for_each(|name| workspace_binary(name).map(drop))
}

/// Where `scripts/install-claude-code.sh` puts the `claude` launcher.
pub fn installed_claude_path() -> PathBuf {
    workspace_root().join(".e2e-cache/claude-code/node_modules/.bin/claude")
}

/// The `claude` binary to run: `$CODE_INTEL_CLAUDE`, else the project-local install.
///
/// Returns `Ok(None)` (after printing a loud skip line on stderr) when it is missing and
/// `CODE_INTEL_SKIP_CLAUDE_E2E=1`.
///
/// # Errors
/// [`LocateError::ClaudeMissing`] when it is missing and skipping was not asked for: a test must
/// fail, not pass silently, when the harness cannot run.
pub fn locate_claude() -> Result<Option<PathBuf>, LocateError> {
    let path = std::env::var_os(CLAUDE_ENV).map_or_else(installed_claude_path, PathBuf::from);
    if path.is_file() {
        return Ok(Some(path));
    }
    if std::env::var_os(SKIP_ENV).is_some_and(|v| v == "1") {
        #[allow(
            clippy::print_stderr,
            reason = "the skip must be visible in test output"
        )]
        {
            eprintln!(
                "\n!!!!! SKIPPED: real Claude Code end-to-end test ({SKIP_ENV}=1; no claude at {}) !!!!!\n",
                path.display()
            );
        }
        return Ok(None);
    }
    Err(LocateError::ClaudeMissing { tried: path })
}
