//! Search: the rows nearest to a query vector, by an exact scan below [`EXACT_SEARCH_MAX`] live
//! vectors and through the HNSW graph from there, and the query's similarity profile, the
//! background a single cosine is judged against.

use serde::{Deserialize, Serialize};

use super::graph::HNSW_EF_SEARCH;
use super::{Row, VectorIndex};

/// Below this many live vectors searches scan every vector; at or above it they use the HNSW
/// graph. Measured with `cargo bench -p code-intel-core --bench vector` on multilingual-e5
/// vectors of Laravel (docs/BENCHMARKS.md, "Semantic"): the scan takes 0.16 ms at 5k vectors,
/// 0.35 ms at 10k, 1.06 ms at 20k and 2.1 ms at 37k, growing linearly; a graph query takes 0.12,
/// 0.28, 0.50 and 0.57 ms. The graph wins from about 5k, but below 20k it saves at most half a
/// millisecond of a query that spends 6–8 ms embedding its text, while it costs a build of 1–13 s
/// of one core, its links in memory and on disk, and exactness. (Measured with hnsw_rs, the graph
/// before `vector/hnsw.rs`; the compact graph's figures are in docs/BENCHMARKS.md.) From 20k
/// the scan passes a millisecond and keeps growing, so the graph takes over there.
pub const EXACT_SEARCH_MAX: usize = 20_000;

/// Background sample size for a query's similarity profile when the index is too large to scan.
const PROFILE_SAMPLE: usize = 2048;

/// The newest slots, searched exactly beside the graph. A chunk unlike the rest (an edit's new
/// code) joins the graph as a small island whose links to the rest lead through nodes unlike
/// the query, so the graph's search, which follows similarity, may never reach it: on
/// spring-framework fully embedded, an appended class at cosine 0.910 to its query was missed at
/// every `ef` up to 1,024 for chunks at 0.84, and is found by this scan
/// (docs/log/2026-12-01-compact-graph.md). 2,048 int8 dot products: about 0.3 ms.
const RECENT_EXACT: usize = 2048;

/// One vector hit: a row and the cosine of its vector to the query.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorHit {
    /// Repository-relative path.
    pub file: String,
    /// The row.
    pub row: Row,
    /// Cosine similarity to the query, in [-1, 1].
    pub cosine: f32,
}

/// How similar a query is to the indexed vectors in general: the background a single cosine is
/// judged against (multilingual-e5 puts every pair at 0.76–0.92, so only relative scores mean
/// anything; shared/docs/EMBEDDINGS.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct SimilarityProfile {
    /// Mean cosine of the query to the background vectors.
    pub mean: f32,
    /// Standard deviation of those cosines (population).
    pub sd: f32,
    /// Vectors in the background (all live vectors, or a fixed sample of large indexes).
    pub n: usize,
}

impl SimilarityProfile {
    /// The z-score of `cosine` against this background (0 when the background is empty or flat).
    pub fn z(&self, cosine: f32) -> f32 {
        if self.n == 0 || self.sd <= f32::EPSILON {
            0.0
        } else {
            (cosine - self.mean) / self.sd
        }
    }
}

/// The result of [`VectorIndex::search`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VectorSearch {
    /// Hits, best first (rows sharing a vector share its cosine).
    pub hits: Vec<VectorHit>,
    /// The query's similarity profile over the index.
    pub profile: SimilarityProfile,
    /// Whether the HNSW graph answered (else an exact scan).
    pub approximate: bool,
}

/// Dot product of two equally long slices with eight independent accumulators, so the compiler
/// vectorises it (a single running sum must be added in order and does not vectorise).
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f32; 8];
    let chunks = n / 8;
    for i in 0..chunks {
        let (x, y) = (&a[i * 8..i * 8 + 8], &b[i * 8..i * 8 + 8]);
        for j in 0..8 {
            acc[j] += x[j] * y[j];
        }
    }
    let mut sum: f32 = acc.iter().sum();
    for i in chunks * 8..n {
        sum += a[i] * b[i];
    }
    sum
}

