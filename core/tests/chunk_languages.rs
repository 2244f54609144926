//! Snapshot tests of the chunker, one small inline fixture per language (the model is
//! rust-analyzer's `file_structure` tests): each chunk renders as one line, indented by nesting.

#![cfg(feature = "index")]

use code_intel_core::index::chunk::{Chunk, ChunkOptions, chunk_source};
use expect_test::{Expect, expect};

/// One line per chunk: `kind start-end symbol [qualified name] {meta}`, indented under the chunk
/// whose byte range contains it.
fn render(chunks: &[Chunk]) -> String {
    let mut out = String::new();
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for (i, c) in chunks.iter().enumerate() {
        let (start, end) = c.byte_range;
        if i > 0 {
            while stack
                .last()
                .is_some_and(|&(s, e)| !(s <= start && end <= e))
            {
                stack.pop();
            }
        }
        let kind = serde_json::to_value(c.kind).unwrap();
        let mut line = format!(
            "{}{} {}-{} {}",
            "  ".repeat(stack.len()),
            kind.as_str().unwrap(),
            c.start_line,
            c.end_line,
            c.symbol
        );
        if c.qualified_name != c.symbol {
            line.push_str(&format!(" [{}]", c.qualified_name));
        }
        if !c.meta.is_empty() {
            line.push_str(&format!(" {}", serde_json::Value::Object(c.meta.clone())));
        }
        out.push_str(line.trim_end());
        out.push('\n');
        if i > 0 {
            stack.push((start, end));
        }
    }
    out
}

fn chunks(path: &str, src: &str) -> Vec<Chunk> {
    chunk_source(path, src.as_bytes(), &ChunkOptions::default()).unwrap()
}

fn check(path: &str, src: &str, expect: Expect) {
    expect.assert_eq(&render(&chunks(path, src)));
}

/// Renders the module chunk content and each symbol's signature, docstring and imports.
fn check_details(path: &str, src: &str, expect: Expect) {
    let mut out = String::new();
    for c in chunks(path, src) {
        out.push_str(&format!(
            "== {} {}\n",
            c.qualified_name,
            serde_json::to_value(c.kind).unwrap()
        ));
        if c.kind == code_intel_core::index::chunk::ChunkKind::Module {
            out.push_str(&format!("content:\n{}\n", c.content));
        } else {
            out.push_str(&format!("signature: {}\n", c.signature));
        }
        if !c.docstring.is_empty() {
            out.push_str(&format!("doc: {:?}\n", c.docstring));
        }
        if !c.imports.is_empty() && c.kind == code_intel_core::index::chunk::ChunkKind::Module {
            out.push_str(&format!("imports: {:?}\n", c.imports));
        }
    }
    expect.assert_eq(&out);
}

const PHP_CONTROLLER: &str = r#"<?php

declare(strict_types=1);

namespace App\Http\Controllers;

use App\Models\User;
use Illuminate\Http\{Request, Response};
use function App\Support\helper;

/**
 * Manages users.
 */
class UserController extends Controller implements HasMiddleware
{
    use AuthorizesRequests;

    /**
     * Store a new user.
     *
     * @param Request $request
     */
    public function store(Request $request): Response
    {
        return new Response(User::create($request->all()));
    }

    public function index() { return User::all(); }
}

interface HasMiddleware
{
    public function middleware(): array;
}

trait Auditable
{
    public function audit(string $event): void {}
}

enum Status: string
{
    case Active = 'active';
}

function helper(): void {}
"#;

