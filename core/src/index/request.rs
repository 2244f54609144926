//! What a long request carries: the analysis of pasted issue texts, tracebacks, error messages
//! and code before they become a ranked query (docs/EVALUATION.md, "Long requests").
//!
//! A short request ("Fix scrolling when the sidebar is collapsed": one line, under
//! [`LONG_REQUEST_CHARS`]) is every word at weight 1, its first [`MAX_SHORT_WORDS`] distinct
//! words, as ranked search always took it. A long one (several lines, or a line of at least
//! [`LONG_REQUEST_CHARS`]) is read line by line and each word gets the weight of the most telling
//! part it occurs in ([`PartKind`], weights in [`RankParams`]'s `req_*` fields):
//!
//! - **frames** of stack traces ([`FRAME_PATTERNS`]: Python, JavaScript/Node, PHP, Java/Kotlin,
//!   Go, Rust): the file, the line and the function;
//! - **paths** written anywhere (`src/documents/views.py`, `views.py`, a GitHub `blob/<ref>/`
//!   link) and module names (`documents.views`, `Illuminate\Support\Str`), which also become
//!   [`Mention`]s that ranked search resolves to indexed files;
//! - **exceptions** (`ValueError`, `QueryException`) and the **message** after them or quoted;
//! - **code**: identifiers in fenced blocks, in backticks, or written as code in prose
//!   (`getUserName`, `get_queryset`, `Str::of`, `save()`);
//! - **commands** (`$ php artisan migrate`, `npm run build`);
//! - the **title**: the first line of prose (an issue's or a commit's subject);
//! - **prose**: the remaining content words, at a lower weight.
//!
//! Boilerplate is dropped: issue-template headings ([`TEMPLATE_HEADINGS`]: "Steps to
//! reproduce", "Expected behavior", ...), version and environment lines ("Laravel Version:
//! 11.2.0", "OS: Ubuntu"), checklists, commit trailers (`Co-authored-by:`), HTML comments,
//! images and URLs (a link to a file keeps its path), "Traceback (most recent call last)".
//! Numbers and one-letter words carry nothing in a long request and are dropped.
//!
//! A request is read up to [`MAX_REQUEST_BYTES`] (the MCP tools' input limit); when it has
//! more distinct words than [`RankParams::req_words`], ranked search keeps those with the
//! largest weight × IDF (`CodeIndex::search_candidates`).

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::lexical::QUERY_STOP_WORDS;
use super::rank::RankParams;

/// Bytes of a request that are analysed (8 KiB, the MCP tools' limit on a text argument); the
/// rest is ignored.
pub const MAX_REQUEST_BYTES: usize = 8 * 1024;

/// A one-line request shorter than this (in bytes) is short: its words are taken as they are.
pub const LONG_REQUEST_CHARS: usize = 200;

/// Distinct words of a short request that count (a pasted file must not become a query of
/// thousands of clauses; long requests are cut by weight × IDF instead).
pub const MAX_SHORT_WORDS: usize = 64;

/// Files a request may name (the first ones written count).
pub const MAX_MENTIONS: usize = 32;

/// The kind of part of a request a word comes from, most telling first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PartKind {
    /// A stack-trace frame: its file, line and function.
    Frame,
    /// A file path or module name written in the request.
    Path,
    /// An exception or error type.
    Exception,
    /// An error message (after an exception type, or quoted).
    Message,
    /// An identifier in a code block, in backticks, or written as code.
    Code,
    /// A command line.
    Command,
    /// The first line of prose: an issue's or a commit's title.
    Title,
    /// The remaining words of the prose.
    Prose,
}

impl PartKind {
    /// The name used in explanations (`frame`, `path`, ...).
    pub fn name(self) -> &'static str {
        match self {
            PartKind::Frame => "frame",
            PartKind::Path => "path",
            PartKind::Exception => "exception",
            PartKind::Message => "message",
            PartKind::Code => "code",
            PartKind::Command => "command",
            PartKind::Title => "title",
            PartKind::Prose => "prose",
        }
    }

    /// The weight `params` gives this kind of part (prose is the short request's 1 scaled by
    /// [`RankParams::req_prose`]).
    pub fn weight(self, params: &RankParams) -> f32 {
        match self {
            PartKind::Frame => params.req_frame,
            PartKind::Path => params.req_path,
            PartKind::Exception => params.req_exception,
            PartKind::Message => params.req_message,
            PartKind::Code => params.req_code,
            PartKind::Command => params.req_command,
            PartKind::Title => params.req_title,
            PartKind::Prose => params.req_prose,
        }
    }
}

/// One distinct word of an analysed request.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestWord {
    /// The word as first written (`getUserName`).
    pub text: String,
    /// The most telling part it occurs in (the one with the largest weight).
    pub part: PartKind,
    /// Its weight before the generic-word factor: the part's weight, times `1 + req_tf ×
    /// ln(occurrences)`.
    pub weight: f32,
    /// How often it occurs in the kept text.
    pub count: u32,
}

