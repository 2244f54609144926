//! `main-job`: step 5 of the README's main job (`scripts/main.sh`): one scripted, gated session in
//! the real pinned Claude Code on a real repository (the Flask 3.1.1 sdist), against the fake
//! Messages API, through code-intel's real hooks and MCP server installed in that repository.
//!
//! Usage: `cargo run --release -p code-intel-e2e --bin main-job -- --repo DIR [--keep]`
//!
//! `DIR` must be an unmodified copy of Flask 3.1.1 (scripts/main.sh makes a fresh one per run);
//! `.mcp.json` and `.claude/settings.json` are written into it. The code-intel binaries run are
//! the ones next to this executable (`target/<profile>/`); Claude Code comes from
//! `scripts/install-claude-code.sh` or `$CODE_INTEL_CLAUDE`. `--keep` keeps the case directory
//! (Claude Code's config, `requests.jsonl`, stdout/stderr).
//!
//! The script: an Edit before any session (denied) → `start_session` (MODIFY, a Japanese request
//! about `jsonify` sorting JSON keys) → `set_query_frame` with quotes from the request →
//! `find_definitions` / `find_references` / `search_text` on Flask's real symbols →
//! `submit_understanding` (READY) → `check_write_target` → Read + Edit of the explored
//! `src/flask/json/provider.py` (allowed) → Edit of the unexplored `tests/test_json.py` (denied).
//! Every step is printed with its short result and checked; exit status 0 when every check
//! passed, 1 when one failed, 2 when the job could not run at all.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

use anyhow::{Context as _, Result, bail, ensure};
use code_intel_e2e::claude_config::{
    CODE_INTEL_ALLOW, POST_TOOL_USE_BIN, PRE_TOOL_USE_BIN, SERVER_BIN, WRITE_TOOLS_MATCHER,
};
use code_intel_e2e::{
    ClaudeCase, ClaudeRun, Step, ToolResult, code_intel_hooks, code_intel_mcp_json, locate_claude,
    mcp_tool, settings_json, tool_use_id,
};
use serde_json::{Value, json};

/// The user's request (Japanese, as a Japanese user would type it). Every `set_query_frame` quote
/// below is copied from it verbatim.
const REQUEST: &str = "ビューから jsonify で dict を返すと、レスポンスの JSON のキーがアルファベット順に\
並び替えられてしまう。DefaultJSONProvider の sort_keys の既定値を False に変えて、dict の挿入順のまま\
返すように直してほしい。";

/// The file the change belongs in (explored, then edited).
const PROVIDER: &str = "src/flask/json/provider.py";
/// Where `jsonify` is defined (explored).
const JSON_INIT: &str = "src/flask/json/__init__.py";
/// A file the session never explores; the agent's attempt to update its assertion is denied.
const TEST_JSON: &str = "tests/test_json.py";

/// The line changed in [`PROVIDER`] (Flask 3.1.1, line 150; occurs once).
const SORT_KEYS_OLD: &str = "    sort_keys = True\n";
const SORT_KEYS_NEW: &str = "    sort_keys = False\n";
/// The assertion the agent would like to flip in [`TEST_JSON`] (`test_json_key_sorting`).
const TEST_OLD: &str = "    assert app.json.sort_keys\n";
const TEST_NEW: &str = "    assert not app.json.sort_keys\n";

/// Bound on the Claude Code run: a dozen turns, each a hook or MCP round trip (about 1 s each on
/// a 2-core machine), plus the MCP server's start-up index sync.
const RUN_TIMEOUT: Duration = Duration::from_secs(240);

/// What a scripted call must produce.
enum Expect {
    /// The tool ran (no error result); the function turns its result text into a one-line
    /// summary, or says what is wrong with it.
    Ran(fn(&str) -> Result<String, String>),
    /// The PreToolUse hook denied the call; the reason must contain every string.
    Denied(&'static [&'static str]),
}

/// One scripted assistant turn with its label and expectation.
struct Planned {
    label: String,
    step: Step,
    expect: Expect,
}

