//! Chunks: the unit of indexing and retrieval, and the generic tree-sitter chunking loop.
//!
//! [`chunk_source`] turns one file into a module chunk plus symbol chunks. Everything
//! language-specific is data: the grammar and query file of [`super::lang`] (one `.scm` file per
//! language under `index/queries/`), a few separators in the language table, and for Blade a
//! directive table. One loop reads every query through the capture names below.
//!
//! # Capture contract of `queries/*.scm`
//!
//! | capture | meaning |
//! |---|---|
//! | `@chunk.<kind>` | the node is a chunk; `<kind>` is a [`ChunkKind`] in snake_case (`function`, `class`, `method`, `interface`, `trait`, `enum`, `directive`, `rule`, `at_rule`, `element`) |
//! | `@chunk` | annotates a chunk made by another pattern (adds `@doc`/`@name`/`@body`); never makes one |
//! | `@name` | the symbol name; several in one match are joined with the language's name joiner, in source order; without one the symbol is the signature |
//! | `@doc` | docstring (inside the node) or docblock (before it: the chunk then starts at the docblock); in a match without a chunk capture, the module docstring |
//! | `@body` | the body; the signature is the text before it (default: the node's `body` field, or that of a direct child, e.g. under a decorator or `export`) |
//! | `@import` | an import statement of the file |
//! | `@namespace` | a namespace name that qualifies the top-level chunks after it |
//! | `@scope` | with `@namespace` in the same match: the node the namespace is limited to (a block namespace such as `namespace a { ... }` or Rust's `mod a { ... }`); nested ones join with the namespace separator |
//! | `@receiver` | the type a chunk belongs to although declared outside it (a Go method's receiver, the type of a Rust `impl`, the scope of a C++ `A::f`); several in one match join with the member separator |
//! | `@_x` | only used by predicates (`#eq?`, `#match?`, `#any-of?`) |
//!
//! When several patterns capture the same node, the earliest pattern in the file wins for the kind,
//! the name, the doc and the body. Generic rules, the same for every language:
//! - a chunk that is a direct syntax child of a chunk with the same kind and name and ends where
//!   it ends (a decorated definition around its definition) is absorbed into it;
//! - a `function` whose nearest enclosing chunk is a class, interface, trait or enum, or that has
//!   a `@receiver`, is a `method`;
//! - qualified names join the enclosing chunk's qualified name and the symbol with the member
//!   separator (the method separator before a method, where the language has one), or prefix
//!   top-level symbols with the namespaces around them; a receiver goes between the two;
//! - in languages whose doc comments are line comments (`LangSpec::line_docs`), a `@doc`
//!   comment grows over the comments with the same marker on the lines directly above and below
//!   it, and is dropped unless it starts its line and the node after it starts on the next line
//!   (a comment separated by a blank line, or trailing code, documents nothing);
//! - chunks nest at most [`MAX_NESTING`] deep; deeper ones stay inside their ancestor's content;
//! - a chunk's content elides the bodies of its nested chunks (`def save(self): …`), so no source
//!   text is indexed twice; `meta.elided` counts them;
//! - top-level code outside every chunk, import and module docstring (Laravel route files, config
//!   arrays, scripts) becomes `window` chunks with `meta.gap = true` when a run has at least
//!   [`MIN_GAP_LINES`] non-blank lines.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use streaming_iterator::StreamingIterator;
use tree_sitter as ts;

use super::lang::{self, Grammar, GrammarError, Language, Role};

pub(crate) mod directive;

/// Deepest chunk nesting kept (a class in a class is depth 2). Bounds work and qualified-name
/// length on pathological input; real code rarely nests named definitions beyond 4.
pub const MAX_NESTING: usize = 16;

/// Fewest non-blank lines of uncovered top-level code that make a gap window (so `<?php` +
/// `declare(strict_types=1);` or a `if __name__ == "__main__":` tail do not become chunks).
pub const MIN_GAP_LINES: usize = 3;

/// Version of the chunker's output for unchanged input and options; part of the index's options
/// fingerprint, so a change (a language added, a query changed) re-chunks every file once.
pub const CHUNKER_VERSION: u32 = 5;

/// Longest signature kept, in bytes.
const SIGNATURE_MAX_BYTES: usize = 256;
/// Longest docstring kept, in bytes.
const DOC_MAX_BYTES: usize = 1024;
/// Longest symbol name kept, in bytes (CSS selector lists can be long).
const NAME_MAX_BYTES: usize = 200;
/// Longest elided child header kept in a parent's content, in bytes.
const ELIDED_HEADER_MAX_BYTES: usize = 400;
/// How far into a file the binary check looks (git and ripgrep use the same NUL heuristic).
const BINARY_PROBE_BYTES: usize = 8 * 1024;

/// Deepest syntax tree the chunk query runs on (tree depth in nodes, root = 1). Tree-sitter's
/// query cursor keeps in-progress matches per open ancestor, so its cost grows with depth times
/// nodes: a 400 KB file of nested object literals (`{a:{a:…}}`, depth ~160,000) took 170 s.
/// Hand-written code stays far below (a 300-link method chain or a 500-term string concatenation
/// is ~1,000 deep); deeper files are generated data and get line windows.
pub const MAX_SYNTAX_DEPTH: usize = 1_024;

/// Most syntax nodes the chunk query runs on. A 1 MiB source file (the default `max_file_bytes`)
/// has a few hundred thousand; more means a dense generated file, which gets line windows.
pub const MAX_SYNTAX_NODES: usize = 2_000_000;

/// What a chunk stands for. Serialised in snake_case (`"method"`, `"module"`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChunkKind {
    /// One per file: path, top-level symbols, imports, module docstring.
    Module,
    /// A free function (or an arrow function / function expression bound to a name).
    Function,
    /// A class.
    Class,
    /// A method inside a class, trait or interface.
    Method,
    /// An interface (TypeScript, PHP).
    Interface,
    /// A PHP trait.
    Trait,
    /// An enum (TypeScript, PHP).
    Enum,
    /// A Blade component or a section/component/slot/push directive block.
    Directive,
    /// A CSS rule set.
    Rule,
    /// A CSS at-rule block (`@media`, `@keyframes`, ...).
    AtRule,
    /// An HTML semantic element or an element with an `id`.
    Element,
    /// A line window: text without a grammar, or top-level code outside every symbol (`meta.gap`).
    Window,
    /// A route of a framework's routes file (a statement such as `Route::get(...)`), added by a
    /// framework strategy next to the chunker's chunks (docs/FRAMEWORKS.md).
    Route,
}

impl ChunkKind {
    /// The snake_case name, as serialised and indexed (`"method"`, `"at_rule"`).
    pub fn name(self) -> &'static str {
        match self {
            ChunkKind::Module => "module",
            ChunkKind::Function => "function",
            ChunkKind::Class => "class",
            ChunkKind::Method => "method",
            ChunkKind::Interface => "interface",
            ChunkKind::Trait => "trait",
            ChunkKind::Enum => "enum",
            ChunkKind::Directive => "directive",
            ChunkKind::Rule => "rule",
            ChunkKind::AtRule => "at_rule",
            ChunkKind::Element => "element",
            ChunkKind::Window => "window",
            ChunkKind::Route => "route",
        }
    }

    /// The kind named `name` ([`ChunkKind::name`]), `None` for a name this version does not write.
    pub fn from_name(name: &str) -> Option<Self> {
        ALL_KINDS.into_iter().find(|k| k.name() == name)
    }
}

