//! The vector index with the deterministic fake embedder: progressive fill and coverage, sync
//! consistency (add, modify, delete, rename against a from-scratch build), no re-embedding of
//! unchanged chunks (a counting fake), persistence, the HNSW path against exact search,
//! tombstones and compaction, damaged graph dumps.

#![cfg(all(feature = "index", feature = "embed"))]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::AtomicBool;

use code_intel_core::embed::Embedder;
use code_intel_core::index::CodeIndex;
use code_intel_core::index::vector::{RowHandoff, VectorIndex, VectorState};
use code_intel_session::config::Config;
use code_intel_session::repo_path::RepoRoot;

mod fake;

use fake::{Counting, DIMS, write_old};

fn fixture(files: &[(&str, &str)]) -> (tempfile::TempDir, RepoRoot) {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in files {
        write_old(dir.path(), path, content);
    }
    let root = RepoRoot::new(dir.path()).unwrap();
    (dir, root)
}

fn config() -> Config {
    Config {
        source_dirs: Vec::new(),
        ..Config::default()
    }
}

/// Syncs the lexical index, refreshes and fills the vectors; returns the open vector index.
fn build(root: &RepoRoot, embedder: &dyn Embedder) -> VectorIndex {
    let index = CodeIndex::open(root, &config()).unwrap();
    index.sync(&mut |_| {}).unwrap();
    let mut vectors = VectorIndex::open(root, &config(), embedder.model_id(), DIMS).unwrap();
    vectors.refresh().unwrap();
    vectors
        .embed_pending(embedder, &mut |_, _| {}, &AtomicBool::new(false))
        .unwrap();
    vectors
}

/// Every row as (file, start, end, qualified name, sha256, key) plus each key's vector.
type Dump = (
    BTreeSet<(String, u32, u32, String, String, String)>,
    BTreeMap<String, Vec<f32>>,
);

fn dump(vectors: &VectorIndex) -> Dump {
    let state = VectorIndex::peek_state(vectors.root()).expect("saved state");
    let mut rows = BTreeSet::new();
    let mut vecs = BTreeMap::new();
    for (file, fr) in &state.files {
        for r in &fr.rows {
            rows.insert((
                file.clone(),
                r.start_line,
                r.end_line,
                r.symbol.to_string(),
                r.sha256.to_hex(),
                r.key.to_hex(),
            ));
            let v = vectors
                .vector(&r.key.to_hex())
                .expect("every row embedded")
                .to_vec();
            vecs.insert(r.key.to_hex(), v);
        }
    }
    (rows, vecs)
}

const AUTH: &str = "\
def hash_password(password, rounds=12):
    \"\"\"Hash a password with bcrypt.\"\"\"
    return bcrypt.hashpw(password, bcrypt.gensalt(rounds))


def check_password(password, hashed):
    \"\"\"Compare a password with its bcrypt hash.\"\"\"
    return bcrypt.checkpw(password, hashed)
";

const CONFIG: &str = "\
class ConfigLoader:
    \"\"\"Load configuration files.\"\"\"

    def load_file(self, path):
        \"\"\"Read a JSON configuration file from disk.\"\"\"
        with open(path) as f:
            return json.load(f)
";

const VIEWS: &str = "\
function renderTemplate(name, context) {
  // Render an HTML template with its context variables.
  return engine.render(name, context);
}

function sendJson(res, body) {
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify(body));
}
";

fn base_files() -> Vec<(&'static str, &'static str)> {
    vec![
        ("app/auth.py", AUTH),
        ("app/config.py", CONFIG),
        ("web/views.js", VIEWS),
    ]
}

#[test]
fn fills_progressively_and_finds_the_described_chunk() {
    let (_dir, root) = fixture(&base_files());
    let embedder = Counting::new();
    let index = CodeIndex::open(&root, &config()).unwrap();
    index.sync(&mut |_| {}).unwrap();
    let mut vectors = VectorIndex::open(&root, &config(), embedder.model_id(), DIMS).unwrap();
    let report = vectors.refresh().unwrap();
    assert_eq!(report.files_rechunked, 3);
    let before = vectors.coverage();
    assert_eq!(before.embedded, 0);
    assert_eq!(
        before.total as u64,
        index.stats().chunks,
        "one row per lexical chunk"
    );
    assert!(before.pending_texts > 0);
    // Nothing is embedded yet: searching works and finds nothing.
    let q = embedder.embed_queries(&["bcrypt password hash"]).unwrap();
    assert!(vectors.search(&q[0], 5).hits.is_empty());

    let mut calls = Vec::new();
    let report = vectors
        .embed_pending(
            &embedder,
            &mut |d, t| calls.push((d, t)),
            &AtomicBool::new(false),
        )
        .unwrap();
    assert_eq!(report.embedded, before.pending_texts);
    assert_eq!(report.coverage.embedded, report.coverage.total);
    assert_eq!(report.coverage.ratio, 1.0);
    assert_eq!(
        calls.last(),
        Some(&(before.pending_texts, before.pending_texts))
    );
    assert_eq!(embedder.take().len(), before.pending_texts);

    let found = vectors.search(&q[0], 3);
    assert!(!found.approximate);
    let top = &found.hits[0];
    assert_eq!(
        (top.file.as_str(), &*top.row.symbol),
        ("app/auth.py", "hash_password")
    );
    assert!(found.profile.n > 0 && found.profile.sd > 0.0);
    assert!(found.profile.z(top.cosine) > 1.0, "{:?}", found.profile);
    // A second refresh of the same commit does nothing.
    assert!(vectors.refresh().unwrap().up_to_date);
}

