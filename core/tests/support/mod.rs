//! The provisioned real model for core's real-model tests: where its cache is and loading it once
//! per test binary, with the `CODE_INTEL_SKIP_MODEL_TESTS` convention (a missing or unusable model
//! FAILS the test with the fix, unless that variable is `1`).
//!
//! Each test file says `mod support;`.

#![allow(
    clippy::disallowed_methods,
    clippy::print_stderr,
    reason = "the skip notice goes to stderr on purpose (visible with --nocapture)"
)]

use std::path::PathBuf;
use std::sync::OnceLock;

use code_intel_core::embed::{EmbedError, FastEmbedder, ModelPaths};

/// The model cache: `CODE_INTEL_MODEL_DIR`, else `${XDG_CACHE_HOME:-$HOME/.cache}/code-intel/models`.
pub fn model_cache() -> PathBuf {
    if let Some(dir) = std::env::var_os("CODE_INTEL_MODEL_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .expect("neither XDG_CACHE_HOME nor HOME is set; set CODE_INTEL_MODEL_DIR");
    base.join("code-intel/models")
}

/// The default model of [`model_cache`], loaded by `load` on the first call and kept for all
/// tests of this binary (ONNX Runtime allows one environment per process, and each load costs
/// seconds and hundreds of MB); later calls return the same model and ignore their arguments.
///
/// `None` means skip: the model is not usable and `CODE_INTEL_SKIP_MODEL_TESTS=1` (said on
/// stderr, naming `skipped`, e.g. "real-model tests"). Without that variable an unusable model
/// panics with the fix.
pub fn model_once(
    skipped: &str,
    load: impl FnOnce(&ModelPaths) -> Result<FastEmbedder, EmbedError>,
) -> Option<&'static FastEmbedder> {
    static MODEL: OnceLock<Option<FastEmbedder>> = OnceLock::new();
    MODEL
        .get_or_init(|| {
            let dir = model_cache();
            let paths = ModelPaths::in_cache(&dir, ModelPaths::DEFAULT_MODEL);
            match load(&paths) {
                Ok(m) => Some(m),
                Err(e) if std::env::var("CODE_INTEL_SKIP_MODEL_TESTS").as_deref() == Ok("1") => {
                    eprintln!("\n!!! SKIPPING {skipped} (CODE_INTEL_SKIP_MODEL_TESTS=1): {e}\n");
                    None
                }
                Err(e) => panic!(
                    "the embedding model is not usable in {}: {e}\n\
                     run scripts/model/fetch.sh (or `code-intel model fetch`), set \
                     CODE_INTEL_MODEL_DIR to another cache, or CODE_INTEL_SKIP_MODEL_TESTS=1 to skip",
                    dir.display()
                ),
            }
        })
        .as_ref()
}
