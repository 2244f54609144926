//! `code-intel eval`: how well ranked search finds where a change must be made, on the user's own
//! repository. Queries come from a JSON lines file (`--queries`) or from the repository's git
//! history (`--from-git`, each query searched in the index of its commit's parent); the metrics
//! and the history extraction are [`code_intel_core::eval`]'s, this module runs the searches,
//! times them and prints the result.

use std::io::{BufRead as _, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context as _;
use clap::Args;
use code_intel_core::eval::bm25_file::Bm25FileBaseline;
use code_intel_core::eval::explore::{self, ExploreRanks, ExploreSummary, explore_ranks};
use code_intel_core::eval::grep::GrepBaseline;
use code_intel_core::eval::history::{self, ChangeRequest, Selection, Skip, Worktree};
use code_intel_core::eval::{self, CUTOFF, EvalQuery, GoldRange, QueryScore, ResultChunk, Summary};
use code_intel_core::index::CodeIndex;
use code_intel_core::index::rank::RankParams;
use code_intel_session::config::Config;
use code_intel_session::repo_path::RepoRoot;
use serde::{Deserialize, Serialize};

use super::semantic::{self, BatchQuery, ModeArg, SearchModeArgs, Searcher};

/// `code-intel eval` options (`--repo` and `--json` are the global ones).
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// JSON lines `{"query", "gold_files": [...], "gold_ranges"?: [{"file", "start", "end"}],
    /// "id"?}` or questions `{"question", "gold": [{"path", "start_line", "end_line"}], "id"?}`
    /// (lines 1-based, inclusive), searched in the repository's index (synced first). With
    /// integer ids, the summary is also given per fold (even and odd ids).
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "from_git",
        conflicts_with = "from_git"
    )]
    pub queries: Option<PathBuf>,
    /// Build the queries from the non-merge commits of this revision range (e.g. `HEAD~200..HEAD`):
    /// subject → query, changed source files → gold, each searched in its parent's snapshot
    /// (indexed in a temporary git worktree, removed afterwards; its segments merged after each
    /// snapshot, so ranks do not depend on the snapshots indexed before).
    #[arg(long, value_name = "REV_RANGE")]
    pub from_git: Option<String>,
    /// With --from-git: at most this many change requests (the newest that qualify, in `git log --topo-order`).
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
    /// With --from-git: the query is the commit's whole message (subject and body, as a pull
    /// request's squash commit carries its description) instead of the cleaned subject: long
    /// requests. Commits whose message is shorter than --min-chars are skipped.
    #[arg(long, requires = "from_git")]
    pub message: bool,
    /// With --message: fewest characters of a message, its trailer lines (`Co-authored-by:` ...)
    /// and blank lines left out.
    #[arg(long, default_value_t = 300, requires = "message")]
    pub min_chars: usize,
    /// Result files retrieved per query (the metrics look at the first 10).
    #[arg(long, default_value_t = 10)]
    pub top: usize,
    /// Ranking: lexical, vector or hybrid (default: hybrid once embeddings exist, else lexical;
    /// with --from-git, hybrid and vector embed every snapshot first, which takes minutes).
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// Ranking parameters to try instead of the defaults, as a JSON object of
    /// `RankParams` fields (e.g. `{"test_factor": 1, "coverage": 0}`), the `rank` field of
    /// `search --batch`; fields not given keep their defaults.
    #[arg(long, value_name = "JSON", value_parser = parse_rank)]
    pub rank: Option<serde_json::Value>,
    /// Also run the simple alternative on the same queries and files, scored the same way:
    /// `grep`, one case-insensitive literal grep per distinctive word of the request, files
    /// ranked by the words they contain, then by matching lines (the development kit's grep
    /// baseline); `bm25-file`, plain BM25 with one document per file (the kit's bm25-file).
    #[arg(long, value_enum)]
    pub baseline: Option<BaselineArg>,
    /// Also report what the agent sees on its mandatory path (with --queries): the rank of the
    /// first gold file in `start_session`'s leads, and in `search_text` run once per content word
    /// of the request in path order versus relevance order
    /// (`code_intel_core::eval::explore`), overall and in two folds (queries at even and odd
    /// positions).
    #[arg(long, requires = "queries")]
    pub explore: bool,
    /// With --from-git: do not merge each snapshot's segments after its sync. Much faster on
    /// large repositories (the merge rewrites the whole index per snapshot), but BM25's
    /// statistics then count the deleted documents tantivy has not merged away yet, so a
    /// query's ranks can depend slightly on the snapshots indexed before it.
    #[arg(long, requires = "from_git")]
    pub no_merge: bool,
    /// Also search every query with each of these ranking settings (JSON lines, each an object
    /// as --rank takes) and report each setting's summary and per-query ranks (`--json`:
    /// `variants`, and per query `variant_ranks`): one run of the snapshots for a grid of
    /// settings.
    #[arg(long, value_name = "FILE")]
    pub variants: Option<PathBuf>,
}

