//! The program registry: programs described as data, read by the one option parser
//! ([`parse_opts`]).
//!
//! A [`Program`] names a program (and its aliases), its options — each with whether it takes a
//! value and what the value is ([`Value`]: a file it writes or reads, a directory it writes
//! under, or something else) — and what its operands are ([`Operands`]). [`apply`] parses a
//! call with the program's options (`-oF`, `-o F`, `--output F`, `--output=F`, an unambiguous
//! prefix `--out F`, `--`, clustered short options `-so F`) and reports its writes and reads.
//! [`lookup`] is the one place a program is found: the evaluator asks it before the rules
//! written as code (`rules.rs`'s `RULES`), which keep what a spec cannot say (subcommands with
//! their own grammar, scripts in operands, interpreters, archives, git; each named and
//! documented there).
//!
//! Adding a program is one entry in [`PROGRAMS`] and one line in `cases/hidden_writes.tsv` or
//! `cases/read_only.tsv` (docs/GATE.md "The lists as data"): for instance
//!
//! ```text
//! Program { names: &["shuf"], opts: &[opt(&["-o", "--output"], OUTPUT), …], operands: Operands::Ignored }
//! deny⇥path:src/m1.py⇥shuf⇥shuf -o src/m1.py src/m0.py     (⇥: a TAB)
//! ```

use crate::eval::{Eval, Inv};
use crate::opts::{Options, Short, listed, parse_opts, selects};

/// What an option's value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Value {
    /// A value that names no file (a count, a format, a code page).
    Plain,
    /// A file the program writes, reported with this `via`.
    Output(Via),
    /// Code the program runs, in a language the gate does not analyse (`lua -e CODE`): given
    /// (with or without a value), the call is a run-time unknown.
    Code,
    /// A flag that makes the program load and run code from files its other options name
    /// (`pygmentize -x -l lexer.py:L`): given, the call is a run-time unknown.
    CodeFlag,
}

/// How a write is named in [`crate::BashWrite::via`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Via {
    /// The program's name as called (`shuf`).
    Program,
    /// This text (`sort -o`).
    Text(&'static str),
    /// The first text when any of these flags is given, else the second (`tee -a` / `tee`).
    IfFlag(&'static [&'static str], &'static str, &'static str),
}

/// One option: its names as written (`-o`, `--output`) and its value.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Opt {
    pub(crate) names: &'static [&'static str],
    pub(crate) value: Value,
}

/// What a program does with its operands (the words that are not options).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operands {
    /// Nothing the gate needs (patterns, text).
    Ignored,
    /// Reads each.
    Read,
    /// Writes each.
    Written(Via),
    /// Reads the first, writes the second (`uniq IN OUT`, `xxd IN OUT`).
    ReadThenWritten(Via),
    /// Writes each, and everything beneath each when any of these flags is given (`rm -r`).
    WrittenTreeIf(&'static [&'static str], Via),
    /// Reads each as a tree (lists or searches it); without operands the working directory.
    ReadTrees,
    /// A command the program runs in a way the gate does not unwrap (another root, namespace or
    /// user, a scheduler, a watcher, the dynamic loader): a run-time unknown, unless the call
    /// runs nothing ([`Inert`]).
    UnseenCommand(Inert),
    /// An interpreter of a language the gate does not analyse: its first operand is a script
    /// file it runs (without one, a script redirected to stdin); code given by a [`Value::Code`]
    /// option or on stdin (a heredoc, a pipe) is a run-time unknown. Called with only these
    /// words (a version or help request) and nothing on stdin, it runs nothing.
    Script(&'static [&'static str]),
}

/// When a call runs nothing (help, version, a listing), judged on its words as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Inert {
    /// Called without arguments.
    pub(crate) bare: bool,
    /// Every argument is a word of one of these lists.
    pub(crate) only: &'static [&'static [&'static str]],
    /// Any argument is one of these words.
    pub(crate) any: &'static [&'static str],
    /// The first argument is one of these words.
    pub(crate) first: &'static [&'static str],
}

impl Inert {
    fn holds(&self, args: &[crate::lex::Word]) -> bool {
        let word = |w: &crate::lex::Word, list: &[&str]| list.contains(&w.value.as_str());
        (self.bare && args.is_empty())
            || self
                .only
                .iter()
                .any(|list| !args.is_empty() && args.iter().all(|w| word(w, list)))
            || args.iter().any(|w| word(w, self.any))
            || args.first().is_some_and(|w| word(w, self.first))
    }
}

