//! The embedding cache: chunk vectors keyed by (model id, chunk content SHA-256), persisted in an
//! append-only file per model, so an unchanged chunk is never embedded twice across re-syncs,
//! renames and restarts.
//!
//! File `<dir>/<model-file-stem>.emb`, little-endian:
//! ```text
//! header  magic "CIEMBED\0" (8 bytes) | u32 version (1) | u32 dims | u32 id_len | model id (UTF-8)
//!         | u32 CRC-32 of the header bytes before it
//! record  sha256 (32 bytes) | dims × f32 | u32 CRC-32 of the sha and vector bytes
//! ```
//! Records have a fixed size (36 + 4·dims bytes), so a torn last record (crash during an append)
//! shows as a length that is not header + k·record, and a damaged record as a CRC mismatch; both
//! are dropped on open and the file is rewritten at the next [`EmbeddingCache::flush`]. Appends and
//! rewrites happen under an exclusive [`FileLock`]; rewrites go through [`write_atomic`], so a crash
//! leaves the previous file. The cache is only a cache: anything dropped is embedded again.

use std::collections::HashSet;

use super::key_table::KeyTable;
use std::fs::OpenOptions;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use code_intel_session::persist::{FileLock, PersistError};

const MAGIC: &[u8; 8] = b"CIEMBED\0";
const VERSION: u32 = 1;

