//! `semantic_search` and hybrid search with the deterministic fake embedder: the map answers
//! first and a confident hit short-circuits the forest; an unconfident one is a hint; the forest
//! ranks by the fused signals with explanations; without vectors a hybrid request falls back to
//! BM25 with a note; a tiny index never short-circuits.

#![cfg(all(feature = "index", feature = "embed"))]

use std::sync::atomic::AtomicBool;
use std::time::{Duration, SystemTime};

use code_intel_core::embed::{Embedder, FakeEmbedder};
use code_intel_core::index::CodeIndex;
use code_intel_core::index::hybrid::{self, SearchMode, SearchOptions, Signal};
use code_intel_core::index::map::MapIndex;
use code_intel_core::index::semantic::{
    Collection, MIN_BACKGROUND, Sources, Status, semantic_search,
};
use code_intel_core::index::vector::VectorIndex;
use code_intel_session::config::Config;
use code_intel_session::repo_path::RepoRoot;

const DIMS: usize = 128;

const TOPICS: &[&str] = &[
    "invoice",
    "shipment",
    "customer",
    "warehouse",
    "payment",
    "discount",
    "coupon",
    "catalog",
    "review",
    "rating",
    "wishlist",
    "address",
    "currency",
    "refund",
    "ticket",
    "newsletter",
    "banner",
    "category",
    "supplier",
    "inventory",
];
const VERBS: &[&str] = &["create", "update", "delete", "render"];

/// 20 topic files of 4 functions each (> MIN_BACKGROUND chunks), plus the code the tests look for.
fn repo() -> (tempfile::TempDir, RepoRoot) {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, body: &str| {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, body).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(SystemTime::now() - Duration::from_secs(3600))
            .unwrap();
    };
    for t in TOPICS {
        let mut body = String::new();
        for v in VERBS {
            body.push_str(&format!(
                "def {v}_{t}(item):\n    \"\"\"{v} the {t} record.\"\"\"\n    return store.{v}('{t}', item)\n\n\n"
            ));
        }
        write(&format!("shop/{t}.py"), &body);
    }
    write(
        "auth/passwords.py",
        "def hash_password(password):\n    \"\"\"Hash a password with bcrypt before storing it.\"\"\"\n    return bcrypt.hashpw(password, bcrypt.gensalt())\n",
    );
    let root = RepoRoot::new(dir.path()).unwrap();
    (dir, root)
}

fn config() -> Config {
    Config {
        source_dirs: Vec::new(),
        ..Config::default()
    }
}

fn build(root: &RepoRoot, fake: &FakeEmbedder) -> (CodeIndex, VectorIndex) {
    let index = CodeIndex::open(root, &config()).unwrap();
    index.sync(&mut |_| {}).unwrap();
    let mut vectors = VectorIndex::open(root, &config(), fake.model_id(), DIMS).unwrap();
    vectors.refresh().unwrap();
    vectors
        .embed_pending(fake, &mut |_, _| {}, &AtomicBool::new(false))
        .unwrap();
    assert!(vectors.live_vectors() >= MIN_BACKGROUND);
    (index, vectors)
}

fn learned(root: &RepoRoot, nl_term: &str, symbol: &str) {
    let body = serde_json::json!({"version": 2, "pairs": [{"nl_term": nl_term, "symbol": symbol}]});
    std::fs::create_dir_all(root.state_dir()).unwrap();
    std::fs::write(
        root.state_dir().join("learned_pairs.json"),
        body.to_string(),
    )
    .unwrap();
}

