use super::laravel::view_name;
use super::php::Names;
use super::*;

fn laravel() -> Frameworks {
    Frameworks::named(&["php", "laravel"])
}

fn links(facts: &FileFacts) -> Vec<String> {
    facts
        .links
        .iter()
        .map(|l| format!("{} {}", l.kind, l.target))
        .collect()
}

#[test]
fn names_follow_php_resolution_rules() {
    let names = Names::of(
        "<?php\nnamespace App\\Http;\n\nuse App\\Models\\Post;\nuse App\\Services\\Markdown as Md;\nuse App\\Models\\{Comment, User as Author};\n",
    );
    assert_eq!(names.resolve("Post"), "App\\Models\\Post");
    assert_eq!(names.resolve("Md"), "App\\Services\\Markdown");
    assert_eq!(names.resolve("Author"), "App\\Models\\User");
    assert_eq!(names.resolve("Comment"), "App\\Models\\Comment");
    assert_eq!(
        names.resolve("Requests\\Store"),
        "App\\Http\\Requests\\Store"
    );
    assert_eq!(names.resolve("\\Carbon\\Carbon"), "Carbon\\Carbon");
    assert_eq!(names.resolve("Post\\Scope"), "App\\Models\\Post\\Scope");
}

#[test]
fn case_and_plural_helpers() {
    assert_eq!(kebab("DocumentTitle"), "document-title");
    assert_eq!(kebab("HTMLParser"), "html-parser");
    assert_eq!(snake("InvoiceItem"), "invoice_item");
    assert_eq!(plural("category"), "categories");
    assert_eq!(plural("tax"), "taxes");
    assert_eq!(plural("day"), "days");
    assert_eq!(plural("post"), "posts");
    assert_eq!(plural("person"), "people");
}

#[test]
fn view_names_from_paths() {
    assert_eq!(
        view_name("resources/views/pages/show.blade.php").as_deref(),
        Some("pages.show")
    );
    assert_eq!(
        view_name("modules/OfflinePayments/Resources/views/edit.blade.php").as_deref(),
        Some("offline-payments::edit")
    );
    assert_eq!(
        view_name("resources/views/vendor/mail/html/button.blade.php").as_deref(),
        Some("mail::html.button")
    );
    assert_eq!(view_name("app/Models/Post.php"), None);
}

#[test]
fn php_strategy_alone_reads_symbols_but_no_laravel_links() {
    let src = b"<?php\nnamespace App\\Http\\Controllers;\n\nuse App\\Models\\Post;\n\nclass PostController extends Controller implements \\JsonSerializable\n{\n    use Helpers;\n\n    public function __construct(private Post $post, int $n) {}\n\n    public function show() { return view('posts.show'); }\n}\n";
    let facts = Frameworks::named(&["php"]).analyze("app/Http/Controllers/PostController.php", src);
    assert_eq!(
        facts.provides,
        ["class:App\\Http\\Controllers\\PostController"]
    );
    assert_eq!(
        links(&facts),
        [
            "extends-class class:App\\Http\\Controllers\\Controller",
            "implements class:JsonSerializable",
            "imports class:App\\Models\\Post",
            "injects class:App\\Models\\Post",
            "uses-trait class:App\\Http\\Controllers\\Helpers",
        ]
    );
    // With Laravel selected, the view it returns is linked too.
    let facts = laravel().analyze("app/Http/Controllers/PostController.php", src);
    assert!(links(&facts).contains(&"renders view:posts.show".to_string()));
}

#[test]
fn blade_directives_become_links() {
    let src = b"@extends('layouts.app')\n@includeWhen($ok, 'partials.flash')\n@include('posts/meta')\n<x-alert/> <x-slot:title>t</x-slot> <x-blog::card.header />\n<livewire:comment-box /> @lang('posts.title') {{ route('posts.index') }}\n";
    let facts = laravel().analyze("resources/views/components/post/index.blade.php", src);
    assert_eq!(
        facts.provides,
        ["component:post", "view:components.post.index"]
    );
    assert_eq!(
        links(&facts),
        [
            "component component:alert",
            "component component:blog::card.header",
            "extends view:layouts.app",
            "includes view:partials.flash",
            "includes view:posts.meta",
            "livewire livewire:comment-box",
            "route-ref route:posts.index",
            "translates lang:posts",
        ]
    );
}

