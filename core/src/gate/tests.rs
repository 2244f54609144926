//! Gate tests.
