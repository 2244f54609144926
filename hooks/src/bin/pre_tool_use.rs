//! `code-intel-pre-tool-use`: the PreToolUse hook. Denies writes the gate refuses; fails closed.
//!
//! Every path ends in a deliberate decision: a panic, unreadable stdin, malformed JSON or an
//! internal error all deny (JSON on stdout + reason on stderr + exit 2), and so does the watchdog
//! when the decision takes longer than `WATCHDOG_AFTER` (something blocked: Claude Code would run
//! the tool once its hook timeout passed). Allow prints nothing and exits 0. `--self-check` runs a synthetic Write through the gate in a temporary directory and
//! exits 0 only if it is denied (for `code-intel doctor`). `--classify NAME…` prints each tool's
//! class in the gate's tool table and exits 1 if one is unknown (for the e2e test that checks the
//! table against the tools the pinned Claude Code offers).
#![allow(
    clippy::print_stderr,
    clippy::print_stdout,
    reason = "stdout/stderr are the hook output contract"
)]

use std::io::Write;
use std::process::ExitCode;

use code_intel_gate::gate::{ConfigLocations, Verdict};
use code_intel_hooks::{
    WATCHDOG, WATCHDOG_AFTER, claude_config_dir, config_locations, decide_pre, deny_json,
    project_dir, read_input, rewrite_confined, sandbox_rewrite, session_env_confined,
    shell_confined,
};

const TIMEOUT_REASON: &str = "code-intel gate could not decide within 2 s (something blocked: a FIFO or device where a file should be, a held lock, a stuck disk), so it blocked this call to be safe; run `code-intel doctor`";

fn print_deny(reason: &str) {
    let mut out = std::io::stdout().lock();
    // Exit 2 blocks even if stdout is gone, so a failed write changes nothing.
    writeln!(out, "{}", deny_json(reason)).ok();
    out.flush().ok();
    eprintln!("{reason}");
}

/// The decision, and for an allowed Bash call the sandbox rewrite to print instead of silence.
fn decide() -> (Verdict, Option<String>) {
    // Fault injection for the tests of the fail-closed paths (hooks/tests/processes.rs and the
    // Claude Code e2e test run the debug binaries). Compiled out of release builds, which are what
    // `cargo install` and scripts/main.sh install: a production hook reads no such variable.
    #[cfg(debug_assertions)]
    match std::env::var("CODE_INTEL_HOOK_FAULT").as_deref() {
        Ok("panic") => panic!("injected fault (CODE_INTEL_HOOK_FAULT=panic)"),
        Ok("hang") => loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        },
        _ => {}
    }
    let input = match read_input(std::io::stdin().lock()) {
        Ok(i) => i,
        Err(e) => {
            return (
                Verdict::Deny {
                    reason: format!("code-intel gate blocked this call: {e}"),
                },
                None,
            );
        }
    };
    let project = match project_dir(
        &input,
        std::env::var_os("CLAUDE_PROJECT_DIR").map(Into::into),
    ) {
        Ok(p) => p,
        Err(e) => {
            return (
                Verdict::Deny {
                    reason: format!("code-intel gate blocked this call: {e}"),
                },
                None,
            );
        }
    };
    let locations = config_locations();
    let exe = std::env::current_exe().unwrap_or_default();
    let prefix = std::env::var_os(code_intel_hooks::shell_prefix::PREFIX_ENV);
    // The plugin's way to the sandbox (its SessionStart line); confines like the prefix.
    let session_env = session_env_confined(
        &input,
        &project,
        claude_config_dir(&locations).as_deref(),
        &exe,
    );
    let confined = session_env
        || shell_confined(&input, &project, prefix.as_deref(), &exe)
        || rewrite_confined(&input, &project, prefix.as_deref(), &exe);
    let verdict = decide_pre(&input, &project, &locations, confined);
    if verdict != Verdict::Allow || session_env {
        return (verdict, None);
    }
    match sandbox_rewrite(&input, &project, &locations, &exe, prefix.as_deref()) {
        Ok(rewrite) => (Verdict::Allow, rewrite),
        Err(e) => (
            Verdict::Deny {
                reason: format!(
                    "code-intel gate could not prepare the write sandbox for this command ({e}), so it was blocked to be safe; run `code-intel doctor`"
                ),
            },
            None,
        ),
    }
}

fn self_check() -> ExitCode {
    let dir = std::env::temp_dir().join(format!("code-intel-self-check-{}", std::process::id()));
    let result = (|| -> Result<Verdict, String> {
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let input = format!(
            r#"{{"session_id":"self-check","cwd":{cwd},"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{{"file_path":{file},"content":"x"}}}}"#,
            cwd = serde_json::Value::String(dir.display().to_string()),
            file = serde_json::Value::String(dir.join("probe.txt").display().to_string()),
        );
        let parsed = read_input(input.as_bytes()).map_err(|e| e.to_string())?;
        Ok(decide_pre(
            &parsed,
            &dir,
            &ConfigLocations::default(),
            false,
        ))
    })();
    std::fs::remove_dir_all(&dir).ok();
    match result {
        Ok(Verdict::Deny { .. }) => {
            eprintln!("ok: a Write without a code-intel session is denied");
            ExitCode::SUCCESS
        }
        Ok(Verdict::Allow) => {
            eprintln!("FAILED: a Write without a session was allowed (gate_mode off?)");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}

fn classify(names: &[String]) -> ExitCode {
    let mut unknown = false;
    for n in names {
        let class = code_intel_hooks::tools::classify(n);
        unknown |= class == code_intel_hooks::tools::ToolClass::Unknown;
        println!("{n}\t{class:?}");
    }
    if unknown {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--self-check") => return self_check(),
        Some("--classify") => return classify(&args[1..]),
        _ => {}
    }
    WATCHDOG.arm(WATCHDOG_AFTER, || print_deny(TIMEOUT_REASON), 2);
    // The default panic message goes to stderr, which is fine; stdout stays ours.
    let (verdict, rewrite) = std::panic::catch_unwind(decide).unwrap_or_else(|_| {
        (
            Verdict::Deny {
                reason: "code-intel gate crashed while checking this call, so it was blocked to be safe; run `code-intel doctor` and report the stderr above".into(),
            },
            None,
        )
    });
    let code = match &verdict {
        Verdict::Allow => ExitCode::SUCCESS,
        Verdict::Deny { .. } => ExitCode::from(2),
    };
    // If the watchdog printed first it also exits the process; this never returns then.
    if WATCHDOG.decide(|| match (&verdict, &rewrite) {
        (Verdict::Deny { reason }, _) => print_deny(reason),
        // Allowed, run under the kernel sandbox: updatedInput without a permission decision
        // (Claude Code's own permission flow still applies; observed with 2.1.328).
        (Verdict::Allow, Some(json)) => {
            let mut out = std::io::stdout().lock();
            writeln!(out, "{json}").ok();
            out.flush().ok();
        }
        (Verdict::Allow, None) => {}
    }) {
        code
    } else {
        ExitCode::from(2)
    }
}
