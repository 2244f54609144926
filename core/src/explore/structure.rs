//! Structure tools over files parsed from disk (always fresh): `analyze_structure` (the nested
//! symbol tree of a file or directory) and `get_function_at_line`.

use code_intel_session::repo_path::relative_slash;
use serde::{Deserialize, Serialize};

use super::{
    Budget, ExploreContext, ExploreError, Span, TouchedFiles, chunks_from_disk, chunks_of_bytes,
    cut_line, dedup_files, read_file, resolve_existing,
};
use crate::index::chunk::{Chunk, ChunkKind, utf16_text};
use crate::index::lang::{self, Language};
use crate::index::{SkippedFile, framework, sync};

/// Characters charged per symbol node on top of its name and kind (lines, braces, keys), for the
/// output budget.
const NODE_OVERHEAD_CHARS: usize = 40;

/// Parameters of [`analyze_structure`] (`path` is required, possibly empty).
///
/// The field docs are the MCP tool's schema descriptions (feature `schema`): written for the model.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AnalyzeStructureParams {
    /// File or directory (repository-relative); empty for the repository root.
    pub path: String,
}

/// One symbol of a structure tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolNode {
    /// The symbol name.
    pub name: String,
    /// Chunk kind, serialised `class`, `method`, `function`, `rule`, `element`, ...
    pub kind: ChunkKind,
    /// First line, 1-based.
    pub start_line: u32,
    /// Last line, 1-based inclusive.
    pub end_line: u32,
    /// Symbols nested inside, in source order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<SymbolNode>,
}

/// The symbol tree of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStructure {
    /// Repository-relative path.
    pub file: String,
    /// Language, serialised as its id.
    pub language: Language,
    /// Top-level symbols, in source order.
    pub symbols: Vec<SymbolNode>,
    /// Why the file has no tree (binary, too large, unreadable), when it has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Why the file has no symbol tree although its language has a grammar: a parser budget
    /// exceeded (`parser budget exceeded (…)`) or a grammar that did not load; the file is then
    /// indexed and searched as line windows (`search_text`, `get_function_at_line` still work).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    /// The file's framework view (its route, views, model, table, ...; see
    /// [`framework::FrameworkView`]), when `analyze_structure` was given this one file and a
    /// framework strategy reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub framework: Option<framework::FrameworkView>,
}

/// Result of [`analyze_structure`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StructureResult {
    /// The path as resolved (repository-relative; `.` for the root).
    pub path: String,
    /// Per file, in path order. For a directory, only files of a language with a grammar.
    pub files: Vec<FileStructure>,
    /// Files the path holds (of a language with a grammar), including those not listed.
    pub files_total: usize,
    /// Whether files were left out because of the output budget.
    pub truncated: bool,
    /// Directories the walk could not read (`dir/`), with the reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreadable: Vec<SkippedFile>,
}

impl TouchedFiles for StructureResult {
    fn files(&self) -> Vec<String> {
        dedup_files(self.files.iter().map(|f| f.file.as_str()))
    }
}

/// Parameters of [`get_function_at_line`] (both required).
///
/// The field docs are the MCP tool's schema descriptions (feature `schema`): written for the model.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FunctionAtLineParams {
    /// File (repository-relative).
    pub file: String,
    /// Line number, 1-based.
    pub line: u32,
}

/// The function or method around a line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionAt {
    /// The name.
    pub name: String,
    /// The qualified name.
    pub qualified_name: String,
    /// [`ChunkKind::Function`] or [`ChunkKind::Method`] (serialised `function`, `method`).
    pub kind: ChunkKind,
    /// First line, 1-based.
    pub start_line: u32,
    /// Last line, 1-based inclusive.
    pub end_line: u32,
    /// The declaration, whitespace-collapsed.
    pub signature: String,
    /// The source of lines `start_line..=end_line` (cut to `max_output_chars`).
    pub content: String,
    /// Whether `content` was cut.
    pub truncated: bool,
}

/// Result of [`get_function_at_line`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionAtLineResult {
    /// Repository-relative path.
    pub file: String,
    /// The line asked for.
    pub line: u32,
    /// The innermost function or method containing the line; absent when the line is outside
    /// any (top-level code, class body between methods).
    pub function: Option<FunctionAt>,
}

impl TouchedFiles for FunctionAtLineResult {
    fn files(&self) -> Vec<String> {
        vec![self.file.clone()]
    }
}

