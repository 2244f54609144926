//! The shared harness of the stdio MCP tests: `code-intel serve --repo DIR` spawned as a child of
//! rmcp's client ([`Server`]), the CLI in the same environment ([`cli_command`], [`cli`]), the
//! provisioned model's cache ([`provisioned_model`]), fixture repositories written into a temp
//! dir ([`fixture_dir`], [`write_fixture`], [`LOGIN_REPO`]), the login session's lexical
//! exploration ([`explore_login`]) and the crash tests' seeded [`Rng`].
//!
//! Each test file says `mod support;` and uses what it needs.

#![allow(
    dead_code,
    reason = "each test binary compiles this module and uses only part of it"
)]
#![allow(
    clippy::print_stderr,
    reason = "skip notices and model-loading waits go to stderr on purpose (visible with --nocapture)"
)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt as _};
use serde_json::{Value, json};

/// A small repository: Python, PHP and JavaScript, under `src/` (a default `source_dirs` entry):
/// a login service, password hashing, a login view, a PHP cart and a JS checkout.
pub const LOGIN_REPO: &[(&str, &str)] = &[
    (
        "src/auth/login_service.py",
        r#""""Login: checks a user's password and opens a session."""
from src.auth.passwords import hash_password


class LoginService:
    """Authenticates users against the user store."""

    def __init__(self, users):
        self.users = users

    def authenticate(self, username, password):
        user = self.users.get(username)
        if user is None:
            return None
        if user.password_hash != hash_password(password):
            return None
        return user
"#,
    ),
    (
        "src/auth/passwords.py",
        r#"import hashlib


def hash_password(password):
    return hashlib.sha256(password.encode()).hexdigest()
"#,
    ),
    (
        "src/auth/views.py",
        r#"from src.auth.login_service import LoginService


def login_view(request, users):
    service = LoginService(users)
    user = service.authenticate(request.form["username"], request.form["password"])
    if user is None:
        return {"status": 401}
    return {"status": 200, "user": user.name}
"#,
    ),
    (
        "src/billing/Cart.php",
        r#"<?php
namespace App\Billing;

class Cart
{
    private array $items = [];

    public function addItem(string $sku, int $quantity): void
    {
        $this->items[$sku] = ($this->items[$sku] ?? 0) + $quantity;
    }

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
        r#"export function renderCart(items) {
  return items.map((i) => `<li>${i.name}: ${formatPrice(i.price)}</li>`).join("");
}

export const formatPrice = (cents) => `$${(cents / 100).toFixed(2)}`;
"#,
    ),
];

/// A MODIFY request against [`LOGIN_REPO`].
pub const LOGIN_QUERY: &str = "Login fails when the password has trailing spaces; change LoginService.authenticate to strip the password before checking it";

/// `submit_understanding` arguments for [`LOGIN_QUERY`] on [`LOGIN_REPO`], after exploring with
/// `find_definitions(LoginService)`, `find_references(authenticate)` and
/// `search_text(hash_password\()`: enough for the strictest (HIGH) table, so the session goes to
/// READY.
pub fn login_understanding() -> Value {
    json!({
        "symbols_identified": ["LoginService", "authenticate", "hash_password", "login_view", "LoginService.__init__"],
        "entry_points": ["LoginService.authenticate", "login_view"],
        "files_analyzed": ["src/auth/login_service.py", "src/auth/passwords.py", "src/auth/views.py", "src/billing/Cart.php"],
        "existing_patterns": ["services return None on failure", "passwords are compared as hashes"],
        "slot_evidence": {
            "target_feature": {"tool": "find_definitions", "params": {"symbol": "LoginService"}, "result_summary": "LoginService in src/auth/login_service.py"},
            "observed_issue": {"tool": "search_text", "params": {"pattern": "hash_password\\("}, "result_summary": "password hashed without strip"},
            "desired_action": {"tool": "find_references", "params": {"symbol": "authenticate"}, "result_summary": "called from login_view"},
        },
    })
}

/// Writes `body` to `dir/path`, creating the parent folders.
pub fn write_file(dir: &Path, path: &str, body: &str) {
    let p = dir.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, body).unwrap();
}