#[test]
fn link_bonus_takes_the_largest_per_file() {
    let ranked = vec![("a".to_string(), 10.0), ("b".to_string(), 4.0)];
    let n = |f: &str| match f {
        "a" => vec![Neighbor {
            file: "c".into(),
            kind: "renders".into(),
            key: "view:c".into(),
            outgoing: true,
        }],
        "b" => vec![
            Neighbor {
                file: "c".into(),
                kind: "renders".into(),
                key: "view:c".into(),
                outgoing: true,
            },
            Neighbor {
                file: "a".into(),
                kind: "implements".into(),
                key: "class:A".into(),
                outgoing: true,
            },
        ],
        _ => vec![],
    };
    let bonus = link_bonus(&ranked, 5, 0.5, n);
    assert_eq!(bonus["c"], 5.0);
    assert!((bonus["a"] - 0.5 * 0.1 * 4.0).abs() < 1e-6);
    assert!(link_bonus(&ranked, 5, 0.0, n).is_empty());
}

const FIXTURE_ADMIN_ROUTES: &str =
    include_str!("../../../tests/fixtures/laravel_app/routes/admin.php");

/// One line per route section, then the details and provided routes, for a snapshot.
fn routes_of(path: &str, text: &str) -> String {
    let facts = laravel().analyze(path, text.as_bytes());
    let mut out = String::new();
    for s in &facts.sections {
        let first = text[s.bytes.0..s.bytes.1].lines().next().unwrap_or("");
        out.push_str(&format!(
            "section {} | {} | {first}\n",
            s.symbol, s.signature
        ));
    }
    for p in &facts.provides {
        out.push_str(&format!("= {p}\n"));
    }
    for l in links(&facts) {
        out.push_str(&format!("{l}\n"));
    }
    out
}