impl VectorIndex {
    /// The `k` rows nearest to `query` (a unit vector of [`Self::dims`] components), best first,
    /// with the query's [`SimilarityProfile`]. Rows sharing a vector count once towards `k` and
    /// are all returned. Exact below [`EXACT_SEARCH_MAX`] live vectors, HNSW above, with the
    /// newest 2,048 slots (`RECENT_EXACT`) scanned beside the graph.
    pub fn search(&self, query: &[f32], k: usize) -> VectorSearch {
        if k == 0 || self.live_count == 0 || query.len() != self.state.dims {
            return VectorSearch {
                profile: self.profile(query),
                ..VectorSearch::default()
            };
        }
        let (slots, profile, approximate) = match &self.graph {
            Some(graph) if self.graph_points == self.state.slots.len() => {
                let live = |id: usize| self.live.get(id).copied().unwrap_or(false);
                // The filter is needed only while dead slots remain.
                let filter: Option<&dyn Fn(usize) -> bool> =
                    (self.live_count < self.state.slots.len()).then_some(&live);
                let found = graph.search(&self.matrix, query, k, HNSW_EF_SEARCH, filter);
                let from = self.state.slots.len().saturating_sub(RECENT_EXACT);
                let recent = (from..self.state.slots.len())
                    .filter(|&slot| live(slot))
                    .map(|slot| (slot, self.matrix.dot(slot, query)));
                (merge_top(found, recent, k), self.profile(query), true)
            }
            _ => {
                let (slots, profile) = self.scan(query, k);
                (slots, profile, false)
            }
        };
        let mut hits = Vec::new();
        for (slot, cosine) in slots {
            let key = &self.state.slots[slot];
            for (file, i) in self.refs.get(key) {
                if let Some(row) = self
                    .state
                    .files
                    .get(&**file)
                    .and_then(|f| f.rows.get(i as usize))
                {
                    hits.push(VectorHit {
                        file: file.to_string(),
                        row: row.clone(),
                        cosine,
                    });
                }
            }
        }
        VectorSearch {
            hits,
            profile,
            approximate,
        }
    }

    /// The cosine of `query` to the vector of the chunk of `file` starting at `start_line` with
    /// content SHA-256 `sha256` (hex; as a lexical hit names it), when the rows know it and its
    /// text is embedded.
    pub fn cosine_at(
        &self,
        file: &str,
        start_line: u32,
        sha256: &str,
        query: &[f32],
    ) -> Option<f32> {
        let slot = self.slot_at(file, start_line, sha256)?;
        (query.len() == self.state.dims).then(|| self.matrix.dot(slot, query))
    }

    /// The vector slot of the chunk [`Self::cosine_at`] names, when the rows know it and its
    /// text is embedded: the lookup half of `cosine_at`, which needs no query (hybrid search does
    /// it while the query embeds).
    pub(crate) fn slot_at(&self, file: &str, start_line: u32, sha256: &str) -> Option<usize> {
        let (_, row) = self.row_at(file, start_line, sha256)?;
        self.slot_of(&row.key)
    }

    /// The cosine of `query` (of [`Self::dims`] components) to the vector in `slot` (from
    /// [`Self::slot_at`] on this index): the dot half of [`Self::cosine_at`].
    pub(crate) fn cosine_of_slot(&self, slot: usize, query: &[f32]) -> f32 {
        self.matrix.dot(slot, query)
    }

    /// Exact top-`k` live slots by dot product, and the profile over all live slots.
    fn scan(&self, query: &[f32], k: usize) -> (Vec<(usize, f32)>, SimilarityProfile) {
        let mut scored: Vec<(usize, f32)> = Vec::with_capacity(self.live_count);
        let (mut sum, mut sum_sq) = (0.0f64, 0.0f64);
        for (slot, c) in self.matrix.dots(query).enumerate() {
            if !self.live[slot] {
                continue;
            }
            sum += f64::from(c);
            sum_sq += f64::from(c) * f64::from(c);
            scored.push((slot, c));
        }
        let n = scored.len();
        let profile = profile_of(sum, sum_sq, n);
        let k = k.min(n);
        if k > 0 && k < n {
            scored.select_nth_unstable_by(k - 1, |a, b| b.1.total_cmp(&a.1));
            scored.truncate(k);
        }
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        (scored, profile)
    }

