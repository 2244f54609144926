//! The tantivy BM25 side of the index: the schema, the identifier-aware and CJK tokenizers,
//! chunk → document conversion, and the query builders (ranked search, definition lookup).
//!
//! Analysis, in one place so that indexing and querying agree:
//! - [`CodeTokenizer`] (`code`): words are runs of letters, digits and `_` (plus `-` between two
//!   ASCII alphanumerics, for kebab-case). Each word yields its lower-cased whole form and its
//!   parts split at `_`, `-`, lower→upper (`getUser`), upper→upper+lower (`HTTPServer` →
//!   `http`, `server`) and letter↔digit (`utf8` → `utf`, `8`) boundaries. CJK characters are
//!   separators here; they go to the CJK field.
//!   Every term of at least four ASCII letters is then reduced to its English Snowball stem
//!   ([`stem`]: `scrolling` → `scroll`, `encoded`/`encoding` → `encod`), so inflected forms of
//!   a request's words meet the code's; digits, short terms and non-ASCII terms stay as they are.
//! - [`CjkBigramTokenizer`] (`cjk_bigram`): overlapping bigrams of runs of CJK characters (Han,
//!   kana, Hangul), a single-character run as a unigram — the scheme of Lucene's `CJKAnalyzer`.

use std::collections::HashSet;

use tantivy::Term;
use tantivy::columnar::Column;
use tantivy::query::{
    BooleanQuery, BoostQuery, ConstScoreQuery, DisjunctionMaxQuery, Occur, Query, RegexQuery,
    TermQuery,
};
use tantivy::schema::{
    FAST, Field, IndexRecordOption, STORED, STRING, Schema, TantivyDocument, TextFieldIndexing,
    TextOptions, Value,
};
use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

use super::chunk::{Chunk, ChunkKind};
use super::glossary;
use super::lang::Language;
use super::rank::{self, RankParams};
use super::request::{self, PartKind};

/// Name under which [`CodeTokenizer`] is registered on the index.
pub const CODE_TOKENIZER: &str = "code";
/// Name under which [`CjkBigramTokenizer`] is registered on the index.
pub const CJK_TOKENIZER: &str = "cjk_bigram";

/// Tokens longer than this many bytes are dropped (minified code, base64 blobs); their parts are
/// still indexed when short enough. 64 is above any identifier a person searches for.
const MAX_TOKEN_BYTES: usize = 64;

/// English words dropped from ranked queries (not from the index): they occur in most prose
/// docstrings and add only noise to natural-language queries like "send a JSON response".
pub const QUERY_STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "does", "for", "from", "how", "in", "is",
    "it", "of", "on", "or", "that", "the", "this", "to", "what", "when", "where", "which", "with",
];

/// Whether `c` belongs to a CJK script: Han (incl. extension A/B+ and compatibility), Hiragana,
/// Katakana (incl. half-width), Hangul syllables, and the iteration/closing marks `々〆〇`.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3005..=0x3007
        | 0x3040..=0x30FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xAC00..=0xD7AF
        | 0xF900..=0xFAFF
        | 0xFF66..=0xFF9F
        | 0x20000..=0x3134F)
}

fn is_word_char(c: char) -> bool {
    c == '_' || (c.is_alphanumeric() && !is_cjk(c))
}

/// Calls `word(start, end)` for the byte range of each word of `text` (see the module docs).
pub(crate) fn for_each_word(text: &str, mut word: impl FnMut(usize, usize)) {
    let bytes = text.as_bytes();
    let mut iter = text.char_indices().peekable();
    while let Some((start, c)) = iter.next() {
        if !is_word_char(c) {
            continue;
        }
        // Find the end of the word; a '-' joins two ASCII alphanumerics (kebab-case).
        let mut end = start + c.len_utf8();
        while let Some(&(i, d)) = iter.peek() {
            if is_word_char(d) {
                end = i + d.len_utf8();
                iter.next();
            } else if d == '-'
                && bytes[i - 1].is_ascii_alphanumeric()
                && bytes.get(i + 1).is_some_and(u8::is_ascii_alphanumeric)
            {
                iter.next();
            } else {
                break;
            }
        }
        word(start, end);
    }
}

/// Splits `text` into identifier-aware terms: for each word, the lower-cased whole word and then
/// its lower-cased parts (see the module docs). Byte offsets index `text`.
///
/// Calls `emit(term, offset_from, offset_to, position)`; the whole word and its first part share
/// a position, later parts take the following positions.
fn split_code(text: &str, mut emit: impl FnMut(&str, usize, usize, usize)) {
    let mut position = 0usize;
    let mut lower = String::new();
    let mut parts = Vec::new();
    for_each_word(text, |start, end| {
        let base = position;
        position += split_word(
            &text[start..end],
            &mut parts,
            &mut lower,
            |term, from, to, k| emit(term, start + from, start + to, base + k),
        );
    });
}

/// The terms of one word (see [`split_code`]): calls `emit(term, from, to, k)` with byte offsets
/// into `word` and the position relative to the word's first; returns the number of positions
/// the word takes. `parts` and `lower` are scratch buffers reused across words.
fn split_word(
    word: &str,
    parts: &mut Vec<(usize, usize)>,
    lower: &mut String,
    mut emit: impl FnMut(&str, usize, usize, usize),
) -> usize {
    let lowercase_into = |lower: &mut String, s: &str| {
        lower.clear();
        if s.is_ascii() {
            lower.push_str(s);
            lower.make_ascii_lowercase();
        } else {
            lower.extend(s.chars().flat_map(char::to_lowercase));
        }
    };
    word_parts(word, parts);
    let whole_is_part = parts.len() == 1 && parts[0] == (0, word.len());
    if !whole_is_part && word.len() <= MAX_TOKEN_BYTES {
        lowercase_into(lower, word);
        emit(lower, 0, word.len(), 0);
    }
    for (k, &(a, b)) in parts.iter().enumerate() {
        if b - a > MAX_TOKEN_BYTES {
            continue;
        }
        lowercase_into(lower, &word[a..b]);
        emit(lower, a, b, k);
    }
    parts.len().max(1)
}

/// Character classes of [`word_parts`].
#[derive(PartialEq, Clone, Copy)]
enum Class {
    Upper,
    Lower,
    Digit,
    Sep,
}

/// The byte ranges of the parts of one word (see the module docs), into `parts` (cleared first;
/// a buffer reused across words, since a tokenizer calls this once per word of every chunk).
fn word_parts(word: &str, parts: &mut Vec<(usize, usize)>) {
    parts.clear();
    if word.is_ascii() {
        // One byte per character: the same rules without decoding (most code is ASCII).
        let bytes = word.as_bytes();
        let class = |c: u8| {
            if c == b'_' || c == b'-' {
                Class::Sep
            } else if c.is_ascii_digit() {
                Class::Digit
            } else if c.is_ascii_uppercase() {
                Class::Upper
            } else {
                Class::Lower
            }
        };
        split_parts(bytes.len(), word.len(), |k| (k, class(bytes[k])), parts);
    } else {
        let class = |c: char| {
            if c == '_' || c == '-' {
                Class::Sep
            } else if c.is_numeric() {
                Class::Digit
            } else if c.is_uppercase() {
                Class::Upper
            } else {
                Class::Lower
            }
        };
        let chars: Vec<(usize, Class)> = word.char_indices().map(|(i, c)| (i, class(c))).collect();
        split_parts(chars.len(), word.len(), |k| chars[k], parts);
    }
}

