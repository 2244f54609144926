//! A user's first minutes with the npm distribution, end to end: the packed tarballs
//! (`scripts/npm-pack.sh`: `@code-intel/cli` and `@code-intel/cli-<platform>`) installed into a
//! fresh npm prefix with no `cargo` or `rustc` on PATH, `npx code-intel init` in a fresh
//! repository (the hooks, server and launcher by absolute path, then `code-intel doctor`, which
//! must pass), and a gated `/code` session in the pinned Claude Code whose PATH holds neither the
//! workspace's binaries nor the npm prefix: a Write before the session is denied, the server
//! starts a session, and a repository script's write into source fails under the kernel sandbox.
//! The time from nothing (tarballs on disk) to that first gated session is printed.
//!
//! Tarballs: `$CODE_INTEL_NPM_DIR` (the two `.tgz` of `scripts/dist.sh`, release binaries), else
//! packed here from the workspace's debug binaries with their debug info stripped.
//!
//! Needs node and npm, `scripts/install-claude-code.sh` and `cargo build --workspace --bins`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail, ensure};
use code_intel_e2e::claude_config::{POST_TOOL_USE_BIN, PRE_TOOL_USE_BIN, SERVER_BIN};
use code_intel_e2e::locate::workspace_root;
use code_intel_e2e::{ClaudeCase, Step, locate_claude, require_binaries, workspace_binary};
use serde_json::{Value, json};

const SANDBOX_BIN: &str = "code-intel-sandbox";
const BINARIES: [&str; 4] = [SERVER_BIN, PRE_TOOL_USE_BIN, POST_TOOL_USE_BIN, SANDBOX_BIN];
const SCRIPT: &str = "scripts/build.sh";
const TARGET: &str = "src/billing/invoice.py";

fn which(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

fn checked(out: Output, what: &str) -> Result<String> {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    ensure!(
        out.status.success(),
        "{what} failed ({}):\n{text}",
        out.status
    );
    Ok(text)
}

/// The two tarballs (CLI first): from `$CODE_INTEL_NPM_DIR`, else packed from the debug build.
fn tarballs(scratch: &Path) -> Result<Vec<PathBuf>> {
    if let Some(dir) = std::env::var_os("CODE_INTEL_NPM_DIR") {
        let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "tgz"))
            .collect();
        found.sort_by_key(|p| p.to_string_lossy().contains("-linux-"));
        ensure!(
            found.len() == 2,
            "want two .tgz in {dir:?}, found {found:?}"
        );
        return Ok(found);
    }
    let bins = scratch.join("bin");
    std::fs::create_dir_all(&bins)?;
    for bin in BINARIES {
        let from = workspace_binary(bin)?;
        let to = bins.join(bin);
        // Debug info is most of a debug binary; npm would gzip it for minutes.
        let stripped = Command::new("objcopy")
            .arg("--strip-debug")
            .arg(&from)
            .arg(&to)
            .status()
            .is_ok_and(|s| s.success());
        if !stripped {
            std::fs::copy(&from, &to)?;
        }
    }
    let out = Command::new("bash")
        .arg(workspace_root().join("scripts/npm-pack.sh"))
        .arg("--bin-dir")
        .arg(&bins)
        .arg("--out")
        .arg(scratch.join("npm"))
        .output()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    checked(out, "scripts/npm-pack.sh")?;
    Ok(text.lines().map(PathBuf::from).collect())
}

