//! READY: whether a write may go ahead (`write_permission`, shared by the hook and
//! `check_write_target`), `add_explored_files`, and the way back, `revert_to_exploration`
//! (docs/DESIGN.md#write-rule, docs/DESIGN.md#recovery).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{
    AddExploredResult, HypothesisStatus, RecoveryOption, RevertResult, SessionState, WriteCheck,
};
use crate::repo_path::{RepoPath, RepoRoot};
use crate::vocab::Phase;
use crate::vocab::SlotSource;

/// Why a write is refused, with the recovery the model should take.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteDenial {
    /// Message naming the next tool to call.
    pub reason: String,
    /// Whether `add_explored_files` / `revert_to_exploration` can fix it.
    pub recoverable_in_ready: bool,
}

/// What to allow for a path that does not exist yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewFiles {
    /// Only files approved earlier by `check_write_target(allow_new_files=true)` (the hook's rule).
    ApprovedOnly,
    /// Any file whose parent directory is explored (`check_write_target(allow_new_files=true)`).
    InExploredDir,
    /// None (`check_write_target(allow_new_files=false)`).
    Never,
}

impl SessionState {
    /// Whether the session lets `path` be written (the gate's rule, shared by the hook and
    /// `check_write_target`). `exists` says whether the path exists on disk.
    ///
    /// # Errors
    /// A [`WriteDenial`] whose reason names the next tool to call.
    pub fn write_permission(
        &self,
        path: &RepoPath,
        exists: bool,
        new_files: NewFiles,
    ) -> Result<(), WriteDenial> {
        let deny = |reason: String, recoverable_in_ready| {
            Err(WriteDenial {
                reason,
                recoverable_in_ready,
            })
        };
        if let Some(end) = &self.ended {
            return deny(
                format!(
                    "code-intel session {} has ended (outcome {} recorded at {}): start a new session with start_session for further changes",
                    self.session_id,
                    end.outcome.name(),
                    end.at
                ),
                false,
            );
        }
        if !self.intent.may_write() {
            return deny(
                format!(
                    "session {} is {}: such sessions never write. Start an IMPLEMENT or MODIFY session with start_session to change code",
                    self.session_id, self.intent
                ),
                false,
            );
        }
        if self.phase != Phase::Ready {
            return deny(
                format!(
                    "code-intel session {} is in phase {}, writes are allowed only in READY. Next: {}",
                    self.session_id,
                    self.phase,
                    self.phase.next_step()
                ),
                false,
            );
        }
        let open = self.query_frame.hypotheses();
        if !open.is_empty() {
            return deny(
                format!(
                    "unverified HYPOTHESIS left ({}): call revert_to_exploration and verify them first",
                    open.join(", ")
                ),
                false,
            );
        }
        if exists {
            if self.is_explored(path) {
                return Ok(());
            }
            return deny(
                format!(
                    "{path} was not explored in session {}. Read or explore it, then call add_explored_files([\"{path}\"]), or revert_to_exploration to explore more",
                    self.session_id
                ),
                true,
            );
        }
        let parent = path.parent().unwrap_or_default();
        match new_files {
            NewFiles::ApprovedOnly
                if self.approved_new_files.contains(path) || self.is_explored(path) =>
            {
                Ok(())
            }
            NewFiles::InExploredDir if self.is_dir_explored(&parent) || self.is_explored(path) => {
                Ok(())
            }
            NewFiles::Never => deny(
                format!(
                    "{path} does not exist: call check_write_target(\"{path}\", allow_new_files=true) to create it"
                ),
                true,
            ),
            NewFiles::ApprovedOnly if self.is_dir_explored(&parent) => deny(
                format!(
                    "{path} is a new file: call check_write_target(\"{path}\", allow_new_files=true) first"
                ),
                true,
            ),
            _ => deny(
                format!(
                    "{path} is a new file in the unexplored directory {parent}: explore it (read a file in it), then call check_write_target(\"{path}\", allow_new_files=true)"
                ),
                true,
            ),
        }
    }

    /// `check_write_target` (docs/DESIGN.md#write-rule, docs/DESIGN.md#new-files, with the
    /// recovery options of docs/DESIGN.md#recovery).
    /// An allowed new file is remembered, so the hook lets its Write through.
    pub fn check_write_target(
        &mut self,
        root: &RepoRoot,
        path: &str,
        allow_new_files: bool,
    ) -> WriteCheck {
        let rp = match root.resolve(path) {
            Ok(p) => p,
            Err(e) => {
                return WriteCheck {
                    allowed: false,
                    path: path.into(),
                    error: Some(e.to_string()),
                    recovery_options: BTreeMap::new(),
                };
            }
        };
        let exists = root.absolute(&rp).exists();
        let policy = if allow_new_files {
            NewFiles::InExploredDir
        } else {
            NewFiles::Never
        };
        match self.write_permission(&rp, exists, policy) {
            Ok(()) => {
                if !exists {
                    self.approved_new_files.insert(rp.clone());
                }
                WriteCheck {
                    allowed: true,
                    path: rp.as_str().into(),
                    error: None,
                    recovery_options: BTreeMap::new(),
                }
            }
            Err(d) => WriteCheck {
                allowed: false,
                path: rp.as_str().into(),
                error: Some(d.reason),
                recovery_options: recovery_options(&rp),
            },
        }
    }

