//! On disk: `vectors/state.json` ([`VectorState`]), saved after the embedding cache is flushed so
//! that every slot it names has its vector on disk, and the HNSW graph's dump, loaded only when it
//! has the size it was written with and its checksum holds.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::graph::Graph;
use super::journal::{self, Journal};
use super::{FileRows, VectorError, VectorIndex, io_err};
use crate::index::embedding_text::EmbeddingText;
use code_intel_session::persist;
use code_intel_session::repo_path::RepoRoot;

/// File name of [`VectorState`] inside the vectors directory ([`code_intel_session::state_dir::StateDir::vectors`]).
pub const STATE_FILE: &str = "state.json";

/// File name of [`VectorSummary`] inside the vectors directory.
pub const SUMMARY_FILE: &str = "summary.json";

/// What `vectors/state.json` says in a few hundred bytes, written next to it by every
/// [`VectorIndex::save`] (after the state): lets `code-intel index` report the coverage without
/// parsing the state (9 MB for 18k rows) when the sync changed nothing. A summary that does not
/// match the state (a crash between the two writes, another writer) only shows an older count:
/// readers use it only when its lexical commit is the current one, and everything else opens the
/// state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VectorSummary {
    /// [`VectorState::version`] (0 in a summary written before it was recorded, which is then
    /// not current: the state it describes may be of an older version, to be rebuilt).
    #[serde(default)]
    pub version: u32,
    /// [`VectorState::model_id`].
    pub model_id: String,
    /// [`VectorState::dims`].
    pub dims: usize,
    /// [`VectorState::recipe`].
    pub recipe: String,
    /// [`VectorState::options`].
    pub options: String,
    /// [`VectorState::lexical_commit`].
    pub lexical_commit: String,
    /// Whether [`VectorState::stale_files`] was non-empty (then the next refresh has work).
    pub stale: bool,
    /// The coverage when the state was saved.
    pub coverage: super::Coverage,
}

/// Version of [`VectorState`]; another version is ignored (the rows are rebuilt, the vectors come
/// back from the cache). 2: rows without snippet, qualified name and signature, hashes as 32
/// bytes in memory (2026-11-28).
pub const STATE_VERSION: u32 = 2;

/// `vectors/state.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VectorState {
    /// [`STATE_VERSION`].
    pub version: u32,
    /// Model id of the vectors ([`Embedder::model_id`](crate::embed::Embedder::model_id)).
    pub model_id: String,
    /// Components per vector.
    pub dims: usize,
    /// [`EmbeddingText::id`] of the recipe the keys were made with.
    pub recipe: String,
    /// [`sync::options_fingerprint`](crate::index::sync::options_fingerprint) of the chunker
    /// options the rows were made with.
    pub options: String,
    /// The lexical commit (`sync_state.json` `commit`) the rows describe; empty before the first
    /// refresh.
    pub lexical_commit: String,
    /// The framework strategies (`sync_state.json` `frameworks`) the rows were chunked with: a
    /// routes file's routes are chunks only under Laravel's. When the sync's differ, the next
    /// refresh chunks every file again (their cached vectors are reused). Empty in a state
    /// written before it was recorded, so such a state is chunked again once.
    #[serde(default)]
    pub frameworks: Vec<String>,
    /// Rows per repository-relative path.
    pub files: BTreeMap<String, FileRows>,
    /// Files of the lexical index whose current bytes did not match `sync_state.json` at the last
    /// refresh (edited after the sync): they have no rows until the next sync and refresh.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stale_files: Vec<String>,
    /// Key of each slot, in slot order.
    pub slots: Vec<super::Hash32>,
    /// Basename of the HNSW dump in the vectors directory, when one is current.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph: Option<String>,
    /// Slots `0..graph_points` are in the dump.
    #[serde(default)]
    pub graph_points: usize,
    /// Size in bytes of the dump's `.hnsw` file as written. A dump of another size (truncated,
    /// replaced) or with no recorded size (hnsw_rs's dumps before 2026-12-01 recorded
    /// `graph_bytes`, ignored now) is rebuilt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph_size: Option<u64>,
    /// Identity of this base: the records of `state.log` that continue it name it (see
    /// `vector/journal.rs`). Empty in a state written before the log existed (never appended to).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub base_id: String,
}

