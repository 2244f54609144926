//! Hybrid ranking (docs/DESIGN.md#hybrid): BM25 and vector similarity plus two extra signals (the
//! chunk defines a symbol the query names; how often the chunk's symbol is referenced), fused by
//! weighted normalised scores or by reciprocal rank fusion, with a per-hit explanation of every
//! part (the idea of tantivy's `Explanation`).
//!
//! # Signals of one candidate, and how each is normalised into [0, 1]
//! | signal | raw value | normalised (weighted fusion) | rank (RRF) |
//! |---|---|---|---|
//! | `keyword` | BM25 with field boosts ([`super::CodeIndex::search`]) | `bm25 / max bm25` of the candidates | by BM25 |
//! | `vector` | cosine of query and chunk vectors | `(cos − μ) / (max cos − μ)`, clamped; μ = the query's mean cosine over the index ([`SimilarityProfile`]) | by cosine |
//! | `definition` | the chunk defines a symbol the query names ([`defines`]) | 1 or 0 | 1 when true |
//! | `reference` | chunks whose content holds the symbol's name, minus its own | `min(refs / 20, 1)` (the Python-era scoring engine's) | by refs |
//!
//! A signal a candidate lacks (not in the BM25 top, not embedded yet) counts 0 (weighted) or is
//! absent from its list (RRF). Candidates are the union of the BM25 top [`CANDIDATES`] and the
//! vector top [`CANDIDATES`]; every BM25 candidate whose chunk is embedded gets its cosine too.
//!
//! # Fusion
//! - [`Fusion::Weighted`]: `Σ wᵢ·sᵢ / Σ wᵢ` over the four signals (weights from
//!   `search_weights`): in [0, 1] and non-decreasing in every normalised part.
//! - [`Fusion::Rrf`]: reciprocal rank fusion (Cormack, Clarke & Büttcher 2009, "Reciprocal Rank
//!   Fusion outperforms Condorcet and individual Rank Learning Methods"), `Σ wᵢ / (k + rankᵢ)` with
//!   `k` = [`RRF_K`] = 60 as in the paper, divided by its maximum `Σ wᵢ / (k + 1)`: in [0, 1] and
//!   non-increasing in every rank.
//!
//! Which one is the default, and the default weights, come from the evaluation in
//! docs/EVALUATION.md ([`Fusion::DEFAULT`]).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::chunk::ChunkKind;
use super::rank::{self, FoldedChunk, RankParams};
use super::vector::{Coverage, SimilarityProfile, VectorIndex};
use super::{CodeIndex, IndexError, SearchHit};
use code_intel_session::config::{Config, SearchWeights};

/// Candidates taken from each ranked list (BM25, vector) before fusion.
pub const CANDIDATES: usize = 50;
/// The `k` of reciprocal rank fusion (Cormack et al. 2009 use 60).
pub const RRF_K: f32 = 60.0;
/// References at which the reference signal saturates (`min(reference_count / 20, 1)`, the
/// Python-era scoring engine's; docs/DESIGN.md#hybrid).
pub const REFERENCE_SATURATION: f32 = 20.0;

/// Which scores rank the hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SearchMode {
    /// BM25 only.
    Lexical,
    /// Vector similarity only.
    Vector,
    /// All signals, fused.
    Hybrid,
    /// Per request ([`Self::resolve`]): hybrid where the vectors lead ([`vectors_lead`]: a
    /// question, or a request written in a script code identifiers are not), lexical otherwise.
    /// The default: on the kit's change requests the vectors add at most +0.014 R@10 (below the
    /// +0.03 that would pay for them) and on held-out repositories they cost; on its Japanese
    /// requests and on questions about behaviour they add (docs/EVALUATION.md, "Where the
    /// vectors pay").
    Auto,
}

impl SearchMode {
    /// The name (`lexical`, `vector`, `hybrid`, `auto`).
    pub fn name(self) -> &'static str {
        match self {
            SearchMode::Lexical => "lexical",
            SearchMode::Vector => "vector",
            SearchMode::Hybrid => "hybrid",
            SearchMode::Auto => "auto",
        }
    }

    /// Parses a name of [`Self::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        [
            SearchMode::Lexical,
            SearchMode::Vector,
            SearchMode::Hybrid,
            SearchMode::Auto,
        ]
        .into_iter()
        .find(|m| m.name() == name.trim())
    }

    /// The mode `query` is searched in: [`SearchMode::Auto`] becomes [`SearchMode::Hybrid`] where
    /// the vectors lead ([`vectors_lead`]) and [`SearchMode::Lexical`] otherwise; the other
    /// modes stay.
    pub fn resolve(self, query: &str) -> SearchMode {
        match self {
            SearchMode::Auto if vectors_lead(query) => SearchMode::Hybrid,
            SearchMode::Auto => SearchMode::Lexical,
            m => m,
        }
    }
}

/// Whether the vectors lead the ranking of `query`: it asks a question about behaviour
/// ([`is_question`]) or carries little lexical evidence ([`lacks_lexical_evidence`]). Such a
/// request is searched in hybrid by [`SearchMode::Auto`], and its files show the chunk the fused
/// score chose; a change request's files show the chunk the lexical rules choose.
pub fn vectors_lead(query: &str) -> bool {
    is_question(query) || lacks_lexical_evidence(query)
}

/// Whether `query` is a question (one line that ends with `?`, or starts with an English
/// question word: how, where, what, which, why, who, whose), not a change request ("Fix …",
/// "Do not retry …", "When … , …"). Long pasted texts (several lines) are not questions.
pub fn is_question(query: &str) -> bool {
    const WORDS: &[&str] = &["how", "where", "what", "which", "why", "who", "whose"];
    let q = query.trim();
    if q.is_empty() || q.lines().count() > 1 {
        return false;
    }
    let first = q
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .find(|w| !w.is_empty())
        .unwrap_or("")
        .to_lowercase();
    q.ends_with('?') || WORDS.contains(&first.as_str())
}

