//! The command line on a fixture repository: `index --json` counts across changes, `search`
//! ranking and `--batch`, `status`, the exploration subcommands, and exit codes.

mod support;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const FIXTURE: &[(&str, &str)] = &[
    (
        "src/auth/login_service.py",
        r#"class LoginService:
    """Checks a user's password and opens a session."""

    def authenticate(self, username, password):
        user = self.users.get(username)
        return user if user and user.check_password(password) else None
"#,
    ),
    (
        "src/mail/notifier.py",
        r#"def send_password_reset_email(user, token):
    """Email the user a link to reset a forgotten password."""
    link = f"https://example.invalid/reset?token={token}"
    return deliver(user.email, subject="Reset your password", body=link)
"#,
    ),
    (
        "src/billing/Cart.php",
        r#"<?php
namespace App\Billing;

class Cart
{
    /** Sum of price times quantity over all items in the cart. */
    public function total(array $prices): int
    {
        $sum = 0;
        foreach ($this->items as $sku => $qty) {
            $sum += $prices[$sku] * $qty;
        }
        return $sum;
    }
}
"#,
    ),
    (
        "src/web/checkout.js",
        r#"/** Format an amount in cents as dollars, e.g. 1250 -> "$12.50". */
export const formatPrice = (cents) => `$${(cents / 100).toFixed(2)}`;

export function renderCart(items) {
  return items.map((i) => formatPrice(i.price)).join(", ");
}
"#,
    ),
];

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, body) in FIXTURE {
        write(dir.path(), path, body.as_bytes());
    }
    // A binary file: the index must skip it with a reason, not fail.
    write(
        dir.path(),
        "src/assets/logo.png",
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0",
    );
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    dir
}

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

fn code_intel(repo: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut cmd = support::cli_command(args, repo);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    {
        use std::io::Write as _;
        let mut input = child.stdin.take().unwrap();
        if let Some(text) = stdin {
            input.write_all(text.as_bytes()).unwrap();
        }
    }
    child.wait_with_output().unwrap()
}

/// Runs a command that must succeed and print one JSON document.
fn json(repo: &Path, args: &[&str]) -> Value {
    let out = code_intel(repo, args, None);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stdout)))
}

#[test]
fn index_json_counts_follow_the_working_tree() {
    let dir = repo();
    let r = json(dir.path(), &["index", "--json"]);
    assert_eq!(r["files_added"], 4, "{r:#}");
    assert_eq!(
        (r["files_modified"].as_u64(), r["files_deleted"].as_u64()),
        (Some(0), Some(0)),
        "{r:#}"
    );
    let skipped = r["files_skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{r:#}");
    assert_eq!(skipped[0]["path"], "src/assets/logo.png");
    assert!(
        skipped[0]["reason"].as_str().unwrap().contains("binary"),
        "{r:#}"
    );
    // Four modules plus at least class, method, function, const-arrow and function chunks.
    assert!(r["chunks"].as_u64().unwrap() >= 9, "{r:#}");
    assert!(r["duration_ms"].is_u64());

    let again = json(dir.path(), &["index", "--json"]);
    assert_eq!(
        (
            again["files_added"].as_u64(),
            again["files_modified"].as_u64()
        ),
        (Some(0), Some(0)),
        "{again:#}"
    );
    assert_eq!(again["files_unchanged"], 4, "{again:#}");
    assert_eq!(again["chunks"], r["chunks"]);

    write(
        dir.path(),
        "src/web/checkout.js",
        b"export const formatPrice = (cents) => `${cents}`;\n",
    );
    std::fs::remove_file(dir.path().join("src/mail/notifier.py")).unwrap();
    write(
        dir.path(),
        "src/mail/sms.py",
        b"def send_sms(number, text):\n    return gateway.post(number, text)\n",
    );
    let changed = json(dir.path(), &["index", "--json"]);
    assert_eq!(
        (
            changed["files_added"].as_u64(),
            changed["files_modified"].as_u64(),
            changed["files_deleted"].as_u64()
        ),
        (Some(1), Some(1), Some(1)),
        "{changed:#}"
    );
}

