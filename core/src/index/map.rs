//! The map (docs/DESIGN.md#map-forest): what earlier sessions established — learned pairs
//! (`.code-intel/learned_pairs.json`) and agreements (`.code-intel/agreements/*.md`), read by
//! [`code_intel_session::learned`] — as entries searched before the forest (the code): lexically, BM25 over
//! the entry texts (no model needed), and by vectors when the model is there ([`search_map`],
//! and [`super::semantic`]'s short-circuit).
//!
//! Expired entries (`auto_purge_days`, [`Expiry`]) are not loaded. An entry whose symbol is no
//! longer defined in the code index is *stale* ([`MapIndex::mark_stale`]): it is still listed
//! and searchable, flagged, but never offered as a fact (never strong, never short-circuits).
//!
//! Entry vectors are cached by text (an [`EmbeddingCache`] under
//! `.code-intel/index/embeddings/map/`), so only new or edited entries are embedded.
//!
//! # Lexical search
//! The map is a few dozen short texts, so its BM25 is computed here over in-memory term counts
//! rather than in a tantivy index: Okapi BM25 (Robertson & Zaragoza 2009, "The Probabilistic
//! Relevance Framework: BM25 and Beyond") with `k1 = 1.2`, `b = 0.75` and Lucene's IDF
//! `ln(1 + (N − n + 0.5) / (n + 0.5))`, over the terms of the code index's own analysers
//! ([`lexical::code_terms`]: identifiers whole and split; [`lexical::cjk_terms`]: CJK bigrams),
//! English stop words dropped. BM25 ranks; it is not a confidence. A lexical hit is *strong* when
//! the request contains the learned term — every term of the entry's `nl_term` occurs in the query
//! ([`MapSearchHit::term_coverage`] = 1), the exact-term rule of the cached pairs
//! (docs/DESIGN.md#cached-pairs) applied to words — or names the entry's symbol (a compound
//! identifier such as `AuthService` appears whole in the query).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::lexical::{self, NameMatch};
use super::semantic::{MAP_CONFIDENT_Z, MIN_BACKGROUND, Status};
use super::vector::SimilarityProfile;
use super::{CodeIndex, IndexError};
use crate::embed::{CacheError, EmbedError, Embedder, EmbeddingCache, split_identifiers};
use code_intel_session::learned::MapSource;
use code_intel_session::learned::{self, Expiry, MapItem, ReadError};
use code_intel_session::repo_path::RepoRoot;

/// Characters of an agreement's body kept in its entry text.
pub const AGREEMENT_TEXT_CHARS: usize = 1000;
/// BM25 `k1` (term-frequency saturation; the usual 1.2).
pub const BM25_K1: f32 = 1.2;
/// BM25 `b` (length normalisation; the usual 0.75).
pub const BM25_B: f32 = 0.75;
/// Map hits [`search_map`] returns by default.
pub const DEFAULT_MAP_RESULTS: usize = 5;
/// `k` of the reciprocal rank fusion of lexical and vector ranks (Cormack et al. 2009; the same
/// as [`super::hybrid::RRF_K`]).
const RRF_K: f32 = 60.0;

// English words skipped in queries: the lexical index's list.
use super::lexical::QUERY_STOP_WORDS as STOP_WORDS;