/// The part boundaries over `n` characters, `at(k)` giving the byte offset and class of the
/// k-th; `len` is the word's byte length.
fn split_parts(
    n: usize,
    len: usize,
    at: impl Fn(usize) -> (usize, Class),
    parts: &mut Vec<(usize, usize)>,
) {
    let mut part_start: Option<usize> = None;
    for k in 0..n {
        let (i, cls) = at(k);
        if cls == Class::Sep {
            if let Some(s) = part_start.take() {
                parts.push((s, i));
            }
            continue;
        }
        let Some(s) = part_start else {
            part_start = Some(i);
            continue;
        };
        let prev = at(k - 1).1;
        let next = (k + 1 < n).then(|| at(k + 1).1);
        let boundary = match (prev, cls) {
            (Class::Lower, Class::Upper) => true,
            (Class::Upper, Class::Upper) => next == Some(Class::Lower),
            (Class::Digit, Class::Upper | Class::Lower)
            | (Class::Upper | Class::Lower, Class::Digit) => true,
            _ => false,
        };
        if boundary {
            parts.push((s, i));
            part_start = Some(i);
        }
    }
    if let Some(s) = part_start {
        parts.push((s, len));
    }
}

/// Calls `emit(term, offset_from, offset_to, position)` for the CJK bigrams of `text`.
fn split_cjk(text: &str, mut emit: impl FnMut(&str, usize, usize, usize)) {
    let mut position = 0usize;
    let mut run: Vec<(usize, char)> = Vec::new();
    let mut flush = |run: &mut Vec<(usize, char)>, position: &mut usize| {
        let mut gram = String::new();
        if run.len() == 1 {
            let (i, c) = run[0];
            gram.push(c);
            emit(&gram, i, i + c.len_utf8(), *position);
            *position += 1;
        }
        for pair in run.windows(2) {
            let (i, a) = pair[0];
            let (j, b) = pair[1];
            gram.clear();
            gram.push(a);
            gram.push(b);
            emit(&gram, i, j + b.len_utf8(), *position);
            *position += 1;
        }
        run.clear();
    };
    for (i, c) in text.char_indices() {
        if is_cjk(c) {
            run.push((i, c));
        } else if !run.is_empty() {
            flush(&mut run, &mut position);
        }
    }
    if !run.is_empty() {
        flush(&mut run, &mut position);
    }
}

/// The indexed form of one term of the code tokenizer: the English Snowball stem (Porter2, via
/// `rust-stemmers`, the stemmer tantivy itself ships) of a term of at least four ASCII letters,
/// other terms unchanged. Index and query both go through this, so they agree.
pub fn stem(term: &str) -> std::borrow::Cow<'_, str> {
    static STEMMER: std::sync::OnceLock<rust_stemmers::Stemmer> = std::sync::OnceLock::new();
    if !stemmable(term) {
        return std::borrow::Cow::Borrowed(term);
    }
    STEMMER
        .get_or_init(|| rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English))
        .stem(term)
}

/// Whether [`stem`] stems `term` (at least four ASCII lower-case letters) or returns it unchanged.
fn stemmable(term: &str) -> bool {
    term.len() >= 4 && term.bytes().all(|b| b.is_ascii_lowercase())
}

/// A token stream over tokens computed eagerly into the tokenizer's reused buffer.
pub struct BufferedTokenStream<'a> {
    tokens: &'a mut [Token],
    next: usize,
    /// Returned by `token()` before the first `advance()`, which the trait allows.
    before_start: Token,
}

impl TokenStream for BufferedTokenStream<'_> {
    fn advance(&mut self) -> bool {
        if self.next < self.tokens.len() {
            self.next += 1;
            true
        } else {
            false
        }
    }

    fn token(&self) -> &Token {
        match self.next.checked_sub(1) {
            Some(i) => &self.tokens[i],
            None => &self.before_start,
        }
    }

    fn token_mut(&mut self) -> &mut Token {
        match self.next.checked_sub(1) {
            Some(i) => &mut self.tokens[i],
            None => &mut self.before_start,
        }
    }
}

/// Fills `buf` with the tokens `split` produces; `split` calls its sink with
/// `(term, offset_from, offset_to, position)`.
fn fill_buffer(
    buf: &mut Vec<Token>,
    text: &str,
    split: impl FnOnce(&str, &mut dyn FnMut(&str, usize, usize, usize)),
) {
    let mut used = 0;
    split(text, &mut |term, from, to, position| {
        if used == buf.len() {
            buf.push(Token::default());
        }
        let t = &mut buf[used];
        t.text.clear();
        t.text.push_str(term);
        t.offset_from = from;
        t.offset_to = to;
        t.position = position;
        t.position_length = 1;
        used += 1;
    });
    buf.truncate(used);
}

/// Entries of [`CodeTokenizer`]'s stem memo before it starts over (about 10 MiB at most: a
/// repository's vocabulary of stemmable terms is far smaller, so in practice it never fills).
const STEM_MEMO_MAX: usize = 1 << 17;

/// Entries of [`CodeTokenizer`]'s word memo before it starts over (each a word of at most
/// [`WORD_MEMO_MAX_BYTES`] and its few terms: a few MiB when full; tantivy holds one tokenizer
/// per field, and 65,536 entries cost ~70 MB of peak memory on spring-framework).
const WORD_MEMO_MAX: usize = 1 << 14;

/// Longest word the word memo keeps, in bytes (longer ones, minified code and data, are split
/// each time: they rarely repeat).
const WORD_MEMO_MAX_BYTES: usize = 2 * MAX_TOKEN_BYTES;

/// The identifier-aware tokenizer (see the module docs).
///
/// It remembers the [`stem`] of each term it has seen: code repeats a small vocabulary, and the
/// Snowball stemmer was the largest single cost of indexing a repository (14 % of the CPU of a
/// full index of Laravel, `perf record` in docs/BENCHMARKS.md). It also remembers the indexed
/// terms of each word it has split (a word's terms, offsets and positions depend on the word
/// alone): one lookup per repeated word instead of splitting, lower-casing and a stem lookup
/// per term (docs/log/2026-11-28-parse-cpu.md). The memos change no output.
#[derive(Clone, Default)]
pub struct CodeTokenizer {
    buf: Vec<Token>,
    /// Keyed by FxHash (`rustc-hash`): the memo is looked up once per term of every chunk, and
    /// SipHash's cost there was measurable (no untrusted keys to guard against: the terms of
    /// the repository being indexed).
    stems: rustc_hash::FxHashMap<String, String>,
    /// Word → its terms (stemmed), keyed by FxHash like `stems`.
    words: rustc_hash::FxHashMap<Box<str>, WordTerms>,
    /// Scratch buffers of [`split_word`].
    parts: Vec<(usize, usize)>,
    lower: String,
}

