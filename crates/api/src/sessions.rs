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

/// A close reopened by an owner.
#[derive(Serialize, Deserialize, ToSchema)]
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

/// A close asked for: all members optional (`{}` closes with the club's correction window).
#[derive(Serialize, Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"correction_window": "PT30M"}))]
pub struct CloseSession {
    /// How long corrections and verifications are still taken after the close, an ISO 8601
    /// duration (`PT30M`, `PT2H`, `P1D`, `PT0S`: final at once), at most a week; left out, the
    /// club's (`PT30M` unless changed).
    #[schema(example = "PT30M")]
    pub correction_window: Option<String>,
    /// Close although tables are still being played (they stay as they are); needs `reason`.
    #[serde(default)]
    pub force: bool,
    /// Why tables still being played are closed; required with `force`.
    #[schema(example = "the last table left early")]
    pub reason: Option<String>,
}

/// A reopening asked for.
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"reason": "the scores of table 3 were entered against the wrong seats"}))]
pub struct ReopenSession {
    /// Why: required, shown beside the result ever after.
    #[serde(default)]
    pub reason: Option<String>,
}

/// A session's final checkpoint: its chain heads, standings and settle-up, signed with the audit
/// key; `tablekeeper verify BUNDLE --final FILE` checks a session's bundle against it offline.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct FinalCheckpoint {
    pub session_id: Uuid,
    /// The close it is of (closes count from 1).
    pub close: i32,
    pub made_at: DateTime<Utc>,
    /// Hex SHA-256 of `checkpoint`'s canonical JSON (RFC 8785) without its `signature`.
    pub hash: String,
    /// The signed document: `format` (`tablekeeper-final/1`), `session`, `club`, `close`,
    /// `closed_at`, `final_at`, `made_at`, `record` (`position`, `head`: the session's record
    /// chain), `tables` (each `table`, `position`, `head`), `standings`, `settlement`, `key_id`,
    /// `public_key` and `signature` (Ed25519, hex, over `tablekeeper-final/1\n` followed by the
    /// canonical JSON of the rest).
    #[schema(value_type = Object)]
    pub checkpoint: serde_json::Value,
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
    let key = super::tables::idempotency_key(&req)?
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
    sessions::set_chip_value(pool, owner, *id, chip_value).await?;
    Ok(HttpResponse::Ok().json(session_view(pool, *id, state.clock.now()).await?))
}

async fn session_view(pool: &PgPool, id: Uuid, now: DateTime<Utc>) -> Result<SessionView, ApiError> {
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
        status: (!closes.closes.is_empty()).then_some(match closes.status {
            closing::Status::Open => SessionStatus::Open,
            closing::Status::Closing => SessionStatus::Closing,
            closing::Status::Final => SessionStatus::Final,
        }),
        closed_at: current.map(|c| c.closed_at),
        final_at: current.map(|c| c.final_at),
        reopenings: closes
            .closes
            .iter()
            .filter_map(|c| {
                Some(Reopening {
                    close: c.n,
                    closed_at: c.closed_at,
                    reopened_at: c.reopened_at?,
                    reopened_by: c.reopened_by?,
                    reason: c.reopen_reason.clone()?,
                })
            })
            .collect(),
        finals: closes
            .finals
            .iter()
            .map(|f| FinalSummary {
                close: f.n,
                made_at: f.made_at,
                hash: hex_of(&f.hash),
            })
            .collect(),
    })
}

fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// An ISO 8601 duration of days, hours, minutes and seconds (`PT30M`, `PT1H30M`, `P1D`,
/// `PT0S`), in seconds: 0 to a week.
///
/// # Errors
/// `invalid_window` for anything else, a negative duration included.
fn window_secs(text: &str) -> Result<i64, ApiError> {
    let bad = || {
        ApiError::unprocessable(
            "invalid_window",
            format!(
                "`{text}` is not a correction window: an ISO 8601 duration of days, hours, minutes and seconds such as PT30M, PT2H or PT0S, from 0 to a week (P7D); never negative"
            ),
        )
    };
    let rest = text.strip_prefix('P').ok_or_else(bad)?;
    let (days, time) = match rest.split_once('T') {
        Some((days, time)) if !time.is_empty() => (days, time),
        Some(_) => return Err(bad()),
        None => (rest, ""),
    };
    if days.is_empty() && time.is_empty() {
        return Err(bad());
    }
    let mut total: i64 = 0;
    let mut add = |part: &str, units: &[(char, i64)]| -> Result<(), ApiError> {
        let mut number = String::new();
        let mut last = 0;
        for ch in part.chars() {
            if ch.is_ascii_digit() {
                number.push(ch);
                continue;
            }
            let at = units.iter().position(|(u, _)| *u == ch).ok_or_else(bad)?;
            if number.is_empty() || at < last || (at == last && last > 0) || number.len() > 9 {
                return Err(bad());
            }
            let n: i64 = number.parse().map_err(|_| bad())?;
            total = total.saturating_add(n.saturating_mul(units[at].1));
            number.clear();
            last = at + 1;
        }
        if number.is_empty() {
            Ok(())
        } else {
            Err(bad())
        }
    };
    add(days, &[('D', 86_400)])?;
    add(time, &[('H', 3600), ('M', 60), ('S', 1)])?;
    if total > closing::WINDOW_MAX_SECS {
        return Err(bad());
    }
    Ok(total)
}

