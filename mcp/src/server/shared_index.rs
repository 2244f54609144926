//! The server's one [`CodeIndex`]: opened once (in the background at startup, or on first use)
//! and shared by every tool call, plus the single background sync that `start_session` and
//! index-backed tools start and wait for.
//!
//! Freshness (docs/DESIGN.md#freshness): `start_session` always syncs (at most
//! `sync_timeout_seconds`); every other index-backed answer ([`SharedIndex::fresh_for_tools`])
//! first asks the [`TreeWatch`] whether the working tree moved — microseconds when it did not —
//! and if it did, syncs incrementally for at most `freshness_budget_ms`, then answers from the
//! last index naming the files that may be stale ([`Stale`]). Without a complete watch (inotify
//! refused, a queue overflow) every such answer runs the sync's `stat` check instead.
//!
//! `CodeIndex` is `Send + Sync` and both `search` and `sync` take `&self`, so tools keep
//! searching the last commit while a sync runs.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use code_intel_core::index::watch::{Moved, TreeWatch};
use code_intel_core::index::{CodeIndex, IndexError, SyncReport};
use code_intel_session::config::Config;
use code_intel_session::repo_path::RepoRoot;
use serde::Serialize;
use tokio::sync::{OnceCell, watch};

/// Outcome of the start-of-session sync, reported as `sync_status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyncStatus {
    /// The sync found the index up to date with the working tree.
    Fresh,
    /// A sync ran, changed the index, and finished within the timeout.
    Synced,
    /// A sync is still running in the background (it outlived `sync_timeout_seconds`).
    Running,
    /// `sync_on_start` is false in `.code-intel/config.json`.
    Disabled,
    /// Opening or syncing failed; the message says why and how to fix it.
    Failed(String),
}

impl std::fmt::Display for SyncStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SyncStatus::Fresh => f.write_str("fresh"),
            SyncStatus::Synced => f.write_str("synced"),
            SyncStatus::Running => f.write_str("running"),
            SyncStatus::Disabled => f.write_str("disabled"),
            SyncStatus::Failed(msg) => write!(f, "failed: {msg}"),
        }
    }
}

impl Serialize for SyncStatus {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Result of one background sync: the report, or the error (shared by every waiter).
type SyncOutcome = Result<SyncReport, IndexUnavailable>;

/// Why the shared index could not be opened or synced. Cloneable, so one failed sync reaches
/// every caller waiting on it; its message names the fix where the cause has one.
#[derive(Debug, Clone, thiserror::Error)]
pub enum IndexUnavailable {
    /// Opening or syncing the index failed.
    #[error(transparent)]
    Index(#[from] Arc<IndexError>),
    /// The blocking task doing `what` panicked or was cancelled.
    #[error("{what} panicked: {message}")]
    Panicked {
        /// What was being done (`opening the index`, `needs_sync`, `the sync task`).
        what: &'static str,
        /// The join error's message.
        message: String,
    },
}

impl From<IndexError> for IndexUnavailable {
    fn from(e: IndexError) -> Self {
        IndexUnavailable::Index(Arc::new(e))
    }
}

/// The shared index and its background sync.
pub struct SharedIndex {
    root: RepoRoot,
    config: Arc<Config>,
    /// Set once the index opened; a failed open is retried by the next caller.
    index: OnceCell<Arc<CodeIndex>>,
    /// Whether the index holds a completed sync (on disk when opened, or by this process). A
    /// never-synced index is empty, so tools must not trust it.
    synced: Arc<AtomicBool>,
    /// The latest sync: `None` in the channel while it runs.
    sync: Mutex<Option<watch::Receiver<Option<SyncOutcome>>>>,
    /// The tree watch, set up by the first sync this server runs.
    tree: Arc<Mutex<Tree>>,
    /// What moved and is not yet in the index: taken from the watch when a sync starts, cleared
    /// when one succeeds. What a tool names as `stale_files` when the sync outlives its budget.
    pending: Arc<Mutex<Moved>>,
}

/// Set (to anything) to run without the tree watch: every index-backed answer then runs the
/// sync's `stat` check (the comparison of docs/BENCHMARKS.md, "Freshness").
pub const NO_WATCH_ENV: &str = "CODE_INTEL_NO_TREE_WATCH";

/// The state of the tree watch.
enum Tree {
    /// No sync has run in this server yet.
    NotYet,
    /// Watching (complete or not: see [`TreeWatch::complete`]).
    Watching(Arc<TreeWatch>),
    /// inotify is not available: every check is a sync.
    Unavailable,
}

/// The index a tool answers from, and what it may not know yet.
pub struct Fresh {
    /// The index (synced at least once), or `None`: the tools then read files from disk.
    pub index: Option<Arc<CodeIndex>>,
    /// Set when the sync that would bring the index up to date did not finish in the budget,
    /// or failed: the answer is from the last index.
    pub stale: Option<Stale>,
}

/// Files that may be stale in an answer (added to the tool's result as `stale_files`).
#[derive(Debug, Clone, Serialize)]
pub struct Stale {
    /// Repository-relative paths changed since the last sync (at most 200; empty when the
    /// changes are not known by name: no watch, or events lost).
    pub files: Vec<String>,
    /// How many paths changed (including those not named).
    pub total: usize,
    /// Why the answer is from the last index, and what to do.
    pub reason: String,
}

impl SharedIndex {
    /// A handle for `root`; nothing is opened yet.
    pub fn new(root: RepoRoot, config: Arc<Config>) -> Self {
        Self {
            root,
            config,
            index: OnceCell::new(),
            synced: Arc::new(AtomicBool::new(false)),
            sync: Mutex::new(None),
            tree: Arc::new(Mutex::new(if std::env::var_os(NO_WATCH_ENV).is_some() {
                Tree::Unavailable
            } else {
                Tree::NotYet
            })),
            pending: Arc::new(Mutex::new(Moved::default())),
        }
    }

