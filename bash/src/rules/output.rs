//! Rules for tools whose output file is an option or an operand, not a redirection, where a spec
//! of the registry (`crate::registry`) cannot say it: `openssl … -out`, `mktemp` with a directory
//! or template, `zip` (the archive; with `-m` its inputs, which it deletes), compilers and
//! linkers, sqlite3, … (`shuf -o`, `iconv -o`, `pandoc -o`, `xmllint --output`, `xxd IN OUT` and
//! `fallocate F` are specs now).

use super::here;
use crate::BashTarget;
use crate::eval::{Eval, Inv};
use crate::lex::Word;
use crate::opts::{listed, parse_opts, spec};

/// Compilers, assemblers, linkers and binary tools, which write the file after `-o` (also
/// `-oFILE`, `--output[=]FILE`, gcc's `-MF FILE` dependency file, rustc's `--out-dir DIR`), and
/// the tools whose operands are their outputs: `objcopy IN [OUT]` and `strip FILE…` (in place
/// without `-o`), `cpp IN OUT`, `ptx IN OUT`, `logsave LOG CMD…` (which also runs `CMD`).
pub(super) fn rule_compiler_output(e: &mut Eval, inv: &Inv<'_>) {
    let via = format!("{} output", inv.name);
    let mut args = inv.args.iter().peekable();
    let mut operands = Vec::new();
    let mut output = false;
    while let Some(w) = args.next() {
        let v = w.value.as_str();
        if v.starts_with("-o") || v.starts_with("--output") {
            output = true;
        }
        match v {
            // The linker's map file: `-Wl,-Map=F`, `-Wl,-Map,F`, `-Xlinker -Map=F`.
            _ if v.starts_with("-Wl,") => {
                let items: Vec<&str> = v[4..].split(',').collect();
                for (k, item) in items.iter().enumerate() {
                    let file = match *item {
                        "-Map" | "--Map" | "-o" | "--output" => items.get(k + 1).copied(),
                        _ => ["-Map=", "--Map=", "--output=", "--out-implib="]
                            .iter()
                            .find_map(|p| item.strip_prefix(p)),
                    };
                    if let Some(f) = file {
                        e.write(&Word::synthetic(f, w.dynamic), &via);
                    }
                }
            }
            "-Xlinker" => {
                if let Some(x) = args.next()
                    && (x.value.contains("Map") || x.value.starts_with("-o") || x.dynamic)
                {
                    e.unknown(x.raw.clone(), format!("{via} (-Xlinker {})", x.value));
                }
            }
            _ if v.starts_with("-save-temps") => {
                e.write_tree(&here(), &format!("{via} -save-temps"))
            }
            "-o" | "--output" | "-MF" | "--out-dir" => {
                if let Some(f) = args.next() {
                    if v == "--out-dir" {
                        e.write_tree(f, &via);
                    } else {
                        e.write(f, &via);
                    }
                }
            }
            _ if v.starts_with("--output=") => {
                let (_, f) = v.split_once('=').unwrap_or_default();
                e.write(&Word::synthetic(f, w.dynamic), &via);
            }
            _ if v.starts_with("--out-dir=") => {
                let (_, d) = v.split_once('=').unwrap_or_default();
                e.write_tree(&Word::synthetic(d, w.dynamic), &via);
            }
            _ if v.starts_with("-o") && v.len() > 2 && !v.starts_with("--") => {
                e.write(&Word::synthetic(&v[2..], w.dynamic), &via);
            }
            _ if !v.starts_with('-') || v == "-" => operands.push(w),
            _ => {}
        }
    }
    let compiler = matches!(inv.name, "gcc" | "cc" | "c++" | "g++" | "clang" | "clang++");
    let only_prints = inv.args.iter().any(|w| {
        matches!(
            w.value.as_str(),
            "-E" | "-M" | "-MM" | "--version" | "-v" | "--help" | "-fsyntax-only"
        ) || w.value.starts_with("-print-")
            || w.value.starts_with("-dump")
    });
    if compiler && !output && !only_prints && !operands.is_empty() {
        // No `-o`: `a.out`, or `NAME.o`/`NAME.s` with `-c`/`-S`, in the working directory.
        let ext = if inv.args.iter().any(|w| w.value == "-c") {
            Some(".o")
        } else if inv.args.iter().any(|w| w.value == "-S") {
            Some(".s")
        } else {
            None
        };
        match ext {
            None => e.write(&Word::synthetic("a.out", false), &via),
            Some(ext) => {
                for f in &operands {
                    let base = f.value.rsplit('/').next().unwrap_or_default();
                    let stem = base.rsplit_once('.').map_or(base, |(s, _)| s);
                    e.write(&Word::synthetic(&format!("{stem}{ext}"), f.dynamic), &via);
                }
            }
        }
    }
    match inv.name {
        "objcopy" | "strip" => operands
            .iter()
            .skip(usize::from(inv.name == "objcopy" && operands.len() > 1))
            .for_each(|f| e.write(f, &via)),
        "cpp" | "ptx" => operands.iter().skip(1).for_each(|f| e.write(f, &via)),
        "logsave" => {
            if let Some(log) = operands.first() {
                e.write(log, &via);
            }
            e.unknown("<logsave command>", "logsave runs a command");
        }
        _ => {}
    }
}

/// `ctags`/`etags`: the tag file, `-f FILE`/`-o FILE`, else `tags` (`TAGS` for etags and
/// `ctags -e`) in the working directory.
pub(super) fn rule_ctags(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &spec("foLI", "--output"));
    if a.has(&[
        "--help",
        "--version",
        "--list-languages",
        "--list-kinds",
        "--list-maps",
    ]) || a.flags.iter().any(|(f, _)| f.starts_with("--list"))
    {
        return;
    }
    let via = format!("{} tag file", inv.name);
    // `ctags -x` prints a cross reference instead of writing a tag file.
    if a.has(&["-x"]) && a.value(&["-f", "-o", "--output"]).is_none() {
        return;
    }
    match a.value(&["-f", "-o", "--output"]) {
        Some(f) => e.write(f, &via),
        None => {
            let emacs = inv.name == "etags" || a.has(&["-e"]);
            e.write(
                &Word::synthetic(if emacs { "TAGS" } else { "tags" }, false),
                &via,
            );
        }
    }
    for f in a.values(&["-L"]) {
        e.read(f);
    }
}

/// `openssl SUBCOMMAND … -out FILE` (also `-keyout`): single-dash long options.
pub(super) fn rule_openssl(e: &mut Eval, inv: &Inv<'_>) {
    let mut args = inv.args.iter();
    while let Some(w) = args.next() {
        if matches!(w.value.as_str(), "-out" | "-keyout" | "-signature")
            && let Some(f) = args.next()
        {
            e.write(f, "openssl -out");
        }
    }
}

/// `mktemp`: creates its file (or `-d` directory) in `-p DIR`/`--tmpdir=DIR`, else, for a
/// template without `-t`, relative to the working directory; with no template in `$TMPDIR`.
pub(super) fn rule_mktemp(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &spec("p", "--tmpdir --suffix"));
    if a.has(&["-u", "--dry-run"]) {
        return;
    }
    if let Some(dir) = a.value(&["-p", "--tmpdir"]) {
        return e.write_tree(dir, "mktemp -p");
    }
    let Some(template) = a.operands.first() else {
        return;
    };
    if a.has(&["-t"]) {
        return;
    }
    match template.value.rsplit_once('/') {
        Some((dir, _)) => {
            let w = Word {
                value: if dir.is_empty() {
                    "/".into()
                } else {
                    dir.into()
                },
                raw: template.raw.clone(),
                dynamic: template.dynamic,
                ..Word::default()
            };
            e.write_tree(&w, "mktemp");
        }
        None => e.write_tree(&here(), "mktemp"),
    }
}

/// `zip [opts] ARCHIVE FILES…`: the archive is written; `-m`/`--move` deletes the inputs.
pub(super) fn rule_zip(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(
        inv.args,
        &spec(
            "bnitxO",
            "--temp-path --suffixes --include --exclude --output-file",
        ),
    );
    if let Some(out) = a.value(&["-O", "--output-file"]) {
        e.write(out, "zip");
    }
    let Some((archive, inputs)) = a.operands.split_first() else {
        return;
    };
    e.write(archive, "zip");
    if a.has(&["-m", "--move"]) {
        inputs.iter().for_each(|w| e.emit(w, true, "zip -m"));
    } else {
        inputs.iter().for_each(|w| e.read(w));
    }
}

/// `sqlite3 [opts] DB [SQL…]`: the database is written by statements that change it, by dot
/// commands that write files, and (unknown statements) when the SQL comes from stdin.
pub(super) fn rule_sqlite(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(
        inv.args,
        &spec("", "-cmd -init -separator -newline -nullvalue"),
    );
    let (db, sql) = match a.operands.split_first() {
        Some((db, sql)) => (Some(*db), sql),
        None => (None, &[][..]),
    };
    let mut text: String = sql
        .iter()
        .map(|w| w.value.to_ascii_lowercase())
        .chain(a.values(&["-cmd"]).map(|w| w.value.to_ascii_lowercase()))
        .collect::<Vec<_>>()
        .join(" ");
    if sql.is_empty() && !a.has(&["--help", "-help", "--version", "-version"]) {
        // Without SQL operands the commands come from stdin: a heredoc, the text a literal
        // `echo`/`printf` pipes in; a file or another program's output is not known.
        match (inv.stdin, &e.pipe_text) {
            (Some(t), _) => text.push_str(&t.to_ascii_lowercase()),
            (None, Some(t)) if e.piped => text.push_str(&t.to_ascii_lowercase()),
            _ if e.piped
                || e.stdin_file
                    .as_ref()
                    .is_some_and(|f| f.dynamic || f.value != "/dev/null") =>
            {
                e.unknown(
                    "<sqlite3 commands on stdin>",
                    "sqlite3 reading its commands from stdin",
                );
            }
            _ => {}
        }
    }
    if [
        ".output",
        ".once",
        ".backup",
        ".save",
        ".import",
        ".restore",
        ".shell",
        ".system",
        ".open",
        ".read",
        ".log",
        ".excel",
        ".cd",
        ".load",
        ".clone",
        ".archive",
        ".ar ",
        "writefile(",
        "edit(",
        "load_extension",
    ]
    .iter()
    .any(|k| text.contains(k))
    {
        e.unknown(
            "sqlite3 dot command",
            "sqlite3 (writes files or runs commands)",
        );
    }
    // `ATTACH [DATABASE] 'file' AS x`, `VACUUM INTO 'file'`: database files written.
    for key in ["attach", "into"] {
        for (k, _) in text.match_indices(key) {
            let rest = text[k + key.len()..].trim_start();
            let rest = rest.strip_prefix("database").map_or(rest, str::trim_start);
            if key == "into"
                && !text[..k]
                    .rsplit(';')
                    .next()
                    .unwrap_or_default()
                    .contains("vacuum")
            {
                continue;
            }
            let q = rest.chars().next();
            let name = match q {
                Some(c @ ('\'' | '"')) => rest[1..].split(c).next(),
                _ => None,
            };
            match name {
                Some(n) if !n.contains('$') => {
                    let n = n.strip_prefix("file:").unwrap_or(n);
                    let n = n.split('?').next().unwrap_or_default();
                    if !n.is_empty() && n != ":memory:" {
                        // The original spelling: the text was lower-cased.
                        let orig = sql
                            .iter()
                            .map(|w| w.value.as_str())
                            .chain(inv.stdin)
                            .find_map(|t| {
                                t.to_ascii_lowercase()
                                    .find(n)
                                    .map(|p| t[p..p + n.len()].to_string())
                            })
                            .unwrap_or_else(|| n.to_string());
                        e.write(&Word::synthetic(&orig, false), &format!("sqlite3 {key}"));
                    }
                }
                _ => e.unknown(format!("<sqlite3 {key} …>"), format!("sqlite3 {key}")),
            }
        }
    }
    let changes = [
        "create", "insert", "update", "delete", "drop", "alter", "replace", "attach", "vacuum",
        "reindex", "pragma",
    ]
    .iter()
    .any(|k| text.contains(k));
    // `sqlite3 :memory:` (or no database): nothing on disk.
    let Some(db) = db.filter(|d| d.dynamic || d.value != ":memory:") else {
        return;
    };
    if changes || (sql.is_empty() && a.values(&["-cmd"]).next().is_none()) {
        e.write(db, "sqlite3");
    } else {
        e.read(db);
    }
}

