//! Static analysis of one Bash command line: the files it may write (and read), for the write gate.
//!
//! [`analyze`] runs inside the PreToolUse hook, so it is std-only, allocation-light and linear in the
//! input (nesting is capped at [`MAX_DEPTH`]). It never touches the file system: paths come back as
//! written, joined with any earlier `cd DIR` of the same command line, and the gate resolves them.
//!
//! # How it works
//! 1. A small lexer (`Lexer`) turns the text into words, operators and redirections, following the
//!    Bash quoting rules (`'…'`, `"…"` with `\"`, `$'…'`, backslashes, line continuations, comments).
//!    `$(…)`, backticks and `<(…)`/`>(…)` are lexed recursively into their own token lists; heredoc
//!    bodies are read as data (never as commands) and attached to their redirection.
//! 2. `parse` turns tokens into a flat list of simple commands plus enter/exit marks for `( … )`
//!    subshells and `{ …; }` groups; `if`/`while`/`for`/`case` keywords are skipped, so the commands
//!    inside them are analysed as if they ran.
//! 3. `Eval` walks that list, tracks the working directory (`cd`, `pushd`, `popd`; a `cd` inside a
//!    subshell or `$(…)` does not leak out), unwraps prefix commands (`PREFIXES`) and applies one
//!    rule per command name (`RULES`). Interpreter code is scanned by `scan_code` with the call
//!    table `CALLS`.
//!
//! # Target kinds
//! [`BashTarget::Path`] is a literal path, [`BashTarget::Tree`] "anything under this directory may
//! change", [`BashTarget::Dynamic`] a target that depends on run time: the word contains `$VAR`,
//! `$(…)`, backticks, a glob (`*?[`), a brace expansion or a leading `~`, it is fed by `xargs`, or it
//! is interpreter code whose path is not a literal string. `/dev/null`, `/dev/stdout`, `/dev/stderr`,
//! `/dev/tty`, `/dev/fd/N`, `-` (stdout) and fd duplications (`2>&1`, `>&2`, `>&-`) are never reported.
//!
//! # Writes detected
//! - Redirections `>`, `>>`, `>|`, `&>`, `&>>`, `N>`, `N>>`, `<>`, `>&file`, with or without a space,
//!   on commands, subshells and groups; heredocs (`cat > f <<'EOF'`) and here-strings (`<<<`).
//! - `tee [-a]`, `sed -i[SUF]`/`--in-place` (file operands, not the script), `perl -i`/`ruby -i`,
//!   `awk -i inplace` and awk `print > "file"`, `cp`/`mv`/`install`/`ln` (destination or `-t DIR`;
//!   `mv` also its sources; `install -d` its operands), `rm` (recursive: Tree), `rmdir`, `unlink`,
//!   `shred`, `touch`, `mkdir`, `truncate`, `chmod` (git tracks the executable bit; `chown`/`chgrp`
//!   change nothing git sees and are not writes), `dd of=`, `sort -o`, `patch` (the file operand,
//!   `-o`, else Tree of `-d DIR` or `.`), `curl -o/-O/--output-dir/-D/-c`, `wget` (`-O`, `-P`, the
//!   URL's file name, `-r`: Tree), `tar -x` (Tree of `-C`), `tar -c/-r/-u` (the archive),
//!   `unzip` (Tree of `-d`), `rsync`/`scp` to a local destination, `ed`/`ex FILE`.
//! - git (after `-C DIR`, which moves the target): `apply` (not `--check`/`--stat`/`--cached`), `am`,
//!   `stash` (push/save/pop/apply/branch), `checkout` (paths after `--`, `REF PATH…`, else Tree),
//!   `switch`, `restore` (not `--staged` alone), `reset --hard/--keep/--merge`, `clean -f` (not `-n`),
//!   `mv`, `rm` (not `--cached`), `merge`, `pull`, `rebase`, `cherry-pick`, `revert`, `clone`,
//!   `worktree add`. Index-only and history-only commands (`add`, `commit`, plain `reset`) are not
//!   writes: the working tree does not change.
//! - Interpreter code: `python -c`, `node -e/-p`, `perl -e`, `ruby -e`, `php -r`, and code fed on
//!   stdin by a heredoc or here-string (`python3 - <<'EOF'`). See `CALLS` for the calls recognised
//!   (`open(p, 'w')`, `Path(p).write_text`, `fs.writeFileSync`, `File.write`, `file_put_contents`,
//!   perl `open(F, ">f")`, `os.remove`, `shutil.copy`, …); `os.system`/`subprocess.run`/`system`
//!   with a literal command string are analysed as shell. Read-only `open('f')` is a read.
//! - Structure: `;` `&&` `||` `|` `|&` `&` newlines, `( )`, `{ …; }`, `$( )`, backticks,
//!   `<( )`/`>( )`, `bash/sh/zsh -c STRING`, a shell reading a heredoc, `eval ARGS` (all recursive);
//!   prefixes `sudo`, `doas`, `env`, `VAR=x`, `nice`, `ionice`, `time`, `command`, `builtin`, `exec`,
//!   `nohup`, `timeout`, `stdbuf`, `busybox`; `xargs CMD` (the appended targets are Dynamic, a
//!   `-I {}` word becomes Dynamic); `find … -exec/-execdir/-ok CMD` (a target fed by `{}` becomes
//!   Tree of each start directory), `find -delete` (Tree), `find -fprint FILE`.
//!
//! # Reads detected (best effort, literal paths only)
//! `cat`, `head`, `tail`, `less`, `more`, `bat`, `nl`, `wc`, `tac`, `sort`, `cut`, `strings`, `file`,
//! `stat`, `md5sum`, `sha256sum`, `diff`, `cmp` operands; `sed`/`awk` file operands (not the script);
//! `grep` file operands (not the pattern; Tree with `-r`), `rg`/`ag`/`ack` (Tree, `.` by default);
//! `ls`/`tree` and `find` start points (Tree, `.` by default); `< file`; `dd if=`; `patch -i`; reads
//! in interpreter code (`open('f')`, `readFileSync`, `read_text`).
//!
//! # Out of reach (never reported)
//! Anything that depends on state outside the command text: variables and aliases or functions
//! defined by earlier commands of the session, `source`/`.`, scripts run by path (`./x.sh`,
//! `python tool.py`, `bash x.sh`), `eval "$CMD"`, commands whose name is not literal; programs that
//! write files as a side effect of their job: `make`, compilers and build tools (`cargo build`),
//! formatters (`cargo fmt`, `prettier --write`), package managers writing into their own directories
//! (`npm install`, `pip install`), editors; `sed` scripts using the `w` command; `tar`'s old-style
//! bundles with the value letter not last (`tar cfz`). `[[ a > b ]]` and `(( a > b ))` are
//! comparisons, not redirections. `cd` inside a pipeline stage is treated as sequential, `cd`
//! inside `eval` as not leaking out.
//!
//! Paths with a leading `~`, and any relative path after `cd` with no argument, `cd -` or
//! `cd $DIR`, are Dynamic: they depend on the environment, which this module never reads.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

/// How deep `$(…)`, backticks, `bash -c`/`eval` strings, `xargs` and `find -exec` may nest, and how
/// many prefix commands may wrap one command. Deeper input is not analysed further; a
/// [`BashTarget::Dynamic`] write with `via` ending in `"nesting too deep"` is reported instead, so
/// the gate fails closed. Chosen to keep recursion far from the stack limit; real commands nest
/// two or three levels.
pub const MAX_DEPTH: usize = 32;

/// The files a Bash command may write and read, each list in order of first appearance, without
/// duplicates.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BashAnalysis {
    /// Targets the command may create, modify, move or delete.
    pub writes: Vec<BashWrite>,
    /// Literal files ([`BashTarget::Path`]) and directories ([`BashTarget::Tree`]) the command reads;
    /// best effort, for the PostToolUse "explored files". Never [`BashTarget::Dynamic`].
    pub reads: Vec<BashTarget>,
}

/// One write target and the construct that writes it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BashWrite {
    /// What may change.
    pub target: BashTarget,
    /// The construct, for messages: `"redirect >"`, `"redirect 2>>"`, `"sed -i"`, `"git apply"`,
    /// `"python -c"`, `"xargs rm"`, `"find -exec sed -i"`, …
    pub via: String,
}

/// A file-system target of a command. Serialised as `{"kind": "path", "value": "src/a.rs"}`.
///
/// Relative values are relative to the directory the command starts in, with any earlier
/// `cd DIR`/`pushd DIR` of the same command joined in lexically (`cd a && cd .. && x > f` gives `f`;
/// symlinks are not resolved). Without a `cd` the value is exactly the word as written (quotes removed).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum BashTarget {
    /// A literal file path, possibly absolute.
    Path(String),
    /// A directory anything under which may change (or be read).
    Tree(String),
    /// A target not knowable statically; carries the raw word or code snippet, e.g. `"$OUT/x"`.
    Dynamic(String),
}

/// Analyses one Bash command line (as given to Claude Code's Bash tool): the files it may write and
/// the literal files it reads. Never fails and never panics; unparsable input (unterminated quotes,
/// binary garbage) is analysed as far as it goes. See the module docs for what is detected.
pub fn analyze(command: &str) -> BashAnalysis {
    let mut eval = Eval::default();
    eval.run_text(command);
    let mut seen = HashSet::new();
    eval.out.writes.retain(|w| seen.insert(w.clone()));
    let mut seen = HashSet::new();
    eval.out.reads.retain(|r| seen.insert(r.clone()));
    eval.out
}

// ---------------------------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------------------------

/// One shell word. `value` has quotes removed but expansions kept as written (`$X`, `$(…)`).
#[derive(Debug, Clone, Default)]
struct Word {
    value: String,
    raw: String,
    /// Contains an expansion, glob, brace expansion or leading `~`.
    dynamic: bool,
    /// Contains any quoting (a quoted heredoc delimiter disables expansion in the body).
    quoted: bool,
    /// Token lists of the `$(…)`, backtick and `<(…)` substitutions inside the word.
    substs: Vec<Vec<Tok>>,
}

impl Word {
    fn synthetic(value: &str, dynamic: bool) -> Word {
        Word {
            value: value.to_string(),
            raw: value.to_string(),
            dynamic,
            ..Word::default()
        }
    }
}

#[derive(Debug, Clone)]
enum Tok {
    Word(Word),
    /// `;` `;;` `&&` `||` `|` `|&` `&` `(` `)` or `"\n"`.
    Op(&'static str),
    Redir(Redir),
}

#[derive(Debug, Clone)]
struct Redir {
    /// The file descriptor digits before the operator, usually empty.
    fd: String,
    op: &'static str,
    target: Word,
    /// Heredoc body or here-string text: what the command reads on stdin.
    body: Option<String>,
}

enum Lexed {
    Word(Word),
    /// Digits directly followed by `<` or `>`: a redirection's file descriptor.
    Fd(String),
}

const REDIR_OPS: [&str; 12] = [
    "&>>", "&>", "<<<", "<<-", "<<", "<>", "<&", ">>", ">|", ">&", "<", ">",
];

struct Lexer<'a> {
    s: &'a [u8],
    pos: usize,
    depth: usize,
    /// Set when nesting exceeded [`MAX_DEPTH`] and input was skipped.
    overflow: bool,
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn is_blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r')
}

impl<'a> Lexer<'a> {
    fn new(s: &'a [u8], depth: usize) -> Self {
        Lexer {
            s,
            pos: 0,
            depth,
            overflow: false,
        }
    }

    fn at(&self, k: usize) -> Option<u8> {
        self.s.get(self.pos + k).copied()
    }

    /// Lexes a command list; with `close`, stops after the `)` that closes a `$(` or `<(`.
    fn list(&mut self, close: bool) -> Vec<Tok> {
        let mut toks = Vec::new();
        let mut pending: Vec<(usize, bool)> = Vec::new();
        let mut parens = 0usize;
        loop {
            while let Some(c) = self.at(0) {
                match c {
                    c if is_blank(c) => self.pos += 1,
                    b'\\' if self.at(1) == Some(b'\n') => self.pos += 2,
                    _ => break,
                }
            }
            let Some(c) = self.at(0) else { break };
            let op = |s: &'static str| Some(s);
            let simple = match (c, self.at(1), self.at(2)) {
                (b'\n', ..) => op("\n"),
                (b';', Some(b';'), Some(b'&')) => op(";;&"),
                (b';', Some(b';'), _) => op(";;"),
                (b';', Some(b'&'), _) => op(";&"),
                (b';', ..) => op(";"),
                (b'&', Some(b'&'), _) => op("&&"),
                (b'&', Some(b'>'), _) => None,
                (b'&', ..) => op("&"),
                (b'|', Some(b'|'), _) => op("||"),
                (b'|', Some(b'&'), _) => op("|&"),
                (b'|', ..) => op("|"),
                _ => None,
            };
            if let Some(op) = simple {
                self.pos += op.len();
                toks.push(Tok::Op(op));
                if op == "\n" {
                    self.heredocs(&mut toks, &mut pending, close);
                }
                continue;
            }
            match c {
                b'#' => {
                    while self.at(0).is_some_and(|c| c != b'\n') {
                        self.pos += 1;
                    }
                }
                b'(' if self.at(1) == Some(b'(') && command_start(&toks) => self.skip_parens(),
                b'(' => {
                    self.pos += 1;
                    parens += 1;
                    toks.push(Tok::Op("("));
                }
                b')' => {
                    self.pos += 1;
                    if close && parens == 0 {
                        return toks;
                    }
                    parens = parens.saturating_sub(1);
                    toks.push(Tok::Op(")"));
                }
                b'<' | b'>' | b'&' if self.at(1) != Some(b'(') => {
                    self.redirect(String::new(), &mut toks, &mut pending)
                }
                _ => match self.word() {
                    Lexed::Word(w) => toks.push(Tok::Word(w)),
                    Lexed::Fd(fd) => self.redirect(fd, &mut toks, &mut pending),
                },
            }
        }
        toks
    }

