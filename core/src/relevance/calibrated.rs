//! The embedding side of relevance: the background samples the scores are calibrated against
//! ([`Background`] of symbols, [`PhraseBackground`] of request phrases), the symbol scorer
//! ([`CalibratedScorer`]) and the quote check of `set_query_frame` ([`SemanticQuoteChecker`]).
//!
//! Calibration (docs/RELEVANCE.md): for a term `t` and a candidate `s`,
//! `z = (cos(t, s) − mean_b cos(t, b)) / sd_b cos(t, b)` over the background `b ∈ B` (sample standard
//! deviation), plus the percentile of `cos(t, s)` among the `cos(t, b)`. The background is embedded
//! the same way as the candidates (symbols as passages of [`symbol_text`], phrases as queries), so a
//! candidate scores z ≈ 0 when the term finds it no more similar than a random background item.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::builtin::{GENERIC_SYMBOLS, REQUEST_PHRASES};
use crate::embed::{EmbedError, Embedder, dot, split_identifiers};
use code_intel_session::query_frame::QuoteChecker;
use code_intel_session::relevance::{CalibratedScore, RelevanceError, RelevanceScorer, Thresholds};
use code_intel_session::vocab::Tier;

/// The embedding text of a symbol: a PHP namespace is dropped (`App\Auth\Guard::attempt` →
/// `Guard::attempt`), then [`split_identifiers`] splits and expands it (`guard attempt`).
///
/// The namespace is dropped because the model names symbols the way they read in code
/// (`SessionGuard::attempt`), and namespace words (`illuminate`, `app`, `http`) would dominate
/// short names; the measurement in docs/RELEVANCE.md uses this text for candidates and background.
pub fn symbol_text(symbol: &str) -> String {
    let s = symbol.trim();
    split_identifiers(s.rsplit('\\').next().unwrap_or(s))
}

/// FNV-1a 64 (Fowler, Noll, Vo): the deterministic order of the background sample.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn embedding_error(e: EmbedError) -> RelevanceError {
    RelevanceError::Embedding {
        source: Box::new(e),
    }
}

/// Where a [`Background`]'s texts come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BackgroundSource {
    /// A sample of the repository's own symbols.
    Repository {
        /// Distinct symbol texts the repository offered.
        distinct_symbols: usize,
    },
    /// The repository's few symbols plus [`GENERIC_SYMBOLS`].
    RepositoryAndBuiltin {
        /// Distinct symbol texts the repository offered (fewer than
        /// [`Background::MIN_REPOSITORY_SYMBOLS`]).
        distinct_symbols: usize,
    },
    /// [`GENERIC_SYMBOLS`] only.
    Builtin,
}

/// A background sample of symbols, embedded once: what "unrelated" looks like to the model in
/// this repository.
#[derive(Debug, Clone)]
pub struct Background {
    model_id: String,
    texts: Vec<String>,
    vectors: Vec<Vec<f32>>,
    source: BackgroundSource,
}

impl Background {
    /// Sample size: 200 symbols (docs/RELEVANCE.md compares 100, 200 and 400).
    pub const DEFAULT_SIZE: usize = 200;
    /// Below this many distinct symbols the repository's sample is topped up with
    /// [`GENERIC_SYMBOLS`] (the mean and deviation of a few dozen cosines are too noisy).
    pub const MIN_REPOSITORY_SYMBOLS: usize = 50;

