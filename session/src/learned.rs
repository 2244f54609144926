//! The learned map's files (docs/DESIGN.md#map-forest): `.code-intel/learned_pairs.json`, the
//! source of truth of (natural-language term, symbol) pairs that succeeded, and
//! `.code-intel/agreements/*.md`, one human-readable agreement per pair (plus any an agreement a
//! person writes). Reading them (the files the Python system wrote read the same), merging new
//! pairs in under the file lock, expiry (`auto_purge_days`), and the agreement Markdown: rendering,
//! parsing, naming.
//!
//! Searching the map is `index::map`'s (feature `embed`); this module needs no index.
//!
//! # Files
//! - `learned_pairs.json` (docs/DESIGN.md#learned-pairs): version 2 (`nl_term`, `symbol`,
//!   `similarity`, `code_evidence`, `session_id`, `learned_at`, `agreement_file`); version 1 (the
//!   Python system's first format, no `agreement_file`) reads the same and is written back as
//!   version 2. Keys this code does not know are kept. A file that does not parse is never
//!   overwritten: [`learn`] refuses and says how to fix it.
//! - `agreements/<name>.md`: front matter (`doc_type: agreement`, `nl_term`, `symbol`,
//!   `symbol_normalized`, `similarity`, `session_id`, `learned_at`) and the sections
//!   (`## 根拠 (Code Evidence)`, `## 関連ファイル`, `## セッション情報`) of
//!   docs/DESIGN.md#agreements, with the symbol's camelCase split (`symbol_normalized`) so a
//!   natural-language search finds it. Sections a person adds are kept when the pair is learned
//!   again.
//!
//! # Agreement file names
//! The Python-era design left open `{nl_term}_{symbol}.md` or `{session_id}.md`
//! (docs/DESIGN.md#agreements). Chosen:
//! `{nl_term}_{symbol}-{hash}.md` ([`agreement_file_name`]). One file per pair, not per session, so
//! learning a pair again rewrites its file instead of adding a near-copy; the readable parts are
//! slugs (letters and digits of any script, NFC, the rest `-`, at most 40 characters each; the
//! term lower-cased), and
//! `hash` (8 hex digits of SHA-256 over the normalised term and the symbol) keeps pairs apart whose
//! slugs collide, on case-insensitive file systems too. A pair that already names a file (the
//! Python system's `login_auth.md`) keeps it.
//!
//! # Concurrency
//! [`learn`] holds the lock of `learned_pairs.json` ([`FileLock`]) from reading the pairs to the
//! rename of the new file, agreements included: concurrent writers (threads, MCP servers of two
//! Claude Code windows) serialise and none loses a pair.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use unicode_normalization::UnicodeNormalization as _;

use crate::persist::{self, FileLock, PersistError};
use crate::query_frame::normalize_for_quote;
use crate::state_dir::StateDir;

/// The newest format version this code reads and the one it writes.
pub const LEARNED_PAIRS_VERSION: u32 = 2;
/// Agreements read at most (a map is a few dozen entries; this bounds a pathological directory).
pub const MAX_AGREEMENTS: usize = 1000;
/// The `embedding_model` written into a new file (docs/DESIGN.md#learned-pairs; the model the
/// similarities of `confirm_symbol_relevance` come from).
pub const DEFAULT_EMBEDDING_MODEL: &str = "intfloat/multilingual-e5-small";
/// Largest agreement file read, in bytes (a generated one is a few KiB); a larger one is
/// skipped, and named by `code-intel doctor`.
pub const MAX_AGREEMENT_BYTES: u64 = 1 << 20;
/// Characters of each slug of an agreement file name.
const SLUG_CHARS: usize = 40;

/// The whole `learned_pairs.json` (docs/DESIGN.md#learned-pairs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LearnedPairs {
    /// 1 (the Python system's first format) or 2 (with `agreement_file`).
    pub version: u32,
    /// RFC 3339, last write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    /// Model whose similarities the pairs carry (`intfloat/multilingual-e5-small`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedding_model: Option<String>,
    /// The pairs, in file order.
    #[serde(default)]
    pub pairs: Vec<LearnedPair>,
    /// Keys this version does not know, kept as they were.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// One learned pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LearnedPair {
    /// The request's term (`ログイン機能`).
    pub nl_term: String,
    /// The symbol it maps to (`AuthService`).
    pub symbol: String,
    /// The cosine recorded when it was learned (model-specific, informational).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
    /// The evidence the model gave.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_evidence: Option<String>,
    /// The session that learned it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// When it was learned: RFC 3339, or the Python system's offset-less ISO 8601 (read as UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learned_at: Option<String>,
    /// The agreement Markdown, relative to `.code-intel/agreements/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agreement_file: Option<String>,
    /// Keys this version does not know, kept as they were.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

