//! `code-intel init` through the real binary: merging into existing `.mcp.json` and
//! `.claude/settings.json` without losing anything, idempotence, `--dry-run` writing nothing, and a
//! malformed file refused with the file left as it was.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};

fn init(repo: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_code-intel"))
        .arg("init")
        .args(args)
        .arg("--repo")
        .arg(repo)
        .env_remove("CODE_INTEL_PROJECT")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env("CODE_INTEL_LOG", "warn")
        .output()
        .unwrap()
}

fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).into_owned()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A repository whose Claude Code configuration already holds other servers, hooks, permission
/// rules and keys code-intel does not know.
fn configured_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    std::fs::write(
        dir.path().join(".mcp.json"),
        r#"{
  "mcpServers": {
    "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": { "TOKEN": "x" } }
  },
  "futureKey": 1
}
"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join(".claude/settings.json"),
        r#"{
  "model": "opus",
  "permissions": { "allow": ["Bash(npm test:*)"], "deny": ["Read(./.env)"] },
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "audit-bash" }] }
    ],
    "Stop": [{ "hooks": [{ "type": "command", "command": "notify-done" }] }]
  }
}
"#,
    )
    .unwrap();
    dir
}

fn snapshot(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(root).unwrap().display().to_string();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn merges_into_existing_configuration_and_loses_nothing() {
    let repo = configured_repo();
    let out = init(repo.path(), &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for line in [
        "create       .code-intel/config.json",
        "create       .code-intel/.gitignore",
        "update       .mcp.json",
        "update       .claude/settings.json",
        "create       .claude/skills/code/SKILL.md",
        "create       .claude/skills/outcome/SKILL.md",
    ] {
        assert!(stdout.contains(line), "missing {line:?} in\n{stdout}");
    }

    let mcp = read_json(&repo.path().join(".mcp.json"));
    assert_eq!(
        mcp,
        json!({
            "mcpServers": {
                "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": { "TOKEN": "x" } },
                "code-intel": { "type": "stdio", "command": "code-intel", "args": ["serve"], "alwaysLoad": true },
            },
            "futureKey": 1,
        })
    );
    let settings = read_json(&repo.path().join(".claude/settings.json"));
    assert_eq!(
        settings,
        json!({
            "model": "opus",
            "permissions": { "allow": ["Bash(npm test:*)", "mcp__code-intel"], "deny": ["Read(./.env)"] },
            "hooks": {
                "PreToolUse": [
                    { "matcher": "Bash", "hooks": [{ "type": "command", "command": "audit-bash" }] },
                    { "matcher": "*", "hooks": [
                        { "type": "command", "command": "code-intel-pre-tool-use", "args": [], "timeout": 30, "onFailure": "block" } ] },
                ],
                "Stop": [{ "hooks": [{ "type": "command", "command": "notify-done" }] }],
                "PostToolUse": [{ "matcher": "*", "hooks": [
                    { "type": "command", "command": "code-intel-post-tool-use", "args": [], "timeout": 30 } ] }],
            },
        })
    );
    // The user's key order survives the merge.
    let raw = std::fs::read_to_string(repo.path().join(".claude/settings.json")).unwrap();
    let pos = |k: &str| raw.find(k).unwrap();
    assert!(pos("\"model\"") < pos("\"permissions\"") && pos("\"permissions\"") < pos("\"hooks\""));

    // config.json: every key of docs/DESIGN.md#configuration with its default, readable by the
    // server.
    let config = read_json(&repo.path().join(".code-intel/config.json"));
    for key in [
        "embedding_model",
        "source_dirs",
        "exclude_patterns",
        "chunk_strategy",
        "chunk_max_tokens",
        "supported_languages",
        "sync_ttl_hours",
        "sync_on_start",
        "sync_timeout_seconds",
        "search_weights",
        "max_chunks",
        "max_index_size_mb",
        "auto_purge_days",
        "memory_limit_mb",
        "lightweight_mode",
        "gate_mode",
    ] {
        assert!(
            config.get(key).is_some(),
            "config.json lacks {key}: {config}"
        );
    }
    assert_eq!(config["gate_mode"], "strict");
    let gitignore = std::fs::read_to_string(repo.path().join(".code-intel/.gitignore")).unwrap();
    assert!(gitignore.contains("!config.json") && gitignore.contains("!agreements/"));

    // The skills name the project server's tools, never the plugin's.
    for skill in ["code", "outcome"] {
        let body =
            std::fs::read_to_string(repo.path().join(format!(".claude/skills/{skill}/SKILL.md")))
                .unwrap();
        assert!(body.contains(&format!("name: {skill}\n")), "{body}");
        assert!(body.contains("mcp__code-intel__record_outcome"), "{body}");
        assert!(!body.contains("mcp__plugin_"), "{body}");
    }
}

#[test]
fn a_second_run_changes_nothing() {
    let repo = configured_repo();
    assert!(init(repo.path(), &[]).status.success());
    let before = snapshot(repo.path());
    let out = init(repo.path(), &["--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["changed"], false, "{report}");
    assert!(
        report["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["change"] == "unchanged"),
        "{report}"
    );
    assert_eq!(snapshot(repo.path()), before);
    let out = init(repo.path(), &[]);
    assert!(
        text(&out.stdout).contains("unchanged"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn dry_run_shows_the_changes_and_writes_nothing() {
    let repo = configured_repo();
    let before = snapshot(repo.path());
    let out = init(repo.path(), &["--dry-run"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("nothing is written"), "{stdout}");
    assert!(stdout.contains("would update .mcp.json"), "{stdout}");
    assert!(
        stdout.contains("would create .code-intel/config.json"),
        "{stdout}"
    );
    // A unified diff of the settings, adding the hook and the rule.
    assert!(stdout.contains("--- a/.claude/settings.json"), "{stdout}");
    assert!(stdout.contains("+      \"mcp__code-intel\""), "{stdout}");
    assert!(stdout.contains("\"onFailure\": \"block\""), "{stdout}");
    assert_eq!(snapshot(repo.path()), before, "--dry-run wrote something");
    assert!(!repo.path().join(".code-intel").exists());
}

#[test]
fn a_malformed_file_is_refused_and_nothing_changes() {
    let repo = configured_repo();
    let broken = "{\n  \"hooks\": { \"PreToolUse\": [ }\n";
    std::fs::write(repo.path().join(".claude/settings.json"), broken).unwrap();
    let before = snapshot(repo.path());
    let out = init(repo.path(), &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("settings.json is not valid JSON"),
        "{stderr}"
    );
    assert!(stderr.contains("nothing was changed"), "{stderr}");
    assert_eq!(snapshot(repo.path()), before);
    assert_eq!(
        std::fs::read_to_string(repo.path().join(".claude/settings.json")).unwrap(),
        broken
    );

    // Valid JSON of the wrong shape is refused the same way.
    std::fs::write(repo.path().join(".claude/settings.json"), "{\"hooks\": []}").unwrap();
    let out = init(repo.path(), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("`hooks` is not an object"),
        "{}",
        text(&out.stderr)
    );
    assert!(!repo.path().join(".code-intel").exists());
}

#[test]
fn an_existing_code_intel_entry_is_updated_not_duplicated() {
    let repo = configured_repo();
    std::fs::write(
        repo.path().join(".mcp.json"),
        r#"{"mcpServers": {"code-intel": {"command": "code-intel", "args": ["serve"], "env": {"CODE_INTEL_LOG": "debug"}}}}"#,
    )
    .unwrap();
    std::fs::write(
        repo.path().join(".claude/settings.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "Edit|Write|MultiEdit|NotebookEdit", "hooks": [{"type": "command", "command": "code-intel-pre-tool-use", "args": [], "timeout": 10}]}]},
            "permissions": {"allow": ["mcp__code-intel"]}}"#,
    )
    .unwrap();
    assert!(init(repo.path(), &[]).status.success());
    let mcp = read_json(&repo.path().join(".mcp.json"));
    assert_eq!(
        mcp["mcpServers"]["code-intel"],
        json!({ "command": "code-intel", "args": ["serve"], "env": { "CODE_INTEL_LOG": "debug" }, "type": "stdio", "alwaysLoad": true })
    );
    let settings = read_json(&repo.path().join(".claude/settings.json"));
    // The old matcher missed tools: the handler moved to a group that covers every tool, once.
    assert_eq!(
        settings["hooks"]["PreToolUse"],
        json!([{ "matcher": "*", "hooks": [
            { "type": "command", "command": "code-intel-pre-tool-use", "args": [], "timeout": 30, "onFailure": "block" } ] }])
    );
    assert_eq!(settings["permissions"]["allow"], json!(["mcp__code-intel"]));
}
