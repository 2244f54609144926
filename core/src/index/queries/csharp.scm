; C# chunks. Capture contract: see `index/chunk.rs`. Earlier patterns take precedence when
; several capture the same node. Qualified names: `Acme.Widgets.Button.Render`.

(class_declaration name: (identifier) @name) @chunk.class
(struct_declaration name: (identifier) @name) @chunk.class
(record_declaration name: (identifier) @name) @chunk.class
(interface_declaration name: (identifier) @name) @chunk.interface
(enum_declaration name: (identifier) @name) @chunk.enum
(method_declaration name: (identifier) @name) @chunk.method
(constructor_declaration name: (identifier) @name) @chunk.method
(destructor_declaration name: (identifier) @name) @chunk.method
(operator_declaration) @chunk.method

; XML doc comments: the `///` lines (or a `/** */` block) right above the declaration (its
; attributes are inside it).
((comment) @doc
  . [(class_declaration) (struct_declaration) (record_declaration) (interface_declaration)
     (enum_declaration) (method_declaration) (constructor_declaration) (destructor_declaration)
     (operator_declaration)] @chunk
  (#match? @doc "^(///|/\\*\\*)"))

; `namespace A.B { ... }` qualifies its body; `namespace A.B;` the rest of the file.
(namespace_declaration name: (_) @namespace body: (declaration_list) @scope)
(file_scoped_namespace_declaration name: (_) @namespace)

(using_directive) @import
