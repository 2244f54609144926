//! Claude Code's hook JSON typed into the gate's [`Action`]: the gate's tool table
//! ([`classify`](code_intel_session::gate::tools::classify)) says what each tool does and which field of its
//! `tool_input` names where; [`action`] reads that field, Grep's and Glob's result files,
//! `start_session`'s id in every MCP result shape, and for a tool the table does not know
//! ([`ToolClass::Unknown`]) every path-like string of its input ([`path_like_strings`]), which the
//! gate gates as write targets, so an unclassified tool cannot open the gate.

use code_intel_session::gate::Action;
use code_intel_session::gate::tools::ToolClass;
use serde_json::Value;

/// How many path-like strings of an unclassified tool's input are listed for the gate.
pub const MAX_UNKNOWN_TOOL_PATHS: usize = 64;

/// What a call of `tool_name` (of class `class`, [`classify`](code_intel_session::gate::tools::classify)) with `input` does, for the gate.
/// `response` is the tool's result
/// (PostToolUse; `Value::Null` in PreToolUse): Grep's and Glob's files and `start_session`'s id
/// are read from it. A writing or shell tool whose input lacks its field is
/// [`Action::MissingField`].
pub fn action<'a>(
    tool_name: &str,
    class: ToolClass,
    input: &'a Value,
    response: &'a Value,
) -> Action<'a> {
    let field = |f: &'static str| input.get(f).and_then(Value::as_str);
    let list = |v: Option<&'a Value>| -> Vec<&'a str> {
        v.and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    };
    if is_start_session_tool(tool_name) {
        return Action::StartSession(session_id_in_response(response));
    }
    match class {
        ToolClass::ReadOnly => match tool_name {
            "Read" => Action::ReadFiles(field("file_path").into_iter().collect()),
            "Grep" | "Glob" => Action::ReadFiles(list(response.get("filenames"))),
            _ => Action::ReadOnly,
        },
        ToolClass::FileWrite(f) => field(f).map_or(Action::MissingField(f), Action::WriteFile),
        ToolClass::Shell(f) => field(f).map_or(Action::MissingField(f), Action::Shell),
        ToolClass::OpaqueShell => Action::OpaqueShell,
        ToolClass::ConfigWrite(what) => Action::ConfigWrite(what),
        ToolClass::Other => Action::Other,
        ToolClass::Unknown => Action::Unknown(path_like_strings(input, MAX_UNKNOWN_TOOL_PATHS)),
    }
}

/// Whether `tool_name` is code-intel's `start_session` MCP tool, in project
/// (`mcp__code-intel__start_session`) or plugin (`mcp__plugin_code-intel_code-intel__start_session`) form.
pub fn is_start_session_tool(tool_name: &str) -> bool {
    tool_name.starts_with("mcp__")
        && tool_name.ends_with("__start_session")
        && (tool_name.contains("code-intel") || tool_name.contains("code_intel"))
}

/// Finds `session_id` in an MCP tool response as PostToolUse delivers it: a JSON string of the
/// structured content, a list of content blocks whose text is JSON, or an object.
pub fn session_id_in_response(resp: &Value) -> Option<String> {
    match resp {
        Value::String(s) => serde_json::from_str::<Value>(s)
            .ok()
            .and_then(|v| session_id_in_response(&v)),
        Value::Array(items) => items.iter().find_map(|i| {
            i.get("text")
                .and_then(session_id_in_response)
                .or_else(|| session_id_in_response(i))
        }),
        Value::Object(map) => map
            .get("session_id")
            .and_then(Value::as_str)
            .map(String::from)
            .or_else(|| {
                map.get("structuredContent")
                    .and_then(session_id_in_response)
            })
            .or_else(|| map.get("content").and_then(session_id_in_response)),
        _ => None,
    }
}

