//! `code-intel-sandbox` as a process: what the Landlock ruleset it builds leaves writable. Each
//! case runs one shell command under the launcher and checks the file system afterwards, so a
//! protected path that became writable (a change to the walk that grants the complement of the
//! protected paths) fails here.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SANDBOX: &str = env!("CARGO_BIN_EXE_code-intel-sandbox");

fn assert_landlock() {
    let probe = Command::new(SANDBOX).arg("--probe").output().unwrap();
    assert!(
        probe.status.success(),
        "Landlock unavailable on this kernel: {}",
        String::from_utf8_lossy(&probe.stdout)
    );
}

/// Runs `command` under the launcher with `args` (`--protect`/`--allow` pairs).
fn sandboxed(args: &[&str], command: &str) -> Output {
    Command::new(SANDBOX)
        .args(args)
        .arg("--")
        .arg(command)
        .output()
        .unwrap()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

/// The layout the cases write into, beneath a temporary directory `t` (its real location):
///
/// ```text
/// t/repo/            protected, with f, sub/g and target/ (allowed beneath it)
/// t/bin/code-intel-x protected file, next to other (a file) and sub/ (a directory)
/// t/bin/sub/to-repo  symbolic link to t/repo/f
/// t/link -> real/    protected as t/link (the real tree must be protected)
/// t/many/            300 files, f0 protected (more entries than descriptors kept open)
/// t/free/            nothing protected
/// ```
struct Layout {
    _dir: tempfile::TempDir,
    t: PathBuf,
}

impl Layout {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let t = std::fs::canonicalize(dir.path()).unwrap();
        for d in ["repo/sub", "repo/target", "bin/sub", "real", "many", "free"] {
            std::fs::create_dir_all(t.join(d)).unwrap();
        }
        for f in [
            "repo/f",
            "repo/sub/g",
            "bin/code-intel-x",
            "bin/other",
            "real/h",
        ] {
            std::fs::write(t.join(f), "orig\n").unwrap();
        }
        for i in 0..300 {
            std::fs::write(t.join(format!("many/f{i}")), "orig\n").unwrap();
        }
        std::os::unix::fs::symlink(t.join("repo/f"), t.join("bin/sub/to-repo")).unwrap();
        std::os::unix::fs::symlink(t.join("real"), t.join("link")).unwrap();
        Self { _dir: dir, t }
    }

    fn p(&self, rel: &str) -> PathBuf {
        self.t.join(rel)
    }

    /// The launcher's arguments for this layout.
    fn args(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (flag, rel) in [
            ("--protect", "repo"),
            ("--protect", "bin/code-intel-x"),
            ("--protect", "link"),
            ("--protect", "many/f0"),
            ("--allow", "repo/target"),
        ] {
            out.push(flag.to_owned());
            out.push(self.p(rel).display().to_string());
        }
        out
    }

    /// Runs `command` (with `T` set to the layout's root) under the launcher.
    fn run(&self, command: &str) -> Output {
        let args = self.args();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        sandboxed(&args, &format!("T='{}'; {command}", self.t.display()))
    }
}

/// Every protected path stays unwritable through every kind of write: new entries, appends,
/// removal, renames over and out of it, a path through a symbolic link to it, a link in a
/// writable directory pointing at it; entries beside a protected binary cannot be created.
#[test]
fn protected_paths_stay_unwritable() {
    assert_landlock();
    let l = Layout::new();
    let refused = [
        ("echo x > \"$T/repo/new\"", "repo/new"),
        ("echo x >> \"$T/repo/f\"", "repo/f"),
        ("echo x > \"$T/repo/sub/new\"", "repo/sub/new"),
        ("echo x >> \"$T/repo/sub/g\"", "repo/sub/g"),
        ("mkdir \"$T/repo/d\"", "repo/d"),
        ("rm -f \"$T/repo/f\"", "repo/f"),
        ("mv \"$T/repo/sub/g\" \"$T/free/g\"", "repo/sub/g"),
        ("echo x > \"$T/bin/code-intel-x\"", "bin/code-intel-x"),
        ("rm -f \"$T/bin/code-intel-x\"", "bin/code-intel-x"),
        (
            "mv \"$T/bin/other\" \"$T/bin/code-intel-x\"",
            "bin/code-intel-x",
        ),
        ("echo x > \"$T/bin/new\"", "bin/new"),
        ("echo x >> \"$T/bin/sub/to-repo\"", "repo/f"),
        ("echo x >> \"$T/real/h\"", "real/h"),
        ("echo x > \"$T/real/new\"", "real/new"),
        ("echo x >> \"$T/many/f0\"", "many/f0"),
    ];
    for (command, target) in refused {
        let out = l.run(command);
        let target = l.p(target);
        let exists = target.exists();
        assert!(
            !out.status.success(),
            "{command}: should fail: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if target.ends_with("new") || target.ends_with("d") {
            assert!(!exists, "{command} created {}", target.display());
        } else {
            assert_eq!(
                read(&target),
                "orig\n",
                "{command} changed {}",
                target.display()
            );
        }
    }
}

