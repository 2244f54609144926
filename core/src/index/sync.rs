//! Incremental sync: walks the repository, finds added, modified and deleted files (size and
//! mtime first, then SHA-256), re-chunks what changed, commits it to the lexical index, and only
//! then records `sync_state.json`.
//!
//! Crash safety. The state file names the tantivy commit it describes (`commit`, also stored as
//! the commit's payload in tantivy's `meta.json`). A sync that dies before its commit leaves the
//! previous commit and state, which still agree. One that dies between commit and state write
//! leaves a state naming an older commit: the next sync sees the mismatch and rebuilds the index
//! from scratch, so no change is ever lost and the result equals a from-scratch build. The same
//! holds for a deleted or hand-edited state file, a deleted index, a state of another version,
//! and changed chunking options.
//!
//! Racy mtimes. File systems stamp mtimes from a coarse clock, so a file rewritten right after
//! it was read can keep its size and mtime. As in git's "racy clean" rule, an entry whose mtime
//! is less than [`RACY_WINDOW_NS`] older than the moment it was read is not trusted: the file
//! is hashed again (and re-chunked only if the hash differs).
//!
//! Cost of a sync that finds nothing: reading the state, one `stat` per directory and ignore
//! file of the last walk ([`WalkStamp`]: when all are unchanged, a new walk would find the same
//! files, so none is done), one `stat` per file, and touching the state file, whose mtime is the
//! last-sync time ([`SyncState::last_sync`]); no file content is read and nothing is rewritten.
//! Otherwise the walk (directory reads and one `stat` per file, on two threads) runs as well.

mod stamp;

pub use stamp::WalkStamp;

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use ignore::overrides::OverrideBuilder;
use ignore::{WalkBuilder, WalkState};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tantivy::schema::TantivyDocument;
use tantivy::{Index, IndexWriter, Term};

use super::chunk::{ChunkOptions, SkipReason, chunk_source};
use super::framework::Frameworks;
use super::lexical::{self, Fields};
use super::scope;
use super::source::{self, SourceError};
use super::{IndexError, SkippedFile, SyncProgress, SyncReport, SyncTimings};
use code_intel_session::config::Config;
use code_intel_session::persist::{self, FileLock};
use code_intel_session::repo_path::{RepoRoot, relative_slash};

/// File name of the sync state inside `.code-intel/`.
pub const STATE_FILE: &str = "sync_state.json";
/// Version of the state file format; another version is treated as no state (full rebuild).
pub const STATE_VERSION: u32 = 1;
/// An entry whose mtime is within this many nanoseconds before its read time is re-hashed
/// (2 s: covers the coarsest common mtime granularity, FAT's 2 s; ext4/xfs/APFS are finer).
pub const RACY_WINDOW_NS: i64 = 2_000_000_000;
/// Memory budget of the tantivy writer's indexing thread for a large sync, bytes. tantivy flushes
/// a segment when its arena reaches this size, so it bounds the writer's heap. 64 MB keeps a full
/// index of a 10k-file repository to a few segments (fewer merges) and well inside the 300 MiB
/// budget of the whole process.
const WRITER_HEAP_BYTES: usize = 64_000_000;
/// Memory budget for a small sync (tantivy's minimum, 15 MB): the writer sizes its term hash
/// table from the budget and zeroes it up front, which a one-file sync would pay for nothing.
const SMALL_WRITER_HEAP_BYTES: usize = 15_000_000;
/// A sync reading at most this many bytes of files uses [`SMALL_WRITER_HEAP_BYTES`].
const SMALL_SYNC_BYTES: u64 = 4 << 20;
/// Threads of the directory walk.
const WALK_THREADS: usize = 2;
/// Indexing threads of the tantivy writer. Chunking (tree-sitter) runs on the other core(s).
const WRITER_THREADS: usize = 1;
/// Merge threads of the tantivy writer (tantivy's default is 4): one is enough for the merges a
/// sync's few segments need, and keeps the other core for chunking.
const MERGE_THREADS: usize = 1;
/// Share of a segment's documents that may be deleted before tantivy's merge policy rewrites
/// it (tantivy's default, 1.0, never does: a large segment kept the documents of every file
/// edited since it was written in its BM25 statistics). 0.2 is the least Lucene's
/// `TieredMergePolicy` allows for its `deletesPctAllowed` (20 %; default 33 %).
const DELETED_RATIO_BEFORE_MERGE: f32 = 0.2;
/// How long a sync waits for another process's sync (the sync lock) before it reports
/// [`IndexError::Busy`] (60 s: a full index of a 10k-file repository takes well under that).
pub const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(60);
/// Poll interval while waiting for the sync lock.
const LOCK_POLL: std::time::Duration = std::time::Duration::from_millis(50);
/// Upper bound of `sync_state.json` when read (an entry is about 200 bytes: millions of files).
const MAX_STATE_BYTES: u64 = 1 << 30;

/// The bytes of the state file at `path`, through [`persist::read_regular`]: `Ok(None)` when
/// there is none, an error when something else than a regular file is there (a plain read of a
/// FIFO planted there would block forever) or it cannot be read.
fn read_state(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    persist::read_regular(path, MAX_STATE_BYTES)
}

/// What the index holds, per file. Persisted as `.code-intel/sync_state.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncState {
    /// Format version, [`STATE_VERSION`].
    pub version: u32,
    /// Id of the tantivy commit this state describes (the commit's payload).
    pub commit: String,
    /// Fingerprint of everything besides file content that shapes the chunks (see
    /// [`options_fingerprint`]); a change forces a full rebuild.
    pub options: String,
    /// Per file, keyed by repository-relative `/`-separated path.
    pub files: BTreeMap<String, FileState>,
    /// Paths the walk left out by the scope rules (a vendored directory once, not its files; lock
    /// and minified files by name), with the reason ([`scope::ScopeSkip::reason`]); also names
    /// that are not valid UTF-8, unreadable directories, and files that could not be read (retried
    /// by every sync). Files skipped after reading (binary, too large, minified or generated by
    /// content) are in [`files`](Self::files) with their `skipped` reason.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub out_of_scope: BTreeMap<String, String>,
    /// The framework strategies the index was built with ([`Frameworks::fingerprint`]: names
    /// such as `php`, `laravel`, then the root's PSR-4 mapping); when the project markers
    /// select others or the mapping changes, the next sync rebuilds.
    #[serde(default)]
    pub frameworks: Vec<String>,
    /// What the last full walk saw besides the files ([`WalkStamp`]), so that a sync can skip the
    /// walk when nothing it depends on changed; `None` when the last walk was too recent to trust
    /// or a file it found is not in [`files`](Self::files) (a read error to retry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub walk: Option<WalkStamp>,
}

/// The state of one file as last indexed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileState {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
    /// Lowercase hex SHA-256 of the file bytes.
    pub sha256: String,
    /// Chunks of this file in the index (0 when skipped).
    pub chunks: u32,
    /// When the file was read for this entry.
    pub indexed_at: jiff::Timestamp,
    /// Why the file is not indexed, when it is not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Why a file with a grammar is indexed as line windows instead of symbols (a parser budget
    /// exceeded: `parser budget exceeded (…)`, see [`chunk::fallback_reason`](super::chunk::fallback_reason)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

impl SyncState {
    /// `<root>/.code-intel/sync_state.json`.
    pub fn path(root: &RepoRoot) -> PathBuf {
        root.state().sync_state()
    }

    /// Loads the state; `None` when missing, unreadable, not valid JSON, or of another version
    /// (all of which mean "rebuild").
    pub fn load(path: &Path) -> Option<Self> {
        Self::from_bytes(&read_state(path).ok()??)
    }

    /// [`load`](Self::load) from the file's bytes.
    fn from_bytes(bytes: &[u8]) -> Option<Self> {
        let state: Self = serde_json::from_slice(bytes).ok()?;
        (state.version == STATE_VERSION).then_some(state)
    }

