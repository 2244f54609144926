//! `code-intel doctor` through the real binary, on a repository set up by `code-intel init`, with
//! PATH holding the built binaries: the hook check and the synthetic gated Write pass; a broken
//! hook configuration or missing binaries FAIL with their fix and exit code 1; index freshness.
//!
//! The hook binaries come from the same target directory as `code-intel` (`cargo build
//! --workspace`, which the README's test command runs first); a missing one fails the test with
//! that instruction.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// The directory holding the built `code-intel` and, after `cargo build --workspace`, the hooks.
fn bin_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_BIN_EXE_code-intel"))
        .parent()
        .unwrap()
        .to_path_buf();
    for hook in ["code-intel-pre-tool-use", "code-intel-post-tool-use"] {
        assert!(
            dir.join(hook).is_file(),
            "{hook} is not built in {}: run `cargo build --workspace` (or `cargo build -p code-intel-hooks`) first",
            dir.display()
        );
    }
    dir
}

struct Repo {
    dir: tempfile::TempDir,
    /// HOME and CLAUDE_CONFIG_DIR: empty, so the user's own settings stay out.
    home: tempfile::TempDir,
}

impl Repo {
    fn initialised() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(
            dir.path().join("src/greet.py"),
            "def greet(name):\n    return f'hello {name}'\n",
        )
        .unwrap();
        let repo = Self {
            dir,
            home: tempfile::tempdir().unwrap(),
        };
        let out = repo.run(&["init"], &bin_dir());
        assert!(out.status.success(), "{}", text(&out.stderr));
        repo
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn run(&self, args: &[&str], path_dir: &Path) -> Output {
        Command::new(env!("CARGO_BIN_EXE_code-intel"))
            .args(args)
            .arg("--repo")
            .arg(self.path())
            .current_dir(self.path())
            .env_clear()
            .env("PATH", format!("{}:/usr/bin:/bin", path_dir.display()))
            .env("HOME", self.home.path())
            .env("CLAUDE_CONFIG_DIR", self.home.path().join(".claude"))
            // An empty model cache: the model check WARNs at once instead of loading a model.
            .env("CODE_INTEL_MODEL_DIR", self.home.path().join("models"))
            .env("CODE_INTEL_LOG", "warn")
            .output()
            .unwrap()
    }

    /// `doctor --json`: (exit code, report).
    fn doctor(&self, path_dir: &Path) -> (Option<i32>, Value) {
        let out = self.run(&["doctor", "--json"], path_dir);
        let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "doctor printed no JSON ({e}): {}\n{}",
                text(&out.stdout),
                text(&out.stderr)
            )
        });
        (out.status.code(), report)
    }
}

fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).into_owned()
}

fn check<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no {name} check in {report:#}"))
}

#[test]
fn an_initialised_repository_passes_the_hook_and_gate_checks() {
    let repo = Repo::initialised();
    let bins = bin_dir();
    let (code, report) = repo.doctor(&bins);
    for name in [
        "binaries",
        "config",
        "server",
        "permission",
        "hooks",
        "gate",
    ] {
        assert_eq!(check(&report, name)["status"], "pass", "{report:#}");
    }
    let gate = check(&report, "gate")["detail"].as_str().unwrap();
    assert!(gate.contains("denied"), "{gate}");
    // The synthetic Write was judged by the real gate: it journals the denial.
    let journal =
        std::fs::read_to_string(repo.path().join(".code-intel/journal/gate.jsonl")).unwrap();
    assert!(journal.contains("code-intel-doctor-probe.txt"), "{journal}");
    // No model in the cache is a warning with the fetch command, not a failure.
    let model = check(&report, "model");
    assert_eq!(model["status"], "warn", "{report:#}");
    assert_eq!(model["fix"], "run `code-intel model fetch`");
    assert_eq!(check(&report, "index")["status"], "warn", "not built yet");
    assert_eq!(report["ok"], true, "{report:#}");
    assert_eq!(code, Some(0));

    // The index check follows the working tree.
    assert!(repo.run(&["index"], &bins).status.success());
    let (_, report) = repo.doctor(&bins);
    assert_eq!(check(&report, "index")["status"], "pass", "{report:#}");
    std::fs::write(repo.path().join("src/new.py"), "X = 1\n").unwrap();
    let (code, report) = repo.doctor(&bins);
    let index = check(&report, "index");
    assert_eq!(index["status"], "warn", "{report:#}");
    assert!(
        index["detail"].as_str().unwrap().contains("1 added"),
        "{index}"
    );
    assert_eq!(code, Some(0), "a stale index is not a failure");

    // Text output: one line per check and the summary.
    let out = repo.run(&["doctor"], &bins);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("PASS  hooks"), "{stdout}");
    assert!(
        stdout.contains("fix: run `code-intel model fetch`"),
        "{stdout}"
    );
}

