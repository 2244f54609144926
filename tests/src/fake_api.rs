//! A fake Anthropic Messages API on 127.0.0.1 that plays back scripted assistant turns and logs
//! every request, so real Claude Code can run offline (shared/docs/CLAUDE_CODE.md §10).
//!
//! Keying, as observed with Claude Code 2.1.328: a request whose `tools` include `Edit` belongs to
//! the main agent loop; the number of `assistant` messages already in its `messages` picks the
//! scripted [`Step`]. Every other request (titles, summaries, sub-queries), and any main-loop
//! request after the script is spent, gets a plain text `end_turn` answer.
//!
//! The server is `std::net` plus one thread per connection: every response carries
//! `connection: close`, so no keep-alive handling is needed.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{Value, json};

/// Text of the answer to every request that is not a scripted main-loop step.
pub const DEFAULT_TEXT: &str = "Done.";

/// Largest request body accepted, in bytes (Claude Code's main-loop requests carry the whole tool
/// list and system prompt, typically 100–300 KB).
const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// How long a connection may stay silent while its request is read.
const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// One content block of a scripted assistant turn.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// A text block.
    Text(String),
    /// A `tool_use` block; Claude Code runs the tool for real (hooks, permissions, MCP).
    ToolUse {
        /// Tool name as Claude Code offers it: `Write`, `Edit`, `Bash`, `mcp__code-intel__start_session`.
        name: String,
        /// The tool input object, sent verbatim.
        input: Value,
    },
}

/// One scripted assistant turn: a main-loop request with `n` assistant messages already in its
/// history is answered with step `n` (0-based).
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The blocks of the turn, in order. `stop_reason` is `tool_use` if any block is a tool use,
    /// else `end_turn`.
    pub blocks: Vec<Block>,
}

impl Step {
    /// A turn with one tool call.
    pub fn tool(name: impl Into<String>, input: Value) -> Self {
        Self {
            blocks: vec![Block::ToolUse {
                name: name.into(),
                input,
            }],
        }
    }

    /// A turn with several tool calls (Claude Code may run them in parallel).
    pub fn tools<N: Into<String>>(calls: impl IntoIterator<Item = (N, Value)>) -> Self {
        Self {
            blocks: calls
                .into_iter()
                .map(|(name, input)| Block::ToolUse {
                    name: name.into(),
                    input,
                })
                .collect(),
        }
    }

    /// A final text turn (`end_turn`).
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            blocks: vec![Block::Text(text.into())],
        }
    }

    /// Whether the turn asks for at least one tool.
    pub fn uses_tools(&self) -> bool {
        self.blocks
            .iter()
            .any(|b| matches!(b, Block::ToolUse { .. }))
    }
}

/// The `tool_use` id the fake gives block `block` of step `step` (both 0-based), so a test can find
/// the matching `tool_result` in a later request.
pub fn tool_use_id(step: usize, block: usize) -> String {
    format!("toolu_e2e_{step:02}_{block:02}")
}

/// One request the fake received.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedRequest {
    /// HTTP method, e.g. `POST`.
    pub method: String,
    /// Request target including the query, e.g. `/v1/messages?beta=true`.
    pub target: String,
    /// Parsed JSON body; `Value::Null` for an empty or non-JSON body.
    pub body: Value,
    /// The scripted step this request was answered with (`None`: default text answer).
    pub step: Option<usize>,
}

impl LoggedRequest {
    /// Whether this is a Messages API call (`POST /v1/messages`, any query).
    pub fn is_messages(&self) -> bool {
        self.method == "POST" && path_of(&self.target) == "/v1/messages"
    }

    /// Whether this request belongs to the main agent loop (its `tools` include `Edit`).
    pub fn is_main_loop(&self) -> bool {
        self.is_messages() && offers_tool(&self.body, "Edit")
    }

