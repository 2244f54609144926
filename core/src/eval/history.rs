//! Change requests from a repository's own git history (`code-intel eval --from-git`): commit
//! subjects become queries, the source files a commit changed become the gold, and the commit's
//! parent is the snapshot to index ([`Worktree`]).
//!
//! The selection follows the development benchmark kit (`bench-kit/make_queries.py`), simplified:
//!
//! - non-merge commits with a parent, newest first (`git log --topo-order`: one line of history
//!   after the other), until `limit` are kept;
//! - the subject is cleaned ([`clean_subject`]): `[1.x]`-style tags, a conventional-commit
//!   `type(scope):` prefix and trailing PR numbers (`(#123)`) are removed; maintenance subjects
//!   (docs, tests, CI, chores, releases, bumps and dependencies, typos, formatting, lint, merges,
//!   licenses) and subjects under four words are skipped;
//! - the commit changes 1 to 4 source files ([`is_source`]: code, not tests, docs, examples or
//!   data), and at least one of them exists in the parent: those are the gold files;
//! - its hunks ([`Hunk`], parent side, from `git diff -U0 parent commit`) locate the change;
//!   [`enclosing_ranges`] turns them into the gold ranges of the function-level metric once the
//!   parent is indexed.
//!
//! Git runs as a subprocess (`git -C <repo> …`, explicit arguments, the `GIT_DIR`-style variables
//! of the calling environment removed so the caller's repository is the one read). This lives in
//! core rather than in the CLI because what makes a commit a change request, and where its gold
//! lies, is part of the evaluation's definition, tested here with the metrics; the CLI only
//! chooses the paths.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::index::chunk::ChunkKind;
use crate::index::scope::FileRole;
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::{EvalQuery, GoldRange};
use crate::index::{CodeIndex, IndexError};

/// Most source files a kept commit may change (larger commits are refactorings or features
/// whose location no single request describes).
pub const MAX_FILES: usize = 4;

/// Fewest words a cleaned subject must have.
pub const MIN_WORDS: usize = 4;

/// Failures of the git side.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// `git` could not be started.
    #[error("cannot run git in {repo}")]
    Spawn {
        /// The repository.
        repo: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// `git` exited with an error.
    #[error("`git {args}` failed in {repo}: {stderr}")]
    Git {
        /// The repository (or worktree) it ran in.
        repo: PathBuf,
        /// The arguments, space-separated.
        args: String,
        /// What git said on stderr, trimmed.
        stderr: String,
    },
}

/// One changed region of a file, on the parent's side of `git diff -U0`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hunk {
    /// Repository-relative path in the parent.
    pub file: String,
    /// First changed line, 1-based; for a pure insertion (`count == 0`), the line after which
    /// the new lines go (0: at the top of the file).
    pub start: u32,
    /// Lines deleted or modified (0 for a pure insertion).
    pub count: u32,
}

/// A change request taken from one commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangeRequest {
    /// The commit's full id.
    pub commit: String,
    /// Its parent's full id: the snapshot to index.
    pub parent: String,
    /// The raw subject.
    pub subject: String,
    /// The query: the cleaned subject, or with [`Selection::message`] the whole message (raw
    /// subject, a blank line, the body as committed, trailers included).
    pub query: String,
    /// Source files the commit changed that exist in the parent, sorted.
    pub gold_files: Vec<String>,
    /// The parent-side hunks in the gold files.
    pub hunks: Vec<Hunk>,
}

impl ChangeRequest {
    /// The evaluation query: id = the first 12 hex digits of the commit, `gold_ranges` as given
    /// (from [`enclosing_ranges`] over the indexed parent).
    pub fn eval_query(&self, gold_ranges: Vec<GoldRange>) -> EvalQuery {
        EvalQuery {
            id: Some(self.commit.chars().take(12).collect::<String>().into()),
            query: self.query.clone(),
            gold_files: self.gold_files.clone(),
            gold_ranges,
        }
    }
}

