//! Club sessions: a sitting that groups tables.

use super::answers::Made;
use crate::State;
use actix_web::{get, patch, post, web, HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use tablekeeper_service::PgPool;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::auth::{Caller, Reads};
use super::error::{ApiError, Problem};
use super::reads::ReadPool;
use super::tables::TableSummary;
use tablekeeper_service::idempotency::CreationKey;
use tablekeeper_service::{closing, sessions};

mod close;
mod standings;
pub use close::*;
pub use standings::*;

#[derive(Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateSession {
    #[schema(example = "Thursday club night")]
    pub name: String,
    /// What a chip is worth, for settling up in money; left out, the settle-up is in chips only.
    pub chip_value: Option<ChipValue>,
    /// The club the session belongs to; left out, the caller's own (home) club.
    pub club_id: Option<Uuid>,
    /// Who came: club member ids, entered on the session's roster.
    #[serde(default)]
    pub members: Vec<Uuid>,
}

/// What a chip is worth: an integer number of minor units (pence, cents) of a currency.
#[derive(Serialize, Deserialize, ToSchema, Clone)]
#[serde(deny_unknown_fields)]
pub struct ChipValue {
    /// Zero or more.
    #[schema(minimum = 0, example = 5)]
    pub minor_units: i64,
    /// ISO 4217, three capital letters.
    #[schema(example = "GBP")]
    pub currency: String,
}

impl ChipValue {
    fn of(session: &sessions::ClubSession) -> Option<ChipValue> {
        Some(ChipValue {
            minor_units: session.chip_value?,
            currency: session.currency.clone()?,
        })
    }

    /// The value as the store keeps it, once checked.
    ///
    /// # Errors
    /// `invalid_chip_value` for a negative number of minor units or a currency that is not three
    /// capital letters. (A number that is not an integer never gets here: `invalid_body`.)
    fn checked(&self) -> Result<(i64, &str), ApiError> {
        let currency = self.currency.as_str();
        if self.minor_units < 0 || currency.len() != 3 || !currency.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(ApiError::unprocessable(
                "invalid_chip_value",
                "a chip value is a whole number of minor units, zero or more, and a currency of three capital letters (ISO 4217)",
            ));
        }
        Ok((self.minor_units, currency))
    }
}

/// A change to a session: what a chip is worth.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"chip_value": {"minor_units": 10, "currency": "EUR"}}))]
pub struct UpdateSession {
    /// What a chip is worth from now on; null clears it (the settle-up is then in chips only).
    /// Required: send null to clear, so that a body that forgot it changes nothing.
    // `deserialize_with` makes serde require the field: an absent one is `invalid_body`.
    #[serde(deserialize_with = "Option::deserialize")]
    #[schema(required = true)]
    pub chip_value: Option<ChipValue>,
}

/// A member of a session's roster: the same person at every table of the session.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct MemberView {
    /// The club member (`GET /clubs/{id}/members`): what a seat names in `members` when a
    /// table is opened.
    pub id: Uuid,
    pub name: String,
    /// The roster entry the session's tables name in their `members`: the club member's id for
    /// sessions started with clubs; rosters written before clubs kept their own ids, which
    /// chains and bundles name.
    pub roster_id: Uuid,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct SessionSummary {
    pub id: Uuid,
    pub name: String,
    pub owner_id: Uuid,
    pub club_id: Uuid,
    pub created_at: DateTime<Utc>,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct SessionView {
    pub id: Uuid,
    pub name: String,
    pub owner_id: Uuid,
    pub club_id: Uuid,
    pub created_at: DateTime<Utc>,
    pub chip_value: Option<ChipValue>,
    /// The roster: who sits at the session's tables, in the order they joined.
    pub members: Vec<MemberView>,
    /// The session's tables, oldest first.
    pub tables: Vec<TableSummary>,
    /// Per table (in the order of `tables`), its finished deals and how many of them no second
    /// phone has verified yet, or are disputed.
    pub verification: Vec<TableVerification>,
    /// `open`; `closing` (closed, its correction window running: corrections and
    /// verifications are still taken); `final` (nothing of it is written any more). Left out
    /// for a session never closed, which is open (so its answer reads as before closes were).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "closing")]
    pub status: Option<SessionStatus>,
    /// When the close in force was made; left out when open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_at: Option<DateTime<Utc>>,
    /// When the close in force makes (or made) the session final; left out when open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_at: Option<DateTime<Utc>>,
    /// Every reopening of the session, oldest first: who, when and why, shown beside the result
    /// ever after; left out when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reopenings: Vec<Reopening>,
    /// The final checkpoints made, oldest first (one per close that became final; a reopened
    /// session keeps the earlier ones): `GET /sessions/{id}/final` gives the one in force. Left
    /// out when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub finals: Vec<FinalSummary>,
}

/// Where a session stands.
#[derive(Serialize, Deserialize, ToSchema, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum SessionStatus {
    Open,
    Closing,
    Final,
}

