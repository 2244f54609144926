//! The rules written as code: one per command name ([`RULES`]), looked up after the registry
//! (`crate::registry`); the rules themselves live in one file per command family.

mod archive;
mod files;
mod find;
mod format;
mod git;
mod net;
mod output;
mod read;
mod script;
mod shell;

use archive::{rule_extract, rule_jar, rule_tar, rule_unrar, rule_unzip};
use files::{rule_chmod, rule_compress, rule_copy, rule_dd, rule_editor, rule_patch};
use files::{rule_sed, rule_split};
use find::rule_find;
use format::{rule_formatter, rule_replacer, rule_sg};
use git::rule_git;
use net::{rule_curl, rule_rsync, rule_wget};
pub(super) use output::{manifest_edits, tool_outputs};
use output::{
    rule_ar, rule_compiler_output, rule_ctags, rule_gdb, rule_mktemp, rule_multiplexer,
    rule_openssl, rule_sqlite, rule_ssh_keygen, rule_zip,
};
use read::rule_grep;
use script::{rule_awk, rule_interpreter, rule_perl_ruby, rule_pytest};
use shell::{rule_builtin_callback, rule_cd, rule_command_string, rule_flock, rule_make};
use shell::{rule_env_runner, rule_shell, rule_source, rule_ssh};

use super::eval::{Eval, Inv};
use super::lex::Word;

type Rule = fn(&mut Eval, &Inv<'_>);

/// One rule written as code: the command names it decides (space-separated, looked up by
/// [`canonical`](super::eval::canonical) name), the function, and why a spec of the registry
/// cannot say it.
pub(crate) struct CodedRule {
    pub(crate) names: &'static str,
    pub(crate) rule: Rule,
    #[expect(
        dead_code,
        reason = "read by people: the rule's documentation in the table"
    )]
    pub(crate) why: &'static str,
}