#[test]
fn route_groups_apply_prefixes_names_and_controllers() {
    expect_test::expect![[r#"
        section admin.dashboard | GET /admin/dashboard admin.dashboard App\Http\Controllers\Admin\Dashboard@index | Route::get('/dashboard', 'Admin\Dashboard@index')->name('dashboard');
        section admin.banking.reconciliations.* | RESOURCE /admin/banking/reconciliations admin.banking.reconciliations.* App\Http\Controllers\Banking\Reconciliations | Route::resource('reconciliations', 'Banking\Reconciliations');
        section admin.reports.show | GET /admin/reports/{report} admin.reports.show App\Http\Controllers\Admin\ReportController@show | Route::get('/reports/{report}', 'show')->name('reports.show');
        section terms | VIEW /terms terms | Route::view('/terms', 'pages.about')->name('terms');
        = route:admin.banking.reconciliations.create
        = route:admin.banking.reconciliations.destroy
        = route:admin.banking.reconciliations.edit
        = route:admin.banking.reconciliations.index
        = route:admin.banking.reconciliations.show
        = route:admin.banking.reconciliations.store
        = route:admin.banking.reconciliations.update
        = route:admin.dashboard
        = route:admin.reports.show
        = route:terms
        imports class:App\Http\Controllers\Admin\ReportController
        imports class:Illuminate\Support\Facades\Route
        renders view:pages.about
        routes class:App\Http\Controllers\Admin\Dashboard
        routes class:App\Http\Controllers\Admin\ReportController
        routes class:App\Http\Controllers\Banking\Reconciliations
    "#]]
    .assert_eq(&routes_of("routes/admin.php", FIXTURE_ADMIN_ROUTES));
}

#[test]
fn a_namespace_group_and_a_string_controller_group() {
    let src = "<?php\nRoute::group(['namespace' => 'Sales', 'as' => 'sales.', 'prefix' => 'sales'], function () {\n    Route::get('invoices/{invoice}/print', 'Invoices@printInvoice')->name('invoices.print');\n    // a ) in a comment\n});\nRoute::controller('Billing')->prefix('billing')->group(fn () => Route::post('pay', 'pay'));\n";
    expect_test::expect![[r#"
        section sales.invoices.print | GET /sales/invoices/{invoice}/print sales.invoices.print App\Http\Controllers\Sales\Invoices@printInvoice | Route::get('invoices/{invoice}/print', 'Invoices@printInvoice')->name('invoices.print');
        section POST /billing/pay | POST /billing/pay - App\Http\Controllers\Billing@pay | Route::post('pay', 'pay'));
        = route:sales.invoices.print
        routes class:App\Http\Controllers\Billing
        routes class:App\Http\Controllers\Sales\Invoices
    "#]]
    .assert_eq(&routes_of("routes/web.php", src));
}

#[test]
fn routes_at_the_end_of_a_chain_from_route() {
    let src = "<?php\nRoute::middleware('auth')->get('/profile', [ProfileController::class, 'edit'])->name('profile.edit');\nRoute::middleware(['auth', 'verified'])->name('team.')->post('/team', 'TeamController@store');\nRoute::get('/search', fn () => view('search', ['q' => request()->get('q')]));\n$items->get('not.a.route');\n";
    expect_test::expect![[r#"
        section profile.edit | GET /profile profile.edit ProfileController@edit | ->get('/profile', [ProfileController::class, 'edit'])->name('profile.edit');
        section POST /team | POST /team - App\Http\Controllers\TeamController@store | ->post('/team', 'TeamController@store');
        section GET /search | GET /search - | Route::get('/search', fn () => view('search', ['q' => request()->get('q')]));
        = route:profile.edit
        renders view:search
        routes class:App\Http\Controllers\TeamController
        routes class:ProfileController
    "#]]
    .assert_eq(&routes_of("routes/web.php", src));
}

#[test]
fn a_view_named_by_any_call_in_a_class_is_rendered() {
    let src = b"<?php\nnamespace App\\Http\\Controllers\\Banking;\n\nclass Reconciliations extends Controller\n{\n    public function index()\n    {\n        $title = config('app.name') . trans('general.title') . setting('company.name');\n\n        return $this->response('banking.reconciliations.index', compact('title'));\n    }\n\n    public function store()\n    {\n        return redirect()->route('banking.reconciliations.show')->with('x', __('messages.saved'));\n    }\n\n    public function module() { return $this->respond(\"offline-payments::edit\"); }\n}\n";
    let facts = laravel().analyze("app/Http/Controllers/Banking/Reconciliations.php", src);
    // `setting('company.name')` is kept: the link resolves only if a view of that name exists.
    assert_eq!(
        links(&facts),
        [
            "extends-class class:App\\Http\\Controllers\\Banking\\Controller",
            "renders view:banking.reconciliations.index",
            "renders view:company.name",
            "renders view:offline-payments::edit",
            "route-ref route:banking.reconciliations.show",
            "translates lang:general",
            "translates lang:messages",
        ]
    );
    // A file without a class (a config file, a routes file) gets no such links.
    let config = laravel().analyze(
        "config/app.php",
        b"<?php\nreturn ['view' => 'pages.home'];\n",
    );
    assert!(links(&config).is_empty(), "{:?}", links(&config));
}

#[test]
fn psr4_gives_the_class_of_a_file_whose_declaration_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("composer.json"),
        r#"{"autoload": {"psr-4": {"App\\": "app/", "App\\Domain\\": ["src/Domain", "lib/"]}}, "autoload-dev": {"psr-4": {"Tests\\": "tests/"}}}"#,
    )
    .unwrap();
    let project = Project::read(dir.path());
    assert_eq!(
        project.psr4_lines(),
        [
            "psr-4 App\\Domain\\ → lib/",
            "psr-4 App\\Domain\\ → src/Domain/",
            "psr-4 Tests\\ → tests/",
            "psr-4 App\\ → app/",
        ]
    );
    assert_eq!(
        project
            .psr4_class("app/Http/Controllers/Admin/Dashboard.php")
            .as_deref(),
        Some("App\\Http\\Controllers\\Admin\\Dashboard")
    );
    assert_eq!(
        project.psr4_class("src/Domain/Money.php").as_deref(),
        Some("App\\Domain\\Money")
    );
    assert_eq!(project.psr4_class("config/app.php"), None);
    assert_eq!(project.psr4_class("app/helpers-v2.php"), None);

    let php = Frameworks::named(&["php"]).with_project(project);
    let one_line = b"<?php namespace App\\Http\\Controllers\\Admin; #[\\AllowDynamicProperties] final class Dashboard extends Controller {}\n";
    let facts = php.analyze("app/Http/Controllers/Admin/Dashboard.php", one_line);
    assert_eq!(
        facts.provides,
        ["class:App\\Http\\Controllers\\Admin\\Dashboard"]
    );
    assert_eq!(
        facts.details["psr-4 class"],
        ["App\\Http\\Controllers\\Admin\\Dashboard"]
    );
    // A file under a mapped directory that declares no class of its name provides none.
    let helpers = php.analyze("app/helpers.php", b"<?php\nfunction money() {}\n");
    assert!(helpers.provides.is_empty(), "{:?}", helpers.provides);
}

#[test]
fn tailwind_configs_are_read_with_the_grammar() {
    let ts = include_bytes!("../../../tests/fixtures/laravel_app/tailwind.config.ts");
    let facts = laravel().analyze("tailwind.config.ts", ts);
    expect_test::expect![[r#"
        {
            "colors": [
                "brand, ink-muted",
            ],
            "content": [
                "./resources/views/**/*.blade.php, ./resources/js/**/*.ts",
            ],
            "fontFamily": [
                "sans",
            ],
            "plugins": [
                "@tailwindcss/forms, @tailwindcss/typography",
            ],
            "screens": [
                "sm, lg",
            ],
        }
    "#]]
    .assert_debug_eq(&facts.details);
    let js = b"const plugin = require('tailwindcss/plugin');\nmodule.exports = {\n  content: [\"./src/**/*.vue\"],\n  theme: { colors: { primary: 'var(--p)', 'gray-50': '#fafafa' }, extend: { colors: { accent: '#f00' } } },\n  plugins: [require('@tailwindcss/forms')({ strategy: 'class' }), plugin(function ({ addUtilities }) { addUtilities({ content: ['x'] }) })],\n};\n";
    let facts = laravel().analyze("tailwind.config.js", js);
    assert_eq!(facts.details["colors"], ["primary, gray-50, accent"]);
    assert_eq!(facts.details["content"], ["./src/**/*.vue"]);
    assert_eq!(
        facts.details["plugins"],
        ["@tailwindcss/forms, tailwindcss/plugin"]
    );
}

#[test]
fn companion_scripts_of_templates_and_stylesheets() {
    use super::companion_scripts;
    assert_eq!(
        companion_scripts("src/app/x.component.html"),
        [
            "src/app/x.component.ts",
            "src/app/x.component.tsx",
            "src/app/x.component.js",
            "src/app/x.component.jsx",
            "src/app/x.component.mjs",
        ]
    );
    assert_eq!(companion_scripts("Button.SCSS")[0], "Button.ts");
    assert_eq!(companion_scripts("web/index.htm")[1], "web/index.tsx");
    // Scripts, other files, a bare extension and a dot in a directory name: none.
    for none in [
        "src/app/x.component.ts",
        "README.md",
        "src/.css",
        "a.b/LICENSE",
        "Makefile",
    ] {
        assert!(companion_scripts(none).is_empty(), "{none}");
    }
}
