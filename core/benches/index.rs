//! Benchmark and retrieval evaluation of the code index on the real-code corpora.
//!
//! ```text
//! scripts/fetch-corpora.sh                     # once; the bench also calls it when needed
//! cargo bench -p code-intel-core --bench index            # all corpora
//! cargo bench -p code-intel-core --bench index -- laravel # one
//! ```
//!
//! Per corpus, on a fresh copy in a temp dir: full index (from scratch, best and median of 3),
//! no-change re-sync (p50/p95 of 20), one edited file searchable (append a function, sync,
//! search; p50/p95 of 10), search latency over the evaluation queries (p50/p95), and the
//! retrieval evaluation of `retrieval_queries.jsonl` (file-level recall@1/5/10 and MRR@10).
//! Side by side, when installed: `ctags -R` over the indexed directories, `sha256sum` over the
//! indexed files, and `rg` for each query's longest word. Nothing is asserted.

#![allow(
    clippy::disallowed_methods,
    clippy::print_stdout,
    clippy::print_stderr,
    missing_docs
)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use code_intel_core::index::CodeIndex;
use code_intel_session::config::Config;
use code_intel_session::repo_path::RepoRoot;

const CORPORA: [&str; 3] = ["flask", "express", "laravel"];

#[derive(serde::Deserialize)]
struct EvalQuery {
    corpus: String,
    query: String,
    expected: Vec<String>,
}

fn main() -> ExitCode {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let cache = std::env::var_os("CODE_INTEL_CORPORA")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join(".e2e-cache/corpora"));
    // `--eval-only`: one index build and the retrieval evaluation, no timings.
    let eval_only = std::env::args().any(|a| a == "--eval-only");
    let wanted: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if CORPORA
        .iter()
        .any(|c| !cache.join(c).join(".done").exists())
    {
        let ok = Command::new("bash")
            .arg(workspace.join("scripts/fetch-corpora.sh"))
            .arg(&cache)
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("scripts/fetch-corpora.sh failed");
            return ExitCode::FAILURE;
        }
    }
    let queries: Vec<EvalQuery> = include_str!("retrieval_queries.jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    println!(
        "machine: {} cores, {}",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(
                |c| c.lines().find(|l| l.starts_with("model name")).map(|l| l
                    .split(':')
                    .nth(1)
                    .unwrap_or("")
                    .trim()
                    .to_string())
            )
            .unwrap_or_default()
    );
    for name in CORPORA
        .iter()
        .filter(|c| wanted.is_empty() || wanted.iter().any(|w| w == *c))
    {
        let qs: Vec<&EvalQuery> = queries.iter().filter(|q| q.corpus == *name).collect();
        bench_corpus(name, &cache.join(name), &qs, eval_only);
    }
    ExitCode::SUCCESS
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn percentile(samples: &mut [f64], p: f64) -> f64 {
    samples.sort_by(f64::total_cmp);
    let i = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples.get(i).copied().unwrap_or(f64::NAN)
}

fn time_cmd(cmd: &mut Command) -> Option<f64> {
    let t = Instant::now();
    let ok = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .ok()?
        .success();
    ok.then(|| ms(t.elapsed()))
}

