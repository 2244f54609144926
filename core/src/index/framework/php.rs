//! PHP symbols for any PHP project: the FQCN of every class, interface, trait and enum from the
//! file's `namespace`, `use` imports with their aliases resolved (so links name FQCNs, never the
//! short or aliased name the file writes), parents, interfaces, traits and constructor
//! injection (type-hinted constructor parameters, promoted properties included).
//!
//! Read with regular expressions over the text, not the syntax tree: the declarations they read
//! are one-line forms by PSR-12 convention, and the chunker's tree is not at hand here.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::{FileFacts, Project, Strategy};

/// The PHP symbols strategy (every `.php` file that is not a Blade view).
pub struct Php;

static NAMESPACE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)^\s*namespace\s+([\w\\]+)\s*[;{]").unwrap());
/// Top-level `use A\B [as C];` (column 0: trait uses inside a class are indented).
static USE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^use\s+(?:function\s+|const\s+)?([\w\\]+)(?:\s+as\s+(\w+))?\s*;").unwrap()
});
/// Group use: `use App\Models\{Post, Comment as C};`.
static GROUP_USE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)^use\s+([\w\\]+)\\\{([^}]*)\}\s*;").unwrap());
static CLASS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?m)^\s*(?:(?:abstract|final|readonly)\s+)*(class|interface|trait|enum)\s+(\w+)(?:\s*:\s*\w+)?(?:\s+extends\s+([\w\\]+(?:\s*,\s*[\w\\]+)*))?(?:\s+implements\s+([\w\\]+(?:\s*,\s*[\w\\]+)*))?\s*\{",
    )
    .unwrap()
});
/// A trait use inside a class body: `    use HasFactory, SoftDeletes;`.
static TRAIT_USE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)^[ \t]+use\s+([\w\\]+(?:\s*,\s*[\w\\]+)*)\s*[;{]").unwrap());
static CONSTRUCTOR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"function\s+__construct\s*\(([^)]*)\)").unwrap());
/// One typed parameter: optional modifiers, a (nullable) type, a variable.
static PARAM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?:(?:public|protected|private|readonly)\s+)*\??([\w\\]+)\s+(?:&\s*)?(?:\.\.\.)?\$\w+",
    )
    .unwrap()
});

/// Types that are not classes.
const SCALARS: &[&str] = &[
    "int", "float", "string", "bool", "array", "callable", "iterable", "object", "mixed", "self",
    "static", "null", "false", "true", "void", "never", "parent",
];

/// How a PHP file names classes: its namespace and its imports (alias → FQCN).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Names {
    /// The file's namespace (empty for the global namespace).
    pub namespace: String,
    /// Imported names: the alias (or last segment) → the FQCN, without a leading `\`.
    pub imports: HashMap<String, String>,
}

impl Names {
    /// Reads the namespace and the `use` imports of a PHP file (or a Blade view's `@php use`).
    pub fn of(text: &str) -> Self {
        let namespace = NAMESPACE
            .captures(text)
            .map(|c| c[1].to_string())
            .unwrap_or_default();
        let mut imports = HashMap::new();
        for c in USE.captures_iter(text) {
            let fqcn = c[1].trim_start_matches('\\').to_string();
            let alias = c.get(2).map_or_else(
                || last_segment(&fqcn).to_string(),
                |m| m.as_str().to_string(),
            );
            imports.insert(alias, fqcn);
        }
        for c in GROUP_USE.captures_iter(text) {
            let prefix = c[1].trim_start_matches('\\');
            for part in c[2].split(',') {
                let mut words = part.split_whitespace();
                let Some(name) = words.next() else { continue };
                let alias = match (words.next(), words.next()) {
                    (Some(a), Some(alias)) if a.eq_ignore_ascii_case("as") => alias,
                    _ => last_segment(name),
                };
                imports.insert(alias.to_string(), format!("{prefix}\\{name}"));
            }
        }
        Self { namespace, imports }
    }

    /// The FQCN a name written in this file stands for (PHP's rules: a leading `\` is fully
    /// qualified; a first segment that is an import is replaced by it; otherwise relative to
    /// the namespace). No leading `\` in the result.
    pub fn resolve(&self, name: &str) -> String {
        if let Some(abs) = name.strip_prefix('\\') {
            return abs.to_string();
        }
        let (first, rest) = match name.split_once('\\') {
            Some((f, r)) => (f, Some(r)),
            None => (name, None),
        };
        if let Some(fqcn) = self.imports.get(first) {
            return match rest {
                Some(r) => format!("{fqcn}\\{r}"),
                None => fqcn.clone(),
            };
        }
        if self.namespace.is_empty() {
            name.to_string()
        } else {
            format!("{}\\{name}", self.namespace)
        }
    }
}

