//! Human-readable text for the CLI's results (`--json` prints the core results instead).
//!
//! Locations are `file:line` (1-based), so terminals and editors can jump to them.

use std::io::Write;

use code_intel_core::explore::{
    FindDefinitionsResult, FindReferencesResult, FunctionAtLineResult, SearchTextResult,
    StructureResult, SymbolNode,
};
use code_intel_core::index::{IndexStats, SearchHit, SyncReport};
use code_intel_session::session::store::SessionSummary;

type Out<'a> = &'a mut dyn Write;

/// `text` with control characters (except tab) escaped as Rust escapes (`\n`, `\u{1b}`), so a
/// file name with a newline or an escape sequence prints as one visible line and cannot drive the
/// terminal.
pub fn esc(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(|c| c.is_control() && c != '\t') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() && c != '\t' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `… showing N of TOTAL` when a result was cut.
fn shown(out: Out<'_>, shown: usize, total: usize, truncated: bool) -> anyhow::Result<()> {
    if truncated || shown < total {
        writeln!(
            out,
            "… showing {shown} of {total} (use --json or narrow with --path)"
        )?;
    }
    Ok(())
}

/// `code-intel index`.
pub fn sync_report(out: Out<'_>, r: &SyncReport) -> anyhow::Result<()> {
    writeln!(
        out,
        "indexed: {} added, {} modified, {} deleted, {} unchanged; {} chunks in {} ms{}",
        r.files_added,
        r.files_modified,
        r.files_deleted,
        r.files_unchanged,
        r.chunks,
        r.duration_ms,
        if r.full_rebuild {
            " (full rebuild)"
        } else {
            ""
        }
    )?;
    if !r.files_skipped.is_empty() {
        writeln!(out, "skipped {} files:", r.files_skipped.len())?;
        for s in &r.files_skipped {
            writeln!(out, "  {}: {}", esc(&s.path), esc(&s.reason))?;
        }
    }
    Ok(())
}

/// `code-intel repair`: what was done to the learned map (nothing printed when it was sound).
pub fn map_repair(
    out: Out<'_>,
    r: &code_intel_session::learned::health::MapRepair,
) -> anyhow::Result<()> {
    for m in &r.moved_aside {
        writeln!(
            out,
            "learned map: {} {}; moved aside to {}",
            esc(&m.from.display().to_string()),
            esc(&m.problem),
            esc(&m.to.display().to_string())
        )?;
    }
    if r.pairs_rewritten {
        writeln!(
            out,
            "learned map: learned_pairs.json written again with {} pairs recovered from the damaged file and {} from the agreements",
            r.pairs_from_file, r.pairs_from_agreements
        )?;
    }
    if let Some(v) = &r.newer_version {
        writeln!(out, "learned map: left as it is: {}", esc(v))?;
    }
    Ok(())
}

/// `code-intel search`.
pub fn hits(out: Out<'_>, hits: &[SearchHit]) -> anyhow::Result<()> {
    if hits.is_empty() {
        writeln!(out, "no hits")?;
    }
    for h in hits {
        let name = if h.qualified_name.is_empty() {
            &h.symbol
        } else {
            &h.qualified_name
        };
        writeln!(
            out,
            "{:>7.3}  {}:{}-{}  {} {}",
            h.score,
            esc(&h.file),
            h.start_line,
            h.end_line,
            h.kind,
            name
        )?;
    }
    Ok(())
}

/// `code-intel status`.
pub fn status(
    out: Out<'_>,
    root: &str,
    index: Option<&IndexStats>,
    needs_sync: bool,
    sessions: &[SessionSummary],
) -> anyhow::Result<()> {
    writeln!(out, "repository: {root}")?;
    match index {
        None => writeln!(out, "index: none (run `code-intel index`)")?,
        Some(s) => {
            let last = s
                .last_sync
                .map_or_else(|| "never".to_string(), |t| t.to_string());
            let due = if needs_sync { " (sync due)" } else { "" };
            writeln!(
                out,
                "index: {} files, {} chunks, last sync {last}{due}",
                s.files, s.chunks
            )?;
            if !s.skipped.is_empty() {
                // As `code-intel index` counts them: paths not indexed (the reasons below also
                // name files indexed as line windows).
                let listed: usize = s.skipped.iter().map(|c| c.count).sum();
                let windows = listed.saturating_sub(s.not_indexed);
                writeln!(out, "skipped: {} paths", s.not_indexed)?;
                if windows > 0 {
                    writeln!(out, "indexed as line windows: {windows} files")?;
                }
                for c in &s.skipped {
                    writeln!(
                        out,
                        "  {:>6}  {}  (e.g. {})",
                        c.count,
                        c.reason,
                        c.examples.join(", ")
                    )?;
                }
            }
        }
    }
    writeln!(out, "sessions: {}", sessions.len())?;
    for s in sessions {
        writeln!(
            out,
            "  {}  {:<11} {:<12} {}  {}",
            s.session_id,
            s.intent,
            s.phase,
            s.updated_at,
            one_line(&s.query, 60)
        )?;
    }
    Ok(())
}

fn one_line(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}

/// `code-intel find-definitions`.
pub fn definitions(out: Out<'_>, r: &FindDefinitionsResult) -> anyhow::Result<()> {
    if r.definitions.is_empty() {
        writeln!(out, "no definitions of {}", r.symbol)?;
    }
    for d in &r.definitions {
        writeln!(
            out,
            "{}:{}-{}  {} {}  {}",
            esc(&d.file),
            d.line,
            d.end_line,
            d.kind,
            d.qualified_name,
            d.signature
        )?;
    }
    shown(out, r.definitions.len(), r.total, r.truncated)
}

/// `code-intel find-references`.
pub fn references(out: Out<'_>, r: &FindReferencesResult) -> anyhow::Result<()> {
    if r.references.is_empty() {
        writeln!(out, "no references to {}", r.symbol)?;
    }
    for x in &r.references {
        let within = x
            .enclosing_symbol
            .as_deref()
            .map(|s| format!(" [{s}]"))
            .unwrap_or_default();
        writeln!(
            out,
            "{}:{}{within}  {}",
            esc(&x.file),
            x.line,
            esc(x.content.trim())
        )?;
    }
    shown(out, r.references.len(), r.total, r.truncated)
}

/// `code-intel search-text`: `file:line:` for matches, `file-line-` for context (as grep -n).
pub fn text_matches(out: Out<'_>, r: &SearchTextResult) -> anyhow::Result<()> {
    let with_context = r
        .matches
        .iter()
        .any(|m| !m.context_before.is_empty() || !m.context_after.is_empty());
    for m in &r.matches {
        if with_context {
            writeln!(out, "--")?;
        }
        let before = m.context_before.len() as u64;
        for (i, c) in m.context_before.iter().enumerate() {
            writeln!(
                out,
                "{}-{}-{}",
                esc(&m.file),
                m.line.saturating_sub(before) + i as u64,
                esc(c)
            )?;
        }
        writeln!(out, "{}:{}:{}", esc(&m.file), m.line, esc(&m.content))?;
        for (i, c) in m.context_after.iter().enumerate() {
            writeln!(out, "{}-{}-{}", esc(&m.file), m.line + 1 + i as u64, esc(c))?;
        }
    }
    if r.matches.is_empty() {
        writeln!(out, "no matches in {} files", r.files_searched)?;
    }
    shown(out, r.matches.len(), r.total, r.truncated)
}

/// `code-intel analyze-structure`.
pub fn structure(out: Out<'_>, r: &StructureResult) -> anyhow::Result<()> {
    for f in &r.files {
        match &f.skipped {
            Some(why) => writeln!(
                out,
                "{} ({}): skipped, {}",
                esc(&f.file),
                f.language,
                esc(why)
            )?,
            None => writeln!(out, "{} ({})", esc(&f.file), f.language)?,
        }
        for s in &f.symbols {
            node(out, s, 1)?;
        }
    }
    for u in &r.unreadable {
        writeln!(out, "{}: skipped, {}", esc(&u.path), esc(&u.reason))?;
    }
    if r.files.is_empty() {
        writeln!(out, "no parsable files under {}", esc(&r.path))?;
    }
    shown(out, r.files.len(), r.files_total, r.truncated)
}

fn node(out: Out<'_>, n: &SymbolNode, depth: usize) -> anyhow::Result<()> {
    writeln!(
        out,
        "{:indent$}{} {} [{}-{}]",
        "",
        n.kind,
        n.name,
        n.start_line,
        n.end_line,
        indent = depth * 2
    )?;
    for c in &n.children {
        node(out, c, depth + 1)?;
    }
    Ok(())
}

/// `code-intel function-at-line`.
pub fn function_at(out: Out<'_>, r: &FunctionAtLineResult) -> anyhow::Result<()> {
    match &r.function {
        None => writeln!(
            out,
            "{}:{} is not inside a function or method",
            esc(&r.file),
            r.line
        )?,
        Some(f) => {
            writeln!(
                out,
                "{}:{}-{}  {} {}",
                esc(&r.file),
                f.start_line,
                f.end_line,
                f.kind,
                esc(&f.qualified_name)
            )?;
            writeln!(out, "{}", f.content.trim_end())?;
            if f.truncated {
                writeln!(out, "… (cut; use --json for the limits)")?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_tabs_kept() {
        assert_eq!(esc("src/a\nb.py"), "src/a\\nb.py");
        assert_eq!(esc("x\u{1b}[31my"), "x\\u{1b}[31my");
        assert_eq!(esc("a\tb"), "a\tb");
        assert!(matches!(esc("plain"), std::borrow::Cow::Borrowed("plain")));
    }
}