#[test]
fn a_stopped_run_keeps_what_it_embedded_and_resumes() {
    let files: Vec<(String, String)> = (0..40)
        .map(|i| {
            (
                format!("m/mod{i}.py"),
                format!("def function_{i}(value):\n    return value * {i}\n"),
            )
        })
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let (_dir, root) = fixture(&refs);
    let embedder = Counting::new();
    let index = CodeIndex::open(&root, &config()).unwrap();
    index.sync(&mut |_| {}).unwrap();
    let mut vectors = VectorIndex::open(&root, &config(), embedder.model_id(), DIMS).unwrap();
    vectors.refresh().unwrap();
    let total = vectors.coverage().pending_texts;
    assert!(total > 64, "{total} texts: more than one group");
    let stop = AtomicBool::new(false);
    let report = vectors
        .embed_pending(
            &embedder,
            &mut |_, _| stop.store(true, std::sync::atomic::Ordering::Relaxed),
            &stop,
        )
        .unwrap();
    assert_eq!(report.embedded, 64, "stopped after the first group");
    assert_eq!(report.remaining, total - 64);
    let partial = report.coverage;
    assert!(partial.ratio > 0.0 && partial.ratio < 1.0, "{partial:?}");
    drop(vectors);

    // Another process picks up where it stopped.
    let mut vectors = VectorIndex::open(&root, &config(), embedder.model_id(), DIMS).unwrap();
    assert_eq!(vectors.coverage(), partial);
    embedder.take();
    let report = vectors
        .embed_pending(&embedder, &mut |_, _| {}, &AtomicBool::new(false))
        .unwrap();
    assert_eq!(report.embedded, total - 64);
    assert_eq!(embedder.take().len(), total - 64, "nothing embedded twice");
    assert_eq!(report.coverage.ratio, 1.0);
}

#[test]
fn edits_match_a_from_scratch_build_and_unchanged_texts_are_not_embedded_again() {
    let (dir, root) = fixture(&base_files());
    let embedder = Counting::new();
    let mut vectors = build(&root, &embedder);
    embedder.take();

    // Modify one function of auth.py (check_password unchanged), add a file, delete one,
    // rename another.
    let modified = AUTH.replace("gensalt(rounds)", "gensalt(rounds, prefix)");
    write_old(dir.path(), "app/auth.py", &modified);
    write_old(
        dir.path(),
        "app/mail.py",
        "def send_mail(to, subject):\n    \"\"\"Send an email message.\"\"\"\n    smtp.send(to, subject)\n",
    );
    std::fs::remove_file(dir.path().join("web/views.js")).unwrap();
    std::fs::create_dir_all(dir.path().join("lib")).unwrap();
    std::fs::rename(
        dir.path().join("app/config.py"),
        dir.path().join("lib/config.py"),
    )
    .unwrap();

    let index = CodeIndex::open(&root, &config()).unwrap();
    index.sync(&mut |_| {}).unwrap();
    let report = vectors.refresh().unwrap();
    assert_eq!(report.files_removed, 2, "views.js and the old config.py");
    assert_eq!(report.files_rechunked, 3, "auth.py, mail.py, lib/config.py");
    vectors
        .embed_pending(&embedder, &mut |_, _| {}, &AtomicBool::new(false))
        .unwrap();
    let embedded = embedder.take();
    // Only new texts: the changed hash_password (a new identifier, `prefix`), mail.py's chunks
    // and the renamed file's module chunk (whose name is its path). Not auth.py's module chunk
    // (its summary lists names only), not check_password, not ConfigLoader or its method.
    assert!(
        embedded
            .iter()
            .all(|t| !t.contains("ConfigLoader") && !t.contains("check_password")),
        "{embedded:#?}"
    );
    assert_eq!(embedded.len(), 4, "{embedded:#?}");
    assert!(
        embedded.iter().any(|t| t.contains("hash_password")),
        "{embedded:#?}"
    );
    assert!(
        embedded.iter().any(|t| t.contains("send_mail")),
        "{embedded:#?}"
    );
    let incremental = dump(&vectors);

    // From scratch: the same files in a new repository.
    let (fresh_dir, fresh_root) = fixture(&[]);
    for f in ["app/auth.py", "app/mail.py", "lib/config.py"] {
        let content = std::fs::read_to_string(dir.path().join(f)).unwrap();
        write_old(fresh_dir.path(), f, &content);
    }
    let fresh = build(&fresh_root, &Counting::new());
    assert_eq!(incremental, dump(&fresh));
    assert_eq!(vectors.coverage(), fresh.coverage());

    // Searches agree too (the deleted file is gone).
    let q = embedder
        .embed_queries(&["render an html template"])
        .unwrap();
    let hits = vectors.search(&q[0], 10).hits;
    assert!(hits.iter().all(|h| h.file != "web/views.js"));
    let hits2 = fresh.search(&q[0], 10).hits;
    let key = |h: &code_intel_core::index::vector::VectorHit| (h.file.clone(), h.row.start_line);
    assert_eq!(
        hits.iter().map(key).collect::<Vec<_>>(),
        hits2.iter().map(key).collect::<Vec<_>>()
    );
}

#[test]
fn a_file_edited_after_the_sync_waits_for_the_next_sync() {
    let (dir, root) = fixture(&base_files());
    let embedder = Counting::new();
    let index = CodeIndex::open(&root, &config()).unwrap();
    index.sync(&mut |_| {}).unwrap();
    // Edited between the sync and the refresh: the lexical index holds the old version.
    write_old(dir.path(), "app/auth.py", "def other():\n    pass\n");
    let mut vectors = VectorIndex::open(&root, &config(), embedder.model_id(), DIMS).unwrap();
    let report = vectors.refresh().unwrap();
    assert_eq!(report.files_stale, 1);
    assert!(vectors.rows_of("app/auth.py").is_none());
    assert!(
        !vectors.refresh().unwrap().up_to_date,
        "stale files are retried"
    );
    index.sync(&mut |_| {}).unwrap();
    let report = vectors.refresh().unwrap();
    assert_eq!((report.files_stale, report.files_rechunked), (0, 1));
    let rows = vectors.rows_of("app/auth.py").unwrap();
    assert!(rows.iter().any(|r| &*r.symbol == "other"));
}

/// Rows per file as the saved state holds them.
fn saved_rows(root: &RepoRoot) -> BTreeMap<String, code_intel_core::index::vector::FileRows> {
    let state = VectorIndex::peek_state(root).expect("saved state");
    state.files.into_iter().collect()
}

