//! Retrieval evaluation (`code-intel eval`): queries with their gold files (and optionally gold
//! line ranges), the per-query score of a ranked result list and the summary metrics; in
//! [`history`], change requests taken from a repository's own git history.
//!
//! The metrics are those of the development benchmark kit (`bench-kit/run_eval.py`), so the
//! numbers of `code-intel eval` and of the kit's harness are comparable:
//!
//! | metric | over | a query counts when |
//! |---|---|---|
//! | R@1, R@5, R@10 | all queries | any gold file is among the first 1, 5, 10 distinct result files |
//! | MRR@10 | all queries | adds 1/rank of the first gold file (0 beyond 10) |
//! | All@10 | all queries | every gold file is among the first 10 distinct files |
//! | F-R@10 | queries with gold ranges | one of the first 10 result chunks lies in a gold file with at least half of its lines inside one gold range |
//!
//! Latency percentiles use the nearest-rank method on the per-query times the caller measured.

pub mod bm25_file;
pub mod explore;
pub mod grep;
pub mod history;

use serde::{Deserialize, Serialize};

/// Rank cut-off of every metric: the first ten distinct files (and the first ten chunks for
/// F-R@10).
pub const CUTOFF: usize = 10;

/// A line range of one file, 1-based and inclusive at both ends.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GoldRange {
    /// Repository-relative path, `/`-separated.
    pub file: String,
    /// First line, 1-based.
    pub start: u32,
    /// Last line, 1-based, inclusive.
    pub end: u32,
}

/// One evaluation query: a request and where it must be implemented. One line of the
/// `--queries` JSON lines file (`{"query", "gold_files", "gold_ranges"?, "id"?}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalQuery {
    /// Echoed in the per-query results (any JSON value; `--from-git` uses the short commit id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<serde_json::Value>,
    /// The request, as a user would type it.
    pub query: String,
    /// Repository-relative paths of the files the change touches.
    pub gold_files: Vec<String>,
    /// Line ranges the change touches (functions, methods); empty: no function-level gold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gold_ranges: Vec<GoldRange>,
}

/// One result chunk of a search, in rank order (the best chunk of each result file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResultChunk {
    /// Repository-relative path, `/`-separated.
    pub file: String,
    /// First line, 1-based.
    pub start_line: u32,
    /// Last line, 1-based, inclusive.
    pub end_line: u32,
}

/// How one query fared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryScore {
    /// 1-based rank of the first gold file among the first [`CUTOFF`] distinct result files;
    /// `None` when none is there.
    pub rank: Option<usize>,
    /// Whether every gold file is among the first [`CUTOFF`] distinct result files.
    pub all_found: bool,
    /// The function-level hit (see the module docs); `None` for a query without gold ranges.
    pub function_hit: Option<bool>,
    /// The first [`CUTOFF`] distinct result files, best first.
    pub files: Vec<String>,
}

/// Scores one query's ranked result chunks (best first; several chunks of a file are allowed,
/// only the file's first occurrence counts for the file metrics).
pub fn score(query: &EvalQuery, results: &[ResultChunk]) -> QueryScore {
    let mut files: Vec<String> = Vec::new();
    for r in results {
        if files.len() == CUTOFF {
            break;
        }
        if !files.contains(&r.file) {
            files.push(r.file.clone());
        }
    }
    let is_gold = |f: &String| query.gold_files.contains(f);
    let rank = files.iter().position(is_gold).map(|i| i + 1);
    let all_found =
        !query.gold_files.is_empty() && query.gold_files.iter().all(|g| files.contains(g));
    let function_hit = (!query.gold_ranges.is_empty()).then(|| {
        results
            .iter()
            .take(CUTOFF)
            .any(|r| query.gold_ranges.iter().any(|g| half_inside(r, g)))
    });
    QueryScore {
        rank,
        all_found,
        function_hit,
        files,
    }
}

/// Scores one query's ranked result files (best first, without line ranges, as the
/// [`grep`] baseline gives them): the file metrics as [`score`]; the function-level hit is
/// `false` whenever the query has gold ranges, since a file is never precise enough.
pub fn score_files(query: &EvalQuery, files: &[String]) -> QueryScore {
    let chunks: Vec<ResultChunk> = files
        .iter()
        .map(|f| ResultChunk {
            file: f.clone(),
            start_line: 0,
            end_line: 0,
        })
        .collect();
    QueryScore {
        function_hit: (!query.gold_ranges.is_empty()).then_some(false),
        ..score(query, &chunks)
    }
}

