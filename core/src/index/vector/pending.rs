//! Pending texts: the embedding texts of the rows that still lack a vector, all of them for the
//! embedding loop and those of a query's candidates for query-time embedding, which keeps the
//! chunks of the files it read last.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::rows::embedding_key_of;
use super::{FileRows, Hash32, Row, VectorIndex};
use crate::index::chunk::{Chunk, ChunkOptions};
use crate::index::embedding_text::EmbeddingText;
use crate::index::framework::Frameworks;
use crate::index::scope::FileRole;
use code_intel_session::repo_path::RepoRoot;

/// One text waiting for its vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingText {
    /// Its embedding key.
    pub key: String,
    /// The text (without the model's passage prefix).
    pub text: String,
}

/// A text waiting for its vector, named rather than held: the file version and first line of a
/// chunk whose embedding text has `key`. An embedding run keeps these (about 100 bytes each)
/// instead of the texts (up to a few KiB each: on spring-framework, 138k pending texts were
/// hundreds of MiB of the server's memory for the hours the background embedding runs), and
/// reads and chunks a group's files again when the group's turn comes ([`TextSource::texts`]).
#[derive(Debug, Clone)]
pub(super) struct PendingRef {
    key: Hash32,
    file: Arc<str>,
    file_sha: Arc<str>,
    start_line: u32,
}

/// What turns [`PendingRef`]s back into texts without the index: the repository, the chunker's
/// options and framework strategies, and the recipe (a copy of the [`VectorIndex`]'s, taken when
/// an embedding run begins).
#[derive(Debug, Clone)]
pub(super) struct TextSource {
    root: RepoRoot,
    chunk_options: ChunkOptions,
    frameworks: Frameworks,
    recipe: EmbeddingText,
    /// The last file [`Self::texts`] chunked.
    carried: Option<Carried>,
}

/// A file's chunks kept from one group of an embedding run to the next: (path, file SHA-256,
/// its chunks).
type Carried = (Arc<str>, Arc<str>, Arc<Vec<Chunk>>);

impl TextSource {
    /// Reads and chunks one file, if its bytes still have `sha256`.
    pub(super) fn chunk_file(&self, path: &str, sha256: &str) -> Option<Vec<Chunk>> {
        chunk_file(
            &self.root,
            &self.chunk_options,
            &self.frameworks,
            path,
            sha256,
        )
    }

    /// The texts of `refs`, in their order, each file read and chunked once; a text whose file
    /// changed since (or whose chunk is gone) is left out. The chunks of the last file of `refs`
    /// are kept for the next call ([`Self::carried`]): a run hands out its texts file by file
    /// ([`VectorIndex::pending_refs`]), so a file whose texts span two groups is chunked once.
    pub(super) fn texts(&mut self, refs: &[PendingRef]) -> Vec<PendingText> {
        let mut chunked: HashMap<Arc<str>, Option<Arc<Vec<Chunk>>>> = HashMap::new();
        // Kept for the same file version only (a run's references name one version per file).
        if let Some((file, file_sha, chunks)) = self.carried.take()
            && refs
                .iter()
                .any(|r| r.file == file && r.file_sha == file_sha)
        {
            chunked.insert(file, Some(chunks));
        }
        let mut out = Vec::with_capacity(refs.len());
        for r in refs {
            let chunks = chunked
                .entry(Arc::clone(&r.file))
                .or_insert_with(|| self.chunk_file(&r.file, &r.file_sha).map(Arc::new));
            let text = chunks.iter().flat_map(|c| c.iter()).find_map(|c| {
                (c.start_line == r.start_line)
                    .then(|| self.recipe.text(c))
                    .filter(|t| embedding_key_of(self.recipe, t) == r.key)
            });
            if let Some(text) = text {
                out.push(PendingText {
                    key: r.key.to_hex(),
                    text,
                });
            }
        }
        self.carried = refs.last().and_then(|r| {
            let chunks = chunked.remove(&r.file)??;
            Some((Arc::clone(&r.file), Arc::clone(&r.file_sha), chunks))
        });
        out
    }
}