#[test]
fn a_confident_map_hit_short_circuits_the_forest() {
    let (_dir, root) = repo();
    let fake = FakeEmbedder::new(DIMS);
    let (index, vectors) = build(&root, &fake);
    learned(&root, "hash a password with bcrypt", "hash_password");
    let map = MapIndex::load(&root, &fake).unwrap();
    let src = Sources {
        index: &index,
        vectors: Some(&vectors),
        map: &map,
        embedder: &fake,
    };
    let opts = SearchOptions::hybrid(&config().search_weights);
    // The fake embedder scores the query against "hash a password with bcrypt\nhash_password
    // (hash password)" far above any chunk.
    let r = semantic_search(
        src,
        "hash a password with bcrypt",
        Collection::Auto,
        5,
        &opts,
    )
    .unwrap();
    assert!(r.short_circuit, "{r:#?}");
    assert_eq!(r.status, Status::PreviousSuccess);
    assert_eq!(r.searched, vec![Collection::Map]);
    assert!(r.forest_hits.is_empty());
    assert!(r.map_hits[0].confident);
    assert!(r.message.contains("hash_password"), "{}", r.message);
    assert!(r.calibration.background.n >= MIN_BACKGROUND);

    // Unrelated: the map hit is a hint, the forest answers.
    let r = semantic_search(src, "delete the invoice record", Collection::Auto, 5, &opts).unwrap();
    assert!(!r.short_circuit);
    assert_eq!(r.status, Status::Hypothesis);
    assert_eq!(r.searched, vec![Collection::Map, Collection::Forest]);
    assert!(!r.map_hits[0].confident);
    assert_eq!(r.forest_hits[0].hit.symbol, "delete_invoice");
    assert_eq!(r.forest_mode, Some(SearchMode::Hybrid));
    assert_hits_as_stored(src.index, &r.forest_hits);

    // Map only, forest only.
    let r = semantic_search(src, "delete the invoice record", Collection::Map, 5, &opts).unwrap();
    assert_eq!(
        (r.searched.clone(), r.forest_hits.len()),
        (vec![Collection::Map], 0)
    );
    assert_eq!(r.status, Status::Hypothesis, "an unconfident hint");
    let r = semantic_search(
        src,
        "hash a password with bcrypt",
        Collection::Forest,
        5,
        &opts,
    )
    .unwrap();
    assert!(r.map_hits.is_empty() && !r.short_circuit);
    assert_eq!(r.forest_hits[0].hit.symbol, "hash_password");
    assert_hits_as_stored(src.index, &r.forest_hits);
}

#[test]
fn an_empty_map_says_so_and_a_tiny_index_never_short_circuits() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.py"),
        "def hash_password(p):\n    \"\"\"Hash a password.\"\"\"\n",
    )
    .unwrap();
    let root = RepoRoot::new(dir.path()).unwrap();
    let fake = FakeEmbedder::new(DIMS);
    let index = CodeIndex::open(&root, &config()).unwrap();
    index.sync(&mut |_| {}).unwrap();
    let mut vectors = VectorIndex::open(&root, &config(), fake.model_id(), DIMS).unwrap();
    vectors.refresh().unwrap();
    vectors
        .embed_pending(&fake, &mut |_, _| {}, &AtomicBool::new(false))
        .unwrap();
    let opts = SearchOptions::hybrid(&config().search_weights);
    let empty = MapIndex::default();
    let src = Sources {
        index: &index,
        vectors: Some(&vectors),
        map: &empty,
        embedder: &fake,
    };
    let r = semantic_search(src, "hash a password", Collection::Map, 5, &opts).unwrap();
    assert_eq!(r.status, Status::NoMatch);
    assert!(
        r.notes.iter().any(|n| n.contains("the map is empty")),
        "{:?}",
        r.notes
    );

    learned(&root, "hash a password", "hash_password");
    let map = MapIndex::load(&root, &fake).unwrap();
    let src = Sources { map: &map, ..src };
    let r = semantic_search(src, "hash a password", Collection::Auto, 5, &opts).unwrap();
    assert!(!r.short_circuit, "2 chunks are no background: {r:#?}");
    assert!(
        r.notes.iter().any(|n| n.contains("cannot be calibrated")),
        "{:?}",
        r.notes
    );
    assert_eq!(r.forest_hits[0].hit.symbol, "hash_password");
}

/// Every hit and folded chunk of `r` is the stored chunk it names: ranking reads candidates from
/// fast fields and the stored document only for what it shows, so a shown hit missing its
/// qualified name, signature or snippet (or carrying another chunk's) fails here.
fn assert_hits_as_stored(index: &CodeIndex, hits: &[hybrid::HybridHit]) {
    assert!(!hits.is_empty());
    for h in hits {
        let chunks = index.chunks_of(&h.hit.file).unwrap();
        let stored = chunks
            .iter()
            .find(|c| c.start_line == h.hit.start_line && c.sha256 == h.hit.sha256)
            .unwrap_or_else(|| panic!("{h:#?} is no stored chunk"));
        assert_eq!(
            h.hit,
            code_intel_core::index::SearchHit::from_stored(stored.clone(), h.hit.score)
        );
        for also in &h.also {
            assert!(
                chunks.iter().any(|c| c.start_line == also.start_line
                    && c.end_line == also.end_line
                    && c.qualified_name == also.qualified_name),
                "{also:#?} is no stored chunk of {}",
                h.hit.file
            );
        }
    }
}