    /// Skips a balanced `( … )` (arithmetic `(( … ))` or `$(( … ))`) starting at the current `(`.
    fn skip_parens(&mut self) {
        let mut depth = 0usize;
        while let Some(c) = self.at(0) {
            self.pos += 1;
            match c {
                b'(' => depth += 1,
                b')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }

    fn redirect(&mut self, fd: String, toks: &mut Vec<Tok>, pending: &mut Vec<(usize, bool)>) {
        let rest = &self.s[self.pos..];
        let op = REDIR_OPS
            .iter()
            .copied()
            .find(|op| rest.starts_with(op.as_bytes()))
            .unwrap_or(">");
        self.pos += op.len();
        while self.at(0).is_some_and(is_blank) {
            self.pos += 1;
        }
        let at_meta = match self.at(0) {
            None | Some(b'\n' | b';' | b'&' | b'|' | b'(' | b')') => true,
            Some(b'<' | b'>') => self.at(1) != Some(b'('),
            _ => false,
        };
        let target = if at_meta {
            Word::default()
        } else {
            match self.word() {
                Lexed::Word(w) => w,
                Lexed::Fd(d) => Word::synthetic(&d, false),
            }
        };
        let body = (op == "<<<").then(|| format!("{}\n", target.value));
        if op.starts_with("<<") && op != "<<<" {
            pending.push((toks.len(), op == "<<-"));
        }
        toks.push(Tok::Redir(Redir {
            fd,
            op,
            target,
            body,
        }));
    }

    /// Reads the bodies of the heredocs opened on the line that just ended.
    fn heredocs(&mut self, toks: &mut [Tok], pending: &mut Vec<(usize, bool)>, close: bool) {
        for (idx, strip_tabs) in pending.drain(..) {
            let Some(Tok::Redir(r)) = toks.get_mut(idx) else {
                continue;
            };
            let delim = r.target.value.as_bytes();
            let mut body = Vec::new();
            while self.pos < self.s.len() {
                let eol = self.s[self.pos..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(self.s.len(), |i| self.pos + i);
                let line = &self.s[self.pos..eol];
                let tabs = if strip_tabs {
                    line.iter().take_while(|&&c| c == b'\t').count()
                } else {
                    0
                };
                let cmp = &line[tabs..];
                if cmp == delim {
                    self.pos = (eol + 1).min(self.s.len());
                    break;
                }
                // `$(cat <<EOF … EOF)`: Bash accepts the delimiter right before the closing paren.
                if close
                    && cmp.starts_with(delim)
                    && cmp[delim.len()..].trim_ascii_start().starts_with(b")")
                {
                    self.pos += tabs + delim.len();
                    break;
                }
                body.extend_from_slice(line);
                body.push(b'\n');
                self.pos = (eol + 1).min(self.s.len());
            }
            if !r.target.quoted && self.depth < MAX_DEPTH {
                // An unquoted delimiter expands `$(…)` and backticks in the body: they run.
                let mut sub = Lexer::new(&body, self.depth + 1);
                let mut w = Word::default();
                sub.double_quoted(&mut w, &mut Vec::new(), None);
                self.overflow |= sub.overflow;
                r.target.substs.extend(w.substs);
            }
            r.body = Some(lossy(&body));
        }
    }

    fn word(&mut self) -> Lexed {
        let start = self.pos;
        let mut w = Word::default();
        let mut val = Vec::new();
        let (mut brace, mut brace_sep) = (false, false);
        if matches!(self.at(0), Some(b'<' | b'>')) && self.at(1) == Some(b'(') {
            // Process substitution: the inner command runs; the word names a pipe.
            self.pos += 2;
            let toks = self.nested();
            w.substs.push(toks);
            w.dynamic = true;
        }
        while let Some(c) = self.at(0) {
            match c {
                b' ' | b'\t' | b'\r' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' => break,
                b'<' | b'>' => {
                    let fd = !val.is_empty()
                        && !w.quoted
                        && !w.dynamic
                        && val.iter().all(u8::is_ascii_digit);
                    if fd && self.pos == start + val.len() {
                        return Lexed::Fd(lossy(&val));
                    }
                    break;
                }
                b'\\' => {
                    match self.at(1) {
                        Some(b'\n') => {}
                        Some(n) => {
                            val.push(n);
                            w.quoted = true;
                        }
                        None => {}
                    }
                    self.pos = (self.pos + 2).min(self.s.len());
                }
                b'\'' => {
                    w.quoted = true;
                    self.pos += 1;
                    while let Some(c) = self.at(0) {
                        self.pos += 1;
                        if c == b'\'' {
                            break;
                        }
                        val.push(c);
                    }
                }
                b'"' => {
                    w.quoted = true;
                    self.pos += 1;
                    self.double_quoted(&mut w, &mut val, Some(b'"'));
                }
                b'$' => self.dollar(&mut w, &mut val, false),
                b'`' => self.backtick(&mut w, &mut val),
                _ => {
                    match c {
                        b'*' | b'?' | b'[' => w.dynamic = true,
                        b'~' if val.is_empty() && !w.quoted => w.dynamic = true,
                        b'{' => brace = true,
                        b',' => brace_sep = true,
                        b'.' if self.at(1) == Some(b'.') => brace_sep = true,
                        _ => {}
                    }
                    val.push(c);
                    self.pos += 1;
                }
            }
        }
        if brace && brace_sep && val.contains(&b'}') {
            w.dynamic = true;
        }
        w.value = lossy(&val);
        w.raw = lossy(&self.s[start..self.pos]);
        Lexed::Word(w)
    }

    /// Lexes double-quoted text up to `term` (consumed), or to the end for a heredoc body.
    fn double_quoted(&mut self, w: &mut Word, val: &mut Vec<u8>, term: Option<u8>) {
        while let Some(c) = self.at(0) {
            match c {
                _ if Some(c) == term => {
                    self.pos += 1;
                    return;
                }
                b'\\' => match self.at(1) {
                    Some(b'\n') => self.pos += 2,
                    Some(n @ (b'$' | b'`' | b'"' | b'\\')) => {
                        val.push(n);
                        self.pos += 2;
                    }
                    _ => {
                        val.push(c);
                        self.pos += 1;
                    }
                },
                b'$' => self.dollar(w, val, true),
                b'`' => self.backtick(w, val),
                _ => {
                    val.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    fn dollar(&mut self, w: &mut Word, val: &mut Vec<u8>, in_dq: bool) {
        let start = self.pos;
        match self.at(1) {
            Some(b'(') if self.at(2) == Some(b'(') => {
                self.pos += 1;
                self.skip_parens();
            }
            Some(b'(') => {
                self.pos += 2;
                let toks = self.nested();
                w.substs.push(toks);
            }
            Some(b'{') => {
                let mut depth = 0usize;
                while let Some(c) = self.at(0) {
                    self.pos += 1;
                    match c {
                        b'{' => depth += 1,
                        b'}' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
            }
            Some(b'\'') if !in_dq => {
                self.pos += 2;
                w.quoted = true;
                self.ansi_c(val);
                return;
            }
            Some(b'"') if !in_dq => {
                self.pos += 2;
                w.quoted = true;
                self.double_quoted(w, val, Some(b'"'));
                return;
            }
            Some(c) if c.is_ascii_alphanumeric() || c == b'_' => {
                self.pos += 1;
                while self
                    .at(0)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
                {
                    self.pos += 1;
                }
            }
            Some(b'@' | b'*' | b'#' | b'?' | b'$' | b'!' | b'-') => self.pos += 2,
            _ => {
                val.push(b'$');
                self.pos += 1;
                return;
            }
        }
        w.dynamic = true;
        val.extend_from_slice(&self.s[start..self.pos]);
    }

    /// `$'…'` after the opening quote: ANSI-C escapes.
    fn ansi_c(&mut self, val: &mut Vec<u8>) {
        while let Some(c) = self.at(0) {
            self.pos += 1;
            match c {
                b'\'' => return,
                b'\\' => {
                    let Some(n) = self.at(0) else { return };
                    self.pos += 1;
                    match n {
                        b'n' => val.push(b'\n'),
                        b't' => val.push(b'\t'),
                        b'r' => val.push(b'\r'),
                        b'e' | b'E' => val.push(0x1b),
                        b'x' => {
                            let hex: Vec<u8> = self.s[self.pos..]
                                .iter()
                                .copied()
                                .take(2)
                                .take_while(u8::is_ascii_hexdigit)
                                .collect();
                            self.pos += hex.len();
                            let v = std::str::from_utf8(&hex)
                                .ok()
                                .and_then(|h| u8::from_str_radix(h, 16).ok());
                            val.push(v.unwrap_or(b'x'));
                        }
                        _ => val.push(n),
                    }
                }
                _ => val.push(c),
            }
        }
    }

    fn backtick(&mut self, w: &mut Word, val: &mut Vec<u8>) {
        let start = self.pos;
        self.pos += 1;
        let mut inner = Vec::new();
        while let Some(c) = self.at(0) {
            self.pos += 1;
            match c {
                b'`' => break,
                b'\\' => match self.at(0) {
                    Some(n @ (b'`' | b'\\' | b'$')) => {
                        inner.push(n);
                        self.pos += 1;
                    }
                    _ => inner.push(c),
                },
                _ => inner.push(c),
            }
        }
        if self.depth < MAX_DEPTH {
            let mut sub = Lexer::new(&inner, self.depth + 1);
            w.substs.push(sub.list(false));
            self.overflow |= sub.overflow;
        } else {
            self.overflow = true;
        }
        w.dynamic = true;
        val.extend_from_slice(&self.s[start..self.pos]);
    }

    /// Lexes the command list of a `$(` or `<(` whose opening was consumed, through its `)`.
    fn nested(&mut self) -> Vec<Tok> {
        if self.depth >= MAX_DEPTH {
            self.overflow = true;
            self.pos = self.s.len();
            return Vec::new();
        }
        self.depth += 1;
        let toks = self.list(true);
        self.depth -= 1;
        toks
    }
}

/// Whether the next token stands where a command starts (so `((` is arithmetic, not two subshells).
fn command_start(toks: &[Tok]) -> bool {
    match toks.last() {
        None => true,
        Some(Tok::Op(op)) => *op != ")",
        Some(Tok::Word(w)) => w.value == "for" && !w.quoted,
        Some(Tok::Redir(_)) => false,
    }
}

// ---------------------------------------------------------------------------------------------
// Parser: tokens -> simple commands with subshell/group marks
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Default)]
struct Cmd {
    words: Vec<Word>,
    redirs: Vec<Redir>,
}

#[derive(Debug)]
enum Event {
    Command(Cmd),
    /// `(` (scoped: `cd` inside does not leak) or `{` (not scoped).
    Enter {
        scoped: bool,
    },
    /// The matching `)` or `}` with the redirections that follow it.
    Exit(Vec<Redir>),
}

/// Reserved words skipped where a command starts.
const KEYWORDS: [&str; 12] = [
    "if", "then", "elif", "else", "fi", "do", "done", "while", "until", "!", "esac", "in",
];
/// Reserved words whose header (up to the next operator) is not a command.
const HEADERS: [&str; 4] = ["for", "select", "case", "function"];

fn parse(toks: Vec<Tok>) -> Vec<Event> {
    let mut p = Parser::default();
    let mut toks = toks.into_iter().peekable();
    let mut header = false;
    while let Some(tok) = toks.next() {
        match tok {
            Tok::Word(w) if p.cur.words.is_empty() && !w.quoted && !header => {
                match w.value.as_str() {
                    "{" => p.enter(false),
                    "}" if p.open.last() == Some(&false) => p.exit(&mut toks),
                    v if KEYWORDS.contains(&v) => {}
                    v if HEADERS.contains(&v) => header = true,
                    _ => p.cur.words.push(w),
                }
            }
            Tok::Word(w) if !header => p.cur.words.push(w),
            Tok::Word(_) => {}
            Tok::Redir(r) => p.cur.redirs.push(r),
            Tok::Op("(") => p.enter(true),
            Tok::Op(op) => {
                header = false;
                p.flush();
                if op == ")" && p.open.last() == Some(&true) {
                    p.exit(&mut toks);
                }
            }
        }
    }
    p.flush();
    p.events
        .extend(p.open.iter().map(|_| Event::Exit(Vec::new())));
    p.events
}

#[derive(Default)]
struct Parser {
    events: Vec<Event>,
    cur: Cmd,
    /// Open subshells (`true`) and groups (`false`), innermost last.
    open: Vec<bool>,
}

impl Parser {
    fn flush(&mut self) {
        if !self.cur.words.is_empty() || !self.cur.redirs.is_empty() {
            self.events
                .push(Event::Command(std::mem::take(&mut self.cur)));
        }
    }

    fn enter(&mut self, scoped: bool) {
        self.flush();
        self.events.push(Event::Enter { scoped });
        self.open.push(scoped);
    }

    /// Closes the innermost subshell or group; the redirections after it apply to all of it.
    fn exit(&mut self, toks: &mut std::iter::Peekable<std::vec::IntoIter<Tok>>) {
        self.flush();
        self.open.pop();
        let mut redirs = Vec::new();
        while let Some(Tok::Redir(_)) = toks.peek() {
            if let Some(Tok::Redir(r)) = toks.next() {
                redirs.push(r);
            }
        }
        self.events.push(Event::Exit(redirs));
    }
}

// ---------------------------------------------------------------------------------------------
// Evaluation: working directory, prefixes, rule dispatch
// ---------------------------------------------------------------------------------------------

/// The working directory relative to where the command starts (`""`: unchanged).
#[derive(Debug, Clone, Default)]
struct Cwd {
    path: String,
    /// The directory depends on run time (`cd $X`, `cd ~`, `cd -`).
    dynamic: bool,
}

impl Cwd {
    fn join(&self, rel: &str) -> String {
        if rel.starts_with('/') || self.path.is_empty() {
            rel.to_string()
        } else {
            normalize(&format!("{}/{rel}", self.path))
        }
    }
}

/// Lexical normalisation: drops `.` and empty components and folds `dir/..`.
fn normalize(p: &str) -> String {
    let abs = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for c in p.split('/') {
        match c {
            "" | "." => {}
            ".." if parts.last().is_some_and(|l| *l != "..") => {
                parts.pop();
            }
            ".." if abs => {}
            _ => parts.push(c),
        }
    }
    let joined = parts.join("/");
    match (abs, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}

/// Targets that are never files of the project: the null device, standard streams, `-`.
fn is_sink(p: &str) -> bool {
    matches!(
        p,
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/stdin" | "/dev/tty" | "-"
    ) || p.starts_with("/dev/fd/")
        || p.starts_with("/proc/self/fd/")
}

#[derive(Default)]
struct Eval {
    out: BashAnalysis,
    cwd: Cwd,
    /// The `pushd` stack.
    dirs: Vec<Cwd>,
    depth: usize,
}

/// One command to apply a rule to: its canonical name, its arguments and its stdin text.
struct Inv<'a> {
    name: &'a str,
    args: &'a [Word],
    stdin: Option<&'a str>,
}

impl Eval {
    /// Lexes and runs a command string (the top level, `bash -c`, `eval`, heredoc scripts).
    /// A `cd` inside does not leak out: the string runs in its own shell or scope of ours.
    fn run_text(&mut self, text: &str) {
        if self.depth >= MAX_DEPTH {
            self.overflow(text);
            return;
        }
        let mut lexer = Lexer::new(text.as_bytes(), self.depth);
        let toks = lexer.list(false);
        if lexer.overflow {
            self.overflow(text);
        }
        self.subshell(toks);
    }

    fn overflow(&mut self, text: &str) {
        let snippet: String = text.chars().take(200).collect();
        self.out.writes.push(BashWrite {
            target: BashTarget::Dynamic(snippet),
            via: "nesting too deep".into(),
        });
    }

    fn subshell(&mut self, toks: Vec<Tok>) {
        let saved = (self.cwd.clone(), self.dirs.clone());
        self.depth += 1;
        self.run(toks);
        self.depth -= 1;
        (self.cwd, self.dirs) = saved;
    }

    fn run(&mut self, toks: Vec<Tok>) {
        let mut saved: Vec<(Cwd, Vec<Cwd>, bool)> = Vec::new();
        for event in parse(toks) {
            match event {
                Event::Enter { scoped } => {
                    saved.push((self.cwd.clone(), self.dirs.clone(), scoped))
                }
                Event::Exit(redirs) => {
                    let Some((cwd, dirs, scoped)) = saved.pop() else {
                        continue;
                    };
                    // The group's redirections are opened before it runs, in the outer directory.
                    let inner = (
                        std::mem::replace(&mut self.cwd, cwd),
                        std::mem::replace(&mut self.dirs, dirs),
                    );
                    for mut r in redirs {
                        self.redirect(&mut r);
                    }
                    if !scoped {
                        (self.cwd, self.dirs) = inner;
                    }
                }
                Event::Command(cmd) => self.command(cmd),
            }
        }
    }

    fn command(&mut self, mut cmd: Cmd) {
        for w in &mut cmd.words {
            for s in std::mem::take(&mut w.substs) {
                self.subshell(s);
            }
        }
        let words: Vec<Word> = cmd.words.into_iter().skip_while(is_assignment).collect();
        // Inside `[[ … ]]`, `<` and `>` compare strings.
        let test = words.first().is_some_and(|w| w.value == "[[");
        let mut stdin = None;
        for r in &mut cmd.redirs {
            if !test {
                self.redirect(r);
            }
            if r.body.is_some() {
                stdin.clone_from(&r.body);
            }
        }
        self.invoke(&words, stdin.as_deref());
    }

    fn redirect(&mut self, r: &mut Redir) {
        for s in std::mem::take(&mut r.target.substs) {
            self.subshell(s);
        }
        let via = format!("redirect {}{}", r.fd, r.op);
        let dup = !r.target.dynamic
            && r.target
                .value
                .trim_end_matches('-')
                .bytes()
                .all(|b| b.is_ascii_digit());
        match r.op {
            ">" | ">>" | ">|" | "&>" | "&>>" | "<>" => self.write(&r.target, &via),
            ">&" if !dup => self.write(&r.target, &via),
            "<" => self.read(&r.target),
            _ => {}
        }
    }

    /// Unwraps prefix commands, then applies the rule of the command name.
    fn invoke(&mut self, mut words: &[Word], stdin: Option<&str>) {
        for _ in 0..MAX_DEPTH {
            let Some(first) = words.first() else { return };
            if first.dynamic {
                return;
            }
            let name = canonical(&first.value);
            if name == "xargs" {
                return self.xargs(&words[1..]);
            }
            if let Some(&(_, val, long, operands, stops)) =
                PREFIXES.iter().find(|p| listed(p.0, name))
            {
                let args = parse_opts(&words[1..], &stop_spec(val, long));
                if stops.split(' ').any(|f| args.has(&[f])) {
                    return;
                }
                let mut rest = &words[1 + args.end..];
                if name == "env" {
                    let n = rest.iter().take_while(|w| is_assignment(w)).count();
                    rest = &rest[n..];
                }
                words = rest.get(operands..).unwrap_or_default();
                continue;
            }
            if let Some((_, rule)) = RULES.iter().find(|(names, _)| listed(names, name)) {
                rule(
                    self,
                    &Inv {
                        name,
                        args: &words[1..],
                        stdin,
                    },
                );
            }
            return;
        }
    }

    /// `xargs [opts] CMD ARGS`: CMD gets Dynamic arguments from stdin (appended, or in place of
    /// the `-I` replacement string).
    fn xargs(&mut self, words: &[Word]) {
        let a = parse_opts(words, &XARGS_SPEC);
        for f in a.values(&["-a", "--arg-file"]) {
            self.read(f);
        }
        let repl = a
            .value(&["-I", "--replace"])
            .map(|w| w.value.clone())
            .or_else(|| {
                a.has(&["-i"]).then(|| {
                    a.value(&["-i"])
                        .map_or("{}".to_string(), |w| w.value.clone())
                })
            });
        let mut inner: Vec<Word> = words[a.end..].to_vec();
        match repl {
            Some(r) if !r.is_empty() => inner
                .iter_mut()
                .filter(|w| w.value.contains(&r))
                .for_each(|w| w.dynamic = true),
            _ => inner.push(Word::synthetic("<xargs input>", true)),
        }
        let sub = self.capture(|e| e.invoke(&inner, None));
        self.out.reads.extend(sub.reads);
        self.out
            .writes
            .extend(sub.writes.into_iter().map(|w| BashWrite {
                via: format!("xargs {}", w.via),
                ..w
            }));
    }

    /// Runs the nested command `f` (of `xargs`, `find -exec`) against an empty output and returns
    /// what it found; nesting deeper than [`MAX_DEPTH`] is reported instead of run.
    fn capture(&mut self, f: impl FnOnce(&mut Eval)) -> BashAnalysis {
        if self.depth >= MAX_DEPTH {
            self.overflow("<nested command>");
            return BashAnalysis::default();
        }
        let saved = std::mem::take(&mut self.out);
        self.depth += 1;
        f(self);
        self.depth -= 1;
        std::mem::replace(&mut self.out, saved)
    }

    /// Runs `f` with the working directory moved to `dir` (`git -C`, `patch -d`, `tar -C`).
    fn in_dir(&mut self, dir: Option<&Word>, f: impl FnOnce(&mut Eval)) {
        let saved = self.cwd.clone();
        if let Some(d) = dir {
            self.cwd = self.cwd_after(d);
        }
        f(self);
        self.cwd = saved;
    }

    fn cwd_after(&self, dir: &Word) -> Cwd {
        if dir.dynamic {
            let p = if dir.raw.starts_with('/') {
                dir.raw.clone()
            } else {
                self.cwd.join(&dir.raw)
            };
            return Cwd {
                path: p,
                dynamic: true,
            };
        }
        let absolute = dir.value.starts_with('/');
        let p = if absolute || self.cwd.path.is_empty() {
            dir.value.clone()
        } else {
            format!("{}/{}", self.cwd.path, dir.value)
        };
        Cwd {
            path: normalize(&p),
            dynamic: self.cwd.dynamic && !absolute,
        }
    }

    fn target(&self, w: &Word, tree: bool) -> Option<BashTarget> {
        if w.dynamic {
            let raw = if w.raw.starts_with('/') {
                w.raw.clone()
            } else {
                self.cwd.join(&w.raw)
            };
            return Some(BashTarget::Dynamic(raw));
        }
        if w.value.is_empty() || is_sink(&w.value) {
            return None;
        }
        let p = self.cwd.join(&w.value);
        Some(
            match (self.cwd.dynamic && !w.value.starts_with('/'), tree) {
                (true, _) => BashTarget::Dynamic(p),
                (false, true) => BashTarget::Tree(p),
                (false, false) => BashTarget::Path(p),
            },
        )
    }

    fn emit(&mut self, w: &Word, tree: bool, via: &str) {
        if let Some(target) = self.target(w, tree) {
            self.out.writes.push(BashWrite {
                target,
                via: via.to_string(),
            });
        }
    }

    fn write(&mut self, w: &Word, via: &str) {
        self.emit(w, false, via);
    }

    fn write_tree(&mut self, w: &Word, via: &str) {
        self.emit(w, true, via);
    }

    fn read_as(&mut self, w: &Word, tree: bool) {
        if let Some(t @ (BashTarget::Path(_) | BashTarget::Tree(_))) = self.target(w, tree) {
            self.out.reads.push(t);
        }
    }

    fn read(&mut self, w: &Word) {
        self.read_as(w, false);
    }
}

fn is_assignment(w: &Word) -> bool {
    let Some((name, _)) = w.value.split_once('=') else {
        return false;
    };
    let name = name.strip_suffix('+').unwrap_or(name);
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The rule name of a command word: its basename with version suffixes and GNU/BSD variants folded
/// (`/usr/bin/python3.12` -> `python`, `gawk` -> `awk`, `nodejs` -> `node`).
fn canonical(word: &str) -> &str {
    let base = word.rsplit('/').next().unwrap_or(word);
    let versioned = |prefix: &str| {
        base.strip_prefix(prefix)
            .is_some_and(|v| v.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
    };
    match base {
        _ if versioned("python") => "python",
        _ if versioned("perl") => "perl",
        _ if versioned("ruby") => "ruby",
        _ if versioned("php") => "php",
        "nodejs" => "node",
        "gawk" | "mawk" | "nawk" => "awk",
        "gsed" => "sed",
        "gtar" | "bsdtar" => "tar",
        "ggrep" => "grep",
        "batcat" => "bat",
        _ => base,
    }
}

// ---------------------------------------------------------------------------------------------
// Option parsing
// ---------------------------------------------------------------------------------------------

/// How a command's options take values.
struct OptSpec {
    /// Short options with a value, attached (`-ofile`) or in the next word (`-o file`).
    val: &'static str,
    /// Short options with an optional value attached only (`-i.bak`): the rest of the cluster.
    attached: &'static str,
    /// Short options with optional attached digits only (perl `-l`, `-0`).
    digits: &'static str,
    /// Long options (space-separated) whose value is the next word unless given as `--opt=value`.
    long_val: &'static str,
    /// Options end at the first operand (prefix commands, interpreters, find).
    stop: bool,
}

const fn spec(val: &'static str, long_val: &'static str) -> OptSpec {
    OptSpec {
        val,
        attached: "",
        digits: "",
        long_val,
        stop: false,
    }
}

const fn stop_spec(val: &'static str, long_val: &'static str) -> OptSpec {
    OptSpec {
        val,
        attached: "",
        digits: "",
        long_val,
        stop: true,
    }
}

#[derive(Debug, Default)]
struct Args<'w> {
    /// `("-o", Some(value))`, `("--force", None)`; long names without `=value`.
    flags: Vec<(String, Option<Word>)>,
    operands: Vec<&'w Word>,
    /// Index in `operands` of the first operand after `--`.
    dashdash: Option<usize>,
    /// With [`OptSpec::stop`]: index in the words of the first operand.
    end: usize,
}

impl Args<'_> {
    fn has(&self, names: &[&str]) -> bool {
        self.flags.iter().any(|(f, _)| names.contains(&f.as_str()))
    }

    fn values<'a>(&'a self, names: &'a [&'a str]) -> impl Iterator<Item = &'a Word> + 'a {
        self.flags
            .iter()
            .filter(move |(f, _)| names.contains(&f.as_str()))
            .filter_map(|(_, v)| v.as_ref())
    }

    fn value(&self, names: &[&str]) -> Option<&Word> {
        self.flags
            .iter()
            .rev()
            .find(|(f, _)| names.contains(&f.as_str()))
            .and_then(|(_, v)| v.as_ref())
    }
}

fn sub_word(w: &Word, s: &str) -> Word {
    Word::synthetic(s, w.dynamic)
}

/// Splits words into options and operands, GNU style: clusters (`-xzf`), attached values, `--long=v`,
/// `--`, and (unless [`OptSpec::stop`]) options after operands.
fn parse_opts<'w>(words: &'w [Word], spec: &OptSpec) -> Args<'w> {
    let mut a = Args {
        end: words.len(),
        ..Args::default()
    };
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        let v = w.value.as_str();
        if a.dashdash.is_some() || !v.starts_with('-') || v == "-" {
            if spec.stop {
                a.end = i;
                a.operands.extend(&words[i..]);
                break;
            }
            a.operands.push(w);
        } else if v == "--" {
            a.dashdash = Some(a.operands.len());
            if spec.stop {
                a.end = i + 1;
                a.operands.extend(&words[i + 1..]);
                break;
            }
        } else if v.starts_with("--") {
            if let Some((name, val)) = v.split_once('=') {
                a.flags.push((name.to_string(), Some(sub_word(w, val))));
            } else if listed(spec.long_val, v) {
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
                if spec.val.contains(ch) {
                    if rest.is_empty() {
                        a.flags.push((name, words.get(i + 1).cloned()));
                        i += 1;
                    } else {
                        a.flags.push((name, Some(sub_word(w, rest))));
                    }
                    break;
                } else if spec.attached.contains(ch) {
                    a.flags
                        .push((name, (!rest.is_empty()).then(|| sub_word(w, rest))));
                    break;
                } else if spec.digits.contains(ch) {
                    let n = rest.bytes().take_while(u8::is_ascii_digit).count();
                    a.flags
                        .push((name, (n > 0).then(|| sub_word(w, &rest[..n]))));
                    for _ in 0..n {
                        chars.next();
                    }
                } else {
                    a.flags.push((name, None));
                }
            }
        }
        i += 1;
    }
    a
}

const XARGS_SPEC: OptSpec = OptSpec {
    val: "IaEdLnPs",
    attached: "eil",
    digits: "",
    long_val: "--arg-file --delimiter --max-args --max-procs --max-lines --max-chars",
    stop: true,
};

/// Whether the space-separated `list` contains `word`.
fn listed(list: &str, word: &str) -> bool {
    !word.is_empty() && list.split_whitespace().any(|x| x == word)
}

/// Commands that run the command in their operands, unwrapped before the rule lookup: names,
/// short options with a value, long options with a value, operands before the inner command
/// (`timeout DURATION`), options that make them run nothing (`command -v`).
const PREFIXES: &[(&str, &str, &str, usize, &str)] = &[
    (
        "sudo",
        "CDghpRrtTUu",
        "--user --group --chdir --prompt",
        0,
        "-l -v -k -K -e",
    ),
    ("doas", "uC", "", 0, ""),
    ("env", "uCS", "--unset --chdir --split-string", 0, ""),
    ("nice", "n", "--adjustment", 0, ""),
    ("ionice", "cnp", "--class --classdata", 0, ""),
    ("time", "fo", "--format --output", 0, ""),
    ("command", "", "", 0, "-v -V"),
    ("builtin nohup chronic unbuffer busybox", "", "", 0, ""),
    ("exec", "a", "", 0, ""),
    ("timeout", "sk", "--signal --kill-after", 1, ""),
    ("stdbuf", "ioe", "--input --output --error", 0, ""),
];

// ---------------------------------------------------------------------------------------------
// Command rules
// ---------------------------------------------------------------------------------------------

type Rule = fn(&mut Eval, &Inv<'_>);

/// Per-command rules, looked up by [`canonical`] name after [`PREFIXES`] are unwrapped.
const RULES: &[(&str, Rule)] = &[
    ("cd pushd popd", rule_cd),
    ("tee", rule_tee),
    ("sed", rule_sed),
    ("perl ruby", rule_perl_ruby),
    ("awk", rule_awk),
    ("cp mv install ln", rule_copy),
    (
        "rm rmdir unlink shred touch mkdir truncate chmod ed ex",
        rule_operands,
    ),
    ("dd", rule_dd),
    ("patch", rule_patch),
    ("git", rule_git),
    ("curl", rule_curl),
    ("wget", rule_wget),
    ("tar", rule_tar),
    ("unzip", rule_unzip),
    ("rsync scp", rule_rsync),
    ("python node php", rule_interpreter),
    ("bash sh zsh dash ksh eval", rule_shell),
    ("find", rule_find),
    ("grep egrep fgrep rg ag ack", rule_grep),
    ("ls tree", rule_ls),
    (
        "cat head tail less more bat nl wc tac sort cut strings file stat md5sum sha1sum sha256sum diff cmp",
        rule_read,
    ),
];

/// The word `.`: "the working directory".
fn here() -> Word {
    Word::synthetic(".", false)
}

/// `of=x` -> `x`, keeping dynamic-ness and the raw text.
fn strip_word(w: &Word, prefix: &str) -> Option<Word> {
    let value = w.value.strip_prefix(prefix)?;
    let raw = w.raw.strip_prefix(prefix).unwrap_or(&w.raw);
    Some(Word {
        value: value.to_string(),
        raw: raw.to_string(),
        dynamic: w.dynamic,
        ..Word::default()
    })
}

/// The file name a download of `url` gets (`https://h/a/b.tgz?x` -> `b.tgz`); Dynamic when none.
fn url_file(url: &Word) -> Word {
    let no_scheme = url
        .value
        .split_once("://")
        .map_or(url.value.as_str(), |(_, r)| r);
    let path = no_scheme.split(['?', '#']).next().unwrap_or_default();
    let name = path
        .split_once('/')
        .map_or("", |(_, p)| p.rsplit('/').next().unwrap_or_default());
    Word {
        value: name.to_string(),
        raw: url.raw.clone(),
        dynamic: url.dynamic || name.is_empty(),
        ..Word::default()
    }
}

fn rule_cd(e: &mut Eval, inv: &Inv<'_>) {
    if inv.name == "popd" {
        if let Some(d) = e.dirs.pop() {
            e.cwd = d;
        }
        return;
    }
    let a = parse_opts(inv.args, &spec("", ""));
    let unknown = |p: &str| Cwd {
        path: p.to_string(),
        dynamic: true,
    };
    let new = match a.operands.first() {
        None => unknown("~"),
        Some(w) if w.value == "-" => unknown("$OLDPWD"),
        Some(w) => e.cwd_after(w),
    };
    let old = std::mem::replace(&mut e.cwd, new);
    if inv.name == "pushd" {
        e.dirs.push(old);
    }
}

fn rule_tee(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &spec("", ""));
    let via = if a.has(&["-a", "--append"]) {
        "tee -a"
    } else {
        "tee"
    };
    for w in &a.operands {
        e.write(w, via);
    }
}

const SED_SPEC: OptSpec = OptSpec {
    val: "efl",
    attached: "i",
    digits: "",
    long_val: "--expression --file --line-length",
    stop: false,
};

fn rule_sed(e: &mut Eval, inv: &Inv<'_>) {
    // BSD `sed -i '' …`: the empty word is the backup suffix, not the script.
    let args: Vec<Word> = inv
        .args
        .iter()
        .enumerate()
        .filter(|(k, w)| !(w.value.is_empty() && *k > 0 && inv.args[k - 1].value == "-i"))
        .map(|(_, w)| w.clone())
        .collect();
    let a = parse_opts(&args, &SED_SPEC);
    for f in a.values(&["-f", "--file"]) {
        e.read(f);
    }
    let scripted = a.has(&["-e", "--expression", "-f", "--file"]);
    let in_place = a.has(&["-i", "--in-place"]);
    for f in a.operands.get(usize::from(!scripted)..).unwrap_or_default() {
        if in_place {
            e.write(f, "sed -i")
        } else {
            e.read(f)
        }
    }
}

const PERL_SPEC: OptSpec = OptSpec {
    val: "eEIMm",
    attached: "iFxdDC",
    digits: "l0",
    long_val: "",
    stop: true,
};
const RUBY_SPEC: OptSpec = OptSpec {
    val: "eIrCE",
    attached: "iFxWKT",
    digits: "0",
    long_val: "",
    stop: true,
};

fn rule_perl_ruby(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(
        inv.args,
        if inv.name == "perl" {
            &PERL_SPEC
        } else {
            &RUBY_SPEC
        },
    );
    let code: Vec<&str> = a.values(&["-e", "-E"]).map(|w| w.value.as_str()).collect();
    let files = if code.is_empty() {
        a.operands.get(1..).unwrap_or_default()
    } else {
        &a.operands[..]
    };
    if a.has(&["-i"]) {
        let via = format!("{} -i", inv.name);
        files.iter().for_each(|f| e.write(f, &via));
    } else if a.has(&["-n", "-p"]) {
        files.iter().for_each(|f| e.read(f));
    }
    if !code.is_empty() {
        scan_code(e, &code.join("\n"), &format!("{} -e", inv.name));
    } else if let (None | Some("-"), Some(stdin)) =
        (a.operands.first().map(|w| w.value.as_str()), inv.stdin)
    {
        scan_code(e, stdin, &format!("{} stdin", inv.name));
    }
}

const AWK_SPEC: OptSpec = spec(
    "fvFiEW",
    "--file --assign --field-separator --include --exec",
);

fn rule_awk(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &AWK_SPEC);
    let program_files = ["-f", "--file", "-E", "--exec"];
    a.values(&program_files).for_each(|f| e.read(f));
    let inplace = a
        .values(&["-i", "--include"])
        .any(|w| w.value == "inplace" || w.value == "inplace.awk");
    let from_file = a.has(&program_files);
    if let (false, Some(program)) = (from_file, a.operands.first()) {
        scan_awk(e, &program.value);
    }
    for f in a
        .operands
        .get(usize::from(!from_file)..)
        .unwrap_or_default()
        .iter()
        .filter(|w| !is_assignment(w))
    {
        if inplace {
            e.write(f, "awk -i inplace")
        } else {
            e.read(f)
        }
    }
}

fn rule_copy(e: &mut Eval, inv: &Inv<'_>) {
    let val = if inv.name == "install" { "tSmog" } else { "tS" };
    let long = "--target-directory --suffix --mode --owner --group";
    let a = parse_opts(inv.args, &spec(val, long));
    let via = inv.name;
    if inv.name == "install" && a.has(&["-d", "--directory"]) {
        a.operands.iter().for_each(|w| e.write(w, via));
        return;
    }
    let target_dir = a.value(&["-t", "--target-directory"]);
    let sources = if target_dir.is_some() {
        &a.operands[..]
    } else {
        &a.operands[..a.operands.len().saturating_sub(1)]
    };
    if inv.name == "mv" {
        sources.iter().for_each(|s| e.write(s, via));
    }
    match (target_dir, a.operands.as_slice()) {
        (Some(dir), _) => e.write(dir, via),
        (None, [only]) if inv.name == "ln" => {
            let base = only
                .value
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or_default();
            e.write(
                &Word {
                    value: base.to_string(),
                    raw: only.raw.clone(),
                    dynamic: only.dynamic,
                    ..Word::default()
                },
                via,
            );
        }
        (None, [_, .., dest]) => e.write(dest, via),
        _ => {}
    }
}

fn rule_operands(e: &mut Eval, inv: &Inv<'_>) {
    if inv.name == "chmod" {
        // `chmod -x f`: a mode may look like an option; only -c -f -v -R are options.
        let is_opt = |w: &&Word| {
            w.value.starts_with("--")
                || (w.value.len() > 1
                    && w.value.starts_with('-')
                    && w.value[1..].bytes().all(|b| b"cfvR".contains(&b)))
        };
        let recursive = inv.args.iter().filter(is_opt).any(|w| {
            w.value == "--recursive" || (!w.value.starts_with("--") && w.value.contains('R'))
        });
        let skip = usize::from(!inv.args.iter().any(|w| w.value.starts_with("--reference")));
        for w in inv.args.iter().filter(|w| !is_opt(w)).skip(skip) {
            e.emit(w, recursive, "chmod");
        }
        return;
    }
    let sp = match inv.name {
        "touch" => spec("drt", "--date --reference"),
        "mkdir" => spec("m", "--mode --context"),
        "truncate" => spec("sr", "--size --reference"),
        "shred" => spec("ns", "--iterations --size"),
        "ed" => spec("p", "--prompt"),
        "ex" => spec("cSuiTwW", ""),
        _ => spec("", ""),
    };
    let a = parse_opts(inv.args, &sp);
    let tree = inv.name == "rm" && a.has(&["-r", "-R", "--recursive"]);
    a.operands.iter().for_each(|w| e.emit(w, tree, inv.name));
}

fn rule_dd(e: &mut Eval, inv: &Inv<'_>) {
    for w in inv.args {
        if let Some(out) = strip_word(w, "of=") {
            e.write(&out, "dd of=");
        } else if let Some(input) = strip_word(w, "if=") {
            e.read(&input);
        }
    }
}

const PATCH_SPEC: OptSpec = spec(
    "iodpBDFgrVYz",
    "--input --output --directory --strip --prefix --ifdef --fuzz --get --reject-file \
        --version-control --basename-prefix --suffix",
);

fn rule_patch(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &PATCH_SPEC);
    if a.has(&["--dry-run"]) {
        return;
    }
    e.in_dir(a.value(&["-d", "--directory"]), |e| {
        a.values(&["-i", "--input"])
            .chain(a.operands.get(1).copied())
            .for_each(|w| e.read(w));
        match (a.value(&["-o", "--output"]), a.operands.first().copied()) {
            (Some(out), _) | (None, Some(out)) => e.write(out, "patch"),
            (None, None) => e.write_tree(&here(), "patch"),
        }
    });
}

const GIT_SPEC: OptSpec = stop_spec("Cc", "--git-dir --work-tree --namespace --config-env");

fn rule_git(e: &mut Eval, inv: &Inv<'_>) {
    let g = parse_opts(inv.args, &GIT_SPEC);
    let Some((sub, rest)) = inv.args.get(g.end..).and_then(<[Word]>::split_first) else {
        return;
    };
    let saved = e.cwd.clone();
    for dir in g.values(&["-C"]) {
        e.cwd = e.cwd_after(dir);
    }
    git_subcommand(e, &sub.value, rest);
    e.cwd = saved;
}

fn git_subcommand(e: &mut Eval, sub: &str, rest: &[Word]) {
    let via = format!("git {sub}");
    let tree = |e: &mut Eval| e.write_tree(&here(), &via);
    match sub {
        "am" | "merge" | "pull" | "rebase" | "cherry-pick" | "revert" | "switch" => tree(e),
        "apply" => {
            let a = parse_opts(rest, &spec("pC", ""));
            let report_only =
                a.has(&["--check", "--stat", "--numstat", "--summary"]) && !a.has(&["--apply"]);
            a.operands.iter().for_each(|p| e.read(p));
            if !report_only && !a.has(&["--cached"]) {
                tree(e);
            }
        }
        "stash" => {
            let (cmd, args) = match rest.first() {
                Some(w) if !w.value.starts_with('-') => (w.value.as_str(), &rest[1..]),
                _ => ("push", rest),
            };
            let a = parse_opts(args, &spec("m", "--message --pathspec-from-file"));
            match cmd {
                "push" if !a.operands.is_empty() => {
                    a.operands.iter().for_each(|p| e.write(p, &via))
                }
                "push" | "save" | "pop" | "apply" | "branch" => tree(e),
                _ => {}
            }
        }
        "checkout" => {
            let a = parse_opts(rest, &spec("bB", "--orphan"));
            match (a.dashdash, a.operands.as_slice()) {
                (Some(dd), ops) => ops
                    .get(dd..)
                    .unwrap_or_default()
                    .iter()
                    .for_each(|p| e.write(p, &via)),
                (None, []) => {}
                (None, [_]) => tree(e),
                (None, [_, paths @ ..]) if !a.has(&["-b", "-B", "--orphan"]) => {
                    paths.iter().for_each(|p| e.write(p, &via))
                }
                (None, _) => tree(e),
            }
        }
        "restore" => {
            let a = parse_opts(rest, &spec("s", "--source --pathspec-from-file"));
            if !a.has(&["-S", "--staged"]) || a.has(&["-W", "--worktree"]) {
                a.operands.iter().for_each(|p| e.write(p, &via));
            }
        }
        "reset"
            if rest
                .iter()
                .any(|w| matches!(w.value.as_str(), "--hard" | "--keep" | "--merge")) =>
        {
            tree(e)
        }
        "clean" => {
            let a = parse_opts(rest, &spec("e", "--exclude"));
            if a.has(&["-f", "--force"]) && !a.has(&["-n", "--dry-run"]) {
                if a.operands.is_empty() {
                    tree(e);
                }
                a.operands.iter().for_each(|p| e.write_tree(p, &via));
            }
        }
        "mv" => parse_opts(rest, &spec("", ""))
            .operands
            .iter()
            .for_each(|p| e.write(p, &via)),
        "rm" => {
            let a = parse_opts(rest, &spec("", "--pathspec-from-file"));
            if !a.has(&["--cached", "-n", "--dry-run"]) {
                a.operands
                    .iter()
                    .for_each(|p| e.emit(p, a.has(&["-r"]), &via));
            }
        }
        "clone" => {
            let a = parse_opts(
                rest,
                &spec(
                    "obcuj",
                    "--origin --branch --config --upload-pack --jobs --depth --reference \
        --separate-git-dir --template --filter",
                ),
            );
            match a.operands.as_slice() {
                [url] => {
                    let trimmed = Word {
                        value: url
                            .value
                            .trim_end_matches('/')
                            .trim_end_matches(".git")
                            .to_string(),
                        ..(*url).clone()
                    };
                    let mut dest = url_file(&trimmed);
                    if dest.value.is_empty() {
                        dest.value = trimmed
                            .value
                            .rsplit([':', '/'])
                            .next()
                            .unwrap_or_default()
                            .to_string();
                        dest.dynamic = url.dynamic || dest.value.is_empty();
                    }
                    e.write_tree(&dest, &via);
                }
                [_, dest, ..] => e.write_tree(dest, &via),
                [] => {}
            }
        }
        "worktree" if rest.first().is_some_and(|w| w.value == "add") => {
            let a = parse_opts(&rest[1..], &spec("bB", "--reason"));
            a.operands
                .first()
                .iter()
                .for_each(|p| e.write_tree(p, &via));
        }
        _ => {}
    }
}

const CURL_SPEC: OptSpec = spec(
    "AbcCdDeEFHKmoPQrTuUwxXyYzt",
    "--output --output-dir --dump-header --cookie-jar --data --data-raw --data-binary \
        --data-urlencode --data-ascii --header --user-agent --request --user --url \
        --cookie --form --form-string --max-time --connect-timeout --retry --proxy \
        --referer --upload-file --cacert --cert --key --config --write-out --range \
        --resolve --json --oauth2-bearer --variable --trace --trace-ascii --stderr \
        --max-filesize --limit-rate --retry-delay --retry-max-time --interface --proto \
        --proto-redir",
);

fn rule_curl(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &CURL_SPEC);
    for w in a.values(&[
        "-D",
        "--dump-header",
        "-c",
        "--cookie-jar",
        "--trace",
        "--trace-ascii",
        "--stderr",
    ]) {
        e.write(w, "curl");
    }
    e.in_dir(a.value(&["--output-dir"]), |e| {
        a.values(&["-o", "--output"])
            .for_each(|w| e.write(w, "curl -o"));
        if a.has(&["-O", "--remote-name", "--remote-name-all"]) {
            a.operands
                .iter()
                .copied()
                .chain(a.values(&["--url"]))
                .for_each(|u| e.write(&url_file(u), "curl -O"));
        }
    });
}

