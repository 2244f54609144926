//! Whole-process latency of the PreToolUse hook, next to a Rust hello-world.
//!
//! Run: `cargo bench -p code-intel-hooks --bench latency` (release profile). Each scenario spawns
//! the hook binary N times (default 300, `HOOK_BENCH_RUNS`) with the JSON on stdin, waits for exit,
//! and reports p50/p95/max wall time in milliseconds (`HOOK_BENCH_BIN_DIR=DIR`: the hook and
//! launcher in DIR instead, another build's, to compare two builds at one load). The hello-world is compiled with `rustc -O`
//! into a temp dir, so the floor of process creation on this machine is measured the same way.
//! The sandbox rows: the hook answering a Bash call with the `code-intel-sandbox` rewrite
//! (`bypassPermissions`), and the command `ls src` run by `bash -c` as it is, as rewritten, and
//! through the launcher as Claude Code's shell prefix (`bash -c "'code-intel-sandbox' 'ls
//! src'"`: the bench process stands in for Claude Code, `CLAUDE_PID` and working directory the
//! repository's, the READY session's plan computed by the launcher). The shell-prefix rows: the
//! hook with `CLAUDE_CODE_SHELL_PREFIX` naming the launcher next to it, where it checks the
//! prefix and Landlock before leaving run-time targets to the kernel (allowed there, denied
//! without the prefix).
#![allow(clippy::print_stdout, reason = "a bench reports on stdout")]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

fn time_runs(bin: &Path, args: &[&str], stdin: &str, cwd: &Path, runs: usize) -> Vec<f64> {
    time_runs_env(bin, args, stdin, cwd, &[], runs)
}

fn time_runs_env(
    bin: &Path,
    args: &[&str],
    stdin: &str,
    cwd: &Path,
    env: &[(&str, &str)],
    runs: usize,
) -> Vec<f64> {
    let mut out = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        let mut child = Command::new(bin)
            .args(args)
            .current_dir(cwd)
            .env("CLAUDE_PROJECT_DIR", cwd)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(stdin.as_bytes())
            .ok();
        child.wait().expect("wait");
        out.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    out.sort_by(|a, b| a.total_cmp(b));
    out
}

