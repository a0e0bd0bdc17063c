//! Personal API tokens: an account's long-lived bearer tokens for integrations, each limited to
//! one club and some scopes (`read`, `record`, `organise`, `treasury`), made, listed and revoked
//! by the account signed in with its password. The secret is in the answer that made the token
//! and nowhere else.

use super::answers::Made;
use crate::State;
use actix_web::{delete, get, post, web, HttpRequest, HttpResponse};
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use utoipa::ToSchema;
use uuid::Uuid;

use super::auth::Caller;
use super::error::{ApiError, Problem};
use super::sessions::PageQuery;
use tablekeeper_service::access::Scope;
use tablekeeper_service::api_tokens::ApiToken as TokenRow;
use tablekeeper_service::api_tokens::{self as use_case, NewToken};
use tablekeeper_service::idempotency::CreationKey;

/// The longest a token may be made to stand for: a year (a token may also stand until revoked).
pub const MAX_EXPIRY_DAYS: i64 = 366;

#[derive(Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateApiToken {
    /// What the token is for, 1 to 100 characters.
    #[schema(example = "Club website")]
    pub name: String,
    /// The one club the token acts in: one the caller is a member of.
    pub club_id: Uuid,
    /// Some of `read`, `record` (moves, undos, corrections, verifications), `organise`
    /// (sessions, tables, join codes, share links) and `treasury` (exports, settlement,
    /// verifications), each allowed by the caller's role in the club.
    #[schema(example = json!(["read"]))]
    pub scopes: Vec<String>,
    /// 1 to 366; left out, the token stands until it is revoked.
    pub expires_in_days: Option<i64>,
}

/// A personal API token as listed: everything but its secret.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct ApiToken {
    pub id: Uuid,
    #[schema(example = "Club website")]
    pub name: String,
    pub club_id: Uuid,
    #[schema(example = json!(["read"]))]
    pub scopes: Vec<String>,
    /// The token's first characters (`tk_` and its public id), to tell it apart.
    #[schema(example = "tk_3f9a0c51d2e7")]
    pub prefix: String,
    pub created_at: DateTime<Utc>,
    /// When it was last used (to the minute); null if never.
    pub last_used_at: Option<DateTime<Utc>>,
    /// When it stops working; null: when it is revoked.
    pub expires_at: Option<DateTime<Utc>>,
    /// When it was revoked; it is refused from then on.
    pub revoked_at: Option<DateTime<Utc>>,
}

/// A token just made, with its secret: shown this once, kept nowhere.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct CreatedApiToken {
    #[serde(flatten)]
    pub token: ApiToken,
    /// The bearer token (`Authorization: Bearer tk_…`). Absent from an answer replayed under an
    /// `Idempotency-Key`: the secret is not kept, so revoke that token and make another.
    #[schema(example = "tk_3f9a0c51d2e7…")]
    pub secret: Option<String>,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct ApiTokenPage {
    pub items: Vec<ApiToken>,
    pub next_offset: Option<i64>,
}

impl From<TokenRow> for ApiToken {
    fn from(row: TokenRow) -> ApiToken {
        ApiToken {
            id: row.id,
            name: row.name,
            club_id: row.club_id,
            scopes: row.scopes,
            prefix: format!("{}{}", use_case::TOKEN_PREFIX, row.prefix),
            created_at: row.created_at,
            last_used_at: row.last_used_at,
            expires_at: row.expires_at,
            revoked_at: row.revoked_at,
        }
    }
}

const TOKEN_401: &str = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`";
const TOKEN_403: &str =
    "`forbidden`: a scorer token; `token_scope`: a personal API token (only a password's token manages tokens); `share_link_read_only`";

/// Makes a personal API token for an integration.
///
/// The token acts in one club the caller is a member of, with the scopes asked for (each one the
/// caller's role there allows), until it expires or is revoked; at each use it is also held to
/// the caller's role at that time. The secret is in this answer only. Send an
/// `Idempotency-Key` to retry safely: a retry with the same key and body gets the first answer
/// (marked `Idempotent-Replayed: true`, without the secret) and makes no second token.
#[utoipa::path(tag = "tokens", request_body = CreateApiToken, security(("bearer" = [])),
    params(
        ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key and body returns the first answer (without the secret) and makes nothing"),
    ),
    responses(
    (status = 201, body = CreatedApiToken, headers(
        ("Location" = String, description = "the token's address"),
        ("Idempotent-Replayed" = Option<String>, description = "`true` when this is the first answer to an earlier request with the same `Idempotency-Key`"),
    )),
    (status = 400, description = "`malformed_json`, `invalid_idempotency_key`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = TOKEN_401, body = Problem, content_type = "application/problem+json"),
    (status = 403, description = TOKEN_403, body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found`: no such club, or the caller is not a member of it", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`invalid_name`, `unknown_scope`, `invalid_scopes`, `invalid_expiry`, `scope_beyond_role`, `unknown_field`, `invalid_body`, `idempotency_key_reused`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/tokens")]
