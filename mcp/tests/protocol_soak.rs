//! Soak (issue 40): one `code-intel serve` over real stdio gets 1,000 requests in one burst, a
//! mix of valid tool calls, hostile ones (200 `\w{1,10000}` regexes, oversized arguments,
//! pathological patterns) and malformed JSON-RPC (bad JSON, invalid UTF-8, lone surrogates,
//! 100,000-deep nesting, `1e400` ids, batches, wrong params, three lines over 16 MiB). Every
//! request must get exactly one answer, with its id (or `null` when no id could be read), within
//! [`raw_stdio::HANG`]; the server's peak RSS must stay under the budget's documented ceiling
//! (1 GiB, `server/budget.rs`). No timing assertion beyond the hang bound: latencies and the peak
//! are printed (`--nocapture`) for docs/BENCHMARKS.md.
//!
//! Environment: `CODE_INTEL_SOAK_FILES` (default 300) sizes the generated repository;
//! `CODE_INTEL_SOAK_BIN` drives another binary (a release build) instead of this crate's
//! (`scripts/bench-hostile.sh --soak` sets both).

#![allow(
    clippy::print_stderr,
    reason = "the measured peak and latencies go to stderr on purpose (visible with --nocapture)"
)]

mod raw_stdio;
mod support;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use raw_stdio::Raw;
use serde_json::{Value, json};

/// Requests of the burst.
const REQUESTS: usize = 1_000;
/// Of which concurrent `\w{1,10000}` searches.
const HOSTILE_REGEXES: usize = 200;
/// The ceiling of the server's resident memory (`server/budget.rs`'s `CEILING_MIB`), KiB.
const CEILING_KIB: u64 = 1024 * 1024;

/// Writes `files` Python and JavaScript files under `dir/src/` (100 per directory), each with a
/// few functions calling each other across files, and marks `dir` a repository.
fn soak_repo(dir: &std::path::Path, files: usize) {
    for i in 0..files {
        let (ext, body) = if i % 4 == 3 {
            (
                "js",
                format!(
                    "export function handler{i}(request) {{\n  return compute{}(request.body);\n}}\n\nexport const render{i} = (items) => items.map((x) => x * {i});\n",
                    i % 50
                ),
            )
        } else {
            (
                "py",
                format!(
                    "\"\"\"Module {i}.\"\"\"\n\n\ndef handler_{i}(request):\n    return compute_{}(request.body)\n\n\ndef compute_{i}(value):\n    total = 0\n    for x in value:\n        total += x * {i}\n    return total\n\n\nclass Service{i}:\n    def run(self, request):\n        return handler_{i}(request)\n",
                    i % 50
                ),
            )
        };
        support::write_file(dir, &format!("src/pkg{}/mod_{i}.{ext}", i / 100), &body);
    }
    std::fs::create_dir_all(dir.join(".git")).unwrap();
}

/// One line of the burst and the answer it must get.
struct Planned {
    line: Vec<u8>,
    /// The id the answer carries; `None`: a `null` id.
    id: Option<Value>,
}

fn call(id: i64, tool: &str, args: Value) -> Planned {
    Planned {
        line: json!({"jsonrpc":"2.0","id":id,"method":"tools/call",
                     "params":{"name":tool,"arguments":args}})
        .to_string()
        .into_bytes(),
        id: Some(json!(id)),
    }
}

fn line(text: &[u8], id: Option<Value>) -> Planned {
    Planned {
        line: text.to_vec(),
        id,
    }
}

