//! Incremental sync and the lexical index on inline multi-file fixtures: add / modify / delete /
//! rename against a from-scratch build, the mtime prefilter, crash recovery, locking, CJK and
//! identifier-aware search.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, SystemTime};

use code_intel_core::index::{CodeIndex, IndexError, SyncProgress, SyncReport};
use code_intel_session::config::Config;
use code_intel_session::repo_path::RepoRoot;

/// Materialises `files` (path, content) in a fresh temp dir with mtimes an hour in the past, so
/// that the racy-mtime rule does not force re-hashing.
fn fixture(files: &[(&str, &str)]) -> (tempfile::TempDir, RepoRoot) {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in files {
        write_old(dir.path(), path, content);
    }
    let root = RepoRoot::new(dir.path()).unwrap();
    (dir, root)
}

fn write_old(root: &Path, path: &str, content: &str) {
    let p = root.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, content).unwrap();
    set_mtime(&p, SystemTime::now() - Duration::from_secs(3600));
}

fn set_mtime(p: &Path, t: SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(p)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

fn config() -> Config {
    Config {
        source_dirs: Vec::new(),
        ..Config::default()
    }
}

fn sync(index: &CodeIndex) -> SyncReport {
    index.sync(&mut |_| {}).unwrap()
}

/// Every chunk of the index as (path, start, end, symbol, kind, sha256), for the given paths.
fn dump(
    index: &CodeIndex,
    paths: &BTreeSet<String>,
) -> BTreeSet<(String, u32, u32, String, String, String)> {
    let mut out = BTreeSet::new();
    for p in paths {
        for c in index.chunks_of(p).unwrap() {
            out.insert((
                c.file,
                c.start_line,
                c.end_line,
                c.qualified_name,
                c.kind.name().to_string(),
                c.sha256,
            ));
        }
    }
    out
}

/// All regular files under `root` outside `.code-intel`, repo-relative.
fn files_on_disk(root: &Path) -> BTreeSet<String> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeSet<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            if e.file_name() == ".code-intel" {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                walk(base, &p, out);
            } else {
                out.insert(p.strip_prefix(base).unwrap().to_str().unwrap().to_string());
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(root, root, &mut out);
    out
}

/// Asserts the index of `root` holds exactly what a fresh index of a copy of its files holds.
/// `extra` are paths that must have no chunks (deleted or renamed away).
fn assert_matches_from_scratch(index: &CodeIndex, root: &Path, extra: &[&str]) {
    let copy = tempfile::tempdir().unwrap();
    let files = files_on_disk(root);
    for f in &files {
        let content = std::fs::read(root.join(f)).unwrap();
        std::fs::create_dir_all(copy.path().join(f).parent().unwrap()).unwrap();
        std::fs::write(copy.path().join(f), content).unwrap();
    }
    let fresh_root = RepoRoot::new(copy.path()).unwrap();
    let fresh = CodeIndex::open(&fresh_root, &config()).unwrap();
    let report = sync(&fresh);
    let mut paths = files.clone();
    paths.extend(extra.iter().map(|s| s.to_string()));
    let got = dump(index, &paths);
    let want = dump(&fresh, &paths);
    assert!(!want.is_empty(), "the fixture must produce chunks");
    assert_eq!(got, want);
    assert_eq!(index.stats().chunks, report.chunks, "no stray documents");
}

const APP_PY: &str = r#"import os


class UserService:
    """Loads users."""

    def getUserName(self, user_id):
        return os.environ.get(user_id)

    def save(self, user):
        return True


def helper():
    return 42
"#;

const ROUTES_JS: &str = r#"function createApplication() {
  return { listen: listen };
}

function listen(port) {
  return port;
}

module.exports = createApplication;
"#;

const CONTROLLER_PHP: &str = r#"<?php
namespace App\Http\Controllers;

use App\Models\User;

class UserController extends Controller
{
    public function store($request)
    {
        return User::create($request->all());
    }
}
"#;

fn base() -> (tempfile::TempDir, RepoRoot) {
    fixture(&[
        ("src/app.py", APP_PY),
        ("lib/routes.js", ROUTES_JS),
        ("app/Http/Controllers/UserController.php", CONTROLLER_PHP),
        ("README.md", "# Fixture\n\nSome words about getUserName.\n"),
    ])
}

#[test]
fn first_sync_indexes_everything_and_a_second_reads_nothing() {
    let (dir, root) = base();
    let index = CodeIndex::open(&root, &config()).unwrap();
    assert!(index.needs_sync());
    let first = sync(&index);
    assert_eq!(
        (first.files_added, first.files_modified, first.files_deleted),
        (4, 0, 0)
    );
    assert!(first.full_rebuild);
    assert!(
        first.chunks > 4 && first.chunks_written as u64 == first.chunks,
        "{first:?}"
    );
    assert!(!index.needs_sync());
    assert!(root.state_dir().join("sync_state.json").is_file());

    let second = sync(&index);
    assert_eq!(second.files_unchanged, 4);
    assert_eq!(
        second.files_hashed, 0,
        "the size+mtime prefilter must avoid reading files"
    );
    assert_eq!(
        (
            second.files_added,
            second.files_modified,
            second.chunks_written
        ),
        (0, 0, 0)
    );
    assert!(!second.full_rebuild);
    assert_eq!(second.chunks, first.chunks);
    assert_matches_from_scratch(&index, dir.path(), &[]);

    let stats = index.stats();
    assert_eq!(stats.files, 4);
    assert_eq!(stats.chunks, first.chunks);
    assert!(stats.last_sync.is_some());

    // The stage split: the first sync read its files on workers; the second read nothing.
    assert!(first.timings.workers >= 1, "{:?}", first.timings);
    assert_eq!(second.timings.workers, 0, "{:?}", second.timings);
    let json = serde_json::to_value(&first).unwrap();
    for stage in [
        "walk_ms",
        "pipeline_ms",
        "read_ms",
        "parse_ms",
        "documents_ms",
        "index_ms",
        "commit_ms",
        "state_ms",
    ] {
        assert!(json["timings"][stage].is_u64(), "{stage} in {json}");
    }
}

