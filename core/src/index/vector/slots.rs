//! The slot table: one slot per embedded key (row `i` of the in-memory matrix, data id `i` of the
//! HNSW graph), the rows that reference each key, live slots and tombstones, compaction, and the
//! coverage counts kept up to date by every change.

use serde::{Deserialize, Serialize};

use std::sync::Arc;

use super::{Hash32, VectorError, VectorIndex};

/// Embedded chunks against all chunks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    /// Chunks (rows) whose embedding text has a vector.
    pub embedded: usize,
    /// Chunks (rows) in the vector side, i.e. in the lexical index as of the last refresh.
    pub total: usize,
    /// Distinct embedding texts still to embed.
    pub pending_texts: usize,
    /// `embedded / total` in [0, 1] (1 for an empty index).
    pub ratio: f64,
}

impl VectorIndex {
    /// Rebuilds the in-memory slot structures from the state and the cache.
    pub(super) fn load_slots(&mut self) {
        let dims = self.state.dims;
        self.slot_of.clear();
        self.matrix = super::matrix::Matrix::with_capacity(dims, self.state.slots.len());
        self.live = Vec::with_capacity(self.state.slots.len());
        // Slots without a vector (the cache lost it: damaged or pruned) are dead and their keys
        // pending again; they must not be found as slots of their key.
        let mut lost: Vec<Hash32> = Vec::new();
        for (i, key) in self.state.slots.iter().enumerate() {
            match self.cache.get_bytes(&key.0) {
                Some(v) => self.matrix.push(&v),
                None => {
                    self.matrix.push_zero();
                    lost.push(*key);
                }
            }
            self.slot_of.entry(*key).or_insert(i);
            self.live.push(false);
        }
        for k in lost {
            self.slot_of.remove(&k);
        }
        self.rebuild_refs();
    }

    /// Recomputes `refs` and `live` from the rows.
    pub(super) fn rebuild_refs(&mut self) {
        self.refs.clear();
        for (file, fr) in &self.state.files {
            let file: Arc<str> = file.as_str().into();
            for (i, row) in fr.rows.iter().enumerate() {
                self.refs
                    .entry(row.key)
                    .or_default()
                    .push((Arc::clone(&file), i as u32));
            }
        }
        self.refs.shrink_to_fit();
        self.live.iter_mut().for_each(|l| *l = false);
        for (key, &slot) in &self.slot_of {
            if self.refs.contains_key(key) {
                self.live[slot] = true;
            }
        }
        self.live_count = self.live.iter().filter(|l| **l).count();
        self.recount();
    }

    /// Recomputes the coverage counts from `refs` and `slot_of`.
    fn recount(&mut self) {
        let mut c = Coverage::default();
        for (key, rows) in &self.refs {
            c.total += rows.len();
            if self.slot_of.contains_key(key) {
                c.embedded += rows.len();
            } else {
                c.pending_texts += 1;
            }
        }
        self.counts = c;
    }

    /// Gives every referenced key that has no slot but a cached vector its slot (no embedding).
    /// Returns how many. This also repairs a state saved by a process that had not seen another
    /// process's vectors yet: they are in the cache, so they come back here.
    pub(super) fn adopt_cached(&mut self) -> usize {
        let mut missing: Vec<Hash32> = self
            .refs
            .keys()
            .filter(|k| !self.slot_of.contains_key(*k) && self.cache.contains_bytes(&k.0))
            .copied()
            .collect();
        missing.sort();
        let n = missing.len();
        for key in missing {
            let Some(v) = self.cache.get_bytes(&key.0) else {
                continue;
            };
            self.add_slot(key, &v);
        }
        if n > 0 {
            self.dirty = true;
        }
        n
    }

    /// Appends a slot for `key` (which a row references) with vector `v`.
    fn add_slot(&mut self, key: Hash32, v: &[f32]) {
        let slot = self.state.slots.len();
        if let Some(rows) = self.refs.get(&key) {
            self.counts.embedded += rows.len();
            self.counts.pending_texts = self.counts.pending_texts.saturating_sub(1);
        }
        self.matrix.push(v);
        self.live.push(true);
        self.live_count += 1;
        self.slot_of.insert(key, slot);
        self.state.slots.push(key);
        if let Some(graph) = self.graph.as_mut() {
            graph.insert(&self.matrix, slot);
            self.graph_points = self.state.slots.len();
            self.graph_dirty = true;
        }
    }

    /// Drops tombstones: slots become the live keys, the graph is rebuilt (or dropped below the
    /// exact-search size) and the cache is pruned to the live keys.
    pub(super) fn compact(&mut self) -> Result<(), VectorError> {
        let dims = self.state.dims;
        let mut slots = Vec::with_capacity(self.live_count);
        let mut matrix = super::matrix::Matrix::with_capacity(dims, self.live_count);
        for (slot, key) in self.state.slots.iter().enumerate() {
            if self.live[slot] {
                slots.push(*key);
                matrix.push_from(&self.matrix, slot);
            }
        }
        self.state.slots = slots;
        self.journal.full = true;
        self.matrix = matrix;
        self.slot_of = self
            .state
            .slots
            .iter()
            .enumerate()
            .map(|(i, k)| (*k, i))
            .collect();
        self.live = vec![true; self.state.slots.len()];
        self.live_count = self.state.slots.len();
        let live: std::collections::HashSet<[u8; 32]> =
            self.state.slots.iter().map(|k| k.0).collect();
        self.cache.retain_bytes(&live)?;
        self.graph = None;
        self.graph_points = 0;
        self.graph_dirty = true;
        if self.live_count >= self.exact_max {
            self.build_graph();
        }
        Ok(())
    }

    /// Adds embedded vectors (pending until [`Self::save`] flushes them). Keys no row references
    /// (any more) are cached but get no slot. Returns how many got a slot.
    ///
    /// # Errors
    /// [`VectorError::Dims`] for a vector of the wrong size (nothing is inserted).
    pub fn insert(&mut self, vectors: &[(String, Vec<f32>)]) -> Result<usize, VectorError> {
        if let Some((_, v)) = vectors.iter().find(|(_, v)| v.len() != self.state.dims) {
            return Err(VectorError::Dims {
                expected: self.state.dims,
                got: v.len(),
            });
        }
        self.cache
            .insert_many(vectors.iter().map(|(k, v)| (k.as_str(), v)))?;
        let mut added = 0;
        for (key, v) in vectors {
            let Some(key) = Hash32::from_hex(key) else {
                continue;
            };
            if !self.slot_of.contains_key(&key) && self.refs.contains_key(&key) {
                self.add_slot(key, v);
                added += 1;
            }
        }
        if added > 0 {
            self.dirty = true;
            if self.graph.is_none() && self.live_count >= self.exact_max {
                self.build_graph();
            }
        }
        Ok(added)
    }

    /// The vector of a key (hex), if embedded, as searches see it: dequantised from the
    /// in-memory int8 codes (`vector/matrix.rs`; each component within half a quantisation step
    /// of the embedder's).
    pub fn vector(&self, key: &str) -> Option<Vec<f32>> {
        let slot = *self.slot_of.get(&Hash32::from_hex(key)?)?;
        Some(self.matrix.get(slot))
    }

    /// Coverage of the current rows.
    pub fn coverage(&self) -> Coverage {
        let c = self.counts;
        Coverage {
            ratio: if c.total == 0 {
                1.0
            } else {
                c.embedded as f64 / c.total as f64
            },
            ..c
        }
    }
}
