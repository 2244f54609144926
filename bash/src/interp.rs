//! Scanning of interpreter code (`python -c`, `node -e`, `perl -e`, `ruby -e`, `php -r`, awk
//! programs): a small tokenizer and the call table [`CALLS`] for the files the code writes and
//! reads.

use super::eval::Eval;
use super::lex::{Word, lossy};

/// What a recognised call in interpreter code does.
#[derive(Debug, Clone, Copy)]
enum Call {
    /// These positional arguments are written paths.
    Write(&'static [usize]),
    /// The first argument, when there is one, is a written path (`df.to_csv('f')`; without it
    /// the text is returned).
    WriteIfGiven,
    /// The first argument is read.
    Read,
    /// `open`/`fopen`: the mode decides (Python/Ruby/PHP `open(p, 'w')`, Perl `open(F, '>', p)` and
    /// `open(F, ">p")`).
    Open,
    /// A method of a path object writes the receiver (`Path('f').write_text(…)`).
    RecvWrite,
    /// `Path('f').open('w')`.
    RecvOpen,
    /// `Path('f').read_text()`.
    RecvRead,
    /// `Path('a').rename('b')`: only with a literal `Path(…)` receiver (strings have `.replace`).
    RecvMove,
    /// The first argument is a shell command line, or a list of argv strings.
    Shell,
    /// Runs a program, module or code the analysis cannot follow (`os.execvp`, `spawnSync`,
    /// `__import__`, `importlib.import_module`): a run-time unknown.
    Opaque,
    /// `exec`/`eval` of code: a literal string is scanned as code, anything else is opaque.
    Code,
    /// `tempfile.mkstemp(dir=…)` and friends: a new file under `dir` (the system temporary
    /// directory without it).
    TempIn,
    /// These positional arguments are directories modules are then loaded from
    /// (`sys.path.insert(0, d)`, Perl's `use lib d`): checked like `bash FILE`.
    LoadPath(&'static [usize]),
    /// Perl's `push @INC, d` / `unshift @INC, d`: the directories after `@INC`.
    PushInc,
    /// The first argument is a file of code the call runs (Perl's `do FILE`, Ruby's `load`,
    /// PHP's `include`): checked like `bash FILE`.
    LoadFile,
    /// `require`/`import`: a module found on the search path, or a file of code when the name
    /// is a path (`require('/tmp/x.js')`, `require "./x.pl"`, `import('/tmp/x.mjs')`).
    Require,
}

/// The members of node's `child_process` that run a program.
const CHILD_PROCESS: [&str; 7] = [
    "exec",
    "execSync",
    "execFile",
    "execFileSync",
    "spawn",
    "spawnSync",
    "fork",
];

/// Calls recognised in interpreter code; the first matching row wins. Pattern forms: `name` a bare
/// call, `a.b` a qualified call (also with a longer qualification), `.name` a method on any
/// receiver, `*name` bare or with any receiver. Bare names also match Perl's parenless form
/// (`unlink "f"`, `open F, ">f"`).
const CALLS: &[(&str, Call)] = &[
    // Compressed and archive files opened like files (before `.open` below).
    (
        "gzip.open bz2.open lzma.open tarfile.open zipfile.ZipFile tarfile.TarFile \
         gzip.GzipFile bz2.BZ2File lzma.LZMAFile wave.open aifc.open sunau.open \
         fs.open promises.open fsPromises.open",
        Call::Open,
    ),
    ("sqlite3.connect shelve.open dbm.open", Call::Write(&[0])),
    // Bare forms after `from os import remove` / `from shutil import move`, and Perl builtins.
    ("remove rmtree makedirs truncate mkfifo", Call::Write(&[0])),
    // Python's `chmod(p, mode)` after `from os import chmod`; Perl's `chmod MODE, FILES`,
    // `chown UID, GID, FILES`, `utime ATIME, MTIME, FILES` (number literals are skipped).
    ("chmod chown utime", Call::Write(&[0, 1, 2, 3, 4, 5])),
    // Perl's File::Copy `mv`/`cp` (`-MFile::Copy=cp`).
    ("move symlink link mv", Call::Write(&[0, 1])),
    ("cp", Call::Write(&[1])),
    // Log files are opened when the handler is made.
    (
        "*FileHandler *RotatingFileHandler *TimedRotatingFileHandler *WatchedFileHandler",
        Call::Write(&[0]),
    ),
    ("File.truncate", Call::Write(&[0])),
    // Data libraries' save functions (numpy, pandas, polars, matplotlib, torch, joblib).
    (
        ".to_csv .to_json .to_parquet .to_excel .to_pickle .to_feather .to_hdf .to_html \
         .to_latex .to_markdown .to_xml .to_stata .to_orc .write_csv .write_parquet \
         .write_json .write_ndjson .write_ipc .write_excel .savefig .tofile np.save np.savez \
         np.savez_compressed np.savetxt numpy.save numpy.savez numpy.savetxt torch.save \
         joblib.dump .save_pretrained",
        Call::WriteIfGiven,
    ),
    // Deno's and Bun's file APIs.
    (
        "Deno.writeTextFile Deno.writeTextFileSync Deno.writeFile Deno.writeFileSync \
         Deno.remove Deno.removeSync Deno.truncate Deno.truncateSync Deno.create \
         Deno.createSync Deno.mkdir Deno.mkdirSync Deno.chmod Deno.chmodSync Deno.utime \
         Deno.utimeSync Bun.write",
        Call::Write(&[0]),
    ),
    (
        "Deno.rename Deno.renameSync Deno.link Deno.linkSync",
        Call::Write(&[0, 1]),
    ),
    (
        "Deno.copyFile Deno.copyFileSync Deno.symlink Deno.symlinkSync",
        Call::Write(&[1]),
    ),
    ("Deno.open Deno.openSync", Call::Open),
    (
        "Deno.Command Deno.run Bun.spawn Bun.spawnSync Bun.$",
        Call::Opaque,
    ),
    ("copyfile copytree copy2", Call::Write(&[1])),
    (
        "tempfile.mkstemp tempfile.mkdtemp tempfile.NamedTemporaryFile \
         tempfile.TemporaryDirectory tempfile.TemporaryFile tempfile.SpooledTemporaryFile",
        Call::TempIn,
    ),
    (
        "os.execv os.execvp os.execve os.execvpe os.execl os.execlp os.execle os.execlpe \
         os.spawnl os.spawnlp os.spawnv os.spawnvp os.posix_spawn os.posix_spawnp pty.spawn \
         asyncio.create_subprocess_exec \
         *execFileSync *execFile *spawnSync *spawn *fork __import__ importlib.import_module \
         runpy.run_path runpy.run_module \
         *spec_from_file_location *spec_from_loader *module_from_spec .exec_module .load_module \
         *SourceFileLoader *SourcelessFileLoader *ExtensionFileLoader importlib.reload \
         imp.load_source imp.load_module imp.load_compiled imp.load_dynamic \
         pickle.load pickle.loads pickle.Unpickler marshal.load marshal.loads dill.load \
         dill.loads cloudpickle.load cloudpickle.loads yaml.unsafe_load yaml.unsafe_load_all \
         types.FunctionType types.CodeType code.interact code.InteractiveConsole \
         code.InteractiveInterpreter .interact \
         Function globalThis.Function global.Function .constructor *_load *_compile \
         *createRequire *runMain process.dlopen Worker worker_threads.Worker \
         create_function builtins.__import__ \
         fileinput.input fileinput.FileInput logging.basicConfig shutil.unpack_archive \
         dictConfig fileConfig logging.config.dictConfig logging.config.fileConfig \
         .extractall .extract",
        Call::Opaque,
    ),
    // Python's interactive interpreter runs the source string it is given; node's `vm` too.
    (
        "compile builtins.compile .runsource .runcode vm.runInThisContext vm.runInNewContext \
         vm.runInContext vm.Script \
         vm.compileFunction .runInThisContext .runInNewContext .runInContext \
         globalThis.eval global.eval Kernel.eval binding.eval TOPLEVEL_BINDING.eval \
         *instance_eval *class_eval *module_eval *instance_exec *class_exec *module_exec \
         evalbytes pdb.run cProfile.run profile.run builtins.exec builtins.eval \
         __builtins__.exec __builtins__.eval",
        Call::Code,
    ),
    // Where modules are then loaded from (`lib` is Perl's `use lib DIRS`).
    ("sys.path.insert", Call::LoadPath(&[1])),
    (
        "sys.path.append sys.path.extend site.addsitedir module.paths.push \
         module.paths.unshift $LOAD_PATH.unshift $LOAD_PATH.push $LOAD_PATH.concat",
        Call::LoadPath(&[0]),
    ),
    ("lib", Call::LoadPath(&[0, 1, 2, 3, 4, 5, 6, 7])),
    ("push unshift", Call::PushInc),
    (
        "do load include include_once require_once require_relative execfile Kernel.load \
         Kernel.require_relative",
        Call::LoadFile,
    ),
    (
        "require import from module.require Kernel.require",
        Call::Require,
    ),
    ("*urlretrieve", Call::Write(&[1])),
    ("exec eval", Call::Code),
    (
        "*writeFileSync *writeFile *appendFileSync *appendFile *createWriteStream \
         *unlinkSync *rmSync *rmdirSync *mkdirSync *truncateSync *file_put_contents \
         fs.unlink fs.rm fs.rmdir fs.mkdir fs.truncate os.remove os.unlink os.rmdir \
         os.mkdir os.makedirs os.truncate shutil.rmtree File.write IO.write \
         File.delete File.unlink FileUtils.rm FileUtils.rm_f FileUtils.rm_rf \
         FileUtils.touch FileUtils.mkdir_p unlink mkdir rmdir touch os.open *openSync \
         os.chmod os.utime os.mkfifo os.mknod *chmodSync *utimesSync *lchmodSync \
         *lchownSync *chownSync *lutimesSync *mkdtempSync fs.chmod fs.lchmod fs.chown \
         fs.lchown fs.utimes fs.lutimes fs.mkdtemp os.lchmod os.chown os.lchown \
         os.removedirs",
        Call::Write(&[0]),
    ),
    // A link and what it points to: writing through the link writes the target, as for `ln`.
    (
        "*symlinkSync *linkSync os.symlink os.link fs.symlink fs.link",
        Call::Write(&[0, 1]),
    ),
    (
        "shutil.copymode shutil.copystat *copy_file",
        Call::Write(&[1]),
    ),
    ("os.renames *move_file", Call::Write(&[0, 1])),
    ("shutil.make_archive", Call::Write(&[0])),
    // Perl's File::Slurp / File::Slurper.
    (
        "write_file append_file edit_file edit_file_lines overwrite_file write_text \
         write_binary",
        Call::Write(&[0]),
    ),
    // Node's internal bindings: raw file and process calls.
    (
        "process.binding process._linkedBinding internalBinding",
        Call::Opaque,
    ),
    (
        "py_compile.compile compileall.compile_file compileall.compile_dir \
         compileall.compile_path",
        Call::Opaque,
    ),
    ("sysopen", Call::Write(&[1])),
    // Perl's `dbmopen(%h, FILE, MODE)`.
    ("dbmopen", Call::Write(&[1])),
    // fs-extra's own writers (its fs members are `fs`'s, see `node_fs`), rimraf, mkdirp,
    // del; Python's distutils `dir_util`; Perl's File::Path.
    (
        "*outputFileSync *outputFile *outputJsonSync *outputJson *outputJSONSync *outputJSON \
         *writeJsonSync *writeJSONSync fs.writeJson fs.writeJSON *removeSync fs.remove \
         *emptyDirSync *emptyDir *ensureFileSync *ensureFile *ensureDirSync *ensureDir \
         *mkdirpSync *mkdirsSync fs.mkdirs fs.mkdirp mkdirp mkdirp.sync makeDir makeDirectory \
         rimraf rimraf.sync rimraf.rimraf rimraf.rimrafSync rimraf.native rimraf.manual \
         rimrafSync deleteSync del.sync *deleteAsync writeFileAtomic writeFileAtomic.sync \
         *remove_tree *mkpath make_path *create_tree",
        Call::Write(&[0]),
    ),
    ("*copySync fs.copy *copy_tree", Call::Write(&[1])),
    (
        "*moveSync fs.move *ensureLinkSync *ensureSymlinkSync fs.ensureLink fs.ensureSymlink",
        Call::Write(&[0, 1]),
    ),
    // PHP: `new SplFileObject(F, 'w')`, `tempnam(DIR, P)`, `ZipArchive::extractTo(DIR)`,
    // `pcntl_exec(PROG, ARGS)`.
    ("SplFileObject SplFileInfo.openFile", Call::Open),
    ("tempnam", Call::TempIn),
    (".extractTo", Call::Write(&[0])),
    ("pcntl_exec", Call::Opaque),
    (".chmod .write_text .write_bytes", Call::RecvWrite),
    (
        "*renameSync fs.rename os.rename os.replace shutil.move File.rename \
         FileUtils.mv rename",
        Call::Write(&[0, 1]),
    ),
    (
        "*copyFileSync *cpSync fs.copyFile fs.cp shutil.copy shutil.copyfile shutil.copy2 \
         shutil.copytree FileUtils.cp FileUtils.cp_r copy",
        Call::Write(&[1]),
    ),
    (
        "open io.open codecs.open builtins.open File.open File.new io.FileIO *fopen Kernel.open",
        Call::Open,
    ),
    (
        "*readFileSync fs.readFile file_get_contents File.read IO.read File.readlines \
         IO.readlines",
        Call::Read,
    ),
    (
        ".write_text .write_bytes .unlink .touch .mkdir .rmdir",
        Call::RecvWrite,
    ),
    (".open", Call::RecvOpen),
    (".read_text .read_bytes", Call::RecvRead),
    (".rename .replace .symlink_to .hardlink_to", Call::RecvMove),
    (
        "os.system os.popen subprocess.run subprocess.call subprocess.check_call \
         subprocess.check_output subprocess.Popen subprocess.getoutput \
         subprocess.getstatusoutput *execSync child_process.exec system shell_exec passthru \
         popen proc_open IO.popen Kernel.system Kernel.exec Kernel.spawn \
         Open3.capture2 Open3.capture2e Open3.capture3 Open3.popen2 Open3.popen2e \
         Open3.popen3 Open3.pipeline Open3.pipeline_r Open3.pipeline_w \
         asyncio.create_subprocess_shell",
        Call::Shell,
    ),
];

#[derive(Debug)]
enum CTok<'a> {
    /// A possibly dotted name: `fs.writeFileSync`, `$fh`, `File::Spec`.
    Ident(&'a str),
    Str {
        value: String,
        dynamic: bool,
    },
    Punct(u8),
}

/// A code token and its byte span.
struct Spanned<'a> {
    tok: CTok<'a>,
    start: usize,
    end: usize,
}

fn ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || matches!(c, b'_' | b'$' | b'@')
}

