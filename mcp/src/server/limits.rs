//! Bounds on what a tool call takes in and gives back, applied to every tool in one place
//! (`ServerHandler::call_tool`), before the tool's own code runs and after it answers.
//!
//! Inputs ([`check_arguments`]): every string argument has a maximum length in bytes, by the name
//! of the field that holds it (a list's items count under the list's name):
//!
//! | fields | limit |
//! |---|---|
//! | `session_id` | [`MAX_ID_BYTES`] (128) |
//! | `path`, `file`, `files`, `pattern`, `symbol`, `symbols`, `file_type`, `intent`, `tool`, `collection`, `mode`, `fusion` | [`MAX_PATH_BYTES`] (4 KiB) |
//! | everything else: `query`, slot `value`s and `quote`s, notes, evidence, reasons, summaries | [`MAX_TEXT_BYTES`] (8 KiB) |
//!
//! and also: at most [`MAX_ITEMS`] items in any list, at most [`MAX_ARGUMENT_BYTES`] for the
//! arguments as a whole, and `session_id` is never empty (omit it for the current session). A
//! refusal names the field, its size and the limit, and never echoes the input.
//!
//! Outputs ([`fit_output`]): a result over `max_output_chars` characters (the exploration tools'
//! limit, 40,000 by default) has its largest lists halved and its longest strings cut until it
//! fits, and says what was cut in `output_truncated` (JSON pointer → original length). The
//! exploration tools bound their own results and are not cut again.

use code_intel_session::vocab::Tool;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde_json::{Value, json};

/// Longest `session_id`, in bytes (ids are UUIDs, 36 bytes).
pub const MAX_ID_BYTES: usize = 128;
/// Longest path, file name, pattern or symbol argument, in bytes (Linux `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4 * 1024;
/// Longest free-text argument (the request, slot values and quotes, evidence, notes), in bytes.
pub const MAX_TEXT_BYTES: usize = 8 * 1024;
/// Most items in one list argument (files, symbols, hypotheses, results...).
pub const MAX_ITEMS: usize = 1_000;
/// Largest argument object as a whole, in bytes of JSON. Session tools keep what they are given
/// in the session file the PreToolUse hook reads on every write (and refuses above 16 MiB), so
/// one call may add at most this much: 64 KiB is a submit_understanding with ~1,000 file paths.
pub const MAX_ARGUMENT_BYTES: usize = 64 * 1024;

/// Whether the tool named `name` bounds its own output (`max_output_chars`, `truncated` fields):
/// the exploration tools.
pub fn self_bounded(name: &str) -> bool {
    Tool::from_name(name).is_some_and(Tool::is_exploration)
}

/// Characters [`fit_output`] keeps free for its `output_truncated` report.
const OUTPUT_REPORT_CHARS: usize = 512;

/// Shortest string [`fit_output`] still cuts, in characters.
const MIN_CUT_CHARS: usize = 200;

/// The limit for a string held by the field `key`.
pub fn limit_for(key: &str) -> usize {
    match key {
        "session_id" => MAX_ID_BYTES,
        "path" | "file" | "files" | "pattern" | "symbol" | "symbols" | "file_type" | "intent"
        | "tool" | "collection" | "mode" | "fusion" => MAX_PATH_BYTES,
        _ => MAX_TEXT_BYTES,
    }
}

/// Checks a call's arguments against the limits of the module docs; `Some(refusal)` (an
/// `isError` result naming the field and the limit) when one is exceeded.
pub fn check_arguments(args: Option<&JsonObject>) -> Option<CallToolResult> {
    let args = args?;
    if let Some(Value::String(id)) = args.get("session_id")
        && id.trim().is_empty()
    {
        return Some(CallToolResult::structured_error(json!({
            "error": "invalid_session_id",
            "message": "session_id is empty: omit it to use the session this server started last, or pass the session_id start_session returned",
        })));
    }
    for (key, value) in args {
        if let Some(refusal) = check_value(value, key, key) {
            return Some(refusal);
        }
    }
    let total = serde_json::to_string(args).map_or(0, |s| s.len());
    if total > MAX_ARGUMENT_BYTES {
        return Some(too_large(
            "(all arguments)",
            total,
            MAX_ARGUMENT_BYTES,
            "bytes",
        ));
    }
    None
}

fn check_value(value: &Value, key: &str, at: &str) -> Option<CallToolResult> {
    match value {
        Value::String(s) => {
            let limit = limit_for(key);
            (s.len() > limit).then(|| too_large(at, s.len(), limit, "bytes"))
        }
        Value::Array(items) => {
            if items.len() > MAX_ITEMS {
                return Some(too_large(at, items.len(), MAX_ITEMS, "items"));
            }
            items
                .iter()
                .enumerate()
                .find_map(|(i, v)| check_value(v, key, &format!("{at}[{i}]")))
        }
        Value::Object(map) => map
            .iter()
            .find_map(|(k, v)| check_value(v, k, &format!("{at}.{k}"))),
        _ => None,
    }
}

fn too_large(field: &str, size: usize, limit: usize, unit: &str) -> CallToolResult {
    CallToolResult::structured_error(json!({
        "error": "input_too_large",
        "field": field,
        "size": size,
        "limit": limit,
        "unit": unit,
        "message": format!(
            "{field} is {size} {unit}, over the limit of {limit} {unit}: shorten it (quote only the words that matter, or split the call) and call again"
        ),
    }))
}