    /// The query's similarity profile: over every live vector when the index is below
    /// [`EXACT_SEARCH_MAX`], else over a fixed stride sample of 2,048 (`PROFILE_SAMPLE`) live vectors.
    pub fn profile(&self, query: &[f32]) -> SimilarityProfile {
        if self.live_count == 0 || query.len() != self.state.dims {
            return SimilarityProfile::default();
        }
        let stride = if self.live_count < self.exact_max {
            1
        } else {
            (self.live_count / PROFILE_SAMPLE).max(1)
        };
        let (mut sum, mut sum_sq, mut n) = (0.0f64, 0.0f64, 0usize);
        // Every `stride`-th live slot, counted down: a remainder per slot cost more than the
        // 2,048 dot products on spring-framework's 143k slots.
        let mut countdown = stride;
        for slot in 0..self.matrix.len() {
            if !self.live[slot] {
                continue;
            }
            countdown -= 1;
            if countdown > 0 {
                continue;
            }
            countdown = stride;
            let c = f64::from(self.matrix.dot(slot, query));
            sum += c;
            sum_sq += c * c;
            n += 1;
        }
        profile_of(sum, sum_sq, n)
    }
}

/// The `k` best of graph hits and scanned `(slot, cosine)` pairs, each slot once, best first
/// (ties by slot). Only the scanned pairs' own best `k` can be among them (the scanned slots are
/// distinct), so those are selected first and the sort sees at most `2k` pairs, not 2,048 + `k`.
fn merge_top(
    graph: Vec<(usize, f32)>,
    scanned: impl Iterator<Item = (usize, f32)>,
    k: usize,
) -> Vec<(usize, f32)> {
    if k == 0 {
        return Vec::new();
    }
    let order = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    let mut scanned: Vec<(usize, f32)> = scanned.collect();
    if scanned.len() > k {
        scanned.select_nth_unstable_by(k - 1, order);
        scanned.truncate(k);
    }
    let mut all: Vec<(usize, f32)> = graph;
    all.extend(scanned);
    all.sort_by(order);
    let mut seen = std::collections::HashSet::new();
    all.retain(|(slot, _)| seen.insert(*slot));
    all.truncate(k);
    all
}

fn profile_of(sum: f64, sum_sq: f64, n: usize) -> SimilarityProfile {
    if n == 0 {
        return SimilarityProfile::default();
    }
    let mean = sum / n as f64;
    let var = (sum_sq / n as f64 - mean * mean).max(0.0);
    SimilarityProfile {
        mean: mean as f32,
        sd: var.sqrt() as f32,
        n,
    }
}

#[cfg(test)]
mod tests {
    use super::merge_top;

    #[test]
    fn the_scanned_recent_slots_join_the_graphs_hits_once() {
        let graph = vec![(3, 0.84), (7, 0.83), (1, 0.80)];
        // Slot 9 (an island the graph missed) is best; slot 7 comes from both.
        let scanned = [(9, 0.91), (7, 0.83), (8, 0.10)];
        assert_eq!(
            merge_top(graph, scanned.into_iter(), 3),
            vec![(9, 0.91), (3, 0.84), (7, 0.83)]
        );
        assert_eq!(merge_top(Vec::new(), std::iter::empty(), 5), Vec::new());
        // More scanned pairs than `k`: the best of them still win over weaker graph hits, and
        // equal cosines order by slot.
        let scanned = (0..100).map(|s| (s + 100, if s % 10 == 0 { 0.95 } else { 0.1 }));
        assert_eq!(
            merge_top(vec![(5, 0.9), (6, 0.2)], scanned, 4),
            vec![(100, 0.95), (110, 0.95), (120, 0.95), (130, 0.95)]
        );
        let scanned = (0..100).map(|s| (s + 100, 0.1));
        assert_eq!(
            merge_top(vec![(5, 0.9), (6, 0.2)], scanned, 3),
            vec![(5, 0.9), (6, 0.2), (100, 0.1)]
        );
        assert_eq!(
            merge_top(vec![(5, 0.9)], [(1, 0.5)].into_iter(), 0),
            Vec::new()
        );
    }
}