fn main() -> ExitCode {
    let mut out = Report::new();
    match run(&mut out) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            #[allow(clippy::print_stderr, reason = "a binary's error report")]
            {
                eprintln!("main-job: error: {e:#}");
            }
            ExitCode::from(2)
        }
    }
}

struct Args {
    repo: PathBuf,
    keep: bool,
}

fn parse_args() -> Result<Args> {
    let mut repo = None;
    let mut keep = false;
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("--repo") => repo = Some(PathBuf::from(args.next().context("--repo needs DIR")?)),
            Some("--keep") => keep = true,
            _ => bail!(
                "unexpected argument {}; usage: main-job --repo DIR [--keep]",
                arg.to_string_lossy()
            ),
        }
    }
    Ok(Args {
        repo: repo.context("usage: main-job --repo DIR [--keep]")?,
        keep,
    })
}

/// Runs the job; `Ok(false)` when a check failed.
fn run(out: &mut Report) -> Result<bool> {
    let args = parse_args()?;
    let repo = args
        .repo
        .canonicalize()
        .with_context(|| format!("repository {}", args.repo.display()))?;
    check_fresh_flask(&repo)?;
    let bin_dir = workspace_bin_dir()?;
    let claude = locate_claude()?.context("Claude Code is required for the main job")?;

    let mut case = ClaudeCase::with_project(&repo)?;
    case.write_settings(&settings_json(&code_intel_hooks(), &[CODE_INTEL_ALLOW]))?;
    case.write_mcp_json(&code_intel_mcp_json())?;
    // The harness puts the workspace's *debug* directory first on PATH (it serves the tests);
    // this job runs the binaries it was built with. Added variables override the harness's.
    case.env(
        "PATH",
        &format!("{}:/usr/local/bin:/usr/bin:/bin", bin_dir.display()),
    )
    .prompt(REQUEST)
    .timeout(RUN_TIMEOUT);

    let planned = script(&repo);
    out.line(format!("repository  {}", repo.display()))?;
    out.line(format!(
        "claude      {} ({})",
        claude.display(),
        claude_version(&claude)
    ))?;
    out.line(format!(
        "binaries    {} ({SERVER_BIN}, {PRE_TOOL_USE_BIN}, {POST_TOOL_USE_BIN})",
        bin_dir.display()
    ))?;
    out.line(format!(
        "installed   .mcp.json (`{SERVER_BIN} serve`), .claude/settings.json (PreToolUse on \
         {WRITE_TOOLS_MATCHER}, PostToolUse on *, permissions.allow {CODE_INTEL_ALLOW})"
    ))?;
    out.line(format!("request     {REQUEST}"))?;
    out.line(format!(
        "running     claude -p against the fake Messages API ({} scripted turns) ...",
        planned.len() + 1
    ))?;

    let mut steps: Vec<Step> = planned.iter().map(|p| p.step.clone()).collect();
    steps.push(Step::text(
        "Changed the default of DefaultJSONProvider.sort_keys to False.",
    ));
    case.script(steps);
    let provider_before = read(&repo, PROVIDER)?;
    let test_before = read(&repo, TEST_JSON)?;
    let run = case.run(&claude)?;
    out.line(format!(
        "            claude exited {} after {:.1} s\n",
        run.status
            .code()
            .map_or_else(|| "by signal".to_owned(), |c| c.to_string()),
        run.elapsed.as_secs_f64()
    ))?;

    let mut checks = Checks::default();
    for (i, p) in planned.iter().enumerate() {
        report_step(out, &mut checks, &run, i, p)?;
    }

    out.line("\nthe allowed edit (git diff):")?;
    out.block(&diff(&repo, PROVIDER, &provider_before)?, "  ")?;
    let provider_after = read(&repo, PROVIDER)?;
    checks.check(
        out,
        provider_after == provider_before.replacen(SORT_KEYS_OLD, SORT_KEYS_NEW, 1),
        format!("{PROVIDER} now says `sort_keys = False` and nothing else changed"),
    )?;
    checks.check(
        out,
        read(&repo, TEST_JSON)? == test_before,
        format!("{TEST_JSON} is unchanged on disk"),
    )?;

    report_denials(out, &mut checks, &run, &repo, &planned)?;
    checks.check(
        out,
        run.is_error() == Some(false),
        format!(
            "Claude Code finished the session (result: {})",
            run.result_text().unwrap_or("<none>")
        ),
    )?;

    out.line(
        "\nnot yet implemented: outcome recording (the session's result into the journal) and the \
         learned-map hit on the next session arrive in a later issue; nothing is shown for them here.",
    )?;
    let ok = checks.failed.is_empty();
    if ok {
        out.line(format!("\nmain-job: all {} checks passed", checks.passed))?;
    } else {
        out.line(format!(
            "\nmain-job: {} of {} checks FAILED:",
            checks.failed.len(),
            checks.passed + checks.failed.len()
        ))?;
        for f in &checks.failed {
            out.line(format!("  - {f}"))?;
        }
        out.line(format!("\nrun details:\n{}", run.describe()))?;
    }
    if args.keep || !ok {
        let dir = case.keep();
        out.line(format!(
            "case directory kept: {} (requests.jsonl, stdout.txt, stderr.txt)",
            dir.display()
        ))?;
    }
    Ok(ok)
}

