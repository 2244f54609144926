//! Latency of long requests (docs/BENCHMARKS.md, "Long requests"; issue 36's target: an 8 KiB
//! request in at most 30 ms, lexical, on a repository of 10,000 files): ranked lexical search
//! (`hybrid::search_ranked`, lexical mode, top 10, as the MCP server's `search` runs it, the
//! index loaded and warm) of requests of exactly 8 KiB and of 2 KiB joined from real texts,
//! and of real requests as they are, each with
//!
//! - the shipped query (the analysis, 32 words as one flat sum of term queries over content
//!   and path),
//! - the per-field query the analysis used before (`req_flat` 0: a disjunction-max per word
//!   and field, which tantivy cannot prune),
//! - no analysis (`request_analysis` 0: the first 64 distinct words at weight 1),
//! - plain file-level BM25 (the evaluation's `bm25-file` baseline, an in-memory scorer over
//!   every file's tokens: [`code_intel_core::eval::bm25_file`]),
//!
//! and the analysis alone (`Request::analyse`), in one run. `LONG_REQUEST_VARIANTS=FILE` times
//! other ranking settings too (JSON lines, as `code-intel eval --variants` reads them);
//! `--shipped-only` times the shipped query (and those) alone, for a profiler.
//!
//! ```text
//! cargo bench -p code-intel-core --bench long_request -- REPO TEXTS.jsonl [REAL.jsonl] [SHORT.jsonl]
//! ```
//!
//! `TEXTS.jsonl`: JSON lines with a `query` (commit messages, issues, `code-intel eval --json`'s
//! queries); consecutive texts are joined (blank line between) until 8 KiB, and 2 KiB, and cut
//! there at a character boundary, so every long request is full-size. `REAL.jsonl`: requests
//! searched as they are (cut at 8 KiB). `SHORT.jsonl`: short requests (the first 200). The
//! repository is indexed in place (`.code-intel/`) if needed. Each request is searched once per
//! query shape after one untimed warm-up; p50 and p95 in milliseconds. Nothing is asserted.

#![allow(
    clippy::disallowed_methods,
    clippy::print_stdout,
    clippy::print_stderr,
    missing_docs
)]

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use code_intel_core::eval::bm25_file::Bm25FileBaseline;
use code_intel_core::index::hybrid::{self, Fusion, SearchMode, SearchOptions, Weights};
use code_intel_core::index::rank::RankParams;
use code_intel_core::index::{CodeIndex, request};
use code_intel_session::config::Config;
use code_intel_session::repo_path::RepoRoot;

fn queries(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["query"].as_str().map(str::to_string))
        .collect()
}

