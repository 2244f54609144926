//! Repository roots and repository-relative paths that can never escape the root.
//!
//! Every path that reaches the gate, the session or an exploration tool goes through
//! [`RepoRoot::resolve`]: it follows symlinks of the part of the path that exists, normalises
//! `.` and `..`, and refuses anything whose real location is outside the root. The result, a
//! [`RepoPath`], is relative, `/`-separated and normalised, so two spellings of one file compare
//! equal.

use std::fmt;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Errors of path resolution.
#[derive(Debug, thiserror::Error)]
pub enum RepoPathError {
    /// The repository root does not exist or is not a directory.
    #[error("repository root {path} is not a readable directory: {source}")]
    BadRoot {
        /// The root as given.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The path's real location is outside the repository.
    #[error(
        "path {input} is outside the repository {root}; only files inside it can be explored or written"
    )]
    OutsideRoot {
        /// The path as given.
        input: String,
        /// The repository root.
        root: PathBuf,
    },
    /// The path is empty or not valid UTF-8 after resolution.
    #[error("path {input:?} is not a usable path")]
    Invalid {
        /// The path as given.
        input: String,
    },
}

/// An absolute, canonical repository root directory.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RepoRoot {
    path: PathBuf,
}

impl RepoRoot {
    /// Canonicalises `path` (resolving symlinks) into a root.
    ///
    /// # Errors
    /// [`RepoPathError::BadRoot`] if it does not exist or is not a directory.
    pub fn new(path: &Path) -> Result<Self, RepoPathError> {
        let canonical = path
            .canonicalize()
            .map_err(|source| RepoPathError::BadRoot {
                path: path.to_path_buf(),
                source,
            })?;
        if !canonical.is_dir() {
            return Err(RepoPathError::BadRoot {
                path: path.to_path_buf(),
                source: std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a directory"),
            });
        }
        Ok(Self { path: canonical })
    }

    /// The canonical absolute root.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `<root>/.code-intel`.
    pub fn state_dir(&self) -> PathBuf {
        self.state().path().to_path_buf()
    }

    /// The state directory with its named paths (`<root>/.code-intel`).
    pub fn state(&self) -> crate::state_dir::StateDir {
        crate::state_dir::StateDir::of(&self.path)
    }

    /// Absolute path of a repository path.
    pub fn absolute(&self, p: &RepoPath) -> PathBuf {
        if p.is_root() {
            self.path.clone()
        } else {
            self.path.join(&p.0)
        }
    }

    /// Resolves `input` (absolute, or relative to the root) to a [`RepoPath`].
    ///
    /// # Errors
    /// [`RepoPathError::OutsideRoot`] when the real location (after symlinks and `..`) is outside
    /// the root; [`RepoPathError::Invalid`] for an empty or non-UTF-8 path.
    pub fn resolve(&self, input: &str) -> Result<RepoPath, RepoPathError> {
        self.resolve_from(&self.path, input)
    }

    /// Resolves `input` relative to `base` (an absolute directory, e.g. a hook's `cwd`).
    ///
    /// # Errors
    /// As [`RepoRoot::resolve`].
    pub fn resolve_from(&self, base: &Path, input: &str) -> Result<RepoPath, RepoPathError> {
        if input.is_empty() || input.contains('\0') {
            return Err(RepoPathError::Invalid {
                input: input.into(),
            });
        }
        let joined = base.join(input);
        let real = real_location(&joined);
        let outside = || RepoPathError::OutsideRoot {
            input: input.into(),
            root: self.path.clone(),
        };
        let rel = real.strip_prefix(&self.path).map_err(|_| outside())?;
        let mut parts = Vec::new();
        for c in rel.components() {
            match c {
                Component::Normal(s) => {
                    parts.push(s.to_str().ok_or_else(|| RepoPathError::Invalid {
                        input: input.into(),
                    })?)
                }
                // real_location already removed these; anything else is not a plain relative path.
                _ => return Err(outside()),
            }
        }
        Ok(RepoPath(parts.join("/")))
    }
}

/// `abs` relative to `root`, `/`-separated (as index entries and tool answers name files),
/// taken lexically (no symlinks resolved); `None` when `abs` is not below `root` or is not
/// valid UTF-8.
pub fn relative_slash(root: &Path, abs: &Path) -> Option<String> {
    abs.strip_prefix(root)
        .ok()?
        .to_str()
        .map(|s| s.replace(std::path::MAIN_SEPARATOR, "/"))
}

