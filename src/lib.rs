//! tablekeeper: a REST scoring and table-management service for card clubs.
//!
//! Layers depend downwards only: `api` → `store` → `ledger` → `rules`.

pub mod api;
pub mod app;
pub mod config;
pub mod ledger;
pub mod rules;
pub mod store;
pub mod web;
