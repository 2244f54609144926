//! Reading `.code-intel/learned_pairs.json`, the learned map of seed 004 (version 2; seed 001's
//! version 1 reads the same): (natural-language term, symbol) pairs that succeeded in earlier
//! sessions. Writing it belongs to the outcome recording (a later issue); this module only reads.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// File name inside the state directory (`.code-intel/`).
pub const LEARNED_PAIRS_FILE: &str = "learned_pairs.json";

/// The newest format version this code reads.
pub const LEARNED_PAIRS_VERSION: u32 = 2;

/// The whole file (seed 004 §3.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LearnedPairs {
    /// 1 (seed 001) or 2 (seed 004).
    pub version: u32,
    /// RFC 3339, last write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    /// Model whose similarities the pairs carry (`intfloat/multilingual-e5-small`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedding_model: Option<String>,
    /// The pairs.
    #[serde(default)]
    pub pairs: Vec<LearnedPair>,
}

/// One learned pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LearnedPair {
    /// The request's term (`ログイン機能`).
    pub nl_term: String,
    /// The symbol it mapped to (`AuthService`).
    pub symbol: String,
    /// The similarity recorded when it was learned (model-specific, informational).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
    /// The evidence the model gave.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_evidence: Option<String>,
    /// The session that learned it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learned_at: Option<String>,
    /// The agreement Markdown under `.code-intel/agreements/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agreement_file: Option<String>,
}

/// Why the learned pairs could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LearnedPairsError {
    /// The file exists but cannot be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file does not parse as learned pairs.
    #[error("{path} is not valid learned pairs JSON ({source}); fix or delete it")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parse error.
        #[source]
        source: serde_json::Error,
    },
    /// A format this code does not know.
    #[error(
        "{path} has version {found}, this code-intel reads versions 1 to {LEARNED_PAIRS_VERSION}"
    )]
    Version {
        /// The file.
        path: PathBuf,
        /// The version found.
        found: u32,
    },
}

/// Reads `<state_dir>/learned_pairs.json`; `Ok(None)` when there is none.
///
/// # Errors
/// [`LearnedPairsError`] when the file exists but is unreadable, malformed or of an unknown version.
pub fn load(state_dir: &Path) -> Result<Option<LearnedPairs>, LearnedPairsError> {
    let path = state_dir.join(LEARNED_PAIRS_FILE);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(LearnedPairsError::Read { path, source }),
    };
    let pairs: LearnedPairs =
        serde_json::from_slice(&bytes).map_err(|source| LearnedPairsError::Parse {
            path: path.clone(),
            source,
        })?;
    if !(1..=LEARNED_PAIRS_VERSION).contains(&pairs.version) {
        return Err(LearnedPairsError::Version {
            path,
            found: pairs.version,
        });
    }
    Ok(Some(pairs))
}

/// The pairs for `term` (equal after [`super::same_term`]) whose symbol is one of `symbols`
/// (seed 001: `p.nl_term == target_feature and p.symbol in symbols_identified`), in file order.
pub fn matches(pairs: &[LearnedPair], term: &str, symbols: &[&str]) -> Vec<LearnedPair> {
    pairs
        .iter()
        .filter(|p| super::same_term(&p.nl_term, term) && symbols.contains(&p.symbol.as_str()))
        .cloned()
        .collect()
}
