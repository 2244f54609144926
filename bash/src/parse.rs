//! The parser: tokens to a flat list of simple commands with enter/exit marks for `( … )`
//! subshells and `{ …; }` groups; compound-command keywords are skipped.

use super::lex::{Redir, Tok, Word};

#[derive(Debug, Default)]
pub(super) struct Cmd {
    pub(super) words: Vec<Word>,
    pub(super) redirs: Vec<Redir>,
    /// The command reads a pipe (it follows `|` or `|&`).
    pub(super) piped: bool,
}

#[derive(Debug)]
pub(super) enum Event {
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
/// Reserved words whose header (up to the next operator) is not a command; its words are kept
/// as the arguments of a `:` command, so that a substitution in them (`for i in $(cmd)`) runs.
const HEADERS: [&str; 3] = ["for", "select", "case"];

/// Where the parser is inside a `case … in … esac`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Case {
    /// `case WORD` before `in`.
    Header,
    /// Patterns, up to the `)` that ends them (after `in` and after each `;;`, `;&`, `;;&`).
    Patterns,
    /// The commands of one clause.
    Body,
}

pub(super) fn parse(toks: Vec<Tok>) -> Vec<Event> {
    let mut p = Parser::default();
    let mut toks = toks.into_iter().peekable();
    let mut header = false;
    // `function NAME`: the next word is a name, not a command.
    let mut name_next = false;
    // Open `case` statements, innermost last. Patterns are not commands: their words ride on a
    // `:` command (a substitution in them runs), `|` between them is no pipe.
    let mut cases: Vec<Case> = Vec::new();
    while let Some(tok) = toks.next() {
        match (cases.last().copied(), &tok) {
            (Some(Case::Header), Tok::Word(w)) if !w.quoted && w.value == "in" => {
                header = false;
                p.flush();
                *cases.last_mut().unwrap() = Case::Patterns;
                continue;
            }
            (Some(Case::Patterns), Tok::Word(w))
                if !w.quoted && w.value == "esac" && p.cur.words.len() <= 1 =>
            {
                p.cur = Cmd::default();
                cases.pop();
                continue;
            }
            (Some(Case::Patterns), Tok::Word(_)) => {
                if p.cur.words.is_empty() {
                    p.cur.words.push(Word::synthetic(":", false));
                }
                if let Tok::Word(w) = tok {
                    p.cur.words.push(w);
                }
                continue;
            }
            (Some(Case::Patterns), Tok::Op(")")) => {
                p.flush();
                *cases.last_mut().unwrap() = Case::Body;
                continue;
            }
            (Some(Case::Patterns), Tok::Op(_)) => continue,
            (Some(Case::Body), Tok::Op(";;" | ";&" | ";;&")) => {
                p.flush();
                *cases.last_mut().unwrap() = Case::Patterns;
                continue;
            }
            _ => {}
        }
        match tok {
            Tok::Word(_) if name_next => name_next = false,
            Tok::Word(w) if p.cur.words.is_empty() && !w.quoted && !header => {
                match w.value.as_str() {
                    "{" => p.enter(false),
                    "}" if p.open.last() == Some(&false) => p.exit(&mut toks),
                    "esac" => {
                        cases.pop();
                    }
                    v if KEYWORDS.contains(&v) => {}
                    v if HEADERS.contains(&v) => {
                        header = true;
                        if v == "case" {
                            cases.push(Case::Header);
                        }
                        p.cur.words.push(Word::synthetic(":", false));
                    }
                    "function" => name_next = true,
                    _ => p.cur.words.push(w),
                }
            }
            Tok::Word(w) => p.cur.words.push(w),
            // Inside `[[ … ]]` (before its closing `]]`) `<` and `>` compare strings: they are
            // words of the test; after it they are redirections of the command.
            Tok::Redir(r)
                if p.cur.words.first().is_some_and(|w| w.value == "[[")
                    && !p.cur.words.iter().any(|w| w.value == "]]") =>
            {
                p.cur.words.push(Word::synthetic(r.op, false));
                p.cur.words.push(r.target);
            }
            Tok::Redir(r) => p.cur.redirs.push(r),
            Tok::Op("(") => p.enter(true),
            Tok::Op(op) => {
                header = false;
                p.flush();
                p.cur.piped = op == "|" || op == "|&";
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