/// Why a commit did not become a change request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Skip {
    /// A root commit: no parent to index.
    Root,
    /// Maintenance, or fewer than [`MIN_WORDS`] words after cleaning.
    Subject,
    /// No source file changed, or more than [`MAX_FILES`].
    Files,
    /// Every changed source file is new in the commit.
    NewFiles,
    /// The same cleaned subject was kept already (a newer commit).
    Duplicate,
    /// With [`Selection::message`]: the message, trailers left out, is shorter than
    /// [`Selection::min_chars`].
    Short,
}

/// Which commits make change requests, and what their query is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Selection {
    /// The query is the whole commit message (subject and body, as a pull request's squash or
    /// merge commit carries its description) instead of the cleaned subject: long requests.
    pub message: bool,
    /// With `message`: fewest characters of the message without its trailer lines
    /// (`Co-authored-by:` ...; [`message_chars`]).
    pub min_chars: usize,
}

/// Characters of a commit message (`subject` and `body`) without trailer lines
/// ([`TRAILERS`](crate::index::request::TRAILERS)) and blank lines, counting one newline per
/// kept line.
pub fn message_chars(subject: &str, body: &str) -> usize {
    std::iter::once(subject)
        .chain(body.lines())
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .filter(|l| {
            let key = l
                .split_once(':')
                .map_or("", |(k, _)| k)
                .trim()
                .to_lowercase();
            !crate::index::request::TRAILERS.contains(&key.as_str())
        })
        .map(|l| l.chars().count() + 1)
        .sum()
}

/// The change requests of a revision range and what was skipped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Extraction {
    /// Kept change requests, oldest first.
    pub requests: Vec<ChangeRequest>,
    /// Non-merge commits looked at (newest first, until the limit was reached).
    pub considered: usize,
    /// Commits skipped, by reason.
    pub skipped: BTreeMap<Skip, usize>,
}

/// Change requests from the non-merge commits of `range` (any `git log` revision range, e.g.
/// `HEAD~200..HEAD`) in the repository at `repo`: the first `limit` that qualify (see the
/// module docs) in `git log --topo-order` (newest first), returned in the reverse order. In
/// topological order the commits of one line of history stay together, so consecutive
/// snapshots share their base and each re-index is small. In date order, a repository that
/// merges maintenance branches upward (Symfony: 6.4 into 7.x) alternated between versions, and
/// a snapshot could re-index most of its 12,000 files.
///
/// # Errors
/// [`HistoryError`] when git cannot run or rejects the range.
pub fn change_requests(repo: &Path, range: &str, limit: usize) -> Result<Extraction, HistoryError> {
    change_requests_with(repo, range, limit, Selection::default())
}

/// [`change_requests`] with a [`Selection`]: with `message`, the query is the commit's whole
/// message and commits whose message has fewer than `min_chars` characters are skipped
/// ([`Skip::Short`]); the subject, file and duplicate rules are the same.
///
/// # Errors
/// [`HistoryError`] when git cannot run or rejects the range.
pub fn change_requests_with(
    repo: &Path,
    range: &str,
    limit: usize,
    selection: Selection,
) -> Result<Extraction, HistoryError> {
    let log = git(
        repo,
        &[
            "log",
            "--topo-order",
            "--no-merges",
            "--no-renames",
            "--name-status",
            "--format=%x00%H %P%x1f%s%x1e%b%x1e",
            range,
            "--",
        ],
    )?;
    let mut out = Extraction {
        requests: Vec::new(),
        considered: 0,
        skipped: BTreeMap::new(),
    };
    let mut seen = HashSet::new();
    for block in log.split('\0').skip(1) {
        if out.requests.len() >= limit {
            break;
        }
        out.considered += 1;
        let (head, rest) = block.split_once('\x1e').unwrap_or((block, ""));
        let (body, changes) = rest.split_once('\x1e').unwrap_or(("", rest));
        let body = body.trim();
        let (ids, subject) = head.split_once('\x1f').unwrap_or((head, ""));
        let mut ids = ids.split_whitespace();
        let (commit, parent) = (ids.next().unwrap_or_default(), ids.next());
        let verdict = match (parent, clean_subject(subject)) {
            (None, _) => Err(Skip::Root),
            (_, None) => Err(Skip::Subject),
            (Some(_), Some(_))
                if selection.message && message_chars(subject, body) < selection.min_chars =>
            {
                Err(Skip::Short)
            }
            (Some(parent), Some(query)) => gold_of(changes).and_then(|gold| {
                if seen.insert(query.to_lowercase()) {
                    let query = if selection.message {
                        format!("{subject}\n\n{body}").trim().to_string()
                    } else {
                        query
                    };
                    Ok((parent, query, gold))
                } else {
                    Err(Skip::Duplicate)
                }
            }),
        };
        match verdict {
            Err(why) => *out.skipped.entry(why).or_default() += 1,
            Ok((parent, query, gold_files)) => {
                let mut hunks = Vec::new();
                for file in &gold_files {
                    let diff = git(
                        repo,
                        &[
                            "diff",
                            "-U0",
                            "--no-color",
                            "--no-ext-diff",
                            "--no-renames",
                            parent,
                            commit,
                            "--",
                            file,
                        ],
                    )?;
                    hunks.extend(parse_hunks(&diff).into_iter().map(|(start, count)| Hunk {
                        file: file.clone(),
                        start,
                        count,
                    }));
                }
                out.requests.push(ChangeRequest {
                    commit: commit.to_string(),
                    parent: parent.to_string(),
                    subject: subject.to_string(),
                    query,
                    gold_files,
                    hunks,
                });
            }
        }
    }
    out.requests.reverse();
    Ok(out)
}