    /// The deterministic sample: the distinct non-empty [`symbol_text`]s of `symbols`, ordered by
    /// their FNV-1a 64 hash (ties by text), the first `size`. The same symbols always give the same
    /// sample, whatever their order; a symbol's chance to be drawn does not depend on its name's
    /// position in the repository.
    pub fn sample<'a>(symbols: impl IntoIterator<Item = &'a str>, size: usize) -> Vec<String> {
        let mut texts = Self::distinct(symbols);
        texts.truncate(size);
        texts
    }

    fn distinct<'a>(symbols: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        let set: BTreeSet<String> = symbols
            .into_iter()
            .map(symbol_text)
            .filter(|t| !t.is_empty())
            .collect();
        let mut texts: Vec<String> = set.into_iter().collect();
        texts.sort_by(|a, b| {
            fnv1a(a.as_bytes())
                .cmp(&fnv1a(b.as_bytes()))
                .then_with(|| a.cmp(b))
        });
        texts
    }

    /// The background of a repository whose symbols (names or qualified names, any order, with
    /// duplicates) are `symbols`: [`Self::sample`] of `size`, topped up with [`GENERIC_SYMBOLS`]
    /// when the repository has fewer than [`Self::MIN_REPOSITORY_SYMBOLS`] distinct ones. Embeds
    /// up to `size` (+ 150) short passages: about a second on one core.
    ///
    /// # Errors
    /// The embedder's error.
    pub fn from_symbols<'a>(
        embedder: &dyn Embedder,
        symbols: impl IntoIterator<Item = &'a str>,
        size: usize,
    ) -> Result<Self, EmbedError> {
        let mut texts = Self::distinct(symbols);
        let distinct_symbols = texts.len();
        texts.truncate(size);
        let source = if distinct_symbols >= Self::MIN_REPOSITORY_SYMBOLS {
            BackgroundSource::Repository { distinct_symbols }
        } else {
            let have: BTreeSet<String> = texts.iter().cloned().collect();
            texts.extend(
                Self::distinct(GENERIC_SYMBOLS.iter().copied())
                    .into_iter()
                    .filter(|t| !have.contains(t)),
            );
            BackgroundSource::RepositoryAndBuiltin { distinct_symbols }
        };
        Self::embed(embedder, texts, source)
    }

    /// The background of [`GENERIC_SYMBOLS`] alone (no repository symbols known yet).
    ///
    /// # Errors
    /// The embedder's error.
    pub fn builtin(embedder: &dyn Embedder) -> Result<Self, EmbedError> {
        let texts = Self::distinct(GENERIC_SYMBOLS.iter().copied());
        Self::embed(embedder, texts, BackgroundSource::Builtin)
    }

    fn embed(
        embedder: &dyn Embedder,
        texts: Vec<String>,
        source: BackgroundSource,
    ) -> Result<Self, EmbedError> {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors = embedder.embed_passages(&refs)?;
        Ok(Self {
            model_id: embedder.model_id().to_string(),
            texts,
            vectors,
            source,
        })
    }

    /// The model that embedded it.
    pub fn model_id(&self) -> &str {
        &self.model_id
    }

    /// The embedded texts, in sample order.
    pub fn texts(&self) -> &[String] {
        &self.texts
    }

    /// Number of background symbols.
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// Whether it holds no symbol.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// Where its texts come from.
    pub fn source(&self) -> &BackgroundSource {
        &self.source
    }

    fn describe(&self) -> String {
        match self.source {
            BackgroundSource::Repository { .. } => {
                format!("{} background symbols of this repository", self.len())
            }
            BackgroundSource::RepositoryAndBuiltin { distinct_symbols } => format!(
                "{} background symbols ({distinct_symbols} of this repository, the rest generic)",
                self.len()
            ),
            BackgroundSource::Builtin => format!("{} generic background symbols", self.len()),
        }
    }
}

/// Mean, sample standard deviation, z-score and percentile of `score` among `background`.
#[derive(Debug, Clone, Copy)]
struct Calibrated {
    mean: f32,
    sd: f32,
    z: f32,
    percentile: f32,
    n: usize,
}

/// The smallest standard deviation divided by (a constant embedder would otherwise divide by 0).
const MIN_SD: f32 = 1e-6;

fn calibrate(score: f32, background: impl Iterator<Item = f32> + Clone) -> Calibrated {
    let n = background.clone().count();
    if n < 2 {
        return Calibrated {
            mean: score,
            sd: 0.0,
            z: 0.0,
            percentile: 0.5,
            n,
        };
    }
    let nf = n as f32;
    let mean = background.clone().sum::<f32>() / nf;
    let var = background
        .clone()
        .map(|c| (c - mean) * (c - mean))
        .sum::<f32>()
        / (nf - 1.0);
    let sd = var.sqrt();
    let below = background.filter(|c| *c < score).count();
    Calibrated {
        mean,
        sd,
        z: (score - mean) / sd.max(MIN_SD),
        percentile: below as f32 / nf,
        n,
    }
}

/// [`RelevanceScorer`] over an [`Embedder`]: the term as a query, each symbol as a passage of
/// [`symbol_text`], the cosine calibrated against a [`Background`] (which excludes a background
/// symbol with the candidate's own text, so a symbol is never compared with itself).
pub struct CalibratedScorer<'a> {
    embedder: &'a dyn Embedder,
    background: &'a Background,
    thresholds: Thresholds,
}

impl<'a> CalibratedScorer<'a> {
    /// A scorer with [`Thresholds::SYMBOLS`].
    pub fn new(embedder: &'a dyn Embedder, background: &'a Background) -> Self {
        Self {
            embedder,
            background,
            thresholds: Thresholds::SYMBOLS,
        }
    }

    /// The same scorer with other thresholds.
    pub fn with_thresholds(mut self, thresholds: Thresholds) -> Self {
        self.thresholds = thresholds;
        self
    }
}