impl std::fmt::Display for ChunkKind {
    /// The [`name`](ChunkKind::name).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Every [`ChunkKind`].
const ALL_KINDS: [ChunkKind; 13] = [
    ChunkKind::Module,
    ChunkKind::Function,
    ChunkKind::Class,
    ChunkKind::Method,
    ChunkKind::Interface,
    ChunkKind::Trait,
    ChunkKind::Enum,
    ChunkKind::Directive,
    ChunkKind::Rule,
    ChunkKind::AtRule,
    ChunkKind::Element,
    ChunkKind::Window,
    ChunkKind::Route,
];

/// One chunk of a source file.
///
/// Lines are 1-based and inclusive; `byte_range` is a half-open byte range into the file's UTF-8
/// text (into the lossily decoded text when `meta.lossy`). `path` is repository-relative with `/`
/// separators. `sha256` is the lowercase hex SHA-256 of `content`. `meta` is open for
/// strategy-specific data (framework-aware strategies add keys there without a schema change);
/// the chunker itself writes:
///
/// | key | value |
/// |---|---|
/// | `part`, `parts` | 1-based part number and part count of a chunk split at `chunk_max_tokens` |
/// | `elided` | number of nested chunks whose bodies `content` replaces by their header and `…` |
/// | `gap` | `true` on windows of top-level code outside every symbol |
/// | `lossy` | `true` when the file was not valid UTF-8 |
/// | `fallback` | why a file with a grammar was chunked as line windows: a bundled grammar failed to load, or the file is over a parser budget ([`MAX_SYNTAX_DEPTH`], [`MAX_SYNTAX_NODES`], [`ChunkOptions::parse_budget_ms`]; the reason starts with `parser budget exceeded (`) |
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    /// Repository-relative path, `/`-separated.
    pub path: String,
    /// First line, 1-based.
    pub start_line: u32,
    /// Last line, 1-based, inclusive.
    pub end_line: u32,
    /// Byte range `[start, end)` in the file.
    pub byte_range: (usize, usize),
    /// Symbol name (`login`, `UserController`); the file name for module chunks.
    pub symbol: String,
    /// Qualified name: `Class.method` (Python, JS, TS), `Namespace\Class::method` (PHP FQCN).
    pub qualified_name: String,
    /// What the chunk stands for.
    pub kind: ChunkKind,
    /// The language (serialised as its id: `python`, `php`, `javascript`, `typescript`, `tsx`,
    /// `blade`, `html`, `css`, `scss`, `text`).
    pub language: Language,
    /// The declaration line(s) up to the body, whitespace-collapsed; empty when not applicable.
    pub signature: String,
    /// Docstring or docblock text, without comment markers; empty when absent.
    pub docstring: String,
    /// Imports of the file (PHP `use`, Python `import`, JS `import`/`require`, Blade
    /// `@extends`/`@include`), as written with whitespace collapsed, in source order, deduplicated.
    pub imports: Vec<String>,
    /// The chunk's source text, `file[byte_range]`, except that the bodies of nested chunks are
    /// elided to their header and ` …` (`meta.elided`), and the module chunk holds a summary.
    pub content: String,
    /// Lowercase hex SHA-256 of `content`.
    pub sha256: String,
    /// Extensible strategy metadata (e.g. `"part": 2` for split chunks).
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub meta: serde_json::Map<String, serde_json::Value>,
}

/// Limits of the chunker. The defaults come from the design docs' `config.json`
/// (`chunk_max_tokens: 512`, 50-line fallback windows).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ChunkOptions {
    /// A chunk whose [`estimate_tokens`] exceeds this is split into consecutive parts. Default 512.
    pub chunk_max_tokens: usize,
    /// Lines per window for files without a grammar. Default 50.
    pub window_lines: usize,
    /// Files larger than this (bytes) are skipped with [`SkipReason::TooLarge`]. Default 1 MiB.
    pub max_file_bytes: u64,
    /// Wall-clock budget in milliseconds for parsing plus querying one file, a backstop behind
    /// the deterministic [`MAX_SYNTAX_DEPTH`] and [`MAX_SYNTAX_NODES`]: tree-sitter's progress
    /// callbacks cancel the parse or the query when it runs out, and the file gets line windows.
    /// Default 5,000 (a 1 MiB file of ordinary code parses and queries in well under a second in
    /// a release build). Depends on the machine, so it is not part of the index's options
    /// fingerprint.
    pub parse_budget_ms: u64,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        ChunkOptions {
            chunk_max_tokens: 512,
            window_lines: 50,
            max_file_bytes: 1 << 20,
            parse_budget_ms: 5_000,
        }
    }
}

/// Why a file produced no chunks. An expected outcome (recorded by the sync), not an error.
///
/// Serialised as `{"reason": "binary"}` or `{"reason": "too_large", "bytes": .., "limit": ..}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum SkipReason {
    /// The file has a NUL byte in its first 8 KiB (the heuristic git and ripgrep use).
    #[error("binary file")]
    Binary,
    /// The file is larger than [`ChunkOptions::max_file_bytes`].
    #[error("file too large ({bytes} bytes, limit {limit})")]
    TooLarge {
        /// File size in bytes.
        bytes: u64,
        /// The configured limit in bytes.
        limit: u64,
    },
}

/// Whether `bytes` look binary: a NUL byte in the first 8 KiB (the heuristic git and ripgrep
/// use; [`SkipReason::Binary`]).
pub fn looks_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(BINARY_PROBE_BYTES)].contains(&0)
}

/// The text of a UTF-16 file that starts with a byte-order mark (as Windows editors write
/// "Unicode" source files), as UTF-8 without the mark, unpaired surrogates as U+FFFD; `None` for
/// any other file, and for one that decodes to a NUL character (UTF-32, binary data after a
/// mark-like start). Such a file's NUL bytes would otherwise make it look binary.
pub fn utf16_text(bytes: &[u8]) -> Option<String> {
    let (little_endian, body) = match bytes {
        [0xFF, 0xFE, body @ ..] => (true, body),
        [0xFE, 0xFF, body @ ..] => (false, body),
        _ => return None,
    };
    let units = body.chunks_exact(2).map(|pair| {
        let pair = [pair[0], pair[1]];
        if little_endian {
            u16::from_le_bytes(pair)
        } else {
            u16::from_be_bytes(pair)
        }
    });
    let text: String = char::decode_utf16(units)
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect();
    (body.len() % 2 == 0 && !text.contains('\0')).then_some(text)
}

