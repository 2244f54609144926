//! Source languages: detection by file name, and the per-language table the chunker reads
//! (tree-sitter grammar, `queries/<lang>.scm` query, qualified-name separators, directive table),
//! compiled once per process; tree-sitter parsers are kept per thread.

use std::cell::RefCell;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use tree_sitter as ts;

use super::chunk::ChunkKind;
use super::chunk::directive::{DirectiveTable, DirectiveTableError};

/// A language the chunker knows. Everything without a grammar is [`Language::Text`]
/// (chunked by line windows). Serialised as its [`Language::id`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// Python (`.py`, `.pyi`).
    Python,
    /// PHP (`.php`, ...), parsed with `LANGUAGE_PHP` (handles `<?php` mixed with HTML).
    Php,
    /// JavaScript including JSX (`.js`, `.jsx`, `.mjs`, `.cjs`).
    JavaScript,
    /// TypeScript (`.ts`, `.mts`, `.cts`).
    TypeScript,
    /// TypeScript with JSX (`.tsx`).
    Tsx,
    /// Laravel Blade templates (`.blade.php`): the HTML grammar for elements and `<x-...>`
    /// components, plus `queries/blade.directives` for `@section ... @endsection` blocks (there is
    /// no Blade grammar on crates.io).
    Blade,
    /// HTML (`.html`, `.htm`).
    Html,
    /// CSS (`.css`).
    Css,
    /// SCSS (`.scss`).
    Scss,
    /// Go (`.go`).
    Go,
    /// Rust (`.rs`).
    Rust,
    /// Java (`.java`).
    Java,
    /// Ruby (`.rb`, `.rake`, `.gemspec`, `.ru`, `Rakefile`, `Gemfile`).
    Ruby,
    /// C# (`.cs`).
    CSharp,
    /// C (`.c`). Headers (`.h`) are [`Language::Cpp`]: the C++ grammar parses C declarations too,
    /// while the C grammar cannot parse the classes and namespaces of a C++ header (universal-ctags
    /// maps `.h` to C++ for the same reason).
    C,
    /// C++ (`.cc`, `.cpp`, `.cxx`, `.c++`, `.hpp`, `.hh`, `.hxx`, `.h++`, `.inl`, and `.h`).
    Cpp,
    /// Kotlin (`.kt`, `.kts`).
    Kotlin,
    /// Swift (`.swift`).
    Swift,
    /// Vue single-file components (`.vue`): the `<script>` blocks are parsed with the TypeScript
    /// grammar (which also reads plain JavaScript); the template and styles become line windows.
    Vue,
    /// Svelte components (`.svelte`), read like [`Language::Vue`].
    Svelte,
    /// Any other text: line-window chunks.
    Text,
}

impl Language {
    /// The stable id used in [`Chunk::language`](super::chunk::Chunk::language):
    /// `python`, `php`, `javascript`, `typescript`, `tsx`, `blade`, `html`, `css`, `scss`, `go`,
    /// `rust`, `java`, `ruby`, `csharp`, `c`, `cpp`, `kotlin`, `swift`, `vue`, `svelte`,
    /// `text`.
    pub fn id(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::Php => "php",
            Language::JavaScript => "javascript",
            Language::TypeScript => "typescript",
            Language::Tsx => "tsx",
            Language::Blade => "blade",
            Language::Html => "html",
            Language::Css => "css",
            Language::Scss => "scss",
            Language::Go => "go",
            Language::Rust => "rust",
            Language::Java => "java",
            Language::Ruby => "ruby",
            Language::CSharp => "csharp",
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::Kotlin => "kotlin",
            Language::Swift => "swift",
            Language::Vue => "vue",
            Language::Svelte => "svelte",
            Language::Text => "text",
        }
    }

    /// The language whose [`id`](Self::id) is `id`, `None` for an id this version does not write.
    pub fn from_id(id: &str) -> Option<Self> {
        ALL.into_iter().find(|l| l.id() == id)
    }
}