/// Whether `query` is written (at least a quarter of its letters) in a script that code
/// identifiers are not: CJK ideographs, kana, Hangul. Its words reach the BM25 index only through
/// the glossary's translations and the identifiers it quotes, so the vectors (multilingual-e5)
/// carry the rest. A Latin-script request in any language is lexical.
pub fn lacks_lexical_evidence(query: &str) -> bool {
    let (mut letters, mut foreign) = (0usize, 0usize);
    for c in query.chars().filter(|c| c.is_alphabetic()) {
        letters += 1;
        if matches!(c as u32,
            0x3040..=0x30FF // hiragana, katakana
            | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF // CJK ideographs
            | 0x20000..=0x2FA1F
            | 0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF // Hangul
            | 0xFF66..=0xFF9F)
        // half-width katakana
        {
            foreign += 1;
        }
    }
    foreign > 0 && foreign * 4 >= letters
}

/// How the signals are combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fusion {
    /// Weighted mean of the normalised signals.
    Weighted,
    /// Weighted reciprocal rank fusion.
    Rrf,
}

impl Fusion {
    /// The default, chosen by the evaluation of docs/EVALUATION.md ("Fusion and weights"): at
    /// their best weights the two fusions tie (MRR@10 0.795 weighted, 0.792 RRF, paired
    /// difference within ±0.04), and the weighted score's parts are the normalised signals
    /// themselves, which keeps the explanation direct.
    pub const DEFAULT: Fusion = Fusion::Weighted;

    /// The name (`weighted`, `rrf`).
    pub fn name(self) -> &'static str {
        match self {
            Fusion::Weighted => "weighted",
            Fusion::Rrf => "rrf",
        }
    }

    /// Parses a name of [`Self::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        [Fusion::Weighted, Fusion::Rrf]
            .into_iter()
            .find(|m| m.name() == name.trim())
    }
}

/// One of the fused signals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Signal {
    /// BM25.
    Keyword,
    /// Vector cosine.
    Vector,
    /// The chunk defines a symbol the query names.
    Definition,
    /// How often the chunk's symbol is referenced.
    Reference,
}

/// Fusion weights, each ≥ 0 (negative ones count as 0). From `search_weights`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Weights {
    /// Vector similarity.
    pub vector: f32,
    /// BM25.
    pub keyword: f32,
    /// Definition found.
    pub definition: f32,
    /// Reference count.
    pub reference: f32,
}

impl From<&SearchWeights> for Weights {
    fn from(w: &SearchWeights) -> Self {
        Self {
            vector: w.vector as f32,
            keyword: w.keyword as f32,
            definition: w.definition as f32,
            reference: w.reference as f32,
        }
    }
}

impl Weights {
    fn of(&self, s: Signal) -> f32 {
        let w = match s {
            Signal::Keyword => self.keyword,
            Signal::Vector => self.vector,
            Signal::Definition => self.definition,
            Signal::Reference => self.reference,
        };
        if w.is_finite() { w.max(0.0) } else { 0.0 }
    }
}

/// The raw signals of one candidate.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Signals {
    /// BM25 score, when the chunk is in the BM25 candidates.
    pub bm25: Option<f32>,
    /// Cosine to the query, when the chunk is embedded.
    pub cosine: Option<f32>,
    /// Whether the chunk defines a symbol the query names.
    pub definition: bool,
    /// Chunks referencing the chunk's symbol (by name).
    pub references: u32,
}

/// One signal's share of a fused score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Part {
    /// The signal.
    pub signal: Signal,
    /// Raw value: BM25, cosine, 1/0 for definition, reference count; `None` when the candidate
    /// lacks it.
    pub raw: Option<f32>,
    /// Normalised value in [0, 1] (weighted fusion), 0 when missing.
    pub normalized: f32,
    /// 1-based rank in the signal's list (RRF), when in it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<usize>,
    /// The signal's weight.
    pub weight: f32,
    /// What it added to the fused score (already divided by the normaliser).
    pub contribution: f32,
}

/// Why a hit scored what it did: the fused score in [0, 1] and each part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Explanation {
    /// The fusion used.
    pub fusion: Fusion,
    /// The fused score, in [0, 1]; the sum of the parts' contributions.
    pub score: f32,
    /// One part per signal with a non-zero weight.
    pub parts: Vec<Part>,
    /// For a long request ([`request`](super::request)): which parts of the request the hit's
    /// file matched (a frame's file, an exception, code, prose...), most telling first; absent
    /// for a short request.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub request: Vec<super::request::MatchedPart>,
}

/// Fuses the signals of `candidates` (see the module docs). `mean_cosine` is the query's mean
/// cosine over the index (μ of [`SimilarityProfile`]). Returns one explanation per candidate, in
/// input order.
pub fn fuse(
    candidates: &[Signals],
    weights: &Weights,
    fusion: Fusion,
    mean_cosine: f32,
) -> Vec<Explanation> {
    let max_bm25 = candidates
        .iter()
        .filter_map(|c| c.bm25)
        .fold(0.0f32, f32::max);
    let max_cos = candidates
        .iter()
        .filter_map(|c| c.cosine)
        .fold(f32::NEG_INFINITY, f32::max);
    let ranks = Ranks::of(candidates);
    let signals = [
        Signal::Keyword,
        Signal::Vector,
        Signal::Definition,
        Signal::Reference,
    ];
    let total_weight: f32 = signals.iter().map(|&s| weights.of(s)).sum();
    candidates
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut parts = Vec::new();
            for s in signals {
                let weight = weights.of(s);
                if weight == 0.0 {
                    continue;
                }
                let (raw, normalized) = match s {
                    Signal::Keyword => {
                        (c.bm25, c.bm25.map_or(0.0, |b| ratio(b.max(0.0), max_bm25)))
                    }
                    Signal::Vector => (
                        c.cosine,
                        c.cosine
                            .map_or(0.0, |x| ratio(x - mean_cosine, max_cos - mean_cosine)),
                    ),
                    Signal::Definition => (
                        Some(if c.definition { 1.0 } else { 0.0 }),
                        if c.definition { 1.0 } else { 0.0 },
                    ),
                    Signal::Reference => (
                        Some(c.references as f32),
                        (c.references as f32 / REFERENCE_SATURATION).min(1.0),
                    ),
                };
                let rank = ranks.rank(s, i);
                let contribution = match fusion {
                    Fusion::Weighted => weight * normalized / total_weight,
                    Fusion::Rrf => rank.map_or(0.0, |r| {
                        (weight / (RRF_K + r as f32)) / (total_weight / (RRF_K + 1.0))
                    }),
                };
                parts.push(Part {
                    signal: s,
                    raw,
                    normalized,
                    rank,
                    weight,
                    contribution,
                });
            }
            let score = parts
                .iter()
                .map(|p| p.contribution)
                .sum::<f32>()
                .clamp(0.0, 1.0);
            Explanation {
                fusion,
                score,
                parts,
                request: Vec::new(),
            }
        })
        .collect()
}

