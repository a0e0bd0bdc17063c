//! A session's close, its reopening and its final checkpoint (issue #42).

use crate::State;
use actix_web::{get, post, put, web, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::{session_view, SessionView};
use crate::auth::{Caller, Reads};
use crate::error::{ApiError, Problem};
use tablekeeper_service::closing;

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
    /// Close although tables are still being played (they stay as they are) or flagged deals are
    /// not verified; needs `reason`.
    #[serde(default)]
    pub force: bool,
    /// Why tables still being played, or flagged deals not verified, are closed; required with
    /// `force`.
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
    // The parser, not `iso8601::duration`, which passes over what follows a duration it read
    // (`PT5M30H` would be five minutes).
    let (rest, parsed) = iso8601::parsers::parse_duration(text.as_bytes()).map_err(|_| bad())?;
    // It also reads `P` and `PT` as nothing at all: ISO 8601 wants a number of something.
    if !rest.is_empty() || !text.bytes().any(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let total = match parsed {
        iso8601::Duration::Weeks(weeks) => i64::from(weeks) * 7 * 86_400,
        // Years and months have no length in seconds, and a window is kept in whole seconds.
        iso8601::Duration::YMDHMS {
            year: 0,
            month: 0,
            day,
            hour,
            minute,
            second,
            millisecond: 0,
        } => i64::from(day) * 86_400 + i64::from(hour) * 3600 + i64::from(minute) * 60 + i64::from(second),
        iso8601::Duration::YMDHMS { .. } => return Err(bad()),
    };
    if total > closing::WINDOW_MAX_SECS {
        return Err(bad());
    }
    Ok(total)
}

/// Closes the session (organisers and owners): its correction window starts (the club's, or
/// `correction_window`); during it corrections and verifications are still taken, after it the
/// session is final: every write to its tables and tournaments is refused (`session_final`),
/// and its final checkpoint is made (`GET /sessions/{id}/final`). A window of `PT0S` makes it
/// final at once. Tables still being played are refused (`tables_playing`), and so are flagged
/// deals neither verified by a second phone nor ruled on (`flags_unverified`, see
/// `GET /sessions/{id}/flags`), unless `force` is given with a `reason`. Webhooks `session.closed`, and `session.final` when the checkpoint is
/// made.
#[utoipa::path(tag = "sessions", params(("id" = Uuid, Path)), request_body = CloseSession, security(("bearer" = [])), responses(
    (status = 200, body = SessionView),
    (status = 400, description = "`malformed_json`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token, or a role in the club that does not run sessions", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`session_not_found`", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`session_closed`: closed already (an owner may reopen it); `tables_playing`: tables are still being played (the problem names them): finish them, or send `force` with a `reason`; `flags_unverified`: flagged deals (`GET /sessions/{id}/flags`) are neither verified by a second phone nor ruled on (the problem names each table and deal): verify them, or send `force` with a `reason`", body = Problem, content_type = "application/problem+json"),
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

/// A club's correction window: how long after a session's close its corrections, rulings and
/// verifications are still taken, as an ISO 8601 duration.
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"correction_window": "PT30M"}))]
pub struct CorrectionWindow {
    /// Days, hours, minutes and seconds (`PT30M`, `PT2H`, `P1D`, `PT0S`: final at once), at
    /// most a week.
    #[schema(example = "PT30M")]
    pub correction_window: String,
}

/// A number of seconds as the shortest ISO 8601 duration of days, hours, minutes and seconds.
fn window_text(secs: i64) -> String {
    if secs <= 0 {
        return "PT0S".to_owned();
    }
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let mut text = String::from("P");
    if days > 0 {
        text.push_str(&format!("{days}D"));
    }
    if rest > 0 {
        text.push('T');
        for (n, unit) in [(rest / 3600, 'H'), (rest % 3600 / 60, 'M'), (rest % 60, 'S')] {
            if n > 0 {
                text.push_str(&format!("{n}{unit}"));
            }
        }
    }
    text
}

