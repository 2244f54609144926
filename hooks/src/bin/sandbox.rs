//! `code-intel-sandbox`: runs one shell command with the kernel enforcing the write gate.
//!
//! ```text
//! code-intel-sandbox [--protect PATH]... [--allow PATH]... -- COMMAND
//! code-intel-sandbox --probe
//! ```
//!
//! The PreToolUse hook rewrites every Bash command to this form while the gate is active
//! (`updatedInput`, plan from `code_intel_gate::gate::sandbox`). On Linux it applies a Landlock
//! ruleset (best effort from ABI 1 up; write rights only, reads are never restricted) that grants
//! write access to everything except the `--protect` trees, plus the `--allow` trees beneath
//! them, then `exec`s `bash -c COMMAND`. Landlock rules only grant, so "everything except" is
//! the complement: from `/` down, every entry that neither is nor holds a protected path is
//! granted; a directory holding one is descended into. Symbolic links are never granted (a write
//! through one is checked at its target). Consequences: new entries cannot be created directly in
//! a directory that holds a protected path (e.g. `/tmp` when the repository is `/tmp/x/repo`; the
//! command then gets `TMPDIR` set to a private directory in it, see [`private_tmp`]), and a write
//! the ruleset refuses fails with EACCES ("Permission denied").
//!
//! Fails closed: if the kernel supports Landlock but the ruleset cannot be applied, the command is
//! not run (exit 126). Without Landlock (other kernels and systems) the command runs unconfined;
//! `--probe` says which (exit 0: enforced, 1: not), for `code-intel doctor`.
#![allow(
    clippy::print_stderr,
    clippy::print_stdout,
    reason = "stderr is the command's diagnostics channel, stdout --probe's report"
)]

use std::path::PathBuf;
use std::process::ExitCode;

/// Exit code when the command could not be started (as a shell's "cannot execute").
const CANNOT_RUN: u8 = 126;

struct Args {
    protect: Vec<PathBuf>,
    allow: Vec<PathBuf>,
    command: String,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut out = Args {
        protect: Vec::new(),
        allow: Vec::new(),
        command: String::new(),
    };
    while let Some(a) = args.next() {
        match a.as_str() {
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
fn private_tmp(protect: &[PathBuf]) -> Option<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let tmp = std::env::temp_dir();
    let tmp = std::fs::canonicalize(&tmp).unwrap_or(tmp);
    let holds = protect
        .iter()
        .any(|p| std::fs::canonicalize(p).is_ok_and(|real| real.starts_with(&tmp)));
    if !holds {
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
    use std::path::{Path, PathBuf};

    use landlock::{
        ABI, AccessFs, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetError,
        RulesetStatus, path_beneath_rules,
    };

    /// The newest ABI whose filesystem write rights this launcher asks for; older kernels get
    /// what they support (best effort).
    const ABI_WANTED: ABI = ABI::V5;

    /// Entries to grant (path, whether a directory): the complement of `protect` under `dir`.
    fn complement(dir: &Path, protect: &[PathBuf], out: &mut Vec<(PathBuf, bool)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_symlink() || protect.contains(&path) {
                continue;
            }
            if protect.iter().any(|p| p.starts_with(&path)) {
                if kind.is_dir() {
                    complement(&path, protect, out);
                }
                continue;
            }
            out.push((path, kind.is_dir()));
        }
    }

    /// Applies the ruleset to this process (inherited by the command). `Ok(false)`: the kernel
    /// has no Landlock, nothing is enforced.
    pub(crate) fn restrict(protect: &[PathBuf], allow: &[PathBuf]) -> Result<bool, String> {
        // Real locations, so the prefix walk from `/` meets them.
        let protect: Vec<PathBuf> = protect
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .collect();
        let mut grant = Vec::new();
        complement(Path::new("/"), &protect, &mut grant);
        let rights = AccessFs::from_write(ABI_WANTED);
        // The directory entry's type decides the rights (what `path_beneath_rules` learns with
        // one `fstat` per path): a file cannot take directory-only rights.
        let file_rights = rights & AccessFs::from_file(ABI_WANTED);
        let granted = grant.iter().filter_map(|(path, is_dir)| {
            let fd = PathFd::new(path).ok()?;
            Some(Ok::<_, RulesetError>(PathBeneath::new(
                fd,
                if *is_dir { rights } else { file_rights },
            )))
        });
        let status = Ruleset::default()
            .handle_access(rights)
            .and_then(|r| r.create())
            .and_then(|r| r.add_rules(granted))
            .and_then(|r| r.add_rules(path_beneath_rules(allow, rights)))
            .and_then(|r| r.restrict_self())
            .map_err(|e| e.to_string())?;
        Ok(status.ruleset != RulesetStatus::NotEnforced)
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
    pub(crate) fn restrict(_: &[PathBuf], _: &[PathBuf]) -> Result<bool, String> {
        Ok(false)
    }
    pub(crate) fn probe() -> (bool, String) {
        (false, "Landlock is Linux-only".into())
    }
}

fn main() -> ExitCode {
    let mut argv = std::env::args().skip(1).peekable();
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
    let args = match parse(argv) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("code-intel-sandbox: {e}");
            return ExitCode::from(CANNOT_RUN);
        }
    };
    let private_tmp = private_tmp(&args.protect);
    if let Err(e) = kernel::restrict(&args.protect, &args.allow) {
        eprintln!(
            "code-intel-sandbox: could not apply the write sandbox ({e}); the command was not run"
        );
        return ExitCode::from(CANNOT_RUN);
    }
    let mut bash = std::process::Command::new("bash");
    bash.arg("-c").arg(&args.command);
    if let Some(tmp) = private_tmp {
        bash.env("TMPDIR", tmp);
    }
    let err = std::os::unix::process::CommandExt::exec(&mut bash);
    eprintln!("code-intel-sandbox: cannot run bash: {err}");
    ExitCode::from(CANNOT_RUN)
}
