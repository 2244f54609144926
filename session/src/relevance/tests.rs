//! Relevance logic with scripted scorers (tiers, mapped symbols, risk, mandatory evidence, the
//! submit_understanding check, validation prompts and learned pairs) and, with the `embed`
//! feature, the calibrated scorer and quote checker over the deterministic fake embedder.

use std::collections::BTreeMap;

use super::*;
use crate::query_frame::{LiteralOnly, QueryFrameInput, SlotInput};
use crate::repo_path::RepoRoot;
use crate::session::store::SessionStore;
use crate::session::{
    SessionState, ToolCallRecord, Understanding, check_tool, confirm_symbol_relevance,
};
use crate::vocab::Intent;
use crate::vocab::Phase;
use crate::vocab::SlotSource;

/// A scorer that answers a fixed z per symbol (unknown symbols: z = 0).
struct Scripted(BTreeMap<&'static str, f32>);

impl Scripted {
    fn new(pairs: &[(&'static str, f32)]) -> Self {
        Self(pairs.iter().copied().collect())
    }
}

impl RelevanceScorer for Scripted {
    fn score(&self, _term: &str, symbols: &[&str]) -> Result<Vec<CalibratedScore>, RelevanceError> {
        Ok(symbols
            .iter()
            .map(|s| {
                let z = self.0.get(s).copied().unwrap_or(0.0);
                CalibratedScore {
                    symbol: s.to_string(),
                    tier: Thresholds::SYMBOLS.tier(z),
                    cosine: 0.8 + z / 100.0,
                    calibrated: z,
                    percentile: 0.5,
                    explanation: format!("scripted z {z}"),
                }
            })
            .collect())
    }
}

/// A scorer whose model is broken.
struct Broken;

impl RelevanceScorer for Broken {
    fn score(&self, _: &str, _: &[&str]) -> Result<Vec<CalibratedScore>, RelevanceError> {
        Err(RelevanceError::Embedding {
            source: "onnx runtime exploded".into(),
        })
    }
}

struct Repo {
    dir: tempfile::TempDir,
    root: RepoRoot,
}

fn repo() -> Repo {
    let dir = tempfile::tempdir().unwrap();
    for (p, body) in [
        (
            "app/Http/LoginController.php",
            "<?php class LoginController {}",
        ),
        ("app/Services/AuthService.php", "<?php class AuthService {}"),
        ("app/Config/ConfigLoader.php", "<?php class ConfigLoader {}"),
    ] {
        let path = dir.path().join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, body).unwrap();
    }
    let root = RepoRoot::new(dir.path()).unwrap();
    Repo { dir, root }
}

const QUERY: &str =
    "ログイン機能でパスワードが空のときエラーが出ない。Add a check in the login form";

/// A MODIFY session with all four slots set (risk LOW) and the required tools called.
fn session() -> SessionState {
    let mut s = SessionState::new("s1".parse().unwrap(), Intent::Modify, QUERY.into(), None);
    let slot = |v: &str, q: &str| {
        Some(SlotInput {
            value: v.into(),
            quote: q.into(),
        })
    };
    let r = s.set_query_frame(
        &QueryFrameInput {
            target_feature: slot("ログイン機能", "ログイン機能"),
            trigger_condition: slot("empty password", "パスワードが空のとき"),
            observed_issue: slot("no error", "エラーが出ない"),
            desired_action: slot("add a check", "Add a check"),
        },
        &LiteralOnly,
    );
    assert!(r.success, "{r:?}");
    assert_eq!(s.risk_level(), RiskLevel::Low);
    for tool in ["find_definitions", "find_references"] {
        s.record_tool_call(ToolCallRecord {
            tool: tool.into(),
            params: serde_json::json!({}),
            files: vec![],
            result_summary: String::new(),
            phase: Phase::Exploration,
            timestamp: Default::default(),
        });
    }
    s
}

fn claim(symbol: &str, evidence: &str) -> SymbolClaim {
    SymbolClaim {
        symbol: symbol.into(),
        code_evidence: evidence.into(),
    }
}

fn understanding(symbols: &[&str]) -> Understanding {
    Understanding {
        symbols_identified: symbols.iter().map(|s| s.to_string()).collect(),
        entry_points: vec!["LoginController::store".into()],
        files_analyzed: vec![
            "app/Http/LoginController.php".into(),
            "app/Services/AuthService.php".into(),
        ],
        existing_patterns: vec!["controller validation".into()],
        ..Default::default()
    }
}

#[test]
fn thresholds_split_the_calibrated_score_into_three_tiers() {
    let t = Thresholds::SYMBOLS;
    assert_eq!(t.tier(5.0), Tier::Fact);
    assert_eq!(t.tier(2.0), Tier::Fact);
    assert_eq!(t.tier(1.99), Tier::FactHighRisk);
    assert_eq!(t.tier(1.0), Tier::FactHighRisk);
    assert_eq!(t.tier(0.99), Tier::Rejected);
    assert_eq!(t.tier(-3.0), Tier::Rejected);
    assert_eq!(t.tier(f32::NAN), Tier::Rejected);
    assert!(Tier::Rejected < Tier::FactHighRisk && Tier::FactHighRisk < Tier::Fact);
    assert_eq!(
        serde_json::to_value([Tier::Fact, Tier::FactHighRisk, Tier::Rejected]).unwrap(),
        serde_json::json!(["FACT", "FACT_HIGH_RISK", "REJECTED"])
    );
}

#[test]
fn confirm_maps_fact_symbols_removes_rejected_ones_and_raises_risk_in_the_grey_zone() {
    let mut s = session();
    // ConfigLoader was mapped earlier (e.g. by submit_understanding); the verdict removes it.
    s.query_frame.mapped_symbols.push(MappedSymbol {
        symbol: "ConfigLoader".into(),
        source: SlotSource::Fact,
        nl_term: None,
        confirmation: None,
    });
    let scorer = Scripted::new(&[
        ("AuthService", 3.1),
        ("LoginController", 1.4),
        ("ConfigLoader", 0.2),
    ]);
    let input = ConfirmInput {
        nl_term: None,
        claims: vec![
            claim("AuthService", "AuthService::login() checks the password"),
            claim(
                "LoginController",
                "LoginController::store calls AuthService",
            ),
            claim("ConfigLoader", "it is loaded at boot"),
        ],
    };
    let r = confirm_symbol_relevance(&mut s, &input, &scorer, &Thresholds::SYMBOLS);
    assert!(r.success, "{r:?}");
    assert_eq!(
        r.nl_term, "ログイン機能",
        "defaults to the target_feature value"
    );
    let tiers: Vec<(&str, Tier, bool)> = r
        .results
        .iter()
        .map(|v| (v.symbol.as_str(), v.tier, v.approved))
        .collect();
    assert_eq!(
        tiers,
        [
            ("AuthService", Tier::Fact, true),
            ("LoginController", Tier::FactHighRisk, true),
            ("ConfigLoader", Tier::Rejected, false),
        ]
    );
    // The verdict shapes (docs/DESIGN.md#relevance-tools): grey zone → risk_adjustment HIGH +
    // warning; rejected → guidance.
    assert_eq!(r.results[0].risk_adjustment, None);
    assert_eq!(r.results[1].risk_adjustment, Some(RiskLevel::High));
    assert!(
        r.results[1]
            .warning
            .as_deref()
            .unwrap()
            .contains("grey zone")
    );
    assert_eq!(r.results[2].source, VerdictSource::Rejected);
    let g = r.results[2].reinvestigation_guidance.as_ref().unwrap();
    assert!(
        g.reason.contains("'ログイン機能' and 'ConfigLoader'"),
        "{}",
        g.reason
    );
    assert!(
        g.next_actions
            .iter()
            .any(|a| a.contains("find_references('ConfigLoader')"))
    );
    assert!(r.results[0].reinvestigation_guidance.is_none());

    assert_eq!(r.risk_level, RiskLevel::High);
    assert_eq!(s.risk_level(), RiskLevel::High);
    let mapped: Vec<(&str, Option<&str>)> = s
        .query_frame
        .mapped_symbols
        .iter()
        .map(|m| (m.symbol.as_str(), m.nl_term.as_deref()))
        .collect();
    assert_eq!(
        mapped,
        [
            ("AuthService", Some("ログイン機能")),
            ("LoginController", Some("ログイン機能"))
        ]
    );
    let c = s.query_frame.mapped_symbols[0]
        .confirmation
        .as_ref()
        .unwrap();
    assert_eq!(c.code_evidence, "AuthService::login() checks the password");
    assert_eq!(c.tier, Tier::Fact);
    assert!((c.calibrated - 3.1).abs() < 1e-6);
    assert_eq!(r.mapped_symbols, s.query_frame.mapped_symbols);
    assert!(
        r.next_action.contains("1 symbol(s) rejected"),
        "{}",
        r.next_action
    );
}

#[test]
fn confirm_with_only_fact_verdicts_leaves_the_risk_alone() {
    let mut s = session();
    let r = confirm_symbol_relevance(
        &mut s,
        &ConfirmInput {
            nl_term: Some("login".into()),
            claims: vec![claim("AuthService", "AuthService::login")],
        },
        &Scripted::new(&[("AuthService", 2.5)]),
        &Thresholds::SYMBOLS,
    );
    assert!(r.success);
    assert_eq!(
        r.nl_term, "login",
        "an explicit nl_term wins over target_feature"
    );
    assert_eq!(s.risk_floor, RiskLevel::Low);
    assert_eq!(s.risk_level(), RiskLevel::Low);
}

#[test]
fn code_evidence_is_mandatory_for_every_symbol_and_a_refusal_changes_nothing() {
    let mut s = session();
    let before = s.clone();
    let scorer = Scripted::new(&[("AuthService", 3.0), ("LoginController", 1.5)]);
    let r = confirm_symbol_relevance(
        &mut s,
        &ConfirmInput {
            nl_term: None,
            claims: vec![
                claim("AuthService", "login()"),
                claim("LoginController", "  "),
            ],
        },
        &scorer,
        &Thresholds::SYMBOLS,
    );
    assert!(!r.success);
    assert_eq!(r.error.as_deref(), Some("validation_failed"));
    assert_eq!(r.errors.len(), 1, "{:?}", r.errors);
    assert!(r.errors[0].contains("code_evidence for 'LoginController' is missing"));
    assert!(r.results.is_empty());
    assert_eq!(
        s, before,
        "a refused confirmation must not touch the session"
    );

    for (input, expect) in [
        (
            ConfirmInput {
                nl_term: None,
                claims: vec![],
            },
            "relevant_symbols is empty",
        ),
        (
            ConfirmInput {
                nl_term: None,
                claims: vec![claim("A", "x"), claim("A", "y")],
            },
            "'A' is listed twice",
        ),
        (
            ConfirmInput {
                nl_term: None,
                claims: vec![claim(" ", "x")],
            },
            "empty symbol",
        ),
    ] {
        let r = confirm_symbol_relevance(&mut s, &input, &scorer, &Thresholds::SYMBOLS);
        assert!(!r.success);
        assert!(
            r.errors.iter().any(|e| e.contains(expect)),
            "{:?}",
            r.errors
        );
    }
    assert_eq!(s, before);
}

#[test]
fn confirm_needs_a_term_and_reports_scoring_failures_without_changes() {
    let mut s = SessionState::new("s2".parse().unwrap(), Intent::Modify, QUERY.into(), None);
    let before = s.clone();
    let input = ConfirmInput {
        nl_term: None,
        claims: vec![claim("AuthService", "login()")],
    };
    let r = confirm_symbol_relevance(&mut s, &input, &Scripted::new(&[]), &Thresholds::SYMBOLS);
    assert!(!r.success);
    assert!(r.errors[0].contains("no nl_term given"), "{:?}", r.errors);

    let mut s = session();
    let before_broken = s.clone();
    let r = confirm_symbol_relevance(&mut s, &input, &Broken, &Thresholds::SYMBOLS);
    assert!(!r.success);
    assert_eq!(r.error.as_deref(), Some("scoring_failed"));
    assert!(r.errors[0].contains("onnx runtime exploded"));
    assert_eq!(s, before_broken);
    assert_eq!(before.risk_floor, RiskLevel::Low);
}

#[test]
fn submit_understanding_scored_with_a_fact_symbol_behaves_as_before_and_reports_scores() {
    let repo = repo();
    let mut plain = session();
    let mut scored = session();
    let symbols = ["LoginController", "AuthService", "ConfigLoader"];
    let p = plain.submit_understanding(&repo.root, understanding(&symbols));
    let r = scored.submit_understanding_scored(
        &repo.root,
        understanding(&symbols),
        &Scripted::new(&[("AuthService", 4.0), ("LoginController", 1.2)]),
    );
    assert_eq!(p.next_phase, Phase::Ready);
    assert_eq!(r.result.next_phase, Phase::Ready);
    assert_eq!(r.result.risk_level, RiskLevel::Low);
    let check = r.relevance.as_ref().unwrap();
    assert_eq!(check.nl_term, "ログイン機能");
    assert_eq!(check.best, Some(Tier::Fact));
    assert!(!check.risk_raised);
    let tiers: Vec<Tier> = check.verdicts.iter().map(|v| v.tier).collect();
    assert_eq!(tiers, [Tier::FactHighRisk, Tier::Fact, Tier::Rejected]);
    // Flattened on the wire: the usual fields plus `relevance`.
    let wire = serde_json::to_value(&r).unwrap();
    assert_eq!(wire["next_phase"], "READY");
    assert_eq!(wire["relevance"]["verdicts"][1]["tier"], "FACT");
}

#[test]
fn submit_understanding_scored_raises_risk_when_the_best_symbol_is_in_the_grey_zone() {
    let repo = repo();
    let mut s = session();
    let r = s.submit_understanding_scored(
        &repo.root,
        understanding(&["LoginController", "AuthService", "ConfigLoader"]),
        &Scripted::new(&[("AuthService", 1.5)]),
    );
    assert!(r.relevance.as_ref().unwrap().risk_raised);
    assert_eq!(r.result.risk_level, RiskLevel::High);
    assert_eq!(s.risk_level(), RiskLevel::High);
    // HIGH risk asks for slot evidence and more symbols/files: not READY.
    assert_ne!(r.result.next_phase, Phase::Ready);
    assert!(
        r.result
            .missing_requirements
            .iter()
            .any(|m| m.requirement.name() == "slot_evidence"),
        "{:?}",
        r.result.missing_requirements
    );
    assert!(
        !r.result
            .missing_requirements
            .iter()
            .any(|m| m.requirement.name() == "nl_symbol_mapping")
    );
}

#[test]
fn submit_understanding_scored_without_any_matching_symbol_adds_nl_symbol_mapping() {
    let repo = repo();
    // INVESTIGATE: the counts are met with one symbol and one file, so only the mapping is short.
    let mut s = SessionState::new(
        "s3".parse().unwrap(),
        Intent::Investigate,
        QUERY.into(),
        None,
    );
    s.set_query_frame(
        &QueryFrameInput {
            target_feature: Some(SlotInput {
                value: "ログイン機能".into(),
                quote: "ログイン機能".into(),
            }),
            ..Default::default()
        },
        &LiteralOnly,
    );
    let input = Understanding {
        symbols_identified: vec!["DatabaseHelper".into(), "ConfigLoader".into()],
        files_analyzed: vec!["app/Config/ConfigLoader.php".into()],
        ..Default::default()
    };
    let r =
        s.submit_understanding_scored(&repo.root, input, &Scripted::new(&[("ConfigLoader", 0.4)]));
    assert_eq!(r.result.next_phase, Phase::Semantic);
    assert_eq!(s.phase, Phase::Semantic);
    assert_eq!(r.result.risk_level, RiskLevel::High);
    let m = r
        .result
        .missing_requirements
        .iter()
        .find(|m| m.requirement.name() == "nl_symbol_mapping")
        .expect("nl_symbol_mapping requirement");
    assert!(
        m.message.starts_with(
            "nl_symbol_mapping: 'ログイン機能' has no matching symbol in ['DatabaseHelper', 'ConfigLoader']"
        ),
        "{}",
        m.message
    );
    assert!(!r.result.allowed_semantic_reasons.is_empty());
    assert_eq!(s.missing_requirements, r.result.missing_requirements);

    // SEMANTIC for an unmapped target feature takes the symbol reasons only (it used to take any).
    let hyp = vec![crate::session::HypothesisInput {
        text: "the login feature lives in AuthService".into(),
        slot: None,
        value: None,
        symbol: Some("AuthService".into()),
    }];
    let offered = r.result.allowed_semantic_reasons.clone();
    assert!(!offered.contains(&crate::session::requirements::SemanticReason::ContextFragmented));
    let refused = s.submit_semantic(
        hyp.clone(),
        crate::session::requirements::SemanticReason::ContextFragmented,
    );
    assert!(
        !refused.success
            && refused
                .error
                .as_deref()
                .is_some_and(|e| e.contains("allowed")),
        "{refused:?}"
    );
    assert_eq!(s.phase, Phase::Semantic);
    let accepted = s.submit_semantic(hyp, offered[0]);
    assert!(accepted.success, "{accepted:?}");
    assert_eq!(s.phase, Phase::Verification);
}

#[test]
fn submit_understanding_scored_leaves_invalid_input_and_broken_models_alone() {
    let repo = repo();
    let mut s = session();
    let before = s.clone();
    let mut bad = understanding(&["LoginController"]);
    bad.files_analyzed = vec!["does/not/exist.php".into()];
    let r = s.submit_understanding_scored(&repo.root, bad, &Scripted::new(&[]));
    assert!(!r.result.success);
    assert!(!r.relevance.as_ref().unwrap().risk_raised);
    assert_eq!(
        s, before,
        "invalid input changes nothing, the risk included"
    );

    let r = s.submit_understanding_scored(
        &repo.root,
        understanding(&["LoginController", "AuthService", "ConfigLoader"]),
        &Broken,
    );
    assert_eq!(
        r.result.next_phase,
        Phase::Ready,
        "a broken model behaves as no model"
    );
    let check = r.relevance.unwrap();
    assert!(check.error.unwrap().contains("onnx runtime exploded"));
    assert_eq!(check.best, None);
    assert_eq!(s.risk_level(), RiskLevel::Low);
    let _ = &repo.dir;
}

#[test]
fn confirm_is_allowed_in_exploration_and_verification_only() {
    assert!(check_tool(Phase::Exploration, "confirm_symbol_relevance", None).is_ok());
    assert!(check_tool(Phase::Verification, "confirm_symbol_relevance", None).is_ok());
    for p in [Phase::Semantic, Phase::Ready] {
        let v = check_tool(p, "confirm_symbol_relevance", None).unwrap_err();
        assert!(
            v.message.contains("allowed in EXPLORATION, VERIFICATION"),
            "{}",
            v.message
        );
    }
}

#[test]
fn the_store_applies_confirmations_under_the_phase_matrix() {
    let repo = repo();
    let store = SessionStore::new(repo.root.clone());
    let started = store.start(Intent::Modify, QUERY, None).unwrap();
    let id = started.session_id;
    let input = ConfirmInput {
        nl_term: Some("login".into()),
        claims: vec![claim("AuthService", "AuthService::login()")],
    };
    let scorer = Scripted::new(&[("AuthService", 1.2)]);
    let r = store
        .confirm_symbol_relevance(&id, &input, &scorer, &Thresholds::SYMBOLS)
        .unwrap();
    assert!(r.success);
    let state = store.load(&id).unwrap();
    assert_eq!(state.risk_floor, RiskLevel::High);
    assert_eq!(state.query_frame.mapped_symbols[0].symbol, "AuthService");

    // Move to SEMANTIC: confirmation is refused there.
    store.update(&id, |s| s.phase = Phase::Semantic).unwrap();
    let refused = store.confirm_symbol_relevance(&id, &input, &scorer, &Thresholds::SYMBOLS);
    assert!(refused.is_err_and(|e| e.phase_violation().is_some()));
}

fn write_learned(repo: &Repo, body: &str) {
    let dir = repo.root.state_dir();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(crate::state_dir::LEARNED_PAIRS_FILE), body).unwrap();
}

#[test]
fn validation_returns_the_evidence_prompt_ranked_suggestions_and_learned_pairs() {
    let repo = repo();
    write_learned(
        &repo,
        r#"{
          "version": 2,
          "updated_at": "2025-01-12T14:35:00",
          "embedding_model": "intfloat/multilingual-e5-small",
          "pairs": [
            {"nl_term": "ログイン機能", "symbol": "AuthService", "similarity": 0.85,
             "code_evidence": "AuthService.login() handles authentication",
             "session_id": "session_20250112_143000", "learned_at": "2025-01-12T14:35:00",
             "agreement_file": "login_auth.md"},
            {"nl_term": "ログイン機能", "symbol": "NotListed"},
            {"nl_term": "決済", "symbol": "AuthService"}
          ]
        }"#,
    );
    let symbols: Vec<String> = [
        "LoginController",
        "AuthService",
        "ConfigLoader",
        "AuthService",
        " ",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let scorer = Scripted::new(&[
        ("AuthService", 3.0),
        ("LoginController", 1.5),
        ("ConfigLoader", -0.5),
    ]);
    let r = validate_symbol_relevance(
        &repo.root.state_dir(),
        &never(),
        "ﾛｸﾞｲﾝ機能",
        &symbols,
        Some(&scorer),
        None,
    );
    assert!(r.validation_prompt.contains("\"ﾛｸﾞｲﾝ機能\""));
    assert!(
        r.validation_prompt
            .contains("- LoginController\n- AuthService\n- ConfigLoader\n")
    );
    assert!(r.validation_prompt.contains("code_evidence is mandatory"));
    assert!(r.validation_prompt.contains("confirm_symbol_relevance"));
    let ranked: Vec<(usize, &str, Tier)> = r
        .embedding_suggestions
        .iter()
        .map(|s| (s.rank, s.symbol.as_str(), s.tier))
        .collect();
    assert_eq!(
        ranked,
        [
            (1, "AuthService", Tier::Fact),
            (2, "LoginController", Tier::FactHighRisk),
            (3, "ConfigLoader", Tier::Rejected),
        ]
    );
    // Half-width katakana in the term still matches the learned term (NFKC).
    assert_eq!(r.cached_matches.len(), 1, "{:?}", r.cached_matches);
    assert_eq!(r.cached_matches[0].symbol, "AuthService");
    assert_eq!(
        r.cached_matches[0].agreement_file.as_deref(),
        Some("login_auth.md")
    );
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);

    // Learned in January 2025: expired 30 days later, so no longer offered.
    let r = validate_symbol_relevance(
        &repo.root.state_dir(),
        &learned::Expiry {
            now: "2025-03-01T00:00:00Z".parse().unwrap(),
            days: 30,
        },
        "ログイン機能",
        &symbols,
        None,
        None,
    );
    assert!(r.cached_matches.is_empty(), "{:?}", r.cached_matches);
    let r = validate_symbol_relevance(
        &repo.root.state_dir(),
        &learned::Expiry {
            now: "2025-02-01T00:00:00Z".parse().unwrap(),
            days: 30,
        },
        "ログイン機能",
        &symbols,
        None,
        None,
    );
    assert_eq!(r.cached_matches.len(), 1, "{:?}", r.cached_matches);
}

