//! Opening a table and reading its state and score sheet.
//!
//! Invariants: a table is created with its set-up snapshot (seq 0) and its opening bookings in
//! one transaction, so a table never exists without the state its log folds from; reads run in
//! one read-only snapshot of the database, so the row, snapshots and moves they fold agree on
//! the table's version.

use serde_json::Value;
pub use tablekeeper_store::join_codes::JoinCodeRow;
pub use tablekeeper_store::scorers::ScorerRow;
pub use tablekeeper_store::tables::{MoveRow, TableRow};
use tablekeeper_store::{PgConnection, PgPool};
use uuid::Uuid;

use super::access::Account;
use super::idempotency::{self, CreationKey, Kept, Outcome};
use super::receipts::Receipt;
use super::{book_settlements, ensure_user, fold, game_of, read_table, to_json, ServiceError};
use tablekeeper_rules::with_game;
use tablekeeper_rules::{Game, GameId, TrickPlan};
use tablekeeper_store::{self as store, StoreError, Tx};

/// A table with its state as the engine shows it.
#[derive(Debug, Clone)]
pub struct TableState {
    pub row: TableRow,
    pub game: GameId,
    /// The game's view: whose turn, what is legal next, running scores.
    pub view: Value,
}

impl TableState {
    pub(super) fn new<G: Game>(row: TableRow, game: &G) -> Result<TableState, ServiceError> {
        Ok(TableState {
            view: to_json(&game.view())?,
            game: G::ID,
            row,
        })
    }
}

/// A table's score sheet.
#[derive(Debug, Clone)]
pub struct ScoreSheet {
    pub row: TableRow,
    pub game: GameId,
    pub sheet: Value,
    /// The sheet's lines (a deal each; a hand at Tricky Dick), as the sheet gives them, whatever
    /// the game calls them there.
    pub lines: Vec<Value>,
    /// At a points game, what the director's rulings add to each seat's total beside the deals
    /// as played (the sheet's lines and `totals` are the deals as played); None when they add
    /// nothing, and at a chip game, whose rulings are booked in its ledger.
    pub ruled: Option<Vec<i64>>,
}

/// What an organiser asks for when opening a table.
#[derive(Debug, Clone)]
pub struct NewTable {
    pub game: GameId,
    /// Names in seat order, already checked.
    pub players: Vec<String>,
    /// The game's options as sent; `None` takes every default.
    pub options: Option<Value>,
    /// The session it belongs to; it must be the owner's.
    pub session: Option<Uuid>,
    /// The session's member at each seat; None (for the table or a seat) to find the player's
    /// member by name.
    pub members: Option<Vec<Option<Uuid>>>,
    /// The club it belongs to when it is in no session; None for the owner's home club.
    pub club: Option<Uuid>,
    /// The time now (the application's clock): a session final by then takes no new table.
    pub now: chrono::DateTime<chrono::Utc>,
}

/// Opens a table for `owner`.
///
/// # Errors
/// As [`create_once`].
pub async fn create(
    pool: &PgPool,
    keys: &super::receipts::AuditKeys,
    owner: Account,
    new: NewTable,
) -> Result<(TableState, Receipt), ServiceError> {
    with_game!(new.game, G => {
        let game = set_up::<G>(&new)?;
        keys.signing(pool).await?;
        let mut tx = pool.begin().await.map_err(StoreError::from)?;
        ensure_user(&mut tx, owner.user()).await?;
        let opened = open_as::<G>(pool, keys, &mut tx, owner, new, &game).await?;
        tx.commit().await.map_err(StoreError::from)?;
        Ok(opened)
    })
}