#[test]
fn rows_handed_over_by_the_sync_equal_the_rows_the_refresh_makes_itself() {
    let embedder = Counting::new();
    // Without a handoff: the refresh reads and chunks every file.
    let (_plain_dir, plain_root) = fixture(&base_files());
    let index = CodeIndex::open(&plain_root, &config()).unwrap();
    index.sync(&mut |_| {}).unwrap();
    let mut plain = VectorIndex::open(&plain_root, &config(), embedder.model_id(), DIMS).unwrap();
    assert_eq!(plain.refresh().unwrap().files_rechunked, 3);
    plain.save().unwrap();

    // With one: the sync's chunking workers fill it, the refresh takes every file from it.
    let (dir, root) = fixture(&base_files());
    let handoff = RowHandoff::new(&config()).unwrap();
    let index = CodeIndex::open(&root, &config()).unwrap();
    let observe = |path: &str, sha: &str, chunks: &[code_intel_core::index::chunk::Chunk]| {
        handoff.offer(path, sha, chunks);
    };
    index.sync_observed(&mut |_| {}, Some(&observe)).unwrap();
    assert_eq!(handoff.len(), 3, "every chunked file offered");
    // Edited after the sync: the handed-over rows describe the version the lexical index holds
    // (without a handoff this file would wait for the next sync as stale).
    write_old(dir.path(), "app/auth.py", "def other():\n    pass\n");
    let mut handed = VectorIndex::open(&root, &config(), embedder.model_id(), DIMS).unwrap();
    let report = handed.refresh_with(Some(&handoff)).unwrap();
    assert_eq!((report.files_rechunked, report.files_stale), (3, 0));
    assert!(handoff.is_empty(), "the refresh moved the rows out");
    handed.save().unwrap();
    assert_eq!(saved_rows(&root), saved_rows(&plain_root));
    assert_eq!(handed.coverage(), plain.coverage());

    // A handoff for another file version is not used: the refresh chunks the file itself.
    index.sync(&mut |_| {}).unwrap();
    let stale = RowHandoff::new(&config()).unwrap();
    let old_chunks = code_intel_core::index::chunk::chunk_source(
        "app/auth.py",
        AUTH.as_bytes(),
        &code_intel_core::index::sync::chunk_options(&config()),
    )
    .unwrap();
    stale.offer("app/auth.py", "0".repeat(64).as_str(), &old_chunks);
    let report = handed.refresh_with(Some(&stale)).unwrap();
    assert_eq!(report.files_rechunked, 1);
    let rows = handed.rows_of("app/auth.py").unwrap();
    assert!(rows.iter().any(|r| &*r.symbol == "other"), "{rows:?}");
    assert!(
        rows.iter().all(|r| &*r.symbol != "hash_password"),
        "{rows:?}"
    );
}

#[test]
fn a_laravel_routes_file_gets_the_same_rows_with_or_without_the_handoff_and_every_row_a_vector() {
    // A Laravel project (an `artisan` script): the sync indexes each route of `routes/web.php`
    // as a chunk of its own, after the chunker's. The vector side chunks a file again when no
    // rows were handed over, and to embed pending texts; it must find the same route chunks, or
    // their texts stay pending for ever.
    let files = [
        ("artisan", "#!/usr/bin/env php\n"),
        (
            "routes/web.php",
            "<?php\n\nuse Illuminate\\Support\\Facades\\Route;\n\nRoute::get('/posts/{post}', [PostController::class, 'show'])->name('posts.show');\nRoute::get('/about', 'PageController@about')->name('about');\n",
        ),
        (
            "app/Http/Controllers/PostController.php",
            "<?php\n\nnamespace App\\Http\\Controllers;\n\nclass PostController\n{\n    public function show($post)\n    {\n        return view('posts.show');\n    }\n}\n",
        ),
    ];
    let embedder = Counting::new();
    let (_plain_dir, plain_root) = fixture(&files);
    let plain = build(&plain_root, &embedder);
    let routes = plain.rows_of("routes/web.php").unwrap();
    assert!(
        routes.iter().any(|r| &*r.symbol == "posts.show"),
        "a route row: {routes:?}"
    );
    let coverage = plain.coverage();
    assert_eq!(
        (coverage.embedded, coverage.pending_texts),
        (coverage.total, 0),
        "every row embedded, routes included"
    );

    let (_dir, root) = fixture(&files);
    let handoff = RowHandoff::new(&config()).unwrap();
    let index = CodeIndex::open(&root, &config()).unwrap();
    let observe = |path: &str, sha: &str, chunks: &[code_intel_core::index::chunk::Chunk]| {
        handoff.offer(path, sha, chunks);
    };
    index.sync_observed(&mut |_| {}, Some(&observe)).unwrap();
    let mut handed = VectorIndex::open(&root, &config(), embedder.model_id(), DIMS).unwrap();
    handed.refresh_with(Some(&handoff)).unwrap();
    handed
        .embed_pending(&embedder, &mut |_, _| {}, &AtomicBool::new(false))
        .unwrap();
    assert_eq!(saved_rows(&root), saved_rows(&plain_root));
    assert_eq!(handed.coverage(), coverage);

    // A project that becomes a Laravel one while the vector index stays open (a server): the
    // refresh after the sync chunks the routes file as that sync did.
    let (_late_dir, late_root) = fixture(&files[1..]);
    let index = CodeIndex::open(&late_root, &config()).unwrap();
    index.sync(&mut |_| {}).unwrap();
    let mut late = VectorIndex::open(&late_root, &config(), embedder.model_id(), DIMS).unwrap();
    late.refresh().unwrap();
    write_old(late_root.path(), "artisan", files[0].1);
    index.sync(&mut |_| {}).unwrap();
    late.refresh().unwrap();
    late.embed_pending(&embedder, &mut |_, _| {}, &AtomicBool::new(false))
        .unwrap();
    late.save().unwrap();
    assert_eq!(saved_rows(&late_root), saved_rows(&plain_root));
    assert_eq!(late.coverage(), coverage);
}

