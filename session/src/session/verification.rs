//! VERIFICATION: `submit_verification` confirms or rejects each hypothesis with evidence from an
//! exploration tool called in this phase; READY once none is left.

use std::collections::BTreeSet;

use super::{HypothesisStatus, SessionState, VerdictStatus, VerificationInput, VerificationResult};
use crate::vocab::SlotSource;
use crate::vocab::{Phase, Tool};

impl SessionState {
    /// Applies `submit_verification`: each result needs evidence from an exploration tool called
    /// in this VERIFICATION phase; confirmed → FACT, rejected → dropped from the frame. READY only
    /// when no HYPOTHESIS remains.
    pub fn submit_verification(&mut self, results: Vec<VerificationInput>) -> VerificationResult {
        let verified_with: BTreeSet<&str> = self
            .tool_calls
            .iter()
            .filter(|c| c.phase == Phase::Verification)
            .map(|c| c.tool.as_str())
            .collect();
        let mut errors = Vec::new();
        let mut updates = Vec::new();
        for r in results {
            let Some(idx) = self.hypotheses.iter().position(|h| h.id == r.hypothesis_id) else {
                errors.push(format!("unknown hypothesis '{}'", r.hypothesis_id));
                continue;
            };
            if !Tool::from_name(&r.evidence.tool).is_some_and(Tool::is_exploration) {
                let names: Vec<&str> = Tool::EXPLORATION.iter().map(|t| t.name()).collect();
                errors.push(format!(
                    "{}: evidence tool '{}' is not an exploration tool ({})",
                    r.hypothesis_id,
                    r.evidence.tool,
                    names.join(", ")
                ));
                continue;
            }
            if !verified_with.contains(r.evidence.tool.as_str()) {
                errors.push(format!(
                    "{}: '{}' was not called in the VERIFICATION phase; run it, then resubmit",
                    r.hypothesis_id, r.evidence.tool
                ));
                continue;
            }
            updates.push((idx, r));
        }
        for (idx, r) in updates {
            let confirmed = r.status == VerdictStatus::Confirmed;
            let h = &mut self.hypotheses[idx];
            h.status = if confirmed {
                HypothesisStatus::Confirmed
            } else {
                HypothesisStatus::Rejected
            };
            h.evidence = Some(r.evidence);
            let (slot, symbol) = (h.input.slot, h.input.symbol.clone());
            if let Some(slot) = slot {
                if confirmed {
                    if let Some(v) = self.query_frame.slots.get_mut(&slot) {
                        v.source = SlotSource::Fact;
                    }
                } else if self
                    .query_frame
                    .slots
                    .get(&slot)
                    .is_some_and(|v| v.source == SlotSource::Hypothesis)
                {
                    self.query_frame.slots.remove(&slot);
                }
            }
            if let Some(sym) = symbol {
                if confirmed {
                    for m in self
                        .query_frame
                        .mapped_symbols
                        .iter_mut()
                        .filter(|m| m.symbol == sym)
                    {
                        m.source = SlotSource::Fact;
                    }
                } else {
                    self.query_frame.mapped_symbols.retain(|m| m.symbol != sym);
                }
            }
        }
        let mut remaining: Vec<String> = self
            .hypotheses
            .iter()
            .filter(|h| h.status == HypothesisStatus::Hypothesis)
            .map(|h| format!("{}: {}", h.id, h.input.text))
            .collect();
        if remaining.is_empty() {
            // Slots or symbols still HYPOTHESIS without an open hypothesis record (e.g. edited state).
            remaining = self.query_frame.hypotheses();
        }
        let ready = remaining.is_empty();
        if ready {
            self.set_phase(Phase::Ready, "submit_verification");
        }
        VerificationResult {
            success: errors.is_empty(),
            next_phase: self.phase,
            errors,
            remaining_hypotheses: remaining,
            hypotheses: self.hypotheses.clone(),
            next_action: if ready {
                Phase::Ready.next_step().into()
            } else {
                Phase::Verification.next_step().into()
            },
        }
    }
}