#[test]
fn a_broken_hook_configuration_fails_with_the_fix() {
    let repo = Repo::initialised();
    let bins = bin_dir();
    let settings_path = repo.path().join(".claude/settings.json");
    let good = std::fs::read_to_string(&settings_path).unwrap();

    // A mistyped hook path: the installed form (onFailure block) then blocks every tool (a plain
    // exec form would let every write through); either way the gate is not working.
    let broken = good.replace(
        "\"command\": \"code-intel-pre-tool-use\"",
        "\"command\": \"/nonexistent/code-intel-pre-tool-use\"",
    );
    assert_ne!(
        broken, good,
        "the installed PreToolUse command changed: {good}"
    );
    std::fs::write(&settings_path, broken).unwrap();
    let (code, report) = repo.doctor(&bins);
    assert_eq!(code, Some(1), "{report:#}");
    assert_eq!(report["ok"], false);
    let hooks = check(&report, "hooks");
    assert_eq!(hooks["status"], "fail", "{report:#}");
    assert!(
        hooks["detail"]
            .as_str()
            .unwrap()
            .contains("/nonexistent/code-intel-pre-tool-use"),
        "{hooks}"
    );
    assert!(
        hooks["fix"].as_str().unwrap().contains("code-intel init"),
        "{hooks}"
    );
    assert_ne!(check(&report, "gate")["status"], "pass", "{report:#}");

    // The hook without "onFailure": "block": a timeout would let the call through.
    std::fs::write(
        &settings_path,
        good.replace(r#""onFailure": "block""#, r#""onFailure": "continue""#),
    )
    .unwrap();
    let (code, report) = repo.doctor(&bins);
    assert_eq!(code, Some(1), "{report:#}");
    let fail_closed = check(&report, "fail-closed");
    assert_eq!(fail_closed["status"], "fail", "{report:#}");
    assert!(
        fail_closed["detail"].as_str().unwrap().contains("timeout"),
        "{fail_closed}"
    );
    assert_eq!(check(&report, "hooks")["status"], "pass", "{report:#}");

    // A matcher that misses Bash and NotebookEdit.
    std::fs::write(
        &settings_path,
        good.replacen(r#""matcher": "*""#, r#""matcher": "Edit|Write""#, 1),
    )
    .unwrap();
    let (code, report) = repo.doctor(&bins);
    assert_eq!(code, Some(1));
    let detail = check(&report, "hooks")["detail"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        detail.contains("misses NotebookEdit, Bash, Monitor, EnterWorktree, CronCreate"),
        "{detail}"
    );

    // `code-intel init` repairs it.
    assert!(repo.run(&["init"], &bins).status.success());
    let (code, report) = repo.doctor(&bins);
    assert_eq!(check(&report, "hooks")["status"], "pass", "{report:#}");
    assert_eq!(code, Some(0));
}

#[test]
fn missing_binaries_fail() {
    let repo = Repo::initialised();
    // A PATH with only the server: the hooks are missing.
    let only_server = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_code-intel"),
        only_server.path().join("code-intel"),
    )
    .unwrap();
    let (code, report) = repo.doctor(only_server.path());
    assert_eq!(code, Some(1));
    let binaries = check(&report, "binaries");
    assert_eq!(binaries["status"], "fail");
    assert!(
        binaries["detail"]
            .as_str()
            .unwrap()
            .contains("code-intel-pre-tool-use, code-intel-post-tool-use"),
        "{binaries}"
    );
    assert_eq!(check(&report, "gate")["status"], "fail", "{report:#}");
}

#[test]
fn an_enabled_plugin_counts_as_the_hook_and_server_configuration() {
    let repo = Repo::initialised();
    let bins = bin_dir();
    // No project server or hooks: the plugin, enabled in the project settings, provides them.
    std::fs::remove_file(repo.path().join(".mcp.json")).unwrap();
    std::fs::write(
        repo.path().join(".claude/settings.json"),
        r#"{"enabledPlugins": {"code-intel@local": true},
            "permissions": {"allow": ["mcp__plugin_code-intel_code-intel"]}}"#,
    )
    .unwrap();
    let (code, report) = repo.doctor(&bins);
    for name in ["server", "permission", "hooks", "gate"] {
        assert_eq!(check(&report, name)["status"], "pass", "{report:#}");
    }
    assert!(
        check(&report, "hooks")["detail"]
            .as_str()
            .unwrap()
            .contains("the code-intel plugin"),
        "{report:#}"
    );
    assert_eq!(code, Some(0));

    // Disabled: nothing configures the gate any more.
    std::fs::write(
        repo.path().join(".claude/settings.json"),
        r#"{"enabledPlugins": {"code-intel@local": false}}"#,
    )
    .unwrap();
    let (code, report) = repo.doctor(&bins);
    assert_eq!(check(&report, "server")["status"], "fail", "{report:#}");
    assert_eq!(check(&report, "hooks")["status"], "fail", "{report:#}");
    assert_eq!(code, Some(1));
}

