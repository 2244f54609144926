//! Gate tests: the PreToolUse rules and PostToolUse bookkeeping on a temp repository.

use super::*;
use crate::vocab::Intent;
use crate::vocab::Phase;

struct Repo {
    dir: tempfile::TempDir,
    store: SessionStore,
}

fn repo() -> Repo {
    let dir = tempfile::tempdir().unwrap();
    for (p, body) in [
        ("src/app.py", "def login():\n    pass\n"),
        ("src/util.py", "X = 1\n"),
        ("node_modules/pkg/index.js", "x"),
        ("build/out.txt", "x"),
        (".gitignore", "build/\n*.log\n"),
    ] {
        let path = dir.path().join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, body).unwrap();
    }
    let store = SessionStore::new(RepoRoot::new(dir.path()).unwrap());
    Repo { dir, store }
}

impl Repo {
    fn pre(&self, claude: Option<&str>, tool: &str, action: Action<'_>) -> Verdict {
        let call = ToolCall {
            claude_session_id: claude,
            cwd: self.dir.path(),
            tool,
            action,
            locations: &ConfigLocations::default(),
            kernel: Kernel::Absent,
        };
        pre_tool_use(self.dir.path(), &call).verdict
    }

    /// A Bash call; `confined`: it runs under the kernel sandbox through the shell prefix.
    fn bash(&self, claude: Option<&str>, command: &str, confined: bool) -> Verdict {
        let call = ToolCall {
            claude_session_id: claude,
            cwd: self.dir.path(),
            tool: "Bash",
            action: Action::Shell(command),
            locations: &ConfigLocations::default(),
            kernel: if confined {
                Kernel::Confines
            } else {
                Kernel::Absent
            },
        };
        pre_tool_use(self.dir.path(), &call).verdict
    }

    fn abs(&self, rel: &str) -> String {
        self.dir.path().join(rel).to_str().unwrap().to_string()
    }

    fn write(&self, claude: Option<&str>, rel: &str) -> Verdict {
        self.pre(claude, "Write", Action::WriteFile(&self.abs(rel)))
    }

    fn ready_session(&self, claude: &str, explored: &[&str]) -> SessionId {
        let id = self
            .store
            .start(Intent::Modify, "fix login", Some(claude))
            .unwrap()
            .session_id;
        self.store
            .update(&id, |s| {
                s.phase = Phase::Ready;
                s.explored.extend(
                    explored
                        .iter()
                        .map(|p| RepoPath::parse_relative(p).unwrap()),
                );
            })
            .unwrap();
        id
    }

    fn set_mode(&self, mode: &str) {
        std::fs::create_dir_all(self.dir.path().join(".code-intel")).unwrap();
        std::fs::write(
            self.dir.path().join(".code-intel/config.json"),
            format!("{{\"gate_mode\": \"{mode}\"}}"),
        )
        .unwrap();
    }
}

fn denied(v: &Verdict) -> &str {
    match v {
        Verdict::Deny { reason } => reason,
        Verdict::Allow => panic!("expected a denial"),
    }
}

#[test]
fn modes_decide_writes_without_a_session() {
    let r = repo();
    assert!(denied(&r.write(Some("c1"), "src/app.py")).contains("start_session"));
    assert!(denied(&r.write(None, "src/app.py")).contains("/code"));
    r.set_mode("session");
    assert_eq!(r.write(Some("c1"), "src/app.py"), Verdict::Allow);
    r.set_mode("off");
    assert_eq!(r.write(Some("c1"), "src/app.py"), Verdict::Allow);
}