fn status_of(status: closing::Status) -> SessionStatus {
    match status {
        closing::Status::Open => SessionStatus::Open,
        closing::Status::Closing => SessionStatus::Closing,
        closing::Status::Final => SessionStatus::Final,
    }
}

/// A close reopened by an owner.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Reopening {
    /// The close it undid (closes count from 1).
    pub close: i32,
    pub closed_at: DateTime<Utc>,
    pub reopened_at: DateTime<Utc>,
    /// The owner's user id.
    pub reopened_by: Uuid,
    #[schema(example = "the scores of table 3 were entered against the wrong seats")]
    pub reason: String,
}

impl Reopening {
    /// The close as reopened; None for a close not reopened.
    pub(crate) fn of(c: &closing::CloseRow) -> Option<Reopening> {
        Some(Reopening {
            close: c.n,
            closed_at: c.closed_at,
            reopened_at: c.reopened_at?,
            reopened_by: c.reopened_by?,
            reason: c.reopen_reason.clone()?,
        })
    }

    /// As printed beside a result.
    pub(crate) fn line(&self) -> String {
        format!(
            "Reopened {} (closed {}): {}",
            self.reopened_at.format("%-d %b %Y %H:%M UTC"),
            self.closed_at.format("%-d %b %Y %H:%M UTC"),
            self.reason
        )
    }
}

/// The reopened ones of `closes`, oldest first.
pub(crate) fn reopenings(closes: &[closing::CloseRow]) -> Vec<Reopening> {
    closes.iter().filter_map(Reopening::of).collect()
}

/// A final checkpoint made.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct FinalSummary {
    pub close: i32,
    pub made_at: DateTime<Utc>,
    /// Hex SHA-256 of the checkpoint's canonical JSON without its signature (as the session's
    /// chain holds it).
    #[schema(example = "5d2c0f6a1b9e4e2f8a7c3d5b1e0f9a8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a")]
    pub hash: String,
}

