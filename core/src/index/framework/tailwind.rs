//! Tailwind configs (`tailwind.config.{js,cjs,mjs,ts}`), read with the JavaScript or TypeScript
//! tree-sitter grammar: the theme's colours, screens and fonts (keys of `colors`, `screens`,
//! `fontFamily` objects under `theme`, `theme.extend` included), the `content` paths and the
//! `plugins` (a `require('x')`, an imported name or a call of one, named by its module).

use std::collections::HashMap;

use tree_sitter as ts;

use super::FileFacts;

/// Theme sections whose keys are listed.
const THEME_SECTIONS: &[&str] = &["colors", "screens", "fontFamily"];

/// Adds the facts of the Tailwind config at `path` (the extension picks the grammar) to `facts`.
/// A config that does not parse gives what the parser recovered.
pub fn analyze(path: &str, text: &str, facts: &mut FileFacts) {
    let language = if path.ends_with(".ts") || path.ends_with(".mts") || path.ends_with(".cts") {
        ts::Language::new(tree_sitter_typescript::LANGUAGE_TYPESCRIPT)
    } else {
        ts::Language::new(tree_sitter_javascript::LANGUAGE)
    };
    let mut parser = ts::Parser::new();
    if parser.set_language(&language).is_err() {
        return;
    }
    let Some(tree) = parser.parse(text, None) else {
        return;
    };
    let src = text.as_bytes();
    let imports = imports(tree.root_node(), src);
    let mut theme: HashMap<&str, Vec<String>> = HashMap::new();
    let mut lists: HashMap<&str, Vec<String>> = HashMap::new();
    visit(tree.root_node(), &mut |node| {
        if node.kind() != "pair" {
            return;
        }
        let (Some(key), Some(value)) = (
            node.child_by_field_name("key"),
            node.child_by_field_name("value"),
        ) else {
            return;
        };
        let key = key_name(key, src);
        let ancestors = pair_ancestors(node, src);
        if let Some(section) = THEME_SECTIONS.iter().find(|s| **s == key)
            && ancestors.iter().any(|a| a == "theme")
            && value.kind() == "object"
        {
            let keys = theme.entry(section).or_default();
            for k in object_keys(value, src) {
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
        }
        for section in ["content", "plugins"] {
            if key == section && ancestors.is_empty() {
                // Tailwind 3 also takes `content: { files: [...] }`.
                let array = match value.kind() {
                    "object" => named_children(value)
                        .into_iter()
                        .filter(|p| p.kind() == "pair")
                        .find(|p| {
                            p.child_by_field_name("key")
                                .is_some_and(|k| key_name(k, src) == "files")
                        })
                        .and_then(|p| p.child_by_field_name("value")),
                    _ => Some(value),
                };
                if let Some(array) = array.filter(|a| a.kind() == "array") {
                    lists.entry(section).or_default().extend(
                        named_children(array)
                            .into_iter()
                            .filter_map(|item| item_name(item, src, &imports)),
                    );
                }
            }
        }
    });
    for section in THEME_SECTIONS {
        if let Some(keys) = theme.get(section).filter(|k| !k.is_empty()) {
            facts.detail(section, keys.join(", "));
        }
    }
    for section in ["content", "plugins"] {
        if let Some(items) = lists.get(section).filter(|k| !k.is_empty()) {
            facts.detail(section, items.join(", "));
        }
    }
}

/// Calls `f` on `node` and every node under it, in document order.
fn visit<'t>(node: ts::Node<'t>, f: &mut impl FnMut(ts::Node<'t>)) {
    let mut cursor = node.walk();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        f(n);
        let children: Vec<_> = n.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
}

fn named_children(node: ts::Node<'_>) -> Vec<ts::Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

fn text_of<'s>(node: ts::Node<'_>, src: &'s [u8]) -> &'s str {
    node.utf8_text(src).unwrap_or("")
}

/// A string literal's value (quotes removed; escapes kept as written).
fn string_value(node: ts::Node<'_>, src: &[u8]) -> Option<String> {
    matches!(node.kind(), "string" | "template_string").then(|| {
        text_of(node, src)
            .trim_matches(|c| c == '\'' || c == '"' || c == '`')
            .to_string()
    })
}

/// A property key as written (`brand`, `'3xl'` → `3xl`, `50`).
fn key_name(node: ts::Node<'_>, src: &[u8]) -> String {
    string_value(node, src).unwrap_or_else(|| text_of(node, src).to_string())
}

/// The keys of the pairs enclosing `node` (its own excluded), innermost first.
fn pair_ancestors(node: ts::Node<'_>, src: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = node.parent();
    while let Some(n) = at {
        if n.kind() == "pair"
            && let Some(k) = n.child_by_field_name("key")
        {
            out.push(key_name(k, src));
        }
        at = n.parent();
    }
    out
}

/// The keys of an object literal, in order (spreads and methods left out).
fn object_keys(object: ts::Node<'_>, src: &[u8]) -> Vec<String> {
    named_children(object)
        .into_iter()
        .filter_map(|p| match p.kind() {
            "pair" => p.child_by_field_name("key").map(|k| key_name(k, src)),
            "shorthand_property_identifier" => Some(text_of(p, src).to_string()),
            _ => None,
        })
        .collect()
}

/// Names bound to modules: `import forms from '@tailwindcss/forms'`, `const forms =
/// require('@tailwindcss/forms')`.
fn imports(root: ts::Node<'_>, src: &[u8]) -> HashMap<String, String> {
    let mut out = HashMap::new();
    visit(root, &mut |n| match n.kind() {
        "import_statement" => {
            let Some(module) = n
                .child_by_field_name("source")
                .and_then(|s| string_value(s, src))
            else {
                return;
            };
            visit(n, &mut |m| {
                if m.kind() == "identifier" {
                    out.insert(text_of(m, src).to_string(), module.clone());
                }
            });
        }
        "variable_declarator" => {
            if let (Some(name), Some(value)) = (
                n.child_by_field_name("name"),
                n.child_by_field_name("value"),
            ) && let Some(module) = required(value, src)
            {
                out.insert(text_of(name, src).to_string(), module);
            }
        }
        _ => {}
    });
    out
}

/// The module of `require('x')`.
fn required(node: ts::Node<'_>, src: &[u8]) -> Option<String> {
    if node.kind() != "call_expression" {
        return None;
    }
    let callee = node.child_by_field_name("function")?;
    if text_of(callee, src) != "require" {
        return None;
    }
    let args = node.child_by_field_name("arguments")?;
    named_children(args)
        .into_iter()
        .find_map(|a| string_value(a, src))
}

/// What an array item names: a string's value, a required module, an imported name's module (a
/// call of one too: `forms({ strategy: 'class' })`), else the expression as written.
fn item_name(item: ts::Node<'_>, src: &[u8], imports: &HashMap<String, String>) -> Option<String> {
    if item.kind() == "comment" {
        return None;
    }
    if let Some(s) = string_value(item, src).or_else(|| required(item, src)) {
        return Some(s);
    }
    let callee = match item.kind() {
        "call_expression" => item.child_by_field_name("function"),
        _ => Some(item),
    }?;
    if let Some(inner) = required(callee, src) {
        return Some(inner);
    }
    let name = text_of(callee, src);
    Some(
        imports
            .get(name)
            .cloned()
            .unwrap_or_else(|| name.to_string()),
    )
}
