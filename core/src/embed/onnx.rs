//! The production [`Embedder`]: fastembed's `TextEmbedding` over ONNX Runtime, which is loaded from
//! a path at run time (`ort::init_from`), with the model files provisioned by `code-intel model fetch`.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use fastembed::{
    InitOptionsUserDefined, Pooling, TextEmbedding, TokenizerFiles, UserDefinedEmbeddingModel,
};
use ort::environment::Environment;

use super::{EmbedError, Embedder, ModelManifest, ModelPaths, normalise};

/// How [`FastEmbedder`] runs the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FastEmbedOptions {
    /// ONNX Runtime intra-op threads; `None` uses every available core (fastembed's default).
    /// The MCP server embeds in the background with fewer threads so queries stay responsive.
    pub intra_threads: Option<usize>,
    /// Texts per inference call. 8 by default: shared/docs/EMBEDDINGS.md measured batch 8 leaner
    /// and faster than 32 for ~200-token code chunks (less padding, less memory held).
    pub batch_size: usize,
    /// Whether ONNX Runtime's intra-op worker threads spin while waiting for work
    /// (`session.intra_op.allow_spinning`, ONNX Runtime's default: on). Spinning trades CPU for
    /// latency; on a busy machine it steals cores from everything else, so it is off by default
    /// here (docs/MODEL.md, Rust section, has the measurements).
    pub spinning: bool,
}

impl Default for FastEmbedOptions {
    fn default() -> Self {
        Self {
            intra_threads: None,
            batch_size: 8,
            spinning: false,
        }
    }
}

/// How long each step of [`FastEmbedder::load`] took.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LoadTimings {
    /// Loading the ONNX Runtime library and creating its environment (zero when already loaded).
    pub runtime: Duration,
    /// Reading the model and tokenizer files.
    pub read: Duration,
    /// Building the ONNX Runtime session and the tokenizer.
    pub session: Duration,
}

/// fastembed's `TextEmbedding` behind the [`Embedder`] trait, for a model described by a
/// `manifest.json` (see [`ModelPaths`]).
///
/// - Prefixes from the manifest (`"query: "`, `"passage: "` for e5) are added to every text.
/// - Pooling from the manifest (`mean` for e5: the graph outputs `last_hidden_state`, and fastembed's
///   default for user-defined models would be CLS); fastembed L2-normalises after pooling.
/// - Texts are sorted by length and embedded [`FastEmbedOptions::batch_size`] at a time, one
///   inference call per batch: sorting cuts padding, and separate calls keep only one batch's
///   token outputs in memory (shared/docs/EMBEDDINGS.md). Texts longer than the model's
///   `max_length` tokens (512) are truncated.
/// - Inference calls are serialised by a mutex (fastembed's `embed` takes `&mut self`), taken per
///   batch: a query issued while a long passage run is embedding waits for one batch (about 0.5 s
///   for 8 chunks of 200 tokens on one core), not for the run. ONNX Runtime parallelises inside a
///   call over [`FastEmbedOptions::intra_threads`].
pub struct FastEmbedder {
    model: Mutex<TextEmbedding>,
    id: String,
    dims: usize,
    query_prefix: String,
    passage_prefix: String,
    batch_size: usize,
    manifest: Option<ModelManifest>,
    timings: LoadTimings,
}

impl std::fmt::Debug for FastEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FastEmbedder")
            .field("id", &self.id)
            .field("dims", &self.dims)
            .field("batch_size", &self.batch_size)
            .finish_non_exhaustive()
    }
}

/// The one ONNX Runtime environment of this process and the library it came from: ONNX Runtime
/// allows one environment per process and `ort` loads one library per process.
static RUNTIME: Mutex<Option<(PathBuf, Environment)>> = Mutex::new(None);

/// Loads the ONNX Runtime library at `path` (once per process) and returns the environment.
///
/// Doing this ourselves instead of letting fastembed load `ORT_DYLIB_PATH` lazily turns a missing
/// or too-old library into an error instead of a panic (shared/docs/EMBEDDINGS.md).
fn runtime(path: &Path) -> Result<Environment, EmbedError> {
    let err = |reason: String| EmbedError::Runtime {
        path: path.to_path_buf(),
        reason,
    };
    let mut loaded = RUNTIME.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((loaded_path, env)) = loaded.as_ref() {
        if loaded_path == path {
            return Ok(env.clone());
        }
        return Err(err(format!(
            "another ONNX Runtime library ({}) is already loaded in this process",
            loaded_path.display()
        )));
    }
    // `ort` resolves relative paths against the executable's directory; require an absolute one.
    if !path.is_absolute() {
        return Err(err("the library path must be absolute".into()));
    }
    if !path.is_file() {
        return Err(err("no such file".into()));
    }
    let env = ort::init_from(path)
        .map_err(|e| err(e.to_string()))?
        .with_name("code-intel")
        .build()
        .map_err(|e| err(e.to_string()))?;
    *loaded = Some((path.to_path_buf(), env.clone()));
    Ok(env)
}

