//! Edge cases of the chunker: skips, lossy text, splitting, minified and deeply nested code, parse
//! errors, and a property test that it never panics and keeps ranges inside the file.

#![cfg(feature = "index")]

use code_intel_core::index::chunk::{
    Chunk, ChunkKind, ChunkOptions, SkipReason, chunk_source, estimate_tokens,
};
use expect_test::expect;
use proptest::prelude::*;

/// Default options, except a parse time budget no test machine reaches: results must not depend
/// on the machine's speed (the depth and node limits are the deterministic budgets tested here).
fn opts() -> ChunkOptions {
    ChunkOptions {
        parse_budget_ms: 600_000,
        ..ChunkOptions::default()
    }
}

/// Checks the invariants every chunk list keeps, for any input.
fn assert_invariants(path: &str, bytes: &[u8], chunks: &[Chunk], opts: &ChunkOptions) {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        assert_eq!(chunks, &[] as &[Chunk], "a blank file has no chunks");
        return;
    }
    let text = String::from_utf8_lossy(bytes);
    let lines = text.split('\n').count().max(1) as u32;
    assert_eq!(
        chunks.first().map(|c| c.kind),
        Some(ChunkKind::Module),
        "module chunk first"
    );
    assert_eq!(
        chunks
            .iter()
            .filter(|c| c.kind == ChunkKind::Module)
            .count(),
        1
    );
    let mut last_start = 0;
    for c in chunks {
        assert_eq!(c.path, path);
        assert!(c.start_line >= 1 && c.start_line <= c.end_line, "{c:?}");
        assert!(c.end_line <= lines, "{c:?} beyond {lines} lines");
        assert!(
            c.byte_range.0 <= c.byte_range.1 && c.byte_range.1 <= text.len(),
            "{c:?}"
        );
        assert!(
            estimate_tokens(&c.content) <= opts.chunk_max_tokens.max(1),
            "{c:?}"
        );
        assert_eq!(c.sha256.len(), 64);
        if c.kind != ChunkKind::Module {
            // Source order of chunk starts; the parts of a split chunk stay together.
            if c.meta.get("part").is_none_or(|p| p == 1) {
                assert!(c.byte_range.0 >= last_start, "source order");
                last_start = c.byte_range.0;
            }
            if !c.meta.contains_key("elided") {
                assert_eq!(&text[c.byte_range.0..c.byte_range.1], c.content, "{c:?}");
            }
        }
    }
}

