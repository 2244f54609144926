//! Outcomes: success learns the confirmed pairs and ends the session (the gate then denies),
//! failure derives its failure point from the gate journal, recording twice, the analyses, a
//! broken learned file, and concurrent writers — threads and real processes.

use serde_json::{Value, json};

use super::*;
use crate::config::{Config, GateMode};
use crate::gate::{self, Action, Kernel, ToolCall, Verdict};
use crate::learned::{self};
use crate::query_frame::SymbolConfirmation;
use crate::query_frame::{MappedSymbol, QuoteMatch, SlotValue};
use crate::repo_path::RepoRoot;
use crate::session::ToolCallRecord;
use crate::state_dir::LEARNED_PAIRS_FILE;
use crate::vocab::Intent;

struct Repo {
    dir: tempfile::TempDir,
    store: SessionStore,
}

fn repo() -> Repo {
    let dir = tempfile::tempdir().unwrap();
    for (p, body) in [
        (
            "src/auth.py",
            "class AuthService:\n    def login(self):\n        pass\n",
        ),
        ("src/util.py", "X = 1\n"),
    ] {
        let path = dir.path().join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, body).unwrap();
    }
    let store = SessionStore::new(RepoRoot::new(dir.path()).unwrap());
    Repo { dir, store }
}

fn settings() -> LearnSettings<'static> {
    LearnSettings {
        expiry: Expiry::after_days(30),
        embedding_model: Some(learned::DEFAULT_EMBEDDING_MODEL),
    }
}

fn input(outcome: Outcome) -> OutcomeInput {
    OutcomeInput {
        outcome,
        analysis: Some(" fixed the login check ".into()),
        trigger_message: None,
        failure_point: None,
    }
}

fn call(tool: &str, files: &[&str]) -> ToolCallRecord {
    ToolCallRecord {
        tool: tool.into(),
        params: json!({}),
        files: files.iter().map(|f| f.to_string()).collect(),
        result_summary: String::new(),
        phase: Phase::Exploration,
        timestamp: Default::default(),
    }
}

fn confirmed(symbol: &str, tier: Tier) -> MappedSymbol {
    MappedSymbol {
        symbol: symbol.into(),
        source: SlotSource::Fact,
        nl_term: Some("ログイン機能".into()),
        confirmation: Some(SymbolConfirmation {
            code_evidence: format!("{symbol}.login() authenticates"),
            tier,
            similarity: 0.871_234,
            calibrated: 2.5,
            confirmed_at: "2025-01-12T14:35:00Z".into(),
        }),
    }
}

impl Repo {
    fn state_dir(&self) -> PathBuf {
        self.store.root().state_dir()
    }

    /// A MODIFY session in READY with a target feature, two confirmed symbols, one unconfirmed,
    /// reads and an edit.
    fn ready_session(&self, claude: Option<&str>) -> SessionId {
        let id = self
            .store
            .start(Intent::Modify, "ログイン機能でエラーが出ない", claude)
            .unwrap()
            .session_id;
        self.store
            .update(&id, |s| {
                s.query_frame.slots.insert(
                    Slot::TargetFeature,
                    SlotValue {
                        value: "ログイン機能".into(),
                        quote: "ログイン機能".into(),
                        source: SlotSource::Fact,
                        matched: QuoteMatch::Exact,
                    },
                );
                s.query_frame.mapped_symbols = vec![
                    confirmed("AuthService", Tier::Fact),
                    confirmed("SessionGuard", Tier::FactHighRisk),
                    MappedSymbol {
                        symbol: "Unconfirmed".into(),
                        source: SlotSource::Fact,
                        nl_term: None,
                        confirmation: None,
                    },
                ];
                s.record_tool_call(call("find_definitions", &["src/auth.py"]));
                s.record_tool_call(call("Read", &["src/util.py"]));
                s.record_tool_call(call("Edit", &["src/auth.py"]));
                s.phase = Phase::Ready;
            })
            .unwrap();
        id
    }

