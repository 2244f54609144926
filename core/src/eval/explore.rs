//! The exploration report of `code-intel eval --explore`: what the agent sees on its mandatory
//! path, per request — where the first gold file stands (a) in `start_session`'s leads and (b)
//! in the files `search_text` shows when the agent searches each content word of the request
//! once, in path order versus relevance order (docs/DESIGN.md#leads).
//!
//! Method of (b): one `search_text` call per word of [`grep_terms`] (the request's distinctive
//! words, as the grep baseline takes them), case-insensitive literal, the first
//! [`MATCHES_PER_CALL`] matches per call; the distinct files of all calls, in the order shown
//! (first call first), are the list whose first gold file is ranked. Relevance order is the
//! tools' own with a session bound ([`crate::explore::ResultOrder::Relevance`]).

use serde::{Deserialize, Serialize};

use super::grep::grep_terms;
use super::{CUTOFF, EvalQuery};
use crate::explore::{self, ExploreContext, ExploreError, ResultOrder, SearchTextParams};
use crate::index::CodeIndex;
use code_intel_session::config::Config;
use code_intel_session::repo_path::RepoRoot;

/// Matches per `search_text` call (the agent's usual `max_results`).
pub const MATCHES_PER_CALL: usize = 50;

/// Where the first gold file stands in what the agent sees, per request: 1-based ranks among
/// distinct files, `None` when absent (leads: among the first [`CUTOFF`]; text search: among
/// all the files shown).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExploreRanks {
    /// In `start_session`'s leads.
    pub leads: Option<usize>,
    /// In `search_text` per content word, path order.
    pub text_path: Option<usize>,
    /// In `search_text` per content word, relevance order.
    pub text_relevance: Option<usize>,
    /// The words searched.
    pub words: Vec<String>,
    /// Time to compute the leads, ms (the ranked search plus the reasons).
    pub leads_ms: f64,
}

/// Measures [`ExploreRanks`] for one request on an index of its repository.
///
/// # Errors
/// [`ExploreError`] when a search fails.
pub fn explore_ranks(
    root: &RepoRoot,
    config: &Config,
    index: &CodeIndex,
    query: &EvalQuery,
) -> Result<ExploreRanks, ExploreError> {
    let started = std::time::Instant::now();
    let leads: Vec<String> = crate::explore::leads::leads(index, &query.query, CUTOFF)?
        .into_iter()
        .map(|l| l.file)
        .collect();
    let leads_ms = started.elapsed().as_secs_f64() * 1000.0;
    let words = grep_terms(&query.query);
    let shown = |order: ResultOrder| -> Result<Vec<String>, ExploreError> {
        let cx = ExploreContext {
            root,
            config,
            index: Some(index),
            request: Some(&query.query),
        };
        let mut files: Vec<String> = Vec::new();
        for word in &words {
            let r = explore::search_text(
                &cx,
                &SearchTextParams {
                    pattern: format!("(?i){}", regex_escape(word)),
                    max_results: Some(MATCHES_PER_CALL),
                    order: Some(order),
                    ..SearchTextParams::default()
                },
            )?;
            for m in r.matches {
                if !files.contains(&m.file) {
                    files.push(m.file);
                }
            }
        }
        Ok(files)
    };
    let text_path = shown(ResultOrder::Path)?;
    let text_relevance = shown(ResultOrder::Relevance)?;
    Ok(ExploreRanks {
        leads: first_gold(query, &leads, CUTOFF),
        text_path: first_gold(query, &text_path, usize::MAX),
        text_relevance: first_gold(query, &text_relevance, usize::MAX),
        words,
        leads_ms,
    })
}

/// 1-based rank of the first gold file among the first `cutoff` of `files`.
fn first_gold(query: &EvalQuery, files: &[String], cutoff: usize) -> Option<usize> {
    files
        .iter()
        .take(cutoff)
        .position(|f| query.gold_files.contains(f))
        .map(|i| i + 1)
}

