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
