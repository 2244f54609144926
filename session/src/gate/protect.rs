//! What the agent may never write, in any phase and in every gate mode: Claude Code's configuration
//! and code-intel's own state and binaries, wherever they are on disk.
//!
//! A write there would switch the gate off (`"disableAllHooks": true` in a settings file, a hook
//! removed, `gate_mode: off`, a forged session, a replaced hook binary), so these paths are
//! checked on the real location of the target (symlinks resolved at decision time, including
//! `/proc/<pid>/cwd` and `/proc/<pid>/root`), before anything else the gate looks at.
//!
//! | location | why |
//! |---|---|
//! | any path with a `.claude` component (project `.claude/`: settings, settings.local, hooks, skills, commands, agents, worktrees, `scheduled_tasks.json`; `~/.claude/`) | Claude Code's settings, hooks and plugins |
//! | `$CLAUDE_CONFIG_DIR/…` | the same, relocated |
//! | files named `.mcp.json` or `.claude.json*` | MCP servers and the global config (`~/.claude.json`) |
//! | `/etc/claude-code/`, `/Library/Application Support/ClaudeCode/` | managed settings |
//! | any path with a `.code-intel` component | the gate's config, sessions and bindings |
//! | `$CLAUDE_PLUGIN_ROOT/…`, the hook binary and its `code-intel*` siblings | the gate itself |
//!
//! Exceptions: `projects/`, `plans/` and `todos/` under the Claude Code config directory (`~/.claude`
//! or `$CLAUDE_CONFIG_DIR`): transcripts, memory and plan files the agent writes as part of its
//! normal work, which configure nothing.
//!
//! Core reads no environment: the hook adapter fills [`ConfigLocations`] from `HOME`,
//! `CLAUDE_CONFIG_DIR`, `CLAUDE_PLUGIN_ROOT` and its own executable path.

use std::path::{Component, Path, PathBuf};

use crate::repo_path::real_location;

/// Where Claude Code's and code-intel's configuration lives outside the repository, as the hook
/// process sees it. Every field is optional; what is unknown is simply not protected by location
/// (the `.claude` / `.code-intel` component rules still apply).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigLocations {
    /// `$HOME` (absolute): `~/.claude/` and `~/.claude.json`.
    pub home: Option<PathBuf>,
    /// `$CLAUDE_CONFIG_DIR` (absolute), when Claude Code's configuration is relocated.
    pub claude_config_dir: Option<PathBuf>,
    /// `$CLAUDE_PLUGIN_ROOT` when the hook runs from the code-intel plugin.
    pub plugin_root: Option<PathBuf>,
    /// code-intel's executables (the hook's own path); their `code-intel*` siblings count too.
    pub binaries: Vec<PathBuf>,
    /// The directories of Claude Code's `PATH`, in order. Claude Code runs programs by name
    /// unconfined (`git`, exec-form hooks such as `code-intel-post-tool-use`); a program of such a
    /// name written into one of them would later run outside the sandbox, so a sandboxed command
    /// may not write them ([`super::sandbox`]; the static analysis does not use them).
    pub path_dirs: Vec<PathBuf>,
}

/// Names of the executables Claude Code runs as code-intel's hooks (looked up in PATH) and the
/// sandbox launcher found next to them.
const HOOK_NAMES: [&str; 3] = [
    "code-intel-pre-tool-use",
    "code-intel-post-tool-use",
    "code-intel-sandbox",
];

/// Sub-directories of the Claude Code config directory that hold data, not configuration.
const DATA_DIRS: [&str; 3] = ["projects", "plans", "todos"];

/// Files and directories of the home directory that programs Claude Code starts outside the
/// sandbox read: git's user configuration (Claude Code runs `git` itself, unconfined; a
/// `core.fsmonitor` or `alias` there runs any program) and the shells' startup files (Claude
/// Code sources them unconfined to take its shell snapshot, and the user's own terminals do), and
/// `~/.claude.json` before it exists. Kernel only: the static analysis leaves them to the
/// sandbox.
const UNCONFINED_READS: [&str; 10] = [
    ".claude.json",
    ".gitconfig",
    ".config/git",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
];