#[test]
fn non_write_tools_outside_and_ignored_paths_pass() {
    let r = repo();
    assert_eq!(
        r.pre(
            Some("c1"),
            "Read",
            Action::ReadFiles(vec![&r.abs("src/app.py")])
        ),
        Verdict::Allow
    );
    assert_eq!(
        r.pre(
            Some("c1"),
            "Write",
            Action::WriteFile("/tmp/code-intel-elsewhere.txt")
        ),
        Verdict::Allow
    );
    assert_eq!(
        r.write(Some("c1"), "node_modules/pkg/index.js"),
        Verdict::Allow
    );
    assert_eq!(r.write(Some("c1"), "build/out.txt"), Verdict::Allow);
    assert_eq!(r.write(Some("c1"), "debug.log"), Verdict::Allow);
    // Relative paths resolve against cwd, `..` cannot smuggle a repo file out of the gate.
    assert!(matches!(
        r.write(Some("c1"), "node_modules/../src/app.py"),
        Verdict::Deny { .. }
    ));
}

#[test]
fn gate_state_and_claude_settings_are_protected_in_every_phase() {
    let r = repo();
    r.ready_session("c1", &[""]);
    for p in [
        ".code-intel/sessions/x.json",
        ".code-intel/config.json",
        ".claude/settings.json",
        ".claude/settings.local.json",
    ] {
        assert!(
            denied(&r.write(Some("c1"), p)).contains("may not change"),
            "{p}"
        );
    }
}

#[test]
fn session_phase_and_exploration_decide() {
    let r = repo();
    let id = r
        .store
        .start(Intent::Modify, "fix login", Some("c1"))
        .unwrap()
        .session_id;
    assert!(denied(&r.write(Some("c1"), "src/app.py")).contains("EXPLORATION"));
    let nb = r.pre(
        Some("c1"),
        "NotebookEdit",
        Action::WriteFile(&r.abs("src/n.ipynb")),
    );
    assert!(denied(&nb).contains("EXPLORATION"));
    r.store
        .update(&id, |s| {
            s.phase = Phase::Ready;
            s.explored
                .insert(RepoPath::parse_relative("src/app.py").unwrap());
        })
        .unwrap();
    assert_eq!(
        r.pre(Some("c1"), "Edit", Action::WriteFile(&r.abs("src/app.py"))),
        Verdict::Allow
    );
    assert!(denied(&r.write(Some("c1"), "src/util.py")).contains("add_explored_files"));
    // A new file next to an explored one still needs check_write_target(allow_new_files=true).
    assert!(denied(&r.write(Some("c1"), "src/new.py")).contains("check_write_target"));
    let root = RepoRoot::new(r.dir.path()).unwrap();
    r.store
        .update(&id, |s| s.check_write_target(&root, "src/new.py", true))
        .unwrap();
    assert_eq!(r.write(Some("c1"), "src/new.py"), Verdict::Allow);
    // Another Claude Code window without a binding is still gated.
    assert!(matches!(
        r.write(Some("c2"), "src/app.py"),
        Verdict::Deny { .. }
    ));
}

#[test]
fn internal_errors_fail_closed_with_a_recovery_hint() {
    let r = repo();
    let id = r.ready_session("c1", &["src"]);
    std::fs::write(r.store.state_path(&id), "{ torn").unwrap();
    let reason = denied(&r.write(Some("c1"), "src/app.py")).to_string();
    assert!(
        reason.contains("blocked to be safe") && reason.contains("start_session"),
        "{reason}"
    );
    std::fs::write(
        r.dir.path().join(".code-intel/config.json"),
        "{\"gate_mode\": 7}",
    )
    .unwrap();
    assert!(denied(&r.write(Some("c1"), "src/app.py")).contains("config"));
    assert!(
        denied(&r.pre(Some("c1"), "Write", Action::MissingField("file_path")))
            .contains("file_path")
    );
    assert!(matches!(
        pre_tool_use(
            Path::new("/nonexistent/project"),
            &ToolCall {
                claude_session_id: None,
                cwd: Path::new("/"),
                tool: "Write",
                action: Action::WriteFile("/x"),
                locations: &ConfigLocations::default(),
                kernel: Kernel::Absent,
            }
        )
        .verdict,
        Verdict::Deny { .. }
    ));
}

#[test]
fn denials_are_journaled() {
    let r = repo();
    r.write(Some("c1"), "src/app.py");
    let text =
        std::fs::read_to_string(r.dir.path().join(".code-intel/journal/gate.jsonl")).unwrap();
    let ev: GateEvent = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(
        (ev.event.name(), ev.tool.as_str()),
        ("pre_tool_use_deny", "Write")
    );
}