/// `--baseline`: the simple alternative to compare with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BaselineArg {
    /// A grep per word of the request over the indexed files
    /// (`code_intel_core::eval::grep`).
    Grep,
    /// BM25 over whole files (`code_intel_core::eval::bm25_file`).
    Bm25File,
}

impl BaselineArg {
    fn name(self) -> &'static str {
        match self {
            BaselineArg::Grep => "grep",
            BaselineArg::Bm25File => "bm25-file",
        }
    }
}

/// A `--baseline` over one snapshot's files.
enum Baseline {
    Grep(Box<GrepBaseline>),
    Bm25File(Box<Bm25FileBaseline>),
}

impl Baseline {
    fn search(&mut self, query: &str, top: usize) -> Vec<String> {
        match self {
            Baseline::Grep(g) => g.search(query, top),
            Baseline::Bm25File(b) => b.search(query, top),
        }
    }
}

/// `--rank`: a JSON object whose keys are all `RankParams` fields (a misspelt name would
/// otherwise leave its parameter at the default without a word), with values of their types.
fn parse_rank(s: &str) -> Result<serde_json::Value, String> {
    let value = match serde_json::from_str::<serde_json::Value>(s) {
        Ok(v) if v.is_object() => v,
        Ok(_) => return Err("expected a JSON object of ranking parameters".to_string()),
        Err(e) => return Err(format!("not JSON: {e}")),
    };
    let known = serde_json::to_value(RankParams::default()).map_err(|e| e.to_string())?;
    if let (Some(given), Some(known)) = (value.as_object(), known.as_object()) {
        let unknown: Vec<&str> = given
            .keys()
            .filter(|k| !known.contains_key(*k))
            .map(String::as_str)
            .collect();
        if !unknown.is_empty() {
            let mut names: Vec<&str> = known.keys().map(String::as_str).collect();
            names.sort_unstable();
            return Err(format!(
                "unknown ranking parameter {}; known: {}",
                unknown.join(", "),
                names.join(", ")
            ));
        }
    }
    serde_json::from_value::<RankParams>(value.clone()).map_err(|e| e.to_string())?;
    Ok(value)
}

/// One query's line of `--json`.
#[derive(Debug, Serialize)]
struct QueryRow {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<serde_json::Value>,
    query: String,
    /// 1-based rank of the first gold file among the first 10 files; null when missing.
    rank: Option<usize>,
    /// The first 10 distinct result files.
    files: Vec<String>,
    gold_files: Vec<String>,
    /// The function-level gold (for `--from-git`: the chunks enclosing the commit's hunks).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    gold_ranges: Vec<GoldRange>,
    all_found: bool,
    /// Function-level hit; absent without gold ranges.
    #[serde(skip_serializing_if = "Option::is_none")]
    function_hit: Option<bool>,
    /// File-level NDCG@10 (`code_intel_core::eval::ndcg`).
    ndcg: f64,
    /// Span-level NDCG@10; absent without gold ranges.
    #[serde(skip_serializing_if = "Option::is_none")]
    span_ndcg: Option<f64>,
    /// The first 10 result chunks (file and line range), which the function-level hit looks
    /// at: why a query with its gold file at rank 1 can still miss its gold function.
    shown: Vec<ResultChunk>,
    /// The mode that ranked the results (a hybrid request without vectors is lexical).
    mode: String,
    /// Search time, ms.
    latency_ms: f64,
    /// The `--baseline` on the same query: its rank of the first gold file and its files.
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<BaselineRow>,
    /// Whether the request is long (`code_intel_core::index::request::is_long`).
    long: bool,
    /// With `--variants`: the rank of the first gold file under each setting, in the file's
    /// order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    variant_ranks: Vec<Option<usize>>,
    /// With `--variants`: each setting's whole score (for its summary).
    #[serde(skip)]
    variant_scores: Vec<QueryScore>,
    /// `--explore`: where the first gold file stands in what the agent sees.
    #[serde(skip_serializing_if = "Option::is_none")]
    explore: Option<ExploreRanks>,
}