#[test]
fn pending_changes_predict_what_the_next_sync_does() {
    use code_intel_core::index::sync::{PendingChanges, pending_changes};
    let (dir, root) = base();
    assert_eq!(
        pending_changes(&root, &config()).unwrap(),
        None,
        "never synced"
    );
    let index = CodeIndex::open(&root, &config()).unwrap();
    sync(&index);
    assert_eq!(
        pending_changes(&root, &config()).unwrap(),
        Some(PendingChanges::default())
    );
    write_old(dir.path(), "added.py", "def added():\n    return 1\n");
    std::fs::write(
        dir.path().join("src/app.py"),
        "def changed():\n    return 2\n",
    )
    .unwrap();
    std::fs::remove_file(dir.path().join("lib/routes.js")).unwrap();
    let pending = pending_changes(&root, &config()).unwrap().unwrap();
    assert_eq!(
        pending,
        PendingChanges {
            added: 1,
            modified: 1,
            deleted: 1
        }
    );
    let report = sync(&index);
    assert_eq!(
        (
            report.files_added,
            report.files_modified,
            report.files_deleted
        ),
        (pending.added, pending.modified, pending.deleted)
    );
    assert!(
        pending_changes(&root, &config())
            .unwrap()
            .unwrap()
            .is_empty()
    );
}

#[test]
fn add_modify_delete_and_rename_match_a_from_scratch_build() {
    let (dir, root) = base();
    let index = CodeIndex::open(&root, &config()).unwrap();
    sync(&index);

    // Add.
    write_old(
        dir.path(),
        "src/extra.py",
        "def extra_function():\n    return 'extra'\n",
    );
    let r = sync(&index);
    assert_eq!(
        (r.files_added, r.files_modified, r.files_deleted),
        (1, 0, 0),
        "{r:?}"
    );
    assert_eq!(
        index.search("extra function", 5).unwrap()[0].file,
        "src/extra.py"
    );
    assert_matches_from_scratch(&index, dir.path(), &[]);

    // Modify (same size would also be caught: the mtime differs).
    write_old(
        dir.path(),
        "src/app.py",
        &APP_PY.replace("def save(self, user)", "def persist(self, user)"),
    );
    let r = sync(&index);
    assert_eq!(
        (r.files_added, r.files_modified, r.files_deleted),
        (0, 1, 0),
        "{r:?}"
    );
    assert!(
        index
            .search("persist", 5)
            .unwrap()
            .iter()
            .any(|h| h.symbol == "persist")
    );
    assert!(
        !index
            .search("save", 5)
            .unwrap()
            .iter()
            .any(|h| h.symbol == "save")
    );
    assert_matches_from_scratch(&index, dir.path(), &[]);

    // Delete.
    std::fs::remove_file(dir.path().join("lib/routes.js")).unwrap();
    let r = sync(&index);
    assert_eq!(
        (r.files_added, r.files_modified, r.files_deleted),
        (0, 0, 1),
        "{r:?}"
    );
    assert!(index.chunks_of("lib/routes.js").unwrap().is_empty());
    assert!(
        index
            .search("createApplication", 5)
            .unwrap()
            .iter()
            .all(|h| h.file != "lib/routes.js")
    );
    assert_matches_from_scratch(&index, dir.path(), &["lib/routes.js"]);

    // Rename = delete + add.
    std::fs::rename(
        dir.path().join("src/extra.py"),
        dir.path().join("src/renamed.py"),
    )
    .unwrap();
    let r = sync(&index);
    assert_eq!(
        (r.files_added, r.files_modified, r.files_deleted),
        (1, 0, 1),
        "{r:?}"
    );
    assert_eq!(
        index.search("extra function", 5).unwrap()[0].file,
        "src/renamed.py"
    );
    assert_matches_from_scratch(&index, dir.path(), &["src/extra.py", "lib/routes.js"]);
}

#[test]
fn an_mtime_only_touch_rehashes_but_does_not_rechunk() {
    let (dir, root) = base();
    let index = CodeIndex::open(&root, &config()).unwrap();
    let first = sync(&index);
    set_mtime(
        &dir.path().join("src/app.py"),
        SystemTime::now() - Duration::from_secs(60),
    );
    let r = sync(&index);
    assert_eq!(r.files_hashed, 1);
    assert_eq!((r.files_modified, r.chunks_written), (0, 0), "{r:?}");
    assert_eq!(r.files_unchanged, 4);
    assert_eq!(r.chunks, first.chunks);
    // The new mtime is recorded: the next sync reads nothing.
    assert_eq!(sync(&index).files_hashed, 0);
}

#[test]
fn an_edit_within_the_mtime_granularity_is_still_seen() {
    // Written "now": the entry is racy, so a same-size rewrite in the same clock tick is caught.
    let (dir, root) = base();
    let p = dir.path().join("src/app.py");
    std::fs::write(&p, APP_PY).unwrap();
    let index = CodeIndex::open(&root, &config()).unwrap();
    sync(&index);
    let same_size = APP_PY.replace("return 42", "return 43");
    std::fs::write(&p, &same_size).unwrap();
    let r = sync(&index);
    assert_eq!(r.files_modified, 1, "{r:?}");
    assert_matches_from_scratch(&index, dir.path(), &[]);
}

