//! Text tools over the files on disk: `search_text` (regex or literal, with context) and
//! `find_references` (word-boundary uses minus definition sites), with grep-searcher over an
//! `ignore` walk.

use std::collections::VecDeque;

use crate::index::chunk::ChunkKind;

use code_intel_session::repo_path::relative_slash;
use grep_regex::RegexMatcherBuilder;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ignore::types::TypesBuilder;
use serde::{Deserialize, Serialize};

use super::{
    Budget, ExploreContext, ExploreError, FileOrder, ResultOrder, Span, TouchedFiles, cut_line,
    dedup_files, file_spans, innermost, resolve_existing, result_cap,
};
use crate::index::framework;
use crate::index::lang::{self, Language};
use crate::index::lexical::{NameMatch, normalize_qualified};
use crate::index::source::{self, SourceError};
use crate::index::{SkippedFile, sync};

/// Largest compiled form of a `search_text` regex, in bytes (grep-regex's `size_limit`; its
/// default, 100 MiB, let one pattern like `\w{1,10000}` take ~110 MB before being refused).
/// A pattern over it is [`ExploreError::BadRegex`], whose message suggests `literal: true`.
pub const REGEX_SIZE_LIMIT: usize = 10 << 20;

/// Largest lazy-DFA cache of a `search_text` regex, in bytes (grep-regex's `dfa_size_limit`,
/// default 1000 MiB). Past it the search goes on with a slower engine, never more memory.
pub const REGEX_DFA_SIZE_LIMIT: usize = 16 << 20;

/// Parameters of [`search_text`]. `pattern` is required; every other field has a default.
/// `path` may also be absolute inside the repository; `context_lines` is capped by the
/// configuration's `max_context_lines`, `max_results` defaults to its `max_results` and is capped
/// by `max_results_ceiling`.
///
/// The field docs are the MCP tool's schema descriptions (feature `schema`): written for the model.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SearchTextParams {
    /// Regular expression (Rust regex syntax), or literal text with literal=true.
    pub pattern: String,
    /// File or directory to search (repository-relative); default the whole repository.
    #[serde(default)]
    pub path: Option<String>,
    /// Language id (python, php, javascript, typescript, blade, html, css, scss, go, rust, java, ruby, csharp, c, cpp, kotlin, swift, vue, svelte) or ripgrep type (py, js, ...).
    #[serde(default)]
    pub file_type: Option<String>,
    /// Lines of context before and after each match (default 0).
    #[serde(default)]
    pub context_lines: Option<usize>,
    /// Maximum matches returned.
    #[serde(default)]
    pub max_results: Option<usize>,
    /// Treat pattern as literal text (default false).
    #[serde(default)]
    pub literal: bool,
    /// "relevance" (session default) or "path".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<ResultOrder>,
}

/// One matching line of [`search_text`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextMatch {
    /// Repository-relative path.
    pub file: String,
    /// Line number, 1-based.
    pub line: u64,
    /// The line (cut to `max_line_chars`).
    pub content: String,
    /// Up to `context_lines` lines before, in order.
    pub context_before: Vec<String>,
    /// Up to `context_lines` lines after, in order.
    pub context_after: Vec<String>,
}

/// Result of [`search_text`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchTextResult {
    /// The pattern as given.
    pub pattern: String,
    /// The file order used ([`ResultOrder`]); matches keep line order within a file.
    pub order: ResultOrder,
    /// Why the order asked for was not used (relevance without a session or an index).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_note: Option<String>,
    /// Matches in [`order`](Self::order), then line order.
    pub matches: Vec<TextMatch>,
    /// All matching lines, including those not returned.
    pub total: usize,
    /// Whether matches were left out (result cap or output budget).
    pub truncated: bool,
    /// Files searched.
    pub files_searched: usize,
    /// Files not searched (over `max_file_bytes`, special files, unreadable files and
    /// directories, a directory as `dir/`), at most
    /// `MAX_SKIPPED_LISTED` (10) with their reason; `files_skipped` counts all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<SkippedFile>,
    /// Files not searched, including those not listed in `skipped`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub files_skipped: usize,
}

