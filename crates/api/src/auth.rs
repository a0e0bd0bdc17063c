//! Bearer tokens (HS256 JWTs) and the `Principal` extractor.
//!
//! Two kinds of principal: an account (a registered user), who acts in clubs by role, and a
//! scorer, whose token was minted from a join code and records moves on one table only. A third
//! kind of token only reads: a session's share link ([`Reader`]); anything that writes refuses it
//! with 403 `share_link_read_only`.
//!
//! A personal API token (`tk_…`, opaque, kept hashed) is an account's bearer as well, limited to
//! one club and its scopes: it is taken wherever an account's JWT is, and the request then runs
//! under its grant (see `service::access`). A token cannot sign out, change passwords or make
//! tokens.

use std::future::Future;
use std::pin::Pin;

use actix_web::{web, FromRequest, HttpRequest};
use chrono::{Duration, Utc};
use jsonwebtoken::{decode, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

use uuid::Uuid;

use super::error::ApiError;
use tablekeeper_service::access::TokenStamp;
use tablekeeper_service::StoreError;

/// What a token says about its bearer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    /// The user id, the join code's table for a scorer, the session for a share link.
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
    /// The token's own id, by which it is signed out; absent from tokens minted before
    /// sign-out, which can only be signed out with all of their user's tokens. A share link's
    /// token carries the link's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jti: Option<Uuid>,
    /// An organiser's token generation (absent: 0): signing out everywhere or a new password
    /// moves the user's on, and tokens of an earlier one are refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<i32>,
}