/// Estimates the number of model tokens in `text`: `ceil(chars / 4)`.
///
/// The 4-characters-per-token rule of thumb is OpenAI's published estimate for English text and
/// code under BPE tokenizers ("a token is about 4 characters"); it is cheap and monotone, which is
/// all splitting needs. A part of at most `4 * chunk_max_tokens` characters is within the limit.
pub fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// Chunks one file: the module chunk first, then the other chunks in source order of their
/// starts (the parts of a split chunk stay together, before the chunks nested in it).
///
/// `path` is repository-relative and `/`-separated; it picks the language ([`lang::detect`]) and
/// is copied into every chunk. The chunks are:
/// - one [`ChunkKind::Module`] chunk: symbol = file name, content = path, module docstring,
///   imports and top-level symbols (with their members), cut to `chunk_max_tokens`;
///   `byte_range` covers the whole file;
/// - symbol chunks found by the language's query (see the module docs for the rules);
/// - [`ChunkKind::Window`] chunks of `window_lines` lines for text without a grammar, and for
///   uncovered top-level code (`meta.gap = true`); symbol = file name, qualified name
///   `path#L<start>-L<end>`.
///
/// A chunk over `chunk_max_tokens` ([`estimate_tokens`]) is split into consecutive parts at line
/// ends (or at char boundaries inside a long line, preferring a break after whitespace or
/// punctuation), each with the same kind and names and `meta.part` = 1..=n, `meta.parts` = n.
/// Invalid UTF-8 is decoded lossily (U+FFFD) and every chunk gets `meta.lossy = true`; a UTF-16
/// file with a byte-order mark is decoded ([`utf16_text`]) and every chunk gets
/// `meta.encoding = "utf-16"`; byte ranges are then offsets into the decoded text. If a bundled grammar fails to load, or the file is over
/// a parser budget ([`MAX_SYNTAX_DEPTH`], [`MAX_SYNTAX_NODES`], [`ChunkOptions::parse_budget_ms`]), the file
/// is chunked as line windows and every chunk carries `meta.fallback` with the reason
/// ([`fallback_reason`] reads it back). A file of only whitespace has no chunks. Never panics.
///
/// # Errors
/// [`SkipReason::TooLarge`] over [`ChunkOptions::max_file_bytes`]; [`SkipReason::Binary`] for a
/// NUL byte in the first 8 KiB.
pub fn chunk_source(
    path: &str,
    bytes: &[u8],
    opts: &ChunkOptions,
) -> Result<Vec<Chunk>, SkipReason> {
    let size = bytes.len() as u64;
    if size > opts.max_file_bytes {
        return Err(SkipReason::TooLarge {
            bytes: size,
            limit: opts.max_file_bytes,
        });
    }
    let utf16 = utf16_text(bytes);
    let bytes = utf16.as_ref().map_or(bytes, String::as_bytes);
    if looks_binary(bytes) {
        return Err(SkipReason::Binary);
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Vec::new());
    }
    let (text, lossy) = match std::str::from_utf8(bytes) {
        Ok(text) => (Cow::Borrowed(text), false),
        Err(_) => (String::from_utf8_lossy(bytes), true),
    };
    let language = lang::detect(path);
    let mut fallback = None;
    let outline = match language.grammar() {
        Ok(Some(grammar)) => match outline(language, grammar, &text, opts) {
            Ok(outline) => outline,
            Err(err) => {
                fallback = Some(err.to_string());
                Outline::default()
            }
        },
        Ok(None) => Outline::default(),
        Err(err) => {
            fallback = Some(err.to_string());
            Outline::default()
        }
    };
    let file = File {
        path,
        name: path.rsplit('/').next().unwrap_or(path),
        text: &text,
        lines: LineIndex::new(&text),
        language,
        windows_only: !language.spec().has_grammar() || fallback.is_some(),
    };
    let mut chunks = assemble(&file, outline, opts);
    let mut extra = serde_json::Map::new();
    if lossy {
        extra.insert("lossy".into(), true.into());
    }
    if utf16.is_some() {
        extra.insert("encoding".into(), "utf-16".into());
    }
    if let Some(reason) = fallback {
        extra.insert("fallback".into(), reason.into());
    }
    if !extra.is_empty() {
        for chunk in &mut chunks {
            chunk.meta.extend(extra.clone());
        }
    }
    Ok(chunks)
}

/// A chunk found in the source before nesting, naming and splitting.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    /// Start byte, including a preceding docblock.
    pub start: usize,
    /// Start byte of the declaration itself (where the signature starts).
    pub node_start: usize,
    /// End byte, exclusive.
    pub end: usize,
    /// What it is (functions may still become methods).
    pub kind: ChunkKind,
    /// Symbol name; empty when the signature names it.
    pub name: String,
    /// Cleaned docstring; empty when absent.
    pub doc: String,
    /// Where the body starts; the signature is `node_start..body_start`.
    pub body_start: Option<usize>,
    /// The type the chunk belongs to though declared outside it (`@receiver`); empty when none.
    pub receiver: String,
}

/// What the query (and the directive table) found in a file.
#[derive(Debug, Default)]
struct Outline {
    candidates: Vec<Candidate>,
    imports: Vec<(usize, usize)>,
    namespaces: Vec<Namespace>,
    module_doc: Option<((usize, usize), String)>,
}

/// A `@namespace`: where its name starts, the name, and the end of its `@scope` (`None`: it
/// qualifies everything after it until the next namespace without a scope).
#[derive(Debug)]
struct Namespace {
    start: usize,
    name: String,
    scope_end: Option<usize>,
}

/// The file being chunked.
struct File<'a> {
    path: &'a str,
    name: &'a str,
    text: &'a str,
    lines: LineIndex,
    language: Language,
    windows_only: bool,
}

/// Byte offsets of line starts, for byte -> 1-based line lookups.
struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { starts }
    }

    /// 1-based line of `byte`.
    fn line(&self, byte: usize) -> usize {
        self.starts.partition_point(|&s| s <= byte).max(1)
    }

    /// 1-based inclusive lines of the byte range `[start, end)`.
    fn span(&self, start: usize, end: usize) -> (u32, u32) {
        let first = self.line(start);
        let last = if end > start {
            self.line(end - 1)
        } else {
            first
        };
        (to_u32(first), to_u32(last))
    }

    /// Number of lines (a trailing newline does not open a new line).
    fn count(&self, text: &str) -> usize {
        if text.ends_with('\n') {
            self.starts.len() - 1
        } else {
            self.starts.len()
        }
        .max(1)
    }

    /// Byte range of 1-based `line` without its line terminator.
    fn range(&self, text: &str, line: usize) -> (usize, usize) {
        let start = self.starts[line - 1];
        let mut end = self.starts.get(line).map_or(text.len(), |next| next - 1);
        if end > start && text.as_bytes()[end - 1] == b'\r' {
            end -= 1;
        }
        (start, end)
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// One query match, reduced to what the loop needs.
struct Hit<'tree> {
    pattern: usize,
    target: Option<(ts::Node<'tree>, Option<ChunkKind>)>,
    names: Vec<ts::Node<'tree>>,
    doc: Option<ts::Node<'tree>>,
    body: Option<ts::Node<'tree>>,
    receivers: Vec<ts::Node<'tree>>,
    namespace: Option<ts::Node<'tree>>,
    scope: Option<ts::Node<'tree>>,
}

/// A chunk node with the best (earliest-pattern) annotations seen so far.
struct Entry<'tree> {
    node: ts::Node<'tree>,
    kind: (usize, ChunkKind),
    name: Option<(usize, String)>,
    /// The doc's byte range (grown over a run of line comments).
    doc: Option<(usize, (usize, usize))>,
    body: Option<(usize, usize)>,
    receiver: Option<(usize, String)>,
    absorbed: bool,
}

