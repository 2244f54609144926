//! A compact HNSW graph (Malkov & Yashunin 2018, "Efficient and robust approximate nearest
//! neighbor search using Hierarchical Navigable Small World graphs", arXiv:1603.09320) whose
//! nodes are the slots of the vector matrix: it holds links only, as `u32` arrays, and reads
//! vectors through [`Points`] (the int8 slot matrix in the index), so no second copy of the
//! vectors exists.
//!
//! Layout, after hnswlib's: layer 0 is one flat array of `2M` links per node (`u32::MAX` pads a
//! list that is not full); the few nodes above layer 0 (a fraction `1/M` of them) keep their
//! upper lists in a map, `M` links per layer. 133 bytes a node at `M` = 16 against 4.6 KB with
//! hnsw_rs, which kept an `f32` copy of every vector and an `Arc` per link
//! (docs/log/2026-12-01-compact-graph.md).
//!
//! Algorithms as the paper numbers them: insertion (1), the layer search (2), the neighbour
//! selection heuristic (4) without `keepPrunedConnections` (the paper's default and hnswlib's:
//! lists keep room, so a later node's back-link is appended rather than displacing one), and
//! the k-NN search (5). Levels are drawn with `mL = 1/ln M`
//! from a fixed-seed generator, so a graph built from the same vectors in the same order is the
//! same graph.
//!
//! On disk ([`Hnsw::to_bytes`], [`Hnsw::from_bytes`]): a header, the levels, layer 0, the upper
//! lists in node order and a CRC-32 of everything before it; a file that does not check out is
//! refused (the caller rebuilds the graph: it is derived data).

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap};

/// The vectors a graph is built over, by node number (= slot).
pub trait Points {
    /// `query · vector(node)` (cosine for unit vectors).
    fn similarity(&self, node: usize, query: &[f32]) -> f32;
    /// `vector(a) · vector(b)`.
    fn node_similarity(&self, a: usize, b: usize) -> f32;
    /// The vector of `node` (the query an insertion searches with).
    fn vector(&self, node: usize) -> Vec<f32>;
}

/// No link / no entry point.
const NONE: u32 = u32::MAX;
/// Level of a node number that is not in the graph (a dead slot skipped, or not inserted yet).
const ABSENT: u8 = u8::MAX;
/// Highest level a node can get (hnsw_rs's bound, kept).
pub const MAX_LEVEL: u8 = 15;
/// Version 2: lists chosen without the pruned fill (a version-1 dump, all lists full, is
/// rebuilt).
const MAGIC: &[u8; 8] = b"CIHNSW\x02\x00";

/// A similarity and a node, ordered by similarity (then node, for determinism).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Near(f32, u32);

impl Eq for Near {}

impl Ord for Near {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0).then(other.1.cmp(&self.1))
    }
}

impl PartialOrd for Near {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Visited nodes of one search, one bit per node.
struct Visited(Vec<u64>);

impl Visited {
    fn new(nodes: usize) -> Self {
        Self(vec![0; nodes.div_ceil(64)])
    }

    /// Marks `node`; whether it was unmarked.
    fn insert(&mut self, node: u32) -> bool {
        let (w, b) = (node as usize / 64, node % 64);
        let fresh = self.0[w] & (1 << b) == 0;
        self.0[w] |= 1 << b;
        fresh
    }
}

/// The graph. Node numbers are slot numbers; [`Self::nodes`] of them are covered, some of which
/// may be absent (never inserted).
#[derive(Debug, Clone, PartialEq)]
pub struct Hnsw {
    m: usize,
    m0: usize,
    ef_construction: usize,
    levels: Vec<u8>,
    layer0: Vec<u32>,
    upper: HashMap<u32, Box<[u32]>>,
    entry: u32,
    top: u8,
    rng: u64,
}

impl Hnsw {
    /// An empty graph with `m` links per node above layer 0 and `2m` at layer 0 (the paper's
    /// `Mmax0 = 2M`), inserting with a candidate list of `ef_construction`.
    #[must_use]
    pub fn new(m: usize, ef_construction: usize) -> Self {
        let m = m.max(2);
        Self {
            m,
            m0: 2 * m,
            ef_construction: ef_construction.max(m),
            levels: Vec::new(),
            layer0: Vec::new(),
            upper: HashMap::new(),
            entry: NONE,
            top: 0,
            rng: 0x9E37_79B9_7F4A_7C15,
        }
    }