#[test]
fn hybrid_hits_explain_their_parts_and_fall_back_to_bm25_without_vectors() {
    let (_dir, root) = repo();
    let fake = FakeEmbedder::new(DIMS);
    let (index, vectors) = build(&root, &fake);
    // Every signal weighted, and no file-level terms (coherence, size prior), so the file's score
    // is its best chunk's fused score and the explanation adds up to it.
    let opts = SearchOptions::hybrid(&code_intel_session::config::SearchWeights {
        vector: 0.85,
        keyword: 0.05,
        definition: 0.05,
        reference: 0.05,
    });
    let chunk_level = code_intel_core::index::rank::RankParams {
        file_extra: 0.0,
        size_prior: 0.0,
        ..Default::default()
    };
    let q = fake.embed_queries(&["render_coupon"]).unwrap();
    let r = hybrid::search_ranked(
        &index,
        Some(&vectors),
        Some(&q[0]),
        "render_coupon",
        5,
        &opts,
        &chunk_level,
    )
    .unwrap();
    assert_eq!(r.mode, SearchMode::Hybrid);
    let top = &r.hits[0];
    assert_eq!(top.hit.symbol, "render_coupon");
    assert!((0.0..=1.0).contains(&top.hit.score));
    assert_eq!(top.hit.score, top.explanation.score);
    let part = |s: Signal| {
        top.explanation
            .parts
            .iter()
            .find(|p| p.signal == s)
            .unwrap()
    };
    assert_eq!(
        part(Signal::Definition).raw,
        Some(1.0),
        "it defines render_coupon"
    );
    assert!(part(Signal::Keyword).raw.unwrap() > 0.0);
    assert!(part(Signal::Vector).raw.is_some());
    let sum: f32 = top.explanation.parts.iter().map(|p| p.contribution).sum();
    assert!((sum - top.explanation.score).abs() < 1e-5);
    assert!(r.hits.windows(2).all(|w| w[0].hit.score >= w[1].hit.score));
    assert_hits_as_stored(&index, &r.hits);

    // No vectors: a hybrid request is answered lexically, with a note; BM25 stays in `score`.
    let r = hybrid::search(&index, None, None, "render_coupon", 5, &opts).unwrap();
    assert_hits_as_stored(&index, &r.hits);
    assert_eq!(r.mode, SearchMode::Lexical);
    assert!(r.notes[0].contains("needs embeddings"), "{:?}", r.notes);
    assert_eq!(r.hits[0].hit.symbol, "render_coupon");
    assert!(r.hits[0].hit.score > 1.0, "raw BM25");

    // Vector only.
    let v = SearchOptions {
        mode: SearchMode::Vector,
        ..opts
    };
    let r = hybrid::search(&index, Some(&vectors), Some(&q[0]), "render_coupon", 3, &v).unwrap();
    assert_eq!(r.mode, SearchMode::Vector);
    assert_hits_as_stored(&index, &r.hits);
    assert_eq!(r.hits[0].hit.symbol, "render_coupon");
    assert_eq!(r.hits[0].explanation.parts.len(), 1);
}

#[test]
fn a_candidate_no_signal_scores_is_not_a_hit() {
    let (_dir, root) = repo();
    let fake = FakeEmbedder::new(DIMS);
    let (index, vectors) = build(&root, &fake);
    let q = fake.embed_queries(&["render_coupon"]).unwrap();
    // Vector only, every file asked for: the files whose chunks are all at or below the
    // query's mean cosine score 0 and are left out, the others stay, in order.
    let opts = SearchOptions {
        mode: SearchMode::Vector,
        ..SearchOptions::hybrid(&config().search_weights)
    };
    let r = hybrid::search(
        &index,
        Some(&vectors),
        Some(&q[0]),
        "render_coupon",
        100,
        &opts,
    )
    .unwrap();
    assert_eq!(r.mode, SearchMode::Vector);
    assert_eq!(r.hits[0].hit.symbol, "render_coupon");
    assert!(
        r.hits
            .iter()
            .all(|h| h.hit.score > 0.0 && h.explanation.parts.iter().any(|p| p.contribution > 0.0)),
        "{:?}",
        r.hits
            .iter()
            .map(|h| (&h.hit.file, h.hit.score))
            .collect::<Vec<_>>()
    );
    let files = index.indexed_files().len();
    assert!(
        r.hits.len() < files,
        "{} hits of {files} files: some files must be below the mean",
        r.hits.len()
    );
    assert!(r.hits.windows(2).all(|w| w[0].hit.score >= w[1].hit.score));

    // Lexical mode answers with BM25 matches only, as before.
    let lexical = SearchOptions {
        mode: SearchMode::Lexical,
        ..opts
    };
    let r = hybrid::search(&index, None, None, "bcrypt", 100, &lexical).unwrap();
    let found: Vec<&str> = r.hits.iter().map(|h| h.hit.file.as_str()).collect();
    assert_eq!(found, ["auth/passwords.py"]);
}