/// The last `\`-separated segment of a name.
pub fn last_segment(name: &str) -> &str {
    name.rsplit('\\').next().unwrap_or(name)
}

/// Whether `ty` names a class (not a scalar or pseudo-type).
fn is_class_type(ty: &str) -> bool {
    !SCALARS.contains(&ty.to_ascii_lowercase().as_str())
}

/// Whether `text` has a `class`, `interface`, `trait` or `enum` keyword followed by `name` (a
/// declaration in any layout: the check behind a PSR-4 class, not a parse).
fn declares(text: &str, name: &str) -> bool {
    ["class", "interface", "trait", "enum"].iter().any(|kw| {
        text.match_indices(kw).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let rest = text[at + kw.len()..].trim_start();
            before.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '$'))
                && rest.len() < text.len() - at - kw.len()
                && rest.strip_prefix(name).is_some_and(|r| {
                    r.chars()
                        .next()
                        .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
                })
        })
    })
}

/// The classes declared in a PHP file: (kind, short name, FQCN, extends, implements), in order.
pub fn declarations(text: &str, names: &Names) -> Vec<Declaration> {
    CLASS
        .captures_iter(text)
        .map(|c| {
            let split = |m: Option<regex::Match<'_>>| -> Vec<String> {
                m.map(|m| {
                    m.as_str()
                        .split(',')
                        .map(|s| names.resolve(s.trim()))
                        .collect()
                })
                .unwrap_or_default()
            };
            let name = c[2].to_string();
            Declaration {
                kind: c[1].to_string(),
                fqcn: if names.namespace.is_empty() {
                    name.clone()
                } else {
                    format!("{}\\{name}", names.namespace)
                },
                name,
                extends: split(c.get(3)),
                implements: split(c.get(4)),
                offset: c.get(0).map_or(0, |m| m.start()),
            }
        })
        .collect()
}

/// One class-like declaration of a PHP file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    /// `class`, `interface`, `trait` or `enum`.
    pub kind: String,
    /// Short name.
    pub name: String,
    /// Fully qualified name.
    pub fqcn: String,
    /// Parents (FQCNs; interfaces may extend several).
    pub extends: Vec<String>,
    /// Implemented interfaces (FQCNs).
    pub implements: Vec<String>,
    /// Byte offset of the declaration.
    pub offset: usize,
}

impl Strategy for Php {
    fn name(&self) -> &'static str {
        "php"
    }

    fn applies(&self, path: &str) -> bool {
        path.ends_with(".php") && !path.ends_with(".blade.php")
    }

    fn analyze(&self, project: &Project, path: &str, text: &str, facts: &mut FileFacts) {
        let names = Names::of(text);
        for fqcn in names.imports.values() {
            facts.link("imports", format!("class:{fqcn}"));
        }
        let decls = declarations(text, &names);
        // A file whose declaration is not read here (another layout, a namespace on the
        // `<?php` line) still stands for the class composer's PSR-4 autoloader loads from it.
        if decls.is_empty()
            && let Some(fqcn) = project.psr4_class(path)
            && declares(text, last_segment(&fqcn))
        {
            facts.provide(format!("class:{fqcn}"));
            facts.detail("psr-4 class", fqcn);
        }
        for d in decls {
            facts.provide(format!("class:{}", d.fqcn));
            for parent in &d.extends {
                facts.link("extends-class", format!("class:{parent}"));
            }
            for interface in &d.implements {
                facts.link("implements", format!("class:{interface}"));
            }
        }
        for c in TRAIT_USE.captures_iter(text) {
            // A closure's `use ($x)` has no `\w` start; namespace-level uses are at column 0.
            for t in c[1].split(',') {
                facts.link("uses-trait", format!("class:{}", names.resolve(t.trim())));
            }
        }
        if let Some(c) = CONSTRUCTOR.captures(text) {
            for p in PARAM.captures_iter(&c[1]) {
                let ty = &p[1];
                if is_class_type(ty) {
                    let fqcn = names.resolve(ty);
                    facts.link("injects", format!("class:{fqcn}"));
                    facts.detail("injects", fqcn);
                }
            }
        }
    }
}
