//! The real model: multilingual-e5-small through fastembed and ONNX Runtime, as provisioned by
//! `scripts/model/fetch.sh` (or `code-intel model fetch`).
//!
//! The model cache is `CODE_INTEL_MODEL_DIR`, else `${XDG_CACHE_HOME:-$HOME/.cache}/code-intel/models`.
//! Without a provisioned model these tests FAIL (CI provisions it); set
//! `CODE_INTEL_SKIP_MODEL_TESTS=1` to skip them knowingly.

#![cfg(feature = "embed")]
// The skip notice and the measured cosines go to stderr on purpose (visible with --nocapture).
#![allow(clippy::disallowed_methods, clippy::print_stderr)]

mod support;

use code_intel_core::embed::{Embedder, FastEmbedOptions, FastEmbedder, dot, split_identifiers};

/// The model, verified and loaded once for all tests of this binary. `None` means skip.
fn model() -> Option<&'static FastEmbedder> {
    support::model_once("real-model tests", |paths| {
        paths
            .verify()
            .and_then(|_| FastEmbedder::load(paths, &FastEmbedOptions::default()))
    })
}

#[test]
fn vectors_have_384_unit_components() {
    let Some(m) = model() else { return };
    assert_eq!(m.dims(), 384);
    assert!(
        m.model_id().starts_with("multilingual-e5-small@"),
        "{}",
        m.model_id()
    );
    let texts = ["ログイン機能", "def login(user, password):", "", "x"];
    for v in m
        .embed_passages(&texts)
        .unwrap()
        .iter()
        .chain(&m.embed_queries(&texts).unwrap())
    {
        assert_eq!(v.len(), 384);
        let norm = dot(v, v).sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
    }
    assert!(m.embed_passages(&[]).unwrap().is_empty());
}

#[test]
fn japanese_queries_rank_the_related_english_passage_first() {
    let Some(m) = model() else { return };
    let cases = [
        (
            "ログイン機能",
            "Auth Service login authenticate user password",
            "Config Loader load configuration file",
        ),
        (
            "設定ファイルを読み込む",
            "Config Loader load configuration file",
            "Auth Service login authenticate user password",
        ),
        (
            "データベース接続",
            "DatabaseConnection connect to the SQL database pool",
            "render HTML template with context variables",
        ),
    ];
    for (query, related, unrelated) in cases {
        let q = &m.embed_queries(&[query]).unwrap()[0];
        let p = m.embed_passages(&[related, unrelated]).unwrap();
        let (r, u) = (dot(q, &p[0]), dot(q, &p[1]));
        eprintln!("{query}: related {r:.4}, unrelated {u:.4}");
        assert!(r > u, "{query}: related {r} <= unrelated {u}");
    }
}

#[test]
fn matches_the_python_verification_of_the_same_files() {
    // The installed model's manifest records the cosines `scripts/model/verify.py` computed through
    // ONNX Runtime's Python wheel with mean pooling, each text alone (docs/MODEL.md: q4
    // cos(query: ログイン機能, passage: Auth Service ...) = 0.8597, Config Loader 0.8255; int8 0.8529,
    // 0.8240). The same numbers here show prefixes, pooling and tokenizer are wired alike.
    let Some(m) = model() else { return };
    let manifest_path = code_intel_core::embed::ModelPaths::in_cache(
        &support::model_cache(),
        code_intel_core::embed::ModelPaths::DEFAULT_MODEL,
    )
    .manifest_path();
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
    let recorded = |query: &str, passage: &str| -> f32 {
        let row = manifest["verification"]["cosines"]
            .as_array()
            .and_then(|rows| {
                rows.iter()
                    .find(|r| r["query"] == query && r["passage"] == passage)
            })
            .unwrap_or_else(|| {
                panic!("{manifest_path:?} records no cosine for {query} | {passage}")
            });
        row["cosine"].as_f64().unwrap() as f32
    };
    let passages = [
        "Auth Service login authenticate user password",
        "Config Loader load configuration file",
        "ログイン機能",
    ];
    let q = &m.embed_queries(&["ログイン機能"]).unwrap()[0];
    let p = m.embed_passages(&passages).unwrap();
    let got: Vec<f32> = p.iter().map(|v| dot(q, v)).collect();
    let want: Vec<f32> = passages
        .iter()
        .map(|t| recorded("ログイン機能", t))
        .collect();
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() < 0.002, "got {got:?}, want {want:?}");
    }
}

