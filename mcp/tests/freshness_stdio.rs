//! Freshness, leads and relevance order through a real MCP client over stdio
//! (docs/DESIGN.md#freshness, #leads): every index-backed answer describes the working tree at
//! the time of the call — a branch switch, a new file — and a session's exploration starts from
//! the ranked search's files.

mod support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{Model, Server};

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A git repository on `main` with `src/a.py` and `src/b.py`, and a branch `feature` whose
/// `src/b.py` adds `zebra_quota_limiter`.
fn branchy_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    git(d, &["init", "-q", "-b", "main"]);
    support::write_file(d, "src/a.py", "def alpha():\n    return 1\n");
    support::write_file(d, "src/b.py", "def beta():\n    return 2\n");
    git(d, &["add", "."]);
    git(d, &["commit", "-q", "-m", "base"]);
    git(d, &["checkout", "-q", "-b", "feature"]);
    support::write_file(
        d,
        "src/b.py",
        "def beta():\n    return 2\n\n\ndef zebra_quota_limiter(n):\n    return min(n, 10)\n",
    );
    git(d, &["commit", "-q", "-am", "limiter"]);
    git(d, &["checkout", "-q", "main"]);
    dir
}

fn definitions(body: &Value) -> Vec<String> {
    body["definitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["qualified_name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_branch_switch_is_seen_by_the_next_call_without_waiting() {
    let repo = branchy_repo();
    let server = Server::spawn(repo.path(), Model::Off).await;
    let start = server
        .ok(
            "start_session",
            json!({"intent": "INVESTIGATE", "query": "where is the quota limiter"}),
        )
        .await;
    assert_eq!(start["sync_status"], "synced", "{start:#}");
    let none = server
        .ok("find_definitions", json!({"symbol": "zebra_quota_limiter"}))
        .await;
    assert!(definitions(&none).is_empty(), "{none:#}");

    git(repo.path(), &["checkout", "-q", "feature"]);
    // No sleep: the very next index-backed call sees the checkout.
    let found = server
        .ok("find_definitions", json!({"symbol": "zebra_quota_limiter"}))
        .await;
    assert_eq!(
        definitions(&found),
        vec!["zebra_quota_limiter"],
        "{found:#}"
    );
    assert!(found.get("stale_files").is_none(), "{found:#}");

    // And back: the definition is gone from the answer as it is from the tree.
    git(repo.path(), &["checkout", "-q", "main"]);
    let gone = server
        .ok("find_definitions", json!({"symbol": "zebra_quota_limiter"}))
        .await;
    assert!(definitions(&gone).is_empty(), "{gone:#}");

    // A new session always syncs: no TTL says "fresh" over a moved tree.
    git(repo.path(), &["checkout", "-q", "feature"]);
    let again = server
        .ok(
            "start_session",
            json!({"intent": "INVESTIGATE", "query": "where is the quota limiter"}),
        )
        .await;
    assert_eq!(again["sync_status"], "synced", "{again:#}");
    assert_eq!(again["leads"][0]["file"], "src/b.py", "{again:#}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_file_and_an_edit_are_found_by_the_next_call() {
    let dir = tempfile::tempdir().unwrap();
    support::write_fixture(dir.path(), support::LOGIN_REPO);
    let server = Server::spawn(dir.path(), Model::Off).await;
    server
        .ok(
            "start_session",
            json!({"intent": "INVESTIGATE", "query": support::LOGIN_QUERY}),
        )
        .await;
    // A new directory and a file in it, then an edit of an indexed file.
    support::write_file(
        dir.path(),
        "src/limits/quota.py",
        "def enforce_quota(user):\n    return user.quota > 0\n",
    );
    let found = server
        .ok("find_definitions", json!({"symbol": "enforce_quota"}))
        .await;
    assert_eq!(definitions(&found), vec!["enforce_quota"], "{found:#}");
    support::write_file(
        dir.path(),
        "src/limits/quota.py",
        "def enforce_quota(user):\n    return user.quota > 0\n\n\ndef refill_quota(user):\n    user.quota = 10\n",
    );
    let found = server
        .ok("find_definitions", json!({"symbol": "refill_quota"}))
        .await;
    assert_eq!(definitions(&found), vec!["refill_quota"], "{found:#}");
    std::fs::remove_file(dir.path().join("src/limits/quota.py")).unwrap();
    let gone = server
        .ok("find_definitions", json!({"symbol": "refill_quota"}))
        .await;
    assert!(definitions(&gone).is_empty(), "{gone:#}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_budget_the_answer_names_the_files_that_may_be_stale() {
    let dir = tempfile::tempdir().unwrap();
    support::write_fixture(dir.path(), support::LOGIN_REPO);
    support::write_file(
        dir.path(),
        ".code-intel/config.json",
        r#"{"freshness_budget_ms": 0}"#,
    );
    let server = Server::spawn(dir.path(), Model::Off).await;
    server
        .ok(
            "start_session",
            json!({"intent": "INVESTIGATE", "query": support::LOGIN_QUERY}),
        )
        .await;
    support::write_file(
        dir.path(),
        "src/auth/tokens.py",
        "def issue_token(user):\n    return user.name\n",
    );
    let first = server
        .ok("find_definitions", json!({"symbol": "issue_token"}))
        .await;
    // With no time to sync, the answer is from the last index and says which files moved.
    let stale: Vec<&str> = first["stale_files"]
        .as_array()
        .unwrap_or_else(|| panic!("no stale_files: {first:#}"))
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(stale.contains(&"src/auth/tokens.py"), "{first:#}");
    assert!(
        first["stale_reason"]
            .as_str()
            .unwrap()
            .contains("freshness_budget_ms"),
        "{first:#}"
    );
    // The sync goes on in the background; a later call has it (a generous bound catches a hang).
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let later = server
            .ok("find_definitions", json!({"symbol": "issue_token"}))
            .await;
        if definitions(&later) == vec!["issue_token"] && later.get("stale_files").is_none() {
            break;
        }
        assert!(Instant::now() < deadline, "never synced: {later:#}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    server.stop().await;
}

/// A repository where path order and relevance disagree: the file the request is about sorts
/// last by path, and every file mentions `quota`.
const QUOTA_REPO: &[(&str, &str)] = &[
    (
        "src/aaa/report.py",
        "def monthly_report(rows):\n    # quota column\n    return [r.quota for r in rows]\n",
    ),
    (
        "src/bbb/export.py",
        "def export_csv(rows):\n    return ','.join(str(r.quota) for r in rows)\n",
    ),
    (
        "src/zzz/rate_limiter.py",
        "class RateLimiter:\n    def check_quota(self, user, requests):\n        \"\"\"Reject requests over the user's rate limit quota.\"\"\"\n        return requests <= user.quota\n",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_gets_leads_and_relevance_ordered_text_search() {
    let dir = tempfile::tempdir().unwrap();
    support::write_fixture(dir.path(), QUOTA_REPO);
    let server = Server::spawn(dir.path(), Model::Off).await;

    // Without a session: path order, as before.
    let plain = server
        .ok("search_text", json!({"pattern": "quota", "max_results": 1}))
        .await;
    assert_eq!(plain["order"], "path", "{plain:#}");
    assert_eq!(plain["matches"][0]["file"], "src/aaa/report.py");

    let start = server
        .ok(
            "start_session",
            json!({"intent": "MODIFY", "query": "The rate limiter rejects requests under the quota; fix check_quota"}),
        )
        .await;
    let lead = &start["leads"][0];
    assert_eq!(lead["file"], "src/zzz/rate_limiter.py", "{start:#}");
    assert_eq!(lead["rank"], 1);
    let names: Vec<&str> = lead["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["qualified_name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"RateLimiter.check_quota"), "{lead:#}");
    let why = lead["why"].as_str().unwrap();
    assert!(why.contains("rate") && why.contains("quota"), "{why}");

    // In the session: the ranked file first, max_results applied after ordering.
    let ranked = server
        .ok("search_text", json!({"pattern": "quota", "max_results": 1}))
        .await;
    assert_eq!(ranked["order"], "relevance", "{ranked:#}");
    assert_eq!(ranked["matches"][0]["file"], "src/zzz/rate_limiter.py");
    assert_eq!(ranked["total"], plain["total"], "ordering drops nothing");
    // Lines keep their order within the file.
    let all = server.ok("search_text", json!({"pattern": "quota"})).await;
    let lines: Vec<u64> = all["matches"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["file"] == "src/zzz/rate_limiter.py")
        .map(|m| m["line"].as_u64().unwrap())
        .collect();
    assert!(
        lines.len() >= 2 && lines.windows(2).all(|w| w[0] < w[1]),
        "{lines:?}"
    );
    // An explicit order wins.
    let by_path = server
        .ok(
            "search_text",
            json!({"pattern": "quota", "max_results": 1, "order": "path"}),
        )
        .await;
    assert_eq!(by_path["order"], "path");
    assert_eq!(by_path["matches"][0]["file"], "src/aaa/report.py");

    let refs = server
        .ok("find_references", json!({"symbol": "quota"}))
        .await;
    assert_eq!(refs["order"], "relevance", "{refs:#}");
    assert_eq!(refs["references"][0]["file"], "src/zzz/rate_limiter.py");
    server.stop().await;
}
