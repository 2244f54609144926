//! Benchmark of the real embedder: load time, RSS after load, throughput on ~200-token code chunks
//! (batch 8, 1 and 2 intra-op threads; batch 32 for comparison) and single-query latency.
//!
//! ```text
//! scripts/model/fetch.sh                                 # once (or `code-intel model fetch`)
//! cargo bench -p code-intel-core --bench embed           # chunks from the Flask corpus if fetched
//! cargo bench -p code-intel-core --bench embed -- DIR    # chunks from the files under DIR
//! cargo bench -p code-intel-core --bench embed -- --quick --chunks-out /tmp/chunks.jsonl
//! python3 core/benches/embed_raw.py --model-dir ~/.cache/code-intel/models/multilingual-e5-small \
//!     --chunks /tmp/chunks.jsonl                          # raw ONNX Runtime on the same chunks
//! ```
//! Model cache: `CODE_INTEL_MODEL_DIR`, else `${XDG_CACHE_HOME:-$HOME/.cache}/code-intel/models`.
//! Chunks: the index's chunker over `.py`/`.php`/`.js`/`.ts`/`.rs` files, keeping chunks of 150–260
//! model tokens (prefix included), the first 96 by path. Nothing is asserted; results go to stdout.

#![allow(
    clippy::disallowed_methods,
    clippy::print_stdout,
    clippy::print_stderr,
    missing_docs
)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use code_intel_core::embed::{
    Embedder, EmbeddingCache, FastEmbedOptions, FastEmbedder, ModelPaths,
};
use code_intel_core::index::chunk::{ChunkOptions, chunk_source};

const CHUNKS: usize = 96;
const TOKENS: std::ops::RangeInclusive<usize> = 150..=260;

fn cache_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("CODE_INTEL_MODEL_DIR").or_else(|| {
        var("XDG_CACHE_HOME")
            .or_else(|| var("HOME").map(|h| h.join(".cache")))
            .map(|d| d.join("code-intel/models"))
    })
}