fn keep_earliest<T>(slot: &mut Option<(usize, T)>, pattern: usize, value: Option<T>) {
    if let Some(value) = value
        && slot.as_ref().is_none_or(|(p, _)| pattern < *p)
    {
        *slot = Some((pattern, value));
    }
}

/// The reason a file was chunked as line windows, from its chunks' `meta.fallback` (the same on
/// every chunk of the file); `None` for a normally parsed file.
pub fn fallback_reason(chunks: &[Chunk]) -> Option<&str> {
    chunks
        .first()
        .and_then(|c| c.meta.get("fallback"))
        .and_then(|v| v.as_str())
}

/// Why the query did not run on a file: a grammar that does not load, or a parser budget.
#[derive(Debug, thiserror::Error)]
enum OutlineError {
    #[error(transparent)]
    Grammar(#[from] GrammarError),
    #[error("parser budget exceeded ({0}); chunked as line windows")]
    Budget(String),
}

/// Most `<script>` blocks of one component that are parsed (Vue allows two, Svelte two); later
/// ones stay line windows. tree-sitter's lexer walks the list of included ranges on every jump,
/// so a hostile file of 40,000 one-line scripts took 5.6 s to parse before this bound.
const MAX_SCRIPT_BLOCKS: usize = 8;

/// The contents of the `<script ...>` elements of a single-file component (Vue, Svelte), in
/// file order, as tree-sitter ranges of `text`, at most [`MAX_SCRIPT_BLOCKS`]. A tag is matched
/// case-insensitively and must be followed by whitespace, `>` or `/`; a self-closing tag has no
/// contents; an unclosed element runs to the end of the file.
fn script_blocks(text: &str) -> Vec<ts::Range> {
    let lower = text.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    // Points are found by scanning forward from the previous one, so a file of many tags stays
    // linear in its length.
    let (mut scanned, mut row, mut line_start) = (0usize, 0usize, 0usize);
    let mut point = |offset: usize| {
        for (i, &b) in bytes[scanned..offset].iter().enumerate() {
            if b == b'\n' {
                row += 1;
                line_start = scanned + i + 1;
            }
        }
        scanned = offset;
        ts::Point::new(row, offset - line_start)
    };
    let mut out = Vec::new();
    let mut at = 0;
    while out.len() < MAX_SCRIPT_BLOCKS
        && let Some(found) = lower[at..].find("<script")
    {
        let name_end = at + found + "<script".len();
        at = name_end;
        if !matches!(
            bytes.get(name_end),
            Some(b'>' | b'/' | b' ' | b'\t' | b'\n' | b'\r')
        ) {
            continue;
        }
        let Some(gt) = lower[name_end..].find('>') else {
            break;
        };
        let start = name_end + gt + 1;
        at = start;
        if bytes[start - 2] == b'/' {
            continue;
        }
        let end = lower[start..]
            .find("</script")
            .map_or(text.len(), |i| start + i);
        at = end;
        if end > start {
            let start_point = point(start);
            let end_point = point(end);
            out.push(ts::Range {
                start_byte: start,
                end_byte: end,
                start_point,
                end_point,
            });
        }
    }
    out
}

/// Depth of the tree in nodes (root = 1), walking at most until it exceeds `limit`.
///
/// A subtree is no deeper than it has nodes (`descendant_count`, itself included, read in
/// constant time), so only subtrees that could pass the limit are walked into: in most files
/// that is a few nodes on the way to the largest bodies, not the whole tree (the full walk was
/// ~5 % of the instructions of a first index; docs/log/2026-11-28-first-index-speed.md).
fn depth_over(tree: &ts::Tree, limit: usize) -> Option<usize> {
    let mut cursor = tree.walk();
    let mut depth = 1;
    loop {
        let could_pass = depth + cursor.node().descendant_count() > limit + 1;
        if could_pass && cursor.goto_first_child() {
            depth += 1;
            if depth > limit {
                return Some(depth);
            }
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return None;
            }
            depth -= 1;
        }
    }
}

