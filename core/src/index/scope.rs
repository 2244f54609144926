//! What the index covers: the whole repository (honouring `.gitignore`, `.ignore` and
//! `exclude_patterns`) minus what is not source a person edits, each exclusion with a recorded
//! reason ([`ScopeSkip`]); and the [`FileRole`] of an indexed file (source, test, docs), which
//! ranking uses to treat tests and docs as their own class.
//!
//! Rules, by path (cheap, applied during the walk so that a vendored tree is never descended):
//! - vendored or build-output directories ([`VENDORED_DIRS`], [`VENDORED_SUBPATHS`]);
//! - lock files ([`LOCK_FILES`]);
//! - minified or bundled files by name (`*.min.js`, `*.bundle.js`, source maps, ...);
//! - files an IDE generates by name ([`IDE_GENERATED_EXTENSIONS`]: Xcode's `project.pbxproj`
//!   and schemes, IntelliJ's `*.iml`);
//!
//! and by content (applied when the file is read, before chunking; binary files are left to the
//! chunker):
//! - minified or bundled JavaScript, CSS or JSON: a file of at least [`MINIFIED_MIN_BYTES`] whose lines average more
//!   than [`MINIFIED_MEAN_LINE`] bytes, or one line holds most of the file and is longer than
//!   [`MINIFIED_LONG_LINE`] bytes (what bundlers and minifiers emit; hand-written code keeps lines
//!   under ~120 characters, the limit of every common formatter);
//! - bundled JavaScript or CSS by its banner: the file opens with a `/*!` comment that names a
//!   version (`/*! Quill Editor v1.3.6`, `/*\n! tailwindcss v3.0.24 | MIT License`), the
//!   license banner bundlers, minifiers and CSS frameworks put on their output and keep through
//!   minification ([`bundle_banner`]);
//! - generated files: an `@generated` marker or `DO NOT EDIT` in the first
//!   [`GENERATED_PROBE_BYTES`] (the conventions of Facebook's tooling, Go's
//!   `Code generated ... DO NOT EDIT.`, protoc and most code generators).

use serde::{Deserialize, Serialize};

/// Directory names whose whole tree is dependencies or build output, wherever they appear.
pub const VENDORED_DIRS: &[&str] = &[
    "node_modules",
    "bower_components",
    "jspm_packages",
    "vendor",
    "dist",
    "build",
    "__pycache__",
    "site-packages",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".next",
    ".nuxt",
    ".svelte-kit",
    ".turbo",
    ".parcel-cache",
    "coverage",
    "htmlcov",
    // Other people's code copied in, by the names projects give that folder (Chromium's and
    // Google's convention, and its spellings).
    "third_party",
    "third-party",
    "thirdparty",
];

/// Repository-relative directory suffixes (two components) that hold copied third-party assets.
pub const VENDORED_SUBPATHS: &[&str] = &[
    "public/libs",
    "public/lib",
    "public/vendor",
    "public/build",
    "public/dist",
    "public/js/vendor",
    "static/dist",
    "static/vendor",
    "static/libs",
    "assets/vendor",
    "assets/libs",
    "wwwroot/lib",
];

/// File names of package-manager lock files.
pub const LOCK_FILES: &[&str] = &[
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lockb",
    "bun.lock",
    "composer.lock",
    "cargo.lock",
    "poetry.lock",
    "pipfile.lock",
    "pdm.lock",
    "uv.lock",
    "gemfile.lock",
    "go.sum",
    "mix.lock",
    "packages.lock.json",
    "flake.lock",
];

/// Extensions of the files the content rule for minified or bundled code applies to.
pub const MINIFIED_EXTENSIONS: &[&str] = &["js", "mjs", "cjs", "css", "json"];
/// Files smaller than this are never classified as minified by content.
pub const MINIFIED_MIN_BYTES: usize = 1024;
/// Mean line length (bytes) above which a file counts as minified.
pub const MINIFIED_MEAN_LINE: usize = 300;
/// A line longer than this that holds most of the file marks it as minified or bundled.
pub const MINIFIED_LONG_LINE: usize = 5000;
/// Bytes at the start of a file searched for generated-file markers.
pub const GENERATED_PROBE_BYTES: usize = 1024;

