//! The provisioned model on disk without the real model: manifest parsing, size and hash checks,
//! runtime library resolution, and load errors that name the fix instead of panicking.

#![cfg(feature = "embed")]

use std::path::Path;

use code_intel_core::embed::{EmbedError, FastEmbedOptions, FastEmbedder, ModelPaths};
use sha2::{Digest, Sha256};

const FILES: [(&str, &[u8]); 5] = [
    ("model.onnx", b"not really onnx"),
    ("tokenizer.json", b"{}"),
    ("config.json", b"{\"pad_token_id\": 1}"),
    ("special_tokens_map.json", b"{}"),
    (
        "tokenizer_config.json",
        b"{\"model_max_length\": 512, \"pad_token\": \"<pad>\"}",
    ),
];

fn describe(bytes: &[u8]) -> serde_json::Value {
    serde_json::json!({"sha256": hex::encode(Sha256::digest(bytes)), "bytes": bytes.len()})
}

/// A cache laid out like `scripts/model/fetch.sh` leaves it, with stand-in file contents.
fn install(cache: &Path, created: &str) {
    let model_dir = cache.join("multilingual-e5-small");
    std::fs::create_dir_all(&model_dir).unwrap();
    std::fs::create_dir_all(cache.join("onnxruntime")).unwrap();
    let runtime = b"not a shared library";
    std::fs::write(cache.join("onnxruntime/libonnxruntime.so.1.24.4"), runtime).unwrap();
    let mut files = serde_json::Map::new();
    for (name, bytes) in FILES {
        std::fs::write(model_dir.join(name), bytes).unwrap();
        files.insert(name.into(), describe(bytes));
    }
    let mut rt = describe(runtime);
    rt["name"] = "onnxruntime".into();
    rt["version"] = "1.24.4".into();
    rt["library"] = "../onnxruntime/libonnxruntime.so.1.24.4".into();
    let manifest = serde_json::json!({
        "schema": 1, "created": created, "pipeline": 1,
        "model": {"id": "intfloat/multilingual-e5-small", "format": "q4", "dims": 384,
                  "pooling": "mean", "normalise": true, "max_length": 512,
                  "query_prefix": "query: ", "passage_prefix": "passage: "},
        "runtime": rt,
        "verification": {"ok": true},
        "files": files,
    });
    std::fs::write(
        model_dir.join("manifest.json"),
        serde_json::to_vec_pretty(&manifest).unwrap(),
    )
    .unwrap();
}

#[test]
fn reads_and_verifies_an_install() {
    let dir = tempfile::tempdir().unwrap();
    install(dir.path(), "2026-01-01T00:00:00+00:00");
    let paths = ModelPaths::in_cache(dir.path(), ModelPaths::DEFAULT_MODEL);
    assert_eq!(
        paths.ort_dylib,
        dir.path().join("onnxruntime/libonnxruntime.so.1.24.4"),
        "the runtime the manifest records, normalised"
    );
    let m = paths.verify().unwrap();
    assert_eq!(m.name, "multilingual-e5-small");
    assert_eq!(m.upstream_id, "intfloat/multilingual-e5-small");
    assert_eq!((m.dims, m.max_length), (384, 512));
    assert_eq!(
        (m.query_prefix.as_str(), m.passage_prefix.as_str()),
        ("query: ", "passage: ")
    );
    assert_eq!(m.runtime_version, "1.24.4");
    assert_eq!(m.files.len(), 5);
    assert!(m.verified_at_install);
    assert_eq!(m.content_id.len(), 12);
    assert_eq!(
        m.model_id(),
        format!("multilingual-e5-small@{}", m.content_id)
    );

    // Re-provisioning the same files (new timestamps) keeps the model id and so the cache.
    let other = tempfile::tempdir().unwrap();
    install(other.path(), "2027-02-02T00:00:00+00:00");
    let m2 = ModelPaths::in_cache(other.path(), ModelPaths::DEFAULT_MODEL)
        .verify()
        .unwrap();
    assert_eq!(m2.model_id(), m.model_id());
}