/// Runs the language's query (and directive table) over `text`, within the parser budgets.
fn outline(
    language: Language,
    grammar: &Grammar,
    text: &str,
    opts: &ChunkOptions,
) -> Result<Outline, OutlineError> {
    let spec = language.spec();
    let started = std::time::Instant::now();
    let budget = std::time::Duration::from_millis(opts.parse_budget_ms);
    let out_of_budget = move || started.elapsed() > budget;
    let mut out_of_time = |_: &ts::ParseState| out_of_budget();
    // A single-file component: only its `<script>` blocks are parsed (the tree keeps the file's
    // offsets); without one there is nothing to parse and the whole file becomes line windows.
    let blocks = if spec.script_blocks {
        let blocks = script_blocks(text);
        if blocks.is_empty() {
            return Ok(Outline::default());
        }
        blocks
    } else {
        Vec::new()
    };
    let parsed = language.with_parser(grammar, |parser| {
        if spec.script_blocks && parser.set_included_ranges(&blocks).is_err() {
            return None;
        }
        let tree = parser.parse_with_options(
            &mut |i, _| text.as_bytes().get(i..).unwrap_or_default(),
            None,
            Some(ts::ParseOptions::new().progress_callback(&mut out_of_time)),
        );
        // A cancelled parse leaves state behind; the next file must start clean.
        parser.reset();
        tree
    })?;
    let Some(tree) = parsed else {
        if out_of_budget() {
            return Err(OutlineError::Budget(format!(
                "parsing took over {} ms",
                opts.parse_budget_ms
            )));
        }
        return Ok(Outline::default());
    };
    let nodes = tree.root_node().descendant_count();
    if nodes > MAX_SYNTAX_NODES {
        return Err(OutlineError::Budget(format!(
            "{nodes} syntax nodes, limit {MAX_SYNTAX_NODES}"
        )));
    }
    if let Some(depth) = depth_over(&tree, MAX_SYNTAX_DEPTH) {
        return Err(OutlineError::Budget(format!(
            "syntax tree deeper than {MAX_SYNTAX_DEPTH} (at least {depth})"
        )));
    }
    let source = text.as_bytes();
    let node_text = |node: ts::Node<'_>| text.get(node.byte_range()).unwrap_or("");
    let mut out = Outline::default();

    let mut hits = Vec::new();
    let mut cursor = ts::QueryCursor::new();
    let mut query_out_of_time = |_: &ts::QueryCursorState| out_of_budget();
    let mut matches = cursor.matches_with_options(
        &grammar.query,
        tree.root_node(),
        source,
        ts::QueryCursorOptions::new().progress_callback(&mut query_out_of_time),
    );
    while let Some(m) = matches.next() {
        let mut hit = Hit {
            pattern: m.pattern_index,
            target: None,
            names: Vec::new(),
            doc: None,
            body: None,
            receivers: Vec::new(),
            namespace: None,
            scope: None,
        };
        for capture in m.captures {
            let node = capture.node;
            match grammar
                .roles
                .get(capture.index as usize)
                .copied()
                .unwrap_or(Role::Ignored)
            {
                Role::Chunk(kind) => hit.target = Some((node, Some(kind))),
                Role::Annotate => hit.target = Some((node, None)),
                Role::Name => hit.names.push(node),
                Role::Doc => hit.doc = Some(node),
                Role::Body => hit.body = Some(node),
                Role::Import => out.imports.push((node.start_byte(), node.end_byte())),
                Role::Namespace => hit.namespace = Some(node),
                Role::Scope => hit.scope = Some(node),
                Role::Receiver => hit.receivers.push(node),
                Role::Ignored => {}
            }
        }
        if let Some(node) = hit.namespace {
            out.namespaces.push(Namespace {
                start: node.start_byte(),
                name: collapse(node_text(node)),
                scope_end: hit.scope.map(|s| s.end_byte()),
            });
        }
        hits.push(hit);
    }
    if out_of_budget() {
        return Err(OutlineError::Budget(format!(
            "the chunk query took over {} ms",
            opts.parse_budget_ms
        )));
    }

    // Patterns with a kind make chunks; bare `@chunk` patterns only annotate them.
    let mut entries: HashMap<usize, Entry<'_>> = HashMap::new();
    for hit in hits
        .iter()
        .filter(|h| matches!(h.target, Some((_, Some(_)))))
    {
        if let Some((node, Some(kind))) = hit.target {
            let entry = entries.entry(node.id()).or_insert(Entry {
                node,
                kind: (hit.pattern, kind),
                name: None,
                doc: None,
                body: None,
                receiver: None,
                absorbed: false,
            });
            if hit.pattern < entry.kind.0 {
                entry.kind = (hit.pattern, kind);
            }
        }
    }
    for hit in &hits {
        match hit.target {
            Some((node, _)) => {
                let Some(entry) = entries.get_mut(&node.id()) else {
                    continue;
                };
                let joined = |nodes: &[ts::Node<'_>], joiner: &str| {
                    (!nodes.is_empty()).then(|| {
                        let mut nodes = nodes.to_vec();
                        nodes.sort_by_key(|n| n.start_byte());
                        let parts: Vec<String> =
                            nodes.iter().map(|n| collapse(node_text(*n))).collect();
                        parts.join(joiner)
                    })
                };
                keep_earliest(
                    &mut entry.name,
                    hit.pattern,
                    joined(&hit.names, spec.name_joiner),
                );
                keep_earliest(
                    &mut entry.receiver,
                    hit.pattern,
                    joined(&hit.receivers, spec.member_sep),
                );
                let doc = hit.doc.and_then(|d| doc_range(spec, d, text, true));
                keep_earliest(&mut entry.doc, hit.pattern, doc);
                keep_earliest(
                    &mut entry.body,
                    hit.pattern,
                    hit.body.map(|b| b.start_byte()),
                );
            }
            None => {
                if let Some(range) = hit.doc.and_then(|d| doc_range(spec, d, text, false))
                    && out
                        .module_doc
                        .as_ref()
                        .is_none_or(|((start, _), _)| range.0 < *start)
                {
                    let doc = clean_doc(text.get(range.0..range.1).unwrap_or(""));
                    out.module_doc = Some((range, doc));
                }
            }
        }
    }

    // A wrapper (decorators) around a chunk of the same kind and name, ending where it ends,
    // absorbs it.
    let mut walk = tree.walk();
    let ids: Vec<usize> = entries.keys().copied().collect();
    for id in ids {
        let Some(parent) = entries.get(&id) else {
            continue;
        };
        let (node, kind, name) = (
            parent.node,
            parent.kind.1,
            parent.name.as_ref().map(|n| n.1.clone()),
        );
        let children: Vec<usize> = node.named_children(&mut walk).map(|c| c.id()).collect();
        for child_id in children {
            let Some(child) = entries.get_mut(&child_id) else {
                continue;
            };
            let same_name = child.name.as_ref().map(|n| &n.1) == name.as_ref();
            if child.kind.1 != kind || !same_name || child.node.end_byte() != node.end_byte() {
                continue;
            }
            child.absorbed = true;
            let (doc, body) = (child.doc, child.body);
            if let Some(parent) = entries.get_mut(&id) {
                parent.doc = parent.doc.or(doc);
                parent.body = parent.body.or(body);
            }
        }
    }

    for entry in entries.values().filter(|e| !e.absorbed) {
        let node = entry.node;
        let body_start = entry
            .body
            .map(|b| b.1)
            .or_else(|| body_field_start(grammar, node, &mut walk));
        let doc = entry.doc.map(|d| d.1);
        let start = doc.map_or(node.start_byte(), |d| d.0.min(node.start_byte()));
        out.candidates.push(Candidate {
            start,
            node_start: node.start_byte(),
            end: node.end_byte(),
            kind: entry.kind.1,
            name: entry.name.as_ref().map(|n| n.1.clone()).unwrap_or_default(),
            doc: doc
                .map(|(s, e)| clean_doc(text.get(s..e).unwrap_or("")))
                .unwrap_or_default(),
            body_start,
            receiver: entry
                .receiver
                .as_ref()
                .map(|r| r.1.clone())
                .unwrap_or_default(),
        });
    }

    if let Some(table) = &grammar.directives {
        let (candidates, imports) = directive::scan(table, text);
        out.candidates.extend(candidates);
        out.imports.extend(imports);
    }
    Ok(out)
}

/// The byte range of a `@doc` capture. Without [`LangSpec::line_docs`](lang::LangSpec) it is the
/// node's. With it, the node grows over the sibling comments of the same kind and marker on
/// adjacent lines; the run counts only when it starts its line and, for a chunk's doc
/// (`for_chunk`), when the next node starts on the line after it.
fn doc_range(
    spec: &lang::LangSpec,
    doc: ts::Node<'_>,
    text: &str,
    for_chunk: bool,
) -> Option<(usize, usize)> {
    if !spec.line_docs {
        return Some((doc.start_byte(), doc.end_byte()));
    }
    let node_text = |n: ts::Node<'_>| text.get(n.byte_range()).unwrap_or("");
    let marker = |n: ts::Node<'_>| {
        let t = node_text(n);
        let len = t
            .find(|c: char| !matches!(c, '/' | '*' | '!' | '#'))
            .unwrap_or(t.len());
        t[..len].to_owned()
    };
    // The last line a node is on (a line comment may include its newline).
    let last_row = |n: ts::Node<'_>| {
        let end = n.end_position();
        if end.column == 0 && n.end_byte() > n.start_byte() {
            end.row.saturating_sub(1)
        } else {
            end.row
        }
    };
    let same_run = |upper: ts::Node<'_>, lower: ts::Node<'_>| {
        upper.kind_id() == lower.kind_id()
            && marker(upper) == marker(lower)
            && last_row(upper) + 1 == lower.start_position().row
    };
    let (mut first, mut last) = (doc, doc);
    while let Some(prev) = first.prev_named_sibling().filter(|p| same_run(*p, first)) {
        first = prev;
    }
    while let Some(next) = last.next_named_sibling().filter(|n| same_run(last, *n)) {
        last = next;
    }
    let own_line = first
        .prev_sibling()
        .is_none_or(|p| last_row(p) < first.start_position().row);
    let touches = last
        .next_named_sibling()
        .is_some_and(|n| n.start_position().row <= last_row(last) + 1);
    (own_line && (touches || !for_chunk)).then(|| (first.start_byte(), last.end_byte()))
}