#[test]
fn reopening_restores_the_same_index_without_embedding() {
    let (_dir, root) = fixture(&base_files());
    let embedder = Counting::new();
    let vectors = build(&root, &embedder);
    let before = dump(&vectors);
    let q = embedder
        .embed_queries(&["load a json configuration file"])
        .unwrap();
    let hits: Vec<_> = vectors
        .search(&q[0], 5)
        .hits
        .into_iter()
        .map(|h| (h.file, h.row.start_line))
        .collect();
    drop(vectors);
    embedder.take();
    let mut reopened = VectorIndex::open(&root, &config(), embedder.model_id(), DIMS).unwrap();
    assert!(reopened.refresh().unwrap().up_to_date);
    assert_eq!(reopened.coverage().pending_texts, 0);
    assert_eq!(dump(&reopened), before);
    let again: Vec<_> = reopened
        .search(&q[0], 5)
        .hits
        .into_iter()
        .map(|h| (h.file, h.row.start_line))
        .collect();
    assert_eq!(hits, again);
    assert!(embedder.take().is_empty());

    // Another model: a fresh state (nothing embedded), the other model's vectors untouched.
    let other = VectorIndex::open(&root, &config(), "other-model@1", DIMS).unwrap();
    assert_eq!(other.coverage().total, 0);
    assert_eq!(other.lexical_commit(), "");
}

#[test]
fn the_graph_path_agrees_with_exact_search_and_survives_reload() {
    let files: Vec<(String, String)> = (0..40)
        .map(|i| {
            (
                format!("pkg/file{i}.py"),
                format!(
                    "def task_{i}(item):\n    \"\"\"Process item number {i} with topic {}.\"\"\"\n    return item\n",
                    ["cache", "router", "mailer", "queue", "session"][i % 5]
                ),
            )
        })
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let (dir, root) = fixture(&refs);
    let embedder = Counting::new();
    let mut vectors = build(&root, &embedder);
    let queries = [
        "process an item of the cache",
        "router task",
        "mailer",
        "queue worker",
    ];
    let qv = embedder.embed_queries(&queries).unwrap();
    let exact: Vec<Vec<f32>> = qv.iter().map(|q| cosines(&vectors.search(q, 5))).collect();
    vectors.set_exact_search_max(1);
    assert!(vectors.uses_graph());
    // Every vector is reachable: searching with a chunk's own vector finds it. (Slots arrive
    // sorted by text length, cluster by cluster; hnsw_rs without extendCandidates left five of
    // these 80 points without in-links, never found.)
    let state = VectorIndex::peek_state(&root).unwrap();
    let mut missed = Vec::new();
    for (file, fr) in &state.files {
        for r in &fr.rows {
            let v = vectors.vector(&r.key.to_hex()).unwrap().to_vec();
            let got = vectors.search(&v, 1);
            if got.hits.first().map(|h| h.row.key) != Some(r.key) {
                missed.push(format!("{file} {}", r.symbol));
            }
        }
    }
    assert!(missed.is_empty(), "unreachable: {missed:?}");
    for (q, want) in qv.iter().zip(&exact) {
        let found = vectors.search(q, 5);
        assert!(found.approximate);
        // On 80 vectors with ef 64 the graph search is exact here (compared by cosine: the
        // fixture has ties, which the two paths may order differently).
        assert_eq!(&cosines(&found), want);
    }
    vectors.save().unwrap();
    let state: VectorState = VectorIndex::peek_state(&root).unwrap();
    let base = state.graph.clone().expect("graph dumped");
    assert!(
        dir.path()
            .join(format!(".code-intel/index/vectors/{base}.hnsw"))
            .is_file()
    );

    // Delete a file: its chunks become tombstones the graph skips.
    std::fs::remove_file(dir.path().join("pkg/file0.py")).unwrap();
    let index = CodeIndex::open(&root, &config()).unwrap();
    index.sync(&mut |_| {}).unwrap();
    vectors.refresh().unwrap();
    let found = vectors.search(&qv[0], 80);
    assert!(found.hits.iter().all(|h| h.file != "pkg/file0.py"));
    // Add a file: inserted into the loaded graph.
    write_old(
        dir.path(),
        "pkg/new.py",
        "def brand_new_mailer():\n    \"\"\"Send mail fast.\"\"\"\n",
    );
    index.sync(&mut |_| {}).unwrap();
    vectors.refresh().unwrap();
    vectors
        .embed_pending(&embedder, &mut |_, _| {}, &AtomicBool::new(false))
        .unwrap();
    let q = embedder
        .embed_queries(&["brand new mailer send mail fast"])
        .unwrap();
    assert_eq!(vectors.search(&q[0], 1).hits[0].file, "pkg/new.py");
    // The save after one added file appends to `state.log` and keeps the dump (slots past it
    // are inserted on open); exactly one dump is on disk, the one the state names.
    let new_state = VectorIndex::peek_state(&root).unwrap();
    let named = new_state.graph.clone().expect("a dump is named");
    let dumps: Vec<String> = std::fs::read_dir(dir.path().join(".code-intel/index/vectors"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".hnsw"))
        .collect();
    assert_eq!(dumps, [format!("{named}.hnsw")]);
    drop(vectors);

    // Reopened (threshold back to default, so it scans): same answers.
    let mut reopened = VectorIndex::open(&root, &config(), embedder.model_id(), DIMS).unwrap();
    assert!(!reopened.uses_graph());
    reopened.set_exact_search_max(1);
    assert_eq!(reopened.search(&q[0], 1).hits[0].file, "pkg/new.py");
}

#[test]
fn a_damaged_graph_dump_is_rebuilt() {
    let files: Vec<(String, String)> = (0..10)
        .map(|i| (format!("f{i}.py"), format!("def f{i}():\n    return {i}\n")))
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let (dir, root) = fixture(&refs);
    let embedder = Counting::new();
    let mut vectors = build(&root, &embedder);
    vectors.set_exact_search_max(1);
    vectors.save().unwrap();
    let base = VectorIndex::peek_state(&root).unwrap().graph.unwrap();
    let q = embedder.embed_queries(&["f3"]).unwrap();
    let want = cosines(&vectors.search(&q[0], 3));
    drop(vectors);
    // Same size, bytes changed (the checksum refuses it), then shorter (the size does).
    let dump = dir
        .path()
        .join(format!(".code-intel/index/vectors/{base}.hnsw"));
    let mut bytes = std::fs::read(&dump).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    std::fs::write(&dump, &bytes).unwrap();
    let mut reopened = VectorIndex::open(&root, &config(), embedder.model_id(), DIMS).unwrap();
    reopened.set_exact_search_max(1);
    assert_eq!(cosines(&reopened.search(&q[0], 3)), want);
    drop(reopened);
    std::fs::write(&dump, b"garbage").unwrap();
    let mut reopened = VectorIndex::open(&root, &config(), embedder.model_id(), DIMS).unwrap();
    reopened.set_exact_search_max(1);
    let found = reopened.search(&q[0], 3);
    assert!(found.approximate);
    assert_eq!(cosines(&found), want);
}