/// Most skipped files a search result lists by name (the rest are counted).
pub const MAX_SKIPPED_LISTED: usize = 10;

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Records a file the read path refused on a result (see [`note_skipped`]).
fn note_skip(listed: &mut Vec<SkippedFile>, count: &mut usize, e: &SourceError, rel: &str) {
    note_skipped(
        listed,
        count,
        SkippedFile {
            path: rel.to_string(),
            reason: e.to_string(),
        },
    );
}

/// Records a skipped path on a result: counted always, listed up to `MAX_SKIPPED_LISTED` (10).
fn note_skipped(listed: &mut Vec<SkippedFile>, count: &mut usize, skipped: SkippedFile) {
    *count += 1;
    if listed.len() < MAX_SKIPPED_LISTED {
        listed.push(skipped);
    }
}

/// Searches one file through the checked reader ([`source::read_source`], at most
/// `max_file_bytes`): never blocks on a FIFO, never reads a giant.
fn search_file<S: Sink>(
    cx: &ExploreContext<'_>,
    searcher: &mut Searcher,
    matcher: &grep_regex::RegexMatcher,
    rel: &str,
    sink: S,
) -> Result<(), SourceError>
where
    S::Error: std::fmt::Display,
{
    let bytes = source::read_source(cx.root, rel, cx.config.max_file_bytes)?;
    searcher
        .search_slice(matcher, &bytes, sink)
        .map_err(|e| SourceError::Io {
            path: rel.to_string(),
            source: std::io::Error::other(e.to_string()),
        })
}

impl TouchedFiles for SearchTextResult {
    fn files(&self) -> Vec<String> {
        dedup_files(self.matches.iter().map(|m| m.file.as_str()))
    }
}

/// Parameters of [`find_references`]. `symbol` is required. Of a qualified name
/// (`UserController::store`) the last segment is searched and that symbol's definitions are
/// excluded. `max_results` defaults to the configuration's `max_results` and is capped by
/// `max_results_ceiling`.
///
/// The field docs are the MCP tool's schema descriptions (feature `schema`): written for the model.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FindReferencesParams {
    /// Name or qualified name whose uses to find (definitions are excluded).
    pub symbol: String,
    /// File or directory to search in (repository-relative); default everywhere.
    #[serde(default)]
    pub path: Option<String>,
    /// Maximum references returned.
    #[serde(default)]
    pub max_results: Option<usize>,
    /// "relevance" (session default) or "path".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<ResultOrder>,
}

/// One use of a symbol.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reference {
    /// Repository-relative path.
    pub file: String,
    /// Line number, 1-based.
    pub line: u64,
    /// The line (cut to `max_line_chars`).
    pub content: String,
    /// Qualified name of the innermost symbol (function, method, class, ...) containing the
    /// line; absent at file level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enclosing_symbol: Option<String>,
}

/// Result of [`find_references`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FindReferencesResult {
    /// The symbol as given.
    pub symbol: String,
    /// The file order used ([`ResultOrder`]).
    pub order: ResultOrder,
    /// Why the order asked for was not used (relevance without a session or an index).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_note: Option<String>,
    /// References: in relevance order, the ranked files first in rank order; then source files,
    /// then other text files, each group in path order; line order within a file.
    pub references: Vec<Reference>,
    /// All references found, including those not returned.
    pub total: usize,
    /// Whether references were left out (result cap or output budget).
    pub truncated: bool,
    /// Matches dropped because they are definition sites of the symbol.
    pub definitions_excluded: usize,
    /// Files searched.
    pub files_searched: usize,
    /// Files not searched (over `max_file_bytes`, special files, unreadable files and
    /// directories, a directory as `dir/`), at most
    /// `MAX_SKIPPED_LISTED` (10) with their reason; `files_skipped` counts all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<SkippedFile>,
    /// Files not searched, including those not listed in `skipped`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub files_skipped: usize,
    /// Framework links to the symbol from the index (files that render a view, route to a
    /// controller, use a component, relate to a model, inject a class; see
    /// [`framework`](crate::index::framework)), at most 50. Empty without
    /// an index or when no framework strategy links to the symbol.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub framework_links: Vec<framework::Neighbor>,
}

