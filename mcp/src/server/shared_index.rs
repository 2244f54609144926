//! The server's one [`CodeIndex`]: opened once (in the background at startup, or on first use)
//! and shared by every tool call, plus the single background sync `start_session` starts and
//! waits for (at most `sync_timeout_seconds`).
//!
//! `CodeIndex` is `Send + Sync` and both `search` and `sync` take `&self`, so tools keep
//! searching the last commit while a sync runs.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use code_intel_core::config::Config;
use code_intel_core::index::{CodeIndex, IndexError, SyncReport};
use code_intel_core::repo_path::RepoRoot;
use serde::Serialize;
use tokio::sync::{OnceCell, watch};

/// Outcome of the start-of-session sync, reported as `sync_status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyncStatus {
    /// The index was up to date (within `sync_ttl_hours`); no sync ran.
    Fresh,
    /// A sync ran and finished within the timeout.
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

    /// The index for exploration tools: open and synced at least once, else `None` (the tools
    /// then parse files from disk, which is slower but never misses a file).
    pub async fn for_tools(&self) -> Option<Arc<CodeIndex>> {
        match self.get().await {
            Ok(index) => self.synced.load(Ordering::Acquire).then_some(index),
            Err(e) => {
                tracing::warn!(error = %e, "code index unavailable; exploration tools parse files from disk");
                None
            }
        }
    }

    /// The start-of-session sync: when `sync_on_start` and the index needs a sync, starts one
    /// in the background (or joins the one running) and waits at most `sync_timeout_seconds`.
    pub async fn sync_on_start(&self) -> SyncStatus {
        if !self.config.sync_on_start {
            return SyncStatus::Disabled;
        }
        let index = match self.get().await {
            Ok(index) => index,
            Err(e) => return SyncStatus::Failed(e.to_string()),
        };
        let mut rx = match self.running_or_due(&index).await {
            Ok(Some(rx)) => rx,
            Ok(None) => return SyncStatus::Fresh,
            Err(e) => return SyncStatus::Failed(e.to_string()),
        };
        let wait = Duration::from_secs(self.config.sync_timeout_seconds);
        match tokio::time::timeout(wait, rx.wait_for(Option::is_some)).await {
            Err(_elapsed) => SyncStatus::Running,
            Ok(Err(_closed)) => SyncStatus::Failed("the sync task ended without a result".into()),
            Ok(Ok(outcome)) => match outcome.as_ref() {
                Some(Ok(_)) => SyncStatus::Synced,
                Some(Err(e)) => SyncStatus::Failed(e.to_string()),
                None => SyncStatus::Running,
            },
        }
    }

    /// The receiver of the running sync, or of a new one when the index needs a sync; `None`
    /// when it is fresh.
    async fn running_or_due(
        &self,
        index: &Arc<CodeIndex>,
    ) -> Result<Option<watch::Receiver<Option<SyncOutcome>>>, IndexUnavailable> {
        if let Some(rx) = self.running() {
            return Ok(Some(rx));
        }
        let probe = Arc::clone(index);
        let due = tokio::task::spawn_blocking(move || probe.needs_sync())
            .await
            .map_err(|e| IndexUnavailable::Panicked {
                what: "needs_sync",
                message: e.to_string(),
            })?;
        if !due {
            return Ok(None);
        }
        let mut slot = self.sync.lock().unwrap_or_else(PoisonError::into_inner);
        // Another call may have started one between the check and this lock.
        if let Some(rx) = slot.as_ref().filter(|rx| still_running(rx)) {
            return Ok(Some(rx.clone()));
        }
        let (tx, rx) = watch::channel(None);
        let (index, synced) = (Arc::clone(index), Arc::clone(&self.synced));
        tokio::task::spawn_blocking(move || {
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
        Ok(Some(rx))
    }

    /// The receiver of a sync still running, if any.
    fn running(&self) -> Option<watch::Receiver<Option<SyncOutcome>>> {
        let slot = self.sync.lock().unwrap_or_else(PoisonError::into_inner);
        slot.as_ref().filter(|rx| still_running(rx)).cloned()
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
