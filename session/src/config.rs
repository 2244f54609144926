//! `.code-intel/config.json`: the project's settings and their defaults
//! (docs/DESIGN.md#configuration).
//!
//! Unknown keys are kept (so a newer or older file round-trips), missing keys take their defaults.
//! The file is optional: without it every setting has its default, and the gate runs in
//! [`GateMode::Strict`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::persist;

use crate::state_dir::StateDir;

/// How the write gate treats writes (PreToolUse for Edit/Write/MultiEdit/NotebookEdit and Bash).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GateMode {
    /// No active session: writes are denied with "start /code". The default.
    #[default]
    Strict,
    /// Writes are gated only while a session is bound to the Claude Code session.
    Session,
    /// The gate lets every write through.
    Off,
}

/// Weights of the hybrid score (`search_weights`, docs/DESIGN.md#hybrid); each in `[0, 1]`.
///
/// The defaults are not the Python-era design's (vector 0.4, keyword 0.2, definition 0.3,
/// reference 0.1). Once the lexical side ranked change requests by file (docs/EVALUATION.md,
/// "Ranking for change requests"), the earlier vector-dominant mix (vector 0.85) fell below
/// lexical search on English change requests (vite, 188 requests: R@10 0.835 vs 0.894), while
/// keyword 0.7 / vector 0.3 kept English at lexical's level (0.899) and lifted the Japanese
/// translations (R@10 0.600 → 0.675, MRR 0.428 → 0.490). Chosen on vite alone (the only corpus
/// embedded in that run): see the caveat there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SearchWeights {
    /// Vector similarity.
    pub vector: f64,
    /// BM25 keyword score.
    pub keyword: f64,
    /// Bonus when the hit is a definition of a query term.
    pub definition: f64,
    /// Bonus from how often the hit's symbol is referenced.
    pub reference: f64,
}

impl Default for SearchWeights {
    fn default() -> Self {
        Self {
            vector: 0.3,
            keyword: 0.7,
            definition: 0.0,
            reference: 0.0,
        }
    }
}

/// Caps on what exploration tools return, since results land in an LLM context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ResultLimits {
    /// Default `max_results` of `search_text` and `find_references`.
    pub max_results: usize,
    /// Hard ceiling a caller may ask for.
    pub max_results_ceiling: usize,
    /// Maximum characters of one returned line or snippet (longer ones are cut, with a marker).
    pub max_line_chars: usize,
    /// Maximum characters of a whole tool result's text fields (approximately 4 chars per token).
    pub max_output_chars: usize,
    /// Maximum lines of context before/after a match.
    pub max_context_lines: usize,
}

impl Default for ResultLimits {
    fn default() -> Self {
        Self {
            max_results: 50,
            max_results_ceiling: 500,
            max_line_chars: 300,
            max_output_chars: 40_000,
            max_context_lines: 10,
        }
    }
}

/// The whole configuration (docs/DESIGN.md#configuration). Field names and most defaults follow the
/// Python-era schema, plus `search_fusion`, `embedding_text`, `gate_mode`, `max_file_bytes`,
/// `window_lines` and `limits` added by this implementation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Embedding model id (default `multilingual-e5-small`).
    pub embedding_model: String,
    /// Opt-in narrowing: directories (repo-relative) to index instead of the whole repository.
    /// Empty (the default) means the whole repository; absent directories are ignored, and when
    /// none of them exists the whole repository is indexed.
    pub source_dirs: Vec<String>,
    /// Gitignore-style globs excluded from indexing and searching, on top of `.gitignore`,
    /// `.ignore` and the scope rules of `index::scope` (vendored trees, lock files, minified and
    /// generated files are skipped with a recorded reason without being listed here).
    pub exclude_patterns: Vec<String>,
    /// `"ast"` (tree-sitter chunks) or `"lines"` (line windows only).
    pub chunk_strategy: String,
    /// Chunks estimated above this many tokens are split.
    pub chunk_max_tokens: usize,
    /// Languages to chunk with a grammar; empty means all supported.
    pub supported_languages: Vec<String>,
    /// Read and kept for configurations written before, but no longer used: `start_session`
    /// always syncs, and every index-backed answer checks the working tree first
    /// (docs/DESIGN.md#freshness).
    pub sync_ttl_hours: f64,
    /// Whether `start_session` syncs the index.
    pub sync_on_start: bool,
    /// Milliseconds an index-backed tool (`find_definitions`, `semantic_search`, the leads, ...)
    /// waits for the incremental sync it starts when the working tree moved since the last one;
    /// past it the tool answers from the last index and names the files that may be stale
    /// (`stale_files`). Default 2000 (docs/DESIGN.md#freshness).
    pub freshness_budget_ms: u64,
    /// Seconds `start_session` waits for a sync before answering with `sync_status: running`.
    pub sync_timeout_seconds: u64,
    /// The ranked search's mode: `auto` (the default: lexical, and hybrid only for a request
    /// written in a script code identifiers are not, such as Japanese — docs/DESIGN.md#search-mode),
    /// `lexical`, `hybrid` or `vector`. With `lexical` the server does not embed the repository
    /// (the model still serves relevance checks and the map). An unknown name is an error where
    /// it is used.
    pub search_mode: String,
    /// Hybrid scoring weights.
    pub search_weights: SearchWeights,
    /// How hybrid search combines its signals: `weighted` (weighted mean of normalised scores,
    /// the default) or `rrf` (weighted reciprocal rank fusion). Chosen by the evaluation of
    /// docs/EVALUATION.md ("Fusion and weights"); an unknown name is an error where it is used.
    pub search_fusion: String,
    /// What is embedded per chunk: `summary` (the default: kind, name split into words,
    /// signature, docstring, body identifiers), `summary_path` (plus the path's words) or `body`
    /// (the chunk's text). Chosen by docs/EVALUATION.md ("Embedding text"); changing it re-embeds
    /// texts the cache does not hold yet.
    pub embedding_text: String,
    /// Texts a ranked search may embed on the spot among its best keyword candidates that have
    /// no vector yet (`index::query_embed`; 0 turns it off). Default 32.
    pub query_embed_max_chunks: usize,
    /// Milliseconds a ranked search may spend embedding its candidates (0 turns it off).
    /// Default 300.
    pub query_embed_max_ms: u64,
    /// Upper bound on indexed chunks.
    pub max_chunks: usize,
    /// Upper bound on the index size, MiB.
    pub max_index_size_mb: u64,
    /// Days after which learned pairs expire.
    pub auto_purge_days: u32,
    /// Memory budget, MiB.
    pub memory_limit_mb: u64,
    /// Lexical search only (no embeddings).
    pub lightweight_mode: bool,
    /// Write gate mode.
    pub gate_mode: GateMode,
    /// Files larger than this many bytes are skipped by the index (default 1 MiB).
    pub max_file_bytes: u64,
    /// Lines per window of the line-window fallback chunker.
    pub window_lines: usize,
    /// Result caps of the exploration tools.
    pub limits: ResultLimits,
    /// Keys this version does not know, kept as they were.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            embedding_model: "multilingual-e5-small".into(),
            source_dirs: Vec::new(),
            exclude_patterns: vec![
                "**/target/**".into(),
                "**/.git/**".into(),
                "**/.code-intel/**".into(),
            ],
            chunk_strategy: "ast".into(),
            chunk_max_tokens: 512,
            supported_languages: Vec::new(),
            sync_ttl_hours: 1.0,
            sync_on_start: true,
            freshness_budget_ms: 2000,
            sync_timeout_seconds: 30,
            search_mode: "auto".into(),
            search_weights: SearchWeights::default(),
            search_fusion: "weighted".into(),
            embedding_text: "summary".into(),
            query_embed_max_chunks: 32,
            query_embed_max_ms: 300,
            max_chunks: 200_000,
            max_index_size_mb: 500,
            auto_purge_days: 30,
            memory_limit_mb: 1024,
            lightweight_mode: false,
            gate_mode: GateMode::Strict,
            max_file_bytes: 1024 * 1024,
            window_lines: 50,
            limits: ResultLimits::default(),
            extra: BTreeMap::new(),
        }
    }
}

