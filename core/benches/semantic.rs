//! Semantic benchmarks with the real model on the evaluation corpora (docs/BENCHMARKS.md,
//! "Semantic"): hybrid query latency including the query embedding (p50/p95, split into embedding
//! and search), and the time until one edited file is searchable semantically (sync, vector
//! refresh, embedding of the changed texts, save, query).
//!
//! ```text
//! python3 tests/eval/run_eval.py          # once: builds and embeds .e2e-cache/eval/<corpus>
//! cargo bench -p code-intel-core --bench semantic [-- flask laravel]
//! ```
//!
//! The corpora must be indexed and embedded already (the evaluation does it); the edit benchmark
//! works on a copy. Needs the provisioned model (`CODE_INTEL_MODEL_DIR` or the default cache).
//! Nothing is asserted.

#![allow(
    clippy::disallowed_methods,
    clippy::print_stdout,
    clippy::print_stderr,
    missing_docs
)]

mod common;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use code_intel_core::embed::{Embedder, FastEmbedOptions, FastEmbedder, ModelPaths};
use code_intel_core::index::CodeIndex;
use code_intel_core::index::hybrid::{self, SearchOptions};
use code_intel_core::index::vector::VectorIndex;
use code_intel_session::config::Config;
use code_intel_session::repo_path::RepoRoot;