pub async fn create_api_token(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    body: web::Json<CreateApiToken>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let account = who.organiser()?;
    account.password_only("make tokens")?;
    let name = super::input::display_name(&body.name, 100).ok_or_else(|| {
        ApiError::unprocessable(
            "invalid_name",
            "a token's name is 1 to 100 characters, without control characters",
        )
    })?;
    let scopes = scopes(&body.scopes)?;
    let expires_at = match body.expires_in_days {
        None => None,
        Some(days) if (1..=MAX_EXPIRY_DAYS).contains(&days) => Some(Utc::now() + Duration::days(days)),
        Some(days) => {
            return Err(ApiError::unprocessable(
                "invalid_expiry",
                format!("expires_in_days is 1 to {MAX_EXPIRY_DAYS}, not {days}"),
            ))
        }
    };
    let key = super::answers::idempotency_key(&req)?
        .map(|key| serde_json::to_value(&*body).map(|sent| CreationKey::new("create_api_token", key, &sent)))
        .transpose()
        .map_err(|_| ApiError::internal())?;
    // The secret joins the answer as it is sent; the answer kept under the key goes without it.
    let render = |row: TokenRow, secret| {
        let token = ApiToken::from(row);
        let location = format!("/api/v1/tokens/{}", token.id);
        let kept = CreatedApiToken { token, secret: None };
        let made = Made::created(&kept)?.at(location);
        made.sending(&CreatedApiToken {
            secret: Some(secret),
            ..kept
        })
    };
    let outcome = use_case::create(
        pool,
        account,
        NewToken {
            name,
            club: body.club_id,
            scopes: &scopes,
            expires_at,
        },
        key.as_ref(),
        render,
    )
    .await?;
    super::answers::created(outcome, "/api/v1/tokens")
}

/// The scopes named, each once, or the problem with them.
fn scopes(names: &[String]) -> Result<Vec<Scope>, ApiError> {
    if names.is_empty() {
        return Err(ApiError::unprocessable(
            "invalid_scopes",
            "a token needs at least one scope: `read`, `record`, `organise` or `treasury`",
        ));
    }
    let mut scopes = Vec::new();
    for name in names {
        let scope = Scope::parse(name).ok_or_else(|| {
            ApiError::unprocessable(
                "unknown_scope",
                format!("`{name}` is not a scope: a token's scopes are `read`, `record`, `organise` and `treasury`"),
            )
        })?;
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    Ok(scopes)
}

/// The caller's personal API tokens, newest first, revoked and expired ones included.
///
/// Each with its name, club, scopes, public prefix and times; never its secret.
#[utoipa::path(tag = "tokens", params(PageQuery), security(("bearer" = [])), responses(
    (status = 200, body = ApiTokenPage),
    (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = TOKEN_401, body = Problem, content_type = "application/problem+json"),
    (status = 403, description = TOKEN_403, body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`invalid_limit`", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tokens")]
pub async fn list_api_tokens(
    req: actix_web::HttpRequest,
    state: web::Data<State>,
    Caller(who): Caller,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let user = who.organiser()?;
    let limit = super::input::page_limit(query.limit)?;
    let offset = query.offset.unwrap_or(0).max(0);
    let rows = use_case::list(pool, user, limit + 1, offset).await?;
    let more = rows.len() as i64 > limit;
    let next = more.then_some(offset + limit);
    let page = ApiTokenPage {
        items: rows.into_iter().take(limit as usize).map(ApiToken::from).collect(),
        next_offset: next,
    };
    Ok(super::input::page(&req, "offset", next, &page))
}

/// Revokes one of the caller's personal API tokens.
///
/// From now on the token is refused with 401 `token_revoked`. Revoking it again changes nothing.
#[utoipa::path(tag = "tokens", params(("id" = Uuid, Path)), security(("bearer" = [])), responses(
    (status = 204, description = "revoked"),
    (status = 401, description = TOKEN_401, body = Problem, content_type = "application/problem+json"),
    (status = 403, description = TOKEN_403, body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`api_token_not_found`: no such token of the caller's", body = Problem, content_type = "application/problem+json"),
))]
#[delete("/tokens/{id}")]
pub async fn revoke_api_token(
    state: web::Data<State>,
    Caller(who): Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let user = who.organiser()?;
    use_case::revoke(pool, user, *id).await?;
    Ok(HttpResponse::NoContent().finish())
}