    /// The open index, opening it on a blocking thread on first use.
    ///
    /// # Errors
    /// The open error (its message names the fix, e.g. deleting a corrupt index), or the open's
    /// task panicking.
    pub async fn get(&self) -> Result<Arc<CodeIndex>, IndexUnavailable> {
        self.index
            .get_or_try_init(|| async {
                let (root, config, synced) = (
                    self.root.clone(),
                    Arc::clone(&self.config),
                    Arc::clone(&self.synced),
                );
                let opened = tokio::task::spawn_blocking(move || {
                    let index = CodeIndex::open(&root, &config)?;
                    if let Some(why) = index.repaired() {
                        tracing::warn!("{why}");
                    }
                    if index.stats().last_sync.is_some() {
                        synced.store(true, Ordering::Release);
                    }
                    Ok::<_, code_intel_core::index::IndexError>(index)
                })
                .await
                .map_err(|e| IndexUnavailable::Panicked {
                    what: "opening the index",
                    message: e.to_string(),
                })?;
                Ok::<_, IndexUnavailable>(Arc::new(opened?))
            })
            .await
            .cloned()
    }

    /// The index for an index-backed tool, brought up to date with the working tree first (see
    /// the module docs): `Fresh::index` is `None` when the index never synced (the tools then
    /// read files from disk, which is slower but never misses a file); `Fresh::stale` names what
    /// the answer may not reflect when the sync did not finish in `freshness_budget_ms`.
    pub async fn fresh_for_tools(&self) -> Fresh {
        let Some(index) = self.for_tools_unchecked().await else {
            return Fresh {
                index: None,
                stale: None,
            };
        };
        let rx = match self.running() {
            Some(rx) => rx,
            None => {
                if !self.tree_moved() {
                    return Fresh {
                        index: Some(index),
                        stale: None,
                    };
                }
                self.start_sync(&index)
            }
        };
        let wait = Duration::from_millis(self.config.freshness_budget_ms);
        let stale = match wait_for(rx, wait).await {
            SyncStatus::Fresh | SyncStatus::Synced => None,
            SyncStatus::Running => Some(self.stale(format!(
                "the index is syncing changes of the working tree (longer than freshness_budget_ms = {} ms): this answer is from the last sync; call again in a few seconds",
                self.config.freshness_budget_ms
            ))),
            SyncStatus::Failed(why) => Some(self.stale(format!(
                "the index could not be synced ({why}): this answer is from the last sync; run `code-intel index` to see why"
            ))),
            SyncStatus::Disabled => None,
        };
        Fresh {
            index: Some(index),
            stale,
        }
    }

    /// The index as [`fresh_for_tools`](Self::fresh_for_tools) gives it, without the staleness
    /// report (for tools whose answer does not list code: relevance backgrounds, the map).
    pub async fn for_tools(&self) -> Option<Arc<CodeIndex>> {
        self.fresh_for_tools().await.index
    }

    /// Whether the working tree may have moved since the last sync: the watch's events (taken
    /// into `pending`), or always when there is no complete watch yet.
    fn tree_moved(&self) -> bool {
        let tree = self.tree.lock().unwrap_or_else(PoisonError::into_inner);
        match &*tree {
            Tree::Watching(w) if w.complete() => {
                let moved = w.take_moved();
                if moved.is_empty() {
                    return false;
                }
                self.pending
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .merge(moved);
                true
            }
            Tree::Watching(w) => {
                let moved = w.take_moved();
                let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
                pending.merge(moved);
                pending.overflow = true;
                true
            }
            Tree::NotYet | Tree::Unavailable => {
                self.pending
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .overflow = true;
                true
            }
        }
    }

