//! The learning loop as a Claude Code user drives it, for the end-to-end test and the main job:
//! installing with the real `code-intel init`, the `/code` and `/outcome` prompts and what their
//! skills make the scripted model call, waiting for the embedding model, and reading what an
//! outcome leaves in `.code-intel/` (learned pairs, agreements, the outcome journal).
//!
//! The skills are the project ones `code-intel init` writes (`.claude/skills/{code,outcome}`),
//! whose tool names are the project server's (`mcp__code-intel__<tool>`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::claude_config::mcp_tool;
use crate::conversation::Turn;
use crate::fake_api::{Step, ToolResult};

/// Environment variable naming the model cache (read by the MCP server; the runner's is passed on
/// because a case runs with a fresh `HOME`).
pub const MODEL_DIR_ENV: &str = "CODE_INTEL_MODEL_DIR";

/// Environment variable that, set to `1`, turns a missing embedding model into a loud skip (the
/// same switch as the MCP crate's real-model tests).
pub const SKIP_MODEL_ENV: &str = "CODE_INTEL_SKIP_MODEL_TESTS";

/// The model directory inside the cache that must hold a `manifest.json`.
const MODEL_NAME: &str = "multilingual-e5-small";

/// The state directory inside a project.
pub const STATE_DIR: &str = ".code-intel";

/// The model cache the way the server resolves it (`CODE_INTEL_MODEL_DIR`, else
/// `${XDG_CACHE_HOME:-$HOME/.cache}/code-intel/models`), if it holds the model.
pub fn model_cache() -> Option<PathBuf> {
    let dir = std::env::var_os(MODEL_DIR_ENV)
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("XDG_CACHE_HOME")
                .filter(|d| !d.is_empty())
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
                .map(|c| c.join("code-intel/models"))
        })?;
    dir.join(MODEL_NAME)
        .join("manifest.json")
        .is_file()
        .then_some(dir)
}