/// The gold files of a commit from its `--name-status` lines: its source files that are not new.
fn gold_of(name_status: &str) -> Result<Vec<String>, Skip> {
    let sources: Vec<(&str, &str)> = name_status
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .filter(|(_, path)| is_source(path))
        .collect();
    if sources.is_empty() || sources.len() > MAX_FILES {
        return Err(Skip::Files);
    }
    let mut gold: Vec<String> = sources
        .iter()
        .filter(|(status, _)| !status.starts_with('A'))
        .map(|(_, path)| path.to_string())
        .collect();
    gold.sort();
    if gold.is_empty() {
        return Err(Skip::NewFiles);
    }
    Ok(gold)
}

/// `(start, count)` of the old side of each `@@ -start[,count] +… @@` line of a unified diff.
fn parse_hunks(diff: &str) -> Vec<(u32, u32)> {
    static HUNK: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^@@ -(\d+)(?:,(\d+))? \+").expect("hunk header pattern is valid")
    });
    diff.lines()
        .filter_map(|l| HUNK.captures(l))
        .filter_map(|c| {
            let start = c[1].parse().ok()?;
            let count = c.get(2).map_or(Some(1), |m| m.as_str().parse().ok())?;
            Some((start, count))
        })
        .collect()
}

/// File extensions of source code: the benchmark kit's list, then the other languages the
/// chunker parses (Go, Rust, Java, Ruby, C#, C, C++, Kotlin, Swift, Svelte), so a repository in
/// any of them yields change requests.
const SOURCE_EXTS: &[&str] = &[
    ".py", ".php", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts", ".vue", ".go",
    ".rs", ".java", ".rb", ".cs", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".kt",
    ".kts", ".swift", ".svelte",
];

/// Directory names that mark tests, docs, examples, vendored or generated trees and translations.
const NON_SOURCE_DIRS: &[&str] = &[
    "test",
    "tests",
    "__tests__",
    "__test__",
    "spec",
    "specs",
    "testing",
    "e2e",
    "cypress",
    "fixtures",
    "__fixtures__",
    "__mocks__",
    "docs",
    "doc",
    "documentation",
    "examples",
    "example",
    "benchmark",
    "benchmarks",
    "bench",
    "benches",
    "testdata",
    ".github",
    ".circleci",
    "dist",
    "build",
    "vendor",
    "node_modules",
    "lang",
    "langs",
    "locale",
    "locales",
    "i18n",
    "translations",
    "storage",
    "playground",
    "typings",
];

/// Whether `path` (repository-relative, `/`-separated) is source code that a change request
/// could be about: a code extension (the kit's five languages and the other ones the chunker
/// parses; so no docs, lock, JSON or Markdown files),
/// outside test/doc/example/vendor directories, and not a test (by the index's [`FileRole`]
/// conventions too), type-declaration, minified or tool-configuration file (`*.config.js`,
/// Gradle's `*.gradle.kts`, SwiftPM's `Package.swift`) by its name.
pub fn is_source(path: &str) -> bool {
    has_code_extension(path) && is_source_by_location(path)
}

