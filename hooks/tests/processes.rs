//! The hook binaries as real processes: the output contract, fail-closed paths, and concurrent
//! PostToolUse writers on one session.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use code_intel_session::repo_path::{RepoPath, RepoRoot};
use code_intel_session::session::store::SessionStore;
use code_intel_session::vocab::Intent;
use code_intel_session::vocab::Phase;
use code_intel_session::vocab::SessionId;
use serde_json::{Value, json};

const PRE: &str = env!("CARGO_BIN_EXE_code-intel-pre-tool-use");
const POST: &str = env!("CARGO_BIN_EXE_code-intel-post-tool-use");

fn run(bin: &str, project: &Path, stdin: &str, env: &[(&str, &str)]) -> Output {
    let mut child = Command::new(bin)
        .current_dir(project)
        .env("CLAUDE_PROJECT_DIR", project)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    for i in 0..20 {
        std::fs::write(dir.path().join(format!("src/m{i}.py")), "x = 1\n").unwrap();
    }
    dir
}

/// Puts session `id` of `store` in READY with `explored` (repository-relative) explored.
fn make_ready(store: &SessionStore, id: &SessionId, explored: &str) {
    store
        .update(id, |s| {
            s.phase = Phase::Ready;
            s.explored
                .insert(RepoPath::parse_relative(explored).unwrap());
        })
        .unwrap();
}

/// A session of Claude Code conversation `claude_id` in `project`, in READY with `explored`:
/// the store and the session id.
fn ready_session(project: &Path, claude_id: &str, explored: &str) -> (SessionStore, SessionId) {
    let store = SessionStore::new(RepoRoot::new(project).unwrap());
    let id = store
        .start(Intent::Modify, "q", Some(claude_id))
        .unwrap()
        .session_id;
    make_ready(&store, &id, explored);
    (store, id)
}

fn hook_input(project: &Path, session: &str, tool: &str, input: Value) -> String {
    json!({"session_id": session, "cwd": project, "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input}).to_string()
}

fn assert_denied(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(2),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    let v: Value = serde_json::from_str(stdout.trim()).expect("stdout is exactly one JSON object");
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&reason),
        "reason repeated on stderr"
    );
    reason
}

#[test]
fn write_without_session_is_denied_with_json_stderr_and_exit_2() {
    let dir = repo();
    let out = run(
        PRE,
        dir.path(),
        &hook_input(
            dir.path(),
            "s1",
            "Write",
            json!({"file_path": dir.path().join("src/m1.py"), "content": "y"}),
        ),
        &[],
    );
    let reason = assert_denied(&out);
    assert!(reason.contains("start_session"), "{reason}");
    assert!(reason.contains("this call writes src/m1.py"), "{reason}");
}

/// Without a session the reason names what the call would have written, so an agent that ran
/// an install or a snapshot update to look around learns which files it changes.
#[test]
fn a_denial_without_session_names_what_the_call_writes() {
    let dir = repo();
    std::fs::write(dir.path().join("package.json"), "{}\n").unwrap();
    let bash = |command: &str| {
        assert_denied(&run(
            PRE,
            dir.path(),
            &hook_input(dir.path(), "s1", "Bash", json!({ "command": command })),
            &[],
        ))
    };
    let reason = bash("npm install");
    assert!(
        reason.contains("package.json") && reason.contains("package-lock.json"),
        "{reason}"
    );
    let reason = bash("sed -i s/1/2/ src/m1.py src/m2.py src/m3.py src/m4.py src/m5.py");
    assert!(
        reason.contains("this call writes src/m1.py, src/m2.py, src/m3.py and 2 more"),
        "{reason}"
    );
    let reason = bash("jest -u");
    assert!(
        reason.contains("this call writes files anywhere in the repository"),
        "{reason}"
    );
}

#[test]
fn allow_is_silence_and_exit_0() {
    let dir = repo();
    let out = run(
        PRE,
        dir.path(),
        &hook_input(
            dir.path(),
            "s1",
            "Read",
            json!({"file_path": dir.path().join("src/m1.py")}),
        ),
        &[],
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stdout.is_empty(),
        "allow must print nothing (never \"allow\")"
    );
}

#[test]
fn malformed_input_and_panics_fail_closed() {
    let dir = repo();
    assert!(assert_denied(&run(PRE, dir.path(), "{not json", &[])).contains("not the JSON"));
    assert!(assert_denied(&run(PRE, dir.path(), "", &[])).contains("not the JSON"));
    let input = hook_input(
        dir.path(),
        "s1",
        "Write",
        json!({"file_path": dir.path().join("a"), "content": "y"}),
    );
    assert!(
        assert_denied(&run(
            PRE,
            dir.path(),
            &input,
            &[("CODE_INTEL_HOOK_FAULT", "panic")]
        ))
        .contains("crashed")
    );
}

