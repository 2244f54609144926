//! `semantic_search`: the map first, then the forest (docs/DESIGN.md#short-circuit): a confidently
//! strong map hit answers alone (`PREVIOUS_SUCCESS`, the forest is skipped); otherwise the forest's
//! hybrid results answer as hypotheses to verify, with the map hits as hints.
//!
//! # The short-circuit threshold, calibrated
//! The Python-era design short-circuited at a raw map score ≥ 0.7. With multilingual-e5 every pair
//! of texts scores 0.76–0.92 (shared/docs/EMBEDDINGS.md), so a raw threshold would fire on
//! anything. A map hit is judged instead by its z-score against the query's similarity to the
//! repository's code: `z = (cos(query, entry) − μ) / σ`, where μ and σ are the mean and standard
//! deviation of the query's cosines to the embedded chunks ([`SimilarityProfile`]). A hit is
//! *confident* at `z ≥` [`MAP_CONFIDENT_Z`]: the entry is more similar to the query than all but a
//! sliver of the code. docs/EVALUATION.md ("Map short-circuit") measured the value; the same idea
//! as the relevance verdicts of docs/RELEVANCE.md, which judge a symbol against a background
//! sample. With fewer than [`MIN_BACKGROUND`] embedded chunks there is no usable background, so no
//! hit is confident and the map only hints.

use serde::{Deserialize, Serialize};

use super::hybrid::{self, HybridHit, SearchMode, SearchOptions};
use super::map::{MapEntry, MapError, MapIndex};
use super::vector::{Coverage, SimilarityProfile, VectorIndex};
use super::{CodeIndex, IndexError, RankParams};
use crate::embed::{EmbedError, Embedder};

/// z-score from which a map hit is confident and short-circuits the forest (see the module docs).
///
/// Measured by `tests/eval/run_map.py` (docs/EVALUATION.md, "Map short-circuit"): with learned
/// pairs in Japanese and queries in English on Flask, Express and Laravel, the right entry came
/// first for all 21 queries whose topic was in the map, at z 1.0–6.6 (median 3.5); for the 20
/// queries whose topic was not, the top entry reached at most z 2.54. At 3.0 the map answered 16
/// of the 21 and none of the 20. A wrong short-circuit hides the code while a missed one only
/// costs a forest search, so the threshold errs on the side of precision. Raw cosines overlapped
/// (0.809–0.922 against 0.808–0.867): no fixed cosine separates the two.
pub const MAP_CONFIDENT_Z: f32 = 3.0;
/// Map hits returned at most.
pub const MAP_HITS: usize = 5;
/// Fewest embedded chunks for a usable background: below it the mean and deviation of the
/// query's cosines are too noisy to call any hit confident (the same floor as the relevance
/// background's `MIN_REPOSITORY_SYMBOLS`), so the map only hints.
pub const MIN_BACKGROUND: usize = 50;

/// Which collection to search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Collection {
    /// Learned pairs and agreements only.
    Map,
    /// The code only.
    Forest,
    /// The map first; the forest unless a map hit is confident.
    #[default]
    Auto,
}

impl Collection {
    /// The name (`map`, `forest`, `auto`).
    pub fn name(self) -> &'static str {
        match self {
            Collection::Map => "map",
            Collection::Forest => "forest",
            Collection::Auto => "auto",
        }
    }

    /// Parses a name of [`Self::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        [Collection::Map, Collection::Forest, Collection::Auto]
            .into_iter()
            .find(|c| c.name() == name.trim())
    }
}

/// What the answer is (docs/DESIGN.md#short-circuit: a past success, hypotheses, or nothing found).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Status {
    /// A confident map hit: a past success; verify its symbols first.
    PreviousSuccess,
    /// Forest results (or unconfident map hints): hypotheses to verify.
    Hypothesis,
    /// Nothing found.
    NoMatch,
}