/// Prints Claude Code's `permission_denials` and checks they are exactly the scripted calls
/// expected to be denied.
fn report_denials(
    out: &mut Report,
    checks: &mut Checks,
    run: &ClaudeRun,
    repo: &Path,
    planned: &[Planned],
) -> Result<()> {
    let denials = run.permission_denials();
    out.line(format!(
        "\npermission_denials in Claude Code's result ({}):",
        denials.len()
    ))?;
    for d in &denials {
        out.line(format!(
            "  - {} {} {}",
            d.tool_name,
            d.tool_use_id,
            relative(repo, d.tool_input.get("file_path"))
        ))?;
    }
    let mut denied_ids: Vec<&str> = denials.iter().map(|d| d.tool_use_id.as_str()).collect();
    denied_ids.sort_unstable();
    let mut expected_ids: Vec<String> = planned
        .iter()
        .enumerate()
        .filter(|(_, p)| matches!(p.expect, Expect::Denied(_)))
        .map(|(i, _)| tool_use_id(i, 0))
        .collect();
    expected_ids.sort_unstable();
    checks.check(
        out,
        denied_ids == expected_ids,
        format!(
            "exactly the expected calls were denied ({})",
            expected_ids.join(", ")
        ),
    )
}

/// The scripted session (steps in order; step `i` is answered to the main-loop request with `i`
/// assistant messages, its tool call gets id `tool_use_id(i, 0)`).
fn script(repo: &Path) -> Vec<Planned> {
    let abs = |rel: &str| repo.join(rel).to_string_lossy().into_owned();
    let edit_provider = json!({
        "file_path": abs(PROVIDER),
        "old_string": SORT_KEYS_OLD,
        "new_string": SORT_KEYS_NEW,
        "replace_all": false,
    });
    vec![
        Planned {
            label: format!("Edit {PROVIDER} (before any session)"),
            step: Step::tool("Edit", edit_provider.clone()),
            expect: Expect::Denied(&["start_session"]),
        },
        Planned {
            label: "start_session(intent=MODIFY, query=<the request>)".into(),
            step: Step::tool(
                mcp_tool("start_session"),
                json!({ "intent": "MODIFY", "query": REQUEST }),
            ),
            expect: Expect::Ran(started),
        },
        Planned {
            label: "set_query_frame(4 slots, each quoted from the request)".into(),
            step: Step::tool(
                mcp_tool("set_query_frame"),
                json!({
                    "target_feature": {
                        "value": "the default of DefaultJSONProvider.sort_keys",
                        "quote": "DefaultJSONProvider の sort_keys の既定値",
                    },
                    "trigger_condition": {
                        "value": "a view returns a dict through jsonify",
                        "quote": "ビューから jsonify で dict を返すと",
                    },
                    "observed_issue": {
                        "value": "the response's JSON keys come back sorted alphabetically",
                        "quote": "レスポンスの JSON のキーがアルファベット順に並び替えられてしまう",
                    },
                    "desired_action": {
                        "value": "default sort_keys to False so dicts keep insertion order",
                        "quote": "False に変えて、dict の挿入順のまま返すように直してほしい",
                    },
                }),
            ),
            expect: Expect::Ran(frame_set),
        },
        Planned {
            label: "find_definitions(symbol=\"DefaultJSONProvider\")".into(),
            step: Step::tool(
                mcp_tool("find_definitions"),
                json!({ "symbol": "DefaultJSONProvider" }),
            ),
            expect: Expect::Ran(definitions_in_provider),
        },
        Planned {
            label: "find_references(symbol=\"sort_keys\", path=\"src/flask\")".into(),
            step: Step::tool(
                mcp_tool("find_references"),
                json!({ "symbol": "sort_keys", "path": "src/flask" }),
            ),
            expect: Expect::Ran(references_in_provider),
        },
        Planned {
            label: "search_text(pattern=\"def jsonify\", path=\"src/flask\")".into(),
            step: Step::tool(
                mcp_tool("search_text"),
                json!({ "pattern": "def jsonify", "path": "src/flask", "literal": true }),
            ),
            expect: Expect::Ran(jsonify_found),
        },
        Planned {
            label: "submit_understanding(4 symbols, entry point jsonify, 2 files, 1 pattern)"
                .into(),
            step: Step::tool(
                mcp_tool("submit_understanding"),
                json!({
                    "symbols_identified": [
                        "DefaultJSONProvider",
                        "DefaultJSONProvider.sort_keys",
                        "DefaultJSONProvider.dumps",
                        "jsonify",
                    ],
                    "entry_points": ["jsonify"],
                    "files_analyzed": [PROVIDER, JSON_INIT],
                    "existing_patterns": [
                        "DefaultJSONProvider's class attributes (ensure_ascii, sort_keys) are the \
                         json.dumps defaults, applied with kwargs.setdefault in dumps()",
                    ],
                    "notes": "jsonify -> current_app.json.response -> DefaultJSONProvider.dumps \
                              -> json.dumps(sort_keys=self.sort_keys)",
                }),
            ),
            expect: Expect::Ran(ready),
        },
        Planned {
            label: format!("check_write_target(path=\"{PROVIDER}\")"),
            step: Step::tool(
                mcp_tool("check_write_target"),
                json!({ "path": PROVIDER, "allow_new_files": false }),
            ),
            expect: Expect::Ran(write_allowed),
        },
        Planned {
            label: format!("Read {PROVIDER}"),
            step: Step::tool("Read", json!({ "file_path": abs(PROVIDER) })),
            expect: Expect::Ran(read_ok),
        },
        Planned {
            label: format!("Edit {PROVIDER} (explored, READY)"),
            step: Step::tool("Edit", edit_provider),
            expect: Expect::Ran(edited),
        },
        Planned {
            label: format!("Edit {TEST_JSON} (never explored)"),
            step: Step::tool(
                "Edit",
                json!({
                    "file_path": abs(TEST_JSON),
                    "old_string": TEST_OLD,
                    "new_string": TEST_NEW,
                    "replace_all": false,
                }),
            ),
            expect: Expect::Denied(&[TEST_JSON, "explored"]),
        },
    ]
}

