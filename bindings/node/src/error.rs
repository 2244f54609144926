//! Errors as JavaScript sees them: an `Error` whose `code` is a stable upper-case name and whose
//! `hint` says how to recover (the message carries core's own explanation).

use code_intel_core::explore::ExploreError;
use code_intel_core::index::IndexError;
use code_intel_core::index::source::SourceError;
use code_intel_session::repo_path::RepoPathError;
use code_intel_session::session::PhaseViolation;
use code_intel_session::session::store::SessionError;
use code_intel_session::vocab::InvalidSessionId;
use napi::bindgen_prelude::JsObjectValue as _;
use napi::{Env, JsValue as _};

/// A failed call: `code` (stable, documented in README.md), `message`, `hint`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Stable error code, e.g. `PHASE_VIOLATION`.
    pub code: &'static str,
    /// What went wrong (core's message, which names the cause).
    pub message: String,
    /// What to do about it.
    pub hint: &'static str,
}

impl Failure {
    /// A failure with `code`, `message` and `hint`.
    pub fn new(code: &'static str, message: impl Into<String>, hint: &'static str) -> Self {
        Self {
            code,
            message: message.into(),
            hint,
        }
    }

    /// A bad argument from JavaScript.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(
            "INVALID_ARGUMENT",
            message,
            "fix the argument as the message says (see index.d.ts for the expected shape)",
        )
    }

    /// A panic or another failure of the addon itself.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(
            "INTERNAL",
            message,
            "this is a bug in code-intel-node: report it with the message",
        )
    }

    /// The JavaScript `Error` object (`code`, `hint` set), wrapped so that returning it throws it.
    pub fn into_js(self, env: &Env) -> napi::Error {
        let build = || -> napi::Result<napi::Error> {
            let mut obj = env.create_error(napi::Error::from_reason(self.message.clone()))?;
            obj.set_named_property("code", self.code)?;
            obj.set_named_property("hint", self.hint)?;
            Ok(napi::Error::from(obj.to_unknown()))
        };
        build().unwrap_or_else(|e| {
            napi::Error::from_reason(format!("[{}] {} ({e})", self.code, self.message))
        })
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}] {}", self.code, self.message)
    }
}

/// A session id that is no [`code_intel_session::vocab::SessionId`]: `INVALID_SESSION_ID`, as the
/// store reports it.
impl From<InvalidSessionId> for Failure {
    fn from(e: InvalidSessionId) -> Self {
        SessionError::from(e).into()
    }
}

impl From<SessionError> for Failure {
    fn from(e: SessionError) -> Self {
        let (code, hint) = match &e {
            SessionError::Phase(v) => return v.clone().into(),
            SessionError::Unknown { .. } => (
                "UNKNOWN_SESSION",
                "start a session with repo.startSession(), or list them with repo.listSessions()",
            ),
            SessionError::InvalidId { .. } => (
                "INVALID_SESSION_ID",
                "pass a session id as repo.startSession() or repo.listSessions() return it",
            ),
            SessionError::Corrupt { .. } => (
                "CORRUPT_SESSION",
                "the file was left for inspection: start a new session",
            ),
            SessionError::Version { .. } => (
                "SESSION_VERSION",
                "start a new session with this version of code-intel",
            ),
            SessionError::Read { .. } | SessionError::Persist(_) => (
                "SESSION_IO",
                "check permissions and free space under .code-intel/, then retry",
            ),
        };
        Self::new(code, e.to_string(), hint)
    }
}

impl From<PhaseViolation> for Failure {
    fn from(v: PhaseViolation) -> Self {
        Self::new(
            "PHASE_VIOLATION",
            v.message,
            "call session.status() for the phase and next action; revertToExploration() goes back",
        )
    }
}

impl From<ExploreError> for Failure {
    fn from(e: ExploreError) -> Self {
        let (code, hint) = match &e {
            ExploreError::BadRegex { .. } => (
                "BAD_REGEX",
                "fix the pattern, or pass literal: true to search for the text as written",
            ),
            ExploreError::Path(RepoPathError::OutsideRoot { .. })
            | ExploreError::Source(SourceError::OutsideRoot { .. }) => (
                "OUTSIDE_REPOSITORY",
                "pass a path inside the repository (relative to its root)",
            ),
            ExploreError::Path(_) => ("BAD_PATH", "pass a repository-relative path"),
            ExploreError::NotFound { .. } | ExploreError::Source(SourceError::NotFound { .. }) => (
                "NOT_FOUND",
                "check the path (relative to the repository root)",
            ),
            ExploreError::NotAFile { .. } | ExploreError::Source(SourceError::Directory { .. }) => {
                ("NOT_A_FILE", "pass a file, not a directory")
            }
            ExploreError::LineOutOfRange { .. } => {
                ("LINE_OUT_OF_RANGE", "pass a 1-based line inside the file")
            }
            ExploreError::EmptySymbol => ("EMPTY_SYMBOL", "pass a non-empty symbol name"),
            ExploreError::UnknownFileType { .. } => (
                "UNKNOWN_FILE_TYPE",
                "use a file type the message lists, or leave it out",
            ),
            ExploreError::Source(SourceError::TooLarge { .. }) => (
                "FILE_TOO_LARGE",
                "raise limits.max_file_bytes in .code-intel/config.json, or pick a smaller file",
            ),
            ExploreError::Source(SourceError::NotRegular { .. }) => {
                ("NOT_A_REGULAR_FILE", "pass a regular file")
            }
            ExploreError::Source(SourceError::Io { .. }) => {
                ("READ_FAILED", "check the file's permissions and retry")
            }
            ExploreError::Unparsable { .. } => (
                "UNPARSABLE",
                "the file could not be parsed: use searchText on it instead",
            ),
            ExploreError::Index(_) => (
                "INDEX_ERROR",
                "run repo.index() (or `code-intel repair` for a damaged index)",
            ),
        };
        Self::new(code, e.to_string(), hint)
    }
}

impl From<IndexError> for Failure {
    fn from(e: IndexError) -> Self {
        Self::new(
            "INDEX_ERROR",
            e.to_string(),
            "retry repo.index(); if the index is damaged run `code-intel repair`",
        )
    }
}

/// Runs `f`, turning a panic into [`Failure::internal`]: no panic crosses into Node.
pub fn guarded<T>(f: impl FnOnce() -> Result<T, Failure>) -> Result<T, Failure> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let what = p
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(Failure::internal(format!("code-intel panicked: {what}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_internal_failure() {
        let r: Result<(), Failure> = guarded(|| panic!("boom"));
        let f = r.expect_err("the panic is caught");
        assert_eq!(f.code, "INTERNAL");
        assert!(f.message.contains("boom"), "{}", f.message);
    }

    #[test]
    fn session_errors_keep_core_message_and_get_a_code() {
        let f = Failure::from(SessionError::Unknown { id: "x".into() });
        assert_eq!(f.code, "UNKNOWN_SESSION");
        assert!(f.message.contains("start_session"), "{}", f.message);
        assert!(f.hint.contains("startSession"), "{}", f.hint);
    }
}
