//! Who changed what, when: a session's corrections, rulings, answers to rulings, undos, closes
//! and reopenings, oldest first, as JSON pages or CSV.
//!
//! Handlers parse and render; the use case is `tablekeeper_service::changes`. Read as the
//! session's other reads are (`access::readable_session`).

use actix_web::{get, web, HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tablekeeper_service::changes::{self as use_case, Change, Kind};
use tablekeeper_service::PgPool;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::auth::{Reader, Reads};
use super::error::{ApiError, Problem};
use super::export::{self, Cell};
use super::names::name;
use super::reads::ReadPool;

/// What kind of change.
#[derive(Serialize, Deserialize, ToSchema, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// A finished deal corrected (`PUT /tables/{id}/deals/{n}`).
    Correction,
    /// A director's ruling on a deal.
    Ruling,
    /// A phone's or a member's answer to a ruling (`agree` or `appeal`).
    RulingAnswer,
    /// An entry of a table's log undone.
    Undo,
    /// The session closed: its correction window ran from then.
    Close,
    /// A close reopened by an owner.
    Reopen,
}

impl From<Kind> for ChangeKind {
    fn from(kind: Kind) -> ChangeKind {
        match kind {
            Kind::Correction => ChangeKind::Correction,
            Kind::Ruling => ChangeKind::Ruling,
            Kind::RulingAnswer => ChangeKind::RulingAnswer,
            Kind::Undo => ChangeKind::Undo,
            Kind::Close => ChangeKind::Close,
            Kind::Reopen => ChangeKind::Reopen,
        }
    }
}

impl ChangeKind {
    fn word(self) -> &'static str {
        match self {
            ChangeKind::Correction => "correction",
            ChangeKind::Ruling => "ruling",
            ChangeKind::RulingAnswer => "ruling_answer",
            ChangeKind::Undo => "undo",
            ChangeKind::Close => "close",
            ChangeKind::Reopen => "reopen",
        }
    }
}

/// One change to a session's results.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct ChangeView {
    pub at: DateTime<Utc>,
    pub kind: ChangeKind,
    /// The table whose log holds it; null for a close or a reopening.
    pub table_id: Option<Uuid>,
    /// The deal it is about (1-based); null when none is, or when what is stored does not name
    /// it (an undone move that finished no deal and booked nothing).
    pub deal: Option<i32>,
    /// Its entry in the table's log (`GET /tables/{id}/moves`); for a close or a reopening, the
    /// close's number.
    pub seq: i64,
    /// Who, as the log names a recorder.
    #[schema(example = "scorer:0b8e2c1a-3f4d-4e5f-8a9b-1c2d3e4f5a6b")]
    pub by: String,
    /// The scorer's name, or `organiser`.
    #[schema(example = "Ann's phone")]
    pub by_name: String,
    /// Why: a correction's or a ruling's reason, an answer's comment, a reopening's reason, a
    /// forced close's reason; null when none was given.
    pub reason: Option<String>,
    /// What it did, in words.
    #[schema(example = "corrected deal 2")]
    pub summary: String,
    /// What it changed. A correction: `moves_before` (the moves it replaced, each `{seq, kind,
    /// seat, move}`), `moves_after`, `lines_before` and `lines_after` (the deal's score-sheet
    /// line(s) before it and as it left them) and `bookings` (what it booked, a reversal naming
    /// the booking it `reverses`). A ruling: its diff as `GET …/rulings/{id}` shows it. An answer:
    /// `ruling`, `answer`, `comment`. An undo: `undone` (`seq`, `entry`, `kind`, `move`) and
    /// `bookings` (the reversals it booked). A close or a reopening: `close`, `closed_at`,
    /// `final_at` (and `reopened_at`).
    #[schema(value_type = Object)]
    pub diff: Value,
}

/// A page of a session's changes.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct ChangePage {
    pub session_id: Uuid,
    /// Oldest first; at the same moment, by table, then by seq.
    pub items: Vec<ChangeView>,
    /// The offset of the next page; null on the last page.
    pub next_offset: Option<i64>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ChangesQuery {
    /// 1 to 500; default 100.
    pub limit: Option<i64>,
    pub offset: Option<i64>,
}

/// The columns of the CSV; only ever added to at the end, so a sheet reading them by place
/// still works.
const COLUMNS: [&str; 10] = [
    "at", "kind", "table_id", "deal", "seq", "by", "by_name", "reason", "summary", "diff",
];

