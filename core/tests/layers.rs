//! The layering of the workspace (ARCHITECTURE.md "Layers"), checked on the source: the crates
//! and what each may depend on, and every source file of the library crates placed in a layer.
//!
//! Crates: [`CRATES`] is the workspace's crate graph as intended; each member's `Cargo.toml`
//! `[dependencies]` (normal, not dev or build) must name exactly the workspace crates listed for
//! it, so a new edge between crates is a decision written here and in ARCHITECTURE.md.
//!
//! Files: every `.rs` file under the `src/` of `code-intel-bash`, `code-intel-session`,
//! `code-intel-core` and `code-intel-hooks` is a node (its crate root `lib.rs` and `tests.rs`
//! files excepted). A file's edges are the paths its non-test code names, resolved to the
//! deepest file that defines them: `crate::a::b`, `super::…`, `self::…`, a child module declared
//! in the file, and the other workspace crates' paths (`code_intel_session::gate::tools`,
//! `code_intel_bash::…`). A path to an item of a crate root (`crate::BashWrite`) is no edge: the
//! root holds the crate's public vocabulary and its entry points. A file's layer is that of the
//! longest module path of [`LAYERS`] it lies in (`gate::tools` can sit below `gate`). The checks:
//! - every file is placed, and every module path [`LAYERS`] names exists;
//! - a file only uses files of its own layer or below (across crates too);
//! - the graph of placed module paths has no cycle (a file's edges count for the module path it
//!   is placed by; within one module path files may use each other);
//! - `docs/module-graph.dot` is that graph, clustered by crate and layer (regenerate with
//!   `UPDATE_MODULE_GRAPH=1 cargo test -p code-intel-core --test layers`, then
//!   `dot -Tsvg docs/module-graph.dot -o docs/module-graph.svg`).

#![allow(clippy::disallowed_methods)] // UPDATE_MODULE_GRAPH is read from the environment

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The workspace's crates: (package, directory, the workspace crates its `[dependencies]` name).
/// The hooks link the phase engine and the Bash analysis, never the index (`scripts/test.sh`
/// also checks the whole dependency tree for tantivy, ort and tree-sitter).
const CRATES: &[(&str, &str, &[&str])] = &[
    ("code-intel-bash", "bash", &[]),
    ("code-intel-session", "session", &["code-intel-bash"]),
    ("code-intel-grammars", "grammars", &[]),
    (
        "code-intel-core",
        "core",
        &["code-intel-session", "code-intel-grammars"],
    ),
    ("code-intel-hooks", "hooks", &["code-intel-session"]),
    (
        "code-intel-mcp",
        "mcp",
        &[
            "code-intel-core",
            "code-intel-session",
            "code-intel-grammars",
        ],
    ),
    (
        "code-intel-node",
        "bindings/node",
        &["code-intel-core", "code-intel-session", "code-intel-hooks"],
    ),
    ("code-intel-e2e", "tests", &[]),
];

/// The crates whose files are placed: (directory, Rust crate name).
const LAYERED: &[(&str, &str)] = &[
    ("bash", "code_intel_bash"),
    ("session", "code_intel_session"),
    ("core", "code_intel_core"),
    ("hooks", "code_intel_hooks"),
];

/// Layers from the bottom: (crate directory, layer name, module paths). A file may use files of
/// its own layer and those below.
const LAYERS: &[(&str, &str, &[&str])] = &[
    ("bash", "words", &["lex", "parse", "brace", "bind", "opts"]),
    ("bash", "analysis", &["registry", "interp", "rules", "eval"]),
    (
        "session",
        "base",
        &["persist", "state_dir", "config", "repo_path"],
    ),
    ("session", "vocabulary", &["vocab"]),
    (
        "session",
        "leaves",
        &[
            "query_frame",
            "router",
            "journal",
            "learned",
            "relevance",
            "witness",
            "gate::tools",
        ],
    ),
    ("session", "session", &["session"]),
    ("session", "policy", &["gate", "outcome"]),
    ("core", "model", &["embed", "relevance"]),
    ("core", "index", &["index", "explore", "eval"]),
    ("hooks", "hook input", &["tools"]),
    (
        "hooks",
        "hooks",
        &["pre", "post", "shell_prefix", "witness"],
    ),
];