/// Whether `path` ends in one of the code extensions [`is_source`] accepts (tests, docs and
/// vendored directories not excluded).
pub fn has_code_extension(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    SOURCE_EXTS.iter().any(|e| lower.ends_with(e))
}

/// [`is_source`] without the extension check.
fn is_source_by_location(path: &str) -> bool {
    static NON_SOURCE_FILE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r"(^|/)test_[^/]*\.py$|_tests?\.py$|(^|/)conftest\.py$|",
            r"(^|/)(setup|noxfile|conf|manage)\.py$|",
            r"\.(test|spec|bench)\.[cm]?[jt]sx?$|\.d\.[cm]?ts$|\.min\.js$|",
            r"(^|/)[^/]*\.config\.[cm]?[jt]s$|Test\.php$|\.gradle\.kts$|",
            r"(^|/)Package(@[^/]*)?\.swift$",
        ))
        .expect("non-source file pattern is valid")
    });
    let mut dirs = path.split('/').rev().skip(1).map(str::to_ascii_lowercase);
    // `__tests__`, `__tests_dts__`, `__test_utils__`: test trees by the JS convention.
    !dirs.any(|d| NON_SOURCE_DIRS.contains(&d.as_str()) || d.starts_with("__test"))
        && !NON_SOURCE_FILE.is_match(path)
        // The index's own test conventions of the other languages (`*_test.go`, `*Test.java`,
        // `*_spec.rb`, a .NET `*.Tests/` project, ...).
        && FileRole::of(path) == FileRole::Source
}

/// The query a commit subject makes, or `None` when the commit is maintenance or the subject
/// too short (see the module docs). "format" counts as maintenance only as code formatting
/// (`formatting`, `reformat`, `prettier`, …): "Fix the date format of invoices" is a change
/// request.
pub fn clean_subject(subject: &str) -> Option<String> {
    static TAG: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\[[^\]]{1,30}\]").expect("tag pattern is valid"));
    static CONVENTIONAL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?i)([a-z]+)(\([^)]*\))?!?\s*:\s*").expect("prefix pattern is valid")
    });
    static TRAILING_REF: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\s*(\((#|gh-)?\d+\)|#\d+)\s*$").expect("reference pattern is valid")
    });
    static MAINTENANCE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r"(?i)\b(docs?|documentation|readme|changelog|tests?|testing|ci|chore|",
            r"releases?|released|bump\w*|typos?|spelling|formatting|reformat\w*|prettier|",
            r"code ?style|lint\w*|eslint|merge[sd]?|wip|dependenc(?:y|ies)|deps|",
            r"licen[cs]es?|licensing|copyright)\b",
        ))
        .expect("maintenance pattern is valid")
    });
    const MAINTENANCE_TYPES: &[&str] = &[
        "docs", "doc", "test", "tests", "ci", "chore", "release", "build", "style", "revert",
        "deps", "dep",
    ];
    let mut s = TAG.replace_all(subject.trim(), "").trim().to_string();
    if let Some(c) = CONVENTIONAL.captures(&s) {
        let kind = c[1].to_ascii_lowercase();
        if MAINTENANCE_TYPES.contains(&kind.as_str()) {
            return None;
        }
        s = s[c.get(0).map_or(0, |m| m.end())..].to_string();
    }
    loop {
        let trimmed = TRAILING_REF.replace(&s, "").to_string();
        if trimmed == s {
            break;
        }
        s = trimmed;
    }
    let s = s.trim().trim_end_matches('.').trim();
    if s.split_whitespace().count() < MIN_WORDS || MAINTENANCE.is_match(s) {
        return None;
    }
    let mut chars = s.chars();
    let first = chars.next()?;
    Some(first.to_uppercase().chain(chars).collect())
}

