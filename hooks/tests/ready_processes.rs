//! Nothing outlives READY (docs/GATE.md): a background process a READY command started under
//! `code-intel-sandbox` is ended when the session stops granting READY's rights, however it
//! detached (`nohup`, `setsid`, a double fork), even after trying to kill its witness; one started
//! before READY (no READY rights) lives on. Real launcher processes, real session store.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use code_intel_session::gate::protect::ConfigLocations;
use code_intel_session::gate::sandbox::{sandbox_plan, wrap_command};
use code_intel_session::repo_path::{RepoPath, RepoRoot};
use code_intel_session::session::store::SessionStore;
use code_intel_session::vocab::Intent;
use code_intel_session::vocab::Phase;
use code_intel_session::vocab::SessionId;

const SANDBOX: &str = env!("CARGO_BIN_EXE_code-intel-sandbox");

/// Whether the kernel can track READY's processes (Landlock with signal scoping, ABI 6): the
/// launcher runs READY commands untracked otherwise, and these tests say so and pass.
fn tracking_available() -> bool {
    let enforced = Command::new(SANDBOX)
        .arg("--probe")
        .status()
        .is_ok_and(|s| s.success());
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let mut v = release.split(|c: char| !c.is_ascii_digit());
    let (major, minor): (u32, u32) = (
        v.next().and_then(|x| x.parse().ok()).unwrap_or(0),
        v.next().and_then(|x| x.parse().ok()).unwrap_or(0),
    );
    let scoped = (major, minor) >= (6, 12);
    if !(enforced && scoped) {
        #[allow(clippy::print_stderr, reason = "a loud skip")]
        {
            eprintln!(
                "SKIP: READY process tracking needs Landlock ABI 6 (Linux 6.12); kernel {release}"
            );
        }
    }
    enforced && scoped
}

struct Repo {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    store: SessionStore,
}

fn repo() -> Repo {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/m1.py"), "x = 1\n").unwrap();
    let store = SessionStore::new(RepoRoot::new(&root).unwrap());
    Repo {
        _dir: dir,
        root,
        store,
    }
}

impl Repo {
    /// A session of Claude Code session `claude` in EXPLORATION.
    fn session(&self, claude: &str) -> SessionId {
        self.store
            .start(Intent::Modify, "q", Some(claude))
            .unwrap()
            .session_id
    }

    fn make_ready(&self, id: &SessionId) {
        self.store
            .update(id, |s| {
                s.phase = Phase::Ready;
                s.explored
                    .insert(RepoPath::parse_relative("src/m1.py").unwrap());
            })
            .unwrap();
    }