impl std::fmt::Display for Language {
    /// The [`id`](Language::id).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// Detects the language of a file from its name (case-insensitive extension).
///
/// `path` is any `/`-separated path; only the file name counts. `*.blade.php` is checked before
/// `*.php`; `Rakefile` and `Gemfile` are Ruby; `.h` is C++ (see [`Language::C`]). Unknown or
/// missing extensions give [`Language::Text`].
pub fn detect(path: &str) -> Language {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    if name.ends_with(".blade.php") {
        return Language::Blade;
    }
    if matches!(name.as_str(), "rakefile" | "gemfile") {
        return Language::Ruby;
    }
    let ext = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => ext,
        _ => return Language::Text,
    };
    match ext {
        "py" | "pyi" => Language::Python,
        "php" | "phtml" => Language::Php,
        "js" | "jsx" | "mjs" | "cjs" => Language::JavaScript,
        "ts" | "mts" | "cts" => Language::TypeScript,
        "tsx" => Language::Tsx,
        "html" | "htm" | "xhtml" => Language::Html,
        "css" => Language::Css,
        "scss" => Language::Scss,
        "go" => Language::Go,
        "rs" => Language::Rust,
        "java" => Language::Java,
        "rb" | "rake" | "gemspec" | "ru" => Language::Ruby,
        "cs" => Language::CSharp,
        "c" => Language::C,
        "cc" | "cpp" | "cxx" | "c++" | "hpp" | "hh" | "hxx" | "h++" | "inl" | "h" => Language::Cpp,
        "kt" | "kts" => Language::Kotlin,
        "swift" => Language::Swift,
        "vue" => Language::Vue,
        "svelte" => Language::Svelte,
        _ => Language::Text,
    }
}

/// What a capture name in a query file means to the generic chunking loop in [`super::chunk`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// `@chunk.<kind>`: the node is a chunk of this kind.
    Chunk(ChunkKind),
    /// `@chunk`: the node is a chunk made by another pattern; this match only annotates it.
    Annotate,
    /// `@name`: (part of) the chunk's symbol name.
    Name,
    /// `@doc`: the chunk's docstring or docblock; without a chunk capture, the module's.
    Doc,
    /// `@body`: the chunk's body; the signature is the text before it.
    Body,
    /// `@import`: an import statement of the file.
    Import,
    /// `@namespace`: a namespace name qualifying the declarations after it.
    Namespace,
    /// `@scope`: the node a `@namespace` of the same match is limited to (a block namespace).
    Scope,
    /// `@receiver`: the type a chunk declared outside it belongs to (a Go receiver, a Rust `impl`).
    Receiver,
    /// `@_anything`: used by predicates only.
    Ignored,
}

impl Role {
    fn parse(capture: &str) -> Option<Role> {
        let kind = match capture {
            "chunk" => return Some(Role::Annotate),
            "name" => return Some(Role::Name),
            "doc" => return Some(Role::Doc),
            "body" => return Some(Role::Body),
            "import" => return Some(Role::Import),
            "namespace" => return Some(Role::Namespace),
            "scope" => return Some(Role::Scope),
            "receiver" => return Some(Role::Receiver),
            c if c.starts_with('_') => return Some(Role::Ignored),
            "chunk.function" => ChunkKind::Function,
            "chunk.class" => ChunkKind::Class,
            "chunk.method" => ChunkKind::Method,
            "chunk.interface" => ChunkKind::Interface,
            "chunk.trait" => ChunkKind::Trait,
            "chunk.enum" => ChunkKind::Enum,
            "chunk.directive" => ChunkKind::Directive,
            "chunk.rule" => ChunkKind::Rule,
            "chunk.at_rule" => ChunkKind::AtRule,
            "chunk.element" => ChunkKind::Element,
            _ => return None,
        };
        Some(Role::Chunk(kind))
    }
}

/// The per-language settings of the chunker: data only, no behaviour.
pub(crate) struct LangSpec {
    /// The tree-sitter grammar (see `grammar!`); `None` for line-window languages.
    grammar: Option<GrammarSource>,
    /// The chunk query (`queries/<lang>.scm`).
    query: &'static str,
    /// Joins a parent's qualified name and a member's name (`.` in `Class.method`).
    pub member_sep: &'static str,
    /// Joins a type and its method when they differ from `member_sep` (`#` in Ruby's
    /// `Store::Memory#fetch`).
    pub method_sep: Option<&'static str>,
    /// Joins a namespace and a top-level name (`\` in `App\Models\User`), and nested namespaces.
    pub namespace_sep: &'static str,
    /// Joins several `@name` captures of one match (`#` in `nav#main-nav`).
    pub name_joiner: &'static str,
    /// A directive table (`queries/blade.directives`), empty when the language has none.
    pub directives: &'static str,
    /// Whether doc comments are runs of comments touching the declaration (Go, Rust, Ruby, C,
    /// ...): a `@doc` comment then takes the comments of the same kind and marker (`//`, `///`,
    /// `#`) on the lines directly above and below it, and counts only when it starts on a line of
    /// its own and the node after it starts on the next line. Otherwise the captured node is the
    /// doc as it stands (a `/** ... */` docblock).
    pub line_docs: bool,
    /// Whether only the contents of the file's `<script>` elements are parsed (single-file
    /// components: Vue, Svelte); the rest of the file (template, styles) is left to line windows.
    pub script_blocks: bool,
}

