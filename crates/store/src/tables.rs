//! Game tables, their move log and snapshots: rows in, rows out (the answers kept under an
//! `Idempotency-Key` are `super::idempotency_keys`', a move's own read and write
//! `super::move_path`').
//!
//! No game logic lives here: states, moves and events arrive and leave as JSON, and folding
//! the log through the engine is the application layer's (`tablekeeper_service`).
//!
//! Invariants the SQL keeps: `version` counts log entries and a new entry's seq is the locked
//! table's version plus one; an undo voids the latest effective move, so voids are last-in
//! first-out and a snapshot is usable exactly when the move that produced it is not voided.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::PgConnection;
use uuid::Uuid;

pub use super::idempotency_keys::{
    idempotent_response, prune_idempotent_responses, save_idempotent_response, StoredResponse,
};
pub use super::TableKey;
use super::{StoreError, Tx};

/// A table as stored.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TableRow {
    pub id: Uuid,
    pub owner_id: Uuid,
    /// The club the table belongs to (its session's, when it has one).
    pub club_id: Uuid,
    /// That club's number: every row the table holds carries it (the distribution column).
    pub club_no: i32,
    pub session_id: Option<Uuid>,
    pub game: String,
    pub players: Vec<String>,
    pub options: Value,
    pub version: i64,
    pub finished: bool,
    /// False for a table stored before score-sheet lines were rows, until its lines are rebuilt.
    pub deal_lines_kept: bool,
    /// The hash of the last link of the table's hash chain; None for a table stored before the
    /// chain existed, until its next entry links it.
    pub chain_head: Option<Vec<u8>>,
    /// The session's members in seat order; None for a table outside a session or stored
    /// before the roster.
    pub members: Option<Vec<Uuid>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl TableRow {
    #[must_use]
    pub fn key(&self) -> TableKey {
        TableKey {
            id: self.id,
            club_no: self.club_no,
        }
    }
}

/// One entry of the move log.
#[derive(Debug, Clone, sqlx::FromRow, serde::Serialize, serde::Deserialize)]
pub struct MoveRow {
    pub seq: i64,
    /// `move` or `void`.
    pub entry: String,
    pub kind: String,
    pub seat: Option<i16>,
    pub body: Value,
    pub events: Value,
    pub voids_seq: Option<i64>,
    pub voided_by: Option<i64>,
    /// For a move a correction brought: the correction's seq.
    pub part_of: Option<i64>,
    /// For a move a correction replaced: the latest correction that supersedes it (a voided
    /// correction included: the void says it no longer does).
    pub superseded_by: Option<i64>,
    pub recorded_by: String,
    pub recorded_at: DateTime<Utc>,
}

/// A new table's row data.
pub struct NewTable<'a> {
    pub owner: Uuid,
    pub club: Uuid,
    pub session: Option<Uuid>,
    pub game: &'a str,
    pub players: &'a [String],
    /// The options in force, defaults filled in.
    pub options: &'a Value,
    /// The session's members in seat order.
    pub members: Option<&'a [Uuid]>,
}

/// Inserts a table's row (its first snapshot and opening bookings are the caller's to add in
/// the same transaction).
///
/// # Errors
/// On database failure.
pub async fn insert(tx: &mut Tx<'_>, new: NewTable<'_>) -> Result<TableRow, StoreError> {
    // A table opened in a session that a board follows is followed from the start. The
    // session's row is read for share, so a board that follows the session meanwhile
    // either waits for this table to commit (and then leases it) or is seen here.
    let row = sqlx::query_as!(
        TableRow,
        "insert into game_tables (id, owner_id, session_id, game, players, options, members, club_id, club_no,
                                  followed_until)
         select $1, $2, $3, $4, $5, $6, $7, c.id, c.number,
                (select s.followed_until from club_sessions s where s.id = $3 for share)
         from clubs c where c.id = $8
         returning id, owner_id, club_id, club_no, session_id, game, players, options, version, finished, deal_lines_kept, chain_head, members, created_at, updated_at",
        Uuid::new_v4(),
        new.owner,
        new.session,
        new.game,
        new.players,
        new.options,
        new.members,
        new.club,
    )
    .fetch_one(&mut **tx)
    .await?;
    Ok(row)
}