/// Extensions of files that are never source ([`ScopeSkip::Media`]), lower case.
pub const MEDIA_EXTENSIONS: &[&str] = &[
    "pdf", "ps", "eps", "ai", "psd", "xcf", "png", "jpg", "jpeg", "gif", "bmp", "ico", "icns",
    "webp", "tif", "tiff", "avif", "heic", "woff", "woff2", "ttf", "otf", "eot", "mp3", "mp4",
    "m4a", "wav", "ogg", "oga", "webm", "mov", "avi", "mkv", "flac", "zip", "gz", "tgz", "bz2",
    "xz", "7z", "rar", "jar", "war", "class", "so", "dylib", "dll", "exe", "o", "a", "pyc", "pyo",
    "wasm", "sqlite", "sqlite3", "db", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "odt", "ods",
];

/// Extensions of project files an IDE writes and rewrites itself (Xcode's project, schemes and
/// workspace data, IntelliJ's module files), lower case. They list every source file by name and
/// so match any request that names a file, without being where a change is made by hand
/// ([`ScopeSkip::Generated`]).
pub const IDE_GENERATED_EXTENSIONS: &[&str] = &[
    "pbxproj",
    "xcscheme",
    "xcworkspacedata",
    "xcuserstate",
    "xcsettings",
    "iml",
];

/// Version of the scope rules; part of the index's options fingerprint, so a change of the rules
/// rebuilds the index once.
pub const RULES_VERSION: u32 = 7;

/// Why a path is outside the index's scope. An expected outcome, recorded per file (or per
/// directory for a pruned tree) and shown by `status` and `index --json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScopeSkip {
    /// A dependency or build-output tree (`node_modules/`, `vendor/`, `dist/`, `public/libs`...).
    Vendored,
    /// A package-manager lock file.
    LockFile,
    /// Minified or bundled code, by name or by content.
    Minified,
    /// A file marked as generated (`@generated`, `DO NOT EDIT`), or an IDE's project file
    /// ([`IDE_GENERATED_EXTENSIONS`]).
    Generated,
    /// A binary, media or document file by its extension ([`MEDIA_EXTENSIONS`]: images, fonts,
    /// archives, PDFs, compiled objects): not code a person edits, even when its first bytes hold
    /// no NUL (a PDF's text objects).
    Media,
}

impl ScopeSkip {
    /// The reason as recorded in `sync_state.json` and printed by `status`.
    pub fn reason(self) -> &'static str {
        match self {
            ScopeSkip::Vendored => "vendored or build output",
            ScopeSkip::LockFile => "lock file",
            ScopeSkip::Minified => "minified or bundled",
            ScopeSkip::Generated => "generated file",
            ScopeSkip::Media => "binary, media or document file",
        }
    }
}

impl std::fmt::Display for ScopeSkip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.reason())
    }
}

/// Whether the directory at repository-relative `rel` (`/`-separated) is vendored or build
/// output, so the walk should not descend into it.
pub fn skip_dir(rel: &str) -> Option<ScopeSkip> {
    let rel = rel.trim_end_matches('/');
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if VENDORED_DIRS.iter().any(|d| name.eq_ignore_ascii_case(d)) {
        // Laravel's published vendor views and translations (`resources/views/vendor`,
        // `resources/lang/vendor`) are copies an application owns and edits.
        let parent = rel[..rel.len() - name.len()].trim_end_matches('/');
        let parent_name = parent.rsplit('/').next().unwrap_or(parent);
        let published = name.eq_ignore_ascii_case("vendor")
            && ["views", "lang"].contains(&parent_name)
            && parent.contains("resources");
        if !published {
            return Some(ScopeSkip::Vendored);
        }
    }
    let lower = rel.to_ascii_lowercase();
    if VENDORED_SUBPATHS
        .iter()
        .any(|s| lower == *s || lower.ends_with(&format!("/{s}")))
    {
        return Some(ScopeSkip::Vendored);
    }
    None
}

