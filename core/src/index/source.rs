//! Reading a repository source file: the one path every exploration tool and the indexer take
//! from a repository-relative name to its bytes.
//!
//! [`read_source`] checks, in this order and before reading a byte:
//! 1. the real location (after symlinks) is inside the repository root;
//! 2. it is a regular file (FIFOs, sockets and devices are refused with their own message; opening
//!    a FIFO would block until a writer appears, reading a device may never end);
//! 3. its size is at most the limit (`max_file_bytes`), so a 4 GB sparse file costs one `stat`.
//!
//! The file is then opened without blocking, the type and size are checked again on the open
//! descriptor (the path may have been swapped in between), and at most `limit + 1` bytes are read,
//! so a file that grows while it is read is refused too instead of being read to its end.

use std::fs::OpenOptions;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use code_intel_session::repo_path::RepoRoot;

/// `O_NONBLOCK` (`<fcntl.h>`): opening a FIFO returns at once instead of waiting for a writer.
/// No effect on regular files. Values from the Linux and BSD/macOS headers.
#[cfg(any(target_os = "linux", target_os = "android"))]
const O_NONBLOCK: i32 = 0o4000;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const O_NONBLOCK: i32 = 0x0004;

/// What a non-regular file is, for [`SourceError::NotRegular`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecialKind {
    /// A named pipe.
    Fifo,
    /// A Unix domain socket.
    Socket,
    /// A block device.
    BlockDevice,
    /// A character device.
    CharDevice,
    /// Anything else that is neither a file nor a directory.
    Other,
}

impl SpecialKind {
    fn of(t: std::fs::FileType) -> Self {
        if t.is_fifo() {
            SpecialKind::Fifo
        } else if t.is_socket() {
            SpecialKind::Socket
        } else if t.is_block_device() {
            SpecialKind::BlockDevice
        } else if t.is_char_device() {
            SpecialKind::CharDevice
        } else {
            SpecialKind::Other
        }
    }
}

impl std::fmt::Display for SpecialKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SpecialKind::Fifo => "a FIFO (named pipe)",
            SpecialKind::Socket => "a socket",
            SpecialKind::BlockDevice => "a block device",
            SpecialKind::CharDevice => "a character device",
            SpecialKind::Other => "not a regular file",
        })
    }
}

