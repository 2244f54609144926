//! The launcher's side of "nothing outlives READY" (docs/GATE.md; the store's side is
//! `code_intel_session::witness`).
//!
//! A command whose sandbox plan grants a READY session's rights ([`ReadyRights`]) runs in two
//! nested Landlock domains, both scoped for signals: the launcher restricts itself once (domain
//! *outer*), starts the witness, which inherits *outer*, restricts itself again with the same
//! ruleset (domain *inner*, the same write rights) and `exec`s the shell. Every process of the
//! command lives in *inner* or a domain nested in it, whatever it does (`setsid`, double forks,
//! re-parenting to init: a Landlock domain is never left). Signal scoping then gives two facts
//! the witness relies on:
//! - the witness (in *outer*) may signal a process exactly when it is in *outer* or nested in it:
//!   `kill(pid, 0)` over `/proc` finds the command's processes and nothing else (no other
//!   command's, not Claude Code, not a dev server started in EXPLORATION);
//! - the command's processes (in *inner*) may not signal the witness (outside *inner*), so
//!   they cannot kill it to escape.
//!
//! The witness is detached (its own session, re-parented away from the command, standard streams
//! closed but for the one line that tells the launcher it listens), listens on the abstract Unix
//! socket `code_intel_session::witness::socket_name`, and ends its domain (`SIGKILL` to every
//! member, repeated until none is left) when asked through it by the session store, or by
//! itself when its once-a-second look at the session file shows the rights gone; it exits when
//! its domain is empty.
//!
//! Limits: signal scoping needs Landlock ABI 6 (Linux 6.12); on older kernels the launcher runs
//! such a command untracked, as before. A process outside every sandbox (Claude Code, the user)
//! can still kill a witness. And the scoping is the command's too: in READY a Bash command cannot
//! signal processes it did not start (`pkill` of a server an earlier command started answers
//! "Operation not permitted").

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use code_intel_session::gate::sandbox::ReadyRights;
use code_intel_session::witness::{END_REQUEST, socket_name};
use rustix::process::{Pid, Signal, getpid, kill_process, setsid, test_kill_process};

/// The launcher's argument that makes it a witness (first stage: detaches, starts the second).
pub const DETACH_ARG: &str = "--witness";
/// The second stage: listens and ends.
pub const SERVE_ARG: &str = "--witness-serve";

/// How often a witness looks at the session file and at its domain.
const POLL: Duration = Duration::from_secs(1);

/// Rounds of killing before a witness gives up on a domain that keeps growing.
const KILL_ROUNDS: usize = 200;

/// The line a witness prints once it listens.
const READY_LINE: &str = "listening";

/// Starts the witness of `rights` from the launcher `exe`, which has restricted itself to the
/// outer domain already; returns once it listens. `outside`: a process outside every domain
/// of the command (the launcher's parent), which the witness checks it cannot signal before it
/// trusts its scope.
///
/// # Errors
/// The witness could not be started or did not come up (the caller does not run the command).
pub fn start(exe: &Path, rights: &ReadyRights, outside: u32) -> Result<(), String> {
    let mut detach = Command::new(exe)
        .arg(DETACH_ARG)
        .args(args_of(rights, outside))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start the process witness: {e}"))?;
    let stdout = detach.stdout.take().ok_or("no pipe to the witness")?;
    let status = detach.wait().map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!("the process witness failed to start ({status})"));
    }
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    if line.trim_end() != READY_LINE {
        return Err("the process witness did not come up".into());
    }
    Ok(())
}

fn args_of(rights: &ReadyRights, outside: u32) -> Vec<String> {
    let mut args = vec![
        outside.to_string(),
        rights.root.to_string_lossy().into_owned(),
        rights.session.to_string(),
    ];
    args.extend(rights.claude_session.clone());
    args
}

/// Parses the witness arguments (`OUTSIDE ROOT SESSION [CLAUDE]`).
fn parse(args: &[String]) -> Option<(u32, ReadyRights)> {
    let (outside, rest) = args.split_first()?;
    let (root, rest) = rest.split_first()?;
    let (session, rest) = rest.split_first()?;
    if rest.len() > 1 {
        return None;
    }
    Some((
        outside.parse().ok()?,
        ReadyRights {
            root: PathBuf::from(root),
            session: session.parse().ok()?,
            claude_session: rest.first().cloned(),
        },
    ))
}

