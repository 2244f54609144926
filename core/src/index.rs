//! The code index: chunking ([`chunk`], [`lang`]), incremental sync ([`sync`]) and the tantivy BM25
//! index ([`lexical`]), behind one facade, [`CodeIndex`].
//!
//! On disk, under `<repo>/.code-intel/`:
//! - `index/lexical/`: the tantivy index, one document per chunk (see [`lexical::schema`]).
//! - `index/sync.lock`: held (`flock`) by the process that syncs or repairs; a second syncer
//!   waits for it (up to [`sync::LOCK_WAIT`], reporting [`SyncProgress::WaitingForLock`]), then
//!   gets [`IndexError::Busy`].
//! - `sync_state.json`: what the index holds, per file (see [`sync::SyncState`]); written only
//!   after the tantivy commit it describes succeeded.

pub mod chunk;
pub mod framework;
pub mod glossary;
pub mod lang;
pub mod lexical;
pub mod pruned;
pub mod rank;
pub mod request;
pub mod scope;
pub mod source;
pub mod sync;
pub mod watch;

// The semantic layer (embeddings, vectors, hybrid ranking): behind the `embed` feature.
#[cfg(feature = "embed")]
pub mod embedding_text;
#[cfg(feature = "embed")]
pub mod hybrid;
#[cfg(feature = "embed")]
pub mod map;
#[cfg(feature = "embed")]
pub mod query_embed;
#[cfg(feature = "embed")]
pub mod semantic;
#[cfg(feature = "embed")]
pub mod vector;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tantivy::collector::{DocSetCollector, TopDocs};
use tantivy::schema::{TantivyDocument, Value};
use tantivy::{Index, IndexReader, ReloadPolicy, Searcher};

use crate::index::chunk::ChunkKind;
use crate::index::lang::Language;
use code_intel_session::config::Config;
use code_intel_session::persist::{FileLock, PersistError};
use code_intel_session::repo_path::RepoRoot;

use lexical::{NameMatch, StoredChunk};
use rank::{FileHit, RankParams};

/// Errors of the code index.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// Another process (or thread) held the sync lock of this repository for the whole wait
    /// ([`CodeIndex::set_lock_wait`], [`sync::LOCK_WAIT`] by default).
    #[error(
        "another code-intel process has been indexing {root} for over {waited_secs} s; retry when it finishes"
    )]
    Busy {
        /// The repository root.
        root: PathBuf,
        /// How long this sync waited for the lock, seconds.
        waited_secs: u64,
    },
    /// The tantivy index exists but is damaged (a segment file missing or garbled, `meta.json`
    /// unreadable). [`CodeIndex::open`] rebuilds such an index itself; this error reaches callers
    /// only from [`CodeIndex::verify`] and from damage found in the middle of a sync.
    #[error(
        "the index at {path} is damaged ({source}); run `code-intel repair` to rebuild it from the sources"
    )]
    Corrupt {
        /// The index directory.
        path: PathBuf,
        /// The tantivy error.
        #[source]
        source: tantivy::TantivyError,
    },
    /// A tantivy operation failed.
    #[error("cannot {action} the index at {path}: {source}")]
    Tantivy {
        /// What was being done (`"open"`, `"commit"`, `"search"`, ...).
        action: &'static str,
        /// The index directory.
        path: PathBuf,
        /// The tantivy error.
        #[source]
        source: tantivy::TantivyError,
    },
    /// A file-system operation on the index's own files failed.
    #[error("cannot access {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A pattern of `exclude_patterns` in `.code-intel/config.json` is not a valid glob.
    #[error("invalid exclude pattern {pattern:?} in .code-intel/config.json: {source}")]
    ExcludePattern {
        /// The pattern as configured.
        pattern: String,
        /// The glob error.
        #[source]
        source: ignore::Error,
    },
    /// Writing `sync_state.json` failed (the index itself was committed; the next sync repairs it).
    #[error(transparent)]
    Persist(#[from] PersistError),
}

/// Progress of a sync, reported to the caller's callback on the calling thread.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "stage", rename_all = "snake_case")]
pub enum SyncProgress {
    /// The walk finished: `files` seen, `to_read` of them changed by size/mtime (or new),
    /// `deleted` gone since the last sync.
    Walked {
        /// Files found by the walk.
        files: usize,
        /// Files that must be read and hashed.
        to_read: usize,
        /// Files removed since the last sync.
        deleted: usize,
    },
    /// One more file of `to_read` was read (and, if changed, chunked).
    Read {
        /// Files read so far.
        done: usize,
        /// Files to read in total.
        total: usize,
    },
    /// All documents are written; the index commit is running.
    Committing,
    /// Another process holds the sync lock; this sync waits for it, at most `timeout_secs`.
    /// Reported once, before the walk.
    WaitingForLock {
        /// The longest this sync will wait, seconds.
        timeout_secs: u64,
    },
}

/// A file the sync did not index, with the reason (an expected outcome, not an error).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedFile {
    /// Repository-relative path (lossy for non-UTF-8 names).
    pub path: String,
    /// Why: `binary file`, `file too large (.. bytes, limit ..)`, `cannot read: ..`,
    /// `path is not valid UTF-8`.
    pub reason: String,
}

/// What a sync did. Counts are files; `files_skipped` lists only files examined by this sync
/// (new or changed ones), so a no-change sync reports none.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncReport {
    /// Files new since the last sync (a rename is a delete plus an add).
    pub files_added: usize,
    /// Files whose content (SHA-256) changed.
    pub files_modified: usize,
    /// Files gone since the last sync.
    pub files_deleted: usize,
    /// Files unchanged, including ones whose mtime changed but whose SHA-256 did not.
    pub files_unchanged: usize,
    /// Files read and hashed by this sync (size/mtime differed, or the entry was too recent to
    /// trust its mtime).
    pub files_hashed: usize,
    /// Files examined by this sync and not indexed.
    pub files_skipped: Vec<SkippedFile>,
    /// Chunks in the index after the sync.
    pub chunks: u64,
    /// Chunks written by this sync.
    pub chunks_written: usize,
    /// Whether the whole index was rebuilt (first sync, or the state file did not describe the
    /// index: deleted, stale after a crash, older version or different chunking options).
    pub full_rebuild: bool,
    /// Why the whole index was rebuilt, when that was not simply the first sync: the state file
    /// is unreadable or of another version, it names another commit than the index holds (a
    /// sync interrupted between commit and state write, or a repaired index), or the chunking
    /// options changed. Shown as a warning: it explains a slower sync.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rebuild_reason: Option<String>,
    /// Whether the sync walked the repository's directories. `false` when the last walk's stamp
    /// still held (no directory, ignore file or scope setting changed since), so the files of the
    /// state were checked with one `stat` each instead ([`sync::WalkStamp`]).
    #[serde(default)]
    pub walked: bool,
    /// Wall-clock duration in milliseconds.
    pub duration_ms: u64,
    /// Where the time went, by stage ([`SyncTimings`]).
    #[serde(default)]
    pub timings: SyncTimings,
}

/// Where a sync's time went, milliseconds. `walk_ms`, `pipeline_ms`, `commit_ms` and
/// `state_ms` are wall-clock stages in order (with the lock wait, the framework detection and
/// the reader reload they add up to [`SyncReport::duration_ms`]). Reading, parsing and building
/// documents run on [`SyncTimings::workers`] threads at once inside the pipeline, so `read_ms`,
/// `parse_ms` and `documents_ms` are thread time summed over the workers (their sum over
/// `pipeline_ms` is how busy the workers were); `index_ms` is the time this thread spent handing
/// documents to tantivy's indexing thread (waiting when it lags behind), inside the pipeline too.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncTimings {
    /// The directory walk (or the `stat` check of the state's files when the walk was skipped).
    pub walk_ms: u64,
    /// Reading, hashing, chunking and indexing the files to read, wall clock.
    pub pipeline_ms: u64,
    /// Reading and hashing files (SHA-256), summed over the workers.
    pub read_ms: u64,
    /// Chunking (tree-sitter parse and chunk selection, framework analysis), summed over the
    /// workers.
    pub parse_ms: u64,
    /// Turning chunks into tantivy documents, summed over the workers.
    pub documents_ms: u64,
    /// Handing documents (and deletions) to the index writer, on the sync's own thread.
    pub index_ms: u64,
    /// The tantivy commit: flushing the last segment, publishing it, and waiting for merges.
    pub commit_ms: u64,
    /// Writing `sync_state.json`.
    pub state_ms: u64,
    /// Threads that read and chunked files in the pipeline.
    pub workers: usize,
}

/// Query words whose matches a search tracks per hit (bits of a `u128`): the coverage of a file
/// and the explanation of a long request's hit count at most these.
const WORD_BITS: usize = 128;

/// A request mention naming more indexed files than this names none (`index.ts`, `utils.py`).
pub const MAX_MENTIONED_FILES: usize = 4;

/// The query words each chunk hit matches (bit `i`: word `i`) and the words' weights, for
/// [`RankParams::coverage`].
#[derive(Debug, Clone, Default)]
struct WordCover {
    masks: Vec<u128>,
    weights: Vec<f32>,
}

