//! Hostile and damaged state under `.code-intel/` and in the repository, through real processes
//! (issue 40): the learned map as a FIFO, truncated, garbage, a directory; a deleted
//! `index/lexical/meta.json`; symlinks, FIFOs and sockets in the repository; a file over the
//! parser budget. Nothing hangs, `doctor` names the damage, `repair` fixes it without losing a
//! learned pair, and every file not indexed is listed with its reason.

mod support;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{LOGIN_REPO as FIXTURE, Model, Server};

/// Long enough for a debug build on a loaded machine; a hang is forever.
const HANG: Duration = Duration::from_secs(120);

/// `code-intel ARGS --repo DIR` without a model, killed (and the test failed) if it runs past
/// [`HANG`].
fn run(dir: &Path, args: &[&str]) -> Output {
    run_with(dir, args, None)
}

/// [`run`] with the model cache `model` (`search --collection map` needs the model).
fn run_with(dir: &Path, args: &[&str], model: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_code-intel"));
    match model {
        Some(cache) => cmd
            .env("CODE_INTEL_MODEL_DIR", cache)
            .env_remove("CODE_INTEL_EMBEDDINGS"),
        None => cmd
            .env("CODE_INTEL_EMBEDDINGS", "off")
            .env("CODE_INTEL_MODEL_DIR", dir.join(".no-model")),
    };
    let mut child = cmd
        .args(args)
        .arg("--repo")
        .arg(dir)
        .env("CODE_INTEL_LOG", "warn")
        .env_remove("CLAUDE_PROJECT_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if started.elapsed() > HANG {
            child.kill().ok();
            panic!("code-intel {args:?} hung (killed after {HANG:?})");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).into_owned()
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON ({e}): {}\n{}",
            text(&out.stdout),
            text(&out.stderr)
        )
    })
}

/// The `learned map` check of `doctor --json`.
fn doctor_map_check(dir: &Path) -> Value {
    let out = run(dir, &["doctor", "--json", "--no-model-load"]);
    let report = json_of(&out);
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "learned map")
        .cloned()
        .unwrap_or_else(|| panic!("no learned map check: {report:#}"))
}

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    support::write_fixture(dir.path(), FIXTURE);
    dir
}

const AGREEMENT: &str = "---\ndoc_type: agreement\nnl_term: login\nsymbol: LoginService\nsimilarity: 0.91\nlearned_at: 2026-11-01T00:00:00Z\n---\n\n## 根拠 (Code Evidence)\n- LoginService.authenticate checks the password\n";

