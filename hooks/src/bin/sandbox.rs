//! `code-intel-sandbox`: runs one shell command with the kernel enforcing the write gate.
//!
//! ```text
//! code-intel-sandbox [--protect PATH]... [--allow PATH]... -- COMMAND
//! code-intel-sandbox COMMAND
//! code-intel-sandbox --probe
//! code-intel-sandbox --session-start             (the plugin's SessionStart hook)
//! code-intel-sandbox --session-env COMMAND_LINE  (what the line it installs runs)
//! ```
//!
//! The plugin cannot set Claude Code's shell prefix; its SessionStart hook (`--session-start`)
//! appends `code_intel_hooks::session_env_line` to the session's environment script
//! (`CLAUDE_ENV_FILE`), which Claude Code runs inside every Bash command's shell before the
//! command: the line hands the whole command line to `--session-env`, which runs it like the
//! prefix form (never as code-intel's own process). Either way the shell the launcher starts has
//! `CODE_INTEL_LAUNCHED=1`, so that the line, run again inside it, lets the command proceed.
//!
//! The PreToolUse hook rewrites every Bash command to the first form under `bypassPermissions`
//! while the gate is active (`updatedInput`, plan from `code_intel_session::gate::sandbox`). The
//! second form is the launcher as Claude Code's shell prefix (`CLAUDE_CODE_SHELL_PREFIX`, every
//! permission mode; `code_intel_hooks::shell_prefix`): one argument, the command line Claude Code
//! would run. code-intel's own hook and server lines run unconfined
//! (`shell_prefix::own_process`); everything else gets the plan the hook would compute, for the
//! project and Claude Code session the environment names, and runs as in the first form; when
//! the plan cannot be computed the command is not run (exit 126, the reason and the way out on
//! stderr). On Linux the launcher applies a Landlock
//! ruleset (best effort from ABI 1 up; write rights only, reads are never restricted) that grants
//! write access to everything except the `--protect` trees, plus the `--allow` trees beneath
//! them, then `exec`s `bash -c COMMAND` (in the prefix form Claude Code's `SHELL` when it is
//! bash or zsh). Landlock rules only grant, so "everything except" is the complement: from `/` down, every entry that neither is nor holds a protected path is
//! granted; a directory holding one is descended into (`/` itself protected: nothing granted).
//! Symbolic links are never granted (a write through one is checked at its target). The walk is
//! one `getdents64` per directory and, per granted entry, an `O_PATH | O_NOFOLLOW` descriptor
//! opened beneath its directory's and passed to `landlock_add_rule`; the entry's type comes from
//! the directory listing, and the descriptors are closed by the `exec` (all close-on-exec), not
//! one by one (hooks/tests/sandbox.rs checks what stays writable and what does not).
//! Consequences: new entries cannot be created directly in a directory that holds a protected
//! path (e.g. `/tmp` when the repository is `/tmp/x/repo`; the command then gets `TMPDIR` set to
//! a private directory in it, see [`private_tmp`]), and a write the ruleset refuses fails with
//! EACCES ("Permission denied").
//!
//! Fails closed: if the kernel supports Landlock but the ruleset cannot be applied, the command is
//! not run (exit 126). Without Landlock (other kernels and systems) the command runs unconfined;
//! `--probe` says which (exit 0: enforced, 1: not), for `code-intel doctor`.
#![allow(
    clippy::print_stderr,
    clippy::print_stdout,
    reason = "stderr is the command's diagnostics channel, stdout --probe's report"
)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use code_intel_session::gate::sandbox::ReadyRights;

/// Exit code when the command could not be started (as a shell's "cannot execute").
const CANNOT_RUN: u8 = 126;

