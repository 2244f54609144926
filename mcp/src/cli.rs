//! Command-line parsing and the human/script subcommands (`index`, `search`, `status`, the
//! exploration commands); `serve` hands over to [`crate::server`].

mod doctor;
mod eval;
mod init;
mod insights;
mod render;
mod semantic;

use std::io::{BufRead as _, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};
use code_intel_core::explore::{
    self, AnalyzeStructureParams, ExploreContext, FindDefinitionsParams, FindReferencesParams,
    FunctionAtLineParams, SearchTextParams,
};
use code_intel_core::index::sync::{ChunkObserver, SyncState};
use code_intel_core::index::{
    CodeIndex, IndexError, IndexStats, SearchHit, SyncProgress, SyncReport, chunk::Chunk,
};
use code_intel_session::config::Config;
use code_intel_session::repo_path::RepoRoot;
use code_intel_session::session::store::{SessionStore, SessionSummary};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use crate::root;

/// code-intel: make Claude Code explore a codebase before editing it.
#[derive(Debug, Parser)]
#[command(name = "code-intel", version, about, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

/// Options every subcommand accepts.
#[derive(Debug, Args)]
pub struct Global {
    /// Repository root (default: $CODE_INTEL_PROJECT, $CLAUDE_PROJECT_DIR, else the nearest
    /// directory above the current one holding .code-intel/ or .git/).
    #[arg(long, global = true, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// Print machine-readable JSON on stdout instead of text.
    #[arg(long, global = true)]
    pub json: bool,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the MCP server on stdin/stdout (what .mcp.json starts).
    Serve,
    /// Bring the code index up to date with the working tree (and, with --embed, embed it).
    Index(semantic::IndexArgs),
    /// Ranked search over the code index.
    Search(SearchArgs),
    /// Index statistics and active sessions (checks the index files; rebuilds a damaged index).
    Status,
    /// Rebuild the code index from the sources, whatever its state (for a damaged index).
    Repair,
    /// Where a symbol is defined.
    FindDefinitions(FindDefinitionsArgs),
    /// Where a symbol is used (definitions excluded).
    FindReferences(FindReferencesArgs),
    /// Regex or literal search over the repository's files.
    SearchText(SearchTextArgs),
    /// The nested symbol tree of a file or directory.
    AnalyzeStructure(AnalyzeStructureArgs),
    /// The function or method enclosing a line.
    FunctionAtLine(FunctionAtLineArgs),
    /// The embedding model: `fetch` it into the model cache, show its `status`.
    Model(crate::model::ModelArgs),
    /// Install code-intel into the project: .code-intel/config.json, the .mcp.json server, the
    /// hooks and permission rule in .claude/settings.json, the /code and /outcome skills.
    Init(init::InitArgs),
    /// Check the installation: binaries, hook configuration, a synthetic gated Write, the model,
    /// the index. Exit code 0 iff no check fails.
    Doctor(doctor::DoctorArgs),
    /// Outcome insights: failure patterns over the sessions with a recorded outcome, or one
    /// session's analysis (--session ID).
    Insights(insights::InsightsArgs),
    /// Search quality on this repository: R@1/5/10, MRR@10, function-level recall and latency
    /// over queries with known answers (--queries FILE) or the repository's own commits
    /// (--from-git REV_RANGE).
    Eval(eval::EvalArgs),
}

impl Command {
    /// Whether the command keeps the embedding model for long (the server; `index --embed`): those
    /// run with the malloc settings of [`crate::malloc`].
    pub fn holds_model(&self) -> bool {
        match self {
            Command::Serve => true,
            Command::Index(args) => args.embed,
            _ => false,
        }
    }
}

/// `code-intel search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// What to look for: identifiers or a description of the behaviour.
    #[arg(required_unless_present = "batch", conflicts_with = "batch")]
    pub query: Option<String>,
    /// Number of hits.
    #[arg(long, default_value_t = 10)]
    pub top: usize,
    /// Read JSON lines `{"query": "..."}` (optionally `"top"`, `"id"`, `"mode"`, `"fusion"`,
    /// `"collection"`, `"weights"`, `"keywords"`, `"rank"`) from stdin; write one JSON result per
    /// line.
    #[arg(long)]
    pub batch: bool,
    /// English identifiers and terms added to the keyword side of the query (not its embedding):
    /// for a request in another language, name the code words it implies.
    #[arg(long)]
    pub keywords: Option<String>,
    #[command(flatten)]
    pub semantic: semantic::SearchModeArgs,
}

