//! `semantic_search` through a real MCP client over stdio with the real model: the background
//! task embeds the synced index (coverage reaches 100 %), Japanese and English queries find the
//! described code, a learned pair short-circuits the forest, the phase rules (map in every phase,
//! forest in SEMANTIC and READY) hold and the call is recorded on the session.
//!
//! The model cache is `CODE_INTEL_MODEL_DIR`, else `${XDG_CACHE_HOME:-$HOME/.cache}/code-intel/models`.
//! Without a provisioned model this test FAILS (run scripts/model/fetch.sh); set
//! `CODE_INTEL_SKIP_MODEL_TESTS=1` to skip it knowingly.

#![allow(clippy::print_stderr)]

mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{Model, Server, files_of, write_file, write_fixture};

const FIXTURE: &[(&str, &str)] = &[
    (
        "src/auth/passwords.py",
        r#""""Password storage."""
import bcrypt


def hash_password(password: str, rounds: int = 12) -> bytes:
    """Hash a password with bcrypt before it is stored."""
    return bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds))


def verify_password(password: str, hashed: bytes) -> bool:
    """Check a password against its stored bcrypt hash."""
    return bcrypt.checkpw(password.encode(), hashed)
"#,
    ),
    (
        "src/mail/sender.py",
        r#""""Outgoing mail."""


class MailSender:
    """Sends email messages through SMTP."""

    def send(self, to: str, subject: str, body: str) -> None:
        """Deliver one message to one recipient."""
        self.smtp.sendmail(self.sender, [to], f"Subject: {subject}\n\n{body}")
"#,
    ),
    (
        "src/web/cart.js",
        "// Render the shopping cart as an HTML list.\nexport function renderCart(items) {\n  return items.map((i) => `<li>${i.name}</li>`).join(\"\");\n}\n\nexport const formatPrice = (cents) => `$${(cents / 100).toFixed(2)}`;\n",
    ),
    (
        "src/config/loader.py",
        r#"import json


def load_settings(path):
    """Read the JSON settings file of the application."""
    with open(path) as f:
        return json.load(f)
"#,
    ),
];

const LEARNED: &str = r#"{"version": 2, "pairs": [
  {"nl_term": "パスワードのハッシュ化", "symbol": "hash_password",
   "code_evidence": "hash_password() hashes with bcrypt.hashpw"}
]}"#;

