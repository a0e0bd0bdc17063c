//! Game tables and their move log.
//!
//! The log is the source of truth: a table's state is the fold of its effective moves (those
//! not voided) through the engine. Snapshots of that fold are kept at deal boundaries, so
//! reading or extending a table replays at most one deal, however long its history.
//!
//! Invariants: `version` counts log entries; an undo voids the latest effective move, so voids
//! are last-in first-out and a snapshot is valid exactly when the move that produced it is
//! not voided.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::PgConnection;
use uuid::Uuid;

use super::{StoreError, Tx};
use crate::ledger::Booking;
use crate::rules::{Game, Seat, Settlement};

/// A table as stored.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TableRow {
    pub id: Uuid,
    pub owner_id: Uuid,
    pub session_id: Option<Uuid>,
    pub game: String,
    pub players: Vec<String>,
    pub options: Value,
    pub version: i64,
    pub finished: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// One entry of the move log.
#[derive(Debug, Clone, sqlx::FromRow)]
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
    pub recorded_by: String,
    pub recorded_at: DateTime<Utc>,
}

/// A new table's row data.
pub struct NewTable<'a> {
    pub owner: Uuid,
    pub session: Option<Uuid>,
    pub game: &'a str,
    pub players: &'a [String],
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<Value, StoreError> {
    serde_json::to_value(value).map_err(StoreError::corrupt)
}

/// Creates a table with its first snapshot.
///
/// # Errors
/// On database failure.
pub async fn insert<G: Game>(tx: &mut Tx<'_>, new: NewTable<'_>, game: &G) -> Result<TableRow, StoreError> {
    let row = sqlx::query_as::<_, TableRow>(
        "insert into game_tables (id, owner_id, session_id, game, players, options)
         values ($1, $2, $3, $4, $5, $6) returning *",
    )
    .bind(Uuid::new_v4())
    .bind(new.owner)
    .bind(new.session)
    .bind(new.game)
    .bind(new.players)
    .bind(to_json(&game.options())?)
    .fetch_one(&mut **tx)
    .await?;
    save_snapshot(tx, row.id, 0, game).await?;
    book_settlements(tx, row.id, 0, &game.opening_settlements()).await?;
    Ok(row)
}

async fn book_settlements(
    tx: &mut Tx<'_>,
    table: Uuid,
    seq: i64,
    settlements: &[Settlement],
) -> Result<(), StoreError> {
    for settlement in settlements {
        let booking = Booking::from_settlement(settlement)?;
        super::ledger::book(tx, table, seq, settlement.deal.map(i32::from), &booking, None).await?;
    }
    Ok(())
}

/// # Errors
/// `NotFound` when there is no such table.
pub async fn fetch(conn: &mut PgConnection, id: Uuid) -> Result<TableRow, StoreError> {
    sqlx::query_as::<_, TableRow>("select * from game_tables where id = $1")
        .bind(id)
        .fetch_optional(conn)
        .await?
        .ok_or(StoreError::NotFound("table"))
}

/// Fetches the table and locks it until the transaction ends: moves on one table are serial.
///
/// # Errors
/// `NotFound` when there is no such table.
pub async fn lock(tx: &mut Tx<'_>, id: Uuid) -> Result<TableRow, StoreError> {
    sqlx::query_as::<_, TableRow>("select * from game_tables where id = $1 for update")
        .bind(id)
        .fetch_optional(&mut **tx)
        .await?
        .ok_or(StoreError::NotFound("table"))
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
    Ok(sqlx::query_as::<_, TableRow>(
        "select * from game_tables
         where ($1::uuid is null or owner_id = $1) and ($2::uuid is null or session_id = $2)
         order by created_at, id limit $3 offset $4",
    )
    .bind(owner)
    .bind(session)
    .bind(limit)
    .bind(offset)
    .fetch_all(conn)
    .await?)
}