#[test]
fn post_tool_use_binds_and_records_reads() {
    let r = repo();
    let id = r
        .store
        .start(Intent::Modify, "fix login", None)
        .unwrap()
        .session_id;
    let post = |tool: &str, action: Action<'_>| {
        let call = ToolCall {
            claude_session_id: Some("c9"),
            cwd: r.dir.path(),
            tool,
            action,
            locations: &ConfigLocations::default(),
            kernel: Kernel::Absent,
        };
        post_tool_use(r.dir.path(), &call).unwrap()
    };
    let out = post(
        "mcp__code-intel__start_session",
        Action::StartSession(Some(id.to_string())),
    );
    assert_eq!(out.bound_session.as_deref(), Some(id.as_str()));
    assert_eq!(r.store.bound("c9").unwrap().as_deref(), Some(id.as_str()));
    let out = post("Read", Action::ReadFiles(vec![&r.abs("src/app.py")]));
    assert_eq!(out.recorded_files, ["src/app.py"]);
    let out = post(
        "Grep",
        Action::ReadFiles(vec![
            "src/util.py",
            "node_modules/pkg/index.js",
            "../outside.py",
        ]),
    );
    assert_eq!(out.recorded_files, ["src/util.py"]);
    let s = r.store.load(&id).unwrap();
    assert!(s.is_explored(&RepoPath::parse_relative("src/util.py").unwrap()));
    assert_eq!(
        s.tools_used().into_iter().collect::<Vec<_>>(),
        ["Grep", "Read"]
    );
}

#[test]
fn bash_writes_are_gated_like_edits() {
    let r = repo();
    let bash = |claude: &str, cmd: &str| r.pre(Some(claude), "Bash", Action::Shell(cmd));
    assert!(denied(&bash("c1", "sed -i 's/a/b/' src/app.py")).contains("start_session"));
    assert!(
        denied(&bash("c1", "cat > src/new.py <<'EOF'\nprint(1)\nEOF")).contains("start_session")
    );
    for ok in [
        "grep -rn login src | head",
        "ls src > /dev/null",
        "cargo test 2>&1 | tail",
        "rm -rf node_modules/*",
        "echo x > /tmp/scratch.txt",
        "rm -rf build/*.o",
    ] {
        assert_eq!(bash("c1", ok), Verdict::Allow, "{ok}");
    }
    r.ready_session("c2", &["src/app.py"]);
    assert_eq!(
        bash("c2", "sed -i 's/pass/return 1/' src/app.py"),
        Verdict::Allow
    );
    assert!(denied(&bash("c2", "sed -i 's/X/Y/' src/util.py")).contains("add_explored_files"));
    assert!(denied(&bash("c2", "rm src/*.py")).contains("cannot resolve"));
    assert!(
        denied(&bash("c2", "echo x >> .code-intel/sessions/s.json")).contains("may not change")
    );
    assert!(
        denied(&bash(
            "c2",
            "cd src && python3 -c \"open('util.py','w').write('')\""
        ))
        .contains("src/util.py")
    );
}

/// Ordinary commands whose targets are known only at run time (issue 11's last false positives).
const RUN_TIME_ORDINARY: [&str; 3] = [
    "cd \"$(git rev-parse --show-toplevel)\" && npm test",
    "export PATH=\"$HOME/.cargo/bin:$PATH\" && cargo test",
    ". ~/.nvm/nvm.sh",
];

/// Run-time writes into the repository that only the kernel can refuse once they pass.
const RUN_TIME_WRITES: [&str; 6] = [
    "f=$(echo src/app.py); echo x > $f",
    "cat /tmp/x.sh | bash",
    "bash /tmp/x.sh",
    "echo x > /proc/$$/cwd/src/app.py",
    "$C -i s/a/b/ src/app.py",
    "cd \"$D\" && echo x > app.py",
];

