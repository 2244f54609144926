//! `code-intel serve` driven byte by byte over its stdio, without an MCP client library: the
//! harness for what a library would never send (malformed JSON-RPC, invalid UTF-8, 20 MB lines)
//! and for many requests in flight at once. Used with `mod support;` (for `serve_command`).

#![allow(
    dead_code,
    reason = "each test binary compiles this module and uses only part of it"
)]

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::{Child, ChildStdin};
use tokio::sync::mpsc;

/// Long enough for a debug build on a loaded machine; a hang is forever.
pub const HANG: Duration = Duration::from_secs(180);

/// A running `code-intel serve` with its stdin to write to and its stdout lines, parsed.
pub struct Raw {
    pub child: Child,
    pub stdin: ChildStdin,
    pub lines: mpsc::UnboundedReceiver<Value>,
    pub pid: u32,
}

impl Raw {
    /// Spawns `cmd` (a `support::serve_command`) with piped stdin/stdout and reads its stdout
    /// lines on a task; a line that is not JSON fails the test (stdout is protocol only).
    pub fn spawn(mut cmd: tokio::process::Command) -> Self {
        cmd.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true);
        let mut child = cmd.spawn().expect("spawn code-intel serve");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let pid = child.id().unwrap();
        let (tx, lines) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut reader = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = reader.next_line().await {
                let v: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:.200}"));
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            stdin,
            lines,
            pid,
        }
    }

    /// [`spawn`](Self::spawn) for `repo` without a model, then the MCP handshake.
    pub async fn start(repo: &Path) -> Self {
        let mut cmd = crate::support::serve_command(repo);
        cmd.env("CODE_INTEL_EMBEDDINGS", "off");
        let mut raw = Self::spawn(cmd);
        raw.initialize().await;
        raw
    }

    /// `initialize` (id 0) and `notifications/initialized`.
    pub async fn initialize(&mut self) {
        self.send(&json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "raw-stdio-test", "version": "0"}}
        }))
        .await;
        let r = self.next().await;
        assert_eq!(r["id"], 0, "{r}");
        assert!(r["result"]["serverInfo"].is_object(), "{r}");
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
    }

    /// Writes `bytes` and a newline.
    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).await.unwrap();
        self.stdin.write_all(b"\n").await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    /// Writes `v` as one line.
    pub async fn send(&mut self, v: &Value) {
        self.send_raw(v.to_string().as_bytes()).await;
    }

    /// The next stdout message; panics after [`HANG`].
    pub async fn next(&mut self) -> Value {
        tokio::time::timeout(HANG, self.lines.recv())
            .await
            .unwrap_or_else(|_| panic!("no answer within {HANG:?}"))
            .expect("the server closed stdout")
    }

    /// Sends `v` and returns the next message (one request in flight).
    pub async fn ask(&mut self, v: &Value) -> Value {
        self.send(v).await;
        self.next().await
    }

    /// `tools/call` of `tool` with `args` under `id`; the answer.
    pub async fn call(&mut self, id: i64, tool: &str, args: Value) -> Value {
        let r = self
            .ask(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                         "params": {"name": tool, "arguments": args}}))
            .await;
        assert_eq!(r["id"], id, "{r}");
        r
    }

    /// The server's peak resident set (`VmHWM` of /proc/PID/status), in KiB.
    pub fn peak_rss_kib(&self) -> Option<u64> {
        proc_status_kib(self.pid, "VmHWM:")
    }
}

/// A `kB` field of /proc/PID/status.
pub fn proc_status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}
