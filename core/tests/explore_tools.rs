//! The exploration tools on inline multi-file fixtures: search_text, find_definitions,
//! find_references, analyze_structure, get_function_at_line; path escapes, caps and truncation.

use code_intel_core::explore::{
    AnalyzeStructureParams, ExploreContext, ExploreError, FindDefinitionsParams,
    FindReferencesParams, FunctionAtLineParams, SearchTextParams, SymbolNode, TouchedFiles,
    analyze_structure, find_definitions, find_references, get_function_at_line, search_text,
};
use code_intel_core::index::CodeIndex;
use code_intel_session::config::{Config, ResultLimits};
use code_intel_session::repo_path::RepoRoot;
use expect_test::{Expect, expect};

const SERVICE_PY: &str = r#"import os


class UserService:
    """Loads and saves users."""

    def get_user(self, user_id):
        # ユーザーを取得する
        return self.repo.find(user_id)

    def save(self, user):
        validate(user)
        return self.repo.store(user)


def validate(user):
    if not user:
        raise ValueError("no user")
    return True
"#;

const VIEWS_PY: &str = r#"from service import UserService, validate


def show(user_id):
    service = UserService()
    user = service.get_user(user_id)
    validate(user)
    return user
"#;

const CONTROLLER_PHP: &str = r#"<?php
namespace App\Http\Controllers;

use App\Models\User;

class UserController extends Controller
{
    public function store($request)
    {
        $user = User::create($request->all());
        return $this->respond($user);
    }

    public function show($id)
    {
        return User::find($id);
    }
}
"#;

const APP_JS: &str = r#"function createApplication() {
  const app = {};
  app.listen = listen;
  return app;
}

function listen(port) {
  return port;
}

module.exports = createApplication;
"#;

struct Fixture {
    _dir: tempfile::TempDir,
    root: RepoRoot,
    config: Config,
    index: CodeIndex,
}

impl Fixture {
    fn cx(&self) -> ExploreContext<'_> {
        ExploreContext {
            root: &self.root,
            config: &self.config,
            index: Some(&self.index),
            request: None,
        }
    }

    fn cx_without_index(&self) -> ExploreContext<'_> {
        ExploreContext {
            root: &self.root,
            config: &self.config,
            index: None,
            request: None,
        }
    }
}

