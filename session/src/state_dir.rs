//! `<repo>/.code-intel/`: every path code-intel keeps state under, named in one place.
//!
//! ```text
//! .code-intel/
//!   config.json            configuration (committed)          StateDir::config
//!   learned_pairs.json     the learned map's pairs (committed) StateDir::learned_pairs
//!   agreements/*.md        the learned map's agreements        StateDir::agreements
//!   sessions/<id>.json     one file per session                StateDir::sessions
//!   bindings/<id>.json     Claude Code session → session       StateDir::bindings
//!   journal/decisions.jsonl, gate.jsonl, outcomes.jsonl        StateDir::*_journal
//!   sync_state.json        what the index holds per file       StateDir::sync_state
//!   index/lexical/         tantivy index                       StateDir::lexical
//!   index/sync.lock        the sync lock (FileLock base index/sync) StateDir::sync_lock
//!   index/vectors/, index/embeddings/                          StateDir::vectors, ::embeddings
//!   install                install lock base                   StateDir::install_lock
//! ```
//!
//! Only this module spells these names; modules ask a [`StateDir`] for the path they need.

use std::path::{Path, PathBuf};

/// Name of the state directory inside a repository.
pub const STATE_DIR: &str = ".code-intel";
/// File name of the configuration inside [`STATE_DIR`].
pub const CONFIG_FILE: &str = "config.json";
/// File name of the learned pairs inside [`STATE_DIR`].
pub const LEARNED_PAIRS_FILE: &str = "learned_pairs.json";
/// Directory of the agreement files inside [`STATE_DIR`].
pub const AGREEMENTS_DIR: &str = "agreements";

/// The state directory of one repository (`<repo>/.code-intel`), and the paths inside it.
///
/// A plain path: constructing one touches no file, and nothing here creates directories (the
/// writers do, atomically, when they first write).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StateDir(PathBuf);

impl StateDir {
    /// The state directory of the repository at `repo_root` (`<repo_root>/.code-intel`).
    pub fn of(repo_root: &Path) -> Self {
        Self(repo_root.join(STATE_DIR))
    }

    /// A state directory given by its own path (callers that were handed `<repo>/.code-intel`).
    pub fn at(state_dir: &Path) -> Self {
        Self(state_dir.to_path_buf())
    }

    /// The directory itself.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// `config.json`.
    pub fn config(&self) -> PathBuf {
        self.0.join(CONFIG_FILE)
    }

    /// `sessions/`: one `<id>.json` per session.
    pub fn sessions(&self) -> PathBuf {
        self.0.join("sessions")
    }

    /// `bindings/`: one `<claude_session_id>.json` per bound Claude Code session.
    pub fn bindings(&self) -> PathBuf {
        self.0.join("bindings")
    }

    /// `journal/decisions.jsonl` (the DecisionLog).
    pub fn decisions_journal(&self) -> PathBuf {
        self.0.join("journal").join("decisions.jsonl")
    }

    /// `journal/gate.jsonl` (the gate's denials).
    pub fn gate_journal(&self) -> PathBuf {
        self.0.join("journal").join("gate.jsonl")
    }

    /// `journal/outcomes.jsonl` (the OutcomeLog).
    pub fn outcomes_journal(&self) -> PathBuf {
        self.0.join("journal").join("outcomes.jsonl")
    }

    /// `learned_pairs.json`.
    pub fn learned_pairs(&self) -> PathBuf {
        self.0.join(LEARNED_PAIRS_FILE)
    }

    /// `agreements/`.
    pub fn agreements(&self) -> PathBuf {
        self.0.join(AGREEMENTS_DIR)
    }

    /// `sync_state.json`: what the index holds per file, written after each index commit.
    pub fn sync_state(&self) -> PathBuf {
        self.0.join("sync_state.json")
    }

    /// `index/`.
    pub fn index(&self) -> PathBuf {
        self.0.join("index")
    }

    /// `index/lexical/`: the tantivy index.
    pub fn lexical(&self) -> PathBuf {
        self.index().join("lexical")
    }

    /// Base path of the sync lock: `persist::FileLock` locks `index/sync.lock`.
    pub fn sync_lock(&self) -> PathBuf {
        self.index().join("sync")
    }

    /// `index/vectors/`: the vector store.
    pub fn vectors(&self) -> PathBuf {
        self.index().join("vectors")
    }

    /// `index/embeddings/`: the embedding cache of the code index.
    pub fn embeddings(&self) -> PathBuf {
        self.index().join("embeddings")
    }

    /// `index/embeddings/map`: the embedding cache of the learned map.
    pub fn map_embeddings(&self) -> PathBuf {
        self.embeddings().join("map")
    }

    /// Base path of the lock `code-intel init` holds while it writes configuration.
    pub fn install_lock(&self) -> PathBuf {
        self.0.join("install")
    }
}

impl AsRef<Path> for StateDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_under_the_state_dir() {
        let s = StateDir::of(Path::new("/repo"));
        assert_eq!(s.path(), Path::new("/repo/.code-intel"));
        assert_eq!(s.config(), Path::new("/repo/.code-intel/config.json"));
        assert_eq!(
            s.decisions_journal(),
            Path::new("/repo/.code-intel/journal/decisions.jsonl")
        );
        assert_eq!(s.lexical(), Path::new("/repo/.code-intel/index/lexical"));
        assert_eq!(
            s.map_embeddings(),
            Path::new("/repo/.code-intel/index/embeddings/map")
        );
        assert_eq!(StateDir::at(s.path()), s);
    }
}
