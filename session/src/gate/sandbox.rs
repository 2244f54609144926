//! What a Bash command may write when the kernel enforces the gate (Landlock, through the
//! `code-intel-sandbox` launcher the PreToolUse hook puts in front of every Bash command while the
//! gate is active).
//!
//! The static analysis in [`code_intel_bash`] cannot be complete; the kernel can. A [`SandboxPlan`]
//! names the trees the command may not write ([`SandboxPlan::protect`]: the repository, Claude
//! Code's configuration directories and settings files, code-intel's binaries, managed settings)
//! and, beneath them, what it still may ([`SandboxPlan::allow`]: ignored top-level directories of
//! the repository such as `target/` or `node_modules/`; in READY the explored directories and the
//! directories of the explored files the session may change, since the kernel's unit is the
//! directory; Claude Code's data directories). Everything else stays writable.
//! The launcher turns this into a Landlock ruleset that grants write access to the complement of
//! `protect` plus `allow`.

use std::path::{Path, PathBuf};

mod ready;
pub use ready::ReadyRights;

use super::loaded::Loaded;
use super::{ConfigLocations, GateError, is_protected, protect};
use crate::config::GateMode;
use crate::repo_path::{RepoPath, RepoRoot, real_location};
use crate::session::NewFiles;

/// The write policy for one sandboxed command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxPlan {
    /// Trees (or files) the command may not write, at their real location.
    pub protect: Vec<PathBuf>,
    /// Trees (or files) beneath a protected one that the command may write nonetheless.
    pub allow: Vec<PathBuf>,
    /// Set when `allow` holds a READY session's explored directories: the launcher then tracks
    /// the command's processes and ends them when the session stops granting them
    /// ([`crate::witness`]).
    pub ready: Option<ReadyRights>,
}

/// The plan for a shell command of Claude Code session `claude_session_id` in `project_dir`, or
/// `None` when the gate is not active for it (`gate_mode: off`, or `session` mode without a live
/// session): then the command runs as it is. One plan for both ways a command meets the kernel:
/// the PreToolUse hook's rewrite (a call it allowed, `ToolCall::claude_session_id` and
/// `ToolCall::locations`) and the launcher run as Claude Code's shell prefix (the session id and
/// locations from the environment Claude Code gives the command).
///
/// # Errors
/// The project, config or session state is unreadable (the caller denies).
pub fn sandbox_plan(
    project_dir: &Path,
    claude_session_id: Option<&str>,
    locations: &ConfigLocations,
) -> Result<Option<SandboxPlan>, GateError> {
    let root = RepoRoot::new(project_dir).map_err(GateError::Root)?;
    let loaded = Loaded::new(&root, claude_session_id);
    plan(&root, claude_session_id, locations, &loaded)
}

