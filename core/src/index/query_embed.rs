//! Query-time candidate embedding: before a ranked search fuses BM25 with vectors, the best
//! lexical candidates that have no vector yet are embedded on the spot (within a budget), so a
//! search issued right after the first index already gets semantic scores where they matter,
//! long before a background run or `code-intel index --embed` has covered the repository.
//!
//! The vectors are kept: inserted into the [`VectorIndex`] and flushed to the embedding cache
//! ([`VectorIndex::flush_vectors`]), so the next search, the background run and other processes
//! reuse them. No embedding lock is taken (a search never waits for an embedding run of another
//! process); at worst both embed the same few texts, and the cache keeps one of them on reopen.
//!
//! # Budget ([`QueryEmbedBudget`], `query_embed_max_chunks` / `query_embed_max_ms` in
//! `.code-intel/config.json`)
//! At most `max_chunks` texts, in lexical rank order, and no batch is started that would end
//! after `max_ms` of embedding by the rate measured on this query's earlier batches. The first
//! batch is small ([`FIRST_BATCH`] texts) so the rate is known early; later batches are at most
//! [`BATCH`] texts. The BM25 search before it is not part of `max_ms`; the texts of each batch
//! are made just before it (reading and chunking the files of those candidates only, with the
//! chunks of recently read files kept by [`VectorIndex::pending_for`]), and that time counts
//! towards `max_ms`. Both are reported as `prepare_ms`. multilingual-e5-small embeds about 17
//! summary texts per CPU-second
//! (docs/MODEL.md), so the default budget (32 texts, 300 ms) embeds the first 5–10 candidates
//! of a cold repository on one core and all 32 when the texts are short or the cores free.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::rank::RankParams;
use super::vector::{VectorError, VectorIndex};
use super::{CodeIndex, IndexError};
use crate::embed::Embedder;
use code_intel_session::config::Config;

/// Texts in the first batch of a query (the rate of the rest is measured on it).
pub const FIRST_BATCH: usize = 4;
/// Largest batch after the first (the embedder's own batch size).
pub const BATCH: usize = 8;

/// How much a query may embed before it is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryEmbedBudget {
    /// Texts embedded at most per query (0 turns query-time embedding off).
    pub max_chunks: usize,
    /// Wall-clock milliseconds a query may spend embedding (0 turns it off).
    pub max_ms: u64,
    /// Lexical candidates looked at, best first.
    pub candidates: usize,
}

impl Default for QueryEmbedBudget {
    /// 32 texts, 300 ms, the top 50 lexical chunks ([`super::hybrid::CANDIDATES`]).
    fn default() -> Self {
        Self {
            max_chunks: 32,
            max_ms: 300,
            candidates: super::hybrid::CANDIDATES,
        }
    }
}

impl QueryEmbedBudget {
    /// The budget of `config` (`query_embed_max_chunks`, `query_embed_max_ms`).
    pub fn configured(config: &Config) -> Self {
        Self {
            max_chunks: config.query_embed_max_chunks,
            max_ms: config.query_embed_max_ms,
            ..Self::default()
        }
    }

    /// Whether the budget allows any embedding.
    pub fn enabled(&self) -> bool {
        self.max_chunks > 0 && self.max_ms > 0 && self.candidates > 0
    }
}

/// What [`embed_candidates`] did for one query.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryEmbedReport {
    /// Lexical candidates looked at (none when every chunk already has a vector).
    pub candidates: usize,
    /// Distinct candidate texts that had no vector before this query.
    pub missing: usize,
    /// Texts embedded by this query (now cached for every later search).
    pub embedded: usize,
    /// Milliseconds spent in all (preparing, embedding, flushing).
    pub duration_ms: u64,
    /// Of which finding the candidates and making their texts: the BM25 search, reading and
    /// chunking the files of the texts embedded.
    #[serde(default)]
    pub prepare_ms: u64,
}

impl QueryEmbedReport {
    /// A sentence for a search result's notes, when something was missing.
    pub fn note(&self) -> Option<String> {
        (self.missing > 0).then(|| {
            format!(
                "embedded {} of the {}{} unembedded top keyword candidates for this query ({} ms); {}",
                self.embedded,
                if self.missing > self.embedded { "first " } else { "" },
                self.missing,
                self.duration_ms,
                if self.embedded < self.missing {
                    "the rest rank by keywords until embedded"
                } else {
                    "they are cached for later searches"
                }
            )
        })
    }
}

