//! NL term ↔ symbol relevance over the embedding model (feature `embed`; the model-free verdicts,
//! thresholds and the `RelevanceScorer` seam are `code_intel_session::relevance`'s):
//! [`CalibratedScorer`] scores a term
//! against symbols relative to a background sample of the repository's symbols, and
//! [`SemanticQuoteChecker`] accepts QueryFrame quotes the request supports semantically. The
//! numbers behind the thresholds are in docs/RELEVANCE.md.

mod builtin;
mod calibrated;

pub use builtin::{GENERIC_SYMBOLS, REQUEST_PHRASES};
pub use calibrated::{
    Background, BackgroundSource, CalibratedScorer, PhraseBackground, QuoteConsistency,
    SemanticQuoteChecker, WindowMatch, request_windows, symbol_text,
};

#[cfg(test)]
mod tests;
