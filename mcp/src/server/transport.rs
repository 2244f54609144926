//! The stdio transport of `code-intel serve`: rmcp's JSON-RPC messages over newline-delimited
//! stdin/stdout, with every request line answered as JSON-RPC 2.0 prescribes (issue 40).
//!
//! rmcp's own stdio transport drops what it cannot parse (invalid JSON, invalid UTF-8, nesting
//! past serde_json's limit, a number out of range, a line over 16 MiB) with a log line only, so
//! the client waits for an answer forever; and a known method whose parameters do not fit its
//! type falls back to a custom request answered `-32601`. Here each line is read with a bounded
//! buffer and checked before rmcp sees it ([`check_line`]):
//! - not UTF-8, not JSON (syntax, a lone surrogate, nesting deeper than 128, `1e400`) →
//!   `-32700` parse error, `id: null`;
//! - JSON that is no request object (a batch array, a scalar, no `jsonrpc: "2.0"`, an id that is
//!   neither a string nor a 64-bit integer, a `method` that is no string, a request rmcp cannot
//!   read) → `-32600` invalid request, with the id when one could be read, else `null`;
//! - a line over [`MAX_LINE_BYTES`] → `-32600`, with the id when it is among the line's first
//!   [`ID_SCAN_BYTES`] bytes (so the client's pending call ends), else `null`;
//! - a known MCP method whose `params` do not fit its type (`tools/call` with `arguments: "x"`
//!   or without `name`) → `-32602` invalid params with the request's id.
//!
//! Notifications (no `id`) are never answered, as the spec says; an unreadable one is dropped.
//! Good lines go to rmcp unchanged. Replies and rmcp's messages share one writer task, so lines
//! never interleave.

use std::borrow::Cow;

use rmcp::RoleServer;
use rmcp::model::ClientRequest;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader};
use tokio::sync::mpsc;

/// Longest request line read (bytes, newline excluded): rmcp's own default
/// (`DEFAULT_MAX_LINE_LENGTH`, 16 MiB). Tool arguments are bounded far below (8 KB texts,
/// `server/limits.rs`), so this only bounds the buffer; a longer line is answered `-32600`.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// How much of an over-long line is kept to find its `id` (bytes): a client writes `id` before
/// `params` in practice (rmcp, the TypeScript SDK and Claude Code do).
pub const ID_SCAN_BYTES: usize = 64 * 1024;

/// JSON-RPC 2.0 error codes (spec §5.1).
const PARSE_ERROR: i32 = -32700;
const INVALID_REQUEST: i32 = -32600;
const INVALID_PARAMS: i32 = -32602;

/// The MCP client requests rmcp types: a request with one of these methods that rmcp reads only
/// as a custom request had parameters of the wrong shape.
const TYPED_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "completion/complete",
    "logging/setLevel",
];

/// What to do with one line.
#[derive(Debug)]
pub enum Verdict {
    /// A message for rmcp.
    Pass(Box<RxJsonRpcMessage<RoleServer>>),
    /// Answer this (a JSON-RPC error response, newline included) and give rmcp nothing.
    Reply(Vec<u8>),
    /// Nothing to answer (an empty line, an unreadable notification or response).
    Ignore,
}

/// A JSON-RPC error response line.
fn error_line(id: &Value, code: i32, message: &str) -> Vec<u8> {
    let mut line = serde_json::to_vec(&json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code, "message": message },
    }))
    .unwrap_or_default();
    line.push(b'\n');
    line
}

/// A request id rmcp can carry: a string or an integer that fits `i64`.
fn usable_id(id: &Value) -> bool {
    id.is_string() || id.as_i64().is_some()
}

