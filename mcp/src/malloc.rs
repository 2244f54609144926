//! glibc malloc settings for the processes that hold the embedding model (`serve`, `index
//! --embed`), applied by re-executing the binary once with `GLIBC_TUNABLES` set.
//!
//! Why: ONNX Runtime runs without its memory arena (docs/MODEL.md, "Memory"), so every batch
//! allocates its activations (up to ~100 MiB of attention buffers) through glibc's `malloc`. glibc
//! raises its mmap threshold after the first such buffer is freed (the "dynamic threshold", up to
//! 32 MiB), so later buffers come from the heap, and each thread that allocates gets an arena of
//! its own (8 × cores at most). Freed heap inside those arenas stays resident: the MCP server
//! idled at 857 MiB after embedding a 1,541-chunk repository, against 470 MiB for the loaded model.
//! With the settings below it idled at 483 MiB, and `index --embed`'s peak fell from 616–625 to
//! 533 MiB, for 6–7 % fewer texts per second (docs/BENCHMARKS.md, "Semantic layer on 2 cores",
//! has the runs and commands).
//!
//! The settings ([`TUNABLES`]): at most two arenas (`arena_max`), allocations of 128 KiB and more
//! mapped and unmapped on their own (`mmap_threshold`, which also switches the dynamic threshold
//! off), and free heap above 128 KiB at the top of an arena given back (`trim_threshold`). They are
//! glibc's documented tunables (glibc manual, "Memory Allocation Tunables"); setting them after
//! start-up has no effect and `mallopt` would need `unsafe`, which the workspace forbids, hence
//! the one re-exec. A `GLIBC_TUNABLES` that already names a `glibc.malloc.` tunable is the user's
//! choice and is left alone (no re-exec), and so is [`OPT_OUT_ENV`]`=0`.
//!
//! The re-exec also sets mimalloc's (the Rust heap's) `MIMALLOC_PURGE_DELAY` to 0 unless the
//! user set it: mimalloc gives freed pages back to the OS only when the thread that freed them
//! allocates again after the delay (10 ms), so the pages freed by a worker thread that then
//! idles (opening the vector state, a sync) stayed resident for good. With the pages given back
//! at once, the MCP server on spring-framework fully embedded idled at 400–413 MiB instead of
//! 423–427 MiB, and its peak fell from 571–608 to 421–428 MiB
//! (docs/log/2026-12-01-compact-graph.md).

use std::ffi::OsString;

/// The tunables set for the model-holding processes (see the module documentation).
pub const TUNABLES: &str = "glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072";

/// Setting this to `0` keeps glibc's defaults (no re-exec).
pub const OPT_OUT_ENV: &str = "CODE_INTEL_MALLOC_TUNING";

/// mimalloc's option for how long freed pages stay committed (ms), and the value the re-exec sets.
const MIMALLOC_PURGE_ENV: (&str, &str) = ("MIMALLOC_PURGE_DELAY", "0");

/// Set in the re-executed process, so it never re-executes again, even where the C library drops
/// `GLIBC_TUNABLES` from the environment (as glibc may for set-user-ID programs).
const REEXECUTED_ENV: &str = "CODE_INTEL_MALLOC_TUNED";

/// The `GLIBC_TUNABLES` value to re-execute with, or `None` when the process should run as it is:
/// the current value already sets a malloc tunable (ours after the re-exec, or the user's), or
/// the tuning is switched off.
pub fn tunables_to_set(current: Option<&str>, opt_out: Option<&str>) -> Option<String> {
    if opt_out.is_some_and(|v| matches!(v.trim(), "0" | "off" | "false")) {
        return None;
    }
    match current.map(str::trim).filter(|c| !c.is_empty()) {
        Some(c) if c.contains("glibc.malloc.") => None,
        Some(c) => Some(format!("{c}:{TUNABLES}")),
        None => Some(TUNABLES.to_string()),
    }
}

/// Re-executes this binary with the same arguments and [`TUNABLES`] added to `GLIBC_TUNABLES`,
/// when [`tunables_to_set`] says so. Returns only when no re-exec was needed or it failed (the
/// process then goes on with glibc's defaults; the reason is logged at debug level).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn reexec_with_tunables() {
    use std::os::unix::process::CommandExt as _;
    if std::env::var_os(REEXECUTED_ENV).is_some() {
        return;
    }
    let current = std::env::var("GLIBC_TUNABLES").ok();
    let opt_out = std::env::var(OPT_OUT_ENV).ok();
    let Some(value) = tunables_to_set(current.as_deref(), opt_out.as_deref()) else {
        return;
    };
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            tracing::debug!("malloc tuning skipped: no path to this binary: {e}");
            return;
        }
    };
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    // `exec` returns only on failure; stdin, stdout and stderr are inherited as they are.
    let mut command = std::process::Command::new(&exe);
    command
        .args(args)
        .env("GLIBC_TUNABLES", value)
        .env(REEXECUTED_ENV, "1");
    if std::env::var_os(MIMALLOC_PURGE_ENV.0).is_none() {
        command.env(MIMALLOC_PURGE_ENV.0, MIMALLOC_PURGE_ENV.1);
    }
    let err = command.exec();
    tracing::debug!(
        "malloc tuning skipped: cannot re-execute {}: {err}",
        exe.display()
    );
}

/// Not glibc: nothing to tune.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn reexec_with_tunables() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tunables_are_added_once_and_the_users_choice_is_kept() {
        assert_eq!(tunables_to_set(None, None).as_deref(), Some(TUNABLES));
        assert_eq!(tunables_to_set(Some(""), None).as_deref(), Some(TUNABLES));
        assert_eq!(
            tunables_to_set(Some("glibc.rtld.optional_static_tls=512"), None),
            Some(format!("glibc.rtld.optional_static_tls=512:{TUNABLES}"))
        );
        // After the re-exec (no loop), or the user's own malloc settings.
        assert_eq!(tunables_to_set(Some(TUNABLES), None), None);
        assert_eq!(
            tunables_to_set(Some("glibc.malloc.arena_max=8"), None),
            None
        );
        assert_eq!(tunables_to_set(None, Some("0")), None);
        assert_eq!(tunables_to_set(None, Some("1")).as_deref(), Some(TUNABLES));
    }
}
