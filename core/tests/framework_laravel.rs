//! Framework intelligence on a fixture Laravel application (`tests/fixtures/laravel_app`:
//! routes, controllers, Blade views with components, models with relations and translatable
//! fields, migrations, a Livewire component, a Filament resource, composer.json, a Tailwind
//! config): the links of every file (snapshot), the tool path Blade view → controller → model
//! → table, `find_references` on a model, project-marker selection, ranked search bringing
//! linked files along, route chunks with their groups applied, views rendered through a
//! controller's own helper and classes found by the PSR-4 mapping.

use std::path::Path;
use std::time::{Duration, SystemTime};

use code_intel_core::explore::{
    AnalyzeStructureParams, ExploreContext, FindReferencesParams, analyze_structure,
    find_references,
};
use code_intel_core::index::CodeIndex;
use code_intel_core::index::chunk::ChunkKind;
use code_intel_core::index::framework::{FrameworkView, Neighbor};
use code_intel_core::index::rank::RankParams;
use code_intel_session::config::Config;
use code_intel_session::repo_path::RepoRoot;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/laravel_app");

/// Copies the fixture into a fresh temp dir (mtimes an hour back, so the racy-mtime rule does
/// not force re-hashing), leaving out `skip`.
fn app(skip: &[&str]) -> (tempfile::TempDir, RepoRoot, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    copy(Path::new(FIXTURE), dir.path(), "", skip, &mut files);
    files.sort();
    let root = RepoRoot::new(dir.path()).unwrap();
    (dir, root, files)
}

fn copy(from: &Path, to: &Path, rel: &str, skip: &[&str], files: &mut Vec<String>) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        let rel = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        if skip.contains(&rel.as_str()) {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy(&entry.path(), &target, &rel, skip, files);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
            std::fs::File::options()
                .write(true)
                .open(&target)
                .unwrap()
                .set_modified(SystemTime::now() - Duration::from_secs(3600))
                .unwrap();
            files.push(rel);
        }
    }
}

fn indexed(root: &RepoRoot, config: &Config) -> CodeIndex {
    let index = CodeIndex::open(root, config).unwrap();
    index.sync(&mut |_| {}).unwrap();
    index
}

/// The fixture copied and indexed with the default config, for the exploration tools.
struct IndexedApp {
    _dir: tempfile::TempDir,
    root: RepoRoot,
    config: Config,
    index: CodeIndex,
}

impl IndexedApp {
    fn new() -> Self {
        let (dir, root, _) = app(&[]);
        let config = Config::default();
        let index = indexed(&root, &config);
        Self {
            _dir: dir,
            root,
            config,
            index,
        }
    }

    fn cx(&self) -> ExploreContext<'_> {
        ExploreContext {
            root: &self.root,
            config: &self.config,
            index: Some(&self.index),
            request: None,
        }
    }
}

/// Every file's provided keys and links, as indexed.
fn graph(index: &CodeIndex, files: &[String]) -> String {
    let mut out = String::new();
    for f in files {
        let (provides, links) = index.framework_facts(f).unwrap();
        if provides.is_empty() && links.is_empty() {
            continue;
        }
        out.push_str(f);
        out.push('\n');
        for p in provides {
            out.push_str(&format!("  = {p}\n"));
        }
        for l in links {
            out.push_str(&format!("  {} {}\n", l.kind, l.target));
        }
    }
    out
}

fn view(cx: &ExploreContext<'_>, path: &str) -> FrameworkView {
    let r = analyze_structure(
        cx,
        &AnalyzeStructureParams {
            path: path.to_string(),
        },
    )
    .unwrap();
    r.files[0]
        .framework
        .clone()
        .unwrap_or_else(|| panic!("{path} has no framework view"))
}

fn linked<'a>(v: &'a FrameworkView, kind: &str, outgoing: bool) -> Vec<&'a str> {
    v.linked_files
        .iter()
        .filter(|n| n.kind == kind && n.outgoing == outgoing)
        .map(|n| n.file.as_str())
        .collect()
}

#[test]
fn links_of_every_fixture_file() {
    let (_dir, root, files) = app(&[]);
    let index = indexed(&root, &Config::default());
    insta::assert_snapshot!("laravel_app_links", graph(&index, &files));
}