/// # Errors
/// `NotFound` when there is no such table.
pub async fn fetch(conn: &mut PgConnection, id: Uuid) -> Result<TableRow, StoreError> {
    sqlx::query_as!(TableRow, "select id, owner_id, club_id, club_no, session_id, game, players, options, version, finished, deal_lines_kept, chain_head, members, created_at, updated_at from game_tables where id = $1", id)
        .fetch_optional(conn)
        .await?
        .ok_or(StoreError::NotFound("table"))
}

/// The table's row read again once its key is known (after a write in the same transaction):
/// as [`fetch`], on the one shard that holds it.
///
/// # Errors
/// `NotFound` when there is no such table.
pub async fn fetch_by_key(conn: &mut PgConnection, table: TableKey) -> Result<TableRow, StoreError> {
    sqlx::query_as!(
        TableRow,
        "select id, owner_id, club_id, club_no, session_id, game, players, options, version, finished, deal_lines_kept, chain_head, members, created_at, updated_at from game_tables where id = $1 and club_no = $2",
        table.id,
        table.club_no,
    )
    .fetch_optional(conn)
        .await?
        .ok_or(StoreError::NotFound("table"))
}

/// Fetches the table and locks it until the transaction ends: moves on one table are serial.
///
/// # Errors
/// `NotFound` when there is no such table.
pub async fn lock(tx: &mut Tx<'_>, id: Uuid) -> Result<TableRow, StoreError> {
    sqlx::query_as!(TableRow, "select id, owner_id, club_id, club_no, session_id, game, players, options, version, finished, deal_lines_kept, chain_head, members, created_at, updated_at from game_tables where id = $1 for update", id)
        .fetch_optional(&mut **tx)
        .await?
        .ok_or(StoreError::NotFound("table"))
}

/// Takes a share lock on every table of `session`, in id order (as a round's close locks its
/// tables), until the transaction ends: it waits for each write to them under way, and holds
/// back the next, so that what is read meanwhile of their chains stays as read.
///
/// # Errors
/// On database failure.
pub async fn hold_session_tables(tx: &mut Tx<'_>, session: Uuid) -> Result<(), StoreError> {
    sqlx::query_scalar!(
        "select id from game_tables where session_id = $1 order by id for share",
        session
    )
    .fetch_all(&mut **tx)
    .await?;
    Ok(())
}

/// The club's tables of `game` in sessions other than `session`, made before `before`, at which
/// any of `members` sat, newest first and at most `limit`: where a player's usual is read from.
///
/// # Errors
/// On database failure.
pub async fn earlier_of_members(
    conn: &mut PgConnection,
    club_no: i32,
    game: &str,
    session: Uuid,
    before: DateTime<Utc>,
    members: &[Uuid],
    limit: i64,
) -> Result<Vec<TableRow>, StoreError> {
    Ok(sqlx::query_as!(
        TableRow,
        "select id, owner_id, club_id, club_no, session_id, game, players, options, version, finished, deal_lines_kept, chain_head, members, created_at, updated_at from game_tables
         where club_no = $1 and game = $2 and session_id <> $3 and created_at < $4 and members && $5::uuid[]
         order by created_at desc, id desc limit $6",
        club_no,
        game,
        session,
        before,
        members,
        limit,
    )
    .fetch_all(conn)
    .await?)
}

/// Tables filtered by owner and/or session, oldest first.
///
/// # Errors
/// On database failure.
pub async fn list(
    conn: &mut PgConnection,
    owner: Option<Uuid>,
    session: Option<Uuid>,
    limit: i64,
    offset: i64,
) -> Result<Vec<TableRow>, StoreError> {
    Ok(sqlx::query_as!(
        TableRow,
        "select id, owner_id, club_id, club_no, session_id, game, players, options, version, finished, deal_lines_kept, chain_head, members, created_at, updated_at from game_tables
         where ($1::uuid is null or owner_id = $1) and ($2::uuid is null or session_id = $2)
         order by created_at, id limit $3 offset $4",
        owner,
        session,
        limit,
        offset,
    )
    .fetch_all(conn)
    .await?)
}

