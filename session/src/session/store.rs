//! Session persistence: one versioned JSON file per session under `.code-intel/sessions/`,
//! read-modify-write under an exclusive file lock with atomic replacement, and the binding of
//! Claude Code session ids to code-intel sessions under `.code-intel/bindings/`.
//!
//! Concurrency: every mutation goes through [`SessionStore::update`], which holds the session's
//! lock (`<id>.json.lock`) from read to rename, so parallel MCP calls and hook processes of two
//! Claude Code windows serialise per session and never lose an update. Readers (the PreToolUse
//! hook) read without the lock: the rename makes every read see a whole file.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{
    AddExploredResult, HypothesisInput, Intent, Phase, PhaseViolation, RevertResult,
    SemanticResult, SessionState, SessionStatus, SetQueryFrameResult, ToolCallRecord,
    Understanding, UnderstandingResult, VerificationInput, VerificationResult, WriteCheck,
};
use crate::journal::{self, DecisionRecord};
use crate::persist::{self, FileLock, PersistError};
use crate::query_frame::{self, QueryFrameInput, QuoteChecker};
use crate::relevance::{ConfirmInput, ConfirmResult, RelevanceScorer, Thresholds};
use crate::repo_path::RepoRoot;
use crate::router::Plan;
use crate::session::ScoredUnderstandingResult;
use crate::session::requirements::SemanticReason;
use crate::vocab::{ClaudeSessionId, InvalidSessionId, SessionId, Timestamp};

/// Errors of the session store. Messages say how to recover.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The tool is not allowed in the session's phase (nothing changed); the message names the
    /// phase and the next step. An expected refusal for the model, not a fault.
    #[error("{}", .0.message)]
    Phase(PhaseViolation),
    /// No session with this id.
    #[error(
        "unknown session '{id}': call start_session to begin one (get_session_status lists the active session)"
    )]
    Unknown {
        /// The id asked for.
        id: String,
    },
    /// The id has characters a session id never has.
    #[error("invalid session id '{id}': ids look like 20261121-063012-a1b2c3")]
    InvalidId {
        /// The id.
        id: String,
    },
    /// The state file exists but does not parse.
    #[error(
        "session state {path} is corrupt ({source}); it was left untouched for inspection: start a new session with start_session"
    )]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// The parse error.
        #[source]
        source: serde_json::Error,
    },
    /// The state file was written by another format version.
    #[error(
        "session state {path} has format version {found}, this code-intel reads version {expected}: start a new session with start_session"
    )]
    Version {
        /// The file.
        path: PathBuf,
        /// Version found.
        found: u32,
        /// Version supported.
        expected: u32,
    },
    /// Reading failed.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Writing or locking failed.
    #[error(transparent)]
    Persist(#[from] PersistError),
}

impl SessionError {
    /// The phase violation, when this is one (a refusal for the model rather than a fault).
    pub fn phase_violation(&self) -> Option<&PhaseViolation> {
        match self {
            SessionError::Phase(v) => Some(v),
            _ => None,
        }
    }
}

/// `start_session` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StartResponse {
    /// The new session's id.
    pub session_id: SessionId,
    /// EXPLORATION.
    pub phase: Phase,
    /// Intent as parsed.
    pub intent: Intent,
    /// The slot-extraction prompt for `set_query_frame`.
    pub extraction_prompt: String,
    /// The initial plan.
    pub plan: Plan,
}

/// A binding of a Claude Code session to a code-intel session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binding {
    /// Format version.
    pub version: u32,
    /// code-intel session id.
    pub session_id: SessionId,
    /// RFC 3339.
    pub bound_at: Timestamp,
}

/// One line of a session listing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionSummary {
    /// Id.
    pub session_id: SessionId,
    /// Intent.
    pub intent: Intent,
    /// Phase.
    pub phase: Phase,
    /// The request.
    pub query: String,
    /// Last change, RFC 3339.
    pub updated_at: Timestamp,
}

/// The sessions of one repository.
#[derive(Debug, Clone)]
pub struct SessionStore {
    root: RepoRoot,
}