#[test]
fn from_a_blade_view_to_its_controller_model_and_table() {
    let app = IndexedApp::new();
    let cx = app.cx();

    // The view: rendered by the controller; it extends the layout, includes the partial,
    // uses the class and the anonymous component and the Livewire component.
    let blade = view(&cx, "resources/views/posts/show.blade.php");
    assert_eq!(blade.frameworks, ["php", "laravel"]);
    assert_eq!(blade.provides, ["view:posts.show"]);
    assert_eq!(
        linked(&blade, "renders", false),
        ["app/Http/Controllers/PostController.php"]
    );
    assert_eq!(
        linked(&blade, "component", true),
        [
            "app/View/Components/Alert.php",
            "resources/views/components/alert.blade.php",
            "resources/views/components/card/header.blade.php",
        ]
    );
    assert_eq!(
        linked(&blade, "livewire", true),
        ["app/Livewire/CommentBox.php"]
    );
    assert_eq!(
        linked(&blade, "includes", true),
        ["resources/views/posts/partials/meta.blade.php"]
    );
    assert_eq!(
        linked(&blade, "extends", true),
        ["resources/views/layouts/app.blade.php"]
    );

    // The controller: its route, its views, its model, its injected service.
    let controller = view(&cx, "app/Http/Controllers/PostController.php");
    assert_eq!(linked(&controller, "routes", false), ["routes/web.php"]);
    assert_eq!(
        linked(&controller, "renders", true),
        [
            "resources/views/posts/index.blade.php",
            "resources/views/posts/show.blade.php",
        ]
    );
    assert!(linked(&controller, "imports", true).contains(&"app/Models/Post.php"));
    assert_eq!(
        linked(&controller, "injects", true),
        ["app/Services/Markdown.php"]
    );
    assert_eq!(
        controller.details["injects"],
        ["App\\Services\\Markdown", "Illuminate\\Http\\Request"]
    );

    // The model: its table (and the migration that creates it), relations, translatable fields.
    let model = view(&cx, "app/Models/Post.php");
    assert_eq!(model.details["table"], ["posts"]);
    assert_eq!(model.details["translatable"], ["title, body"]);
    assert_eq!(model.details["fillable"], ["title, body, user_id"]);
    assert_eq!(
        model.details["casts"],
        ["published_at: datetime, meta: array"]
    );
    assert_eq!(
        model.details["relations"],
        [
            "comments hasMany App\\Models\\Comment",
            "author belongsTo App\\Models\\User"
        ]
    );
    assert_eq!(
        linked(&model, "table", true),
        ["database/migrations/2024_01_01_000000_create_posts_table.php"]
    );
    assert_eq!(
        linked(&model, "manages", false),
        ["app/Filament/Resources/PostResource.php"]
    );
    assert_eq!(
        linked(&model, "relation", false),
        ["app/Models/Comment.php", "app/Models/User.php"]
    );

    // The table: columns and foreign keys, and the model stored in it.
    let migration = view(
        &cx,
        "database/migrations/2024_01_01_000000_create_posts_table.php",
    );
    assert_eq!(migration.provides, ["table:posts"]);
    assert_eq!(
        migration.details["columns:posts"],
        ["id, title json, body json, user_id foreignId, published_at timestamp, timestamps"]
    );
    assert_eq!(
        migration.details["foreign keys:posts"],
        ["user_id → users.id"]
    );
    assert_eq!(linked(&migration, "table", false), ["app/Models/Post.php"]);
    assert_eq!(
        linked(&migration, "foreign-key", false),
        ["database/migrations/2024_01_02_000000_create_post_comments_table.php"]
    );

    // The routes file names its routes; the Filament resource its model and fields.
    let routes = view(&cx, "routes/web.php");
    assert_eq!(
        routes.details["routes"],
        [
            "GET /posts/{post} posts.show App\\Http\\Controllers\\PostController@show",
            "GET /posts posts.index App\\Http\\Controllers\\PostController@index",
            "RESOURCE /comments comments.* App\\Http\\Controllers\\CommentController",
            "GET /about about App\\Http\\Controllers\\PageController@about",
        ]
    );
    let resource = view(&cx, "app/Filament/Resources/PostResource.php");
    assert_eq!(resource.details["filament model"], ["App\\Models\\Post"]);
    assert_eq!(
        resource.details["filament fields"],
        [
            "title TextInput",
            "body Textarea",
            "title TextColumn",
            "author.name TextColumn"
        ]
    );
    let composer = view(&cx, "composer.json");
    assert_eq!(
        composer.details["psr-4"],
        [
            "App\\ → app/",
            "Database\\Factories\\ → database/factories/"
        ]
    );
    let tailwind = view(&cx, "tailwind.config.js");
    assert_eq!(tailwind.details["colors"], ["brand, accent"]);
    assert_eq!(tailwind.details["screens"], ["3xl"]);
    assert_eq!(tailwind.details["plugins"], ["@tailwindcss/forms"]);
    assert_eq!(
        tailwind.details["content"],
        ["./resources/views/**/*.blade.php, ./app/Filament/**/*.php"]
    );
}

