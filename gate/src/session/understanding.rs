//! EXPLORATION's transitions: `set_query_frame` (the quoted slots) and `submit_understanding`
//! with its evaluation against the requirement table (docs/DESIGN.md#submit-understanding).

use super::requirements::{self, SemanticReason, Shortfall};
use super::{
    Confidence, MissingRequirement, Requirement, ScoredUnderstandingResult, SessionState,
    SetQueryFrameResult, Understanding, UnderstandingResult, nl_symbol_mapping_requirement,
};
use crate::query_frame::{self, MappedSymbol, QueryFrameInput, QuoteChecker, Slot, SlotSource};
use crate::repo_path::RepoRoot;
use crate::router::{self, RiskLevel};
use crate::vocab::{Phase, now};

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

    fn evaluate_understanding(
        &mut self,
        root: &RepoRoot,
        input: Understanding,
        relevance: Option<&crate::relevance::RelevanceCheck>,
    ) -> UnderstandingResult {
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
        let risk = self.risk_level();
        let file_names: Vec<String> = files.iter().map(|p| p.as_str().to_string()).collect();
        let markup = requirements::is_markup_context(&file_names);
        if !validation_errors.is_empty() {
            return UnderstandingResult {
                success: false,
                next_phase: self.phase,
                evaluated_confidence: Confidence::Low,
                validation_errors,
                missing_requirements: Vec::new(),
                allowed_semantic_reasons: Vec::new(),
                risk_level: risk,
                markup_context: markup,
                next_action: "fix the validation errors and call submit_understanding again".into(),
            };
        }
        // Relevance raises the risk before the requirements are chosen (the grey zone raises the
        // exploration quota, docs/DESIGN.md#tiers); the floor itself is stored with the accepted
        // input below.
        let raise_risk = relevance.is_some_and(|r| r.raises_risk());
        let risk = if raise_risk {
            risk.max(RiskLevel::High)
        } else {
            risk
        };
        let mapping = relevance.and_then(nl_symbol_mapping_requirement);
        let req = requirements::requirements(self.intent, risk, markup);
        // Blocking gaps: more exploration fixes them, SEMANTIC does not.
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
        // Accepted input: record it.
        if raise_risk {
            self.risk_floor = self.risk_floor.max(RiskLevel::High);
        }
        self.explored.extend(files.iter().cloned());
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
        let counts = [
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
            (Shortfall::FilesAnalyzed, req.files, files.len()),
            (
                Shortfall::ExistingPatterns,
                req.patterns,
                input.existing_patterns.len(),
            ),
        ];
        let shortfalls: Vec<(Shortfall, usize, usize)> =
            counts.into_iter().filter(|(_, r, p)| p < r).collect();
        self.understanding = Some(input);
        if !blocking.is_empty() {
            let next = blocking
                .iter()
                .map(|m| m.message.clone())
                .collect::<Vec<_>>()
                .join("; ");
            blocking.extend(mapping);
            self.missing_requirements = blocking.clone();
            return UnderstandingResult {
                success: true,
                next_phase: self.phase,
                evaluated_confidence: Confidence::Low,
                validation_errors: Vec::new(),
                missing_requirements: blocking,
                allowed_semantic_reasons: Vec::new(),
                risk_level: risk,
                markup_context: markup,
                next_action: format!("{next}; then call submit_understanding again"),
            };
        }
        if shortfalls.is_empty() && mapping.is_none() {
            self.missing_requirements.clear();
            self.set_phase(Phase::Ready, "submit_understanding");
            let next_action = if self.intent.may_write() {
                Phase::Ready.next_step().to_string()
            } else {
                format!(
                    "{} sessions never write: answer from what you explored",
                    self.intent
                )
            };
            return UnderstandingResult {
                success: true,
                next_phase: Phase::Ready,
                evaluated_confidence: Confidence::High,
                validation_errors: Vec::new(),
                missing_requirements: Vec::new(),
                allowed_semantic_reasons: Vec::new(),
                risk_level: risk,
                markup_context: markup,
                next_action,
            };
        }
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
        for (s, _, _) in &shortfalls {
            for r in SemanticReason::allowed_for(*s) {
                if !reasons.contains(r) {
                    reasons.push(*r);
                }
            }
        }
        self.missing_requirements = missing.clone();
        self.set_phase(Phase::Semantic, "submit_understanding");
        UnderstandingResult {
            success: true,
            next_phase: Phase::Semantic,
            evaluated_confidence: Confidence::Low,
            validation_errors: Vec::new(),
            missing_requirements: missing,
            allowed_semantic_reasons: reasons,
            risk_level: risk,
            markup_context: markup,
            next_action: Phase::Semantic.next_step().into(),
        }
    }
}