/// Start of the node's `body` field, or of a direct named child's (decorators, `export`).
fn body_field_start<'tree>(
    grammar: &Grammar,
    node: ts::Node<'tree>,
    walk: &mut ts::TreeCursor<'tree>,
) -> Option<usize> {
    let field = grammar.body_field?;
    if let Some(body) = node.child_by_field_id(field) {
        return Some(body.start_byte());
    }
    node.named_children(walk)
        .find_map(|c| c.child_by_field_id(field))
        .map(|b| b.start_byte())
}

/// A chunk candidate placed in the nesting tree and named.
struct Placed {
    cand: Candidate,
    parent: Option<usize>,
    children: Vec<usize>,
    symbol: String,
    qualified: String,
    signature: String,
}

/// A region to emit as window chunks.
struct Window {
    start: usize,
    end: usize,
    gap: bool,
}

/// Nests, names and splits the outline into the final chunk list.
fn assemble(file: &File<'_>, outline: Outline, opts: &ChunkOptions) -> Vec<Chunk> {
    let spec = file.language.spec();
    let text = file.text;
    let mut import_ranges = outline.imports.clone();
    import_ranges.sort_unstable();
    let mut imports: Vec<String> = Vec::new();
    for &(start, end) in &import_ranges {
        let import = collapse(text.get(start..end).unwrap_or(""));
        if !import.is_empty() && !imports.contains(&import) {
            imports.push(import);
        }
    }

    // Nesting: sort by start, widest first; an explicit stack keeps this iterative.
    let mut cands = outline.candidates;
    cands.retain(|c| c.end > c.start && c.end <= text.len());
    cands.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    cands.dedup_by(|b, a| a.start == b.start && a.end == b.end);
    let mut namespaces = outline.namespaces;
    namespaces.sort_unstable_by_key(|n| n.start);
    let mut placed: Vec<Placed> = Vec::with_capacity(cands.len());
    let mut stack: Vec<usize> = Vec::new();
    for mut cand in cands {
        while let Some(&top) = stack.last() {
            let t = &placed[top].cand;
            if t.start <= cand.start && cand.end <= t.end {
                break;
            }
            stack.pop();
        }
        if stack.len() >= MAX_NESTING {
            continue;
        }
        let parent = stack.last().copied();
        let in_type = parent.is_some_and(|p| {
            matches!(
                placed[p].cand.kind,
                ChunkKind::Class | ChunkKind::Interface | ChunkKind::Trait | ChunkKind::Enum
            )
        });
        if cand.kind == ChunkKind::Function && (in_type || !cand.receiver.is_empty()) {
            cand.kind = ChunkKind::Method;
        }
        let signature = signature(text, &cand);
        let symbol = if !cand.name.is_empty() {
            cap(&cand.name, NAME_MAX_BYTES).to_owned()
        } else if !signature.is_empty() {
            signature.clone()
        } else {
            let line = collapse(first_line(&text[cand.node_start..cand.end]));
            cap(&line, NAME_MAX_BYTES).to_owned()
        };
        let member_sep = match cand.kind {
            ChunkKind::Method => spec.method_sep.unwrap_or(spec.member_sep),
            _ => spec.member_sep,
        };
        let owner = if cand.receiver.is_empty() {
            None
        } else {
            Some(cap(&cand.receiver, NAME_MAX_BYTES))
        };
        // `sep` joins the container (parent or namespaces) and `own`.
        let (own, sep) = match owner {
            Some(owner) => (format!("{owner}{member_sep}{symbol}"), spec.member_sep),
            None => (symbol.clone(), member_sep),
        };
        let qualified = match parent {
            Some(p) => format!("{}{sep}{own}", placed[p].qualified),
            None => {
                let ns = namespace_of(&namespaces, cand.start, spec.namespace_sep);
                if ns.is_empty() {
                    own
                } else {
                    format!("{ns}{}{own}", spec.namespace_sep)
                }
            }
        };
        let index = placed.len();
        if let Some(p) = parent {
            placed[p].children.push(index);
        }
        placed.push(Placed {
            cand,
            parent,
            children: Vec::new(),
            symbol,
            qualified,
            signature,
        });
        stack.push(index);
    }

    // Windows: the whole file for text, uncovered top-level runs for parsed languages.
    let line_count = file.lines.count(text);
    let windows = if file.windows_only {
        windows(file, &vec![false; line_count + 1], 1, opts)
    } else {
        let mut covered = vec![false; line_count + 1];
        let mut cover = |start: usize, end: usize| {
            let (first, last) = file.lines.span(start, end);
            let (first, last) = (first as usize, (last as usize).min(line_count));
            if first <= last {
                covered[first..=last].fill(true);
            }
        };
        for p in placed.iter().filter(|p| p.parent.is_none()) {
            cover(p.cand.start, p.cand.end);
        }
        for &(start, end) in &import_ranges {
            cover(start, end);
        }
        for ns in &namespaces {
            cover(ns.start, ns.start + ns.name.len());
        }
        if let Some(((start, end), _)) = &outline.module_doc {
            cover(*start, *end);
        }
        windows(file, &covered, MIN_GAP_LINES, opts)
    };

    let max_chars = opts.chunk_max_tokens.max(1).saturating_mul(4);
    let mut chunks = Vec::with_capacity(placed.len() + windows.len() + 1);
    chunks.push(module_chunk(
        file,
        &placed,
        &imports,
        outline.module_doc.map(|d| d.1),
        max_chars,
    ));

    let template = |kind: ChunkKind, symbol: &str, qualified: String| Chunk {
        path: file.path.to_owned(),
        start_line: 0,
        end_line: 0,
        byte_range: (0, 0),
        symbol: symbol.to_owned(),
        qualified_name: qualified,
        kind,
        language: file.language,
        signature: String::new(),
        docstring: String::new(),
        imports: imports.clone(),
        content: String::new(),
        sha256: String::new(),
        meta: serde_json::Map::new(),
    };
    let mut body: Vec<(usize, Vec<Chunk>)> = Vec::with_capacity(placed.len() + windows.len());
    for p in &placed {
        let c = &p.cand;
        let mut pieces = Vec::new();
        let mut pos = c.start;
        for &child in &p.children {
            let ch = &placed[child].cand;
            if ch.start < pos {
                continue;
            }
            verbatim(text, pos, ch.start, &mut pieces);
            let header = Cow::Owned(elided_header(text, ch));
            pieces.push(Piece {
                text: header,
                src: (ch.start, ch.end),
            });
            pos = ch.end;
        }
        verbatim(text, pos, c.end, &mut pieces);
        let mut chunk = template(c.kind, &p.symbol, p.qualified.clone());
        chunk.signature = p.signature.clone();
        chunk.docstring = c.doc.clone();
        if !p.children.is_empty() {
            chunk.meta.insert("elided".into(), p.children.len().into());
        }
        body.push((c.start, split(file, chunk, pieces, max_chars)));
    }
    for w in &windows {
        let mut pieces = Vec::new();
        verbatim(text, w.start, w.end, &mut pieces);
        let mut chunk = template(ChunkKind::Window, file.name, String::new());
        if w.gap {
            chunk.meta.insert("gap".into(), true.into());
        }
        let mut parts = split(file, chunk, pieces, max_chars);
        // A window is named by its lines, so each part names its own.
        for part in &mut parts {
            part.qualified_name = format!("{}#L{}-L{}", file.path, part.start_line, part.end_line);
        }
        body.push((w.start, parts));
    }
    body.sort_by_key(|b| b.0);
    chunks.extend(body.into_iter().flat_map(|b| b.1));
    chunks
}