/// Reads and chunks the file at repository-relative `path` as the sync does, if its bytes still
/// have `sha256` (hex SHA-256).
pub(super) fn chunk_file(
    root: &RepoRoot,
    options: &ChunkOptions,
    frameworks: &Frameworks,
    path: &str,
    sha256: &str,
) -> Option<Vec<Chunk>> {
    // Regular files only, without blocking: the file may have been replaced by a FIFO.
    let bytes =
        code_intel_session::persist::read_regular(&root.path().join(path), options.max_file_bytes)
            .ok()??;
    if hex::encode(Sha256::digest(&bytes)) != sha256 {
        return None;
    }
    crate::index::sync::chunk_indexed(path, &bytes, options, frameworks)
        .ok()
        .map(|(chunks, _)| chunks)
}

/// One entry of [`VectorIndex`]'s recently chunked files.
pub(super) type RecentChunks = (String, String, std::sync::Arc<Vec<Chunk>>);

/// Files whose chunks [`VectorIndex::pending_for`] keeps: about the size of those files, so a few
/// MiB for ordinary source and at most about 32 × `max_file_bytes` (32 MiB by default).
const RECENT_CHUNKED_FILES: usize = 32;

impl VectorIndex {
    /// [`Self::chunk_file`] through the recently chunked files: a hit when the file's SHA-256 is
    /// the one remembered, else read, chunked and remembered (the oldest entry goes).
    fn chunk_file_recent(&self, path: &str, sha256: &str) -> Option<std::sync::Arc<Vec<Chunk>>> {
        use std::sync::{Arc, PoisonError};
        {
            let mut recent = self
                .recent_chunks
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if let Some(i) = recent.iter().position(|(p, h, _)| p == path && h == sha256)
                && let Some(entry) = recent.remove(i)
            {
                let chunks = Arc::clone(&entry.2);
                recent.push_back(entry);
                return Some(chunks);
            }
        }
        // Chunked outside the lock; two threads chunking the same file get equal chunks.
        let chunks = Arc::new(self.chunk_file(path, sha256)?);
        let mut recent = self
            .recent_chunks
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        recent.retain(|(p, _, _)| p != path);
        while recent.len() >= RECENT_CHUNKED_FILES {
            recent.pop_front();
        }
        recent.push_back((path.to_string(), sha256.to_string(), Arc::clone(&chunks)));
        Some(chunks)
    }

    /// The texts still to embed, one per distinct key: those of source files first, then those
    /// only tests, docs and translations have ([`FileRole`]: ranking weighs them at a fraction,
    /// [`RankParams`](crate::index::rank::RankParams)), so a run cut short or still in the background
    /// has covered what ranking uses most; within each class file by file (path order, then
    /// the chunker's order), so an embedding run, which makes a group's texts again from its
    /// files, chunks each file once (it keeps a group's last file for the next group; the
    /// embedder sorts each call's texts by length for its batches). Ordered shortest first
    /// across the repository instead, a run chunked a file again for every group one of its
    /// texts fell in: on a Python repository of 43k chunks, re-chunking took more of the run's
    /// time than the model (docs/log/2026-12-02-embedding-throughput.md). Reads and chunks the
    /// files that have them; a file changed since the refresh is skipped (the next sync and
    /// refresh pick it up).
    pub fn pending(&self) -> Vec<PendingText> {
        self.text_source().texts(&self.pending_refs())
    }

    /// A copy of what [`TextSource::texts`] needs.
    pub(super) fn text_source(&self) -> TextSource {
        TextSource {
            root: self.root.clone(),
            chunk_options: self.chunk_options.clone(),
            frameworks: self.frameworks.clone(),
            recipe: self.recipe,
            carried: None,
        }
    }