/// The nested symbol tree of a file, or of every file with a grammar under a directory
/// (`.gitignore`- and `exclude_patterns`-aware), parsed from disk. Nesting follows the chunks'
/// byte ranges; parts of a chunk split for size are merged.
///
/// # Errors
/// [`ExploreError::Path`], [`ExploreError::NotFound`], [`ExploreError::Index`] (bad exclude
/// pattern).
pub fn analyze_structure(
    cx: &ExploreContext<'_>,
    params: &AnalyzeStructureParams,
) -> Result<StructureResult, ExploreError> {
    let (rp, abs) = resolve_existing(cx.root, Some(params.path.as_str()))?;
    let mut budget = Budget::new(&cx.config.limits);
    let mut result = StructureResult {
        path: rp.to_string(),
        files: Vec::new(),
        files_total: 0,
        truncated: false,
        unreadable: Vec::new(),
    };
    if !abs.is_dir() {
        // One file: a FIFO, socket, device or a symlink out of the repository is an error; a
        // file over max_file_bytes is listed with `skipped`.
        match super::source::check_source(cx.root, rp.as_str(), cx.config.max_file_bytes) {
            Ok(_) | Err(super::SourceError::TooLarge { .. }) => {}
            Err(e) => return Err(e.into()),
        }
        result.files_total = 1;
        let mut fs = file_structure(cx, rp.as_str());
        if fs.skipped.is_none()
            && let Ok(bytes) = read_file(cx, rp.as_str())
        {
            fs.framework = framework::view_of(cx.root.path(), rp.as_str(), &bytes, cx.index);
        }
        budget.take(cost(&fs));
        result.files.push(fs);
        return Ok(result);
    }
    let mut walk = sync::walker(cx.root, cx.config, &[abs])?;
    walk.sort_by_file_name(|a, b| a.cmp(b));
    for entry in walk.build() {
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                if let Some((dir, reason)) = sync::walk_error(&err)
                    && let Some(rel) = relative_slash(cx.root.path(), &dir)
                {
                    result.unreadable.push(SkippedFile {
                        path: format!("{rel}/"),
                        reason,
                    });
                }
                continue;
            }
        };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Some(rel) = relative_slash(cx.root.path(), entry.path()) else {
            continue;
        };
        if lang::detect(&rel) == Language::Text {
            continue;
        }
        result.files_total += 1;
        if result.truncated {
            continue;
        }
        let fs = file_structure(cx, &rel);
        if budget.take(cost(&fs)) {
            result.files.push(fs);
        } else {
            result.truncated = true;
        }
    }
    Ok(result)
}

fn cost(fs: &FileStructure) -> usize {
    fn nodes(ns: &[SymbolNode]) -> usize {
        ns.iter()
            .map(|n| n.name.len() + n.kind.name().len() + NODE_OVERHEAD_CHARS + nodes(&n.children))
            .sum()
    }
    fs.file.len() + fs.language.id().len() + NODE_OVERHEAD_CHARS + nodes(&fs.symbols)
}

fn file_structure(cx: &ExploreContext<'_>, rel: &str) -> FileStructure {
    let language = lang::detect(rel);
    match chunks_from_disk(cx, rel) {
        Ok(chunks) => {
            let spans: Vec<Span> = merge_parts(
                chunks
                    .iter()
                    .map(Span::from_chunk)
                    .filter(Span::is_symbol)
                    .collect(),
            );
            FileStructure {
                file: rel.to_string(),
                language,
                symbols: tree(spans),
                skipped: None,
                fallback: crate::index::chunk::fallback_reason(&chunks).map(str::to_string),
                framework: None,
            }
        }
        Err(e) => FileStructure {
            file: rel.to_string(),
            language,
            symbols: Vec::new(),
            skipped: Some(e.to_string()),
            fallback: None,
            framework: None,
        },
    }
}

/// Merges consecutive parts of one chunk (same names and kind, adjacent lines) into one span.
fn merge_parts(mut spans: Vec<Span>) -> Vec<Span> {
    spans.sort_by_key(|s| (s.bytes.0, std::cmp::Reverse(s.bytes.1)));
    let mut out: Vec<Span> = Vec::with_capacity(spans.len());
    for s in spans {
        // Parts of a split chunk are consecutive in source order, but chunks nested inside the
        // first part may sit between them; look back for an open part with the same names.
        let open = out.iter_mut().rev().find(|o| {
            o.symbol == s.symbol
                && o.qualified_name == s.qualified_name
                && o.kind == s.kind
                && s.bytes.0 >= o.bytes.1
                && s.start_line <= o.end_line.saturating_add(1)
        });
        if let Some(o) = open {
            o.end_line = o.end_line.max(s.end_line);
            o.bytes.1 = o.bytes.1.max(s.bytes.1);
        } else {
            out.push(s);
        }
    }
    out
}

