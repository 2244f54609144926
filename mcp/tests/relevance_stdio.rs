//! The relevance tools through a real MCP client over stdio: `validate_symbol_relevance` and
//! `confirm_symbol_relevance` with the real model (the server loads it in the background and says
//! "initializing" until it is ready), and the same tools without a model (the fix is named,
//! lexical tools keep working).
//!
//! The model cache is `CODE_INTEL_MODEL_DIR`, else `${XDG_CACHE_HOME:-$HOME/.cache}/code-intel/models`.
//! Without a provisioned model the real-model test FAILS (run scripts/model/fetch.sh); set
//! `CODE_INTEL_SKIP_MODEL_TESTS=1` to skip it knowingly.

#![allow(clippy::print_stderr)]

mod support;

use serde_json::json;
use support::{Model, Server, write_fixture};

/// A small repository: a login service, password hashing, a cart and its rendering.
const FIXTURE: &[(&str, &str)] = &[
    (
        "src/auth/login_service.py",
        r#""""Login: checks a user's password and opens a session."""
from src.auth.passwords import hash_password


class LoginService:
    """Authenticates users against the user store."""

    def authenticate(self, username, password):
        user = self.users.get(username)
        if user is None or user.password_hash != hash_password(password):
            return None
        return user
"#,
    ),
    (
        "src/auth/passwords.py",
        "import hashlib\n\n\ndef hash_password(password):\n    return hashlib.sha256(password.encode()).hexdigest()\n",
    ),
    (
        "src/web/checkout.js",
        "export function renderCart(items) {\n  return items.map((i) => `<li>${i.name}</li>`).join(\"\");\n}\n\nexport const formatPrice = (cents) => `$${(cents / 100).toFixed(2)}`;\n",
    ),
];

const QUERY: &str = "Login fails when the password has trailing spaces; change LoginService.authenticate to strip the password";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validate_and_confirm_with_the_real_model() {
    let Some(cache) = support::provisioned_model() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path(), FIXTURE);
    let server = Server::spawn(dir.path(), Model::Dir(&cache)).await;

    let tools = server.client.list_all_tools().await.unwrap();
    for name in ["validate_symbol_relevance", "confirm_symbol_relevance"] {
        let t = tools
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("{name} not listed"));
        assert_eq!(t.input_schema["type"], "object");
    }

    let start = server
        .ok("start_session", json!({"intent": "MODIFY", "query": QUERY}))
        .await;
    let id = start["session_id"].as_str().unwrap().to_string();
    let frame = server
        .ok(
            "set_query_frame",
            json!({"target_feature": {"value": "login", "quote": "Login"}}),
        )
        .await;
    assert_eq!(frame["success"], true);

    // English and Japanese terms against the same candidates: LoginService ranks first.
    for term in ["login", "ログイン機能"] {
        let (failed, v) = server
            .after_model_loaded(
                "validate_symbol_relevance",
                json!({"target_feature": term, "symbols": ["renderCart", "LoginService", "formatPrice"]}),
            )
            .await;
        assert!(!failed, "{v:#}");
        let prompt = v["validation_prompt"].as_str().unwrap();
        assert!(prompt.contains("code_evidence is mandatory"), "{prompt}");
        assert!(prompt.contains("- LoginService"), "{prompt}");
        let ranked: Vec<&str> = v["embedding_suggestions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["symbol"].as_str().unwrap())
            .collect();
        assert_eq!(ranked.len(), 3, "{v:#}");
        assert_eq!(ranked[0], "LoginService", "{term}: {v:#}");
        assert_eq!(v["embedding_suggestions"][0]["rank"], 1);
        assert_eq!(v["cached_matches"], json!([]));
        eprintln!("{term}: {:#}", v["embedding_suggestions"]);
    }

    // Evidence is mandatory per symbol.
    let e = server
        .err(
            "confirm_symbol_relevance",
            json!({"session_id": id, "relevant_symbols": ["LoginService", "renderCart"],
                   "code_evidence": {"LoginService": "authenticate() checks the password"}}),
        )
        .await;
    assert_eq!(e["error"], "validation_failed", "{e:#}");
    assert!(
        e["errors"][0]
            .as_str()
            .unwrap()
            .contains("code_evidence for 'renderCart'"),
        "{e:#}"
    );

    let r = server
        .ok(
            "confirm_symbol_relevance",
            json!({"relevant_symbols": ["LoginService", "renderCart"],
                   "code_evidence": {"LoginService": "LoginService.authenticate() checks the password",
                                     "renderCart": "renders the cart"}}),
        )
        .await;
    eprintln!("confirm: {r:#}");
    assert_eq!(r["nl_term"], "login");
    assert_eq!(r["results"][0]["symbol"], "LoginService");
    assert_eq!(r["results"][0]["tier"], "FACT", "{r:#}");
    assert_eq!(r["results"][0]["approved"], true);
    assert_eq!(r["results"][1]["symbol"], "renderCart");
    assert_eq!(r["results"][1]["tier"], "REJECTED", "{r:#}");
    assert_eq!(r["results"][1]["source"], "REJECTED");
    assert!(r["results"][1]["reinvestigation_guidance"]["next_actions"].is_array());

    let status = server.ok("get_session_status", json!({})).await;
    let mapped = status["query_frame"]["mapped_symbols"].as_array().unwrap();
    assert_eq!(mapped.len(), 1, "{status:#}");
    assert_eq!(mapped[0]["symbol"], "LoginService");
    assert_eq!(mapped[0]["nl_term"], "login");
    assert_eq!(
        mapped[0]["confirmation"]["code_evidence"],
        "LoginService.authenticate() checks the password"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_model_the_tools_name_the_fix_and_lexical_tools_keep_working() {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path(), FIXTURE);
    let empty_cache = tempfile::tempdir().unwrap();
    let server = Server::spawn(dir.path(), Model::Dir(empty_cache.path())).await;

    server
        .ok("start_session", json!({"intent": "MODIFY", "query": QUERY}))
        .await;
    let hits = server
        .ok("search_text", json!({"pattern": "hash_password"}))
        .await;
    assert!(hits["total"].as_u64().unwrap() >= 2, "{hits:#}");

    // validate still answers with the prompt; the warning names the fix.
    let (failed, v) = server
        .after_model_loaded(
            "validate_symbol_relevance",
            json!({"target_feature": "login", "symbols": ["LoginService"]}),
        )
        .await;
    assert!(!failed, "{v:#}");
    assert!(
        v["validation_prompt"]
            .as_str()
            .unwrap()
            .contains("- LoginService")
    );
    assert_eq!(v["embedding_suggestions"], json!([]));
    assert!(
        v["warnings"][0]
            .as_str()
            .unwrap()
            .contains("code-intel model fetch"),
        "{v:#}"
    );

    // confirm needs the model: isError with the fix.
    let e = server
        .err(
            "confirm_symbol_relevance",
            json!({"relevant_symbols": ["LoginService"], "code_evidence": "authenticate()"}),
        )
        .await;
    assert_eq!(e["error"], "model_unavailable", "{e:#}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("code-intel model fetch"),
        "{e:#}"
    );

    // set_query_frame falls back to the literal check: a paraphrased quote is rejected.
    let f = server
        .err(
            "set_query_frame",
            json!({"target_feature": {"value": "login", "quote": "sign-in problems"}}),
        )
        .await;
    assert_eq!(f["error"], "validation_failed", "{f:#}");
    server.stop().await;
}