impl VectorState {
    /// Coverage of the saved rows, from the state alone (`code-intel status`, without opening
    /// the index or the cache): a row counts as embedded when its key has a slot;
    /// `pending_texts` counts the distinct keys without one. As of the last save, so it may lag
    /// behind vectors another process added since.
    pub fn coverage(&self) -> super::Coverage {
        let slots: std::collections::HashSet<&super::Hash32> = self.slots.iter().collect();
        let (mut embedded, mut total) = (0usize, 0usize);
        let mut pending = std::collections::HashSet::new();
        for f in self.files.values() {
            for r in &f.rows {
                total += 1;
                if slots.contains(&r.key) {
                    embedded += 1;
                } else {
                    pending.insert(r.key);
                }
            }
        }
        super::Coverage {
            embedded,
            total,
            pending_texts: pending.len(),
            ratio: if total == 0 {
                1.0
            } else {
                embedded as f64 / total as f64
            },
        }
    }

    /// Whether the rows describe the lexical commit `root`'s `sync_state.json` names (cheap:
    /// reads that file). False when the lexical index was never synced.
    pub fn is_current(&self, root: &RepoRoot) -> bool {
        crate::index::sync::SyncState::load(&crate::index::sync::SyncState::path(root))
            .is_some_and(|s| s.commit == self.lexical_commit)
    }

    pub(super) fn empty(
        model_id: &str,
        dims: usize,
        recipe: EmbeddingText,
        options: String,
    ) -> Self {
        Self {
            version: STATE_VERSION,
            model_id: model_id.to_string(),
            dims,
            recipe: recipe.id(),
            options,
            lexical_commit: String::new(),
            frameworks: Vec::new(),
            files: BTreeMap::new(),
            stale_files: Vec::new(),
            slots: Vec::new(),
            graph: None,
            graph_points: 0,
            graph_size: None,
            base_id: String::new(),
        }
    }
}

impl VectorIndex {
    /// `<root>/.code-intel/index/vectors`.
    pub fn dir(root: &RepoRoot) -> PathBuf {
        root.state().vectors()
    }

    /// `<root>/.code-intel/index/embeddings`.
    pub fn embeddings_dir(root: &RepoRoot) -> PathBuf {
        root.state().embeddings()
    }

    /// Reads the saved state without opening the index (for `status`): the base `state.json`
    /// with the valid records of `state.log` replayed; `None` when there is none or it is
    /// unreadable.
    pub fn peek_state(root: &RepoRoot) -> Option<VectorState> {
        Self::load_state(&Self::dir(root)).map(|(s, _)| s)
    }

    /// The base and log replayed, with what a writer must know to append later.
    pub(super) fn load_state(dir: &Path) -> Option<(VectorState, Journal)> {
        let path = dir.join(STATE_FILE);
        let before = journal::stamp(&path);
        let bytes = persist::read_regular(&path, u64::MAX).ok()??;
        let mut state = serde_json::from_slice::<VectorState>(&bytes)
            .ok()
            .filter(|s| s.version == STATE_VERSION)?;
        // The base read is the one stamped only when nothing replaced it meanwhile.
        let base_stamp =
            before.filter(|b| journal::stamp(&path) == Some(*b) && b.1 == bytes.len() as u64);
        let log = persist::read_regular(&dir.join(journal::LOG_FILE), u64::MAX)
            .ok()
            .flatten()
            .unwrap_or_default();
        let log_len = journal::replay(&mut state, &log);
        let j = Journal {
            persisted_slots: state.slots.len(),
            log_len,
            base_stamp,
            base_len: bytes.len() as u64,
            ..Journal::default()
        };
        Some((state, j))
    }

    /// Reads `vectors/summary.json` ([`VectorSummary`]); `None` when missing or unreadable.
    pub fn peek_summary(root: &RepoRoot) -> Option<VectorSummary> {
        let bytes = persist::read_regular(&Self::dir(root).join(SUMMARY_FILE), u64::MAX).ok()??;
        serde_json::from_slice(&bytes).ok()
    }

    /// The saved summary when it describes the lexical index as it is now: same state version,
    /// model, dims, recipe and chunker options as `config` asks for, the lexical commit
    /// `sync_state.json` names, no stale files. Then a refresh would find nothing to do, and the summary's
    /// coverage is the state's (as of its last save). `None` otherwise: open the index.
    pub fn current_summary(
        root: &RepoRoot,
        config: &code_intel_session::config::Config,
        model_id: &str,
        dims: usize,
    ) -> Option<VectorSummary> {
        let summary = Self::peek_summary(root)?;
        let recipe = super::configured_recipe(config).ok()?;
        let commit =
            crate::index::sync::SyncState::load_commit(&crate::index::sync::SyncState::path(root))?;
        (summary.version == STATE_VERSION
            && summary.model_id == model_id
            && summary.dims == dims
            && summary.recipe == recipe.id()
            && summary.options == crate::index::sync::options_fingerprint(config)
            && !summary.stale
            && !commit.is_empty()
            && summary.lexical_commit == commit)
            .then_some(summary)
    }