#[test]
fn a_stale_state_file_after_a_crash_converges_to_a_from_scratch_build() {
    // A crash between the tantivy commit and the state write leaves the previous state next to
    // the newer index. Simulate it by restoring the old state file after a successful sync.
    let (dir, root) = base();
    let index = CodeIndex::open(&root, &config()).unwrap();
    sync(&index);
    let state_path = root.state_dir().join("sync_state.json");
    let old_state = std::fs::read(&state_path).unwrap();

    write_old(
        dir.path(),
        "src/app.py",
        &APP_PY.replace("helper", "assistant"),
    );
    std::fs::remove_file(dir.path().join("lib/routes.js")).unwrap();
    write_old(dir.path(), "src/new.py", "def brand_new():\n    pass\n");
    sync(&index);
    std::fs::write(&state_path, old_state).unwrap();
    assert!(
        index.needs_sync(),
        "a state that does not describe the index means a sync is due"
    );

    let r = sync(&index);
    assert!(r.full_rebuild, "{r:?}");
    assert_matches_from_scratch(&index, dir.path(), &["lib/routes.js"]);
    assert!(!index.search("assistant", 5).unwrap().is_empty());
    assert!(
        index
            .search("helper", 5)
            .unwrap()
            .iter()
            .all(|h| h.symbol != "helper")
    );
}

#[test]
fn a_failed_state_write_is_repaired_by_the_next_sync() {
    let (dir, root) = base();
    let index = CodeIndex::open(&root, &config()).unwrap();
    sync(&index);
    // Make the atomic rename of the state file fail: a non-empty directory in its place.
    let state_path = root.state_dir().join("sync_state.json");
    std::fs::remove_file(&state_path).unwrap();
    std::fs::create_dir_all(state_path.join("blocker")).unwrap();
    write_old(
        dir.path(),
        "src/app.py",
        &APP_PY.replace("getUserName", "fetchUserName"),
    );

    let err = index.sync(&mut |_| {}).unwrap_err();
    assert!(matches!(err, IndexError::Persist(_)), "{err}");
    // The commit went through: the change is already searchable.
    assert!(
        index
            .search("fetchUserName", 3)
            .unwrap()
            .iter()
            .any(|h| h.symbol == "fetchUserName")
    );

    std::fs::remove_dir_all(&state_path).unwrap();
    let r = sync(&index);
    assert!(r.full_rebuild);
    assert_matches_from_scratch(&index, dir.path(), &[]);
}

#[test]
fn a_deleted_index_is_rebuilt_even_though_the_state_file_remains() {
    let (dir, root) = base();
    {
        let index = CodeIndex::open(&root, &config()).unwrap();
        sync(&index);
    }
    std::fs::remove_dir_all(root.state_dir().join("index")).unwrap();
    let index = CodeIndex::open(&root, &config()).unwrap();
    assert!(index.needs_sync());
    let r = sync(&index);
    assert!(r.full_rebuild);
    assert_eq!(r.files_added, 4);
    assert_matches_from_scratch(&index, dir.path(), &[]);
}

#[test]
fn a_second_syncer_waits_for_the_lock_then_gets_a_clear_busy_error() {
    let (_dir, root) = base();
    let mut index = CodeIndex::open(&root, &config()).unwrap();
    index.set_lock_wait(Duration::from_millis(300));
    // Hold the sync lock as another process would.
    let lock = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(root.state_dir().join("index/sync.lock"))
        .unwrap();
    lock.lock().unwrap();
    let mut events = Vec::new();
    let err = index.sync(&mut |p| events.push(p)).unwrap_err();
    assert!(matches!(err, IndexError::Busy { .. }), "{err:?}");
    assert_eq!(
        events,
        [SyncProgress::WaitingForLock { timeout_secs: 0 }],
        "it says it waits, once, and does nothing else"
    );
    let msg = err.to_string();
    assert!(
        msg.starts_with("another code-intel process has been indexing ")
            && msg.ends_with("; retry when it finishes"),
        "{msg}"
    );
    // Released while the second syncer waits: it goes ahead.
    index.set_lock_wait(Duration::from_secs(60));
    let report = std::thread::scope(|s| {
        let waiter = s.spawn(|| index.sync(&mut |_| {}));
        std::thread::sleep(Duration::from_millis(200));
        drop(lock);
        waiter.join().unwrap()
    });
    assert!(report.unwrap().files_added > 0);
}

/// Writes `garbage` over the whole of the first index file whose name ends with `suffix`.
fn damage_segment_file(root: &RepoRoot, suffix: &str, delete: bool) {
    let dir = root.state_dir().join("index/lexical");
    let victim = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_str().unwrap().ends_with(suffix))
        .unwrap_or_else(|| panic!("no *{suffix} file in {}", dir.display()));
    if delete {
        std::fs::remove_file(&victim).unwrap();
    } else {
        let len = std::fs::metadata(&victim).unwrap().len() as usize;
        std::fs::write(&victim, "garbage!".repeat(len / 8 + 1)).unwrap();
    }
}

#[test]
fn a_damaged_index_is_rebuilt_from_the_sources_on_open() {
    type Damage = fn(&RepoRoot);
    let cases: [(&str, Damage); 4] = [
        ("truncated meta.json", |root| {
            let meta = root.state_dir().join("index/lexical/meta.json");
            let text = std::fs::read(&meta).unwrap();
            std::fs::write(&meta, &text[..text.len() / 2]).unwrap();
        }),
        ("deleted store file", |root| {
            damage_segment_file(root, ".store", true)
        }),
        ("deleted idx file", |root| {
            damage_segment_file(root, ".idx", true)
        }),
        ("garbage term file", |root| {
            damage_segment_file(root, ".term", false)
        }),
    ];
    for (name, damage) in cases {
        let (dir, root) = base();
        let before = {
            let index = CodeIndex::open(&root, &config()).unwrap();
            sync(&index);
            index.search("user name", 5).unwrap()
        };
        assert!(!before.is_empty(), "{name}: the fixture has getUserName");
        damage(&root);
        let index = CodeIndex::open(&root, &config()).unwrap();
        let why = index
            .repaired()
            .unwrap_or_else(|| panic!("{name}: not detected"));
        assert!(why.contains("rebuilt it from the sources"), "{name}: {why}");
        assert!(index.needs_sync(), "{name}");
        let report = sync(&index);
        assert!(report.full_rebuild, "{name}");
        assert_eq!(index.search("user name", 5).unwrap(), before, "{name}");
        assert_matches_from_scratch(&index, dir.path(), &[]);
        // Healthy again: the next open repairs nothing.
        assert!(
            CodeIndex::open(&root, &config())
                .unwrap()
                .repaired()
                .is_none()
        );
    }
}

