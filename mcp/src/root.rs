//! Which repository the binary works on: `--repo`, then the environment, then the current directory.
//!
//! This is the only place that reads `CODE_INTEL_PROJECT`, `CLAUDE_PROJECT_DIR` and the current
//! directory; core receives the resulting [`RepoRoot`] and never looks at either.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use code_intel_session::repo_path::RepoRoot;

/// Environment variable naming the project root (takes precedence over `CLAUDE_PROJECT_DIR`).
pub const PROJECT_ENV: &str = "CODE_INTEL_PROJECT";
/// Environment variable Claude Code sets for the MCP server and the hooks (CLAUDE_CODE.md §2.6, §3).
pub const CLAUDE_PROJECT_ENV: &str = "CLAUDE_PROJECT_DIR";

/// Resolves the repository root from the process context.
///
/// Order: `explicit` (`--repo`), `$CODE_INTEL_PROJECT`, `$CLAUDE_PROJECT_DIR`, else the nearest
/// ancestor of the current directory that contains `.code-intel/` or `.git/` (the current directory
/// itself when none does). Empty environment values count as unset.
///
/// # Errors
/// When the current directory cannot be read, or the chosen directory is not a readable directory.
pub fn project_root(explicit: Option<&Path>) -> anyhow::Result<RepoRoot> {
    let cwd =
        std::env::current_dir().context("cannot read the current directory; pass --repo DIR")?;
    let dir = choose_root(explicit, |k| std::env::var_os(k), &cwd);
    RepoRoot::new(&dir).with_context(|| {
        format!(
            "cannot use {} as the repository root; pass --repo DIR or set {PROJECT_ENV}",
            dir.display()
        )
    })
}

/// The pure part of [`project_root`]: `env` looks variables up, `cwd` is the current directory.
fn choose_root(
    explicit: Option<&Path>,
    env: impl Fn(&str) -> Option<OsString>,
    cwd: &Path,
) -> PathBuf {
    if let Some(dir) = explicit {
        return cwd.join(dir);
    }
    for key in [PROJECT_ENV, CLAUDE_PROJECT_ENV] {
        if let Some(v) = env(key).filter(|v| !v.is_empty()) {
            return cwd.join(v);
        }
    }
    cwd.ancestors()
        .find(|d| {
            d.join(code_intel_session::state_dir::STATE_DIR).is_dir() || d.join(".git").exists()
        })
        .unwrap_or(cwd)
        .to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_then_env_then_walk_up() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        let deep = repo.join("src/deep");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        let none = |_: &str| None;
        let env = |k: &str| (k == CLAUDE_PROJECT_ENV).then(|| OsString::from("/from/claude"));
        let both = |k: &str| {
            Some(OsString::from(if k == PROJECT_ENV {
                "/from/ci"
            } else {
                "/from/claude"
            }))
        };
        let empty = |k: &str| (k == PROJECT_ENV).then(OsString::new);

        assert_eq!(
            choose_root(Some(Path::new("/x")), both, &deep),
            PathBuf::from("/x")
        );
        assert_eq!(
            choose_root(Some(Path::new("rel")), none, &deep),
            deep.join("rel")
        );
        assert_eq!(choose_root(None, both, &deep), PathBuf::from("/from/ci"));
        assert_eq!(choose_root(None, env, &deep), PathBuf::from("/from/claude"));
        assert_eq!(choose_root(None, none, &deep), repo);
        assert_eq!(
            choose_root(None, empty, &deep),
            repo,
            "an empty variable counts as unset"
        );

        // A .code-intel directory nearer than .git wins.
        std::fs::create_dir_all(repo.join("src/.code-intel")).unwrap();
        assert_eq!(choose_root(None, none, &deep), repo.join("src"));
    }
}
