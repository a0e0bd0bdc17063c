//! What changed a session's results after they were recorded (issue #42, "who changed what,
//! when"): its tables' corrections, rulings, answers to rulings and undos (entries of their
//! logs), and the session's closes and reopenings. Reads only.
//!
//! Invariants: every row read here is append-only where it is stored, so a change once listed
//! stays listed with the same facts; the order (time, then table, then seq) is total, so pages
//! by offset neither skip nor repeat a change while nothing new is written.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::PgConnection;
use uuid::Uuid;

use super::{StoreError, TableKey};

/// One change, as stored.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ChangeRow {
    pub at: DateTime<Utc>,
    /// `correction`, `ruling`, `ruling_answer`, `undo`, `close` or `reopen`.
    pub kind: String,
    /// The table whose log holds it; none for a close or a reopening.
    pub table_id: Option<Uuid>,
    pub club_no: Option<i32>,
    /// Its log entry; for a close or a reopening, the close's number.
    pub seq: i64,
    /// The deal it is about, when the stored rows name one.
    pub deal: Option<i32>,
    /// As the log names a recorder (`organiser:<user id>`, `scorer:<id>`).
    pub by: String,
    pub reason: Option<String>,
    /// The entry's body: a correction's deal, moves and reason; a ruling's kind, reason and
    /// diff; an answer's ruling, answer and comment; an undo's copy of what it voided. For a
    /// close or a reopening, nothing (its times are `closed_at` and `final_at`).
    pub body: Value,
    /// The log entry's kind (a ruling's kind, `response`, the voided move's kind).
    pub entry_kind: Option<String>,
    /// For an undo: the entry it voided and what that entry was (`move`, `correction`, …).
    pub voids_seq: Option<i64>,
    pub undone_entry: Option<String>,
    /// For a correction: the bookings it made, ids `first_booking..=last_booking`.
    pub first_booking: Option<i64>,
    pub last_booking: Option<i64>,
    /// For a correction: the moves it replaced, `{seq, kind, seat, move}` each, oldest first.
    pub replaced: Option<Value>,
    /// For a close or a reopening: when the close was made and when it made the session final.
    pub closed_at: Option<DateTime<Utc>>,
    pub final_at: Option<DateTime<Utc>>,
}