    /// The commit the state at `path` describes, as [`load`](Self::load) would give it, without
    /// building the state: the other fields are only scanned (Laravel's 1,879 entries: the full
    /// parse took 1.8 ms of a 12 ms no-change `code-intel index`). `None` as for `load`, except
    /// that a state whose other fields are valid JSON of the wrong shape still names its commit.
    pub fn load_commit(path: &Path) -> Option<String> {
        #[derive(Deserialize)]
        struct Head {
            version: u32,
            commit: String,
        }
        let bytes = read_state(path).ok()??;
        let head: Head = serde_json::from_slice(&bytes).ok()?;
        (head.version == STATE_VERSION).then_some(head.commit)
    }

    /// Why the state file at `path` is damaged: it exists but does not parse, has a version
    /// this code does not know, or cannot be read (not a regular file: a FIFO, a directory). `None` when it is missing or fine. (Either way [`load`](Self::load)
    /// gives `None` and the next sync rebuilds; this tells the two apart for the message.)
    pub fn damage(path: &Path) -> Option<String> {
        let bytes = match read_state(path) {
            Ok(bytes) => bytes?,
            Err(e) => return Some(format!("{STATE_FILE} cannot be read ({e})")),
        };
        match serde_json::from_slice::<Self>(&bytes) {
            Err(e) => Some(format!("{STATE_FILE} does not parse ({e})")),
            Ok(s) if s.version != STATE_VERSION => {
                Some(format!("{STATE_FILE} has unknown version {}", s.version))
            }
            Ok(_) => None,
        }
    }

    /// When the last sync ended: the mtime of the state file (a sync that changed nothing only
    /// touches it). `None` when there is no state file.
    pub fn last_sync(path: &Path) -> Option<jiff::Timestamp> {
        let mtime = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
        jiff::Timestamp::try_from(mtime).ok()
    }

    fn save(&self, path: &Path) -> Result<(), IndexError> {
        let bytes = serde_json::to_vec(self).map_err(|e| IndexError::Io {
            path: path.to_path_buf(),
            source: e.into(),
        })?;
        persist::write_atomic(path, &bytes)?;
        Ok(())
    }
}

/// The chunker options of a config.
pub fn chunk_options(config: &Config) -> ChunkOptions {
    ChunkOptions {
        chunk_max_tokens: config.chunk_max_tokens,
        window_lines: config.window_lines,
        max_file_bytes: config.max_file_bytes,
        ..ChunkOptions::default()
    }
}

/// Everything besides file content that shapes the index: the crate version (stands for the
/// schema code), the scope rules' and the chunker's versions, the chunker options, and in the
/// dist build the grammar libraries that are missing (files of their languages are line
/// windows; once the libraries are back the fingerprint changes and the index is rebuilt with
/// them: `lang::missing_grammar_libraries`).
pub fn options_fingerprint(config: &Config) -> String {
    let o = chunk_options(config);
    let mut fingerprint = format!(
        "code-intel-core {}; scope rules {}; chunker {}; chunk_max_tokens={}; window_lines={}; max_file_bytes={}",
        env!("CARGO_PKG_VERSION"),
        scope::RULES_VERSION,
        super::chunk::CHUNKER_VERSION,
        o.chunk_max_tokens,
        o.window_lines,
        o.max_file_bytes
    );
    let missing = super::lang::missing_grammar_libraries();
    if !missing.is_empty() {
        fingerprint.push_str("; grammars missing: ");
        fingerprint.push_str(&missing.join(","));
    }
    fingerprint
}

/// Whether `state` describes the index's current commit with the current options.
pub fn state_matches_index(state: &SyncState, index: &Index, config: &Config) -> bool {
    let payload = index.load_metas().ok().and_then(|m| m.payload);
    payload.as_deref() == Some(state.commit.as_str())
        && state.options == options_fingerprint(config)
}

/// The path and reason of a walk error that is an unreadable directory (`EACCES` and other I/O
/// errors on a path); `None` for errors without a path (a broken ignore file's glob).
pub(crate) fn walk_error(err: &ignore::Error) -> Option<(PathBuf, String)> {
    match err {
        ignore::Error::WithDepth { err, .. } => walk_error(err),
        ignore::Error::WithPath { path, err } => match err.as_ref() {
            ignore::Error::Io(io) => Some((path.clone(), format!("unreadable directory: {io}"))),
            other => walk_error(other),
        },
        _ => None,
    }
}

/// A walker over `starts` (absolute paths inside `root`) that honours `.gitignore`, `.ignore` and
/// git's global/exclude files even outside a git repository, skips hidden files, never follows
/// symlinks, and excludes `config.exclude_patterns` (gitignore-style globs relative to the root)
/// and the `.code-intel`/`.git` directories.
///
/// # Errors
/// [`IndexError::ExcludePattern`] for a pattern that is not a valid glob.
pub fn walker(
    root: &RepoRoot,
    config: &Config,
    starts: &[PathBuf],
) -> Result<WalkBuilder, IndexError> {
    let mut overrides = OverrideBuilder::new(root.path());
    let mut add = |glob: String, pattern: &str| {
        overrides
            .add(&glob)
            .map(|_| ())
            .map_err(|source| IndexError::ExcludePattern {
                pattern: pattern.to_string(),
                source,
            })
    };
    for pattern in &config.exclude_patterns {
        let p = pattern.trim();
        if p.is_empty() || p.starts_with('#') {
            continue;
        }
        // An override glob without `!` whitelists; with `!` it ignores.
        let p = p.strip_prefix('!').unwrap_or(p);
        add(format!("!{p}"), pattern)?;
        // `**/node_modules/**` matches the files inside, not the directory: also match the
        // directory so the walk does not descend into it.
        if let Some(dir) = p.strip_suffix("/**") {
            add(format!("!{dir}"), pattern)?;
        }
    }
    let overrides = overrides
        .build()
        .map_err(|source| IndexError::ExcludePattern {
            pattern: config.exclude_patterns.join(", "),
            source,
        })?;
    let (first, rest) = match starts.split_first() {
        Some((first, rest)) => (first.clone(), rest),
        None => (root.path().to_path_buf(), &[][..]),
    };
    let mut builder = WalkBuilder::new(first);
    for s in rest {
        builder.add(s);
    }
    let state_dir = root.state_dir();
    let git_dir = root.path().join(".git");
    builder
        .require_git(false)
        .follow_links(false)
        .hidden(true)
        .overrides(overrides)
        .filter_entry(move |e| e.path() != state_dir && e.path() != git_dir);
    Ok(builder)
}

/// The absolute walk starts of the index: the `source_dirs` that exist as directories inside
/// the root, or the root itself when none does.
pub fn source_starts(root: &RepoRoot, config: &Config) -> Vec<PathBuf> {
    let mut starts: Vec<PathBuf> = Vec::new();
    for dir in &config.source_dirs {
        let Ok(rp) = root.resolve(dir) else { continue };
        let abs = root.absolute(&rp);
        if abs.is_dir() {
            starts.push(abs);
        }
    }
    starts.sort();
    // Drop starts nested in another start (`src` and `src/app`), and the root makes all others moot.
    let mut kept: Vec<PathBuf> = Vec::new();
    for s in starts {
        if !kept.iter().any(|k| s.starts_with(k)) {
            kept.push(s);
        }
    }
    if kept.is_empty() {
        kept.push(root.path().to_path_buf());
    }
    kept
}

/// Sets the mtime of `path` to now; false when that fails (e.g. the file is missing).
fn touch(path: &Path) -> bool {
    File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(SystemTime::now()))
        .is_ok()
}

/// Nanoseconds since the Unix epoch (negative before it; saturating).
fn unix_ns(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_nanos()).unwrap_or(i64::MAX),
        Err(e) => i64::try_from(e.duration().as_nanos()).map_or(i64::MIN, |n| -n),
    }
}

/// The cores this process may use, asked once (`available_parallelism` reads the cgroup's CPU
/// quota files on every call).
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `f` over `items` on up to [`WALK_THREADS`] threads (on one below 512 items, where starting a
/// thread costs more than it saves), results in the order of `items`. For `stat` calls, which
/// cost a few microseconds each and overlap well.
pub(crate) fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    par_map_weighted(items, |_| 1, f)
}

