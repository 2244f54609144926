; JavaScript and JSX chunks. Capture contract: see `index/chunk.rs`. Earlier patterns take
; precedence when several capture the same node.

(class_declaration name: (identifier) @name) @chunk.class
(function_declaration name: (identifier) @name) @chunk.function
(generator_function_declaration name: (identifier) @name) @chunk.function
(method_definition name: (_) @name) @chunk.method
; `handle = () => {}` class fields.
(field_definition
  property: (_) @name
  value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @chunk.method

; `const f = () => ...`, `let g = function () {}`: the declaration is the chunk.
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)
            (generator_function body: (_) @body)])) @chunk.function
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)
            (generator_function body: (_) @body)])) @chunk.function

; `res.send = function send() {}`, `exports.f = () => {}`: the statement is the chunk.
(expression_statement
  (assignment_expression
    left: [(identifier) (member_expression)] @name
    right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])) @chunk.function
; Object-literal methods: `{ total() {} }` is a `method_definition` above; `{ total: () => {} }`.
(pair
  key: [(property_identifier) @name (string (string_fragment) @name)]
  value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @chunk.method

; Docblocks: a `/** ... */` comment immediately before the declaration or its `export`. A bare
; `@chunk` capture annotates a chunk made by another pattern; it never makes one.
((comment) @doc
  . [(class_declaration) (function_declaration) (generator_function_declaration)
     (lexical_declaration) (variable_declaration) (expression_statement) (method_definition) (field_definition)] @chunk
  (#match? @doc "^/\\*\\*"))
((comment) @doc
  . (export_statement
      declaration: [(class_declaration) (function_declaration) (generator_function_declaration)
                    (lexical_declaration) (variable_declaration)] @chunk)
  (#match? @doc "^/\\*\\*"))

(import_statement) @import
; CommonJS: `const x = require("x")`, `require("x");`
((lexical_declaration
   (variable_declarator value: (call_expression function: (identifier) @_f))) @import
  (#eq? @_f "require"))
((variable_declaration
   (variable_declarator value: (call_expression function: (identifier) @_f))) @import
  (#eq? @_f "require"))
((expression_statement (call_expression function: (identifier) @_f)) @import
  (#eq? @_f "require"))