/// Errors reading or writing the configuration.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file exists but could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The config file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid JSON for this schema.
    #[error(
        "{path} is not a valid code-intel config ({source}); fix the JSON or delete the file to use the defaults"
    )]
    Parse {
        /// The config file.
        path: PathBuf,
        /// The parse error.
        #[source]
        source: serde_json::Error,
    },
    /// Writing failed.
    #[error(transparent)]
    Write(#[from] persist::PersistError),
}

impl Config {
    /// Path of the config file of the repository at `root`.
    pub fn path(root: &Path) -> PathBuf {
        StateDir::of(root).config()
    }

    /// Loads `<root>/.code-intel/config.json`; a missing file gives [`Config::default`].
    ///
    /// # Errors
    /// [`ConfigError::Read`] if the file exists but cannot be read (or is not a regular file, or
    /// is over [`persist::MAX_STATE_FILE_BYTES`]), [`ConfigError::Parse`] if it is not valid JSON
    /// for this schema.
    pub fn load(root: &Path) -> Result<Self, ConfigError> {
        let path = Self::path(root);
        // Never blocks: a FIFO or device planted here is a read error (the gate then denies).
        match persist::read_regular(&path, persist::MAX_STATE_FILE_BYTES) {
            Ok(Some(bytes)) => {
                serde_json::from_slice(&bytes).map_err(|source| ConfigError::Parse { path, source })
            }
            Ok(None) => Ok(Self::default()),
            Err(source) => Err(ConfigError::Read { path, source }),
        }
    }

    /// Writes the config atomically to `<root>/.code-intel/config.json`.
    ///
    /// # Errors
    /// [`ConfigError::Write`] when the directory or file cannot be written.
    pub fn save(&self, root: &Path) -> Result<(), ConfigError> {
        let mut text = serde_json::to_string_pretty(self).map_err(|source| ConfigError::Parse {
            path: Self::path(root),
            source,
        })?;
        text.push('\n');
        persist::write_atomic(&Self::path(root), text.as_bytes())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_dir::STATE_DIR;

    #[test]
    fn missing_file_gives_defaults_and_unknown_keys_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Config::load(dir.path()).unwrap(), Config::default());
        std::fs::create_dir_all(dir.path().join(STATE_DIR)).unwrap();
        std::fs::write(
            Config::path(dir.path()),
            r#"{"gate_mode":"session","chunk_max_tokens":256,"future_key":[1,2]}"#,
        )
        .unwrap();
        let cfg = Config::load(dir.path()).unwrap();
        assert_eq!(cfg.gate_mode, GateMode::Session);
        assert_eq!(cfg.chunk_max_tokens, 256);
        assert_eq!(cfg.window_lines, 50);
        assert_eq!(cfg.extra["future_key"], serde_json::json!([1, 2]));
        cfg.save(dir.path()).unwrap();
        assert_eq!(Config::load(dir.path()).unwrap(), cfg);
    }

    #[test]
    fn corrupt_file_is_an_error_that_says_how_to_recover() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(STATE_DIR)).unwrap();
        std::fs::write(Config::path(dir.path()), "{not json").unwrap();
        let err = Config::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("delete the file"), "{err}");
    }
}