impl From<InvalidSessionId> for SessionError {
    fn from(e: InvalidSessionId) -> Self {
        SessionError::InvalidId { id: e.0 }
    }
}

impl SessionStore {
    /// The store of the repository at `root` (nothing is created until the first write).
    pub fn new(root: RepoRoot) -> Self {
        Self { root }
    }

    /// The repository root.
    pub fn root(&self) -> &RepoRoot {
        &self.root
    }

    fn sessions_dir(&self) -> PathBuf {
        self.root.state().sessions()
    }

    /// Path of a session's state file, `sessions/<id>.json` (a [`SessionId`] is always one plain
    /// file name).
    pub fn state_path(&self, id: &SessionId) -> PathBuf {
        self.sessions_dir().join(format!("{id}.json"))
    }

    fn binding_path(&self, claude_session_id: &ClaudeSessionId) -> PathBuf {
        self.root
            .state()
            .bindings()
            .join(format!("{claude_session_id}.json"))
    }

    /// Starts a session: creates its state in EXPLORATION, journals the plan, and binds the
    /// Claude Code session id when given.
    ///
    /// # Errors
    /// [`SessionError::Persist`] when the state cannot be written.
    pub fn start(
        &self,
        intent: Intent,
        query: &str,
        claude_session_id: Option<&str>,
    ) -> Result<StartResponse, SessionError> {
        let id = SessionId::generate();
        let mut state = SessionState::new(
            id.clone(),
            intent,
            query.to_string(),
            claude_session_id.map(String::from),
        );
        state.ignore_digest = Some(ignore_digest(&self.root));
        self.save(&state)?;
        let record = DecisionRecord::new(
            &id,
            intent.name(),
            crate::vocab::Tool::StartSession.name(),
            &state.query_frame,
            &state.plan,
            state.created_at.clone(),
        );
        journal::record_decision(&self.root.state_dir(), &record)?;
        if let Some(cs) = claude_session_id {
            // An odd Claude Code id must not prevent the session; the PostToolUse hook binds again.
            if let Ok(cs) = ClaudeSessionId::try_from(cs) {
                self.bind_checked(&cs, &id)?;
            }
        }
        Ok(StartResponse {
            session_id: id,
            phase: state.phase,
            intent,
            extraction_prompt: query_frame::extraction_prompt(query),
            plan: state.plan,
        })
    }

    fn save(&self, state: &SessionState) -> Result<(), SessionError> {
        let path = self.state_path(&state.session_id);
        let mut bytes =
            serde_json::to_vec_pretty(state).map_err(|source| SessionError::Corrupt {
                path: path.clone(),
                source,
            })?;
        bytes.push(b'\n');
        persist::write_atomic(&path, &bytes)?;
        Ok(())
    }

    /// Loads a session's state.
    ///
    /// # Errors
    /// [`SessionError::Unknown`], [`SessionError::Corrupt`], [`SessionError::Version`],
    /// [`SessionError::Read`].
    pub fn load(&self, id: &SessionId) -> Result<SessionState, SessionError> {
        let path = self.state_path(id);
        load_state(&path, id)
    }

    /// Read-modify-write of a session under its lock; the state is saved only if `f` changed it.
    ///
    /// # Errors
    /// As [`SessionStore::load`], plus [`SessionError::Persist`].
    pub fn update<T>(
        &self,
        id: &SessionId,
        f: impl FnOnce(&mut SessionState) -> T,
    ) -> Result<T, SessionError> {
        let path = self.state_path(id);
        let lock = FileLock::acquire(&path)?;
        let mut state = load_state(&path, id)?;
        let before = state.clone();
        let out = f(&mut state);
        if state != before {
            state.updated_at = super::now();
            self.save(&state)?;
        }
        drop(lock);
        // Nothing outlives READY: the processes its Bash commands started under the launcher
        // hold write rights the session no longer grants (crate::witness).
        if grants_ready(&before) && !grants_ready(&state) {
            crate::witness::end_processes(id);
        }
        Ok(out)
    }

