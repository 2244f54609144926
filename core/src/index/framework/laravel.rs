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
use super::{FileFacts, Project, Strategy, kebab, plural, snake};

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
/// A route: `Route::get(...)`, or the verb at the end of a chain that starts with `Route::`
/// (`Route::middleware('auth')->get(...)`; see [`chained_from_route`]).
static ROUTE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(Route::|->)(get|post|put|patch|delete|options|any|match|resource|apiResource|view|redirect)\s*\(",
    )
});
static ACTION_ARRAY: LazyLock<Regex> =
    LazyLock::new(|| re(r#"\[\s*([\w\\]+)::class\s*,\s*['"](\w+)['"]\s*\]"#));
static ACTION_STRING: LazyLock<Regex> = LazyLock::new(|| re(r#"['"]([\w\\]+)@(\w+)['"]"#));
static CLASS_CONST: LazyLock<Regex> = LazyLock::new(|| re(r"([\w\\]+)::class"));
static QUOTED: LazyLock<Regex> = LazyLock::new(|| re(r#"'([^'\\]*)'|"([^"\\]*)""#));
static ROUTE_NAME: LazyLock<Regex> = LazyLock::new(|| re(r#"->name\(\s*['"]([\w.\-]+)['"]"#));
/// A group: `Route::group([...], function ...)`, `Route::prefix('x')->name('y.')->group(...)`.
static GROUP: LazyLock<Regex> = LazyLock::new(|| re(r"(?:->|Route::)group\s*\("));
static GROUP_PREFIX: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?:\bprefix\(\s*|['"]prefix['"]\s*=>\s*)['"]([^'"]*)['"]"#));
static GROUP_NAME: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?:(?:->|::)(?:name|as)\(\s*|['"]as['"]\s*=>\s*)['"]([\w.\-:]*)['"]"#));
static GROUP_NAMESPACE: LazyLock<Regex> = LazyLock::new(|| {
    re(r#"(?:(?:->|::)namespace\(\s*|['"]namespace['"]\s*=>\s*)['"]([\w\\]*)['"]"#)
});
static GROUP_CONTROLLER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?:(?:->|::)controller\(\s*|['"]controller['"]\s*=>\s*)(?:([\w\\]+)::class|['"]([\w\\]+)['"])"#,
    )
});
/// A route's second argument as a string: the action inside a controller group
/// (`Route::get('/x', 'show')`), a resource's controller (`Route::resource('x', 'Sales\X')`).
static SECOND_STRING: LazyLock<Regex> =
    LazyLock::new(|| re(r#"^\s*['"][^'"]*['"]\s*,\s*['"]([\w\\]+)['"]"#));
/// A string literal that may be a dotted view name (`banking.reconciliations.index`,
/// `offline-payments::edit`): lower-case words joined by dots, at least one dot or a namespace.
static VIEW_LITERAL: LazyLock<Regex> = LazyLock::new(|| {
    re(r#"['"]((?:[a-z0-9_\-]+::)?[a-z0-9_\-]+(?:\.[a-z0-9_\-]+)+|[a-z0-9_\-]+::[a-z0-9_\-]+)['"]"#)
});
/// Calls whose first argument is a named route, a translation or a config key, or a field of a
/// builder (`TextColumn::make('author.name')`), not a view.
static NOT_A_VIEW_CALL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?:\broute|to_route|\b__|\btrans|trans_choice|@lang|Lang::get|\bconfig|Config::get|\benv|->name|->routeIs|->is|\w::make)\s*\(\s*$",
    )
});
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

/// Whether a `->verb(` whose preceding text is `before` ends a chain of calls that starts with
/// `Route::` in the same statement (`Route::middleware('auth')->get(...)`,
/// `Route::prefix('x')->name('y.')->post(...)`), not a `->get(` of a request, a collection or a
/// closure's body (`fn () => request()->get('q')`).
fn chained_from_route(before: &str) -> bool {
    let start = before.rfind([';', '{', '}']).map_or(0, |i| i + 1);
    let statement = &before[start..];
    statement
        .rfind("Route::")
        .is_some_and(|at| !statement[at..].contains("=>") && !statement[at..].contains('$'))
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

/// Views a class names by string literal: a literal that is exactly a dotted view name
/// (`'banking.reconciliations.index'`) is a `renders` link whatever call it is passed to (a
/// controller's own helper: `$this->response('x.y')`, `$this->view('x.y')`), unless it is the
/// first argument of a call whose argument is a route, translation or config key. Only names a
/// view of the repository provides resolve to a file (the link graph matches keys), so
/// literals that are not views link nothing.
fn view_literals(text: &str, facts: &mut FileFacts) {
    for c in VIEW_LITERAL.captures_iter(text) {
        let at = c.get(0).map_or(0, |m| m.start());
        let mut from = at.saturating_sub(40);
        while !text.is_char_boundary(from) {
            from += 1;
        }
        let before = &text[from..at];
        if NOT_A_VIEW_CALL.is_match(before) {
            continue;
        }
        facts.link("renders", format!("view:{}", &c[1]));
    }
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

/// A route group and what it applies to the routes in its body.
#[derive(Debug, Default)]
struct RouteGroup {
    /// Byte range of the `group(...)` arguments.
    body: (usize, usize),
    /// URI prefix (`prefix('admin')`, `'prefix' => 'admin'`).
    prefix: String,
    /// Name prefix (`name('admin.')`, `as('admin.')`, `'as' => 'admin.'`).
    name: String,
    /// Controller namespace of string actions (`'namespace' => 'Admin'`).
    namespace: Option<String>,
    /// The controller of `Route::controller(X::class)->group(...)` (an FQCN).
    controller: Option<String>,
}

/// The route groups of a routes file: each `group(` call, the attributes of the chain before
/// it (back to the start of its statement) and of its arguments before the closure.
fn route_groups(text: &str, names: &Names) -> Vec<RouteGroup> {
    let mut out = Vec::new();
    for m in GROUP.find_iter(text) {
        let open = m.end() - 1;
        let close = closing(text, open);
        let stmt_start = text[..m.start()]
            .rfind([';', '{', '}'])
            .map_or(0, |i| i + 1);
        let args = &text[open + 1..close];
        let head = args
            .find("function")
            .or_else(|| args.find("fn"))
            .map_or(args, |i| &args[..i]);
        let attrs = format!("{} {head}", &text[stmt_start..m.start()]);
        let first = |r: &Regex| {
            r.captures(&attrs)
                .and_then(|c| c.get(1))
                .map(|m| m.as_str().to_string())
        };
        out.push(RouteGroup {
            body: (open, close),
            prefix: first(&GROUP_PREFIX).unwrap_or_default(),
            name: first(&GROUP_NAME).unwrap_or_default(),
            namespace: first(&GROUP_NAMESPACE).filter(|n| !n.is_empty()),
            controller: GROUP_CONTROLLER.captures(&attrs).map(|c| match c.get(1) {
                Some(class) => controller_fqcn(class.as_str(), names, false),
                None => controller_fqcn(&c[2], names, true),
            }),
        });
    }
    out.sort_by_key(|g| g.body.0);
    out
}

/// The byte offset of the `)` closing the `(` at `open` (strings and comments skipped); the
/// end of the text when unbalanced.
fn closing(text: &str, open: usize) -> usize {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while i < bytes.len() {
        match bytes[i] {
            b'(' => depth += 1,
            b')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i;
                }
            }
            q @ (b'\'' | b'"') => {
                i += 1;
                while i < bytes.len() && bytes[i] != q {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                    i += 1;
                }
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    text.len()
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
            // `Route::view('/terms', ...)`: a URI, not a view (the route reads its view).
            if c[1].starts_with('/') {
                continue;
            }
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
        let groups = route_groups(text, names);
        for m in ROUTE.captures_iter(text) {
            let verb = m[2].to_string();
            let whole = m.get(0).expect("match");
            if &m[1] == "->" && !chained_from_route(&text[..whole.start()]) {
                continue;
            }
            let stmt = statement(text, whole.end());
            // The groups around the route, outermost first.
            let around: Vec<&RouteGroup> = groups
                .iter()
                .filter(|g| g.body.0 < whole.start() && whole.start() < g.body.1)
                .collect();
            let uri = QUOTED
                .captures(stmt)
                .and_then(|c| c.get(1).or(c.get(2)))
                .map(|u| u.as_str().to_string())
                .unwrap_or_default();
            let namespace: Vec<&str> = around
                .iter()
                .filter_map(|g| g.namespace.as_deref())
                .collect();
            let literal_controller = |name: &str| {
                let name = if namespace.is_empty() || name.starts_with('\\') {
                    name.to_string()
                } else {
                    format!("{}\\{name}", namespace.join("\\"))
                };
                controller_fqcn(&name, names, true)
            };
            let group_controller = around.iter().rev().find_map(|g| g.controller.clone());
            let (controller, action) = if let Some(a) = ACTION_ARRAY.captures(stmt) {
                (
                    Some(controller_fqcn(&a[1], names, false)),
                    Some(a[2].to_string()),
                )
            } else if let Some(a) = ACTION_STRING.captures(stmt) {
                (Some(literal_controller(&a[1])), Some(a[2].to_string()))
            } else if verb.ends_with("esource") {
                let ctrl = CLASS_CONST
                    .captures(stmt)
                    .map(|c| controller_fqcn(&c[1], names, false))
                    .or_else(|| {
                        SECOND_STRING
                            .captures(stmt)
                            .map(|c| literal_controller(&c[1]))
                    });
                (ctrl, None)
            } else if let (Some(ctrl), Some(a)) = (&group_controller, SECOND_STRING.captures(stmt))
                && verb != "view"
                && verb != "redirect"
            {
                (Some(ctrl.clone()), Some(a[1].to_string()))
            } else {
                (None, None)
            };
            if verb == "view"
                && let Some(view) = quoted(stmt).get(1)
            {
                facts.link("renders", format!("view:{}", view.replace('/', ".")));
            }
            let name_prefix: String = around.iter().map(|g| g.name.as_str()).collect();
            let name = ROUTE_NAME
                .captures(stmt)
                .map(|c| format!("{name_prefix}{}", &c[1]));
            if let Some(ctrl) = &controller {
                facts.link("routes", format!("class:{ctrl}"));
            }
            let mut full_uri: Vec<&str> = around
                .iter()
                .map(|g| g.prefix.trim_matches('/'))
                .filter(|p| !p.is_empty())
                .collect();
            if !uri.trim_matches('/').is_empty() {
                full_uri.push(uri.trim_matches('/'));
            }
            let full_uri = full_uri.join("/");
            let mut symbol = name.clone();
            if verb.ends_with("esource") {
                // Resource routes are named from the resource (not the URI prefix), inside the
                // groups' name prefixes.
                let base = uri.trim_matches('/').replace('/', ".");
                for a in [
                    "index", "create", "store", "show", "edit", "update", "destroy",
                ] {
                    facts.provide(format!("route:{name_prefix}{base}.{a}"));
                }
                symbol.get_or_insert_with(|| format!("{name_prefix}{base}.*"));
            }
            if let Some(n) = &name {
                facts.provide(format!("route:{n}"));
            }
            let target = match (&controller, &action) {
                (Some(c), Some(a)) => format!("{c}@{a}"),
                (Some(c), None) => c.clone(),
                _ => String::new(),
            };
            let line = format!(
                "{} /{full_uri} {} {target}",
                verb.to_uppercase(),
                symbol.as_deref().unwrap_or("-"),
            )
            .trim_end()
            .to_string();
            let end = (whole.end() + stmt.len() + 1).min(text.len());
            let end = if text.is_char_boundary(end) {
                end
            } else {
                whole.end() + stmt.len()
            };
            facts.section(
                (whole.start(), end),
                symbol.unwrap_or_else(|| format!("{} /{full_uri}", verb.to_uppercase())),
                line.clone(),
            );
            facts.detail("routes", line);
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
}

impl Strategy for Laravel {
    fn name(&self) -> &'static str {
        "laravel"
    }

    fn applies(&self, path: &str) -> bool {
        let file = path.rsplit('/').next().unwrap_or(path);
        path.ends_with(".php") || file == "composer.json" || file.starts_with("tailwind.config.")
    }

    fn analyze(&self, _project: &Project, path: &str, text: &str, facts: &mut FileFacts) {
        let file = path.rsplit('/').next().unwrap_or(path);
        if file == "composer.json" {
            return self.composer(text, facts);
        }
        if file.starts_with("tailwind.config.") {
            return super::tailwind::analyze(path, text, facts);
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
        let decls = php::declarations(text, &names);
        if !decls.is_empty() {
            view_literals(text, facts);
        }
        for decl in decls {
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