#[test]
fn run_time_targets_go_to_the_kernel_only_when_it_confines_the_command() {
    let r = repo();
    // Static analysis only (no prefix, or Landlock not fully enforced): denied as before.
    for cmd in RUN_TIME_ORDINARY.iter().chain(&RUN_TIME_WRITES) {
        assert!(
            denied(&r.bash(Some("c1"), cmd, false)).contains("start_session"),
            "{cmd}"
        );
    }
    // Confined, no session: the kernel decides (it lets the command write no source).
    for cmd in RUN_TIME_ORDINARY.iter().chain(&RUN_TIME_WRITES) {
        assert_eq!(r.bash(Some("c1"), cmd, true), Verdict::Allow, "{cmd}");
        assert_eq!(r.bash(None, cmd, true), Verdict::Allow, "{cmd}");
    }
    // What the analysis resolves keeps its precise denial, confined or not.
    for (cmd, reason) in [
        ("echo x > src/app.py", "start_session"),
        ("f=1; echo $f > src/app.py", "start_session"),
        // A literal `echo` piped into a shell is read as the script it prints.
        ("echo 'echo x > src/app.py' | bash", "start_session"),
        ("echo x > \"$HOME/.claude/settings.json\"", "may not change"),
        ("echo x > \"$D/.code-intel/config.json\"", "may not change"),
        (
            "echo x > \"$D/.claude/settings.local.json\"",
            "may not change",
        ),
        (
            "cp /bin/true \"$D/code-intel-pre-tool-use\"",
            "may not change",
        ),
        (
            "cp /bin/true ~/.local/bin/code-intel-post-tool-use",
            "may not change",
        ),
        ("echo x > .mcp.json", "may not change"),
    ] {
        for confined in [false, true] {
            assert!(
                denied(&r.bash(Some("c1"), cmd, confined)).contains(reason),
                "{cmd} (confined: {confined})"
            );
        }
    }
    // Landlock does not govern chmod or utime: a run-time chmod or touch stays the analysis's to
    // deny, confined or not, with or without a session before READY.
    for cmd in [
        "find src -print0 | xargs -0 chmod 000",
        "f=src/app.py; chmod +x $f",
        "touch $F",
        "python3 -c \"import os,sys; os.chmod(sys.argv[1], 0)\" src/app.py",
    ] {
        for session in [None, Some("c1")] {
            assert!(
                matches!(r.bash(session, cmd, true), Verdict::Deny { .. }),
                "{cmd} ({session:?})"
            );
        }
    }
    // Only shell commands run under the prefix: a tool the analysis cannot read and an unknown
    // tool's oversized input stay denied.
    for (tool, action) in [
        ("PowerShell", Action::OpaqueShell),
        ("NewTool", Action::Unknown(None)),
    ] {
        let call = ToolCall {
            claude_session_id: Some("c1"),
            cwd: r.dir.path(),
            tool,
            action,
            locations: &ConfigLocations::default(),
            kernel: Kernel::Confines,
        };
        assert!(matches!(
            pre_tool_use(r.dir.path(), &call).verdict,
            Verdict::Deny { .. }
        ));
    }
    // EXPLORATION: the phase grants no write, so the kernel still refuses every source write.
    r.store
        .start(Intent::Modify, "fix login", Some("c2"))
        .unwrap();
    for cmd in RUN_TIME_ORDINARY.iter().chain(&RUN_TIME_WRITES) {
        assert!(
            denied(&r.bash(Some("c2"), cmd, false)).contains("EXPLORATION"),
            "{cmd}"
        );
        assert_eq!(r.bash(Some("c2"), cmd, true), Verdict::Allow, "{cmd}");
    }
    assert!(denied(&r.bash(Some("c2"), "echo x > src/app.py", true)).contains("EXPLORATION"));
    // READY: the sandbox opens the explored files' directories, wider than the session's
    // files, so a run-time target stays denied there.
    r.ready_session("c3", &["src/app.py"]);
    for cmd in RUN_TIME_WRITES {
        assert!(
            denied(&r.bash(Some("c3"), cmd, true)).contains("cannot resolve"),
            "{cmd}"
        );
    }
    assert_eq!(
        r.bash(Some("c3"), "sed -i 's/pass/return 1/' src/app.py", true),
        Verdict::Allow
    );
}

