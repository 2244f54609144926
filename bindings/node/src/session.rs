//! `Session`: one code-intel session (EXPLORATION → SEMANTIC → VERIFICATION → READY), backed by
//! `code_intel_session::session::store` — the same files, locks and phase matrix the MCP server and
//! the hooks use, so a Node script, the CLI and Claude Code can share a session.
//!
//! Domain records (understanding, hypotheses, verification results, query-frame slots, and every
//! result) have the MCP tools' JSON shape, snake_case keys; options bags are camelCase.

use std::sync::Arc;

use code_intel_core::explore::{
    AnalyzeStructureParams, FindDefinitionsParams, FindReferencesParams, FunctionAtLineParams,
    SearchTextParams,
};
use code_intel_core::relevance::CalibratedScorer;
use code_intel_session::learned::{DEFAULT_EMBEDDING_MODEL, Expiry};
use code_intel_session::outcome::{self, LearnSettings, OutcomeError, OutcomeInput};
use code_intel_session::query_frame::{LiteralOnly, QueryFrameInput};
use code_intel_session::relevance::{ConfirmInput, Thresholds};
use code_intel_session::session::requirements::SemanticReason;
use code_intel_session::session::{HypothesisInput, Understanding, VerificationInput};
use code_intel_session::vocab::Outcome;
use code_intel_session::vocab::SessionId;
use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::Failure;
use crate::repo::{
    FindDefinitionsOptions, FindReferencesOptions, RepoInner, SearchTextOptions,
    analyze_structure_job, find_definitions_job, find_references_job, function_at_line_job,
    search_text_job,
};
use crate::task::{Job, Json, json_job};

fn parse<T: DeserializeOwned>(what: &str, v: Value) -> Result<T, Failure> {
    serde_json::from_value(v).map_err(|e| Failure::invalid(format!("{what}: {e}")))
}

/// `submitSemantic` input.
#[napi(object)]
#[derive(Debug)]
pub struct SemanticInput {
    /// The hypotheses (`{ text, slot?, value?, symbol? }`).
    #[napi(ts_type = "HypothesisInput[]")]
    pub hypotheses: Value,
    /// Why exploration fell short: `no_definition_found`, `no_reference_found`,
    /// `no_similar_implementation`, `architecture_unknown`, `context_fragmented`.
    pub semantic_reason: String,
}

/// Options of `checkWriteTarget`.
#[napi(object)]
#[derive(Debug, Default)]
pub struct WriteTargetOptions {
    /// Allow a new file in an explored directory.
    pub allow_new_files: Option<bool>,
}

/// Options of `revertToExploration`.
#[napi(object)]
#[derive(Debug, Default)]
pub struct RevertOptions {
    /// Keep explored files and tool calls (default false).
    pub keep_results: Option<bool>,
}

/// `recordOutcome` input.
#[napi(object)]
#[derive(Debug)]
pub struct OutcomeOptions {
    /// `success`, `failure` or `partial`.
    pub outcome: String,
    /// What went right or wrong.
    pub analysis: Option<String>,
    /// The user's message that showed the outcome, verbatim.
    pub trigger_message: Option<String>,
    /// Where it went wrong (failure/partial); derived when absent.
    pub failure_point: Option<String>,
}

/// A code-intel session of a [`crate::repo::Repo`].
#[napi]
pub struct Session {
    inner: Arc<RepoInner>,
    id: String,
}

impl Session {
    pub(crate) fn new(inner: Arc<RepoInner>, id: String) -> Self {
        Self { inner, id }
    }

    /// A job on this session's store and id.
    fn job<T: serde::Serialize + 'static>(
        &self,
        f: impl FnOnce(&RepoInner, &str) -> Result<T, Failure> + Send + 'static,
    ) -> AsyncTask<Job<Json>> {
        let (inner, id) = (Arc::clone(&self.inner), self.id.clone());
        json_job(move || f(&inner, &id))
    }
}

#[napi]
impl Session {
    /// The session id (`20261121-063012-a1b2c3`).
    #[napi(getter)]
    pub fn id(&self) -> String {
        self.id.clone()
    }

    /// Phase, query frame, explored files (first 200), missing requirements, next action.
    #[napi(ts_return_type = "Promise<SessionStatus>")]
    pub fn status(&self) -> AsyncTask<Job<Json>> {
        self.job(|r, id| Ok(r.store.status(&SessionId::try_from(id)?)?))
    }

    /// Every file the session may write in READY (explored files), repository-relative.
    #[napi(ts_return_type = "Promise<string[]>")]
    pub fn explored_files(&self) -> AsyncTask<Job<Json>> {
        self.job(|r, id| {
            let state = r.store.load(&SessionId::try_from(id)?)?;
            Ok(state
                .explored
                .iter()
                .map(|p| p.as_str().to_string())
                .collect::<Vec<_>>())
        })
    }