impl WordCover {
    /// Multiplies each hit's score by `1 + coverage × c`, `c` the weighted share of the query's
    /// words that its file's hits match together (the file's coverage of the request).
    fn apply(&self, hits: &mut [SearchHit], params: &RankParams) {
        let total: f32 = self.weights.iter().sum();
        if params.coverage <= 0.0 || total <= 0.0 || self.masks.len() != hits.len() {
            return;
        }
        let mut by_file: std::collections::HashMap<String, u128> = std::collections::HashMap::new();
        for (h, m) in hits.iter().zip(&self.masks) {
            *by_file.entry(h.file.clone()).or_default() |= m;
        }
        for h in hits.iter_mut() {
            let mask = by_file.get(&h.file).copied().unwrap_or(0);
            let covered: f32 = self
                .weights
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, w)| w)
                .sum();
            h.score *= 1.0 + params.coverage * covered / total;
        }
    }
}

/// The lexical candidates of one search, best first (see `CodeIndex::search_candidates`): hits
/// read from fast fields, the address of each hit's document, and the searcher the addresses
/// belong to (a reload in between must not change what they point at).
pub(crate) struct Candidates {
    pub(crate) hits: Vec<SearchHit>,
    pub(crate) addrs: Vec<tantivy::DocAddress>,
    pub(crate) searcher: Searcher,
    /// For a long request, what each hit matched: bit `i` of a mask is `matched[i]` (empty for
    /// a short request, whose explanation has no parts).
    pub(crate) masks: Vec<u128>,
    /// The query words (then the files the request names) the masks' bits stand for: the part
    /// of the request and the text written.
    pub(crate) matched: Vec<(request::PartKind, String)>,
    /// Where the files the request names begin in `matched` (they are explained first).
    pub(crate) named_from: usize,
}

/// A word of a long request with its weight × IDF and its terms' document frequencies
/// (`CodeIndex::request_query`).
type ScoredWord<'a> = (&'a request::RequestWord, f32, Vec<(String, u64)>);

/// The query of a long request and what its search needs (`CodeIndex::request_query`).
struct RequestQuery {
    /// `None` when the request has no searchable word.
    query: Option<Box<dyn tantivy::query::Query>>,
    /// The query's words.
    words: Vec<lexical::QueryWord>,
    /// The indexed files the request names, with the part and text that named each.
    named: Vec<(String, request::PartKind, String)>,
    /// Files whose chunks get a constant added after the search (a flat query's named files).
    after: Vec<(String, f32)>,
}

/// Fills `hit` from its stored document at `addr` (qualified name, signature, snippet, and the
/// fields the fast columns gave); its score stays.
pub(crate) fn hydrate(
    fields: &lexical::Fields,
    searcher: &Searcher,
    hit: &mut SearchHit,
    addr: tantivy::DocAddress,
) -> tantivy::Result<()> {
    let doc: TantivyDocument = searcher.doc(addr)?;
    *hit = SearchHit::from_stored(lexical::stored_chunk(fields, &doc), hit.score);
    Ok(())
}

/// The address of the chunk of `file` that starts at `start_line` with content SHA-256 `sha256`
/// (hex), found through the file's term and the start-line fast column: a vector hit names a
/// chunk this way, and its stored document (snippet, names) is read only if it is shown.
/// `None` when the lexical index has no such chunk (it moved on since the vectors' refresh).
pub(crate) fn chunk_address(
    fields: &lexical::Fields,
    searcher: &Searcher,
    file: &str,
    start_line: u32,
    sha256: &str,
) -> tantivy::Result<Option<tantivy::DocAddress>> {
    let q = lexical::file_query(fields, file);
    let mut addrs: Vec<tantivy::DocAddress> = searcher
        .search(&*q, &tantivy::collector::DocSetCollector)?
        .into_iter()
        .collect();
    addrs.sort();
    let start_name = searcher
        .schema()
        .get_field_name(fields.start_line)
        .to_string();
    for addr in addrs {
        let seg = searcher.segment_reader(addr.segment_ord);
        let starts: Option<tantivy::columnar::Column<u64>> =
            seg.fast_fields().u64(&start_name).ok();
        if starts.and_then(|c| c.first(addr.doc_id)) != Some(u64::from(start_line)) {
            continue;
        }
        let doc: TantivyDocument = searcher.doc(addr)?;
        if lexical::stored_chunk(fields, &doc).sha256 == sha256 {
            return Ok(Some(addr));
        }
    }
    Ok(None)
}

/// One ranked hit of [`CodeIndex::search`]: a chunk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchHit {
    /// Repository-relative path, `/`-separated.
    pub file: String,
    /// First line, 1-based.
    pub start_line: u32,
    /// Last line, 1-based inclusive.
    pub end_line: u32,
    /// Symbol name (the file name for module chunks).
    pub symbol: String,
    /// Qualified name (`Class.method`, `Namespace\Class::method`).
    pub qualified_name: String,
    /// Chunk kind, serialised snake_case (`function`, `method`, `class`, `module`, ...).
    pub kind: ChunkKind,
    /// Language, serialised as its id.
    pub language: Language,
    /// BM25 score with field boosts (unbounded, higher is better; comparable within one query).
    pub score: f32,
    /// Signature (may be empty).
    pub signature: String,
    /// The first non-blank lines of the chunk, when it has any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
    /// Hex SHA-256 of the chunk content.
    pub sha256: String,
}

impl SearchHit {
    /// A hit for a stored chunk with the given score.
    pub fn from_stored(c: StoredChunk, score: f32) -> Self {
        SearchHit {
            file: c.file,
            start_line: c.start_line,
            end_line: c.end_line,
            symbol: c.symbol,
            qualified_name: c.qualified_name,
            kind: c.kind,
            language: c.language,
            score,
            signature: c.signature,
            snippet: Some(c.snippet).filter(|s| !s.is_empty()),
            sha256: c.sha256,
        }
    }
}

/// Size and freshness of the index.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexStats {
    /// Files with chunks in the index (per the sync state).
    pub files: usize,
    /// Chunks (documents) in the index.
    pub chunks: u64,
    /// End of the last successful sync, if any.
    pub last_sync: Option<jiff::Timestamp>,
    /// What the index leaves out, by reason (most frequent first): out-of-scope paths of the walk
    /// and files skipped after reading (binary, too large, minified, generated...).
    #[serde(default)]
    pub skipped: Vec<SkipCount>,
    /// Paths not indexed at all: out of scope, or read and skipped. The number `code-intel
    /// index` lists as skipped; [`skipped`](Self::skipped) also counts the files indexed as line
    /// windows (`parser budget exceeded`), which are indexed.
    #[serde(default)]
    pub not_indexed: usize,
}

/// How many paths the index skipped for one reason, with a few examples.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkipCount {
    /// The reason, without its details (`file too large`, not the byte counts).
    pub reason: String,
    /// Paths skipped for it (a pruned directory counts once, with a trailing `/`).
    pub count: usize,
    /// Up to [`SKIP_EXAMPLES`] of them, in path order.
    pub examples: Vec<String>,
}

/// Examples kept per reason in [`IndexStats::skipped`].
pub const SKIP_EXAMPLES: usize = 3;

/// The first entry of the lexical index directory `dir` that is not a regular file (a FIFO,
/// socket, device, symlink or directory planted among tantivy's files), by name; `None` when
/// there is none or `dir` cannot be listed (opening then says why).
fn foreign_entry(dir: &Path) -> Option<String> {
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .find(|e| !e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
}

/// What remains of an index whose `meta.json` is gone: its segment files in `dir` (names not
/// starting with `.`: tantivy's own lock and managed-files list do), or the sync state at
/// `state`, which exists only after a commit. `None` when neither does (a new index).
fn orphaned_by_meta(dir: &Path, state: &Path) -> Option<String> {
    let segments = std::fs::read_dir(dir).map_or(0, |l| {
        l.flatten()
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .count()
    });
    if segments > 0 {
        return Some(format!("{segments} other index files remain"));
    }
    std::fs::symlink_metadata(state)
        .is_ok()
        .then(|| format!("{} describes a commit of it", sync::STATE_FILE))
}

/// Counts per reason of the paths `state` records as skipped, most frequent first.
fn skip_counts(state: &sync::SyncState) -> Vec<SkipCount> {
    let mut by: std::collections::BTreeMap<String, SkipCount> = std::collections::BTreeMap::new();
    let reasons = state
        .out_of_scope
        .iter()
        .map(|(p, r)| (p, r.as_str()))
        .chain(
            state
                .files
                .iter()
                .filter_map(|(p, f)| f.skipped.as_deref().map(|r| (p, r))),
        )
        // Indexed as line windows, not symbols: `parser budget exceeded (…)`.
        .chain(
            state
                .files
                .iter()
                .filter_map(|(p, f)| f.fallback.as_deref().map(|r| (p, r))),
        );
    for (path, reason) in reasons {
        // `file too large (123 bytes, limit 100)` → `file too large`.
        let key = reason.split(" (").next().unwrap_or(reason).to_string();
        let entry = by.entry(key.clone()).or_insert_with(|| SkipCount {
            reason: key,
            ..SkipCount::default()
        });
        entry.count += 1;
        if entry.examples.len() < SKIP_EXAMPLES {
            entry.examples.push(path.clone());
        }
    }
    let mut out: Vec<SkipCount> = by.into_values().collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.reason.cmp(&b.reason)));
    out
}

/// How many of the first ranked files lend score to their framework neighbours.
pub const FRAMEWORK_SEEDS: usize = 3;
/// A framework key linking more files than this is not followed by ranked search (see
/// [`CodeIndex::framework_neighbors`]).
pub const FRAMEWORK_MAX_PER_KEY: usize = 20;
/// Files ranked before the framework links re-rank them (the links may lift a file from here).
const FRAMEWORK_POOL: usize = 50;