/// `--explore` over all queries and in two folds (even and odd positions).
#[derive(Debug, Serialize)]
struct ExplorationReport {
    all: ExploreSummary,
    folds: [ExploreSummary; 2],
}

/// One query's `--baseline` result.
#[derive(Debug, Serialize)]
struct BaselineRow {
    /// 1-based rank of the first gold file among the first 10 files; null when missing.
    rank: Option<usize>,
    /// The first 10 result files.
    files: Vec<String>,
    all_found: bool,
    /// File-level NDCG@10.
    ndcg: f64,
    /// Search time, ms.
    latency_ms: f64,
}

/// The `--baseline` over all queries.
#[derive(Debug, Serialize)]
struct BaselineReport {
    /// `grep` or `bm25-file`.
    name: &'static str,
    summary: Summary,
    /// The same over the short and the long requests apart, when there are both.
    #[serde(skip_serializing_if = "Option::is_none")]
    by_length: Option<ByLength>,
}

/// A summary over the short and the long requests apart
/// (`code_intel_core::index::request::is_long`).
#[derive(Debug, Serialize)]
struct ByLength {
    short: Summary,
    long: Summary,
}

/// One `--variants` setting's result.
#[derive(Debug, Serialize)]
struct VariantReport {
    rank: serde_json::Value,
    summary: Summary,
    #[serde(skip_serializing_if = "Option::is_none")]
    by_length: Option<ByLength>,
}

/// What `--from-git` did before searching.
#[derive(Debug, Serialize)]
struct HistoryReport {
    range: String,
    /// Non-merge commits looked at.
    considered: usize,
    /// Commits that did not make a change request, by reason.
    skipped: std::collections::BTreeMap<Skip, usize>,
    /// Distinct parent snapshots indexed.
    snapshots: usize,
}

/// The summaries of the two folds of a query set whose ids are all integers: even ids and odd
/// ids (the question set's split, `tests/eval/questions/README.md`).
#[derive(Debug, Serialize)]
struct Folds {
    even: Summary,
    odd: Summary,
    /// The `--baseline`'s, on the same folds.
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<[Summary; 2]>,
}

/// `eval --json`: one object.
#[derive(Debug, Serialize)]
struct EvalReport {
    summary: Summary,
    /// The summary per fold (even and odd integer ids); absent unless every query has an
    /// integer id.
    #[serde(skip_serializing_if = "Option::is_none")]
    folds: Option<Folds>,
    /// The summary over the short and the long requests apart, when there are both.
    #[serde(skip_serializing_if = "Option::is_none")]
    by_length: Option<ByLength>,
    /// The `--baseline`'s summary on the same queries (its function-level recall is 0: files
    /// have no line ranges).
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<BaselineReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    history: Option<HistoryReport>,
    /// `--explore`'s report.
    #[serde(skip_serializing_if = "Option::is_none")]
    exploration: Option<ExplorationReport>,
    /// `--variants`: each setting's summary.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    variants: Vec<VariantReport>,
    /// Distinct notes of the searches (fallbacks, partial embedding coverage).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notes: Vec<String>,
    queries: Vec<QueryRow>,
}

