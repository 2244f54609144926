//! What text of a chunk gets embedded ([`EmbeddingText`]), and the key its vector is cached under
//! ([`embedding_key`]).
//!
//! Which text works best is measured, not assumed: docs/EVALUATION.md compares the recipes on the
//! query set of `tests/eval/` (recall@k and MRR, English and Japanese queries) and on embedding
//! throughput (shorter texts embed faster: a 2-core machine embeds only 10–30 multilingual-e5
//! chunks per second). The default is the recipe that won there ([`EmbeddingText::DEFAULT`]).

use std::collections::HashSet;
use std::ops::ControlFlow;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::chunk::{Chunk, ChunkKind};
use crate::embed::{for_each_identifier_word, split_identifiers};

/// Characters of chunk content kept by [`EmbeddingText::Body`]: about 300–400 XLM-R tokens of
/// code (roughly 3 characters per token), inside multilingual-e5's 512-token window.
pub const BODY_MAX_CHARS: usize = 1200;
/// Characters of docstring kept by the summary recipes.
pub const DOC_MAX_CHARS: usize = 600;
/// Distinct identifier words from the body kept by the summary recipes (after splitting and
/// abbreviation expansion).
pub const BODY_WORDS_MAX: usize = 48;
/// Characters of content kept for chunks without a name or signature (windows, markup, CSS) by
/// the summary recipes.
pub const TEXT_MAX_CHARS: usize = 500;

/// A recipe for the text embedded for one chunk.
///
/// Serialised (in `.code-intel/config.json` as `embedding_text`, and in the vector state) by
/// [`Self::name`]: `body`, `summary`, `summary_path`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EmbeddingText {
    /// The chunk's content (the source of the symbol, nested bodies elided) cut to
    /// [`BODY_MAX_CHARS`] characters.
    Body,
    /// Kind and qualified name, the name split into words ([`split_identifiers`]), the signature,
    /// the docstring (cut to [`DOC_MAX_CHARS`]) and up to [`BODY_WORDS_MAX`] distinct identifier
    /// words of the body, split and expanded. Chunks without a name (windows, markup, CSS) add the
    /// first [`TEXT_MAX_CHARS`] characters of their content instead of the body words.
    Summary,
    /// [`Self::Summary`] plus the file path split into words (`src/flask/json/provider.py` →
    /// `source flask json provider py`). A rename changes the text, so renamed chunks are
    /// embedded again.
    SummaryPath,
}

impl EmbeddingText {
    /// The recipe used when the config does not name one, chosen on the evaluation of
    /// docs/EVALUATION.md ("Embedding text"): vector-search MRR@10 0.773 against `body`'s 0.682
    /// (125 queries, English, Japanese, identifiers), with 40–45 % more texts embedded per
    /// CPU-second; `summary_path` scored 0.782, a difference within noise, but a rename re-embeds
    /// its texts.
    pub const DEFAULT: EmbeddingText = EmbeddingText::Summary;

    /// Every recipe, for evaluations.
    pub const ALL: [EmbeddingText; 3] = [
        EmbeddingText::Body,
        EmbeddingText::Summary,
        EmbeddingText::SummaryPath,
    ];

    /// The recipe's name (`body`, `summary`, `summary_path`).
    pub fn name(self) -> &'static str {
        match self {
            EmbeddingText::Body => "body",
            EmbeddingText::Summary => "summary",
            EmbeddingText::SummaryPath => "summary_path",
        }
    }

    /// Parses a name of [`Self::name`]; `None` for anything else.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.name() == name.trim())
    }

    /// Identifies the recipe and its limits; part of every [`embedding_key`], so changing a
    /// limit (or the recipe's code, by bumping the version here) never reuses stale vectors.
    pub fn id(self) -> String {
        match self {
            EmbeddingText::Body => format!("body-v1:{BODY_MAX_CHARS}"),
            EmbeddingText::Summary | EmbeddingText::SummaryPath => format!(
                "{}-v1:{DOC_MAX_CHARS}:{BODY_WORDS_MAX}:{TEXT_MAX_CHARS}",
                self.name()
            ),
        }
    }

    /// The text to embed for `chunk` (without the model's `"passage: "` prefix, which the
    /// embedder adds). Never empty: a chunk without text gives its kind and path.
    pub fn text(self, chunk: &Chunk) -> String {
        let text = match self {
            EmbeddingText::Body => cut(chunk.content.trim(), BODY_MAX_CHARS).to_string(),
            EmbeddingText::Summary => summary(chunk, false),
            EmbeddingText::SummaryPath => summary(chunk, true),
        };
        if text.trim().is_empty() {
            format!("{} {}", chunk.kind.name(), chunk.path)
        } else {
            text
        }
    }
}