/// Help and version requests.
const HELP: &[&str] = &["--version", "-V", "--help", "-h"];

/// The usual [`Inert`]: without arguments, or asking only for help or the version.
pub(crate) const HELP_OR_BARE: Inert = Inert {
    bare: true,
    only: &[HELP],
    any: &[],
    first: &[],
};

/// A program as data.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Program {
    /// Its name and aliases, as looked up (after the evaluator's canonical name).
    pub(crate) names: &'static [&'static str],
    /// Its options that take a value (and the flags a [`Via::IfFlag`] names); any other option
    /// is a flag.
    pub(crate) opts: &'static [Opt],
    pub(crate) operands: Operands,
}

impl Value {
    /// Whether an option of this kind takes a value.
    fn takes_value(self) -> bool {
        self != Value::CodeFlag
    }
}

impl Options for Program {
    fn short(&self, ch: char) -> Short {
        let takes = self.opts.iter().any(|o| {
            o.value.takes_value()
                && o.names.iter().any(|n| {
                    let mut c = n.chars();
                    c.next() == Some('-') && c.next() == Some(ch) && c.next().is_none()
                })
        });
        if takes { Short::Value } else { Short::Flag }
    }

    fn long_takes_value(&self, name: &str) -> bool {
        self.opts.iter().any(|o| {
            o.value.takes_value()
                && o.names
                    .iter()
                    .any(|n| n.starts_with("--") && selects(name, n))
        })
    }

    fn stop(&self) -> bool {
        false
    }
}

const fn opt(names: &'static [&'static str], value: Value) -> Opt {
    Opt { names, value }
}

const PLAIN: Value = Value::Plain;
const OUTPUT: Value = Value::Output(Via::Program);

