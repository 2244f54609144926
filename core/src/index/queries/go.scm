; Go chunks. Capture contract: see `index/chunk.rs`. Earlier patterns take precedence when several
; capture the same node. Qualified names: `package.Type.Method`.

; `type Engine struct {...}`: the declaration is the chunk (its doc comment sits before it); in a
; group `type ( A struct{...}; B interface{...} )` each spec is one. The spec of a single
; declaration is absorbed into it (same kind and name, direct child, same end).
(type_declaration . (type_spec name: (type_identifier) @name type: (struct_type (field_declaration_list) @body)) .) @chunk.class
(type_declaration . (type_spec name: (type_identifier) @name type: (interface_type) @body) .) @chunk.interface
(type_spec name: (type_identifier) @name type: (struct_type (field_declaration_list) @body)) @chunk.class
(type_spec name: (type_identifier) @name type: (interface_type) @body) @chunk.interface

(function_declaration name: (identifier) @name) @chunk.function
; Methods belong to their receiver's type: `func (e *Engine) Handle()` is `Engine.Handle`.
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [(type_identifier) @receiver
             (pointer_type (type_identifier) @receiver)
             (generic_type type: (type_identifier) @receiver)
             (pointer_type (generic_type type: (type_identifier) @receiver))]))
  name: (field_identifier) @name) @chunk.method
(method_declaration name: (field_identifier) @name) @chunk.method

; Doc comments: the `//` lines right above a declaration (grown and checked by the chunker,
; `LangSpec::line_docs`). A bare `@chunk` capture annotates a chunk made by another pattern.
((comment) @doc . [(type_declaration) (function_declaration) (method_declaration)] @chunk)
(type_declaration (comment) @doc . (type_spec) @chunk)

; The package doc comment documents the module; the package qualifies every declaration.
((comment) @doc . (package_clause))
(package_clause (package_identifier) @namespace)

(import_declaration) @import