#[test]
fn self_check_passes() {
    let out = Command::new(PRE).arg("--self-check").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn concurrent_post_tool_use_processes_lose_no_reads() {
    let dir = repo();
    let store = SessionStore::new(RepoRoot::new(dir.path()).unwrap());
    let id = store
        .start(Intent::Modify, "q", Some("win1"))
        .unwrap()
        .session_id;
    std::thread::scope(|s| {
        for i in 0..20 {
            let project = dir.path();
            s.spawn(move || {
                let input = json!({"session_id": "win1", "cwd": project, "hook_event_name": "PostToolUse", "tool_name": "Read",
                    "tool_input": {"file_path": project.join(format!("src/m{i}.py"))}, "tool_response": {"type": "text"}});
                let out = run(POST, project, &input.to_string(), &[]);
                assert!(out.status.success() && out.stdout.is_empty());
            });
        }
    });
    let state = store.load(&id).unwrap();
    assert_eq!(state.tool_calls.len(), 20);
    for i in 0..20 {
        assert!(state.is_explored(&RepoPath::parse_relative(&format!("src/m{i}.py")).unwrap()));
    }
}

#[test]
fn post_tool_use_binds_start_session_then_pre_tool_use_follows_the_session() {
    let dir = repo();
    let store = SessionStore::new(RepoRoot::new(dir.path()).unwrap());
    // A session started by an MCP server whose environment had another (stale) Claude id.
    let id = store
        .start(Intent::Modify, "q", Some("stale"))
        .unwrap()
        .session_id;
    let bind = json!({"session_id": "fresh", "cwd": dir.path(), "hook_event_name": "PostToolUse", "tool_name": "mcp__code-intel__start_session",
        "tool_input": {"intent": "MODIFY", "query": "q"}, "tool_response": json!({"session_id": id, "phase": "EXPLORATION"}).to_string()});
    assert!(
        run(POST, dir.path(), &bind.to_string(), &[])
            .status
            .success()
    );
    let edit = hook_input(
        dir.path(),
        "fresh",
        "Edit",
        json!({"file_path": dir.path().join("src/m1.py"), "old_string": "x", "new_string": "y"}),
    );
    assert!(assert_denied(&run(PRE, dir.path(), &edit, &[])).contains("EXPLORATION"));
    make_ready(&store, &id, "src/m1.py");
    let out = run(PRE, dir.path(), &edit, &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn mkfifo(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

const WATCHDOG_REASON: &str = "could not decide within 2 s";

/// A FIFO in every place the hooks read never hangs them: the ignore files are skipped (a Write
/// outside the repository is still allowed, promptly, by the main path), and a FIFO config,
/// binding or session file is a read error that denies with its own reason — not the watchdog's.
#[test]
fn fifos_where_files_should_be_never_hang_the_hooks() {
    for rel in [".gitignore", ".git/info/exclude"] {
        let dir = repo();
        mkfifo(&dir.path().join(rel));
        let outside = tempfile::tempdir().unwrap();
        let out = run(
            PRE,
            dir.path(),
            &hook_input(
                dir.path(),
                "s1",
                "Write",
                json!({"file_path": outside.path().join("x.txt"), "content": "y"}),
            ),
            &[],
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{rel}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // And a write into the repository is still gated.
        let write = hook_input(
            dir.path(),
            "s1",
            "Write",
            json!({"file_path": dir.path().join("src/m1.py"), "content": "y"}),
        );
        assert!(assert_denied(&run(PRE, dir.path(), &write, &[])).contains("start_session"));
    }

    let store_of = |dir: &Path| SessionStore::new(RepoRoot::new(dir).unwrap());
    let write = |dir: &Path| {
        hook_input(
            dir,
            "c1",
            "Write",
            json!({"file_path": dir.join("src/m1.py"), "content": "y"}),
        )
    };
    // config.json
    let dir = repo();
    mkfifo(&dir.path().join(".code-intel/config.json"));
    let reason = assert_denied(&run(PRE, dir.path(), &write(dir.path()), &[]));
    assert!(reason.contains("not a regular file"), "{reason}");
    // the binding
    let dir = repo();
    mkfifo(&dir.path().join(".code-intel/bindings/c1.json"));
    let reason = assert_denied(&run(PRE, dir.path(), &write(dir.path()), &[]));
    assert!(reason.contains("not a regular file"), "{reason}");
    let post = json!({"session_id": "c1", "cwd": dir.path(), "hook_event_name": "PostToolUse", "tool_name": "Read",
        "tool_input": {"file_path": dir.path().join("src/m1.py")}, "tool_response": {"type": "text"}});
    let out = run(POST, dir.path(), &post.to_string(), &[]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("not a regular file") && !stderr.contains("gave up"),
        "{stderr}"
    );
    // the session file
    let dir = repo();
    let id = store_of(dir.path())
        .start(Intent::Modify, "q", Some("c1"))
        .unwrap()
        .session_id;
    let state = dir.path().join(format!(".code-intel/sessions/{id}.json"));
    std::fs::remove_file(&state).unwrap();
    mkfifo(&state);
    let reason = assert_denied(&run(PRE, dir.path(), &write(dir.path()), &[]));
    assert!(reason.contains("not a regular file"), "{reason}");
    // the denial journal
    let dir = repo();
    mkfifo(&dir.path().join(".code-intel/journal/gate.jsonl"));
    let reason = assert_denied(&run(PRE, dir.path(), &write(dir.path()), &[]));
    assert!(!reason.contains(WATCHDOG_REASON), "{reason}");
}

#[test]
fn the_watchdog_denies_when_the_decision_hangs() {
    let dir = repo();
    let input = hook_input(
        dir.path(),
        "s1",
        "Read",
        json!({"file_path": dir.path().join("src/m1.py")}),
    );
    // Even a read-only call: the hook cannot know what it would have decided.
    let reason = assert_denied(&run(
        PRE,
        dir.path(),
        &input,
        &[("CODE_INTEL_HOOK_FAULT", "hang")],
    ));
    assert!(reason.contains(WATCHDOG_REASON), "{reason}");
}

/// Claude Code's configuration is protected wherever it is, in every gate mode, with or without a
/// session, through symlinks and `/proc`.
#[test]
fn claude_code_configuration_is_protected_everywhere() {
    let dir = repo();
    let home = tempfile::tempdir().unwrap();
    let cfg = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".code-intel")).unwrap();
    std::fs::write(
        dir.path().join(".code-intel/config.json"),
        r#"{"gate_mode": "session"}"#,
    )
    .unwrap();
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    std::os::unix::fs::symlink(home.path().join(".claude"), dir.path().join("../cl-link")).ok();
    let env = [
        ("HOME", home.path().to_str().unwrap()),
        ("CLAUDE_CONFIG_DIR", cfg.path().to_str().unwrap()),
    ];
    let p = |rel: &str| dir.path().join(rel).display().to_string();
    let writes = [
        home.path()
            .join(".claude/settings.json")
            .display()
            .to_string(),
        home.path().join(".claude.json").display().to_string(),
        cfg.path().join("settings.json").display().to_string(),
        cfg.path()
            .join("plugins/x/hooks/hooks.json")
            .display()
            .to_string(),
        p(".claude/settings.json"),
        p(".claude/hooks/gate.sh"),
        p(".claude/skills/x/SKILL.md"),
        p(".claude/scheduled_tasks.json"),
        p(".mcp.json"),
        p(".code-intel/config.json"),
        p(".code-intel/sessions/x.json"),
        "/proc/self/cwd/.code-intel/config.json".to_string(),
        "/etc/claude-code/managed-settings.json".to_string(),
        PRE.to_string(),
    ];
    for path in &writes {
        for tool in ["Write", "Edit"] {
            let input = hook_input(
                dir.path(),
                "no-session",
                tool,
                json!({"file_path": path, "content": "{\"disableAllHooks\": true}", "old_string": "a", "new_string": "b"}),
            );
            let reason = assert_denied(&run(PRE, dir.path(), &input, &env));
            assert!(reason.contains("in any phase"), "{tool} {path}: {reason}");
        }
    }
    let bash = [
        "echo '{\"disableAllHooks\": true}' > ~/.claude/settings.json",
        "echo x > $HOME/.claude/settings.local.json",
        "echo x > \"$CLAUDE_CONFIG_DIR/settings.json\"",
        "ln -s $PWD/.claude /tmp/cl && echo '{}' > /tmp/cl/settings.json",
        "cp /bin/true $(which code-intel-pre-tool-use)",
        "sed -i s/strict/off/ .code-intel/config.json",
    ];
    for cmd in bash {
        let input = hook_input(dir.path(), "no-session", "Bash", json!({ "command": cmd }));
        let out = run(PRE, dir.path(), &input, &env);
        assert_eq!(out.status.code(), Some(2), "{cmd}");
    }
    // Data the agent writes as part of its work stays writable.
    let input = hook_input(
        dir.path(),
        "no-session",
        "Write",
        json!({"file_path": cfg.path().join("plans/p.md"), "content": "plan"}),
    );
    assert_eq!(run(PRE, dir.path(), &input, &env).status.code(), Some(0));
}

#[test]
fn worktrees_cron_and_unknown_tools_are_gated() {
    let dir = repo();
    for (tool, input) in [
        ("EnterWorktree", json!({"name": "w"})),
        (
            "CronCreate",
            json!({"cron": "* * * * *", "prompt": "edit", "durable": true}),
        ),
    ] {
        let reason = assert_denied(&run(
            PRE,
            dir.path(),
            &hook_input(dir.path(), "s1", tool, input),
            &[],
        ));
        assert!(reason.contains(".claude/"), "{tool}: {reason}");
    }
    let foreign = hook_input(
        dir.path(),
        "s1",
        "mcp__fs__write_file",
        json!({"path": dir.path().join("src/m1.py"), "content": "y"}),
    );
    assert!(assert_denied(&run(PRE, dir.path(), &foreign, &[])).contains("start_session"));
    for (tool, input) in [
        ("Read", json!({"file_path": dir.path().join("src/m1.py")})),
        ("Grep", json!({"pattern": "x", "path": dir.path()})),
        ("WebSearch", json!({"query": "rust/landlock"})),
        (
            "mcp__code-intel__start_session",
            json!({"intent": "MODIFY", "query": "q"}),
        ),
        (
            "Bash",
            json!({"command": "git status && ls -la src | head && cat src/m1.py"}),
        ),
    ] {
        let out = run(
            PRE,
            dir.path(),
            &hook_input(dir.path(), "s1", tool, input),
            &[],
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{tool}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

/// The hook's contract for Bash, as real processes, on a sample of the lists in
/// `bash/cases/` (every line of which `bash_lists.rs` checks in-process through the
/// same decision function): a hidden write is denied (exit 2, one JSON object on stdout, the
/// reason on stderr), a read-only command allowed in silence (no session, `strict` mode).
#[test]
fn hidden_writes_are_denied_and_read_only_commands_pass() {
    const HIDDEN_WRITES: &[&str] = &[
        "echo 'echo x > src/m1.py' | bash",
        "sed --in-pl s/x/y/ src/m1.py",
        "python3 -c \"import os; fd = os.open('src/m1.py', os.O_WRONLY); os.write(fd, b'x')\"",
        "git -c alias.x='!sed -i s/x/y/ src/m1.py' x",
        "false && cd /tmp; echo x > src/m1.py",
    ];
    const READ_ONLY: &[&str] = &[
        "git status",
        "find . -type f | xargs wc -l",
        "cat <<'EOF' | python3\nimport sys\nprint(sys.version)\nEOF",
        "t=$(mktemp); git diff > \"$t\"; wc -l \"$t\"; rm -f \"$t\"",
        "npm test > /tmp/t-$(date +%Y%m%d-%H%M%S).log 2>&1",
    ];
    let dir = repo();
    std::fs::create_dir_all(dir.path().join("node_modules")).unwrap();
    for cmd in HIDDEN_WRITES {
        let input = hook_input(dir.path(), "s1", "Bash", json!({ "command": cmd }));
        assert_denied(&run(PRE, dir.path(), &input, &[]));
    }
    for cmd in READ_ONLY {
        let input = hook_input(dir.path(), "s1", "Bash", json!({ "command": cmd }));
        let out = run(PRE, dir.path(), &input, &[]);
        assert!(
            out.status.success() && out.stdout.is_empty(),
            "{cmd}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// An allowed Bash call comes back as `updatedInput` running it under `code-intel-sandbox`; the
/// wrapped command, run as Claude Code would, cannot write a repository file the parser could not
/// see it write (a script of the repository, which the parser trusts), nor Claude Code's
/// configuration, but writes ignored directories and outside the repository.
#[test]
fn allowed_bash_runs_under_the_kernel_sandbox() {
    let sandbox = env!("CARGO_BIN_EXE_code-intel-sandbox");
    let probe = Command::new(sandbox).arg("--probe").output().unwrap();
    assert!(
        probe.status.success(),
        "Landlock unavailable on this kernel: {}",
        String::from_utf8_lossy(&probe.stdout)
    );
    let dir = repo();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("node_modules")).unwrap();
    std::fs::write(
        dir.path().join("src/tool.sh"),
        "echo y >> src/m1.py\nmkdir -p .claude && echo '{}' > .claude/settings.json\n",
    )
    .unwrap();
    // `mktemp` works although the repository (a temp dir) lies in the temporary directory.
    let command = format!(
        "bash src/tool.sh; echo ok > node_modules/out; echo ok > {}/out; cat src/m2.py; mktemp > /dev/null && echo mktemp-ok",
        outside.path().display()
    );
    let mut input: Value = serde_json::from_str(&hook_input(
        dir.path(),
        "s1",
        "Bash",
        json!({ "command": command, "description": "d" }),
    ))
    .unwrap();
    // Other modes keep the command as it is (Claude Code would prompt for every rewritten one).
    for mode in ["default", "acceptEdits"] {
        input["permission_mode"] = json!(mode);
        let out = run(PRE, dir.path(), &input.to_string(), &[]);
        assert!(
            out.status.success() && out.stdout.is_empty(),
            "{mode}: {out:?}"
        );
    }
    input["permission_mode"] = json!("bypassPermissions");
    let input = input.to_string();
    // With the launcher as Claude Code's shell prefix the command already runs under it: no
    // rewrite (a second sandbox inside the first would only cost time). Another prefix does not
    // confine anything, so the rewrite stays.
    let out = run(
        PRE,
        dir.path(),
        &input,
        &[("CLAUDE_CODE_SHELL_PREFIX", sandbox)],
    );
    assert!(
        out.status.success() && out.stdout.is_empty(),
        "prefix: {out:?}"
    );
    let out = run(
        PRE,
        dir.path(),
        &input,
        &[("CLAUDE_CODE_SHELL_PREFIX", "/usr/bin/nice")],
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("updatedInput"),
        "other prefix: {out:?}"
    );
    let out = run(PRE, dir.path(), &input, &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "one JSON object on stdout ({e}): {:?} {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let hso = &v["hookSpecificOutput"];
    assert_eq!(hso["hookEventName"], "PreToolUse");
    assert!(hso.get("permissionDecision").is_none(), "never allow: {v}");
    assert_eq!(hso["updatedInput"]["description"], "d", "other fields kept");
    assert!(
        hso["additionalContext"]
            .as_str()
            .unwrap()
            .contains("Permission denied")
    );
    let wrapped = hso["updatedInput"]["command"].as_str().unwrap();
    assert!(wrapped.contains("code-intel-sandbox"), "{wrapped}");

    let ran = Command::new("bash")
        .arg("-c")
        .arg(wrapped)
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/m1.py")).unwrap(),
        "x = 1\n",
        "{stderr}"
    );
    assert!(!dir.path().join(".claude").exists(), "{stderr}");
    assert!(stderr.contains("Permission denied"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("node_modules/out")).unwrap(),
        "ok\n"
    );
    assert_eq!(
        std::fs::read_to_string(outside.path().join("out")).unwrap(),
        "ok\n"
    );
    assert_eq!(
        String::from_utf8_lossy(&ran.stdout),
        "x = 1\nmktemp-ok\n",
        "reads unchanged, temporary files work: {stderr}"
    );

    // Not Bash, or gate off: no rewrite.
    std::fs::create_dir_all(dir.path().join(".code-intel")).unwrap();
    std::fs::write(
        dir.path().join(".code-intel/config.json"),
        r#"{"gate_mode": "off"}"#,
    )
    .unwrap();
    let out = run(PRE, dir.path(), &input, &[]);
    assert!(
        out.status.success() && out.stdout.is_empty(),
        "gate off: {out:?}"
    );
}

/// Monitor runs a shell command too: in `bypassPermissions` it is wrapped like Bash, so a write
/// the static analysis cannot see (a script of the repository) meets the kernel.
#[test]
fn allowed_monitor_commands_run_under_the_kernel_sandbox() {
    let sandbox = env!("CARGO_BIN_EXE_code-intel-sandbox");
    let probe = Command::new(sandbox).arg("--probe").output().unwrap();
    assert!(
        probe.status.success(),
        "Landlock unavailable on this kernel"
    );
    let dir = repo();
    std::fs::write(dir.path().join("src/tool.sh"), "echo y >> src/m1.py\n").unwrap();
    let mut input: Value = serde_json::from_str(&hook_input(
        dir.path(),
        "s1",
        "Monitor",
        json!({ "command": "bash src/tool.sh", "description": "watch" }),
    ))
    .unwrap();
    input["permission_mode"] = json!("bypassPermissions");
    let out = run(PRE, dir.path(), &input.to_string(), &[]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("a rewrite on stdout");
    let updated = &v["hookSpecificOutput"]["updatedInput"];
    assert_eq!(updated["description"], "watch", "other fields kept");
    let wrapped = updated["command"].as_str().unwrap();
    assert!(wrapped.contains("code-intel-sandbox"), "{wrapped}");
    let ran = Command::new("bash")
        .arg("-c")
        .arg(wrapped)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/m1.py")).unwrap(),
        "x = 1\n",
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
}

/// A `.gitignore` that ignores everything (written in READY, or by a write the gate missed) does
/// not make tracked source writable: as in git, a tracked file is never ignored. Untracked files
/// under an ignored directory stay writable (build output).
#[test]
fn a_catch_all_gitignore_does_not_unlock_tracked_files() {
    let dir = repo();
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "src"]);
    std::fs::write(dir.path().join(".gitignore"), "*\n").unwrap();
    std::fs::create_dir_all(dir.path().join("build")).unwrap();
    let write = |path: &str| {
        hook_input(
            dir.path(),
            "s1",
            "Write",
            json!({ "file_path": dir.path().join(path), "content": "pwned\n" }),
        )
    };
    assert_denied(&run(PRE, dir.path(), &write("src/m1.py"), &[]));
    let bash = hook_input(
        dir.path(),
        "s1",
        "Bash",
        json!({ "command": "echo pwned > src/m2.py" }),
    );
    assert_denied(&run(PRE, dir.path(), &bash, &[]));
    let out = run(PRE, dir.path(), &write("build/out.js"), &[]);
    assert!(
        out.status.success() && out.stdout.is_empty(),
        "untracked and ignored: allowed: {out:?}"
    );
}

/// The hooks are found through PATH: a file of a hook's name written anywhere (a directory ahead
/// of the real binary in PATH) could replace the gate; it is protected in every mode.
#[test]
fn a_file_named_like_the_hook_is_protected_anywhere() {
    let dir = repo();
    let elsewhere = tempfile::tempdir().unwrap();
    for name in ["code-intel-pre-tool-use", "code-intel-sandbox"] {
        let input = hook_input(
            dir.path(),
            "s1",
            "Write",
            json!({ "file_path": elsewhere.path().join(".local/bin").join(name), "content": "#!/bin/sh\nexit 0\n" }),
        );
        let reason = assert_denied(&run(PRE, dir.path(), &input, &[]));
        assert!(reason.contains("hook executables"), "{reason}");
    }
    // Any other file there stays writable.
    let input = hook_input(
        dir.path(),
        "s1",
        "Write",
        json!({ "file_path": elsewhere.path().join(".local/bin/tool"), "content": "x" }),
    );
    let out = run(PRE, dir.path(), &input, &[]);
    assert!(out.status.success() && out.stdout.is_empty(), "{out:?}");
}

/// READY holes found by a red-team session: reading a directory does not explore it, git's own
/// files are never explored, and a dangling symlink at an explored path is judged by where a
/// write through it lands.
#[test]
fn ready_holes_stay_closed() {
    let dir = repo();
    std::fs::create_dir_all(dir.path().join("lib")).unwrap();
    std::fs::write(dir.path().join("lib/d.py"), "d = 1\n").unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    std::fs::write(dir.path().join(".git/config"), "[core]\n").unwrap();
    let (store, id) = ready_session(dir.path(), "r1", "src/m1.py");
    let post = |tool: &str, input: Value, response: Value| {
        let input = json!({"session_id": "r1", "cwd": dir.path(), "hook_event_name": "PostToolUse",
            "tool_name": tool, "tool_input": input, "tool_response": response});
        assert!(
            run(POST, dir.path(), &input.to_string(), &[])
                .status
                .success()
        );
    };
    // `ls lib`, `grep -r x lib`, a Read of .git/config: none of them explores lib/ or .git/.
    post(
        "Bash",
        json!({"command": "ls lib"}),
        json!({"stdout": "d.py"}),
    );
    post(
        "Bash",
        json!({"command": "grep -r x lib"}),
        json!({"stdout": ""}),
    );
    post(
        "Read",
        json!({"file_path": dir.path().join(".git/config")}),
        json!({"type": "text"}),
    );
    let state = store.load(&id).unwrap();
    assert!(
        state.explored.iter().all(|p| p.as_str() == "src/m1.py"),
        "{:?}",
        state.explored
    );
    let pre = |tool: &str, input: Value| {
        run(
            PRE,
            dir.path(),
            &hook_input(dir.path(), "r1", tool, input),
            &[],
        )
    };
    assert_denied(&pre("Bash", json!({"command": "echo x >> lib/d.py"})));
    assert_denied(&pre(
        "Write",
        json!({"file_path": dir.path().join(".git/config"), "content": "[core]\n fsmonitor = x\n"}),
    ));
    // A link swapped onto the explored file and written through in the same command.
    assert_denied(&pre(
        "Bash",
        json!({"command": "ln -s ../lib/d.py /tmp/ci-l && mv /tmp/ci-l src/m1.py && echo x >> src/m1.py"}),
    ));
    assert_denied(&pre(
        "Bash",
        json!({"command": "cp -P /tmp/ci-l src/m1.py; echo x >> src/m1.py"}),
    ));
    // The explored file itself stays writable.
    let out = pre("Bash", json!({"command": "echo x >> src/m1.py"}));
    assert!(out.status.success() && out.stdout.is_empty(), "{out:?}");
    // The explored file replaced by a dangling symlink into protected configuration.
    std::fs::remove_file(dir.path().join("src/m1.py")).unwrap();
    std::os::unix::fs::symlink("../.code-intel/config.json", dir.path().join("src/m1.py")).unwrap();
    assert_denied(&pre(
        "Write",
        json!({"file_path": dir.path().join("src/m1.py"), "content": "{\"gate_mode\": \"off\"}"}),
    ));
    // ... or into an unexplored file that does not exist yet.
    std::fs::remove_file(dir.path().join("src/m1.py")).unwrap();
    std::os::unix::fs::symlink("../lib/new.py", dir.path().join("src/m1.py")).unwrap();
    assert_denied(&pre(
        "Write",
        json!({"file_path": dir.path().join("src/m1.py"), "content": "x"}),
    ));
}

/// An ignore rule added during a session does not unlock files: once the ignore rules differ
/// from those the session started with, ignored paths are gated like source for it (build output
/// ignored from the start stays writable; dependency directories always are).
#[test]
fn ignore_rules_changed_mid_session_unlock_nothing() {
    let dir = repo();
    std::fs::write(dir.path().join(".gitignore"), "build/\n").unwrap();
    std::fs::create_dir_all(dir.path().join("build")).unwrap();
    std::fs::create_dir_all(dir.path().join("lib")).unwrap();
    std::fs::write(dir.path().join("lib/u.py"), "u = 1\n").unwrap();
    ready_session(dir.path(), "g1", ".gitignore");
    let bash = |command: &str| {
        run(
            PRE,
            dir.path(),
            &hook_input(dir.path(), "g1", "Bash", json!({ "command": command })),
            &[],
        )
    };
    let out = bash("echo x > build/out.js");
    assert!(out.status.success() && out.stdout.is_empty(), "{out:?}");
    assert_denied(&bash("echo x > lib/u.py"));
    // The agent (explored .gitignore, READY) adds a rule for the unexplored file ...
    std::fs::write(
        dir.path().join(".gitignore"),
        "build/\nlib/u.py\nlib/new.py\n",
    )
    .unwrap();
    // ... which unlocks nothing: not the file, not a new one, not even the old build output.
    assert_denied(&bash("echo x > lib/u.py"));
    assert_denied(&bash("echo x > lib/new.py"));
    assert_denied(&bash("echo x > build/out.js"));
    let out = bash("mkdir -p node_modules/x && echo x > node_modules/x/y.js");
    assert!(out.status.success() && out.stdout.is_empty(), "{out:?}");
}

/// Under Claude Code's shell prefix (the launcher next to this hook, Landlock fully enforced)
/// a Bash write the analysis cannot resolve is left to the kernel while no session may write;
/// with no prefix, a prefix elsewhere or one given by name it is denied as before, and what the
/// analysis resolves is denied either way.
#[test]
fn run_time_targets_pass_only_under_the_launcher_as_shell_prefix() {
    let dir = repo();
    let project = dir.path();
    let launcher = Path::new(PRE).with_file_name("code-intel-sandbox");
    assert!(launcher.is_file(), "build the launcher first");
    // A copy of the launcher elsewhere: not the sibling, so not trusted to be the one in force.
    let elsewhere = tempfile::tempdir().unwrap();
    let copy = elsewhere.path().join("code-intel-sandbox");
    std::fs::copy(&launcher, &copy).unwrap();
    let launcher = launcher.to_string_lossy().into_owned();
    let copy = copy.to_string_lossy().into_owned();
    let bash = |command: &str, prefix: Option<&str>| {
        let input = hook_input(project, "c1", "Bash", json!({ "command": command }));
        let env: Vec<(&str, &str)> = prefix
            .map(|p| ("CLAUDE_CODE_SHELL_PREFIX", p))
            .into_iter()
            .collect();
        run(PRE, project, &input, &env)
    };
    let confined = Command::new(&launcher)
        .arg("--probe")
        .status()
        .unwrap()
        .success();
    for command in [
        "cd \"$(git rev-parse --show-toplevel)\" && npm test",
        "export PATH=\"$HOME/.cargo/bin:$PATH\" && cargo test",
        ". ~/.nvm/nvm.sh",
        "f=$(echo src/m1.py); echo x > $f",
        "echo x | tee \"$OUT\"",
    ] {
        for prefix in [None, Some(copy.as_str()), Some("code-intel-sandbox")] {
            assert_denied(&bash(command, prefix));
        }
        let out = bash(command, Some(&launcher));
        if confined {
            assert_eq!(
                out.status.code(),
                Some(0),
                "{command}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                out.stdout.is_empty(),
                "{command}: no rewrite under the prefix"
            );
        } else {
            assert_denied(&out);
        }
    }
    for command in [
        "echo x > src/m1.py",
        "echo x > \"$HOME/.claude/settings.json\"",
        "cp /bin/true \"$D/code-intel-post-tool-use\"",
    ] {
        assert_denied(&bash(command, Some(&launcher)));
    }
    // Hook and launcher inside the project (Claude Code drops a prefix under a writable root of
    // its own sandbox, which the project is): not trusted.
    let inside = project.join("target/release");
    std::fs::create_dir_all(&inside).unwrap();
    for bin in ["code-intel-pre-tool-use", "code-intel-sandbox"] {
        std::fs::copy(Path::new(PRE).with_file_name(bin), inside.join(bin)).unwrap();
    }
    let input = hook_input(
        project,
        "c1",
        "Bash",
        json!({ "command": ". ~/.nvm/nvm.sh" }),
    );
    assert_denied(&run(
        &inside.join("code-intel-pre-tool-use").to_string_lossy(),
        project,
        &input,
        &[(
            "CLAUDE_CODE_SHELL_PREFIX",
            &inside.join("code-intel-sandbox").to_string_lossy(),
        )],
    ));
    // Only shell tools run under the prefix: an Edit is judged as before.
    let edit = hook_input(
        project,
        "c1",
        "Write",
        json!({ "file_path": project.join("src/m1.py"), "content": "x" }),
    );
    assert_denied(&run(
        PRE,
        project,
        &edit,
        &[("CLAUDE_CODE_SHELL_PREFIX", &launcher)],
    ));
}

/// In `bypassPermissions` without the prefix the hook itself wraps an allowed Bash call in the
/// launcher, so a write it cannot resolve is left to the kernel there too (while no session may
/// write): `t=$(mktemp); echo x > $t` runs, a run-time path into the repository is refused by the
/// kernel, and what the analysis resolves is still denied. In `default` mode (no rewrite) the
/// run-time targets stay denied.
#[test]
fn run_time_targets_pass_under_the_hooks_own_rewrite() {
    let sandbox = env!("CARGO_BIN_EXE_code-intel-sandbox");
    let confined = Command::new(sandbox)
        .arg("--probe")
        .status()
        .unwrap()
        .success();
    let dir = repo();
    let project = dir.path();
    let bash = |command: &str, mode: &str| {
        let mut input: Value = serde_json::from_str(&hook_input(
            project,
            "c1",
            "Bash",
            json!({ "command": command }),
        ))
        .unwrap();
        input["permission_mode"] = json!(mode);
        run(PRE, project, &input.to_string(), &[])
    };
    // (`t=$(mktemp); … > $t` is resolved to the temporary directory by the analysis itself;
    // a substitution with a redirection inside is not.)
    let read_only = "t=$(mktemp 2>/dev/null); echo x > $t; cat $t; rm $t";
    let run_time_write = "f=$(echo src/m1.py); echo y > $f";
    for command in [read_only, run_time_write] {
        assert_denied(&bash(command, "default"));
    }
    assert_denied(&bash("echo y > src/m1.py", "bypassPermissions"));
    if !confined {
        assert_denied(&bash(read_only, "bypassPermissions"));
        return;
    }
    let wrapped = |command: &str| -> String {
        let out = bash(command, "bypassPermissions");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{command}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let cmd = v["hookSpecificOutput"]["updatedInput"]["command"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(cmd.contains("code-intel-sandbox"), "{cmd}");
        cmd
    };
    let ran = |cmd: &str| {
        Command::new("bash")
            .arg("-c")
            .arg(cmd)
            .current_dir(project)
            .output()
            .unwrap()
    };
    let out = ran(&wrapped(read_only));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "x\n", "{out:?}");
    let out = ran(&wrapped(run_time_write));
    assert_eq!(
        std::fs::read_to_string(project.join("src/m1.py")).unwrap(),
        "x = 1\n",
        "{out:?}"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Permission denied"),
        "{out:?}"
    );
}