    /// [`SessionStore::update`] guarded by the phase matrix: `tool` is checked against the phase
    /// read under the lock, so a concurrent transition cannot slip between check and change.
    ///
    /// # Errors
    /// As [`SessionStore::update`], and [`SessionError::Phase`] when the phase does not allow
    /// `tool` (nothing changed).
    pub fn update_in_phase<T>(
        &self,
        id: &SessionId,
        tool: &str,
        collection: Option<&str>,
        f: impl FnOnce(&mut SessionState) -> T,
    ) -> Result<T, SessionError> {
        self.update(id, |s| {
            super::check_tool(s.phase, tool, collection).map(|()| f(s))
        })?
        .map_err(SessionError::Phase)
    }

    /// Binds a Claude Code session id to a code-intel session (the latest binding wins).
    ///
    /// # Errors
    /// [`SessionError::InvalidId`] for a Claude Code id that is no [`ClaudeSessionId`], or
    /// [`SessionError::Persist`].
    pub fn bind(
        &self,
        claude_session_id: &str,
        session_id: &SessionId,
    ) -> Result<(), SessionError> {
        self.bind_checked(&ClaudeSessionId::try_from(claude_session_id)?, session_id)
    }

    fn bind_checked(
        &self,
        claude_session_id: &ClaudeSessionId,
        session_id: &SessionId,
    ) -> Result<(), SessionError> {
        let path = self.binding_path(claude_session_id);
        // The session bound until now stops granting its rights to this Claude Code session's
        // commands: its READY processes end (crate::witness).
        let previous = self
            .bound(claude_session_id.as_str())
            .ok()
            .flatten()
            .filter(|p| p != session_id);
        let b = Binding {
            version: 1,
            session_id: session_id.clone(),
            bound_at: super::now(),
        };
        let bytes = serde_json::to_vec(&b).map_err(|source| SessionError::Corrupt {
            path: path.clone(),
            source,
        })?;
        persist::write_atomic(&path, &bytes)?;
        if let Some(previous) = previous {
            crate::witness::end_processes(&previous);
        }
        Ok(())
    }

    /// The code-intel session bound to a Claude Code session, if any.
    ///
    /// # Errors
    /// [`SessionError::InvalidId`] for a Claude Code id that is no [`ClaudeSessionId`];
    /// [`SessionError::Corrupt`] or [`SessionError::Read`] for an unreadable binding file.
    pub fn bound(&self, claude_session_id: &str) -> Result<Option<SessionId>, SessionError> {
        let path = self.binding_path(&ClaudeSessionId::try_from(claude_session_id)?);
        let bytes = match persist::read_regular(&path, persist::MAX_STATE_FILE_BYTES) {
            Ok(Some(b)) => b,
            Ok(None) => return Ok(None),
            Err(source) => return Err(SessionError::Read { path, source }),
        };
        let b: Binding = serde_json::from_slice(&bytes)
            .map_err(|source| SessionError::Corrupt { path, source })?;
        Ok(Some(b.session_id))
    }