/// At most this many framework links are listed by `find_references`.
pub const MAX_FRAMEWORK_REFS: usize = 50;

impl TouchedFiles for FindReferencesResult {
    fn files(&self) -> Vec<String> {
        dedup_files(
            self.references
                .iter()
                .map(|r| r.file.as_str())
                .chain(self.framework_links.iter().map(|n| n.file.as_str())),
        )
    }
}

/// The framework links to `symbol` in the index: by its framework keys
/// ([`framework::keys_for_symbol`]), and for a short class name by the FQCNs of the PHP classes
/// of that name the index defines.
fn framework_references(
    cx: &ExploreContext<'_>,
    symbol: &str,
    name: &str,
) -> Vec<framework::Neighbor> {
    let Some(index) = cx.index else {
        return Vec::new();
    };
    let mut keys = framework::keys_for_symbol(symbol);
    if !symbol.contains('\\')
        && let Ok((defs, _)) = index.definitions(name, NameMatch::Exact, None, Some("php"), 20)
    {
        for d in defs {
            if matches!(
                d.kind,
                ChunkKind::Class | ChunkKind::Interface | ChunkKind::Trait | ChunkKind::Enum
            ) && d.qualified_name.contains('\\')
            {
                keys.push(format!(
                    "class:{}",
                    d.qualified_name.trim_start_matches('\\')
                ));
            }
        }
    }
    keys.sort();
    keys.dedup();
    let mut out = Vec::new();
    for key in keys {
        if let Ok((found, _)) = index.framework_linkers(&key, MAX_FRAMEWORK_REFS) {
            out.extend(found);
        }
    }
    out.sort();
    out.dedup();
    out.truncate(MAX_FRAMEWORK_REFS);
    out
}

/// Searches file contents for a regex or literal, like `rg`: `.gitignore`/`.ignore`-aware,
/// hidden files and `exclude_patterns` skipped, binary files skipped, symlinks not followed.
/// Files in [`ResultOrder`] (relevance to the session's request by default in a session, path
/// order otherwise), lines in line order; `max_results` applies after ordering.
///
/// # Errors
/// [`ExploreError::BadRegex`] (the message suggests `literal: true`), [`ExploreError::Path`] for
/// a path outside the repository, [`ExploreError::NotFound`], [`ExploreError::UnknownFileType`].
pub fn search_text(
    cx: &ExploreContext<'_>,
    params: &SearchTextParams,
) -> Result<SearchTextResult, ExploreError> {
    let limits = &cx.config.limits;
    let mut builder = RegexMatcherBuilder::new();
    builder
        .line_terminator(Some(b'\n'))
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_DFA_SIZE_LIMIT)
        .fixed_strings(params.literal);
    let matcher = builder
        .build(&params.pattern)
        .map_err(|source| ExploreError::BadRegex {
            pattern: params.pattern.clone(),
            source,
        })?;
    let context = params
        .context_lines
        .unwrap_or(0)
        .min(limits.max_context_lines);
    let cap = result_cap(limits, params.max_results);
    let (mut files, unreadable) =
        files_to_search(cx, params.path.as_deref(), params.file_type.as_deref())?;
    let order = FileOrder::resolve(cx, params.order)?;
    order.sort(&mut files);

    let mut result = SearchTextResult {
        pattern: params.pattern.clone(),
        order: order.order,
        order_note: order.note.clone(),
        matches: Vec::new(),
        total: 0,
        truncated: false,
        files_searched: 0,
        skipped: Vec::new(),
        files_skipped: 0,
    };
    for dir in unreadable {
        note_skipped(&mut result.skipped, &mut result.files_skipped, dir);
    }
    let mut budget = Budget::new(limits);
    let mut with_context = searcher(context);
    let mut count_only = searcher(0);
    for rel in &files {
        let keep = if result.truncated {
            0
        } else {
            cap - result.matches.len()
        };
        let searcher = if keep > 0 {
            &mut with_context
        } else {
            &mut count_only
        };
        let mut sink = Collector::new(context, keep, limits.max_line_chars);
        if let Err(e) = search_file(cx, searcher, &matcher, rel, &mut sink) {
            note_skip(&mut result.skipped, &mut result.files_skipped, &e, rel);
            continue;
        }
        result.files_searched += 1;
        result.total += sink.counted;
        for m in sink.kept {
            let size = m.content.len()
                + m.before
                    .iter()
                    .chain(&m.after)
                    .map(String::len)
                    .sum::<usize>()
                + rel.len();
            if !result.truncated && result.matches.len() < cap && budget.take(size) {
                result.matches.push(TextMatch {
                    file: rel.clone(),
                    line: m.line,
                    content: m.content,
                    context_before: m.before,
                    context_after: m.after,
                });
            } else {
                result.truncated = true;
            }
        }
        if sink.counted > sink.kept_count {
            result.truncated = true;
        }
    }
    Ok(result)
}