/// Checks one line (without its `\n`) and says what to do with it (see the module docs).
pub fn check_line(line: &[u8]) -> Verdict {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Ignore;
    }
    let null = Value::Null;
    let text = match std::str::from_utf8(line) {
        Ok(t) => t,
        Err(e) => {
            return Verdict::Reply(error_line(
                &null,
                PARSE_ERROR,
                &format!(
                    "Parse error: the message is not UTF-8 (invalid byte at offset {})",
                    e.valid_up_to()
                ),
            ));
        }
    };
    // serde_json refuses nesting deeper than 128, lone surrogates and numbers out of f64 range.
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return Verdict::Reply(error_line(&null, PARSE_ERROR, &format!("Parse error: {e}")));
        }
    };
    let Value::Object(obj) = &value else {
        let why = if value.is_array() {
            "Invalid Request: batches are not supported (MCP removed JSON-RPC batching); send one request per line"
        } else {
            "Invalid Request: a message is a JSON object"
        };
        return Verdict::Reply(error_line(&null, INVALID_REQUEST, why));
    };
    let id = obj.get("id");
    let reply_id = id.filter(|i| usable_id(i)).cloned().unwrap_or(Value::Null);
    let invalid = |why: &str| {
        Verdict::Reply(error_line(
            &reply_id,
            INVALID_REQUEST,
            &format!("Invalid Request: {why}"),
        ))
    };
    if let Some(id) = id
        && !usable_id(id)
    {
        return invalid("id must be a string or an integer between -2^63 and 2^63-1");
    }
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return if id.is_none() && obj.contains_key("method") {
            Verdict::Ignore
        } else {
            invalid("jsonrpc must be \"2.0\"")
        };
    }
    let method = match obj.get("method") {
        None => None,
        Some(Value::String(m)) => Some(m.clone()),
        Some(_) if id.is_none() => return Verdict::Ignore,
        Some(_) => return invalid("method must be a string"),
    };
    let is_request = method.is_some() && id.is_some();
    if !is_request && id.is_some() && !obj.contains_key("result") && !obj.contains_key("error") {
        return invalid("a request needs a method");
    }
    if id.is_none() && method.is_none() {
        return invalid("a message needs a method (request, notification) or an id (response)");
    }
    if let (true, Some(m)) = (is_request, method.as_deref())
        && let Some(why) = params_problem(m, obj.get("params"))
    {
        return Verdict::Reply(error_line(
            &reply_id,
            INVALID_PARAMS,
            &format!("Invalid params: {why}"),
        ));
    }
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value) {
        Ok(rmcp::model::JsonRpcMessage::Request(r)) if matches!(&r.request, ClientRequest::CustomRequest(c) if TYPED_METHODS.contains(&c.method.as_str())) => {
            Verdict::Reply(error_line(
                &reply_id,
                INVALID_PARAMS,
                &format!(
                    "Invalid params: the parameters of {} do not have the shape the MCP specification gives them",
                    r.request.method()
                ),
            ))
        }
        Ok(msg) => Verdict::Pass(Box::new(msg)),
        // A known method with a valid id: what rmcp could not read is its params.
        Err(e)
            if is_request
                && method
                    .as_deref()
                    .is_some_and(|m| TYPED_METHODS.contains(&m)) =>
        {
            Verdict::Reply(error_line(
                &reply_id,
                INVALID_PARAMS,
                &format!("Invalid params: {e}"),
            ))
        }
        Err(e) if is_request => Verdict::Reply(error_line(
            &reply_id,
            INVALID_REQUEST,
            &format!("Invalid Request: {e}"),
        )),
        Err(e) => {
            tracing::debug!(error = %e, "dropping an unreadable notification or response");
            Verdict::Ignore
        }
    }
}

/// What is wrong with the `params` of a `tools/call` (the one method whose shape a client
/// builds by hand): `None` when nothing is. Other methods are checked by rmcp's types.
fn params_problem(method: &str, params: Option<&Value>) -> Option<Cow<'static, str>> {
    if method != "tools/call" {
        return None;
    }
    let Some(Value::Object(p)) = params else {
        return Some("tools/call takes params {name, arguments}".into());
    };
    match p.get("name") {
        Some(Value::String(_)) => {}
        Some(_) => return Some("tools/call: name must be a string".into()),
        None => return Some("tools/call: name (the tool) is required".into()),
    }
    match p.get("arguments") {
        None | Some(Value::Null | Value::Object(_)) => None,
        Some(_) => Some("tools/call: arguments must be an object".into()),
    }
}