#[test]
fn verify_finds_garbage_inside_a_segment_file_and_rebuild_clears_it() {
    let (dir, root) = base();
    let index = CodeIndex::open(&root, &config()).unwrap();
    sync(&index);
    index.verify().unwrap();
    let victim = std::fs::read_dir(root.state_dir().join("index/lexical"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "store"))
        .unwrap();
    // Damage the middle of the file: its footer (checked on open) stays intact.
    let mut bytes = std::fs::read(&victim).unwrap();
    bytes[0] ^= 0xFF;
    std::fs::write(&victim, bytes).unwrap();
    let err = index.verify().unwrap_err();
    assert!(matches!(err, IndexError::Corrupt { .. }), "{err:?}");
    assert!(err.to_string().contains("code-intel repair"), "{err}");
    drop(index);
    let index = CodeIndex::rebuild(&root, &config(), "asked to").unwrap();
    assert_eq!(index.repaired(), Some("asked to"));
    assert!(sync(&index).full_rebuild);
    index.verify().unwrap();
    assert_matches_from_scratch(&index, dir.path(), &[]);
}

#[test]
fn ignored_excluded_binary_and_large_files_are_not_indexed() {
    let big = format!("def big():\n    return '{}'\n", "x".repeat(3000));
    let (dir, root) = fixture(&[
        ("src/kept.py", "def kept():\n    pass\n"),
        (".gitignore", "generated/\n"),
        ("generated/out.py", "def generated_thing():\n    pass\n"),
        (
            "node_modules/pkg/index.js",
            "function fromNodeModules() {}\n",
        ),
        ("src/big.py", big.as_str()),
    ]);
    std::fs::write(dir.path().join("src/blob.bin"), b"\x00\x01binary\x00").unwrap();
    set_mtime(
        &dir.path().join("src/blob.bin"),
        SystemTime::now() - Duration::from_secs(3600),
    );
    let cfg = Config {
        max_file_bytes: 1000,
        ..config()
    };
    let index = CodeIndex::open(&root, &cfg).unwrap();
    let r = index.sync(&mut |_| {}).unwrap();
    let skipped: Vec<(&str, &str)> = r
        .files_skipped
        .iter()
        .map(|s| (s.path.as_str(), s.reason.as_str()))
        .collect();
    assert_eq!(
        skipped,
        vec![
            ("node_modules/", "vendored or build output"),
            (
                "src/big.py",
                format!("file too large ({} bytes, limit 1000)", big.len()).as_str()
            ),
            ("src/blob.bin", "binary file")
        ]
    );
    assert!(!index.chunks_of("src/kept.py").unwrap().is_empty());
    for gone in [
        "generated/out.py",
        "node_modules/pkg/index.js",
        "src/big.py",
        ".gitignore",
    ] {
        assert!(index.chunks_of(gone).unwrap().is_empty(), "{gone}");
    }
    // Skipped files are remembered: an unchanged binary is not read again.
    assert_eq!(index.sync(&mut |_| {}).unwrap().files_hashed, 0);
}

#[test]
fn packages_named_like_build_output_are_indexed_and_build_output_is_not() {
    let (_dir, root) = fixture(&[
        // coverage.py's own package, at the root: a Python package by its `__init__.py`.
        ("coverage/__init__.py", ""),
        ("coverage/control.py", "def start_measuring():\n    pass\n"),
        // A Java package named `vendor` and a Gradle build-logic package named `build`.
        (
            "orm/src/main/java/org/example/jpa/vendor/HibernateAdapter.java",
            "class HibernateAdapter { void adaptDialect() {} }\n",
        ),
        (
            "buildSrc/src/main/java/org/example/build/Conventions.java",
            "class Conventions { void applyConventions() {} }\n",
        ),
        // Hugo's `deps` Go package at the module root; Redis's bundled libraries in `deps/`.
        ("deps/deps.go", "package deps\n\nfunc NewDeps() {}\n"),
        (
            "vendored-c/deps/lua/lua.c",
            "int lua_main(void) { return 0; }\n",
        ),
        // Output: a coverage report and a Gradle build directory, neither a package.
        (
            "web/coverage/report.js",
            "function coverageReportOutput() {}\n",
        ),
        (
            "buildSrc/build/Conventions.java",
            "class Copied { void copiedOutput() {} }\n",
        ),
    ]);
    let index = CodeIndex::open(&root, &config()).unwrap();
    let r = index.sync(&mut |_| {}).unwrap();
    let skipped: Vec<&str> = r.files_skipped.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(
        skipped,
        vec!["buildSrc/build/", "vendored-c/deps/", "web/coverage/"]
    );
    for kept in [
        "coverage/control.py",
        "deps/deps.go",
        "orm/src/main/java/org/example/jpa/vendor/HibernateAdapter.java",
        "buildSrc/src/main/java/org/example/build/Conventions.java",
    ] {
        assert!(!index.chunks_of(kept).unwrap().is_empty(), "{kept}");
    }
}

#[test]
fn source_dirs_limit_the_walk_when_they_exist() {
    let (_dir, root) = base();
    let cfg = Config {
        source_dirs: vec!["src".into(), "missing".into()],
        ..Config::default()
    };
    let index = CodeIndex::open(&root, &cfg).unwrap();
    let r = index.sync(&mut |_| {}).unwrap();
    assert_eq!(r.files_added, 1);
    assert!(index.chunks_of("lib/routes.js").unwrap().is_empty());
}

