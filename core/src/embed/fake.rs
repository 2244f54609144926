//! The deterministic fake embedder: hashed word and character-trigram features, for unit tests of
//! everything built on [`Embedder`] without a model.

use super::{EmbedError, Embedder, normalise, split_identifiers};

/// A deterministic [`Embedder`] without a model: texts that share words score higher.
///
/// Algorithm (feature hashing, Weinberger et al. 2009, "Feature Hashing for Large Scale Multitask
/// Learning"): the text goes through [`split_identifiers`]; every word adds weight 1.0 and every
/// character trigram of `#word#` adds 0.5 to the bucket `fnv1a(feature) mod dims`, with the sign taken
/// from another bit of the hash; the sum is L2-normalised. A text without words maps to a fixed unit
/// vector. Queries and passages are embedded alike (no prefixes), so identical texts score 1.0.
///
/// Same input, same output, on every platform and run (FNV-1a 64 is specified bit for bit).
#[derive(Debug, Clone)]
pub struct FakeEmbedder {
    dims: usize,
    id: String,
}

impl FakeEmbedder {
    /// A fake with `dims` components per vector (at least 1; 0 is treated as 1).
    pub fn new(dims: usize) -> Self {
        let dims = dims.max(1);
        Self {
            dims,
            id: format!("fake-hash-v1@{dims}"),
        }
    }

    /// Embeds one text (see the type's docs for the algorithm).
    pub fn embed_one(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0.0f32; self.dims];
        let words = split_identifiers(text);
        let mut add = |feature: &[u8], weight: f32| {
            let h = fnv1a(feature);
            let bucket = (h % self.dims as u64) as usize;
            let sign = if h >> 63 == 0 { 1.0 } else { -1.0 };
            v[bucket] += sign * weight;
        };
        let mut any = false;
        for word in words.split(' ').filter(|w| !w.is_empty()) {
            any = true;
            add(word.as_bytes(), 1.0);
            let padded: Vec<char> = std::iter::once('#')
                .chain(word.chars())
                .chain(std::iter::once('#'))
                .collect();
            for tri in padded.windows(3) {
                let s: String = tri.iter().collect();
                add(format!("3:{s}").as_bytes(), 0.5);
            }
        }
        if !any {
            add(b"<empty>", 1.0);
        }
        normalise(&mut v);
        v
    }
}

/// FNV-1a, 64-bit (Fowler, Noll, Vo; offset basis 0xcbf29ce484222325, prime 0x100000001b3).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl Embedder for FakeEmbedder {
    fn model_id(&self) -> &str {
        &self.id
    }

    fn dims(&self) -> usize {
        self.dims
    }

    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts.iter().map(|t| self.embed_one(t)).collect())
    }

    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts.iter().map(|t| self.embed_one(t)).collect())
    }
}
