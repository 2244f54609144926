//! `find_definitions`: symbol definitions by name or qualified name, from the index (or from
//! files parsed on the spot when no index is open).

use code_intel_session::repo_path::relative_slash;
use serde::{Deserialize, Serialize};

use super::{
    Budget, ExploreContext, ExploreError, Span, TouchedFiles, chunks_from_disk, dedup_files,
    language_id, resolve_existing, result_cap, scope_of,
};
use crate::index::chunk::ChunkKind;
use crate::index::lang::Language;
use crate::index::lexical::NameMatch;
use crate::index::lexical::normalize_qualified;
use crate::index::sync;

/// Substring lookups load at most this many candidate chunks (exact matches are always all
/// loaded); beyond it the result is marked truncated.
const SUBSTRING_CANDIDATES: usize = 2_000;

/// Longest symbol looked up, in characters; longer ones match nothing. No identifier is longer,
/// and the name automaton of the index lookup grows with the symbol.
const MAX_SYMBOL_CHARS: usize = 256;

/// Parameters of [`find_definitions`]. `symbol` is required: a name (`route`), or a qualified
/// name or suffix of one (`Scaffold.route`, `App\Http\Controllers\UserController`); separators
/// `::`, `.`, `\`, `->` and `#` are interchangeable. `language` also accepts `py`/`js`/`ts`/`rs`/`rb`/`cs`/`c++`/`golang`.
/// `exact_match`: the symbol or qualified name equals `symbol`, or the qualified name ends with it
/// (case-insensitive); without it, additionally any case-insensitive substring. `max_results`
/// defaults to the configuration's `max_results` and is capped by `max_results_ceiling`.
///
/// The field docs are the MCP tool's schema descriptions (feature `schema`): written for the model.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FindDefinitionsParams {
    /// Name or qualified name (`authenticate`, `LoginService.authenticate`, `App\Cart\Cart::addItem`).
    pub symbol: String,
    /// File or directory to search in (repository-relative); default everywhere.
    #[serde(default)]
    pub path: Option<String>,
    /// Language id (python, php, javascript, typescript, go, rust, java, ruby, csharp, c, cpp, kotlin, swift, ...).
    #[serde(default)]
    pub language: Option<String>,
    /// Only exact (case-insensitive) name or qualified-name-suffix matches; default also substrings.
    #[serde(default)]
    pub exact_match: bool,
    /// Maximum definitions returned.
    #[serde(default)]
    pub max_results: Option<usize>,
}

/// One definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Definition {
    /// The symbol name.
    pub name: String,
    /// The qualified name (`Class.method`, `Namespace\Class::method`).
    pub qualified_name: String,
    /// Repository-relative path.
    pub file: String,
    /// First line of the definition, 1-based (decorators and doc comments may precede the name).
    pub line: u32,
    /// Last line, 1-based inclusive.
    pub end_line: u32,
    /// Chunk kind, serialised `function`, `method`, `class`, `interface`, `trait`, `enum`, `rule`, ...
    pub kind: ChunkKind,
    /// The enclosing qualified name (`App\Http\UserController` for its `store` method); absent at
    /// top level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The declaration, whitespace-collapsed (may be empty).
    pub signature: String,
    /// Language, serialised as its id.
    pub language: Language,
}

/// Result of [`find_definitions`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FindDefinitionsResult {
    /// The symbol as given.
    pub symbol: String,
    /// Definitions, best match first: case-exact name matches, then case-insensitive ones (each
    /// by path and line), then names containing the symbol with its case, names containing it
    /// in another case, and qualified names containing it (each shortest name first, then by
    /// path and line).
    pub definitions: Vec<Definition>,
    /// All definitions found, including those not returned.
    pub total: usize,
    /// Whether definitions were left out (result cap, output budget, candidate limit).
    pub truncated: bool,
}

impl TouchedFiles for FindDefinitionsResult {
    fn files(&self) -> Vec<String> {
        dedup_files(self.definitions.iter().map(|d| d.file.as_str()))
    }
}

/// A candidate: a chunk's span plus its file and language.
struct Candidate {
    file: String,
    language: Language,
    span: Span,
}