/// A file the request names: a path, a frame's file or a module name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    /// `/`-separated, lower-cased, without a leading `/`, `./`, drive or `a/`-`b/` diff prefix;
    /// for a module name, its components joined with `/` and no extension.
    pub path: String,
    /// Whether `path` carries its extension (a module name does not).
    pub has_extension: bool,
    /// [`PartKind::Frame`] or [`PartKind::Path`].
    pub part: PartKind,
    /// What the request wrote (`src/documents/views.py:123`, `documents.views`), for
    /// explanations.
    pub written: String,
}

impl Mention {
    /// Whether the repository-relative `file` is the file this mention names: `file` ends
    /// with the mention's path at a `/` boundary (a module name: with any extension), or the
    /// mention's path ends with `file` (an absolute path of a traceback). ASCII letters compare
    /// without case.
    pub fn names(&self, file: &str) -> bool {
        self.names_bytes(file.as_bytes())
    }

    /// [`Self::names`] of a path's bytes (as a term dictionary holds them; no allocation).
    pub fn names_bytes(&self, file: &[u8]) -> bool {
        let stem = if self.has_extension {
            file
        } else {
            let name_start = file.iter().rposition(|&b| b == b'/').map_or(0, |s| s + 1);
            match file.iter().rposition(|&b| b == b'.') {
                Some(dot) if dot > name_start => &file[..dot],
                _ => file,
            }
        };
        let path = self.path.as_bytes();
        ends_at_boundary(stem, path) || (self.has_extension && ends_at_boundary(path, stem))
    }
}

/// Whether `long` ends with `short` (ASCII case ignored) right after a `/` or as a whole.
fn ends_at_boundary(long: &[u8], short: &[u8]) -> bool {
    long.len() >= short.len()
        && long[long.len() - short.len()..].eq_ignore_ascii_case(short)
        && (long.len() == short.len() || long[long.len() - short.len() - 1] == b'/')
}

/// A request as ranked search reads it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Request {
    /// Whether it was analysed as a long request (see the module docs).
    pub long: bool,
    /// Its distinct words, in order of first occurrence (stop words and, for a long request,
    /// numbers and one-letter words left out).
    pub words: Vec<RequestWord>,
    /// The files it names, in order, without duplicates (long requests only).
    pub mentions: Vec<Mention>,
    /// Lines dropped as boilerplate.
    pub dropped_lines: usize,
}

/// One stack-trace frame syntax: a language and a pattern with the named groups `path`
/// (required), `line` and `func` (optional).
pub struct FramePattern {
    /// The language whose traces it reads (for the docs and tests).
    pub language: &'static str,
    /// The regular expression, matched against one line.
    pub pattern: &'static str,
}

/// The stack-trace frames recognised, one line each.
pub const FRAME_PATTERNS: &[FramePattern] = &[
    FramePattern {
        language: "python",
        pattern: r#"^\s*File "(?P<path>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>[\w<>.]+))?"#,
    },
    FramePattern {
        language: "php",
        pattern: r"^\s*#\d+ (?P<path>[^\s(]+\.php)\((?P<line>\d+)\): (?P<func>[\w\\]+(?:(?:->|::)\w+)?)",
    },
    FramePattern {
        language: "php",
        pattern: r"\b(?:in|at) (?P<path>[^\s:]+\.php)(?::| on line | line )(?P<line>\d+)",
    },
    FramePattern {
        language: "java",
        pattern: r"^\s*at (?P<func>[\w$.<>]+)\((?P<path>[\w$]+\.(?:java|kt|scala|groovy)):(?P<line>\d+)\)",
    },
    FramePattern {
        language: "javascript",
        pattern: r"^\s*at (?:async )?(?:(?P<func>[^\s()]+)(?: \[as [\w$]+\])? \()?(?:file://)?(?P<path>[^\s()]+?\.[A-Za-z]{1,5}):(?P<line>\d+)(?::\d+)?\)?\s*$",
    },
    FramePattern {
        language: "go",
        pattern: r"^\s*(?P<path>[^\s:]+\.go):(?P<line>\d+)(?: \+0x[0-9a-f]+)?\s*$",
    },
    FramePattern {
        language: "rust",
        pattern: r"(?:^\s*(?:at )?|panicked at )(?P<path>[^\s:']+\.rs):(?P<line>\d+)(?::\d+)?",
    },
    FramePattern {
        language: "rust",
        pattern: r"^\s*\d+: (?P<func>[\w<>]+(?:::[\w<>]+)+)",
    },
];

