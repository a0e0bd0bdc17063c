//! Registration, login, and joining a table with a join code.

use actix_web::{post, web, HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use utoipa::ToSchema;
use uuid::Uuid;

use super::auth::{hash_password, verify_password, Role, Tokens};
use super::error::{ApiError, Problem};
use super::limits::AuthLimiter;
use crate::store;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RegisterRequest {
    #[schema(example = "treasurer@club.example")]
    pub email: String,
    #[schema(example = "Ada")]
    pub name: String,
    /// At least 8 characters.
    #[schema(example = "correct horse battery")]
    pub password: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LoginRequest {
    #[schema(example = "treasurer@club.example")]
    pub email: String,
    #[schema(example = "correct horse battery")]
    pub password: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct JoinRequest {
    /// The join code shown to the organiser (case and dashes do not matter).
    #[schema(example = "K7QP-M2XD")]
    pub code: String,
    /// What the log, the deal view and the ledger call this phone: 1 to 60 characters. Left
    /// out, the phone is `Scorer <n>`, n counting the table's scorers.
    #[schema(example = "Ann's phone")]
    pub name: Option<String>,
}

/// A bearer token.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct TokenResponse {
    pub token: String,
    #[schema(example = "Bearer")]
    pub token_type: String,
    pub expires_at: DateTime<Utc>,
    /// `organiser` or `scorer`.
    #[schema(example = "organiser")]
    pub role: String,
    /// The organiser's user id, or the scorer's table id.
    pub subject: Uuid,
    /// A scorer's own id: the log names what it records `scorer:<scorer_id>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scorer_id: Option<Uuid>,
    /// A scorer's name, as given at the join.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "Ann's phone")]
    pub scorer_name: Option<String>,
    /// A join's receipt: the audit key's signature on the table's chain, which links the
    /// scorer and its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt: Option<crate::service::receipts::Receipt>,
}

fn token_response(tokens: &Tokens, sub: Uuid, role: Role) -> Result<TokenResponse, ApiError> {
    let (token, expires_at) = tokens.issue(sub, role)?;
    Ok(token_response_with(token, expires_at, sub, role))
}

fn token_response_with(token: String, expires_at: DateTime<Utc>, sub: Uuid, role: Role) -> TokenResponse {
    let role = match role {
        Role::Organiser => "organiser",
        Role::Scorer => "scorer",
    };
    TokenResponse {
        token,
        token_type: "Bearer".into(),
        expires_at,
        role: role.into(),
        subject: sub,
        scorer_id: None,
        scorer_name: None,
        receipt: None,
    }
}

fn validate_registration(req: &RegisterRequest) -> Result<(), ApiError> {
    let email = req.email.trim();
    let plausible = email.len() <= 254
        && email
            .split_once('@')
            .is_some_and(|(local, domain)| !local.is_empty() && domain.contains('.'))
        && !email.contains(|c: char| c.is_whitespace() || c.is_control());
    if !plausible {
        return Err(ApiError::unprocessable(
            "invalid_email",
            "that does not look like an email address",
        ));
    }
    if super::input::display_name(&req.name, 100).is_none() {
        return Err(ApiError::unprocessable(
            "invalid_name",
            "a name is 1 to 100 characters, without control characters",
        ));
    }
    let length = req.password.chars().count();
    if !(8..=256).contains(&length) {
        return Err(ApiError::unprocessable(
            "weak_password",
            "a password is 8 to 256 characters",
        ));
    }
    Ok(())
}

/// Registers an organiser and returns a token.
#[utoipa::path(tag = "auth", request_body = RegisterRequest, responses(
    (status = 201, body = TokenResponse),
    (status = 409, description = "`email_taken`", body = Problem, content_type = "application/problem+json"),
    (status = 429, description = "`too_many_requests`: see Retry-After", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`invalid_email`, `invalid_name`, `weak_password`, `unknown_field`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/auth/register")]
pub async fn register(
    http: HttpRequest,
    limiter: web::Data<AuthLimiter>,
    pool: web::Data<PgPool>,
    tokens: web::Data<Tokens>,
    body: web::Json<RegisterRequest>,
) -> Result<HttpResponse, ApiError> {
    limiter.check(&http)?;
    let req = body.into_inner();
    validate_registration(&req)?;
    let hash = hash_password(req.password).await?;
    let mut conn = pool.acquire().await.map_err(store::StoreError::from)?;
    let user = store::users::insert(&mut conn, req.email.trim(), req.name.trim(), &hash).await?;
    Ok(HttpResponse::Created().json(token_response(&tokens, user.id, Role::Organiser)?))
}

/// A hash to check against when the email is unknown, so that both cases take as long.
async fn dummy_hash() -> String {
    static DUMMY: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
    DUMMY
        .get_or_init(|| async { hash_password("not anyone's password".into()).await.unwrap_or_default() })
        .await
        .clone()
}

/// Logs an organiser in.
#[utoipa::path(tag = "auth", request_body = LoginRequest, responses(
    (status = 200, body = TokenResponse),
    (status = 401, description = "`invalid_credentials`", body = Problem, content_type = "application/problem+json"),
    (status = 429, description = "`too_many_requests`: see Retry-After", body = Problem, content_type = "application/problem+json"),
))]
#[post("/auth/login")]
pub async fn login(
    http: HttpRequest,
    limiter: web::Data<AuthLimiter>,
    pool: web::Data<PgPool>,
    tokens: web::Data<Tokens>,
    body: web::Json<LoginRequest>,
) -> Result<HttpResponse, ApiError> {
    limiter.check(&http)?;
    let req = body.into_inner();
    let mut conn = pool.acquire().await.map_err(store::StoreError::from)?;
    let user = store::users::by_email(&mut conn, req.email.trim()).await?;
    drop(conn);
    let hash = match &user {
        Some(u) => u.password_hash.clone(),
        None => dummy_hash().await,
    };
    let valid = verify_password(req.password, hash).await;
    match user {
        Some(user) if valid => Ok(HttpResponse::Ok().json(token_response(&tokens, user.id, Role::Organiser)?)),
        _ => Err(ApiError::unauthorized("invalid_credentials", "wrong email or password")),
    }
}