#[test]
fn many_deletions_compact_the_slots_and_prune_the_cache() {
    let files: Vec<(String, String)> = (0..120)
        .map(|i| {
            (
                format!("d/f{i}.py"),
                format!("def g{i}(x):\n    return x + {i}\n"),
            )
        })
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let (dir, root) = fixture(&refs);
    let embedder = Counting::new();
    let mut vectors = build(&root, &embedder);
    let slots_before = VectorIndex::peek_state(&root).unwrap().slots.len();
    for i in 0..80 {
        std::fs::remove_file(dir.path().join(format!("d/f{i}.py"))).unwrap();
    }
    let index = CodeIndex::open(&root, &config()).unwrap();
    index.sync(&mut |_| {}).unwrap();
    let report = vectors.refresh().unwrap();
    assert!(report.compacted, "{report:?}");
    vectors.save().unwrap();
    let state = VectorIndex::peek_state(&root).unwrap();
    assert!(
        state.slots.len() < slots_before / 2,
        "{} of {slots_before}",
        state.slots.len()
    );
    assert_eq!(vectors.live_vectors(), state.slots.len());
    let q = embedder.embed_queries(&["g5"]).unwrap();
    let deleted: BTreeSet<String> = (0..80).map(|i| format!("d/f{i}.py")).collect();
    let hits = vectors.search(&q[0], 200).hits;
    assert_eq!(hits.len(), 80, "40 files of 2 chunks each");
    assert!(hits.iter().all(|h| !deleted.contains(&h.file)));
    // Restoring a deleted file embeds it again (its vector was pruned with the tombstones).
    write_old(dir.path(), "d/f5.py", "def g5(x):\n    return x + 5\n");
    index.sync(&mut |_| {}).unwrap();
    vectors.refresh().unwrap();
    embedder.take();
    vectors
        .embed_pending(&embedder, &mut |_, _| {}, &AtomicBool::new(false))
        .unwrap();
    assert!(!embedder.take().is_empty());
    assert_eq!(vectors.coverage().ratio, 1.0);
}

fn cosines(found: &code_intel_core::index::vector::VectorSearch) -> Vec<f32> {
    found
        .hits
        .iter()
        .map(|h| (h.cosine * 1e4).round() / 1e4)
        .collect()
}

#[test]
fn switching_the_recipe_and_back_reuses_the_cached_vectors() {
    let (dir, root) = fixture(&base_files());
    let embedder = Counting::new();
    let first = build(&root, &embedder);
    let n = first.coverage().total;
    drop(first);
    embedder.take();
    let body = Config {
        embedding_text: "body".into(),
        ..config()
    };
    let mut vectors = VectorIndex::open(&root, &body, embedder.model_id(), DIMS).unwrap();
    assert_eq!(vectors.recipe().name(), "body");
    vectors.refresh().unwrap();
    vectors
        .embed_pending(&embedder, &mut |_, _| {}, &AtomicBool::new(false))
        .unwrap();
    assert!(!embedder.take().is_empty(), "another recipe, other texts");
    drop(vectors);
    let mut back = VectorIndex::open(&root, &config(), embedder.model_id(), DIMS).unwrap();
    let report = back.refresh().unwrap();
    assert!(report.reused_vectors > 0, "{report:?}");
    assert_eq!(back.coverage().embedded, n);
    assert!(back.pending().is_empty());
    assert!(embedder.take().is_empty());

    let bad = Config {
        embedding_text: "whole".into(),
        ..config()
    };
    let err = VectorIndex::open(&root, &bad, embedder.model_id(), DIMS).unwrap_err();
    assert!(
        err.to_string()
            .contains("use body, summary or summary_path"),
        "{err}"
    );
    drop(dir);
}

#[test]
fn two_processes_neither_embed_twice_nor_lose_vectors() {
    let (dir, root) = fixture(&base_files());
    let embedder = Counting::new();
    let index = CodeIndex::open(&root, &config()).unwrap();
    index.sync(&mut |_| {}).unwrap();
    let mut a = VectorIndex::open(&root, &config(), embedder.model_id(), DIMS).unwrap();
    a.refresh().unwrap();
    a.save().unwrap();
    // B opens before A embeds.
    let mut b = VectorIndex::open(&root, &config(), embedder.model_id(), DIMS).unwrap();
    // While A holds the embedding lock, B does not embed.
    let held = a.try_embed_lock().unwrap().expect("free");
    let report = b
        .embed_pending(&embedder, &mut |_, _| {}, &AtomicBool::new(false))
        .unwrap();
    assert!(report.busy);
    assert_eq!(report.embedded, 0);
    assert!(embedder.take().is_empty());
    drop(held);
    a.embed_pending(&embedder, &mut |_, _| {}, &AtomicBool::new(false))
        .unwrap();
    let n = embedder.take().len();
    assert!(n > 0);
    // A file changes; B refreshes and saves its stale view last (it never saw A's vectors) ...
    write_old(
        dir.path(),
        "app/mail.py",
        "def send_mail(to):\n    smtp.send(to)\n",
    );
    index.sync(&mut |_| {}).unwrap();
    let report = b.refresh().unwrap();
    assert_eq!(report.reused_vectors, 0, "B's cache predates A's run");
    b.save().unwrap();
    let stale = VectorIndex::peek_state(&root).unwrap();
    assert!(
        stale.slots.is_empty(),
        "B's view: {} slots",
        stale.slots.len()
    );
    // ... and the next open has A's vectors back from the cache, without embedding; only the
    // new file is pending.
    let c = VectorIndex::open(&root, &config(), embedder.model_id(), DIMS).unwrap();
    let pending = c.pending();
    assert!(
        !pending.is_empty() && pending.iter().all(|p| p.text.contains("mail")),
        "{pending:?}"
    );
    assert_eq!(
        c.coverage().embedded + c.coverage().pending_texts,
        c.coverage().total
    );
    assert!(embedder.take().is_empty());
}