fn model_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("CODE_INTEL_MODEL_DIR") {
        return PathBuf::from(d);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_default();
    base.join("code-intel/models")
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn main() -> ExitCode {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let work = workspace.join(".e2e-cache/eval");
    let wanted: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let corpora: Vec<String> = if wanted.is_empty() {
        vec!["flask".into(), "laravel".into()]
    } else {
        wanted
    };
    let paths = ModelPaths::in_cache(&model_dir(), ModelPaths::DEFAULT_MODEL);
    let model = match FastEmbedder::load(
        &paths,
        &FastEmbedOptions {
            intra_threads: Some(1),
            ..FastEmbedOptions::default()
        },
    ) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let queries: Vec<(String, String)> =
        std::fs::read_to_string(workspace.join("tests/eval/queries.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .map(|v| {
                (
                    v["corpus"].as_str().unwrap_or_default().to_string(),
                    v["query"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
    println!(
        "machine: {} cores; model {} (1 intra-op thread)",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        model.model_id()
    );
    for corpus in &corpora {
        let root_dir = work.join(corpus);
        if !root_dir
            .join(".code-intel/index/vectors/state.json")
            .exists()
        {
            eprintln!("{corpus}: not embedded yet; run python3 tests/eval/run_eval.py first");
            continue;
        }
        println!("\n== {corpus}");
        let root = RepoRoot::new(&root_dir).expect("root");
        let config = Config::load(root.path()).expect("config");
        latency(&root, &config, &model, &queries, corpus);
        edit(&root_dir, &model);
        recipes(&root, &config, &model);
    }
    ExitCode::SUCCESS
}

/// Hybrid query latency including the query embedding, over the corpus's evaluation queries
/// (3 passes, the first discarded as warm-up).
fn latency(
    root: &RepoRoot,
    config: &Config,
    model: &FastEmbedder,
    queries: &[(String, String)],
    corpus: &str,
) {
    let t = Instant::now();
    let index = CodeIndex::open(root, config).expect("index");
    let open_index = ms(t);
    let t = Instant::now();
    let vectors = VectorIndex::open(root, config, model.model_id(), model.dims()).expect("vectors");
    let open_vectors = ms(t);
    println!(
        "open: lexical {open_index:.0} ms, vectors {open_vectors:.0} ms ({} live vectors, graph: {})",
        vectors.live_vectors(),
        vectors.uses_graph()
    );
    let opts = SearchOptions::hybrid(&config.search_weights);
    let qs: Vec<&str> = queries
        .iter()
        .filter(|(c, _)| c == corpus)
        .map(|(_, q)| q.as_str())
        .collect();
    let (mut embed, mut search, mut total) = (Vec::new(), Vec::new(), Vec::new());
    for pass in 0..3 {
        for q in &qs {
            let t0 = Instant::now();
            let v = model.embed_queries(&[q]).expect("embed");
            let e = ms(t0);
            let t1 = Instant::now();
            let r =
                hybrid::search(&index, Some(&vectors), Some(&v[0]), q, 10, &opts).expect("search");
            let s = ms(t1);
            std::hint::black_box(r);
            if pass > 0 {
                embed.push(e);
                search.push(s);
                total.push(ms(t0));
            }
        }
    }
    // Where the search time goes: the BM25 candidates and the vector candidates alone.
    let (mut bm25, mut vec) = (Vec::new(), Vec::new());
    for q in &qs {
        let v = model.embed_queries(&[q]).expect("embed");
        let t = Instant::now();
        std::hint::black_box(index.search(q, hybrid::CANDIDATES).expect("bm25"));
        bm25.push(ms(t));
        let t = Instant::now();
        std::hint::black_box(vectors.search(&v[0], hybrid::CANDIDATES));
        vec.push(ms(t));
    }
    println!(
        "candidates: BM25 top {} p50 {:.2} ms, vectors top {} p50 {:.2} ms",
        hybrid::CANDIDATES,
        pct(&mut bm25, 0.5),
        hybrid::CANDIDATES,
        pct(&mut vec, 0.5)
    );
    println!(
        "hybrid query ({} queries x 2): total p50 {:.1} ms p95 {:.1} ms; query embedding p50 {:.1} ms p95 {:.1} ms; search p50 {:.2} ms p95 {:.2} ms",
        qs.len(),
        pct(&mut total, 0.5),
        pct(&mut total, 0.95),
        pct(&mut embed, 0.5),
        pct(&mut embed, 0.95),
        pct(&mut search, 0.5),
        pct(&mut search, 0.95)
    );
}

/// One edited file searchable semantically: on a copy of the corpus (index and vectors
/// included), append a new function to the largest source file, then sync, refresh, embed what
/// changed, save, and query for it. 5 rounds.
fn edit(src: &Path, model: &FastEmbedder) {
    let dir = tempfile::tempdir().expect("temp dir");
    common::copy_tree(src, dir.path());
    let root = RepoRoot::new(dir.path()).expect("root");
    let config = Config::load(root.path()).expect("config");
    let index = CodeIndex::open(&root, &config).expect("index");
    index.sync(&mut |_| {}).expect("sync");
    let mut vectors =
        VectorIndex::open(&root, &config, model.model_id(), model.dims()).expect("vectors");
    vectors.refresh().expect("refresh");
    let state: serde_json::Value = serde_json::from_slice(
        &std::fs::read(root.state_dir().join("sync_state.json")).unwrap_or_default(),
    )
    .unwrap_or_default();
    let target = state["files"]
        .as_object()
        .into_iter()
        .flat_map(|m| m.keys())
        .filter(|f| f.ends_with(".py") || f.ends_with(".php") || f.ends_with(".js"))
        .max_by_key(|f| std::fs::metadata(root.path().join(f)).map_or(0, |m| m.len()))
        .cloned()
        .expect("a source file");
    let opts = SearchOptions::hybrid(&config.search_weights);
    let mut rounds = Vec::new();
    let mut parts = Vec::new();
    for round in 0..5 {
        let path = root.path().join(&target);
        let mut text = std::fs::read_to_string(&path).unwrap_or_default();
        let (name, query) = if target.ends_with(".py") {
            text.push_str(&format!(
                "\n\ndef convert_temperature_{round}(celsius):\n    \"\"\"Convert a temperature from Celsius to Fahrenheit.\"\"\"\n    return celsius * 9 / 5 + 32\n"
            ));
            (format!("convert_temperature_{round}"), "温度を変換する")
        } else if target.ends_with(".php") {
            let at = text.rfind('}').unwrap_or(text.len());
            text.insert_str(
                at,
                &format!(
                    "\n    /** Convert a temperature from Celsius to Fahrenheit. */\n    public function convertTemperature{round}($celsius)\n    {{\n        return $celsius * 9 / 5 + 32;\n    }}\n"
                ),
            );
            (format!("convertTemperature{round}"), "温度を変換する")
        } else {
            text.push_str(&format!(
                "\n// Convert a temperature from Celsius to Fahrenheit.\nfunction convertTemperature{round}(celsius) {{\n  return celsius * 9 / 5 + 32;\n}}\n"
            ));
            (format!("convertTemperature{round}"), "温度を変換する")
        };
        std::fs::write(&path, text).expect("write");
        let t = Instant::now();
        index.sync(&mut |_| {}).expect("sync");
        let sync = ms(t);
        let t1 = Instant::now();
        vectors.refresh().expect("refresh");
        let refresh = ms(t1);
        let t2 = Instant::now();
        let report = vectors
            .embed_pending(model, &mut |_, _| {}, &AtomicBool::new(false))
            .expect("embed");
        let embed = ms(t2);
        let t3 = Instant::now();
        let q = model.embed_queries(&[query]).expect("query");
        let r =
            hybrid::search(&index, Some(&vectors), Some(&q[0]), query, 10, &opts).expect("search");
        let search = ms(t3);
        let total = ms(t);
        let rank = r
            .hits
            .iter()
            .position(|h| h.hit.symbol == name)
            .map_or_else(
                || {
                    let top: Vec<String> = r
                        .hits
                        .iter()
                        .take(3)
                        .map(|h| format!("{}:{} {}", h.hit.file, h.hit.start_line, h.hit.symbol))
                        .collect();
                    format!("not in top 10 (top: {})", top.join(", "))
                },
                |i| format!("rank {}", i + 1),
            );
        rounds.push(total);
        parts.push((sync, refresh, embed, report.embedded, search, rank));
    }
    for (i, (sync, refresh, embed, n, search, rank)) in parts.iter().enumerate() {
        println!(
            "edit round {i}: sync {sync:.0} ms, refresh {refresh:.0} ms, embed {n} texts + save {embed:.0} ms, query {search:.0} ms; new function {rank}"
        );
    }
    println!(
        "one edited file ({target}) searchable semantically: p50 {:.0} ms, max {:.0} ms",
        pct(&mut rounds, 0.5),
        pct(&mut rounds, 1.0)
    );
}

/// CPU seconds of this process so far (utime + stime from /proc/self/stat; Linux).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or_default();
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // Fields after the command: state is 0, utime is 11, stime is 12; 100 ticks per second.
    (ticks(11) + ticks(12)) / 100.0
}

/// Embedding texts per recipe on the same 240 chunks (every n-th chunk of the corpus): mean
/// characters and model tokens, and throughput on one intra-op thread (texts per CPU-second,
/// so other load on the machine does not distort it).
fn recipes(root: &RepoRoot, config: &Config, model: &FastEmbedder) {
    use code_intel_core::index::chunk::chunk_source;
    use code_intel_core::index::embedding_text::EmbeddingText;
    use code_intel_core::index::sync::{SyncState, chunk_options};
    let Some(state) = SyncState::load(&SyncState::path(root)) else {
        return;
    };
    let opts = chunk_options(config);
    let mut chunks = Vec::new();
    for (path, f) in &state.files {
        if f.chunks == 0 {
            continue;
        }
        if let Ok(bytes) = std::fs::read(root.path().join(path))
            && let Ok(c) = chunk_source(path, &bytes, &opts)
        {
            chunks.extend(c);
        }
    }
    let step = (chunks.len() / 240).max(1);
    let sample: Vec<_> = chunks.iter().step_by(step).take(240).collect();
    for recipe in EmbeddingText::ALL {
        let texts: Vec<String> = sample.iter().map(|c| recipe.text(c)).collect();
        let chars =
            texts.iter().map(|t| t.chars().count()).sum::<usize>() as f64 / texts.len() as f64;
        let tokens = texts
            .iter()
            .map(|t| model.count_tokens(t).unwrap_or(0))
            .sum::<usize>() as f64
            / texts.len() as f64;
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let (t, cpu) = (Instant::now(), cpu_seconds());
        model.embed_passages(&refs).expect("embed");
        let (wall, cpu) = (t.elapsed().as_secs_f64(), cpu_seconds() - cpu);
        println!(
            "embedding text {:13} {} chunks: {chars:.0} chars, {tokens:.0} tokens on average; {:.1} texts/s wall, {:.1} texts per CPU-second",
            recipe.name(),
            texts.len(),
            texts.len() as f64 / wall,
            texts.len() as f64 / cpu.max(1e-9)
        );
    }
}
