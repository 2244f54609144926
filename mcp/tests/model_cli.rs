//! `code-intel model status|fetch` as a user runs them: a missing install is a report with the fix
//! and exit 1, the installed model verifies and loads with stdout carrying only the JSON report, and
//! the online path explains how to get it.
//!
//! The installed-model test uses the model cache of `CODE_INTEL_MODEL_DIR`, else
//! `${XDG_CACHE_HOME:-$HOME/.cache}/code-intel/models`; it fails without a provisioned model unless
//! `CODE_INTEL_SKIP_MODEL_TESTS=1`.

#![allow(clippy::print_stderr)]

mod support;

use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn code_intel(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_code-intel"))
        .args(args)
        .env_remove("CODE_INTEL_MODEL_DIR")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn stdout_json(out: &Output) -> Value {
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    assert_eq!(
        text.lines().count(),
        1,
        "one JSON line on stdout, got:\n{text}"
    );
    serde_json::from_str(&text).unwrap()
}

#[test]
fn status_of_an_empty_cache_names_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().to_str().unwrap();
    let out = code_intel(&["model", "status", "--cache-dir", cache, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report = stdout_json(&out);
    assert_eq!(report["state"], "not installed");
    assert!(
        report["problem"]
            .as_str()
            .unwrap()
            .contains("run `code-intel model fetch`"),
        "{report}"
    );
    assert_eq!(
        report["paths"]["model_dir"],
        dir.path().join("multilingual-e5-small").to_str().unwrap()
    );

    let out = code_intel(&["model", "status", "--cache-dir", cache]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("state        not installed"), "{text}");
    assert!(
        text.contains("fix          run `code-intel model fetch`"),
        "{text}"
    );
}

#[test]
fn the_cache_dir_comes_from_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_code-intel"))
        .args(["model", "status", "--json"])
        .env("CODE_INTEL_MODEL_DIR", dir.path())
        .output()
        .unwrap();
    assert_eq!(stdout_json(&out)["cache_dir"], dir.path().to_str().unwrap());
    let out = Command::new(env!("CARGO_BIN_EXE_code-intel"))
        .args(["model", "status", "--json"])
        .env_remove("CODE_INTEL_MODEL_DIR")
        .env("XDG_CACHE_HOME", dir.path())
        .output()
        .unwrap();
    assert_eq!(
        stdout_json(&out)["cache_dir"],
        dir.path().join("code-intel/models").to_str().unwrap()
    );
}

#[cfg(not(feature = "online"))]
#[test]
fn online_without_the_feature_says_how_to_get_it() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().to_str().unwrap();
    let out = code_intel(&[
        "model",
        "fetch",
        "--cache-dir",
        cache,
        "--online",
        "BGESmallENV15",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("--features online"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn the_installed_model_verifies_and_loads() {
    let cache = support::model_cache();
    let out = code_intel(&[
        "model",
        "status",
        "--load",
        "--threads",
        "1",
        "--json",
        "--cache-dir",
        cache.to_str().unwrap(),
    ]);
    let report = stdout_json(&out);
    if report["state"] != "installed" {
        if std::env::var("CODE_INTEL_SKIP_MODEL_TESTS").as_deref() == Ok("1") {
            eprintln!(
                "\n!!! SKIPPING: no model in {} ({})\n",
                cache.display(),
                report["problem"]
            );
            return;
        }
        panic!(
            "no usable model in {}: {}\nrun scripts/model/fetch.sh (or CODE_INTEL_SKIP_MODEL_TESTS=1)",
            cache.display(),
            report["problem"]
        );
    }
    assert_eq!(out.status.code(), Some(0));
    let load = &report["load"];
    assert_eq!(load["dims"], 384);
    assert!(
        load["model_id"]
            .as_str()
            .unwrap()
            .starts_with("multilingual-e5-small@")
    );
    assert!(
        load["probe_related"].as_f64().unwrap() > load["probe_unrelated"].as_f64().unwrap(),
        "{load}"
    );
    assert_eq!(report["manifest"]["runtime_version"], "1.24.4");
}