impl LearnedPair {
    /// Whether this pair is the pair of `nl_term` and `symbol`: the terms equal after quote
    /// normalisation (NFKC, case, whitespace), the symbols after trimming.
    pub fn is(&self, nl_term: &str, symbol: &str) -> bool {
        normalize_for_quote(&self.nl_term) == normalize_for_quote(nl_term)
            && self.symbol.trim() == symbol.trim()
    }
}

/// Why the learned pairs could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LearnedPairsError {
    /// The file exists but cannot be read: not a regular file (a FIFO, a directory, a device),
    /// over [`persist::MAX_STATE_FILE_BYTES`], or an I/O error.
    #[error(
        "cannot read {path}: {source}; run `code-intel repair` (it moves the file aside and rebuilds the pairs from the agreements)"
    )]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file does not parse as learned pairs.
    #[error(
        "{path} is not valid learned pairs JSON ({source}); run `code-intel repair` (it keeps a copy and recovers the pairs it can read, and those the agreements restate), or fix it by hand"
    )]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parse error.
        #[source]
        source: serde_json::Error,
    },
    /// A format this code does not know.
    #[error(
        "{path} has version {found}, this code-intel reads versions 1 to {LEARNED_PAIRS_VERSION}: upgrade code-intel, or move the file away to start an empty map"
    )]
    Version {
        /// The file.
        path: PathBuf,
        /// The version found.
        found: u32,
    },
}

/// Path of `learned_pairs.json` in a state directory.
pub fn pairs_path(state_dir: &Path) -> PathBuf {
    StateDir::at(state_dir).learned_pairs()
}

/// Reads `<state_dir>/learned_pairs.json`; `Ok(None)` when there is none.
///
/// # Errors
/// [`LearnedPairsError`] when the file exists but is unreadable, malformed or of an unknown version.
pub fn load(state_dir: &Path) -> Result<Option<LearnedPairs>, LearnedPairsError> {
    let path = pairs_path(state_dir);
    // Never blocks: a FIFO or device planted here is an error, not a hang (issue 40).
    let bytes = match persist::read_regular(&path, persist::MAX_STATE_FILE_BYTES) {
        Ok(Some(b)) => b,
        Ok(None) => return Ok(None),
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

/// The pairs for `term` (equal after quote normalisation) whose symbol is one of `symbols`
/// (docs/DESIGN.md#cached-pairs: same term, symbol among those named), in file order.
pub fn matches(pairs: &[LearnedPair], term: &str, symbols: &[&str]) -> Vec<LearnedPair> {
    pairs
        .iter()
        .filter(|p| {
            normalize_for_quote(&p.nl_term) == normalize_for_quote(term)
                && symbols.contains(&p.symbol.as_str())
        })
        .cloned()
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Expiry

/// When learned knowledge expires: `auto_purge_days` after its `learned_at` (default 30,
/// docs/DESIGN.md#purge). `days == 0` turns expiry off.
/// Entries without a readable `learned_at` (hand-written agreements) never expire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expiry {
    /// The present.
    pub now: jiff::Timestamp,
    /// `auto_purge_days`; 0 = never.
    pub days: u32,
}

impl Expiry {
    /// Expiry after `days` days, measured from the current time.
    pub fn after_days(days: u32) -> Self {
        Self {
            now: jiff::Timestamp::now(),
            days,
        }
    }

    /// Whether something learned at `learned_at` has expired.
    pub fn is_expired(&self, learned_at: Option<&str>) -> bool {
        if self.days == 0 {
            return false;
        }
        let Some(at) = learned_at.and_then(parse_learned_at) else {
            return false;
        };
        let age = self.now.as_second().saturating_sub(at.as_second());
        age > i64::from(self.days) * 86_400
    }
}

/// Parses a `learned_at`: RFC 3339 (what this code writes), or an ISO 8601 date-time or date
/// without offset (Python's `datetime.now().isoformat()`), taken as UTC.
pub fn parse_learned_at(text: &str) -> Option<jiff::Timestamp> {
    let text = text.trim();
    if let Ok(t) = text.parse::<jiff::Timestamp>() {
        return Some(t);
    }
    if let Ok(dt) = text.parse::<jiff::civil::DateTime>() {
        return dt
            .to_zoned(jiff::tz::TimeZone::UTC)
            .ok()
            .map(|z| z.timestamp());
    }
    text.parse::<jiff::civil::Date>()
        .ok()
        .and_then(|d| d.to_zoned(jiff::tz::TimeZone::UTC).ok())
        .map(|z| z.timestamp())
}

/// The current time as RFC 3339 in whole seconds (`2025-01-12T14:35:00Z`).
fn now_seconds(now: jiff::Timestamp) -> String {
    jiff::Timestamp::from_second(now.as_second())
        .unwrap_or(now)
        .to_string()
}

// ---------------------------------------------------------------------------------------------
// Agreements

/// Splits an identifier into words for people and for natural-language search
/// (`symbol_normalized` of docs/DESIGN.md#agreements, the Python system's `split_camel_case`):
/// camelCase and PascalCase boundaries (`AuthService` → `Auth Service`, `HTTPServer` →
/// `HTTP Server`) and the separators `_ - . :: \ / #` become spaces.
pub fn split_camel_case(symbol: &str) -> String {
    let chars: Vec<char> = symbol.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !out.ends_with(' ') && !out.is_empty() {
                out.push(' ');
            }
            continue;
        }
        if i > 0 && c.is_uppercase() && !out.ends_with(' ') && !out.is_empty() {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_lower) {
                out.push(' ');
            }
        }
        out.push(c);
    }
    out.trim_end().to_string()
}

fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.nfc() {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let trimmed: String = out.trim_matches('-').chars().take(SLUG_CHARS).collect();
    trimmed.trim_end_matches('-').to_string()
}

/// The agreement file name of a pair: `{nl_term}_{symbol}-{hash}.md` (see the module docs), the
/// term part from its quote-normalised form (NFKC, lower case). Stable: the same pair (terms equal
/// after quote normalisation) always gets the same name.
pub fn agreement_file_name(nl_term: &str, symbol: &str) -> String {
    let mut h = Sha256::new();
    h.update(normalize_for_quote(nl_term).as_bytes());
    h.update([0]);
    h.update(symbol.trim().as_bytes());
    let hash = hex::encode(&h.finalize()[..4]);
    let term = Some(slug(&normalize_for_quote(nl_term))).filter(|s| !s.is_empty());
    let sym = Some(slug(symbol)).filter(|s| !s.is_empty());
    format!(
        "{}_{}-{hash}.md",
        term.as_deref().unwrap_or("term"),
        sym.as_deref().unwrap_or("symbol")
    )
}

/// Whether `name` is a plain `*.md` file name (no directory part, not hidden).
fn is_plain_md_name(name: &str) -> bool {
    name.ends_with(".md")
        && name.len() > 3
        && !name.starts_with('.')
        && !name.contains(['/', '\\', '\0'])
}

/// The session an agreement was learned in (its session section, docs/DESIGN.md#agreements).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionInfo {
    /// IMPLEMENT / MODIFY / INVESTIGATE / QUESTION.
    pub intent: String,
    /// The QueryFrame's slots at success, `(slot, value)` in slot order.
    pub query_frame: Vec<(String, String)>,
}

/// An agreement as parsed from its Markdown.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Agreement {
    /// File name under `.code-intel/agreements/`.
    pub file: String,
    /// `doc_type` (`agreement`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc_type: Option<String>,
    /// `nl_term`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nl_term: Option<String>,
    /// `symbol`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// `similarity`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
    /// `session_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// `learned_at`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learned_at: Option<String>,
    /// The bullet items of `## 根拠 (Code Evidence)`, one per line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_evidence: Option<String>,
    /// The paths listed under `## 関連ファイル` (backticks removed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related_files: Vec<String>,
    /// Everything after the front matter.
    #[serde(skip)]
    pub body: String,
}