fn pairs_json() -> String {
    json!({"version": 2, "pairs": [
        {"nl_term": "login", "symbol": "LoginService", "learned_at": "2026-11-01T00:00:00Z", "agreement_file": "login.md"},
        {"nl_term": "password hashing", "symbol": "hash_password", "learned_at": "2026-11-01T00:00:00Z"},
        {"nl_term": "cart total", "symbol": "Cart.total", "learned_at": "2026-11-01T00:00:00Z"}
    ]})
    .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifo_as_the_learned_map_hangs_nothing_and_is_named_and_repaired() {
    let dir = fixture();
    let d = dir.path();
    assert!(run(d, &["index"]).status.success());
    mkfifo(&d.join(".code-intel/learned_pairs.json"));

    // The CLI reads the map after loading the model (the hang: killed at 15 s).
    let model = support::provisioned_model();
    if let Some(cache) = &model {
        let out = run_with(d, &["search", "login", "--collection", "map"], Some(cache));
        let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(said.contains("code-intel repair"), "{said}");
    }

    let check = doctor_map_check(d);
    assert_eq!(check["status"], "fail", "{check}");
    assert!(
        check["detail"]
            .as_str()
            .unwrap()
            .contains("learned_pairs.json"),
        "{check}"
    );

    // Over MCP: every map tool answers (an error naming the fix, or no hints).
    let server = Server::spawn(d, Model::Off).await;
    let within = |what: &'static str, f| async move {
        tokio::time::timeout(HANG, f)
            .await
            .unwrap_or_else(|_| panic!("{what} did not answer"))
    };
    let start = within(
        "start_session",
        server.body(
            "start_session",
            json!({"intent": "modify", "query": support::LOGIN_QUERY}),
        ),
    )
    .await;
    assert!(!start.0, "{}", start.1);
    let (failed, body) = within(
        "search_map",
        server.body("search_map", json!({"query": "login"})),
    )
    .await;
    assert!(failed, "{body}");
    assert!(body.to_string().contains("code-intel repair"), "{body}");
    let e = server.err("list_agreements", json!({})).await;
    assert_eq!(e["error"], "learned_map_unreadable", "{e}");
    assert!(
        e["message"].as_str().unwrap().contains("code-intel repair"),
        "{e}"
    );
    server.stop().await;

    let out = run(d, &["repair"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("moved aside"),
        "{}",
        text(&out.stdout)
    );
    assert!(d.join(".code-intel/learned_pairs.json").is_file());
    assert_eq!(doctor_map_check(d)["status"], "pass");
    if let Some(cache) = &model {
        let out = run_with(d, &["search", "login", "--collection", "map"], Some(cache));
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_kind_of_map_damage_fails_doctor_and_repair_keeps_the_pairs() {
    type Damage = fn(&Path);
    let cases: Vec<(&str, Damage, &str)> = vec![
        (
            "empty",
            |s| std::fs::write(s.join("learned_pairs.json"), "").unwrap(),
            "learned_pairs.json",
        ),
        (
            "truncated",
            |s| {
                let full = pairs_json();
                std::fs::write(s.join("learned_pairs.json"), &full[..full.len() * 2 / 3]).unwrap();
            },
            "learned_pairs.json",
        ),
        (
            "garbage",
            |s| std::fs::write(s.join("learned_pairs.json"), b"\x00\xffnot json").unwrap(),
            "learned_pairs.json",
        ),
        (
            "a directory",
            |s| {
                std::fs::remove_file(s.join("learned_pairs.json")).unwrap();
                std::fs::create_dir(s.join("learned_pairs.json")).unwrap();
            },
            "learned_pairs.json",
        ),
        (
            "agreements is a file",
            |s| {
                std::fs::remove_dir_all(s.join("agreements")).unwrap();
                std::fs::write(s.join("agreements"), "x").unwrap();
            },
            "agreements",
        ),
        (
            "an agreement is a FIFO",
            |s| mkfifo(&s.join("agreements/pipe.md")),
            "pipe.md",
        ),
        (
            "an agreement is binary",
            |s| std::fs::write(s.join("agreements/bin.md"), b"\xff\xfe\x00\x01").unwrap(),
            "bin.md",
        ),
        (
            "an agreement is cut",
            |s| {
                std::fs::write(
                    s.join("agreements/login.md"),
                    "---\ndoc_type: agreement\nnl_te",
                )
                .unwrap()
            },
            "login.md",
        ),
    ];
    for (what, damage, named) in cases {
        let dir = fixture();
        let d = dir.path();
        let state = d.join(".code-intel");
        std::fs::create_dir_all(state.join("agreements")).unwrap();
        std::fs::write(state.join("learned_pairs.json"), pairs_json()).unwrap();
        std::fs::write(state.join("agreements/login.md"), AGREEMENT).unwrap();
        assert_eq!(
            doctor_map_check(d)["status"],
            "pass",
            "{what}: sound before"
        );
        damage(&state);
        let check = doctor_map_check(d);
        assert_eq!(check["status"], "fail", "{what}: {check}");
        assert!(
            check["detail"].as_str().unwrap().contains(named),
            "{what}: {check}"
        );
        assert!(
            check["fix"].as_str().unwrap().contains("code-intel repair"),
            "{what}: {check}"
        );

        let out = run(d, &["repair", "--json"]);
        assert!(out.status.success(), "{what}: {}", text(&out.stderr));
        let report = json_of(&out)["map"].clone();
        let moved = report["moved_aside"].as_array().unwrap();
        assert!(!moved.is_empty(), "{what}: {report}");
        for m in moved {
            let kept = Path::new(m["to"].as_str().unwrap());
            assert!(
                std::fs::symlink_metadata(kept).is_ok(),
                "{what}: the copy {kept:?} exists"
            );
        }
        assert_eq!(doctor_map_check(d)["status"], "pass", "{what}: repaired");
        // The pairs the agreement restates are never lost; a cut file keeps its first pairs.
        let server = Server::spawn(d, Model::Off).await;
        let listing = server
            .ok("list_agreements", json!({"include_stale": true}))
            .await;
        let text = listing.to_string();
        if what != "an agreement is cut" {
            assert!(text.contains("LoginService"), "{what}: {listing}");
        }
        if matches!(
            what,
            "an agreement is a FIFO"
                | "an agreement is binary"
                | "agreements is a file"
                | "an agreement is cut"
        ) {
            assert!(
                text.contains("hash_password") && text.contains("Cart.total"),
                "{what}: {listing}"
            );
        }
        server.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_meta_json_is_noticed_on_open_by_every_index_backed_command() {
    let dir = fixture();
    let d = dir.path();
    let meta = d.join(".code-intel/index/lexical/meta.json");
    let index_and_delete = || {
        assert!(run(d, &["index"]).status.success());
        std::fs::remove_file(&meta).unwrap();
    };

    index_and_delete();
    let out = run(d, &["find-definitions", "LoginService", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let found = json_of(&out);
    assert_eq!(
        found["definitions"][0]["file"], "src/auth/login_service.py",
        "{found}"
    );
    assert!(
        text(&out.stderr).contains("meta.json is missing"),
        "{}",
        text(&out.stderr)
    );

    index_and_delete();
    let status = json_of(&run(d, &["status", "--json"]));
    assert!(
        status["repaired"]
            .as_str()
            .is_some_and(|r| r.contains("meta.json is missing")),
        "{status}"
    );
    assert!(
        status["index"]["chunks"].as_u64().unwrap() > 0,
        "status refilled it: {status}"
    );

    index_and_delete();
    let out = run(d, &["doctor", "--json", "--no-model-load"]);
    let report = json_of(&out);
    let index = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "index")
        .unwrap();
    assert_ne!(index["status"], "pass", "{index}");
    assert!(
        index["detail"]
            .as_str()
            .unwrap()
            .contains("meta.json is missing"),
        "{index}"
    );

    // The MCP server opened after the damage answers from the sources, never "no definitions".
    index_and_delete();
    let server = Server::spawn(d, Model::Off).await;
    let defs = server
        .ok("find_definitions", json!({"symbol": "LoginService"}))
        .await;
    assert_eq!(
        defs["definitions"][0]["file"], "src/auth/login_service.py",
        "{defs}"
    );
    server.stop().await;
}

#[test]
fn every_file_not_indexed_is_listed_with_its_reason_and_the_counts_agree() {
    use std::os::unix::fs::symlink;
    let dir = fixture();
    let d = dir.path();
    let src = d.join("src");
    symlink(src.join("loop_b"), src.join("loop_a")).unwrap();
    symlink(src.join("loop_a"), src.join("loop_b")).unwrap();
    symlink("/etc", src.join("etc_link")).unwrap();
    symlink("/dev/zero", src.join("zero.py")).unwrap();
    symlink("auth/passwords.py", src.join("passwords_link.py")).unwrap();
    mkfifo(&src.join("pipe.py"));
    let _socket = std::os::unix::net::UnixListener::bind(src.join("sock.py")).unwrap();
    std::fs::write(src.join("blob.py"), b"\x00\x01\x02binary\x00").unwrap();

    let first = json_of(&run(d, &["index", "--json"]));
    let skipped = first["files_skipped"].as_array().unwrap();
    let reason = |path: &str| -> String {
        skipped
            .iter()
            .find(|s| s["path"] == path)
            .unwrap_or_else(|| panic!("{path} not in the skipped list: {first:#}"))["reason"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(reason("src/loop_a").contains("loop"));
    assert!(reason("src/loop_b").contains("loop"));
    assert!(reason("src/etc_link").contains("outside the repository"));
    assert!(reason("src/zero.py").contains("FIFO, socket or device"));
    assert!(reason("src/passwords_link.py").contains("inside the repository"));
    assert!(reason("src/pipe.py").contains("FIFO"));
    assert!(reason("src/sock.py").contains("socket"));
    assert!(!reason("src/blob.py").is_empty());

    let status = json_of(&run(d, &["status", "--json"]));
    assert_eq!(
        status["index"]["not_indexed"].as_u64().unwrap() as usize,
        skipped.len(),
        "status: {status:#}\nindex: {first:#}"
    );
    let out = run(d, &["status"]);
    assert!(
        text(&out.stdout).contains(&format!("skipped: {} paths", skipped.len())),
        "{}",
        text(&out.stdout)
    );
    // A sync that changes nothing lists the same files.
    let again = json_of(&run(d, &["index", "--json"]));
    assert_eq!(again["files_skipped"], first["files_skipped"], "{again:#}");
    let out = run(d, &["index"]);
    assert!(
        text(&out.stdout).contains(&format!("skipped {} files", skipped.len())),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn a_file_over_the_parser_budget_says_so_in_analyze_structure() {
    let dir = fixture();
    let d = dir.path();
    // Nested one level per line past MAX_SYNTAX_DEPTH (1,024): over the parser's depth budget.
    let n = 3_000;
    let body = format!(
        "function outer() {{ return 1; }}\nconst o = {}1{};\n",
        "{a:\n".repeat(n),
        "}".repeat(n)
    );
    support::write_file(d, "src/web/nested.js", &body);
    let out = run(d, &["analyze-structure", "src/web/nested.js", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r = json_of(&out);
    let file = &r["files"][0];
    assert!(
        file["fallback"]
            .as_str()
            .is_some_and(|f| f.contains("parser budget exceeded")),
        "{r:#}"
    );
}
