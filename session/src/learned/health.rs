//! The learned map's files checked ([`check`], what `code-intel doctor` reports) and repaired
//! ([`repair`], what `code-intel repair` does) without losing a pair or an agreement.
//!
//! Damage is anything a reader refuses or skips: `learned_pairs.json` that is not a regular
//! file (a FIFO, a directory, a device), over [`persist::MAX_STATE_FILE_BYTES`], not JSON, or not
//! learned pairs; an `agreements` path that is no directory; an `agreements/*.md` entry that is
//! not a regular file, over [`MAX_AGREEMENT_BYTES`], not UTF-8, empty, with front matter that is
//! never closed, or a generated agreement (`doc_type: agreement`) whose front matter lost its
//! `nl_term` or `symbol` (a cut write, an editor accident).
//!
//! A repair never deletes: every damaged path is renamed aside in place, to
//! `<name>.damaged-<UTC time>` (no longer `*.md` or `learned_pairs.json`, so no reader sees it,
//! and the user still has it). A damaged `learned_pairs.json` is then written again from what
//! can be recovered: the pairs of its `pairs` array that still parse (a truncated or partly
//! garbled file keeps its good pairs) and every pair an agreement restates (front matter
//! `nl_term` + `symbol`, with its evidence, similarity, session and date). A file of a newer
//! version is not damage and is left alone (upgrade code-intel).

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{
    LEARNED_PAIRS_VERSION, LearnedPair, LearnedPairs, LearnedPairsError, MAX_AGREEMENT_BYTES,
    is_plain_md_name, load, pairs_path, parse_agreement, read_agreement_text,
};
use crate::persist::{self, FileLock, PersistError};
use crate::state_dir::StateDir;

/// One damaged path of the map and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Damage {
    /// The path.
    pub path: PathBuf,
    /// What is wrong (one sentence).
    pub problem: String,
}

/// What [`check`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MapHealth {
    /// Pairs in a readable `learned_pairs.json` (0 when there is none).
    pub pairs: usize,
    /// Readable agreements.
    pub agreements: usize,
    /// `learned_pairs.json` is of a newer format than this code reads: not damage, but the map
    /// is not used until code-intel is upgraded.
    pub newer_version: Option<String>,
    /// Everything a reader refuses or skips.
    pub damage: Vec<Damage>,
}

/// Checks the map's files under `state_dir` (never blocks, never writes).
pub fn check(state_dir: &Path) -> MapHealth {
    let mut health = MapHealth::default();
    match load(state_dir) {
        Ok(p) => health.pairs = p.map_or(0, |p| p.pairs.len()),
        Err(e @ LearnedPairsError::Version { .. }) => health.newer_version = Some(e.to_string()),
        Err(e) => health.damage.push(Damage {
            path: pairs_path(state_dir),
            problem: pairs_problem(&e),
        }),
    }
    let dir = StateDir::at(state_dir).agreements();
    match agreement_entries(&dir) {
        Err(problem) => health.damage.push(Damage { path: dir, problem }),
        Ok(entries) => {
            for path in entries {
                match agreement_problem(&path) {
                    Some(problem) => health.damage.push(Damage { path, problem }),
                    None => health.agreements += 1,
                }
            }
        }
    }
    health
}

/// The error's own words, without the "run `code-intel repair`" advice the caller gives.
fn pairs_problem(e: &LearnedPairsError) -> String {
    match e {
        LearnedPairsError::Read { source, .. } => format!("cannot be read: {source}"),
        LearnedPairsError::Parse { source, .. } => {
            format!("is not valid learned pairs JSON ({source})")
        }
        LearnedPairsError::Version { found, .. } => format!("has version {found}"),
    }
}