/// The indexed terms of one word: (stemmed term, byte offsets into the word, position relative
/// to the word's first), and the positions the word takes.
#[derive(Clone)]
struct WordTerms {
    terms: Vec<(String, usize, usize, usize)>,
    positions: usize,
}

impl Tokenizer for CodeTokenizer {
    type TokenStream<'a> = BufferedTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> BufferedTokenStream<'a> {
        let CodeTokenizer {
            buf,
            stems,
            words,
            parts,
            lower,
        } = self;
        fill_buffer(buf, text, |t, f| {
            let mut position = 0usize;
            for_each_word(t, |start, end| {
                let word = &t[start..end];
                if let Some(memo) = words.get(word) {
                    for (term, from, to, k) in &memo.terms {
                        f(term, start + *from, start + *to, position + k);
                    }
                    position += memo.positions;
                    return;
                }
                let mut terms = Vec::new();
                let positions = split_word(word, parts, lower, |term, from, to, k| {
                    terms.push((stem_memo(stems, term), from, to, k));
                });
                for (term, from, to, k) in &terms {
                    f(term, start + *from, start + *to, position + k);
                }
                position += positions;
                if word.len() <= WORD_MEMO_MAX_BYTES {
                    if words.len() >= WORD_MEMO_MAX {
                        words.clear();
                    }
                    words.insert(word.into(), WordTerms { terms, positions });
                }
            });
        });
        BufferedTokenStream {
            tokens: buf,
            next: 0,
            before_start: Token::default(),
        }
    }
}

/// The [`stem`] of `term` through the memo `stems` (cleared when it holds [`STEM_MEMO_MAX`]).
fn stem_memo(stems: &mut rustc_hash::FxHashMap<String, String>, term: &str) -> String {
    if !stemmable(term) {
        return term.to_owned();
    }
    if let Some(s) = stems.get(term) {
        return s.clone();
    }
    if stems.len() >= STEM_MEMO_MAX {
        stems.clear();
    }
    let s = stem(term).into_owned();
    stems.insert(term.to_owned(), s.clone());
    s
}

/// The CJK bigram tokenizer (see the module docs).
#[derive(Clone, Default)]
pub struct CjkBigramTokenizer {
    buf: Vec<Token>,
}

impl Tokenizer for CjkBigramTokenizer {
    type TokenStream<'a> = BufferedTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> BufferedTokenStream<'a> {
        fill_buffer(&mut self.buf, text, |t, f| split_cjk(t, f));
        BufferedTokenStream {
            tokens: &mut self.buf,
            next: 0,
            before_start: Token::default(),
        }
    }
}

/// The identifier terms of `text` before stemming (whole words and their parts, lower-cased), in
/// order (duplicates kept); [`CodeTokenizer`] indexes the [`stem`] of each.
pub fn code_terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    split_code(text, |t, _, _, _| out.push(t.to_string()));
    out
}

/// The terms [`CjkBigramTokenizer`] produces for `text`, in order (duplicates kept).
pub fn cjk_terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    split_cjk(text, |t, _, _, _| out.push(t.to_string()));
    out
}

/// Normalises a qualified name for lookups: lower-cased, a leading `\` dropped, and the
/// separators `::`, `\`, `->`, `#` and `/` replaced by `.`, so `App\Http\UserController::store`,
/// `UserController.store` and `usercontroller::store` compare by suffix.
pub fn normalize_qualified(name: &str) -> String {
    let trimmed = name.trim().trim_start_matches('\\');
    let lower = trimmed.to_lowercase();
    lower
        .replace("::", ".")
        .replace("->", ".")
        .replace(['\\', '#', '/'], ".")
}

/// The fields of the schema, resolved once per index.
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    /// Raw repository path (`STRING | STORED | FAST`): deletes and per-file lookups; the fast
    /// column feeds [`column_chunks`].
    pub path_key: Field,
    /// Every ancestor directory of the path (`STRING`, multi-valued): directory filters.
    pub dirs: Field,
    /// The path, code-tokenized.
    pub path: Field,
    /// Symbol name, code-tokenized, stored, and a raw fast column ([`column_chunks`]).
    pub symbol: Field,
    /// Lower-cased symbol (`STRING`): definition lookups.
    pub symbol_key: Field,
    /// Qualified name, code-tokenized, stored.
    pub qualified_name: Field,
    /// [`normalize_qualified`] qualified name (`STRING`): definition lookups.
    pub qname_key: Field,
    /// Chunk kind, snake_case (`STRING | STORED | FAST`).
    pub kind: Field,
    /// Language id (`STRING | STORED | FAST`).
    pub language: Field,
    /// Signature, code-tokenized, stored.
    pub signature: Field,
    /// Docstring, code-tokenized.
    pub docstring: Field,
    /// Imports, code-tokenized.
    pub imports: Field,
    /// Content, code-tokenized.
    pub content: Field,
    /// CJK bigrams of docstring and content.
    pub cjk: Field,
    /// First line, 1-based (stored, fast).
    pub start_line: Field,
    /// Last line, 1-based inclusive (stored, fast).
    pub end_line: Field,
    /// Byte offset of the chunk start (stored).
    pub start_byte: Field,
    /// Byte offset after the chunk end (stored).
    pub end_byte: Field,
    /// Hex SHA-256 of the chunk content (stored, and a raw fast column).
    pub sha256: Field,
    /// The first lines of the content (stored only).
    pub snippet: Field,
    /// Framework keys the file provides (`STRING | STORED`, multi-valued; on the file's first
    /// document only): `view:pages.show`, `class:App\Models\Post`, ... (see
    /// [`framework`](super::framework)).
    pub fw_provides: Field,
    /// The target keys of the file's framework links (`STRING`, multi-valued; first document
    /// only): reverse lookups ("who renders this view").
    pub fw_link_keys: Field,
    /// The file's framework links as `kind target` (`STRING | STORED`, multi-valued; first
    /// document only): who links to a key with a given kind.
    pub fw_links: Field,
    /// `1` on the document that carries its file's framework facts (`STRING`): finding it is
    /// one term lookup, not a read of every chunk of the file.
    pub fw_facts: Field,
}

