//! The embedding model loads lazily (docs/DESIGN.md#sync-ux), checked through the real server over
//! stdio with the real model provisioned: a session that only explores lexically — a change
//! request, literal quotes, the exploration tools, `semantic_search` of a change request with an
//! empty map — leaves the model `not_loaded`; the first call that needs it (a relevance check, a
//! question searched in hybrid) loads it. The state is what `get_session_status` reports; no
//! timing is asserted.
//!
//! The model cache is `CODE_INTEL_MODEL_DIR`, else `${XDG_CACHE_HOME:-$HOME/.cache}/code-intel/models`.
//! Without a provisioned model these tests FAIL (run scripts/model/fetch.sh); set
//! `CODE_INTEL_SKIP_MODEL_TESTS=1` to skip them knowingly.

#![allow(clippy::print_stderr)]

mod support;

use serde_json::json;
use support::{LOGIN_REPO, Model, Server, fixture_dir};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lexical_session_never_loads_the_model_and_a_relevance_check_does() {
    let Some(cache) = support::provisioned_model() else {
        return;
    };
    let dir = fixture_dir(LOGIN_REPO);
    let server = Server::spawn(dir.path(), Model::Dir(&cache)).await;

    // Quotes copied from the request are checked literally; exploring needs no model.
    let start = support::explore_login(&server).await;
    assert_eq!(start["model"]["state"], "not_loaded", "{start:#}");
    assert!(
        start["model"]["message"]
            .as_str()
            .unwrap()
            .contains("first call that needs it"),
        "{start:#}"
    );
    server
        .ok("analyze_structure", json!({"path": "src/auth"}))
        .await;
    server.ok("search_map", json!({"query": "login"})).await;
    // A change request with an empty map: searched lexically, the model not needed.
    let s = server
        .ok(
            "semantic_search",
            json!({"query": "strip the password before checking it"}),
        )
        .await;
    assert!(
        s["message"].as_str().unwrap().contains("map is empty"),
        "{s:#}"
    );
    let status = server.ok("get_session_status", json!({})).await;
    assert_eq!(status["model"]["state"], "not_loaded", "{status:#}");

    // A relevance check needs the model: it loads (the first answers say "initializing").
    let (failed, v) = server
        .after_model_loaded(
            "validate_symbol_relevance",
            json!({"target_feature": "login", "symbols": ["LoginService", "renderCart"]}),
        )
        .await;
    assert!(!failed, "{v:#}");
    let status = server.ok("get_session_status", json!({})).await;
    assert_eq!(status["model"]["state"], "ready", "{status:#}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_searched_in_hybrid_loads_the_model() {
    let Some(cache) = support::provisioned_model() else {
        return;
    };
    let dir = fixture_dir(LOGIN_REPO);
    // The lexical index, built by the CLI (no session here: without one the forest may be
    // searched).
    let indexed = support::cli_command(&["index"], dir.path())
        .env("CODE_INTEL_EMBEDDINGS", "off")
        .output()
        .unwrap();
    assert!(indexed.status.success(), "{indexed:?}");
    let server = Server::spawn(dir.path(), Model::Dir(&cache)).await;
    // A change request: lexical, the model stays unloaded.
    let first = server
        .ok(
            "semantic_search",
            json!({"query": "strip the password in LoginService", "collection": "forest"}),
        )
        .await;
    assert_eq!(first["forest_mode"], "lexical", "{first:#}");
    let (failed, v) = server
        .after_model_loaded(
            "semantic_search",
            json!({"query": "where is the password checked?", "collection": "forest"}),
        )
        .await;
    assert!(!failed, "{v:#}");
    assert_eq!(v["forest_mode"], "hybrid", "{v:#}");
    server.stop().await;
}