#[test]
fn literal_prefixes_of_dynamic_words() {
    assert_eq!(literal_dir_prefix("target/debug/*.o"), Some("target/debug"));
    assert_eq!(literal_dir_prefix("/tmp/$X"), Some("/tmp"));
    assert_eq!(literal_dir_prefix("/$X"), Some("/"));
    assert_eq!(literal_dir_prefix("*.py"), None);
    assert_eq!(literal_dir_prefix("$HOME/x"), None);
    assert_eq!(literal_dir_prefix("src/a.py"), None);
}

/// The forms a red team found getting past the static analysis
/// (docs/log/2026-11-25-red-team-2-static-analysis.md, "Still through"), decided by the whole
/// gate with no session, and common read-only and test commands near each rule that closes them.
#[test]
fn static_bypasses_are_denied_and_their_neighbours_pass() {
    let r = repo();
    let bash = |cmd: &str| r.pre(Some("c1"), "Bash", Action::Shell(cmd));
    for cmd in [
        "python3 -c \"open(*['src/app.py', 'w']).write('x')\"",
        "python3 -c \"import sys; sys.path.insert(0, '/tmp/evil'); import m\"",
        "perl -e 'system(\"touch\", \"src/app.py\")'",
        "perl -e 'exec {\"touch\"} \"x\", \"src/app.py\"'",
        "perl -e 'open(F, \"|tee src/app.py\")'",
        "perl -e 'open(F, \"touch src/app.py |\")'",
        "perl -e '$^I=\"\"; @ARGV=(\"src/app.py\"); while(<>){s/x/y/; print}'",
        "perl -e 'do \"/tmp/evil.pl\"'",
        "perl -e 'require \"/tmp/evil.pl\"'",
        "perl -MExtUtils::Command -e touch src/app.py",
        "node -e \"require('child_process').exec('touch src/app.py')\"",
        "node -e \"require('/tmp/evil.js')\"",
        "git clone -u /tmp/evil.sh /tmp/r /tmp/c",
        "git clone -u '/tmp/$x' /tmp/r /tmp/c",
        "PATH=/tmp/evil:$PATH git status",
        "HOME=/tmp/evil git st",
        "cd /tmp/evil && make",
        "cd /tmp/evil && npm test",
        "cd /tmp/evil && python -m mod",
        "python -m cProfile -o src/app.py /tmp/x.py",
        "python -m doctest /tmp/evil.txt",
        "vim -e -s src/app.py < /tmp/cmds",
        "vim -e -s /tmp/x < /tmp/cmds",
        "perl -e 'open(F, \"/tmp/$x|\")'",
        "node -e \"const m = process.env.M; require(m)\"",
        "node -e \"require('util').promisify(require('child_process').exec)('touch src/app.py')\"",
        "env -C /tmp/evil make",
        "ed -s /tmp/x <<< 'w src/app.py'",
    ] {
        assert!(
            matches!(bash(cmd), Verdict::Deny { .. }),
            "not denied: {cmd}"
        );
    }
    let in_repo = format!("cd {}/src && make test", r.dir.path().display());
    for cmd in [
        "perl -ne 'print if /x/' src/app.py",
        "perl -e 'system(\"ls\")'",
        "perl -e 'system(\"git\", \"log\", \"-1\")'",
        "perl -e 'open(F, \"git log -3 |\"); print <F>'",
        "perl -e 'use lib \"lib\"; require \"./src/x.pl\"; print 1'",
        "perl -MExtUtils::Command -e cat src/app.py",
        "python3 -c \"import sys; sys.path.insert(0, 'src'); import app\"",
        "python -m doctest -v src/app.py",
        "python -m cProfile -s cumtime src/app.py",
        "python -m pytest -x src/app.py::test_b -k 'x and not y'",
        "pytest -q src --junitxml=/tmp/report.xml",
        "node -e \"require('./src/x')\"",
        "node -e \"require('child_process').exec('git log -1', (e, out) => console.log(out))\"",
        "cd src && make test",
        "cd src && npm test",
        in_repo.as_str(),
        "cd /tmp && ls",
        "PATH=$PATH:node_modules/.bin jest",
        "PATH=\"$PWD/node_modules/.bin:$PATH\" jest",
        "PATH=/usr/local/bin:$PATH make",
        "PYTHONPATH=src:$PYTHONPATH pytest",
        "HOME=$HOME git log -1",
        "git clone https://github.com/a/b.git /tmp/b",
        "git push -u origin main",
        "ed -s /tmp/x <<< $'1p\\nq'",
        "vim -u NONE -es /tmp/x < /dev/null",
        "cd build && cmake .. && make -j4",
        "(cd src && python -m pytest -q)",
    ] {
        assert_eq!(bash(cmd), Verdict::Allow, "{cmd}");
    }
}