/// Managed-settings directories (Linux, macOS).
const MANAGED_DIRS: [&str; 2] = [
    "/etc/claude-code",
    "/Library/Application Support/ClaudeCode",
];

/// What the kernel sandbox protects for the managed settings: on Linux all of `/etc`, not only
/// `/etc/claude-code`. A missing `/etc/claude-code` that root could create is otherwise
/// protected by granting every other entry of `/etc` one by one (about 190 Landlock rules, +1.2 ms
/// per sandboxed command as root, measured 2026-11-26); root's commands lose writes to `/etc`,
/// which package managers already cannot complete there (the PATH directories `/usr/bin`, `/bin`
/// are protected), and other users could not write it anyway. (No Landlock on macOS: listed for
/// completeness.)
const MANAGED_SANDBOX: [&str; 2] = ["/etc", "/Library/Application Support/ClaudeCode"];

/// [`ConfigLocations`] with every path at its real location, computed once per hook call.
#[derive(Debug, Clone, Default)]
pub(crate) struct Protected {
    config_dirs: Vec<PathBuf>,
    home: Option<PathBuf>,
    plugin_root: Option<PathBuf>,
    binaries: Vec<PathBuf>,
}

impl Protected {
    /// Resolves the locations (symlinks followed) for comparisons with resolved targets.
    pub(crate) fn new(loc: &ConfigLocations) -> Self {
        let real = |p: &Path| p.is_absolute().then(|| real_location(p));
        let home = loc.home.as_deref().and_then(real);
        let mut config_dirs: Vec<PathBuf> = Vec::new();
        if let Some(h) = &home {
            config_dirs.push(h.join(".claude"));
        }
        if let Some(c) = loc.claude_config_dir.as_deref().and_then(real) {
            config_dirs.push(c);
        }
        let mut binaries = Vec::new();
        for b in &loc.binaries {
            if let Some(r) = real(b) {
                binaries.push(r);
            }
            if b.is_absolute() {
                binaries.push(b.clone());
            }
        }
        Self {
            config_dirs,
            home,
            plugin_root: loc.plugin_root.as_deref().and_then(real),
            binaries,
        }
    }

    /// The locations a sandboxed command may not write ([`super::sandbox`]): the config
    /// directories, `~/.claude.json*`, managed settings, the files of the home directory that
    /// programs Claude Code runs unconfined read ([`UNCONFINED_READS`]), the plugin root, the
    /// hook binary and its `code-intel*` siblings. The config and managed-settings directories
    /// and those files count even before they exist (the launcher then lets no new entry into
    /// their nearest existing ancestor, so they cannot be created); the rest only when they exist.
    pub(crate) fn sandbox_paths(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        if let Some(home) = &self.home
            && let Ok(entries) = std::fs::read_dir(home)
        {
            out.extend(
                entries
                    .flatten()
                    .filter(|e| e.file_name().to_string_lossy().starts_with(".claude.json"))
                    .map(|e| e.path()),
            );
        }
        out.extend(self.plugin_root.iter().cloned());
        for b in &self.binaries {
            out.push(b.clone());
            if let Some(dir) = b.parent()
                && let Ok(entries) = std::fs::read_dir(dir)
            {
                out.extend(
                    entries
                        .flatten()
                        .filter(|e| e.file_name().to_string_lossy().starts_with("code-intel"))
                        .map(|e| e.path()),
                );
            }
        }
        out.retain(|p| p.is_absolute() && p.symlink_metadata().is_ok());
        out.extend(self.config_dirs.iter().cloned());
        out.extend(MANAGED_SANDBOX.iter().map(PathBuf::from));
        if let Some(home) = &self.home {
            out.extend(UNCONFINED_READS.iter().map(|f| home.join(f)));
        }
        out
    }