/// The code index of one repository: a tantivy index plus the sync state that describes it.
///
/// Cheap to share by reference across threads (`Send + Sync`); searches see the latest commit
/// of any process (the reader reloads on commit).
pub struct CodeIndex {
    root: RepoRoot,
    config: Config,
    index: Index,
    reader: IndexReader,
    fields: lexical::Fields,
    /// Set when opening rebuilt a damaged index (see [`CodeIndex::repaired`]).
    repaired: Option<String>,
    /// How long [`CodeIndex::sync`] waits for another syncer.
    lock_wait: std::time::Duration,
    /// The indexed paths by file name, for the files long requests name
    /// ([`CodeIndex::mentioned_files`]), built on first use and again when the segments change.
    paths: std::sync::Mutex<Option<std::sync::Arc<PathTable>>>,
}

/// Every path of the index's `path_key` terms, by the lower-cased name of the file without
/// its last extension (`tax` for `shop/billing/tax.py`), for the searcher's segments.
#[derive(Debug)]
struct PathTable {
    /// The segments whose term dictionaries it was read from, in the searcher's order.
    segments: Vec<tantivy::index::SegmentId>,
    /// Paths by file stem, in the order of the term dictionaries (segment by segment, each
    /// sorted), without duplicates.
    by_stem: std::collections::HashMap<String, Vec<String>>,
}

/// The key of [`PathTable::by_stem`] for a path or a mention's path: its last component,
/// without what follows its last `.` (unless `extension` is false: a module name has none),
/// ASCII letters lower-cased.
fn path_stem(path: &str, extension: bool) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = match name.rfind('.') {
        Some(dot) if extension && dot > 0 => &name[..dot],
        _ => name,
    };
    stem.to_ascii_lowercase()
}

impl std::fmt::Debug for CodeIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeIndex")
            .field("root", &self.root.path())
            .finish_non_exhaustive()
    }
}

impl CodeIndex {
    /// Opens the index of `root`, creating an empty one if missing. An index built with an older
    /// schema is rebuilt empty (the next sync fills it). A damaged index (a segment file missing
    /// or unreadable, `meta.json` truncated or garbage) is rebuilt empty too, under the sync lock,
    /// and [`repaired`](Self::repaired) says so: the next sync refills it from the sources.
    ///
    /// # Errors
    /// [`IndexError::Io`]/[`IndexError::Tantivy`] when the index cannot be created or the damaged
    /// one cannot be removed (permissions, full disk); [`IndexError::Persist`] when the sync lock
    /// cannot be taken.
    pub fn open(root: &RepoRoot, config: &Config) -> Result<Self, IndexError> {
        Self::open_with(root, config, ReloadPolicy::OnCommitWithDelay)
    }

    /// As [`open`](Self::open), for a process that syncs and reads and then exits (the CLI): its
    /// reader reloads only after its own syncs, so no tantivy watcher thread polls `meta.json` —
    /// whose first poll would reload every segment once more while the sync is stat-ing files
    /// (measured: 0.73 of 2 cores busy for a 12 ms no-change `code-intel index` on Laravel).
    ///
    /// # Errors
    /// As [`open`](Self::open).
    pub fn open_unwatched(root: &RepoRoot, config: &Config) -> Result<Self, IndexError> {
        Self::open_with(root, config, ReloadPolicy::Manual)
    }

    fn open_with(
        root: &RepoRoot,
        config: &Config,
        reload: ReloadPolicy,
    ) -> Result<Self, IndexError> {
        match Self::try_open(root, config, false, reload) {
            Err(IndexError::Corrupt { source, .. }) => {
                Self::rebuild_if_damaged(root, config, &source.to_string(), reload)
            }
            other => other,
        }
    }

    /// Rebuilds the index empty whatever its state (`code-intel repair`): removes the lexical
    /// index and `sync_state.json` under the sync lock, so the next sync is a full one from the
    /// sources. [`repaired`](Self::repaired) carries `reason`.
    ///
    /// # Errors
    /// As [`open`](Self::open).
    pub fn rebuild(root: &RepoRoot, config: &Config, reason: &str) -> Result<Self, IndexError> {
        let _lock = FileLock::acquire(&Self::lock_base(root))?;
        Self::wipe(root)?;
        let mut index = Self::try_open(root, config, true, ReloadPolicy::OnCommitWithDelay)?;
        index.repaired = Some(reason.to_string());
        Ok(index)
    }

    /// Rebuilds a damaged index (see [`open`](Self::open)): under the sync lock, checks again
    /// (another process may have repaired it while this one waited), then wipes and recreates.
    fn rebuild_if_damaged(
        root: &RepoRoot,
        config: &Config,
        damage: &str,
        reload: ReloadPolicy,
    ) -> Result<Self, IndexError> {
        let _lock = FileLock::acquire(&Self::lock_base(root))?;
        if let Ok(index) = Self::try_open(root, config, true, reload) {
            return Ok(index);
        }
        Self::wipe(root)?;
        let mut index = Self::try_open(root, config, true, reload)?;
        index.repaired = Some(format!(
            "the index was damaged ({damage}); rebuilt it from the sources"
        ));
        Ok(index)
    }