#[test]
fn shell_red_team_classes_are_denied_and_their_neighbours_pass() {
    let r = repo();
    let bash = |cmd: &str| r.pre(Some("c1"), "Bash", Action::Shell(cmd));
    let abs = r.dir.path().display().to_string();
    let home_repo = format!("HOME={abs}; echo x > ~/src/app.py");
    let trace = format!("GIT_TRACE={abs}/src/app.py git status");
    for cmd in [
        "mv src/app.py{,.bak}",
        "cp {/etc/hostname,src/app.py}",
        "dd {if=/etc/hostname,of=src/app.py} status=none",
        "cp src/{util,app}.py",
        home_repo.as_str(),
        "export HOME=$PWD && sed -i s/a/b/ ~/src/app.py",
        "read HOME <<< /x; echo x > ~/src/app.py",
        "HOME=/x; git -C ~ checkout HEAD~1 -- .",
        "hash -p /usr/bin/tee cat; cat src/app.py < /etc/hostname",
        "shopt -s expand_aliases; alias ls=rm\nls src/app.py",
        "env 'BASH_FUNC_cat%%=() { tee -a \"$@\"; }' bash -c 'cat src/app.py'",
        "echo '.once src/app.py' | sqlite3 /tmp/x.db",
        "sqlite3 /tmp/x.db < /tmp/cmds.sql",
        "sqlite3 /tmp/x.db \"attach 'src/y.db' as y; create table y.t(a);\"",
        trace.as_str(),
        "GIT_INDEX_FILE=src/idx git add -A",
        "TMPDIR=src mktemp",
        "LD_DEBUG_OUTPUT=src/app.py ls",
        "NODE_V8_COVERAGE=src/cov node -e 1",
        "LESSOPEN='|sh -c \"echo x >> src/app.py\" %s' less -F README.md",
        "script -q -c true",
        "ctags -R .",
        "gcc -Wl,-Map=src/app.map /tmp/x.c -o /tmp/a.out",
        "python3 -m pydoc -w os",
        "python3 -m tarfile -e /tmp/a.tar",
        "node --cpu-prof -e 1",
        "node --redirect-warnings=src/app.py -e 1",
        "unshare --wd=src sed -i s/a/b/ ../README.md",
        "find src/app.py -execdir rm ../README.md \\;",
    ] {
        assert!(
            matches!(bash(cmd), Verdict::Deny { .. }),
            "not denied: {cmd}"
        );
    }
    for cmd in [
        "ls ~",
        "HOME=/tmp ls ~",
        "cat ~/.bashrc",
        "TMPDIR=/tmp mktemp",
        "GIT_TRACE=/tmp/trace git status",
        "PYTHONPATH=src python3 -m pytest -q",
        "ctags -f - src/app.py",
        "ctags -f /dev/null -R .",
        "node -e 1",
        "git status",
        "sqlite3 /tmp/x.db 'select 1'",
        "echo 'select 1;' | sqlite3",
        "echo {a,b}",
        "ls src/{a,b}.py",
        "cat src/{app,util}.py",
        "script --help",
        "find . -execdir ls \\;",
        "cp src/app.py{,} 2>/dev/null; true",
    ] {
        assert_eq!(bash(cmd), Verdict::Allow, "{cmd}");
    }
}

