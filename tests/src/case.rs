//! One real Claude Code run against the fake Messages API: a temp project, a fresh HOME and
//! CLAUDE_CONFIG_DIR, project hooks and MCP config, `claude -p` under a clean environment
//! (shared/docs/CLAUDE_CODE.md §10), and the parsed outcome.

use std::fs::File;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::fake_api::{FakeApi, LoggedRequest, Step, ToolResult, find_tool_result, tool_use_id};
use crate::fixture;
use crate::locate::{self, LocateError};

/// Default bound on one `claude -p` run.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(90);

/// Default prompt; the fake ignores it, the scripted steps decide what happens.
pub const DEFAULT_PROMPT: &str = "Make the change described in the task.";

/// Set to `1` to keep case directories (project, config, logs) after the run for debugging.
pub const KEEP_ENV: &str = "CODE_INTEL_E2E_KEEP";

/// How often the runner polls the child for exit.
const POLL: Duration = Duration::from_millis(20);

/// A case could not be set up or did not finish.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    /// A required program is missing.
    #[error(transparent)]
    Locate(#[from] LocateError),
    /// Filesystem or process IO failed.
    #[error("{action} {path}")]
    Io {
        /// What was being done, e.g. `writing`.
        action: &'static str,
        /// The file or program involved.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// Encoding a config document failed.
    #[error("encoding {path}")]
    Json {
        /// The file being written.
        path: PathBuf,
        /// The cause.
        #[source]
        source: serde_json::Error,
    },
    /// `claude` did not exit within the timeout and was killed.
    #[error("claude did not finish within {secs} s (killed); stderr tail:\n{stderr_tail}")]
    Timeout {
        /// The timeout in seconds.
        secs: u64,
        /// The last lines of its stderr.
        stderr_tail: String,
    },
}

fn io_err(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> CaseError {
    let path = path.to_owned();
    move |source| CaseError::Io {
        action,
        path,
        source,
    }
}

/// A Claude Code case under construction. Layout of its temp directory:
/// `proj/` (the fixture repository and cwd), `home/`, `config/` (CLAUDE_CONFIG_DIR), `bin/`
/// (scripts written by the test), `requests.jsonl`, `stdout.txt`, `stderr.txt`.
#[derive(Debug)]
pub struct ClaudeCase {
    dir: tempfile::TempDir,
    project: PathBuf,
    prompt: String,
    script: Vec<Step>,
    permission_mode: String,
    timeout: Duration,
    env: Vec<(String, String)>,
    args: Vec<String>,
    trusted: bool,
    search_path: Option<String>,
}

impl ClaudeCase {
    /// A case whose project holds the [`fixture`] repository; no hooks, no MCP servers, an empty
    /// script, `acceptEdits` mode, a 90 s timeout.
    ///
    /// # Errors
    /// Creating the temp directories or writing the fixture failed.
    pub fn new() -> Result<Self, CaseError> {
        let case = Self::in_temp_dir(None)?;
        fixture::write_fixture(&case.project)
            .map_err(io_err("writing fixture in", &case.project))?;
        Ok(case)
    }

    /// A case whose project is the existing directory `project` (e.g. a real repository), used
    /// as it is: nothing is written into it until the caller does (settings, `.mcp.json`), and it
    /// is never deleted. `home/`, `config/` and `bin/` live in a fresh temp directory as for
    /// [`Self::new`]; defaults as for [`Self::new`].
    ///
    /// # Errors
    /// `project` is not a directory, or creating the temp directories failed.
    pub fn with_project(project: &Path) -> Result<Self, CaseError> {
        let project = project
            .canonicalize()
            .map_err(io_err("resolving project", project))?;
        if !project.is_dir() {
            return Err(io_err("using as project", &project)(io::Error::new(
                io::ErrorKind::NotADirectory,
                "not a directory",
            )));
        }
        Self::in_temp_dir(Some(project))
    }

    /// The temp directory with `home/`, `config/`, `bin/` and, unless `project` is given, an
    /// empty `proj/` as the project.
    fn in_temp_dir(project: Option<PathBuf>) -> Result<Self, CaseError> {
        let mut dir = tempfile::Builder::new()
            .prefix("code-intel-e2e-")
            .tempdir()
            .map_err(io_err("creating", &std::env::temp_dir()))?;
        if std::env::var_os(KEEP_ENV).is_some_and(|v| v == "1") {
            dir.disable_cleanup(true);
            #[allow(clippy::print_stderr, reason = "debug aid asked for via env")]
            {
                eprintln!(
                    "{KEEP_ENV}=1: keeping case directory {}",
                    dir.path().display()
                );
            }
        }
        let root = dir.path().to_owned();
        let project = project.unwrap_or_else(|| root.join("proj"));
        for path in [
            project.clone(),
            root.join("home"),
            root.join("config"),
            root.join("bin"),
        ] {
            std::fs::create_dir_all(&path).map_err(io_err("creating", &path))?;
        }
        Ok(Self {
            dir,
            project,
            prompt: DEFAULT_PROMPT.to_owned(),
            script: Vec::new(),
            permission_mode: "acceptEdits".to_owned(),
            timeout: DEFAULT_TIMEOUT,
            env: Vec::new(),
            args: Vec::new(),
            trusted: true,
            search_path: None,
        })
    }

    /// The case's temp directory.
    pub fn case_dir(&self) -> &Path {
        self.dir.path()
    }

    /// The project directory (Claude Code's cwd and `CLAUDE_PROJECT_DIR`).
    pub fn project_dir(&self) -> &Path {
        &self.project
    }

    /// The absolute path of repository-relative `rel`, as Claude Code's file tools expect it.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.project.join(rel)
    }

    /// The absolute path of `rel` as a string, for tool inputs.
    pub fn path_str(&self, rel: &str) -> String {
        self.path(rel).to_string_lossy().into_owned()
    }

    /// Sets the scripted assistant turns.
    pub fn script(&mut self, steps: Vec<Step>) -> &mut Self {
        self.script = steps;
        self
    }

    /// Sets the prompt passed to `claude -p`.
    pub fn prompt(&mut self, prompt: &str) -> &mut Self {
        prompt.clone_into(&mut self.prompt);
        self
    }

    /// Sets `--permission-mode` (default `acceptEdits`).
    pub fn permission_mode(&mut self, mode: &str) -> &mut Self {
        mode.clone_into(&mut self.permission_mode);
        self
    }

    /// Sets the bound on the run.
    pub fn timeout(&mut self, timeout: Duration) -> &mut Self {
        self.timeout = timeout;
        self
    }

    /// Adds an environment variable for `claude` (and so for its hooks and MCP servers).
    pub fn env(&mut self, key: &str, value: &str) -> &mut Self {
        self.env.push((key.to_owned(), value.to_owned()));
        self
    }

    /// Whether the project counts as trusted (default `true`, like a repository whose user has
    /// accepted the trust dialog once). Trust is recorded in `<config>/.claude.json` as
    /// `projects[<project>].hasTrustDialogAccepted`. Under `-p`, hooks and `.mcp.json` servers run
    /// either way, but `permissions.allow` rules of an untrusted project's `.claude/settings.json`
    /// are ignored (observed with 2.1.328), so MCP tool calls are denied.
    pub fn trusted(&mut self, trusted: bool) -> &mut Self {
        self.trusted = trusted;
        self
    }

    /// Replaces the `PATH` of the run (default: [`locate::bin_dir`], the case's `bin/`,
    /// `/usr/local/bin:/usr/bin:/bin`), e.g. to prove an install needs no workspace binary.
    pub fn search_path(&mut self, path: &str) -> &mut Self {
        self.search_path = Some(path.to_owned());
        self
    }

    /// Adds extra command-line arguments after the standard ones.
    pub fn arg(&mut self, arg: &str) -> &mut Self {
        self.args.push(arg.to_owned());
        self
    }

    /// Writes `contents` to repository-relative `rel`, creating directories.
    ///
    /// # Errors
    /// The write failed.
    pub fn write(&self, rel: &str, contents: &str) -> Result<PathBuf, CaseError> {
        write_file(&self.path(rel), contents)
    }

    /// Reads repository-relative `rel`; `None` if it does not exist.
    ///
    /// # Errors
    /// Reading an existing file failed.
    pub fn read(&self, rel: &str) -> Result<Option<String>, CaseError> {
        let path = self.path(rel);
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok(Some(text)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_err("reading", &path)(e)),
        }
    }

    /// Writes `.claude/settings.json` (see [`crate::claude_config::settings_json`]).
    ///
    /// # Errors
    /// Encoding or writing failed.
    pub fn write_settings(&self, settings: &Value) -> Result<PathBuf, CaseError> {
        write_json(&self.path(".claude/settings.json"), settings)
    }

    /// Writes `.mcp.json` (see [`crate::claude_config::code_intel_mcp_json`]).
    ///
    /// # Errors
    /// Encoding or writing failed.
    pub fn write_mcp_json(&self, config: &Value) -> Result<PathBuf, CaseError> {
        write_json(&self.path(".mcp.json"), config)
    }

    /// Writes an executable script `bin/<name>` in the case directory (outside the project, so it
    /// never shows up as a repository file) and returns its absolute path.
    ///
    /// # Errors
    /// Writing or setting the mode failed.
    pub fn write_script(&self, name: &str, body: &str) -> Result<PathBuf, CaseError> {
        let path = self.case_dir().join("bin").join(name);
        write_file(&path, body)?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .map_err(io_err("chmod", &path))?;
        Ok(path)
    }

    /// Runs `claude -p <prompt> --output-format json --permission-mode <mode>` in the project
    /// against a fresh fake API playing the script (after recording trust, see [`Self::trusted`]),
    /// with a cleared environment: `PATH` =
    /// [`locate::bin_dir`], the case's `bin/`, `/usr/local/bin:/usr/bin:/bin`; a fresh `HOME` and
    /// `CLAUDE_CONFIG_DIR`; a dummy API key; no nonessential traffic or auto-update.
    ///
    /// # Errors
    /// Spawning or waiting failed, or the run exceeded the timeout ([`CaseError::Timeout`]; the
    /// process group is killed).
    pub fn run(&self, claude: &Path) -> Result<ClaudeRun, CaseError> {
        let root = self.case_dir();
        if self.trusted {
            let mut projects = serde_json::Map::new();
            projects.insert(
                self.project.to_string_lossy().into_owned(),
                serde_json::json!({ "hasTrustDialogAccepted": true }),
            );
            write_json(
                &root.join("config/.claude.json"),
                &serde_json::json!({ "projects": projects }),
            )?;
        }
        let api = FakeApi::start(self.script.clone(), &root.join("requests.jsonl")).map_err(
            io_err("starting fake api, log", &root.join("requests.jsonl")),
        )?;
        let stdout_path = root.join("stdout.txt");
        let stderr_path = root.join("stderr.txt");
        let stdout = File::create(&stdout_path).map_err(io_err("creating", &stdout_path))?;
        let stderr = File::create(&stderr_path).map_err(io_err("creating", &stderr_path))?;

        let path_var = self.search_path.clone().unwrap_or_else(|| {
            format!(
                "{}:{}:/usr/local/bin:/usr/bin:/bin",
                locate::bin_dir().display(),
                root.join("bin").display()
            )
        });
        let mut command = Command::new(claude);
        command
            .arg("-p")
            .arg(&self.prompt)
            .args(["--output-format", "json", "--permission-mode"])
            .arg(&self.permission_mode)
            .args(&self.args)
            .current_dir(&self.project)
            .env_clear()
            .env("PATH", path_var)
            .env("HOME", root.join("home"))
            .env("TERM", "dumb")
            .env("LANG", "C.UTF-8")
            .env("CLAUDE_CONFIG_DIR", root.join("config"))
            .env("ANTHROPIC_BASE_URL", api.base_url())
            .env("ANTHROPIC_API_KEY", "sk-ant-dummy")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            // Own process group, so a timeout can end claude together with its hooks and servers.
            .process_group(0);

        let started = Instant::now();
        let mut child = command.spawn().map_err(io_err("spawning", claude))?;
        let status = loop {
            if let Some(status) = child.try_wait().map_err(io_err("waiting for", claude))? {
                break status;
            }
            if started.elapsed() > self.timeout {
                kill_group(child.id());
                // Reap it; the kill above already ended it.
                drop(child.wait());
                return Err(CaseError::Timeout {
                    secs: self.timeout.as_secs(),
                    stderr_tail: tail(&read_lossy(&stderr_path), 40),
                });
            }
            std::thread::sleep(POLL);
        };
        let elapsed = started.elapsed();
        let requests = api.requests();
        drop(api);

        let stdout = read_lossy(&stdout_path);
        let stderr = read_lossy(&stderr_path);
        let result = parse_result(&stdout);
        Ok(ClaudeRun {
            status,
            stdout,
            stderr,
            result,
            requests,
            elapsed,
            case_dir: root.to_owned(),
        })
    }

    /// Keeps the case directory on disk after the case is dropped (for debugging a failure).
    pub fn keep(self) -> PathBuf {
        self.dir.keep()
    }
}