/// The gold ranges of `hunks` in the index of their snapshot: for each hunk, the innermost
/// named chunks (functions, methods, classes…; not module chunks or line windows) that contain
/// a deleted or modified line, or a pure insertion strictly inside them (between two of their
/// own lines), as in the benchmark kit's `gold_funcs`.
///
/// The hunks themselves are not used as gold ranges: a result chunk counts when half of its
/// lines lie inside a gold range, so a two-line edit would make the edited 30-line method a
/// miss. A hunk outside every named chunk (top-level code) gives no range.
///
/// # Errors
/// [`IndexError`] when the index cannot be read.
pub fn enclosing_ranges(index: &CodeIndex, hunks: &[Hunk]) -> Result<Vec<GoldRange>, IndexError> {
    let mut out: Vec<GoldRange> = Vec::new();
    let mut files: Vec<&str> = hunks.iter().map(|h| h.file.as_str()).collect();
    files.dedup();
    for file in files {
        let chunks: Vec<(u32, u32)> = index
            .chunks_of(file)?
            .into_iter()
            .filter(|c| !matches!(c.kind, ChunkKind::Module | ChunkKind::Window))
            .map(|c| (c.start_line, c.end_line))
            .collect();
        let file_hunks: Vec<(u32, u32)> = hunks
            .iter()
            .filter(|h| h.file == file)
            .map(|h| (h.start, h.count))
            .collect();
        for (start, end) in innermost_touched(&chunks, &file_hunks) {
            let range = GoldRange {
                file: file.to_string(),
                start,
                end,
            };
            if !out.contains(&range) {
                out.push(range);
            }
        }
    }
    Ok(out)
}

/// The innermost of `chunks` (line ranges) touched by `hunks` (`(start, count)`, see [`Hunk`]),
/// sorted.
fn innermost_touched(chunks: &[(u32, u32)], hunks: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let touched: Vec<(u32, u32)> = chunks
        .iter()
        .copied()
        .filter(|&(s, e)| {
            hunks.iter().any(|&(start, count)| {
                if count == 0 {
                    s <= start && start < e
                } else {
                    start <= e && s < start + count
                }
            })
        })
        .collect();
    let mut inner: Vec<(u32, u32)> = touched
        .iter()
        .copied()
        .filter(|&(s, e)| {
            !touched
                .iter()
                .any(|&(s2, e2)| (s2, e2) != (s, e) && s <= s2 && e2 <= e)
        })
        .collect();
    inner.sort_unstable();
    inner.dedup();
    inner
}

/// Above this many snapshots [`snapshot_order`] keeps the history's order: a bound on its
/// greedy pass, which compares every pair of trees, each comparison a set difference over
/// every file (300 snapshots: about 45,000 comparisons; not measured beyond the 34 snapshots of
/// docs/EVALUATION.md, "code-intel eval").
pub const MAX_ORDERED_SNAPSHOTS: usize = 300;

/// An order in which to index the snapshots `revs` (commits of the repository at `repo`) that
/// keeps each re-index small: greedy nearest neighbour from the first, the distance between
/// two snapshots the number of `(path, blob)` entries of their trees (`git ls-tree -r`) that
/// only one of them has — the files a sync from one to the other indexes, adds or deletes.
/// Returns the positions of `revs` in that order; `revs` of at most two, or of more than
/// [`MAX_ORDERED_SNAPSHOTS`] (the greedy pass compares every pair), give `0, 1, …`.
///
/// # Errors
/// [`HistoryError`] when git cannot list a tree.
pub fn snapshot_order(repo: &Path, revs: &[&str]) -> Result<Vec<usize>, HistoryError> {
    if revs.len() <= 2 || revs.len() > MAX_ORDERED_SNAPSHOTS {
        return Ok((0..revs.len()).collect());
    }
    let trees: Vec<HashSet<u64>> = revs
        .iter()
        .map(|rev| {
            let listing = git(repo, &["ls-tree", "-r", "--full-tree", rev])?;
            Ok(listing
                .lines()
                .map(|line| {
                    use std::hash::{Hash, Hasher};
                    let mut h = std::collections::hash_map::DefaultHasher::new();
                    line.hash(&mut h);
                    h.finish()
                })
                .collect())
        })
        .collect::<Result<_, HistoryError>>()?;
    let distance = |a: usize, b: usize| trees[a].symmetric_difference(&trees[b]).count();
    let mut order = vec![0];
    let mut left: Vec<usize> = (1..revs.len()).collect();
    while !left.is_empty() {
        let last = *order.last().expect("starts with one");
        // Ties keep the given (oldest-first) order.
        let (i, _) = left
            .iter()
            .enumerate()
            .min_by_key(|&(_, &r)| distance(last, r))
            .expect("not empty");
        order.push(left.remove(i));
    }
    Ok(order)
}

