; Blade templates are parsed with the HTML grammar; this file is prepended to `html.scm`.
; Directive blocks (`@section ... @endsection`) come from `blade.directives`, not from a grammar.
; Anonymous and class components: `<x-alert ...>...</x-alert>`, `<x-alert />`, `<x-slot:title>`.

(element
  [(start_tag (tag_name) @name) (self_closing_tag (tag_name) @name)]
  (#match? @name "^x-")) @chunk.directive
