; Rust chunks. Capture contract: see `index/chunk.rs`. Earlier patterns take precedence when
; several capture the same node. Qualified names: `module::Type::method`.

(struct_item name: (type_identifier) @name) @chunk.class
(union_item name: (type_identifier) @name) @chunk.class
(enum_item name: (type_identifier) @name) @chunk.enum
(trait_item name: (type_identifier) @name) @chunk.trait

; Functions of an `impl` block (inherent or trait impl) are methods of its type:
; `impl<V> Store<V> { fn new() }` and `impl Display for Store` give `Store::new`, `Store::fmt`.
(impl_item
  type: [(type_identifier) @receiver
         (generic_type type: (type_identifier) @receiver)
         (scoped_type_identifier name: (type_identifier) @receiver)
         (generic_type type: (scoped_type_identifier name: (type_identifier) @receiver))]
  body: (declaration_list (function_item name: (identifier) @name) @chunk.function))
(function_item name: (identifier) @name) @chunk.function
; `fn get(&self) -> T;` in a trait (a method of the trait, by the generic rule).
(function_signature_item name: (identifier) @name) @chunk.function
(macro_definition name: (identifier) @name) @chunk.function

; Doc comments: `///` lines (or a `/** */` block) right above the item or its attributes.
((line_comment) @doc
  .
  (attribute_item)*
  .
  [(struct_item) (union_item) (enum_item) (trait_item) (function_item) (function_signature_item)
   (macro_definition)] @chunk
  (#match? @doc "^///"))
((block_comment) @doc
  .
  (attribute_item)*
  .
  [(struct_item) (union_item) (enum_item) (trait_item) (function_item) (function_signature_item)
   (macro_definition)] @chunk
  (#match? @doc "^/\\*\\*"))

; `//!` lines document the module.
(source_file (line_comment) @doc (#match? @doc "^//!"))

; An inline `mod tests { ... }` qualifies what is inside it.
(mod_item name: (identifier) @namespace body: (declaration_list) @scope)

(use_declaration) @import
(extern_crate_declaration) @import