    /// The summary of the state as it is in memory.
    fn summary(&self) -> VectorSummary {
        VectorSummary {
            version: STATE_VERSION,
            model_id: self.state.model_id.clone(),
            dims: self.state.dims,
            recipe: self.state.recipe.clone(),
            options: self.state.options.clone(),
            lexical_commit: self.state.lexical_commit.clone(),
            stale: !self.state.stale_files.is_empty(),
            coverage: self.coverage(),
        }
    }

    /// Writes the summary when the one on disk differs (a vector adopted from the cache changes
    /// the coverage without dirtying the state).
    fn save_summary(&self) -> Result<(), VectorError> {
        let summary = self.summary();
        if Self::peek_summary(&self.root).as_ref() == Some(&summary) {
            return Ok(());
        }
        let path = self.dir.join(SUMMARY_FILE);
        let bytes = serde_json::to_vec(&summary).map_err(|e| VectorError::Io {
            path: path.clone(),
            source: e.into(),
        })?;
        std::fs::create_dir_all(&self.dir).map_err(io_err(&self.dir))?;
        persist::write_atomic(&path, &bytes)?;
        Ok(())
    }

    /// Makes the vectors inserted so far durable (flushes the embedding cache) without writing
    /// the state: cheap enough for every query. The state may then lag behind the cache, which
    /// is safe (every open gives cached vectors of referenced keys their slots again); the next
    /// [`Self::save`] catches it up.
    ///
    /// # Errors
    /// [`VectorError::Cache`] when the cache file cannot be written.
    pub fn flush_vectors(&mut self) -> Result<(), VectorError> {
        self.cache.flush()?;
        Ok(())
    }

    /// Writes what changed: flushes the embedding cache, dumps the graph if it changed, then
    /// writes the state atomically (so every slot it names has its vector on disk) and, after a
    /// new dump, removes every other dump in the directory (`sweep_dumps`).
    ///
    /// # Errors
    /// [`VectorError::Cache`], [`VectorError::Persist`], [`VectorError::Io`], [`VectorError::Graph`].
    pub fn save(&mut self) -> Result<(), VectorError> {
        self.cache.flush()?;
        if !self.dirty && !self.graph_dirty {
            // Only once a state exists: the summary describes one.
            if !self.state.lexical_commit.is_empty() {
                self.save_summary()?;
            }
            return Ok(());
        }
        std::fs::create_dir_all(&self.dir).map_err(io_err(&self.dir))?;
        // Writers of the state (an MCP server, a CLI run) take turns; see the module docs for
        // why the last writer's view is safe.
        let _lock = persist::FileLock::acquire(&self.dir.join(STATE_FILE))?;
        if self.dirty && self.try_append()? {
            self.dirty = false;
            return self.save_summary();
        }
        if !self.dirty
            && !self.journal.full
            && self.journal.base_stamp.is_some()
            && self.state.graph.is_some()
        {
            // Only the graph changed: it is derived data, rebuilt past the dump on open; it is
            // dumped with the next full base.
            return self.save_summary();
        }
        self.save_full()?;
        self.save_summary()
    }

    /// Writes a new base (`state.json` with the graph dump if it changed) and empties
    /// `state.log`, whatever [`Self::save`] would have done: folds the log now rather than when
    /// it outgrows `journal::COMPACT_FRACTION` (a quarter, at least 1 MiB) of the base.
    ///
    /// # Errors
    /// As [`Self::save`].
    pub fn save_base(&mut self) -> Result<(), VectorError> {
        self.journal.full = true;
        self.dirty = true;
        self.save()
    }

