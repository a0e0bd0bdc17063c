//! Liveness and readiness probes, and what the server says about itself to its page.

use crate::State;
use actix_web::{get, web, HttpResponse};
use serde::Serialize;

use utoipa::ToSchema;

use super::error::{ApiError, Problem};

#[derive(Serialize, ToSchema)]
pub struct Health {
    #[schema(example = "ok")]
    pub status: &'static str,
}

/// Liveness: the process answers.
#[utoipa::path(tag = "health", security(()), responses((status = 200, body = Health)))]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(Health { status: "ok" })
}

/// Readiness: the database answers, within the acquire timeout.
#[utoipa::path(tag = "health", security(()), responses(
    (status = 200, body = Health),
    (status = 503, description = "`database_unavailable`: the database does not answer (with `Retry-After`)", body = Problem, content_type = "application/problem+json"),
))]
#[get("/readyz")]
pub async fn readyz(state: web::Data<State>) -> Result<HttpResponse, ApiError> {
    // A frozen database accepts the connection and never answers: the probe gives up as a
    // request waiting for a connection would.
    let deadline = state.deadlines.database;
    match tokio::time::timeout(deadline, tablekeeper_service::database::ping(&state.pool)).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "readiness check failed");
            return Err(ApiError::database_unavailable());
        }
        Err(_) => {
            tracing::warn!("readiness check failed: the database did not answer in time");
            return Err(ApiError::database_unavailable());
        }
    }
    Ok(HttpResponse::Ok().json(Health { status: "ready" }))
}

/// What the page needs to know about the server it is served by.
#[derive(Serialize, ToSchema)]
pub struct ServerInfo {
    /// The address phones open (`PUBLIC_URL`, e.g. `https://cards.example.org`), for join QR
    /// codes; null when it is not configured (the page then uses its own address, unless that
    /// is loopback, which a phone cannot reach).
    #[schema(example = "http://192.168.1.20:8080")]
    pub public_url: Option<String>,
}

/// The server's public address, for the page's join QR codes. No sign-in needed.
#[utoipa::path(tag = "health", security(()), responses((status = 200, body = ServerInfo)))]
#[get("/info")]
pub async fn get_server_info(state: web::Data<State>) -> HttpResponse {
    HttpResponse::Ok().json(ServerInfo {
        public_url: state.public_url.clone(),
    })
}