/// Runs the real PreToolUse hook for a Write of `src/greet.py` by Claude Code session `c1`;
/// its exit code (0 allow, 2 deny).
fn hook_exit(repo: &Repo) -> Option<i32> {
    use std::io::Write as _;
    let input = serde_json::json!({
        "session_id": "c1",
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": repo.path().join("src/greet.py"), "content": "x = 1\n"},
        "cwd": repo.path(),
    });
    let mut child = Command::new(bin_dir().join("code-intel-pre-tool-use"))
        .env_clear()
        .env("CLAUDE_PROJECT_DIR", repo.path())
        .env("HOME", repo.home.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    child.wait_with_output().unwrap().status.code()
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

/// Each corrupted session or binding state: the hook denies the write (exit 2), and doctor's
/// `sessions` check FAILs naming the file, with a fix, and exits 1.
#[test]
fn doctor_fails_on_every_state_the_hook_denies_on() {
    let binding = |session: &str| {
        format!(r#"{{"version":1,"session_id":"{session}","bound_at":"2026-01-01T00:00:00Z"}}"#)
    };
    type Setup = Box<dyn Fn(&Path)>;
    let write = |rel: &'static str, body: String| -> Setup {
        Box::new(move |state: &Path| std::fs::write(state.join(rel), &body).unwrap())
    };
    let cases: Vec<(&str, Vec<Setup>, &str)> = vec![
        (
            "binding not JSON",
            vec![write("bindings/c1.json", "garbage".into())],
            "bindings/c1.json",
        ),
        (
            "binding to a missing session",
            vec![write("bindings/c1.json", binding("s1"))],
            "bindings/c1.json",
        ),
        (
            "session not JSON",
            vec![
                write("bindings/c1.json", binding("s1")),
                write("sessions/s1.json", "{not json".into()),
            ],
            "sessions/s1.json",
        ),
        (
            "session of an unknown version",
            vec![
                write("bindings/c1.json", binding("s1")),
                write("sessions/s1.json", r#"{"version":999}"#.into()),
            ],
            "sessions/s1.json",
        ),
        (
            "session is a FIFO",
            vec![
                write("bindings/c1.json", binding("s1")),
                Box::new(|state: &Path| mkfifo(&state.join("sessions/s1.json"))),
            ],
            "sessions/s1.json",
        ),
        (
            "binding is a FIFO",
            vec![Box::new(|state: &Path| {
                mkfifo(&state.join("bindings/c1.json"))
            })],
            "bindings/c1.json",
        ),
    ];
    let bins = bin_dir();
    for (what, setup, file) in cases {
        let repo = Repo::initialised();
        let state = repo.path().join(".code-intel");
        std::fs::create_dir_all(state.join("sessions")).unwrap();
        std::fs::create_dir_all(state.join("bindings")).unwrap();
        for s in &setup {
            s(&state);
        }
        assert_eq!(hook_exit(&repo), Some(2), "{what}: the hook denies");
        let (code, report) = repo.doctor(&bins);
        assert_eq!(code, Some(1), "{what}: doctor fails: {report:#}");
        let c = check(&report, "sessions");
        assert_eq!(c["status"], "fail", "{what}: {c:#}");
        assert!(
            c["detail"].as_str().unwrap().contains(file),
            "{what}: {c:#}"
        );
        assert!(
            c["fix"].as_str().unwrap().contains("remove"),
            "{what}: {c:#}"
        );
    }
    // And a clean repository passes the check.
    let repo = Repo::initialised();
    let (_, report) = repo.doctor(&bins);
    assert_eq!(check(&report, "sessions")["status"], "pass", "{report:#}");
}

#[test]
fn the_sandbox_check_reports_kernel_enforcement() {
    let repo = Repo::initialised();
    let bins = bin_dir();
    assert!(
        bins.join("code-intel-sandbox").is_file(),
        "code-intel-sandbox is not built: run `cargo build -p code-intel-hooks`"
    );
    let (_, report) = repo.doctor(&bins);
    let sandbox = check(&report, "sandbox");
    assert_eq!(sandbox["status"], "pass", "{report:#}");
    let detail = sandbox["detail"].as_str().unwrap();
    assert!(detail.contains("Landlock"), "{sandbox}");
    assert!(
        detail.contains("every permission mode")
            && detail.contains("CLAUDE_CODE_SHELL_PREFIX in .claude/settings.local.json"),
        "{sandbox}"
    );

    // The prefix init wrote, pointing at a launcher that is gone: Claude Code could run no Bash
    // command and the PreToolUse hook started through it would not block.
    let local = repo.path().join(".claude/settings.local.json");
    let written = std::fs::read_to_string(&local).unwrap();
    let launcher = bins.join("code-intel-sandbox").canonicalize().unwrap();
    assert!(
        written.contains(launcher.to_str().unwrap()),
        "init wrote {written}"
    );
    std::fs::write(
        &local,
        written.replace(
            launcher.to_str().unwrap(),
            "/nonexistent/code-intel-sandbox",
        ),
    )
    .unwrap();
    let (code, report) = repo.doctor(&bins);
    let sandbox = check(&report, "sandbox");
    assert_eq!(sandbox["status"], "fail", "{report:#}");
    assert!(
        sandbox["detail"]
            .as_str()
            .unwrap()
            .contains("does not block"),
        "{sandbox}"
    );
    assert_eq!(code, Some(1), "{report:#}");

    // No prefix: the launcher serves bypassPermissions only, which the warning says.
    std::fs::remove_file(&local).unwrap();
    let (code, report) = repo.doctor(&bins);
    let sandbox = check(&report, "sandbox");
    assert_eq!(sandbox["status"], "warn", "{report:#}");
    assert!(
        sandbox["detail"]
            .as_str()
            .unwrap()
            .contains("only in bypassPermissions"),
        "{sandbox}"
    );
    assert_eq!(code, Some(0), "a warning, not a failure: {report:#}");

    // The hooks without the launcher beside them (and no prefix): a warning that says what
    // that means.
    let no_launcher = tempfile::tempdir().unwrap();
    for bin in [
        "code-intel",
        "code-intel-pre-tool-use",
        "code-intel-post-tool-use",
    ] {
        std::os::unix::fs::symlink(bins.join(bin), no_launcher.path().join(bin)).unwrap();
    }
    let (code, report) = repo.doctor(no_launcher.path());
    let sandbox = check(&report, "sandbox");
    assert_eq!(sandbox["status"], "warn", "{report:#}");
    assert!(
        sandbox["detail"]
            .as_str()
            .unwrap()
            .contains("Bash writes are checked by static analysis only"),
        "{sandbox}"
    );
    assert_eq!(code, Some(0), "a warning, not a failure: {report:#}");
}