const WGET_SPEC: OptSpec = spec(
    "OoaPeUtTwQlARiBDIX",
    "--output-document --output-file --append-output --directory-prefix --execute \
        --user-agent --tries --timeout --wait --quota --level --accept --reject \
        --input-file --base --domains --include-directories --exclude-directories \
        --header --post-data --post-file --user --password --load-cookies --save-cookies \
        --referer",
);

fn rule_wget(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &WGET_SPEC);
    for w in a.values(&[
        "-o",
        "--output-file",
        "-a",
        "--append-output",
        "--save-cookies",
    ]) {
        e.write(w, "wget -o");
    }
    if let Some(doc) = a.value(&["-O", "--output-document"]) {
        return e.write(doc, "wget -O");
    }
    let recursive = a.has(&["-r", "--recursive", "-m", "--mirror"]);
    e.in_dir(a.value(&["-P", "--directory-prefix"]), |e| {
        if recursive {
            return e.write_tree(&here(), "wget -r");
        }
        a.operands
            .iter()
            .for_each(|u| e.write(&url_file(u), "wget"));
    });
}

const TAR_SPEC: OptSpec = spec(
    "fCTXbHVgNKL",
    "--file --directory --files-from --exclude-from --exclude --transform --owner \
        --group --mode --format --label --newer --to-command --use-compress-program \
        --strip-components --blocking-factor",
);

