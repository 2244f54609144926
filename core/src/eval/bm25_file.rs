//! `code-intel eval --baseline bm25-file`: plain BM25 with one document per file, the
//! development kit's `bm25-file` baseline (`bench-kit/run_eval.py`, `BM25Baseline(corpus,
//! "file")`), the bar of the long-request targets (docs/EVALUATION.md, "Long requests").
//!
//! - Documents: every file the index holds that has a code extension (as [`super::grep`]),
//!   its text = path, a newline, content.
//! - Tokens ([`tokens`], the kit's `tokenize` for ASCII text): runs
//!   `[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*` or digits; a dotted run adds its
//!   lower-cased whole (`settings.py`); each identifier adds its lower-cased whole when it has
//!   several parts, and each part (split at `_`, lower→upper, `HTTPServer` → `HTTP`, `Server`,
//!   letters↔digits) of at least two characters that is not one of the kit's stop words
//!   ([`STOP_WORDS`]), Snowball-stemmed (English). CJK text is not tokenized (English
//!   requests).
//! - Scoring: BM25 with k1 1.2 and b 0.75, IDF `ln(1 + (N − df + 0.5) / (df + 0.5))` (Lucene's),
//!   summed over the request's tokens with repeats (as `bm25s.get_scores` does); files ranked
//!   by score, ties by path.
//!
//! A file's tokens are cached by its content hash, so a `--from-git` run re-tokenizes only what
//! each snapshot changed.

use std::collections::HashMap;
use std::hash::{Hash as _, Hasher as _};
use std::sync::Arc;

use rust_stemmers::{Algorithm, Stemmer};

use super::history::has_code_extension;
use crate::index::source;
use code_intel_session::repo_path::RepoRoot;

/// BM25's term-frequency saturation.
const K1: f32 = 1.2;
/// BM25's length normalisation.
const B: f32 = 0.75;

/// The kit's stop words (`run_eval.py`, `STOP`): English function words and the generic words of
/// change requests.
pub const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "either",
    "else",
    "etc",
    "every",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "him",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "let",
    "like",
    "may",
    "me",
    "might",
    "more",
    "most",
    "must",
    "my",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "out",
    "over",
    "own",
    "per",
    "same",
    "shall",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "upon",
    "us",
    "very",
    "via",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "within",
    "without",
    "would",
    "yet",
    "you",
    "your",
    "add",
    "added",
    "adds",
    "adding",
    "allow",
    "allowed",
    "allows",
    "fix",
    "fixed",
    "fixes",
    "fixing",
    "update",
    "updated",
    "updates",
    "updating",
    "change",
    "changed",
    "changes",
    "changing",
    "make",
    "made",
    "makes",
    "use",
    "used",
    "uses",
    "using",
    "support",
    "supported",
    "supports",
    "improve",
    "improved",
    "improves",
    "handle",
    "handled",
    "handles",
    "handling",
    "ensure",
    "ensures",
    "ensured",
    "prevent",
    "prevented",
    "prevents",
    "remove",
    "removed",
    "removes",
    "removing",
    "new",
    "properly",
    "correctly",
    "correct",
    "instead",
    "better",
    "able",
    "ability",
    "option",
    "options",
    "issue",
    "issues",
    "bug",
    "bugs",
    "case",
    "cases",
    "way",
    "ways",
    "work",
    "works",
    "working",
];