/// `ssh-keygen … -f FILE`: writes FILE and FILE.pub unless it only reads (`-l`, `-y`, `-F`, `-B`).
pub(super) fn rule_ssh_keygen(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &spec("abCEfFIJjKmMNnOrstVwYzZ", ""));
    if a.has(&["-l", "-y", "-F", "-B", "-Q"]) {
        return;
    }
    for f in a.values(&["-f"]) {
        e.write(f, "ssh-keygen -f");
        let mut public = f.clone();
        public.value.push_str(".pub");
        public.raw.push_str(".pub");
        e.write(&public, "ssh-keygen -f");
    }
}

/// `ar KEY ARCHIVE [FILES]`: `r q d m s` write the archive, `x` extracts into the working
/// directory, `t p` read.
pub(super) fn rule_ar(e: &mut Eval, inv: &Inv<'_>) {
    let Some((key, rest)) = inv.args.split_first() else {
        return;
    };
    let k = key.value.trim_start_matches('-');
    let Some(archive) = rest.first() else { return };
    if k.contains(['r', 'q', 'd', 'm', 's']) {
        e.write(archive, "ar");
    }
    if k.contains('x') {
        e.write_tree(&here(), "ar x");
    }
}

/// `gdb` with commands (`-ex`, `-x`, `--eval-command`, `--command`): they can run shell
/// commands and write files.
pub(super) fn rule_gdb(e: &mut Eval, inv: &Inv<'_>) {
    let commands = inv.args.iter().any(|w| {
        let v = w.value.as_str();
        matches!(v, "-ex" | "-x" | "-iex" | "-ix" | "-batch" | "--batch")
            || v.starts_with("--eval-command")
            || v.starts_with("--command")
            || v.starts_with("--init-eval-command")
    });
    if commands {
        e.unknown("gdb", "gdb commands (can run shell commands)");
    }
}

/// `tmux` and `screen` commands that start a program in a session: it runs outside this command
/// (and outside any sandbox it runs under), so it is a run-time unknown; `send-keys` types into
/// one.
pub(super) fn rule_multiplexer(e: &mut Eval, inv: &Inv<'_>) {
    let starts = if inv.name == "screen" {
        inv.args
            .iter()
            .any(|w| w.value.starts_with("-d") || w.value == "-X" || w.value == "-Dm")
    } else {
        inv.args.iter().any(|w| {
            matches!(
                w.value.as_str(),
                "new-session"
                    | "new"
                    | "new-window"
                    | "neww"
                    | "split-window"
                    | "splitw"
                    | "respawn-pane"
                    | "respawnp"
                    | "respawn-window"
                    | "respawnw"
                    | "run-shell"
                    | "run"
                    | "if-shell"
                    | "if"
                    | "pipe-pane"
                    | "pipep"
                    | "send-keys"
                    | "send"
                    | "source-file"
                    | "source"
            )
        })
    };
    if starts {
        e.unknown(
            inv.name,
            format!("{} runs a command in a session outside this one", inv.name),
        );
    }
}

/// Build tools, test runners, linters and package managers with an option naming a file they
/// write (`esbuild --outfile F`, `eslint -o F`, `go test -coverprofile F`, `phpunit --log-junit
/// F`) or a directory they write into (`tsc --outDir D`, `javac -d D`, `pip install --target D`):
/// names, file options, directory options. Matched as `-o F`, `-oF` (one-letter options),
/// `--opt F` and `--opt=F`; go's single-dash long flags also with two dashes.
const OUTPUT_OPTIONS: &[(&str, &str, &str)] = &[
    ("esbuild", "--outfile --metafile", "--outdir"),
    (
        "tsc",
        "--outFile --out --tsBuildInfoFile",
        "--outDir --declarationDir --generateTrace",
    ),
    ("babel swc", "-o --out-file", "-d --out-dir"),
    ("rollup", "-o --file", "-d --dir"),
    ("webpack webpack-cli", "", "-o --output-path"),
    ("terser uglifyjs", "-o --output", ""),
    ("postcss", "-o --output", "-d --dir"),
    ("eslint stylelint", "-o --output-file", "--cache-location"),
    ("ruff", "-o --output-file", "--cache-dir"),
    ("prettier", "", "--cache-location"),
    ("tox", "", "--workdir"),
    ("nox", "", "--envdir"),
    ("bun", "--outfile", "--outdir"),
    ("parcel", "", "--dist-dir --cache-dir"),
    ("vue-cli-service", "", "--dest"),
    (
        "gradle gradlew",
        "",
        "--project-cache-dir -g --gradle-user-home",
    ),
    (
        "mypy dmypy",
        "--junit-xml",
        "--html-report --xml-report --txt-report --linecount-report --linecoverage-report \
         --lineprecision-report --cobertura-xml-report --any-exprs-report --cache-dir",
    ),
    (
        "pytest py.test",
        "--resultlog --result-log --report-log --html --json-report-file --md-report-output \
         --durations-path",
        "--alluredir --benchmark-storage",
    ),
    ("playwright", "-o --output", ""),
    ("istanbul", "", "--dir"),
    ("coverage", "-o --data-file", "-d --directory"),
    (
        "go",
        "-coverprofile -cpuprofile -memprofile -blockprofile -mutexprofile -trace",
        "-o -outputdir",
    ),
    ("javac kotlinc", "", "-d -s -h"),
    (
        "phpunit pest paratest",
        "--log-junit --log-teamcity --testdox-html --testdox-text --testdox-xml \
         --coverage-clover --coverage-cobertura --coverage-crap4j --coverage-php \
         --coverage-text --log-events-text --log-events-verbose-text",
        "--coverage-html --coverage-xml --cache-directory",
    ),
    ("rspec rubocop", "-o --out", ""),
    ("2to3", "", "-o --output-dir"),
    ("build pyproject-build", "", "-o --outdir"),
    (
        "cargo",
        "--logfile",
        "--out-dir --artifact-dir --target-dir --root",
    ),
    (
        "pip pip3",
        "--log --log-file --report",
        "-t --target --prefix --root --src -d --dest -w --wheel-dir",
    ),
    ("npm pnpm", "", "--pack-destination --cache"),
    (
        "jest vitest",
        "--outputFile",
        "--coverageDirectory --cacheDirectory --coverage.reportsDirectory",
    ),
    ("exiftool", "-o -out", ""),
    ("cpio", "-O -F --file", "-D --directory"),
    ("aria2c", "-o --out", "-d --dir"),
    ("uudecode", "-o --output-file", ""),
    ("brotli enscript a2ps", "-o --output", ""),
    ("libreoffice soffice", "", "--outdir"),
    ("jupyter", "--output", "--output-dir"),
    ("node", "--test-reporter-destination", ""),
    ("mogrify", "", "-path"),
    // Fifth red-team round: document, translation, code and site generators.
    ("xsltproc", "-o --output", ""),
    (
        "asciidoctor asciidoc",
        "-o --out-file",
        "-D --destination-dir",
    ),
    ("age rage", "-o --output", ""),
    ("msgfmt", "-o --output-file", ""),
    ("xgettext", "-o --output", "-p --output-dir"),
    (
        "pybabel",
        "-o --output --output-file",
        "-d --directory --output-dir",
    ),
    ("pdoc pdoc3", "", "-o --output-dir --html-dir"),
    ("jsdoc", "", "-d --destination"),
    ("typedoc", "--json", "--out"),
    ("stubgen", "", "-o --output"),
    ("sphinx-apidoc", "", "-o --output-dir"),
    ("mkdocs", "", "-d --site-dir"),
    ("hugo", "", "-d --destination"),
    ("jekyll", "", "-d --destination"),
    ("flatc", "", "-o"),
    ("thrift", "", "-o -out"),
    ("mockgen", "-destination", ""),
    ("tailwindcss", "-o --output", ""),
    ("stylus", "", "-o --out"),
    ("c8", "", "-o --reports-dir --report-dir --temp-dir"),
    ("nyc", "", "--report-dir --temp-dir -t"),
    ("helm", "", "-d --destination --untardir --output-dir"),
    ("terraform tofu", "-out", ""),
    ("pip-compile", "-o --output-file", ""),
    ("http https xh xhs", "-o --output", ""),
    (
        "openapi-generator openapi-generator-cli swagger-codegen",
        "",
        "-o --output",
    ),
];