/// Learned knowledge that never expires.
fn never() -> learned::Expiry {
    learned::Expiry {
        now: jiff::Timestamp::now(),
        days: 0,
    }
}

#[test]
fn validation_without_a_model_or_with_a_bad_learned_file_still_answers() {
    let repo = repo();
    let symbols = vec!["AuthService".to_string()];
    let r = validate_symbol_relevance(
        &repo.root.state_dir(),
        &never(),
        "login",
        &symbols,
        None,
        Some("the embedding model is not installed: run `code-intel model fetch`"),
    );
    assert!(r.embedding_suggestions.is_empty());
    assert!(r.cached_matches.is_empty());
    assert!(
        r.warnings[0].contains("code-intel model fetch"),
        "{:?}",
        r.warnings
    );
    assert!(r.validation_prompt.contains("- AuthService"));

    write_learned(&repo, "{not json");
    let r = validate_symbol_relevance(
        &repo.root.state_dir(),
        &never(),
        "login",
        &symbols,
        Some(&Broken),
        None,
    );
    assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
    assert!(r.warnings[0].contains("onnx runtime exploded"));
    assert!(r.warnings[1].contains("not valid learned pairs JSON"));

    write_learned(&repo, r#"{"version": 9, "pairs": []}"#);
    let r = validate_symbol_relevance(
        &repo.root.state_dir(),
        &never(),
        "login",
        &symbols,
        None,
        None,
    );
    assert!(
        r.warnings.iter().any(|w| w.contains("has version 9")),
        "{:?}",
        r.warnings
    );
}
