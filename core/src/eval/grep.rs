//! The simple alternative `code-intel eval --baseline grep` measures ranked search against: what
//! an agent does without code-intel, one case-insensitive literal grep per word of the request.
//!
//! The method is the development kit's grep baseline (`bench-kit/run_eval.py`, `GrepBaseline`:
//! one `rg -c -i -F` per term), so its numbers are comparable with the kit's:
//! - the terms are the request's distinctive words as written ([`grep_terms`]): runs of letters,
//!   digits, `_`, `$`, `.` and `-` that start with a letter, `_` or `$`, trimmed of `.` and `-`,
//!   at least 3 characters, neither an English stop word ([`QUERY_STOP_WORDS`]) nor a generic
//!   request word ([`GENERIC_WORDS`]: "add", "fix", "support", ...; the kit's stop list is
//!   similar, not the same), each once (case-insensitively);
//! - every file the index holds that has a code extension ([`has_code_extension`]: as an agent's
//!   `rg -t py`; tests included, no docs, data or translation files) is searched, line by line,
//!   for each term as a literal, ignoring case (grep-searcher, as ripgrep);
//! - files rank by the number of distinct terms they contain, then by the number of matching
//!   lines summed over the terms, then by path.
//!
//! Results are files without line ranges, so they never count for function-level recall.

use std::collections::HashMap;

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, sinks};

use super::history::has_code_extension;
use crate::index::lexical::QUERY_STOP_WORDS;
use crate::index::rank::GENERIC_WORDS;
use crate::index::source;
use code_intel_session::repo_path::RepoRoot;

/// File bytes kept in memory across queries; files beyond this are read again for each query.
const CACHE_BYTES: usize = 256 << 20;

/// The words of `request` that [`GrepBaseline`] greps for (see the module docs), in order.
pub fn grep_terms(request: &str) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    let mut chars = request.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if !(c.is_ascii_alphabetic() || c == '_' || c == '$') {
            continue;
        }
        let mut end = start + c.len_utf8();
        while let Some(&(i, c)) = chars.peek() {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.' | '-') {
                end = i + c.len_utf8();
                chars.next();
            } else {
                break;
            }
        }
        let word = request[start..end].trim_matches(|c| c == '.' || c == '-');
        let lower = word.to_ascii_lowercase();
        if word.len() < 3
            || QUERY_STOP_WORDS.contains(&lower.as_str())
            || GENERIC_WORDS.contains(&lower.as_str())
            || terms.iter().any(|t| t.eq_ignore_ascii_case(word))
        {
            continue;
        }
        terms.push(word.to_string());
    }
    terms
}

/// Grep over the files of one index (see the module docs).
pub struct GrepBaseline {
    root: RepoRoot,
    files: Vec<String>,
    max_file_bytes: u64,
    cache: HashMap<String, Vec<u8>>,
    searcher: Searcher,
}

impl GrepBaseline {
    /// A baseline over those of `files` (repository-relative, the files the index holds) of
    /// `root` that have a code extension, each read through the checked reader with at most
    /// `max_file_bytes`.
    pub fn new(root: &RepoRoot, mut files: Vec<String>, max_file_bytes: u64) -> Self {
        files.retain(|f| has_code_extension(f));
        let searcher = SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(0))
            .line_number(true)
            .build();
        Self {
            root: root.clone(),
            files,
            max_file_bytes,
            cache: HashMap::new(),
            searcher,
        }
    }

    /// The first `top` files for `request`, best first. Files that cannot be read (deleted
    /// since the sync, grown over the limit) are left out; a term that is not a valid literal
    /// pattern is skipped.
    pub fn search(&mut self, request: &str, top: usize) -> Vec<String> {
        let matchers: Vec<RegexMatcher> = grep_terms(request)
            .iter()
            .filter_map(|t| {
                RegexMatcherBuilder::new()
                    .case_insensitive(true)
                    .fixed_strings(true)
                    .build(t)
                    .ok()
            })
            .collect();
        if matchers.is_empty() {
            return Vec::new();
        }
        let mut cached: usize = self.cache.values().map(Vec::len).sum();
        let mut scored: Vec<(usize, u64, &str)> = Vec::new();
        for file in &self.files {
            let read;
            let bytes = match self.cache.get(file) {
                Some(b) => b.as_slice(),
                None => {
                    let Ok(b) = source::read_source(&self.root, file, self.max_file_bytes) else {
                        continue;
                    };
                    if cached + b.len() <= CACHE_BYTES {
                        cached += b.len();
                        self.cache.insert(file.clone(), b);
                        self.cache.get(file).map_or(&[][..], Vec::as_slice)
                    } else {
                        read = b;
                        read.as_slice()
                    }
                }
            };
            let (mut distinct, mut lines) = (0usize, 0u64);
            for m in &matchers {
                let mut n = 0u64;
                let counted = self.searcher.search_slice(
                    m,
                    bytes,
                    sinks::Bytes(|_, _| {
                        n += 1;
                        Ok(true)
                    }),
                );
                if counted.is_ok() && n > 0 {
                    distinct += 1;
                    lines += n;
                }
            }
            if distinct > 0 {
                scored.push((distinct, lines, file));
            }
        }
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(b.2)));
        scored
            .into_iter()
            .take(top)
            .map(|(_, _, f)| f.to_string())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_the_distinctive_words_as_written() {
        assert_eq!(
            grep_terms("Fix Arr::last() for iterables and the `www-authenticate` realm in app.py."),
            [
                "Arr",
                "last",
                "iterables",
                "www-authenticate",
                "realm",
                "app.py"
            ]
        );
        // Short words, stop words, generic request words and repeats (ignoring case) are
        // dropped; digits cannot start a word.
        assert_eq!(grep_terms("Add an Realm realm to 3.1 of it"), ["Realm"]);
        assert!(grep_terms("日本語の要求").is_empty());
    }

    #[test]
    fn files_rank_by_distinct_terms_then_matching_lines() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
        write("a.py", "realm = 1\nrealm = 2\nrealm = 3\n");
        write("b.py", "REALM\nheader = www_authenticate\n");
        write("c.py", "realm\n");
        write("d.py", "nothing here\n");
        write("notes.md", "realm www_authenticate realm\n");
        let root = RepoRoot::new(dir.path()).unwrap();
        let files = ["a.py", "b.py", "c.py", "d.py", "gone.py", "notes.md"]
            .map(String::from)
            .to_vec();
        let mut grep = GrepBaseline::new(&root, files, 1 << 20);
        // b has both words; a has one word on three lines, c on one; d none; gone.py is skipped;
        // notes.md is not code.
        assert_eq!(
            grep.search("configurable realm for www_authenticate", 10),
            ["b.py", "a.py", "c.py"]
        );
        assert_eq!(
            grep.search("configurable realm for www_authenticate", 1),
            ["b.py"]
        );
        assert!(grep.search("an of", 10).is_empty());
    }
}
