//! Outcomes and the improvement cycle (docs/DESIGN.md#learning-loop): the
//! OutcomeLog (`.code-intel/journal/outcomes.jsonl`, next to the DecisionLog), `record_outcome`
//! (journal the outcome, end the session, learn the confirmed pairs on success), and the two
//! analyses, `get_session_analysis` and `get_improvement_insights`.
//!
//! # record_outcome
//! 1. Under the session's lock: remember the outcome on the session ([`SessionState::ended`]),
//!    which ends it — the gate then denies writes through it (strict mode) or treats it as no
//!    session (session mode), and a new session is needed for new work.
//! 2. On success: every mapped symbol confirmed FACT or FACT_HIGH_RISK by
//!    `confirm_symbol_relevance` becomes a learned pair (term: the one it was confirmed against,
//!    by default the QueryFrame's `target_feature`; evidence and cosine from its confirmation;
//!    related files: the session's edited, then explored files) and an agreement
//!    ([`learned::learn`]). Symbols without a confirmation teach nothing: only verdicts that
//!    passed the calibrated check become facts of the map.
//! 3. One line is appended to the OutcomeLog with the fields of docs/DESIGN.md#record-outcome
//!    (session_id, outcome, phase_at_outcome, intent, semantic_used, analysis, trigger_message)
//!    plus the failure point, the activity (tools used, files read and edited, gate denials) and
//!    what was learned. A failure or partial outcome without an explicit `failure_point` gets one
//!    derived from the phase and the last denial or tool call ([`derive_failure_point`]).
//!
//! Recording twice for one session is allowed: every call appends a line, learning again
//! updates the same pairs (never duplicates), and the analyses take the latest line as the
//! session's final outcome ("the latest wins").
//!
//! # Concurrency
//! Each file has its own lock ([`crate::persist`]): the session file (read-modify-write), the
//! pairs file (held across the agreements it names), the journal (appends of whole lines). They
//! are taken one after the other, never nested, so concurrent outcomes of many processes neither
//! deadlock nor lose lines or pairs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::gate::GateEvent;
use crate::journal::{self, DecisionRecord};
use crate::learned::{self, Expiry, LearnReport, NewPair, PairRef, SessionInfo};
use crate::persist::{self, PersistError};
use crate::repo_path::RepoPath;
use crate::session::store::{SessionError, SessionStore};
use crate::session::{SessionEnd, SessionState};
use crate::vocab::{Phase, RiskLevel, SessionId, Slot, SlotSource, Tier, Timestamp};

use crate::vocab::Outcome;

/// Version of the outcome record format.
pub const OUTCOME_VERSION: u32 = 1;
/// Related files written into an agreement at most.
pub const MAX_RELATED_FILES: usize = 20;
/// Files listed per kind (read, edited) in a record or an analysis.
pub const MAX_LISTED_FILES: usize = 100;

/// One line of the OutcomeLog (docs/DESIGN.md#record-outcome; the Python-era fields first).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutcomeRecord {
    /// Record format version ([`OUTCOME_VERSION`]).
    pub version: u32,
    /// The code-intel session.
    pub session_id: SessionId,
    /// RFC 3339.
    pub timestamp: Timestamp,
    /// success / failure / partial.
    pub outcome: Outcome,
    /// The session's phase when the outcome was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase_at_outcome: Option<Phase>,
    /// IMPLEMENT / MODIFY / INVESTIGATE / QUESTION.
    #[serde(default)]
    pub intent: String,
    /// Whether the session went through SEMANTIC or called `semantic_search`.
    #[serde(default)]
    pub semantic_used: bool,
    /// What the caller concluded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analysis: Option<String>,
    /// The user message that revealed the outcome ("that broke the build").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger_message: Option<String>,
    /// Where it went wrong (failure, partial): given, or derived ([`derive_failure_point`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_point: Option<String>,
    /// The request.
    #[serde(default)]
    pub query: String,
    /// The session's effective risk level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk_level: Option<RiskLevel>,
    /// Distinct tools called (MCP tools and, via PostToolUse, Claude Code's own), sorted.
    #[serde(default)]
    pub tools_used: Vec<String>,
    /// Files read (exploration tools, Read/Grep/Glob, Bash reads), sorted, at most
    /// [`MAX_LISTED_FILES`].
    #[serde(default)]
    pub files_read: Vec<String>,
    /// Files edited (Edit/Write/MultiEdit/NotebookEdit), sorted, at most [`MAX_LISTED_FILES`].
    #[serde(default)]
    pub files_edited: Vec<String>,
    /// Writes the gate denied in this session.
    #[serde(default)]
    pub denials: usize,
    /// Pairs learned from this outcome.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub learned: Vec<PairRef>,
    /// Keys this version does not know, kept as they were.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// Path of the OutcomeLog under a state dir (`<repo>/.code-intel`).
