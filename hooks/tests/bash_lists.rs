//! The Bash lists as data (`bash/cases/*.tsv`): every command's verdict, decided
//! in-process by the hook's own decision function (`pre::pre_tool_use`, from the same hook input JSON
//! the binary reads, no session, `gate_mode: strict`), and its first write target and the rule
//! that reported it (`BashWrite::via`), from the analysis. A mismatch names the rule. The hook's
//! process contract (exit codes, JSON, silence) is `processes.rs`'s, on a sample of these lines.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use code_intel_bash::{BashTarget, analyze};
use code_intel_hooks::pre::{HookEnv, pre_tool_use};
use code_intel_session::gate::Verdict;
use serde_json::json;

/// One line of a list.
#[derive(Debug)]
struct Case {
    line: usize,
    verdict: String,
    target: String,
    via: String,
    command: String,
}

fn unescape(s: &str) -> String {
    s.replace('⏎', "\n").replace('⇥', "\t")
}

fn escape(s: &str) -> String {
    s.replace('\n', "⏎").replace('\t', "⇥")
}

fn cases(name: &str) -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../bash/cases")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .map(|(i, l)| {
            let f: Vec<&str> = l.splitn(4, '\t').collect();
            assert_eq!(f.len(), 4, "{name}:{}: four TAB-separated fields", i + 1);
            Case {
                line: i + 1,
                verdict: f[0].to_string(),
                target: unescape(f[1]),
                via: unescape(f[2]),
                command: unescape(f[3]),
            }
        })
        .collect()
}

fn first_write(command: &str) -> (String, String) {
    match analyze(command).writes.first() {
        None => ("-".into(), "-".into()),
        Some(w) => {
            let t = match &w.target {
                BashTarget::Path(p) => format!("path:{p}"),
                BashTarget::Tree(p) => format!("tree:{p}"),
                BashTarget::Dynamic(p) => format!("dynamic:{p}"),
                BashTarget::Script(p) => format!("script:{p}"),
            };
            (t, w.via.clone())
        }
    }
}

/// The repository the lists run in (as `processes.rs`'s): `src/m0.py` … `src/m19.py` and an
/// ignored `node_modules/`.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::create_dir_all(dir.path().join("node_modules")).unwrap();
    for i in 0..20 {
        std::fs::write(dir.path().join(format!("src/m{i}.py")), "x = 1\n").unwrap();
    }
    dir
}

/// Checks every line of list `name`; each must carry `expected` as its verdict.
fn check(name: &str, expected: &str) {
    let dir = repo();
    let mut locations = code_intel_hooks::config_locations();
    // As the hook binary would see itself.
    locations.binaries = vec![PathBuf::from(env!("CARGO_BIN_EXE_code-intel-pre-tool-use"))];
    // No launcher: the static analysis decides alone, as without the sandbox.
    let env = HookEnv {
        project_dir: Some(dir.path().to_path_buf()),
        locations,
        hook_exe: None,
        shell_prefix: None,
    };
    let cases = cases(name);
    assert!(!cases.is_empty(), "{name} is empty");
    let mut wrong = String::new();
    for c in &cases {
        assert_eq!(
            c.verdict, expected,
            "{name}:{}: this list holds `{expected}` lines only",
            c.line
        );
        let input = json!({"session_id": "s1", "cwd": dir.path(), "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": c.command}})
        .to_string();
        let parsed = code_intel_hooks::read_input(input.as_bytes()).unwrap();
        let verdict = match pre_tool_use(&parsed, &env).verdict {
            Verdict::Allow => "allow",
            Verdict::Deny { .. } => "deny",
        };
        let (target, via) = first_write(&c.command);
        if verdict != c.verdict || target != c.target || via != c.via {
            writeln!(
                wrong,
                "{name}:{}: {}\n    expected {} {} (by {})\n    got      {verdict} {} (by {})",
                c.line,
                escape(&c.command),
                c.verdict,
                escape(&c.target),
                c.via,
                escape(&target),
                via,
            )
            .unwrap();
        }
    }
    assert!(wrong.is_empty(), "lines that changed:\n{wrong}");
}

#[test]
fn hidden_writes_are_denied_by_the_rule_each_line_names() {
    check("hidden_writes.tsv", "deny");
}

#[test]
fn read_only_commands_pass() {
    check("read_only.tsv", "allow");
}