/// The programs described as data. The entries up to `cat` and from `ls` on replaced rules
/// written as code and decide as they did (`scripts/bash-diff.sh`, 0 differ); `pygmentize` and
/// the gettext tools were added as specs (docs/log/2026-11-28-crates-named.md). The lists in
/// `cases/` and the unit tests hold the decisions.
pub(crate) const PROGRAMS: &[Program] = &[
    // `-o FILE` / `--output FILE` / `--output=FILE` of `shuf`, `iconv`, `pandoc`, `xmllint`.
    // (`shuf -e` is parsed as taking a value, as the rule it replaced did.)
    Program {
        names: &["shuf"],
        opts: &[
            opt(&["-o", "--output"], OUTPUT),
            opt(
                &[
                    "-n",
                    "-e",
                    "-i",
                    "--head-count",
                    "--input-range",
                    "--random-source",
                ],
                PLAIN,
            ),
        ],
        operands: Operands::Ignored,
    },
    Program {
        names: &["iconv"],
        opts: &[
            opt(&["-o", "--output"], OUTPUT),
            opt(&["-f", "-t", "--from-code", "--to-code"], PLAIN),
        ],
        operands: Operands::Ignored,
    },
    Program {
        names: &["pandoc"],
        opts: &[
            opt(&["-o", "--output"], OUTPUT),
            opt(
                &[
                    "-f",
                    "-t",
                    "-r",
                    "-w",
                    "-M",
                    "-V",
                    "-d",
                    "-s",
                    "-L",
                    "--from",
                    "--to",
                    "--read",
                    "--write",
                    "--metadata",
                ],
                PLAIN,
            ),
        ],
        operands: Operands::Ignored,
    },
    Program {
        names: &["xmllint"],
        opts: &[opt(&["-o", "--output"], OUTPUT)],
        operands: Operands::Ignored,
    },
    // `xxd [opts] [IN [OUT]]`.
    Program {
        names: &["xxd"],
        opts: &[opt(
            &[
                "-c",
                "-g",
                "-l",
                "-o",
                "-s",
                "-n",
                "-C",
                "--cols",
                "--groupsize",
                "--len",
                "--seek",
                "--name",
            ],
            PLAIN,
        )],
        operands: Operands::ReadThenWritten(Via::Program),
    },
    // `fallocate [-l LEN] [-o OFF] FILE`: allocates (and creates) the file.
    Program {
        names: &["fallocate"],
        opts: &[opt(&["-l", "-o", "--length", "--offset"], PLAIN)],
        operands: Operands::Written(Via::Program),
    },
    // `uniq [opts] [INPUT [OUTPUT]]`.
    Program {
        names: &["uniq"],
        opts: &[opt(
            &[
                "-f",
                "-s",
                "-w",
                "--skip-fields",
                "--skip-chars",
                "--check-chars",
            ],
            PLAIN,
        )],
        operands: Operands::ReadThenWritten(Via::Text("uniq OUTPUT")),
    },
    // `tee [-a] FILE…`, `sponge FILE`.
    Program {
        names: &["tee"],
        opts: &[],
        operands: Operands::Written(Via::IfFlag(&["-a", "--append"], "tee -a", "tee")),
    },
    Program {
        names: &["sponge"],
        opts: &[],
        operands: Operands::Written(Via::Program),
    },
    // Programs that create, change or remove their operands (`chmod`, whose mode may look like
    // an option, stays a rule).
    Program {
        names: &["rm"],
        opts: &[],
        operands: Operands::WrittenTreeIf(&["-r", "-R", "--recursive"], Via::Program),
    },
    Program {
        names: &["rmdir", "unlink", "mkfifo", "mknod"],
        opts: &[],
        operands: Operands::Written(Via::Program),
    },
    Program {
        names: &["touch"],
        opts: &[opt(&["-d", "-r", "-t", "--date", "--reference"], PLAIN)],
        operands: Operands::Written(Via::Program),
    },
    Program {
        names: &["mkdir"],
        opts: &[opt(&["-m", "--mode", "--context"], PLAIN)],
        operands: Operands::Written(Via::Program),
    },
    Program {
        names: &["truncate"],
        opts: &[opt(&["-s", "-r", "--size", "--reference"], PLAIN)],
        operands: Operands::Written(Via::Program),
    },
    Program {
        names: &["shred"],
        opts: &[opt(&["-n", "-s", "--iterations", "--size"], PLAIN)],
        operands: Operands::Written(Via::Program),
    },
    // Readers: their operands are read (best effort, for the explored files); `sort -o` writes.
    Program {
        names: &["head", "tail"],
        opts: &[opt(
            &[
                "-n",
                "-c",
                "--lines",
                "--bytes",
                "--pid",
                "--sleep-interval",
                "--max-unchanged-stats",
            ],
            PLAIN,
        )],
        operands: Operands::Read,
    },
    Program {
        names: &["bat"],
        opts: &[opt(
            &[
                "-l",
                "-L",
                "-H",
                "-m",
                "-r",
                "--language",
                "--line-range",
                "--highlight-line",
                "--style",
                "--theme",
                "--map-syntax",
                "--file-name",
                "--tabs",
                "--wrap",
                "--terminal-width",
                "--pager",
            ],
            PLAIN,
        )],
        operands: Operands::Read,
    },
    Program {
        names: &["sort"],
        opts: &[
            opt(&["-o", "--output"], Value::Output(Via::Text("sort -o"))),
            opt(
                &[
                    "-k",
                    "-t",
                    "-S",
                    "-T",
                    "--key",
                    "--field-separator",
                    "--buffer-size",
                    "--temporary-directory",
                    "--parallel",
                    "--batch-size",
                    "--compress-program",
                ],
                PLAIN,
            ),
        ],
        operands: Operands::Read,
    },
    Program {
        names: &["cut"],
        opts: &[opt(
            &[
                "-b",
                "-c",
                "-d",
                "-f",
                "--bytes",
                "--characters",
                "--delimiter",
                "--fields",
                "--output-delimiter",
            ],
            PLAIN,
        )],
        operands: Operands::Read,
    },
    Program {
        names: &["nl"],
        opts: &[opt(
            &["-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s", "-v", "-w"],
            PLAIN,
        )],
        operands: Operands::Read,
    },
    Program {
        names: &["less"],
        opts: &[opt(
            &[
                "-b", "-h", "-j", "-k", "-o", "-p", "-P", "-t", "-T", "-x", "-y", "-z",
            ],
            PLAIN,
        )],
        operands: Operands::Read,
    },
    Program {
        names: &["file"],
        opts: &[opt(&["-e", "-m", "-f", "-F", "-P"], PLAIN)],
        operands: Operands::Read,
    },
    Program {
        names: &["stat"],
        opts: &[opt(&["-c", "--format", "--printf"], PLAIN)],
        operands: Operands::Read,
    },
    Program {
        names: &["diff"],
        opts: &[opt(
            &[
                "-C",
                "-U",
                "-x",
                "-X",
                "-I",
                "-L",
                "-F",
                "-S",
                "-W",
                "--unified",
                "--context",
                "--exclude",
                "--exclude-from",
                "--ignore-matching-lines",
                "--label",
                "--starting-file",
                "--width",
                "--to-file",
                "--from-file",
                "--tabsize",
            ],
            PLAIN,
        )],
        operands: Operands::Read,
    },
    Program {
        names: &[
            "cat",
            "more",
            "wc",
            "tac",
            "strings",
            "md5sum",
            "sha1sum",
            "sha256sum",
            "cmp",
        ],
        opts: &[],
        operands: Operands::Read,
    },
    // `pygmentize [-l LEXER] [-f FORMATTER] [-o OUTFILE] [FILE]`: highlights FILE, writes -o;
    // with `-x` it loads a lexer or formatter from a Python file named by `-l`/`-f`.
    Program {
        names: &["pygmentize"],
        opts: &[
            opt(&["-o"], OUTPUT),
            opt(&["-l", "-f", "-O", "-P", "-F", "-S", "-a"], PLAIN),
            opt(&["-x"], Value::CodeFlag),
        ],
        operands: Operands::Read,
    },
    // GNU gettext's catalogue tools: `-o FILE`/`--output-file=FILE` is written, the catalogues
    // read. (`msgmerge -U` rewrites its operand, `msgfilter`/`msgexec` run a command: not these.)
    Program {
        names: &[
            "msgcat",
            "msguniq",
            "msgattrib",
            "msgconv",
            "msgcomm",
            "msgen",
            "msginit",
            "msggrep",
        ],
        opts: &[
            opt(&["-o", "--output-file"], OUTPUT),
            opt(
                &[
                    "-D",
                    "--directory",
                    "-f",
                    "--files-from",
                    "--file",
                    "-t",
                    "--to-code",
                    "-w",
                    "--width",
                    "--style",
                    "-i",
                    "--input",
                    "-l",
                    "--locale",
                    "-e",
                    "--regexp",
                    "-N",
                    "--location",
                    "-M",
                    "--domain",
                    "--more-than",
                    "--less-than",
                    "--only-file",
                    "--ignore-file",
                ],
                PLAIN,
            ),
        ],
        operands: Operands::Read,
    },
    // Listers: their operands (or the working directory) are read as trees; `tree -o` writes.
    Program {
        names: &["ls"],
        opts: &[opt(
            &[
                "-I",
                "-T",
                "-w",
                "--ignore",
                "--hide",
                "--format",
                "--sort",
                "--time-style",
                "--width",
                "--tabsize",
                "--block-size",
                "--time",
            ],
            PLAIN,
        )],
        operands: Operands::ReadTrees,
    },
    Program {
        names: &["tree"],
        opts: &[
            opt(&["-o"], Value::Output(Via::Text("tree -o"))),
            opt(
                &[
                    "-L",
                    "-I",
                    "-P",
                    "--ignore",
                    "--hide",
                    "--format",
                    "--sort",
                    "--time-style",
                    "--width",
                    "--tabsize",
                    "--block-size",
                    "--time",
                ],
                PLAIN,
            ),
        ],
        operands: Operands::ReadTrees,
    },
    // Programs that run a command the gate does not unwrap.
    Program {
        names: &[
            "chroot",
            "nsenter",
            "runuser",
            "parallel",
            "systemd-run",
            "emacs",
            "emacsclient",
            "sftp",
            "flatpak-spawn",
            "hyperfine",
            "entr",
            "nodemon",
            "watchexec",
            "concurrently",
            "start-stop-daemon",
            "daemonize",
            "papermill",
            "tcc",
            "ld.so",
            "ld-linux.so.2",
            "ld-linux-x86-64.so.2",
            "ld-linux-aarch64.so.1",
            "proot",
            "bwrap",
            "bubblewrap",
            "dtach",
            "abduco",
            "caffeinate",
            "retry",
            "chpst",
            "numactl",
            "cgexec",
            "tsp",
            "nq",
            "pueue",
            "start-server-and-test",
            "server-test",
            "distrobox-enter",
            "distrobox",
            "toolbox",
            "mpirun",
            "mpiexec",
            "srun",
        ],
        opts: &[],
        operands: Operands::UnseenCommand(HELP_OR_BARE),
    },
    // Interpreters of languages the gate does not analyse: a script file is checked like `bash
    // FILE`, inline code and code on stdin are run-time unknowns. (`kotlin -version`: read as
    // short options `-version` would hold `-e`, hence the version words.)
    Program {
        names: &[
            "tclsh",
            "wish",
            "expect",
            "lua",
            "luajit",
            "Rscript",
            "R",
            "julia",
            "osascript",
            "guile",
            "racket",
            "irb",
            "jshell",
            "groovy",
            "groovysh",
            "octave",
            "scala",
            "kotlin",
            "ghci",
            "runghc",
            "runhaskell",
            "iex",
            "elixir",
            "erl",
            "escript",
            "ocaml",
            "raku",
            "perl6",
            "clojure",
            "clj",
            "swift",
            "rust-script",
            "kotlinc",
            "dotnet-script",
        ],
        opts: &[
            opt(&["-e", "-c", "--eval", "--command"], Value::Code),
            opt(&["-f", "--file"], PLAIN),
        ],
        operands: Operands::Script(&["-version", "--version", "-v", "-V", "-help", "--help", "-h"]),
    },
    // `at -l` lists the queue; `batch` and `crontab` read their commands from stdin when bare.
    Program {
        names: &["at"],
        opts: &[],
        operands: Operands::UnseenCommand(Inert {
            any: &["-l"],
            ..HELP_OR_BARE
        }),
    },
    Program {
        names: &["batch"],
        opts: &[],
        operands: Operands::UnseenCommand(Inert {
            bare: false,
            ..HELP_OR_BARE
        }),
    },
    Program {
        names: &["crontab"],
        opts: &[],
        operands: Operands::UnseenCommand(Inert {
            bare: false,
            only: &[HELP, &["-l", "-u", "root"]],
            ..HELP_OR_BARE
        }),
    },
    Program {
        names: &["perf"],
        opts: &[],
        operands: Operands::UnseenCommand(Inert {
            first: &["list", "--version", "--help"],
            ..HELP_OR_BARE
        }),
    },
];