/// How far in the future `iat` or `nbf` may lie (clock skew between machines) before a token is refused.
pub const CLOCK_SKEW_SECONDS: i64 = 60;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Organiser,
    Scorer,
    Share,
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

    /// An organiser's token, of the user's current token generation.
    ///
    /// # Errors
    /// Only if signing fails, which HS256 does not.
    pub fn issue(&self, user: Uuid, generation: i32) -> Result<(String, chrono::DateTime<Utc>), ApiError> {
        self.sign(user, Role::Organiser, None, Some(generation))
    }

    /// A scorer's token for the table, naming its scorer id.
    ///
    /// # Errors
    /// Only if signing fails, which HS256 does not.
    pub fn issue_for(&self, table: Uuid, scorer: Uuid) -> Result<(String, chrono::DateTime<Utc>), ApiError> {
        self.sign(table, Role::Scorer, Some(scorer), None)
    }

    /// A share link's token: the session it reads, the link's id, issued when the link was made
    /// and valid until it expires, so that listing the links gives the same token again.
    ///
    /// # Errors
    /// Only if signing fails, which HS256 does not.
    pub fn issue_share(&self, link: &tablekeeper_service::share_links::ShareLink) -> Result<String, ApiError> {
        let claims = Claims {
            sub: link.session_id,
            role: Role::Share,
            scorer: None,
            iat: link.created_at.timestamp(),
            exp: link.expires_at.timestamp(),
            nbf: None,
            jti: Some(link.id),
            generation: None,
        };
        encode(&Header::new(Algorithm::HS256), &claims, &self.encoding).map_err(|e| {
            tracing::error!(error = %e, "token signing failed");
            ApiError::internal()
        })
    }

    fn sign(
        &self,
        sub: Uuid,
        role: Role,
        scorer: Option<Uuid>,
        generation: Option<i32>,
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
            jti: Some(Uuid::new_v4()),
            generation,
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
pub use tablekeeper_service::Principal;

/// The caller a handler acts for, from its bearer token.
pub struct Caller(pub Principal);

/// A caller that may only read: an account, a phone, or a session's share link.
pub struct Reads(pub Reader);

pub use tablekeeper_service::access::{Account, Grant, Reader};

/// 403 for a share link's token where something would be written or managed.
fn read_only() -> ApiError {
    ApiError::new(
        actix_web::http::StatusCode::FORBIDDEN,
        "share_link_read_only",
        "a share link only reads the session; sign in to change anything",
    )
}

/// The request's bearer token, as sent.
fn bearer(req: &HttpRequest) -> Result<String, ApiError> {
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
    Ok(token.trim().to_owned())
}

/// What a bearer token says, checked: the token's claims, and for a personal API token the
/// [`Grant`] (its one club and scopes) that the account acts under.
struct Bearer {
    claims: Claims,
    grant: Option<Grant>,
}

/// A personal API token's account, as the claims of an organiser's token with the token's grant,
/// when the token stands.
async fn personal(req: &HttpRequest, token: &str) -> Result<Bearer, ApiError> {
    let pool = &crate::State::of(req)?.pool;
    let (user, grant) = tablekeeper_service::api_tokens::authenticate(pool, token, Utc::now()).await?;
    Ok(Bearer {
        claims: Claims {
            sub: user,
            role: Role::Organiser,
            iat: 0,
            exp: i64::MAX,
            scorer: None,
            nbf: None,
            jti: Some(grant.token),
            generation: None,
        },
        grant: Some(grant),
    })
}

/// The claims of `token`, a JWT or a personal API token, checked against revocation.
async fn resolve(req: &HttpRequest, token: &str) -> Result<Bearer, ApiError> {
    if tablekeeper_service::api_tokens::is_api_token(token) {
        return personal(req, token).await;
    }
    let claims = check_token(req, token)?;
    Ok(Bearer {
        claims: stands(req, claims).await?,
        grant: None,
    })
}

fn check_token(req: &HttpRequest, token: &str) -> Result<Claims, ApiError> {
    let tokens = &crate::State::of(req)?.tokens;
    tokens.check(token.trim())
}

/// The principal the bearer names (no revocation checked); a share link's token names none.
fn principal_of(bearer: &Bearer) -> Result<Principal, ApiError> {
    let claims = &bearer.claims;
    match claims.role {
        Role::Organiser => Ok(Principal::Account(match bearer.grant {
            Some(grant) => Account::by_token(claims.sub, grant),
            None => Account::by_password(claims.sub),
        })),
        Role::Scorer => Ok(Principal::Scorer {
            table: claims.sub,
            scorer: claims.scorer,
        }),
        Role::Share => Err(read_only()),
    }
}

/// Who the checked bearer lets read.
fn reader_of(bearer: &Bearer) -> Result<Reader, ApiError> {
    let claims = &bearer.claims;
    match (claims.role, claims.jti) {
        (Role::Share, Some(link)) => Ok(Reader::Share {
            session: claims.sub,
            link,
        }),
        (Role::Share, None) => Err(ApiError::unauthorized("invalid_token", "the bearer token is not valid")),
        _ => principal_of(bearer).map(Reader::Principal),
    }
}

/// Refuses an organiser's token that was signed out (one by one or everywhere, a new password
/// included) with 401 `token_revoked`, and one whose user is gone with `invalid_token`.
async fn check_organiser(req: &HttpRequest, claims: &Claims) -> Result<(), ApiError> {
    let pool = &crate::State::of(req)?.pool;
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    Ok(tablekeeper_service::access::token_stands(&mut conn, claims.sub, stamp(claims)).await?)
}

/// What tells whether the token still stands (a token minted before generations is of the first).
fn stamp(claims: &Claims) -> TokenStamp {
    TokenStamp {
        generation: claims.generation.unwrap_or(0),
        jti: claims.jti,
    }
}

/// The request's claims, checked against revocation: a signed-out organiser token is refused
/// with 401 `token_revoked`, and a scorer the organiser revoked with 401 `scorer_revoked`,
/// however long the token has to run.
async fn checked(req: &HttpRequest) -> Result<Bearer, ApiError> {
    resolve(req, &bearer(req)?).await
}

/// The claims, when the token still stands: also a share link that was revoked (401
/// `share_link_revoked`) or is past the expiry its row now says (401 `share_link_expired`).
async fn stands(req: &HttpRequest, claims: Claims) -> Result<Claims, ApiError> {
    let bearer = Bearer { claims, grant: None };
    match reader_of(&bearer) {
        Ok(Reader::Principal(Principal::Account(_))) => check_organiser(req, &bearer.claims).await?,
        Ok(Reader::Principal(Principal::Scorer {
            table,
            scorer: Some(id),
        })) => {
            let pool = &crate::State::of(req)?.pool;
            if !tablekeeper_service::access::scorer_stands(pool, table, id).await? {
                return Err(ApiError::unauthorized(
                    "scorer_revoked",
                    "this scorer was revoked by the table's organiser; ask for a new join code",
                ));
            }
        }
        Ok(Reader::Principal(Principal::Scorer { scorer: None, .. })) => {}
        Ok(Reader::Share { session, link }) => {
            let pool = &crate::State::of(req)?.pool;
            let row = tablekeeper_service::share_links::standing(pool, link)
                .await
                .map_err(|e| match e {
                    tablekeeper_service::ServiceError::Store(StoreError::NotFound(_)) => {
                        ApiError::unauthorized("invalid_token", "the bearer token is not valid")
                    }
                    e => ApiError::from(e),
                })?;
            if row.session_id != session {
                return Err(ApiError::unauthorized("invalid_token", "the bearer token is not valid"));
            }
        }
        Err(e) => return Err(e),
    }
    Ok(bearer.claims)
}

async fn principal(req: HttpRequest) -> Result<Principal, ApiError> {
    checked(&req).await.and_then(|bearer| principal_of(&bearer))
}

impl FromRequest for Reads {
    type Error = ApiError;
    type Future = LocalBoxFuture<Result<Reads, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move { checked(&req).await.and_then(|bearer| reader_of(&bearer)).map(Reads) })
    }
}