/// Writes `files` (path, body) under `dir` and marks it a repository root (`.git/`).
pub fn write_fixture(dir: &Path, files: &[(&str, &str)]) {
    for (path, body) in files {
        write_file(dir, path, body);
    }
    std::fs::create_dir_all(dir.join(".git")).unwrap();
}

/// A new temp dir holding `files` as a repository ([`write_fixture`]); removed when dropped.
pub fn fixture_dir(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path(), files);
    dir
}

/// The model cache: `CODE_INTEL_MODEL_DIR`, else `${XDG_CACHE_HOME:-$HOME/.cache}/code-intel/models`.
pub fn model_cache() -> PathBuf {
    if let Some(dir) = std::env::var_os("CODE_INTEL_MODEL_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .expect("set CODE_INTEL_MODEL_DIR")
        .join("code-intel/models")
}

/// The model cache when the default model is provisioned in it. Without one the calling test
/// FAILS with the fix (run scripts/model/fetch.sh), unless `CODE_INTEL_SKIP_MODEL_TESTS=1`: then
/// this says so on stderr and returns `None`, and the test returns early.
pub fn provisioned_model() -> Option<PathBuf> {
    let cache = model_cache();
    if cache.join("multilingual-e5-small/manifest.json").is_file() {
        return Some(cache);
    }
    if std::env::var("CODE_INTEL_SKIP_MODEL_TESTS").as_deref() == Ok("1") {
        eprintln!(
            "!!! SKIPPING: no model in {} (CODE_INTEL_SKIP_MODEL_TESTS=1)",
            cache.display()
        );
        return None;
    }
    panic!(
        "no embedding model in {}: run scripts/model/fetch.sh, or CODE_INTEL_SKIP_MODEL_TESTS=1 to skip",
        cache.display()
    );
}

/// Which embedding model the spawned server gets.
#[derive(Debug, Clone, Copy)]
pub enum Model<'a> {
    /// Whatever the test's own environment says (`CODE_INTEL_EMBEDDINGS`, `CODE_INTEL_MODEL_DIR`
    /// or the default cache).
    Inherited,
    /// The model cache at this path (`CODE_INTEL_MODEL_DIR`); an empty dir means no model.
    Dir(&'a Path),
    /// No model at all (`CODE_INTEL_EMBEDDINGS=off`).
    Off,
}

/// `code-intel <args> --repo <repo>` with `CODE_INTEL_LOG=warn`, not inheriting a Claude Code
/// session or project (the test may itself run inside Claude Code).
pub fn cli_command(args: &[&str], repo: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_code-intel"));
    cmd.args(args).arg("--repo").arg(repo);
    for var in [
        "CLAUDE_CODE_SESSION_ID",
        "CLAUDE_PROJECT_DIR",
        "CODE_INTEL_PROJECT",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("CODE_INTEL_LOG", "warn");
    cmd
}

/// Runs [`cli_command`] to the end: (exit status success, stdout, stderr).
pub fn cli(args: &[&str], repo: &Path) -> (bool, String, String) {
    let out = cli_command(args, repo).output().unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// `code-intel serve --repo <repo>`: the [`cli_command`] environment, for tokio.
pub fn serve_command(repo: &Path) -> tokio::process::Command {
    cli_command(&["serve"], repo).into()
}

/// A running `code-intel serve` and the rmcp client talking to it over stdio.
pub struct Server {
    pub client: RunningService<RoleClient, ()>,
}

impl Server {
    /// Spawns [`serve_command`] for `repo` with `model`.
    pub async fn spawn(repo: &Path, model: Model<'_>) -> Self {
        let mut cmd = serve_command(repo);
        match model {
            Model::Inherited => {}
            Model::Dir(dir) => {
                cmd.env_remove("CODE_INTEL_EMBEDDINGS");
                cmd.env("CODE_INTEL_MODEL_DIR", dir);
            }
            Model::Off => {
                cmd.env("CODE_INTEL_EMBEDDINGS", "off");
            }
        }
        Self::from_command(cmd).await
    }

    /// Spawns `cmd` (a [`serve_command`], adjusted) and connects the client.
    pub async fn from_command(cmd: tokio::process::Command) -> Self {
        let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
        Self { client }
    }

    /// Calls `tool` with `args` (a JSON object); a JSON-RPC error panics.
    pub async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        let Value::Object(map) = args else {
            panic!("arguments must be an object")
        };
        self.client
            .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(map))
            .await
            .unwrap_or_else(|e| panic!("{tool}: JSON-RPC error {e}"))
    }

    /// (is_error, structured content); a result without structured content panics.
    pub async fn body(&self, tool: &str, args: Value) -> (bool, Value) {
        let r = self.call(tool, args).await;
        let body = r
            .structured_content
            .clone()
            .unwrap_or_else(|| panic!("{tool}: no structured content: {r:?}"));
        (r.is_error == Some(true), body)
    }

    /// Calls a tool that must succeed; returns its structured content.
    pub async fn ok(&self, tool: &str, args: Value) -> Value {
        let (failed, body) = self.body(tool, args).await;
        assert!(!failed, "{tool} failed: {body:#}");
        body
    }

    /// Calls a tool that must fail with `isError`; returns its structured content.
    pub async fn err(&self, tool: &str, args: Value) -> Value {
        let (failed, body) = self.body(tool, args).await;
        assert!(failed, "{tool} should have failed: {body:#}");
        body
    }

    /// Calls `tool` until it stops answering "initializing" (the model loads in the background),
    /// checking the shape of that answer on the way; gives up after 180 s.
    pub async fn after_model_loaded(&self, tool: &str, args: Value) -> (bool, Value) {
        let deadline = Instant::now() + Duration::from_secs(180);
        loop {
            let (failed, body) = self.body(tool, args.clone()).await;
            if !(failed && body["error"] == "initializing") {
                return (failed, body);
            }
            eprintln!("{tool}: initializing ({})", body["message"]);
            let retry = body["retry_after_seconds"]
                .as_u64()
                .expect("retry_after_seconds");
            assert!(retry >= 1, "{body}");
            assert!(
                body["message"].as_str().unwrap().contains("retry after"),
                "{body}"
            );
            assert!(Instant::now() < deadline, "the model did not load in 180 s");
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }

    /// Cancels the client and with it the transport to the child process.
    pub async fn stop(self) {
        self.client.cancel().await.unwrap();
    }
}

/// The lexical exploration of [`LOGIN_QUERY`] on [`LOGIN_REPO`] that [`login_understanding`]
/// cites, none of it needing the model: `start_session` (MODIFY), `set_query_frame` with two
/// quotes copied from the request (checked to succeed), `find_definitions(LoginService)`,
/// `find_references(authenticate)` and `search_text(hash_password\()`. Returns `start_session`'s
/// answer.
pub async fn explore_login(server: &Server) -> Value {
    let start = server
        .ok(
            "start_session",
            json!({"intent": "MODIFY", "query": LOGIN_QUERY}),
        )
        .await;
    let frame = server
        .ok(
            "set_query_frame",
            json!({"target_feature": {"value": "login", "quote": "Login"},
                   "desired_action": {"value": "strip the password", "quote": "strip the password before checking it"}}),
        )
        .await;
    assert_eq!(frame["success"], true, "{frame:#}");
    server
        .ok("find_definitions", json!({"symbol": "LoginService"}))
        .await;
    server
        .ok("find_references", json!({"symbol": "authenticate"}))
        .await;
    server
        .ok("search_text", json!({"pattern": "hash_password\\("}))
        .await;
    start
}

/// A small deterministic PRNG (xorshift64*) for the crash tests' kill points: a run replays from
/// its seed.
pub struct Rng(u64);

impl Rng {
    /// Seeded from `CODE_INTEL_CRASH_SEED`, else from the clock; the seed goes to stderr as
    /// `CODE_INTEL_CRASH_SEED=<seed>` (shown for a failing test: set it to replay the run).
    pub fn from_crash_seed() -> Self {
        let seed = std::env::var("CODE_INTEL_CRASH_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_nanos() as u64
                    | 1
            });
        eprintln!("CODE_INTEL_CRASH_SEED={seed}");
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The `file` of every entry of the array `v[list]`, in order.
pub fn files_of(v: &Value, list: &str) -> Vec<String> {
    v[list]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["file"].as_str().unwrap().to_string())
        .collect()
}
