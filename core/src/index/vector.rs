//! The vector side of the index: one unit vector per distinct embedding text of the chunks the
//! lexical index holds, kept consistent with it after every sync, filled in progressively, and
//! searched exactly (brute-force dot products) or through an HNSW graph (`vector/hnsw.rs`).
//!
//! # Rows, keys and slots
//! - A **row** is one chunk of the lexical index as the vector side sees it: location, symbol,
//!   kind, language, the chunk's content SHA-256 and its **key**
//!   ([`embedding_key`](super::embedding_text::embedding_key) of the configured
//!   [`EmbeddingText`]). Rows are grouped by file together with the file's SHA-256 from
//!   `sync_state.json`, so [`VectorIndex::refresh`] re-chunks exactly the files whose SHA-256
//!   changed since it last ran (chunking is deterministic, so the rows equal the lexical index's
//!   documents for the same file version).
//! - A **slot** is a key with a vector: row `i` of the in-memory matrix and data id `i` of the
//!   HNSW graph. Slots are appended as vectors arrive; a slot whose key no row references any
//!   more is a **tombstone** (skipped by searches). When tombstones exceed
//!   [`REBUILD_TOMBSTONE_FRACTION`] of the slots (and at least [`REBUILD_TOMBSTONE_MIN`]), the
//!   slots are compacted and the graph rebuilt; the embedding cache is pruned to the live keys at
//!   the same time.
//! - Vectors live in the [`EmbeddingCache`] keyed by embedding key, so a chunk whose text did not
//!   change is never embedded twice: not across re-syncs, not across renames (the default recipe
//!   does not include the path), not across processes.
//!
//! Coverage (rows whose key has a vector / rows) is what [`VectorIndex::coverage`] reports;
//! search works at any coverage, over what is embedded.
//!
//! # On disk, under `<repo>/.code-intel/index/`
//! - `vectors/state.json`: [`VectorState`] (rows per file, slot keys, the lexical commit the rows
//!   describe, the current graph dump), written atomically after the cache is flushed, so every
//!   slot it names has its vector on disk: the **base**.
//! - `vectors/state.log`: records of the changes saved since the base (the rows of the files that
//!   changed, the slot keys appended), each appended and fsynced by a save after the cache is
//!   flushed; replayed onto the base on load up to the first torn or foreign record; folded into
//!   a new base when it outgrows a quarter of it (`vector/journal.rs`). A save after one edited
//!   file writes kilobytes instead of the whole state (38 MB for spring's 143k rows).
//! - `vectors/graph-<id>.hnsw`: the graph's links over the first `graph_points` slots
//!   ([`hnsw::Hnsw::to_bytes`]; the vectors are not in it). Derived data: a missing, damaged or
//!   older-format dump (hnsw_rs's `.hnsw.graph`/`.hnsw.data` before 2026-12-01) is rebuilt from the
//!   vectors.
//! - `embeddings/<model>.emb`: the [`EmbeddingCache`].
//!
//! # Lifecycle
//! Every adapter goes through the same few calls (`vector/lifecycle.rs`): after a sync,
//! [`VectorIndex::open_refreshed`] (open, refresh, save), then [`VectorIndex::embed_pending`] to
//! fill, or an [`EmbedRun`] driven group by group by a caller that holds the index only between
//! groups; for a search, [`VectorIndex::has_saved_state`] and [`VectorIndex::open_current`]
//! (open, refreshed only when the lexical index moved); an index kept open (the MCP server)
//! catches up with [`VectorIndex::refresh_if_behind`] or [`VectorIndex::refresh_and_save`].
//!
//! # Several processes
//! An MCP server and a CLI run may share a repository. One embedding run at a time holds
//! `vectors/embed.lock` ([`VectorIndex::try_embed_lock`]); others skip embedding. Writes of
//! `state.json` and `state.log` take turns under its lock, and the last writer's view wins (a
//! writer appends only when the base and the log are the ones it knows; otherwise it writes its
//! whole view as a new base). That view may lack
//! vectors another process added meanwhile, but those vectors are in the embedding cache (appended
//! under its own lock), and every open gives cached vectors of referenced keys their slots again
//! without embedding, so nothing is lost or embedded twice. A save that writes a graph dump
//! removes every other dump (the writer whose state lost keeps its graph in memory; a reader
//! that finds its dump gone rebuilds the graph), so replaced dumps do not pile up.
//!
//! # Exact or approximate
//! Below [`EXACT_SEARCH_MAX`] live vectors a query is a brute-force scan (every dot product, then
//! a partial sort): exact, needing no build, and within half a millisecond of the graph at those
//! sizes (the constant's docs have the measurements). At and above it, searches go through the
//! HNSW graph (Malkov & Yashunin 2018,
//! "Efficient and robust approximate nearest neighbor search using Hierarchical Navigable Small
//! World graphs"), built with [`HNSW_M`] links per node and [`HNSW_EF_CONSTRUCTION`].