fn spin(options: &FastEmbedOptions) -> &'static str {
    if options.spinning { "1" } else { "0" }
}

impl FastEmbedder {
    /// Loads the model at `paths` with the runtime library at `paths.ort_dylib`.
    ///
    /// Checks the manifest and file sizes ([`ModelPaths::read_manifest`], no hashing; call
    /// [`ModelPaths::verify`] first for the hashes), loads the runtime (once per process), reads
    /// the files and builds the session. Takes 1.5–2.5 s and adds about 600 MiB RSS for
    /// multilingual-e5-small q4 (the 250k-piece tokenizer alone holds about 220 MB; docs/MODEL.md).
    ///
    /// # Errors
    /// [`EmbedError::NotInstalled`], [`EmbedError::BadManifest`], [`EmbedError::FileMismatch`]
    /// (install missing or damaged), [`EmbedError::Runtime`] (library missing, not ONNX Runtime,
    /// older than 1.24, or another library already loaded), [`EmbedError::Load`] (graph or tokenizer
    /// rejected).
    pub fn load(paths: &ModelPaths, options: &FastEmbedOptions) -> Result<Self, EmbedError> {
        let manifest = paths.read_manifest()?;
        let manifest_path = paths.manifest_path();
        let pooling = match manifest.pooling.as_str() {
            "mean" => Pooling::Mean,
            "cls" => Pooling::Cls,
            other => {
                return Err(EmbedError::BadManifest {
                    path: manifest_path,
                    reason: format!("unknown pooling {other:?} (expected mean or cls)"),
                });
            }
        };

        let t = Instant::now();
        let env = runtime(&paths.ort_dylib)?;
        let runtime_time = t.elapsed();

        let t = Instant::now();
        let read = |name: &str| -> Result<Vec<u8>, EmbedError> {
            let file = manifest.file(name, &manifest_path)?;
            std::fs::read(&file.path).map_err(|e| EmbedError::FileMismatch {
                path: file.path.clone(),
                problem: format!("unreadable ({e})"),
            })
        };
        let tokenizer_files = TokenizerFiles {
            tokenizer_file: read("tokenizer.json")?,
            config_file: read("config.json")?,
            special_tokens_map_file: read("special_tokens_map.json")?,
            tokenizer_config_file: read("tokenizer_config.json")?,
        };
        let onnx = read("model.onnx")?;
        let read_time = t.elapsed();

        let t = Instant::now();
        let model = UserDefinedEmbeddingModel::new(onnx, tokenizer_files).with_pooling(pooling);
        let mut init = InitOptionsUserDefined::new()
            .with_environment(env)
            .with_max_length(manifest.max_length)
            .with_session_config("session.intra_op.allow_spinning", spin(options));
        if let Some(n) = options.intra_threads {
            init = init.with_intra_threads(n.max(1));
        }
        let model = TextEmbedding::try_new_from_user_defined(model, init).map_err(|e| {
            EmbedError::Load {
                dir: paths.model_dir.clone(),
                reason: e.to_string(),
            }
        })?;
        let session_time = t.elapsed();

        Ok(Self {
            model: Mutex::new(model),
            id: manifest.model_id(),
            dims: manifest.dims,
            query_prefix: manifest.query_prefix.clone(),
            passage_prefix: manifest.passage_prefix.clone(),
            batch_size: options.batch_size.max(1),
            manifest: Some(manifest),
            timings: LoadTimings {
                runtime: runtime_time,
                read: read_time,
                session: session_time,
            },
        })
    }

