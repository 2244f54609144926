//! What the benchmarks share. Each bench that needs it says `mod common;`.

use std::path::Path;

/// Copies the tree `from` into the existing directory `to`: directories and regular files (no
/// symlinks), each file keeping its modification time (as a checkout has them, so the first
/// sync sees what it would on a real working tree). Best effort: what cannot be read or copied
/// is skipped.
pub fn copy_tree(from: &Path, to: &Path) {
    let Ok(entries) = std::fs::read_dir(from) else {
        return;
    };
    for entry in entries.flatten() {
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let Ok(ty) = entry.file_type() else { continue };
        if ty.is_dir() {
            std::fs::create_dir_all(&dst).ok();
            copy_tree(&src, &dst);
        } else if ty.is_file()
            && std::fs::copy(&src, &dst).is_ok()
            && let Ok(mtime) = entry.metadata().and_then(|m| m.modified())
        {
            std::fs::File::options()
                .write(true)
                .open(&dst)
                .and_then(|f| f.set_modified(mtime))
                .ok();
        }
    }
}