// The exploration commands' arguments below are the command line's spelling of core's
// `explore::*Params` (positionals, `--exact`, `-C`, `-F`, help for a person): clap needs its own
// types and core has no clap. `run` builds the core parameters from them directly, with no wire
// type in between; the MCP tools take the core parameters themselves (server/wire.rs).

/// `code-intel find-definitions`.
#[derive(Debug, Args)]
pub struct FindDefinitionsArgs {
    /// Symbol name (`name`, `Class.method` or a PHP FQCN).
    pub symbol: String,
    /// Only under this file or directory (repository-relative).
    #[arg(long)]
    pub path: Option<String>,
    /// Only this language (python, php, javascript, typescript, ...).
    #[arg(long)]
    pub language: Option<String>,
    /// Require the exact name (default: also partial matches).
    #[arg(long)]
    pub exact: bool,
}

/// `code-intel find-references`.
#[derive(Debug, Args)]
pub struct FindReferencesArgs {
    /// Symbol name.
    pub symbol: String,
    /// Only under this file or directory (repository-relative).
    #[arg(long)]
    pub path: Option<String>,
    /// Order files by their relevance to this request (the ranked search's files first, then
    /// the rest in path order), as a session's calls are; default path order.
    #[arg(long, value_name = "REQUEST")]
    pub relevant_to: Option<String>,
}

/// `code-intel search-text`.
#[derive(Debug, Args)]
pub struct SearchTextArgs {
    /// Regular expression (or literal text with --literal).
    pub pattern: String,
    /// Only under this file or directory (repository-relative).
    #[arg(long)]
    pub path: Option<String>,
    /// Only files of this type (e.g. py, php, js).
    #[arg(long)]
    pub file_type: Option<String>,
    /// Lines of context before and after each match.
    #[arg(long, short = 'C')]
    pub context: Option<usize>,
    /// Maximum matches returned.
    #[arg(long)]
    pub max_results: Option<usize>,
    /// Treat the pattern as literal text.
    #[arg(long, short = 'F')]
    pub literal: bool,
    /// Order files by their relevance to this request (the ranked search's files first, then
    /// the rest in path order), as a session's calls are; default path order.
    #[arg(long, value_name = "REQUEST")]
    pub relevant_to: Option<String>,
}

/// `code-intel analyze-structure`.
#[derive(Debug, Args)]
pub struct AnalyzeStructureArgs {
    /// File or directory (repository-relative).
    pub path: String,
}

/// `code-intel function-at-line`.
#[derive(Debug, Args)]
pub struct FunctionAtLineArgs {
    /// File (repository-relative).
    pub file: String,
    /// 1-based line number.
    pub line: u32,
}