async fn save_snapshot<G: Game>(tx: &mut Tx<'_>, table: Uuid, seq: i64, game: &G) -> Result<(), StoreError> {
    sqlx::query("insert into snapshots (table_id, seq, state) values ($1, $2, $3)")
        .bind(table)
        .bind(seq)
        .bind(to_json(game)?)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// The table's current state: the latest valid snapshot and the effective moves after it.
///
/// # Errors
/// `Corrupt` when the stored log no longer replays (a bug, never a client's doing).
pub async fn state<G: Game>(conn: &mut PgConnection, table: Uuid) -> Result<G, StoreError> {
    Ok(replayed_state(conn, table).await?.0)
}

/// A snapshot is also kept after this many moves replayed since the last one, so that a move
/// within a long deal does not replay the whole deal either.
const SNAPSHOT_EVERY: usize = 16;

/// The current state and how many moves were replayed on top of the snapshot to reach it.
///
/// A snapshot is a cache of the fold: one written by an earlier version whose state no longer
/// reads (a changed shape) is passed over, and the fold starts again from the table's set-up.
async fn replayed_state<G: Game>(conn: &mut PgConnection, table: Uuid) -> Result<(G, usize), StoreError> {
    let (seq, state): (i64, Value) = sqlx::query_as(
        "select s.seq, s.state from snapshots s
         where s.table_id = $1
           and not exists (select 1 from moves v where v.table_id = s.table_id and v.voids_seq = s.seq)
         order by s.seq desc limit 1",
    )
    .bind(table)
    .fetch_optional(&mut *conn)
    .await?
    .unwrap_or((0, Value::Null));
    let (seq, mut game): (i64, G) = match serde_json::from_value(state) {
        Ok(game) => (seq, game),
        Err(_) => (0, initial(&fetch(&mut *conn, table).await?)?),
    };
    let bodies: Vec<(i64, Value)> = sqlx::query_as(
        "select m.seq, m.body from moves m
         where m.table_id = $1 and m.seq > $2 and m.entry = 'move'
           and not exists (select 1 from moves v where v.table_id = m.table_id and v.voids_seq = m.seq)
         order by m.seq",
    )
    .bind(table)
    .bind(seq)
    .fetch_all(conn)
    .await?;
    let replayed = bodies.len();
    for (seq, body) in bodies {
        let mv: G::Move = serde_json::from_value(body).map_err(StoreError::corrupt)?;
        game.apply(&mv)
            .map_err(|v| StoreError::Corrupt(format!("move {seq} no longer replays: {v}")))?;
    }
    Ok((game, replayed))
}

/// What a full replay of a table's log found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Audit {
    pub moves_replayed: usize,
    /// The replayed state equals the state read through snapshots.
    pub state_matches: bool,
    /// Every stored move's events equal the events the engine gives on replay.
    pub events_match: bool,
    /// The bookings in force (not reversed) equal the settlements the replay produces.
    pub ledger_matches: bool,
    /// A sentence per discrepancy.
    pub problems: Vec<String>,
}

/// The game a table was created as: from its row's players and options, not from any snapshot.
///
/// # Errors
/// `Corrupt` when the stored options no longer set up a game.
pub fn initial<G: Game>(table: &TableRow) -> Result<G, StoreError> {
    let options: G::Options = serde_json::from_value(table.options.clone()).map_err(StoreError::corrupt)?;
    G::new(table.players.len(), options).map_err(StoreError::corrupt)
}

/// Replays the table's whole log from a fresh game, ignoring snapshots.
///
/// # Errors
/// `Corrupt` when the log does not replay.
pub async fn replay<G: Game>(conn: &mut PgConnection, table: &TableRow) -> Result<G, StoreError> {
    let mut game: G = initial(table)?;
    for row in effective_moves(conn, table.id).await? {
        let mv: G::Move = serde_json::from_value(row.body).map_err(StoreError::corrupt)?;
        game.apply(&mv)
            .map_err(|v| StoreError::Corrupt(format!("move {} no longer replays: {v}", row.seq)))?;
    }
    Ok(game)
}