    /// A [`Stale`] from what is pending.
    fn stale(&self, reason: String) -> Stale {
        let pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        Stale {
            files: pending.paths.clone(),
            total: pending.total,
            reason,
        }
    }

    /// The index open and synced at least once, else `None`; no freshness check (background
    /// work: embedding, the relevance background).
    pub async fn for_tools_unchecked(&self) -> Option<Arc<CodeIndex>> {
        match self.get().await {
            Ok(index) => self.synced.load(Ordering::Acquire).then_some(index),
            Err(e) => {
                tracing::warn!(error = %e, "code index unavailable; exploration tools parse files from disk");
                None
            }
        }
    }

    /// The start-of-session sync: when `sync_on_start`, always starts an incremental sync (a
    /// `stat` walk when nothing changed) or joins the one running, and waits at most
    /// `sync_timeout_seconds`.
    pub async fn sync_on_start(&self) -> SyncStatus {
        if !self.config.sync_on_start {
            return SyncStatus::Disabled;
        }
        let index = match self.get().await {
            Ok(index) => index,
            Err(e) => return SyncStatus::Failed(e.to_string()),
        };
        let rx = match self.running() {
            Some(rx) => rx,
            None => {
                // Whatever the watch saw is in this sync.
                self.tree_moved();
                self.start_sync(&index)
            }
        };
        wait_for(rx, Duration::from_secs(self.config.sync_timeout_seconds)).await
    }

    /// Starts a sync in the background, or joins the one running; returns its receiver. The
    /// first sync of this server sets up the tree watch before it walks (so nothing changed
    /// during the walk is missed); every sync re-arms it after (new directories).
    fn start_sync(&self, index: &Arc<CodeIndex>) -> watch::Receiver<Option<SyncOutcome>> {
        let mut slot = self.sync.lock().unwrap_or_else(PoisonError::into_inner);
        // Another call may have started one since the caller looked.
        if let Some(rx) = slot.as_ref().filter(|rx| still_running(rx)) {
            return rx.clone();
        }
        let (tx, rx) = watch::channel(None);
        let (index, synced) = (Arc::clone(index), Arc::clone(&self.synced));
        let (tree, pending) = (Arc::clone(&self.tree), Arc::clone(&self.pending));
        let root = self.root.clone();
        // What this sync brings in (named as stale while it runs); changes seen later stay
        // pending for the next one.
        let syncing = pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        tokio::task::spawn_blocking(move || {
            let watch = arm(&tree, &root, &index);
            tracing::info!("index sync started");
            // Another process (a CLI `index`) holding the sync lock is not a failure: each sync
            // waits for it up to `LOCK_WAIT`, then this waits again; the status stays `running`.
            let outcome = loop {
                match index.sync(&mut |_| {}) {
                    Err(IndexError::Busy { .. }) => {
                        tracing::info!("another process is still indexing; waiting");
                    }
                    other => break other.map_err(IndexUnavailable::from),
                }
            };
            if outcome.is_ok() {
                synced.store(true, Ordering::Release);
                if let Some(w) = &watch {
                    let n = w.watch_dirs(index.watched_dirs());
                    tracing::debug!(dirs = n, refused = w.refused(), "tree watch armed");
                }
                // In the index now; what was seen since stays pending.
                pending
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .remove(&syncing);
            }
            match &outcome {
                Ok(r) => tracing::info!(
                    added = r.files_added,
                    modified = r.files_modified,
                    deleted = r.files_deleted,
                    chunks = r.chunks,
                    duration_ms = r.duration_ms,
                    "index sync finished"
                ),
                Err(e) => tracing::warn!(error = %e, "index sync failed"),
            }
            // Nobody listening is fine: the result is also in the receiver kept in `sync`.
            tx.send_replace(Some(outcome));
        });
        *slot = Some(rx.clone());
        rx
    }