/// A temporary linked worktree of a repository (`git worktree add --detach`), checked out at one
/// revision after another; [`remove`](Self::remove) (or drop) deletes it and its administrative
/// files, untracked files such as its `.code-intel/` included.
#[derive(Debug)]
pub struct Worktree {
    repo: PathBuf,
    path: PathBuf,
    removed: bool,
}

impl Worktree {
    /// Adds a worktree of `repo` at `path` (which must not exist, or be an empty directory),
    /// detached at `rev`.
    ///
    /// # Errors
    /// [`HistoryError`] when git fails (not a repository, unknown revision, path in use).
    pub fn add(repo: &Path, path: &Path, rev: &str) -> Result<Self, HistoryError> {
        let path_arg = path.to_string_lossy();
        git(
            repo,
            &["worktree", "add", "--quiet", "--detach", &path_arg, rev],
        )?;
        Ok(Self {
            repo: repo.to_path_buf(),
            path: path.to_path_buf(),
            removed: false,
        })
    }

    /// The worktree's directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Checks out `rev` (detached, discarding changes to tracked files; untracked files such as
    /// `.code-intel/` stay). Only files that differ are rewritten, so an index of the worktree
    /// re-syncs incrementally.
    ///
    /// # Errors
    /// [`HistoryError`] when git fails.
    pub fn checkout(&self, rev: &str) -> Result<(), HistoryError> {
        git(
            &self.path,
            &["checkout", "--quiet", "--force", "--detach", rev],
        )?;
        Ok(())
    }

    /// Removes the worktree (`git worktree remove --force`, then `git worktree prune`).
    ///
    /// # Errors
    /// [`HistoryError`] when git fails; the directory is then deleted directly and the
    /// administrative files pruned, as far as possible.
    pub fn remove(mut self) -> Result<(), HistoryError> {
        self.removed = true;
        self.cleanup()
    }

    fn cleanup(&self) -> Result<(), HistoryError> {
        let path_arg = self.path.to_string_lossy();
        let removed = git(&self.repo, &["worktree", "remove", "--force", &path_arg]);
        if removed.is_err() && self.path.exists() {
            // Best effort: whatever is left is in the caller's temporary directory.
            std::fs::remove_dir_all(&self.path).ok();
        }
        let pruned = git(&self.repo, &["worktree", "prune"]);
        removed.and(pruned).map(|_| ())
    }
}

impl Drop for Worktree {
    fn drop(&mut self) {
        if !self.removed {
            self.removed = true;
            // An error path is already being reported; the removal is best effort here.
            self.cleanup().ok();
        }
    }
}