/// `key: value` lines between a leading `---` line and the next `---` line, and the rest. Values
/// lose one level of matching quotes. Without front matter: no fields, the whole text.
fn front_matter(text: &str) -> (Vec<(String, String)>, &str) {
    let text = text.trim_start_matches('\u{feff}');
    let Some(rest) = text.strip_prefix("---") else {
        return (Vec::new(), text);
    };
    let Some(end) = rest.find("\n---") else {
        return (Vec::new(), text);
    };
    let fields = rest[..end]
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| {
            let v = v.trim();
            let unquoted = ['"', '\'']
                .iter()
                .find_map(|q| v.strip_prefix(*q).and_then(|s| s.strip_suffix(*q)))
                .unwrap_or(v);
            (k.trim().to_string(), unquoted.to_string())
        })
        .collect();
    let after = &rest[end + 4..];
    let body = after.strip_prefix('-').unwrap_or(after);
    let body = body.trim_start_matches(['-', '\r', '\n']);
    (fields, body)
}

/// Splits a Markdown body at `## ` headings: the text before the first heading, then
/// `(heading, content)` per section.
fn sections(body: &str) -> (String, Vec<(String, String)>) {
    let mut head = String::new();
    let mut out: Vec<(String, String)> = Vec::new();
    for line in body.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            out.push((h.trim().to_string(), String::new()));
        } else if let Some((_, content)) = out.last_mut() {
            content.push_str(line);
            content.push('\n');
        } else {
            head.push_str(line);
            head.push('\n');
        }
    }
    (head, out)
}

fn is_evidence_heading(h: &str) -> bool {
    h.starts_with("根拠") || h.to_lowercase().contains("code evidence")
}

fn is_files_heading(h: &str) -> bool {
    h.starts_with("関連ファイル") || h.to_lowercase().starts_with("related files")
}

fn is_session_heading(h: &str) -> bool {
    h.starts_with("セッション情報") || h.to_lowercase().starts_with("session")
}

fn bullets(content: &str) -> Vec<String> {
    content
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| {
            l.strip_prefix("- ")
                .or_else(|| l.strip_prefix("* "))
                .unwrap_or(l)
                .trim()
                .to_string()
        })
        .collect()
}

/// Parses an agreement's Markdown (the format of docs/DESIGN.md#agreements, with or without
/// `symbol_normalized`, or any Markdown: fields missing from it stay `None`).
pub fn parse_agreement(file: &str, text: &str) -> Agreement {
    let (fields, body) = front_matter(text);
    let get = |k: &str| {
        fields
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
            .filter(|v| !v.is_empty())
    };
    let (_, secs) = sections(body);
    let evidence = secs
        .iter()
        .find(|(h, _)| is_evidence_heading(h))
        .map(|(_, c)| bullets(c).join("\n"))
        .filter(|e| !e.is_empty());
    let related_files = secs
        .iter()
        .find(|(h, _)| is_files_heading(h))
        .map(|(_, c)| {
            bullets(c)
                .into_iter()
                .map(|b| b.trim_matches('`').to_string())
                .collect()
        })
        .unwrap_or_default();
    Agreement {
        file: file.to_string(),
        doc_type: get("doc_type"),
        nl_term: get("nl_term"),
        symbol: get("symbol"),
        similarity: get("similarity").and_then(|s| s.parse().ok()),
        session_id: get("session_id"),
        learned_at: get("learned_at"),
        code_evidence: evidence,
        related_files,
        body: body.to_string(),
    }
}

/// What an agreement file is rendered from.
#[derive(Debug, Clone, PartialEq)]
pub struct AgreementDoc<'a> {
    /// The pair.
    pub pair: &'a LearnedPair,
    /// Related files (repository-relative, optionally `path:line`).
    pub related_files: &'a [String],
    /// The session it was learned in.
    pub session: Option<&'a SessionInfo>,
    /// Sections of an earlier version of the file that the generator does not write (kept).
    pub kept_sections: &'a [(String, String)],
}

