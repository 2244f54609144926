//! Block directives of template languages without a tree-sitter grammar (Blade), read from a
//! declarative table such as `queries/blade.directives`.
//!
//! The table says which `@name ... @endname` pairs are blocks, which directives are inline with
//! enough arguments, which ones import other templates, and which literal-delimited regions are not
//! scanned (comments, `@verbatim`). The scanner is a single left-to-right pass with an explicit
//! stack, so nesting depth never grows the call stack.

use std::collections::{HashMap, HashSet};

use super::{Candidate, ChunkKind};

/// Longest argument list scanned after a directive name, in bytes. Blade arguments are short; the
/// cap keeps an unbalanced `(` from making the scan quadratic.
const MAX_ARGS_BYTES: usize = 4096;

/// A compiled directive table.
#[derive(Debug, Default)]
pub(crate) struct DirectiveTable {
    /// `(open, close)` literals of regions that are not scanned.
    skips: Vec<(String, String)>,
    /// Block opener name -> block index.
    openers: HashMap<String, usize>,
    /// Closer name -> the blocks it closes.
    closers: HashMap<String, Vec<usize>>,
    /// Opener name -> the argument count that makes it inline (no closer).
    inline_args: HashMap<String, usize>,
    /// Directives recorded as imports.
    imports: HashSet<String>,
}

/// A table line that does not parse.
#[derive(Debug, thiserror::Error)]
#[error("directive table line {line} does not parse: {text}")]
pub(crate) struct DirectiveTableError {
    /// 1-based line number in the table.
    pub line: usize,
    /// The offending line.
    pub text: String,
}

impl DirectiveTable {
    /// Parses the table format documented at the top of `queries/blade.directives`.
    ///
    /// # Errors
    /// [`DirectiveTableError`] for an unknown entry or a missing field.
    pub(crate) fn parse(src: &str) -> Result<DirectiveTable, DirectiveTableError> {
        let mut table = DirectiveTable::default();
        for (i, raw) in src.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let err = || DirectiveTableError {
                line: i + 1,
                text: raw.to_owned(),
            };
            let fields: Vec<&str> = line.split_whitespace().collect();
            match fields.as_slice() {
                ["skip", open, close] => {
                    table.skips.push(((*open).to_owned(), (*close).to_owned()))
                }
                ["block", name, closers @ ..] if !closers.is_empty() => {
                    let block = table.openers.len();
                    table.openers.insert((*name).to_owned(), block);
                    for closer in closers {
                        table
                            .closers
                            .entry((*closer).to_owned())
                            .or_default()
                            .push(block);
                    }
                }
                ["inline", name, args] => {
                    let args = args.parse().map_err(|_| err())?;
                    table.inline_args.insert((*name).to_owned(), args);
                }
                ["import", name] => {
                    table.imports.insert((*name).to_owned());
                }
                _ => return Err(err()),
            }
        }
        Ok(table)
    }
}

/// An opened block waiting for its closer.
struct Open {
    block: usize,
    at: usize,
    head_end: usize,
    name: String,
}

