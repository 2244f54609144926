//! `code-intel eval` on a small git repository built in a temp dir: hand-written queries with
//! gold files and ranges (`--queries`), and change requests from the repository's own commits
//! (`--from-git`, each searched in its parent's snapshot in a temporary worktree), checked to the
//! exact metrics and per-query ranks the fixture implies.

mod support;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

/// Runs `git -C repo args…` with a fixed identity; panics on failure.
fn git(repo: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args([
            "-c",
            "user.name=Eval Test",
            "-c",
            "user.email=eval@example.invalid",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Replaces `from` (which must occur) by `to` in a file.
fn edit(root: &Path, rel: &str, from: &str, to: &str) {
    let text = std::fs::read_to_string(root.join(rel)).unwrap();
    assert!(text.contains(from), "{rel}: {from:?}");
    write(root, rel, &text.replacen(from, to, 1));
}

fn commit(root: &Path, subject: &str) {
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", subject]);
}

const CART: &str = r#""""Shopping cart: items, quantities and the order total."""


class Cart:
    """Holds the items a customer wants to buy."""

    def __init__(self):
        self.items = {}

    def add_item(self, sku, quantity=1):
        self.items[sku] = self.items.get(sku, 0) + quantity

    def total(self, prices):
        """Sum of price times quantity; percentage discount codes are not applied yet."""
        amount = 0
        for sku, quantity in self.items.items():
            amount += prices[sku] * quantity
        return amount
"#;

const AUTH: &str = r#""""Login: checks a user's password against the stored hash."""
import hashlib


def hash_password(password):
    return hashlib.sha256(password.encode()).hexdigest()


def login(users, username, password):
    user = users.get(username)
    if user is None:
        return None
    if user["password_hash"] != hash_password(password):
        return None
    return user
"#;

const MONEY: &str = r#"/** Currency helpers for the storefront. */
export function formatPrice(cents) {
  const dollars = cents / 100;
  return "$" + dollars.toFixed(2);
}

export function parsePrice(text) {
  return Math.round(parseFloat(text.replace("$", "")) * 100);
}
"#;

const LEGACY: &str = r#""""Old synchronisation job kept for the nightly batch."""


def run_job(queue):
    for item in queue:
        item.process()
    return len(queue)
"#;

/// The fixture's history, oldest first. Three commits make change requests (a cart discount,
/// a rounding fix in the JS price formatter, a legacy-job change whose subject shares no word
/// with its file); a docs, a tests-only and a too-short commit are skipped by their subjects,
/// and a commit that only adds a file has no gold in its parent. Returns the root commit.
fn repository(root: &Path) -> String {
    git(root, &["init", "-q"]);
    write(root, "src/cart.py", CART);
    write(root, "src/auth.py", AUTH);
    write(root, "web/money.js", MONEY);
    write(root, "src/legacy.py", LEGACY);
    write(root, "README.md", "# Shop\n");
    commit(root, "Initial import of the shop application");
    let first = git(root, &["rev-parse", "HEAD"]).trim().to_string();
    edit(
        root,
        "src/cart.py",
        "            amount += prices[sku] * quantity\n",
        "            amount += prices[sku] * quantity\n        if self.discount_percent:\n            amount = amount * (100 - self.discount_percent) // 100\n",
    );
    commit(
        root,
        "feat(cart): apply percentage discount codes to the cart total (#12)",
    );
    write(
        root,
        "README.md",
        "# Shop\n\nDiscount codes are percentages.\n",
    );
    commit(root, "docs: describe the discount codes");
    edit(
        root,
        "web/money.js",
        "const dollars = cents / 100;",
        "const dollars = Math.round(cents) / 100;",
    );
    commit(root, "Fix rounding when formatPrice gets fractional cents");
    write(
        root,
        "tests/test_auth.py",
        "def test_login():\n    assert True\n",
    );
    commit(root, "Add tests for the login function");
    edit(
        root,
        "src/legacy.py",
        "item.process()",
        "item.process(retries=3)",
    );
    commit(root, "Retry the zebra quokka wombat handshake three times");
    write(
        root,
        "src/shipping.py",
        "def shipping_rate(weight):\n    return 5 + weight\n",
    );
    commit(root, "Add a shipping rates module for carriers");
    edit(
        root,
        "src/auth.py",
        "import hashlib\n",
        "import hashlib\n\n",
    );
    commit(root, "Tidy");
    first
}

fn code_intel(repo: &Path, args: &[&str]) -> Output {
    support::cli_command(args, repo)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn eval_json(repo: &Path, args: &[&str]) -> Value {
    let out = code_intel(repo, args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// The stderr of a `code-intel` run that must fail.
fn eval_error(repo: &Path, args: &[&str]) -> String {
    let out = code_intel(repo, args);
    assert!(!out.status.success(), "{args:?} should fail");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `(id, rank, files)` of each query row.
fn ranks(report: &Value) -> Vec<(Value, Value, Value)> {
    report["queries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| (q["id"].clone(), q["rank"].clone(), q["files"].clone()))
        .collect()
}

/// Three hand-written queries for the fixture [`repository`], as a `--queries` file in a temporary
/// directory outside the repository (so that the index does not see the queries' words); the
/// directory lives as long as the returned guard.
fn hand_written_queries() -> (tempfile::TempDir, std::path::PathBuf) {
    let elsewhere = tempfile::tempdir().unwrap();
    let queries = elsewhere.path().join("queries.jsonl");
    let lines = [
        // Distinctive words of one method: found first (README.md, which mentions discount
        // codes, second), and its chunk lies inside the gold range (`Cart.total`, lines 13-20).
        json!({"id": "discount", "query": "percentage discount codes in the cart total",
               "gold_files": ["src/cart.py"],
               "gold_ranges": [{"file": "src/cart.py", "start": 13, "end": 20}]}),
        // The words are only in web/money.js: the gold file cannot be found.
        json!({"id": "missing", "query": "currency helpers for the storefront",
               "gold_files": ["src/auth.py"]}),
        // One of two gold files found: a hit at 1, but not All@10.
        json!({"id": "both", "query": "cart total", "gold_files": ["src/cart.py", "src/auth.py"]}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&queries, text).unwrap();
    (elsewhere, queries)
}

/// `--baseline grep`: the same queries through one grep per request word over the code files,
/// scored the same way; the fixture implies each rank (README.md, which mentions discount
/// codes, is not code and is not grepped).
#[test]
fn eval_baseline_grep_scores_the_simple_alternative_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    repository(dir.path());
    // For grep: cart.py holds all five words of "discount" and no other code file holds any;
    // the words of "missing" are only in web/money.js; auth.py holds neither word of "both".
    let (_elsewhere, queries) = hand_written_queries();
    let q = queries.to_str().unwrap();
    let args = [
        "eval",
        "--queries",
        q,
        "--mode",
        "lexical",
        "--baseline",
        "grep",
        "--json",
    ];
    let report = eval_json(dir.path(), &args);
    let grep: Vec<(Value, Value, Value)> = report["queries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            let b = &q["baseline"];
            (q["id"].clone(), b["rank"].clone(), b["files"].clone())
        })
        .collect();
    assert_eq!(
        grep,
        [
            (json!("discount"), json!(1), json!(["src/cart.py"])),
            (json!("missing"), Value::Null, json!(["web/money.js"])),
            (json!("both"), json!(1), json!(["src/cart.py"])),
        ],
        "{report:#}"
    );
    let b = &report["baseline"];
    assert_eq!(b["name"], "grep");
    let s = &b["summary"];
    for key in ["recall_at_1", "recall_at_10", "mrr_at_10"] {
        assert!(
            (s[key].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-9,
            "{key}: {s:#}"
        );
    }
    assert!((s["all_at_10"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-9);
    // Files have no line ranges: the function-level query never counts for grep.
    assert_eq!(
        (&s["function_queries"], &s["function_recall_at_10"]),
        (&json!(1), &json!(0.0)),
        "{s:#}"
    );
    // Ranked search's own numbers are unchanged by the baseline.
    assert_eq!(report["summary"]["function_recall_at_10"], json!(1.0));
    // Without --baseline, no baseline in the report.
    let plain = eval_json(
        dir.path(),
        &["eval", "--queries", q, "--mode", "lexical", "--json"],
    );
    assert!(plain.get("baseline").is_none() && plain["queries"][0].get("baseline").is_none());

    // The text form: a row per system, and grep's rank on each query line.
    let out = code_intel(dir.path(), &args[..7]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("1.000 (1)"), "{text}");
    assert!(
        text.contains(" 0.667  0.667  0.667   0.667   0.333    0.000 (1)"),
        "{text}"
    );
    assert!(text.contains("  grep\n"), "{text}");
    assert!(
        text.contains("   -     -  missing       currency helpers for the storefront"),
        "{text}"
    );
}

#[test]
fn eval_queries_scores_hand_written_gold() {
    let dir = tempfile::tempdir().unwrap();
    repository(dir.path());
    let (_elsewhere, queries) = hand_written_queries();
    let report = eval_json(
        dir.path(),
        &[
            "eval",
            "--queries",
            queries.to_str().unwrap(),
            "--mode",
            "lexical",
            "--json",
        ],
    );
    assert_eq!(
        ranks(&report),
        [
            (
                json!("discount"),
                json!(1),
                json!(["src/cart.py", "README.md"])
            ),
            (json!("missing"), Value::Null, json!(["web/money.js"])),
            (json!("both"), json!(1), json!(["src/cart.py"])),
        ],
        "{report:#}"
    );
    let s = &report["summary"];
    let two_thirds = 2.0 / 3.0;
    for key in ["recall_at_1", "recall_at_5", "recall_at_10", "mrr_at_10"] {
        assert!(
            (s[key].as_f64().unwrap() - two_thirds).abs() < 1e-9,
            "{key}: {s:#}"
        );
    }
    assert!(
        (s["all_at_10"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-9,
        "{s:#}"
    );
    assert_eq!(
        (
            &s["queries"],
            &s["function_queries"],
            &s["function_recall_at_10"]
        ),
        (&json!(3), &json!(1), &json!(1.0)),
        "{s:#}"
    );
    assert_eq!(report["queries"][0]["function_hit"], true, "{report:#}");
    assert!(report["queries"][1].get("function_hit").is_none());
    // `shown`: the chunks the function-level hit looked at, one per result file here, the
    // first inside the gold range (lines 13-20 of src/cart.py).
    let shown = report["queries"][0]["shown"].as_array().unwrap();
    let shown_files: Vec<&Value> = shown.iter().map(|c| &c["file"]).collect();
    assert_eq!(
        shown_files,
        report["queries"][0]["files"]
            .as_array()
            .unwrap()
            .iter()
            .collect::<Vec<_>>(),
        "{report:#}"
    );
    let (start, end) = (
        shown[0]["start_line"].as_u64().unwrap(),
        shown[0]["end_line"].as_u64().unwrap(),
    );
    assert!(13 <= start && end <= 20, "{report:#}");
    assert!(s["latency_p95_ms"].as_f64().unwrap() >= s["latency_p50_ms"].as_f64().unwrap());

    // The text form: the table and one line per query.
    let out = code_intel(
        dir.path(),
        &[
            "eval",
            "--queries",
            queries.to_str().unwrap(),
            "--mode",
            "lexical",
        ],
    );
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("3 queries, lexical search\n"), "{text}");
    assert!(
        text.contains(" 0.667  0.667  0.667   0.667   0.333    1.000 (1)"),
        "{text}"
    );
    assert!(
        text.contains("   -  missing       currency helpers for the storefront"),
        "{text}"
    );

    // `--rank` replaces ranking parameters for every query: docs weighted far above source put
    // README.md before the gold file.
    let report = eval_json(
        dir.path(),
        &[
            "eval",
            "--queries",
            queries.to_str().unwrap(),
            "--mode",
            "lexical",
            "--json",
            "--rank",
            r#"{"doc_factor": 100}"#,
        ],
    );
    assert_eq!(
        ranks(&report)[0],
        (
            json!("discount"),
            json!(2),
            json!(["README.md", "src/cart.py"])
        ),
        "{report:#}"
    );
    let q = queries.to_str().unwrap();
    let err = eval_error(dir.path(), &["eval", "--queries", q, "--rank", "[1]"]);
    assert!(err.contains("expected a JSON object"), "{err}");
    // A misspelt parameter is refused, not silently left at its default.
    let err = eval_error(
        dir.path(),
        &["eval", "--queries", q, "--rank", r#"{"tests_factor": 1}"#],
    );
    assert!(
        err.contains("unknown ranking parameter tests_factor") && err.contains("test_factor"),
        "{err}"
    );

    // A malformed line is an error that names the line.
    std::fs::write(&queries, "{\"query\": \"no gold\"}\n").unwrap();
    let err = eval_error(dir.path(), &["eval", "--queries", q]);
    assert!(err.contains("queries.jsonl line 1"), "{err}");
}

/// Question lines (`tests/eval/questions/`): gold spans give the gold files and ranges, NDCG@10 is
/// reported at file and span level, and integer ids split the summary into two folds.
#[test]
fn eval_questions_report_ndcg_and_folds() {
    let dir = tempfile::tempdir().unwrap();
    repository(dir.path());
    let elsewhere = tempfile::tempdir().unwrap();
    let questions = elsewhere.path().join("questions.jsonl");
    let lines = [
        // Found first, its chunk inside the gold span (`Cart.total`, lines 13-20).
        json!({"id": 1, "corpus": "fixture", "question": "percentage discount codes in the cart total",
               "gold": [{"path": "src/cart.py", "start_line": 13, "end_line": 20}]}),
        // The words are only in web/money.js: nothing found.
        json!({"id": 2, "corpus": "fixture", "question": "currency helpers for the storefront",
               "gold": [{"path": "src/auth.py", "start_line": 1, "end_line": 3}]}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&questions, text).unwrap();
    let q = questions.to_str().unwrap();
    let report = eval_json(
        dir.path(),
        &["eval", "--queries", q, "--mode", "lexical", "--json"],
    );
    let rows = report["queries"].as_array().unwrap();
    assert_eq!(rows[0]["gold_files"], json!(["src/cart.py"]), "{report:#}");
    assert_eq!(
        (&rows[0]["ndcg"], &rows[0]["span_ndcg"]),
        (&json!(1.0), &json!(1.0)),
        "{report:#}"
    );
    assert_eq!(
        (&rows[1]["ndcg"], &rows[1]["span_ndcg"]),
        (&json!(0.0), &json!(0.0)),
        "{report:#}"
    );
    let s = &report["summary"];
    assert_eq!(
        (&s["ndcg_at_10"], &s["span_ndcg_at_10"]),
        (&json!(0.5), &json!(0.5)),
        "{s:#}"
    );
    let folds = &report["folds"];
    assert_eq!(
        (
            &folds["odd"]["queries"],
            &folds["odd"]["ndcg_at_10"],
            &folds["even"]["queries"],
            &folds["even"]["ndcg_at_10"]
        ),
        (&json!(1), &json!(1.0), &json!(1), &json!(0.0)),
        "{folds:#}"
    );
    // String ids: no folds.
    let report = {
        let (_elsewhere, queries) = hand_written_queries();
        eval_json(
            dir.path(),
            &[
                "eval",
                "--queries",
                queries.to_str().unwrap(),
                "--mode",
                "lexical",
                "--json",
            ],
        )
    };
    assert!(report.get("folds").is_none(), "{report:#}");
    // A span that is not a line range is refused with its line number.
    std::fs::write(
        &questions,
        r#"{"question": "q", "gold": [{"path": "a.py", "start_line": 9, "end_line": 2}]}"#,
    )
    .unwrap();
    let err = eval_error(dir.path(), &["eval", "--queries", q]);
    assert!(
        err.contains("questions.jsonl line 1") && err.contains("a.py:9-2"),
        "{err}"
    );
}

#[test]
fn eval_from_git_searches_each_commit_at_its_parent() {
    let dir = tempfile::tempdir().unwrap();
    let first = repository(dir.path());
    let range = format!("{first}..HEAD");
    let report = eval_json(
        dir.path(),
        &["eval", "--from-git", &range, "--mode", "lexical", "--json"],
    );
    let log = git(dir.path(), &["log", "--format=%H %s"]);
    let id = |subject: &str| {
        let line = log.lines().find(|l| l.ends_with(subject)).unwrap();
        json!(line[..12])
    };
    // Oldest first. The discount commit is searched in the initial snapshot, where only
    // src/cart.py mentions its words; the legacy job's words are nowhere but "times" in
    // cart.py's docstring.
    let q = &report["queries"];
    let row = |i: usize| (q[i]["id"].clone(), q[i]["rank"].clone());
    assert_eq!(
        [row(0), row(1), row(2)],
        [
            (id("to the cart total (#12)"), json!(1)),
            (
                id("Fix rounding when formatPrice gets fractional cents"),
                json!(1)
            ),
            (
                id("Retry the zebra quokka wombat handshake three times"),
                Value::Null
            ),
        ],
        "{report:#}"
    );
    assert_eq!(q[0]["files"], json!(["src/cart.py"]), "{report:#}");
    assert_eq!(q[2]["files"], json!(["src/cart.py"]), "{report:#}");
    assert_eq!(
        q[0]["query"],
        "Apply percentage discount codes to the cart total"
    );
    assert_eq!(q[1]["files"][0], "web/money.js", "{report:#}");
    assert_eq!(q[2]["gold_files"], json!(["src/legacy.py"]));
    // Gold ranges: the methods enclosing the hunks at the parent (`Cart.total` 13-18 before
    // the change, `formatPrice` 1-5 with its doc comment, `run_job` 4-7).
    assert_eq!(
        [
            &q[0]["gold_ranges"],
            &q[1]["gold_ranges"],
            &q[2]["gold_ranges"]
        ],
        [
            &json!([{"file": "src/cart.py", "start": 13, "end": 18}]),
            &json!([{"file": "web/money.js", "start": 1, "end": 5}]),
            &json!([{"file": "src/legacy.py", "start": 4, "end": 7}]),
        ],
        "{report:#}"
    );
    assert_eq!(
        [
            &q[0]["function_hit"],
            &q[1]["function_hit"],
            &q[2]["function_hit"]
        ],
        [&json!(true), &json!(true), &json!(false)],
        "{report:#}"
    );
    let s = &report["summary"];
    let two_thirds = 2.0 / 3.0;
    for key in [
        "recall_at_1",
        "recall_at_10",
        "mrr_at_10",
        "all_at_10",
        "function_recall_at_10",
    ] {
        assert!(
            (s[key].as_f64().unwrap() - two_thirds).abs() < 1e-9,
            "{key}: {s:#}"
        );
    }
    assert_eq!(
        report["history"],
        json!({"range": range, "considered": 7, "skipped": {"subject": 3, "new_files": 1},
               "snapshots": 3}),
        "{report:#}"
    );
    // The temporary worktree is gone, and the repository's own tree is untouched.
    assert_eq!(git(dir.path(), &["worktree", "list"]).lines().count(), 1);
    let status = git(
        dir.path(),
        &["status", "--porcelain", "--untracked-files=no"],
    );
    assert_eq!(status, "");

    // --limit keeps the newest change requests.
    let report = eval_json(
        dir.path(),
        &["eval", "--from-git", &range, "--limit", "1", "--json"],
    );
    assert_eq!(
        report["queries"][0]["query"],
        "Retry the zebra quokka wombat handshake three times"
    );
    assert_eq!(report["summary"]["queries"], 1);

    // A range without change requests is an error that says what was skipped, and leaves no
    // worktree behind.
    let out = code_intel(dir.path(), &["eval", "--from-git", "HEAD~1..HEAD"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no change request in HEAD~1..HEAD"), "{err}");
    assert_eq!(git(dir.path(), &["worktree", "list"]).lines().count(), 1);
}

/// `--baseline bm25-file` and `--variants`: the file-level BM25 baseline and a grid of ranking
/// settings on the same queries, and short and long requests reported apart.
#[test]
fn eval_reports_bm25_file_variants_and_long_requests_apart() {
    let dir = tempfile::tempdir().unwrap();
    repository(dir.path());
    let (elsewhere, queries) = hand_written_queries();
    // One long request: a pasted traceback naming the cart.
    let long = json!({"id": "trace", "gold_files": ["src/cart.py"], "query":
        "The order total crashes\n\n```\nTraceback (most recent call last):\n  \
         File \"/srv/shop/src/cart.py\", line 15, in total\n    return sum(prices)\n\
         TypeError: unsupported operand type(s)\n```\n"});
    let mut text = std::fs::read_to_string(&queries).unwrap();
    text.push_str(&format!("{long}\n"));
    std::fs::write(&queries, text).unwrap();
    let variants = elsewhere.path().join("grid.jsonl");
    std::fs::write(
        &variants,
        "{\"request_analysis\": 0}\n{\"path_mention\": 3}\n",
    )
    .unwrap();
    let report = eval_json(
        dir.path(),
        &[
            "eval",
            "--queries",
            queries.to_str().unwrap(),
            "--mode",
            "lexical",
            "--baseline",
            "bm25-file",
            "--variants",
            variants.to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(report["baseline"]["name"], "bm25-file");
    assert_eq!(report["by_length"]["short"]["queries"], 3);
    assert_eq!(report["by_length"]["long"]["queries"], 1);
    assert_eq!(report["baseline"]["by_length"]["long"]["queries"], 1);
    assert_eq!(report["variants"].as_array().unwrap().len(), 2);
    let trace = report["queries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["id"] == "trace")
        .unwrap();
    assert_eq!(trace["long"], true);
    assert_eq!(trace["rank"], 1, "{trace}");
    assert_eq!(trace["variant_ranks"].as_array().unwrap().len(), 2);
    assert_eq!(
        trace["baseline"]["rank"], 1,
        "bm25-file reads the cart too: {trace}"
    );
    // The analysis off reads the same short requests the same way.
    let short_ranks: Vec<&Value> = report["queries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["long"] == false)
        .flat_map(|q| [&q["rank"], &q["variant_ranks"][0]])
        .collect();
    for pair in short_ranks.chunks(2) {
        assert_eq!(pair[0], pair[1]);
    }
}
