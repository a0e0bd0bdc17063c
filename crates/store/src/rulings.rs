//! Director rulings and the answers phones give to them (issue #42), as entries of the table's
//! log: `entry = 'ruling'`, `kind` the ruling's kind, or `response` for an answer.
//!
//! Invariants: append-only like the rest of the log (the application's role may not change
//! it); a ruling's entry is never one of the effective moves (`entry = 'move'`), so nothing
//! replays it; what it books is booked in the same transaction, caused by its seq.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::PgConnection;

use super::{StoreError, TableKey, Tx};

/// A ruling's or a response's entry.
pub struct NewRulingEntry<'a> {
    pub seq: i64,
    /// The ruling's kind, or `response`.
    pub kind: &'a str,
    pub body: &'a Value,
    /// A log entry's events are its game's: `[]` (the ruling's diff is in its body).
    pub events: &'a Value,
    pub recorded_by: &'a str,
}

/// A ruling's or a response's entry as stored.
#[derive(Debug, Clone)]
pub struct RulingEntry {
    pub seq: i64,
    pub kind: String,
    pub body: Value,
    pub events: Value,
    pub recorded_by: String,
    pub recorded_at: DateTime<Utc>,
}

/// Appends a ruling's or a response's entry.
///
/// # Errors
/// On database failure.
pub async fn append(tx: &mut Tx<'_>, table: TableKey, new: &NewRulingEntry<'_>) -> Result<(), StoreError> {
    sqlx::query!(
        "insert into moves (table_id, seq, entry, kind, seat, body, events, recorded_by, club_no)
         values ($1, $2, 'ruling', $3, null, $4::json, $5::json, $6, $7)",
        table.id,
        new.seq,
        new.kind,
        // Sent as text, as the statement was written for (`::json`).
        new.body.to_string() as _,
        new.events.to_string() as _,
        new.recorded_by,
        table.club_no,
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// The table's rulings and responses, oldest first.
///
/// # Errors
/// On database failure.
pub async fn entries(conn: &mut PgConnection, table: TableKey) -> Result<Vec<RulingEntry>, StoreError> {
    Ok(sqlx::query_as!(
        RulingEntry,
        r#"select m.seq, m.kind, m.body as "body!: Value", m.events as "events!: Value",
                  coalesce(m.recorded_by, 'organiser:' || m.recorded_by_organiser, 'scorer:' || m.recorded_by_scorer) as "recorded_by!",
                  m.recorded_at
             from moves m where m.table_id = $1 and m.club_no = $2 and m.entry = 'ruling' order by m.seq"#,
        table.id,
        table.club_no,
    )
    .fetch_all(conn)
    .await?)
}