/// Path-like strings anywhere in a tool input (strings under keys that name paths, and strings
/// that look like paths: absolute, `~`-, `./`- or `../`-prefixed, `file://` URIs (as their path),
/// or relative with a `/` and no whitespace), at most `limit` of them. `None` when the input
/// holds more than that, nests deeper than 16 levels, or has a path-like string of 4096 bytes or
/// more: then not every path could be checked, and the caller fails closed.
pub fn path_like_strings(input: &serde_json::Value, limit: usize) -> Option<Vec<String>> {
    fn walk(
        v: &serde_json::Value,
        key: &str,
        out: &mut Vec<String>,
        limit: usize,
        depth: usize,
    ) -> Option<()> {
        if depth > 16 {
            return None;
        }
        match v {
            serde_json::Value::String(s) => {
                let k = key.to_ascii_lowercase();
                let keyed = [
                    "path", "file", "dir", "cwd", "dest", "target", "worktree", "uri", "output",
                    "folder", "location", "root",
                ]
                .iter()
                .any(|n| k.contains(n));
                let uri = s
                    .strip_prefix("file://")
                    .map(|rest| rest.strip_prefix("localhost").unwrap_or(rest));
                let s = uri.unwrap_or(s);
                let looks = s.starts_with('/')
                    || s.starts_with("~/")
                    || s.starts_with("./")
                    || s.starts_with("../")
                    || (s.contains('/') && !s.contains(char::is_whitespace) && !s.contains("://"));
                if (keyed || looks || uri.is_some()) && !s.is_empty() && !s.contains('\n') {
                    if s.len() >= 4096 || out.len() >= limit {
                        return None;
                    }
                    out.push(s.to_string());
                }
            }
            serde_json::Value::Array(a) => {
                for x in a {
                    walk(x, key, out, limit, depth + 1)?;
                }
            }
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    walk(x, k, out, limit, depth + 1)?;
                }
            }
            _ => {}
        }
        Some(())
    }
    let mut out = Vec::new();
    walk(input, "", &mut out, limit, 0)?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use code_intel_session::gate::tools::classify;
    use serde_json::json;

    fn action<'a>(tool_name: &str, input: &'a Value, response: &'a Value) -> Action<'a> {
        super::action(tool_name, classify(tool_name), input, response)
    }

    #[test]
    fn hook_json_becomes_the_gates_action() {
        let none = Value::Null;
        let write = json!({"file_path": "/r/a.py", "content": "x"});
        assert_eq!(action("Write", &write, &none), Action::WriteFile("/r/a.py"));
        // NotebookEdit names its file in notebook_path.
        let nb = json!({"notebook_path": "/r/n.ipynb"});
        assert_eq!(
            action("NotebookEdit", &nb, &none),
            Action::WriteFile("/r/n.ipynb")
        );
        let no_path = json!({"content": "no path"});
        assert_eq!(
            action("Write", &no_path, &none),
            Action::MissingField("file_path")
        );
        let no_cmd = json!({"description": "x"});
        assert_eq!(
            action("Bash", &no_cmd, &none),
            Action::MissingField("command")
        );
        let cmd = json!({"command": "tail -f log"});
        assert_eq!(action("Monitor", &cmd, &none), Action::Shell("tail -f log"));
        assert_eq!(
            action("Read", &write, &none),
            Action::ReadFiles(vec!["/r/a.py"])
        );
        assert_eq!(
            action("WebFetch", &json!({"url": "https://x/y"}), &none),
            Action::ReadOnly
        );
        let foreign = json!({"path": "src/a.py", "content": "x"});
        assert_eq!(
            action("mcp__fs__write_file", &foreign, &none),
            Action::Unknown(Some(vec!["src/a.py".into()]))
        );
        // Grep and Glob: the files of their result.
        let resp = json!({"filenames": ["src/a.py", 3, "b/c.py"]});
        assert_eq!(
            action("Grep", &json!({"pattern": "X"}), &resp),
            Action::ReadFiles(vec!["src/a.py", "b/c.py"])
        );
        // start_session: the id from every result shape PostToolUse delivers, none before it ran.
        let id = "20261121-000000-abcdef";
        for resp in [
            Value::String(json!({"session_id": id, "phase": "EXPLORATION"}).to_string()),
            json!([{"type": "text", "text": json!({"session_id": id}).to_string()}]),
            json!({"structuredContent": {"session_id": id}}),
        ] {
            assert_eq!(
                action(
                    "mcp__plugin_code-intel_code-intel__start_session",
                    &json!({}),
                    &resp
                ),
                Action::StartSession(Some(id.into()))
            );
        }
        assert_eq!(
            action(
                "mcp__code-intel__start_session",
                &json!({}),
                &json!("not json")
            ),
            Action::StartSession(None)
        );
        assert_eq!(
            action("mcp__other__start_session", &json!({"query": "x"}), &none),
            Action::Unknown(Some(vec![]))
        );
        assert_eq!(
            action(
                "mcp__code-intel__search_text",
                &json!({"query": "x"}),
                &none
            ),
            Action::Other
        );
    }

    #[test]
    fn path_like() {
        let v = json!({"path": "src", "content": "hello world / x", "nested": {"to": ["./a", "b/c"]}, "url": "https://x/y", "n": 3});
        let mut got = path_like_strings(&v, 10).unwrap();
        got.sort();
        assert_eq!(got, vec!["./a", "b/c", "src"]);
        // file:// URIs as their path; output-like keys.
        let v = json!({"uri": "file:///r/src/a.py", "x": "file://localhost/r/b", "output": ".gitignore"});
        let mut got = path_like_strings(&v, 10).unwrap();
        got.sort();
        assert_eq!(got, vec![".gitignore", "/r/b", "/r/src/a.py"]);
        // Too many, too deep, too long: not every path can be checked.
        let many: Vec<String> = (0..11).map(|i| format!("/tmp/f{i}")).collect();
        assert_eq!(path_like_strings(&json!({ "files": many }), 10), None);
        let mut deep = json!(["/r/src/a.py"]);
        for _ in 0..20 {
            deep = json!([deep]);
        }
        assert_eq!(path_like_strings(&deep, 10), None);
        let long = format!("/r/{}src/a.py", "./".repeat(2100));
        assert_eq!(path_like_strings(&json!({ "path": long }), 10), None);
    }
}
