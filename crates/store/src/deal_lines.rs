//! Score-sheet lines, one row per finished deal, written in the transaction of the move that
//! finished it.
//!
//! Invariants: append-only (the application's role may not change it); a line is in force
//! exactly when its move is not voided, so an undo takes a line off the sheet through the log, deleting nothing; the
//! lines in force, by (seq, idx), are the sheet's deals in order.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::PgConnection;
use uuid::Uuid;

use super::TableKey;
use super::{StoreError, Tx};

/// Appends the lines move `seq` finished, in order.
///
/// # Errors
/// On database failure.
pub async fn append(tx: &mut Tx<'_>, table: TableKey, seq: i64, lines: &[Value]) -> Result<(), StoreError> {
    if lines.is_empty() {
        return Ok(());
    }
    let idx: Vec<i16> = (0..lines.len()).map(|i| i16::try_from(i).unwrap_or(i16::MAX)).collect();
    sqlx::query!(
        "insert into deal_lines (table_id, seq, idx, line, club_no)
         select $1, $2, i, l::json, $5 from unnest($3::smallint[], $4::text[]) as t(i, l)",
        table.id,
        seq,
        &idx,
        &lines.iter().map(Value::to_string).collect::<Vec<_>>(),
        table.club_no,
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Appends lines of several moves at once, as `(seq, lines)`: the back-fill of a table stored
/// before lines were rows.
///
/// # Errors
/// On database failure.
pub async fn append_all(tx: &mut Tx<'_>, table: TableKey, lines: &[(i64, Vec<Value>)]) -> Result<(), StoreError> {
    let mut seqs = Vec::new();
    let mut idxs = Vec::new();
    let mut values = Vec::new();
    for (seq, of_move) in lines {
        for (i, line) in of_move.iter().enumerate() {
            seqs.push(*seq);
            idxs.push(i16::try_from(i).unwrap_or(i16::MAX));
            values.push(line.to_string());
        }
    }
    sqlx::query!(
        "insert into deal_lines (table_id, seq, idx, line, club_no)
         select $1, s, i, l::json, $5 from unnest($2::bigint[], $3::smallint[], $4::text[]) as t(s, i, l)",
        table.id,
        &seqs,
        &idxs,
        &values,
        table.club_no,
    )
    .execute(&mut **tx)
    .await?;
    sqlx::query!(
        "update game_tables set deal_lines_kept = true where id = $1 and club_no = $2",
        table.id,
        table.club_no,
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// The lines in force, oldest first, as JSON text (for a reader that decodes them straight into
/// the game's lines): those of moves not voided, from the latest correction in force on (a
/// correction keeps the whole sheet as corrected under its own seq; the moves it brings keep
/// none).
///
/// # Errors
/// On database failure.
pub async fn in_force(conn: &mut PgConnection, table: TableKey) -> Result<Vec<String>, StoreError> {
    // The voids are read once, into a hashed list (`not in` over a subquery free of nulls),
    // rather than looked up in the index once per line: a long sheet has a thousand lines and
    // few voids.
    Ok(sqlx::query_scalar!(
        r#"select l.line::text as "line!" from deal_lines l
         where l.table_id = $1 and l.club_no = $2
           and l.seq >= coalesce((select max(c.seq) from moves c
                 where c.table_id = $1 and c.club_no = $2 and c.entry = 'correction'
                 and not exists (select 1 from moves v where v.table_id = c.table_id and v.club_no = c.club_no and v.voids_seq = c.seq)), 0)
           and l.seq not in (select v.voids_seq from moves v
                 where v.table_id = $1 and v.club_no = $2 and v.voids_seq is not null)
         order by l.seq, l.idx"#,
        table.id,
        table.club_no,
    )
    .fetch_all(conn)
    .await?)
}

/// A line in force at one of a session's tables, with when the move that stored it was
/// recorded.
#[derive(Debug, Clone)]
pub struct SessionLine {
    pub table_id: Uuid,
    /// The line's JSON text.
    pub line: String,
    /// When its move was recorded: for a deal as first recorded, when it finished; for the lines
    /// a correction keeps, when the correction was made.
    pub stored_at: DateTime<Utc>,
}

/// The lines in force at the tables `tables` (all of club `club_no`) whose lines are rows, each
/// table's oldest first: as [`in_force_of_session`] gives a session's, for tables of any session.
///
/// # Errors
/// On database failure.
pub async fn in_force_of_tables(
    conn: &mut PgConnection,
    club_no: i32,
    tables: &[Uuid],
) -> Result<Vec<SessionLine>, StoreError> {
    Ok(sqlx::query_as!(
        SessionLine,
        r#"select l.table_id as "table_id!", l.line::text as "line!", m.recorded_at as "stored_at!"
         from game_tables t
         join deal_lines l on l.table_id = t.id and l.club_no = t.club_no
         join moves m on m.table_id = l.table_id and m.club_no = l.club_no and m.seq = l.seq
         where t.id = any($1::uuid[]) and t.club_no = $2 and t.deal_lines_kept
           and l.seq >= coalesce((select max(c.seq) from moves c
                 where c.table_id = t.id and c.club_no = t.club_no and c.entry = 'correction'
                 and not exists (select 1 from moves v where v.table_id = c.table_id and v.club_no = c.club_no and v.voids_seq = c.seq)), 0)
           and not exists (select 1 from moves v
                 where v.table_id = t.id and v.club_no = t.club_no and v.voids_seq = l.seq)
         order by t.created_at, t.id, l.seq, l.idx"#,
        tables,
        club_no,
    )
    .fetch_all(conn)
    .await?)
}

/// The lines in force at every table of `session` playing `game` whose lines are rows, each
/// table's oldest first (tables in order of creation): the same lines as [`in_force`] gives
/// each, in two reads (the session's tables, then [`in_force_of_tables`]).
///
/// # Errors
/// On database failure.
pub async fn in_force_of_session(
    conn: &mut PgConnection,
    session: Uuid,
    game: &str,
) -> Result<Vec<SessionLine>, StoreError> {
    // A session is one club's: its tables' lines are read as any tables' are.
    let found = sqlx::query!(
        r#"select club_no as "club_no!", array_agg(id) as "ids!" from game_tables
         where session_id = $1 and game = $2 and deal_lines_kept group by club_no"#,
        session,
        game,
    )
    .fetch_optional(&mut *conn)
    .await?;
    match found {
        Some(row) => in_force_of_tables(conn, row.club_no, &row.ids).await,
        None => Ok(Vec::new()),
    }
}