/// A [`LangSpec::grammar`]: the grammar crate's language linked into the binary, or with the
/// `dynamic-grammars` feature (the dist build) the language function `$symbol` of the shared
/// library `tree-sitter-$library`, opened the first time the language is parsed
/// (`code_intel_grammars::load`; why: docs/DIST.md). The error says which library is missing
/// and where it was looked for.
macro_rules! grammar {
    ($linked:expr, $library:literal, $symbol:literal) => {{
        #[cfg(not(feature = "dynamic-grammars"))]
        let load: fn() -> Result<ts::Language, String> = || Ok($linked);
        #[cfg(feature = "dynamic-grammars")]
        let load: fn() -> Result<ts::Language, String> = || {
            code_intel_grammars::load($library, $symbol)
                .map(ts::Language::new)
                .map_err(|e| e.to_string())
        };
        Some(GrammarSource {
            load,
            library: $library,
        })
    }};
}

/// Where a [`LangSpec`]'s grammar comes from: its loader and the name of its shared library
/// (`tree-sitter-<library>` in the dist build; several languages may share one, TypeScript and
/// TSX do).
#[derive(Clone, Copy)]
struct GrammarSource {
    /// Links or opens the grammar; the error says which library is missing and where it was
    /// looked for.
    load: fn() -> Result<ts::Language, String>,
    /// The library's name.
    #[cfg_attr(not(feature = "dynamic-grammars"), allow(dead_code))]
    library: &'static str,
}

/// The grammar libraries no searched directory holds, sorted and without duplicates: always
/// empty when the grammars are linked into the binary; in the dist build the libraries a broken
/// install lacks (`code_intel_grammars::locate`; looks at the file system only, opens nothing).
/// [`super::sync::options_fingerprint`] includes them, so that files chunked as line windows for
/// want of a grammar are chunked again once it is installed.
pub(crate) fn missing_grammar_libraries() -> Vec<&'static str> {
    #[cfg(feature = "dynamic-grammars")]
    {
        let dirs = code_intel_grammars::search_dirs();
        let mut missing: Vec<&'static str> = ALL
            .iter()
            .filter_map(|l| l.spec().grammar)
            .map(|g| g.library)
            .filter(|lib| code_intel_grammars::locate_in(lib, &dirs).is_err())
            .collect();
        missing.sort_unstable();
        missing.dedup();
        missing
    }
    #[cfg(not(feature = "dynamic-grammars"))]
    Vec::new()
}

/// Whether each parsed language's grammar and chunk query load in this build: the language and
/// `Ok(())` or why not (a missing or broken grammar library in the dist build, with how to
/// recover). Loads every grammar (`code-intel doctor`'s check); languages without a grammar are
/// left out.
pub fn check_grammars() -> Vec<(Language, Result<(), String>)> {
    ALL.iter()
        .filter(|l| l.spec().has_grammar())
        .map(|&l| (l, l.grammar().map(|_| ()).map_err(ToString::to_string)))
        .collect()
}

const NO_GRAMMAR: LangSpec = LangSpec {
    grammar: None,
    query: "",
    member_sep: ".",
    method_sep: None,
    namespace_sep: ".",
    name_joiner: "",
    directives: "",
    line_docs: false,
    script_blocks: false,
};