fn rule_tar(e: &mut Eval, inv: &Inv<'_>) {
    let mut args = inv.args.to_vec();
    // Old style: `tar xzf a.tgz` is `tar -xzf a.tgz`.
    if let Some(first) = args
        .first_mut()
        .filter(|w| !w.value.is_empty() && w.value.bytes().all(|b| b.is_ascii_alphabetic()))
    {
        first.value.insert(0, '-');
    }
    let a = parse_opts(&args, &TAR_SPEC);
    let file = a.value(&["-f", "--file"]);
    if a.has(&["-x", "--extract", "--get"]) {
        file.iter().for_each(|f| e.read(f));
        e.write_tree(a.value(&["-C", "--directory"]).unwrap_or(&here()), "tar -x");
    }
    if a.has(&[
        "-c",
        "--create",
        "-r",
        "--append",
        "-u",
        "--update",
        "-A",
        "--catenate",
        "--concatenate",
        "--delete",
    ]) {
        file.iter().for_each(|f| e.write(f, "tar -c"));
    }
}

fn rule_unzip(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &spec("dP", ""));
    if a.has(&["-l", "-t", "-p", "-v", "-Z", "-z"]) {
        return;
    }
    a.operands.first().iter().for_each(|z| e.read(z));
    e.write_tree(a.value(&["-d"]).unwrap_or(&here()), "unzip");
}

