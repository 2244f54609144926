//! The index and exploration tools on real code fetched from package registries: Flask (PyPI
//! sdist, Python), Laravel (Debian's php-laravel-framework and its php-illuminate-* components,
//! PHP), Express (npm, JavaScript).
//!
//! `scripts/fetch-corpora.sh` downloads the pinned versions once into `<workspace>/.e2e-cache/corpora`
//! (or `$CODE_INTEL_CORPORA`); the tests call it when the cache is missing. Each test copies its
//! corpus into a temp dir, indexes it from scratch and prints the measured times (debug builds
//! are several times slower than release; see `core/benches/index.rs` for the benchmark).

// Printing the measured index times is part of what these tests report.
#![allow(clippy::disallowed_methods, clippy::print_stderr)]

mod corpus;

use std::path::Path;
use std::time::Instant;

use code_intel_core::explore::{
    ExploreContext, FindDefinitionsParams, FindReferencesParams, TouchedFiles, find_definitions,
    find_references,
};
use code_intel_core::index::rank::RankParams;
use code_intel_core::index::{CodeIndex, SearchHit, SyncReport, rank};
use code_intel_session::config::Config;
use code_intel_session::repo_path::RepoRoot;
use corpus::corpus;

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let ty = entry.file_type().unwrap();
        if ty.is_dir() {
            std::fs::create_dir_all(&dst).unwrap();
            copy_tree(&src, &dst);
        } else if ty.is_file() {
            std::fs::copy(&src, &dst).unwrap();
            // Keep the archive's mtimes, as a checkout would have them.
            let mtime = entry.metadata().unwrap().modified().unwrap();
            std::fs::File::options()
                .write(true)
                .open(&dst)
                .unwrap()
                .set_modified(mtime)
                .unwrap();
        }
    }
}

/// A from-scratch index of a copy of the corpus, with the full and no-change sync reports.
struct Indexed {
    _dir: tempfile::TempDir,
    root: RepoRoot,
    config: Config,
    index: CodeIndex,
}

fn index_corpus(name: &str) -> Indexed {
    let src = corpus(name);
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&src, dir.path());
    let root = RepoRoot::new(dir.path()).unwrap();
    let config = Config::load(root.path()).unwrap();
    let index = CodeIndex::open(&root, &config).unwrap();

    let t = Instant::now();
    let full: SyncReport = index.sync(&mut |_| {}).unwrap();
    let full_ms = t.elapsed().as_millis();
    assert!(full.files_added > 10, "{name}: {full:?}");
    assert!(full.chunks > 100, "{name}: {full:?}");
    let unexpected: Vec<_> = full
        .files_skipped
        .iter()
        .filter(|s| !s.reason.contains("binary") && s.reason != "lock file")
        .collect();
    assert!(
        unexpected.is_empty(),
        "{name}: files skipped for other reasons than being binary or a lock file: {unexpected:?}"
    );

    let t = Instant::now();
    let again = index.sync(&mut |_| {}).unwrap();
    let again_ms = t.elapsed().as_millis();
    assert_eq!(
        (
            again.files_added,
            again.files_modified,
            again.files_deleted,
            again.chunks_written
        ),
        (0, 0, 0, 0)
    );
    assert_eq!(
        again.files_hashed, 0,
        "{name}: the no-change sync must not read files"
    );
    eprintln!(
        "[{name}] full index: {} files, {} chunks in {full_ms} ms; no-change re-sync in {again_ms} ms (debug build)",
        full.files_added, full.chunks
    );
    Indexed {
        _dir: dir,
        root,
        config,
        index,
    }
}

