; Swift chunks. Capture contract: see `index/chunk.rs`. Earlier patterns take precedence when
; several capture the same node. Classes, structs and actors are chunks of kind `class`,
; protocols `interface`. An `extension` is not a chunk: its functions are methods of the extended
; type (`@receiver`), so `extension Store { func f() }` gives `Store.f`.

(class_declaration name: (type_identifier) @name body: (enum_class_body)) @chunk.enum
(class_declaration name: (type_identifier) @name) @chunk.class
(protocol_declaration name: (type_identifier) @name) @chunk.interface

(class_declaration
  "extension"
  name: (user_type (type_identifier) @receiver)
  body: (class_body (function_declaration name: (simple_identifier) @name) @chunk.function))
(function_declaration name: (simple_identifier) @name) @chunk.function
(protocol_function_declaration name: (simple_identifier) @name) @chunk.function
(init_declaration "init" @name) @chunk.function
(deinit_declaration "deinit" @name) @chunk.function

; Doc comments: `///` lines (or a `/** */` block) right above the declaration.
((comment) @doc
  . [(class_declaration) (protocol_declaration) (function_declaration)
     (protocol_function_declaration) (init_declaration) (deinit_declaration)] @chunk
  (#match? @doc "^///"))
((multiline_comment) @doc
  . [(class_declaration) (protocol_declaration) (function_declaration)
     (protocol_function_declaration) (init_declaration) (deinit_declaration)] @chunk
  (#match? @doc "^/\\*\\*"))

(import_declaration) @import