/// Errors of [`embed_candidates`].
#[derive(Debug, thiserror::Error)]
pub enum QueryEmbedError {
    /// The lexical search for the candidates failed.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// Embedding, inserting or flushing failed.
    #[error(transparent)]
    Vector(#[from] VectorError),
}

/// Embeds the unembedded texts among the best `budget.candidates` lexical chunks of `query`
/// (BM25 with `rank_params`, the list hybrid search fuses), best first, within `budget` (see
/// the module docs), inserts them into `vectors` and flushes them to the embedding cache.
/// `vectors` should describe the index's current commit ([`VectorIndex::refresh`]); chunks it
/// does not know are skipped.
///
/// # Errors
/// [`QueryEmbedError::Index`] when the lexical search fails, [`QueryEmbedError::Vector`] when
/// the embedder or the cache fails (vectors embedded before the failure are kept in memory).
pub fn embed_candidates(
    index: &CodeIndex,
    vectors: &mut VectorIndex,
    embedder: &dyn Embedder,
    query: &str,
    rank_params: &RankParams,
    budget: &QueryEmbedBudget,
) -> Result<QueryEmbedReport, QueryEmbedError> {
    let started = Instant::now();
    let mut report = QueryEmbedReport::default();
    if !budget.enabled() || embedder.model_id() != vectors.model_id() {
        return Ok(report);
    }
    // Every chunk has its vector: no candidate can be missing one, so no search.
    let coverage = vectors.coverage();
    if coverage.embedded >= coverage.total {
        return Ok(report);
    }
    // Path, start line and SHA-256 come from fast fields: no stored document is read.
    let hits = index
        .search_candidates(
            query,
            budget.candidates,
            rank_params,
            super::lexical::ColumnSet {
                symbol: false,
                sha256: true,
            },
        )?
        .hits;
    report.candidates = hits.len();
    let named: Vec<(&str, u32, &str)> = hits
        .iter()
        .map(|h| (h.file.as_str(), h.start_line, h.sha256.as_str()))
        .collect();
    // Counted from the rows (no file read); looking further than the texts this query may embed
    // would only count more missing ones.
    report.missing = vectors.missing_for(&named, budget.max_chunks.saturating_add(BATCH * 2));
    report.prepare_ms = millis(started.elapsed());
    let embedding = Instant::now();
    let deadline = Duration::from_millis(budget.max_ms);
    let take = report.missing.min(budget.max_chunks);
    let mut done = 0;
    let mut per_text: Option<Duration> = None;
    while done < take {
        let spent = embedding.elapsed();
        let n = match per_text {
            None => FIRST_BATCH,
            Some(t) => {
                let left = deadline.saturating_sub(spent);
                let fit = (left.as_nanos() / t.as_nanos().max(1)) as usize;
                if fit == 0 {
                    break;
                }
                fit.min(BATCH)
            }
        }
        .min(take - done);
        if spent >= deadline {
            break;
        }
        // The next texts, read and chunked only now: a query whose budget ends after the first
        // batch reads only the files of its first few candidates. Embedded keys are skipped, so
        // these are the next `n` in candidate order.
        let preparing = Instant::now();
        let group = vectors.pending_for(&named, n);
        report.prepare_ms += millis(preparing.elapsed());
        if group.is_empty() {
            break;
        }
        let n = group.len();
        let texts: Vec<&str> = group.iter().map(|p| p.text.as_str()).collect();
        let batch_started = Instant::now();
        let embedded = embedder.embed_passages(&texts).map_err(VectorError::from)?;
        let items: Vec<(String, Vec<f32>)> =
            group.iter().map(|p| p.key.clone()).zip(embedded).collect();
        vectors.insert(&items)?;
        let rate = batch_started.elapsed() / u32::try_from(n).unwrap_or(u32::MAX).max(1);
        per_text = Some(per_text.map_or(rate, |t| t.max(rate)));
        done += n;
    }
    report.embedded = done;
    if done > 0 {
        vectors.flush_vectors()?;
    }
    report.duration_ms = millis(started.elapsed());
    Ok(report)
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