/// Prints step `i` (call, short result) and checks it.
fn report_step(
    out: &mut Report,
    checks: &mut Checks,
    run: &ClaudeRun,
    i: usize,
    planned: &Planned,
) -> Result<()> {
    out.line(format!("[{i:02}] {}", planned.label))?;
    let Some(result) = run.tool_result(i, 0) else {
        return checks.check(
            out,
            false,
            format!(
                "step {i}: no tool_result came back (Claude Code stopped before this step, or ran it in another turn)"
            ),
        );
    };
    let denied = run.denied(i, 0);
    match planned.expect {
        Expect::Ran(summarise) => {
            if result.is_error || denied {
                out.block(&truncate(&result.content, 600), "     ! ")?;
                return checks.check(
                    out,
                    false,
                    format!("step {i}: expected the call to run, it failed"),
                );
            }
            match summarise(&result.content) {
                Ok(summary) => {
                    out.block(&summary, "     → ")?;
                    checks.check(out, true, format!("step {i} ran as expected"))
                }
                Err(why) => {
                    out.block(&truncate(&result.content, 600), "     ! ")?;
                    checks.check(out, false, format!("step {i}: {why}"))
                }
            }
        }
        Expect::Denied(needles) => {
            let reason = hook_reason(&result);
            match reason {
                Some(r) => out.block(&format!("DENIED by the PreToolUse hook: {r}"), "     → ")?,
                None => out.block(
                    &format!(
                        "NOT denied by the hook; result: {}",
                        truncate(&result.content, 300)
                    ),
                    "     ! ",
                )?,
            }
            let missing: Vec<&str> = needles
                .iter()
                .copied()
                .filter(|n| !reason.is_some_and(|r| r.contains(n)))
                .collect();
            checks.check(
                out,
                denied && reason.is_some() && missing.is_empty(),
                if missing.is_empty() {
                    format!("step {i} denied, the reason names {}", needles.join(" and "))
                } else {
                    format!(
                        "step {i}: expected a hook denial naming {missing:?} (in permission_denials: {denied})"
                    )
                },
            )
        }
    }
}