/// `VmRSS` and `VmHWM` (peak) of this process in MiB.
fn rss() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let get = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            .map_or(f64::NAN, |kib| kib / 1024.0)
    };
    (get("VmRSS:"), get("VmHWM:"))
}

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with('.') || name == "node_modules" || name == "vendor" || name == "target" {
            continue;
        }
        if p.is_dir() {
            source_files(&p, out);
        } else if matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("py" | "php" | "js" | "ts" | "rs")
        ) {
            out.push(p);
        }
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn main() -> ExitCode {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let chunks_out = args
        .iter()
        .position(|a| a == "--chunks-out")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from);
    let quick = args.iter().any(|a| a == "--quick");
    let corpus = args
        .iter()
        .enumerate()
        .find(|(i, a)| !a.starts_with('-') && (*i == 0 || args[i - 1] != "--chunks-out"))
        .map(|(_, a)| PathBuf::from(a))
        .unwrap_or_else(|| {
            let flask = workspace.join(".e2e-cache/corpora/flask/src");
            if flask.is_dir() {
                flask
            } else {
                workspace.join("core/src")
            }
        });
    bench_cache();
    let Some(cache) = cache_dir() else {
        eprintln!("set CODE_INTEL_MODEL_DIR or HOME");
        return ExitCode::FAILURE;
    };
    let paths = ModelPaths::in_cache(&cache, ModelPaths::DEFAULT_MODEL);
    let t = Instant::now();
    if let Err(e) = paths.verify() {
        eprintln!("{e}\nrun scripts/model/fetch.sh first");
        return ExitCode::FAILURE;
    }
    println!(
        "verify     {:.2} s (sha256 of every file)",
        t.elapsed().as_secs_f64()
    );
    let (rss_start, _) = rss();

    // Load with 1 thread first: load time and RSS after load are this model's.
    let t = Instant::now();
    let one = match FastEmbedder::load(
        &paths,
        &FastEmbedOptions {
            intra_threads: Some(1),
            batch_size: 8,
            spinning: false,
            ..FastEmbedOptions::default()
        },
    ) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let load = t.elapsed();
    let (rss_loaded, _) = rss();
    let timings = one.load_timings();
    println!("model      {} ({} dims)", one.model_id(), one.dims());
    println!(
        "load       {:.2} s (runtime {:.2} s, read {:.2} s, session+tokenizer {:.2} s)",
        load.as_secs_f64(),
        timings.runtime.as_secs_f64(),
        timings.read.as_secs_f64(),
        timings.session.as_secs_f64()
    );
    println!(
        "RSS        {rss_start:.0} MiB before, {rss_loaded:.0} MiB after load (+{:.0} MiB)",
        rss_loaded - rss_start
    );

    // ~200-token chunks from real code.
    let mut files = Vec::new();
    source_files(&corpus, &mut files);
    let mut chunks: Vec<String> = Vec::new();
    let mut tokens = Vec::new();
    'files: for f in &files {
        let Ok(bytes) = std::fs::read(f) else {
            continue;
        };
        let rel = f
            .strip_prefix(&corpus)
            .unwrap_or(f)
            .to_string_lossy()
            .replace('\\', "/");
        let Ok(cs) = chunk_source(&rel, &bytes, &ChunkOptions::default()) else {
            continue;
        };
        for c in cs {
            let n = one.count_tokens(&c.content).unwrap_or(0);
            if TOKENS.contains(&n) {
                chunks.push(c.content);
                tokens.push(n);
                if chunks.len() == CHUNKS {
                    break 'files;
                }
            }
        }
    }
    if chunks.len() < 16 {
        eprintln!(
            "only {} chunks of {TOKENS:?} tokens under {}",
            chunks.len(),
            corpus.display()
        );
        return ExitCode::FAILURE;
    }
    let mean_tokens = tokens.iter().sum::<usize>() as f64 / tokens.len() as f64;
    println!(
        "chunks     {} from {} ({mean_tokens:.0} tokens on average, prefix and specials included)",
        chunks.len(),
        corpus.display()
    );
    let texts: Vec<&str> = chunks.iter().map(String::as_str).collect();
    if let Some(path) = &chunks_out {
        let lines: String = chunks
            .iter()
            .map(|c| format!("{}\n", serde_json::json!({ "text": c })))
            .collect();
        if let Err(e) = std::fs::write(path, lines) {
            eprintln!("cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!(
            "chunks written to {} (for core/benches/embed_raw.py)",
            path.display()
        );
    }

    let run = |name: &str, model: &FastEmbedder| {
        // One warm-up batch, then the best of two passes over all chunks.
        if let Err(e) = model.embed_passages(&texts[..8]) {
            eprintln!("{e}");
            return;
        }
        let cpu0 = cpu_seconds();
        let mut best = Duration::MAX;
        for _ in 0..2 {
            let t = Instant::now();
            if let Err(e) = model.embed_passages(&texts) {
                eprintln!("{e}");
                return;
            }
            best = best.min(t.elapsed());
        }
        let cpu = cpu_seconds() - cpu0;
        println!(
            "{name:<28} {:6.1} chunks/s  ({:.2} s for {}; {:.1} chunks per CPU-second)",
            texts.len() as f64 / best.as_secs_f64(),
            best.as_secs_f64(),
            texts.len(),
            (2 * texts.len()) as f64 / cpu
        );
    };
    run("batch 8, 1 thread", &one);

    // Query latency: short queries one at a time (what a search pays), 1 thread.
    let queries = [
        "ログイン機能",
        "load configuration file",
        "where are sessions stored",
        "設定ファイルを読み込む",
        "register a url rule",
    ];
    let mut lat = Vec::new();
    // Distinct texts each round: the embedder remembers its recent queries' vectors.
    for round in 0..4 {
        for q in queries {
            let q = format!("{q} {round}");
            let t = Instant::now();
            if one.embed_queries(&[q.as_str()]).is_ok() {
                lat.push(t.elapsed());
            }
        }
    }
    lat.sort();
    if !lat.is_empty() {
        println!(
            "query      p50 {:.1} ms, p95 {:.1} ms (1 thread, one short query per call)",
            percentile(&lat, 0.5).as_secs_f64() * 1e3,
            percentile(&lat, 0.95).as_secs_f64() * 1e3
        );
    }
    drop(one);

    let configs: &[(&str, usize, usize, bool)] = if quick {
        &[("batch 8, 2 threads", 2, 8, false)]
    } else {
        &[
            ("batch 8, 2 threads", 2, 8, false),
            ("batch 8, 2 threads, spinning", 2, 8, true),
            ("batch 32, 2 threads", 2, 32, false),
            ("batch 8, 1 thread, spinning", 1, 8, true),
        ]
    };
    for &(name, threads, batch, spinning) in configs {
        match FastEmbedder::load(
            &paths,
            &FastEmbedOptions {
                intra_threads: Some(threads),
                batch_size: batch,
                spinning,
                ..FastEmbedOptions::default()
            },
        ) {
            Ok(m) => run(name, &m),
            Err(e) => eprintln!("{e}"),
        }
    }
    let (_, peak) = rss();
    println!("peak RSS   {peak:.0} MiB (whole run)");
    ExitCode::SUCCESS
}

