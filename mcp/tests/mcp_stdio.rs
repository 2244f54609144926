//! The MCP server through a real client over stdio: rmcp's client spawns
//! `code-intel serve --repo <fixture>` and drives a whole MODIFY session through the real
//! exploration tools, asserting on structured results.

mod support;

use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use support::{LOGIN_QUERY as QUERY, LOGIN_REPO as FIXTURE, Model, Server, files_of};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_the_tools_with_object_input_schemas() {
    let dir = tempfile::tempdir().unwrap();
    support::write_fixture(dir.path(), FIXTURE);
    let server = Server::spawn(dir.path(), Model::Inherited).await;
    let tools = server.client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    for expected in [
        "start_session",
        "set_query_frame",
        "get_session_status",
        "submit_understanding",
        "submit_semantic",
        "submit_verification",
        "check_write_target",
        "add_explored_files",
        "revert_to_exploration",
        "search_text",
        "find_definitions",
        "find_references",
        "analyze_structure",
        "get_function_at_line",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    for t in &tools {
        let schema = &t.input_schema;
        assert_eq!(
            schema.get("type"),
            Some(&json!("object")),
            "{}: {schema:?}",
            t.name
        );
        for combinator in ["oneOf", "anyOf", "allOf"] {
            assert!(
                !schema.contains_key(combinator),
                "{}: top-level {combinator}",
                t.name
            );
        }
        let desc = t.description.as_deref().unwrap_or_default();
        assert!(
            !desc.is_empty() && desc.len() <= 200,
            "{}: description of {} chars",
            t.name,
            desc.len()
        );
    }
    let find_defs = tools.iter().find(|t| t.name == "find_definitions").unwrap();
    assert_eq!(find_defs.input_schema["required"], json!(["symbol"]));
    assert!(
        find_defs.input_schema["properties"]["symbol"]["description"].is_string(),
        "field docs become descriptions"
    );
    assert_eq!(
        find_defs
            .annotations
            .as_ref()
            .and_then(|a| a.read_only_hint),
        Some(true)
    );
    let start = tools.iter().find(|t| t.name == "start_session").unwrap();
    assert_eq!(start.input_schema["required"], json!(["intent", "query"]));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_modify_session_through_the_real_tools() {
    let dir = tempfile::tempdir().unwrap();
    support::write_fixture(dir.path(), FIXTURE);
    let server = Server::spawn(dir.path(), Model::Inherited).await;

    // Before any session: session tools say to start one; exploration tools work unrecorded.
    let e = server.err("get_session_status", json!({})).await;
    assert_eq!(e["error"], "no_active_session");
    assert!(
        e["message"].as_str().unwrap().contains("start_session"),
        "{e}"
    );
    let defs = server
        .ok("find_definitions", json!({"symbol": "hash_password"}))
        .await;
    assert_eq!(files_of(&defs, "definitions"), ["src/auth/passwords.py"]);

    // start_session: EXPLORATION, a prompt, a plan, and the index synced on the way.
    let start = server
        .ok("start_session", json!({"intent": "modify", "query": QUERY}))
        .await;
    let sid = start["session_id"].as_str().unwrap().to_string();
    assert_eq!(start["phase"], "EXPLORATION");
    assert_eq!(start["intent"], "MODIFY");
    assert!(
        start["extraction_prompt"].as_str().unwrap().contains(QUERY),
        "{start:#}"
    );
    assert!(
        start["plan"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "find_references"),
        "{start:#}"
    );
    assert_eq!(start["sync_status"], "synced", "{start:#}");

    // set_query_frame: one quote is not in the request → that slot is rejected
    // (`validation_failed`, docs/DESIGN.md#slots), the others are accepted.
    let r = server
        .call(
            "set_query_frame",
            json!({
                "target_feature": {"value": "login", "quote": "Login"},
                "trigger_condition": {"value": "the user clicks submit", "quote": "when the user presses the submit button"},
                "observed_issue": {"value": "login fails", "quote": "Login fails when the password has trailing spaces"},
                "desired_action": {"value": "strip the password", "quote": "strip the password before checking it"},
            }),
        )
        .await;
    assert_eq!(r.is_error, Some(true));
    let frame = r.structured_content.unwrap();
    assert_eq!(frame["success"], false);
    assert_eq!(frame["error"], "validation_failed");
    assert_eq!(
        frame["validation_errors"],
        json!([{"slot": "trigger_condition", "error": "quote not found in query"}])
    );
    assert_eq!(
        frame["accepted_slots"],
        json!(["target_feature", "observed_issue", "desired_action"])
    );
    assert_eq!(frame["missing_slots"], json!(["trigger_condition"]));

    // A tool of another phase is refused, naming the phase and the next step.
    let e = server
        .err(
            "add_explored_files",
            json!({"files": ["src/web/checkout.js"]}),
        )
        .await;
    assert_eq!(e["error"], "phase_violation");
    assert_eq!(e["phase"], "EXPLORATION");
    assert!(
        e["message"].as_str().unwrap().contains("EXPLORATION"),
        "{e}"
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("submit_understanding"),
        "{e}"
    );

    // Explore with the real tools; each call is recorded on the session with its files.
    let defs = server
        .ok("find_definitions", json!({"symbol": "LoginService"}))
        .await;
    assert_eq!(defs["definitions"][0]["name"], "LoginService");
    assert_eq!(defs["definitions"][0]["file"], "src/auth/login_service.py");
    let refs = server
        .ok("find_references", json!({"symbol": "authenticate"}))
        .await;
    assert_eq!(
        files_of(&refs, "references"),
        ["src/auth/views.py"],
        "{refs:#}"
    );
    assert!(
        refs["references"][0]["enclosing_symbol"]
            .as_str()
            .unwrap()
            .contains("login_view"),
        "{refs:#}"
    );
    let text = server
        .ok(
            "search_text",
            json!({"pattern": "hash_password\\(", "context_lines": 1}),
        )
        .await;
    let mut text_files = files_of(&text, "matches");
    text_files.dedup();
    assert_eq!(
        text_files,
        ["src/auth/login_service.py", "src/auth/passwords.py"],
        "{text:#}"
    );
    let at = server
        .ok(
            "get_function_at_line",
            json!({"file": "src/auth/login_service.py", "line": 14}),
        )
        .await;
    assert_eq!(
        at["function"]["qualified_name"], "LoginService.authenticate",
        "{at:#}"
    );
    let status = server
        .ok("get_session_status", json!({"session_id": sid}))
        .await;
    let used: Vec<&str> = status["tools_used"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    for t in [
        "find_definitions",
        "find_references",
        "search_text",
        "get_function_at_line",
    ] {
        assert!(used.contains(&t), "{t} not recorded: {used:?}");
    }
    assert!(!used.contains(&"analyze_structure"));
    let explored: Vec<&str> = status["explored_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert!(
        explored.contains(&"src/auth/login_service.py"),
        "{explored:?}"
    );
    assert!(!explored.contains(&"src/web/checkout.js"), "{explored:?}");

    // submit_understanding with enough for the strictest (HIGH) table → READY.
    let u = server
        .ok("submit_understanding", support::login_understanding())
        .await;
    assert_eq!(u["next_phase"], "READY", "{u:#}");

    // READY: an explored file may be written, an unexplored one not (with recovery options).
    let ok = server
        .ok(
            "check_write_target",
            json!({"path": "src/auth/login_service.py"}),
        )
        .await;
    assert_eq!(ok["allowed"], true, "{ok:#}");
    let denied = server
        .ok("check_write_target", json!({"path": "src/web/checkout.js"}))
        .await;
    assert_eq!(denied["allowed"], false, "{denied:#}");
    assert!(
        denied["recovery_options"]["add_explored_files"]["example"]
            .as_str()
            .unwrap()
            .contains("src/web/checkout.js"),
        "{denied:#}"
    );
    assert!(
        denied["recovery_options"]["revert_to_exploration"].is_object(),
        "{denied:#}"
    );

    // Recovery: a file never read is refused; read it with an exploration tool, add it, then it is
    // allowed.
    let (_, refused) = server
        .body(
            "add_explored_files",
            json!({"files": ["src/web/checkout.js"]}),
        )
        .await;
    assert_eq!(refused["added"], json!([]), "{refused:#}");
    assert!(
        refused["rejected"][0]
            .as_str()
            .unwrap_or_default()
            .contains("was not read in this session"),
        "{refused:#}"
    );
    server
        .ok("analyze_structure", json!({"path": "src/web/checkout.js"}))
        .await;
    let added = server
        .ok(
            "add_explored_files",
            json!({"files": ["src/web/checkout.js"]}),
        )
        .await;
    assert_eq!(added["added"], json!(["src/web/checkout.js"]));
    let ok = server
        .ok(
            "check_write_target",
            json!({"path": "src/web/checkout.js", "session_id": sid}),
        )
        .await;
    assert_eq!(ok["allowed"], true, "{ok:#}");

    // Paths outside the repository are refused by exploration tools and add_explored_files.
    let e = server
        .err("analyze_structure", json!({"path": "../"}))
        .await;
    assert_eq!(e["error"], "outside_repository", "{e}");
    let e = server
        .err("search_text", json!({"pattern": "x", "path": "/etc"}))
        .await;
    assert_eq!(e["error"], "outside_repository", "{e}");
    let e = server
        .err("add_explored_files", json!({"files": ["../../etc/passwd"]}))
        .await;
    assert_eq!(e["success"], false, "{e}");
    assert_eq!(e["added"], json!([]), "{e}");
    let denied = server
        .ok("check_write_target", json!({"path": "/etc/passwd"}))
        .await;
    assert_eq!(denied["allowed"], false, "{denied:#}");

    // An unknown session id is an isError result with the recovery hint, not a JSON-RPC error.
    let e = server
        .err(
            "get_session_status",
            json!({"session_id": "20990101-000000-abcdef"}),
        )
        .await;
    assert_eq!(e["error"], "unknown_session");
    assert!(
        e["message"].as_str().unwrap().contains("start_session"),
        "{e}"
    );
    let e = server
        .err(
            "find_definitions",
            json!({"symbol": "Cart", "session_id": "no-such-session"}),
        )
        .await;
    assert_eq!(e["error"], "unknown_session");

    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_exploration_calls_are_all_recorded() {
    let dir = tempfile::tempdir().unwrap();
    support::write_fixture(dir.path(), FIXTURE);
    let server = Server::spawn(dir.path(), Model::Inherited).await;
    let start = server
        .ok(
            "start_session",
            json!({"intent": "INVESTIGATE", "query": "how does checkout work"}),
        )
        .await;
    let sid = start["session_id"].as_str().unwrap().to_string();

    // Claude Code calls tools in parallel: every call's files must land in the session state.
    let files: Vec<&str> = FIXTURE.iter().map(|(path, _)| *path).collect();
    let mut calls = tokio::task::JoinSet::new();
    for file in &files {
        let peer = server.client.peer().clone();
        let args = json!({"file": file, "line": 1});
        calls.spawn(async move {
            let Value::Object(map) = args else {
                unreachable!()
            };
            peer.call_tool(CallToolRequestParams::new("get_function_at_line").with_arguments(map))
                .await
        });
    }
    while let Some(done) = calls.join_next().await {
        let r = done.unwrap().unwrap();
        assert_ne!(r.is_error, Some(true), "{r:?}");
    }
    let status = server
        .ok("get_session_status", json!({"session_id": sid}))
        .await;
    let mut explored: Vec<&str> = status["explored_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    explored.sort_unstable();
    let mut expected = files.clone();
    expected.sort_unstable();
    assert_eq!(explored, expected, "{status:#}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_server_finds_the_session_of_its_claude_code_session() {
    let dir = tempfile::tempdir().unwrap();
    support::write_fixture(dir.path(), FIXTURE);
    let spawn = |claude: &'static str| {
        let mut cmd = support::serve_command(dir.path());
        cmd.env("CLAUDE_CODE_SESSION_ID", claude);
        Server::from_command(cmd)
    };
    let first = spawn("claude-session-1").await;
    let start = first
        .ok(
            "start_session",
            json!({"intent": "QUESTION", "query": "what does Cart.total return"}),
        )
        .await;
    first.stop().await;

    let again = spawn("claude-session-1").await;
    let status = again.ok("get_session_status", json!({})).await;
    assert_eq!(status["session_id"], start["session_id"]);
    again.stop().await;

    let other = spawn("claude-session-2").await;
    let e = other.err("get_session_status", json!({})).await;
    assert_eq!(e["error"], "no_active_session");
    other.stop().await;
}