/// Opens a table for `owner`, once per `key`: `render` makes the answer, kept under the key; a
/// retry with the key gets the first answer and opens nothing.
///
/// # Errors
/// `InvalidOptions` or `Setup` when the options or players do not set up the game (checked
/// before anything is read); `UnknownUser`; `IdempotencyKeyReused`; `Store(NotFound)` for an
/// unknown session, `Forbidden` for another organiser's; `Encode` when `render` fails.
pub async fn create_once<K: Kept>(
    pool: &PgPool,
    keys: &super::receipts::AuditKeys,
    account: Account,
    new: NewTable,
    key: Option<&CreationKey>,
    render: impl FnOnce(TableState, Receipt) -> Result<K, serde_json::Error>,
) -> Result<Outcome<K>, ServiceError> {
    with_game!(new.game, G => {
        let owner = account.user();
        let game = set_up::<G>(&new)?;
        // The signing key is read (the first time, from the database) before the transaction:
        // read inside it, it would want a second connection while this one holds locks others
        // queue on.
        keys.signing(pool).await?;
        let mut tx = pool.begin().await.map_err(StoreError::from)?;
        ensure_user(&mut tx, owner).await?;
        if let Some(first) = idempotency::first_answer(&mut tx, owner, key).await? {
            return Ok(first);
        }
        let (table, receipt) = open_as::<G>(pool, keys, &mut tx, account, new, &game).await?;
        let made = render(table, receipt).map_err(ServiceError::Encode)?;
        idempotency::keep_and_commit(tx, owner, key, made).await
    })
}

/// The game `new` sets up, before anything is read.
fn set_up<G: Game>(new: &NewTable) -> Result<G, ServiceError> {
    let options: G::Options = match &new.options {
        None => G::Options::default(),
        Some(value) => serde::Deserialize::deserialize(value).map_err(ServiceError::InvalidOptions)?,
    };
    Ok(G::new(new.players.len(), options)?)
}

/// Opens the table `new` describes, with `game` set up, in `tx` (whose owner exists): the
/// caller commits. The audit key's signing key must have been read before `tx` began.
async fn open_as<G: Game>(
    pool: &PgPool,
    keys: &super::receipts::AuditKeys,
    tx: &mut Tx<'_>,
    account: Account,
    new: NewTable,
    game: &G,
) -> Result<(TableState, Receipt), ServiceError> {
    let owner = account.user();
    let mut members = None;
    let club;
    if let Some(session) = new.session {
        let found = store::sessions::fetch(tx, session).await?;
        super::access::require(
            tx,
            account,
            found.club_id,
            super::access::Capability::Organise,
            "session",
        )
        .await?;
        if new.club.is_some_and(|named| named != found.club_id) {
            return Err(ServiceError::ClubMismatch);
        }
        // The session's row is locked before anything that refers to it is written: those
        // writes take a share lock on it, and two tables opened at once in one session, each
        // holding that and both wanting the row for linking the roster, would deadlock.
        super::finality::lock_writable(tx, session, new.now).await?;
        club = found.club_id;
        members = Some(seat_members(tx, session, club, &new.players, new.members.as_deref()).await?);
    } else if new.members.is_some() {
        return Err(ServiceError::InvalidMembers(
            "members name a session's roster: give the session_id too".into(),
        ));
    } else {
        club = match new.club {
            Some(named) => named,
            None => store::clubs::home_club(tx, owner).await?,
        };
        super::access::require(tx, account, club, super::access::Capability::Organise, "club").await?;
    }
    let row = insert_as(tx, owner, club, new.session, &new.players, members.as_deref(), game).await?;
    // The set-up names the session and each seat's member: its receipt vouches for both.
    let receipt = keys
        .receipt_for(pool, tx, row.key(), row.session_id, row.created_at)
        .await?;
    Ok((TableState::new(row, game)?, receipt))
}

/// Writes a new table playing `game` in `tx`, its seats' members found: its row, its first
/// snapshot, its opening settlements and the first links of its chain; the table as written.
async fn insert_as<G: Game>(
    tx: &mut Tx<'_>,
    owner: Uuid,
    club: Uuid,
    session: Option<Uuid>,
    players: &[String],
    members: Option<&[Uuid]>,
    game: &G,
) -> Result<TableRow, ServiceError> {
    let stored = store::tables::NewTable {
        owner,
        club,
        session,
        game: G::ID.as_str(),
        players,
        options: &to_json(&game.options())?,
        members,
    };
    let row = store::tables::insert(tx, stored).await?;
    store::tables::save_snapshot(tx, row.key(), 0, &to_json(game)?).await?;
    book_settlements(tx, row.key(), 0, &game.opening_settlements()).await?;
    super::chain::extend(tx, &row).await?;
    Ok(store::tables::fetch_by_key(tx, row.key()).await?)
}

