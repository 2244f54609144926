//! The learning loop through a real MCP client over stdio: `record_outcome`, `add_agreement`,
//! `list_agreements`, `search_map`, `get_session_analysis`, `get_improvement_insights`, the
//! `map_hints` of `start_session`, and the `code-intel insights` CLI.
//!
//! - Without a model (`CODE_INTEL_EMBEDDINGS=off`): hand-added agreements, lexical map search,
//!   map hints, a failure in the insights, the ended session, stale entries.
//! - With the real model: a session to READY with a symbol confirmed FACT, `record_outcome`
//!   success writes `learned_pairs.json` and an agreement, the next session gets the map hint and
//!   `search_map` (hybrid) finds the pair. The model cache is `CODE_INTEL_MODEL_DIR`, else
//!   `${XDG_CACHE_HOME:-$HOME/.cache}/code-intel/models`; without a model this test FAILS (run
//!   scripts/model/fetch.sh) unless `CODE_INTEL_SKIP_MODEL_TESTS=1`.
//! - Several server processes recording outcomes and agreements on one repository at once lose
//!   nothing.

#![allow(clippy::print_stderr)]

mod support;

use std::path::PathBuf;

use serde_json::{Value, json};
use support::{LOGIN_QUERY as QUERY, LOGIN_REPO as FIXTURE, Model, Server, cli, fixture_dir};

const LEARNING_TOOLS: [&str; 6] = [
    "record_outcome",
    "add_agreement",
    "list_agreements",
    "search_map",
    "get_session_analysis",
    "get_improvement_insights",
];

fn symbols_of(hits: &Value) -> Vec<String> {
    hits.as_array()
        .unwrap()
        .iter()
        .map(|h| h["symbol"].as_str().unwrap_or("-").to_string())
        .collect()
}

