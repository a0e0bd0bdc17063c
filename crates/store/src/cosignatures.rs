//! Phones' keys and their cosignatures of a table's checkpoints: rows in, rows out (the
//! signatures are checked by `tablekeeper_service::cosigning` before anything is written).
//!
//! Invariants: both relations are append-only (the application's role may not change them); a
//! phone (scorer) has at most one key, for good; a cosignature names a registered key's phone.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

use super::StoreError;
use super::TableKey;

/// A phone's registered key.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct PhoneKeyRow {
    pub scorer_id: Uuid,
    /// The scorer's name, as it joined.
    pub name: String,
    pub public_key: Vec<u8>,
    pub registered_at: DateTime<Utc>,
}

/// A cosignature as kept, with its phone's name and key.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct CosignatureRow {
    pub scorer_id: Uuid,
    pub name: String,
    pub public_key: Vec<u8>,
    pub size: i64,
    pub root_hash: Vec<u8>,
    pub signed_time: i64,
    pub signature: Vec<u8>,
    pub received_at: DateTime<Utc>,
}

/// The key the table's phone `scorer` registered, if any.
///
/// # Errors
/// On database failure.
pub async fn key(conn: &mut PgConnection, table: TableKey, scorer: Uuid) -> Result<Option<PhoneKeyRow>, StoreError> {
    Ok(sqlx::query_as!(
        PhoneKeyRow,
        r#"select k.scorer_id, s.name, k.public_key, k.registered_at
           from phone_keys k join scorers s on s.table_id = k.table_id and s.id = k.scorer_id and s.club_no = k.club_no
           where k.table_id = $1 and k.club_no = $2 and k.scorer_id = $3"#,
        table.id,
        table.club_no,
        scorer,
    )
    .fetch_optional(conn)
    .await?)
}

/// The keys of the table's phones, in the order they were registered.
///
/// # Errors
/// On database failure.
pub async fn keys(conn: &mut PgConnection, table: TableKey) -> Result<Vec<PhoneKeyRow>, StoreError> {
    Ok(sqlx::query_as!(
        PhoneKeyRow,
        r#"select k.scorer_id, s.name, k.public_key, k.registered_at
           from phone_keys k join scorers s on s.table_id = k.table_id and s.id = k.scorer_id and s.club_no = k.club_no
           where k.table_id = $1 and k.club_no = $2
           order by k.registered_at, k.scorer_id"#,
        table.id,
        table.club_no,
    )
    .fetch_all(conn)
    .await?)
}

/// Registers the table's phone `scorer`'s key; a phone that has one keeps it (nothing is
/// written). The key in force.
///
/// # Errors
/// On database failure.
pub async fn register(
    conn: &mut PgConnection,
    table: TableKey,
    scorer: Uuid,
    public_key: &[u8],
) -> Result<PhoneKeyRow, StoreError> {
    sqlx::query!(
        "insert into phone_keys (table_id, scorer_id, club_no, public_key) values ($1, $2, $3, $4) on conflict do nothing",
        table.id,
        scorer,
        table.club_no,
        public_key,
    )
    .execute(&mut *conn)
    .await?;
    key(conn, table, scorer).await?.ok_or(StoreError::NotFound("scorer"))
}

/// Keeps a cosignature (one the same phone already sent for the same time is kept once).
///
/// # Errors
/// On database failure.
pub async fn insert(
    conn: &mut PgConnection,
    table: TableKey,
    scorer: Uuid,
    size: i64,
    root_hash: &[u8],
    signed_time: i64,
    signature: &[u8],
) -> Result<(), StoreError> {
    sqlx::query!(
        "insert into cosignatures (table_id, club_no, scorer_id, size, root_hash, signed_time, signature)
         values ($1, $2, $3, $4, $5, $6, $7) on conflict do nothing",
        table.id,
        table.club_no,
        scorer,
        size,
        root_hash,
        signed_time,
        signature,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// The cosignatures of the table's checkpoints of `size` (all sizes when None), by size, then
/// as they came.
///
/// # Errors
/// On database failure.
pub async fn of_table(
    conn: &mut PgConnection,
    table: TableKey,
    size: Option<i64>,
) -> Result<Vec<CosignatureRow>, StoreError> {
    Ok(sqlx::query_as!(
        CosignatureRow,
        r#"select c.scorer_id, s.name, k.public_key, c.size, c.root_hash, c.signed_time, c.signature, c.received_at
           from cosignatures c
           join phone_keys k on k.table_id = c.table_id and k.scorer_id = c.scorer_id and k.club_no = c.club_no
           join scorers s on s.table_id = c.table_id and s.id = c.scorer_id and s.club_no = c.club_no
           where c.table_id = $1 and c.club_no = $2 and ($3::bigint is null or c.size = $3)
           order by c.size, c.received_at, c.scorer_id, c.signed_time"#,
        table.id,
        table.club_no,
        size,
    )
    .fetch_all(conn)
    .await?)
}

/// A board's registered key: a session's big screen, which cosigns every table of the session.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct BoardKeyRow {
    pub board_id: Uuid,
    pub name: String,
    pub public_key: Vec<u8>,
    pub registered_at: DateTime<Utc>,
}

/// A board's cosignature as kept, with the board's name and key.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct BoardCosignatureRow {
    pub board_id: Uuid,
    pub name: String,
    pub public_key: Vec<u8>,
    pub size: i64,
    pub root_hash: Vec<u8>,
    pub signed_time: i64,
    pub signature: Vec<u8>,
    pub received_at: DateTime<Utc>,
}

