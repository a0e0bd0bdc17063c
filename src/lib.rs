//! tablekeeper: a REST scoring and table-management service for card clubs.
//!
//! Layers depend downwards only: `api` → `service` (the use cases) → `store` → `ledger` → `rules`.

pub mod api;
pub mod app;
pub mod config;
/// The double-entry chip ledger (the `tablekeeper-ledger` crate).
pub use tablekeeper_ledger as ledger;
/// The rules engine (the `tablekeeper-rules` crate).
pub use tablekeeper_rules as rules;
pub mod service;
pub mod store;
pub mod telemetry;
/// The phone page's assets (the `tablekeeper-web` crate).
pub use tablekeeper_web as web;
