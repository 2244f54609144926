//! code-intel-session: the phase engine of code-intel, the part a hook process links.
//!
//! Sessions and their phases ([`session`]), the write gate ([`gate`]), the structured request
//! ([`query_frame`]), the exploration planner ([`router`]), the model-free relevance verdicts
//! ([`relevance`]), the decision journal ([`journal`]), the learned map's files ([`learned`]) and
//! the outcome journal with its analyses ([`outcome`]), over the shared vocabulary ([`vocab`]) and
//! the base: atomic files and locks ([`persist`]), the state directory ([`state_dir`]), the
//! configuration ([`config`]) and repository paths ([`repo_path`]). The layers and the rule that
//! each module uses only its own layer and those below are in ARCHITECTURE.md "Layers" and are
//! checked by `core/tests/layers.rs`.
//!
//! This crate depends on no code index, parser or model (tantivy, tree-sitter, ONNX Runtime) by
//! construction: `code-intel-core` adds those over this crate and re-exports nothing of it, so
//! every item here has one path (`code_intel_session::…`). The Bash analysis the write gate reads
//! is `code-intel-bash`'s.
//!
//! Invariants (see `ARCHITECTURE.md`): this crate never reads stdin, writes stdout, reads
//! environment variables or the current directory (`clippy.toml` forbids it); it reads and writes
//! only under the roots its caller passes in. It is synchronous; every persisted record is
//! versioned and written atomically.

pub mod config;
pub mod gate;
pub mod journal;
pub mod learned;
pub mod outcome;
pub mod persist;
pub mod query_frame;
pub mod relevance;
pub mod repo_path;
pub mod router;
pub mod session;
pub mod state_dir;
pub mod vocab;
pub mod witness;
