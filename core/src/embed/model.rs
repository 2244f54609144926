//! The provisioned model on disk: where the runtime library and model files live in the model cache,
//! and the `manifest.json` that `scripts/model/fetch.sh` writes (docs/MODEL.md) with every file's
//! size and sha256.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::EmbedError;

/// The manifest file name inside a model directory; written last by `fetch.sh`, so its presence
/// with matching hashes means the install is complete.
pub const MANIFEST: &str = "manifest.json";

/// The manifest schema this code reads (`manifest.json` field `schema`).
const SCHEMA: u64 = 1;

/// Where the ONNX Runtime library and one model's files are.
///
/// Layout of a model cache (docs/MODEL.md):
/// ```text
/// CACHE_DIR/onnxruntime/libonnxruntime.so.1.24.4
/// CACHE_DIR/<model>/{model.onnx, tokenizer.json, config.json, special_tokens_map.json,
///                    tokenizer_config.json, manifest.json}
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModelPaths {
    /// The ONNX Runtime shared library to load (absolute).
    pub ort_dylib: PathBuf,
    /// The directory holding `model.onnx`, the tokenizer files and `manifest.json`.
    pub model_dir: PathBuf,
}

/// One file recorded in the manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModelFile {
    /// Absolute path (the model directory joined with the recorded name).
    pub path: PathBuf,
    /// Recorded lowercase hex SHA-256.
    pub sha256: String,
    /// Recorded size in bytes.
    pub bytes: u64,
}

/// What `manifest.json` says about an installed model, with paths resolved.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelManifest {
    /// Short model name: the last segment of the upstream id (`multilingual-e5-small`).
    pub name: String,
    /// Upstream id (`intfloat/multilingual-e5-small`).
    pub upstream_id: String,
    /// Weight format (`int8`, `q4` or `fp32`; `scripts/model/fetch.sh`).
    pub format: String,
    /// Vector dimensions (384).
    pub dims: usize,
    /// Pooling over token vectors (`mean` or `cls`).
    pub pooling: String,
    /// Maximum tokens per text; longer texts are truncated (512).
    pub max_length: usize,
    /// Prefix of every query text (`"query: "` for e5, empty for models without one).
    pub query_prefix: String,
    /// Prefix of every document text (`"passage: "` for e5).
    pub passage_prefix: String,
    /// ONNX Runtime version the install was verified with (`1.24.4`).
    pub runtime_version: String,
    /// The runtime library the install recorded, when the manifest names one.
    pub runtime: Option<ModelFile>,
    /// The model files by name (`model.onnx`, `tokenizer.json`, ...), excluding the manifest.
    pub files: BTreeMap<String, ModelFile>,
    /// When the manifest was written (RFC 3339, as recorded).
    pub created: String,
    /// First 12 hex digits of the SHA-256 over the sorted `name:sha256` lines of [`Self::files`]:
    /// changes exactly when a model file changes (not with timestamps or the runtime).
    pub content_id: String,
    /// Whether `fetch.sh`'s verification passed when the model was installed.
    pub verified_at_install: bool,
}

impl ModelManifest {
    /// The [`super::Embedder::model_id`] of this model: `<name>@<content_id>`.
    pub fn model_id(&self) -> String {
        format!("{}@{}", self.name, self.content_id)
    }

    /// Whether the graph quantises its activations once per inference call over the whole input
    /// (format `int8`: ONNX Runtime's `DynamicQuantizeLinear`, one scale per tensor), so that a
    /// text's vector would depend on the other texts of its batch (cosine 0.995 between a text alone
    /// and batched, docs/MODEL.md "int8"). Such a model embeds one text per call, which keeps every
    /// vector independent of batching and order and costs no speed (no padding either).
    pub fn quantises_per_call(&self) -> bool {
        self.format == "int8"
    }

    /// The recorded file `name`, or [`EmbedError::BadManifest`] naming it.
    ///
    /// # Errors
    /// [`EmbedError::BadManifest`] when the manifest does not list `name`.
    pub fn file(&self, name: &str, manifest_path: &Path) -> Result<&ModelFile, EmbedError> {
        self.files.get(name).ok_or_else(|| EmbedError::BadManifest {
            path: manifest_path.to_path_buf(),
            reason: format!("it lists no {name}"),
        })
    }
}

// The subset of manifest.json read here (scripts/model/manifest.py writes it).
#[derive(Deserialize)]
struct RawManifest {
    schema: u64,
    #[serde(default)]
    created: String,
    model: RawModel,
    #[serde(default)]
    runtime: Option<RawRuntime>,
    #[serde(default)]
    verification: Option<RawVerification>,
    files: BTreeMap<String, RawFile>,
}

#[derive(Deserialize)]
struct RawModel {
    id: String,
    #[serde(default)]
    format: String,
    dims: usize,
    pooling: String,
    #[serde(default = "default_max_length")]
    max_length: usize,
    #[serde(default)]
    query_prefix: String,
    #[serde(default)]
    passage_prefix: String,
}

fn default_max_length() -> usize {
    512
}