/// Whether at least half of `r`'s lines lie inside `g` (same file).
fn half_inside(r: &ResultChunk, g: &GoldRange) -> bool {
    if r.file != g.file {
        return false;
    }
    let (s, e) = (r.start_line.min(r.end_line), r.start_line.max(r.end_line));
    let overlap = i64::from(e.min(g.end)) - i64::from(s.max(g.start)) + 1;
    let len = i64::from(e - s) + 1;
    overlap > 0 && 2 * overlap >= len
}

/// The summary of a run: fractions in `[0, 1]`, latencies in milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Queries scored.
    pub queries: usize,
    /// R@1.
    pub recall_at_1: f64,
    /// R@5.
    pub recall_at_5: f64,
    /// R@10.
    pub recall_at_10: f64,
    /// MRR@10.
    pub mrr_at_10: f64,
    /// All@10.
    pub all_at_10: f64,
    /// Queries with gold ranges (the denominator of F-R@10).
    pub function_queries: usize,
    /// F-R@10; `None` when no query has gold ranges.
    pub function_recall_at_10: Option<f64>,
    /// Median search time per query, ms (nearest rank); 0 without queries.
    pub latency_p50_ms: f64,
    /// 95th percentile search time per query, ms (nearest rank); 0 without queries.
    pub latency_p95_ms: f64,
}

/// Aggregates per-query scores and search times (`latencies_ms`, one per query, any order).
pub fn summarize(scores: &[QueryScore], latencies_ms: &[f64]) -> Summary {
    let n = scores.len();
    let mean = |f: &dyn Fn(&QueryScore) -> f64| {
        if n == 0 {
            0.0
        } else {
            scores.iter().map(f).sum::<f64>() / n as f64
        }
    };
    let within =
        |k: usize| move |s: &QueryScore| f64::from(u8::from(s.rank.is_some_and(|r| r <= k)));
    let function: Vec<bool> = scores.iter().filter_map(|s| s.function_hit).collect();
    Summary {
        queries: n,
        recall_at_1: mean(&within(1)),
        recall_at_5: mean(&within(5)),
        recall_at_10: mean(&within(CUTOFF)),
        mrr_at_10: mean(&|s| s.rank.map_or(0.0, |r| 1.0 / r as f64)),
        all_at_10: mean(&|s| f64::from(u8::from(s.all_found))),
        function_queries: function.len(),
        function_recall_at_10: (!function.is_empty())
            .then(|| function.iter().filter(|h| **h).count() as f64 / function.len() as f64),
        latency_p50_ms: percentile(latencies_ms, 50.0),
        latency_p95_ms: percentile(latencies_ms, 95.0),
    }
}