/// First stage: a session of its own (a process-group kill of the command does not reach the
/// witness), then the second stage, whose parent exits at once so that it is nobody's child in
/// the command. Its standard output stays the pipe to the launcher.
pub fn detach(args: &[String]) -> ExitCode {
    if parse(args).is_none() {
        return ExitCode::from(2);
    }
    setsid().ok();
    let Ok(exe) = std::env::current_exe() else {
        return ExitCode::from(1);
    };
    match Command::new(exe)
        .arg(SERVE_ARG)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(_) => ExitCode::SUCCESS,
        Err(_) => ExitCode::from(1),
    }
}

/// Second stage: checks its scope, listens, and ends its domain when the rights are gone.
pub fn serve(args: &[String]) -> ExitCode {
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::{SocketAddr, UnixListener};
    let Some((outside, rights)) = parse(args) else {
        return ExitCode::from(2);
    };
    // Without signal scoping every process of the user would look like a member: never kill
    // then. The launcher starts a witness only under a scoped ruleset; this checks it.
    if Pid::from_raw(outside as i32).is_some_and(|p| test_kill_process(p).is_ok()) {
        return ExitCode::from(1);
    }
    let own = getpid();
    let name = socket_name(&rights.session, own.as_raw_nonzero().get() as u32);
    let Ok(addr) = SocketAddr::from_abstract_name(name.as_bytes()) else {
        return ExitCode::from(1);
    };
    let Ok(listener) = UnixListener::bind_addr(&addr) else {
        return ExitCode::from(1);
    };
    {
        let mut out = std::io::stdout().lock();
        if writeln!(out, "{READY_LINE}")
            .and_then(|()| out.flush())
            .is_err()
        {
            return ExitCode::from(1);
        }
    }
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            if tx.send(stream).is_err() {
                break;
            }
        }
    });
    loop {
        match rx.recv_timeout(POLL) {
            Ok(mut stream) => {
                stream.set_read_timeout(Some(POLL)).ok();
                let mut request = [0u8; 4];
                let asked = stream.read_exact(&mut request).is_ok() && request == END_REQUEST;
                // Only when the session says so: a stray connection ends nothing.
                let ended = if asked && !rights.hold() {
                    Some(end_domain(own))
                } else {
                    None
                };
                writeln!(stream, "ended {}", ended.unwrap_or(0)).ok();
                if ended.is_some() {
                    return ExitCode::SUCCESS;
                }
            }
            Err(e) => {
                // A dead listener thread: keep watching the session file.
                if e == mpsc::RecvTimeoutError::Disconnected {
                    std::thread::sleep(POLL);
                }
                if !rights.hold() {
                    end_domain(own);
                    return ExitCode::SUCCESS;
                }
                if members(own).is_empty() {
                    return ExitCode::SUCCESS;
                }
            }
        }
    }
}

/// The live processes this witness may signal, but itself: its domain's members.
fn members(own: Pid) -> Vec<Pid> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(Pid::from_raw)
        .filter(|&p| p != own && test_kill_process(p).is_ok() && !zombie(p))
        .collect()
}

/// Whether `pid` has exited and waits to be reaped (a kill changes nothing then).
fn zombie(pid: Pid) -> bool {
    std::fs::read_to_string(format!("/proc/{}/stat", pid.as_raw_nonzero()))
        .ok()
        .and_then(|s| {
            let (_, after) = s.rsplit_once(')')?;
            after
                .split_whitespace()
                .next()
                .map(|st| st == "Z" || st == "X")
        })
        .unwrap_or(true)
}

/// Kills every member of the domain until none is left (a process forking meanwhile has its
/// child found in the next round); how many were killed.
fn end_domain(own: Pid) -> usize {
    let mut killed = std::collections::HashSet::new();
    for _ in 0..KILL_ROUNDS {
        let found = members(own);
        if found.is_empty() {
            break;
        }
        for p in found {
            if kill_process(p, Signal::KILL).is_ok() {
                killed.insert(p);
            }
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    killed.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_round_trip() {
        let rights = ReadyRights {
            root: "/r o/x".into(),
            session: code_intel_session::vocab::SessionId::generate(),
            claude_session: Some("c-1".into()),
        };
        assert_eq!(parse(&args_of(&rights, 7)), Some((7, rights.clone())));
        let none = ReadyRights {
            claude_session: None,
            ..rights
        };
        assert_eq!(parse(&args_of(&none, 9)), Some((9, none)));
        assert_eq!(parse(&["x".into()]), None);
    }
}