/// The `*.md` entries of the agreements directory (sorted); `Ok(empty)` when it does not exist.
///
/// # Errors
/// Why the path cannot be used as the agreements directory.
fn agreement_entries(dir: &Path) -> Result<Vec<PathBuf>, String> {
    match std::fs::metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot be read: {e}")),
        Ok(m) if !m.is_dir() => {
            return Err(
                "is not a directory (agreements/ holds one Markdown file per agreement)".into(),
            );
        }
        Ok(_) => {}
    }
    let listing = std::fs::read_dir(dir).map_err(|e| format!("cannot be listed: {e}"))?;
    let mut paths: Vec<PathBuf> = listing
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_str().is_some_and(is_plain_md_name))
        .map(|e| e.path())
        .collect();
    paths.sort();
    Ok(paths)
}

/// What is wrong with the agreement at `path`, if anything.
fn agreement_problem(path: &Path) -> Option<String> {
    let text = match read_agreement_text(path) {
        Ok(Some(t)) => t,
        Ok(None) => return Some("is a dangling symbolic link".into()),
        Err(e) if e.kind() == std::io::ErrorKind::FileTooLarge => {
            return Some(format!("is larger than {MAX_AGREEMENT_BYTES} bytes"));
        }
        Err(e) => return Some(format!("cannot be read: {e}")),
    };
    if text.trim().is_empty() {
        return Some("is empty".into());
    }
    let opened = text.trim_start_matches('\u{feff}').strip_prefix("---");
    if opened.is_some_and(|rest| !rest.contains("\n---")) {
        return Some("has front matter that is never closed (a cut write)".into());
    }
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let a = parse_agreement(name, &text);
    if a.doc_type.as_deref() == Some("agreement") && (a.nl_term.is_none() || a.symbol.is_none()) {
        return Some(
            "is a generated agreement whose front matter lost its nl_term or symbol".into(),
        );
    }
    None
}

/// A path renamed aside by [`repair`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MovedAside {
    /// Where it was.
    pub from: PathBuf,
    /// Where it is now (the copy to look at or restore).
    pub to: PathBuf,
    /// Why.
    pub problem: String,
}

/// What [`repair`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MapRepair {
    /// Damaged paths renamed aside (nothing is deleted).
    pub moved_aside: Vec<MovedAside>,
    /// Whether `learned_pairs.json` was written again.
    pub pairs_rewritten: bool,
    /// Pairs recovered from the damaged `learned_pairs.json` itself.
    pub pairs_from_file: usize,
    /// Pairs recovered from agreements that restate them.
    pub pairs_from_agreements: usize,
    /// Left alone: `learned_pairs.json` of a newer format.
    pub newer_version: Option<String>,
}

impl MapRepair {
    /// Whether the map needed no change.
    pub fn is_noop(&self) -> bool {
        self.moved_aside.is_empty() && !self.pairs_rewritten
    }
}

