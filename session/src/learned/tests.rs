//! The learned map's files: reading what the Python system wrote (v1 and v2 pairs, Japanese
//! agreements), merging without duplicates, refusing broken files, expiry, agreement naming and
//! rendering, and concurrent writers.

use expect_test::expect;

use super::*;
use crate::state_dir::{AGREEMENTS_DIR, LEARNED_PAIRS_FILE};

fn state() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn at(text: &str) -> jiff::Timestamp {
    text.parse().unwrap()
}

fn expiry(now: &str, days: u32) -> Expiry {
    Expiry { now: at(now), days }
}

/// What the Python system first wrote (docs/DESIGN.md#learned-pairs): version 1, no agreement
/// files, naive times, `json.dump(..., ensure_ascii=False, indent=2)`.
const PYTHON_V1: &str = r#"{
  "version": 1,
  "pairs": [
    {
      "nl_term": "ログイン",
      "symbol": "AuthService",
      "similarity": 0.72,
      "code_evidence": "AuthService.login() メソッドが存在",
      "session_id": "sess_abc123",
      "learned_at": "2025-01-12T10:00:00"
    }
  ]
}"#;

/// Version 2 as the later Python system wrote it, with a key this code does not know.
const PYTHON_V2: &str = r#"{
  "version": 2,
  "updated_at": "2025-01-12T14:35:00",
  "embedding_model": "intfloat/multilingual-e5-small",
  "pairs": [
    {
      "nl_term": "ログイン機能",
      "symbol": "AuthService",
      "similarity": 0.85,
      "code_evidence": "AuthService.login() handles authentication",
      "session_id": "session_20250112_143000",
      "learned_at": "2025-01-12T14:35:00",
      "agreement_file": "login_auth.md",
      "reviewed_by": "tanaka"
    }
  ]
}"#;

/// The Python system's agreement as first specified (no `symbol_normalized`), verbatim.
const PYTHON_AGREEMENT: &str = "---
doc_type: agreement
nl_term: ログイン機能
symbol: AuthService
similarity: 0.85
session_id: session_20250112_143000
learned_at: 2025-01-12T14:35:00
---

# ログイン機能 → AuthService

## 根拠 (Code Evidence)

- `AuthService.login()` がユーザー認証を処理
- `AuthService` は `UserRepository` と連携してDB照合を行う

## 関連ファイル

- `src/auth/service.py:42`
- `src/controllers/login_controller.py:15`

## セッション情報

- Intent: MODIFY
- 成功時の QueryFrame:
  - target_feature: ログイン機能
  - trigger_condition: パスワードが空のとき
  - observed_issue: エラーが出ない
  - desired_action: バリデーション追加
";

/// The Python system's agreement generator output (with `symbol_normalized`).
const PYTHON_AGREEMENT_92: &str = "---
doc_type: agreement
nl_term: 決済処理
symbol: PaymentGateway
symbol_normalized: Payment Gateway
---

# 決済処理 → PaymentGateway

**シンボル（分解）**: Payment Gateway

## 根拠 (Code Evidence)

PaymentGateway.charge() がカード決済を実行
";

