//! The command tables: prefix commands unwrapped before the lookup ([`PREFIXES`]) and one rule
//! per command name ([`RULES`]); the rules themselves live in one file per command family.

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
    rule_opaque_interpreter, rule_openssl, rule_sqlite, rule_ssh_keygen, rule_zip,
};
use read::{rule_grep, rule_ls};
use script::{rule_awk, rule_interpreter, rule_perl_ruby, rule_pytest};
use shell::{rule_builtin_callback, rule_cd, rule_command_string, rule_flock, rule_make};
use shell::{rule_env_runner, rule_runs_unseen_command, rule_shell, rule_source, rule_ssh};

use super::eval::{Eval, Inv};
use super::lex::Word;

/// Commands that run the command in their operands, unwrapped before the rule lookup: names,
/// short options with a value, long options with a value, operands before the inner command
/// (`timeout DURATION`), options that make them run nothing (`command -v`).
pub(super) const PREFIXES: &[(&str, &str, &str, usize, &str)] = &[
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
    (
        "builtin nohup chronic unbuffer busybox setsid fakeroot catchsegv firejail coproc",
        "",
        "",
        0,
        "",
    ),
    ("taskset", "", "", 1, ""),
    (
        "prlimit numactl valgrind setpriv",
        "",
        "--reuid --regid --groups --inh-caps --ambient-caps --bounding-set --securebits",
        0,
        "",
    ),
    (
        "unshare",
        "wRSG",
        "--propagation --setgroups --map-user --map-group --wd --root --kill-child",
        0,
        "",
    ),
    // `chrt [opts] PRIORITY CMD`, `setarch ARCH CMD` (`chrt -p PID` runs nothing).
    ("chrt", "", "", 1, "-p --pid -m --max"),
    ("setarch", "", "", 1, "--list"),
    // `strace -o FILE CMD` (the `-o` file is written, see `invoke`).
    (
        "strace ltrace",
        "abeEIoOpPsSuUX",
        "--output --expr --trace --signal --status --user --env --attach --string-limit",
        0,
        "-p --attach -c",
    ),
    ("exec", "a", "", 0, ""),
    ("dbus-run-session toybox shx", "", "", 0, "--version --help"),
    (
        "xvfb-run",
        "nsfep",
        "--server-num --server-args --auth-file --error-file --xauth-protocol",
        0,
        "--help",
    ),
    ("faketime", "p", "", 1, "--help --version"),
    (
        "cpulimit",
        "lpeP",
        "--limit --pid --exe --path",
        0,
        "-p --pid -e --exe -P --path",
    ),
    ("timeout", "sk", "--signal --kill-after", 1, ""),
    // Coverage runners, environment loaders and init shims that run the command after their
    // options (`c8 npm test`, `cross-env X=1 CMD`, `dotenv -- CMD`, `tini -- CMD`).
    (
        "c8 nyc",
        "roxnetiw",
        "--reporter --reports-dir --report-dir --temp-dir --include --exclude --extension --src \
         --require --cwd --nycrc-path --config --lines --branches --functions --statements",
        0,
        "--version --help -h",
    ),
    ("cross-env cross-env-shell", "", "", 0, ""),
    ("dotenv", "ecv", "", 0, "--help"),
    ("env-cmd", "fer", "--file --environments", 0, "--help"),
    (
        "rlwrap eatmydata torsocks proxychains proxychains4 tini dumb-init",
        "",
        "",
        0,
        "--version --help",
    ),
    ("su-exec gosu s6-setuidgid", "", "", 1, ""),
    ("stdbuf", "ioe", "--input --output --error", 0, ""),
    (
        "npx bunx pnpx",
        "p",
        "--package --node-options",
        0,
        "-v --version",
    ),
    // `uvx TOOL`: `uv tool run TOOL`.
    (
        "uvx",
        "p",
        "--from --with --with-editable --with-requirements --python --index --index-url \
         --extra-index-url --cache-dir",
        0,
        "--version --help",
    ),
];

/// Package and environment managers whose subcommand runs the command after it (`uv run CMD`,
/// `bundle exec CMD`, `npm exec -- CMD`), unwrapped like [`PREFIXES`]: names, subcommands,
/// options with a value. Any other option word before the command is taken as a flag.
pub(super) const LAUNCHERS: &[(&str, &str, &str)] = &[
    (
        "uv",
        "run tool",
        "--with --with-editable --with-requirements --python -p --package --extra --group \
         --only-group --env-file --directory --project --index --index-url --extra-index-url \
         --default-index --from --cache-dir --config-file",
    ),
    (
        "poetry pipenv pdm hatch rye",
        "run",
        "--directory -C --project -P -e --env",
    ),
    ("bundle", "exec", "--gemfile"),
    ("composer", "exec", "-d --working-dir"),
    (
        "pnpm",
        "exec dlx",
        "-C --dir --filter -F --package --workspace-root -w",
    ),
    ("yarn", "exec dlx", "-p --package"),
    (
        "npm",
        "exec x",
        "-p --package -w --workspace --prefix --node-options",
    ),
    (
        "conda mamba micromamba",
        "run",
        "-n --name -p --prefix --cwd",
    ),
    ("mise rtx", "exec x", "-C --cd -E --env -j --jobs"),
    ("pixi", "run exec", "-e --environment --manifest-path"),
    ("pipx", "run", "--spec --python --index-url --pip-args"),
    ("bun", "x", "-p --package"),
    // Version managers' shims and environment tools.
    ("pyenv rbenv nodenv goenv plenv jenv asdf", "exec", ""),
    ("volta", "run", "--node --npm --yarn --pnpm --bundled-npm"),
    ("fnm", "exec", "--using"),
    ("devbox", "run", "-c --config -e --env --env-file"),
];

type Rule = fn(&mut Eval, &Inv<'_>);

/// Per-command rules written as code, looked up by [`canonical`](super::eval::canonical) name
/// after [`PREFIXES`] are unwrapped, for the programs the registry (`crate::registry`) does not
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
    (
        "chroot nsenter runuser perf parallel at batch systemd-run crontab emacs emacsclient sftp flatpak-spawn hyperfine \
         entr nodemon watchexec concurrently start-stop-daemon daemonize papermill tcc ld.so ld-linux.so.2 ld-linux-x86-64.so.2 ld-linux-aarch64.so.1 \
         proot bwrap bubblewrap dtach abduco caffeinate retry chpst numactl cgexec tsp nq pueue \
         start-server-and-test server-test distrobox-enter distrobox toolbox mpirun mpiexec srun",
        rule_runs_unseen_command,
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
    (
        "tclsh wish expect lua luajit Rscript R julia osascript guile racket irb jshell groovy \
         groovysh octave scala kotlin ghci runghc runhaskell iex elixir erl escript ocaml raku \
         perl6 clojure clj swift rust-script kotlinc dotnet-script",
        rule_opaque_interpreter,
    ),
    ("gdb", rule_gdb),
    ("tmux screen", rule_multiplexer),
    (
        "black isort autopep8 yapf ruff prettier eslint stylelint gofmt goimports rustfmt clang-format php-cs-fixer phpcbf cargo",
        rule_formatter,
    ),
    ("grep egrep fgrep rg ag ack", rule_grep),
    ("ls tree", rule_ls),
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