/// One permission denial from the result JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct Denial {
    /// The denied tool, e.g. `Write`.
    pub tool_name: String,
    /// The denied call's id (the fake's [`tool_use_id`]).
    pub tool_use_id: String,
    /// The denied call's input.
    pub tool_input: Value,
}

/// The outcome of one `claude -p` run.
#[derive(Debug)]
pub struct ClaudeRun {
    /// Claude Code's exit status.
    pub status: ExitStatus,
    /// Its whole stdout (the result JSON under `--output-format json`).
    pub stdout: String,
    /// Its whole stderr.
    pub stderr: String,
    /// The parsed result object, if stdout held one.
    pub result: Option<Value>,
    /// Every request the fake API received, in arrival order.
    pub requests: Vec<LoggedRequest>,
    /// Wall time of the run.
    pub elapsed: Duration,
    /// The case directory (deleted when the [`ClaudeCase`] is dropped).
    pub case_dir: PathBuf,
}

impl ClaudeRun {
    /// `permission_denials` from the result JSON (empty if absent).
    pub fn permission_denials(&self) -> Vec<Denial> {
        self.result
            .as_ref()
            .and_then(|r| r.get("permission_denials"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|d| Denial {
                tool_name: str_field(d, "tool_name"),
                tool_use_id: str_field(d, "tool_use_id"),
                tool_input: d.get("tool_input").cloned().unwrap_or(Value::Null),
            })
            .collect()
    }

    /// Whether the denials include the call `tool_use_id(step, block)`.
    pub fn denied(&self, step: usize, block: usize) -> bool {
        let id = tool_use_id(step, block);
        self.permission_denials()
            .iter()
            .any(|d| d.tool_use_id == id)
    }

    /// The result JSON's `is_error`.
    pub fn is_error(&self) -> Option<bool> {
        self.result.as_ref()?.get("is_error")?.as_bool()
    }

    /// The result JSON's `result` text.
    pub fn result_text(&self) -> Option<&str> {
        self.result.as_ref()?.get("result")?.as_str()
    }

    /// The `tool_result` Claude Code sent back for block `block` of scripted step `step`.
    pub fn tool_result(&self, step: usize, block: usize) -> Option<ToolResult> {
        find_tool_result(&self.requests, &tool_use_id(step, block))
    }

    /// The main-loop requests (those offering `Edit`), in order.
    pub fn main_loop_requests(&self) -> Vec<&LoggedRequest> {
        self.requests.iter().filter(|r| r.is_main_loop()).collect()
    }

    /// A multi-line summary for assertion messages: status, timing, result, denials, each scripted
    /// tool result, and the stderr tail.
    pub fn describe(&self) -> String {
        let mut out = format!(
            "claude exit {:?} after {:.1} s; case dir {}\nresult: {}\n",
            self.status.code(),
            self.elapsed.as_secs_f64(),
            self.case_dir.display(),
            self.result.as_ref().map_or_else(
                || format!("<unparsed stdout: {}>", tail(&self.stdout, 10)),
                summarize_result
            ),
        );
        for request in self.main_loop_requests() {
            if let Some(step) = request.step {
                out.push_str(&format!("main-loop request answered with step {step}\n"));
            }
            if let Some(message) = request
                .body
                .get("messages")
                .and_then(Value::as_array)
                .and_then(|m| m.last())
            {
                for block in message
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
                {
                    let text = block.to_string();
                    out.push_str(&format!("  tool_result: {}\n", truncate(&text, 600)));
                }
            }
        }
        out.push_str(&format!("stderr tail:\n{}", tail(&self.stderr, 20)));
        out
    }
}

/// The result object's fields that explain an outcome (drops usage and timing noise).
fn summarize_result(result: &Value) -> String {
    const KEEP: [&str; 6] = [
        "subtype",
        "is_error",
        "terminal_reason",
        "num_turns",
        "result",
        "permission_denials",
    ];
    let kept: serde_json::Map<String, Value> = KEEP
        .iter()
        .filter_map(|k| result.get(*k).map(|v| ((*k).to_owned(), v.clone())))
        .collect();
    Value::Object(kept).to_string()
}

fn str_field(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The result object: the whole stdout, else its last line that parses as a JSON object.
fn parse_result(stdout: &str) -> Option<Value> {
    serde_json::from_str::<Value>(stdout.trim())
        .ok()
        .filter(Value::is_object)
        .or_else(|| {
            stdout
                .lines()
                .rev()
                .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
                .find(Value::is_object)
        })
}

fn write_file(path: &Path, contents: &str) -> Result<PathBuf, CaseError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io_err("creating", parent))?;
    }
    std::fs::write(path, contents).map_err(io_err("writing", path))?;
    Ok(path.to_owned())
}