/// A page of the tables of every club where `user` is a member who has not left (every role
/// reads), or of `club` alone among them (a personal API token's), oldest first.
///
/// # Errors
/// On database failure.
pub async fn of_member(
    conn: &mut PgConnection,
    user: Uuid,
    club: Option<Uuid>,
    limit: i64,
    offset: i64,
) -> Result<Vec<TableRow>, StoreError> {
    Ok(sqlx::query_as!(
        TableRow,
        "select id, owner_id, club_id, club_no, session_id, game, players, options, version, finished, deal_lines_kept, chain_head, members, created_at, updated_at from game_tables
         where club_id in (select club_id from club_members where user_id = $1 and left_at is null)
           and ($2::uuid is null or club_id = $2)
         order by created_at, id limit $3 offset $4",
        user,
        club,
        limit,
        offset,
    )
    .fetch_all(conn)
    .await?)
}

/// Keeps a state of the fold, as left by entry `seq`.
///
/// # Errors
/// On database failure.
pub async fn save_snapshot(tx: &mut Tx<'_>, table: TableKey, seq: i64, state: &Value) -> Result<(), StoreError> {
    sqlx::query!(
        "insert into snapshots (table_id, club_no, seq, state) values ($1, $2, $3, $4)",
        table.id,
        table.club_no,
        seq,
        state,
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// The latest snapshot whose move is not voided, as `(seq, state)`, the state as JSON text (for
/// a reader that decodes it straight into the game).
///
/// # Errors
/// On database failure.
pub async fn latest_snapshot(conn: &mut PgConnection, table: TableKey) -> Result<Option<(i64, String)>, StoreError> {
    Ok(sqlx::query!(
        r#"select s.seq, s.state::text as "state!" from snapshots s
         where s.table_id = $1 and s.club_no = $2
           and not exists (select 1 from moves v where v.table_id = s.table_id and v.club_no = s.club_no and v.voids_seq = s.seq)
         order by s.seq desc limit 1"#,
        table.id,
        table.club_no,
    )
    .fetch_optional(conn)
    .await?
    .map(|row| (row.seq, row.state)))
}

/// The columns `recorded_by, recorded_by_organiser, recorded_by_scorer` of a new entry recorded
/// by the text `text` (an SQL expression: a placeholder, or a column of a batch's rows): the id
/// alone when the text is exactly `organiser:<id>` or `scorer:<id>` as
/// `tablekeeper_service::Principal::recorded_by` writes it (the id in PostgreSQL's own lower-case
/// form, so that [`super::RECORDED_BY`] gives back the same text, which the hash chain covers), else
/// the text. A CASE evaluates (and folds) its result only once its condition holds, so no other
/// text is ever cast.
pub(crate) fn recorded_by_stored(text: &str) -> String {
    format!(
        "case when {text} ~ '^(organiser|scorer):[0-9a-f]{{8}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{12}}$'
                                       then null else {text} end,
         case when {text} ~ '^organiser:[0-9a-f]{{8}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{12}}$'
              then substr({text}, 11)::uuid end,
         case when {text} ~ '^scorer:[0-9a-f]{{8}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{12}}$'
              then substr({text}, 8)::uuid end"
    )
}

// The statements below write out the log's columns (`recorded_by` read as
// [`super::RECORDED_BY`] reads it), [`EFFECTIVE`] and [`IN_PLAY_ORDER`]: a checked statement is
// one literal. `fragments_are_written_out_as_defined` (lib.rs) holds them to those constants.

/// The voids of a table are few and recent, so "not voided" is a lookup per move. A move a
/// correction brought is effective while the correction is not voided; a move a correction
/// replaced is not, while that correction is not voided.
pub(crate) const EFFECTIVE: &str = "m.entry = 'move'
    and not exists (select 1 from moves v where v.table_id = m.table_id and v.club_no = m.club_no and v.voids_seq = m.seq)
    and (m.part_of is null
         or not exists (select 1 from moves v where v.table_id = m.table_id and v.club_no = m.club_no and v.voids_seq = m.part_of))
    and not exists (select 1 from superseded_moves s where s.table_id = m.table_id and s.club_no = m.club_no and s.seq = m.seq
         and not exists (select 1 from moves v where v.table_id = s.table_id and v.club_no = s.club_no and v.voids_seq = s.correction_seq))";

/// The order of the effective moves: a correction's moves take the place of those they replace.
pub(crate) const IN_PLAY_ORDER: &str = "coalesce(m.position, m.seq::numeric), m.seq";

/// The moves after entry `after` that are not voided or superseded, in the order they were
/// played.
///
/// # Errors
/// On database failure.
pub async fn effective_moves(conn: &mut PgConnection, table: TableKey, after: i64) -> Result<Vec<MoveRow>, StoreError> {
    Ok(sqlx::query_as!(
        MoveRow,
        r#"select m.seq, m.entry, m.kind, m.seat, m.body, m.events, m.voids_seq,
    (select v.seq from moves v where v.table_id = m.table_id and v.club_no = m.club_no and v.voids_seq = m.seq) as voided_by,
    m.part_of,
    (select max(s.correction_seq) from superseded_moves s where s.table_id = m.table_id and s.club_no = m.club_no and s.seq = m.seq)
        as superseded_by,
    coalesce(m.recorded_by, 'organiser:' || m.recorded_by_organiser, 'scorer:' || m.recorded_by_scorer)
        as "recorded_by!",
    m.recorded_at from moves m
         where m.table_id = $1 and m.club_no = $3 and m.seq > $2 and m.entry = 'move'
    and not exists (select 1 from moves v where v.table_id = m.table_id and v.club_no = m.club_no and v.voids_seq = m.seq)
    and (m.part_of is null
         or not exists (select 1 from moves v where v.table_id = m.table_id and v.club_no = m.club_no and v.voids_seq = m.part_of))
    and not exists (select 1 from superseded_moves s where s.table_id = m.table_id and s.club_no = m.club_no and s.seq = m.seq
         and not exists (select 1 from moves v where v.table_id = s.table_id and v.club_no = s.club_no and v.voids_seq = s.correction_seq)) order by coalesce(m.position, m.seq::numeric), m.seq"#,
        table.id,
        after,
        table.club_no,
    )
    .fetch_all(conn)
    .await?)
}

/// The seqs of the moves that are not voided or superseded, in the order they were played:
/// [`effective_moves`] of the whole log without the moves themselves.
///
/// # Errors
/// On database failure.
pub async fn effective_seqs(conn: &mut PgConnection, table: TableKey) -> Result<Vec<i64>, StoreError> {
    Ok(sqlx::query_scalar!(
        "select m.seq from moves m where m.table_id = $1 and m.club_no = $2 and m.entry = 'move'
    and not exists (select 1 from moves v where v.table_id = m.table_id and v.club_no = m.club_no and v.voids_seq = m.seq)
    and (m.part_of is null
         or not exists (select 1 from moves v where v.table_id = m.table_id and v.club_no = m.club_no and v.voids_seq = m.part_of))
    and not exists (select 1 from superseded_moves s where s.table_id = m.table_id and s.club_no = m.club_no and s.seq = m.seq
         and not exists (select 1 from moves v where v.table_id = s.table_id and v.club_no = s.club_no and v.voids_seq = s.correction_seq)) order by coalesce(m.position, m.seq::numeric), m.seq",
        table.id,
        table.club_no,
    )
    .fetch_all(conn)
    .await?)
}

/// The seq of the latest entry that an undo voids, if any: the latest move that is not voided
/// or superseded, or the latest correction in force when that comes after it (a correction is
/// undone whole, with the moves it brought).
///
/// # Errors
/// On database failure.
pub async fn latest_effective_seq(conn: &mut PgConnection, table: TableKey) -> Result<Option<i64>, StoreError> {
    Ok(sqlx::query_scalar!(
        "select m.seq from moves m where m.table_id = $1 and m.club_no = $2
           and ((m.entry = 'move'
    and not exists (select 1 from moves v where v.table_id = m.table_id and v.club_no = m.club_no and v.voids_seq = m.seq)
    and (m.part_of is null
         or not exists (select 1 from moves v where v.table_id = m.table_id and v.club_no = m.club_no and v.voids_seq = m.part_of))
    and not exists (select 1 from superseded_moves s where s.table_id = m.table_id and s.club_no = m.club_no and s.seq = m.seq
         and not exists (select 1 from moves v where v.table_id = s.table_id and v.club_no = s.club_no and v.voids_seq = s.correction_seq))) or (m.entry = 'correction'
                and not exists (select 1 from moves v where v.table_id = m.table_id and v.club_no = m.club_no and v.voids_seq = m.seq)))
         order by m.seq desc limit 1",
        table.id,
        table.club_no,
    )
    .fetch_optional(conn)
    .await?)
}

/// A page of the log, entries after `after`, oldest first.
///
/// # Errors
/// On database failure.
pub async fn log(conn: &mut PgConnection, table: TableKey, after: i64, limit: i64) -> Result<Vec<MoveRow>, StoreError> {
    Ok(sqlx::query_as!(
        MoveRow,
        r#"select m.seq, m.entry, m.kind, m.seat, m.body, m.events, m.voids_seq,
    (select v.seq from moves v where v.table_id = m.table_id and v.club_no = m.club_no and v.voids_seq = m.seq) as voided_by,
    m.part_of,
    (select max(s.correction_seq) from superseded_moves s where s.table_id = m.table_id and s.club_no = m.club_no and s.seq = m.seq)
        as superseded_by,
    coalesce(m.recorded_by, 'organiser:' || m.recorded_by_organiser, 'scorer:' || m.recorded_by_scorer)
        as "recorded_by!",
    m.recorded_at from moves m
         where m.table_id = $1 and m.club_no = $4 and m.seq > $2 order by m.seq limit $3"#,
        table.id,
        after,
        limit,
        table.club_no,
    )
    .fetch_all(conn)
    .await?)
}

/// One entry of the log.
///
/// # Errors
/// On database failure, or when there is no such entry.
pub async fn move_row(conn: &mut PgConnection, table: TableKey, seq: i64) -> Result<MoveRow, StoreError> {
    Ok(sqlx::query_as!(
        MoveRow,
        r#"select m.seq, m.entry, m.kind, m.seat, m.body, m.events, m.voids_seq,
    (select v.seq from moves v where v.table_id = m.table_id and v.club_no = m.club_no and v.voids_seq = m.seq) as voided_by,
    m.part_of,
    (select max(s.correction_seq) from superseded_moves s where s.table_id = m.table_id and s.club_no = m.club_no and s.seq = m.seq)
        as superseded_by,
    coalesce(m.recorded_by, 'organiser:' || m.recorded_by_organiser, 'scorer:' || m.recorded_by_scorer)
        as "recorded_by!",
    m.recorded_at from moves m where m.table_id = $1 and m.club_no = $3 and m.seq = $2"#,
        table.id,
        seq,
        table.club_no,
    )
    .fetch_one(conn)
    .await?)
}

/// Counts one more log entry and records whether the game is over.
///
/// # Errors
/// On database failure.
pub async fn bump_version(tx: &mut Tx<'_>, table: TableKey, finished: bool) -> Result<(), StoreError> {
    sqlx::query!(
        "update game_tables set version = version + 1, finished = $2, updated_at = now() where id = $1 and club_no = $3",
        table.id,
        finished,
        table.club_no,
    )
    .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Appends a void of move `voided` as entry `seq`; it repeats the voided move's kind, seat and
/// body so that the log reads on its own.
///
/// # Errors
/// On database failure.
pub async fn append_void(
    tx: &mut Tx<'_>,
    table: TableKey,
    seq: i64,
    voided: &MoveRow,
    recorded_by: &str,
) -> Result<(), StoreError> {
    sqlx::query!(
        "insert into moves (table_id, seq, entry, kind, seat, body, events, voids_seq, recorded_by, club_no)
         values ($1, $2, 'void', $3, $4, $5::json, '[]', $6, $7, $8)",
        table.id,
        seq,
        &voided.kind,
        voided.seat,
        // Sent as text, as the statement was written for (`$5::json`).
        voided.body.to_string() as _,
        voided.seq,
        recorded_by,
        table.club_no,
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Whether the session has a table other than `table` still being played.
///
/// # Errors
/// On database failure.
pub async fn others_unfinished(conn: &mut PgConnection, session: Uuid, table: Uuid) -> Result<bool, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"select exists (select 1 from game_tables where session_id = $1 and id <> $2 and not finished) as "exists!""#,
        session,
        table,
    )
    .fetch_one(conn)
    .await?)
}