/// [`par_map`] for items of unequal cost: `weight` is each item's share of the work (files in a
/// directory), and the threads get runs of items of about equal total weight; one thread below
/// 512 in total.
pub(crate) fn par_map_weighted<T: Sync, R: Send>(
    items: &[T],
    weight: impl Fn(&T) -> usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = cores().min(WALK_THREADS);
    let total: usize = items.iter().map(&weight).sum();
    if threads <= 1 || total < 512 {
        return items.iter().map(f).collect();
    }
    // Cut where the running weight passes each thread's share.
    let share = total.div_ceil(threads);
    let mut cuts = vec![0];
    let mut running = 0;
    for (i, item) in items.iter().enumerate() {
        running += weight(item);
        if running >= share * cuts.len() && i + 1 < items.len() {
            cuts.push(i + 1);
        }
    }
    cuts.push(items.len());
    let f = &f;
    std::thread::scope(|scope| {
        let parts: Vec<_> = cuts
            .windows(2)
            .map(|w| &items[w[0]..w[1]])
            .map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<R>>()))
            .collect();
        parts
            .into_iter()
            .flat_map(|p| p.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// What a state entry says about its file: the size and mtime it was indexed with and when it
/// was read.
#[derive(Debug, Clone, Copy)]
struct Vouch {
    size: u64,
    mtime_ns: i64,
    indexed_at: jiff::Timestamp,
}

impl Vouch {
    /// Whether the entry vouches for a file of this size and mtime: both equal, and the mtime
    /// older than the moment the file was read by more than [`RACY_WINDOW_NS`].
    fn holds(&self, size: u64, mtime_ns: i64) -> bool {
        self.size == size
            && self.mtime_ns == mtime_ns
            && mtime_ns.saturating_add(RACY_WINDOW_NS) < self.indexed_at.as_nanosecond() as i64
    }
}

impl From<&FileState> for Vouch {
    fn from(e: &FileState) -> Self {
        Self {
            size: e.size,
            mtime_ns: e.mtime_ns,
            indexed_at: e.indexed_at,
        }
    }
}

/// Stats `files` (repository-relative `/`-separated paths, each with what its state entry says)
/// under `root`, one directory descriptor per directory and one `statat` per file by name, on
/// [`par_map_weighted`]'s threads. Per file, in the order of `files`: `None` when the entry
/// vouches for it, else its current size and mtime. `None` in all when a file is gone or is no
/// longer a regular file (a walk must find out what happened).
fn stat_files(root: &Path, files: &[(&str, Vouch)]) -> Option<Vec<Option<(u64, i64)>>> {
    // The files by directory (the state's order keeps most of a directory together), so each
    // directory is looked up once and its files are `stat`ed by name relative to it: the
    // kernel's path walk per file was most of a no-change sync's CPU time.
    let mut dirs: Vec<(&str, Vec<usize>)> = Vec::new();
    let mut slots: HashMap<&str, usize> = HashMap::new();
    for (i, (rel, _)) in files.iter().enumerate() {
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        let slot = *slots.entry(dir).or_insert_with(|| {
            dirs.push((dir, Vec::new()));
            dirs.len() - 1
        });
        dirs[slot].1.push(i);
    }
    let per_dir = par_map_weighted(
        &dirs,
        |(_, members)| members.len(),
        |(dir, members)| {
            let fd = rustix::fs::open(
                root.join(dir),
                rustix::fs::OFlags::PATH
                    | rustix::fs::OFlags::DIRECTORY
                    | rustix::fs::OFlags::CLOEXEC,
                rustix::fs::Mode::empty(),
            )
            .ok();
            members
                .iter()
                .map(|&i| {
                    let (rel, vouch) = &files[i];
                    let name = rel.rsplit_once('/').map_or(*rel, |(_, n)| n);
                    let st = rustix::fs::statat(
                        fd.as_ref()?,
                        name,
                        rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
                    )
                    .ok()?;
                    if rustix::fs::FileType::from_raw_mode(st.st_mode)
                        != rustix::fs::FileType::RegularFile
                    {
                        return None;
                    }
                    let size = u64::try_from(st.st_size).unwrap_or(0);
                    let mtime_ns = i64::try_from(
                        i128::from(st.st_mtime) * 1_000_000_000 + i128::from(st.st_mtime_nsec),
                    )
                    .unwrap_or(0);
                    Some((
                        i,
                        (!vouch.holds(size, mtime_ns)).then_some((size, mtime_ns)),
                    ))
                })
                .collect::<Vec<_>>()
        },
    );
    let mut out = vec![None; files.len()];
    for stat in per_dir.into_iter().flatten() {
        let (i, changed) = stat?;
        out[i] = changed;
    }
    Some(out)
}

/// One file seen by the walk.
struct Seen {
    rel: String,
    abs: PathBuf,
    size: u64,
    mtime_ns: i64,
    /// SHA-256 of the indexed version, if the file is indexed (not skipped).
    prev_sha: Option<String>,
}

/// What reading one changed-or-new file gave.
enum FileRead {
    /// Same SHA-256 as the state entry: only size/mtime changed.
    Same {
        sha256: String,
        read_at: jiff::Timestamp,
    },
    /// New content, chunked into documents.
    Chunked {
        sha256: String,
        read_at: jiff::Timestamp,
        docs: Vec<TantivyDocument>,
        /// Why the file got line windows instead of symbols (a parser budget), if it did.
        fallback: Option<String>,
    },
    /// Not indexable; `keep` says whether to remember it in the state (binary, too large) or to
    /// retry next time (read errors).
    Skipped {
        sha256: String,
        read_at: jiff::Timestamp,
        reason: String,
        keep: bool,
    },
    /// Gone between the walk and the read.
    Vanished,
}

/// The chunks the index holds for the file at repository-relative `rel` with content `bytes`:
/// the chunker's ([`chunk_source`]), then a chunk for each section the framework strategies
/// find (a routes file's routes, [`super::framework::chunks_of`]); with the strategies' facts,
/// which go on the first chunk's document. The sync and the vector index, which chunks a file
/// again to embed it, both call this, so their chunks are the same.
///
/// # Errors
/// The chunker's [`SkipReason`].
pub(crate) fn chunk_indexed(
    rel: &str,
    bytes: &[u8],
    opts: &ChunkOptions,
    frameworks: &Frameworks,
) -> Result<
    (
        Vec<super::chunk::Chunk>,
        Option<super::framework::FileFacts>,
    ),
    SkipReason,
> {
    let mut chunks = chunk_source(rel, bytes, opts)?;
    let facts = (!chunks.is_empty()).then(|| frameworks.analyze(rel, bytes));
    if let (Some(facts), Some(first)) = (&facts, chunks.first())
        && !facts.sections.is_empty()
    {
        let extra = super::framework::chunks_of(first, &String::from_utf8_lossy(bytes), facts);
        chunks.extend(extra);
    }
    Ok((chunks, facts))
}

fn read_one(
    seen: &Seen,
    opts: &ChunkOptions,
    fields: &Fields,
    frameworks: &Frameworks,
    on_chunks: Option<ChunkObserver<'_>>,
    times: &StageTimes,
) -> FileRead {
    let started = Instant::now();
    let read_at = jiff::Timestamp::now();
    if seen.size > opts.max_file_bytes {
        let reason = SkipReason::TooLarge {
            bytes: seen.size,
            limit: opts.max_file_bytes,
        }
        .to_string();
        return FileRead::Skipped {
            sha256: String::new(),
            read_at,
            reason,
            keep: true,
        };
    }
    let bytes = match source::read_walked(&seen.abs, &seen.rel, opts.max_file_bytes) {
        Ok(b) => b,
        Err(SourceError::NotFound { .. }) => return FileRead::Vanished,
        Err(e) => {
            return FileRead::Skipped {
                sha256: String::new(),
                read_at,
                reason: match e {
                    // The error names the path, which the reason is listed under already.
                    SourceError::Io { source, .. } => format!("cannot read: {source}"),
                    e => format!("cannot read: {e}"),
                },
                keep: false,
            };
        }
    };
    let sha256 = hex::encode(Sha256::digest(&bytes));
    StageTimes::add(&times.read, started.elapsed());
    if seen.prev_sha.as_deref() == Some(sha256.as_str()) {
        return FileRead::Same { sha256, read_at };
    }
    if let Some(skip) = scope::skip_by_content(&seen.rel, &bytes) {
        return FileRead::Skipped {
            sha256,
            read_at,
            reason: skip.reason().to_string(),
            keep: true,
        };
    }
    let started = Instant::now();
    let chunked = chunk_indexed(&seen.rel, &bytes, opts, frameworks);
    StageTimes::add(&times.parse, started.elapsed());
    match chunked {
        Ok((chunks, facts)) => {
            if let Some(observe) = on_chunks {
                observe(&seen.rel, &sha256, &chunks);
            }
            let started = Instant::now();
            let mut docs: Vec<TantivyDocument> = chunks
                .iter()
                .map(|c| lexical::chunk_document(fields, c))
                .collect();
            if let (Some(first), Some(facts)) = (docs.first_mut(), &facts) {
                lexical::add_framework(fields, first, facts);
            }
            StageTimes::add(&times.documents, started.elapsed());
            FileRead::Chunked {
                sha256,
                read_at,
                fallback: super::chunk::fallback_reason(&chunks).map(str::to_string),
                docs,
            }
        }
        Err(reason) => FileRead::Skipped {
            sha256,
            read_at,
            reason: reason.to_string(),
            keep: true,
        },
    }
}

/// What [`run`] needs of the index facade.
pub(crate) struct SyncContext<'a> {
    pub root: &'a RepoRoot,
    pub config: &'a Config,
    pub index: &'a Index,
    pub fields: &'a Fields,
    /// The sync lock is `<lock_base>.lock`.
    pub lock_base: PathBuf,
    /// How long to wait for the sync lock.
    pub lock_wait: std::time::Duration,
    pub state_path: PathBuf,
    /// Called on a chunking worker with every file the sync chunks (see [`ChunkObserver`]).
    pub on_chunks: Option<ChunkObserver<'a>>,
}

/// Sees each file a sync chunks, on the chunking worker that chunked it: the repository-relative
/// path, the hex SHA-256 of the bytes chunked, and the chunks. Lets another consumer of the
/// chunks (the vector rows, [`super::vector::RowHandoff`]) reuse them instead of reading and
/// chunking the file again. Called before the commit: a sync that fails after it has still
/// called it, so a consumer must check the file version against `sync_state.json`.
pub type ChunkObserver<'a> = &'a (dyn Fn(&str, &str, &[super::chunk::Chunk]) + Sync);

/// Tries the exclusive sync lock without blocking; `None` when another holder has it.
fn try_lock(ctx: &SyncContext<'_>) -> Result<Option<FileLock>, IndexError> {
    Ok(FileLock::try_acquire(&ctx.lock_base)?)
}

/// Why the state file does not describe the index (see [`SyncReport::rebuild_reason`]); `None`
/// when there is simply no state file yet.
fn rebuild_reason(ctx: &SyncContext<'_>) -> Option<String> {
    let bytes = match read_state(&ctx.state_path) {
        Ok(bytes) => bytes?,
        Err(e) => {
            return Some(format!(
                "{STATE_FILE} cannot be read ({e}); rebuilt the index from the sources"
            ));
        }
    };
    let Ok(state) = serde_json::from_slice::<SyncState>(&bytes) else {
        return Some(format!(
            "{STATE_FILE} does not parse (damaged); rebuilt the index from the sources"
        ));
    };
    Some(if state.version != STATE_VERSION {
        format!(
            "{STATE_FILE} has version {}; rebuilt the index",
            state.version
        )
    } else if state.options != options_fingerprint(ctx.config) {
        "the chunking options or the code-intel version changed; rebuilt the index".to_string()
    } else {
        format!(
            "the index does not hold the commit {STATE_FILE} names (an interrupted sync or a \
             repaired index); rebuilt the index from the sources"
        )
    })
}

/// Takes the sync lock, waiting up to `ctx.lock_wait` (polling: `flock` has no timeout) and
/// reporting [`SyncProgress::WaitingForLock`] once when it must wait.
fn wait_for_lock(
    ctx: &SyncContext<'_>,
    progress: &mut dyn FnMut(SyncProgress),
) -> Result<FileLock, IndexError> {
    let started = std::time::Instant::now();
    let mut reported = false;
    loop {
        if let Some(file) = try_lock(ctx)? {
            return Ok(file);
        }
        if started.elapsed() >= ctx.lock_wait {
            return Err(IndexError::Busy {
                root: ctx.root.path().to_path_buf(),
                waited_secs: started.elapsed().as_secs(),
            });
        }
        if !reported {
            reported = true;
            progress(SyncProgress::WaitingForLock {
                timeout_secs: ctx.lock_wait.as_secs(),
            });
        }
        std::thread::sleep(LOCK_POLL.min(ctx.lock_wait.saturating_sub(started.elapsed())));
    }
}

/// Runs one sync (see the module docs). `report.chunks` and `duration_ms` are left for the
/// caller, which owns the reader.
pub(crate) fn run(
    ctx: &SyncContext<'_>,
    progress: &mut dyn FnMut(SyncProgress),
) -> Result<SyncReport, IndexError> {
    let _lock = wait_for_lock(ctx, progress)?;
    let frameworks = Frameworks::detect(ctx.root.path());
    let saved = read_state(&ctx.state_path).ok().flatten();
    let started = Instant::now();
    if let Some(mut report) = saved
        .as_deref()
        .and_then(|bytes| unchanged(ctx, &frameworks, bytes))
    {
        report.timings.walk_ms = ms(started.elapsed());
        progress(SyncProgress::Walked {
            files: report.files_unchanged,
            to_read: 0,
            deleted: 0,
        });
        return Ok(report);
    }
    let started = Instant::now();
    let mut pass = SyncPass::start(ctx, &frameworks, saved.as_deref());
    let changes = pass.find_changes()?;
    pass.report.timings.walk_ms = ms(started.elapsed());
    progress(SyncProgress::Walked {
        files: changes.files_seen,
        to_read: changes.to_read.len(),
        deleted: changes.deleted.len(),
    });
    let mut writer = LazyWriter::new(ctx, changes.writer_heap(), pass.full);
    if pass.full {
        // Full rebuild: clear whatever the index holds, even if no file is left to add.
        writer.open()?;
    }
    let started = Instant::now();
    pass.remove_deleted(&changes.deleted, &mut writer)?;
    pass.read_and_index(&changes.to_read, &frameworks, &mut writer, progress)?;
    pass.report.timings.pipeline_ms = ms(started.elapsed());
    let started = Instant::now();
    pass.commit(writer, progress)?;
    pass.report.timings.commit_ms = ms(started.elapsed());
    let started = Instant::now();
    let mut report = pass.finish(changes.dirty)?;
    report.timings.state_ms = ms(started.elapsed());
    Ok(report)
}

/// `d` in whole milliseconds (saturating).
fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Thread time of the chunking workers by stage, nanoseconds, summed over the workers; copied
/// into [`SyncTimings`] when they stop.
#[derive(Default)]
struct StageTimes {
    read: AtomicU64,
    parse: AtomicU64,
    documents: AtomicU64,
}

impl StageTimes {
    /// Adds `d` to `slot`.
    fn add(slot: &AtomicU64, d: Duration) {
        slot.fetch_add(
            u64::try_from(d.as_nanos()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
    }

    /// Copies the sums into `t`, milliseconds.
    fn report(&self, t: &mut SyncTimings) {
        let ms = |a: &AtomicU64| a.load(Ordering::Relaxed) / 1_000_000;
        t.read_ms = ms(&self.read);
        t.parse_ms = ms(&self.parse);
        t.documents_ms = ms(&self.documents);
    }
}

/// Merges the segments of `ctx`'s index into one when any of them holds deleted documents, under
/// the sync lock; `Ok(false)` when none does (nothing written). tantivy's BM25 statistics
/// (document frequencies, average field length) count deleted documents until their segment is
/// merged, so after incremental syncs a query's scores depend on which files were replaced
/// before, not only on what the index holds; after this they do not. The merge rewrites the
/// whole index (about as long as indexing it, minus the parsing) and publishes it atomically,
/// keeping the commit payload the sync state points at.
pub(crate) fn merge_deleted(
    ctx: &SyncContext<'_>,
    progress: &mut dyn FnMut(SyncProgress),
) -> Result<bool, IndexError> {
    let _lock = wait_for_lock(ctx, progress)?;
    let tantivy_err = |action, source| IndexError::Tantivy {
        action,
        path: index_dir(ctx),
        source,
    };
    let reader = ctx
        .index
        .reader_builder()
        .reload_policy(tantivy::ReloadPolicy::Manual)
        .try_into()
        .map_err(|e| tantivy_err("read", e))?;
    let searcher = reader.searcher();
    let readers = searcher.segment_readers();
    if readers.iter().all(|r| r.num_deleted_docs() == 0) {
        return Ok(false);
    }
    let ids = ctx
        .index
        .searchable_segment_ids()
        .map_err(|e| tantivy_err("list the segments of", e))?;
    let mut writer = LazyWriter::new(ctx, SMALL_WRITER_HEAP_BYTES, false);
    writer.open()?;
    let Some(mut w) = writer.writer.take() else {
        return Ok(false);
    };
    w.merge(&ids)
        .wait()
        .map_err(|e| tantivy_err("merge segments of", e))?;
    w.wait_merging_threads()
        .map_err(|e| tantivy_err("merge segments of", e))?;
    Ok(true)
}

/// The parts of a saved [`SyncState`] that decide whether a sync has anything to do, borrowed
/// from the file's bytes: no per-file strings are built and the hashes are only skipped over
/// (parsing the whole state was the largest user-space cost of a no-change sync, ~1.8 ms of
/// ~9 ms on Laravel's 1,879 files). A path JSON had to escape (a quote, a backslash, a control
/// character) cannot be borrowed: the view then fails to parse and the full pass decides.
#[derive(Deserialize)]
struct StateView<'a> {
    version: u32,
    commit: &'a str,
    options: &'a str,
    #[serde(borrow, deserialize_with = "vouches")]
    files: Vouched<'a>,
    #[serde(default)]
    out_of_scope: BTreeMap<String, String>,
    #[serde(default)]
    frameworks: Vec<String>,
    #[serde(default)]
    walk: Option<WalkStamp>,
}

/// The `files` of a [`StateView`]: `(path, what its entry says)` in file order, and the
/// `(path, reason)` of the entries that record a skip (read, then left out: binary, too large).
#[derive(Default)]
struct Vouched<'a> {
    files: Vec<(&'a str, Vouch)>,
    skipped: Vec<(&'a str, &'a str)>,
}

/// The `files` object of a state as [`Vouched`]; every other field of an entry is skipped.
fn vouches<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vouched<'de>, D::Error> {
    #[derive(Deserialize)]
    struct Entry<'a> {
        size: u64,
        mtime_ns: i64,
        indexed_at: jiff::Timestamp,
        #[serde(default, borrow)]
        skipped: Option<&'a str>,
    }
    struct Entries;
    impl<'de> serde::de::Visitor<'de> for Entries {
        type Value = Vouched<'de>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a map of file states")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = Vouched {
                files: Vec::with_capacity(map.size_hint().unwrap_or(0)),
                skipped: Vec::new(),
            };
            while let Some((path, e)) = map.next_entry::<&'de str, Entry<'de>>()? {
                if let Some(reason) = e.skipped {
                    out.skipped.push((path, reason));
                }
                out.files.push((
                    path,
                    Vouch {
                        size: e.size,
                        mtime_ns: e.mtime_ns,
                        indexed_at: e.indexed_at,
                    },
                ));
            }
            Ok(out)
        }
    }
    d.deserialize_map(Entries)
}