/// Formatters and fixers that rewrite their file operands (or the working directory without
/// operands): names, the subcommand that does it (`""`: none), the options that make them write
/// (`""`: always), the options that keep them from writing (check and dry-run modes).
const IN_PLACE: &[(&str, &str, &str, &str)] = &[
    (
        "rubocop standardrb",
        "",
        "-a -A -x --autocorrect --autocorrect-all --auto-correct --auto-correct-all --fix-layout \
         --fix",
        "",
    ),
    ("autoflake docformatter", "", "-i --in-place", ""),
    ("2to3", "", "-w --write", ""),
    (
        "pyupgrade dos2unix unix2dos mac2unix unix2mac mogrify reorder-python-imports \
         add-trailing-comma",
        "",
        "",
        "",
    ),
    ("pycln mdformat", "", "", "--check --diff"),
    ("pint", "", "", "--test"),
    ("rector", "process", "", "--dry-run -n"),
    ("shfmt gofumpt", "", "-w --write", ""),
    ("swift-format", "", "-i --in-place", ""),
    (
        "standard xo stylelint markdownlint markdownlint-cli2",
        "",
        "--fix",
        "",
    ),
    ("golangci-lint", "run", "--fix", ""),
    (
        "biome",
        "check format lint",
        "--write --apply --apply-unsafe --fix",
        "",
    ),
    ("ktlint", "", "-F --format", ""),
    ("djlint", "", "--reformat", ""),
    ("deno", "fmt", "", "--check"),
    ("taplo", "fmt format", "", "--check"),
    ("terraform tofu", "fmt", "", "-check --check"),
    ("dart", "format", "", "--output=none --output=show -o"),
    ("dart", "fix", "--apply", ""),
    ("sqlfluff", "fix format", "", ""),
    ("yamlfmt", "", "", "-lint -dry"),
    ("tidy", "", "-m --modify", ""),
    (
        "recode patchelf",
        "",
        "",
        "--print-interpreter --print-rpath --print-needed",
    ),
    ("indent astyle", "", "", "--dry-run --stdout -st"),
    ("perltidy", "", "-b --backup-and-modify-in-place", ""),
    (
        "js-beautify html-beautify css-beautify",
        "",
        "-r --replace",
        "",
    ),
    (
        "jpegoptim optipng pngcrush advpng zopflipng oxipng svgo",
        "",
        "",
        "--stdout --dry-run -simulate",
    ),
    (
        "rename prename file-rename perl-rename",
        "",
        "",
        "-n --nono --dry-run --just-print",
    ),
    ("json", "", "-I --in-place", ""),
    ("xmlstarlet", "ed edit", "-L --inplace", ""),
    ("zig", "fmt", "", "--check --stdin"),
    ("dprint", "fmt", "", "--diff"),
    ("buf", "format", "-w --write", ""),
    ("uncrustify", "", "--replace --no-backup", ""),
    ("jsonlint", "", "-i --in-place", ""),
    ("enconv", "", "", ""),
    ("enca", "", "-x --convert-to", ""),
    ("convmv", "", "--notest", ""),
    ("jupyter", "nbconvert", "--inplace", ""),
];

/// The output options of [`OUTPUT_OPTIONS`] and the in-place edits of [`IN_PLACE`] in the
/// arguments of `name`, whatever rule the command also has; pytest's `--cov-report=TYPE:PATH`,
/// exiftool's tag assignments (`-TAG=VALUE` writes the operands), protoc's `--*_out=DIR`.
pub(crate) fn tool_outputs(e: &mut Eval, name: &str, args: &[Word]) {
    // `python manage.py makemigrations|startapp|…` (Django): the generators of
    // [`GENERATORS`] under `django-admin`'s name.
    if name == "python"
        && let Some(k) = args
            .iter()
            .position(|w| w.value.rsplit('/').next() == Some("manage.py"))
        && let Some(sub) = args.get(k + 1)
    {
        generators(e, "django-admin", &[sub.value.as_str()], &args[k + 2..]);
        return;
    }
    // `python -m pip …`, `python -m pytest …`: the module's options.
    if name == "python" {
        if let Some(k) = args.iter().position(|w| w.value == "-m")
            && let Some(module) = args.get(k + 1)
        {
            tool_outputs(e, &module.value.clone(), &args[k + 2..]);
        }
        return;
    }
    // `php artisan test …` passes its options to PHPUnit; `make:*` generators and `*:publish`
    // write files into the project.
    if name == "php"
        && let Some(k) = args
            .iter()
            .position(|w| w.value.rsplit('/').next() == Some("artisan"))
        && let Some(sub) = args.get(k + 1)
    {
        let sub = sub.value.as_str();
        if sub == "test" {
            tool_outputs(e, "phpunit", &args[k + 2..]);
        } else if sub.starts_with("make:")
            || sub.ends_with(":publish")
            || matches!(
                sub,
                "key:generate" | "ide-helper:generate" | "ide-helper:models"
            )
        {
            e.write_tree(&here(), &format!("php artisan {sub}"));
        }
        return;
    }
    let via = format!("{name} output");
    // `cargo --config KEY=VALUE`: keys that name programs cargo runs (`target.….runner`,
    // `build.rustc-wrapper`, `alias.…`) or where it writes; `--config FILE` is configuration
    // that can, checked like `bash FILE`.
    if name == "cargo" {
        for (k, w) in args.iter().enumerate() {
            let value = match w.value.strip_prefix("--config") {
                Some("") => args.get(k + 1).map(|v| (v.value.clone(), v.dynamic)),
                Some(r) if r.starts_with('=') => Some((r[1..].to_string(), w.dynamic)),
                _ => None,
            };
            let Some((value, dynamic)) = value else {
                continue;
            };
            match value.split_once('=') {
                Some((key, _)) => {
                    let key = key.to_ascii_lowercase();
                    if dynamic
                        || [
                            "runner",
                            "wrapper",
                            "rustc",
                            "rustdoc",
                            "linker",
                            "credential",
                            "alias",
                            "target-dir",
                            "env",
                            "include",
                        ]
                        .iter()
                        .any(|p| key.contains(p))
                    {
                        e.unknown(value.clone(), "cargo --config names a program or output");
                    }
                }
                None => e.script(
                    &Word::synthetic(&value, dynamic),
                    "cargo --config reads a configuration that can run programs",
                ),
            }
        }
    }
    // `docker exec C CMD`, `docker run IMAGE CMD`, `docker compose exec|run SERVICE CMD`: CMD
    // runs in a container, which may mount the project anywhere: what it writes is unknown.
    if matches!(name, "docker" | "podman" | "nerdctl" | "docker-compose") {
        container_command(e, name, args);
    }
    // `docker run -v HOST:CONTAINER`, `--mount …,source=HOST`: the container writes HOST.
    if matches!(name, "docker" | "podman" | "nerdctl")
        && args
            .first()
            .is_some_and(|w| matches!(w.value.as_str(), "run" | "create" | "container"))
    {
        let mut k = 0;
        while k < args.len() {
            let w = &args[k];
            let v = w.value.as_str();
            let spec = match v {
                "-v" | "--volume" | "--mount" => {
                    k += 1;
                    args.get(k).map(|x| x.value.clone())
                }
                _ => ["-v", "--volume=", "--mount="]
                    .iter()
                    .find_map(|p| v.strip_prefix(p))
                    .map(str::to_string),
            };
            if let Some(spec) = spec {
                let dynamic = args.get(k).is_some_and(|x| x.dynamic) || w.dynamic;
                let host = if v.starts_with("--mount") {
                    spec.split(',')
                        .find_map(|kv| {
                            kv.strip_prefix("source=")
                                .or(kv.strip_prefix("src="))
                                .map(str::to_string)
                        })
                        .unwrap_or_default()
                } else {
                    spec.split(':').next().unwrap_or_default().to_string()
                };
                let read_only = spec
                    .split([':', ','])
                    .skip(1)
                    .any(|o| matches!(o, "ro" | "readonly" | "ro=true" | "readonly=true"));
                // A named volume (`data:/x`) is not a path.
                if !read_only
                    && (host.contains('/')
                        || host.starts_with('.')
                        || host.starts_with('~')
                        || dynamic)
                {
                    e.write_tree(&Word::synthetic(&host, dynamic), &via);
                }
            }
            k += 1;
        }
        return;
    }
    // 7-Zip extracts into `-oDIR` (or here) and writes the archive it adds to.
    if matches!(name, "7z" | "7za" | "7zr" | "7zz") {
        let cmd = args.first().map(|w| w.value.as_str());
        let out = args.iter().find_map(|w| {
            w.value
                .strip_prefix("-o")
                .map(|d| Word::synthetic(d, w.dynamic))
        });
        match cmd {
            Some("x" | "e") => e.write_tree(&out.unwrap_or_else(here), &via),
            Some("a" | "u" | "d" | "rn") => {
                if let Some(archive) = args[1..].iter().find(|w| !w.value.starts_with('-')) {
                    e.write(archive, &via);
                }
            }
            _ => {}
        }
        return;
    }
    // `cpio -i` / `pax -r` extract here; `cpio -p DIR`, `pax -rw … DIR` copy into DIR.
    if name == "cpio" || name == "pax" {
        let flag = |c: char| {
            args.iter().any(|w| {
                w.value.starts_with('-') && !w.value.starts_with("--") && w.value.contains(c)
            })
        };
        let operands: Vec<&Word> = args.iter().filter(|w| !w.value.starts_with('-')).collect();
        let long = |o: &str| args.iter().any(|w| w.value == o);
        if (name == "cpio" && (flag('p') || long("--pass-through")))
            || (name == "pax" && flag('r') && flag('w'))
        {
            if let Some(dir) = operands.last() {
                e.write_tree(dir, &via);
            }
        } else if (name == "cpio" && (flag('i') || long("--extract")))
            || (name == "pax" && flag('r'))
        {
            e.write_tree(&here(), &via);
        }
    }
    // `docker cp CONTAINER:SRC DEST`, `kubectl cp POD:SRC DEST`: DEST on this machine.
    if matches!(name, "docker" | "podman" | "kubectl" | "nerdctl")
        && args.first().is_some_and(|w| w.value == "cp")
    {
        let operands: Vec<&Word> = args[1..]
            .iter()
            .filter(|w| !w.value.starts_with('-'))
            .collect();
        if let [_, .., dest] = operands.as_slice() {
            if dest.dynamic || !dest.value.contains(':') {
                e.write_tree(dest, &via);
            } else {
                e.unknown(
                    dest.raw.clone(),
                    format!("{name} cp into a container that may mount the project"),
                );
            }
        }
        return;
    }
    if other_tools(e, name, args) {
        return;
    }
    // ImageMagick's `convert IN… OUT`, `magick IN… OUT`: the last operand is written.
    if matches!(name, "convert" | "magick") {
        let operands: Vec<&Word> = args.iter().filter(|w| !w.value.starts_with('-')).collect();
        if operands.len() >= 2
            && let Some(out) = operands.last()
        {
            e.write(out, &via);
        }
        return;
    }
    let glued = !matches!(
        name,
        "javac" | "kotlinc" | "go" | "exiftool" | "mogrify" | "node" | "jupyter" | "tidy"
    );
    let valued = |v: &str, opt: &str| -> Option<String> {
        if let Some(r) = v.strip_prefix(opt) {
            if let Some(val) = r.strip_prefix('=') {
                return Some(val.to_string());
            }
            // `-oFILE`, for tools whose parsers take it (not javac's `-sourcepath` or go's
            // `-overlay`, single-dash long options).
            if !r.is_empty() && opt.len() == 2 && !opt.starts_with("--") && glued {
                return Some(r.to_string());
            }
        }
        None
    };
    let (files, trees) = OUTPUT_OPTIONS
        .iter()
        .find(|(names, ..)| names.split(' ').any(|n| n == name))
        .map_or(("", ""), |(_, f, t)| (*f, *t));
    let mut operands = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let w = &args[i];
        let mut v = w.value.as_str();
        i += 1;
        if v == "--" {
            operands.extend(args[i..].iter());
            break;
        }
        if name == "go" && v.starts_with("--") {
            v = &v[1..];
        }
        // tsc's options are case-insensitive (`--outdir` is `--outDir`).
        let folded;
        if name == "tsc" && v.starts_with("--") {
            folded = tsc_option(v);
            v = &folded;
        }
        let mut hit = false;
        for (opts, tree) in [(files, false), (trees, true)] {
            for opt in opts.split_whitespace() {
                let target = if v == opt {
                    let t = args.get(i).cloned();
                    i += 1;
                    t
                } else {
                    valued(v, opt).map(|val| Word::synthetic(&val, w.dynamic))
                };
                // node's `--test-reporter-destination=stdout`.
                if let Some(t) = target.filter(|t| !matches!(t.value.as_str(), "stdout" | "stderr"))
                {
                    if tree {
                        e.write_tree(&t, &via);
                    } else {
                        e.write(&t, &via);
                    }
                    hit = true;
                    break;
                }
            }
            if hit {
                break;
            }
        }
        if hit {
            continue;
        }
        if matches!(name, "pytest" | "py.test") {
            let report = if v == "--cov-report" {
                i += 1;
                args.get(i - 1).map(|x| x.value.clone())
            } else {
                v.strip_prefix("--cov-report=").map(str::to_string)
            };
            // `term-missing:skip-covered` is a terminal report, not a file.
            if let Some((kind, path)) = report.as_deref().and_then(|r| r.split_once(':'))
                && !path.is_empty()
                && !kind.starts_with("term")
            {
                let p = Word::synthetic(path, w.dynamic);
                if matches!(kind, "html" | "annotate") {
                    e.write_tree(&p, &via);
                } else {
                    e.write(&p, &via);
                }
            }
        }
        // `pytest -o cache_dir=DIR` / `--override-ini=cache_dir=DIR`: the cache goes there.
        if matches!(name, "pytest" | "py.test") {
            let ini = if v == "-o" || v == "--override-ini" {
                i += 1;
                args.get(i - 1).map(|x| (x.value.clone(), x.dynamic))
            } else {
                v.strip_prefix("--override-ini=")
                    .or_else(|| v.strip_prefix("-o"))
                    .filter(|r| !r.is_empty())
                    .map(|r| (r.to_string(), w.dynamic))
            };
            if let Some((kv, dynamic)) = ini
                && let Some((key, dir)) = kv.split_once('=')
                && key.trim() == "cache_dir"
            {
                e.write_tree(&Word::synthetic(dir, dynamic), &via);
            }
        }
        if name == "protoc" && v.starts_with("--") && v.contains("_out") {
            let dir = v
                .split_once('=')
                .map(|(_, d)| d.rsplit(':').next().unwrap_or(d));
            match dir {
                Some(d) => e.write_tree(&Word::synthetic(d, w.dynamic), &via),
                None => {
                    if let Some(d) = args.get(i) {
                        e.write_tree(d, &via);
                    }
                    i += 1;
                }
            }
        }
        if !v.starts_with('-') || v == "-" {
            operands.push(w);
        }
    }
    let exif_writes = name == "exiftool"
        && args
            .iter()
            .any(|w| w.value.starts_with('-') && (w.value.contains('=') || w.dynamic));
    let given = |flags: &str| {
        args.iter().any(|w| {
            flags.split_whitespace().any(|f| {
                w.value == f
                    || w.value.strip_prefix(f).is_some_and(|r| r.starts_with('='))
                    || (f.len() == 2
                        && glued
                        && !w.value.starts_with("--")
                        && w.value.starts_with('-')
                        && w.value[1..].contains(&f[1..]))
            })
        })
    };
    let mut in_place = exif_writes;
    for (names, sub, on, off) in IN_PLACE {
        if !names.split_whitespace().any(|n| n == name)
            || (!sub.is_empty() && !operands.first().is_some_and(|w| listed(sub, &w.value)))
        {
            continue;
        }
        if !sub.is_empty() {
            operands.remove(0);
        }
        in_place = (on.is_empty() || given(on)) && (off.is_empty() || !given(off));
        break;
    }
    if in_place {
        let via = format!("{name} (rewrites its files)");
        if operands.is_empty() {
            e.write_tree(&here(), &via);
        }
        for w in operands {
            e.write_tree(w, &via);
        }
    }
}