    /// [`Self::pending`] as references: the same texts in the same order, each named by its
    /// file version and first line ([`PendingRef`]).
    pub(super) fn pending_refs(&self) -> Vec<PendingRef> {
        let mut files: Vec<(&String, &FileRows)> = self
            .state
            .files
            .iter()
            .filter(|(_, f)| f.rows.iter().any(|r| self.slot_of(&r.key).is_none()))
            .collect();
        files.sort_by_key(|(p, _)| *p);
        // Position in `out` of each key seen, so a text that a source file shares with a test
        // counts as source.
        let mut seen: HashMap<Hash32, usize> = HashMap::new();
        // (secondary, the reference)
        let mut out: Vec<(bool, PendingRef)> = Vec::new();
        for (path, fr) in files {
            let Some(chunks) = self.chunk_file(path, &fr.sha256) else {
                continue;
            };
            let secondary = FileRole::of(path) != FileRole::Source;
            let (file, file_sha): (Arc<str>, Arc<str>) =
                (path.as_str().into(), fr.sha256.as_str().into());
            for c in &chunks {
                let text = self.recipe.text(c);
                let key = embedding_key_of(self.recipe, &text);
                if self.slot_of(&key).is_some() || !self.refs.contains_key(&key) {
                    continue;
                }
                match seen.get(&key) {
                    Some(&i) => out[i].0 &= secondary,
                    None => {
                        seen.insert(key, out.len());
                        out.push((
                            secondary,
                            PendingRef {
                                key,
                                file: Arc::clone(&file),
                                file_sha: Arc::clone(&file_sha),
                                start_line: c.start_line,
                            },
                        ));
                    }
                }
            }
        }
        // Stable: within a class, files and chunks keep their order.
        out.sort_by_key(|(secondary, _)| *secondary);
        out.into_iter().map(|(_, r)| r).collect()
    }

    /// The row of `file` that starts at `start_line` with chunk SHA-256 `sha256` (as a lexical hit
    /// names a chunk), and its file's rows; `None` when the rows do not know it.
    pub(super) fn row_at(
        &self,
        file: &str,
        start_line: u32,
        sha256: &str,
    ) -> Option<(&FileRows, &Row)> {
        let sha256 = Hash32::from_hex(sha256)?;
        let fr = self.state.files.get(file)?;
        let row = fr
            .rows
            .iter()
            .find(|r| r.start_line == start_line && r.sha256 == sha256)?;
        Some((fr, row))
    }

    /// How many distinct texts of `chunks` (named as in [`Self::pending_for`]) have no vector, at
    /// most `limit`: from the rows alone, no file is read. Chunks the rows do not know are not
    /// counted.
    pub fn missing_for(&self, chunks: &[(&str, u32, &str)], limit: usize) -> usize {
        let mut seen = HashSet::new();
        for &(file, start_line, sha256) in chunks {
            if seen.len() >= limit {
                break;
            }
            let Some((_, row)) = self.row_at(file, start_line, sha256) else {
                continue;
            };
            if self.slot_of(&row.key).is_none() {
                seen.insert(row.key);
            }
        }
        seen.len()
    }

    /// The texts still to embed for the given chunks, each named by (file, start line, chunk
    /// SHA-256) as a lexical hit names it: one per distinct key without a vector, in the order
    /// of `chunks` (a query's candidates, best first). Chunks the rows do not know (the vectors
    /// are behind the index) and files changed since the refresh are skipped. Each file is read
    /// and chunked once per call, and no file is read once `limit` texts are found; the chunks of
    /// the last 32 files read are kept for the next calls (keyed by the file's SHA-256), so
    /// repeated and overlapping queries do not chunk them again.
    pub fn pending_for(&self, chunks: &[(&str, u32, &str)], limit: usize) -> Vec<PendingText> {
        let mut chunked: HashMap<&str, Option<std::sync::Arc<Vec<Chunk>>>> = HashMap::new();
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for &(file, start_line, sha256) in chunks {
            if out.len() >= limit {
                break;
            }
            let Some((fr, row)) = self.row_at(file, start_line, sha256) else {
                continue;
            };
            if self.slot_of(&row.key).is_some() || !seen.insert(row.key) {
                continue;
            }
            let file_chunks = chunked
                .entry(file)
                .or_insert_with(|| self.chunk_file_recent(file, &fr.sha256));
            let Some(c) = file_chunks.as_ref().and_then(|cs| {
                cs.iter()
                    .find(|c| c.start_line == start_line && c.sha256 == sha256)
            }) else {
                continue;
            };
            let text = self.recipe.text(c);
            if embedding_key_of(self.recipe, &text) == row.key {
                out.push(PendingText {
                    key: row.key.to_hex(),
                    text,
                });
            }
        }
        out
    }
}
