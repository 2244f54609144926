//! code-intel-core: the domain logic of code-intel.
//!
//! The lean modules live in `code-intel-session` (the crate the hooks link) and are re-exported here
//! whole, so one path serves every adapter. Sessions and the write gate ([`session`], [`gate`]), the structured request ([`query_frame`]),
//! the exploration planner ([`router`]), the decision journal ([`journal`]), the learned map's
//! files ([`learned`]) and the outcome journal with its analyses ([`outcome`]); behind the `index`
//! feature the code index ([`index`]), the exploration tools ([`explore`]) and the retrieval
//! evaluation ([`eval`]), and behind `embed` the embedding model and its cache ([`embed`], also
//! the calibrated scorer of [`relevance`]). Claude Code's configuration (`code-intel init`) is the
//! CLI's (`mcp/src/install.rs`).
//!
//! Invariants (see `ARCHITECTURE.md`): this crate never reads stdin, writes stdout, reads environment
//! variables or the current directory; it reads and writes only under the roots its caller passes in.
//! It is synchronous; every persisted record is versioned and written atomically.

pub use code_intel_session::{
    config, gate, journal, learned, outcome, persist, query_frame, repo_path, router, session,
    state_dir, vocab,
};

pub mod relevance;

#[cfg(feature = "embed")]
pub mod embed;
#[cfg(feature = "index")]
pub mod eval;
#[cfg(feature = "index")]
pub mod explore;
#[cfg(feature = "index")]
pub mod index;
