//! tablekeeper: a REST scoring and table-management service for card clubs.
//!
//! The floors are crates of their own, and depend downwards only (docs/ARCHITECTURE.md):
//! `api` → `service` (the use cases) → `store` → `ledger` → `rules`, with `config` (plain
//! settings) at the bottom and `web` (the page's assets) beside `api`. This crate binds them into
//! a server ([`app`]) and re-exports them under their floors' names.

pub mod app;
pub mod release;
pub mod telemetry;

/// The service's version (the workspace's, in Cargo.toml).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The commit the build is of (`build.rs`): `TABLEKEEPER_COMMIT` when the build set it, else the
/// work tree's HEAD, else `unknown`.
pub const COMMIT: &str = env!("TABLEKEEPER_BUILD_COMMIT");

/// The HTTP floor (the `tablekeeper-api` crate).
pub use tablekeeper_api as api;
/// Settings (the `tablekeeper-config` crate).
pub use tablekeeper_config as config;
/// The double-entry chip ledger (the `tablekeeper-ledger` crate).
pub use tablekeeper_ledger as ledger;
/// The rules engine (the `tablekeeper-rules` crate).
pub use tablekeeper_rules as rules;
/// The use cases (the `tablekeeper-service` crate).
pub use tablekeeper_service as service;
/// Every SQL statement (the `tablekeeper-store` crate).
pub use tablekeeper_store as store;
/// The phone page's assets (the `tablekeeper-web` crate).
pub use tablekeeper_web as web;