#[test]
fn progress_reports_walk_reads_and_commit() {
    let (_dir, root) = base();
    let index = CodeIndex::open(&root, &config()).unwrap();
    let mut events = Vec::new();
    index
        .sync(&mut |p| events.push(serde_json::to_value(p).unwrap()))
        .unwrap();
    assert_eq!(
        events[0],
        serde_json::json!({"stage": "walked", "files": 4, "to_read": 4, "deleted": 0})
    );
    assert_eq!(events.iter().filter(|e| e["stage"] == "read").count(), 4);
    assert_eq!(
        events.last().unwrap(),
        &serde_json::json!({"stage": "committing"})
    );
}

#[test]
fn identifier_parts_and_natural_language_find_code() {
    let (_dir, root) = base();
    let index = CodeIndex::open(&root, &config()).unwrap();
    sync(&index);
    // The method and the class that lists it are the two best chunks (the chunk text carries
    // the names; rank.rs explains why names get no extra boost), the method first by file.
    let hits = index.search("user name", 5).unwrap();
    let top2: Vec<&str> = hits.iter().take(2).map(|h| h.symbol.as_str()).collect();
    assert!(top2.contains(&"getUserName"), "{hits:#?}");
    let method = hits.iter().find(|h| h.symbol == "getUserName").unwrap();
    assert_eq!(method.qualified_name, "UserService.getUserName");
    assert_eq!((method.start_line, method.end_line), (7, 8));
    assert_eq!(method.language.id(), "python");
    assert_eq!(method.kind.name(), "method");
    let files = index
        .search_files(
            "user name",
            5,
            &code_intel_core::index::rank::RankParams::default(),
        )
        .unwrap();
    assert_eq!(files[0].best.file, "src/app.py", "{files:#?}");
    let hits = index.search("get_user_name", 5).unwrap();
    assert_eq!(hits[0].symbol, "getUserName", "{hits:#?}");
    // Punctuation and query-syntax characters never error.
    for q in [
        "what's the user's name?!",
        "store(",
        "a AND (b OR",
        "\"unterminated",
        "-",
        "",
        "   ",
        "::",
    ] {
        index.search(q, 5).unwrap();
    }
    assert!(index.search("", 5).unwrap().is_empty());
    // PHP names: the FQCN parts are searchable; by file, the method represents its file.
    let files = index
        .search_files(
            "UserController store",
            3,
            &code_intel_core::index::rank::RankParams::default(),
        )
        .unwrap();
    assert_eq!(
        files[0].best.file, "app/Http/Controllers/UserController.php",
        "{files:#?}"
    );
    let names: Vec<&str> = std::iter::once(files[0].best.qualified_name.as_str())
        .chain(files[0].also.iter().map(|c| c.qualified_name.as_str()))
        .collect();
    assert!(
        names.contains(&r"App\Http\Controllers\UserController::store"),
        "{files:#?}"
    );
}

#[test]
fn japanese_comments_and_strings_are_searchable() {
    let (_dir, root) = fixture(&[
        (
            "src/auth.py",
            "def login(user):\n    # ユーザー認証を行う\n    return check(user)\n\n\ndef logout(user):\n    message = 'ログアウトしました'\n    return message\n",
        ),
        (
            "src/other.py",
            "def unrelated():\n    return 'english only'\n",
        ),
    ]);
    let index = CodeIndex::open(&root, &config()).unwrap();
    sync(&index);
    let hits = index.search("認証", 5).unwrap();
    assert_eq!(hits[0].symbol, "login", "{hits:#?}");
    let hits = index.search("ユーザー認証", 5).unwrap();
    assert_eq!(hits[0].symbol, "login");
    let hits = index.search("ログアウト", 5).unwrap();
    assert_eq!(hits[0].symbol, "logout");
    assert!(
        index
            .search("認証", 5)
            .unwrap()
            .iter()
            .all(|h| h.file == "src/auth.py")
    );
}

#[test]
fn a_japanese_request_finds_english_code_through_the_glossary() {
    let (_dir, root) = fixture(&[
        (
            "src/cache.ts",
            "export function clearExpiredEntries(cache: Map<string, Entry>) {\n  for (const [key, entry] of cache) {\n    if (entry.expired) cache.delete(key)\n  }\n}\n",
        ),
        (
            "src/router.ts",
            "export function resolveRoute(path: string) {\n  return routes.find((r) => r.path === path)\n}\n",
        ),
    ]);
    let index = CodeIndex::open(&root, &config()).unwrap();
    sync(&index);
    // No ASCII word and no CJK text in the code: only the glossary's English words can match.
    let request = "期限切れのキャッシュを削除する";
    let with = index
        .search_files(
            request,
            5,
            &code_intel_core::index::rank::RankParams::default(),
        )
        .unwrap();
    assert_eq!(with[0].best.file, "src/cache.ts", "{with:#?}");
    let without = index
        .search_files(
            request,
            5,
            &code_intel_core::index::rank::RankParams {
                glossary: 0.0,
                ..Default::default()
            },
        )
        .unwrap();
    assert!(without.is_empty(), "{without:#?}");
}

#[test]
fn changing_chunk_options_rebuilds() {
    let (_dir, root) = base();
    {
        let index = CodeIndex::open(&root, &config()).unwrap();
        sync(&index);
    }
    let cfg = Config {
        window_lines: 10,
        ..config()
    };
    let index = CodeIndex::open(&root, &cfg).unwrap();
    assert!(index.needs_sync());
    assert!(sync(&index).full_rebuild);
    assert!(!sync(&index).full_rebuild);
}

#[test]
fn the_age_of_a_sync_does_not_make_one_due() {
    // `sync_ttl_hours` is read but unused: whether files changed is the sync's own `stat`
    // check, run before every index-backed answer (docs/DESIGN.md#freshness).
    let (_dir, root) = base();
    let cfg = Config {
        sync_ttl_hours: 0.0,
        ..config()
    };
    let index = CodeIndex::open(&root, &cfg).unwrap();
    assert!(index.needs_sync(), "never synced");
    sync(&index);
    assert!(!index.needs_sync());
}

