; Java chunks. Capture contract: see `index/chunk.rs`. Earlier patterns take precedence when
; several capture the same node. Qualified names: `com.example.Repository.save`.

(class_declaration name: (identifier) @name) @chunk.class
(record_declaration name: (identifier) @name) @chunk.class
(interface_declaration name: (identifier) @name) @chunk.interface
(annotation_type_declaration name: (identifier) @name) @chunk.interface
(enum_declaration name: (identifier) @name) @chunk.enum
(method_declaration name: (identifier) @name) @chunk.method
(constructor_declaration name: (identifier) @name) @chunk.method
(compact_constructor_declaration name: (identifier) @name) @chunk.method

; Javadoc: a `/** ... */` comment right before the declaration (annotations are inside it).
((block_comment) @doc
  . [(class_declaration) (record_declaration) (interface_declaration) (annotation_type_declaration)
     (enum_declaration) (method_declaration) (constructor_declaration)
     (compact_constructor_declaration)] @chunk
  (#match? @doc "^/\\*\\*"))

; The package qualifies every declaration of the file.
(package_declaration [(scoped_identifier) (identifier)] @namespace)

(import_declaration) @import
