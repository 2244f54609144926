//! Whether the working tree moved since the last sync, answered in microseconds: inotify watches
//! on the directories the last sync walked, drained without blocking on every check.
//!
//! The MCP server asks before every index-backed answer ([`TreeWatch::take_moved`]); when
//! something moved it runs the incremental sync first (docs/DESIGN.md#freshness). Why inotify and
//! not a file-watcher thread (the `notify` crate): a thread reads events *after* the kernel
//! queued them, so a call that arrives right after a write could be answered before the thread
//! saw it. Here the check itself reads the queue: every write that completed before the check is
//! in it (inotify queues events synchronously with the write system call).
//!
//! What is watched: the directories of the sync's walk stamp ([`super::sync::SyncState::walk`],
//! every directory the walk entered), or, when the last walk left no stamp, the directories of
//! the indexed files and their ancestors. Each gets a non-recursive watch for entries created,
//! deleted, moved, written, or changed in attributes. A directory created later fires an event on
//! its parent; the sync it triggers walks it, and [`TreeWatch::watch_dirs`] adds it. Events on
//! `.code-intel/` (the index's own writes) and `.git/` are ignored: a `git checkout` shows up in
//! the files it rewrites.
//!
//! Limits (each makes [`TreeWatch::complete`] false, and the caller then checks with a
//! no-change sync, a `stat` walk, on every call instead): a watch the kernel refuses (the
//! per-user limit `fs.inotify.max_user_watches`), a queue overflow (until the next sync re-arms),
//! and platforms without inotify. Changes made through a path that is not a walked directory (a
//! bind mount, a file system without inotify support such as some network mounts) are not seen
//! until the next `start_session`, which always syncs.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use code_intel_session::repo_path::{RepoRoot, relative_slash};

/// Most changed paths a [`Moved`] names (the rest are counted in [`Moved::total`]).
pub const MAX_NAMED: usize = 200;

/// What moved since the last [`TreeWatch::take_moved`]: repository-relative paths (`/`-separated),
/// sorted, at most [`MAX_NAMED`], and whether the watch lost track (an overflow: anything may have
/// changed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Moved {
    /// Changed entries (files or directories), at most [`MAX_NAMED`].
    pub paths: Vec<String>,
    /// How many distinct paths changed, including those not named.
    pub total: usize,
    /// The kernel dropped events: treat every file as possibly changed.
    pub overflow: bool,
}

impl Moved {
    /// Whether nothing moved.
    pub fn is_empty(&self) -> bool {
        self.total == 0 && !self.overflow
    }

    /// Forgets what `done` holds (a sync brought it into the index): its paths, and the overflow
    /// mark when `done` had it.
    pub fn remove(&mut self, done: &Moved) {
        let before = self.paths.len();
        self.paths.retain(|p| !done.paths.contains(p));
        self.total = self.total.saturating_sub(before - self.paths.len());
        if done.overflow || done.total > done.paths.len() {
            // Not known by name: whatever was pending then is in the index now.
            self.total = self.paths.len();
        }
        if done.overflow {
            self.overflow = false;
        }
    }

    /// Adds `other`'s paths.
    pub fn merge(&mut self, other: Moved) {
        let capped = self.total > self.paths.len() || other.total > other.paths.len();
        let mut all: BTreeSet<String> = std::mem::take(&mut self.paths).into_iter().collect();
        all.extend(other.paths);
        // Exact when both lists are whole; an upper bound when either was cut.
        self.total = if capped {
            self.total + other.total
        } else {
            all.len()
        };
        self.paths = all.into_iter().take(MAX_NAMED).collect();
        self.overflow |= other.overflow;
    }
}

/// Why a watch could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// `inotify_init` failed (the per-user instance limit, or no inotify on this platform).
    #[error(
        "cannot watch the working tree ({source}); every index-backed answer checks the tree with a stat walk instead"
    )]
    Init {
        /// The system error.
        #[source]
        source: std::io::Error,
    },
}

/// The watches of one repository (see the module docs). `Send + Sync`; every method takes
/// `&self` and locks briefly.
pub struct TreeWatch {
    root: PathBuf,
    inner: Mutex<Inner>,
}

struct Inner {
    #[cfg(target_os = "linux")]
    inotify: inotify::Inotify,
    /// Watch descriptor → the directory, repository-relative (`""` for the root), and absolute.
    #[cfg(target_os = "linux")]
    dirs: HashMap<inotify::WatchDescriptor, (String, PathBuf)>,
    /// Absolute directories with a watch.
    watched: HashSet<PathBuf>,
    /// Changed paths not yet taken.
    changed: BTreeSet<String>,
    /// Events were dropped (queue overflow) since the last take.
    overflow: bool,
    /// A directory could not be watched: the watch is incomplete until the next `watch_dirs`
    /// that succeeds for all.
    refused: usize,
}

