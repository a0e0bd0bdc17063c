//! tablekeeper: a REST scoring and table-management service for card clubs.
//!
//! Layers depend downwards only: `api` → `service` (the use cases) → `store` → `ledger` → `rules`.

pub mod api;
pub mod app;
pub mod config;
pub mod ledger;
pub mod rules;
pub mod service;
pub mod store;
pub mod telemetry;
pub mod web;