/// Headings of issue and pull-request templates: a line that says only this (after `#`, `*`,
/// `_`, `:` and case are removed) is dropped.
pub const TEMPLATE_HEADINGS: &[&str] = &[
    "steps to reproduce",
    "to reproduce",
    "how to reproduce",
    "reproduction",
    "reproduction steps",
    "expected behavior",
    "expected behaviour",
    "expected result",
    "expected results",
    "actual behavior",
    "actual behaviour",
    "actual result",
    "actual results",
    "current behavior",
    "current behaviour",
    "description",
    "bug description",
    "describe the bug",
    "bug report",
    "feature request",
    "environment",
    "version",
    "versions",
    "system info",
    "system information",
    "additional context",
    "additional information",
    "screenshots",
    "logs",
    "relevant log output",
    "checklist",
    "motivation",
    "summary",
    "what happened",
    "what happened?",
    "what did you expect to happen",
    "possible solution",
    "proposed solution",
    "type of change",
    "related issue",
    "related issues",
    "changes",
    "proposed changes",
    "notes",
];

/// Keys of environment and version lines (`OS: Ubuntu 22.04`, `Laravel Version: 11.2.0`): a
/// line `key: value` whose key, lower-cased, starts with one of these is dropped, and so is any
/// short `key: value` line whose value is a version number.
pub const ENVIRONMENT_KEYS: &[&str] = &[
    "os",
    "operating system",
    "browser",
    "platform",
    "installation method",
    "database",
    "version",
    "php version",
    "python version",
    "node version",
    "laravel version",
    "django version",
    "paperless-ngx version",
    "vite version",
    "package manager",
    "other",
];

/// Commit trailers and similar lines: dropped.
pub const TRAILERS: &[&str] = &[
    "co-authored-by",
    "signed-off-by",
    "reviewed-by",
    "acked-by",
    "tested-by",
    "reported-by",
    "suggested-by",
    "helped-by",
    "change-id",
    "cc",
];

/// Programs whose lines are commands (`npm run build`, `php artisan migrate`); a line starting
/// with `$ ` is one too.
pub const COMMANDS: &[&str] = &[
    "php",
    "artisan",
    "composer",
    "npm",
    "npx",
    "pnpm",
    "yarn",
    "node",
    "deno",
    "bun",
    "python",
    "python3",
    "pip",
    "pytest",
    "manage.py",
    "./manage.py",
    "django-admin",
    "celery",
    "docker",
    "docker-compose",
    "git",
    "vite",
    "cargo",
    "go",
    "make",
    "mvn",
    "gradle",
    "bundle",
    "rails",
    "rake",
];

/// File extensions a bare file name (`views.py`, no `/`) must have to count as a path.
const FILE_EXTENSIONS: &[&str] = &[
    "py", "php", "js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "cts", "vue", "svelte", "go", "rs",
    "java", "kt", "rb", "cs", "c", "h", "cc", "cpp", "hpp", "swift", "scala", "html", "css",
    "scss", "json", "yaml", "yml", "toml", "xml", "sql", "sh",
];

struct Patterns {
    frames: Vec<Regex>,
    path: Regex,
    module: Regex,
    namespace: Regex,
    exception: Regex,
    exception_line: Regex,
    quoted: Regex,
    backticks: Regex,
    url: Regex,
    blob: Regex,
    image: Regex,
    version_value: Regex,
}