#[test]
fn reads_the_python_systems_v1_and_v2_files() {
    let d = state();
    write(d.path(), LEARNED_PAIRS_FILE, PYTHON_V1);
    let v1 = load(d.path()).unwrap().unwrap();
    assert_eq!(v1.version, 1);
    assert_eq!(v1.pairs[0].nl_term, "ログイン");
    assert_eq!(v1.pairs[0].similarity, Some(0.72));
    assert_eq!(v1.pairs[0].agreement_file, None);

    write(d.path(), LEARNED_PAIRS_FILE, PYTHON_V2);
    write(d.path(), "agreements/login_auth.md", PYTHON_AGREEMENT);
    write(d.path(), "agreements/payment.md", PYTHON_AGREEMENT_92);
    let v2 = load(d.path()).unwrap().unwrap();
    assert_eq!(v2.embedding_model.as_deref(), Some(DEFAULT_EMBEDDING_MODEL));
    assert_eq!(v2.pairs[0].extra["reviewed_by"], "tanaka");

    let items = read_map(d.path(), &expiry("2025-01-20T00:00:00Z", 30)).unwrap();
    let shown: Vec<String> = items
        .iter()
        .map(|i| {
            format!(
                "{:?} {:?}→{:?} file={:?} files={:?} expired={} evidence={:?}",
                i.source,
                i.nl_term.as_deref().unwrap_or("-"),
                i.symbol.as_deref().unwrap_or("-"),
                i.agreement_file.as_deref().unwrap_or("-"),
                i.related_files,
                i.expired,
                i.code_evidence.as_deref().unwrap_or("-"),
            )
        })
        .collect();
    expect![[r#"
        [
            "LearnedPair \"ログイン機能\"→\"AuthService\" file=\"login_auth.md\" files=[\"src/auth/service.py:42\", \"src/controllers/login_controller.py:15\"] expired=false evidence=\"AuthService.login() handles authentication\"",
            "Agreement \"決済処理\"→\"PaymentGateway\" file=\"payment.md\" files=[] expired=false evidence=\"PaymentGateway.charge() がカード決済を実行\"",
        ]
    "#]]
    .assert_debug_eq(&shown);
}

#[test]
fn parses_a_python_agreement() {
    let a = parse_agreement("login_auth.md", PYTHON_AGREEMENT);
    assert_eq!(a.doc_type.as_deref(), Some("agreement"));
    assert_eq!(a.nl_term.as_deref(), Some("ログイン機能"));
    assert_eq!(a.symbol.as_deref(), Some("AuthService"));
    assert_eq!(a.similarity, Some(0.85));
    assert_eq!(a.session_id.as_deref(), Some("session_20250112_143000"));
    assert_eq!(a.learned_at.as_deref(), Some("2025-01-12T14:35:00"));
    expect![[r#"
        "`AuthService.login()` がユーザー認証を処理\n`AuthService` は `UserRepository` と連携してDB照合を行う"
    "#]]
    .assert_debug_eq(&a.code_evidence.unwrap());
    assert_eq!(
        a.related_files,
        [
            "src/auth/service.py:42",
            "src/controllers/login_controller.py:15"
        ]
    );
    assert!(
        a.body.starts_with("# ログイン機能 → AuthService"),
        "{}",
        a.body
    );
    // Quoted YAML values and CRLF line ends read the same.
    let crlf = "---\r\nnl_term: \"ログイン機能\"\r\nsymbol: 'AuthService'\r\n---\r\n\r\n# x\r\n";
    let b = parse_agreement("x.md", crlf);
    assert_eq!(b.nl_term.as_deref(), Some("ログイン機能"));
    assert_eq!(b.symbol.as_deref(), Some("AuthService"));
    // No front matter: all body.
    let c = parse_agreement("notes.md", "# Naming\n\nServices end in Service.\n");
    assert_eq!(c.nl_term, None);
    assert!(c.body.contains("Services end in Service."));
}

fn pair(term: &str, symbol: &str) -> NewPair {
    NewPair {
        nl_term: term.into(),
        symbol: symbol.into(),
        similarity: Some(0.8123),
        code_evidence: Some(format!("{symbol} implements {term}")),
        session_id: Some("s1".into()),
        related_files: vec!["src/a.py".into()],
        session: Some(SessionInfo {
            intent: "MODIFY".into(),
            query_frame: vec![("target_feature".into(), term.into())],
        }),
    }
}

#[test]
fn learning_merges_pairs_and_upgrades_a_v1_file() {
    let d = state();
    write(d.path(), LEARNED_PAIRS_FILE, PYTHON_V1);
    let r = learn(
        d.path(),
        &[
            pair("ログイン", "AuthService"),
            pair("password hashing", "hash_password"),
        ],
        &expiry("2025-01-20T00:00:00Z", 30),
        Some(DEFAULT_EMBEDDING_MODEL),
    )
    .unwrap();
    assert_eq!(
        (r.added.len(), r.updated.len(), r.purged.len(), r.total),
        (1, 1, 0, 2)
    );
    assert_eq!(r.updated[0].symbol, "AuthService");
    // Same pair again, spelled differently (case, width, spaces): updated, not duplicated.
    let r = learn(
        d.path(),
        &[pair("  PASSWORD   Hashing ", "hash_password")],
        &expiry("2025-01-21T00:00:00Z", 30),
        None,
    )
    .unwrap();
    assert_eq!((r.added.len(), r.updated.len(), r.total), (0, 1, 2));
    let file = load(d.path()).unwrap().unwrap();
    assert_eq!(file.version, LEARNED_PAIRS_VERSION);
    assert_eq!(file.pairs.len(), 2);
    let p = &file.pairs[1];
    assert_eq!(p.nl_term, "password hashing", "the first spelling stays");
    assert_eq!(p.learned_at.as_deref(), Some("2025-01-21T00:00:00Z"));
    assert_eq!(p.similarity, Some(0.8123));
    let name = p.agreement_file.clone().unwrap();
    assert_eq!(
        name,
        agreement_file_name("password hashing", "hash_password")
    );
    assert!(d.path().join(AGREEMENTS_DIR).join(&name).is_file());
    // The old v1 pair keeps its evidence, gains an agreement and a new learned_at.
    assert_eq!(
        file.pairs[0].code_evidence.as_deref(),
        Some("AuthService implements ログイン")
    );
    assert!(file.pairs[0].agreement_file.is_some());
    // Exactly one agreement per pair.
    assert_eq!(read_agreements(d.path()).unwrap().len(), 2);
    assert_eq!(
        read_map(d.path(), &expiry("2025-01-21T00:00:00Z", 30))
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn a_python_agreement_file_keeps_its_name_and_unknown_keys_survive() {
    let d = state();
    write(d.path(), LEARNED_PAIRS_FILE, PYTHON_V2);
    write(d.path(), "agreements/login_auth.md", PYTHON_AGREEMENT);
    let mut p = pair("ログイン機能", "AuthService");
    p.related_files.clear();
    p.session = None;
    learn(d.path(), &[p], &expiry("2025-01-20T00:00:00Z", 30), None).unwrap();
    let file = load(d.path()).unwrap().unwrap();
    assert_eq!(file.pairs.len(), 1);
    assert_eq!(
        file.pairs[0].agreement_file.as_deref(),
        Some("login_auth.md")
    );
    assert_eq!(file.pairs[0].extra["reviewed_by"], "tanaka");
    assert_eq!(
        read_agreements(d.path()).unwrap().len(),
        1,
        "no second file"
    );
    let text = std::fs::read_to_string(d.path().join("agreements/login_auth.md")).unwrap();
    // Related files and the session section of the old file are kept when none are given.
    assert!(text.contains("- `src/auth/service.py:42`"), "{text}");
    assert!(
        text.contains("trigger_condition: パスワードが空のとき"),
        "{text}"
    );
    assert!(
        text.contains("- AuthService implements ログイン機能"),
        "{text}"
    );
}

#[test]
fn a_broken_file_is_never_overwritten() {
    let d = state();
    let broken = "{\"version\": 2, \"pairs\": [ {\"nl_term\": \"x\", ";
    write(d.path(), LEARNED_PAIRS_FILE, broken);
    let e = learn(
        d.path(),
        &[pair("login", "LoginService")],
        &expiry("2025-01-20T00:00:00Z", 30),
        None,
    )
    .unwrap_err();
    let msg = e.to_string();
    assert!(
        matches!(e, LearnError::Existing(LearnedPairsError::Parse { .. })),
        "{e:?}"
    );
    assert!(msg.contains("left untouched"), "{msg}");
    assert!(msg.contains("run `code-intel repair`"), "{msg}");
    assert_eq!(
        std::fs::read_to_string(d.path().join(LEARNED_PAIRS_FILE)).unwrap(),
        broken
    );
    assert!(
        !d.path().join(AGREEMENTS_DIR).exists(),
        "no agreement written"
    );

    write(
        d.path(),
        LEARNED_PAIRS_FILE,
        r#"{"version": 3, "pairs": []}"#,
    );
    let e = learn(
        d.path(),
        &[pair("a", "B")],
        &expiry("2025-01-20T00:00:00Z", 30),
        None,
    )
    .unwrap_err();
    assert!(e.to_string().contains("version 3"), "{e}");

    let e = learn(
        d.path(),
        &[pair(" ", "B")],
        &expiry("2025-01-20T00:00:00Z", 30),
        None,
    )
    .unwrap_err();
    assert!(matches!(e, LearnError::Empty { field: "nl_term" }), "{e:?}");
}

#[test]
fn expired_pairs_are_purged_on_write_and_marked_on_read() {
    let d = state();
    write(d.path(), LEARNED_PAIRS_FILE, PYTHON_V2);
    write(d.path(), "agreements/login_auth.md", PYTHON_AGREEMENT);
    write(d.path(), "agreements/payment.md", PYTHON_AGREEMENT_92);
    // 2025-01-12T14:35 + 30 days < 2025-03-01.
    let later = expiry("2025-03-01T00:00:00Z", 30);
    let items = read_map(d.path(), &later).unwrap();
    assert!(items[0].expired, "the pair learned 2025-01-12 expired");
    assert!(
        !items[1].expired,
        "an agreement without learned_at never expires"
    );
    assert!(!read_map(d.path(), &expiry("2025-03-01T00:00:00Z", 0)).unwrap()[0].expired);

    let r = learn(
        d.path(),
        &[pair("決済処理", "PaymentGateway")],
        &later,
        None,
    )
    .unwrap();
    assert_eq!(r.purged.len(), 1);
    assert_eq!(r.purged[0].symbol, "AuthService");
    let file = load(d.path()).unwrap().unwrap();
    assert_eq!(file.pairs.len(), 1);
    assert_eq!(file.pairs[0].symbol, "PaymentGateway");
    assert!(!d.path().join("agreements/login_auth.md").exists());
    // The generator's agreement restated the new pair: adopted, not duplicated.
    assert_eq!(file.pairs[0].agreement_file.as_deref(), Some("payment.md"));
    assert_eq!(read_agreements(d.path()).unwrap().len(), 1);
    let items = read_map(d.path(), &later).unwrap();
    assert_eq!(items.len(), 1, "{items:?}");
}

#[test]
fn learned_at_reads_rfc3339_and_pythons_naive_iso() {
    for (text, want) in [
        ("2025-01-12T14:35:00Z", "2025-01-12T14:35:00Z"),
        ("2025-01-12T14:35:00+09:00", "2025-01-12T05:35:00Z"),
        ("2025-01-12T14:35:00", "2025-01-12T14:35:00Z"),
        ("2025-01-12T14:35:00.123456", "2025-01-12T14:35:00.123456Z"),
        ("2025-01-12", "2025-01-12T00:00:00Z"),
    ] {
        assert_eq!(parse_learned_at(text), Some(at(want)), "{text}");
    }
    assert_eq!(parse_learned_at("last tuesday"), None);
    let e = expiry("2025-02-11T14:35:01Z", 30);
    assert!(e.is_expired(Some("2025-01-12T14:35:00")));
    assert!(!e.is_expired(Some("2025-01-12T14:35:02")));
    assert!(
        !e.is_expired(Some("garbage")),
        "unreadable dates never expire"
    );
    assert!(!e.is_expired(None));
}

#[test]
fn agreement_names_are_stable_safe_and_distinct() {
    let a = agreement_file_name("ログイン機能", "AuthService");
    assert!(
        a.starts_with("ログイン機能_AuthService-") && a.ends_with(".md"),
        "{a}"
    );
    assert_eq!(a, agreement_file_name(" ログイン機能 ", "AuthService"));
    assert_eq!(
        agreement_file_name("Password Hashing", "hash"),
        agreement_file_name("password  hashing", "hash")
    );
    // Case-different symbols collide on case-insensitive file systems without the hash.
    assert_ne!(
        agreement_file_name("x", "Foo").to_lowercase(),
        agreement_file_name("x", "foo").to_lowercase()
    );
    let odd = agreement_file_name("../../etc/passwd\n", "App\\Http\\UserController::store");
    assert!(!odd.contains(['/', '\\', '\n', ':']), "{odd}");
    assert!(
        odd.starts_with("etc-passwd_App-Http-UserController-store-"),
        "{odd}"
    );
    let empty = agreement_file_name("!!!", "???");
    assert!(empty.starts_with("term_symbol-"), "{empty}");
    let long = agreement_file_name(&"長".repeat(300), &"A".repeat(300));
    assert!(long.len() < 255, "{} bytes", long.len());
}

#[test]
fn split_camel_case_matches_the_python_helper() {
    for (input, want) in [
        ("AuthService", "Auth Service"),
        ("HTTPServer", "HTTP Server"),
        ("getUserName", "get User Name"),
        ("hash_password", "hash password"),
        ("AuthService.login", "Auth Service login"),
        (
            "App\\Http\\UserController::store",
            "App Http User Controller store",
        ),
        ("utf8Decode", "utf8 Decode"),
    ] {
        assert_eq!(split_camel_case(input), want, "{input}");
    }
}

#[test]
fn renders_seed_004s_agreement() {
    let p = LearnedPair {
        nl_term: "ログイン機能".into(),
        symbol: "AuthService".into(),
        similarity: Some(0.85),
        code_evidence: Some("AuthService.login() がユーザー認証を処理\n- 二行目".into()),
        session_id: Some("20250112-143000-abcdef".into()),
        learned_at: Some("2025-01-12T14:35:00Z".into()),
        agreement_file: None,
        extra: BTreeMap::new(),
    };
    let info = SessionInfo {
        intent: "MODIFY".into(),
        query_frame: vec![
            ("target_feature".into(), "ログイン機能".into()),
            ("trigger_condition".into(), "パスワードが空のとき".into()),
        ],
    };
    let text = render_agreement(&AgreementDoc {
        pair: &p,
        related_files: &["src/auth/service.py".to_string()],
        session: Some(&info),
        kept_sections: &[("メモ".into(), "\n人が書いた注意\n".into())],
    });
    expect![[r#"
        ---
        doc_type: agreement
        nl_term: ログイン機能
        symbol: AuthService
        symbol_normalized: Auth Service
        similarity: 0.8500
        session_id: 20250112-143000-abcdef
        learned_at: 2025-01-12T14:35:00Z
        ---

        # ログイン機能 → AuthService

        **シンボル（分解）**: Auth Service

        ## 根拠 (Code Evidence)

        - AuthService.login() がユーザー認証を処理
        - 二行目

        ## 関連ファイル

        - `src/auth/service.py`

        ## セッション情報

        - Intent: MODIFY
        - 成功時の QueryFrame:
          - target_feature: ログイン機能
          - trigger_condition: パスワードが空のとき

        ## メモ

        人が書いた注意
    "#]]
    .assert_eq(&text);
    // It parses back.
    let a = parse_agreement("x.md", &text);
    assert_eq!(a.nl_term.as_deref(), Some("ログイン機能"));
    assert_eq!(a.related_files, ["src/auth/service.py"]);
    assert_eq!(
        a.code_evidence.as_deref(),
        Some("AuthService.login() がユーザー認証を処理\n二行目")
    );
}

#[test]
fn relearning_keeps_sections_a_person_added_and_never_clobbers_a_foreign_file() {
    let d = state();
    let e = expiry("2025-01-20T00:00:00Z", 30);
    learn(d.path(), &[pair("login", "LoginService")], &e, None).unwrap();
    let name = agreement_file_name("login", "LoginService");
    let path = d.path().join(AGREEMENTS_DIR).join(&name);
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("\n## 注意 (Notes)\n\nDo not touch the legacy branch.\n");
    std::fs::write(&path, &text).unwrap();
    learn(d.path(), &[pair("login", "LoginService")], &e, None).unwrap();
    let again = std::fs::read_to_string(&path).unwrap();
    assert!(
        again.contains("## 注意 (Notes)\n\nDo not touch the legacy branch."),
        "{again}"
    );
    assert_eq!(again.matches("## 根拠").count(), 1, "{again}");

    // A file of the generated name that is about something else is left alone.
    let foreign = agreement_file_name("logout", "LogoutService");
    write(
        d.path(),
        &format!("{AGREEMENTS_DIR}/{foreign}"),
        "# My own notes\n",
    );
    learn(d.path(), &[pair("logout", "LogoutService")], &e, None).unwrap();
    assert_eq!(
        std::fs::read_to_string(d.path().join(AGREEMENTS_DIR).join(&foreign)).unwrap(),
        "# My own notes\n"
    );
    let file = load(d.path()).unwrap().unwrap();
    let used = file.pairs[1].agreement_file.clone().unwrap();
    assert_eq!(used, format!("{}-1.md", foreign.trim_end_matches(".md")));
}

#[test]
fn concurrent_learners_lose_no_pair() {
    let d = state();
    let e = expiry("2025-01-20T00:00:00Z", 30);
    std::thread::scope(|s| {
        for t in 0..4 {
            let (dir, e) = (d.path(), &e);
            s.spawn(move || {
                for i in 0..10 {
                    learn(
                        dir,
                        &[pair(&format!("term {t} {i}"), &format!("Sym{t}x{i}"))],
                        e,
                        None,
                    )
                    .unwrap();
                    // And one pair every thread learns: it must stay one pair.
                    learn(dir, &[pair("shared", "Shared")], e, None).unwrap();
                }
            });
        }
    });
    let file = load(d.path()).unwrap().unwrap();
    assert_eq!(file.pairs.len(), 41);
    assert_eq!(read_agreements(d.path()).unwrap().len(), 41);
}
