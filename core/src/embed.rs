//! Text embeddings: the [`Embedder`] trait, its production implementation over fastembed and
//! ONNX Runtime ([`FastEmbedder`]), a deterministic fake for tests ([`FakeEmbedder`]), the
//! provisioned model's files ([`ModelPaths`]), embedding text for symbols ([`split_identifiers`]) and
//! the on-disk cache of chunk vectors ([`EmbeddingCache`]).
//!
//! Every vector an [`Embedder`] returns has [`Embedder::dims`] components and unit L2 norm, so the
//! cosine similarity of two vectors is their dot product ([`dot`]). With multilingual-e5-small every
//! pair of texts scores roughly 0.76–0.92 (shared/docs/EMBEDDINGS.md), so callers compare scores
//! relative to each other, never against fixed thresholds.
//!
//! Nothing here reads environment variables: the caller resolves the model cache directory and
//! passes it in ([`ModelPaths::in_cache`]).

mod cache;
mod fake;
mod identifiers;
pub(crate) mod key_table;
mod model;
mod onnx;
mod unigram;

pub use cache::{CacheError, CacheOpen, EmbeddingCache};
pub use fake::FakeEmbedder;
pub use identifiers::{for_each_identifier_word, split_identifiers};
pub use model::{ModelFile, ModelManifest, ModelPaths};
pub use onnx::{DEFAULT_BATCH_TOKENS, FastEmbedOptions, FastEmbedder, LoadTimings};
pub use unigram::{CompactTokenizer, CompactUnigram, UnigramError};

use std::path::PathBuf;

/// Turns texts into unit-length vectors; the seam between the index and the model.
///
/// Implementations are shared between threads (the MCP server embeds in the background while it
/// answers queries) and are synchronous.
///
/// Shapes: the `i`-th output vector belongs to the `i`-th input text; every vector has
/// [`Embedder::dims`] `f32` components and L2 norm 1 (± 1e-5), so cosine = [`dot`].
pub trait Embedder: Send + Sync {
    /// Identifies the model and its exact weights, e.g. `multilingual-e5-small@52be70567067`.
    ///
    /// Part of the embedding cache key: two embedders with the same id produce the same vectors.
    fn model_id(&self) -> &str;

    /// Number of components of every vector (384 for multilingual-e5-small).
    fn dims(&self) -> usize;

    /// Embeds search queries (e5 models: each text gets the `"query: "` prefix).
    ///
    /// # Errors
    /// [`EmbedError::Inference`] when the runtime fails; an empty input gives an empty output.
    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;

    /// Embeds documents: chunks, symbols (e5 models: each text gets the `"passage: "` prefix).
    ///
    /// # Errors
    /// [`EmbedError::Inference`] when the runtime fails; an empty input gives an empty output.
    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// Why a model could not be found, verified, loaded or run. Every message names the fix.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// The model directory has no readable `manifest.json`: nothing (or an incomplete install) is
    /// provisioned there.
    #[error(
        "no embedding model installed in {dir} (missing or unreadable manifest.json): run `code-intel model fetch`"
    )]
    NotInstalled {
        /// The model directory.
        dir: PathBuf,
        /// The I/O or parse error.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// `manifest.json` parses but does not describe a usable model (unknown schema, no files).
    #[error("invalid model manifest {path}: {reason}: run `code-intel model fetch --force`")]
    BadManifest {
        /// The manifest file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A file the manifest lists is missing or its size or sha256 differs from the recorded one.
    #[error("model file {path} is {problem}: run `code-intel model fetch --force`")]
    FileMismatch {
        /// The file.
        path: PathBuf,
        /// `missing`, `unreadable`, `N bytes, expected M` or `corrupt (sha256 mismatch)`.
        problem: String,
    },
    /// The ONNX Runtime shared library could not be loaded (missing, wrong architecture, or older
    /// than the 1.24 that ort 2.0.0-rc.15 requires).
    #[error(
        "cannot load ONNX Runtime from {path}: {reason}: run `code-intel model fetch` (needs ONNX Runtime >= 1.24)"
    )]
    Runtime {
        /// The library path.
        path: PathBuf,
        /// The loader's message.
        reason: String,
    },
    /// The runtime loaded but the model or tokenizer did not (bad ONNX graph, bad tokenizer files).
    #[error(
        "cannot load the embedding model from {dir}: {reason}: run `code-intel model fetch --force`"
    )]
    Load {
        /// The model directory.
        dir: PathBuf,
        /// fastembed's message.
        reason: String,
    },
    /// fastembed's online path could not resolve or download a model (opt-in `embed-online`).
    #[error(
        "cannot get {model} from the Hugging Face Hub into {dir}: {reason}: check access to huggingface.co, or run `code-intel model fetch` without --online"
    )]
    Download {
        /// The model name asked for.
        model: String,
        /// The download directory.
        dir: PathBuf,
        /// fastembed's message, or the known model names.
        reason: String,
    },
    /// Running the model failed.
    #[error("embedding failed: {reason}")]
    Inference {
        /// fastembed's or ONNX Runtime's message.
        reason: String,
    },
    /// The model returned vectors of another size than the manifest declares.
    #[error(
        "the model returned {got}-dimensional vectors, its manifest declares {expected}: run `code-intel model fetch --force`"
    )]
    Dims {
        /// Declared dimensions.
        expected: usize,
        /// Returned dimensions.
        got: usize,
    },
}

/// The dot product of two vectors of equal length; the cosine similarity for unit vectors.
///
/// Range: [-1, 1] for unit vectors. Components beyond the shorter vector's length are ignored.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Scales `v` to unit L2 norm in place; a zero vector stays zero.
pub fn normalise(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}
