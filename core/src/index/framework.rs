//! Framework intelligence: what a file *is* and what it *links to* in the terms of the framework
//! the repository uses (docs/FRAMEWORKS.md).
//!
//! A framework is a [`Strategy`]: data (link kinds, ranking weights) plus a small module that
//! reads one file's text and records [`FileFacts`]: the keys the file provides (`view:pages.show`
//! for `resources/views/pages/show.blade.php`, `class:App\Models\Post` for the class it
//! declares, `table:posts` for a migration) and its links (`renders view:pages.show` from a
//! controller, `table table:posts` from a model). Strategies are selected per repository by
//! project markers ([`Frameworks::detect`]: `artisan`, `composer.json` requiring
//! `laravel/framework`, ...) and per file by path; the generic chunker knows nothing of them.
//!
//! The sync stores each file's keys and links on the file's first chunk document (fields
//! `fw_provides`, `fw_link_keys`, `fw_links` of [`lexical::schema`](super::lexical::schema)), so the graph is always the
//! one of the index commit being searched: file A is linked to file B by kind K when A links a
//! key with kind K that B provides. [`CodeIndex::framework_neighbors`](super::CodeIndex::framework_neighbors) walks it both ways;
//! ranked search ([`link_bonus`]) lets a hit bring its linked files along, `analyze_structure`
//! shows a file's framework view and `find_references` the files that link a class.
//!
//! Keys: `class:<FQCN>`, `view:<dotted name>` (namespaced module views `module::name`),
//! `component:<dotted name>` (`<x-…>` tags), `livewire:<name>`, `route:<name>`,
//! `table:<name>`, `lang:<file>` (a translation file, from `__('file.key')`).

pub mod laravel;
pub mod php;
pub mod tailwind;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::{Deserialize, Serialize};

/// One link of a file: a relation kind and the key of its target.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Link {
    /// Relation kind, one of [`KINDS`].
    pub kind: String,
    /// Target key (`view:pages.show`, `class:App\Models\Post`, `table:posts`, ...).
    pub target: String,
}

/// The relation kinds, their meaning and their weight in ranked search (a linked file of a hit
/// gets `weight × RankParams::framework_link × the hit's score`; 0 = not used for ranking).
/// The weights are a fixed shape (the request-to-file relation is strongest from a controller to
/// the view it renders, weaker through includes, imports and tables); only the overall factor
/// `framework_link` was chosen on data (docs/EVALUATION.md, "Framework links").
pub const KINDS: &[(&str, &str, f32)] = &[
    (
        "renders",
        "a controller, component or mailable returns the view",
        1.0,
    ),
    ("component", "a view uses the Blade component (<x-…>)", 0.8),
    ("livewire", "a view mounts the Livewire component", 0.8),
    (
        "includes",
        "a view includes the view (@include, @each, @component)",
        0.5,
    ),
    ("extends", "a view extends the layout (@extends)", 0.2),
    ("manages", "a Filament resource manages the model", 0.8),
    ("table", "a model is stored in the table", 0.5),
    (
        "relation",
        "a model has an Eloquent relation to the model",
        0.3,
    ),
    (
        "foreign-key",
        "a migration's foreign key references the table",
        0.2,
    ),
    (
        "injects",
        "a constructor parameter is typed with the class",
        0.3,
    ),
    ("routes", "a route sends requests to the controller", 0.3),
    (
        "route-ref",
        "a view or class links to the named route (route('name'))",
        0.0,
    ),
    ("imports", "a PHP file imports the class (use)", 0.0),
    ("extends-class", "a class extends the class", 0.2),
    ("implements", "a class implements the interface", 0.1),
    ("uses-trait", "a class uses the trait", 0.2),
    (
        "translates",
        "a file uses keys of the translation file",
        0.0,
    ),
    (
        COMPANION,
        "a template or stylesheet belongs to the script of the same name beside it (x.component.html → x.component.ts)",
        1.0,
    ),
];

/// The relation of a template or stylesheet to the script of the same name in the same directory
/// (Angular's `x.component.html`/`.scss` and `x.component.ts`, a web component's `x.css` and
/// `x.ts`, a page's `index.html` and `index.js`): the script is where the behaviour a request
/// names is implemented, and the template often holds the request's words (labels, markup).
/// Found from the paths ([`companion_scripts`]), in every repository; not stored in the index.
/// Weighted like `renders`, the same relation seen from the other side.
pub const COMPANION: &str = "companion";