/// Builds the schema of the lexical index and its [`Fields`].
pub fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let code = |stored: bool| {
        let indexing = TextFieldIndexing::default()
            .set_tokenizer(CODE_TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqs);
        let opts = TextOptions::default().set_indexing_options(indexing);
        if stored { opts.set_stored() } else { opts }
    };
    let cjk = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(CJK_TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqs),
    );
    let fields = Fields {
        path_key: b.add_text_field("path_key", STRING | STORED | FAST),
        dirs: b.add_text_field("dirs", STRING),
        path: b.add_text_field("path", code(false)),
        symbol: b.add_text_field("symbol", code(true).set_fast(Some("raw"))),
        symbol_key: b.add_text_field("symbol_key", STRING),
        qualified_name: b.add_text_field("qualified_name", code(true)),
        qname_key: b.add_text_field("qname_key", STRING),
        kind: b.add_text_field("kind", STRING | STORED | FAST),
        language: b.add_text_field("language", STRING | STORED | FAST),
        signature: b.add_text_field("signature", code(true)),
        docstring: b.add_text_field("docstring", code(false)),
        imports: b.add_text_field("imports", code(false)),
        content: b.add_text_field("content", code(false)),
        cjk: b.add_text_field("cjk", cjk),
        start_line: b.add_u64_field("start_line", STORED | FAST),
        end_line: b.add_u64_field("end_line", STORED | FAST),
        start_byte: b.add_u64_field("start_byte", STORED),
        end_byte: b.add_u64_field("end_byte", STORED),
        sha256: b.add_text_field(
            "sha256",
            TextOptions::default().set_stored().set_fast(Some("raw")),
        ),
        snippet: b.add_text_field("snippet", STORED),
        fw_provides: b.add_text_field("fw_provides", STRING | STORED),
        fw_link_keys: b.add_text_field("fw_link_keys", STRING),
        fw_links: b.add_text_field("fw_links", STRING | STORED),
        fw_facts: b.add_text_field("fw_facts", STRING),
    };
    (b.build(), fields)
}

/// Registers the analyzers the schema names on `index`.
pub fn register_tokenizers(index: &tantivy::Index) {
    index
        .tokenizers()
        .register(CODE_TOKENIZER, CodeTokenizer::default());
    index
        .tokenizers()
        .register(CJK_TOKENIZER, CjkBigramTokenizer::default());
}

/// At most this many characters of a chunk are kept as its stored snippet.
const SNIPPET_CHARS: usize = 320;
/// At most this many non-blank lines are kept as a chunk's stored snippet.
const SNIPPET_LINES: usize = 4;

/// The stored snippet of a chunk: its first 4 non-blank lines, cut to 320 characters with a
/// trailing `…`.
pub fn snippet_of(content: &str) -> String {
    let mut out = String::new();
    for line in content
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(SNIPPET_LINES)
    {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line.trim_end());
    }
    match out.char_indices().nth(SNIPPET_CHARS) {
        Some((i, _)) => {
            out.truncate(i);
            out.push('…');
            out
        }
        None => out,
    }
}

/// Converts a chunk into its index document.
pub fn chunk_document(f: &Fields, chunk: &Chunk) -> TantivyDocument {
    let mut doc = TantivyDocument::new();
    doc.add_text(f.path_key, &chunk.path);
    let mut dir = chunk.path.as_str();
    while let Some((parent, _)) = dir.rsplit_once('/') {
        doc.add_text(f.dirs, parent);
        dir = parent;
    }
    doc.add_text(f.path, &chunk.path);
    doc.add_text(f.symbol, &chunk.symbol);
    doc.add_text(f.symbol_key, chunk.symbol.to_lowercase());
    doc.add_text(f.qualified_name, &chunk.qualified_name);
    doc.add_text(f.qname_key, normalize_qualified(&chunk.qualified_name));
    doc.add_text(f.kind, chunk.kind.name());
    doc.add_text(f.language, chunk.language.id());
    doc.add_text(f.signature, &chunk.signature);
    doc.add_text(f.docstring, &chunk.docstring);
    // Every chunk carries its file's imports; indexing them once, on the module chunk, keeps
    // an import from making every chunk of the file match.
    if chunk.kind == ChunkKind::Module {
        for import in &chunk.imports {
            doc.add_text(f.imports, import);
        }
    }
    doc.add_text(f.content, &chunk.content);
    if chunk.content.chars().any(is_cjk) || chunk.docstring.chars().any(is_cjk) {
        doc.add_text(f.cjk, &chunk.docstring);
        doc.add_text(f.cjk, &chunk.content);
    }
    doc.add_u64(f.start_line, u64::from(chunk.start_line));
    doc.add_u64(f.end_line, u64::from(chunk.end_line));
    doc.add_u64(f.start_byte, chunk.byte_range.0 as u64);
    doc.add_u64(f.end_byte, chunk.byte_range.1 as u64);
    doc.add_text(f.sha256, &chunk.sha256);
    doc.add_text(f.snippet, snippet_of(&chunk.content));
    doc
}

/// Adds a file's framework facts to its (first) document.
pub fn add_framework(f: &Fields, doc: &mut TantivyDocument, facts: &super::framework::FileFacts) {
    if facts.provides.is_empty() && facts.links.is_empty() {
        return;
    }
    doc.add_text(f.fw_facts, "1");
    for key in &facts.provides {
        doc.add_text(f.fw_provides, key);
    }
    for link in &facts.links {
        doc.add_text(f.fw_link_keys, &link.target);
        doc.add_text(f.fw_links, format!("{} {}", link.kind, link.target));
    }
}

/// The framework keys and links stored on a document (empty for all but a file's first).
pub fn stored_framework(
    f: &Fields,
    doc: &TantivyDocument,
) -> (Vec<String>, Vec<super::framework::Link>) {
    let provides = doc
        .get_all(f.fw_provides)
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    let links = doc
        .get_all(f.fw_links)
        .filter_map(|v| v.as_str())
        .filter_map(|s| s.split_once(' '))
        .map(|(kind, target)| super::framework::Link {
            kind: kind.to_string(),
            target: target.to_string(),
        })
        .collect();
    (provides, links)
}

/// The document of `path` that carries the file's framework facts (none when it has none).
pub fn facts_query(f: &Fields, path: &str) -> Box<dyn Query> {
    Box::new(BooleanQuery::new(vec![
        (Occur::Must, term_query(f.path_key, path)),
        (Occur::Must, term_query(f.fw_facts, "1")),
    ]))
}

/// Documents with a framework link of `kind` to `key`.
pub fn link_query(f: &Fields, kind: &str, key: &str) -> Box<dyn Query> {
    term_query(f.fw_links, &format!("{kind} {key}"))
}

/// Documents whose framework keys include `key` (files that provide it).
pub fn provides_query(f: &Fields, key: &str) -> Box<dyn Query> {
    term_query(f.fw_provides, key)
}

/// Documents whose framework links target `key` (files that link to it).
pub fn links_query(f: &Fields, key: &str) -> Box<dyn Query> {
    term_query(f.fw_link_keys, key)
}

/// The stored part of an indexed chunk: enough to answer without reading the file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StoredChunk {
    /// Repository-relative path, `/`-separated.
    pub file: String,
    /// First line, 1-based.
    pub start_line: u32,
    /// Last line, 1-based inclusive.
    pub end_line: u32,
    /// Byte range `[start, end)` in the file as indexed.
    pub byte_range: (usize, usize),
    /// Symbol name.
    pub symbol: String,
    /// Qualified name.
    pub qualified_name: String,
    /// Chunk kind, serialised snake_case.
    pub kind: ChunkKind,
    /// Language, serialised as its id.
    pub language: Language,
    /// Signature (may be empty).
    pub signature: String,
    /// Hex SHA-256 of the chunk content.
    pub sha256: String,
    /// The first lines of the chunk.
    pub snippet: String,
}