/// A program that runs the command in its operands (`sudo CMD`, `timeout 5 CMD`, `env X=1 CMD`):
/// the evaluator unwraps it before the lookup and analyses the command. Lists are
/// space-separated words.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Runner {
    /// Its names.
    pub(crate) names: &'static str,
    /// Its short options that take a value (`sudo -u USER`), as letters.
    pub(crate) short_values: &'static str,
    /// Its long options that take a value.
    pub(crate) long_values: &'static str,
    /// How many operands come before the command (`timeout DURATION CMD`: 1).
    pub(crate) operands_before: usize,
    /// Options with which it runs no command (`command -v`, `sudo -l`).
    pub(crate) runs_nothing_with: &'static str,
}

/// The programs that run the command in their operands. A few have more (read in the evaluator
/// by name): the output file of `time -o`/`strace -o`, `env -S`'s split string, `unshare --root`,
/// settings before the command (`env`, `sudo`, `cross-env`), the packages of `npx`.
pub(crate) const RUNNERS: &[Runner] = &[
    Runner {
        names: "sudo",
        short_values: "CDghpRrtTUu",
        long_values: "--user --group --chdir --prompt",
        operands_before: 0,
        runs_nothing_with: "-l -v -k -K -e",
    },
    Runner {
        names: "doas",
        short_values: "uC",
        long_values: "",
        operands_before: 0,
        runs_nothing_with: "",
    },
    Runner {
        names: "env",
        short_values: "uCS",
        long_values: "--unset --chdir --split-string",
        operands_before: 0,
        runs_nothing_with: "",
    },
    Runner {
        names: "nice",
        short_values: "n",
        long_values: "--adjustment",
        operands_before: 0,
        runs_nothing_with: "",
    },
    Runner {
        names: "ionice",
        short_values: "cnp",
        long_values: "--class --classdata",
        operands_before: 0,
        runs_nothing_with: "",
    },
    Runner {
        names: "time",
        short_values: "fo",
        long_values: "--format --output",
        operands_before: 0,
        runs_nothing_with: "",
    },
    Runner {
        names: "command",
        short_values: "",
        long_values: "",
        operands_before: 0,
        runs_nothing_with: "-v -V",
    },
    Runner {
        names: "builtin nohup chronic unbuffer busybox setsid fakeroot catchsegv firejail coproc",
        short_values: "",
        long_values: "",
        operands_before: 0,
        runs_nothing_with: "",
    },
    Runner {
        names: "taskset",
        short_values: "",
        long_values: "",
        operands_before: 1,
        runs_nothing_with: "",
    },
    Runner {
        names: "prlimit numactl valgrind setpriv",
        short_values: "",
        long_values: "--reuid --regid --groups --inh-caps --ambient-caps --bounding-set --securebits",
        operands_before: 0,
        runs_nothing_with: "",
    },
    Runner {
        names: "unshare",
        short_values: "wRSG",
        long_values: "--propagation --setgroups --map-user --map-group --wd --root --kill-child",
        operands_before: 0,
        runs_nothing_with: "",
    },
    // `chrt [opts] PRIORITY CMD`, `setarch ARCH CMD` (`chrt -p PID` runs nothing).
    Runner {
        names: "chrt",
        short_values: "",
        long_values: "",
        operands_before: 1,
        runs_nothing_with: "-p --pid -m --max",
    },
    Runner {
        names: "setarch",
        short_values: "",
        long_values: "",
        operands_before: 1,
        runs_nothing_with: "--list",
    },
    // `strace -o FILE CMD` (the `-o` file is written, see `invoke`).
    Runner {
        names: "strace ltrace",
        short_values: "abeEIoOpPsSuUX",
        long_values: "--output --expr --trace --signal --status --user --env --attach --string-limit",
        operands_before: 0,
        runs_nothing_with: "-p --attach -c",
    },
    Runner {
        names: "exec",
        short_values: "a",
        long_values: "",
        operands_before: 0,
        runs_nothing_with: "",
    },
    Runner {
        names: "dbus-run-session toybox shx",
        short_values: "",
        long_values: "",
        operands_before: 0,
        runs_nothing_with: "--version --help",
    },
    Runner {
        names: "xvfb-run",
        short_values: "nsfep",
        long_values: "--server-num --server-args --auth-file --error-file --xauth-protocol",
        operands_before: 0,
        runs_nothing_with: "--help",
    },
    Runner {
        names: "faketime",
        short_values: "p",
        long_values: "",
        operands_before: 1,
        runs_nothing_with: "--help --version",
    },
    Runner {
        names: "cpulimit",
        short_values: "lpeP",
        long_values: "--limit --pid --exe --path",
        operands_before: 0,
        runs_nothing_with: "-p --pid -e --exe -P --path",
    },
    Runner {
        names: "timeout",
        short_values: "sk",
        long_values: "--signal --kill-after",
        operands_before: 1,
        runs_nothing_with: "",
    },
    // Coverage runners, environment loaders and init shims that run the command after their
    // options (`c8 npm test`, `cross-env X=1 CMD`, `dotenv -- CMD`, `tini -- CMD`).
    Runner {
        names: "c8 nyc",
        short_values: "roxnetiw",
        long_values: "--reporter --reports-dir --report-dir --temp-dir --include --exclude --extension --src \
         --require --cwd --nycrc-path --config --lines --branches --functions --statements",
        operands_before: 0,
        runs_nothing_with: "--version --help -h",
    },
    Runner {
        names: "cross-env cross-env-shell",
        short_values: "",
        long_values: "",
        operands_before: 0,
        runs_nothing_with: "",
    },
    Runner {
        names: "dotenv",
        short_values: "ecv",
        long_values: "",
        operands_before: 0,
        runs_nothing_with: "--help",
    },
    Runner {
        names: "env-cmd",
        short_values: "fer",
        long_values: "--file --environments",
        operands_before: 0,
        runs_nothing_with: "--help",
    },
    Runner {
        names: "rlwrap eatmydata torsocks proxychains proxychains4 tini dumb-init",
        short_values: "",
        long_values: "",
        operands_before: 0,
        runs_nothing_with: "--version --help",
    },
    Runner {
        names: "su-exec gosu s6-setuidgid",
        short_values: "",
        long_values: "",
        operands_before: 1,
        runs_nothing_with: "",
    },
    Runner {
        names: "stdbuf",
        short_values: "ioe",
        long_values: "--input --output --error",
        operands_before: 0,
        runs_nothing_with: "",
    },
    Runner {
        names: "npx bunx pnpx",
        short_values: "p",
        long_values: "--package --node-options",
        operands_before: 0,
        runs_nothing_with: "-v --version",
    },
    // `uvx TOOL`: `uv tool run TOOL`.
    Runner {
        names: "uvx",
        short_values: "p",
        long_values: "--from --with --with-editable --with-requirements --python --index --index-url \
         --extra-index-url --cache-dir",
        operands_before: 0,
        runs_nothing_with: "--version --help",
    },
];