/// Errors reading, embedding or checking the map.
#[derive(Debug, thiserror::Error)]
pub enum MapError {
    /// `learned_pairs.json` or the agreements directory cannot be read.
    #[error(transparent)]
    Files(#[from] ReadError),
    /// The entry cache failed.
    #[error(transparent)]
    Cache(#[from] CacheError),
    /// Embedding entries failed.
    #[error(transparent)]
    Embed(#[from] EmbedError),
    /// The code index failed while checking symbols.
    #[error(transparent)]
    Index(#[from] IndexError),
}

/// One entry of the map: a [`MapItem`] as read from the files, with its staleness and the text
/// that is embedded and lexically indexed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MapEntry {
    /// The learned pair or agreement.
    #[serde(flatten)]
    pub item: MapItem,
    /// Its symbol is not defined in the code index any more: listed, never offered as a fact.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stale: bool,
    /// The embedded and lexically indexed text.
    #[serde(skip)]
    pub text: String,
}

/// Term statistics of one entry for BM25 and the strength rules.
#[derive(Debug, Default)]
struct LexDoc {
    tf: HashMap<String, u32>,
    len: u32,
    /// Distinct terms of the `nl_term` (stop words dropped).
    nl_terms: BTreeSet<String>,
    /// Whole forms of the compound identifiers in the symbol (`authservice`).
    symbol_words: BTreeSet<String>,
}

/// The map's lexical side.
#[derive(Debug, Default)]
struct Lexical {
    docs: Vec<LexDoc>,
    df: HashMap<String, u32>,
    avg_len: f32,
}

/// The map's entries, their term statistics and (with a model) their vectors.
#[derive(Debug, Default)]
pub struct MapIndex {
    entries: Vec<MapEntry>,
    /// Empty when loaded without a model.
    vectors: Vec<Vec<f32>>,
    model_id: Option<String>,
    lexical: Lexical,
    stale_checked: bool,
}

fn is_word_char(c: char) -> bool {
    c == '_' || (c.is_alphanumeric() && !lexical::is_cjk(c))
}

/// Terms of `text` for the map's BM25: identifier terms and CJK bigrams, stop words dropped.
fn terms(text: &str) -> Vec<String> {
    let mut out = lexical::code_terms(text);
    out.retain(|t| !STOP_WORDS.contains(&t.as_str()));
    out.extend(lexical::cjk_terms(text));
    out
}

/// Whole (lower-cased) forms of the words of `text`; with `compound_only`, only words that split
/// into parts (`AuthService`, `hash_password`), which name a symbol unambiguously.
fn whole_words(text: &str, compound_only: bool) -> BTreeSet<String> {
    text.split(|c: char| !is_word_char(c))
        .filter(|w| !w.is_empty())
        .filter_map(|w| {
            let t = lexical::code_terms(w);
            (!compound_only || t.len() > 1)
                .then(|| t.into_iter().next())
                .flatten()
        })
        .collect()
}

impl Lexical {
    fn build(entries: &[MapEntry]) -> Self {
        let mut lex = Lexical::default();
        for e in entries {
            let mut doc = LexDoc::default();
            for t in terms(&e.text) {
                *doc.tf.entry(t).or_default() += 1;
                doc.len += 1;
            }
            for t in doc.tf.keys() {
                *lex.df.entry(t.clone()).or_default() += 1;
            }
            doc.nl_terms = e
                .item
                .nl_term
                .as_deref()
                .map(terms)
                .unwrap_or_default()
                .into_iter()
                .collect();
            doc.symbol_words = e
                .item
                .symbol
                .as_deref()
                .map(|s| whole_words(s, true))
                .unwrap_or_default();
            lex.docs.push(doc);
        }
        let total: u32 = lex.docs.iter().map(|d| d.len).sum();
        lex.avg_len = if lex.docs.is_empty() {
            0.0
        } else {
            total as f32 / lex.docs.len() as f32
        };
        lex
    }

    /// BM25 of every entry for the query terms `q` (distinct).
    fn scores(&self, q: &BTreeSet<String>) -> Vec<f32> {
        let n = self.docs.len() as f32;
        self.docs
            .iter()
            .map(|d| {
                q.iter()
                    .filter_map(|t| {
                        let tf = *d.tf.get(t)? as f32;
                        let df = *self.df.get(t).unwrap_or(&0) as f32;
                        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                        let norm = 1.0 - BM25_B + BM25_B * d.len as f32 / self.avg_len.max(1.0);
                        Some(idf * tf * (BM25_K1 + 1.0) / (tf + BM25_K1 * norm))
                    })
                    .sum()
            })
            .collect()
    }
}

fn pair_text(nl_term: &str, symbol: &str, evidence: Option<&str>) -> String {
    let mut text = format!("{nl_term}\n{symbol} ({})", split_identifiers(symbol));
    if let Some(e) = evidence.filter(|e| !e.trim().is_empty()) {
        text.push('\n');
        text.push_str(e.trim());
    }
    text
}

fn cut(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

fn entry_of(item: MapItem) -> Option<MapEntry> {
    let text = match item.source {
        MapSource::LearnedPair => pair_text(
            item.nl_term.as_deref().unwrap_or_default(),
            item.symbol.as_deref().unwrap_or_default(),
            item.code_evidence.as_deref(),
        ),
        MapSource::Agreement => {
            let mut text = match (&item.nl_term, &item.symbol) {
                (Some(t), Some(s)) => pair_text(t, s, None),
                _ => String::new(),
            };
            let body = cut(item.body.trim(), AGREEMENT_TEXT_CHARS);
            if !body.is_empty() {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(body);
            }
            text
        }
    };
    if text.trim().is_empty() {
        return None;
    }
    Some(MapEntry {
        item,
        stale: false,
        text,
    })
}

/// Reads the map's entries that have not expired: every learned pair, then every agreement that
/// does not restate a pair (see [`learned::read_map`]).
///
/// # Errors
/// [`MapError::Files`] for a malformed `learned_pairs.json` or an unlistable agreements directory.
/// Unreadable single agreement files are skipped.
pub fn load_entries(root: &RepoRoot, expiry: &Expiry) -> Result<Vec<MapEntry>, MapError> {
    Ok(learned::read_map(&root.state_dir(), expiry)?
        .into_iter()
        .filter(|i| !i.expired)
        .filter_map(entry_of)
        .collect())
}

/// Cache key of an entry text: hex SHA-256 of `map-v1`, NUL, the text.
fn entry_key(text: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"map-v1\0");
    h.update(text.as_bytes());
    hex::encode(h.finalize())
}

/// Whether `symbol` is defined in `index` (an exact name or a qualified-name suffix, see
/// [`NameMatch::Exact`]); a trailing `()` is ignored. A lookup error counts as defined: staleness
/// is only claimed on evidence.
fn is_defined(index: &CodeIndex, symbol: &str) -> bool {
    let name = symbol.trim().trim_end_matches("()").trim();
    if name.is_empty() {
        return true;
    }
    index
        .definitions(name, NameMatch::Exact, None, None, 1)
        .map_or(true, |(_, total)| total > 0)
}

/// Whether a learned `symbol` is stale: `index` no longer defines it (see
/// [`MapIndex::mark_stale`]).
pub fn is_stale(index: &CodeIndex, symbol: &str) -> bool {
    !is_defined(index, symbol)
}

impl MapIndex {
    /// `<root>/.code-intel/index/embeddings/map`.
    pub fn cache_dir(root: &RepoRoot) -> PathBuf {
        root.state().map_embeddings()
    }

    /// Loads the map of `root` with the default expiry (30 days, `auto_purge_days`,
    /// docs/DESIGN.md#purge) and embeds its entries with `embedder` (see [`Self::load_with`]).
    ///
    /// # Errors
    /// [`MapError`] when the files are malformed, the cache fails or embedding fails.
    pub fn load(root: &RepoRoot, embedder: &dyn Embedder) -> Result<Self, MapError> {
        let days = code_intel_session::config::Config::default().auto_purge_days;
        Self::load_with(root, &Expiry::after_days(days), Some(embedder))
    }

    /// Loads the unexpired map of `root`; with `embedder`, embeds the entries too (new or edited
    /// ones only; the rest come from the cache, which is pruned to the current entries). Without
    /// one, only lexical search works.
    ///
    /// # Errors
    /// [`MapError`] when the files are malformed, the cache fails or embedding fails.
    pub fn load_with(
        root: &RepoRoot,
        expiry: &Expiry,
        embedder: Option<&dyn Embedder>,
    ) -> Result<Self, MapError> {
        let entries = load_entries(root, expiry)?;
        match embedder {
            Some(e) => Self::from_entries(&Self::cache_dir(root), entries, e),
            None => Ok(Self::lexical_only(entries)),
        }
    }

    /// A map of `entries` without vectors (lexical search only).
    pub fn lexical_only(entries: Vec<MapEntry>) -> Self {
        Self {
            lexical: Lexical::build(&entries),
            entries,
            ..Self::default()
        }
    }

    /// Embeds `entries` with `embedder`, through the entry cache in `cache_dir`.
    ///
    /// # Errors
    /// As [`Self::load`].
    pub fn from_entries(
        cache_dir: &Path,
        entries: Vec<MapEntry>,
        embedder: &dyn Embedder,
    ) -> Result<Self, MapError> {
        let mut map = Self::lexical_only(entries);
        map.model_id = Some(embedder.model_id().to_string());
        if map.entries.is_empty() {
            return Ok(map);
        }
        let mut cache = EmbeddingCache::open(cache_dir, embedder.model_id(), embedder.dims())?;
        let keys: Vec<String> = map.entries.iter().map(|e| entry_key(&e.text)).collect();
        let missing: Vec<usize> = (0..map.entries.len())
            .filter(|&i| !cache.contains(&keys[i]))
            .collect();
        if !missing.is_empty() {
            let texts: Vec<&str> = missing
                .iter()
                .map(|&i| map.entries[i].text.as_str())
                .collect();
            let vectors = embedder.embed_passages(&texts)?;
            cache.insert_many(missing.iter().map(|&i| keys[i].as_str()).zip(vectors))?;
            cache.retain(keys.iter().map(String::as_str))?;
        }
        map.vectors = keys
            .iter()
            .map(|k| cache.get(k).unwrap_or_default())
            .collect();
        Ok(map)
    }

    /// Marks the entries whose symbol `index` does not define as stale; returns how many are.
    /// Entries without a symbol are never stale.
    pub fn mark_stale(&mut self, index: &CodeIndex) -> usize {
        let mut known: HashMap<String, bool> = HashMap::new();
        for e in &mut self.entries {
            e.stale = match &e.item.symbol {
                Some(s) => !*known
                    .entry(s.clone())
                    .or_insert_with(|| is_defined(index, s)),
                None => false,
            };
        }
        self.stale_checked = true;
        self.entries.iter().filter(|e| e.stale).count()
    }

    /// Whether [`Self::mark_stale`] ran.
    pub fn stale_checked(&self) -> bool {
        self.stale_checked
    }

    /// The model whose vectors the map holds (`None`: lexical only).
    pub fn model_id(&self) -> Option<&str> {
        self.model_id.as_deref()
    }

    /// The entries, in file order.
    pub fn entries(&self) -> &[MapEntry] {
        &self.entries
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every entry with its cosine to `query` (a unit vector), best first; none without vectors.
    pub fn search(&self, query: &[f32]) -> Vec<(&MapEntry, f32)> {
        let mut out: Vec<(&MapEntry, f32)> = self
            .entries
            .iter()
            .zip(&self.vectors)
            .filter(|(_, v)| v.len() == query.len())
            .map(|(e, v)| (e, super::vector::dot(query, v)))
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1));
        out
    }
}

/// How [`search_map`] ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MapMode {
    /// BM25 only (no model).
    Lexical,
    /// BM25 and vectors, fused by reciprocal rank.
    Hybrid,
}

/// One hit of [`search_map`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MapSearchHit {
    /// The entry.
    #[serde(flatten)]
    pub entry: MapEntry,
    /// BM25 of the query against the entry text (≥ 0; 0 = no shared term).
    pub bm25: f32,
    /// Share of the entry's `nl_term` terms found in the query, in [0, 1]; `None` without a term.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub term_coverage: Option<f32>,
    /// Whether the query names the entry's symbol (a compound identifier of it, whole).
    pub symbol_named: bool,
    /// Cosine of query and entry vectors (hybrid mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cosine: Option<f32>,
    /// That cosine as a z-score against the query's cosines to the code (hybrid mode with
    /// embedded code).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub z: Option<f32>,
    /// Whether it is offered as a fact: not stale, and lexically strong or vector-confident (see
    /// the module docs and [`MAP_CONFIDENT_Z`]).
    pub strong: bool,
    /// Why it is strong, or why not although it matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// The answer of [`search_map`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MapSearchResult {
    /// The query.
    pub query: String,
    /// How the hits were ranked.
    pub mode: MapMode,
    /// `PREVIOUS_SUCCESS` when the first hit is strong, `HYPOTHESIS` for weaker hits,
    /// `NO_MATCH` for none.
    pub status: Status,
    /// Hits, strong ones first, then by rank.
    pub hits: Vec<MapSearchHit>,
    /// Entries in the map.
    pub map_entries: usize,
    /// What the result means.
    pub message: String,
    /// Remarks (no model, staleness unchecked, empty map).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The query's vector and its similarity profile over the code (hybrid map search).
#[derive(Debug, Clone, Copy)]
pub struct QueryVector<'a> {
    /// The query embedded with the map's model (a unit vector).
    pub vector: &'a [f32],
    /// The query's cosines to the embedded chunks (n = 0: none).
    pub background: SimilarityProfile,
}