/// The session's boards' keys, in the order they were registered.
///
/// # Errors
/// On database failure.
pub async fn board_keys(conn: &mut PgConnection, session: Uuid) -> Result<Vec<BoardKeyRow>, StoreError> {
    Ok(sqlx::query_as!(
        BoardKeyRow,
        "select board_id, name, public_key, registered_at from board_keys
         where session_id = $1 order by registered_at, board_id",
        session,
    )
    .fetch_all(conn)
    .await?)
}

/// The session's board `board`'s key, if it has one.
///
/// # Errors
/// On database failure.
pub async fn board_key(conn: &mut PgConnection, session: Uuid, board: Uuid) -> Result<Option<BoardKeyRow>, StoreError> {
    Ok(sqlx::query_as!(
        BoardKeyRow,
        "select board_id, name, public_key, registered_at from board_keys where session_id = $1 and board_id = $2",
        session,
        board,
    )
    .fetch_optional(conn)
    .await?)
}

/// Registers a board's key for the session as `board` unless the session already has that key
/// (then nothing is written): the board the key is in force for, and whether it is new.
/// `most` boards at most: beyond them, None and nothing is written.
///
/// # Errors
/// On database failure.
pub async fn register_board(
    conn: &mut PgConnection,
    session: Uuid,
    board: Uuid,
    name: &str,
    public_key: &[u8],
    most: i64,
) -> Result<Option<(BoardKeyRow, bool)>, StoreError> {
    // The session's row, locked: two boards registering at once cannot both be the last one
    // the cap allows.
    sqlx::query!("select id from club_sessions where id = $1 for update", session)
        .fetch_optional(&mut *conn)
        .await?
        .ok_or(StoreError::NotFound("session"))?;
    let before = sqlx::query_as!(
        BoardKeyRow,
        "select board_id, name, public_key, registered_at from board_keys where session_id = $1 and public_key = $2",
        session,
        public_key,
    )
    .fetch_optional(&mut *conn)
    .await?;
    if let Some(before) = before {
        return Ok(Some((before, false)));
    }
    let kept = sqlx::query_as!(
        BoardKeyRow,
        "insert into board_keys (session_id, board_id, name, public_key)
         select $1, $2, $3, $4 where (select count(*) from board_keys where session_id = $1) < $5
         returning board_id, name, public_key, registered_at",
        session,
        board,
        name,
        public_key,
        most,
    )
    .fetch_optional(conn)
    .await?;
    Ok(kept.map(|k| (k, true)))
}

/// Keeps a board's cosignature of one of the session's tables' checkpoints (one the same board
/// already sent for the same time is kept once).
///
/// # Errors
/// On database failure.
#[allow(clippy::too_many_arguments)]
pub async fn insert_board(
    conn: &mut PgConnection,
    table: TableKey,
    session: Uuid,
    board: Uuid,
    size: i64,
    root_hash: &[u8],
    signed_time: i64,
    signature: &[u8],
) -> Result<(), StoreError> {
    sqlx::query!(
        "insert into board_cosignatures (table_id, club_no, session_id, board_id, size, root_hash, signed_time, signature)
         values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict do nothing",
        table.id,
        table.club_no,
        session,
        board,
        size,
        root_hash,
        signed_time,
        signature,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// The boards' cosignatures of the table's checkpoints of `size` (all sizes when None), by
/// size, then as they came.
///
/// # Errors
/// On database failure.
pub async fn boards_of_table(
    conn: &mut PgConnection,
    table: TableKey,
    size: Option<i64>,
) -> Result<Vec<BoardCosignatureRow>, StoreError> {
    Ok(sqlx::query_as!(
        BoardCosignatureRow,
        r#"select c.board_id, k.name, k.public_key, c.size, c.root_hash, c.signed_time, c.signature, c.received_at
           from board_cosignatures c
           join board_keys k on k.session_id = c.session_id and k.board_id = c.board_id
           where c.table_id = $1 and c.club_no = $2 and ($3::bigint is null or c.size = $3)
           order by c.size, c.received_at, c.board_id, c.signed_time"#,
        table.id,
        table.club_no,
        size,
    )
    .fetch_all(conn)
    .await?)
}