#[test]
fn php_namespace_class_methods_trait_interface() {
    check(
        "app/Http/Controllers/UserController.php",
        PHP_CONTROLLER,
        expect![[r#"
            module 1-46 UserController.php [app/Http/Controllers/UserController.php]
            class 11-29 UserController [App\Http\Controllers\UserController] {"elided":2}
              method 18-26 store [App\Http\Controllers\UserController::store]
              method 28-28 index [App\Http\Controllers\UserController::index]
            interface 31-34 HasMiddleware [App\Http\Controllers\HasMiddleware] {"elided":1}
              method 33-33 middleware [App\Http\Controllers\HasMiddleware::middleware]
            trait 36-39 Auditable [App\Http\Controllers\Auditable] {"elided":1}
              method 38-38 audit [App\Http\Controllers\Auditable::audit]
            enum 41-44 Status [App\Http\Controllers\Status]
            function 46-46 helper [App\Http\Controllers\helper]
        "#]],
    );
    check_details(
        "app/Http/Controllers/UserController.php",
        PHP_CONTROLLER,
        expect![[r#"
        == app/Http/Controllers/UserController.php "module"
        content:
        app/Http/Controllers/UserController.php
        use App\Models\User;
        use Illuminate\Http\{Request, Response};
        use function App\Support\helper;
        class App\Http\Controllers\UserController: store, index
        interface App\Http\Controllers\HasMiddleware: middleware
        trait App\Http\Controllers\Auditable: audit
        enum App\Http\Controllers\Status
        function App\Http\Controllers\helper
        imports: ["use App\\Models\\User;", "use Illuminate\\Http\\{Request, Response};", "use function App\\Support\\helper;"]
        == App\Http\Controllers\UserController "class"
        signature: class UserController extends Controller implements HasMiddleware
        doc: "Manages users."
        == App\Http\Controllers\UserController::store "method"
        signature: public function store(Request $request): Response
        doc: "Store a new user.\n\n@param Request $request"
        == App\Http\Controllers\UserController::index "method"
        signature: public function index()
        == App\Http\Controllers\HasMiddleware "interface"
        signature: interface HasMiddleware
        == App\Http\Controllers\HasMiddleware::middleware "method"
        signature: public function middleware(): array;
        == App\Http\Controllers\Auditable "trait"
        signature: trait Auditable
        == App\Http\Controllers\Auditable::audit "method"
        signature: public function audit(string $event): void
        == App\Http\Controllers\Status "enum"
        signature: enum Status: string
        == App\Http\Controllers\helper "function"
        signature: function helper(): void
    "#]],
    );
}

const PYTHON_SRC: &str = r#"#!/usr/bin/env python3
"""Authentication helpers.

Used by the login views.
"""
import os
from typing import Optional as Opt

MAX_TRIES = 3


class Session:
    """A logged-in session."""

    def __init__(self, user):
        self.user = user

    @property
    def active(self) -> bool:
        '''Whether the session is still valid.'''
        return True

    class Token:
        def refresh(self):
            pass


@app.route("/login")
def login(request, tries: int = MAX_TRIES) -> Opt[Session]:
    """Log a user in."""
    def check():
        return os.environ.get("X")
    return None
"#;

#[test]
fn python_classes_methods_docstrings() {
    check(
        "auth/session.py",
        PYTHON_SRC,
        expect![[r#"
        module 1-33 session.py [auth/session.py]
        class 12-25 Session {"elided":3}
          method 15-16 __init__ [Session.__init__]
          method 18-21 active [Session.active]
          class 23-25 Token [Session.Token] {"elided":1}
            method 24-25 refresh [Session.Token.refresh]
        function 28-33 login {"elided":1}
          function 31-32 check [login.check]
    "#]],
    );
    check_details(
        "auth/session.py",
        PYTHON_SRC,
        expect![[r#"
        == auth/session.py "module"
        content:
        auth/session.py
        Authentication helpers.

        Used by the login views.
        import os
        from typing import Optional as Opt
        class Session: __init__, active, Token
        function login: check
        doc: "Authentication helpers.\n\nUsed by the login views."
        imports: ["import os", "from typing import Optional as Opt"]
        == Session "class"
        signature: class Session
        doc: "A logged-in session."
        == Session.__init__ "method"
        signature: def __init__(self, user)
        == Session.active "method"
        signature: @property def active(self) -> bool
        doc: "Whether the session is still valid."
        == Session.Token "class"
        signature: class Token
        == Session.Token.refresh "method"
        signature: def refresh(self)
        == login "function"
        signature: @app.route("/login") def login(request, tries: int = MAX_TRIES) -> Opt[Session]
        doc: "Log a user in."
        == login.check "function"
        signature: def check()
    "#]],
    );
}

const JS_SRC: &str = r#"import React from "react";
const path = require("path");

/** Adds two numbers. */
export function add(a, b) {
  return a + b;
}

export const double = (x) => x * 2;

const legacy = function () { return 1; };

class Cart extends Base {
  total = () => this.items.length;

  /** Adds an item. */
  addItem(item) {
    this.items.push(item);
  }
}

export default function App({ items }) {
  return <div className="app">{items.map((i) => <Item key={i} />)}</div>;
}

/** Sends a response. */
res.send = function send(body) {
  return this;
};

module.exports = {
  render() {},
  "compile": (tpl) => tpl,
};
"#;

#[test]
fn javascript_class_function_arrow_jsx() {
    check(
        "src/cart.jsx",
        JS_SRC,
        expect![[r#"
            module 1-34 cart.jsx [src/cart.jsx]
            function 4-7 add
            function 9-9 double
            function 11-11 legacy
            class 13-20 Cart {"elided":2}
              method 14-14 total [Cart.total]
              method 16-19 addItem [Cart.addItem]
            function 22-24 App
            function 26-29 res.send
            method 32-32 render
            method 33-33 compile
        "#]],
    );
    check_details(
        "src/cart.jsx",
        JS_SRC,
        expect![[r#"
            == src/cart.jsx "module"
            content:
            src/cart.jsx
            import React from "react";
            const path = require("path");
            function add
            function double
            function legacy
            class Cart: total, addItem
            function App
            function res.send
            method render
            method compile
            imports: ["import React from \"react\";", "const path = require(\"path\");"]
            == add "function"
            signature: function add(a, b)
            doc: "Adds two numbers."
            == double "function"
            signature: const double = (x) =>
            == legacy "function"
            signature: const legacy = function ()
            == Cart "class"
            signature: class Cart extends Base
            == Cart.total "method"
            signature: total = () =>
            == Cart.addItem "method"
            signature: addItem(item)
            doc: "Adds an item."
            == App "function"
            signature: function App({ items })
            == res.send "function"
            signature: res.send = function send(body)
            doc: "Sends a response."
            == render "method"
            signature: render()
            == compile "method"
            signature: "compile": (tpl) =>
        "#]],
    );
}

const TS_SRC: &str = r#"import { Injectable } from "@angular/core";

/** A user record. */
export interface User {
  id: number;
  name: string;
}

export enum Role {
  Admin = "admin",
  Guest = "guest",
}

export abstract class Repo<T> {
  abstract find(id: number): T;
}

@Injectable()
export class UserService extends Repo<User> {
  constructor(private readonly http: Http) { super(); }

  find(id: number): User {
    return { id, name: "x" };
  }
}

export function isAdmin(u: User): boolean {
  return u.name === "root";
}
"#;

#[test]
fn typescript_interface_enum_class() {
    check(
        "src/user.ts",
        TS_SRC,
        expect![[r#"
        module 1-29 user.ts [src/user.ts]
        interface 3-7 User
        enum 9-12 Role
        class 14-16 Repo
        class 19-25 UserService {"elided":2}
          method 20-20 constructor [UserService.constructor]
          method 22-24 find [UserService.find]
        function 27-29 isAdmin
    "#]],
    );
}

const TSX_SRC: &str = r#"import * as React from "react";

interface Props { label: string }

export const Button: React.FC<Props> = ({ label }) => {
  return <button type="button">{label}</button>;
};

export function Panel(props: Props) {
  return <section><Button label={props.label} /></section>;
}
"#;

#[test]
fn tsx_component() {
    check(
        "ui/Button.tsx",
        TSX_SRC,
        expect![[r#"
        module 1-11 Button.tsx [ui/Button.tsx]
        interface 3-3 Props
        function 5-7 Button
        function 9-11 Panel
    "#]],
    );
}

const BLADE_SRC: &str = r#"@extends('layouts.app')

@section('title', 'Users')

@section('content')
    <div class="container">
        <x-alert type="error" :message="$message" />
        <x-card>
            <x-slot:title>Users</x-slot:title>
            {{ $users->count() }}
        </x-card>
        <nav id="pager">{{ $users->links() }}</nav>
    </div>
@endsection

{{-- @section('commented') --}}
@push('scripts')
    <script src="/js/users.js"></script>
@endpush
"#;

#[test]
fn blade_sections_push_components() {
    check(
        "resources/views/users/index.blade.php",
        BLADE_SRC,
        expect![[r#"
        module 1-19 index.blade.php [resources/views/users/index.blade.php]
        directive 3-3 @section:title
        directive 5-14 @section:content {"elided":3}
          directive 7-7 x-alert [@section:content > x-alert]
          directive 8-11 x-card [@section:content > x-card] {"elided":1}
            directive 9-9 x-slot:title [@section:content > x-card > x-slot:title]
          element 12-12 nav#pager [@section:content > nav#pager]
        directive 17-19 @push:scripts
    "#]],
    );
    check_details(
        "resources/views/users/index.blade.php",
        BLADE_SRC,
        expect![[r#"
        == resources/views/users/index.blade.php "module"
        content:
        resources/views/users/index.blade.php
        @extends('layouts.app')
        directive @section:title
        directive @section:content: x-alert, x-card, nav#pager
        directive @push:scripts
        imports: ["@extends('layouts.app')"]
        == @section:title "directive"
        signature: @section('title', 'Users')
        == @section:content "directive"
        signature: @section('content')
        == @section:content > x-alert "directive"
        signature: <x-alert type="error" :message="$message" />
        == @section:content > x-card "directive"
        signature: <x-card>
        == @section:content > x-card > x-slot:title "directive"
        signature: <x-slot:title>Users</x-slot:title>
        == @section:content > nav#pager "element"
        signature: <nav id="pager">{{ $users->links() }}</nav>
        == @push:scripts "directive"
        signature: @push('scripts')
    "#]],
    );
}

const HTML_SRC: &str = r#"<!DOCTYPE html>
<html>
<body>
  <header>
    <nav id="main-nav">
      <a href="/">Home</a>
    </nav>
  </header>
  <main>
    <section class="intro">
      <p id="lead">Welcome</p>
    </section>
    <div id="app"></div>
  </main>
</body>
</html>
"#;

#[test]
fn html_semantic_elements_and_ids() {
    check(
        "public/index.html",
        HTML_SRC,
        expect![[r#"
        module 1-16 index.html [public/index.html]
        window 1-3 index.html [public/index.html#L1-L3] {"gap":true}
        element 4-8 header {"elided":1}
          element 5-7 nav#main-nav [header > nav#main-nav]
        element 9-14 main {"elided":2}
          element 10-12 section [main > section] {"elided":1}
            element 11-11 p#lead [main > section > p#lead]
          element 13-13 div#app [main > div#app]
    "#]],
    );
}

const CSS_SRC: &str = r#"@import url("base.css");

.nav > a:hover,
.nav > a:focus {
  color: red;
}

@media (max-width: 600px) {
  .nav { display: none; }
}

@keyframes fade-in {
  from { opacity: 0; }
  to { opacity: 1; }
}
"#;

#[test]
fn css_rules_media_keyframes() {
    check(
        "css/site.css",
        CSS_SRC,
        expect![[r#"
        module 1-15 site.css [css/site.css]
        rule 3-6 .nav > a:hover, .nav > a:focus
        at_rule 8-10 @media (max-width: 600px) {"elided":1}
          rule 9-9 .nav [@media (max-width: 600px) .nav]
        at_rule 12-15 @keyframes fade-in
    "#]],
    );
}

const SCSS_SRC: &str = r#"@use "sass:math";

@mixin card($pad) {
  padding: $pad;
}

.card {
  @include card(4px);
  .title {
    &:hover { color: blue; }
  }
}
"#;

#[test]
fn scss_nesting() {
    check(
        "scss/card.scss",
        SCSS_SRC,
        expect![[r#"
        module 1-12 card.scss [scss/card.scss]
        function 3-5 card
        rule 7-12 .card {"elided":1}
          rule 9-11 .title [.card .title] {"elided":1}
            rule 10-10 &:hover [.card .title &:hover]
    "#]],
    );
}

#[test]
fn text_file_is_windowed() {
    let src: String = (1..=120).map(|i| format!("line {i}\n")).collect();
    check(
        "docs/notes.txt",
        &src,
        expect![[r#"
        module 1-120 notes.txt [docs/notes.txt]
        window 1-50 notes.txt [docs/notes.txt#L1-L50]
        window 51-100 notes.txt [docs/notes.txt#L51-L100]
        window 101-120 notes.txt [docs/notes.txt#L101-L120]
    "#]],
    );
}

#[test]
fn typescript_details() {
    check_details(
        "src/user.ts",
        TS_SRC,
        expect![[r#"
        == src/user.ts "module"
        content:
        src/user.ts
        import { Injectable } from "@angular/core";
        interface User
        enum Role
        class Repo
        class UserService: constructor, find
        function isAdmin
        imports: ["import { Injectable } from \"@angular/core\";"]
        == User "interface"
        signature: interface User
        doc: "A user record."
        == Role "enum"
        signature: enum Role
        == Repo "class"
        signature: abstract class Repo<T>
        == UserService "class"
        signature: class UserService extends Repo<User>
        == UserService.constructor "method"
        signature: constructor(private readonly http: Http)
        == UserService.find "method"
        signature: find(id: number): User
        == isAdmin "function"
        signature: function isAdmin(u: User): boolean
    "#]],
    );
}

/// A container's content keeps its own text and elides nested chunks to their headers.
#[test]
fn nested_chunks_are_elided_in_the_parent() {
    let chunks = chunks("app/Http/Controllers/UserController.php", PHP_CONTROLLER);
    let class = chunks
        .iter()
        .find(|c| c.symbol == "UserController")
        .unwrap();
    expect![[r#"
        /**
         * Manages users.
         */
        class UserController extends Controller implements HasMiddleware
        {
            use AuthorizesRequests;

            public function store(Request $request): Response …

            public function index() …
        }"#]]
    .assert_eq(&class.content);
    let store = chunks.iter().find(|c| c.symbol == "store").unwrap();
    expect![[r#"
        /**
             * Store a new user.
             *
             * @param Request $request
             */
            public function store(Request $request): Response
            {
                return new Response(User::create($request->all()));
            }"#]]
    .assert_eq(&store.content);
    let src = PHP_CONTROLLER.as_bytes();
    assert_eq!(
        &src[store.byte_range.0..store.byte_range.1],
        store.content.as_bytes()
    );
}

#[test]
fn nested_elements_with_the_same_name_are_kept() {
    let src = "<article>\n  <section>\n    <section>A</section>\n    <section>B</section>\n  </section>\n</article>\n";
    check(
        "a.html",
        src,
        expect![[r#"
        module 1-6 a.html
        element 1-6 article {"elided":1}
          element 2-5 section [article > section] {"elided":2}
            element 3-3 section [article > section > section]
            element 4-4 section [article > section > section]
    "#]],
    );
}
