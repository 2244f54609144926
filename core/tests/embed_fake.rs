//! The deterministic fake embedder and identifier splitting: the model-free parts of `embed`.

#![cfg(feature = "embed")]

use code_intel_core::embed::{Embedder, FakeEmbedder, dot, split_identifiers};
use expect_test::{Expect, expect};

fn check(input: &str, expect: Expect) {
    expect.assert_eq(&split_identifiers(input));
}

#[test]
fn splits_case_styles() {
    check("getUserName", expect!["get user name"]);
    check("get_user_name", expect!["get user name"]);
    check("get-user-name", expect!["get user name"]);
    check("GET_USER_NAME", expect!["get user name"]);
    check("HTMLParser", expect!["html parser"]);
    check("parseHTTPResponse", expect!["parse http response"]);
    check("XMLHttpRequest", expect!["xml http request"]);
    check("v2Api", expect!["v2 api"]);
    check("sha256Digest", expect!["sha256 digest"]);
    check("utf8_decode", expect!["utf8 decode"]);
    check("__init__", expect!["initialize"]);
    check(
        "App\\Http\\Controllers\\AuthController::login",
        expect!["application http controllers authentication controller login"],
    );
    check(
        "flask.app.Flask.make_response",
        expect!["flask application flask make response"],
    );
    check(
        "src/auth/service.ts",
        expect!["source authentication service ts"],
    );
}

#[test]
fn expands_common_abbreviations() {
    check("AuthService", expect!["authentication service"]);
    check("ConfigLoader", expect!["configuration loader"]);
    check("load_db_cfg", expect!["load database configuration"]);
    check("userRepo", expect!["user repository"]);
    check(
        "handle(req, res, ctx)",
        expect!["handle request response context"],
    );
    check("sendMsg", expect!["send message"]);
    check("submitBtn", expect!["submit button"]);
    check("parseArgs", expect!["parse arguments"]);
    check("msgs", expect!["messages"]);
    check("i18n", expect!["internationalization"]);
    // Not abbreviations: left alone.
    check("author", expect!["author"]);
    check("resource", expect!["resource"]);
    check("status", expect!["status"]);
}

#[test]
fn passes_non_identifier_text_through() {
    check("ログイン機能", expect!["ログイン機能"]);
    check(
        "設定ファイルを読み込む。",
        expect!["設定ファイルを読み込む"],
    );
    check("ログインForm", expect!["ログイン form"]);
    check("", expect![""]);
    check("  ...  ", expect![""]);
    check(
        "Auth Service login authenticate user password",
        expect!["authentication service login authenticate user password"],
    );
}

#[test]
fn fake_is_deterministic_and_normalised() {
    let fake = FakeEmbedder::new(64);
    let texts = ["AuthService.login", "", "ログイン機能", "x"];
    let a = fake.embed_passages(&texts).unwrap();
    let b = FakeEmbedder::new(64).embed_passages(&texts).unwrap();
    assert_eq!(a, b, "same texts, same vectors");
    assert_eq!(a.len(), texts.len());
    for v in &a {
        assert_eq!(v.len(), 64);
        let norm = dot(v, v).sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "norm {norm}");
    }
    assert_eq!(fake.dims(), 64);
    assert_eq!(fake.model_id(), "fake-hash-v1@64");
    // Queries and passages embed alike, so identical texts score 1.
    let q = fake.embed_queries(&["AuthService.login"]).unwrap();
    assert!((dot(&q[0], &a[0]) - 1.0).abs() < 1e-5);
    assert!(fake.embed_queries(&[]).unwrap().is_empty());
}

#[test]
fn fake_scores_related_texts_higher() {
    let fake = FakeEmbedder::new(256);
    let q = &fake.embed_queries(&["user login authentication"]).unwrap()[0];
    let p = fake
        .embed_passages(&[
            "class AuthService: def login(self, user, password)",
            "class ConfigLoader: def load(self, path)",
        ])
        .unwrap();
    let (related, unrelated) = (dot(q, &p[0]), dot(q, &p[1]));
    assert!(
        related > unrelated + 0.1,
        "related {related} vs unrelated {unrelated}"
    );
    // Identifier splitting makes `getUserName` and "user name" share words.
    let a = &fake.embed_queries(&["user name"]).unwrap()[0];
    let b = fake.embed_passages(&["getUserName", "parseHtml"]).unwrap();
    assert!(dot(a, &b[0]) > dot(a, &b[1]));
}

#[test]
fn fake_is_usable_as_a_trait_object() {
    let boxed: Box<dyn Embedder> = Box::new(FakeEmbedder::new(8));
    let v = boxed.embed_passages(&["a b c"]).unwrap();
    assert_eq!(v[0].len(), 8);
}
