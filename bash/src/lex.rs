//! The lexer: Bash command text to words, operators and redirections (with heredoc bodies and
//! the token lists of `$(…)`, backticks and `<(…)`), following the Bash quoting rules.

use super::MAX_DEPTH;

/// One shell word. `value` has quotes removed but expansions kept as written (`$X`, `$(…)`).
#[derive(Debug, Clone, Default)]
pub(super) struct Word {
    pub(super) value: String,
    pub(super) raw: String,
    /// Contains an expansion, glob, brace expansion or leading `~`.
    pub(super) dynamic: bool,
    /// Contains any quoting (a quoted heredoc delimiter disables expansion in the body).
    pub(super) quoted: bool,
    /// Token lists of the `$(…)`, backtick and `<(…)` substitutions inside the word.
    pub(super) substs: Vec<Vec<Tok>>,
}

impl Word {
    pub(super) fn synthetic(value: &str, dynamic: bool) -> Word {
        Word {
            value: value.to_string(),
            raw: value.to_string(),
            dynamic,
            ..Word::default()
        }
    }
}

#[derive(Debug, Clone)]
pub(super) enum Tok {
    Word(Word),
    /// `;` `;;` `&&` `||` `|` `|&` `&` `(` `)` or `"\n"`.
    Op(&'static str),
    Redir(Redir),
}

#[derive(Debug, Clone)]
pub(super) struct Redir {
    /// The file descriptor digits before the operator, usually empty.
    pub(super) fd: String,
    pub(super) op: &'static str,
    pub(super) target: Word,
    /// Heredoc body or here-string text: what the command reads on stdin.
    pub(super) body: Option<String>,
}

enum Lexed {
    Word(Word),
    /// Digits directly followed by `<` or `>`: a redirection's file descriptor.
    Fd(String),
}

const REDIR_OPS: [&str; 12] = [
    "&>>", "&>", "<<<", "<<-", "<<", "<>", "<&", ">>", ">|", ">&", "<", ">",
];

pub(super) struct Lexer<'a> {
    s: &'a [u8],
    pos: usize,
    depth: usize,
    /// Set when nesting exceeded [`MAX_DEPTH`] and input was skipped.
    pub(super) overflow: bool,
}

pub(super) fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn is_blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r')
}

