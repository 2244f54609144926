//! The READY rights a sandbox plan grants, and whether they still hold (docs/GATE.md "Nothing
//! outlives READY"; the store's side is [`crate::witness`]).

use std::path::PathBuf;

use crate::repo_path::RepoRoot;
use crate::session::store::SessionStore;
use crate::vocab::Phase;
use crate::vocab::SessionId;

/// A plan that opens a READY session's explored directories: the session, so that the launcher
/// can run the command in a tracked domain whose processes end when the session stops granting
/// these rights.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadyRights {
    /// The repository root (canonical).
    pub root: PathBuf,
    /// The session whose rights the plan grants.
    pub session: SessionId,
    /// The Claude Code session the plan was computed for; the rights hold only while it stays
    /// bound to [`ReadyRights::session`].
    pub claude_session: Option<String>,
}

impl ReadyRights {
    /// Whether the session still grants these rights: its state reads, it is in READY and not
    /// ended, and the Claude Code session (when named) is still bound to it. Any read error is
    /// `false` (the rights are then taken to be gone: the caller ends what holds them).
    pub fn hold(&self) -> bool {
        let Ok(root) = RepoRoot::new(&self.root) else {
            return false;
        };
        let store = SessionStore::new(root);
        let Ok(state) = store.load(&self.session) else {
            return false;
        };
        if state.phase != Phase::Ready || state.ended.is_some() {
            return false;
        }
        match &self.claude_session {
            Some(cs) => store.bound(cs).ok().flatten().as_ref() == Some(&self.session),
            None => true,
        }
    }
}