/// Package-manager commands that edit the project's own files, not only their dependency
/// directories: `npm pkg set|delete|fix`, `npm version V`, `npm init`/`create` (also pnpm,
/// yarn) edit `package.json` (and the lock file) of the working directory, `npm pack` writes a
/// tarball there; `go fmt`/`go fix` rewrite the packages' files, `go mod tidy|edit|init|vendor`
/// and `go get` write `go.mod`/`go.sum`; `cargo add|remove|update|init|new` write `Cargo.toml`,
/// `Cargo.lock` or a new package; the dependency changes of [`DEPENDENCY_CHANGES`] (`npm
/// install`, `poetry add`, …) write the manifest and lock files.
pub(crate) fn manifest_edits(e: &mut Eval, name: &str, args: &[Word]) {
    let subs: Vec<&str> = args
        .iter()
        .filter(|w| !w.value.starts_with('-'))
        .map(|w| w.value.as_str())
        .collect();
    if args.iter().any(|w| {
        matches!(
            w.value.as_str(),
            "--dry-run" | "--help" | "-h" | "-n" | "-diff"
        )
    }) {
        return;
    }
    let via = format!("{name} {}", subs.first().copied().unwrap_or_default());
    if matches!(name, "npm" | "pnpm" | "yarn")
        && matches!(
            subs.as_slice(),
            ["config" | "c", "set" | "delete" | "edit" | "fix", ..] | ["set" | "set-script", ..]
        )
    {
        // `npm config set script-shell …`: settings can name programs npm runs later.
        e.unknown(
            format!("<{via} …>"),
            format!("{via} changes settings npm reads"),
        );
        return;
    }
    let files: &[&str] = match (name, subs.as_slice()) {
        ("npm" | "pnpm" | "yarn", ["pkg", "set" | "delete" | "fix", ..] | ["version", _, ..]) => {
            &["package.json", "package-lock.json"]
        }
        ("npm" | "pnpm" | "yarn", ["init" | "create", ..]) | ("cargo", ["init" | "new", ..]) => {
            return e.write_tree(&here(), &via);
        }
        ("npm" | "pnpm", ["pack", ..]) => {
            if !args
                .iter()
                .any(|w| w.value.starts_with("--pack-destination"))
            {
                e.write_tree(&here(), &via);
            }
            return;
        }
        ("go", ["fmt" | "fix", ..]) => return e.write_tree(&here(), &via),
        ("go", ["mod", "tidy" | "edit" | "init" | "vendor", ..] | ["get", ..]) => {
            &["go.mod", "go.sum"]
        }
        ("go", ["work", "init" | "use" | "edit" | "sync" | "vendor", ..]) => {
            &["go.work", "go.work.sum"]
        }
        ("cargo", ["add" | "remove" | "rm" | "update" | "generate-lockfile", ..]) => {
            &["Cargo.toml", "Cargo.lock"]
        }
        _ => &[],
    };
    for f in files {
        e.write(&Word::synthetic(f, false), &via);
    }
    dependency_changes(e, name, args, &subs);
    generators(e, name, &subs, args);
    build_goals_that_rewrite(e, name, &subs);
    named_output_files(e, name, args);
    other_rewrites(e, name, args, &subs);
}

/// Framework generators and tools that add or rewrite project files as their purpose: names and
/// the subcommands that do (`*` ends a prefix: `init:*`; none listed: the command itself).
const GENERATORS: &[(&str, &str)] = &[
    (
        "rails",
        "generate g destroy d new app:update db:migrate db:rollback db:schema:dump \
         credentials:edit *:install",
    ),
    ("rake", "db:migrate db:rollback db:schema:dump *:install"),
    (
        "django-admin",
        "startproject startapp makemigrations makemessages compilemessages squashmigrations \
         optimizemigration",
    ),
    ("alembic", "revision init merge"),
    ("flask", "db"),
    ("prisma", "init format db migrate"),
    ("knex", "migrate:make seed:make init"),
    (
        "sequelize sequelize-cli",
        "migration:generate migration:create model:generate model:create seed:generate \
         seed:create init init:*",
    ),
    (
        "typeorm typeorm-ts-node-commonjs typeorm-ts-node-esm",
        "migration:generate migration:create entity:create subscriber:create init",
    ),
    ("diesel", "setup migration"),
    ("sqlx", "migrate"),
    ("ng", "generate g new add update"),
    ("nest", "generate g new"),
    ("husky", "install init add set"),
    ("changeset", "add version init pre"),
    ("lerna", "version init create import"),
    ("standard-version release-it", ""),
    ("dotnet", "new ef"),
    ("ember", "generate g new init install"),
    ("degit tiged lint-staged", ""),
    ("uv", "init"),
    ("nx", "format:write format g generate"),
    ("storybook sb", "init add automigrate upgrade"),
];

/// The generators of [`GENERATORS`] write the working directory's tree.
fn generators(e: &mut Eval, name: &str, subs: &[&str], args: &[Word]) {
    // `npx create-react-app x`, `pnpm dlx create-vite x`: project scaffolders.
    let scaffolder = name.starts_with("create-") && name.len() > "create-".len();
    let which = match GENERATORS.iter().find(|(names, _)| listed(names, name)) {
        Some((_, which)) => *which,
        None if scaffolder => "",
        None => return,
    };
    if args.iter().any(|w| {
        matches!(
            w.value.as_str(),
            "--help" | "-h" | "--version" | "--check" | "--dry-run" | "-n" | "--list" | "-l"
        )
    }) {
        return;
    }
    let first = subs.first().copied();
    // A bare `changeset` adds one.
    let hit = (name == "changeset" && subs.is_empty())
        || which.is_empty()
        || first.is_some_and(|sub| {
            which.split_whitespace().any(|p| match p.strip_suffix('*') {
                Some(prefix) => sub.starts_with(prefix),
                None => sub == p,
            })
        });
    // Read-only forms under a writing word: `prisma migrate status`, `prisma db execute`,
    // `flask db current|history|show`, `alembic` reads elsewhere, `diesel migration list`,
    // `sqlx migrate info|run`, `dotnet ef migrations list`, `changeset status`.
    let second = subs.get(1).copied().unwrap_or_default();
    let reads = matches!(
        (name, first.unwrap_or_default(), second),
        (
            "prisma",
            "migrate",
            "status" | "resolve" | "diff" | "deploy"
        ) | ("prisma", "db", "execute" | "seed" | "push")
            | (
                "flask",
                "db",
                "current"
                    | "history"
                    | "show"
                    | "heads"
                    | "branches"
                    | "upgrade"
                    | "downgrade"
                    | "check"
            )
            | (
                "diesel",
                "migration",
                "list" | "pending" | "run" | "redo" | "revert"
            )
            | ("sqlx", "migrate", "info" | "run" | "revert")
            | ("dotnet", "ef", "database" | "dbcontext")
            | ("dotnet", "new", "list" | "search")
    ) || (name == "dotnet"
        && first == Some("ef")
        && second == "migrations"
        && subs
            .get(2)
            .is_some_and(|s| matches!(*s, "list" | "script" | "has-pending-model-changes")));
    if hit && !reads {
        e.write_tree(
            &here(),
            &format!(
                "{name} {} (writes project files)",
                first.unwrap_or_default()
            ),
        );
    }
}