/// A package or environment manager whose subcommand runs the command after it (`uv run CMD`,
/// `bundle exec CMD`, `npm exec -- CMD`), unwrapped like a [`Runner`]. Any other option word
/// before the command is taken as a flag.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Launcher {
    /// Its names.
    pub(crate) names: &'static str,
    /// The subcommands that run a command.
    pub(crate) subcommands: &'static str,
    /// The options before the command that take a value.
    pub(crate) value_options: &'static str,
}

/// The launchers (their project files and directories are read where they are named:
/// `Eval::launcher_options`).
pub(crate) const LAUNCHERS: &[Launcher] = &[
    Launcher {
        names: "uv",
        subcommands: "run tool",
        value_options: "--with --with-editable --with-requirements --python -p --package --extra --group \
         --only-group --env-file --directory --project --index --index-url --extra-index-url \
         --default-index --from --cache-dir --config-file",
    },
    Launcher {
        names: "poetry pipenv pdm hatch rye",
        subcommands: "run",
        value_options: "--directory -C --project -P -e --env",
    },
    Launcher {
        names: "bundle",
        subcommands: "exec",
        value_options: "--gemfile",
    },
    Launcher {
        names: "composer",
        subcommands: "exec",
        value_options: "-d --working-dir",
    },
    Launcher {
        names: "pnpm",
        subcommands: "exec dlx",
        value_options: "-C --dir --filter -F --package --workspace-root -w",
    },
    Launcher {
        names: "yarn",
        subcommands: "exec dlx",
        value_options: "-p --package",
    },
    Launcher {
        names: "npm",
        subcommands: "exec x",
        value_options: "-p --package -w --workspace --prefix --node-options",
    },
    Launcher {
        names: "conda mamba micromamba",
        subcommands: "run",
        value_options: "-n --name -p --prefix --cwd",
    },
    Launcher {
        names: "mise rtx",
        subcommands: "exec x",
        value_options: "-C --cd -E --env -j --jobs",
    },
    Launcher {
        names: "pixi",
        subcommands: "run exec",
        value_options: "-e --environment --manifest-path",
    },
    Launcher {
        names: "pipx",
        subcommands: "run",
        value_options: "--spec --python --index-url --pip-args",
    },
    Launcher {
        names: "bun",
        subcommands: "x",
        value_options: "-p --package",
    },
    // Version managers' shims and environment tools.
    Launcher {
        names: "pyenv rbenv nodenv goenv plenv jenv asdf",
        subcommands: "exec",
        value_options: "",
    },
    Launcher {
        names: "volta",
        subcommands: "run",
        value_options: "--node --npm --yarn --pnpm --bundled-npm",
    },
    Launcher {
        names: "fnm",
        subcommands: "exec",
        value_options: "--using",
    },
    Launcher {
        names: "devbox",
        subcommands: "run",
        value_options: "-c --config -e --env --env-file",
    },
];