/// `x / max` clamped to [0, 1]; 0 when `max` is not positive.
fn ratio(x: f32, max: f32) -> f32 {
    if max > 0.0 && x.is_finite() {
        (x / max).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// 1-based ranks of the candidates in each signal's list (ties share the best rank).
struct Ranks {
    keyword: Vec<Option<usize>>,
    vector: Vec<Option<usize>>,
    definition: Vec<Option<usize>>,
    reference: Vec<Option<usize>>,
}

impl Ranks {
    fn of(c: &[Signals]) -> Self {
        Self {
            keyword: rank_by(c, |s| s.bm25),
            vector: rank_by(c, |s| s.cosine),
            definition: rank_by(c, |s| s.definition.then_some(1.0)),
            reference: rank_by(c, |s| (s.references > 0).then_some(s.references as f32)),
        }
    }

    fn rank(&self, s: Signal, i: usize) -> Option<usize> {
        match s {
            Signal::Keyword => self.keyword[i],
            Signal::Vector => self.vector[i],
            Signal::Definition => self.definition[i],
            Signal::Reference => self.reference[i],
        }
    }
}

/// Ranks by `key` descending among the candidates that have one; equal keys share a rank.
fn rank_by(c: &[Signals], key: impl Fn(&Signals) -> Option<f32>) -> Vec<Option<usize>> {
    let mut keyed: Vec<(usize, f32)> = c
        .iter()
        .enumerate()
        .filter_map(|(i, s)| key(s).filter(|k| k.is_finite()).map(|k| (i, k)))
        .collect();
    keyed.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut out = vec![None; c.len()];
    let mut rank = 0;
    let mut prev: Option<f32> = None;
    for (pos, (i, k)) in keyed.into_iter().enumerate() {
        if prev != Some(k) {
            rank = pos + 1;
            prev = Some(k);
        }
        out[i] = Some(rank);
    }
    out
}

// English words skipped in queries: the lexical index's list.
use super::lexical::QUERY_STOP_WORDS as STOP_WORDS;

/// The words of a query as a symbol matcher sees them: the lower-cased whole identifiers, and
/// the sequence of their lower-cased parts (camel/snake/kebab split), stop words dropped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryNames {
    /// Whole words (`bcrypthasher`, `send_file`).
    pub words: Vec<String>,
    /// Their parts, in order (`bcrypt`, `hasher`, `send`, `file`).
    pub parts: Vec<String>,
}

impl QueryNames {
    /// Analyses `query` (see the type docs).
    pub fn of(query: &str) -> Self {
        let mut out = Self::default();
        for word in query.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            let terms = super::lexical::code_terms(word);
            let Some(whole) = terms.first() else { continue };
            if STOP_WORDS.contains(&whole.as_str()) {
                continue;
            }
            out.words.push(whole.clone());
            if terms.len() == 1 {
                out.parts.push(whole.clone());
            } else {
                out.parts.extend(terms[1..].iter().cloned());
            }
        }
        out
    }
}

/// Whether a chunk of `kind` named `symbol` is a definition of a symbol the query names: not a
/// module or window chunk, a name of at least 3 characters, and either the whole name is a query
/// word (case-insensitive) or the name has several parts that occur consecutively among the
/// query's parts (`send_file` for "send a file").
pub fn defines(symbol: &str, kind: ChunkKind, names: &QueryNames) -> bool {
    // A route is named by its route name, not a symbol the code defines.
    if matches!(
        kind,
        ChunkKind::Module | ChunkKind::Window | ChunkKind::Route
    ) || symbol.chars().count() < 3
    {
        return false;
    }
    let terms = super::lexical::code_terms(symbol);
    let Some(whole) = terms.first() else {
        return false;
    };
    if names.words.iter().any(|w| w == whole) {
        return true;
    }
    let parts = &terms[1.min(terms.len())..];
    parts.len() >= 2 && names.parts.windows(parts.len()).any(|w| w == parts)
}

/// One ranked hit with the explanation of its score. `hit.score` is the fused score in [0, 1]
/// (`explanation.score`), except in [`SearchMode::Lexical`], where it stays the raw BM25 score as
/// [`CodeIndex::search`] reports it (the explanation holds it normalised by the best hit's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HybridHit {
    /// The file's best chunk; its `score` is the file's score (see [`super::rank`]).
    #[serde(flatten)]
    pub hit: SearchHit,
    /// How the best chunk's score came about (before the file's other chunks were added).
    pub explanation: Explanation,
    /// Other matching chunks of the same file, best first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<FoldedChunk>,
}

/// The answer of [`search`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HybridResults {
    /// The mode that ranked the hits (a requested vector or hybrid search without vectors falls
    /// back to lexical, with a note).
    pub mode: SearchMode,
    /// The fusion used (hybrid mode).
    pub fusion: Fusion,
    /// Hits, best first.
    pub hits: Vec<HybridHit>,
    /// Vector coverage, when a vector index was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Coverage>,
    /// The query's similarity profile over the vectors, when searched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<SimilarityProfile>,
    /// Remarks for the reader: fallbacks, partial coverage.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// What [`search`] needs besides the lexical index.
#[derive(Debug, Clone, Copy)]
pub struct SearchOptions {
    /// Requested mode.
    pub mode: SearchMode,
    /// Fusion of hybrid mode.
    pub fusion: Fusion,
    /// Fusion weights.
    pub weights: Weights,
    /// Candidates per list.
    pub candidates: usize,
}

/// `search_fusion` in the config names no [`Fusion`], or `search_mode` no [`SearchMode`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {key} {name:?} in .code-intel/config.json; use {allowed}")]
pub struct UnknownSearchSetting {
    /// The config key (`search_fusion` or `search_mode`).
    pub key: &'static str,
    /// The configured name.
    pub name: String,
    /// The names it takes.
    pub allowed: &'static str,
}