/// The report of a sync that finds nothing to do, decided from the state file's `bytes`
/// ([`StateView`]) under the sync lock: the state is current (version, options, framework
/// markers, the index's commit), the last walk's [`WalkStamp`] holds, and every file of the state
/// is still a regular file its entry vouches for. Touches the state file (the last-sync time).
/// `None` when any of that fails: the full pass then decides, and does what is needed.
fn unchanged(ctx: &SyncContext<'_>, frameworks: &Frameworks, bytes: &[u8]) -> Option<SyncReport> {
    let view: StateView<'_> = serde_json::from_slice(bytes).ok()?;
    let current = view.version == STATE_VERSION
        && !view.commit.is_empty()
        && view.options == options_fingerprint(ctx.config)
        && view.frameworks == frameworks.fingerprint();
    if !current {
        return None;
    }
    let payload = ctx.index.load_metas().ok()?.payload;
    if payload.as_deref() != Some(view.commit)
        || !view
            .walk
            .as_ref()?
            .holds(ctx.config, &source_starts(ctx.root, ctx.config))
    {
        return None;
    }
    let stats = stat_files(ctx.root.path(), &view.files.files)?;
    if stats.iter().any(Option::is_some) || !touch(&ctx.state_path) {
        return None;
    }
    // Every file not indexed, as the full pass lists it: out of scope, and read then skipped.
    let mut files_skipped: Vec<SkippedFile> = view
        .out_of_scope
        .into_iter()
        .map(|(path, reason)| SkippedFile { path, reason })
        .chain(view.files.skipped.iter().map(|(path, reason)| SkippedFile {
            path: (*path).to_string(),
            reason: (*reason).to_string(),
        }))
        .collect();
    files_skipped.sort_by(|a, b| a.path.cmp(&b.path));
    Some(SyncReport {
        files_unchanged: view.files.files.len(),
        files_skipped,
        ..SyncReport::default()
    })
}

