//! Liveness and readiness probes.

use actix_web::{get, web, HttpResponse};
use serde::Serialize;
use sqlx::PgPool;
use utoipa::ToSchema;

use super::error::{ApiError, Problem};

#[derive(Serialize, ToSchema)]
pub struct Health {
    #[schema(example = "ok")]
    pub status: &'static str,
}

/// Liveness: the process answers.
#[utoipa::path(tag = "health", responses((status = 200, body = Health)))]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(Health { status: "ok" })
}

/// Readiness: the database answers, within the acquire and statement timeouts.
#[utoipa::path(tag = "health", responses(
    (status = 200, body = Health),
    (status = 503, description = "`database_unavailable`: the database does not answer (with `Retry-After`)", body = Problem, content_type = "application/problem+json"),
))]
#[get("/readyz")]
pub async fn readyz(
    pool: web::Data<PgPool>,
    deadlines: Option<web::Data<super::deadlines::Deadlines>>,
) -> Result<HttpResponse, ApiError> {
    // A frozen database accepts the connection and never answers: the probe gives up in time.
    let deadline = deadlines.map_or(std::time::Duration::from_secs(5), |d| d.handler);
    match tokio::time::timeout(deadline, crate::store::ping(pool.get_ref())).await {
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