/// Reads the stored fields of a document.
pub fn stored_chunk(f: &Fields, doc: &TantivyDocument) -> StoredChunk {
    let text = |field| {
        doc.get_first(field)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string()
    };
    let num = |field| {
        doc.get_first(field)
            .and_then(|v| v.as_u64())
            .unwrap_or_default()
    };
    StoredChunk {
        file: text(f.path_key),
        start_line: u32::try_from(num(f.start_line)).unwrap_or(u32::MAX),
        end_line: u32::try_from(num(f.end_line)).unwrap_or(u32::MAX),
        byte_range: (num(f.start_byte) as usize, num(f.end_byte) as usize),
        symbol: text(f.symbol),
        qualified_name: text(f.qualified_name),
        // A name this version does not write (a foreign index) reads as a text window.
        kind: ChunkKind::from_name(&text(f.kind)).unwrap_or(ChunkKind::Window),
        language: Language::from_id(&text(f.language)).unwrap_or(Language::Text),
        signature: text(f.signature),
        sha256: text(f.sha256),
        snippet: text(f.snippet),
    }
}

/// Which optional columns [`column_chunks`] reads besides path, lines, kind and language.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ColumnSet {
    /// The symbol (hybrid search's definition and reference signals).
    pub symbol: bool,
    /// The SHA-256 (matching a chunk with its vector row).
    pub sha256: bool,
}

/// What [`column_chunks`] gives for one chunk: the [`StoredChunk`] fields ranking needs. The
/// optional ones ([`ColumnSet`]) are empty when not asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnChunk {
    /// Repository-relative path.
    pub file: String,
    /// First line, 1-based.
    pub start_line: u32,
    /// Last line, 1-based inclusive.
    pub end_line: u32,
    /// Symbol name (empty unless asked for).
    pub symbol: String,
    /// Chunk kind (a name this version does not write reads as a window, as in [`stored_chunk`]).
    pub kind: ChunkKind,
    /// Language ([`Language::Text`] for an unknown id).
    pub language: Language,
    /// Hex SHA-256 of the chunk content (empty unless asked for).
    pub sha256: String,
}

/// The ranking fields of documents `docs` of `segment`, in the order given, read from the
/// fast-field columns (path, kind, language, lines; symbol and SHA-256 when `with` says so).
///
/// This is what keeps a ranked search of 400 candidates within a few milliseconds: a stored
/// document costs an LZ4 block of 16 KiB decompressed and a document deserialised, while a
/// column costs one dictionary walk per segment, the ordinals sorted so that each dictionary
/// block is read once ([`tantivy::columnar::Dictionary::sorted_ords_to_term_cb`]). Stored
/// documents are read only for the chunks a search shows ([`stored_chunk`]). A column a
/// segment lacks (no document of it had a value) reads as empty.
///
/// # Errors
/// A [`tantivy::TantivyError`] when a column cannot be opened or its dictionary read.
pub fn column_chunks(
    f: &Fields,
    segment: &tantivy::SegmentReader,
    docs: &[tantivy::DocId],
    with: ColumnSet,
) -> tantivy::Result<Vec<ColumnChunk>> {
    let ff = segment.fast_fields();
    let schema = segment.schema();
    let texts = |field: Field| -> tantivy::Result<Vec<String>> {
        let mut out = vec![String::new(); docs.len()];
        let Some(col) = ff.str(schema.get_field_name(field))? else {
            return Ok(out);
        };
        let mut wanted: Vec<(u64, usize)> = docs
            .iter()
            .enumerate()
            .filter_map(|(i, &d)| col.term_ords(d).next().map(|o| (o, i)))
            .collect();
        wanted.sort_unstable();
        let mut next = wanted.iter();
        col.dictionary()
            .sorted_ords_to_term_cb(wanted.iter().map(|w| w.0), |bytes| {
                if let Some(&(_, i)) = next.next() {
                    out[i] = String::from_utf8_lossy(bytes).into_owned();
                }
                Ok(())
            })?;
        Ok(out)
    };
    let lines = |field: Field| -> Vec<u32> {
        let col: Option<Column<u64>> = ff.u64(schema.get_field_name(field)).ok();
        docs.iter()
            .map(|&d| {
                col.as_ref()
                    .and_then(|c| c.first(d))
                    .map_or(0, |v| u32::try_from(v).unwrap_or(u32::MAX))
            })
            .collect()
    };
    let files = texts(f.path_key)?;
    let kinds = texts(f.kind)?;
    let languages = texts(f.language)?;
    let symbols = if with.symbol {
        texts(f.symbol)?
    } else {
        vec![String::new(); docs.len()]
    };
    let shas = if with.sha256 {
        texts(f.sha256)?
    } else {
        vec![String::new(); docs.len()]
    };
    let (starts, ends) = (lines(f.start_line), lines(f.end_line));
    Ok(files
        .into_iter()
        .zip(kinds)
        .zip(languages)
        .zip(symbols.into_iter().zip(shas))
        .zip(starts.into_iter().zip(ends))
        .map(
            |((((file, kind), language), (symbol, sha256)), (start_line, end_line))| ColumnChunk {
                file,
                start_line,
                end_line,
                symbol,
                kind: ChunkKind::from_name(&kind).unwrap_or(ChunkKind::Window),
                language: Language::from_id(&language).unwrap_or(Language::Text),
                sha256,
            },
        )
        .collect())
}

fn field_by_name(f: &Fields, name: &str) -> Field {
    match name {
        "symbol" => f.symbol,
        "qualified_name" => f.qualified_name,
        "signature" => f.signature,
        "docstring" => f.docstring,
        "path" => f.path,
        "imports" => f.imports,
        "cjk" => f.cjk,
        _ => f.content,
    }
}

/// Words of a short query beyond this many distinct ones are ignored (a pasted file must not
/// become a query of thousands of clauses); a long request keeps [`RankParams::req_words`] chosen
/// by weight × IDF instead ([`super::request`]).
const MAX_QUERY_WORDS: usize = request::MAX_SHORT_WORDS;

/// Tie-breaker of the per-word disjunction in [`bm25_query`]: a field matching several terms of
/// one query word (`getUserName` → `getusername`, `get`, `user`, `name`) scores its best term plus
/// this fraction of the others (Lucene's `DisjunctionMaxQuery` tie-breaker idea).
pub const WORD_TIE_BREAKER: f32 = 0.3;

/// Builds the ranked BM25 query for free text with the default [`RankParams`]. Returns `None`
/// when the text has no searchable term. See [`bm25_query_with`].
pub fn bm25_query(f: &Fields, text: &str) -> Option<Box<dyn Query>> {
    bm25_query_with(f, text, &RankParams::default())
}