/// Closes the session (organisers and owners): its correction window starts (the club's, or
/// `correction_window`); during it corrections and verifications are still taken, after it the
/// session is final: every write to its tables and tournaments is refused (`session_final`),
/// and its final checkpoint is made (`GET /sessions/{id}/final`). A window of `PT0S` makes it
/// final at once. Tables still being played are refused (`tables_playing`) unless `force` is
/// given with a `reason`. Webhooks `session.closed`, and `session.final` when the checkpoint is
/// made.
#[utoipa::path(tag = "sessions", params(("id" = Uuid, Path)), request_body = CloseSession, security(("bearer" = [])), responses(
    (status = 200, body = SessionView),
    (status = 400, description = "`malformed_json`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token, or a role in the club that does not run sessions", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`session_not_found`", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`session_closed`: closed already (an owner may reopen it); `tables_playing`: tables are still being played (the problem names them): finish them, or send `force` with a `reason`", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`invalid_window` (not an ISO 8601 duration of days, hours, minutes and seconds, negative, or over a week), `reason_required` (`force` without a `reason`), `invalid_body`, `unknown_field`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/sessions/{id}/close")]
pub async fn close_session(
    state: web::Data<State>,
    Caller(who): Caller,
    id: web::Path<Uuid>,
    body: web::Json<CloseSession>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let account = who.organiser()?;
    let window = body.correction_window.as_deref().map(window_secs).transpose()?;
    let now = state.clock.now();
    let close = closing::Close {
        window,
        force: body.force,
        reason: body.reason.clone(),
    };
    closing::close(pool, &state.keys, account, *id, close, now).await?;
    Ok(HttpResponse::Ok().json(session_view(pool, *id, now).await?))
}

/// Reopens a closed or final session (the club's owners only), with a `reason`: the reopening
/// (who, when, why) is recorded in the session's chain and listed with the session ever after;
/// the session is open again, and a later close makes a new final checkpoint (the earlier ones
/// are kept and listed).
#[utoipa::path(tag = "sessions", params(("id" = Uuid, Path)), request_body = ReopenSession, security(("bearer" = [])), responses(
    (status = 200, body = SessionView),
    (status = 400, description = "`malformed_json`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token, or anyone but the club's owners", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`session_not_found`", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`session_not_closed`: the session is open", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`reason_required`: no `reason`, or a blank one; `invalid_text`; `invalid_body`, `unknown_field`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/sessions/{id}/reopen")]
pub async fn reopen_session(
    state: web::Data<State>,
    Caller(who): Caller,
    id: web::Path<Uuid>,
    body: web::Json<ReopenSession>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let account = who.organiser()?;
    let reason = body.reason.as_deref().unwrap_or_default();
    if !reason.trim().is_empty() && super::input::display_name(reason, 500).is_none() {
        return Err(ApiError::unprocessable(
            "invalid_text",
            "a reopening's reason is 1 to 500 characters, without control characters",
        ));
    }
    let now = state.clock.now();
    closing::reopen(pool, &state.keys, account, *id, reason, now).await?;
    Ok(HttpResponse::Ok().json(session_view(pool, *id, now).await?))
}

/// The session's final checkpoint (of its close in force), made the first time it is asked for
/// after the correction window and kept: the session's record chain head and each table's chain
/// head, the standings and the settle-up, signed with the audit key. Keep it: `tablekeeper
/// verify BUNDLE --final FILE` finds any change to the session after it.
#[utoipa::path(tag = "sessions", security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 200, body = FinalCheckpoint),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`session_not_found`: no such session, or the caller may not read it", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`session_not_final`: the session is open, or its correction window is still running; `table_damaged`", body = Problem, content_type = "application/problem+json"),
))]
#[get("/sessions/{id}/final")]
pub async fn get_session_final(
    state: web::Data<State>,
    Reads(who): Reads,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    tablekeeper_service::access::readable_session(pool, who, *id).await?;
    let (made, _) = closing::final_checkpoint(pool, &state.keys, *id, state.clock.now()).await?;
    let checkpoint: serde_json::Value = serde_json::from_str(&made.checkpoint).map_err(|_| ApiError::internal())?;
    Ok(HttpResponse::Ok().json(FinalCheckpoint {
        session_id: *id,
        close: made.n,
        made_at: made.made_at,
        hash: hex_of(&made.hash),
        checkpoint,
    }))
}

