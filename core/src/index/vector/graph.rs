//! The HNSW graph over the slots (hnsw_rs; Malkov & Yashunin 2018): its parameters, its distance,
//! and building, extending, reloading or dropping it as the live vectors cross the exact-search
//! size ([`EXACT_SEARCH_MAX`](super::EXACT_SEARCH_MAX)).

use hnsw_rs::anndists::dist::distances::Distance;
use hnsw_rs::hnsw::Hnsw;

use super::store::load_dump;
use super::{VectorIndex, dot};

/// Links per node of the HNSW graph (the paper's `M`; hnsw_rs's `max_nb_connection`). 16 is the
/// paper's recommended range (5–48) for mid-dimensional data and hnswlib's default.
pub const HNSW_M: usize = 16;

/// Candidate list size while inserting (`efConstruction`); 200 is hnswlib's default.
pub const HNSW_EF_CONSTRUCTION: usize = 200;

/// Smallest candidate list while searching (`ef`); a search for `k` uses `max(k, this)`.
pub const HNSW_EF_SEARCH: usize = 64;

/// Layers of the graph (hnsw_rs's maximum is 16).
pub(super) const HNSW_MAX_LAYER: usize = 16;

/// Cosine distance for unit vectors, `max(0, 1 - a·b)`: hnsw_rs's own `DistDot` asserts
/// `1 - a·b >= 0`, which rounding breaks for a vector and itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct UnitDot;

impl Distance<f32> for UnitDot {
    fn eval(&self, va: &[f32], vb: &[f32]) -> f32 {
        (1.0 - dot(va, vb)).max(0.0)
    }
}

/// The graph over the slots: data id `i` is slot `i`.
pub(super) type Graph = Hnsw<'static, f32, UnitDot>;

impl VectorIndex {
    pub(super) fn load_graph(&mut self) {
        self.graph = None;
        self.graph_points = 0;
        if self.live_count < self.exact_max {
            return;
        }
        if let Some(base) = self.state.graph.clone()
            && self.state.graph_points <= self.state.slots.len()
            && let Some(bytes) = self.state.graph_bytes
            && let Some(graph) = load_dump(&self.dir, &base, bytes)
            && graph.get_nb_point() == self.state.graph_points
        {
            self.graph = Some(graph);
            self.graph_points = self.state.graph_points;
            self.extend_graph();
            return;
        }
        self.build_graph();
    }

    /// A fresh graph over all slots with a vector.
    pub(super) fn build_graph(&mut self) {
        let mut graph: Graph = Hnsw::new(
            HNSW_M,
            self.state.slots.len().max(1),
            HNSW_MAX_LAYER,
            HNSW_EF_CONSTRUCTION,
            UnitDot,
        );
        // Extend the candidates with their neighbours while choosing a new point's links (the
        // paper's `extendCandidates`). Without it, clustered vectors inserted cluster by cluster
        // (slots arrive sorted by text length) left some points without in-links: unreachable,
        // never found (a regression test in tests/vector_index.rs). hnsw_rs's reload turns it on.
        graph.set_extend_candidates(true);
        self.graph = Some(graph);
        self.graph_points = 0;
        self.extend_graph();
    }

    /// Inserts slots `graph_points..` into the graph.
    fn extend_graph(&mut self) {
        let Some(graph) = &self.graph else { return };
        for slot in self.graph_points..self.state.slots.len() {
            if self.slot_of.get(&self.state.slots[slot]) == Some(&slot) {
                graph.insert_slice((&self.matrix.get(slot), slot));
            }
        }
        if self.graph_points != self.state.slots.len() {
            self.graph_points = self.state.slots.len();
            self.graph_dirty = true;
        }
    }

    /// Sets the number of live vectors from which searches use the HNSW graph (default
    /// [`EXACT_SEARCH_MAX`](super::EXACT_SEARCH_MAX)), building or dropping the graph to match.
    /// For benchmarks and tests of the graph path on small indexes.
    pub fn set_exact_search_max(&mut self, n: usize) {
        self.exact_max = n.max(1);
        if self.live_count >= self.exact_max {
            if self.graph.is_none() {
                self.build_graph();
            }
        } else if self.graph.is_some() {
            self.graph = None;
            self.graph_points = 0;
            self.graph_dirty = true;
        }
    }
}