    /// Sets query-frame slots, each `{ value, quote }` with the quote copied from the request
    /// (EXPLORATION). Quotes are checked literally (the MCP server also accepts paraphrases when
    /// its embedding model is loaded).
    #[napi(ts_return_type = "Promise<SetQueryFrameResult>")]
    pub fn set_query_frame(
        &self,
        #[napi(ts_arg_type = "QueryFrameInput")] frame: Value,
    ) -> AsyncTask<Job<Json>> {
        self.job(move |r, id| {
            let frame: QueryFrameInput = parse("frame", frame)?;
            Ok(r.store
                .set_query_frame(&SessionId::try_from(id)?, &frame, &LiteralOnly)?)
        })
    }

    /// Ends EXPLORATION: READY, or SEMANTIC with `missing_requirements`. The symbols are not
    /// scored for relevance (that needs the embedding model of the MCP server).
    #[napi(ts_return_type = "Promise<UnderstandingResult>")]
    pub fn submit_understanding(
        &self,
        #[napi(ts_arg_type = "UnderstandingInput")] understanding: Value,
    ) -> AsyncTask<Job<Json>> {
        self.job(move |r, id| {
            let u: Understanding = parse("understanding", understanding)?;
            Ok(r.store.submit_understanding(&SessionId::try_from(id)?, u)?)
        })
    }

    /// SEMANTIC: submits hypotheses and the reason; moves to VERIFICATION.
    #[napi(ts_return_type = "Promise<SemanticResult>")]
    pub fn submit_semantic(&self, input: SemanticInput) -> AsyncTask<Job<Json>> {
        self.job(move |r, id| {
            let hypotheses: Vec<HypothesisInput> = parse("hypotheses", input.hypotheses)?;
            let reason: SemanticReason =
                parse("semanticReason", Value::String(input.semantic_reason))?;
            Ok(r.store
                .submit_semantic(&SessionId::try_from(id)?, hypotheses, reason)?)
        })
    }

    /// VERIFICATION: confirms or rejects each hypothesis with evidence; READY when none is left.
    #[napi(ts_return_type = "Promise<VerificationResult>")]
    pub fn submit_verification(
        &self,
        #[napi(ts_arg_type = "VerificationInput[]")] results: Value,
    ) -> AsyncTask<Job<Json>> {
        self.job(move |r, id| {
            let results: Vec<VerificationInput> = parse("results", results)?;
            Ok(r.store
                .submit_verification(&SessionId::try_from(id)?, results)?)
        })
    }

    /// May `path` be written now? Allowed only in READY for explored files; a denial lists
    /// `recovery_options`. The check is recorded on the session.
    #[napi(ts_return_type = "Promise<WriteCheck>")]
    pub fn check_write_target(
        &self,
        path: String,
        options: Option<WriteTargetOptions>,
    ) -> AsyncTask<Job<Json>> {
        let allow = options.unwrap_or_default().allow_new_files.unwrap_or(false);
        self.job(move |r, id| {
            Ok(r.store
                .check_write_target(&SessionId::try_from(id)?, &path, allow)?)
        })
    }

    /// READY: makes files read in this session (or new files in an explored directory)
    /// writable.
    #[napi(ts_return_type = "Promise<AddExploredResult>")]
    pub fn add_explored_files(&self, files: Vec<String>) -> AsyncTask<Job<Json>> {
        self.job(move |r, id| {
            Ok(r.store
                .add_explored_files(&SessionId::try_from(id)?, &files)?)
        })
    }

    /// Back to EXPLORATION from any phase.
    #[napi(ts_return_type = "Promise<RevertResult>")]
    pub fn revert_to_exploration(&self, options: Option<RevertOptions>) -> AsyncTask<Job<Json>> {
        let keep = options.unwrap_or_default().keep_results.unwrap_or(false);
        self.job(move |r, id| {
            Ok(r.store
                .revert_to_exploration(&SessionId::try_from(id)?, keep)?)
        })
    }