/// Per-command rules written as code, looked up by [`canonical`](super::eval::canonical) name
/// after the registry's runners are unwrapped, for the programs the registry (`crate::registry`) does not
/// describe as data: what a spec cannot say (a script or code in an operand, subcommands with a
/// grammar of their own, interpreters, archives, git, editors, option values that are themselves
/// command lines).
pub(crate) const RULES: &[CodedRule] = &[
    CodedRule {
        names: "cd pushd popd",
        rule: rule_cd,
        why: "changes the working directory the rest of the line is judged in (`cd -`, `pushd +N`, `popd`)",
    },
    CodedRule {
        names: "sed",
        rule: rule_sed,
        why: "the script is a language: `w FILE`, `s///w FILE`, `e` commands and `-i[SUFFIX]` in place",
    },
    CodedRule {
        names: "perl ruby",
        rule: rule_perl_ruby,
        why: "`-e`/`-n`/`-p` code is scanned (`interp/`), `-i` edits the operands in place",
    },
    CodedRule {
        names: "awk",
        rule: rule_awk,
        why: "the program text is scanned for `print > FILE`, `system()` and pipes to commands (`interp/awk.rs`)",
    },
    CodedRule {
        names: "cp mv install ln link",
        rule: rule_copy,
        why: "the last operand (or `-t DIR`) is the destination, a directory or a file, the others read (`mv` also removes them)",
    },
    CodedRule {
        names: "chmod",
        rule: rule_chmod,
        why: "a mode may look like an option (`chmod -x f`)",
    },
    CodedRule {
        names: "dd",
        rule: rule_dd,
        why: "`of=FILE` operands in `key=value` form",
    },
    CodedRule {
        names: "patch",
        rule: rule_patch,
        why: "writes the files its patch names (unknown until run) unless `-o`/`--dry-run`",
    },
    CodedRule {
        names: "git",
        rule: rule_git,
        why: "subcommands with grammars of their own, `-c`/config keys that run programs, hooks, aliases",
    },
    CodedRule {
        names: "curl",
        rule: rule_curl,
        why: "`-o`/`-O`/`--output-dir`/`-D`/`-c` with URL-derived names and `--remote-name-all`",
    },
    CodedRule {
        names: "wget",
        rule: rule_wget,
        why: "`-O`/`-P`/`-o`/`-a`, URL-derived file names, `-i` lists, recursive mirrors",
    },
    CodedRule {
        names: "tar",
        rule: rule_tar,
        why: "key letters (`tar xzf`, `-C DIR` anywhere, `--to-command`, old-style bundled keys)",
    },
    CodedRule {
        names: "unzip",
        rule: rule_unzip,
        why: "extracts into `-d DIR` or the working directory, except list/test modes",
    },
    CodedRule {
        names: "unrar rar",
        rule: rule_unrar,
        why: "command letters and `-opDIR`/`DEST/` operands",
    },
    CodedRule {
        names: "jar",
        rule: rule_jar,
        why: "key letters like tar's, the jar file only after `f`",
    },
    CodedRule {
        names: "unar cabextract atool aunpack dtrx",
        rule: rule_extract,
        why: "each extractor has its own output-directory option and listing modes",
    },
    CodedRule {
        names: "rsync scp",
        rule: rule_rsync,
        why: "the last operand is the destination unless it is remote (`host:`), options that run commands (`-e`, `--rsync-path`)",
    },
    CodedRule {
        names: "python node php",
        rule: rule_interpreter,
        why: "Python, Node and PHP code in `-c`/`-e`/`-r` is scanned (`interp/`); `-m MODULE`, script files",
    },
    CodedRule {
        names: "pytest py.test",
        rule: rule_pytest,
        why: "loads `conftest.py` and plugins (`-p`), writes caches and reports",
    },
    CodedRule {
        names: "bash sh zsh dash ksh rbash mksh yash eval",
        rule: rule_shell,
        why: "`-c STRING` is parsed and evaluated as a command line; a script file is checked",
    },
    CodedRule {
        names: "source .",
        rule: rule_source,
        why: "the sourced file runs in this shell: checked like `bash FILE`",
    },
    CodedRule {
        names: "make gmake",
        rule: rule_make,
        why: "runs recipes from a makefile (`-f FILE`, `-C DIR`): a script",
    },
    CodedRule {
        names: "flock",
        rule: rule_flock,
        why: "`-c STRING` or the command in its operands runs",
    },
    CodedRule {
        names: "trap watch su script",
        rule: rule_command_string,
        why: "one operand (or `-c`) is a command string run later or elsewhere",
    },
    CodedRule {
        names: "ctags etags",
        rule: rule_ctags,
        why: "a default output (`tags`, `TAGS` for etags/`-e`) when no `-f`/`-o`, none with `-x`",
    },
    CodedRule {
        names: "mapfile readarray compgen history alias",
        rule: rule_builtin_callback,
        why: "builtins whose option runs a command or names a file (`mapfile -C`, `history -w`, `alias`)",
    },
    CodedRule {
        names: "ssh",
        rule: rule_ssh,
        why: "the command runs on a host that may be this machine",
    },
    CodedRule {
        names: "nix-shell direnv nvm",
        rule: rule_env_runner,
        why: "`--run CMD`, `exec DIR CMD`: a command and a file of code (`shell.nix`, `.envrc`)",
    },
    CodedRule {
        names: "sg",
        rule: rule_sg,
        why: "`sg` is ast-grep or shadow-utils' `sg GROUP -c CMD`, by its first word",
    },
    CodedRule {
        names: "sd rpl fastmod ruplacer comby ast-grep semgrep codemod",
        rule: rule_replacer,
        why: "positional FIND/REPLACE words before the files, preview and dry-run modes per tool",
    },
    CodedRule {
        names: "gzip gunzip bzip2 bunzip2 xz unxz lzma unlzma zstd unzstd lz4 compress uncompress pigz unpigz pbzip2 lbzip2 pixz plzip lzip lzop brotli unbrotli zopfli bzip3 lrzip lrunzip unlz4 lz4c",
        rule: rule_compress,
        why: "replaces each operand by a sibling with another suffix, unless `-c`/`-t`/`-l`",
    },
    CodedRule {
        names: "split csplit",
        rule: rule_split,
        why: "writes files named by a PREFIX operand plus generated suffixes",
    },
    CodedRule {
        names: "vim vi nvim view ex ed vimdiff gvim gvimdiff rvim rview evim vimx nvim-qt",
        rule: rule_editor,
        why: "editor commands (`-c 'wq'`, Ex mode from stdin, `-w` script-out) write what they name",
    },
    CodedRule {
        names: "find",
        rule: rule_find,
        why: "`-exec`/`-execdir`/`-ok` run commands, `-delete`, `-fprint FILE`",
    },
    CodedRule {
        names: "gcc cc c++ g++ clang clang++ cpp as ld ld.bfd ld.gold ld.lld rustc objcopy strip gpg gpg2 sdiff ptx logsave",
        rule: rule_compiler_output,
        why: "`-Wl,-Map=F`, `-save-temps`, `a.out`/`NAME.o` without `-o`, operands as outputs (`objcopy`, `strip`, `cpp`, `ptx`, `logsave`)",
    },
    CodedRule {
        names: "openssl",
        rule: rule_openssl,
        why: "single-dash long options (`-out`, `-keyout`), which the option parser reads as clusters",
    },
    CodedRule {
        names: "mktemp",
        rule: rule_mktemp,
        why: "the file is created under a directory derived from the template or `-p`",
    },
    CodedRule {
        names: "zip",
        rule: rule_zip,
        why: "the first operand is the archive written; with `-m` the inputs are removed",
    },
    CodedRule {
        names: "sqlite3",
        rule: rule_sqlite,
        why: "SQL statements and dot commands decide whether the database or files are written",
    },
    CodedRule {
        names: "ssh-keygen",
        rule: rule_ssh_keygen,
        why: "`-f FILE` writes FILE and FILE.pub, except in read modes",
    },
    CodedRule {
        names: "ar",
        rule: rule_ar,
        why: "key letters (`ar rcs`), the archive after them",
    },
    CodedRule {
        names: "gdb",
        rule: rule_gdb,
        why: "`-ex`/`-x` commands can run shell commands and write files",
    },
    CodedRule {
        names: "tmux screen",
        rule: rule_multiplexer,
        why: "the program a `tmux`/`screen` command starts runs outside this command",
    },
    CodedRule {
        names: "black isort autopep8 yapf ruff prettier eslint stylelint gofmt goimports rustfmt clang-format php-cs-fixer phpcbf cargo",
        rule: rule_formatter,
        why: "each formatter's check/write flags and defaults differ (`black --check`, `prettier --write`, `cargo fmt`, `cargo` subcommands)",
    },
    CodedRule {
        names: "grep egrep fgrep rg ag ack",
        rule: rule_grep,
        why: "reads trees; `-f FILE` patterns; `rg --pre CMD` runs a command",
    },
];

/// The word `.`: "the working directory".
fn here() -> Word {
    Word::synthetic(".", false)
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