fn fixture_with(files: &[(&str, &str)], config: Config) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    for (path, content) in files {
        let p = repo.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    std::fs::create_dir_all(dir.path().join("outside")).unwrap();
    std::fs::write(
        dir.path().join("outside/secret.py"),
        "def secret():\n    return 'validate'\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(dir.path().join("outside"), repo.join("escape")).unwrap();
    let root = RepoRoot::new(&repo).unwrap();
    let index = CodeIndex::open(&root, &config).unwrap();
    index.sync(&mut |_| {}).unwrap();
    Fixture {
        _dir: dir,
        root,
        config,
        index,
    }
}

fn fixture() -> Fixture {
    fixture_with(
        &[
            ("src/service.py", SERVICE_PY),
            ("src/views.py", VIEWS_PY),
            ("app/Http/Controllers/UserController.php", CONTROLLER_PHP),
            ("lib/app.js", APP_JS),
            ("docs/notes.md", "Call validate(user) before saving.\n"),
            (".gitignore", "build/\n"),
            ("build/generated.py", "def validate():\n    pass\n"),
        ],
        Config {
            source_dirs: Vec::new(),
            ..Config::default()
        },
    )
}

fn check(actual: impl serde::Serialize, expect: Expect) {
    expect.assert_eq(&serde_json::to_string_pretty(&actual).unwrap());
}

#[test]
fn search_text_finds_regex_matches_with_context() {
    let f = fixture();
    let r = search_text(
        &f.cx(),
        &SearchTextParams {
            pattern: r"def \w+\(self".into(),
            context_lines: Some(1),
            ..Default::default()
        },
    )
    .unwrap();
    check(
        r.clone(),
        expect![[r#"
            {
              "pattern": "def \\w+\\(self",
              "order": "path",
              "matches": [
                {
                  "file": "src/service.py",
                  "line": 7,
                  "content": "    def get_user(self, user_id):",
                  "context_before": [
                    ""
                  ],
                  "context_after": [
                    "        # ユーザーを取得する"
                  ]
                },
                {
                  "file": "src/service.py",
                  "line": 11,
                  "content": "    def save(self, user):",
                  "context_before": [
                    ""
                  ],
                  "context_after": [
                    "        validate(user)"
                  ]
                }
              ],
              "total": 2,
              "truncated": false,
              "files_searched": 5
            }"#]],
    );
    assert_eq!(r.files(), vec!["src/service.py"]);
}

#[test]
fn overlapping_contexts_are_given_per_match() {
    let f = fixture_with(&[("a.txt", "one\nhit 1\nhit 2\nfour\n")], Config::default());
    let r = search_text(
        &f.cx(),
        &SearchTextParams {
            pattern: "hit".into(),
            context_lines: Some(2),
            ..Default::default()
        },
    )
    .unwrap();
    let got: Vec<(u64, Vec<String>, Vec<String>)> = r
        .matches
        .into_iter()
        .map(|m| (m.line, m.context_before, m.context_after))
        .collect();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        got,
        vec![
            (2, s(&["one"]), s(&["hit 2", "four"])),
            (3, s(&["one", "hit 1"]), s(&["four"]))
        ]
    );
}

#[test]
fn search_text_is_gitignore_aware_and_never_leaves_the_repo() {
    let f = fixture();
    let r = search_text(
        &f.cx(),
        &SearchTextParams {
            pattern: "def validate".into(),
            ..Default::default()
        },
    )
    .unwrap();
    let files: Vec<&str> = r.matches.iter().map(|m| m.file.as_str()).collect();
    // build/ is gitignored; escape/ is a symlink out of the repository (not followed).
    assert_eq!(files, vec!["src/service.py"]);

    for bad in [
        "../outside",
        "/etc",
        "escape/secret.py",
        "src/../../outside/secret.py",
    ] {
        let err = search_text(
            &f.cx(),
            &SearchTextParams {
                pattern: "x".into(),
                path: Some(bad.into()),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(matches!(err, ExploreError::Path(_)), "{bad}: {err}");
        assert!(err.to_string().contains("outside the repository"), "{err}");
    }
    let err = search_text(
        &f.cx(),
        &SearchTextParams {
            pattern: "x".into(),
            path: Some("nope".into()),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_eq!(err.to_string(), "nope does not exist in the repository");
}

#[test]
fn search_text_literal_path_and_file_type() {
    let f = fixture();
    let lit = search_text(
        &f.cx(),
        &SearchTextParams {
            pattern: "validate(user)".into(),
            literal: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(lit.total, 4, "{lit:#?}");
    let err = search_text(
        &f.cx(),
        &SearchTextParams {
            pattern: "validate(user".into(),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(matches!(err, ExploreError::BadRegex { .. }));
    assert!(err.to_string().contains("literal: true"), "{err}");

    let py = search_text(
        &f.cx(),
        &SearchTextParams {
            pattern: "user".into(),
            file_type: Some("python".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(py.matches.iter().all(|m| m.file.ends_with(".py")) && py.total > 0);
    let php = search_text(
        &f.cx(),
        &SearchTextParams {
            pattern: "user".into(),
            file_type: Some("php".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(php.matches.iter().all(|m| m.file.ends_with(".php")) && php.total > 0);
    let err = search_text(
        &f.cx(),
        &SearchTextParams {
            pattern: "x".into(),
            file_type: Some("cobolish".into()),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(matches!(err, ExploreError::UnknownFileType { .. }), "{err}");

    let one = search_text(
        &f.cx(),
        &SearchTextParams {
            pattern: "user".into(),
            path: Some("src/views.py".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(one.files_searched, 1);
    assert!(one.matches.iter().all(|m| m.file == "src/views.py"));
    let japanese = search_text(
        &f.cx(),
        &SearchTextParams {
            pattern: "ユーザー".into(),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(japanese.matches[0].line, 8);
}

#[test]
fn search_text_caps_results_and_cuts_long_lines() {
    let many: String = (1..=30).map(|i| format!("needle {i}\n")).collect();
    let long = format!("needle {}\n", "x".repeat(500));
    let config = Config {
        limits: ResultLimits {
            max_results: 5,
            max_results_ceiling: 10,
            max_line_chars: 40,
            ..ResultLimits::default()
        },
        ..Config::default()
    };
    let f = fixture_with(&[("a.txt", &many), ("b.txt", &long)], config);
    let r = search_text(
        &f.cx(),
        &SearchTextParams {
            pattern: "needle".into(),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!((r.matches.len(), r.total, r.truncated), (5, 31, true));
    let r = search_text(
        &f.cx(),
        &SearchTextParams {
            pattern: "needle".into(),
            max_results: Some(1000),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        (r.matches.len(), r.total, r.truncated),
        (10, 31, true),
        "the ceiling caps what callers ask"
    );
    let r = search_text(
        &f.cx(),
        &SearchTextParams {
            pattern: "needle x".into(),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        r.matches[0].content,
        format!("needle {}… [+467 chars]", "x".repeat(33))
    );
    assert!(!r.truncated);

    // The output budget cuts too.
    let tiny = Config {
        limits: ResultLimits {
            max_output_chars: 60,
            ..ResultLimits::default()
        },
        ..Config::default()
    };
    let f = fixture_with(&[("a.txt", &many)], tiny);
    let r = search_text(
        &f.cx(),
        &SearchTextParams {
            pattern: "needle".into(),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(
        r.truncated && r.matches.len() < 10 && !r.matches.is_empty() && r.total == 30,
        "{r:#?}"
    );
}

#[test]
fn find_definitions_by_name_qualified_name_and_suffix() {
    let f = fixture();
    let defs = |symbol: &str, exact: bool| {
        let p = FindDefinitionsParams {
            symbol: symbol.into(),
            exact_match: exact,
            ..Default::default()
        };
        find_definitions(&f.cx(), &p).unwrap()
    };
    check(
        defs("validate", true),
        expect![[r#"
            {
              "symbol": "validate",
              "definitions": [
                {
                  "name": "validate",
                  "qualified_name": "validate",
                  "file": "src/service.py",
                  "line": 16,
                  "end_line": 19,
                  "kind": "function",
                  "signature": "def validate(user)",
                  "language": "python"
                }
              ],
              "total": 1,
              "truncated": false
            }"#]],
    );
    let store = defs("UserController::store", true);
    assert_eq!(store.definitions.len(), 1);
    let d = &store.definitions[0];
    assert_eq!(
        d.qualified_name,
        r"App\Http\Controllers\UserController::store"
    );
    assert_eq!(
        d.scope.as_deref(),
        Some(r"App\Http\Controllers\UserController")
    );
    assert_eq!(
        (d.file.as_str(), d.line, d.kind.name()),
        ("app/Http/Controllers/UserController.php", 8, "method")
    );
    assert_eq!(
        defs(r"App\Http\Controllers\UserController", true).definitions[0]
            .kind
            .name(),
        "class"
    );
    assert_eq!(defs(r"\App\Http\Controllers\UserController", true).total, 1);
    assert_eq!(defs("UserService.get_user", true).definitions[0].line, 7);
    assert_eq!(
        defs("userservice.GET_USER", true).total,
        1,
        "case-insensitive"
    );

    // Substring (the default) finds more; case-exact name matches rank first.
    let sub = defs("user", false);
    let names: Vec<&str> = sub
        .definitions
        .iter()
        .map(|d| d.qualified_name.as_str())
        .collect();
    assert!(
        names.contains(&"UserService") && names.contains(&"UserService.get_user"),
        "{names:?}"
    );
    assert!(
        sub.definitions
            .iter()
            .all(|d| d.kind.name() != "module" && d.kind.name() != "window")
    );
    let shows: Vec<String> = defs("show", false)
        .definitions
        .into_iter()
        .map(|d| d.qualified_name)
        .collect();
    assert_eq!(
        shows,
        vec![r"App\Http\Controllers\UserController::show", "show"]
    );
    // Case-exact matches rank before case-insensitive ones, whatever the path order.
    let ranked: Vec<String> = defs("Validate", false)
        .definitions
        .into_iter()
        .map(|d| d.name)
        .collect();
    assert_eq!(ranked, vec!["validate"]);

    // Filters.
    let p = FindDefinitionsParams {
        symbol: "show".into(),
        language: Some("php".into()),
        ..Default::default()
    };
    let php = find_definitions(&f.cx(), &p).unwrap();
    assert_eq!(php.definitions.len(), 1);
    assert_eq!(php.definitions[0].language.id(), "php");
    let p = FindDefinitionsParams {
        symbol: "show".into(),
        path: Some("src".into()),
        ..Default::default()
    };
    assert_eq!(
        find_definitions(&f.cx(), &p).unwrap().definitions[0].file,
        "src/views.py"
    );
    let p = FindDefinitionsParams {
        symbol: "show".into(),
        path: Some("../outside".into()),
        ..Default::default()
    };
    assert!(matches!(
        find_definitions(&f.cx(), &p),
        Err(ExploreError::Path(_))
    ));
    let p = FindDefinitionsParams {
        symbol: "  ".into(),
        ..Default::default()
    };
    assert!(matches!(
        find_definitions(&f.cx(), &p),
        Err(ExploreError::EmptySymbol)
    ));
    assert_eq!(defs("no_such_symbol_anywhere", false).total, 0);
    let p = FindDefinitionsParams {
        symbol: "show".into(),
        max_results: Some(1),
        ..Default::default()
    };
    let capped = find_definitions(&f.cx(), &p).unwrap();
    assert_eq!(
        (capped.definitions.len(), capped.total, capped.truncated),
        (1, 2, true)
    );
    let p = FindDefinitionsParams {
        symbol: "x".repeat(300),
        ..Default::default()
    };
    assert_eq!(find_definitions(&f.cx(), &p).unwrap().total, 0);
}

#[test]
fn partial_definition_matches_come_closest_first() {
    // Path order alone would list `a/commands.py` (add_requests) first.
    let f = fixture_with(
        &[
            (
                "a/commands.py",
                "def add_requests(reqs):\n    return reqs\n\n\ndef prepare_request(r):\n    def callback(x):\n        return x\n    return callback\n",
            ),
            (
                "b/fingerprint.py",
                "class RequestFingerprinter:\n    def fingerprint(self, r):\n        return r\n",
            ),
            ("c/form.py", "class FormRequest:\n    pass\n"),
            ("d/request.py", "class Request:\n    pass\n"),
        ],
        Config {
            source_dirs: Vec::new(),
            ..Config::default()
        },
    );
    let p = FindDefinitionsParams {
        symbol: "Request".into(),
        ..Default::default()
    };
    for cx in [f.cx(), f.cx_without_index()] {
        let names: Vec<String> = find_definitions(&cx, &p)
            .unwrap()
            .definitions
            .into_iter()
            .map(|d| d.qualified_name)
            .collect();
        assert_eq!(
            names,
            [
                "Request",
                "FormRequest",
                "RequestFingerprinter",
                "add_requests",
                "prepare_request",
                "prepare_request.callback",
                "RequestFingerprinter.fingerprint",
            ]
        );
    }
}

#[test]
fn find_definitions_without_an_index_parses_files() {
    let f = fixture();
    for (symbol, exact) in [
        ("validate", true),
        ("UserController::store", true),
        ("user", false),
        ("show", false),
    ] {
        let p = FindDefinitionsParams {
            symbol: symbol.into(),
            exact_match: exact,
            ..Default::default()
        };
        let with = find_definitions(&f.cx(), &p).unwrap();
        let without = find_definitions(&f.cx_without_index(), &p).unwrap();
        assert_eq!(with, without, "{symbol}");
    }
}

#[test]
fn find_references_excludes_definitions_and_names_the_enclosing_symbol() {
    let f = fixture();
    let r = find_references(
        &f.cx(),
        &FindReferencesParams {
            symbol: "validate".into(),
            ..Default::default()
        },
    )
    .unwrap();
    check(
        r.clone(),
        expect![[r#"
            {
              "symbol": "validate",
              "order": "path",
              "references": [
                {
                  "file": "src/service.py",
                  "line": 12,
                  "content": "        validate(user)",
                  "enclosing_symbol": "UserService.save"
                },
                {
                  "file": "src/views.py",
                  "line": 1,
                  "content": "from service import UserService, validate"
                },
                {
                  "file": "src/views.py",
                  "line": 7,
                  "content": "    validate(user)",
                  "enclosing_symbol": "show"
                },
                {
                  "file": "docs/notes.md",
                  "line": 1,
                  "content": "Call validate(user) before saving."
                }
              ],
              "total": 4,
              "truncated": false,
              "definitions_excluded": 1,
              "files_searched": 5
            }"#]],
    );
    assert_eq!(
        r.files(),
        vec!["src/service.py", "src/views.py", "docs/notes.md"]
    );

    let r = find_references(
        &f.cx(),
        &FindReferencesParams {
            symbol: "UserService".into(),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(r.definitions_excluded, 1);
    assert!(
        r.references
            .iter()
            .all(|x| !x.content.contains("class UserService"))
    );
    assert_eq!(r.total, 2);

    let r = find_references(
        &f.cx(),
        &FindReferencesParams {
            symbol: "validate".into(),
            max_results: Some(2),
            path: Some("src".into()),
            order: None,
        },
    )
    .unwrap();
    assert_eq!((r.references.len(), r.total, r.truncated), (2, 3, true));
    // Without an index the enclosing symbols come from parsing the files.
    let r2 = find_references(
        &f.cx_without_index(),
        &FindReferencesParams {
            symbol: "validate".into(),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        r2.references[0].enclosing_symbol.as_deref(),
        Some("UserService.save")
    );
    assert!(matches!(
        find_references(
            &f.cx(),
            &FindReferencesParams {
                symbol: "x".into(),
                path: Some("/tmp".into()),
                ..Default::default()
            }
        ),
        Err(ExploreError::Path(_))
    ));
}

fn outline(nodes: &[SymbolNode], depth: usize, out: &mut String) {
    for n in nodes {
        out.push_str(&format!(
            "{}{} {} {}-{}\n",
            "  ".repeat(depth),
            n.kind,
            n.name,
            n.start_line,
            n.end_line
        ));
        outline(&n.children, depth + 1, out);
    }
}

#[test]
fn analyze_structure_nests_symbols_of_a_file_and_a_directory() {
    let f = fixture();
    let r = analyze_structure(
        &f.cx(),
        &AnalyzeStructureParams {
            path: "src/service.py".into(),
        },
    )
    .unwrap();
    assert_eq!((r.files.len(), r.files_total, r.truncated), (1, 1, false));
    let mut s = String::new();
    outline(&r.files[0].symbols, 0, &mut s);
    expect![[r#"
        class UserService 4-13
          method get_user 7-9
          method save 11-13
        function validate 16-19
    "#]]
    .assert_eq(&s);
    assert_eq!(r.files[0].language.id(), "python");

    let r = analyze_structure(&f.cx(), &AnalyzeStructureParams { path: "".into() }).unwrap();
    let files: Vec<&str> = r.files.iter().map(|f| f.file.as_str()).collect();
    assert_eq!(
        files,
        vec![
            "app/Http/Controllers/UserController.php",
            "lib/app.js",
            "src/service.py",
            "src/views.py"
        ]
    );
    assert_eq!(r.files(), files);
    let mut s = String::new();
    outline(&r.files[0].symbols, 0, &mut s);
    expect![[r#"
        class UserController 6-18
          method store 8-12
          method show 14-17
    "#]]
    .assert_eq(&s);

    let tiny = Config {
        source_dirs: Vec::new(),
        limits: ResultLimits {
            max_output_chars: 300,
            ..ResultLimits::default()
        },
        ..Config::default()
    };
    let f2 = fixture_with(
        &[
            ("a.py", SERVICE_PY),
            ("b.py", SERVICE_PY),
            ("c.py", SERVICE_PY),
        ],
        tiny,
    );
    let r = analyze_structure(&f2.cx(), &AnalyzeStructureParams { path: ".".into() }).unwrap();
    assert!(
        r.truncated && r.files.len() < 3 && r.files_total == 3,
        "{r:#?}"
    );
    assert!(matches!(
        analyze_structure(
            &f.cx(),
            &AnalyzeStructureParams {
                path: "escape".into()
            }
        ),
        Err(ExploreError::Path(_))
    ));
}

#[test]
fn get_function_at_line_returns_the_innermost_function_fresh_from_disk() {
    let f = fixture();
    let r = get_function_at_line(
        &f.cx(),
        &FunctionAtLineParams {
            file: "src/service.py".into(),
            line: 9,
        },
    )
    .unwrap();
    let func = r.function.as_ref().unwrap();
    assert_eq!(
        (
            func.qualified_name.as_str(),
            func.kind.name(),
            func.start_line,
            func.end_line
        ),
        ("UserService.get_user", "method", 7, 9)
    );
    assert_eq!(
        func.content,
        "    def get_user(self, user_id):\n        # ユーザーを取得する\n        return self.repo.find(user_id)\n"
    );
    assert_eq!(r.files(), vec!["src/service.py"]);

    // Outside any function: the class docstring line, a top-level import.
    for line in [5, 1] {
        let r = get_function_at_line(
            &f.cx(),
            &FunctionAtLineParams {
                file: "src/service.py".into(),
                line,
            },
        )
        .unwrap();
        assert!(r.function.is_none(), "line {line}: {r:#?}");
    }

    // Fresh: edited after the index was built, without a sync.
    std::fs::write(
        f.root.path().join("src/views.py"),
        "def renamed():\n    return 1\n",
    )
    .unwrap();
    let r = get_function_at_line(
        &f.cx(),
        &FunctionAtLineParams {
            file: "src/views.py".into(),
            line: 2,
        },
    )
    .unwrap();
    assert_eq!(r.function.unwrap().name, "renamed");

    let err = get_function_at_line(
        &f.cx(),
        &FunctionAtLineParams {
            file: "src/service.py".into(),
            line: 99,
        },
    )
    .unwrap_err();
    assert!(
        matches!(err, ExploreError::LineOutOfRange { lines: 19, .. }),
        "{err}"
    );
    let err = get_function_at_line(
        &f.cx(),
        &FunctionAtLineParams {
            file: "src".into(),
            line: 1,
        },
    )
    .unwrap_err();
    assert!(matches!(err, ExploreError::NotAFile { .. }), "{err}");
    let err = get_function_at_line(
        &f.cx(),
        &FunctionAtLineParams {
            file: "escape/secret.py".into(),
            line: 1,
        },
    )
    .unwrap_err();
    assert!(matches!(err, ExploreError::Path(_)), "{err}");
}

#[test]
fn params_deserialise_with_defaults() {
    let p: SearchTextParams = serde_json::from_str(r#"{"pattern": "x"}"#).unwrap();
    assert_eq!(
        p,
        SearchTextParams {
            pattern: "x".into(),
            ..Default::default()
        }
    );
    let p: FindDefinitionsParams =
        serde_json::from_str(r#"{"symbol": "x", "exact_match": true}"#).unwrap();
    assert!(p.exact_match && p.path.is_none());
    // What the tool needs has no default: the MCP tools parse these types as they are.
    for (json, field) in [
        (
            serde_json::from_str::<SearchTextParams>("{}").map(drop),
            "pattern",
        ),
        (
            serde_json::from_str::<FindDefinitionsParams>("{}").map(drop),
            "symbol",
        ),
        (
            serde_json::from_str::<FindReferencesParams>("{}").map(drop),
            "symbol",
        ),
        (
            serde_json::from_str::<AnalyzeStructureParams>("{}").map(drop),
            "path",
        ),
        (
            serde_json::from_str::<FunctionAtLineParams>(r#"{"file": "a.py"}"#).map(drop),
            "line",
        ),
    ] {
        let err = json.unwrap_err().to_string();
        assert!(err.contains(&format!("missing field `{field}`")), "{err}");
    }
}

#[test]
fn find_definitions_finds_go_methods_and_rust_impl_methods_through_the_index() {
    let fixture_file = |name: &str| {
        let path = format!(
            "{}/tests/fixtures/languages/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let (go, rust) = (fixture_file("server.go"), fixture_file("lib.rs"));
    let f = fixture_with(
        &[
            ("httpx/server.go", go.as_str()),
            ("src/lib.rs", rust.as_str()),
        ],
        Config {
            source_dirs: Vec::new(),
            ..Config::default()
        },
    );
    let defs = |symbol: &str| {
        let p = FindDefinitionsParams {
            symbol: symbol.into(),
            exact_match: true,
            ..Default::default()
        };
        let found = find_definitions(&f.cx(), &p).unwrap();
        found
            .definitions
            .iter()
            .map(|d| {
                format!(
                    "{} {} {} {}:{}-{} scope={}",
                    d.language.id(),
                    d.kind.name(),
                    d.qualified_name,
                    d.file,
                    d.line,
                    d.end_line,
                    d.scope.as_deref().unwrap_or("-")
                )
            })
            .collect::<Vec<_>>()
    };
    // A Go method by its name and by receiver-qualified name (any separator).
    assert_eq!(
        defs("Handle"),
        ["go method httpx.Engine.Handle httpx/server.go:45-53 scope=httpx.Engine"]
    );
    assert_eq!(defs("Engine.Handle"), defs("Handle"));
    // A Rust method of an inherent impl, and the two trait-impl methods `fmt` of two types.
    assert_eq!(
        defs("insert"),
        ["rust method Store::insert src/lib.rs:44-51 scope=Store"]
    );
    assert_eq!(defs("Store::insert"), defs("insert"));
    assert_eq!(
        defs("fmt"),
        [
            "rust method StoreError::fmt src/lib.rs:55-60 scope=StoreError",
            "rust method Wrapper::fmt src/lib.rs:64-66 scope=Wrapper"
        ]
    );
    assert_eq!(
        defs("Wrapper::fmt"),
        ["rust method Wrapper::fmt src/lib.rs:64-66 scope=Wrapper"]
    );
    // The type itself is a definition too, distinct from its methods.
    assert_eq!(
        defs("Engine"),
        ["go class httpx.Engine httpx/server.go:18-23 scope=httpx"]
    );
}