impl Indexed {
    fn cx(&self) -> ExploreContext<'_> {
        ExploreContext {
            root: &self.root,
            config: &self.config,
            index: Some(&self.index),
            request: None,
        }
    }

    /// Definitions of `symbol` as (qualified name, file, line).
    fn definitions(&self, symbol: &str, exact: bool) -> Vec<(String, String, u32)> {
        let params = FindDefinitionsParams {
            symbol: symbol.into(),
            exact_match: exact,
            ..Default::default()
        };
        let r = find_definitions(&self.cx(), &params).unwrap();
        r.definitions
            .into_iter()
            .map(|d| (d.qualified_name, d.file, d.line))
            .collect()
    }

    fn assert_defined(&self, symbol: &str, qualified: &str, file_suffix: &str) {
        let defs = self.definitions(symbol, true);
        assert!(
            defs.iter()
                .any(|(q, f, _)| q == qualified && f.ends_with(file_suffix)),
            "find_definitions({symbol:?}) should find {qualified} in *{file_suffix}; got {defs:#?}"
        );
    }

    /// The distinct files of the top hits, in rank order.
    fn top_files(&self, query: &str, n: usize) -> Vec<String> {
        let mut files: Vec<String> = Vec::new();
        for hit in self.index.search(query, 50).unwrap() {
            if !files.contains(&hit.file) {
                files.push(hit.file);
            }
        }
        files.truncate(n);
        files
    }

    fn assert_ranks(&self, query: &str, expected: &[&str]) {
        let top = self.top_files(query, 5);
        assert!(
            top.iter().any(|f| expected.iter().any(|e| f.contains(e))),
            "search({query:?}) should rank one of {expected:?} in the top 5 files; got {top:#?}"
        );
    }

    /// `search_files` ranks candidates read from fast fields and reads the stored documents only
    /// of the chunks it shows; the same pipeline over fully read chunks (`search_chunks`, every
    /// stored document) must give the same files, chunks and scores. Called on the fresh index
    /// (one segment) and again after an edit (a second segment and deletions in the first), so
    /// a document read from the wrong segment's columns fails here.
    fn assert_columns_rank_as_stored(&self, queries: &[&str]) {
        let params = RankParams::default();
        for q in queries {
            let got = self.index.search_files(q, 10, &params).unwrap();
            let chunks = self
                .index
                .search_chunks(q, params.candidates.max(10), &params)
                .unwrap();
            let groups = rank::group_files(
                chunks,
                SearchHit::rank_view,
                self.index.file_chunk_counter(),
                &params,
                CodeIndex::framework_pool(&params, 10),
            );
            let groups = self.index.framework_rerank(
                groups,
                |h| h.file.as_str(),
                SearchHit::from_stored,
                &params,
                10,
            );
            assert!(!got.is_empty(), "{q}");
            assert_eq!(got, rank::files_of(groups), "{q}");
        }
    }

    /// Times one edited file becoming searchable: append a function, sync, search.
    fn time_one_edit(&self, name: &str, rel: &str) {
        let path = self.root.path().join(rel);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str(if rel.ends_with(".py") {
            "\n\ndef zzqxv_marker_function():\n    return 1\n"
        } else {
            "\nfunction zzqxv_marker_function() { return 1; }\n"
        });
        std::fs::write(&path, text).unwrap();
        let t = Instant::now();
        let r = self.index.sync(&mut |_| {}).unwrap();
        let hits = self.index.search("zzqxv_marker_function", 3).unwrap();
        let ms = t.elapsed().as_millis();
        assert_eq!(r.files_modified, 1, "{r:?}");
        assert_eq!(hits.first().map(|h| h.file.as_str()), Some(rel));
        eprintln!("[{name}] one edited file searchable in {ms} ms (debug build)");
    }
}