/// Opens a table of `game` in `session` (of `club`) for `owner` inside the caller's transaction,
/// as [`create_once`] does after its checks: a tournament's round opens its tables so, all in
/// the round's one transaction. `members` names each seat's club member (entered on the
/// roster when new); `options` are the game's, complete.
///
/// # Errors
/// `InvalidOptions` or `Setup` when the options or players do not set up the game;
/// `InvalidMembers` for a member who is not the club's.
#[expect(clippy::too_many_arguments, reason = "a table's set-up, each part named")]
pub(crate) async fn open_in_session(
    tx: &mut tablekeeper_store::Tx<'_>,
    owner: Uuid,
    club: Uuid,
    session: Uuid,
    game: GameId,
    players: Vec<String>,
    members: Vec<Option<Uuid>>,
    options: &Value,
) -> Result<TableRow, ServiceError> {
    with_game!(game, G => open_seated::<G>(tx, owner, club, session, players, members, options).await)
}

async fn open_seated<G: Game>(
    tx: &mut tablekeeper_store::Tx<'_>,
    owner: Uuid,
    club: Uuid,
    session: Uuid,
    players: Vec<String>,
    members: Vec<Option<Uuid>>,
    options: &Value,
) -> Result<TableRow, ServiceError> {
    let options: G::Options = serde_json::from_value(options.clone()).map_err(ServiceError::InvalidOptions)?;
    let game = G::new(players.len(), options)?;
    let members = seat_members(&mut *tx, session, club, &players, Some(&members)).await?;
    insert_as(tx, owner, club, Some(session), &players, Some(&members), &game).await
}

/// The member at each seat: the one named, checked against the roster, or else the player's
/// member by name (added to the roster when new); never one member at two seats.
async fn seat_members(
    conn: &mut tablekeeper_store::PgConnection,
    session: Uuid,
    club: Uuid,
    players: &[String],
    named: Option<&[Option<Uuid>]>,
) -> Result<Vec<Uuid>, ServiceError> {
    if let Some(named) = named {
        if named.len() != players.len() {
            return Err(ServiceError::InvalidMembers(format!(
                "{} members for {} players: give one per seat (null to find the player by name)",
                named.len(),
                players.len()
            )));
        }
    }
    let roster = store::sessions::members(&mut *conn, session).await?;
    let mut ids: Vec<Uuid> = Vec::with_capacity(players.len());
    for (seat, name) in players.iter().enumerate() {
        let id = match named.and_then(|n| n.get(seat).copied().flatten()) {
            Some(id) => match roster.iter().find(|m| m.id == id || m.club_member_id == id) {
                Some(entry) => entry.id,
                // A member of the club not on the roster yet sits down: they are entered.
                None => match store::clubs::member(&mut *conn, club, id).await {
                    Ok(member) if member.anonymised_at.is_none() => {
                        store::sessions::enter(&mut *conn, session, &member).await?.id
                    }
                    Ok(_) | Err(StoreError::NotFound(_)) => {
                        return Err(ServiceError::InvalidMembers(format!(
                            "{id} is neither on this session's roster nor a member of its club"
                        )))
                    }
                    Err(e) => return Err(e.into()),
                },
            },
            None => store::sessions::member_named(&mut *conn, session, club, name).await?.id,
        };
        if ids.contains(&id) {
            return Err(ServiceError::InvalidMembers(format!(
                "seat {seat} ({name}) is a member already seated at this table"
            )));
        }
        ids.push(id);
    }
    // Members entered on the roster are linked into the session's chain with the table.
    super::chain::record::link_session(&mut *conn, session).await?;
    Ok(ids)
}

/// The table's current state.
///
/// # Errors
/// `Store(NotFound)` when there is no such table.
pub async fn state(pool: &PgPool, id: Uuid) -> Result<TableState, ServiceError> {
    let (mut tx, row) = read_table(pool, id).await?;
    let state: Result<TableState, ServiceError> = async {
        with_game!(game_of(&row)?, G => {
            let game: G = fold::current(&mut tx, &row).await?;
            TableState::new(row, &game)
        })
    }
    .await;
    state.map_err(|e| e.at_table(id))
}