fn write_json(path: &Path, value: &Value) -> Result<PathBuf, CaseError> {
    let text = serde_json::to_string_pretty(value).map_err(|source| CaseError::Json {
        path: path.to_owned(),
        source,
    })?;
    write_file(path, &text)
}

fn read_lossy(path: &Path) -> String {
    std::fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// Sends SIGKILL to process group `pgid` (the child was spawned as its own group leader).
fn kill_group(pgid: u32) {
    // Without `unsafe` there is no libc::killpg; kill(1) takes a negative id for a group. A failure
    // means the group is already gone.
    let killed = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    drop(killed);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in for `claude` that records its argv, cwd and environment, then prints a result.
    const FAKE_CLAUDE: &str = r#"#!/bin/sh
printf '%s\n' "$@" > "$(dirname "$0")/../argv.txt"
pwd > "$(dirname "$0")/../cwd.txt"
env | sort > "$(dirname "$0")/../env.txt"
echo '{"type":"result","is_error":false,"result":"ok","permission_denials":[{"tool_name":"Write","tool_use_id":"toolu_e2e_00_00","tool_input":{"file_path":"/x"}}]}'
"#;

    #[test]
    fn runs_with_a_clean_environment_and_parses_the_result() {
        let mut case = ClaudeCase::new().unwrap();
        case.prompt("do it").env("EXTRA", "1").arg("--debug");
        let claude = case.write_script("fake-claude", FAKE_CLAUDE).unwrap();
        let run = case.run(&claude).unwrap();

        assert!(run.status.success(), "{}", run.describe());
        assert_eq!(run.is_error(), Some(false));
        assert_eq!(run.result_text(), Some("ok"));
        assert!(run.denied(0, 0));
        assert_eq!(run.permission_denials()[0].tool_input["file_path"], "/x");

        let root = case.case_dir();
        let argv = std::fs::read_to_string(root.join("argv.txt")).unwrap();
        assert_eq!(
            argv.lines().collect::<Vec<_>>(),
            [
                "-p",
                "do it",
                "--output-format",
                "json",
                "--permission-mode",
                "acceptEdits",
                "--debug"
            ]
        );
        let cwd = std::fs::read_to_string(root.join("cwd.txt")).unwrap();
        assert_eq!(Path::new(cwd.trim()), case.project_dir());

        let env = std::fs::read_to_string(root.join("env.txt")).unwrap();
        let vars: Vec<(&str, &str)> = env.lines().filter_map(|l| l.split_once('=')).collect();
        let get = |k: &str| vars.iter().find(|(key, _)| *key == k).map(|(_, v)| *v);
        assert_eq!(get("HOME"), root.join("home").to_str());
        assert_eq!(get("CLAUDE_CONFIG_DIR"), root.join("config").to_str());
        assert_eq!(get("EXTRA"), Some("1"));
        assert!(
            get("ANTHROPIC_BASE_URL").is_some_and(|u| u.starts_with("http://127.0.0.1:")),
            "{env}"
        );
        assert!(
            get("PATH")
                .is_some_and(|p| p.starts_with(&format!("{}:", locate::bin_dir().display()))),
            "{env}"
        );
        assert_eq!(
            get("CARGO_MANIFEST_DIR"),
            None,
            "environment was not cleared"
        );

        let trust: Value = serde_json::from_str(
            &std::fs::read_to_string(root.join("config/.claude.json")).unwrap(),
        )
        .unwrap();
        let key = case.project_dir().to_str().unwrap();
        assert_eq!(trust["projects"][key]["hasTrustDialogAccepted"], true);
    }

    #[test]
    fn with_project_runs_in_the_given_directory_without_a_fixture() {
        let project = tempfile::tempdir().unwrap();
        std::fs::write(project.path().join("app.py"), "x = 1\n").unwrap();
        let real = project.path().canonicalize().unwrap();
        let case = ClaudeCase::with_project(project.path()).unwrap();
        assert_eq!(case.project_dir(), real);
        assert!(!case.case_dir().starts_with(&real));
        let claude = case.write_script("fake-claude", FAKE_CLAUDE).unwrap();
        let run = case.run(&claude).unwrap();

        assert!(run.status.success(), "{}", run.describe());
        let cwd = std::fs::read_to_string(case.case_dir().join("cwd.txt")).unwrap();
        assert_eq!(Path::new(cwd.trim()), real);
        let names: Vec<_> = std::fs::read_dir(&real)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["app.py"], "nothing but the caller's files");
        let trust: Value = serde_json::from_str(
            &std::fs::read_to_string(case.case_dir().join("config/.claude.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(
            trust["projects"][real.to_str().unwrap()]["hasTrustDialogAccepted"],
            true
        );
        assert!(ClaudeCase::with_project(&real.join("missing")).is_err());
    }

    #[test]
    fn a_run_past_its_timeout_is_killed_and_reported() {
        let mut case = ClaudeCase::new().unwrap();
        case.timeout(Duration::from_millis(300));
        let claude = case
            .write_script("slow-claude", "#!/bin/sh\necho starting >&2\nsleep 30\n")
            .unwrap();
        match case.run(&claude) {
            Err(CaseError::Timeout {
                secs: 0,
                stderr_tail,
            }) => {
                assert_eq!(stderr_tail, "starting");
            }
            other => panic!("expected a timeout, got {other:?}"),
        }
    }
}