    /// Removes the lexical index and the sync state that describes it. Caller holds the lock.
    fn wipe(root: &RepoRoot) -> Result<(), IndexError> {
        for path in [Self::lexical_dir(root), sync::SyncState::path(root)] {
            // Whatever is there: a directory, a file, a FIFO or a symlink planted in its place.
            let removed = match std::fs::symlink_metadata(&path) {
                Ok(m) if m.is_dir() => std::fs::remove_dir_all(&path),
                _ => std::fs::remove_file(&path),
            };
            match removed {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(IndexError::Io { path, source: e });
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Opens (or creates) the index and a reader on it; [`IndexError::Corrupt`] when the index
    /// exists but its metadata or a segment file cannot be read. `locked`: the caller holds the
    /// sync lock (flock is per open file: taking it again here would wait forever).
    fn try_open(
        root: &RepoRoot,
        config: &Config,
        locked: bool,
        reload: ReloadPolicy,
    ) -> Result<Self, IndexError> {
        let lock = || -> Result<Option<FileLock>, IndexError> {
            Ok(if locked {
                None
            } else {
                Some(FileLock::acquire(&Self::lock_base(root))?)
            })
        };
        let dir = Self::lexical_dir(root);
        let (schema, fields) = lexical::schema();
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| IndexError::Io { path, source }
        };
        let corrupt = |source| IndexError::Corrupt {
            path: dir.clone(),
            source,
        };
        // tantivy opens its files with plain blocking calls: a FIFO among them would hang it.
        if std::fs::symlink_metadata(&dir).is_ok_and(|m| !m.is_dir()) {
            return Err(corrupt(tantivy::TantivyError::InvalidArgument(format!(
                "{} is not a directory",
                dir.display()
            ))));
        }
        if let Some(name) = foreign_entry(&dir) {
            return Err(corrupt(tantivy::TantivyError::InvalidArgument(format!(
                "{name} is not a regular file"
            ))));
        }
        let index = if dir.join("meta.json").exists() {
            let index = Index::open_in_dir(&dir).map_err(corrupt)?;
            if index.schema() == schema {
                index
            } else {
                // An older code-intel wrote this index. It is derived data: start over. The sync
                // state will not match the new index's commit, so the next sync is a full one.
                drop(index);
                let _lock = lock()?;
                std::fs::remove_dir_all(&dir).map_err(io(&dir))?;
                std::fs::create_dir_all(&dir).map_err(io(&dir))?;
                Self::create(&dir, schema)?
            }
        } else {
            // A missing meta.json with the index's other files, or with a sync state naming a
            // commit, is a damaged index, not a new one: creating an empty index here would
            // answer "no definitions" until something happened to sync (issue 40).
            if let Some(left) = orphaned_by_meta(&dir, &sync::SyncState::path(root)) {
                return Err(corrupt(tantivy::TantivyError::InvalidArgument(format!(
                    "meta.json is missing while {left}"
                ))));
            }
            std::fs::create_dir_all(&dir).map_err(io(&dir))?;
            let _lock = lock()?;
            if dir.join("meta.json").exists() {
                // Another process created it while we waited for the lock.
                Index::open_in_dir(&dir).map_err(corrupt)?
            } else {
                Self::create(&dir, schema)?
            }
        };
        lexical::register_tokenizers(&index);
        // Building the reader opens every segment of the last commit (each file's footer is
        // checked): a missing or garbled segment file shows here, not in the first search.
        let reader = index
            .reader_builder()
            .reload_policy(reload)
            .try_into()
            .map_err(corrupt)?;
        Ok(Self {
            root: root.clone(),
            config: config.clone(),
            index,
            reader,
            fields,
            repaired: None,
            lock_wait: sync::LOCK_WAIT,
            paths: std::sync::Mutex::new(None),
        })
    }

    fn create(dir: &Path, schema: tantivy::schema::Schema) -> Result<Index, IndexError> {
        Index::create_in_dir(dir, schema).map_err(|source| IndexError::Tantivy {
            action: "create",
            path: dir.to_path_buf(),
            source,
        })
    }

    /// Why this handle's index was rebuilt empty when it was opened ([`open`](Self::open) found
    /// it damaged, or [`rebuild`](Self::rebuild) was asked for); `None` for a healthy index.
    /// Callers show it (a warning on stderr, a `repaired` field in JSON).
    pub fn repaired(&self) -> Option<&str> {
        self.repaired.as_deref()
    }

    /// Checks every file of the last commit against its checksum (reads the whole index once:
    /// milliseconds per 10 MB), for what opening does not see: garbage inside a segment file
    /// whose footer is intact.
    ///
    /// # Errors
    /// [`IndexError::Corrupt`] naming the damaged files, or the read error.
    pub fn verify(&self) -> Result<(), IndexError> {
        let corrupt = |source| IndexError::Corrupt {
            path: Self::lexical_dir(&self.root),
            source,
        };
        let damaged = self.index.validate_checksum().map_err(corrupt)?;
        if damaged.is_empty() {
            return Ok(());
        }
        let mut names: Vec<String> = damaged.iter().map(|p| p.display().to_string()).collect();
        names.sort();
        Err(corrupt(tantivy::TantivyError::InvalidArgument(format!(
            "checksum mismatch in {}",
            names.join(", ")
        ))))
    }

    /// `<root>/.code-intel/index/lexical`.
    pub fn lexical_dir(root: &RepoRoot) -> PathBuf {
        root.state().lexical()
    }

    /// The path whose `.lock` sibling is the sync lock: `<root>/.code-intel/index/sync`.
    fn lock_base(root: &RepoRoot) -> PathBuf {
        root.state().sync_lock()
    }

    /// The repository root.
    pub fn root(&self) -> &RepoRoot {
        &self.root
    }

    /// Sets how long [`sync`](Self::sync) waits for another process's sync to finish before it
    /// gives up with [`IndexError::Busy`] (default [`sync::LOCK_WAIT`]).
    pub fn set_lock_wait(&mut self, wait: std::time::Duration) {
        self.lock_wait = wait;
    }

    /// The configuration the index was opened with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Brings the index up to date with the files on disk (see [`sync`] for the algorithm and
    /// its crash-safety argument). `progress` is called on this thread.
    ///
    /// When another process or thread is syncing this repository, waits for it (reporting
    /// [`SyncProgress::WaitingForLock`] once) up to the lock wait ([`sync::LOCK_WAIT`] unless
    /// [`set_lock_wait`](Self::set_lock_wait) changed it).
    ///
    /// # Errors
    /// [`IndexError::Busy`] when the other syncer still holds the lock after the wait;
    /// [`IndexError::ExcludePattern`] for a bad glob in the config; [`IndexError::Tantivy`] when
    /// the commit fails (nothing changed); [`IndexError::Persist`] when the state file cannot be
    /// written after the commit (the next sync rebuilds).
    pub fn sync(&self, progress: &mut dyn FnMut(SyncProgress)) -> Result<SyncReport, IndexError> {
        self.sync_observed(progress, None)
    }

    /// Merges the index's segments into one when any holds deleted documents, so BM25 statistics
    /// count only the documents the index holds (tantivy's own merge under the sync lock; it
    /// rewrites the whole index and publishes it atomically, keeping the commit payload the sync
    /// state names); `Ok(false)` when there were none. `code-intel eval --from-git` runs it
    /// after each snapshot's sync, so a query's ranks depend on its snapshot, not on the
    /// snapshots indexed before it.
    ///
    /// # Errors
    /// [`IndexError::Busy`] when another sync holds the lock too long, [`IndexError::Tantivy`]
    /// when the merge or the reload fails (the index is left as it was).
    pub fn merge_deleted(&self) -> Result<bool, IndexError> {
        let merged = sync::merge_deleted(&self.sync_context(None), &mut |_| {})?;
        if merged {
            self.reload()?;
        }
        Ok(merged)
    }

    /// What a sync or a merge of this index works with.
    fn sync_context<'a>(
        &'a self,
        on_chunks: Option<sync::ChunkObserver<'a>>,
    ) -> sync::SyncContext<'a> {
        sync::SyncContext {
            root: &self.root,
            config: &self.config,
            index: &self.index,
            fields: &self.fields,
            lock_base: Self::lock_base(&self.root),
            lock_wait: self.lock_wait,
            state_path: sync::SyncState::path(&self.root),
            on_chunks,
        }
    }

    /// Reloads the reader, so searches see the index's last commit.
    fn reload(&self) -> Result<(), IndexError> {
        self.reader.reload().map_err(|source| IndexError::Tantivy {
            action: "reload",
            path: Self::lexical_dir(&self.root),
            source,
        })
    }

    /// The share of deleted documents in each segment of the index as last loaded (0.0 to 1.0,
    /// one entry per segment): what BM25's statistics still count until the segment is merged
    /// (see [`Self::merge_deleted`]; a sync's merge policy keeps each at most 0.2).
    ///
    /// # Errors
    /// None today; the `Result` keeps the shape of the other index reads.
    pub fn deleted_ratios(&self) -> Result<Vec<f32>, IndexError> {
        Ok(self
            .reader
            .searcher()
            .segment_readers()
            .iter()
            .map(|r| {
                #[allow(clippy::cast_precision_loss)]
                let ratio = f64::from(r.num_deleted_docs()) / f64::from(r.max_doc().max(1));
                ratio as f32
            })
            .collect())
    }

    /// [`Self::sync`], showing every file it chunks to `on_chunks` (see [`sync::ChunkObserver`];
    /// e.g. [`vector::RowHandoff::offer`], so the vector refresh after the sync does not chunk
    /// the same files again).
    ///
    /// # Errors
    /// As [`Self::sync`].
    pub fn sync_observed(
        &self,
        progress: &mut dyn FnMut(SyncProgress),
        on_chunks: Option<sync::ChunkObserver<'_>>,
    ) -> Result<SyncReport, IndexError> {
        let started = std::time::Instant::now();
        let result = sync::run(&self.sync_context(on_chunks), progress);
        // Reload even when the run failed: its commit may have gone through (a failed state
        // write), and searches should see what the index holds.
        let reloaded = self.reload();
        let mut report = result?;
        reloaded?;
        report.chunks = self.reader.searcher().num_docs();
        report.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        Ok(report)
    }

    /// Whether the index is known to need a sync whatever the working tree holds: it was never
    /// synced, or its state does not describe it (another version, other chunker options).
    /// Whether files changed is [`sync::pending_changes`]'s question (or a sync's, which answers
    /// it with `stat` calls when nothing changed).
    pub fn needs_sync(&self) -> bool {
        let path = sync::SyncState::path(&self.root);
        let Some(state) = sync::SyncState::load(&path) else {
            return true;
        };
        !sync::state_matches_index(&state, &self.index, &self.config)
    }

    /// Ranked BM25F search over chunks with the default [`RankParams`] (see
    /// [`lexical::bm25_query_with`] for the query analysis). At most `top` chunks, best first,
    /// scored by BM25F alone (no file grouping); a query with no searchable term gives no hits.
    ///
    /// # Errors
    /// [`IndexError::Tantivy`] when the search itself fails (I/O on the index files).
    pub fn search(&self, query: &str, top: usize) -> Result<Vec<SearchHit>, IndexError> {
        self.search_chunks(query, top, &RankParams::default())
    }

    /// Ranked BM25F search over chunks with `params`' boosts and word weights; at most `top`
    /// chunks, best first.
    ///
    /// # Errors
    /// [`IndexError::Tantivy`] when the search itself fails.
    pub fn search_chunks(
        &self,
        query: &str,
        top: usize,
        params: &RankParams,
    ) -> Result<Vec<SearchHit>, IndexError> {
        let candidates =
            self.search_candidates(query, top, params, lexical::ColumnSet::default())?;
        let mut hits = candidates.hits;
        for (hit, &addr) in hits.iter_mut().zip(&candidates.addrs) {
            hydrate(&self.fields, &candidates.searcher, hit, addr)
                .map_err(|e| self.err("read", e))?;
        }
        Ok(hits)
    }