/// The deny reason of a PreToolUse hook denial as Claude Code reports it to the model:
/// `PreToolUse:<tool> hook error: <reason>` (shared/docs/CLAUDE_CODE.md).
fn hook_reason(result: &ToolResult) -> Option<&str> {
    if !result.is_error {
        return None;
    }
    let (_, reason) = result.content.split_once(" hook error: ")?;
    Some(reason.trim()).filter(|r| !r.is_empty())
}

// ---------------------------------------------------------------------------------------------
// Result summaries: the tool result text (the MCP tools answer JSON) → one short line, or why the
// result is not what the step needs.
// ---------------------------------------------------------------------------------------------

fn parse(content: &str) -> Result<Value, String> {
    serde_json::from_str(content).map_err(|e| format!("result is not JSON ({e})"))
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("?")
}

fn list_of(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_owned))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}

fn started(content: &str) -> Result<String, String> {
    let v = parse(content)?;
    let id = str_of(&v, "session_id");
    if id == "?" || str_of(&v, "phase") != "EXPLORATION" {
        return Err("expected a session id and phase EXPLORATION".into());
    }
    let plan = v.get("plan").cloned().unwrap_or(Value::Null);
    Ok(format!(
        "session {id}, phase EXPLORATION, intent {}, risk {} (slots not yet set: {}), index {}\n\
         plan: {}",
        str_of(&v, "intent"),
        str_of(&plan, "risk_level"),
        list_of(&plan, "missing_slots"),
        v.get("sync_status")
            .map_or_else(|| "?".into(), compact_value),
        list_of(&plan, "tools"),
    ))
}

fn frame_set(content: &str) -> Result<String, String> {
    let v = parse(content)?;
    let accepted = v
        .get("accepted_slots")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    if v.get("success").and_then(Value::as_bool) != Some(true) || accepted != 4 {
        return Err(format!(
            "expected all 4 slots accepted; validation errors: {}",
            v.get("validation_errors")
                .map_or_else(String::new, compact_value)
        ));
    }
    let plan = v.get("plan").cloned().unwrap_or(Value::Null);
    Ok(format!(
        "accepted {} (quotes found in the request); risk {}; plan: {}",
        list_of(&v, "accepted_slots"),
        str_of(&v, "risk_level"),
        list_of(&plan, "tools"),
    ))
}

fn definitions_in_provider(content: &str) -> Result<String, String> {
    let v = parse(content)?;
    let defs = v
        .get("definitions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if !defs.iter().any(|d| str_of(d, "file") == PROVIDER) {
        return Err(format!("expected a definition in {PROVIDER}"));
    }
    let shown: Vec<String> = defs
        .iter()
        .take(3)
        .map(|d| {
            format!(
                "{} {} at {}:{}",
                str_of(d, "kind"),
                str_of(d, "qualified_name"),
                str_of(d, "file"),
                d.get("line").map_or_else(String::new, Value::to_string)
            )
        })
        .collect();
    Ok(format!(
        "{} definition(s): {}",
        v.get("total").map_or_else(String::new, Value::to_string),
        shown.join("; ")
    ))
}