/// The real location of an absolute path, component by component as the OS walks it: every
/// prefix that exists is canonicalised (following symlinks, so `link/..` is the link target's
/// parent; `/proc/<pid>/cwd` and `/proc/<pid>/root` are symlinks too), `..` pops, and components
/// that do not exist are appended as they are. Re-resolving after each step matters:
/// `missing/../link` must land on `link`'s target, not on `link`. A dangling symlink (whose
/// target does not exist yet) is followed too: a write through it creates its target, so
/// `src/a.py -> ../.code-intel/config.json` is `.code-intel/config.json` (at most 40 links, as
/// the kernel allows; beyond that the path is returned as far as it was resolved).
pub fn real_location(path: &Path) -> PathBuf {
    let mut pending: Vec<std::ffi::OsString> = Vec::new();
    let mut out = PathBuf::from("/");
    let mut hops = 0;
    // Components still to walk, last first (so `pop` takes the next one).
    let push_all = |pending: &mut Vec<std::ffi::OsString>, p: &Path| {
        let mut parts: Vec<std::ffi::OsString> = Vec::new();
        for c in p.components() {
            match c {
                Component::RootDir | Component::Prefix(_) => parts.push("/".into()),
                Component::CurDir => {}
                Component::ParentDir => parts.push("..".into()),
                Component::Normal(s) => parts.push(s.to_os_string()),
            }
        }
        pending.extend(parts.into_iter().rev());
    };
    push_all(&mut pending, path);
    while let Some(c) = pending.pop() {
        if c == "/" {
            out = PathBuf::from("/");
        } else if c == ".." {
            out.pop();
        } else {
            out.push(&c);
            if let Ok(canonical) = out.canonicalize() {
                out = canonical;
            } else if hops < 40
                && out
                    .symlink_metadata()
                    .is_ok_and(|m| m.file_type().is_symlink())
                && let Ok(target) = std::fs::read_link(&out)
            {
                hops += 1;
                out.pop();
                push_all(&mut pending, &target);
            }
        }
    }
    out
}

/// A normalised repository-relative path: no leading `/`, no `.` or `..`, `/`-separated; the
/// empty string is the root itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RepoPath(String);

impl RepoPath {
    /// Whether this is `.git` or a path inside it (git's own state, never source).
    pub fn is_git_internal(&self) -> bool {
        self.0 == ".git" || self.0.starts_with(".git/")
    }

    /// The root directory.
    pub fn root() -> Self {
        Self(String::new())
    }

    /// Parses an already-relative path lexically (no file-system access): `./a//b/` → `a/b`.
    ///
    /// # Errors
    /// [`RepoPathError::OutsideRoot`] for absolute paths or a `..` that climbs above the root.
    pub fn parse_relative(input: &str) -> Result<Self, RepoPathError> {
        let outside = || RepoPathError::OutsideRoot {
            input: input.into(),
            root: PathBuf::new(),
        };
        let mut parts: Vec<&str> = Vec::new();
        if input.starts_with('/') {
            return Err(outside());
        }
        for seg in input.split(['/', '\\']) {
            match seg {
                "" | "." => {}
                ".." => {
                    parts.pop().ok_or_else(outside)?;
                }
                s => parts.push(s),
            }
        }
        Ok(Self(parts.join("/")))
    }

    /// The path as a `/`-separated string (`""` for the root).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this is the root directory.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `self` equals `dir` or lies under it (component-wise: `src/a` is under `src`,
    /// `srcx` is not).
    pub fn is_within(&self, dir: &RepoPath) -> bool {
        dir.is_root()
            || self.0 == dir.0
            || (self.0.starts_with(&dir.0) && self.0.as_bytes().get(dir.0.len()) == Some(&b'/'))
    }

    /// The parent directory (`None` for the root).
    pub fn parent(&self) -> Option<RepoPath> {
        if self.is_root() {
            return None;
        }
        Some(match self.0.rfind('/') {
            Some(i) => RepoPath(self.0[..i].to_string()),
            None => RepoPath::root(),
        })
    }
}

