; Python chunks. Capture contract: see `index/chunk.rs` (module docs). Earlier patterns take
; precedence when several patterns capture the same node.

; A decorated definition is one chunk including its decorators; the inner definition (same kind,
; same name, direct child, same end) is absorbed into it.
(decorated_definition
  definition: (class_definition name: (identifier) @name)) @chunk.class
(decorated_definition
  definition: (function_definition name: (identifier) @name)) @chunk.function

(class_definition name: (identifier) @name) @chunk.class
; Functions directly inside a class become methods (generic rule of the chunker).
(function_definition name: (identifier) @name) @chunk.function

; Docstrings: the first statement of the body when it is a string literal. A bare `@chunk` capture
; annotates a chunk made by another pattern; it never makes one.
(class_definition body: (block . (expression_statement (string) @doc))) @chunk
(function_definition body: (block . (expression_statement (string) @doc))) @chunk

; Module docstring (a match without a chunk capture documents the module).
(module . (comment)* . (expression_statement (string) @doc))

(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import