    /// [`Self::search_chunks`] with the hits read from fast fields only
    /// ([`lexical::column_chunks`]): their `qualified_name`, `signature` and `snippet` are
    /// empty until [`hydrate`] reads the stored document, which ranking does only for the hits
    /// it shows.
    pub(crate) fn search_candidates(
        &self,
        query: &str,
        top: usize,
        params: &RankParams,
        with: lexical::ColumnSet,
    ) -> Result<Candidates, IndexError> {
        let searcher = self.reader.searcher();
        let mut out = Candidates {
            hits: Vec::new(),
            addrs: Vec::new(),
            searcher,
            masks: Vec::new(),
            matched: Vec::new(),
            named_from: 0,
        };
        if top == 0 {
            return Ok(out);
        }
        let long = params.request_analysis > 0.0 && request::is_long(query);
        let RequestQuery {
            query: q,
            words,
            named: mentioned,
            after,
        } = if long {
            self.request_query(&out.searcher, query, params)?
        } else {
            let (q, words) = lexical::bm25_query_and_words(&self.fields, query, params);
            RequestQuery {
                query: q,
                words,
                named: Vec::new(),
                after: Vec::new(),
            }
        };
        let Some(q) = q else {
            return Ok(out);
        };
        let top = if long && params.req_candidates > 0 {
            top.min(params.req_candidates)
        } else {
            top
        };
        let searcher = &out.searcher;
        let mut top_docs = searcher
            .search(&q, &TopDocs::with_limit(top))
            .map_err(|e| self.err("search", e))?;
        if !after.is_empty() {
            top_docs = self.add_named_files(searcher, q.as_ref(), top_docs, &after, top)?;
        }
        let cover = if params.coverage > 0.0 || long {
            self.word_cover(searcher, &top_docs, &words)?
        } else {
            WordCover::default()
        };
        let addrs: Vec<tantivy::DocAddress> = top_docs.iter().map(|(_, a)| *a).collect();
        let chunks = self.column_chunks_of(searcher, &addrs, with)?;
        for ((score, addr), c) in top_docs.into_iter().zip(chunks) {
            out.hits.push(SearchHit {
                file: c.file,
                start_line: c.start_line,
                end_line: c.end_line,
                symbol: c.symbol,
                qualified_name: String::new(),
                kind: c.kind,
                language: c.language,
                score,
                signature: String::new(),
                snippet: None,
                sha256: c.sha256,
            });
            out.addrs.push(addr);
        }
        cover.apply(&mut out.hits, params);
        if long {
            let bits = words.len().min(WORD_BITS);
            out.matched = words
                .into_iter()
                .take(bits)
                .map(|w| (w.part, w.text))
                .collect();
            out.masks = cover.masks;
            out.named_from = out.matched.len();
            for (file, part, written) in mentioned {
                let bit = out.matched.len();
                if bit >= WORD_BITS {
                    break;
                }
                for (h, m) in out.hits.iter().zip(out.masks.iter_mut()) {
                    if h.file == file {
                        *m |= 1 << bit;
                    }
                }
                out.matched.push((part, written));
            }
        }
        Ok(out)
    }

    /// The query of a long request (see [`request`]): its words by weight × IDF (at most
    /// [`RankParams::req_words`]; IDF `ln(1 + N / df)`, df of the whole word's content term,
    /// else of its rarest part; words no chunk holds are left out), and the indexed files it
    /// names ([`Self::mentioned_files`]). Returns the query, its words, each named file with
    /// the part and text that named it, and, for a flat query
    /// ([`lexical::flat_request_query`]), the constant each named file's chunks get after the
    /// search (a per-field query holds them as clauses).
    fn request_query(
        &self,
        searcher: &Searcher,
        text: &str,
        params: &RankParams,
    ) -> Result<RequestQuery, IndexError> {
        let req = request::Request::analyse(text, params);
        let flat = lexical::flat_applies(text, params);
        let n = searcher.num_docs().max(1) as f32;
        // Document frequencies in the content field, summed over the segments (as
        // `Searcher::doc_freq`, each segment's dictionary opened once).
        let content = searcher
            .segment_readers()
            .iter()
            .map(|s| s.inverted_index(self.fields.content))
            .collect::<tantivy::Result<Vec<_>>>()
            .map_err(|e| self.err("search", e))?;
        let doc_freq = |term: &tantivy::Term| -> Result<u64, IndexError> {
            content.iter().try_fold(0u64, |sum, i| {
                i.doc_freq(term)
                    .map(|d| sum + u64::from(d))
                    .map_err(|e| self.err("search", e.into()))
            })
        };
        // Each word with its score, and its terms with their document frequencies.
        let mut scored: Vec<ScoredWord<'_>> = Vec::with_capacity(req.words.len());
        for w in &req.words {
            let terms = lexical::word_term_texts(&w.text);
            let mut dfs: Vec<(String, u64)> = Vec::with_capacity(terms.len());
            let mut df = 0u64;
            for (i, text) in terms.into_iter().enumerate() {
                let term = tantivy::Term::from_field_text(self.fields.content, &text);
                let d = doc_freq(&term)?;
                if flat {
                    dfs.push((text, d));
                }
                if d > 0 {
                    df = if df == 0 { d } else { df.min(d) };
                    if i == 0 && !flat {
                        break;
                    }
                }
            }
            // The whole word's df when the index holds it, else its rarest part's.
            if let Some(&(_, d)) = dfs.first()
                && d > 0
            {
                df = d;
            }
            if df == 0 {
                continue;
            }
            let generic = rank::word_weight(&w.text.to_lowercase(), params);
            scored.push((w, w.weight * generic * (1.0 + n / df as f32).ln(), dfs));
        }
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        scored.truncate(params.req_words.min(WORD_BITS - request::MAX_MENTIONS));
        let files = self.mentioned_files(searcher, &req.mentions, params)?;
        let boosts: Vec<(String, f32)> = files.iter().map(|(f, s, _, _)| (f.clone(), *s)).collect();
        let named = files.into_iter().map(|(f, _, p, w)| (f, p, w)).collect();
        if flat {
            let max_df = if params.req_max_df > 0.0 {
                params.req_max_df * n
            } else {
                f32::INFINITY
            };
            let words: Vec<lexical::FlatWord<'_>> = scored
                .iter()
                .map(|(w, _, dfs)| {
                    // The main term: the whole word when the index holds it, else its rarest
                    // part; terms no chunk holds are left out.
                    let main = match dfs.first() {
                        Some((_, d)) if *d > 0 => 0,
                        _ => dfs
                            .iter()
                            .enumerate()
                            .filter(|(_, (_, d))| *d > 0)
                            .min_by_key(|(_, (_, d))| *d)
                            .map_or(0, |(i, _)| i),
                    };
                    lexical::FlatWord {
                        text: w.text.as_str(),
                        part: w.part,
                        weight: w.weight,
                        terms: dfs
                            .iter()
                            .enumerate()
                            .filter(|(i, (_, d))| *d > 0 && (*i == main || *d as f32 <= max_df))
                            .map(|(i, (t, _))| {
                                let factor = if i == main {
                                    1.0
                                } else {
                                    lexical::WORD_TIE_BREAKER
                                };
                                (t.clone(), factor)
                            })
                            .collect(),
                    }
                })
                .collect();
            let (q, words) = lexical::flat_request_query(&self.fields, text, &words, params);
            return Ok(RequestQuery {
                query: q,
                words,
                named,
                after: boosts,
            });
        }
        let words: Vec<(&str, request::PartKind, f32)> = scored
            .iter()
            .map(|(w, _, _)| (w.text.as_str(), w.part, w.weight))
            .collect();
        let (q, words) = lexical::bm25_request_query(&self.fields, text, &words, &boosts, params);
        Ok(RequestQuery {
            query: q,
            words,
            named,
            after: Vec::new(),
        })
    }

    /// `top_docs` of `query` with the chunks of `files` (each with its constant) added: a
    /// chunk among them gets its constant added to its score, a chunk not among them its
    /// score under `query` (0 when it matches no term) plus the constant; the best `top`,
    /// ordered as [`TopDocs`] orders them (score, then address). The same chunks and scores as
    /// `query` with a constant-score clause per file, which block-max WAND cannot prune.
    fn add_named_files(
        &self,
        searcher: &Searcher,
        query: &dyn tantivy::query::Query,
        mut top_docs: Vec<(f32, tantivy::DocAddress)>,
        files: &[(String, f32)],
        top: usize,
    ) -> Result<Vec<(f32, tantivy::DocAddress)>, IndexError> {
        use tantivy::DocSet as _;
        let mut extra: std::collections::HashMap<tantivy::DocAddress, f32> =
            std::collections::HashMap::new();
        for (file, score) in files {
            if *score <= 0.0 {
                continue;
            }
            let docs = searcher
                .search(
                    &tantivy::query::TermQuery::new(
                        tantivy::Term::from_field_text(self.fields.path_key, file),
                        tantivy::schema::IndexRecordOption::Basic,
                    ),
                    &DocSetCollector,
                )
                .map_err(|e| self.err("search", e))?;
            for d in docs {
                extra.insert(d, *score);
            }
        }
        if extra.is_empty() {
            return Ok(top_docs);
        }
        for (s, a) in &mut top_docs {
            if let Some(c) = extra.remove(a) {
                *s += c;
            }
        }
        let mut rest: Vec<(tantivy::DocAddress, f32)> = extra.into_iter().collect();
        rest.sort_unstable_by_key(|(a, _)| *a);
        let weight = query
            .weight(tantivy::query::EnableScoring::enabled_from_searcher(
                searcher,
            ))
            .map_err(|e| self.err("search", e))?;
        let mut segment = None;
        let mut scorer: Option<Box<dyn tantivy::query::Scorer>> = None;
        for (addr, c) in rest {
            if segment != Some(addr.segment_ord) {
                segment = Some(addr.segment_ord);
                scorer = Some(
                    weight
                        .scorer(searcher.segment_reader(addr.segment_ord), 1.0)
                        .map_err(|e| self.err("search", e))?,
                );
            }
            let s = scorer.as_mut().map_or(0.0, |sc| {
                if sc.doc() <= addr.doc_id && sc.seek(addr.doc_id) == addr.doc_id {
                    sc.score()
                } else {
                    0.0
                }
            });
            top_docs.push((s + c, addr));
        }
        top_docs.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        top_docs.truncate(top);
        Ok(top_docs)
    }