#[derive(Deserialize)]
struct RawRuntime {
    #[serde(default)]
    version: String,
    library: Option<String>,
    sha256: Option<String>,
    bytes: Option<u64>,
}

#[derive(Deserialize)]
struct RawVerification {
    #[serde(default)]
    ok: bool,
}

#[derive(Deserialize)]
struct RawFile {
    sha256: String,
    bytes: u64,
}

impl ModelPaths {
    /// The default model of code-intel (shared/docs/EMBEDDINGS.md: multilingual, 384 dims).
    pub const DEFAULT_MODEL: &'static str = "multilingual-e5-small";

    /// Environment variable that names the model cache (`code-intel model fetch` fills it).
    pub const CACHE_DIR_ENV: &'static str = "CODE_INTEL_MODEL_DIR";

    /// The model cache every adapter uses unless told otherwise: `$CODE_INTEL_MODEL_DIR`, else
    /// `$XDG_CACHE_HOME/code-intel/models`, else `$HOME/.cache/code-intel/models`. Empty
    /// variables count as unset. `var` looks a variable up (the adapter's environment: this
    /// crate reads none itself). `None` when none of the three is set. The path may be relative
    /// when a variable is; callers make it absolute.
    pub fn default_cache_dir(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
        let var = |k: &str| var(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        var(Self::CACHE_DIR_ENV).or_else(|| {
            var("XDG_CACHE_HOME")
                .or_else(|| var("HOME").map(|h| h.join(".cache")))
                .map(|d| d.join("code-intel/models"))
        })
    }

    /// The paths of `model` in the model cache `cache_dir` (`cache_dir` should be absolute).
    ///
    /// The runtime library is the one the model's manifest records when it is readable; otherwise
    /// the newest-named `libonnxruntime*` in `cache_dir/onnxruntime/`; otherwise the platform's
    /// default name there (which [`Self::verify`] then reports as missing). Reads the directory
    /// only; never fails.
    pub fn in_cache(cache_dir: &Path, model: &str) -> Self {
        let model_dir = cache_dir.join(model);
        let from_manifest = std::fs::read(model_dir.join(MANIFEST))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<RawManifest>(&bytes).ok())
            .and_then(|m| m.runtime?.library)
            .map(|rel| lexical_normalise(&model_dir.join(rel)));
        let ort_dylib = from_manifest
            .or_else(|| newest_runtime(&cache_dir.join("onnxruntime")))
            .unwrap_or_else(|| {
                cache_dir.join("onnxruntime").join(format!(
                    "{}onnxruntime{}",
                    std::env::consts::DLL_PREFIX,
                    std::env::consts::DLL_SUFFIX
                ))
            });
        Self {
            ort_dylib,
            model_dir,
        }
    }

    /// `model_dir/manifest.json`.
    pub fn manifest_path(&self) -> PathBuf {
        self.model_dir.join(MANIFEST)
    }

    /// Reads the manifest and checks that every recorded file exists with its recorded size
    /// (cheap: no hashing). Use before loading; [`Self::verify`] also checks the hashes.
    ///
    /// # Errors
    /// [`EmbedError::NotInstalled`] (no readable manifest), [`EmbedError::BadManifest`] (unknown
    /// schema, no `model.onnx`/`tokenizer.json`), [`EmbedError::FileMismatch`] (a file missing or of
    /// the wrong size, the runtime library missing), [`EmbedError::Runtime`] (a relative library
    /// path).
    pub fn read_manifest(&self) -> Result<ModelManifest, EmbedError> {
        let manifest = self.parse_manifest()?;
        for file in manifest
            .files
            .values()
            .chain(self.runtime_record(&manifest))
        {
            check_size(file)?;
        }
        if !self.ort_dylib.is_absolute() {
            // Never resolve against the current directory (nor, as `ort` would, the executable's).
            return Err(EmbedError::Runtime {
                path: self.ort_dylib.clone(),
                reason: "the library path must be absolute".into(),
            });
        }
        if !self.ort_dylib.is_file() {
            return Err(EmbedError::FileMismatch {
                path: self.ort_dylib.clone(),
                problem: "missing".into(),
            });
        }
        Ok(manifest)
    }

    /// [`Self::read_manifest`] plus the SHA-256 of every recorded file and of the runtime library
    /// when it is the one the manifest records (a caller-chosen library is only checked to exist).
    /// Reads about 100 MB for multilingual-e5-small (q4).
    ///
    /// # Errors
    /// As [`Self::read_manifest`]; [`EmbedError::FileMismatch`] with `corrupt (sha256 mismatch)`.
    pub fn verify(&self) -> Result<ModelManifest, EmbedError> {
        let manifest = self.read_manifest()?;
        for file in manifest
            .files
            .values()
            .chain(self.runtime_record(&manifest))
        {
            let have = sha256_file(&file.path).map_err(|_| EmbedError::FileMismatch {
                path: file.path.clone(),
                problem: "unreadable".into(),
            })?;
            if !have.eq_ignore_ascii_case(&file.sha256) {
                return Err(EmbedError::FileMismatch {
                    path: file.path.clone(),
                    problem: "corrupt (sha256 mismatch)".into(),
                });
            }
        }
        Ok(manifest)
    }

