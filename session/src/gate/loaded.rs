//! What one hook call reads of the project, each piece at most once and only when a rule needs
//! it: the ignore rules, `.code-intel/config.json`, the binding of the Claude Code session and
//! the bound session's state. The verdict ([`super::pre_tool_use`]) and the sandbox plan
//! ([`super::sandbox`]) of one call share it, so a Bash call that is allowed and rewritten under
//! the launcher reads the config and the session once, not once per question.

use std::cell::OnceCell;

use super::{GateError, Ignores};
use crate::config::Config;
use crate::repo_path::RepoRoot;
use crate::session::SessionState;
use crate::session::store::SessionStore;
use crate::vocab::SessionId;

/// The project state of one call, read lazily behind shared references (so the verdict can hold
/// the session while it asks for the ignore rules). Errors are not cached: a piece that failed to
/// load is read again if asked again (the caller denies on the first error anyway).
pub(super) struct Loaded<'a> {
    root: &'a RepoRoot,
    claude_session_id: Option<&'a str>,
    ignores: OnceCell<Ignores>,
    config: OnceCell<Config>,
    store: OnceCell<SessionStore>,
    bound: OnceCell<Option<SessionId>>,
    session: OnceCell<SessionState>,
}

/// The value of `cell`, set by `load` the first time it succeeds.
fn get_or_load<T, E>(cell: &OnceCell<T>, load: impl FnOnce() -> Result<T, E>) -> Result<&T, E> {
    if let Some(v) = cell.get() {
        return Ok(v);
    }
    let v = load()?;
    Ok(cell.get_or_init(|| v))
}

impl<'a> Loaded<'a> {
    /// Nothing read yet; `claude_session_id`: the call's Claude Code session (its binding names
    /// the code-intel session).
    pub(super) fn new(root: &'a RepoRoot, claude_session_id: Option<&'a str>) -> Self {
        Self {
            root,
            claude_session_id,
            ignores: OnceCell::new(),
            config: OnceCell::new(),
            store: OnceCell::new(),
            bound: OnceCell::new(),
            session: OnceCell::new(),
        }
    }

    /// The ignore rules of the repository ([`Ignores::load`]; never fails: an unreadable file
    /// is skipped, so the gate gates more).
    pub(super) fn ignores(&self) -> &Ignores {
        self.ignores.get_or_init(|| Ignores::load(self.root))
    }

    /// `.code-intel/config.json` (defaults when absent).
    ///
    /// # Errors
    /// [`GateError::Config`] when it is unreadable or malformed.
    pub(super) fn config(&self) -> Result<&Config, GateError> {
        get_or_load(&self.config, || {
            Config::load(self.root.path()).map_err(Into::into)
        })
    }

    fn store(&self) -> &SessionStore {
        self.store
            .get_or_init(|| SessionStore::new(self.root.clone()))
    }

    /// The code-intel session the call's Claude Code session is bound to; `None` without a
    /// Claude Code session or a binding.
    ///
    /// # Errors
    /// [`GateError::Session`] when the binding is unreadable.
    pub(super) fn bound(&self) -> Result<Option<&SessionId>, GateError> {
        let bound = get_or_load(&self.bound, || match self.claude_session_id {
            Some(cs) => self.store().bound(cs).map_err(GateError::from),
            None => Ok(None),
        })?;
        Ok(bound.as_ref())
    }

    /// The state of the bound session: `None` when [`bound`](Self::bound) is.
    ///
    /// # Errors
    /// [`GateError::Session`] when the binding or the state is unreadable.
    pub(super) fn session(&self) -> Result<Option<&SessionState>, GateError> {
        let Some(id) = self.bound()? else {
            return Ok(None);
        };
        get_or_load(&self.session, || {
            self.store().load(id).map_err(GateError::from)
        })
        .map(Some)
    }
}