    /// Node numbers covered (`0..nodes`), inserted or not.
    #[must_use]
    pub fn nodes(&self) -> usize {
        self.levels.len()
    }

    /// Nodes inserted.
    #[must_use]
    pub fn inserted(&self) -> usize {
        self.levels.iter().filter(|&&l| l != ABSENT).count()
    }

    /// Bytes the graph holds in memory (its arrays and upper lists), for benchmarks.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        self.levels.capacity()
            + 4 * self.layer0.capacity()
            + self
                .upper
                .values()
                .map(|l| 4 * l.len() + 16 + 8)
                .sum::<usize>()
    }

    /// Room for node numbers up to `n` without growing (a build that knows its size).
    pub fn reserve(&mut self, n: usize) {
        self.levels
            .reserve_exact(n.saturating_sub(self.levels.len()));
        self.layer0
            .reserve_exact((n * self.m0).saturating_sub(self.layer0.len()));
    }

    /// Covers node numbers `0..n` (new ones absent).
    pub fn cover(&mut self, n: usize) {
        if n > self.levels.len() {
            self.levels.resize(n, ABSENT);
            self.layer0.resize(n * self.m0, NONE);
        }
    }

    fn capacity(&self, layer: u8) -> usize {
        if layer == 0 { self.m0 } else { self.m }
    }

    fn links(&self, node: u32, layer: u8) -> &[u32] {
        let list = if layer == 0 {
            let at = node as usize * self.m0;
            &self.layer0[at..at + self.m0]
        } else {
            match self.upper.get(&node) {
                Some(l) => {
                    let at = (layer as usize - 1) * self.m;
                    &l[at..at + self.m]
                }
                None => return &[],
            }
        };
        let n = list.iter().position(|&x| x == NONE).unwrap_or(list.len());
        &list[..n]
    }

    fn set_links(&mut self, node: u32, layer: u8, links: &[u32]) {
        let cap = self.capacity(layer);
        let list = if layer == 0 {
            let at = node as usize * self.m0;
            &mut self.layer0[at..at + self.m0]
        } else {
            let m = self.m;
            let Some(l) = self.upper.get_mut(&node) else {
                return;
            };
            let at = (layer as usize - 1) * m;
            &mut l[at..at + m]
        };
        let n = links.len().min(cap);
        list[..n].copy_from_slice(&links[..n]);
        list[n..].fill(NONE);
    }