    /// Loads one of fastembed's own models (for example `BGESmallENV15`, `AllMiniLML6V2`,
    /// `MultilingualE5Small`; names as fastembed's `EmbeddingModel` variants, case-insensitive),
    /// downloading it from the Hugging Face Hub into `download_dir` on first use. The opt-in online
    /// path for machines that reach the Hub; the runtime library still comes from `ort_dylib`.
    ///
    /// Prefixes: e5 models get `"query: "`/`"passage: "`; BGE English models get BGE's query
    /// instruction (`"Represent this sentence for searching relevant passages: "`, from the
    /// bge-small-en-v1.5 model card); others none. The model id is `<variant>@fastembed-7.5.0`.
    /// Note: the Hub client (hf-hub) reads `HF_HOME`/`HF_ENDPOINT`/token variables itself.
    ///
    /// # Errors
    /// [`EmbedError::Runtime`] as for [`Self::load`]; [`EmbedError::Download`] for an unknown name
    /// or a failed download (about 60 ms without access to the Hub).
    #[cfg(feature = "embed-online")]
    pub fn load_online(
        name: &str,
        download_dir: &Path,
        ort_dylib: &Path,
        options: &FastEmbedOptions,
    ) -> Result<Self, EmbedError> {
        use fastembed::{EmbeddingModel, TextInitOptions};
        let load_err = |reason: String| EmbedError::Download {
            model: name.to_owned(),
            dir: download_dir.to_path_buf(),
            reason,
        };
        let model: EmbeddingModel = name.parse().map_err(|e: String| {
            load_err(format!(
                "{e}; known models: {}",
                TextEmbedding::list_supported_models()
                    .iter()
                    .map(|m| format!("{:?}", m.model))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
        let dims = TextEmbedding::get_model_info(&model)
            .map_err(|e| load_err(e.to_string()))?
            .dim;
        let variant = format!("{model:?}");
        let (query_prefix, passage_prefix) = if variant.starts_with("MultilingualE5") {
            ("query: ", "passage: ")
        } else if variant.starts_with("BGE") && variant.contains("EN") {
            (
                "Represent this sentence for searching relevant passages: ",
                "",
            )
        } else {
            ("", "")
        };

        let t = Instant::now();
        let env = runtime(ort_dylib)?;
        let runtime_time = t.elapsed();
        let t = Instant::now();
        let mut init = TextInitOptions::new(model)
            .with_cache_dir(download_dir.to_path_buf())
            .with_environment(env)
            .with_show_download_progress(false)
            .with_session_config("session.intra_op.allow_spinning", spin(options));
        if let Some(n) = options.intra_threads {
            init = init.with_intra_threads(n.max(1));
        }
        let model = TextEmbedding::try_new(init).map_err(|e| load_err(e.to_string()))?;
        Ok(Self {
            model: Mutex::new(model),
            id: format!("{variant}@fastembed-7.5.0"),
            dims,
            query_prefix: query_prefix.into(),
            passage_prefix: passage_prefix.into(),
            batch_size: options.batch_size.max(1),
            manifest: None,
            timings: LoadTimings {
                runtime: runtime_time,
                read: Duration::ZERO,
                session: t.elapsed(),
            },
        })
    }

    /// Number of tokens the model sees for `text` as a passage: prefix and special tokens included,
    /// capped at the model's maximum (512), where the rest is truncated. For measuring embedding
    /// texts.
    ///
    /// # Errors
    /// [`EmbedError::Inference`] when the tokenizer fails.
    pub fn count_tokens(&self, text: &str) -> Result<usize, EmbedError> {
        let model = self.model.lock().unwrap_or_else(PoisonError::into_inner);
        let input = format!("{}{text}", self.passage_prefix);
        let encoding = model
            .tokenizer
            .encode(input, true)
            .map_err(|e| EmbedError::Inference {
                reason: e.to_string(),
            })?;
        Ok(encoding.len())
    }

    /// The manifest the model was loaded from (`None` for models downloaded by fastembed).
    pub fn manifest(&self) -> Option<&ModelManifest> {
        self.manifest.as_ref()
    }

    /// How long loading took, step by step.
    pub fn load_timings(&self) -> LoadTimings {
        self.timings
    }

    fn embed_with_prefix(&self, prefix: &str, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for batch in order.chunks(self.batch_size) {
            let inputs: Vec<String> = batch
                .iter()
                .map(|&i| format!("{prefix}{}", texts[i]))
                .collect();
            // Locked per batch, so a query waits for at most one batch of a long passage run.
            let vectors = self
                .model
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .embed(&inputs, Some(self.batch_size))
                .map_err(|e| EmbedError::Inference {
                    reason: e.to_string(),
                })?;
            if vectors.len() != batch.len() {
                return Err(EmbedError::Inference {
                    reason: format!("{} vectors for {} texts", vectors.len(), batch.len()),
                });
            }
            for (&i, mut v) in batch.iter().zip(vectors) {
                if v.len() != self.dims {
                    return Err(EmbedError::Dims {
                        expected: self.dims,
                        got: v.len(),
                    });
                }
                // fastembed already normalises; again, cheaply, so the trait's contract does not
                // depend on a dependency's internals.
                normalise(&mut v);
                out[i] = v;
            }
        }
        Ok(out)
    }
}

impl Embedder for FastEmbedder {
    fn model_id(&self) -> &str {
        &self.id
    }

    fn dims(&self) -> usize {
        self.dims
    }

    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_with_prefix(&self.query_prefix, texts)
    }

    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_with_prefix(&self.passage_prefix, texts)
    }
}
