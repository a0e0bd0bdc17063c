//! The signed audit bundle of a session, and the public key that checks it.

use crate::State;
use actix_web::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use actix_web::{get, web, HttpResponse};
use serde::{Deserialize, Serialize};

use utoipa::ToSchema;
use uuid::Uuid;

use super::auth::Reads;
use super::error::{ApiError, Problem};
use super::reads::ReadPool;
use tablekeeper_service::{bundle, chain};

/// The key that signs audit bundles and receipts now, and the keys that signed them before.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct AuditKey {
    #[schema(example = "ed25519")]
    pub algorithm: String,
    /// The current key, hex, 32 bytes: give it to `tablekeeper verify FILE --key KEY`.
    pub public_key: String,
    /// The current key's id (the first 16 hex digits of SHA-256 of the public key), as bundles
    /// and receipts name it.
    #[schema(example = "3f9a0c1d2e4b5a69")]
    pub key_id: String,
    /// Every key whose bundles and receipts verify, the current one first: after a rotation,
    /// give `verify` the old key too (`--key NEW --key OLD`).
    pub keys: Vec<PublicAuditKey>,
}

/// A public key of the audit key's, current or earlier.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct PublicAuditKey {
    #[schema(example = "3f9a0c1d2e4b5a69")]
    pub key_id: String,
    #[schema(example = "ed25519")]
    pub algorithm: String,
    /// Hex, 32 bytes.
    pub public_key: String,
    /// Whether it signs now (false: it signed before a rotation).
    pub current: bool,
}

/// Downloads the session's audit bundle: one self-contained JSON file with the session and, for
/// every table, its game, options, players, whole log (voids included), ledger, score sheet and
/// chain head, with the engine's version, signed with Ed25519. Check it at home, without the
/// server, with `tablekeeper verify FILE --key KEY` (the key from `GET /audit-key`).
#[utoipa::path(tag = "sessions", security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 200, description = "the bundle, in canonical JSON (any change of a byte fails verification)", content_type = "application/json", body = Object, headers(("Content-Disposition" = String, description = "`attachment; filename=\"session-<id>-audit-bundle.json\"`"))),
    (status = 404, description = "`session_not_found`: no such session, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`table_damaged`: what is stored of a table no longer reads; the problem names it", body = Problem, content_type = "application/problem+json"),
))]
#[get("/sessions/{id}/audit-bundle")]
pub async fn get_audit_bundle(
    state: web::Data<State>,
    pool: ReadPool,
    Reads(who): Reads,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let primary = &state.pool;
    let keys = &state.keys;
    tablekeeper_service::access::readable_session(&pool, who, *id).await?;
    let key = keys.signing(primary).await?;
    let name = tablekeeper_service::witness::note::log_name(state.public_url.as_deref());
    let bytes = bundle::build(&pool, *id, key, &name).await?;
    Ok(HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, "application/json"))
        .insert_header((
            CONTENT_DISPOSITION,
            format!("attachment; filename=\"session-{id}-audit-bundle.json\""),
        ))
        .body(bytes))
}

/// The public keys that check this server's audit bundles and receipts: the one signing now,
/// and those that signed before a rotation (`AUDIT_PREVIOUS_KEYS`).
#[utoipa::path(tag = "sessions", security(()), responses((status = 200, body = AuditKey)))]
#[get("/audit-key")]
pub async fn get_audit_key(state: web::Data<State>) -> Result<HttpResponse, ApiError> {
    let listed: Vec<PublicAuditKey> = state
        .keys
        .public_keys(&state.pool)
        .await?
        .into_iter()
        .map(|(key_id, key, current)| PublicAuditKey {
            key_id,
            algorithm: "ed25519".into(),
            public_key: chain::hex(key.as_bytes()),
            current,
        })
        .collect();
    let (public_key, key_id) = listed
        .first()
        .map(|k| (k.public_key.clone(), k.key_id.clone()))
        .unwrap_or_default();
    Ok(HttpResponse::Ok().json(AuditKey {
        algorithm: "ed25519".into(),
        public_key,
        key_id,
        keys: listed,
    }))
}
