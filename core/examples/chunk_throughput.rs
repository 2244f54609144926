//! Measures chunking throughput on a real tree: `cargo run --release -p code-intel-core --example
//! chunk_throughput -- <dir> [threads]`. Reads every file first, then times `chunk_source` alone.
#![allow(clippy::disallowed_methods, clippy::print_stdout, clippy::print_stderr)]

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use code_intel_core::index::chunk::{ChunkOptions, chunk_source};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(root) = args.next() else {
        eprintln!("usage: chunk_throughput <dir> [threads]");
        std::process::exit(2);
    };
    let threads: usize = args.next().and_then(|t| t.parse().ok()).unwrap_or(1).max(1);
    let root = Path::new(&root);
    let mut files = Vec::new();
    for entry in ignore::WalkBuilder::new(root).build().flatten() {
        if entry.file_type().is_some_and(|t| t.is_file())
            && let Ok(bytes) = std::fs::read(entry.path())
        {
            let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
            files.push((rel.to_string_lossy().replace('\\', "/"), bytes));
        }
    }
    let bytes: usize = files.iter().map(|f| f.1.len()).sum();
    let opts = &ChunkOptions::default();
    let start = Instant::now();
    // Threads take files from a shared counter so a few large files do not unbalance them.
    let next = AtomicUsize::new(0);
    let (chunks, skipped) = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let (mut chunks, mut skipped) = (0usize, 0usize);
                    while let Some((path, bytes)) = files.get(next.fetch_add(1, Ordering::Relaxed))
                    {
                        match chunk_source(path, bytes, opts) {
                            Ok(c) => chunks += c.len(),
                            Err(_) => skipped += 1,
                        }
                    }
                    (chunks, skipped)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or((0, 0)))
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    });
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{} files ({:.1} MiB), {} skipped, {} chunks in {:.3} s on {} thread(s): {:.0} files/s, {:.0} chunks/s, {:.1} MiB/s",
        files.len(),
        bytes as f64 / (1 << 20) as f64,
        skipped,
        chunks,
        secs,
        threads,
        files.len() as f64 / secs,
        chunks as f64 / secs,
        bytes as f64 / (1 << 20) as f64 / secs
    );
}