pub fn outcomes_path(state_dir: &Path) -> PathBuf {
    crate::state_dir::StateDir::at(state_dir).outcomes_journal()
}

/// Path of the gate's journal (denials), written by [`crate::gate`].
pub fn gate_journal_path(state_dir: &Path) -> PathBuf {
    crate::state_dir::StateDir::at(state_dir).gate_journal()
}

/// Appends an outcome under the journal's lock.
///
/// # Errors
/// [`PersistError`] if the journal cannot be written.
pub fn append(state_dir: &Path, record: &OutcomeRecord) -> Result<(), PersistError> {
    persist::append_jsonl(&outcomes_path(state_dir), record)
}

/// [`persist::read_jsonl`] with the path in the error.
fn read_lines<T: serde::de::DeserializeOwned>(
    path: &Path,
) -> Result<(Vec<T>, usize), OutcomeError> {
    persist::read_jsonl(path).map_err(|source| OutcomeError::Read {
        path: path.into(),
        source,
    })
}

/// Reads all outcomes in file order, and the number of lines skipped.
///
/// # Errors
/// [`OutcomeError::Read`] for I/O errors other than a missing file.
pub fn read_outcomes(state_dir: &Path) -> Result<(Vec<OutcomeRecord>, usize), OutcomeError> {
    read_lines(&outcomes_path(state_dir))
}

/// Errors of the outcome functions. Messages say how to recover.
#[derive(Debug, thiserror::Error)]
pub enum OutcomeError {
    /// The session cannot be read or updated.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// A journal cannot be written.
    #[error(transparent)]
    Persist(#[from] PersistError),
    /// A journal cannot be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// A write the gate denied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Denial {
    /// RFC 3339.
    pub timestamp: Timestamp,
    /// The tool (`Edit`, `Bash`).
    pub tool: String,
    /// Files concerned.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// The gate's reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// What happened in a session, from its tool calls (MCP tools and PostToolUse records) and the
/// gate's journal.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Activity {
    /// Calls per tool.
    pub tools_used: BTreeMap<String, usize>,
    /// Files read, sorted (at most [`MAX_LISTED_FILES`]).
    pub files_read: Vec<String>,
    /// Files edited, sorted (at most [`MAX_LISTED_FILES`]).
    pub files_edited: Vec<String>,
    /// Denied writes, oldest first.
    pub denials: Vec<Denial>,
    /// Whether the session went through SEMANTIC or called `semantic_search`.
    pub semantic_used: bool,
    /// The last tool called, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_tool: Option<String>,
}

/// The session's denials in the gate journal: events of the session, or of its Claude Code
/// session since the session started (a denial before the binding names no session).
fn denials_of(state: &SessionState, events: &[GateEvent]) -> Vec<Denial> {
    let started = state.created_at.instant();
    events
        .iter()
        .filter(|e| e.event == crate::gate::GateEventKind::PreToolUseDeny)
        .filter(|e| match &e.session_id {
            Some(id) => *id == state.session_id,
            None => {
                e.claude_session_id.is_some()
                    && e.claude_session_id == state.claude_session_id
                    && matches!((e.timestamp.instant(), started), (Some(t), Some(s)) if t >= s)
            }
        })
        .map(|e| Denial {
            timestamp: e.timestamp.clone(),
            tool: e.tool.clone(),
            files: e.files.clone(),
            reason: e.reason.clone(),
        })
        .collect()
}

/// The activity of `state` (see [`Activity`]), with the denials found in `gate_events`.
pub fn activity(state: &SessionState, gate_events: &[GateEvent]) -> Activity {
    let mut a = Activity::default();
    let (mut read, mut edited) = (BTreeSet::new(), BTreeSet::new());
    for c in &state.tool_calls {
        *a.tools_used.entry(c.tool.clone()).or_default() += 1;
        let set = if crate::gate::tools::writes_a_file(&c.tool) {
            &mut edited
        } else {
            &mut read
        };
        set.extend(c.files.iter().cloned());
    }
    a.files_read = read.into_iter().take(MAX_LISTED_FILES).collect();
    a.files_edited = edited.into_iter().take(MAX_LISTED_FILES).collect();
    a.denials = denials_of(state, gate_events);
    a.semantic_used = a.tools_used.contains_key("semantic_search")
        || state.phase == Phase::Semantic
        || state.phase_history.iter().any(|p| p.to == Phase::Semantic);
    a.last_tool = state.tool_calls.last().map(|c| c.tool.clone());
    a
}

/// The failure point of a session that failed without saying where (docs/DESIGN.md#failure-point):
/// `"<PHASE>: denied <tool>"` when a gate denial is the session's last event, else
/// `"<PHASE>: after <tool>"` for its last tool call, else `"<PHASE>: no tool called"`. Phrased to
/// aggregate: `get_improvement_insights` counts identical failure points.
pub fn derive_failure_point(state: &SessionState, activity: &Activity) -> String {
    let phase = state.phase;
    let last_call = state.tool_calls.last();
    let last_denial = activity.denials.last();
    let denial_is_last = match (last_denial, last_call) {
        (Some(d), Some(c)) => match (d.timestamp.instant(), c.timestamp.instant()) {
            (Some(dt), Some(ct)) => dt >= ct,
            _ => true,
        },
        (Some(_), None) => true,
        _ => false,
    };
    match (last_denial, last_call) {
        (Some(d), _) if denial_is_last => format!("{phase}: denied {}", d.tool),
        (_, Some(c)) => format!("{phase}: after {}", c.tool),
        _ => format!("{phase}: no tool called"),
    }
}

/// Reads the gate journal's events, and the number of lines skipped.
///
/// # Errors
/// [`OutcomeError::Read`] for I/O errors other than a missing file.
pub fn read_gate_events(state_dir: &Path) -> Result<(Vec<GateEvent>, usize), OutcomeError> {
    read_lines(&gate_journal_path(state_dir))
}

/// `record_outcome`'s input (the fields the caller knows, docs/DESIGN.md#record-outcome).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutcomeInput {
    /// success / failure / partial.
    pub outcome: Outcome,
    /// What the caller concluded.
    pub analysis: Option<String>,
    /// The user message that revealed the outcome.
    pub trigger_message: Option<String>,
    /// Where it went wrong; derived for failure/partial when absent.
    pub failure_point: Option<String>,
}