/// Finds word-boundary uses of a symbol, minus its definition sites, each with the innermost
/// enclosing symbol. In relevance order (the default in a session) the files the ranked search
/// finds for the session's request come first, in its order; then files of languages with a
/// grammar (in path order), then other text files (docs, changelogs).
///
/// A qualified symbol (`Router::get`, `Flask.route`) searches its last segment; definition sites
/// excluded are the declaration lines of chunks named like that segment (and, for a qualified
/// symbol, whose qualified name ends like it). Case-sensitive.
///
/// # Errors
/// [`ExploreError::EmptySymbol`], [`ExploreError::Path`], [`ExploreError::NotFound`].
pub fn find_references(
    cx: &ExploreContext<'_>,
    params: &FindReferencesParams,
) -> Result<FindReferencesResult, ExploreError> {
    let limits = &cx.config.limits;
    let symbol = params.symbol.trim();
    let name = last_segment(symbol);
    if name.is_empty() {
        return Err(ExploreError::EmptySymbol);
    }
    let qualified = (name != symbol).then(|| normalize_qualified(symbol));
    let matcher = RegexMatcherBuilder::new()
        .line_terminator(Some(b'\n'))
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_DFA_SIZE_LIMIT)
        .fixed_strings(true)
        .word(true)
        .build(name)
        .map_err(|source| ExploreError::BadRegex {
            pattern: name.to_string(),
            source,
        })?;
    let cap = result_cap(limits, params.max_results);
    let (mut files, unreadable) = files_to_search(cx, params.path.as_deref(), None)?;
    // Code before prose: uses in source files matter more than mentions in docs and changelogs.
    // In relevance order the ranked files come first, in rank order.
    let order = FileOrder::resolve(cx, params.order)?;
    files.sort_by_key(|rel| (order.key(rel), lang::detect(rel) == Language::Text));
    let mut result = FindReferencesResult {
        symbol: params.symbol.clone(),
        order: order.order,
        order_note: order.note.clone(),
        references: Vec::new(),
        total: 0,
        truncated: false,
        definitions_excluded: 0,
        files_searched: 0,
        skipped: Vec::new(),
        files_skipped: 0,
        framework_links: framework_references(cx, symbol, name),
    };
    for dir in unreadable {
        note_skipped(&mut result.skipped, &mut result.files_skipped, dir);
    }
    let mut budget = Budget::new(limits);
    let mut searcher = searcher(0);
    for rel in &files {
        let mut sink = Collector::new(0, usize::MAX, limits.max_line_chars);
        if let Err(e) = search_file(cx, &mut searcher, &matcher, rel, &mut sink) {
            note_skip(&mut result.skipped, &mut result.files_skipped, &e, rel);
            continue;
        }
        result.files_searched += 1;
        if sink.kept.is_empty() {
            continue;
        }
        let spans = file_spans(cx, rel);
        let definition_lines = definition_lines(&spans, &sink.kept, name, qualified.as_deref());
        for m in sink.kept {
            if definition_lines.contains(&m.line) {
                result.definitions_excluded += 1;
                continue;
            }
            result.total += 1;
            let line = u32::try_from(m.line).unwrap_or(u32::MAX);
            let enclosing = innermost(&spans, line).map(|s| {
                if s.qualified_name.is_empty() {
                    s.symbol.clone()
                } else {
                    s.qualified_name.clone()
                }
            });
            let size = m.content.len() + rel.len() + enclosing.as_ref().map_or(0, String::len);
            if !result.truncated && result.references.len() < cap && budget.take(size) {
                result.references.push(Reference {
                    file: rel.clone(),
                    line: m.line,
                    content: m.content,
                    enclosing_symbol: enclosing,
                });
            } else {
                result.truncated = true;
            }
        }
    }
    Ok(result)
}