/// Finds directive chunks and imports in `text`.
///
/// Returns the candidates (kind [`ChunkKind::Directive`], symbol `@section:content` or `@push`)
/// and the byte ranges of import directives (`@extends('layouts.app')`). Unclosed blocks are
/// dropped; a closer closes the nearest open block it belongs to and drops unclosed ones inside it.
pub(crate) fn scan(table: &DirectiveTable, text: &str) -> (Vec<Candidate>, Vec<(usize, usize)>) {
    let bytes = text.as_bytes();
    let skips = skip_ranges(table, text);
    let mut skip_at = 0;
    let mut stack: Vec<Open> = Vec::new();
    let mut candidates = Vec::new();
    let mut imports = Vec::new();
    for (at, _) in text.match_indices('@') {
        while skip_at < skips.len() && skips[skip_at].1 <= at {
            skip_at += 1;
        }
        if skips.get(skip_at).is_some_and(|&(start, _)| start <= at) {
            continue;
        }
        // `user@example.com`, `@@escaped`, `x.@y` are not directives.
        if at > 0
            && matches!(bytes[at - 1], b'@' | b'.' | b'_' | b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z')
        {
            continue;
        }
        let name_end = at
            + 1
            + bytes[at + 1..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
        if name_end == at + 1 {
            continue;
        }
        let name = &text[at + 1..name_end];
        let args = arguments(text, name_end);
        let head_end = args.map_or(name_end, |a| a.end);
        let first = args.and_then(|a| a.first_string).unwrap_or_default();
        let count = args.map_or(0, |a| a.count);

        if table.imports.contains(name) {
            imports.push((at, head_end));
            continue;
        }
        if table.inline_args.get(name).is_some_and(|&n| count >= n) {
            candidates.push(candidate(name, first, at, head_end, head_end));
            continue;
        }
        if let Some(&block) = table.openers.get(name) {
            stack.push(Open {
                block,
                at,
                head_end,
                name: name.to_owned(),
            });
            continue;
        }
        if let Some(blocks) = table.closers.get(name)
            && let Some(i) = stack.iter().rposition(|open| blocks.contains(&open.block))
        {
            let open = &stack[i];
            let first = arguments(text, open.at + 1 + open.name.len())
                .and_then(|a| a.first_string)
                .unwrap_or_default();
            candidates.push(candidate(
                &open.name,
                first,
                open.at,
                open.head_end,
                name_end,
            ));
            stack.truncate(i);
        }
    }
    (candidates, imports)
}

fn candidate(name: &str, first: &str, start: usize, head_end: usize, end: usize) -> Candidate {
    let symbol = if first.is_empty() {
        format!("@{name}")
    } else {
        format!("@{name}:{first}")
    };
    Candidate {
        start,
        node_start: start,
        end,
        kind: ChunkKind::Directive,
        name: symbol,
        doc: String::new(),
        body_start: Some(head_end),
        receiver: String::new(),
    }
}

/// Sorted, merged byte ranges that are not scanned.
fn skip_ranges(table: &DirectiveTable, text: &str) -> Vec<(usize, usize)> {
    let mut ranges = Vec::new();
    for (open, close) in &table.skips {
        let mut pos = 0;
        while let Some(found) = text[pos..].find(open.as_str()) {
            let start = pos + found;
            let body = start + open.len();
            let end = text[body..]
                .find(close.as_str())
                .map_or(text.len(), |e| body + e + close.len());
            ranges.push((start, end));
            pos = end.max(body);
        }
    }
    ranges.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
    for (start, end) in ranges {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}

/// A directive's parenthesised argument list.
#[derive(Clone, Copy)]
struct Arguments<'a> {
    /// Byte offset just past the closing `)`.
    end: usize,
    /// Number of top-level arguments.
    count: usize,
    /// The first argument when it is a plain string literal, without quotes.
    first_string: Option<&'a str>,
}

/// Parses `( ... )` after optional spaces/tabs at `from` (Blade's own directive pattern allows
/// `[ \t]*` there), honouring quotes and nested brackets.
fn arguments(text: &str, from: usize) -> Option<Arguments<'_>> {
    let bytes = text.as_bytes();
    let open = from
        + bytes[from..]
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
    if bytes.get(open) != Some(&b'(') {
        return None;
    }
    let limit = bytes.len().min(open + MAX_ARGS_BYTES);
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut escaped = false;
    let mut commas = 0usize;
    let mut first_end = None;
    for i in open..limit {
        let b = bytes[i];
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == q {
                quote = None;
            }
            continue;
        }
        match b {
            b'\'' | b'"' => quote = Some(b),
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    let inner = &text[open + 1..i];
                    let first = &text[open + 1..first_end.unwrap_or(i)];
                    let count = if inner.trim().is_empty() {
                        0
                    } else {
                        commas + 1
                    };
                    return Some(Arguments {
                        end: i + 1,
                        count,
                        first_string: string_literal(first),
                    });
                }
            }
            b',' if depth == 1 => {
                commas += 1;
                first_end.get_or_insert(i);
            }
            _ => {}
        }
    }
    None
}

/// The contents of a `'...'` or `"..."` literal without escapes or interpolation.
fn string_literal(arg: &str) -> Option<&str> {
    let arg = arg.trim();
    let quote = arg.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let inner = arg.strip_prefix(quote)?.strip_suffix(quote)?;
    (!inner.is_empty() && !inner.contains(['\\', '$', quote, '\n'])).then_some(inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_str(src: &str) -> Vec<String> {
        let table = DirectiveTable::parse(include_str!("../queries/blade.directives")).unwrap();
        let (cands, imports) = scan(&table, src);
        let mut out: Vec<String> = cands
            .iter()
            .map(|c| format!("{} {:?}", c.name, &src[c.start..c.end]))
            .collect();
        out.extend(
            imports
                .iter()
                .map(|&(s, e)| format!("import {:?}", &src[s..e])),
        );
        out
    }

    #[test]
    fn bundled_table_parses() {
        let table = DirectiveTable::parse(include_str!("../queries/blade.directives")).unwrap();
        assert!(table.openers.contains_key("section"));
        assert_eq!(table.closers["endsection"], vec![table.openers["section"]]);
    }

    #[test]
    fn bad_table_line_is_an_error() {
        let err = DirectiveTable::parse("block\n").unwrap_err();
        assert_eq!(err.line, 1);
    }

    #[test]
    fn blocks_inline_imports_and_skips() {
        let src = "@extends('layouts.app')\n@section('title', 'Home')\n{{-- @section('x') --}}\n\
                   @section('content')\n@push(\"js\") a @endpush\nmail me@example.com @@section\n@stop\n\
                   @section('unclosed')";
        expect_test::expect![[r#"
            [
                "@section:title \"@section('title', 'Home')\"",
                "@push:js \"@push(\\\"js\\\") a @endpush\"",
                "@section:content \"@section('content')\\n@push(\\\"js\\\") a @endpush\\nmail me@example.com @@section\\n@stop\"",
                "import \"@extends('layouts.app')\"",
            ]
        "#]]
        .assert_debug_eq(&scan_str(src));
    }

    #[test]
    fn closer_drops_unclosed_inner_blocks() {
        let src = "@section('a') @push('b') @endsection @endpush";
        expect_test::expect![[r#"
            [
                "@section:a \"@section('a') @push('b') @endsection\"",
            ]
        "#]]
        .assert_debug_eq(&scan_str(src));
    }

    #[test]
    fn unbalanced_arguments_do_not_hang() {
        let src = format!("@section({}", "(".repeat(100_000));
        assert!(scan_str(&src).is_empty());
    }
}