// `VectorIndex` is defined here, with `open` and its accessors; each module below holds one
// responsibility's types and `impl VectorIndex` methods.
mod embedding;
mod graph;
pub mod hnsw;
mod journal;
mod lifecycle;
mod matrix;
mod pending;
mod refresh;
mod rows;
mod search;
mod slots;
mod store;

use std::path::{Path, PathBuf};

use super::embedding_text::EmbeddingText;
use super::sync;
use crate::embed::key_table::KeyTable;
use crate::embed::{CacheError, EmbedError, EmbeddingCache};
use code_intel_session::config::Config;
use code_intel_session::persist::PersistError;
use code_intel_session::repo_path::RepoRoot;

pub use embedding::{EMBED_GROUP, EmbedLock, EmbedReport, EmbedRun, EmbeddedGroup};
pub use graph::{HNSW_EF_CONSTRUCTION, HNSW_EF_SEARCH, HNSW_M};
pub use pending::PendingText;
pub use refresh::{REBUILD_TOMBSTONE_FRACTION, REBUILD_TOMBSTONE_MIN, RefreshReport};
pub use rows::{FileRows, Hash32, Row, RowHandoff};
pub use search::{EXACT_SEARCH_MAX, SimilarityProfile, VectorHit, VectorSearch, dot};
pub use slots::Coverage;
pub use store::{STATE_FILE, STATE_VERSION, SUMMARY_FILE, VectorState, VectorSummary};

use graph::Graph;

/// The slot of `key` in `table`, a [`KeyTable`] over `slots` (slot → key).
fn slot_in(table: &KeyTable, slots: &[Hash32], key: &Hash32) -> Option<usize> {
    table
        .get(&key.0, |p| &slots[p as usize].0)
        .map(|p| p as usize)
}
use pending::RecentChunks;