/// Whether the file at repository-relative `rel` is out of scope by its name alone.
pub fn skip_file_by_name(rel: &str) -> Option<ScopeSkip> {
    let name = rel.rsplit('/').next().unwrap_or(rel).to_ascii_lowercase();
    if LOCK_FILES.contains(&name.as_str()) {
        return Some(ScopeSkip::LockFile);
    }
    if let Some((_, ext)) = name.rsplit_once('.') {
        if MEDIA_EXTENSIONS.contains(&ext) {
            return Some(ScopeSkip::Media);
        }
        if IDE_GENERATED_EXTENSIONS.contains(&ext) {
            return Some(ScopeSkip::Generated);
        }
    }
    const MINIFIED_SUFFIXES: &[&str] = &[
        ".min.js",
        ".min.mjs",
        ".min.cjs",
        ".min.css",
        "-min.js",
        "-min.css",
        ".bundle.js",
        ".bundle.css",
        ".js.map",
        ".mjs.map",
        ".cjs.map",
        ".css.map",
    ];
    if MINIFIED_SUFFIXES.iter().any(|s| name.ends_with(s)) {
        return Some(ScopeSkip::Minified);
    }
    None
}

/// Whether the file at repository-relative `rel` is out of scope by its content (see the module
/// docs for the rules). Binary content (a NUL byte in the first 8 KiB) is left to the chunker,
/// which reports it as binary; the minified rule applies to the languages bundlers emit
/// ([`MINIFIED_EXTENSIONS`]), not to templates that inline a minified style or script.
pub fn skip_by_content(rel: &str, bytes: &[u8]) -> Option<ScopeSkip> {
    // A UTF-16 file is judged by its text, as the chunker reads it.
    let utf16 = super::chunk::utf16_text(bytes);
    let bytes = utf16.as_ref().map_or(bytes, String::as_bytes);
    if super::chunk::looks_binary(bytes) {
        return None;
    }
    let probe = &bytes[..bytes.len().min(GENERATED_PROBE_BYTES)];
    if contains(probe, b"@generated") || contains(probe, b"DO NOT EDIT") {
        return Some(ScopeSkip::Generated);
    }
    let name = rel.rsplit('/').next().unwrap_or(rel).to_ascii_lowercase();
    let bundled_kind = MINIFIED_EXTENSIONS
        .iter()
        .any(|e| name.ends_with(&format!(".{e}")));
    if !bundled_kind {
        return None;
    }
    if bundle_banner(probe) {
        return Some(ScopeSkip::Minified);
    }
    if bytes.len() < MINIFIED_MIN_BYTES {
        return None;
    }
    let mut lines = 0usize;
    let mut longest = 0usize;
    for line in bytes.split(|&b| b == b'\n') {
        lines += 1;
        longest = longest.max(line.len());
    }
    if bytes.len() / lines.max(1) > MINIFIED_MEAN_LINE
        || (longest > MINIFIED_LONG_LINE && longest * 2 > bytes.len())
    {
        return Some(ScopeSkip::Minified);
    }
    None
}

/// Whether `head` (a file's first bytes) opens, after white space and an `@charset` rule, with
/// a `/*!` comment (also written `/*` + newline + `!`) whose text holds a version number
/// (`v1.3.6`, `3.0.24`): the preserved license banner of a bundled library or a framework's
/// build output. A project's own sources open with `/**` doc comments or plain `/*` license
/// headers, which this does not match.
pub fn bundle_banner(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    let mut rest = text.trim_start_matches('\u{feff}').trim_start();
    if rest.starts_with("@charset")
        && let Some(end) = rest.find(';')
    {
        rest = rest[end + 1..].trim_start();
    }
    let Some(body) = rest.strip_prefix("/*") else {
        return false;
    };
    let Some(body) = body.trim_start().strip_prefix('!') else {
        return false;
    };
    let comment = body.split("*/").next().unwrap_or(body);
    comment
        .split(|c: char| c.is_whitespace() || matches!(c, '|' | ',' | '(' | ')' | '@'))
        .any(|word| {
            let version = word.strip_prefix(['v', 'V']).unwrap_or(word);
            let mut parts = version.split('.');
            let numeric = |p: Option<&str>| {
                p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            };
            numeric(parts.next()) && numeric(parts.next())
        })
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// What kind of file an indexed path is, by its path (conventions of the common test runners
/// and documentation layouts). Ranking treats each role as its own class: a change request is
/// usually implemented in source, and tests and docs follow it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileRole {
    /// Code a change is implemented in.
    Source,
    /// A test, fixture, test helper or benchmark (`tests/`, `test_*.py`, `*.test.ts`,
    /// `*Test.php`, `*_test.go`, `*_spec.rb`, `*Test.java`, a .NET `*.Tests/` project,
    /// `testdata/`, `benches/`, `benchmarks/`, ...).
    Test,
    /// Documentation or an example (`docs/`, `*.md`, `*.rst`, `examples/`, ...).
    Doc,
    /// Translations: files under `lang/`, `locales/`, `i18n/`, `translations/`, `l10n/`, and
    /// gettext catalogues (`*.po`, `*.pot`). A request names a behaviour, and every locale
    /// repeats its words.
    Locale,
}

