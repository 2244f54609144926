//! The paths git tracks, read from `.git/index`, so that ignore rules apply as git applies them:
//! a tracked file is never ignored (git's own rule). Without it, a `.gitignore` rewritten to `*`
//! (in READY, or by a write the gate missed) would make every file of the repository count as
//! ignored build output, which the gate lets anyone write.
//!
//! Format: git's `Documentation/gitformat-index.txt`, versions 2, 3 and 4 (path prefix
//! compression). Only the entries' paths are read; extensions are ignored. std only: the hooks
//! stay lean.

use std::path::Path;

use crate::persist;

/// Largest index read: beyond it (a repository of millions of files) every path counts as
/// tracked, which only keeps the gate strict.
const MAX_INDEX_BYTES: u64 = 256 * 1024 * 1024;

/// What the index says about tracked paths.
#[derive(Debug)]
pub(crate) enum Tracked {
    /// No `.git/index` (not a git repository, or nothing staged yet): nothing is tracked.
    Nothing,
    /// The index exists but could not be read or parsed: every path counts as tracked
    /// (fail closed: no path is writable as "ignored").
    Everything,
    /// The tracked paths, sorted as git sorts them (byte order).
    Paths(Vec<String>),
}

impl Tracked {
    /// Reads the index of the repository at `root` (its `.git` directory; a `.git` file of a
    /// worktree or submodule is not followed: then nothing counts as tracked, as before).
    pub(crate) fn load(root: &Path) -> Tracked {
        // Not a git repository, or a worktree/submodule whose `.git` is a file pointing
        // elsewhere (not followed): nothing counts as tracked, as before this reader existed.
        let git = root.join(".git");
        if !git.is_dir() {
            return Tracked::Nothing;
        }
        let path = git.join("index");
        match path.symlink_metadata() {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Tracked::Nothing,
            Err(_) => return Tracked::Everything,
            Ok(m) if !m.is_file() => return Tracked::Everything,
            Ok(_) => {}
        }
        match persist::read_regular(&path, MAX_INDEX_BYTES) {
            Ok(Some(bytes)) => parse(&bytes).map_or(Tracked::Everything, Tracked::Paths),
            _ => Tracked::Everything,
        }
    }