    /// Claude Code's data directories under its config directories (transcripts, plans, todos):
    /// writable beneath the protected config directory.
    pub(crate) fn sandbox_data_dirs(&self) -> Vec<PathBuf> {
        self.config_dirs
            .iter()
            .flat_map(|d| DATA_DIRS.iter().map(move |x| d.join(x)))
            .filter(|p| p.is_dir())
            .collect()
    }

    /// The home directory (real location), for `~` expansion of Bash words.
    pub(crate) fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// What `real` (an absolute path at its real location) belongs to, if the agent may never
    /// write it.
    pub(crate) fn what(&self, real: &Path) -> Option<&'static str> {
        let in_data_dir = self.config_dirs.iter().any(|d| {
            real.strip_prefix(d)
                .ok()
                .and_then(|rest| rest.components().next())
                .is_some_and(
                    |c| matches!(c, Component::Normal(n) if DATA_DIRS.iter().any(|x| n == *x)),
                )
        });
        if in_data_dir {
            return None;
        }
        if self.config_dirs.iter().any(|d| real.starts_with(d)) {
            return Some("Claude Code's configuration directory");
        }
        if MANAGED_DIRS.iter().any(|d| real.starts_with(d)) {
            return Some("Claude Code's managed settings");
        }
        for c in real.components() {
            if let Component::Normal(n) = c {
                if n == ".claude" {
                    return Some("Claude Code's configuration (.claude/)");
                }
                if n == crate::state_dir::STATE_DIR {
                    return Some("code-intel's own state (.code-intel/)");
                }
            }
        }
        if let Some(name) = real.file_name().and_then(|n| n.to_str())
            && (name == ".mcp.json" || name.starts_with(".claude.json"))
        {
            return Some("Claude Code's MCP and global configuration");
        }
        if self
            .plugin_root
            .as_ref()
            .is_some_and(|p| real.starts_with(p))
        {
            return Some("the code-intel plugin");
        }
        let sibling = |b: &PathBuf| {
            real == b
                || (real.parent() == b.parent()
                    && real
                        .file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("code-intel")))
        };
        if self.binaries.iter().any(sibling) {
            return Some("code-intel's executables");
        }
        // The hook is found through PATH: a file of a hook's name anywhere (`~/.local/bin`,
        // `~/.cargo/bin` ahead of the real one) could stand in for it.
        if real
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| HOOK_NAMES.contains(&n))
        {
            return Some("a file named like code-intel's hook executables");
        }
        None
    }

    /// Whether a protected location lies at or under the directory `real` (so a run-time path
    /// below `real` may reach it).
    pub(crate) fn holds_protected(&self, real: &Path) -> bool {
        self.config_dirs
            .iter()
            .chain(&self.plugin_root)
            .chain(&self.binaries)
            .chain(
                self.home
                    .iter()
                    .map(|h| h.join(".claude.json"))
                    .collect::<Vec<_>>()
                    .iter(),
            )
            .any(|p| p.starts_with(real))
            || MANAGED_DIRS.iter().any(|d| Path::new(d).starts_with(real))
    }

    /// Whether a Bash word the analyser could not resolve may name a protected location: it
    /// mentions one by name, or starts at a configuration variable.
    pub(crate) fn dynamic_may_hit(&self, word: &str) -> bool {
        [
            ".claude",
            ".code-intel",
            ".mcp.json",
            "CLAUDE_CONFIG_DIR",
            "CLAUDE_PLUGIN",
            "CLAUDE_PROJECT_DIR",
            "code-intel",
            "/etc/claude-code",
        ]
        .iter()
        .any(|n| word.contains(n))
    }
}

