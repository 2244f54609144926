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
//! | NDCG@10 | all queries | graded by position: gain 1 per gold file among the first 10 distinct result files (see [`ndcg`]) |
//! | span NDCG@10 | queries with gold ranges | gain 1 per gold range that one of the first 10 result chunks lies at least half inside (see [`ndcg`]) |
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
/// `--queries` JSON lines file, in either of two shapes:
///
/// * change requests: `{"query", "gold_files", "gold_ranges"?, "id"?}`;
/// * questions (`tests/eval/questions/`): `{"question", "gold": [{"path", "start_line",
///   "end_line"}], "id"?, "corpus"?}`: the gold files are the distinct paths, the gold ranges the
///   spans.
///
/// Both shapes may be mixed in one line (`query` wins over `question`; `gold` adds to
/// `gold_files` and `gold_ranges`). Other fields are ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "QueryLine")]
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

/// A gold span of the questions' shape: `{"path", "start_line", "end_line"}` (1-based,
/// inclusive).
#[derive(Debug, Clone, Deserialize)]
struct GoldSpan {
    path: String,
    start_line: u32,
    end_line: u32,
}

/// A `--queries` line as written, before [`EvalQuery`] is made of it.
#[derive(Debug, Deserialize)]
struct QueryLine {
    #[serde(default)]
    id: Option<serde_json::Value>,
    #[serde(default)]
    query: Option<String>,
    #[serde(default)]
    question: Option<String>,
    #[serde(default)]
    gold_files: Vec<String>,
    #[serde(default)]
    gold_ranges: Vec<GoldRange>,
    #[serde(default)]
    gold: Vec<GoldSpan>,
}

impl TryFrom<QueryLine> for EvalQuery {
    type Error = String;

    fn try_from(line: QueryLine) -> Result<Self, String> {
        let query = line
            .query
            .or(line.question)
            .ok_or("a query line needs \"query\" (or \"question\")")?;
        let (mut gold_files, mut gold_ranges) = (line.gold_files, line.gold_ranges);
        for span in line.gold {
            if span.start_line == 0 || span.end_line < span.start_line {
                return Err(format!(
                    "gold span {}:{}-{} is not a 1-based line range with start <= end",
                    span.path, span.start_line, span.end_line
                ));
            }
            if !gold_files.contains(&span.path) {
                gold_files.push(span.path.clone());
            }
            gold_ranges.push(GoldRange {
                file: span.path,
                start: span.start_line,
                end: span.end_line,
            });
        }
        if gold_files.is_empty() {
            return Err("a query line needs \"gold_files\" (or \"gold\" spans)".into());
        }
        Ok(EvalQuery {
            id: line.id,
            query,
            gold_files,
            gold_ranges,
        })
    }
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// File-level NDCG@10 (see [`ndcg`]), in `[0, 1]`.
    pub ndcg: f64,
    /// Span-level NDCG@10 (see [`ndcg`]); `None` for a query without gold ranges.
    pub span_ndcg: Option<f64>,
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
    let file_gains: Vec<bool> = files.iter().map(is_gold).collect();
    let ndcg = ndcg(&file_gains, query.gold_files.len());
    let span_ndcg = (!query.gold_ranges.is_empty()).then(|| {
        let mut credited = vec![false; query.gold_ranges.len()];
        let gains: Vec<bool> = results
            .iter()
            .take(CUTOFF)
            .map(|r| {
                let hit = query
                    .gold_ranges
                    .iter()
                    .enumerate()
                    .find(|(i, g)| !credited[*i] && half_inside(r, g));
                if let Some((i, _)) = hit {
                    credited[i] = true;
                }
                hit.is_some()
            })
            .collect();
        self::ndcg(&gains, query.gold_ranges.len())
    });
    QueryScore {
        rank,
        all_found,
        function_hit,
        files,
        ndcg,
        span_ndcg,
    }
}

