//! Durable file primitives: atomic replace, advisory locks, append-only JSON lines.
//!
//! Every persisted record of code-intel goes through here, so that two Claude Code windows (two
//! MCP servers and many hook processes) on one repository never tear or lose state:
//! - [`write_atomic`] writes a temp file in the target's directory, fsyncs it and renames it over
//!   the target (POSIX `rename(2)` is atomic within a file system).
//! - [`FileLock`] holds an exclusive advisory lock (`flock(2)` via `std::fs::File::lock`) on a
//!   sidecar `*.lock` file for the span of a read-modify-write.
//! - [`append_jsonl`] appends one line under the same lock, so concurrent writers interleave whole
//!   lines only.
//! - [`read_regular`] reads a state or configuration file without ever blocking: a FIFO, a device
//!   or a directory planted where a file should be is an error, not a hang, and the size is bounded.
//!   Lock and journal files are opened with `O_NONBLOCK` for the same reason (opening a FIFO for
//!   writing blocks until a reader appears).

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// `O_NONBLOCK` (`<fcntl.h>`): opening a FIFO returns at once instead of waiting for the other end.
/// No effect on regular files or on `flock(2)`. Values from the Linux and BSD/macOS headers.
#[cfg(any(target_os = "linux", target_os = "android"))]
const O_NONBLOCK: i32 = 0o4000;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const O_NONBLOCK: i32 = 0x0004;

/// Upper bound for the state and configuration files code-intel reads in a hook (sessions,
/// bindings, `config.json`, `.gitignore`): far above any real one (a session with thousands of
/// tool calls is a few MiB).
pub const MAX_STATE_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Upper bound for a JSON-lines journal [`read_jsonl`] reads (`journal/*.jsonl`: one line per
/// decision or outcome, a few hundred bytes each, so about a million records).
pub const MAX_JOURNAL_BYTES: u64 = 256 * 1024 * 1024;

/// Reads the regular file at `path` (symlinks followed), at most `max` bytes, without blocking:
/// the type is checked before opening, the open is non-blocking, and the type and size are checked
/// again on the open descriptor (the path may be swapped in between). `Ok(None)` when nothing
/// exists at `path` (or a parent is not a directory).
///
/// # Errors
/// [`std::io::ErrorKind::InvalidInput`] for a FIFO, socket, device or directory,
/// [`std::io::ErrorKind::FileTooLarge`] above `max` bytes, and other I/O errors.
pub fn read_regular(path: &Path, max: u64) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::{Error, ErrorKind};
    let not_regular = |t: std::fs::FileType| {
        Error::new(
            ErrorKind::InvalidInput,
            format!(
                "{} is not a regular file (a {}); code-intel never reads it",
                path.display(),
                if t.is_dir() {
                    "directory"
                } else {
                    "FIFO, socket or device"
                }
            ),
        )
    };
    let check = |m: &std::fs::Metadata| -> std::io::Result<()> {
        if !m.is_file() {
            return Err(not_regular(m.file_type()));
        }
        if m.len() > max {
            return Err(Error::new(
                ErrorKind::FileTooLarge,
                format!("{} is larger than {max} bytes", path.display()),
            ));
        }
        Ok(())
    };
    match std::fs::metadata(path) {
        Ok(m) => check(&m)?,
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            return Ok(None);
        }
        Err(e) => return Err(e),
    }
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(O_NONBLOCK)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            return Ok(None);
        }
        Err(e) => return Err(e),
    };
    check(&file.metadata()?)?;
    let mut buf = Vec::new();
    file.take(max.saturating_add(1)).read_to_end(&mut buf)?;
    if buf.len() as u64 > max {
        return Err(Error::new(
            ErrorKind::FileTooLarge,
            format!("{} is larger than {max} bytes", path.display()),
        ));
    }
    Ok(Some(buf))
}

