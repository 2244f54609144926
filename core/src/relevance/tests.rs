//! The calibrated scorer and the semantic quote checker over the deterministic fake embedder
//! (the model-free verdict logic is tested in code-intel-session's `relevance` tests).

use super::*;
use crate::embed::{Embedder as _, FakeEmbedder};
use code_intel_session::query_frame::{QueryFrameInput, QuoteChecker, SlotInput};
use code_intel_session::relevance::{RelevanceError, RelevanceScorer as _};
use code_intel_session::session::SessionState;
use code_intel_session::vocab::Intent;
use code_intel_session::vocab::Tier;

fn fake() -> FakeEmbedder {
    FakeEmbedder::new(256)
}

#[test]
fn symbol_text_drops_php_namespaces_and_splits_identifiers() {
    assert_eq!(
        symbol_text(r"App\Http\Controllers\UserController::store"),
        "user controller store"
    );
    assert_eq!(
        symbol_text("AuthSvc.getUserCtx"),
        "authentication service get user context"
    );
    assert_eq!(symbol_text("  "), "");
}

#[test]
fn the_background_sample_is_deterministic_distinct_and_order_free() {
    let names = ["b_func", "a_func", "AFunc", "c_func", "", "d_func"];
    let s1 = Background::sample(names.iter().copied(), 3);
    let mut rev = names;
    rev.reverse();
    let s2 = Background::sample(rev.iter().copied(), 3);
    assert_eq!(s1, s2);
    assert_eq!(s1.len(), 3);
    // `a_func` and `AFunc` have the same text: one entry.
    let all = Background::sample(names.iter().copied(), 100);
    assert_eq!(all.len(), 4, "{all:?}");
}

#[test]
fn small_repositories_are_topped_up_with_generic_symbols() {
    let e = fake();
    let bg = Background::from_symbols(&e, ["login_user", "logout_user"], 200).unwrap();
    assert_eq!(
        bg.source(),
        &BackgroundSource::RepositoryAndBuiltin {
            distinct_symbols: 2
        }
    );
    assert!(bg.len() > 100, "{}", bg.len());
    let many: Vec<String> = (0..80).map(|i| format!("symbol_{i}")).collect();
    let bg = Background::from_symbols(&e, many.iter().map(String::as_str), 50).unwrap();
    assert_eq!(
        bg.source(),
        &BackgroundSource::Repository {
            distinct_symbols: 80
        }
    );
    assert_eq!(bg.len(), 50);
    assert_eq!(bg.model_id(), e.model_id());
}

#[test]
fn the_calibrated_scorer_separates_shared_words_from_unrelated_names() {
    let e = fake();
    let bg = Background::builtin(&e).unwrap();
    assert_eq!(bg.source(), &BackgroundSource::Builtin);
    let scorer = CalibratedScorer::new(&e, &bg);
    let v = scorer
        .score(
            "password reset",
            &["PasswordResetController", "drawPolygon"],
        )
        .unwrap();
    assert_eq!(v[0].tier, Tier::Fact, "{}", v[0].explanation);
    assert_eq!(v[1].tier, Tier::Rejected, "{}", v[1].explanation);
    assert!(v[0].calibrated > v[1].calibrated);
    assert!(v[0].percentile > 0.95);
    assert!(
        v[0].explanation.contains("generic background symbols"),
        "{}",
        v[0].explanation
    );
    assert!(scorer.score("x", &[]).unwrap().is_empty());

    // A background from another model is refused, not silently mixed.
    let other = FakeEmbedder::new(64);
    let err = CalibratedScorer::new(&other, &bg)
        .score("x", &["y"])
        .unwrap_err();
    assert!(matches!(err, RelevanceError::ModelMismatch { .. }), "{err}");
}

#[test]
fn request_windows_cover_the_request_its_clauses_and_clause_pairs() {
    let w = request_windows("ログイン画面で、パスワードが空のとき。Fix it!");
    assert_eq!(
        w,
        [
            "ログイン画面で、パスワードが空のとき。Fix it!",
            "ログイン画面で",
            "パスワードが空のとき",
            "Fix it",
            "ログイン画面で パスワードが空のとき",
            "パスワードが空のとき Fix it",
        ]
    );
    assert!(request_windows("   ").is_empty());
}

#[test]
fn the_quote_checker_accepts_values_the_request_supports_and_rejects_others() {
    let e = fake();
    let phrases = PhraseBackground::builtin(&e).unwrap();
    assert_eq!(phrases.len(), REQUEST_PHRASES.len());
    let checker = SemanticQuoteChecker::new(&e, &phrases);
    let query = "The checkout page crashes when the shopping cart is empty";
    let good = checker
        .consistency(
            "shopping cart checkout",
            "checkout crashes with an empty cart",
            query,
        )
        .unwrap();
    assert_eq!(good.tier, Tier::Fact, "{good:?}");
    assert!(good.calibrated <= good.value.calibrated.min(good.quote.calibrated) + 1e-6);
    let bad = checker
        .consistency("avatar upload", "picture fails", query)
        .unwrap();
    assert_eq!(bad.tier, Tier::Rejected, "{bad:?}");
    // Both must be grounded: a matching value does not carry an off-topic quote.
    let mixed = checker
        .consistency(
            "shopping cart checkout",
            "avatar picture upload fails",
            query,
        )
        .unwrap();
    assert_ne!(mixed.tier, Tier::Fact, "{mixed:?}");
    assert!(checker.semantically_consistent(
        "shopping cart checkout",
        "checkout crashes with an empty cart",
        query
    ));
    assert!(!checker.semantically_consistent("avatar upload", "picture fails", query));

    // Through set_query_frame: the literal check fails, the semantic one decides.
    let mut s = SessionState::new("q".parse().unwrap(), Intent::Modify, query.into(), None);
    let r = s.set_query_frame(
        &QueryFrameInput {
            target_feature: Some(SlotInput {
                value: "shopping cart checkout".into(),
                quote: "checkout crashes with an empty cart".into(),
            }),
            observed_issue: Some(SlotInput {
                value: "avatar upload".into(),
                quote: "picture fails".into(),
            }),
            ..Default::default()
        },
        &checker,
    );
    assert_eq!(
        r.accepted_slots,
        [code_intel_session::vocab::Slot::TargetFeature]
    );
    assert_eq!(r.validation_errors.len(), 1);
    assert_eq!(
        s.query_frame.slots[&code_intel_session::vocab::Slot::TargetFeature].matched,
        code_intel_session::query_frame::QuoteMatch::Semantic
    );
}