impl Default for EmbeddingText {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The cache key of an embedding text: lowercase hex SHA-256 of `recipe id`, a NUL byte and the
/// text. Equal keys mean equal texts, so a vector is reused wherever the same text occurs again
/// (re-syncs, renames when the recipe does not include the path, duplicated code).
pub fn embedding_key(recipe: EmbeddingText, text: &str) -> String {
    hex::encode(embedding_key_bytes(recipe, text))
}

/// [`embedding_key`] as its 32 bytes.
pub fn embedding_key_bytes(recipe: EmbeddingText, text: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(recipe.id().as_bytes());
    h.update([0u8]);
    h.update(text.as_bytes());
    h.finalize().into()
}

/// `text` cut to at most `max` characters (at a char boundary).
fn cut(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

/// Collapses runs of whitespace to single spaces.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Kinds whose chunks have no useful name: their content stands for itself.
fn is_textual(kind: ChunkKind) -> bool {
    matches!(
        kind,
        ChunkKind::Window
            | ChunkKind::Element
            | ChunkKind::Rule
            | ChunkKind::AtRule
            | ChunkKind::Route
    )
}

fn summary(chunk: &Chunk, with_path: bool) -> String {
    let mut lines: Vec<String> = Vec::new();
    let kind = chunk.kind.name();
    if is_textual(chunk.kind) {
        lines.push(format!("{kind} {}", chunk.symbol));
        lines.push(collapse(cut(&chunk.content, TEXT_MAX_CHARS)));
    } else {
        let name = if chunk.qualified_name.is_empty() {
            &chunk.symbol
        } else {
            &chunk.qualified_name
        };
        lines.push(format!("{kind} {name}"));
        let words = split_identifiers(name);
        let mut seen: HashSet<String> = words.split(' ').map(str::to_string).collect();
        lines.push(words);
        let signature = collapse(&chunk.signature);
        if !signature.is_empty() && signature != *name {
            lines.push(signature);
        }
        let doc = collapse(cut(&chunk.docstring, DOC_MAX_CHARS));
        if !doc.is_empty() {
            lines.push(doc);
        }
        // Identifier words of the body, in order of first appearance: what the code talks about
        // (`hash`, `bcrypt`, `rounds`, `password`) without its syntax.
        // Split only as far as the words kept (a chunk's content can be thousands of words).
        let mut body_words: Vec<String> = Vec::new();
        let _ = for_each_identifier_word(&chunk.content, |words| {
            for word in words.split(' ') {
                if body_words.len() >= BODY_WORDS_MAX {
                    return ControlFlow::Break(());
                }
                let keep = word.chars().count() > 2
                    && word.chars().any(char::is_alphabetic)
                    && !COMMON_WORDS.contains(&word);
                if keep && seen.insert(word.to_string()) {
                    body_words.push(word.to_string());
                }
            }
            ControlFlow::Continue(())
        });
        if !body_words.is_empty() {
            lines.push(body_words.join(" "));
        }
    }
    if with_path {
        lines.push(split_identifiers(&chunk.path));
    }
    lines.retain(|l| !l.trim().is_empty());
    lines.join("\n")
}

/// Keywords of the indexed languages and filler words that say nothing about what code does; kept
/// out of the body words of the summary recipes (every function has `return`, `this`, `self`).
const COMMON_WORDS: &[&str] = &[
    "and",
    "array",
    "async",
    "await",
    "bool",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "def",
    "default",
    "elif",
    "else",
    "false",
    "final",
    "for",
    "foreach",
    "from",
    "function",
    "global",
    "import",
    "instanceof",
    "int",
    "let",
    "new",
    "none",
    "not",
    "null",
    "param",
    "parameter",
    "private",
    "protected",
    "public",
    "raise",
    "return",
    "self",
    "static",
    "string",
    "the",
    "this",
    "throw",
    "throws",
    "true",
    "try",
    "type",
    "typeof",
    "undefined",
    "use",
    "var",
    "variable",
    "void",
    "while",
    "with",
    "yield",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::chunk::{ChunkOptions, chunk_source};
    use expect_test::{Expect, expect};

    fn check(recipe: EmbeddingText, path: &str, source: &str, symbol: &str, expect: Expect) {
        let chunks = chunk_source(path, source.as_bytes(), &ChunkOptions::default()).unwrap();
        let chunk = chunks
            .iter()
            .find(|c| c.symbol == symbol)
            .unwrap_or_else(|| panic!("no chunk {symbol}"));
        expect.assert_eq(&recipe.text(chunk));
    }

    const PHP: &str = r#"<?php
namespace Illuminate\Hashing;

class BcryptHasher
{
    /**
     * Hash the given value.
     */
    public function make($value, array $options = [])
    {
        $hash = password_hash($value, PASSWORD_BCRYPT, ['cost' => $this->cost($options)]);
        if ($hash === false) {
            throw new RuntimeException('Bcrypt hashing not supported.');
        }
        return $hash;
    }
}
"#;

    #[test]
    fn summary_has_names_signature_doc_and_body_words() {
        check(
            EmbeddingText::Summary,
            "Illuminate/Hashing/BcryptHasher.php",
            PHP,
            "make",
            expect![[r#"
                method Illuminate\Hashing\BcryptHasher::make
                illuminate hashing bcrypt hasher make
                public function make($value, array $options = [])
                Hash the given value.
                hash given value options password cost runtime exception supported"#]],
        );
        check(
            EmbeddingText::SummaryPath,
            "Illuminate/Hashing/BcryptHasher.php",
            PHP,
            "make",
            expect![[r#"
                method Illuminate\Hashing\BcryptHasher::make
                illuminate hashing bcrypt hasher make
                public function make($value, array $options = [])
                Hash the given value.
                hash given value options password cost runtime exception supported
                illuminate hashing bcrypt hasher php"#]],
        );
    }

    #[test]
    fn body_is_the_content_cut_to_the_limit() {
        let long = format!("def f():\n    return {}\n", "x + ".repeat(350));
        let chunks = chunk_source("a.py", long.as_bytes(), &ChunkOptions::default()).unwrap();
        let f = chunks.iter().find(|c| c.symbol == "f").unwrap();
        let text = EmbeddingText::Body.text(f);
        assert_eq!(text.chars().count(), BODY_MAX_CHARS);
        assert!(text.starts_with("def f():"));
    }

    #[test]
    fn keys_depend_on_recipe_and_text_only() {
        let a = embedding_key(EmbeddingText::Summary, "x");
        assert_eq!(a, embedding_key(EmbeddingText::Summary, "x"));
        assert_ne!(a, embedding_key(EmbeddingText::Body, "x"));
        assert_ne!(a, embedding_key(EmbeddingText::Summary, "y"));
        assert_eq!(a.len(), 64);
    }

    #[test]
    fn names_round_trip() {
        for r in EmbeddingText::ALL {
            assert_eq!(EmbeddingText::from_name(r.name()), Some(r));
            assert_eq!(
                serde_json::to_value(r).unwrap(),
                serde_json::json!(r.name())
            );
        }
        assert_eq!(EmbeddingText::from_name("nope"), None);
    }
}