/// How the deal in hand's tricks are won (`rules::TrickPlan`), with the table's version: None
/// when the table is not at a deal whose cards are being entered one by one, or its game's
/// tricks are not won by suit and strength alone.
///
/// # Errors
/// `Store(NotFound)` when there is no such table; `Corrupt` when its log no longer replays.
pub async fn trick_plan(pool: &PgPool, id: Uuid) -> Result<(i64, Option<TrickPlan>), ServiceError> {
    let (mut tx, row) = read_table(pool, id).await?;
    let version = row.version;
    let plan: Result<Option<TrickPlan>, ServiceError> = async {
        with_game!(game_of(&row)?, G => {
            let game: G = fold::current(&mut tx, &row).await?;
            Ok(if game.is_finished() { None } else { game.trick_plan() })
        })
    }
    .await;
    plan.map(|p| (version, p)).map_err(|e| e.at_table(id))
}

/// The table's score sheet.
///
/// # Errors
/// `Store(NotFound)` when there is no such table.
pub async fn score_sheet(pool: &PgPool, id: Uuid) -> Result<ScoreSheet, ServiceError> {
    let (mut tx, row) = read_table(pool, id).await?;
    score_sheet_in(&mut tx, row).await
}

/// The table's score sheet as `conn` sees it (a caller's transaction, for a sheet read with
/// what else it reads).
///
/// # Errors
/// `Corrupt` when the log no longer replays; on database failure.
pub async fn score_sheet_in(conn: &mut PgConnection, row: TableRow) -> Result<ScoreSheet, ServiceError> {
    let id = row.id;
    let sheet: Result<ScoreSheet, ServiceError> = async {
        with_game!(game_of(&row)?, G => {
            let game: G = fold::current(&mut *conn, &row).await?;
            let lines = super::history::in_force::<G>(&mut *conn, &row).await?;
            let sheet = to_json(&game.score_sheet_of(&lines))?;
            let ruled = if sheet.get("chips").is_none() {
                let ruled = super::ruled::score_adjustments(&mut *conn, row.key(), row.players.len()).await?;
                ruled.iter().any(|p| *p != 0).then_some(ruled)
            } else {
                None
            };
            Ok(ScoreSheet {
                sheet,
                lines: lines.iter().map(to_json).collect::<Result<_, _>>()?,
                game: G::ID,
                row,
                ruled,
            })
        })
    }
    .await;
    sheet.map_err(|e| e.at_table(id))
}

/// The table a join code stands for now.
///
/// # Errors
/// `InvalidJoinCode` when the code is unknown, expired or withdrawn; on database failure.
pub async fn joined_by(pool: &PgPool, code: &str) -> Result<Uuid, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    store::join_codes::table_for(&mut conn, code, chrono::Utc::now())
        .await?
        .ok_or(ServiceError::InvalidJoinCode)
}

/// A phone joining a table by its code.
pub struct Joining<'a> {
    pub table: Uuid,
    /// Its name, already checked; None for "Scorer n".
    pub name: Option<String>,
    pub code: &'a str,
    /// The time now (the application's clock): a table of a session final by then takes no
    /// scorer.
    pub now: chrono::DateTime<chrono::Utc>,
}

