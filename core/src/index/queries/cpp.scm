; C++ chunks (also `.h` headers, C or C++). Capture contract: see `index/chunk.rs`. Earlier
; patterns take precedence when several capture the same node. Classes, structs and unions are
; chunks of kind `class`; qualified names: `leveldb::DB::Open`.

(class_specifier
  name: [(type_identifier) @name (template_type name: (type_identifier) @name)]
  body: (field_declaration_list) @body) @chunk.class
(struct_specifier
  name: [(type_identifier) @name (template_type name: (type_identifier) @name)]
  body: (field_declaration_list) @body) @chunk.class
(union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @chunk.class
(enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @chunk.enum
(type_definition
  type: [(struct_specifier !name body: (field_declaration_list))
         (union_specifier !name body: (field_declaration_list))]
  declarator: (type_identifier) @name) @chunk.class

; Out-of-class definitions belong to their scope: `Status DB::Open(...)` is a method of `DB`,
; `void A::B::f()` of `A::B`.
(function_definition
  declarator: [(function_declarator declarator: (qualified_identifier
                 scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)]
                 name: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))
               (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier
                 scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)]
                 name: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)))
               (reference_declarator (function_declarator declarator: (qualified_identifier
                 scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)]
                 name: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)))
               (function_declarator declarator: (qualified_identifier
                 scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)]
                 name: (qualified_identifier
                   scope: [(namespace_identifier) @receiver (template_type name: (type_identifier) @receiver)]
                   name: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)))]) @chunk.function
; Free functions, and inline methods in a class body (methods by the generic rule).
(function_definition
  declarator: [(function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)
               (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
               (pointer_declarator
                 declarator: (pointer_declarator
                   declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name)))
               (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))]) @chunk.function

; Doc comments: the comment (`/** */`, `/* */` or a run of `//`/`///` lines) right above the
; definition or its `template <...>` line.
((comment) @doc
  . [(function_definition) (class_specifier) (struct_specifier) (union_specifier) (enum_specifier)
     (type_definition)] @chunk)
((comment) @doc
  . (template_declaration [(function_definition) (class_specifier) (struct_specifier)] @chunk))
((comment) @doc . (type_definition type: (_) @chunk))

; `namespace a { ... }` and `namespace a::b { ... }` qualify their bodies.
(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @namespace
  body: (declaration_list) @scope)

(preproc_include) @import
(using_declaration) @import
