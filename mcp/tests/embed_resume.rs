//! The vector store under interruption and concurrency, with the real `code-intel` binary and
//! the real model: `index --embed` killed with SIGKILL at random points resumes without losing
//! what was flushed and without embedding anything twice; a CLI `index --embed`, CLI searches (query-time
//! embedding) and the MCP server's background embedding on one repository at once leave a
//! complete store without duplicates.
//!
//! The model cache is `CODE_INTEL_MODEL_DIR`, else `${XDG_CACHE_HOME:-$HOME/.cache}/code-intel/models`.
//! Without a provisioned model these tests FAIL (run scripts/model/fetch.sh); set
//! `CODE_INTEL_SKIP_MODEL_TESTS=1` to skip them knowingly.

#![allow(clippy::print_stderr)]

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use code_intel_core::embed::{EmbeddingCache, ModelPaths};
use code_intel_core::index::vector::{EMBED_GROUP, VectorIndex};
use code_intel_session::config::Config;
use code_intel_session::repo_path::RepoRoot;
use serde_json::{Value, json};
use support::{Rng, Server, provisioned_model, write_fixture};

fn command(repo: &Path, models: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_code-intel"));
    cmd.args(args).arg("--repo").arg(repo);
    for var in [
        "CLAUDE_CODE_SESSION_ID",
        "CLAUDE_PROJECT_DIR",
        "CODE_INTEL_PROJECT",
        "CODE_INTEL_EMBEDDINGS",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("CODE_INTEL_LOG", "warn")
        .env("CODE_INTEL_MODEL_DIR", models)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn run_ok(repo: &Path, models: &Path, args: &[&str]) -> Output {
    let out = command(repo, models, args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

/// `n` Python modules of three distinct functions each (distinct texts, so every chunk is one
/// text to embed).
fn generated(n: usize) -> Vec<(String, String)> {
    (0..n)
        .map(|i| {
            (
                format!("pkg{}/module_{i}.py", i % 7),
                format!(
                    "def load_record_{i}(store, key):\n    \"\"\"Read record {i} from the store.\"\"\"\n    return store.get(key + {i})\n\n\n\
                     def save_record_{i}(store, key, value):\n    \"\"\"Write record {i} into the store.\"\"\"\n    store.put(key + {i}, value)\n\n\n\
                     def delete_record_{i}(store, key):\n    \"\"\"Remove record {i} from the store.\"\"\"\n    store.delete(key + {i})\n"
                ),
            )
        })
        .collect()
}

fn repo_with(files: &[(String, String)]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    write_fixture(dir.path(), &refs);
    let path = dir.path().canonicalize().unwrap();
    (dir, path)
}

fn model_id(models: &Path) -> (String, usize) {
    let manifest = ModelPaths::in_cache(models, ModelPaths::DEFAULT_MODEL)
        .read_manifest()
        .unwrap();
    (manifest.model_id(), manifest.dims)
}

/// The embedding cache as a new process sees it: (vectors, records dropped on open).
fn cache_of(repo: &Path, models: &Path) -> (usize, usize) {
    let root = RepoRoot::new(repo).unwrap();
    let (id, dims) = model_id(models);
    let cache = EmbeddingCache::open(&VectorIndex::embeddings_dir(&root), &id, dims).unwrap();
    (cache.len(), cache.open_report().dropped_records)
}

/// Distinct texts of the repository's chunks and those without a vector, as a new process sees
/// them.
fn texts(repo: &Path, models: &Path) -> (usize, usize) {
    let root = RepoRoot::new(repo).unwrap();
    let (id, dims) = model_id(models);
    let v = VectorIndex::open(&root, &Config::default(), &id, dims).unwrap();
    (
        v.live_vectors() + v.coverage().pending_texts,
        v.coverage().pending_texts,
    )
}

/// `index --embed` killed with SIGKILL at several random points (while the model loads, between
/// and inside groups of [`EMBED_GROUP`] texts) loses at most the group in flight: every vector
/// the cache held before the kill is still there, the cache grows group by group while a run
/// goes on (so a kill can only lose the group being embedded), a record torn by the kill is
/// dropped, never read as a vector, and the next run embeds exactly what is missing, every
/// text once.
#[test]
fn embedding_killed_at_random_points_loses_at_most_the_group_in_flight() {
    const KILLS: usize = 3;
    let Some(models) = provisioned_model() else {
        return;
    };
    let mut rng = Rng::from_crash_seed();
    let (_dir, repo) = repo_with(&generated(120));
    run_ok(&repo, &models, &["index", "--json"]);
    let (total, pending) = texts(&repo, &models);
    assert_eq!(pending, total, "nothing embedded yet");
    assert!(total >= 5 * EMBED_GROUP, "{total}");

    let mut largest_step = 0;
    for round in 0..KILLS {
        let (before, _) = cache_of(&repo, &models);
        let remaining = total - before;
        // Kill once the cache has grown by `target` texts (0: while the model loads or the first
        // group is embedded), then after a further random delay, so the kill lands anywhere in
        // a group: embedding, inserting, flushing or saving.
        let target = if round == 0 {
            0
        } else {
            rng.below(remaining.saturating_sub(2 * EMBED_GROUP) as u64 + 1) as usize
        };
        let delay = Duration::from_millis(rng.below(1000));
        let mut child = command(&repo, &models, &["index", "--embed", "--json"])
            .spawn()
            .unwrap();
        let started = Instant::now();
        let mut seen = before;
        while seen < before + target {
            assert!(
                child.try_wait().unwrap().is_none(),
                "round {round}: the run ended before it could be killed"
            );
            assert!(
                started.elapsed() < Duration::from_secs(600),
                "round {round}: no progress in 10 min"
            );
            std::thread::sleep(Duration::from_millis(25));
            let (now, _) = cache_of(&repo, &models);
            largest_step = largest_step.max(now - seen);
            seen = now;
        }
        std::thread::sleep(delay);
        let (observed, _) = cache_of(&repo, &models);
        assert!(
            child.try_wait().unwrap().is_none(),
            "round {round}: the run ended before it could be killed"
        );
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let (kept, dropped) = cache_of(&repo, &models);
        eprintln!(
            "round {round}: killed {:.0} ms after start, {target}+ texts in and {} ms later: \
             {before} -> {kept} of {total} vectors kept, {dropped} torn record(s) dropped",
            started.elapsed().as_secs_f64() * 1e3,
            delay.as_millis()
        );
        assert!(
            kept >= observed,
            "round {round}: {observed} flushed, {kept} kept"
        );
        assert!(
            kept < total,
            "round {round}: the run finished before the kill"
        );
        // A record torn by the kill is dropped (and embedded again), never read as a vector.
        assert!(dropped <= 1, "round {round}: {dropped}");
    }
    // Growth by whole groups: between two polls 25 ms apart the cache grew by at most a group
    // (two if a poll came late on this loaded machine), so no run held more than one group of
    // embedded vectors unflushed.
    assert!(
        largest_step <= 2 * EMBED_GROUP,
        "the cache grew by {largest_step} texts at once"
    );

    let (kept, _) = cache_of(&repo, &models);
    let out = run_ok(&repo, &models, &["index", "--embed", "--json"]);
    let v = json_of(&out);
    let embedded = v["vectors"]["embed"]["embedded"]
        .as_u64()
        .unwrap_or_else(|| {
            panic!("no embed report: {v}");
        }) as usize;
    assert_eq!(embedded, total - kept, "only what was missing is embedded");
    let (cached, dropped) = cache_of(&repo, &models);
    assert_eq!((cached, dropped), (total, 0), "every text once");
    assert_eq!(texts(&repo, &models), (total, 0));
    // JSON progress on stderr when stderr is not a terminal.
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .rfind(|l| l["event"] == "embed_progress")
        .unwrap_or_else(|| panic!("no JSON progress: {stderr}"));
    assert_eq!(last["done"], json!(embedded));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_embedding_searches_and_the_server_background_share_one_store() {
    let Some(models) = provisioned_model() else {
        return;
    };
    let (_dir, repo) = repo_with(&generated(60));
    run_ok(&repo, &models, &["index", "--json"]);
    let (total, _) = texts(&repo, &models);
    let mut cmd = support::serve_command(&repo);
    cmd.env_remove("CODE_INTEL_EMBEDDINGS")
        .env("CODE_INTEL_MODEL_DIR", &models);
    let server = Server::from_command(cmd).await;
    // The session start syncs; the background task starts embedding once the model is loaded.
    server
        .ok(
            "start_session",
            json!({ "intent": "INVESTIGATE", "query": "How are records stored?" }),
        )
        .await;
    // Meanwhile: a CLI embedding run and CLI searches that embed their candidates.
    let (repo2, models2) = (repo.clone(), models.clone());
    let cli = std::thread::spawn(move || {
        let mut outs = Vec::new();
        for q in [
            "save a record",
            "remove a record from the store",
            "read record 7",
        ] {
            // Hybrid: the default `auto` searches an English request lexically.
            outs.push(run_ok(
                &repo2,
                &models2,
                &["search", q, "--json", "--mode", "hybrid"],
            ));
        }
        outs.push(run_ok(&repo2, &models2, &["index", "--embed", "--json"]));
        outs
    });
    let outs = tokio::task::spawn_blocking(move || cli.join().unwrap())
        .await
        .unwrap();
    for out in &outs[..3] {
        let v = json_of(out);
        assert_eq!(v["mode"], "hybrid", "{v}");
    }
    // Whoever held the embedding lock, the store ends complete: the CLI run embedded the rest,
    // or the server's background run did; wait for the latter.
    let started = Instant::now();
    while texts(&repo, &models).1 > 0 {
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "coverage stuck: {:?}",
            texts(&repo, &models)
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    server.stop().await;
    let (cached, _) = cache_of(&repo, &models);
    assert!(cached >= total, "{cached} of {total}");
    // status agrees once the state is saved by the last writer; a fresh open always does.
    assert_eq!(texts(&repo, &models), (total, 0));
    let status = json_of(&run_ok(&repo, &models, &["status", "--json"]));
    assert!(status.to_string().contains("coverage"), "{status}");
}
