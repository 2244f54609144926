//! The map index: reading entries (no duplicates, expiry), lexical search without a model (English,
//! Japanese, symbol names), staleness against a real code index, and hybrid search with the fake
//! embedder.

use super::*;
use crate::embed::FakeEmbedder;
use code_intel_session::config::Config;

fn repo(files: &[(&str, &str)]) -> (tempfile::TempDir, RepoRoot) {
    let dir = tempfile::tempdir().unwrap();
    for (p, c) in files {
        let path = dir.path().join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, c).unwrap();
    }
    let root = RepoRoot::new(dir.path()).unwrap();
    (dir, root)
}

fn never() -> Expiry {
    Expiry::after_days(0)
}

const PAIRS: &str = r#"{"version": 2, "pairs": [
    {"nl_term": "ログイン機能", "symbol": "AuthService", "code_evidence": "AuthService.login() authenticates", "agreement_file": "login_auth.md"},
    {"nl_term": "password hashing", "symbol": "BcryptHasher"}
]}"#;

const AGREEMENT: &str = "---\ndoc_type: agreement\nnl_term: ログイン機能\nsymbol: AuthService\n---\n\n# ログイン機能 → AuthService\n";

#[test]
fn reads_pairs_and_agreements_without_duplicates() {
    let (_d, root) = repo(&[
        (".code-intel/learned_pairs.json", PAIRS),
        (".code-intel/agreements/login_auth.md", AGREEMENT),
        (
            ".code-intel/agreements/naming.md",
            "# Naming\n\nControllers end in Controller; services in Service.\n",
        ),
        (".code-intel/agreements/notes.txt", "not markdown"),
    ]);
    let entries = load_entries(&root, &never()).unwrap();
    let summary: Vec<(MapSource, Option<&str>, Option<&str>)> = entries
        .iter()
        .map(|e| {
            (
                e.item.source,
                e.item.symbol.as_deref(),
                e.item.agreement_file.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (
                MapSource::LearnedPair,
                Some("AuthService"),
                Some("login_auth.md")
            ),
            (MapSource::LearnedPair, Some("BcryptHasher"), None),
            (MapSource::Agreement, None, Some("naming.md")),
        ]
    );
    assert_eq!(
        entries[0].text,
        "ログイン機能\nAuthService (authentication service)\nAuthService.login() authenticates"
    );
    assert!(entries[2].text.contains("Controllers end in Controller"));
}

#[test]
fn no_files_is_an_empty_map_and_bad_json_an_error() {
    let (_d, root) = repo(&[]);
    assert!(load_entries(&root, &never()).unwrap().is_empty());
    let map = MapIndex::load(&root, &FakeEmbedder::new(16)).unwrap();
    assert!(map.is_empty());
    let r = search_map(&map, "anything", None, 5);
    assert_eq!(r.status, Status::NoMatch);
    assert!(r.notes[0].contains("the map is empty"), "{:?}", r.notes);
    let (_d, root) = repo(&[(".code-intel/learned_pairs.json", "{oops")]);
    let err = load_entries(&root, &never()).unwrap_err();
    assert!(err.to_string().contains("learned_pairs.json"), "{err}");
}

#[test]
fn expired_entries_are_not_loaded() {
    let (_d, root) = repo(&[(
        ".code-intel/learned_pairs.json",
        r#"{"version": 2, "pairs": [
            {"nl_term": "old", "symbol": "Old", "learned_at": "2020-01-01T00:00:00"},
            {"nl_term": "new", "symbol": "New", "learned_at": "2025-01-10T00:00:00Z"}
        ]}"#,
    )]);
    let expiry = Expiry {
        now: "2025-01-20T00:00:00Z".parse().unwrap(),
        days: 30,
    };
    let entries = load_entries(&root, &expiry).unwrap();
    let symbols: Vec<_> = entries
        .iter()
        .filter_map(|e| e.item.symbol.as_deref())
        .collect();
    assert_eq!(symbols, ["New"]);
}

fn summary(r: &MapSearchResult) -> Vec<String> {
    r.hits
        .iter()
        .map(|h| {
            format!(
                "{} strong={} coverage={:?} named={} why={}",
                h.entry.item.symbol.as_deref().unwrap_or("-"),
                h.strong,
                h.term_coverage,
                h.symbol_named,
                h.why.as_deref().unwrap_or("-")
            )
        })
        .collect()
}