    /// Confirms the symbols that implement the target feature, with code evidence per symbol
    /// (EXPLORATION, VERIFICATION): each is FACT, FACT with risk raised, or REJECTED, scored by
    /// the embedding model against a background of the repository's symbols as the MCP tool
    /// `confirm_symbol_relevance` does. Confirmed symbols are what a `success` outcome teaches
    /// the map. Needs the model (`MODEL_UNAVAILABLE` without it); the first call builds the
    /// background (embeds about 200 symbol names).
    #[napi(ts_return_type = "Promise<ConfirmResult>")]
    pub fn confirm_symbol_relevance(
        &self,
        #[napi(ts_arg_type = "ConfirmInput")] input: Value,
    ) -> AsyncTask<Job<Json>> {
        self.job(move |r, id| {
            let input: ConfirmInput = parse("input", input)?;
            let (model, background) = r.relevance()?;
            let scorer = CalibratedScorer::new(&*model, &background);
            Ok(r.store.confirm_symbol_relevance(
                &SessionId::try_from(id)?,
                &input,
                &scorer,
                &Thresholds::SYMBOLS,
            )?)
        })
    }

    /// Records how the session went and ends it; `success` teaches the map the confirmed
    /// symbols (`learned_pairs.json` and agreements), which `repo.searchMap()` then finds.
    #[napi(ts_return_type = "Promise<RecordOutcomeResult>")]
    pub fn record_outcome(&self, input: OutcomeOptions) -> AsyncTask<Job<Json>> {
        self.job(move |r, id| {
            let outcome: Outcome =
                input
                    .outcome
                    .parse()
                    .map_err(|e: <Outcome as std::str::FromStr>::Err| {
                        Failure::invalid(e.to_string())
                    })?;
            let settings = LearnSettings {
                expiry: Expiry::after_days(r.config.auto_purge_days),
                embedding_model: Some(DEFAULT_EMBEDDING_MODEL),
            };
            let input = OutcomeInput {
                outcome,
                analysis: input.analysis,
                trigger_message: input.trigger_message,
                failure_point: input.failure_point,
            };
            outcome::record_outcome(&r.store, &SessionId::try_from(id)?, input, &settings).map_err(
                |e| match e {
                    OutcomeError::Session(e) => Failure::from(e),
                    e => Failure::new(
                        "OUTCOME_FAILED",
                        e.to_string(),
                        "fix the file the message names, then record the outcome again",
                    ),
                },
            )
        })
    }

    /// `repo.findDefinitions`, recorded on this session.
    #[napi(ts_return_type = "Promise<FindDefinitionsResult>")]
    pub fn find_definitions(
        &self,
        symbol: String,
        options: Option<FindDefinitionsOptions>,
    ) -> AsyncTask<Job<Json>> {
        let o = options.unwrap_or_default();
        let params = FindDefinitionsParams {
            symbol,
            path: o.path,
            language: o.language,
            exact_match: o.exact_match.unwrap_or(false),
            max_results: o.max_results.map(|n| n as usize),
        };
        find_definitions_job(Arc::clone(&self.inner), Some(self.id.clone()), params)
    }

    /// `repo.findReferences`, recorded on this session.
    #[napi(ts_return_type = "Promise<FindReferencesResult>")]
    pub fn find_references(
        &self,
        symbol: String,
        options: Option<FindReferencesOptions>,
    ) -> AsyncTask<Job<Json>> {
        let o = options.unwrap_or_default();
        let params = FindReferencesParams {
            symbol,
            path: o.path,
            max_results: o.max_results.map(|n| n as usize),
            order: None,
        };
        find_references_job(Arc::clone(&self.inner), Some(self.id.clone()), params)
    }

    /// `repo.searchText`, recorded on this session.
    #[napi(ts_return_type = "Promise<SearchTextResult>")]
    pub fn search_text(
        &self,
        pattern: String,
        options: Option<SearchTextOptions>,
    ) -> AsyncTask<Job<Json>> {
        let o = options.unwrap_or_default();
        let params = SearchTextParams {
            pattern,
            path: o.path,
            file_type: o.file_type,
            context_lines: o.context_lines.map(|n| n as usize),
            max_results: o.max_results.map(|n| n as usize),
            literal: o.literal.unwrap_or(false),
            order: None,
        };
        search_text_job(Arc::clone(&self.inner), Some(self.id.clone()), params)
    }

    /// `repo.analyzeStructure`, recorded on this session.
    #[napi(ts_return_type = "Promise<StructureResult>")]
    pub fn analyze_structure(&self, path: String) -> AsyncTask<Job<Json>> {
        analyze_structure_job(
            Arc::clone(&self.inner),
            Some(self.id.clone()),
            AnalyzeStructureParams { path },
        )
    }

    /// `repo.functionAtLine`, recorded on this session.
    #[napi(ts_return_type = "Promise<FunctionAtLineResult>")]
    pub fn function_at_line(&self, file: String, line: u32) -> AsyncTask<Job<Json>> {
        function_at_line_job(
            Arc::clone(&self.inner),
            Some(self.id.clone()),
            FunctionAtLineParams { file, line },
        )
    }
}