    /// Runs `command` as the hook's rewrite would, for Claude Code session `claude`; returns
    /// once the launcher's shell exits (background processes may live on).
    fn run(&self, claude: &str, command: &str) -> std::process::Output {
        let plan = sandbox_plan(&self.root, Some(claude), &ConfigLocations::default())
            .unwrap()
            .unwrap();
        let wrapped = wrap_command(Path::new(SANDBOX), &plan, command);
        let out = Command::new("bash")
            .arg("-c")
            .arg(&wrapped)
            .current_dir(&self.root)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{command}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    fn file(&self) -> String {
        std::fs::read_to_string(self.root.join("src/m1.py")).unwrap()
    }
}

/// Writers that detach in three ways, each appending `late` after `secs` seconds.
fn late_writers(secs: u32) -> String {
    format!(
        "nohup sh -c 'sleep {secs}; echo late-nohup >> src/m1.py' > /dev/null 2>&1 & \
         setsid sh -c 'sleep {secs}; echo late-setsid >> src/m1.py' > /dev/null 2>&1 < /dev/null & \
         (sh -c '(sleep {secs}; echo late-fork >> src/m1.py) > /dev/null 2>&1 &' &) ; \
         echo now >> src/m1.py"
    )
}

fn wait_past(start: Instant, secs: u64) {
    let until = start + Duration::from_secs(secs);
    if let Some(left) = until.checked_duration_since(Instant::now()) {
        std::thread::sleep(left);
    }
}

/// Control: while the session stays READY the writers write (so the test below can fail).
#[test]
fn background_writers_of_a_ready_session_write_while_it_stays_ready() {
    if !tracking_available() {
        return;
    }
    let r = repo();
    let id = r.session("c1");
    r.make_ready(&id);
    let start = Instant::now();
    r.run("c1", &late_writers(1));
    assert!(r.file().contains("now"));
    wait_past(start, 3);
    let text = r.file();
    for w in ["late-nohup", "late-setsid", "late-fork"] {
        assert!(text.contains(w), "{w} missing: {text}");
    }
}

#[test]
fn background_writers_end_when_the_session_leaves_ready() {
    if !tracking_available() {
        return;
    }
    // Three ways out of READY: revert, a new session for the same Claude Code session, the end.
    for how in ["revert", "new session", "outcome"] {
        let r = repo();
        let id = r.session("c1");
        r.make_ready(&id);
        let start = Instant::now();
        r.run("c1", &late_writers(2));
        assert!(r.file().contains("now"), "{how}");
        let ended = Instant::now();
        match how {
            "revert" => {
                r.store.revert_to_exploration(&id, true).unwrap();
            }
            "new session" => {
                r.session("c1");
            }
            _ => {
                code_intel_session::outcome::record_outcome(
                    &r.store,
                    &id,
                    code_intel_session::outcome::OutcomeInput {
                        outcome: code_intel_session::vocab::Outcome::Failure,
                        analysis: None,
                        trigger_message: None,
                        failure_point: None,
                    },
                    &code_intel_session::outcome::LearnSettings {
                        expiry: code_intel_session::learned::Expiry::after_days(0),
                        embedding_model: None,
                    },
                )
                .unwrap();
            }
        }
        let took = ended.elapsed();
        wait_past(start, 4);
        let text = r.file();
        assert!(!text.contains("late"), "{how}: written after READY: {text}");
        #[allow(clippy::print_stderr, reason = "the cost of ending, for the docs")]
        {
            eprintln!("{how}: ended in {took:?}");
        }
    }
}

/// A command cannot kill its witness to escape: signals from the tracked domain do not reach it.
#[test]
fn killing_the_witness_from_inside_fails() {
    if !tracking_available() {
        return;
    }
    let r = repo();
    let id = r.session("c1");
    r.make_ready(&id);
    let start = Instant::now();
    let out = r.run(
        "c1",
        &format!(
            "for p in $(pgrep -f 'code-intel-sandbox --witness-serv[e]'); do kill -9 $p 2>&1 && echo killed $p; done; {}",
            late_writers(2)
        ),
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        !said.contains("killed") && said.contains("Operation not permitted"),
        "the witness was not there to kill, or was killed: {said}"
    );
    r.store.revert_to_exploration(&id, true).unwrap();
    wait_past(start, 4);
    assert!(!r.file().contains("late"), "{}", r.file());
}

/// A process started before READY (no READY rights: a dev server in EXPLORATION) is not ended.
#[test]
fn a_process_started_before_ready_lives_on() {
    if !tracking_available() {
        return;
    }
    let r = repo();
    let id = r.session("c1");
    let elsewhere = tempfile::tempdir().unwrap();
    let pidfile = elsewhere.path().join("server.pid");
    let out = r.run(
        "c1",
        &format!(
            "nohup sleep 30 > /dev/null 2>&1 & echo $! > {}",
            pidfile.display()
        ),
    );
    drop(out);
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    r.make_ready(&id);
    r.run("c1", "echo now >> src/m1.py");
    r.store.revert_to_exploration(&id, true).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let alive = Path::new(&format!("/proc/{pid}")).exists();
    Command::new("kill").arg(pid.to_string()).status().ok();
    assert!(alive, "the EXPLORATION process was ended");
}