/// A file tool's path with a leading `~` (Claude Code expands it before the hook, as observed)
/// is read as the home directory's, so `~/../../<repo>/src/app.py` is the repository's file; with
/// no known home it is a run-time target. Either way it is denied without a session.
#[test]
fn a_file_tools_tilde_path_names_the_home_directory() {
    let r = repo();
    let home = r.dir.path().parent().unwrap().join("home");
    // Up from the home directory to `/`, then down to the repository: read relative to the
    // working directory (`<repo>/~/../…`) it would name a file outside the repository.
    let ups = "../".repeat(home.components().count() - 1);
    let sneaky = format!(
        "~/{ups}{}/src/app.py",
        r.dir.path().to_str().unwrap().trim_start_matches('/')
    );
    for home in [Some(home), None] {
        let locations = ConfigLocations {
            home,
            ..ConfigLocations::default()
        };
        let call = ToolCall {
            claude_session_id: Some("c1"),
            cwd: r.dir.path(),
            tool: "Write",
            action: Action::WriteFile(&sneaky),
            locations: &locations,
            kernel: Kernel::Absent,
        };
        assert!(
            matches!(
                pre_tool_use(r.dir.path(), &call).verdict,
                Verdict::Deny { .. }
            ),
            "{sneaky} ({:?})",
            locations.home
        );
    }
}

#[test]
fn one_call_returns_the_verdict_with_the_sandbox_plan_of_a_rewrite() {
    let r = repo();
    r.ready_session("c1", &["src/app.py"]);
    let decide = |command: &str, kernel: Kernel| {
        pre_tool_use(
            r.dir.path(),
            &ToolCall {
                claude_session_id: Some("c1"),
                cwd: r.dir.path(),
                tool: "Bash",
                action: Action::Shell(command),
                locations: &ConfigLocations::default(),
                kernel,
            },
        )
    };
    let rewrite = Kernel::Rewrites { enforced: false };
    // Allowed and rewritten: the plan of the READY session comes with the verdict.
    let d = decide("sed -i s/a/b/ src/app.py", rewrite);
    assert_eq!(d.verdict, Verdict::Allow);
    let plan = d.sandbox.expect("a plan for the rewrite");
    let root = std::fs::canonicalize(r.dir.path()).unwrap();
    assert!(plan.protect.contains(&root), "{plan:?}");
    assert!(plan.allow.contains(&root.join("src")), "{plan:?}");
    assert!(plan.ready.is_some(), "{plan:?}");
    // It is the plan the launcher computes for the same session.
    assert_eq!(
        Some(plan),
        sandbox::sandbox_plan(r.dir.path(), Some("c1"), &ConfigLocations::default()).unwrap()
    );
    // No rewrite, or a denial: no plan.
    assert_eq!(
        decide("sed -i s/a/b/ src/app.py", Kernel::Absent).sandbox,
        None
    );
    assert_eq!(
        decide("sed -i s/a/b/ src/app.py", Kernel::Confines).sandbox,
        None
    );
    let d = decide("echo x > src/util.py", rewrite);
    assert!(matches!(d.verdict, Verdict::Deny { .. }) && d.sandbox.is_none());
    // The gate switched off: allowed, and nothing to confine.
    r.set_mode("off");
    assert_eq!(
        decide("echo x > src/util.py", rewrite),
        Decision {
            verdict: Verdict::Allow,
            sandbox: None
        }
    );
    // Unreadable config: the verdict of a read-only command needs none, the plan does.
    std::fs::write(r.dir.path().join(".code-intel/config.json"), "{").unwrap();
    assert_eq!(decide("ls src", Kernel::Absent).verdict, Verdict::Allow);
    assert!(denied(&decide("ls src", rewrite).verdict).contains("write sandbox"));
}
