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

/// Per-command rules written as code, looked up by [`canonical`](super::eval::canonical) name
/// after the registry's runners are unwrapped, for the programs the registry (`crate::registry`) does not
/// describe as data: what a spec cannot say (a script or code in an operand, subcommands with a
/// grammar of their own, interpreters, archives, git, editors, option values that are themselves
/// command lines).
pub(crate) const RULES: &[(&str, Rule)] = &[
    ("cd pushd popd", rule_cd),
    ("sed", rule_sed),
    ("perl ruby", rule_perl_ruby),
    ("awk", rule_awk),
    ("cp mv install ln link", rule_copy),
    ("chmod", rule_chmod),
    ("dd", rule_dd),
    ("patch", rule_patch),
    ("git", rule_git),
    ("curl", rule_curl),
    ("wget", rule_wget),
    ("tar", rule_tar),
    ("unzip", rule_unzip),
    ("unrar rar", rule_unrar),
    ("jar", rule_jar),
    ("unar cabextract atool aunpack dtrx", rule_extract),
    ("rsync scp", rule_rsync),
    ("python node php", rule_interpreter),
    ("pytest py.test", rule_pytest),
    ("bash sh zsh dash ksh rbash mksh yash eval", rule_shell),
    ("source .", rule_source),
    ("make gmake", rule_make),
    ("flock", rule_flock),
    ("trap watch su script", rule_command_string),
    ("ctags etags", rule_ctags),
    (
        "mapfile readarray compgen history alias",
        rule_builtin_callback,
    ),
    ("ssh", rule_ssh),
    ("nix-shell direnv nvm", rule_env_runner),
    ("sg", rule_sg),
    (
        "sd rpl fastmod ruplacer comby ast-grep semgrep codemod",
        rule_replacer,
    ),
    (
        "gzip gunzip bzip2 bunzip2 xz unxz lzma unlzma zstd unzstd lz4 compress uncompress \
         pigz unpigz pbzip2 lbzip2 pixz plzip lzip lzop brotli unbrotli zopfli bzip3 lrzip \
         lrunzip unlz4 lz4c",
        rule_compress,
    ),
    ("split csplit", rule_split),
    (
        "vim vi nvim view ex ed vimdiff gvim gvimdiff rvim rview evim vimx nvim-qt",
        rule_editor,
    ),
    ("find", rule_find),
    (
        "gcc cc c++ g++ clang clang++ cpp as ld ld.bfd ld.gold ld.lld rustc objcopy strip gpg gpg2 sdiff ptx logsave",
        rule_compiler_output,
    ),
    ("openssl", rule_openssl),
    ("mktemp", rule_mktemp),
    ("zip", rule_zip),
    ("sqlite3", rule_sqlite),
    ("ssh-keygen", rule_ssh_keygen),
    ("ar", rule_ar),
    ("gdb", rule_gdb),
    ("tmux screen", rule_multiplexer),
    (
        "black isort autopep8 yapf ruff prettier eslint stylelint gofmt goimports rustfmt clang-format php-cs-fixer phpcbf cargo",
        rule_formatter,
    ),
    ("grep egrep fgrep rg ag ack", rule_grep),
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
