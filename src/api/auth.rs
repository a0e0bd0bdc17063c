//! Bearer tokens (HS256 JWTs) and the `Principal` extractor.
//!
//! Two kinds of principal: an organiser (a registered user), who owns sessions and tables, and
//! a scorer, whose token was minted from a join code and records moves on one table only.

use std::future::Future;
use std::pin::Pin;

use actix_web::{web, FromRequest, HttpRequest};
use argon2::password_hash::{rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use chrono::{Duration, Utc};
use jsonwebtoken::{decode, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use uuid::Uuid;

use super::error::ApiError;
use crate::store::StoreError;

/// What a token says about its bearer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    /// The user id, or the join code's table for a scorer.
    pub sub: Uuid,
    pub role: Role,
    pub iat: i64,
    pub exp: i64,
    /// A scorer token's scorer (each join makes one); absent from tokens minted before scorers
    /// had identities, which then stand for the table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scorer: Option<Uuid>,
    /// Not before: tokens this service issues leave it out, but one that says so is honoured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nbf: Option<i64>,
}

/// How far in the future `iat` or `nbf` may lie (clock skew between machines) before a token is refused.
pub const CLOCK_SKEW_SECONDS: i64 = 60;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Organiser,
    Scorer,
}

/// Signs and checks tokens.
#[derive(Clone)]
pub struct Tokens {
    encoding: EncodingKey,
    decoding: DecodingKey,
    ttl: Duration,
}

impl Tokens {
    pub fn new(secret: &[u8], ttl: Duration) -> Tokens {
        Tokens {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            ttl,
        }
    }

    /// # Errors
    /// Only if signing fails, which HS256 does not.
    pub fn issue(&self, sub: Uuid, role: Role) -> Result<(String, chrono::DateTime<Utc>), ApiError> {
        self.issue_for(sub, role, None)
    }

    /// A token, for a scorer naming its scorer id.
    ///
    /// # Errors
    /// Only if signing fails, which HS256 does not.
    pub fn issue_for(
        &self,
        sub: Uuid,
        role: Role,
        scorer: Option<Uuid>,
    ) -> Result<(String, chrono::DateTime<Utc>), ApiError> {
        let now = Utc::now();
        let expires = now + self.ttl;
        let claims = Claims {
            sub,
            role,
            scorer,
            iat: now.timestamp(),
            exp: expires.timestamp(),
            nbf: None,
        };
        let token = encode(&Header::new(Algorithm::HS256), &claims, &self.encoding).map_err(|e| {
            tracing::error!(error = %e, "token signing failed");
            ApiError::internal()
        })?;
        Ok((token, expires))
    }

    fn check(&self, token: &str) -> Result<Claims, ApiError> {
        // HS256 only: a token claiming `none` or any other algorithm is refused.
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 5;
        validation.set_required_spec_claims(&["exp", "sub"]);
        let claims = decode::<Claims>(token, &self.decoding, &validation)
            .map(|data| data.claims)
            .map_err(|e| match e.kind() {
                jsonwebtoken::errors::ErrorKind::ExpiredSignature => {
                    ApiError::unauthorized("token_expired", "the bearer token has expired; log in again")
                }
                _ => ApiError::unauthorized("invalid_token", "the bearer token is not valid"),
            })?;
        // A token issued, or valid only, in the future was not made by this service's clock:
        // refuse it rather than let it live longer than its lifetime says.
        let latest = Utc::now().timestamp() + CLOCK_SKEW_SECONDS;
        if claims.iat > latest || claims.nbf.is_some_and(|nbf| nbf > latest) {
            return Err(ApiError::unauthorized(
                "invalid_token",
                "the bearer token is not valid yet (issued or valid from a time in the future)",
            ));
        }
        Ok(claims)
    }
}

/// An extractor's future (actix runs extractors on one thread).
type LocalBoxFuture<T> = Pin<Box<dyn Future<Output = T>>>;

// The caller is the application layer's notion (it checks who may record); here it is extracted.
pub use crate::service::Principal;