impl FileRole {
    /// The role of repository-relative `rel`.
    pub fn of(rel: &str) -> FileRole {
        let lower = rel.to_ascii_lowercase();
        let name = lower.rsplit('/').next().unwrap_or(&lower);
        let dirs: Vec<&str> = lower.split('/').collect();
        let dirs = &dirs[..dirs.len().saturating_sub(1)];
        const TEST_DIRS: &[&str] = &[
            "test",
            "tests",
            "__tests__",
            "spec",
            "specs",
            "fixtures",
            "__fixtures__",
            "__mocks__",
            "e2e",
            "playground",
            "playgrounds",
            // Go's fixtures directory.
            "testdata",
            // Benchmarks follow a change like tests do (`benches/` is Cargo's).
            "bench",
            "benches",
            "benchmark",
            "benchmarks",
            "benchsuite",
        ];
        const DOC_DIRS: &[&str] = &["doc", "docs", "documentation", "examples", "example"];
        let stem = name.split('.').next().unwrap_or(name);
        let is_test_name = stem.starts_with("test_")
            || stem.ends_with("_test")
            || stem.ends_with("_tests")
            || name.contains(".test.")
            || name.contains(".spec.")
            || name.contains("-test.")
            || name.contains("-spec.")
            || (name.ends_with("test.php") && original_stem(rel).ends_with("Test"))
            || name.ends_with("_spec.rb")
            || (is_jvm_or_dotnet(name)
                && ["Test", "Tests"].iter().any(|s| {
                    let stem = original_stem(rel);
                    stem.len() > s.len() && stem.ends_with(s)
                }))
            || name == "conftest.py";
        // .NET test projects: `Newtonsoft.Json.Tests/`, `App.UnitTests/`, `App.Specs/`.
        const TEST_PROJECT_SUFFIXES: &[&str] = &[".tests", ".test", ".unittests", ".specs"];
        let test_project = |d: &&str| TEST_PROJECT_SUFFIXES.iter().any(|s| d.ends_with(s));
        if is_test_name
            || dirs
                .iter()
                .any(|d| TEST_DIRS.contains(d) || test_project(d))
        {
            return FileRole::Test;
        }
        const LOCALE_DIRS: &[&str] = &[
            "lang",
            "langs",
            "locale",
            "locales",
            "i18n",
            "l10n",
            "translations",
        ];
        if name.ends_with(".po")
            || name.ends_with(".pot")
            || name.ends_with(".xlf")
            || name.ends_with(".xliff")
            || dirs.iter().any(|d| LOCALE_DIRS.contains(d))
        {
            return FileRole::Locale;
        }
        const DOC_EXTS: &[&str] = &[".md", ".mdx", ".rst", ".txt", ".adoc"];
        // Project documents by name, without an extension (`LICENSE`; `LICENSE.md` is a doc by
        // its extension, `license.py` is code).
        const DOC_NAMES: &[&str] = &[
            "license",
            "licence",
            "copying",
            "notice",
            "authors",
            "contributors",
            "changelog",
            "changes",
            "history",
            "readme",
        ];
        if DOC_EXTS.iter().any(|e| name.ends_with(e))
            || DOC_NAMES.contains(&name)
            || dirs.iter().any(|d| DOC_DIRS.contains(d))
        {
            return FileRole::Doc;
        }
        FileRole::Source
    }
}

/// Whether lower-case file `name` is Java, Kotlin, Scala, Groovy or C# (where `FooTest` and
/// `FooTests` are the test class names the runners look for).
fn is_jvm_or_dotnet(name: &str) -> bool {
    [".java", ".kt", ".scala", ".groovy", ".cs"]
        .iter()
        .any(|e| name.ends_with(e))
}

