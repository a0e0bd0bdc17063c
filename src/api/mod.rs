//! The HTTP API under `/api/v1`: handlers, request and response types, auth and errors.

pub mod accounts;
pub mod auth;
pub mod error;
pub mod games;
pub mod health;
pub mod ledger;
pub mod limits;
pub mod metrics;
pub mod middleware;
pub mod openapi;
pub mod sessions;
pub mod tables;

use actix_web::web;

/// Registers every route.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/api/v1")
            .service(accounts::register)
            .service(accounts::login)
            .service(accounts::join)
            .service(games::list_games)
            .service(sessions::create_session)
            .service(sessions::list_sessions)
            .service(sessions::get_session)
            .service(tables::create_table)
            .service(tables::list_tables)
            .service(tables::get_table)
            .service(tables::submit_move)
            .service(tables::list_moves)
            .service(tables::undo_move)
            .service(tables::get_scores)
            .service(tables::create_join_code)
            .service(ledger::get_table_ledger)
            .service(ledger::audit_table)
            .service(ledger::get_session_ledger)
            .service(health::healthz)
            .service(health::readyz),
    );
}

/// Page size bounds shared by the list endpoints.
pub(crate) fn page_limit(limit: Option<i64>) -> Result<i64, error::ApiError> {
    match limit {
        None => Ok(100),
        Some(n) if (1..=500).contains(&n) => Ok(n),
        Some(n) => Err(error::ApiError::bad_request(
            "invalid_query",
            format!("limit must be 1 to 500, not {n}"),
        )),
    }
}

/// A name as typed: trimmed, 1 to `max` characters, no control characters (PostgreSQL text
/// cannot hold NUL, and a name has no use for the others).
pub(crate) fn display_name(text: &str, max: usize) -> Option<&str> {
    let name = text.trim();
    let length = name.chars().count();
    ((1..=max).contains(&length) && !name.contains(char::is_control)).then_some(name)
}