/// NDCG with binary gains: `gains[i]` says whether the result at rank `i + 1` is relevant
/// (only the first [`CUTOFF`] count), `relevant` how many relevant items exist.
/// DCG = Σ gain_i / log2(i + 1) over ranks i = 1..=10; the ideal DCG puts
/// min(`relevant`, 10) relevant items first; NDCG = DCG / ideal DCG, 0 when nothing is relevant.
///
/// [`score`] uses it twice: **file level**, the results are the first 10 distinct result files
/// and each gold file gains 1 (a file counts once, at its first rank); **span level**, the
/// results are the first 10 result chunks, and a chunk gains 1 when at least half of its lines
/// lie inside a gold range (same file) that no earlier chunk was credited for, so two chunks
/// inside one gold function count once and a whole-file or whole-class chunk around it counts
/// for nothing.
pub fn ndcg(gains: &[bool], relevant: usize) -> f64 {
    let discount = |i: usize| 1.0 / ((i + 2) as f64).log2();
    let dcg: f64 = gains
        .iter()
        .take(CUTOFF)
        .enumerate()
        .filter(|(_, g)| **g)
        .map(|(i, _)| discount(i))
        .sum();
    let ideal: f64 = (0..relevant.min(CUTOFF)).map(discount).sum();
    if ideal == 0.0 { 0.0 } else { dcg / ideal }
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
        span_ndcg: (!query.gold_ranges.is_empty()).then_some(0.0),
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
    /// Mean file-level NDCG@10 ([`ndcg`]).
    pub ndcg_at_10: f64,
    /// Mean span-level NDCG@10 over the queries with gold ranges ([`ndcg`]); `None` when no
    /// query has gold ranges.
    pub span_ndcg_at_10: Option<f64>,
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
    let span: Vec<f64> = scores.iter().filter_map(|s| s.span_ndcg).collect();
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
        ndcg_at_10: mean(&|s| s.ndcg),
        span_ndcg_at_10: (!span.is_empty()).then(|| span.iter().sum::<f64>() / span.len() as f64),
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
    fn ndcg_is_one_for_the_ideal_order_and_discounts_later_ranks() {
        assert_eq!(ndcg(&[true], 1), 1.0);
        assert_eq!(ndcg(&[true, true, false], 2), 1.0);
        // One relevant item at rank 2: 1/log2(3).
        assert!((ndcg(&[false, true], 1) - 1.0 / 3f64.log2()).abs() < 1e-12);
        // Two relevant items, one found at rank 1: 1 / (1 + 1/log2(3)).
        assert!((ndcg(&[true, false], 2) - 1.0 / (1.0 + 1.0 / 3f64.log2())).abs() < 1e-12);
        // Beyond rank 10 nothing counts; nothing relevant gives 0.
        let mut late = vec![false; 10];
        late.push(true);
        assert_eq!(ndcg(&late, 1), 0.0);
        assert_eq!(ndcg(&[true], 0), 0.0);
    }

    #[test]
    fn file_and_span_ndcg_of_a_query() {
        let q = query(&["a.py", "b.py"], &[("a.py", 10, 20), ("b.py", 1, 50)]);
        // a.py at rank 1 (inside its span), x.py, b.py at rank 3 as a whole-file chunk.
        let s = score(
            &q,
            &[
                chunk("a.py", 12, 18),
                chunk("x.py", 1, 9),
                chunk("b.py", 1, 400),
            ],
        );
        let ideal = 1.0 + 1.0 / 3f64.log2();
        assert!((s.ndcg - (1.0 + 0.5) / ideal).abs() < 1e-12);
        // Span level: only the a.py chunk lies at least half inside a gold span.
        assert!((s.span_ndcg.unwrap() - 1.0 / ideal).abs() < 1e-12);
        // Two chunks inside the same span are credited once.
        let twice = score(&q, &[chunk("a.py", 10, 12), chunk("a.py", 14, 20)]);
        assert!((twice.span_ndcg.unwrap() - 1.0 / ideal).abs() < 1e-12);
        // Without gold ranges there is no span-level score; a file list scores 0 on spans.
        assert_eq!(
            score(&query(&["a.py"], &[]), &[chunk("a.py", 1, 2)]).span_ndcg,
            None
        );
        assert_eq!(score_files(&q, &["a.py".into()]).span_ndcg, Some(0.0));
    }

    #[test]
    fn question_lines_give_gold_files_and_ranges() {
        let q: EvalQuery = serde_json::from_str(
            r#"{"id": 3, "corpus": "vite", "question": "where?", "gold": [
                {"path": "a.ts", "start_line": 5, "end_line": 9},
                {"path": "a.ts", "start_line": 20, "end_line": 30},
                {"path": "b.ts", "start_line": 1, "end_line": 2}]}"#,
        )
        .unwrap();
        assert_eq!(q.query, "where?");
        assert_eq!(q.gold_files, ["a.ts", "b.ts"]);
        assert_eq!(q.gold_ranges.len(), 3);
        assert_eq!((q.gold_ranges[1].start, q.gold_ranges[1].end), (20, 30));
        for bad in [
            r#"{"gold_files": ["a.py"]}"#,
            r#"{"question": "q"}"#,
            r#"{"question": "q", "gold": [{"path": "a.ts", "start_line": 9, "end_line": 5}]}"#,
            r#"{"question": "q", "gold": [{"path": "a.ts", "start_line": 0, "end_line": 5}]}"#,
        ] {
            assert!(serde_json::from_str::<EvalQuery>(bad).is_err(), "{bad}");
        }
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