    /// Names of the tools offered in this request, in order.
    pub fn tool_names(&self) -> Vec<String> {
        self.body
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|t| t.get("name").and_then(Value::as_str).map(str::to_owned))
            .collect()
    }

    /// The `tool_result` block answering `tool_use_id` in this request's messages, if any.
    pub fn tool_result(&self, tool_use_id: &str) -> Option<ToolResult> {
        messages(&self.body)
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
            .filter_map(|m| m.get("content").and_then(Value::as_array))
            .flatten()
            .find(|b| {
                b.get("type").and_then(Value::as_str) == Some("tool_result")
                    && b.get("tool_use_id").and_then(Value::as_str) == Some(tool_use_id)
            })
            .map(ToolResult::from_block)
    }
}

/// A `tool_result` block Claude Code sent back after running a scripted tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The block's `is_error` (absent counts as `false`).
    pub is_error: bool,
    /// The content as text: a string content verbatim, or the `text` of each text block joined
    /// with `\n`.
    pub content: String,
    /// The raw block.
    pub raw: Value,
}

impl ToolResult {
    fn from_block(block: &Value) -> Self {
        let content = match block.get("content") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(parts)) => parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        };
        Self {
            is_error: block
                .get("is_error")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            content,
            raw: block.clone(),
        }
    }
}

/// Finds the first `tool_result` for `tool_use_id` across `requests`, in arrival order.
pub fn find_tool_result(requests: &[LoggedRequest], tool_use_id: &str) -> Option<ToolResult> {
    requests.iter().find_map(|r| r.tool_result(tool_use_id))
}

/// A running fake Messages API; stops (and joins its accept thread) on drop.
#[derive(Debug)]
pub struct FakeApi {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

#[derive(Debug)]
struct Shared {
    script: Vec<Step>,
    log: Mutex<Log>,
    stopping: AtomicBool,
    next_message: AtomicU64,
}

#[derive(Debug)]
struct Log {
    requests: Vec<LoggedRequest>,
    file: File,
    path: PathBuf,
}

impl FakeApi {
    /// Binds 127.0.0.1 on an OS-assigned port and starts serving `script`; every request is
    /// appended to `log_path` as one JSON line `{method, target, step, body}`.
    ///
    /// # Errors
    /// Binding the socket, creating the log file or spawning the accept thread failed.
    pub fn start(script: Vec<Step>, log_path: &Path) -> io::Result<Self> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            script,
            log: Mutex::new(Log {
                requests: Vec::new(),
                file: File::create(log_path)?,
                path: log_path.to_owned(),
            }),
            stopping: AtomicBool::new(false),
            next_message: AtomicU64::new(1),
        });
        let accept_shared = Arc::clone(&shared);
        let accept = std::thread::Builder::new()
            .name("fake-api-accept".into())
            .spawn(move || accept_loop(&listener, &accept_shared))?;
        Ok(Self {
            addr,
            shared,
            accept: Some(accept),
        })
    }

    /// The value for `ANTHROPIC_BASE_URL`, e.g. `http://127.0.0.1:40123`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// A snapshot of the requests received so far, in arrival order.
    pub fn requests(&self) -> Vec<LoggedRequest> {
        self.shared
            .log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .requests
            .clone()
    }

    /// The JSONL request log.
    pub fn log_path(&self) -> PathBuf {
        self.shared
            .log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .path
            .clone()
    }
}

impl Drop for FakeApi {
    fn drop(&mut self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        // Wake the blocking accept; failure means the listener is already gone.
        if TcpStream::connect(self.addr).is_ok()
            && let Some(handle) = self.accept.take()
        {
            // A panicked accept thread has nothing left to clean up.
            drop(handle.join());
        }
    }
}

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.stopping.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = stream else { continue };
        let conn_shared = Arc::clone(shared);
        // Connection threads are detached: each ends when its client closes or times out.
        let spawned = std::thread::Builder::new()
            .name("fake-api-conn".into())
            .spawn(move || {
                // A broken connection only affects that client, which retries or fails visibly.
                drop(serve_connection(stream, &conn_shared));
            });
        drop(spawned);
    }
}