const RSYNC_SPEC: OptSpec = spec(
    "efBTM",
    "--rsh --filter --exclude --include --exclude-from --include-from --files-from \
        --log-file --temp-dir --partial-dir --backup-dir --suffix --chmod --chown \
        --compare-dest --copy-dest --link-dest --rsync-path --password-file --timeout \
        --bwlimit --max-size --min-size --port --out-format --info --debug",
);
const SCP_SPEC: OptSpec = spec("cFiJlOoPS", "");

fn rule_rsync(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(
        inv.args,
        if inv.name == "rsync" {
            &RSYNC_SPEC
        } else {
            &SCP_SPEC
        },
    );
    let [_, .., dest] = a.operands.as_slice() else {
        return;
    };
    let remote = dest.value.starts_with("rsync://")
        || dest
            .value
            .split_once(':')
            .is_some_and(|(host, _)| !host.is_empty() && !host.contains('/'));
    if !remote && !a.has(&["-n", "--dry-run"]) {
        e.emit(
            dest,
            a.has(&["-r", "-a", "--recursive", "--archive"]),
            inv.name,
        );
    }
}

const PYTHON_SPEC: OptSpec = stop_spec("cmWXQ", "--check-hash-based-pycs");
const NODE_SPEC: OptSpec = stop_spec("epr", "--eval --print --require --import");
const PHP_SPEC: OptSpec = stop_spec("rfdcBREFtz", "");

fn rule_interpreter(e: &mut Eval, inv: &Inv<'_>) {
    let (sp, code_flags, script_flags): (&OptSpec, &[&str], &[&str]) = match inv.name {
        "python" => (&PYTHON_SPEC, &["-c"], &["-m"]),
        "node" => (&NODE_SPEC, &["-e", "--eval", "-p", "--print"], &[]),
        _ => (&PHP_SPEC, &["-r", "-B", "-R", "-E"], &["-f"]),
    };
    let a = parse_opts(inv.args, sp);
    let mut code_given = false;
    for (flag, code) in a
        .flags
        .iter()
        .filter(|(f, _)| code_flags.contains(&f.as_str()))
    {
        code_given = true;
        if let Some(code) = code {
            scan_code(e, &code.value, &format!("{} {flag}", inv.name));
        }
    }
    if code_given || a.has(script_flags) {
        return;
    }
    if let (None | Some("-"), Some(stdin)) =
        (a.operands.first().map(|w| w.value.as_str()), inv.stdin)
    {
        scan_code(e, stdin, &format!("{} stdin", inv.name));
    }
}

const SHELL_SPEC: OptSpec = stop_spec("oO", "--rcfile --init-file");

fn rule_shell(e: &mut Eval, inv: &Inv<'_>) {
    if inv.name == "eval" {
        let text: Vec<&str> = inv.args.iter().map(|w| w.value.as_str()).collect();
        return e.run_text(&text.join(" "));
    }
    let a = parse_opts(inv.args, &SHELL_SPEC);
    if a.has(&["-c"]) {
        a.operands
            .first()
            .iter()
            .for_each(|cmd| e.run_text(&cmd.value));
    } else if let (true, Some(stdin)) = (a.operands.is_empty() || a.has(&["-s"]), inv.stdin) {
        e.run_text(stdin);
    }
}

