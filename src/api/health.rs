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

/// Readiness: the database answers.
#[utoipa::path(tag = "health", responses(
    (status = 200, body = Health),
    (status = 503, description = "`database_unavailable`: the database does not answer (with `Retry-After`)", body = Problem, content_type = "application/problem+json"),
))]
#[get("/readyz")]
pub async fn readyz(pool: web::Data<PgPool>) -> Result<HttpResponse, ApiError> {
    crate::store::ping(pool.get_ref()).await.map_err(|e| {
        tracing::warn!(error = %e, "readiness check failed");
        ApiError::database_unavailable()
    })?;
    Ok(HttpResponse::Ok().json(Health { status: "ready" }))
}