#[test]
fn source_texts_are_pending_before_tests_and_docs() {
    let long_body = "    total = 0\n".repeat(30);
    let (_dir, root) = fixture(&[
        (
            "src/billing.py",
            &format!("def compute_invoice_total(items):\n{long_body}    return total\n"),
        ),
        ("tests/test_billing.py", "def test_total():\n    assert 1\n"),
        ("docs/guide.md", "# Guide\n\nShort.\n"),
        // The same text in a source file and a test counts as source.
        ("src/shared.py", "def shared_helper():\n    return 42\n"),
        // (listed before it: files are read in path order)
        (
            "lib/tests/shared.py",
            "def shared_helper():\n    return 42\n",
        ),
    ]);
    let index = CodeIndex::open(&root, &config()).unwrap();
    index.sync(&mut |_| {}).unwrap();
    let mut vectors = VectorIndex::open(&root, &config(), "fake", DIMS).unwrap();
    vectors.refresh().unwrap();
    let pending = vectors.pending();
    let first_secondary = pending
        .iter()
        .position(|p| p.text.contains("test_total") || p.text.contains("Guide"))
        .expect("the test and the doc are pending");
    let source = pending
        .iter()
        .position(|p| p.text.contains("compute_invoice_total"))
        .expect("the source function is pending");
    let shared = pending
        .iter()
        .position(|p| p.text.contains("shared_helper"))
        .expect("the shared text is pending");
    assert!(source < first_secondary, "{pending:#?}");
    assert!(shared < first_secondary, "{pending:#?}");
    // Shorter texts than the source function come later: the class goes first, then the files
    // in path order, each file's texts together (an embedding run chunks each file once).
    assert!(
        pending[first_secondary].text.len() < pending[source].text.len(),
        "{pending:#?}"
    );
}

#[test]
fn pending_texts_come_file_by_file_and_a_run_embeds_them_all() {
    // Two files of many chunks each, their texts of mixed lengths: pending lists them file by
    // file, and a run in groups smaller than a file (a file's chunks carried from one group to
    // the next) embeds every text once.
    let file = |name: &str, n: usize| {
        (0..n)
            .map(|i| {
                let body = "    x = 1\n".repeat(1 + (i * 7) % 5);
                format!("def {name}_{i}():\n{body}    return x\n\n")
            })
            .collect::<String>()
    };
    let (a, b) = (file("alpha", 12), file("beta", 12));
    let (_dir, root) = fixture(&[("src/a.py", &a), ("src/b.py", &b)]);
    let index = CodeIndex::open(&root, &config()).unwrap();
    index.sync(&mut |_| {}).unwrap();
    let embedder = Counting::new();
    let mut vectors = VectorIndex::open(&root, &config(), embedder.model_id(), DIMS).unwrap();
    vectors.refresh().unwrap();
    let pending = vectors.pending();
    let in_b: Vec<bool> = pending.iter().map(|p| p.text.contains("beta_")).collect();
    let switches = in_b.windows(2).filter(|w| w[0] != w[1]).count();
    assert_eq!(switches, 1, "one file after the other: {pending:#?}");
    assert!(!in_b[0], "src/a.py first (path order)");

    let mut run = vectors
        .begin_embedding()
        .unwrap()
        .expect("the lock is free");
    let total = run.total();
    assert_eq!(total, pending.len());
    while let Some(group) = run.embed_next(&embedder, 5) {
        run.insert(&mut vectors, &group.unwrap()).unwrap();
    }
    assert_eq!(run.embedded(), total);
    let mut embedded = embedder.take();
    embedded.sort();
    let mut expected: Vec<String> = pending.into_iter().map(|p| p.text).collect();
    expected.sort();
    assert_eq!(embedded, expected, "every pending text embedded once");
    drop(run);
    assert_eq!(vectors.coverage().pending_texts, 0);
}

#[test]
fn the_summary_stands_for_the_state_only_while_the_lexical_commit_is_the_same() {
    let (dir, root) = fixture(&base_files());
    let embedder = Counting::new();
    let model = embedder.model_id().to_string();
    assert!(VectorIndex::current_summary(&root, &config(), &model, DIMS).is_none());
    let index = CodeIndex::open(&root, &config()).unwrap();
    index.sync(&mut |_| {}).unwrap();
    let mut vectors = VectorIndex::open(&root, &config(), &model, DIMS).unwrap();
    vectors.refresh().unwrap();
    vectors.save().unwrap();
    let summary = VectorIndex::current_summary(&root, &config(), &model, DIMS).expect("current");
    assert_eq!(summary.coverage, vectors.coverage());
    assert_eq!(summary.coverage.embedded, 0);

    // Embedding changes the coverage; the save brings the summary along.
    vectors
        .embed_pending(&embedder, &mut |_, _| {}, &AtomicBool::new(false))
        .unwrap();
    vectors.save().unwrap();
    let summary = VectorIndex::current_summary(&root, &config(), &model, DIMS).unwrap();
    assert_eq!(summary.coverage, vectors.coverage());
    assert!(summary.coverage.embedded > 0);

    // Another model, dims or recipe: not this summary.
    assert!(VectorIndex::current_summary(&root, &config(), "other-model", DIMS).is_none());
    assert!(VectorIndex::current_summary(&root, &config(), &model, DIMS + 1).is_none());
    let body = Config {
        embedding_text: "body".into(),
        ..config()
    };
    assert!(VectorIndex::current_summary(&root, &body, &model, DIMS).is_none());

    // A sync that commits a change: the rows no longer describe the index until a refresh.
    write_old(dir.path(), "app/extra.py", "def extra():\n    return 1\n");
    index.sync(&mut |_| {}).unwrap();
    assert!(VectorIndex::current_summary(&root, &config(), &model, DIMS).is_none());
    drop(vectors);
    let mut vectors = VectorIndex::open(&root, &config(), &model, DIMS).unwrap();
    assert!(!vectors.refresh().unwrap().up_to_date);
    vectors.save().unwrap();
    let summary = VectorIndex::current_summary(&root, &config(), &model, DIMS).unwrap();
    assert_eq!(summary.coverage, vectors.coverage());
}

