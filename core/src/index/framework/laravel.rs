//! Laravel: views and Blade, routes, Eloquent models, migrations, Filament resources,
//! `composer.json` and the Tailwind config (docs/FRAMEWORKS.md lists what each file gives).
//!
//! Read with regular expressions over the text: each form read here (`view('x.y')`,
//! `@include('x')`, `<x-name>`, `Route::get(...)`, `$this->hasMany(X::class)`,
//! `Schema::create('t', ...)`) is a call with literal arguments; names built at run time
//! (`view($name)`) are not followed.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::php::{self, Names};
use super::{FileFacts, Strategy, kebab, plural, snake};

/// The Laravel strategy.
pub struct Laravel;

/// Whether `root` is a Laravel project (or a package built on Illuminate): an `artisan` script
/// at the root, or a `composer.json` whose `require`/`require-dev` names `laravel/framework`,
/// `laravel/lumen-framework` or an `illuminate/*` package.
pub fn is_laravel_project(root: &Path) -> bool {
    if root.join("artisan").is_file() {
        return true;
    }
    let Ok(meta) = std::fs::metadata(root.join("composer.json")) else {
        return false;
    };
    if !meta.is_file() || meta.len() > 1 << 20 {
        return false;
    }
    let Ok(bytes) = std::fs::read(root.join("composer.json")) else {
        return false;
    };
    let Ok(json) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return false;
    };
    ["require", "require-dev"].iter().any(|section| {
        json.get(section)
            .and_then(|r| r.as_object())
            .is_some_and(|r| {
                r.keys().any(|k| {
                    k == "laravel/framework"
                        || k == "laravel/lumen-framework"
                        || k.starts_with("illuminate/")
                })
            })
    })
}

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("static pattern")
}