#[test]
fn batching_and_order_do_not_change_vectors() {
    let Some(m) = model() else { return };
    // More texts than one batch, of very different lengths, so sorting and padding both happen.
    let long =
        "fn handle_request(req: Request) -> Response { let user = auth(req)?; render(user) } "
            .repeat(12);
    let texts: Vec<&str> = vec![
        "short",
        long.as_str(),
        "def load_config(path): return yaml.safe_load(open(path))",
        "ログイン機能",
        "a",
        "class UserRepository { find(id) { return this.db.get(id) } }",
        "SELECT * FROM users WHERE id = ?",
        "",
        "設定ファイルを読み込む",
        "render HTML template with context variables",
    ];
    let together = m.embed_passages(&texts).unwrap();
    for (i, text) in texts.iter().enumerate() {
        let alone = &m.embed_passages(&[text]).unwrap()[0];
        let c = dot(alone, &together[i]);
        assert!(
            c > 0.9999,
            "text {i} ({text:.20}): cosine alone vs batched {c}"
        );
    }
    let reversed: Vec<&str> = texts.iter().rev().copied().collect();
    let rev = m.embed_passages(&reversed).unwrap();
    for (i, v) in rev.iter().rev().enumerate() {
        assert!(dot(v, &together[i]) > 0.9999);
    }
}

#[test]
fn one_session_passages_match_the_exact_graph() {
    let Some(exact) = model() else { return };
    // The server's configuration: passages on the int8-activation graph, one session.
    let paths = code_intel_core::embed::ModelPaths::in_cache(
        &support::model_cache(),
        code_intel_core::embed::ModelPaths::DEFAULT_MODEL,
    );
    let one = FastEmbedder::load(
        &paths,
        &FastEmbedOptions {
            one_session: true,
            ..FastEmbedOptions::default()
        },
    )
    .unwrap();
    let texts = [
        "def load_config(path): return yaml.safe_load(open(path))",
        "class UserRepository { find(id) { return this.db.get(id) } }",
        "設定ファイルを読み込む",
        "public function handle(Request $request, Closure $next) { return $next($request); }",
    ];
    let a = exact.embed_passages(&texts).unwrap();
    let b = one.embed_passages(&texts).unwrap();
    let mut worst = 1.0f32;
    for (x, y) in a.iter().zip(&b) {
        worst = worst.min(dot(x, y));
    }
    eprintln!("one-session vs exact passages: min cosine {worst}");
    assert!(worst > 0.999, "min cosine {worst}");
    // Queries run on the same session and still rank as the exact graph does.
    let q = one.embed_queries(&["設定を読み込む"]).unwrap();
    assert!(dot(&q[0], &b[0]) > dot(&q[0], &b[3]));
}

#[test]
fn queries_and_passages_get_different_prefixes() {
    let Some(m) = model() else { return };
    let q = &m.embed_queries(&["ログイン機能"]).unwrap()[0];
    let p = &m.embed_passages(&["ログイン機能"]).unwrap()[0];
    let c = dot(q, p);
    assert!(
        c < 0.99,
        "query and passage of one text should differ, cosine {c}"
    );
}

#[test]
fn texts_beyond_512_tokens_are_truncated_not_rejected() {
    let Some(m) = model() else { return };
    let huge = "token ".repeat(5000);
    let v = m.embed_passages(&[huge.as_str()]).unwrap();
    assert_eq!(v[0].len(), 384);
    assert_eq!(
        m.count_tokens(&huge).unwrap(),
        512,
        "capped at the model's maximum"
    );
    // <s> ▁passage : ▁ ... </s>: the prefix and both special tokens are counted.
    let short = m.count_tokens("login").unwrap();
    assert!((4..=8).contains(&short), "{short}");
}

#[test]
fn split_identifiers_helps_a_japanese_query_find_the_symbol() {
    // shared/docs/EMBEDDINGS.md: splitting and abbreviation expansion improved the right symbol's
    // rank. Here the split text must score at least as well against the query as the raw name.
    let Some(m) = model() else { return };
    let q = &m.embed_queries(&["設定ファイルを読み込む"]).unwrap()[0];
    let raw = "loadCfgFile";
    let split = split_identifiers(raw);
    let p = m.embed_passages(&[raw, split.as_str()]).unwrap();
    let (r, s) = (dot(q, &p[0]), dot(q, &p[1]));
    eprintln!("raw {raw}: {r:.4}; split {split:?}: {s:.4}");
    assert!(s > r, "split {s} <= raw {r}");
}

