//! Hostile calls over real MCP stdio (`code-intel serve` spawned by rmcp's client): 10 MB
//! parameters, an empty `session_id`, FIFOs, sparse multi-GB files and deeply nested code in the
//! repository, and the size of `tools/list`. Each call has a generous timeout that only catches
//! hangs; no wall-clock assertion.

mod support;

use std::time::Duration;

use serde_json::{Value, json};
use support::{LOGIN_QUERY as QUERY, LOGIN_REPO as FIXTURE, Model, Server};

/// Long enough for a debug build on a loaded machine; a hang is forever.
const HANG: Duration = Duration::from_secs(180);

/// Byte budget of the `tools/list` tools as JSON: 23 tools were 20-23 KB before compaction, 18.9 KB
/// after (issue 15). Raise it knowingly when a tool is added; the model reads every byte of it.
const TOOLS_LIST_BUDGET_BYTES: usize = 19_500;

async fn within<T>(what: &str, f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(HANG, f)
        .await
        .unwrap_or_else(|_| panic!("{what} did not answer within {HANG:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_stays_compact() {
    let dir = tempfile::tempdir().unwrap();
    support::write_fixture(dir.path(), FIXTURE);
    let server = Server::spawn(dir.path(), Model::Off).await;
    let tools = server.client.list_all_tools().await.unwrap();
    let bytes = serde_json::to_string(&tools).unwrap().len();
    assert!(
        bytes <= TOOLS_LIST_BUDGET_BYTES,
        "tools/list is {bytes} bytes, budget {TOOLS_LIST_BUDGET_BYTES}: shorten descriptions or share schema parts"
    );
    let text = serde_json::to_string(&tools).unwrap();
    assert_eq!(text.matches("$schema").count(), 0, "no repeated $schema");
    let session_descriptions: Vec<&Value> = tools
        .iter()
        .filter_map(|t| t.input_schema.get("properties")?.get("session_id"))
        .map(|p| &p["description"])
        .collect();
    assert!(session_descriptions.len() > 15, "{session_descriptions:?}");
    assert!(
        session_descriptions
            .iter()
            .all(|d| *d == "Default: the current session."),
        "one short session_id description: {session_descriptions:?}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_megabyte_parameters_are_refused_without_an_echo() {
    let dir = tempfile::tempdir().unwrap();
    support::write_fixture(dir.path(), FIXTURE);
    let server = Server::spawn(dir.path(), Model::Off).await;
    let huge = "x".repeat(10 << 20);
    for (tool, args, field) in [
        (
            "start_session",
            json!({"intent": "modify", "query": huge}),
            "query",
        ),
        ("search_text", json!({"pattern": huge}), "pattern"),
        (
            "find_definitions",
            json!({"symbol": "a", "path": huge}),
            "path",
        ),
        (
            "set_query_frame",
            json!({"target_feature": {"value": "v", "quote": huge}}),
            "target_feature.quote",
        ),
        (
            "add_explored_files",
            json!({"files": ["a", huge]}),
            "files[1]",
        ),
    ] {
        let result = within(tool, server.call(tool, args)).await;
        assert_eq!(result.is_error, Some(true), "{tool}");
        let body = result.structured_content.unwrap();
        assert_eq!(body["error"], "input_too_large", "{tool}: {body}");
        assert_eq!(body["field"], field, "{tool}");
        let text = body.to_string();
        assert!(
            text.len() < 1_000,
            "{tool}: the refusal echoes nothing: {} bytes",
            text.len()
        );
    }
    // Nothing was stored: no session was started by the refused call.
    let e = server.err("get_session_status", json!({})).await;
    assert_eq!(e["error"], "no_active_session");
    // At the limit, a query is accepted, and each response carries it once: start_session in
    // its extraction prompt, get_session_status as `query` (not again in the frame).
    let tail = "y".repeat(8 * 1024 - QUERY.len() - 1);
    let query = format!("{QUERY} {tail}");
    let start = server
        .ok("start_session", json!({"intent": "modify", "query": query}))
        .await;
    let status = server.ok("get_session_status", json!({})).await;
    for (tool, body) in [("start_session", &start), ("get_session_status", &status)] {
        let text = body.to_string();
        assert_eq!(text.matches(&tail).count(), 1, "{tool} echoes the query");
        assert!(
            text.len() < 8 * 1024 + 8_000,
            "{tool}: {} bytes",
            text.len()
        );
    }
    assert_eq!(status["query"], query);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_session_id_is_an_error_not_the_current_session() {
    let dir = tempfile::tempdir().unwrap();
    support::write_fixture(dir.path(), FIXTURE);
    let server = Server::spawn(dir.path(), Model::Off).await;
    let start = server
        .ok("start_session", json!({"intent": "modify", "query": QUERY}))
        .await;
    for tool in [
        "get_session_status",
        "record_outcome",
        "revert_to_exploration",
    ] {
        let e = server
            .err(tool, json!({"session_id": "", "outcome": "success"}))
            .await;
        assert_eq!(e["error"], "invalid_session_id", "{tool}: {e}");
    }
    // The current session is untouched (record_outcome with "" used to end it).
    let status = server.ok("get_session_status", json!({})).await;
    assert_eq!(status["session_id"], start["session_id"]);
    assert!(status.get("ended").is_none_or(Value::is_null), "{status}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_files_get_exact_errors_and_bounded_answers() {
    let dir = tempfile::tempdir().unwrap();
    support::write_fixture(dir.path(), FIXTURE);
    let d = dir.path();
    let status = std::process::Command::new("mkfifo")
        .arg(d.join("src/pipe.py"))
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::File::create(d.join("src/huge.py"))
        .unwrap()
        .set_len(8 << 30)
        .unwrap();
    let nested = format!(
        "function outer() {{ return 1; }}\nconst o = {}1{};\n",
        "{a:\n".repeat(80_000),
        "}".repeat(80_000)
    );
    std::fs::write(d.join("src/data.js"), nested).unwrap();
    let server = Server::spawn(d, Model::Off).await;

    let call = |tool: &'static str, args: Value| {
        let server = &server;
        async move { within(tool, server.call(tool, args)).await }
    };
    let r = call(
        "get_function_at_line",
        json!({"file": "src/pipe.py", "line": 1}),
    )
    .await;
    let body = r.structured_content.unwrap();
    assert_eq!(body["error"], "not_a_regular_file", "{body}");
    assert_eq!(
        body["message"],
        "src/pipe.py is a FIFO (named pipe), not a regular file; code-intel reads only regular files"
    );
    let r = call(
        "get_function_at_line",
        json!({"file": "src/huge.py", "line": 1}),
    )
    .await;
    let body = r.structured_content.unwrap();
    assert_eq!(body["error"], "file_too_large", "{body}");
    let r = call("analyze_structure", json!({"path": "src/pipe.py"})).await;
    assert_eq!(r.structured_content.unwrap()["error"], "not_a_regular_file");
    let r = call("analyze_structure", json!({"path": "src"})).await;
    let body = r.structured_content.unwrap();
    let huge = body["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["file"] == "src/huge.py")
        .unwrap_or_else(|| panic!("{body}"));
    assert!(
        huge["skipped"].as_str().unwrap().contains("too large"),
        "{huge}"
    );
    // The nested file answers (line windows only: no function around line 1).
    let r = call(
        "get_function_at_line",
        json!({"file": "src/data.js", "line": 1}),
    )
    .await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    assert!(r.structured_content.unwrap()["function"].is_null());
    let r = call(
        "search_text",
        json!({"pattern": "hash_password", "path": "src"}),
    )
    .await;
    let body = r.structured_content.unwrap();
    assert!(body["total"].as_u64().unwrap() >= 2, "{body}");
    assert_eq!(body["files_skipped"], 1, "{body}");
    server.stop().await;
}