static PATTERNS: LazyLock<Patterns> = LazyLock::new(|| {
    Patterns {
    frames: FRAME_PATTERNS
        .iter()
        .map(|p| Regex::new(p.pattern).expect("frame pattern is valid"))
        .collect(),
    path: Regex::new(
        r"(?:[A-Za-z]:)?(?:[\w.@~+-]*[/\\])+[\w.@+-]*\w\.[A-Za-z][\w]{0,5}\b|\b[\w-]+(?:\.[\w-]+)*\.[A-Za-z][a-z]{0,4}\b",
    )
    .expect("path pattern is valid"),
    module: Regex::new(r"\b[a-z_][a-z0-9_]+(?:\.[a-z_][a-z0-9_]+)+\b").expect("module pattern"),
    namespace: Regex::new(r"\\?\b[A-Z]\w*(?:\\[A-Z]\w*)+").expect("namespace pattern"),
    exception: Regex::new(
        r"\b(?:[A-Za-z_]\w*[.\\])*[A-Z]\w*(?:Error|Exception|Warning|Fault|Panic|Failure)\b",
    )
    .expect("exception pattern"),
    exception_line: Regex::new(
        r"^\s*(?:(?:PHP )?(?:Fatal error|Uncaught|Unhandled(?: Rejection)?)[: ]+)*(?P<type>(?:[A-Za-z_]\w*[.\\])*[A-Z]\w*(?:Error|Exception|Warning|Fault|Panic|Failure))(?: \([^)]*\))?:\s*(?P<msg>.+)$",
    )
    .expect("exception line pattern"),
    quoted: Regex::new(r#""([^"\n]{3,200})"|“([^”\n]{3,200})”"#).expect("quoted pattern"),
    backticks: Regex::new(r"`([^`\n]+)`").expect("backticks pattern"),
    url: Regex::new(r"\b(?:https?|file)://\S+").expect("url pattern"),
    blob: Regex::new(r"/(?:blob|tree|raw)/[^/\s]+/([^\s#?)]+)").expect("blob pattern"),
    image: Regex::new(r"!\[[^\]]*\]\([^)]*\)").expect("image pattern"),
    version_value: Regex::new(r"^v?\d+(?:\.\d+)+\S*$|^v?\d+(?:\.\d+)*\.(?:x|\*)$")
        .expect("version pattern"),
}
});

/// Whether `text` is a long request (see the module docs).
pub fn is_long(text: &str) -> bool {
    let text = text.trim();
    text.len() >= LONG_REQUEST_CHARS || text.lines().filter(|l| !l.trim().is_empty()).count() > 1
}

/// `text` cut to at most [`MAX_REQUEST_BYTES`] at a character boundary.
pub fn clip(text: &str) -> &str {
    if text.len() <= MAX_REQUEST_BYTES {
        return text;
    }
    let mut end = MAX_REQUEST_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Collects words and mentions while the lines are read.
struct Collector<'p> {
    params: &'p RankParams,
    words: Vec<RequestWord>,
    index: HashMap<String, usize>,
    mentions: Vec<Mention>,
}

impl Collector<'_> {
    /// Adds the words of `text` as `part` (see [`word_spans`]).
    fn words(&mut self, text: &str, part: PartKind) {
        for (s, e) in word_spans(text) {
            self.word(&text[s..e], part);
        }
    }

    fn word(&mut self, word: &str, part: PartKind) {
        let lower = word.to_lowercase();
        if word.chars().count() < 2
            || word.chars().all(|c| c.is_ascii_digit() || c == '_')
            || QUERY_STOP_WORDS.contains(&lower.as_str())
        {
            return;
        }
        match self.index.get(&lower) {
            Some(&i) => {
                let w = &mut self.words[i];
                w.count += 1;
                if part.weight(self.params) > w.part.weight(self.params) {
                    w.part = part;
                }
            }
            None => {
                self.index.insert(lower, self.words.len());
                self.words.push(RequestWord {
                    text: word.to_string(),
                    part,
                    weight: 0.0,
                    count: 1,
                });
            }
        }
    }

    fn mention(&mut self, written: &str, part: PartKind, has_extension: bool) {
        if self.mentions.len() >= MAX_MENTIONS {
            return;
        }
        let Some(path) = normalise_path(written, has_extension) else {
            return;
        };
        if let Some(m) = self.mentions.iter_mut().find(|m| m.path == path) {
            if part == PartKind::Frame {
                m.part = PartKind::Frame;
            }
            return;
        }
        self.mentions.push(Mention {
            path,
            has_extension,
            part,
            written: written.to_string(),
        });
    }

    /// Paths, module names and namespaces in `text`: mentions, and their words as `part`.
    fn paths(&mut self, text: &str, part: PartKind) {
        let p = &*PATTERNS;
        for m in p.path.find_iter(text) {
            let written = m.as_str();
            let has_dir = written.contains(['/', '\\']);
            let ext = written
                .rsplit('.')
                .next()
                .unwrap_or("")
                .to_ascii_lowercase();
            if has_dir || FILE_EXTENSIONS.contains(&ext.as_str()) {
                self.mention(written, part, true);
                self.words(written, part);
            }
        }
        for m in p.namespace.find_iter(text) {
            self.mention(m.as_str(), part, false);
            self.words(m.as_str(), part);
        }
        for m in p.module.find_iter(text) {
            let written = m.as_str();
            let ext = written.rsplit('.').next().unwrap_or("");
            if FILE_EXTENSIONS.contains(&ext) {
                continue; // a file name, seen above
            }
            if written.split('.').all(|c| c.len() >= 2) {
                self.mention(written, part, false);
                self.words(written, part);
            }
        }
    }

    /// A line of prose (outside code blocks): paths, exceptions, messages, backticks, code-like
    /// words, the rest as `plain` (prose, or the title).
    fn prose_line(&mut self, line: &str, plain: PartKind) {
        let p = &*PATTERNS;
        self.paths(line, PartKind::Path);
        if let Some(c) = p.exception_line.captures(line) {
            self.words(&c["type"], PartKind::Exception);
            self.words(&c["msg"], PartKind::Message);
        }
        for m in p.exception.find_iter(line) {
            self.words(m.as_str(), PartKind::Exception);
        }
        for c in p.quoted.captures_iter(line) {
            let quoted = c.get(1).or_else(|| c.get(2)).map_or("", |m| m.as_str());
            self.words(quoted, PartKind::Message);
        }
        for c in p.backticks.captures_iter(line) {
            self.words(&c[1], PartKind::Code);
        }
        for (s, e) in word_spans(line) {
            let w = &line[s..e];
            let part = if looks_like_code(line, s, e) {
                PartKind::Code
            } else {
                plain
            };
            self.word(w, part);
        }
    }

    /// A line inside a code block or indented like a trace: frames, exceptions, commands,
    /// else code.
    fn code_line(&mut self, line: &str) {
        if self.frame(line) {
            return;
        }
        let p = &*PATTERNS;
        if let Some(c) = p.exception_line.captures(line) {
            self.words(&c["type"], PartKind::Exception);
            self.words(&c["msg"], PartKind::Message);
            return;
        }
        if is_command(line) {
            self.paths(line, PartKind::Path);
            self.words(line, PartKind::Command);
            return;
        }
        self.paths(line, PartKind::Path);
        for m in p.exception.find_iter(line) {
            self.words(m.as_str(), PartKind::Exception);
        }
        self.words(line, PartKind::Code);
    }

    /// Reads `line` as a stack-trace frame; false when it is none.
    fn frame(&mut self, line: &str) -> bool {
        for re in &PATTERNS.frames {
            if let Some(c) = re.captures(line) {
                if let Some(path) = c.name("path") {
                    self.mention(path.as_str(), PartKind::Frame, true);
                    self.words(path.as_str(), PartKind::Frame);
                }
                if let Some(func) = c.name("func") {
                    self.words(func.as_str(), PartKind::Frame);
                }
                return true;
            }
        }
        false
    }
}

