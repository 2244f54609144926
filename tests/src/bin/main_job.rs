//! `main-job`: step 8 of the README's main job (`scripts/main.sh`): the learning loop in the real
//! pinned Claude Code on a real repository (the Flask 3.1.1 sdist), scripted against the fake
//! Messages API, through what `code-intel init` installed there (its `.mcp.json` server, its
//! hooks and permission rule in `.claude/settings.json`, its `/code` and `/outcome` skills) and
//! the real embedding model.
//!
//! Usage: `cargo run --release -p code-intel-e2e --bin main-job -- --repo DIR [--keep]`
//!
//! `DIR` must be an unmodified copy of Flask 3.1.1 on which `code-intel init` and
//! `code-intel index --embed` have run (scripts/main.sh makes a fresh one per run); the job writes
//! no configuration of its own. The code-intel binaries run are the ones next to this executable
//! (`target/<profile>/`), the model is the one in the model cache (`code-intel model fetch`);
//! Claude Code comes from `scripts/install-claude-code.sh` or `$CODE_INTEL_CLAUDE`. `--keep`
//! keeps the case directories (Claude Code's config, `requests.jsonl`, stdout/stderr).
//!
//! Three `claude -p` runs, a user's three prompts:
//! - A, `/code <a Japanese request about jsonify sorting JSON keys>`: an Edit before any session
//!   (denied) → `start_session` → `set_query_frame` with quotes from the request →
//!   `find_definitions` / `find_references` / `search_text` on Flask's real symbols → a wait for
//!   the model → `validate_symbol_relevance` → `confirm_symbol_relevance` with code evidence
//!   (FACT) → `submit_understanding` (READY) → `check_write_target` → Read + Edit of the explored
//!   `src/flask/json/provider.py` (allowed) → Edit of the unexplored `tests/test_json.py` (denied).
//! - B, `/outcome success "…"` in the same conversation: `get_session_analysis` →
//!   `record_outcome` (the confirmed pair is learned into `learned_pairs.json` and an agreement)
//!   → an Edit after the outcome (denied: the session has ended).
//! - C, `/code <a related request in other words>` in a new conversation: `start_session`'s
//!   `map_hints` name the learned symbol, `search_map` finds it; after READY, `semantic_search`
//!   with collection `auto` answers from the map alone (short-circuit) for a paraphrase.
//!
//! Every step is printed with its short result and checked, then what the outcome left on disk;
//! exit status 0 when every check passed, 1 when one failed, 2 when the job could not run at all.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

use anyhow::{Context as _, Result, bail, ensure};
use code_intel_e2e::claude_config::{POST_TOOL_USE_BIN, PRE_TOOL_USE_BIN, SERVER_BIN};
use code_intel_e2e::conversation::{Conversation, Turn};
use code_intel_e2e::learning::{
    self, Installed, MODEL_DIR_ENV, code_prompt, outcome_prompt, outcome_steps, skill_not_expanded,
    truncate,
};
use code_intel_e2e::{ClaudeCase, Step, ToolResult, locate_claude, mcp_tool};
use serde_json::{Value, json};

/// The user's request (Japanese, as a Japanese user would type it). Every `set_query_frame` quote
/// of run A is copied from it verbatim.
const REQUEST: &str = "ビューから jsonify で dict を返すと、レスポンスの JSON のキーがアルファベット順に\
並び替えられてしまう。DefaultJSONProvider の sort_keys の既定値を False に変えて、dict の挿入順のまま\
返すように直してほしい。";

/// The feature run A maps to a symbol (the query frame's `target_feature` value): the term the
/// map learns.
const FEATURE: &str = "JSON key sorting";
/// The symbol confirmed for [`FEATURE`].
const SYMBOL: &str = "DefaultJSONProvider";
/// The code evidence given for [`SYMBOL`].
const EVIDENCE: &str = "DefaultJSONProvider.sort_keys = True is the class default; dumps() \
passes it to json.dumps with kwargs.setdefault(\"sort_keys\", self.sort_keys), and jsonify \
responds through current_app.json.response -> dumps";

/// The user's notes for `/outcome success`.
const SUCCESS_NOTES: &str = "jsonify keeps the insertion order of dict keys now";

/// The related request of run C: another change to the same feature, in other words. It says
/// "JSON key sorting", the learned term, so the hint does not depend on the model having loaded by
/// the time `start_session` answers. Every `set_query_frame` quote of run C is copied from it.
const RELATED_REQUEST: &str = "When the API endpoints of a blueprint return dicts through \
jsonify, JSON key sorting is one global setting for the whole app; make it configurable per \
blueprint.";