    /// A level from the paper's distribution, `floor(-ln U × mL)` with `mL = 1/ln M`.
    fn draw_level(&mut self) -> u8 {
        // splitmix64
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let u = ((z >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
        let level = (-u.ln() / (self.m as f64).ln()).floor();
        level.min(f64::from(MAX_LEVEL)) as u8
    }

    /// Inserts `node` (its vector is `points.vector(node)`); a node already in the graph is left
    /// as it is.
    pub fn insert<P: Points + ?Sized>(&mut self, points: &P, node: usize) {
        let Ok(id) = u32::try_from(node) else { return };
        if id == NONE {
            return;
        }
        self.cover(node + 1);
        if self.levels[node] != ABSENT {
            return;
        }
        let level = self.draw_level();
        self.levels[node] = level;
        if level > 0 {
            self.upper
                .insert(id, vec![NONE; level as usize * self.m].into_boxed_slice());
        }
        if self.entry == NONE {
            self.entry = id;
            self.top = level;
            return;
        }
        let query = points.vector(node);
        let mut visited = Visited::new(self.nodes());
        let mut entries = vec![Near(
            points.similarity(self.entry as usize, &query),
            self.entry,
        )];
        for layer in (level.saturating_add(1)..=self.top).rev() {
            entries = self.search_layer(points, &query, &entries, 1, layer, &mut visited, None);
            visited = Visited::new(self.nodes());
        }
        for layer in (0..=level.min(self.top)).rev() {
            let found = self.search_layer(
                points,
                &query,
                &entries,
                self.ef_construction,
                layer,
                &mut visited,
                None,
            );
            visited = Visited::new(self.nodes());
            let chosen = self.select(points, &found, self.capacity(layer));
            let ids: Vec<u32> = chosen.iter().map(|n| n.1).collect();
            self.set_links(id, layer, &ids);
            for &Near(sim, other) in &chosen {
                self.link_back(points, other, id, sim, layer);
            }
            entries = found;
        }
        if level > self.top {
            self.entry = id;
            self.top = level;
        }
    }

    /// Adds `new` to `node`'s list at `layer`, shrinking the list with the heuristic when full.
    fn link_back<P: Points + ?Sized>(
        &mut self,
        points: &P,
        node: u32,
        new: u32,
        sim: f32,
        layer: u8,
    ) {
        let cap = self.capacity(layer);
        let current = self.links(node, layer).to_vec();
        if current.contains(&new) {
            return;
        }
        if current.len() < cap {
            let mut next = current;
            next.push(new);
            self.set_links(node, layer, &next);
            return;
        }
        let mut candidates: Vec<Near> = current
            .iter()
            .map(|&o| Near(points.node_similarity(node as usize, o as usize), o))
            .collect();
        candidates.push(Near(sim, new));
        candidates.sort_by(|a, b| b.cmp(a));
        let chosen = self.select(points, &candidates, cap);
        let ids: Vec<u32> = chosen.iter().map(|n| n.1).collect();
        self.set_links(node, layer, &ids);
    }

    /// The paper's heuristic (algorithm 4) over `candidates` (best first): a candidate is kept
    /// when it is nearer to the base than to every candidate kept before it, up to `cap`.
    fn select<P: Points + ?Sized>(&self, points: &P, candidates: &[Near], cap: usize) -> Vec<Near> {
        let mut kept: Vec<Near> = Vec::with_capacity(cap);
        for &c in candidates {
            if kept.len() >= cap {
                break;
            }
            let diverse = kept
                .iter()
                .all(|k| points.node_similarity(c.1 as usize, k.1 as usize) < c.0);
            if diverse {
                kept.push(c);
            }
        }
        kept
    }

    /// The layer search (algorithm 2): the `ef` nodes nearest to `query` reachable at `layer`
    /// from `entries`, best first. With `accept`, only accepted nodes are results (the search
    /// still walks through the others).
    #[allow(clippy::too_many_arguments)]
    fn search_layer<P: Points + ?Sized>(
        &self,
        points: &P,
        query: &[f32],
        entries: &[Near],
        ef: usize,
        layer: u8,
        visited: &mut Visited,
        accept: Option<&dyn Fn(usize) -> bool>,
    ) -> Vec<Near> {
        let ok = |n: u32| accept.is_none_or(|f| f(n as usize));
        let mut candidates: BinaryHeap<Near> = BinaryHeap::new();
        let mut results: BinaryHeap<Reverse<Near>> = BinaryHeap::new();
        for &e in entries {
            if visited.insert(e.1) {
                candidates.push(e);
                if ok(e.1) {
                    results.push(Reverse(e));
                    if results.len() > ef {
                        results.pop();
                    }
                }
            }
        }
        while let Some(c) = candidates.pop() {
            if results.len() >= ef
                && let Some(Reverse(worst)) = results.peek()
                && c.0 < worst.0
            {
                break;
            }
            for &n in self.links(c.1, layer) {
                if !visited.insert(n) {
                    continue;
                }
                let sim = points.similarity(n as usize, query);
                let worst = results.peek().map(|r| r.0.0);
                if results.len() < ef || worst.is_none_or(|w| sim > w) {
                    candidates.push(Near(sim, n));
                    if ok(n) {
                        results.push(Reverse(Near(sim, n)));
                        if results.len() > ef {
                            results.pop();
                        }
                    }
                }
            }
        }
        let mut out: Vec<Near> = results.into_iter().map(|r| r.0).collect();
        out.sort_by(|a, b| b.cmp(a));
        out
    }

    /// The `k` nodes nearest to `query` (algorithm 5) with a candidate list of `max(ef, k)`,
    /// best first, as `(node, similarity)`; with `accept`, only nodes it accepts.
    pub fn search<P: Points + ?Sized>(
        &self,
        points: &P,
        query: &[f32],
        k: usize,
        ef: usize,
        accept: Option<&dyn Fn(usize) -> bool>,
    ) -> Vec<(usize, f32)> {
        if self.entry == NONE || k == 0 {
            return Vec::new();
        }
        let mut entries = vec![Near(
            points.similarity(self.entry as usize, query),
            self.entry,
        )];
        for layer in (1..=self.top).rev() {
            let mut visited = Visited::new(self.nodes());
            entries = self.search_layer(points, query, &entries, 1, layer, &mut visited, None);
        }
        let mut visited = Visited::new(self.nodes());
        let found = self.search_layer(points, query, &entries, ef.max(k), 0, &mut visited, accept);
        found
            .into_iter()
            .take(k)
            .map(|n| (n.1 as usize, n.0))
            .collect()
    }

    /// The graph as bytes (little-endian): magic, `m`, `ef_construction`, nodes, entry, top
    /// level, the levels, layer 0, the upper lists in node order, CRC-32 of all before.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let upper_len: usize = self.upper.values().map(|l| l.len()).sum();
        let mut out =
            Vec::with_capacity(40 + self.levels.len() + 4 * (self.layer0.len() + upper_len));
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(self.m as u32).to_le_bytes());
        out.extend_from_slice(&(self.ef_construction as u32).to_le_bytes());
        out.extend_from_slice(&(self.levels.len() as u64).to_le_bytes());
        out.extend_from_slice(&self.entry.to_le_bytes());
        out.push(self.top);
        out.extend_from_slice(&self.levels);
        for x in &self.layer0 {
            out.extend_from_slice(&x.to_le_bytes());
        }
        for (node, &level) in self.levels.iter().enumerate() {
            if level != ABSENT && level > 0 {
                let list = &self.upper[&(node as u32)];
                for x in list.iter() {
                    out.extend_from_slice(&x.to_le_bytes());
                }
            }
        }
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// A graph from [`Self::to_bytes`]' output; `None` when the bytes are not such a graph
    /// (another format, truncated, a bad checksum, a link or level out of range).
    #[must_use]
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        let (body, crc) = bytes.split_at_checked(bytes.len().checked_sub(4)?)?;
        if crc32fast::hash(body).to_le_bytes() != crc {
            return None;
        }
        let mut r = Reader(body);
        if r.take(8)? != MAGIC {
            return None;
        }
        let m = r.u32()? as usize;
        let ef_construction = r.u32()? as usize;
        let nodes = usize::try_from(r.u64()?).ok()?;
        let entry = r.u32()?;
        let top = r.take(1)?[0];
        if !(2..=1024).contains(&m) || nodes >= NONE as usize || top > MAX_LEVEL {
            return None;
        }
        let mut graph = Self::new(m, ef_construction);
        graph.levels = r.take(nodes)?.to_vec();
        graph.layer0 = r.u32s(nodes.checked_mul(graph.m0)?)?;
        for (node, &level) in graph.levels.iter().enumerate() {
            if level == ABSENT || level == 0 {
                continue;
            }
            if level > top {
                return None;
            }
            let list = r.u32s(level as usize * m)?;
            graph.upper.insert(node as u32, list.into_boxed_slice());
        }
        if !r.0.is_empty() {
            return None;
        }
        let in_range = |x: u32| x == NONE || (x as usize) < nodes;
        if !graph.layer0.iter().all(|&x| in_range(x))
            || !graph.upper.values().flatten().all(|&x| in_range(x))
        {
            return None;
        }
        match entry {
            NONE if graph.levels.iter().all(|&l| l == ABSENT) => {}
            NONE => return None,
            e if (e as usize) < nodes && graph.levels[e as usize] == top => {}
            _ => return None,
        }
        graph.entry = entry;
        graph.top = top;
        // Continue the level draws where a graph of this many nodes would be.
        graph.rng = graph
            .rng
            .wrapping_add((nodes as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        Some(graph)
    }
}

/// [`Points`] over a plain `f32` matrix, `dims` components a row (the vector benchmark, tests).
#[derive(Debug, Clone, Copy)]
pub struct F32Rows<'a> {
    data: &'a [f32],
    dims: usize,
}

impl<'a> F32Rows<'a> {
    /// The rows of `data`, `dims` components each.
    #[must_use]
    pub fn new(data: &'a [f32], dims: usize) -> Self {
        Self { data, dims }
    }