/// How outcomes learn (from the configuration).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LearnSettings<'a> {
    /// Expiry of learned pairs (`auto_purge_days`).
    pub expiry: Expiry,
    /// The `embedding_model` written into a new `learned_pairs.json`.
    pub embedding_model: Option<&'a str>,
}

/// `record_outcome`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordOutcomeResult {
    /// The session.
    pub session_id: SessionId,
    /// What was recorded.
    pub outcome: Outcome,
    /// The outcome recorded before this one for the session, if any (this one now wins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_outcome: Option<Outcome>,
    /// Always true: recording an outcome ends the session.
    pub session_ended: bool,
    /// The journal line.
    pub record: OutcomeRecord,
    /// What was learned (success with confirmed symbols).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learned: Option<LearnReport>,
    /// Why nothing was learned although there was something to learn (the outcome is recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learn_error: Option<String>,
    /// Whether `learned_pairs.json` / `agreements/` changed (the map reloads).
    pub map_updated: bool,
    /// What happened and what to do next.
    pub message: String,
}

fn clean(text: Option<String>) -> Option<String> {
    text.map(|t| t.trim().to_string()).filter(|t| !t.is_empty())
}

/// The pairs a successful session teaches: its confirmed mapped symbols (see the module docs).
/// `is_file` says whether an explored path is a file (directories are not related files).
pub fn confirmed_pairs(is_file: &dyn Fn(&RepoPath) -> bool, state: &SessionState) -> Vec<NewPair> {
    let frame = &state.query_frame;
    let target = frame
        .slots
        .get(&Slot::TargetFeature)
        .map(|v| v.value.clone());
    let activity = activity(state, &[]);
    let mut related: Vec<String> = activity.files_edited.clone();
    for p in &state.explored {
        if related.len() >= MAX_RELATED_FILES {
            break;
        }
        let s = p.as_str().to_string();
        if !p.is_root() && is_file(p) && !related.contains(&s) {
            related.push(s);
        }
    }
    related.truncate(MAX_RELATED_FILES);
    let session = SessionInfo {
        intent: state.intent.name().to_string(),
        query_frame: Slot::ALL
            .iter()
            .filter_map(|s| {
                frame
                    .slots
                    .get(s)
                    .map(|v| (s.name().to_string(), v.value.clone()))
            })
            .collect(),
    };
    frame
        .mapped_symbols
        .iter()
        .filter(|m| m.source == SlotSource::Fact)
        .filter_map(|m| {
            let c = m.confirmation.as_ref()?;
            if c.tier == Tier::Rejected {
                return None;
            }
            let nl_term = m.nl_term.clone().or_else(|| target.clone())?;
            Some(NewPair {
                nl_term,
                symbol: m.symbol.clone(),
                similarity: Some((f64::from(c.similarity) * 1e4).round() / 1e4),
                code_evidence: Some(c.code_evidence.clone()),
                session_id: Some(state.session_id.to_string()),
                related_files: related.clone(),
                session: Some(session.clone()),
            })
        })
        .collect()
}