/// The top-level `"id"` of a JSON object whose text starts with `head` (the rest cut off), when
/// it is a string or an integer that appears within `head`; `None` otherwise.
pub fn id_in_head(head: &[u8]) -> Option<Value> {
    let mut s = Scanner { b: head, i: 0 };
    s.ws();
    s.eat(b'{')?;
    loop {
        s.ws();
        let key_start = s.i;
        s.skip_string()?;
        let key: String = serde_json::from_slice(&head[key_start..s.i]).ok()?;
        s.ws();
        s.eat(b':')?;
        s.ws();
        let value_start = s.i;
        s.skip_value()?;
        if key == "id" {
            let id: Value = serde_json::from_slice(&head[value_start..s.i]).ok()?;
            return usable_id(&id).then_some(id);
        }
        s.ws();
        s.eat(b',')?;
    }
}

/// A cursor over possibly truncated JSON text: every step returns `None` at the end of it.
struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scanner<'_> {
    fn ws(&mut self) {
        while self.b.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (*self.b.get(self.i)? == c).then(|| self.i += 1)
    }

    fn skip_string(&mut self) -> Option<()> {
        self.eat(b'"')?;
        loop {
            match *self.b.get(self.i)? {
                b'"' => {
                    self.i += 1;
                    return Some(());
                }
                b'\\' => self.i += 2,
                _ => self.i += 1,
            }
        }
    }

    /// Skips one value; a number, `true`, `false` or `null` must be followed by a byte of `head`
    /// (else it may be cut).
    fn skip_value(&mut self) -> Option<()> {
        match *self.b.get(self.i)? {
            b'"' => self.skip_string(),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match *self.b.get(self.i)? {
                        b'"' => {
                            self.skip_string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.i += 1;
                                return Some(());
                            }
                        }
                        _ => {}
                    }
                    self.i += 1;
                }
            }
            _ => {
                while !matches!(*self.b.get(self.i)?, b',' | b'}' | b']')
                    && !self.b[self.i].is_ascii_whitespace()
                {
                    self.i += 1;
                }
                Some(())
            }
        }
    }
}

/// An over-long line being skipped: its first bytes (for the id) and its length so far.
#[derive(Debug, Default)]
struct Oversized {
    head: Vec<u8>,
    len: usize,
}

/// How a bounded line read ended.
enum LineRead {
    Line,
    Oversized(Oversized),
    Eof,
}

/// The server side of the stdio transport (see the module docs). `R`/`W` are stdin/stdout in
/// `serve`, pipes in tests.
pub struct GuardedStdio<R> {
    read: BufReader<R>,
    /// The line being read; survives a cancelled `receive` (rmcp polls it inside `select!`).
    line: Vec<u8>,
    /// Set while the rest of an over-long line is skipped.
    skipping: Option<Oversized>,
    /// An error reply not yet handed to the writer (kept across a cancelled `receive`).
    pending: Option<Vec<u8>>,
    out: Option<mpsc::Sender<Vec<u8>>>,
    writer: Option<tokio::task::JoinHandle<()>>,
}