/// The namespaces around byte `at`, outermost first, joined with `sep`: every scoped namespace
/// whose scope holds `at`, and the last unscoped one before it (PHP's `namespace App;`).
fn namespace_of(namespaces: &[Namespace], at: usize, sep: &str) -> String {
    let before = namespaces.partition_point(|n| n.start < at);
    let unscoped = namespaces[..before]
        .iter()
        .rposition(|n| n.scope_end.is_none());
    let names: Vec<&str> = namespaces[..before]
        .iter()
        .enumerate()
        .filter(|(i, n)| match n.scope_end {
            Some(end) => at < end,
            None => Some(*i) == unscoped,
        })
        .map(|(_, n)| n.name.as_str())
        .filter(|n| !n.is_empty())
        .collect();
    names.join(sep)
}

/// Line windows over runs of lines not marked `covered` (index = 1-based line), each run holding
/// at least `min_nonblank` non-blank lines; blank lines at window edges are trimmed.
fn windows(
    file: &File<'_>,
    covered: &[bool],
    min_nonblank: usize,
    opts: &ChunkOptions,
) -> Vec<Window> {
    let text = file.text;
    let per_window = opts.window_lines.max(1);
    let line_count = covered.len() - 1;
    let blank = |line: usize| {
        let (s, e) = file.lines.range(text, line);
        text[s..e].trim().is_empty()
    };
    let mut out = Vec::new();
    let mut line = 1;
    while line <= line_count {
        if covered[line] {
            line += 1;
            continue;
        }
        let run_start = line;
        while line <= line_count && !covered[line] {
            line += 1;
        }
        let run_end = line - 1;
        if (run_start..=run_end).filter(|&l| !blank(l)).count() < min_nonblank {
            continue;
        }
        let mut first = run_start;
        while first <= run_end {
            let last = (first + per_window - 1).min(run_end);
            let (mut a, mut b) = (first, last);
            while a < b && blank(a) {
                a += 1;
            }
            while b > a && blank(b) {
                b -= 1;
            }
            let (start, end) = (file.lines.range(text, a).0, file.lines.range(text, b).1);
            if !text[start..end].trim().is_empty() {
                out.push(Window {
                    start,
                    end,
                    gap: min_nonblank > 1,
                });
            }
            first = last + 1;
        }
    }
    out
}

/// Builds the module chunk: path, docstring, imports and top-level symbols (with their members),
/// cut to `max_chars`.
fn module_chunk(
    file: &File<'_>,
    placed: &[Placed],
    imports: &[String],
    doc: Option<String>,
    max_chars: usize,
) -> Chunk {
    let doc = doc.unwrap_or_default();
    let mut lines: Vec<String> = vec![file.path.to_owned()];
    if !doc.is_empty() {
        lines.push(doc.clone());
    }
    lines.extend(imports.iter().cloned());
    for p in placed.iter().filter(|p| p.parent.is_none()) {
        let mut line = format!("{} {}", p.cand.kind.name(), p.qualified);
        let members: Vec<&str> = p
            .children
            .iter()
            .map(|&c| placed[c].symbol.as_str())
            .collect();
        if !members.is_empty() {
            line.push_str(": ");
            line.push_str(&members.join(", "));
        }
        lines.push(line);
    }
    let mut content = lines.join("\n");
    if content.chars().count() > max_chars {
        let keep = content
            .char_indices()
            .nth(max_chars.saturating_sub(1))
            .map_or(0, |(i, _)| i);
        content.truncate(keep);
        content.push('…');
    }
    Chunk {
        path: file.path.to_owned(),
        start_line: 1,
        end_line: to_u32(file.lines.count(file.text)),
        byte_range: (0, file.text.len()),
        symbol: file.name.to_owned(),
        qualified_name: file.path.to_owned(),
        kind: ChunkKind::Module,
        language: file.language,
        signature: String::new(),
        docstring: doc,
        imports: imports.to_vec(),
        sha256: sha256_hex(&content),
        content,
        meta: serde_json::Map::new(),
    }
}

/// A run of chunk content and the source bytes it stands for.
struct Piece<'a> {
    text: Cow<'a, str>,
    src: (usize, usize),
}

/// Pushes `text[start..end]` as one piece per line.
fn verbatim<'a>(text: &'a str, start: usize, end: usize, pieces: &mut Vec<Piece<'a>>) {
    if end <= start {
        return;
    }
    let mut pos = start;
    for line in text[start..end].split_inclusive('\n') {
        pieces.push(Piece {
            text: Cow::Borrowed(line),
            src: (pos, pos + line.len()),
        });
        pos += line.len();
    }
}

/// Where a candidate's header ends: its body, or the end of its first line.
fn head_end(text: &str, c: &Candidate) -> usize {
    c.body_start
        .filter(|&b| b > c.node_start && b <= c.end)
        .unwrap_or_else(|| c.node_start + first_line(&text[c.node_start..c.end]).len())
}

/// What a nested chunk leaves in its parent's content: its header (text before the body) and `…`.
fn elided_header(text: &str, c: &Candidate) -> String {
    let head = cap(
        text[c.node_start..head_end(text, c)].trim_end(),
        ELIDED_HEADER_MAX_BYTES,
    );
    format!("{head} …")
}

/// The declaration up to the body, whitespace-collapsed, without a trailing `{` or `:`, capped.
fn signature(text: &str, c: &Candidate) -> String {
    // Collapsing a huge header (minified code) is wasted work: cap first, with room for spaces.
    let head = cap(
        &text[c.node_start..head_end(text, c)],
        SIGNATURE_MAX_BYTES * 4,
    );
    let collapsed = collapse(head);
    let trimmed = collapsed.trim_end_matches(['{', ':', ' ']);
    cap(trimmed, SIGNATURE_MAX_BYTES).to_owned()
}