    /// Row `i`.
    #[must_use]
    pub fn row(&self, i: usize) -> &'a [f32] {
        &self.data[i * self.dims..(i + 1) * self.dims]
    }
}

impl Points for F32Rows<'_> {
    fn similarity(&self, node: usize, query: &[f32]) -> f32 {
        super::dot(self.row(node), query)
    }

    fn node_similarity(&self, a: usize, b: usize) -> f32 {
        super::dot(self.row(a), self.row(b))
    }

    fn vector(&self, node: usize) -> Vec<f32> {
        self.row(node).to_vec()
    }
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn u32s(&mut self, n: usize) -> Option<Vec<u32>> {
        let bytes = self.take(n.checked_mul(4)?)?;
        Some(
            bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `f32` vectors of `dims` components, row by row.
    struct Plain {
        dims: usize,
        data: Vec<f32>,
    }

    impl Plain {
        fn points(&self) -> F32Rows<'_> {
            F32Rows::new(&self.data, self.dims)
        }

        fn row(&self, i: usize) -> &[f32] {
            self.points().row(i)
        }
    }

    fn rng(seed: &mut u64) -> f32 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        (*seed >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    }

    /// `n` unit vectors in `clusters` tight clusters, cluster by cluster (how slots arrive:
    /// sorted by text length, similar texts together).
    fn clustered(n: usize, clusters: usize, dims: usize) -> Plain {
        let mut seed = 0x1234_5678_9abc_def1u64;
        let centres: Vec<Vec<f32>> = (0..clusters)
            .map(|_| (0..dims).map(|_| rng(&mut seed)).collect())
            .collect();
        let mut data = Vec::with_capacity(n * dims);
        for i in 0..n {
            let c = &centres[i * clusters / n];
            let mut v: Vec<f32> = c.iter().map(|x| x + 0.08 * rng(&mut seed)).collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.iter_mut().for_each(|x| *x /= norm);
            data.extend(v);
        }
        Plain { dims, data }
    }

    fn exact(p: &Plain, q: &[f32], k: usize, accept: &dyn Fn(usize) -> bool) -> Vec<usize> {
        let n = p.data.len() / p.dims;
        let mut all: Vec<(usize, f32)> = (0..n)
            .filter(|&i| accept(i))
            .map(|i| (i, p.points().similarity(i, q)))
            .collect();
        all.sort_by(|a, b| b.1.total_cmp(&a.1));
        all.into_iter().take(k).map(|x| x.0).collect()
    }

    fn build(p: &Plain) -> Hnsw {
        let mut g = Hnsw::new(16, 200);
        for i in 0..p.data.len() / p.dims {
            g.insert(&p.points(), i);
        }
        g
    }

    fn recall(g: &Hnsw, p: &Plain, accept: Option<&dyn Fn(usize) -> bool>) -> f64 {
        let n = p.data.len() / p.dims;
        let all = |_: usize| true;
        let filter = accept.unwrap_or(&all);
        let (mut hit, mut total) = (0usize, 0usize);
        for qi in (0..n).step_by(37) {
            let q = p.row(qi);
            let truth = exact(p, q, 10, filter);
            let got: Vec<usize> = g
                .search(&p.points(), q, 10, 64, accept)
                .into_iter()
                .map(|x| x.0)
                .collect();
            assert!(
                got.iter().all(|&x| filter(x)),
                "a rejected node was returned"
            );
            hit += truth.iter().filter(|t| got.contains(t)).count();
            total += truth.len();
        }
        hit as f64 / total as f64
    }

    #[test]
    fn recall_at_10_against_the_exact_answer() {
        let p = clustered(3_000, 40, 48);
        let g = build(&p);
        assert_eq!(g.inserted(), 3_000);
        let r = recall(&g, &p, None);
        assert!(r >= 0.95, "recall@10 {r}");
        // Half the nodes rejected (dead slots): results only among the others, recall holds.
        let odd = |i: usize| i % 2 == 1;
        let r = recall(&g, &p, Some(&odd));
        assert!(r >= 0.9, "filtered recall@10 {r}");
    }

    #[test]
    fn every_node_is_reachable() {
        // Tight clusters inserted one after another (as slots arrive, sorted by text length):
        // every node must still be found as its own nearest neighbour (hnsw_rs without
        // `extend_candidates` left some without in-links).
        let p = clustered(2_000, 200, 16);
        let g = build(&p);
        for i in 0..2_000 {
            let got = g.search(&p.points(), p.row(i), 1, 64, None);
            let sim = got.first().map(|x| x.1);
            assert!(
                sim.is_some_and(|s| s >= p.points().similarity(i, p.row(i)) - 1e-6),
                "node {i} not found as its own nearest: {got:?}"
            );
        }
    }

    /// `n` unit vectors in a narrow cone, as text embeddings are (two unrelated texts of
    /// multilingual-e5 have a cosine of about 0.7-0.8): a shared direction, a cluster's direction
    /// and noise.
    fn cone(n: usize, clusters: usize, dims: usize, seed: &mut u64) -> Vec<f32> {
        let shared: Vec<f32> = (0..dims).map(|i| if i == 0 { 1.0 } else { 0.0 }).collect();
        let centres: Vec<Vec<f32>> = (0..clusters)
            .map(|_| (0..dims).map(|_| rng(seed)).collect())
            .collect();
        let mut data = Vec::with_capacity(n * dims);
        for i in 0..n {
            let c = &centres[i * clusters / n];
            let mut v: Vec<f32> = (0..dims)
                .map(|d| 2.0 * shared[d] + 0.6 * c[d] + 0.25 * rng(seed))
                .collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.iter_mut().for_each(|x| *x /= norm);
            data.extend(v);
        }
        data
    }

    #[test]
    fn nodes_inserted_into_a_grown_graph_are_found() {
        // A graph built whole, then one node at a time off its clusters (an edit's new chunk in
        // a fully embedded repository): each must be found as its own nearest.
        let dims = 32;
        let mut seed = 0x5eed_u64;
        let mut p = Plain {
            dims,
            data: cone(4_000, 40, dims, &mut seed),
        };
        let mut g = build(&p);
        let mut missed = Vec::new();
        for i in 0..40 {
            let v = cone(1, 1, dims, &mut seed);
            p.data.extend(&v);
            let node = 4_000 + i;
            g.insert(&p.points(), node);
            let got = g.search(&p.points(), &v, 1, 64, None);
            if got.first().map(|x| x.0) != Some(node) {
                missed.push(node);
            }
        }
        assert!(missed.is_empty(), "new nodes not found: {missed:?}");
    }

    #[test]
    fn links_stay_within_capacity_and_in_range() {
        let p = clustered(1_500, 30, 24);
        let g = build(&p);
        for node in 0..g.nodes() as u32 {
            let level = g.levels[node as usize];
            for layer in 0..=level {
                let links = g.links(node, layer);
                assert!(links.len() <= g.capacity(layer));
                assert!(links.iter().all(|&x| (x as usize) < g.nodes() && x != node));
                let mut sorted = links.to_vec();
                sorted.sort_unstable();
                sorted.dedup();
                assert_eq!(
                    sorted.len(),
                    links.len(),
                    "duplicate link at {node}/{layer}"
                );
            }
        }
        assert!(g.heap_bytes() < 1_500 * (4 * 32 + 1) * 2);
    }

    #[test]
    fn bytes_round_trip_and_damage_is_refused() {
        let p = clustered(800, 20, 16);
        let mut g = build(&p);
        g.cover(805); // absent nodes at the end
        let bytes = g.to_bytes();
        let back = Hnsw::from_bytes(&bytes).expect("intact bytes load");
        assert_eq!(back.levels, g.levels);
        assert_eq!(back.layer0, g.layer0);
        assert_eq!(back.upper, g.upper);
        assert_eq!((back.entry, back.top, back.m), (g.entry, g.top, g.m));
        assert_eq!(
            back.search(&p.points(), p.row(5), 10, 64, None),
            g.search(&p.points(), p.row(5), 10, 64, None)
        );
        assert!(Hnsw::from_bytes(&bytes[..bytes.len() - 1]).is_none());
        assert!(Hnsw::from_bytes(&bytes[..bytes.len() / 2]).is_none());
        assert!(Hnsw::from_bytes(&[]).is_none());
        let mut flipped = bytes.clone();
        flipped[100] ^= 1;
        assert!(Hnsw::from_bytes(&flipped).is_none());
        // A consistent checksum over an out-of-range link is still refused.
        let mut bad = bytes[..bytes.len() - 4].to_vec();
        let at = 8 + 4 + 4 + 8 + 4 + 1 + back.levels.len();
        bad[at..at + 4].copy_from_slice(&10_000u32.to_le_bytes());
        let crc = crc32fast::hash(&bad);
        bad.extend_from_slice(&crc.to_le_bytes());
        assert!(Hnsw::from_bytes(&bad).is_none());
        // The empty graph.
        let empty = Hnsw::new(16, 200);
        assert_eq!(Hnsw::from_bytes(&empty.to_bytes()), Some(empty));
    }

    #[test]
    fn a_reloaded_graph_extends_like_a_live_one() {
        let p = clustered(1_200, 20, 16);
        let mut g = Hnsw::new(16, 200);
        for i in 0..600 {
            g.insert(&p.points(), i);
        }
        let mut back = Hnsw::from_bytes(&g.to_bytes()).unwrap();
        for i in 600..1_200 {
            back.insert(&p.points(), i);
        }
        assert_eq!(back.inserted(), 1_200);
        assert!(recall(&back, &p, None) >= 0.95);
        // Inserting a node twice changes nothing.
        let before = back.clone();
        back.insert(&p.points(), 3);
        assert_eq!(back, before);
    }
}
