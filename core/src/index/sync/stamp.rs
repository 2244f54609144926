//! The walk stamp: what a full walk saw besides the files — every directory it entered with its
//! change time, and every ignore file that shaped it — so that a later sync can tell with `stat`
//! calls alone that a new walk would find the same files, and skip the walk.
//!
//! Why that is sound. A directory's list of entries changes only by creating, removing or
//! renaming an entry in it (`link`, `unlink`, `rename`, `mkdir`, `rmdir`, …), and each of those
//! sets the directory's ctime (POSIX); so does a change of its mode or owner, which can make it
//! unreadable. What a walk yields from the same entries depends further on the ignore files
//! (`.gitignore`, `.ignore` and `.git/info/exclude` in each walked directory and in the ancestors
//! of each walk start, and git's global excludes file, as the `ignore` crate reads them), on the
//! configuration (`exclude_patterns`, `source_dirs`) and on which `source_dirs` exist: each of
//! those is in the stamp ([`WalkStamp::inputs`], [`WalkStamp::ignore_files`]). File contents are
//! checked as before, by size and mtime per file of the sync state.
//!
//! Races. The walker opens a directory and reads an ignore file before the stamp stats them, so
//! a change in between would be recorded without having been walked. Every such change happens
//! after the walk started, so a walk that records any ctime or ignore-file mtime later than
//! [`RACY_WINDOW_NS`] before its start records no stamp (the window also covers a change in the
//! same clock tick as the recorded time, as git's "racy clean" rule does), and the next sync
//! walks again.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{RACY_WINDOW_NS, par_map, unix_ns};
use code_intel_session::config::Config;

/// Names of ignore files the walker reads in every directory it enters (relative to it).
const IGNORE_FILES: [&str; 3] = [".gitignore", ".ignore", ".git/info/exclude"];

/// What a full walk saw besides the files; stored in `sync_state.json` ([`super::SyncState::walk`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WalkStamp {
    /// The walk's inputs besides the tree: the scope settings of the configuration, the walk
    /// starts and the path of git's global excludes file.
    pub inputs: String,
    /// Every directory the walk entered (absolute path) → its ctime, nanoseconds since the epoch.
    pub dirs: BTreeMap<String, i64>,
    /// Every ignore file the walk depended on (absolute path) → `[size, mtime_ns]`, or `null` for
    /// one that did not exist where its creation would not change a walked directory's ctime (the
    /// ancestors of a start, the global excludes file).
    pub ignore_files: BTreeMap<String, Option<(u64, i64)>>,
}

/// One walked directory as [`record_dir`] saw it.
pub(super) struct DirStamp {
    path: String,
    ctime_ns: i64,
    ignore_files: Vec<(String, (u64, i64))>,
}

impl DirStamp {
    /// The latest time stamp the walk depends on here: the ctime or an ignore file's mtime.
    fn latest(&self) -> i64 {
        self.ignore_files
            .iter()
            .map(|(_, (_, mtime))| *mtime)
            .fold(self.ctime_ns, i64::max)
    }
}

/// The inputs of a walk besides the tree (see [`WalkStamp::inputs`]).
pub(super) fn inputs(config: &Config, starts: &[PathBuf]) -> String {
    inputs_with(
        config,
        starts,
        ignore::gitignore::gitconfig_excludes_path().as_deref(),
    )
}

/// [`inputs`] with git's global excludes file already looked up (it reads git's config files).
fn inputs_with(config: &Config, starts: &[PathBuf], global_excludes: Option<&Path>) -> String {
    serde_json::json!({
        "source_dirs": config.source_dirs,
        "exclude_patterns": config.exclude_patterns,
        "starts": starts,
        "global_excludes": global_excludes,
    })
    .to_string()
}

fn ctime_ns(m: &std::fs::Metadata) -> i64 {
    m.ctime()
        .saturating_mul(1_000_000_000)
        .saturating_add(m.ctime_nsec())
}

fn file_stat(path: &Path) -> Option<(u64, i64)> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.len(), m.modified().map(unix_ns).unwrap_or(0)))
}

/// Whether a time stamp is too recent to vouch for a walk that started at `walk_start` (both
/// nanoseconds since the epoch).
fn too_recent(ns: i64, walk_start: i64) -> bool {
    ns.saturating_add(RACY_WINDOW_NS) >= walk_start
}

/// Stats a directory the walker hands over and the ignore files in it. `None` when the
/// directory cannot be stat'ed or its path is not UTF-8: the walk then records no stamp.
pub(super) fn record_dir(dir: &Path) -> Option<DirStamp> {
    let m = std::fs::symlink_metadata(dir).ok()?;
    let mut ignore_files = Vec::new();
    for name in IGNORE_FILES {
        let path = dir.join(name);
        if let Some(stat) = file_stat(&path) {
            ignore_files.push((path.to_str()?.to_owned(), stat));
        }
    }
    Some(DirStamp {
        path: dir.to_str()?.to_owned(),
        ctime_ns: ctime_ns(&m),
        ignore_files,
    })
}

