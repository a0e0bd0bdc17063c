//! Join codes: a table's organiser hands them out, lists and withdraws them; a phone that types
//! one into `POST /auth/join` becomes a scorer of that table.

use super::answers::Made;
use crate::State;
use actix_web::{delete, get, post, web, HttpRequest, HttpResponse};
use chrono::{DateTime, Duration, Utc};
use rand::Rng;
use serde::{Deserialize, Serialize};

use utoipa::ToSchema;
use uuid::Uuid;

use super::auth::Caller;
use super::error::{ApiError, Problem};
use tablekeeper_service::tables::JoinCodeRow;

#[derive(Serialize, Deserialize, ToSchema)]
pub struct JoinCode {
    /// Type it into `POST /auth/join`.
    #[schema(example = "K7QPM2XD")]
    pub code: String,
    pub table_id: Uuid,
    pub expires_at: DateTime<Utc>,
}

/// A join code the table's organiser handed out, and what became of it.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct IssuedJoinCode {
    #[schema(example = "K7QPM2XD")]
    pub code: String,
    pub table_id: Uuid,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    /// When the organiser withdrew it, directly or by revoking a scorer who joined with it;
    /// null while it stands.
    pub withdrawn_at: Option<DateTime<Utc>>,
    /// Whether it opens the table now: neither expired nor withdrawn.
    pub active: bool,
    /// How many phones joined with it.
    pub joins: i64,
}

impl From<JoinCodeRow> for IssuedJoinCode {
    fn from(row: JoinCodeRow) -> IssuedJoinCode {
        IssuedJoinCode {
            active: row.withdrawn_at.is_none() && row.expires_at > Utc::now(),
            code: row.code,
            table_id: row.table_id,
            created_at: row.created_at,
            expires_at: row.expires_at,
            withdrawn_at: row.withdrawn_at,
            joins: row.joins,
        }
    }
}

/// Letters and digits that cannot be mistaken for one another on a phone keyboard.
const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const CODE_LENGTH: usize = 8;
const CODE_LIFETIME_HOURS: i64 = 12;

/// Mints a join code for the table: a phone that types it into `POST /auth/join` gets a scorer
/// token that can record moves on this table and nothing else. Valid for 12 hours.
///
/// Send an `Idempotency-Key` to retry safely: a retry with the same key gets the first answer
/// (marked `Idempotent-Replayed: true`) and hands out no second code. `Location` is the code's
/// address, where `DELETE` withdraws it.
#[utoipa::path(tag = "tables",
    params(
        ("id" = Uuid, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key returns the first answer and hands out nothing"),
    ),
    security(("bearer" = [])), responses(
    (status = 201, body = JoinCode, headers(
        ("Location" = String, description = "the code's address (`DELETE` withdraws it)"),
        ("Idempotent-Replayed" = Option<String>, description = "`true` when this is the first answer to an earlier request with the same `Idempotency-Key`"),
    )),
    (status = 400, description = "`invalid_idempotency_key`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "`missing_token`, `invalid_token`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: not the table's organiser", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`table_not_found`", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`idempotency_key_reused`: the key was sent for another table", body = Problem, content_type = "application/problem+json"),
))]
#[post("/tables/{id}/join-codes")]
pub async fn create_join_code(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    // The request has no body: the table is all it says.
    let key = super::tables::creation_key(&req, "create_join_code", || serde_json::to_value(*id))?;
    let expires_at = Utc::now() + Duration::hours(CODE_LIFETIME_HOURS);
    let draw = || {
        let mut rng = rand::thread_rng();
        (0..CODE_LENGTH)
            .map(|_| char::from(CODE_ALPHABET[rng.gen_range(0..CODE_ALPHABET.len())]))
            .collect()
    };
    let render = |code: String| {
        let location = format!("/api/v1/tables/{id}/join-codes/{code}");
        Ok(Made::created(&JoinCode {
            code,
            table_id: *id,
            expires_at,
        })?
        .at(location))
    };
    let outcome =
        tablekeeper_service::tables::hand_out_join_code(pool, who, *id, expires_at, key.as_ref(), draw, render).await?;
    super::answers::respond(outcome, |body| {
        body.get("code")
            .and_then(serde_json::Value::as_str)
            .map(|code| format!("/api/v1/tables/{id}/join-codes/{code}"))
    })
}

/// The join codes handed out for the table (its organiser only), newest first, expired and
/// withdrawn ones included, each with how many phones joined with it.
#[utoipa::path(tag = "tables", params(("id" = Uuid, Path)), security(("bearer" = [])), responses(
    (status = 200, body = Vec<IssuedJoinCode>),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: not the table's organiser", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`table_not_found`", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tables/{id}/join-codes")]
pub async fn list_join_codes(
    state: web::Data<State>,
    Caller(who): Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let codes: Vec<IssuedJoinCode> = tablekeeper_service::tables::join_codes(pool, who, *id)
        .await?
        .into_iter()
        .map(IssuedJoinCode::from)
        .collect();
    Ok(HttpResponse::Ok().json(codes))
}

/// Withdraws a join code (the table's organiser only): no phone can join with it from now on.
/// Phones that joined with it keep recording until their scorer is revoked
/// (`DELETE /tables/{id}/scorers/{scorer_id}`). Withdrawing it again changes nothing.
#[utoipa::path(tag = "tables", params(("id" = Uuid, Path), ("code" = String, Path, description = "the code, as handed out or typed (case and dashes do not matter)")), security(("bearer" = [])), responses(
    (status = 200, body = IssuedJoinCode),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: not the table's organiser", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`table_not_found`, `join_code_not_found`", body = Problem, content_type = "application/problem+json"),
))]
#[delete("/tables/{id}/join-codes/{code}")]
pub async fn withdraw_join_code(
    state: web::Data<State>,
    Caller(who): Caller,
    path: web::Path<(Uuid, String)>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let (id, code) = path.into_inner();
    let code = super::input::normalise_code(&code);
    let withdrawn = tablekeeper_service::tables::withdraw_join_code(pool, who, id, &code).await?;
    Ok(HttpResponse::Ok().json(IssuedJoinCode::from(withdrawn)))
}
