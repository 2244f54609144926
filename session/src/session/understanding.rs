//! EXPLORATION's transitions: `set_query_frame` (the quoted slots) and `submit_understanding`
//! with its evaluation against the requirement table (docs/DESIGN.md#submit-understanding).

use super::requirements::{self, Requirements, SemanticReason, Shortfall};
use super::{
    Confidence, MissingRequirement, Requirement, ScoredUnderstandingResult, SessionState,
    SetQueryFrameResult, Understanding, UnderstandingResult, nl_symbol_mapping_requirement,
};
use crate::query_frame::{self, MappedSymbol, QueryFrameInput, QuoteChecker};
use crate::repo_path::{RepoPath, RepoRoot};
use crate::router::{self};
use crate::vocab::RiskLevel;
use crate::vocab::Slot;
use crate::vocab::SlotSource;
use crate::vocab::{Intent, Phase, now};

impl SessionState {
    /// Applies `set_query_frame`: validates each submitted slot's quote against the request,
    /// stores the accepted ones as FACT, and re-plans (the decision journal entry is the store's).
    pub fn set_query_frame(
        &mut self,
        input: &QueryFrameInput,
        checker: &dyn QuoteChecker,
    ) -> SetQueryFrameResult {
        let mut errors = Vec::new();
        let mut accepted = Vec::new();
        for (slot, slot_input) in input.slots() {
            match query_frame::validate_slot(slot, slot_input, &self.query, checker) {
                Ok(v) => {
                    self.query_frame.slots.insert(slot, v);
                    accepted.push(slot);
                }
                Err(e) => errors.push(e),
            }
        }
        self.frame_set = true;
        self.plan = router::plan(self.intent, &self.query_frame);
        let success = errors.is_empty();
        SetQueryFrameResult {
            success,
            error: (!success).then(|| "validation_failed".into()),
            message: if success {
                format!("Query frame set. Next: {}", Phase::Exploration.next_step())
            } else {
                "Some slot validations failed. Check quotes match original query.".into()
            },
            validation_errors: errors,
            accepted_slots: accepted,
            missing_slots: self.query_frame.missing_slots(),
            risk_level: self.risk_level(),
            plan: self.plan.clone(),
        }
    }

    /// Evaluates `submit_understanding` (docs/DESIGN.md#submit-understanding): consistency,
    /// requirement table by intent × risk with markup relaxation, required tools from the
    /// session's own record, slot evidence at HIGH risk. Invalid input or missing tools/evidence
    /// keep the phase (fix and resubmit); count shortfalls move to SEMANTIC; otherwise READY.
    pub fn submit_understanding(
        &mut self,
        root: &RepoRoot,
        input: Understanding,
    ) -> UnderstandingResult {
        self.evaluate_understanding(root, input, None)
    }

    /// [`Self::submit_understanding`] with the relevance check of `symbols_identified` against the
    /// `target_feature` slot (docs/DESIGN.md#understanding-check, decided by calibrated verdicts,
    /// see [`crate::relevance`]). When no symbol is at least FACT the risk is raised to HIGH before
    /// the requirements are evaluated; when none is even FACT + HIGH, a missing requirement
    /// `nl_symbol_mapping` keeps the session from READY (it goes to SEMANTIC).
    /// Without a target feature or symbols nothing is scored; a scoring failure is reported and
    /// the evaluation proceeds as without a model. Invalid input changes nothing (risk included).
    pub fn submit_understanding_scored(
        &mut self,
        root: &RepoRoot,
        input: Understanding,
        scorer: &dyn crate::relevance::RelevanceScorer,
    ) -> ScoredUnderstandingResult {
        let term = self
            .query_frame
            .slots
            .get(&Slot::TargetFeature)
            .map(|v| v.value.clone());
        let mut check = term
            .filter(|_| !input.symbols_identified.is_empty())
            .map(|t| crate::relevance::RelevanceCheck::run(&t, &input.symbols_identified, scorer));
        let result = self.evaluate_understanding(root, input, check.as_ref());
        if let Some(c) = check.as_mut() {
            c.risk_raised = result.success && c.raises_risk();
        }
        ScoredUnderstandingResult {
            result,
            relevance: check,
        }
    }

