//! Rows: the chunks of the lexical index as the vector side keeps them, grouped by file with the
//! file version they were made from, and the handoff through which a sync's chunking workers pass
//! them on.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{VectorError, configured_recipe};
use crate::index::chunk::{Chunk, ChunkKind};
use crate::index::embedding_text::{EmbeddingText, embedding_key_bytes};
use crate::index::lang::Language;
use code_intel_session::config::Config;

/// A SHA-256 held as its 32 bytes (a chunk's content hash, an embedding key), written as 64
/// lowercase hex digits wherever it is serialised, as the hex `String` it replaced (so the JSON of
/// `state.json` and `state.log` reads the same; 32 bytes instead of a 64-byte string and its
/// 24-byte header per hash in memory).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Hash32(pub [u8; 32]);

impl Hash32 {
    /// Parses 64 hex digits (either case); `None` for anything else.
    pub fn from_hex(hex: &str) -> Option<Self> {
        let mut bytes = [0u8; 32];
        hex::decode_to_slice(hex, &mut bytes).ok()?;
        Some(Self(bytes))
    }

    /// The 64 lowercase hex digits.
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }
}

impl std::fmt::Display for Hash32 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl std::fmt::Debug for Hash32 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Hash32({})", self.to_hex())
    }
}

impl Serialize for Hash32 {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut buf = [0u8; 64];
        hex::encode_to_slice(self.0, &mut buf).map_err(serde::ser::Error::custom)?;
        s.serialize_str(std::str::from_utf8(&buf).map_err(serde::ser::Error::custom)?)
    }
}

impl<'de> Deserialize<'de> for Hash32 {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Hash32;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("64 hex digits")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Hash32, E> {
                Hash32::from_hex(v).ok_or_else(|| E::custom(format!("not a SHA-256: {v:?}")))
            }
        }
        d.deserialize_str(Visitor)
    }
}

/// One chunk as the vector side keeps it: enough to rank a search hit without the lexical index
/// (location, symbol, kind, language, the hashes). Its qualified name, signature and snippet are
/// not kept (with the hex hashes they were most of the rows' memory: 534 MiB for a server on
/// spring-framework with its 143k rows open): hybrid search reads them from the chunk's stored
/// document for the hits it shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    /// SHA-256 of the chunk content (as the lexical index stores it, in hex).
    pub sha256: Hash32,
    /// The embedding key ([`embedding_key`](crate::index::embedding_text::embedding_key) of the chunk's embedding text).
    pub key: Hash32,
    /// First line, 1-based.
    pub start_line: u32,
    /// Last line, 1-based inclusive.
    pub end_line: u32,
    /// Symbol name.
    pub symbol: Box<str>,
    /// Chunk kind, serialised snake_case.
    pub kind: ChunkKind,
    /// Language, serialised as its id.
    pub language: Language,
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
        sha256: Hash32::from_hex(&c.sha256).unwrap_or_default(),
        key: embedding_key_of(recipe, &text),
        start_line: c.start_line,
        end_line: c.end_line,
        symbol: c.symbol.as_str().into(),
        kind: c.kind,
        language: c.language,
    }
}

/// [`embedding_key`] as a [`Hash32`].
pub(super) fn embedding_key_of(recipe: EmbeddingText, text: &str) -> Hash32 {
    Hash32(embedding_key_bytes(recipe, text))
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