/// The `p`-th percentile (0 < p ≤ 100) of `values` by the nearest-rank method: the smallest
/// value with at least p % of the values at or below it. 0 for no values.
pub fn percentile(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(file: &str, start_line: u32, end_line: u32) -> ResultChunk {
        ResultChunk {
            file: file.into(),
            start_line,
            end_line,
        }
    }

    fn query(gold: &[&str], ranges: &[(&str, u32, u32)]) -> EvalQuery {
        EvalQuery {
            id: None,
            query: "q".into(),
            gold_files: gold.iter().map(|s| s.to_string()).collect(),
            gold_ranges: ranges
                .iter()
                .map(|(f, s, e)| GoldRange {
                    file: f.to_string(),
                    start: *s,
                    end: *e,
                })
                .collect(),
        }
    }

    #[test]
    fn rank_counts_distinct_files() {
        let results = [
            chunk("a.py", 1, 5),
            chunk("a.py", 10, 20),
            chunk("b.py", 1, 5),
            chunk("c.py", 1, 5),
        ];
        let s = score(&query(&["c.py", "z.py"], &[]), &results);
        assert_eq!(s.rank, Some(3));
        assert_eq!(s.files, ["a.py", "b.py", "c.py"]);
        assert!(!s.all_found);
        assert_eq!(s.function_hit, None);
        let s = score(&query(&["a.py", "b.py"], &[]), &results);
        assert_eq!((s.rank, s.all_found), (Some(1), true));
    }

    #[test]
    fn only_the_first_ten_files_count() {
        let results: Vec<_> = (0..12).map(|i| chunk(&format!("f{i}.py"), 1, 2)).collect();
        assert_eq!(score(&query(&["f9.py"], &[]), &results).rank, Some(10));
        let late = score(&query(&["f10.py"], &[]), &results);
        assert_eq!((late.rank, late.files.len()), (None, 10));
    }

    #[test]
    fn function_hit_needs_half_of_the_chunk_inside_a_gold_range() {
        let q = query(&["a.py"], &[("a.py", 10, 20)]);
        // 6 of 11 lines inside.
        assert_eq!(score(&q, &[chunk("a.py", 15, 25)]).function_hit, Some(true));
        // 5 of 11 lines inside.
        assert_eq!(
            score(&q, &[chunk("a.py", 16, 26)]).function_hit,
            Some(false)
        );
        // A whole-file chunk around the range does not count; the wrong file does not either.
        assert_eq!(
            score(&q, &[chunk("a.py", 1, 100)]).function_hit,
            Some(false)
        );
        assert_eq!(
            score(&q, &[chunk("b.py", 10, 20)]).function_hit,
            Some(false)
        );
        // A one-line chunk inside counts.
        assert_eq!(score(&q, &[chunk("a.py", 20, 20)]).function_hit, Some(true));
        // Beyond the tenth chunk it does not.
        let mut late: Vec<_> = (0..10).map(|i| chunk(&format!("f{i}.py"), 1, 2)).collect();
        late.push(chunk("a.py", 10, 20));
        assert_eq!(score(&q, &late).function_hit, Some(false));
    }

    #[test]
    fn summary_means_and_percentiles() {
        let scores = [
            score(&query(&["a.py"], &[("a.py", 1, 5)]), &[chunk("a.py", 1, 5)]),
            score(
                &query(&["b.py"], &[]),
                &[
                    chunk("x.py", 1, 2),
                    chunk("y.py", 1, 2),
                    chunk("b.py", 1, 2),
                ],
            ),
            score(&query(&["c.py"], &[("c.py", 1, 2)]), &[chunk("x.py", 1, 2)]),
            score(&query(&["d.py", "e.py"], &[]), &[chunk("d.py", 1, 2)]),
        ];
        let s = summarize(&scores, &[4.0, 1.0, 3.0, 2.0]);
        assert_eq!(s.queries, 4);
        assert_eq!(s.recall_at_1, 0.5);
        assert_eq!(s.recall_at_5, 0.75);
        assert_eq!(s.recall_at_10, 0.75);
        assert!((s.mrr_at_10 - (1.0 + 1.0 / 3.0 + 1.0) / 4.0).abs() < 1e-12);
        assert_eq!(s.all_at_10, 0.5);
        assert_eq!(
            (s.function_queries, s.function_recall_at_10),
            (2, Some(0.5))
        );
        assert_eq!((s.latency_p50_ms, s.latency_p95_ms), (2.0, 4.0));
        let empty = summarize(&[], &[]);
        assert_eq!(
            (empty.recall_at_10, empty.function_recall_at_10),
            (0.0, None)
        );
    }

    #[test]
    fn nearest_rank_percentile() {
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), 10.0);
        assert_eq!(percentile(&v, 95.0), 19.0);
        assert_eq!(percentile(&v, 100.0), 20.0);
        assert_eq!(percentile(&[7.0], 95.0), 7.0);
    }

    #[test]
    fn query_lines_parse_with_optional_fields() {
        let q: EvalQuery =
            serde_json::from_str(r#"{"query": "fix login", "gold_files": ["a.py"]}"#).unwrap();
        assert_eq!((q.id, q.gold_ranges.len()), (None, 0));
        let q: EvalQuery = serde_json::from_str(
            r#"{"id": 7, "query": "q", "gold_files": ["a.py"], "gold_ranges": [{"file": "a.py", "start": 3, "end": 9}]}"#,
        )
        .unwrap();
        assert_eq!(q.id, Some(serde_json::json!(7)));
        assert_eq!(q.gold_ranges[0].end, 9);
    }
}