impl SearchOptions {
    /// Hybrid search with the default fusion and the config's weights.
    pub fn hybrid(weights: &SearchWeights) -> Self {
        Self {
            mode: SearchMode::Hybrid,
            fusion: Fusion::DEFAULT,
            weights: weights.into(),
            candidates: CANDIDATES,
        }
    }

    /// Ranked search as the config asks: its `search_mode` (default `auto`), `search_fusion` and
    /// `search_weights`.
    ///
    /// # Errors
    /// [`UnknownSearchSetting`] when `search_fusion` is neither `weighted` nor `rrf`, or
    /// `search_mode` none of `auto`, `lexical`, `hybrid`, `vector`.
    pub fn configured(config: &Config) -> Result<Self, UnknownSearchSetting> {
        let fusion =
            Fusion::from_name(&config.search_fusion).ok_or_else(|| UnknownSearchSetting {
                key: "search_fusion",
                name: config.search_fusion.clone(),
                allowed: "weighted or rrf",
            })?;
        let mode =
            SearchMode::from_name(&config.search_mode).ok_or_else(|| UnknownSearchSetting {
                key: "search_mode",
                name: config.search_mode.clone(),
                allowed: "auto, lexical, hybrid or vector",
            })?;
        Ok(Self {
            mode,
            fusion,
            ..Self::hybrid(&config.search_weights)
        })
    }
}

/// Ranked search over chunks by `opts.mode`: BM25, vectors (`vectors` with the embedded query
/// `query_vector`, a unit vector of the index's dimensions), or both fused (see the module docs).
/// At most `top` hits, best first. A vector or hybrid request without vectors (none given, or none
/// embedded yet) is answered lexically, with a note.
///
/// # Errors
/// [`IndexError`] when the lexical index fails.
pub fn search(
    index: &CodeIndex,
    vectors: Option<&VectorIndex>,
    query_vector: Option<&[f32]>,
    query: &str,
    top: usize,
    opts: &SearchOptions,
) -> Result<HybridResults, IndexError> {
    search_ranked(
        index,
        vectors,
        query_vector,
        query,
        top,
        opts,
        &RankParams::default(),
    )
}

/// [`search`] with explicit lexical ranking parameters (field boosts, word weights, role factors,
/// file coherence; see [`super::rank`]). Hits are distinct files: the fused chunk scores
/// are grouped by file with [`rank::group_files`].
///
/// # Errors
/// [`IndexError`] when the lexical index fails.
pub fn search_ranked(
    index: &CodeIndex,
    vectors: Option<&VectorIndex>,
    query_vector: Option<&[f32]>,
    query: &str,
    top: usize,
    opts: &SearchOptions,
    rank_params: &RankParams,
) -> Result<HybridResults, IndexError> {
    search_ranked_from(
        index,
        vectors,
        query_vector,
        None,
        query,
        top,
        opts,
        rank_params,
    )
}

/// The BM25 candidates of a ranked search, found before the query vector is known (see
/// [`lexical_candidates`]): hits read from fast fields, their stored documents not yet read.
pub struct LexicalCandidates {
    found: super::Candidates,
    symbol: bool,
    /// What fusion will look up for these candidates, looked up while the query embeds
    /// ([`embed_while_searching`]); `None` when searched without a vector index.
    prepared: Option<Prepared>,
}

/// Lookups of the BM25 candidates that need no query vector, done on the keyword search's
/// thread while the query embeds ([`embed_while_searching`]), off the critical path: each
/// candidate's vector slot (the row lookup of [`VectorIndex::cosine_at`], which leaves one dot
/// product to do once the vector is known) and each candidate file's chunk count (the size
/// prior of [`rank::group_files`]). Same values as looking them up after the embedding.
struct Prepared {
    /// The vector slot of `found.hits[i]`, when its text is embedded.
    slots: Vec<Option<usize>>,
    /// Chunks in the index of each candidate file (as [`CodeIndex::file_chunk_counter`]).
    file_chunks: HashMap<String, u64>,
}

impl Prepared {
    fn of(index: &CodeIndex, vectors: &VectorIndex, found: &super::Candidates) -> Self {
        let slots = found
            .hits
            .iter()
            .map(|h| vectors.slot_at(&h.file, h.start_line, &h.sha256))
            .collect();
        let counter = index.file_chunk_counter();
        let mut file_chunks = HashMap::new();
        for h in &found.hits {
            if !file_chunks.contains_key(&h.file) {
                file_chunks.insert(h.file.clone(), counter(&h.file));
            }
        }
        Self { slots, file_chunks }
    }
}

/// The BM25 candidates [`search_ranked`] fuses, for a search with `opts` (none for
/// [`SearchMode::Vector`]): a caller that must embed the query first can search them on
/// another thread meanwhile and pass them to [`search_ranked_from`].
///
/// # Errors
/// [`IndexError`] when the lexical index fails.
pub fn lexical_candidates(
    index: &CodeIndex,
    query: &str,
    top: usize,
    opts: &SearchOptions,
    rank_params: &RankParams,
) -> Result<Option<LexicalCandidates>, IndexError> {
    if opts.mode == SearchMode::Vector {
        return Ok(None);
    }
    candidates_for(index, query, top, opts, rank_params, opts.mode).map(Some)
}

/// Runs `embed` on this thread while a second thread searches the BM25 candidates of `query`
/// ([`lexical_candidates`] with the same arguments), so that the query embedding and the
/// keyword search overlap on two cores; `search` false skips the search. With `vectors`, that
/// thread also looks up what fusion needs of the candidates without the query vector (their
/// vector slots, their files' chunk counts), which [`search_ranked_from`] then reads instead of
/// looking them up after the embedding. The search's result is `None` when it was skipped or
/// its thread panicked ([`search_ranked_from`] with `None` searches again).
#[allow(clippy::too_many_arguments)]
pub fn embed_while_searching<R>(
    index: &CodeIndex,
    vectors: Option<&VectorIndex>,
    query: &str,
    top: usize,
    opts: &SearchOptions,
    rank_params: &RankParams,
    search: bool,
    embed: impl FnOnce() -> R,
) -> (R, Option<Result<Option<LexicalCandidates>, IndexError>>) {
    std::thread::scope(|s| {
        let searching = search.then(|| {
            s.spawn(|| {
                let mut found = lexical_candidates(index, query, top, opts, rank_params)?;
                if let (Some(l), Some(v)) = (found.as_mut(), vectors)
                    && v.live_vectors() > 0
                {
                    l.prepared = Some(Prepared::of(index, v, &l.found));
                }
                Ok(found)
            })
        });
        let embedded = embed();
        (embedded, searching.and_then(|h| h.join().ok()))
    })
}

