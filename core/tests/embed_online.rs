//! The opt-in online path (feature `embed-online`): fastembed's own model names and downloads.
//! Without access to the Hugging Face Hub (CI, the project's machines) a download is an error, not
//! a panic or a hang; these tests only run in a build with the feature.

#![cfg(feature = "embed-online")]

use code_intel_core::embed::{EmbedError, FastEmbedOptions, FastEmbedder};

#[test]
fn an_unknown_model_name_lists_the_known_ones() {
    let dir = tempfile::tempdir().unwrap();
    let err = FastEmbedder::load_online(
        "NoSuchModel",
        dir.path(),
        &dir.path().join("libonnxruntime.so"),
        &FastEmbedOptions::default(),
    )
    .unwrap_err();
    match &err {
        EmbedError::Download { reason, .. } => {
            assert!(reason.contains("BGESmallENV15"), "{reason}");
            assert!(reason.contains("MultilingualE5Small"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_missing_runtime_is_reported_before_any_download() {
    let dir = tempfile::tempdir().unwrap();
    let err = FastEmbedder::load_online(
        "BGESmallENV15",
        dir.path(),
        &dir.path().join("libonnxruntime.so"),
        &FastEmbedOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(err, EmbedError::Runtime { .. }), "{err:?}");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing downloaded"
    );
}