fn read_json(path: PathBuf) -> Value {
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_model_the_map_is_searched_by_words_and_outcomes_feed_the_insights() {
    let dir = fixture_dir(FIXTURE);
    let state = dir.path().join(".code-intel");
    let server = Server::spawn(dir.path(), Model::Off).await;

    let tools = server.client.list_all_tools().await.unwrap();
    for name in LEARNING_TOOLS {
        let t = tools
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("{name} not listed"));
        assert_eq!(t.input_schema["type"], "object");
        let len = t.description.as_deref().unwrap_or_default().len();
        assert!((1..=200).contains(&len), "{name}: {len} chars");
    }

    // An empty map: no hints, search_map says so.
    let start = server
        .ok("start_session", json!({"intent": "MODIFY", "query": QUERY}))
        .await;
    let first = start["session_id"].as_str().unwrap().to_string();
    assert!(start.get("map_hints").is_none(), "{start:#}");
    // The model is off in this server: the session tools say so, with the reason.
    assert_eq!(start["model"]["state"], "unavailable", "{start:#}");
    assert!(start["model"]["message"].is_string(), "{start:#}");
    let empty = server.ok("search_map", json!({"query": "login"})).await;
    assert_eq!(empty["status"], "NO_MATCH", "{empty:#}");

    // add_agreement writes the pair and its agreement; search_map finds it by words at once.
    let added = server
        .ok(
            "add_agreement",
            json!({"nl_term": "password hashing", "symbol": "hash_password",
                   "code_evidence": "hash_password() hashes with sha256",
                   "related_files": ["src/auth/passwords.py"]}),
        )
        .await;
    assert_eq!(added["warnings"], json!([]), "{added:#}");
    let file = added["agreement_file"].as_str().unwrap().to_string();
    let agreement = std::fs::read_to_string(state.join("agreements").join(&file)).unwrap();
    assert!(agreement.contains("symbol: hash_password"), "{agreement}");
    assert!(
        agreement.contains("- `src/auth/passwords.py`"),
        "{agreement}"
    );
    assert!(
        agreement.contains("- Intent: MODIFY"),
        "session info recorded: {agreement}"
    );
    let pairs = read_json(state.join("learned_pairs.json"));
    assert_eq!(pairs["version"], 2);
    assert_eq!(pairs["pairs"][0]["symbol"], "hash_password");
    assert_eq!(pairs["pairs"][0]["session_id"], first.as_str());

    let found = server
        .ok(
            "search_map",
            json!({"query": "the password hashing is too weak"}),
        )
        .await;
    assert_eq!(found["mode"], "lexical", "{found:#}");
    assert_eq!(found["status"], "PREVIOUS_SUCCESS", "{found:#}");
    assert_eq!(symbols_of(&found["hits"]), ["hash_password"]);
    assert_eq!(found["hits"][0]["strong"], true);
    let status = server.ok("get_session_status", json!({})).await;
    assert!(
        status["tools_used"]
            .as_array()
            .unwrap()
            .contains(&json!("search_map")),
        "{status:#}"
    );

    // A symbol the code does not define: a warning, and hidden from the list as stale.
    let legacy = server
        .ok(
            "add_agreement",
            json!({"nl_term": "legacy login", "symbol": "LegacyLoginHelper", "code_evidence": "gone"}),
        )
        .await;
    assert!(
        legacy["warnings"][0].as_str().unwrap().contains("stale"),
        "{legacy:#}"
    );
    let listed = server.ok("list_agreements", json!({})).await;
    assert_eq!(listed["total"], 1, "{listed:#}");
    assert_eq!(listed["hidden_stale"], 1);
    assert_eq!(listed["items"][0]["symbol"], "hash_password");
    assert_eq!(
        listed["items"][0]["related_files"],
        json!(["src/auth/passwords.py"])
    );
    let all = server
        .ok("list_agreements", json!({"include_stale": true}))
        .await;
    assert_eq!(all["total"], 2);
    assert_eq!(all["items"][1]["stale"], true, "{all:#}");
    let legacy_hit = server
        .ok("search_map", json!({"query": "legacy login"}))
        .await;
    assert_eq!(legacy_hit["hits"][0]["symbol"], "LegacyLoginHelper");
    assert_eq!(legacy_hit["hits"][0]["stale"], true);
    assert_eq!(
        legacy_hit["hits"][0]["strong"], false,
        "stale is never a fact"
    );

    // The first session fails in EXPLORATION; recording ends it.
    let failed = server
        .ok(
            "record_outcome",
            json!({"outcome": "failure", "trigger_message": "still broken"}),
        )
        .await;
    assert_eq!(failed["session_id"], first.as_str());
    assert_eq!(failed["session_ended"], true);
    assert_eq!(
        failed["record"]["failure_point"], "EXPLORATION: after search_map",
        "{failed:#}"
    );
    let check = server
        .ok(
            "check_write_target",
            json!({"path": "src/auth/passwords.py"}),
        )
        .await;
    assert_eq!(check["allowed"], false);
    assert!(
        check["error"].as_str().unwrap().contains("has ended"),
        "{check:#}"
    );

    // The next session gets the map hint for its request.
    let next = server
        .ok(
            "start_session",
            json!({"intent": "MODIFY", "query": "Use bcrypt for password hashing instead of sha256"}),
        )
        .await;
    assert_eq!(
        symbols_of(&next["map_hints"]),
        ["hash_password"],
        "{next:#}"
    );
    assert!(
        next["map_hints"][0]["why"]
            .as_str()
            .unwrap()
            .contains("password hashing"),
        "{next:#}"
    );

    let insights = server.ok("get_improvement_insights", json!({})).await;
    assert_eq!(insights["total_sessions_with_outcomes"], 1, "{insights:#}");
    assert_eq!(insights["sessions_with_decisions"], 1);
    assert_eq!(insights["outcomes"]["failures"], 1);
    assert_eq!(
        insights["common_failure_points"]["EXPLORATION: after search_map"],
        1
    );
    assert_eq!(
        insights["tool_failure_correlation"]["search_map"]["failure_rate"],
        1.0
    );
    let analysis = server
        .ok("get_session_analysis", json!({"session_id": first}))
        .await;
    assert_eq!(analysis["analysis"]["final_outcome"], "failure");
    assert_eq!(analysis["analysis"]["had_decision"], true);
    assert_eq!(analysis["outcomes"][0]["trigger_message"], "still broken");
    server.stop().await;

    // The CLI reads the same journal.
    let (ok, out, err) = cli(&["insights", "--json"], dir.path());
    assert!(ok, "{err}");
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["total_sessions_with_outcomes"], 1);
    let (ok, out, err) = cli(&["insights"], dir.path());
    assert!(ok, "{err}");
    assert!(out.contains("EXPLORATION: after search_map"), "{out}");
    let (ok, out, err) = cli(&["insights", "--session", &first], dir.path());
    assert!(ok, "{err}");
    assert!(out.contains("failure") && out.contains(&first), "{out}");
    let (ok, _, err) = cli(
        &["insights", "--session", "20990101-000000-aaaaaa"],
        dir.path(),
    );
    assert!(!ok);
    assert!(err.contains("unknown session"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confirmed_success_teaches_the_next_session() {
    let Some(cache) = support::provisioned_model() else {
        return;
    };
    let dir = fixture_dir(FIXTURE);
    let state = dir.path().join(".code-intel");
    let server = Server::spawn(dir.path(), Model::Dir(&cache)).await;

    let start = support::explore_login(&server).await;
    let sid = start["session_id"].as_str().unwrap().to_string();
    let (failed, confirmed) = server
        .after_model_loaded(
            "confirm_symbol_relevance",
            json!({"relevant_symbols": ["LoginService"],
                   "code_evidence": {"LoginService": "LoginService.authenticate() checks the user's password"}}),
        )
        .await;
    assert!(!failed, "confirm_symbol_relevance failed: {confirmed:#}");
    assert_eq!(confirmed["results"][0]["tier"], "FACT", "{confirmed:#}");
    let status = server.ok("get_session_status", json!({})).await;
    assert_eq!(status["model"]["state"], "ready", "{status:#}");
    assert!(status["model"]["model_id"].is_string(), "{status:#}");
    let u = server
        .ok("submit_understanding", support::login_understanding())
        .await;
    assert_eq!(u["next_phase"], "READY", "{u:#}");

    let r = server
        .ok(
            "record_outcome",
            json!({"outcome": "success", "analysis": "stripped the password in authenticate"}),
        )
        .await;
    eprintln!("record_outcome: {r:#}");
    assert_eq!(r["session_id"], sid.as_str());
    assert_eq!(r["map_updated"], true);
    assert_eq!(r["learned"]["added"][0]["nl_term"], "login");
    assert_eq!(r["learned"]["added"][0]["symbol"], "LoginService");
    let pairs = read_json(state.join("learned_pairs.json"));
    let p = &pairs["pairs"][0];
    assert_eq!(
        (p["nl_term"].as_str(), p["symbol"].as_str()),
        (Some("login"), Some("LoginService"))
    );
    assert_eq!(
        p["code_evidence"],
        "LoginService.authenticate() checks the user's password"
    );
    assert!(p["similarity"].as_f64().unwrap() > 0.0);
    let file = p["agreement_file"].as_str().unwrap();
    let agreement = std::fs::read_to_string(state.join("agreements").join(file)).unwrap();
    for expected in [
        "nl_term: login",
        "symbol_normalized: Login Service",
        "## 根拠 (Code Evidence)",
        "## 関連ファイル",
        "`src/auth/login_service.py`",
        "  - target_feature: login",
    ] {
        assert!(
            agreement.contains(expected),
            "{expected:?} not in\n{agreement}"
        );
    }

    // The next session gets the hint; search_map (hybrid now) finds the pair.
    let next = server
        .ok(
            "start_session",
            json!({"intent": "MODIFY", "query": "Login should lock the account after five failed attempts"}),
        )
        .await;
    assert_eq!(symbols_of(&next["map_hints"]), ["LoginService"], "{next:#}");
    let found = server
        .ok("search_map", json!({"query": "ログイン login lockout"}))
        .await;
    assert_eq!(found["mode"], "hybrid", "{found:#}");
    assert_eq!(found["hits"][0]["symbol"], "LoginService", "{found:#}");
    assert_eq!(found["hits"][0]["strong"], true);
    assert!(found["hits"][0]["cosine"].is_number());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_server_processes_record_at_once_without_losing_anything() {
    const SERVERS: usize = 4;
    const PAIRS_EACH: usize = 5;
    let dir = fixture_dir(FIXTURE);
    let mut servers = Vec::new();
    for _ in 0..SERVERS {
        servers.push(Server::spawn(dir.path(), Model::Off).await);
    }
    let mut tasks = Vec::new();
    for (n, server) in servers.into_iter().enumerate() {
        tasks.push(tokio::spawn(async move {
            server
                .ok(
                    "start_session",
                    json!({"intent": "MODIFY", "query": format!("fix part {n} of the login")}),
                )
                .await;
            for i in 0..PAIRS_EACH {
                server
                    .ok(
                        "add_agreement",
                        json!({"nl_term": format!("term {n} {i}"), "symbol": format!("Symbol{n}x{i}"),
                               "code_evidence": "test"}),
                    )
                    .await;
                // The same pair from every process: it must stay one pair.
                server
                    .ok(
                        "add_agreement",
                        json!({"nl_term": "login", "symbol": "LoginService", "code_evidence": "authenticate()"}),
                    )
                    .await;
            }
            server
                .ok("record_outcome", json!({"outcome": "partial"}))
                .await;
            server.stop().await;
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let state = dir.path().join(".code-intel");
    let pairs = read_json(state.join("learned_pairs.json"));
    assert_eq!(
        pairs["pairs"].as_array().unwrap().len(),
        SERVERS * PAIRS_EACH + 1
    );
    let agreements = std::fs::read_dir(state.join("agreements"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".md")
        })
        .count();
    assert_eq!(agreements, SERVERS * PAIRS_EACH + 1);
    let outcomes = std::fs::read_to_string(state.join("journal/outcomes.jsonl")).unwrap();
    let lines: Vec<Value> = outcomes
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), SERVERS);
    assert!(lines.iter().all(|l| l["outcome"] == "partial"));
}