    fn write_through_gate(&self, claude: &str, rel: &str) -> Verdict {
        let path = self.dir.path().join(rel);
        let call = ToolCall {
            claude_session_id: Some(claude),
            cwd: self.dir.path(),
            tool: "Edit",
            action: Action::WriteFile(path.to_str().unwrap()),
            locations: &crate::gate::protect::ConfigLocations::default(),
            kernel: Kernel::Absent,
        };
        gate::pre_tool_use(self.dir.path(), &call).verdict
    }
}

#[test]
fn success_learns_the_confirmed_pairs_and_ends_the_session() {
    let r = repo();
    let id = r.ready_session(Some("cc-1"));
    assert_eq!(r.write_through_gate("cc-1", "src/auth.py"), Verdict::Allow);

    let res = record_outcome(&r.store, &id, input(Outcome::Success), &settings()).unwrap();
    assert!(res.session_ended && res.map_updated, "{res:#?}");
    assert_eq!(res.previous_outcome, None);
    assert_eq!(res.learn_error, None);
    let learned_now = res.learned.as_ref().unwrap();
    let symbols: Vec<&str> = learned_now
        .added
        .iter()
        .map(|p| p.symbol.as_str())
        .collect();
    assert_eq!(
        symbols,
        ["AuthService", "SessionGuard"],
        "unconfirmed symbols teach nothing"
    );
    assert!(res.message.contains("Learned 2 new"), "{}", res.message);

    let pairs = learned::load(&r.state_dir()).unwrap().unwrap();
    assert_eq!(pairs.version, 2);
    assert_eq!(
        pairs.embedding_model.as_deref(),
        Some(learned::DEFAULT_EMBEDDING_MODEL)
    );
    let p = &pairs.pairs[0];
    assert_eq!(
        (p.nl_term.as_str(), p.symbol.as_str()),
        ("ログイン機能", "AuthService")
    );
    assert_eq!(p.similarity, Some(0.8712));
    assert_eq!(
        p.code_evidence.as_deref(),
        Some("AuthService.login() authenticates")
    );
    assert_eq!(p.session_id.as_deref(), Some(id.as_str()));
    let file = p.agreement_file.clone().unwrap();
    let agreement = std::fs::read_to_string(r.state_dir().join("agreements").join(&file)).unwrap();
    for expected in [
        "doc_type: agreement",
        "symbol_normalized: Auth Service",
        "## 根拠 (Code Evidence)\n\n- AuthService.login() authenticates",
        "## 関連ファイル\n\n- `src/auth.py`\n- `src/util.py`",
        "- Intent: MODIFY",
        "  - target_feature: ログイン機能",
    ] {
        assert!(
            agreement.contains(expected),
            "{expected:?} missing from\n{agreement}"
        );
    }

    // The journal line.
    let (outcomes, bad) = read_outcomes(&r.state_dir()).unwrap();
    assert_eq!((outcomes.len(), bad), (1, 0));
    let o = &outcomes[0];
    assert_eq!(o.version, OUTCOME_VERSION);
    assert_eq!(o.outcome, Outcome::Success);
    assert_eq!(o.phase_at_outcome, Some(Phase::Ready));
    assert_eq!(o.intent, "MODIFY");
    assert_eq!(o.analysis.as_deref(), Some("fixed the login check"));
    assert_eq!(o.failure_point, None);
    assert_eq!(o.tools_used, ["Edit", "Read", "find_definitions"]);
    assert_eq!(o.files_edited, ["src/auth.py"]);
    assert_eq!(o.learned.len(), 2);

    // The session is over: the gate denies (strict) and says to start a new session.
    let Verdict::Deny { reason } = r.write_through_gate("cc-1", "src/auth.py") else {
        panic!("an ended session must not write")
    };
    assert!(reason.contains("has ended (outcome success"), "{reason}");
    assert!(reason.contains("start_session"), "{reason}");
    let check = r
        .store
        .check_write_target(&id, "src/auth.py", false)
        .unwrap();
    assert!(!check.allowed);
    let status = r.store.status(&id).unwrap();
    assert_eq!(status.ended.unwrap().outcome, Outcome::Success);
    // In `session` mode an ended session is no session: writes pass.
    let config = Config {
        gate_mode: GateMode::Session,
        ..Config::default()
    };
    config.save(r.store.root().path()).unwrap();
    assert_eq!(r.write_through_gate("cc-1", "src/auth.py"), Verdict::Allow);
}

