//! `code-intel-sandbox COMMAND` as a process, the way Claude Code runs it as its shell prefix
//! (`CLAUDE_CODE_SHELL_PREFIX`): a parent shell standing in for Claude Code (`CLAUDE_PID`, its
//! working directory the project), the launcher with one argument. What it confines, what it
//! runs unconfined (code-intel's own hook and server lines, only with `CLAUDE_PROJECT_DIR`), and
//! that it refuses to run a command it cannot compute the plan for. Ground truth: the files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SANDBOX: &str = env!("CARGO_BIN_EXE_code-intel-sandbox");

/// `t/proj` (a project: `.git/`, `.code-intel/config.json`, `src/a.py`), `t/bin` (fake
/// code-intel programs, first on PATH), `t/out` (outside the project).
struct Setup {
    _dir: tempfile::TempDir,
    t: PathBuf,
}

impl Setup {
    fn new(gate_mode: &str) -> Self {
        let probe = Command::new(SANDBOX).arg("--probe").output().unwrap();
        assert!(
            probe.status.success(),
            "Landlock unavailable on this kernel: {}",
            String::from_utf8_lossy(&probe.stdout)
        );
        let dir = tempfile::tempdir().unwrap();
        let t = std::fs::canonicalize(dir.path()).unwrap();
        for d in ["proj/.git", "proj/.code-intel", "proj/src", "bin", "out"] {
            std::fs::create_dir_all(t.join(d)).unwrap();
        }
        std::fs::write(t.join("proj/src/a.py"), "orig\n").unwrap();
        std::fs::write(
            t.join("proj/.code-intel/config.json"),
            format!("{{\"gate_mode\": \"{gate_mode}\"}}"),
        )
        .unwrap();
        // Stand-ins for the hooks and the server: each writes where only an unconfined process
        // may (code-intel's state), then exits with $CODE.
        for bin in [
            "code-intel-pre-tool-use",
            "code-intel-post-tool-use",
            "code-intel",
        ] {
            let path = t.join("bin").join(bin);
            std::fs::write(
                &path,
                format!(
                    "#!/bin/sh\necho ran >> '{}/proj/.code-intel/{bin}.log' || exit 9\nexit ${{CODE:-0}}\n",
                    t.display()
                ),
            )
            .unwrap();
            let mut perms = std::fs::metadata(&path).unwrap().permissions();
            std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
            std::fs::set_permissions(&path, perms).unwrap();
        }
        // The launcher runs from beside them, as it is installed next to the hooks (it prefers
        // its own directory over PATH for code-intel's programs).
        std::fs::copy(SANDBOX, t.join("bin/code-intel-sandbox")).unwrap();
        Self { _dir: dir, t }
    }

    fn p(&self, rel: &str) -> PathBuf {
        self.t.join(rel)
    }