fn references_in_provider(content: &str) -> Result<String, String> {
    let v = parse(content)?;
    let refs = v
        .get("references")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if !refs.iter().any(|r| str_of(r, "file") == PROVIDER) {
        return Err(format!("expected a reference in {PROVIDER}"));
    }
    let shown: Vec<String> = refs
        .iter()
        .take(4)
        .map(|r| {
            format!(
                "{}:{} in {} `{}`",
                str_of(r, "file"),
                r.get("line").map_or_else(String::new, Value::to_string),
                str_of(r, "enclosing_symbol"),
                str_of(r, "content").trim()
            )
        })
        .collect();
    Ok(format!(
        "{} reference(s) ({} definition(s) excluded):\n{}",
        v.get("total").map_or_else(String::new, Value::to_string),
        v.get("definitions_excluded")
            .map_or_else(String::new, Value::to_string),
        shown.join("\n")
    ))
}

fn jsonify_found(content: &str) -> Result<String, String> {
    let v = parse(content)?;
    let matches = v
        .get("matches")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let Some(m) = matches.iter().find(|m| str_of(m, "file") == JSON_INIT) else {
        return Err(format!("expected a match in {JSON_INIT}"));
    };
    Ok(format!(
        "{} match(es) in {} files searched: {}:{} `{}`",
        v.get("total").map_or_else(String::new, Value::to_string),
        v.get("files_searched")
            .map_or_else(String::new, Value::to_string),
        JSON_INIT,
        m.get("line").map_or_else(String::new, Value::to_string),
        str_of(m, "content").trim()
    ))
}

fn ready(content: &str) -> Result<String, String> {
    let v = parse(content)?;
    if str_of(&v, "next_phase") != "READY" {
        return Err(format!(
            "expected next_phase READY; got {}, missing {}, errors {}",
            str_of(&v, "next_phase"),
            v.get("missing_requirements")
                .map_or_else(String::new, compact_value),
            v.get("validation_errors")
                .map_or_else(String::new, compact_value)
        ));
    }
    Ok(format!(
        "phase READY (confidence {}, risk {}); next: {}",
        str_of(&v, "evaluated_confidence"),
        str_of(&v, "risk_level"),
        str_of(&v, "next_action")
    ))
}

fn write_allowed(content: &str) -> Result<String, String> {
    let v = parse(content)?;
    if v.get("allowed").and_then(Value::as_bool) != Some(true) {
        return Err(format!("expected {PROVIDER} to be allowed"));
    }
    Ok(format!("allowed: {}", str_of(&v, "path")))
}

fn read_ok(content: &str) -> Result<String, String> {
    if content.contains("sort_keys = True") {
        Ok(format!("{} lines read", content.lines().count()))
    } else {
        Err("expected the file's text with `sort_keys = True`".into())
    }
}

fn edited(content: &str) -> Result<String, String> {
    Ok(format!(
        "allowed; Claude Code: {}",
        truncate(content.lines().next().unwrap_or_default(), 160)
    ))
}

fn compact_value(v: &Value) -> String {
    truncate(
        &v.as_str().map_or_else(|| v.to_string(), str::to_owned),
        300,
    )
}

// ---------------------------------------------------------------------------------------------
// Set-up and reporting.
// ---------------------------------------------------------------------------------------------

/// Refuses a repository that is not an unmodified Flask 3.1.1 at the lines the script edits.
fn check_fresh_flask(repo: &Path) -> Result<()> {
    let provider = read(repo, PROVIDER)?;
    ensure!(
        provider.matches(SORT_KEYS_OLD).count() == 1,
        "{}: expected one `sort_keys = True` line (an unmodified Flask 3.1.1); \
         run on a fresh copy (scripts/main.sh makes one)",
        repo.join(PROVIDER).display()
    );
    ensure!(
        read(repo, TEST_JSON)?.matches(TEST_OLD).count() == 1,
        "{}: expected one `assert app.json.sort_keys` line (an unmodified Flask 3.1.1)",
        repo.join(TEST_JSON).display()
    );
    ensure!(
        read(repo, JSON_INIT)?.contains("def jsonify("),
        "{}: expected `def jsonify(`",
        repo.join(JSON_INIT).display()
    );
    Ok(())
}