/// Records an outcome for session `id` (see the module docs): ends the session, learns on
/// success, appends the journal line.
///
/// A `learned_pairs.json` that cannot be read is not overwritten: the outcome is still recorded
/// and [`RecordOutcomeResult::learn_error`] says how to fix the file (then record again).
///
/// # Errors
/// [`OutcomeError::Session`] for an unknown or unreadable session (nothing recorded);
/// [`OutcomeError::Persist`] when the journal cannot be written.
pub fn record_outcome(
    store: &SessionStore,
    id: &SessionId,
    input: OutcomeInput,
    settings: &LearnSettings<'_>,
) -> Result<RecordOutcomeResult, OutcomeError> {
    let now = crate::vocab::now();
    let (state, previous) = store.update(id, |s| {
        let previous = s.ended.as_ref().map(|e| e.outcome);
        s.ended = Some(SessionEnd {
            outcome: input.outcome,
            at: now.clone(),
        });
        (s.clone(), previous)
    })?;
    let state_dir = store.root().state_dir();
    // The analysis must not fail the recording: an unreadable gate journal only loses denials.
    let events = read_gate_events(&state_dir)
        .map(|(e, _)| e)
        .unwrap_or_default();
    let act = activity(&state, &events);
    let failure_point = clean(input.failure_point).or_else(|| {
        (input.outcome != Outcome::Success).then(|| derive_failure_point(&state, &act))
    });

    let (mut learned, mut learn_error) = (None, None);
    let mut note = String::new();
    if input.outcome == Outcome::Success {
        let root = store.root();
        let is_file = |p: &RepoPath| root.absolute(p).is_file();
        let pairs = confirmed_pairs(&is_file, &state);
        if pairs.is_empty() {
            note = " Nothing was learned: no mapped symbol was confirmed (confirm_symbol_relevance with code_evidence; it needs the embedding model).".into();
        } else {
            match learned::learn(
                &state_dir,
                &pairs,
                &settings.expiry,
                settings.embedding_model,
            ) {
                Ok(r) => learned = Some(r),
                Err(e) => learn_error = Some(e.to_string()),
            }
        }
    }
    let learned_refs: Vec<PairRef> = learned
        .as_ref()
        .map(|r: &LearnReport| r.added.iter().chain(&r.updated).cloned().collect())
        .unwrap_or_default();
    let record = OutcomeRecord {
        version: OUTCOME_VERSION,
        session_id: state.session_id.clone(),
        timestamp: now,
        outcome: input.outcome,
        phase_at_outcome: Some(state.phase),
        intent: state.intent.name().to_string(),
        semantic_used: act.semantic_used,
        analysis: clean(input.analysis),
        trigger_message: clean(input.trigger_message),
        failure_point,
        query: state.query.clone(),
        risk_level: Some(state.risk_level()),
        tools_used: act.tools_used.keys().cloned().collect(),
        files_read: act.files_read.clone(),
        files_edited: act.files_edited.clone(),
        denials: act.denials.len(),
        learned: learned_refs,
        extra: BTreeMap::new(),
    };
    append(&state_dir, &record)?;
    let map_updated = learned
        .as_ref()
        .is_some_and(|r| !r.added.is_empty() || !r.updated.is_empty() || !r.purged.is_empty());
    let message = match (&learned, &learn_error) {
        (_, Some(e)) => format!(
            "Outcome {} recorded and the session ended, but nothing was learned: {e}",
            input.outcome
        ),
        (Some(r), None) => format!(
            "Outcome success recorded and the session ended. Learned {} new and {} updated pair(s) into .code-intel/learned_pairs.json and agreements/: the next session finds them with search_map.",
            r.added.len(),
            r.updated.len()
        ),
        (None, None) => format!(
            "Outcome {} recorded and the session ended.{note} Start a new session for further work.",
            input.outcome
        ),
    };
    Ok(RecordOutcomeResult {
        session_id: state.session_id,
        outcome: input.outcome,
        previous_outcome: previous,
        session_ended: true,
        record,
        learned,
        learn_error,
        map_updated,
        message,
    })
}

