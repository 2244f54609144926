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
use crate::opts::{Options, Short, parse_opts, selects};

/// What an option's value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Value {
    /// The option takes no value.
    Flag,
    /// A value that names no file (a count, a format, a code page).
    Plain,
    /// A file the program writes, reported with this `via`.
    Output(Via),
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
}

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

impl Options for Program {
    fn short(&self, ch: char) -> Short {
        let takes = self.opts.iter().any(|o| {
            o.value != Value::Flag
                && o.names.iter().any(|n| {
                    let mut c = n.chars();
                    c.next() == Some('-') && c.next() == Some(ch) && c.next().is_none()
                })
        });
        if takes { Short::Value } else { Short::Flag }
    }

    fn long_takes_value(&self, name: &str) -> bool {
        self.opts.iter().any(|o| {
            o.value != Value::Flag
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

/// The programs described as data. Each entry replaced a rule written as code and decides as it
/// did (the lists in `cases/` and the unit tests hold the decisions).
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
];

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
        let Some(value) = value else { continue };
        for o in p.opts {
            if !o.names.iter().any(|n| selects(flag, n)) {
                continue;
            }
            match o.value {
                Value::Output(v) => e.write(value, &via(v)),
                Value::Flag | Value::Plain => {}
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
                        .any(|(names, _)| crate::opts::listed(names, n)),
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
