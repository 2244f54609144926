//! `e2e_fake_mcp`: a minimal stdio MCP server for the harness self-tests. It offers one tool,
//! `echo {text}`, answers `initialize` (protocol 2025-11-25) and `tools/*`, rejects unknown
//! methods with -32601, and appends every message it receives to the JSONL file named by
//! `E2E_FAKE_MCP_LOG` (if set), so a test can see what Claude Code sent.

use std::fs::OpenOptions;
use std::io::{self, BufRead, Write};
use std::process::ExitCode;

use serde_json::{Value, json};

/// Environment variable naming the JSONL log of received messages.
const LOG_ENV: &str = "E2E_FAKE_MCP_LOG";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            #[allow(clippy::print_stderr, reason = "stderr is the server's log channel")]
            {
                eprintln!("e2e_fake_mcp: {e}");
            }
            ExitCode::FAILURE
        }
    }
}

fn run() -> io::Result<()> {
    let mut log = match std::env::var_os(LOG_ENV) {
        Some(path) => Some(OpenOptions::new().create(true).append(true).open(path)?),
        None => None,
    };
    let stdin = io::stdin();
    let mut stdout = io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        if let Some(log) = log.as_mut() {
            writeln!(log, "{}", line.trim())?;
        }
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        // Notifications carry no id and get no answer.
        let Some(id) = message.get("id").cloned() else {
            continue;
        };
        let method = message.get("method").and_then(Value::as_str).unwrap_or("");
        let reply = match answer(method, message.get("params").unwrap_or(&Value::Null)) {
            Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
            Err((code, text)) => json!({
                "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": text },
            }),
        };
        writeln!(stdout, "{reply}")?;
        stdout.flush()?;
    }
    Ok(())
}

fn answer(method: &str, params: &Value) -> Result<Value, (i64, String)> {
    match method {
        "initialize" => Ok(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": { "tools": { "listChanged": false } },
            "serverInfo": { "name": "e2e-fake-mcp", "version": "0.0.0" },
        })),
        "ping" => Ok(json!({})),
        "tools/list" => Ok(json!({ "tools": [{
            "name": "echo",
            "description": "Echo the given text back.",
            "inputSchema": {
                "type": "object",
                "properties": { "text": { "type": "string" } },
                "required": ["text"],
            },
        }] })),
        "tools/call" => {
            let text = params
                .pointer("/arguments/text")
                .and_then(Value::as_str)
                .unwrap_or("");
            Ok(
                json!({ "content": [{ "type": "text", "text": format!("echo: {text}") }], "isError": false }),
            )
        }
        other => Err((-32601, format!("method not found: {other}"))),
    }
}