/// Errors of the embedding cache.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// Reading the cache file failed (other than it not existing).
    #[error("cannot read embedding cache {path}: {source}")]
    Read {
        /// The cache file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Appending to the cache file failed; entries stay pending for the next flush.
    #[error("cannot write embedding cache {path}: {source}")]
    Write {
        /// The cache file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Locking or atomically replacing the file failed.
    #[error(transparent)]
    Persist(#[from] PersistError),
    /// A key is not a 64-digit hex SHA-256.
    #[error("invalid chunk sha256 {sha:?}: expected 64 hex digits")]
    BadKey {
        /// The key given.
        sha: String,
    },
    /// A vector does not have the cache's dimensions.
    #[error("vector for {sha} has {got} dimensions, the cache holds {expected}")]
    BadDims {
        /// The key of the vector.
        sha: String,
        /// The cache's dimensions.
        expected: usize,
        /// The vector's length.
        got: usize,
    },
    /// `dims` is 0 or the model id is empty.
    #[error("invalid embedding cache parameters: {reason}")]
    BadParams {
        /// What is wrong.
        reason: String,
    },
}

/// What [`EmbeddingCache::open`] found on disk.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CacheOpen {
    /// Vectors loaded.
    pub loaded: usize,
    /// Records dropped: damaged (CRC mismatch), torn at the end, or duplicates.
    pub dropped_records: usize,
    /// Why the whole file was ignored (unknown version, another model or dimension count, bad
    /// header), if it was.
    pub reset: Option<String>,
}

/// The cache file opened for reading without ever blocking: `Ok(None)` when there is none,
/// `InvalidInput` for a FIFO, socket, device or directory (never opened: a FIFO would block).
fn open_cache_file(path: &Path) -> std::io::Result<Option<std::fs::File>> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a regular file",
            ));
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    }
    use std::os::unix::fs::OpenOptionsExt as _;
    // `O_NONBLOCK` (`<fcntl.h>`): a FIFO swapped in after the check opens at once, then fails
    // the check below instead of blocking.
    const O_NONBLOCK: i32 = 0o4000;
    match OpenOptions::new()
        .read(true)
        .custom_flags(O_NONBLOCK)
        .open(path)
    {
        Ok(f) if f.metadata()?.is_file() => Ok(Some(f)),
        Ok(_) => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Vectors by chunk content SHA-256 for one model, persisted in one file.
///
/// Keys are the lowercase or uppercase 64-digit hex SHA-256 of a chunk's content (as
/// `index::chunk::Chunk::sha256`). Values are `dims` `f32`s as the embedder returned them.
/// Inserted vectors are pending until [`Self::flush`]; [`Self::retain`] drops dead entries and
/// compacts the file.
///
/// Memory: the keys and where each record is, not the vectors. Pending vectors are held until
/// flushed; every other vector is read from its record when asked for ([`Self::get`]: one
/// positioned read of 36 + 4·dims bytes, its key and CRC checked), through the file handle it was
/// read or written with, so a file another process replaced meanwhile (a rename) does not move
/// it. Opening reads the file as a stream, never whole (a fully embedded 10k-file repository's
/// cache is 220 MB, which the cache held in memory twice while opening and once after).
///
/// Several processes may share the file (two MCP servers on one repository): appends are serialised
/// by a lock, and each process sees the others' vectors when it next opens the cache.
#[derive(Debug)]
pub struct EmbeddingCache {
    path: PathBuf,
    model_id: String,
    dims: usize,
    /// Key → position in `keys`.
    index: KeyTable,
    keys: Vec<[u8; 32]>,
    /// Where each entry's vector is.
    locs: Vec<Loc>,
    /// The vectors of the entries not on disk yet (`Loc::Mem`), `dims` each.
    mem: Vec<f32>,
    /// The files `Loc::Disk` records are in (handles kept open: the file may be replaced).
    files: Vec<std::fs::File>,
    /// The file on disk must be rewritten rather than appended to (bad header, torn or damaged
    /// records).
    rewrite: bool,
    opened: CacheOpen,
}

impl EmbeddingCache {
    /// Opens (or starts) the cache of `model_id` with `dims`-dimensional vectors in `dir`
    /// (`<repo>/.code-intel/index/embeddings/`). Creates nothing until the first flush.
    ///
    /// A file written for another model id, dimension count or format version is ignored (and
    /// replaced at the next flush); damaged records are dropped. See [`Self::open_report`].
    ///
    /// # Errors
    /// [`CacheError::BadParams`] for `dims == 0` or an empty id; [`CacheError::Read`] when the file
    /// exists but cannot be read.
    pub fn open(dir: &Path, model_id: &str, dims: usize) -> Result<Self, CacheError> {
        if dims == 0 || model_id.is_empty() {
            return Err(CacheError::BadParams {
                reason: format!("model id {model_id:?}, dims {dims}"),
            });
        }
        let mut cache = Self {
            path: dir.join(file_name(model_id)),
            model_id: model_id.to_owned(),
            dims,
            index: KeyTable::default(),
            keys: Vec::new(),
            locs: Vec::new(),
            mem: Vec::new(),
            files: Vec::new(),
            rewrite: false,
            opened: CacheOpen::default(),
        };
        let file = match open_cache_file(&cache.path) {
            Ok(Some(f)) => f,
            Ok(None) => return Ok(cache),
            Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
                // A FIFO, socket, device or directory where the file goes: never read (a FIFO
                // would block), replaced by the next flush.
                cache.opened.reset = Some("not a regular file".into());
                cache.rewrite = true;
                return Ok(cache);
            }
            Err(source) => {
                return Err(CacheError::Read {
                    path: cache.path,
                    source,
                });
            }
        };
        let parsed = cache.parse(file).map_err(|source| CacheError::Read {
            path: cache.path.clone(),
            source,
        })?;
        cache.opened = CacheOpen {
            loaded: cache.keys.len(),
            dropped_records: parsed.dropped,
            reset: parsed.reset,
        };
        cache.rewrite = parsed.damaged;
        Ok(cache)
    }

    /// What opening found: vectors loaded, records dropped, or why the file was ignored.
    pub fn open_report(&self) -> &CacheOpen {
        &self.opened
    }

    /// The cache file (which may not exist yet).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The model id the vectors belong to.
    pub fn model_id(&self) -> &str {
        &self.model_id
    }

    /// Components per vector.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Number of vectors held (persisted and pending).
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the cache holds no vector.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Number of vectors inserted since the last flush.
    pub fn pending(&self) -> usize {
        self.mem.len() / self.dims
    }

    /// The vector of the chunk with content hash `sha256` (hex), if cached and readable. An
    /// invalid key is simply not cached.
    pub fn get(&self, sha256: &str) -> Option<Vec<f32>> {
        self.get_bytes(&parse_key(sha256)?)
    }

    /// [`Self::get`] by the hash's bytes. `None` also when its record cannot be read back or
    /// no longer matches its key and CRC (the file was damaged under us): the vector is then
    /// embedded again, as for any vector the cache lost.
    pub fn get_bytes(&self, key: &[u8; 32]) -> Option<Vec<f32>> {
        let i = self.index.get(key, |p| &self.keys[p as usize])?;
        self.vector_of(i as usize)
    }

    /// The vector of entry `i`.
    fn vector_of(&self, i: usize) -> Option<Vec<f32>> {
        match self.locs[i] {
            Loc::Mem(m) => Some(self.mem[m * self.dims..(m + 1) * self.dims].to_vec()),
            Loc::Disk { file, offset } => {
                use std::os::unix::fs::FileExt as _;
                let mut rec = vec![0u8; self.record_len()];
                self.files[file as usize]
                    .read_exact_at(&mut rec, offset)
                    .ok()?;
                let (payload, crc) = rec.split_at(rec.len() - 4);
                if payload[..32] != self.keys[i] || crc32fast::hash(payload).to_le_bytes() != crc {
                    return None;
                }
                Some(decode_vector(&payload[32..]))
            }
        }
    }

    /// [`Self::contains`] by the hash's bytes.
    pub fn contains_bytes(&self, key: &[u8; 32]) -> bool {
        self.index.contains(key, |p| &self.keys[p as usize])
    }

    /// Whether the chunk with content hash `sha256` (hex) is cached.
    pub fn contains(&self, sha256: &str) -> bool {
        parse_key(sha256).is_some_and(|k| self.contains_bytes(&k))
    }

    /// The keys of `shas` that are not cached (in input order, duplicates removed): the chunks to
    /// embed.
    pub fn missing<'a>(&self, shas: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
        let mut seen = HashSet::new();
        shas.into_iter()
            .filter(|s| !self.contains(s) && seen.insert(*s))
            .collect()
    }

    /// Adds vectors by chunk content hash; keys already cached keep their vector. Returns how many
    /// were new. Nothing is written until [`Self::flush`].
    ///
    /// # Errors
    /// [`CacheError::BadKey`] or [`CacheError::BadDims`]; then nothing of `items` is inserted.
    pub fn insert_many<'a, V: AsRef<[f32]> + 'a>(
        &mut self,
        items: impl IntoIterator<Item = (&'a str, V)>,
    ) -> Result<usize, CacheError> {
        let mut checked = Vec::new();
        for (sha, v) in items {
            let key = parse_key(sha).ok_or_else(|| CacheError::BadKey { sha: sha.into() })?;
            if v.as_ref().len() != self.dims {
                return Err(CacheError::BadDims {
                    sha: sha.into(),
                    expected: self.dims,
                    got: v.as_ref().len(),
                });
            }
            checked.push((key, v));
        }
        let mut added = 0;
        for (key, v) in checked {
            if self.push(key, v.as_ref()) {
                added += 1;
            }
        }
        Ok(added)
    }

    /// Writes pending vectors: appended as records and synced, or the whole file rewritten
    /// atomically when it is missing, was damaged, or belongs to another model. On error the
    /// vectors stay pending.
    ///
    /// # Errors
    /// [`CacheError::Persist`] (lock, directory, atomic rewrite) or [`CacheError::Write`].
    pub fn flush(&mut self) -> Result<(), CacheError> {
        if self.pending() == 0 && !self.rewrite {
            return Ok(());
        }
        let _lock = FileLock::acquire(&self.path)?;
        // Under the lock, check that the file is still a clean file of ours: another process may
        // have created, replaced or (by crashing) torn it since we opened it.
        let clean = !self.rewrite && self.file_is_clean()?;
        if clean {
            let pending: Vec<usize> = (0..self.keys.len())
                .filter(|&i| matches!(self.locs[i], Loc::Mem(_)))
                .collect();
            let mut buf = Vec::with_capacity(pending.len() * self.record_len());
            for &i in &pending {
                self.encode_record(i, &mut buf);
            }
            let path = self.path.clone();
            let err = |source| CacheError::Write {
                path: path.clone(),
                source,
            };
            let mut f = OpenOptions::new()
                .append(true)
                .read(true)
                .open(&self.path)
                .map_err(err)?;
            let start = f.metadata().map_err(err)?.len();
            f.write_all(&buf).map_err(err)?;
            f.sync_data().map_err(err)?;
            // The records are read back through a handle on this file (the path may be replaced
            // later): the one held for it, else this one.
            let file = self.handle_for(f).map_err(err)?;
            for (n, &i) in pending.iter().enumerate() {
                self.locs[i] = Loc::Disk {
                    file,
                    offset: start + (n * self.record_len()) as u64,
                };
            }
            self.mem = Vec::new();
            self.drop_unused_files();
        } else {
            self.merge_from_disk()?;
            self.rewrite_file()?;
        }
        self.rewrite = false;
        Ok(())
    }

    /// Keeps only the vectors whose hash is in `live` (the chunks of the current index) and
    /// rewrites the file atomically with them, pending vectors included. Vectors another process
    /// appended since this cache was opened are merged first, so live ones survive. Returns how
    /// many held vectors were removed. Without removals this is a [`Self::flush`].
    ///
    /// # Errors
    /// As [`Self::flush`].
    pub fn retain<'a>(
        &mut self,
        live: impl IntoIterator<Item = &'a str>,
    ) -> Result<usize, CacheError> {
        let live: HashSet<[u8; 32]> = live.into_iter().filter_map(parse_key).collect();
        self.retain_bytes(&live)
    }

    /// [`Self::retain`] by the hashes' bytes.
    ///
    /// # Errors
    /// As [`Self::flush`].
    pub fn retain_bytes(&mut self, live: &HashSet<[u8; 32]>) -> Result<usize, CacheError> {
        let _lock = FileLock::acquire(&self.path)?;
        self.merge_from_disk()?;
        let keep: Vec<usize> = (0..self.keys.len())
            .filter(|&i| live.contains(&self.keys[i]))
            .collect();
        let removed = self.keys.len() - keep.len();
        if removed > 0 {
            self.keys = keep.iter().map(|&i| self.keys[i]).collect();
            self.locs = keep.iter().map(|&i| self.locs[i]).collect();
            self.index = KeyTable::of(self.keys.len(), |p| &self.keys[p as usize]);
        }
        if removed > 0 || self.pending() > 0 || self.rewrite {
            self.rewrite_file()?;
        }
        self.rewrite = false;
        Ok(removed)
    }

    /// Whether the file exists with our exact header and a whole number of records (call under
    /// the lock). Reads only the header.
    fn file_is_clean(&self) -> Result<bool, CacheError> {
        let read_err = |source| CacheError::Read {
            path: self.path.clone(),
            source,
        };
        // Only a regular file is ours (opening a FIFO would block).
        match std::fs::metadata(&self.path) {
            Ok(m) if m.is_file() => {}
            Ok(_) => return Ok(false),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(source) => return Err(read_err(source)),
        }
        let mut f = match std::fs::File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(source) => return Err(read_err(source)),
        };
        let len = f.metadata().map_err(read_err)?.len();
        let header = self.header();
        let mut have = vec![0u8; header.len()];
        match f.read_exact(&mut have) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(false),
            Err(source) => return Err(read_err(source)),
        }
        Ok(have == header && (len - header.len() as u64).is_multiple_of(self.record_len() as u64))
    }

    /// Adds a pending entry (its vector held until flushed); false when the key is held.
    fn push(&mut self, key: [u8; 32], v: &[f32]) -> bool {
        if self.contains_bytes(&key) {
            return false;
        }
        self.keys.push(key);
        let keys = &self.keys;
        self.index
            .insert(&key, (keys.len() - 1) as u32, |p| &keys[p as usize]);
        self.locs.push(Loc::Mem(self.mem.len() / self.dims));
        self.mem.extend_from_slice(v);
        true
    }

    /// The index in `files` of a handle on the same file as `f` (same device and inode),
    /// keeping `f` only when none is held.
    fn handle_for(&mut self, f: std::fs::File) -> std::io::Result<u32> {
        use std::os::unix::fs::MetadataExt as _;
        let m = f.metadata()?;
        for (i, held) in self.files.iter().enumerate() {
            if let Ok(h) = held.metadata()
                && h.dev() == m.dev()
                && h.ino() == m.ino()
            {
                return Ok(i as u32);
            }
        }
        self.files.push(f);
        Ok(self.files.len() as u32 - 1)
    }

    /// Closes the handles no entry reads from any more.
    fn drop_unused_files(&mut self) {
        let mut used = vec![false; self.files.len()];
        for loc in &self.locs {
            if let Loc::Disk { file, .. } = loc {
                used[*file as usize] = true;
            }
        }
        if used.iter().all(|u| *u) {
            return;
        }
        let mut renumber = vec![0u32; self.files.len()];
        let mut kept = Vec::new();
        for (i, f) in std::mem::take(&mut self.files).into_iter().enumerate() {
            if used[i] {
                renumber[i] = kept.len() as u32;
                kept.push(f);
            }
        }
        self.files = kept;
        for loc in &mut self.locs {
            if let Loc::Disk { file, .. } = loc {
                *file = renumber[*file as usize];
            }
        }
    }

    fn record_len(&self) -> usize {
        32 + 4 * self.dims + 4
    }

    fn header(&self) -> Vec<u8> {
        let mut h = Vec::with_capacity(24 + self.model_id.len());
        h.extend_from_slice(MAGIC);
        h.extend_from_slice(&VERSION.to_le_bytes());
        h.extend_from_slice(&(self.dims as u32).to_le_bytes());
        h.extend_from_slice(&(self.model_id.len() as u32).to_le_bytes());
        h.extend_from_slice(self.model_id.as_bytes());
        let crc = crc32fast::hash(&h);
        h.extend_from_slice(&crc.to_le_bytes());
        h
    }

    /// Appends entry `i`'s record to `buf`; false (nothing appended) when its vector cannot be
    /// read back.
    fn encode_record(&self, i: usize, buf: &mut Vec<u8>) -> bool {
        let Some(v) = self.vector_of(i) else {
            return false;
        };
        let start = buf.len();
        buf.extend_from_slice(&self.keys[i]);
        for x in &v {
            buf.extend_from_slice(&x.to_le_bytes());
        }
        let crc = crc32fast::hash(&buf[start..]);
        buf.extend_from_slice(&crc.to_le_bytes());
        true
    }

    /// Indexes the records of `file`, read as a stream (keys already held keep their entry), and
    /// keeps the handle: its records are read back through it.
    fn parse(&mut self, file: std::fs::File) -> std::io::Result<Parsed> {
        let len = file.metadata()?.len();
        let mut reader = std::io::BufReader::with_capacity(1 << 16, &file);
        let header = self.header();
        let mut have = vec![0u8; header.len()];
        let n = read_full(&mut reader, &mut have)?;
        if n < header.len() || have != header {
            let have = &have[..n];
            let reset = if !have.starts_with(MAGIC) {
                "not an embedding cache file".to_owned()
            } else if have.get(8..12) != Some(&VERSION.to_le_bytes()[..]) {
                "written by another format version".to_owned()
            } else {
                "written for another model id or dimension count".to_owned()
            };
            return Ok(Parsed {
                dropped: 0,
                damaged: true,
                reset: Some(reset),
            });
        }
        let record_len = self.record_len();
        let body = len - header.len() as u64;
        let mut dropped = 0;
        let mut damaged = !body.is_multiple_of(record_len as u64);
        if damaged {
            dropped += 1; // the torn last record
        }
        let file_no = self.files.len() as u32;
        let mut rec = vec![0u8; record_len];
        let mut offset = header.len() as u64;
        let mut used = false;
        for _ in 0..body / record_len as u64 {
            if read_full(&mut reader, &mut rec)? < record_len {
                // Shorter than its length said: truncated under us.
                dropped += 1;
                damaged = true;
                break;
            }
            let (payload, crc) = rec.split_at(record_len - 4);
            let at = offset;
            offset += record_len as u64;
            if crc32fast::hash(payload).to_le_bytes() != crc {
                dropped += 1;
                damaged = true;
                continue;
            }
            let mut key = [0u8; 32];
            key.copy_from_slice(&payload[..32]);
            if self.contains_bytes(&key) {
                dropped += 1;
                continue;
            }
            self.keys.push(key);
            let keys = &self.keys;
            self.index
                .insert(&key, (keys.len() - 1) as u32, |p| &keys[p as usize]);
            self.locs.push(Loc::Disk {
                file: file_no,
                offset: at,
            });
            used = true;
        }
        drop(reader);
        if used {
            self.files.push(file);
        }
        Ok(Parsed {
            dropped,
            damaged,
            reset: None,
        })
    }

    /// Adds the valid records another process wrote since we opened (call under the lock).
    fn merge_from_disk(&mut self) -> Result<(), CacheError> {
        match open_cache_file(&self.path) {
            Ok(Some(file)) => {
                let parsed = self.parse(file).map_err(|source| CacheError::Read {
                    path: self.path.clone(),
                    source,
                })?;
                self.rewrite |= parsed.damaged;
                Ok(())
            }
            Ok(None) => Ok(()),
            // Not a regular file: nothing of ours to merge; the rewrite replaces it.
            Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => Ok(()),
            Err(source) => Err(CacheError::Read {
                path: self.path.clone(),
                source,
            }),
        }
    }

    /// Replaces the file with the header and every held vector (call under the lock), written
    /// as a stream to a temporary file that is then renamed over it; the entries are read from
    /// the new file afterwards. An entry whose record cannot be read back is dropped (embedded
    /// again when needed).
    fn rewrite_file(&mut self) -> Result<(), CacheError> {
        let write_err = |source| CacheError::Write {
            path: self.path.clone(),
            source,
        };
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(write_err)?;
        }
        let name = self
            .path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("cache");
        let tmp = self.path.with_file_name(format!(
            ".{name}.{}.{}.tmp",
            std::process::id(),
            uuid::Uuid::new_v4().simple()
        ));
        let record_len = self.record_len();
        let header = self.header();
        let mut kept: Vec<usize> = Vec::with_capacity(self.keys.len());
        let result = (|| -> std::io::Result<std::fs::File> {
            // Read as well: the entries are read back through this handle.
            let f = OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&tmp)?;
            let mut w = std::io::BufWriter::with_capacity(1 << 16, &f);
            w.write_all(&header)?;
            let mut buf = Vec::with_capacity(record_len);
            for i in 0..self.keys.len() {
                buf.clear();
                if self.encode_record(i, &mut buf) {
                    w.write_all(&buf)?;
                    kept.push(i);
                }
            }
            w.flush()?;
            drop(w);
            f.sync_all()?;
            std::fs::rename(&tmp, &self.path)?;
            Ok(f)
        })();
        let f = match result {
            Ok(f) => f,
            Err(e) => {
                std::fs::remove_file(&tmp).ok();
                return Err(write_err(e));
            }
        };
        self.keys = kept.iter().map(|&i| self.keys[i]).collect();
        self.index = KeyTable::of(self.keys.len(), |p| &self.keys[p as usize]);
        self.locs = (0..self.keys.len())
            .map(|n| Loc::Disk {
                file: 0,
                offset: (header.len() + n * record_len) as u64,
            })
            .collect();
        self.files = vec![f];
        self.mem = Vec::new();
        Ok(())
    }
}

/// Where an entry's vector is.
#[derive(Debug, Clone, Copy)]
enum Loc {
    /// Pending: vector `n` of `EmbeddingCache::mem`.
    Mem(usize),
    /// The record at `offset` of handle `file` of `EmbeddingCache::files`.
    Disk { file: u32, offset: u64 },
}

/// Reads until `buf` is full or the end; returns the bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// `dims` little-endian `f32`s.
fn decode_vector(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

struct Parsed {
    dropped: usize,
    damaged: bool,
    reset: Option<String>,
}

fn parse_key(sha: &str) -> Option<[u8; 32]> {
    let mut key = [0u8; 32];
    hex::decode_to_slice(sha, &mut key).ok()?;
    Some(key)
}

/// `<model id with unsafe characters as '_', at most 64>-<8 hex of SHA-256(model id)>.emb`: readable,
/// and distinct for ids that differ only in replaced characters.
fn file_name(model_id: &str) -> String {
    let safe: String = model_id
        .chars()
        .take(64)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let digest = hex::encode(Sha256::digest(model_id.as_bytes()));
    format!("{safe}-{}.emb", &digest[..8])
}
