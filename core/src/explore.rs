//! The exploration tools of the EXPLORATION phase, as plain synchronous functions with
//! serialisable parameters and results: [`search_text`], [`find_definitions`],
//! [`find_references`], [`analyze_structure`], [`get_function_at_line`].
//!
//! Shared rules:
//! - Every path argument goes through [`RepoRoot::resolve`]; anything outside the repository is
//!   refused with [`ExploreError::Path`].
//! - Results land in an LLM context, so they are bounded by [`ResultLimits`]: a result count cap
//!   (`max_results`, at most `max_results_ceiling`), long lines cut to `max_line_chars` with a
//!   `… [+N chars]` marker, and a budget of `max_output_chars` characters over the text of the
//!   whole result. Whatever is cut sets `truncated`; totals count everything.
//! - Every result names the files it touched via [`TouchedFiles::files`], so the session can
//!   record them as explored.
//! - Lines are 1-based and inclusive everywhere.
//! - [`recorded::run_recorded`] is the call as a session sees it (phase check, then a record of
//!   the call): the MCP server and the Node binding both go through it.

mod definitions;
pub mod leads;
pub mod recorded;
mod structure;
mod text;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::index::chunk::{Chunk, ChunkKind, SkipReason, chunk_source};
use crate::index::lexical::StoredChunk;
use crate::index::source::{self, SourceError};
use crate::index::{CodeIndex, IndexError, sync};
use code_intel_session::config::{Config, ResultLimits};
use code_intel_session::repo_path::{RepoPath, RepoPathError, RepoRoot};

pub use definitions::{Definition, FindDefinitionsParams, FindDefinitionsResult, find_definitions};
pub use structure::{
    AnalyzeStructureParams, FileStructure, FunctionAt, FunctionAtLineParams, FunctionAtLineResult,
    StructureResult, SymbolNode, analyze_structure, get_function_at_line,
};
pub use text::{
    FindReferencesParams, FindReferencesResult, Reference, SearchTextParams, SearchTextResult,
    TextMatch, find_references, search_text,
};

/// Errors of the exploration tools. Empty results are not errors.
#[derive(Debug, thiserror::Error)]
pub enum ExploreError {
    /// The pattern is not a valid regular expression.
    #[error(
        "invalid regex {pattern:?}: {source}; pass literal: true to search for the text as written"
    )]
    BadRegex {
        /// The pattern as given.
        pattern: String,
        /// The regex error.
        #[source]
        source: grep_regex::Error,
    },
    /// A path argument is outside the repository (or not a usable path).
    #[error(transparent)]
    Path(#[from] RepoPathError),
    /// A path argument names nothing.
    #[error("{path} does not exist in the repository")]
    NotFound {
        /// The repository-relative path.
        path: String,
    },
    /// A file was expected, a directory given.
    #[error("{path} is a directory; pass a file")]
    NotAFile {
        /// The repository-relative path.
        path: String,
    },
    /// The line is not in the file.
    #[error("line {line} is outside {file}, which has {lines} lines")]
    LineOutOfRange {
        /// The repository-relative path.
        file: String,
        /// The line asked for (1-based).
        line: u32,
        /// Lines in the file.
        lines: u32,
    },
    /// The symbol argument is empty.
    #[error("symbol must not be empty")]
    EmptySymbol,
    /// `file_type` names no known type.
    #[error(
        "unknown file type {name:?}; use a language id (python, php, javascript, typescript, blade, html, css, scss, go, rust, java, ruby, csharp, c, cpp, kotlin, swift, vue, svelte) or a ripgrep type name (py, js, ts, ...)"
    )]
    UnknownFileType {
        /// The type as given.
        name: String,
    },
    /// The file cannot be chunked (binary, too large).
    #[error("{path} cannot be parsed: {reason}")]
    Unparsable {
        /// The repository-relative path.
        path: String,
        /// Why.
        reason: SkipReason,
    },
    /// A file could not be read through [`source::read_source`]: a FIFO, socket or device, a
    /// file over `max_file_bytes` (checked before reading), a symlink out of the repository.
    #[error(transparent)]
    Source(source::SourceError),
    /// The index failed (or the config's exclude patterns are invalid).
    #[error(transparent)]
    Index(#[from] IndexError),
}

