; CSS chunks: rule sets and block at-rules. Capture contract: see `index/chunk.rs`. Without an
; `@name` capture the symbol is the signature: the text before the `@body` capture, e.g.
; `.nav > a:hover` or `@media (max-width: 600px)`.

(rule_set (block) @body) @chunk.rule
(media_statement (block) @body) @chunk.at_rule
(supports_statement (block) @body) @chunk.at_rule
(keyframes_statement (keyframe_block_list) @body) @chunk.at_rule
(at_rule (block) @body) @chunk.at_rule

(import_statement) @import