    /// The manifest's runtime record when `ort_dylib` is that file.
    fn runtime_record<'m>(&self, manifest: &'m ModelManifest) -> Option<&'m ModelFile> {
        manifest
            .runtime
            .as_ref()
            .filter(|rt| lexical_normalise(&rt.path) == lexical_normalise(&self.ort_dylib))
    }

    fn parse_manifest(&self) -> Result<ModelManifest, EmbedError> {
        let path = self.manifest_path();
        let not_installed =
            |source: Box<dyn std::error::Error + Send + Sync>| EmbedError::NotInstalled {
                dir: self.model_dir.clone(),
                source: Some(source),
            };
        let bytes = std::fs::read(&path).map_err(|e| not_installed(e.into()))?;
        let raw: RawManifest = serde_json::from_slice(&bytes).map_err(|e| {
            // A manifest that is JSON but not ours is a bad manifest; unparsable bytes mean an
            // interrupted or foreign install, which fetch fixes the same way.
            not_installed(e.into())
        })?;
        let bad = |reason: String| EmbedError::BadManifest {
            path: path.clone(),
            reason,
        };
        if raw.schema != SCHEMA {
            return Err(bad(format!(
                "schema {} (this build reads {SCHEMA})",
                raw.schema
            )));
        }
        if raw.model.dims == 0 {
            return Err(bad("model.dims is 0".into()));
        }
        for required in ["model.onnx", "tokenizer.json"] {
            if !raw.files.contains_key(required) {
                return Err(bad(format!("it lists no {required}")));
            }
        }
        let mut content = Sha256::new();
        let mut files = BTreeMap::new();
        for (name, f) in raw.files {
            if name.contains('/') || name.contains('\\') || name == ".." || name == MANIFEST {
                return Err(bad(format!("file name {name:?} is not a plain file name")));
            }
            content.update(format!("{name}:{}\n", f.sha256.to_ascii_lowercase()));
            let file = ModelFile {
                path: self.model_dir.join(&name),
                sha256: f.sha256,
                bytes: f.bytes,
            };
            files.insert(name, file);
        }
        let content_id = hex::encode(content.finalize())[..12].to_owned();
        let runtime_version = raw
            .runtime
            .as_ref()
            .map(|r| r.version.clone())
            .unwrap_or_default();
        let runtime = raw.runtime.and_then(|r| {
            Some(ModelFile {
                path: lexical_normalise(&self.model_dir.join(r.library?)),
                sha256: r.sha256?,
                bytes: r.bytes?,
            })
        });
        let name = raw
            .model
            .id
            .rsplit('/')
            .next()
            .unwrap_or(&raw.model.id)
            .to_owned();
        Ok(ModelManifest {
            name,
            upstream_id: raw.model.id,
            format: raw.model.format,
            dims: raw.model.dims,
            pooling: raw.model.pooling,
            max_length: raw.model.max_length,
            query_prefix: raw.model.query_prefix,
            passage_prefix: raw.model.passage_prefix,
            runtime_version,
            runtime,
            files,
            created: raw.created,
            content_id,
            verified_at_install: raw.verification.is_some_and(|v| v.ok),
        })
    }
}

fn check_size(file: &ModelFile) -> Result<(), EmbedError> {
    match std::fs::metadata(&file.path) {
        Ok(m) if m.is_file() && m.len() == file.bytes => Ok(()),
        Ok(m) if m.is_file() => Err(EmbedError::FileMismatch {
            path: file.path.clone(),
            problem: format!("{} bytes, expected {}", m.len(), file.bytes),
        }),
        _ => Err(EmbedError::FileMismatch {
            path: file.path.clone(),
            problem: "missing".into(),
        }),
    }
}

/// Lowercase hex SHA-256 of a file's content, read in 1 MiB blocks.
pub(crate) fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut f = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex::encode(hasher.finalize()))
}

/// Removes `.` and resolves `..` against earlier components without touching the file system
/// (the manifest records the runtime as `../onnxruntime/...` relative to the model directory).
fn lexical_normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The ONNX Runtime library in `dir` with the highest version in its name, if any.
fn newest_runtime(dir: &Path) -> Option<PathBuf> {
    let version = |name: &str| -> Vec<u64> {
        name.split(|c: char| !c.is_ascii_digit())
            .filter_map(|p| p.parse().ok())
            .collect()
    };
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                (n.starts_with("libonnxruntime.") || n.starts_with("onnxruntime."))
                    && (n.contains(".so") || n.ends_with(".dylib") || n.ends_with(".dll"))
            })
        })
        .max_by_key(|p| version(p.file_name().and_then(|n| n.to_str()).unwrap_or("")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_normalise_resolves_parent_components() {
        assert_eq!(
            lexical_normalise(Path::new("/c/m/../onnxruntime/./lib.so")),
            PathBuf::from("/c/onnxruntime/lib.so")
        );
    }
}