struct HttpRequest {
    method: String,
    target: String,
    body: Vec<u8>,
}

fn serve_connection(stream: TcpStream, shared: &Shared) -> io::Result<()> {
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let Some(request) = read_request(&mut reader)? else {
        return Ok(());
    };
    let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
    let step = pick_step(&request, &body, &shared.script);
    let logged = LoggedRequest {
        method: request.method,
        target: request.target,
        body,
        step,
    };
    shared.record(&logged)?;

    let mut out = stream;
    if !logged.is_messages() {
        return respond_json(&mut out, &other_response(&logged));
    }
    let message_id = format!(
        "msg_e2e_{:04}",
        shared.next_message.fetch_add(1, Ordering::SeqCst)
    );
    let model = logged
        .body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("claude-e2e")
        .to_owned();
    let reply = match step {
        Some(i) => Reply::from_step(i, &shared.script[i]),
        None => Reply::text(DEFAULT_TEXT),
    };
    if logged.body.get("stream").and_then(Value::as_bool) == Some(true) {
        respond_sse(&mut out, &reply.sse_events(&message_id, &model))
    } else {
        respond_json(&mut out, &reply.message(&message_id, &model))
    }
}

impl Shared {
    fn record(&self, request: &LoggedRequest) -> io::Result<()> {
        let mut log = self.log.lock().unwrap_or_else(PoisonError::into_inner);
        let line = json!({
            "method": request.method,
            "target": request.target,
            "step": request.step,
            "body": request.body,
        });
        serde_json::to_writer(&mut log.file, &line)?;
        log.file.write_all(b"\n")?;
        log.file.flush()?;
        log.requests.push(request.clone());
        Ok(())
    }
}

/// Reads one HTTP/1.1 request; `Ok(None)` when the client closed before sending one.
fn read_request(reader: &mut impl BufRead) -> io::Result<Option<HttpRequest>> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let target = parts.next().unwrap_or("/").to_owned();

    let mut content_length = 0usize;
    let mut chunked = false;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 {
            break;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let Some((name, value)) = header.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            content_length = value.parse().map_err(|_| bad_request("content-length"))?;
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = value.to_ascii_lowercase().contains("chunked");
        }
    }

    let body = if chunked {
        read_chunked(reader)?
    } else {
        if content_length > MAX_BODY_BYTES {
            return Err(bad_request("body too large"));
        }
        let mut body = vec![0; content_length];
        reader.read_exact(&mut body)?;
        body
    };
    Ok(Some(HttpRequest {
        method,
        target,
        body,
    }))
}

fn read_chunked(reader: &mut impl BufRead) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size_line = String::new();
        reader.read_line(&mut size_line)?;
        let size_hex = size_line.trim().split(';').next().unwrap_or_default();
        let size = usize::from_str_radix(size_hex, 16).map_err(|_| bad_request("chunk size"))?;
        if size == 0 {
            // Trailers until the blank line.
            loop {
                let mut trailer = String::new();
                if reader.read_line(&mut trailer)? == 0 || trailer.trim().is_empty() {
                    return Ok(body);
                }
            }
        }
        if body.len() + size > MAX_BODY_BYTES {
            return Err(bad_request("body too large"));
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        let mut crlf = [0u8; 2];
        reader.read_exact(&mut crlf)?;
    }
}

fn bad_request(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("bad request: {what}"))
}

fn path_of(target: &str) -> &str {
    target.split('?').next().unwrap_or(target)
}