/// The parts of one identifier (no `.`, `$` removed): split at `_`, then into runs of upper-case
/// letters, a capital and lower-case letters, lower-case letters, digits (the kit's
/// `[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+`); other characters separate.
fn identifier_parts(ident: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for part in ident.split('_').filter(|p| !p.is_empty()) {
        let b = part.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if c.is_ascii_uppercase() {
                let mut j = i;
                while j < b.len() && b[j].is_ascii_uppercase() {
                    j += 1;
                }
                if j < b.len() && b[j].is_ascii_lowercase() {
                    if j - i > 1 {
                        out.push(&part[i..j - 1]);
                    }
                    let mut k = j;
                    while k < b.len() && b[k].is_ascii_lowercase() {
                        k += 1;
                    }
                    out.push(&part[j - 1..k]);
                    i = k;
                } else {
                    out.push(&part[i..j]);
                    i = j;
                }
            } else if c.is_ascii_lowercase() {
                let mut j = i;
                while j < b.len() && b[j].is_ascii_lowercase() {
                    j += 1;
                }
                out.push(&part[i..j]);
                i = j;
            } else if c.is_ascii_digit() {
                let mut j = i;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                out.push(&part[i..j]);
                i = j;
            } else {
                i += 1;
            }
        }
    }
    out
}

/// The kit's tokens of `text` (see the module docs), in order, repeats kept.
pub fn tokens(text: &str, stemmer: &Stemmer) -> Vec<String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let start_char = |c: u8| c.is_ascii_alphabetic() || c == b'_' || c == b'$';
    let word_char = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let mut j = i;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            // A lone number is one part: kept when at least two digits.
            if j - i >= 2 {
                out.push(text[i..j].to_string());
            }
            i = j;
            continue;
        }
        if !start_char(b[i]) {
            i += 1;
            continue;
        }
        let mut j = i;
        loop {
            while j < b.len() && word_char(b[j]) {
                j += 1;
            }
            if j + 1 < b.len() && b[j] == b'.' && start_char(b[j + 1]) {
                j += 1;
                continue;
            }
            break;
        }
        let dotted = text[i..j].replace('$', "");
        let idents: Vec<&str> = dotted.split('.').filter(|s| !s.is_empty()).collect();
        if idents.len() > 1 {
            out.push(idents.join(".").to_ascii_lowercase());
        }
        for w in idents {
            let sub: Vec<String> = identifier_parts(w)
                .into_iter()
                .map(str::to_ascii_lowercase)
                .collect();
            let whole = w.to_ascii_lowercase();
            let whole = whole.trim_matches('_');
            if sub.len() > 1 && !whole.is_empty() {
                out.push(whole.to_string());
            }
            for s in sub {
                if s.len() >= 2 && !STOP_WORDS.contains(&s.as_str()) {
                    out.push(stemmer.stem(&s).into_owned());
                }
            }
        }
        i = j;
    }
    out
}

/// One file's term counts (term ids of [`Bm25FileBaseline`]'s vocabulary) and length.
#[derive(Debug)]
struct FileTerms {
    counts: Vec<(u32, u32)>,
    len: u32,
}

/// BM25 over whole files (see the module docs), rebuilt per snapshot from cached tokens.
pub struct Bm25FileBaseline {
    stemmer: Stemmer,
    vocab: HashMap<String, u32>,
    cache: HashMap<u64, Arc<FileTerms>>,
    files: Vec<String>,
    docs: Vec<Arc<FileTerms>>,
    postings: Vec<Vec<(u32, u32)>>,
    avg_len: f32,
}

impl Default for Bm25FileBaseline {
    fn default() -> Self {
        Self::new()
    }
}

impl Bm25FileBaseline {
    /// An empty baseline; [`Self::load`] gives it a snapshot's files.
    pub fn new() -> Self {
        Self {
            stemmer: Stemmer::create(Algorithm::English),
            vocab: HashMap::new(),
            cache: HashMap::new(),
            files: Vec::new(),
            docs: Vec::new(),
            postings: Vec::new(),
            avg_len: 0.0,
        }
    }