/// What the tools work on: a repository, its config, and optionally its index (definition
/// lookups and enclosing symbols use the index when given, and parse files from disk when not).
#[derive(Debug, Clone, Copy)]
pub struct ExploreContext<'a> {
    /// The repository root.
    pub root: &'a RepoRoot,
    /// Its configuration (exclude patterns, limits, chunker options).
    pub config: &'a Config,
    /// Its index, if open.
    pub index: Option<&'a CodeIndex>,
    /// The request of the session the call belongs to (the user's words), when one is bound:
    /// `search_text` and `find_references` then order files by their relevance to it
    /// ([`ResultOrder::Relevance`]). `None` without a session.
    pub request: Option<&'a str>,
}

// How `search_text` and `find_references` order the files of their answer (lines stay in line
// order within a file; `max_results` applies after ordering): `Relevance` puts the files the
// ranked search finds for the session's request first, in its order, then every other file in
// path order (the default with a session); `Path` is path order (the default without one). The
// docs are comments on purpose: the MCP schema then lists the values alone (`tools/list` has a
// byte budget), and the fields' docs say what they mean.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum ResultOrder {
    Relevance,
    Path,
}

/// The order a relevance-capable tool uses and, for [`ResultOrder::Relevance`], each ranked
/// file's position (0 = the ranked search's best file).
#[derive(Debug)]
struct FileOrder {
    /// The order used.
    order: ResultOrder,
    /// Ranked file → position.
    rank: std::collections::HashMap<String, usize>,
    /// Why the order asked for was not used.
    note: Option<String>,
}

impl FileOrder {
    /// Resolves the order of a call: `asked`, else relevance with a session's request, else path.
    /// Relevance needs the request and the index; without them it falls back to path order with
    /// a note. The ranking is the lexical ranked search's ([`CodeIndex::ranked_file_order`]).
    fn resolve(cx: &ExploreContext<'_>, asked: Option<ResultOrder>) -> Result<Self, ExploreError> {
        let want = asked.unwrap_or(if cx.request.is_some() {
            ResultOrder::Relevance
        } else {
            ResultOrder::Path
        });
        if want == ResultOrder::Path {
            return Ok(Self {
                order: ResultOrder::Path,
                rank: Default::default(),
                note: None,
            });
        }
        let (Some(request), Some(index)) = (cx.request, cx.index) else {
            let why = if cx.request.is_none() {
                "relevance order ranks files by a session's request and no session is bound; path order used"
            } else {
                "relevance order needs the code index, which is not built yet; path order used"
            };
            return Ok(Self {
                order: ResultOrder::Path,
                rank: Default::default(),
                note: Some(why.to_string()),
            });
        };
        let files = index.ranked_file_order(request, &crate::index::rank::RankParams::default())?;
        Ok(Self {
            order: ResultOrder::Relevance,
            rank: files.into_iter().enumerate().map(|(i, f)| (f, i)).collect(),
            note: None,
        })
    }

    /// A file's sort key: its ranked position, or after every ranked file.
    fn key(&self, file: &str) -> usize {
        self.rank.get(file).copied().unwrap_or(usize::MAX)
    }

    /// Sorts `files` (in path order) ranked first; stable, so the rest keep path order.
    fn sort(&self, files: &mut [String]) {
        if !self.rank.is_empty() {
            files.sort_by_key(|f| self.key(f));
        }
    }
}