/// Runs a parsed command line.
///
/// # Errors
/// Any failure of the command, with context saying what to do about it.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    // `model` works on the model cache, not on a repository.
    let cli = match cli {
        Cli {
            command: Command::Model(args),
            global,
        } => return crate::model::run(args, global.json),
        cli => cli,
    };
    let root = root::project_root(cli.global.repo.as_deref())?;
    let json = cli.global.json;
    // `init` and `doctor` report a broken config.json themselves.
    match &cli.command {
        Command::Init(args) => {
            let mut out = std::io::stdout().lock();
            init::run(&root, args, json, &mut out)?;
            return Ok(ExitCode::SUCCESS);
        }
        Command::Doctor(args) => {
            return doctor::run(&root, args, json, &mut std::io::stdout().lock());
        }
        _ => {}
    }
    if let Command::Serve = cli.command {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .context("cannot start the async runtime")?;
        let served = runtime.block_on(crate::server::serve(root));
        // The client is gone. A background index sync may still run on a blocking thread: give it
        // a moment to commit, then exit anyway (a sync cut short is repaired by the next one).
        runtime.shutdown_timeout(std::time::Duration::from_secs(5));
        served?;
        return Ok(ExitCode::SUCCESS);
    }
    let config = Config::load(root.path())?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = match cli.command {
        Command::Serve | Command::Model(_) | Command::Init(_) | Command::Doctor(_) => Ok(()),
        Command::Index(a) => index(&root, &config, json, &a, &mut out),
        Command::Search(args) => search(&root, &config, json, &args, &mut out),
        Command::Status => status(&root, &config, json, &mut out),
        Command::Repair => repair(&root, &config, json, &mut out),
        Command::Insights(a) => insights::run(&root, json, &a, &mut out),
        Command::Eval(a) => eval::run(&root, &config, json, &a, &mut out),
        Command::FindDefinitions(a) => {
            let params = FindDefinitionsParams {
                symbol: a.symbol,
                path: a.path,
                language: a.language,
                exact_match: a.exact,
                max_results: None,
            };
            explore_cmd(
                &root,
                &config,
                json,
                &mut out,
                None,
                |cx| explore::find_definitions(cx, &params),
                render::definitions,
            )
        }
        Command::FindReferences(a) => {
            let params = FindReferencesParams {
                symbol: a.symbol,
                path: a.path,
                max_results: None,
                order: None,
            };
            explore_cmd(
                &root,
                &config,
                json,
                &mut out,
                a.relevant_to.as_deref(),
                |cx| explore::find_references(cx, &params),
                render::references,
            )
        }
        Command::SearchText(a) => {
            let params = SearchTextParams {
                pattern: a.pattern,
                path: a.path,
                file_type: a.file_type,
                context_lines: a.context,
                max_results: a.max_results,
                literal: a.literal,
                order: None,
            };
            explore_cmd(
                &root,
                &config,
                json,
                &mut out,
                a.relevant_to.as_deref(),
                |cx| explore::search_text(cx, &params),
                render::text_matches,
            )
        }
        Command::AnalyzeStructure(a) => {
            let params = AnalyzeStructureParams { path: a.path };
            explore_cmd(
                &root,
                &config,
                json,
                &mut out,
                None,
                |cx| explore::analyze_structure(cx, &params),
                render::structure,
            )
        }
        Command::FunctionAtLine(a) => {
            let params = FunctionAtLineParams {
                file: a.file,
                line: a.line,
            };
            explore_cmd(
                &root,
                &config,
                json,
                &mut out,
                None,
                |cx| explore::get_function_at_line(cx, &params),
                render::function_at,
            )
        }
    };
    match written.and_then(|()| out.flush().map_err(Into::into)) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        // `code-intel search x | head`: the reader left; that is not an error.
        Err(e) if is_broken_pipe(&e) => Ok(ExitCode::SUCCESS),
        Err(e) => Err(e),
    }
}

/// The error and its causes joined by `: `, as `{e:#}` prints them, without a cause whose text
/// the message already holds: most errors print their source in their own message (`cannot
/// write X: Is a directory (os error 21)`), and the chain would say it twice.
pub fn error_chain(e: &anyhow::Error) -> String {
    let mut msg = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if msg.contains(&text) {
            continue;
        }
        if !msg.is_empty() {
            msg.push_str(": ");
        }
        msg.push_str(&text);
    }
    msg
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Writes `value` as one line of JSON.
fn json_line<T: Serialize>(out: &mut dyn Write, value: &T) -> anyhow::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    writeln!(out)?;
    Ok(())
}

/// Prints a message for the person at the terminal on stderr, whatever `CODE_INTEL_LOG` says: a
/// repair or a wait must not look like nothing happened (or like a hang).
#[allow(clippy::print_stderr)]
fn say(msg: &str) {
    eprintln!("{msg}");
}

/// [`say`] with the `code-intel: warning: ` prefix.
fn warn(msg: &str) {
    say(&format!("code-intel: warning: {msg}"));
}

/// Opens the index, creating it when missing; a damaged index is rebuilt empty (said on stderr).
fn open_index(root: &RepoRoot, config: &Config) -> anyhow::Result<CodeIndex> {
    // One command, one process: the index reloads after this process's own sync only.
    let index = CodeIndex::open_unwatched(root, config).context("cannot open the code index")?;
    if let Some(why) = index.repaired() {
        warn(why);
    }
    Ok(index)
}

/// Whether a sync error means the index files are damaged (rather than busy, misconfigured or
/// out of disk space): worth one rebuild from the sources.
fn is_damage(e: &IndexError) -> bool {
    matches!(e, IndexError::Corrupt { .. } | IndexError::Tantivy { .. })
}

