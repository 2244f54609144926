//! A tantivy directory with the durability of tantivy's `MmapDirectory` at a fraction of the
//! `fsync` calls: segment files are synced together, once, right before the `meta.json` that
//! references them is written.
//!
//! Why: `MmapDirectory` syncs every segment file on close and rewrites `.managed.json` durably for
//! every new file, about 15 sequential `fsync`s per commit (~4 ms each on ext4), which dominated
//! the time for one edited file to become searchable. Here:
//! - segment files are written without syncing and remembered as pending;
//! - `meta.json` (the commit point) is written only after all pending files are synced, in
//!   parallel threads (concurrent `fsync`s on one file system share journal commits), and the
//!   directory is synced; then it is replaced atomically and durably, as before. A crash can
//!   therefore never leave a `meta.json` that names unsynced data, which is the invariant tantivy
//!   relies on;
//! - `.managed.json` (tantivy's list of files it may garbage-collect) is replaced atomically but
//!   not synced: after a crash it can only miss new files, which are then left on disk, never
//!   deleted wrongly;
//! - reads, deletes, locks and watching are `MmapDirectory`'s.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tantivy::directory::error::{
    DeleteError, LockError, OpenDirectoryError, OpenReadError, OpenWriteError,
};
use tantivy::directory::{
    AntiCallToken, Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, TerminatingWrite,
    WatchCallback, WatchHandle, WritePtr,
};

/// The commit point of a tantivy index.
const META_FILE: &str = "meta.json";

/// See the module docs.
#[derive(Debug, Clone)]
pub struct BatchSyncDirectory {
    inner: MmapDirectory,
    root: PathBuf,
    /// Files written since the last `meta.json`, not yet synced.
    pending: Arc<Mutex<Vec<PathBuf>>>,
}

impl BatchSyncDirectory {
    /// Opens the directory at `root` (which must exist).
    ///
    /// # Errors
    /// [`OpenDirectoryError`] when `root` is missing or not a directory.
    pub fn open(root: &Path) -> Result<Self, OpenDirectoryError> {
        Ok(Self {
            inner: MmapDirectory::open(root)?,
            root: root.to_path_buf(),
            pending: Arc::default(),
        })
    }

    /// Syncs every pending file (in parallel) and then the directory itself.
    fn sync_pending(&self) -> io::Result<()> {
        let files: Vec<PathBuf> =
            std::mem::take(&mut *self.pending.lock().unwrap_or_else(|e| e.into_inner()));
        let result = std::thread::scope(|scope| {
            let handles: Vec<_> = files
                .iter()
                .map(|path| scope.spawn(move || File::open(path).and_then(|f| f.sync_data())))
                .collect();
            handles.into_iter().try_for_each(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(io::Error::other("fsync thread panicked")))
            })
        });
        if let Err(e) = result {
            // Keep them pending: the next commit retries.
            self.pending
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend(files);
            return Err(e);
        }
        File::open(&self.root)?.sync_data()
    }
}

/// A file writer whose `terminate` flushes without syncing (the directory syncs it later).
struct UnsyncedFile(File);

impl Write for UnsyncedFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl TerminatingWrite for UnsyncedFile {
    fn terminate_ref(&mut self, _: AntiCallToken) -> io::Result<()> {
        self.0.flush()
    }
}

/// Replaces `path` with `data` via a temp file in the same directory and `rename(2)`; `durable`
/// syncs the data before the rename.
fn replace(path: &Path, data: &[u8], durable: bool) -> io::Result<()> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", uuid::Uuid::new_v4().simple()));
    let result = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(data)?;
        if durable {
            f.sync_data()?;
        }
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        // Best effort: the temp file is garbage either way.
        std::fs::remove_file(&tmp).ok();
    }
    result
}

impl Directory for BatchSyncDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        self.inner.get_file_handle(path)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.inner.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.inner.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        let full = self.root.join(path);
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(&full)
            .map_err(|e| {
                if e.kind() == io::ErrorKind::AlreadyExists {
                    OpenWriteError::FileAlreadyExists(path.to_path_buf())
                } else {
                    OpenWriteError::wrap_io_error(e, path.to_path_buf())
                }
            })?;
        self.pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(full);
        Ok(BufWriter::new(Box::new(UnsyncedFile(file))))
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.inner.atomic_read(path)
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        let full = self.root.join(path);
        if path == Path::new(META_FILE) {
            self.sync_pending()?;
            replace(&full, data, true)?;
            File::open(&self.root)?.sync_data()
        } else {
            replace(&full, data, false)
        }
    }

    fn sync_directory(&self) -> io::Result<()> {
        // Deferred to the next `meta.json` write, which syncs pending files and the directory.
        Ok(())
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        self.inner.acquire_lock(lock)
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.inner.watch(watch_callback)
    }
}