impl fmt::Display for RepoPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_root() {
            f.write_str(".")
        } else {
            f.write_str(&self.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn repo() -> (tempfile::TempDir, RepoRoot) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("repo/src/sub")).unwrap();
        std::fs::write(dir.path().join("repo/src/a.py"), "x").unwrap();
        std::fs::create_dir_all(dir.path().join("outside")).unwrap();
        std::fs::write(dir.path().join("outside/secret"), "x").unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside"), dir.path().join("repo/link_out"))
            .unwrap();
        std::os::unix::fs::symlink(dir.path().join("repo/src"), dir.path().join("repo/link_in"))
            .unwrap();
        let root = RepoRoot::new(&dir.path().join("repo")).unwrap();
        (dir, root)
    }

    #[test]
    fn relative_slash_is_lexical_and_none_outside_the_root() {
        let root = Path::new("/r/repo");
        assert_eq!(
            relative_slash(root, Path::new("/r/repo/src/a.py")).as_deref(),
            Some("src/a.py")
        );
        assert_eq!(relative_slash(root, root).as_deref(), Some(""));
        // No symlink is followed: a link below the root stays below it.
        assert_eq!(
            relative_slash(root, Path::new("/r/repo/link_out/secret")).as_deref(),
            Some("link_out/secret")
        );
        assert_eq!(relative_slash(root, Path::new("/r/repository/a.py")), None);
        assert_eq!(relative_slash(root, Path::new("/r/other/a.py")), None);
        use std::os::unix::ffi::OsStrExt as _;
        let not_utf8 = std::ffi::OsStr::from_bytes(b"/r/repo/\xff.py");
        assert_eq!(relative_slash(root, Path::new(not_utf8)), None);
    }

    #[test]
    fn resolves_relative_absolute_and_dotted_paths() {
        let (_d, root) = repo();
        let abs = root.path().join("src/a.py");
        assert_eq!(root.resolve("src/a.py").unwrap().as_str(), "src/a.py");
        assert_eq!(
            root.resolve(abs.to_str().unwrap()).unwrap().as_str(),
            "src/a.py"
        );
        assert_eq!(
            root.resolve("./src/sub/../a.py").unwrap().as_str(),
            "src/a.py"
        );
        assert_eq!(
            root.resolve("src/new/file.rs").unwrap().as_str(),
            "src/new/file.rs"
        );
        assert_eq!(root.resolve(".").unwrap(), RepoPath::root());
        assert_eq!(root.resolve("link_in/a.py").unwrap().as_str(), "src/a.py");
    }

    #[test]
    fn refuses_escapes() {
        let (_d, root) = repo();
        for p in [
            "../outside/secret",
            "/etc/passwd",
            "link_out/secret",
            "link_out",
            "src/../../outside",
            "nope/../../x",
        ] {
            assert!(
                matches!(root.resolve(p), Err(RepoPathError::OutsideRoot { .. })),
                "{p}"
            );
        }
    }

    #[test]
    fn within_is_component_wise() {
        let p = |s: &str| RepoPath::parse_relative(s).unwrap();
        assert!(p("src/a.py").is_within(&p("src")));
        assert!(p("src").is_within(&p("src")));
        assert!(!p("srcx/a").is_within(&p("src")));
        assert!(p("anything").is_within(&RepoPath::root()));
        assert_eq!(p("a/b/c").parent(), Some(p("a/b")));
        assert_eq!(p("a").parent(), Some(RepoPath::root()));
    }

    proptest! {
        #[test]
        fn resolved_paths_never_escape(segs in proptest::collection::vec(prop_oneof![
            Just(".."), Just("."), Just("src"), Just("sub"), Just("link_out"), Just("link_in"), Just("x"), Just("")
        ], 0..8)) {
            let (_d, root) = repo();
            let input = segs.join("/");
            if let Ok(rp) = root.resolve(&input) {
                let abs = root.absolute(&rp);
                // The real location of what it names is inside the root.
                prop_assert!(real_location(&abs).starts_with(root.path()));
                prop_assert!(!rp.as_str().split('/').any(|s| s == ".." || s == "."));
            }
        }

        #[test]
        fn parse_relative_is_normalised(segs in proptest::collection::vec(prop_oneof![Just(".."), Just("."), Just("a"), Just("b"), Just("")], 0..8)) {
            if let Ok(rp) = RepoPath::parse_relative(&segs.join("/")) {
                prop_assert!(!rp.as_str().starts_with('/'));
                prop_assert!(!rp.as_str().split('/').any(|s| s == ".." || s == "."));
                prop_assert_eq!(RepoPath::parse_relative(rp.as_str()).unwrap(), rp.clone());
            }
        }
    }
}