/// The same hybrid search twice: through `embed_while_searching` (whose keyword thread also
/// looks up the candidates' vector slots and their files' chunk counts) and through
/// `search_ranked`, which looks everything up itself; the answers must be equal.
fn assert_overlapped_ranks_as_plain(
    index: &CodeIndex,
    vectors: &VectorIndex,
    fake: &FakeEmbedder,
    query: &str,
) {
    let opts = SearchOptions::hybrid(&code_intel_session::config::SearchWeights {
        vector: 0.3,
        keyword: 0.7,
        definition: 0.0,
        reference: 0.0,
    });
    let rank = code_intel_core::index::rank::RankParams::default();
    let (embedded, searched) =
        hybrid::embed_while_searching(index, Some(vectors), query, 5, &opts, &rank, true, || {
            fake.embed_queries(&[query])
        });
    let q = embedded.unwrap().pop().unwrap();
    let lexical = searched.expect("searched").unwrap();
    assert!(
        lexical.is_some(),
        "{query}: a hybrid search has BM25 candidates"
    );
    let overlapped = hybrid::search_ranked_from(
        index,
        Some(vectors),
        Some(&q),
        lexical,
        query,
        5,
        &opts,
        &rank,
    )
    .unwrap();
    let plain =
        hybrid::search_ranked(index, Some(vectors), Some(&q), query, 5, &opts, &rank).unwrap();
    assert_eq!(overlapped.mode, SearchMode::Hybrid);
    assert!(!plain.hits.is_empty(), "{query}");
    let view = |r: &hybrid::HybridResults| -> Vec<(String, u32, f32, Vec<Option<f32>>)> {
        r.hits
            .iter()
            .map(|h| {
                (
                    h.hit.file.clone(),
                    h.hit.start_line,
                    h.hit.score,
                    h.explanation.parts.iter().map(|p| p.raw).collect(),
                )
            })
            .collect()
    };
    assert_eq!(view(&overlapped), view(&plain), "{query}");
    // The cosines were read: some shown hit has a vector part with a value.
    assert!(
        overlapped.hits.iter().any(|h| h
            .explanation
            .parts
            .iter()
            .any(|p| p.signal == Signal::Vector && p.raw.is_some())),
        "{query}"
    );
}

#[test]
fn candidates_looked_up_while_the_query_embeds_rank_as_looked_up_after() {
    let (dir, root) = repo();
    let fake = FakeEmbedder::new(DIMS);
    let (index, mut vectors) = build(&root, &fake);
    for query in [
        "render the coupon record",
        "hash a password before storing it",
        "update_refund",
    ] {
        assert_overlapped_ranks_as_plain(&index, &vectors, &fake, query);
    }
    // Partly embedded: a new file's chunks are BM25 candidates without a vector.
    std::fs::write(
        dir.path().join("shop/gift_card.py"),
        "def redeem_gift_card(card):\n    \"\"\"Redeem a gift card like a coupon.\"\"\"\n    return store.redeem('coupon', card)\n",
    )
    .unwrap();
    index.sync(&mut |_| {}).unwrap();
    vectors.refresh().unwrap();
    let coverage = vectors.coverage();
    assert!(coverage.embedded < coverage.total, "{coverage:?}");
    for query in ["redeem a gift card coupon", "render the coupon record"] {
        assert_overlapped_ranks_as_plain(&index, &vectors, &fake, query);
    }
}