#[test]
fn find_references_lists_framework_links_to_a_model() {
    let app = IndexedApp::new();
    let cx = app.cx();
    let kinds = |symbol: &str| -> Vec<(String, String)> {
        find_references(
            &cx,
            &FindReferencesParams {
                symbol: symbol.to_string(),
                path: None,
                max_results: None,
                order: None,
            },
        )
        .unwrap()
        .framework_links
        .into_iter()
        .map(|n: Neighbor| (n.file, n.kind))
        .collect()
    };
    let by_fqcn = kinds("App\\Models\\Post");
    for expected in [
        ("app/Filament/Resources/PostResource.php", "manages"),
        ("app/Http/Controllers/PostController.php", "imports"),
        ("app/Models/Comment.php", "relation"),
        ("app/Models/User.php", "relation"),
    ] {
        assert!(
            by_fqcn.contains(&(expected.0.to_string(), expected.1.to_string())),
            "{expected:?} not in {by_fqcn:?}"
        );
    }
    // The short name finds the same links through the class the index defines.
    assert_eq!(kinds("Post"), by_fqcn);
    // A view name finds the controller that renders it.
    assert_eq!(
        kinds("posts.show"),
        [
            (
                "app/Http/Controllers/PostController.php".to_string(),
                "renders".to_string()
            ),
            (
                "app/Http/Controllers/CommentController.php".to_string(),
                "route-ref".to_string()
            ),
            (
                "resources/views/posts/index.blade.php".to_string(),
                "route-ref".to_string()
            ),
        ]
        .into_iter()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect::<Vec<_>>()
    );
}

#[test]
fn laravel_links_need_the_project_markers() {
    let (_dir, root, files) = app(&["artisan", "composer.json"]);
    let index = indexed(&root, &Config::default());
    let (_, links) = index
        .framework_facts("app/Http/Controllers/PostController.php")
        .unwrap();
    assert!(links.iter().all(|l| l.kind != "renders"), "{links:?}");
    assert!(links.iter().any(|l| l.kind == "imports"));
    let blade = graph(&index, &files);
    assert!(!blade.contains(".blade.php"), "{blade}");

    // Adding the marker rebuilds the index with the Laravel strategy.
    std::fs::write(root.path().join("artisan"), "#!/usr/bin/env php\n").unwrap();
    let report = index.sync(&mut |_| {}).unwrap();
    assert!(report.full_rebuild);
    assert!(
        report
            .rebuild_reason
            .as_deref()
            .is_some_and(|r| r.contains("framework markers")),
        "{:?}",
        report.rebuild_reason
    );
    let (_, links) = index
        .framework_facts("app/Http/Controllers/PostController.php")
        .unwrap();
    assert!(links.iter().any(|l| l.kind == "renders"));
}

#[test]
fn ranked_search_brings_linked_files_along() {
    let (_dir, root, _) = app(&[]);
    let index = indexed(&root, &Config::default());
    let files = |framework_link: f32| -> Vec<String> {
        let params = RankParams {
            framework_link,
            ..RankParams::default()
        };
        index
            .search_files("nl2br", 10, &params)
            .unwrap()
            .into_iter()
            .map(|f| f.best.file)
            .collect()
    };
    // The service holds the word, the controller it is injected into does not; with links the
    // controller joins the results.
    let without = files(0.0);
    assert_eq!(without[0], "app/Services/Markdown.php");
    assert!(
        !without.iter().any(|f| f.contains("PostController")),
        "{without:?}"
    );
    let with = files(0.5);
    assert_eq!(with[0], "app/Services/Markdown.php");
    assert!(
        with.iter()
            .any(|f| f == "app/Http/Controllers/PostController.php"),
        "{with:?}"
    );
    // Every file found without the links is still found.
    assert!(
        without.iter().all(|f| with.contains(f)),
        "{without:?} vs {with:?}"
    );
}