    /// Appends one record to `state.log` when the files on disk are the ones this index knows
    /// (see `vector/journal.rs`); `Ok(false)` when a full base must be written instead.
    fn try_append(&mut self) -> Result<bool, VectorError> {
        let j = &self.journal;
        let log_path = self.dir.join(journal::LOG_FILE);
        if j.full
            || self.state.base_id.is_empty()
            || j.base_stamp.is_none()
            || journal::stamp(&self.dir.join(STATE_FILE)) != j.base_stamp
            || journal::len(&log_path) != j.log_len
            || self.state.slots.len() < j.persisted_slots
        {
            return Ok(false);
        }
        let record = journal::LogRecord {
            base: self.state.base_id.clone(),
            files: j
                .changed_files
                .iter()
                .map(|f| (f.clone(), self.state.files.get(f).cloned()))
                .collect(),
            slots_from: j.persisted_slots,
            slots: self.state.slots[j.persisted_slots..].to_vec(),
            lexical_commit: self.state.lexical_commit.clone(),
            frameworks: self.state.frameworks.clone(),
            stale_files: self.state.stale_files.clone(),
        };
        let bytes = journal::encode(&record);
        let limit =
            (journal::COMPACT_FRACTION * j.base_len as f64).max(journal::COMPACT_MIN_BYTES as f64);
        if (j.log_len + bytes.len() as u64) as f64 > limit {
            return Ok(false);
        }
        journal::append(&log_path, &bytes)?;
        self.journal.log_len += bytes.len() as u64;
        self.journal.persisted_slots = self.state.slots.len();
        self.journal.changed_files.clear();
        Ok(true)
    }

    /// Writes a new base: the graph dump if it changed, `state.json` by atomic rename (so every
    /// slot it names has its vector on disk: the cache was flushed), then the log emptied. A
    /// crash before the log is emptied leaves records naming the previous base: ignored.
    fn save_full(&mut self) -> Result<(), VectorError> {
        if self.graph_dirty {
            match &self.graph {
                Some(graph) => {
                    let base =
                        format!("graph-{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
                    let bytes = dump_graph(graph, &self.dir, &base)?;
                    self.state.graph = Some(base);
                    self.state.graph_points = self.graph_points;
                    self.state.graph_size = Some(bytes);
                }
                None => {
                    self.state.graph = None;
                    self.state.graph_points = 0;
                    self.state.graph_size = None;
                }
            }
        }
        self.state.base_id = uuid::Uuid::new_v4().simple().to_string();
        let path = self.dir.join(STATE_FILE);
        let bytes = serde_json::to_vec(&self.state).map_err(|e| VectorError::Io {
            path: path.clone(),
            source: e.into(),
        })?;
        persist::write_atomic(&path, &bytes)?;
        journal::clear(&self.dir.join(journal::LOG_FILE))?;
        if self.graph_dirty {
            // The previous dump, and any a concurrent writer's save left behind (the last
            // writer's state names only its own), under the lock every dump is written in.
            sweep_dumps(&self.dir, self.state.graph.as_deref());
        }
        self.journal = Journal {
            persisted_slots: self.state.slots.len(),
            log_len: 0,
            base_stamp: journal::stamp(&path),
            base_len: bytes.len() as u64,
            ..Journal::default()
        };
        self.dirty = false;
        self.graph_dirty = false;
        Ok(())
    }
}

/// Largest graph dump read (`M` = 16: 133 bytes a node, about 8M nodes).
const MAX_DUMP_BYTES: u64 = 1 << 30;

/// Loads a graph dump; `None` when it is missing, not a regular file, not `bytes` long or not a
/// graph ([`Graph::from_bytes`]: magic, checksum, ranges).
pub(super) fn load_dump(dir: &Path, base: &str, bytes: u64) -> Option<Graph> {
    let path = dump_path(dir, base);
    let meta = std::fs::metadata(&path).ok()?;
    if !meta.is_file() || meta.len() != bytes {
        return None;
    }
    let data = persist::read_regular(&path, MAX_DUMP_BYTES).ok()??;
    Graph::from_bytes(&data)
}

/// Removes every graph dump in `dir` (`graph-*.hnsw`, and hnsw_rs's `graph-*.hnsw.graph` and
/// `graph-*.hnsw.data` of states before 2026-12-01) but `keep`'s, best effort: a dump no state
/// names is garbage of megabytes (a previous dump, one a concurrent writer's save replaced, a
/// failed dump); a reader that loaded it holds it in memory, and one that finds it gone rebuilds
/// the graph. Called with the state lock held.
fn sweep_dumps(dir: &Path, keep: Option<&str>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        let Some(base) = name
            .strip_suffix(".hnsw.graph")
            .or_else(|| name.strip_suffix(".hnsw.data"))
            .or_else(|| name.strip_suffix(".hnsw"))
        else {
            continue;
        };
        let current = keep.is_some_and(|k| name == format!("{k}.hnsw"));
        if base.starts_with("graph-") && !current {
            std::fs::remove_file(entry.path()).ok();
        }
    }
}

