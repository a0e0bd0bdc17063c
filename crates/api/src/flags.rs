//! A session's flagged deals, for the director: the results far outside what the deal and the
//! field make likely, and whether each is cleared (verified by a second phone, or ruled on).
//!
//! Handlers parse and render; the rules are `tablekeeper_service::flags`, what clears a deal
//! `tablekeeper_service::closing`. Read as the session's other reads are
//! (`access::readable_session`).

use actix_web::{get, web, HttpResponse};
use serde::{Deserialize, Serialize};
use tablekeeper_service::closing::{self, FlaggedDeal};
use utoipa::ToSchema;
use uuid::Uuid;

use super::auth::Reads;
use super::deals::DealFlag;
use super::error::{ApiError, Problem};
use super::reads::ReadPool;

/// A flagged deal of the session.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct FlaggedDealView {
    pub table_id: Uuid,
    /// 1-based, as on the score sheet (`GET /tables/{id}/deals/{n}`).
    pub deal: u16,
    /// Each rule the deal trips, with why.
    pub flags: Vec<DealFlag>,
    /// A second phone (or the organiser) agreed with the deal as it stands; a correction asks
    /// for it again.
    pub verified: bool,
    /// A director ruled on the deal.
    pub ruled: bool,
    /// Verified or ruled on: it no longer holds up the session's close.
    pub cleared: bool,
}

impl From<FlaggedDeal> for FlaggedDealView {
    fn from(f: FlaggedDeal) -> FlaggedDealView {
        FlaggedDealView {
            cleared: f.cleared(),
            table_id: f.table,
            deal: f.deal,
            flags: f.flags.into_iter().map(DealFlag::from).collect(),
            verified: f.verified,
            ruled: f.ruled,
        }
    }
}

/// The session's flagged deals, table by table, deal 1 first: each with the rules it trips and
/// why, and whether it is cleared. A flagged deal not cleared stops the session's close
/// (`409 flags_unverified`) unless the close is forced with a reason. An evening without
/// anything improbable answers an empty list.
#[utoipa::path(tag = "sessions", security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 200, body = Vec<FlaggedDealView>),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`session_not_found`: no such session, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`table_damaged`: what is stored of a table no longer reads; the problem names it", body = Problem, content_type = "application/problem+json"),
))]
#[get("/sessions/{id}/flags")]
pub async fn list_session_flags(
    pool: ReadPool,
    Reads(who): Reads,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    tablekeeper_service::access::readable_session(&pool, who, *id).await?;
    let flagged: Vec<FlaggedDealView> = closing::flagged(&pool, *id)
        .await?
        .into_iter()
        .map(FlaggedDealView::from)
        .collect();
    Ok(HttpResponse::Ok().json(flagged))
}