static PYTHON: LangSpec = LangSpec {
    grammar: grammar!(
        ts::Language::new(tree_sitter_python::LANGUAGE),
        "python",
        "tree_sitter_python"
    ),
    query: include_str!("queries/python.scm"),
    ..NO_GRAMMAR
};
// PHP's FQCN form: `App\Http\Controllers\UserController::store`.
static PHP: LangSpec = LangSpec {
    grammar: grammar!(
        ts::Language::new(tree_sitter_php::LANGUAGE_PHP),
        "php",
        "tree_sitter_php"
    ),
    query: include_str!("queries/php.scm"),
    member_sep: "::",
    namespace_sep: "\\",
    ..NO_GRAMMAR
};
static JAVASCRIPT: LangSpec = LangSpec {
    grammar: grammar!(
        ts::Language::new(tree_sitter_javascript::LANGUAGE),
        "javascript",
        "tree_sitter_javascript"
    ),
    query: include_str!("queries/javascript.scm"),
    ..NO_GRAMMAR
};
static TYPESCRIPT: LangSpec = LangSpec {
    grammar: grammar!(
        ts::Language::new(tree_sitter_typescript::LANGUAGE_TYPESCRIPT),
        "typescript",
        "tree_sitter_typescript"
    ),
    query: include_str!("queries/typescript.scm"),
    ..NO_GRAMMAR
};
static TSX: LangSpec = LangSpec {
    grammar: grammar!(
        ts::Language::new(tree_sitter_typescript::LANGUAGE_TSX),
        "typescript",
        "tree_sitter_tsx"
    ),
    query: include_str!("queries/typescript.scm"),
    ..NO_GRAMMAR
};
static HTML: LangSpec = LangSpec {
    grammar: grammar!(
        ts::Language::new(tree_sitter_html::LANGUAGE),
        "html",
        "tree_sitter_html"
    ),
    query: include_str!("queries/html.scm"),
    member_sep: " > ",
    name_joiner: "#",
    ..NO_GRAMMAR
};
// Blade: the HTML grammar with component patterns first (they take precedence), plus directives.
static BLADE: LangSpec = LangSpec {
    grammar: grammar!(
        ts::Language::new(tree_sitter_html::LANGUAGE),
        "html",
        "tree_sitter_html"
    ),
    query: concat!(
        include_str!("queries/blade.scm"),
        include_str!("queries/html.scm")
    ),
    member_sep: " > ",
    name_joiner: "#",
    directives: include_str!("queries/blade.directives"),
    ..NO_GRAMMAR
};
static CSS: LangSpec = LangSpec {
    grammar: grammar!(
        ts::Language::new(tree_sitter_css::LANGUAGE),
        "css",
        "tree_sitter_css"
    ),
    query: include_str!("queries/css.scm"),
    member_sep: " ",
    ..NO_GRAMMAR
};
static SCSS: LangSpec = LangSpec {
    grammar: grammar!(tree_sitter_scss::language(), "scss", "tree_sitter_scss"),
    query: include_str!("queries/scss.scm"),
    member_sep: " ",
    ..NO_GRAMMAR
};
// Go: `httpx.Engine.Handle` (package, receiver type, method).
static GO: LangSpec = LangSpec {
    grammar: grammar!(
        ts::Language::new(tree_sitter_go::LANGUAGE),
        "go",
        "tree_sitter_go"
    ),
    query: include_str!("queries/go.scm"),
    line_docs: true,
    ..NO_GRAMMAR
};
// Rust: `tests::Store::insert` (inline module, `impl` type, method).
static RUST: LangSpec = LangSpec {
    grammar: grammar!(
        ts::Language::new(tree_sitter_rust::LANGUAGE),
        "rust",
        "tree_sitter_rust"
    ),
    query: include_str!("queries/rust.scm"),
    member_sep: "::",
    namespace_sep: "::",
    line_docs: true,
    ..NO_GRAMMAR
};
// Java: `com.example.Repository.save` (the package is the namespace).
static JAVA: LangSpec = LangSpec {
    grammar: grammar!(
        ts::Language::new(tree_sitter_java::LANGUAGE),
        "java",
        "tree_sitter_java"
    ),
    query: include_str!("queries/java.scm"),
    ..NO_GRAMMAR
};
// Ruby: `Store::Memory#fetch` (modules and classes are chunks).
static RUBY: LangSpec = LangSpec {
    grammar: grammar!(
        ts::Language::new(tree_sitter_ruby::LANGUAGE),
        "ruby",
        "tree_sitter_ruby"
    ),
    query: include_str!("queries/ruby.scm"),
    member_sep: "::",
    method_sep: Some("#"),
    namespace_sep: "::",
    line_docs: true,
    ..NO_GRAMMAR
};
// C#: `Acme.Widgets.Button.Render`.
static CSHARP: LangSpec = LangSpec {
    grammar: grammar!(
        ts::Language::new(tree_sitter_c_sharp::LANGUAGE),
        "c-sharp",
        "tree_sitter_c_sharp"
    ),
    query: include_str!("queries/csharp.scm"),
    line_docs: true,
    ..NO_GRAMMAR
};
static C: LangSpec = LangSpec {
    grammar: grammar!(
        ts::Language::new(tree_sitter_c::LANGUAGE),
        "c",
        "tree_sitter_c"
    ),
    query: include_str!("queries/c.scm"),
    line_docs: true,
    ..NO_GRAMMAR
};
// C++: `leveldb::DB::Open` (namespaces, class or the scope of an out-of-class definition).
static CPP: LangSpec = LangSpec {
    grammar: grammar!(
        ts::Language::new(tree_sitter_cpp::LANGUAGE),
        "cpp",
        "tree_sitter_cpp"
    ),
    query: include_str!("queries/cpp.scm"),
    member_sep: "::",
    namespace_sep: "::",
    line_docs: true,
    ..NO_GRAMMAR
};
// Kotlin: `com.example.store.Repository.save` (the package is the namespace).
static KOTLIN: LangSpec = LangSpec {
    grammar: grammar!(
        ts::Language::new(tree_sitter_kotlin_ng::LANGUAGE),
        "kotlin-ng",
        "tree_sitter_kotlin"
    ),
    query: include_str!("queries/kotlin.scm"),
    ..NO_GRAMMAR
};
// Swift: `Store.value` (types, extensions' functions as methods of the extended type).
static SWIFT: LangSpec = LangSpec {
    grammar: grammar!(
        ts::Language::new(tree_sitter_swift::LANGUAGE),
        "swift",
        "tree_sitter_swift"
    ),
    query: include_str!("queries/swift.scm"),
    line_docs: true,
    ..NO_GRAMMAR
};
// Vue and Svelte: the TypeScript grammar and query over the `<script>` blocks only.
static SCRIPT_BLOCKS: LangSpec = LangSpec {
    grammar: grammar!(
        ts::Language::new(tree_sitter_typescript::LANGUAGE_TYPESCRIPT),
        "typescript",
        "tree_sitter_typescript"
    ),
    query: include_str!("queries/typescript.scm"),
    script_blocks: true,
    ..NO_GRAMMAR
};
static TEXT: LangSpec = NO_GRAMMAR;