#[test]
fn binary_file_is_skipped() {
    let bytes = b"\x7fELF\x02\x01\x01\0\0\0\0\0";
    assert_eq!(
        chunk_source("bin/tool.py", bytes, &opts()),
        Err(SkipReason::Binary)
    );
    let json = serde_json::to_string(&SkipReason::Binary).unwrap();
    assert_eq!(json, r#"{"reason":"binary"}"#);
}

#[test]
fn too_large_file_is_skipped() {
    let o = ChunkOptions {
        max_file_bytes: 10,
        ..opts()
    };
    let err = chunk_source("a.py", b"x = 1\ny = 2\n", &o).unwrap_err();
    assert_eq!(
        err,
        SkipReason::TooLarge {
            bytes: 12,
            limit: 10
        }
    );
    assert_eq!(err.to_string(), "file too large (12 bytes, limit 10)");
    let json = serde_json::to_string(&err).unwrap();
    assert_eq!(json, r#"{"reason":"too_large","bytes":12,"limit":10}"#);
}

#[test]
fn invalid_utf8_degrades_and_is_marked_lossy() {
    let bytes = b"def f():\n    return '\xff\xfe'\n";
    let chunks = chunk_source("m.py", bytes, &opts()).unwrap();
    assert_eq!(chunks.len(), 2);
    assert!(
        chunks
            .iter()
            .all(|c| c.meta.get("lossy") == Some(&true.into()))
    );
    assert!(chunks[1].content.contains('\u{fffd}'));
    assert_invariants("m.py", bytes, &chunks, &opts());
}

#[test]
fn empty_and_blank_files_have_no_chunks() {
    for path in [
        "a.py",
        "a.php",
        "a.js",
        "a.ts",
        "a.tsx",
        "a.blade.php",
        "a.html",
        "a.css",
        "a.scss",
        "a.go",
        "a.rs",
        "a.java",
        "a.rb",
        "a.cs",
        "a.c",
        "a.cpp",
        "a.kt",
        "a.swift",
        "a.vue",
        "a.svelte",
        "a.txt",
    ] {
        for bytes in [&b""[..], b"\n\n  \t\r\n"] {
            let chunks = chunk_source(path, bytes, &opts()).unwrap();
            assert_eq!(chunks, vec![], "{path} {bytes:?}");
        }
    }
    // One visible character is enough for a module chunk.
    assert_eq!(chunk_source("a.txt", b"x", &opts()).unwrap().len(), 2);
}

#[test]
fn oversize_function_is_split_into_parts() {
    let body: String = (0..40)
        .map(|i| format!("    total += compute_value_{i}(x, y, z)\n"))
        .collect();
    let src = format!("def big(x, y, z):\n    total = 0\n{body}    return total\n");
    let o = ChunkOptions {
        chunk_max_tokens: 128,
        ..opts()
    };
    let chunks = chunk_source("big.py", src.as_bytes(), &o).unwrap();
    let parts: Vec<String> = chunks[1..]
        .iter()
        .map(|c| {
            format!(
                "{:?} {} {}-{} {}",
                c.kind,
                c.symbol,
                c.start_line,
                c.end_line,
                serde_json::Value::Object(c.meta.clone())
            )
        })
        .collect();
    expect![[r#"
        [
            "Function big 1-14 {\"part\":1,\"parts\":4}",
            "Function big 15-27 {\"part\":2,\"parts\":4}",
            "Function big 28-40 {\"part\":3,\"parts\":4}",
            "Function big 41-43 {\"part\":4,\"parts\":4}",
        ]
    "#]]
    .assert_debug_eq(&parts);
    let joined: String = chunks[1..].iter().map(|c| c.content.as_str()).collect();
    assert_eq!(joined, src.trim_end());
    assert_invariants("big.py", src.as_bytes(), &chunks, &o);
}

#[test]
fn minified_one_line_file_is_split_by_bytes() {
    let mut src = String::from("var a=function(){");
    while src.len() < 500_000 {
        src.push_str("x=x+1;y=\"é\";");
    }
    src.push_str("};");
    let chunks = chunk_source("dist/app.min.js", src.as_bytes(), &opts()).unwrap();
    let longest = chunks.iter().map(|c| c.content.len()).max().unwrap();
    assert!(longest <= 4 * 512 * 2, "longest chunk is {longest} bytes");
    assert!(chunks.len() > 200);
    assert!(
        chunks[1..]
            .iter()
            .all(|c| c.symbol == "a" && c.start_line == 1 && c.end_line == 1)
    );
    assert_invariants("dist/app.min.js", src.as_bytes(), &chunks, &opts());
}

#[test]
fn deeply_nested_code_does_not_overflow() {
    let depth = 100;
    let mut src = String::new();
    for i in 0..depth {
        src.push_str(&format!("function f{i}() {{\n"));
    }
    src.push_str(&"}\n".repeat(depth));
    let chunks = chunk_source("deep.js", src.as_bytes(), &opts()).unwrap();
    // Nesting is capped: the deepest kept chunk is 16 levels down.
    let deepest = chunks
        .iter()
        .map(|c| c.qualified_name.matches('.').count())
        .max()
        .unwrap();
    assert_eq!(deepest, 15);
    assert_invariants("deep.js", src.as_bytes(), &chunks, &opts());

    let html = format!("{}{}", "<div id=\"d\">".repeat(300), "</div>".repeat(300));
    let chunks = chunk_source("deep.html", html.as_bytes(), &opts()).unwrap();
    assert_eq!(
        chunks
            .iter()
            .filter(|c| c.kind == ChunkKind::Element && c.meta.get("part").is_none_or(|p| p == 1))
            .count(),
        16
    );
    assert_invariants("deep.html", html.as_bytes(), &chunks, &opts());

    let brackets = format!("x = {}{}\n", "[".repeat(50_000), "]".repeat(50_000));
    let chunks = chunk_source("deep.py", brackets.as_bytes(), &opts()).unwrap();
    assert_invariants("deep.py", brackets.as_bytes(), &chunks, &opts());
}

/// Deeply nested code of each language: over the parser budget, chunked as line windows with the
/// reason in `meta.fallback` (the reason the index keeps and `status` lists).
#[test]
fn code_over_the_parser_budget_falls_back_to_line_windows() {
    let n = 5_000;
    let cases: Vec<(&str, String)> = vec![
        (
            "deep.js",
            format!("const o = {}1{};\n", "{a:".repeat(n), "}".repeat(n)),
        ),
        (
            "deep.ts",
            format!("const o = {}1{};\n", "{a:".repeat(n), "}".repeat(n)),
        ),
        (
            "deep.tsx",
            format!("const o = {}1{};\n", "{a:".repeat(n), "}".repeat(n)),
        ),
        (
            "fns.js",
            format!("{}{}", "function f() {\n".repeat(n), "}\n".repeat(n)),
        ),
        (
            "deep.py",
            format!("x = {}1{}\n", "{'a': ".repeat(n), "}".repeat(n)),
        ),
        (
            "deep.php",
            format!("<?php\n$x = {}1{};\n", "['a' => ".repeat(n), "]".repeat(n)),
        ),
        (
            "deep.html",
            format!("{}{}", "<div id=\"d\">".repeat(n), "</div>".repeat(n)),
        ),
        (
            "deep.blade.php",
            format!("{}{}", "<div id=\"d\">".repeat(n), "</div>".repeat(n)),
        ),
        (
            "deep.css",
            format!("a {{ b: {}1{}; }}\n", "calc(".repeat(n), ")".repeat(n)),
        ),
        (
            "deep.scss",
            format!("{}{}", ".a {\n".repeat(n), "}\n".repeat(n)),
        ),
        (
            "deep.go",
            format!(
                "package a\nfunc f() {}{}\n",
                "{\n".repeat(n),
                "}\n".repeat(n + 1)
            ),
        ),
        (
            "deep.rs",
            format!("fn f() {}{}\n", "{\n".repeat(n), "}\n".repeat(n + 1)),
        ),
        (
            "Deep.java",
            format!(
                "class A {{ void f() {}{} }}\n",
                "{\n".repeat(n),
                "}\n".repeat(n + 1)
            ),
        ),
        (
            "deep.rb",
            format!("x = {}1{}\n", "[".repeat(n), "]".repeat(n)),
        ),
        (
            "Deep.cs",
            format!(
                "class A {{ void F() {}{} }}\n",
                "{\n".repeat(n),
                "}\n".repeat(n + 1)
            ),
        ),
        (
            "deep.c",
            format!("void f() {}{}\n", "{\n".repeat(n), "}\n".repeat(n + 1)),
        ),
        (
            "Deep.kt",
            format!("fun f() {}{}\n", "{ run ".repeat(n), "}".repeat(n + 1)),
        ),
        (
            "deep.swift",
            format!("func f() {}{}\n", "{ g { ".repeat(n), "} }".repeat(n)),
        ),
        (
            "deep.cpp",
            format!(
                "namespace a {{ void f() {}{} }}\n",
                "{\n".repeat(n),
                "}\n".repeat(n + 1)
            ),
        ),
    ];
    for (path, src) in cases {
        let chunks = chunk_source(path, src.as_bytes(), &opts()).unwrap();
        let reason = code_intel_core::index::chunk::fallback_reason(&chunks)
            .unwrap_or_else(|| panic!("{path}: no fallback"));
        assert!(
            reason.starts_with("parser budget exceeded"),
            "{path}: {reason}"
        );
        assert!(
            chunks
                .iter()
                .all(|c| matches!(c.kind, ChunkKind::Module | ChunkKind::Window)),
            "{path}: only the module chunk and windows"
        );
        assert_invariants(path, src.as_bytes(), &chunks, &opts());
    }
}

#[test]
fn parse_errors_still_yield_what_is_found() {
    let src = "<?php\nclass Broken {\n    public function ok() { return 1; }\n    public function bad( {\n}\n\nfunction after() {}\n";
    let chunks = chunk_source("broken.php", src.as_bytes(), &opts()).unwrap();
    let names: Vec<&str> = chunks.iter().map(|c| c.qualified_name.as_str()).collect();
    expect![[r#"
        [
            "broken.php",
            "Broken",
            "Broken::ok",
            "Broken::bad",
            "Broken::after",
        ]
    "#]]
    .assert_debug_eq(&names);
    assert_invariants("broken.php", src.as_bytes(), &chunks, &opts());
}

#[test]
fn laravel_route_file_becomes_gap_windows() {
    let src = "<?php\n\nuse Illuminate\\Support\\Facades\\Route;\n\nRoute::get('/', function () {\n    return view('welcome');\n});\n\nRoute::post('/users', [UserController::class, 'store']);\n";
    let chunks = chunk_source("routes/web.php", src.as_bytes(), &opts()).unwrap();
    let rendered: Vec<String> = chunks
        .iter()
        .map(|c| {
            format!(
                "{:?} {}-{} {:?}",
                c.kind, c.start_line, c.end_line, c.content
            )
        })
        .collect();
    expect![[r#"
        [
            "Module 1-9 \"routes/web.php\\nuse Illuminate\\\\Support\\\\Facades\\\\Route;\"",
            "Window 5-9 \"Route::get('/', function () {\\n    return view('welcome');\\n});\\n\\nRoute::post('/users', [UserController::class, 'store']);\"",
        ]
    "#]].assert_debug_eq(&rendered);
}

const LANG_PATHS: [&str; 21] = [
    "a.py",
    "a.php",
    "a.js",
    "a.ts",
    "a.tsx",
    "a.blade.php",
    "a.html",
    "a.css",
    "a.scss",
    "a.go",
    "a.rs",
    "A.java",
    "a.rb",
    "A.cs",
    "a.c",
    "a.cc",
    "A.kt",
    "a.swift",
    "a.vue",
    "a.svelte",
    "a.txt",
];

/// Source-like noise: fragments of every language, so the parsers see plausible structure.
fn source_like() -> impl Strategy<Value = Vec<u8>> {
    let fragment = prop_oneof![
        Just("def f(x):\n    \"\"\"doc\"\"\"\n".to_string()),
        Just("class A:\n".to_string()),
        Just("<?php namespace A\\B; use C\\{D, E};\n".to_string()),
        Just("function g() { return 1; }\n".to_string()),
        Just("const h = () => <div id=\"x\"/>;\n".to_string()),
        Just("interface I { m(): void }\n".to_string()),
        Just("@section('a')\n<x-alert/>\n@endsection\n".to_string()),
        Just("<nav id=\"n\"><section>\n".to_string()),
        Just(
            "<script lang=\"ts\">\nexport default { m() {} }\n</script>\n<script/><script\n"
                .to_string()
        ),
        Just(".a { .b { color: red } }\n@media (x) {\n".to_string()),
        Just("/** doc */\n".to_string()),
        Just("{{-- c --}}\n".to_string()),
        Just("// Doc.\nfunc (s *S) M() {}\ntype T struct {\n".to_string()),
        Just("/// Doc.\nimpl<T> A for B<T> { fn m(&self) {} }\nmod m {\n".to_string()),
        Just("package a.b;\n/** d */ public class C { void m() {} }\n".to_string()),
        Just("# doc\nmodule M\n  class C < B\n    def self.m; end\n".to_string()),
        Just("namespace N { /// d\n class C { void M() {} }\n".to_string()),
        Just("/* d */\nstatic int *f(void) {\ntypedef struct { int a; } T;\n".to_string()),
        Just("namespace a::b { void C::D::m() {} template <typename T> class E {\n".to_string()),
        Just("package a.b\n/** d */ class C { companion object { fun m() = 1 }\n".to_string()),
        Just("/// d\nextension S where T: E { func m() -> Int { 1 } init() {}\n".to_string()),
        "[ -~\n\t{}()<>@\\\\]{0,40}",
        "\\PC{0,10}",
    ];
    prop::collection::vec(fragment, 0..30).prop_map(|v| v.concat().into_bytes())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..2048), lang in 0..LANG_PATHS.len()) {
        let path = LANG_PATHS[lang];
        let o = ChunkOptions { chunk_max_tokens: 16, window_lines: 5, ..opts() };
        match chunk_source(path, &bytes, &o) {
            Ok(chunks) => assert_invariants(path, &bytes, &chunks, &o),
            Err(reason) => prop_assert_eq!(reason, SkipReason::Binary),
        }
    }

    #[test]
    fn never_panics_on_source_like_text(bytes in source_like(), lang in 0..LANG_PATHS.len(), max_tokens in 1usize..64) {
        let path = LANG_PATHS[lang];
        let o = ChunkOptions { chunk_max_tokens: max_tokens, window_lines: 3, ..opts() };
        let chunks = chunk_source(path, &bytes, &o).unwrap();
        assert_invariants(path, &bytes, &chunks, &o);
    }
}