/// Extensions (lower case) of templates and stylesheets that belong to a script beside them.
pub const COMPANION_FILES: &[&str] = &["html", "htm", "css", "scss", "sass", "less"];

/// Extensions a companion's script may have, in the order they are looked for.
pub const COMPANION_SCRIPTS: &[&str] = &["ts", "tsx", "js", "jsx", "mjs"];

/// The paths the script of the template or stylesheet at `path` would have, in the order of
/// [`COMPANION_SCRIPTS`] (`src/app/x.component.html` → `src/app/x.component.ts`, `….tsx`, …);
/// empty for other files and for a name that is only an extension (`.css`).
pub fn companion_scripts(path: &str) -> Vec<String> {
    let name_start = path.rfind('/').map_or(0, |i| i + 1);
    let Some(dot) = path.rfind('.').filter(|&d| d > name_start) else {
        return Vec::new();
    };
    let ext = path[dot + 1..].to_ascii_lowercase();
    if !COMPANION_FILES.contains(&ext.as_str()) {
        return Vec::new();
    }
    COMPANION_SCRIPTS
        .iter()
        .map(|script| format!("{}.{script}", &path[..dot]))
        .collect()
}

/// The ranking weight of a relation kind (0 for unknown kinds).
pub fn kind_weight(kind: &str) -> f32 {
    KINDS
        .iter()
        .find(|(k, _, _)| *k == kind)
        .map_or(0.0, |(_, _, w)| *w)
}

/// What the strategies found in one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileFacts {
    /// Keys this file provides (sorted, deduplicated).
    pub provides: Vec<String>,
    /// This file's links (sorted, deduplicated).
    pub links: Vec<Link>,
    /// Descriptive facts for the framework view (`fillable` → `title, body`, `columns:posts` →
    /// `id bigIncrements, title string`, `route` → `GET /posts/{post} posts.show
    /// PostController@show`, ...), in order of appearance, by label.
    pub details: BTreeMap<String, Vec<String>>,
    /// Parts of the file indexed as chunks of their own next to the chunker's (a route of
    /// `routes/web.php`), in byte order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sections: Vec<Section>,
}

/// A part of a file that a strategy indexes as a chunk of its own (see [`chunks_of`]): a route
/// statement of a routes file becomes a [`ChunkKind::Route`](super::chunk::ChunkKind::Route)
/// chunk named by the route, whose signature spells the route out with its groups applied.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Section {
    /// Byte range `[start, end)` in the file's text.
    pub bytes: (usize, usize),
    /// The chunk's symbol (a route's name, or its verb and URI when it has none).
    pub symbol: String,
    /// The chunk's signature (`GET /posts/{post} posts.show App\Http\Controllers\PostController@show`).
    pub signature: String,
}

impl FileFacts {
    /// Records a provided key.
    pub fn provide(&mut self, key: impl Into<String>) {
        self.provides.push(key.into());
    }

    /// Records a link.
    pub fn link(&mut self, kind: &str, target: impl Into<String>) {
        self.links.push(Link {
            kind: kind.to_string(),
            target: target.into(),
        });
    }

    /// Records a descriptive fact under `label`.
    pub fn detail(&mut self, label: &str, value: impl Into<String>) {
        self.details
            .entry(label.to_string())
            .or_default()
            .push(value.into());
    }

    /// Records a section (see [`Section`]).
    pub fn section(&mut self, bytes: (usize, usize), symbol: String, signature: String) {
        self.sections.push(Section {
            bytes,
            symbol,
            signature,
        });
    }

    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.provides.is_empty()
            && self.links.is_empty()
            && self.details.is_empty()
            && self.sections.is_empty()
    }

    fn normalize(&mut self) {
        self.provides.sort();
        self.provides.dedup();
        self.links.sort();
        self.links.dedup();
        self.sections.sort();
        self.sections.dedup();
        // A file does not link to itself.
        let provides = &self.provides;
        self.links
            .retain(|l| provides.binary_search(&l.target).is_err());
    }
}