/// The club's correction window: what a session's close takes when it names none (any member).
#[utoipa::path(tag = "clubs", params(("id" = Uuid, Path)), security(("bearer" = [])), responses(
    (status = 200, body = CorrectionWindow),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found`: no such club, or the caller is not a member", body = Problem, content_type = "application/problem+json"),
))]
#[get("/clubs/{id}/correction-window")]
pub async fn get_correction_window(
    state: web::Data<State>,
    Caller(who): Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let secs = closing::club_window(&state.pool, who.organiser()?, *id).await?;
    Ok(HttpResponse::Ok().json(CorrectionWindow {
        correction_window: window_text(secs),
    }))
}

/// Sets the club's correction window (whoever runs the club: owners and those who manage its
/// members; not a personal API token): later closes that name none take it; sessions closed
/// already keep theirs.
#[utoipa::path(tag = "clubs", params(("id" = Uuid, Path)), request_body = CorrectionWindow, security(("bearer" = [])), responses(
    (status = 200, body = CorrectionWindow),
    (status = 400, description = "`malformed_json`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a role that does not run the club, a personal API token or a scorer token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found`", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`invalid_window` (not an ISO 8601 duration of days, hours, minutes and seconds, negative, or over a week), `invalid_body`, `unknown_field`", body = Problem, content_type = "application/problem+json"),
))]
#[put("/clubs/{id}/correction-window")]
pub async fn set_correction_window(
    state: web::Data<State>,
    Caller(who): Caller,
    id: web::Path<Uuid>,
    body: web::Json<CorrectionWindow>,
) -> Result<HttpResponse, ApiError> {
    let account = who.organiser()?;
    let secs = window_secs(&body.correction_window)?;
    let secs = closing::set_club_window(&state.pool, account, *id, secs).await?;
    Ok(HttpResponse::Ok().json(CorrectionWindow {
        correction_window: window_text(secs),
    }))
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
    if !reason.trim().is_empty() && crate::input::display_name(reason, 500).is_none() {
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
        hash: tablekeeper_service::chain::hex(&made.hash),
        checkpoint,
    }))
}

/// Where a table's session stands, for the phones at the table (which may read the table but
/// not its session): the page counts the correction window down from it.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct TableClosing {
    pub table_id: Uuid,
    /// Null for a table outside a session (always `open`).
    pub session_id: Option<Uuid>,
    pub status: super::SessionStatus,
    /// The close in force: when it was closed, and when it is (or became) final; null while open.
    pub closed_at: Option<DateTime<Utc>>,
    pub final_at: Option<DateTime<Utc>>,
}

/// Where the table's session stands: `open`, `closing` (corrections, rulings and verifications
/// still taken until `final_at`) or `final` (every write refused with `409 session_final`). For
/// whoever may read the table, a phone at it included.
#[utoipa::path(tag = "sessions", security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 200, body = TableClosing),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`table_not_found`: no such table, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tables/{id}/closing")]
pub async fn get_table_closing(
    state: web::Data<State>,
    Reads(who): Reads,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let table = tablekeeper_service::access::readable_table(pool, who, *id).await?;
    let Some(session) = table.session_id else {
        return Ok(HttpResponse::Ok().json(TableClosing {
            table_id: table.id,
            session_id: None,
            status: super::SessionStatus::Open,
            closed_at: None,
            final_at: None,
        }));
    };
    let closes = closing::closes(pool, session, state.clock.now()).await?;
    let current = closes.current();
    Ok(HttpResponse::Ok().json(TableClosing {
        table_id: table.id,
        session_id: Some(session),
        status: super::status_of(closes.status),
        closed_at: current.map(|c| c.closed_at),
        final_at: current.map(|c| c.final_at),
    }))
}

#[cfg(test)]
mod tests {
    use super::window_secs;

    #[test]
    fn a_window_is_days_hours_minutes_and_seconds_up_to_a_week() {
        for (text, secs) in [
            ("PT0S", 0),
            ("PT30M", 1800),
            ("PT1H30M", 5400),
            ("PT90M", 5400),
            ("P1D", 86_400),
            ("P1DT2H", 93_600),
            ("P1W", 604_800),
            ("P7D", 604_800),
        ] {
            assert_eq!(window_secs(text).ok(), Some(secs), "{text}");
        }
    }

    #[test]
    fn anything_else_is_not_a_window() {
        for text in [
            "",
            "P",
            "PT",
            "30 minutes",
            "-PT5M",
            "PT-5M",
            "PT5M30H",
            "PT30M ",
            "P8D",
            "P2W",
            "P1M",
            "P1Y",
            "PT0.5S",
            "PT30m",
            "pt30m",
        ] {
            assert!(window_secs(text).is_err(), "{text:?}");
        }
    }
}