/// One sync under the sync lock: the state it rewrites and the report it fills, step by step.
struct SyncPass<'c, 'a> {
    ctx: &'c SyncContext<'a>,
    state: SyncState,
    report: SyncReport,
    /// Whether the index is rebuilt from scratch (the state names no commit).
    full: bool,
}

/// What a sync's walk found to do.
struct Changes {
    /// Files the walk found.
    files_seen: usize,
    /// Files to read: new, or with a size or mtime the state does not vouch for.
    to_read: Vec<Seen>,
    /// Files of the state the walk no longer finds.
    deleted: Vec<String>,
    /// Whether the state changes: anything read (even an mtime-only change is recorded), deleted,
    /// a changed scope, or a rebuild. A clean sync only refreshes the state file's mtime, the
    /// last-sync time.
    dirty: bool,
}

impl Changes {
    /// The writer's memory budget for reading these files, bytes.
    fn writer_heap(&self) -> usize {
        let to_read_bytes: u64 = self.to_read.iter().map(|s| s.size).sum();
        if to_read_bytes <= SMALL_SYNC_BYTES {
            SMALL_WRITER_HEAP_BYTES
        } else {
            WRITER_HEAP_BYTES
        }
    }
}

impl<'c, 'a> SyncPass<'c, 'a> {
    /// Starts from the saved state when it still describes the index, else from an empty one
    /// (a full rebuild, with the reason in the report).
    fn start(ctx: &'c SyncContext<'a>, frameworks: &Frameworks, saved: Option<&[u8]>) -> Self {
        let mut report = SyncReport::default();
        let loaded = saved
            .and_then(SyncState::from_bytes)
            .filter(|s| state_matches_index(s, ctx.index, ctx.config));
        let markers_changed = loaded
            .as_ref()
            .is_some_and(|s| s.frameworks != frameworks.fingerprint());
        let previous = loaded.filter(|_| !markers_changed);
        report.full_rebuild = previous.is_none();
        if markers_changed {
            report.rebuild_reason = Some(format!(
                "the project's framework markers changed (now: {}); rebuilt the index",
                frameworks.names().join(", ")
            ));
        } else if previous.is_none() {
            report.rebuild_reason = rebuild_reason(ctx);
        }
        let state = previous.unwrap_or_else(|| SyncState {
            version: STATE_VERSION,
            options: options_fingerprint(ctx.config),
            frameworks: frameworks.fingerprint(),
            ..SyncState::default()
        });
        let full = state.commit.is_empty();
        Self {
            ctx,
            state,
            report,
            full,
        }
    }

