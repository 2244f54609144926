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

/// A fixture of `tests/fixtures/languages/`.
fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/languages/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn go_types_methods_by_receiver() {
    let src = fixture("server.go");
    check(
        "httpx/server.go",
        &src,
        expect![[r#"
        module 1-69 server.go [httpx/server.go]
        class 18-23 Engine [httpx.Engine]
        window 25-28 server.go [httpx/server.go#L25-L28] {"gap":true}
        interface 29-33 Router [httpx.Router]
        class 34-37 Stack [httpx.Stack]
        function 40-43 New [httpx.New]
        method 45-53 Handle [httpx.Engine.Handle]
        method 55-57 ServeHTTP [httpx.Engine.ServeHTTP]
        method 59-60 Push [httpx.Stack.Push]
        function 62-69 Map [httpx.Map]
    "#]],
    );
    check_details(
        "httpx/server.go",
        &src,
        expect![[r#"
        == httpx/server.go "module"
        content:
        httpx/server.go
        Package httpx provides a small HTTP router with middleware.

        It is modelled on gin's engine.
        import ( "fmt" "net/http" )
        import "strings"
        class httpx.Engine
        interface httpx.Router
        class httpx.Stack
        function httpx.New
        method httpx.Engine.Handle
        method httpx.Engine.ServeHTTP
        method httpx.Stack.Push
        function httpx.Map
        doc: "Package httpx provides a small HTTP router with middleware.\n\nIt is modelled on gin's engine."
        imports: ["import ( \"fmt\" \"net/http\" )", "import \"strings\""]
        == httpx.Engine "class"
        signature: type Engine struct
        doc: "Engine is the router: it owns the route tree and the middleware chain."
        == httpx/server.go#L25-L28 "window"
        signature: 
        == httpx.Router "interface"
        signature: Router
        doc: "Router registers routes."
        == httpx.Stack "class"
        signature: Stack[T any] struct
        doc: "Stack is a generic LIFO."
        == httpx.New "function"
        signature: func New() *Engine
        doc: "New returns an empty engine."
        == httpx.Engine.Handle "method"
        signature: func (e *Engine) Handle(method, path string, h HandlerFunc)
        doc: "Handle registers h for method and path.\nIt panics on a duplicate route."
        == httpx.Engine.ServeHTTP "method"
        signature: func (e Engine) ServeHTTP(w http.ResponseWriter, r *http.Request)
        == httpx.Stack.Push "method"
        signature: func (s *Stack[T]) Push(v T)
        doc: "Push adds v on top."
        == httpx.Map "function"
        signature: func Map[T, U any](xs []T, f func(T) U) []U
        doc: "Map applies f to every element."
    "#]],
    );
}

#[test]
fn rust_impl_methods_traits_modules() {
    let src = fixture("lib.rs");
    check(
        "src/lib.rs",
        &src,
        expect![[r#"
        module 1-86 lib.rs [src/lib.rs]
        class 11-17 Store
        enum 19-25 StoreError
        trait 28-36 Backend {"elided":2}
          method 29-30 get [Backend::get]
          method 32-35 put [Backend::put]
        method 39-42 new [Store::new]
        method 44-51 insert [Store::insert]
        method 55-60 fmt [StoreError::fmt]
        method 64-66 fmt [Wrapper::fmt]
        function 69-72 parse_pair
        function 74-76 store
        function 82-85 inserts [tests::inserts]
    "#]],
    );
    check_details(
        "src/lib.rs",
        &src,
        expect![[r#"
        == src/lib.rs "module"
        content:
        src/lib.rs
        A tiny key-value store.

        Used by the examples.
        use std::collections::HashMap;
        use std::fmt::{self, Display};
        use super::*;
        class Store
        enum StoreError
        trait Backend: get, put
        method Store::new
        method Store::insert
        method StoreError::fmt
        method Wrapper::fmt
        function parse_pair
        function store
        function tests::inserts
        doc: "A tiny key-value store.\n\nUsed by the examples."
        imports: ["use std::collections::HashMap;", "use std::fmt::{self, Display};", "use super::*;"]
        == Store "class"
        signature: pub struct Store<V>
        doc: "A store of values keyed by name.\n\nCloning is cheap."
        == StoreError "enum"
        signature: pub enum StoreError
        doc: "Errors of [`Store`]."
        == Backend "trait"
        signature: pub trait Backend
        == Backend::get "method"
        signature: fn get(&self, key: &str) -> Option<String>;
        doc: "Reads a value."
        == Backend::put "method"
        signature: fn put(&mut self, _key: &str, _value: String) -> bool
        doc: "Writes a value; the default refuses."
        == Store::new "method"
        signature: pub fn new() -> Self
        doc: "Creates an empty store."
        == Store::insert "method"
        signature: pub fn insert(&mut self, key: &str, value: V) -> Result<(), StoreError>
        doc: "Inserts `value` under `key`."
        == StoreError::fmt "method"
        signature: fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result
        == Wrapper::fmt "method"
        signature: fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result
        == parse_pair "function"
        signature: pub fn parse_pair(s: &str) -> Option<(&str, &str)>
        doc: "Parses `key=value`."
        == store "function"
        signature: macro_rules! store
        == tests::inserts "function"
        signature: fn inserts()
    "#]],
    );
}

#[test]
fn java_package_classes_nested_types() {
    let src = fixture("Repository.java");
    check(
        "src/main/java/com/example/store/Repository.java",
        &src,
        expect![[r#"
        module 1-63 Repository.java [src/main/java/com/example/store/Repository.java]
        window 1-3 Repository.java [src/main/java/com/example/store/Repository.java#L1-L3] {"gap":true}
        class 10-52 Repository [com.example.store.Repository] {"elided":6}
          method 19-22 Repository [com.example.store.Repository.Repository]
          method 24-35 save [com.example.store.Repository.save]
          method 37-39 findAll [com.example.store.Repository.findAll]
          interface 41-45 Listener [com.example.store.Repository.Listener] {"elided":1}
            method 43-44 saved [com.example.store.Repository.Listener.saved]
          enum 47-47 State [com.example.store.Repository.State]
          class 49-51 Page [com.example.store.Repository.Page] {"elided":1}
            method 50-50 size [com.example.store.Repository.Page.size]
        class 54-59 Point [com.example.store.Point] {"elided":2}
          method 55-57 Point [com.example.store.Point.Point]
          method 58-58 sum [com.example.store.Point.sum]
        interface 61-63 Audited [com.example.store.Audited]
    "#]],
    );
    check_details(
        "src/main/java/com/example/store/Repository.java",
        &src,
        expect![[r#"
        == src/main/java/com/example/store/Repository.java "module"
        content:
        src/main/java/com/example/store/Repository.java
        import java.util.List;
        import java.util.Map;
        import static java.util.Objects.requireNonNull;
        class com.example.store.Repository: Repository, save, findAll, Listener, State, Page
        class com.example.store.Point: Point, sum
        interface com.example.store.Audited
        imports: ["import java.util.List;", "import java.util.Map;", "import static java.util.Objects.requireNonNull;"]
        == src/main/java/com/example/store/Repository.java#L1-L3 "window"
        signature: 
        == com.example.store.Repository "class"
        signature: @SuppressWarnings("unchecked") public class Repository<T extends Entity> implements Iterable<T>
        doc: "A repository of entities kept in memory.\n\n@param <T> the entity type"
        == com.example.store.Repository.Repository "method"
        signature: public Repository()
        doc: "Creates an empty repository."
        == com.example.store.Repository.save "method"
        signature: @Override public <S extends T> S save(S entity)
        doc: "Saves an entity.\n\n@param entity the entity\n@return the saved entity"
        == com.example.store.Repository.findAll "method"
        signature: public List<T> findAll()
        == com.example.store.Repository.Listener "interface"
        signature: public interface Listener
        doc: "Listens to changes."
        == com.example.store.Repository.Listener.saved "method"
        signature: void saved(Entity e);
        doc: "Called after a save."
        == com.example.store.Repository.State "enum"
        signature: enum State
        == com.example.store.Repository.Page "class"
        signature: static class Page<E>
        == com.example.store.Repository.Page.size "method"
        signature: int size()
        == com.example.store.Point "class"
        signature: record Point(int x, int y)
        == com.example.store.Point.Point "method"
        signature: Point
        == com.example.store.Point.sum "method"
        signature: int sum()
        == com.example.store.Audited "interface"
        signature: @interface Audited
    "#]],
    );
}

#[test]
fn ruby_modules_classes_methods() {
    let src = fixture("store.rb");
    check(
        "lib/store.rb",
        &src,
        expect![[r#"
        module 1-43 store.rb [lib/store.rb]
        class 6-41 Store {"elided":3}
          class 8-9 MissingKey [Store::MissingKey]
          class 11-36 Memory [Store::Memory] {"elided":4}
            method 17-19 initialize [Store::Memory#initialize]
            method 21-24 fetch [Store::Memory#fetch]
            method 26-29 from_json [Store::Memory#from_json]
            method 32-34 empty [Store::Memory#empty]
          class 38-40 Admin::Tools [Store::Admin::Tools] {"elided":1}
            method 39-39 purge! [Store::Admin::Tools#purge!]
        function 43-43 helper
    "#]],
    );
    check_details(
        "lib/store.rb",
        &src,
        expect![[r#"
        == lib/store.rb "module"
        content:
        lib/store.rb
        require "json"
        require_relative "store/version"
        class Store: MissingKey, Memory, Admin::Tools
        function helper
        imports: ["require \"json\"", "require_relative \"store/version\""]
        == Store "class"
        signature: module Store
        doc: "Storage backends."
        == Store::MissingKey "class"
        signature: class MissingKey < StandardError; end
        doc: "Raised when a key is missing."
        == Store::Memory "class"
        signature: class Memory < Base
        doc: "An in-memory store.\n\nKeys are strings."
        == Store::Memory#initialize "method"
        signature: def initialize(items = {})
        == Store::Memory#fetch "method"
        signature: def fetch(key)
        doc: "Fetches a value or raises."
        == Store::Memory#from_json "method"
        signature: def self.from_json(text)
        doc: "Builds a store from JSON."
        == Store::Memory#empty "method"
        signature: def empty
        == Store::Admin::Tools "class"
        signature: module Admin::Tools
        == Store::Admin::Tools#purge! "method"
        signature: def purge!; end
        == helper "function"
        signature: def helper(x) =
    "#]],
    );
}

#[test]
fn csharp_block_and_file_scoped_namespaces() {
    let src = fixture("Widget.cs");
    check(
        "src/Widget.cs",
        &src,
        expect![[r#"
        module 1-37 Widget.cs [src/Widget.cs]
        interface 6-13 IWidget [Acme.Widgets.IWidget] {"elided":1}
          method 11-12 Render [Acme.Widgets.IWidget.Render]
        class 15-34 Button [Acme.Widgets.Button] {"elided":4}
          method 21-21 Button [Acme.Widgets.Button.Button]
          method 25-29 Render [Acme.Widgets.Button.Render]
          enum 31-31 Size [Acme.Widgets.Button.Size]
          class 33-33 Bounds [Acme.Widgets.Button.Bounds]
        class 36-36 Point [Acme.Widgets.Point]
    "#]],
    );
    check_details(
        "src/Widget.cs",
        &src,
        expect![[r#"
        == src/Widget.cs "module"
        content:
        src/Widget.cs
        using System;
        using System.Collections.Generic;
        interface Acme.Widgets.IWidget: Render
        class Acme.Widgets.Button: Button, Render, Size, Bounds
        class Acme.Widgets.Point
        imports: ["using System;", "using System.Collections.Generic;"]
        == Acme.Widgets.IWidget "interface"
        signature: public interface IWidget
        doc: "<summary>\nA widget that can be rendered.\n</summary>"
        == Acme.Widgets.IWidget.Render "method"
        signature: string Render();
        doc: "<summary>Renders the widget.</summary>"
        == Acme.Widgets.Button "class"
        signature: [Serializable] public sealed class Button<T> : IWidget where T : class
        doc: "<summary>A button.</summary>"
        == Acme.Widgets.Button.Button "method"
        signature: public Button(string label)
        == Acme.Widgets.Button.Render "method"
        signature: public string Render()
        doc: "<inheritdoc />"
        == Acme.Widgets.Button.Size "enum"
        signature: public enum Size
        == Acme.Widgets.Button.Bounds "class"
        signature: private struct Bounds
        == Acme.Widgets.Point "class"
        signature: public record Point(int X, int Y);
    "#]],
    );
    check(
        "src/Scoped.cs",
        &fixture("Scoped.cs"),
        expect![[r#"
        module 1-7 Scoped.cs [src/Scoped.cs]
        class 3-7 Extensions [Acme.Scoped.Extensions] {"elided":1}
          method 5-6 Twice [Acme.Scoped.Extensions.Twice]
    "#]],
    );
}

#[test]
fn c_functions_structs_typedefs() {
    let src = fixture("list.c");
    check(
        "src/adlist.c",
        &src,
        expect![[r#"
        module 1-50 adlist.c [src/adlist.c]
        window 1-4 adlist.c [src/adlist.c#L1-L4] {"gap":true}
        class 9-14 listNode
        class 16-19 list
        enum 21-21 listDirection
        enum 23-23 color
        function 25-34 listCreate
        function 36-37 listLength
        function 41-43 listEmpty
        function 45-45 dup
        class 47-50 sdshdr
    "#]],
    );
    check_details(
        "src/adlist.c",
        &src,
        expect![[r##"
        == src/adlist.c "module"
        content:
        src/adlist.c
        #include <stdlib.h>
        #include "adlist.h"
        class listNode
        class list
        enum listDirection
        enum color
        function listCreate
        function listLength
        function listEmpty
        function dup
        class sdshdr
        imports: ["#include <stdlib.h>", "#include \"adlist.h\""]
        == src/adlist.c#L1-L4 "window"
        signature: 
        == listNode "class"
        signature: struct listNode
        doc: "A node of the list."
        == list "class"
        signature: struct list
        == listDirection "enum"
        signature: typedef enum
        == color "enum"
        signature: enum color
        == listCreate "function"
        signature: list *listCreate(void)
        doc: "Create a new list. The created list can be freed with\nlistRelease(), but private value of every node need to be freed\nby the user before to call listRelease()."
        == listLength "function"
        signature: static unsigned long listLength(const list *l)
        doc: "Returns the length."
        == listEmpty "function"
        signature: void listEmpty(list *list)
        == dup "function"
        signature: static char **dup(char **v)
        == sdshdr "class"
        signature: typedef struct
    "##]],
    );
}

#[test]
fn cpp_namespaces_classes_out_of_class_methods() {
    let src = fixture("db.cc");
    check(
        "db/db_impl.cc",
        &src,
        expect![[r#"
        module 1-60 db_impl.cc [db/db_impl.cc]
        class 8-11 Options [leveldb::Options]
        class 13-28 DB [leveldb::DB] {"elided":3}
          method 16-16 DB [leveldb::DB::DB]
          method 22-22 Size [leveldb::DB::Size]
          method 24-24 operator== [leveldb::DB::operator==]
        class 32-35 Arena [leveldb::internal::Arena]
        method 37-41 Allocate [leveldb::internal::Arena::Allocate]
        enum 44-44 Compression [leveldb::Compression]
        method 46-46 ~DB [leveldb::DB::~DB]
        method 48-52 Open [leveldb::DB::Open]
        method 55-55 run [leveldb::a::b::Nested::Thing::run]
        function 60-60 main
    "#]],
    );
    check_details(
        "db/db_impl.cc",
        &src,
        expect![[r##"
        == db/db_impl.cc "module"
        content:
        db/db_impl.cc
        #include "db/db_impl.h"
        #include <vector>
        class leveldb::Options
        class leveldb::DB: DB, Size, operator==
        class leveldb::internal::Arena
        method leveldb::internal::Arena::Allocate
        enum leveldb::Compression
        method leveldb::DB::~DB
        method leveldb::DB::Open
        method leveldb::a::b::Nested::Thing::run
        function main
        imports: ["#include \"db/db_impl.h\"", "#include <vector>"]
        == leveldb::Options "class"
        signature: struct Options
        doc: "Options for opening a database."
        == leveldb::DB "class"
        signature: class DB
        doc: "A database handle."
        == leveldb::DB::DB "method"
        signature: DB() = default;
        == leveldb::DB::Size "method"
        signature: int Size() const
        == leveldb::DB::operator== "method"
        signature: bool operator==(const DB& other) const
        == leveldb::internal::Arena "class"
        signature: class Arena
        == leveldb::internal::Arena::Allocate "method"
        signature: T* Arena<T>::Allocate(size_t n)
        doc: "Rounds up."
        == leveldb::Compression "enum"
        signature: enum class Compression
        == leveldb::DB::~DB "method"
        signature: DB::~DB()
        == leveldb::DB::Open "method"
        signature: Status DB::Open(const Options& options, DB** dbptr)
        doc: "Opens the database."
        == leveldb::a::b::Nested::Thing::run "method"
        signature: void Nested::Thing::run()
        == main "function"
        signature: int main(int argc, char** argv)
    "##]],
    );
}

#[test]
fn kotlin_package_classes_objects_companions() {
    let src = fixture("Repository.kt");
    check(
        "src/main/kotlin/com/example/store/Repository.kt",
        &src,
        expect![[r#"
            module 1-54 Repository.kt [src/main/kotlin/com/example/store/Repository.kt]
            window 1-3 Repository.kt [src/main/kotlin/com/example/store/Repository.kt#L1-L3] {"gap":true}
            class 9-34 Repository [com.example.store.Repository] {"elided":4}
              method 17-21 save [com.example.store.Repository.save]
              method 23-23 iterator [com.example.store.Repository.iterator]
              method 26-27 empty [com.example.store.Repository.empty]
              class 31-33 Page [com.example.store.Repository.Page] {"elided":1}
                method 32-32 isEmpty [com.example.store.Repository.Page.isEmpty]
            interface 36-39 Listener [com.example.store.Listener] {"elided":1}
              method 38-38 saved [com.example.store.Listener.saved]
            class 41-43 Registry [com.example.store.Registry] {"elided":1}
              method 42-42 register [com.example.store.Registry.register]
            enum 45-45 State [com.example.store.State]
            class 47-47 Point [com.example.store.Point]
            function 49-50 twice [com.example.store.twice]
            function 52-54 main [com.example.store.main]
        "#]],
    );
    check_details(
        "src/main/kotlin/com/example/store/Repository.kt",
        &src,
        expect![[r#"
            == src/main/kotlin/com/example/store/Repository.kt "module"
            content:
            src/main/kotlin/com/example/store/Repository.kt
            import kotlin.collections.HashMap
            import com.example.model.*
            class com.example.store.Repository: save, iterator, empty, Page
            interface com.example.store.Listener: saved
            class com.example.store.Registry: register
            enum com.example.store.State
            class com.example.store.Point
            function com.example.store.twice
            function com.example.store.main
            imports: ["import kotlin.collections.HashMap", "import com.example.model.*"]
            == src/main/kotlin/com/example/store/Repository.kt#L1-L3 "window"
            signature: 
            == com.example.store.Repository "class"
            signature: class Repository<T : Entity>(private val items: MutableMap<Long, T> = HashMap()) : Iterable<T>
            doc: "An in-memory repository.\n\n@param T the entity type"
            == com.example.store.Repository.save "method"
            signature: fun save(entity: T): T
            doc: "Saves [entity]."
            == com.example.store.Repository.iterator "method"
            signature: override fun iterator(): Iterator<T>
            == com.example.store.Repository.empty "method"
            signature: fun <T : Entity> empty(): Repository<T>
            doc: "An empty repository."
            == com.example.store.Repository.Page "class"
            signature: inner class Page(val size: Int)
            == com.example.store.Repository.Page.isEmpty "method"
            signature: fun isEmpty()
            == com.example.store.Listener "interface"
            signature: interface Listener
            doc: "Listens to saves."
            == com.example.store.Listener.saved "method"
            signature: fun saved(e: Entity)
            == com.example.store.Registry "class"
            signature: object Registry
            == com.example.store.Registry.register "method"
            signature: fun register(l: Listener)
            == com.example.store.State "enum"
            signature: enum class State
            == com.example.store.Point "class"
            signature: data class Point(val x: Int, val y: Int)
            == com.example.store.twice "function"
            signature: fun Int.twice(): Int
            doc: "Extension: doubles."
            == com.example.store.main "function"
            signature: fun main()
        "#]],
    );
}

#[test]
fn swift_types_protocols_extensions() {
    let src = fixture("Store.swift");
    check(
        "Sources/App/Store.swift",
        &src,
        expect![[r#"
        module 1-46 Store.swift [Sources/App/Store.swift]
        class 6-21 Store {"elided":3}
          method 12-13 init [Store.init]
          method 15-18 value [Store.value]
          method 20-20 deinit [Store.deinit]
        enum 23-27 StoreError
        interface 29-32 Backend {"elided":1}
          method 30-31 read [Backend.read]
        class 34-37 Point {"elided":1}
          method 36-36 length [Point.length]
        method 40-43 contains [Store.contains]
        function 46-46 helper
    "#]],
    );
    check_details(
        "Sources/App/Store.swift",
        &src,
        expect![[r#"
        == Sources/App/Store.swift "module"
        content:
        Sources/App/Store.swift
        import Foundation
        import Combine
        class Store: init, value, deinit
        enum StoreError
        interface Backend: read
        class Point: length
        method Store.contains
        function helper
        imports: ["import Foundation", "import Combine"]
        == Store "class"
        signature: public final class Store<Value>: ObservableObject
        doc: "A key-value store.\n\nThread-safe."
        == Store.init "method"
        signature: public init()
        doc: "Creates an empty store."
        == Store.value "method"
        signature: public func value(for key: String) -> Value?
        doc: "Returns the value for `key`."
        == Store.deinit "method"
        signature: deinit
        == StoreError "enum"
        signature: enum StoreError: Error
        doc: "Errors of the store."
        == Backend "interface"
        signature: protocol Backend
        == Backend.read "method"
        signature: func read(_ key: String) -> Data?
        doc: "Reads a value."
        == Point "class"
        signature: struct Point
        == Point.length "method"
        signature: func length() -> Double
        == Store.contains "method"
        signature: func contains(_ key: String, _ value: Value) -> Bool
        doc: "Whether `key` holds `value`."
        == helper "function"
        signature: func helper() -> Int
    "#]],
    );
}

const VUE_COMPONENT: &str = r#"<template>
    <div class="contact-card">
        <button type="button" @click="onContactList">{{ addContactText }}</button>
        <ul v-if="show.list">
            <li v-for="contact in contacts" :key="contact.id">{{ contact.name }}</li>
        </ul>
    </div>
</template>

<script lang="ts">
import { defineComponent } from 'vue';
import Api from '../api';

export default defineComponent({
    name: 'ContactCard',
    data() {
        return { contacts: [], show: { list: false } };
    },
    methods: {
        onContactList() {
            this.show.list = !this.show.list;
        },
        sortContacts: (contacts) => contacts.sort((a, b) => a.name.localeCompare(b.name)),
    },
});
</script>

<style scoped>
.contact-card { display: flex; }
.contact-card button { color: purple; }
.contact-card ul { margin: 0; }
</style>
"#;

/// A Vue single-file component: the `<script>` block is parsed (its methods are chunks at the
/// file's own line numbers), the template and the styles become windows of the `vue` language.
#[test]
fn vue_script_block_methods_and_template_windows() {
    check(
        "resources/assets/js/components/ContactCard.vue",
        VUE_COMPONENT,
        expect![[r#"
            module 1-32 ContactCard.vue [resources/assets/js/components/ContactCard.vue]
            window 1-10 ContactCard.vue [resources/assets/js/components/ContactCard.vue#L1-L10] {"gap":true}
            method 16-18 data
            method 20-22 onContactList
            method 23-23 sortContacts
            window 24-32 ContactCard.vue [resources/assets/js/components/ContactCard.vue#L24-L32] {"gap":true}
        "#]],
    );
    let chunks = chunks(
        "resources/assets/js/components/ContactCard.vue",
        VUE_COMPONENT,
    );
    assert!(chunks.iter().all(|c| c.language.id() == "vue"));
    let module = chunks
        .iter()
        .find(|c| c.kind == code_intel_core::index::chunk::ChunkKind::Module);
    assert_eq!(
        module.map(|m| m.imports.clone()),
        Some(vec![
            "import { defineComponent } from 'vue';".to_string(),
            "import Api from '../api';".to_string()
        ])
    );
}

/// A Svelte component with two script blocks (`context="module"` and the instance script) and
/// markup between and after them; a component without a script is windows only, and a
/// self-closing `<script />` or a `<scripts>` element holds no script.
#[test]
fn svelte_script_blocks_and_components_without_script() {
    let src = r#"<script context="module">
    export function preload({ params }) {
        return fetch(`/users/${params.id}`);
    }
</script>

<script>
    export let user;
    let editing = false;
    function toggleEdit() {
        editing = !editing;
    }
</script>

<h1>{user.name}</h1>
<button on:click={toggleEdit}>{editing ? 'Save' : 'Edit'}</button>
<p>{user.email}</p>
"#;
    check(
        "src/routes/User.svelte",
        src,
        expect![[r#"
        module 1-17 User.svelte [src/routes/User.svelte]
        function 2-4 preload
        window 5-9 User.svelte [src/routes/User.svelte#L5-L9] {"gap":true}
        function 10-12 toggleEdit
        window 13-17 User.svelte [src/routes/User.svelte#L13-L17] {"gap":true}
    "#]],
    );
    let markup = "<scripts>\nfunction notCode() {}\n</scripts>\n<script src=\"x.js\" />\n<h1>Hello</h1>\n<p>world</p>\n<p>again</p>\n";
    check(
        "src/Hello.svelte",
        markup,
        expect![[r#"
        module 1-7 Hello.svelte [src/Hello.svelte]
        window 1-7 Hello.svelte [src/Hello.svelte#L1-L7] {"gap":true}
    "#]],
    );
}

/// Only the first eight `<script>` blocks of a component are parsed (tree-sitter's cost grows
/// with the number of included ranges times the jumps between them); later ones stay windows.
#[test]
fn components_parse_at_most_eight_script_blocks() {
    let src: String = (0..12)
        .map(|i| {
            format!("<p>block {i}</p>\n<script>\nfunction f{i}() {{ return {i}; }}\n</script>\n")
        })
        .collect();
    let functions: Vec<String> = chunks("src/Many.vue", &src)
        .into_iter()
        .filter(|c| c.kind == code_intel_core::index::chunk::ChunkKind::Function)
        .map(|c| c.symbol)
        .collect();
    assert_eq!(functions, ["f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7"]);
}