fn ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$')
}

/// A language-agnostic tokenizer for short scripts: names, string literals (with Python prefixes and
/// triple quotes), `#` comments, punctuation. Newlines are kept as `Punct(b'\n')`.
fn code_tokens(code: &str) -> Vec<Spanned<'_>> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        let start = i;
        if c == b'#' && (i == 0 || b[i - 1].is_ascii_whitespace() || b[i - 1] == b';') {
            while b.get(i).is_some_and(|&c| c != b'\n') {
                i += 1;
            }
        } else if c != b'\n' && c.is_ascii_whitespace() {
            i += 1;
        } else if ident_start(c) {
            i += 1;
            loop {
                match (b.get(i), b.get(i + 1), b.get(i + 2)) {
                    (Some(&c), ..) if ident_char(c) => i += 1,
                    (Some(b'.'), Some(&c), _) if ident_start(c) => i += 2,
                    (Some(b':'), Some(b':'), Some(&c)) if ident_start(c) => i += 3,
                    _ => break,
                }
            }
            let id = code.get(start..i).unwrap_or_default();
            let prefix = id.len() <= 2 && id.bytes().all(|c| b"rRbBfFuU".contains(&c));
            if prefix && matches!(b.get(i), Some(b'\'' | b'"')) {
                let (value, dynamic, end) = code_string(b, i, id.contains(['f', 'F']));
                out.push(Spanned {
                    tok: CTok::Str { value, dynamic },
                    start,
                    end,
                });
                i = end;
            } else {
                out.push(Spanned {
                    tok: CTok::Ident(id),
                    start,
                    end: i,
                });
            }
        } else if matches!(c, b'\'' | b'"' | b'`') {
            let (value, dynamic, end) = code_string(b, i, false);
            out.push(Spanned {
                tok: CTok::Str { value, dynamic },
                start,
                end,
            });
            i = end;
        } else {
            // Whole characters, so spans stay on UTF-8 boundaries.
            i += code
                .get(i..)
                .and_then(|s| s.chars().next())
                .map_or(1, char::len_utf8);
            out.push(Spanned {
                tok: CTok::Punct(c),
                start,
                end: i,
            });
        }
    }
    out
}

/// A string literal at `b[i]` (the quote): its value, whether it interpolates (`"$x"`, `"#{x}"`,
/// `` `${x}` ``, f-strings), and the offset after it.
fn code_string(b: &[u8], i: usize, fstring: bool) -> (String, bool, usize) {
    let q = b[i];
    let triple = q != b'`' && b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q);
    let quote_len = if triple { 3 } else { 1 };
    let mut j = i + quote_len;
    let (mut v, mut dynamic) = (Vec::new(), false);
    while let Some(&c) = b.get(j) {
        let next = b.get(j + 1).copied();
        if c == q && (!triple || (next == Some(q) && b.get(j + 2) == Some(&q))) {
            return (lossy(&v), dynamic, j + quote_len);
        }
        if c == b'\\' && next.is_some() {
            v.push(match next.unwrap_or(c) {
                b'n' => b'\n',
                b't' => b'\t',
                n => n,
            });
            j += 2;
            continue;
        }
        let interpolates = (c == b'$'
            && next.is_some_and(|n| n == b'{' || n == b'_' || n.is_ascii_alphabetic()))
            || (c == b'#' && next == Some(b'{'));
        dynamic |= (q != b'\'' && interpolates) || (fstring && c == b'{');
        v.push(c);
        j += 1;
    }
    (lossy(&v), dynamic, b.len())
}

/// For each bracket token, the index of its partner (`usize::MAX` when unbalanced).
fn brackets(toks: &[Spanned<'_>]) -> Vec<usize> {
    let mut pair = vec![usize::MAX; toks.len()];
    let mut stack: Vec<(usize, u8)> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let CTok::Punct(c) = t.tok else { continue };
        let open = match c {
            b'(' | b'[' | b'{' => {
                stack.push((i, c));
                continue;
            }
            b')' => b'(',
            b']' => b'[',
            b'}' => b'{',
            _ => continue,
        };
        if let Some(&(j, o)) = stack.last()
            && o == open
        {
            stack.pop();
            pair[i] = j;
            pair[j] = i;
        }
    }
    pair
}

/// One call argument.
struct CArg<'a> {
    /// Python keyword (`mode='w'`).
    kw: Option<&'a str>,
    /// The string literal, when the argument is exactly one (value, interpolates).
    string: Option<(String, bool)>,
    raw: &'a str,
    /// Token index range.
    toks: (usize, usize),
}

impl CArg<'_> {
    fn lit(&self) -> Option<&str> {
        self.string
            .as_ref()
            .filter(|(_, d)| !d)
            .map(|(v, _)| v.as_str())
    }

    fn word(&self) -> Word {
        match self.lit() {
            Some(v) => Word::synthetic(v, false),
            None => Word::synthetic(self.raw, true),
        }
    }
}

fn carg<'a>(toks: &[Spanned<'_>], code: &'a str, from: usize, to: usize) -> CArg<'a> {
    let slice = toks.get(from..to).unwrap_or_default();
    let (kw, rest) = match slice {
        [
            Spanned {
                tok: CTok::Ident(k),
                ..
            },
            Spanned {
                tok: CTok::Punct(b'='),
                ..
            },
            rest @ ..,
        ] if !matches!(rest.first().map(|t| &t.tok), Some(CTok::Punct(b'=')) | None) => {
            (code.get(slice[0].start..slice[0].end), rest)
        }
        _ => (None, slice),
    };
    let string = match rest {
        [
            Spanned {
                tok: CTok::Str { value, dynamic },
                ..
            },
        ] => Some((value.clone(), *dynamic)),
        _ => None,
    };
    let raw = match (rest.first(), rest.last()) {
        (Some(a), Some(b)) => code.get(a.start..b.end).unwrap_or_default(),
        _ => "",
    };
    CArg {
        kw,
        string,
        raw,
        toks: (to - rest.len(), to),
    }
}

