//! Session engine tests: transitions, requirement tables, the phase matrix, write rules and the
//! store's concurrency and error handling, on a small repository in a temp dir.

use super::store::{SessionError, SessionStore};
use super::*;
use crate::query_frame::{LiteralOnly, QueryFrameInput, SlotEvidence, SlotInput};
use crate::repo_path::RepoRoot;
use crate::vocab::Slot;
use crate::vocab::SlotSource;

struct Fixture {
    _dir: tempfile::TempDir,
    root: RepoRoot,
    store: SessionStore,
}

fn sid(id: &str) -> SessionId {
    id.parse().unwrap()
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    for (p, body) in [
        (
            "app/Http/Controllers/LoginController.php",
            "<?php class LoginController {}",
        ),
        ("app/Services/AuthService.php", "<?php class AuthService {}"),
        ("app/Models/User.php", "<?php class User {}"),
        ("app/Rules/Password.php", "<?php class Password {}"),
        ("resources/css/app.css", ".btn { color: red }"),
        ("resources/views/login.html", "<form id=login></form>"),
        ("README.md", "# demo"),
    ] {
        let path = dir.path().join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, body).unwrap();
    }
    let root = RepoRoot::new(dir.path()).unwrap();
    let store = SessionStore::new(root.clone());
    Fixture {
        _dir: dir,
        root,
        store,
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn call(tool: &str, files: &[&str]) -> ToolCallRecord {
    ToolCallRecord {
        tool: tool.into(),
        params: serde_json::json!({}),
        files: strings(files),
        result_summary: String::new(),
        phase: Phase::Exploration,
        timestamp: Default::default(),
    }
}

const QUERY: &str =
    "ログイン機能でパスワードが空のときエラーが出ない。Add a check in the login form";

fn full_frame() -> QueryFrameInput {
    QueryFrameInput {
        target_feature: Some(SlotInput {
            value: "login".into(),
            quote: "ログイン機能".into(),
        }),
        trigger_condition: Some(SlotInput {
            value: "empty password".into(),
            quote: "パスワードが空のとき".into(),
        }),
        observed_issue: Some(SlotInput {
            value: "no error".into(),
            quote: "エラーが出ない".into(),
        }),
        desired_action: Some(SlotInput {
            value: "add validation".into(),
            quote: "add a check".into(),
        }),
    }
}

fn good_understanding() -> Understanding {
    Understanding {
        symbols_identified: strings(&["LoginController", "AuthService", "Password"]),
        entry_points: strings(&["LoginController::store"]),
        files_analyzed: strings(&[
            "app/Http/Controllers/LoginController.php",
            "app/Services/AuthService.php",
        ]),
        existing_patterns: strings(&["FormRequest validation rules"]),
        ..Default::default()
    }
}

#[test]
fn intents_parse_case_insensitively_with_seed_aliases() {
    assert_eq!("modify".parse::<Intent>().unwrap(), Intent::Modify);
    assert_eq!("ADD".parse::<Intent>().unwrap(), Intent::Implement);
    assert_eq!("Delete".parse::<Intent>().unwrap(), Intent::Modify);
    assert_eq!("explore".parse::<Intent>().unwrap(), Intent::Investigate);
    assert!(
        "refactor"
            .parse::<Intent>()
            .unwrap_err()
            .to_string()
            .contains("IMPLEMENT, MODIFY")
    );
    assert_eq!(
        serde_json::to_string(&Intent::Question).unwrap(),
        "\"QUESTION\""
    );
    assert_eq!(
        serde_json::from_str::<Intent>("\"add\"").unwrap(),
        Intent::Implement
    );
}

#[test]
fn phase_matrix_follows_seed_002() {
    use Phase::*;
    for p in [Exploration, Verification, Ready] {
        assert!(check_tool(p, "find_references", None).is_ok());
    }
    let v = check_tool(Semantic, "find_definitions", None).unwrap_err();
    assert!(
        v.message.contains("SEMANTIC") && v.message.contains("submit_semantic"),
        "{}",
        v.message
    );
    assert!(check_tool(Exploration, "semantic_search", Some("map")).is_ok());
    assert!(check_tool(Exploration, "semantic_search", Some("forest")).is_err());
    assert!(check_tool(Verification, "semantic_search", Some("forest")).is_err());
    assert!(check_tool(Semantic, "semantic_search", Some("forest")).is_ok());
    assert!(check_tool(Ready, "semantic_search", None).is_ok());
    assert!(check_tool(Exploration, "add_explored_files", None).is_err());
    assert!(check_tool(Ready, "submit_understanding", None).is_err());
    assert!(check_tool(Semantic, "get_session_status", None).is_ok());
    assert!(check_tool(Verification, "revert_to_exploration", None).is_ok());
}

#[test]
fn modify_session_reaches_ready_and_gates_writes_by_exploration() {
    let f = fixture();
    let start = f
        .store
        .start(Intent::Modify, QUERY, Some("claude-1"))
        .unwrap();
    assert_eq!(start.phase, Phase::Exploration);
    assert!(start.extraction_prompt.contains(QUERY));
    assert_eq!(
        f.store.bound("claude-1").unwrap().as_deref(),
        Some(start.session_id.as_str())
    );
    let id = start.session_id;

    // One invented quote is rejected (`validation_failed`, docs/DESIGN.md#slots); the others are
    // accepted.
    let mut frame = full_frame();
    frame.desired_action = Some(SlotInput {
        value: "rewrite".into(),
        quote: "rewrite everything".into(),
    });
    let r = f.store.set_query_frame(&id, &frame, &LiteralOnly).unwrap();
    assert!(!r.success);
    assert_eq!(r.error.as_deref(), Some("validation_failed"));
    assert_eq!(r.validation_errors.len(), 1);
    assert_eq!(r.validation_errors[0].slot, Slot::DesiredAction);
    assert_eq!(r.missing_slots, [Slot::DesiredAction]);
    let r = f
        .store
        .set_query_frame(&id, &full_frame(), &LiteralOnly)
        .unwrap();
    assert!(r.success);
    assert_eq!(r.risk_level, RiskLevel::Low);

    // Without find_references the gate keeps the session in EXPLORATION and says so.
    f.store
        .record_tool_call(
            &id,
            call(
                "find_definitions",
                &["app/Http/Controllers/LoginController.php"],
            ),
        )
        .unwrap();
    let r = f
        .store
        .submit_understanding(&id, good_understanding())
        .unwrap();
    assert_eq!(r.next_phase, Phase::Exploration);
    assert_eq!(
        r.missing_requirements[0].item.as_deref(),
        Some("find_references")
    );

    f.store
        .record_tool_call(
            &id,
            call("find_references", &["app/Services/AuthService.php"]),
        )
        .unwrap();
    let r = f
        .store
        .submit_understanding(&id, good_understanding())
        .unwrap();
    assert_eq!(
        (r.next_phase, r.evaluated_confidence.name()),
        (Phase::Ready, "high"),
        "{r:?}"
    );

    let ok = f
        .store
        .check_write_target(&id, "app/Services/AuthService.php", false)
        .unwrap();
    assert!(ok.allowed, "{ok:?}");
    let denied = f
        .store
        .check_write_target(&id, "app/Models/User.php", false)
        .unwrap();
    assert!(!denied.allowed);
    assert!(
        denied
            .error
            .as_deref()
            .unwrap()
            .contains("add_explored_files")
    );
    assert!(
        denied
            .recovery_options
            .contains_key("revert_to_exploration")
    );
    let outside = f
        .store
        .check_write_target(&id, "../escape.txt", false)
        .unwrap();
    assert!(!outside.allowed && outside.error.unwrap().contains("outside"));

    // New files: refused without allow_new_files, allowed next to explored files, remembered.
    assert!(
        !f.store
            .check_write_target(&id, "app/Services/TokenService.php", false)
            .unwrap()
            .allowed
    );
    assert!(
        f.store
            .check_write_target(&id, "app/Services/TokenService.php", true)
            .unwrap()
            .allowed
    );
    assert!(
        !f.store
            .check_write_target(&id, "lib/new/File.php", true)
            .unwrap()
            .allowed
    );
    let state = f.store.load(&id).unwrap();
    assert!(
        state
            .approved_new_files
            .contains(&RepoPath::parse_relative("app/Services/TokenService.php").unwrap())
    );

    // add_explored_files takes files read in this session (User.php: a Read recorded without
    // joining the explored set, as an older hook did) and new files next to explored ones, and
    // nothing else: no directories, root, globs, empty paths, unread files, escapes.
    f.store
        .update(&id, |s| {
            s.tool_calls.push(call("Read", &["app/Models/User.php"]))
        })
        .unwrap();
    let added = f
        .store
        .add_explored_files(
            &id,
            &strings(&[
                "app/Models",
                "/etc/passwd",
                ".",
                "",
                "app/*",
                "README.md",
                "lib/x/New.php",
                "app/Models/User.php",
                "app/Services/New.php",
            ]),
        )
        .unwrap();
    assert_eq!(added.added, ["app/Models/User.php", "app/Services/New.php"]);
    assert!(!added.success);
    let rejected = added.rejected.join("\n");
    for reason in [
        "app/Models is a directory",
        "outside the repository",
        "repository root is a directory",
        "empty path",
        "globs are not accepted",
        "README.md was not read in this session",
        "lib/x/New.php does not exist and its directory lib/x was not explored",
    ] {
        assert!(rejected.contains(reason), "{reason}: {rejected}");
    }
    assert_eq!(added.rejected.len(), 7);
    assert!(
        f.store
            .check_write_target(&id, "app/Models/User.php", false)
            .unwrap()
            .allowed
    );
    assert!(
        !f.store
            .check_write_target(&id, "app/Rules/Password.php", false)
            .unwrap()
            .allowed
    );
}

#[test]
fn shortfalls_go_through_semantic_and_verification() {
    let f = fixture();
    let id = f
        .store
        .start(Intent::Modify, QUERY, None)
        .unwrap()
        .session_id;
    f.store
        .set_query_frame(&id, &full_frame(), &LiteralOnly)
        .unwrap();
    f.store
        .record_tool_call(&id, call("find_definitions", &[]))
        .unwrap();
    f.store
        .record_tool_call(&id, call("find_references", &[]))
        .unwrap();
    let thin = Understanding {
        symbols_identified: strings(&["LoginController"]),
        entry_points: strings(&["LoginController::store"]),
        files_analyzed: strings(&["app/Http/Controllers/LoginController.php"]),
        ..Default::default()
    };
    let r = f.store.submit_understanding(&id, thin).unwrap();
    assert_eq!(r.next_phase, Phase::Semantic);
    let missing: Vec<&str> = r
        .missing_requirements
        .iter()
        .map(|m| m.requirement.name())
        .collect();
    assert_eq!(
        missing,
        ["symbols_identified", "files_analyzed", "existing_patterns"]
    );
    assert!(
        r.allowed_semantic_reasons
            .contains(&SemanticReason::ArchitectureUnknown)
    );

    // Exploration tools are closed in SEMANTIC.
    assert!(
        f.store
            .check_tool_allowed(&id, "search_text", None)
            .is_err_and(|e| e.phase_violation().is_some())
    );
    let hyp = vec![HypothesisInput {
        text: "password rules live in Password".into(),
        slot: None,
        value: None,
        symbol: Some("Password".into()),
    }];
    let r = f
        .store
        .submit_semantic(&id, hyp.clone(), SemanticReason::NoReferenceFound)
        .unwrap();
    assert!(!r.success && r.error.unwrap().contains("allowed"));
    let r = f
        .store
        .submit_semantic(&id, hyp, SemanticReason::ArchitectureUnknown)
        .unwrap();
    assert_eq!(r.next_phase, Phase::Verification);
    assert_eq!(r.hypotheses[0].id, "h1");

    // Writes are refused while a HYPOTHESIS is open.
    assert!(
        !f.store
            .check_write_target(&id, "app/Http/Controllers/LoginController.php", false)
            .unwrap()
            .allowed
    );

    let result = |tool: &str| VerificationInput {
        hypothesis_id: "h1".into(),
        status: VerdictStatus::Confirmed,
        evidence: VerificationEvidence {
            tool: tool.into(),
            target: "Password".into(),
            result: "class Password in app/Rules".into(),
        },
    };
    // find_definitions was called in EXPLORATION, not in VERIFICATION: refused.
    let r = f
        .store
        .submit_verification(&id, vec![result("find_definitions")])
        .unwrap();
    assert!(!r.success && r.next_phase == Phase::Verification, "{r:?}");
    f.store
        .record_tool_call(&id, call("find_definitions", &["app/Rules/Password.php"]))
        .unwrap();
    let r = f
        .store
        .submit_verification(&id, vec![result("find_definitions")])
        .unwrap();
    assert!(r.success && r.next_phase == Phase::Ready, "{r:?}");
    let s = f.store.load(&id).unwrap();
    assert!(
        s.query_frame
            .mapped_symbols
            .iter()
            .any(|m| m.symbol == "Password" && m.source == SlotSource::Fact)
    );
    assert!(
        f.store
            .check_write_target(&id, "app/Rules/Password.php", false)
            .unwrap()
            .allowed
    );
}

#[test]
fn rejected_hypotheses_leave_the_frame() {
    let f = fixture();
    let id = f
        .store
        .start(Intent::Implement, "add remember-me to login", None)
        .unwrap()
        .session_id;
    f.store
        .update(&id, |s| s.set_phase(Phase::Semantic, "test"))
        .unwrap();
    let hyp = vec![HypothesisInput {
        text: "tokens in User".into(),
        slot: Some(Slot::TargetFeature),
        value: Some("user tokens".into()),
        symbol: Some("User".into()),
    }];
    f.store
        .submit_semantic(&id, hyp, SemanticReason::NoDefinitionFound)
        .unwrap();
    f.store
        .record_tool_call(&id, call("search_text", &[]))
        .unwrap();
    let r = f
        .store
        .submit_verification(
            &id,
            vec![VerificationInput {
                hypothesis_id: "h1".into(),
                status: VerdictStatus::Rejected,
                evidence: VerificationEvidence {
                    tool: "search_text".into(),
                    target: "remember".into(),
                    result: "no token column".into(),
                },
            }],
        )
        .unwrap();
    assert_eq!(r.next_phase, Phase::Ready);
    let s = f.store.load(&id).unwrap();
    assert!(
        s.query_frame.mapped_symbols.is_empty()
            && !s.query_frame.slots.contains_key(&Slot::TargetFeature)
    );
}

#[test]
fn high_risk_requires_slot_evidence_from_called_tools() {
    let f = fixture();
    // MODIFY without an observed issue is HIGH (docs/DESIGN.md#risk).
    let id = f
        .store
        .start(Intent::Modify, "ログイン機能を直して", None)
        .unwrap()
        .session_id;
    let frame = QueryFrameInput {
        target_feature: Some(SlotInput {
            value: "login".into(),
            quote: "ログイン機能".into(),
        }),
        ..Default::default()
    };
    assert_eq!(
        f.store
            .set_query_frame(&id, &frame, &LiteralOnly)
            .unwrap()
            .risk_level,
        RiskLevel::High
    );
    f.store
        .record_tool_call(&id, call("find_definitions", &[]))
        .unwrap();
    f.store
        .record_tool_call(&id, call("find_references", &[]))
        .unwrap();
    let mut u = Understanding {
        symbols_identified: strings(&[
            "LoginController",
            "AuthService",
            "User",
            "Password",
            "store",
        ]),
        entry_points: strings(&["LoginController::store", "AuthService.login"]),
        files_analyzed: strings(&[
            "app/Http/Controllers/LoginController.php",
            "app/Services/AuthService.php",
            "app/Models/User.php",
            "app/Rules/Password.php",
        ]),
        existing_patterns: strings(&["service layer", "form request"]),
        ..Default::default()
    };
    u.entry_points[1] = "AuthService::login".into();
    let r = f.store.submit_understanding(&id, u.clone()).unwrap();
    assert_eq!(r.next_phase, Phase::Exploration);
    assert_eq!(
        r.missing_requirements[0].requirement.name(),
        "slot_evidence"
    );
    // Evidence naming a tool never called is invalid input.
    let ev = |tool: &str| SlotEvidence {
        tool: tool.into(),
        params: serde_json::json!({"symbol": "Login"}),
        result_summary: "LoginController".into(),
        timestamp: Default::default(),
    };
    u.slot_evidence
        .insert(Slot::TargetFeature, ev("analyze_structure"));
    let r = f.store.submit_understanding(&id, u.clone()).unwrap();
    assert!(!r.success && r.validation_errors[0].contains("never called"));
    u.slot_evidence
        .insert(Slot::TargetFeature, ev("find_definitions"));
    let r = f.store.submit_understanding(&id, u).unwrap();
    assert_eq!(r.next_phase, Phase::Ready, "{r:?}");
    assert!(
        !f.store.load(&id).unwrap().query_frame.slot_evidence[&Slot::TargetFeature]
            .timestamp
            .is_empty()
    );
}

#[test]
fn markup_context_relaxes_requirements() {
    let f = fixture();
    let id = f
        .store
        .start(Intent::Modify, "make the login button red", None)
        .unwrap()
        .session_id;
    let frame = QueryFrameInput {
        target_feature: Some(SlotInput {
            value: "login button".into(),
            quote: "login button".into(),
        }),
        observed_issue: Some(SlotInput {
            value: "wrong colour".into(),
            quote: "make the login button red".into(),
        }),
        desired_action: Some(SlotInput {
            value: "red".into(),
            quote: "red".into(),
        }),
        ..Default::default()
    };
    f.store.set_query_frame(&id, &frame, &LiteralOnly).unwrap();
    let u = Understanding {
        files_analyzed: strings(&["resources/css/app.css"]),
        ..Default::default()
    };
    let r = f.store.submit_understanding(&id, u.clone()).unwrap();
    assert!(r.markup_context);
    assert_eq!(
        r.missing_requirements[0].item.as_deref(),
        Some("search_text")
    );
    f.store
        .record_tool_call(&id, call("search_text", &["resources/css/app.css"]))
        .unwrap();
    assert_eq!(
        f.store.submit_understanding(&id, u).unwrap().next_phase,
        Phase::Ready
    );
}

#[test]
fn investigate_and_question_never_write() {
    let f = fixture();
    let id = f
        .store
        .start(Intent::Investigate, "how does login work", None)
        .unwrap()
        .session_id;
    let u = Understanding {
        symbols_identified: strings(&["LoginController"]),
        files_analyzed: strings(&["app/Http/Controllers/LoginController.php"]),
        ..Default::default()
    };
    assert_eq!(
        f.store.submit_understanding(&id, u).unwrap().next_phase,
        Phase::Ready
    );
    let w = f
        .store
        .check_write_target(&id, "app/Http/Controllers/LoginController.php", false)
        .unwrap();
    assert!(!w.allowed && w.error.unwrap().contains("never write"));

    let id = f
        .store
        .start(Intent::Question, "what is AuthService?", None)
        .unwrap()
        .session_id;
    assert_eq!(
        f.store
            .submit_understanding(&id, Understanding::default())
            .unwrap()
            .next_phase,
        Phase::Ready
    );
    assert!(
        !f.store
            .check_write_target(&id, "README.md", false)
            .unwrap()
            .allowed
    );
}

#[test]
fn invalid_understanding_keeps_the_phase() {
    let f = fixture();
    let id = f
        .store
        .start(Intent::Modify, QUERY, None)
        .unwrap()
        .session_id;
    let u = Understanding {
        symbols_identified: strings(&["A", "A"]),
        entry_points: strings(&["Unrelated::run"]),
        files_analyzed: strings(&["missing.php", "../../etc/passwd"]),
        existing_patterns: strings(&["p"]),
        ..Default::default()
    };
    let r = f.store.submit_understanding(&id, u).unwrap();
    assert!(!r.success);
    assert_eq!(r.next_phase, Phase::Exploration);
    assert_eq!(r.validation_errors.len(), 4, "{:?}", r.validation_errors);
    assert!(f.store.load(&id).unwrap().explored.is_empty());
}

#[test]
fn revert_keeps_or_forgets_results() {
    let f = fixture();
    let id = f
        .store
        .start(Intent::Investigate, "login", None)
        .unwrap()
        .session_id;
    f.store
        .record_tool_call(&id, call("search_text", &["README.md"]))
        .unwrap();
    f.store
        .update(&id, |s| s.set_phase(Phase::Ready, "test"))
        .unwrap();
    let r = f.store.revert_to_exploration(&id, true).unwrap();
    assert_eq!(
        (r.previous_phase, r.phase, r.explored_count),
        (Phase::Ready, Phase::Exploration, 1)
    );
    let r = f.store.revert_to_exploration(&id, false).unwrap();
    assert_eq!(r.explored_count, 0);
    assert!(f.store.load(&id).unwrap().tool_calls.is_empty());
}

#[test]
fn concurrent_updates_lose_nothing() {
    let f = fixture();
    let id = f
        .store
        .start(Intent::Investigate, "login", None)
        .unwrap()
        .session_id;
    std::thread::scope(|s| {
        for t in 0..4 {
            let (store, id) = (&f.store, &id);
            s.spawn(move || {
                for i in 0..25 {
                    store
                        .record_tool_call(id, call("search_text", &[&format!("f{t}_{i}.py")]))
                        .unwrap();
                }
            });
        }
    });
    let s = f.store.load(&id).unwrap();
    assert_eq!(s.tool_calls.len(), 100);
    assert_eq!(s.explored.len(), 100);
}

#[test]
fn unknown_and_corrupt_sessions_are_errors_that_say_how_to_recover() {
    let f = fixture();
    assert!(matches!(
        f.store.load(&sid("20990101-000000-abcdef")),
        Err(SessionError::Unknown { .. })
    ));
    assert!(matches!(
        "../../etc".parse::<SessionId>().map_err(SessionError::from),
        Err(SessionError::InvalidId { .. })
    ));
    let id = f.store.start(Intent::Modify, "x", None).unwrap().session_id;
    let path = f.store.state_path(&id);
    std::fs::write(&path, "{\"version\": 1, \"sess").unwrap();
    let err = f
        .store
        .record_tool_call(&id, call("search_text", &[]))
        .unwrap_err();
    assert!(matches!(err, SessionError::Corrupt { .. }));
    assert!(err.to_string().contains("start_session"));
    // Nothing was overwritten.
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\"version\": 1, \"sess"
    );
    std::fs::write(&path, "{\"version\": 99}").unwrap();
    assert!(matches!(
        f.store.load(&id),
        Err(SessionError::Version { found: 99, .. })
    ));
    let _ = &f.root;
}