struct Args {
    protect: Vec<PathBuf>,
    allow: Vec<PathBuf>,
    command: String,
    /// `--ready-root R --ready-session S [--ready-claude C]`: the plan grants a READY session's
    /// rights (`SandboxPlan::ready`).
    ready: Option<ReadyRights>,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut out = Args {
        protect: Vec::new(),
        allow: Vec::new(),
        command: String::new(),
        ready: None,
    };
    let (mut ready_root, mut ready_session, mut ready_claude) = (None, None, None);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--ready-root" | "--ready-session" | "--ready-claude" => {
                let v = args.next().ok_or(format!("{a} needs a value"))?;
                match a.as_str() {
                    "--ready-root" => ready_root = Some(PathBuf::from(v)),
                    "--ready-session" => {
                        ready_session = Some(
                            v.parse::<code_intel_session::vocab::SessionId>()
                                .map_err(|e| format!("--ready-session: {e}"))?,
                        );
                    }
                    _ => ready_claude = Some(v),
                }
            }
            "--protect" | "--allow" => {
                let p = PathBuf::from(args.next().ok_or(format!("{a} needs a path"))?);
                if !p.is_absolute() {
                    return Err(format!("{a} {} is not absolute", p.display()));
                }
                if a == "--protect" {
                    out.protect.push(p);
                } else {
                    out.allow.push(p);
                }
            }
            "--" => {
                out.command = args.next().ok_or("-- needs a command")?;
                if args.next().is_some() {
                    return Err("one command string after --".into());
                }
                out.ready = match (ready_root, ready_session) {
                    (Some(root), Some(session)) => Some(ReadyRights {
                        root,
                        session,
                        claude_session: ready_claude,
                    }),
                    (None, None) if ready_claude.is_none() => None,
                    _ => return Err("--ready-root and --ready-session go together".into()),
                };
                return Ok(out);
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Err("missing -- COMMAND".into())
}

/// When the temporary directory holds a protected path (a repository under `/tmp`), the sandbox
/// cannot let the command create entries in it, so `mktemp`, `tempfile` and test runners get a
/// private directory inside it instead (`$TMPDIR/code-intel-tmp-<uid>`, created before the
/// ruleset, so it is an entry of its own and stays writable). `None`: the usual one works, or no
/// private one could be made (an existing one that is not our own directory is never used).
/// `protect`: real locations.
fn private_tmp(protect: &[PathBuf]) -> Option<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let tmp = std::env::temp_dir();
    let tmp = std::fs::canonicalize(&tmp).unwrap_or(tmp);
    if !protect.iter().any(|p| p.starts_with(&tmp)) {
        return None;
    }
    let uid = std::fs::metadata("/proc/self").map(|m| m.uid()).ok()?;
    let dir = tmp.join(format!("code-intel-tmp-{uid}"));
    std::fs::DirBuilder::new().mode(0o700).create(&dir).ok();
    let meta = dir.symlink_metadata().ok()?;
    (meta.is_dir() && meta.uid() == uid && meta.mode() & 0o022 == 0).then_some(dir)
}

