//! Registration, login, and joining a table with a join code.

use crate::State;
use actix_web::http::StatusCode;
use actix_web::{post, web, HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tablekeeper_service::PgPool;
use utoipa::ToSchema;
use uuid::Uuid;

use super::auth::{OrganiserToken, Role, Tokens};
use super::error::{ApiError, Problem};
use tablekeeper_service::accounts::{self, User};
use tablekeeper_service::idempotency::{Answer, CreationKey, Kept, Outcome};
use tablekeeper_service::passwords;
use tablekeeper_service::{ServiceError, StoreError};

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
pub struct ChangePasswordRequest {
    /// The password in force, to show the holder of the token knows it.
    #[schema(example = "correct horse battery")]
    pub old_password: String,
    /// 8 to 256 characters.
    #[schema(example = "battery staple horse")]
    pub new_password: String,
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
    pub receipt: Option<tablekeeper_service::receipts::Receipt>,
}

/// An organiser's token, of the user's current generation.
fn token_response(tokens: &Tokens, user: &User) -> Result<TokenResponse, ApiError> {
    let (token, expires_at) = tokens.issue(user.id, user.token_generation)?;
    Ok(token_response_with(token, expires_at, user.id, Role::Organiser))
}

fn token_response_with(token: String, expires_at: DateTime<Utc>, sub: Uuid, role: Role) -> TokenResponse {
    let role = match role {
        Role::Organiser => "organiser",
        Role::Scorer => "scorer",
        Role::Share => "share",
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

/// A new password is 8 to 256 characters.
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
    passwords::acceptable(&req.password).map_err(ApiError::from)
}

/// A sign-in answer: the answer kept under an `Idempotency-Key`, which is all of it but the
/// bearer token and its expiry, and the answer itself, to which [`signed_in`] adds the token it
/// issues for each answer sent. A token kept in the database would be a credential in every copy
/// of it.
struct SignIn {
    kept: Answer,
    answer: TokenResponse,
}

impl Kept for SignIn {
    fn answer(&self) -> &Answer {
        &self.kept
    }
}

impl SignIn {
    /// `answer` (whose token and expiry are not read) answered with `status`.
    fn new(status: StatusCode, answer: TokenResponse) -> Result<SignIn, serde_json::Error> {
        let mut kept = serde_json::to_value(&answer)?;
        if let Value::Object(fields) = &mut kept {
            fields.remove("token");
            fields.remove("expires_at");
        }
        Ok(SignIn {
            kept: Answer {
                status: status.as_u16(),
                body: serde_json::to_string(&kept)?,
            },
            answer,
        })
    }
}

/// The answer to send for a sign-in, first or replayed: the answer with the token `issue` makes
/// for it (from the answer, or from the kept one's fields).
fn signed_in(
    outcome: Outcome<SignIn>,
    issue: impl FnOnce(&Map<String, Value>) -> Result<(String, DateTime<Utc>), ApiError>,
) -> Result<HttpResponse, ApiError> {
    let (status, fields, replayed) = match outcome {
        Outcome::Fresh(made) => match serde_json::to_value(&made.answer) {
            Ok(Value::Object(fields)) => (made.kept.status, fields, false),
            _ => return Err(ApiError::internal()),
        },
        Outcome::Replayed(kept) => (
            kept.status,
            serde_json::from_str(&kept.body).map_err(|_| ApiError::internal())?,
            true,
        ),
    };
    let mut fields: Map<String, Value> = fields;
    let (token, expires_at) = issue(&fields)?;
    fields.insert("token".into(), Value::String(token));
    fields.insert("expires_at".into(), json!(expires_at));
    let full: TokenResponse = serde_json::from_value(Value::Object(fields)).map_err(|_| ApiError::internal())?;
    let body = serde_json::to_string(&full).map_err(|_| ApiError::internal())?;
    Ok(super::answers::reply(status, body, None, replayed))
}

/// The answer to a registration retried under `key`, when one with the key registered the
/// account `req` names. Its password is checked against the account's, as a login checks it:
/// the fingerprint the key keeps leaves the password out (see `service::accounts`), and a
/// replay hands out a token, so only a caller who could log in gets one.
///
/// # Errors
/// 422 `idempotency_key_reused` when the registration under the key sent another name, or the
/// password is not the account's (another body, or a password changed since).
async fn replay_registration(
    pool: &PgPool,
    tokens: &Tokens,
    key: &CreationKey,
    req: &RegisterRequest,
) -> Result<Option<HttpResponse>, ApiError> {
    let Some((first, user)) = accounts::registered(pool, req.email.trim(), key).await? else {
        return Ok(None);
    };
    if !passwords::verify(req.password.clone(), user.password_hash.clone()).await {
        return Err(ServiceError::IdempotencyKeyReused.into());
    }
    signed_in(first, |_| tokens.issue(user.id, user.token_generation)).map(Some)
}

/// Registers an organiser and returns a token.
///
/// Send an `Idempotency-Key` to retry safely: a retry with the same key and body gets the first
/// answer (marked `Idempotent-Replayed: true`, with a token of its own: the first is kept
/// nowhere) and registers nothing. Whoever registers has no account yet, so a key is the
/// email's: the same key with another email is another registration, and with the same email
/// but another name or password it is `422 idempotency_key_reused`. The retry's password is
/// checked as a login checks it, so a replay hands a token only to whoever could log in.
#[utoipa::path(tag = "auth", request_body = RegisterRequest, security(()),
    params(
        ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key and body returns the first answer (with a new token) and registers nothing; the key is the email's"),
    ),
    responses(
    (status = 201, body = TokenResponse, headers(
        ("Idempotent-Replayed" = Option<String>, description = "`true` when this is the first answer to an earlier request with the same `Idempotency-Key`"),
    )),
    (status = 400, description = "`malformed_json`, `invalid_idempotency_key`", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`email_taken`", body = Problem, content_type = "application/problem+json"),
    (status = 429, description = "`too_many_requests`: see Retry-After", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`invalid_email`, `invalid_name`, `weak_password`, `unknown_field`, `idempotency_key_reused`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/auth/register")]
pub async fn register(
    http: HttpRequest,
    state: web::Data<State>,
    body: web::Json<RegisterRequest>,
) -> Result<HttpResponse, ApiError> {
    let limiter = &state.limiter;
    let pool = &state.pool;
    let tokens = &state.tokens;
    limiter.check(&http)?;
    let req = body.into_inner();
    validate_registration(&req)?;
    // The password stays out of the key's fingerprint, a fast hash: `replay_registration`
    // checks a retry's against the account's argon2 hash instead.
    let key = super::tables::creation_key(&http, "register", || Ok(json!({"email": req.email, "name": req.name})))?;
    if let Some(key) = &key {
        if let Some(answer) = replay_registration(pool, tokens, key, &req).await? {
            return Ok(answer);
        }
    }
    let hash = passwords::hash(req.password.clone()).await?;
    let render = |user: &User| {
        SignIn::new(
            StatusCode::CREATED,
            token_response_with(String::new(), user.created_at, user.id, Role::Organiser),
        )
    };
    match accounts::register(pool, req.email.trim(), req.name.trim(), &hash, key.as_ref(), render).await {
        Ok((outcome, user)) => signed_in(outcome, |_| tokens.issue(user.id, user.token_generation)),
        Err(ServiceError::Store(StoreError::EmailTaken)) => {
            // A request racing with this one under the same key may have registered first.
            let replay = match &key {
                Some(key) => replay_registration(pool, tokens, key, &req).await?,
                None => None,
            };
            replay.ok_or_else(|| StoreError::EmailTaken.into())
        }
        Err(e) => Err(e.into()),
    }
}

/// Logs an organiser in.
#[utoipa::path(tag = "auth", request_body = LoginRequest, security(()), responses(
    (status = 200, body = TokenResponse),
    (status = 401, description = "`invalid_credentials`", body = Problem, content_type = "application/problem+json"),
    (status = 429, description = "`too_many_requests`: see Retry-After", body = Problem, content_type = "application/problem+json"),
))]
#[post("/auth/login")]
pub async fn login(
    http: HttpRequest,
    state: web::Data<State>,
    body: web::Json<LoginRequest>,
) -> Result<HttpResponse, ApiError> {
    let limiter = &state.limiter;
    let pool = &state.pool;
    let tokens = &state.tokens;
    limiter.check(&http)?;
    let req = body.into_inner();
    let user = accounts::log_in(pool, req.email.trim(), req.password).await?;
    Ok(HttpResponse::Ok().json(token_response(tokens, &user)?))
}

/// Exchanges a join code for a scorer token that records moves on that table only.
///
/// Every join makes a scorer of its own, named as the phone asks: the log says which scorer
/// recorded, corrected or verified what, and the organiser can revoke one scorer.
///
/// Send an `Idempotency-Key` to retry safely: a retry with the same key and body gets the first
/// answer (marked `Idempotent-Replayed: true`, the same scorer and receipt, with a token of its
/// own: the first is kept nowhere) and makes no second scorer, while the code stands. A scorer
/// is no account, so the key is the code's table's, shared with its moves and kept as long
/// (`IDEMPOTENCY_RETENTION_SECS`); another body under it is `422 idempotency_key_reused`. A
/// replay names the first phone's scorer to whoever sends the code, the name and the key: make
/// the key a random one (a UUID) and keep it to the phone.
#[utoipa::path(tag = "auth", request_body = JoinRequest, security(()),
    params(
        ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key and body returns the first answer (with a new token) and makes no scorer; the key is the table's, kept as a move's"),
    ),
    responses(
    (status = 200, body = TokenResponse, headers(
        ("Idempotent-Replayed" = Option<String>, description = "`true` when this is the first answer to an earlier request with the same `Idempotency-Key`"),
    )),
    (status = 400, description = "`malformed_json`, `invalid_idempotency_key`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "`invalid_join_code`: unknown, expired or withdrawn (revoking a scorer withdraws the code it joined with)", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`session_final`: the table's session is final, so no scorer joins it", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`invalid_name`, `unknown_field`, `idempotency_key_reused`", body = Problem, content_type = "application/problem+json"),
    (status = 429, description = "`too_many_requests`: see Retry-After", body = Problem, content_type = "application/problem+json"),
))]
#[post("/auth/join")]
pub async fn join(
    http: HttpRequest,
    state: web::Data<State>,
    body: web::Json<JoinRequest>,
) -> Result<HttpResponse, ApiError> {
    let limiter = &state.limiter;
    let pool = &state.pool;
    let tokens = &state.tokens;
    let keys = &state.keys;
    limiter.check(&http)?;
    let code = super::input::normalise_code(&body.code);
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
    let key = super::tables::creation_key(&http, "join", || Ok(json!({"code": code, "name": body.name})))?;
    let table = tablekeeper_service::tables::joined_by(pool, &code).await?;
    let render = |scorer: tablekeeper_service::tables::ScorerRow, receipt| {
        let mut answer = token_response_with(String::new(), scorer.created_at, table, Role::Scorer);
        answer.scorer_id = Some(scorer.id);
        answer.scorer_name = Some(scorer.name);
        answer.receipt = Some(receipt);
        SignIn::new(StatusCode::OK, answer)
    };
    let joining = tablekeeper_service::tables::Joining {
        table,
        name,
        code: &code,
        now: state.clock.now(),
    };
    let outcome = tablekeeper_service::tables::join_scorer(pool, keys, joining, key.as_ref(), render).await?;
    signed_in(outcome, |kept| {
        let scorer = kept
            .get("scorer_id")
            .and_then(Value::as_str)
            .and_then(|id| id.parse().ok())
            .ok_or_else(ApiError::internal)?;
        tokens.issue_for(table, scorer)
    })
}

/// Signs this token out: it is refused from now on with `401 token_revoked`, the organiser's
/// other tokens stand. A token issued before tokens had ids can only be signed out with all of
/// its user's tokens, so that is what signing it out does.
#[utoipa::path(tag = "auth", security(("bearer" = [])), responses(
    (status = 204, description = "signed out"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token (its organiser revokes a scorer)", body = Problem, content_type = "application/problem+json"),
))]
#[post("/auth/logout")]
pub async fn logout(state: web::Data<State>, token: OrganiserToken) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let expires_at = DateTime::from_timestamp(token.claims.exp, 0).unwrap_or_else(Utc::now);
    accounts::sign_out(pool, token.user, token.claims.jti, expires_at).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Signs out every token of this organiser, this one included, on every phone and browser:
/// each is refused from now on with `401 token_revoked`. Log in again for a new one.
#[utoipa::path(tag = "auth", security(("bearer" = [])), responses(
    (status = 204, description = "every token signed out"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token", body = Problem, content_type = "application/problem+json"),
))]
#[post("/auth/logout-everywhere")]
pub async fn logout_everywhere(state: web::Data<State>, token: OrganiserToken) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    accounts::sign_out_everywhere(pool, token.user).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Changes the organiser's password, given the one in force. Every token issued before is
/// signed out (a stolen one included); the answer is a fresh token for the caller.
#[utoipa::path(tag = "auth", request_body = ChangePasswordRequest, security(("bearer" = [])), responses(
    (status = 200, body = TokenResponse),
    (status = 400, description = "`malformed_json`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`wrong_password`: the old password is not the one in force; `forbidden`: a scorer token", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`weak_password`, `unknown_field`", body = Problem, content_type = "application/problem+json"),
    (status = 429, description = "`too_many_requests`: see Retry-After", body = Problem, content_type = "application/problem+json"),
))]
#[post("/auth/password")]
pub async fn change_password(
    http: HttpRequest,
    state: web::Data<State>,
    token: OrganiserToken,
    body: web::Json<ChangePasswordRequest>,
) -> Result<HttpResponse, ApiError> {
    let limiter = &state.limiter;
    let pool = &state.pool;
    let tokens = &state.tokens;
    // Limited like a login: the old password is guessed here as well as there.
    limiter.check(&http)?;
    let req = body.into_inner();
    let user = accounts::change_password(pool, token.user, req.old_password, req.new_password).await?;
    Ok(HttpResponse::Ok().json(token_response(tokens, &user)?))
}