/// The file name of `rel` up to its first `.`, case kept (`UserTest.php` → `UserTest`).
fn original_stem(rel: &str) -> &str {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name.split('.').next().unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendored_directories_by_name_and_subpath() {
        assert_eq!(skip_dir("node_modules"), Some(ScopeSkip::Vendored));
        assert_eq!(skip_dir("web/node_modules"), Some(ScopeSkip::Vendored));
        assert_eq!(skip_dir("vendor"), Some(ScopeSkip::Vendored));
        assert_eq!(skip_dir("public/libs"), Some(ScopeSkip::Vendored));
        assert_eq!(skip_dir("app/static/dist"), Some(ScopeSkip::Vendored));
        assert_eq!(skip_dir("src"), None);
        assert_eq!(skip_dir("public"), None);
        assert_eq!(skip_dir("public/src"), None);
        assert_eq!(skip_dir("app/Vendors"), None);
        assert_eq!(skip_dir("resources/views/vendor"), None);
        assert_eq!(skip_dir("resources/lang/vendor"), None);
        assert_eq!(skip_dir("lang/vendor"), Some(ScopeSkip::Vendored));
    }

    #[test]
    fn lock_and_minified_files_by_name() {
        assert_eq!(
            skip_file_by_name("package-lock.json"),
            Some(ScopeSkip::LockFile)
        );
        assert_eq!(
            skip_file_by_name("sub/Cargo.lock"),
            Some(ScopeSkip::LockFile)
        );
        assert_eq!(
            skip_file_by_name("js/app.min.js"),
            Some(ScopeSkip::Minified)
        );
        assert_eq!(
            skip_file_by_name("css/site.min.css"),
            Some(ScopeSkip::Minified)
        );
        assert_eq!(skip_file_by_name("app.js.map"), Some(ScopeSkip::Minified));
        assert_eq!(skip_file_by_name("js/admin.js"), None);
        assert_eq!(skip_file_by_name("package.json"), None);
        for ide in [
            "Alamofire.xcodeproj/project.pbxproj",
            "App.xcodeproj/xcshareddata/xcschemes/App iOS.xcscheme",
            "App.xcworkspace/contents.xcworkspacedata",
            "core/core.iml",
        ] {
            assert_eq!(skip_file_by_name(ide), Some(ScopeSkip::Generated), "{ide}");
        }
        assert_eq!(skip_file_by_name("Package.swift"), None);
        for media in [
            "resources/logo/print/Logo.PDF",
            "img/a.png",
            "fonts/x.woff2",
            "dist.zip",
        ] {
            assert_eq!(skip_file_by_name(media), Some(ScopeSkip::Media), "{media}");
        }
        assert_eq!(
            skip_file_by_name("icons/logo.svg"),
            None,
            "SVG is text people edit"
        );
        assert_eq!(skip_file_by_name("src/zip.py"), None);
    }

    #[test]
    fn minified_and_generated_by_content() {
        let normal = "function a(b) {\n  return b + 1;\n}\n".repeat(100);
        assert_eq!(skip_by_content("a.js", normal.as_bytes()), None);
        let minified = format!("{}\n", "var a=function(b){return b+1};".repeat(400));
        assert_eq!(
            skip_by_content("dist.js", minified.as_bytes()),
            Some(ScopeSkip::Minified)
        );
        // A template that inlines a minified style is edited by hand: not skipped.
        assert_eq!(
            skip_by_content("views/minimal.blade.php", minified.as_bytes()),
            None
        );
        // Binary content is the chunker's to report.
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend(std::iter::repeat_n(b'x', 4000));
        assert_eq!(skip_by_content("logo.js", &png), None);
        // Many moderately long lines (a bundle with newlines kept every few hundred bytes).
        let bundle = format!("{}\n", "x".repeat(400)).repeat(20);
        assert_eq!(
            skip_by_content("app.css", bundle.as_bytes()),
            Some(ScopeSkip::Minified)
        );
        // One long data line in an otherwise ordinary file stays.
        let data = format!(
            "{}\nconst DATA = \"{}\";\n{}",
            normal,
            "A".repeat(6000),
            normal
        );
        assert_eq!(skip_by_content("data.js", data.as_bytes()), None);
        let generated = "// Code generated by protoc-gen-go. DO NOT EDIT.\npackage x\n";
        assert_eq!(
            skip_by_content("x.go", generated.as_bytes()),
            Some(ScopeSkip::Generated)
        );
        let fb = "/**\n * @generated SignedSource<<abc>>\n */\nexport {}\n";
        assert_eq!(
            skip_by_content("x.js", fb.as_bytes()),
            Some(ScopeSkip::Generated)
        );
        assert_eq!(skip_by_content("x.js", b""), None);
        // License banners of bundled libraries and framework output, short or long.
        let quill =
            "/*!\n * Quill Editor v1.3.6\n * https://quilljs.com/\n */\n.ql-container {\n}\n";
        assert_eq!(
            skip_by_content("public/css/editor.css", quill.as_bytes()),
            Some(ScopeSkip::Minified)
        );
        let tailwind = "/*\n! tailwindcss v3.0.24 | MIT License | https://tailwindcss.com\n*/\n*,\n::before {\n  box-sizing: border-box;\n}\n";
        assert_eq!(
            skip_by_content("templates/output.css", tailwind.as_bytes()),
            Some(ScopeSkip::Minified)
        );
        let charset = "@charset \"UTF-8\";\n/*! lib 2.4.1 */\n.a { color: red }\n";
        assert_eq!(
            skip_by_content("a.css", charset.as_bytes()),
            Some(ScopeSkip::Minified)
        );
        // A project's own headers: a doc comment, a `/*!` note without a version, a plain
        // license comment with a year; and a banner in a template, which a person edits.
        for own in [
            "/**\n * Routes v2 of the API.\n */\nexport {}\n",
            "/*! keep this comment */\n.a { color: red }\n",
            "/* Copyright 2024 Acme. MIT License. */\nexport const a = 1\n",
        ] {
            assert_eq!(skip_by_content("src/a.js", own.as_bytes()), None, "{own}");
        }
        assert_eq!(
            skip_by_content("views/mail.blade.php", quill.as_bytes()),
            None
        );
    }

    #[test]
    fn roles_by_path() {
        for p in [
            "tests/test_app.py",
            "src/app/test_views.py",
            "pkg/foo_test.py",
            "conftest.py",
            "src/util.test.ts",
            "src/util.spec.js",
            "tests/Feature/UserTest.php",
            "src/Foo/BarTest.php",
            "packages/vite/src/node/__tests__/build.ts",
            "playground/css/main.js",
            "tests/fixtures/a.json",
            "gin/context_test.go",
            "crates/core/tests/regression.rs",
            "src/test/java/org/junit/AssertionTest.java",
            "core/src/main/java/x/ParserTests.java",
            "spec/store/memory_spec.rb",
            "lib/store/memory_spec.rb",
            "test/store_test.rb",
            "Src/Newtonsoft.Json.Tests/Issues/Issue1234.cs",
            "src/App.UnitTests/Fixtures.cs",
            "src/App/ButtonTests.cs",
            "binding/testdata/protoexample/test.pb.go",
            "crates/searcher/benches/search.rs",
            "benchmarks/db_bench.cc",
            "benchsuite/runs/raw.csv",
            "pkg/bench/parse.go",
        ] {
            assert_eq!(FileRole::of(p), FileRole::Test, "{p}");
        }
        for p in [
            "docs/guide/api.md",
            "README.md",
            "examples/app.py",
            "CHANGELOG.rst",
            "LICENSE",
            "sub/COPYING",
            "CHANGELOG",
        ] {
            assert_eq!(FileRole::of(p), FileRole::Doc, "{p}");
        }
        for p in ["src-ui/messages.xlf", "app/translations/messages.fr.xliff"] {
            assert_eq!(FileRole::of(p), FileRole::Locale, "{p}");
        }
        for p in [
            "src/app.py",
            "app/Http/Controllers/TestController.php",
            "resources/views/index.blade.php",
            "src/testing_utils.py",
            "packages/vite/src/node/build.ts",
            "src/license.py",
            "app/Models/History.php",
            "gin/context.go",
            "crates/core/main.rs",
            "src/main/java/org/junit/Test.java",
            "src/main/java/org/junit/runner/Testable.java",
            "lib/store/spec_helper_ext.rb",
            "Src/Newtonsoft.Json/JsonConvert.cs",
            "src/latest/Contest.cs",
            "src/Illuminate/Testing/TestResponse.php",
            "src/workbench/app.ts",
            "src/benchtop/app.ts",
        ] {
            assert_eq!(FileRole::of(p), FileRole::Source, "{p}");
        }
    }
}
