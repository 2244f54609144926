//! Links libgcc's unwinder (`libgcc_eh.a`) into `code-intel-sandbox` so the launcher, which
//! starts once per sandboxed Bash command, does not load `libgcc_s.so.1` (about 0.07 ms of
//! dynamic loading and CPU feature probing per start on the 2-core CI machine; docs/GATE.md,
//! "Kernel enforcement"). Only for Linux with glibc, and only when the C compiler that links
//! Rust binaries has the archive (`cc -print-file-name=libgcc_eh.a`) and the build is not a cross
//! build (that `cc` would answer for the host); otherwise nothing changes.
#![allow(
    clippy::print_stdout,
    reason = "a build script talks to Cargo on stdout"
)]

use std::process::Command;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=CC");
    let linux_gnu = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu");
    if !linux_gnu || std::env::var("TARGET").ok() != std::env::var("HOST").ok() {
        return;
    }
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let Some(archive) = Command::new(cc)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_owned())
        .filter(|p| std::path::Path::new(p).is_absolute() && std::path::Path::new(p).is_file())
    else {
        return;
    };
    // The whole archive, so its unwinder defines every `_Unwind_*` symbol std uses and the
    // linker (`--as-needed`) drops `libgcc_s` from the launcher's dependencies.
    for arg in [
        "-Wl,--whole-archive".to_owned(),
        archive,
        "-Wl,--no-whole-archive".to_owned(),
    ] {
        println!("cargo::rustc-link-arg-bin=code-intel-sandbox={arg}");
    }
}
