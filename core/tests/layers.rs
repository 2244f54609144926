//! The layering of `code-intel-session` and `code-intel-core` (ARCHITECTURE.md "Layers"), checked on
//! the source. `code-intel-session` is the lean crate the hooks link; `code-intel-core` depends on it
//! and re-exports its modules, so `crate::session` in core is gate's `session`.
//!
//! The edges are the `crate::<module>` paths each top-level module's non-test code names
//! (comments, `tests.rs` files and inline `#[cfg(test)] mod tests` blocks excluded: tests may
//! reach across layers). The checks:
//! - every top-level module has a layer in [`LAYERS`] (a new module must be placed);
//! - a module only uses modules of its own layer or below;
//! - the graph has no cycle (within a layer too);
//! - `docs/module-graph.dot` is the graph of the code (regenerate with
//!   `UPDATE_MODULE_GRAPH=1 cargo test -p code-intel-core --test layers`, then
//!   `dot -Tsvg docs/module-graph.dot -o docs/module-graph.svg`).

#![allow(clippy::disallowed_methods)] // UPDATE_MODULE_GRAPH is read from the environment

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Layers from the bottom; a module may use its own layer and those below. The first five are
/// `code-intel-session`'s modules, the rest `code-intel-core`'s own (`core_relevance` is core's
/// `relevance`: gate's module re-exported plus the calibrated scorer).
const LAYERS: &[(&str, &[&str])] = &[
    ("base", &["persist", "state_dir", "config", "repo_path"]),
    ("vocabulary", &["vocab"]),
    (
        "leaves",
        &[
            "query_frame",
            "router",
            "journal",
            "learned",
            "relevance",
            "witness",
        ],
    ),
    ("session", &["session"]),
    ("policy", &["gate", "outcome"]),
    ("model (core)", &["embed", "core_relevance"]),
    ("index (core)", &["index", "explore", "eval"]),
];

/// The gate crate's `src/` and core's `src/`.
fn src_dirs() -> [PathBuf; 2] {
    let core = Path::new(env!("CARGO_MANIFEST_DIR"));
    [core.join("../session/src"), core.join("src")]
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The code of a file without comments and without an inline `#[cfg(test)] mod tests` block.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests {") {
        Some(i) => &text[..i],
        None => text,
    };
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        // `//` inside a string literal is rare in `crate::` lines; good enough for use edges.
        let code = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// Identifiers following `crate::` in `code`, and the names inside `use crate::{a, b::c}`.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Items at brace depth 0 of the group: `{a::{b, c}, d}` → a, d.
            let mut depth = 0usize;
            let mut item_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && (c.is_alphanumeric() || c == '_') => {
                        let name: String = group[i..]
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect();
                        found.insert(name);
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

/// Module → modules it uses (top-level modules of both crates; in core, a path to a re-exported
/// gate module is an edge to that gate module, and core's own `relevance` is `core_relevance`).
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    // (crate: 0 gate, 1 core; file; top-level module)
    let mut files: Vec<(usize, PathBuf, String)> = Vec::new();
    let mut own: [BTreeSet<String>; 2] = [BTreeSet::new(), BTreeSet::new()];
    for (k, src) in src_dirs().iter().enumerate() {
        let mut found = Vec::new();
        rust_files(src, &mut found);
        for f in found {
            let rel = f.strip_prefix(src).expect("under src");
            let top = rel.components().next().expect("a component");
            let top = top
                .as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_string();
            if top != "lib" {
                own[k].insert(top.clone());
                files.push((k, f, top));
            }
        }
    }
    let name = |k: usize, module: &str| -> String {
        if k == 1 && own[0].contains(module) {
            format!("core_{module}")
        } else {
            module.to_string()
        }
    };
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (k, modules) in own.iter().enumerate() {
        for m in modules {
            graph.entry(name(k, m)).or_default();
        }
    }
    for (k, f, top) in &files {
        if f.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let from = name(*k, top);
        let text = fs::read_to_string(f).unwrap_or_else(|e| panic!("reading {}: {e}", f.display()));
        for used in crate_paths(&code_of(&text)) {
            let to = if own[*k].contains(&used) {
                name(*k, &used)
            } else if *k == 1 && own[0].contains(&used) {
                used.clone()
            } else {
                continue;
            };
            if to != from {
                graph.get_mut(&from).expect("known module").insert(to);
            }
        }
    }
    graph
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, ms)| ms.contains(&module))
}