impl std::fmt::Debug for TreeWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        f.debug_struct("TreeWatch")
            .field("root", &self.root)
            .field("watched", &inner.watched.len())
            .field("refused", &inner.refused)
            .finish()
    }
}

impl TreeWatch {
    /// A watch of `root` with no directory watched yet.
    ///
    /// # Errors
    /// [`WatchError::Init`] when the kernel gives no inotify instance (or the platform has none).
    pub fn new(root: &RepoRoot) -> Result<Self, WatchError> {
        Ok(Self {
            root: root.path().to_path_buf(),
            inner: Mutex::new(Inner {
                #[cfg(target_os = "linux")]
                inotify: inotify::Inotify::init().map_err(|source| WatchError::Init { source })?,
                #[cfg(target_os = "linux")]
                dirs: HashMap::new(),
                watched: HashSet::new(),
                changed: BTreeSet::new(),
                overflow: false,
                refused: if cfg!(target_os = "linux") { 0 } else { 1 },
            }),
        })
    }

    /// Watches `dirs` (absolute, inside the root; others are ignored) in addition to those
    /// already watched, and clears the overflow mark. Returns how many directories are watched.
    /// A directory that no longer exists is skipped; one the kernel refuses (the watch limit)
    /// makes the watch incomplete ([`complete`](Self::complete) false).
    pub fn watch_dirs(&self, dirs: impl IntoIterator<Item = PathBuf>) -> usize {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.overflow = false;
        inner.refused = if cfg!(target_os = "linux") { 0 } else { 1 };
        #[cfg(target_os = "linux")]
        for dir in dirs {
            if inner.watched.contains(&dir) {
                continue;
            }
            let Some(rel) = relative_slash(&self.root, &dir) else {
                continue;
            };
            let mask = inotify::WatchMask::CREATE
                | inotify::WatchMask::DELETE
                | inotify::WatchMask::MODIFY
                | inotify::WatchMask::CLOSE_WRITE
                | inotify::WatchMask::MOVED_FROM
                | inotify::WatchMask::MOVED_TO
                | inotify::WatchMask::ATTRIB
                | inotify::WatchMask::DELETE_SELF
                | inotify::WatchMask::MOVE_SELF
                | inotify::WatchMask::ONLYDIR
                | inotify::WatchMask::DONT_FOLLOW;
            match inner.inotify.watches().add(&dir, mask) {
                Ok(wd) => {
                    inner.dirs.insert(wd, (rel, dir.clone()));
                    inner.watched.insert(dir);
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(_) => inner.refused += 1,
            }
        }
        #[cfg(not(target_os = "linux"))]
        drop(dirs);
        inner.watched.len()
    }

    /// How many directories the kernel refused to watch at the last
    /// [`watch_dirs`](Self::watch_dirs) (`fs.inotify.max_user_watches`); 1 on a platform
    /// without inotify.
    pub fn refused(&self) -> usize {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .refused
    }

    /// Whether every walked directory is watched and no event was lost: only then does an
    /// empty [`take_moved`](Self::take_moved) prove that nothing changed.
    pub fn complete(&self) -> bool {
        let inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.refused == 0 && !inner.overflow && !inner.watched.is_empty()
    }

    /// Reads the queued events without blocking and returns everything that moved since the
    /// last take (then forgets it). One `read` system call when nothing happened.
    pub fn take_moved(&self) -> Moved {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.drain();
        let total = inner.changed.len();
        let paths = std::mem::take(&mut inner.changed)
            .into_iter()
            .take(MAX_NAMED)
            .collect();
        Moved {
            paths,
            total,
            overflow: std::mem::take(&mut inner.overflow),
        }
    }

    /// Reads the queued events without blocking and tells whether anything moved, keeping it
    /// for the next [`take_moved`](Self::take_moved).
    pub fn peek_moved(&self) -> bool {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.drain();
        !inner.changed.is_empty() || inner.overflow
    }

    /// The root this watches.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl Inner {
    #[cfg(target_os = "linux")]
    fn drain(&mut self) {
        use inotify::EventMask;
        let mut buffer = [0u8; 16 * 1024];
        loop {
            let events = match self.inotify.read_events(&mut buffer) {
                Ok(events) => events,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => {
                    // Unreadable queue: treat the tree as changed (the next sync re-checks all).
                    self.overflow = true;
                    return;
                }
            };
            let mut any = false;
            let mut gone = Vec::new();
            for event in events {
                any = true;
                if event.mask.contains(EventMask::Q_OVERFLOW) {
                    self.overflow = true;
                    continue;
                }
                let Some((dir, _)) = self.dirs.get(&event.wd) else {
                    continue;
                };
                if event.mask.contains(EventMask::IGNORED) {
                    // The directory went away (its removal is reported on the parent too).
                    gone.push(event.wd.clone());
                    continue;
                }
                let path = match event.name.and_then(|n| n.to_str()) {
                    Some(name) if dir.is_empty() => name.to_string(),
                    Some(name) => format!("{dir}/{name}"),
                    None if event.name.is_some() => format!("{dir}/?"),
                    None => dir.clone(),
                };
                if is_own_state(&path) {
                    continue;
                }
                self.changed.insert(path);
            }
            for wd in gone {
                if let Some((_, abs)) = self.dirs.remove(&wd) {
                    self.watched.remove(&abs);
                }
            }
            if !any {
                return;
            }
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn drain(&mut self) {}
}

/// Paths whose changes are the index's own or git's bookkeeping, never the working tree.
fn is_own_state(rel: &str) -> bool {
    let first = rel.split('/').next().unwrap_or(rel);
    first == ".code-intel" || first == ".git"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watched_repo() -> (tempfile::TempDir, TreeWatch) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/deep")).unwrap();
        std::fs::create_dir_all(dir.path().join(".code-intel")).unwrap();
        std::fs::write(dir.path().join("src/a.py"), "def a():\n    pass\n").unwrap();
        let root = RepoRoot::new(dir.path()).unwrap();
        let watch = TreeWatch::new(&root).unwrap();
        let n = watch.watch_dirs([
            root.path().to_path_buf(),
            root.path().join("src"),
            root.path().join("src/deep"),
        ]);
        assert_eq!(n, 3);
        (dir, watch)
    }

    #[test]
    fn a_write_is_seen_by_the_next_check_and_taken_once() {
        let (dir, watch) = watched_repo();
        assert!(watch.complete());
        assert!(watch.take_moved().is_empty(), "nothing happened yet");
        std::fs::write(dir.path().join("src/a.py"), "def b():\n    pass\n").unwrap();
        // No sleep: the check reads the kernel's queue itself.
        let moved = watch.take_moved();
        assert_eq!(moved.paths, vec!["src/a.py".to_string()]);
        assert_eq!(moved.total, 1);
        assert!(watch.take_moved().is_empty(), "taken once");
    }

    #[test]
    fn creations_deletions_and_renames_are_seen_but_the_index_state_is_not() {
        let (dir, watch) = watched_repo();
        std::fs::write(dir.path().join("src/deep/new.py"), "x = 1\n").unwrap();
        std::fs::rename(dir.path().join("src/a.py"), dir.path().join("src/b.py")).unwrap();
        std::fs::write(dir.path().join(".code-intel/sync_state.json"), "{}").unwrap();
        std::fs::create_dir(dir.path().join("lib")).unwrap();
        let moved = watch.take_moved();
        assert_eq!(
            moved.paths,
            vec!["lib", "src/a.py", "src/b.py", "src/deep/new.py"],
            "{moved:?}"
        );
        std::fs::remove_file(dir.path().join("src/b.py")).unwrap();
        assert!(watch.peek_moved());
        assert!(watch.peek_moved(), "peeking keeps the change");
        assert_eq!(watch.take_moved().paths, vec!["src/b.py"]);
    }

    #[test]
    fn a_removed_directory_is_no_longer_watched_and_a_new_one_can_be() {
        let (dir, watch) = watched_repo();
        std::fs::remove_dir(dir.path().join("src/deep")).unwrap();
        let moved = watch.take_moved();
        assert!(moved.paths.contains(&"src/deep".to_string()), "{moved:?}");
        std::fs::create_dir(dir.path().join("src/deep")).unwrap();
        let root = dir.path().canonicalize().unwrap();
        watch.watch_dirs([root.join("src/deep")]);
        let _ = watch.take_moved();
        std::fs::write(dir.path().join("src/deep/x.py"), "y = 2\n").unwrap();
        assert_eq!(watch.take_moved().paths, vec!["src/deep/x.py"]);
    }

    #[test]
    fn merging_keeps_every_path_once() {
        let mut a = Moved {
            paths: vec!["a".into(), "b".into()],
            total: 2,
            overflow: false,
        };
        a.merge(Moved {
            paths: vec!["b".into(), "c".into()],
            total: 2,
            overflow: true,
        });
        assert_eq!(a.paths, vec!["a", "b", "c"]);
        assert_eq!(a.total, 3);
        assert!(a.overflow);
        assert!(!a.is_empty());
    }
}