#[test]
fn concurrent_syncs_wait_for_each_other_and_both_succeed() {
    let (dir, root) = base();
    for i in 0..20 {
        write_old(
            dir.path(),
            &format!("src/gen_{i}.py"),
            &format!("def generated_{i}():\n    return {i}\n"),
        );
    }
    let a = CodeIndex::open(&root, &config()).unwrap();
    let b = CodeIndex::open(&root, &config()).unwrap();
    let (ra, rb) = std::thread::scope(|s| {
        let ha = s.spawn(|| a.sync(&mut |_| {}));
        let hb = s.spawn(|| b.sync(&mut |_| {}));
        (ha.join().unwrap(), hb.join().unwrap())
    });
    let (ra, rb) = (ra.unwrap(), rb.unwrap());
    // One of them indexed everything; the other found the work done.
    assert_eq!(
        [ra.files_added, rb.files_added]
            .iter()
            .filter(|&&n| n == 0)
            .count(),
        1,
        "{ra:?} {rb:?}"
    );
    // Whatever interleaving happened, one more sync gives the from-scratch result.
    sync(&a);
    assert_matches_from_scratch(&a, dir.path(), &[]);
    let again = sync(&b);
    assert_eq!(
        (again.files_added, again.chunks_written),
        (0, 0),
        "{again:?}"
    );
    assert_matches_from_scratch(&b, dir.path(), &[]);
}

/// Waits until the fixture's directories are older than the racy window (2 s) as seen from a walk
/// starting now, so that a walk may record its stamp (directory ctimes cannot be set back).
fn wait_out_the_racy_window() {
    std::thread::sleep(Duration::from_millis(2_100));
}

#[test]
fn a_sync_skips_the_walk_while_its_stamp_holds_and_walks_when_anything_it_depends_on_changes() {
    let (dir, root) = base();
    let index = CodeIndex::open(&root, &config()).unwrap();
    let first = sync(&index);
    assert!(first.walked, "a first sync walks");
    wait_out_the_racy_window();

    // This walk is old enough to trust: it records the stamp; the next sync does not walk.
    assert!(sync(&index).walked);
    let quiet = sync(&index);
    assert!(!quiet.walked, "{quiet:?}");
    assert_eq!((quiet.files_unchanged, quiet.files_hashed), (4, 0));
    assert_eq!(quiet.chunks, first.chunks);

    // A changed file is found by its stat, without a walk.
    write_old(
        dir.path(),
        "src/app.py",
        &format!("{APP_PY}\ndef stamped_extra():\n    return 1\n"),
    );
    let edited = sync(&index);
    assert!(!edited.walked);
    assert_eq!(edited.files_modified, 1);
    assert_eq!(
        index.search("stamped_extra", 5).unwrap()[0].file,
        "src/app.py"
    );

    // A new file in a walked directory changes its ctime: walk, and the file is indexed.
    write_old(
        dir.path(),
        "lib/fresh_module.js",
        "function freshlyAdded() { return 2; }\n",
    );
    let added = sync(&index);
    assert!(added.walked);
    assert_eq!(added.files_added, 1);
    assert_eq!(
        index.search("freshlyAdded", 5).unwrap()[0].file,
        "lib/fresh_module.js"
    );
    wait_out_the_racy_window();
    assert!(sync(&index).walked, "records the new stamp");
    assert!(!sync(&index).walked);

    // An edited .gitignore (an existing one: no directory changes) is in the stamp: walk, and
    // the newly ignored file leaves the index.
    write_old(dir.path(), ".gitignore", "# nothing yet\n");
    assert!(sync(&index).walked);
    wait_out_the_racy_window();
    assert!(sync(&index).walked);
    assert!(!sync(&index).walked);
    write_old(dir.path(), ".gitignore", "lib/fresh_module.js\n");
    let ignored = sync(&index);
    assert!(ignored.walked);
    assert_eq!(ignored.files_deleted, 1);
    assert!(index.search("freshlyAdded", 5).unwrap().is_empty());

    // That walk changed no directory (the .gitignore was rewritten in place, with an old mtime):
    // its stamp is trusted at once. Other scope settings: walk.
    assert!(!sync(&index).walked);
    let narrower = Config {
        exclude_patterns: vec!["README.md".into()],
        ..config()
    };
    let other = CodeIndex::open(&root, &narrower).unwrap();
    let report = other.sync(&mut |_| {}).unwrap();
    assert!(report.walked);
    assert_eq!(report.files_deleted, 1);
    drop(other);

    // A deleted file: its directory's ctime changes; walk.
    let index = CodeIndex::open(&root, &config()).unwrap();
    wait_out_the_racy_window();
    assert!(sync(&index).walked);
    assert!(!sync(&index).walked);
    std::fs::remove_file(dir.path().join("src/app.py")).unwrap();
    let deleted = sync(&index);
    assert!(deleted.walked);
    assert_eq!(deleted.files_deleted, 1);
    assert_matches_from_scratch(&index, dir.path(), &["src/app.py"]);
}