/// Errors of [`semantic_search`].
#[derive(Debug, thiserror::Error)]
pub enum SemanticError {
    /// Embedding the query failed.
    #[error(transparent)]
    Embed(#[from] EmbedError),
    /// The lexical index failed.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// The map could not be read.
    #[error(transparent)]
    Map(#[from] MapError),
}

/// One map hit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MapHit {
    /// The entry.
    #[serde(flatten)]
    pub entry: MapEntry,
    /// Cosine of query and entry, in [-1, 1] (about 0.76–0.92 for anything with e5: compare `z`).
    pub cosine: f32,
    /// The calibrated score: z against the query's cosines to the code; `None` without
    /// embedded code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub z: Option<f32>,
    /// Whether `z >= MAP_CONFIDENT_Z` and the entry is not stale.
    pub confident: bool,
}

/// The background the map hits were judged against.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// The query's cosines to the embedded chunks (n = 0: none embedded).
    pub background: SimilarityProfile,
    /// [`MAP_CONFIDENT_Z`].
    pub confident_z: f32,
}

/// The answer of [`semantic_search`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SemanticSearchResult {
    /// The query.
    pub query: String,
    /// The collection asked for.
    pub collection: Collection,
    /// What was searched, in order (`map`, `forest`).
    pub searched: Vec<Collection>,
    /// Where the answer comes from: `map`, `forest`, or none.
    pub source: Option<Collection>,
    /// What the answer is.
    pub status: Status,
    /// Whether a confident map hit skipped the forest.
    pub short_circuit: bool,
    /// Map hits, best first (hints when not confident).
    pub map_hits: Vec<MapHit>,
    /// Forest hits, best first.
    pub forest_hits: Vec<HybridHit>,
    /// How the forest was ranked, when searched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forest_mode: Option<SearchMode>,
    /// Embedded chunks against all chunks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Coverage>,
    /// The calibration of map hits.
    pub calibration: Calibration,
    /// What the result means and what to do next.
    pub message: String,
    /// Remarks: fallbacks, partial coverage.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Everything [`semantic_search`] reads.
#[derive(Clone, Copy)]
pub struct Sources<'a> {
    /// The lexical index.
    pub index: &'a CodeIndex,
    /// The vector index, if open.
    pub vectors: Option<&'a VectorIndex>,
    /// The map.
    pub map: &'a MapIndex,
    /// The model (queries are embedded with it).
    pub embedder: &'a dyn Embedder,
}

/// Searches the map and/or the forest for `query` (see the module docs); at most `n_results`
/// forest hits and [`MAP_HITS`] map hits. `opts` ranks the forest.
///
/// # Errors
/// [`SemanticError`] when embedding the query or the lexical search fails.
pub fn semantic_search(
    src: Sources<'_>,
    query: &str,
    collection: Collection,
    n_results: usize,
    opts: &SearchOptions,
) -> Result<SemanticSearchResult, SemanticError> {
    semantic_search_with_keywords(src, query, None, collection, n_results, opts)
}