/// Makes a scorer of the table (named `name`, or "Scorer n" after those before it) and links
/// it into the table's hash chain, under the table's lock: who recorded what is read through
/// scorers' names, so a name changed afterwards breaks the chain. The answer `render` makes of
/// the scorer and the receipt `keys` sign for the chain as it leaves it, kept under `key` with
/// the table's answers when given; a retry with the key gets that first answer and makes no
/// second scorer.
///
/// # Errors
/// `Store(NotFound)` for an unknown table; `IdempotencyKeyReused` when the key was used at the
/// table for another request; `SessionFinal` for a table of a session final at `now`; `Encode`
/// when `render` fails; on database failure.
pub async fn join_scorer<K: Kept>(
    pool: &PgPool,
    keys: &super::receipts::AuditKeys,
    joining: Joining<'_>,
    key: Option<&CreationKey>,
    render: impl FnOnce(store::scorers::ScorerRow, Receipt) -> Result<K, serde_json::Error>,
) -> Result<Outcome<K>, ServiceError> {
    let Joining { table, name, code, now } = joining;
    // The signing key is read (the first time, from the database) before the transaction: read
    // inside it, it would want a second connection while this one holds locks others queue on.
    keys.signing(pool).await?;
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    let row = store::tables::lock(&mut tx, table).await?;
    // A scorer is no account: its join's key is the table's, read under the table's lock like
    // a move's, so two joins racing with one key make one scorer.
    if let Some(first) = idempotency::first_answer_at_table(&mut tx, row.key(), key).await? {
        return Ok(first);
    }
    // A scorer joining is linked into the table's chain: a write to the table.
    if let Some(session) = row.session_id {
        super::finality::refuse_if_final(&mut tx, session, now).await?;
    }
    let name = match name {
        Some(name) => name,
        None => format!("Scorer {}", store::scorers::count(&mut tx, row.key()).await? + 1),
    };
    let scorer = store::scorers::insert(&mut tx, row.key(), &name, code).await?;
    super::chain::extend(&mut tx, &row).await?;
    let receipt = keys
        .receipt_for(pool, &mut tx, row.key(), row.session_id, scorer.created_at)
        .await?;
    let answer = render(scorer, receipt).map_err(ServiceError::Encode)?;
    let answer = idempotency::keep_at_table(&mut tx, row.key(), key, answer).await?;
    tx.commit().await.map_err(StoreError::from)?;
    Ok(Outcome::Fresh(answer))
}

/// Hands out a join code for the table (its organisers only), drawn by `draw` until one is free
/// (a few tries), standing until `expires_at`; the answer `render` makes of it, kept under `key`
/// when given. A retry with the key gets that first answer and hands out nothing.
///
/// # Errors
/// `Store(NotFound)` for an unknown table or one the caller may not read; `Forbidden` for one
/// who may not organise it; `IdempotencyKeyReused`; `Corrupt` when no free code was drawn;
/// `Encode` when `render` fails; on database failure.
pub async fn hand_out_join_code<K: Kept>(
    pool: &PgPool,
    who: super::Principal,
    table: Uuid,
    expires_at: chrono::DateTime<chrono::Utc>,
    key: Option<&CreationKey>,
    mut draw: impl FnMut() -> String,
    render: impl FnOnce(String) -> Result<K, serde_json::Error>,
) -> Result<Outcome<K>, ServiceError> {
    let super::Principal::Account(account) = who else {
        return Err(ServiceError::Forbidden(
            "only the table's organiser can hand out join codes",
        ));
    };
    let user = account.user();
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    let row = organised(
        &mut tx,
        who,
        table,
        "only the table's organiser can hand out join codes",
    )
    .await?;
    if let Some(first) = idempotency::first_answer(&mut tx, user, key).await? {
        return Ok(first);
    }
    for _ in 0..5 {
        let code = draw();
        if store::join_codes::insert(&mut tx, &code, row.id, user, expires_at).await? {
            let answer = render(code).map_err(ServiceError::Encode)?;
            return idempotency::keep_and_commit(tx, user, key, answer).await;
        }
    }
    Err(ServiceError::Corrupt(format!(
        "no free join code for table {table} in five draws"
    )))
}

/// The table's row when `who` organises it; else `Forbidden(refusal)`.
async fn organised(
    conn: &mut tablekeeper_store::PgConnection,
    who: super::Principal,
    table: Uuid,
    refusal: &'static str,
) -> Result<TableRow, ServiceError> {
    who.organiser()?;
    let row = store::tables::fetch(&mut *conn, table).await?;
    match super::access::require_table(conn, who, &row, super::access::Capability::Organise).await {
        Err(ServiceError::Forbidden(_)) => Err(ServiceError::Forbidden(refusal)),
        other => other.map(|()| row),
    }
}

/// The join codes handed out for the table (its organiser only), newest first, expired and
/// withdrawn ones included.
///
/// # Errors
/// `Forbidden` for anyone but the table's organisers; `Store(NotFound)` for an unknown table;
/// on database failure.
pub async fn join_codes(pool: &PgPool, who: super::Principal, table: Uuid) -> Result<Vec<JoinCodeRow>, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let row = organised(
        &mut conn,
        who,
        table,
        "only the table's organiser can list its join codes",
    )
    .await?;
    Ok(store::join_codes::list(&mut conn, row.key()).await?)
}