#[test]
fn without_a_manifest_the_runtime_is_found_by_name() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("onnxruntime")).unwrap();
    for v in ["1.24.4", "1.31.1", "1.9.0"] {
        std::fs::write(
            dir.path()
                .join(format!("onnxruntime/libonnxruntime.so.{v}")),
            b"x",
        )
        .unwrap();
    }
    let paths = ModelPaths::in_cache(dir.path(), "m");
    assert_eq!(
        paths.ort_dylib,
        dir.path().join("onnxruntime/libonnxruntime.so.1.31.1")
    );
    assert_eq!(paths.model_dir, dir.path().join("m"));
}

#[test]
fn a_missing_install_names_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let paths = ModelPaths::in_cache(dir.path(), ModelPaths::DEFAULT_MODEL);
    let err = paths.verify().unwrap_err();
    assert!(matches!(err, EmbedError::NotInstalled { .. }), "{err:?}");
    assert!(
        err.to_string().contains("run `code-intel model fetch`"),
        "{err}"
    );
    let err = FastEmbedder::load(&paths, &FastEmbedOptions::default()).unwrap_err();
    assert!(matches!(err, EmbedError::NotInstalled { .. }), "{err:?}");
}

#[test]
fn damaged_files_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    install(dir.path(), "t");
    let paths = ModelPaths::in_cache(dir.path(), ModelPaths::DEFAULT_MODEL);
    let model_dir = dir.path().join("multilingual-e5-small");

    // Same size, other content: only the hash check sees it.
    std::fs::write(model_dir.join("tokenizer.json"), b"[]").unwrap();
    paths.read_manifest().unwrap();
    let err = paths.verify().unwrap_err();
    match &err {
        EmbedError::FileMismatch { path, problem } => {
            assert_eq!(path, &model_dir.join("tokenizer.json"));
            assert_eq!(problem, "corrupt (sha256 mismatch)");
        }
        other => panic!("{other:?}"),
    }
    assert!(
        err.to_string().contains("code-intel model fetch --force"),
        "{err}"
    );

    // Truncated: the cheap check sees it.
    std::fs::write(model_dir.join("model.onnx"), b"short").unwrap();
    let err = paths.read_manifest().unwrap_err();
    assert!(err.to_string().contains("5 bytes, expected 15"), "{err}");

    // Missing runtime library.
    install(dir.path(), "t");
    std::fs::remove_file(dir.path().join("onnxruntime/libonnxruntime.so.1.24.4")).unwrap();
    let err = paths.read_manifest().unwrap_err();
    assert!(
        matches!(&err, EmbedError::FileMismatch { problem, .. } if problem == "missing"),
        "{err:?}"
    );
}

#[test]
fn a_bad_manifest_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    install(dir.path(), "t");
    let manifest = dir.path().join("multilingual-e5-small/manifest.json");
    let mut m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
    m["schema"] = 2.into();
    std::fs::write(&manifest, serde_json::to_vec(&m).unwrap()).unwrap();
    let paths = ModelPaths::in_cache(dir.path(), ModelPaths::DEFAULT_MODEL);
    let err = paths.read_manifest().unwrap_err();
    assert!(matches!(err, EmbedError::BadManifest { .. }), "{err:?}");
    assert!(err.to_string().contains("schema 2"), "{err}");

    std::fs::write(&manifest, b"{ truncated").unwrap();
    assert!(matches!(
        paths.read_manifest(),
        Err(EmbedError::NotInstalled { .. })
    ));
}

#[test]
fn a_runtime_that_is_not_onnx_runtime_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    install(dir.path(), "t");
    let paths = ModelPaths::in_cache(dir.path(), ModelPaths::DEFAULT_MODEL);
    let err = FastEmbedder::load(&paths, &FastEmbedOptions::default()).unwrap_err();
    match &err {
        EmbedError::Runtime { path, .. } => assert_eq!(path, &paths.ort_dylib),
        other => panic!("{other:?}"),
    }
    assert!(
        err.to_string().contains("needs ONNX Runtime >= 1.24"),
        "{err}"
    );

    // A relative library path is refused (ort would resolve it against the executable).
    let relative = ModelPaths {
        ort_dylib: "libonnxruntime.so".into(),
        model_dir: paths.model_dir.clone(),
    };
    let err = FastEmbedder::load(&relative, &FastEmbedOptions::default()).unwrap_err();
    assert!(
        matches!(&err, EmbedError::Runtime { reason, .. } if reason.contains("absolute")),
        "{err:?}"
    );
}