/// Syncs `index`; when the sync finds the index files damaged, rebuilds the index from the
/// sources (said on stderr) and syncs once more. Returns the index the report describes.
///
/// A failed write (a full disk, a quota, a read-only `.code-intel/`) looks like damage from
/// here (tantivy reports it as a writer error), but leaves the last commit intact: the index is
/// reopened and checked first, and when it is whole the sync is tried once more on it instead
/// of wiping it, so a second failure keeps the index searchable and says what to free.
fn sync_or_repair(
    root: &RepoRoot,
    config: &Config,
    index: CodeIndex,
    on_chunks: Option<ChunkObserver<'_>>,
) -> anyhow::Result<(CodeIndex, SyncReport)> {
    match sync_with_progress(&index, on_chunks) {
        Ok(report) => Ok((index, report)),
        Err(e) if e.downcast_ref::<IndexError>().is_some_and(is_damage) => {
            drop(index);
            let reopened = open_index(root, config)?;
            if reopened.repaired().is_none() && reopened.verify().is_ok() {
                let report = sync_with_progress(&reopened, on_chunks).context(
                    "the index files are intact and keep the last sync; free disk space or make \
                     .code-intel/ writable, then run `code-intel index` again (`code-intel \
                     repair` rebuilds the index from the sources)",
                )?;
                return Ok((reopened, report));
            }
            drop(reopened);
            let why = format!(
                "the index was damaged ({}); rebuilt it from the sources",
                error_chain(&e)
            );
            warn(&why);
            let index =
                CodeIndex::rebuild(root, config, &why).context("cannot rebuild the index")?;
            let report = sync_with_progress(&index, on_chunks)?;
            Ok((index, report))
        }
        Err(e) => Err(e),
    }
}

/// The index if one was built and synced, without creating anything (read-only commands).
fn existing_synced_index(root: &RepoRoot, config: &Config) -> anyhow::Result<Option<CodeIndex>> {
    if !CodeIndex::lexical_dir(root).exists() {
        return Ok(None);
    }
    let index = open_index(root, config)?;
    if index.stats().last_sync.is_none() {
        return Ok(None);
    }
    // Answer about the working tree as it is now: an incremental sync first (a `stat` walk
    // when nothing changed). A sync that cannot run leaves the last index, with a warning.
    if let Err(e) = index.sync(&mut |_| {}) {
        warn(&format!(
            "{}; answering from the index of the last sync",
            error_chain(&anyhow::Error::from(e))
        ));
    }
    Ok(Some(index))
}

/// Syncs with a progress bar on stderr (drawn only when stderr is a terminal).
fn sync_with_progress(
    index: &CodeIndex,
    on_chunks: Option<ChunkObserver<'_>>,
) -> anyhow::Result<SyncReport> {
    let bar = ProgressBar::new_spinner();
    if let Ok(style) =
        ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {pos}/{len} files ({elapsed})")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message("scanning");
    let report = index.sync_observed(
        &mut |p| match p {
            SyncProgress::Walked { to_read, .. } => {
                // The stages are logged too: the crash test reads them to tell where a kill landed.
                tracing::debug!(to_read, "sync stage: walked");
                bar.set_length(to_read as u64);
                bar.set_message("indexing");
            }
            SyncProgress::Read { done, .. } => bar.set_position(done as u64),
            SyncProgress::Committing => {
                tracing::debug!("sync stage: committing");
                bar.set_message("committing");
            }
            SyncProgress::WaitingForLock { timeout_secs } => {
                // Said on stderr even without a terminal: a silent wait looks like a hang.
                bar.suspend(|| {
                    say(&format!(
                        "code-intel: another code-intel process is indexing this repository; \
                     waiting for it (at most {timeout_secs} s)"
                    ));
                });
                bar.set_message("waiting for another indexer");
            }
        },
        on_chunks,
    );
    bar.finish_and_clear();
    let report = report.context("index sync failed")?;
    if let Some(why) = &report.rebuild_reason {
        warn(why);
    }
    Ok(report)
}

/// `index --json`: the sync report and the vector step.
#[derive(Debug, Serialize)]
struct IndexAnswer {
    /// Why the index was rebuilt empty before this sync (damaged, or `repair`), if it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    repaired: Option<String>,
    #[serde(flatten)]
    sync: SyncReport,
    /// The vector refresh / embedding, or why there is none.
    vectors: serde_json::Value,
}

