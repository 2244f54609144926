//! The hook binaries as real processes: the output contract, fail-closed paths, and concurrent
//! PostToolUse writers on one session.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use code_intel_core::repo_path::{RepoPath, RepoRoot};
use code_intel_core::session::store::SessionStore;
use code_intel_core::session::{Intent, Phase};
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
    assert!(assert_denied(&out).contains("start_session"));
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
    store
        .update(&id, |s| {
            s.phase = Phase::Ready;
            s.explored
                .insert(RepoPath::parse_relative("src/m1.py").unwrap());
        })
        .unwrap();
    let out = run(PRE, dir.path(), &edit, &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