/// One framework's knowledge: which files it reads and what it finds in them.
pub trait Strategy: Send + Sync {
    /// Name, as recorded in the sync state (`php`, `laravel`).
    fn name(&self) -> &'static str;
    /// Whether this strategy reads the file at `path` (repository-relative, `/`-separated).
    fn applies(&self, path: &str) -> bool;
    /// Adds what the file says to `facts`. `text` is the file's content; `project` what the
    /// repository's root says (its PSR-4 mapping).
    fn analyze(&self, project: &Project, path: &str, text: &str, facts: &mut FileFacts);
}

/// What the repository's root says that the strategies use on every file: the PSR-4 autoload
/// mapping of the root `composer.json` (`autoload` and `autoload-dev`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Project {
    /// (namespace prefix with its trailing `\`, directory relative to the root with a trailing
    /// `/`, or empty for the root), longest prefix first.
    pub psr4: Vec<(String, String)>,
}

impl Project {
    /// Reads the root `composer.json` (at most 1 MiB); empty when there is none or it does not
    /// parse.
    pub fn read(root: &Path) -> Self {
        let path = root.join("composer.json");
        let small = std::fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() <= 1 << 20);
        let json = small
            .then(|| std::fs::read(&path).ok())
            .flatten()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok());
        let mut psr4 = Vec::new();
        for section in ["autoload", "autoload-dev"] {
            let Some(map) = json
                .as_ref()
                .and_then(|j| j.get(section))
                .and_then(|a| a.get("psr-4"))
                .and_then(|p| p.as_object())
            else {
                continue;
            };
            for (prefix, dirs) in map {
                let dirs: Vec<&str> = match dirs {
                    serde_json::Value::String(s) => vec![s.as_str()],
                    serde_json::Value::Array(a) => a.iter().filter_map(|d| d.as_str()).collect(),
                    _ => continue,
                };
                for dir in dirs {
                    let dir = dir.trim_start_matches("./").trim_end_matches('/');
                    let dir = if dir.is_empty() || dir == "." {
                        String::new()
                    } else {
                        format!("{dir}/")
                    };
                    psr4.push((prefix.clone(), dir));
                }
            }
        }
        psr4.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.cmp(b)));
        psr4.dedup();
        Self { psr4 }
    }

    /// The class a PHP file stands for by PSR-4 (`app/Support/Money.php` with `App\ → app/`
    /// → `App\Support\Money`): the longest directory of the mapping the path is under, its
    /// prefix, then the rest of the path with `/` as `\`. `None` outside every mapped
    /// directory or when a path segment is not a PHP name.
    pub fn psr4_class(&self, path: &str) -> Option<String> {
        let stem = path.strip_suffix(".php")?;
        let (prefix, rest) = self
            .psr4
            .iter()
            .filter_map(|(prefix, dir)| stem.strip_prefix(dir.as_str()).map(|r| (prefix, r)))
            .min_by_key(|(_, rest)| rest.len())?;
        let php_name = |s: &str| {
            s.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
                && s.chars().all(|c| c.is_alphanumeric() || c == '_')
        };
        if rest.is_empty() || !rest.split('/').all(php_name) {
            return None;
        }
        Some(format!("{prefix}{}", rest.replace('/', "\\")))
    }

    /// The mapping as `prefix → dir` lines, for the index fingerprint and the framework view.
    pub fn psr4_lines(&self) -> Vec<String> {
        self.psr4
            .iter()
            .map(|(p, d)| format!("psr-4 {p} → {d}"))
            .collect()
    }
}

/// The strategies active in one repository.
#[derive(Clone)]
pub struct Frameworks {
    strategies: Vec<&'static dyn Strategy>,
    project: Project,
}

impl std::fmt::Debug for Frameworks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

impl Frameworks {
    /// The strategies the project markers under `root` select: PHP symbols always (they only
    /// read `.php` files); Laravel when the root has an `artisan` script or its `composer.json`
    /// requires `laravel/framework` (or `illuminate/*`, a Lumen or package project).
    pub fn detect(root: &Path) -> Self {
        let mut strategies: Vec<&'static dyn Strategy> = vec![&php::Php];
        if laravel::is_laravel_project(root) {
            strategies.push(&laravel::Laravel);
        }
        Self {
            strategies,
            project: Project::read(root),
        }
    }