    /// Walks the sources (or, when the last walk's [`WalkStamp`] still holds, takes the files
    /// of the state), records what the scope leaves out, and splits the files into unchanged (by
    /// size and mtime), to read, and deleted.
    fn find_changes(&mut self) -> Result<Changes, IndexError> {
        let (root, config) = (self.ctx.root, self.ctx.config);
        if !self.full
            && self
                .state
                .walk
                .as_ref()
                .is_some_and(|s| s.holds(config, &source_starts(root, config)))
            && let Some(changes) = self.changes_by_stat()
        {
            return Ok(changes);
        }
        let (state, report) = (&mut self.state, &mut self.report);
        let (seen, unnamed, stamp) = walk(root, config)?;
        report.walked = true;
        let stamp_changed = stamp != state.walk;
        state.walk = stamp;
        let out_of_scope: BTreeMap<String, String> = unnamed
            .iter()
            .map(|s| (s.path.clone(), s.reason.clone()))
            .collect();
        let scope_changed = out_of_scope != state.out_of_scope;
        state.out_of_scope = out_of_scope;
        report.files_skipped.extend(unnamed);
        let mut to_read: Vec<Seen> = Vec::new();
        let mut seen_paths = std::collections::HashSet::with_capacity(seen.len());
        let files_seen = seen.len();
        for mut s in seen {
            let entry = state.files.get(&s.rel);
            let trusted = entry.is_some_and(|e| Vouch::from(e).holds(s.size, s.mtime_ns));
            seen_paths.insert(s.rel.clone());
            s.prev_sha = entry
                .filter(|e| e.skipped.is_none())
                .map(|e| e.sha256.clone());
            if trusted {
                report.files_unchanged += 1;
            } else {
                to_read.push(s);
            }
        }
        let deleted: Vec<String> = state
            .files
            .keys()
            .filter(|p| !seen_paths.contains(p.as_str()))
            .cloned()
            .collect();
        let dirty = self.full
            || scope_changed
            || stamp_changed
            || !to_read.is_empty()
            || !deleted.is_empty();
        Ok(Changes {
            files_seen,
            to_read,
            deleted,
            dirty,
        })
    }

    /// The changes when the walk would find the files of the state again: one `stat` per file.
    /// `None` when a file of the state is gone or no longer a regular file (the stamp should have
    /// caught that; the caller then walks).
    fn changes_by_stat(&mut self) -> Option<Changes> {
        let root = self.ctx.root.path();
        let files: Vec<(&str, Vouch)> = self
            .state
            .files
            .iter()
            .map(|(rel, e)| (rel.as_str(), Vouch::from(e)))
            .collect();
        let stats = stat_files(root, &files)?;
        let mut to_read = Vec::new();
        let mut unchanged = 0;
        for ((rel, e), stat) in self.state.files.iter().zip(stats) {
            match stat {
                Some((size, mtime_ns)) => to_read.push(Seen {
                    rel: rel.clone(),
                    abs: root.join(rel),
                    size,
                    mtime_ns,
                    prev_sha: e.skipped.is_none().then(|| e.sha256.clone()),
                }),
                None => unchanged += 1,
            }
        }
        self.report.files_unchanged += unchanged;
        self.report
            .files_skipped
            .extend(
                self.state
                    .out_of_scope
                    .iter()
                    .map(|(path, reason)| SkippedFile {
                        path: path.clone(),
                        reason: reason.clone(),
                    }),
            );
        let dirty = !to_read.is_empty();
        Some(Changes {
            files_seen: self.state.files.len(),
            to_read,
            deleted: Vec::new(),
            dirty,
        })
    }

    /// Deletes the documents and state entries of the files the walk no longer finds.
    fn remove_deleted(
        &mut self,
        deleted: &[String],
        writer: &mut LazyWriter<'_, '_>,
    ) -> Result<(), IndexError> {
        for p in deleted {
            writer.delete_file(p)?;
            self.state.files.remove(p);
            self.report.files_deleted += 1;
        }
        Ok(())
    }

    /// Reads, hashes and chunks `to_read` in parallel and indexes each outcome on this thread,
    /// in completion order; the workers stop at the first error.
    fn read_and_index(
        &mut self,
        to_read: &[Seen],
        frameworks: &Frameworks,
        writer: &mut LazyWriter<'_, '_>,
        progress: &mut dyn FnMut(SyncProgress),
    ) -> Result<(), IndexError> {
        if to_read.is_empty() {
            return Ok(());
        }
        let ctx = self.ctx;
        let opts = chunk_options(ctx.config);
        let total = to_read.len();
        let workers = cores().clamp(1, 4).min(total.max(1));
        let next = AtomicUsize::new(0);
        let cancel = AtomicBool::new(false);
        let times = StageTimes::default();
        self.report.timings.workers = workers;
        let mut index_time = Duration::ZERO;
        let result = std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, FileRead)>(64);
            for _ in 0..workers {
                let tx = tx.clone();
                let (next, cancel, times) = (&next, &cancel, &times);
                let (opts, fields, on_chunks) = (&opts, ctx.fields, ctx.on_chunks);
                scope.spawn(move || {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= to_read.len() || cancel.load(Ordering::Relaxed) {
                            break;
                        }
                        let s = &to_read[i];
                        let outcome = read_one(s, opts, fields, frameworks, on_chunks, times);
                        if tx.send((i, outcome)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            let mut done = 0;
            let mut run = || -> Result<(), IndexError> {
                for (i, outcome) in rx.iter() {
                    done += 1;
                    let started = Instant::now();
                    self.apply(&to_read[i], outcome, writer)?;
                    index_time += started.elapsed();
                    progress(SyncProgress::Read { done, total });
                }
                Ok(())
            };
            let r = run();
            if r.is_err() {
                cancel.store(true, Ordering::Relaxed);
            }
            drop(rx);
            r
        });
        times.report(&mut self.report.timings);
        self.report.timings.index_ms = ms(index_time);
        result
    }

    /// Applies what reading one file gave: its documents, its state entry and the report's
    /// counts.
    fn apply(
        &mut self,
        s: &Seen,
        outcome: FileRead,
        writer: &mut LazyWriter<'_, '_>,
    ) -> Result<(), IndexError> {
        let (state, report) = (&mut self.state, &mut self.report);
        let existed = state.files.contains_key(&s.rel);
        if matches!(
            outcome,
            FileRead::Vanished | FileRead::Skipped { keep: false, .. }
        ) {
            // A file the walk found is not in the state: the next sync must walk to find it again.
            state.walk = None;
        }
        match outcome {
            FileRead::Vanished => {
                if existed {
                    writer.delete_file(&s.rel)?;
                    state.files.remove(&s.rel);
                    report.files_deleted += 1;
                }
            }
            FileRead::Same { sha256, read_at } => {
                report.files_hashed += 1;
                report.files_unchanged += 1;
                if let Some(e) = state.files.get_mut(&s.rel) {
                    e.size = s.size;
                    e.mtime_ns = s.mtime_ns;
                    e.sha256 = sha256;
                    e.indexed_at = read_at;
                }
            }
            FileRead::Chunked {
                sha256,
                read_at,
                docs,
                fallback,
            } => {
                report.files_hashed += 1;
                let chunks = docs.len();
                writer.replace_file(&s.rel, docs, existed)?;
                report.chunks_written += chunks;
                if existed {
                    report.files_modified += 1
                } else {
                    report.files_added += 1
                }
                let entry = FileState {
                    size: s.size,
                    mtime_ns: s.mtime_ns,
                    sha256,
                    chunks: u32::try_from(chunks).unwrap_or(u32::MAX),
                    indexed_at: read_at,
                    skipped: None,
                    fallback,
                };
                state.files.insert(s.rel.clone(), entry);
            }
            FileRead::Skipped {
                sha256,
                read_at,
                reason,
                keep,
            } => {
                if sha256.is_empty() {
                    // Not read (too large, unreadable): nothing to compare, count it.
                } else {
                    report.files_hashed += 1;
                }
                if existed {
                    writer.delete_file(&s.rel)?;
                    state.files.remove(&s.rel);
                }
                if !keep {
                    // Retried by the next sync; until then `status` lists it with its reason,
                    // as it lists an unreadable directory.
                    state.out_of_scope.insert(s.rel.clone(), reason.clone());
                }
                if keep {
                    let entry = FileState {
                        size: s.size,
                        mtime_ns: s.mtime_ns,
                        sha256,
                        chunks: 0,
                        indexed_at: read_at,
                        skipped: Some(reason.clone()),
                        fallback: None,
                    };
                    state.files.insert(s.rel.clone(), entry);
                }
                report.files_skipped.push(SkippedFile {
                    path: s.rel.clone(),
                    reason,
                });
            }
        }
        Ok(())
    }

    /// Commits the writer if anything was written, and names that commit in the state.
    fn commit(
        &mut self,
        writer: LazyWriter<'_, '_>,
        progress: &mut dyn FnMut(SyncProgress),
    ) -> Result<(), IndexError> {
        if let Some(commit) = writer.commit(progress)? {
            self.state.commit = commit;
        }
        Ok(())
    }

    /// Writes the state when it changed (else only touches it, the last-sync time) and returns
    /// the report, skipped files sorted by path.
    fn finish(mut self, dirty: bool) -> Result<SyncReport, IndexError> {
        // Files read and skipped by an earlier sync are still not indexed: listed too, so the
        // report and `status` count the same files (issue 40).
        let listed: std::collections::HashSet<String> = self
            .report
            .files_skipped
            .iter()
            .map(|s| s.path.clone())
            .collect();
        let earlier: Vec<SkippedFile> = self
            .state
            .files
            .iter()
            .filter(|(path, _)| !listed.contains(path.as_str()))
            .filter_map(|(path, e)| {
                Some(SkippedFile {
                    path: path.clone(),
                    reason: e.skipped.clone()?,
                })
            })
            .collect();
        self.report.files_skipped.extend(earlier);
        self.report
            .files_skipped
            .sort_by(|a, b| a.path.cmp(&b.path));
        if dirty || !touch(&self.ctx.state_path) {
            self.state.save(&self.ctx.state_path)?;
        }
        Ok(self.report)
    }
}

/// The index writer of one sync, opened on the first change (a sync that changes nothing never
/// opens one) and cleared as it opens on a full rebuild.
struct LazyWriter<'c, 'a> {
    ctx: &'c SyncContext<'a>,
    /// Memory budget of the indexing thread, bytes.
    heap: usize,
    /// Whether opening deletes every document (a full rebuild).
    clear: bool,
    writer: Option<IndexWriter<TantivyDocument>>,
}

impl<'c, 'a> LazyWriter<'c, 'a> {
    /// A writer for `ctx`'s index, not opened yet.
    fn new(ctx: &'c SyncContext<'a>, heap: usize, clear: bool) -> Self {
        Self {
            ctx,
            heap,
            clear,
            writer: None,
        }
    }

