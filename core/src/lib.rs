//! code-intel-core: the code index of code-intel, over the phase engine (`code-intel-session`).
//!
//! Behind the `index` feature the code index ([`index`]), the exploration tools ([`explore`]) and
//! the retrieval evaluation ([`eval`]); behind `embed` the embedding model and its cache
//! ([`embed`]) and the calibrated relevance scorer ([`relevance`]). Sessions, their phases, the
//! write gate, the learned map and the outcomes are `code-intel-session`'s (the crate the hooks
//! link); this crate uses them by their own paths (`code_intel_session::session`) and re-exports
//! none of them, so each item has one path. Claude Code's configuration (`code-intel init`) is
//! the CLI's (`mcp/src/install.rs`).
//!
//! Invariants (see `ARCHITECTURE.md`): this crate never reads stdin, writes stdout, reads environment
//! variables or the current directory; it reads and writes only under the roots its caller passes in.
//! It is synchronous; every persisted record is versioned and written atomically.

#[cfg(feature = "embed")]
pub mod relevance;

#[cfg(feature = "embed")]
pub mod embed;
#[cfg(feature = "index")]
pub mod eval;
#[cfg(feature = "index")]
pub mod explore;
#[cfg(feature = "index")]
pub mod index;
