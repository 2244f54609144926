; PHP chunks (grammar LANGUAGE_PHP: `<?php` code mixed with HTML text). Capture contract: see
; `index/chunk.rs`. Earlier patterns take precedence when several capture the same node.

(class_declaration name: (name) @name) @chunk.class
(interface_declaration name: (name) @name) @chunk.interface
(trait_declaration name: (name) @name) @chunk.trait
(enum_declaration name: (name) @name) @chunk.enum
(function_definition name: (name) @name) @chunk.function
(method_declaration name: (name) @name) @chunk.method

; Docblocks: a `/** ... */` comment immediately before the declaration. A bare `@chunk` capture
; annotates a chunk made by another pattern; it never makes one.
((comment) @doc
  . [(class_declaration) (interface_declaration) (trait_declaration) (enum_declaration)
     (function_definition) (method_declaration)] @chunk
  (#match? @doc "^/\\*\\*"))

; `namespace App\Http;` (or the braced form) qualifies the declarations after it.
(namespace_definition name: (namespace_name) @namespace)

; `use A\B;`, `use function A\f;`, `use A\{B, C};`
(namespace_use_declaration) @import