#[test]
fn npm_tarballs_install_init_and_gate_a_first_session_without_rust() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    require_binaries(&BINARIES)?;
    let (Some(node), Some(npm), Some(npx)) = (which("node"), which("npm"), which("npx")) else {
        bail!("node, npm and npx are needed on PATH (Node >= 18)");
    };
    let node_dir = node.parent().context("node's directory")?.to_owned();
    ensure!(
        npm.parent() == Some(node_dir.as_path()) && npx.parent() == Some(node_dir.as_path()),
        "npm and npx are expected next to node"
    );
    // The user's PATH: Node and the system, no Rust toolchain.
    let base_path = format!("{}:/usr/bin:/bin", node_dir.display());
    for dir in std::env::split_paths(&base_path) {
        for tool in ["cargo", "rustc"] {
            ensure!(
                !dir.join(tool).exists(),
                "{tool} is in {}: the test needs a PATH without Rust",
                dir.display()
            );
        }
    }
    let scratch = tempfile::tempdir()?;
    let packs = tarballs(scratch.path())?;

    let started = Instant::now();
    let mut case = ClaudeCase::new()?;
    let home = case.case_dir().join("home");
    let prefix = case.case_dir().join("npm-prefix");
    // 1. Install into a fresh prefix, offline (the tarballs are all it needs).
    let out = Command::new(&npm)
        .args([
            "install",
            "-g",
            "--offline",
            "--no-audit",
            "--no-fund",
            "--prefix",
        ])
        .arg(&prefix)
        .args(packs.iter().rev())
        .env_clear()
        .env("PATH", &base_path)
        .env("HOME", &home)
        .output()?;
    checked(out, "npm install")?;
    let installed = started.elapsed();

    // 2. `npx code-intel init` in a fresh git repository.
    let project = case.project_dir().to_owned();
    checked(
        Command::new("git")
            .args(["init", "-q"])
            .current_dir(&project)
            .output()?,
        "git init",
    )?;
    case.write(SCRIPT, &format!("echo '# pwned' >> {TARGET}\n"))?;
    let original = case.read(TARGET)?.context("fixture")?;
    let out = Command::new(&npx)
        .args(["--no-install", "code-intel", "init"])
        .current_dir(&project)
        .env_clear()
        .env(
            "PATH",
            format!("{}:{base_path}", prefix.join("bin").display()),
        )
        .env("HOME", &home)
        .env("npm_config_prefix", &prefix)
        .env("npm_config_offline", "true")
        .env("CODE_INTEL_LOG", "warn")
        .output()?;
    let report = checked(out, "npx code-intel init")?;
    ensure!(
        report.contains("PASS  hooks")
            && report.contains("PASS  fail-closed")
            && report.contains(" 0 failed"),
        "doctor did not pass:\n{report}"
    );
    let initialised = started.elapsed();
    let settings: Value = serde_json::from_str(&std::fs::read_to_string(
        project.join(".claude/settings.json"),
    )?)?;
    let platform_bin = prefix.join("lib/node_modules/@code-intel");
    let pre = settings
        .pointer("/hooks/PreToolUse/0/hooks/0")
        .context("no PreToolUse hook")?;
    ensure!(
        pre["command"]
            .as_str()
            .is_some_and(|c| c.starts_with(&*platform_bin.to_string_lossy())
                && c.ends_with(PRE_TOOL_USE_BIN))
            && pre["onFailure"] == "block",
        "the hook does not run the npm package's binary by absolute path: {pre}"
    );

    // 3. A gated /code session, with neither the workspace's nor the prefix's binaries on PATH.
    let request = "add a farewell function next to the greeting";
    case.prompt(&format!("/code {request}"))
        .search_path(&format!("{base_path}:/usr/local/bin"));
    case.script(vec![
        Step::tool(
            "Write",
            json!({ "file_path": case.path_str("src/farewell.py"), "content": "def farewell():\n    return 'bye'\n" }),
        ),
        Step::tool(
            "mcp__code-intel__start_session",
            json!({ "intent": "IMPLEMENT", "query": request }),
        ),
        Step::tool(
            "Bash",
            json!({ "command": format!("bash {SCRIPT}"), "description": "npm e2e" }),
        ),
        Step::text("Started."),
    ]);
    case.arg("--allowedTools")
        .arg(&format!("Bash(bash {SCRIPT})"));
    let run = case.run(&claude)?;
    let first_session = started.elapsed();

    let denied = run.tool_result(0, 0).context("no result for the Write")?;
    ensure!(
        denied.is_error && denied.content.starts_with("PreToolUse:Write hook error: "),
        "{denied:?}\n{}",
        run.describe()
    );
    ensure!(case.read("src/farewell.py")?.is_none(), "the Write landed");
    let started_session = run
        .tool_result(1, 0)
        .context("no result for start_session")?;
    ensure!(
        !started_session.is_error && started_session.content.contains("session_id"),
        "{started_session:?}\n{}",
        run.describe()
    );
    let script = run.tool_result(2, 0).context("no result for the script")?;
    ensure!(
        script.content.contains("Permission denied") && case.read(TARGET)? == Some(original),
        "the kernel did not refuse the script's write: {script:?}\n{}",
        run.describe()
    );
    #[allow(clippy::print_stderr, reason = "the measurement is this test's report")]
    {
        let secs = |d: Duration| d.as_secs_f64();
        eprintln!(
            "npm e2e timing (model download excluded): npm install {:.1} s, npx code-intel init + doctor {:.1} s, \
             first gated session done {:.1} s after start",
            secs(installed),
            secs(initialised - installed),
            secs(first_session)
        );
    }
    Ok(())
}
