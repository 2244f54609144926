//! Framework link counts of an indexed repository (docs/EVALUATION.md, "Framework links"):
//! files with facts, provided keys and links per kind, links whose target no file provides, and
//! a sample of linked files. Run after `code-intel index --repo DIR`:
//!
//! ```text
//! cargo run --release -p code-intel-core --example framework_links -- DIR [SAMPLE_FILE...]
//! cargo run --release -p code-intel-core --example framework_links -- DIR --edges > edges.jsonl
//! ```
//!
//! `--edges` prints instead one JSON line per indexed file with framework neighbours:
//! `{"file": PATH, "neighbors": [{"kind", "file", "key", "outgoing"}]}` (the neighbours
//! ranked search may follow, at most `FRAMEWORK_MAX_PER_KEY` per key), for reachability
//! analyses such as the ceiling in docs/EVALUATION.md.
//!
//! Nothing is asserted; results go to stdout.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::BTreeMap;

use code_intel_core::index::CodeIndex;
use code_intel_core::index::sync::SyncState;
use code_intel_session::config::Config;
use code_intel_session::repo_path::RepoRoot;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next() else {
        eprintln!("usage: framework_links DIR [SAMPLE_FILE...]");
        std::process::exit(2);
    };
    let root = RepoRoot::new(std::path::Path::new(&dir)).expect("repository root");
    let config = Config::default();
    let index = CodeIndex::open(&root, &config).expect("open the index");
    let state = SyncState::load(&SyncState::path(&root)).expect("index it first");
    let rest: Vec<String> = args.collect();
    if rest.iter().any(|a| a == "--edges") {
        for file in state.files.keys() {
            let neighbors = index
                .framework_neighbors(file, code_intel_core::index::FRAMEWORK_MAX_PER_KEY)
                .expect("neighbors");
            if neighbors.is_empty() {
                continue;
            }
            let list: Vec<_> = neighbors
                .iter()
                .map(|n| {
                    serde_json::json!({"kind": n.kind, "file": n.file, "key": n.key, "outgoing": n.outgoing})
                })
                .collect();
            println!("{}", serde_json::json!({"file": file, "neighbors": list}));
        }
        return;
    }
    println!("frameworks: {}", state.frameworks.join(", "));
    let (mut with_facts, mut provided) = (0usize, BTreeMap::<String, usize>::new());
    let mut links = BTreeMap::<String, (usize, usize)>::new();
    let mut all_provided = std::collections::HashSet::new();
    let mut all_links = Vec::new();
    for file in state.files.keys() {
        let (p, l) = index.framework_facts(file).expect("read");
        if p.is_empty() && l.is_empty() {
            continue;
        }
        with_facts += 1;
        for key in p {
            let kind = key.split(':').next().unwrap_or("").to_string();
            *provided.entry(kind).or_default() += 1;
            all_provided.insert(key);
        }
        all_links.extend(l);
    }
    for l in &all_links {
        let e = links.entry(l.kind.clone()).or_default();
        e.0 += 1;
        if all_provided.contains(&l.target) {
            e.1 += 1;
        }
    }
    println!(
        "files: {} indexed, {with_facts} with framework facts",
        state.files.len()
    );
    println!("provided keys by type: {provided:?}");
    println!("links by kind (total, resolved to a file of the repository):");
    for (kind, (n, resolved)) in &links {
        println!("  {kind:14} {n:6} {resolved:6}");
    }
    for sample in rest {
        println!("\n{sample}:");
        for n in index
            .framework_neighbors(&sample, code_intel_core::index::FRAMEWORK_MAX_PER_KEY)
            .expect("neighbors")
        {
            let dir = if n.outgoing { "->" } else { "<-" };
            println!("  {dir} {:12} {} ({})", n.kind, n.file, n.key);
        }
    }
}