#[test]
fn search_ranks_the_file_that_implements_a_described_behaviour_first() {
    let dir = repo();
    json(dir.path(), &["index", "--json"]);
    for (query, expected) in [
        (
            "email a link to reset a forgotten password",
            "src/mail/notifier.py",
        ),
        ("format cents as dollars", "src/web/checkout.js"),
        (
            "sum of price times quantity in the cart",
            "src/billing/Cart.php",
        ),
    ] {
        let r = json(dir.path(), &["search", "--json", "--top", "3", query]);
        assert_eq!(r["query"], query);
        let hits = r["hits"].as_array().unwrap();
        assert!(!hits.is_empty() && hits.len() <= 3, "{r:#}");
        assert_eq!(hits[0]["file"], expected, "{query}: {r:#}");
        for key in ["start_line", "end_line", "symbol", "kind", "score"] {
            assert!(!hits[0][key].is_null(), "{key} missing: {r:#}");
        }
    }
}

#[test]
fn search_syncs_a_never_indexed_repository_first() {
    let dir = repo();
    let r = json(
        dir.path(),
        &["search", "--json", "send_password_reset_email"],
    );
    assert_eq!(r["hits"][0]["file"], "src/mail/notifier.py", "{r:#}");
}

#[test]
fn batch_answers_one_line_per_query_with_ids_echoed() {
    let dir = repo();
    json(dir.path(), &["index", "--json"]);
    // The last query is lexical (as the default `auto` would search it anyway): a hybrid search
    // returns the nearest vectors even for a word no chunk has.
    let input = "{\"query\": \"reset password email\", \"id\": \"q1\"}\n\n{\"query\": \"formatPrice\", \"top\": 1}\n{\"query\": \"zzzz-no-such-term\", \"mode\": \"lexical\"}\n";
    let out = code_intel(dir.path(), &["search", "--batch"], Some(input));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{lines:#?}");
    assert_eq!(lines[0]["id"], "q1");
    assert_eq!(lines[0]["hits"][0]["file"], "src/mail/notifier.py");
    assert_eq!(lines[1]["query"], "formatPrice");
    assert_eq!(lines[1]["hits"].as_array().unwrap().len(), 1);
    assert_eq!(lines[1]["hits"][0]["file"], "src/web/checkout.js");
    assert_eq!(lines[2]["hits"], serde_json::json!([]));

    let bad = code_intel(dir.path(), &["search", "--batch"], Some("not json\n"));
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("stdin line 1"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}

#[test]
fn status_reports_the_index() {
    let dir = repo();
    let before = json(dir.path(), &["status", "--json"]);
    assert!(before["index"].is_null(), "{before:#}");
    assert_eq!(before["needs_sync"], true);
    assert!(
        !dir.path().join(".code-intel").exists(),
        "status must not create state"
    );
    json(dir.path(), &["index", "--json"]);
    let after = json(dir.path(), &["status", "--json"]);
    assert_eq!(after["index"]["files"], 4, "{after:#}");
    assert!(after["index"]["last_sync"].is_string(), "{after:#}");
    assert_eq!(after["needs_sync"], false);
    assert_eq!(after["sessions"], serde_json::json!([]));

    // Sessions (started here through core, as the MCP server would) are listed.
    let root = code_intel_session::repo_path::RepoRoot::new(dir.path()).unwrap();
    let store = code_intel_session::session::store::SessionStore::new(root);
    let started = store
        .start(
            code_intel_session::vocab::Intent::Modify,
            "fix the cart total",
            None,
        )
        .unwrap();
    let listed = json(dir.path(), &["status", "--json"]);
    let sessions = listed["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1, "{listed:#}");
    assert_eq!(sessions[0]["session_id"], started.session_id.as_str());
    assert_eq!(
        (
            sessions[0]["intent"].as_str(),
            sessions[0]["phase"].as_str()
        ),
        (Some("MODIFY"), Some("EXPLORATION"))
    );
    let out = code_intel(dir.path(), &["status"], None);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(started.session_id.as_str()) && text.contains("fix the cart total"),
        "{text}"
    );
}

#[test]
fn exploration_subcommands_print_core_results() {
    let dir = repo();
    let d = json(
        dir.path(),
        &["find-definitions", "--json", "App\\Billing\\Cart::total"],
    );
    assert_eq!(d["definitions"][0]["file"], "src/billing/Cart.php", "{d:#}");
    assert_eq!(d["definitions"][0]["kind"], "method", "{d:#}");
    let r = json(dir.path(), &["find-references", "--json", "formatPrice"]);
    assert_eq!(r["references"][0]["file"], "src/web/checkout.js", "{r:#}");
    assert_eq!(
        r["references"][0]["enclosing_symbol"], "renderCart",
        "{r:#}"
    );
    let t = json(
        dir.path(),
        &["search-text", "--json", "-F", "$prices[$sku]"],
    );
    assert_eq!(t["total"], 1, "{t:#}");
    let s = json(
        dir.path(),
        &["analyze-structure", "--json", "src/auth/login_service.py"],
    );
    assert_eq!(s["files"][0]["symbols"][0]["name"], "LoginService", "{s:#}");
    assert_eq!(
        s["files"][0]["symbols"][0]["children"][0]["name"], "authenticate",
        "{s:#}"
    );
    let f = json(
        dir.path(),
        &["function-at-line", "--json", "src/mail/notifier.py", "3"],
    );
    assert_eq!(f["function"]["name"], "send_password_reset_email", "{f:#}");

    // Text output names file:line.
    let out = code_intel(dir.path(), &["find-definitions", "authenticate"], None);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("src/auth/login_service.py:4-"), "{text}");
}

#[test]
fn exit_codes_are_zero_one_two() {
    let dir = repo();
    let usage = code_intel(dir.path(), &["search"], None);
    assert_eq!(usage.status.code(), Some(2));
    let unknown = code_intel(dir.path(), &["frobnicate"], None);
    assert_eq!(unknown.status.code(), Some(2));
    let outside = code_intel(dir.path(), &["analyze-structure", "../"], None);
    assert_eq!(outside.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&outside.stderr);
    assert!(stderr.contains("outside the repository"), "{stderr}");
    let bad_regex = code_intel(dir.path(), &["search-text", "("], None);
    assert_eq!(bad_regex.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&bad_regex.stderr).contains("literal"),
        "the message names the fix"
    );
    let help = code_intel(dir.path(), &["--help"], None);
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).contains("find-definitions"));
}