/// The feature in other words, in Japanese ("the order of JSON keys"), sharing no word with the
/// learned term, for `semantic_search`: only the vectors relate them. z 4.2 against Flask's 503
/// embedded chunks, where 3.0 is confident (measured with `code-intel search --collection map`;
/// "ordering of dictionary entries in serialized responses" reached only 2.0).
const PARAPHRASE: &str = "JSON のキーの並び順";

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

/// The wait before the model tools of run A, in seconds. The MCP server starts loading the model
/// when Claude Code starts it; a release build loads it in about 2 s (docs/MODEL.md; 1.7 s
/// measured at load average 3, and in run C, with three busy loops beside the job, the model was
/// there 2.7 s after the server started), and the turns before the wait take about 1 s. The
/// repository was embedded beforehand, so no file shows the load (the test's poll on the vector
/// state does not apply): a fixed wait, twice the slowest load seen. Run C needs none:
/// `submit_understanding` waits for the model itself.
const MODEL_WAIT_SECS: u32 = 5;

/// Bound on one Claude Code run: a dozen turns, each a hook or MCP round trip, the wait, the
/// first relevance background.
const RUN_TIMEOUT: Duration = Duration::from_secs(240);

/// Turns a tool's result (JSON, parsed when it is JSON) into a one-line summary, or says what is
/// wrong with it.
type Summarise = Box<dyn Fn(&Value) -> Result<String, String>>;

/// What a scripted call must produce.
enum Expect {
    /// The tool ran (no error result) and its result passes the check.
    Ran(Summarise),
    /// The PreToolUse hook denied the call; the reason must contain every string.
    Denied(&'static [&'static str]),
}

/// One scripted assistant turn with its label and expectation.
struct Planned {
    label: String,
    step: Step,
    expect: Expect,
}

impl Planned {
    fn ran(
        label: impl Into<String>,
        step: Step,
        check: impl Fn(&Value) -> Result<String, String> + 'static,
    ) -> Self {
        Self {
            label: label.into(),
            step,
            expect: Expect::Ran(Box::new(check)),
        }
    }

    fn denied(label: impl Into<String>, step: Step, needles: &'static [&'static str]) -> Self {
        Self {
            label: label.into(),
            step,
            expect: Expect::Denied(needles),
        }
    }
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

/// Everything a run needs to start Claude Code on the repository.
struct Setup {
    repo: PathBuf,
    bin_dir: PathBuf,
    models: PathBuf,
    claude: PathBuf,
}

impl Setup {
    /// A new conversation in the repository: a fresh Claude Code config, the release binaries
    /// first on PATH, the model cache passed on.
    fn conversation(&self) -> Result<Conversation> {
        let mut case = ClaudeCase::with_project(&self.repo)?;
        // The harness puts the workspace's *debug* directory first on PATH (it serves the tests);
        // this job runs the binaries it was built with. Added variables override the harness's.
        case.env(
            "PATH",
            &format!("{}:/usr/local/bin:/usr/bin:/bin", self.bin_dir.display()),
        )
        .env(MODEL_DIR_ENV, &self.models.to_string_lossy())
        .timeout(RUN_TIMEOUT);
        Ok(Conversation::new(case, &self.claude))
    }
}