/// Runs `<code_intel> init --repo <project> --json` and returns its report.
///
/// # Errors
/// The command could not run, failed, or printed no JSON.
pub fn init_project(code_intel: &Path, project: &Path) -> Result<Value, String> {
    let out = Command::new(code_intel)
        .args(["init", "--json", "--repo"])
        .arg(project)
        .env("CODE_INTEL_LOG", "warn")
        .output()
        .map_err(|e| format!("running {} init: {e}", code_intel.display()))?;
    if !out.status.success() {
        return Err(format!(
            "code-intel init failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "code-intel init --json printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// What `code-intel init` installed into a project, as read back from its files.
#[derive(Debug, Clone, PartialEq)]
pub struct Installed {
    /// `.mcp.json`'s `code-intel` server: command and arguments.
    pub server: String,
    /// The PreToolUse matcher whose handler is `code-intel-pre-tool-use`.
    pub pre_tool_use: String,
    /// The PostToolUse matcher whose handler is `code-intel-post-tool-use`.
    pub post_tool_use: String,
    /// `permissions.allow` of `.claude/settings.json`.
    pub allow: Vec<String>,
    /// The skills under `.claude/skills/` that name the project server's tools.
    pub skills: Vec<String>,
}

impl Installed {
    /// Reads `.mcp.json`, `.claude/settings.json` and `.claude/skills/` of `project`.
    ///
    /// # Errors
    /// A file is missing or unreadable, or does not hold what `code-intel init` writes.
    pub fn read(project: &Path) -> Result<Self, String> {
        let mcp = read_json(&project.join(".mcp.json"))?;
        let server = &mcp["mcpServers"]["code-intel"];
        let command = server["command"]
            .as_str()
            .ok_or_else(|| format!(".mcp.json has no code-intel server: {mcp}"))?;
        let args: Vec<&str> = server["args"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let settings = read_json(&project.join(".claude/settings.json"))?;
        let matcher_of = |event: &str, bin: &str| -> Result<String, String> {
            settings["hooks"][event]
                .as_array()
                .into_iter()
                .flatten()
                .find(|g| {
                    g["hooks"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        // Exec form names the binary; shell form (`bin || exit 2`) starts with it.
                        .any(|h| {
                            h["command"]
                                .as_str()
                                .and_then(|c| c.split_whitespace().next())
                                == Some(bin)
                        })
                })
                .and_then(|g| g["matcher"].as_str().map(str::to_owned))
                .ok_or_else(|| format!(".claude/settings.json has no {event} hook running {bin}"))
        };
        let mut skills = Vec::new();
        for name in ["code", "outcome"] {
            let path = project.join(format!(".claude/skills/{name}/SKILL.md"));
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("reading {}: {e}", path.display()))?;
            if !text.contains("mcp__code-intel__") || text.contains("mcp__plugin_") {
                return Err(format!(
                    "{} does not name the project server's tools (mcp__code-intel__*)",
                    path.display()
                ));
            }
            skills.push(name.to_owned());
        }
        Ok(Self {
            server: std::iter::once(command)
                .chain(args)
                .collect::<Vec<_>>()
                .join(" "),
            pre_tool_use: matcher_of("PreToolUse", "code-intel-pre-tool-use")?,
            post_tool_use: matcher_of("PostToolUse", "code-intel-post-tool-use")?,
            allow: settings["permissions"]["allow"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
            skills,
        })
    }
}

/// The prompt invoking the `/code` skill.
pub fn code_prompt(request: &str) -> String {
    format!("/code {request}")
}

/// The prompt invoking the `/outcome` skill: `/outcome <result> "<notes>"`.
pub fn outcome_prompt(result: &str, notes: &str) -> String {
    format!("/outcome {result} \"{notes}\"")
}

/// Why `turn`'s prompt did not reach the model as skill `name` expanded, with `needles` in the
/// expansion; `None` when it did. Claude Code sends
/// `<command-name>/<name></command-name>` and the skill body with its arguments substituted
/// (shared/docs/CLAUDE_CODE.md §4).
pub fn skill_not_expanded(turn: &Turn, name: &str, needles: &[&str]) -> Option<String> {
    let text = turn.prompt_text();
    let tag = format!("<command-name>/{name}</command-name>");
    let missing: Vec<&str> = std::iter::once(tag.as_str())
        .chain(needles.iter().copied())
        .filter(|n| !text.contains(n))
        .collect();
    (!missing.is_empty()).then(|| {
        format!(
            "the /{name} skill did not reach the model as expected: missing {missing:?} in {:?}",
            truncate(&text, 1500)
        )
    })
}

/// What the `/outcome` skill makes the model call (skills/outcome/SKILL.md steps 2–3):
/// `get_session_analysis` without a session id (the most recent session), then `record_outcome`
/// for that session with `outcome: $result`, `trigger_message: $ARGUMENTS` and the notes as the
/// analysis. The session id is the one the analysis names (known to the test from the run that
/// started the session).
pub fn outcome_steps(session_id: &str, result: &str, notes: &str) -> Vec<Step> {
    vec![
        Step::tool(mcp_tool("get_session_analysis"), json!({})),
        Step::tool(
            mcp_tool("record_outcome"),
            json!({
                "session_id": session_id,
                "outcome": result,
                "trigger_message": format!("{result} \"{notes}\""),
                "analysis": notes,
            }),
        ),
    ]
}

/// A Bash `sleep <secs>` step: the wait for the model where nothing on disk shows it has loaded
/// (a repository embedded beforehand by `code-intel index --embed`).
pub fn sleep_step(secs: u32) -> Step {
    Step::tool(
        "Bash",
        json!({
            "command": format!("sleep {secs}"),
            "description": "Give code-intel's embedding model time to load",
        }),
    )
}

/// A tool result's text parsed as JSON (code-intel's tools answer JSON).
///
/// # Errors
/// The text is not JSON (the message quotes its start).
pub fn tool_json(result: &ToolResult) -> Result<Value, String> {
    serde_json::from_str(&result.content).map_err(|e| {
        format!(
            "tool result is not JSON ({e}): {}",
            truncate(&result.content, 300)
        )
    })
}

/// `<project>/.code-intel/learned_pairs.json`, parsed.
///
/// # Errors
/// Missing, unreadable or not JSON.
pub fn learned_pairs(project: &Path) -> Result<Value, String> {
    read_json(&project.join(STATE_DIR).join("learned_pairs.json"))
}

/// The text of agreement `file` (a name from `learned_pairs.json`'s `agreement_file`).
///
/// # Errors
/// Missing or unreadable.
pub fn agreement(project: &Path, file: &str) -> Result<String, String> {
    let path = project.join(STATE_DIR).join("agreements").join(file);
    std::fs::read_to_string(&path).map_err(|e| format!("reading {}: {e}", path.display()))
}

/// The `key: value` lines of a Markdown front matter (between a leading `---` line and the next
/// `---` line); empty without one.
pub fn front_matter(text: &str) -> BTreeMap<String, String> {
    let Some(rest) = text.strip_prefix("---\n") else {
        return BTreeMap::new();
    };
    rest.lines()
        .take_while(|l| l.trim() != "---")
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect()
}

/// The lines of `<project>/.code-intel/journal/outcomes.jsonl`, parsed (missing file: none).
///
/// # Errors
/// Unreadable, or a line that is not JSON.
pub fn outcomes(project: &Path) -> Result<Vec<Value>, String> {
    let path = project.join(STATE_DIR).join("journal/outcomes.jsonl");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("reading {}: {e}", path.display())),
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).map_err(|e| format!("{}: {e}: {l}", path.display())))
        .collect()
}

/// Runs `<code_intel> insights --json --repo <project>` and returns its report.
///
/// # Errors
/// The command could not run, failed, or printed no JSON.
pub fn insights(code_intel: &Path, project: &Path) -> Result<Value, String> {
    let out = Command::new(code_intel)
        .args(["insights", "--json", "--repo"])
        .arg(project)
        .env("CODE_INTEL_LOG", "warn")
        .output()
        .map_err(|e| format!("running {} insights: {e}", code_intel.display()))?;
    if !out.status.success() {
        return Err(format!(
            "code-intel insights failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("insights printed no JSON: {e}"))
}

/// How long each MCP tool call of the case's latest Claude Code run took, in milliseconds, in
/// call order: from Claude Code's MCP log (`$HOME/.cache/claude-cli-nodejs/<project>/
/// mcp-logs-code-intel/*.jsonl`, one JSON object per line with `debug` and `timestamp`; observed
/// with 2.1.328), as the time from `Calling MCP tool: <name>` to `Tool '<name>' completed
/// successfully in …` (whose own figure is rounded to whole seconds above one second). Empty
/// when there is no log.
pub fn mcp_tool_durations(case_dir: &Path) -> Vec<(String, u64)> {
    let root = case_dir.join("home/.cache/claude-cli-nodejs");
    let mut logs: Vec<PathBuf> = std::fs::read_dir(&root)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .flat_map(|project| {
            std::fs::read_dir(project.path().join("mcp-logs-code-intel"))
                .into_iter()
                .flatten()
                .filter_map(Result::ok)
                .map(|e| e.path())
        })
        .collect();
    // Names are start timestamps: the greatest is the latest run.
    logs.sort();
    let Some(text) = logs.last().and_then(|p| std::fs::read_to_string(p).ok()) else {
        return Vec::new();
    };
    let mut calling: BTreeMap<String, u64> = BTreeMap::new();
    let mut out = Vec::new();
    for v in text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
    {
        let (Some(msg), Some(at)) = (
            v.get("debug").and_then(Value::as_str),
            v.get("timestamp")
                .and_then(Value::as_str)
                .and_then(ms_of_day),
        ) else {
            continue;
        };
        if let Some(name) = msg.strip_prefix("Calling MCP tool: ") {
            calling.insert(name.to_owned(), at);
        } else if let Some((name, _)) = msg
            .strip_prefix("Tool '")
            .and_then(|r| r.split_once("' completed successfully"))
            && let Some(start) = calling.remove(name)
        {
            // Across midnight the day wraps.
            out.push((name.to_owned(), (at + 86_400_000 - start) % 86_400_000));
        }
    }
    out
}

/// Milliseconds since midnight of an RFC 3339 UTC timestamp (`2026-11-21T09:53:55.454Z`).
fn ms_of_day(ts: &str) -> Option<u64> {
    let time = ts.split_once('T')?.1.trim_end_matches('Z');
    let mut parts = time.split(':');
    let h: u64 = parts.next()?.parse().ok()?;
    let m: u64 = parts.next()?.parse().ok()?;
    let s: f64 = parts.next()?.parse().ok()?;
    // Whole milliseconds of a parsed decimal: the cast cannot overflow (s < 61).
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let ms = (s * 1000.0).round() as u64;
    Some((h * 60 + m) * 60_000 + ms)
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))
}

/// `text` cut after `max_chars` characters (with `…`).
pub fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_reads_the_lines_between_the_markers() {
        let fm = front_matter("---\ndoc_type: agreement\nnl_term: tax rate\n---\n\n# x: y\n");
        assert_eq!(fm.get("doc_type").map(String::as_str), Some("agreement"));
        assert_eq!(fm.get("nl_term").map(String::as_str), Some("tax rate"));
        assert_eq!(fm.len(), 2);
        assert!(front_matter("# no front matter\n").is_empty());
    }

    #[test]
    fn timestamps_become_milliseconds_of_the_day() {
        assert_eq!(ms_of_day("2026-11-21T09:53:55.454Z"), Some(35_635_454));
        assert_eq!(ms_of_day("2026-11-21T00:00:01Z"), Some(1000));
        assert_eq!(ms_of_day("nonsense"), None);
    }

    #[test]
    fn outcome_steps_follow_the_skill() {
        let steps = outcome_steps("s1", "success", "works now");
        assert_eq!(steps.len(), 2);
        let crate::fake_api::Block::ToolUse { name, input } = &steps[1].blocks[0] else {
            panic!("not a tool use")
        };
        assert_eq!(name, "mcp__code-intel__record_outcome");
        assert_eq!(input["trigger_message"], "success \"works now\"");
        assert_eq!(
            outcome_prompt("success", "works now"),
            "/outcome success \"works now\""
        );
    }
}