/// Every change made to the session's results after they were recorded, oldest first: each
/// correction, director's ruling and answer to one, undo, close and reopening, with who made it,
/// when, why and what it changed.
///
/// The same changes as CSV are `get_session_changes_csv` (`…/changes.csv`, every change).
/// (`Accept: text/csv` here answers the page as CSV, as the older list links do.)
#[utoipa::path(tag = "sessions", security(("bearer" = [])), params(("id" = Uuid, Path), ChangesQuery), responses(
    (status = 200, description = "a page of the changes", body = ChangePage),
    (status = 400, description = "`invalid_query`: an unknown query parameter, a `limit` outside 1 to 500, an `offset` that is not a number", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`session_not_found`: no such session, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
))]
#[get("/sessions/{id}/changes")]
pub async fn list_session_changes(
    pool: ReadPool,
    Reads(who): Reads,
    req: HttpRequest,
    id: web::Path<Uuid>,
    query: web::Query<ChangesQuery>,
) -> Result<HttpResponse, ApiError> {
    let limit = super::input::page_limit(query.limit)?;
    let offset = query.offset.unwrap_or(0).max(0);
    let csv = export::wants_csv(&req, None);
    let (views, more) = changes(&pool, who, *id, limit, offset).await?;
    let next_offset = more.then_some(offset + limit);
    if csv {
        let mut response = respond_csv(*id, &views)?;
        if let Some(next) = next_offset {
            // The next page as CSV too: the same request, moved on.
            let link = super::input::next_link(&req, "offset", next);
            let link = actix_web::http::header::HeaderValue::from_str(&link).map_err(|e| {
                tracing::error!(error = %e, "a next page's link");
                ApiError::internal()
            })?;
            response.headers_mut().insert(actix_web::http::header::LINK, link);
        }
        return Ok(response);
    }
    Ok(super::input::page(
        &req,
        "offset",
        next_offset,
        &ChangePage {
            session_id: *id,
            items: views,
            next_offset,
        },
    ))
}

/// Every change made to the session's results as CSV, oldest first: one row per change (at,
/// kind, table, deal, seq, by, by_name, reason, summary, and the diff as JSON).
#[utoipa::path(tag = "sessions", security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 200, description = "a header row, then a row per change", content((String = "text/csv", example = "at,kind,table_id,deal,seq,by,by_name,reason,summary,diff\r\n2026-12-04T21:40:00+00:00,correction,0b6f…,2,9,scorer:5d0c…,Ann's phone,that was Bob's 4,corrected deal 2,{…}\r\n"))),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`session_not_found`: no such session, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
))]
#[get("/sessions/{id}/changes.csv")]
pub async fn get_session_changes_csv(
    pool: ReadPool,
    Reads(who): Reads,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let (views, _) = changes(&pool, who, *id, i64::MAX, 0).await?;
    respond_csv(*id, &views)
}

/// The session's changes `offset` on, at most `limit`, and whether more follow.
async fn changes(
    pool: &PgPool,
    who: Reader,
    id: Uuid,
    limit: i64,
    offset: i64,
) -> Result<(Vec<ChangeView>, bool), ApiError> {
    tablekeeper_service::access::readable_session(pool, who, id).await?;
    let page = use_case::of_session(pool, id, limit, offset).await?;
    let views = page
        .changes
        .into_iter()
        .map(|c: Change| ChangeView {
            by_name: name(&page.names, &c.by),
            at: c.at,
            kind: c.kind.into(),
            table_id: c.table,
            deal: c.deal,
            seq: c.seq,
            by: c.by,
            reason: c.reason,
            summary: c.summary,
            diff: c.diff,
        })
        .collect();
    Ok((views, page.more))
}

fn respond_csv(session: Uuid, views: &[ChangeView]) -> Result<HttpResponse, ApiError> {
    let header = COLUMNS.map(String::from);
    let rows: Vec<Vec<Cell>> = views
        .iter()
        .map(|c| {
            vec![
                Cell::text(c.at.to_rfc3339()),
                Cell::text(c.kind.word()),
                Cell::text(c.table_id.map(|t| t.to_string()).unwrap_or_default()),
                Cell::opt_int(c.deal.map(i64::from)),
                Cell::int(c.seq),
                Cell::text(c.by.clone()),
                Cell::text(c.by_name.clone()),
                Cell::text(c.reason.clone().unwrap_or_default()),
                Cell::text(c.summary.clone()),
                Cell::text(c.diff.to_string()),
            ]
        })
        .collect();
    export::respond(&format!("session-{session}-changes.csv"), &header, &rows)
}
