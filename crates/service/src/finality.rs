//! Whether a session is final, for the writes that must refuse it (issue #42): the guard every
//! write to a session's tables calls in its own transaction. It needs the store alone, so that
//! the use cases that call it need nothing of `closing`, which needs them.
//!
//! Invariants: a session is `open` without a close in force (none, or its latest reopened),
//! `closing` from the close until its `final_at`, and `final` from then; the time compared is the
//! one passed in (the application's [`crate::clock::Clock`]), never read here.

use chrono::{DateTime, Utc};
use tablekeeper_store::closes::CloseRow;
use tablekeeper_store::sessions::ClubSession;
use tablekeeper_store::{self as store, PgConnection};
use uuid::Uuid;

use super::ServiceError;

/// Where a session stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Open,
    Closing,
    Final,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Open => "open",
            Status::Closing => "closing",
            Status::Final => "final",
        }
    }
}

/// The close in force among `closes` (the latest, when not reopened).
pub fn in_force(closes: &[CloseRow]) -> Option<&CloseRow> {
    closes.last().filter(|c| c.reopened_at.is_none())
}

/// Where a session with these closes stands at `now`.
pub fn status(closes: &[CloseRow], now: DateTime<Utc>) -> Status {
    match in_force(closes) {
        None => Status::Open,
        Some(c) if now < c.final_at => Status::Closing,
        Some(_) => Status::Final,
    }
}

/// Refuses a write to `session` when it is final at `now`. Called under the lock of what the
/// write changes (its table's, or the session's own); a write to a *closing* session then takes
/// the session's lock as well ([`hold_closing`]), as a move does, so that it is either in the
/// final checkpoint or refused by it, never written after it.
///
/// # Errors
/// `SessionFinal`; on database failure.
pub async fn refuse_if_final(conn: &mut PgConnection, session: Uuid, now: DateTime<Utc>) -> Result<(), ServiceError> {
    let final_at = store::closes::final_at(&mut *conn, session).await?;
    refuse_at(session, final_at, now)?;
    if final_at.is_some() {
        hold_closing(conn, session).await?;
    }
    Ok(())
}

/// Refuses a write to a closing `session` once its final checkpoint is made: the checkpoint is
/// made under the session's lock when its maker's clock has passed `final_at`, which a writer's
/// clock (another replica's) may not have yet.
///
/// # Errors
/// `SessionFinal`; on database failure.
async fn refuse_if_checkpointed(conn: &mut PgConnection, session: Uuid) -> Result<(), ServiceError> {
    if store::closes::final_made(conn, session).await? {
        return Err(ServiceError::SessionFinal(session));
    }
    Ok(())
}

/// For a write to a table of a *closing* session (one whose close is in force), under the
/// table's lock: takes the session's row as the final checkpoint does, so that the write and the
/// checkpoint are one after the other, and refuses once the checkpoint is made. Without it a
/// write that passed [`refuse_at`] could commit after the checkpoint read the table's chain head,
/// leaving a chain longer than the checkpoint signed. An open session's writes never come here.
///
/// # Errors
/// `Store(NotFound)`; `SessionFinal`; on database failure.
pub async fn hold_closing(conn: &mut PgConnection, session: Uuid) -> Result<(), ServiceError> {
    store::sessions::lock(&mut *conn, session).await?;
    refuse_if_checkpointed(conn, session).await
}

/// Refuses a write to `session` when `final_at`, as read with what is written (a move's read
/// of its table), is `now` or earlier.
///
/// # Errors
/// `SessionFinal`.
pub fn refuse_at(session: Uuid, final_at: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Result<(), ServiceError> {
    match final_at {
        Some(at) if at <= now => Err(ServiceError::SessionFinal(session)),
        _ => Ok(()),
    }
}

/// Locks the session's row (as a write to it does) and refuses the write when it is final at
/// `now`.
///
/// # Errors
/// `Store(NotFound)`; `SessionFinal`; on database failure.
pub async fn lock_writable(
    conn: &mut PgConnection,
    session: Uuid,
    now: DateTime<Utc>,
) -> Result<ClubSession, ServiceError> {
    let row = store::sessions::lock(&mut *conn, session).await?;
    refuse_if_final(conn, session, now).await?;
    Ok(row)
}