/// Runs `git -C dir args…` and returns its stdout (lossily decoded).
fn git(dir: &Path, args: &[&str]) -> Result<String, HistoryError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "core.quotePath=false"])
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_OBJECT_DIRECTORY")
        .output()
        .map_err(|source| HistoryError::Spawn {
            repo: dir.to_path_buf(),
            source,
        })?;
    if !out.status.success() {
        return Err(HistoryError::Git {
            repo: dir.to_path_buf(),
            args: args.join(" "),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `git ARGS` in `repo` as a test committer; its stdout (a failure panics).
    fn git_as_tester(repo: &Path, args: &[&str]) -> String {
        git(
            repo,
            &[&["-c", "user.name=t", "-c", "user.email=t@t"], args].concat(),
        )
        .unwrap()
    }

    /// Three snapshots: the base, a commit that rewrites ten files, and a branch from the base
    /// that changes one. From the base, the branch is nearer than the rewrite.
    #[test]
    fn snapshots_are_ordered_nearest_first() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path();
        let run = |args: &[&str]| git_as_tester(repo, args);
        run(&["init", "-q", "-b", "main"]);
        let write = |i: usize, text: &str| {
            std::fs::write(repo.join(format!("f{i}.py")), text).unwrap();
        };
        (0..10).for_each(|i| write(i, "x = 1\n"));
        run(&["add", "-A"]);
        run(&["commit", "-qm", "base"]);
        let base = run(&["rev-parse", "HEAD"]).trim().to_string();
        (0..10).for_each(|i| write(i, "x = 2\n"));
        run(&["commit", "-qam", "rewrite"]);
        let rewrite = run(&["rev-parse", "HEAD"]).trim().to_string();
        run(&["checkout", "-q", "-b", "side", &base]);
        write(0, "x = 3\n");
        run(&["commit", "-qam", "side"]);
        let side = run(&["rev-parse", "HEAD"]).trim().to_string();
        assert_eq!(
            snapshot_order(repo, &[&base, &rewrite, &side]).unwrap(),
            [0, 2, 1]
        );
        assert_eq!(snapshot_order(repo, &[&base, &rewrite]).unwrap(), [0, 1]);
    }

    /// With `Selection::message`, the query is the whole message and short messages are
    /// skipped; trailers do not count towards the length.
    #[test]
    fn whole_messages_make_long_requests() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path();
        let run = |args: &[&str]| git_as_tester(repo, args);
        run(&["init", "-q", "-b", "main"]);
        std::fs::write(repo.join("app.py"), "x = 1\n").unwrap();
        run(&["add", "-A"]);
        run(&["commit", "-qm", "base"]);
        let body = "The realm header is sent twice when the proxy adds its own.\n\n\
                    ```\nTraceback (most recent call last):\n  File \"app.py\", line 1\n```";
        std::fs::write(repo.join("app.py"), "x = 2\n").unwrap();
        run(&[
            "commit",
            "-qam",
            &format!("Send the realm header only once (#12)\n\n{body}"),
        ]);
        std::fs::write(repo.join("app.py"), "x = 3\n").unwrap();
        let trailers = "Co-authored-by: Someone With A Long Name <someone@example.com>\n".repeat(5);
        run(&[
            "commit",
            "-qam",
            &format!("Keep the proxy realm as configured\n\n{trailers}"),
        ]);
        let all = change_requests(repo, "HEAD~2..HEAD", 10).unwrap();
        assert_eq!(all.requests.len(), 2);
        assert_eq!(all.requests[0].query, "Send the realm header only once");
        let selection = Selection {
            message: true,
            min_chars: 100,
        };
        let long = change_requests_with(repo, "HEAD~2..HEAD", 10, selection).unwrap();
        assert_eq!(long.requests.len(), 1);
        assert_eq!(
            long.requests[0].query,
            format!("Send the realm header only once (#12)\n\n{body}")
        );
        assert_eq!(long.requests[0].gold_files, ["app.py"]);
        assert_eq!(long.skipped.get(&Skip::Short), Some(&1));
    }

    #[test]
    fn subjects_lose_prefixes_tags_and_pr_numbers() {
        let cases = [
            (
                "feat(css): don't pass empty targets to lightningcss (#21000)",
                Some("Don't pass empty targets to lightningcss"),
            ),
            (
                "[12.x] Add a configurable WWW-Authenticate realm",
                Some("Add a configurable WWW-Authenticate realm"),
            ),
            (
                "fix!: keep the query string on redirects (#12) (#13)",
                Some("Keep the query string on redirects"),
            ),
            (
                "perf: cache resolved aliases per importer.",
                Some("Cache resolved aliases per importer"),
            ),
            (
                "Sort custom fields alphabetically by default",
                Some("Sort custom fields alphabetically by default"),
            ),
            (
                "Fix the date format of invoices (gh-7)",
                Some("Fix the date format of invoices"),
            ),
        ];
        for (subject, want) in cases {
            assert_eq!(clean_subject(subject).as_deref(), want, "{subject}");
        }
    }

    #[test]
    fn maintenance_and_short_subjects_are_skipped() {
        for subject in [
            "docs: explain the discount codes in detail",
            "chore(deps): update all non-major dependencies",
            "test: cover the cart total with discounts",
            "ci: run the matrix on node 22",
            "release: v5.0.1 with the fixes",
            "Bump lodash from 4.17.20 to 4.17.21",
            "Fix typo in the login form label",
            "Apply formatting to the whole source tree",
            "Fix lint errors in the cart module",
            "Merge branch 'main' into feature/discounts",
            "Add tests for the login service",
            "Update the README with install steps",
            "fix(deps): update all non-major dependencies",
            "Update outdated upstream file links in license comments",
            "Fix cart total",
            "feat: discounts (#12)",
        ] {
            assert_eq!(clean_subject(subject), None, "{subject}");
        }
    }

    #[test]
    fn source_files_exclude_tests_docs_and_data() {
        for path in [
            "src/cart.py",
            "packages/vite/src/node/server/index.ts",
            "app/Http/Kernel.php",
            "web/format.js",
            "src/App.vue",
            "context.go",
            "crates/core/flags/parse.rs",
            "src/main/java/org/mockito/Mockito.java",
            "lib/sinatra/base.rb",
            "Src/Newtonsoft.Json/JsonConvert.cs",
            "src/server.c",
            "db/db_impl.h",
            "moshi/src/main/java/com/squareup/moshi/Moshi.kt",
            "Source/Core/Session.swift",
        ] {
            assert!(is_source(path), "{path}");
        }
        for path in [
            "tests/test_cart.py",
            "src/test_cart.py",
            "src/cart_test.py",
            "src/cart.test.ts",
            "src/__tests__/cart.ts",
            "docs/guide/api.js",
            "package.json",
            "pnpm-lock.yaml",
            "README.md",
            "src/types.d.ts",
            "vite.config.ts",
            "tests/Unit/CartTest.php",
            "src/CartTest.php",
            "playground/alias/index.js",
            "packages/vite/src/node/__tests_dts__/plugin.ts",
            "context_test.go",
            "testdata/protoexample/test.go",
            "crates/searcher/benches/search.rs",
            "src/test/java/org/mockito/MockitoTest.java",
            "spec/sinatra/base_spec.rb",
            "Src/Newtonsoft.Json.Tests/JsonConvertTest.cs",
            "Tests/SessionTests.swift",
            "Gemfile.lock",
            "moshi/build.gradle.kts",
            "Package.swift",
            "Package@swift-5.9.swift",
        ] {
            assert!(!is_source(path), "{path}");
        }
    }

    #[test]
    fn gold_files_are_the_changed_sources_that_existed() {
        assert_eq!(
            gold_of("M\tsrc/b.py\nM\ttests/test_b.py\nA\tsrc/new.py\nM\tsrc/a.py\n"),
            Ok(vec!["src/a.py".to_string(), "src/b.py".to_string()])
        );
        assert_eq!(gold_of("A\tsrc/new.py\n"), Err(Skip::NewFiles));
        assert_eq!(gold_of("M\tREADME.md\n"), Err(Skip::Files));
        assert_eq!(
            gold_of("M\ta.py\nM\tb.py\nM\tc.py\nM\td.py\nM\te.py\n"),
            Err(Skip::Files)
        );
        assert_eq!(gold_of("D\tsrc/old.py\n"), Ok(vec!["src/old.py".into()]));
    }

    #[test]
    fn hunk_headers_give_the_parent_side() {
        let diff = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -3 +3 @@ def f():\n-a\n+b\n@@ -10,2 +10,0 @@\n-c\n-d\n@@ -20,0 +19,3 @@ class C:\n+e\n";
        assert_eq!(parse_hunks(diff), [(3, 1), (10, 2), (20, 0)]);
    }

    #[test]
    fn innermost_chunks_enclose_changes_and_inner_insertions() {
        // A class (1-30) with methods 2-10 and 12-30; a function 40-50.
        let chunks = [(1, 30), (2, 10), (12, 30), (40, 50)];
        // A modified line in the second method: the method, not the class.
        assert_eq!(innermost_touched(&chunks, &[(15, 1)]), [(12, 30)]);
        // A deletion spanning both methods' boundary lines: both methods.
        assert_eq!(innermost_touched(&chunks, &[(10, 3)]), [(2, 10), (12, 30)]);
        // An insertion after line 45 is inside the function; after its last line it is not.
        assert_eq!(innermost_touched(&chunks, &[(45, 0)]), [(40, 50)]);
        assert!(innermost_touched(&chunks, &[(50, 0)]).is_empty());
        // Top-level code between chunks: nothing.
        assert!(innermost_touched(&chunks, &[(35, 2)]).is_empty());
    }
}