/// How far a table's finished deals are verified.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct TableVerification {
    pub table_id: Uuid,
    pub deals: usize,
    pub unverified: usize,
    pub disputed: usize,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct SessionPage {
    pub items: Vec<SessionSummary>,
    /// The offset of the next page; null on the last page.
    pub next_offset: Option<i64>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PageQuery {
    /// 1 to 500; default 100.
    pub limit: Option<i64>,
    pub offset: Option<i64>,
    /// Only this club's sessions; left out, those of every club the caller belongs to.
    pub club_id: Option<Uuid>,
}

impl From<sessions::ClubSession> for SessionSummary {
    fn from(s: sessions::ClubSession) -> SessionSummary {
        SessionSummary {
            id: s.id,
            name: s.name,
            owner_id: s.owner_id,
            club_id: s.club_id,
            created_at: s.created_at,
        }
    }
}

/// Starts a session (organisers only). Send an `Idempotency-Key` to retry safely: a retry with
/// the same key and body gets the first answer (marked `Idempotent-Replayed: true`) and starts no
/// second session.
#[utoipa::path(tag = "sessions", request_body = CreateSession, security(("bearer" = [])),
    params(
        ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key and body returns the first answer and starts nothing"),
    ),
    responses(
    (status = 201, body = SessionSummary, headers(
        ("Location" = String, description = "the session's address"),
        ("Idempotent-Replayed" = Option<String>, description = "`true` when this is the first answer to an earlier request with the same `Idempotency-Key`"),
    )),
    (status = 400, description = "`malformed_json`, `invalid_idempotency_key`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token, or a role in the club that does not run sessions", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found`: no such club, or the caller is not a member of it", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`invalid_name`, `invalid_chip_value`, `invalid_members`, `idempotency_key_reused`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/sessions")]
pub async fn create_session(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    body: web::Json<CreateSession>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let owner = who.organiser()?;
    let name = super::input::display_name(&body.name, 200).ok_or_else(|| {
        ApiError::unprocessable(
            "invalid_name",
            "a session name is 1 to 200 characters, without control characters",
        )
    })?;
    let chip_value = body.chip_value.as_ref().map(ChipValue::checked).transpose()?;
    let key = super::answers::idempotency_key(&req)?
        .map(|key| serde_json::to_value(&*body).map(|sent| CreationKey::new("create_session", key, &sent)))
        .transpose()
        .map_err(|_| ApiError::internal())?;
    let render = |session| {
        let session = SessionSummary::from(session);
        Ok(Made::created(&session)?.at(format!("/api/v1/sessions/{}", session.id)))
    };
    let outcome = sessions::create(
        pool,
        owner,
        sessions::NewSession {
            club: body.club_id,
            name,
            chip_value,
            members: &body.members,
        },
        key.as_ref(),
        render,
    )
    .await?;
    super::answers::created(outcome, "/api/v1/sessions")
}

/// The caller's sessions, newest first.
#[utoipa::path(tag = "sessions", params(PageQuery), security(("bearer" = [])), responses(
    (status = 200, body = SessionPage),
    (status = 401, description = "`missing_token`, `invalid_token`", body = Problem, content_type = "application/problem+json"),
))]
#[get("/sessions")]
pub async fn list_sessions(
    pool: ReadPool,
    req: HttpRequest,
    Caller(who): Caller,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let owner = who.organiser()?;
    let limit = super::input::page_limit(query.limit)?;
    let offset = query.offset.unwrap_or(0).max(0);
    // A personal API token lists its one club's sessions.
    let Some(club) = owner.narrowed(query.club_id)? else {
        return Ok(HttpResponse::Ok().json(SessionPage {
            items: Vec::new(),
            next_offset: None,
        }));
    };
    let rows = sessions::page(&pool, owner.user(), club, limit + 1, offset).await?;
    let more = rows.len() as i64 > limit;
    let items: Vec<SessionSummary> = rows.into_iter().take(limit as usize).map(Into::into).collect();
    let next_offset = more.then_some(offset + limit);
    Ok(super::input::page(
        &req,
        "offset",
        next_offset,
        &SessionPage { items, next_offset },
    ))
}

/// A session with its tables.
#[utoipa::path(tag = "sessions", security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 200, body = SessionView),
    (status = 404, description = "`session_not_found`: no such session, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`table_damaged`: what is stored of a table no longer reads; the problem names it", body = Problem, content_type = "application/problem+json"),
))]
#[get("/sessions/{id}")]
pub async fn get_session(
    state: web::Data<State>,
    pool: ReadPool,
    Reads(who): Reads,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    tablekeeper_service::access::readable_session(&pool, who, *id).await?;
    Ok(HttpResponse::Ok().json(session_view(&pool, *id, state.clock.now()).await?))
}

/// Sets, changes or clears what a chip is worth at the session (its organiser only), so that the
/// settle-up gives money; the chips booked are not touched.
#[utoipa::path(tag = "sessions", params(("id" = Uuid, Path)), request_body = UpdateSession, security(("bearer" = [])), responses(
    (status = 200, body = SessionView),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token, or another organiser's session", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`session_not_found`", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`session_final`: the session's result is final (its settle-up, in money too, is signed)", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`invalid_chip_value` (negative, or not a currency of three capital letters), `invalid_body` (minor units that are not an integer, or no `chip_value`), `unknown_field`", body = Problem, content_type = "application/problem+json"),
))]
#[patch("/sessions/{id}")]
pub async fn update_session(
    state: web::Data<State>,
    Caller(who): Caller,
    id: web::Path<Uuid>,
    body: web::Json<UpdateSession>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let owner = who.organiser()?;
    let chip_value = body.chip_value.as_ref().map(ChipValue::checked).transpose()?;
    sessions::set_chip_value(pool, owner, *id, chip_value, state.clock.now()).await?;
    Ok(HttpResponse::Ok().json(session_view(pool, *id, state.clock.now()).await?))
}

pub(super) async fn session_view(pool: &PgPool, id: Uuid, now: DateTime<Utc>) -> Result<SessionView, ApiError> {
    let sessions::Overview {
        session,
        members,
        tables,
    } = sessions::overview(pool, id).await?;
    let closes = closing::closes(pool, id, now).await?;
    let current = closes.current();
    let verification = tables
        .iter()
        .map(|(table, counts)| TableVerification {
            table_id: table.id,
            deals: counts.deals,
            unverified: counts.unverified,
            disputed: counts.disputed,
        })
        .collect();
    Ok(SessionView {
        chip_value: ChipValue::of(&session),
        members: members
            .into_iter()
            .map(|m| MemberView {
                id: m.club_member_id,
                name: m.name,
                roster_id: m.id,
            })
            .collect(),
        id: session.id,
        name: session.name,
        owner_id: session.owner_id,
        club_id: session.club_id,
        created_at: session.created_at,
        tables: tables.into_iter().map(|(table, _)| TableSummary::from(table)).collect(),
        verification,
        status: (!closes.closes.is_empty()).then_some(status_of(closes.status)),
        closed_at: current.map(|c| c.closed_at),
        final_at: current.map(|c| c.final_at),
        reopenings: reopenings(&closes.closes),
        finals: closes
            .finals
            .iter()
            .map(|f| FinalSummary {
                close: f.n,
                made_at: f.made_at,
                hash: tablekeeper_service::chain::hex(&f.hash),
            })
            .collect(),
    })
}