/// The server re-executes itself once with glibc's malloc tunables and mimalloc's purge delay 0
/// (`mcp/src/malloc.rs`), answers MCP over the same stdio afterwards, and leaves them out with
/// `CODE_INTEL_MALLOC_TUNING=0`.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn the_server_runs_with_the_malloc_tunables_unless_switched_off() {
    use std::io::{BufRead as _, BufReader, Write as _};
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/a.py", b"def f():\n    return 1\n");
    for (opt_out, expect) in [(None, true), (Some("0"), false)] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_code-intel"));
        cmd.arg("serve")
            .arg("--repo")
            .arg(dir.path())
            .env("CODE_INTEL_LOG", "warn")
            .env("CODE_INTEL_EMBEDDINGS", "off")
            .env_remove("GLIBC_TUNABLES")
            .env_remove("MIMALLOC_PURGE_DELAY")
            .env_remove("CODE_INTEL_MALLOC_TUNED")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        match opt_out {
            Some(v) => cmd.env("CODE_INTEL_MALLOC_TUNING", v),
            None => cmd.env_remove("CODE_INTEL_MALLOC_TUNING"),
        };
        let mut child = cmd.spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        writeln!(
            stdin,
            r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"t","version":"0"}}}}}}"#
        )
        .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let reply: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(reply["id"], 1, "{line}");
        assert!(reply["result"]["serverInfo"].is_object(), "{line}");
        // Answered, so any re-exec is behind us. /proc shows the environment block as the
        // process started (glibc may cut the value at its first `:` while parsing it).
        let environ = std::fs::read(format!("/proc/{}/environ", child.id())).unwrap();
        let tuned = environ
            .split(|b| *b == 0)
            .any(|v| v.starts_with(b"GLIBC_TUNABLES=glibc.malloc."));
        let purged = environ
            .split(|b| *b == 0)
            .any(|v| v == b"MIMALLOC_PURGE_DELAY=0");
        drop(stdin);
        child.kill().ok();
        child.wait().unwrap();
        assert_eq!(tuned, expect, "opt-out {opt_out:?}");
        assert_eq!(purged, expect, "opt-out {opt_out:?}");
    }
}