/// [`sandbox_plan`] from what the call has read already ([`Loaded`]): the verdict of the same
/// call ([`super::pre_tool_use`]) may have read the config, binding and session.
pub(super) fn plan(
    root: &RepoRoot,
    claude_session_id: Option<&str>,
    locations: &ConfigLocations,
    loaded: &Loaded<'_>,
) -> Result<Option<SandboxPlan>, GateError> {
    let mode = loaded.config()?.gate_mode;
    if mode == GateMode::Off {
        return Ok(None);
    }
    let live = loaded.session()?.filter(|s| s.ended.is_none());
    if mode == GateMode::Session && live.is_none() {
        return Ok(None);
    }

    let mut plan = SandboxPlan {
        protect: vec![root.path().to_path_buf()],
        allow: Vec::new(),
        ready: None,
    };
    let prot = protect::Protected::new(locations);
    plan.protect.extend(prot.sandbox_paths());
    plan.allow.extend(prot.sandbox_data_dirs());
    let (path_outside, path_inside) = path_dirs(root, locations);
    plan.protect.extend(path_outside);

    // Ignored top-level entries of the repository (build output, dependencies); by pattern only
    // while the session's ignore rules are the ones it started with.
    let rules_changed = live
        .and_then(|s| s.ignore_digest.as_deref())
        .is_some_and(|d| d != crate::session::store::ignore_digest(root));
    if let Ok(entries) = std::fs::read_dir(root.path()) {
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_symlink() {
                continue;
            }
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let Ok(p) = RepoPath::parse_relative(name) else {
                continue;
            };
            if name == ".git" || is_protected(&p) || !loaded.ignores().ignored(root, &p) {
                continue;
            }
            if rules_changed && !super::ALWAYS_IGNORED_DIRS.contains(&name) {
                continue;
            }
            plan.allow.push(root.absolute(&p));
        }
    }
    // READY: what the session may change. The kernel's unit is the directory (editors and `sed -i`
    // write a temporary file next to the target and rename it over), so an explored file opens
    // its directory and an explored directory itself; the static analysis still checks each
    // literal target per file. Never the repository root (see the protected entries below).
    if let Some(state) = live {
        for p in &state.explored {
            if p.is_root() || is_protected(p) {
                continue;
            }
            let abs = root.absolute(p);
            let Ok(meta) = abs.symlink_metadata() else {
                continue;
            };
            if meta.file_type().is_symlink() || real_location(&abs) != abs {
                continue;
            }
            if state
                .write_permission(p, true, NewFiles::ApprovedOnly)
                .is_err()
            {
                continue;
            }
            if meta.is_dir() {
                plan.allow.push(abs);
            } else if let Some(dir) = p.parent().filter(|d| !d.is_root()) {
                plan.allow.push(root.absolute(&dir));
            } else {
                continue;
            }
            plan.ready.get_or_insert_with(|| ReadyRights {
                root: root.path().to_path_buf(),
                session: state.session_id.clone(),
                claude_session: claude_session_id.map(String::from),
            });
        }
    }
    // The repository's own configuration and history stay protected inside any allowed tree:
    // an allowed directory that holds one of them (the root) is dropped below.
    for name in [crate::state_dir::STATE_DIR, ".claude", ".git", ".mcp.json"] {
        let p = root.path().join(name);
        if p.symlink_metadata().is_ok() {
            plan.protect.push(p);
        }
    }
    // A PATH directory inside the repository (`.venv/bin` of an activated virtualenv,
    // `node_modules/.bin` from direnv) is writable only through an allowed tree: it stays
    // unwritable, and an allowed tree holding it is opened entry by entry around it.
    for dir in &path_inside {
        plan.allow = split_around(std::mem::take(&mut plan.allow), dir);
    }
    // An allowed tree must not hold a protected one (a config dir inside an ignored directory).
    let protected = plan.protect.clone();
    plan.allow
        .retain(|a| !protected.iter().any(|p| p != a && p.starts_with(a)));
    plan.protect.sort();
    plan.protect.dedup();
    plan.allow.sort();
    plan.allow.dedup();
    Ok(Some(plan))
}

/// The directories of Claude Code's `PATH` a sandboxed command may not write, at their real
/// location ([`ConfigLocations::path_dirs`]). Claude Code runs programs by name outside the
/// sandbox (its own `git`, exec-form hooks such as `code-intel-post-tool-use`, whatever the user's
/// hooks name): a program of such a name written into a PATH directory (`~/.local/bin/git`) would
/// run unconfined later. A directory that does not exist yet is protected too: the launcher then
/// lets no new entry into its nearest existing ancestor (`mkdir -p ~/.local/bin` fails when
/// `~/.local` exists, existing entries of `~/.local` stay writable). Left out: relative entries,
/// `/`, and a directory holding the repository (protecting an ancestor would leave its ignored
/// directories unwritable).
///
/// Returns the directories outside the repository (protected) and those inside it, which the
/// repository's protection covers unless an allowed tree holds them ([`split_around`]).
fn path_dirs(root: &RepoRoot, locations: &ConfigLocations) -> (Vec<PathBuf>, Vec<PathBuf>) {
    locations
        .path_dirs
        .iter()
        .filter(|d| d.is_absolute())
        // One `realpath` for an existing directory; `real_location` walks a missing one.
        .map(|d| std::fs::canonicalize(d).unwrap_or_else(|_| real_location(d)))
        .filter(|d| d.parent().is_some() && !root.path().starts_with(d))
        .partition(|d| !d.starts_with(root.path()))
}

