//! Share links: a session's read-only token for the big screen and for players without
//! accounts, made, listed and revoked by the organisers of the session's club.

use crate::State;
use actix_web::{delete, get, post, web, HttpRequest, HttpResponse};
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use utoipa::ToSchema;
use uuid::Uuid;

use super::auth::{Caller, Tokens};
use super::error::{ApiError, Problem};
use super::sessions::PageQuery;
use tablekeeper_service::share_links;
use tablekeeper_service::share_links::ShareLink as LinkRow;

/// How long a link stands when the organiser does not say: an evening and the morning after.
pub const DEFAULT_EXPIRY_HOURS: i64 = 24;
/// The longest a link may stand: a season.
pub const MAX_EXPIRY_HOURS: i64 = 24 * 366;

#[derive(Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateShareLink {
    /// 1 to 8784 (a year); default 24.
    pub expires_in_hours: Option<i64>,
    /// What the link is for ("Big screen", "Thursday's players"), 1 to 100 characters.
    pub label: Option<String>,
}

/// A share link: its token reads the session, its tables, their moves, scores, ledgers,
/// standings, settlement, bundle and live streams, and writes nothing.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct ShareLink {
    pub id: Uuid,
    pub session_id: Uuid,
    /// The read-only bearer token (also `?access_token=` for streams).
    pub token: String,
    /// The big screen's address with the token: open it on the club's screen.
    pub url: String,
    pub label: Option<String>,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    /// When it was revoked; its token is refused from then on.
    pub revoked_at: Option<DateTime<Utc>>,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct ShareLinkPage {
    pub items: Vec<ShareLink>,
    pub next_offset: Option<i64>,
}

/// Where the page is reached: `PUBLIC_URL`, else the address this request came to.
fn page_base(req: &HttpRequest) -> String {
    let configured = State::of(req).ok().and_then(|state| state.public_url.clone());
    configured.unwrap_or_else(|| {
        let info = req.connection_info();
        format!("{}://{}", info.scheme(), info.host())
    })
}

fn view(req: &HttpRequest, tokens: &Tokens, row: LinkRow) -> Result<ShareLink, ApiError> {
    let token = tokens.issue_share(&row)?;
    Ok(ShareLink {
        url: format!("{}/?share={token}#/board/{}", page_base(req), row.session_id),
        id: row.id,
        session_id: row.session_id,
        token,
        label: row.label,
        created_at: row.created_at,
        expires_at: row.expires_at,
        revoked_at: row.revoked_at,
    })
}

const ORGANISE_403: &str = "`forbidden`: a scorer token, or a member of the club who does not organise; `share_link_read_only`: a share link's token";

/// Makes a share link to the session (its club's organisers and owners): a read-only token,
/// standing until it expires or is revoked. Send an `Idempotency-Key` to retry safely: a retry
/// with the same key and body gets the first answer (marked `Idempotent-Replayed: true`) and
/// makes no second link.
#[utoipa::path(tag = "sessions", params(("id" = Uuid, Path), ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key and body returns the first answer and creates nothing")), request_body = CreateShareLink, security(("bearer" = [])), responses(
    (status = 201, description = "the link", body = ShareLink, headers(
        ("Location" = String, description = "the link's address"),
        ("Idempotent-Replayed" = Option<String>, description = "`true` when this is the first answer to an earlier request with the same `Idempotency-Key`"),
    )),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = ORGANISE_403, body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`session_not_found`: no such session, or not one of the caller's clubs'", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`invalid_expiry`, `invalid_label`, `unknown_field`, `invalid_body`, `idempotency_key_reused`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/sessions/{id}/share-links")]
pub async fn create_share_link(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    id: web::Path<Uuid>,
    body: web::Json<CreateShareLink>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let tokens = &state.tokens;
    let user = who.organiser()?;
    let hours = body.expires_in_hours.unwrap_or(DEFAULT_EXPIRY_HOURS);
    if !(1..=MAX_EXPIRY_HOURS).contains(&hours) {
        return Err(ApiError::unprocessable(
            "invalid_expiry",
            format!("expires_in_hours is 1 to {MAX_EXPIRY_HOURS}, not {hours}"),
        ));
    }
    let label = match &body.label {
        None => None,
        Some(label) => Some(super::input::display_name(label, 100).ok_or_else(|| {
            ApiError::unprocessable(
                "invalid_label",
                "a share link's label is 1 to 100 characters, without control characters",
            )
        })?),
    };
    let key = super::tables::creation_key(&req, "create_share_link", || serde_json::to_value((*id, &*body)))?;
    let render = |row: LinkRow| {
        let link = view(&req, tokens, row).map_err(|e| <serde_json::Error as serde::ser::Error>::custom(e.detail))?;
        let location = format!("/api/v1/sessions/{id}/share-links/{}", link.id);
        Ok(super::answers::Made::created(&link)?.at(location))
    };
    let expires_at = Utc::now() + Duration::hours(hours);
    let outcome = share_links::create(pool, user, *id, label, expires_at, key.as_ref(), render).await?;
    let session = *id;
    super::answers::respond(outcome, |body| {
        body.get("id")
            .and_then(serde_json::Value::as_str)
            .map(|link| format!("/api/v1/sessions/{session}/share-links/{link}"))
    })
}

/// The session's share links, newest first, revoked and expired ones included.
#[utoipa::path(tag = "sessions", params(("id" = Uuid, Path), PageQuery), security(("bearer" = [])), responses(
    (status = 200, body = ShareLinkPage),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = ORGANISE_403, body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`session_not_found`: no such session, or not one of the caller's clubs'", body = Problem, content_type = "application/problem+json"),
))]
#[get("/sessions/{id}/share-links")]
pub async fn list_share_links(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    id: web::Path<Uuid>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let tokens = &state.tokens;
    let user = who.organiser()?;
    let limit = super::input::page_limit(query.limit)?;
    let offset = query.offset.unwrap_or(0).max(0);
    let rows = share_links::list(pool, user, *id, limit + 1, offset).await?;
    let more = rows.len() as i64 > limit;
    let items = rows
        .into_iter()
        .take(limit as usize)
        .map(|row| view(&req, tokens, row))
        .collect::<Result<Vec<_>, _>>()?;
    let next_offset = more.then_some(offset + limit);
    Ok(super::input::page(
        &req,
        "offset",
        next_offset,
        &ShareLinkPage { items, next_offset },
    ))
}

/// Revokes a share link: its token is refused with `401 share_link_revoked` from now on, and
/// streams read with it end. Revoking it again changes nothing.
#[utoipa::path(tag = "sessions", params(("id" = Uuid, Path), ("link_id" = Uuid, Path)), security(("bearer" = [])), responses(
    (status = 204, description = "revoked"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = ORGANISE_403, body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`session_not_found`, `share_link_not_found`", body = Problem, content_type = "application/problem+json"),
))]
#[delete("/sessions/{id}/share-links/{link_id}")]
pub async fn revoke_share_link(
    state: web::Data<State>,
    Caller(who): Caller,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let user = who.organiser()?;
    let (session, link) = path.into_inner();
    share_links::revoke(pool, user, session, link).await?;
    Ok(HttpResponse::NoContent().finish())
}