#[test]
fn a_quiet_sync_reports_what_a_walk_reports_also_for_paths_the_state_must_escape() {
    // A sync that finds nothing decides from a borrowed view of the state file (sync.rs,
    // `StateView`); a path JSON escapes (quote, backslash) cannot be borrowed, so that sync takes
    // the full pass. Either way the report must be the walk's: unchanged files, and the skipped
    // ones (a lock file by name, a vendored directory) in path order.
    let (dir, root) = fixture(&[
        ("src/app.py", APP_PY),
        ("src/caf\u{e9}.py", "def accented():\n    return 1\n"),
        ("package-lock.json", "{}\n"),
        ("vendor/lib/x.php", "<?php\nfunction vendored() {}\n"),
    ]);
    let index = CodeIndex::open(&root, &config()).unwrap();
    sync(&index);
    wait_out_the_racy_window();
    let walked = sync(&index);
    assert!(walked.walked);
    let quiet = sync(&index);
    assert!(!quiet.walked, "{quiet:?}");
    assert_eq!(quiet.files_unchanged, walked.files_unchanged);
    assert_eq!(quiet.files_hashed, 0);
    let paths = |r: &SyncReport| -> Vec<String> {
        r.files_skipped.iter().map(|f| f.path.clone()).collect()
    };
    assert_eq!(paths(&quiet), paths(&walked));
    assert!(
        paths(&quiet).contains(&"package-lock.json".to_string()),
        "{quiet:?}"
    );

    // The same with a path that needs escaping in the state file, and an edit after it: found.
    write_old(
        dir.path(),
        "src/quote\"back\\slash.py",
        "def escaped():\n    return 2\n",
    );
    assert_eq!(sync(&index).files_added, 1);
    wait_out_the_racy_window();
    assert!(sync(&index).walked);
    let quiet = sync(&index);
    assert!(!quiet.walked);
    assert_eq!(quiet.files_unchanged, walked.files_unchanged + 1);
    assert_eq!(paths(&quiet), paths(&walked));
    write_old(
        dir.path(),
        "src/caf\u{e9}.py",
        "def accented():\n    return 1\n\n\ndef accent_added():\n    return 3\n",
    );
    let edited = sync(&index);
    assert_eq!((edited.files_modified, edited.walked), (1, false));
    assert_eq!(
        index.search("accent_added", 5).unwrap()[0].file,
        "src/caf\u{e9}.py"
    );
}

#[test]
fn a_file_covering_more_of_the_request_gains_over_one_repeating_a_word() {
    // `many.py` repeats one query word in three functions; `both.py` has each of the two words
    // once, in different functions. File coverage (RankParams::coverage) raises the file whose
    // chunks together match more of the request, relative to BM25 alone.
    let (_dir, root) = fixture(&[
        (
            "src/many.py",
            "def one():\n    realm = realm + realm\n\n\ndef two():\n    return realm * realm\n\n\ndef three():\n    print(realm, realm)\n",
        ),
        (
            "src/both.py",
            "def first():\n    return realm\n\n\ndef second():\n    return authenticate()\n",
        ),
        (
            "src/other.py",
            "def authenticate():\n    return 1\n\n\ndef unrelated():\n    return 2\n",
        ),
    ]);
    let index = CodeIndex::open(&root, &config()).unwrap();
    sync(&index);
    let ratio = |coverage: f32| {
        let params = code_intel_core::index::rank::RankParams {
            coverage,
            ..Default::default()
        };
        let hits = index
            .search_files("authenticate realm", 10, &params)
            .unwrap();
        let score = |f: &str| {
            hits.iter()
                .find(|h| h.best.file == f)
                .unwrap_or_else(|| panic!("{f} not found: {hits:?}"))
                .best
                .score
        };
        score("src/both.py") / score("src/many.py")
    };
    let (without, with) = (ratio(0.0), ratio(1.0));
    assert!(
        with > without * 1.05,
        "coverage 1: {with}, coverage 0: {without}"
    );
}

#[test]
fn a_template_brings_the_script_of_its_name_along() {
    let (_dir, root) = fixture(&[
        (
            "src/app/panel/panel.component.html",
            "<ul class=\"saved\">\n  <li *ngFor=\"let v of views\">\n    <span class=\"badge\">{{ v.counts }}</span>\n  </li>\n</ul>\n",
        ),
        (
            "src/app/panel/panel.component.ts",
            "export class PanelComponent {\n  open = false\n  toggle() {\n    this.open = !this.open\n  }\n}\n",
        ),
        (
            "src/app/other/other.component.ts",
            "export class OtherComponent {\n  close() {\n    return 1\n  }\n}\n",
        ),
        ("src/styles.css", ".badge {\n  color: red;\n}\n"),
    ]);
    let index = CodeIndex::open(&root, &config()).unwrap();
    sync(&index);
    let files = |query: &str, framework_link: f32| -> Vec<String> {
        let params = code_intel_core::index::rank::RankParams {
            framework_link,
            ..Default::default()
        };
        let found = index.search_files(query, 10, &params).unwrap();
        found.into_iter().map(|f| f.best.file).collect()
    };
    // Only the template says "badge counts"; its component class joins it, the stylesheet with
    // no script of its name brings nothing, and an unrelated script stays out.
    let without = files("badge counts", 0.0);
    assert!(!without.iter().any(|f| f.ends_with(".ts")), "{without:?}");
    let with = files("badge counts", 0.2);
    let at = |f: &str| with.iter().position(|x| x == f);
    let template = at("src/app/panel/panel.component.html").expect("the template matches");
    let script = at("src/app/panel/panel.component.ts").expect("its script joins");
    assert!(template < script, "{with:?}");
    assert!(!with.iter().any(|f| f.contains("other")), "{with:?}");
    // One way only: a hit on the script does not bring its template along.
    let script = files("toggle open", 0.2);
    assert_eq!(script, ["src/app/panel/panel.component.ts"], "{script:?}");
    // The tools see the relation too (analyze_structure's framework view).
    let neighbors = index
        .framework_neighbors("src/app/panel/panel.component.html", 50)
        .unwrap();
    assert_eq!(neighbors.len(), 1, "{neighbors:?}");
    assert_eq!(
        (neighbors[0].file.as_str(), neighbors[0].kind.as_str()),
        ("src/app/panel/panel.component.ts", "companion")
    );
}