/// Replays the whole log and checks the stored events, snapshots and ledger against it.
///
/// # Errors
/// On database failure; a log that does not replay is reported as a problem, not an error.
pub async fn audit<G: Game>(conn: &mut PgConnection, table: &TableRow) -> Result<Audit, StoreError> {
    type Key = (i64, Option<i32>, String, Vec<(String, i64)>);
    fn key(seq: i64, deal: Option<i32>, memo: &str, postings: impl Iterator<Item = (String, i64)>) -> Key {
        // As a booking stores them: one posting per account, none of zero.
        let mut merged: std::collections::BTreeMap<String, i64> = std::collections::BTreeMap::new();
        for (account, amount) in postings {
            *merged.entry(account).or_default() += amount;
        }
        let postings = merged.into_iter().filter(|(_, amount)| *amount != 0).collect();
        (seq, deal, memo.to_owned(), postings)
    }
    let mut problems = Vec::new();
    let mut game: G = initial(table)?;
    let mut expected: Vec<Key> = Vec::new();
    let settled = |seq: i64, settlements: Vec<Settlement>, into: &mut Vec<Key>| {
        for s in settlements {
            let postings = s.postings.iter().map(|(a, c)| (a.to_string(), c.get()));
            into.push(key(seq, s.deal.map(i32::from), &s.memo, postings));
        }
    };
    settled(0, game.opening_settlements(), &mut expected);
    let moves = effective_moves(&mut *conn, table.id).await?;
    let mut events_match = true;
    let mut replayed = 0;
    for row in &moves {
        let mv: G::Move = serde_json::from_value(row.body.clone()).map_err(StoreError::corrupt)?;
        match game.apply(&mv) {
            Ok(events) => {
                replayed += 1;
                if to_json(&events)? != row.events {
                    events_match = false;
                    problems.push(format!("move {}: the stored events differ from the replay's", row.seq));
                }
                settled(row.seq, G::settlements(&events), &mut expected);
            }
            Err(v) => {
                problems.push(format!("move {} no longer replays: {v}", row.seq));
                break;
            }
        }
    }
    let stored = super::ledger::bookings(&mut *conn, table.id, None).await?;
    let reversed: std::collections::HashSet<i64> = stored.iter().filter_map(|b| b.reverses).collect();
    let mut in_force: Vec<Key> = stored
        .iter()
        .filter(|b| b.reverses.is_none() && !reversed.contains(&b.id))
        .map(|b| {
            key(
                b.move_seq,
                b.deal,
                &b.memo,
                b.postings.iter().map(|p| (p.account.to_string(), p.amount.get())),
            )
        })
        .collect();
    in_force.sort();
    expected.sort();
    let ledger_matches = in_force == expected;
    if !ledger_matches {
        problems.push(format!(
            "the ledger holds {} bookings in force where the replay books {}, or they differ",
            in_force.len(),
            expected.len()
        ));
    }
    let incremental: G = state(conn, table.id).await?;
    let state_matches = incremental == game;
    if !state_matches {
        problems.push("the state read through snapshots differs from the full replay".into());
    }
    Ok(Audit {
        moves_replayed: replayed,
        state_matches,
        events_match,
        ledger_matches,
        problems,
    })
}

const MOVE_COLUMNS: &str = "m.seq, m.entry, m.kind, m.seat, m.body, m.events, m.voids_seq,
    (select v.seq from moves v where v.table_id = m.table_id and v.voids_seq = m.seq) as voided_by,
    m.recorded_by, m.recorded_at";

async fn effective_moves(conn: &mut PgConnection, table: Uuid) -> Result<Vec<MoveRow>, StoreError> {
    let rows = sqlx::query_as::<_, MoveRow>(&format!(
        "select {MOVE_COLUMNS} from moves m where m.table_id = $1 and m.entry = 'move' order by m.seq"
    ))
    .bind(table)
    .fetch_all(conn)
    .await?;
    Ok(rows.into_iter().filter(|r| r.voided_by.is_none()).collect())
}

/// A page of the log, entries after `after`, oldest first.
///
/// # Errors
/// On database failure.
pub async fn log(conn: &mut PgConnection, table: Uuid, after: i64, limit: i64) -> Result<Vec<MoveRow>, StoreError> {
    Ok(sqlx::query_as::<_, MoveRow>(&format!(
        "select {MOVE_COLUMNS} from moves m where m.table_id = $1 and m.seq > $2 order by m.seq limit $3"
    ))
    .bind(table)
    .bind(after)
    .bind(limit)
    .fetch_all(conn)
    .await?)
}

async fn move_row(conn: &mut PgConnection, table: Uuid, seq: i64) -> Result<MoveRow, StoreError> {
    Ok(sqlx::query_as::<_, MoveRow>(&format!(
        "select {MOVE_COLUMNS} from moves m where m.table_id = $1 and m.seq = $2"
    ))
    .bind(table)
    .bind(seq)
    .fetch_one(conn)
    .await?)
}

