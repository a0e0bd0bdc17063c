//! The signed audit bundle of a session, and the public key that checks it.

use actix_web::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use actix_web::{get, web, HttpResponse};
use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use utoipa::ToSchema;
use uuid::Uuid;

use super::error::{ApiError, Problem};
use crate::service::{bundle, chain};

/// The configured signing seed (`AUDIT_SIGNING_KEY`), if any.
#[derive(Debug, Clone, Copy)]
pub struct SigningSeed(pub Option<[u8; 32]>);

/// The key that signs audit bundles.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct AuditKey {
    #[schema(example = "ed25519")]
    pub algorithm: String,
    /// Hex, 32 bytes: give it to `tablekeeper verify FILE --key KEY`.
    pub public_key: String,
}

/// Downloads the session's audit bundle: one self-contained JSON file with the session and, for
/// every table, its game, options, players, whole log (voids included), ledger, score sheet and
/// chain head, with the engine's version, signed with Ed25519. Check it at home, without the
/// server, with `tablekeeper verify FILE --key KEY` (the key from `GET /audit-key`).
#[utoipa::path(tag = "sessions", params(("id" = Uuid, Path)), responses(
    (status = 200, description = "the bundle, in canonical JSON (any change of a byte fails verification)", content_type = "application/json", body = Object),
    (status = 404, description = "`session_not_found`", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`table_damaged`: what is stored of a table no longer reads; the problem names it", body = Problem, content_type = "application/problem+json"),
))]
#[get("/sessions/{id}/audit-bundle")]
pub async fn get_audit_bundle(
    pool: web::Data<PgPool>,
    seed: web::Data<SigningSeed>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let key = bundle::signing_key(&pool, seed.0).await?;
    let bytes = bundle::build(&pool, *id, &key).await?;
    Ok(HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, "application/json"))
        .insert_header((
            CONTENT_DISPOSITION,
            format!("attachment; filename=\"session-{id}-audit-bundle.json\""),
        ))
        .body(bytes))
}

/// The public key that signs this server's audit bundles.
#[utoipa::path(tag = "sessions", responses((status = 200, body = AuditKey)))]
#[get("/audit-key")]
pub async fn get_audit_key(pool: web::Data<PgPool>, seed: web::Data<SigningSeed>) -> Result<HttpResponse, ApiError> {
    let key = bundle::signing_key(&pool, seed.0).await?;
    Ok(HttpResponse::Ok().json(AuditKey {
        algorithm: "ed25519".into(),
        public_key: chain::hex(key.verifying_key().as_bytes()),
    }))
}