/// User + system CPU seconds of this process so far (`/proc/self/stat` fields 14 and 15, in clock
/// ticks of 1/100 s on Linux).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after_comm = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after_comm.split_whitespace().collect();
    let tick = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // After the command name, field 3 (state) is index 0, so utime (14) is 11 and stime (15) 12.
    (tick(11) + tick(12)) / 100.0
}

/// The embedding cache at laravel-framework scale (35,680 chunks, EMBEDDINGS.md) with 384-dim
/// vectors: insert + flush, reopen, 10% new + append flush, GC to half.
fn bench_cache() {
    const N: u32 = 35_680;
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let sha = |n: u32| format!("{n:064x}");
    let vector: Vec<f32> = (0..384).map(|i| i as f32 / 384.0).collect();
    let keys: Vec<String> = (0..N + N / 10).map(sha).collect();
    let run = || -> Result<(), code_intel_core::embed::CacheError> {
        let t = Instant::now();
        let mut cache = EmbeddingCache::open(dir.path(), "bench@0", 384)?;
        cache.insert_many(keys[..N as usize].iter().map(|k| (k.as_str(), &vector)))?;
        cache.flush()?;
        let first = t.elapsed();
        let size = std::fs::metadata(cache.path()).map_or(0, |m| m.len());
        let t = Instant::now();
        let mut cache = EmbeddingCache::open(dir.path(), "bench@0", 384)?;
        let reopen = t.elapsed();
        let t = Instant::now();
        cache.insert_many(keys[N as usize..].iter().map(|k| (k.as_str(), &vector)))?;
        cache.flush()?;
        let append = t.elapsed();
        let t = Instant::now();
        let removed = cache.retain(keys.iter().step_by(2).map(String::as_str))?;
        let gc = t.elapsed();
        println!(
            "cache      {N} × 384: insert+flush {:.0} ms ({:.1} MiB), reopen {:.0} ms, append {} {:.0} ms, \
             retain (-{removed}) {:.0} ms",
            first.as_secs_f64() * 1e3,
            size as f64 / 1048576.0,
            reopen.as_secs_f64() * 1e3,
            N / 10,
            append.as_secs_f64() * 1e3,
            gc.as_secs_f64() * 1e3
        );
        Ok(())
    };
    if let Err(e) = run() {
        eprintln!("cache bench: {e}");
    }
}