    /// The receiver of a sync still running, if any.
    fn running(&self) -> Option<watch::Receiver<Option<SyncOutcome>>> {
        let slot = self.sync.lock().unwrap_or_else(PoisonError::into_inner);
        slot.as_ref().filter(|rx| still_running(rx)).cloned()
    }
}

/// Waits at most `wait` for the sync behind `rx`: `Fresh` when it changed nothing, `Synced`
/// when it did, `Running` past the wait, `Failed` with its error.
async fn wait_for(mut rx: watch::Receiver<Option<SyncOutcome>>, wait: Duration) -> SyncStatus {
    match tokio::time::timeout(wait, rx.wait_for(Option::is_some)).await {
        Err(_elapsed) => SyncStatus::Running,
        Ok(Err(_closed)) => SyncStatus::Failed("the sync task ended without a result".into()),
        Ok(Ok(outcome)) => match outcome.as_ref() {
            Some(Ok(r)) if r.files_added + r.files_modified + r.files_deleted == 0 => {
                SyncStatus::Fresh
            }
            Some(Ok(_)) => SyncStatus::Synced,
            Some(Err(e)) => SyncStatus::Failed(e.to_string()),
            None => SyncStatus::Running,
        },
    }
}

/// The tree watch, set up on first use (before the first sync walks, so that a change during
/// the walk is seen by the next check); `None` where inotify is unavailable.
fn arm(tree: &Mutex<Tree>, root: &RepoRoot, index: &CodeIndex) -> Option<Arc<TreeWatch>> {
    let mut tree = tree.lock().unwrap_or_else(PoisonError::into_inner);
    match &*tree {
        Tree::Watching(w) => Some(Arc::clone(w)),
        Tree::Unavailable => None,
        Tree::NotYet => match TreeWatch::new(root) {
            Ok(w) => {
                let w = Arc::new(w);
                w.watch_dirs(index.watched_dirs());
                *tree = Tree::Watching(Arc::clone(&w));
                Some(w)
            }
            Err(e) => {
                tracing::warn!(error = %e, "no tree watch");
                *tree = Tree::Unavailable;
                None
            }
        },
    }
}

/// No outcome yet and the sync task still holds the sender (a panicked task drops it).
fn still_running(rx: &watch::Receiver<Option<SyncOutcome>>) -> bool {
    rx.borrow().is_none() && rx.has_changed().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo(config: &str) -> (tempfile::TempDir, SharedIndex) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(
            dir.path().join("src/a.py"),
            "def login(user):\n    return user\n",
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join(".code-intel")).unwrap();
        std::fs::write(dir.path().join(".code-intel/config.json"), config).unwrap();
        let root = RepoRoot::new(dir.path()).unwrap();
        let config = Config::load(root.path()).unwrap();
        (dir, SharedIndex::new(root, Arc::new(config)))
    }

    #[tokio::test]
    async fn syncs_once_then_reports_fresh_and_serves_tools_only_after_a_sync() {
        let (_dir, shared) = repo("{}");
        assert!(
            shared.for_tools().await.is_none(),
            "a never-synced index is empty: tools must parse from disk"
        );
        assert_eq!(shared.sync_on_start().await, SyncStatus::Synced);
        let index = shared.for_tools().await.expect("synced index");
        assert_eq!(index.stats().files, 1);
        assert_eq!(shared.sync_on_start().await, SyncStatus::Fresh);
        assert_eq!(SyncStatus::Fresh.to_string(), "fresh");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn another_process_holding_the_sync_lock_is_running_never_failed() {
        let (dir, shared) = repo(r#"{"sync_timeout_seconds": 1}"#);
        shared.get().await.unwrap();
        // Hold the sync lock as a `code-intel index` in another process would.
        let lock = std::fs::File::options()
            .write(true)
            .open(dir.path().join(".code-intel/index/sync.lock"))
            .unwrap();
        lock.lock().unwrap();
        assert_eq!(shared.sync_on_start().await, SyncStatus::Running);
        assert_eq!(shared.sync_on_start().await, SyncStatus::Running);
        drop(lock);
        // The waiting sync goes ahead; a generous bound only catches a hang.
        let mut status = SyncStatus::Running;
        for _ in 0..60 {
            status = shared.sync_on_start().await;
            if status != SyncStatus::Running {
                break;
            }
        }
        assert_eq!(status, SyncStatus::Synced);
        assert_eq!(shared.for_tools().await.unwrap().stats().files, 1);
    }

    #[tokio::test]
    async fn disabled_and_failed_syncs_are_reported() {
        let (_dir, shared) = repo(r#"{"sync_on_start": false}"#);
        assert_eq!(shared.sync_on_start().await, SyncStatus::Disabled);

        let (_dir, shared) = repo(r#"{"exclude_patterns": ["src/{a"]}"#);
        let status = shared.sync_on_start().await;
        let SyncStatus::Failed(msg) = &status else {
            panic!("{status:?}")
        };
        assert!(msg.contains("exclude pattern"), "{msg}");
        assert!(status.to_string().starts_with("failed: "), "{status}");
        // A failed sync is not "running": the next start_session tries again.
        assert!(shared.running().is_none());
        assert!(shared.for_tools().await.is_none());
    }
}
