//! A session's closes, reopenings and final checkpoints (issue #42), and its club's correction
//! window.
//!
//! Invariants: rows are written once and never changed (the application's role may not); a
//! session's closes are numbered from 1 without gaps, each but the latest reopened; a session
//! without a close is open.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

use super::StoreError;

/// A close of a session, with its reopening if it was reopened.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct CloseRow {
    pub n: i32,
    pub closed_at: DateTime<Utc>,
    pub closed_by: Uuid,
    pub final_at: DateTime<Utc>,
    /// Why it was closed with tables still being played.
    pub forced: Option<String>,
    pub reopened_at: Option<DateTime<Utc>>,
    pub reopened_by: Option<Uuid>,
    pub reopen_reason: Option<String>,
}

/// A close's final checkpoint as kept.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct FinalRow {
    pub n: i32,
    pub made_at: DateTime<Utc>,
    /// The signed checkpoint, JSON.
    pub checkpoint: String,
    pub hash: Vec<u8>,
}

/// The club's correction window, in seconds.
///
/// # Errors
/// `NotFound("club")`; on database failure.
pub async fn window_of(conn: &mut PgConnection, club: Uuid) -> Result<i32, StoreError> {
    sqlx::query_scalar!("select correction_window_secs from clubs where id = $1", club)
        .fetch_optional(conn)
        .await?
        .ok_or(StoreError::NotFound("club"))
}

/// Sets the club's correction window, in seconds (zero or more, checked).
///
/// # Errors
/// `NotFound("club")`; on database failure.
pub async fn set_window(conn: &mut PgConnection, club: Uuid, secs: i32) -> Result<(), StoreError> {
    let done = sqlx::query!("update clubs set correction_window_secs = $2 where id = $1", club, secs)
        .execute(conn)
        .await?;
    if done.rows_affected() == 0 {
        return Err(StoreError::NotFound("club"));
    }
    Ok(())
}

/// The session's closes, oldest first.
///
/// # Errors
/// On database failure.
pub async fn closes(conn: &mut PgConnection, session: Uuid) -> Result<Vec<CloseRow>, StoreError> {
    Ok(sqlx::query_as!(
        CloseRow,
        r#"select c.n, c.closed_at, c.closed_by, c.final_at, c.forced,
                  r.reopened_at as "reopened_at?", r.reopened_by as "reopened_by?", r.reason as "reopen_reason?"
           from session_closes c
           left join session_reopenings r on r.session_id = c.session_id and r.n = c.n
           where c.session_id = $1
           order by c.n"#,
        session,
    )
    .fetch_all(conn)
    .await?)
}

/// When the session's close in force (its latest, not reopened) makes it final, if it has one:
/// the one read a write to the session makes.
///
/// # Errors
/// On database failure.
pub async fn final_at(conn: &mut PgConnection, session: Uuid) -> Result<Option<DateTime<Utc>>, StoreError> {
    Ok(sqlx::query_scalar!(
        "select c.final_at from session_closes c
         where c.session_id = $1
           and not exists (select 1 from session_reopenings r where r.session_id = c.session_id and r.n = c.n)
         order by c.n desc limit 1",
        session,
    )
    .fetch_optional(conn)
    .await?)
}

/// Whether the session's close in force (its latest, not reopened) has its final checkpoint:
/// from then on the session is final whatever a writer's clock says (issue #42).
///
/// # Errors
/// On database failure.
pub async fn final_made(conn: &mut PgConnection, session: Uuid) -> Result<bool, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"select exists (
             select 1 from session_finals f
             where f.session_id = $1
               and f.n = (select max(c.n) from session_closes c where c.session_id = $1)
               and not exists (select 1 from session_reopenings r where r.session_id = f.session_id and r.n = f.n)
           ) as "made!""#,
        session,
    )
    .fetch_one(conn)
    .await?)
}

/// Records close number `close.n` of the session (`reopened_*` are not written).
///
/// # Errors
/// On database failure (a close of that number already: a conflict).
pub async fn insert_close(conn: &mut PgConnection, session: Uuid, close: &CloseRow) -> Result<(), StoreError> {
    sqlx::query!(
        "insert into session_closes (session_id, n, closed_at, closed_by, final_at, forced)
         values ($1, $2, $3, $4, $5, $6)",
        session,
        close.n,
        close.closed_at,
        close.closed_by,
        close.final_at,
        close.forced,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Records the reopening of close `n`.
///
/// # Errors
/// On database failure.
pub async fn insert_reopening(
    conn: &mut PgConnection,
    session: Uuid,
    n: i32,
    at: DateTime<Utc>,
    by: Uuid,
    reason: &str,
) -> Result<(), StoreError> {
    sqlx::query!(
        "insert into session_reopenings (session_id, n, reopened_at, reopened_by, reason) values ($1, $2, $3, $4, $5)",
        session,
        n,
        at,
        by,
        reason,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// The session's final checkpoints, oldest first.
///
/// # Errors
/// On database failure.
pub async fn finals(conn: &mut PgConnection, session: Uuid) -> Result<Vec<FinalRow>, StoreError> {
    Ok(sqlx::query_as!(
        FinalRow,
        "select n, made_at, checkpoint, hash from session_finals where session_id = $1 order by n",
        session,
    )
    .fetch_all(conn)
    .await?)
}

/// Keeps close `row.n`'s final checkpoint.
///
/// # Errors
/// On database failure (one kept already: a conflict).
pub async fn insert_final(conn: &mut PgConnection, session: Uuid, row: &FinalRow) -> Result<(), StoreError> {
    sqlx::query!(
        "insert into session_finals (session_id, n, made_at, checkpoint, hash) values ($1, $2, $3, $4, $5)",
        session,
        row.n,
        row.made_at,
        &row.checkpoint,
        &row.hash,
    )
    .execute(conn)
    .await?;
    Ok(())
}