#[cfg(target_os = "linux")]
mod kernel {
    use std::os::fd::{AsFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::{Component, Path, PathBuf};

    use landlock::{
        ABI, AccessFs, CompatLevel, Compatible, PathBeneath, Ruleset, RulesetAttr, RulesetCreated,
        RulesetCreatedAttr, RulesetError, RulesetStatus, Scope, path_beneath_rules,
    };
    use rustix::fs::{AtFlags, CWD, FileType, Mode, OFlags, RawDir, openat, statat};

    /// The newest ABI whose filesystem write rights this launcher asks for; older kernels get
    /// what they support (best effort). The hook's `landlock_fully_enforced` checks the same.
    const ABI_WANTED: ABI = code_intel_hooks::LANDLOCK_ABI;

    /// Buffer one directory's entries are read into (`getdents64`; most directories take one
    /// call).
    const DIR_BUF: usize = 32 * 1024;

    /// Descriptors of granted entries kept open at most: they close with the `exec` (all
    /// `O_CLOEXEC`, no `close` call each); past this many (a huge directory), the kept ones are
    /// closed, so the walk stays far below the usual limit of 1024 open files.
    const KEPT_FDS_MAX: usize = 256;

    /// The protected paths as a tree of names from `/`. A protected node is neither granted nor
    /// walked into; a node that only holds protected paths is walked into; every other entry of
    /// a walked directory is granted. Protected paths sharing ancestors share the walk.
    #[derive(Default)]
    struct Node {
        protected: bool,
        children: Vec<(Vec<u8>, Node)>,
    }

    impl Node {
        /// The tree of `protect` (real locations, as `canonicalize` returns them). A path with
        /// any other component than `/` and names cannot be placed: then `/` itself is
        /// protected (nothing granted, fail closed).
        fn of(protect: &[PathBuf]) -> Self {
            let mut root = Self::default();
            for p in protect {
                if !p
                    .components()
                    .all(|c| matches!(c, Component::RootDir | Component::Normal(_)))
                    || !p.has_root()
                {
                    root.protected = true;
                    continue;
                }
                let mut node = &mut root;
                for c in p.components() {
                    if let Component::Normal(name) = c {
                        let name = name.as_bytes();
                        let i = match node.children.iter().position(|(n, _)| n == name) {
                            Some(i) => i,
                            None => {
                                node.children.push((name.to_vec(), Self::default()));
                                node.children.len() - 1
                            }
                        };
                        node = &mut node.children[i].1;
                    }
                }
                node.protected = true;
            }
            root
        }

        fn child(&self, name: &[u8]) -> Option<&Self> {
            self.children
                .iter()
                .find_map(|(n, c)| (n.as_slice() == name).then_some(c))
        }
    }

    /// Where granted rules go while the tree is walked.
    struct Grants<'r> {
        ruleset: &'r mut RulesetCreated,
        /// Rights on a directory (its whole tree).
        dir_rights: landlock::BitFlags<AccessFs>,
        /// Rights on a file (a file cannot take directory-only rights).
        file_rights: landlock::BitFlags<AccessFs>,
        /// Descriptors of granted entries, closed by the `exec` (see [`KEPT_FDS_MAX`]).
        kept: Vec<OwnedFd>,
    }