/// The directory of this executable, which must hold the code-intel binaries it drives.
fn workspace_bin_dir() -> Result<PathBuf> {
    let exe = std::env::current_exe().context("locating main-job")?;
    let dir = exe
        .parent()
        .context("main-job has no parent directory")?
        .to_owned();
    for name in [SERVER_BIN, PRE_TOOL_USE_BIN, POST_TOOL_USE_BIN] {
        ensure!(
            dir.join(name).is_file(),
            "{name} not found next to main-job in {}: run `cargo build --release --workspace --bins` \
             (or `bash scripts/main.sh`)",
            dir.display()
        );
    }
    Ok(dir)
}

fn claude_version(claude: &Path) -> String {
    Command::new(claude)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map_or_else(
            || "version unknown".into(),
            |o| String::from_utf8_lossy(&o.stdout).trim().to_owned(),
        )
}

fn read(repo: &Path, rel: &str) -> Result<String> {
    let path = repo.join(rel);
    std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))
}

/// `git diff` of `rel` when `repo` is a git work tree with changes to it, else the changed lines
/// against `before` (the Edit keeps the line count).
fn diff(repo: &Path, rel: &str, before: &str) -> Result<String> {
    let git = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["diff", "--no-color", "--no-ext-diff", "--", rel])
        .output();
    if let Ok(o) = git
        && o.status.success()
        && !o.stdout.is_empty()
    {
        return Ok(String::from_utf8_lossy(&o.stdout).trim_end().to_owned());
    }
    let after = read(repo, rel)?;
    let mut lines = vec![format!("--- {rel} (before)\n+++ {rel} (after)")];
    for (n, (a, b)) in before.lines().zip(after.lines()).enumerate() {
        if a != b {
            lines.push(format!("@@ line {} @@\n-{a}\n+{b}", n + 1));
        }
    }
    if lines.len() == 1 {
        lines.push("(no change)".into());
    }
    Ok(lines.join("\n"))
}

/// A repository-relative rendering of a `file_path` tool input.
fn relative(repo: &Path, file_path: Option<&Value>) -> String {
    let path = file_path.and_then(Value::as_str).unwrap_or("?");
    Path::new(path)
        .strip_prefix(repo)
        .map_or_else(|_| path.to_owned(), |p| p.display().to_string())
}

fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// Pass/fail bookkeeping; every check is printed as it is made.
#[derive(Default)]
struct Checks {
    passed: usize,
    failed: Vec<String>,
}

impl Checks {
    fn check(&mut self, out: &mut Report, ok: bool, what: String) -> Result<()> {
        if ok {
            self.passed += 1;
            out.line(format!("     ✓ {what}"))
        } else {
            out.line(format!("     ✗ FAILED: {what}"))?;
            self.failed.push(what);
            Ok(())
        }
    }
}

/// The job's report on stdout, flushed line by line so progress shows in a pipe.
struct Report {
    stdout: io::Stdout,
}

impl Report {
    fn new() -> Self {
        Self {
            stdout: io::stdout(),
        }
    }

    fn line(&mut self, text: impl AsRef<str>) -> Result<()> {
        let mut lock = self.stdout.lock();
        writeln!(lock, "{}", text.as_ref())?;
        lock.flush()?;
        Ok(())
    }

    /// Writes `text` line by line, the first line after `prefix`, the others indented to match.
    fn block(&mut self, text: &str, prefix: &str) -> Result<()> {
        let indent = " ".repeat(prefix.chars().count());
        for (n, l) in text.lines().enumerate() {
            self.line(format!("{}{l}", if n == 0 { prefix } else { &indent }))?;
        }
        Ok(())
    }
}