    /// The writer, opened (and cleared on a full rebuild) on first use.
    fn open(&mut self) -> Result<&IndexWriter<TantivyDocument>, IndexError> {
        let writer = match self.writer.take() {
            Some(w) => w,
            None => {
                let options = tantivy::indexer::IndexWriterOptions::builder()
                    .memory_budget_per_thread(self.heap)
                    .num_worker_threads(WRITER_THREADS)
                    .num_merge_threads(MERGE_THREADS)
                    .build();
                // tantivy's own writer lock can only be held by a process that holds the sync
                // lock too, which this one does: a failure here is an I/O error, not contention.
                let w = self
                    .ctx
                    .index
                    .writer_with_options(options)
                    .map_err(|source| IndexError::Tantivy {
                        action: "open a writer on",
                        path: index_dir(self.ctx),
                        source,
                    })?;
                let mut policy = tantivy::merge_policy::LogMergePolicy::default();
                policy.set_del_docs_ratio_before_merge(DELETED_RATIO_BEFORE_MERGE);
                w.set_merge_policy(Box::new(policy));
                if self.clear {
                    w.delete_all_documents()
                        .map_err(|source| IndexError::Tantivy {
                            action: "clear",
                            path: index_dir(self.ctx),
                            source,
                        })?;
                }
                w
            }
        };
        Ok(self.writer.insert(writer))
    }

    /// The term naming every document of the file at repository-relative `path`.
    fn path_term(&self, path: &str) -> Term {
        Term::from_field_text(self.ctx.fields.path_key, path)
    }

    /// Deletes the documents of the file at `path`.
    fn delete_file(&mut self, path: &str) -> Result<(), IndexError> {
        let term = self.path_term(path);
        self.open()?.delete_term(term);
        Ok(())
    }

    /// Replaces the documents of the file at `path` with `docs`. `indexed`: whether the index
    /// may hold documents of the file (the state lists it). A file the state does not list has
    /// none (the state names the index's commit, and lists every file that commit holds), so
    /// its delete is skipped: a full index adds every file without one, which tantivy would
    /// otherwise look up in every segment it flushes.
    fn replace_file(
        &mut self,
        path: &str,
        docs: Vec<TantivyDocument>,
        indexed: bool,
    ) -> Result<(), IndexError> {
        let term = self.path_term(path);
        let ctx = self.ctx;
        let w = self.open()?;
        if indexed {
            w.delete_term(term);
        }
        for doc in docs {
            w.add_document(doc).map_err(|source| IndexError::Tantivy {
                action: "write",
                path: index_dir(ctx),
                source,
            })?;
        }
        Ok(())
    }

    /// Commits what was written under a fresh commit id (also the commit's payload) and waits
    /// for the merges; the id, or `None` when the writer was never opened.
    fn commit(self, progress: &mut dyn FnMut(SyncProgress)) -> Result<Option<String>, IndexError> {
        let Some(mut w) = self.writer else {
            return Ok(None);
        };
        progress(SyncProgress::Committing);
        let commit = uuid::Uuid::new_v4().simple().to_string();
        let tantivy_err = |action, source| IndexError::Tantivy {
            action,
            path: index_dir(self.ctx),
            source,
        };
        let mut prepared = w.prepare_commit().map_err(|e| tantivy_err("commit", e))?;
        prepared.set_payload(&commit);
        prepared.commit().map_err(|e| tantivy_err("commit", e))?;
        w.wait_merging_threads()
            .map_err(|e| tantivy_err("merge segments of", e))?;
        Ok(Some(commit))
    }
}

fn index_dir(ctx: &SyncContext<'_>) -> PathBuf {
    ctx.root.state().lexical()
}

/// Files of the working tree that differ from the last sync, by the sync's own prefilter (size and
/// mtime; a file whose bytes changed without either changing is found only by the next sync).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct PendingChanges {
    /// Files the walk finds that the sync state does not list.
    pub added: usize,
    /// Listed files whose size or mtime differ.
    pub modified: usize,
    /// Listed files the walk no longer finds.
    pub deleted: usize,
}

impl PendingChanges {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.added + self.modified + self.deleted == 0
    }
}

/// What the next sync of `root` would look at: the index's sources walked exactly as a sync walks
/// them, compared with `sync_state.json`. `Ok(None)` when the repository was never synced. Reads
/// only; takes no lock.
///
/// # Errors
/// [`IndexError`] when the configured sources cannot be walked (bad `exclude_patterns`).
pub fn pending_changes(
    root: &RepoRoot,
    config: &Config,
) -> Result<Option<PendingChanges>, IndexError> {
    let Some(state) = SyncState::load(&SyncState::path(root)) else {
        return Ok(None);
    };
    let (files, _, _) = walk(root, config)?;
    let mut changes = PendingChanges::default();
    for f in &files {
        match state.files.get(&f.rel) {
            None => changes.added += 1,
            Some(e) if e.size != f.size || e.mtime_ns != f.mtime_ns => changes.modified += 1,
            Some(_) => {}
        }
    }
    let walked: std::collections::HashSet<&str> = files.iter().map(|f| f.rel.as_str()).collect();
    changes.deleted = state
        .files
        .keys()
        .filter(|k| !walked.contains(k.as_str()))
        .count();
    Ok(Some(changes))
}

/// `ELOOP` (`<errno.h>`): too many levels of symbolic links.
#[cfg(any(target_os = "linux", target_os = "android"))]
const ELOOP: i32 = 40;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const ELOOP: i32 = 62;