/// Every language, in declaration order (indexes the per-language caches).
const ALL: [Language; LANGUAGES] = [
    Language::Python,
    Language::Php,
    Language::JavaScript,
    Language::TypeScript,
    Language::Tsx,
    Language::Blade,
    Language::Html,
    Language::Css,
    Language::Scss,
    Language::Go,
    Language::Rust,
    Language::Java,
    Language::Ruby,
    Language::CSharp,
    Language::C,
    Language::Cpp,
    Language::Kotlin,
    Language::Swift,
    Language::Vue,
    Language::Svelte,
    Language::Text,
];

/// How many languages there are (sizes the per-language caches).
const LANGUAGES: usize = 21;

impl LangSpec {
    /// Whether the language is parsed (otherwise it is chunked by line windows).
    pub fn has_grammar(&self) -> bool {
        self.grammar.is_some()
    }
}

impl Language {
    /// Every language the chunker knows.
    pub fn all() -> &'static [Language] {
        &ALL
    }

    /// The language's settings.
    pub(crate) fn spec(self) -> &'static LangSpec {
        match self {
            Language::Python => &PYTHON,
            Language::Php => &PHP,
            Language::JavaScript => &JAVASCRIPT,
            Language::TypeScript => &TYPESCRIPT,
            Language::Tsx => &TSX,
            Language::Blade => &BLADE,
            Language::Html => &HTML,
            Language::Css => &CSS,
            Language::Scss => &SCSS,
            Language::Go => &GO,
            Language::Rust => &RUST,
            Language::Java => &JAVA,
            Language::Ruby => &RUBY,
            Language::CSharp => &CSHARP,
            Language::C => &C,
            Language::Cpp => &CPP,
            Language::Kotlin => &KOTLIN,
            Language::Swift => &SWIFT,
            Language::Vue | Language::Svelte => &SCRIPT_BLOCKS,
            Language::Text => &TEXT,
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// The compiled grammar and query, built once per process and shared by all threads.
    ///
    /// `Ok(None)` for languages without a grammar.
    ///
    /// # Errors
    /// [`GrammarError`] when the bundled grammar or query does not load (a build defect, covered by
    /// the tests); callers fall back to line windows.
    pub(crate) fn grammar(self) -> Result<Option<&'static Grammar>, &'static GrammarError> {
        static CACHE: [OnceLock<Result<Option<Grammar>, GrammarError>>; LANGUAGES] =
            [const { OnceLock::new() }; LANGUAGES];
        CACHE[self.index()]
            .get_or_init(|| Grammar::compile(self))
            .as_ref()
            .map(Option::as_ref)
    }

    /// Runs `f` with this thread's parser for the language (created on first use, then reused).
    pub(crate) fn with_parser<R>(
        self,
        grammar: &Grammar,
        f: impl FnOnce(&mut ts::Parser) -> R,
    ) -> Result<R, GrammarError> {
        thread_local! {
            static PARSERS: RefCell<[Option<ts::Parser>; LANGUAGES]> =
                const { RefCell::new([const { None }; LANGUAGES]) };
        }
        PARSERS.with(|cell| {
            let mut parsers = cell.borrow_mut();
            let slot = &mut parsers[self.index()];
            let parser = match slot {
                Some(parser) => parser,
                None => {
                    let mut parser = ts::Parser::new();
                    parser.set_language(&grammar.language).map_err(|source| {
                        GrammarError::Incompatible {
                            language: self.id(),
                            source,
                        }
                    })?;
                    slot.insert(parser)
                }
            };
            Ok(f(parser))
        })
    }
}

