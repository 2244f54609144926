//! `code-intel insights`: the improvement cycle for people — failure patterns over the recent
//! sessions with a recorded outcome, or one session's analysis (`--session ID`); `--json` prints
//! core's structures (the same as the MCP tools `get_improvement_insights` /
//! `get_session_analysis`).

use std::io::Write;

use anyhow::Context as _;
use clap::Args;
use code_intel_session::outcome::{self, Correlation, Insights, OutcomeError, SessionAnalysis};
use code_intel_session::repo_path::RepoRoot;
use code_intel_session::session::store::{SessionError, SessionStore};
use code_intel_session::vocab::SessionId;

/// `code-intel insights`.
#[derive(Debug, Args)]
pub struct InsightsArgs {
    /// The most recent sessions with an outcome to analyse.
    #[arg(long, default_value_t = 100)]
    pub limit: usize,
    /// Analyse this session instead (its decision, outcomes, tools, files, denials).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
}

/// Runs `insights`.
///
/// # Errors
/// An unreadable journal or session, or output errors.
pub fn run(
    root: &RepoRoot,
    json: bool,
    args: &InsightsArgs,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    if let Some(id) = &args.session {
        let store = SessionStore::new(root.clone());
        let analysis = SessionId::try_from(id.as_str())
            .map_err(|e| OutcomeError::from(SessionError::from(e)))
            .and_then(|sid| outcome::session_analysis(&store, &sid))
            .with_context(|| format!("cannot analyse session {id}"))?;
        if json {
            return super::json_line(out, &analysis);
        }
        return render_session(out, &analysis);
    }
    let insights = outcome::improvement_insights(&root.state_dir(), args.limit.max(1))
        .context("cannot read the outcome journal")?;
    if json {
        return super::json_line(out, &insights);
    }
    render_insights(out, &insights)
}

fn rate(c: &Correlation) -> String {
    format!(
        "{} sessions: {} success, {} failure, {} partial (failure rate {:.0}%)",
        c.sessions,
        c.successes,
        c.failures,
        c.partials,
        c.failure_rate * 100.0
    )
}

fn render_insights(out: &mut dyn Write, i: &Insights) -> anyhow::Result<()> {
    if i.total_sessions_with_outcomes == 0 {
        writeln!(
            out,
            "No outcomes recorded yet (.code-intel/journal/outcomes.jsonl): record_outcome after a session."
        )?;
        return Ok(());
    }
    writeln!(
        out,
        "Sessions with outcomes: {} (of them with a plan: {}; limit {})",
        i.total_sessions_with_outcomes, i.sessions_with_decisions, i.limit
    )?;
    writeln!(out, "Outcomes: {}", rate(&i.outcomes))?;
    if !i.common_failure_points.is_empty() {
        writeln!(out, "\nCommon failure points:")?;
        let mut points: Vec<(&String, &usize)> = i.common_failure_points.iter().collect();
        points.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (point, n) in points {
            writeln!(out, "  {n:>4}  {point}")?;
        }
    }
    if !i.risk_level_correlation.is_empty() {
        writeln!(out, "\nBy risk level:")?;
        for (risk, c) in &i.risk_level_correlation {
            writeln!(out, "  {risk:<8} {}", rate(c))?;
        }
    }
    if !i.tool_failure_correlation.is_empty() {
        writeln!(out, "\nBy tool used (highest failure rate first):")?;
        let mut tools: Vec<(&String, &Correlation)> = i.tool_failure_correlation.iter().collect();
        tools.sort_by(|a, b| {
            b.1.failure_rate
                .total_cmp(&a.1.failure_rate)
                .then(b.1.sessions.cmp(&a.1.sessions))
                .then(a.0.cmp(b.0))
        });
        for (tool, c) in tools {
            writeln!(out, "  {tool:<24} {}", rate(c))?;
        }
    }
    if i.skipped_lines > 0 {
        writeln!(
            out,
            "\n({} unreadable journal lines skipped)",
            i.skipped_lines
        )?;
    }
    Ok(())
}

fn render_session(out: &mut dyn Write, a: &SessionAnalysis) -> anyhow::Result<()> {
    let s = &a.analysis;
    writeln!(out, "Session {}", a.session_id)?;
    if let Some(d) = &a.decision {
        writeln!(out, "  request:  {}", d.query)?;
        writeln!(out, "  intent:   {} (risk {:?})", d.intent, d.risk_level)?;
    }
    if let Some(p) = s.phase {
        writeln!(out, "  phase:    {p}")?;
    }
    match s.final_outcome {
        Some(o) => writeln!(
            out,
            "  outcome:  {o} ({} recorded){}",
            a.outcomes.len(),
            s.failure_point
                .as_ref()
                .map(|f| format!(", failure point: {f}"))
                .unwrap_or_default()
        )?,
        None => writeln!(out, "  outcome:  none recorded")?,
    }
    writeln!(out, "  planned:  {}", s.tools_planned.join(", "))?;
    if !s.planned_not_used.is_empty() {
        writeln!(
            out,
            "  planned, not used: {}",
            s.planned_not_used.join(", ")
        )?;
    }
    if let Some(act) = &s.activity {
        let used: Vec<String> = act
            .tools_used
            .iter()
            .map(|(t, n)| format!("{t}×{n}"))
            .collect();
        writeln!(out, "  used:     {}", used.join(", "))?;
        writeln!(out, "  read:     {} file(s)", act.files_read.len())?;
        for f in &act.files_edited {
            writeln!(out, "  edited:   {f}")?;
        }
        for d in &act.denials {
            writeln!(
                out,
                "  denied:   {} {} at {}: {}",
                d.tool,
                d.files.join(" "),
                d.timestamp,
                d.reason.as_deref().unwrap_or("")
            )?;
        }
    }
    for o in &a.outcomes {
        let learned: Vec<String> = o
            .learned
            .iter()
            .map(|p| format!("{} → {}", p.nl_term, p.symbol))
            .collect();
        writeln!(
            out,
            "  {} {}{}{}",
            o.timestamp,
            o.outcome,
            o.analysis
                .as_ref()
                .map(|t| format!(": {t}"))
                .unwrap_or_default(),
            if learned.is_empty() {
                String::new()
            } else {
                format!(" (learned {})", learned.join(", "))
            }
        )?;
    }
    Ok(())
}