/// `semantic_search` once the model is loaded and every chunk embedded.
async fn search_when_embedded(server: &Server, args: Value) -> Value {
    let deadline = Instant::now() + Duration::from_secs(240);
    loop {
        let (failed, body) = server.body("semantic_search", args.clone()).await;
        let ready = !failed && body["coverage"]["ratio"].as_f64() == Some(1.0);
        if ready {
            return body;
        }
        if failed {
            assert!(
                body["error"] == "initializing" || body["error"] == "index_not_ready",
                "{body:#}"
            );
        }
        eprintln!("waiting: {}", body["error"].as_str().unwrap_or("coverage"));
        assert!(
            Instant::now() < deadline,
            "not embedded after 240 s: {body:#}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn semantic_search_over_map_and_forest_with_the_real_model() {
    let Some(cache) = support::provisioned_model() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path(), FIXTURE);
    // Unrelated code around it: map hits are judged against the query's similarity to the
    // repository's chunks, and fewer than 50 are no usable background.
    for topic in [
        "invoice",
        "shipment",
        "customer",
        "warehouse",
        "payment",
        "discount",
        "coupon",
        "catalog",
        "review",
        "rating",
        "wishlist",
        "address",
        "currency",
        "refund",
        "ticket",
    ] {
        let mut body = String::new();
        for verb in ["create", "update", "delete", "list"] {
            body.push_str(&format!(
                "def {verb}_{topic}(item):\n    \"\"\"{verb} the {topic} record.\"\"\"\n    return store.{verb}(\"{topic}\", item)\n\n\n"
            ));
        }
        write_file(dir.path(), &format!("src/shop/{topic}.py"), &body);
    }
    let server = Server::spawn(dir.path(), Model::Dir(&cache)).await;
    let tools = server.client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "semantic_search"));

    // A session syncs the index; in EXPLORATION the forest is refused and auto narrows to the map.
    let start = server
        .ok(
            "start_session",
            json!({"intent": "INVESTIGATE", "query": "How are passwords stored?"}),
        )
        .await;
    let id = start["session_id"].as_str().unwrap().to_string();
    let (failed, v) = server
        .body(
            "semantic_search",
            json!({"query": "password hashing", "collection": "forest"}),
        )
        .await;
    assert!(failed && v["error"] == "phase_violation", "{v:#}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("semantic_search(collection=forest)"),
        "{v:#}"
    );
    // The map is empty, so the model is not needed (nor loaded: docs/DESIGN.md#search-mode).
    let auto = server
        .ok(
            "semantic_search",
            json!({"query": "パスワードをハッシュ化する"}),
        )
        .await;
    assert_eq!(auto["searched"], json!(["map"]), "{auto:#}");
    assert!(
        auto["message"].as_str().unwrap().contains("map is empty"),
        "{auto:#}"
    );
    assert!(
        auto["notes"]
            .to_string()
            .contains("not searchable in phase EXPLORATION"),
        "{auto:#}"
    );
    assert_eq!(auto["status"], "NO_MATCH", "empty map: {auto:#}");
    let status = server
        .ok("get_session_status", json!({"session_id": id}))
        .await;
    assert!(
        status.to_string().contains("semantic_search"),
        "recorded: {status:#}"
    );
    assert_eq!(status["model"]["state"], "not_loaded", "{status:#}");
    server.stop().await;

    // A new server has no session (none started, no Claude session binding): no phase applies,
    // the forest is searchable. Japanese and English queries find the described code; the
    // default `search_mode: auto` searches the Japanese ones in hybrid, the English one
    // lexically.
    let server = Server::spawn(dir.path(), Model::Dir(&cache)).await;
    for (query, want, mode) in [
        (
            "パスワードをbcryptでハッシュ化する",
            "src/auth/passwords.py",
            "hybrid",
        ),
        ("send an email message", "src/mail/sender.py", "lexical"),
        ("設定ファイルを読み込む", "src/config/loader.py", "hybrid"),
    ] {
        let v = search_when_embedded(
            &server,
            json!({"query": query, "collection": "forest", "n_results": 3}),
        )
        .await;
        eprintln!("{query}: {:?}", files_of(&v, "forest_hits"));
        assert_eq!(files_of(&v, "forest_hits")[0], want, "{query}: {v:#}");
        assert_eq!(v["status"], "HYPOTHESIS");
        assert_eq!(v["forest_mode"], mode, "{query}: {v:#}");
        let parts = &v["forest_hits"][0]["explanation"]["parts"];
        assert_eq!(
            parts.to_string().contains("\"vector\""),
            mode == "hybrid",
            "{parts:#}"
        );
    }

    // A learned pair: a paraphrase short-circuits the forest; an unrelated query does not.
    write_file(dir.path(), ".code-intel/learned_pairs.json", LEARNED);
    let v = server
        .ok(
            "semantic_search",
            json!({"query": "パスワードのハッシュ化処理を変更したい"}),
        )
        .await;
    eprintln!("map: {:#}", v["map_hits"]);
    assert_eq!(v["short_circuit"], true, "{v:#}");
    assert_eq!(v["status"], "PREVIOUS_SUCCESS");
    assert_eq!(v["map_hits"][0]["symbol"], "hash_password");
    assert_eq!(v["forest_hits"], json!([]));
    let v = server
        .ok(
            "semantic_search",
            json!({"query": "render the shopping cart"}),
        )
        .await;
    assert_eq!(v["short_circuit"], false, "{v:#}");
    assert_eq!(v["searched"], json!(["map", "forest"]));
    assert_eq!(files_of(&v, "forest_hits")[0], "src/web/cart.js", "{v:#}");
    server.stop().await;
}