fn bench_corpus(name: &str, src: &Path, queries: &[&EvalQuery], eval_only: bool) {
    let dir = tempfile::tempdir().expect("temp dir");
    common::copy_tree(src, dir.path());
    let root = RepoRoot::new(dir.path()).expect("root");
    let config = Config::load(root.path()).expect("config");
    println!("\n== {name}");

    // Full index, from scratch.
    let mut full = Vec::new();
    let mut report = None;
    for _ in 0..if eval_only { 1 } else { 3 } {
        std::fs::remove_dir_all(root.state_dir()).ok();
        let index = CodeIndex::open(&root, &config).expect("open");
        let t = Instant::now();
        report = Some(index.sync(&mut |_| {}).expect("sync"));
        full.push(ms(t.elapsed()));
    }
    let report = report.expect("three runs");
    let best = full.iter().copied().fold(f64::INFINITY, f64::min);
    println!(
        "full index: {} files, {} chunks, {} skipped; best {best:.0} ms, median {:.0} ms",
        report.files_added,
        report.chunks,
        report.files_skipped.len(),
        percentile(&mut full, 0.5)
    );

    let index = CodeIndex::open(&root, &config).expect("open");
    let mut nochange: Vec<f64> = (0..20)
        .map(|_| {
            let t = Instant::now();
            index.sync(&mut |_| {}).expect("sync");
            ms(t.elapsed())
        })
        .collect();
    println!(
        "no-change re-sync: p50 {:.1} ms, p95 {:.1} ms",
        percentile(&mut nochange, 0.5),
        percentile(&mut nochange, 0.95)
    );

    if eval_only {
        evaluate(&index, queries, false);
        return;
    }
    // One edited file: the largest source file, a new function appended each round.
    let state: serde_json::Value = serde_json::from_slice(
        &std::fs::read(root.state_dir().join("sync_state.json")).unwrap_or_default(),
    )
    .unwrap_or_default();
    let files: Vec<String> = state["files"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    let target = files
        .iter()
        .filter(|f| f.ends_with(".py") || f.ends_with(".php") || f.ends_with(".js"))
        .max_by_key(|f| {
            std::fs::metadata(root.path().join(f))
                .map(|m| m.len())
                .unwrap_or(0)
        })
        .cloned();
    if let Some(target) = target {
        let path = root.path().join(&target);
        let mut edit = Vec::new();
        for round in 0..10 {
            let marker = format!("zzbench_marker_{round}");
            let mut text = std::fs::read_to_string(&path).unwrap_or_default();
            text.push_str(&if target.ends_with(".py") {
                format!("\n\ndef {marker}():\n    return {round}\n")
            } else {
                format!("\nfunction {marker}() {{ return {round}; }}\n")
            });
            std::fs::write(&path, text).ok();
            let t = Instant::now();
            index.sync(&mut |_| {}).expect("sync");
            let found = index
                .search(&marker, 1)
                .expect("search")
                .first()
                .is_some_and(|h| h.file == target);
            edit.push(ms(t.elapsed()));
            if !found {
                println!("  (round {round}: the marker was not the top hit)");
            }
        }
        println!(
            "one edited file searchable ({target}, {} KiB): p50 {:.1} ms, p95 {:.1} ms",
            std::fs::metadata(&path)
                .map(|m| m.len() / 1024)
                .unwrap_or(0),
            percentile(&mut edit, 0.5),
            percentile(&mut edit, 0.95)
        );
    }

    evaluate(&index, queries, true);

    // The tools a user would otherwise run, on the same inputs.
    let starts: Vec<PathBuf> = code_intel_core::index::sync::source_starts(&root, &config);
    if let Some(t) = time_cmd(
        Command::new("ctags")
            .arg("-R")
            .arg("-f")
            .arg(dir.path().join("tags"))
            .args(&starts),
    ) {
        println!("ctags -R (same directories): {t:.0} ms");
    }
    if !files.is_empty()
        && let Some(t) = time_cmd(
            Command::new("sha256sum")
                .current_dir(root.path())
                .args(&files),
        )
    {
        println!(
            "sha256sum over the {} indexed files: {t:.1} ms",
            files.len()
        );
    }
    let mut rg = Vec::new();
    for q in queries {
        let word = q
            .query
            .split_whitespace()
            .max_by_key(|w| w.len())
            .unwrap_or("");
        match time_cmd(
            Command::new("rg")
                .arg("-i")
                .arg("--count")
                .arg(word)
                .args(&starts),
        ) {
            Some(t) => rg.push(t),
            None => break,
        }
    }
    if !rg.is_empty() {
        println!(
            "rg -i WORD: p50 {:.1} ms, p95 {:.1} ms",
            percentile(&mut rg, 0.5),
            percentile(&mut rg, 0.95)
        );
    }
}

/// Prints the rank of the first expected file per query, then recall@1/5/10 and MRR@10 over the
/// distinct files of the top 50 chunks; with `timed`, searches each query 10 times and prints
/// the latency percentiles.
fn evaluate(index: &CodeIndex, queries: &[&EvalQuery], timed: bool) {
    let rounds = if timed { 10 } else { 1 };
    let mut latency = Vec::new();
    let (mut r1, mut r5, mut r10, mut mrr) = (0.0, 0.0, 0.0, 0.0);
    for q in queries {
        let mut ranked: Vec<String> = Vec::new();
        for round in 0..rounds {
            let t = Instant::now();
            let hits = index.search(&q.query, 50).expect("search");
            latency.push(ms(t.elapsed()));
            if round == 0 {
                for h in hits {
                    if !ranked.contains(&h.file) {
                        ranked.push(h.file);
                    }
                }
            }
        }
        let rank = ranked
            .iter()
            .position(|f| q.expected.iter().any(|e| f.contains(e.as_str())));
        let hit = |k: usize| {
            if rank.is_some_and(|r| r < k) {
                1.0
            } else {
                0.0
            }
        };
        r1 += hit(1);
        r5 += hit(5);
        r10 += hit(10);
        mrr += rank
            .filter(|&r| r < 10)
            .map_or(0.0, |r| 1.0 / (r as f64 + 1.0));
        println!(
            "  {:>5}  {}",
            rank.map_or("-".to_string(), |r| format!("#{}", r + 1)),
            q.query
        );
    }
    let n = queries.len().max(1) as f64;
    println!(
        "retrieval ({} queries, file level): recall@1 {:.2}, recall@5 {:.2}, recall@10 {:.2}, MRR@10 {:.2}",
        queries.len(),
        r1 / n,
        r5 / n,
        r10 / n,
        mrr / n
    );
    if timed {
        println!(
            "search latency (top 50): p50 {:.2} ms, p95 {:.2} ms",
            percentile(&mut latency, 0.5),
            percentile(&mut latency, 0.95)
        );
    }
}
