//! Corrections of finished deals and their verifications: rows in, rows out.
//!
//! Invariants: append-only like the log (the application's role may not change it). A
//! correction's moves are written before its entry (the foreign key naming the correction is deferred), each with a
//! `position` between the effective moves around the deal it corrects, so that the effective
//! moves in play order put them where the deal's old moves were.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::PgConnection;

use super::TableKey;
use super::{StoreError, Tx};

/// A correction's move, its events worked out already.
pub struct CorrectedMove {
    pub kind: String,
    pub seat: Option<i16>,
    pub body: Value,
    pub events: Value,
}

/// Where a correction's moves go: between the effective moves `before` and `after` (their seqs;
/// None at the start of the log, or when no move follows the deal).
pub struct Placement {
    pub before: Option<i64>,
    pub after: Option<i64>,
}

/// Appends a correction's moves as entries `first..first + moves.len()`, part of correction
/// `correction` (written next, in the same transaction).
///
/// # Errors
/// On database failure.
pub async fn append_corrected_moves(
    tx: &mut Tx<'_>,
    table: TableKey,
    first: i64,
    correction: i64,
    place: &Placement,
    moves: &[CorrectedMove],
    recorded_by: &str,
) -> Result<(), StoreError> {
    let n = i64::try_from(moves.len()).unwrap_or(i64::MAX);
    let seqs: Vec<i64> = (0..n).map(|i| first + i).collect();
    let ranks: Vec<i64> = (1..=n).collect();
    let kinds: Vec<&str> = moves.iter().map(|m| m.kind.as_str()).collect();
    let seats: Vec<Option<i16>> = moves.iter().map(|m| m.seat).collect();
    let bodies: Vec<String> = moves.iter().map(|m| m.body.to_string()).collect();
    let events: Vec<String> = moves.iter().map(|m| m.events.to_string()).collect();
    sqlx::query!(
        "insert into moves (table_id, seq, entry, kind, seat, body, events, recorded_by, position, part_of, club_no)
         select $1, t.s, 'move', t.k, t.st, t.b::json, t.e::json, $2, p.lo + (p.hi - p.lo) * t.r / ($3 + 1), $4, $13
         from unnest($5::bigint[], $6::bigint[], $7::text[], $8::smallint[], $9::text[], $10::text[])
              as t(s, r, k, st, b, e),
              (select coalesce((select coalesce(m.position, m.seq::numeric) from moves m
                                where m.table_id = $1 and m.club_no = $13 and m.seq = $11), 0::numeric) as lo,
                      coalesce((select coalesce(m.position, m.seq::numeric) from moves m
                                where m.table_id = $1 and m.club_no = $13 and m.seq = $12), $4::numeric) as hi) as p",
        table.id,
        recorded_by,
        // Both bigints, as the statement was written for ($3 would be inferred an integer, $4 a
        // numeric).
        n as _,
        correction as _,
        &seqs,
        &ranks,
        &kinds as _,
        &seats as _,
        &bodies,
        &events,
        place.before,
        place.after,
        table.club_no,
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// A correction's entry.
pub struct NewCorrection<'a> {
    pub seq: i64,
    pub deal: i32,
    pub body: &'a Value,
    pub reason: &'a str,
    pub recorded_by: &'a str,
    /// The effective moves it replaces.
    pub supersedes: &'a [i64],
}

/// Appends a correction's entry and the supersession of the moves it replaces.
///
/// # Errors
/// On database failure.
pub async fn append_correction(tx: &mut Tx<'_>, table: TableKey, new: &NewCorrection<'_>) -> Result<(), StoreError> {
    sqlx::query!(
        "insert into moves (table_id, seq, entry, kind, seat, body, events, recorded_by, club_no)
         values ($1, $2, 'correction', 'correction', null, $3::json, '[]', $4, $5)",
        table.id,
        new.seq,
        // Sent as text, as the statement was written for (`$3::json`).
        new.body.to_string() as _,
        new.recorded_by,
        table.club_no,
    )
    .execute(&mut **tx)
    .await?;
    sqlx::query!(
        "insert into superseded_moves (table_id, seq, correction_seq, club_no)
         select $1, s, $2, $4 from unnest($3::bigint[]) as t(s)",
        table.id,
        new.seq,
        new.supersedes,
        table.club_no,
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Keeps the booking ids a correction made (none: `None`), once its bookings are written, and
/// the events of the later moves that changed (by seq).
///
/// # Errors
/// On database failure.
pub async fn keep_correction(
    tx: &mut Tx<'_>,
    table: TableKey,
    seq: i64,
    deal: i32,
    reason: &str,
    bookings: Option<(i64, i64)>,
    events: &Value,
) -> Result<(), StoreError> {
    sqlx::query!(
        "insert into corrections (table_id, seq, deal, reason, first_booking, last_booking, events, club_no)
         values ($1, $2, $3, $4, $5, $6, $7, $8)",
        table.id,
        seq,
        deal,
        reason,
        bookings.map(|b| b.0),
        bookings.map(|b| b.1),
        events,
        table.club_no,
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// The highest booking id of the table so far (0 when none).
///
/// # Errors
/// On database failure.
pub async fn last_booking(conn: &mut PgConnection, table: TableKey) -> Result<i64, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"select max(id) as "max?" from ledger_bookings where table_id = $1 and club_no = $2"#,
        table.id,
        table.club_no,
    )
    .fetch_one(conn)
    .await?
    .unwrap_or(0))
}

/// A correction as stored, with its log entry's facts.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct CorrectionRow {
    pub seq: i64,
    pub deal: i32,
    pub reason: String,
    pub first_booking: Option<i64>,
    pub last_booking: Option<i64>,
    /// The later moves' events it changed, by seq.
    pub events: Value,
    pub recorded_by: String,
    pub recorded_at: DateTime<Utc>,
    pub voided_by: Option<i64>,
    /// The moves it replaced.
    pub supersedes: Vec<i64>,
}

/// One correction.
///
/// # Errors
/// `NotFound("correction")` when entry `seq` is none.
pub async fn correction(conn: &mut PgConnection, table: TableKey, seq: i64) -> Result<CorrectionRow, StoreError> {
    // The columns (both statements) read `recorded_by` as [`super::RECORDED_BY`] does.
    sqlx::query_as!(
        CorrectionRow,
        r#"select c.seq, c.deal, c.reason, c.first_booking, c.last_booking, c.events,
    coalesce(m.recorded_by, 'organiser:' || m.recorded_by_organiser, 'scorer:' || m.recorded_by_scorer)
        as "recorded_by!",
    m.recorded_at,
    (select v.seq from moves v where v.table_id = c.table_id and v.club_no = c.club_no and v.voids_seq = c.seq) as voided_by,
    array(select s.seq from superseded_moves s where s.table_id = c.table_id and s.club_no = c.club_no and s.correction_seq = c.seq
          order by s.seq) as "supersedes!" from corrections c join moves m on m.table_id = c.table_id and m.club_no = c.club_no and m.seq = c.seq
         where c.table_id = $1 and c.club_no = $3 and c.seq = $2"#,
        table.id,
        seq,
        table.club_no,
    )
    .fetch_optional(conn)
    .await?
    .ok_or(StoreError::NotFound("correction"))
}

/// The corrections of a deal (all deals: None), oldest first, undone ones included.
///
/// # Errors
/// On database failure.
pub async fn corrections(
    conn: &mut PgConnection,
    table: TableKey,
    deal: Option<i32>,
) -> Result<Vec<CorrectionRow>, StoreError> {
    Ok(sqlx::query_as!(
        CorrectionRow,
        r#"select c.seq, c.deal, c.reason, c.first_booking, c.last_booking, c.events,
    coalesce(m.recorded_by, 'organiser:' || m.recorded_by_organiser, 'scorer:' || m.recorded_by_scorer)
        as "recorded_by!",
    m.recorded_at,
    (select v.seq from moves v where v.table_id = c.table_id and v.club_no = c.club_no and v.voids_seq = c.seq) as voided_by,
    array(select s.seq from superseded_moves s where s.table_id = c.table_id and s.club_no = c.club_no and s.correction_seq = c.seq
          order by s.seq) as "supersedes!" from corrections c join moves m on m.table_id = c.table_id and m.club_no = c.club_no and m.seq = c.seq
         where c.table_id = $1 and c.club_no = $3 and ($2::integer is null or c.deal = $2) order by c.seq"#,
        table.id,
        deal,
        table.club_no,
    )
    .fetch_all(conn)
    .await?)
}

/// Sets the table's version after a correction's entries, and whether the game is over.
///
/// # Errors
/// On database failure.
pub async fn set_version(tx: &mut Tx<'_>, table: TableKey, version: i64, finished: bool) -> Result<(), StoreError> {
    sqlx::query!(
        "update game_tables set version = $2, finished = $3, updated_at = now() where id = $1 and club_no = $4",
        table.id,
        version,
        finished,
        table.club_no,
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// A verification as stored.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct VerificationRow {
    pub id: i64,
    pub deal: i32,
    pub correction_seq: i64,
    pub agree: bool,
    pub moves: Option<Value>,
    pub differs: Vec<String>,
    pub verified_by: String,
    pub verified_at: DateTime<Utc>,
}

/// A new verification.
pub struct NewVerification<'a> {
    pub deal: i32,
    pub correction_seq: i64,
    pub agree: bool,
    pub moves: Option<&'a Value>,
    pub differs: &'a [String],
    pub verified_by: &'a str,
}

/// # Errors
/// On database failure.
pub async fn append_verification(
    conn: &mut PgConnection,
    table: TableKey,
    new: &NewVerification<'_>,
) -> Result<VerificationRow, StoreError> {
    Ok(sqlx::query_as!(
        VerificationRow,
        "insert into verifications (table_id, deal, correction_seq, agree, moves, differs, verified_by, club_no)
         values ($1, $2, $3, $4, $5, $6, $7, $8)
         returning id, deal, correction_seq, agree, moves, differs, verified_by, verified_at",
        table.id,
        new.deal,
        new.correction_seq,
        new.agree,
        new.moves,
        new.differs,
        new.verified_by,
        table.club_no,
    )
    .fetch_one(conn)
    .await?)
}

/// The table's verifications (of one deal, or all), oldest first.
///
/// # Errors
/// On database failure.
pub async fn verifications(
    conn: &mut PgConnection,
    table: TableKey,
    deal: Option<i32>,
) -> Result<Vec<VerificationRow>, StoreError> {
    Ok(sqlx::query_as!(
        VerificationRow,
        "select id, deal, correction_seq, agree, moves, differs, verified_by, verified_at from verifications
         where table_id = $1 and club_no = $3 and ($2::integer is null or deal = $2) order by id",
        table.id,
        deal,
        table.club_no,
    )
    .fetch_all(conn)
    .await?)
}