/// 1-based rank of each score among those `keep` accepts, best first (`None`: not ranked).
fn ranks(scores: &[f32], keep: impl Fn(f32) -> bool) -> Vec<Option<usize>> {
    let mut order: Vec<usize> = (0..scores.len()).filter(|&i| keep(scores[i])).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let mut out = vec![None; scores.len()];
    for (r, i) in order.into_iter().enumerate() {
        out[i] = Some(r + 1);
    }
    out
}

/// Searches the map for `query`: lexically, and with `vector` by vectors too (fused by
/// reciprocal rank); at most `n_results` hits, strong ones first (see the module docs).
pub fn search_map(
    map: &MapIndex,
    query: &str,
    vector: Option<QueryVector<'_>>,
    n_results: usize,
) -> MapSearchResult {
    let q_terms: BTreeSet<String> = terms(query).into_iter().collect();
    let q_words = whole_words(query, false);
    let bm25 = map.lexical.scores(&q_terms);
    let cosines: Option<Vec<f32>> = vector.map(|v| {
        (0..map.entries.len())
            .map(|i| match map.vectors.get(i) {
                Some(e) if e.len() == v.vector.len() => super::vector::dot(v.vector, e),
                _ => f32::NAN,
            })
            .collect()
    });
    let hybrid = cosines.is_some() && !map.vectors.is_empty();
    let lex_rank = ranks(&bm25, |s| s > 0.0);
    let vec_rank = match &cosines {
        Some(c) if hybrid => ranks(c, f32::is_finite),
        _ => vec![None; map.entries.len()],
    };
    let background = vector.map(|v| v.background).unwrap_or_default();
    let mut hits: Vec<(f32, MapSearchHit)> = Vec::new();
    for (i, entry) in map.entries.iter().enumerate() {
        let (lr, vr) = (lex_rank[i], vec_rank[i]);
        if lr.is_none() && vr.is_none() {
            continue;
        }
        let fused = [lr, vr]
            .iter()
            .flatten()
            .map(|r| 1.0 / (RRF_K + *r as f32))
            .sum::<f32>();
        let doc = &map.lexical.docs[i];
        let term_coverage = (!doc.nl_terms.is_empty()).then(|| {
            doc.nl_terms.iter().filter(|t| q_terms.contains(*t)).count() as f32
                / doc.nl_terms.len() as f32
        });
        let symbol_named = doc.symbol_words.iter().any(|w| q_words.contains(w));
        let cosine = cosines
            .as_ref()
            .map(|c| c[i])
            .filter(|c| hybrid && c.is_finite());
        let z = cosine.filter(|_| background.n > 0).map(|c| background.z(c));
        let confident = background.n >= MIN_BACKGROUND && z.is_some_and(|z| z >= MAP_CONFIDENT_Z);
        let term_full = term_coverage.is_some_and(|c| c >= 1.0);
        let reason = if term_full {
            entry
                .item
                .nl_term
                .as_ref()
                .map(|t| format!("the query contains the learned term \"{t}\""))
        } else if symbol_named {
            entry
                .item
                .symbol
                .as_ref()
                .map(|s| format!("the query names the symbol {s}"))
        } else if confident {
            Some(format!(
                "calibrated z {:.1} >= {MAP_CONFIDENT_Z}",
                z.unwrap_or_default()
            ))
        } else {
            None
        };
        let strong = !entry.stale && reason.is_some();
        let why = if entry.stale {
            Some(format!(
                "stale: {} is no longer defined in the code index",
                entry.item.symbol.as_deref().unwrap_or("the symbol")
            ))
        } else {
            reason
        };
        hits.push((
            fused,
            MapSearchHit {
                entry: entry.clone(),
                bm25: bm25[i],
                term_coverage,
                symbol_named,
                cosine,
                z,
                strong,
                why,
            },
        ));
    }
    hits.sort_by(|(fa, a), (fb, b)| b.strong.cmp(&a.strong).then(fb.total_cmp(fa)));
    let hits: Vec<MapSearchHit> = hits.into_iter().take(n_results).map(|(_, h)| h).collect();
    let mut notes = Vec::new();
    if map.is_empty() {
        notes.push("the map is empty: no learned pairs or agreements yet (record_outcome(success) after a session with confirmed symbols, or add_agreement)".into());
    }
    if !hybrid {
        notes.push("lexical search only (no embedding model): a hit is strong when the query contains its learned term or names its symbol".into());
    } else if background.n < MIN_BACKGROUND {
        notes.push(format!(
            "only {} chunks are embedded (fewer than {MIN_BACKGROUND}): vector similarity cannot be calibrated, only the lexical rules make a hit strong",
            background.n
        ));
    }
    if !map.stale_checked() && !map.is_empty() {
        notes.push("symbols were not checked against the code index (not built yet): verify them before relying on them".into());
    }
    let (status, message) = match hits.first() {
        None => (
            Status::NoMatch,
            "The map has nothing for this query: explore the code.".to_string(),
        ),
        Some(h) if h.strong => (
            Status::PreviousSuccess,
            format!(
                "Past success found: {}. Verify it with find_definitions / find_references before relying on it.",
                hits.iter()
                    .filter(|h| h.strong)
                    .map(|h| match (&h.entry.item.nl_term, &h.entry.item.symbol) {
                        (Some(t), Some(s)) => format!("\"{t}\" → {s}"),
                        _ => h.entry.item.agreement_file.clone().unwrap_or_default(),
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ),
        Some(_) => (
            Status::Hypothesis,
            "No map entry is strongly related; the hits are hints only. Explore the code to confirm.".to_string(),
        ),
    };
    MapSearchResult {
        query: query.to_string(),
        mode: if hybrid {
            MapMode::Hybrid
        } else {
            MapMode::Lexical
        },
        status,
        hits,
        map_entries: map.len(),
        message,
        notes,
    }
}

pub mod curate;

#[cfg(test)]
mod tests;