/// Normalises a typed join code: letters upper-cased, anything but letters and digits (dashes,
/// spaces) dropped.
pub fn normalise_code(code: &str) -> String {
    code.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// Exchanges a join code for a scorer token that records moves on that table only. Every join
/// makes a scorer of its own, named as the phone asks: the log says which scorer recorded,
/// corrected or verified what, and the organiser can revoke one scorer.
#[utoipa::path(tag = "auth", request_body = JoinRequest, responses(
    (status = 200, body = TokenResponse),
    (status = 401, description = "`invalid_join_code`: unknown or expired", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`invalid_name`, `unknown_field`", body = Problem, content_type = "application/problem+json"),
    (status = 429, description = "`too_many_requests`: see Retry-After", body = Problem, content_type = "application/problem+json"),
))]
#[post("/auth/join")]
pub async fn join(
    http: HttpRequest,
    limiter: web::Data<AuthLimiter>,
    pool: web::Data<PgPool>,
    tokens: web::Data<Tokens>,
    keys: web::Data<crate::service::receipts::AuditKeys>,
    body: web::Json<JoinRequest>,
) -> Result<HttpResponse, ApiError> {
    limiter.check(&http)?;
    let code = normalise_code(&body.code);
    let name = match &body.name {
        Some(name) => Some(
            super::input::display_name(name, 60)
                .ok_or_else(|| {
                    ApiError::unprocessable(
                        "invalid_name",
                        "a scorer's name is 1 to 60 characters, without control characters",
                    )
                })?
                .to_owned(),
        ),
        None => None,
    };
    let mut conn = pool.acquire().await.map_err(store::StoreError::from)?;
    let table = store::join_codes::table_for(&mut conn, &code, Utc::now())
        .await?
        .ok_or_else(|| ApiError::unauthorized("invalid_join_code", "that join code is unknown or has expired"))?;
    drop(conn);
    let (scorer, receipt) = crate::service::tables::join_scorer(&pool, &keys, table, name).await?;
    let (token, expires_at) = tokens.issue_for(table, Role::Scorer, Some(scorer.id))?;
    let mut answer = token_response_with(token, expires_at, table, Role::Scorer);
    answer.scorer_id = Some(scorer.id);
    answer.scorer_name = Some(scorer.name);
    answer.receipt = Some(receipt);
    Ok(HttpResponse::Ok().json(answer))
}