/// Why the walked entry at `path` (of type `ft`, not a regular file nor a directory) is not
/// indexed: a symlink by where it leads (it is never followed: a target inside the repository
/// is indexed at its own path), else the kind of special file (never opened: opening a FIFO
/// blocks, reading a device never ends).
fn special_reason(root: &Path, path: &Path, ft: std::fs::FileType) -> String {
    use std::os::unix::fs::FileTypeExt as _;
    if ft.is_symlink() {
        return match std::fs::metadata(path) {
            Err(e) if e.raw_os_error() == Some(ELOOP) => "symbolic link loop (not followed)".into(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                "dangling symbolic link (its target does not exist)".into()
            }
            Err(e) => format!("symbolic link whose target cannot be read ({e})"),
            Ok(m) => {
                let inside = std::fs::canonicalize(path).is_ok_and(|t| t.starts_with(root));
                let t = m.file_type();
                let kind = if t.is_dir() {
                    "a directory"
                } else if t.is_file() {
                    "a file"
                } else {
                    "a FIFO, socket or device"
                };
                if inside {
                    format!(
                        "symbolic link to {kind} inside the repository (not followed; the target is indexed at its own path)"
                    )
                } else {
                    format!("symbolic link to {kind} outside the repository (not followed)")
                }
            }
        };
    }
    let kind = if ft.is_fifo() {
        "FIFO (named pipe)"
    } else if ft.is_socket() {
        "socket"
    } else if ft.is_char_device() || ft.is_block_device() {
        "device"
    } else {
        "special file"
    };
    format!("{kind}: not a regular file, never read")
}

/// What [`walk`] found: the files (no symlinks) with size and mtime from one `stat`, what the
/// scope left out, and the stamp of the walk (`None` when it cannot be trusted).
type Walked = (Vec<Seen>, Vec<SkippedFile>, Option<WalkStamp>);

/// Walks the index's sources.
fn walk(root: &RepoRoot, config: &Config) -> Result<Walked, IndexError> {
    /// What one walked entry gives.
    enum Found {
        File(Seen),
        Skipped(SkippedFile),
        Dir(Option<stamp::DirStamp>),
    }
    let starts = source_starts(root, config);
    let walk_start = unix_ns(SystemTime::now());
    let mut builder = walker(root, config, &starts)?;
    // Directory reads and stats overlap on two threads: the walk is most of a no-change sync.
    builder.threads(cores().min(WALK_THREADS));
    let found: std::sync::Mutex<Vec<Found>> = std::sync::Mutex::default();
    let root = root.path();
    builder.build_parallel().run(|| {
        let found = &found;
        Box::new(move |entry| {
            let push = |item| found.lock().unwrap_or_else(|e| e.into_inner()).push(item);
            // Repository-relative, `/`-separated; `None` outside the root or not valid UTF-8.
            let rel_str = |p: &Path| relative_slash(root, p);
            // Unreadable directories are skipped like ripgrep does, but with their reason
            // recorded (`status` lists them); other walk errors (a broken ignore file) are skipped.
            let entry = match entry {
                Ok(entry) => entry,
                Err(err) => {
                    if let Some((path, reason)) = walk_error(&err)
                        && let Some(rel) = rel_str(&path)
                    {
                        push(Found::Skipped(SkippedFile {
                            path: format!("{rel}/"),
                            reason,
                        }));
                    }
                    return WalkState::Continue;
                }
            };
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            if is_dir
                && entry.depth() > 0
                && let Some(rel) = rel_str(entry.path())
                && let Some(skip) = scope::skip_dir(&rel)
                && !scope::package_named_like_output(entry.path())
            {
                push(Found::Skipped(SkippedFile {
                    path: format!("{rel}/"),
                    reason: skip.reason().to_string(),
                }));
                return WalkState::Skip;
            }
            if is_dir {
                push(Found::Dir(stamp::record_dir(entry.path())));
                return WalkState::Continue;
            }
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                // Symlinks (never followed), FIFOs, sockets and devices: not indexed, and listed
                // with why, so `status` accounts for every file it leaves out (issue 40).
                if let Some(ft) = entry.file_type()
                    && let Some(rel) = rel_str(entry.path())
                {
                    push(Found::Skipped(SkippedFile {
                        path: rel,
                        reason: special_reason(root, entry.path(), ft),
                    }));
                }
                return WalkState::Continue;
            }
            let Ok(rel_path) = entry.path().strip_prefix(root) else {
                return WalkState::Continue;
            };
            let rel = rel_path
                .to_str()
                .map(|r| r.replace(std::path::MAIN_SEPARATOR, "/"));
            if let Some(rel) = &rel
                && let Some(skip) = scope::skip_file_by_name(rel)
            {
                push(Found::Skipped(SkippedFile {
                    path: rel.clone(),
                    reason: skip.reason().to_string(),
                }));
                return WalkState::Continue;
            }
            let Ok(meta) = entry.metadata() else {
                return WalkState::Continue;
            };
            push(match rel {
                Some(rel) => Found::File(Seen {
                    rel,
                    abs: entry.path().to_path_buf(),
                    size: meta.len(),
                    mtime_ns: meta.modified().map(unix_ns).unwrap_or(0),
                    prev_sha: None,
                }),
                None => Found::Skipped(SkippedFile {
                    path: rel_path.to_string_lossy().into_owned(),
                    reason: "path is not valid UTF-8".into(),
                }),
            });
            WalkState::Continue
        })
    });
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    let mut dirs = Vec::new();
    for item in found.into_inner().unwrap_or_else(|e| e.into_inner()) {
        match item {
            Found::File(seen) => files.push(seen),
            Found::Skipped(s) => skipped.push(s),
            Found::Dir(d) => dirs.push(d),
        }
    }
    // Overlapping starts cannot yield a file twice (nested starts are dropped), but sorting and
    // deduplicating keeps the order deterministic either way.
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    files.dedup_by(|a, b| a.rel == b.rel);
    let stamp = stamp::build(config, &starts, walk_start, dirs);
    Ok((files, skipped, stamp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_commit_alone_reads_as_the_whole_state_gives_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sync_state.json");
        let mut state = SyncState {
            version: STATE_VERSION,
            commit: "c-42".into(),
            ..SyncState::default()
        };
        state.files.insert(
            "src/a.py".into(),
            FileState {
                size: 3,
                mtime_ns: 7,
                sha256: "ab".into(),
                chunks: 1,
                indexed_at: jiff::Timestamp::UNIX_EPOCH,
                skipped: None,
                fallback: None,
            },
        );
        state.save(&path).unwrap();
        assert_eq!(SyncState::load_commit(&path), Some("c-42".into()));
        assert_eq!(
            SyncState::load(&path).map(|s| s.commit),
            Some("c-42".into())
        );
        std::fs::write(&path, br#"{"version": 999, "commit": "c-42"}"#).unwrap();
        assert_eq!(SyncState::load_commit(&path), None);
        std::fs::write(&path, br#"{"version": 1, "commit": "c-4"#).unwrap();
        assert_eq!(SyncState::load_commit(&path), None);
    }

    #[test]
    fn weighted_par_map_keeps_the_order_of_its_items() {
        // Directories of unequal size, enough files in all for two threads where there are.
        let dirs: Vec<usize> = (0..300)
            .map(|i| if i % 50 == 0 { 200 } else { 3 })
            .collect();
        let got = par_map_weighted(&dirs, |&n| n, |&n| n * 2);
        assert_eq!(got, dirs.iter().map(|n| n * 2).collect::<Vec<_>>());
        let small = [1, 2, 3];
        assert_eq!(par_map_weighted(&small, |_| 1, |&n| n + 1), [2, 3, 4]);
        assert!(par_map_weighted(&[] as &[usize], |_| 1, |&n| n).is_empty());
    }

    #[test]
    fn an_unreadable_directory_is_a_reason_not_silence() {
        let err = ignore::Error::WithDepth {
            depth: 2,
            err: Box::new(ignore::Error::WithPath {
                path: PathBuf::from("/r/secret"),
                err: Box::new(ignore::Error::Io(std::io::Error::from(
                    std::io::ErrorKind::PermissionDenied,
                ))),
            }),
        };
        let (path, reason) = walk_error(&err).unwrap();
        assert_eq!(path, PathBuf::from("/r/secret"));
        assert_eq!(reason, "unreadable directory: permission denied");
        let glob = ignore::Error::Glob {
            glob: None,
            err: "x".into(),
        };
        assert_eq!(walk_error(&glob), None);
    }
}