impl Principal {
    /// The organiser's user id, or 403 for a scorer token.
    ///
    /// # Errors
    /// 403 `forbidden` for scorers.
    pub fn organiser(self) -> Result<Uuid, ApiError> {
        match self {
            Principal::Organiser { user } => Ok(user),
            Principal::Scorer { .. } => Err(ApiError::forbidden("a scorer token can only record moves on its table")),
        }
    }
}

/// The principal a request's token names, signature and times checked; a scorer's revocation
/// is checked by [`principal`].
fn claimed(req: &HttpRequest) -> Result<Principal, ApiError> {
    let header = req
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .ok_or_else(|| {
            ApiError::unauthorized("missing_token", "this needs a bearer token (Authorization: Bearer …)")
        })?;
    let token = header
        .to_str()
        .ok()
        .and_then(|h| h.strip_prefix("Bearer ").or_else(|| h.strip_prefix("bearer ")))
        .ok_or_else(|| ApiError::unauthorized("invalid_token", "the Authorization header must be `Bearer <token>`"))?;
    let tokens = req.app_data::<web::Data<Tokens>>().ok_or_else(ApiError::internal)?;
    let claims = tokens.check(token.trim())?;
    Ok(match claims.role {
        Role::Organiser => Principal::Organiser { user: claims.sub },
        Role::Scorer => Principal::Scorer {
            table: claims.sub,
            scorer: claims.scorer,
        },
    })
}

/// The request's principal: a scorer the organiser revoked is refused with 401
/// `scorer_revoked`, however long its token has to run.
async fn principal(req: HttpRequest) -> Result<Principal, ApiError> {
    let who = claimed(&req)?;
    // Checked here with a read of its own; a move checks it in the read it makes anyway.
    if let Principal::Scorer {
        table,
        scorer: Some(id),
    } = who
    {
        let pool = req.app_data::<web::Data<PgPool>>().ok_or_else(ApiError::internal)?;
        let mut conn = pool.acquire().await.map_err(StoreError::from)?;
        if !crate::store::scorers::is_active(&mut conn, table, id).await? {
            return Err(ApiError::unauthorized(
                "scorer_revoked",
                "this scorer was revoked by the table's organiser; ask for a new join code",
            ));
        }
    }
    Ok(who)
}

impl FromRequest for Principal {
    type Error = ApiError;
    type Future = LocalBoxFuture<Result<Principal, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        Box::pin(principal(req.clone()))
    }
}

/// The principal a valid token names, a revoked scorer included: for a handler whose own read
/// of the table refuses a revoked scorer (`ServiceError::ScorerRevoked`), sparing a move a
/// round trip.
pub struct Claimed(pub Principal);

impl FromRequest for Claimed {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Claimed, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        std::future::ready(claimed(req).map(Claimed))
    }
}

/// An optional bearer: absent is fine, present must be valid.
pub struct MaybePrincipal(pub Option<Principal>);

impl FromRequest for MaybePrincipal {
    type Error = ApiError;
    type Future = LocalBoxFuture<Result<MaybePrincipal, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let present = req.headers().contains_key(actix_web::http::header::AUTHORIZATION);
        let req = req.clone();
        Box::pin(async move {
            if present {
                principal(req).await.map(|p| MaybePrincipal(Some(p)))
            } else {
                Ok(MaybePrincipal(None))
            }
        })
    }
}

/// Hashes a password with argon2id off the async workers.
///
/// # Errors
/// 500 if hashing fails.
pub async fn hash_password(password: String) -> Result<String, ApiError> {
    web::block(move || {
        let salt = SaltString::generate(&mut OsRng);
        Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
    })
    .await
    .map_err(|_| ApiError::internal())?
    .map_err(|e| {
        tracing::error!(error = %e, "password hashing failed");
        ApiError::internal()
    })
}

/// Checks a password against a stored argon2 hash, off the async workers.
pub async fn verify_password(password: String, hash: String) -> bool {
    web::block(move || {
        PasswordHash::new(&hash)
            .map(|parsed| Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
            .unwrap_or(false)
    })
    .await
    .unwrap_or(false)
}
