//! `start_session`'s leads: the ranked search's best files for the session's request, each with
//! its best symbols and a one-line reason, so that the agent's exploration starts where the change
//! most likely belongs (docs/DESIGN.md#leads). Lexical ranking ([`CodeIndex::search_files`] with
//! the default [`RankParams`]): on the development kit's change requests the vectors add nothing
//! over it (docs/EVALUATION.md), and it answers in milliseconds. A long request (a pasted issue,
//! a traceback) is read as ranked search reads it, through the request analysis
//! ([`request`]): the same ranking, and the reasons name the words the analysis kept.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::index::chunk::ChunkKind;
use crate::index::lexical::{QUERY_STOP_WORDS, code_terms, stem};
use crate::index::rank::{FileHit, RankParams};
use crate::index::request::{self, Request};
use crate::index::scope::FileRole;
use crate::index::{CodeIndex, IndexError};

/// How many leads `start_session` returns by default.
pub const DEFAULT_LEADS: usize = 10;

/// Most symbols a lead lists (its best chunk and the next matching ones of the file).
pub const MAX_LEAD_SYMBOLS: usize = 4;

/// One file the ranked search puts near the top for a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lead {
    /// 1-based rank among the leads.
    pub rank: usize,
    /// Repository-relative path.
    pub file: String,
    /// The file's ranked-search score (BM25F with the ranking's factors; comparable only
    /// within one request).
    pub score: f32,
    /// The file's matching symbols, best first (module and line-window chunks are named by
    /// their lines only).
    pub symbols: Vec<LeadSymbol>,
    /// Why it ranks, in one line: the request's words it matches in its path, in its symbols'
    /// names and in its code, and its role when it is not source.
    pub why: String,
}

/// A symbol of a [`Lead`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeadSymbol {
    /// Qualified name (`Class.method`, `Namespace\Class::method`); the file name for a module
    /// chunk.
    pub qualified_name: String,
    /// What the chunk stands for (`method`, `function`, `class`, `module`, `window`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<ChunkKind>,
    /// First line, 1-based.
    pub start_line: u32,
    /// Last line, 1-based inclusive.
    pub end_line: u32,
}

/// The `top` best files for `request`, as [`Lead`]s. Empty when the request has no searchable
/// word.
///
/// # Errors
/// [`IndexError`] when the search fails.
pub fn leads(index: &CodeIndex, request: &str, top: usize) -> Result<Vec<Lead>, IndexError> {
    let hits = index.search_files(request, top, &RankParams::default())?;
    let words = request_stems(request);
    Ok(hits
        .into_iter()
        .enumerate()
        .map(|(i, hit)| lead_of(i + 1, hit, &words))
        .collect())
}

/// The stems of the request's words (stop words dropped), as the index's analyser makes them;
/// of a long request, the words its analysis keeps ([`Request::analyse`]: no template headings,
/// environment lines or URLs), as ranked search reads it.
fn request_stems(request: &str) -> BTreeSet<String> {
    let params = RankParams::default();
    let text = if params.request_analysis > 0.0 && request::is_long(request) {
        Request::analyse(request, &params)
            .words
            .iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        request.to_string()
    };
    code_terms(&text)
        .into_iter()
        .filter(|t| t.chars().count() > 1 && !QUERY_STOP_WORDS.contains(&t.as_str()))
        .map(|t| stem(&t).into_owned())
        .collect()
}

/// The request's stems that `text` holds, in the request's sorted order.
fn matched<'a>(words: &'a BTreeSet<String>, text: &str) -> Vec<&'a str> {
    let here: BTreeSet<String> = code_terms(text)
        .into_iter()
        .map(|t| stem(&t).into_owned())
        .collect();
    words
        .iter()
        .filter(|w| here.contains(*w))
        .map(String::as_str)
        .collect()
}

fn lead_of(rank: usize, hit: FileHit, words: &BTreeSet<String>) -> Lead {
    let best = &hit.best;
    let mut symbols = vec![LeadSymbol {
        qualified_name: if best.qualified_name.is_empty() {
            best.symbol.clone()
        } else {
            best.qualified_name.clone()
        },
        kind: Some(best.kind),
        start_line: best.start_line,
        end_line: best.end_line,
    }];
    symbols.extend(
        hit.also
            .iter()
            .take(MAX_LEAD_SYMBOLS - 1)
            .map(|c| LeadSymbol {
                qualified_name: c.qualified_name.clone(),
                kind: c.kind,
                start_line: c.start_line,
                end_line: c.end_line,
            }),
    );
    let names: String = symbols
        .iter()
        .filter(|s| !matches!(s.kind, Some(ChunkKind::Module | ChunkKind::Window)))
        .map(|s| s.qualified_name.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let code = format!(
        "{} {}",
        best.signature,
        best.snippet.as_deref().unwrap_or_default()
    );
    let in_path = matched(words, &best.file);
    let in_names = matched(words, &names);
    let in_code: Vec<&str> = matched(words, &code)
        .into_iter()
        .filter(|w| !in_path.contains(w) && !in_names.contains(w))
        .collect();
    let mut parts = Vec::new();
    if !in_path.is_empty() {
        parts.push(format!("path matches {}", in_path.join(", ")));
    }
    if !in_names.is_empty() {
        parts.push(format!("symbol names match {}", in_names.join(", ")));
    }
    if !in_code.is_empty() {
        parts.push(format!("its code mentions {}", in_code.join(", ")));
    }
    if parts.is_empty() {
        parts.push("its code matches the request's words".to_string());
    }
    let chunks = 1 + hit.also.len();
    if chunks > 1 {
        parts.push(format!("{chunks} matching chunks"));
    }
    match FileRole::of(&best.file) {
        FileRole::Source => {}
        FileRole::Test => parts.push("a test file".into()),
        FileRole::Doc => parts.push("documentation".into()),
        FileRole::Locale => parts.push("translations".into()),
    }
    Lead {
        rank,
        file: best.file.clone(),
        score: best.score,
        symbols,
        why: parts.join("; "),
    }
}