/// Errors of the vector index.
#[derive(Debug, thiserror::Error)]
pub enum VectorError {
    /// The embedding cache could not be read or written.
    #[error(transparent)]
    Cache(#[from] CacheError),
    /// Writing the state file or taking a lock failed.
    #[error(transparent)]
    Persist(#[from] PersistError),
    /// A file of the vector index could not be read or written.
    #[error("cannot access {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The embedder failed.
    #[error(transparent)]
    Embed(#[from] EmbedError),
    /// The embedder's vectors do not have the index's dimensions.
    #[error("the embedder returned {got}-dimensional vectors, the vector index holds {expected}")]
    Dims {
        /// The index's dimensions.
        expected: usize,
        /// The vector's length.
        got: usize,
    },
    /// The configured `embedding_text` names no recipe.
    #[error(
        "unknown embedding_text {name:?} in .code-intel/config.json; use body, summary or summary_path"
    )]
    UnknownRecipe {
        /// The configured name.
        name: String,
    },
    /// The HNSW graph could not be written.
    #[error("cannot write the vector graph in {dir}: {reason}")]
    Graph {
        /// The vectors directory.
        dir: PathBuf,
        /// What failed.
        reason: String,
    },
}

/// The vector index of one repository (see the module docs).
pub struct VectorIndex {
    root: RepoRoot,
    dir: PathBuf,
    recipe: EmbeddingText,
    chunk_options: super::chunk::ChunkOptions,
    /// The framework strategies of the repository, so a file chunked again to embed it gets the
    /// chunks the sync gave it ([`sync::chunk_indexed`]: a routes file's routes too); detected at
    /// `open` and again by a refresh whose sync recorded other strategies.
    frameworks: super::framework::Frameworks,
    state: VectorState,
    cache: EmbeddingCache,
    /// Key → slot (positions into `state.slots`).
    slot_table: KeyTable,
    /// Slot vectors, quantised (`vector/matrix.rs`).
    matrix: matrix::Matrix,
    /// Whether a slot has a vector and a row references its key.
    live: Vec<bool>,
    live_count: usize,
    /// Key → (file, row index) of every row with that key.
    refs: slots::Refs,
    /// Coverage counts, kept up to date by every change (searches report them).
    counts: Coverage,
    /// The graph over slots `0..graph_points`, when the index is large enough to use one.
    graph: Option<Graph>,
    graph_points: usize,
    /// The graph changed since it was dumped.
    graph_dirty: bool,
    /// The state changed since it was saved.
    dirty: bool,
    /// What changed since the last save and what the files on disk were then, so a save can
    /// append a record to `state.log` instead of rewriting `state.json` (`vector/journal.rs`).
    journal: journal::Journal,
    /// Live vectors from which the graph is used ([`EXACT_SEARCH_MAX`] unless overridden).
    exact_max: usize,
    /// The chunks of the files query-time embedding read last ([`Self::pending_for`]), newest
    /// last, keyed by path and file SHA-256: a session's searches keep landing in the same
    /// files, and chunking a large one costs tens of milliseconds each time.
    recent_chunks: std::sync::Mutex<std::collections::VecDeque<RecentChunks>>,
}

impl std::fmt::Debug for VectorIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorIndex")
            .field("root", &self.root.path())
            .field("model", &self.state.model_id)
            .field("slots", &self.state.slots.len())
            .field("live", &self.live_count)
            .finish_non_exhaustive()
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> VectorError + '_ {
    move |source| VectorError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The embedding-text recipe a config asks for (`embedding_text`, default
/// [`EmbeddingText::DEFAULT`]).
///
/// # Errors
/// [`VectorError::UnknownRecipe`] for a name that is no recipe.
pub fn configured_recipe(config: &Config) -> Result<EmbeddingText, VectorError> {
    EmbeddingText::from_name(&config.embedding_text).ok_or_else(|| VectorError::UnknownRecipe {
        name: config.embedding_text.clone(),
    })
}

impl VectorIndex {
    /// Opens the vector index of `root` for vectors of `model_id` with `dims` components and the
    /// config's `embedding_text` recipe. A saved state of another model, recipe, chunker or
    /// version is dropped (its vectors stay in the cache for a later switch back). Creates
    /// nothing on disk until [`Self::save`].
    ///
    /// # Errors
    /// [`VectorError::UnknownRecipe`], [`VectorError::Cache`] (unreadable cache file).
    pub fn open(
        root: &RepoRoot,
        config: &Config,
        model_id: &str,
        dims: usize,
    ) -> Result<Self, VectorError> {
        let recipe = configured_recipe(config)?;
        let dir = Self::dir(root);
        let options = sync::options_fingerprint(config);
        let cache = EmbeddingCache::open(&Self::embeddings_dir(root), model_id, dims)?;
        let (state, journal) = Self::load_state(&dir)
            .filter(|(s, _)| {
                s.model_id == model_id
                    && s.dims == dims
                    && s.recipe == recipe.id()
                    && s.options == options
            })
            .unwrap_or_else(|| {
                let j = journal::Journal {
                    full: true,
                    ..journal::Journal::default()
                };
                (VectorState::empty(model_id, dims, recipe, options), j)
            });
        let mut index = Self {
            root: root.clone(),
            dir,
            recipe,
            chunk_options: sync::chunk_options(config),
            frameworks: super::framework::Frameworks::detect(root.path()),
            state,
            cache,
            slot_table: KeyTable::default(),
            matrix: matrix::Matrix::default(),
            live: Vec::new(),
            live_count: 0,
            refs: slots::Refs::default(),
            counts: Coverage::default(),
            graph: None,
            graph_points: 0,
            graph_dirty: false,
            dirty: false,
            journal,
            exact_max: EXACT_SEARCH_MAX,
            recent_chunks: std::sync::Mutex::default(),
        };
        index.load_slots();
        index.adopt_cached();
        if index.load_graph() && index.journal.base_stamp.is_some() {
            // Best effort: a save that fails (a read-only checkout) only means the next open
            // builds the graph again.
            index.save().ok();
        }
        Ok(index)
    }

    /// The repository root.
    pub fn root(&self) -> &RepoRoot {
        &self.root
    }

    /// The embedding-text recipe of the keys.
    pub fn recipe(&self) -> EmbeddingText {
        self.recipe
    }

    /// Model id of the vectors.
    pub fn model_id(&self) -> &str {
        &self.state.model_id
    }

    /// Components per vector.
    pub fn dims(&self) -> usize {
        self.state.dims
    }

    /// The lexical commit the rows describe (empty before the first refresh).
    pub fn lexical_commit(&self) -> &str {
        &self.state.lexical_commit
    }

    /// Live vectors (distinct embedded texts of current chunks).
    pub fn live_vectors(&self) -> usize {
        self.live_count
    }

    /// Whether searches use the HNSW graph.
    pub fn uses_graph(&self) -> bool {
        self.graph.is_some()
    }

    /// The rows of one file, if it has any.
    pub fn rows_of(&self, file: &str) -> Option<&[Row]> {
        self.state.files.get(file).map(|f| f.rows.as_slice())
    }
}