/// Formatters and project editors run as subcommands, and build tools' output directories:
/// `dotnet format` (not `--verify-no-changes`), `mix format` (not `--check-formatted`),
/// `swift format -i`/`swift-format -i`, `dotnet add|remove` (the project file), `swift package
/// update|resolve` (`Package.resolved`), `cmake -B DIR`, `gem install -i|--install-dir DIR`,
/// `sass IN OUT`/`IN:OUT`, `jscodeshift PATHS` (not `--dry`).
fn other_rewrites(e: &mut Eval, name: &str, args: &[Word], subs: &[&str]) {
    // `python -m pytest …`, `python -m nbstripout …`: the module's options.
    if name == "python" {
        if args.len() > 1 && args[0].value == "-m" {
            let module = args[1].value.clone();
            let rest = &args[2..];
            let subs: Vec<&str> = rest
                .iter()
                .filter(|w| !w.value.starts_with('-'))
                .map(|w| w.value.as_str())
                .collect();
            other_rewrites(e, &module, rest, &subs);
        }
        return;
    }
    let has = |flags: &[&str]| {
        args.iter().any(|w| {
            flags
                .iter()
                .any(|f| w.value == *f || w.value.starts_with(&format!("{f}=")))
        })
    };
    let via = |what: &str| format!("{name} {what}");
    match (name, subs) {
        ("dotnet", ["format", ..]) if !has(&["--verify-no-changes"]) => {
            e.write_tree(&here(), &via("format"));
        }
        ("dotnet", ["add" | "remove", ..]) => e.write_tree(&here(), &via("add/remove")),
        ("mix", ["format", ..]) if !has(&["--check-formatted", "--dry-run"]) => {
            e.write_tree(&here(), &via("format"));
        }
        ("swift", ["format", rest @ ..]) | ("swift-format", rest) if has(&["-i", "--in-place"]) => {
            let paths: Vec<&str> = rest
                .iter()
                .copied()
                .filter(|p| !matches!(*p, "format" | "lint"))
                .collect();
            if paths.is_empty() {
                e.write_tree(&here(), &via("format -i"));
            }
            for p in paths {
                e.write_tree(&Word::synthetic(p, false), &via("format -i"));
            }
        }
        ("swift", ["package", "update" | "resolve", ..]) => {
            e.write(&Word::synthetic("Package.resolved", false), &via("package"));
        }
        ("jscodeshift", _) if !has(&["-d", "--dry"]) => {
            let mut k = 0;
            while let Some(w) = args.get(k) {
                if matches!(
                    w.value.as_str(),
                    "-t" | "--transform" | "--parser" | "--extensions"
                ) {
                    k += 2;
                    continue;
                }
                if !w.value.starts_with('-') {
                    e.write_tree(w, &via("(rewrites its paths)"));
                }
                k += 1;
            }
        }
        ("lessc" | "stylus", _) if !has(&["--lint", "-l"]) => {
            let operands: Vec<&Word> = args.iter().filter(|w| !w.value.starts_with('-')).collect();
            if name == "lessc" && operands.len() == 2 {
                e.write(operands[1], &via("output"));
            }
        }
        ("sass" | "node-sass" | "dart-sass", _) => {
            let operands: Vec<&Word> = args.iter().filter(|w| !w.value.starts_with('-')).collect();
            for w in &operands {
                if let Some((_, out)) = w.value.split_once(':') {
                    e.write(&Word::synthetic(out, w.dynamic), &via("output"));
                }
            }
            if operands.len() == 2 && !operands[0].value.contains(':') {
                e.write(operands[1], &via("output"));
            }
        }
        _ => {}
    }
    match (name, subs) {
        // `cmake -E copy|touch|remove|rename|… ARGS`: the file commands of cmake.
        ("cmake", _) if args.first().is_some_and(|w| w.value == "-E") => {
            cmake_command(e, &args[1..]);
        }
        // `npm-check-updates -u` rewrites package.json.
        ("ncu" | "npm-check-updates", _) if has(&["-u", "--upgrade"]) => {
            e.write(&Word::synthetic("package.json", false), &via("-u"));
        }
        // pre-commit: `run` runs the configured hooks (formatters and fixers among them),
        // `install` writes git hooks, `autoupdate` the configuration.
        ("pre-commit", [sub, ..])
            if matches!(
                *sub,
                "run" | "install" | "install-hooks" | "autoupdate" | "migrate-config"
            ) =>
        {
            e.write_tree(&here(), &via(sub));
        }
        ("pre-commit", []) if args.is_empty() => e.write_tree(&here(), &via("run")),
        // `nbstripout NB` strips outputs in place (not `--dry-run`, `--verify`, `--install`'s
        // git configuration: `.git/config`).
        ("nbstripout", _) if !has(&["--dry-run", "--verify", "--status", "--is-installed"]) => {
            let operands: Vec<&Word> = args.iter().filter(|w| !w.value.starts_with('-')).collect();
            if has(&["--install", "--uninstall"]) {
                e.write(&Word::synthetic(".git/config", false), &via("--install"));
            }
            for w in operands {
                e.write(w, &via("(strips in place)"));
            }
        }
        ("clang-tidy", _) if has(&["-fix", "--fix", "-fix-errors", "--fix-errors"]) => {
            for w in args.iter().filter(|w| !w.value.starts_with('-')) {
                e.write(w, &via("-fix"));
            }
        }
        _ => {}
    }
    // Test runs asked to rewrite their expectations (snapshots, golden files) write the tree:
    // `jest -u`, `vitest -u`, `playwright test --update-snapshots`, `pytest --snapshot-update`,
    // `go test … -update`, `cargo insta accept|review`.
    let updates_snapshots = match (name, subs) {
        ("jest" | "vitest" | "playwright" | "react-scripts", _) => {
            has(&["-u", "--updateSnapshot", "--update-snapshots", "--update"])
        }
        ("pytest" | "py.test", _) => has(&[
            "--snapshot-update",
            "--update-snapshots",
            "--force-regen",
            "--regen-all",
            "--inline-snapshot=fix",
            "--inline-snapshot=create",
        ]),
        ("go", ["test", ..]) => has(&["-update", "--update", "-update-golden", "-golden"]),
        ("bun", ["test", ..]) => has(&["-u", "--update-snapshots"]),
        ("cargo", ["insta", "accept" | "review" | "test", ..]) => {
            subs.get(1) != Some(&"test") || has(&["--accept", "--review"])
        }
        _ => false,
    };
    if updates_snapshots {
        e.write_tree(&here(), &via("(updates its snapshots)"));
    }
    // Maven system properties that move where it writes: the local repository, the build
    // directory, report and output directories.
    if matches!(name, "mvn" | "mvnw") {
        for w in args {
            if let Some((key, dir)) = w.value.strip_prefix("-D").and_then(|kv| kv.split_once('='))
                && (key == "maven.repo.local"
                    || key.ends_with("Directory")
                    || key.ends_with(".directory")
                    || key.ends_with("outputDir")
                    || key.ends_with(".outputDirectory"))
            {
                e.write_tree(
                    &Word::synthetic(dir, w.dynamic),
                    &via("-D (a directory it writes)"),
                );
            }
        }
    }
    // `cargo test -- --logfile F`: the test harness's own log file.
    if name == "cargo"
        && matches!(subs.first(), Some(&("test" | "t" | "bench")))
        && let Some(k) = args.iter().position(|w| w.value == "--")
    {
        let mut i = k + 1;
        while let Some(w) = args.get(i) {
            if w.value == "--logfile" {
                if let Some(f) = args.get(i + 1) {
                    e.write(f, &via("-- --logfile"));
                }
            } else if let Some(f) = w.value.strip_prefix("--logfile=") {
                e.write(&Word::synthetic(f, w.dynamic), &via("-- --logfile"));
            }
            i += 1;
        }
    }
    // Arguments handed to a project's test script (`npm test -- -u`, `yarn test -u`, `pnpm
    // test -- --outputFile=f`, `npm run test -- --coverageDirectory=d`) reach its test runner
    // (jest, vitest, …): its snapshot updates and output options.
    if matches!(name, "npm" | "pnpm" | "yarn" | "bun")
        && let Some(script) = subs.first()
        && !matches!(
            *script,
            "install"
                | "i"
                | "ci"
                | "add"
                | "exec"
                | "x"
                | "dlx"
                | "pkg"
                | "config"
                | "view"
                | "info"
                | "ls"
                | "list"
                | "why"
                | "explain"
                | "outdated"
                | "audit"
                | "pack"
                | "publish"
                | "version"
                | "init"
                | "create"
        )
    {
        let dashdash = args.iter().position(|w| w.value == "--");
        let passed: &[Word] = match dashdash {
            Some(k) => &args[k + 1..],
            // yarn and pnpm hand a script every word after its name.
            None if name != "npm" => {
                let skip = usize::from(matches!(*script, "run" | "run-script"));
                match args.iter().position(|w| w.value == *script) {
                    Some(k) => args.get(k + 1 + skip..).unwrap_or_default(),
                    None => &[],
                }
            }
            None => &[],
        };
        if !(passed.is_empty() || (name == "bun" && *script == "test")) {
            let has_passed =
                |flags: &[&str]| passed.iter().any(|w| flags.contains(&w.value.as_str()));
            if has_passed(&[
                "-u",
                "--update",
                "--updateSnapshot",
                "--update-snapshots",
                "-U",
            ]) {
                e.write_tree(&here(), &via("(its test runner updates snapshots)"));
            }
            // `npm run lint -- --fix`, `npm run format -- --write`: the script's linter or
            // formatter fixes files.
            if has_passed(&["--fix", "--write", "--fix-dry-run=false"]) {
                e.write_tree(&here(), &via("(its linter or formatter rewrites files)"));
            }
            tool_outputs(e, "jest", passed);
            named_output_files(e, "jest", passed);
        }
    }
    // `cmake -B DIR`, `-BDIR`; `gem install -i DIR`, `--install-dir DIR`, `--bindir DIR`.
    let dir_opts: &[&str] = match (name, subs.first()) {
        ("cmake", _) => &["-B"],
        ("gem", Some(&"install")) => &["-i", "--install-dir", "-n", "--bindir"],
        _ => &[],
    };
    for (k, w) in args.iter().enumerate() {
        for opt in dir_opts {
            let value = if w.value == *opt {
                args.get(k + 1).cloned()
            } else if opt.len() == 2 && w.value.starts_with(opt) && w.value.len() > 2 {
                Some(Word::synthetic(&w.value[2..], w.dynamic))
            } else {
                w.value
                    .strip_prefix(&format!("{opt}="))
                    .map(|v| Word::synthetic(v, w.dynamic))
            };
            if let Some(v) = value {
                e.write_tree(&v, &via(opt));
            }
        }
    }
}