/// A page of the session's changes: oldest first, then by the table's age, then by seq.
///
/// # Errors
/// On database failure.
pub async fn of_session(
    conn: &mut PgConnection,
    session: Uuid,
    limit: i64,
    offset: i64,
) -> Result<Vec<ChangeRow>, StoreError> {
    // The deal of an undo is the voided correction's, else the deal whose line the voided move
    // finished, else the deal of what the undo reversed, else (a move in the middle of a deal)
    // the deal after the last one finished before it: a move's own body does not name it.
    Ok(sqlx::query_as!(
        ChangeRow,
        r#"with t as (select id, club_no, created_at from game_tables where session_id = $1),
     changes as (
    select m.recorded_at as at,
           case when m.entry = 'correction' then 'correction'
                when m.entry = 'void' then 'undo'
                when m.kind = 'response' then 'ruling_answer'
                else 'ruling' end as kind,
           t.id as table_id, t.club_no as club_no, t.created_at as table_created, m.seq,
           case when m.entry = 'correction' then c.deal
                when m.entry = 'ruling' then (m.body->>'deal')::integer
                else coalesce(
                    (select u.deal from corrections u
                      where u.table_id = m.table_id and u.club_no = m.club_no and u.seq = m.voids_seq),
                    (select min((l.line->>'deal')::integer) from deal_lines l
                      where l.table_id = m.table_id and l.club_no = m.club_no and l.seq = m.voids_seq),
                    (select min(b.deal) from ledger_bookings b
                      where b.table_id = m.table_id and b.club_no = m.club_no and b.move_seq = m.seq),
                    (select coalesce(max(coalesce(l.line->>'deal', l.line->>'hand')::integer), 0) + 1
                       from deal_lines l
                      where l.table_id = m.table_id and l.club_no = m.club_no and l.seq < m.voids_seq))
           end as deal,
           coalesce(m.recorded_by, 'organiser:' || m.recorded_by_organiser, 'scorer:' || m.recorded_by_scorer) as recorder,
           case when m.entry = 'correction' then c.reason
                when m.entry = 'ruling' and m.kind = 'response' then m.body->>'comment'
                when m.entry = 'ruling' then m.body->>'reason' end as reason,
           m.body, m.kind as entry_kind, m.voids_seq, v.entry as undone_entry,
           c.first_booking, c.last_booking,
           case when m.entry = 'correction' then
               coalesce((select json_agg(json_build_object('seq', o.seq, 'kind', o.kind, 'seat', o.seat, 'move', o.body)
                                         order by o.seq)
                           from superseded_moves s
                           join moves o on o.table_id = s.table_id and o.club_no = s.club_no and o.seq = s.seq
                          where s.table_id = m.table_id and s.club_no = m.club_no and s.correction_seq = m.seq),
                        '[]'::json) end as replaced,
           null::timestamptz as closed_at, null::timestamptz as final_at
      from t
      join moves m on m.table_id = t.id and m.club_no = t.club_no
      left join corrections c on c.table_id = m.table_id and c.club_no = m.club_no and c.seq = m.seq
      left join moves v on v.table_id = m.table_id and v.club_no = m.club_no and v.seq = m.voids_seq
     where m.entry in ('correction', 'ruling', 'void')
    union all
    select c.closed_at, 'close', null, null, null, c.n::bigint, null, 'organiser:' || c.closed_by, c.forced,
           '{}'::json, null, null, null, null, null, null, c.closed_at, c.final_at
      from session_closes c where c.session_id = $1
    union all
    select r.reopened_at, 'reopen', null, null, null, r.n::bigint, null, 'organiser:' || r.reopened_by, r.reason,
           '{}'::json, null, null, null, null, null, null, c.closed_at, c.final_at
      from session_reopenings r
      join session_closes c on c.session_id = r.session_id and c.n = r.n
     where r.session_id = $1)
select at as "at!", kind as "kind!", table_id, club_no, seq as "seq!", deal, recorder as "by!", reason,
       body as "body!: Value", entry_kind, voids_seq, undone_entry, first_booking, last_booking,
       replaced as "replaced: Value", closed_at, final_at
  from changes
 order by at, table_created nulls first, table_id nulls first, seq, kind
 limit $2 offset $3"#,
        session,
        limit,
        offset,
    )
    .fetch_all(conn)
    .await?)
}

/// The score-sheet lines as they stood just before log entry `seq` of the table (a
/// correction), and those it kept: `(seq, line)` in sheet order, each line's `seq` the entry
/// that kept it (`seq` itself for the sheet as the correction left it).
///
/// A correction keeps the whole sheet as corrected under its own seq, so the sheet before it
/// is read as `deal_lines::in_force` reads the sheet now, with only the entries before it
/// counted: the latest correction before it not yet voided then, and the lines of moves not
/// yet voided then.
///
/// # Errors
/// On database failure.
pub async fn lines_around(conn: &mut PgConnection, table: TableKey, seq: i64) -> Result<Vec<(i64, Value)>, StoreError> {
    let rows = sqlx::query!(
        r#"select l.seq, l.line as "line!: Value" from deal_lines l
         where l.table_id = $1 and l.club_no = $2 and l.seq <= $3
           and l.seq >= coalesce((select max(c.seq) from moves c
                 where c.table_id = $1 and c.club_no = $2 and c.entry = 'correction' and c.seq < $3
                 and not exists (select 1 from moves v where v.table_id = c.table_id and v.club_no = c.club_no
                                  and v.voids_seq = c.seq and v.seq < $3)), 0)
           and l.seq not in (select v.voids_seq from moves v
                 where v.table_id = $1 and v.club_no = $2 and v.voids_seq is not null and v.seq < $3)
         order by l.seq, l.idx"#,
        table.id,
        table.club_no,
        seq,
    )
    .fetch_all(conn)
    .await?;
    Ok(rows.into_iter().map(|r| (r.seq, r.line)).collect())
}