/// Runs the job; `Ok(false)` when a check failed.
fn run(out: &mut Report) -> Result<bool> {
    let args = parse_args()?;
    let repo = args
        .repo
        .canonicalize()
        .with_context(|| format!("repository {}", args.repo.display()))?;
    check_fresh_flask(&repo)?;
    let installed = Installed::read(&repo).map_err(anyhow::Error::msg).context(
        "code-intel is not installed in the repository: run `code-intel init --repo DIR` first \
         (scripts/main.sh step 4)",
    )?;
    let bin_dir = workspace_bin_dir()?;
    let claude = locate_claude()?.context("Claude Code is required for the main job")?;
    let models = learning::model_cache()
        .context("no embedding model in the model cache: run `code-intel model fetch`")?;
    let setup = Setup {
        repo: repo.clone(),
        bin_dir,
        models,
        claude,
    };

    out.line(format!("repository  {}", repo.display()))?;
    out.line(format!(
        "claude      {} ({})",
        setup.claude.display(),
        claude_version(&setup.claude)
    ))?;
    out.line(format!(
        "binaries    {} ({SERVER_BIN}, {PRE_TOOL_USE_BIN}, {POST_TOOL_USE_BIN})",
        setup.bin_dir.display()
    ))?;
    out.line(format!(
        "installed   by `code-intel init`: .mcp.json server `{}`; .claude/settings.json PreToolUse \
         on {}, PostToolUse on {}, permissions.allow {}; skills {}",
        installed.server,
        installed.pre_tool_use,
        installed.post_tool_use,
        installed.allow.join(", "),
        installed
            .skills
            .iter()
            .map(|s| format!("/{s}"))
            .collect::<Vec<_>>()
            .join(" ")
    ))?;
    out.line(format!("model       {}", setup.models.display()))?;
    out.line(format!("index       {}", index_status(&setup)?))?;

    let mut checks = Checks::default();
    let provider_before = read(&repo, PROVIDER)?;
    let test_before = read(&repo, TEST_JSON)?;
    // Run A: /code to READY with a confirmed symbol, the edits.
    let mut chat = setup.conversation()?;
    let a = run_turn(
        out,
        &mut checks,
        &mut chat,
        "A",
        &code_prompt(REQUEST),
        (
            "code",
            &[
                "/code: explore first, then edit",
                &format!("Request: {REQUEST}"),
            ],
        ),
        script_a(&repo),
        "Changed the default of DefaultJSONProvider.sort_keys to False. Check it, then record \
         the result with /outcome.",
    )?;
    let session = a
        .result(1)
        .and_then(|r| serde_json::from_str::<Value>(&r.content).ok())
        .and_then(|v| v["session_id"].as_str().map(str::to_owned))
        .unwrap_or_else(|| "<no session>".into());
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

    // Run B: /outcome success in the same conversation.
    run_turn(
        out,
        &mut checks,
        &mut chat,
        "B",
        &outcome_prompt("success", SUCCESS_NOTES),
        (
            "outcome",
            &[
                "Result: success",
                &format!("Notes: {SUCCESS_NOTES}"),
                "outcome: \"success\"",
            ],
        ),
        script_b(&repo, &session),
        "Recorded the success: code-intel learned the feature's symbol.",
    )?;
    report_learned(out, &mut checks, &repo, &session)?;
    checks.check(
        out,
        read(&repo, PROVIDER)? == provider_after,
        format!("{PROVIDER} is unchanged since run A (the write after the outcome was denied)"),
    )?;

    // Run C: a new conversation with a related request.
    let mut next = setup.conversation()?;
    run_turn(
        out,
        &mut checks,
        &mut next,
        "C",
        &code_prompt(RELATED_REQUEST),
        ("code", &[&format!("Request: {RELATED_REQUEST}")]),
        script_c(),
        "The map points at DefaultJSONProvider; making sort_keys configurable next.",
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
    }
    if args.keep || !ok {
        for (label, chat) in [("A and B", chat), ("C", next)] {
            let dir = chat.into_case().keep();
            out.line(format!(
                "case directory of run {label} kept: {} (requests.jsonl, stdout.txt, stderr.txt)",
                dir.display()
            ))?;
        }
    }
    Ok(ok)
}

/// Runs one prompt of `chat`, then prints and checks: the skill's expansion, every step, the
/// denials, the MCP call times.
#[allow(
    clippy::too_many_arguments,
    reason = "one call site per run, each spelled out"
)]
fn run_turn(
    out: &mut Report,
    checks: &mut Checks,
    chat: &mut Conversation,
    label: &str,
    prompt: &str,
    (skill, needles): (&str, &[&str]),
    planned: Vec<Planned>,
    closing: &str,
) -> Result<Turn> {
    let continuing = chat.turns() > 0;
    out.line(format!(
        "\n── run {label}: claude -p {prompt:?}{} ({} scripted turns) ...",
        if continuing {
            " --continue"
        } else {
            ", a new conversation"
        },
        planned.len() + 1
    ))?;
    let steps = planned.iter().map(|p| p.step.clone()).collect();
    let turn = chat.say(prompt, steps, closing)?;
    out.line(format!(
        "   claude exited {} after {:.1} s",
        turn.run
            .status
            .code()
            .map_or_else(|| "by signal".to_owned(), |c| c.to_string()),
        turn.run.elapsed.as_secs_f64()
    ))?;
    let expansion = skill_not_expanded(&turn, skill, needles);
    checks.check(
        out,
        expansion.is_none(),
        expansion.unwrap_or_else(|| {
            format!(
                "the /{skill} skill reached the model expanded (<command-name>/{skill}</command-name>, \
                 its body with the arguments substituted)"
            )
        }),
    )?;
    for (i, p) in planned.iter().enumerate() {
        report_step(out, checks, &turn, i, p)?;
    }
    report_denials(out, checks, &turn, chat.case().project_dir(), &planned)?;
    checks.check(
        out,
        turn.run.is_error() == Some(false),
        format!(
            "Claude Code finished run {label} (result: {})",
            turn.run.result_text().unwrap_or("<none>")
        ),
    )?;
    let times: Vec<String> = learning::mcp_tool_durations(chat.case().case_dir())
        .into_iter()
        .map(|(tool, ms)| format!("{tool} {ms}"))
        .collect();
    out.line(format!("   MCP call times (ms): {}", times.join(", ")))?;
    if !checks.failed.is_empty() {
        out.line(format!("\nrun {label} details:\n{}", turn.run.describe()))?;
    }
    Ok(turn)
}

