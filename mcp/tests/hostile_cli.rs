//! Hostile file names through the CLI's text output: control characters are escaped, so a name
//! with a newline stays one line and an escape sequence cannot drive the terminal.

use std::process::Command;

#[test]
fn a_file_name_with_a_newline_prints_escaped_on_one_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a\nb\u{1b}[2J.py"),
        "def f():\n    return 1\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_code-intel"))
        .args(["search-text", "return", "--repo"])
        .arg(dir.path())
        .env("CODE_INTEL_LOG", "warn")
        .env("CODE_INTEL_EMBEDDINGS", "off")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout
            .lines()
            .any(|l| l == r"a\nb\u{1b}[2J.py:2:    return 1"),
        "{stdout:?}"
    );
    assert!(!stdout.contains('\u{1b}'), "{stdout:?}");
}

#[test]
fn a_bad_repo_path_is_one_clear_line_that_says_each_cause_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let missing = dir.path().join("missing dir");
    for (repo, cause) in [
        (&missing, "No such file or directory (os error 2)"),
        (&file, "not a directory"),
    ] {
        for cmd in ["index", "status", "search"] {
            let mut c = Command::new(env!("CARGO_BIN_EXE_code-intel"));
            c.arg(cmd);
            if cmd == "search" {
                c.arg("anything");
            }
            let out = c
                .arg("--repo")
                .arg(repo)
                .env("CODE_INTEL_LOG", "warn")
                .env("CODE_INTEL_EMBEDDINGS", "off")
                .output()
                .unwrap();
            let stderr = String::from_utf8(out.stderr).unwrap();
            assert_eq!(out.status.code(), Some(1), "{cmd}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{cmd}: {stderr}");
            assert!(stderr.contains("pass --repo DIR"), "{cmd}: {stderr}");
            assert_eq!(stderr.matches(cause).count(), 1, "{cmd}: {stderr}");
        }
    }
}

#[test]
fn a_broken_config_is_named_with_its_fix_and_its_parse_error_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".code-intel")).unwrap();
    std::fs::write(dir.path().join(".code-intel/config.json"), "{bad").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_code-intel"))
        .args(["index", "--repo"])
        .arg(dir.path())
        .env("CODE_INTEL_LOG", "warn")
        .env("CODE_INTEL_EMBEDDINGS", "off")
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("fix the JSON or delete the file"),
        "{stderr}"
    );
    assert_eq!(
        stderr
            .matches("key must be a string at line 1 column 2")
            .count(),
        1,
        "{stderr}"
    );
}