    /// Runs `code-intel-sandbox <line>` from a `bash` whose working directory is the project and
    /// whose pid is `CLAUDE_PID` (as Claude Code spawns a Bash command), with `env` added.
    fn run(&self, line: &str, env: &[(&str, &str)]) -> Output {
        Command::new("bash")
            .arg("-c")
            .arg(r#"cd "$PROJ" && CLAUDE_PID=$$ "$SANDBOX" "$LINE"; rc=$?; exit $rc"#)
            .env_clear()
            .env(
                "PATH",
                format!("{}:/usr/local/bin:/usr/bin:/bin", self.p("bin").display()),
            )
            .env("HOME", self.p("out"))
            .env("PROJ", self.p("proj"))
            .env("SANDBOX", self.p("bin/code-intel-sandbox"))
            .env("LINE", line)
            .envs(env.iter().copied())
            .output()
            .unwrap()
    }

    fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.p(rel)).ok()
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_command_runs_under_the_plan_of_the_claude_code_project() {
    let s = Setup::new("strict");
    // Not directly in the home directory (`out`), which gets no new entries: `~/.gitconfig` and
    // the shells' startup files are protected before they exist.
    std::fs::create_dir_all(s.p("out/free")).unwrap();
    let out_file = s.p("out/free/o.txt");
    let line = format!(
        "echo pwned >> src/a.py; echo x > src/new.py; echo ok > '{}'; mkdir .code-intel/x; cat src/a.py",
        out_file.display()
    );
    let o = s.run(&line, &[("CLAUDE_CODE_SESSION_ID", "s-1")]);
    let err = stderr(&o);
    assert!(err.contains("src/a.py: Permission denied"), "{err}");
    assert!(err.contains("src/new.py: Permission denied"), "{err}");
    assert!(err.contains("Permission denied"), "{err}");
    assert_eq!(s.read("proj/src/a.py").as_deref(), Some("orig\n"));
    assert!(!s.p("proj/src/new.py").exists());
    assert!(!s.p("proj/.code-intel/x").exists());
    // Reads and writes outside the project are not touched.
    assert_eq!(String::from_utf8_lossy(&o.stdout), "orig\n");
    assert_eq!(s.read("out/free/o.txt").as_deref(), Some("ok\n"));
}

#[test]
fn the_gate_switched_off_confines_nothing() {
    let s = Setup::new("off");
    let o = s.run("echo more >> src/a.py", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(s.read("proj/src/a.py").as_deref(), Some("orig\nmore\n"));
}

#[test]
fn a_command_whose_project_is_unknown_is_not_run() {
    let s = Setup::new("off");
    // CLAUDE_PID names no ancestor and CLAUDE_PROJECT_DIR is unset: even with the gate off in
    // the project, the launcher cannot know that, so it refuses.
    let o = Command::new(SANDBOX)
        .arg("echo x > src/a.py")
        .current_dir(s.p("proj"))
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("CLAUDE_PID", "1")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(126));
    let err = stderr(&o);
    assert!(
        err.contains("this command was not run")
            && err.contains("code-intel doctor")
            && err.contains("settings.local.json"),
        "{err}"
    );
    assert_eq!(s.read("proj/src/a.py").as_deref(), Some("orig\n"));
}

#[test]
fn unreadable_state_refuses_the_command() {
    let s = Setup::new("strict");
    std::fs::write(s.p("proj/.code-intel/config.json"), "{\"gate_mode\": ").unwrap();
    let o = s.run("echo x > ../out/o.txt", &[]);
    assert_eq!(o.status.code(), Some(126), "{}", stderr(&o));
    assert!(stderr(&o).contains("was not run"), "{}", stderr(&o));
    assert!(!s.p("out/o.txt").exists());
}

#[test]
fn code_intels_own_lines_run_unconfined_only_as_claude_code_starts_them() {
    let s = Setup::new("strict");
    let proj = s.p("proj").display().to_string();
    let hook_env = [("CLAUDE_PROJECT_DIR", proj.as_str())];
    let log = |bin: &str| {
        s.read(&format!("proj/.code-intel/{bin}.log"))
            .unwrap_or_default()
    };

    // As Claude Code starts the hooks and the server: unconfined, they write the state.
    for (line, bin) in [
        ("code-intel-post-tool-use", "code-intel-post-tool-use"),
        ("code-intel serve", "code-intel"),
        (
            "code-intel-pre-tool-use || exit 2",
            "code-intel-pre-tool-use",
        ),
    ] {
        let o = s.run(line, &hook_env);
        assert!(o.status.success(), "{line}: {}", stderr(&o));
        assert_eq!(log(bin), "ran\n", "{line}");
        std::fs::remove_file(s.p(&format!("proj/.code-intel/{bin}.log"))).unwrap();
    }
    // A program of the hook's name earlier on PATH (planted by a command the sandbox allowed)
    // does not stand in for the hook beside the launcher.
    std::fs::create_dir_all(s.p("shadow")).unwrap();
    std::fs::write(s.p("shadow/code-intel-pre-tool-use"), "#!/bin/sh\nexit 0\n").unwrap();
    let mut perms = std::fs::metadata(s.p("shadow/code-intel-pre-tool-use"))
        .unwrap()
        .permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(s.p("shadow/code-intel-pre-tool-use"), perms).unwrap();
    let shadowed_path = format!(
        "{}:{}:/usr/bin:/bin",
        s.p("shadow").display(),
        s.p("bin").display()
    );
    let o = s.run(
        "code-intel-pre-tool-use || exit 2",
        &[
            ("CLAUDE_PROJECT_DIR", proj.as_str()),
            ("PATH", shadowed_path.as_str()),
            ("CODE", "1"),
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(2),
        "the real hook's answer, not the shadow's"
    );
    assert_eq!(log("code-intel-pre-tool-use"), "ran\n");
    std::fs::remove_file(s.p("proj/.code-intel/code-intel-pre-tool-use.log")).unwrap();

    // The PreToolUse line keeps its `|| exit 2`: any failure blocks.
    let o = s.run(
        "code-intel-pre-tool-use || exit 2",
        &[("CLAUDE_PROJECT_DIR", proj.as_str()), ("CODE", "1")],
    );
    assert_eq!(o.status.code(), Some(2));
    std::fs::remove_file(s.p("bin/code-intel-pre-tool-use")).unwrap();
    let o = s.run("code-intel-pre-tool-use || exit 2", &hook_env);
    assert_eq!(o.status.code(), Some(2), "a missing hook blocks");

    // Anything else, or the same without CLAUDE_PROJECT_DIR (a Bash command never has it):
    // confined, so the state cannot be written.
    for (line, env) in [
        ("code-intel-post-tool-use", &[][..]),
        ("code-intel-post-tool-use; true", &hook_env[..]),
        ("code-intel serve && true", &hook_env[..]),
        (
            "eval 'code-intel serve' && pwd -P >| /dev/null",
            &hook_env[..],
        ),
    ] {
        let o = s.run(line, env);
        assert_eq!(log("code-intel-post-tool-use"), "", "{line}");
        assert_eq!(log("code-intel"), "", "{line}");
        assert!(
            stderr(&o).contains("Permission denied"),
            "{line}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn claude_codes_working_directory_file_is_writable_beside_the_project() {
    // The temporary directory holds the project, so a sandboxed command cannot create entries
    // in it; the file Claude Code's command line ends by writing is made beforehand.
    let s = Setup::new("strict");
    let cwd_file = s.p("claude-5e1f-cwd");
    let line = format!(
        "eval 'ls src' < /dev/null && pwd -P >| {}",
        cwd_file.display()
    );
    let o = s.run(&line, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&cwd_file).unwrap(),
        format!("{}\n", s.p("proj").display())
    );
    // Another file there still cannot be created.
    let o = s.run(&format!("echo x > {}", s.p("other").display()), &[]);
    assert!(!o.status.success());
    assert!(!Path::new(&s.p("other")).exists());
}

/// The directories of the PATH Claude Code gives the command are protected: a program planted
/// there (`git`, a hook's name) would later run unconfined when Claude Code or an exec-form hook
/// starts it by name. A PATH directory that does not exist yet cannot be created either; the
/// home directory's existing entries stay writable.
#[test]
fn path_directories_cannot_receive_programs() {
    let s = Setup::new("strict");
    std::fs::create_dir_all(s.p("out/.local")).unwrap();
    std::fs::create_dir_all(s.p("out/tools")).unwrap();
    std::fs::create_dir_all(s.p("out/free")).unwrap();
    let path = format!(
        "{}:{}:{}:/usr/local/bin:/usr/bin:/bin",
        s.p("out/.local/bin").display(),
        s.p("out/tools").display(),
        s.p("bin").display(),
    );
    let line = format!(
        "mkdir -p '{local}/bin' && cp /bin/true '{local}/bin/git'; cp /bin/true '{tools}/git'; \
         cp /bin/true '{bin}/code-intel-post-tool-use-2'; echo ok > '{out}/free/f.txt'",
        local = s.p("out/.local").display(),
        tools = s.p("out/tools").display(),
        bin = s.p("bin").display(),
        out = s.p("out").display(),
    );
    let o = s.run(&line, &[("PATH", &path)]);
    assert!(!s.p("out/.local/bin").exists(), "{}", stderr(&o));
    assert!(!s.p("out/tools/git").exists(), "{}", stderr(&o));
    assert!(
        !s.p("bin/code-intel-post-tool-use-2").exists(),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        s.read("out/free/f.txt").as_deref(),
        Some("ok\n"),
        "{}",
        stderr(&o)
    );
}

/// What programs Claude Code starts unconfined read from the home directory — git's user
/// configuration (Claude Code runs `git` itself) and the shells' startup files (its shell
/// snapshot) — cannot be written or created by a confined command, nor can `~/.claude.json`.
#[test]
fn configuration_read_by_unconfined_programs_is_protected() {
    let s = Setup::new("strict");
    std::fs::write(s.p("out/.bashrc"), "# user\n").unwrap();
    std::fs::create_dir_all(s.p("out/.config")).unwrap();
    let line = "printf '[core]\\n\\tfsmonitor = /tmp/x\\n' >> ~/.gitconfig; echo 'touch /tmp/x' >> ~/.bashrc; \
                mkdir -p ~/.config/git && echo x > ~/.config/git/config; echo '{}' > ~/.claude.json; \
                echo x > ~/.zshenv";
    let o = s.run(line, &[]);
    for f in [".gitconfig", ".config/git", ".claude.json", ".zshenv"] {
        assert!(!s.p("out").join(f).exists(), "{f}: {}", stderr(&o));
    }
    assert_eq!(s.read("out/.bashrc").as_deref(), Some("# user\n"));
}

/// A PATH directory inside the project in an ignored (writable) directory — the `bin` of a
/// virtualenv activated before Claude Code started — stays unwritable; the rest of the
/// virtualenv stays writable.
#[test]
fn a_path_directory_in_an_ignored_directory_of_the_project_stays_unwritable() {
    let s = Setup::new("strict");
    for d in ["proj/.venv/bin", "proj/.venv/lib"] {
        std::fs::create_dir_all(s.p(d)).unwrap();
    }
    let path = format!(
        "{}:{}:/usr/local/bin:/usr/bin:/bin",
        s.p("proj/.venv/bin").display(),
        s.p("bin").display(),
    );
    let o = s.run(
        "cp /bin/true .venv/bin/git; echo x > .venv/lib/site.py; echo y > .venv/new.cfg",
        &[("PATH", &path)],
    );
    assert!(!s.p("proj/.venv/bin/git").exists(), "{}", stderr(&o));
    assert_eq!(
        s.read("proj/.venv/lib/site.py").as_deref(),
        Some("x\n"),
        "{}",
        stderr(&o)
    );
    assert!(!s.p("proj/.venv/new.cfg").exists());
}
