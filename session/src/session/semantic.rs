//! SEMANTIC: `submit_semantic` records hypotheses for what exploration could not find, given a
//! reason allowed for the shortfall (docs/DESIGN.md#semantic-phase).

use super::requirements::{SemanticReason, Shortfall};
use super::{Hypothesis, HypothesisInput, HypothesisStatus, SemanticResult, SessionState};
use crate::query_frame::{self, MappedSymbol};
use crate::vocab::Phase;
use crate::vocab::SlotSource;

impl SessionState {
    fn shortfalls(&self) -> Vec<Shortfall> {
        let mut out: Vec<Shortfall> = Vec::new();
        for s in self
            .missing_requirements
            .iter()
            .filter_map(|m| m.requirement.shortfall())
        {
            if !out.contains(&s) {
                out.push(s);
            }
        }
        out
    }

    /// Applies `submit_semantic` (docs/DESIGN.md#semantic-phase): the reason must be one allowed
    /// for what is missing; the hypotheses are recorded as HYPOTHESIS and the session moves to
    /// VERIFICATION.
    pub fn submit_semantic(
        &mut self,
        hypotheses: Vec<HypothesisInput>,
        reason: SemanticReason,
    ) -> SemanticResult {
        let reject = |this: &Self, error: String| SemanticResult {
            success: false,
            next_phase: this.phase,
            error: Some(error),
            hypotheses: this.hypotheses.clone(),
            next_action: "fix the submission and call submit_semantic again".into(),
        };
        if hypotheses.is_empty() || hypotheses.iter().any(|h| h.text.trim().is_empty()) {
            return reject(
                self,
                "give at least one hypothesis, each with a non-empty text".into(),
            );
        }
        let shortfalls = self.shortfalls();
        if !shortfalls.is_empty()
            && !shortfalls
                .iter()
                .any(|s| SemanticReason::allowed_for(*s).contains(&reason))
        {
            let mut allowed: Vec<&str> = Vec::new();
            for r in shortfalls
                .iter()
                .flat_map(|s| SemanticReason::allowed_for(*s).iter())
            {
                if !allowed.contains(&r.name()) {
                    allowed.push(r.name());
                }
            }
            return reject(
                self,
                format!(
                    "semantic_reason does not match what is missing; allowed: {}",
                    allowed.join(", ")
                ),
            );
        }
        let start = self.hypotheses.len();
        for (i, h) in hypotheses.into_iter().enumerate() {
            if let (Some(slot), Some(value)) = (h.slot, h.value.as_ref()) {
                self.query_frame.slots.insert(
                    slot,
                    query_frame::SlotValue {
                        value: value.clone(),
                        quote: String::new(),
                        source: SlotSource::Hypothesis,
                        matched: query_frame::QuoteMatch::Semantic,
                    },
                );
            }
            if let Some(sym) = &h.symbol {
                self.query_frame.mapped_symbols.retain(|m| &m.symbol != sym);
                self.query_frame.mapped_symbols.push(MappedSymbol {
                    symbol: sym.clone(),
                    source: SlotSource::Hypothesis,
                    nl_term: h.slot.map(|s| s.name().to_string()),
                    confirmation: None,
                });
            }
            self.hypotheses.push(Hypothesis {
                id: format!("h{}", start + i + 1),
                input: h,
                status: HypothesisStatus::Hypothesis,
                evidence: None,
            });
        }
        self.semantic_reason = Some(reason);
        self.set_phase(Phase::Verification, "submit_semantic");
        SemanticResult {
            success: true,
            next_phase: Phase::Verification,
            error: None,
            hypotheses: self.hypotheses.clone(),
            next_action: Phase::Verification.next_step().into(),
        }
    }
}