/// Repairs the map's files under `state_dir` (see the module docs), under the lock of
/// `learned_pairs.json` (the one `learn` takes), so no concurrent learning is lost.
///
/// # Errors
/// When a rename, the agreements directory or the new `learned_pairs.json` cannot be written.
pub fn repair(state_dir: &Path) -> Result<MapRepair, PersistError> {
    let pairs_file = pairs_path(state_dir);
    let _lock = FileLock::acquire(&pairs_file)?;
    let stamp = jiff::Timestamp::now()
        .strftime("%Y%m%dT%H%M%SZ")
        .to_string();
    let mut report = MapRepair::default();

    let dir = StateDir::at(state_dir).agreements();
    if let Err(problem) = agreement_entries(&dir) {
        report.moved_aside.push(move_aside(&dir, &stamp, problem)?);
        std::fs::create_dir_all(&dir).map_err(|source| PersistError::CreateDir {
            path: dir.clone(),
            source,
        })?;
    }
    for path in agreement_entries(&dir).unwrap_or_default() {
        if let Some(problem) = agreement_problem(&path) {
            report.moved_aside.push(move_aside(&path, &stamp, problem)?);
        }
    }

    let damaged = match load(state_dir) {
        Ok(_) => None,
        Err(e @ LearnedPairsError::Version { .. }) => {
            report.newer_version = Some(e.to_string());
            None
        }
        Err(e) => Some(e),
    };
    let Some(e) = damaged else {
        return Ok(report);
    };
    // What the damaged file still holds, when it is a readable regular file.
    let mut pairs = match &e {
        LearnedPairsError::Parse { .. } => {
            persist::read_regular(&pairs_file, persist::MAX_STATE_FILE_BYTES)
                .ok()
                .flatten()
                .map(|bytes| salvage_pairs(&bytes))
                .unwrap_or_default()
        }
        _ => Vec::new(),
    };
    report.pairs_from_file = pairs.len();
    report
        .moved_aside
        .push(move_aside(&pairs_file, &stamp, pairs_problem(&e))?);
    for a in super::read_agreements(state_dir).unwrap_or_default() {
        let (Some(term), Some(symbol)) = (&a.nl_term, &a.symbol) else {
            continue;
        };
        if pairs.iter().any(|p| p.is(term, symbol)) {
            continue;
        }
        pairs.push(LearnedPair {
            nl_term: term.clone(),
            symbol: symbol.clone(),
            similarity: a.similarity,
            code_evidence: a.code_evidence.clone(),
            session_id: a.session_id.clone(),
            learned_at: a.learned_at.clone(),
            agreement_file: Some(a.file.clone()),
            extra: Default::default(),
        });
        report.pairs_from_agreements += 1;
    }
    let file = LearnedPairs {
        version: LEARNED_PAIRS_VERSION,
        updated_at: Some(
            jiff::Timestamp::now()
                .strftime("%Y-%m-%dT%H:%M:%SZ")
                .to_string(),
        ),
        embedding_model: None,
        pairs,
        extra: Default::default(),
    };
    let mut bytes = serde_json::to_vec_pretty(&file).map_err(|e| PersistError::Write {
        path: pairs_file.clone(),
        source: e.into(),
    })?;
    bytes.push(b'\n');
    persist::write_atomic(&pairs_file, &bytes)?;
    report.pairs_rewritten = true;
    Ok(report)
}