    /// All sessions, most recently changed first. Unreadable files are skipped.
    ///
    /// # Errors
    /// [`SessionError::Read`] if the sessions directory exists but cannot be listed.
    pub fn list(&self) -> Result<Vec<SessionSummary>, SessionError> {
        let dir = self.sessions_dir();
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => return Err(SessionError::Read { path: dir, source }),
        };
        let mut out: Vec<SessionSummary> = entries
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let id = SessionId::try_from(name.strip_suffix(".json")?).ok()?;
                let s = self.load(&id).ok()?;
                Some(SessionSummary {
                    session_id: s.session_id,
                    intent: s.intent,
                    phase: s.phase,
                    query: s.query,
                    updated_at: s.updated_at,
                })
            })
            .collect();
        // By the text, as written (this code writes UTC, `Z`).
        out.sort_by(|a, b| b.updated_at.as_str().cmp(a.updated_at.as_str()));
        Ok(out)
    }

    /// `set_query_frame` (EXPLORATION only), journaling the new plan.
    ///
    /// # Errors
    /// As [`SessionStore::update_in_phase`].
    pub fn set_query_frame(
        &self,
        id: &SessionId,
        input: &QueryFrameInput,
        checker: &dyn QuoteChecker,
    ) -> Result<SetQueryFrameResult, SessionError> {
        let (result, record) = self.update_in_phase(id, "set_query_frame", None, |s| {
            let r = s.set_query_frame(input, checker);
            let rec = DecisionRecord::new(
                &s.session_id,
                s.intent.name(),
                "set_query_frame",
                &s.query_frame,
                &s.plan,
                super::now(),
            );
            (r, rec)
        })?;
        journal::record_decision(&self.root.state_dir(), &record)?;
        Ok(result)
    }

    /// `get_session_status`.
    ///
    /// # Errors
    /// As [`SessionStore::load`].
    pub fn status(&self, id: &SessionId) -> Result<SessionStatus, SessionError> {
        Ok(self.load(id)?.status())
    }

    /// The phase check for `tool` (see [`super::check_tool`]).
    ///
    /// # Errors
    /// As [`SessionStore::load`], and [`SessionError::Phase`].
    pub fn check_tool_allowed(
        &self,
        id: &SessionId,
        tool: &str,
        collection: Option<&str>,
    ) -> Result<(), SessionError> {
        super::check_tool(self.load(id)?.phase, tool, collection).map_err(SessionError::Phase)
    }

    /// Records a tool call on the session.
    ///
    /// # Errors
    /// As [`SessionStore::update`].
    pub fn record_tool_call(
        &self,
        id: &SessionId,
        call: ToolCallRecord,
    ) -> Result<(), SessionError> {
        self.update(id, |s| s.record_tool_call(call))
    }

    /// Records a call of a phase-restricted tool (an exploration tool), re-checking the phase
    /// under the lock: a call whose session moved to a phase that forbids the tool while it ran
    /// is refused rather than recorded.
    ///
    /// # Errors
    /// As [`SessionStore::update`], and [`SessionError::Phase`] outside the allowed phases.
    pub fn record_tool_call_in_phase(
        &self,
        id: &SessionId,
        call: ToolCallRecord,
    ) -> Result<(), SessionError> {
        let tool = call.tool.clone();
        self.update_in_phase(id, &tool, None, |s| s.record_tool_call(call))
    }

    /// `submit_understanding` (EXPLORATION only).
    ///
    /// # Errors
    /// As [`SessionStore::update_in_phase`].
    pub fn submit_understanding(
        &self,
        id: &SessionId,
        input: Understanding,
    ) -> Result<UnderstandingResult, SessionError> {
        let root = self.root.clone();
        self.update_in_phase(id, "submit_understanding", None, |s| {
            s.submit_understanding(&root, input)
        })
    }

    /// `submit_understanding` with the relevance check of `symbols_identified` (EXPLORATION only;
    /// see [`SessionState::submit_understanding_scored`]). The scorer runs under the session lock.
    ///
    /// # Errors
    /// As [`SessionStore::update_in_phase`].
    pub fn submit_understanding_scored(
        &self,
        id: &SessionId,
        input: Understanding,
        scorer: &dyn RelevanceScorer,
    ) -> Result<ScoredUnderstandingResult, SessionError> {
        let root = self.root.clone();
        self.update_in_phase(id, "submit_understanding", None, |s| {
            s.submit_understanding_scored(&root, input, scorer)
        })
    }

    /// `confirm_symbol_relevance` (EXPLORATION and VERIFICATION; see
    /// [`super::confirm_symbol_relevance`]). The scorer runs under the session lock.
    ///
    /// # Errors
    /// As [`SessionStore::update_in_phase`].
    pub fn confirm_symbol_relevance(
        &self,
        id: &SessionId,
        input: &ConfirmInput,
        scorer: &dyn RelevanceScorer,
        thresholds: &Thresholds,
    ) -> Result<ConfirmResult, SessionError> {
        self.update_in_phase(id, "confirm_symbol_relevance", None, |s| {
            super::confirm_symbol_relevance(s, input, scorer, thresholds)
        })
    }

    /// `submit_semantic`, guarded by the phase matrix.
    ///
    /// # Errors
    /// As [`SessionStore::update_in_phase`].
    pub fn submit_semantic(
        &self,
        id: &SessionId,
        hypotheses: Vec<HypothesisInput>,
        reason: SemanticReason,
    ) -> Result<SemanticResult, SessionError> {
        self.update_in_phase(id, "submit_semantic", None, |s| {
            s.submit_semantic(hypotheses, reason)
        })
    }

    /// `submit_verification`, guarded by the phase matrix.
    ///
    /// # Errors
    /// As [`SessionStore::update_in_phase`].
    pub fn submit_verification(
        &self,
        id: &SessionId,
        results: Vec<VerificationInput>,
    ) -> Result<VerificationResult, SessionError> {
        self.update_in_phase(id, "submit_verification", None, |s| {
            s.submit_verification(results)
        })
    }

    /// `check_write_target`.
    ///
    /// # Errors
    /// As [`SessionStore::update`].
    pub fn check_write_target(
        &self,
        id: &SessionId,
        path: &str,
        allow_new_files: bool,
    ) -> Result<WriteCheck, SessionError> {
        let root = self.root.clone();
        self.update(id, |s| s.check_write_target(&root, path, allow_new_files))
    }

    /// `add_explored_files`, guarded by the phase matrix.
    ///
    /// # Errors
    /// As [`SessionStore::update_in_phase`].
    pub fn add_explored_files(
        &self,
        id: &SessionId,
        files: &[String],
    ) -> Result<AddExploredResult, SessionError> {
        let root = self.root.clone();
        self.update_in_phase(id, "add_explored_files", None, |s| {
            s.add_explored_files(&root, files)
        })
    }

    /// `revert_to_exploration`.
    ///
    /// # Errors
    /// As [`SessionStore::update`].
    pub fn revert_to_exploration(
        &self,
        id: &SessionId,
        keep_results: bool,
    ) -> Result<RevertResult, SessionError> {
        self.update(id, |s| s.revert_to_exploration(keep_results))
    }
}