/// Builds the ranked BM25F query for free text. Returns `None` when the text has no searchable
/// term.
///
/// The text is analysed with the index's own tokenizers, so punctuation never errors and
/// `getUserName` matches "user name". Each query word (English stop words dropped) contributes,
/// per field of [`RankParams::field_boosts`], the best-scoring of its (stemmed) terms (whole word
/// or parts; see [`WORD_TIE_BREAKER`]) times the field boost times the word's weight
/// ([`rank::word_weight`]: generic request verbs count less); the contributions of all words and
/// fields are summed. Counting a word once per field keeps an identifier made of many parts from
/// outweighing a query's other words. Japanese words the [`glossary`] knows add their English
/// words at [`RankParams::glossary`] of a word's weight; CJK bigrams are summed one by one.
///
/// A long request (several lines, or a long line: [`request::is_long`]) is analysed first
/// ([`request::Request::analyse`]): each word weighs what the part of the request it comes from
/// weighs (a traceback frame, a path, code, prose, ...), and boilerplate is dropped. Without
/// the index at hand, this function keeps the [`RankParams::req_words`] heaviest words;
/// ranked search (`CodeIndex::search_candidates`) chooses them by weight × IDF and adds the
/// files the request names ([`bm25_request_query`]).
pub fn bm25_query_with(f: &Fields, text: &str, params: &RankParams) -> Option<Box<dyn Query>> {
    bm25_query_and_words(f, text, params).0
}

/// One word of a query as [`bm25_query_and_words`] analysed it: its terms in every searched
/// field and its weight ([`rank::word_weight`] times the glossary scale).
#[derive(Debug, Clone)]
pub struct QueryWord {
    /// The word's (stemmed) terms, in each field it is searched in.
    pub terms: Vec<Term>,
    /// The word's weight in the query.
    pub weight: f32,
    /// The word as the request wrote it (a glossary word: the English word).
    pub text: String,
    /// The part of the request it comes from ([`PartKind::Prose`] for a short request).
    pub part: PartKind,
}

/// [`bm25_query_with`] and the query's words (CJK n-grams are not words here).
pub fn bm25_query_and_words(
    f: &Fields,
    text: &str,
    params: &RankParams,
) -> (Option<Box<dyn Query>>, Vec<QueryWord>) {
    if params.request_analysis > 0.0 && request::is_long(text) {
        let req = request::Request::analyse(text, params);
        let words: Vec<(&str, PartKind, f32)> = req
            .by_weight(params.req_words)
            .into_iter()
            .map(|w| (w.text.as_str(), w.part, w.weight))
            .collect();
        return bm25_request_query(f, text, &words, &[], params);
    }
    let boosts = params.field_boosts();
    let mut parts = QueryParts::default();
    for_each_word(text, |start, end| {
        if parts.seen_words.len() < MAX_QUERY_WORDS {
            word_clauses(
                f,
                &boosts,
                &text[start..end],
                1.0,
                PartKind::Prose,
                params,
                &mut parts,
            );
        }
    });
    finish_query(f, text, parts, params)
}

/// The query of a long request ([`request::Request`]): `words` (as written, their part and
/// weight), in the order given, then `files`, repository-relative paths the request names with
/// the constant score each adds to every chunk of the file ([`RankParams::path_mention`]).
pub fn bm25_request_query(
    f: &Fields,
    text: &str,
    words: &[(&str, PartKind, f32)],
    files: &[(String, f32)],
    params: &RankParams,
) -> (Option<Box<dyn Query>>, Vec<QueryWord>) {
    let boosts = params.field_boosts();
    let mut parts = QueryParts::default();
    for &(word, part, weight) in words {
        word_clauses(f, &boosts, word, weight, part, params, &mut parts);
    }
    for (file, score) in files {
        if *score > 0.0 {
            parts.clauses.push((
                Occur::Should,
                Box::new(ConstScoreQuery::new(term_query(f.path_key, file), *score)),
            ));
        }
    }
    finish_query(f, text, parts, params)
}

/// One word of a long request for [`flat_request_query`]: as written, its part, its weight (the
/// part's, before the generic-word factor) and its (stemmed) terms, each with its factor: 1 for
/// the word's main term, [`WORD_TIE_BREAKER`] for the others.
#[derive(Debug, Clone)]
pub struct FlatWord<'a> {
    /// The word as the request wrote it.
    pub text: &'a str,
    /// The part of the request it comes from.
    pub part: PartKind,
    /// The part's weight ([`request::RequestWord::weight`]).
    pub weight: f32,
    /// Its terms (as [`word_terms`] gives them, content field) and their factors.
    pub terms: Vec<(String, f32)>,
}

/// The query of a long request as one flat disjunction of boosted term queries, which
/// tantivy's block-max WAND prunes ([`super::pruned::TermDisjunction`]; a clause that is not a
/// term query, such as the per-field disjunction-max of [`bm25_request_query`] or a constant
/// score, turns pruning off; see docs/log/2026-11-28-long-request-latency.md): for every word, every field of
/// [`RankParams::field_boosts`] and every term of the word, a term query boosted by field boost
/// × the word's weight × [`rank::word_weight`] × the term's factor. Where the per-field
/// disjunction-max counts a word's best term plus [`WORD_TIE_BREAKER`] of its others, this sums
/// the main term and [`WORD_TIE_BREAKER`] of the others, the same score when the main term (the
/// whole word, or the rarest part of a word the index does not hold whole) is the best one.
/// CJK bigrams are added as in [`bm25_query_with`]; the glossary is not read (its words are
/// Japanese, and a long Japanese request keeps the per-field query: [`request::is_long`] and
/// [`flat_applies`]). The files a request names are not part of this query: ranked search adds
/// their constant after the search (`CodeIndex::search_candidates`).
pub fn flat_request_query(
    f: &Fields,
    text: &str,
    words: &[FlatWord<'_>],
    params: &RankParams,
) -> (Option<Box<dyn Query>>, Vec<QueryWord>) {
    let boosts = params.field_boosts();
    let mut clauses: Vec<(Term, f32)> = Vec::new();
    let mut out = Vec::with_capacity(words.len());
    for w in words {
        if w.terms.is_empty() {
            continue;
        }
        let weight = rank::word_weight(&w.text.to_lowercase(), params) * w.weight;
        let mut query_word = QueryWord {
            terms: Vec::new(),
            weight,
            text: w.text.to_string(),
            part: w.part,
        };
        for &(name, boost) in &boosts {
            if name == "cjk"
                || boost <= 0.0
                || (params.req_fields >= 1.0 && name != "content" && name != "path")
            {
                continue;
            }
            let field = field_by_name(f, name);
            for (t, factor) in &w.terms {
                let term = Term::from_field_text(field, t);
                query_word.terms.push(term.clone());
                clauses.push((term, boost * weight * factor));
            }
        }
        out.push(query_word);
    }
    let mut seen_grams = HashSet::new();
    for term in cjk_terms(text) {
        if params.cjk > 0.0 && seen_grams.len() < MAX_QUERY_WORDS && seen_grams.insert(term.clone())
        {
            clauses.push((Term::from_field_text(f.cjk, &term), params.cjk));
        }
    }
    let query: Option<Box<dyn Query>> = if clauses.is_empty() {
        None
    } else if params.req_flat >= 2.0 {
        Some(Box::new(super::pruned::TermDisjunction::new(clauses)))
    } else {
        Some(Box::new(BooleanQuery::new(
            clauses
                .into_iter()
                .map(|(t, b)| {
                    let q: Box<dyn Query> = Box::new(BoostQuery::new(
                        Box::new(TermQuery::new(t, IndexRecordOption::WithFreqs)),
                        b,
                    ));
                    (Occur::Should, q)
                })
                .collect(),
        )))
    };
    (query, out)
}

/// Whether a long request is searched with [`flat_request_query`]: [`RankParams::req_flat`]
/// is on and the glossary translates none of its words (the glossary's words join through the
/// per-field query).
pub fn flat_applies(text: &str, params: &RankParams) -> bool {
    params.req_flat > 0.0 && (params.glossary <= 0.0 || glossary::translate(text).is_empty())
}

/// The (stemmed) content-field terms a request word is searched by, whole word first: what
/// `word_clauses` searches in each field.
pub fn word_terms(f: &Fields, word: &str) -> Vec<Term> {
    word_term_texts(word)
        .iter()
        .map(|t| Term::from_field_text(f.content, t))
        .collect()
}

/// The texts of [`word_terms`]: a word's (stemmed) terms, whole word first, without
/// duplicates.
pub fn word_term_texts(word: &str) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    split_code(word, |t, _, _, _| {
        let t = stem(t);
        if !terms.iter().any(|x| *x == t) {
            terms.push(t.into_owned());
        }
    });
    terms
}