/// A view rendered from PHP: `view('x')`, `View::make('x')`, `->view('x')`, `->markdown('x')`,
/// named arguments `view: 'x'` (mailables' `Content`).
static RENDER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?:\bview|View::make|View::first|->view|->markdown|\bview:|\bmarkdown:|\bhtml:|\btext:)\s*\(?\s*\[?\s*['"]([\w.:\-/]+)['"]"#,
    )
});
static ROUTE_REF: LazyLock<Regex> =
    LazyLock::new(|| re(r#"\b(?:route|to_route)\(\s*['"]([\w.\-]+)['"]"#));
static TRANS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?:\b__|\btrans|\btrans_choice|@lang|@choice|Lang::get)\(\s*['"](?:[\w\-]+::)?([\w\-/]+)\.[\w.\-]+['"]"#,
    )
});
static BLADE_VIEW: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"@(extends|include|includeIf|includeWhen|includeUnless|includeFirst|each|component)\s*\(\s*(?:[^'"()]*?,\s*)?\[?\s*['"]([\w.:\-/]+)['"]"#,
    )
});
static BLADE_COMPONENT: LazyLock<Regex> = LazyLock::new(|| re(r"<x-([\w\-.:]+)"));
static LIVEWIRE: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?:@livewire\(\s*['"]([\w.\-]+)['"]|<livewire:([\w.\-]+))"#));
static BLADE_INJECT: LazyLock<Regex> =
    LazyLock::new(|| re(r#"@inject\(\s*['"]\w+['"]\s*,\s*['"]([\w\\]+)['"]"#));
static ROUTE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"Route::(get|post|put|patch|delete|options|any|match|resource|apiResource|view|redirect)\s*\(",
    )
});
static ACTION_ARRAY: LazyLock<Regex> =
    LazyLock::new(|| re(r#"\[\s*([\w\\]+)::class\s*,\s*['"](\w+)['"]\s*\]"#));
static ACTION_STRING: LazyLock<Regex> = LazyLock::new(|| re(r#"['"]([\w\\]+)@(\w+)['"]"#));
static CLASS_CONST: LazyLock<Regex> = LazyLock::new(|| re(r"([\w\\]+)::class"));
static QUOTED: LazyLock<Regex> = LazyLock::new(|| re(r#"'([^'\\]*)'|"([^"\\]*)""#));
static ROUTE_NAME: LazyLock<Regex> = LazyLock::new(|| re(r#"->name\(\s*['"]([\w.\-]+)['"]"#));
static RELATION: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"\$this\s*->\s*(hasOne|hasMany|belongsTo|belongsToMany|morphTo|morphOne|morphMany|morphToMany|morphedByMany|hasManyThrough|hasOneThrough)\s*\(\s*(?:([\w\\]+)::class|['"]([\w\\]+)['"])?"#,
    )
});
static FUNCTION: LazyLock<Regex> = LazyLock::new(|| re(r"function\s+(\w+)\s*\("));
static TABLE_PROP: LazyLock<Regex> = LazyLock::new(|| re(r#"\$table\s*=\s*['"]([\w.]+)['"]"#));
static ARRAY_PROP: LazyLock<Regex> = LazyLock::new(|| {
    re(r"\$(fillable|casts|translatable|guarded|hidden|appends|dates)\s*=\s*\[([^\]]*)\]")
});
static CASTS_METHOD: LazyLock<Regex> =
    LazyLock::new(|| re(r"function\s+casts\s*\(\s*\)[^{]*\{\s*return\s*\[([^\]]*)\]"));
static SCHEMA: LazyLock<Regex> =
    LazyLock::new(|| re(r#"Schema::(?:connection\([^)]*\)->)?(create|table)\(\s*['"](\w+)['"]"#));
static COLUMN: LazyLock<Regex> = LazyLock::new(|| re(r#"\$table->(\w+)\(\s*(?:['"](\w+)['"])?"#));
static FOREIGN: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"foreign\(\s*['"](\w+)['"]\s*\)\s*->\s*references\(\s*['"](\w+)['"]\s*\)\s*->\s*on\(\s*['"](\w+)['"]"#,
    )
});
static CONSTRAINED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"foreignId\(\s*['"](\w+)['"]\s*\)(?:\s*->\s*\w+\([^)]*\))*?\s*->\s*constrained\(\s*(?:['"](\w+)['"])?"#,
    )
});
static FILAMENT_MODEL: LazyLock<Regex> = LazyLock::new(|| re(r"\$model\s*=\s*([\w\\]+)::class"));
static FILAMENT_FIELD: LazyLock<Regex> =
    LazyLock::new(|| re(r#"\b(\w+)::make\(\s*['"]([\w.]+)['"]"#));
static TAILWIND_KEY: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?m)^\s*['\x22]?([\w\-]+)['\x22]?\s*:"));

/// Column methods of the schema builder that are not columns.
const NOT_COLUMNS: &[&str] = &[
    "foreign",
    "primary",
    "unique",
    "index",
    "dropColumn",
    "dropForeign",
    "dropIndex",
    "dropUnique",
    "dropPrimary",
    "renameColumn",
    "dropTimestamps",
    "dropSoftDeletes",
    "engine",
    "charset",
    "collation",
    "comment",
    "fullText",
    "spatialIndex",
    "dropIfExists",
    "renameIndex",
    "dropConstrainedForeignId",
    "dropForeignIdFor",
    "temporary",
];

/// Parent classes that make a class an Eloquent model.
fn is_model_parent(parent: &str) -> bool {
    let last = php::last_segment(parent);
    last.ends_with("Model") || last == "Authenticatable" || last == "Pivot" || last == "User"
}

/// The view a Blade file is (`resources/views/pages/show.blade.php` → `pages.show`;
/// `modules/Blog/Resources/views/post.blade.php` → `blog::post`; published vendor views
/// `resources/views/vendor/pkg/x.blade.php` → `pkg::x`). `None` outside a views directory.
pub fn view_name(path: &str) -> Option<String> {
    let stem = path.strip_suffix(".blade.php")?;
    let lower = stem.to_ascii_lowercase();
    let at = lower.rfind("resources/views/")?;
    let name = stem[at + "resources/views/".len()..].replace('/', ".");
    let prefix = &stem[..at];
    if let Some(vendor) = name.strip_prefix("vendor.")
        && let Some((pkg, rest)) = vendor.split_once('.')
    {
        return Some(format!("{pkg}::{rest}"));
    }
    // A module: `<modules dir>/<Module>/Resources/views/`.
    let module = prefix
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("");
    if !module.is_empty() && prefix.trim_end_matches('/').contains('/') {
        return Some(format!("{}::{name}", kebab(module)));
    }
    Some(name)
}

/// The `<x-…>` name of a component view (`components.alert.index` → `alert`,
/// `blog::components.card` → `blog::card`).
fn component_of_view(view: &str) -> Option<String> {
    let (ns, rest) = match view.split_once("::") {
        Some((ns, rest)) => (Some(ns), rest),
        None => (None, view),
    };
    let comp = rest.strip_prefix("components.")?;
    let comp = comp.strip_suffix(".index").unwrap_or(comp);
    Some(match ns {
        Some(ns) => format!("{ns}::{comp}"),
        None => comp.to_string(),
    })
}

/// The `<x-…>` name of a class component (`App\View\Components\Form\Text` → `form.text`,
/// `Modules\Blog\View\Components\Card` → `blog::card`), and the Livewire name of a Livewire
/// class (`App\Livewire\Counter`, `App\Http\Livewire\Counter` → `counter`).
fn class_component(fqcn: &str) -> Option<(&'static str, String)> {
    let dotted = |rest: &str| rest.split('\\').map(kebab).collect::<Vec<_>>().join(".");
    if let Some((head, rest)) = fqcn.split_once("\\View\\Components\\") {
        let name = dotted(rest);
        return Some(match head.strip_prefix("Modules\\") {
            Some(module) => ("component", format!("{}::{name}", kebab(module))),
            None => ("component", name),
        });
    }
    for marker in ["\\Http\\Livewire\\", "\\Livewire\\"] {
        if let Some((_, rest)) = fqcn.split_once(marker) {
            return Some(("livewire", dotted(rest)));
        }
    }
    None
}

/// The translation file a path is (`resources/lang/en/general.php`, `lang/en/general.php` →
/// `general`).
fn lang_file(path: &str) -> Option<&str> {
    let stem = path.strip_suffix(".php")?;
    let mut parts = stem.rsplit('/');
    let file = parts.next()?;
    let _locale = parts.next()?;
    (parts.next()? == "lang").then_some(file)
}

/// The strings of a PHP array literal's body (`'a', 'b'` → `[a, b]`; `'k' => 'v'` → `[k, v]`).
fn quoted(body: &str) -> Vec<String> {
    QUOTED
        .captures_iter(body)
        .filter_map(|c| c.get(1).or(c.get(2)).map(|m| m.as_str().to_string()))
        .collect()
}

/// The `;`-terminated statement starting at `from` (at most 2,000 bytes).
fn statement(text: &str, from: usize) -> &str {
    let rest = &text[from..];
    let mut end = rest.find(';').unwrap_or(rest.len()).min(2000);
    while !rest.is_char_boundary(end) {
        end -= 1;
    }
    &rest[..end]
}

/// A route's controller as an FQCN: a `::class` name resolved through the file's imports; a
/// string (`'Sales\Invoices'`, `'PostController@show'`) relative to `App\Http\Controllers`
/// unless it is already absolute.
fn controller_fqcn(name: &str, names: &Names, literal: bool) -> String {
    if !literal {
        return names.resolve(name);
    }
    let name = name.trim_start_matches('\\');
    if name.starts_with("App\\") || name.starts_with("Modules\\") {
        name.to_string()
    } else {
        format!("App\\Http\\Controllers\\{name}")
    }
}

impl Laravel {
    fn blade(&self, path: &str, text: &str, facts: &mut FileFacts) {
        if let Some(view) = view_name(path) {
            if let Some(comp) = component_of_view(&view) {
                facts.provide(format!("component:{comp}"));
            }
            facts.provide(format!("view:{view}"));
        }
        for c in BLADE_VIEW.captures_iter(text) {
            let kind = if &c[1] == "extends" {
                "extends"
            } else {
                "includes"
            };
            facts.link(kind, format!("view:{}", c[2].replace('/', ".")));
        }
        for c in BLADE_COMPONENT.captures_iter(text) {
            let name = c[1].trim_end_matches(['.', ':', '-']);
            if name == "slot" || name.starts_with("slot:") || name == "dynamic-component" {
                continue;
            }
            facts.link("component", format!("component:{name}"));
        }
        for c in LIVEWIRE.captures_iter(text) {
            if let Some(m) = c.get(1).or(c.get(2)) {
                facts.link("livewire", format!("livewire:{}", m.as_str()));
            }
        }
        for c in BLADE_INJECT.captures_iter(text) {
            facts.link(
                "injects",
                format!("class:{}", c[1].trim_start_matches('\\')),
            );
        }
        self.common(text, facts);
    }

    /// Links every PHP and Blade file may hold: rendered views, named routes, translations.
    fn common(&self, text: &str, facts: &mut FileFacts) {
        for c in RENDER.captures_iter(text) {
            facts.link("renders", format!("view:{}", c[1].replace('/', ".")));
        }
        for c in ROUTE_REF.captures_iter(text) {
            facts.link("route-ref", format!("route:{}", &c[1]));
        }
        for c in TRANS.captures_iter(text) {
            facts.link("translates", format!("lang:{}", &c[1]));
        }
    }

    fn routes(&self, text: &str, names: &Names, facts: &mut FileFacts) {
        for m in ROUTE.captures_iter(text) {
            let verb = m[1].to_string();
            let whole = m.get(0).expect("match");
            let stmt = statement(text, whole.end());
            let uri = QUOTED
                .captures(stmt)
                .and_then(|c| c.get(1).or(c.get(2)))
                .map(|u| u.as_str().to_string())
                .unwrap_or_default();
            let (controller, action) = if let Some(a) = ACTION_ARRAY.captures(stmt) {
                (
                    Some(controller_fqcn(&a[1], names, false)),
                    Some(a[2].to_string()),
                )
            } else if let Some(a) = ACTION_STRING.captures(stmt) {
                (
                    Some(controller_fqcn(&a[1], names, true)),
                    Some(a[2].to_string()),
                )
            } else if verb.ends_with("esource") {
                let ctrl = CLASS_CONST
                    .captures(stmt)
                    .map(|c| controller_fqcn(&c[1], names, false))
                    .or_else(|| quoted(stmt).get(1).map(|s| controller_fqcn(s, names, true)));
                (ctrl, None)
            } else {
                (None, None)
            };
            let name = ROUTE_NAME.captures(stmt).map(|c| c[1].to_string());
            if let Some(ctrl) = &controller {
                facts.link("routes", format!("class:{ctrl}"));
            }
            if verb.ends_with("esource") {
                let base = uri.trim_matches('/').replace('/', ".");
                for a in [
                    "index", "create", "store", "show", "edit", "update", "destroy",
                ] {
                    facts.provide(format!("route:{base}.{a}"));
                }
            }
            if let Some(n) = &name {
                facts.provide(format!("route:{n}"));
            }
            let target = match (&controller, &action) {
                (Some(c), Some(a)) => format!("{c}@{a}"),
                (Some(c), None) => c.clone(),
                _ => String::new(),
            };
            facts.detail(
                "routes",
                format!(
                    "{} /{} {} {}",
                    verb.to_uppercase(),
                    uri.trim_start_matches('/'),
                    name.as_deref().unwrap_or("-"),
                    target
                )
                .trim_end()
                .to_string(),
            );
        }
    }

    fn model(&self, text: &str, decl: &php::Declaration, names: &Names, facts: &mut FileFacts) {
        let table = TABLE_PROP
            .captures(text)
            .map(|c| c[1].to_string())
            .unwrap_or_else(|| plural(&snake(&decl.name)));
        facts.link("table", format!("table:{table}"));
        facts.detail("table", table);
        for c in RELATION.captures_iter(text) {
            let at = c.get(0).map_or(0, |m| m.start());
            let method = FUNCTION
                .captures_iter(&text[..at])
                .last()
                .map(|f| f[1].to_string())
                .unwrap_or_default();
            let related = c.get(2).map(|m| names.resolve(m.as_str())).or_else(|| {
                c.get(3)
                    .map(|m| m.as_str().trim_start_matches('\\').to_string())
            });
            match related {
                Some(r) => {
                    facts.link("relation", format!("class:{r}"));
                    facts.detail("relations", format!("{method} {} {r}", &c[1]));
                }
                None => facts.detail("relations", format!("{method} {}", &c[1])),
            }
        }
        for c in ARRAY_PROP.captures_iter(text) {
            let label = &c[1];
            let items = quoted(&c[2]);
            let items = if label == "casts" {
                items.chunks(2).map(|p| p.join(": ")).collect::<Vec<_>>()
            } else {
                items
            };
            facts.detail(label, items.join(", "));
        }
        if let Some(c) = CASTS_METHOD.captures(text) {
            let pairs = quoted(&c[1]);
            facts.detail(
                "casts",
                pairs
                    .chunks(2)
                    .map(|p| p.join(": "))
                    .collect::<Vec<_>>()
                    .join(", "),
            );
        }
    }

    fn migration(&self, text: &str, facts: &mut FileFacts) {
        let calls: Vec<(usize, String)> = SCHEMA
            .captures_iter(text)
            .map(|c| (c.get(0).map_or(0, |m| m.start()), c[2].to_string()))
            .collect();
        for (i, (start, table)) in calls.iter().enumerate() {
            facts.provide(format!("table:{table}"));
            let end = calls.get(i + 1).map_or(text.len(), |(s, _)| *s);
            let body = &text[*start..end];
            let mut columns = Vec::new();
            for c in COLUMN.captures_iter(body) {
                let method = &c[1];
                if NOT_COLUMNS.contains(&method) {
                    continue;
                }
                columns.push(match c.get(2) {
                    Some(name) => format!("{} {method}", name.as_str()),
                    None => method.to_string(),
                });
            }
            if !columns.is_empty() {
                facts.detail(&format!("columns:{table}"), columns.join(", "));
            }
            for c in FOREIGN.captures_iter(body) {
                facts.link("foreign-key", format!("table:{}", &c[3]));
                facts.detail(
                    &format!("foreign keys:{table}"),
                    format!("{} → {}.{}", &c[1], &c[3], &c[2]),
                );
            }
            for c in CONSTRAINED.captures_iter(body) {
                let target = c.get(2).map_or_else(
                    || plural(c[1].strip_suffix("_id").unwrap_or(&c[1])),
                    |m| m.as_str().to_string(),
                );
                facts.link("foreign-key", format!("table:{target}"));
                facts.detail(
                    &format!("foreign keys:{table}"),
                    format!("{} → {target}.id", &c[1]),
                );
            }
        }
    }

    fn filament(&self, text: &str, names: &Names, facts: &mut FileFacts) {
        if let Some(c) = FILAMENT_MODEL.captures(text) {
            let model = names.resolve(&c[1]);
            facts.link("manages", format!("class:{model}"));
            facts.detail("filament model", model);
        }
        for c in FILAMENT_FIELD.captures_iter(text) {
            facts.detail("filament fields", format!("{} {}", &c[2], &c[1]));
        }
    }

    fn composer(&self, text: &str, facts: &mut FileFacts) {
        let Ok(json) = serde_json::from_str::<serde_json::Value>(text) else {
            return;
        };
        for section in ["autoload", "autoload-dev"] {
            if let Some(map) = json
                .get(section)
                .and_then(|a| a.get("psr-4"))
                .and_then(|p| p.as_object())
            {
                for (prefix, dir) in map {
                    let dirs = match dir {
                        serde_json::Value::String(s) => s.clone(),
                        serde_json::Value::Array(a) => a
                            .iter()
                            .filter_map(|d| d.as_str())
                            .collect::<Vec<_>>()
                            .join(" "),
                        _ => continue,
                    };
                    facts.detail("psr-4", format!("{prefix} → {dirs}"));
                }
            }
        }
        for section in ["require", "require-dev"] {
            if let Some(map) = json.get(section).and_then(|r| r.as_object()) {
                for (name, version) in map {
                    facts.detail(
                        section,
                        format!("{name} {}", version.as_str().unwrap_or("")),
                    );
                }
            }
        }
    }

    fn tailwind(&self, text: &str, facts: &mut FileFacts) {
        // Top-level sections and keys one level into `theme.extend` / `theme`, by indentation
        // (prettier-formatted configs): colours, screens, fonts; plugins and content paths.
        for section in ["colors", "screens", "fontFamily"] {
            if let Some(at) = text.find(&format!("{section}:")) {
                let body = block(&text[at..]);
                let keys: Vec<String> = TAILWIND_KEY
                    .captures_iter(body)
                    .map(|c| c[1].to_string())
                    .filter(|k| k != section)
                    .collect();
                if !keys.is_empty() {
                    facts.detail(section, keys.join(", "));
                }
            }
        }
        for section in ["content", "plugins"] {
            if let Some(at) = text.find(&format!("{section}:")) {
                let rest = &text[at..];
                if let Some(open) = rest.find('[') {
                    let body = &rest[open..];
                    let body = &body[..body.find(']').unwrap_or(body.len())];
                    let items = quoted(body);
                    if !items.is_empty() {
                        facts.detail(section, items.join(", "));
                    }
                }
            }
        }
    }
}

/// The `{ … }` block that starts at the first `{` of `text` (balanced; the rest of the text
/// when unbalanced).
fn block(text: &str) -> &str {
    let Some(open) = text.find('{') else {
        return "";
    };
    let mut depth = 0usize;
    for (i, ch) in text[open..].char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return &text[open + 1..open + i];
                }
            }
            _ => {}
        }
    }
    &text[open + 1..]
}

impl Strategy for Laravel {
    fn name(&self) -> &'static str {
        "laravel"
    }

    fn applies(&self, path: &str) -> bool {
        let file = path.rsplit('/').next().unwrap_or(path);
        path.ends_with(".php") || file == "composer.json" || file.starts_with("tailwind.config.")
    }

    fn analyze(&self, path: &str, text: &str, facts: &mut FileFacts) {
        let file = path.rsplit('/').next().unwrap_or(path);
        if file == "composer.json" {
            return self.composer(text, facts);
        }
        if file.starts_with("tailwind.config.") {
            return self.tailwind(text, facts);
        }
        if path.ends_with(".blade.php") {
            return self.blade(path, text, facts);
        }
        if let Some(lang) = lang_file(path) {
            facts.provide(format!("lang:{lang}"));
            return;
        }
        let names = Names::of(text);
        let lower = path.to_ascii_lowercase();
        if lower.starts_with("routes/") || lower.contains("/routes/") {
            self.routes(text, &names, facts);
        }
        if lower.contains("migrations/") {
            self.migration(text, facts);
        }
        for decl in php::declarations(text, &names) {
            if let Some((kind, name)) = class_component(&decl.fqcn) {
                facts.provide(format!("{kind}:{name}"));
            }
            if decl.kind == "class" && decl.extends.iter().any(|p| is_model_parent(p)) {
                self.model(text, &decl, &names, facts);
            }
            if decl
                .extends
                .iter()
                .any(|p| php::last_segment(p) == "Resource" && p.contains("Filament"))
            {
                self.filament(text, &names, facts);
            }
        }
        self.common(text, facts);
    }
}
