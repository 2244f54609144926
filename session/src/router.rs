//! The router: which exploration tools a request needs and how risky it is
//! (docs/DESIGN.md#router).
//!
//! The plan is the tools of `SLOT_TO_TOOLS` for every missing slot, adjusted by intent and
//! deduplicated in first-seen order (docs/DESIGN.md#plan). The risk level takes the higher of two
//! rules (docs/DESIGN.md#risk):
//! - by the number of missing slots: ≥ 3 → HIGH, 2 → MEDIUM, otherwise LOW;
//! - by intent (first match wins): MODIFY without an observed issue → HIGH,
//!   IMPLEMENT → MEDIUM, INVESTIGATE/QUESTION → LOW, all slots filled → LOW.
//!
//! Taking the maximum means neither rule can lower what the other found: a MODIFY request that
//! does not say what goes wrong stays HIGH however many other slots it fills, and an IMPLEMENT
//! request missing three slots is HIGH although the intent rule alone would say MEDIUM. A
//! session's risk can only be raised later (relevance verdicts), never lowered below the plan's.

use serde::{Deserialize, Serialize};

use crate::query_frame::QueryFrame;
use crate::vocab::RiskLevel;
use crate::vocab::Slot;
use crate::vocab::{Intent, Phase, Tool};

/// Exploration tools per missing slot (`SLOT_TO_TOOLS`, docs/DESIGN.md#plan). `desired_action`
/// needs none.
pub fn tools_for_slot(slot: Slot) -> &'static [Tool] {
    match slot {
        Slot::TargetFeature => &[Tool::FindDefinitions, Tool::SearchText],
        Slot::TriggerCondition => &[Tool::FindReferences, Tool::SearchText],
        Slot::ObservedIssue => &[Tool::SearchText, Tool::AnalyzeStructure],
        Slot::DesiredAction => &[],
    }
}

/// An exploration plan (docs/DESIGN.md#plan): tools, not executable steps; the model runs the
/// tools itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Tools to use, deduplicated, in order.
    pub tools: Vec<Tool>,
    /// Risk level.
    pub risk_level: RiskLevel,
    /// Slots the request leaves open.
    pub missing_slots: Vec<Slot>,
    /// Phases the session is expected to pass through.
    pub required_phases: Vec<String>,
    /// Whether exploration must start from scratch (no target feature to anchor on).
    pub needs_bootstrap: bool,
    /// Why, when `needs_bootstrap`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bootstrap_reason: Option<String>,
    /// One line on how the plan was derived.
    pub reasoning: String,
}

/// Builds the plan for `intent` and the current frame.
pub fn plan(intent: Intent, frame: &QueryFrame) -> Plan {
    let missing = frame.missing_slots();
    let mut tools: Vec<Tool> = missing
        .iter()
        .flat_map(|s| tools_for_slot(*s).iter().copied())
        .collect();
    // Intent adjustments (docs/DESIGN.md#plan).
    match intent {
        // IMPLEMENT recommends all tools; the requirements need definitions and references.
        Intent::Implement => tools.extend([
            Tool::FindDefinitions,
            Tool::FindReferences,
            Tool::SearchText,
            Tool::AnalyzeStructure,
        ]),
        // MODIFY prioritises find_references; the requirements need definitions too.
        Intent::Modify => {
            tools.insert(0, Tool::FindReferences);
            tools.push(Tool::FindDefinitions);
        }
        Intent::Investigate => {
            tools.insert(0, Tool::AnalyzeStructure);
        }
        Intent::Question => tools.truncate(1),
    }
    let mut seen = std::collections::HashSet::new();
    let tools: Vec<Tool> = tools.into_iter().filter(|t| seen.insert(*t)).collect();
    let risk_level = assess_risk(intent, frame);
    let needs_bootstrap =
        !frame.slots.contains_key(&Slot::TargetFeature) && intent != Intent::Question;
    // SEMANTIC and VERIFICATION are entered only when exploration falls short.
    let required_phases = vec![Phase::Exploration.name().into(), Phase::Ready.name().into()];
    Plan {
        reasoning: format!(
            "{} missing slot(s) [{}] → tools of SLOT_TO_TOOLS adjusted for {}; risk {:?}",
            missing.len(),
            missing.iter().map(|s| s.name()).collect::<Vec<_>>().join(", "),
            intent.name(),
            risk_level
        ),
        tools,
        risk_level,
        missing_slots: missing,
        required_phases,
        needs_bootstrap,
        bootstrap_reason: needs_bootstrap.then(|| "target_feature unknown: start from find_definitions/search_text on the request's nouns".into()),
    }
}

/// The risk level of the module docs: the higher of the count rule and the intent rule.
pub fn assess_risk(intent: Intent, frame: &QueryFrame) -> RiskLevel {
    let missing = frame.missing_slots();
    let by_count = match missing.len() {
        n if n >= 3 => RiskLevel::High,
        2 => RiskLevel::Medium,
        _ => RiskLevel::Low,
    };
    let by_intent = match intent {
        Intent::Modify if missing.contains(&Slot::ObservedIssue) => RiskLevel::High,
        Intent::Implement => RiskLevel::Medium,
        _ => RiskLevel::Low,
    };
    by_count.max(by_intent)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query_frame::{QuoteMatch, SlotValue};
    use crate::vocab::SlotSource;

    fn frame(filled: &[Slot]) -> QueryFrame {
        let mut f = QueryFrame::new("q");
        for s in filled {
            f.slots.insert(
                *s,
                SlotValue {
                    value: "v".into(),
                    quote: "q".into(),
                    source: SlotSource::Fact,
                    matched: QuoteMatch::Exact,
                },
            );
        }
        f
    }

    #[test]
    fn plan_follows_slot_to_tools_and_intent() {
        let p = plan(
            Intent::Modify,
            &frame(&[Slot::TargetFeature, Slot::ObservedIssue]),
        );
        assert_eq!(
            p.tools,
            ["find_references", "search_text", "find_definitions"]
        );
        assert_eq!(
            p.missing_slots,
            [Slot::TriggerCondition, Slot::DesiredAction]
        );
        assert_eq!(p.risk_level, RiskLevel::Medium);
        assert!(!p.needs_bootstrap);
        let p = plan(Intent::Investigate, &frame(&[]));
        assert_eq!(
            p.tools,
            [
                "analyze_structure",
                "find_definitions",
                "search_text",
                "find_references"
            ]
        );
        assert!(p.needs_bootstrap);
    }

    #[test]
    fn risk_takes_the_higher_rule() {
        use Slot::*;
        // Count rule alone.
        assert_eq!(
            assess_risk(Intent::Investigate, &frame(&[TargetFeature])),
            RiskLevel::High
        );
        assert_eq!(
            assess_risk(Intent::Investigate, &frame(&[TargetFeature, ObservedIssue])),
            RiskLevel::Medium
        );
        // Intent rule dominates.
        assert_eq!(
            assess_risk(
                Intent::Modify,
                &frame(&[TargetFeature, TriggerCondition, DesiredAction])
            ),
            RiskLevel::High
        );
        assert_eq!(
            assess_risk(
                Intent::Implement,
                &frame(&[
                    TargetFeature,
                    TriggerCondition,
                    ObservedIssue,
                    DesiredAction
                ])
            ),
            RiskLevel::Medium
        );
        assert_eq!(
            assess_risk(
                Intent::Modify,
                &frame(&[
                    TargetFeature,
                    TriggerCondition,
                    ObservedIssue,
                    DesiredAction
                ])
            ),
            RiskLevel::Low
        );
    }
}
