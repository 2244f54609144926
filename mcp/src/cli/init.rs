//! `code-intel init [--dry-run]`: installs code-intel into the project through core's
//! [`install`] (config, `.gitignore`, `.mcp.json` server, hooks and permission rule in
//! `.claude/settings.json`, the `/code` and `/outcome` skills, the sandbox launcher as Claude
//! Code's shell prefix in `.claude/settings.local.json`), or shows what it would change.

use std::io::Write;

use crate::install::{self, Change, InstallPlan, PlannedFile, Skill};
use anyhow::Context as _;
use clap::Args;
use code_intel_session::repo_path::RepoRoot;
use serde::Serialize;

/// The plugin's skills (`skills/` at the repository root), compiled in so that an installed binary
/// installs them without a checkout. Their tool names are the plugin's; [`install`] rewrites them.
pub const SKILLS: [Skill<'static>; 2] = [
    Skill {
        name: "code",
        plugin_text: include_str!("../../../skills/code/SKILL.md"),
    },
    Skill {
        name: "outcome",
        plugin_text: include_str!("../../../skills/outcome/SKILL.md"),
    },
];

/// `code-intel init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// Show what would change (a summary per file and a unified diff) and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Configure the programs by absolute path in this directory (`code-intel`, the two hooks,
    /// `code-intel-sandbox`) instead of by name on PATH. The npm package's `init` passes its own
    /// binaries' directory. The paths are this machine's.
    #[arg(long, value_name = "DIR")]
    pub bin_dir: Option<std::path::PathBuf>,
}

/// One file in `init --json`.
#[derive(Debug, Serialize)]
struct FileReport<'a> {
    path: &'a str,
    /// `create`, `update` or `unchanged`.
    change: Change,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
    /// Unified diff of the change (only with --dry-run, only for changed files).
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
}

/// `init --json`.
#[derive(Debug, Serialize)]
struct Report<'a> {
    root: String,
    dry_run: bool,
    /// Whether any file changes (or, with --dry-run, would change).
    changed: bool,
    files: Vec<FileReport<'a>>,
    warnings: &'a [String],
}

/// Runs `code-intel init` on `root`, printing the result to `out`.
///
/// # Errors
/// A file that cannot be read, is not valid JSON or not of Claude Code's shape (nothing is written
/// then), or a write that fails.
pub fn run(
    root: &RepoRoot,
    args: &InitArgs,
    json: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let (programs, launcher) = match &args.bin_dir {
        Some(dir) => {
            let dir = std::fs::canonicalize(dir)
                .with_context(|| format!("--bin-dir {}", dir.display()))?;
            for bin in [
                install::SERVER_BIN,
                install::PRE_TOOL_USE_BIN,
                install::POST_TOOL_USE_BIN,
            ] {
                anyhow::ensure!(
                    dir.join(bin).is_file(),
                    "--bin-dir {}: no {bin} there (nothing was changed)",
                    dir.display()
                );
            }
            let launcher = install::launcher_in(&dir);
            (install::Programs::In(dir), launcher)
        }
        None => {
            let own_exe = std::env::current_exe().ok();
            let launcher =
                install::find_launcher(std::env::var_os("PATH").as_deref(), own_exe.as_deref());
            (install::Programs::OnPath, launcher)
        }
    };
    let plan = if args.dry_run {
        install::plan(root, &SKILLS, &programs, launcher.as_deref())
    } else {
        install::install(root, &SKILLS, &programs, launcher.as_deref())
    }
    .context("code-intel init failed")?;
    if json {
        let report = Report {
            root: root.path().display().to_string(),
            dry_run: args.dry_run,
            changed: plan.changes_anything(),
            files: plan
                .files
                .iter()
                .map(|f| FileReport {
                    path: &f.path,
                    change: f.change,
                    note: f.note.as_deref(),
                    diff: (args.dry_run && f.change != Change::Unchanged).then(|| diff(f)),
                })
                .collect(),
            warnings: &plan.warnings,
        };
        serde_json::to_writer(&mut *out, &report)?;
        writeln!(out)?;
        return Ok(());
    }
    render(&plan, &programs, args.dry_run, out)
}

fn change_word(c: Change) -> &'static str {
    match c {
        Change::Create => "create",
        Change::Update => "update",
        Change::Unchanged => "unchanged",
    }
}

fn render(
    plan: &InstallPlan,
    programs: &install::Programs,
    dry_run: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    if dry_run {
        writeln!(
            out,
            "code-intel init --dry-run in {} (nothing is written)",
            plan.root.display()
        )?;
    } else {
        writeln!(out, "code-intel init in {}", plan.root.display())?;
    }
    for f in &plan.files {
        let word = match (dry_run, f.change) {
            (true, Change::Create) => "would create",
            (true, Change::Update) => "would update",
            (_, c) => change_word(c),
        };
        match &f.note {
            Some(note) => writeln!(out, "  {word:<12} {}  ({note})", f.path)?,
            None => writeln!(out, "  {word:<12} {}", f.path)?,
        }
    }
    for w in &plan.warnings {
        writeln!(out, "warning: {w}")?;
    }
    if dry_run {
        for f in plan.files.iter().filter(|f| f.change != Change::Unchanged) {
            writeln!(out)?;
            if f.change == Change::Create && f.path.ends_with("SKILL.md") {
                // The skill's whole text is noise here: say what it is instead.
                writeln!(out, "+++ b/{}", f.path)?;
                writeln!(
                    out,
                    "(new file, {} lines: the plugin's skills/{} with the tool names of the project server)",
                    f.after.lines().count(),
                    f.path.trim_start_matches(".claude/skills/")
                )?;
                continue;
            }
            write!(out, "{}", diff(f))?;
        }
        return Ok(());
    }
    if plan.changes_anything() {
        match programs {
            install::Programs::OnPath => writeln!(
                out,
                "next: make sure code-intel, code-intel-pre-tool-use and code-intel-post-tool-use are on PATH, \
                 run `code-intel doctor`, then (re)start Claude Code here and use /code <request>"
            )?,
            install::Programs::In(dir) => writeln!(
                out,
                "the hooks and the server run from {} (this machine's paths); next: `code-intel doctor`, \
                 then (re)start Claude Code here and use /code <request>",
                dir.display()
            )?,
        }
    } else {
        writeln!(out, "everything is already installed (unchanged)")?;
    }
    Ok(())
}

/// The unified diff of a planned file (`/dev/null` as the old side of a new file).
fn diff(f: &PlannedFile) -> String {
    let before = f.before.as_deref().unwrap_or("");
    let old = if f.before.is_some() {
        format!("a/{}", f.path)
    } else {
        "/dev/null".to_owned()
    };
    similar::TextDiff::from_lines(before, &f.after)
        .unified_diff()
        .context_radius(3)
        .header(&old, &format!("b/{}", f.path))
        .missing_newline_hint(true)
        .to_string()
}