#[test]
fn routes_are_chunks_with_their_groups_applied() {
    let app = IndexedApp::new();
    let cx = app.cx();
    // Each route statement is a chunk of its own, named by its route (group name prefixes
    // applied), its signature the route spelled out (group URI prefixes, controller groups).
    let mut routes: Vec<(String, String)> = app
        .index
        .chunks_of("routes/admin.php")
        .unwrap()
        .into_iter()
        .filter(|c| c.kind == ChunkKind::Route)
        .map(|c| (c.symbol, c.signature))
        .collect();
    routes.sort();
    assert_eq!(
        routes,
        [
            (
                "admin.banking.reconciliations.*".to_string(),
                "RESOURCE /admin/banking/reconciliations admin.banking.reconciliations.* App\\Http\\Controllers\\Banking\\Reconciliations".to_string()
            ),
            (
                "admin.dashboard".to_string(),
                "GET /admin/dashboard admin.dashboard App\\Http\\Controllers\\Admin\\Dashboard@index".to_string()
            ),
            (
                "admin.reports.show".to_string(),
                "GET /admin/reports/{report} admin.reports.show App\\Http\\Controllers\\Admin\\ReportController@show".to_string()
            ),
            ("terms".to_string(), "VIEW /terms terms".to_string()),
        ]
    );
    // Searchable by the route name, by URI words and by the action.
    for (query, symbol) in [
        ("admin.reports.show", "admin.reports.show"),
        ("admin dashboard", "admin.dashboard"),
        ("ReportController show", "admin.reports.show"),
    ] {
        let hits = app.index.search(query, 20).unwrap();
        assert!(
            hits.iter()
                .any(|h| h.kind == ChunkKind::Route && h.symbol == symbol),
            "{query}: {:?}",
            hits.iter()
                .map(|h| (&h.file, &h.symbol, h.kind))
                .collect::<Vec<_>>()
        );
    }
    // The routes file is linked to the controllers, the one found only by PSR-4 included.
    let routes_view = view(&cx, "routes/admin.php");
    assert_eq!(
        linked(&routes_view, "routes", true),
        [
            "app/Http/Controllers/Admin/Dashboard.php",
            "app/Http/Controllers/Admin/ReportController.php",
            "app/Http/Controllers/Banking/Reconciliations.php",
        ]
    );
    assert_eq!(
        linked(&routes_view, "renders", true),
        ["resources/views/pages/about.blade.php"]
    );
}

#[test]
fn views_rendered_through_a_helper_and_classes_found_by_psr4() {
    let app = IndexedApp::new();
    let cx = app.cx();
    // `$this->response('banking.reconciliations.index')`: the literal names a view the
    // repository provides; `route('banking.reconciliations.index')` and `config('app.name')`
    // in the same class are not views.
    let controller = view(&cx, "app/Http/Controllers/Banking/Reconciliations.php");
    assert_eq!(
        linked(&controller, "renders", true),
        ["resources/views/banking/reconciliations/index.blade.php"]
    );
    assert_eq!(linked(&controller, "routes", false), ["routes/admin.php"]);
    let refs = find_references(
        &cx,
        &FindReferencesParams {
            symbol: "banking.reconciliations.index".to_string(),
            path: None,
            max_results: None,
            order: None,
        },
    )
    .unwrap();
    assert!(
        refs.framework_links.iter().any(|n| n.file
            == "app/Http/Controllers/Banking/Reconciliations.php"
            && n.kind == "renders"),
        "{:?}",
        refs.framework_links
    );
    // A class whose declaration the PHP strategy does not read (namespace and class on the
    // `<?php` line) is the class composer's PSR-4 mapping loads from its path.
    let dashboard = view(&cx, "app/Http/Controllers/Admin/Dashboard.php");
    assert_eq!(
        dashboard.provides,
        ["class:App\\Http\\Controllers\\Admin\\Dashboard"]
    );
    assert_eq!(
        dashboard.details["psr-4 class"],
        ["App\\Http\\Controllers\\Admin\\Dashboard"]
    );
    assert_eq!(linked(&dashboard, "routes", false), ["routes/admin.php"]);
    // The TypeScript Tailwind config, read with the grammar.
    let tailwind = view(&cx, "tailwind.config.ts");
    assert_eq!(tailwind.details["colors"], ["brand, ink-muted"]);
    assert_eq!(
        tailwind.details["plugins"],
        ["@tailwindcss/forms, @tailwindcss/typography"]
    );
}