/// The last segment of a possibly qualified name (`A\B::c` → `c`, `a.b` → `b`, `$x->y` → `y`).
fn last_segment(symbol: &str) -> &str {
    let cut = ["::", ".", "\\", "->", "#"]
        .iter()
        .filter_map(|sep| symbol.rfind(sep).map(|i| i + sep.len()))
        .max()
        .unwrap_or(0);
    &symbol[cut..]
}

/// Lines (1-based) that declare `name`: per chunk named `name` (and, when `qualified` is given,
/// whose normalised qualified name equals it or ends with `.qualified`), the first match in the
/// chunk whose text is part of the chunk's signature, else the first match in the chunk.
fn definition_lines(
    spans: &[Span],
    matches: &[Kept],
    name: &str,
    qualified: Option<&str>,
) -> Vec<u64> {
    let collapse = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    for span in spans.iter().filter(|s| s.is_symbol() && s.symbol == name) {
        if let Some(q) = qualified {
            let own = normalize_qualified(&span.qualified_name);
            if own != q && !own.ends_with(&format!(".{q}")) {
                continue;
            }
        }
        let inside: Vec<&Kept> = matches
            .iter()
            .filter(|m| (u64::from(span.start_line)..=u64::from(span.end_line)).contains(&m.line))
            .collect();
        let signature = collapse(&span.signature);
        let declared = inside
            .iter()
            .find(|m| !signature.is_empty() && signature.contains(&collapse(&m.content)))
            .or_else(|| inside.first());
        if let Some(m) = declared {
            out.push(m.line);
        }
    }
    out
}

fn searcher(context: usize) -> Searcher {
    SearcherBuilder::new()
        .line_number(true)
        .before_context(context)
        .after_context(context)
        .binary_detection(BinaryDetection::quit(b'\x00'))
        .build()
}