fn pct(v: &[f64], p: f64) -> f64 {
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

fn report(name: &str, v: &[f64]) {
    println!(
        "{name:<44} p50 {:>6.2} ms   p95 {:>6.2} ms   max {:>6.2} ms",
        pct(v, 0.5),
        pct(v, 0.95),
        v[v.len() - 1]
    );
}

fn main() {
    let runs: usize = std::env::var("HOOK_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    // `HOOK_BENCH_BIN_DIR`: measure the hook and launcher of another build (a directory holding
    // `code-intel-pre-tool-use` and `code-intel-sandbox`), to compare two builds at one load.
    let other = std::env::var_os("HOOK_BENCH_BIN_DIR")
        .map(|d| Path::new(&d).join("code-intel-pre-tool-use"));
    let hook = other
        .as_deref()
        .unwrap_or(Path::new(env!("CARGO_BIN_EXE_code-intel-pre-tool-use")));
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join("src")).expect("mkdir");
    std::fs::write(repo.join("src/app.py"), "def f():\n    pass\n").expect("write");
    std::fs::write(repo.join(".gitignore"), "target/\n").expect("write");

    let hello_src = dir.path().join("hello.rs");
    std::fs::write(&hello_src, "fn main() { println!(\"hello\"); }").expect("write");
    let hello = dir.path().join("hello");
    let ok = Command::new("rustc")
        .args(["-O", "-o"])
        .arg(&hello)
        .arg(&hello_src)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);

    // A READY session with src/ explored, bound to Claude Code session "bench".
    let root = code_intel_session::repo_path::RepoRoot::new(&repo).expect("root");
    let store = code_intel_session::session::store::SessionStore::new(root);
    let id = store
        .start(
            code_intel_session::vocab::Intent::Modify,
            "bench",
            Some("bench"),
        )
        .expect("start")
        .session_id;
    store
        .update(&id, |s| {
            s.phase = code_intel_session::vocab::Phase::Ready;
            s.explored.insert(
                code_intel_session::repo_path::RepoPath::parse_relative("src").expect("path"),
            );
        })
        .expect("update");

    let file = repo.join("src/app.py");
    let input = |sid: &str, tool: &str, tool_input: serde_json::Value| {
        serde_json::json!({"session_id": sid, "cwd": repo, "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input}).to_string()
    };
    println!("PreToolUse whole-process latency, {runs} runs each");
    if ok {
        report(
            "rust hello-world (rustc -O)",
            &time_runs(&hello, &[], "", &repo, runs),
        );
    }
    report(
        "Write, no session (deny)",
        &time_runs(
            hook,
            &[],
            &input(
                "nobody",
                "Write",
                serde_json::json!({"file_path": file, "content": "x"}),
            ),
            &repo,
            runs,
        ),
    );
    report(
        "Edit, READY + explored (allow)",
        &time_runs(
            hook,
            &[],
            &input(
                "bench",
                "Edit",
                serde_json::json!({"file_path": file, "old_string": "a", "new_string": "b"}),
            ),
            &repo,
            runs,
        ),
    );
    report(
        "Bash `sed -i` on explored file (allow)",
        &time_runs(
            hook,
            &[],
            &input(
                "bench",
                "Bash",
                serde_json::json!({"command": "sed -i 's/a/b/' src/app.py && cargo test 2>&1 | tail"}),
            ),
            &repo,
            runs,
        ),
    );
    // The kernel sandbox (bypassPermissions): the hook's rewrite, then the command's own cost.
    let sandboxed = |command: &str| {
        let mut v: serde_json::Value = serde_json::from_str(&input(
            "bench",
            "Bash",
            serde_json::json!({ "command": command }),
        ))
        .expect("json");
        v["permission_mode"] = serde_json::json!("bypassPermissions");
        v.to_string()
    };
    report(
        "Bash `sed -i` explored, sandbox rewrite",
        &time_runs(
            hook,
            &[],
            &sandboxed("sed -i 's/a/b/' src/app.py"),
            &repo,
            runs,
        ),
    );
    let rewritten = Command::new(hook)
        .current_dir(&repo)
        .env("CLAUDE_PROJECT_DIR", &repo)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin
                .take()
                .expect("stdin")
                .write_all(sandboxed("ls src").as_bytes())?;
            c.wait_with_output()
        })
        .ok()
        .and_then(|o| serde_json::from_slice::<serde_json::Value>(&o.stdout).ok())
        .and_then(|v| {
            v["hookSpecificOutput"]["updatedInput"]["command"]
                .as_str()
                .map(str::to_owned)
        });
    let bash = Path::new("/bin/bash");
    report(
        "command `bash -c 'ls src'`",
        &time_runs(bash, &["-c", "ls src"], "", &repo, runs),
    );
    match rewritten {
        Some(wrapped) => report(
            "command `ls src` under code-intel-sandbox",
            &time_runs(bash, &["-c", &wrapped], "", &repo, runs),
        ),
        None => println!("(no sandbox rewrite: code-intel-sandbox not built next to the hook?)"),
    }
    let sandbox = hook.with_file_name("code-intel-sandbox");
    if sandbox.is_file() && std::env::set_current_dir(&repo).is_ok() {
        let pid = std::process::id().to_string();
        let line = format!("'{}' 'ls src'", sandbox.display());
        // Timed only if it really lists (a refused command would be faster).
        let once = Command::new(bash)
            .args(["-c", &line])
            .current_dir(&repo)
            .env("CLAUDE_PID", &pid)
            .env("CLAUDE_CODE_SESSION_ID", "bench")
            .output()
            .expect("spawn");
        assert_eq!(
            String::from_utf8_lossy(&once.stdout),
            "app.py\n",
            "{}",
            String::from_utf8_lossy(&once.stderr)
        );
        report(
            "command `ls src` through the shell prefix",
            &time_runs_env(
                bash,
                &["-c", &line],
                "",
                &repo,
                &[
                    ("CLAUDE_PID", pid.as_str()),
                    ("CLAUDE_CODE_SESSION_ID", "bench"),
                ],
                runs,
            ),
        );
    }
    // Under Claude Code's shell prefix (the launcher next to the hook): the hook checks that the
    // prefix is that launcher and that Landlock is fully enforced before it leaves run-time
    // targets to the kernel (`Kernel::Confines`).
    let launcher = hook.with_file_name("code-intel-sandbox");
    let prefix = [(
        "CLAUDE_CODE_SHELL_PREFIX",
        launcher.to_str().expect("utf-8"),
    )];
    for (name, command) in [
        ("Bash `ls src`, no session", "ls src"),
        (
            "Bash run-time `cd \"$(git …)\" && npm test`",
            "cd \"$(git rev-parse --show-toplevel)\" && npm test",
        ),
    ] {
        let call = input("nobody", "Bash", serde_json::json!({ "command": command }));
        report(name, &time_runs(hook, &[], &call, &repo, runs));
        report(
            &format!("{name}, shell prefix"),
            &time_runs_env(hook, &[], &call, &repo, &prefix, runs),
        );
    }
    report(
        "Bash read-only `grep -rn foo src` (allow)",
        &time_runs(
            hook,
            &[],
            &input(
                "nobody",
                "Bash",
                serde_json::json!({"command": "grep -rn foo src | head -5"}),
            ),
            &repo,
            runs,
        ),
    );
}