    /// The evaluation behind both `submit_understanding`s, as a sequence: validate the input,
    /// choose the requirements (relevance may raise the risk first), find the blocking gaps and
    /// the count shortfalls, record the accepted input, and conclude.
    fn evaluate_understanding(
        &mut self,
        root: &RepoRoot,
        input: Understanding,
        relevance: Option<&crate::relevance::RelevanceCheck>,
    ) -> UnderstandingResult {
        let (files, validation_errors) = self.validate_understanding(root, &input);
        let file_names: Vec<String> = files.iter().map(|p| p.as_str().to_string()).collect();
        let markup = requirements::is_markup_context(&file_names);
        if !validation_errors.is_empty() {
            let risk = self.risk_level();
            return self.conclude(risk, markup, Outcome::Invalid(validation_errors));
        }
        // Relevance raises the risk before the requirements are chosen (the grey zone raises the
        // exploration quota, docs/DESIGN.md#tiers); the floor itself is stored with the accepted
        // input below.
        let raise_risk = relevance.is_some_and(|r| r.raises_risk());
        let risk = if raise_risk {
            self.risk_level().max(RiskLevel::High)
        } else {
            self.risk_level()
        };
        let mapping = relevance.and_then(nl_symbol_mapping_requirement);
        let req = requirements::requirements(self.intent, risk, markup);
        let blocking = self.blocking_gaps(&req, &input);
        let shortfalls = count_shortfalls(&req, &input, files.len());
        self.record_understanding(input, files, raise_risk);
        let outcome = if !blocking.is_empty() {
            Outcome::blocked(blocking, mapping)
        } else if shortfalls.is_empty() && mapping.is_none() {
            Outcome::Ready
        } else {
            Outcome::semantic(&shortfalls, mapping)
        };
        self.conclude(risk, markup, outcome)
    }

    /// The input's validation errors (consistency, `files_analyzed` that do not resolve to an
    /// existing file, slot evidence naming a tool this session never called), in that order,
    /// with the `files_analyzed` that do resolve.
    fn validate_understanding(
        &self,
        root: &RepoRoot,
        input: &Understanding,
    ) -> (Vec<RepoPath>, Vec<String>) {
        let mut validation_errors = requirements::consistency_errors(
            &input.symbols_identified,
            &input.entry_points,
            &input.files_analyzed,
            &input.existing_patterns,
        );
        let mut files = Vec::new();
        for f in &input.files_analyzed {
            match root.resolve(f) {
                Ok(p) if root.absolute(&p).exists() => files.push(p),
                Ok(p) => validation_errors.push(format!("files_analyzed: '{p}' does not exist")),
                Err(e) => validation_errors.push(format!("files_analyzed: {e}")),
            }
        }
        let used = self.tools_used();
        for (slot, ev) in &input.slot_evidence {
            if !used.contains(ev.tool.as_str()) {
                validation_errors.push(format!(
                    "slot_evidence for {} names tool '{}', which this session never called",
                    slot.name(),
                    ev.tool
                ));
            }
        }
        (files, validation_errors)
    }

    /// Blocking gaps: more exploration fixes them, SEMANTIC does not. Required tools this
    /// session never called, then (at HIGH risk) slot evidence missing for a filled slot.
    fn blocking_gaps(&self, req: &Requirements, input: &Understanding) -> Vec<MissingRequirement> {
        let used = self.tools_used();
        let mut blocking = Vec::new();
        for tool in &req.tools {
            if !used.contains(tool.name()) {
                blocking.push(MissingRequirement {
                    requirement: Requirement::RequiredTool,
                    required: None,
                    provided: None,
                    item: Some(tool.name().to_string()),
                    message: format!("{tool} was not called in this session; call it on the symbols you identified"),
                });
            }
        }
        if req.slot_evidence {
            for slot in [Slot::TargetFeature, Slot::ObservedIssue] {
                if self.query_frame.slots.contains_key(&slot)
                    && !input.slot_evidence.contains_key(&slot)
                {
                    blocking.push(MissingRequirement {
                        requirement: Requirement::SlotEvidence,
                        required: None,
                        provided: None,
                        item: Some(slot.name().into()),
                        message: format!(
                            "risk is HIGH: give slot_evidence.{} = {{tool, params, result_summary}} naming the tool call that grounded it",
                            slot.name()
                        ),
                    });
                }
            }
        }
        blocking
    }

    /// Records accepted input: the raised risk floor, the analysed files as explored, the
    /// identified symbols as FACT mappings of the target feature, the slot evidence (stamped now)
    /// and the understanding itself.
    fn record_understanding(
        &mut self,
        input: Understanding,
        files: Vec<RepoPath>,
        raise_risk: bool,
    ) {
        if raise_risk {
            self.risk_floor = self.risk_floor.max(RiskLevel::High);
        }
        self.explored.extend(files);
        for s in &input.symbols_identified {
            if !self
                .query_frame
                .mapped_symbols
                .iter()
                .any(|m| &m.symbol == s)
            {
                let nl_term = self
                    .query_frame
                    .slots
                    .get(&Slot::TargetFeature)
                    .map(|v| v.value.clone());
                self.query_frame.mapped_symbols.push(MappedSymbol {
                    symbol: s.clone(),
                    source: SlotSource::Fact,
                    nl_term,
                    confirmation: None,
                });
            }
        }
        let t = now();
        for (slot, ev) in &input.slot_evidence {
            let mut ev = ev.clone();
            ev.timestamp = t.to_string();
            self.query_frame.slot_evidence.insert(*slot, ev);
        }
        self.understanding = Some(input);
    }

