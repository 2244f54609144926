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
