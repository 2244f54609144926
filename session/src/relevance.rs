//! NL term ↔ symbol relevance: the three-tier verdicts of docs/DESIGN.md#tiers (FACT, FACT + risk
//! HIGH, REJECTED) decided on a calibrated score, `validate_symbol_relevance` (the prompt that
//! demands `code_evidence`, embedding suggestions, cached learned pairs) and
//! `confirm_symbol_relevance` (per-symbol verdicts that update the session's mapped symbols and
//! risk).
//!
//! # Why calibrated
//! The Python-era design decided on the raw cosine (> 0.6 FACT, 0.3–0.6 FACT + HIGH, < 0.3
//! REJECTED; docs/DESIGN.md#calibrated-score). With
//! multilingual-e5-small every pair of texts scores about 0.76–0.92 (shared/docs/EMBEDDINGS.md),
//! so those thresholds would approve everything. The score used instead is the cosine of the term
//! to the symbol *relative to the term's cosines to a background sample of the repository's other
//! symbols*: `z = (cos(t, s) − mean_b cos(t, b)) / sd_b cos(t, b)` ([`Thresholds::SYMBOLS`]; the
//! embedding side is `calibrated`, behind the `embed` feature). The numbers and how they were
//! measured are in docs/RELEVANCE.md.
//!
//! This module needs no model: the verdict types, the [`RelevanceScorer`] seam, the prompt and
//! learned pairs (the hooks link it), and tests drive them with any scorer. The calibrated scorer
//! over the embedding model is `code_intel_core::relevance` (this module plus `CalibratedScorer`,
//! `SemanticQuoteChecker` and their backgrounds).

use crate::learned;

use std::collections::BTreeSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::learned::LearnedPair;
use crate::query_frame::{MappedSymbol, normalize_for_quote};
use crate::vocab::RiskLevel;
use crate::vocab::Tier;

/// Where the calibrated score must reach for each tier.
///
/// Units: the calibrated score is a z-score (standard deviations above the term's mean cosine to
/// the background sample), unbounded, 0 = as similar as a random symbol of the repository.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Thresholds {
    /// `z >= fact` → [`Tier::Fact`].
    pub fact: f32,
    /// `fact_high_risk <= z < fact` → [`Tier::FactHighRisk`]; below → [`Tier::Rejected`].
    pub fact_high_risk: f32,
}

impl Thresholds {
    /// Symbol verdicts: FACT at z ≥ 2.0, FACT + HIGH at z ≥ 1.0.
    ///
    /// Source: docs/RELEVANCE.md, measured with multilingual-e5-small on 30 (term, related symbol,
    /// unrelated symbol) triples from Flask, Express and Laravel, each term in English and Japanese,
    /// 200-symbol repository backgrounds: of 60 related pairs 54 reach FACT, 3 FACT + HIGH and 3 are
    /// rejected; of 60 unrelated pairs none reaches FACT, 1 reaches FACT + HIGH and 59 are rejected.
    pub const SYMBOLS: Thresholds = Thresholds {
        fact: 2.0,
        fact_high_risk: 1.0,
    };

    /// The tier of a calibrated score (a NaN score is rejected).
    pub fn tier(&self, calibrated: f32) -> Tier {
        if calibrated >= self.fact {
            Tier::Fact
        } else if calibrated >= self.fact_high_risk {
            Tier::FactHighRisk
        } else {
            Tier::Rejected
        }
    }
}

/// The calibrated judgement of one (term, symbol) pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalibratedScore {
    /// The symbol as given.
    pub symbol: String,
    /// The tier.
    pub tier: Tier,
    /// Raw cosine similarity of the term (query) and the symbol (passage), in [-1, 1]; about
    /// 0.76–0.92 for any pair with multilingual-e5-small, so never compared with a fixed threshold.
    pub cosine: f32,
    /// The calibrated score the tier is decided on: a z-score (see [`Thresholds`]).
    pub calibrated: f32,
    /// Fraction of background symbols the term is less similar to than to this symbol, in [0, 1].
    pub percentile: f32,
    /// One sentence saying how the tier was reached (numbers included).
    pub explanation: String,
}