/// Runs `code-intel eval` on `root`; prints a table, or with `json` one JSON object.
///
/// # Errors
/// Unreadable or malformed queries, index, model or git failures, no change request in the
/// range.
pub fn run(
    root: &RepoRoot,
    config: &Config,
    json: bool,
    args: &EvalArgs,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    let variants = match &args.variants {
        Some(file) => read_variants(file)?,
        None => Vec::new(),
    };
    let history = match (&args.queries, &args.from_git) {
        (Some(file), _) => {
            let queries = read_queries(file)?;
            let index = CodeIndex::open(root, config).context("cannot open the code index")?;
            if index.needs_sync() {
                index.sync(&mut |_| {}).context("index sync failed")?;
            }
            let mut searcher = Searcher::new(root, config, &index, &mode_args(args))?;
            let mut base = baseline(args, root, config, &index, None);
            search_all(
                &mut searcher,
                base.as_mut(),
                &queries,
                args,
                &variants,
                &mut rows,
                &mut notes,
            )?;
            if args.explore {
                for (q, row) in queries.iter().zip(rows.iter_mut()) {
                    row.explore = Some(
                        explore_ranks(root, config, &index, q)
                            .with_context(|| format!("exploring for {:?}", q.query))?,
                    );
                }
            }
            None
        }
        (None, Some(range)) => Some(from_git(
            root, range, args, &variants, &mut rows, &mut notes,
        )?),
        (None, None) => anyhow::bail!("give --queries FILE or --from-git REV_RANGE"),
    };
    let own = |r: &QueryRow| {
        Some((
            QueryScore {
                rank: r.rank,
                all_found: r.all_found,
                function_hit: r.function_hit,
                files: r.files.clone(),
                ndcg: r.ndcg,
                span_ndcg: r.span_ndcg,
            },
            r.latency_ms,
        ))
    };
    let base = |r: &QueryRow| {
        r.baseline.as_ref().map(|b| {
            let score = QueryScore {
                rank: b.rank,
                all_found: b.all_found,
                function_hit: r.function_hit.map(|_| false),
                files: b.files.clone(),
                ndcg: b.ndcg,
                span_ndcg: r.span_ndcg.map(|_| 0.0),
            };
            (score, b.latency_ms)
        })
    };
    let (summary, by_length) = summaries(&rows, own);
    let folds = fold_summaries(&rows, own).map(|[even, odd]| Folds {
        even,
        odd,
        baseline: args.baseline.and_then(|_| fold_summaries(&rows, base)),
    });
    let baseline = args.baseline.map(|which| {
        let (summary, by_length) = summaries(&rows, base);
        BaselineReport {
            name: which.name(),
            summary,
            by_length,
        }
    });
    let exploration = args.explore.then(|| {
        let ranks: Vec<ExploreRanks> = rows.iter().filter_map(|r| r.explore.clone()).collect();
        let fold =
            |k: usize| -> Vec<ExploreRanks> { ranks.iter().skip(k).step_by(2).cloned().collect() };
        ExplorationReport {
            all: explore::summarize(&ranks),
            folds: [explore::summarize(&fold(0)), explore::summarize(&fold(1))],
        }
    });
    let variants = variants
        .into_iter()
        .enumerate()
        .map(|(i, rank)| {
            let (summary, by_length) =
                summaries(&rows, |r| r.variant_scores.get(i).map(|s| (s.clone(), 0.0)));
            VariantReport {
                rank,
                summary,
                by_length,
            }
        })
        .collect();
    let report = EvalReport {
        summary,
        folds,
        by_length,
        baseline,
        history,
        exploration,
        variants,
        notes,
        queries: rows,
    };
    if json {
        serde_json::to_writer(&mut *out, &report)?;
        writeln!(out)?;
        return Ok(());
    }
    render(out, &report)
}

/// The summary of the scores `of` gives for `rows` (rows it gives none for are left out), and
/// the same over short and long requests apart when there are both.
fn summaries(
    rows: &[QueryRow],
    of: impl Fn(&QueryRow) -> Option<(QueryScore, f64)>,
) -> (Summary, Option<ByLength>) {
    let summary_of = |keep: &dyn Fn(&QueryRow) -> bool| {
        let (scores, latencies): (Vec<QueryScore>, Vec<f64>) =
            rows.iter().filter(|r| keep(r)).filter_map(&of).unzip();
        eval::summarize(&scores, &latencies)
    };
    let both = rows.iter().any(|r| r.long) && rows.iter().any(|r| !r.long);
    let by_length = both.then(|| ByLength {
        short: summary_of(&|r| !r.long),
        long: summary_of(&|r| r.long),
    });
    (summary_of(&|_| true), by_length)
}

/// The summaries of the even-id and the odd-id queries (scores as `of` gives them), when every
/// query's id is a non-negative integer; `None` otherwise.
fn fold_summaries(
    rows: &[QueryRow],
    of: impl Fn(&QueryRow) -> Option<(QueryScore, f64)>,
) -> Option<[Summary; 2]> {
    let ids: Vec<u64> = rows
        .iter()
        .map(|r| r.id.as_ref().and_then(serde_json::Value::as_u64))
        .collect::<Option<_>>()?;
    let fold = |parity: u64| {
        let (scores, latencies): (Vec<QueryScore>, Vec<f64>) = rows
            .iter()
            .zip(&ids)
            .filter(|(_, id)| *id % 2 == parity)
            .filter_map(|(r, _)| of(r))
            .unzip();
        eval::summarize(&scores, &latencies)
    };
    Some([fold(0), fold(1)])
}