/// The files to search under `path` (a file is searched as given, even if ignored), sorted.
/// A path that is not a directory must be a regular file of at most `max_file_bytes`. Also
/// returns the directories the walk could not read (`dir/`, reason).
fn files_to_search(
    cx: &ExploreContext<'_>,
    path: Option<&str>,
    file_type: Option<&str>,
) -> Result<(Vec<String>, Vec<SkippedFile>), ExploreError> {
    let (rp, abs) = resolve_existing(cx.root, path)?;
    if !abs.is_dir() {
        source::check_source(cx.root, rp.as_str(), cx.config.max_file_bytes)?;
        return Ok((vec![rp.as_str().to_string()], Vec::new()));
    }
    let mut walk = sync::walker(cx.root, cx.config, &[abs])?;
    walk.sort_by_file_name(|a, b| a.cmp(b));
    if let Some(t) = file_type {
        walk.types(file_types(t)?);
    }
    let mut out = Vec::new();
    let mut unreadable = Vec::new();
    for entry in walk.build() {
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                if let Some((dir, reason)) = sync::walk_error(&err)
                    && let Some(rel) = relative_slash(cx.root.path(), &dir)
                {
                    unreadable.push(SkippedFile {
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
        if let Some(rel) = relative_slash(cx.root.path(), entry.path()) {
            out.push(rel);
        }
    }
    Ok((out, unreadable))
}

/// A type matcher for a language id or ripgrep type name.
fn file_types(name: &str) -> Result<ignore::types::Types, ExploreError> {
    let unknown = || ExploreError::UnknownFileType {
        name: name.to_string(),
    };
    let mut b = TypesBuilder::new();
    b.add_defaults();
    b.add("blade", "*.blade.php").map_err(|_| unknown())?;
    let lower = name.trim().to_ascii_lowercase();
    let selected = match lower.as_str() {
        "python" => "py",
        "javascript" => "js",
        "typescript" | "tsx" => "ts",
        other => other,
    };
    if !b.definitions().iter().any(|d| d.name() == selected) {
        return Err(unknown());
    }
    b.select(selected);
    b.build().map_err(|_| unknown())
}

/// A matching line kept by the collector, with its context.
#[derive(Debug)]
struct Kept {
    line: u64,
    content: String,
    before: Vec<String>,
    after: Vec<String>,
}

/// A sink that counts matching lines, keeps the first `keep` with per-match context, and cuts
/// long lines. grep-searcher prints each line once even when contexts overlap; per-match
/// context is rebuilt from the last lines seen and the lines that follow.
struct Collector {
    context: usize,
    keep: usize,
    max_line_chars: usize,
    counted: usize,
    kept_count: usize,
    kept: Vec<Kept>,
    recent: VecDeque<(u64, String)>,
    /// Indexes into `kept` still collecting after-context.
    pending: Vec<usize>,
}

impl Collector {
    fn new(context: usize, keep: usize, max_line_chars: usize) -> Self {
        Self {
            context,
            keep,
            max_line_chars,
            counted: 0,
            kept_count: 0,
            kept: Vec::new(),
            recent: VecDeque::new(),
            pending: Vec::new(),
        }
    }

    fn line(&mut self, lnum: u64, bytes: &[u8], is_match: bool) {
        let text = cut_line(&String::from_utf8_lossy(bytes), self.max_line_chars);
        if self.context > 0 {
            let n = self.context as u64;
            let kept = &mut self.kept;
            self.pending.retain(|&i| {
                let k = &mut kept[i];
                if lnum > k.line && lnum <= k.line + n && k.after.len() < self.context {
                    k.after.push(text.clone());
                }
                lnum < k.line + n && k.after.len() < self.context
            });
        }
        if is_match {
            self.counted += 1;
            if self.kept_count < self.keep {
                self.kept_count += 1;
                let before = self
                    .recent
                    .iter()
                    .filter(|(l, _)| *l + (self.context as u64) >= lnum && *l < lnum)
                    .map(|(_, t)| t.clone())
                    .collect();
                self.kept.push(Kept {
                    line: lnum,
                    content: text.clone(),
                    before,
                    after: Vec::new(),
                });
                if self.context > 0 {
                    self.pending.push(self.kept.len() - 1);
                }
            }
        }
        if self.context > 0 {
            if self.recent.len() == self.context {
                self.recent.pop_front();
            }
            self.recent.push_back((lnum, text));
        }
    }
}

impl Sink for Collector {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, m: &SinkMatch<'_>) -> Result<bool, std::io::Error> {
        let first = m.line_number().unwrap_or(0);
        for (k, line) in m.lines().enumerate() {
            self.line(first + k as u64, line, true);
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, c: &SinkContext<'_>) -> Result<bool, std::io::Error> {
        self.line(c.line_number().unwrap_or(0), c.bytes(), false);
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, std::io::Error> {
        self.recent.clear();
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_segments() {
        assert_eq!(last_segment(r"App\Http\UserController::store"), "store");
        assert_eq!(last_segment("Flask.route"), "route");
        assert_eq!(last_segment("$req->input"), "input");
        assert_eq!(last_segment("plain"), "plain");
    }
}