/// Glossary words and CJK bigrams after the words of `parts`, then the query.
fn finish_query(
    f: &Fields,
    text: &str,
    mut parts: QueryParts,
    params: &RankParams,
) -> (Option<Box<dyn Query>>, Vec<QueryWord>) {
    let boosts = params.field_boosts();
    // Japanese words translated through the glossary join as English words of their own
    // (weighted by `params.glossary`); words the request also says in English count once.
    if params.glossary > 0.0 {
        let max = parts.seen_words.len().max(MAX_QUERY_WORDS);
        for word in glossary::translate(text) {
            if parts.seen_words.len() >= max {
                break;
            }
            word_clauses(
                f,
                &boosts,
                word,
                params.glossary,
                PartKind::Prose,
                params,
                &mut parts,
            );
        }
    }
    let QueryParts {
        mut clauses, words, ..
    } = parts;
    let cjk_boost = params.cjk;
    let mut seen_grams = HashSet::new();
    for term in cjk_terms(text) {
        if cjk_boost > 0.0 && seen_grams.len() < MAX_QUERY_WORDS && seen_grams.insert(term.clone())
        {
            let q = TermQuery::new(
                Term::from_field_text(f.cjk, &term),
                IndexRecordOption::WithFreqs,
            );
            clauses.push((
                Occur::Should,
                Box::new(BoostQuery::new(Box::new(q), cjk_boost)),
            ));
        }
    }
    let query: Option<Box<dyn Query>> = if clauses.is_empty() {
        None
    } else {
        Some(Box::new(BooleanQuery::new(clauses)))
    };
    (query, words)
}

/// What [`bm25_query_and_words`] collects word by word.
#[derive(Default)]
struct QueryParts {
    seen_words: HashSet<String>,
    clauses: Vec<(Occur, Box<dyn Query>)>,
    words: Vec<QueryWord>,
}