/// Long options that name an output file or directory in most command-line tools
/// (`--out FILE`, `--output=FILE`, `--outfile`, `--output-file`, `--out-dir`, …), for a program
/// the tables above do not know (`npx license-checker --out f`, `npx some-tool --output-file f`).
/// Only a value that looks like a path counts: `--output json`, `--output=jsonpath={.x}` are
/// formats.
fn named_output_files(e: &mut Eval, name: &str, args: &[Word]) {
    const FILES: &str = "--out --output --outfile --out-file --output-file --outFile \
        --outputFile --report-file --log-file --logfile";
    const DIRS: &str = "--outdir --out-dir --output-dir --outDir --outputDir --output-path";
    // git, curl and wget have their own rules; an interpreter's options after its script are
    // the script's (a project script is trusted, see docs/GATE.md "Known limits").
    if matches!(
        name,
        "git"
            | "curl"
            | "wget"
            | "python"
            | "node"
            | "perl"
            | "ruby"
            | "php"
            | "bash"
            | "sh"
            | "zsh"
            | "dash"
            | "ksh"
            | "deno"
            | "bun"
            | "java"
            | "Rscript"
            | "lua"
    ) {
        return;
    }
    let looks_like_path = |v: &str| {
        !v.is_empty()
            && v != "-"
            && !v.contains(['=', '{', '}', '$', '@', ':'])
            && (v.contains('/')
                || v.rsplit_once('.').is_some_and(|(stem, ext)| {
                    !stem.is_empty()
                        && !ext.is_empty()
                        && ext.bytes().all(|b| b.is_ascii_alphanumeric())
                }))
    };
    let mut k = 0;
    while let Some(w) = args.get(k) {
        if w.value == "--" {
            break;
        }
        let (opt, value) = match w.value.split_once('=') {
            Some((o, v)) if o.starts_with("--") => (o, Some(Word::synthetic(v, w.dynamic))),
            _ => (w.value.as_str(), args.get(k + 1).cloned()),
        };
        let tree = listed(DIRS, opt);
        if (tree || listed(FILES, opt))
            && let Some(v) = value
            && (v.dynamic
                || looks_like_path(&v.value)
                || (tree && !v.value.starts_with('-') && !v.value.contains(['=', '{', '$', ':'])))
        {
            let via = format!("{name} {opt}");
            if tree {
                e.write_tree(&v, &via);
            } else {
                e.write(&v, &via);
            }
        }
        k += 1;
    }
}

/// The subcommands that change a project's dependency set, per package manager, and the
/// manifest and lock files they rewrite in the project directory (the working directory, or the
/// one an option names): `npm install|i|add|uninstall|update|prune|dedupe|shrinkwrap`,
/// `npm audit fix`, `yarn` (alone or `add|install|remove|upgrade|up`), `pnpm`, `bun`, `poetry`,
/// `uv`, `pipenv`, `pdm`, `bundle`, `composer`, `mix deps.*`, `swift package update|resolve`,
/// `dotnet add|remove`, `cargo fetch`. `npm ci` writes only `node_modules/`. `pip install` of a
/// local project (`.`, `-e DIR`) builds it in place (`*.egg-info`, `build/`).
const DEPENDENCY_CHANGES: &[(&str, &str, &str)] = &[
    (
        "npm",
        "install i in ins inst insta instal isnt isnta isntal isntall add uninstall unin un \
         remove rm r unlink update up upgrade udpate dedupe ddp prune shrinkwrap",
        "package.json package-lock.json npm-shrinkwrap.json",
    ),
    (
        "yarn",
        "add install remove upgrade up upgrade-interactive dedupe import",
        "package.json yarn.lock",
    ),
    (
        "pnpm",
        "add install i remove rm uninstall un update up upgrade dedupe import prune",
        "package.json pnpm-lock.yaml",
    ),
    (
        "bun",
        "add a install i remove rm update",
        "package.json bun.lockb bun.lock",
    ),
    // `poetry install`/`sync`, `pipenv sync`, `pdm sync` and `composer install` install what
    // the lock file says and never rewrite it (a stale lock is an error, or is left alone);
    // the others may rewrite it even without a package named (`npm install`, `uv sync`).
    (
        "poetry",
        "add remove lock update",
        "pyproject.toml poetry.lock",
    ),
    ("uv", "add remove lock sync", "pyproject.toml uv.lock"),
    (
        "pipenv",
        "install uninstall lock update upgrade",
        "Pipfile Pipfile.lock",
    ),
    (
        "pdm",
        "add remove lock install update",
        "pyproject.toml pdm.lock",
    ),
    (
        "bundle",
        "install update add remove lock",
        "Gemfile Gemfile.lock",
    ),
    (
        "composer",
        "update upgrade u require remove bump",
        "composer.json composer.lock",
    ),
    ("mix", "deps.get deps.update deps.unlock", "mix.lock"),
    ("cargo", "fetch", "Cargo.lock"),
];

fn dependency_changes(e: &mut Eval, name: &str, args: &[Word], subs: &[&str]) {
    if subs.is_empty() && !matches!(name, "yarn" | "bundle") {
        return;
    }
    // `python -m pip …`, `uv pip …`: pip.
    let (name, args) = match name {
        "python" if args.len() > 1 && args[0].value == "-m" && args[1].value == "pip" => {
            ("pip", &args[2..])
        }
        "uv" if subs.first() == Some(&"pip") => ("pip", &args[1..]),
        "pip3" => ("pip", args),
        _ => (name, args),
    };
    // Options with a value; those naming the project directory (`npm --prefix DIR`,
    // `yarn --cwd DIR`, `pnpm -C DIR`, `poetry -C DIR`, `composer -d DIR`) move the files.
    const DIR_OPTS: &str = "--prefix -C --dir --cwd --directory --project --working-dir -d";
    const OTHER_VALUED: &str = "-w --workspace --filter --gemfile";
    let mut dir: Option<(String, bool)> = None;
    let mut words: Vec<&str> = Vec::new();
    let mut k = 0;
    while let Some(w) = args.get(k) {
        let v = w.value.as_str();
        if let Some((opt, val)) = v.split_once('=')
            && listed(DIR_OPTS, opt)
        {
            dir = Some((val.to_string(), w.dynamic));
        } else if listed(DIR_OPTS, v) {
            dir = args.get(k + 1).map(|d| (d.value.clone(), d.dynamic));
            k += 1;
        } else if listed(OTHER_VALUED, v) {
            k += 1;
        } else if !v.starts_with('-') {
            words.push(v);
        }
        k += 1;
    }
    if name == "pip" {
        // `pip install .`, `pip install -e DIR`, `pip wheel .`: the local project is built where
        // it is.
        if !matches!(words.first(), Some(&("install" | "wheel"))) {
            return;
        }
        let mut k = 0;
        while let Some(w) = args.get(k) {
            let v = w.value.as_str();
            let local = |p: &str| {
                let p = p.split('[').next().unwrap_or(p);
                p == "."
                    || p == ".."
                    || p.starts_with("./")
                    || p.starts_with("../")
                    || p.starts_with('/')
                    || (p.contains('/') && !p.contains("://") && !p.contains('@'))
            };
            if matches!(v, "-e" | "--editable") {
                if let Some(p) = args.get(k + 1) {
                    e.write_tree(
                        &Word::synthetic(p.value.split('[').next().unwrap_or("."), p.dynamic),
                        "pip install -e (builds the project in place)",
                    );
                }
                k += 2;
                continue;
            }
            if let Some(p) = v.strip_prefix("--editable=") {
                e.write_tree(
                    &Word::synthetic(p.split('[').next().unwrap_or("."), w.dynamic),
                    "pip install -e (builds the project in place)",
                );
            } else if !v.starts_with('-')
                && k > 0
                && local(v)
                && !args[k - 1].value.starts_with('-')
            {
                e.write_tree(
                    &Word::synthetic(v.split('[').next().unwrap_or("."), w.dynamic),
                    "pip install (builds the project in place)",
                );
            }
            k += 1;
        }
        return;
    }
    let Some(&(_, subcommands, files)) = DEPENDENCY_CHANGES.iter().find(|(n, _, _)| *n == name)
    else {
        return;
    };
    let first = words.first().copied();
    let changes = match (name, first) {
        // `yarn` and `bundle` alone install.
        ("yarn" | "bundle", None) => true,
        ("npm", Some("audit")) => words.get(1) == Some(&"fix"),
        (_, Some(sub)) => subcommands.split_whitespace().any(|s| s == sub),
        _ => false,
    };
    // Installing exactly what the lock file says (`pnpm install --frozen-lockfile`, `yarn
    // install --immutable`, `uv sync --locked`, `bundle install --frozen`) rewrites neither.
    let pinned = args.iter().any(|w| {
        matches!(
            w.value.as_str(),
            "--frozen-lockfile"
                | "--immutable"
                | "--frozen"
                | "--locked"
                | "--deploy"
                | "--deployment"
                | "--no-save"
                | "--check"
        )
    });
    if !changes || pinned {
        return;
    }
    let via = match first {
        Some(sub) => format!("{name} {sub} (changes the dependencies)"),
        None => format!("{name} (changes the dependencies)"),
    };
    for f in files.split_whitespace() {
        let w = match &dir {
            Some((d, dynamic)) => {
                Word::synthetic(&format!("{}/{f}", d.trim_end_matches('/')), *dynamic)
            }
            None => Word::synthetic(f, false),
        };
        e.write(&w, &via);
    }
}

/// Maven goals and Gradle tasks that rewrite the project's sources or build files: formatters
/// and fixers (`spotless:apply`, `spotlessApply`, `fmt:format`, `ktlintFormat`,
/// `rewrite:run`), sorters and version setters (`sortpom:sort`, `versions:set`,
/// `versions:use-latest-versions`).
fn build_goals_that_rewrite(e: &mut Eval, name: &str, subs: &[&str]) {
    let maven = matches!(name, "mvn" | "mvnw" | "mvnd");
    let gradle = matches!(name, "gradle" | "gradlew");
    if !maven && !gradle {
        return;
    }
    for goal in subs {
        let task = goal.rsplit(':').next().unwrap_or(goal);
        let lower = task.to_ascii_lowercase();
        let rewrites = if maven {
            goal.contains(':')
                && ([
                    "apply", "format", "fix", "sort", "set", "update", "use-", "remove", "commit",
                ]
                .iter()
                .any(|p| lower.starts_with(p))
                    || (goal.starts_with("rewrite:") && lower == "run")
                    || (goal.starts_with("tidy:") && lower == "pom"))
        } else {
            ["apply", "format", "fix"]
                .iter()
                .any(|p| lower.ends_with(p))
                || lower.starts_with("format")
                || lower.starts_with("spotlessapply")
        };
        if rewrites {
            e.write_tree(
                &here(),
                &format!("{name} {goal} (rewrites the project's files)"),
            );
        }
    }
}