/// A front-matter value on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Renders an agreement (docs/DESIGN.md#agreements, with `symbol_normalized`).
pub fn render_agreement(doc: &AgreementDoc<'_>) -> String {
    use std::fmt::Write as _;
    let p = doc.pair;
    let (term, symbol) = (one_line(&p.nl_term), one_line(&p.symbol));
    let split = split_camel_case(&symbol);
    let mut s = String::from("---\ndoc_type: agreement\n");
    // Writing into a String cannot fail.
    let _ = writeln!(s, "nl_term: {term}");
    let _ = writeln!(s, "symbol: {symbol}");
    let _ = writeln!(s, "symbol_normalized: {split}");
    if let Some(sim) = p.similarity {
        let _ = writeln!(s, "similarity: {sim:.4}");
    }
    if let Some(id) = &p.session_id {
        let _ = writeln!(s, "session_id: {}", one_line(id));
    }
    if let Some(at) = &p.learned_at {
        let _ = writeln!(s, "learned_at: {}", one_line(at));
    }
    let _ = write!(
        s,
        "---\n\n# {term} → {symbol}\n\n**シンボル（分解）**: {split}\n\n## 根拠 (Code Evidence)\n\n"
    );
    let evidence = p.code_evidence.as_deref().unwrap_or("").trim();
    if evidence.is_empty() {
        s.push_str("- (none recorded)\n");
    }
    for line in evidence.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if line.starts_with("- ") || line.starts_with("* ") {
            let _ = writeln!(s, "{line}");
        } else {
            let _ = writeln!(s, "- {line}");
        }
    }
    if !doc.related_files.is_empty() {
        s.push_str("\n## 関連ファイル\n\n");
        for f in doc.related_files {
            let _ = writeln!(s, "- `{}`", one_line(f));
        }
    }
    if let Some(info) = doc.session {
        let _ = write!(s, "\n## セッション情報\n\n- Intent: {}\n", info.intent);
        if !info.query_frame.is_empty() {
            s.push_str("- 成功時の QueryFrame:\n");
            for (slot, value) in &info.query_frame {
                let _ = writeln!(s, "  - {slot}: {}", one_line(value));
            }
        }
    }
    for (heading, content) in doc.kept_sections {
        let _ = write!(s, "\n## {heading}\n{}", content.trim_end());
        s.push('\n');
    }
    s
}

/// Why the agreements or the pairs could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// `learned_pairs.json` exists but is unreadable or malformed.
    #[error(transparent)]
    Pairs(#[from] LearnedPairsError),
    /// The agreements directory exists but cannot be listed.
    #[error(
        "cannot list {path}: {source}; run `code-intel repair` (it moves a non-directory aside)"
    )]
    Dir {
        /// The directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// Reads the agreements (`*.md` under `.code-intel/agreements/`, by file name, at most
/// [`MAX_AGREEMENTS`]). A missing directory is no agreements; unreadable single files are skipped.
///
/// # Errors
/// [`ReadError::Dir`] when the directory exists but cannot be listed.
pub fn read_agreements(state_dir: &Path) -> Result<Vec<Agreement>, ReadError> {
    let dir = StateDir::at(state_dir).agreements();
    let listing = match std::fs::read_dir(&dir) {
        Ok(l) => l,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(ReadError::Dir { path: dir, source }),
    };
    let mut files: Vec<(String, PathBuf)> = listing
        .filter_map(Result::ok)
        .filter_map(|e| Some((e.file_name().into_string().ok()?, e.path())))
        .filter(|(name, p)| is_plain_md_name(name) && p.is_file())
        .collect();
    files.sort();
    Ok(files
        .into_iter()
        .take(MAX_AGREEMENTS)
        .filter_map(|(name, path)| {
            let text = read_agreement_text(&path).ok()??;
            Some(parse_agreement(&name, &text))
        })
        .collect())
}

/// The text of the agreement file at `path`, read without blocking and bounded
/// ([`MAX_AGREEMENT_BYTES`]); `Ok(None)` when there is none.
///
/// # Errors
/// A FIFO, device or directory, a file over the bound, text that is not UTF-8, or an I/O error.
pub fn read_agreement_text(path: &Path) -> std::io::Result<Option<String>> {
    let Some(bytes) = persist::read_regular(path, MAX_AGREEMENT_BYTES)? else {
        return Ok(None);
    };
    String::from_utf8(bytes).map(Some).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{} is not UTF-8 text ({e})", path.display()),
        )
    })
}

// ---------------------------------------------------------------------------------------------
// The merged view

/// Where a map item comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MapSource {
    /// A pair of `learned_pairs.json` (with its agreement file, if any).
    LearnedPair,
    /// A Markdown file of `agreements/` that restates no pair.
    Agreement,
}