fn rule_find(e: &mut Eval, inv: &Inv<'_>) {
    let args = inv.args;
    let mut i = 0;
    while let Some(w) = args.get(i) {
        match w.value.as_str() {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            v if v.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    i = i.min(args.len());
    let start = i;
    while args
        .get(i)
        .is_some_and(|w| !w.value.starts_with('-') && !matches!(w.value.as_str(), "(" | "!" | ","))
    {
        i += 1;
    }
    let roots = if i > start {
        args[start..i].to_vec()
    } else {
        vec![here()]
    };
    roots.iter().for_each(|r| e.read_as(r, true));
    let expr = args.get(i..).unwrap_or_default();
    let mut k = 0;
    while let Some(w) = expr.get(k) {
        let v = w.value.as_str();
        match v {
            "-delete" => roots.iter().for_each(|r| e.write_tree(r, "find -delete")),
            "-fprint" | "-fprint0" | "-fls" | "-fprintf" => {
                k += 1;
                expr.get(k)
                    .iter()
                    .for_each(|f| e.write(f, &format!("find {v}")));
            }
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let end = expr[k + 1..]
                    .iter()
                    .position(|w| matches!(w.value.as_str(), ";" | "+"))
                    .map_or(expr.len(), |p| k + 1 + p);
                let inner: Vec<Word> = expr[k + 1..end]
                    .iter()
                    .map(|w| Word {
                        dynamic: w.dynamic || w.value.contains("{}"),
                        ..w.clone()
                    })
                    .collect();
                let sub = e.capture(|e| e.invoke(&inner, None));
                e.out.reads.extend(sub.reads);
                for write in sub.writes {
                    let via = format!("find {v} {}", write.via);
                    match write.target {
                        BashTarget::Dynamic(d) if d.contains("{}") => {
                            roots.iter().for_each(|r| e.write_tree(r, &via))
                        }
                        target => e.out.writes.push(BashWrite { target, via }),
                    }
                }
                k = end;
            }
            _ => {}
        }
        k += 1;
    }
}

const GREP_SPEC: OptSpec = spec(
    "efmABCdD",
    "--regexp --file --max-count --after-context --before-context --context \
        --directories --devices --label --group-separator",
);
const RG_SPEC: OptSpec = spec(
    "eftgTAmBCjMrEd",
    "--regexp --file --type --glob --iglob --type-not --max-count --after-context \
        --before-context --context --threads --max-columns --replace --encoding \
        --max-depth --sort --sortr --colors --type-add --type-clear --pre --pre-glob \
        --ignore-file --max-filesize --path-separator --context-separator --engine",
);
const AG_SPEC: OptSpec = spec(
    "GgABCmp",
    "--ignore --ignore-dir --depth --file-search-regex --after --before --context \
        --max-count --path-to-ignore --pager",
);

fn rule_grep(e: &mut Eval, inv: &Inv<'_>) {
    let recursive_tool = matches!(inv.name, "rg" | "ag" | "ack");
    let a = parse_opts(
        inv.args,
        match inv.name {
            "rg" => &RG_SPEC,
            "ag" | "ack" => &AG_SPEC,
            _ => &GREP_SPEC,
        },
    );
    if inv.name != "ag" {
        a.values(&["-f", "--file"]).for_each(|f| e.read(f));
    }
    let no_pattern = a.has(&["-e", "--regexp", "-f", "--file", "--files"])
        || (inv.name == "ag" && a.has(&["-g"]));
    let paths = a
        .operands
        .get(usize::from(!no_pattern)..)
        .unwrap_or_default();
    let tree = recursive_tool || a.has(&["-r", "-R", "--recursive", "--dereference-recursive"]);
    if paths.is_empty() && tree {
        e.read_as(&here(), true);
    }
    paths.iter().for_each(|p| e.read_as(p, tree));
}

fn rule_ls(e: &mut Eval, inv: &Inv<'_>) {
    let val = if inv.name == "tree" { "LIPo" } else { "ITw" };
    let long = "--ignore --hide --format --sort --time-style --width --tabsize --block-size --time";
    let a = parse_opts(inv.args, &spec(val, long));
    if inv.name == "tree" {
        a.values(&["-o"]).for_each(|o| e.write(o, "tree -o"));
    }
    if a.operands.is_empty() {
        e.read_as(&here(), true);
    }
    a.operands.iter().for_each(|p| e.read_as(p, true));
}

fn rule_read(e: &mut Eval, inv: &Inv<'_>) {
    let sp = match inv.name {
        "head" | "tail" => spec(
            "nc",
            "--lines --bytes --pid --sleep-interval --max-unchanged-stats",
        ),
        "bat" => spec(
            "lLHmr",
            "--language --line-range --highlight-line --style --theme --map-syntax \
        --file-name --tabs --wrap --terminal-width --pager",
        ),
        "sort" => spec(
            "oktST",
            "--output --key --field-separator --buffer-size --temporary-directory --parallel \
        --batch-size --compress-program",
        ),
        "cut" => spec(
            "bcdf",
            "--bytes --characters --delimiter --fields --output-delimiter",
        ),
        "nl" => spec("bdfhilnsvw", ""),
        "less" => spec("bhjkopPtTxyz", ""),
        "file" => spec("emfFP", ""),
        "stat" => spec("c", "--format --printf"),
        "diff" => spec(
            "CUxXILFSW",
            "--unified --context --exclude --exclude-from --ignore-matching-lines --label \
        --starting-file --width --to-file --from-file --tabsize",
        ),
        _ => spec("", ""),
    };
    let a = parse_opts(inv.args, &sp);
    if inv.name == "sort" {
        a.values(&["-o", "--output"])
            .for_each(|o| e.write(o, "sort -o"));
    }
    a.operands.iter().for_each(|p| e.read(p));
}

// ---------------------------------------------------------------------------------------------
// Interpreter code (python -c, node -e, perl -e, ruby -e, php -r, awk programs)
// ---------------------------------------------------------------------------------------------

/// What a recognised call in interpreter code does.
#[derive(Debug, Clone, Copy)]
enum Call {
    /// These positional arguments are written paths.
    Write(&'static [usize]),
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
}

/// Calls recognised in interpreter code; the first matching row wins. Pattern forms: `name` a bare
/// call, `a.b` a qualified call (also with a longer qualification), `.name` a method on any
/// receiver, `*name` bare or with any receiver. Bare names also match Perl's parenless form
/// (`unlink "f"`, `open F, ">f"`).
const CALLS: &[(&str, Call)] = &[
    (
        "*writeFileSync *writeFile *appendFileSync *appendFile *createWriteStream \
         *unlinkSync *rmSync *rmdirSync *mkdirSync *truncateSync *file_put_contents \
         fs.unlink fs.rm fs.rmdir fs.mkdir fs.truncate os.remove os.unlink os.rmdir \
         os.mkdir os.makedirs os.truncate shutil.rmtree File.write IO.write \
         File.delete File.unlink FileUtils.rm FileUtils.rm_f FileUtils.rm_rf \
         FileUtils.touch FileUtils.mkdir_p unlink mkdir rmdir touch",
        Call::Write(&[0]),
    ),
    (
        "*renameSync fs.rename os.rename os.replace shutil.move File.rename \
         FileUtils.mv rename",
        Call::Write(&[0, 1]),
    ),
    (
        "*copyFileSync *cpSync fs.copyFile shutil.copy shutil.copyfile shutil.copy2 \
         shutil.copytree FileUtils.cp FileUtils.cp_r copy",
        Call::Write(&[1]),
    ),
    ("open io.open codecs.open File.open *fopen", Call::Open),
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
    (".rename .replace", Call::RecvMove),
    (
        "os.system os.popen subprocess.run subprocess.call subprocess.check_call \
         subprocess.check_output subprocess.Popen *execSync child_process.exec system \
         shell_exec passthru",
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

/// Scans interpreter code for the calls in [`CALLS`]; targets are reported with `via`.
fn scan_code(e: &mut Eval, code: &str, via: &str) {
    let toks = code_tokens(code);
    let pair = brackets(&toks);
    for j in 0..toks.len() {
        let CTok::Ident(name) = toks[j].tok else {
            continue;
        };
        let after_dot = j > 0 && matches!(toks[j - 1].tok, CTok::Punct(b'.'));
        let Some(&(_, call)) = CALLS.iter().find(|(pats, _)| {
            pats.split_whitespace()
                .any(|p| call_matches(name, after_dot, p))
        }) else {
            continue;
        };
        let (args, end) = match toks.get(j + 1).map(|t| &t.tok) {
            // An unbalanced call is a syntax error: the interpreter runs nothing.
            Some(CTok::Punct(b'(')) if pair[j + 1] != usize::MAX => {
                paren_args(&toks, &pair, j + 1, code)
            }
            Some(CTok::Str { .. } | CTok::Ident(_)) if !after_dot && !name.contains('.') => {
                bare_args(&toks, &pair, j + 1, code)
            }
            _ => continue,
        };
        let snippet = Word::synthetic(code.get(toks[j].start..end).unwrap_or(name), true);
        let positional: Vec<&CArg<'_>> = args.iter().filter(|a| a.kw.is_none()).collect();
        let kw = |k: &str| args.iter().find(|a| a.kw == Some(k));
        let writes_mode = |m: Option<&CArg<'_>>| m.and_then(CArg::lit).is_some_and(is_write_mode);
        match call {
            Call::Write(indexes) => {
                for &i in indexes {
                    e.write(
                        &positional
                            .get(i)
                            .map_or_else(|| snippet.clone(), |a| a.word()),
                        via,
                    );
                }
            }
            Call::Read => positional.first().iter().for_each(|a| e.read(&a.word())),
            Call::Open => open_call(e, &positional, kw("file"), kw("mode"), via),
            Call::RecvWrite | Call::RecvOpen | Call::RecvRead | Call::RecvMove => {
                let recv =
                    path_receiver(&toks, &pair, j, name, code).map(|p| Word::synthetic(&p, false));
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
            Call::Shell => {
                let Some(cmd) = positional.first() else {
                    continue;
                };
                if let Some(text) = cmd.lit() {
                    e.run_text(text);
                } else if cmd.raw.starts_with('[') {
                    // argv list: literal strings quoted, anything else as a variable.
                    let argv: Vec<String> = toks[cmd.toks.0..cmd.toks.1]
                        .iter()
                        .filter_map(|t| match &t.tok {
                            CTok::Str {
                                value,
                                dynamic: false,
                            } => Some(format!("'{}'", value.replace('\'', r"'\''"))),
                            CTok::Punct(b'[' | b']' | b',') => None,
                            _ => Some("\"$arg\"".to_string()),
                        })
                        .collect();
                    e.run_text(&argv.join(" "));
                }
            }
        }
    }
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
    if first.string.is_none() {
        // Perl 3-arg: open(FH, '>', $path).
        if let (Some(mode), Some(path)) = (second.and_then(CArg::lit), pos.get(2)) {
            let m = mode.split(':').next().unwrap_or_default().trim();
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
            } else if !t.starts_with('|') && !t.ends_with('|') {
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

/// awk output redirection in a program: `print … > "file"` / `>> "file"`.
fn scan_awk(e: &mut Eval, program: &str) {
    let toks = code_tokens(program);
    let mut in_print = false;
    let mut k = 0;
    while let Some(t) = toks.get(k) {
        match t.tok {
            CTok::Ident("print" | "printf") => in_print = true,
            CTok::Punct(b';' | b'{' | b'}' | b'\n') => in_print = false,
            CTok::Punct(b'>') if in_print => {
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

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use expect_test::{Expect, expect};
    use proptest::prelude::*;

    use super::*;

    fn render(t: &BashTarget) -> String {
        match t {
            BashTarget::Path(p) => format!("path {p}"),
            BashTarget::Tree(p) => format!("tree {p}"),
            BashTarget::Dynamic(p) => format!("dynamic {p}"),
        }
    }

    /// Table-driven snapshot: each command (`$ …`, newlines shown as `\n`), then one line per
    /// write (`write <kind> <value> (<via>)`) and per read.
    fn check(commands: &[&str], expect: Expect) {
        let mut s = String::new();
        for cmd in commands {
            writeln!(s, "$ {}", cmd.replace('\n', "\\n")).unwrap();
            let a = analyze(cmd);
            for w in &a.writes {
                writeln!(s, "  write {} ({})", render(&w.target), w.via).unwrap();
            }
            for r in &a.reads {
                writeln!(s, "  read {}", render(r)).unwrap();
            }
        }
        expect.assert_eq(&s);
    }

    #[test]
    fn redirections() {
        check(
            &[
                "echo hi > out.txt",
                "echo hi >out.txt",
                "echo hi >> log",
                "echo hi >| f",
                "make &> build.log",
                "make &>> build.log",
                "cmd 2> err.txt 1>out.txt",
                "cmd 2>>err.txt",
                "exec 3<> rw.bin",
                "cmd >&all.log",
                "echo x > 'my file.txt'",
                r#"echo x > "dir/a b.txt""#,
                "echo x > $OUT",
                "echo x > \"$DIR/f\"",
                "echo x > ~/notes",
                "echo x > /tmp/abs",
                "echo a2>f",
                "{ echo a; echo b; } > both.txt",
                "(cd sub && cat a) > out",
                "> truncated",
                "sed 's/a/b/' in.txt > out.txt && git diff > changes.patch",
                "cat > f.py << EOF\nx = 1\nEOF",
                "echo x > f1 > f2",
            ],
            expect![[r#"
                $ echo hi > out.txt
                  write path out.txt (redirect >)
                $ echo hi >out.txt
                  write path out.txt (redirect >)
                $ echo hi >> log
                  write path log (redirect >>)
                $ echo hi >| f
                  write path f (redirect >|)
                $ make &> build.log
                  write path build.log (redirect &>)
                $ make &>> build.log
                  write path build.log (redirect &>>)
                $ cmd 2> err.txt 1>out.txt
                  write path err.txt (redirect 2>)
                  write path out.txt (redirect 1>)
                $ cmd 2>>err.txt
                  write path err.txt (redirect 2>>)
                $ exec 3<> rw.bin
                  write path rw.bin (redirect 3<>)
                $ cmd >&all.log
                  write path all.log (redirect >&)
                $ echo x > 'my file.txt'
                  write path my file.txt (redirect >)
                $ echo x > "dir/a b.txt"
                  write path dir/a b.txt (redirect >)
                $ echo x > $OUT
                  write dynamic $OUT (redirect >)
                $ echo x > "$DIR/f"
                  write dynamic "$DIR/f" (redirect >)
                $ echo x > ~/notes
                  write dynamic ~/notes (redirect >)
                $ echo x > /tmp/abs
                  write path /tmp/abs (redirect >)
                $ echo a2>f
                  write path f (redirect >)
                $ { echo a; echo b; } > both.txt
                  write path both.txt (redirect >)
                $ (cd sub && cat a) > out
                  write path out (redirect >)
                  read path sub/a
                $ > truncated
                  write path truncated (redirect >)
                $ sed 's/a/b/' in.txt > out.txt && git diff > changes.patch
                  write path out.txt (redirect >)
                  write path changes.patch (redirect >)
                  read path in.txt
                $ cat > f.py << EOF\nx = 1\nEOF
                  write path f.py (redirect >)
                $ echo x > f1 > f2
                  write path f1 (redirect >)
                  write path f2 (redirect >)
            "#]],
        );
    }

    #[test]
    fn heredocs_and_herestrings() {
        check(
            &[
                "cat > notes.md <<'EOF'\n# Title\nrm -rf / > x\nEOF",
                "cat <<EOF > src/a.rs\nfn main() {}\nEOF\necho done > d",
                "tee out.txt <<EOF\nhello $(whoami)\nEOF",
                "cat > f <<EOF\n$(touch inner)\nEOF",
                "cat > f <<'EOF'\n$(touch inner)\nEOF",
                "cat <<-EOF > g\n\tbody 'unbalanced\n\tEOF\necho after > h",
                "cat > a <<A; cat > b <<B\none\nA\ntwo\nB\necho 3 > c",
                "grep x <<< 'hello > not_a_file'",
                "git commit -m \"$(cat <<'EOF'\nFix the user's bug > nothing\nEOF\n)\" && echo ok > done.txt",
                "bash <<'EOF'\ncd sub\necho hi > f\nEOF",
                "sh <<< 'rm -f junk'",
                "cat <<EOF",
            ],
            expect![[r#"
                $ cat > notes.md <<'EOF'\n# Title\nrm -rf / > x\nEOF
                  write path notes.md (redirect >)
                $ cat <<EOF > src/a.rs\nfn main() {}\nEOF\necho done > d
                  write path src/a.rs (redirect >)
                  write path d (redirect >)
                $ tee out.txt <<EOF\nhello $(whoami)\nEOF
                  write path out.txt (tee)
                $ cat > f <<EOF\n$(touch inner)\nEOF
                  write path f (redirect >)
                  write path inner (touch)
                $ cat > f <<'EOF'\n$(touch inner)\nEOF
                  write path f (redirect >)
                $ cat <<-EOF > g\n	body 'unbalanced\n	EOF\necho after > h
                  write path g (redirect >)
                  write path h (redirect >)
                $ cat > a <<A; cat > b <<B\none\nA\ntwo\nB\necho 3 > c
                  write path a (redirect >)
                  write path b (redirect >)
                  write path c (redirect >)
                $ grep x <<< 'hello > not_a_file'
                $ git commit -m "$(cat <<'EOF'\nFix the user's bug > nothing\nEOF\n)" && echo ok > done.txt
                  write path done.txt (redirect >)
                $ bash <<'EOF'\ncd sub\necho hi > f\nEOF
                  write path sub/f (redirect >)
                $ sh <<< 'rm -f junk'
                  write path junk (rm)
                $ cat <<EOF
            "#]],
        );
    }

    #[test]
    fn file_commands() {
        check(
            &[
                "tee -a log.txt out.txt",
                "echo x | tee /dev/null",
                "sed -i 's/a/b/' src/main.rs src/lib.rs",
                "sed -i.bak -e 's/a/b/' -e 's/c/d/' f.txt",
                "sed -i '' 's/a/b/' mac.txt",
                "sed --in-place=.orig -f script.sed target.txt",
                "sed -ni 's/x/y/p' f",
                "perl -pi -e 's/foo/bar/g' a.txt b.txt",
                "perl -i.bak -pe 's/x/y/' c.txt",
                "ruby -pi -e 'gsub(/a/, \"b\")' r.txt",
                "awk -i inplace '{print $1}' data.csv",
                "awk '{print > \"out.txt\"}' in.txt",
                "awk -F, '$3 > 5 {print $1 >> \"big_\" $2}' in.csv",
                "cp a.txt b.txt",
                "cp -r src/ backup/",
                "cp -t dest/ a b c",
                "mv old.rs new.rs",
                "mv a b --target-directory=dir",
                "install -m 755 build/tool bin/tool",
                "install -d out/a out/b",
                "ln -sf ../target/release/app bin/app",
                "ln -s /opt/tool",
                "rm -f a.o b.o",
                "rm -rf target/ node_modules",
                "rmdir empty && unlink link && shred -n 3 secret",
                "touch -d yesterday stamp && mkdir -p a/b/c && truncate -s 0 log",
                "chmod +x script.sh && chmod -R 755 bin && chmod -x other.sh",
                "chown user file && chgrp staff file",
                "dd if=/dev/zero of=disk.img bs=1M count=1",
                "sort -o sorted.txt input.txt",
                "ed -s config.ini <<'EOF'\n1d\nw\nEOF",
            ],
            expect![[r#"
                $ tee -a log.txt out.txt
                  write path log.txt (tee -a)
                  write path out.txt (tee -a)
                $ echo x | tee /dev/null
                $ sed -i 's/a/b/' src/main.rs src/lib.rs
                  write path src/main.rs (sed -i)
                  write path src/lib.rs (sed -i)
                $ sed -i.bak -e 's/a/b/' -e 's/c/d/' f.txt
                  write path f.txt (sed -i)
                $ sed -i '' 's/a/b/' mac.txt
                  write path mac.txt (sed -i)
                $ sed --in-place=.orig -f script.sed target.txt
                  write path target.txt (sed -i)
                  read path script.sed
                $ sed -ni 's/x/y/p' f
                  write path f (sed -i)
                $ perl -pi -e 's/foo/bar/g' a.txt b.txt
                  write path a.txt (perl -i)
                  write path b.txt (perl -i)
                $ perl -i.bak -pe 's/x/y/' c.txt
                  write path c.txt (perl -i)
                $ ruby -pi -e 'gsub(/a/, "b")' r.txt
                  write path r.txt (ruby -i)
                $ awk -i inplace '{print $1}' data.csv
                  write path data.csv (awk -i inplace)
                $ awk '{print > "out.txt"}' in.txt
                  write path out.txt (awk print >)
                  read path in.txt
                $ awk -F, '$3 > 5 {print $1 >> "big_" $2}' in.csv
                  write dynamic "big_" $2 (awk print >>)
                  read path in.csv
                $ cp a.txt b.txt
                  write path b.txt (cp)
                $ cp -r src/ backup/
                  write path backup/ (cp)
                $ cp -t dest/ a b c
                  write path dest/ (cp)
                $ mv old.rs new.rs
                  write path old.rs (mv)
                  write path new.rs (mv)
                $ mv a b --target-directory=dir
                  write path a (mv)
                  write path b (mv)
                  write path dir (mv)
                $ install -m 755 build/tool bin/tool
                  write path bin/tool (install)
                $ install -d out/a out/b
                  write path out/a (install)
                  write path out/b (install)
                $ ln -sf ../target/release/app bin/app
                  write path bin/app (ln)
                $ ln -s /opt/tool
                  write path tool (ln)
                $ rm -f a.o b.o
                  write path a.o (rm)
                  write path b.o (rm)
                $ rm -rf target/ node_modules
                  write tree target/ (rm)
                  write tree node_modules (rm)
                $ rmdir empty && unlink link && shred -n 3 secret
                  write path empty (rmdir)
                  write path link (unlink)
                  write path secret (shred)
                $ touch -d yesterday stamp && mkdir -p a/b/c && truncate -s 0 log
                  write path stamp (touch)
                  write path a/b/c (mkdir)
                  write path log (truncate)
                $ chmod +x script.sh && chmod -R 755 bin && chmod -x other.sh
                  write path script.sh (chmod)
                  write tree bin (chmod)
                  write path other.sh (chmod)
                $ chown user file && chgrp staff file
                $ dd if=/dev/zero of=disk.img bs=1M count=1
                  write path disk.img (dd of=)
                  read path /dev/zero
                $ sort -o sorted.txt input.txt
                  write path sorted.txt (sort -o)
                  read path input.txt
                $ ed -s config.ini <<'EOF'\n1d\nw\nEOF
                  write path config.ini (ed)
            "#]],
        );
    }

    #[test]
    fn patch_and_git() {
        check(
            &[
                "patch -p1 < fix.diff",
                "patch src/a.c fix.patch",
                "patch -d sub -p1 -i ../fix.patch",
                "patch --dry-run -p1 < fix.diff",
                "git apply fix.patch",
                "git apply --check fix.patch",
                "git -C sub apply ../fix.patch",
                "git am < mbox",
                "git stash && git stash pop",
                "git stash list; git stash show -p; git stash drop",
                "git stash push -m wip -- src/a.rs",
                "git checkout -- src/a.rs src/b.rs",
                "git checkout HEAD~1 -- Cargo.toml",
                "git checkout main",
                "git checkout HEAD src/x.rs",
                "git checkout -b feature",
                "git restore src/a.rs && git restore --staged src/b.rs",
                "git reset --hard HEAD && git reset HEAD~1",
                "git clean -fdx && git clean -n",
                "git clean -f build/",
                "git mv a.rs b.rs && git rm old.rs && git rm --cached keep.rs",
                "git merge origin/main; git pull; git rebase main; git cherry-pick abc; git revert HEAD",
                "git switch -c new-branch",
                "git clone https://github.com/org/repo.git && git clone git@host:o/r.git dest",
                "git worktree add ../wt feature",
                "git --no-pager -c color.ui=never status",
            ],
            expect![[r#"
                $ patch -p1 < fix.diff
                  write tree . (patch)
                  read path fix.diff
                $ patch src/a.c fix.patch
                  write path src/a.c (patch)
                  read path fix.patch
                $ patch -d sub -p1 -i ../fix.patch
                  write tree sub (patch)
                  read path fix.patch
                $ patch --dry-run -p1 < fix.diff
                  read path fix.diff
                $ git apply fix.patch
                  write tree . (git apply)
                  read path fix.patch
                $ git apply --check fix.patch
                  read path fix.patch
                $ git -C sub apply ../fix.patch
                  write tree sub (git apply)
                  read path fix.patch
                $ git am < mbox
                  write tree . (git am)
                  read path mbox
                $ git stash && git stash pop
                  write tree . (git stash)
                $ git stash list; git stash show -p; git stash drop
                $ git stash push -m wip -- src/a.rs
                  write path src/a.rs (git stash)
                $ git checkout -- src/a.rs src/b.rs
                  write path src/a.rs (git checkout)
                  write path src/b.rs (git checkout)
                $ git checkout HEAD~1 -- Cargo.toml
                  write path Cargo.toml (git checkout)
                $ git checkout main
                  write tree . (git checkout)
                $ git checkout HEAD src/x.rs
                  write path src/x.rs (git checkout)
                $ git checkout -b feature
                $ git restore src/a.rs && git restore --staged src/b.rs
                  write path src/a.rs (git restore)
                $ git reset --hard HEAD && git reset HEAD~1
                  write tree . (git reset)
                $ git clean -fdx && git clean -n
                  write tree . (git clean)
                $ git clean -f build/
                  write tree build/ (git clean)
                $ git mv a.rs b.rs && git rm old.rs && git rm --cached keep.rs
                  write path a.rs (git mv)
                  write path b.rs (git mv)
                  write path old.rs (git rm)
                $ git merge origin/main; git pull; git rebase main; git cherry-pick abc; git revert HEAD
                  write tree . (git merge)
                  write tree . (git pull)
                  write tree . (git rebase)
                  write tree . (git cherry-pick)
                  write tree . (git revert)
                $ git switch -c new-branch
                  write tree . (git switch)
                $ git clone https://github.com/org/repo.git && git clone git@host:o/r.git dest
                  write tree repo (git clone)
                  write tree dest (git clone)
                $ git worktree add ../wt feature
                  write tree ../wt (git worktree)
                $ git --no-pager -c color.ui=never status
            "#]],
        );
    }

    #[test]
    fn downloads_and_archives() {
        check(
            &[
                "curl -sSL -o out.json https://x.test/a.json",
                "curl -O https://x.test/dl/tool.tar.gz?sig=1",
                "curl -H 'Accept: x' -o - https://x.test",
                "curl --output-dir dl -O https://x.test/f.zip",
                "curl -s https://x.test/api",
                "wget -O page.html https://x.test/",
                "wget -q https://x.test/pkg/file.deb",
                "wget -P downloads https://x.test/a.bin",
                "wget -r -np https://x.test/docs/",
                "wget -qO- https://x.test/install.sh | sh",
                "tar -xzf archive.tgz",
                "tar xvf a.tar -C vendor",
                "tar --extract --file=a.tar --directory=out",
                "tar -czf backup.tgz src/",
                "tar -tzf a.tgz",
                "unzip -o pkg.zip -d vendor/pkg",
                "unzip -l pkg.zip",
                "rsync -av src/ backup/",
                "rsync -av src/ host:/srv/app",
                "scp host:/etc/hosts ./hosts.copy",
                "scp -P 22 file.txt user@host:/tmp/",
            ],
            expect![[r#"
                $ curl -sSL -o out.json https://x.test/a.json
                  write path out.json (curl -o)
                $ curl -O https://x.test/dl/tool.tar.gz?sig=1
                  write dynamic https://x.test/dl/tool.tar.gz?sig=1 (curl -O)
                $ curl -H 'Accept: x' -o - https://x.test
                $ curl --output-dir dl -O https://x.test/f.zip
                  write path dl/f.zip (curl -O)
                $ curl -s https://x.test/api
                $ wget -O page.html https://x.test/
                  write path page.html (wget -O)
                $ wget -q https://x.test/pkg/file.deb
                  write path file.deb (wget)
                $ wget -P downloads https://x.test/a.bin
                  write path downloads/a.bin (wget)
                $ wget -r -np https://x.test/docs/
                  write tree . (wget -r)
                $ wget -qO- https://x.test/install.sh | sh
                $ tar -xzf archive.tgz
                  write tree . (tar -x)
                  read path archive.tgz
                $ tar xvf a.tar -C vendor
                  write tree vendor (tar -x)
                  read path a.tar
                $ tar --extract --file=a.tar --directory=out
                  write tree out (tar -x)
                  read path a.tar
                $ tar -czf backup.tgz src/
                  write path backup.tgz (tar -c)
                $ tar -tzf a.tgz
                $ unzip -o pkg.zip -d vendor/pkg
                  write tree vendor/pkg (unzip)
                  read path pkg.zip
                $ unzip -l pkg.zip
                $ rsync -av src/ backup/
                  write tree backup/ (rsync)
                $ rsync -av src/ host:/srv/app
                $ scp host:/etc/hosts ./hosts.copy
                  write path ./hosts.copy (scp)
                $ scp -P 22 file.txt user@host:/tmp/
            "#]],
        );
    }

    #[test]
    fn interpreters() {
        check(
            &[
                "python3 -c \"open('out.txt', 'w').write('x')\"",
                "python -c 'open(\"log\", mode=\"a\")'",
                "python3 -c \"print(open('README.md').read())\"",
                "python3 -c \"from pathlib import Path; Path('a/b.py').write_text('x')\"",
                "python3 -c \"import pathlib; p = pathlib.Path(x); p.write_text('y')\"",
                "python3 -c \"import os, shutil; os.remove('x'); shutil.copy('a', 'b'); s.replace('a', 'b')\"",
                "python3 -c \"open(f'{d}/out', 'w')\"",
                "python3 -c \"import subprocess; subprocess.run(['rm', '-f', 'gone.txt']); subprocess.run(['rm', p])\"",
                "python3 -c \"import os; os.system('sed -i s/a/b/ conf.ini')\"",
                "python3 - <<'EOF'\nimport json\nwith open('data.json', 'w') as f:\n    json.dump({}, f)\nEOF",
                "python3 <<EOF\nprint(open('/dev/null', 'w'))\nEOF",
                "python3 script.py --out x.txt",
                "python3 -m http.server",
                "node -e \"require('fs').writeFileSync('pkg.json', '{}')\"",
                "node -e \"const fs = require('fs'); fs.appendFileSync(`${dir}/log`, 'x'); fs.readFileSync('in.txt')\"",
                "node --eval \"fs.unlink('old.js', () => {})\"",
                "perl -e 'open(F, \">out.txt\") or die; print F 1'",
                "perl -e 'open(my $fh, \">>\", \"log.txt\"); open(my $in, \"<\", \"in.txt\"); unlink \"gone\"'",
                "perl -e 'open F, \">$file\"'",
                "ruby -e 'File.write(\"r.txt\", \"x\"); File.read(\"in.rb\")'",
                "ruby -e 'File.open(\"a.txt\", \"w\") { |f| f << 1 }'",
                "php -r 'file_put_contents(\"out.php\", \"<?php\"); $h = fopen(\"log\", \"a\");'",
                "python3 -c \"from pathlib import Path; Path('o.txt').open('w'); Path('i.txt').open()\"",
                "python3 -c \"open(p, mode)\"; ruby -e 'URI.open(\"http://www.example.com\")'",
                "python3 -c \"import zipfile; zipfile.ZipFile('a.zip').open(name); open('x', encoding='utf-8')\"",
                "php -r 'echo file_get_contents(\"composer.json\");'",
            ],
            expect![[r#"
                $ python3 -c "open('out.txt', 'w').write('x')"
                  write path out.txt (python -c)
                $ python -c 'open("log", mode="a")'
                  write path log (python -c)
                $ python3 -c "print(open('README.md').read())"
                  read path README.md
                $ python3 -c "from pathlib import Path; Path('a/b.py').write_text('x')"
                  write path a/b.py (python -c)
                $ python3 -c "import pathlib; p = pathlib.Path(x); p.write_text('y')"
                  write dynamic p.write_text('y') (python -c)
                $ python3 -c "import os, shutil; os.remove('x'); shutil.copy('a', 'b'); s.replace('a', 'b')"
                  write path x (python -c)
                  write path b (python -c)
                $ python3 -c "open(f'{d}/out', 'w')"
                  write dynamic f'{d}/out' (python -c)
                $ python3 -c "import subprocess; subprocess.run(['rm', '-f', 'gone.txt']); subprocess.run(['rm', p])"
                  write path gone.txt (rm)
                  write dynamic "$arg" (rm)
                $ python3 -c "import os; os.system('sed -i s/a/b/ conf.ini')"
                  write path conf.ini (sed -i)
                $ python3 - <<'EOF'\nimport json\nwith open('data.json', 'w') as f:\n    json.dump({}, f)\nEOF
                  write path data.json (python stdin)
                $ python3 <<EOF\nprint(open('/dev/null', 'w'))\nEOF
                $ python3 script.py --out x.txt
                $ python3 -m http.server
                $ node -e "require('fs').writeFileSync('pkg.json', '{}')"
                  write path pkg.json (node -e)
                $ node -e "const fs = require('fs'); fs.appendFileSync(`${dir}/log`, 'x'); fs.readFileSync('in.txt')"
                  write dynamic `${dir}/log` (node -e)
                  read path in.txt
                $ node --eval "fs.unlink('old.js', () => {})"
                  write path old.js (node --eval)
                $ perl -e 'open(F, ">out.txt") or die; print F 1'
                  write path out.txt (perl -e)
                $ perl -e 'open(my $fh, ">>", "log.txt"); open(my $in, "<", "in.txt"); unlink "gone"'
                  write path log.txt (perl -e)
                  write path gone (perl -e)
                  read path in.txt
                $ perl -e 'open F, ">$file"'
                  write dynamic $file (perl -e)
                $ ruby -e 'File.write("r.txt", "x"); File.read("in.rb")'
                  write path r.txt (ruby -e)
                  read path in.rb
                $ ruby -e 'File.open("a.txt", "w") { |f| f << 1 }'
                  write path a.txt (ruby -e)
                $ php -r 'file_put_contents("out.php", "<?php"); $h = fopen("log", "a");'
                  write path out.php (php -r)
                  write path log (php -r)
                $ python3 -c "from pathlib import Path; Path('o.txt').open('w'); Path('i.txt').open()"
                  write path o.txt (python -c)
                  read path i.txt
                $ python3 -c "open(p, mode)"; ruby -e 'URI.open("http://www.example.com")'
                  write dynamic p (python -c)
                $ python3 -c "import zipfile; zipfile.ZipFile('a.zip').open(name); open('x', encoding='utf-8')"
                  read path x
                $ php -r 'echo file_get_contents("composer.json");'
                  read path composer.json
            "#]],
        );
    }

    #[test]
    fn structure() {
        check(
            &[
                "cd sub && echo x > f",
                "cd sub; cd ../other && touch g",
                "cd /abs/dir && rm x",
                "cd $D && rm x && rm /abs",
                "cd && touch h; cd - && touch i",
                "(cd sub && touch a); touch b",
                "{ cd sub; touch a; }; touch b",
                "pushd sub && touch a && popd && touch b",
                "echo $(cd sub && touch a) && touch b",
                "x=`touch tick` ; echo `sed -i s/a/b/ f`",
                "diff <(sort a) >(tee out.txt)",
                "true || rm a; false && rm b | tee c & touch d\ntouch e",
                "sudo -u root tee /etc/conf",
                "env A=1 B=2 sed -i s/x/y/ f",
                "FOO=bar BAZ=\"q x\" touch f",
                "nice -n 10 timeout 5s nohup command time rm x",
                "command -v rm",
                "exec > log.txt 2>&1",
                "/usr/bin/python3.12 -c \"open('p', 'w')\"",
                "find . -name '*.o' | xargs rm",
                "ls *.txt | xargs -I{} cp {} backup/",
                "git ls-files | xargs sed -i 's/a/b/'",
                "find src -name '*.rs' -exec sed -i 's/a/b/' {} \\;",
                "find . -name '*.tmp' -delete",
                "find a b -type f -exec cp {} out/ +",
                "find . -fprint list.txt",
                "bash -c 'cd sub && echo x > f' && echo y > g",
                "sh -ec \"rm -f 'a b'\"",
                "eval 'touch e1' \"&& touch e2\"",
                "if [ -f x ]; then rm x; else touch x; fi",
                "for f in *.rs; do sed -i 's/a/b/' \"$f\"; done",
                "while read l; do echo $l >> out; done < in.txt",
                "case $x in a) rm a;; b) touch b;; esac",
                "[[ $a > $b ]] && echo yes",
                "(( i > 3 )) && touch big",
                "f() { touch inside; }; f",
                "echo $(( 1 > 2 )) > arith",
            ],
            expect![[r#"
                $ cd sub && echo x > f
                  write path sub/f (redirect >)
                $ cd sub; cd ../other && touch g
                  write path other/g (touch)
                $ cd /abs/dir && rm x
                  write path /abs/dir/x (rm)
                $ cd $D && rm x && rm /abs
                  write dynamic $D/x (rm)
                  write path /abs (rm)
                $ cd && touch h; cd - && touch i
                  write dynamic ~/h (touch)
                  write dynamic $OLDPWD/i (touch)
                $ (cd sub && touch a); touch b
                  write path sub/a (touch)
                  write path b (touch)
                $ { cd sub; touch a; }; touch b
                  write path sub/a (touch)
                  write path sub/b (touch)
                $ pushd sub && touch a && popd && touch b
                  write path sub/a (touch)
                  write path b (touch)
                $ echo $(cd sub && touch a) && touch b
                  write path sub/a (touch)
                  write path b (touch)
                $ x=`touch tick` ; echo `sed -i s/a/b/ f`
                  write path tick (touch)
                  write path f (sed -i)
                $ diff <(sort a) >(tee out.txt)
                  write path out.txt (tee)
                  read path a
                $ true || rm a; false && rm b | tee c & touch d\ntouch e
                  write path a (rm)
                  write path b (rm)
                  write path c (tee)
                  write path d (touch)
                  write path e (touch)
                $ sudo -u root tee /etc/conf
                  write path /etc/conf (tee)
                $ env A=1 B=2 sed -i s/x/y/ f
                  write path f (sed -i)
                $ FOO=bar BAZ="q x" touch f
                  write path f (touch)
                $ nice -n 10 timeout 5s nohup command time rm x
                  write path x (rm)
                $ command -v rm
                $ exec > log.txt 2>&1
                  write path log.txt (redirect >)
                $ /usr/bin/python3.12 -c "open('p', 'w')"
                  write path p (python -c)
                $ find . -name '*.o' | xargs rm
                  write dynamic <xargs input> (xargs rm)
                  read tree .
                $ ls *.txt | xargs -I{} cp {} backup/
                  write path backup/ (xargs cp)
                $ git ls-files | xargs sed -i 's/a/b/'
                  write dynamic <xargs input> (xargs sed -i)
                $ find src -name '*.rs' -exec sed -i 's/a/b/' {} \;
                  write tree src (find -exec sed -i)
                  read tree src
                $ find . -name '*.tmp' -delete
                  write tree . (find -delete)
                  read tree .
                $ find a b -type f -exec cp {} out/ +
                  write path out/ (find -exec cp)
                  read tree a
                  read tree b
                $ find . -fprint list.txt
                  write path list.txt (find -fprint)
                  read tree .
                $ bash -c 'cd sub && echo x > f' && echo y > g
                  write path sub/f (redirect >)
                  write path g (redirect >)
                $ sh -ec "rm -f 'a b'"
                  write path a b (rm)
                $ eval 'touch e1' "&& touch e2"
                  write path e1 (touch)
                  write path e2 (touch)
                $ if [ -f x ]; then rm x; else touch x; fi
                  write path x (rm)
                  write path x (touch)
                $ for f in *.rs; do sed -i 's/a/b/' "$f"; done
                  write dynamic "$f" (sed -i)
                $ while read l; do echo $l >> out; done < in.txt
                  write path out (redirect >>)
                  read path in.txt
                $ case $x in a) rm a;; b) touch b;; esac
                  write path a (rm)
                  write path b (touch)
                $ [[ $a > $b ]] && echo yes
                $ (( i > 3 )) && touch big
                  write path big (touch)
                $ f() { touch inside; }; f
                  write path inside (touch)
                $ echo $(( 1 > 2 )) > arith
                  write path arith (redirect >)
            "#]],
        );
    }

    #[test]
    fn quoting() {
        check(
            &[
                r#"echo "a \"quoted\" > fake" > real"#,
                "echo 'single > fake' > \"dq file\"",
                "echo x > $'ansi\\x41.txt'",
                "touch a\\ b.txt",
                "touch first \\\n  second",
                "echo x > {a,b}.txt",
                "touch out/*.rs",
                "echo x # > commented",
                "echo a#b > hash#name",
                "echo 'unterminated > x",
                "echo \"unterminated > y",
                "echo $(unterminated > z",
            ],
            expect![[r#"
                $ echo "a \"quoted\" > fake" > real
                  write path real (redirect >)
                $ echo 'single > fake' > "dq file"
                  write path dq file (redirect >)
                $ echo x > $'ansi\x41.txt'
                  write path ansiA.txt (redirect >)
                $ touch a\ b.txt
                  write path a b.txt (touch)
                $ touch first \\n  second
                  write path first (touch)
                  write path second (touch)
                $ echo x > {a,b}.txt
                  write dynamic {a,b}.txt (redirect >)
                $ touch out/*.rs
                  write dynamic out/*.rs (touch)
                $ echo x # > commented
                $ echo a#b > hash#name
                  write path hash#name (redirect >)
                $ echo 'unterminated > x
                $ echo "unterminated > y
                $ echo $(unterminated > z
                  write path z (redirect >)
            "#]],
        );
    }

    #[test]
    fn reads() {
        check(
            &[
                "cat src/main.rs | head -20",
                "head -n 50 a.rs && tail -f log && less b && more c && bat -l rs d.rs",
                "nl x.rs; wc -l y.rs z.rs",
                "sed -n '1,20p' src/lib.rs",
                "grep -n 'fn main' src/main.rs src/lib.rs",
                "grep -rn TODO src tests",
                "grep -e foo -e bar file.txt",
                "rg -n 'struct Foo' -g '*.rs' crates/",
                "rg pattern",
                "ag needle lib",
                "awk -F: '{print $1}' /etc/passwd data.txt",
                "diff -u old.rs new.rs",
                "ls -la src docs",
                "ls",
                "cd core && cat Cargo.toml",
                "wc -l < input.txt",
                "cat $F *.rs",
            ],
            expect![[r#"
                $ cat src/main.rs | head -20
                  read path src/main.rs
                $ head -n 50 a.rs && tail -f log && less b && more c && bat -l rs d.rs
                  read path a.rs
                  read path log
                  read path b
                  read path c
                  read path d.rs
                $ nl x.rs; wc -l y.rs z.rs
                  read path x.rs
                  read path y.rs
                  read path z.rs
                $ sed -n '1,20p' src/lib.rs
                  read path src/lib.rs
                $ grep -n 'fn main' src/main.rs src/lib.rs
                  read path src/main.rs
                  read path src/lib.rs
                $ grep -rn TODO src tests
                  read tree src
                  read tree tests
                $ grep -e foo -e bar file.txt
                  read path file.txt
                $ rg -n 'struct Foo' -g '*.rs' crates/
                  read tree crates/
                $ rg pattern
                  read tree .
                $ ag needle lib
                  read tree lib
                $ awk -F: '{print $1}' /etc/passwd data.txt
                  read path /etc/passwd
                  read path data.txt
                $ diff -u old.rs new.rs
                  read path old.rs
                  read path new.rs
                $ ls -la src docs
                  read tree src
                  read tree docs
                $ ls
                  read tree .
                $ cd core && cat Cargo.toml
                  read path core/Cargo.toml
                $ wc -l < input.txt
                  read path input.txt
                $ cat $F *.rs
            "#]],
        );
    }

    #[test]
    fn not_writes() {
        for cmd in [
            "echo hi",
            "ls > /dev/null",
            "cmd 2>&1",
            "cmd 2>/dev/null >&2",
            "cmd >&- 3>&1-",
            "grep x f",
            "git status",
            "git diff",
            "git log --oneline -5",
            "git add -A && git commit -m 'msg > x'",
            "cargo test",
            "sed -n 1p f",
            "cat f | head",
            "echo x > /dev/stderr; echo y &> /dev/fd/3",
            "",
            "   ",
            "# only a comment > x",
        ] {
            let a = analyze(cmd);
            assert_eq!(a.writes, Vec::new(), "{cmd:?}");
        }
    }

    #[test]
    fn serialises_with_kind_and_value() {
        let a = analyze("echo x > f");
        let json = serde_json::to_string(&a).unwrap();
        expect![[
            r#"{"writes":[{"target":{"kind":"path","value":"f"},"via":"redirect >"}],"reads":[]}"#
        ]]
        .assert_eq(&json);
    }

    #[test]
    fn deep_nesting_is_reported_not_overflowed() {
        let too_deep = |cmd: &str| {
            analyze(cmd)
                .writes
                .iter()
                .any(|w| w.via.ends_with("nesting too deep"))
        };
        assert!(too_deep(&format!(
            "{}touch x{}",
            "$(".repeat(200),
            ")".repeat(200)
        )));
        assert!(too_deep(&"xargs ".repeat(100_000)));
        assert!(too_deep(&format!("{}touch x", "eval ".repeat(1_000))));
        assert!(!too_deep(&format!(
            "{}touch x{}",
            "$(".repeat(5),
            ")".repeat(5)
        )));
        for deep in [
            "(".repeat(100_000),
            "{ ".repeat(100_000),
            "$(".repeat(100_000),
            "`".repeat(100_000),
        ] {
            let _ = analyze(&deep);
        }
    }

    proptest! {
        #[test]
        fn never_panics(s in any::<String>()) {
            let _ = analyze(&s);
        }

        #[test]
        fn never_panics_on_shell_soup(s in "[a-z0-9 <>|&;()'\"$`\\\\\n{}*=.~#-]{0,80}") {
            let _ = analyze(&s);
        }

        #[test]
        fn never_panics_on_command_soup(words in proptest::collection::vec(
            proptest::sample::select(vec![
                "find", "-D", "-exec", "-delete", "{}", ";", "+", "xargs", "-I", "-i", "git", "-C",
                "checkout", "--", "stash", "clone", "tar", "xzf", "-C", "-f", "sed", "-i", "''", "-e",
                "cd", "..", "-", "$X", "python3", "-c", "'open(\"f\", \"w\")'", "perl", "-pi", "-e",
                "open", "(", ")", "<<", "EOF", "\n", "bash", "sh", "-c", "eval", "sudo", "env", "A=1",
                "timeout", "cp", "-t", "mv", "ln", "rm", "-rf", "curl", "-O", "-o", "wget", "-P",
                "patch", "-d", "unzip", "-d", "rsync", "a:b", "awk", "'{print > \"x\"}'", ">", "2>&1",
                "|", "&&", "`", "$(", "\"", "'", "tee", "chmod", "-R", "dd", "of=", "node", "-e",
            ]),
            0..24,
        )) {
            let _ = analyze(&words.join(" "));
        }

        #[test]
        fn plain_redirect_found_after_harmless_prefix(
            prefix in proptest::collection::vec(
                prop_oneof![
                    Just("echo hi"), Just("ls -la"), Just("git status"), Just("cat a | head -3"),
                    Just("grep -rn x src"), Just("(true)"), Just("{ pwd; }"), Just("echo 'a; b' \"c > d\""),
                    Just("cat <<'EOF'\nbody > nope\nEOF\ntrue"), Just("x=$(date)"), Just("[[ 1 > 0 ]]"),
                ],
                0..6,
            ),
            sep in prop_oneof![Just("; "), Just(" && "), Just(" || "), Just("\n"), Just(" & ")],
            file in "[a-z][a-z0-9_./]{0,12}",
        ) {
            let mut cmd = prefix.join(sep);
            if !cmd.is_empty() {
                cmd.push_str(sep);
            }
            cmd.push_str(&format!("echo x > {file}"));
            let a = analyze(&cmd);
            prop_assert!(
                a.writes.iter().any(|w| w.target == BashTarget::Path(file.clone()) && w.via == "redirect >"),
                "{cmd:?} -> {a:?}"
            );
        }
    }
}