/// Scores how strongly a natural-language term names each symbol: the seam between sessions and
/// the embedding model (`calibrated::CalibratedScorer` with the `embed` feature; any
/// implementation in tests).
pub trait RelevanceScorer {
    /// One [`CalibratedScore`] per symbol, in input order.
    ///
    /// # Errors
    /// [`RelevanceError`] when the model fails or does not match the background it is calibrated on.
    fn score(&self, term: &str, symbols: &[&str]) -> Result<Vec<CalibratedScore>, RelevanceError>;
}

/// Why relevance could not be scored.
#[derive(Debug, thiserror::Error)]
pub enum RelevanceError {
    /// The embedding model failed.
    #[error("embedding failed while scoring relevance: {source}")]
    Embedding {
        /// The model's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The background was embedded by another model than the one scoring.
    #[error(
        "the relevance background was embedded with {background}, the scorer uses {embedder}: rebuild the background"
    )]
    ModelMismatch {
        /// Model id of the background.
        background: String,
        /// Model id of the embedder.
        embedder: String,
    },
}

/// Re-investigation guidance for a rejected symbol (docs/DESIGN.md#tiers).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Guidance {
    /// Why the symbol was rejected.
    pub reason: String,
    /// What to do instead.
    pub next_actions: Vec<String>,
    /// When exploration cannot find a better symbol.
    pub fallback: String,
}

/// The guidance for `term` ↔ `symbol`, rejected with calibrated score `z`.
pub fn guidance(term: &str, symbol: &str, z: f32, thresholds: &Thresholds) -> Guidance {
    Guidance {
        reason: format!(
            "'{term}' and '{symbol}' are not more similar than unrelated symbols of this repository (calibrated score {z:.2} < {:.2})",
            thresholds.fact_high_risk
        ),
        next_actions: vec![
            format!("search_text for words of '{term}' to find another symbol"),
            format!(
                "find_references('{symbol}') to check where it is used and whether it really implements '{term}'"
            ),
            "find code that proves the relation (a comment, a docstring, a naming convention) and cite it as code_evidence".into(),
        ],
        fallback: "if exploration cannot find it, submit_understanding with what you have and use semantic_search in the SEMANTIC phase".into(),
    }
}

/// Whether a verdict approves the symbol (the `source` field of a verdict,
/// docs/DESIGN.md#relevance-tools).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum VerdictSource {
    /// Approved.
    Fact,
    /// Rejected.
    Rejected,
}

/// One symbol's answer of `confirm_symbol_relevance` (docs/DESIGN.md#relevance-tools): approval,
/// source, tier, risk adjustment, plus the calibrated numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SymbolVerdict {
    /// The symbol.
    pub symbol: String,
    /// Whether it was accepted (FACT or FACT + HIGH).
    pub approved: bool,
    /// `FACT` or `REJECTED`.
    pub source: VerdictSource,
    /// The tier.
    pub tier: Tier,
    /// `HIGH` for the grey zone: the session's risk was raised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk_adjustment: Option<RiskLevel>,
    /// Raw cosine (see [`CalibratedScore::cosine`]).
    pub similarity: f32,
    /// Calibrated z-score (see [`CalibratedScore::calibrated`]).
    pub calibrated: f32,
    /// Percentile among background symbols (see [`CalibratedScore::percentile`]).
    pub percentile: f32,
    /// How the tier was reached.
    pub explanation: String,
    /// Grey-zone warning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// What to do after a rejection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reinvestigation_guidance: Option<Guidance>,
}

/// A symbol the model claims is relevant, with its evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolClaim {
    /// The symbol (`AuthService`, `AuthService.login`, `App\Auth\Guard::attempt`).
    pub symbol: String,
    /// Where the code shows the relation (method names, comments, naming); mandatory.
    pub code_evidence: String,
}

/// `confirm_symbol_relevance` input.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfirmInput {
    /// The natural-language term; default: the session's `target_feature` value.
    #[serde(default)]
    pub nl_term: Option<String>,
    /// The claimed symbols, each with evidence.
    pub claims: Vec<SymbolClaim>,
}