impl RelevanceScorer for CalibratedScorer<'_> {
    fn score(&self, term: &str, symbols: &[&str]) -> Result<Vec<CalibratedScore>, RelevanceError> {
        if self.embedder.model_id() != self.background.model_id {
            return Err(RelevanceError::ModelMismatch {
                background: self.background.model_id.clone(),
                embedder: self.embedder.model_id().to_string(),
            });
        }
        if symbols.is_empty() {
            return Ok(Vec::new());
        }
        let t = self
            .embedder
            .embed_queries(&[term.trim()])
            .map_err(embedding_error)?
            .into_iter()
            .next()
            .unwrap_or_default();
        let bg: Vec<f32> = self.background.vectors.iter().map(|b| dot(&t, b)).collect();
        let texts: Vec<String> = symbols.iter().map(|s| symbol_text(s)).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors = self
            .embedder
            .embed_passages(&refs)
            .map_err(embedding_error)?;
        let what = self.background.describe();
        Ok(symbols
            .iter()
            .zip(&texts)
            .zip(&vectors)
            .map(|((symbol, text), v)| {
                let cosine = dot(&t, v);
                let others = bg
                    .iter()
                    .zip(&self.background.texts)
                    .filter(|(_, b)| *b != text)
                    .map(|(c, _)| *c);
                let c = calibrate(cosine, others);
                let tier = self.thresholds.tier(c.z);
                CalibratedScore {
                    symbol: symbol.to_string(),
                    tier,
                    cosine,
                    calibrated: c.z,
                    percentile: c.percentile,
                    explanation: format!(
                        "cosine {cosine:.3} against a mean of {:.3} ± {:.3} over {} ({what}): z = {:.2}, above {:.0}% of them → {} (FACT at z ≥ {}, FACT_HIGH_RISK at z ≥ {})",
                        c.mean,
                        c.sd,
                        c.n,
                        c.z,
                        c.percentile * 100.0,
                        tier.name(),
                        self.thresholds.fact,
                        self.thresholds.fact_high_risk
                    ),
                }
            })
            .collect())
    }
}

/// [`REQUEST_PHRASES`] embedded as queries: the background of the quote check.
#[derive(Debug, Clone)]
pub struct PhraseBackground {
    model_id: String,
    vectors: Vec<Vec<f32>>,
}

impl PhraseBackground {
    /// Embeds [`REQUEST_PHRASES`] (64 short queries).
    ///
    /// # Errors
    /// The embedder's error.
    pub fn builtin(embedder: &dyn Embedder) -> Result<Self, EmbedError> {
        Ok(Self {
            model_id: embedder.model_id().to_string(),
            vectors: embedder.embed_queries(REQUEST_PHRASES)?,
        })
    }

    /// The model that embedded it.
    pub fn model_id(&self) -> &str {
        &self.model_id
    }

    /// Number of phrases.
    pub fn len(&self) -> usize {
        self.vectors.len()
    }

    /// Whether it holds no phrase.
    pub fn is_empty(&self) -> bool {
        self.vectors.is_empty()
    }
}

/// Most windows [`request_windows`] returns (bounds the work for long requests).
const MAX_WINDOWS: usize = 48;

/// The parts of a request a slot value is compared with: the whole request, each clause (split at
/// sentence and clause punctuation, ASCII and CJK, and line breaks) and each pair of adjacent
/// clauses; trimmed, de-duplicated, at most 48, whole request first.
pub fn request_windows(query: &str) -> Vec<String> {
    const BREAKS: &[char] = &[
        '。', '、', '，', '．', '！', '？', '；', '：', ',', '.', ';', ':', '!', '?', '\n', '(',
        ')', '（', '）', '「', '」',
    ];
    let clauses: Vec<&str> = query
        .split(BREAKS)
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: String| {
        if !s.is_empty() && !out.contains(&s) && out.len() < MAX_WINDOWS {
            out.push(s);
        }
    };
    push(query.split_whitespace().collect::<Vec<_>>().join(" "));
    for c in &clauses {
        push((*c).to_string());
    }
    for pair in clauses.windows(2) {
        push(format!("{} {}", pair[0], pair[1]));
    }
    out
}

/// How well one text (a slot's value or its quote) matches the request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WindowMatch {
    /// The request window most similar to the text.
    pub best_window: String,
    /// Its cosine with the text (both as queries).
    pub cosine: f32,
    /// z-score of that cosine among the text's cosines to [`REQUEST_PHRASES`].
    pub calibrated: f32,
    /// Percentile among them, in [0, 1].
    pub percentile: f32,
}