// ---------------------------------------------------------------------------------------------
// Analyses

/// The `analysis` of one session (docs/DESIGN.md#insights), plus the activity behind it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnalysisSummary {
    /// Whether the DecisionLog has a plan for the session.
    pub had_decision: bool,
    /// Whether an outcome was recorded.
    pub had_outcome: bool,
    /// The latest outcome.
    pub final_outcome: Option<Outcome>,
    /// Tools of the latest plan.
    pub tools_planned: Vec<String>,
    /// The failure point of the latest outcome.
    pub failure_point: Option<String>,
    /// The session's current phase (when its state file exists).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<Phase>,
    /// What happened (when its state file exists).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activity: Option<Activity>,
    /// Planned tools never called.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub planned_not_used: Vec<String>,
}

/// `get_session_analysis` (docs/DESIGN.md#insights): the session's latest decision, its outcomes,
/// the analysis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionAnalysis {
    /// The session.
    pub session_id: SessionId,
    /// The latest DecisionLog record.
    pub decision: Option<DecisionRecord>,
    /// Its outcomes, oldest first.
    pub outcomes: Vec<OutcomeRecord>,
    /// The analysis.
    pub analysis: AnalysisSummary,
}

/// Analyses session `id` from the DecisionLog, the OutcomeLog, its state and the gate journal.
///
/// # Errors
/// [`OutcomeError::Session`] ([`SessionError::Unknown`]) when neither a state file nor a journal
/// line knows the session; read errors of the journals or a corrupt state file.
pub fn session_analysis(
    store: &SessionStore,
    id: &SessionId,
) -> Result<SessionAnalysis, OutcomeError> {
    let state_dir = store.root().state_dir();
    let state = match store.load(id) {
        Ok(s) => Some(s),
        Err(SessionError::Unknown { .. }) => None,
        Err(e) => return Err(e.into()),
    };
    let (decisions, _) =
        journal::read_decisions(&state_dir).map_err(|source| OutcomeError::Read {
            path: journal::decisions_path(&state_dir),
            source,
        })?;
    let decision = decisions.into_iter().rev().find(|d| d.session_id == *id);
    let (all, _) = read_outcomes(&state_dir)?;
    let outcomes: Vec<OutcomeRecord> = all.into_iter().filter(|o| o.session_id == *id).collect();
    if state.is_none() && decision.is_none() && outcomes.is_empty() {
        return Err(SessionError::Unknown { id: id.to_string() }.into());
    }
    let activity = match &state {
        Some(s) => {
            let (events, _) = read_gate_events(&state_dir)?;
            Some(activity(s, &events))
        }
        None => None,
    };
    let tools_planned = decision
        .as_ref()
        .map(|d| d.tools_planned.clone())
        .unwrap_or_default();
    let planned_not_used = activity
        .as_ref()
        .map(|a| {
            tools_planned
                .iter()
                .filter(|t| !a.tools_used.contains_key(*t))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let last = outcomes.last();
    Ok(SessionAnalysis {
        session_id: id.clone(),
        analysis: AnalysisSummary {
            had_decision: decision.is_some(),
            had_outcome: last.is_some(),
            final_outcome: last.map(|o| o.outcome),
            tools_planned,
            failure_point: last.and_then(|o| o.failure_point.clone()),
            phase: state.as_ref().map(|s| s.phase),
            activity,
            planned_not_used,
        },
        decision,
        outcomes,
    })
}

/// Outcomes of a group of sessions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Correlation {
    /// Sessions in the group.
    pub sessions: usize,
    /// Of them, final outcome success.
    pub successes: usize,
    /// Of them, final outcome failure.
    pub failures: usize,
    /// Of them, final outcome partial.
    pub partials: usize,
    /// `failures / sessions`, in [0, 1].
    pub failure_rate: f64,
}

impl Correlation {
    fn add(&mut self, outcome: Outcome) {
        self.sessions += 1;
        match outcome {
            Outcome::Success => self.successes += 1,
            Outcome::Failure => self.failures += 1,
            Outcome::Partial => self.partials += 1,
        }
        self.failure_rate = self.failures as f64 / self.sessions as f64;
    }
}

/// `get_improvement_insights` (docs/DESIGN.md#insights): failure patterns over the most recent
/// sessions with an outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Insights {
    /// Sessions analysed: those with an outcome, the `limit` most recent by their latest outcome.
    pub total_sessions_with_outcomes: usize,
    /// Of them, sessions with a DecisionLog record.
    pub sessions_with_decisions: usize,
    /// Final outcomes of the analysed sessions.
    pub outcomes: Correlation,
    /// Per tool: the sessions that called it and how they ended (the tools recorded with the
    /// outcome: what was called, not what was planned).
    pub tool_failure_correlation: BTreeMap<String, Correlation>,
    /// Per risk level (LOW / MEDIUM / HIGH): the sessions and how they ended.
    pub risk_level_correlation: BTreeMap<String, Correlation>,
    /// Failure points of failed or partial sessions and how often each occurred.
    pub common_failure_points: BTreeMap<String, usize>,
    /// The `limit` asked for.
    pub limit: usize,
    /// Journal lines that did not parse (skipped).
    pub skipped_lines: usize,
}