/// The byte ranges of the words of `text` as the index's tokenizer reads them (runs of letters,
/// digits and `_`, kebab-case joined; CJK text is left to the CJK field).
fn word_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    super::lexical::for_each_word(text, |s, e| spans.push((s, e)));
    spans
}

/// Whether the word at `s..e` of `line` is written as code: camelCase, snake_case, called
/// (`save()`), or joined to another identifier by `.`, `::`, `->`, `\` or `$`.
fn looks_like_code(line: &str, s: usize, e: usize) -> bool {
    let w = &line[s..e];
    let b = w.as_bytes();
    let camel = b
        .windows(2)
        .any(|p| p[0].is_ascii_lowercase() && p[1].is_ascii_uppercase());
    let snake = w.trim_matches('_').contains('_');
    let rest = &line[e..];
    let before = &line[..s];
    let joined = |t: &str| {
        ["::", "->", ".", "\\"]
            .iter()
            .any(|p| t.starts_with(p) && t[p.len()..].starts_with(|c: char| c.is_alphabetic()))
    };
    let joined_before = ["::", "->", ".", "\\", "$"].iter().any(|p| {
        before
            .strip_suffix(p)
            .is_some_and(|b| *p == "$" || b.ends_with(|c: char| c.is_alphanumeric() || c == '_'))
    });
    camel || snake || rest.starts_with('(') || joined(rest) || joined_before
}

/// Whether `line` is a command line (see [`COMMANDS`]).
fn is_command(line: &str) -> bool {
    let t = line.trim_start();
    if let Some(rest) = t.strip_prefix("$ ").or_else(|| t.strip_prefix("> ")) {
        return !rest.trim().is_empty();
    }
    let first = t.split_whitespace().next().unwrap_or("");
    COMMANDS.contains(&first)
}

/// A mention's path from what was written (see [`Mention::path`]); `None` when nothing is left.
fn normalise_path(written: &str, has_extension: bool) -> Option<String> {
    let mut p =
        written.trim_matches(|c: char| c == '"' || c == '\'' || c == '`' || c == '(' || c == ')');
    if !has_extension {
        let sep = if p.contains('\\') { '\\' } else { '.' };
        let joined: Vec<&str> = p
            .trim_start_matches('\\')
            .split(sep)
            .filter(|c| !c.is_empty())
            .collect();
        if joined.len() < 2 {
            return None;
        }
        return Some(joined.join("/").to_lowercase());
    }
    let owned = p.replace('\\', "/");
    p = owned.as_str();
    if p.len() > 2 && p.as_bytes()[1] == b':' {
        p = &p[2..]; // C:/...
    }
    for prefix in ["a/", "b/"] {
        if let Some(rest) = p.strip_prefix(prefix) {
            p = rest;
        }
    }
    let p = p.trim_start_matches("./").trim_start_matches('/');
    (!p.is_empty() && !p.ends_with('/')).then(|| p.to_lowercase())
}

/// Whether `line` is a Python traceback's header or chaining line (boilerplate inside a code
/// block too).
fn is_trace_header(line: &str) -> bool {
    let lower = line.trim().to_lowercase();
    lower.starts_with("traceback (most recent call last)")
        || lower.starts_with("during handling of the above exception")
        || lower.starts_with("the above exception was the direct cause")
}

