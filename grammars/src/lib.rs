//! Tree-sitter grammars loaded at run time from shared libraries, for the dist build of
//! `code-intel` (core's `dynamic-grammars` feature).
//!
//! Why: the 17 grammars' parse tables are 24.4 MB of static data, more than half of the
//! stripped binary (docs/DIST.md). With this feature the binary links none of them; each is a
//! shared library (`libtree-sitter-<name>.so` on Linux, built by scripts/dist.sh from the very
//! objects the grammar crates compile) in the `grammars/` directory next to the executable, and
//! is opened the first time a file of its language is chunked — a repository of Java and
//! Kotlin maps only those two. The installed total is about the same; the `code-intel`
//! executable itself is under its size limit.
//!
//! Where a grammar is looked for, first hit wins: the directory named by [`DIR_ENV`], then
//! `<directory of the executable>/grammars`, then `<that directory>/../lib/code-intel/grammars`.
//! A grammar found nowhere is a [`LoadError::NotFound`] naming the directories searched; the
//! chunker then falls back to line windows for that language and says why.

use std::path::{Path, PathBuf};

pub use tree_sitter_language::LanguageFn;

/// Environment variable naming the directory of the grammar libraries (overrides the
/// directories next to the executable).
pub const DIR_ENV: &str = "CODE_INTEL_GRAMMARS";

/// Why a grammar library did not load.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// No directory searched holds the library.
    #[error(
        "grammar library {file} not found in {searched}; reinstall code-intel (the grammars \
         ship in bin/grammars beside the executable) or set {DIR_ENV} to their directory"
    )]
    NotFound {
        /// The library's file name.
        file: String,
        /// The directories searched, comma-separated.
        searched: String,
    },
    /// The file exists but the dynamic loader refused it or it lacks the language function.
    #[error("cannot load grammar library {path}: {source}")]
    Load {
        /// The library's path.
        path: PathBuf,
        /// The loader's error.
        #[source]
        source: libloading::Error,
    },
}

/// File name of the library of grammar `name` (`tree-sitter-<name>` with the platform's
/// prefix and suffix: `libtree-sitter-python.so` on Linux).
pub fn library_file(name: &str) -> String {
    format!(
        "{}tree-sitter-{name}{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    )
}

/// The directories searched for grammar libraries, in order (see the crate docs).
pub fn search_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(dir) = std::env::var_os(DIR_ENV).filter(|d| !d.is_empty()) {
        dirs.push(PathBuf::from(dir));
    }
    if let Some(exe_dir) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.canonicalize().ok())
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
    {
        dirs.push(exe_dir.join("grammars"));
        dirs.push(exe_dir.join("../lib/code-intel/grammars"));
    }
    dirs
}

/// Where the library of grammar `name` is: the first searched directory holding it as a file
/// (see the crate docs). Only looks at the file system; does not open the library.
///
/// # Errors
/// [`LoadError::NotFound`] naming the directories searched.
pub fn locate(name: &str) -> Result<PathBuf, LoadError> {
    locate_in(name, &search_dirs())
}

/// [`locate`] in the given directories (the result of one [`search_dirs`] call, for callers
/// that look up several grammars at once).
///
/// # Errors
/// [`LoadError::NotFound`] naming `dirs`.
pub fn locate_in(name: &str, dirs: &[PathBuf]) -> Result<PathBuf, LoadError> {
    let file = library_file(name);
    dirs.iter()
        .map(|d| d.join(&file))
        .find(|p| p.is_file())
        .ok_or_else(|| LoadError::NotFound {
            file,
            searched: dirs
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// Opens the library of grammar `name` and returns its language function `symbol`
/// (`tree_sitter_python`). The library stays loaded for the life of the process (the
/// language's tables live in it). Call once per grammar (callers cache the result).
///
/// # Errors
/// [`LoadError::NotFound`] when no searched directory holds the library, [`LoadError::Load`]
/// when it does not load or lacks `symbol`.
pub fn load(name: &str, symbol: &str) -> Result<LanguageFn, LoadError> {
    let path = locate(name)?;
    let load_err = |source| LoadError::Load {
        path: path.clone(),
        source,
    };
    // SAFETY: the file is one of the grammar libraries scripts/dist.sh builds from the grammar
    // crates' own objects (tree-sitter generated parsers); loading it runs no initialisers
    // beyond the C runtime's. Its language function takes no arguments and returns a pointer
    // to a static `TSLanguage`, which stays valid because the library is never unloaded
    // (`forget` below). tree-sitter checks the language's ABI version when a parser takes it.
    #[allow(unsafe_code)]
    let language = unsafe {
        let library = libloading::Library::new(&path).map_err(load_err)?;
        let function = *library
            .get::<unsafe extern "C" fn() -> *const ()>(symbol)
            .map_err(load_err)?;
        std::mem::forget(library);
        LanguageFn::from_raw(function)
    };
    Ok(language)
}

/// Routes tree-sitter's own C allocations (parse stacks, syntax trees, query cursors and their
/// frees) to mimalloc, the allocator `code-intel` already uses for its Rust heap, instead of the C
/// library's `malloc`. Parsing a repository makes and frees millions of small tree nodes:
/// glibc's `malloc` and `free` were about 4 % of the CPU samples of a first index of
/// spring-framework, nearly all of them tree-sitter's (docs/log/2026-11-28-parse-cpu.md). The
/// grammars' external scanners keep their own `malloc`/`free` pairs (no grammar crate builds
/// with `TREE_SITTER_REUSE_ALLOCATOR`), so no block crosses allocators.
///
/// Call it first thing in `main`, before any tree-sitter object (parser, tree, query, cursor)
/// exists: one made before would be freed by the wrong allocator. Later calls do nothing.
pub fn tree_sitter_uses_mimalloc() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: the four functions are mimalloc's `malloc`, `calloc` (below), `realloc` and
        // `free`, thread-safe and mutually consistent, with the C signatures tree-sitter
        // expects. The `Once` and the documented call site (the start of `main`, before any
        // tree-sitter object is made) ensure no block allocated through the previous
        // functions is freed or reallocated through these.
        #[allow(unsafe_code)]
        unsafe {
            tree_sitter::set_allocator(
                Some(libmimalloc_sys::mi_malloc),
                Some(mi_calloc),
                Some(libmimalloc_sys::mi_realloc),
                Some(libmimalloc_sys::mi_free),
            );
        }
    });
}

/// C `calloc` over mimalloc: `count * size` zeroed bytes, null when the product overflows.
#[allow(unsafe_code)]
unsafe extern "C" fn mi_calloc(count: usize, size: usize) -> *mut std::ffi::c_void {
    match count.checked_mul(size) {
        // SAFETY: `mi_zalloc` takes any size and returns null or a zeroed block of that size.
        Some(bytes) => unsafe { libmimalloc_sys::mi_zalloc(bytes) },
        None => std::ptr::null_mut(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_grammar_names_the_directories_searched() {
        let Err(err) = load("no-such-grammar", "tree_sitter_none") else {
            panic!("loaded a grammar that does not exist");
        };
        let text = err.to_string();
        assert!(text.contains(&library_file("no-such-grammar")), "{text}");
        assert!(text.contains("grammars"), "{text}");
        assert!(text.contains(DIR_ENV), "{text}");
    }
}
