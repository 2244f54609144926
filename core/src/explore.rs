//! TODO: explore