impl<'a> Lexer<'a> {
    pub(super) fn new(s: &'a [u8], depth: usize) -> Self {
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
    pub(super) fn list(&mut self, close: bool) -> Vec<Tok> {
        let mut toks = Vec::new();
        let mut pending: Vec<(usize, bool)> = Vec::new();
        let mut parens = 0usize;
        // Open `case` statements: the `)` after a pattern does not close a `$( … )`.
        let mut cases = 0usize;
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
                b'(' if self.at(1) == Some(b'(') && command_start(&toks) => {
                    // `(( … ))`: arithmetic, but a `$( … )` inside it runs. The substitutions
                    // ride on a `:` command so that they are evaluated like any other.
                    let mut w = Word::synthetic(":", false);
                    self.skip_balanced(b'(', b')', &mut w);
                    w.dynamic = false;
                    if !w.substs.is_empty() {
                        toks.push(Tok::Word(w));
                    }
                }
                b'(' => {
                    self.pos += 1;
                    parens += 1;
                    toks.push(Tok::Op("("));
                }
                b')' => {
                    self.pos += 1;
                    if close && parens == 0 && cases == 0 {
                        return toks;
                    }
                    parens = parens.saturating_sub(1);
                    toks.push(Tok::Op(")"));
                }
                b'<' | b'>' | b'&' if self.at(1) != Some(b'(') => {
                    self.redirect(String::new(), &mut toks, &mut pending)
                }
                _ => match self.word() {
                    Lexed::Word(w) => {
                        let after_in = matches!(toks.last(), Some(Tok::Word(p)) if p.value == "in" && !p.quoted);
                        if !w.quoted && w.value == "case" && command_start(&toks) {
                            cases += 1;
                        } else if !w.quoted
                            && w.value == "esac"
                            && cases > 0
                            && (command_start(&toks) || after_in)
                        {
                            cases -= 1;
                        }
                        toks.push(Tok::Word(w));
                    }
                    Lexed::Fd(fd) => self.redirect(fd, &mut toks, &mut pending),
                },
            }
        }
        toks
    }

    /// Skips a balanced `open … close` region starting at the current `open` (arithmetic
    /// `(( … ))`, `$(( … ))`, a parameter expansion `${ … }`), keeping what runs inside it: each
    /// `$( … )`, `<( … )`, `>( … )` and `` ` … ` `` becomes a substitution of `w`
    /// (`${x:-$(cmd)}`, `$(( $(cmd) + 1 ))` run `cmd`).
    fn skip_balanced(&mut self, open: u8, close: u8, w: &mut Word) {
        let mut depth = 0usize;
        while let Some(c) = self.at(0) {
            match c {
                b'$' | b'<' | b'>' if self.at(1) == Some(b'(') && self.at(2) != Some(b'(') => {
                    self.pos += 2;
                    let toks = self.nested();
                    w.substs.push(toks);
                    w.dynamic = true;
                    continue;
                }
                b'`' => {
                    let mut scratch = Vec::new();
                    self.backtick(w, &mut scratch);
                    continue;
                }
                b'\\' => {
                    self.pos = (self.pos + 2).min(self.s.len());
                    continue;
                }
                _ => {}
            }
            self.pos += 1;
            if c == open {
                depth += 1;
            } else if c == close {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return;
                }
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
                b'(' if !w.quoted && !w.dynamic && assignment_name(&val) => {
                    // `NAME=(…)`, `NAME+=(…)`: an array assignment, one word. Its elements are
                    // words, not commands; the substitutions in them run.
                    self.pos += 1;
                    let toks = self.nested();
                    for tok in toks {
                        if let Tok::Word(inner) = tok {
                            w.substs.extend(inner.substs);
                        }
                    }
                    w.dynamic = true;
                    val.extend_from_slice(b"(...)");
                }
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
                self.skip_balanced(b'(', b')', w);
            }
            Some(b'(') => {
                self.pos += 2;
                let toks = self.nested();
                w.substs.push(toks);
            }
            Some(b'{') => {
                self.pos += 1;
                self.skip_balanced(b'{', b'}', w);
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
                        b'a' => val.push(0x07),
                        b'b' => val.push(0x08),
                        b'f' => val.push(0x0c),
                        b'v' => val.push(0x0b),
                        // `\NNN`: one to three octal digits (`$'\163ed'` is `sed`).
                        b'0'..=b'7' => {
                            let mut v = u32::from(n - b'0');
                            for _ in 0..2 {
                                match self.at(0) {
                                    Some(d @ b'0'..=b'7') => {
                                        v = v * 8 + u32::from(d - b'0');
                                        self.pos += 1;
                                    }
                                    _ => break,
                                }
                            }
                            val.push((v & 0xff) as u8);
                        }
                        // `\uHHHH`, `\UHHHHHHHH`: a Unicode character, as UTF-8.
                        b'u' | b'U' => {
                            let max = if n == b'u' { 4 } else { 8 };
                            let hex: Vec<u8> = self.s[self.pos..]
                                .iter()
                                .copied()
                                .take(max)
                                .take_while(u8::is_ascii_hexdigit)
                                .collect();
                            self.pos += hex.len();
                            let ch = std::str::from_utf8(&hex)
                                .ok()
                                .and_then(|h| u32::from_str_radix(h, 16).ok())
                                .and_then(char::from_u32);
                            match ch {
                                Some(ch) => {
                                    let mut buf = [0u8; 4];
                                    val.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                                }
                                None => val.push(n),
                            }
                        }
                        // `\cX`: the control character.
                        b'c' => match self.at(0) {
                            Some(x) => {
                                self.pos += 1;
                                val.push(x & 0x1f);
                            }
                            None => val.push(n),
                        },
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

/// Whether `val` is `NAME=` or `NAME+=` (what an array assignment's `(` follows).
fn assignment_name(val: &[u8]) -> bool {
    let Some(name) = val.strip_suffix(b"=") else {
        return false;
    };
    let name = name.strip_suffix(b"+").unwrap_or(name);
    !name.is_empty()
        && !name[0].is_ascii_digit()
        && name.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
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
