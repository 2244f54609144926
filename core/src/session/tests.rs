//! Session engine tests.