    /// The indexed files `mentions` name ([`request::Mention::names`], read from the path
    /// terms of the index), each with its constant score: [`RankParams::path_mention`] × the
    /// part's weight × `ln(1 + N)` (the IDF of a term one chunk holds), divided among the files
    /// one mention names; a mention naming more than [`MAX_MENTIONED_FILES`] files (`index.ts`)
    /// names none. A file named twice keeps its largest score. Also the mention's part and text.
    fn mentioned_files(
        &self,
        searcher: &Searcher,
        mentions: &[request::Mention],
        params: &RankParams,
    ) -> Result<Vec<(String, f32, request::PartKind, String)>, IndexError> {
        if params.path_mention <= 0.0 || mentions.is_empty() {
            return Ok(Vec::new());
        }
        let table = self.path_table(searcher)?;
        let found: Vec<Vec<&str>> = mentions
            .iter()
            .map(|m| {
                table
                    .by_stem
                    .get(&path_stem(&m.path, m.has_extension))
                    .map(|paths| {
                        paths
                            .iter()
                            .filter(|p| m.names(p))
                            .take(MAX_MENTIONED_FILES + 1)
                            .map(String::as_str)
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .collect();
        let base = (1.0 + searcher.num_docs() as f32).ln();
        let mut out: Vec<(String, f32, request::PartKind, String)> = Vec::new();
        for (m, files) in mentions.iter().zip(found) {
            if files.is_empty() || files.len() > MAX_MENTIONED_FILES {
                continue;
            }
            let score = params.path_mention * m.part.weight(params) * base / files.len() as f32;
            for file in files {
                match out.iter_mut().find(|(f, ..)| *f == file) {
                    Some(e) if e.1 < score => {
                        *e = (file.to_string(), score, m.part, m.written.clone());
                    }
                    Some(_) => {}
                    None => out.push((file.to_string(), score, m.part, m.written.clone())),
                }
            }
        }
        Ok(out)
    }

    /// The [`PathTable`] of `searcher`'s segments: the one kept if they have not changed, else
    /// read from the `path_key` term dictionaries (every path, once) and kept.
    fn path_table(&self, searcher: &Searcher) -> Result<std::sync::Arc<PathTable>, IndexError> {
        let segments: Vec<tantivy::index::SegmentId> = searcher
            .segment_readers()
            .iter()
            .map(tantivy::SegmentReader::segment_id)
            .collect();
        let mut kept = self
            .paths
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(t) = kept.as_ref()
            && t.segments == segments
        {
            return Ok(std::sync::Arc::clone(t));
        }
        let mut by_stem: std::collections::HashMap<String, Vec<String>> =
            std::collections::HashMap::new();
        for segment in searcher.segment_readers() {
            let inverted = segment
                .inverted_index(self.fields.path_key)
                .map_err(|e| self.err("search", e))?;
            let mut stream = inverted
                .terms()
                .stream()
                .map_err(|e| self.err("search", e.into()))?;
            while stream.advance() {
                let Ok(path) = std::str::from_utf8(stream.key()) else {
                    continue;
                };
                let paths = by_stem.entry(path_stem(path, true)).or_default();
                if !paths.iter().any(|p| p == path) {
                    paths.push(path.to_string());
                }
            }
        }
        let table = std::sync::Arc::new(PathTable { segments, by_stem });
        *kept = Some(std::sync::Arc::clone(&table));
        Ok(table)
    }

    /// Which query words each of `top_docs` matches (any of the word's terms in any field), by
    /// seeking each term's posting list to the hits' documents, and each word's weight times
    /// its IDF (`ln(1 + N / df)`, df the largest of its terms').
    fn word_cover(
        &self,
        searcher: &Searcher,
        top_docs: &[(f32, tantivy::DocAddress)],
        words: &[lexical::QueryWord],
    ) -> Result<WordCover, IndexError> {
        use tantivy::DocSet as _;
        let mut cover = WordCover {
            masks: vec![0; top_docs.len()],
            weights: Vec::new(),
        };
        let mut by_segment: std::collections::BTreeMap<u32, Vec<(u32, usize)>> =
            std::collections::BTreeMap::new();
        for (i, (_, addr)) in top_docs.iter().enumerate() {
            by_segment
                .entry(addr.segment_ord)
                .or_default()
                .push((addr.doc_id, i));
        }
        by_segment
            .values_mut()
            .for_each(|docs| docs.sort_unstable());
        let n = searcher.num_docs().max(1) as f32;
        // Each (segment, field)'s inverted index, opened once.
        let mut inverted: Vec<(
            (u32, tantivy::schema::Field),
            std::sync::Arc<tantivy::InvertedIndexReader>,
        )> = Vec::new();
        let segments = u32::try_from(searcher.segment_readers().len()).unwrap_or(u32::MAX);
        for (w, word) in words.iter().take(WORD_BITS).enumerate() {
            let mut df = 0u64;
            for term in &word.terms {
                // One dictionary lookup per segment gives the term's document frequency and,
                // where hits are, its postings.
                let mut term_df = 0u64;
                for seg in 0..segments {
                    let key = (seg, term.field());
                    let index = match inverted.iter().find(|(k, _)| *k == key) {
                        Some((_, i)) => std::sync::Arc::clone(i),
                        None => {
                            let i = searcher
                                .segment_reader(seg)
                                .inverted_index(term.field())
                                .map_err(|e| self.err("search", e))?;
                            inverted.push((key, std::sync::Arc::clone(&i)));
                            i
                        }
                    };
                    let Some(info) = index
                        .get_term_info(term)
                        .map_err(|e| self.err("search", e.into()))?
                    else {
                        continue;
                    };
                    term_df += u64::from(info.doc_freq);
                    let Some(docs) = by_segment.get(&seg) else {
                        continue;
                    };
                    let mut postings = index
                        .read_postings_from_terminfo(
                            &info,
                            tantivy::schema::IndexRecordOption::Basic,
                        )
                        .map_err(|e| self.err("search", e.into()))?;
                    for &(doc, i) in docs {
                        if postings.doc() <= doc && postings.seek(doc) == doc {
                            cover.masks[i] |= 1 << w;
                        }
                    }
                }
                df = df.max(term_df);
            }
            cover
                .weights
                .push(word.weight * (1.0 + n / df.max(1) as f32).ln());
        }
        Ok(cover)
    }

    /// Ranked search by file, the pipeline of [`rank`]: BM25F over chunks, role factors, files
    /// ranked by their best chunk plus their next ones. At most `top` distinct files, best first,
    /// each with its best chunk and up to [`rank::MAX_FOLDED`] other matching chunks.
    ///
    /// # Errors
    /// [`IndexError::Tantivy`] when the search fails.
    pub fn search_files(
        &self,
        query: &str,
        top: usize,
        params: &RankParams,
    ) -> Result<Vec<FileHit>, IndexError> {
        if top == 0 {
            return Ok(Vec::new());
        }
        let (groups, searcher) = self.ranked_groups(query, top, params)?;
        // Only the shown chunks' stored documents are read.
        let read = |(mut hit, addr): (SearchHit, Option<tantivy::DocAddress>)| {
            if let Some(addr) = addr {
                hydrate(&self.fields, &searcher, &mut hit, addr)
                    .map_err(|e| self.err("read", e))?;
            }
            Ok::<_, IndexError>(hit)
        };
        let groups = groups
            .into_iter()
            .map(|g| {
                Ok(rank::Grouped {
                    score: g.score,
                    best: read(g.best)?,
                    rest: g
                        .rest
                        .into_iter()
                        .map(|(t, s)| Ok((read(t)?, s)))
                        .collect::<Result<_, IndexError>>()?,
                })
            })
            .collect::<Result<Vec<_>, IndexError>>()?;
        Ok(rank::files_of(groups))
    }

    /// The files of a ranked search for `query` in rank order ([`Self::search_files`]'s order,
    /// every file among its candidates: at most `RankParams::candidates` files), without reading
    /// any stored document: what relevance-ordered exploration sorts by. Empty for a query with
    /// no searchable term.
    ///
    /// # Errors
    /// [`IndexError::Tantivy`] when the search fails.
    pub fn ranked_file_order(
        &self,
        query: &str,
        params: &RankParams,
    ) -> Result<Vec<String>, IndexError> {
        let (groups, _) = self.ranked_groups(query, params.candidates, params)?;
        Ok(groups.into_iter().map(|g| g.best.0.file).collect())
    }

    /// The grouped, framework-reranked files of a ranked search (at most `top`), their chunks
    /// read from fast fields only, with the searcher they came from.
    #[allow(clippy::type_complexity)]
    fn ranked_groups(
        &self,
        query: &str,
        top: usize,
        params: &RankParams,
    ) -> Result<
        (
            Vec<rank::Grouped<(SearchHit, Option<tantivy::DocAddress>)>>,
            tantivy::Searcher,
        ),
        IndexError,
    > {
        let named = rank::code_names(query);
        let candidates = self.search_candidates(
            query,
            params.candidates.max(top),
            params,
            lexical::ColumnSet {
                symbol: params.named_pick > 0.0 && !named.is_empty(),
                sha256: false,
            },
        )?;
        let items: Vec<(SearchHit, Option<tantivy::DocAddress>)> = candidates
            .hits
            .into_iter()
            .zip(candidates.addrs.into_iter().map(Some))
            .collect();
        let groups = rank::group_files(
            items,
            |(h, _)| {
                let mut v = h.rank_view();
                v.named = !h.symbol.is_empty() && named.contains(&h.symbol);
                v
            },
            self.file_chunk_counter(),
            params,
            Self::framework_pool(params, top),
        );
        let groups = self.framework_rerank(
            groups,
            |(h, _)| h.file.as_str(),
            |c, score| (SearchHit::from_stored(c, score), None),
            params,
            top,
        );
        Ok((groups, candidates.searcher))
    }

    /// How many files to group before [`framework_rerank`](Self::framework_rerank) cuts to
    /// `top`: more than asked when framework links are on (a linked file below the cut may rise).
    pub fn framework_pool(params: &RankParams, top: usize) -> usize {
        if params.framework_link > 0.0 {
            top.max(FRAMEWORK_POOL)
        } else {
            top
        }
    }

    /// The framework keys a file provides and its links, as indexed (empty when the file is not
    /// indexed or no strategy found anything; see [`framework`]).
    ///
    /// # Errors
    /// [`IndexError::Tantivy`] when the search fails.
    pub fn framework_facts(
        &self,
        path: &str,
    ) -> Result<(Vec<String>, Vec<framework::Link>), IndexError> {
        let searcher = self.reader.searcher();
        let docs = searcher
            .search(&*lexical::facts_query(&self.fields, path), &DocSetCollector)
            .map_err(|e| self.err("search", e))?;
        let (mut provides, mut links) = (Vec::new(), Vec::new());
        for addr in docs {
            let doc: TantivyDocument = searcher.doc(addr).map_err(|e| self.err("read", e))?;
            let (p, l) = lexical::stored_framework(&self.fields, &doc);
            provides.extend(p);
            links.extend(l);
        }
        provides.sort();
        provides.dedup();
        links.sort();
        links.dedup();
        Ok((provides, links))
    }

    /// The files linked to `path` by framework links, both ways (see [`framework::Neighbor`]),
    /// sorted. A key shared by more than `max_per_key` files on the other side is left out (a
    /// base class every model extends, a layout every view extends links everything to
    /// everything); `usize::MAX` keeps all.
    ///
    /// # Errors
    /// [`IndexError::Tantivy`] when the search fails.
    pub fn framework_neighbors(
        &self,
        path: &str,
        max_per_key: usize,
    ) -> Result<Vec<framework::Neighbor>, IndexError> {
        self.neighbors_where(path, max_per_key, |_| true)
    }

    /// [`Self::framework_neighbors`] by the links whose kind `keep` accepts. Nothing but the
    /// file's facts document is read: the other side's paths come from the path column and
    /// incoming kinds from the indexed `kind target` terms.
    fn neighbors_where(
        &self,
        path: &str,
        max_per_key: usize,
        keep: impl Fn(&str) -> bool,
    ) -> Result<Vec<framework::Neighbor>, IndexError> {
        let (provides, links) = self.framework_facts(path)?;
        let searcher = self.reader.searcher();
        let docs_of = |q: &dyn tantivy::query::Query| {
            searcher
                .search(q, &DocSetCollector)
                .map_err(|e| self.err("search", e))
        };
        let mut out = Vec::new();
        for link in links.iter().filter(|l| keep(&l.kind)) {
            let docs = docs_of(&*lexical::provides_query(&self.fields, &link.target))?;
            if docs.len() > max_per_key {
                continue;
            }
            for file in self.paths_of(&searcher, docs)? {
                out.push(framework::Neighbor {
                    file,
                    kind: link.kind.clone(),
                    key: link.target.clone(),
                    outgoing: true,
                });
            }
        }
        for key in &provides {
            let linkers = searcher
                .search(
                    &*lexical::links_query(&self.fields, key),
                    &tantivy::collector::Count,
                )
                .map_err(|e| self.err("search", e))?;
            if linkers > max_per_key {
                continue;
            }
            for (kind, _, _) in framework::KINDS
                .iter()
                .filter(|(k, _, _)| *k != framework::COMPANION && keep(k))
            {
                let docs = docs_of(&*lexical::link_query(&self.fields, kind, key))?;
                for file in self.paths_of(&searcher, docs)? {
                    out.push(framework::Neighbor {
                        file,
                        kind: (*kind).to_string(),
                        key: key.clone(),
                        outgoing: false,
                    });
                }
            }
        }
        // A template or stylesheet belongs to the script of its name beside it (one link, from
        // the template's side only: a hit on the script does not bring its stylesheet along).
        if keep(framework::COMPANION) {
            for script in framework::companion_scripts(path) {
                let found = searcher
                    .search(
                        &*lexical::file_query(&self.fields, &script),
                        &tantivy::collector::Count,
                    )
                    .map_err(|e| self.err("search", e))?;
                if found > 0 {
                    out.push(framework::Neighbor {
                        key: script.clone(),
                        file: script,
                        kind: framework::COMPANION.to_string(),
                        outgoing: true,
                    });
                    break;
                }
            }
        }
        out.retain(|n| n.file != path);
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// The paths of `docs`, from the path column (no stored document read).
    fn paths_of(
        &self,
        searcher: &Searcher,
        docs: std::collections::HashSet<tantivy::DocAddress>,
    ) -> Result<Vec<String>, IndexError> {
        let addrs: Vec<tantivy::DocAddress> = docs.into_iter().collect();
        let chunks = self.column_chunks_of(searcher, &addrs, lexical::ColumnSet::default())?;
        Ok(chunks.into_iter().map(|c| c.file).collect())
    }

    /// The ranking fields of the documents at `addrs` from the fast-field columns
    /// ([`lexical::column_chunks`], one pass per segment), in the order of `addrs`.
    fn column_chunks_of(
        &self,
        searcher: &Searcher,
        addrs: &[tantivy::DocAddress],
        with: lexical::ColumnSet,
    ) -> Result<Vec<lexical::ColumnChunk>, IndexError> {
        let mut order: Vec<usize> = (0..addrs.len()).collect();
        order.sort_by_key(|&i| addrs[i]);
        let mut out: Vec<Option<lexical::ColumnChunk>> = vec![None; addrs.len()];
        for seg in order.chunk_by(|&a, &b| addrs[a].segment_ord == addrs[b].segment_ord) {
            let ids: Vec<tantivy::DocId> = seg.iter().map(|&i| addrs[i].doc_id).collect();
            let chunks = lexical::column_chunks(
                &self.fields,
                searcher.segment_reader(addrs[seg[0]].segment_ord),
                &ids,
                with,
            )
            .map_err(|e| self.err("read", e))?;
            for (&i, c) in seg.iter().zip(chunks) {
                out[i] = Some(c);
            }
        }
        // `column_chunks` gives one chunk per document, so every place is filled.
        Ok(out.into_iter().flatten().collect())
    }

    /// The chunk that stands for `path` when a framework link brings the file into a ranking:
    /// its first chunk that is not the whole file, else the module chunk (`None` when the file
    /// has no chunk). Only that chunk's stored document is read.
    fn first_chunk_of(&self, path: &str) -> Result<Option<StoredChunk>, IndexError> {
        let searcher = self.reader.searcher();
        let docs = searcher
            .search(&*lexical::file_query(&self.fields, path), &DocSetCollector)
            .map_err(|e| self.err("search", e))?;
        let mut addrs: Vec<tantivy::DocAddress> = docs.into_iter().collect();
        // Index order, so that equal keys pick the same chunk every time.
        addrs.sort();
        let chunks = self.column_chunks_of(&searcher, &addrs, lexical::ColumnSet::default())?;
        let Some((addr, _)) = addrs
            .into_iter()
            .zip(chunks)
            .min_by_key(|(_, c)| (c.kind == ChunkKind::Module, c.start_line))
        else {
            return Ok(None);
        };
        let doc: TantivyDocument = searcher.doc(addr).map_err(|e| self.err("read", e))?;
        Ok(Some(lexical::stored_chunk(&self.fields, &doc)))
    }

    /// The files whose framework links target `key` (`class:App\Models\Post`, `view:posts.show`),
    /// with the kind of each link, sorted; at most `limit` documents are read (the count is
    /// the second value).
    ///
    /// # Errors
    /// [`IndexError::Tantivy`] when the search fails.
    pub fn framework_linkers(
        &self,
        key: &str,
        limit: usize,
    ) -> Result<(Vec<framework::Neighbor>, usize), IndexError> {
        let (docs, total) = self.collect_docs(&*lexical::links_query(&self.fields, key), limit)?;
        let mut out = Vec::new();
        for doc in docs {
            let file = doc
                .get_first(self.fields.path_key)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string();
            let (_, links) = lexical::stored_framework(&self.fields, &doc);
            for l in links.into_iter().filter(|l| l.target == key) {
                out.push(framework::Neighbor {
                    file: file.clone(),
                    kind: l.kind,
                    key: key.to_string(),
                    outgoing: false,
                });
            }
        }
        out.sort();
        out.dedup();
        Ok((out, total))
    }

    /// The files that provide `key` (a class's file, a view's Blade file, a table's
    /// migrations), sorted.
    ///
    /// # Errors
    /// [`IndexError::Tantivy`] when the search fails.
    pub fn framework_providers(&self, key: &str) -> Result<Vec<String>, IndexError> {
        let (docs, _) = self.collect_docs(&*lexical::provides_query(&self.fields, key), 100)?;
        let mut out: Vec<String> = docs
            .iter()
            .filter_map(|d| d.get_first(self.fields.path_key).and_then(|v| v.as_str()))
            .map(str::to_string)
            .collect();
        out.sort();
        out.dedup();
        Ok(out)
    }

    fn collect_docs(
        &self,
        q: &dyn tantivy::query::Query,
        limit: usize,
    ) -> Result<(Vec<TantivyDocument>, usize), IndexError> {
        let searcher: Searcher = self.reader.searcher();
        let docs = searcher
            .search(q, &DocSetCollector)
            .map_err(|e| self.err("search", e))?;
        let total = docs.len();
        let mut addrs: Vec<_> = docs.into_iter().collect();
        addrs.sort();
        let docs = addrs
            .into_iter()
            .take(limit)
            .map(|a| searcher.doc(a).map_err(|e| self.err("read", e)))
            .collect::<Result<_, _>>()?;
        Ok((docs, total))
    }

    /// Re-ranks grouped files with the framework links ([`framework::link_bonus`],
    /// [`RankParams::framework_link`]): the first [`FRAMEWORK_SEEDS`] files lend part of their
    /// score to the files they link to or are linked from; a linked file that was not among the
    /// groups joins with its first chunk as representative (`join` builds the item from the
    /// chunk and the file's score). A linked file's share is scaled by its role factor (tests,
    /// docs, translations). Keeps at most `top` files, best first. With
    /// `framework_link` 0 only the cut to `top` is applied.
    pub fn framework_rerank<T>(
        &self,
        mut groups: Vec<rank::Grouped<T>>,
        file_of: impl Fn(&T) -> &str,
        join: impl Fn(StoredChunk, f32) -> T,
        params: &RankParams,
        top: usize,
    ) -> Vec<rank::Grouped<T>> {
        if params.framework_link <= 0.0 || groups.is_empty() {
            groups.truncate(top);
            return groups;
        }
        let ranked: Vec<(String, f32)> = groups
            .iter()
            .map(|g| (file_of(&g.best).to_string(), g.score))
            .collect();
        let mut bonus =
            framework::link_bonus(&ranked, FRAMEWORK_SEEDS, params.framework_link, |f| {
                // Links of kinds without a ranking weight would add nothing.
                self.neighbors_where(f, FRAMEWORK_MAX_PER_KEY, |k| {
                    framework::kind_weight(k) > 0.0
                })
                .unwrap_or_default()
            });
        // A linked test, doc or translation file gets its role's share, as its own chunks do.
        for (file, b) in &mut bonus {
            *b *= params.role_factor(scope::FileRole::of(file));
        }
        for (g, (file, _)) in groups.iter_mut().zip(&ranked) {
            if let Some(b) = bonus.get(file) {
                g.score += b;
            }
        }
        let present: std::collections::HashSet<&String> = ranked.iter().map(|(f, _)| f).collect();
        let mut joining: Vec<(&String, &f32)> =
            bonus.iter().filter(|(f, _)| !present.contains(f)).collect();
        joining.sort_by(|a, b| b.1.total_cmp(a.1).then_with(|| a.0.cmp(b.0)));
        for (file, b) in joining.into_iter().take(top) {
            if let Ok(Some(c)) = self.first_chunk_of(file) {
                groups.push(rank::Grouped {
                    score: *b,
                    best: join(c, *b),
                    rest: Vec::new(),
                });
            }
        }
        groups.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| file_of(&a.best).cmp(file_of(&b.best)))
        });
        groups.truncate(top);
        groups
    }

    /// Definition candidates for `name` (see [`NameMatch`]), restricted to `scope` (a
    /// repo-relative file or directory; `None` or `""` = everywhere) and `language`, excluding
    /// module and window chunks. Returns at most `limit` chunks in index order and the total
    /// number of matches.
    ///
    /// # Errors
    /// [`IndexError::Tantivy`] when the search fails.
    pub fn definitions(
        &self,
        name: &str,
        how: NameMatch,
        scope: Option<&str>,
        language: Option<&str>,
        limit: usize,
    ) -> Result<(Vec<StoredChunk>, usize), IndexError> {
        let q = lexical::definition_query(&self.fields, name, how, scope, language)
            .map_err(|e| self.err("search", e))?;
        self.collect(&*q, limit)
    }

    /// The qualified names of every definition the index holds (classes, functions, methods,
    /// ...), in index order: the repository's symbols that the relevance background samples
    /// (`relevance::Background::from_symbols`). One index scan that keeps only the names: each
    /// stored document is read and dropped in turn (holding every definition's document at once
    /// took about 170 MiB on spring-framework's 143k chunks, and glibc kept most of it resident).
    ///
    /// # Errors
    /// [`IndexError::Tantivy`] when the search fails.
    pub fn defined_symbols(&self) -> Result<Vec<String>, IndexError> {
        let q = lexical::definition_query(&self.fields, "", NameMatch::Substring, None, None)
            .map_err(|e| self.err("search", e))?;
        let searcher: Searcher = self.reader.searcher();
        let mut addrs: Vec<_> = searcher
            .search(&*q, &DocSetCollector)
            .map_err(|e| self.err("search", e))?
            .into_iter()
            .collect();
        addrs.sort();
        addrs
            .into_iter()
            .map(|a| {
                let doc: TantivyDocument = searcher.doc(a).map_err(|e| self.err("read", e))?;
                Ok(doc
                    .get_first(self.fields.qualified_name)
                    .and_then(|v| v.as_str())
                    .unwrap_or_default()
                    .to_string())
            })
            .collect()
    }

    /// All chunks of one file (repo-relative path), in no particular order.
    ///
    /// # Errors
    /// [`IndexError::Tantivy`] when the search fails.
    pub fn chunks_of(&self, path: &str) -> Result<Vec<StoredChunk>, IndexError> {
        let q = lexical::file_query(&self.fields, path);
        Ok(self.collect(&*q, usize::MAX)?.0)
    }

    fn collect(
        &self,
        q: &dyn tantivy::query::Query,
        limit: usize,
    ) -> Result<(Vec<StoredChunk>, usize), IndexError> {
        let (docs, total) = self.collect_docs(q, limit)?;
        let chunks = docs
            .iter()
            .map(|doc| lexical::stored_chunk(&self.fields, doc))
            .collect();
        Ok((chunks, total))
    }

    /// A counter of a file's chunks (repository-relative path) in the index as of now: one
    /// term-dictionary lookup per segment and call, all on one searcher. 0 when the file has none
    /// or the lookup fails.
    pub fn file_chunk_counter(&self) -> impl Fn(&str) -> u64 + use<> {
        let searcher = self.reader.searcher();
        let field = self.fields.path_key;
        move |file| {
            searcher
                .doc_freq(&tantivy::Term::from_field_text(field, file))
                .unwrap_or(0)
        }
    }

    /// Number of chunks whose content holds `term` as indexed (lower-cased whole identifiers and
    /// their parts, see [`lexical::CodeTokenizer`]): a cheap reference count for a symbol name,
    /// one term-dictionary lookup per segment. Used by hybrid ranking's reference signal.
    ///
    /// # Errors
    /// [`IndexError::Tantivy`] when the term dictionary cannot be read.
    pub fn content_doc_freq(&self, term: &str) -> Result<u64, IndexError> {
        let searcher = self.reader.searcher();
        searcher
            .doc_freq(&tantivy::Term::from_field_text(
                self.fields.content,
                &lexical::stem(term),
            ))
            .map_err(|e| self.err("read", e))
    }

    /// The repository-relative paths of the files the index holds chunks of, as of the last
    /// sync, sorted. Empty when the sync state is missing or unreadable (the next sync rebuilds
    /// it).
    pub fn indexed_files(&self) -> Vec<String> {
        let state = sync::SyncState::load(&sync::SyncState::path(&self.root));
        let mut files: Vec<String> = state
            .map(|s| {
                s.files
                    .iter()
                    .filter(|(_, f)| f.chunks > 0)
                    .map(|(p, _)| p.clone())
                    .collect()
            })
            .unwrap_or_default();
        files.sort_unstable();
        files
    }

    /// The directories a [`watch::TreeWatch`] should watch for this index (absolute): those the
    /// last sync's walk entered (its stamp), or, when it left none, the root and the directories
    /// of every file the sync state lists, with their ancestors. Empty without a sync state.
    pub fn watched_dirs(&self) -> Vec<PathBuf> {
        let Some(state) = sync::SyncState::load(&sync::SyncState::path(&self.root)) else {
            return Vec::new();
        };
        if let Some(walk) = &state.walk {
            return walk.dirs.keys().map(PathBuf::from).collect();
        }
        let mut dirs = std::collections::BTreeSet::new();
        dirs.insert(self.root.path().to_path_buf());
        for rel in state.files.keys().chain(state.out_of_scope.keys()) {
            let mut dir = Path::new(rel.as_str()).parent();
            while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
                if !dirs.insert(self.root.path().join(d)) {
                    break;
                }
                dir = d.parent();
            }
        }
        dirs.into_iter().collect()
    }

    /// Files, chunks and the time of the last sync. Never fails: unreadable parts count as zero.
    pub fn stats(&self) -> IndexStats {
        let path = sync::SyncState::path(&self.root);
        let state = sync::SyncState::load(&path);
        IndexStats {
            files: state
                .as_ref()
                .map_or(0, |s| s.files.values().filter(|f| f.chunks > 0).count()),
            chunks: self.reader.searcher().num_docs(),
            skipped: state.as_ref().map(skip_counts).unwrap_or_default(),
            not_indexed: state.as_ref().map_or(0, |s| {
                s.out_of_scope.len() + s.files.values().filter(|f| f.skipped.is_some()).count()
            }),
            last_sync: state.and_then(|_| sync::SyncState::last_sync(&path)),
        }
    }

    fn err(&self, action: &'static str, source: tantivy::TantivyError) -> IndexError {
        IndexError::Tantivy {
            action,
            path: Self::lexical_dir(&self.root),
            source,
        }
    }
}
