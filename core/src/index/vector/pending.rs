//! Pending texts: the embedding texts of the rows that still lack a vector, all of them for the
//! embedding loop and those of a query's candidates for query-time embedding, which keeps the
//! chunks of the files it read last.

use std::collections::{HashMap, HashSet};

use super::{FileRows, Row, VectorIndex};
use crate::index::chunk::Chunk;
use crate::index::embedding_text::embedding_key;
use crate::index::scope::FileRole;

/// One text waiting for its vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingText {
    /// Its embedding key.
    pub key: String,
    /// The text (without the model's passage prefix).
    pub text: String,
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
    /// has covered what ranking uses most; shortest first within each class (so batches pad
    /// little). Reads and chunks the files that have them; a file changed since the refresh is
    /// skipped (the next sync and refresh pick it up).
    pub fn pending(&self) -> Vec<PendingText> {
        let mut files: Vec<(&String, &FileRows)> = self
            .state
            .files
            .iter()
            .filter(|(_, f)| f.rows.iter().any(|r| !self.slot_of.contains_key(&r.key)))
            .collect();
        files.sort_by_key(|(p, _)| *p);
        // Position in `out` of each key seen, so a text that a source file shares with a test
        // counts as source.
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut out: Vec<(bool, PendingText)> = Vec::new();
        for (path, fr) in files {
            let Some(chunks) = self.chunk_file(path, &fr.sha256) else {
                continue;
            };
            let secondary = FileRole::of(path) != FileRole::Source;
            for c in &chunks {
                let text = self.recipe.text(c);
                let key = embedding_key(self.recipe, &text);
                if self.slot_of.contains_key(&key) || !self.refs.contains_key(&key) {
                    continue;
                }
                match seen.get(&key) {
                    Some(&i) => out[i].0 &= secondary,
                    None => {
                        seen.insert(key.clone(), out.len());
                        out.push((secondary, PendingText { key, text }));
                    }
                }
            }
        }
        out.sort_by_cached_key(|(secondary, p)| (*secondary, p.text.chars().count()));
        out.into_iter().map(|(_, p)| p).collect()
    }

    /// The row of `file` that starts at `start_line` with chunk SHA-256 `sha256` (as a lexical hit
    /// names a chunk), and its file's rows; `None` when the rows do not know it.
    fn row_at(&self, file: &str, start_line: u32, sha256: &str) -> Option<(&FileRows, &Row)> {
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
            if !self.slot_of.contains_key(&row.key) {
                seen.insert(row.key.as_str());
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
            if self.slot_of.contains_key(&row.key) || !seen.insert(row.key.clone()) {
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
            if embedding_key(self.recipe, &text) == row.key {
                out.push(PendingText {
                    key: row.key.clone(),
                    text,
                });
            }
        }
        out
    }
}