/// Whether `line` (trimmed) is boilerplate (see the module docs).
fn is_boilerplate(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() {
        return true;
    }
    let lower = t.to_lowercase();
    let bare = lower
        .trim_matches(|c: char| matches!(c, '#' | '*' | '_' | ':' | '=' | ' ' | '>'))
        .trim();
    if TEMPLATE_HEADINGS.contains(&bare) {
        return true;
    }
    if bare
        .chars()
        .all(|c| matches!(c, '-' | '=' | '*' | '_' | '`' | '~' | '|' | ' '))
    {
        return true; // rules, table borders
    }
    if lower.starts_with("traceback (most recent call last)")
        || lower.starts_with("during handling of the above exception")
        || lower.starts_with("the above exception was the direct cause")
        || lower.starts_with("this reverts commit")
    {
        return true;
    }
    let item = lower.trim_start_matches(['-', '*', '+', ' ']);
    if item.starts_with("[ ]") || item.starts_with("[x]") {
        return true; // checklists
    }
    if let Some((key, value)) = item.split_once(':') {
        let key = key.trim().trim_matches('*').trim();
        let value = value.trim().trim_matches('*').trim();
        if TRAILERS.contains(&key) {
            return true;
        }
        if key.len() <= 40
            && !key.contains(['(', '`', '/'])
            && (ENVIRONMENT_KEYS.iter().any(|k| key.starts_with(k))
                || key.ends_with("version")
                || PATTERNS.version_value.is_match(value))
            && value.split_whitespace().count() <= 6
        {
            return true;
        }
    }
    false
}

impl Request {
    /// Analyses `text` (at most [`MAX_REQUEST_BYTES`] of it) with `params`' part weights; see
    /// the module docs. Word weights here do not include the generic-word factor, which the
    /// query adds.
    pub fn analyse(text: &str, params: &RankParams) -> Self {
        let text = clip(text);
        let mut c = Collector {
            params,
            words: Vec::new(),
            index: HashMap::new(),
            mentions: Vec::new(),
        };
        if !is_long(text) {
            for (s, e) in word_spans(text) {
                if c.words.len() >= MAX_SHORT_WORDS {
                    break;
                }
                let word = &text[s..e];
                let lower = word.to_lowercase();
                if QUERY_STOP_WORDS.contains(&lower.as_str()) {
                    continue;
                }
                match c.index.get(&lower) {
                    Some(&i) => c.words[i].count += 1,
                    None => {
                        c.index.insert(lower, c.words.len());
                        c.words.push(RequestWord {
                            text: word.to_string(),
                            part: PartKind::Prose,
                            weight: 1.0,
                            count: 1,
                        });
                    }
                }
            }
            return Request {
                long: false,
                words: c.words,
                mentions: Vec::new(),
                dropped_lines: 0,
            };
        }
        let p = &*PATTERNS;
        // HTML comments (template instructions) go first; they may span lines.
        let mut clean = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(open) = rest.find("<!--") {
            clean.push_str(&rest[..open]);
            rest = rest[open..]
                .find("-->")
                .map_or("", |close| &rest[open + close + 3..]);
        }
        clean.push_str(rest);
        let mut dropped = 0;
        let mut in_fence = false;
        let mut title_seen = false;
        for raw in clean.lines() {
            let trimmed = raw.trim_start();
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                in_fence = !in_fence;
                continue;
            }
            if (!in_fence && is_boilerplate(raw)) || is_trace_header(raw) {
                dropped += usize::from(!raw.trim().is_empty());
                continue;
            }
            // Links: a file link keeps its path; the rest of a URL is noise.
            let mut line = p.image.replace_all(raw, " ").into_owned();
            for m in p.url.find_iter(&line.clone()) {
                if let Some(b) = p.blob.captures(m.as_str()) {
                    c.mention(&b[1], PartKind::Path, true);
                    c.words(&b[1], PartKind::Path);
                }
                line = line.replacen(m.as_str(), " ", 1);
            }
            let indented = raw.starts_with("    ") || raw.starts_with('\t');
            if in_fence || (indented && !trimmed.starts_with(['-', '*'])) {
                c.code_line(&line);
            } else if !c.frame(&line) {
                if is_command(&line) && trimmed.starts_with("$ ") {
                    c.code_line(&line);
                } else {
                    let plain = if title_seen {
                        PartKind::Prose
                    } else {
                        PartKind::Title
                    };
                    title_seen = true;
                    c.prose_line(&line, plain);
                }
            }
        }
        let tf = params.req_tf;
        for w in &mut c.words {
            w.weight = w.part.weight(params) * (1.0 + tf * (w.count as f32).ln());
        }
        Request {
            long: true,
            words: c.words,
            mentions: c.mentions,
            dropped_lines: dropped,
        }
    }

    /// The words in the order a query takes them when it cannot see the index: by weight
    /// (stable), at most `max` (a short request keeps its own order and limit).
    pub fn by_weight(&self, max: usize) -> Vec<&RequestWord> {
        let mut words: Vec<&RequestWord> = self.words.iter().collect();
        if self.long {
            words.sort_by(|a, b| b.weight.total_cmp(&a.weight));
            words.truncate(max);
        }
        words
    }
}