/// `word` with a leading `~/`, `$HOME/` or `${HOME}/` replaced by `home`, when the rest contains no
/// other expansion (so the result is a literal path).
pub(crate) fn expand_home(word: &str, home: Option<&Path>) -> Option<PathBuf> {
    let home = home?;
    let rest = ["~/", "$HOME/", "${HOME}/"]
        .iter()
        .find_map(|p| word.strip_prefix(p))
        .or_else(|| (word == "~" || word == "$HOME" || word == "${HOME}").then_some(""))?;
    if rest.contains(['*', '?', '[', '{', '$', '`', '~']) {
        return None;
    }
    Some(home.join(rest))
}

/// Rewrites the `/proc` self-references of a target to the process that opens it: the command's
/// `cwd` for `/proc/self/cwd` (and `thread-self`), `/` for `/proc/self/root`. Other
/// `/proc/self/…` and `/dev/fd/…` paths are not files anyone can name: `None`.
pub(crate) fn unproc(path: &Path, cwd: &Path) -> Option<PathBuf> {
    let s = path.to_str()?;
    for me in ["/proc/self/", "/proc/thread-self/"] {
        if let Some(rest) = s.strip_prefix(me) {
            let (head, tail) = rest.split_once('/').unwrap_or((rest, ""));
            return match head {
                "cwd" => Some(cwd.join(tail)),
                "root" => Some(Path::new("/").join(tail)),
                _ => None,
            };
        }
    }
    Some(path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_and_components() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let cfg = dir.path().join("cfg");
        let bin = dir.path().join("bin/code-intel-pre-tool-use");
        let p = Protected::new(&ConfigLocations {
            home: Some(home.clone()),
            claude_config_dir: Some(cfg.clone()),
            plugin_root: None,
            binaries: vec![bin.clone()],
            path_dirs: Vec::new(),
        });
        let check = |path: PathBuf| p.what(&real_location(&path)).is_some();
        assert!(check(home.join(".claude/settings.json")));
        assert!(check(home.join(".claude/hooks/x.sh")));
        assert!(check(home.join(".claude.json")));
        assert!(check(cfg.join("settings.json")));
        assert!(check(cfg.join("plugins/x/hooks/hooks.json")));
        assert!(!check(cfg.join("projects/x/memory/MEMORY.md")));
        assert!(!check(home.join(".claude/plans/p.md")));
        assert!(check(PathBuf::from(
            "/etc/claude-code/managed-settings.json"
        )));
        assert!(check(dir.path().join("repo/.claude/scheduled_tasks.json")));
        assert!(check(dir.path().join("repo/.code-intel/config.json")));
        assert!(check(dir.path().join("repo/.mcp.json")));
        assert!(check(bin.clone()));
        assert!(check(dir.path().join("bin/code-intel")));
        assert!(!check(dir.path().join("bin/other")));
        assert!(!check(home.join("notes.txt")));
        assert!(!check(dir.path().join("repo/src/claude.rs")));
        // Through a symlink made earlier.
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::os::unix::fs::symlink(home.join(".claude"), dir.path().join("l")).unwrap();
        assert!(check(dir.path().join("l/settings.json")));
    }

    #[test]
    fn home_expansion_and_proc_self() {
        let h = Path::new("/h");
        assert_eq!(expand_home("~/x/y", Some(h)), Some(PathBuf::from("/h/x/y")));
        assert_eq!(
            expand_home("${HOME}/x", Some(h)),
            Some(PathBuf::from("/h/x"))
        );
        assert_eq!(expand_home("~/$X", Some(h)), None);
        assert_eq!(expand_home("~/x", None), None);
        let cwd = Path::new("/repo");
        assert_eq!(
            unproc(Path::new("/proc/self/cwd/src/a"), cwd),
            Some(PathBuf::from("/repo/src/a"))
        );
        assert_eq!(
            unproc(Path::new("/proc/thread-self/root/etc/x"), cwd),
            Some(PathBuf::from("/etc/x"))
        );
        assert_eq!(unproc(Path::new("/proc/self/fd/9"), cwd), None);
    }
}