/// Withdraws a join code of the table (its organiser only): no phone joins with it from now on.
/// Withdrawing it again changes nothing.
///
/// # Errors
/// `Forbidden` for anyone but the table's organisers; `Store(NotFound)` for an unknown table or
/// code; on database failure.
pub async fn withdraw_join_code(
    pool: &PgPool,
    who: super::Principal,
    table: Uuid,
    code: &str,
) -> Result<JoinCodeRow, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let row = organised(
        &mut conn,
        who,
        table,
        "only the table's organiser can withdraw its join codes",
    )
    .await?;
    Ok(store::join_codes::withdraw(&mut conn, row.key(), code).await?)
}

/// A page of the tables `who` may read, `limit` of them after `offset`: the session's when one
/// is given (checked here to be one `who` may read) or `who` is a share link; else an account's
/// clubs' (a personal token's one club's), or a phone's own table.
///
/// # Errors
/// `Store(NotFound)` for a session that is not there or `who` may not read; `TokenScope` for a
/// token that does not reach the club; on database failure.
pub async fn page(
    pool: &PgPool,
    who: super::access::Reader,
    session: Option<Uuid>,
    limit: i64,
    offset: i64,
) -> Result<Vec<TableRow>, ServiceError> {
    use super::access::Reader;
    use super::Principal;
    // A share link reads its own session's tables, asked for or not.
    let session = match (session, who) {
        (Some(session), _) | (None, Reader::Share { session, .. }) => Some(session),
        (None, Reader::Principal(_)) => None,
    };
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    if let Some(session) = session {
        let row = store::sessions::fetch(&mut conn, session).await?;
        super::access::read_session(&mut conn, who, &row).await?;
    }
    Ok(match (session, who) {
        (Some(session), _) => store::tables::list(&mut conn, None, Some(session), limit, offset).await?,
        (None, Reader::Principal(Principal::Account(account))) => {
            // A personal API token lists its one club's tables.
            let club = match account.narrowed(None)? {
                Some(Some(club)) => Some(club),
                _ => None,
            };
            store::tables::of_member(&mut conn, account.user(), club, limit, offset).await?
        }
        (None, Reader::Principal(Principal::Scorer { table, .. })) => {
            vec![store::tables::fetch(&mut conn, table).await?]
        }
        (None, Reader::Share { .. }) => Vec::new(),
    })
}

/// The table's game and `limit` entries of its log after sequence number `after` (the caller's
/// right to read the table is checked before).
///
/// # Errors
/// `Store(NotFound)` for an unknown table; `UnknownGame`; on database failure.
pub async fn log_page(pool: &PgPool, id: Uuid, after: i64, limit: i64) -> Result<(GameId, Vec<MoveRow>), ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let table = store::tables::fetch(&mut conn, id).await?;
    let game = game_of(&table)?;
    Ok((game, store::tables::log(&mut conn, table.key(), after, limit).await?))
}

/// The table's scorers, oldest first, revoked ones included (the caller's right to read the
/// table is checked before).
///
/// # Errors
/// On database failure.
pub async fn scorers(pool: &PgPool, table: &TableRow) -> Result<Vec<ScorerRow>, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    Ok(store::scorers::list(&mut conn, table.key()).await?)
}

/// Revokes a scorer of the table (its organisers only): its token is refused from now on.
///
/// # Errors
/// `Forbidden` for anyone but the table's organisers; `Store(NotFound)` for an unknown table or
/// scorer; on database failure.
pub async fn revoke_scorer(
    pool: &PgPool,
    who: super::Principal,
    table: Uuid,
    scorer: Uuid,
) -> Result<ScorerRow, ServiceError> {
    who.organiser()?;
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let row = store::tables::fetch(&mut conn, table).await?;
    super::access::require_table(&mut conn, who, &row, super::access::Capability::Organise).await?;
    Ok(store::scorers::revoke(&mut conn, row.key(), scorer).await?)
}