    /// `add_explored_files` (READY only; the phase is checked by [`check_tool`](super::check_tool)): adds files that
    /// were read in this session (a Read recorded by the PostToolUse hook, or an exploration tool
    /// that returned them), and new files whose parent directory is explored. Everything else is
    /// refused with the reason: directories (the repository root included), globs, empty paths,
    /// files never read, non-regular files, new files in unexplored directories.
    pub fn add_explored_files(&mut self, root: &RepoRoot, files: &[String]) -> AddExploredResult {
        let mut added = Vec::new();
        let mut rejected = Vec::new();
        for f in files {
            match self.explorable(root, f) {
                Ok(p) => {
                    added.push(p.as_str().to_string());
                    self.explored.insert(p);
                }
                Err(reason) => rejected.push(format!("{f:?}: {reason}")),
            }
        }
        AddExploredResult {
            success: rejected.is_empty(),
            added,
            rejected,
            explored_count: self.explored.len(),
        }
    }

    /// Whether a tool call of this session named `p` among its files.
    fn was_read(&self, p: &RepoPath) -> bool {
        self.tool_calls.iter().any(|c| {
            c.files
                .iter()
                .any(|f| RepoPath::parse_relative(f).is_ok_and(|r| &r == p))
        })
    }

    fn explorable(&self, root: &RepoRoot, f: &str) -> Result<RepoPath, String> {
        if f.trim().is_empty() {
            return Err("an empty path names no file".into());
        }
        if f.contains(['*', '?', '[']) {
            return Err("globs are not accepted: name each file you read".into());
        }
        let p = root.resolve(f).map_err(|e| e.to_string())?;
        if p.is_root() {
            return Err("the repository root is a directory: name the files you read".into());
        }
        if p.is_git_internal() {
            return Err(format!(
                "{p} is git's own state (its configuration and hooks run programs): it is never an explored file"
            ));
        }
        match std::fs::metadata(root.absolute(&p)) {
            Ok(m) if m.is_dir() => Err(format!(
                "{p} is a directory: name the files in it that you read"
            )),
            Ok(m) if !m.is_file() => Err(format!("{p} is not a regular file")),
            Ok(_) if self.was_read(&p) => Ok(p),
            Ok(_) => Err(format!(
                "{p} was not read in this session: Read it (or find it with an exploration tool) first, then add it"
            )),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let parent = p.parent().unwrap_or_default();
                if self.is_dir_explored(&parent) {
                    Ok(p)
                } else {
                    Err(format!(
                        "{p} does not exist and its directory {} was not explored: explore the directory first",
                        if parent.is_root() {
                            "(the root)".to_string()
                        } else {
                            parent.to_string()
                        }
                    ))
                }
            }
            Err(e) => Err(format!("{p} cannot be checked: {e}")),
        }
    }

    /// `revert_to_exploration`: back to EXPLORATION from any phase. Unverified hypotheses are
    /// dropped either way; `keep_results = false` also forgets tool calls, explored files, mapped
    /// symbols and approvals (the quoted slots stay: the request did not change).
    pub fn revert_to_exploration(&mut self, keep_results: bool) -> RevertResult {
        let previous = self.phase;
        self.hypotheses
            .retain(|h| h.status != HypothesisStatus::Hypothesis);
        self.query_frame
            .slots
            .retain(|_, v| v.source == SlotSource::Fact);
        self.query_frame
            .mapped_symbols
            .retain(|m| m.source == SlotSource::Fact);
        if !keep_results {
            self.tool_calls.clear();
            self.explored.clear();
            self.approved_new_files.clear();
            self.query_frame.mapped_symbols.clear();
            self.query_frame.slot_evidence.clear();
            self.hypotheses.clear();
            self.understanding = None;
        }
        self.missing_requirements.clear();
        self.set_phase(Phase::Exploration, "revert_to_exploration");
        RevertResult {
            success: true,
            previous_phase: previous,
            phase: self.phase,
            kept_results: keep_results,
            explored_count: self.explored.len(),
        }
    }
}

/// The recovery options of a denied write (docs/DESIGN.md#recovery).
pub fn recovery_options(path: &RepoPath) -> BTreeMap<String, RecoveryOption> {
    BTreeMap::from([
        (
            "add_explored_files".to_string(),
            RecoveryOption {
                description: "Add files you have read (or new files in an explored directory) to the explored list without leaving READY phase"
                    .into(),
                example: format!("add_explored_files(files=[\"{path}\"])"),
            },
        ),
        (
            "revert_to_exploration".to_string(),
            RecoveryOption {
                description: "Go back to EXPLORATION phase for thorough re-exploration".into(),
                example: "revert_to_exploration(keep_results=true)".into(),
            },
        ),
    ])
}
