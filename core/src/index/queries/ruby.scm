; Ruby chunks. Capture contract: see `index/chunk.rs`. Earlier patterns take precedence when
; several capture the same node. Modules are chunks of kind `class`; qualified names:
; `Store::Memory#fetch` (a `def self.x` is `#x` too).

; A comment before the first statement of the body is a child of the class, between the header
; and the body: it is the `@body` here, so that the signature stays `class Memory < Base`.
(class name: [(constant) (scope_resolution)] @name . (comment) @body) @chunk.class
(class name: [(constant) (scope_resolution)] @name superclass: (superclass) . (comment) @body) @chunk.class
(module name: [(constant) (scope_resolution)] @name . (comment) @body) @chunk.class
(class name: [(constant) (scope_resolution)] @name) @chunk.class
(module name: [(constant) (scope_resolution)] @name) @chunk.class
(method name: (_) @name) @chunk.function
(singleton_method name: (_) @name) @chunk.function

; Doc comments: the `#` lines right above the definition. The comments before the first statement
; of a class or module body are children of the class or module, not of its body.
((comment) @doc . [(class) (module) (method) (singleton_method)] @chunk)
(_ (comment) @doc . (body_statement . [(class) (module) (method) (singleton_method)] @chunk))

((call method: (identifier) @_m) @import
  (#any-of? @_m "require" "require_relative" "load"))