fn index(
    root: &RepoRoot,
    config: &Config,
    json: bool,
    args: &semantic::IndexArgs,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let index = open_index(root, config)?;
    let repaired = index.repaired().map(str::to_string);
    // The vector refresh after the sync takes its rows from the chunks the sync made.
    let handoff = semantic::row_handoff(config);
    let observe = |path: &str, sha256: &str, chunks: &[Chunk]| {
        if let Some(h) = &handoff {
            h.offer(path, sha256, chunks);
        }
    };
    let on_chunks: Option<ChunkObserver<'_>> = handoff.as_ref().map(|_| &observe as _);
    let (index, report) = sync_or_repair(root, config, index, on_chunks)?;
    let repaired = index.repaired().map(str::to_string).or(repaired);
    drop(index);
    let vectors = semantic::index_vectors(root, config, args, handoff.as_ref())?;
    if json {
        let vectors = match &vectors {
            Ok(r) => serde_json::to_value(r)?,
            Err(why) => serde_json::json!({ "none": why }),
        };
        return json_line(
            out,
            &IndexAnswer {
                repaired,
                sync: report,
                vectors,
            },
        );
    }
    render::sync_report(out, &report)?;
    semantic::render_vectors(out, &vectors)
}

fn search(
    root: &RepoRoot,
    config: &Config,
    json: bool,
    args: &SearchArgs,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let mut index = open_index(root, config)?;
    let mut repaired = index.repaired().map(str::to_string);
    // Every answer describes the working tree: an incremental sync first (a `stat` walk when
    // nothing changed; docs/DESIGN.md#freshness).
    {
        match sync_or_repair(root, config, index, None) {
            Ok((synced, report)) => {
                index = synced;
                repaired = index
                    .repaired()
                    .map(str::to_string)
                    .or(repaired)
                    .or(report.rebuild_reason);
            }
            Err(e) => {
                // A sync that cannot run (a full disk, another indexer holding the lock) leaves
                // the last sync's index: answer from it, saying so, rather than not at all.
                index = open_index(root, config)?;
                if index.stats().last_sync.is_none() {
                    return Err(e);
                }
                warn(&format!(
                    "{}; searched the index of the last sync",
                    error_chain(&e)
                ));
            }
        }
    }
    let mut searcher = semantic::Searcher::new(root, config, &index, &args.semantic)?;
    if args.batch {
        for (n, line) in std::io::stdin().lock().lines().enumerate() {
            let line = line.context("cannot read stdin")?;
            if line.trim().is_empty() {
                continue;
            }
            let q: semantic::BatchQuery = serde_json::from_str(&line).with_context(|| {
                format!("stdin line {}: expected {{\"query\": \"...\"}}", n + 1)
            })?;
            let answer = searcher.run(&q, args.top)?;
            json_line(out, &answer)?;
            // One answer per line as it is ready: a driver may send the next query after it.
            out.flush()?;
        }
        return searcher.finish();
    }
    let q = semantic::BatchQuery {
        query: args.query.clone().unwrap_or_default(),
        top: None,
        id: None,
        mode: None,
        fusion: None,
        collection: None,
        weights: None,
        keywords: args.keywords.clone(),
        rank: None,
        query_embed: None,
    };
    let mut answer = searcher.run(&q, args.top)?;
    searcher.finish()?;
    if json {
        if let (Some(why), Some(obj)) = (repaired, answer.as_object_mut()) {
            obj.insert("repaired".into(), why.into());
        }
        return json_line(out, &answer);
    }
    if answer["mode"] == "lexical" {
        // The lexical answer prints as before: BM25 scores, no explanation.
        let hits: Vec<SearchHit> = serde_json::from_value(answer["hits"].clone())?;
        render::hits(out, &hits)?;
        return semantic::render_notes(out, &answer);
    }
    semantic::render_answer(out, &answer)
}

/// `status --json`.
#[derive(Debug, Serialize)]
struct Status {
    root: String,
    index: Option<IndexStats>,
    /// Why the index was found damaged and rebuilt by this command, if it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    repaired: Option<String>,
    needs_sync: bool,
    /// The vector side (coverage), when one was built.
    vectors: Option<semantic::VectorStatus>,
    sessions: Vec<SessionSummary>,
}

fn status(root: &RepoRoot, config: &Config, json: bool, out: &mut dyn Write) -> anyhow::Result<()> {
    let (index, needs_sync, repaired) = if CodeIndex::lexical_dir(root).exists() {
        let (index, repaired) = open_verified(root, config)?;
        (Some(index.stats()), index.needs_sync(), repaired)
    } else {
        (None, true, None)
    };
    let sessions = SessionStore::new(root.clone())
        .list()
        .context("cannot list sessions")?;
    let status = Status {
        root: root.path().display().to_string(),
        index,
        repaired,
        needs_sync,
        vectors: semantic::vector_status(root),
        sessions,
    };
    if json {
        return json_line(out, &status);
    }
    render::status(
        out,
        &status.root,
        status.index.as_ref(),
        status.needs_sync,
        &status.sessions,
    )?;
    semantic::render_status(out, status.vectors.as_ref())
}

