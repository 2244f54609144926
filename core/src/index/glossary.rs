//! Japanese developer vocabulary → the English words code is written in, for query expansion.
//!
//! A Japanese change request keeps identifiers in English but says the rest in Japanese
//! ("キャッシュの有効期限を設定できるようにする"); the index holds English code, so without the
//! multilingual model only the ASCII words of such a request match anything. [`translate`]
//! segments each run of Japanese characters by greedy longest match against a hand-written
//! glossary (`glossary_ja.tsv`: katakana loanwords, kanji compounds and verb stems of general
//! software vocabulary, written without looking at any benchmark query) and returns the English
//! words of the matched entries. Dictionary-based query translation is the classic baseline of
//! cross-language retrieval (Ballesteros & Croft, "Dictionary methods for cross-lingual
//! information retrieval", DEXA 1996); longest match is the simplest Japanese segmentation that
//! needs no model.
//!
//! Characters no entry covers (particles, inflections, unknown words) are skipped one at a time;
//! they still reach the index through the CJK bigram field.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::lexical::is_cjk;

/// The glossary source: `japanese<TAB>english words` per line, `#` comments.
const SOURCE: &str = include_str!("glossary_ja.tsv");

/// English words returned for one text at most (a pasted Japanese document must not become a
/// query of thousands of clauses).
pub const MAX_WORDS: usize = 48;

struct Glossary {
    entries: HashMap<&'static str, &'static str>,
    /// Length in chars of the longest key: the longest match tries no further.
    longest: usize,
}

fn glossary() -> &'static Glossary {
    static GLOSSARY: OnceLock<Glossary> = OnceLock::new();
    GLOSSARY.get_or_init(|| {
        let mut entries = HashMap::new();
        let mut longest = 0;
        for line in SOURCE.lines() {
            if line.starts_with('#') {
                continue;
            }
            let Some((key, words)) = line.split_once('\t') else {
                continue;
            };
            let (key, words) = (key.trim(), words.trim());
            if key.is_empty() || words.is_empty() {
                continue;
            }
            longest = longest.max(key.chars().count());
            entries.insert(key, words);
        }
        Glossary { entries, longest }
    })
}

/// Number of entries in the glossary (for status and tests).
pub fn len() -> usize {
    glossary().entries.len()
}

/// The English words for the Japanese parts of `text`, in order of first occurrence, each once,
/// at most [`MAX_WORDS`]. Empty when `text` has no Japanese or no known word.
///
/// ```
/// # use code_intel_core::index::glossary::translate;
/// assert!(translate("ディレクトリを削除する").contains(&"directory"));
/// assert!(translate("plain English").is_empty());
/// ```
pub fn translate(text: &str) -> Vec<&'static str> {
    let g = glossary();
    let mut out: Vec<&'static str> = Vec::new();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < chars.len() && out.len() < MAX_WORDS {
        if !is_cjk(chars[i].1) {
            i += 1;
            continue;
        }
        // The run of Japanese characters starting at i bounds the match.
        let run_end = chars[i..]
            .iter()
            .position(|&(_, c)| !is_cjk(c))
            .map_or(chars.len(), |p| i + p);
        let mut matched = 0;
        for len in (1..=g.longest.min(run_end - i)).rev() {
            let start = chars[i].0;
            let end = chars.get(i + len).map_or(text.len(), |&(b, _)| b);
            if let Some(words) = g.entries.get(&text[start..end]) {
                for w in words.split(' ') {
                    if out.len() < MAX_WORDS && !out.contains(&w) {
                        out.push(w);
                    }
                }
                matched = len;
                break;
            }
        }
        i += matched.max(1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_is_an_entry_or_a_comment() {
        let mut keys = std::collections::HashSet::new();
        for (n, line) in SOURCE.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let (key, words) = line
                .split_once('\t')
                .unwrap_or_else(|| panic!("line {}: no tab: {line:?}", n + 1));
            assert!(key.chars().all(is_cjk), "line {}: key {key:?}", n + 1);
            assert!(keys.insert(key), "line {}: duplicate key {key:?}", n + 1);
            assert!(
                words.split(' ').all(|w| !w.is_empty()
                    && w.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())),
                "line {}: words {words:?}",
                n + 1
            );
        }
        assert_eq!(keys.len(), len());
        assert!(len() > 500, "glossary has only {} entries", len());
    }

    #[test]
    fn longest_match_wins_and_unknown_characters_are_skipped() {
        // 環境変数 is one entry; its parts 環境 / 変数 would give other words first.
        let words = translate("環境変数を読み込む");
        assert_eq!(words.first(), Some(&"env"), "{words:?}");
        // Particles and inflections are skipped, ASCII is left to the code tokenizer.
        let words = translate("`foo()` のキャッシュを削除する");
        assert!(words.contains(&"cache"), "{words:?}");
        assert!(
            words.contains(&"delete") || words.contains(&"remove"),
            "{words:?}"
        );
        assert!(!words.contains(&"foo"));
    }

    #[test]
    fn words_are_distinct_and_bounded() {
        let words = translate("キャッシュキャッシュキャッシュ");
        assert_eq!(words.iter().filter(|w| **w == "cache").count(), 1);
        let long = "キャッシュ、ディレクトリ、ファイル、ユーザー、パスワード、".repeat(200);
        assert!(translate(&long).len() <= MAX_WORDS);
        assert!(translate("").is_empty());
        assert!(translate("no japanese here").is_empty());
    }
}