    /// Grants the complement of `node`'s protected paths beneath `dir`: every entry that
    /// neither is nor holds a protected path, except symbolic links (a write through one is
    /// checked at its target). Entries are opened beneath `dir` with `O_NOFOLLOW`, so an entry
    /// swapped for a link after it was listed grants nothing beyond the link itself. An entry
    /// that cannot be listed or opened is not granted (fails closed).
    fn walk(dir: &OwnedFd, node: &Node, g: &mut Grants<'_>) -> Result<(), RulesetError> {
        let mut buf = Vec::with_capacity(DIR_BUF);
        let mut entries = RawDir::new(dir, buf.spare_capacity_mut());
        while let Some(entry) = entries.next() {
            let Ok(entry) = entry else {
                break;
            };
            let name = entry.file_name();
            let bytes = name.to_bytes();
            if bytes == b"." || bytes == b".." {
                continue;
            }
            // The entry's type from the directory itself; a stat only where the file system
            // does not record it.
            let kind = match entry.file_type() {
                FileType::Unknown => match statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
                    Ok(st) => FileType::from_raw_mode(st.st_mode),
                    Err(_) => continue,
                },
                kind => kind,
            };
            if kind == FileType::Symlink {
                continue;
            }
            if let Some(child) = node.child(bytes) {
                if !child.protected
                    && kind == FileType::Directory
                    && let Ok(sub) = openat(
                        dir,
                        name,
                        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                        Mode::empty(),
                    )
                {
                    walk(&sub, child, g)?;
                }
                continue;
            }
            let Ok(fd) = openat(
                dir,
                name,
                OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            ) else {
                continue;
            };
            let rights = if kind == FileType::Directory {
                g.dir_rights
            } else {
                g.file_rights
            };
            g.ruleset.add_rule(PathBeneath::new(fd.as_fd(), rights))?;
            if g.kept.len() >= KEPT_FDS_MAX {
                g.kept.clear();
            }
            g.kept.push(fd);
        }
        Ok(())
    }

    /// Applies the ruleset to this process (inherited by the command). `protect`: real
    /// locations (canonicalized; a path that is not is protected nowhere, so the caller
    /// resolves them). `Ok((false, _))`: the kernel has no Landlock, nothing is enforced. The
    /// descriptors of granted entries come back to be closed by the `exec` (keep them until
    /// then: dropping them costs one `close` each).
    ///
    /// `tracked` (READY rights, only where [`signal_scope_enforced`]): the ruleset is scoped for
    /// signals and applied twice, `tracked` running between the two (it starts the witness in
    /// the outer domain; `code_intel_hooks::witness`).
    pub(crate) fn restrict(
        protect: &[PathBuf],
        allow: &[PathBuf],
        tracked: Option<&mut dyn FnMut() -> Result<(), String>>,
    ) -> Result<(bool, Vec<OwnedFd>), String> {
        let rights = AccessFs::from_write(ABI_WANTED);
        let mut attr = Ruleset::default()
            .handle_access(rights)
            .map_err(|e| e.to_string())?;
        if tracked.is_some() {
            attr = attr.scope(Scope::Signal).map_err(|e| e.to_string())?;
        }
        let mut ruleset = attr.create().map_err(|e| e.to_string())?;
        let tree = Node::of(protect);
        let mut grants = Grants {
            ruleset: &mut ruleset,
            dir_rights: rights,
            file_rights: rights & AccessFs::from_file(ABI_WANTED),
            kept: Vec::new(),
        };
        if !tree.protected
            && let Ok(root) = openat(
                CWD,
                Path::new("/"),
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )
        {
            walk(&root, &tree, &mut grants).map_err(|e| e.to_string())?;
        }
        let kept = grants.kept;
        let ruleset = ruleset
            .add_rules(path_beneath_rules(allow, rights))
            .map_err(|e| e.to_string())?;
        let status = match tracked {
            Some(between) => {
                let inner = ruleset.try_clone().map_err(|e| e.to_string())?;
                ruleset.restrict_self().map_err(|e| e.to_string())?;
                between()?;
                inner.restrict_self().map_err(|e| e.to_string())?
            }
            None => ruleset.restrict_self().map_err(|e| e.to_string())?,
        };
        Ok((status.ruleset != RulesetStatus::NotEnforced, kept))
    }

    /// Whether the kernel scopes signals (Landlock ABI 6, Linux 6.12), which tracking READY's
    /// processes needs: a ruleset requiring it is created and dropped.
    pub(crate) fn signal_scope_enforced() -> bool {
        Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(AccessFs::WriteFile)
            .and_then(|r| r.scope(Scope::Signal))
            .and_then(|r| r.create())
            .is_ok()
    }

    /// Whether this process could create `missing` (a path that does not exist): its nearest
    /// existing ancestor is writable (`access(W_OK)`: one system call). When not (`/etc` for a
    /// user other than root), protecting it would only cost rules.
    pub(crate) fn creatable(missing: &Path) -> bool {
        missing
            .ancestors()
            .skip(1)
            .find(|a| a.symlink_metadata().is_ok())
            .is_some_and(|a| rustix::fs::access(a, rustix::fs::Access::WRITE_OK).is_ok())
    }

    /// Whether the kernel enforces a Landlock write ruleset (this process restricts itself, so
    /// call it only right before exiting), and how completely.
    pub(crate) fn probe() -> (bool, String) {
        let rights = AccessFs::from_write(ABI_WANTED);
        match Ruleset::default()
            .handle_access(rights)
            .and_then(|r| r.create())
            .and_then(|r| r.add_rules(path_beneath_rules(["/"], rights)))
            .and_then(|r| r.restrict_self())
        {
            Ok(s) if s.ruleset == RulesetStatus::NotEnforced => (false, "not supported".into()),
            Ok(s) => (true, format!("{:?}", s.ruleset)),
            Err(e) => (false, e.to_string()),
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod kernel {
    use std::path::PathBuf;
    pub(crate) fn restrict(
        _: &[PathBuf],
        _: &[PathBuf],
        _: Option<&mut dyn FnMut() -> Result<(), String>>,
    ) -> Result<(bool, Vec<()>), String> {
        Ok((false, Vec::new()))
    }
    pub(crate) fn signal_scope_enforced() -> bool {
        false
    }
    pub(crate) fn probe() -> (bool, String) {
        (false, "Landlock is Linux-only".into())
    }
    pub(crate) fn creatable(_: &std::path::Path) -> bool {
        true
    }
}

/// How a command line reached the launcher.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Handover {
    /// As Claude Code's shell prefix: a Bash or Monitor command line, a shell-form hook, an MCP
    /// server's command line.
    Prefix,
    /// From the session environment line inside a Bash command's shell: only Bash lines.
    SessionEnv,
}

/// The prefix and session-environment forms: `command` is what Claude Code would have run.
fn prefix_mode(command: String, handover: Handover) -> ExitCode {
    use code_intel_hooks::shell_prefix;
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    // code-intel's own hooks and server write `.code-intel/`: unconfined, and only as Claude Code
    // starts them through the prefix (with CLAUDE_PROJECT_DIR, which it does not give Bash
    // commands). A line from the session environment is a Bash command's, never one of them.
    if handover == Handover::Prefix
        && var("CLAUDE_PROJECT_DIR").is_some()
        && let Some(own) = shell_prefix::own_process(&command)
    {
        return run_own(own);
    }
    if command.trim().is_empty() {
        eprintln!(
            "code-intel-sandbox: no command line to run (the shell is neither bash nor zsh, which Claude Code's \
             session environment line needs); the command was not run"
        );
        return ExitCode::from(CANNOT_RUN);
    }
    let plan = shell_prefix::project_dir(
        var(shell_prefix::CLAUDE_PID_ENV).as_deref(),
        var("CLAUDE_PROJECT_DIR").as_deref(),
    )
    .map_err(|e| e.to_string())
    .and_then(|project| {
        let session = var(shell_prefix::SESSION_ENV);
        let session = session.as_deref().and_then(std::ffi::OsStr::to_str);
        code_intel_session::gate::sandbox::sandbox_plan(
            &project,
            session,
            &code_intel_hooks::config_locations(),
        )
        .map_err(|e| format!("{e} (project {})", project.display()))
    });
    let shell = shell_prefix::shell(var("SHELL").as_deref());
    match plan {
        Ok(Some(plan)) => {
            if let Some(file) = shell_prefix::cwd_file(&command) {
                // Created only if absent (`O_EXCL`: never through a symbolic link); a failure
                // shows as the shell's own error about the file.
                std::os::unix::fs::OpenOptionsExt::mode(
                    std::fs::OpenOptions::new().write(true).create_new(true),
                    0o600,
                )
                .open(file)
                .ok();
            }
            confined(
                &plan.protect,
                &plan.allow,
                &shell,
                &command,
                plan.ready.as_ref(),
            )
        }
        // The gate is not active (`gate_mode: off`, or `session` mode without a live session).
        Ok(None) => exec_shell(&shell, &command, None),
        Err(e) => {
            let way_out = match handover {
                Handover::Prefix => {
                    "remove CLAUDE_CODE_SHELL_PREFIX from the \"env\" of .claude/settings.local.json and restart Claude Code"
                }
                Handover::SessionEnv => {
                    "disable the code-intel plugin's hooks (or the plugin) and restart Claude Code"
                }
            };
            eprintln!(
                "code-intel-sandbox: this command was not run: the write sandbox for it could not be prepared ({e}). \
                 Run `code-intel doctor` in the project. To run commands without kernel enforcement \
                 (Bash writes then checked by static analysis only), {way_out}."
            );
            ExitCode::from(CANNOT_RUN)
        }
    }
}

/// Runs one of code-intel's own processes without a sandbox, in place of the shell Claude Code
/// would have used: the PreToolUse hook with the shell form's `|| exit 2` (any outcome but exit
/// 0, including a missing binary or a signal, blocks), anything else by `exec`.
fn run_own(own: code_intel_hooks::shell_prefix::OwnProcess) -> ExitCode {
    use code_intel_hooks::shell_prefix::{OwnProcess, own_program};
    let exe = std::env::current_exe().ok();
    let here = exe.as_deref().and_then(std::path::Path::parent);
    match own {
        OwnProcess::PreToolUse(program) => {
            match std::process::Command::new(own_program(&program, here)).status() {
                Ok(s) if s.success() => ExitCode::SUCCESS,
                Ok(_) => ExitCode::from(2),
                Err(e) => {
                    eprintln!("code-intel-sandbox: {program}: {e}");
                    ExitCode::from(2)
                }
            }
        }
        OwnProcess::Exec(words) => {
            let Some((program, args)) = words.split_first() else {
                return ExitCode::from(CANNOT_RUN);
            };
            let err = std::os::unix::process::CommandExt::exec(
                std::process::Command::new(own_program(program, here)).args(args),
            );
            eprintln!("code-intel-sandbox: cannot run {program}: {err}");
            ExitCode::from(CANNOT_RUN)
        }
    }
}

/// Applies the ruleset for `protect` (as given: resolved here) and `allow`, then runs `command`
/// in `shell -c`; never returns on success. With `ready` (the plan grants a READY session's
/// rights) the command's processes are tracked by a witness and end when the session stops
/// granting them (`code_intel_hooks::witness`; untracked where the kernel cannot scope signals).
fn confined(
    protect: &[PathBuf],
    allow: &[PathBuf],
    shell: &Path,
    command: &str,
    ready: Option<&ReadyRights>,
) -> ExitCode {
    // Real locations, once: the walk from `/` must meet them (a path through a symbolic link
    // would leave its real tree granted). A path that does not exist (a PATH directory not
    // created yet, `~/.gitconfig`) is protected at the real location of its existing part with
    // the rest appended, so the walk lets no new entry into its nearest existing ancestor;
    // skipped when this process could not create it anyway (the rules for the entries of its
    // ancestor saved).
    let protect: Vec<PathBuf> = protect
        .iter()
        .filter_map(|p| match std::fs::canonicalize(p) {
            Ok(real) => Some(real),
            Err(_) if p.is_absolute() => Some(missing_location(p)).filter(|r| kernel::creatable(r)),
            Err(_) => None,
        })
        .collect();
    let private_tmp = private_tmp(&protect);
    let mut witness = ready
        .filter(|_| kernel::signal_scope_enforced())
        .map(|rights| move || start_witness(rights));
    let tracked = witness
        .as_mut()
        .map(|w| w as &mut dyn FnMut() -> Result<(), String>);
    // Held until the `exec` closes them (close-on-exec).
    let _granted = match kernel::restrict(&protect, allow, tracked) {
        Ok((_, granted)) => granted,
        Err(e) => {
            eprintln!(
                "code-intel-sandbox: could not apply the write sandbox ({e}); the command was not run"
            );
            return ExitCode::from(CANNOT_RUN);
        }
    };
    exec_shell(shell, command, private_tmp)
}

/// Starts the witness of a READY command (the launcher is in the outer domain now) and checks
/// that the session still grants the rights (a transition between the plan and now would have
/// found no witness to end).
#[cfg(target_os = "linux")]
fn start_witness(rights: &ReadyRights) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let outside = rustix::process::getppid().map_or(1, |p| p.as_raw_nonzero().get().unsigned_abs());
    code_intel_hooks::witness::start(&exe, rights, outside)?;
    if !rights.hold() {
        return Err("the session left READY while this command was starting; run it again".into());
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn start_witness(_: &ReadyRights) -> Result<(), String> {
    Ok(())
}

/// The real location of `path`, which does not exist: its parent's real location and its name
/// when the parent exists (one `realpath`: most missing protected paths are files of the home
/// directory), else resolved component by component.
fn missing_location(path: &Path) -> PathBuf {
    match (path.parent().map(std::fs::canonicalize), path.file_name()) {
        (Some(Ok(parent)), Some(name)) if name != ".." => parent.join(name),
        _ => code_intel_session::repo_path::real_location(path),
    }
}

/// `exec`s `shell -c command` (with `TMPDIR` when given); returns only when that fails.
fn exec_shell(shell: &Path, command: &str, tmpdir: Option<PathBuf>) -> ExitCode {
    let mut sh = std::process::Command::new(shell);
    sh.arg("-c")
        .arg(command)
        .env(code_intel_hooks::LAUNCHED_ENV, "1");
    if let Some(tmp) = tmpdir {
        sh.env("TMPDIR", tmp);
    }
    let err = std::os::unix::process::CommandExt::exec(&mut sh);
    eprintln!("code-intel-sandbox: cannot run {}: {err}", shell.display());
    ExitCode::from(CANNOT_RUN)
}

/// The plugin's SessionStart hook: appends [`code_intel_hooks::session_env_line`] for this
/// launcher (its real path) to `CLAUDE_ENV_FILE`, once, when the kernel enforces the ruleset
/// fully and Claude Code's shell prefix is not the launcher already. Never blocks the session
/// (exit 0; a problem is reported on stderr and in the debug log): without the line the
/// PreToolUse hook does not count Bash as confined, so the static analysis alone decides, as
/// before. Reads no stdin (the input is not needed).
fn session_start() -> ExitCode {
    let prefix = std::env::var_os(code_intel_hooks::shell_prefix::PREFIX_ENV);
    if prefix
        .as_deref()
        .is_some_and(code_intel_hooks::shell_prefix::is_launcher)
    {
        return ExitCode::SUCCESS;
    }
    if !code_intel_hooks::landlock_fully_enforced() {
        eprintln!(
            "code-intel-sandbox: Landlock is not fully enforced by this kernel: Bash writes are checked by static analysis only"
        );
        return ExitCode::SUCCESS;
    }
    let Some(file) = std::env::var_os("CLAUDE_ENV_FILE").filter(|v| !v.is_empty()) else {
        eprintln!(
            "code-intel-sandbox: --session-start outside a SessionStart hook (no CLAUDE_ENV_FILE)"
        );
        return ExitCode::SUCCESS;
    };
    let launcher = match std::env::current_exe().and_then(std::fs::canonicalize) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("code-intel-sandbox: cannot locate itself: {e}");
            return ExitCode::SUCCESS;
        }
    };
    let line = code_intel_hooks::session_env_line(&launcher);
    let file = PathBuf::from(file);
    let present = std::fs::read_to_string(&file).is_ok_and(|t| t.lines().any(|l| l.trim() == line));
    if present {
        return ExitCode::SUCCESS;
    }
    let appended = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&file)
        .and_then(|mut f| std::io::Write::write_all(&mut f, format!("{line}\n").as_bytes()));
    if let Err(e) = appended {
        eprintln!(
            "code-intel-sandbox: cannot write {}: {e}; Bash writes are checked by static analysis only",
            file.display()
        );
    }
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let mut argv = std::env::args().skip(1).peekable();
    #[cfg(target_os = "linux")]
    {
        use code_intel_hooks::witness;
        match argv.peek().map(String::as_str) {
            Some(witness::DETACH_ARG) => return witness::detach(&argv.skip(1).collect::<Vec<_>>()),
            Some(witness::SERVE_ARG) => return witness::serve(&argv.skip(1).collect::<Vec<_>>()),
            _ => {}
        }
    }
    if argv.peek().map(String::as_str) == Some("--probe") {
        let (enforced, how) = kernel::probe();
        if enforced {
            println!("kernel enforcement available: Landlock ({how})");
            return ExitCode::SUCCESS;
        }
        println!(
            "kernel enforcement unavailable ({how}): Bash writes are checked by static analysis only"
        );
        return ExitCode::FAILURE;
    }
    if argv.peek().map(String::as_str) == Some("--session-start") {
        return session_start();
    }
    // The prefix form: exactly one argument, which is not an option (Claude Code's command
    // lines never start with `--`).
    let rest: Vec<String> = argv.collect();
    match rest.as_slice() {
        [command] if !command.starts_with("--") => {
            return prefix_mode(command.clone(), Handover::Prefix);
        }
        [flag, command] if flag == code_intel_hooks::SESSION_ENV_FLAG => {
            return prefix_mode(command.clone(), Handover::SessionEnv);
        }
        _ => {}
    }
    let args = match parse(rest.into_iter()) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("code-intel-sandbox: {e}");
            return ExitCode::from(CANNOT_RUN);
        }
    };
    confined(
        &args.protect,
        &args.allow,
        Path::new("bash"),
        &args.command,
        args.ready.as_ref(),
    )
}