    /// The given strategies, by name (`php`, `laravel`); unknown names are ignored. For tests
    /// and callers that know the project.
    pub fn named(names: &[&str]) -> Self {
        let all: [&'static dyn Strategy; 2] = [&php::Php, &laravel::Laravel];
        Self {
            strategies: all
                .into_iter()
                .filter(|s| names.contains(&s.name()))
                .collect(),
            project: Project::default(),
        }
    }

    /// The same strategies with `project` as the root's knowledge. For tests.
    pub fn with_project(mut self, project: Project) -> Self {
        self.project = project;
        self
    }

    /// What the index was built with: the strategy names, then the PSR-4 mapping (a change of
    /// either rebuilds the index; recorded in the sync state).
    pub fn fingerprint(&self) -> Vec<String> {
        let mut out = self.names();
        out.extend(self.project.psr4_lines());
        out
    }

    /// The names of the active strategies.
    pub fn names(&self) -> Vec<String> {
        self.strategies
            .iter()
            .map(|s| s.name().to_string())
            .collect()
    }

    /// Runs every applicable strategy on one file. Non-UTF-8 text is read lossily.
    pub fn analyze(&self, path: &str, bytes: &[u8]) -> FileFacts {
        let mut facts = FileFacts::default();
        let mut text = None;
        for s in &self.strategies {
            if s.applies(path) {
                let t = text.get_or_insert_with(|| String::from_utf8_lossy(bytes));
                s.analyze(&self.project, path, t, &mut facts);
            }
        }
        facts.normalize();
        facts
    }
}

/// The chunks of a file's [`Section`]s: each takes its path, language and imports from
/// `first` (the file's first chunk), its lines and content from `text[section.bytes]`; kind
/// [`ChunkKind::Route`](super::chunk::ChunkKind::Route). Sections outside `text` or not on
/// character boundaries are left out.
pub fn chunks_of(
    first: &super::chunk::Chunk,
    text: &str,
    facts: &FileFacts,
) -> Vec<super::chunk::Chunk> {
    use sha2::{Digest, Sha256};
    // Byte offsets of the line starts, for 1-based line numbers by binary search.
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_at =
        |at: usize| u32::try_from(starts.partition_point(|s| *s <= at)).unwrap_or(u32::MAX);
    facts
        .sections
        .iter()
        .filter(|s| {
            s.bytes.0 < s.bytes.1
                && s.bytes.1 <= text.len()
                && text.is_char_boundary(s.bytes.0)
                && text.is_char_boundary(s.bytes.1)
        })
        .map(|s| {
            let content = text[s.bytes.0..s.bytes.1].to_string();
            let mut meta = serde_json::Map::new();
            meta.insert("framework".into(), "route".into());
            super::chunk::Chunk {
                path: first.path.clone(),
                start_line: line_at(s.bytes.0),
                end_line: line_at(s.bytes.1),
                byte_range: s.bytes,
                symbol: s.symbol.clone(),
                qualified_name: String::new(),
                kind: super::chunk::ChunkKind::Route,
                language: first.language,
                signature: s.signature.clone(),
                docstring: String::new(),
                imports: first.imports.clone(),
                sha256: hex::encode(Sha256::digest(content.as_bytes())),
                content,
                meta,
            }
        })
        .collect()
}

/// A file linked to another one, and how.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Neighbor {
    /// The linked file (repository-relative).
    pub file: String,
    /// Relation kind (see [`KINDS`]).
    pub kind: String,
    /// The key that links them.
    pub key: String,
    /// `true` when the file asked about holds the link (it renders, includes, uses the target);
    /// `false` when the neighbor does (the neighbor renders, includes, uses the file).
    pub outgoing: bool,
}

/// The ranking bonus that framework links give files: for each of the first `seeds` ranked
/// files (path, score), each neighbor `n` reached by kind `k` gets `factor × kind_weight(k) ×
/// score`; a file reached from several seeds keeps its largest bonus. `neighbors` gives a file's
/// neighbors. Files of the list receive a bonus too (a controller ranked 12th rises when its view
/// is first).
pub fn link_bonus(
    ranked: &[(String, f32)],
    seeds: usize,
    factor: f32,
    neighbors: impl Fn(&str) -> Vec<Neighbor>,
) -> HashMap<String, f32> {
    let mut bonus: HashMap<String, f32> = HashMap::new();
    if factor <= 0.0 {
        return bonus;
    }
    for (file, score) in ranked.iter().take(seeds) {
        for n in neighbors(file) {
            let b = factor * kind_weight(&n.kind) * score;
            if b <= 0.0 || n.file == *file {
                continue;
            }
            let e = bonus.entry(n.file).or_insert(0.0);
            *e = e.max(b);
        }
    }
    bonus
}