/// `confirm_symbol_relevance` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfirmResult {
    /// False when the submission was refused (nothing changed).
    pub success: bool,
    /// `validation_failed` or `scoring_failed` when refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Why it was refused.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// The term the symbols were checked against.
    pub nl_term: String,
    /// One verdict per claimed symbol.
    pub results: Vec<SymbolVerdict>,
    /// The session's risk level after the call.
    pub risk_level: RiskLevel,
    /// The session's mapped symbols after the call.
    pub mapped_symbols: Vec<MappedSymbol>,
    /// What to do next.
    pub next_action: String,
}

/// The relevance check `submit_understanding` runs on `symbols_identified`
/// (docs/DESIGN.md#understanding-check: at least one symbol must match the target feature).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelevanceCheck {
    /// The `target_feature` value the symbols were checked against.
    pub nl_term: String,
    /// One verdict per identified symbol, in input order (empty when scoring failed).
    pub verdicts: Vec<CalibratedScore>,
    /// The best tier among them (`None` when scoring failed).
    pub best: Option<Tier>,
    /// Whether this submission raised the session's risk to HIGH (no symbol reached FACT).
    pub risk_raised: bool,
    /// Why nothing was scored, when scoring failed (the evaluation then ignores relevance).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl RelevanceCheck {
    /// Scores `symbols` against `term`; a scorer error becomes [`Self::error`].
    pub fn run(term: &str, symbols: &[String], scorer: &dyn RelevanceScorer) -> Self {
        let refs: Vec<&str> = symbols.iter().map(|s| s.trim()).collect();
        match scorer.score(term, &refs) {
            Ok(verdicts) => Self {
                nl_term: term.to_string(),
                best: verdicts.iter().map(|v| v.tier).max(),
                verdicts,
                risk_raised: false,
                error: None,
            },
            Err(e) => Self {
                nl_term: term.to_string(),
                verdicts: Vec::new(),
                best: None,
                risk_raised: false,
                error: Some(e.to_string()),
            },
        }
    }

    /// Whether the session's risk must be raised to HIGH: symbols were scored and none is FACT.
    pub fn raises_risk(&self) -> bool {
        self.best.is_some_and(|t| t < Tier::Fact)
    }
}

/// One ranked embedding suggestion of `validate_symbol_relevance`
/// (docs/DESIGN.md#relevance-tools).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmbeddingSuggestion {
    /// 1 = most related.
    pub rank: usize,
    /// The symbol.
    pub symbol: String,
    /// The tier `confirm_symbol_relevance` would give it.
    pub tier: Tier,
    /// Raw cosine.
    pub similarity: f32,
    /// Calibrated z-score (the ranking key).
    pub calibrated: f32,
    /// Percentile among background symbols.
    pub percentile: f32,
}

/// `validate_symbol_relevance` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValidationResponse {
    /// The prompt the model must answer (with `code_evidence` per symbol).
    pub validation_prompt: String,
    /// All given symbols ranked by calibrated score, best first (empty without a model).
    pub embedding_suggestions: Vec<EmbeddingSuggestion>,
    /// Learned pairs of earlier successful sessions for this term and these symbols.
    pub cached_matches: Vec<LearnedPair>,
    /// What the model must do with the prompt.
    pub action_required: String,
    /// How to read the suggestions and cached matches.
    pub note: String,
    /// Problems that did not stop the answer (no model, unreadable learned pairs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Most symbols one validation scores (bounds the embedding work of one call).
pub const MAX_SYMBOLS: usize = 100;