/// The burst: [`HOSTILE_REGEXES`] hostile regexes first, then a deterministic mix.
fn plan(files: usize) -> Vec<Planned> {
    let mut out = Vec::with_capacity(REQUESTS);
    let mut id = 1_000i64;
    let mut next_id = || {
        id += 1;
        id
    };
    for _ in 0..HOSTILE_REGEXES {
        out.push(call(
            next_id(),
            "search_text",
            json!({"pattern": "\\w{1,10000}"}),
        ));
    }
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)).into_bytes();
    let mut k = 0usize;
    while out.len() < REQUESTS {
        k += 1;
        let f = (k * 7919) % files.max(1);
        let py = if f % 4 == 3 { f - 1 } else { f };
        let py = if py % 4 == 3 { 0 } else { py };
        let file = format!("src/pkg{}/mod_{py}.py", py / 100);
        let p = match k % 24 {
            0 => call(
                next_id(),
                "search_text",
                json!({"pattern": format!("compute_{}\\(", k % 50)}),
            ),
            1 => call(
                next_id(),
                "find_definitions",
                json!({"symbol": format!("handler_{f}")}),
            ),
            2 => call(
                next_id(),
                "find_references",
                json!({"symbol": format!("compute_{}", k % 50)}),
            ),
            3 => call(next_id(), "analyze_structure", json!({"path": file})),
            4 => call(
                next_id(),
                "get_function_at_line",
                json!({"file": file, "line": 5}),
            ),
            5 => call(next_id(), "get_session_status", json!({})),
            6 => {
                let id = next_id();
                line(
                    json!({"jsonrpc":"2.0","id":id,"method":"tools/list"})
                        .to_string()
                        .as_bytes(),
                    Some(json!(id)),
                )
            }
            7 => {
                let id = next_id();
                line(
                    json!({"jsonrpc":"2.0","id":id,"method":"ping"})
                        .to_string()
                        .as_bytes(),
                    Some(json!(id)),
                )
            }
            8 => call(
                next_id(),
                "search_text",
                json!({"pattern": "(a|aa)*(b|bb)*$", "max_results": 5}),
            ),
            9 => call(
                next_id(),
                "search_text",
                json!({"pattern": "x".repeat(9_000)}),
            ),
            10 => call(next_id(), "find_definitions", json!({"symbol": "   "})),
            11 => call(next_id(), "no_such_tool", json!({})),
            12 => call(
                next_id(),
                "get_function_at_line",
                json!({"file": file, "line": 999_999}),
            ),
            13 => line(b"{bad json", None),
            14 => line(
                b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"\xc3\x28\"}",
                None,
            ),
            15 => line(
                br#"{"jsonrpc":"2.0","id":2,"method":"ping","params":{"s":"\ud800"}}"#,
                None,
            ),
            16 => line(&deep, None),
            17 => line(br#"{"jsonrpc":"2.0","id":1e400,"method":"ping"}"#, None),
            18 => line(br#"[{"jsonrpc":"2.0","id":3,"method":"ping"}]"#, None),
            19 => {
                let id = next_id();
                line(format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"search_text","arguments":"x"}}}}"#).as_bytes(), Some(json!(id)))
            }
            20 => {
                let id = next_id();
                line(format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"arguments":{{}}}}}}"#).as_bytes(), Some(json!(id)))
            }
            21 => {
                let id = next_id();
                line(
                    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/nope"}}"#)
                        .as_bytes(),
                    Some(json!(id)),
                )
            }
            22 => call(
                next_id(),
                "search_map",
                json!({"query": "compute the total of a request"}),
            ),
            _ => call(
                next_id(),
                "search_text",
                json!({"pattern": "total \\+= x", "literal": false, "context_lines": 2}),
            ),
        };
        out.push(p);
    }
    // Three lines over the 16 MiB limit, ids first, spread through the burst.
    for (n, at) in [(0, 250), (1, 600), (2, 900)] {
        let id = json!(format!("oversized-{n}"));
        let mut text = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"search_text","arguments":{{"pattern":""#
        )
        .into_bytes();
        text.resize(text.len() + (17 << 20), b'a');
        text.extend_from_slice(b"\"}}}");
        out[at] = line(&text, Some(id));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_mixed_requests_are_all_answered_under_the_memory_ceiling() {
    let files: usize = std::env::var("CODE_INTEL_SOAK_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let dir = tempfile::tempdir().unwrap();
    soak_repo(dir.path(), files);
    let mut cmd = support::serve_command(dir.path());
    if let Some(bin) = std::env::var_os("CODE_INTEL_SOAK_BIN").filter(|b| !b.is_empty()) {
        let mut other = tokio::process::Command::new(bin);
        other.arg("serve").arg("--repo").arg(dir.path());
        for var in [
            "CLAUDE_CODE_SESSION_ID",
            "CLAUDE_PROJECT_DIR",
            "CODE_INTEL_PROJECT",
        ] {
            other.env_remove(var);
        }
        other.env("CODE_INTEL_LOG", "error");
        cmd = other;
    }
    cmd.env("CODE_INTEL_EMBEDDINGS", "off");
    let mut raw = Raw::spawn(cmd);
    raw.initialize().await;
    // A session first: it syncs the index, so the tools answer from it.
    let started = Instant::now();
    let r = raw
        .call(
            1,
            "start_session",
            json!({"intent": "investigate", "query": "how is the total of a request computed"}),
        )
        .await;
    assert_ne!(r["result"]["isError"], true, "{r}");
    let sync = started.elapsed();
    let base = raw.peak_rss_kib().unwrap_or(0);

    let planned = plan(files);
    let expected_nulls = planned.iter().filter(|p| p.id.is_none()).count();
    let mut pending: HashMap<String, Instant> = HashMap::new();
    let mut lines = Vec::with_capacity(planned.len());
    for p in planned {
        if let Some(id) = &p.id {
            assert!(pending.insert(id.to_string(), Instant::now()).is_none());
        }
        lines.push(p.line);
    }
    // Write on one task while answers are read here: the pipes would fill otherwise.
    let mut stdin = raw.stdin;
    let writer = tokio::spawn(async move {
        use tokio::io::AsyncWriteExt as _;
        let started = Instant::now();
        for l in lines {
            stdin.write_all(&l).await.unwrap();
            stdin.write_all(b"\n").await.unwrap();
        }
        stdin.flush().await.unwrap();
        (stdin, started.elapsed())
    });
    let burst = Instant::now();
    let mut latencies: Vec<Duration> = Vec::with_capacity(REQUESTS);
    let mut nulls = 0usize;
    let mut kinds: HashMap<String, usize> = HashMap::new();
    while !pending.is_empty() || nulls < expected_nulls {
        let r = tokio::time::timeout(raw_stdio::HANG, raw.lines.recv())
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "{} requests and {} null-id errors still unanswered after {:?}",
                    pending.len(),
                    expected_nulls - nulls,
                    raw_stdio::HANG
                )
            })
            .expect("the server closed stdout");
        let kind = if let Some(code) = r["error"]["code"].as_i64() {
            format!("json-rpc {code}")
        } else if r["result"]["isError"] == true {
            format!(
                "tool error {}",
                r["result"]["structuredContent"]["error"]
                    .as_str()
                    .unwrap_or("?")
            )
        } else {
            "ok".to_string()
        };
        *kinds.entry(kind).or_default() += 1;
        if r["id"].is_null() {
            nulls += 1;
            assert!(nulls <= expected_nulls, "an unexpected null-id answer: {r}");
            continue;
        }
        let sent = pending
            .remove(&r["id"].to_string())
            .unwrap_or_else(|| panic!("an answer to no pending request: {r}"));
        latencies.push(sent.elapsed());
    }
    let total = burst.elapsed();
    let (stdin, written) = writer.await.unwrap();
    raw.stdin = stdin;
    let peak = raw.peak_rss_kib().unwrap_or(0);
    latencies.sort();
    let pct = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
    let mut kinds: Vec<_> = kinds.into_iter().collect();
    kinds.sort();
    eprintln!(
        "soak: {files} files, start_session {:.1} s; {REQUESTS} requests ({} with ids, {expected_nulls} null-id) written in {:.1} s, all answered in {:.1} s; latency p50 {:.2} s, p99 {:.2} s, max {:.2} s; peak RSS {} MiB (after start_session {} MiB); answers {kinds:?}",
        sync.as_secs_f64(),
        latencies.len(),
        written.as_secs_f64(),
        total.as_secs_f64(),
        pct(0.5).as_secs_f64(),
        pct(0.99).as_secs_f64(),
        latencies.last().unwrap().as_secs_f64(),
        peak / 1024,
        base / 1024,
    );
    let slowest = *latencies.last().unwrap();
    assert!(
        slowest < raw_stdio::HANG,
        "a request waited {slowest:?} for its answer (bound {:?})",
        raw_stdio::HANG
    );
    assert!(
        peak < CEILING_KIB,
        "peak RSS {} MiB over the {} MiB ceiling",
        peak / 1024,
        CEILING_KIB / 1024
    );
    // Still serving after the burst.
    let r = raw
        .call(9, "find_definitions", json!({"symbol": "handler_1"}))
        .await;
    assert_eq!(
        r["result"]["structuredContent"]["definitions"][0]["file"], "src/pkg0/mod_1.py",
        "{r}"
    );
}
