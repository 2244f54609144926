//! Query-time candidate embedding with the deterministic fake embedder: a ranked search embeds
//! its best keyword candidates that have no vector (within the budget), keeps them in the
//! embedding cache, and a second search (same process or a new one) embeds nothing again; an
//! embedding run and query-time embedding working on the same repository at once leave a store
//! equal to a from-scratch build.

#![cfg(all(feature = "index", feature = "embed"))]

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;

use code_intel_core::embed::{Embedder, EmbeddingCache, FakeEmbedder};
use code_intel_core::index::CodeIndex;
use code_intel_core::index::hybrid::{self, SearchMode, SearchOptions, Signal};
use code_intel_core::index::query_embed::{QueryEmbedBudget, embed_candidates};
use code_intel_core::index::rank::RankParams;
use code_intel_core::index::vector::VectorIndex;
use code_intel_session::config::Config;
use code_intel_session::repo_path::RepoRoot;

mod fake;

use fake::{Counting, DIMS, write_old};

/// 60 small modules and two about passwords; 62 files, well over the budget's 32 texts.
fn files() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = (0..60)
        .map(|i| {
            (
                format!("m/mod{i}.py"),
                format!(
                    "def function_{i}(value):\n    \"\"\"Scale the value by {i}.\"\"\"\n    return value * {i}\n"
                ),
            )
        })
        .collect();
    files.push((
        "app/auth.py".into(),
        "def hash_password(password):\n    \"\"\"Hash a password with bcrypt.\"\"\"\n    return bcrypt.hashpw(password)\n\n\ndef check_password(password, hashed):\n    \"\"\"Compare a password with its bcrypt hash.\"\"\"\n    return bcrypt.checkpw(password, hashed)\n".into(),
    ));
    files.push((
        "app/reset.py".into(),
        "def reset_password(user):\n    \"\"\"Send a password reset link.\"\"\"\n    mail.send(user.email)\n".into(),
    ));
    files
}

fn fixture(files: &[(String, String)]) -> (tempfile::TempDir, RepoRoot) {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in files {
        write_old(dir.path(), path, content);
    }
    let root = RepoRoot::new(dir.path()).unwrap();
    (dir, root)
}

/// Synced lexical index and refreshed (empty) vectors, saved.
fn indexed(root: &RepoRoot, embedder: &dyn Embedder) -> (CodeIndex, VectorIndex) {
    let config = Config::default();
    let index = CodeIndex::open(root, &config).unwrap();
    index.sync(&mut |_| {}).unwrap();
    let mut vectors = VectorIndex::open(root, &config, embedder.model_id(), DIMS).unwrap();
    vectors.refresh().unwrap();
    vectors.save().unwrap();
    (index, vectors)
}

/// Generous on time (a loaded CI machine must not make the test depend on speed).
fn budget(max_chunks: usize) -> QueryEmbedBudget {
    QueryEmbedBudget {
        max_chunks,
        max_ms: 600_000,
        ..QueryEmbedBudget::default()
    }
}

#[test]
fn a_search_embeds_its_candidates_once_and_later_searches_reuse_them() {
    let files = files();
    let (_dir, root) = fixture(&files);
    let embedder = Counting::new();
    let (index, mut vectors) = indexed(&root, &embedder);
    let total = vectors.coverage().pending_texts;
    assert!(total > 60, "{total}");
    let query = "hash a password";
    let q = embedder.embed_queries(&[query]).unwrap().remove(0);
    let opts = SearchOptions::hybrid(&Config::default().search_weights);

    // Before: no vectors, so the hybrid search answers lexically.
    let before = hybrid::search(&index, Some(&vectors), Some(&q), query, 5, &opts).unwrap();
    assert_eq!(before.mode, SearchMode::Lexical);

    let report = embed_candidates(
        &index,
        &mut vectors,
        &embedder,
        query,
        &RankParams::default(),
        &budget(32),
    )
    .unwrap();
    let embedded = embedder.take();
    assert!(report.candidates >= 3, "{report:?}");
    assert_eq!(
        report.missing, report.candidates,
        "nothing was embedded before"
    );
    assert_eq!(report.embedded, report.missing.min(32));
    assert_eq!(embedded.len(), report.embedded, "each text embedded once");
    assert!(
        embedded[..3].iter().all(|t| t.contains("password")),
        "best keyword candidates first: {embedded:?}"
    );
    assert_eq!(vectors.coverage().pending_texts, total - report.embedded);
    assert!(report.note().unwrap().contains("embedded"));

    // The fused search now has cosines for the candidates.
    let after = hybrid::search(&index, Some(&vectors), Some(&q), query, 5, &opts).unwrap();
    assert_eq!(after.mode, SearchMode::Hybrid);
    let top = &after.hits[0];
    assert_eq!(top.hit.file, "app/auth.py");
    let vector_part = top
        .explanation
        .parts
        .iter()
        .find(|p| p.signal == Signal::Vector)
        .expect("a vector part");
    assert!(vector_part.raw.is_some(), "{top:?}");

    // The same search again embeds nothing.
    let again = embed_candidates(
        &index,
        &mut vectors,
        &embedder,
        query,
        &RankParams::default(),
        &budget(32),
    )
    .unwrap();
    assert_eq!((again.missing, again.embedded), (0, 0), "{again:?}");
    assert!(embedder.take().is_empty());
    assert_eq!(again.note(), None);

    // Neither does another process: the vectors are in the embedding cache (the state was not
    // saved after the query, and does not need to be).
    drop(vectors);
    let mut reopened =
        VectorIndex::open(&root, &Config::default(), embedder.model_id(), DIMS).unwrap();
    assert_eq!(reopened.coverage().pending_texts, total - report.embedded);
    let third = embed_candidates(
        &index,
        &mut reopened,
        &embedder,
        query,
        &RankParams::default(),
        &budget(32),
    )
    .unwrap();
    assert_eq!(third.embedded, 0, "{third:?}");
    assert!(embedder.take().is_empty());
}

