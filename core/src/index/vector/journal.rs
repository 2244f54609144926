//! `vectors/state.log`: an append-only log of changes to [`VectorState`] beside the base
//! `state.json`, so a save after one edited file writes that file's rows and the new slot keys
//! (a few kilobytes) instead of the whole state (38 MB for spring's 143k rows).
//!
//! # Format
//! A sequence of records, each `len: u32 LE`, `crc: u32 LE` (CRC-32 of the payload, crc32fast),
//! then `len` bytes of JSON ([`LogRecord`]). Each record is written with one `write_all` on a
//! file opened for appending, then `sync_data`, before the save returns (acknowledged = durable).
//!
//! # Reading
//! Records are replayed in order onto the base while each is whole, matches its CRC, parses,
//! names the base's [`VectorState::base_id`] and continues its slots exactly; the first that does
//! not ends the replay (a torn tail after a kill, garbage, or records of an older base left by a
//! crash between writing a new base and emptying the log). What was replayed is a state some
//! save acknowledged; vectors added since are in the embedding cache and get their slots back
//! on open.
//!
//! # Writing (under the state lock)
//! A save appends only when the base on disk is the one this index loaded or wrote (same inode,
//! length and modification time) and the log is exactly as long as the records this index
//! knows; otherwise (another writer, a torn or foreign tail, slots compacted, a new graph to
//! name, a state never based) it writes a full base ([`VectorIndex::save`]'s full path): a new
//! `base_id`, `state.json` by atomic rename, then the log emptied. The same happens once the
//! log would exceed [`COMPACT_FRACTION`] of the base's size.
//!
//! The graph dump is not rewritten by an appended save: the base names the last dump and
//! `graph_points`; slots beyond it are inserted into the graph on open (derived data).

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{FileRows, VectorError, VectorState};

/// File name of the log inside the vectors directory.
pub const LOG_FILE: &str = "state.log";

/// The log is folded into a new base when it would exceed this fraction of the base's size
/// (and [`COMPACT_MIN_BYTES`]): replaying it on open then costs at most a quarter of parsing the
/// base, and the log's records are small (one edited file: a few kilobytes).
pub const COMPACT_FRACTION: f64 = 0.25;

/// A log below this size is never folded, whatever the base's size (a small repository's base
/// is a few kilobytes: without a floor every save would write a full base).
pub const COMPACT_MIN_BYTES: u64 = 1 << 20;

/// Bytes of a record's header (length, CRC).
const HEADER: usize = 8;

/// One appended save: the files whose rows changed (`None`: removed), the slot keys appended
/// after `slots_from`, and the small fields in full.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LogRecord {
    /// [`VectorState::base_id`] of the base this record continues.
    pub base: String,
    /// Rows of each changed file; `None` when the file has no rows any more.
    pub files: BTreeMap<String, Option<FileRows>>,
    /// Number of slots before this record's `slots` (must equal the replayed state's).
    pub slots_from: usize,
    /// Slot keys appended, in order.
    pub slots: Vec<super::Hash32>,
    /// [`VectorState::lexical_commit`] after the save.
    pub lexical_commit: String,
    /// [`VectorState::frameworks`] after the save.
    pub frameworks: Vec<String>,
    /// [`VectorState::stale_files`] after the save.
    pub stale_files: Vec<String>,
}

/// What an open index remembers of the files on disk, to know whether it may append.
#[derive(Debug, Clone, Default)]
pub(super) struct Journal {
    /// Files whose rows changed since the last save.
    pub changed_files: BTreeSet<String>,
    /// Something changed that a record cannot express (all rows dropped or re-chunked, slots
    /// compacted): the next save writes a full base.
    pub full: bool,
    /// Slots persisted (base plus replayed records) as of the last load or save.
    pub persisted_slots: usize,
    /// Bytes of valid log as of the last load or save.
    pub log_len: u64,
    /// Identity of the base file as loaded or written; `None`: unknown, write a full base.
    pub base_stamp: Option<Stamp>,
    /// Size of the base in bytes.
    pub base_len: u64,
}

/// Inode, length, modification time (ns) of a file.
pub(super) type Stamp = (u64, u64, i128);

/// The stamp of `path`, `None` when it cannot be read.
pub(super) fn stamp(path: &Path) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt as _;
    let m = std::fs::metadata(path).ok()?;
    Some((
        m.ino(),
        m.len(),
        i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
    ))
}

/// Encodes one record (header and payload).
pub(super) fn encode(record: &LogRecord) -> Vec<u8> {
    let payload = serde_json::to_vec(record).expect("a log record serialises");
    let mut out = Vec::with_capacity(HEADER + payload.len());
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
    out.extend_from_slice(&payload);
    out
}

/// Replays the valid prefix of `log` onto `state`; returns the bytes replayed.
pub(super) fn replay(state: &mut VectorState, log: &[u8]) -> u64 {
    let mut at = 0usize;
    while log.len() - at >= HEADER {
        let len = u32::from_le_bytes(log[at..at + 4].try_into().unwrap()) as usize;
        let crc = u32::from_le_bytes(log[at + 4..at + 8].try_into().unwrap());
        let Some(payload) = (at + HEADER)
            .checked_add(len)
            .and_then(|end| log.get(at + HEADER..end))
        else {
            break;
        };
        if crc32fast::hash(payload) != crc {
            break;
        }
        let Ok(record) = serde_json::from_slice::<LogRecord>(payload) else {
            break;
        };
        if state.base_id.is_empty()
            || record.base != state.base_id
            || record.slots_from != state.slots.len()
        {
            break;
        }
        apply(state, record);
        at += HEADER + len;
    }
    at as u64
}

fn apply(state: &mut VectorState, record: LogRecord) {
    for (path, rows) in record.files {
        match rows {
            Some(rows) => {
                state.files.insert(path, rows);
            }
            None => {
                state.files.remove(&path);
            }
        }
    }
    state.slots.extend(record.slots);
    state.lexical_commit = record.lexical_commit;
    state.frameworks = record.frameworks;
    state.stale_files = record.stale_files;
}

/// Appends `bytes` to the log at `path` and makes it durable.
pub(super) fn append(path: &Path, bytes: &[u8]) -> Result<(), VectorError> {
    let io = |source| VectorError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io)?;
    f.write_all(bytes).map_err(io)?;
    f.sync_data().map_err(io)
}

/// Empties the log at `path` (after a new base was written), durably. A missing log is empty.
pub(super) fn clear(path: &Path) -> Result<(), VectorError> {
    let io = |source| VectorError::Io {
        path: path.to_path_buf(),
        source,
    };
    match std::fs::OpenOptions::new().write(true).open(path) {
        Ok(f) => {
            f.set_len(0).map_err(io)?;
            f.sync_data().map_err(io)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io(e)),
    }
}

/// Length of the file at `path`; 0 when missing.
pub(super) fn len(path: &Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}