#[test]
fn an_unreadable_file_is_listed_with_its_reason_until_it_can_be_read() {
    let (dir, root) = base();
    write_old(
        dir.path(),
        "src/secret.py",
        "def locked_away():\n    pass\n",
    );
    let secret = dir.path().join("src/secret.py");
    let mode = |m: u32| {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(m)).unwrap();
    };
    mode(0o000);
    if std::fs::read(&secret).is_ok() {
        // Root reads it anyway (run this test as an ordinary user).
        return;
    }
    let index = CodeIndex::open(&root, &config()).unwrap();
    let report = sync(&index);
    let listed: Vec<_> = report
        .files_skipped
        .iter()
        .map(|s| (s.path.as_str(), s.reason.as_str()))
        .collect();
    assert_eq!(
        listed,
        [(
            "src/secret.py",
            "cannot read: Permission denied (os error 13)"
        )]
    );
    // `status` lists it too, not only this sync's report.
    let stats = index.stats();
    assert!(
        stats
            .skipped
            .iter()
            .any(|c| c.examples == ["src/secret.py"] && c.reason.starts_with("cannot read")),
        "{:?}",
        stats.skipped
    );
    mode(0o644);
    let report = sync(&index);
    assert_eq!(report.files_added, 1, "{report:?}");
    assert!(
        index.stats().skipped.is_empty(),
        "{:?}",
        index.stats().skipped
    );
    assert_matches_from_scratch(&index, dir.path(), &[]);
}

/// `files` (path, content) materialised as by [`fixture`], indexed once.
fn indexed(files: &[(String, String)]) -> (tempfile::TempDir, RepoRoot, CodeIndex) {
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let (dir, root) = fixture(&refs);
    let index = CodeIndex::open(&root, &config()).unwrap();
    sync(&index);
    (dir, root, index)
}

/// (file, start, score) of every hit for `query`, scores rounded to 1e-4, best first and ties
/// by path (the order of equal scores follows document ids, which differ between indexes).
fn scored(index: &CodeIndex, query: &str) -> Vec<(String, u32, i64)> {
    let mut hits: Vec<_> = index
        .search(query, 100)
        .unwrap()
        .into_iter()
        .map(|h| {
            (
                h.file,
                h.start_line,
                (f64::from(h.score) * 1e4).round() as i64,
            )
        })
        .collect();
    hits.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
    hits
}

#[test]
fn merging_deleted_documents_gives_the_scores_of_a_fresh_index() {
    let file = |i: usize, words: usize| {
        (
            format!("src/m{i}.py"),
            format!(
                "def handler_{i}():\n    return '{}'\n",
                "ledger ".repeat(words)
            ),
        )
    };
    let first: Vec<(String, String)> = (0..30).map(|i| file(i, 1 + i % 7)).collect();
    let (dir, _root, index) = indexed(&first);
    // Rewrite three files of thirty (under the share of deleted documents that makes a sync
    // merge) several times: each sync deletes their old documents, which tantivy's BM25
    // statistics keep counting until a merge.
    let mut last = first.clone();
    for round in 0..3 {
        for (i, entry) in last.iter_mut().enumerate().take(3) {
            *entry = file(i, 20 + 7 * round + i);
            write_old(dir.path(), &entry.0, &entry.1);
        }
        sync(&index);
    }
    let (_fresh_dir, _fresh_root, fresh) = indexed(&last);
    let want = scored(&fresh, "ledger");
    assert_eq!(want.len(), 30, "{want:?}");
    assert!(
        index.deleted_ratios().unwrap().iter().any(|r| *r > 0.0),
        "{:?}",
        index.deleted_ratios()
    );
    assert_ne!(
        scored(&index, "ledger"),
        want,
        "the deleted documents should skew the statistics before the merge"
    );

    assert!(
        index.merge_deleted().unwrap(),
        "there were deleted documents to merge"
    );
    assert_eq!(scored(&index, "ledger"), want);
    assert!(!index.merge_deleted().unwrap(), "nothing left to merge");
    assert!(index.deleted_ratios().unwrap().iter().all(|r| *r == 0.0));
    // The sync state still matches the index: the next sync has nothing to do.
    let r = sync(&index);
    assert_eq!(
        (r.files_added, r.files_modified, r.files_deleted),
        (0, 0, 0),
        "{r:?}"
    );
    assert_eq!(scored(&index, "ledger"), want);
}

#[test]
fn a_sync_leaves_no_segment_with_a_fifth_of_its_documents_deleted() {
    let files: Vec<(String, String)> = (0..40)
        .map(|i| {
            (
                format!("src/m{i}.py"),
                format!("def f_{i}():\n    return {i}\n"),
            )
        })
        .collect();
    let (dir, _root, index) = indexed(&files);
    // A third of the files change at once (a branch switch): their documents in the first
    // segment are deleted, over the 20 % the merge policy tolerates.
    for (path, _) in files.iter().take(14) {
        write_old(
            dir.path(),
            path,
            "def changed_function():\n    return 'changed'\n",
        );
    }
    sync(&index);
    let ratios = index.deleted_ratios().unwrap();
    assert!(
        ratios.iter().all(|r| *r <= 0.2),
        "segments' deleted shares: {ratios:?}"
    );
}

/// `defined_symbols` (the names the relevance background samples) lists every definition's
/// qualified name, as the definitions lookup does, and no chunk that defines nothing.
#[test]
fn defined_symbols_are_the_qualified_names_of_every_definition() {
    let (_dir, root) = base();
    let index = CodeIndex::open(&root, &config()).unwrap();
    sync(&index);
    let names: BTreeSet<String> = index.defined_symbols().unwrap().into_iter().collect();
    let (defs, total) = index
        .definitions(
            "",
            code_intel_core::index::lexical::NameMatch::Substring,
            None,
            None,
            usize::MAX,
        )
        .unwrap();
    assert_eq!(index.defined_symbols().unwrap().len(), total);
    let want: BTreeSet<String> = defs.into_iter().map(|c| c.qualified_name).collect();
    assert_eq!(names, want);
    assert!(
        names.iter().any(|n| n.contains("UserController")),
        "{names:?}"
    );
    assert!(!names.contains(""), "{names:?}");
}