#[test]
fn the_budget_bounds_what_one_search_embeds() {
    let files = files();
    let (_dir, root) = fixture(&files);
    let embedder = Counting::new();
    let (index, mut vectors) = indexed(&root, &embedder);
    // "value" is in every module: many candidates.
    let report = embed_candidates(
        &index,
        &mut vectors,
        &embedder,
        "scale the value",
        &RankParams::default(),
        &budget(5),
    )
    .unwrap();
    assert!(report.missing > 5, "{report:?}");
    assert_eq!(report.embedded, 5);
    assert_eq!(embedder.take().len(), 5);
    assert!(report.note().unwrap().contains("the rest rank by keywords"));
    // A zero budget (or a zero time) embeds nothing.
    for off in [
        budget(0),
        QueryEmbedBudget {
            max_ms: 0,
            ..budget(32)
        },
    ] {
        let r = embed_candidates(
            &index,
            &mut vectors,
            &embedder,
            "scale the value",
            &RankParams::default(),
            &off,
        )
        .unwrap();
        assert_eq!(r.embedded, 0);
    }
    assert!(embedder.take().is_empty());
    // The configured budget is the config's.
    let config = Config {
        query_embed_max_chunks: 7,
        query_embed_max_ms: 150,
        ..Config::default()
    };
    let b = QueryEmbedBudget::configured(&config);
    assert_eq!((b.max_chunks, b.max_ms), (7, 150));
}

/// Every row's key and vector, from the saved state and the embedding cache on disk.
fn store(root: &RepoRoot, model_id: &str) -> BTreeMap<String, Vec<f32>> {
    let state = VectorIndex::peek_state(root).expect("state");
    let cache = EmbeddingCache::open(&VectorIndex::embeddings_dir(root), model_id, DIMS).unwrap();
    let mut out = BTreeMap::new();
    for fr in state.files.values() {
        for r in &fr.rows {
            let v = cache
                .get(&r.key.to_hex())
                .expect("every key cached")
                .to_vec();
            out.insert(r.key.to_hex(), v);
        }
    }
    out
}

#[test]
fn an_embedding_run_and_query_time_embedding_at_once_leave_a_correct_store() {
    let files = files();
    let (_dir, root) = fixture(&files);
    let embedder = Counting::new();
    let (index, _) = indexed(&root, &embedder);
    let config = Config::default();
    // Two openers of the same repository (a CLI `index --embed` and a server answering
    // searches), running at the same time.
    let mut run = VectorIndex::open(&root, &config, embedder.model_id(), DIMS).unwrap();
    let mut searches = VectorIndex::open(&root, &config, embedder.model_id(), DIMS).unwrap();
    std::thread::scope(|s| {
        s.spawn(|| {
            run.embed_pending(&embedder, &mut |_, _| {}, &AtomicBool::new(false))
                .unwrap();
        });
        s.spawn(|| {
            for i in 0..60 {
                let query = format!("function_{i} scale value password");
                embed_candidates(
                    &index,
                    &mut searches,
                    &embedder,
                    &query,
                    &RankParams::default(),
                    &budget(4),
                )
                .unwrap();
                if i % 10 == 0 {
                    searches.save().unwrap();
                }
            }
            searches.save().unwrap();
        });
    });
    // Whatever order the saves landed in, a new open sees every vector, and each equals a
    // from-scratch build's.
    let reopened = VectorIndex::open(&root, &config, embedder.model_id(), DIMS).unwrap();
    let c = reopened.coverage();
    assert_eq!((c.embedded, c.pending_texts), (c.total, 0), "{c:?}");
    let cache = EmbeddingCache::open(
        &VectorIndex::embeddings_dir(&root),
        embedder.model_id(),
        DIMS,
    )
    .unwrap();
    assert!(cache.len() >= c.total.min(reopened.live_vectors()));
    let got = store(&root, embedder.model_id());
    let (_fresh_dir, fresh_root) = fixture(&files);
    let fresh = FakeEmbedder::new(DIMS);
    let (_i, mut v) = indexed(&fresh_root, &fresh);
    v.embed_pending(&fresh, &mut |_, _| {}, &AtomicBool::new(false))
        .unwrap();
    let want = store(&fresh_root, fresh.model_id());
    assert_eq!(got, want);
}

#[test]
fn missing_texts_are_counted_from_the_rows_without_reading_files() {
    let files = files();
    let (dir, root) = fixture(&files);
    let embedder = Counting::new();
    let (index, vectors) = indexed(&root, &embedder);
    let hits = index
        .search_chunks("password", 50, &RankParams::default())
        .unwrap();
    let named: Vec<(&str, u32, &str)> = hits
        .iter()
        .map(|h| (h.file.as_str(), h.start_line, h.sha256.as_str()))
        .collect();
    let pending = vectors.pending_for(&named, 100);
    assert!(pending.len() >= 3, "{pending:?}");
    assert_eq!(vectors.missing_for(&named, 100), pending.len());
    assert_eq!(vectors.missing_for(&named, 2), 2, "the limit holds");
    // With the sources gone the texts cannot be made, but the count needs no file.
    for (path, _) in &files {
        std::fs::remove_file(dir.path().join(path)).unwrap();
    }
    let fresh = VectorIndex::open(&root, &Config::default(), embedder.model_id(), DIMS).unwrap();
    assert!(fresh.pending_for(&named, 100).is_empty());
    assert_eq!(fresh.missing_for(&named, 100), pending.len());
}