/// Finds definitions of a symbol. Module and line-window chunks are never definitions. Parts of
/// a chunk split for size are merged back into one definition.
///
/// # Errors
/// [`ExploreError::EmptySymbol`], [`ExploreError::Path`], [`ExploreError::NotFound`],
/// [`ExploreError::Index`].
pub fn find_definitions(
    cx: &ExploreContext<'_>,
    params: &FindDefinitionsParams,
) -> Result<FindDefinitionsResult, ExploreError> {
    let symbol = params.symbol.trim();
    if normalize_qualified(symbol).trim_matches('.').is_empty() {
        return Err(ExploreError::EmptySymbol);
    }
    if symbol.chars().count() > MAX_SYMBOL_CHARS {
        // No identifier is that long: nothing can match (and the lookup automaton stays small).
        return Ok(FindDefinitionsResult {
            symbol: params.symbol.clone(),
            definitions: Vec::new(),
            total: 0,
            truncated: false,
        });
    }
    let (scope, _) = resolve_existing(cx.root, params.path.as_deref())?;
    let scope = Some(scope.as_str()).filter(|s| !s.is_empty());
    let language = params.language.as_deref().map(language_id);
    let mut truncated = false;

    let mut candidates: Vec<Candidate> = Vec::new();
    if let Some(index) = cx.index {
        let mut add = |chunks: Vec<crate::index::lexical::StoredChunk>| {
            candidates.extend(chunks.iter().map(|c| Candidate {
                file: c.file.clone(),
                language: c.language,
                span: Span::from_stored(c),
            }));
        };
        let (exact, _) = index.definitions(
            symbol,
            NameMatch::Exact,
            scope,
            language.as_deref(),
            usize::MAX,
        )?;
        add(exact);
        if !params.exact_match {
            let (sub, total) = index.definitions(
                symbol,
                NameMatch::Substring,
                scope,
                language.as_deref(),
                SUBSTRING_CANDIDATES,
            )?;
            truncated |= total > SUBSTRING_CANDIDATES;
            add(sub);
        }
    } else {
        candidates = scan_disk(cx, scope, language.as_deref(), symbol, params.exact_match)?;
    }

    // Merge split parts and duplicates (exact and substring lookups overlap).
    candidates.sort_by(|a, b| {
        (
            &a.file,
            &a.span.qualified_name,
            a.span.kind.name(),
            a.span.start_line,
        )
            .cmp(&(
                &b.file,
                &b.span.qualified_name,
                b.span.kind.name(),
                b.span.start_line,
            ))
    });
    let mut merged: Vec<Candidate> = Vec::new();
    for c in candidates {
        if let Some(last) = merged.last_mut() {
            let same = last.file == c.file
                && last.span.qualified_name == c.span.qualified_name
                && last.span.kind == c.span.kind
                && last.span.symbol == c.span.symbol;
            if same && c.span.start_line <= last.span.end_line.saturating_add(1) {
                last.span.end_line = last.span.end_line.max(c.span.end_line);
                continue;
            }
        }
        merged.push(c);
    }

    let mut ranked: Vec<(u8, Candidate)> = merged
        .into_iter()
        .map(|c| (rank(symbol, &c.span), c))
        .collect();
    // Within a tier of partial matches the shorter name is the closer one (`FormRequest` before
    // `RequestFingerprinter` for `Request`); exact tiers keep path order.
    let closeness = |tier: u8, c: &Candidate| {
        if tier >= 2 {
            c.span.symbol.chars().count()
        } else {
            0
        }
    };
    ranked.sort_by(|(ra, a), (rb, b)| {
        (ra, closeness(*ra, a), &a.file, a.span.start_line).cmp(&(
            rb,
            closeness(*rb, b),
            &b.file,
            b.span.start_line,
        ))
    });

    let limits = &cx.config.limits;
    let cap = result_cap(limits, params.max_results);
    let mut budget = Budget::new(limits);
    let total = ranked.len();
    let mut definitions = Vec::new();
    let mut cut = false;
    for (_, c) in ranked {
        let d = Definition {
            name: c.span.symbol,
            scope: scope_of(&c.span.qualified_name),
            qualified_name: c.span.qualified_name,
            file: c.file,
            line: c.span.start_line,
            end_line: c.span.end_line,
            kind: c.span.kind,
            signature: super::cut_line(&c.span.signature, limits.max_line_chars),
            language: c.language,
        };
        let size = d.name.len()
            + d.qualified_name.len()
            + d.file.len()
            + d.signature.len()
            + d.kind.name().len();
        if !cut && definitions.len() < cap && budget.take(size) {
            definitions.push(d);
        } else {
            cut = true;
        }
    }
    Ok(FindDefinitionsResult {
        symbol: params.symbol.clone(),
        definitions,
        total,
        truncated: truncated || cut,
    })
}