/// The quote check's verdict on a slot (see [`SemanticQuoteChecker`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuoteConsistency {
    /// How the value matches the request.
    pub value: WindowMatch,
    /// How the quote matches the request.
    pub quote: WindowMatch,
    /// The smaller of the two calibrated scores: both must be grounded in the request.
    pub calibrated: f32,
    /// Tier of [`Self::calibrated`]; only FACT passes.
    pub tier: Tier,
}

/// The embedding-backed [`QuoteChecker`]: a quote that is not literally in the request passes only
/// if both the slot's value and the quote are semantically consistent with the request: each one's
/// best-matching request window ([`request_windows`]) must score FACT under
/// [`SemanticQuoteChecker::THRESHOLDS`], calibrated against that text's similarity to
/// [`REQUEST_PHRASES`]. Fails closed: an embedding error rejects.
///
/// What it can and cannot tell (docs/RELEVANCE.md, "Quote check"): a value or quote about another
/// topic than the request is rejected reliably; an invented detail on the request's own topic
/// ("when the password is shorter than 8 characters" for "the password is empty") looks like a
/// paraphrase to the model and sometimes passes. The literal check stays the primary one.
pub struct SemanticQuoteChecker<'a> {
    embedder: &'a dyn Embedder,
    phrases: &'a PhraseBackground,
    thresholds: Thresholds,
}

impl<'a> SemanticQuoteChecker<'a> {
    /// FACT at z ≥ 2.5 (FACT_HIGH_RISK at z ≥ 1.5 is reported but does not pass), on the smaller of
    /// the value's and the quote's scores.
    ///
    /// Source: docs/RELEVANCE.md, "Quote check": on 16 requests (English and Japanese) with a
    /// translated or paraphrased slot and an invented slot on the same topic, 12 of 16 genuine and 3
    /// of 16 invented slots pass at 2.5 (15 and 8 at 1.5, 9 and 3 at 3.0, 6 and 1 at 4.0); of 20
    /// off-topic values none passes at any threshold from 1.0. A rejected quote costs the model one
    /// literal re-quote, an accepted invention a FACT slot, hence no lower.
    pub const THRESHOLDS: Thresholds = Thresholds {
        fact: 2.5,
        fact_high_risk: 1.5,
    };

    /// A checker with [`Self::THRESHOLDS`].
    pub fn new(embedder: &'a dyn Embedder, phrases: &'a PhraseBackground) -> Self {
        Self {
            embedder,
            phrases,
            thresholds: Self::THRESHOLDS,
        }
    }

    /// The same checker with other thresholds.
    pub fn with_thresholds(mut self, thresholds: Thresholds) -> Self {
        self.thresholds = thresholds;
        self
    }

    /// Scores `value` and `quote` against the windows of `query`.
    ///
    /// # Errors
    /// [`RelevanceError::Embedding`], or [`RelevanceError::ModelMismatch`] when the phrases were
    /// embedded by another model.
    pub fn consistency(
        &self,
        value: &str,
        quote: &str,
        query: &str,
    ) -> Result<QuoteConsistency, RelevanceError> {
        if self.embedder.model_id() != self.phrases.model_id {
            return Err(RelevanceError::ModelMismatch {
                background: self.phrases.model_id.clone(),
                embedder: self.embedder.model_id().to_string(),
            });
        }
        let windows = request_windows(query);
        let mut texts: Vec<&str> = vec![value.trim(), quote.trim()];
        texts.extend(windows.iter().map(String::as_str));
        let vectors = self
            .embedder
            .embed_queries(&texts)
            .map_err(embedding_error)?;
        if vectors.len() != texts.len() {
            return Err(embedding_error(EmbedError::Inference {
                reason: format!(
                    "the embedder returned {} vectors for {} texts",
                    vectors.len(),
                    texts.len()
                ),
            }));
        }
        let window_vectors = &vectors[2..];
        let matching = |v: &[f32]| {
            let (best, cosine) = window_vectors
                .iter()
                .map(|w| dot(v, w))
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap_or((0, f32::NEG_INFINITY));
            let c = calibrate(cosine, self.phrases.vectors.iter().map(|p| dot(v, p)));
            WindowMatch {
                best_window: windows.get(best).cloned().unwrap_or_default(),
                cosine,
                calibrated: c.z,
                percentile: c.percentile,
            }
        };
        let (value, quote) = (matching(&vectors[0]), matching(&vectors[1]));
        let calibrated = value.calibrated.min(quote.calibrated);
        Ok(QuoteConsistency {
            tier: self.thresholds.tier(calibrated),
            calibrated,
            value,
            quote,
        })
    }
}

impl QuoteChecker for SemanticQuoteChecker<'_> {
    fn semantically_consistent(&self, value: &str, quote: &str, query: &str) -> bool {
        self.consistency(value, quote, query)
            .is_ok_and(|c| c.tier == Tier::Fact)
    }
}
