//! The learned pairs as the relevance tools see them (`validate_symbol_relevance`'s
//! `cached_matches`): a re-export of [`crate::learned`], where reading and writing
//! `.code-intel/learned_pairs.json` live.

pub use crate::learned::{
    Expiry, LEARNED_PAIRS_FILE, LEARNED_PAIRS_VERSION, LearnedPair, LearnedPairs,
    LearnedPairsError, load, matches,
};
