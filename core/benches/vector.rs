//! Exact scan against the HNSW graph for the vector index: query latency (p50/p95), graph build
//! time, recall@10 and the graph's bytes per node of the graph against the exact answer, over index sizes, on real
//! multilingual-e5 vectors when an embedding cache is given and on random unit vectors otherwise.
//!
//! ```text
//! cargo bench -p code-intel-core --bench vector                       # random vectors, 384 dims
//! cargo bench -p code-intel-core --bench vector -- --cache FILE.emb   # real vectors from a cache
//! ```
//!
//! Real vectors: queries are vectors of the cache itself (the 10 nearest others are the truth),
//! which is how chunk vectors cluster; random vectors are the graph's hard case. Nothing is
//! asserted; the numbers go to docs/BENCHMARKS.md ("Semantic") and set
//! `index::vector::EXACT_SEARCH_MAX`.

#![allow(
    clippy::disallowed_methods,
    clippy::print_stdout,
    clippy::print_stderr,
    missing_docs
)]

use std::time::Instant;

use code_intel_core::index::vector::hnsw::{F32Rows, Hnsw};
use code_intel_core::index::vector::{HNSW_EF_CONSTRUCTION, HNSW_EF_SEARCH, HNSW_M, dot};

const DIMS: usize = 384;
const QUERIES: usize = 200;
const K: usize = 10;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let cache = args
        .iter()
        .position(|a| a == "--cache")
        .and_then(|i| args.get(i + 1));
    // `--sizes 1000,5000`: index sizes to measure (default 1k–20k; graph builds take minutes above).
    let mut sizes: Vec<usize> = args
        .iter()
        .position(|a| a == "--sizes")
        .and_then(|i| args.get(i + 1))
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 2_000, 5_000, 10_000, 20_000]);
    let largest = sizes.iter().copied().max().unwrap_or(1_000);
    let (data, label) = match cache {
        Some(path) => (read_cache(path), format!("real vectors from {path}")),
        None => (random_unit(largest, 7), "random unit vectors".to_string()),
    };
    let n_all = data.len() / DIMS;
    println!("{label}: {n_all} vectors of {DIMS} dims");
    sizes.retain(|&n| n <= n_all);
    if cache.is_some() && !sizes.contains(&n_all) {
        sizes.push(n_all);
    }
    println!(
        "{:>8} {:>10} {:>10} {:>10} {:>10} {:>12} {:>10} {:>10} {:>10}",
        "n",
        "scan p50",
        "scan p95",
        "hnsw p50",
        "hnsw p95",
        "build s",
        "recall@10",
        "ef128 rec",
        "B/node"
    );
    for n in sizes {
        let matrix = &data[..n * DIMS];
        let queries: Vec<&[f32]> = (0..QUERIES)
            .map(|i| {
                let q = (i * 7919) % n;
                &matrix[q * DIMS..(q + 1) * DIMS]
            })
            .collect();
        // Exact.
        let mut scan_ms = Vec::new();
        let mut truth = Vec::new();
        for q in &queries {
            let t = Instant::now();
            let top = exact(matrix, q, K + 1);
            scan_ms.push(t.elapsed().as_secs_f64() * 1e3);
            truth.push(top);
        }
        // Graph.
        let t = Instant::now();
        let points = F32Rows::new(matrix, DIMS);
        let mut graph = Hnsw::new(HNSW_M, HNSW_EF_CONSTRUCTION);
        for i in 0..n {
            graph.insert(&points, i);
        }
        let build = t.elapsed().as_secs_f64();
        let mut hnsw_ms = Vec::new();
        let (mut hit64, mut hit128, mut total) = (0usize, 0usize, 0usize);
        for (q, want) in queries.iter().zip(&truth) {
            let t = Instant::now();
            let got = graph.search(&points, q, K + 1, HNSW_EF_SEARCH, None);
            hnsw_ms.push(t.elapsed().as_secs_f64() * 1e3);
            let got128 = graph.search(&points, q, K + 1, 128, None);
            let want: Vec<usize> = want.iter().map(|(i, _)| *i).collect();
            total += want.len();
            hit64 += got.iter().filter(|n| want.contains(&n.0)).count();
            hit128 += got128.iter().filter(|n| want.contains(&n.0)).count();
        }
        println!(
            "{:>8} {:>9.3}ms {:>9.3}ms {:>9.3}ms {:>9.3}ms {:>12.1} {:>10.3} {:>10.3} {:>10.0}",
            n,
            pct(&mut scan_ms, 0.5),
            pct(&mut scan_ms, 0.95),
            pct(&mut hnsw_ms, 0.5),
            pct(&mut hnsw_ms, 0.95),
            build,
            hit64 as f64 / total as f64,
            hit128 as f64 / total as f64,
            graph.heap_bytes() as f64 / n as f64
        );
        // Late inserts (an edited file's new chunks in an embedded repository): the next
        // vectors, one at a time into the grown graph, each searched with its own vector.
        let late = (n_all - n).min(300);
        if late > 0 {
            let all = F32Rows::new(&data[..(n + late) * DIMS], DIMS);
            let mut found = 0;
            for node in n..n + late {
                graph.insert(&all, node);
                let got = graph.search(&all, all.row(node), 1, HNSW_EF_SEARCH, None);
                // Found, or an equal vector (a duplicate text) found instead.
                if got.first().is_some_and(|&(g, s)| {
                    g == node || s >= dot(all.row(node), all.row(node)) - 1e-6
                }) {
                    found += 1;
                }
            }
            println!("{n:>8} late inserts found as their own nearest: {found} of {late}");
        }
    }
}

fn exact(matrix: &[f32], q: &[f32], k: usize) -> Vec<(usize, f32)> {
    let mut scored: Vec<(usize, f32)> = matrix
        .chunks_exact(DIMS)
        .enumerate()
        .map(|(i, v)| (i, dot(q, v)))
        .collect();
    let k = k.min(scored.len());
    scored.select_nth_unstable_by(k - 1, |a, b| b.1.total_cmp(&a.1));
    scored.truncate(k);
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    scored
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

/// Deterministic random unit vectors (xorshift64*, Box–Muller-free: uniform components are
/// enough to spread directions for a speed test).
fn random_unit(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    let mut next = || {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        (s.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    let mut out = Vec::with_capacity(n * DIMS);
    for _ in 0..n {
        let v: Vec<f32> = (0..DIMS).map(|_| next()).collect();
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        out.extend(v.iter().map(|x| x / norm));
    }
    out
}

/// Reads every vector of an embedding cache file (core/src/embed/cache.rs format).
fn read_cache(path: &str) -> Vec<f32> {
    let bytes = std::fs::read(path).expect("read the cache file");
    let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes"));
    assert_eq!(&bytes[..8], b"CIEMBED\0", "not an embedding cache");
    let dims = u32_at(12) as usize;
    assert_eq!(dims, DIMS);
    let id_len = u32_at(16) as usize;
    let mut at = 20 + id_len + 4;
    let record = 32 + 4 * dims + 4;
    let mut out = Vec::new();
    while at + record <= bytes.len() {
        let v = &bytes[at + 32..at + 32 + 4 * dims];
        out.extend(
            v.chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes"))),
        );
        at += record;
    }
    out
}
