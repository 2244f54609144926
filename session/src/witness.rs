//! Nothing outlives READY: the processes a READY session's Bash commands started, found through
//! their *witnesses* and ended when the session leaves READY.
//!
//! The kernel sandbox (`code-intel-sandbox`, docs/GATE.md "Nothing outlives READY") grants a
//! command of a READY session write access to the directories of its explored files. Landlock
//! rights cannot be taken back from a running process, so a background process started then
//! (`nohup sh -c 'sleep 6; echo … >> src/a.py' &`) would keep them after `record_outcome`. The
//! launcher therefore runs such a command in a Landlock domain of its own, scoped for signals,
//! and starts beside it one *witness* process in the enclosing domain: the witness may signal
//! exactly the processes of that domain (whatever they did: `setsid`, double forks, re-parenting
//! do not leave a Landlock domain), and they may not signal it. The witness listens on an
//! abstract Unix socket named [`socket_name`]; [`end_processes`] finds every witness of a session
//! in `/proc/net/unix`, asks each to end its domain (`SIGKILL` to every member, repeated until
//! none is left) and waits for the answer. The session store calls it whenever a session stops
//! granting READY's rights (`record_outcome`, `revert_to_exploration`, another session bound to
//! the same Claude Code session); a witness also ends its domain by itself when it sees the
//! session file say so (polled once a second, for the cases no store call reaches: a network
//! namespace of its own, a crashed server) and exits when its domain is empty.
//!
//! This module is the store's side: std only, Linux only (elsewhere there is no launcher and
//! nothing to end). It is the one place the crate reads outside the roots its caller passes in
//! (`/proc/net/unix`) and talks to another process.

use std::time::Duration;

use crate::vocab::SessionId;

/// The prefix of every witness's abstract socket name.
pub const SOCKET_PREFIX: &str = "code-intel-ready/";

/// How long [`end_processes`] waits for one witness to answer (it kills in a loop of a few
/// system calls per process; 2 s covers a fork bomb's worth of them).
pub const ANSWER_WAIT: Duration = Duration::from_secs(2);

/// The request a witness answers by ending its domain.
pub const END_REQUEST: &[u8] = b"end\n";

/// The abstract socket name of the witness `pid` of session `session`:
/// `code-intel-ready/<session>/<pid>`.
pub fn socket_name(session: &SessionId, pid: u32) -> String {
    format!("{SOCKET_PREFIX}{session}/{pid}")
}

/// What [`end_processes`] did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Ended {
    /// Witnesses that answered: their domains are empty now.
    pub witnesses: usize,
    /// Processes they ended, as they reported.
    pub processes: usize,
    /// Witnesses found that did not answer in time (their processes may still run; each also
    /// ends its domain by itself within about a second of seeing the session file).
    pub unanswered: usize,
}

/// Ends every process that holds READY's rights for `session`: asks each of its witnesses (found
/// in `/proc/net/unix`) to kill its domain and waits for the answers, at most [`ANSWER_WAIT`]
/// each. Never fails: a witness that cannot be reached is counted in
/// [`Ended::unanswered`]. Nothing to do (and no cost but reading `/proc/net/unix`) when the
/// session never ran a command under the launcher in READY.
pub fn end_processes(session: &SessionId) -> Ended {
    let mut out = Ended::default();
    let prefix = format!("{SOCKET_PREFIX}{session}/");
    for name in witness_names(&prefix) {
        match ask_to_end(&name) {
            Some(n) => {
                out.witnesses += 1;
                out.processes += n;
            }
            None => out.unanswered += 1,
        }
    }
    out
}

/// The abstract socket names starting with `prefix` that some process listens on (each once).
fn witness_names(prefix: &str) -> Vec<String> {
    let Ok(table) = std::fs::read_to_string("/proc/net/unix") else {
        return Vec::new();
    };
    let mut names: Vec<String> = table
        .lines()
        .skip(1)
        .filter_map(|line| {
            // `Num RefCount Protocol Flags Type St Inode Path`; an abstract name is shown with
            // `@` for its leading NUL. Listening sockets have the `__SO_ACCEPTCON` flag.
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (flags, path) = (fields.get(3)?, fields.get(7)?);
            let name = path.strip_prefix('@')?;
            (name.starts_with(prefix) && *flags == "00010000").then(|| name.to_string())
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Asks the witness at abstract `name` to end its domain; the number of processes it ended, or
/// `None` when it could not be reached or did not answer in time.
#[cfg(target_os = "linux")]
fn ask_to_end(name: &str) -> Option<usize> {
    use std::io::{Read, Write};
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::{SocketAddr, UnixStream};
    let addr = SocketAddr::from_abstract_name(name.as_bytes()).ok()?;
    let mut stream = UnixStream::connect_addr(&addr).ok()?;
    stream.set_read_timeout(Some(ANSWER_WAIT)).ok()?;
    stream.set_write_timeout(Some(ANSWER_WAIT)).ok()?;
    stream.write_all(END_REQUEST).ok()?;
    let mut answer = String::new();
    stream.take(64).read_to_string(&mut answer).ok()?;
    answer.strip_prefix("ended ")?.trim().parse().ok()
}

#[cfg(not(target_os = "linux"))]
fn ask_to_end(_: &str) -> Option<usize> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_the_session_and_the_pid() {
        let id = SessionId::generate();
        let name = socket_name(&id, 42);
        assert_eq!(name, format!("code-intel-ready/{id}/42"));
        assert!(name.len() < 100, "fits sun_path: {name}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_listening_witness_is_found_and_asked() {
        use std::io::{Read, Write};
        use std::os::linux::net::SocketAddrExt;
        use std::os::unix::net::{SocketAddr, UnixListener};
        let id = SessionId::generate();
        let other = SessionId::generate();
        let addr = SocketAddr::from_abstract_name(socket_name(&id, 7).as_bytes()).unwrap();
        let listener = UnixListener::bind_addr(&addr).unwrap();
        let _unrelated = UnixListener::bind_addr(
            &SocketAddr::from_abstract_name(socket_name(&other, 8).as_bytes()).unwrap(),
        )
        .unwrap();
        let server = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut req = [0u8; 4];
            s.read_exact(&mut req).unwrap();
            assert_eq!(&req, END_REQUEST);
            s.write_all(b"ended 3\n").unwrap();
        });
        let ended = end_processes(&id);
        server.join().unwrap();
        assert_eq!(
            ended,
            Ended {
                witnesses: 1,
                processes: 3,
                unanswered: 0
            }
        );
        // Nothing listens for a third session.
        assert_eq!(end_processes(&SessionId::generate()), Ended::default());
    }
}