#[test]
fn flask() {
    let c = index_corpus("flask");
    c.assert_defined("Flask", "Flask", "src/flask/app.py");
    c.assert_defined(
        "Scaffold.route",
        "Scaffold.route",
        "src/flask/sansio/scaffold.py",
    );
    c.assert_defined("route", "Scaffold.route", "src/flask/sansio/scaffold.py");
    c.assert_defined("url_for", "url_for", "src/flask/helpers.py");
    c.assert_defined("url_for", "Flask.url_for", "src/flask/app.py");
    c.assert_defined("Blueprint", "Blueprint", "src/flask/blueprints.py");

    let refs = find_references(
        &c.cx(),
        &FindReferencesParams {
            symbol: "url_for".into(),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(refs.total >= 3, "{refs:#?}");
    assert!(
        refs.definitions_excluded >= 2,
        "both url_for definitions are excluded: {refs:#?}"
    );
    assert!(
        !refs
            .references
            .iter()
            .any(|r| r.file == "src/flask/helpers.py"
                && r.content.trim_start().starts_with("def url_for")),
        "{refs:#?}"
    );
    assert!(
        refs.references.iter().any(|r| r.enclosing_symbol.is_some()),
        "{refs:#?}"
    );
    assert!(!refs.files().is_empty());

    c.assert_ranks(
        "register a URL rule for a view function",
        &["sansio/scaffold.py", "sansio/app.py"],
    );
    c.assert_ranks(
        "load configuration from a python file",
        &["src/flask/config.py"],
    );
    c.assert_ranks(
        "render a template with a context",
        &["src/flask/templating.py"],
    );
    let flask_queries = ["send a file as the response", "url_for endpoint"];
    c.assert_columns_rank_as_stored(&flask_queries);
    c.time_one_edit("flask", "src/flask/helpers.py");
    c.assert_columns_rank_as_stored(&flask_queries);
}

#[test]
fn laravel() {
    let c = index_corpus("laravel");
    c.assert_defined(
        r"Illuminate\Routing\Router::get",
        r"Illuminate\Routing\Router::get",
        "Illuminate/Routing/Router.php",
    );
    c.assert_defined(
        "Router::get",
        r"Illuminate\Routing\Router::get",
        "Illuminate/Routing/Router.php",
    );
    c.assert_defined(
        r"Illuminate\Support\Collection::map",
        r"Illuminate\Support\Collection::map",
        "Illuminate/Collections/Collection.php",
    );
    c.assert_defined(
        r"\Illuminate\Support\Collection",
        r"Illuminate\Support\Collection",
        "Illuminate/Collections/Collection.php",
    );
    c.assert_defined(
        "Arrayable",
        r"Illuminate\Contracts\Support\Arrayable",
        "Illuminate/Contracts/Support/Arrayable.php",
    );

    let refs = find_references(
        &c.cx(),
        &FindReferencesParams {
            symbol: "Arrayable".into(),
            max_results: Some(20),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(
        refs.total > 20 && refs.truncated && refs.references.len() == 20,
        "{}",
        refs.total
    );
    assert!(refs.definitions_excluded >= 1);
    assert!(
        !refs
            .references
            .iter()
            .any(|r| r.content.contains("interface Arrayable")),
        "the interface declaration is a definition, not a reference"
    );

    c.assert_ranks(
        "paginate query results",
        &["Illuminate/Pagination/", "Illuminate/Database/"],
    );
    c.assert_ranks(
        "register a GET route",
        &[
            "Illuminate/Routing/Router.php",
            "Illuminate/Routing/RouteRegistrar.php",
        ],
    );
    c.assert_ranks("hash a password with bcrypt", &["Illuminate/Hashing/"]);

    // Blade templates are indexed as Blade, not PHP.
    let blade = c
        .index
        .chunks_of("usr/share/php/Illuminate/Pagination/resources/views/tailwind.blade.php")
        .unwrap();
    assert!(
        !blade.is_empty() && blade.iter().all(|ch| ch.language.id() == "blade"),
        "{blade:#?}"
    );
    let laravel_queries = [
        "paginate query results",
        "register a GET route",
        "render a blade view with data",
    ];
    c.assert_columns_rank_as_stored(&laravel_queries);
    c.time_one_edit("laravel", "usr/share/php/Illuminate/Routing/Router.php");
    c.assert_columns_rank_as_stored(&laravel_queries);
}

#[test]
fn express() {
    let c = index_corpus("express");
    c.assert_defined("createApplication", "createApplication", "lib/express.js");
    c.assert_defined("res.send", "res.send", "lib/response.js");
    c.assert_defined("app.listen", "app.listen", "lib/application.js");

    let refs = find_references(
        &c.cx(),
        &FindReferencesParams {
            symbol: "createApplication".into(),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(
        refs.references.iter().any(|r| r.file == "lib/express.js"
            && r.content.contains("module.exports = createApplication")),
        "{refs:#?}"
    );
    assert!(
        !refs
            .references
            .iter()
            .any(|r| r.content.contains("function createApplication")),
        "{refs:#?}"
    );

    c.assert_ranks("send a JSON response", &["lib/response.js"]);
    c.assert_ranks("set a cookie on the response", &["lib/response.js"]);
    c.assert_ranks(
        "parse the query string",
        &["lib/middleware/query.js", "lib/utils.js"],
    );
    let express_queries = ["set a cookie on the response", "render a view"];
    c.assert_columns_rank_as_stored(&express_queries);
    c.time_one_edit("express", "lib/response.js");
    c.assert_columns_rank_as_stored(&express_queries);
}