/// Beside the protected paths everything stays writable: existing entries next to a protected
/// binary, directories beside it, the allowed tree beneath a protected one, unrelated trees, all
/// entries of a directory with more entries than the launcher keeps descriptors open; reads
/// everywhere.
#[test]
fn the_complement_stays_writable() {
    assert_landlock();
    let l = Layout::new();
    let written = [
        ("echo x > \"$T/repo/target/out\"", "repo/target/out"),
        ("echo x >> \"$T/bin/other\"", "bin/other"),
        ("echo x > \"$T/bin/sub/new\"", "bin/sub/new"),
        ("echo x > \"$T/free/new\"", "free/new"),
        ("echo x >> \"$T/many/f1\"", "many/f1"),
        ("echo x >> \"$T/many/f299\"", "many/f299"),
    ];
    for (command, target) in written {
        let out = l.run(command);
        assert!(
            out.status.success(),
            "{command}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(read(&l.p(target)).ends_with("x\n"), "{command}");
    }
    let out =
        l.run("mkdir \"$T/free/d\" && rm -r \"$T/free/d\" && cat \"$T/repo/f\" \"$T/real/h\"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "orig\norig\n");
}

/// `--protect /` leaves nothing writable (the walk cannot grant a sibling of the root).
#[test]
fn protecting_the_root_grants_nothing() {
    assert_landlock();
    let l = Layout::new();
    let out = sandboxed(
        &["--protect", "/"],
        &format!("echo x > '{}'", l.p("free/new").display()),
    );
    assert!(!out.status.success());
    assert!(!l.p("free/new").exists());
}

/// A protected path that does not exist yet (a PATH directory such as `~/.local/bin` before
/// anything is installed there) cannot be created, nor can anything inside it: its nearest
/// existing ancestor gets no new entry, its existing entries stay writable.
#[test]
fn a_missing_protected_path_cannot_be_created() {
    assert_landlock();
    let l = Layout::new();
    let missing = l.p("free/local/bin");
    std::fs::write(l.p("free/other"), "").unwrap();
    let out = sandboxed(
        &["--protect", &missing.to_string_lossy()],
        &format!(
            "echo x > '{free}/other'; mkdir -p '{bin}'; echo x > '{bin}/git'; mkdir '{free}/local'",
            free = l.p("free").display(),
            bin = missing.display(),
        ),
    );
    assert!(
        !missing.exists(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!l.p("free/local").exists());
    assert_eq!(read(&l.p("free/other")), "x\n");
    // The same with the ancestor there: `local` gets no new entry, its existing ones stay
    // writable.
    std::fs::create_dir_all(l.p("free/local/share")).unwrap();
    let out = sandboxed(
        &["--protect", &missing.to_string_lossy()],
        &format!(
            "mkdir -p '{bin}'; echo x > '{local}/share/f'; mv '{local}' '{free}/moved'",
            bin = missing.display(),
            local = l.p("free/local").display(),
            free = l.p("free").display(),
        ),
    );
    assert!(
        !missing.exists(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(read(&l.p("free/local/share/f")), "x\n");
    assert!(!l.p("free/moved").exists());
}