/// Whether `state` grants READY's write rights (the sandbox plan opens the explored files'
/// directories only then).
fn grants_ready(state: &SessionState) -> bool {
    state.phase == Phase::Ready && state.ended.is_none()
}

fn load_state(path: &Path, id: &SessionId) -> Result<SessionState, SessionError> {
    let bytes = match persist::read_regular(path, persist::MAX_STATE_FILE_BYTES) {
        Ok(Some(b)) => b,
        Ok(None) => {
            return Err(SessionError::Unknown { id: id.to_string() });
        }
        Err(source) => {
            return Err(SessionError::Read {
                path: path.into(),
                source,
            });
        }
    };
    // Check the version before the full parse, so a future format gives the version error.
    #[derive(Deserialize)]
    struct Head {
        version: u32,
    }
    let head: Head = serde_json::from_slice(&bytes).map_err(|source| SessionError::Corrupt {
        path: path.into(),
        source,
    })?;
    if head.version != super::SESSION_VERSION {
        return Err(SessionError::Version {
            path: path.into(),
            found: head.version,
            expected: super::SESSION_VERSION,
        });
    }
    serde_json::from_slice(&bytes).map_err(|source| SessionError::Corrupt {
        path: path.into(),
        source,
    })
}

/// The ignore files the gate reads, in order.
pub const IGNORE_FILES: [&str; 2] = [".gitignore", ".git/info/exclude"];

/// SHA-256 (hex) of the repository's ignore rules as the gate reads them (the files of
/// [`IGNORE_FILES`], each name and content; a missing or unreadable file counts as empty). A
/// session records it at its start ([`SessionState::ignore_digest`](crate::session::SessionState::ignore_digest)).
pub fn ignore_digest(root: &RepoRoot) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for rel in IGNORE_FILES {
        h.update(rel.as_bytes());
        h.update([0]);
        if let Ok(Some(bytes)) = crate::persist::read_regular(
            &root.path().join(rel),
            crate::persist::MAX_STATE_FILE_BYTES,
        ) {
            h.update(&bytes);
        }
        h.update([0]);
    }
    hex::encode(h.finalize())
}