/// Splits `template` into parts of at most `max_chars` characters; fills lines, content and hash.
fn split(file: &File<'_>, template: Chunk, pieces: Vec<Piece<'_>>, max_chars: usize) -> Vec<Chunk> {
    // No piece may exceed the budget on its own: cut long lines at char boundaries.
    let mut sized: Vec<(Piece<'_>, usize)> = Vec::with_capacity(pieces.len());
    for piece in pieces {
        let chars = piece.text.chars().count();
        if chars <= max_chars {
            sized.push((piece, chars));
            continue;
        }
        match piece.text {
            Cow::Borrowed(s) => {
                let mut offset = piece.src.0;
                for part in cut(s, max_chars) {
                    let src = (offset, offset + part.len());
                    offset += part.len();
                    sized.push((
                        Piece {
                            text: Cow::Borrowed(part),
                            src,
                        },
                        part.chars().count(),
                    ));
                }
            }
            Cow::Owned(s) => {
                for part in cut(&s, max_chars) {
                    let text = Cow::Owned(part.to_owned());
                    sized.push((
                        Piece {
                            text,
                            src: piece.src,
                        },
                        part.chars().count(),
                    ));
                }
            }
        }
    }
    let mut groups: Vec<Vec<Piece<'_>>> = Vec::new();
    let mut current: Vec<Piece<'_>> = Vec::new();
    let mut chars = 0;
    for (piece, n) in sized {
        if chars + n > max_chars && !current.is_empty() {
            groups.push(std::mem::take(&mut current));
            chars = 0;
        }
        chars += n;
        current.push(piece);
    }
    if !current.is_empty() || groups.is_empty() {
        groups.push(current);
    }
    let parts = groups.len();
    let mut out = Vec::with_capacity(parts);
    let mut groups = groups.into_iter().enumerate().peekable();
    while let Some((i, group)) = groups.next() {
        // The last part takes the template itself: a chunk of one part (most) clones nothing.
        if groups.peek().is_none() {
            out.push(fill_part(file, template, group, i, parts));
            break;
        }
        out.push(fill_part(file, template.clone(), group, i, parts));
    }
    out
}

/// Part `i` (0-based) of `parts` of a split chunk: `chunk` (the template) with the lines, byte
/// range, content and SHA-256 of the pieces in `group`.
fn fill_part(
    file: &File<'_>,
    mut chunk: Chunk,
    group: Vec<Piece<'_>>,
    i: usize,
    parts: usize,
) -> Chunk {
    if let (Some(first), Some(last)) = (group.first(), group.last()) {
        chunk.byte_range = (first.src.0, last.src.1.max(first.src.0));
    }
    let (start, end) = file.lines.span(chunk.byte_range.0, chunk.byte_range.1);
    chunk.start_line = start;
    chunk.end_line = end;
    let mut content = String::with_capacity(group.iter().map(|p| p.text.len()).sum::<usize>());
    content.extend(group.iter().map(|p| p.text.as_ref()));
    chunk.content = content;
    chunk.sha256 = sha256_hex(&chunk.content);
    if parts > 1 {
        chunk.meta.insert("part".into(), (i + 1).into());
        chunk.meta.insert("parts".into(), parts.into());
    }
    chunk
}

/// Cuts `s` into slices of at most `max_chars` chars at char boundaries, preferring to break after
/// whitespace or one of `;,})>` in the last quarter of each slice.
fn cut(s: &str, max_chars: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let hard = rest
            .char_indices()
            .nth(max_chars)
            .map_or(rest.len(), |(i, _)| i);
        let mut at = hard;
        if hard < rest.len() {
            let floor = rest
                .char_indices()
                .nth(max_chars - max_chars / 4)
                .map_or(0, |(i, _)| i);
            let soft = rest.as_bytes()[floor..hard]
                .iter()
                .rposition(|b| matches!(b, b' ' | b'\t' | b';' | b',' | b'}' | b')' | b'>'));
            if let Some(i) = soft {
                at = floor + i + 1;
            }
        }
        let at = (at.max(1)..=rest.len())
            .find(|&i| rest.is_char_boundary(i))
            .unwrap_or(rest.len());
        out.push(&rest[..at]);
        rest = &rest[at..];
    }
    out
}

fn sha256_hex(content: &str) -> String {
    hex::encode(Sha256::digest(content.as_bytes()))
}

/// The first line of `s` without its terminator.
fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// Whitespace runs collapsed to one space, trimmed.
fn collapse(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// `s` cut to at most `max` bytes at a char boundary.
fn cap(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// A docstring or docblock without comment markers or quotes, dedented, capped.
///
/// Dispatches on the text, not the language: `/** */` and `/* */` blocks lose the markers and the
/// leading `*` of each line; `//` and `#` line comments lose the markers; string literals lose an
/// optional prefix (`r`, `u`, `b`, `f`) and their quotes (triple or single). Then the common
/// indentation of the lines after the first is removed, as in Python's `inspect.cleandoc` (PEP 257).
fn clean_doc(raw: &str) -> String {
    let raw = raw.trim();
    let body: String = if let Some(inner) = raw.strip_prefix("/*") {
        let inner = inner.trim_start_matches('*');
        let inner = inner.strip_suffix("*/").unwrap_or(inner);
        let lines: Vec<&str> = inner
            .lines()
            .map(|l| match l.trim_start().strip_prefix('*') {
                Some(rest) => rest.strip_prefix(' ').unwrap_or(rest),
                None => l,
            })
            .collect();
        lines.join("\n")
    } else if raw.starts_with("//") || raw.starts_with('#') {
        let lines: Vec<&str> = raw
            .lines()
            .map(|l| {
                let t = l
                    .trim_start()
                    .trim_start_matches('/')
                    .trim_start_matches('#');
                // Rust's inner doc comments (`//!`).
                let t = t.strip_prefix('!').unwrap_or(t);
                t.strip_prefix(' ').unwrap_or(t)
            })
            .collect();
        lines.join("\n")
    } else {
        let s = raw.trim_start_matches(['r', 'R', 'u', 'U', 'b', 'B', 'f', 'F']);
        let quote = ["\"\"\"", "'''", "\"", "'"]
            .into_iter()
            .find(|q| s.starts_with(q));
        match quote {
            Some(q) => {
                let inner = &s[q.len()..];
                inner.strip_suffix(q).unwrap_or(inner).to_owned()
            }
            None => s.to_owned(),
        }
    };
    let lines: Vec<&str> = body.lines().collect();
    let indent = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out: Vec<&str> = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        let line = if i == 0 {
            line.trim()
        } else {
            line.get(indent..).unwrap_or(line.trim_start()).trim_end()
        };
        out.push(line);
    }
    let first = out.iter().position(|l| !l.is_empty()).unwrap_or(out.len());
    let last = out
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(first, |i| i + 1);
    cap(&out[first..last.max(first)].join("\n"), DOC_MAX_BYTES).to_owned()
}
