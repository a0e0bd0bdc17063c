//! Tricky Dick tests.