/// Errors of the file primitives. Each names the path it failed on.
#[derive(Debug, thiserror::Error)]
pub enum PersistError {
    /// Creating the parent directory failed.
    #[error("cannot create directory {path}: {source}")]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Writing, syncing or renaming the file failed; the previous content is intact.
    #[error("cannot write {path} (previous content left intact): {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Taking the lock failed.
    #[error("cannot lock {path}: {source}")]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

fn ensure_parent(path: &Path) -> Result<(), PersistError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|source| PersistError::CreateDir {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    Ok(())
}

/// Replaces `path` with `bytes` atomically: readers see the old content or the new, never a mix.
///
/// Creates the parent directory if needed.
///
/// # Errors
/// [`PersistError::CreateDir`] or [`PersistError::Write`]; on error the old file is untouched.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), PersistError> {
    ensure_parent(path)?;
    let err = |source| PersistError::Write {
        path: path.to_path_buf(),
        source,
    };
    let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = path.with_file_name(format!(
        ".{file_name}.{}.{}.tmp",
        std::process::id(),
        uuid::Uuid::new_v4().simple()
    ));
    let result = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        // Best effort: the temp file is garbage either way.
        std::fs::remove_file(&tmp).ok();
    }
    result.map_err(err)
}

/// An exclusive advisory lock on `<path>.lock`, released on drop.
#[derive(Debug)]
pub struct FileLock {
    file: File,
}

impl FileLock {
    /// Blocks until the exclusive lock guarding `path` is held.
    ///
    /// # Errors
    /// [`PersistError::CreateDir`] or [`PersistError::Lock`].
    pub fn acquire(path: &Path) -> Result<Self, PersistError> {
        let (file, lock_path) = Self::open_for_writers(path)?;
        file.lock().map_err(|source| PersistError::Lock {
            path: lock_path,
            source,
        })?;
        Ok(Self { file })
    }

    /// Takes the exclusive lock guarding `path` if nobody holds it; `Ok(None)` when another
    /// holder has it (callers that poll with their own deadline, or skip the work).
    ///
    /// # Errors
    /// [`PersistError::CreateDir`] or [`PersistError::Lock`].
    pub fn try_acquire(path: &Path) -> Result<Option<Self>, PersistError> {
        let (file, lock_path) = Self::open_for_writers(path)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(Self { file })),
            Err(std::fs::TryLockError::WouldBlock) => Ok(None),
            Err(std::fs::TryLockError::Error(source)) => Err(PersistError::Lock {
                path: lock_path,
                source,
            }),
        }
    }

    /// Opens the lock file guarding `path` for an exclusive lock, creating it and its folder:
    /// (the file, its path).
    fn open_for_writers(path: &Path) -> Result<(File, PathBuf), PersistError> {
        let lock_path = lock_path(path);
        ensure_parent(&lock_path)?;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .custom_flags(O_NONBLOCK)
            .open(&lock_path)
            .map_err(|source| PersistError::Lock {
                path: lock_path.clone(),
                source,
            })?;
        Ok((file, lock_path))
    }

    /// Blocks until a shared lock guarding `path` is held (readers that must not see a
    /// read-modify-write in progress). A missing lock file means nobody writes: returns `None`.
    ///
    /// # Errors
    /// [`PersistError::Lock`] when the lock file exists but cannot be locked.
    pub fn acquire_shared(path: &Path) -> Result<Option<Self>, PersistError> {
        let lock_path = lock_path(path);
        let file = match OpenOptions::new()
            .read(true)
            .custom_flags(O_NONBLOCK)
            .open(&lock_path)
        {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(PersistError::Lock {
                    path: lock_path,
                    source,
                });
            }
        };
        file.lock_shared().map_err(|source| PersistError::Lock {
            path: lock_path,
            source,
        })?;
        Ok(Some(Self { file }))
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // Closing the descriptor releases the lock too; unlocking first is just explicit.
        self.file.unlock().ok();
    }
}

fn lock_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".lock");
    path.with_file_name(name)
}

/// Appends `record` as one JSON line to `path` (created if missing) under the file's lock.
///
/// # Errors
/// [`PersistError`] when the directory, lock or file cannot be written.
pub fn append_jsonl<T: serde::Serialize>(path: &Path, record: &T) -> Result<(), PersistError> {
    let mut line = serde_json::to_vec(record).map_err(|e| PersistError::Write {
        path: path.to_path_buf(),
        source: e.into(),
    })?;
    line.push(b'\n');
    let _lock = FileLock::acquire(path)?;
    let err = |source| PersistError::Write {
        path: path.to_path_buf(),
        source,
    };
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .custom_flags(O_NONBLOCK)
        .open(path)
        .map_err(err)?;
    f.write_all(&line).map_err(err)?;
    Ok(())
}