/// One seat a player held, with what it won or lost there.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct SeatResult {
    pub table_id: Uuid,
    pub game: String,
    pub seat: u8,
    /// The name as typed at that table.
    pub name: String,
    /// Chips won (positive) or lost: what the seat holds less what the bank issued to it (its
    /// buy-in; its stakes on a board or in a fund count as its chips until won); null at a table
    /// that books no chips to seats.
    pub chips: Option<i64>,
    /// The score sheet's total at a points game (Nomination Whist, Dividend, Tricky Dick); null
    /// at a chips game.
    pub points: Option<i64>,
}

/// Points over a game's tables.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct GamePoints {
    pub game: String,
    pub points: i64,
}

/// A player across the session.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct PlayerStanding {
    /// The roster member; null for a player of a table stored before the roster whose name
    /// matches no member.
    pub member_id: Option<Uuid>,
    pub player: String,
    /// Chips won or lost over every table: what the seats hold less what the bank issued to
    /// them.
    pub chips: i64,
    /// Points per game, over that game's tables.
    pub points: Vec<GamePoints>,
    pub seats: Vec<SeatResult>,
}

/// Every player's net chips and points across the session's tables, matched by roster member.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct SessionStandings {
    pub session_id: Uuid,
    /// In order of first seat.
    pub players: Vec<PlayerStanding>,
    /// Over every player: what the players lost to the pools, `-pools_chips`.
    pub total_chips: i64,
    /// What the tables' pools and funds hold (and, at a game played against the bank, what the
    /// bank took beyond what it issued): chips no player has won yet. With `total_chips` and
    /// `banked_chips` it sums to zero.
    pub pools_chips: i64,
    /// What tournaments' rounds, closing, moved out of their tables' pools into the bank (the
    /// `bank` leftover rule); left out when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub banked_chips: i64,
}

fn standing(p: &sessions::Standing) -> PlayerStanding {
    PlayerStanding {
        member_id: p.identity.member(),
        player: p.name.clone(),
        chips: p.chips,
        points: p
            .points
            .iter()
            .map(|(game, points)| GamePoints {
                game: game.clone(),
                points: *points,
            })
            .collect(),
        seats: p
            .seats
            .iter()
            .map(|s| SeatResult {
                table_id: s.table,
                game: s.game.clone(),
                seat: s.seat,
                name: s.name.clone(),
                chips: s.chips,
                points: s.points,
            })
            .collect(),
    }
}

/// The session's standings: each player's chips won or lost (what their seats hold less what the
/// bank issued to them) and points across its tables, a player being a roster member whatever
/// the spelling at each table; and what the pools hold.
#[utoipa::path(tag = "sessions", security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 200, body = SessionStandings),
    (status = 404, description = "`session_not_found`: no such session, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`table_damaged`: what is stored of a table no longer reads; the problem names it", body = Problem, content_type = "application/problem+json"),
))]
#[get("/sessions/{id}/standings")]
pub async fn get_session_standings(
    pool: ReadPool,
    Reads(who): Reads,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    tablekeeper_service::access::readable_session(&pool, who, *id).await?;
    let standings = sessions::standings(&pool, *id).await?;
    Ok(HttpResponse::Ok().json(SessionStandings {
        session_id: standings.session.id,
        total_chips: standings.players.iter().map(|p| p.chips).sum(),
        pools_chips: standings.pools,
        banked_chips: standings.banked,
        players: standings.players.iter().map(standing).collect(),
    }))
}

/// A player in a payment, or the tables' pools and funds (`pools`), which hold chips that no
/// player has won yet, or the bank (`bank`: what tournaments' `bank` leftover rule moved into it).
#[derive(Serialize, Deserialize, ToSchema)]
pub struct Party {
    pub member_id: Option<Uuid>,
    /// Empty for the pools and the bank.
    pub player: String,
    pub pools: bool,
    /// Left out but for the bank.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bank: bool,
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}