/// A loaded tree-sitter grammar with its compiled chunk query.
pub(crate) struct Grammar {
    /// The tree-sitter language.
    pub language: ts::Language,
    /// The compiled `queries/<lang>.scm`.
    pub query: ts::Query,
    /// The role of each capture, indexed by capture index.
    pub roles: Vec<Role>,
    /// The grammar's `body` field, if it has one (signature = text before the body).
    pub body_field: Option<u16>,
    /// The compiled directive table, for languages that have one.
    pub directives: Option<DirectiveTable>,
}

impl Grammar {
    fn compile(language: Language) -> Result<Option<Grammar>, GrammarError> {
        let spec = language.spec();
        let Some(source) = spec.grammar else {
            return Ok(None);
        };
        let ts_language = (source.load)().map_err(|reason| GrammarError::Missing {
            language: language.id(),
            reason,
        })?;
        let query =
            ts::Query::new(&ts_language, spec.query).map_err(|source| GrammarError::Query {
                language: language.id(),
                source,
            })?;
        let roles = query
            .capture_names()
            .iter()
            .map(|name| {
                Role::parse(name).ok_or_else(|| GrammarError::UnknownCapture {
                    language: language.id(),
                    capture: (*name).to_owned(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let body_field = ts_language
            .field_id_for_name("body")
            .map(std::num::NonZeroU16::get);
        let directives = if spec.directives.is_empty() {
            None
        } else {
            let table = DirectiveTable::parse(spec.directives).map_err(|source| {
                GrammarError::DirectiveTable {
                    language: language.id(),
                    source,
                }
            })?;
            Some(table)
        };
        Ok(Some(Grammar {
            language: ts_language,
            query,
            roles,
            body_field,
            directives,
        }))
    }
}

/// A bundled grammar or query that does not load: a build defect, never caused by user input.
#[derive(Debug, thiserror::Error)]
pub(crate) enum GrammarError {
    /// The grammar's shared library did not load (the `dynamic-grammars` build only).
    #[error("{language} grammar did not load: {reason}")]
    Missing {
        /// Language id.
        language: &'static str,
        /// Which library, where it was looked for, and how to recover.
        reason: String,
    },
    /// The grammar's ABI does not match the linked tree-sitter runtime.
    #[error("{language} grammar is incompatible with the tree-sitter runtime")]
    Incompatible {
        /// Language id.
        language: &'static str,
        /// The runtime's complaint.
        #[source]
        source: ts::LanguageError,
    },
    /// The `.scm` query does not compile against the grammar.
    #[error("{language} chunk query does not compile")]
    Query {
        /// Language id.
        language: &'static str,
        /// Where and why.
        #[source]
        source: ts::QueryError,
    },
    /// The directive table does not parse.
    #[error("{language} directive table does not parse")]
    DirectiveTable {
        /// Language id.
        language: &'static str,
        /// The bad line.
        #[source]
        source: DirectiveTableError,
    },
    /// The query uses a capture name the chunker does not know.
    #[error("{language} chunk query uses unknown capture @{capture}")]
    UnknownCapture {
        /// Language id.
        language: &'static str,
        /// The capture name without `@`.
        capture: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_by_extension() {
        let cases = [
            ("resources/views/users/index.blade.php", Language::Blade),
            ("app/Models/User.php", Language::Php),
            ("app/Models/USER.PHP", Language::Php),
            ("src/a.js", Language::JavaScript),
            ("src/a.jsx", Language::JavaScript),
            ("src/a.mjs", Language::JavaScript),
            ("src/a.cjs", Language::JavaScript),
            ("src/a.ts", Language::TypeScript),
            ("src/a.d.ts", Language::TypeScript),
            ("src/a.mts", Language::TypeScript),
            ("src/a.cts", Language::TypeScript),
            ("src/a.tsx", Language::Tsx),
            ("index.html", Language::Html),
            ("index.htm", Language::Html),
            ("site.css", Language::Css),
            ("site.scss", Language::Scss),
            ("cmd/gin.go", Language::Go),
            ("src/main.rs", Language::Rust),
            ("src/main/java/com/x/App.java", Language::Java),
            ("lib/store.rb", Language::Ruby),
            ("lib/tasks/db.rake", Language::Ruby),
            ("Rakefile", Language::Ruby),
            ("Gemfile", Language::Ruby),
            ("app.gemspec", Language::Ruby),
            ("src/Widget.cs", Language::CSharp),
            ("src/adlist.c", Language::C),
            ("src/adlist.h", Language::Cpp),
            ("db/db_impl.cc", Language::Cpp),
            ("a.cpp", Language::Cpp),
            ("a.cxx", Language::Cpp),
            ("a.hpp", Language::Cpp),
            ("a.hh", Language::Cpp),
            ("a.hxx", Language::Cpp),
            ("src/main/kotlin/App.kt", Language::Kotlin),
            ("build.gradle.kts", Language::Kotlin),
            ("Sources/App/Store.swift", Language::Swift),
            (
                "resources/assets/js/components/AkauntingModal.vue",
                Language::Vue,
            ),
            ("src/routes/+page.svelte", Language::Svelte),
            ("a.py", Language::Python),
            ("stubs/a.pyi", Language::Python),
            ("README.md", Language::Text),
            ("Makefile", Language::Text),
            (".py", Language::Text),
            ("dir.php/file", Language::Text),
        ];
        for (path, want) in cases {
            assert_eq!(detect(path), want, "{path}");
        }
    }

    #[test]
    fn ids_are_distinct_snake_case() {
        let ids: Vec<&str> = Language::all().iter().map(|l| l.id()).collect();
        assert_eq!(
            ids,
            [
                "python",
                "php",
                "javascript",
                "typescript",
                "tsx",
                "blade",
                "html",
                "css",
                "scss",
                "go",
                "rust",
                "java",
                "ruby",
                "csharp",
                "c",
                "cpp",
                "kotlin",
                "swift",
                "vue",
                "svelte",
                "text"
            ]
        );
        for lang in Language::all() {
            assert_eq!(serde_json::to_value(lang).unwrap(), lang.id());
            assert_eq!(
                lang.index(),
                Language::all().iter().position(|l| l == lang).unwrap()
            );
        }
    }

    #[test]
    fn every_bundled_grammar_and_query_loads() {
        for &lang in Language::all() {
            let grammar = lang
                .grammar()
                .unwrap_or_else(|e| panic!("{}: {e:?}", lang.id()));
            assert_eq!(grammar.is_some(), lang != Language::Text, "{}", lang.id());
            if let Some(grammar) = grammar {
                assert!(
                    grammar.roles.iter().any(|r| matches!(r, Role::Chunk(_))),
                    "{}",
                    lang.id()
                );
                lang.with_parser(grammar, |parser| assert!(parser.parse("", None).is_some()))
                    .unwrap();
            }
        }
        assert!(
            Language::Blade
                .grammar()
                .unwrap()
                .unwrap()
                .directives
                .is_some()
        );
    }

    #[test]
    fn unknown_capture_is_rejected() {
        assert_eq!(Role::parse("chunk.module"), None);
        assert_eq!(Role::parse("chunk.frobnicate"), None);
        assert_eq!(Role::parse("_f"), Some(Role::Ignored));
        assert_eq!(
            Role::parse("chunk.at_rule"),
            Some(Role::Chunk(ChunkKind::AtRule))
        );
    }
}