/// Nests spans by byte-range containment (an outer span first when two start together).
fn tree(mut spans: Vec<Span>) -> Vec<SymbolNode> {
    spans.sort_by_key(|s| (s.bytes.0, std::cmp::Reverse(s.bytes.1)));
    let mut roots: Vec<SymbolNode> = Vec::new();
    let mut stack: Vec<(usize, SymbolNode)> = Vec::new();
    let close = |stack: &mut Vec<(usize, SymbolNode)>, roots: &mut Vec<SymbolNode>| {
        if let Some((_, node)) = stack.pop() {
            match stack.last_mut() {
                Some((_, parent)) => parent.children.push(node),
                None => roots.push(node),
            }
        }
    };
    for s in spans {
        while stack.last().is_some_and(|(end, _)| s.bytes.0 >= *end) {
            close(&mut stack, &mut roots);
        }
        let node = SymbolNode {
            name: s.symbol,
            kind: s.kind,
            start_line: s.start_line,
            end_line: s.end_line,
            children: Vec::new(),
        };
        stack.push((s.bytes.1, node));
    }
    while !stack.is_empty() {
        close(&mut stack, &mut roots);
    }
    roots
}

/// The innermost function or method containing `line`, re-parsed from disk. Content is the
/// file's lines of the whole definition (all parts of a split chunk).
///
/// # Errors
/// [`ExploreError::Path`], [`ExploreError::NotFound`], [`ExploreError::NotAFile`],
/// [`ExploreError::LineOutOfRange`] (line 0 or past the end), [`ExploreError::Source`] (a
/// FIFO, socket or device, over `max_file_bytes` before any read, a symlink out of the repository),
/// [`ExploreError::Unparsable`] (binary or too large).
pub fn get_function_at_line(
    cx: &ExploreContext<'_>,
    params: &FunctionAtLineParams,
) -> Result<FunctionAtLineResult, ExploreError> {
    let (rp, abs) = resolve_existing(cx.root, Some(params.file.as_str()))?;
    let rel = rp.as_str().to_string();
    if abs.is_dir() {
        return Err(ExploreError::NotAFile {
            path: rp.to_string(),
        });
    }
    // Type, size and location are checked before a byte is read; the bytes are read once.
    let bytes = read_file(cx, &rel)?;
    // The text the chunker reads: a UTF-16 file decoded, anything else as (lossy) UTF-8.
    let text = match utf16_text(&bytes) {
        Some(text) => std::borrow::Cow::Owned(text),
        None => String::from_utf8_lossy(&bytes),
    };
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let line_count = u32::try_from(lines.len()).unwrap_or(u32::MAX);
    if params.line == 0 || params.line > line_count {
        return Err(ExploreError::LineOutOfRange {
            file: rel,
            line: params.line,
            lines: line_count,
        });
    }
    let chunks = chunks_of_bytes(cx, &rel, &bytes)?;
    let is_function = |c: &&Chunk| matches!(c.kind, ChunkKind::Function | ChunkKind::Method);
    let spans = merge_parts(
        chunks
            .iter()
            .filter(is_function)
            .map(Span::from_chunk)
            .collect(),
    );
    let found = spans
        .iter()
        .filter(|s| s.start_line <= params.line && params.line <= s.end_line)
        .min_by_key(|s| {
            (
                s.end_line - s.start_line,
                s.bytes.1.saturating_sub(s.bytes.0),
            )
        });
    let function = found.map(|s| {
        let first = (s.start_line.max(1) - 1) as usize;
        let last = (s.end_line as usize).min(lines.len());
        let full: String = lines[first.min(last)..last].concat();
        let max = cx.config.limits.max_output_chars;
        let (content, truncated) = match full.char_indices().nth(max) {
            Some((i, _)) => (
                format!("{}\n… [+{} chars]", &full[..i], full[i..].chars().count()),
                true,
            ),
            None => (full, false),
        };
        FunctionAt {
            name: s.symbol.clone(),
            qualified_name: s.qualified_name.clone(),
            kind: s.kind,
            start_line: s.start_line,
            end_line: s.end_line,
            signature: cut_line(&s.signature, cx.config.limits.max_line_chars),
            content,
            truncated,
        }
    });
    Ok(FunctionAtLineResult {
        file: rel,
        line: params.line,
        function,
    })
}