/// Analyses the `limit` most recent sessions with an outcome (each counted once, by its latest
/// outcome).
///
/// # Errors
/// [`OutcomeError::Read`] when a journal cannot be read.
pub fn improvement_insights(state_dir: &Path, limit: usize) -> Result<Insights, OutcomeError> {
    let (outcomes, bad_outcomes) = read_outcomes(state_dir)?;
    let (decisions, bad_decisions) =
        journal::read_decisions(state_dir).map_err(|source| OutcomeError::Read {
            path: journal::decisions_path(state_dir),
            source,
        })?;
    // The latest outcome per session, in journal (append) order.
    let mut latest: BTreeMap<&str, (usize, &OutcomeRecord)> = BTreeMap::new();
    for (i, o) in outcomes.iter().enumerate() {
        latest.insert(o.session_id.as_str(), (i, o));
    }
    let mut finals: Vec<(usize, &OutcomeRecord)> = latest.into_values().collect();
    finals.sort_by_key(|(i, _)| std::cmp::Reverse(*i));
    finals.truncate(limit);
    let mut last_decision: BTreeMap<&str, &DecisionRecord> = BTreeMap::new();
    for d in &decisions {
        last_decision.insert(d.session_id.as_str(), d);
    }
    let mut insights = Insights {
        total_sessions_with_outcomes: finals.len(),
        sessions_with_decisions: 0,
        outcomes: Correlation::default(),
        tool_failure_correlation: BTreeMap::new(),
        risk_level_correlation: BTreeMap::new(),
        common_failure_points: BTreeMap::new(),
        limit,
        skipped_lines: bad_outcomes + bad_decisions,
    };
    for (_, o) in &finals {
        let decision = last_decision.get(o.session_id.as_str());
        insights.sessions_with_decisions += usize::from(decision.is_some());
        insights.outcomes.add(o.outcome);
        for t in &o.tools_used {
            insights
                .tool_failure_correlation
                .entry(t.to_string())
                .or_default()
                .add(o.outcome);
        }
        let risk = o.risk_level.or_else(|| decision.map(|d| d.risk_level));
        if let Some(risk) = risk {
            let name = serde_json::to_value(risk)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default();
            insights
                .risk_level_correlation
                .entry(name)
                .or_default()
                .add(o.outcome);
        }
        if o.outcome != Outcome::Success {
            let point = o
                .failure_point
                .clone()
                .unwrap_or_else(|| "unknown".to_string());
            *insights.common_failure_points.entry(point).or_default() += 1;
        }
    }
    Ok(insights)
}

#[cfg(test)]
mod tests;