#[test]
fn failure_derives_its_failure_point_from_the_last_denial() {
    let r = repo();
    let id = r
        .store
        .start(Intent::Modify, "fix the login", Some("cc-2"))
        .unwrap()
        .session_id;
    r.store
        .record_tool_call(&id, call("search_text", &["src/auth.py"]))
        .unwrap();
    // Denied in EXPLORATION: the gate journals it.
    assert!(matches!(
        r.write_through_gate("cc-2", "src/auth.py"),
        Verdict::Deny { .. }
    ));
    let res = record_outcome(
        &r.store,
        &id,
        OutcomeInput {
            outcome: Outcome::Failure,
            analysis: None,
            trigger_message: Some("it still fails".into()),
            failure_point: None,
        },
        &settings(),
    )
    .unwrap();
    assert_eq!(res.learned, None);
    assert!(!res.map_updated);
    let rec = &res.record;
    assert_eq!(
        rec.failure_point.as_deref(),
        Some("EXPLORATION: denied Edit")
    );
    assert_eq!(rec.denials, 1);
    assert_eq!(rec.trigger_message.as_deref(), Some("it still fails"));
    assert!(!r.state_dir().join(LEARNED_PAIRS_FILE).exists());

    // A later tool call after the denial: the failure point names the tool instead.
    let id2 = r
        .store
        .start(Intent::Modify, "other", None)
        .unwrap()
        .session_id;
    r.store
        .record_tool_call(&id2, call("find_references", &[]))
        .unwrap();
    let res = record_outcome(&r.store, &id2, input(Outcome::Partial), &settings()).unwrap();
    assert_eq!(
        res.record.failure_point.as_deref(),
        Some("EXPLORATION: after find_references")
    );
    // An explicit failure point wins.
    let id3 = r
        .store
        .start(Intent::Question, "q", None)
        .unwrap()
        .session_id;
    let mut i = input(Outcome::Failure);
    i.failure_point = Some("wrong file".into());
    let res = record_outcome(&r.store, &id3, i, &settings()).unwrap();
    assert_eq!(res.record.failure_point.as_deref(), Some("wrong file"));
    let id4 = r
        .store
        .start(Intent::Question, "q", None)
        .unwrap()
        .session_id;
    let res = record_outcome(&r.store, &id4, input(Outcome::Failure), &settings()).unwrap();
    assert_eq!(
        res.record.failure_point.as_deref(),
        Some("EXPLORATION: no tool called")
    );
}

#[test]
fn recording_twice_keeps_both_lines_and_the_latest_wins() {
    let r = repo();
    let id = r.ready_session(None);
    record_outcome(&r.store, &id, input(Outcome::Success), &settings()).unwrap();
    let second = record_outcome(&r.store, &id, input(Outcome::Failure), &settings()).unwrap();
    assert_eq!(second.previous_outcome, Some(Outcome::Success));
    let third = record_outcome(&r.store, &id, input(Outcome::Success), &settings()).unwrap();
    let l = third.learned.unwrap();
    assert_eq!(
        (l.added.len(), l.updated.len(), l.total),
        (0, 2, 2),
        "no duplicates"
    );

    let a = session_analysis(&r.store, &id).unwrap();
    assert_eq!(a.outcomes.len(), 3);
    assert_eq!(a.analysis.final_outcome, Some(Outcome::Success));
    assert!(a.analysis.had_decision && a.analysis.had_outcome);
    assert_eq!(a.decision.as_ref().unwrap().trigger, "start_session");
    assert_eq!(a.analysis.tools_planned, a.decision.unwrap().tools_planned);
    let act = a.analysis.activity.clone().unwrap();
    assert_eq!(act.tools_used["Edit"], 1);
    assert_eq!(act.files_read, ["src/auth.py", "src/util.py"]);
    assert_eq!(act.files_edited, ["src/auth.py"]);
    assert_eq!(a.analysis.phase, Some(Phase::Ready));
    let json = serde_json::to_value(&a.analysis).unwrap();
    for key in [
        "had_decision",
        "had_outcome",
        "final_outcome",
        "tools_planned",
        "failure_point",
    ] {
        assert!(json.get(key).is_some(), "{key} missing: {json}");
    }

    let e = session_analysis(&r.store, &"20990101-000000-000000".parse().unwrap()).unwrap_err();
    assert!(
        matches!(e, OutcomeError::Session(SessionError::Unknown { .. })),
        "{e:?}"
    );
}

