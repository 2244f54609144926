//! Rows: the chunks of the lexical index as the vector side keeps them, grouped by file with the
//! file version they were made from, and the handoff through which a sync's chunking workers pass
//! them on.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{VectorError, configured_recipe};
use crate::index::chunk::{Chunk, ChunkKind};
use crate::index::embedding_text::{EmbeddingText, embedding_key};
use crate::index::lang::Language;
use crate::index::lexical::snippet_of;
use code_intel_session::config::Config;

/// One chunk as the vector side keeps it: enough to answer a search without the lexical index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    /// Hex SHA-256 of the chunk content (as the lexical index stores it).
    pub sha256: String,
    /// The embedding key ([`embedding_key`] of the chunk's embedding text).
    pub key: String,
    /// First line, 1-based.
    pub start_line: u32,
    /// Last line, 1-based inclusive.
    pub end_line: u32,
    /// Symbol name.
    pub symbol: String,
    /// Qualified name.
    pub qualified_name: String,
    /// Chunk kind, serialised snake_case.
    pub kind: ChunkKind,
    /// Language, serialised as its id.
    pub language: Language,
    /// Signature (may be empty).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub signature: String,
    /// The first lines of the chunk ([`snippet_of`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub snippet: String,
}

/// The rows of one file and the file version they were made from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRows {
    /// Hex SHA-256 of the file bytes (as in `sync_state.json`).
    pub sha256: String,
    /// The file's chunks, in chunker order.
    pub rows: Vec<Row>,
}

/// The row of chunk `c` under `recipe`.
pub(super) fn make_row(recipe: EmbeddingText, c: &Chunk) -> Row {
    let text = recipe.text(c);
    Row {
        sha256: c.sha256.clone(),
        key: embedding_key(recipe, &text),
        start_line: c.start_line,
        end_line: c.end_line,
        symbol: c.symbol.clone(),
        qualified_name: c.qualified_name.clone(),
        kind: c.kind,
        language: c.language,
        signature: c.signature.clone(),
        snippet: snippet_of(&c.content),
    }
}

/// Rows made from the chunks a lexical sync already has in hand, so that the
/// [`VectorIndex::refresh_with`] after it does not read and chunk every changed file a second
/// time (on a full index of Laravel's framework sources that second pass was about 40 % of the
/// CPU time of `code-intel index`; `docs/BENCHMARKS.md`).
///
/// Fill it through [`Self::offer`] (thread-safe: the sync's chunking workers call it, see
/// [`CodeIndex::sync_observed`]), then hand it to [`VectorIndex::refresh_with`], which takes
/// the rows of a file only when their file SHA-256 is the one `sync_state.json` records, and
/// chunks the file itself otherwise. Memory: the rows the vector state will hold anyway
/// (a few hundred bytes per chunk), moved into it by the refresh.
///
/// [`VectorIndex::refresh_with`]: super::VectorIndex::refresh_with
/// [`CodeIndex::sync_observed`]: crate::index::CodeIndex::sync_observed
#[derive(Debug)]
pub struct RowHandoff {
    recipe: EmbeddingText,
    files: std::sync::Mutex<HashMap<String, FileRows>>,
}

impl RowHandoff {
    /// An empty handoff for the config's embedding-text recipe.
    ///
    /// # Errors
    /// [`VectorError::UnknownRecipe`] for an `embedding_text` that names no recipe.
    pub fn new(config: &Config) -> Result<Self, VectorError> {
        Ok(Self {
            recipe: configured_recipe(config)?,
            files: std::sync::Mutex::new(HashMap::new()),
        })
    }

    /// Records the rows of `chunks`, the chunks of the file at repository-relative `path` whose
    /// bytes hash to `sha256` (hex SHA-256).
    pub fn offer(&self, path: &str, sha256: &str, chunks: &[Chunk]) {
        let rows = chunks.iter().map(|c| make_row(self.recipe, c)).collect();
        let entry = FileRows {
            sha256: sha256.to_string(),
            rows,
        };
        // A poisoned lock means a chunking worker panicked; the refresh then chunks the file.
        if let Ok(mut files) = self.files.lock() {
            files.insert(path.to_string(), entry);
        }
    }

    /// Files offered so far.
    pub fn len(&self) -> usize {
        self.files.lock().map_or(0, |f| f.len())
    }

    /// Whether nothing was offered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rows offered for `path` at version `sha256`, removed from the handoff.
    pub(super) fn take(&self, recipe: EmbeddingText, path: &str, sha256: &str) -> Option<Vec<Row>> {
        if recipe != self.recipe {
            return None;
        }
        let mut files = self.files.lock().ok()?;
        match files.remove(path) {
            Some(f) if f.sha256 == sha256 => Some(f.rows),
            _ => None,
        }
    }
}