/// The `.hnsw` file of dump `base`.
fn dump_path(dir: &Path, base: &str) -> PathBuf {
    dir.join(format!("{base}.hnsw"))
}

/// Writes the graph as `<base>.hnsw` in `dir` (which exists), atomically; returns its size in
/// bytes.
fn dump_graph(graph: &Graph, dir: &Path, base: &str) -> Result<u64, VectorError> {
    let path = dump_path(dir, base);
    let bytes = graph.to_bytes();
    persist::write_atomic(&path, &bytes).map_err(|e| VectorError::Graph {
        dir: dir.to_path_buf(),
        reason: format!("cannot write {}: {e}", path.display()),
    })?;
    Ok(bytes.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::vector::graph::{HNSW_EF_CONSTRUCTION, HNSW_M};
    use crate::index::vector::hnsw::Points;

    struct Three;

    impl Points for Three {
        fn similarity(&self, node: usize, q: &[f32]) -> f32 {
            let v = self.vector(node);
            v[0] * q[0] + v[1] * q[1]
        }
        fn node_similarity(&self, a: usize, b: usize) -> f32 {
            self.similarity(a, &self.vector(b))
        }
        fn vector(&self, node: usize) -> Vec<f32> {
            [[1.0f32, 0.0], [0.0, 1.0], [0.6, 0.8], [0.8, 0.6]][node].to_vec()
        }
    }

    fn small_graph() -> Graph {
        let mut graph = Graph::new(HNSW_M, HNSW_EF_CONSTRUCTION);
        for i in 0..3 {
            graph.insert(&Three, i);
        }
        graph
    }

    #[test]
    fn an_unwritable_dump_is_an_error_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        // A directory where the graph file should go: the rename fails even as root.
        std::fs::create_dir(dir.path().join("g.hnsw")).unwrap();
        let err = dump_graph(&small_graph(), dir.path(), "g").unwrap_err();
        assert!(err.to_string().contains("cannot write"), "{err}");
        assert_eq!(sorted_names(dir.path()), ["g.hnsw"]);
    }

    /// The names of the files in `dir`, sorted.
    fn sorted_names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_reloaded_and_extended_graph_dumps_under_the_new_name() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = dump_graph(&small_graph(), dir.path(), "g").unwrap();
        let mut graph = load_dump(dir.path(), "g", bytes).expect("intact dump loads");
        graph.insert(&Three, 3);
        let bytes = dump_graph(&graph, dir.path(), "h").unwrap();
        let again = load_dump(dir.path(), "h", bytes).expect("the new dump loads");
        assert_eq!(again.inserted(), 4);
        assert_eq!(again, graph);
        assert_eq!(sorted_names(dir.path()), ["g.hnsw", "h.hnsw"]);
    }

    #[test]
    fn sweeping_keeps_the_named_dump_and_everything_else() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "graph-aaa.hnsw",
            "graph-bbb.hnsw",
            "graph-bbb.hnsw.graph",
            "graph-bbb.hnsw.data",
            "graph-ccc-1234.hnsw.data",
            "state.json",
            "other.hnsw",
        ] {
            std::fs::write(dir.path().join(name), b"x").unwrap();
        }
        sweep_dumps(dir.path(), Some("graph-bbb"));
        assert_eq!(
            sorted_names(dir.path()),
            ["graph-bbb.hnsw", "other.hnsw", "state.json"]
        );
        sweep_dumps(dir.path(), None);
        assert!(!dir.path().join("graph-bbb.hnsw").exists());
    }

    #[test]
    fn only_a_dump_of_the_recorded_size_is_loaded() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = dump_graph(&small_graph(), dir.path(), "g").unwrap();
        let loaded = load_dump(dir.path(), "g", bytes).expect("intact dump loads");
        assert_eq!(loaded.inserted(), 3);
        assert!(load_dump(dir.path(), "g", bytes + 1).is_none());
        let path = dir.path().join("g.hnsw");
        let full = std::fs::read(&path).unwrap();
        // Same size, one bit flipped: the checksum refuses it.
        let mut flipped = full.clone();
        flipped[20] ^= 4;
        std::fs::write(&path, &flipped).unwrap();
        assert!(load_dump(dir.path(), "g", bytes).is_none());
        std::fs::write(&path, &full[..full.len() / 2]).unwrap();
        assert!(load_dump(dir.path(), "g", bytes).is_none());
        assert!(load_dump(dir.path(), "missing", bytes).is_none());
    }
}