/// The framework view of one file (`analyze_structure` on a file): what the active strategies
/// read in it and the files the index links it with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrameworkView {
    /// The strategies active in the repository (`php`, `laravel`).
    pub frameworks: Vec<String>,
    /// Keys the file provides (`view:posts.show`, `class:App\Models\Post`, `table:posts`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub provides: Vec<String>,
    /// The file's links, as read from the file now.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<Link>,
    /// Descriptive facts: `routes`, `table`, `relations`, `fillable`, `casts`, `translatable`,
    /// `columns:<table>`, `foreign keys:<table>`, `injects`, `filament model`, `psr-4`, ...
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub details: BTreeMap<String, Vec<String>>,
    /// Files linked with this one in the index, both ways (its controller, views, model,
    /// migrations; at most [`VIEW_MAX_LINKED`], keys shared by more than that many files left
    /// out). Empty without an index.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub linked_files: Vec<Neighbor>,
}

/// At most this many linked files are listed in a [`FrameworkView`].
pub const VIEW_MAX_LINKED: usize = 40;

/// The framework view of the file `rel` with content `bytes` in the repository at `root`;
/// `index` (when open) gives the linked files. `None` when no strategy found anything.
pub fn view_of(
    root: &Path,
    rel: &str,
    bytes: &[u8],
    index: Option<&super::CodeIndex>,
) -> Option<FrameworkView> {
    let frameworks = Frameworks::detect(root);
    let facts = frameworks.analyze(rel, bytes);
    let mut linked_files = index
        .and_then(|i| i.framework_neighbors(rel, VIEW_MAX_LINKED).ok())
        .unwrap_or_default();
    // The strongest relations first, then by kind and path.
    linked_files.sort_by(|a, b| {
        kind_weight(&b.kind)
            .total_cmp(&kind_weight(&a.kind))
            .then_with(|| a.cmp(b))
    });
    linked_files.truncate(VIEW_MAX_LINKED);
    if facts.is_empty() && linked_files.is_empty() {
        return None;
    }
    Some(FrameworkView {
        frameworks: frameworks.names(),
        provides: facts.provides,
        links: facts.links,
        details: facts.details,
        linked_files,
    })
}

/// Candidate framework keys for a symbol given to `find_references`: a qualified PHP name
/// gives `class:<FQCN>`; any other name is tried as a view, component, Livewire component,
/// route, table and translation file.
pub fn keys_for_symbol(symbol: &str) -> Vec<String> {
    let symbol = symbol.trim();
    if symbol.contains('\\') {
        return vec![format!("class:{}", symbol.trim_start_matches('\\'))];
    }
    ["view", "component", "livewire", "route", "table", "lang"]
        .iter()
        .map(|p| format!("{p}:{symbol}"))
        .collect()
}

/// Lower-case kebab form of a StudlyCase name (`DocumentTitle` → `document-title`), as Laravel
/// names class components and module namespaces.
pub fn kebab(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev_lower =
                i > 0 && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit());
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if i > 0 && (prev_lower || (next_lower && chars[i - 1].is_uppercase())) {
                out.push('-');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// snake_case of a StudlyCase name (`InvoiceItem` → `invoice_item`).
pub fn snake(name: &str) -> String {
    kebab(name).replace('-', "_")
}

/// English plural of a lower-case word, the common rules of Laravel's pluralizer (`category` →
/// `categories`, `tax` → `taxes`, `item` → `items`).
pub fn plural(word: &str) -> String {
    for (singular, p) in [("person", "people"), ("child", "children")] {
        if let Some(stem) = word.strip_suffix(singular) {
            return format!("{stem}{p}");
        }
    }
    if word.ends_with('y')
        && !word.ends_with("ay")
        && !word.ends_with("ey")
        && !word.ends_with("oy")
        && !word.ends_with("uy")
    {
        return format!("{}ies", &word[..word.len() - 1]);
    }
    if ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|s| word.ends_with(s))
    {
        return format!("{word}es");
    }
    format!("{word}s")
}

#[cfg(test)]
mod tests;
