//! The HNSW graph over the slots (`vector/hnsw.rs`; Malkov & Yashunin 2018): its parameters, and
//! building, extending, reloading or dropping it as the live vectors cross the exact-search size
//! ([`EXACT_SEARCH_MAX`](super::EXACT_SEARCH_MAX)).

use super::VectorIndex;
use super::hnsw::Hnsw;
use super::store::load_dump;

/// Links per node of the HNSW graph (the paper's `M`; `2M` at layer 0). 16 is the paper's
/// recommended range (5–48) for mid-dimensional data and hnswlib's default.
pub const HNSW_M: usize = 16;

/// Candidate list size while inserting (`efConstruction`); 200 is hnswlib's default.
pub const HNSW_EF_CONSTRUCTION: usize = 200;

/// Smallest candidate list while searching (`ef`); a search for `k` uses `max(k, this)`. 128:
/// on spring-framework's 141,784 real vectors recall@10 of self-queries is 0.995 at 64 and
/// 1.000 at 128, for a graph search of 0.40 ms at 64 (`cargo bench -p code-intel-core --bench
/// vector -- --cache …`; docs/log/2026-12-01-compact-graph.md).
pub const HNSW_EF_SEARCH: usize = 128;

/// The graph over the slots: node `i` is slot `i`.
pub(super) type Graph = Hnsw;

impl VectorIndex {
    /// Loads the graph from its dump, or builds it; `true` when it was built from scratch
    /// though the state is large enough for one (no dump, or one that is damaged, of another
    /// size or of an older format): the caller saves, so the next open loads it (a spring-framework
    /// graph takes 80-100 s to build).
    pub(super) fn load_graph(&mut self) -> bool {
        self.graph = None;
        self.graph_points = 0;
        if self.live_count < self.exact_max {
            return false;
        }
        if let Some(base) = self.state.graph.clone()
            && self.state.graph_points <= self.state.slots.len()
            && let Some(bytes) = self.state.graph_size
            && let Some(graph) = load_dump(&self.dir, &base, bytes)
            && graph.nodes() == self.state.graph_points
        {
            self.graph = Some(graph);
            self.graph_points = self.state.graph_points;
            self.extend_graph();
            return false;
        }
        // The dump the state names is not this graph: the next save must write a new base
        // with a dump (an appended save keeps the named one).
        self.state.graph = None;
        self.build_graph();
        true
    }

    /// A fresh graph over all slots with a vector.
    pub(super) fn build_graph(&mut self) {
        let mut graph = Hnsw::new(HNSW_M, HNSW_EF_CONSTRUCTION);
        graph.reserve(self.state.slots.len());
        self.graph = Some(graph);
        self.graph_points = 0;
        self.extend_graph();
    }

    /// Inserts slots `graph_points..` into the graph.
    fn extend_graph(&mut self) {
        let Some(graph) = self.graph.as_mut() else {
            return;
        };
        for slot in self.graph_points..self.state.slots.len() {
            if super::slot_in(&self.slot_table, &self.state.slots, &self.state.slots[slot])
                == Some(slot)
            {
                graph.insert(&self.matrix, slot);
            }
        }
        graph.cover(self.state.slots.len());
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