/// Reads the `--variants` file: one ranking setting (as `--rank` takes it) per line.
fn read_variants(file: &Path) -> anyhow::Result<Vec<serde_json::Value>> {
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("cannot read the variants file {}", file.display()))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        out.push(
            parse_rank(line)
                .map_err(|e| anyhow::anyhow!("{} line {}: {e}", file.display(), n + 1))?,
        );
    }
    anyhow::ensure!(
        !out.is_empty(),
        "{} holds no ranking setting",
        file.display()
    );
    Ok(out)
}

fn mode_args(args: &EvalArgs) -> SearchModeArgs {
    SearchModeArgs {
        mode: args.mode,
        ..SearchModeArgs::default()
    }
}

/// Reads the `--queries` file.
fn read_queries(file: &Path) -> anyhow::Result<Vec<EvalQuery>> {
    let f = std::fs::File::open(file)
        .with_context(|| format!("cannot read the queries file {}", file.display()))?;
    let mut queries = Vec::new();
    for (n, line) in std::io::BufReader::new(f).lines().enumerate() {
        let line = line.with_context(|| format!("cannot read {}", file.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        let q: EvalQuery = serde_json::from_str(&line).with_context(|| {
            format!(
                "{} line {}: expected {{\"query\": \"...\", \"gold_files\": [...]}} or {{\"question\": \"...\", \"gold\": [{{\"path\", \"start_line\", \"end_line\"}}]}}",
                file.display(),
                n + 1
            )
        })?;
        queries.push(q);
    }
    anyhow::ensure!(!queries.is_empty(), "{} holds no query", file.display());
    Ok(queries)
}

/// The `--baseline` over the files `index` holds, when asked for; a BM25 baseline of the
/// previous snapshot (`reuse`) keeps its token cache.
fn baseline(
    args: &EvalArgs,
    root: &RepoRoot,
    config: &Config,
    index: &CodeIndex,
    reuse: Option<Baseline>,
) -> Option<Baseline> {
    args.baseline.map(|which| match (which, reuse) {
        (BaselineArg::Grep, _) => Baseline::Grep(Box::new(GrepBaseline::new(
            root,
            index.indexed_files(),
            config.max_file_bytes,
        ))),
        (BaselineArg::Bm25File, reuse) => {
            let mut b = match reuse {
                Some(Baseline::Bm25File(b)) => b,
                _ => Box::default(),
            };
            b.load(root, index.indexed_files(), config.max_file_bytes);
            Baseline::Bm25File(b)
        }
    })
}

/// The fields of a hit that the metrics need.
#[derive(Debug, Deserialize)]
struct HitLines {
    file: String,
    start_line: u32,
    end_line: u32,
}

/// Searches every query (after one untimed warm-up query, so the first timing does not include
/// loading the model or warming the index caches) and scores it; with a baseline, runs and
/// scores that too.
fn search_all(
    searcher: &mut Searcher<'_>,
    mut grep: Option<&mut Baseline>,
    queries: &[EvalQuery],
    args: &EvalArgs,
    variants: &[serde_json::Value],
    rows: &mut Vec<QueryRow>,
    notes: &mut Vec<String>,
) -> anyhow::Result<()> {
    let top = args.top;
    let with_rank = |query: &str, rank: Option<&serde_json::Value>| -> anyhow::Result<BatchQuery> {
        let mut q = serde_json::json!({ "query": query });
        if let Some(rank) = rank {
            q["rank"] = rank.clone();
        }
        serde_json::from_value(q).context("--rank: not a set of ranking parameters")
    };
    let batch = |query: &str| with_rank(query, args.rank.as_ref());
    searcher.run(&batch("warm up the search index")?, top)?;
    for q in queries {
        let started = Instant::now();
        let answer = searcher.run(&batch(&q.query)?, top)?;
        let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
        let hits: Vec<HitLines> =
            serde_json::from_value(answer["hits"].clone()).context("unexpected search answer")?;
        let chunks: Vec<ResultChunk> = hits
            .into_iter()
            .map(|h| ResultChunk {
                file: h.file,
                start_line: h.start_line,
                end_line: h.end_line,
            })
            .collect();
        for n in answer["notes"].as_array().into_iter().flatten() {
            if let Some(n) = n.as_str()
                && !notes.iter().any(|m| m == n)
            {
                notes.push(n.to_string());
            }
        }
        let s = eval::score(q, &chunks);
        let shown: Vec<ResultChunk> = chunks.into_iter().take(CUTOFF).collect();
        let baseline = grep.as_deref_mut().map(|g| {
            let started = Instant::now();
            let files = g.search(&q.query, top.max(CUTOFF));
            let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
            let b = eval::score_files(q, &files);
            BaselineRow {
                rank: b.rank,
                files: b.files,
                all_found: b.all_found,
                ndcg: b.ndcg,
                latency_ms,
            }
        });
        let mut variant_ranks = Vec::with_capacity(variants.len());
        let mut variant_scores = Vec::with_capacity(variants.len());
        for v in variants {
            let answer = searcher.run(&with_rank(&q.query, Some(v))?, top)?;
            let hits: Vec<HitLines> = serde_json::from_value(answer["hits"].clone())
                .context("unexpected search answer")?;
            let chunks: Vec<ResultChunk> = hits
                .into_iter()
                .map(|h| ResultChunk {
                    file: h.file,
                    start_line: h.start_line,
                    end_line: h.end_line,
                })
                .collect();
            let score = eval::score(q, &chunks);
            variant_ranks.push(score.rank);
            variant_scores.push(score);
        }
        rows.push(QueryRow {
            long: code_intel_core::index::request::is_long(&q.query),
            variant_ranks,
            variant_scores,
            id: q.id.clone(),
            query: q.query.clone(),
            rank: s.rank,
            files: s.files,
            gold_files: q.gold_files.clone(),
            gold_ranges: q.gold_ranges.clone(),
            all_found: s.all_found,
            function_hit: s.function_hit,
            ndcg: s.ndcg,
            span_ndcg: s.span_ndcg,
            shown,
            mode: answer["mode"].as_str().unwrap_or("lexical").to_string(),
            latency_ms,
            baseline,
            explore: None,
        });
    }
    Ok(())
}

/// `--from-git`: extracts the change requests, then, in one temporary worktree, checks out each
/// distinct parent (oldest first, so each sync of the worktree's index is incremental), indexes
/// it and searches its requests. The worktree is removed on every path out.
fn from_git(
    root: &RepoRoot,
    range: &str,
    args: &EvalArgs,
    variants: &[serde_json::Value],
    rows: &mut Vec<QueryRow>,
    notes: &mut Vec<String>,
) -> anyhow::Result<HistoryReport> {
    let selection = Selection {
        message: args.message,
        min_chars: if args.message { args.min_chars } else { 0 },
    };
    let extraction = history::change_requests_with(root.path(), range, args.limit, selection)
        .context("cannot read the git history")?;
    if extraction.requests.is_empty() {
        anyhow::bail!(
            "no change request in {range}: {} non-merge commits looked at, skipped {}",
            extraction.considered,
            serde_json::to_string(&extraction.skipped)?
        );
    }
    // Group by parent, keeping the oldest-first order of each group's first request.
    let mut groups: Vec<(&str, Vec<&ChangeRequest>)> = Vec::new();
    for r in &extraction.requests {
        match groups.iter_mut().find(|(p, _)| *p == r.parent) {
            Some((_, g)) => g.push(r),
            None => groups.push((&r.parent, vec![r])),
        }
    }
    // Index the snapshots in the order that keeps each re-index small (a repository that
    // merges maintenance branches upward alternates between versions in any log order), then
    // report the queries in the history's order.
    let parents: Vec<&str> = groups.iter().map(|(p, _)| *p).collect();
    let order = history::snapshot_order(root.path(), &parents)
        .context("cannot list the snapshots' trees")?;
    let groups: Vec<(&str, Vec<&ChangeRequest>)> =
        order.iter().map(|&i| groups[i].clone()).collect();
    let first_row = rows.len();
    let tmp = tempfile::Builder::new()
        .prefix("code-intel-eval-")
        .tempdir()
        .context("cannot create a temporary directory")?;
    let worktree = Worktree::add(root.path(), &tmp.path().join("worktree"), groups[0].0)
        .context("cannot create a temporary git worktree")?;
    let searched = search_snapshots(root, &worktree, &groups, args, variants, rows, notes);
    let removed = worktree.remove();
    searched?;
    removed.context("cannot remove the temporary git worktree")?;
    let position = |row: &QueryRow| {
        extraction
            .requests
            .iter()
            .position(|r| {
                row.id.as_ref().and_then(|id| id.as_str()) == r.commit.get(..12).or(Some(&r.commit))
            })
            .unwrap_or(usize::MAX)
    };
    rows[first_row..].sort_by_key(position);
    Ok(HistoryReport {
        range: range.to_string(),
        considered: extraction.considered,
        skipped: extraction.skipped,
        snapshots: groups.len(),
    })
}

fn search_snapshots(
    root: &RepoRoot,
    worktree: &Worktree,
    groups: &[(&str, Vec<&ChangeRequest>)],
    args: &EvalArgs,
    variants: &[serde_json::Value],
    rows: &mut Vec<QueryRow>,
    notes: &mut Vec<String>,
) -> anyhow::Result<()> {
    let mut base: Option<Baseline> = None;
    let config_file = Config::path(root.path());
    if config_file.is_file() {
        let to = Config::path(worktree.path());
        std::fs::create_dir_all(to.parent().unwrap_or(worktree.path()))
            .and_then(|()| std::fs::copy(&config_file, &to))
            .with_context(|| format!("cannot copy {} to the worktree", config_file.display()))?;
    }
    let wt_root = RepoRoot::new(worktree.path())?;
    let wt_config = Config::load(wt_root.path())?;
    let index = CodeIndex::open(&wt_root, &wt_config).context("cannot open the snapshot index")?;
    let embed = matches!(args.mode, Some(ModeArg::Hybrid | ModeArg::Vector));
    for (n, (parent, requests)) in groups.iter().enumerate() {
        if n > 0 {
            worktree.checkout(parent)?;
        }
        let report = index
            .sync(&mut |_| {})
            .with_context(|| format!("cannot index the snapshot {parent}"))?;
        // Without deleted documents in the statistics, a query's ranks depend on its snapshot
        // alone, not on the snapshots indexed before it.
        if !args.no_merge {
            index
                .merge_deleted()
                .with_context(|| format!("cannot merge the index of the snapshot {parent}"))?;
        }
        say(&format!(
            "code-intel eval: snapshot {}/{} {}: {} files indexed or updated, {} queries",
            n + 1,
            groups.len(),
            &parent[..parent.len().min(12)],
            report.files_added + report.files_modified,
            requests.len()
        ));
        if embed {
            let indexed = semantic::index_vectors(
                &wt_root,
                &wt_config,
                &semantic::IndexArgs {
                    embed: true,
                    threads: 1,
                    batch_size: 8,
                    batch_tokens: code_intel_core::embed::DEFAULT_BATCH_TOKENS,
                },
                None,
            )?;
            if let Err(why) = indexed {
                anyhow::bail!("--mode needs embeddings, and there are none: {why}");
            }
        }
        let mut queries = Vec::with_capacity(requests.len());
        for r in requests {
            let ranges = history::enclosing_ranges(&index, &r.hunks)?;
            queries.push(r.eval_query(ranges));
        }
        let mut searcher = Searcher::new(&wt_root, &wt_config, &index, &mode_args(args))?;
        base = baseline(args, &wt_root, &wt_config, &index, base.take());
        search_all(
            &mut searcher,
            base.as_mut(),
            &queries,
            args,
            variants,
            rows,
            notes,
        )?;
    }
    Ok(())
}

/// Progress for the person at the terminal (stdout is the report).
#[allow(clippy::print_stderr)]
fn say(msg: &str) {
    eprintln!("{msg}");
}

/// The text report: the summary table, then one line per query.
fn render(out: &mut dyn Write, r: &EvalReport) -> anyhow::Result<()> {
    let s = &r.summary;
    let mode = r.queries.first().map_or("-", |q| q.mode.as_str());
    write!(out, "{} queries, {mode} search", s.queries)?;
    if let Some(h) = &r.history {
        write!(
            out,
            ", from git {} ({} commits looked at, {} snapshots indexed)",
            h.range, h.considered, h.snapshots
        )?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "{:>6} {:>6} {:>6} {:>7} {:>7} {:>12} {:>8} {:>9} {:>8} {:>8}  system",
        "R@1",
        "R@5",
        "R@10",
        "MRR@10",
        "All@10",
        "F-R@10 (n)",
        "NDCG@10",
        "sNDCG@10",
        "p50 ms",
        "p95 ms"
    )?;
    let row = |out: &mut dyn Write, s: &Summary, name: &str| -> std::io::Result<()> {
        let function = s.function_recall_at_10.map_or("-".to_string(), |f| {
            format!("{f:.3} ({})", s.function_queries)
        });
        let span = s
            .span_ndcg_at_10
            .map_or("-".to_string(), |v| format!("{v:.3}"));
        writeln!(
            out,
            "{:>6.3} {:>6.3} {:>6.3} {:>7.3} {:>7.3} {:>12} {:>8.3} {:>9} {:>8.1} {:>8.1}  {name}",
            s.recall_at_1,
            s.recall_at_5,
            s.recall_at_10,
            s.mrr_at_10,
            s.all_at_10,
            function,
            s.ndcg_at_10,
            span,
            s.latency_p50_ms,
            s.latency_p95_ms
        )
    };
    row(out, s, &format!("code-intel {mode}"))?;
    if let Some(b) = &r.baseline {
        row(out, &b.summary, b.name)?;
    }
    if let Some(f) = &r.folds {
        row(
            out,
            &f.even,
            &format!("code-intel {mode}, fold even ids ({})", f.even.queries),
        )?;
        row(
            out,
            &f.odd,
            &format!("code-intel {mode}, fold odd ids ({})", f.odd.queries),
        )?;
        if let (Some([even, odd]), Some(b)) = (&f.baseline, &r.baseline) {
            row(out, even, &format!("{}, fold even ids", b.name))?;
            row(out, odd, &format!("{}, fold odd ids", b.name))?;
        }
    }
    if let Some(l) = &r.by_length {
        row(
            out,
            &l.short,
            &format!("code-intel {mode}, short requests ({})", l.short.queries),
        )?;
        row(
            out,
            &l.long,
            &format!("code-intel {mode}, long requests ({})", l.long.queries),
        )?;
    }
    if let Some((b, l)) = r
        .baseline
        .as_ref()
        .and_then(|b| b.by_length.as_ref().map(|l| (b, l)))
    {
        row(
            out,
            &l.short,
            &format!("{}, short requests ({})", b.name, l.short.queries),
        )?;
        row(
            out,
            &l.long,
            &format!("{}, long requests ({})", b.name, l.long.queries),
        )?;
    }
    writeln!(out)?;
    if let Some(x) = &r.exploration {
        writeln!(
            out,
            "what the agent sees (first gold file; search_text: one call per content word, {} matches each)",
            explore::MATCHES_PER_CALL
        )?;
        writeln!(
            out,
            "{:>6} {:>6} {:>6} {:>7} {:>9}  list (fold)",
            "R@1", "R@5", "R@10", "MRR@10", "within10"
        )?;
        let folds = [("all", &x.all), ("A", &x.folds[0]), ("B", &x.folds[1])];
        for (fold, s) in folds {
            for (name, l) in [
                ("leads", &s.leads),
                ("search_text, path order", &s.text_path),
                ("search_text, relevance order", &s.text_relevance),
            ] {
                writeln!(
                    out,
                    "{:>6.3} {:>6.3} {:>6.3} {:>7.3} {:>9}  {name} ({fold}, {} queries)",
                    l.r_at_1, l.r_at_5, l.r_at_10, l.mrr_at_10, l.within_10, s.queries
                )?;
            }
            writeln!(
                out,
                "       leads p50 / p95: {:.1} / {:.1} ms ({fold})",
                s.leads_p50_ms, s.leads_p95_ms
            )?;
            if let Some(ratio) = s.relevance_over_path_at_10 {
                writeln!(
                    out,
                    "       relevance / path, within the first ten files: {ratio:.2}x ({fold})"
                )?;
            }
        }
        writeln!(out)?;
    }
    let rank_text = |rank: Option<usize>| rank.map_or_else(|| "-".to_string(), |k| k.to_string());
    let grep_column = match &r.baseline {
        Some(b) if b.name == "grep" => "grep  ",
        Some(_) => "bm25  ",
        None => "",
    };
    writeln!(
        out,
        "rank  {grep_column}id            query (rank of the first gold file; - beyond {CUTOFF})"
    )?;
    for q in &r.queries {
        let rank = rank_text(q.rank);
        let grep = q
            .baseline
            .as_ref()
            .map_or(String::new(), |b| format!("{:>4}  ", rank_text(b.rank)));
        let id = match &q.id {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
            None => "-".to_string(),
        };
        let first_line = q.query.lines().next().unwrap_or("");
        let more = if q.long { " …" } else { "" };
        writeln!(out, "{rank:>4}  {grep}{id:<12}  {first_line}{more}")?;
    }
    for n in &r.notes {
        writeln!(out, "note: {n}")?;
    }
    Ok(())
}