/// Opens the index and checks every file of its last commit ([`CodeIndex::verify`]) and the sync
/// state; a damaged index or state is rebuilt and synced from the sources. Returns the index and why it was rebuilt.
fn open_verified(root: &RepoRoot, config: &Config) -> anyhow::Result<(CodeIndex, Option<String>)> {
    let index = open_index(root, config)?;
    let state_damage = SyncState::damage(&SyncState::path(root));
    let why = match (index.verify(), state_damage) {
        (Ok(()), None) => {
            let repaired = index.repaired().map(str::to_string);
            if repaired.is_some() {
                // Rebuilt empty on open: refill it, as for the damage found below, so that
                // `status` does not report an empty index it has just said it rebuilt.
                sync_with_progress(&index, None)?;
            }
            return Ok((index, repaired));
        }
        (Err(e), _) => format!("{e}; rebuilt it from the sources"),
        (Ok(()), Some(damage)) => format!("{damage}; rebuilt the index from the sources"),
    };
    drop(index);
    warn(&why);
    let index = CodeIndex::rebuild(root, config, &why).context("cannot rebuild the index")?;
    sync_with_progress(&index, None)?;
    Ok((index, Some(why)))
}

/// `repair --json`.
#[derive(Debug, Serialize)]
struct RepairAnswer {
    repaired: String,
    #[serde(flatten)]
    sync: SyncReport,
    /// What was done to the learned map's files (damaged ones moved aside, pairs recovered).
    map: code_intel_session::learned::health::MapRepair,
}

/// `code-intel repair`: repair the learned map's files (damaged ones renamed aside, never
/// deleted; a damaged `learned_pairs.json` rewritten from what it and the agreements still hold),
/// then rebuild the lexical index from the sources, whatever its state. The vectors follow on
/// the next `index --embed` or server start (their state names the lexical commit they mirror,
/// which this changes).
fn repair(root: &RepoRoot, config: &Config, json: bool, out: &mut dyn Write) -> anyhow::Result<()> {
    let map = code_intel_session::learned::health::repair(&root.state_dir())
        .context("cannot repair the learned map (.code-intel/learned_pairs.json, agreements/)")?;
    let why = "rebuilt from the sources by `code-intel repair`";
    let index = CodeIndex::rebuild(root, config, why).context("cannot rebuild the index")?;
    let report = sync_with_progress(&index, None)?;
    if json {
        return json_line(
            out,
            &RepairAnswer {
                repaired: why.to_string(),
                sync: report,
                map,
            },
        );
    }
    render::map_repair(out, &map)?;
    writeln!(out, "{why}")?;
    render::sync_report(out, &report)
}

/// An exploration command: run it with the synced index (if any), print JSON or text.
fn explore_cmd<R: Serialize>(
    root: &RepoRoot,
    config: &Config,
    json: bool,
    out: &mut dyn Write,
    request: Option<&str>,
    run: impl FnOnce(&ExploreContext<'_>) -> Result<R, explore::ExploreError>,
    text: fn(&mut dyn Write, &R) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let index = existing_synced_index(root, config)?;
    let cx = ExploreContext {
        root,
        config,
        index: index.as_ref(),
        request,
    };
    let result = run(&cx)?;
    if json {
        return json_line(out, &result);
    }
    text(out, &result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory as _;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn parses_global_options_after_the_subcommand() {
        let cli = Cli::try_parse_from([
            "code-intel",
            "search",
            "--repo",
            "/r",
            "--json",
            "--top",
            "3",
            "login form",
        ])
        .unwrap();
        assert_eq!(cli.global.repo.as_deref(), Some(std::path::Path::new("/r")));
        assert!(cli.global.json);
        let Command::Search(s) = cli.command else {
            panic!("not search")
        };
        assert_eq!(
            (s.query.as_deref(), s.top, s.batch),
            (Some("login form"), 3, false)
        );
        assert!(
            Cli::try_parse_from(["code-intel", "search"]).is_err(),
            "a query or --batch is required"
        );
        assert!(Cli::try_parse_from(["code-intel", "search", "--batch"]).is_ok());
    }
}