/// The files a result touched, for the session's "explored files". Repository-relative,
/// `/`-separated, deduplicated, in first-seen order.
pub trait TouchedFiles {
    /// The files this result names.
    fn files(&self) -> Vec<String>;
}

fn dedup_files<'a>(files: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    files
        .into_iter()
        .filter(|f| seen.insert(*f))
        .map(str::to_string)
        .collect()
}

/// Cuts `line` to `max_chars` characters, appending `… [+N chars]` for the N cut ones.
fn cut_line(line: &str, max_chars: usize) -> String {
    let line = line.trim_end_matches(['\n', '\r']);
    match line.char_indices().nth(max_chars) {
        None => line.to_string(),
        Some((i, _)) => {
            let rest = line[i..].chars().count();
            format!("{}… [+{rest} chars]", &line[..i])
        }
    }
}

/// A budget of characters over a whole result.
#[derive(Debug)]
struct Budget {
    left: usize,
}

impl Budget {
    fn new(limits: &ResultLimits) -> Self {
        Self {
            left: limits.max_output_chars,
        }
    }

    /// Takes `n` characters; false (and nothing taken) when they do not fit.
    fn take(&mut self, n: usize) -> bool {
        if n <= self.left {
            self.left -= n;
            true
        } else {
            false
        }
    }
}

/// The effective result cap: the asked number (or the default), at most the ceiling, at least 1.
fn result_cap(limits: &ResultLimits, asked: Option<usize>) -> usize {
    asked
        .unwrap_or(limits.max_results)
        .clamp(1, limits.max_results_ceiling.max(1))
}

/// Resolves a path argument that must exist; `None`/`""`/`"."` is the root.
fn resolve_existing(
    root: &RepoRoot,
    path: Option<&str>,
) -> Result<(RepoPath, PathBuf), ExploreError> {
    let rp = match path.map(str::trim).filter(|p| !p.is_empty()) {
        Some(p) => root.resolve(p)?,
        None => RepoPath::root(),
    };
    let abs = root.absolute(&rp);
    if !abs.exists() {
        return Err(ExploreError::NotFound {
            path: rp.to_string(),
        });
    }
    Ok((rp, abs))
}

/// Maps a language id or common alias to the index's language id.
fn language_id(name: &str) -> String {
    let lower = name.trim().to_ascii_lowercase();
    match lower.as_str() {
        "py" => "python".into(),
        "js" | "jsx" | "node" => "javascript".into(),
        "ts" => "typescript".into(),
        "golang" => "go".into(),
        "rs" => "rust".into(),
        "rb" => "ruby".into(),
        "cs" | "c#" => "csharp".into(),
        "c++" | "cxx" | "cc" => "cpp".into(),
        other => other.into(),
    }
}

impl From<SourceError> for ExploreError {
    /// Keeps the tools' established errors for a missing path and a directory; the rest are
    /// [`ExploreError::Source`].
    fn from(e: SourceError) -> Self {
        match e {
            SourceError::NotFound { path } => ExploreError::NotFound { path },
            SourceError::Directory { path } => ExploreError::NotAFile { path },
            other => ExploreError::Source(other),
        }
    }
}

/// Reads a repository file through the one checked path ([`source::read_source`]), at most
/// `max_file_bytes`.
fn read_file(cx: &ExploreContext<'_>, rel: &str) -> Result<Vec<u8>, ExploreError> {
    Ok(source::read_source(cx.root, rel, cx.config.max_file_bytes)?)
}

/// The chunks of one file parsed from disk now (fresh, unlike the index).
fn chunks_from_disk(cx: &ExploreContext<'_>, rel: &str) -> Result<Vec<Chunk>, ExploreError> {
    let bytes = read_file(cx, rel)?;
    chunks_of_bytes(cx, rel, &bytes)
}

