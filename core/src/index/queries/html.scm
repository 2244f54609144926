; HTML chunks: semantic sectioning elements and any element with an `id`. Capture contract: see
; `index/chunk.rs`. Earlier patterns take precedence when several capture the same node; several
; `@name` captures in one match are joined with the language's name joiner (`nav#main-nav`).

(element
  [(start_tag
     (tag_name) @name
     (attribute (attribute_name) @_attr
       [(quoted_attribute_value (attribute_value) @name) (attribute_value) @name]))
   (self_closing_tag
     (tag_name) @name
     (attribute (attribute_name) @_attr
       [(quoted_attribute_value (attribute_value) @name) (attribute_value) @name]))]
  (#eq? @_attr "id")) @chunk.element

(element
  (start_tag (tag_name) @name)
  (#any-of? @name
    "header" "nav" "main" "section" "article" "aside" "footer" "form" "dialog" "template")) @chunk.element