/// `text` cut to at most `max` bytes at a character boundary.
fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Consecutive `texts` joined (blank line between) into requests of `size` bytes.
fn full_size(texts: &[String], size: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for t in texts {
        cur.push_str(t);
        cur.push_str("\n\n");
        if cur.len() >= size {
            out.push(cut(&cur, size).to_string());
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

/// Wall and CPU milliseconds of `run` on each request (after one untimed warm-up). On a
/// shared machine the wall time includes the time the thread waited for a core; its CPU time
/// does not.
fn timed(requests: &[String], mut run: impl FnMut(&str)) -> (Vec<f64>, Vec<f64>) {
    run(&requests[0]);
    requests
        .iter()
        .map(|q| {
            let cpu = cpu_time::ThreadTime::now();
            let t = Instant::now();
            run(q);
            (
                t.elapsed().as_secs_f64() * 1000.0,
                cpu.elapsed().as_secs_f64() * 1000.0,
            )
        })
        .unzip()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let (Some(repo), Some(texts)) = (args.first(), args.get(1)) else {
        eprintln!(
            "usage: cargo bench --bench long_request -- REPO TEXTS.jsonl [REAL.jsonl] [SHORT.jsonl]"
        );
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
    // `--shipped-only`: the shipped query alone (for a profiler).
    let only = std::env::args().any(|a| a == "--shipped-only");
    let t = Instant::now();
    let mut bm25_file = Bm25FileBaseline::new();
    if !only {
        bm25_file.load(&root, index.indexed_files(), config.max_file_bytes);
    }
    println!(
        "bm25-file: loaded in {:.1} s (not timed below)\n",
        t.elapsed().as_secs_f64()
    );
    let texts = queries(Path::new(texts));
    let mut sets: Vec<(String, Vec<String>)> = vec![
        (
            "8 KiB".into(),
            full_size(&texts, request::MAX_REQUEST_BYTES),
        ),
        ("2 KiB".into(), full_size(&texts, 2048)),
    ];
    if let Some(real) = args.get(2) {
        let real: Vec<String> = queries(Path::new(real))
            .into_iter()
            .map(|q| cut(&q, request::MAX_REQUEST_BYTES).to_string())
            .collect();
        sets.push(("real".into(), real));
    }
    let short: Vec<String> = args
        .get(3)
        .map(|p| queries(Path::new(p)))
        .unwrap_or_default()
        .into_iter()
        .take(200)
        .collect();
    let opts = SearchOptions {
        mode: SearchMode::Lexical,
        fusion: Fusion::DEFAULT,
        weights: Weights::from(&config.search_weights),
        candidates: hybrid::CANDIDATES,
    };
    let shipped = RankParams::default();
    let per_field = RankParams {
        req_flat: 0.0,
        ..RankParams::default()
    };
    let off = RankParams {
        request_analysis: 0.0,
        ..RankParams::default()
    };
    // `LONG_REQUEST_VARIANTS=FILE`: JSON lines of ranking settings (as `code-intel eval
    // --variants` reads them) timed beside the shipped ones.
    let variants: Vec<(String, RankParams)> = std::env::var("LONG_REQUEST_VARIANTS")
        .map(|p| std::fs::read_to_string(p).expect("read LONG_REQUEST_VARIANTS"))
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut v = serde_json::to_value(RankParams::default()).expect("params");
            let over: serde_json::Value = serde_json::from_str(l).expect("a JSON object");
            for (k, x) in over.as_object().expect("a JSON object") {
                v[k] = x.clone();
            }
            (
                format!("`{}`", l.trim()),
                serde_json::from_value(v).expect("ranking settings"),
            )
        })
        .collect();
    let (index, opts) = (&index, &opts);
    let search = |params: &RankParams| {
        let params = *params;
        move |q: &str| {
            let r = hybrid::search_ranked(index, None, None, q, 10, opts, &params);
            assert!(r.is_ok(), "search failed: {:?}", r.err());
        }
    };
    println!(
        "| requests | n | bytes (mean) | searched as | p50 ms | p95 ms | max ms | CPU p50 ms | CPU p95 ms |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let row = |name: &str, reqs: &[String], how: &str, (mut ms, mut cpu): (Vec<f64>, Vec<f64>)| {
        let bytes = reqs.iter().map(String::len).sum::<usize>() / reqs.len().max(1);
        let max = ms.iter().copied().fold(0.0, f64::max);
        println!(
            "| {name} | {} | {bytes} | {how} | {:.1} | {:.1} | {max:.1} | {:.1} | {:.1} |",
            reqs.len(),
            percentile(&mut ms, 50.0),
            percentile(&mut ms, 95.0),
            percentile(&mut cpu, 50.0),
            percentile(&mut cpu, 95.0)
        );
    };
    for (name, reqs) in &sets {
        if reqs.is_empty() {
            eprintln!("{name}: not enough text for one request");
            continue;
        }
        row(name, reqs, "shipped", timed(reqs, search(&shipped)));
        for (json, params) in &variants {
            row(name, reqs, json, timed(reqs, search(params)));
        }
        if only {
            continue;
        }
        row(
            name,
            reqs,
            "per-field query (`req_flat` 0)",
            timed(reqs, search(&per_field)),
        );
        row(
            name,
            reqs,
            "no analysis (first 64 words)",
            timed(reqs, search(&off)),
        );
        row(
            name,
            reqs,
            "bm25-file (in memory)",
            timed(reqs, |q| {
                std::hint::black_box(bm25_file.search(q, 10));
            }),
        );
        row(
            name,
            reqs,
            "the analysis alone",
            timed(reqs, |q| {
                std::hint::black_box(request::Request::analyse(q, &shipped));
            }),
        );
    }
    if !short.is_empty() {
        row("short", &short, "shipped", timed(&short, search(&shipped)));
        row(
            "short",
            &short,
            "bm25-file (in memory)",
            timed(&short, |q| {
                std::hint::black_box(bm25_file.search(q, 10));
            }),
        );
    }
    ExitCode::SUCCESS
}
