//! GNU-style option parsing for command rules: [`OptSpec`] says which options take values,
//! [`parse_opts`] splits words into flags and operands.

use super::lex::Word;

/// How a command's options take values.
pub(super) struct OptSpec {
    /// Short options with a value, attached (`-ofile`) or in the next word (`-o file`).
    pub(super) val: &'static str,
    /// Short options with an optional value attached only (`-i.bak`): the rest of the cluster.
    pub(super) attached: &'static str,
    /// Short options with optional attached digits only (perl `-l`, `-0`).
    pub(super) digits: &'static str,
    /// Long options (space-separated) whose value is the next word unless given as `--opt=value`.
    pub(super) long_val: &'static str,
    /// Options end at the first operand (prefix commands, interpreters, find).
    pub(super) stop: bool,
}

pub(super) const fn spec(val: &'static str, long_val: &'static str) -> OptSpec {
    OptSpec {
        val,
        attached: "",
        digits: "",
        long_val,
        stop: false,
    }
}

pub(super) const fn stop_spec(val: &'static str, long_val: &'static str) -> OptSpec {
    OptSpec {
        val,
        attached: "",
        digits: "",
        long_val,
        stop: true,
    }
}

#[derive(Debug, Default)]
pub(super) struct Args<'w> {
    /// `("-o", Some(value))`, `("--force", None)`; long names without `=value`.
    pub(super) flags: Vec<(String, Option<Word>)>,
    pub(super) operands: Vec<&'w Word>,
    /// Index in `operands` of the first operand after `--`.
    pub(super) dashdash: Option<usize>,
    /// With [`OptSpec::stop`]: index in the words of the first operand.
    pub(super) end: usize,
}

/// Whether the flag `f` as written selects the option `name`: equal, or an abbreviation of a long
/// option (`--in-pl` for `--in-place`, `--out=` for `--output`): GNU getopt accepts any unambiguous
/// prefix, and an ambiguous one is counted as every option it may mean (more writes, not fewer).
pub(super) fn selects(f: &str, name: &str) -> bool {
    f == name
        || (f.len() >= 4 && f.starts_with("--") && name.starts_with("--") && name.starts_with(f))
}

fn selects_any(f: &str, names: &[&str]) -> bool {
    names.iter().any(|n| selects(f, n))
}

impl Args<'_> {
    pub(super) fn has(&self, names: &[&str]) -> bool {
        self.flags.iter().any(|(f, _)| selects_any(f, names))
    }

    pub(super) fn values<'a>(
        &'a self,
        names: &'a [&'a str],
    ) -> impl Iterator<Item = &'a Word> + 'a {
        self.flags
            .iter()
            .filter(move |(f, _)| selects_any(f, names))
            .filter_map(|(_, v)| v.as_ref())
    }

    pub(super) fn value(&self, names: &[&str]) -> Option<&Word> {
        self.flags
            .iter()
            .rev()
            .find(|(f, _)| selects_any(f, names))
            .and_then(|(_, v)| v.as_ref())
    }
}

fn sub_word(w: &Word, s: &str) -> Word {
    Word::synthetic(s, w.dynamic)
}

/// What an option parser needs to know about a program's options: which take a value, and
/// how. [`OptSpec`] (a rule's positional table) and the registry's declarative specs
/// (`crate::registry::Program`) both answer it, so one parser reads both.
pub(super) trait Options {
    /// How short option `ch` takes a value.
    fn short(&self, ch: char) -> Short;
    /// Whether long option `name` as written takes the next word as its value (unless given as
    /// `--name=value`); an unambiguous prefix counts ([`selects`]).
    fn long_takes_value(&self, name: &str) -> bool;
    /// Options end at the first operand.
    fn stop(&self) -> bool;
}

/// How a short option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Short {
    /// None: a flag; the cluster goes on (`-xzf`).
    Flag,
    /// Attached (`-ofile`) or in the next word (`-o file`).
    Value,
    /// Optional, attached only: the rest of the cluster (`-i.bak`).
    Attached,
    /// Optional attached digits only (perl `-l`, `-0`).
    Digits,
}

impl Options for OptSpec {
    fn short(&self, ch: char) -> Short {
        if self.val.contains(ch) {
            Short::Value
        } else if self.attached.contains(ch) {
            Short::Attached
        } else if self.digits.contains(ch) {
            Short::Digits
        } else {
            Short::Flag
        }
    }

    fn long_takes_value(&self, name: &str) -> bool {
        self.long_val
            .split(' ')
            .any(|n| !n.is_empty() && selects(name, n))
    }

    fn stop(&self) -> bool {
        self.stop
    }
}

/// Splits words into options and operands, GNU style: clusters (`-xzf`), attached values, `--long=v`,
/// `--`, and (unless [`OptSpec::stop`]) options after operands.
pub(super) fn parse_opts<'w>(words: &'w [Word], spec: &impl Options) -> Args<'w> {
    let mut a = Args {
        end: words.len(),
        ..Args::default()
    };
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        let v = w.value.as_str();
        if a.dashdash.is_some() || !v.starts_with('-') || v == "-" {
            if spec.stop() {
                a.end = i;
                a.operands.extend(&words[i..]);
                break;
            }
            a.operands.push(w);
        } else if v == "--" {
            a.dashdash = Some(a.operands.len());
            if spec.stop() {
                a.end = i + 1;
                a.operands.extend(&words[i + 1..]);
                break;
            }
        } else if v.starts_with("--") {
            if let Some((name, val)) = v.split_once('=') {
                a.flags.push((name.to_string(), Some(sub_word(w, val))));
            } else if spec.long_takes_value(v) {
                a.flags.push((v.to_string(), words.get(i + 1).cloned()));
                i += 1;
            } else {
                a.flags.push((v.to_string(), None));
            }
        } else {
            let cluster = &v[1..];
            let mut chars = cluster.char_indices();
            while let Some((k, ch)) = chars.next() {
                let name = format!("-{ch}");
                let rest = &cluster[k + ch.len_utf8()..];
                match spec.short(ch) {
                    Short::Value => {
                        if rest.is_empty() {
                            a.flags.push((name, words.get(i + 1).cloned()));
                            i += 1;
                        } else {
                            a.flags.push((name, Some(sub_word(w, rest))));
                        }
                        break;
                    }
                    Short::Attached => {
                        a.flags
                            .push((name, (!rest.is_empty()).then(|| sub_word(w, rest))));
                        break;
                    }
                    Short::Digits => {
                        let n = rest.bytes().take_while(u8::is_ascii_digit).count();
                        a.flags
                            .push((name, (n > 0).then(|| sub_word(w, &rest[..n]))));
                        for _ in 0..n {
                            chars.next();
                        }
                    }
                    Short::Flag => a.flags.push((name, None)),
                }
            }
        }
        i += 1;
    }
    a
}

pub(super) const XARGS_SPEC: OptSpec = OptSpec {
    val: "IaEdLnPs",
    attached: "eil",
    digits: "",
    long_val: "--arg-file --delimiter --max-args --max-procs --max-lines --max-chars",
    stop: true,
};

/// Whether the space-separated `list` contains `word`.
pub(super) fn listed(list: &str, word: &str) -> bool {
    !word.is_empty() && list.split_whitespace().any(|x| x == word)
}
