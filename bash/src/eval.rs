//! Evaluation: walks the parsed commands, tracks the working directory (`cd`, `pushd`, subshell
//! scopes), unwraps prefix commands and `xargs`, and dispatches each command to its rule.

use super::lex::{Lexer, Redir, Tok, Word};
use super::opts::{XARGS_SPEC, listed, parse_opts, stop_spec};
use super::parse::{Cmd, Event, parse};
use super::rules::{RULES, manifest_edits, tool_outputs};
use super::{BashAnalysis, BashTarget, BashWrite, MAX_DEPTH};

/// The working directory relative to where the command starts (`""`: unchanged).
#[derive(Debug, Clone, Default)]
pub(super) struct Cwd {
    pub(super) path: String,
    /// The directory depends on run time (`cd $X`, `cd ~`, `cd -`).
    pub(super) dynamic: bool,
}

impl Cwd {
    /// `rel` joined to this directory (as a write target would be).
    pub(super) fn join(&self, rel: &str) -> String {
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

/// Whether heredoc text with an unquoted delimiter holds an expansion (`$X`, `${X}`, `$(…)`,
/// `$1`, backticks).
fn expands(body: &str) -> bool {
    let b = body.as_bytes();
    b.contains(&b'`')
        || b.windows(2).any(|w| {
            w[0] == b'$'
                && (w[1].is_ascii_alphanumeric()
                    || matches!(
                        w[1],
                        b'_' | b'{' | b'(' | b'@' | b'*' | b'#' | b'?' | b'$' | b'!' | b'-'
                    ))
        })
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
pub(super) struct Eval {
    pub(super) out: BashAnalysis,
    pub(super) cwd: Cwd,
    /// The `pushd` stack.
    pub(super) dirs: Vec<Cwd>,
    depth: usize,
    /// The command being evaluated reads a pipe (`… | bash`).
    pub(super) piped: bool,
    /// The file the command being evaluated reads on stdin (`bash < /tmp/x.sh`).
    pub(super) stdin_file: Option<Word>,
    /// The heredoc or here-string the command reads holds a shell expansion (`<<< "$(cat f)"`,
    /// an unquoted `<<EOF` body with `$X`): its text is known only at run time.
    pub(super) stdin_dynamic: bool,
    /// Paths (as the working directory joins them) that `mv`/`cp` put a file at earlier in this
    /// command line: it may be a symlink, so a later write there lands anywhere.
    pub(super) replaced: Vec<String>,
    /// This command line assigned `HOME` (`HOME=x;`, `export HOME=…`, `read HOME`): `~` and
    /// `$HOME` are then known only at run time.
    pub(super) home_unknown: bool,
    /// The command being evaluated only reads (`ls`, `cat`): configuration homes set for it
    /// (`HOME=/tmp ls ~`) load nothing.
    skip_config: bool,
    /// The text the previous command of a pipeline prints, when it is a literal `echo`/`printf`.
    pub(super) pipe_text: Option<String>,
    /// The exact text the previous command of a pipeline prints, when it is a literal `echo` or
    /// `printf` whose output is its words (no escapes, no formats): code a shell or interpreter
    /// reading the pipe runs (`echo 'print(1)' | python3`).
    pipe_code: Option<String>,
    /// Code was taken from such an `echo`/`printf` ([`Eval::take_pipe_code`]).
    used_pipe_code: bool,
    /// The command line defines a function named `echo` or `printf` (which could print anything).
    pub(super) output_redefined: bool,
    /// Variables bound at the start of the command line to a known path ([`super::bind`]).
    pub(super) bound: std::collections::HashMap<String, String>,
}

/// One command to apply a rule to: its canonical name, its arguments and its stdin text.
pub(super) struct Inv<'a> {
    pub(super) name: &'a str,
    pub(super) args: &'a [Word],
    pub(super) stdin: Option<&'a str>,
}

impl Eval {
    /// Lexes and runs a command string (the top level, `bash -c`, `eval`, heredoc scripts).
    /// A `cd` inside does not leak out: the string runs in its own shell or scope of ours.
    pub(super) fn run_text(&mut self, text: &str) {
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
        self.unknown(snippet, "nesting too deep");
    }

    fn subshell(&mut self, toks: Vec<Tok>) {
        let saved = (self.cwd.clone(), self.dirs.clone());
        self.depth += 1;
        self.run(toks);
        self.depth -= 1;
        (self.cwd, self.dirs) = saved;
    }

    fn run(&mut self, toks: Vec<Tok>) {
        // `echo() { …; }`, `function printf …`: a literal `echo` no longer prints its words.
        let prints =
            |t: &Tok| matches!(t, Tok::Word(w) if matches!(w.value.as_str(), "echo" | "printf"));
        self.output_redefined |= toks
            .windows(3)
            .any(|t| prints(&t[0]) && matches!((&t[1], &t[2]), (Tok::Op("("), Tok::Op(")"))))
            || toks
                .windows(2)
                .any(|t| matches!(&t[0], Tok::Word(w) if w.value == "function") && prints(&t[1]));
        let mut saved: Vec<(Cwd, Vec<Cwd>, bool)> = Vec::new();
        for event in parse(toks) {
            if !matches!(event, Event::Command(_)) {
                // What a group or subshell prints is not the text of its last `echo`.
                self.pipe_text = None;
                self.pipe_code = None;
            }
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
        let pipe_in = self.pipe_text.take().filter(|_| cmd.piped);
        let code_in = self.pipe_code.take().filter(|_| cmd.piped);
        for w in &mut cmd.words {
            for s in std::mem::take(&mut w.substs) {
                self.subshell(s);
            }
        }
        // `t=$(mktemp); … > "$t"`: expansions of variables bound to a known path are that path
        // ([`super::bind`]), as are the bindings themselves.
        if !self.bound.is_empty() {
            let known = |w: &Word, bound: &std::collections::HashMap<String, String>| {
                if !w.dynamic {
                    return None;
                }
                if is_assignment(w)
                    && let Some((name, _)) = w.raw.split_once('=')
                    && let Some(v) = bound.get(name)
                {
                    return Some(format!("{name}={v}"));
                }
                super::bind::known_word(&w.raw, bound)
            };
            for w in cmd
                .words
                .iter_mut()
                .chain(cmd.redirs.iter_mut().map(|r| &mut r.target))
            {
                if let Some(v) = known(w, &self.bound) {
                    *w = Word {
                        value: v.clone(),
                        raw: v,
                        dynamic: false,
                        ..w.clone()
                    };
                }
            }
        }
        let n_assign = cmd.words.iter().take_while(|w| is_assignment(w)).count();
        expand_braces(&mut cmd.words, n_assign, self.depth);
        // `HOME=x;`, `export HOME=x`, `read HOME`, `printf -v HOME`, `for HOME in …`: `~` is
        // the new value from then on. A prefix (`HOME=x cmd`) is the command's own environment:
        // only what it runs (`bash -c '… ~ …'`) sees it.
        let home_word = |w: &Word| {
            let v = w.value.as_str();
            v == "HOME"
                || v == "-vHOME"
                || ["HOME=", "HOME+=", "HOME["]
                    .iter()
                    .any(|p| v.starts_with(p))
        };
        let prefix_home = cmd.words[..n_assign].iter().any(home_word);
        if cmd.words[n_assign..].iter().any(home_word)
            || (prefix_home && n_assign == cmd.words.len())
        {
            self.home_unknown = true;
        }
        self.skip_config = n_assign < cmd.words.len()
            && !cmd.words[n_assign].dynamic
            && listed(READ_ONLY_NAMES, canonical(&cmd.words[n_assign].value));
        let exports = cmd.words.get(n_assign).is_some_and(|w| {
            matches!(w.value.as_str(), "export" | "declare" | "typeset" | "local")
        });
        let settings = if exports {
            &cmd.words[..]
        } else {
            &cmd.words[..n_assign]
        };
        for w in settings {
            self.setting(w);
        }
        self.skip_config = false;
        // An array subscript in a literal (`x='a[$(cmd)]'`) runs `cmd` when bash evaluates it
        // arithmetically later (`$((x))`, `[[ -v … ]]`, `printf -v`, `read`, `declare`).
        for w in &cmd.words {
            let v = &w.value;
            if v.contains("[$(") || v.contains("[`") || v.contains("[<(") {
                self.unknown(
                    w.raw.clone(),
                    "an array subscript holding a command substitution (it runs when evaluated)",
                );
            }
        }
        let words: Vec<Word> = cmd.words.into_iter().skip_while(is_assignment).collect();
        // (`<` and `>` inside `[[ … ]]` are words of the test, see `parse`.)
        let mut stdin = None;
        let mut stdin_file = None;
        let mut stdin_dynamic = false;
        for r in &mut cmd.redirs {
            self.redirect(r);
            if r.op == "<" && (r.fd.is_empty() || r.fd == "0") {
                stdin_file = Some(r.target.clone());
            }
            if let Some(body) = &r.body {
                stdin.clone_from(&r.body);
                stdin_dynamic = if r.op == "<<<" {
                    r.target.dynamic
                } else {
                    !r.target.quoted && expands(body)
                };
            }
        }
        self.piped = cmd.piped;
        self.pipe_text = pipe_in;
        self.pipe_code = code_in;
        self.stdin_file = stdin_file;
        let home_before = self.home_unknown;
        self.home_unknown |= prefix_home;
        self.stdin_dynamic = stdin_dynamic;
        self.invoke(&words, stdin.as_deref());
        if prefix_home {
            self.home_unknown = home_before;
        }
        self.piped = false;
        self.stdin_file = None;
        self.stdin_dynamic = false;
        // `cat <<'EOF' | python3`: a bare `cat` prints its here-document (or here-string) as it
        // is, when nothing in it expands.
        let heredoc_cat = words.len() == 1
            && words[0].value == "cat"
            && !words[0].dynamic
            && !stdin_dynamic
            && cmd.redirs.len() == 1
            && cmd.redirs[0].body.is_some()
            && cmd.redirs[0].fd.is_empty();
        let heredoc_text = stdin.clone().filter(|_| heredoc_cat).map(|mut t| {
            // A here-string gets a newline appended; a here-document's body ends with one.
            if cmd.redirs[0].op == "<<<" {
                t.push('\n');
            }
            t
        });
        // Exactly what a literal `echo`/`printf` prints: its words, when none holds an escape
        // (`echo -e`, `printf`'s format) or a `printf` format.
        let literal =
            words.iter().all(|w| !w.dynamic && !w.value.contains('\\')) && cmd.redirs.is_empty();
        self.pipe_code = match words.first().map(|w| w.value.as_str()) {
            Some("echo") if literal => {
                let args = &words[1..];
                let skip = args
                    .iter()
                    .take_while(|w| {
                        w.value.len() > 1
                            && w.value.starts_with('-')
                            && w.value[1..].bytes().all(|b| b"neE".contains(&b))
                    })
                    .count();
                Some(join_values(&args[skip..]))
            }
            // printf's format: its plain escapes (`\n`, `\t`, `\\`, quotes) decoded; an octal,
            // hex or other escape could spell anything, and is not read.
            Some("printf")
                if cmd.redirs.is_empty()
                    && words.iter().all(|w| !w.dynamic && !w.value.contains('%')) =>
            {
                let format = match words.get(1).map(|w| w.value.as_str()) {
                    Some("--") => words.get(2),
                    Some(f) if f.starts_with('-') => None,
                    _ => words.get(1),
                };
                format.and_then(|w| printf_plain(&w.value))
            }
            Some("cat") if heredoc_text.is_some() => heredoc_text.clone(),
            _ => None,
        };
        // What a literal `echo`/`printf` prints, for a `sqlite3` reading it from the pipe.
        self.pipe_text = words
            .first()
            .filter(|w| matches!(w.value.as_str(), "echo" | "printf"))
            .filter(|_| words.iter().all(|w| !w.dynamic) && cmd.redirs.is_empty())
            .map(|_| {
                words[1..]
                    .iter()
                    .map(|w| w.value.replace("\\n", "\n"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .or(heredoc_text);
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
    pub(super) fn invoke(&mut self, mut words: &[Word], stdin: Option<&str>) {
        for _ in 0..MAX_DEPTH {
            let Some(first) = words.first() else { return };
            if first.dynamic && !matches!(first.value.as_str(), "[" | "[[") {
                // `$C -i … f`, `$(echo sed) …`: the program is only known at run time.
                let raw = first.raw.clone();
                self.unknown(raw, "a command whose name is only known at run time");
                return;
            }
            if first.value.contains('/') {
                // A program run by path (`./x.sh`, `/tmp/x`): the gate accepts the project's own
                // files and system programs.
                self.script(first, "runs a program by path");
            }
            let name = canonical(&first.value);
            if name == "xargs" {
                return self.xargs(&words[1..]);
            }
            // The options of `npx …` or of `npm exec|x …`, up to the command or `--`.
            let exec_opts = match name {
                "npx" | "bunx" | "pnpx" => Some(1),
                "npm" => words
                    .iter()
                    .position(|w| matches!(w.value.as_str(), "exec" | "x"))
                    .filter(|&k| words[1..k].iter().all(|w| w.value.starts_with('-')))
                    .map(|k| k + 1),
                _ => None,
            };
            if let Some(start) = exec_opts
                && let Some(text) = words[start..]
                    .iter()
                    .take_while(|w| w.value != "--")
                    .enumerate()
                    .find_map(|(k, w)| {
                        let v = w.value.as_str();
                        match v {
                            "-c" | "--call" => words.get(start + k + 1).map(|c| c.value.clone()),
                            _ => v.strip_prefix("--call=").map(str::to_string),
                        }
                    })
            {
                // `npx -c 'CMD'`, `npm exec --call 'CMD'`: a shell command line.
                self.launcher_options(name, &words[1..]);
                self.run_text(&text);
                return;
            }
            if let Some(inner) = self.launched(name, &words[1..]) {
                words = &words[1 + inner..];
                continue;
            }
            if let Some(runner) = crate::registry::runner(name) {
                let args = parse_opts(
                    &words[1..],
                    &stop_spec(runner.short_values, runner.long_values),
                );
                if runner.runs_nothing_with.split(' ').any(|f| args.has(&[f])) {
                    return;
                }
                if matches!(name, "time" | "strace" | "ltrace") {
                    for w in args.values(&["-o", "--output"]) {
                        self.write(w, &format!("{name} -o"));
                    }
                }
                if name == "unshare" && args.has(&["-R", "--root"]) {
                    self.unknown(
                        "<unshare --root …>",
                        "unshare --root (another root directory)",
                    );
                }
                if name == "env"
                    && let Some(split) = args.value(&["-S", "--split-string"])
                {
                    // `env -S 'CMD ARGS' MORE`: the string is split into the command line,
                    // and every word after it follows, options included (`env -S bash -c
                    // 'CMD'` runs `bash -c 'CMD'`: env parses no further option of its own
                    // there).
                    let mut text = split.value.clone();
                    let after_split = words[1..]
                        .iter()
                        .position(|w| {
                            w.value == "-S"
                                || w.value == "--split-string"
                                || (w.value.starts_with("-S") && !w.value.starts_with("--"))
                                || w.value.starts_with("--split-string=")
                        })
                        .map_or(1 + args.end, |k| {
                            let v = &words[1 + k].value;
                            if v == "-S" || v == "--split-string" {
                                1 + k + 2
                            } else {
                                1 + k + 1
                            }
                        });
                    for w in words
                        .get(after_split.min(words.len())..)
                        .unwrap_or_default()
                    {
                        text.push(' ');
                        text.push_str(&w.raw);
                    }
                    self.run_text(&text);
                    return;
                }
                let mut rest = &words[1 + args.end..];
                if matches!(name, "c8" | "nyc") {
                    // Their report and temporary directories.
                    tool_outputs(self, name, &words[1..1 + args.end]);
                }
                if name == "cross-env-shell" {
                    // `cross-env-shell VAR=x 'CMD'`: the rest is a shell command line.
                    let rest = &words[1 + args.end..];
                    let n = rest.iter().take_while(|w| is_assignment(w)).count();
                    for w in &rest[..n] {
                        self.setting(w);
                    }
                    self.run_text(&join_values(&rest[n..]));
                    return;
                }
                if matches!(name, "env" | "sudo" | "cross-env") {
                    // env takes any word with `=` as a setting (`'BASH_FUNC_cat%%=() {…}'`).
                    let n = rest
                        .iter()
                        .take_while(|w| {
                            is_assignment(w) || (name != "sudo" && w.value.contains('='))
                        })
                        .count();
                    for w in &rest[..n] {
                        self.setting(w);
                    }
                    rest = &rest[n..];
                }
                if matches!(name, "npx" | "bunx" | "pnpx") {
                    // The command comes from `node_modules/.bin` of the working directory.
                    self.working_dir_code(name);
                }
                words = rest.get(runner.operands_before..).unwrap_or_default();
                // `sudo -s <<< CMD`, `doas -s`: a shell reading its commands from stdin.
                if words.is_empty() && matches!(name, "sudo" | "doas") {
                    match stdin {
                        Some(text) => self.run_text(text),
                        None if self.piped => self.piped_code(name),
                        None => {}
                    }
                    return;
                }
                // `env -C DIR CMD`, `sudo -D DIR CMD`: CMD runs in DIR.
                let chdir = match name {
                    "env" => args.value(&["-C", "--chdir"]),
                    "sudo" => args.value(&["-D", "--chdir"]),
                    "unshare" => args.value(&["-w", "--wd"]),
                    _ => None,
                };
                if let Some(dir) = chdir {
                    let dir = dir.clone();
                    self.in_dir(Some(&dir), |e| e.invoke(words, stdin));
                    return;
                }
                continue;
            }
            // `hash -p PROG NAME`, `alias NAME=…`, `enable -f LIB NAME`: a name runs something
            // else from then on.
            let cluster = |f: char| {
                words[1..].iter().any(|w| {
                    w.value.starts_with('-') && !w.value.starts_with("--") && w.value.contains(f)
                })
            };
            let shadows = match name {
                "hash" => cluster('p'),
                "enable" => cluster('f'),
                "alias" => words[1..]
                    .iter()
                    .any(|w| w.value.contains('=') || w.dynamic),
                _ => false,
            };
            if shadows {
                self.unknown(
                    format!("<{name} …>"),
                    format!("{name} makes a command name run another program"),
                );
            }
            self.option_runs(name, &words[1..]);
            let code = code_by_option(name, &words[1..]);
            // A directory named by an option (`make -C DIR`) is checked below instead; cargo
            // also reads `.cargo/config.toml` of the working directory.
            if (code.is_empty() || name == "cargo") && reads_working_dir(name, &words[1..]) {
                self.working_dir_code(name);
            }
            for code in code {
                self.script(&code, &format!("{name} loads code from"));
            }
            tool_outputs(self, name, &words[1..]);
            manifest_edits(self, name, &words[1..]);
            let inv = Inv {
                name,
                args: &words[1..],
                stdin,
            };
            if let Some(program) = crate::registry::lookup(name) {
                crate::registry::apply(self, program, &inv);
            } else if let Some(r) = RULES.iter().find(|r| listed(r.names, name)) {
                (r.rule)(self, &inv);
            }
            return;
        }
    }

    /// `uv run CMD`, `bundle exec CMD`, `npm exec -- CMD`, `npm run env -- CMD` ([`crate::registry::LAUNCHERS`]):
    /// the index in `args` of the command the launcher runs (the launcher reads its working
    /// directory's configuration). `None`: not a launcher call, or no command follows.
    fn launched(&mut self, name: &str, args: &[Word]) -> Option<usize> {
        let args_all = args;
        // `npm --silent exec …`, `npm --prefix . run env …`: global options first.
        let lead = if matches!(name, "npm" | "pnpm" | "yarn" | "bun") {
            let mut k = 0;
            while let Some(w) = args.get(k).filter(|w| w.value.starts_with('-')) {
                k += if listed(NPM_VALUED, &w.value) { 2 } else { 1 };
            }
            k
        } else {
            0
        };
        let args = args.get(lead..)?;
        let sub = args.first()?;
        // `yarn prettier --write .`, `pnpm eslint --fix`: a name that is no subcommand runs
        // the package's binary (or a script of `package.json`, read as a command of that name).
        if matches!(name, "yarn" | "pnpm")
            && !sub.dynamic
            && !sub.value.starts_with('-')
            && !listed(PM_SUBCOMMANDS, &sub.value)
        {
            self.launcher_options(name, &args_all[..lead]);
            return Some(lead);
        }
        // `nix develop [INSTALLABLE] -c CMD`, `nix shell PKGS -c CMD`: CMD after `-c`
        // (`--command`); without it an interactive shell, which runs nothing here.
        if name == "nix" && matches!(sub.value.as_str(), "develop" | "shell") {
            let k = args
                .iter()
                .position(|w| matches!(w.value.as_str(), "-c" | "--command"))?;
            return Some(lead + k + 1);
        }
        let launcher = crate::registry::launcher(name);
        let start = if matches!(name, "npm" | "pnpm" | "yarn" | "bun")
            && matches!(sub.value.as_str(), "run" | "run-script")
            && args.get(1).is_some_and(|w| w.value == "env")
        {
            // `npm run env -- CMD`: the built-in `env` script runs its arguments.
            2
        } else {
            if sub.dynamic || !listed(launcher?.subcommands, &sub.value) {
                return None;
            }
            1
        };
        let valued = launcher.map_or("", |l| l.value_options);
        let mut k = start;
        while let Some(w) = args.get(k) {
            let v = w.value.as_str();
            if v == "--" {
                k += 1;
                break;
            }
            if !v.starts_with('-') || v == "-" {
                break;
            }
            k += if listed(valued, v) { 2 } else { 1 };
        }
        if k >= args.len() {
            return None;
        }
        self.launcher_options(name, &args_all[..lead + k]);
        Some(lead + k)
    }

    /// The working directory, code directories and programs a launcher's own options name
    /// (`npm --prefix DIR exec`, `uv run --directory DIR`, `npm exec --script-shell=P`): what
    /// it runs is looked up there, so they are checked as for the launcher itself.
    fn launcher_options(&mut self, name: &str, opts: &[Word]) {
        self.working_dir_code(name);
        self.option_runs(name, opts);
        for code in code_by_option(name, opts) {
            self.script(&code, &format!("{name} loads code from"));
        }
    }

    /// An option of `name` among `opts` that runs a program or writes a file
    /// ([`runs_by_option`]) makes the call a run-time unknown.
    fn option_runs(&mut self, name: &str, opts: &[Word]) {
        if let Some(opt) = runs_by_option(name, opts) {
            self.unknown(
                opt.to_string(),
                format!("{name} {opt}, an option that runs a program or writes a file"),
            );
        }
    }

    /// `xargs [opts] CMD ARGS`: CMD gets Dynamic arguments from stdin (appended, or in place of
    /// the `-I` replacement string).
    fn xargs(&mut self, words: &[Word]) {
        let a = parse_opts(words, &XARGS_SPEC);
        if a.has(&["--version", "--help", "--show-limits"]) {
            return;
        }
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
        if inner.is_empty() {
            // Without a command xargs runs `echo`.
            inner.push(Word::synthetic("echo", false));
        }
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
    pub(super) fn capture(&mut self, f: impl FnOnce(&mut Eval)) -> BashAnalysis {
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

    /// Checks one `NAME=value` setting of a command's environment (`VAR=x cmd`, `export VAR=x`,
    /// `env VAR=x cmd`, `sudo VAR=x cmd`): settings through which git or the shell run a program
    /// are run-time unknowns, and settings that point a lookup of code or configuration at a
    /// directory ([`env_locations`]) must point at the project or the system, like `bash FILE`.
    fn setting(&mut self, w: &Word) {
        // Settings that make a test run rewrite its expectations (`UPDATE_EXPECT=1 cargo
        // test`, `INSTA_UPDATE=always`, `UPDATE_SNAPSHOTS=1`, `TRYBUILD=overwrite`): the
        // snapshots are in the project.
        if let Some((name, value)) = w.value.split_once('=')
            && matches!(
                name,
                "UPDATE_EXPECT"
                    | "INSTA_UPDATE"
                    | "INSTA_FORCE_PASS"
                    | "UPDATE_SNAPSHOTS"
                    | "SNAPSHOT_UPDATE"
                    | "UPDATE_GOLDEN"
                    | "GOLDEN_UPDATE"
                    | "TRYBUILD"
                    | "BLESS"
            )
            && (w.dynamic || !matches!(value.trim(), "" | "0" | "no" | "false" | "never"))
        {
            self.write_tree(
                &Word::synthetic(".", false),
                &format!("{name} (updates snapshots)"),
            );
        }
        if runs_program_from_env(w) {
            self.unknown(
                w.raw.clone(),
                "an environment setting that makes git or the shell run a program",
            );
        }
        // `PYTEST_ADDOPTS='--junitxml=f'`: options every pytest run then takes, as if given on
        // its command line (built at run time: unknown).
        if let Some(opts) = w.value.strip_prefix("PYTEST_ADDOPTS=") {
            if w.dynamic {
                self.unknown(w.raw.clone(), "PYTEST_ADDOPTS set at run time");
            } else {
                let words: Vec<Word> = std::iter::once("pytest")
                    .chain(opts.split_whitespace())
                    .map(|o| Word::synthetic(o, false))
                    .collect();
                self.invoke(&words, None);
            }
        }
        self.env_locations(w);
    }

    /// Settings that decide where code, commands or configuration are loaded from. Each directory
    /// of a search path (`PATH`, `PYTHONPATH`, `NODE_PATH`, `PERL5LIB`, `RUBYLIB`,
    /// `LD_LIBRARY_PATH`, …) and each configuration home (`HOME`, `XDG_CONFIG_HOME`,
    /// `CARGO_HOME`, …: git aliases and pagers, npm and cargo settings run programs) must be the
    /// project's or the system's, like `bash FILE` (`PYTHONPATH=src pytest` and
    /// `PATH=$PATH:node_modules/.bin jest` pass; the variable's own value, `$PATH`, is what it
    /// was). A program setting (`CC`, `RUSTC_WRAPPER`, …) naming a path is checked the same way;
    /// options in `NODE_OPTIONS`, `PERL5OPT`, `RUBYOPT` that load a module are run-time unknowns.
    fn env_locations(&mut self, w: &Word) {
        let Some((name, value)) = w.value.split_once('=') else {
            return;
        };
        let name = name.strip_suffix('+').unwrap_or(name);
        let via = if listed(SEARCH_PATHS, name) {
            format!("{name} loads code from")
        } else {
            format!("{name} reads configuration or code from")
        };
        let checked = |dir: &str| {
            let itself = dir == format!("${name}") || dir == format!("${{{name}}}");
            // `$PWD/node_modules/.bin`, `$(pwd)/…`: the working directory, which the analysis
            // tracks.
            let here = ["$PWD", "${PWD}", "$(pwd)", "`pwd`"].iter().find_map(|p| {
                dir.strip_prefix(p)
                    .filter(|r| r.is_empty() || r.starts_with('/'))
                    .map(|r| format!(".{r}"))
            });
            let dir = here.as_deref().unwrap_or(dir);
            // `~` is expanded after `=` and `:` in assignments.
            let dynamic =
                dir.starts_with('~') || (w.dynamic && dir.contains(['$', '`', '*', '?', '[']));
            (!itself && !dir.is_empty()).then(|| Word::synthetic(dir, dynamic))
        };
        if name.starts_with("GIT_TRACE") || listed(WRITES_TO, name) {
            // `GIT_TRACE=/repo/x git status`, `TMPDIR=src mktemp`: a file or directory the
            // program writes (git's traces take an absolute path; `1`, `true` go to stderr).
            let git = name.starts_with("GIT_TRACE");
            let file = git
                || listed(
                    "GIT_INDEX_FILE LD_DEBUG_OUTPUT HISTFILE LESSHISTFILE COVERAGE_FILE PIP_LOG \
                     PIP_LOG_FILE SQLITE_HISTORY NODE_REPL_HISTORY PYTHON_HISTORY BABEL_CACHE_PATH",
                    name,
                );
            if let Some(t) =
                checked(value).filter(|t| !git || t.dynamic || t.value.starts_with('/'))
            {
                let via = format!("{name} names where the program writes");
                if file {
                    self.write(&t, &via);
                } else {
                    self.write_tree(&t, &via);
                }
            }
        }
        if listed(SEARCH_PATHS, name) || (listed(CONFIG_HOMES, name) && !self.skip_config) {
            for dir in value.split(':').filter_map(checked) {
                self.script(&dir, &via);
            }
        } else if program_setting(name) && (w.dynamic || value.split_whitespace().nth(1).is_some())
        {
            // `CARGO_TARGET_…_RUNNER='sh -c …'`: a command line cargo or npm runs.
            self.unknown(w.raw.clone(), format!("{name} names a program to run"));
        } else if listed(PROGRAMS, name) || program_setting(name) {
            // A bare name is looked up in PATH; a path is run as it is.
            if let Some(prog) = value
                .split_whitespace()
                .next()
                .filter(|p| p.contains('/'))
                .and_then(checked)
            {
                self.script(&prog, &format!("{name} names a program"));
            }
        } else if name == "NODE_OPTIONS"
            && value
                .split_whitespace()
                .any(|o| NODE_WRITING.iter().any(|p| o.starts_with(p)))
        {
            self.unknown(w.raw.clone(), format!("{name} writes profiles or reports"));
        } else if listed("NODE_OPTIONS PERL5OPT RUBYOPT", name) {
            let loads = value.split_whitespace().any(|o| {
                [
                    "-r",
                    "--require",
                    "--import",
                    "--loader",
                    "--experimental-loader",
                    "-M",
                    "-m",
                    "-I",
                ]
                .iter()
                .any(|p| o == *p || (o.starts_with(p) && o.len() > p.len()))
            });
            if loads {
                self.unknown(w.raw.clone(), format!("{name} loads a module"));
            }
        }
    }

    /// Runs `f` with the working directory moved to `dir` (`git -C`, `patch -d`, `tar -C`).
    pub(super) fn in_dir(&mut self, dir: Option<&Word>, f: impl FnOnce(&mut Eval)) {
        let saved = self.cwd.clone();
        if let Some(d) = dir {
            self.cwd = self.cwd_after(d);
        }
        f(self);
        self.cwd = saved;
    }

    pub(super) fn cwd_after(&self, dir: &Word) -> Cwd {
        if dir.dynamic {
            // `cd "$OLDPWD"`, `cd ~-`, `cd "$d"` may name any absolute directory: no literal
            // prefix of the current directory survives them.
            let unquoted = dir.raw.trim_start_matches(['"', '\'']);
            let p = if unquoted.starts_with('/') || unquoted.starts_with(['$', '~', '`']) {
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

    /// A run-time word starting with `~` or `$HOME` after this command line assigned `HOME`:
    /// no longer the home directory the gate knows.
    fn rehome(&self, s: String) -> String {
        if !self.home_unknown {
            return s;
        }
        for p in ["~", "${HOME}", "$HOME"] {
            if let Some(r) = s.strip_prefix(p)
                && (r.is_empty() || r.starts_with('/') || p != "~")
            {
                return format!("<HOME as set in this command>{r}");
            }
        }
        s
    }

    fn target(&self, w: &Word, tree: bool) -> Option<BashTarget> {
        // `/tmp/out.$$`, `"$TMPDIR"` aside: a word whose only expansions are numbers (`$$`,
        // `$!`, `$?`, `$#`, `$RANDOM`, `$SECONDS`, `$LINENO`, `$BASHPID`, `$PPID`, `$UID`,
        // `$EUID`) names a path under its literal parts, whatever the numbers are.
        if w.dynamic
            && let Some(value) = super::bind::known_word(&w.raw, &self.bound)
        {
            return self.target(&Word::synthetic(&value, false), tree);
        }
        if w.dynamic {
            let raw = if w.raw.starts_with('/') {
                w.raw.clone()
            } else {
                self.cwd.join(&w.raw)
            };
            return Some(BashTarget::Dynamic(self.rehome(raw)));
        }
        if w.value.is_empty() || is_sink(&w.value) {
            return None;
        }
        let p = self.cwd.join(&w.value);
        Some(
            match (self.cwd.dynamic && !w.value.starts_with('/'), tree) {
                (true, _) => BashTarget::Dynamic(self.rehome(p)),
                (false, true) => BashTarget::Tree(p),
                (false, false) => BashTarget::Path(p),
            },
        )
    }

    pub(super) fn emit(&mut self, w: &Word, tree: bool, via: &str) {
        // `tee >(wc -l)`: a process substitution names a pipe to a command analysed on its own.
        if w.value.is_empty() && (w.raw.starts_with(">(") || w.raw.starts_with("<(")) {
            return;
        }
        // `rm`, `rmdir` and `unlink` remove a symlink itself, never what it points to: a path
        // put in place earlier (`cp -r src "$t"; rm -rf "$t"`) is only removed.
        let removes_only = matches!(via, "rm" | "rmdir" | "unlink");
        if !w.dynamic && !removes_only {
            let here = self.cwd.join(&w.value);
            let trimmed = here.trim_end_matches('/');
            if self.replaced.iter().any(|r| {
                let r = r.trim_end_matches('/');
                r == trimmed || trimmed.starts_with(&format!("{r}/"))
            }) {
                self.unknown(
                    format!("<{here}, put in place earlier in this command>"),
                    format!(
                        "{via} (through a file moved or copied into place, which may be a symlink)"
                    ),
                );
            }
        }
        if let Some(target) = self.target(w, tree) {
            self.out.writes.push(BashWrite {
                target,
                via: via.to_string(),
            });
        }
        // A `cd` that left the starting directory's tree may not have run (`false && cd /tmp;`,
        // a failed `cd`, one inside `if`/`while`/a function/a pipeline stage: the parser treats
        // them all as run). A relative target is then also the starting directory's.
        let left = self.cwd.path.starts_with('/') || self.cwd.path.starts_with("..");
        if left && !self.cwd.dynamic && !w.dynamic && !w.value.starts_with('/') {
            let start = Eval::default();
            if let Some(target) = start.target(w, tree) {
                self.out.writes.push(BashWrite {
                    target,
                    via: format!("{via} (if the cd before it did not run)"),
                });
            }
        }
    }

    pub(super) fn write(&mut self, w: &Word, via: &str) {
        self.emit(w, false, via);
    }

    pub(super) fn write_tree(&mut self, w: &Word, via: &str) {
        self.emit(w, true, via);
    }

    pub(super) fn read_as(&mut self, w: &Word, tree: bool) {
        if let Some(t @ (BashTarget::Path(_) | BashTarget::Tree(_))) = self.target(w, tree) {
            self.out.reads.push(t);
        }
    }

    pub(super) fn read(&mut self, w: &Word) {
        self.read_as(w, false);
    }

    /// Reports `w` as a file run as code.
    pub(super) fn script(&mut self, w: &Word, via: &str) {
        // `bash /dev/stdin <<< '…'`, `source /dev/fd/0`: the code is whatever stdin holds.
        if !w.dynamic
            && matches!(
                w.value.as_str(),
                "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0" | "/dev/tty"
            )
        {
            self.unknown("<stdin>", format!("{via} (code read from stdin)"));
            return;
        }
        let target = match self.target(w, false) {
            Some(BashTarget::Path(p) | BashTarget::Dynamic(p)) => BashTarget::Script(p),
            Some(t) => t,
            None => return,
        };
        self.out.writes.push(BashWrite {
            target,
            via: via.to_string(),
        });
    }

    /// Reports a write the analysis cannot resolve ([`BashTarget::Dynamic`]): `what` names it
    /// (a word, a snippet of code), `via` the construct.
    pub(super) fn unknown(&mut self, what: impl Into<String>, via: impl Into<String>) {
        let what = self.rehome(what.into());
        self.out.writes.push(BashWrite {
            target: BashTarget::Dynamic(what),
            via: via.into(),
        });
    }

    /// `name` reads code or instructions from its working directory (a makefile, `package.json`
    /// scripts, `Cargo.toml`, modules on `python -m`'s path): when this command line moved the
    /// working directory (`cd DIR && make`), DIR is checked like `bash FILE` (the project's or
    /// the system's). Without a `cd` it is where the session runs.
    pub(super) fn working_dir_code(&mut self, name: &str) {
        if !self.cwd.path.is_empty() || self.cwd.dynamic {
            self.script(
                &Word::synthetic(".", false),
                &format!("{name} reads code or instructions from the working directory"),
            );
        }
    }

    /// The code a shell or interpreter reading the pipe gets from a literal `echo`/`printf`
    /// before it (`echo 'print(1)' | python3`), when its stdin is that pipe. The analysis is
    /// withdrawn if the command line also defines a function of that name (see [`super::analyze`]).
    pub(super) fn take_pipe_code(&mut self) -> Option<String> {
        if !self.piped || self.stdin_file.is_some() {
            return None;
        }
        let code = self.pipe_code.take()?;
        self.used_pipe_code = true;
        Some(code)
    }

    /// Whether code was taken from a literal `echo`/`printf` while the command line defines a
    /// function of that name somewhere: then that code is not known.
    pub(super) fn pipe_code_unsure(&self) -> bool {
        self.used_pipe_code && self.output_redefined
    }

    /// Reports code read from a pipe (`… | bash`, `… | python3`): unknowable statically.
    pub(super) fn piped_code(&mut self, name: &str) {
        self.unknown("<stdin>", format!("{name} running code from a pipe"));
    }
}

/// Settings naming a file (or a directory files are created in) a program writes.
const WRITES_TO: &str = "GIT_INDEX_FILE LD_DEBUG_OUTPUT NODE_V8_COVERAGE TMPDIR TMP TEMP TEMPDIR \
    npm_config_cache NPM_CONFIG_CACHE npm_config_prefix NPM_CONFIG_PREFIX HISTFILE LESSHISTFILE \
    PYTHONPYCACHEPREFIX COVERAGE_FILE CARGO_TARGET_DIR CARGO_BUILD_TARGET_DIR PIP_CACHE_DIR \
    XDG_CACHE_HOME XDG_DATA_HOME XDG_STATE_HOME XDG_CONFIG_HOME XDG_RUNTIME_DIR \
    npm_config_tmp YARN_CACHE_FOLDER GOCACHE GOMODCACHE GOPATH CCACHE_DIR MYPY_CACHE_DIR \
    RUFF_CACHE_DIR JUPYTER_CONFIG_DIR IPYTHONDIR MPLCONFIGDIR PIP_TARGET PIP_PREFIX PIP_ROOT \
    PIP_SRC PIP_WHEEL_DIR PIP_LOG PIP_LOG_FILE SQLITE_HISTORY NODE_REPL_HISTORY PYTHON_HISTORY \
    JEST_JUNIT_OUTPUT_DIR GOCOVERDIR GOTMPDIR GOBIN DENO_DIR DENO_INSTALL_ROOT \
    PLAYWRIGHT_BROWSERS_PATH PUPPETEER_CACHE_DIR UV_CACHE_DIR UV_PROJECT_ENVIRONMENT UV_TOOL_DIR \
    UV_TOOL_BIN_DIR UV_PYTHON_INSTALL_DIR UV_INSTALL_DIR BUNDLE_PATH BUNDLE_BIN GEM_HOME \
    COMPOSER_VENDOR_DIR COMPOSER_HOME COMPOSER_CACHE_DIR POETRY_VIRTUALENVS_PATH \
    POETRY_CACHE_DIR PYTHONUSERBASE PRE_COMMIT_HOME CYPRESS_CACHE_FOLDER PNPM_HOME BUN_INSTALL \
    CARGO_HOME CARGO_INSTALL_ROOT GRADLE_USER_HOME NODE_COMPILE_CACHE BABEL_CACHE_PATH \
    HF_HOME TORCH_HOME";

/// node options that write profiles, logs or reports (into the working directory by default).
pub(super) const NODE_WRITING: &[&str] = &[
    "--cpu-prof",
    "--heap-prof",
    "--prof",
    "--diagnostic-dir",
    "--report-",
    "--redirect-warnings",
    "--logfile",
    "--trace-event-file-pattern",
    "--trace-events-enabled",
    "--heapsnapshot-",
];

/// Search paths for commands, modules and libraries: each directory is checked like `bash FILE`.
const SEARCH_PATHS: &str =
    "PATH PYTHONPATH NODE_PATH PERL5LIB PERLLIB RUBYLIB GEM_PATH LD_LIBRARY_PATH";

/// Directories and files of configuration (which can name programs to run: git aliases, pagers
/// and hooks in `~/.gitconfig`, npm's `script-shell`, cargo's `runner`) or code run at start-up.
const CONFIG_HOMES: &str = "HOME XDG_CONFIG_HOME ZDOTDIR CARGO_HOME RUSTUP_HOME PYTHONUSERBASE \
    PYTHONSTARTUP PYTHONHOME GEM_HOME BUNDLE_GEMFILE NPM_CONFIG_USERCONFIG \
    NPM_CONFIG_GLOBALCONFIG npm_config_userconfig npm_config_globalconfig";

/// Settings naming a program (with arguments) that npm or cargo run: npm's `script-shell`,
/// cargo's target runners and linkers and its wrappers, in any case.
fn program_setting(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper == "NPM_CONFIG_SCRIPT_SHELL"
        || (upper.starts_with("CARGO_")
            && (upper.ends_with("_RUNNER")
                || upper.ends_with("_LINKER")
                || upper.contains("WRAPPER")))
}

/// Programs build tools run in place of the usual ones.
const PROGRAMS: &str = "CC CXX CPP LD AR RUSTC RUSTC_WRAPPER RUSTC_WORKSPACE_WRAPPER RUSTDOC \
    CARGO_BUILD_RUSTC CARGO_BUILD_RUSTC_WRAPPER";

/// Options that make a command run a program, load a configuration that can, or write a file
/// its rule does not model, by command: a word equal to one (or `OPT=…`), or holding one of the
/// `contains` patterns (case-insensitive: `-o ProxyCommand=…`, sqlite's `.output`).
const RUNS_BY_OPTION: &[(&str, &[&str], &[&str])] = &[
    (
        "ssh scp sftp",
        &["-F", "-S"],
        &["proxycommand", "localcommand", "knownhostscommand"],
    ),
    (
        "tar",
        &[
            "--checkpoint-action",
            "-I",
            "--use-compress-program",
            "--to-command",
            "--info-script",
            "--new-volume-script",
            "-F",
        ],
        &[],
    ),
    ("zip", &["-TT", "--unzip-command"], &[]),
    ("curl", &["-K", "--config", "--libcurl", "--etag-save"], &[]),
    (
        "sqlite3",
        &["-cmd", "-init"],
        &[
            ".output",
            ".once",
            ".save",
            ".backup",
            ".shell",
            ".system",
            ".import",
            "writefile(",
        ],
    ),
    (
        "git",
        &["--upload-pack", "--receive-pack", "--exec"],
        &["--exec-path="],
    ),
    (
        "yq",
        &["-i", "--in-place", "--inplace", "-yi", "-iy", "-Pi", "-iP"],
        &[],
    ),
    ("ex vim vi nvim", &["-c", "--cmd", "-S"], &[]),
    ("sort", &["--compress-program"], &[]),
    // `npm test --script-shell=/tmp/x`: the shell npm runs scripts with.
    ("npm pnpm yarn", &["--script-shell"], &[]),
    ("m4", &["--debugfile", "-o", "--error-output"], &[]),
];

/// yarn's and pnpm's own subcommands (any other name runs a binary or a script).
const PM_SUBCOMMANDS: &str = "add audit autoclean bin cache check config create dedupe dlx doctor \
    exec env explain fetch generate-lock-entry global help i import info init install licenses \
    link list ln login logout ls node npm outdated owner pack patch patch-commit plugin policies \
    prune publish rebuild remove rm root run search set setup stage store tag team test \
    unlink unplug up update upgrade upgrade-interactive version versions why workspace \
    workspaces constraints start restart stop t tst rb un uninstall import-meta-resolve \
    deploy fetch licenses server self-update";

/// npm's (pnpm's, yarn's) options that take a value, skipped before a subcommand.
const NPM_VALUED: &str = "--prefix --dir --cwd -C -w --workspace --userconfig --globalconfig \
    --cache --registry --loglevel --node-options --filter -F";

/// Build tools, test runners and package managers that read their instructions (and code) from
/// the working directory: a makefile, `package.json` scripts and `.npmrc`, `Cargo.toml` and
/// `.cargo/config.toml`, `go.mod` (`go generate` runs commands), `conftest.py`, a Rakefile,
/// JavaScript configuration files of bundlers, linters and test runners.
const READS_WORKING_DIR: &str = "make gmake cmake ninja meson cargo go npm pnpm yarn bun deno \
    pytest py.test tox nox rake bundle gradle mvn ant just composer phpunit rspec jest vitest \
    mocha eslint prettier webpack vite rollup";

/// Whether `name ARGS` reads instructions or code from its working directory
/// ([`READS_WORKING_DIR`]); `--version` and `--help` alone do not.
fn reads_working_dir(name: &str, args: &[Word]) -> bool {
    listed(READS_WORKING_DIR, name)
        && (args.is_empty()
            || !args.iter().all(|w| {
                matches!(
                    w.value.as_str(),
                    "--version" | "-v" | "-V" | "version" | "--help" | "-h" | "help"
                )
            }))
}

/// Options whose value is a file or directory of code the command loads or runs (`node -r
/// FILE`, `make -C DIR`): like `bash FILE`, it must be the project's or the system's.
const CODE_BY_OPTION: &[(&str, &[&str])] = &[
    ("awk gawk mawk nawk", &["-f", "--file", "-i", "--include"]),
    ("node", &["-r", "--require", "--import", "--loader"]),
    ("perl", &["-I"]),
    ("ruby", &["-I", "-r"]),
    ("bash sh", &["--rcfile", "--init-file"]),
    ("make gmake", &["-C", "--directory"]),
    (
        "npm pnpm yarn bun",
        &[
            "--prefix",
            "--dir",
            "--cwd",
            "-C",
            "--userconfig",
            "--globalconfig",
        ],
    ),
    // Launchers' project directories and files (see `registry::LAUNCHERS`).
    (
        "uv",
        &[
            "--directory",
            "--project",
            "--env-file",
            "--with-requirements",
        ],
    ),
    ("poetry", &["--directory", "-C", "--project", "-P"]),
    ("bundle", &["--gemfile"]),
    ("composer", &["-d", "--working-dir"]),
    ("conda mamba micromamba", &["-p", "--prefix", "--cwd"]),
    ("mise rtx", &["-C", "--cd"]),
    ("pixi", &["--manifest-path"]),
    ("go", &["-C"]),
    ("cargo", &["--manifest-path"]),
    // Task runners' task files.
    ("just", &["-f", "--justfile", "-d", "--working-directory"]),
    ("task go-task", &["-t", "--taskfile", "-d", "--dir"]),
    (
        "rake",
        &[
            "-f",
            "--rakefile",
            "-I",
            "--libdir",
            "-r",
            "--require",
            "-C",
            "--directory",
        ],
    ),
    ("invoke inv", &["-r", "--search-root", "-f", "--config"]),
    ("coverage", &["--rcfile"]),
    // Maven's build file, Gradle's build and settings files and init scripts; JavaScript
    // configuration files of test runners, bundlers and linters (code they run).
    ("mvn mvnw", &["-f", "--file"]),
    (
        "gradle gradlew",
        &[
            "-b",
            "--build-file",
            "-c",
            "--settings-file",
            "-p",
            "--project-dir",
            "-I",
            "--init-script",
        ],
    ),
    (
        "jest vitest eslint prettier webpack webpack-cli vite rollup mocha playwright cypress",
        &["-c", "--config"],
    ),
    ("babel", &["--config-file"]),
    ("tox", &["-c", "--conf"]),
    ("nox", &["-f", "--noxfile"]),
];

fn runs_by_option(name: &str, args: &[Word]) -> Option<&'static str> {
    let (_, exact, contains) = RUNS_BY_OPTION
        .iter()
        .find(|(names, ..)| listed(names, name))?;
    for w in args {
        let v = w.value.as_str();
        if let Some(opt) = exact
            .iter()
            .find(|o| v == **o || v.strip_prefix(**o).is_some_and(|r| r.starts_with('=')))
        {
            return Some(opt);
        }
        let lower = v.to_ascii_lowercase();
        if let Some(pat) = contains.iter().find(|p| lower.contains(**p)) {
            return Some(pat);
        }
    }
    None
}

/// The values of [`CODE_BY_OPTION`]'s options in `args` (`-r FILE`, `--require=FILE`,
/// `-IDIR`).
fn code_by_option(name: &str, args: &[Word]) -> Vec<Word> {
    let Some((_, opts)) = CODE_BY_OPTION.iter().find(|(names, _)| listed(names, name)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(w) = it.next() {
        let v = w.value.as_str();
        for o in *opts {
            if v == *o {
                if let Some(next) = it.clone().next() {
                    out.push(next.clone());
                }
            } else if let Some(rest) = v.strip_prefix(*o) {
                let rest = if o.starts_with("--") {
                    rest.strip_prefix('=')
                } else {
                    Some(rest)
                };
                if let Some(r) = rest.filter(|r| !r.is_empty()) {
                    out.push(Word::synthetic(r, w.dynamic));
                }
            }
        }
    }
    // gawk's `-i inplace` is its in-place extension, not a file (see the awk rule).
    out.retain(|w| w.dynamic || w.value != "inplace");
    out
}

/// Whether an assignment (`NAME=value`) sets a variable through which git or a shell runs a
/// program of the value's choosing (`GIT_EXTERNAL_DIFF`, `GIT_CONFIG_KEY_0=core.fsmonitor`,
/// `BASH_ENV`, `LD_PRELOAD`, ...). Pagers and editors set to a plain viewer (`GIT_PAGER=cat`,
/// common in agents' read-only commands) are not.
fn runs_program_from_env(w: &Word) -> bool {
    let Some((name, value)) = w.value.split_once('=') else {
        return false;
    };
    let name = name.trim_end_matches('+');
    // `GIT_CONFIG_NOSYSTEM=1` and a config file of `/dev/null` only make git hermetic.
    let always = (name.starts_with("GIT_CONFIG")
        && name != "GIT_CONFIG_NOSYSTEM"
        && value.trim() != "/dev/null")
        || matches!(
            name,
            "GIT_EXTERNAL_DIFF"
                | "GIT_SSH"
                | "GIT_SSH_COMMAND"
                | "GIT_ASKPASS"
                | "SSH_ASKPASS"
                | "GIT_EXEC_PATH"
                | "GIT_TEMPLATE_DIR"
                | "GIT_DIR"
                | "GIT_WORK_TREE"
                | "BASH_ENV"
                | "ENV"
                | "PROMPT_COMMAND"
                | "LD_PRELOAD"
                | "LD_AUDIT"
                | "GIT_ALLOW_PROTOCOL"
        )
        // `PYTHONBREAKPOINT=os.system`: the callable `breakpoint()` runs.
        || (name == "PYTHONBREAKPOINT" && !matches!(value.trim(), "" | "0"))
        || name.starts_with("BASH_FUNC_")
        // make reads the makefiles `MAKEFILES` names, and takes options from `MAKEFLAGS`.
        || (name == "MAKEFILES" && !value.trim().is_empty())
        || (matches!(name, "MAKEFLAGS" | "MFLAGS" | "GNUMAKEFLAGS")
            && value.split_whitespace().any(|o| {
                ["-f", "--file", "--makefile", "-C", "--directory", "--eval", "-E", "-I", "--include"]
                    .iter()
                    .any(|p| o.starts_with(p))
            }))
        || (matches!(name, "LESSOPEN" | "LESSCLOSE") && !value.trim().is_empty())
        // Compiler and JVM flags given through the environment that run a program, load code
        // or name where output goes (`RUSTFLAGS='-C linker=…'`, `--emit … -o f`, `GOFLAGS=
        // -toolexec=…`, `JAVA_TOOL_OPTIONS=-javaagent:…`).
        || (matches!(
            name,
            "RUSTFLAGS" | "RUSTDOCFLAGS" | "CARGO_ENCODED_RUSTFLAGS" | "CARGO_BUILD_RUSTFLAGS"
        ) && value.split([' ', '\x1f']).any(|o| {
            o == "-o"
                || ["-L", "-l", "--out", "--emit", "--output"]
                    .iter()
                    .any(|p| o.starts_with(p))
                || ["linker", "incremental", "plugin", "profile-"]
                    .iter()
                    .any(|p| o.contains(p))
        }))
        || (name == "GOFLAGS" && value.split_whitespace().any(go_flag_runs_or_writes))
        || (matches!(
            name,
            "JAVA_TOOL_OPTIONS"
                | "_JAVA_OPTIONS"
                | "JDK_JAVA_OPTIONS"
                | "JAVA_OPTS"
                | "MAVEN_OPTS"
                | "GRADLE_OPTS"
        ) && JVM_OPTIONS_THAT_LOAD_OR_WRITE
            .iter()
            .any(|p| value.contains(p)))
        // Prompts are expanded by the shell (`PS4` for every traced command): a command
        // substitution in one runs.
        || (matches!(name, "PS0" | "PS1" | "PS2" | "PS3" | "PS4")
            && (value.contains("$(") || value.contains('`')));
    let viewer = matches!(
        name,
        "GIT_PAGER"
            | "PAGER"
            | "GIT_EDITOR"
            | "EDITOR"
            | "VISUAL"
            | "GIT_SEQUENCE_EDITOR"
            | "MANPAGER"
    );
    always
        || (viewer
            && !matches!(
                value.trim(),
                "" | "cat" | "less" | "less -R" | "less -FRX" | "more" | "true" | ":"
            ))
}

/// `GOFLAGS` options that run a program, load code or name an output file.
fn go_flag_runs_or_writes(o: &str) -> bool {
    let o = o.trim_start_matches('-');
    [
        "toolexec",
        "exec",
        "o",
        "overlay",
        "modfile",
        "coverprofile",
        "pgo",
        "ldflags",
        "gcflags",
        "asmflags",
    ]
    .iter()
    .any(|p| o == *p || o.starts_with(&format!("{p}=")))
}

/// JVM options (in `JAVA_TOOL_OPTIONS`, `MAVEN_OPTS`, …) that load agents or classes or name
/// files and directories written.
const JVM_OPTIONS_THAT_LOAD_OR_WRITE: [&str; 14] = [
    "-javaagent",
    "-agentpath",
    "-agentlib",
    "-Xlog",
    "-Xloggc",
    "HeapDumpPath",
    "LogFile",
    "ErrorFile",
    "FlightRecording",
    "-Dmaven.repo.local",
    "Directory",
    "-Xbootclasspath",
    "-cp",
    "-classpath",
];

/// Commands that only read and load no configuration from a home directory: a `HOME=…` prefix
/// changes nothing they do.
const READ_ONLY_NAMES: &str = "ls cat head tail wc stat file echo printf pwd true false test [ \
    tree nl tac sort cut md5sum sha1sum sha256sum cmp basename dirname realpath readlink";

/// Replaces each word after the `n_assign` leading assignments by its brace expansion
/// ([`super::brace::expand`]), re-lexed as bash sees it (`cp src/app.py{,.bak}` has two
/// operands). Substitutions inside have already run.
fn expand_braces(words: &mut Vec<Word>, n_assign: usize, depth: usize) {
    if !words[n_assign.min(words.len())..]
        .iter()
        .any(|w| w.dynamic && w.raw.contains('{'))
    {
        return;
    }
    let mut out = Vec::with_capacity(words.len());
    for (i, w) in std::mem::take(words).into_iter().enumerate() {
        let expanded = (i >= n_assign && w.dynamic && w.raw.contains('{'))
            .then(|| super::brace::expand(&w.raw))
            .flatten()
            .and_then(|texts| {
                texts
                    .iter()
                    .map(|t| {
                        let mut lexer = Lexer::new(t.as_bytes(), depth);
                        match lexer.list(false).as_slice() {
                            [Tok::Word(x)] => Some(Word {
                                substs: Vec::new(),
                                ..x.clone()
                            }),
                            // An empty alternative alone (`{,}`) is no word.
                            [] => Some(Word::synthetic("", false)),
                            _ => None,
                        }
                    })
                    .collect::<Option<Vec<Word>>>()
            });
        match expanded {
            Some(ws) => out.extend(ws.into_iter().filter(|x| !x.raw.is_empty())),
            None => out.push(w),
        }
    }
    *words = out;
}

/// What printf prints for a format without conversions, when its only escapes are `\n`, `\t`,
/// `\\`, `\"` and `\'`.
fn printf_plain(format: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            c @ ('\\' | '"' | '\'') => out.push(c),
            _ => return None,
        }
    }
    Some(out)
}

fn join_values(words: &[Word]) -> String {
    words
        .iter()
        .map(|w| w.value.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) fn is_assignment(w: &Word) -> bool {
    let Some((name, _)) = w.value.split_once('=') else {
        return false;
    };
    let name = name.strip_suffix('+').unwrap_or(name);
    // `NAME[SUBSCRIPT]=…`: an array element (a substitution in the subscript was run already).
    let name = match name.strip_suffix(']').and_then(|n| n.split_once('[')) {
        Some((array, _)) => array,
        None => name,
    };
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The rule name of a command word: its basename with version suffixes and GNU/BSD variants folded
/// (`/usr/bin/python3.12` -> `python`, `gawk` -> `awk`, `nodejs` -> `node`).
pub(super) fn canonical(word: &str) -> &str {
    let base = word.rsplit('/').next().unwrap_or(word);
    // A package with its version, as `npx` and `bunx` take it: `node@20`, `prettier@3.2`.
    let base = match base.split_once('@') {
        Some((b, v)) if !b.is_empty() && !v.is_empty() => b,
        _ => base,
    };
    let versioned = |prefix: &str| {
        base.strip_prefix(prefix)
            .is_some_and(|v| v.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
    };
    match base {
        _ if versioned("python") => "python",
        _ if versioned("perl") => "perl",
        _ if versioned("ruby") => "ruby",
        _ if versioned("php") => "php",
        "nodejs" | "tsx" | "ts-node" | "esno" | "esr" => "node",
        "ipython" | "ipython3" | "pypy" | "pypy3" | "micropython" | "graalpy" | "jython" => {
            "python"
        }
        "jruby" | "truffleruby" => "ruby",
        "gawk" | "mawk" | "nawk" => "awk",
        "gsed" => "sed",
        "gtar" | "bsdtar" => "tar",
        "ggrep" => "grep",
        "batcat" => "bat",
        _ => base,
    }
}