/// Cuts `result` to at most `max_chars` characters of JSON (see the module docs); the text
/// content is rewritten to match the structured content. Results without structured content
/// are left as they are.
pub fn fit_output(result: &mut CallToolResult, max_chars: usize) {
    let Some(value) = result.structured_content.as_mut() else {
        return;
    };
    let size = |v: &Value| serde_json::to_string(v).map_or(0, |s| s.chars().count());
    if size(value) <= max_chars {
        return;
    }
    let mut cut = serde_json::Map::new();
    // Room for the `output_truncated` report itself.
    let target = max_chars.saturating_sub(OUTPUT_REPORT_CHARS);
    // Each step halves a list or a string; a few dozen steps reach any size.
    for _ in 0..256 {
        if size(value) <= target {
            break;
        }
        let Some((pointer, _)) = largest_reducible(value, String::new()) else {
            break;
        };
        let Some(node) = value.pointer_mut(&pointer) else {
            break;
        };
        match node {
            Value::Array(items) => {
                cut.entry(pointer.clone()).or_insert(json!(items.len()));
                items.truncate(items.len() / 2);
            }
            Value::String(s) => {
                let chars = s.chars().count();
                cut.entry(pointer.clone()).or_insert(json!(chars));
                let keep: String = s.chars().take(chars / 2).collect();
                *s = format!("{keep}… [cut]");
            }
            _ => break,
        }
    }
    if let Value::Object(map) = value {
        map.insert("output_truncated".into(), Value::Object(cut));
    }
    result.content = vec![ContentBlock::text(value.to_string())];
}

/// The JSON pointer and serialised size of the largest list (of two or more items) or long string.
fn largest_reducible(value: &Value, at: String) -> Option<(String, usize)> {
    let own = |v: &Value| serde_json::to_string(v).map_or(0, |s| s.len());
    let mut best: Option<(String, usize)> = None;
    let mut consider = |cand: Option<(String, usize)>| {
        if let Some(c) = cand
            && best.as_ref().is_none_or(|b| c.1 > b.1)
        {
            best = Some(c);
        }
    };
    match value {
        Value::Array(items) => {
            if items.len() > 1 {
                consider(Some((at.clone(), own(value))));
            }
            for (i, v) in items.iter().enumerate() {
                consider(largest_reducible(v, format!("{at}/{i}")));
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                let k = k.replace('~', "~0").replace('/', "~1");
                consider(largest_reducible(v, format!("{at}/{k}")));
            }
        }
        Value::String(s) if s.chars().count() > MIN_CUT_CHARS => {
            consider(Some((at, s.len())));
        }
        _ => {}
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: Value) -> JsonObject {
        v.as_object().cloned().unwrap()
    }

    fn refusal(v: Value) -> Option<Value> {
        check_arguments(Some(&args(v))).map(|r| r.structured_content.unwrap())
    }

    #[test]
    fn refuses_long_strings_by_field_without_echoing_them() {
        let long = "q".repeat(MAX_TEXT_BYTES + 1);
        let r = refusal(json!({ "intent": "MODIFY", "query": long })).unwrap();
        assert_eq!(r["error"], "input_too_large");
        assert_eq!(r["field"], "query");
        assert_eq!(r["limit"], MAX_TEXT_BYTES);
        assert!(!r.to_string().contains("qqqq"), "the input is not echoed");
        let r = refusal(json!({ "files": ["a", "p".repeat(MAX_PATH_BYTES + 1)] })).unwrap();
        assert_eq!(r["field"], "files[1]");
        let r = refusal(json!({ "target_feature": { "value": "v", "quote": long } })).unwrap();
        assert_eq!(r["field"], "target_feature.quote");
        let r = refusal(json!({ "files": vec!["a"; MAX_ITEMS + 1] })).unwrap();
        assert_eq!(
            (r["field"].clone(), r["unit"].clone()),
            (json!("files"), json!("items"))
        );
        assert_eq!(
            refusal(json!({ "query": "q".repeat(MAX_TEXT_BYTES) })),
            None
        );
    }

    #[test]
    fn the_arguments_as_a_whole_are_bounded() {
        // Each path within its limit, all of them over MAX_ARGUMENT_BYTES.
        let many: Vec<String> = (0..900)
            .map(|i| format!("src/{i:04}/{}", "d".repeat(80)))
            .collect();
        let r = refusal(json!({ "files_analyzed": many })).unwrap();
        assert_eq!(r["field"], "(all arguments)");
        assert_eq!(r["limit"], MAX_ARGUMENT_BYTES);
    }

    #[test]
    fn an_empty_session_id_is_an_error() {
        for id in ["", "  "] {
            let r = refusal(json!({ "session_id": id })).unwrap();
            assert_eq!(r["error"], "invalid_session_id");
        }
        assert_eq!(refusal(json!({ "session_id": "abc" })), None);
    }

    #[test]
    fn long_outputs_are_cut_to_the_limit_and_say_what_was_cut() {
        let value = json!({
            "session_id": "s",
            "tool_calls": (0..500).map(|i| json!({ "tool": "search_text", "n": i })).collect::<Vec<_>>(),
            "query": "w".repeat(30_000),
        });
        let mut result = CallToolResult::structured(value);
        fit_output(&mut result, 10_000);
        let v = result.structured_content.clone().unwrap();
        assert!(
            v.to_string().chars().count() <= 10_000,
            "{}",
            v.to_string().len()
        );
        assert_eq!(v["output_truncated"]["/tool_calls"], 500);
        assert_eq!(v["output_truncated"]["/query"], 30_000);
        assert_eq!(v["session_id"], "s");
        let text = result
            .content
            .first()
            .and_then(ContentBlock::as_text)
            .unwrap();
        assert_eq!(text.text, v.to_string());
        // Within the limit: untouched.
        let mut small = CallToolResult::structured(json!({ "a": [1, 2] }));
        fit_output(&mut small, 10_000);
        assert_eq!(small.structured_content, Some(json!({ "a": [1, 2] })));
    }
}
