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

use std::collections::{HashMap, HashSet};
use std::fs::OpenOptions;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use code_intel_session::persist::{FileLock, PersistError, write_atomic};

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

/// The cache file's bytes without ever blocking ([`code_intel_session::persist::read_regular`], no size
/// bound): `Ok(None)` when there is none, `InvalidInput` for a FIFO, socket, device or directory.
fn read_cache_file(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    code_intel_session::persist::read_regular(path, u64::MAX)
}

/// Vectors by chunk content SHA-256 for one model, loaded in memory and persisted in one file.
///
/// Keys are the lowercase or uppercase 64-digit hex SHA-256 of a chunk's content (as
/// `index::chunk::Chunk::sha256`). Values are `dims` `f32`s as the embedder returned them.
/// Inserted vectors are pending until [`Self::flush`]; [`Self::retain`] drops dead entries and
/// compacts the file.
///
/// Several processes may share the file (two MCP servers on one repository): appends are serialised
/// by a lock, and each process sees the others' vectors when it next opens the cache.
#[derive(Debug)]
pub struct EmbeddingCache {
    path: PathBuf,
    model_id: String,
    dims: usize,
    index: HashMap<[u8; 32], usize>,
    keys: Vec<[u8; 32]>,
    data: Vec<f32>,
    /// Entries `persisted..` are not on disk yet.
    persisted: usize,
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
            index: HashMap::new(),
            keys: Vec::new(),
            data: Vec::new(),
            persisted: 0,
            rewrite: false,
            opened: CacheOpen::default(),
        };
        let bytes = match read_cache_file(&cache.path) {
            Ok(Some(b)) => b,
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
        let parsed = cache.parse(&bytes);
        cache.opened = CacheOpen {
            loaded: cache.keys.len(),
            dropped_records: parsed.dropped,
            reset: parsed.reset,
        };
        cache.rewrite = parsed.damaged;
        cache.persisted = cache.keys.len();
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
        self.keys.len() - self.persisted
    }

    /// The vector of the chunk with content hash `sha256` (hex), if cached. An invalid key is
    /// simply not cached.
    pub fn get(&self, sha256: &str) -> Option<&[f32]> {
        let key = parse_key(sha256)?;
        let i = *self.index.get(&key)?;
        Some(&self.data[i * self.dims..(i + 1) * self.dims])
    }

    /// [`Self::get`] by the hash's bytes.
    pub fn get_bytes(&self, key: &[u8; 32]) -> Option<&[f32]> {
        let i = *self.index.get(key)?;
        Some(&self.data[i * self.dims..(i + 1) * self.dims])
    }

    /// [`Self::contains`] by the hash's bytes.
    pub fn contains_bytes(&self, key: &[u8; 32]) -> bool {
        self.index.contains_key(key)
    }

    /// Whether the chunk with content hash `sha256` (hex) is cached.
    pub fn contains(&self, sha256: &str) -> bool {
        parse_key(sha256).is_some_and(|k| self.index.contains_key(&k))
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
            let mut buf = Vec::with_capacity(self.pending() * self.record_len());
            for i in self.persisted..self.keys.len() {
                self.encode_record(i, &mut buf);
            }
            let err = |source| CacheError::Write {
                path: self.path.clone(),
                source,
            };
            let mut f = OpenOptions::new()
                .append(true)
                .open(&self.path)
                .map_err(err)?;
            f.write_all(&buf).map_err(err)?;
            f.sync_data().map_err(err)?;
        } else {
            self.merge_from_disk()?;
            self.rewrite_file()?;
        }
        self.persisted = self.keys.len();
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
            let mut keys = Vec::with_capacity(keep.len());
            let mut data = Vec::with_capacity(keep.len() * self.dims);
            for &i in &keep {
                keys.push(self.keys[i]);
                data.extend_from_slice(&self.data[i * self.dims..(i + 1) * self.dims]);
            }
            self.index = keys.iter().enumerate().map(|(i, k)| (*k, i)).collect();
            self.keys = keys;
            self.data = data;
        }
        if removed > 0 || self.pending() > 0 || self.rewrite {
            self.rewrite_file()?;
        }
        self.persisted = self.keys.len();
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

    fn push(&mut self, key: [u8; 32], v: &[f32]) -> bool {
        if self.index.contains_key(&key) {
            return false;
        }
        self.index.insert(key, self.keys.len());
        self.keys.push(key);
        self.data.extend_from_slice(v);
        true
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

    fn encode_record(&self, i: usize, buf: &mut Vec<u8>) {
        let start = buf.len();
        buf.extend_from_slice(&self.keys[i]);
        for x in &self.data[i * self.dims..(i + 1) * self.dims] {
            buf.extend_from_slice(&x.to_le_bytes());
        }
        let crc = crc32fast::hash(&buf[start..]);
        buf.extend_from_slice(&crc.to_le_bytes());
    }

    /// Loads the records of `bytes` into memory (skipping keys already held).
    fn parse(&mut self, bytes: &[u8]) -> Parsed {
        let header = self.header();
        if !bytes.starts_with(&header) {
            let reset = if !bytes.starts_with(MAGIC) {
                "not an embedding cache file".to_owned()
            } else if bytes.get(8..12) != Some(&VERSION.to_le_bytes()[..]) {
                "written by another format version".to_owned()
            } else {
                "written for another model id or dimension count".to_owned()
            };
            return Parsed {
                dropped: 0,
                damaged: true,
                reset: Some(reset),
            };
        }
        let record_len = self.record_len();
        let body = &bytes[header.len()..];
        let mut dropped = 0;
        let mut damaged = !body.len().is_multiple_of(record_len);
        if damaged {
            dropped += 1; // the torn last record
        }
        for rec in body.chunks_exact(record_len) {
            let (payload, crc) = rec.split_at(record_len - 4);
            if crc32fast::hash(payload).to_le_bytes() != crc {
                dropped += 1;
                damaged = true;
                continue;
            }
            let mut key = [0u8; 32];
            key.copy_from_slice(&payload[..32]);
            let v: Vec<f32> = payload[32..]
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            if !self.push(key, &v) {
                dropped += 1;
            }
        }
        Parsed {
            dropped,
            damaged,
            reset: None,
        }
    }

    /// Adds the valid records another process wrote since we opened (call under the lock).
    fn merge_from_disk(&mut self) -> Result<(), CacheError> {
        match read_cache_file(&self.path) {
            Ok(Some(bytes)) => {
                let parsed = self.parse(&bytes);
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

    /// Replaces the file with the header and every held vector (call under the lock).
    fn rewrite_file(&self) -> Result<(), CacheError> {
        let mut buf = self.header();
        buf.reserve(self.keys.len() * self.record_len());
        for i in 0..self.keys.len() {
            self.encode_record(i, &mut buf);
        }
        write_atomic(&self.path, &buf)?;
        Ok(())
    }
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