/// A cycle as a list of modules, if the graph has one (depth-first search with colours).
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_string(), 1);
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            match state.get(next.as_str()).copied().unwrap_or(0) {
                1 => {
                    let start = stack.iter().position(|m| m == next).expect("on the stack");
                    let mut cycle = stack[start..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(next, graph, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(node.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if state.get(node.as_str()).copied().unwrap_or(0) == 0 {
            let mut stack = Vec::new();
            if let Some(c) = visit(node, graph, &mut state, &mut stack) {
                return Some(c);
            }
        }
    }
    None
}

fn dot(graph: &BTreeMap<String, BTreeSet<String>>) -> String {
    let mut out = String::from(
        "// Generated by core/tests/layers.rs (UPDATE_MODULE_GRAPH=1); render with\n\
         // `dot -Tsvg docs/module-graph.dot -o docs/module-graph.svg`.\n\
         digraph code_intel {\n  rankdir=BT;\n  node [shape=box, fontname=\"sans-serif\"];\n",
    );
    for (i, (name, modules)) in LAYERS.iter().enumerate() {
        out.push_str(&format!(
            "  subgraph cluster_{i} {{\n    label=\"{i}: {name}\";\n    style=dashed;\n"
        ));
        for m in *modules {
            if graph.contains_key(*m) {
                out.push_str(&format!("    {m};\n"));
            }
        }
        out.push_str("  }\n");
    }
    for (from, tos) in graph {
        for to in tos {
            out.push_str(&format!("  {from} -> {to};\n"));
        }
    }
    out.push_str("}\n");
    out
}

#[test]
fn every_module_has_a_layer() {
    let graph = module_graph();
    let unplaced: Vec<&String> = graph.keys().filter(|m| layer_of(m).is_none()).collect();
    assert!(
        unplaced.is_empty(),
        "modules without a layer (add them to LAYERS in core/tests/layers.rs and to ARCHITECTURE.md \"Layers\"): {unplaced:?}"
    );
    for (_, modules) in LAYERS {
        for m in *modules {
            assert!(
                graph.contains_key(*m),
                "LAYERS names '{m}', which is not a module of code-intel-session or code-intel-core"
            );
        }
    }
}

#[test]
fn modules_use_only_their_layer_and_below() {
    let graph = module_graph();
    let mut upward = Vec::new();
    for (from, tos) in &graph {
        let Some(lf) = layer_of(from) else { continue };
        for to in tos {
            if layer_of(to).is_some_and(|lt| lt > lf) {
                upward.push(format!(
                    "{from} ({}) uses {to} ({})",
                    LAYERS[lf].0,
                    LAYERS[layer_of(to).expect("placed")].0
                ));
            }
        }
    }
    assert!(upward.is_empty(), "upward dependencies: {upward:#?}");
}

#[test]
fn module_graph_has_no_cycle() {
    let graph = module_graph();
    assert_eq!(find_cycle(&graph), None, "module cycle (edges: {graph:#?})");
}

#[test]
fn cycle_detection_finds_a_cycle() {
    let mut graph = BTreeMap::new();
    graph.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    graph.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    graph.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(
        find_cycle(&graph),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    let paths =
        crate_paths("use crate::{session::{store, Phase}, vocab};\nlet x = crate::gate::decide();");
    assert_eq!(
        paths,
        BTreeSet::from([
            "gate".to_string(),
            "session".to_string(),
            "vocab".to_string()
        ])
    );
}

#[test]
fn committed_module_graph_matches_the_code() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/module-graph.dot");
    let generated = dot(&module_graph());
    if std::env::var_os("UPDATE_MODULE_GRAPH").is_some() {
        fs::write(&path, &generated).expect("writing docs/module-graph.dot");
        return;
    }
    let committed = fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/module-graph.dot is out of date: run `UPDATE_MODULE_GRAPH=1 cargo test -p code-intel-core --test layers` and re-render the SVG"
    );
}