/// The stamp of a walk over `starts` that began at `walk_start` (nanoseconds since the epoch)
/// and entered `dirs` (`None` entries: a directory [`record_dir`] could not stat); `None` when
/// any of it is missing or too recent to trust.
pub(super) fn build(
    config: &Config,
    starts: &[PathBuf],
    walk_start: i64,
    dirs: Vec<Option<DirStamp>>,
) -> Option<WalkStamp> {
    let global_excludes = ignore::gitignore::gitconfig_excludes_path();
    let mut stamp = WalkStamp {
        inputs: inputs_with(config, starts, global_excludes.as_deref()),
        ..WalkStamp::default()
    };
    for d in dirs {
        let d = d?;
        if too_recent(d.latest(), walk_start) {
            return None;
        }
        stamp.dirs.insert(d.path, d.ctime_ns);
        for (path, stat) in d.ignore_files {
            stamp.ignore_files.insert(path, Some(stat));
        }
    }
    // Ignore files the walker reads outside the walked directories: those of every ancestor of a
    // start (the `ignore` crate's `parents`), and git's global excludes file.
    let mut outside: Vec<PathBuf> = Vec::new();
    for start in starts {
        for ancestor in start.ancestors().skip(1) {
            outside.extend(IGNORE_FILES.iter().map(|n| ancestor.join(n)));
        }
    }
    outside.extend(global_excludes);
    for path in outside {
        let key = path.to_str()?.to_owned();
        if stamp.ignore_files.contains_key(&key) {
            continue;
        }
        let stat = file_stat(&path);
        if stat.is_some_and(|s| too_recent(s.1, walk_start)) {
            return None;
        }
        stamp.ignore_files.insert(key, stat);
    }
    Some(stamp)
}

impl WalkStamp {
    /// Whether a walk over `starts` with `config` would find the same files as the walk that made
    /// this stamp: same inputs, every directory's ctime and every ignore file's size and mtime
    /// unchanged. One `stat` per directory and ignore file.
    pub fn holds(&self, config: &Config, starts: &[PathBuf]) -> bool {
        let dirs: Vec<(&String, &i64)> = self.dirs.iter().collect();
        self.inputs == inputs(config, starts)
            && par_map(&dirs, |&(path, &ctime)| {
                std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir() && ctime_ns(&m) == ctime)
            })
            .into_iter()
            .all(|same| same)
            && self
                .ignore_files
                .iter()
                .all(|(path, &stat)| file_stat(Path::new(path)) == stat)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aged(path: &Path) {
        let old = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }

    #[test]
    fn a_fresh_directory_is_not_trusted_and_a_stamp_notices_changes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
        aged(&root.join(".gitignore"));
        let config = Config::default();
        let starts = vec![root.clone()];
        let now = unix_ns(std::time::SystemTime::now());
        // Just created: its ctime is within the racy window of a walk starting now, so no stamp.
        assert!(build(&config, &starts, now, vec![record_dir(&root)]).is_none());

        // A walk that started later (as if the directory were older): the stamp holds until
        // something changes.
        let later = now + 2 * RACY_WINDOW_NS;
        let stamp = build(&config, &starts, later, vec![record_dir(&root)]).expect("trusted");
        assert!(stamp.holds(&config, &starts));
        assert!(
            stamp
                .ignore_files
                .contains_key(root.join(".gitignore").to_str().unwrap())
        );

        std::fs::write(root.join(".gitignore"), "*.tmp\n").unwrap();
        assert!(!stamp.holds(&config, &starts), "an edited .gitignore");
        std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
        aged(&root.join(".gitignore"));
        assert!(stamp.holds(&config, &starts), "back as recorded");

        // Past the file system's clock tick (a few ms), so the new entry gets a new ctime.
        std::thread::sleep(std::time::Duration::from_millis(50));
        std::fs::write(root.join("new.py"), "x = 1\n").unwrap();
        assert!(
            !stamp.holds(&config, &starts),
            "a new file changes the ctime"
        );

        let other = Config {
            exclude_patterns: vec!["*.py".into()],
            ..Config::default()
        };
        let later = unix_ns(std::time::SystemTime::now()) + 2 * RACY_WINDOW_NS;
        let stamp = build(&config, &starts, later, vec![record_dir(&root)]).unwrap();
        assert!(stamp.holds(&config, &starts));
        assert!(!stamp.holds(&other, &starts), "other exclude patterns");
        assert!(!stamp.holds(&config, &[root.join("src")]), "other starts");
        assert!(
            build(&config, &starts, later, vec![None]).is_none(),
            "an unstatable directory"
        );
    }
}