/// `allow` without `keep_out` and anything beneath it: an allowed tree equal to it or inside it
/// is dropped, one that holds it is replaced by its entries except the one leading to it, down
/// to its parent (whose other entries stay writable; it gets no new entries).
fn split_around(allow: Vec<PathBuf>, keep_out: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending = allow;
    while let Some(a) = pending.pop() {
        if a.starts_with(keep_out) {
            continue;
        }
        if !keep_out.starts_with(&a) {
            out.push(a);
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&a) else {
            continue;
        };
        for entry in entries.flatten() {
            let is_link = entry.file_type().is_ok_and(|t| t.is_symlink());
            let path = entry.path();
            if keep_out.starts_with(&path) {
                if !is_link {
                    pending.push(path);
                }
            } else {
                out.push(path);
            }
        }
    }
    out
}

/// `s` as one single-quoted shell word.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The command line that runs `command` under `launcher` with `plan`: `launcher --protect P…
/// --allow A… [--ready-root R --ready-session S [--ready-claude C]] -- 'command'`, every word
/// quoted.
pub fn wrap_command(launcher: &Path, plan: &SandboxPlan, command: &str) -> String {
    let mut out = shell_quote(&launcher.to_string_lossy());
    for (flag, paths) in [("--protect", &plan.protect), ("--allow", &plan.allow)] {
        for p in paths {
            out.push(' ');
            out.push_str(flag);
            out.push(' ');
            out.push_str(&shell_quote(&p.to_string_lossy()));
        }
    }
    if let Some(ready) = &plan.ready {
        let mut flags = vec![
            ("--ready-root", ready.root.to_string_lossy().into_owned()),
            ("--ready-session", ready.session.to_string()),
        ];
        if let Some(cs) = &ready.claude_session {
            flags.push(("--ready-claude", cs.clone()));
        }
        for (flag, value) in flags {
            out.push(' ');
            out.push_str(flag);
            out.push(' ');
            out.push_str(&shell_quote(&value));
        }
    }
    out.push_str(" -- ");
    out.push_str(&shell_quote(command));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_directories_outside_the_repository_are_protected_existing_or_not() {
        let dir = tempfile::tempdir().unwrap();
        let base = real_location(dir.path());
        let repo = base.join("work/repo");
        for d in [
            "work/repo/node_modules/.bin",
            "work/repo/node_modules/pkg",
            "work/repo/target",
            "bin",
            "home/.local",
        ] {
            std::fs::create_dir_all(base.join(d)).unwrap();
        }
        std::os::unix::fs::symlink(base.join("bin"), base.join("link")).unwrap();
        let locations = ConfigLocations {
            path_dirs: [
                "home/.local/bin",             // missing: protected as it will be
                "link",                        // a symbolic link: at its target
                "work/repo/node_modules/.bin", // inside the repository, in an allowed tree
                "work",                        // holds the repository
            ]
            .iter()
            .map(|d| base.join(d))
            .chain([PathBuf::from("/"), PathBuf::from("relative/bin")])
            .collect(),
            ..ConfigLocations::default()
        };
        let plan = sandbox_plan(&repo, None, &locations).unwrap().unwrap();
        let outside: Vec<&PathBuf> = plan
            .protect
            .iter()
            .filter(|p| p.starts_with(&base) && !p.starts_with(&repo))
            .collect();
        assert_eq!(
            outside,
            [&base.join("bin"), &base.join("home/.local/bin")],
            "{plan:?}"
        );
        // `node_modules/.bin` is on PATH: `node_modules` is opened entry by entry around it.
        let modules = repo.join("node_modules");
        assert!(
            !plan
                .allow
                .iter()
                .any(|a| a == &modules || a.starts_with(modules.join(".bin"))),
            "{plan:?}"
        );
        assert!(plan.allow.contains(&modules.join("pkg")), "{plan:?}");
        assert!(plan.allow.contains(&repo.join("target")), "{plan:?}");
        // The managed settings: all of `/etc`, not its entries but `claude-code` one by one.
        assert!(plan.protect.contains(&PathBuf::from("/etc")), "{plan:?}");
    }

    #[test]
    fn quoting_survives_quotes() {
        assert_eq!(shell_quote("a'b"), r"'a'\''b'");
        let plan = SandboxPlan {
            protect: vec!["/r".into()],
            allow: vec!["/r/target".into()],
            ready: None,
        };
        assert_eq!(
            wrap_command(Path::new("/bin/sb"), &plan, "echo 'x' > y"),
            r"'/bin/sb' --protect '/r' --allow '/r/target' -- 'echo '\''x'\'' > y'"
        );
    }
}