/// Layers whose module paths may use each other in a cycle: (crate directory, layer name). The
/// Bash analysis recurses: the evaluator (`eval`) looks a program up in the registry or the
/// rules, and a spec, a rule or an interpreter scanner hands the command it runs (`sh -c`,
/// `xargs`, `find -exec`, `system()`) back to the evaluator, over the evaluator's state (`Eval`).
const RECURSIVE: &[(&str, &str)] = &[("bash", "analysis")];

/// A source file: its crate directory, path, module path (`gate::tools`), whether it is a
/// crate root.
struct File {
    krate: &'static str,
    path: PathBuf,
    module: Vec<String>,
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
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

/// Every library source file of the layered crates (binaries under `src/bin/` are adapters over
/// their crate's library and are left out).
fn files() -> Vec<File> {
    let mut out = Vec::new();
    for (krate, _) in LAYERED {
        let src = workspace().join(krate).join("src");
        let mut found = Vec::new();
        rust_files(&src, &mut found);
        for path in found {
            let rel = path.strip_prefix(&src).expect("under src").to_path_buf();
            if rel.starts_with("bin") {
                continue;
            }
            let mut module: Vec<String> = rel
                .components()
                .map(|c| {
                    c.as_os_str()
                        .to_string_lossy()
                        .trim_end_matches(".rs")
                        .to_string()
                })
                .collect();
            if module.last().is_some_and(|m| m == "mod" || m == "lib") {
                module.pop();
            }
            out.push(File {
                krate,
                path,
                module,
            });
        }
    }
    out
}

/// The code of a file without comments and without an inline `#[cfg(test)] mod tests` block.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests {") {
        Some(i) => &text[..i],
        None => text,
    };
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        // `//` inside a string literal is rare in path lines; good enough for use edges.
        let code = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        out.push_str(code);
        out.push('\n');
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every path in `code` as its segments, with `use` groups expanded:
/// `use crate::{a::{b, c}, d};` → `crate::a::b`, `crate::a::c`, `crate::d`. A path is a run of
/// identifiers joined by `::` that starts at a word boundary; its last segment may be an item.
fn paths(code: &str) -> Vec<Vec<String>> {
    fn parse(s: &[char], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
        // One path tree at s[i..]: segments, then maybe `::{…}`.
        let mut segs = prefix.to_vec();
        loop {
            let start = *i;
            while *i < s.len() && is_ident(s[*i]) {
                *i += 1;
            }
            if *i > start {
                segs.push(s[start..*i].iter().collect());
            }
            if s[*i..].starts_with(&[':', ':']) {
                *i += 2;
                if s.get(*i) == Some(&'{') {
                    *i += 1;
                    loop {
                        while s.get(*i).is_some_and(|c| c.is_whitespace() || *c == ',') {
                            *i += 1;
                        }
                        match s.get(*i) {
                            None => return,
                            Some('}') => {
                                *i += 1;
                                return;
                            }
                            _ => {
                                let before = *i;
                                parse(s, i, &segs, out);
                                // Skip ` as name` and anything up to the next item.
                                while s.get(*i).is_some_and(|c| *c != ',' && *c != '}') {
                                    *i += 1;
                                }
                                if *i == before {
                                    *i += 1;
                                }
                            }
                        }
                    }
                }
                continue;
            }
            break;
        }
        if segs.len() > prefix.len() {
            out.push(segs);
        }
    }
    let s: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        if is_ident(s[i]) && (i == 0 || !(is_ident(s[i - 1]) || s[i - 1] == ':')) {
            let mut segs = Vec::new();
            let start = i;
            parse(&s, &mut i, &[], &mut segs);
            // A lone identifier is no path.
            out.extend(segs.into_iter().filter(|p| p.len() > 1 || p[0] == "self"));
            if i == start {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

/// The child modules a file declares (`mod x;`, `pub mod x;`, `pub(crate) mod x;`).
fn declared_modules(code: &str) -> BTreeSet<String> {
    code.lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l
                .strip_prefix("pub(crate) ")
                .or_else(|| l.strip_prefix("pub(super) "))
                .or_else(|| l.strip_prefix("pub "))
                .unwrap_or(l);
            let name = l.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(name.trim().to_string())
        })
        .collect()
}

/// The file a path names: (crate, module path) resolved against the modules that exist; `None`
/// for a path outside the layered crates or to an item of a crate root.
fn resolve(
    file: &File,
    children: &BTreeSet<String>,
    path: &[String],
    modules: &BTreeSet<(&'static str, Vec<String>)>,
) -> Option<(&'static str, Vec<String>)> {
    let (krate, mut full): (&'static str, Vec<String>) = match path[0].as_str() {
        "crate" => (file.krate, path[1..].to_vec()),
        "self" | "super" => {
            let mut base = file.module.clone();
            let mut rest = path;
            while let Some(first) = rest.first() {
                match first.as_str() {
                    "self" => {}
                    "super" => {
                        base.pop();
                    }
                    _ => break,
                }
                rest = &rest[1..];
            }
            base.extend(rest.iter().cloned());
            (file.krate, base)
        }
        first if children.contains(first) => {
            let mut base = file.module.clone();
            base.extend(path.iter().cloned());
            (file.krate, base)
        }
        first => {
            let (krate, _) = LAYERED.iter().find(|(_, name)| *name == first)?;
            (krate, path[1..].to_vec())
        }
    };
    while !full.is_empty() {
        if modules.contains(&(krate, full.clone())) {
            return Some((krate, full));
        }
        full.pop();
    }
    None
}

/// The placed module path a file belongs to: the longest of [`LAYERS`]' paths of its crate that
/// is a prefix of its module path, as (layer index, "crate::path").
fn placement(krate: &str, module: &[String]) -> Option<(usize, String)> {
    let mut best: Option<(usize, usize, String)> = None;
    for (i, (k, _, paths)) in LAYERS.iter().enumerate() {
        if *k != krate {
            continue;
        }
        for p in *paths {
            let segs: Vec<&str> = p.split("::").collect();
            let fits = segs.len() <= module.len() && segs.iter().zip(module).all(|(a, b)| a == b);
            if fits && best.as_ref().is_none_or(|(_, n, _)| segs.len() > *n) {
                best = Some((i, segs.len(), format!("{k}::{p}")));
            }
        }
    }
    best.map(|(i, _, name)| (i, name))
}

/// Files' edges: (file, crate::path of the file, used file's crate and module path).
struct Graph {
    /// Every file's module path, for resolving.
    modules: BTreeSet<(&'static str, Vec<String>)>,
    /// (from file, to crate, to module path).
    edges: Vec<(String, &'static str, Vec<String>)>,
    /// Files by "crate::module::path" (crate roots and tests left out).
    files: BTreeMap<String, (&'static str, Vec<String>)>,
}

fn name(krate: &str, module: &[String]) -> String {
    let mut s = krate.to_string();
    for m in module {
        s.push_str("::");
        s.push_str(m);
    }
    s
}

fn graph() -> Graph {
    let all = files();
    let modules: BTreeSet<(&'static str, Vec<String>)> =
        all.iter().map(|f| (f.krate, f.module.clone())).collect();
    let mut edges = Vec::new();
    let mut nodes = BTreeMap::new();
    for f in &all {
        let is_test = f.module.last().is_some_and(|m| m == "tests");
        if f.module.is_empty() || is_test {
            continue;
        }
        let from = name(f.krate, &f.module);
        nodes.insert(from.clone(), (f.krate, f.module.clone()));
        let text = fs::read_to_string(&f.path)
            .unwrap_or_else(|e| panic!("reading {}: {e}", f.path.display()));
        let code = code_of(&text);
        let children = declared_modules(&code);
        for p in paths(&code) {
            if let Some((k, m)) = resolve(f, &children, &p, &modules)
                && !m.is_empty()
                && !(k == f.krate && m == f.module)
            {
                edges.push((from.clone(), k, m));
            }
        }
    }
    edges.sort();
    edges.dedup();
    Graph {
        modules,
        edges,
        files: nodes,
    }
}

/// The graph of placed module paths ("crate::path" → the placed paths it uses).
fn placed_graph(g: &Graph) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (krate, module) in g.files.values() {
        if let Some((_, p)) = placement(krate, module) {
            out.entry(p).or_default();
        }
    }
    for (from, k, m) in &g.edges {
        let (fk, fm) = &g.files[from];
        let (Some((_, a)), Some((_, b))) = (placement(fk, fm), placement(k, m)) else {
            continue;
        };
        if a != b {
            out.entry(a).or_default().insert(b);
        }
    }
    out
}

/// [`placed_graph`] without the edges inside a [`RECURSIVE`] layer.
fn acyclic_part(graph: &BTreeMap<String, BTreeSet<String>>) -> BTreeMap<String, BTreeSet<String>> {
    let layer = |node: &str| -> Option<usize> {
        let (krate, path) = node.split_once("::")?;
        LAYERS
            .iter()
            .position(|(k, _, paths)| *k == krate && paths.contains(&path))
    };
    let mut out = graph.clone();
    for (from, tos) in out.iter_mut() {
        tos.retain(|to| {
            let (Some(a), Some(b)) = (layer(from), layer(to)) else {
                return true;
            };
            !(a == b && RECURSIVE.contains(&(LAYERS[a].0, LAYERS[a].1)))
        });
    }
    out
}

/// A cycle as a list of nodes, if the graph has one (depth-first search with colours).
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
    let id = |s: &str| s.replace("::", "__");
    let mut out = String::from(
        "// Generated by core/tests/layers.rs (UPDATE_MODULE_GRAPH=1); render with\n\
         // `dot -Tsvg docs/module-graph.dot -o docs/module-graph.svg`.\n\
         digraph code_intel {\n  rankdir=BT;\n  compound=true;\n  node [shape=box, fontname=\"sans-serif\"];\n",
    );
    for (krate, rust_name) in LAYERED {
        out.push_str(&format!(
            "  subgraph cluster_{krate} {{\n    label=\"{}\";\n    style=solid;\n",
            rust_name.replace('_', "-")
        ));
        for (i, (k, layer, paths)) in LAYERS.iter().enumerate() {
            if k != krate {
                continue;
            }
            out.push_str(&format!(
                "    subgraph cluster_{i} {{\n      label=\"{i}: {layer}\";\n      style=dashed;\n"
            ));
            for p in *paths {
                let full = format!("{k}::{p}");
                if graph.contains_key(&full) {
                    out.push_str(&format!("      {} [label=\"{p}\"];\n", id(&full)));
                }
            }
            out.push_str("    }\n");
        }
        out.push_str("  }\n");
    }
    for (from, tos) in graph {
        for to in tos {
            out.push_str(&format!("  {} -> {};\n", id(from), id(to)));
        }
    }
    out.push_str("}\n");
    out
}

/// The workspace crates a member's `[dependencies]` section names.
fn workspace_dependencies(dir: &str) -> BTreeSet<String> {
    let toml = workspace().join(dir).join("Cargo.toml");
    let text =
        fs::read_to_string(&toml).unwrap_or_else(|e| panic!("reading {}: {e}", toml.display()));
    let mut section = String::new();
    let mut found = BTreeSet::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line.to_string();
            continue;
        }
        let normal = section == "[dependencies]"
            || (section.starts_with("[target.") && section.ends_with(".dependencies]"));
        if normal
            && let Some(dep) = line.split(['=', '.', ' ']).next()
            && dep.starts_with("code-intel-")
        {
            found.insert(dep.to_string());
        }
    }
    found
}

#[test]
fn crates_depend_only_on_the_crates_listed() {
    let members = fs::read_to_string(workspace().join("Cargo.toml")).expect("workspace manifest");
    for (package, dir, deps) in CRATES {
        assert!(
            members.contains(&format!("\"{dir}\"")),
            "CRATES names {dir}, not a workspace member"
        );
        let manifest =
            fs::read_to_string(workspace().join(dir).join("Cargo.toml")).expect("member manifest");
        assert!(
            manifest.contains(&format!("name = \"{package}\"")),
            "{dir}/Cargo.toml is not the package {package}"
        );
        let want: BTreeSet<String> = deps.iter().map(|d| d.to_string()).collect();
        assert_eq!(
            workspace_dependencies(dir),
            want,
            "{package}'s workspace dependencies differ from CRATES in core/tests/layers.rs \
             (change both, and ARCHITECTURE.md \"Layers\")"
        );
    }
}

#[test]
fn every_file_has_a_layer() {
    let g = graph();
    let unplaced: Vec<&String> = g
        .files
        .iter()
        .filter(|(_, (k, m))| placement(k, m).is_none())
        .map(|(n, _)| n)
        .collect();
    assert!(
        unplaced.is_empty(),
        "files without a layer (add their module to LAYERS in core/tests/layers.rs and to ARCHITECTURE.md \"Layers\"): {unplaced:?}"
    );
    for (k, _, paths) in LAYERS {
        for p in *paths {
            let segs: Vec<String> = p.split("::").map(str::to_string).collect();
            assert!(
                g.modules.contains(&(k, segs)),
                "LAYERS names '{k}::{p}', which is not a module of the {k} crate"
            );
        }
    }
}

#[test]
fn files_use_only_their_layer_and_below() {
    let g = graph();
    let mut upward = Vec::new();
    for (from, k, m) in &g.edges {
        let (fk, fm) = &g.files[from];
        let (Some((lf, _)), Some((lt, _))) = (placement(fk, fm), placement(k, m)) else {
            continue;
        };
        if lt > lf {
            upward.push(format!(
                "{from} ({}) uses {} ({})",
                LAYERS[lf].1,
                name(k, m),
                LAYERS[lt].1
            ));
        }
    }
    assert!(upward.is_empty(), "upward dependencies: {upward:#?}");
}

#[test]
fn module_graph_has_no_cycle() {
    let graph = acyclic_part(&placed_graph(&graph()));
    assert_eq!(find_cycle(&graph), None, "module cycle (edges: {graph:#?})");
}

#[test]
fn the_checks_can_fail() {
    let mut graph = BTreeMap::new();
    graph.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    graph.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    graph.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(
        find_cycle(&graph),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    let found: BTreeSet<String> = paths(
        "use crate::{session::{store, Phase}, vocab};\nlet x = crate::gate::decide();\n\
         use code_intel_session::gate::tools::{self, ToolClass as C};",
    )
    .into_iter()
    .map(|p| p.join("::"))
    .collect();
    assert_eq!(
        found,
        BTreeSet::from(
            [
                "crate::session::store",
                "crate::session::Phase",
                "crate::vocab",
                "crate::gate::decide",
                "code_intel_session::gate::tools::self",
                "code_intel_session::gate::tools::ToolClass",
            ]
            .map(String::from)
        )
    );
    // A file of the session layer naming the policy layer's gate is an upward edge.
    let session = placement("session", &["session".into(), "store".into()]).expect("placed");
    let gate = placement("session", &["gate".into(), "loaded".into()]).expect("placed");
    let tools = placement("session", &["gate".into(), "tools".into()]).expect("placed");
    assert!(gate.0 > session.0 && tools.0 < session.0);
    assert_eq!(tools.1, "session::gate::tools");
}

#[test]
fn committed_module_graph_matches_the_code() {
    let path = workspace().join("docs/module-graph.dot");
    let generated = dot(&placed_graph(&graph()));
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
