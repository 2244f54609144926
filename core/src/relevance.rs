//! NL term ↔ symbol relevance: code-intel-session's model-free verdicts (re-exported whole) plus the
//! calibrated scorer over the embedding model (feature `embed`): [`CalibratedScorer`] scores a term
//! against symbols relative to a background sample of the repository's symbols, and
//! [`SemanticQuoteChecker`] accepts QueryFrame quotes the request supports semantically. The
//! numbers behind the thresholds are in docs/RELEVANCE.md.

pub use code_intel_session::relevance::*;

#[cfg(feature = "embed")]
mod builtin;
#[cfg(feature = "embed")]
mod calibrated;

#[cfg(feature = "embed")]
pub use builtin::{GENERIC_SYMBOLS, REQUEST_PHRASES};
#[cfg(feature = "embed")]
pub use calibrated::{
    Background, BackgroundSource, CalibratedScorer, PhraseBackground, QuoteConsistency,
    SemanticQuoteChecker, WindowMatch, request_windows, symbol_text,
};

#[cfg(all(test, feature = "embed"))]
mod tests;