/// One transfer a tournament's round, closing, booked out of a table's pools (its `leftover`
/// rule): `chips` from the pool `from` (`pool:<name>`) to `to` (`seat:<n>`, seat numbers from 0,
/// or `bank`).
#[derive(Serialize, Deserialize, ToSchema)]
pub struct LeftoverTransfer {
    pub tournament_id: Uuid,
    pub round: u32,
    /// The round's table number.
    pub table: u32,
    pub table_id: Uuid,
    #[schema(example = "pool:pope")]
    pub from: String,
    #[schema(example = "seat:0")]
    pub to: String,
    /// Positive.
    pub chips: i64,
}

/// One payment: `from` pays `to`.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct PaymentView {
    pub from: Party,
    pub to: Party,
    /// Positive.
    pub chips: i64,
    /// In minor units of the session's currency; null when the session sets no chip value.
    pub minor_units: Option<i64>,
    pub currency: Option<String>,
}

/// A party's net chips, which the payments bring to zero: what the party pays less what it is
/// paid is `-chips`.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct PartyNet {
    pub party: Party,
    /// A player's: the standings' `chips`. The pools': what they hold, positive.
    pub chips: i64,
}

/// Who pays whom.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct Settlement {
    pub session_id: Uuid,
    pub chip_value: Option<ChipValue>,
    /// Every party that settles: each player that won or lost chips, then the pools when they
    /// hold any. The nets sum to zero.
    pub nets: Vec<PartyNet>,
    /// The fewest payments that bring every party's net chips, the pools' included, to zero.
    pub payments: Vec<PaymentView>,
    /// What tournaments' rounds moved out of their tables' pools as they closed (the
    /// `leftover` rule), already counted in the nets; left out when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub leftovers: Vec<LeftoverTransfer>,
}

/// Settle-up: who pays whom at the end of the night, in as few payments as can be, from each
/// player's net chips (what their seats hold less what the bank issued to them) and what the
/// pools hold (the stakes no one has won yet, which the players paid in); in money too when the
/// session sets a chip value.
#[utoipa::path(tag = "sessions", security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 200, body = Settlement),
    (status = 404, description = "`session_not_found`: no such session, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`table_damaged`: what is stored of a table no longer reads; the problem names it", body = Problem, content_type = "application/problem+json"),
))]
#[get("/sessions/{id}/settlement")]
pub async fn get_session_settlement(
    pool: ReadPool,
    Reads(who): Reads,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    tablekeeper_service::access::readable_session(&pool, who, *id).await?;
    let (standings, payments) = sessions::settlement(&pool, *id).await?;
    let chip_value = ChipValue::of(&standings.session);
    let party = |s: &sessions::Party| match s {
        sessions::Party::Player(s) => {
            let p = standing(s);
            Party {
                member_id: p.member_id,
                player: p.player,
                pools: false,
                bank: false,
            }
        }
        sessions::Party::Pools => Party {
            member_id: None,
            player: String::new(),
            pools: true,
            bank: false,
        },
        sessions::Party::Bank => Party {
            member_id: None,
            player: String::new(),
            pools: false,
            bank: true,
        },
    };
    let mut nets: Vec<PartyNet> = standings
        .players
        .iter()
        .filter(|p| p.chips != 0)
        .map(|p| PartyNet {
            party: party(&sessions::Party::Player(p.clone())),
            chips: p.chips,
        })
        .collect();
    if standings.pools != 0 {
        nets.push(PartyNet {
            party: party(&sessions::Party::Pools),
            chips: standings.pools,
        });
    }
    if standings.banked != 0 {
        nets.push(PartyNet {
            party: party(&sessions::Party::Bank),
            chips: standings.banked,
        });
    }
    let leftovers = standings
        .leftovers
        .iter()
        .map(|(tournament, l)| LeftoverTransfer {
            tournament_id: *tournament,
            round: u32::try_from(l.round).unwrap_or(0),
            table: u32::try_from(l.table_number).unwrap_or(0),
            table_id: l.table_id,
            from: l.from_account.clone(),
            to: l.to_account.clone(),
            chips: l.amount,
        })
        .collect();
    Ok(HttpResponse::Ok().json(Settlement {
        session_id: standings.session.id,
        nets,
        payments: payments
            .iter()
            .map(|p| PaymentView {
                from: party(&p.from),
                to: party(&p.to),
                chips: p.chips,
                minor_units: p.money,
                currency: p.money.and(chip_value.as_ref().map(|c| c.currency.clone())),
            })
            .collect(),
        leftovers,
        chip_value,
    }))
}
