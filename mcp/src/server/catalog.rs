//! The tool catalogue the model reads (`tools/list`), compacted without changing what any tool
//! accepts: every input schema loses the `$schema` and `title` keys schemars emits, `"default":
//! null` (an absent optional field is already null), numeric `format` annotations (`uint`,
//! `double`; the `minimum` stays) and the `null` alternative of optional fields (they are left
//! out, not sent as null), and `session_id` is described once in the server instructions instead
//! of in every tool. A test keeps the whole list under a byte budget
//! (`mcp/tests/mcp_stdio.rs`).

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::JsonObject;
use serde_json::Value;

/// What every tool's `session_id` says (the instructions explain the default).
pub const SESSION_ID_DESCRIPTION: &str = "Default: the current session.";

/// Compacts every tool's input schema in `router` (see the module docs).
pub fn compact<S>(mut router: ToolRouter<S>) -> ToolRouter<S> {
    for route in router.map.values_mut() {
        let mut schema = (*route.attr.input_schema).clone();
        schema.remove("$schema");
        schema.remove("title");
        clean(&mut schema);
        if let Some(Value::Object(props)) = schema.get_mut("properties")
            && let Some(Value::Object(id)) = props.get_mut("session_id")
        {
            id.insert("description".into(), SESSION_ID_DESCRIPTION.into());
        }
        route.attr.input_schema = std::sync::Arc::new(schema);
    }
    router
}

/// Removes `"default": null` and numeric `format`s from a schema object and the schemas inside it
/// (`properties` and `$defs` hold schemas by name: their keys are names, never removed), and
/// states optional fields by their type alone: `"type": ["string", "null"]` becomes `"string"`,
/// `anyOf: [{"$ref": …}, {"type": "null"}]` becomes the `$ref`. Optional fields are never in
/// `required`, so omitting them is how a client leaves them out; the server still accepts `null`.
fn clean(schema: &mut JsonObject) {
    if schema.get("default") == Some(&Value::Null) {
        schema.remove("default");
    }
    if let Some(Value::Array(types)) = schema.get("type")
        && types.len() == 2
        && let Some(pos) = types.iter().position(|t| t == "null")
    {
        let other = types[1 - pos].clone();
        schema.insert("type".into(), other);
    }
    if let Some(Value::Array(any)) = schema.get("anyOf")
        && any.len() == 2
        && let Some(pos) = any
            .iter()
            .position(|a| a == &serde_json::json!({ "type": "null" }))
        && let Value::Object(inner) = any[1 - pos].clone()
    {
        schema.remove("anyOf");
        for (k, v) in inner {
            schema.entry(k).or_insert(v);
        }
    }
    if schema
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|f| {
            f.starts_with("uint") || f.starts_with("int") || f == "double" || f == "float"
        })
    {
        schema.remove("format");
    }
    for (key, value) in schema.iter_mut() {
        match value {
            Value::Object(map) if key == "properties" || key == "$defs" => {
                for child in map.values_mut() {
                    if let Value::Object(child) = child {
                        clean(child);
                    }
                }
            }
            Value::Object(child) => clean(child),
            Value::Array(items) => {
                for item in items {
                    if let Value::Object(child) = item {
                        clean(child);
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cleans_schemas_but_keeps_properties_named_like_keywords() {
        let mut s = json!({
            "properties": {
                "default": { "type": "string", "default": null },
                "format": { "type": ["integer", "null"], "format": "uint", "minimum": 0 },
                "n": { "anyOf": [{ "$ref": "#/$defs/X" }, { "type": "null" }], "default": null },
                "e": { "anyOf": [{ "type": "string" }, { "type": "integer" }] },
            },
            "$defs": { "X": { "properties": { "d": { "format": "double", "type": "number" } } } },
        })
        .as_object()
        .cloned()
        .unwrap();
        clean(&mut s);
        assert_eq!(
            Value::Object(s),
            json!({
                "properties": {
                    "default": { "type": "string" },
                    "format": { "type": "integer", "minimum": 0 },
                    "n": { "$ref": "#/$defs/X" },
                    "e": { "anyOf": [{ "type": "string" }, { "type": "integer" }] },
                },
                "$defs": { "X": { "properties": { "d": { "type": "number" } } } },
            })
        );
    }
}