#[test]
fn lexical_search_works_without_a_model() {
    let (_d, root) = repo(&[(
        ".code-intel/learned_pairs.json",
        r#"{"version": 2, "pairs": [
            {"nl_term": "ログイン機能", "symbol": "AuthService", "code_evidence": "AuthService.login() checks the password"},
            {"nl_term": "password hashing", "symbol": "hash_password", "code_evidence": "hash_password() hashes with bcrypt"},
            {"nl_term": "shopping cart", "symbol": "CartController"}
        ]}"#,
    )]);
    let map = MapIndex::load_with(&root, &never(), None).unwrap();
    assert_eq!(map.model_id(), None);

    // Japanese: the request contains the learned term.
    let r = search_map(
        &map,
        "ログイン機能でパスワードが空のときエラーが出ない",
        None,
        5,
    );
    assert_eq!(r.mode, MapMode::Lexical);
    assert_eq!(r.status, Status::PreviousSuccess, "{r:#?}");
    expect_test::expect![[r#"
        [
            "AuthService strong=true coverage=Some(1.0) named=false why=the query contains the learned term \"ログイン機能\"",
        ]
    "#]]
    .assert_debug_eq(&summary(&r));

    // English, all words of the term (in another order, other case).
    let r = search_map(&map, "Hashing of the PASSWORD is too weak", None, 5);
    assert_eq!(
        r.hits[0].entry.item.symbol.as_deref(),
        Some("hash_password")
    );
    assert!(r.hits[0].strong, "{r:#?}");

    // The symbol named, whole.
    let r = search_map(&map, "change CartController.store to validate", None, 5);
    assert_eq!(
        r.hits[0].entry.item.symbol.as_deref(),
        Some("CartController")
    );
    assert!(r.hits[0].symbol_named && r.hits[0].strong, "{r:#?}");

    // A shared word is a hint, not a fact.
    let r = search_map(&map, "the password reset mail is not sent", None, 5);
    assert_eq!(r.status, Status::Hypothesis, "{r:#?}");
    assert!(r.hits.iter().all(|h| !h.strong), "{r:#?}");
    assert!(r.hits.iter().all(|h| h.bm25 > 0.0));
    // Nothing in common: no hits.
    let r = search_map(&map, "render the invoice PDF", None, 5);
    assert_eq!(r.status, Status::NoMatch, "{r:#?}");
    assert!(r.notes.iter().any(|n| n.contains("lexical search only")));
    assert!(r.notes.iter().any(|n| n.contains("not checked")));
}

#[test]
fn stale_entries_are_listed_but_never_strong() {
    let (_d, root) = repo(&[
        (
            "src/auth.py",
            "class AuthService:\n    def login(self, user):\n        return user\n\n\ndef hash_password(p):\n    return p\n",
        ),
        (
            ".code-intel/learned_pairs.json",
            r#"{"version": 2, "pairs": [
                {"nl_term": "login", "symbol": "AuthService.login"},
                {"nl_term": "login", "symbol": "LegacyLoginHelper"},
                {"nl_term": "password hashing", "symbol": "hash_password()"}
            ]}"#,
        ),
    ]);
    let config = Config {
        source_dirs: Vec::new(),
        ..Config::default()
    };
    let index = CodeIndex::open(&root, &config).unwrap();
    index.sync(&mut |_| {}).unwrap();
    let mut map = MapIndex::load_with(&root, &never(), None).unwrap();
    assert_eq!(map.mark_stale(&index), 1);
    assert!(map.stale_checked());
    let stale: Vec<_> = map
        .entries()
        .iter()
        .map(|e| (e.item.symbol.as_deref().unwrap(), e.stale))
        .collect();
    assert_eq!(
        stale,
        [
            ("AuthService.login", false),
            ("LegacyLoginHelper", true),
            ("hash_password()", false)
        ]
    );
    let r = search_map(&map, "login fails for admins", None, 5);
    let got = summary(&r);
    assert_eq!(r.status, Status::PreviousSuccess);
    assert!(
        got[0].starts_with("AuthService.login strong=true"),
        "{got:#?}"
    );
    assert!(
        got[1].starts_with("LegacyLoginHelper strong=false")
            && got[1].contains("stale: LegacyLoginHelper is no longer defined"),
        "{got:#?}"
    );
    let json = serde_json::to_value(&r.hits[1]).unwrap();
    assert_eq!(json["stale"], true);
    assert!(
        serde_json::to_value(&r.hits[0])
            .unwrap()
            .get("stale")
            .is_none()
    );
}

#[test]
fn search_ranks_entries_and_embeds_each_text_once() {
    let (_d, root) = repo(&[(".code-intel/learned_pairs.json", PAIRS)]);
    let fake = FakeEmbedder::new(64);
    let map = MapIndex::load(&root, &fake).unwrap();
    assert_eq!(map.model_id(), Some(fake.model_id()));
    let q = fake
        .embed_queries(&["bcrypt hasher for passwords"])
        .unwrap();
    let hits = map.search(&q[0]);
    assert_eq!(hits[0].0.item.symbol.as_deref(), Some("BcryptHasher"));
    assert!(hits[0].1 > hits[1].1);
    // A second load takes the vectors from the cache.
    let cache = EmbeddingCache::open(&MapIndex::cache_dir(&root), fake.model_id(), 64).unwrap();
    assert_eq!(cache.len(), 2);

    // Hybrid: every entry gets a cosine; without a background none is vector-confident.
    let r = search_map(
        &map,
        "bcrypt hasher for passwords",
        Some(QueryVector {
            vector: &q[0],
            background: SimilarityProfile::default(),
        }),
        5,
    );
    assert_eq!(r.mode, MapMode::Hybrid);
    assert_eq!(r.hits.len(), 2);
    assert_eq!(r.hits[0].entry.item.symbol.as_deref(), Some("BcryptHasher"));
    assert!(r.hits.iter().all(|h| h.cosine.is_some() && h.z.is_none()));
    assert!(
        r.notes.iter().any(|n| n.contains("cannot be calibrated")),
        "{:?}",
        r.notes
    );
    // A confident z makes a hit strong even without shared words.
    let r = search_map(
        &map,
        "bcrypt hasher for passwords",
        Some(QueryVector {
            vector: &q[0],
            background: SimilarityProfile {
                mean: -0.5,
                sd: 0.1,
                n: MIN_BACKGROUND,
            },
        }),
        1,
    );
    assert_eq!(r.hits.len(), 1);
    assert!(
        r.hits[0].strong
            && r.hits[0]
                .why
                .as_deref()
                .unwrap()
                .starts_with("calibrated z"),
        "{r:#?}"
    );
}