fn candidates_for(
    index: &CodeIndex,
    query: &str,
    top: usize,
    opts: &SearchOptions,
    rank_params: &RankParams,
    mode: SearchMode,
) -> Result<LexicalCandidates, IndexError> {
    let symbol = needs_symbol(opts, mode, query, rank_params);
    let with = super::lexical::ColumnSet {
        symbol,
        sha256: true,
    };
    let n = rank_params.candidates.max(opts.candidates.max(top));
    Ok(LexicalCandidates {
        found: index.search_candidates(query, n, rank_params, with)?,
        symbol,
        prepared: None,
    })
}

/// A hybrid file group with its representative re-chosen by [`rank::group_files`]' rules over
/// the chunks' BM25 scores (vector-only chunks count 0), when one of its chunks has a BM25 match;
/// the file's score and the chunks' fused scores stay. Vectors find the file; the words the
/// request shares with the code say which chunk of it (issue 37 item 4: the best-matching
/// function, not the doc comment, window or module the vectors liked).
fn lexical_representative(
    g: rank::Grouped<HybridHit>,
    file_chunks: &impl Fn(&str) -> u64,
    named: &[String],
    params: &RankParams,
) -> rank::Grouped<HybridHit> {
    fn bm25(h: &HybridHit) -> f32 {
        h.explanation
            .parts
            .iter()
            .find(|p| p.signal == Signal::Keyword)
            .and_then(|p| p.raw)
            .unwrap_or(0.0)
    }
    if std::iter::once(&g.best)
        .chain(g.rest.iter().map(|(h, _)| h))
        .all(|h| bm25(h) <= 0.0)
    {
        return g;
    }
    let rank::Grouped { score, best, rest } = g;
    let key = |h: &HybridHit| (h.hit.start_line, h.hit.end_line, h.hit.sha256.clone());
    let mut fused: HashMap<(u32, u32, String), f32> =
        rest.iter().map(|(h, s)| (key(h), *s)).collect();
    fused.insert(key(&best), best.explanation.score);
    let items: Vec<HybridHit> = std::iter::once(best)
        .chain(rest.into_iter().map(|(h, _)| h))
        .collect();
    let Some(regrouped) = rank::group_files(
        items,
        |h| {
            let mut v = h.hit.rank_view_scored(bm25(h));
            v.named = !h.hit.symbol.is_empty() && named.contains(&h.hit.symbol);
            v
        },
        |f| file_chunks(f),
        params,
        1,
    )
    .pop() else {
        unreachable!("one file's items group into one file")
    };
    let fused_of = |h: &HybridHit| fused.get(&key(h)).copied().unwrap_or(0.0);
    let mut rest: Vec<(HybridHit, f32)> = regrouped
        .rest
        .into_iter()
        .map(|(h, _)| {
            let s = fused_of(&h);
            (h, s)
        })
        .collect();
    rest.sort_by(|a, b| b.1.total_cmp(&a.1));
    rank::Grouped {
        score,
        best: regrouped.best,
        rest,
    }
}

/// Whether ranking in `mode` reads the candidates' symbols: they feed the definition and
/// reference signals, which only hybrid fusion weighs.
fn needs_symbol(opts: &SearchOptions, mode: SearchMode, query: &str, params: &RankParams) -> bool {
    mode == SearchMode::Hybrid && (opts.weights.definition > 0.0 || opts.weights.reference > 0.0)
        || params.named_pick > 0.0 && !rank::code_names(query).is_empty()
}