/// 0: the name or qualified name equals `symbol` (or the qualified name ends with it) with the
/// same case; 1: the same ignoring case; 2: the name contains `symbol` with the same case
/// (`FormRequest` for `Request`); 3: the name contains it ignoring case (`add_requests`);
/// 4: only the qualified name does (a function nested in `prepare_request`).
fn rank(symbol: &str, span: &Span) -> u8 {
    let seps = |s: &str| {
        s.trim_start_matches('\\')
            .replace("::", ".")
            .replace("->", ".")
            .replace(['\\', '#'], ".")
    };
    let (q, own) = (seps(symbol), seps(&span.qualified_name));
    if span.symbol == symbol || own == q || own.ends_with(&format!(".{q}")) {
        return 0;
    }
    let (ql, ownl) = (q.to_lowercase(), own.to_lowercase());
    let name = span.symbol.to_lowercase();
    if name == ql || ownl == ql || ownl.ends_with(&format!(".{ql}")) {
        return 1;
    }
    if span.symbol.contains(q.as_str()) {
        2
    } else if name.contains(ql.as_str()) {
        3
    } else {
        4
    }
}

/// Without an index: parse the files of the scope (or the index's source directories) and keep
/// the chunks that match like the index lookup would.
fn scan_disk(
    cx: &ExploreContext<'_>,
    scope: Option<&str>,
    language: Option<&str>,
    symbol: &str,
    exact_only: bool,
) -> Result<Vec<Candidate>, ExploreError> {
    let starts = match scope {
        Some(s) => vec![cx.root.path().join(s)],
        None => sync::source_starts(cx.root, cx.config),
    };
    let q = normalize_qualified(symbol);
    let mut out = Vec::new();
    for entry in sync::walker(cx.root, cx.config, &starts)?.build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Some(rel) = relative_slash(cx.root.path(), entry.path()) else {
            continue;
        };
        let Ok(chunks) = chunks_from_disk(cx, &rel) else {
            continue;
        };
        for c in &chunks {
            let span = Span::from_chunk(c);
            if !span.is_symbol() || language.is_some_and(|l| l != c.language.id()) {
                continue;
            }
            let (sym, own) = (
                c.symbol.to_lowercase(),
                normalize_qualified(&c.qualified_name),
            );
            let exact = sym == q || own == q || own.ends_with(&format!(".{q}"));
            let matches = exact || (!exact_only && (sym.contains(&q) || own.contains(&q)));
            if matches {
                out.push(Candidate {
                    file: rel.clone(),
                    language: c.language,
                    span,
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(symbol: &str, qualified: &str) -> Span {
        Span {
            start_line: 1,
            end_line: 2,
            bytes: (0, 1),
            symbol: symbol.into(),
            qualified_name: qualified.into(),
            kind: ChunkKind::Method,
            signature: String::new(),
        }
    }

    #[test]
    fn ranks_case_exact_then_case_insensitive_then_substring() {
        let s = span("get", r"Illuminate\Routing\Router::get");
        assert_eq!(rank("get", &s), 0);
        assert_eq!(rank("Router::get", &s), 0);
        assert_eq!(rank(r"Illuminate\Routing\Router::get", &s), 0);
        assert_eq!(rank("router.get", &s), 1);
        assert_eq!(rank("GET", &s), 1);
        assert_eq!(rank("ge", &s), 2);
        // Partial matches: the name with the symbol's case, then in another case, then only
        // the qualified name.
        assert_eq!(rank("Request", &span("FormRequest", "FormRequest")), 2);
        assert_eq!(
            rank("Request", &span("add_requests", "Command.add_requests")),
            3
        );
        assert_eq!(
            rank(
                "Request",
                &span("callback", "Command.prepare_Request.callback")
            ),
            4
        );
        assert_eq!(rank("Router.ge", &s), 4);
    }
}