#[test]
fn decisions_are_journaled_for_every_plan() {
    let f = fixture();
    let id = f
        .store
        .start(Intent::Modify, QUERY, None)
        .unwrap()
        .session_id;
    f.store
        .set_query_frame(&id, &full_frame(), &LiteralOnly)
        .unwrap();
    let (records, bad) = crate::journal::read_decisions(&f.root.state_dir()).unwrap();
    assert_eq!(bad, 0);
    let triggers: Vec<&str> = records.iter().map(|r| r.trigger.as_str()).collect();
    assert_eq!(triggers, ["start_session", "set_query_frame"]);
    assert_eq!(records[0].missing_slots.len(), 4);
    assert_eq!(records[0].risk_level, RiskLevel::High);
    assert!(records[1].missing_slots.is_empty());
    assert!(
        records
            .iter()
            .all(|r| r.session_id == id && r.query == QUERY)
    );
}

#[test]
fn store_transitions_are_guarded_by_the_phase_matrix_under_the_lock() {
    let f = fixture();
    let id = f
        .store
        .start(Intent::Modify, QUERY, None)
        .unwrap()
        .session_id;
    let hyp = vec![HypothesisInput {
        text: "t".into(),
        slot: None,
        value: None,
        symbol: None,
    }];
    let v = f
        .store
        .submit_semantic(&id, hyp, SemanticReason::ArchitectureUnknown)
        .unwrap_err()
        .phase_violation()
        .cloned()
        .expect("a phase violation");
    assert_eq!(v.phase, Phase::Exploration);
    assert!(v.message.contains("submit_understanding"), "{}", v.message);
    assert!(
        f.store.load(&id).unwrap().hypotheses.is_empty(),
        "nothing changed"
    );
    assert!(
        f.store
            .add_explored_files(&id, &strings(&["README.md"]))
            .is_err_and(|e| e.phase_violation().is_some())
    );
    f.store
        .update(&id, |s| s.set_phase(Phase::Semantic, "test"))
        .unwrap();
    // An exploration call that finishes after the session moved to SEMANTIC is not recorded.
    assert!(
        f.store
            .record_tool_call_in_phase(&id, call("search_text", &["README.md"]))
            .is_err_and(|e| e.phase_violation().is_some())
    );
    assert!(f.store.load(&id).unwrap().tool_calls.is_empty());
}

#[test]
fn odd_timestamps_in_a_state_file_load_and_are_written_back_as_they_were() {
    let f = fixture();
    let id = f.store.start(Intent::Modify, "x", None).unwrap().session_id;
    let path = f.store.state_path(&id);
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    json["created_at"] = "not a time".into();
    json["updated_at"] = "".into();
    std::fs::write(&path, serde_json::to_vec_pretty(&json).unwrap()).unwrap();
    let s = f.store.load(&id).unwrap();
    assert_eq!(
        (s.created_at.as_str(), s.created_at.instant()),
        ("not a time", None)
    );
    f.store
        .record_tool_call(&id, call("search_text", &[]))
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(json["created_at"], "not a time");
    assert!(json["updated_at"].as_str().unwrap().ends_with('Z'));
}