/// One item of the map: a learned pair, or an agreement that restates no pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MapItem {
    /// Where it comes from.
    pub source: MapSource,
    /// The natural-language term, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nl_term: Option<String>,
    /// The symbol, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// The evidence recorded with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_evidence: Option<String>,
    /// The agreement file (under `.code-intel/agreements/`), when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agreement_file: Option<String>,
    /// The similarity recorded when learned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
    /// The session that learned it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// When it was learned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learned_at: Option<String>,
    /// Related files listed in its agreement.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related_files: Vec<String>,
    /// Older than `auto_purge_days` ([`Expiry`]): not offered.
    pub expired: bool,
    /// The agreement's body (agreements that restate no pair), for search.
    #[serde(skip)]
    pub body: String,
}

/// Reads the map: every pair of `learned_pairs.json` (its agreement's related files attached),
/// then every agreement that restates no pair (same `nl_term` and `symbol` in its front matter, or
/// named by a pair's `agreement_file`). Each item is marked expired per `expiry`.
///
/// # Errors
/// [`ReadError`] for a malformed `learned_pairs.json` or an unlistable agreements directory.
pub fn read_map(state_dir: &Path, expiry: &Expiry) -> Result<Vec<MapItem>, ReadError> {
    let pairs = load(state_dir)?.map(|p| p.pairs).unwrap_or_default();
    let agreements = read_agreements(state_dir)?;
    let mut used = BTreeSet::new();
    let mut items = Vec::with_capacity(pairs.len() + agreements.len());
    for p in pairs {
        let own = agreements.iter().position(|a| {
            p.agreement_file.as_deref() == Some(a.file.as_str())
                || matches!((&a.nl_term, &a.symbol), (Some(t), Some(s)) if p.is(t, s))
        });
        let related_files = own
            .map(|i| agreements[i].related_files.clone())
            .unwrap_or_default();
        used.extend(own);
        // Restating agreements of this pair count as used too (an older copy, a renamed file).
        for (i, a) in agreements.iter().enumerate() {
            if matches!((&a.nl_term, &a.symbol), (Some(t), Some(s)) if p.is(t, s)) {
                used.insert(i);
            }
        }
        items.push(MapItem {
            source: MapSource::LearnedPair,
            expired: expiry.is_expired(p.learned_at.as_deref()),
            agreement_file: p
                .agreement_file
                .clone()
                .or_else(|| own.map(|i| agreements[i].file.clone())),
            nl_term: Some(p.nl_term),
            symbol: Some(p.symbol),
            code_evidence: p.code_evidence,
            similarity: p.similarity,
            session_id: p.session_id,
            learned_at: p.learned_at,
            related_files,
            body: String::new(),
        });
    }
    for (i, a) in agreements.into_iter().enumerate() {
        if used.contains(&i) {
            continue;
        }
        items.push(MapItem {
            source: MapSource::Agreement,
            expired: expiry.is_expired(a.learned_at.as_deref()),
            nl_term: a.nl_term,
            symbol: a.symbol,
            code_evidence: a.code_evidence,
            agreement_file: Some(a.file),
            similarity: a.similarity,
            session_id: a.session_id,
            learned_at: a.learned_at,
            related_files: a.related_files,
            body: a.body,
        });
    }
    Ok(items)
}

// ---------------------------------------------------------------------------------------------
// Writing

/// A pair to learn.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NewPair {
    /// The natural-language term (the QueryFrame's `target_feature`).
    pub nl_term: String,
    /// The symbol.
    pub symbol: String,
    /// The confirmed cosine, when known.
    pub similarity: Option<f64>,
    /// Where the code shows the relation.
    pub code_evidence: Option<String>,
    /// The session it was learned in.
    pub session_id: Option<String>,
    /// Files related to it (the session's edited and explored files).
    pub related_files: Vec<String>,
    /// The session's intent and frame, for the agreement.
    pub session: Option<SessionInfo>,
}

/// A learned pair named in a report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairRef {
    /// The term.
    pub nl_term: String,
    /// The symbol.
    pub symbol: String,
    /// Its agreement file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agreement_file: Option<String>,
}

impl PairRef {
    fn of(p: &LearnedPair) -> Self {
        Self {
            nl_term: p.nl_term.clone(),
            symbol: p.symbol.clone(),
            agreement_file: p.agreement_file.clone(),
        }
    }
}

/// What [`learn`] changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LearnReport {
    /// Pairs new to the file.
    pub added: Vec<PairRef>,
    /// Pairs already there, updated (learned_at, evidence, session).
    pub updated: Vec<PairRef>,
    /// Expired pairs removed (with their generated agreement files).
    pub purged: Vec<PairRef>,
    /// Pairs in the file now.
    pub total: usize,
}