#[test]
fn open_refreshed_saves_the_rows_and_open_current_refreshes_only_when_the_index_moved() {
    let (dir, root) = fixture(&base_files());
    let embedder = Counting::new();
    let model = embedder.model_id().to_string();
    let index = CodeIndex::open(&root, &config()).unwrap();
    index.sync(&mut |_| {}).unwrap();
    assert!(!VectorIndex::has_saved_state(&root));
    let (mut vectors, refresh) =
        VectorIndex::open_refreshed(&root, &config(), &model, DIMS, None).unwrap();
    assert_eq!(refresh.files_rechunked, 3);
    assert!(VectorIndex::has_saved_state(&root), "the refresh was saved");
    assert!(vectors.coverage().pending_texts > 0, "nothing embedded yet");
    let saved = VectorIndex::peek_state(&root).unwrap();
    assert_eq!(
        saved.coverage(),
        vectors.coverage(),
        "status reads the same"
    );
    assert!(saved.is_current(&root));
    vectors
        .embed_pending(&embedder, &mut |_, _| {}, &AtomicBool::new(false))
        .unwrap();
    assert_eq!(
        VectorIndex::peek_state(&root).unwrap().coverage(),
        vectors.coverage()
    );
    assert!(
        VectorIndex::open_refreshed(&root, &config(), &model, DIMS, None)
            .unwrap()
            .1
            .up_to_date
    );

    let mut current = VectorIndex::open_current(&root, &config(), &model, DIMS).unwrap();
    assert_eq!(
        current.refresh_if_behind().unwrap(),
        None,
        "already current"
    );
    assert_eq!(current.coverage().pending_texts, 0);

    write_old(dir.path(), "app/extra.py", "def extra():\n    return 1\n");
    index.sync(&mut |_| {}).unwrap();
    assert!(!current.is_current());
    assert!(!VectorIndex::peek_state(&root).unwrap().is_current(&root));
    let current = VectorIndex::open_current(&root, &config(), &model, DIMS).unwrap();
    assert!(current.is_current());
    assert!(
        current.rows_of("app/extra.py").is_some(),
        "the new file has rows"
    );
    assert!(
        current.coverage().pending_texts > 0,
        "its text waits for a vector"
    );
    // The refresh was saved: a fresh open is current without one.
    let mut reopened = VectorIndex::open(&root, &config(), &model, DIMS).unwrap();
    assert_eq!(reopened.refresh_if_behind().unwrap(), None);
}

/// [`base_files`] synced, and its vector index opened with the rows refreshed and nothing
/// embedded yet, for a [`Counting`] embedder.
fn synced_with_rows() -> (tempfile::TempDir, RepoRoot, Counting, VectorIndex) {
    let (dir, root) = fixture(&base_files());
    let embedder = Counting::new();
    let model = embedder.model_id().to_string();
    CodeIndex::open(&root, &config())
        .unwrap()
        .sync(&mut |_| {})
        .unwrap();
    let (vectors, _) = VectorIndex::open_refreshed(&root, &config(), &model, DIMS, None).unwrap();
    (dir, root, embedder, vectors)
}

#[test]
fn an_embed_run_driven_group_by_group_fills_the_index_under_the_embedding_lock() {
    let (_dir, _root, embedder, mut vectors) = synced_with_rows();
    let pending = vectors.coverage().pending_texts;
    let mut run = vectors.begin_embedding().unwrap().expect("lock free");
    assert!(
        vectors.begin_embedding().unwrap().is_none(),
        "one run at a time"
    );
    assert_eq!((run.total(), run.remaining()), (pending, pending));
    let mut groups = 0;
    while let Some(group) = run.embed_next(&embedder, 2) {
        let group = group.unwrap();
        assert!(group.len() <= 2);
        run.insert(&mut vectors, &group).unwrap();
        run.save_if_due(&mut vectors).unwrap();
        groups += 1;
    }
    assert_eq!(groups, pending.div_ceil(2));
    assert_eq!((run.embedded(), run.remaining()), (pending, 0));
    assert_eq!(embedder.take().len(), pending, "each text embedded once");
    assert_eq!(vectors.coverage().pending_texts, 0);
    drop(run);
    assert!(
        vectors.begin_embedding().unwrap().is_some(),
        "released on drop"
    );
}

#[test]
fn an_embed_run_leaves_out_the_texts_of_a_file_changed_after_it_began() {
    // The run names its texts by file and line and makes them from the files group by group:
    // a file edited meanwhile (not synced) gives no text, rather than a text of another version.
    let (_dir, root, embedder, mut vectors) = synced_with_rows();
    let pending = vectors.coverage().pending_texts;
    let mut run = vectors.begin_embedding().unwrap().expect("lock free");
    write_old(root.path(), "app/auth.py", "def other():\n    return 1\n");
    while let Some(group) = run.embed_next(&embedder, 64) {
        run.insert(&mut vectors, &group.unwrap()).unwrap();
    }
    let embedded = embedder.take();
    assert_eq!(run.embedded(), embedded.len());
    assert!(run.embedded() < pending, "{} of {pending}", run.embedded());
    assert!(
        embedded.iter().all(|t| !t.to_lowercase().contains("hash")),
        "{embedded:?}"
    );
    assert!(
        embedded.iter().any(|t| {
            let t = t.to_lowercase();
            t.contains("render") || t.contains("config")
        }),
        "the other files' texts were embedded: {embedded:?}"
    );
}

/// `state.log` of the repository.
fn log_path(root: &RepoRoot) -> std::path::PathBuf {
    VectorIndex::dir(root).join("state.log")
}

