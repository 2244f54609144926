//! The session side of relevance: `confirm_symbol_relevance` applied to a session, the
//! relevance-checked `submit_understanding` result and the `nl_symbol_mapping` requirement.
//!
//! The scoring itself ([`crate::relevance`]) knows nothing of sessions; this module is where its
//! verdicts change a session's mapped symbols and risk.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::{MissingRequirement, SessionState, UnderstandingResult};
use crate::query_frame::{MappedSymbol, SymbolConfirmation};
use crate::relevance::{
    ConfirmInput, ConfirmResult, RelevanceCheck, RelevanceScorer, SymbolVerdict, Thresholds,
    VerdictSource, guidance,
};
use crate::vocab::{RiskLevel, Slot, SlotSource, Tier, now};

/// `submit_understanding` with its relevance check (see
/// [`SessionState::submit_understanding_scored`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoredUnderstandingResult {
    /// The usual result.
    #[serde(flatten)]
    pub result: UnderstandingResult,
    /// The scores of `symbols_identified` against `target_feature`; absent when not checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relevance: Option<RelevanceCheck>,
}

/// Applies `confirm_symbol_relevance` to a session (the phase is checked by the store).
///
/// Every claim needs a non-empty `code_evidence` (a judgement without evidence is invalid,
/// docs/DESIGN.md#relevance-tools); otherwise nothing changes and `errors` names the symbols. Each
/// symbol is scored against the term (`input.nl_term`, else the `target_feature` slot): FACT and
/// FACT + HIGH symbols are added to (or updated in) `mapped_symbols` as FACT with the term and a
/// [`SymbolConfirmation`]; REJECTED symbols are removed from it; any FACT + HIGH raises the
/// session's risk floor to HIGH (the grey zone raises the exploration quota, docs/DESIGN.md#tiers).
/// A scoring failure is reported as `error: scoring_failed` with nothing changed.
pub fn confirm_symbol_relevance(
    state: &mut SessionState,
    input: &ConfirmInput,
    scorer: &dyn RelevanceScorer,
    thresholds: &Thresholds,
) -> ConfirmResult {
    let term = input
        .nl_term
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(String::from)
        .or_else(|| {
            state
                .query_frame
                .slots
                .get(&Slot::TargetFeature)
                .map(|v| v.value.clone())
        });
    let refuse =
        |state: &SessionState, error: &str, errors: Vec<String>, term: String| ConfirmResult {
            success: false,
            error: Some(error.into()),
            errors,
            nl_term: term,
            results: Vec::new(),
            risk_level: state.risk_level(),
            mapped_symbols: state.query_frame.mapped_symbols.clone(),
            next_action: "fix the submission and call confirm_symbol_relevance again".into(),
        };
    let mut errors = Vec::new();
    if term.is_none() {
        errors.push(
            "no nl_term given and the query frame has no target_feature: pass nl_term or call set_query_frame first".into(),
        );
    }
    if input.claims.is_empty() {
        errors.push("relevant_symbols is empty: name at least one symbol".into());
    }
    let mut seen = BTreeSet::new();
    for c in &input.claims {
        if c.symbol.trim().is_empty() {
            errors.push("relevant_symbols contains an empty symbol".into());
        } else if !seen.insert(c.symbol.trim()) {
            errors.push(format!("'{}' is listed twice", c.symbol.trim()));
        } else if c.code_evidence.trim().is_empty() {
            errors.push(format!(
                "code_evidence for '{}' is missing: cite where the code shows it implements the term (method names, comments, naming); a judgement without evidence is invalid",
                c.symbol.trim()
            ));
        }
    }
    let term = term.unwrap_or_default();
    if !errors.is_empty() {
        return refuse(state, "validation_failed", errors, term);
    }
    let symbols: Vec<&str> = input.claims.iter().map(|c| c.symbol.trim()).collect();
    let verdicts = match scorer.score(&term, &symbols) {
        Ok(v) if v.len() == symbols.len() => v,
        Ok(v) => {
            return refuse(
                state,
                "scoring_failed",
                vec![format!(
                    "the scorer returned {} verdicts for {} symbols",
                    v.len(),
                    symbols.len()
                )],
                term,
            );
        }
        Err(e) => return refuse(state, "scoring_failed", vec![e.to_string()], term),
    };
    let now = now();
    let mut results = Vec::with_capacity(verdicts.len());
    for (claim, v) in input.claims.iter().zip(verdicts) {
        let symbol = claim.symbol.trim().to_string();
        let approved = v.tier != Tier::Rejected;
        let frame = &mut state.query_frame;
        if approved {
            let confirmation = SymbolConfirmation {
                code_evidence: claim.code_evidence.trim().to_string(),
                tier: v.tier,
                similarity: v.cosine,
                calibrated: v.calibrated,
                confirmed_at: now.clone(),
            };
            match frame.mapped_symbols.iter_mut().find(|m| m.symbol == symbol) {
                Some(m) => {
                    m.source = SlotSource::Fact;
                    m.nl_term = Some(term.clone());
                    m.confirmation = Some(confirmation);
                }
                None => frame.mapped_symbols.push(MappedSymbol {
                    symbol: symbol.clone(),
                    source: SlotSource::Fact,
                    nl_term: Some(term.clone()),
                    confirmation: Some(confirmation),
                }),
            }
        } else {
            frame.mapped_symbols.retain(|m| m.symbol != symbol);
        }
        if v.tier == Tier::FactHighRisk {
            state.risk_floor = state.risk_floor.max(RiskLevel::High);
        }
        results.push(SymbolVerdict {
            approved,
            source: if approved {
                VerdictSource::Fact
            } else {
                VerdictSource::Rejected
            },
            tier: v.tier,
            risk_adjustment: (v.tier == Tier::FactHighRisk).then_some(RiskLevel::High),
            similarity: v.cosine,
            calibrated: v.calibrated,
            percentile: v.percentile,
            warning: (v.tier == Tier::FactHighRisk).then(|| {
                format!(
                    "calibrated score {:.2} is in the grey zone ({:.2}..{:.2}): accepted, but the session's risk is now HIGH; explore more to strengthen the evidence",
                    v.calibrated, thresholds.fact_high_risk, thresholds.fact
                )
            }),
            reinvestigation_guidance: (v.tier == Tier::Rejected)
                .then(|| guidance(&term, &symbol, v.calibrated, thresholds)),
            explanation: v.explanation,
            symbol,
        });
    }
    let rejected = results.iter().filter(|r| !r.approved).count();
    let next_action = if rejected > 0 {
        format!(
            "{rejected} symbol(s) rejected: follow their reinvestigation_guidance, then confirm the symbols you find"
        )
    } else {
        format!("continue: {}", state.phase.next_step())
    };
    ConfirmResult {
        success: true,
        error: None,
        errors: Vec::new(),
        nl_term: term,
        results,
        risk_level: state.risk_level(),
        mapped_symbols: state.query_frame.mapped_symbols.clone(),
        next_action,
    }
}

/// The `nl_symbol_mapping` requirement of a relevance check when every symbol was rejected
/// (docs/DESIGN.md#understanding-check).
pub fn nl_symbol_mapping_requirement(check: &RelevanceCheck) -> Option<MissingRequirement> {
    if check.best != Some(Tier::Rejected) {
        return None;
    }
    let listed: Vec<String> = check
        .verdicts
        .iter()
        .map(|v| format!("'{}'", v.symbol))
        .collect();
    Some(MissingRequirement {
        requirement: super::Requirement::NlSymbolMapping,
        required: None,
        provided: None,
        item: Some(check.nl_term.clone()),
        message: format!(
            "nl_symbol_mapping: '{}' has no matching symbol in [{}]; find the symbols that implement it (validate_symbol_relevance ranks candidates, confirm_symbol_relevance records them)",
            check.nl_term,
            listed.join(", ")
        ),
    })
}
