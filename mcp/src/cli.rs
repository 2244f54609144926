//! Command-line parsing and the human/script subcommands (`index`, `search`, `status`, the
//! exploration commands); `serve` hands over to [`crate::server`].

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

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
    /// Bring the code index up to date with the working tree.
    Index,
    /// Ranked search over the code index.
    Search(SearchArgs),
    /// Index statistics and active sessions.
    Status,
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
    /// Read JSON lines `{"query": "..."}` (optionally `"top"`) from stdin; write one JSON result per line.
    #[arg(long)]
    pub batch: bool,
}

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
    pub line: usize,
}

/// Runs a parsed command line.
///
/// # Errors
/// Any failure of the command, with context saying what to do about it.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let root = root::project_root(cli.global.repo.as_deref())?;
    match cli.command {
        Command::Serve => {
            let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
            runtime.block_on(crate::server::serve(root))?;
            Ok(ExitCode::SUCCESS)
        }
        other => anyhow::bail!("`{other:?}` is not available in this build yet"),
    }
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
        let cli = Cli::try_parse_from(["code-intel", "search", "--repo", "/r", "--json", "--top", "3", "login form"]).unwrap();
        assert_eq!(cli.global.repo.as_deref(), Some(std::path::Path::new("/r")));
        assert!(cli.global.json);
        let Command::Search(s) = cli.command else { panic!("not search") };
        assert_eq!((s.query.as_deref(), s.top, s.batch), (Some("login form"), 3, false));
        assert!(Cli::try_parse_from(["code-intel", "search"]).is_err(), "a query or --batch is required");
        assert!(Cli::try_parse_from(["code-intel", "search", "--batch"]).is_ok());
    }
}
