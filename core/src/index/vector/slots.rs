//! The slot table: one slot per embedded key (row `i` of the in-memory matrix, data id `i` of the
//! HNSW graph), the rows that reference each key, live slots and tombstones, compaction, and the
//! coverage counts kept up to date by every change.

use serde::{Deserialize, Serialize};

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{Hash32, VectorError, VectorIndex};
use crate::embed::key_table::KeyTable;

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

/// Key → the rows with that key, as (file, row index), made whole from the rows
/// ([`VectorIndex::rebuild_refs`]): the distinct keys sorted, each with the range of its
/// references in one list. About 44 bytes a row, against ~136 for the `HashMap` of `Vec`s it
/// replaced (spring-framework: 143k keys, ~6 MiB instead of ~19; docs/log/2026-12-01-compact-graph.md).
#[derive(Debug, Default)]
pub(super) struct Refs {
    /// The files, in the rows' (path) order.
    files: Vec<Arc<str>>,
    /// Distinct keys, sorted.
    keys: Vec<Hash32>,
    /// `keys.len() + 1` offsets into `rows`: key `i`'s references are `starts[i]..starts[i + 1]`.
    starts: Vec<u32>,
    /// (index into `files`, row index in that file).
    rows: Vec<(u32, u32)>,
}

impl Refs {
    /// The references of every row of `files`.
    fn of(files: &BTreeMap<String, super::FileRows>) -> Self {
        let mut all: Vec<(Hash32, u32, u32)> = Vec::new();
        let mut names = Vec::with_capacity(files.len());
        for (f, (name, fr)) in files.iter().enumerate() {
            names.push(Arc::from(name.as_str()));
            all.extend(
                fr.rows
                    .iter()
                    .enumerate()
                    .map(|(i, row)| (row.key, f as u32, i as u32)),
            );
        }
        all.sort_unstable();
        let mut refs = Self {
            files: names,
            keys: Vec::new(),
            starts: Vec::new(),
            rows: Vec::with_capacity(all.len()),
        };
        for (key, f, i) in all {
            if refs.keys.last() != Some(&key) {
                refs.keys.push(key);
                refs.starts.push(refs.rows.len() as u32);
            }
            refs.rows.push((f, i));
        }
        refs.starts.push(refs.rows.len() as u32);
        refs.keys.shrink_to_fit();
        refs.starts.shrink_to_fit();
        refs
    }

    fn find(&self, key: &Hash32) -> Option<usize> {
        self.keys.binary_search(key).ok()
    }

    /// Whether a row has `key`.
    pub(super) fn contains_key(&self, key: &Hash32) -> bool {
        self.find(key).is_some()
    }

    /// The (file, row index) of every row with `key`, in path and row order.
    pub(super) fn get(&self, key: &Hash32) -> impl Iterator<Item = (&Arc<str>, u32)> + '_ {
        let range = self.find(key).map_or(0..0, |k| {
            self.starts[k] as usize..self.starts[k + 1] as usize
        });
        self.rows[range]
            .iter()
            .map(|&(f, i)| (&self.files[f as usize], i))
    }

    /// The distinct keys, sorted.
    pub(super) fn keys(&self) -> impl Iterator<Item = &Hash32> + '_ {
        self.keys.iter()
    }

    /// Each distinct key with its number of rows.
    pub(super) fn counts(&self) -> impl Iterator<Item = (&Hash32, usize)> + '_ {
        self.keys
            .iter()
            .zip(self.starts.windows(2))
            .map(|(k, w)| (k, (w[1] - w[0]) as usize))
    }
}

impl VectorIndex {
    /// Rebuilds the in-memory slot structures from the state and the cache.
    pub(super) fn load_slots(&mut self) {
        let dims = self.state.dims;
        self.slot_table.clear();
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
            let slots = &self.state.slots;
            self.slot_table
                .insert(&key.0, i as u32, |p| &slots[p as usize].0);
            self.live.push(false);
        }
        for k in lost {
            let slots = &self.state.slots;
            self.slot_table.remove(&k.0, |p| &slots[p as usize].0);
        }
        self.rebuild_refs();
    }

    /// Recomputes `refs` and `live` from the rows.
    pub(super) fn rebuild_refs(&mut self) {
        self.refs = Refs::of(&self.state.files);
        self.live.iter_mut().for_each(|l| *l = false);
        for slot in self.slot_table.positions() {
            if self.refs.contains_key(&self.state.slots[slot as usize]) {
                self.live[slot as usize] = true;
            }
        }
        self.live_count = self.live.iter().filter(|l| **l).count();
        self.recount();
    }

    /// Recomputes the coverage counts from `refs` and the slot table.
    fn recount(&mut self) {
        let mut c = Coverage::default();
        for (key, rows) in self.refs.counts() {
            c.total += rows;
            if self.slot_of(key).is_some() {
                c.embedded += rows;
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
            .filter(|k| self.slot_of(k).is_none() && self.cache.contains_bytes(&k.0))
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

    /// The slot of `key`, if it has one.
    pub(super) fn slot_of(&self, key: &Hash32) -> Option<usize> {
        super::slot_in(&self.slot_table, &self.state.slots, key)
    }

    /// Appends a slot for `key` (which a row references) with vector `v`.
    fn add_slot(&mut self, key: Hash32, v: &[f32]) {
        let slot = self.state.slots.len();
        let rows = self.refs.get(&key).count();
        if rows > 0 {
            self.counts.embedded += rows;
            self.counts.pending_texts = self.counts.pending_texts.saturating_sub(1);
        }
        self.matrix.push(v);
        self.live.push(true);
        self.live_count += 1;
        self.state.slots.push(key);
        let slots = &self.state.slots;
        self.slot_table
            .insert(&key.0, slot as u32, |p| &slots[p as usize].0);
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
        let slots = &self.state.slots;
        self.slot_table = KeyTable::of(slots.len(), |p| &slots[p as usize].0);
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
            if self.slot_of(&key).is_none() && self.refs.contains_key(&key) {
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
        let slot = self.slot_of(&Hash32::from_hex(key)?)?;
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