/// Reads a JSON-lines file written by [`append_jsonl`]: the records that parse, and how many
/// non-empty lines did not (a torn or hand-edited line never hides the rest). A missing file is
/// empty.
///
/// # Errors
/// I/O errors other than a missing file.
pub fn read_jsonl<T: serde::de::DeserializeOwned>(path: &Path) -> std::io::Result<(Vec<T>, usize)> {
    // Never blocks on a FIFO planted as a journal; a journal is append-only, so its bound is
    // larger than a state file's.
    let Some(bytes) = read_regular(path, MAX_JOURNAL_BYTES)? else {
        return Ok((Vec::new(), 0));
    };
    let text = String::from_utf8_lossy(&bytes);
    let mut bad = 0;
    let records = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| serde_json::from_str(l).map_err(|_| bad += 1).ok())
        .collect();
    Ok((records, bad))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonl_round_trips_and_counts_torn_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("j/log.jsonl");
        let (none, bad): (Vec<u32>, usize) = read_jsonl(&p).unwrap();
        assert_eq!((none.len(), bad), (0, 0));
        append_jsonl(&p, &1u32).unwrap();
        append_jsonl(&p, &2u32).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&p)
            .unwrap()
            .write_all(b"{torn\n\n")
            .unwrap();
        append_jsonl(&p, &3u32).unwrap();
        let (records, bad): (Vec<u32>, usize) = read_jsonl(&p).unwrap();
        assert_eq!((records, bad), (vec![1, 2, 3], 1));
    }

    #[test]
    fn read_regular_refuses_fifos_directories_and_big_files_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        let e = read_regular(&fifo, 10).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput, "{e}");
        // Through a symlink too.
        std::os::unix::fs::symlink(&fifo, dir.path().join("link")).unwrap();
        let e = read_regular(&dir.path().join("link"), 10).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput, "{e}");
        assert_eq!(
            read_regular(dir.path(), 10).unwrap_err().kind(),
            std::io::ErrorKind::InvalidInput
        );
        let big = dir.path().join("big");
        std::fs::write(&big, b"0123456789a").unwrap();
        assert_eq!(
            read_regular(&big, 10).unwrap_err().kind(),
            std::io::ErrorKind::FileTooLarge
        );
        assert_eq!(read_regular(&big, 11).unwrap().unwrap(), b"0123456789a");
        // No bound at all (the index's own state files) is a bound too, not an overflow.
        assert_eq!(
            read_regular(&big, u64::MAX).unwrap().unwrap(),
            b"0123456789a"
        );
        assert_eq!(read_regular(&dir.path().join("none"), 10).unwrap(), None);
        assert_eq!(read_regular(&big.join("under-a-file"), 10).unwrap(), None);
        // A FIFO where a journal or its lock goes fails instead of blocking.
        assert!(append_jsonl(&fifo, &1u32).is_err());
    }

    #[test]
    fn atomic_write_replaces_and_creates_parents() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a/b/state.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let leftovers: Vec<_> = std::fs::read_dir(p.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, vec![std::ffi::OsString::from("state.json")]);
    }

    #[test]
    fn exclusive_locks_exclude_each_other_and_shared_ones_need_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a/b/state.json");
        // Nobody ever wrote: no lock file, so a reader needs no lock.
        assert!(FileLock::acquire_shared(&p).unwrap().is_none());
        let held = FileLock::acquire(&p).unwrap();
        assert!(
            lock_path(&p).is_file(),
            "the lock file and its folders are created"
        );
        // flock(2) excludes other open file descriptions, even in this process.
        assert!(FileLock::try_acquire(&p).unwrap().is_none());
        drop(held);
        let again = FileLock::try_acquire(&p)
            .unwrap()
            .expect("free after the drop");
        drop(again);
        assert!(FileLock::acquire_shared(&p).unwrap().is_some());
    }

    #[test]
    fn concurrent_appends_keep_whole_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("log.jsonl");
        std::thread::scope(|s| {
            for t in 0..4 {
                let p = &p;
                s.spawn(move || {
                    for i in 0..50 {
                        append_jsonl(
                            p,
                            &serde_json::json!({"t": t, "i": i, "pad": "x".repeat(500)}),
                        )
                        .unwrap();
                    }
                });
            }
        });
        let text = std::fs::read_to_string(&p).unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 200);
    }
}