/// Why a source file was not read. `path` is the repository-relative name as given.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// Nothing exists at the path.
    #[error("{path} does not exist in the repository")]
    NotFound {
        /// The repository-relative path.
        path: String,
    },
    /// The path is a directory.
    #[error("{path} is a directory; pass a file")]
    Directory {
        /// The repository-relative path.
        path: String,
    },
    /// The path is a FIFO, socket or device: never opened.
    #[error("{path} is {kind}, not a regular file; code-intel reads only regular files")]
    NotRegular {
        /// The repository-relative path.
        path: String,
        /// What it is.
        kind: SpecialKind,
    },
    /// The file is larger than the limit (checked before reading).
    #[error(
        "{path} is too large ({bytes} bytes, limit {limit}); raise max_file_bytes in .code-intel/config.json to read it, or read a part of it with an offset and limit"
    )]
    TooLarge {
        /// The repository-relative path.
        path: String,
        /// Its size in bytes (at least `limit + 1` when it grew while being read).
        bytes: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// A symlink whose target is outside the repository.
    #[error("{path} points outside the repository; only files inside it are read")]
    OutsideRoot {
        /// The repository-relative path.
        path: String,
    },
    /// Any other I/O error (permissions, ...).
    #[error("cannot read {path}: {source}")]
    Io {
        /// The repository-relative path.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// Checks that `rel` (repository-relative, `/`-separated) names a regular file inside `root` of at
/// most `limit` bytes and returns its size in bytes, without opening it.
///
/// # Errors
/// As [`read_source`], except that no read errors occur.
pub fn check_source(root: &RepoRoot, rel: &str, limit: u64) -> Result<u64, SourceError> {
    let abs = root.path().join(rel);
    let real = abs.canonicalize().map_err(|e| io_error(rel, e))?;
    if !real.starts_with(root.path()) {
        return Err(SourceError::OutsideRoot { path: rel.into() });
    }
    let meta = std::fs::metadata(&real).map_err(|e| io_error(rel, e))?;
    check_meta(rel, &meta, limit)?;
    Ok(meta.len())
}

/// Reads the regular file `rel` (repository-relative, `/`-separated) of `root`: at most `limit`
/// bytes, after the checks of the module docs.
///
/// # Errors
/// [`SourceError::NotFound`], [`SourceError::Directory`], [`SourceError::NotRegular`] (FIFO,
/// socket, device), [`SourceError::TooLarge`] (size over `limit`, checked before reading),
/// [`SourceError::OutsideRoot`] (a symlink out of the repository), [`SourceError::Io`].
pub fn read_source(root: &RepoRoot, rel: &str, limit: u64) -> Result<Vec<u8>, SourceError> {
    check_source(root, rel, limit)?;
    read_checked(&root.path().join(rel), rel, limit)
}

/// Reads a file the repository walk found (`abs`, named `rel`): the walk does not follow
/// symlinks, so only the type and size checks apply, on the path and again on the open descriptor.
///
/// # Errors
/// As [`read_source`], without [`SourceError::OutsideRoot`].
pub fn read_walked(abs: &Path, rel: &str, limit: u64) -> Result<Vec<u8>, SourceError> {
    let meta = std::fs::metadata(abs).map_err(|e| io_error(rel, e))?;
    check_meta(rel, &meta, limit)?;
    read_checked(abs, rel, limit)
}

fn read_checked(abs: &Path, rel: &str, limit: u64) -> Result<Vec<u8>, SourceError> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(O_NONBLOCK)
        .open(abs)
        .map_err(|e| io_error(rel, e))?;
    let meta = file.metadata().map_err(|e| io_error(rel, e))?;
    check_meta(rel, &meta, limit)?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| io_error(rel, e))?;
    if bytes.len() as u64 > limit {
        return Err(SourceError::TooLarge {
            path: rel.into(),
            bytes: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

fn check_meta(rel: &str, meta: &std::fs::Metadata, limit: u64) -> Result<(), SourceError> {
    let t = meta.file_type();
    if t.is_dir() {
        return Err(SourceError::Directory { path: rel.into() });
    }
    if !t.is_file() {
        return Err(SourceError::NotRegular {
            path: rel.into(),
            kind: SpecialKind::of(t),
        });
    }
    if meta.len() > limit {
        return Err(SourceError::TooLarge {
            path: rel.into(),
            bytes: meta.len(),
            limit,
        });
    }
    Ok(())
}

fn io_error(rel: &str, source: std::io::Error) -> SourceError {
    match source.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory => {
            SourceError::NotFound { path: rel.into() }
        }
        _ => SourceError::Io {
            path: rel.into(),
            source,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, RepoRoot) {
        let dir = tempfile::tempdir().unwrap();
        let root = RepoRoot::new(dir.path()).unwrap();
        (dir, root)
    }

    #[test]
    fn reads_regular_files_within_the_limit() {
        let (dir, root) = setup();
        std::fs::write(dir.path().join("a.py"), b"x = 1\n").unwrap();
        assert_eq!(read_source(&root, "a.py", 6).unwrap(), b"x = 1\n");
        let e = read_source(&root, "a.py", 5).unwrap_err();
        assert!(
            matches!(
                e,
                SourceError::TooLarge {
                    bytes: 6,
                    limit: 5,
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn refuses_a_sparse_giant_without_reading_it() {
        let (dir, root) = setup();
        let f = std::fs::File::create(dir.path().join("big.py")).unwrap();
        f.set_len(4 << 30).unwrap();
        let e = read_source(&root, "big.py", 1 << 20).unwrap_err();
        assert_eq!(
            e.to_string(),
            "big.py is too large (4294967296 bytes, limit 1048576); raise max_file_bytes in .code-intel/config.json to read it, or read a part of it with an offset and limit"
        );
    }

    #[test]
    fn special_files_have_their_own_messages() {
        let (dir, root) = setup();
        let status = std::process::Command::new("mkfifo")
            .arg(dir.path().join("pipe.py"))
            .status()
            .unwrap();
        assert!(status.success());
        let _sock = std::os::unix::net::UnixListener::bind(dir.path().join("sock.py")).unwrap();
        std::fs::create_dir(dir.path().join("d")).unwrap();
        let msg = |rel: &str| read_source(&root, rel, 1 << 20).unwrap_err().to_string();
        assert_eq!(
            msg("pipe.py"),
            "pipe.py is a FIFO (named pipe), not a regular file; code-intel reads only regular files"
        );
        assert_eq!(
            msg("sock.py"),
            "sock.py is a socket, not a regular file; code-intel reads only regular files"
        );
        assert_eq!(msg("d"), "d is a directory; pass a file");
        assert_eq!(msg("none.py"), "none.py does not exist in the repository");
    }

    #[test]
    fn never_follows_a_symlink_out_of_the_repository() {
        let (dir, root) = setup();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.py"), b"s = 1\n").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.py"), dir.path().join("link.py"))
            .unwrap();
        let e = read_source(&root, "link.py", 1 << 20).unwrap_err();
        assert!(matches!(e, SourceError::OutsideRoot { .. }), "{e}");
        // A symlink inside the repository is followed.
        std::fs::write(dir.path().join("real.py"), b"r = 1\n").unwrap();
        std::os::unix::fs::symlink(dir.path().join("real.py"), dir.path().join("in.py")).unwrap();
        assert_eq!(read_source(&root, "in.py", 100).unwrap(), b"r = 1\n");
    }
}