/// [`search_ranked`] with the BM25 candidates already searched ([`lexical_candidates`] with
/// the same `query`, `top`, `opts` and `rank_params`); `None` searches them here when the
/// mode needs them.
///
/// # Errors
/// [`IndexError`] when the lexical index fails.
#[allow(clippy::too_many_arguments)]
pub fn search_ranked_from(
    index: &CodeIndex,
    vectors: Option<&VectorIndex>,
    query_vector: Option<&[f32]>,
    lexical: Option<LexicalCandidates>,
    query: &str,
    top: usize,
    opts: &SearchOptions,
    rank_params: &RankParams,
) -> Result<HybridResults, IndexError> {
    let opts = &SearchOptions {
        mode: opts.mode.resolve(query),
        ..*opts
    };
    let coverage = vectors.map(VectorIndex::coverage);
    let mut notes = Vec::new();
    let usable = match (vectors, query_vector) {
        (Some(v), Some(q)) if v.live_vectors() > 0 && q.len() == v.dims() => Some((v, q)),
        _ => None,
    };
    let mode = match (opts.mode, usable) {
        (SearchMode::Lexical, _) => SearchMode::Lexical,
        (m, Some(_)) => m,
        (m, None) => {
            notes.push(format!(
                "{} search needs embeddings; none are available yet (run `code-intel index --embed`), so this is a lexical search",
                m.name()
            ));
            SearchMode::Lexical
        }
    };
    if let (Some(c), SearchMode::Vector | SearchMode::Hybrid) = (coverage, mode)
        && c.embedded < c.total
    {
        notes.push(format!(
            "embeddings cover {} of {} chunks ({:.0} %); the rest rank by keywords only until embedded",
            c.embedded,
            c.total,
            c.ratio * 100.0
        ));
    }
    let candidates = opts.candidates.max(top);
    let names = QueryNames::of(query);
    // Candidates keyed by (file, start line, chunk sha256).
    let mut order: Vec<(String, u32, String)> = Vec::new();
    let mut hits: HashMap<(String, u32, String), (SearchHit, Signals)> = HashMap::new();
    // Lexical candidates come from fast fields; their stored documents (qualified name,
    // signature, snippet) are read only for the hits shown, at the end.
    let mut unread: HashMap<(String, u32, String), tantivy::DocAddress> = HashMap::new();
    let mut searcher = None;
    // A long request's parts each file matched (bits of `matched`), for the explanations.
    let mut file_masks: HashMap<String, u128> = HashMap::new();
    let mut matched: Vec<(super::request::PartKind, String)> = Vec::new();
    let mut named_from = 0;
    // Looked up on the keyword search's thread while the query embedded, when it was.
    // `slots[i]` is the vector slot of `order[i]`, the i-th BM25 candidate.
    let mut prepared_slots: Option<Vec<Option<usize>>> = None;
    let mut prepared_chunks: HashMap<String, u64> = HashMap::new();
    if mode != SearchMode::Vector {
        let lexical = match lexical {
            // Searched for a mode that did not read the symbols this one needs: again.
            Some(l) if l.symbol || !needs_symbol(opts, mode, query, rank_params) => l,
            _ => candidates_for(index, query, top, opts, rank_params, mode)?,
        };
        let found = lexical.found;
        if let Some(p) = lexical.prepared {
            prepared_chunks = p.file_chunks;
            prepared_slots = Some(p.slots);
        }
        for (h, m) in found.hits.iter().zip(&found.masks) {
            *file_masks.entry(h.file.clone()).or_default() |= m;
        }
        matched = found.matched;
        named_from = found.named_from;
        searcher = Some(found.searcher);
        for (h, addr) in found.hits.into_iter().zip(found.addrs) {
            let key = (h.file.clone(), h.start_line, h.sha256.clone());
            unread.insert(key.clone(), addr);
            let signals = Signals {
                bm25: Some(h.score),
                ..Signals::default()
            };
            order.push(key.clone());
            hits.insert(key, (h, signals));
        }
    }
    let mut profile = None;
    if let (Some((v, q)), SearchMode::Vector | SearchMode::Hybrid) = (usable, mode) {
        let found = v.search(q, candidates);
        profile = Some(found.profile);
        for vh in found.hits {
            let key = (vh.file.clone(), vh.row.start_line, vh.row.sha256.to_hex());
            if let Some((_, s)) = hits.get_mut(&key) {
                s.cosine = Some(vh.cosine);
                continue;
            }
            let r = vh.row;
            // Qualified name, signature and snippet are read from the chunk's stored document
            // if the hit is shown.
            let hit = SearchHit {
                file: vh.file,
                start_line: r.start_line,
                end_line: r.end_line,
                symbol: r.symbol.into(),
                qualified_name: String::new(),
                kind: r.kind,
                language: r.language,
                score: 0.0,
                signature: String::new(),
                snippet: None,
                sha256: key.2.clone(),
            };
            order.push(key.clone());
            hits.insert(
                key,
                (
                    hit,
                    Signals {
                        cosine: Some(vh.cosine),
                        ..Signals::default()
                    },
                ),
            );
        }
        // BM25 candidates outside the vector top: their cosine, when embedded. Every hit
        // without one is a BM25 candidate (the vector hits carry theirs). The BM25 candidates
        // are the first keys of `order`, in the order their slots were looked up; a candidate
        // whose slot was `None` is not embedded and is not looked up again.
        if let Some(slots) = &prepared_slots {
            for (key, slot) in order.iter().zip(slots) {
                if let Some((_, s)) = hits.get_mut(key)
                    && s.cosine.is_none()
                {
                    s.cosine = slot.map(|slot| v.cosine_of_slot(slot, q));
                }
            }
        } else {
            for (hit, s) in hits.values_mut() {
                if s.cosine.is_none() {
                    s.cosine = v.cosine_at(&hit.file, hit.start_line, &hit.sha256, q);
                }
            }
        }
    }
    let weights = match mode {
        // `Auto` was resolved above; it never gets here.
        SearchMode::Lexical | SearchMode::Auto => Weights {
            keyword: 1.0,
            vector: 0.0,
            definition: 0.0,
            reference: 0.0,
        },
        SearchMode::Vector => Weights {
            keyword: 0.0,
            vector: 1.0,
            definition: 0.0,
            reference: 0.0,
        },
        SearchMode::Hybrid => opts.weights,
    };
    let mut rows: Vec<(SearchHit, Signals)> =
        order.into_iter().filter_map(|k| hits.remove(&k)).collect();
    if weights.definition > 0.0 || weights.reference > 0.0 {
        let mut refs_cache: HashMap<String, u32> = HashMap::new();
        for (hit, s) in &mut rows {
            s.definition = defines(&hit.symbol, hit.kind, &names);
            if weights.reference > 0.0 && !matches!(hit.kind, ChunkKind::Module | ChunkKind::Window)
            {
                let term = hit.symbol.to_lowercase();
                let refs = match refs_cache.get(&term) {
                    Some(&r) => r,
                    None => {
                        let df = index.content_doc_freq(&term)?;
                        // Its own chunk mentions the name once.
                        let r = u32::try_from(df.saturating_sub(1)).unwrap_or(u32::MAX);
                        refs_cache.insert(term, r);
                        r
                    }
                };
                s.references = refs;
            }
        }
    }
    let signals: Vec<Signals> = rows.iter().map(|(_, s)| *s).collect();
    let mean = profile.map_or(0.0, |p| p.mean);
    let fusion = if mode == SearchMode::Hybrid {
        opts.fusion
    } else {
        Fusion::Weighted
    };
    let explanations = fuse(&signals, &weights, fusion, mean);
    let mut ranked: Vec<HybridHit> = rows
        .into_iter()
        .zip(explanations)
        .map(|((mut hit, _), explanation)| {
            // Lexical mode keeps BM25 in `score` (as `CodeIndex::search` reports it).
            if mode != SearchMode::Lexical {
                hit.score = explanation.score;
            }
            HybridHit {
                hit,
                explanation,
                also: Vec::new(),
            }
        })
        .collect();
    // A candidate no signal scores (no BM25 match, cosine at or below the query's mean over the
    // index, no definition or reference) is no evidence of anything: not a hit. On a large index
    // such a candidate never reaches the top; on a small one it padded the answer with chunks
    // scored 0.000 and an empty explanation.
    if mode != SearchMode::Lexical {
        ranked.retain(|h| h.explanation.score > 0.0);
    }
    // Stable: ties keep BM25 order, then vector order.
    ranked.sort_by(|a, b| b.explanation.score.total_cmp(&a.explanation.score));
    let lexical = mode == SearchMode::Lexical;
    fn view(h: &HybridHit, lexical: bool) -> rank::ItemView<'_> {
        h.hit.rank_view_scored(if lexical {
            h.hit.score
        } else {
            h.explanation.score
        })
    }
    let counter = index.file_chunk_counter();
    let file_chunks = |f: &str| {
        prepared_chunks
            .get(f)
            .copied()
            .unwrap_or_else(|| counter(f))
    };
    let pool = CodeIndex::framework_pool(rank_params, top);
    let named = rank::code_names(query);
    let groups = rank::group_files(
        ranked,
        |h| {
            let mut v = view(h, lexical);
            v.named = !h.hit.symbol.is_empty() && named.contains(&h.hit.symbol);
            v
        },
        file_chunks,
        rank_params,
        pool,
    );
    // The fused score ranks the files; the chunk shown for a file is the one the lexical
    // ranking's rules pick among its chunks the request's words match (a function over a doc
    // comment, window or module), when it has any — unless the vectors lead for this request
    // (a question, Japanese), where their choice of chunk was the better one (vite and
    // akaunting, Japanese F-R@10 0.471 / 0.345 with it against 0.441 / 0.310 without).
    let groups = if lexical || vectors_lead(query) {
        groups
    } else {
        groups
            .into_iter()
            .map(|g| lexical_representative(g, &file_chunks, &named, rank_params))
            .collect()
    };
    // Framework links (off unless `rank_params.framework_link` > 0): linked files rise or join.
    let groups = index.framework_rerank(
        groups,
        |h| h.hit.file.as_str(),
        |c, score| HybridHit {
            hit: SearchHit::from_stored(c, score),
            explanation: Explanation {
                fusion,
                score,
                parts: Vec::new(),
                request: Vec::new(),
            },
            also: Vec::new(),
        },
        rank_params,
        top,
    );
    // Fused scores stay in [0, 1]: file scores (best chunk + coherence + prior) are scaled down
    // together when the best exceeds 1, which keeps their order. Lexical mode keeps raw BM25.
    let max = groups.iter().map(|g| g.score).fold(0.0f32, f32::max);
    let scale = if !lexical && max > 1.0 {
        1.0 / max
    } else {
        1.0
    };
    // A hit only the vectors found has no qualified name, signature or snippet (the rows do not
    // keep them): its stored document is found by file and line and read like a keyword hit's.
    let mut vector_searcher = None;
    let mut read = |hit: &mut SearchHit| -> Result<(), IndexError> {
        let key = (hit.file.clone(), hit.start_line, hit.sha256.clone());
        if let (Some(&addr), Some(searcher)) = (unread.get(&key), &searcher) {
            super::hydrate(&index.fields, searcher, hit, addr).map_err(|e| index.err("read", e))?;
        } else if hit.snippet.is_none() && !unread.contains_key(&key) {
            let searcher = vector_searcher.get_or_insert_with(|| index.reader.searcher());
            let addr = super::chunk_address(
                &index.fields,
                searcher,
                &hit.file,
                hit.start_line,
                &hit.sha256,
            )
            .map_err(|e| index.err("read", e))?;
            if let Some(addr) = addr {
                super::hydrate(&index.fields, searcher, hit, addr)
                    .map_err(|e| index.err("read", e))?;
            }
        }
        Ok(())
    };
    let mut ranked: Vec<HybridHit> = Vec::with_capacity(groups.len());
    for g in groups {
        let mut best = g.best;
        read(&mut best.hit)?;
        if let Some(&mask) = file_masks.get(&best.hit.file) {
            // The files the request names first, then its words, heaviest first.
            let order = (named_from..matched.len()).chain(0..named_from.min(matched.len()));
            best.explanation.request = super::request::matched_parts(
                order
                    .filter(|&i| mask & (1 << i) != 0)
                    .map(|i| (matched[i].0, matched[i].1.as_str())),
            );
        }
        best.hit.score = g.score * scale;
        for (mut h, s) in g.rest {
            read(&mut h.hit)?;
            best.also.push(FoldedChunk::of(&h.hit, s * scale));
        }
        ranked.push(best);
    }
    Ok(HybridResults {
        mode,
        fusion,
        hits: ranked,
        coverage,
        profile,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const W: Weights = Weights {
        vector: 0.4,
        keyword: 0.2,
        definition: 0.3,
        reference: 0.1,
    };

    fn sig(bm25: Option<f32>, cosine: Option<f32>, definition: bool, references: u32) -> Signals {
        Signals {
            bm25,
            cosine,
            definition,
            references,
        }
    }

    #[test]
    fn the_config_names_the_fusion() {
        let mut config = Config::default();
        assert_eq!(
            SearchOptions::configured(&config).unwrap().fusion,
            Fusion::DEFAULT
        );
        config.search_fusion = "rrf".into();
        config.search_weights.vector = 0.5;
        let opts = SearchOptions::configured(&config).unwrap();
        assert_eq!((opts.fusion, opts.weights.vector), (Fusion::Rrf, 0.5));
        config.search_fusion = "borda".into();
        let err = SearchOptions::configured(&config).unwrap_err().to_string();
        assert!(err.contains("use weighted or rrf"), "{err}");
    }

    #[test]
    fn the_config_names_the_mode_and_auto_resolves_per_request() {
        let mut config = Config::default();
        let opts = SearchOptions::configured(&config).unwrap();
        assert_eq!(opts.mode, SearchMode::Auto);
        assert_eq!(
            opts.mode.resolve("Fix the retry of failed jobs"),
            SearchMode::Lexical
        );
        // Latin script in another language stays lexical; Japanese with a quoted identifier
        // is mostly Japanese, so hybrid.
        assert_eq!(
            opts.mode.resolve("Corriger la file d'attente échouée"),
            SearchMode::Lexical
        );
        assert_eq!(
            opts.mode.resolve("失敗したジョブの再試行を修正する"),
            SearchMode::Hybrid
        );
        assert_eq!(
            opts.mode.resolve("`retryUntil` の扱いを修正"),
            SearchMode::Hybrid
        );
        // An English request naming one Japanese word is English.
        assert_eq!(
            opts.mode
                .resolve("Translate the 設定 label in the settings dialog"),
            SearchMode::Lexical
        );
        assert_eq!(SearchMode::Hybrid.resolve("any text"), SearchMode::Hybrid);
        // Questions about behaviour go to the vectors; change requests and pasted texts do not.
        for q in [
            "where are failed jobs retried",
            "How is the request's locale chosen?",
            "the retry delay of failed jobs?",
        ] {
            assert_eq!(opts.mode.resolve(q), SearchMode::Hybrid, "{q}");
        }
        for q in [
            "Add a retry delay to failed jobs",
            "Fix: where clause drops bindings",
            "Do not retry the handler's exceptions",
            "Traceback (most recent call last):\n  File \"a.py\", line 3\nWhy?",
        ] {
            assert_eq!(opts.mode.resolve(q), SearchMode::Lexical, "{q}");
        }
        config.search_mode = "lexical".into();
        assert_eq!(
            SearchOptions::configured(&config).unwrap().mode,
            SearchMode::Lexical
        );
        config.search_mode = "semantic".into();
        let err = SearchOptions::configured(&config).unwrap_err().to_string();
        assert!(
            err.contains("search_mode") && err.contains("auto, lexical"),
            "{err}"
        );
    }

    #[test]
    fn weighted_fusion_explains_each_part() {
        let c = [
            sig(Some(10.0), Some(0.90), true, 40),
            sig(Some(5.0), Some(0.85), false, 0),
            sig(None, Some(0.80), false, 10),
        ];
        let e = fuse(&c, &W, Fusion::Weighted, 0.80);
        // First: every part at its maximum.
        assert!((e[0].score - 1.0).abs() < 1e-6, "{:?}", e[0]);
        // Second: keyword 0.5·0.2 + vector 0.5·0.4 = 0.3.
        assert!((e[1].score - 0.3).abs() < 1e-6, "{:?}", e[1]);
        let v = &e[1].parts[1];
        assert_eq!((v.signal, v.raw), (Signal::Vector, Some(0.85)));
        assert!((v.normalized - 0.5).abs() < 1e-6);
        assert!((v.contribution - 0.2).abs() < 1e-6);
        // Third: no BM25, cosine at the mean, 10 references = 0.5 · 0.1.
        assert_eq!(e[2].parts[0].raw, None);
        assert!((e[2].score - 0.05).abs() < 1e-6, "{:?}", e[2]);
        let total: f32 = e[2].parts.iter().map(|p| p.contribution).sum();
        assert!((total - e[2].score).abs() < 1e-6);
    }

    #[test]
    fn rrf_uses_ranks_and_ties_share_them() {
        let c = [
            sig(Some(3.0), Some(0.9), false, 0),
            sig(Some(3.0), Some(0.8), false, 0),
            sig(Some(1.0), None, false, 0),
        ];
        let w = Weights {
            vector: 1.0,
            keyword: 1.0,
            definition: 0.0,
            reference: 0.0,
        };
        let e = fuse(&c, &w, Fusion::Rrf, 0.0);
        assert_eq!(e[0].parts[0].rank, Some(1));
        assert_eq!(e[1].parts[0].rank, Some(1), "tied BM25");
        assert_eq!(e[2].parts[0].rank, Some(3));
        assert_eq!(e[2].parts[1].rank, None);
        assert!((e[0].score - 1.0).abs() < 1e-6);
        assert!(e[0].score > e[1].score && e[1].score > e[2].score);
        assert!(e[2].parts[1].contribution == 0.0);
    }

    #[test]
    fn definitions_need_the_name_in_the_query() {
        let check = |q: &str, sym: &str, kind: &str| {
            defines(sym, ChunkKind::from_name(kind).unwrap(), &QueryNames::of(q))
        };
        assert!(check("BcryptHasher make", "BcryptHasher", "class"));
        assert!(check("where is bcrypthasher", "BcryptHasher", "class"));
        assert!(check("send a file", "send_file", "function"));
        assert!(check("sendFile to the client", "sendFile", "method"));
        assert!(!check("send the file", "send_files", "function"));
        assert!(
            !check("file send", "send_file", "function"),
            "order matters"
        );
        assert!(!check("hash a password", "hash", "module"));
        assert!(!check("go to x", "go", "function"), "too short");
        assert!(!check("hash a password", "Hasher", "class"));
    }

    fn signals() -> impl Strategy<Value = Signals> {
        (
            proptest::option::of(0.0f32..50.0),
            proptest::option::of(-1.0f32..1.0),
            any::<bool>(),
            0u32..100,
        )
            .prop_map(|(b, c, d, r)| sig(b, c, d, r))
    }

    fn weights() -> impl Strategy<Value = Weights> {
        (0.0f32..1.0, 0.0f32..1.0, 0.0f32..1.0, 0.0f32..1.0).prop_map(|(v, k, d, r)| Weights {
            vector: v,
            keyword: k,
            definition: d,
            reference: r,
        })
    }

    proptest! {
        #[test]
        fn fused_scores_stay_in_bounds(
            c in proptest::collection::vec(signals(), 1..20),
            w in weights(),
            mean in -1.0f32..1.0,
            rrf in any::<bool>(),
        ) {
            let fusion = if rrf { Fusion::Rrf } else { Fusion::Weighted };
            for e in fuse(&c, &w, fusion, mean) {
                prop_assert!((0.0..=1.0).contains(&e.score), "{e:?}");
                for p in &e.parts {
                    prop_assert!((0.0..=1.0).contains(&p.normalized), "{p:?}");
                    prop_assert!(p.contribution >= 0.0);
                }
            }
        }

        /// Improving one signal of one candidate (others fixed) never lowers its fused score.
        #[test]
        fn fused_scores_are_monotone_in_each_signal(
            c in proptest::collection::vec(signals(), 1..20),
            w in weights(),
            mean in -1.0f32..0.5,
            which in 0usize..4,
            bump in 0.0f32..10.0,
            rrf in any::<bool>(),
        ) {
            let fusion = if rrf { Fusion::Rrf } else { Fusion::Weighted };
            let before = fuse(&c, &w, fusion, mean)[0].score;
            let mut better = c.clone();
            let s = &mut better[0];
            match which {
                0 => s.bm25 = Some(s.bm25.unwrap_or(0.0) + bump),
                1 => s.cosine = Some((s.cosine.unwrap_or(-1.0) + bump / 10.0).min(1.0)),
                2 => s.definition = true,
                _ => s.references = s.references.saturating_add(bump as u32),
            }
            let after = fuse(&better, &w, fusion, mean)[0].score;
            prop_assert!(after >= before - 1e-6, "{before} -> {after} ({which})");
        }
    }
}
