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
//!    subshell or `$(…)` does not leak out), unwraps the programs that run the command in their operands (the registry's `RUNNERS`
//!    and `LAUNCHERS`) and looks the command up: a program described as data in the registry
//!    (`registry.rs`, read by the one option parser of `opts.rs`), else one rule per command name
//!    written as code (`RULES`). Interpreter code is scanned by `scan_code` (`interp/`: one
//!    scanner, one file per language with its call table).
//!
//! # Target kinds
//! [`BashTarget::Path`] is a literal path, [`BashTarget::Tree`] "anything under this directory may
//! change", [`BashTarget::Dynamic`] a target that depends on run time: the word contains `$VAR`,
//! `$(…)`, backticks, a glob (`*?[`), a brace expansion of more than 256 words or a leading `~`
//! (also `$HOME` once the command assigned `HOME`), it is fed by `xargs`, or it is interpreter code
//! whose path is not a literal string. Shorter brace expansions are expanded as Bash does
//! (`brace.rs`: `mv src/a.py{,.bak}` has two operands). `/dev/null`, `/dev/stdout`, `/dev/stderr`,
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
//!   Tree of each start directory), `find -delete` (Tree), `find -fprint FILE`; `npx`/`bunx`/`pnpx`.
//! - Formatters and fixers (Tree of each path operand, `.` where the tool defaults to it; their
//!   check modes are neither writes nor reads): `black`, `isort`, `autopep8 -i`, `yapf -i`,
//!   `ruff format`, `ruff check --fix`, `prettier --write`, `eslint`/`stylelint --fix`,
//!   `gofmt`/`goimports -w`, `rustfmt`, `clang-format -i`, `php-cs-fixer fix`, `phpcbf`,
//!   `cargo fmt`, `cargo fix`, `cargo clippy --fix`.
//!
//! # Reads detected (best effort, literal paths only)
//! `cat`, `head`, `tail`, `less`, `more`, `bat`, `nl`, `wc`, `tac`, `sort`, `cut`, `strings`, `file`,
//! `stat`, `md5sum`, `sha256sum`, `diff`, `cmp` operands; `sed`/`awk` file operands (not the script);
//! `grep` file operands (not the pattern; Tree with `-r`), `rg`/`ag`/`ack` (Tree, `.` by default);
//! `ls`/`tree` and `find` start points (Tree, `.` by default); `< file`; `dd if=`; `patch -i`; reads
//! in interpreter code (`open('f')`, `readFileSync`, `read_text`).
//!
//! # Hidden writes reported
//! Files run as code are [`BashTarget::Script`] (`bash x.sh`, `source x`, `. x`, `make -f x`,
//! `python x.py`, `php -f x`, a program run by path `./x`, `/tmp/x`); the gate accepts the project's
//! own files and system programs. A shell or interpreter reading a pipe (`… | bash`), a command name
//! known only at run time (`$C …`), sed `w`/`W`/`e` commands and git `-c` settings that run
//! programs are [`BashTarget::Dynamic`]. `env -S`, `setsid`, `flock`, `trap`, `watch`, `su -c`,
//! `script -c` are unwrapped (`env -C DIR`, `sudo -D DIR` move the working directory); long
//! options match by unambiguous prefix (`--in-pl`).
//!
//! Also unanalysable ([`BashTarget::Dynamic`], denied before READY): `hash -p`, `alias NAME=…`,
//! `enable -f` and `BASH_FUNC_*` settings (a read-only name made to run another program),
//! `LESSOPEN`/`LESSCLOSE`, sqlite3 commands read from a file or another program, and interpreter
//! code whose text holds a shell expansion, evaluates or loads code dynamically (`exec`/`eval` of
//! a non-literal, `Function`, `vm`, `importlib` loaders, `pickle` loads, `code.interact`, Ruby
//! `instance_eval`/`send(:sym)`, PHP `assert`/`create_function`, Perl `s///ee`) or changes its
//! own directory (its relative paths). Settings that name where a program writes are targets:
//! `GIT_TRACE*` (a path), `GIT_INDEX_FILE`, `LD_DEBUG_OUTPUT`, `HISTFILE`, `COVERAGE_FILE` (files),
//! `TMPDIR`/`TMP`/`TEMP`, `NODE_V8_COVERAGE`, `npm_config_cache`, `CARGO_TARGET_DIR`, `XDG_*_HOME`,
//! … (trees); so are default output files and output options (`script`'s `typescript`,
//! `ctags`/`etags`, gcc `-Wl,-Map`, `-save-temps`, `a.out`, `pydoc -w`, `tarfile -e`, node
//! `--cpu-prof`/`--heap-prof`/`--prof`/`--report-*`/`--redirect-warnings`), sqlite3 `ATTACH` and
//! `VACUUM INTO`; `unshare --wd` moves the working directory and relative targets under `find
//! -execdir` are Dynamic. (docs/log/2026-11-26-red-team-shell-classes.md.)
//!
//! Where code is loaded from is checked like a script: each directory of a search path set for a
//! command (`PATH`, `PYTHONPATH`, `NODE_PATH`, `PERL5LIB`, `LD_LIBRARY_PATH`, …), a configuration
//! home (`HOME`, `XDG_CONFIG_HOME`, `CARGO_HOME`, …), the working directory of a build tool, test
//! runner or interpreter that reads it (`cd DIR && make`, `npm test`, `cargo`, `python -m`,
//! `python -c`, `npx`), the files interpreter code loads (`require`, `import(…)`, Perl's `do`/
//! `use lib`/`@INC`, `sys.path.insert`, Ruby's `load`, PHP's `include`) and the scripts and test
//! files of `python -m cProfile/profile/pdb/trace/doctest/unittest` and `pytest`. Commands run by
//! interpreter code in list form (Perl `system LIST`, `exec {PROG} LIST`, piped `open`) are
//! analysed as command lines; Perl's `$^I` edits `@ARGV` in place; ex/vim in Ex mode and `ed`
//! take editor commands from stdin (a literal `ed` script is read for `w FILE` and `!CMD`).
//!
//! # Out of reach (never reported)
//! Anything that depends on state outside the command text: variables and aliases or functions
//! defined by earlier commands of the session, `eval "$CMD"`, configuration files written earlier
//! where tools read them (`~/.gitconfig`, `~/.npmrc`, another repository's `.git/config` for
//! `git -C DIR`); programs that write files as a side
//! effect of their job: `make`, compilers and build tools (`cargo build`), formatters run from
//! npm scripts, package managers writing into their own directories (`node_modules/`,
//! site-packages; the manifest and lock files `npm install` and the like rewrite are reported,
//! see `manifest_edits` in `rules/output.rs`); commands the tables do not know. (Launchers — `uv run`, `bundle exec`, `npm exec`,
//! `yarn NAME`, `python -m black`, `php vendor/bin/X` — are unwrapped, and the output options
//! and in-place modes of common build, test, lint and format tools are writes: `LAUNCHERS` in
//! `registry.rs`, `tool_outputs` in `rules/output.rs`.) `tar`'s old-style bundles
//! with the value letter not last (`tar cfz`). `[[ a > b ]]` and `(( a > b ))` are
//! comparisons, not redirections. `cd` inside a pipeline stage is treated as sequential, `cd`
//! inside `eval` as not leaking out.
//!
//! Paths with a leading `~`, and any relative path after `cd` with no argument, `cd -` or
//! `cd $DIR`, are Dynamic: they depend on the environment, which this module never reads.

