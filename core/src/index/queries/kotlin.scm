; Kotlin chunks (grammar tree-sitter-kotlin-ng). Capture contract: see `index/chunk.rs`. Earlier
; patterns take precedence when several capture the same node. The grammar has no `body` fields:
; bodies are captured. Qualified names: `com.example.store.Repository.save`; a companion object's
; functions are methods of its class (the companion is not a chunk).

(class_declaration "interface" name: (identifier) @name (class_body)? @body) @chunk.interface
(class_declaration name: (identifier) @name (enum_class_body) @body) @chunk.enum
(class_declaration name: (identifier) @name (class_body) @body) @chunk.class
(class_declaration name: (identifier) @name) @chunk.class
(object_declaration name: (identifier) @name (class_body)? @body) @chunk.class
(function_declaration name: (identifier) @name (function_body) @body) @chunk.function
(function_declaration name: (identifier) @name) @chunk.function

; KDoc: a `/** ... */` comment right before the declaration.
((block_comment) @doc
  . [(class_declaration) (object_declaration) (function_declaration)] @chunk
  (#match? @doc "^/\\*\\*"))
; The grammar reads a top-level annotation with arguments (`@Suppress("x")`) before a declaration
; as an expression of its own, between the KDoc and the declaration.
((block_comment) @doc
  . (annotated_expression)
  . [(class_declaration) (object_declaration) (function_declaration)] @chunk
  (#match? @doc "^/\\*\\*"))

; The package qualifies every declaration of the file.
(package_header (qualified_identifier) @namespace)

(import) @import