impl<R: AsyncRead + Unpin + Send> GuardedStdio<R> {
    /// Reads requests from `read`; a task writes every outgoing line to `write`, in order.
    pub fn new<W: AsyncWrite + Unpin + Send + 'static>(read: R, mut write: W) -> Self {
        let (tx, mut rx) = mpsc::channel::<Vec<u8>>(64);
        let writer = tokio::spawn(async move {
            while let Some(line) = rx.recv().await {
                if write.write_all(&line).await.is_err() || write.flush().await.is_err() {
                    break;
                }
            }
        });
        Self {
            read: BufReader::with_capacity(64 * 1024, read),
            line: Vec::new(),
            skipping: None,
            pending: None,
            out: Some(tx),
            writer: Some(writer),
        }
    }

    /// Reads one `\n`-terminated line into `self.line`, never holding more than
    /// [`MAX_LINE_BYTES`]: a longer one is skipped to its end and reported with its head.
    /// Cancellation-safe: bytes are consumed only in the same synchronous step that stores them.
    async fn read_line(&mut self) -> std::io::Result<LineRead> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                return Ok(LineRead::Eof);
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let body = &available[..newline.unwrap_or(take)];
            if let Some(skip) = self.skipping.as_mut() {
                let room = ID_SCAN_BYTES.saturating_sub(skip.head.len());
                skip.head.extend_from_slice(&body[..room.min(body.len())]);
                skip.len += body.len();
            } else if self.line.len() + body.len() > MAX_LINE_BYTES {
                let mut head = std::mem::take(&mut self.line);
                let len = head.len() + body.len();
                head.truncate(ID_SCAN_BYTES);
                let room = ID_SCAN_BYTES.saturating_sub(head.len());
                head.extend_from_slice(&body[..room.min(body.len())]);
                self.line.shrink_to(64 * 1024);
                self.skipping = Some(Oversized { head, len });
            } else {
                self.line.extend_from_slice(body);
            }
            self.read.consume(take);
            if newline.is_some() {
                return Ok(match self.skipping.take() {
                    Some(skip) => LineRead::Oversized(skip),
                    None => LineRead::Line,
                });
            }
        }
    }

    /// Hands the pending reply to the writer; `false` when the writer is gone.
    async fn flush_pending(&mut self) -> bool {
        let Some(tx) = &self.out else {
            return false;
        };
        if self.pending.is_some() {
            // `reserve` is cancellation-safe: the reply stays pending until it has a slot.
            let Ok(permit) = tx.reserve().await else {
                return false;
            };
            if let Some(line) = self.pending.take() {
                permit.send(line);
            }
        }
        true
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> Transport<RoleServer> for GuardedStdio<R> {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let tx = self.out.clone();
        async move {
            let closed = || std::io::Error::new(std::io::ErrorKind::NotConnected, "stdout closed");
            let tx = tx.ok_or_else(closed)?;
            let mut line = serde_json::to_vec(&item)?;
            line.push(b'\n');
            tx.send(line).await.map_err(|_| closed())
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if !self.flush_pending().await {
                return None;
            }
            let verdict = match self.read_line().await {
                Ok(LineRead::Line) => {
                    let verdict = check_line(&self.line);
                    self.line.clear();
                    if self.line.capacity() > 1 << 20 {
                        self.line.shrink_to(64 * 1024);
                    }
                    verdict
                }
                Ok(LineRead::Oversized(skip)) => {
                    let id = id_in_head(&skip.head).unwrap_or(Value::Null);
                    tracing::warn!(bytes = skip.len, %id, "answered an over-long request line with -32600");
                    Verdict::Reply(error_line(
                        &id,
                        INVALID_REQUEST,
                        &format!(
                            "Invalid Request: the message is {} bytes, over the {MAX_LINE_BYTES}-byte limit of a line; send smaller arguments (tool arguments are limited to 8 KB per text)",
                            skip.len
                        ),
                    ))
                }
                Ok(LineRead::Eof) => return None,
                Err(e) => {
                    tracing::error!(error = %e, "cannot read stdin");
                    return None;
                }
            };
            match verdict {
                Verdict::Pass(msg) => return Some(*msg),
                Verdict::Reply(line) => self.pending = Some(line),
                Verdict::Ignore => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // Let the writer finish what it was given (the last answers), for at most 5 s.
        drop(self.out.take());
        if let Some(writer) = self.writer.take() {
            tokio::time::timeout(std::time::Duration::from_secs(5), writer)
                .await
                .ok();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(line: &[u8]) -> Value {
        match check_line(line) {
            Verdict::Reply(r) => serde_json::from_slice(&r).unwrap(),
            v => panic!("{}: {v:?}", String::from_utf8_lossy(line)),
        }
    }

    #[test]
    fn unparsable_lines_are_parse_errors_with_a_null_id() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        for line in [
            &b"{bad json"[..],
            b"\xff\xfe{}",
            br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"\ud800"}}"#,
            br#"{"jsonrpc":"2.0","id":1e400,"method":"ping"}"#,
            deep.as_bytes(),
        ] {
            let r = reply(line);
            assert_eq!(r["error"]["code"], PARSE_ERROR, "{r}");
            assert!(r["id"].is_null(), "{r}");
            assert_eq!(r["jsonrpc"], "2.0");
        }
    }

    #[test]
    fn invalid_requests_and_params_keep_the_id_when_usable() {
        for (line, code, id) in [
            (r#"[]"#, INVALID_REQUEST, Value::Null),
            (
                r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
                INVALID_REQUEST,
                Value::Null,
            ),
            (r#"42"#, INVALID_REQUEST, Value::Null),
            (
                r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
                INVALID_REQUEST,
                Value::Null,
            ),
            (
                r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#,
                INVALID_REQUEST,
                Value::Null,
            ),
            (
                r#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#,
                INVALID_REQUEST,
                json!(7),
            ),
            (
                r#"{"jsonrpc":"2.0","id":"a","method":3}"#,
                INVALID_REQUEST,
                json!("a"),
            ),
            (r#"{"jsonrpc":"2.0","id":8}"#, INVALID_REQUEST, json!(8)),
            (r#"{"jsonrpc":"2.0"}"#, INVALID_REQUEST, Value::Null),
            (
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_text","arguments":"x"}}"#,
                INVALID_PARAMS,
                json!(2),
            ),
            (
                r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{}}}"#,
                INVALID_PARAMS,
                json!(3),
            ),
            (
                r#"{"jsonrpc":"2.0","id":4,"method":"tools/call"}"#,
                INVALID_PARAMS,
                json!(4),
            ),
            (
                r#"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":"x"}"#,
                INVALID_PARAMS,
                json!(5),
            ),
        ] {
            let r = reply(line.as_bytes());
            assert_eq!(r["error"]["code"], code, "{line}: {r}");
            assert_eq!(r["id"], id, "{line}: {r}");
        }
    }

    #[test]
    fn good_messages_pass_and_notifications_are_never_answered() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"search_text","arguments":{"pattern":"a"}}}"#,
            r#"{"jsonrpc":"2.0","id":9,"method":"no/such/method"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ] {
            assert!(
                matches!(check_line(line.as_bytes()), Verdict::Pass(_)),
                "{line}"
            );
        }
        for line in [
            "",
            "   \r",
            r#"{"jsonrpc":"2.0","method":"notifications/x","params":"\u0000"}"#,
            r#"{"jsonrpc":"2.0","method":5}"#,
        ] {
            assert!(
                matches!(
                    check_line(line.as_bytes()),
                    Verdict::Ignore | Verdict::Pass(_)
                ),
                "{line}"
            );
        }
    }

    #[test]
    fn the_id_of_a_cut_line_is_found_when_it_comes_first() {
        assert_eq!(
            id_in_head(br#"{"jsonrpc":"2.0","method":"tools/call","id":17,"params":{"name":"x","arguments":{"q":"aaaa"#),
            Some(json!(17))
        );
        assert_eq!(
            id_in_head(br#" { "params": {"a": [1, "}\"", {"id": 3}]}, "id" : "r-1", "#),
            Some(json!("r-1"))
        );
        assert_eq!(id_in_head(br#"{"params":{"q":"aaaa"#), None);
        assert_eq!(id_in_head(br#"{"id":12"#), None, "a number may be cut");
        assert_eq!(id_in_head(br#"{"id":1.5,"#), None);
    }

    #[tokio::test]
    async fn an_over_long_line_is_answered_and_the_next_one_still_read() {
        let (client, server) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server);
        let (mut client_read, mut client_write) = tokio::io::split(client);
        let mut transport = GuardedStdio::new(server_read, server_write);
        let sender = tokio::spawn(async move {
            let mut big = br#"{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"x","arguments":{"q":""#.to_vec();
            big.resize(MAX_LINE_BYTES + 10, b'a');
            big.extend_from_slice(b"\"}}}\n");
            client_write.write_all(&big).await.unwrap();
            client_write
                .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"ping\"}\n")
                .await
                .unwrap();
            client_write.shutdown().await.unwrap();
        });
        let msg = transport.receive().await.unwrap();
        let rmcp::model::JsonRpcMessage::Request(r) = msg else {
            panic!("{msg:?}")
        };
        assert_eq!(r.id, rmcp::model::NumberOrString::Number(42));
        sender.await.unwrap();
        assert!(transport.receive().await.is_none());
        transport.close().await.unwrap();
        drop(transport);
        let mut out = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut client_read, &mut out)
            .await
            .unwrap();
        let r: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
        assert_eq!(r["id"], 41, "{r}");
        assert_eq!(r["error"]["code"], INVALID_REQUEST, "{r}");
    }
}