#[test]
fn a_broken_learned_file_still_records_the_outcome_and_says_how_to_fix_it() {
    let r = repo();
    let id = r.ready_session(None);
    std::fs::create_dir_all(r.state_dir()).unwrap();
    let path = r.state_dir().join(LEARNED_PAIRS_FILE);
    std::fs::write(&path, "{ broken").unwrap();
    let res = record_outcome(&r.store, &id, input(Outcome::Success), &settings()).unwrap();
    let e = res.learn_error.unwrap();
    assert!(
        e.contains("left untouched") && e.contains("fix it by hand"),
        "{e}"
    );
    assert!(
        res.message.contains("nothing was learned"),
        "{}",
        res.message
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "{ broken");
    assert_eq!(read_outcomes(&r.state_dir()).unwrap().0.len(), 1);
}

#[test]
fn insights_correlate_tools_risk_and_failure_points() {
    let r = repo();
    let ok = r.ready_session(None);
    record_outcome(&r.store, &ok, input(Outcome::Success), &settings()).unwrap();
    for _ in 0..2 {
        let id = r
            .store
            .start(Intent::Modify, "fix it", None)
            .unwrap()
            .session_id;
        r.store
            .record_tool_call(&id, call("search_text", &[]))
            .unwrap();
        record_outcome(&r.store, &id, input(Outcome::Failure), &settings()).unwrap();
    }
    let partial = r
        .store
        .start(Intent::Investigate, "why", None)
        .unwrap()
        .session_id;
    record_outcome(&r.store, &partial, input(Outcome::Partial), &settings()).unwrap();
    // A session recorded twice counts once, by its latest outcome.
    record_outcome(&r.store, &ok, input(Outcome::Success), &settings()).unwrap();
    // A torn line is skipped and counted.
    std::fs::OpenOptions::new()
        .append(true)
        .open(outcomes_path(&r.state_dir()))
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"{\"version\": 1, \"sess\n"))
        .unwrap();

    let i = improvement_insights(&r.state_dir(), 100).unwrap();
    assert_eq!(i.total_sessions_with_outcomes, 4);
    assert_eq!(i.sessions_with_decisions, 4);
    assert_eq!(i.skipped_lines, 1);
    assert_eq!(
        (
            i.outcomes.successes,
            i.outcomes.failures,
            i.outcomes.partials
        ),
        (1, 2, 1)
    );
    let st = &i.tool_failure_correlation["search_text"];
    assert_eq!((st.sessions, st.failures, st.failure_rate), (2, 2, 1.0));
    assert_eq!(i.tool_failure_correlation["Edit"].failures, 0);
    assert_eq!(
        i.common_failure_points,
        BTreeMap::from([
            ("EXPLORATION: after search_text".to_string(), 2),
            ("EXPLORATION: no tool called".to_string(), 1),
        ])
    );
    let json = serde_json::to_value(&i).unwrap();
    for key in [
        "total_sessions_with_outcomes",
        "sessions_with_decisions",
        "tool_failure_correlation",
        "risk_level_correlation",
        "common_failure_points",
    ] {
        assert!(json.get(key).is_some(), "{key} missing");
    }
    let risks: usize = i.risk_level_correlation.values().map(|c| c.sessions).sum();
    assert_eq!(risks, 4);
    // `limit` keeps the most recent sessions: the last line is `ok`'s second outcome.
    let one = improvement_insights(&r.state_dir(), 1).unwrap();
    assert_eq!(one.total_sessions_with_outcomes, 1);
    assert_eq!(one.outcomes.successes, 1);
    // No journal at all: zeros.
    let empty = tempfile::tempdir().unwrap();
    assert_eq!(
        improvement_insights(empty.path(), 10)
            .unwrap()
            .total_sessions_with_outcomes,
        0
    );
}