    /// Applies the outcome (the missing requirements and the phase) and builds its result;
    /// `risk` is the risk the requirements were chosen at.
    fn conclude(&mut self, risk: RiskLevel, markup: bool, outcome: Outcome) -> UnderstandingResult {
        match &outcome {
            Outcome::Invalid(_) => {}
            Outcome::Blocked { missing, .. } => self.missing_requirements = missing.clone(),
            Outcome::Ready => {
                self.missing_requirements.clear();
                self.set_phase(Phase::Ready, "submit_understanding");
            }
            Outcome::Semantic { missing, .. } => {
                self.missing_requirements = missing.clone();
                self.set_phase(Phase::Semantic, "submit_understanding");
            }
        }
        outcome.into_result(self.phase, self.intent, risk, markup)
    }
}

/// How `submit_understanding` ends (docs/DESIGN.md#submit-understanding).
enum Outcome {
    /// Invalid input: nothing recorded, the phase stays; fix and resubmit.
    Invalid(Vec<String>),
    /// Required tools or slot evidence missing: the phase stays. `next` joins the gaps' messages.
    Blocked {
        missing: Vec<MissingRequirement>,
        next: String,
    },
    /// Every requirement met: READY.
    Ready,
    /// Counts short or the symbol mapping unproven: SEMANTIC, with the reasons it accepts.
    Semantic {
        missing: Vec<MissingRequirement>,
        reasons: Vec<SemanticReason>,
    },
}

impl Outcome {
    /// The one constructor of [`UnderstandingResult`]: an accepted, low-confidence result in
    /// `phase` (the phase after the call), changed only where the outcome differs.
    fn into_result(
        self,
        phase: Phase,
        intent: Intent,
        risk: RiskLevel,
        markup: bool,
    ) -> UnderstandingResult {
        let accepted = UnderstandingResult {
            success: true,
            next_phase: phase,
            evaluated_confidence: Confidence::Low,
            validation_errors: Vec::new(),
            missing_requirements: Vec::new(),
            allowed_semantic_reasons: Vec::new(),
            risk_level: risk,
            markup_context: markup,
            next_action: String::new(),
        };
        match self {
            Outcome::Invalid(errors) => UnderstandingResult {
                success: false,
                validation_errors: errors,
                next_action: "fix the validation errors and call submit_understanding again".into(),
                ..accepted
            },
            Outcome::Blocked { missing, next } => UnderstandingResult {
                missing_requirements: missing,
                next_action: format!("{next}; then call submit_understanding again"),
                ..accepted
            },
            Outcome::Ready => UnderstandingResult {
                evaluated_confidence: Confidence::High,
                next_action: if intent.may_write() {
                    Phase::Ready.next_step().to_string()
                } else {
                    format!("{intent} sessions never write: answer from what you explored")
                },
                ..accepted
            },
            Outcome::Semantic { missing, reasons } => UnderstandingResult {
                missing_requirements: missing,
                allowed_semantic_reasons: reasons,
                next_action: Phase::Semantic.next_step().into(),
                ..accepted
            },
        }
    }

    /// The blocking gaps, then the `nl_symbol_mapping` requirement if any (the next step names
    /// only the gaps: exploring fixes those).
    fn blocked(mut blocking: Vec<MissingRequirement>, mapping: Option<MissingRequirement>) -> Self {
        let next = blocking
            .iter()
            .map(|m| m.message.clone())
            .collect::<Vec<_>>()
            .join("; ");
        blocking.extend(mapping);
        Outcome::Blocked {
            missing: blocking,
            next,
        }
    }

    /// The count shortfalls, then the `nl_symbol_mapping` requirement; the allowed reasons are
    /// the mapping's first, then each shortfall's, without repeats.
    fn semantic(
        shortfalls: &[(Shortfall, usize, usize)],
        mapping: Option<MissingRequirement>,
    ) -> Self {
        let mut missing: Vec<MissingRequirement> = shortfalls
            .iter()
            .map(|(s, r, p)| MissingRequirement::count(*s, *r, *p))
            .collect();
        let mut reasons: Vec<SemanticReason> = Vec::new();
        if let Some(m) = mapping {
            missing.push(m);
            // The reasons for missing symbols: the term's symbols were not found
            // (docs/DESIGN.md#semantic-reasons).
            reasons.extend(SemanticReason::allowed_for(Shortfall::SymbolsIdentified));
        }
        for (s, _, _) in shortfalls {
            for r in SemanticReason::allowed_for(*s) {
                if !reasons.contains(r) {
                    reasons.push(*r);
                }
            }
        }
        Outcome::Semantic { missing, reasons }
    }
}

/// The counts that fall short of the requirements, as (what, required, provided), in the order
/// symbols, entry points, files, patterns. `files` counts the analysed files that resolved.
fn count_shortfalls(
    req: &Requirements,
    input: &Understanding,
    files: usize,
) -> Vec<(Shortfall, usize, usize)> {
    [
        (
            Shortfall::SymbolsIdentified,
            req.symbols,
            input.symbols_identified.len(),
        ),
        (
            Shortfall::EntryPoints,
            req.entry_points,
            input.entry_points.len(),
        ),
        (Shortfall::FilesAnalyzed, req.files, files),
        (
            Shortfall::ExistingPatterns,
            req.patterns,
            input.existing_patterns.len(),
        ),
    ]
    .into_iter()
    .filter(|(_, r, p)| p < r)
    .collect()
}