/// Arguments of the call whose `(` is at `open`; returns them and the byte offset after the `)`.
fn paren_args<'a>(
    toks: &[Spanned<'_>],
    pair: &[usize],
    open: usize,
    code: &'a str,
) -> (Vec<CArg<'a>>, usize) {
    let close = pair
        .get(open)
        .copied()
        .filter(|&c| c != usize::MAX)
        .unwrap_or(toks.len());
    let mut args = Vec::new();
    let (mut from, mut k) = (open + 1, open + 1);
    while k < close {
        match toks[k].tok {
            CTok::Punct(b'(' | b'[' | b'{') if pair[k] != usize::MAX && pair[k] < close => {
                k = pair[k] + 1
            }
            CTok::Punct(b',') => {
                args.push(carg(toks, code, from, k));
                k += 1;
                from = k;
            }
            _ => k += 1,
        }
    }
    if from < close {
        args.push(carg(toks, code, from, close));
    }
    (args, toks.get(close).map_or(code.len(), |t| t.end))
}

/// Perl's parenless arguments: up to `;`, a newline, a closing bracket or `or`/`and`/`if`/`unless`.
fn bare_args<'a>(
    toks: &[Spanned<'_>],
    pair: &[usize],
    first: usize,
    code: &'a str,
) -> (Vec<CArg<'a>>, usize) {
    let mut args = Vec::new();
    let (mut from, mut k) = (first, first);
    // Parenless argument lists are short; the cap keeps scanning linear on garbage.
    let limit = first.saturating_add(64).min(toks.len());
    while let Some(t) = toks.get(k).filter(|_| k < limit) {
        match t.tok {
            CTok::Punct(b'(' | b'[' | b'{') if pair[k] != usize::MAX => k = pair[k] + 1,
            CTok::Punct(b';' | b'\n' | b')' | b']' | b'}' | b'|') => break,
            CTok::Ident("or" | "and" | "if" | "unless" | "die") => break,
            CTok::Punct(b',') => {
                args.push(carg(toks, code, from, k));
                k += 1;
                from = k;
            }
            _ => k += 1,
        }
    }
    if from < k {
        args.push(carg(toks, code, from, k));
    }
    (
        args,
        toks.get(k.saturating_sub(1)).map_or(code.len(), |t| t.end),
    )
}

fn call_matches(name: &str, after_dot: bool, pat: &str) -> bool {
    let last = name.rsplit(['.', ':']).next().unwrap_or(name);
    let qualified = after_dot || name.contains(['.', ':']);
    if let Some(m) = pat.strip_prefix('.') {
        qualified && last == m
    } else if let Some(m) = pat.strip_prefix('*') {
        last == m
    } else if pat.contains('.') {
        name == pat
            || (name.len() > pat.len()
                && name.ends_with(pat)
                && name.as_bytes()[name.len() - pat.len() - 1] == b'.')
    } else {
        !qualified && name == pat
    }
}

/// The row of [`CALLS`] a name matches, if any.
fn call_of(name: &str, after_dot: bool) -> Option<Call> {
    CALLS
        .iter()
        .find(|(pats, _)| {
            pats.split_whitespace()
                .any(|p| call_matches(name, after_dot, p))
        })
        .map(|&(_, call)| call)
}

/// Whether `name` (a member name: `writeFileSync`, `remove`) is the last part of a call that
/// writes or runs something: what a call by name (`getattr(os, 'remove')`, `fs['rmSync']`)
/// must not hide.
fn names_a_writing_call(name: &str) -> bool {
    matches!(
        call_of(name, true).or_else(|| call_of(name, false)),
        Some(
            Call::Write(_)
                | Call::WriteIfGiven
                | Call::Opaque
                | Call::Shell
                | Call::Code
                | Call::Open
                | Call::RecvWrite
        )
    ) || CALLS.iter().any(|(pats, call)| {
        matches!(call, Call::Write(_) | Call::Opaque | Call::Shell)
            && pats
                .split_whitespace()
                .any(|p| p.rsplit(['.', '*']).next() == Some(name))
    })
}