/// [`semantic_search`] with `keywords`: English identifiers and terms the caller adds to the
/// keyword (BM25) side of the forest search only — the query alone is embedded. For a request
/// written in another language, the calling model names the code words it implies.
///
/// # Errors
/// As [`semantic_search`].
pub fn semantic_search_with_keywords(
    src: Sources<'_>,
    query: &str,
    keywords: Option<&str>,
    collection: Collection,
    n_results: usize,
    opts: &SearchOptions,
) -> Result<SemanticSearchResult, SemanticError> {
    // `auto` resolves on the request, not on the keywords added to it.
    let opts = &SearchOptions {
        mode: opts.mode.resolve(query),
        ..*opts
    };
    // The forest's BM25 candidates are searched on a second thread while the query embeds
    // (wasted when the map answers alone, a few milliseconds of one core).
    let lexical_query = with_keywords(query, keywords);
    let (embedded, lexical) = hybrid::embed_while_searching(
        src.index,
        src.vectors,
        &lexical_query,
        n_results,
        opts,
        &RankParams::default(),
        collection != Collection::Map,
        || src.embedder.embed_queries(&[query]),
    );
    // A panicked search thread is searched again on this one.
    let lexical = lexical.transpose()?.flatten();
    let q = embedded?.pop().unwrap_or_default();
    let background = src
        .vectors
        .filter(|v| v.dims() == q.len())
        .map(|v| v.profile(&q))
        .unwrap_or_default();
    let coverage = src.vectors.map(VectorIndex::coverage);
    let mut searched = Vec::new();
    let mut notes = Vec::new();
    let mut map_hits = Vec::new();
    if collection != Collection::Forest {
        searched.push(Collection::Map);
        for (entry, cosine) in src.map.search(&q).into_iter().take(MAP_HITS) {
            let z = (background.n > 0).then(|| background.z(cosine));
            let calibrated = background.n >= MIN_BACKGROUND;
            map_hits.push(MapHit {
                entry: entry.clone(),
                cosine,
                z,
                // A stale entry (its symbol is gone from the code) is never a fact.
                confident: calibrated && !entry.stale && z.is_some_and(|z| z >= MAP_CONFIDENT_Z),
            });
        }
        if src.map.is_empty() {
            notes.push(
                "the map is empty: no learned pairs or agreements yet (.code-intel/learned_pairs.json, .code-intel/agreements/)".into(),
            );
        } else if background.n < MIN_BACKGROUND {
            notes.push(format!(
                "only {} chunks are embedded (fewer than {MIN_BACKGROUND}), so map hits cannot be calibrated and never short-circuit",
                background.n
            ));
        }
    }
    let confident = map_hits.first().is_some_and(|h| h.confident);
    let calibration = Calibration {
        background,
        confident_z: MAP_CONFIDENT_Z,
    };
    let result = |searched,
                  source,
                  status,
                  short_circuit,
                  forest_hits,
                  forest_mode,
                  message: String,
                  notes| {
        SemanticSearchResult {
            query: query.to_string(),
            collection,
            searched,
            source,
            status,
            short_circuit,
            map_hits: map_hits.clone(),
            forest_hits,
            forest_mode,
            coverage,
            calibration,
            message,
            notes,
        }
    };
    if collection == Collection::Map || (collection == Collection::Auto && confident) {
        let (source, status, message) = if confident {
            let symbols: Vec<&str> = map_hits
                .iter()
                .filter(|h| h.confident)
                .filter_map(|h| h.entry.item.symbol.as_deref())
                .collect();
            (
                Some(Collection::Map),
                Status::PreviousSuccess,
                format!(
                    "Past success pattern found (calibrated z {:.1} >= {MAP_CONFIDENT_Z}){}. {}Verify these symbols first (find_definitions, find_references).",
                    map_hits[0].z.unwrap_or_default(),
                    if symbols.is_empty() {
                        String::new()
                    } else {
                        format!(": {}", symbols.join(", "))
                    },
                    if collection == Collection::Auto {
                        "The forest search was skipped. "
                    } else {
                        ""
                    }
                ),
            )
        } else if map_hits.is_empty() {
            (
                None,
                Status::NoMatch,
                "The map has nothing for this query. Explore the code (search_text, find_definitions) or, in SEMANTIC, use semantic_search with collection forest.".into(),
            )
        } else {
            (
                Some(Collection::Map),
                Status::Hypothesis,
                "No map entry is confidently related; the hits are hints only. Explore the code to confirm.".into(),
            )
        };
        let short = collection == Collection::Auto && confident;
        return Ok(result(
            searched,
            source,
            status,
            short,
            Vec::new(),
            None,
            message,
            notes,
        ));
    }
    searched.push(Collection::Forest);
    let forest = hybrid::search_ranked_from(
        src.index,
        src.vectors,
        Some(&q),
        lexical,
        &lexical_query,
        n_results,
        opts,
        &RankParams::default(),
    )?;
    notes.extend(forest.notes);
    let (source, status, message) = if forest.hits.is_empty() {
        (
            None,
            Status::NoMatch,
            "Nothing found. Rephrase the query, or search for identifiers with search_text."
                .to_string(),
        )
    } else {
        (
            Some(Collection::Forest),
            Status::Hypothesis,
            "Candidates from the code (HYPOTHESIS): verify each with find_definitions / find_references before relying on it.".to_string(),
        )
    };
    Ok(result(
        searched,
        source,
        status,
        false,
        forest.hits,
        Some(forest.mode),
        message,
        notes,
    ))
}

/// The keyword side of a query: the query, then the caller's `keywords` when there are any.
pub fn with_keywords(query: &str, keywords: Option<&str>) -> String {
    match keywords.map(str::trim) {
        Some(k) if !k.is_empty() => format!("{query} {k}"),
        _ => query.to_string(),
    }
}