/// `word` with regex metacharacters escaped (the words hold `.`, `$` and `-`).
fn regex_escape(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    for c in word.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The exploration report over many requests: for each list, how many requests have their
/// first gold file within the first 1, 5 and 10 files, and the MRR@10.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExploreSummary {
    /// Requests measured.
    pub queries: usize,
    /// Leads.
    pub leads: ListSummary,
    /// `search_text` per word, path order.
    pub text_path: ListSummary,
    /// `search_text` per word, relevance order.
    pub text_relevance: ListSummary,
    /// Requests with a gold file in the first ten files of relevance order over those in path
    /// order (the issue's target: at least 1.3); `None` when path order has none.
    pub relevance_over_path_at_10: Option<f64>,
    /// Leads latency p50 / p95, ms (nearest rank).
    pub leads_p50_ms: f64,
    /// See `leads_p50_ms`.
    pub leads_p95_ms: f64,
}

/// Where the first gold file stands in one list, over many requests.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ListSummary {
    /// Share of requests with it first.
    pub r_at_1: f64,
    /// Within the first five files.
    pub r_at_5: f64,
    /// Within the first ten files.
    pub r_at_10: f64,
    /// Requests within the first ten files.
    pub within_10: usize,
    /// Mean reciprocal rank, 0 beyond ten.
    pub mrr_at_10: f64,
}

/// Summarises per-request [`ExploreRanks`].
pub fn summarize(ranks: &[ExploreRanks]) -> ExploreSummary {
    let list = |f: &dyn Fn(&ExploreRanks) -> Option<usize>| {
        let n = ranks.len().max(1) as f64;
        let within = |k: usize| {
            ranks
                .iter()
                .filter(|r| f(r).is_some_and(|x| x <= k))
                .count()
        };
        ListSummary {
            r_at_1: within(1) as f64 / n,
            r_at_5: within(5) as f64 / n,
            r_at_10: within(10) as f64 / n,
            within_10: within(10),
            mrr_at_10: ranks
                .iter()
                .filter_map(|r| f(r).filter(|&x| x <= 10))
                .map(|x| 1.0 / x as f64)
                .sum::<f64>()
                / n,
        }
    };
    let leads = list(&|r| r.leads);
    let text_path = list(&|r| r.text_path);
    let text_relevance = list(&|r| r.text_relevance);
    let ratio = (text_path.within_10 > 0)
        .then(|| text_relevance.within_10 as f64 / text_path.within_10 as f64);
    let mut ms: Vec<f64> = ranks.iter().map(|r| r.leads_ms).collect();
    ms.sort_by(f64::total_cmp);
    let pct = |p: f64| -> f64 {
        if ms.is_empty() {
            return 0.0;
        }
        let i = ((p / 100.0 * ms.len() as f64).ceil() as usize).clamp(1, ms.len()) - 1;
        ms[i]
    };
    ExploreSummary {
        queries: ranks.len(),
        leads,
        text_path,
        text_relevance,
        relevance_over_path_at_10: ratio,
        leads_p50_ms: pct(50.0),
        leads_p95_ms: pct(95.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_summaries() {
        assert_eq!(regex_escape("a.b$c-d"), r"a\.b\$c\-d");
        let ranks = vec![
            ExploreRanks {
                leads: Some(1),
                text_path: Some(12),
                text_relevance: Some(2),
                words: vec![],
                leads_ms: 1.0,
            },
            ExploreRanks {
                leads: None,
                text_path: Some(3),
                text_relevance: Some(3),
                words: vec![],
                leads_ms: 3.0,
            },
        ];
        let s = summarize(&ranks);
        assert_eq!(s.leads.within_10, 1);
        assert!((s.leads.mrr_at_10 - 0.5).abs() < 1e-9);
        assert_eq!(s.text_path.within_10, 1);
        assert_eq!(s.text_relevance.within_10, 2);
        assert_eq!(s.relevance_over_path_at_10, Some(2.0));
        assert_eq!((s.leads_p50_ms, s.leads_p95_ms), (1.0, 3.0));
    }
}