mod bind;
mod brace;
mod eval;
mod interp;
mod lex;
mod opts;
mod parse;
mod registry;
mod rules;
#[cfg(test)]
mod tests;

use std::collections::HashSet;

use eval::Eval;

/// Whether a command or call `name` only changes a file's metadata (`chmod`, `fchmod`,
/// `chmodSync`, `touch`, `utime`, `lutimes`, `chown`, …: by these stems, any case), which the
/// kernel sandbox cannot refuse (Landlock governs neither chmod nor utime).
pub fn changes_metadata_only(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    ["chmod", "chown", "utime", "touch"]
        .iter()
        .any(|m| name.contains(m))
}

/// How deep `$(…)`, backticks, `bash -c`/`eval` strings, `xargs` and `find -exec` may nest, and how
/// many prefix commands may wrap one command. Deeper input is not analysed further; a
/// [`BashTarget::Dynamic`] write with `via` ending in `"nesting too deep"` is reported instead, so
/// the gate fails closed. Chosen to keep recursion far from the stack limit; real commands nest
/// two or three levels.
pub const MAX_DEPTH: usize = 32;

/// The files a Bash command may write and read, each list in order of first appearance, without
/// duplicates.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BashAnalysis {
    /// Targets the command may create, modify, move or delete.
    pub writes: Vec<BashWrite>,
    /// Literal files ([`BashTarget::Path`]) and directories ([`BashTarget::Tree`]) the command reads;
    /// best effort, for the PostToolUse "explored files". Never [`BashTarget::Dynamic`].
    pub reads: Vec<BashTarget>,
}

/// One write target and the construct that writes it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(tag = "kind", content = "value", rename_all = "snake_case")
)]
pub enum BashTarget {
    /// A literal file path, possibly absolute.
    Path(String),
    /// A directory anything under which may change (or be read).
    Tree(String),
    /// A target not knowable statically; carries the raw word or code snippet, e.g. `"$OUT/x"`.
    Dynamic(String),
    /// A file run as code (`bash x.sh`, `source x`, `python x.py`, `make -f x`, `/tmp/x`): what it
    /// writes is unknown; the gate accepts the project's own files and system programs only.
    Script(String),
}

/// Analyses one Bash command line (as given to Claude Code's Bash tool): the files it may write and
/// the literal files it reads. Never fails and never panics; unparsable input (unterminated quotes,
/// binary garbage) is analysed as far as it goes. See the module docs for what is detected.
pub fn analyze(command: &str) -> BashAnalysis {
    let mut eval = Eval::default();
    eval.bound = bind::leading_bindings(command);
    eval.run_text(command);
    if eval.pipe_code_unsure() {
        eval.unknown(
            "<echo | …>",
            "code printed by echo/printf while the command line redefines them",
        );
    }
    let mut seen = HashSet::new();
    eval.out.writes.retain(|w| seen.insert(w.clone()));
    let mut seen = HashSet::new();
    eval.out.reads.retain(|r| seen.insert(r.clone()));
    eval.out
}