/// The runner registered under `name`.
pub(crate) fn runner(name: &str) -> Option<&'static Runner> {
    RUNNERS.iter().find(|r| listed(r.names, name))
}

/// The launcher registered under `name`.
pub(crate) fn launcher(name: &str) -> Option<&'static Launcher> {
    LAUNCHERS.iter().find(|l| listed(l.names, name))
}

/// A call of a program that runs a command the gate does not unwrap
/// ([`Operands::UnseenCommand`]): a run-time unknown unless `inert` holds. Also `sg` when it is
/// shadow-utils' (`rules/format.rs`), with [`HELP_OR_BARE`].
pub(crate) fn unseen_command(e: &mut Eval, inv: &Inv<'_>, inert: &Inert) {
    if !inert.holds(inv.args) {
        e.unknown(
            format!("<{} …>", inv.name),
            format!("{} runs a command the gate does not unwrap", inv.name),
        );
    }
}

/// The program registered under `name`.
pub(crate) fn lookup(name: &str) -> Option<&'static Program> {
    PROGRAMS.iter().find(|p| p.names.contains(&name))
}

/// Reports what call `inv` of program `p` writes and reads.
pub(crate) fn apply(e: &mut Eval, p: &Program, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, p);
    let via = |v: Via| -> String {
        match v {
            Via::Program => inv.name.to_string(),
            Via::Text(t) => t.to_string(),
            Via::IfFlag(flags, yes, no) => if a.has(flags) { yes } else { no }.to_string(),
        }
    };
    for (flag, value) in &a.flags {
        let runs_code = p
            .opts
            .iter()
            .any(|o| o.value == Value::CodeFlag && o.names.iter().any(|n| selects(flag, n)));
        if runs_code {
            e.unknown(
                inv.name,
                format!("{} {flag} runs code from a file", inv.name),
            );
        }
        let Some(value) = value else { continue };
        for o in p.opts {
            if !o.names.iter().any(|n| selects(flag, n)) {
                continue;
            }
            match o.value {
                Value::Output(v) => e.write(value, &via(v)),
                Value::Plain | Value::Code | Value::CodeFlag => {}
            }
        }
    }
    match p.operands {
        Operands::Ignored => {}
        Operands::Read => a.operands.iter().for_each(|w| e.read(w)),
        Operands::Written(v) => {
            let via = via(v);
            a.operands.iter().for_each(|w| e.write(w, &via));
        }
        Operands::WrittenTreeIf(flags, v) => {
            let (tree, via) = (a.has(flags), via(v));
            a.operands.iter().for_each(|w| e.emit(w, tree, &via));
        }
        Operands::ReadTrees => {
            if a.operands.is_empty() {
                e.read_as(&crate::lex::Word::synthetic(".", false), true);
            }
            a.operands.iter().for_each(|w| e.read_as(w, true));
        }
        Operands::UnseenCommand(inert) => unseen_command(e, inv, &inert),
        Operands::Script(asks) => {
            let only_asks =
                !inv.args.is_empty() && inv.args.iter().all(|w| asks.contains(&w.value.as_str()));
            if only_asks && inv.stdin.is_none() && !e.piped {
                return;
            }
            let code = p
                .opts
                .iter()
                .any(|o| o.value == Value::Code && a.has(o.names));
            if code || inv.stdin.is_some() || e.piped {
                return e.unknown(
                    inv.name,
                    format!("{} code (a language the gate does not analyse)", inv.name),
                );
            }
            match a.operands.first() {
                Some(f) => e.script(f, &format!("{} runs a script file", inv.name)),
                None => {
                    if let Some(file) = e.stdin_file.clone() {
                        e.script(&file, &format!("{} runs a script on stdin", inv.name));
                    }
                }
            }
        }
        Operands::ReadThenWritten(v) => {
            if let Some(input) = a.operands.first() {
                e.read(input);
            }
            if let Some(output) = a.operands.get(1) {
                e.write(output, &via(v));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_registered_once_and_not_also_a_coded_rule() {
        let mut seen = std::collections::HashSet::new();
        for p in PROGRAMS {
            for n in p.names {
                assert!(seen.insert(*n), "{n} registered twice");
                assert!(
                    !crate::rules::RULES
                        .iter()
                        .any(|r| crate::opts::listed(r.names, n)),
                    "{n} is both a spec and a coded rule"
                );
            }
        }
    }

    #[test]
    fn one_parser_reads_every_form_of_an_output_option() {
        for cmd in [
            "shuf -o out in",
            "shuf -oout in",
            "shuf --output out in",
            "shuf --output=out in",
            "shuf --out out in",
            "shuf -n 3 -o out in",
            "shuf -ro out in",
            "shuf in -o out",
        ] {
            let a = crate::analyze(cmd);
            assert_eq!(
                a.writes,
                vec![crate::BashWrite {
                    target: crate::BashTarget::Path("out".into()),
                    via: "shuf".into()
                }],
                "{cmd}"
            );
        }
        // After `--` an operand, not an option; `-n 3` takes its value, so `-o` is no value.
        assert!(crate::analyze("shuf -- -o out").writes.is_empty());
        assert_eq!(crate::analyze("shuf -n -o out").writes, vec![]);
    }
}