fn messages(body: &Value) -> impl Iterator<Item = &Value> {
    body.get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn offers_tool(body: &Value, name: &str) -> bool {
    body.get("tools")
        .and_then(Value::as_array)
        .is_some_and(|tools| {
            tools
                .iter()
                .any(|t| t.get("name").and_then(Value::as_str) == Some(name))
        })
}

/// The scripted step for a main-loop request, by the number of assistant messages so far.
fn pick_step(request: &HttpRequest, body: &Value, script: &[Step]) -> Option<usize> {
    if request.method != "POST"
        || path_of(&request.target) != "/v1/messages"
        || !offers_tool(body, "Edit")
    {
        return None;
    }
    let turns = messages(body)
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
        .count();
    (turns < script.len()).then_some(turns)
}

fn other_response(request: &LoggedRequest) -> Value {
    if request.method == "POST" && path_of(&request.target) == "/v1/messages/count_tokens" {
        json!({ "input_tokens": 100 })
    } else if request.method == "GET" {
        json!({ "data": [], "has_more": false })
    } else {
        json!({})
    }
}

/// The answer to one Messages request, as blocks with their wire ids.
struct Reply {
    blocks: Vec<Value>,
    stop_reason: &'static str,
}

impl Reply {
    fn text(text: &str) -> Self {
        Self {
            blocks: vec![json!({ "type": "text", "text": text })],
            stop_reason: "end_turn",
        }
    }

    fn from_step(index: usize, step: &Step) -> Self {
        let blocks = step
            .blocks
            .iter()
            .enumerate()
            .map(|(i, block)| match block {
                Block::Text(text) => json!({ "type": "text", "text": text }),
                Block::ToolUse { name, input } => json!({
                    "type": "tool_use",
                    "id": tool_use_id(index, i),
                    "name": name,
                    "input": input,
                }),
            })
            .collect();
        Self {
            blocks,
            stop_reason: if step.uses_tools() {
                "tool_use"
            } else {
                "end_turn"
            },
        }
    }

    fn usage() -> Value {
        json!({
            "input_tokens": 100,
            "output_tokens": 20,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        })
    }

    fn message(&self, id: &str, model: &str) -> Value {
        json!({
            "id": id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": self.blocks,
            "stop_reason": self.stop_reason,
            "stop_sequence": null,
            "usage": Self::usage(),
        })
    }

    /// The SSE events of a streamed answer, in order (CLAUDE_CODE.md §10).
    fn sse_events(&self, id: &str, model: &str) -> Vec<(&'static str, Value)> {
        let mut events = vec![(
            "message_start",
            json!({
                "type": "message_start",
                "message": {
                    "id": id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": null,
                    "stop_sequence": null,
                    "usage": Self::usage(),
                },
            }),
        )];
        for (index, block) in self.blocks.iter().enumerate() {
            let (start, delta) = if block["type"] == "tool_use" {
                (
                    json!({ "type": "tool_use", "id": block["id"], "name": block["name"], "input": {} }),
                    json!({ "type": "input_json_delta", "partial_json": block["input"].to_string() }),
                )
            } else {
                (
                    json!({ "type": "text", "text": "" }),
                    json!({ "type": "text_delta", "text": block["text"] }),
                )
            };
            events.push((
                "content_block_start",
                json!({ "type": "content_block_start", "index": index, "content_block": start }),
            ));
            events.push((
                "content_block_delta",
                json!({ "type": "content_block_delta", "index": index, "delta": delta }),
            ));
            events.push((
                "content_block_stop",
                json!({ "type": "content_block_stop", "index": index }),
            ));
        }
        events.push((
            "message_delta",
            json!({
                "type": "message_delta",
                "delta": { "stop_reason": self.stop_reason, "stop_sequence": null },
                "usage": { "output_tokens": 20 },
            }),
        ));
        events.push(("message_stop", json!({ "type": "message_stop" })));
        events
    }
}

fn respond_json(out: &mut TcpStream, body: &Value) -> io::Result<()> {
    let body = body.to_string();
    write!(
        out,
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )?;
    out.flush()
}

fn respond_sse(out: &mut TcpStream, events: &[(&str, Value)]) -> io::Result<()> {
    let mut text = String::from(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n",
    );
    for (name, data) in events {
        text.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    }
    out.write_all(text.as_bytes())?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn post(addr: &str, path: &str, body: &Value) -> String {
        let mut stream = TcpStream::connect(addr.trim_start_matches("http://")).unwrap();
        let body = body.to_string();
        write!(
            stream,
            "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        response
    }

    fn main_loop_body(assistant_turns: usize, stream: bool) -> Value {
        let mut messages = vec![json!({ "role": "user", "content": "go" })];
        for _ in 0..assistant_turns {
            messages
                .push(json!({ "role": "assistant", "content": [{ "type": "text", "text": "…" }] }));
            messages.push(json!({ "role": "user", "content": [{
                "type": "tool_result", "tool_use_id": "toolu_e2e_00_00", "is_error": true,
                "content": [{ "type": "text", "text": "nope" }],
            }] }));
        }
        json!({
            "model": "claude-test",
            "stream": stream,
            "tools": [{ "name": "Read" }, { "name": "Edit" }],
            "messages": messages,
        })
    }

    #[test]
    fn plays_back_steps_by_assistant_count_and_logs_requests() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("requests.jsonl");
        let script = vec![
            Step::tool("Write", json!({ "file_path": "/x", "content": "y" })),
            Step::text("finished"),
        ];
        let api = FakeApi::start(script, &log).unwrap();
        let url = api.base_url();

        let first = post(&url, "/v1/messages?beta=true", &main_loop_body(0, false));
        let (head, body) = first.split_once("\r\n\r\n").unwrap();
        assert!(head.contains("application/json"), "{head}");
        let message: Value = serde_json::from_str(body).unwrap();
        assert_eq!(message["stop_reason"], "tool_use");
        assert_eq!(message["model"], "claude-test");
        assert_eq!(message["content"][0]["id"], "toolu_e2e_00_00");
        assert_eq!(message["content"][0]["input"]["content"], "y");

        let second = post(&url, "/v1/messages", &main_loop_body(1, true));
        assert!(
            second.contains("content-type: text/event-stream"),
            "{second}"
        );
        assert!(second.contains("event: message_stop"), "{second}");
        assert!(second.contains(r#""text":"finished""#), "{second}");

        // Spent script and side requests (no Edit tool) get the default text.
        let third = post(&url, "/v1/messages", &main_loop_body(2, false));
        assert!(third.contains(DEFAULT_TEXT), "{third}");
        let side = post(&url, "/v1/messages", &json!({ "messages": [] }));
        assert!(side.contains(DEFAULT_TEXT), "{side}");
        let tokens = post(&url, "/v1/messages/count_tokens", &json!({}));
        assert!(tokens.contains("input_tokens"), "{tokens}");

        let requests = api.requests();
        let steps: Vec<_> = requests.iter().map(|r| r.step).collect();
        assert_eq!(steps, vec![Some(0), Some(1), None, None, None]);
        let result = find_tool_result(&requests, &tool_use_id(0, 0)).unwrap();
        assert!(result.is_error);
        assert_eq!(result.content, "nope");
        assert_eq!(
            std::fs::read_to_string(&log).unwrap().lines().count(),
            5,
            "one JSONL line per request"
        );
    }

    #[test]
    fn streamed_tool_use_carries_whole_input_as_partial_json() {
        let reply = Reply::from_step(3, &Step::tool("Bash", json!({ "command": "ls" })));
        let events = reply.sse_events("msg_1", "m");
        let names: Vec<_> = events.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            names,
            [
                "message_start",
                "content_block_start",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop"
            ]
        );
        assert_eq!(events[1].1["content_block"]["id"], "toolu_e2e_03_00");
        assert_eq!(events[2].1["delta"]["partial_json"], r#"{"command":"ls"}"#);
        assert_eq!(events[4].1["delta"]["stop_reason"], "tool_use");
    }
}