async fn bump_version(tx: &mut Tx<'_>, table: &TableRow, finished: bool) -> Result<(), StoreError> {
    sqlx::query("update game_tables set version = version + 1, finished = $2, updated_at = now() where id = $1")
        .bind(table.id)
        .bind(finished)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

async fn announce(tx: &mut Tx<'_>, table: &TableRow, seq: i64) -> Result<(), StoreError> {
    let announcement = super::live::Announcement {
        table: table.id,
        session: table.session_id,
        seq,
    };
    super::live::announce(tx, announcement).await
}

/// Fails with `VersionConflict` unless the table is at `expected` (when given).
///
/// # Errors
/// `VersionConflict`.
pub fn check_version(table: &TableRow, expected: Option<i64>) -> Result<(), StoreError> {
    match expected {
        Some(expected) if expected != table.version => Err(StoreError::VersionConflict {
            expected,
            actual: table.version,
        }),
        _ => Ok(()),
    }
}

/// Checks and applies a move to a locked table, appending it to the log with its events and
/// booking the chips they move. Returns the stored entry and the new state.
///
/// # Errors
/// `Rule` when the engine refuses the move (nothing is written).
pub async fn record_move<G: Game>(
    tx: &mut Tx<'_>,
    table: &TableRow,
    mv: &G::Move,
    recorded_by: &str,
) -> Result<(MoveRow, G), StoreError> {
    let (mut game, replayed): (G, usize) = replayed_state(tx, table.id).await?;
    let events = game.apply(mv)?;
    let seq = table.version + 1;
    sqlx::query(
        "insert into moves (table_id, seq, entry, kind, seat, body, events, recorded_by)
         values ($1, $2, 'move', $3, $4, $5, $6, $7)",
    )
    .bind(table.id)
    .bind(seq)
    .bind(G::move_kind(mv))
    .bind(G::move_seat(mv).map(|s: Seat| i16::from(s.number())))
    .bind(to_json(mv)?)
    .bind(to_json(&events)?)
    .bind(recorded_by)
    .execute(&mut **tx)
    .await?;
    book_settlements(tx, table.id, seq, &G::settlements(&events)).await?;
    if game.at_deal_boundary() || replayed + 1 >= SNAPSHOT_EVERY {
        save_snapshot(tx, table.id, seq, &game).await?;
    }
    bump_version(tx, table, game.is_finished()).await?;
    announce(tx, table, seq).await?;
    Ok((move_row(tx, table.id, seq).await?, game))
}

/// Voids the latest effective move of a locked table and reverses its bookings. Returns the
/// void entry, the voided move and the state without it.
///
/// # Errors
/// `NothingToUndo` when every move is voided already.
pub async fn undo<G: Game>(
    tx: &mut Tx<'_>,
    table: &TableRow,
    recorded_by: &str,
) -> Result<(MoveRow, MoveRow, G), StoreError> {
    let target: i64 = sqlx::query_scalar(
        "select m.seq from moves m
         where m.table_id = $1 and m.entry = 'move'
           and not exists (select 1 from moves v where v.table_id = m.table_id and v.voids_seq = m.seq)
         order by m.seq desc limit 1",
    )
    .bind(table.id)
    .fetch_optional(&mut **tx)
    .await?
    .ok_or(StoreError::NothingToUndo)?;
    let undone = move_row(tx, table.id, target).await?;
    let seq = table.version + 1;
    sqlx::query(
        "insert into moves (table_id, seq, entry, kind, seat, body, events, voids_seq, recorded_by)
         values ($1, $2, 'void', $3, $4, $5, '[]'::jsonb, $6, $7)",
    )
    .bind(table.id)
    .bind(seq)
    .bind(&undone.kind)
    .bind(undone.seat)
    .bind(&undone.body)
    .bind(target)
    .bind(recorded_by)
    .execute(&mut **tx)
    .await?;
    super::ledger::reverse_move(tx, table.id, target, seq).await?;
    let game: G = state(tx, table.id).await?;
    bump_version(tx, table, game.is_finished()).await?;
    announce(tx, table, seq).await?;
    let undone = move_row(tx, table.id, target).await?;
    Ok((move_row(tx, table.id, seq).await?, undone, game))
}

/// A stored answer to an idempotent request.
pub struct StoredResponse {
    pub request_hash: String,
    pub status: u16,
    pub body: Value,
}

/// The answer stored under an idempotency key for this table, if any.
///
/// # Errors
/// On database failure.
pub async fn idempotent_response(
    tx: &mut Tx<'_>,
    table: Uuid,
    key: &str,
) -> Result<Option<StoredResponse>, StoreError> {
    let row: Option<(String, i16, Value)> = sqlx::query_as(
        "select request_hash, response_status, response_body from idempotency_keys where table_id = $1 and key = $2",
    )
    .bind(table)
    .bind(key)
    .fetch_optional(&mut **tx)
    .await?;
    Ok(row.map(|(request_hash, status, body)| StoredResponse {
        request_hash,
        status: u16::try_from(status).unwrap_or(200),
        body,
    }))
}

/// Stores the answer given under an idempotency key, in the move's transaction.
///
/// # Errors
/// On database failure.
pub async fn save_idempotent_response(
    tx: &mut Tx<'_>,
    table: Uuid,
    key: &str,
    response: &StoredResponse,
) -> Result<(), StoreError> {
    sqlx::query(
        "insert into idempotency_keys (table_id, key, request_hash, response_status, response_body)
         values ($1, $2, $3, $4, $5)",
    )
    .bind(table)
    .bind(key)
    .bind(&response.request_hash)
    .bind(i16::try_from(response.status).unwrap_or(200))
    .bind(&response.body)
    .execute(&mut **tx)
    .await?;
    Ok(())
}
