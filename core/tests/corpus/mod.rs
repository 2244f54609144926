//! The real-code corpora of core's tests (Flask, Express, Laravel, ...): pinned versions that
//! `scripts/fetch-corpora.sh` downloads once into `<workspace>/.e2e-cache/corpora` (or
//! `$CODE_INTEL_CORPORA`).
//!
//! Each test file that reads them says `mod corpus;` and calls [`corpus`].

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One fetch at a time within a test binary (tests run in parallel).
static FETCH: Mutex<()> = Mutex::new(());

/// The corpus directory `name` (e.g. `flask`), running `scripts/fetch-corpora.sh` first when it
/// is not complete yet (no `.done` marker). Panics with the script's status when the fetch fails
/// or leaves `name` incomplete (the network or the package registries unreachable: run the
/// script by hand to see why).
pub fn corpus(name: &str) -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let cache = std::env::var_os("CODE_INTEL_CORPORA")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join(".e2e-cache/corpora"));
    let dir = cache.join(name);
    let _guard = FETCH.lock().unwrap_or_else(|e| e.into_inner());
    if !dir.join(".done").exists() {
        let status = std::process::Command::new("bash")
            .arg(workspace.join("scripts/fetch-corpora.sh"))
            .arg(&cache)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("run scripts/fetch-corpora.sh");
        assert!(
            status.success(),
            "scripts/fetch-corpora.sh {} failed ({status})",
            cache.display()
        );
    }
    assert!(
        dir.join(".done").exists(),
        "{} missing after the fetch",
        dir.display()
    );
    dir
}