/// A reader of a live stream: `EventSource` cannot send headers, so the token may come as the
/// `access_token` query parameter instead of `Authorization: Bearer`. Only streams take it
/// there: a token in an address ends up in browser histories.
pub struct StreamReader(pub Reader);

#[derive(Deserialize)]
struct AccessTokenParam {
    access_token: Option<String>,
}

impl FromRequest for StreamReader {
    type Error = ApiError;
    type Future = LocalBoxFuture<Result<StreamReader, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let in_query = web::Query::<AccessTokenParam>::from_query(req.query_string())
                .ok()
                .and_then(|q| q.into_inner().access_token);
            let bearer = match in_query {
                Some(token) if !req.headers().contains_key(actix_web::http::header::AUTHORIZATION) => {
                    resolve(&req, token.trim()).await?
                }
                _ => checked(&req).await?,
            };
            reader_of(&bearer).map(StreamReader)
        })
    }
}

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = LocalBoxFuture<Result<Caller, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move { principal(req).await.map(Caller) })
    }
}

/// The principal a valid token names, its standing still to be read: for a move, whose own read
/// of the table refuses a revoked scorer (`ServiceError::ScorerRevoked`) and an account's
/// signed-out token (`TokenSignedOut`, with the token's generation and id given here), sparing
/// it a round trip each. A personal API token is checked here all the same.
pub struct Claimed(pub Principal, pub Option<TokenStamp>);

impl FromRequest for Claimed {
    type Error = ApiError;
    type Future = LocalBoxFuture<Result<Claimed, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let token = bearer(&req)?;
            if tablekeeper_service::api_tokens::is_api_token(&token) {
                return Ok(Claimed(principal_of(&personal(&req, &token).await?)?, None));
            }
            let claims = check_token(&req, &token)?;
            let unread = (claims.role == Role::Organiser).then(|| stamp(&claims));
            Ok(Claimed(principal_of(&Bearer { claims, grant: None })?, unread))
        })
    }
}

/// An organiser's token that stands (not signed out), with its claims: for signing out and
/// changing the password. A scorer's token is 403.
pub struct OrganiserToken {
    pub user: Uuid,
    pub claims: Claims,
}

impl FromRequest for OrganiserToken {
    type Error = ApiError;
    type Future = LocalBoxFuture<Result<OrganiserToken, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let bearer = checked(&req).await?;
            let user = principal_of(&bearer)?
                .organiser()?
                .password_only("sign out or change a password")?;
            Ok(OrganiserToken {
                user,
                claims: bearer.claims,
            })
        })
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