/// Why [`learn`] wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum LearnError {
    /// The existing `learned_pairs.json` is unreadable, malformed or of an unknown version: it is
    /// left untouched.
    #[error("nothing was learned and the file was left untouched: {0}")]
    Existing(#[from] LearnedPairsError),
    /// A pair to learn has an empty term or symbol.
    #[error("cannot learn a pair with an empty {field}: give both nl_term and symbol")]
    Empty {
        /// `nl_term` or `symbol`.
        field: &'static str,
    },
    /// Writing failed (the previous files are intact).
    #[error(transparent)]
    Persist(#[from] PersistError),
}

/// Merges `new` into `<state_dir>/learned_pairs.json` and writes each pair's agreement, under the
/// file's lock (see the module docs):
/// - a pair already present (same term after quote normalisation, same symbol) is updated in
///   place — `learned_at`, `session_id`, and `similarity`/`code_evidence` when given — never
///   duplicated; new pairs are appended;
/// - expired pairs are removed first, with the agreement files they name when those restate them
///   (docs/DESIGN.md#purge);
/// - each learned pair's agreement is (re)written: its file keeps its name (an agreement that
///   restates the pair without being named by it is adopted), and sections a person added to it
///   are kept;
/// - the file is written as version 2 with `updated_at`, unknown keys kept.
///
/// # Errors
/// [`LearnError::Existing`] when the existing file cannot be read or parsed (nothing is written);
/// [`LearnError::Empty`] for an empty term or symbol; [`LearnError::Persist`] when a write fails.
pub fn learn(
    state_dir: &Path,
    new: &[NewPair],
    expiry: &Expiry,
    embedding_model: Option<&str>,
) -> Result<LearnReport, LearnError> {
    for n in new {
        if n.nl_term.trim().is_empty() {
            return Err(LearnError::Empty { field: "nl_term" });
        }
        if n.symbol.trim().is_empty() {
            return Err(LearnError::Empty { field: "symbol" });
        }
    }
    let path = pairs_path(state_dir);
    let _lock = FileLock::acquire(&path)?;
    let mut file = load(state_dir)?.unwrap_or_else(|| LearnedPairs {
        version: LEARNED_PAIRS_VERSION,
        updated_at: None,
        embedding_model: None,
        pairs: Vec::new(),
        extra: BTreeMap::new(),
    });
    let agreements_dir = StateDir::at(state_dir).agreements();
    let mut report = LearnReport::default();

    // Expired pairs go, with the generated agreements that restate them.
    let (expired, kept): (Vec<LearnedPair>, Vec<LearnedPair>) = std::mem::take(&mut file.pairs)
        .into_iter()
        .partition(|p| expiry.is_expired(p.learned_at.as_deref()));
    file.pairs = kept;
    for p in &expired {
        if let Some(name) = p.agreement_file.as_deref().filter(|n| is_plain_md_name(n)) {
            let apath = agreements_dir.join(name);
            let restates = read_agreement_text(&apath).ok().flatten().is_some_and(|t| {
                let a = parse_agreement(name, &t);
                matches!((&a.nl_term, &a.symbol), (Some(t), Some(s)) if p.is(t, s))
            });
            if restates {
                // A leftover file is harmless: it expires on read too.
                std::fs::remove_file(&apath).ok();
            }
        }
        report.purged.push(PairRef::of(p));
    }

    let learned_at = now_seconds(expiry.now);
    // Agreements that restate a pair without being named by it (hand-written, or the Python
    // system's) are adopted rather than duplicated.
    let existing = read_agreements(state_dir).unwrap_or_default();
    for n in new {
        let (nl_term, symbol) = (n.nl_term.trim(), n.symbol.trim());
        let (idx, existed) = match file.pairs.iter().position(|p| p.is(nl_term, symbol)) {
            Some(i) => {
                let p = &mut file.pairs[i];
                p.learned_at = Some(learned_at.clone());
                if n.session_id.is_some() {
                    p.session_id.clone_from(&n.session_id);
                }
                if n.similarity.is_some() {
                    p.similarity = n.similarity;
                }
                if n.code_evidence
                    .as_deref()
                    .is_some_and(|e| !e.trim().is_empty())
                {
                    p.code_evidence.clone_from(&n.code_evidence);
                }
                (i, true)
            }
            None => {
                file.pairs.push(LearnedPair {
                    nl_term: nl_term.to_string(),
                    symbol: symbol.to_string(),
                    similarity: n.similarity,
                    code_evidence: n.code_evidence.clone().filter(|e| !e.trim().is_empty()),
                    session_id: n.session_id.clone(),
                    learned_at: Some(learned_at.clone()),
                    agreement_file: None,
                    extra: BTreeMap::new(),
                });
                (file.pairs.len() - 1, false)
            }
        };
        if file.pairs[idx].agreement_file.is_none() {
            let p = &file.pairs[idx];
            file.pairs[idx].agreement_file = existing
                .iter()
                .find(|a| matches!((&a.nl_term, &a.symbol), (Some(t), Some(s)) if p.is(t, s)))
                .map(|a| a.file.clone());
        }
        let name = write_agreement(&agreements_dir, &file.pairs[idx], n)?;
        file.pairs[idx].agreement_file = Some(name);
        let r = PairRef::of(&file.pairs[idx]);
        let already = report
            .added
            .iter()
            .chain(&report.updated)
            .any(|x| x.nl_term == r.nl_term && x.symbol == r.symbol);
        if already {
            continue;
        }
        if existed {
            report.updated.push(r);
        } else {
            report.added.push(r);
        }
    }

    file.version = LEARNED_PAIRS_VERSION;
    file.updated_at = Some(learned_at);
    if file.embedding_model.is_none() {
        file.embedding_model = embedding_model.map(str::to_string);
    }
    report.total = file.pairs.len();
    let mut bytes = serde_json::to_vec_pretty(&file).map_err(|e| PersistError::Write {
        path: path.clone(),
        source: e.into(),
    })?;
    bytes.push(b'\n');
    persist::write_atomic(&path, &bytes)?;
    Ok(report)
}

/// Writes the agreement of `pair` (learned from `new`) and returns its file name: the pair's
/// existing `agreement_file` when it is a plain name, else [`agreement_file_name`]. An existing
/// file that restates another pair is never overwritten (a numbered name is used instead).
fn write_agreement(dir: &Path, pair: &LearnedPair, new: &NewPair) -> Result<String, PersistError> {
    let base = pair
        .agreement_file
        .clone()
        .filter(|n| is_plain_md_name(n))
        .unwrap_or_else(|| agreement_file_name(&pair.nl_term, &pair.symbol));
    let stem = base.trim_end_matches(".md").to_string();
    let mut kept = Vec::new();
    let mut old_files = Vec::new();
    let mut chosen = None;
    for n in 0..100 {
        let name = if n == 0 {
            base.clone()
        } else {
            format!("{stem}-{n}.md")
        };
        let text = match read_agreement_text(&dir.join(&name)) {
            Ok(Some(text)) => text,
            Ok(None) => {
                chosen = Some(name);
                break;
            }
            // Something unreadable holds this name (a FIFO, a huge or binary file): never
            // overwritten; `code-intel repair` moves it aside.
            Err(_) => continue,
        };
        let a = parse_agreement(&name, &text);
        // A file whose front matter names no pair, or another one, is not ours to overwrite.
        if matches!((&a.nl_term, &a.symbol), (Some(t), Some(s)) if pair.is(t, s)) {
            let (_, secs) = sections(&a.body);
            // Sections a person added stay; so does the old session section when the new
            // learning has none, and the old related files when no new ones are given.
            kept = secs
                .into_iter()
                .filter(|(h, _)| {
                    let regenerated = is_evidence_heading(h)
                        || is_files_heading(h)
                        || (is_session_heading(h) && new.session.is_some());
                    !regenerated
                })
                .collect();
            old_files = a.related_files;
            chosen = Some(name);
            break;
        }
    }
    let name = chosen.unwrap_or_else(|| format!("{stem}-{}.md", uuid::Uuid::new_v4().simple()));
    let related_files = if new.related_files.is_empty() {
        &old_files
    } else {
        &new.related_files
    };
    let text = render_agreement(&AgreementDoc {
        pair,
        related_files,
        session: new.session.as_ref(),
        kept_sections: &kept,
    });
    persist::write_atomic(&dir.join(&name), text.as_bytes())?;
    Ok(name)
}

pub mod health;

#[cfg(test)]
mod tests;
