//! What the fake-embedder vector tests share (`mod fake;` in core/tests/vector_index.rs and
//! core/tests/query_embed.rs): a [`FakeEmbedder`] that records every passage it embeds, and files
//! written with an old modification time.

use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use code_intel_core::embed::{EmbedError, Embedder, FakeEmbedder};

/// Dimensions of the fake vectors.
pub const DIMS: usize = 64;

/// A [`FakeEmbedder`] of [`DIMS`] dimensions that records every passage it embeds.
pub struct Counting {
    inner: FakeEmbedder,
    passages: Mutex<Vec<String>>,
}

impl Counting {
    /// An embedder that has recorded nothing.
    pub fn new() -> Self {
        Self {
            inner: FakeEmbedder::new(DIMS),
            passages: Mutex::new(Vec::new()),
        }
    }

    /// The passages embedded since the last call, in order.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.passages.lock().unwrap())
    }
}

impl Default for Counting {
    fn default() -> Self {
        Self::new()
    }
}

impl Embedder for Counting {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }
    fn dims(&self) -> usize {
        DIMS
    }
    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.inner.embed_queries(texts)
    }
    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.passages
            .lock()
            .unwrap()
            .extend(texts.iter().map(|t| t.to_string()));
        self.inner.embed_passages(texts)
    }
}

/// Writes `content` to `root/path` (parents created) and dates it an hour back, so the sync's
/// racy-mtime rule does not force re-hashing.
pub fn write_old(root: &Path, path: &str, content: &str) {
    let p = root.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, content).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&p)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(3600))
        .unwrap();
}