/// Run A's script (steps in order; step `i` gets tool-use id `tool_use_id(i, 0)`).
fn script_a(repo: &Path) -> Vec<Planned> {
    let abs = |rel: &str| repo.join(rel).to_string_lossy().into_owned();
    let edit_provider = json!({
        "file_path": abs(PROVIDER),
        "old_string": SORT_KEYS_OLD,
        "new_string": SORT_KEYS_NEW,
        "replace_all": false,
    });
    [
        Planned::denied(
            format!("Edit {PROVIDER} (before any session)"),
            Step::tool("Edit", edit_provider.clone()),
            &["start_session"],
        ),
        Planned::ran(
            "start_session(intent=MODIFY, query=<the request>)",
            Step::tool(
                mcp_tool("start_session"),
                json!({ "intent": "MODIFY", "query": REQUEST }),
            ),
            |v| started(v, false),
        ),
        Planned::ran(
            format!("set_query_frame(target_feature={FEATURE:?} and 3 more slots, quoted)"),
            Step::tool(
                mcp_tool("set_query_frame"),
                json!({
                    "target_feature": {
                        "value": FEATURE,
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
            frame_set,
        ),
    ]
    .into_iter()
    .chain(exploration())
    .chain([
        Planned::ran(
            format!("Bash `sleep {MODEL_WAIT_SECS}` (harness: let the server's model load)"),
            learning::sleep_step(MODEL_WAIT_SECS),
            |_| Ok("waited".into()),
        ),
        Planned::ran(
            format!("validate_symbol_relevance(target_feature={FEATURE:?}, 3 symbols)"),
            Step::tool(
                mcp_tool("validate_symbol_relevance"),
                json!({
                    "target_feature": FEATURE,
                    "symbols": [SYMBOL, "DefaultJSONProvider.dumps", "jsonify"],
                }),
            ),
            validated,
        ),
        Planned::ran(
            format!("confirm_symbol_relevance([{SYMBOL}], code_evidence)"),
            Step::tool(
                mcp_tool("confirm_symbol_relevance"),
                json!({ "relevant_symbols": [SYMBOL], "code_evidence": { SYMBOL: EVIDENCE } }),
            ),
            confirmed,
        ),
        Planned::ran(
            "submit_understanding(4 symbols, entry point jsonify, 2 files, 1 pattern)",
            Step::tool(mcp_tool("submit_understanding"), understanding()),
            ready,
        ),
        Planned::ran(
            format!("check_write_target(path=\"{PROVIDER}\")"),
            Step::tool(
                mcp_tool("check_write_target"),
                json!({ "path": PROVIDER, "allow_new_files": false }),
            ),
            write_allowed,
        ),
        Planned::ran(
            format!("Read {PROVIDER}"),
            Step::tool("Read", json!({ "file_path": abs(PROVIDER) })),
            read_ok,
        ),
        Planned::ran(
            format!("Edit {PROVIDER} (explored, READY)"),
            Step::tool("Edit", edit_provider),
            edited,
        ),
        Planned::denied(
            format!("Edit {TEST_JSON} (never explored)"),
            Step::tool(
                "Edit",
                json!({
                    "file_path": abs(TEST_JSON),
                    "old_string": TEST_OLD,
                    "new_string": TEST_NEW,
                    "replace_all": false,
                }),
            ),
            &[TEST_JSON, "explored"],
        ),
    ])
    .collect()
}

/// Run B's script: what the `/outcome` skill makes the model call, then a write.
fn script_b(repo: &Path, session: &str) -> Vec<Planned> {
    let [analysis, record]: [Step; 2] = outcome_steps(session, "success", SUCCESS_NOTES)
        .try_into()
        .unwrap_or_else(|_| unreachable!("outcome_steps returns two steps"));
    let expected = session.to_owned();
    let expected2 = session.to_owned();
    vec![
        Planned::ran(
            "get_session_analysis() (the most recent session)",
            analysis,
            move |v| analysed(v, &expected),
        ),
        Planned::ran(
            "record_outcome(session_id, outcome=\"success\", trigger_message, analysis)",
            record,
            move |v| recorded(v, &expected2),
        ),
        Planned::denied(
            format!("Edit {PROVIDER} again (after the outcome)"),
            Step::tool(
                "Edit",
                json!({
                    "file_path": repo.join(PROVIDER).to_string_lossy(),
                    "old_string": SORT_KEYS_NEW,
                    "new_string": SORT_KEYS_OLD,
                    "replace_all": false,
                }),
            ),
            &["has ended"],
        ),
    ]
}

/// Run C's script: the related request; the map first, then READY, then `semantic_search`.
fn script_c() -> Vec<Planned> {
    [
        Planned::ran(
            "start_session(intent=MODIFY, query=<the related request>)",
            Step::tool(
                mcp_tool("start_session"),
                json!({ "intent": "MODIFY", "query": RELATED_REQUEST }),
            ),
            |v| started(v, true),
        ),
        Planned::ran(
            "search_map(query=<the related request>)",
            Step::tool(mcp_tool("search_map"), json!({ "query": RELATED_REQUEST })),
            map_found,
        ),
        Planned::ran(
            format!("set_query_frame(target_feature={FEATURE:?} and 3 more slots, quoted)"),
            Step::tool(
                mcp_tool("set_query_frame"),
                json!({
                    "target_feature": { "value": FEATURE, "quote": "JSON key sorting" },
                    "trigger_condition": {
                        "value": "a blueprint's API endpoints return dicts through jsonify",
                        "quote": "When the API endpoints of a blueprint return dicts through jsonify",
                    },
                    "observed_issue": {
                        "value": "sorting is one setting for the whole app",
                        "quote": "JSON key sorting is one global setting for the whole app",
                    },
                    "desired_action": {
                        "value": "make sorting configurable per blueprint",
                        "quote": "make it configurable per blueprint",
                    },
                }),
            ),
            frame_set,
        ),
    ]
    .into_iter()
    .chain(exploration())
    .chain([
        Planned::ran(
            "submit_understanding(…) (waits for the model itself)",
            Step::tool(mcp_tool("submit_understanding"), understanding()),
            ready,
        ),
        Planned::ran(
            format!("semantic_search(query={PARAPHRASE:?}, collection=\"auto\")"),
            Step::tool(
                mcp_tool("semantic_search"),
                json!({ "query": PARAPHRASE, "collection": "auto" }),
            ),
            short_circuited,
        ),
    ])
    .collect()
}

/// The exploration of runs A and C: definitions, references and a text search on Flask's real
/// symbols, all landing in the explored `src/flask/json/`.
fn exploration() -> [Planned; 3] {
    [
        Planned::ran(
            format!("find_definitions(symbol={SYMBOL:?})"),
            Step::tool(mcp_tool("find_definitions"), json!({ "symbol": SYMBOL })),
            definitions_in_provider,
        ),
        Planned::ran(
            "find_references(symbol=\"sort_keys\", path=\"src/flask\")",
            Step::tool(
                mcp_tool("find_references"),
                json!({ "symbol": "sort_keys", "path": "src/flask" }),
            ),
            references_in_provider,
        ),
        Planned::ran(
            "search_text(pattern=\"def jsonify\", path=\"src/flask\")",
            Step::tool(
                mcp_tool("search_text"),
                json!({ "pattern": "def jsonify", "path": "src/flask", "literal": true }),
            ),
            jsonify_found,
        ),
    ]
}

/// The `submit_understanding` of runs A and C.
fn understanding() -> Value {
    json!({
        "symbols_identified": [
            SYMBOL,
            "DefaultJSONProvider.sort_keys",
            "DefaultJSONProvider.dumps",
            "jsonify",
        ],
        "entry_points": ["jsonify"],
        "files_analyzed": [PROVIDER, JSON_INIT],
        "existing_patterns": [
            "DefaultJSONProvider's class attributes (ensure_ascii, sort_keys) are the json.dumps \
             defaults, applied with kwargs.setdefault in dumps()",
        ],
        "notes": "jsonify -> current_app.json.response -> DefaultJSONProvider.dumps \
                  -> json.dumps(sort_keys=self.sort_keys)",
    })
}

/// Prints step `i` of `turn` (call, short result) and checks it.
fn report_step(
    out: &mut Report,
    checks: &mut Checks,
    turn: &Turn,
    i: usize,
    planned: &Planned,
) -> Result<()> {
    // Numbered as in the conversation, like the tool-use ids (`toolu_e2e_<n>_00`).
    let n = turn.offset + i;
    out.line(format!("[{n:02}] {}", planned.label))?;
    let Some(result) = turn.result(i) else {
        return checks.check(
            out,
            false,
            format!(
                "step {n}: no tool_result came back (Claude Code stopped before this step, or ran it in another turn)"
            ),
        );
    };
    let denied = turn.denied(i);
    match &planned.expect {
        Expect::Ran(summarise) => {
            if result.is_error || denied {
                out.block(&truncate(&result.content, 600), "     ! ")?;
                return checks.check(
                    out,
                    false,
                    format!("step {n}: expected the call to run, it failed"),
                );
            }
            let value = serde_json::from_str::<Value>(&result.content)
                .unwrap_or_else(|_| Value::String(result.content.clone()));
            match summarise(&value) {
                Ok(summary) => {
                    out.block(&summary, "     → ")?;
                    checks.check(out, true, format!("step {n} ran as expected"))
                }
                Err(why) => {
                    out.block(&truncate(&result.content, 600), "     ! ")?;
                    checks.check(out, false, format!("step {n}: {why}"))
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
                    format!("step {n} denied, the reason names {}", needles.join(" and "))
                } else {
                    format!(
                        "step {n}: expected a hook denial naming {missing:?} (in permission_denials: {denied})"
                    )
                },
            )
        }
    }
}

/// Prints Claude Code's `permission_denials` and checks they are exactly the scripted calls
/// expected to be denied.
fn report_denials(
    out: &mut Report,
    checks: &mut Checks,
    turn: &Turn,
    repo: &Path,
    planned: &[Planned],
) -> Result<()> {
    let denials = turn.run.permission_denials();
    out.line(format!(
        "   permission_denials in Claude Code's result ({}):",
        denials.len()
    ))?;
    for d in &denials {
        out.line(format!(
            "     - {} {} {}",
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
        .map(|(i, _)| turn.id(i))
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

/// Prints and checks what run B's outcome left on disk: the learned pair, its agreement, the
/// outcome journal's line.
fn report_learned(out: &mut Report, checks: &mut Checks, repo: &Path, session: &str) -> Result<()> {
    out.line("\nwhat the outcome left in .code-intel/:")?;
    let pair = learning::learned_pairs(repo)
        .ok()
        .and_then(|p| {
            p["pairs"]
                .as_array()
                .and_then(|a| a.iter().find(|x| x["symbol"] == SYMBOL).cloned())
        })
        .unwrap_or(Value::Null);
    out.line(format!(
        "   learned_pairs.json: {}",
        truncate(&pair.to_string(), 400)
    ))?;
    checks.check(
        out,
        pair["nl_term"] == FEATURE
            && pair["code_evidence"] == EVIDENCE
            && pair["session_id"] == session,
        format!("learned_pairs.json holds {FEATURE:?} → {SYMBOL} with its evidence and session"),
    )?;
    let file = pair["agreement_file"].as_str().unwrap_or("<none>");
    let text = learning::agreement(repo, file).unwrap_or_default();
    out.line(format!("   agreements/{file}:"))?;
    out.block(&truncate(&text, 1200), "     | ")?;
    let fm = learning::front_matter(&text);
    let front_ok = [
        "doc_type",
        "nl_term",
        "symbol",
        "symbol_normalized",
        "similarity",
        "session_id",
        "learned_at",
    ]
    .iter()
    .all(|k| fm.contains_key(*k))
        && fm.get("doc_type").map(String::as_str) == Some("agreement");
    checks.check(
        out,
        front_ok && text.contains("## 根拠 (Code Evidence)") && text.contains(PROVIDER),
        "the agreement has its front matter (docs/DESIGN.md#agreements), evidence and related file"
            .into(),
    )?;
    let lines = learning::outcomes(repo).unwrap_or_default();
    let line = lines
        .iter()
        .find(|o| o["session_id"] == session)
        .cloned()
        .unwrap_or(Value::Null);
    out.line(format!(
        "   journal/outcomes.jsonl: outcome {}, phase {}, tools {}, edited {}, denials {}, learned {}",
        line["outcome"],
        line["phase_at_outcome"],
        line["tools_used"].as_array().map_or(0, Vec::len),
        line["files_edited"],
        line["denials"],
        line["learned"]
            .as_array()
            .map_or(0, Vec::len),
    ))?;
    checks.check(
        out,
        line["outcome"] == "success"
            && line["phase_at_outcome"] == "READY"
            && line["files_edited"] == json!([PROVIDER]),
        "outcomes.jsonl has the success with the edited file".into(),
    )
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
// Result summaries: the tool's result (JSON) → one short line, or why the result is not what the
// step needs.
// ---------------------------------------------------------------------------------------------

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

fn compact_value(v: &Value) -> String {
    truncate(
        &v.as_str().map_or_else(|| v.to_string(), str::to_owned),
        300,
    )
}

fn num(v: &Value) -> String {
    v.as_f64().map_or_else(|| "?".into(), |x| format!("{x:.2}"))
}

/// `start_session`: a session in EXPLORATION; `hinted`: its `map_hints` name [`SYMBOL`] (else:
/// it has none).
fn started(v: &Value, hinted: bool) -> Result<String, String> {
    let id = str_of(v, "session_id");
    if id == "?" || str_of(v, "phase") != "EXPLORATION" {
        return Err("expected a session id and phase EXPLORATION".into());
    }
    let hints = v.get("map_hints").and_then(Value::as_array);
    let hint_line = match (hinted, hints) {
        (false, None) => "map_hints: none (the map is empty)".to_owned(),
        (true, Some(h)) if h.first().is_some_and(|x| x["symbol"] == SYMBOL) => format!(
            "map_hints: {} (why: {}; agreement {})",
            h.iter()
                .map(|x| format!("{:?} → {}", str_of(x, "nl_term"), str_of(x, "symbol")))
                .collect::<Vec<_>>()
                .join(", "),
            str_of(&h[0], "why"),
            str_of(&h[0], "agreement_file"),
        ),
        (true, _) => return Err(format!("expected map_hints naming {SYMBOL}")),
        (false, Some(_)) => return Err("expected no map_hints before anything was learned".into()),
    };
    let plan = v.get("plan").cloned().unwrap_or(Value::Null);
    Ok(format!(
        "session {id}, phase EXPLORATION, intent {}, risk {}, index {}\n\
         plan: {}\n{hint_line}",
        str_of(v, "intent"),
        str_of(&plan, "risk_level"),
        v.get("sync_status")
            .map_or_else(|| "?".into(), compact_value),
        list_of(&plan, "tools"),
    ))
}

fn frame_set(v: &Value) -> Result<String, String> {
    if v.get("success").and_then(Value::as_bool) != Some(true)
        || v.get("validation_errors")
            .and_then(Value::as_array)
            .is_some_and(|e| !e.is_empty())
    {
        return Err(format!(
            "expected every slot accepted; validation errors: {}",
            v.get("validation_errors")
                .map_or_else(String::new, compact_value)
        ));
    }
    let plan = v.get("plan").cloned().unwrap_or(Value::Null);
    Ok(format!(
        "accepted {} (quotes found in the request); risk {}; plan: {}",
        list_of(v, "accepted_slots"),
        str_of(v, "risk_level"),
        list_of(&plan, "tools"),
    ))
}

fn definitions_in_provider(v: &Value) -> Result<String, String> {
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

fn references_in_provider(v: &Value) -> Result<String, String> {
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
        "{} reference(s):\n{}",
        v.get("total").map_or_else(String::new, Value::to_string),
        shown.join("\n")
    ))
}

fn jsonify_found(v: &Value) -> Result<String, String> {
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

fn validated(v: &Value) -> Result<String, String> {
    let ranked = v["embedding_suggestions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if !ranked.iter().any(|c| c["symbol"] == SYMBOL) {
        return Err(format!(
            "expected {SYMBOL} among the ranked symbols (is the model loaded? warnings: {})",
            compact_value(&v["warnings"])
        ));
    }
    Ok(format!(
        "ranked by calibrated score: {}",
        ranked
            .iter()
            .map(|c| format!(
                "{} {} (z {})",
                str_of(c, "symbol"),
                str_of(c, "tier"),
                num(&c["calibrated"])
            ))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

fn confirmed(v: &Value) -> Result<String, String> {
    let r = &v["results"][0];
    if r["symbol"] != SYMBOL || r["tier"] != "FACT" {
        return Err(format!("expected {SYMBOL} confirmed FACT"));
    }
    Ok(format!(
        "{SYMBOL}: FACT for {:?} (cosine {}, z {}, percentile {}); risk {}",
        str_of(v, "nl_term"),
        num(&r["similarity"]),
        num(&r["calibrated"]),
        num(&r["percentile"]),
        str_of(v, "risk_level"),
    ))
}

fn ready(v: &Value) -> Result<String, String> {
    if str_of(v, "next_phase") != "READY" {
        return Err(format!(
            "expected next_phase READY; got {}, missing {}, errors {}",
            str_of(v, "next_phase"),
            v.get("missing_requirements")
                .map_or_else(String::new, compact_value),
            v.get("validation_errors")
                .map_or_else(String::new, compact_value)
        ));
    }
    Ok(format!(
        "phase READY (confidence {}, risk {}); next: {}",
        str_of(v, "evaluated_confidence"),
        str_of(v, "risk_level"),
        str_of(v, "next_action")
    ))
}

fn write_allowed(v: &Value) -> Result<String, String> {
    if v.get("allowed").and_then(Value::as_bool) != Some(true) {
        return Err(format!("expected {PROVIDER} to be allowed"));
    }
    Ok(format!("allowed: {}", str_of(v, "path")))
}

fn read_ok(v: &Value) -> Result<String, String> {
    let text = v.as_str().unwrap_or_default();
    if text.contains("sort_keys = True") {
        Ok(format!("{} lines read", text.lines().count()))
    } else {
        Err("expected the file's text with `sort_keys = True`".into())
    }
}

fn edited(v: &Value) -> Result<String, String> {
    let text = v.as_str().unwrap_or_default();
    Ok(format!(
        "allowed; Claude Code: {}",
        truncate(text.lines().next().unwrap_or_default(), 160)
    ))
}

fn analysed(v: &Value, session: &str) -> Result<String, String> {
    let a = &v["analysis"];
    if v["session_id"] != session || a["phase"] != "READY" {
        return Err(format!("expected run A's session {session} in READY"));
    }
    let act = &a["activity"];
    Ok(format!(
        "session {session}: phase READY, tools planned {}, used {}, files edited {}, denials {}",
        list_of(a, "tools_planned"),
        act["tools_used"]
            .as_object()
            .map_or(0, serde_json::Map::len),
        act["files_edited"],
        act["denials"].as_array().map_or(0, Vec::len),
    ))
}

fn recorded(v: &Value, session: &str) -> Result<String, String> {
    let added = &v["learned"]["added"][0];
    if v["session_id"] != session
        || v["session_ended"] != true
        || v["map_updated"] != true
        || added["nl_term"] != FEATURE
        || added["symbol"] != SYMBOL
    {
        return Err(format!(
            "expected session {session} ended and {FEATURE:?} → {SYMBOL} learned"
        ));
    }
    Ok(format!(
        "session ended; learned {FEATURE:?} → {SYMBOL} ({}); {}",
        str_of(added, "agreement_file"),
        str_of(v, "message")
    ))
}

fn map_found(v: &Value) -> Result<String, String> {
    let hit = &v["hits"][0];
    if v["status"] != "PREVIOUS_SUCCESS" || hit["symbol"] != SYMBOL || hit["strong"] != true {
        return Err(format!("expected a strong hit for {SYMBOL}"));
    }
    Ok(format!(
        "{} ({} search): {:?} → {} — {}",
        str_of(v, "status"),
        str_of(v, "mode"),
        str_of(hit, "nl_term"),
        str_of(hit, "symbol"),
        str_of(hit, "why"),
    ))
}

fn short_circuited(v: &Value) -> Result<String, String> {
    let top = &v["map_hits"][0];
    let ok = v["short_circuit"] == true
        && v["source"] == "map"
        && v["status"] == "PREVIOUS_SUCCESS"
        && v["searched"] == json!(["map"])
        && v["forest_hits"] == json!([])
        && top["symbol"] == SYMBOL
        && top["confident"] == true;
    if !ok {
        return Err(format!(
            "expected a confident map hit for {SYMBOL} answering alone (short_circuit, source map)"
        ));
    }
    Ok(format!(
        "short_circuit: true, source map, status PREVIOUS_SUCCESS, searched [map] (the code was \
         not searched)\n{:?} → {}: cosine {}, z {} against {} code chunks (confident from z {})\n{}",
        str_of(top, "nl_term"),
        str_of(top, "symbol"),
        num(&top["cosine"]),
        num(&top["z"]),
        v["calibration"]["background"]["n"],
        v["calibration"]["confident_z"],
        str_of(v, "message"),
    ))
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
    ensure!(
        !repo.join(".code-intel/learned_pairs.json").exists(),
        "{}: the map is not empty; run on a fresh copy",
        repo.display()
    );
    Ok(())
}

/// `code-intel status --json`: the index and its vectors, one line.
fn index_status(setup: &Setup) -> Result<String> {
    let out = Command::new(setup.bin_dir.join(SERVER_BIN))
        .args(["status", "--json", "--repo"])
        .arg(&setup.repo)
        .env(MODEL_DIR_ENV, &setup.models)
        .env("CODE_INTEL_LOG", "warn")
        .output()
        .context("running code-intel status")?;
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    Ok(format!(
        "{} files, {} chunks; vectors {}",
        v["index"]["files"],
        v["index"]["chunks"],
        compact_value(&v["vectors"]["coverage"]),
    ))
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