#[test]
fn compact_unigram_tokenizes_like_the_library() {
    // The compact Unigram model (core/src/embed/unigram.rs) against `tokenizers`' own, both
    // loaded from the provisioned tokenizer.json, on this repository's sources and documents
    // (Rust, Markdown, Japanese glossary, shell) in 300-character windows, plus text in scripts
    // the code does not hold: the ids must be equal, token for token.
    let Some(_) = model() else { return };
    let dir = support::model_cache().join(code_intel_core::embed::ModelPaths::DEFAULT_MODEL);
    let bytes = std::fs::read(dir.join("tokenizer.json")).unwrap();
    let compact: code_intel_core::embed::CompactTokenizer = serde_json::from_slice(&bytes).unwrap();
    let library = tokenizers::Tokenizer::from_bytes(&bytes).unwrap();

    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut texts: Vec<String> = [
        "Здравствуйте, мир! Ошибка при входе",
        "مرحبا بالعالم",
        "नमस्ते दुनिया",
        "สวัสดีชาวโลก",
        "안녕하세요 세계 로그인 기능",
        "ログイン機能を追加する：ユーザー認証とパスワード",
        "emoji 🦀🚀 and \u{0} control \u{7f} chars \t tabs\r\n",
        "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ﬁ ligatures Ⅻ ① ＦＵＬＬＷＩＤＴＨ",
        "",
        "   ",
        "<s> </s> <pad> <unk> <mask> literal specials",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for sub in ["core/src", "docs", "session/src", "mcp/src"] {
        let mut stack = vec![root.join(sub)];
        while let Some(p) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&p) else {
                continue;
            };
            for e in entries.flatten() {
                let path = e.path();
                if path.is_dir() {
                    stack.push(path);
                } else if let Ok(text) = std::fs::read_to_string(&path) {
                    let chars: Vec<char> = text.chars().collect();
                    texts.extend(chars.chunks(300).map(|w| w.iter().collect::<String>()));
                }
            }
        }
    }
    assert!(texts.len() > 2_000, "{} texts", texts.len());
    let mut tokens = 0;
    for text in &texts {
        let a = compact.encode(text.as_str(), true).unwrap();
        let b = library.encode(text.as_str(), true).unwrap();
        assert_eq!(a.get_ids(), b.get_ids(), "{text:?}");
        assert_eq!(a.get_offsets(), b.get_offsets(), "{text:?}");
        tokens += a.len();
    }
    eprintln!("{} texts, {tokens} tokens: the same ids", texts.len());
}

#[test]
fn parallel_sessions_give_the_vectors_of_one_session() {
    // `index --embed`'s configuration: for a model that embeds one text per call (int8), two
    // one-thread sessions side by side; for others the option changes nothing. Either way every
    // text keeps the vector one session gives it, in the caller's order.
    let Some(one) = model() else { return };
    let paths = code_intel_core::embed::ModelPaths::in_cache(
        &support::model_cache(),
        code_intel_core::embed::ModelPaths::DEFAULT_MODEL,
    );
    let parallel = FastEmbedder::load(
        &paths,
        &FastEmbedOptions {
            intra_threads: Some(2),
            query_session: false,
            parallel_sessions: true,
            ..FastEmbedOptions::default()
        },
    )
    .unwrap();
    let long = "fn handle(req: Request) -> Response { render(auth(req)?) } ".repeat(9);
    let texts: Vec<String> = (0..23)
        .map(|i| match i % 4 {
            0 => format!("function number {i} loads the configuration"),
            1 => format!("ユーザー {i} のログイン"),
            2 => long.clone(),
            _ => format!("class Repo{i} {{ find(id) {{ return this.db.get(id) }} }}"),
        })
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let a = one.embed_passages(&refs).unwrap();
    let b = parallel.embed_passages(&refs).unwrap();
    assert_eq!(a.len(), b.len());
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        let c = dot(x, y);
        assert!(c > 0.9999, "text {i}: cosine one vs parallel sessions {c}");
    }
}