/// Renames `path` to `<path>.damaged-<stamp>` (a free name: `-1`, `-2`, ... appended when taken).
fn move_aside(path: &Path, stamp: &str, problem: String) -> Result<MovedAside, PersistError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut to = path.with_file_name(format!("{name}.damaged-{stamp}"));
    let mut n = 1;
    while std::fs::symlink_metadata(&to).is_ok() {
        to = path.with_file_name(format!("{name}.damaged-{stamp}-{n}"));
        n += 1;
    }
    std::fs::rename(path, &to).map_err(|source| PersistError::Write {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(MovedAside {
        from: path.to_path_buf(),
        to,
        problem,
    })
}

/// The pairs of the `pairs` array of a damaged `learned_pairs.json` that still parse, in order:
/// reading stops at the cut of a truncated file, and a garbled pair is skipped to the next `{`.
pub fn salvage_pairs(bytes: &[u8]) -> Vec<LearnedPair> {
    let text = String::from_utf8_lossy(bytes);
    let Some(key) = text.find("\"pairs\"") else {
        return Vec::new();
    };
    let Some(open) = text[key..].find('[') else {
        return Vec::new();
    };
    let mut rest = &text[key + open + 1..];
    let mut pairs: Vec<LearnedPair> = Vec::new();
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        if rest.is_empty() || rest.starts_with(']') {
            break;
        }
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<LearnedPair>();
        match stream.next() {
            Some(Ok(p)) => {
                let used = stream.byte_offset();
                if !pairs.iter().any(|q| q.is(&p.nl_term, &p.symbol)) {
                    pairs.push(p);
                }
                rest = &rest[used..];
            }
            _ => match rest[1..].find('{') {
                Some(next) => rest = &rest[1 + next..],
                None => break,
            },
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair_json(term: &str, symbol: &str) -> String {
        format!(
            r#"{{"nl_term": "{term}", "symbol": "{symbol}", "learned_at": "2026-01-01T00:00:00Z"}}"#
        )
    }

    #[test]
    fn salvage_keeps_the_pairs_before_a_cut_and_around_garbage() {
        let whole = format!(
            r#"{{"version": 2, "pairs": [{}, {{"nl_term": 3}}, {}, {}"#,
            pair_json("login", "LoginService"),
            pair_json("cart", "Cart"),
            pair_json("price", "formatPr")
        );
        let cut = &whole[..whole.len() - 5];
        let got: Vec<String> = salvage_pairs(cut.as_bytes())
            .into_iter()
            .map(|p| p.symbol)
            .collect();
        assert_eq!(got, ["LoginService", "Cart"]);
        assert!(salvage_pairs(b"\x00\xff garbage").is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_and_garbage_are_named_and_moved_aside_with_the_pairs_recovered() {
        let d = tempfile::tempdir().unwrap();
        let state = d.path();
        let agreements = state.join("agreements");
        std::fs::create_dir_all(&agreements).unwrap();
        std::fs::write(
            agreements.join("login.md"),
            "---\ndoc_type: agreement\nnl_term: login\nsymbol: LoginService\n---\n\n## 根拠 (Code Evidence)\n- authenticates\n",
        )
        .unwrap();
        std::fs::write(agreements.join("cut.md"), "---\ndoc_type: agreement\nnl_te").unwrap();
        std::fs::write(agreements.join("bin.md"), b"\xff\xfe\x00").unwrap();
        let fifo = |p: &Path| {
            assert!(
                std::process::Command::new("mkfifo")
                    .arg(p)
                    .status()
                    .unwrap()
                    .success()
            );
        };
        fifo(&agreements.join("pipe.md"));
        fifo(&state.join("learned_pairs.json"));

        let health = check(state);
        assert_eq!(health.agreements, 1);
        let damaged: Vec<String> = health
            .damage
            .iter()
            .map(|d| d.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            damaged,
            ["learned_pairs.json", "bin.md", "cut.md", "pipe.md"],
            "{health:?}"
        );

        let report = repair(state).unwrap();
        assert_eq!(report.moved_aside.len(), 4, "{report:?}");
        assert!(
            report
                .moved_aside
                .iter()
                .all(|m| std::fs::symlink_metadata(&m.to).is_ok())
        );
        assert_eq!(report.pairs_from_agreements, 1);
        let pairs = load(state).unwrap().unwrap();
        assert_eq!(pairs.pairs.len(), 1);
        assert_eq!(pairs.pairs[0].agreement_file.as_deref(), Some("login.md"));
        assert!(check(state).damage.is_empty());
        assert!(repair(state).unwrap().is_noop());
    }

    #[test]
    fn a_truncated_file_keeps_its_pairs_and_a_copy() {
        let d = tempfile::tempdir().unwrap();
        let state = d.path();
        let text = format!(
            r#"{{"version": 2, "pairs": [{}, {}"#,
            pair_json("login", "LoginService"),
            pair_json("cart", "Cart")
        );
        std::fs::write(state.join("learned_pairs.json"), &text[..text.len() - 3]).unwrap();
        let report = repair(state).unwrap();
        assert_eq!(report.pairs_from_file, 1);
        assert_eq!(
            std::fs::read_to_string(&report.moved_aside[0].to).unwrap(),
            text[..text.len() - 3]
        );
        assert_eq!(
            load(state).unwrap().unwrap().pairs[0].symbol,
            "LoginService"
        );
    }

    #[test]
    fn an_agreements_file_is_moved_aside_and_a_newer_version_left_alone() {
        let d = tempfile::tempdir().unwrap();
        let state = d.path();
        std::fs::write(state.join("agreements"), "not a dir").unwrap();
        std::fs::write(
            state.join("learned_pairs.json"),
            r#"{"version": 99, "pairs": []}"#,
        )
        .unwrap();
        let report = repair(state).unwrap();
        assert_eq!(report.moved_aside.len(), 1);
        assert!(state.join("agreements").is_dir());
        assert!(report.newer_version.is_some());
        assert!(!report.pairs_rewritten);
        assert!(
            std::fs::read_to_string(state.join("learned_pairs.json"))
                .unwrap()
                .contains("99")
        );
    }
}