/// The chunks of a file's bytes already read.
fn chunks_of_bytes(
    cx: &ExploreContext<'_>,
    rel: &str,
    bytes: &[u8],
) -> Result<Vec<Chunk>, ExploreError> {
    chunk_source(rel, bytes, &sync::chunk_options(cx.config)).map_err(|reason| {
        ExploreError::Unparsable {
            path: rel.to_string(),
            reason,
        }
    })
}

/// Line spans and names of a file's chunks: from the index when open (cheap), else parsed from
/// disk. Files that cannot be parsed give no spans.
fn file_spans(cx: &ExploreContext<'_>, rel: &str) -> Vec<Span> {
    if let Some(chunks) = cx
        .index
        .and_then(|i| i.chunks_of(rel).ok())
        .filter(|c| !c.is_empty())
    {
        return chunks.iter().map(Span::from_stored).collect();
    }
    chunks_from_disk(cx, rel)
        .map(|cs| cs.iter().map(Span::from_chunk).collect())
        .unwrap_or_default()
}

/// The part of a chunk the tools need for nesting and naming.
#[derive(Debug, Clone)]
struct Span {
    start_line: u32,
    end_line: u32,
    bytes: (usize, usize),
    symbol: String,
    qualified_name: String,
    kind: ChunkKind,
    signature: String,
}

impl Span {
    fn from_stored(c: &StoredChunk) -> Self {
        Self {
            start_line: c.start_line,
            end_line: c.end_line,
            bytes: c.byte_range,
            symbol: c.symbol.clone(),
            qualified_name: c.qualified_name.clone(),
            kind: c.kind,
            signature: c.signature.clone(),
        }
    }

    fn from_chunk(c: &Chunk) -> Self {
        Self {
            start_line: c.start_line,
            end_line: c.end_line,
            bytes: c.byte_range,
            symbol: c.symbol.clone(),
            qualified_name: c.qualified_name.clone(),
            kind: c.kind,
            signature: c.signature.clone(),
        }
    }

    /// Module and window chunks are not symbols.
    fn is_symbol(&self) -> bool {
        !matches!(self.kind, ChunkKind::Module | ChunkKind::Window)
    }
}

/// The innermost symbol span containing `line` (smallest line range, then smallest byte range).
fn innermost(spans: &[Span], line: u32) -> Option<&Span> {
    spans
        .iter()
        .filter(|s| s.is_symbol() && s.start_line <= line && line <= s.end_line)
        .min_by_key(|s| {
            (
                s.end_line - s.start_line,
                s.bytes.1.saturating_sub(s.bytes.0),
            )
        })
}

/// The enclosing scope of a qualified name: everything before its last `::`, `.` or `\`
/// (`App\Http\UserController::store` → `App\Http\UserController`); `None` at top level.
fn scope_of(qualified: &str) -> Option<String> {
    let cut = ["::", ".", "\\"]
        .iter()
        .filter_map(|sep| qualified.rfind(sep))
        .max()?;
    Some(qualified[..cut].to_string()).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_long_lines_with_a_marker() {
        assert_eq!(cut_line("abcdef\n", 4), "abcd… [+2 chars]");
        assert_eq!(cut_line("abc", 4), "abc");
        assert_eq!(cut_line("日本語のテキスト", 3), "日本語… [+5 chars]");
    }

    #[test]
    fn scopes_of_qualified_names() {
        assert_eq!(
            scope_of(r"App\Http\UserController::store").as_deref(),
            Some(r"App\Http\UserController")
        );
        assert_eq!(scope_of("Flask.route").as_deref(), Some("Flask"));
        assert_eq!(scope_of("url_for"), None);
        assert_eq!(scope_of(r"App\User").as_deref(), Some("App"));
    }

    #[test]
    fn result_caps_respect_the_ceiling() {
        let l = ResultLimits::default();
        assert_eq!(result_cap(&l, None), l.max_results);
        assert_eq!(result_cap(&l, Some(10_000)), l.max_results_ceiling);
        assert_eq!(result_cap(&l, Some(0)), 1);
    }
}