/// The names a script binds to modules and functions, to what they name: Python `import m as a`
/// and `from m import f [as a]`; assignments `a = m.f`, `a = require('m')` and
/// `a = require('m').f`; JavaScript destructuring `{f: a, g} = require('m')` (or `= m`). So
/// `r = os.remove; r(p)`, `import shutil as s; s.rmtree(p)` and `const {writeFileSync: w} =
/// require('fs'); w(p)` are the calls they alias.
fn aliases(toks: &[Spanned<'_>], pair: &[usize]) -> std::collections::HashMap<String, String> {
    let mut out = std::collections::HashMap::new();
    let ident = |k: usize| match toks.get(k).map(|t| &t.tok) {
        Some(CTok::Ident(n)) => Some(*n),
        _ => None,
    };
    let punct =
        |k: usize, c: u8| matches!(toks.get(k).map(|t| &t.tok), Some(CTok::Punct(p)) if *p == c);
    // What the expression at `k` names (a dotted name, or `require('m')` with an optional
    // `.member`) and the index after it.
    let target = |k: usize| -> Option<(String, usize)> {
        // `await import('fs')` is the module as `require('fs')` is.
        let k = if ident(k) == Some("await") { k + 1 } else { k };
        if ident(k).is_some_and(imports_by_name) && punct(k + 1, b'(') && punct(k + 3, b')') {
            let Some(CTok::Str {
                value,
                dynamic: false,
            }) = toks.get(k + 2).map(|t| &t.tok)
            else {
                return None;
            };
            let mut name = value.trim_start_matches("node:").to_string();
            let mut next = k + 4;
            if punct(next, b'.')
                && let Some(m) = ident(next + 1)
            {
                name = format!("{name}.{m}");
                next += 2;
            }
            return Some((name, next));
        }
        ident(k).map(|n| (n.to_string(), k + 1))
    };
    for j in 0..toks.len() {
        // ECMAScript imports: `import {a as b, c} from 'm'`, `import * as f from 'm'`,
        // `import d, {…} from 'm'`.
        if ident(j) == Some("import") && !(j > 0 && punct(j - 1, b'.')) {
            let mut bound: Vec<(String, Option<String>)> = Vec::new();
            let mut k = j + 1;
            loop {
                if punct(k, b'{')
                    && let Some(&close) = pair.get(k).filter(|&&c| c != usize::MAX && c > k)
                {
                    let mut i = k + 1;
                    while i < close {
                        match (ident(i), ident(i + 1), ident(i + 2)) {
                            (Some(f), Some("as"), Some(a)) => {
                                bound.push((a.to_string(), Some(f.to_string())));
                                i += 3;
                            }
                            (Some(f), _, _) => {
                                bound.push((f.to_string(), Some(f.to_string())));
                                i += 1;
                            }
                            _ => i += 1,
                        }
                    }
                    k = close + 1;
                } else if punct(k, b'*')
                    && ident(k + 1) == Some("as")
                    && let Some(a) = ident(k + 2)
                {
                    bound.push((a.to_string(), None));
                    k += 3;
                } else if let Some(d) = ident(k).filter(|&d| d != "from") {
                    bound.push((d.to_string(), None));
                    k += 1;
                } else {
                    break;
                }
                if !punct(k, b',') {
                    break;
                }
                k += 1;
            }
            if ident(k) == Some("from")
                && let Some(CTok::Str {
                    value,
                    dynamic: false,
                }) = toks.get(k + 1).map(|t| &t.tok)
            {
                let m = value.trim_start_matches("node:");
                for (a, member) in bound {
                    let full = member.map_or_else(|| m.to_string(), |f| format!("{m}.{f}"));
                    if a != full {
                        out.insert(a, full);
                    }
                }
            }
        }
        if ident(j) == Some("import") {
            let from = (j >= 2 && ident(j - 2) == Some("from"))
                .then(|| ident(j - 1))
                .flatten();
            let mut k = j + 1;
            while let Some(n) = ident(k) {
                let full = from.map_or_else(|| n.to_string(), |m| format!("{m}.{n}"));
                if ident(k + 1) == Some("as")
                    && let Some(a) = ident(k + 2)
                {
                    out.insert(a.to_string(), full);
                    k += 3;
                } else {
                    if from.is_some() {
                        out.insert(n.to_string(), full);
                    }
                    k += 1;
                }
                if !punct(k, b',') {
                    break;
                }
                k += 1;
            }
        }
        let plain_assign = punct(j + 1, b'=')
            && !punct(j + 2, b'=')
            && !(j > 0
                && matches!(
                    toks[j - 1].tok,
                    CTok::Punct(b'=' | b'!' | b'<' | b'>' | b'.')
                ));
        if plain_assign
            && let Some(a) = ident(j)
            && let Some((t, next)) = target(j + 2)
            && !punct(next, b'(')
            && !punct(next, b'[')
        {
            out.insert(a.to_string(), t);
        }
        if punct(j, b'{')
            && let Some(&close) = pair.get(j).filter(|&&c| c != usize::MAX && c > j)
            && punct(close + 1, b'=')
            && !punct(close + 2, b'=')
            && let Some((t, _)) = target(close + 2)
        {
            let mut k = j + 1;
            while k < close {
                match (ident(k), punct(k + 1, b':'), ident(k + 2)) {
                    (Some(f), true, Some(a)) => {
                        out.insert(a.to_string(), format!("{t}.{f}"));
                        k += 3;
                    }
                    (Some(f), false, _) => {
                        out.insert(f.to_string(), format!("{t}.{f}"));
                        k += 1;
                    }
                    _ => k += 1,
                }
            }
        }
    }
    out
}

/// Whether the script loads a module that writes files or runs programs (`require('fs')`,
/// `import os`, `from shutil import …`), directly or through an alias.
fn uses_io_module(
    toks: &[Spanned<'_>],
    aliases: &std::collections::HashMap<String, String>,
) -> bool {
    const MODULES: [&str; 10] = [
        "fs",
        "fs/promises",
        "child_process",
        "os",
        "shutil",
        "subprocess",
        "pathlib",
        "io",
        "posix",
        "nt",
    ];
    let is_io = |n: &str| {
        let n = n.trim_start_matches("node:");
        MODULES
            .iter()
            .any(|m| n == *m || n.split('.').next() == Some(m))
    };
    aliases.values().any(|t| is_io(t))
        || toks.windows(2).any(|w| match (&w[0].tok, &w[1].tok) {
            (CTok::Ident("import" | "from"), CTok::Ident(n)) => is_io(n),
            (CTok::Punct(b'('), CTok::Str { value, .. }) => is_io(value),
            _ => false,
        })
}

/// `name` with aliases replaced ([`aliases`]): the whole name, or its first dotted part, a few
/// times over (`a = fs; b = a.writeFileSync`).
fn resolve(name: &str, aliases: &std::collections::HashMap<String, String>) -> String {
    let mut name = name.to_string();
    for _ in 0..4 {
        let next = match aliases.get(&name) {
            Some(t) => t.clone(),
            None => match name.split_once('.') {
                Some((head, rest)) => match aliases.get(head) {
                    Some(t) => format!("{t}.{rest}"),
                    None => break,
                },
                None => break,
            },
        };
        if next == name {
            break;
        }
        name = next;
    }
    name
}

/// Scans interpreter code for the calls in [`CALLS`]; targets are reported with `via`.
pub(super) fn scan_code(e: &mut Eval, code: &str, via: &str) {
    let toks = code_tokens(code);
    let pair = brackets(&toks);
    let aliases = aliases(&toks, &pair);
    // Code that changes its own working directory (`os.chdir('src')`, `process.chdir(d)`, Perl's
    // `chdir "src"`, `Dir.chdir`): its relative paths are no longer the shell's, so they are
    // known only at run time (`os.chdir('src'); open('../README.md', 'w')`).
    let changes_dir = toks.iter().any(|t| match t.tok {
        CTok::Ident(n) => {
            let n = resolve(n, &aliases);
            let last = n.rsplit(['.', ':']).next().unwrap_or(&n);
            matches!(last, "chdir" | "fchdir" | "chroot") || n.ends_with("FileUtils.cd")
        }
        _ => false,
    });
    let saved_cwd = e.cwd.clone();
    if changes_dir {
        e.cwd = super::eval::Cwd {
            path: String::new(),
            dynamic: true,
        };
    }
    scan_tokens(e, code, via, &toks, &pair, &aliases);
    e.cwd = saved_cwd;
}

/// Perl methods of file objects (Path::Tiny, IO::All, File::Slurper-style APIs) that write.
const PERL_WRITING_METHODS: [&str; 22] = [
    "spew",
    "spew_utf8",
    "spew_raw",
    "append",
    "append_utf8",
    "append_raw",
    "edit",
    "edit_lines",
    "edit_utf8",
    "openw",
    "opena",
    "openrw",
    "openw_utf8",
    "opena_utf8",
    "touch",
    "touchpath",
    "mkpath",
    "remove",
    "remove_tree",
    "move",
    "copy",
    "chmod",
];

/// Code run by name as a value, not called in place (`(0, eval)(s)`, `F = Function`, Perl's
/// `eval <STDIN>`): what it runs is out of sight.
const CODE_VALUES: [&str; 6] = [
    "eval",
    "exec",
    "Function",
    "evalbytes",
    "execfile",
    "__import__",
];

fn scan_tokens(
    e: &mut Eval,
    code: &str,
    via: &str,
    toks: &[Spanned<'_>],
    pair: &[usize],
    aliases: &std::collections::HashMap<String, String>,
) {
    let uses_child_process = toks.iter().any(|t| {
        matches!(&t.tok, CTok::Str { value, .. }
            if value.trim_start_matches("node:") == "child_process")
    });
    for j in 0..toks.len() {
        // A call by a computed name on a value (`fs[m](p)`) in a script that uses a module
        // that writes files or runs programs.
        if let CTok::Punct(b'[') = toks[j].tok
            && j > 0
            && matches!(toks[j - 1].tok, CTok::Ident(_) | CTok::Punct(b')' | b']'))
            && let Some(&close) = pair.get(j).filter(|&&c| c != usize::MAX && c > j + 1)
            && !(close == j + 2 && matches!(toks[j + 1].tok, CTok::Str { dynamic: false, .. }))
            && matches!(toks.get(close + 1).map(|t| &t.tok), Some(CTok::Punct(b'(')))
            && uses_io_module(toks, aliases)
        {
            e.unknown(
                code.get(toks[j].start..toks[close].end).unwrap_or_default(),
                format!("{via}: a call by a name computed at run time"),
            );
            continue;
        }
        // The builtins looked up by name (`globals()['__builtins__'].open(…)`): any of their
        // members may be taken from there.
        if let CTok::Punct(b'[') = toks[j].tok
            && let Some(CTok::Str { value, .. }) = toks.get(j + 1).map(|t| &t.tok)
            && matches!(value.as_str(), "__builtins__" | "builtins")
            && matches!(toks.get(j + 2).map(|t| &t.tok), Some(CTok::Punct(b']')))
            && matches!(toks.get(j + 3).map(|t| &t.tok), Some(CTok::Punct(b'.')))
        {
            e.unknown(
                code.get(toks[j].start..toks[j + 2].end).unwrap_or(value),
                format!("{via}: the builtins looked up by name"),
            );
            continue;
        }
        // A call by a literal name: `fs['rmSync'](p)`.
        if let CTok::Punct(b'[') = toks[j].tok
            && let Some(CTok::Str { value, .. }) = toks.get(j + 1).map(|t| &t.tok)
            && matches!(toks.get(j + 2).map(|t| &t.tok), Some(CTok::Punct(b']')))
            && matches!(toks.get(j + 3).map(|t| &t.tok), Some(CTok::Punct(b'(')))
            && names_a_writing_call(value)
        {
            e.unknown(
                code.get(toks[j].start..toks[j + 2].end).unwrap_or(value),
                format!("{via}: a call by name ({value})"),
            );
            continue;
        }
        let CTok::Ident(name) = toks[j].tok else {
            continue;
        };
        let after_dot = j > 0 && matches!(toks[j - 1].tok, CTok::Punct(b'.'));
        // A module looked up at run time, then a writing member called on it
        // (`sys.modules['os'].remove(p)`, `importlib.sys.modules[m].system(c)`).
        if name.ends_with("sys.modules")
            && matches!(toks.get(j + 1).map(|t| &t.tok), Some(CTok::Punct(b'[')))
            && let Some(&close) = pair.get(j + 1).filter(|&&c| c != usize::MAX)
            && matches!(toks.get(close + 1).map(|t| &t.tok), Some(CTok::Punct(b'.')))
            && let Some(CTok::Ident(member)) = toks.get(close + 2).map(|t| &t.tok)
            && names_a_writing_call(member.rsplit('.').next().unwrap_or(member))
        {
            e.unknown(
                code.get(toks[j].start..toks[close + 2].end).unwrap_or(name),
                format!("{via}: a member of a module looked up in sys.modules"),
            );
            continue;
        }
        // Perl: a reference to a writing builtin (`\&CORE::unlink`, `\&unlink`) called later,
        // and methods of file objects that write (`path(…)->spew`, `IO::File->new(f, "w")`,
        // `File::Temp->new(DIR => d)`): the files are out of sight.
        if via.starts_with("perl") {
            let prev = |k: usize| j.checked_sub(k).map(|i| &toks[i].tok);
            let last = name.rsplit(':').next().unwrap_or(name);
            let reference = matches!(prev(1), Some(CTok::Punct(b'&')))
                && matches!(prev(2), Some(CTok::Punct(b'\\')))
                && names_a_writing_call(last);
            let method = matches!(prev(1), Some(CTok::Punct(b'>')))
                && matches!(prev(2), Some(CTok::Punct(b'-')))
                && (PERL_WRITING_METHODS.contains(&name)
                    || (matches!(name, "new" | "open" | "new_from_fd")
                        && matches!(
                            prev(3),
                            Some(CTok::Ident(
                                "IO::File" | "File::Temp" | "IO::AtomicFile" | "IO::Handle"
                            ))
                        )));
            if reference || method {
                e.unknown(
                    name,
                    format!("{via}: {name} (writes files the analysis cannot name)"),
                );
                continue;
            }
        }
        // A member looked up by a name: `getattr(os, 'remove')`, `getattr(os, n)`.
        let looked_up = resolve(name, aliases);
        if matches!(
            looked_up.as_str(),
            "getattr" | "operator.methodcaller" | "operator.attrgetter"
        ) && (looked_up != "getattr" || !after_dot)
            && matches!(toks.get(j + 1).map(|t| &t.tok), Some(CTok::Punct(b'(')))
            && pair[j + 1] != usize::MAX
        {
            let (args, _) = paren_args(toks, pair, j + 1, code);
            let at = usize::from(looked_up == "getattr");
            let member = args.get(at).map(|a| a.lit().map(str::to_owned));
            if let Some(member) = member
                && member.as_deref().is_none_or(names_a_writing_call)
            {
                let end = toks[pair[j + 1]].end;
                e.unknown(
                    code.get(toks[j].start..end).unwrap_or(name),
                    format!("{via}: getattr of a member the analysis cannot follow"),
                );
            }
            continue;
        }
        // `sys.path = [...]`, `sys.path += [...]`, `sys.path[:0] = [...]`: where modules are then
        // loaded from, set at run time.
        if name == "sys.path" && !after_dot {
            let assign_at = match toks.get(j + 1).map(|t| &t.tok) {
                Some(CTok::Punct(b'[')) => pair.get(j + 1).map(|&c| c.saturating_add(1)),
                Some(CTok::Punct(b'+')) => Some(j + 2),
                _ => Some(j + 1),
            };
            if let Some(k) = assign_at
                && matches!(toks.get(k).map(|t| &t.tok), Some(CTok::Punct(b'=')))
                && !matches!(toks.get(k + 1).map(|t| &t.tok), Some(CTok::Punct(b'=')))
            {
                let end = toks
                    .iter()
                    .skip(k)
                    .take_while(|t| !matches!(t.tok, CTok::Punct(b';' | b'\n')))
                    .last()
                    .map_or(toks[j].end, |t| t.end);
                e.unknown(
                    code.get(toks[j].start..end).unwrap_or(name),
                    format!("{via}: sys.path set to load code from"),
                );
            }
            continue;
        }
        // `require('child_process').exec(…)`: the member of the module required in place; in a
        // script that loads child_process, `m.exec(…)` on any value is its `exec`
        // (`import('child_process').then(m => m.exec(…))`).
        let canonical = match required_module(toks, pair, j) {
            Some(m) => format!("{m}.{name}"),
            None if (after_dot || name.contains('.'))
                && uses_child_process
                && let Some(member) = name.rsplit('.').next()
                && CHILD_PROCESS.contains(&member) =>
            {
                format!("child_process.{member}")
            }
            None => resolve(name, aliases),
        };
        // Node's promise API under any spelling (`require('fs/promises').rm`, `fs.promises.cp`,
        // `const {promises: p} = require('fs')`) is the `fs` member of the same name.
        let canonical = node_fs(&canonical);
        // Python's `posix`/`nt` are `os`; Perl's `CORE::unlink`, `POSIX::remove` the builtins.
        let canonical = match canonical.split_once('.') {
            Some(("posix" | "nt", rest)) => format!("os.{rest}"),
            // `__builtins__.open` is `builtins.open`.
            Some(("__builtins__", rest)) => format!("builtins.{rest}"),
            _ => canonical
                .strip_prefix("CORE::GLOBAL::")
                .or_else(|| canonical.strip_prefix("CORE::"))
                .or_else(|| canonical.strip_prefix("POSIX::"))
                .map_or(canonical.clone(), str::to_string),
        };
        // A writing function called or bound through `bind`/`call`/`apply`
        // (`fs.writeFileSync.bind(fs)`, `os.remove.__call__`): where its arguments go is out of
        // sight.
        if let Some((fun, how)) = canonical.rsplit_once('.')
            && matches!(how, "bind" | "call" | "apply" | "__call__" | "__func__")
            && fun.contains('.')
            && names_a_writing_call(fun.rsplit('.').next().unwrap_or(fun))
        {
            e.unknown(
                code.get(toks[j].start..toks[j].end).unwrap_or(name),
                format!("{via}: {fun} called through {how}"),
            );
            continue;
        }
        // A program-running member of child_process taken as a value, not called here
        // (`util.promisify(cp.exec)`, `[cp.exec][0](…)`): what it runs is out of sight.
        if (after_dot || name.contains('.'))
            && canonical
                .strip_prefix("child_process.")
                .is_some_and(|m| CHILD_PROCESS.contains(&m))
            && !matches!(toks.get(j + 1).map(|t| &t.tok), Some(CTok::Punct(b'(')))
        {
            e.unknown(
                code.get(toks[j].start..toks[j].end).unwrap_or(name),
                format!("{via}: {canonical} passed as a value (what it runs is out of sight)"),
            );
            continue;
        }
        // A module's writing or program-running function taken as a value, not called here
        // (`map(os.remove, files)`, `{'r': os.remove}`, `.then(fs.unlinkSync)`,
        // `Reflect.apply(fs.writeFileSync, …)`): what it is later called with is out of sight.
        // An alias made of it (`w = fs.writeFileSync`) is followed to its calls instead.
        let next = toks.get(j + 1).map(|t| &t.tok);
        // Where the reference starts: `require('fs').writeFileSync` at `require`.
        let start = match required_module(toks, pair, j) {
            Some(_) => pair
                .get(j - 2)
                .and_then(|&open| open.checked_sub(1))
                .unwrap_or(j),
            None => j,
        };
        let start = if start > 0 && matches!(toks[start - 1].tok, CTok::Ident("await")) {
            start - 1
        } else {
            start
        };
        // `w = fs.writeFileSync` as a statement (not `f(target=os.remove)`, a keyword
        // argument).
        let alias_definition = start >= 2
            && matches!(toks[start - 1].tok, CTok::Punct(b'='))
            && matches!(toks[start - 2].tok, CTok::Ident(_))
            && (start == 2
                || matches!(
                    toks[start - 3].tok,
                    CTok::Punct(b';' | b'\n' | b'{' | b'}')
                        | CTok::Ident("const" | "let" | "var" | "my" | "our" | "local")
                ));
        if (after_dot || name.contains('.'))
            && canonical.contains('.')
            && !alias_definition
            && !matches!(
                next,
                Some(CTok::Punct(b'(' | b'.' | b'=' | b'[')) | Some(CTok::Ident("as" | "import"))
            )
            && !(j > 0 && matches!(toks[j - 1].tok, CTok::Ident("import" | "from")))
            && matches!(
                call_of(&canonical, after_dot),
                Some(Call::Write(_) | Call::WriteIfGiven | Call::Shell)
            )
        {
            e.unknown(
                code.get(toks[j].start..toks[j].end).unwrap_or(name),
                format!(
                    "{via}: {canonical} passed as a value (what it is called with is out of sight)"
                ),
            );
            continue;
        }
        // A writing or code-running call named by a Ruby symbol (`send(:system, …)`,
        // `public_send(:eval, s)`, `method(:unlink).call(p)`).
        if !after_dot
            && j >= 1
            && matches!(toks[j - 1].tok, CTok::Punct(b':'))
            && toks[j - 1].end == toks[j].start
            && (j < 2
                || matches!(
                    toks[j - 2].tok,
                    CTok::Punct(b'(' | b',' | b'[')
                        | CTok::Ident("send" | "public_send" | "__send__" | "method")
                ))
            && (names_a_writing_call(name) || CODE_VALUES.contains(&name))
        {
            e.unknown(
                format!(":{name}"),
                format!("{via}: a call by name (:{name})"),
            );
            continue;
        }
        // PHP callables by name: `array_map('unlink', $files)`, `call_user_func('system', $c)`,
        // and a call of a variable (`$f = 'unlink'; $f('p')`) in code naming such a function.
        if via.starts_with("php") && !after_dot {
            let callable_taker =
                matches!(
                    name,
                    "call_user_func"
                        | "call_user_func_array"
                        | "array_map"
                        | "array_walk"
                        | "array_walk_recursive"
                        | "array_filter"
                        | "array_reduce"
                        | "usort"
                        | "uasort"
                        | "uksort"
                        | "register_shutdown_function"
                        | "register_tick_function"
                        | "forward_static_call"
                        | "forward_static_call_array"
                        | "iterator_apply"
                        | "set_error_handler"
                        | "set_exception_handler"
                        | "spl_autoload_register"
                        | "ob_start"
                        | "header_register_callback"
                ) && matches!(toks.get(j + 1).map(|t| &t.tok), Some(CTok::Punct(b'(')));
            let names_writer = toks.iter().any(|t| {
                matches!(&t.tok, CTok::Str { value, .. }
                    if names_a_writing_call(value) || CODE_VALUES.contains(&value.as_str()))
            });
            let variable_call = name.starts_with('$')
                && matches!(toks.get(j + 1).map(|t| &t.tok), Some(CTok::Punct(b'(')));
            if (callable_taker || variable_call) && names_writer {
                e.unknown(
                    name,
                    format!("{via}: {name} calls a function named by a string"),
                );
                continue;
            }
        }
        // A code-running builtin taken as a value (`(0, eval)(s)`, `F = Function`, Perl's
        // `eval <STDIN>`, `map(exec, …)`): the code it runs is out of sight.
        if !after_dot
            && canonical == name
            && CODE_VALUES.contains(&name)
            && !matches!(
                toks.get(j + 1).map(|t| &t.tok),
                Some(CTok::Punct(b'(' | b'{') | CTok::Str { .. } | CTok::Ident(_))
            )
            && !(j > 0 && matches!(toks[j - 1].tok, CTok::Ident("import" | "def" | "function")))
        {
            e.unknown(
                name,
                format!("{via}: {name} taken as a value (the code it runs is out of sight)"),
            );
            continue;
        }
        // PHP's `assert("code")` evaluates a string assertion as code (PHP 7).
        if name == "assert"
            && !after_dot
            && matches!(toks.get(j + 1).map(|t| &t.tok), Some(CTok::Punct(b'(')))
            && pair[j + 1] != usize::MAX
        {
            let (args, _) = paren_args(toks, pair, j + 1, code);
            match args.first().map(|a| (a.lit(), &a.string)) {
                Some((Some(text), _)) => scan_code(e, text, via),
                // PHP 7 evaluates any string assertion, also one in a variable.
                Some((None, Some(_))) | Some((None, None)) if via.starts_with("php") => e.unknown(
                    code.get(toks[j].start..toks[pair[j + 1]].end)
                        .unwrap_or(name),
                    format!("{via}: assert of code built at run time"),
                ),
                Some((None, Some(_))) => e.unknown(
                    code.get(toks[j].start..toks[pair[j + 1]].end)
                        .unwrap_or(name),
                    format!("{via}: assert of code built at run time"),
                ),
                _ => {}
            }
            continue;
        }
        // `__import__('os')`, `importlib.import_module('json')`: a module from the search
        // path by its literal name, as `import os` is (its members are followed above). Other
        // arguments (`fromlist`, a name built at run time) stay opaque.
        if !after_dot
            && matches!(
                canonical.as_str(),
                "__import__" | "builtins.__import__" | "importlib.import_module"
            )
            && matches!(toks.get(j + 1).map(|t| &t.tok), Some(CTok::Punct(b'(')))
            && pair.get(j + 1) == Some(&(j + 3))
            && matches!(
                toks.get(j + 2).map(|t| &t.tok),
                Some(CTok::Str { dynamic: false, .. })
            )
        {
            continue;
        }
        // Ruby's `Pathname.new('f').write(…)`, `Pathname('f').delete`: the path the receiver
        // names (other objects' `write` is a stream's).
        if after_dot
            && matches!(
                name,
                "write"
                    | "binwrite"
                    | "delete"
                    | "unlink"
                    | "rmtree"
                    | "mkpath"
                    | "mkdir"
                    | "rmdir"
                    | "make_symlink"
                    | "make_link"
                    | "truncate"
                    | "rename"
                    | "utime"
                    | "chmod"
            )
            && let Some(p) = pathname_receiver(toks, pair, j, code)
        {
            e.write(&Word::synthetic(&p, false), via);
            continue;
        }
        // PHP's `$zip->extractTo(DIR)`: the archive's files land in DIR.
        if name == "extractTo"
            && j >= 2
            && matches!(toks[j - 1].tok, CTok::Punct(b'>'))
            && matches!(toks[j - 2].tok, CTok::Punct(b'-'))
            && matches!(toks.get(j + 1).map(|t| &t.tok), Some(CTok::Punct(b'(')))
            && pair[j + 1] != usize::MAX
        {
            let (args, _) = paren_args(toks, pair, j + 1, code);
            match args.first() {
                Some(a) => e.write_tree(&a.word(), via),
                None => e.unknown(name, format!("{via}: extractTo")),
            }
            continue;
        }
        let Some(call) = call_of(&canonical, after_dot).or_else(|| call_of(name, after_dot)) else {
            continue;
        };
        let (args, end) = match toks.get(j + 1).map(|t| &t.tok) {
            // Perl's `exec {PROGRAM} LIST` and `system {PROGRAM} LIST`: PROGRAM runs with LIST as
            // its argv (LIST's first word is only the name it is shown under).
            Some(CTok::Punct(b'{'))
                if matches!(call, Call::Shell | Call::Code)
                    && !after_dot
                    && !name.contains('.')
                    && pair[j + 1] != usize::MAX =>
            {
                let close = pair[j + 1];
                let (list, end) = bare_args(toks, pair, close + 1, code);
                let program = match toks.get(j + 2..close).unwrap_or_default() {
                    [
                        Spanned {
                            tok:
                                CTok::Str {
                                    value,
                                    dynamic: false,
                                },
                            ..
                        },
                    ] => Some(value.clone()),
                    _ => None,
                };
                let snippet = code.get(toks[j].start..end).unwrap_or(name);
                match program {
                    Some(p) => {
                        let argv = std::iter::once(Some(p))
                            .chain(list.iter().skip(1).map(|a| a.lit().map(str::to_owned)));
                        e.run_text(&argv_text(argv));
                    }
                    None => e.unknown(
                        snippet,
                        format!("{via}: {name} of a program named at run time"),
                    ),
                }
                continue;
            }
            // An unbalanced call is a syntax error: the interpreter runs nothing.
            Some(CTok::Punct(b'(')) if pair[j + 1] != usize::MAX => {
                paren_args(toks, pair, j + 1, code)
            }
            // `from os import remove as rm`, `import remove`: a name, not a call.
            Some(CTok::Ident("as")) => continue,
            _ if j > 0 && matches!(toks[j - 1].tok, CTok::Ident("import")) => continue,
            Some(CTok::Str { .. } | CTok::Ident(_)) if !after_dot && !name.contains('.') => {
                bare_args(toks, pair, j + 1, code)
            }
            // Perl's `chmod 0755, "f"`.
            Some(CTok::Punct(c)) if c.is_ascii_digit() && !after_dot && !name.contains('.') => {
                bare_args(toks, pair, j + 1, code)
            }
            // Perl's writing builtins on `$_` (`map { unlink } @f`, `unlink;`) or on a glob
            // (`unlink <src/*.py>`): the files are known only at run time.
            Some(CTok::Punct(_)) | None
                if via.starts_with("perl")
                    && toks.len() > 1
                    && !after_dot
                    && !name.contains('.')
                    && matches!(call, Call::Write(_)) =>
            {
                e.unknown(
                    name,
                    format!("{via}: {name} of $_ or a glob (files known only at run time)"),
                );
                continue;
            }
            _ => continue,
        };
        let snippet = Word::synthetic(code.get(toks[j].start..end).unwrap_or(name), true);
        let positional: Vec<&CArg<'_>> = args.iter().filter(|a| a.kw.is_none()).collect();
        let kw = |k: &str| args.iter().find(|a| a.kw == Some(k));
        let writes_mode = |m: Option<&CArg<'_>>| m.and_then(CArg::lit).is_some_and(is_write_mode);
        // Arguments unpacked at run time (`open(*['f', 'w'])`, `open(**kw)`, `open(...args)`):
        // which parameter each fills, the mode among them, is unknown. (Perl's `open(*FH, …)`
        // names a handle. Other calls already count an argument they cannot read as run time.)
        let unpacked = args.iter().enumerate().any(|(i, a)| {
            a.raw.starts_with("...")
                || a.raw.starts_with("**")
                || (a.raw.starts_with('*') && (i > 0 || args.len() == 1))
        });
        if unpacked && matches!(call, Call::Open | Call::RecvOpen) {
            e.unknown(
                snippet.value.clone(),
                format!("{via}: {name} with arguments unpacked at run time"),
            );
            continue;
        }
        // `cProfile.run(STMT, FILENAME)`: the statistics go to FILENAME.
        if matches!(canonical.as_str(), "cProfile.run" | "profile.run")
            && let Some(f) = positional.get(1)
        {
            e.write(&f.word(), via);
        }
        let loads = format!("{via}: {name} loads code from");
        match call {
            Call::LoadPath(indexes) => {
                for &i in indexes {
                    if let Some(a) = positional.get(i) {
                        for dir in list_words(a) {
                            load_from(e, &dir, &loads);
                        }
                    }
                }
            }
            Call::PushInc => {
                if positional
                    .first()
                    .is_some_and(|a| matches!(a.raw, "@INC" | "@::INC"))
                {
                    for a in &positional[1..] {
                        for dir in list_words(a) {
                            load_from(e, &dir, &loads);
                        }
                    }
                }
            }
            Call::LoadFile | Call::Require => {
                let Some(a) = positional.first() else {
                    continue;
                };
                let paren = matches!(toks.get(j + 1).map(|t| &t.tok), Some(CTok::Punct(b'(')));
                match a.lit() {
                    // `import('data:text/javascript,…')`, `import('https://…')`: code given in
                    // the name, or fetched.
                    Some(p)
                        if p.starts_with("data:")
                            || (p.contains("://") && !p.starts_with("file://")) =>
                    {
                        e.unknown(
                            "<code loaded from a URL>",
                            format!("{via}: {name} of code in or behind a URL ({})", a.raw),
                        );
                    }
                    Some(p) => {
                        let p = p.strip_prefix("file://").unwrap_or(p);
                        // `require('fs')`, `require "strict.pm"`, `import('lodash/fp')`: a
                        // module from the search path (which is checked where it is set).
                        let file = matches!(call, Call::LoadFile)
                            || p.starts_with(['/', '~'])
                            || p.starts_with("./")
                            || p.starts_with("../")
                            || p == "."
                            || p == ".."
                            // PHP's `require 'x.php'` (found on include_path or here).
                            || [".php", ".inc", ".phtml"].iter().any(|x| p.ends_with(x));
                        if file {
                            load_from(e, &Word::synthetic(p, false), &loads);
                        }
                    }
                    // `require $file`, `do $f`, `include $x`, `require(name)`: run time. A bare
                    // word is a module (`require Foo::Bar`) or not a load (Ruby's `loop do puts`).
                    None if a.raw.starts_with('$') || (paren && matches!(call, Call::Require)) => {
                        load_from(e, &Word::synthetic(a.raw, true), &loads)
                    }
                    None => {}
                }
            }
            Call::Write(indexes) => {
                // A call that only changes metadata names itself in `via`: the kernel sandbox
                // cannot refuse chmod or utime, so the gate never leaves those to it.
                let metadata = super::changes_metadata_only(name);
                let named;
                let via = if metadata {
                    named = format!("{via} {name}");
                    named.as_str()
                } else {
                    via
                };
                for &i in indexes {
                    match positional.get(i) {
                        // Perl's `chmod 0755, "f"` and `utime $a, $m, "f"` name the files last.
                        Some(a)
                            if a.lit().is_none()
                                && (is_number(a.raw) || a.raw.trim() == "undef") => {}
                        // `sqlite3.connect(':memory:')`: a database in memory, no file.
                        Some(a)
                            if a.lit().is_some_and(|l| {
                                l == ":memory:" || l.is_empty() || l.starts_with("file::memory:")
                            }) => {}
                        // `sqlite3.connect('file:db?mode=ro', uri=True)`: a URI names the
                        // file; read-only and immutable opens write nothing. (Without
                        // `uri=True` the name is a file name, colon and all.)
                        Some(a)
                            if a.lit().is_some_and(|l| l.starts_with("file:"))
                                && kw("uri").is_some_and(|u| u.raw.trim() == "True") =>
                        {
                            let uri = a.lit().unwrap_or_default();
                            let (path, query) = uri["file:".len()..]
                                .split_once('?')
                                .unwrap_or((&uri["file:".len()..], ""));
                            let path = path.strip_prefix("//localhost").unwrap_or(path);
                            let path = path.strip_prefix("//").map_or(path, |p| p);
                            if !query
                                .split('&')
                                .any(|kv| matches!(kv, "mode=ro" | "immutable=1"))
                            {
                                e.write(&Word::synthetic(path, false), via);
                            }
                        }
                        Some(a) => e.write(&a.word(), via),
                        // Arguments the analysis cannot count (`copy(*pair)`): the call itself.
                        None if Some(&i) == indexes.first() => e.write(&snippet, via),
                        None => {}
                    }
                }
            }
            Call::WriteIfGiven => {
                // `np.save(f, a)`, `torch.save(obj, f)`, `joblib.dump(obj, f)`: the file is
                // the first argument of the methods, the second of these functions.
                let i = usize::from(matches!(name, "torch.save" | "joblib.dump"));
                if let Some(a) = positional.get(i) {
                    e.write(&a.word(), via);
                }
            }
            Call::Read => positional.first().iter().for_each(|a| e.read(&a.word())),
            Call::Open => open_call(e, &positional, kw("file"), kw("mode"), via),
            Call::RecvWrite | Call::RecvOpen | Call::RecvRead | Call::RecvMove => {
                let recv =
                    path_receiver(toks, pair, j, name, code).map(|p| Word::synthetic(&p, false));
                match call {
                    Call::RecvWrite => e.write(recv.as_ref().unwrap_or(&snippet), via),
                    Call::RecvOpen if writes_mode(positional.first().copied().or(kw("mode"))) => {
                        e.write(recv.as_ref().unwrap_or(&snippet), via)
                    }
                    Call::RecvOpen | Call::RecvRead => recv.iter().for_each(|r| e.read(r)),
                    _ => {
                        if let Some(r) = recv {
                            e.write(&r, via);
                            positional
                                .first()
                                .iter()
                                .for_each(|a| e.write(&a.word(), via));
                        }
                    }
                }
            }
            // `logging.basicConfig(level=…)` logs to stderr; only a `filename` (written) or
            // handlers given to it can name a file.
            Call::Opaque if name.ends_with("basicConfig") && kw("handlers").is_none() => {
                if let Some(f) = kw("filename").or(positional.first().copied()) {
                    e.write(&f.word(), via);
                }
            }
            // `py_compile.compile(f, doraise=True)` (a syntax check) writes only under
            // `__pycache__`; a `cfile` names the output. `compileall` the same unless `legacy`
            // puts `.pyc` files next to the sources (or options the analysis does not read).
            Call::Opaque if canonical.ends_with("py_compile.compile") => {
                if let Some(f) = kw("cfile").or(positional.get(1).copied()) {
                    e.write(&f.word(), via);
                }
            }
            Call::Opaque
                if canonical.starts_with("compileall.")
                    && positional.len() <= 1
                    && args.iter().all(|a| {
                        matches!(
                            a.kw,
                            None | Some("quiet" | "force" | "maxlevels" | "workers")
                        )
                    }) => {}
            // Node's `spawnSync('git', ['log'], {stdio: 'inherit'})`, `execFileSync(…)`: a
            // program and a literal argument list are analysed as that command line (with
            // `shell: true` also as the words joined into one); options that move the working
            // directory or set the environment, or arguments built at run time, stay unknown.
            Call::Opaque
                if matches!(
                    canonical.rsplit('.').next(),
                    Some("spawnSync" | "spawn" | "execFileSync" | "execFile")
                ) && !canonical.starts_with("os.")
                    && let Some(program) = positional.first().and_then(|a| a.lit())
                    && let Some(argv) = match positional.get(1) {
                        None => Some(Vec::new()),
                        Some(a) if a.raw.trim_start().starts_with('{') => Some(Vec::new()),
                        Some(a) if a.raw.trim_start().starts_with('[') => {
                            let w = list_words(a);
                            w.iter().all(|w| !w.dynamic).then_some(w)
                        }
                        Some(_) => None,
                    }
                    && !args.iter().any(|a| {
                        a.raw.trim_start().starts_with('{')
                            && (a.raw.contains("cwd") || a.raw.contains("env"))
                    }) =>
            {
                let words = std::iter::once(program.to_string())
                    .chain(argv.iter().map(|w| w.value.clone()));
                e.run_text(&argv_text(words.clone().map(Some)));
                // Ruby's `spawn("cmd args")` (and a program string holding spaces anywhere:
                // `spawn('rm f', {shell: true})`) is a command line.
                if args.iter().any(|a| a.raw.contains("shell"))
                    || (program.contains(char::is_whitespace) && argv.is_empty())
                {
                    e.run_text(&words.collect::<Vec<_>>().join(" "));
                }
            }
            Call::Opaque => e.unknown(
                snippet.value.clone(),
                format!("{via}: {name} (runs code the analysis cannot follow)"),
            ),
            // `eval('open')(…)`, `eval('os.remove')`: code that only names a writing or
            // code-running function hands it out as a value.
            Call::Code
                if positional.len() == 1
                    && !via.starts_with("perl")
                    && positional.first().and_then(|a| a.lit()).is_some_and(|t| {
                        let t = t.trim();
                        !t.is_empty()
                            && t.bytes()
                                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
                            && (names_a_writing_call(t.rsplit('.').next().unwrap_or(t))
                                || CODE_VALUES.contains(&t))
                    }) =>
            {
                e.unknown(
                    snippet.value.clone(),
                    format!("{via}: {name} of a function's name (it is then called)"),
                );
            }
            Call::Code => match positional.first() {
                Some(code) if code.lit().is_some() => {
                    // Python/JS code, or (Perl's `exec "cmd"`) a command line: both readings;
                    // Perl's `exec "prog", "arg"…` runs an argv.
                    let text = code.lit().unwrap_or_default().to_string();
                    scan_code(e, &text, via);
                    e.run_text(&text);
                    if positional.len() > 1 {
                        e.run_text(&argv_text(
                            positional.iter().map(|a| a.lit().map(str::to_owned)),
                        ));
                    }
                }
                _ => e.unknown(
                    snippet.value.clone(),
                    format!("{via}: {name} of code built at run time"),
                ),
            },
            Call::TempIn => {
                // `dir=` by keyword; by position the third argument of `mkstemp`/`mkdtemp`
                // (suffix, prefix, dir), the first of PHP's `tempnam(DIR, PREFIX)`.
                let at = match canonical.rsplit('.').next() {
                    Some("mkstemp" | "mkdtemp") => Some(2),
                    Some("tempnam") => Some(0),
                    _ => None,
                };
                if let Some(dir) = kw("dir").or_else(|| at.and_then(|i| positional.get(i).copied()))
                {
                    e.write_tree(&dir.word(), via);
                }
            }
            Call::Shell => {
                let Some(cmd) = positional.first() else {
                    continue;
                };
                if let Some(text) = cmd.lit() {
                    e.run_text(text);
                    // Perl's `system "prog", "arg"…` (list form) runs an argv; PHP's
                    // `system($cmd, $rc)` and Python's `os.popen(cmd, 'r')` name no more words,
                    // and reading them as arguments finds nothing more.
                    if positional.len() > 1 && !after_dot && !name.contains('.') {
                        e.run_text(&argv_text(
                            positional.iter().map(|a| a.lit().map(str::to_owned)),
                        ));
                    }
                } else if !cmd.raw.starts_with('[') {
                    // A command line built at run time (`os.system('echo x > ' + p)`).
                    e.unknown(
                        snippet.value.clone(),
                        format!("{via}: {name} of a command built at run time"),
                    );
                } else if cmd.raw.starts_with('[') {
                    // argv list: literal strings quoted, anything else as a variable.
                    let argv = toks[cmd.toks.0..cmd.toks.1]
                        .iter()
                        .filter_map(|t| match &t.tok {
                            CTok::Str {
                                value,
                                dynamic: false,
                            } => Some(Some(value.clone())),
                            CTok::Punct(b'[' | b']' | b',') => None,
                            _ => Some(None),
                        });
                    e.run_text(&argv_text(argv));
                }
            }
        }
    }
}

/// A file or directory code is loaded from: a literal one is checked like `bash FILE`, one known
/// only at run time is a run-time unknown.
fn load_from(e: &mut Eval, w: &Word, via: &str) {
    if w.dynamic {
        // As `<…>`: a run-time word starting with a directory outside the project would be
        // taken for a write there.
        e.unknown(format!("<{}>", w.raw), via);
    } else {
        e.script(w, via);
    }
}

/// A command line running `argv` as it is: literal words quoted, words known only at run time
/// as a variable.
fn argv_text(argv: impl Iterator<Item = Option<String>>) -> String {
    argv.map(|w| match w {
        Some(v) => shell_quote(&v),
        None => "\"$arg\"".to_string(),
    })
    .collect::<Vec<_>>()
    .join(" ")
}

/// `s` as one single-quoted shell word (as `code_intel_gate::gate::sandbox::shell_quote`).
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The words of an argument that is a string, a list of literal strings (`['a', 'b']`) or Perl's
/// `qw(a b)`; a word known only at run time when it is anything else.
fn list_words(a: &CArg<'_>) -> Vec<Word> {
    if let Some(v) = a.lit() {
        return vec![Word::synthetic(v, false)];
    }
    let raw = a.raw.trim();
    // `qw` and its ASCII delimiters around the words; anything else (an unclosed or non-ASCII
    // end) is left to the run-time word below, never sliced inside a character.
    if let Some(words) = raw
        .strip_prefix("qw")
        .map(str::trim_start)
        .filter(|r| r.len() >= 2 && r.starts_with(|c: char| c.is_ascii_punctuation()))
        .filter(|r| r.ends_with(|c: char| c.is_ascii_punctuation()))
        .and_then(|r| r.get(1..r.len() - 1))
    {
        return words
            .split_whitespace()
            .map(|w| Word::synthetic(w, false))
            .collect();
    }
    if let Some(inner) = raw
        .strip_prefix(['[', '('])
        .and_then(|r| r.strip_suffix([']', ')']))
    {
        let items: Vec<&str> = inner
            .split(',')
            .map(str::trim)
            .filter(|i| !i.is_empty())
            .collect();
        fn literal(i: &str) -> Option<&str> {
            let q = i.chars().next()?;
            (matches!(q, '\'' | '"') && i.len() >= 2 && i.ends_with(q))
                .then(|| &i[1..i.len() - 1])
                .filter(|v| !v.contains(['\\', '$', '{', '@', q]))
        }
        if items.iter().all(|i| literal(i).is_some()) {
            return items
                .iter()
                .filter_map(|i| literal(i))
                .map(|v| Word::synthetic(v, false))
                .collect();
        }
    }
    vec![Word::synthetic(a.raw, true)]
}

/// The module of a `require('m').name` receiver ending before the name at `j`.
fn required_module(toks: &[Spanned<'_>], pair: &[usize], j: usize) -> Option<String> {
    let close = j.checked_sub(2)?;
    if !matches!(toks[j - 1].tok, CTok::Punct(b'.'))
        || !matches!(toks[close].tok, CTok::Punct(b')'))
    {
        return None;
    }
    let open = *pair.get(close).filter(|&&o| o != usize::MAX)?;
    match (
        &toks.get(open.checked_sub(1)?)?.tok,
        &toks.get(open + 1)?.tok,
        open + 2 == close,
    ) {
        (
            CTok::Ident(f),
            CTok::Str {
                value,
                dynamic: false,
            },
            true,
        ) if imports_by_name(f) => Some(value.trim_start_matches("node:").to_string()),
        _ => None,
    }
}

/// Calls that return the module named by their one argument: `require('fs')`, `import('fs')`,
/// Python's `__import__('os')` and `importlib.import_module('os')`.
fn imports_by_name(name: &str) -> bool {
    matches!(
        name,
        "require"
            | "import"
            | "__import__"
            | "builtins.__import__"
            | "importlib.import_module"
            | "import_module"
    )
}

/// `fs/promises.rm`, `fs.promises.rm`, `node:fs.rm` → `fs.rm`: the rows of [`CALLS`] name
/// Node's file API once.
fn node_fs(name: &str) -> String {
    let n = name.trim_start_matches("node:");
    for prefix in [
        "fs/promises.",
        "fs.promises.",
        "fsPromises.",
        "node:fs/promises.",
        "fs-extra.",
        "fs-extra/esm.",
        "graceful-fs.",
        "original-fs.",
    ] {
        if let Some(rest) = n.strip_prefix(prefix) {
            return format!("fs.{rest}");
        }
    }
    n.to_string()
}

/// Whether an argument is a number literal (`0755`, `0o644`, `1_000`), not a path.
fn is_number(raw: &str) -> bool {
    let raw = raw.trim();
    raw.starts_with(|c: char| c.is_ascii_digit())
        && raw.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// An `fopen`-style mode string (Python, Ruby, PHP, C): `r`, `rb`, `w+`, `a`, `x`, `c+`, ….
fn is_open_mode(m: &str) -> bool {
    !m.is_empty() && m.chars().all(|c| "rwxabtUce+".contains(c))
}

fn is_write_mode(m: &str) -> bool {
    is_open_mode(m) && m.contains(['w', 'a', 'x', 'c', '+'])
}

/// `open(…)`: Perl forms when the first argument is a handle, else `open(path, mode)`.
fn open_call(
    e: &mut Eval,
    pos: &[&CArg<'_>],
    file_kw: Option<&CArg<'_>>,
    mode_kw: Option<&CArg<'_>>,
    via: &str,
) {
    let Some(first) = pos.first().copied().or(file_kw) else {
        return;
    };
    let second = pos.get(1).copied().or(mode_kw);
    // Ruby's `open("|cmd")` runs cmd.
    if let Some(cmd) = first.lit().and_then(|f| f.strip_prefix('|')) {
        return e.run_text(cmd);
    }
    if first.string.is_none() {
        // Perl 3-arg: open(FH, '>', $path).
        if let (Some(mode), Some(path)) = (second.and_then(CArg::lit), pos.get(2)) {
            let m = mode.split(':').next().unwrap_or_default().trim();
            // `open(FH, "-|", "cmd", @args)` / `"|-"`: a command line, or an argv (list form).
            if matches!(m, "-|" | "|-") {
                return match &pos[2..] {
                    [one] => match one.lit() {
                        Some(cmd) => e.run_text(cmd),
                        None => e.unknown(
                            format!("<{}>", one.raw),
                            format!("{via}: a piped open of a command built at run time"),
                        ),
                    },
                    list => e.run_text(&argv_text(list.iter().map(|a| a.lit().map(str::to_owned)))),
                };
            }
            if matches!(m, "<" | ">" | ">>" | "+<" | "+>" | "+>>") {
                return if m.contains('>') || m.starts_with('+') {
                    e.write(&path.word(), via)
                } else {
                    e.read(&path.word())
                };
            }
        }
        // Perl 2-arg: open(FH, ">path").
        if let Some((spec, dynamic)) = second
            .and_then(|a| a.string.as_ref())
            .filter(|(s, _)| !is_open_mode(s))
        {
            let t = spec.trim();
            let word = |rest: &str| Word::synthetic(rest.trim(), *dynamic);
            if let Some(rest) = ["+>>", ">>", "+<", "+>", ">"]
                .iter()
                .find_map(|m| t.strip_prefix(m))
            {
                e.write(&word(rest), via);
            } else if let Some(cmd) = t.strip_prefix('|').or_else(|| t.strip_suffix('|')) {
                // `open(FH, "|cmd")`, `open(FH, "cmd|")`: a command line.
                let cmd = cmd.trim();
                if cmd == "-" {
                    // `open(FH, "|-")`: a fork of this script, no command.
                } else if *dynamic {
                    e.unknown(
                        format!("<{spec}>"),
                        format!("{via}: a piped open of a command built at run time"),
                    );
                } else {
                    e.run_text(cmd);
                }
            } else {
                e.read(&word(t.trim_start_matches('<')));
            }
            return;
        }
    }
    // A mode in a variable may write.
    let writes = second.is_some_and(|m| m.lit().is_none_or(is_write_mode));
    if writes {
        e.write(&first.word(), via)
    } else {
        e.read(&first.word())
    }
}

/// The literal path of a `Path('p').method(…)` receiver; `None` for any other receiver.
fn path_receiver(
    toks: &[Spanned<'_>],
    pair: &[usize],
    j: usize,
    name: &str,
    code: &str,
) -> Option<String> {
    if name.contains(['.', ':']) || j < 2 || !matches!(toks[j - 2].tok, CTok::Punct(b')')) {
        return None;
    }
    let open = pair[j - 2];
    let callee = match toks.get(open.checked_sub(1)?)?.tok {
        CTok::Ident(c) => c.rsplit('.').next().unwrap_or(c),
        _ => return None,
    };
    if !matches!(callee, "Path" | "PurePath" | "PosixPath") {
        return None;
    }
    let (args, _) = paren_args(toks, pair, open, code);
    args.first().and_then(CArg::lit).map(str::to_string)
}

/// The literal path of a Ruby `Pathname.new('f')` / `Pathname('f')` receiver of the method at
/// `j`.
fn pathname_receiver(toks: &[Spanned<'_>], pair: &[usize], j: usize, code: &str) -> Option<String> {
    if j < 2 || !matches!(toks[j - 2].tok, CTok::Punct(b')')) {
        return None;
    }
    let open = pair[j - 2];
    if !matches!(
        toks.get(open.checked_sub(1)?)?.tok,
        CTok::Ident("Pathname" | "Pathname.new")
    ) {
        return None;
    }
    let (args, _) = paren_args(toks, pair, open, code);
    args.first().and_then(CArg::lit).map(str::to_string)
}

/// awk output redirection in a program: `print … > "file"` / `>> "file"`.
pub(super) fn scan_awk(e: &mut Eval, program: &str) {
    let toks = code_tokens(program);
    let mut in_print = false;
    // `print ($1 > 3)`: inside parentheses `>` compares.
    let mut parens = 0usize;
    let mut k = 0;
    // A command string awk runs (`system("…")`, `print | "…"`, `"…" | getline`): analysed as a
    // command line when literal, a run-time unknown otherwise.
    let run = |e: &mut Eval, t: Option<&Spanned>, via: &str| match t.map(|t| &t.tok) {
        Some(CTok::Str {
            value,
            dynamic: false,
        }) => e.run_text(value),
        _ => e.unknown(program.chars().take(200).collect::<String>(), via),
    };
    while let Some(t) = toks.get(k) {
        match t.tok {
            CTok::Ident("print" | "printf") => in_print = true,
            CTok::Punct(b';' | b'{' | b'}' | b'\n') => {
                in_print = false;
                parens = 0;
            }
            CTok::Punct(b'(') => parens += 1,
            CTok::Punct(b')') => parens = parens.saturating_sub(1),
            CTok::Ident("system")
                if matches!(toks.get(k + 1).map(|t| &t.tok), Some(CTok::Punct(b'('))) =>
            {
                // `system("cp a " $0)`: a string joined with more at run time.
                let whole = matches!(toks.get(k + 3).map(|t| &t.tok), Some(CTok::Punct(b')')));
                run(e, toks.get(k + 2).filter(|_| whole), "awk system()");
            }
            CTok::Punct(b'|') => {
                if in_print {
                    let whole = matches!(
                        toks.get(k + 2).map(|t| &t.tok),
                        None | Some(CTok::Punct(b';' | b'}' | b'\n' | b')'))
                    );
                    run(e, toks.get(k + 1).filter(|_| whole), "awk print | command");
                } else if matches!(
                    toks.get(k + 1).map(|t| &t.tok),
                    Some(CTok::Ident("getline"))
                ) {
                    run(
                        e,
                        k.checked_sub(1).and_then(|p| toks.get(p)),
                        "awk command | getline",
                    );
                }
            }
            CTok::Punct(b'>') if in_print && parens == 0 => {
                let append = matches!(toks.get(k + 1).map(|t| &t.tok), Some(CTok::Punct(b'>')));
                let from = k + 1 + usize::from(append);
                let end = toks[from.min(toks.len())..]
                    .iter()
                    .position(|t| matches!(t.tok, CTok::Punct(b';' | b'}' | b'\n')))
                    .map_or(toks.len(), |p| from + p);
                let via = if append {
                    "awk print >>"
                } else {
                    "awk print >"
                };
                match toks.get(from..end).unwrap_or_default() {
                    [] => {}
                    [
                        Spanned {
                            tok:
                                CTok::Str {
                                    value,
                                    dynamic: false,
                                },
                            ..
                        },
                    ] => e.write(&Word::synthetic(value, false), via),
                    [a, .., b] | [a @ b] => e.write(
                        &Word::synthetic(program.get(a.start..b.end).unwrap_or_default(), true),
                        via,
                    ),
                }
                in_print = false;
                k = end;
                continue;
            }
            _ => {}
        }
        k += 1;
    }
}

/// The files Perl or Ruby code puts into `@ARGV`/`ARGV` (`@ARGV = ("a", "b")`, `@ARGV = qw(a b)`,
/// `push @ARGV, "a"`, `$ARGV[0] = "a"`, `ARGV.replace(["a"])`, `ARGV << "a"`): literal words, or
/// one run-time word for a list the analysis cannot read. An in-place edit (`$^I`, `-i`) writes
/// them.
pub(super) fn argv_files(code: &str) -> Vec<Word> {
    let toks = code_tokens(code);
    let punct =
        |k: usize, c: u8| matches!(toks.get(k).map(|t| &t.tok), Some(CTok::Punct(p)) if *p == c);
    let is_argv = |n: &str| matches!(n, "@ARGV" | "@::ARGV" | "ARGV");
    let mut out = Vec::new();
    for j in 0..toks.len() {
        let CTok::Ident(name) = toks[j].tok else {
            continue;
        };
        // Where the list put into ARGV starts.
        let from =
            if is_argv(name) && punct(j + 1, b'=') && !punct(j + 2, b'=') && !punct(j + 2, b'~') {
                j + 2
            } else if is_argv(name) && punct(j + 1, b'<') && punct(j + 2, b'<') {
                j + 3
            } else if matches!(name, "$ARGV" | "ARGV") && punct(j + 1, b'[') {
                match (j + 2..toks.len()).find(|&k| punct(k, b']')) {
                    Some(k) if punct(k + 1, b'=') && !punct(k + 2, b'=') => k + 2,
                    _ => continue,
                }
            } else if matches!(name, "push" | "unshift") {
                let k = j + 1 + usize::from(punct(j + 1, b'('));
                match toks.get(k).map(|t| &t.tok) {
                    Some(CTok::Ident(n)) if is_argv(n) && punct(k + 1, b',') => k + 2,
                    _ => continue,
                }
            } else if matches!(
                name,
                "ARGV.replace" | "ARGV.push" | "ARGV.unshift" | "ARGV.concat"
            ) {
                j + 1
            } else {
                continue;
            };
        let mut depth = 0usize;
        let mut k = from;
        while let Some(t) = toks.get(k) {
            match &t.tok {
                CTok::Punct(b'(' | b'[' | b'{') => depth += 1,
                CTok::Punct(b')' | b']' | b'}') if depth == 0 => break,
                CTok::Punct(b')' | b']' | b'}') => depth -= 1,
                CTok::Punct(b';' | b'\n') if depth == 0 => break,
                CTok::Punct(b',') => {}
                CTok::Str { value, dynamic } => out.push(Word::synthetic(value, *dynamic)),
                CTok::Ident("qw") => {
                    // `qw(a b)`: the words up to the closing delimiter.
                    let rest = code.get(t.end..).unwrap_or_default().trim_start();
                    let Some(open) = rest.chars().next() else {
                        break;
                    };
                    let close = match open {
                        '(' => ')',
                        '[' => ']',
                        '{' => '}',
                        '<' => '>',
                        c => c,
                    };
                    let body = &rest[open.len_utf8()..];
                    let Some(len) = body.find(close) else { break };
                    out.extend(
                        body[..len]
                            .split_whitespace()
                            .map(|w| Word::synthetic(w, false)),
                    );
                    let end = code.len() - body.len() + len + close.len_utf8();
                    while toks.get(k + 1).is_some_and(|t| t.start < end) {
                        k += 1;
                    }
                }
                _ => {
                    let end = toks
                        .iter()
                        .skip(k)
                        .take_while(|t| !matches!(t.tok, CTok::Punct(b';' | b'\n')))
                        .last()
                        .map_or(t.end, |t| t.end);
                    out.push(Word::synthetic(
                        code.get(t.start..end).unwrap_or_default(),
                        true,
                    ));
                    break;
                }
            }
            k += 1;
        }
    }
    out
}