/// Adds the clauses of one query word (see [`bm25_query_with`]): per field, the best of its
/// (stemmed) terms times the field boost times the word's weight times `scale`. Stop words and
/// words already seen add nothing.
fn word_clauses(
    f: &Fields,
    boosts: &[(&'static str, f32)],
    word: &str,
    scale: f32,
    part: PartKind,
    params: &RankParams,
    out: &mut QueryParts,
) {
    let QueryParts {
        seen_words,
        clauses,
        words,
    } = out;
    let mut terms: Vec<String> = Vec::new();
    let mut whole = None;
    split_code(word, |t, _, _, _| {
        if whole.is_none() {
            whole = Some(t.to_string());
        }
        let t = stem(t);
        if !terms.iter().any(|x| *x == t) {
            terms.push(t.into_owned());
        }
    });
    // The whole word (or its only part) comes first.
    let whole = whole.unwrap_or_default();
    if terms.is_empty()
        || QUERY_STOP_WORDS.contains(&whole.as_str())
        || !seen_words.insert(whole.clone())
    {
        return;
    }
    let weight = rank::word_weight(&whole, params) * scale;
    let mut query_word = QueryWord {
        terms: Vec::new(),
        weight,
        text: word.to_string(),
        part,
    };
    for &(name, boost) in boosts {
        if name == "cjk" || boost <= 0.0 {
            continue;
        }
        let field = field_by_name(f, name);
        query_word
            .terms
            .extend(terms.iter().map(|t| Term::from_field_text(field, t)));
        let disjuncts: Vec<Box<dyn Query>> = terms
            .iter()
            .map(|t| {
                Box::new(TermQuery::new(
                    Term::from_field_text(field, t),
                    IndexRecordOption::WithFreqs,
                )) as Box<dyn Query>
            })
            .collect();
        let q = DisjunctionMaxQuery::with_tie_breaker(disjuncts, WORD_TIE_BREAKER);
        clauses.push((
            Occur::Should,
            Box::new(BoostQuery::new(Box::new(q), boost * weight)),
        ));
    }
    words.push(query_word);
}

/// How a definition lookup matches names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameMatch {
    /// The symbol equals the name, or the qualified name equals it or ends with `.name` after
    /// [`normalize_qualified`] (so `Router::get` finds `Illuminate\Routing\Router::get`).
    /// Case-insensitive here; callers rank case-exact matches first.
    Exact,
    /// The name is a case-insensitive substring of the symbol or the qualified name.
    Substring,
}

/// Builds the candidate query of a definition lookup: name matches per [`NameMatch`], optionally
/// restricted to a file or directory (`scope`, repo-relative; `None` = everywhere) and a language,
/// never module or window chunks.
///
/// # Errors
/// A tantivy error if the generated automaton is too large (very long names).
pub fn definition_query(
    f: &Fields,
    name: &str,
    how: NameMatch,
    scope: Option<&str>,
    language: Option<&str>,
) -> tantivy::Result<Box<dyn Query>> {
    let norm = normalize_qualified(name);
    let esc = regex::escape(&norm);
    let mut names: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    match how {
        NameMatch::Exact => {
            names.push((Occur::Should, term_query(f.symbol_key, &norm)));
            names.push((Occur::Should, term_query(f.qname_key, &norm)));
            names.push((
                Occur::Should,
                Box::new(RegexQuery::from_pattern(
                    &format!(".*\\.{esc}"),
                    f.qname_key,
                )?),
            ));
        }
        NameMatch::Substring => {
            let pattern = format!(".*{esc}.*");
            names.push((
                Occur::Should,
                Box::new(RegexQuery::from_pattern(&pattern, f.symbol_key)?),
            ));
            names.push((
                Occur::Should,
                Box::new(RegexQuery::from_pattern(&pattern, f.qname_key)?),
            ));
        }
    }
    let mut must: Vec<(Occur, Box<dyn Query>)> =
        vec![(Occur::Must, Box::new(BooleanQuery::new(names)))];
    if let Some(scope) = scope.filter(|s| !s.is_empty()) {
        let within: Vec<(Occur, Box<dyn Query>)> = vec![
            (Occur::Should, term_query(f.path_key, scope)),
            (Occur::Should, term_query(f.dirs, scope)),
        ];
        must.push((Occur::Must, Box::new(BooleanQuery::new(within))));
    }
    if let Some(language) = language {
        must.push((Occur::Must, term_query(f.language, language)));
    }
    for kind in [ChunkKind::Module, ChunkKind::Window] {
        must.push((Occur::MustNot, term_query(f.kind, kind.name())));
    }
    Ok(Box::new(BooleanQuery::new(must)))
}

/// A query matching every chunk of one file.
pub fn file_query(f: &Fields, path: &str) -> Box<dyn Query> {
    term_query(f.path_key, path)
}

fn term_query(field: Field, text: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(field, text),
        IndexRecordOption::Basic,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{Expect, expect};

    fn check(input: &str, expect: Expect) {
        expect.assert_eq(&code_terms(input).join(" "));
    }

    #[test]
    fn splits_identifiers() {
        check("getUserName", expect!["getusername get user name"]);
        check(
            "HTTPServerError",
            expect!["httpservererror http server error"],
        );
        check(
            "snake_case_name",
            expect!["snake_case_name snake case name"],
        );
        check(
            "kebab-case-name",
            expect!["kebab-case-name kebab case name"],
        );
        check(
            "utf8Decode sha256",
            expect!["utf8decode utf 8 decode sha256 sha 256"],
        );
        check("__init__", expect!["__init__ init"]);
        check("a - b", expect!["a b"]);
        check("$userName->save()", expect!["username user name save"]);
        check(
            r"App\Http\UserController::store",
            expect!["app http usercontroller user controller store"],
        );
        check("x", expect!["x"]);
        check("Ünïcode_näme", expect!["ünïcode_näme ünïcode näme"]);
    }

    #[test]
    fn code_terms_skip_cjk_and_cjk_terms_are_bigrams() {
        let text = "// ユーザー認証を行う login()";
        assert_eq!(code_terms(text), vec!["login"]);
        assert_eq!(
            cjk_terms(text),
            vec![
                "ユー", "ーザ", "ザー", "ー認", "認証", "証を", "を行", "行う"
            ]
        );
        assert_eq!(cjk_terms("a 日 b"), vec!["日"]);
        assert!(cjk_terms("plain ascii").is_empty());
    }

    #[test]
    fn long_tokens_are_dropped_but_their_parts_kept() {
        let long = format!("{}Tail", "a".repeat(70));
        assert_eq!(code_terms(&long), vec!["tail"]);
    }

    /// The tokens `t` streams for `text`: (text, offset_from, offset_to, position).
    fn stream_tokens(t: &mut CodeTokenizer, text: &str) -> Vec<(String, usize, usize, usize)> {
        let mut s = t.token_stream(text);
        let mut got = Vec::new();
        while s.advance() {
            let tok = s.token();
            got.push((
                tok.text.clone(),
                tok.offset_from,
                tok.offset_to,
                tok.position,
            ));
        }
        got
    }

    #[test]
    fn tokenizer_streams_match_the_term_functions() {
        assert_eq!(
            stream_tokens(&mut CodeTokenizer::default(), "fooBar baz"),
            vec![
                ("foobar".into(), 0, 6, 0),
                ("foo".into(), 0, 3, 0),
                ("bar".into(), 3, 6, 1),
                ("baz".into(), 7, 10, 2)
            ]
        );
    }

    #[test]
    fn the_stem_memo_changes_no_token() {
        // Stemmable, short, upper-case, digit and non-ASCII words, each seen more than once, by
        // one tokenizer (memo warm the second time) and compared with `stem` of `code_terms`.
        let text = "handleRequests handling handled 42 ÜberCaching caching äußerst HTTPServer \
                    handleRequests caching runs ran running";
        let want: Vec<String> = code_terms(text)
            .iter()
            .map(|t| stem(t).into_owned())
            .collect();
        let mut t = CodeTokenizer::default();
        for round in 0..3 {
            let mut s = t.token_stream(text);
            let mut got = Vec::new();
            while s.advance() {
                got.push(s.token().text.clone());
            }
            assert_eq!(got, want, "round {round}");
        }
        assert!(want.contains(&"handl".to_string()), "{want:?}");
    }

    #[test]
    fn the_word_memo_changes_no_token() {
        // Repeated words at different offsets and positions, kebab-case, digits, non-ASCII,
        // words over the memo's and the token's length limits: the tokenizer's tokens, memo
        // cold and warm, are `split_code`'s terms, stemmed, with the same offsets and positions.
        let long = format!("{}Tail", "b".repeat(70));
        let longer = format!("x{}", "Yz".repeat(80));
        let text = format!(
            "getUserName(user_name) HTTPServer utf8 get-user-name {long} ÜberCaching \
             getUserName\n{longer} caching_runs {long} HTTPServer getUserName"
        );
        let mut want = Vec::new();
        split_code(&text, |t, from, to, pos| {
            want.push((stem(t).into_owned(), from, to, pos))
        });
        let mut t = CodeTokenizer::default();
        for round in 0..3 {
            assert_eq!(stream_tokens(&mut t, &text), want, "round {round}");
        }
        assert!(want.iter().any(|w| w.0 == "tail"), "{want:?}");
    }

    #[test]
    fn qualified_names_normalise_separators() {
        assert_eq!(
            normalize_qualified(r"\App\Http\UserController::store"),
            "app.http.usercontroller.store"
        );
        assert_eq!(normalize_qualified("Flask.route"), "flask.route");
        assert_eq!(normalize_qualified("res->send"), "res.send");
    }

    #[test]
    fn kind_names_match_serde() {
        for kind in [
            ChunkKind::Module,
            ChunkKind::AtRule,
            ChunkKind::Method,
            ChunkKind::Window,
        ] {
            assert_eq!(
                serde_json::to_value(kind).unwrap(),
                serde_json::json!(kind.name())
            );
        }
    }

    #[test]
    fn snippets_keep_the_first_lines() {
        assert_eq!(
            snippet_of("\n\ndef f():\n    x = 1\n\n    y = 2\n    z\n    w\n"),
            "def f():\n    x = 1\n    y = 2\n    z"
        );
    }
}