/// The command a container runs (see [`tool_outputs`]): its writes become unknowns.
fn container_command(e: &mut Eval, name: &str, args: &[Word]) {
    let mut args = args;
    if name != "docker-compose" && args.first().is_some_and(|w| w.value == "compose") {
        args = &args[1..];
        // `docker compose -f FILE -p NAME exec …`.
        while let Some(w) = args.first().filter(|w| w.value.starts_with('-')) {
            let valued = matches!(
                w.value.as_str(),
                "-f" | "--file"
                    | "-p"
                    | "--project-name"
                    | "--profile"
                    | "--env-file"
                    | "--project-directory"
            );
            args = args.get(if valued { 2 } else { 1 }..).unwrap_or_default();
        }
    } else if name == "docker-compose" {
        while let Some(w) = args.first().filter(|w| w.value.starts_with('-')) {
            let valued = matches!(w.value.as_str(), "-f" | "--file" | "-p" | "--project-name");
            args = args.get(if valued { 2 } else { 1 }..).unwrap_or_default();
        }
    }
    let Some((sub, rest)) = args.split_first() else {
        return;
    };
    if sub.value == "container" {
        return container_command(e, "docker", rest);
    }
    if !matches!(sub.value.as_str(), "exec" | "run") {
        return;
    }
    let valued = "-e --env --env-file -u --user -w --workdir --name --network --net -v --volume \
        --mount -p --publish --entrypoint -l --label --add-host --cpus -m --memory --hostname \
        -h --restart --volumes-from --device --cap-add --cap-drop --security-opt --tmpfs \
        --ulimit --pull --gpus --ipc --pid --log-driver --log-opt --shm-size --platform \
        --expose --dns --link --detach-keys --index --cidfile --runtime --userns --uts";
    let mut k = 0;
    while let Some(w) = rest.get(k).filter(|w| w.value.starts_with('-')) {
        k += if listed(valued, &w.value) { 2 } else { 1 };
    }
    // The container, image or service, then the command.
    let inner = rest.get(k + 1..).unwrap_or_default();
    if inner.is_empty() {
        return;
    }
    // `--entrypoint sh IMAGE -c '…'`: the words are the arguments of that program.
    let entry = rest[..k].iter().enumerate().find_map(|(j, w)| {
        match w.value.strip_prefix("--entrypoint") {
            Some("") => rest.get(j + 1).cloned(),
            Some(v) => v.strip_prefix('=').map(|v| Word::synthetic(v, w.dynamic)),
            None => None,
        }
    });
    let mut words: Vec<Word> = entry.into_iter().collect();
    words.extend(inner.iter().cloned());
    let inner = &words[..];
    let verb = sub.value.clone();
    let found = e.capture(|e| e.invoke(inner, None));
    for w in found.writes {
        // A script relative to the container's working directory is the project's (as on this
        // machine); an absolute one cannot be judged.
        if matches!(&w.target, BashTarget::Script(p) if !p.starts_with('/')) {
            continue;
        }
        e.unknown(
            format!("<{} in a container>", w.via),
            format!(
                "{name} {verb}: {} in a container that may mount the project",
                w.via
            ),
        );
    }
}

/// More tools that write or run what their arguments name: `fd -x CMD` (like `find -exec`; what
/// CMD writes is unknown), `rg --pre CMD` (runs CMD on every file), `uudecode` without `-o`
/// (the file its input names), `rclone copy|sync|move SRC DEST` (a local DEST), `ffmpeg`/`sox`/
/// `wkhtmltopdf` (the last operand), `sqlite-utils` (the database), `man -P CMD` (a pager other
/// than cat, less, more), and code loaded from a file by `java FILE.java`/`-jar`, `go run FILE`,
/// `bun run FILE`, `deno run FILE`, `nvim -l FILE` (checked like `bash FILE`); `bun -e`/`deno
/// eval` code is JavaScript. Whether `tool_outputs` is done with the command.
fn other_tools(e: &mut Eval, name: &str, args: &[Word]) -> bool {
    let via = format!("{name} output");
    let operands: Vec<&Word> = args.iter().filter(|w| !w.value.starts_with('-')).collect();
    // `-o F`, `-oF`, `--output F`, `--output=F` among `args`.
    let opt_values = |short: &str, long: &str| -> Vec<Word> {
        let mut out = Vec::new();
        let mut k = 0;
        while let Some(w) = args.get(k) {
            let v = w.value.as_str();
            if v == "--" {
                break;
            }
            if (!short.is_empty() && v == short) || v == long {
                out.extend(args.get(k + 1).cloned());
                k += 1;
            } else if let Some(r) = v.strip_prefix(&format!("{long}=")) {
                out.push(Word::synthetic(r, w.dynamic));
            } else if !short.is_empty()
                && let Some(r) = v.strip_prefix(short).filter(|r| !r.is_empty())
            {
                out.push(Word::synthetic(r.trim_start_matches('='), w.dynamic));
            }
            k += 1;
        }
        out
    };
    let words: Vec<&str> = operands.iter().map(|w| w.value.as_str()).collect();
    match name {
        // `docker save -o F`, `docker export -o F`; `docker build -o DIR` / `--output
        // type=local,dest=DIR` (other `type=`s without `dest` go to the image store or stdout).
        "docker" | "podman" | "nerdctl" => {
            let sub: Vec<&str> = words.iter().take(2).copied().collect();
            match sub.as_slice() {
                ["save" | "export", ..] | ["image", "save", ..] | ["container", "export", ..] => {
                    for f in opt_values("-o", "--output") {
                        e.write(&f, &via);
                    }
                }
                ["build", ..]
                | ["image", "build", ..]
                | ["buildx", "build" | "b", ..]
                | ["builder", "build", ..] => {
                    for spec in opt_values("-o", "--output") {
                        let v = spec.value.as_str();
                        let dest = v
                            .split(',')
                            .find_map(|kv| kv.strip_prefix("dest="))
                            .map(str::to_string);
                        match dest {
                            Some(d) => e.write_tree(&Word::synthetic(&d, spec.dynamic), &via),
                            None if !v.contains('=') => e.write_tree(&spec, &via),
                            None => {}
                        }
                    }
                }
                _ => {}
            }
        }
        // `gh repo clone R [DIR]`, `gh gist clone G [DIR]`: DIR or the repository's name here;
        // `gh release download` / `gh run download`: `-D DIR`, `-O FILE`, or here; `gh pr
        // checkout` switches the working tree's branch.
        "gh" | "hub" => match words.as_slice() {
            ["repo" | "gist", "clone", src, rest @ ..] => {
                let dest = rest
                    .first()
                    .map(|d| Word::synthetic(d, false))
                    .unwrap_or_else(|| {
                        let n = src.trim_end_matches('/').rsplit('/').next().unwrap_or(src);
                        Word::synthetic(n.trim_end_matches(".git"), false)
                    });
                e.write_tree(&dest, &via);
            }
            ["release" | "run", "download", ..] => {
                let files = opt_values("-O", "--output");
                let dirs = opt_values("-D", "--dir");
                for f in &files {
                    e.write(f, &via);
                }
                for d in &dirs {
                    e.write_tree(d, &via);
                }
                if files.is_empty() && dirs.is_empty() {
                    e.write_tree(&here(), &via);
                }
            }
            ["pr", "checkout", ..] | ["checkout", ..] | ["co", ..] => e.write_tree(&here(), &via),
            _ => {}
        },
        // Subversion and Mercurial: commands that write the working copy, and checkouts or
        // exports into DIR (the URL's last part without one).
        "svn" | "hg" => {
            let Some((sub, rest)) = words.split_first() else {
                return true;
            };
            match *sub {
                "checkout" | "co" | "export" | "clone" => {
                    let dest = match rest {
                        [_, d, ..] => Word::synthetic(d, false),
                        [src] => {
                            let n = src.trim_end_matches('/').rsplit('/').next().unwrap_or(src);
                            Word::synthetic(n, false)
                        }
                        [] => return true,
                    };
                    e.write_tree(&dest, &via);
                }
                "update" | "up" | "revert" | "switch" | "sw" | "merge" | "patch" | "import"
                | "unshelve" | "shelve" | "rebase" | "graft" | "backout" | "strip" | "purge"
                | "histedit" | "pull" | "mv" | "move" | "rename" | "rm" | "remove" | "delete"
                | "del" | "copy" | "cp" | "unbundle" | "fetch" | "transplant" | "uncommit"
                | "amend" | "evolve" => {
                    if *sub == "pull"
                        && name == "hg"
                        && !args
                            .iter()
                            .any(|w| matches!(w.value.as_str(), "-u" | "--update" | "--rebase"))
                    {
                        return true;
                    }
                    e.write_tree(&here(), &via);
                }
                _ => {}
            }
        }
        // Downloads into the working directory: `aria2c URL` (without `-d`), `http --download
        // URL` (without `-o`).
        "aria2c"
            if !args.iter().any(|w| {
                matches!(
                    w.value.as_str(),
                    "-d" | "--dir" | "--dry-run" | "-v" | "--version" | "-h" | "--help"
                ) || w.value.starts_with("--dir=")
                    || w.value.starts_with("-d")
                    || w.value.starts_with("--dry-run=")
            }) && !operands.is_empty() =>
        {
            e.write_tree(&here(), &via);
        }
        "http" | "https" | "xh" | "xhs"
            if args
                .iter()
                .any(|w| matches!(w.value.as_str(), "-d" | "--download"))
                && opt_values("-o", "--output").is_empty() =>
        {
            e.write_tree(&here(), &via);
        }
        // `pip-compile [IN]` writes `requirements.txt` (next to `IN.in`: `IN.txt`) unless told
        // where (`-o`, the table) or `--dry-run`.
        "pip-compile"
            if opt_values("-o", "--output-file").is_empty()
                && !args.iter().any(|w| {
                    matches!(
                        w.value.as_str(),
                        "--dry-run" | "-n" | "--help" | "-h" | "--version"
                    )
                }) =>
        {
            let ins: Vec<&&Word> = operands
                .iter()
                .filter(|w| w.value.ends_with(".in"))
                .collect();
            if ins.is_empty() {
                e.write(&Word::synthetic("requirements.txt", false), &via);
            }
            for w in ins {
                let out = format!("{}.txt", w.value.trim_end_matches(".in"));
                e.write(&Word::synthetic(&out, w.dynamic), &via);
            }
            return false;
        }
        // `pyright --createstub PKG` writes stubs under `typings/`.
        "pyright" | "basedpyright" if args.iter().any(|w| w.value == "--createstub") => {
            e.write_tree(&Word::synthetic("typings", false), &via);
        }
        // GNU Global's `gtags [DIR]` and `cscope -b`: tag databases here (or in DIR).
        "gtags"
            if !args
                .iter()
                .any(|w| matches!(w.value.as_str(), "--version" | "--help")) =>
        {
            let dir = words
                .first()
                .map_or_else(here, |d| Word::synthetic(d, false));
            for f in ["GTAGS", "GRTAGS", "GPATH"] {
                let mut w = dir.clone();
                w.value = format!("{}/{f}", dir.value.trim_end_matches('/'));
                e.write(&w, &via);
            }
        }
        "cscope"
            if !args
                .iter()
                .any(|w| matches!(w.value.as_str(), "--version" | "-V" | "-h" | "-d")) =>
        {
            match opt_values("-f", "") {
                v if !v.is_empty() => v.iter().for_each(|f| e.write(f, &via)),
                _ => e.write(&Word::synthetic("cscope.out", false), &via),
            }
        }
        // `virtualenv DIR`, `uv venv [DIR]` (`.venv` by default): a new environment's tree.
        "virtualenv" => {
            for w in operands.iter().filter(|w| !w.value.contains("://")) {
                e.write_tree(w, &via);
            }
        }
        "uv" if words.first() == Some(&"venv") => {
            let dir = words.get(1).map_or_else(
                || Word::synthetic(".venv", false),
                |d| Word::synthetic(d, false),
            );
            e.write_tree(&dir, &via);
        }
        // `uv pip compile -o F`, `uv export -o F`.
        "uv" if words
            .first()
            .is_some_and(|w| matches!(*w, "pip" | "export")) =>
        {
            for f in opt_values("-o", "--output-file") {
                e.write(&f, &via);
            }
        }
        // `coverage run [opts] SCRIPT ARGS` runs SCRIPT as `python SCRIPT` would (`-m MOD`:
        // a module from the search path, as `python -m`).
        "coverage" if words.first() == Some(&"run") => {
            let mut k = args.iter().position(|w| w.value == "run").unwrap_or(0) + 1;
            while let Some(w) = args.get(k) {
                let v = w.value.as_str();
                if matches!(
                    v,
                    "--rcfile"
                        | "--data-file"
                        | "--include"
                        | "--omit"
                        | "--source"
                        | "--context"
                        | "--concurrency"
                        | "--debug"
                ) {
                    k += 2;
                    continue;
                }
                if v == "-m" || v == "--module" {
                    break;
                }
                if !v.starts_with('-') {
                    e.script(w, "coverage run runs");
                    break;
                }
                k += 1;
            }
            return false;
        }
        "fd" | "fdfind" => {
            if let Some(k) = args
                .iter()
                .position(|w| matches!(w.value.as_str(), "-x" | "--exec" | "-X" | "--exec-batch"))
            {
                // Each result is appended, or put where `{}` (and its variants) stand.
                let mut inner: Vec<Word> = args[k + 1..]
                    .iter()
                    .map(|w| Word {
                        dynamic: w.dynamic || w.value.contains('{'),
                        ..w.clone()
                    })
                    .collect();
                if !args[k + 1..].iter().any(|w| w.value.contains('{')) {
                    inner.push(Word::synthetic("<fd result>", true));
                }
                let found = e.capture(|e| e.invoke(&inner, None));
                for w in found.writes {
                    e.unknown(format!("<fd {}>", w.via), format!("fd -x runs {}", w.via));
                }
            }
        }
        "rg" => {
            if let Some(w) = args
                .iter()
                .find(|w| w.value.starts_with("--pre") && !w.value.starts_with("--pre-glob"))
            {
                e.unknown(w.raw.clone(), "rg --pre runs a program on every file");
            }
            return false;
        }
        "uudecode"
            if !args
                .iter()
                .any(|w| w.value.starts_with("-o") || w.value.starts_with("--output")) =>
        {
            e.unknown(
                "<uudecode output>",
                "uudecode writes the file its input names",
            );
        }
        "rclone" => {
            if let [sub, .., dest] = operands.as_slice()
                && matches!(
                    sub.value.as_str(),
                    "copy" | "sync" | "move" | "copyto" | "moveto" | "bisync" | "copyurl" | "mount"
                )
                && operands.len() >= 3
                && (dest.dynamic || !dest.value.contains(':') || dest.value.starts_with('/'))
            {
                e.write_tree(dest, &via);
            }
        }
        "ffmpeg" | "sox" | "wkhtmltopdf" | "wkhtmltoimage" => {
            if let Some(out) = args.last().filter(|w| !w.value.starts_with('-'))
                && args.len() >= 2
            {
                e.write(out, &via);
            }
        }
        "sqlite-utils" => {
            if let [sub, db, ..] = operands.as_slice()
                && !matches!(
                    sub.value.as_str(),
                    "query"
                        | "tables"
                        | "views"
                        | "schema"
                        | "rows"
                        | "indexes"
                        | "triggers"
                        | "search"
                        | "dump"
                )
            {
                e.write(db, &via);
            }
        }
        "man" => {
            let pager = args
                .iter()
                .enumerate()
                .find_map(|(k, w)| match w.value.as_str() {
                    "-P" | "--pager" => args.get(k + 1).map(|p| p.value.clone()),
                    v => v.strip_prefix("--pager=").map(str::to_string),
                });
            if let Some(p) = pager
                && !matches!(p.trim(), "cat" | "less" | "more" | "less -R" | "")
            {
                e.unknown(p, "man -P runs the pager it names");
            }
        }
        "java" => {
            let mut k = 0;
            while let Some(w) = args.get(k) {
                match w.value.as_str() {
                    "-jar" => {
                        if let Some(f) = args.get(k + 1) {
                            e.script(f, "java -jar runs code from");
                        }
                        break;
                    }
                    "-cp" | "-classpath" | "--class-path" | "-p" | "--module-path" => {
                        if let Some(cp) = args.get(k + 1) {
                            for dir in cp.value.split(':').filter(|d| !d.is_empty()) {
                                e.script(
                                    &Word::synthetic(dir, cp.dynamic),
                                    "java loads classes from",
                                );
                            }
                        }
                        k += 2;
                        continue;
                    }
                    v if v.starts_with('-') => {}
                    v => {
                        if v.ends_with(".java") || v.contains('/') {
                            e.script(w, "java runs a source file");
                        }
                        break;
                    }
                }
                k += 1;
            }
        }
        "go" if args.first().is_some_and(|w| w.value == "run") => {
            for w in operands.iter().skip(1) {
                if w.value.ends_with(".go") || w.value.starts_with('/') || w.value.starts_with("..")
                {
                    e.script(w, "go run builds and runs");
                }
            }
        }
        "bun" | "deno" => {
            let code = args
                .iter()
                .enumerate()
                .find_map(|(k, w)| match w.value.as_str() {
                    "-e" | "--eval" | "-p" | "--print" | "eval" => args.get(k + 1),
                    _ => None,
                });
            // `deno test --coverage=DIR` (the value only after `=`), `--junit-path F`, `deno
            // compile -o F`, `deno doc --output=DIR`.
            for w in args {
                if let Some(d) = w.value.strip_prefix("--coverage=") {
                    e.write_tree(&Word::synthetic(d, w.dynamic), &via);
                }
            }
            if name == "deno" {
                for f in opt_values("", "--junit-path") {
                    e.write(&f, &via);
                }
                if words.first() == Some(&"compile") {
                    for f in opt_values("-o", "--output") {
                        e.write(&f, &via);
                    }
                }
                if words.first() == Some(&"doc") {
                    for d in opt_values("", "--output") {
                        e.write_tree(&d, &via);
                    }
                }
            }
            if let Some(code) = code {
                let mut words = vec![Word::synthetic("node", false), Word::synthetic("-e", false)];
                words.push(code.clone());
                e.invoke(&words, None);
            } else if let Some(f) = operands
                .iter()
                .find(|w| !matches!(w.value.as_str(), "run" | "x" | "test" | "task" | "repl"))
                .filter(|w| {
                    w.value.contains('/')
                        || [".js", ".ts", ".mjs", ".cjs", ".tsx", ".jsx"]
                            .iter()
                            .any(|x| w.value.ends_with(x))
                })
            {
                e.script(f, &format!("{name} runs a script file"));
            }
            // `deno fmt` is an in-place formatter (below).
            return false;
        }
        "nvim" | "vim" => {
            if let Some(k) = args.iter().position(|w| w.value == "-l")
                && let Some(f) = args.get(k + 1)
            {
                e.script(f, "nvim -l runs a Lua script");
            }
            return false;
        }
        "jupyter" => {
            // `jupyter nbconvert NB` writes the converted file beside the notebook (`--stdout`:
            // not); `--execute` runs the notebook's code.
            if args.first().is_some_and(|w| w.value == "nbconvert") {
                let to_stdout = args.iter().any(|w| w.value == "--stdout");
                for nb in operands.iter().skip(1) {
                    if args.iter().any(|w| w.value == "--execute") {
                        e.script(nb, "jupyter nbconvert --execute runs");
                    }
                    if !to_stdout {
                        let dir = nb.value.rsplit_once('/').map_or(".", |(d, _)| d);
                        e.write_tree(&Word::synthetic(dir, nb.dynamic), &via);
                    }
                }
            }
            return false;
        }
        _ => return false,
    }
    true
}