#[test]
fn concurrent_outcomes_in_threads_lose_nothing() {
    let r = repo();
    let ids: Vec<SessionId> = (0..8).map(|_| r.ready_session(None)).collect();
    std::thread::scope(|s| {
        for id in &ids {
            let store = &r.store;
            s.spawn(move || {
                record_outcome(store, id, input(Outcome::Success), &settings()).unwrap();
                record_outcome(store, id, input(Outcome::Failure), &settings()).unwrap();
            });
        }
    });
    let (outcomes, bad) = read_outcomes(&r.state_dir()).unwrap();
    assert_eq!((outcomes.len(), bad), (16, 0));
    // All sessions learned the same two pairs: two pairs, each updated in place.
    assert_eq!(
        learned::load(&r.state_dir()).unwrap().unwrap().pairs.len(),
        2
    );
    let i = improvement_insights(&r.state_dir(), 100).unwrap();
    assert_eq!(i.total_sessions_with_outcomes, 8);
}

/// Environment variable that makes [`child_process_records_outcomes`] do its work: the state
/// directory of the shared repository, and the child's number.
const CHILD_ENV: &str = "CODE_INTEL_OUTCOME_TEST_CHILD";

/// Run by [`concurrent_outcomes_in_processes_lose_nothing`] in child processes (ignored otherwise).
#[test]
#[allow(clippy::disallowed_methods)] // a test child process reads its task from the environment
#[ignore = "a child of concurrent_outcomes_in_processes_lose_nothing"]
fn child_process_records_outcomes() {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return;
    };
    let (dir, n) = spec.rsplit_once('|').unwrap();
    let store = SessionStore::new(RepoRoot::new(Path::new(dir)).unwrap());
    for i in 0..5 {
        let id = store.start(Intent::Modify, "q", None).unwrap().session_id;
        store
            .update(&id, |s| {
                s.query_frame.mapped_symbols = vec![confirmed(&format!("Sym{n}x{i}"), Tier::Fact)];
            })
            .unwrap();
        record_outcome(&store, &id, input(Outcome::Success), &settings()).unwrap();
        record_outcome(&store, &id, input(Outcome::Partial), &settings()).unwrap();
    }
}

#[test]
fn concurrent_outcomes_in_processes_lose_nothing() {
    let r = repo();
    let exe = std::env::current_exe().unwrap();
    let children: Vec<std::process::Child> = (0..4)
        .map(|n| {
            std::process::Command::new(&exe)
                .args([
                    "--exact",
                    "outcome::tests::child_process_records_outcomes",
                    "--ignored",
                    "--test-threads=1",
                ])
                .env(CHILD_ENV, format!("{}|{n}", r.dir.path().display()))
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let (outcomes, bad) = read_outcomes(&r.state_dir()).unwrap();
    assert_eq!((outcomes.len(), bad), (40, 0));
    let pairs = learned::load(&r.state_dir()).unwrap().unwrap();
    assert_eq!(pairs.pairs.len(), 20, "every process's pairs are there");
    assert_eq!(learned::read_agreements(&r.state_dir()).unwrap().len(), 20);
    let v: Value = serde_json::to_value(&outcomes[0]).unwrap();
    assert_eq!(v["version"], 1);
}
