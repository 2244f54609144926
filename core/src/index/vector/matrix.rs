//! The slot vectors in memory, scalar-quantised: each vector as `dims` signed bytes and one `f32`
//! scale (`v ≈ scale × codes`, `scale = max |vᵢ| / 127`), a quarter of the `f32` matrix it
//! replaced (spring-framework fully embedded: 143k × 384 components, 55 MiB instead of 220).
//! Queries stay `f32` and are multiplied with the codes (asymmetric): the only error is the
//! stored side's rounding, at most `scale / 2` per component. The full-precision vectors stay in
//! the embedding cache on disk.

/// `slots × dims` int8 codes and one scale per slot.
#[derive(Debug, Clone, Default)]
pub(super) struct Matrix {
    dims: usize,
    codes: Vec<i8>,
    scales: Vec<f32>,
}

impl Matrix {
    /// An empty matrix of `dims`-component vectors with room for `n`.
    pub(super) fn with_capacity(dims: usize, n: usize) -> Self {
        Self {
            dims,
            codes: Vec::with_capacity(n * dims),
            scales: Vec::with_capacity(n),
        }
    }

    /// Slots held.
    pub(super) fn len(&self) -> usize {
        self.scales.len()
    }

    /// Appends `v` (`dims` components) quantised.
    pub(super) fn push(&mut self, v: &[f32]) {
        debug_assert_eq!(v.len(), self.dims);
        let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        if max == 0.0 || !max.is_finite() {
            self.push_zero();
            return;
        }
        let scale = max / 127.0;
        let inv = 127.0 / max;
        self.codes.extend(
            v.iter()
                .map(|x| (x * inv).round().clamp(-127.0, 127.0) as i8),
        );
        self.scales.push(scale);
    }

    /// Appends a zero vector (a slot whose vector was lost).
    pub(super) fn push_zero(&mut self) {
        self.codes.extend(std::iter::repeat_n(0i8, self.dims));
        self.scales.push(0.0);
    }

    /// Appends slot `slot` of `other` as it is.
    pub(super) fn push_from(&mut self, other: &Matrix, slot: usize) {
        self.codes.extend_from_slice(other.codes(slot));
        self.scales.push(other.scales[slot]);
    }

    fn codes(&self, slot: usize) -> &[i8] {
        &self.codes[slot * self.dims..(slot + 1) * self.dims]
    }

    /// The vector of `slot`, dequantised.
    pub(super) fn get(&self, slot: usize) -> Vec<f32> {
        let s = self.scales[slot];
        self.codes(slot).iter().map(|&c| f32::from(c) * s).collect()
    }

    /// `query · vector(slot)`.
    pub(super) fn dot(&self, slot: usize, query: &[f32]) -> f32 {
        dot_i8(query, self.codes(slot)) * self.scales[slot]
    }

    /// `query · vector(slot)` for every slot, in slot order.
    pub(super) fn dots<'a>(&'a self, query: &'a [f32]) -> impl Iterator<Item = f32> + 'a {
        self.codes
            .chunks_exact(self.dims.max(1))
            .zip(&self.scales)
            .map(move |(c, s)| dot_i8(query, c) * s)
    }
}

impl super::hnsw::Points for Matrix {
    fn similarity(&self, node: usize, query: &[f32]) -> f32 {
        self.dot(node, query)
    }

    fn node_similarity(&self, a: usize, b: usize) -> f32 {
        let dot: i32 = self
            .codes(a)
            .iter()
            .zip(self.codes(b))
            .map(|(&x, &y)| i32::from(x) * i32::from(y))
            .sum();
        dot as f32 * self.scales[a] * self.scales[b]
    }

    fn vector(&self, node: usize) -> Vec<f32> {
        self.get(node)
    }
}

/// `Σ qᵢ·cᵢ` with eight independent accumulators, so the compiler vectorises it.
fn dot_i8(q: &[f32], c: &[i8]) -> f32 {
    let n = q.len().min(c.len());
    let (q, c) = (&q[..n], &c[..n]);
    let mut acc = [0.0f32; 8];
    let chunks = n / 8;
    for i in 0..chunks {
        let (x, y) = (&q[i * 8..i * 8 + 8], &c[i * 8..i * 8 + 8]);
        for j in 0..8 {
            acc[j] += x[j] * f32::from(y[j]);
        }
    }
    let mut sum: f32 = acc.iter().sum();
    for i in chunks * 8..n {
        sum += q[i] * f32::from(c[i]);
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(seed: u32, dims: usize) -> Vec<f32> {
        let mut x = seed.wrapping_mul(2_654_435_761).max(1);
        let mut v: Vec<f32> = (0..dims)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                (x as f32 / u32::MAX as f32) - 0.5
            })
            .collect();
        let n = v.iter().map(|a| a * a).sum::<f32>().sqrt();
        v.iter_mut().for_each(|a| *a /= n);
        v
    }

    #[test]
    fn quantised_dots_stay_within_the_rounding_bound() {
        let dims = 384;
        let mut m = Matrix::with_capacity(dims, 50);
        let vs: Vec<Vec<f32>> = (1..=50).map(|s| unit(s, dims)).collect();
        for v in &vs {
            m.push(v);
        }
        m.push_zero();
        assert_eq!(m.len(), 51);
        let q = unit(999, dims);
        for (slot, (v, got)) in vs.iter().zip(m.dots(&q)).enumerate() {
            let exact: f32 = v.iter().zip(&q).map(|(a, b)| a * b).sum();
            // |error| ≤ Σ |qᵢ| × scale / 2
            let bound = q.iter().map(|x| x.abs()).sum::<f32>() * m.scales[slot] / 2.0;
            assert!((got - exact).abs() <= bound + 1e-6, "{got} vs {exact}");
            assert!((m.dot(slot, &q) - got).abs() < 1e-6);
            let back = m.get(slot);
            let err = back
                .iter()
                .zip(v)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f32::max);
            assert!(err <= m.scales[slot] / 2.0 + 1e-7);
        }
        assert_eq!(m.dot(50, &q), 0.0);
        use super::super::hnsw::Points as _;
        for (a, b) in [(0, 1), (3, 3), (7, 49)] {
            let exact: f32 = vs[a].iter().zip(&vs[b]).map(|(x, y)| x * y).sum();
            assert!((m.node_similarity(a, b) - exact).abs() < 0.01, "{a} {b}");
        }
        let mut copy = Matrix::with_capacity(dims, 1);
        copy.push_from(&m, 7);
        assert_eq!(copy.get(0), m.get(7));
    }
}
