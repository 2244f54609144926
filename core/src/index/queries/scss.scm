; SCSS chunks: rule sets (nested ones too), block at-rules, mixins and functions. Capture
; contract: see `index/chunk.rs`. Without an `@name` capture the symbol is the signature (the text
; before the `@body` capture).

(rule_set (block) @body) @chunk.rule
(media_statement (block) @body) @chunk.at_rule
(supports_statement (block) @body) @chunk.at_rule
(keyframes_statement (keyframe_block_list) @body) @chunk.at_rule
(at_rule (block) @body) @chunk.at_rule
(mixin_statement name: (identifier) @name (block) @body) @chunk.function
(function_statement name: (identifier) @name (block) @body) @chunk.function

(import_statement) @import
(use_statement) @import
(forward_statement) @import
