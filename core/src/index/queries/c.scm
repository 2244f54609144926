; C chunks. Capture contract: see `index/chunk.rs`. Earlier patterns take precedence when several
; capture the same node. Structs and unions are chunks of kind `class`.

(function_definition
  declarator: [(function_declarator declarator: (identifier) @name)
               (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
               (pointer_declarator
                 declarator: (pointer_declarator
                   declarator: (function_declarator declarator: (identifier) @name)))]) @chunk.function

; `struct listNode {...}` (also inside a typedef: named by its tag); `typedef struct {...} sds;`
; (anonymous: named by the typedef).
(struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @chunk.class
(union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @chunk.class
(enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @chunk.enum
(type_definition
  type: [(struct_specifier !name body: (field_declaration_list))
         (union_specifier !name body: (field_declaration_list))]
  declarator: (type_identifier) @name) @chunk.class
(type_definition
  type: (enum_specifier !name body: (enumerator_list))
  declarator: (type_identifier) @name) @chunk.enum

; Doc comments: the comment (`/* */`, or a run of `//` lines) right above the definition.
((comment) @doc
  . [(function_definition) (struct_specifier) (union_specifier) (enum_specifier) (type_definition)] @chunk)
((comment) @doc . (type_definition type: (_) @chunk))

(preproc_include) @import