/// `validate_symbol_relevance` (docs/DESIGN.md#relevance-tools): the prompt demanding
/// `code_evidence`, the symbols ranked by calibrated score when a scorer is given, and the learned
/// pairs (`<state_dir>/learned_pairs.json`, version 2, docs/DESIGN.md#cached-pairs) whose term
/// equals `target_feature` (after [`normalize_for_quote`]) and whose symbol is among `symbols`.
///
/// Symbols are trimmed, de-duplicated and cut to [`MAX_SYMBOLS`]. A missing scorer, a scoring failure
/// or an unreadable learned-pairs file leave their part empty and add a warning. Pairs older than
/// `expiry` allows are not offered.
pub fn validate_symbol_relevance(
    state_dir: &Path,
    expiry: &learned::Expiry,
    target_feature: &str,
    symbols: &[String],
    scorer: Option<&dyn RelevanceScorer>,
    scorer_unavailable: Option<&str>,
) -> ValidationResponse {
    let target = target_feature.trim();
    let mut seen = BTreeSet::new();
    let mut list: Vec<&str> = symbols
        .iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty() && seen.insert(*s))
        .collect();
    let mut warnings = Vec::new();
    if list.len() > MAX_SYMBOLS {
        warnings.push(format!(
            "{} symbols given, only the first {MAX_SYMBOLS} were considered",
            list.len()
        ));
        list.truncate(MAX_SYMBOLS);
    }
    let mut suggestions = Vec::new();
    match scorer {
        Some(scorer) if !list.is_empty() && !target.is_empty() => {
            match scorer.score(target, &list) {
                Ok(mut verdicts) => {
                    verdicts.sort_by(|a, b| b.calibrated.total_cmp(&a.calibrated));
                    suggestions = verdicts
                        .into_iter()
                        .enumerate()
                        .map(|(i, v)| EmbeddingSuggestion {
                            rank: i + 1,
                            symbol: v.symbol,
                            tier: v.tier,
                            similarity: v.cosine,
                            calibrated: v.calibrated,
                            percentile: v.percentile,
                        })
                        .collect();
                }
                Err(e) => warnings.push(format!("no embedding suggestions: {e}")),
            }
        }
        Some(_) => {}
        None => warnings.push(format!(
            "no embedding suggestions: {}",
            scorer_unavailable.unwrap_or("no embedding model")
        )),
    }
    let cached_matches = match learned::load(state_dir) {
        Ok(Some(pairs)) => {
            let mut found = learned::matches(&pairs.pairs, target, &list);
            found.retain(|p| !expiry.is_expired(p.learned_at.as_deref()));
            found
        }
        Ok(None) => Vec::new(),
        Err(e) => {
            warnings.push(format!("learned pairs ignored: {e}"));
            Vec::new()
        }
    };
    ValidationResponse {
        validation_prompt: validation_prompt(target, &list),
        embedding_suggestions: suggestions,
        cached_matches,
        action_required: "answer the validation_prompt, then call confirm_symbol_relevance(relevant_symbols, code_evidence) with your answer".into(),
        note: "embedding_suggestions are computed by the server (calibrated against this repository's symbols; tier = the verdict confirm_symbol_relevance would give); cached_matches are pairs that succeeded in earlier sessions: prefer them. Neither replaces reading the code.".into(),
        warnings,
    }
}

/// The prompt of `validate_symbol_relevance`, in English, with per-symbol evidence
/// (docs/DESIGN.md#relevance-tools).
pub fn validation_prompt(target_feature: &str, symbols: &[&str]) -> String {
    let listed: String = symbols.iter().map(|s| format!("- {s}\n")).collect();
    format!(
        "From the symbols below, choose those that implement the target feature \"{target_feature}\".\n\
         Symbols:\n{listed}\n\
         Answer format:\n\
         {{\n  \"relevant_symbols\": [\"symbol names that are relevant\"],\n  \"reasoning\": \"why you chose them\",\n  \
         \"code_evidence\": {{\"<symbol>\": \"where the code shows it (method names, comments, naming conventions)\"}}\n}}\n\
         code_evidence is mandatory for every symbol you choose: a judgement without evidence is invalid.\n\
         Then call confirm_symbol_relevance(relevant_symbols, code_evidence): the server checks each symbol \
         against \"{target_feature}\" and answers FACT, FACT with risk HIGH, or REJECTED with guidance."
    )
}

/// Whether two natural-language terms are the same after quote normalisation (NFKC, case,
/// whitespace).
pub fn same_term(a: &str, b: &str) -> bool {
    normalize_for_quote(a) == normalize_for_quote(b)
}

#[cfg(test)]
mod tests;
