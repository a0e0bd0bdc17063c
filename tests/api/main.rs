//! HTTP integration tests against a real PostgreSQL: every test gets its own database
//! (`#[sqlx::test]`, from DATABASE_URL) and its own server on a free port.

mod auth;
mod browser;
mod browser_table;
mod browser_deals;
mod bundle;
mod chain;
mod club;
mod conditional;
mod corrections;
mod dividend;
mod exports;
mod games;
mod health;
mod helpers;
mod hostile;
mod hot;
mod ledger;
mod live;
mod moves;
mod newmarket;
mod openapi;
mod ops;
mod pope_joan;
mod receipts;
mod revocation;
mod scorers;
mod sessions;
mod settlement;
mod spin;
mod tables;
mod tricky_dick;
mod tridge;
mod upgrade;
mod verification;
mod web;