/// Edits `path` to `content`, syncs, refreshes, embeds and saves (the save appends).
fn edit_and_save(
    root: &RepoRoot,
    vectors: &mut VectorIndex,
    embedder: &Counting,
    path: &str,
    content: &str,
) {
    write_old(root.path(), path, content);
    CodeIndex::open(root, &config())
        .unwrap()
        .sync(&mut |_| {})
        .unwrap();
    vectors.refresh().unwrap();
    vectors
        .embed_pending(embedder, &mut |_, _| {}, &AtomicBool::new(false))
        .unwrap();
    vectors.save().unwrap();
}

/// The state without its base id (which a new base changes).
fn unbased(mut state: VectorState) -> VectorState {
    state.base_id.clear();
    state
}

#[test]
fn an_edit_appends_to_the_log_and_replay_equals_a_full_rewrite() {
    let (_dir, root) = fixture(&base_files());
    let embedder = Counting::new();
    let mut vectors = build(&root, &embedder);
    let base = std::fs::read(VectorIndex::dir(&root).join("state.json")).unwrap();
    edit_and_save(
        &root,
        &mut vectors,
        &embedder,
        "app/extra.py",
        "def refund_order(order):\n    \"\"\"Refund a paid order.\"\"\"\n",
    );
    edit_and_save(
        &root,
        &mut vectors,
        &embedder,
        "app/auth.py",
        "def verify_token(token):\n    \"\"\"Check a signed session token.\"\"\"\n",
    );
    std::fs::remove_file(root.path().join("web/views.js")).unwrap();
    edit_and_save(&root, &mut vectors, &embedder, "app/config.py", CONFIG);
    // The base was not rewritten: three records were appended.
    assert_eq!(
        std::fs::read(VectorIndex::dir(&root).join("state.json")).unwrap(),
        base
    );
    assert!(std::fs::metadata(log_path(&root)).unwrap().len() > 0);
    let replayed = VectorIndex::peek_state(&root).unwrap();
    assert!(replayed.files.contains_key("app/extra.py"));
    assert!(!replayed.files.contains_key("web/views.js"));
    let before = dump(&vectors);
    vectors.save_base().unwrap();
    assert_eq!(std::fs::metadata(log_path(&root)).unwrap().len(), 0);
    let rewritten = VectorIndex::peek_state(&root).unwrap();
    assert_eq!(unbased(replayed), unbased(rewritten));
    // A reopened index (base + replay) is the one that wrote it, without embedding.
    drop(vectors);
    embedder.take();
    let reopened = VectorIndex::open(&root, &config(), embedder.model_id(), DIMS).unwrap();
    assert_eq!(dump(&reopened), before);
    assert!(embedder.take().is_empty());
}

#[test]
fn a_torn_or_garbled_log_tail_is_ignored_and_the_next_save_repairs_it() {
    let (_dir, root) = fixture(&base_files());
    let embedder = Counting::new();
    let mut vectors = build(&root, &embedder);
    edit_and_save(
        &root,
        &mut vectors,
        &embedder,
        "app/extra.py",
        "def refund_order(order):\n    \"\"\"Refund a paid order.\"\"\"\n",
    );
    let first_len = std::fs::metadata(log_path(&root)).unwrap().len() as usize;
    let after_first = VectorIndex::peek_state(&root).unwrap();
    edit_and_save(
        &root,
        &mut vectors,
        &embedder,
        "app/more.py",
        "def ship_parcel(parcel):\n    \"\"\"Ship a parcel by courier.\"\"\"\n",
    );
    let full = std::fs::read(log_path(&root)).unwrap();
    let after_second = VectorIndex::peek_state(&root).unwrap();
    assert!(full.len() > first_len);
    assert_ne!(after_first, after_second);
    drop(vectors);

    let mut garbled = full.clone();
    garbled[first_len + 12] ^= 0x55;
    let mut huge_len = full.clone();
    huge_len[first_len..first_len + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let cases: Vec<(&str, Vec<u8>, &VectorState)> = vec![
        ("torn header", full[..first_len + 3].to_vec(), &after_first),
        (
            "torn payload",
            full[..full.len() - 1].to_vec(),
            &after_first,
        ),
        ("garbled payload", garbled, &after_first),
        ("length past the end", huge_len, &after_first),
        (
            "garbage appended",
            [full.clone(), b"\x05\x00\x00\x00garbage".to_vec()].concat(),
            &after_second,
        ),
        ("whole", full.clone(), &after_second),
    ];
    let base_path = VectorIndex::dir(&root).join("state.json");
    let base = std::fs::read(&base_path).unwrap();
    for (name, bytes, want) in cases {
        // The base the log continues (the previous case's save wrote a new one).
        std::fs::write(&base_path, &base).unwrap();
        std::fs::write(log_path(&root), &bytes).unwrap();
        assert_eq!(&VectorIndex::peek_state(&root).unwrap(), want, "{name}");
        // Opens, and the next save (which cannot append after a bad tail) writes a base that
        // keeps what was replayed plus the new edit.
        let mut reopened = VectorIndex::open(&root, &config(), embedder.model_id(), DIMS).unwrap();
        reopened.refresh().unwrap();
        reopened
            .embed_pending(&embedder, &mut |_, _| {}, &AtomicBool::new(false))
            .unwrap();
        reopened.save().unwrap();
        let state = VectorIndex::peek_state(&root).unwrap();
        assert!(state.files.contains_key("app/more.py"), "{name}");
        assert_eq!(reopened.coverage().pending_texts, 0, "{name}");
        let replayed_again =
            VectorIndex::open(&root, &config(), embedder.model_id(), DIMS).unwrap();
        assert_eq!(dump(&replayed_again), dump(&reopened), "{name}");
    }

    // A crash between a new base and emptying the log: the old base's records are ignored.
    let mut vectors = VectorIndex::open(&root, &config(), embedder.model_id(), DIMS).unwrap();
    edit_and_save(
        &root,
        &mut vectors,
        &embedder,
        "app/last.py",
        "def close_account(user):\n    \"\"\"Close a user account.\"\"\"\n",
    );
    let old_log = std::fs::read(log_path(&root)).unwrap();
    assert!(!old_log.is_empty());
    vectors.save_base().unwrap();
    let based = VectorIndex::peek_state(&root).unwrap();
    std::fs::write(log_path(&root), &old_log).unwrap();
    assert_eq!(VectorIndex::peek_state(&root).unwrap(), based);
}