/// A tsc option spelled as [`OUTPUT_OPTIONS`] lists it, whatever its case (`--OUTDIR=x` ->
/// `--outDir=x`).
fn tsc_option(v: &str) -> String {
    let (opt, rest) = v.split_once('=').map_or((v, None), |(o, r)| (o, Some(r)));
    let listed = OUTPUT_OPTIONS
        .iter()
        .filter(|(names, ..)| names.split(' ').any(|n| n == "tsc"))
        .flat_map(|(_, f, t)| f.split_whitespace().chain(t.split_whitespace()))
        .find(|o| o.eq_ignore_ascii_case(opt));
    match (listed, rest) {
        (Some(o), Some(r)) => format!("{o}={r}"),
        (Some(o), None) => o.to_string(),
        (None, _) => v.to_string(),
    }
}

/// `cmake -E COMMAND ARGS`: the file-writing commands of cmake's command mode, and the ones that
/// run a command (`chdir DIR CMD`, `env … CMD`, `time CMD`: unknown).
fn cmake_command(e: &mut Eval, args: &[Word]) {
    let Some((cmd, rest)) = args.split_first() else {
        return;
    };
    let via = format!("cmake -E {}", cmd.value);
    let operands: Vec<&Word> = rest.iter().filter(|w| !w.value.starts_with('-')).collect();
    match cmd.value.as_str() {
        "copy"
        | "copy_if_different"
        | "copy_if_newer"
        | "copy_directory"
        | "copy_directory_if_different"
        | "copy_directory_if_newer" => {
            if let Some(dest) = operands.last() {
                e.write_tree(dest, &via);
            }
        }
        "rename" | "create_symlink" | "create_hardlink" => {
            for w in operands {
                e.write(w, &via);
            }
        }
        "touch" | "touch_nocreate" | "remove" | "rm" | "remove_directory" | "make_directory"
        | "tar" | "md5sum" | "true" | "false" | "echo" | "echo_append" | "cat" | "sha1sum"
        | "sha256sum" | "sha512sum" | "compare_files" | "capabilities" | "environment"
        | "sleep" => {
            if matches!(
                cmd.value.as_str(),
                "touch"
                    | "touch_nocreate"
                    | "remove"
                    | "rm"
                    | "remove_directory"
                    | "make_directory"
            ) {
                for w in operands {
                    e.write_tree(w, &via);
                }
            } else if cmd.value == "tar" {
                // `cmake -E tar xf A` extracts here, `cf A …` writes A.
                let mode = operands.first().map_or("", |w| w.value.as_str());
                if mode.contains('x') {
                    e.write_tree(&here(), &via);
                } else if mode.contains('c')
                    && let Some(a) = operands.get(1)
                {
                    e.write(a, &via);
                }
            }
        }
        _ => e.unknown(
            format!("<cmake -E {} …>", cmd.value),
            format!("{via} (a command mode the gate does not model)"),
        ),
    }
}