/// The parts of a request that a hit matched, for its explanation: one entry per kind of part,
/// most telling first, with the words (or the mentioned file) it matched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchedPart {
    /// The kind of part (`frame`, `path`, `exception`, `message`, `code`, `command`, `prose`).
    pub part: PartKind,
    /// The words of that part the hit's file matched, as the request wrote them (a mentioned
    /// file as written), in the order given (at most [`MAX_EXPLAINED_WORDS`]).
    pub words: Vec<String>,
}

/// Words shown per part in an explanation (the first ones given: a ranked search gives them
/// heaviest first).
pub const MAX_EXPLAINED_WORDS: usize = 6;

/// Groups `(part, word)` pairs by part, most telling part first, each word once, at most
/// [`MAX_EXPLAINED_WORDS`] per part.
pub fn matched_parts<'a>(pairs: impl IntoIterator<Item = (PartKind, &'a str)>) -> Vec<MatchedPart> {
    let mut out: Vec<MatchedPart> = Vec::new();
    for (part, word) in pairs {
        match out.iter_mut().find(|m| m.part == part) {
            Some(m) => {
                if m.words.len() < MAX_EXPLAINED_WORDS && !m.words.iter().any(|w| w == word) {
                    m.words.push(word.to_string());
                }
            }
            None => out.push(MatchedPart {
                part,
                words: vec![word.to_string()],
            }),
        }
    }
    out.sort_by_key(|m| m.part);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analyse(text: &str) -> Request {
        Request::analyse(text, &RankParams::default())
    }

    fn part_of(r: &Request, word: &str) -> Option<PartKind> {
        r.words
            .iter()
            .find(|w| w.text.eq_ignore_ascii_case(word))
            .map(|w| w.part)
    }

    #[test]
    fn a_short_request_keeps_every_word_at_weight_one_in_order() {
        let r = analyse("Fix scrolling when the `sidebar` is collapsed");
        assert!(!r.long);
        let words: Vec<&str> = r.words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(words, ["Fix", "scrolling", "sidebar", "collapsed"]);
        assert!(
            r.words
                .iter()
                .all(|w| w.weight == 1.0 && w.part == PartKind::Prose)
        );
        assert!(r.mentions.is_empty());
    }

    #[test]
    fn a_python_traceback_gives_frames_the_exception_and_its_message() {
        let text = "Consuming a document fails since the upgrade.\n\n\
            ### Steps to reproduce\n\n1. upload a PDF\n\n\
            ```\nTraceback (most recent call last):\n  \
            File \"/usr/src/paperless/src/documents/consumer.py\", line 412, in run_pre_consume_script\n    \
            self._send_progress(10)\n  \
            File \"/usr/src/paperless/src/documents/barcodes.py\", line 88, in scan\n    \
            raise BarcodeImageError(msg)\n\
            documents.barcodes.BarcodeImageError: image too large for the reader\n```\n\n\
            ### Environment\n- OS: Ubuntu 22.04\n- Paperless-ngx version: 2.14.7\n";
        let r = analyse(text);
        assert!(r.long);
        let paths: Vec<(&str, PartKind)> = r
            .mentions
            .iter()
            .map(|m| (m.path.as_str(), m.part))
            .collect();
        assert!(paths.contains(&(
            "usr/src/paperless/src/documents/consumer.py",
            PartKind::Frame
        )));
        assert!(paths.contains(&(
            "usr/src/paperless/src/documents/barcodes.py",
            PartKind::Frame
        )));
        assert_eq!(part_of(&r, "run_pre_consume_script"), Some(PartKind::Frame));
        assert_eq!(part_of(&r, "BarcodeImageError"), Some(PartKind::Exception));
        assert_eq!(part_of(&r, "reader"), Some(PartKind::Message));
        // `self._send_progress` is a dotted name, read as a module name (a path part) wherever
        // it is written; it names no file, so only its weight changes.
        assert_eq!(part_of(&r, "_send_progress"), Some(PartKind::Path));
        assert_eq!(part_of(&r, "upgrade"), Some(PartKind::Title));
        assert_eq!(part_of(&r, "upload"), Some(PartKind::Prose));
        // Boilerplate: headings, the traceback header, the environment.
        assert_eq!(part_of(&r, "reproduce"), None);
        assert_eq!(part_of(&r, "Ubuntu"), None);
        assert_eq!(part_of(&r, "Traceback"), None);
        assert_eq!(r.dropped_lines, 5);
        let m = r
            .mentions
            .iter()
            .find(|m| m.path.ends_with("barcodes.py"))
            .unwrap();
        assert!(m.names("src/documents/barcodes.py"));
        assert!(!m.names("src/documents/tests/test_barcodes.py"));
    }

    #[test]
    fn every_frame_pattern_reads_its_language() {
        let frames = [
            (
                "  File \"app/models.py\", line 3, in save",
                "app/models.py",
                Some("save"),
            ),
            (
                "#3 /var/www/vendor/laravel/framework/src/Illuminate/Support/Str.php(245): Illuminate\\Support\\Str::of()",
                "var/www/vendor/laravel/framework/src/illuminate/support/str.php",
                Some("Str"),
            ),
            (
                "    at resolveId (/repo/packages/vite/src/node/plugins/resolve.ts:120:11)",
                "repo/packages/vite/src/node/plugins/resolve.ts",
                Some("resolveId"),
            ),
            (
                "\tat com.example.Foo.bar(Foo.java:42)",
                "foo.java",
                Some("bar"),
            ),
            (
                "\t/home/u/go/src/app/server.go:88 +0x1d",
                "home/u/go/src/app/server.go",
                None,
            ),
            (
                "thread 'main' panicked at src/parse.rs:12:5:",
                "src/parse.rs",
                None,
            ),
        ];
        for (line, path, func) in frames {
            let r = analyse(&format!("It crashes:\n{line}\n"));
            assert!(
                r.mentions
                    .iter()
                    .any(|m| m.path == path && m.part == PartKind::Frame),
                "{line}: {:?}",
                r.mentions
            );
            if let Some(func) = func {
                assert_eq!(part_of(&r, func), Some(PartKind::Frame), "{line}");
            }
        }
    }

    #[test]
    fn paths_modules_namespaces_and_links_become_mentions() {
        let r = analyse(
            "The cast in `Illuminate\\Database\\Eloquent\\Model` breaks; see documents.views and \
             resources/views/auth/login.blade.php, also https://github.com/o/r/blob/main/src/app.ts#L3\n\
             and config.py\n",
        );
        let paths: Vec<&str> = r.mentions.iter().map(|m| m.path.as_str()).collect();
        assert!(
            paths.contains(&"illuminate/database/eloquent/model"),
            "{paths:?}"
        );
        assert!(paths.contains(&"documents/views"), "{paths:?}");
        assert!(
            paths.contains(&"resources/views/auth/login.blade.php"),
            "{paths:?}"
        );
        assert!(paths.contains(&"src/app.ts"), "{paths:?}");
        assert!(paths.contains(&"config.py"), "{paths:?}");
        let model = r
            .mentions
            .iter()
            .find(|m| m.path.ends_with("model"))
            .unwrap();
        assert!(model.names("src/Illuminate/Database/Eloquent/Model.php"));
        assert!(!model.names("src/Illuminate/Database/Eloquent/Models.php"));
        assert_eq!(part_of(&r, "github"), None, "URLs are dropped");
    }

    #[test]
    fn commit_trailers_checklists_and_comments_are_dropped() {
        let r = analyse(
            "[13.x] Guard against false in mget\n\n<!-- Please describe your change -->\n\
             - [x] I have read the contributing guide\n\
             Co-authored-by: Taylor Otwell <taylor@laravel.com>\nThe connection returns false.\n",
        );
        assert_eq!(part_of(&r, "Taylor"), None);
        assert_eq!(part_of(&r, "contributing"), None);
        assert_eq!(part_of(&r, "describe"), None);
        assert_eq!(part_of(&r, "connection"), Some(PartKind::Prose));
        assert_eq!(part_of(&r, "mget"), Some(PartKind::Title));
        assert_eq!(part_of(&r, "13"), None, "numbers carry nothing");
    }

    #[test]
    fn commands_and_code_words_are_recognised() {
        let r = analyse(
            "Running the build fails.\n$ npm run build --watch\nThe `resolveConfig` call and \
             config.build.outDir look fine, but get_queryset() does not.\n",
        );
        assert_eq!(part_of(&r, "watch"), Some(PartKind::Command));
        assert_eq!(part_of(&r, "resolveConfig"), Some(PartKind::Code));
        assert_eq!(part_of(&r, "outDir"), Some(PartKind::Code));
        assert_eq!(part_of(&r, "get_queryset"), Some(PartKind::Code));
        assert_eq!(part_of(&r, "fine"), Some(PartKind::Prose));
    }

    #[test]
    fn a_request_is_read_up_to_the_input_limit() {
        let long = format!("{}\nneedleword", "word ".repeat(3000));
        assert!(clip(&long).len() <= MAX_REQUEST_BYTES);
        let r = analyse(&long);
        assert_eq!(part_of(&r, "needleword"), None);
        let fits = format!("{}\nneedleword", "word ".repeat(1000));
        assert_eq!(
            part_of(&analyse(&fits), "needleword"),
            Some(PartKind::Prose)
        );
        let multibyte = "é".repeat(MAX_REQUEST_BYTES);
        assert!(clip(&multibyte).len() <= MAX_REQUEST_BYTES);
    }

    #[test]
    fn matched_parts_group_by_part_most_telling_first() {
        let m = matched_parts([
            (PartKind::Prose, "collapsed"),
            (PartKind::Frame, "views.py"),
            (PartKind::Prose, "collapsed"),
            (PartKind::Prose, "sidebar"),
        ]);
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].part, PartKind::Frame);
        assert_eq!(m[1].words, ["collapsed", "sidebar"]);
    }
}