    /// Indexes those of `files` (repository-relative, the files the index holds) of `root`
    /// that have a code extension, each read through the checked reader with at most
    /// `max_file_bytes`; unreadable files are left out. Replaces the previous snapshot's.
    pub fn load(&mut self, root: &RepoRoot, mut files: Vec<String>, max_file_bytes: u64) {
        files.retain(|f| has_code_extension(f));
        files.sort();
        self.files.clear();
        self.docs.clear();
        for file in files {
            let Ok(bytes) = source::read_source(root, &file, max_file_bytes) else {
                continue;
            };
            let mut h = std::collections::hash_map::DefaultHasher::new();
            file.hash(&mut h);
            bytes.hash(&mut h);
            let key = h.finish();
            let terms = match self.cache.get(&key) {
                Some(t) => Arc::clone(t),
                None => {
                    let text = format!("{file}\n{}", String::from_utf8_lossy(&bytes));
                    let mut counts: HashMap<u32, u32> = HashMap::new();
                    let toks = tokens(&text, &self.stemmer);
                    for t in &toks {
                        let next = self.vocab.len() as u32;
                        let id = *self.vocab.entry(t.clone()).or_insert(next);
                        *counts.entry(id).or_default() += 1;
                    }
                    let mut counts: Vec<(u32, u32)> = counts.into_iter().collect();
                    counts.sort_unstable();
                    let t = Arc::new(FileTerms {
                        counts,
                        len: toks.len() as u32,
                    });
                    self.cache.insert(key, Arc::clone(&t));
                    t
                }
            };
            self.files.push(file);
            self.docs.push(terms);
        }
        self.postings = vec![Vec::new(); self.vocab.len()];
        let mut total = 0u64;
        for (d, doc) in self.docs.iter().enumerate() {
            total += u64::from(doc.len);
            for &(t, tf) in &doc.counts {
                self.postings[t as usize].push((d as u32, tf));
            }
        }
        self.avg_len = total as f32 / self.docs.len().max(1) as f32;
    }

    /// The first `top` files for `request`, best first (files scoring 0 left out).
    pub fn search(&self, request: &str, top: usize) -> Vec<String> {
        let n = self.docs.len() as f32;
        let mut scores = vec![0f32; self.docs.len()];
        for t in tokens(request, &self.stemmer) {
            let Some(&id) = self.vocab.get(&t) else {
                continue;
            };
            let Some(postings) = self.postings.get(id as usize) else {
                continue;
            };
            let df = postings.len() as f32;
            if df == 0.0 {
                continue;
            }
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for &(d, tf) in postings {
                let len = self.docs[d as usize].len as f32;
                let tf = tf as f32;
                scores[d as usize] +=
                    idf * tf / (tf + K1 * (1.0 - B + B * len / self.avg_len.max(1.0)));
            }
        }
        let mut ranked: Vec<(usize, f32)> = scores
            .into_iter()
            .enumerate()
            .filter(|(_, s)| *s > 0.0)
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked
            .into_iter()
            .take(top)
            .map(|(d, _)| self.files[d].clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_follow_the_kit() {
        let s = Stemmer::create(Algorithm::English);
        assert_eq!(
            tokens(
                "Fix HTTPServer getUserName in settings.py for $request 2024",
                &s
            ),
            [
                "httpserver",
                "http",
                "server",
                "getusername",
                "get",
                "user",
                "name",
                "settings.py",
                "set",
                "py",
                "request",
                "2024"
            ]
        );
    }

    #[test]
    fn files_rank_by_bm25_and_reload_per_snapshot() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
        write("realm.py", "def realm():\n    return configure_realm()\n");
        write("other.py", "def other():\n    return 1\n");
        write("notes.md", "realm realm realm\n");
        let root = RepoRoot::new(dir.path()).unwrap();
        let files = ["realm.py", "other.py", "notes.md"]
            .map(String::from)
            .to_vec();
        let mut b = Bm25FileBaseline::new();
        b.load(&root, files.clone(), 1 << 20);
        assert_eq!(b.search("configurable realm", 10), ["realm.py"]);
        assert!(b.search("nothing matches", 10).is_empty());
        write("other.py", "def other():\n    return realm_of_other()\n");
        b.load(&root, files, 1 << 20);
        assert_eq!(b.search("realm", 10).len(), 2);
    }
}