    /// Whether `rel` (repository-relative, `/`-separated) is tracked, or, as a directory, holds a
    /// tracked path.
    pub(crate) fn holds(&self, rel: &str) -> bool {
        match self {
            Tracked::Nothing => false,
            Tracked::Everything => true,
            Tracked::Paths(paths) => {
                let i = paths.partition_point(|p| p.as_str() < rel);
                paths.get(i).is_some_and(|p| {
                    p == rel || (p.starts_with(rel) && p.as_bytes().get(rel.len()) == Some(&b'/'))
                }) || paths[i..]
                    .iter()
                    .take_while(|p| p.starts_with(rel))
                    .any(|p| p.as_bytes().get(rel.len()) == Some(&b'/'))
            }
        }
    }
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// The entry paths of an index file, sorted; `None` when it is not a version 2–4 index.
fn parse(b: &[u8]) -> Option<Vec<String>> {
    if b.get(0..4)? != b"DIRC" {
        return None;
    }
    let version = be32(b, 4)?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = usize::try_from(be32(b, 8)?).ok()?;
    let mut paths = Vec::with_capacity(count.min(b.len() / 62));
    let mut at = 12;
    let mut previous: Vec<u8> = Vec::new();
    for _ in 0..count {
        // ctime, mtime, dev, ino, mode, uid, gid, size (40 bytes), object id (20), flags (2).
        let flags = u16::from_be_bytes(b.get(at + 60..at + 62)?.try_into().ok()?);
        let mut header = 62;
        if version >= 3 && flags & 0x4000 != 0 {
            header += 2;
        }
        let start = at + header;
        let path: Vec<u8> = if version == 4 {
            // Prefix compression: a varint N (bytes to drop from the previous path), then the
            // NUL-terminated rest.
            let (drop, used) = varint(b.get(start..)?)?;
            let keep = previous.len().checked_sub(usize::try_from(drop).ok()?)?;
            let rest_at = start + used;
            let len = b.get(rest_at..)?.iter().position(|&c| c == 0)?;
            let mut p = previous[..keep].to_vec();
            p.extend_from_slice(&b[rest_at..rest_at + len]);
            at = rest_at + len + 1;
            p
        } else {
            let len = b.get(start..)?.iter().position(|&c| c == 0)?;
            let p = b[start..start + len].to_vec();
            // Padded with 1–8 NULs to a multiple of 8 bytes.
            at += (header + len + 8) & !7;
            p
        };
        // A sparse-index directory entry ends with `/`: everything under it is tracked.
        let s = String::from_utf8_lossy(&path);
        paths.push(s.trim_end_matches('/').to_string());
        previous = path;
    }
    // Extensions (4-byte signature, 4-byte size) until the trailing checksum. A split index
    // (`link`) keeps the other entries in a shared index file this reader does not follow: then
    // what is tracked is unknown.
    while at + 8 + 20 <= b.len() {
        let sig = b.get(at..at + 4)?;
        if sig == b"link" {
            return None;
        }
        let size = usize::try_from(be32(b, at + 4)?).ok()?;
        at = at.checked_add(8 + size)?;
    }
    paths.sort();
    paths.dedup();
    Some(paths)
}

/// git's offset varint (`varint.c`): 7 bits per byte, high bit "more", each continuation adds 1.
fn varint(b: &[u8]) -> Option<(u64, usize)> {
    let mut i = 0;
    let mut c = *b.first()?;
    let mut val = u64::from(c & 127);
    while c & 128 != 0 {
        i += 1;
        c = *b.get(i)?;
        val = ((val + 1) << 7) | u64::from(c & 127);
    }
    Some((val, i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(ok, "git {args:?}");
    }

    #[test]
    fn reads_the_tracked_paths_of_every_index_version() {
        for version in ["2", "3", "4"] {
            let dir = tempfile::tempdir().unwrap();
            let d = dir.path();
            std::fs::create_dir_all(d.join("src/deep")).unwrap();
            std::fs::create_dir_all(d.join("build")).unwrap();
            for f in [
                "src/a.py",
                "src/deep/b.py",
                "README.md",
                "srcx.txt",
                "build/out.js",
            ] {
                std::fs::write(d.join(f), "x\n").unwrap();
            }
            git(d, &["init", "-q"]);
            git(d, &["update-index", "--index-version", version]);
            git(d, &["add", "src", "README.md", "srcx.txt"]);
            let t = Tracked::load(d);
            assert!(matches!(t, Tracked::Paths(_)), "v{version}: {t:?}");
            assert!(t.holds("src/a.py"), "v{version}");
            assert!(t.holds("src"), "v{version}: a directory with tracked files");
            assert!(t.holds("src/deep"), "v{version}");
            assert!(t.holds("README.md"), "v{version}");
            assert!(
                !t.holds("build"),
                "v{version}: nothing tracked under build/"
            );
            assert!(!t.holds("build/out.js"), "v{version}");
            assert!(!t.holds("sr"), "v{version}: a prefix is not a directory");
            assert!(!t.holds("src/a"), "v{version}");
        }
        // A split index keeps entries elsewhere: unknown, so everything counts as tracked.
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("a.txt"), "x\n").unwrap();
        git(d, &["init", "-q"]);
        git(d, &["add", "a.txt"]);
        git(d, &["update-index", "--split-index"]);
        assert!(matches!(Tracked::load(d), Tracked::Everything));
    }

    #[test]
    fn no_index_tracks_nothing_and_a_damaged_one_everything() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(Tracked::load(dir.path()), Tracked::Nothing));
        // A worktree's `.git` file: not followed, nothing tracked (build output stays ignored).
        std::fs::write(
            dir.path().join(".git"),
            "gitdir: /elsewhere/.git/worktrees/w\n",
        )
        .unwrap();
        assert!(matches!(Tracked::load(dir.path()), Tracked::Nothing));
        std::fs::remove_file(dir.path().join(".git")).unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::write(
            dir.path().join(".git/index"),
            b"DIRC\x00\x00\x00\x09garbage",
        )
        .unwrap();
        let t = Tracked::load(dir.path());
        assert!(matches!(t, Tracked::Everything));
        assert!(t.holds("anything"));
        std::fs::write(
            dir.path().join(".git/index"),
            b"DIRC\x00\x00\x00\x02\x00\x00\x00\x05",
        )
        .unwrap();
        assert!(
            matches!(Tracked::load(dir.path()), Tracked::Everything),
            "truncated"
        );
    }
}
