//! Latency of long requests (docs/EVALUATION.md, "Long requests"): ranked lexical search of
//! 8 KiB requests on a large repository, beside short requests and beside the same long
//! requests read without the analysis (`request_analysis` 0: their first 64 words), in one run.
//!
//! ```text
//! # a repository of ~10k files: the development kit's four snapshots side by side
//! mkdir -p /tmp/big && for c in laravel akaunting paperless vite; do cp -a $BENCH_DATA/src/$c /tmp/big/; done
//! cargo bench -p code-intel-core --bench long_request -- /tmp/big REQUESTS.jsonl [SHORT.jsonl]
//! ```
//!
//! `REQUESTS.jsonl`: JSON lines with a `query` (e.g. `code-intel eval --json`'s queries, or the
//! kit's); consecutive queries are joined until 8 KiB and cut there
//! ([`request::MAX_REQUEST_BYTES`]), so every long request is a full-size one. `SHORT.jsonl`:
//! short requests for comparison. The repository is indexed in place (`.code-intel/`), once;
//! each request is searched once after one untimed warm-up, the index loaded, as the MCP
//! server searches (`hybrid::search_ranked`, lexical mode, top 10). Nothing is asserted.

#![allow(
    clippy::disallowed_methods,
    clippy::print_stdout,
    clippy::print_stderr,
    missing_docs
)]

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use code_intel_core::config::Config;
use code_intel_core::index::hybrid::{self, Fusion, SearchMode, SearchOptions, Weights};
use code_intel_core::index::{CodeIndex, RankParams, request};
use code_intel_core::repo_path::RepoRoot;

fn queries(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["query"].as_str().map(str::to_string))
        .collect()
}

/// Consecutive `texts` joined (blank line between) into requests of exactly up to 8 KiB.
fn full_size(texts: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for t in texts {
        cur.push_str(t);
        cur.push_str("\n\n");
        if cur.len() >= request::MAX_REQUEST_BYTES {
            out.push(request::clip(&cur).to_string());
            cur.clear();
        }
    }
    out
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let rank = (p / 100.0 * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

fn time_all(index: &CodeIndex, requests: &[String], params: &RankParams) -> Vec<f64> {
    let opts = SearchOptions {
        mode: SearchMode::Lexical,
        fusion: Fusion::DEFAULT,
        weights: Weights::from(&Config::default().search_weights),
        candidates: hybrid::CANDIDATES,
    };
    let _ = hybrid::search_ranked(index, None, None, &requests[0], 10, &opts, params);
    requests
        .iter()
        .map(|q| {
            let t = Instant::now();
            let r = hybrid::search_ranked(index, None, None, q, 10, &opts, params);
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            assert!(r.is_ok(), "search failed: {:?}", r.err());
            ms
        })
        .collect()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let (Some(repo), Some(long)) = (args.first(), args.get(1)) else {
        eprintln!("usage: cargo bench --bench long_request -- REPO REQUESTS.jsonl [SHORT.jsonl]");
        return ExitCode::FAILURE;
    };
    let root = match RepoRoot::new(Path::new(repo)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{repo}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let config = Config::default();
    let index = CodeIndex::open(&root, &config).expect("open the index");
    let t = Instant::now();
    let report = index.sync(&mut |_| {}).expect("sync");
    let stats = index.stats();
    println!(
        "{repo}: {} files, {} chunks indexed ({} added or changed, sync {:.1} s)",
        stats.files,
        stats.chunks,
        report.files_added + report.files_modified,
        t.elapsed().as_secs_f64()
    );
    let long_requests = full_size(&queries(Path::new(long)));
    if long_requests.is_empty() {
        eprintln!("{long}: not enough text for one 8 KiB request");
        return ExitCode::FAILURE;
    }
    let short: Vec<String> = args
        .get(2)
        .map(|p| queries(Path::new(p)))
        .unwrap_or_default()
        .into_iter()
        .take(200)
        .collect();
    let shipped = RankParams::default();
    let off = RankParams {
        request_analysis: 0.0,
        ..RankParams::default()
    };
    println!("| requests | n | bytes (mean) | p50 ms | p95 ms | max ms |");
    println!("|---|---|---|---|---|---|");
    let row = |name: &str, reqs: &[String], params: &RankParams| {
        if reqs.is_empty() {
            return;
        }
        let mut ms = time_all(&index, reqs, params);
        let bytes = reqs.iter().map(String::len).sum::<usize>() / reqs.len();
        let max = ms.iter().copied().fold(0.0, f64::max);
        println!(
            "| {name} | {} | {bytes} | {:.1} | {:.1} | {max:.1} |",
            reqs.len(),
            percentile(&mut ms, 50.0),
            percentile(&mut ms, 95.0)
        );
    };
    row("8 KiB, analysed (shipped)", &long_requests, &shipped);
    row("8 KiB, not analysed (first 64 words)", &long_requests, &off);
    row("short", &short, &shipped);
    ExitCode::SUCCESS
}
