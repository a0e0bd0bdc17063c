//! Starting a round (its tables opened and announced) and closing one (its results taken, its
//! pools' leftover booked).

use chrono::{DateTime, Utc};
use serde_json::{json, Value};
use tablekeeper_ledger::Account as LedgerAccount;
use tablekeeper_movement::TableResult;
use tablekeeper_rules::{GameId, Seat};
use tablekeeper_store::tables::TableRow;
use tablekeeper_store::tournaments::{ByeRow, LeftoverRow, ResultRow, SeatingRow};
use tablekeeper_store::{self as store, PgConnection, PgPool, StoreError, Tx};
use uuid::Uuid;

use super::loaded::{event_of, load};
use super::{
    carried_pools, leftover_transfers, locked, number, organised, stored, tell_boards, write, Leftover, PlayedRound,
    RoundLine, Tournament, Unfinished,
};
use crate::access::Account;
use crate::idempotency::{self, CreationKey, Kept, Outcome};
use crate::{ensure_user, ServiceError};

/// A round just started: its tables (opened) and byes.
#[derive(Debug, Clone)]
pub struct StartedRound {
    pub tournament: Uuid,
    pub round: RoundLine,
}

/// Starts the next round, once per `key`: seats it with the movement from the closed rounds'
/// results and the entrants present, opens each of its tables in the session (the game, its
/// options, seats by member), announces them on the session's stream and enqueues
/// `tournament.round_started`; `render` gives the answer, kept under the key (a retry gets it and
/// starts nothing).
///
/// # Errors
/// `RoundOpen` while a round is open; `TournamentFinished` after the last round; `Movement` when
/// the engine cannot seat the round; `Store(NotFound("tournament"))`; `Forbidden`;
/// `IdempotencyKeyReused`; `Encode` when `render` fails.
pub async fn start_round<K: Kept>(
    pool: &PgPool,
    account: Account,
    id: Uuid,
    now: DateTime<Utc>,
    key: Option<&CreationKey>,
    render: impl FnOnce(StartedRound) -> Result<K, serde_json::Error>,
) -> Result<Outcome<K>, ServiceError> {
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    ensure_user(&mut tx, account.user()).await?;
    if let Some(first) = idempotency::first_answer(&mut tx, account.user(), key).await? {
        return Ok(first);
    }
    let loaded = write(&mut tx, account, id, now).await?;
    if let Some(open) = loaded.open_round() {
        return Err(ServiceError::RoundOpen(number(open.number)));
    }
    let event = event_of(&loaded.row)?;
    let n = u32::try_from(loaded.rounds.len() + 1).unwrap_or(u32::MAX);
    if n > event.setup().rounds {
        return Err(ServiceError::TournamentFinished);
    }
    let round = event.seat_round(n, &loaded.present(n), &loaded.history())?;
    let row = &loaded.row;
    let game = GameId::parse(&row.game)
        .ok_or_else(|| ServiceError::Corrupt(format!("tournament {} plays an unknown game", row.id)))?;
    let at = stored(n)?;
    // What the closed round carried onto each of this round's tables' pools (`leftover: carry`).
    let leftover = Leftover::parse(&row.leftover)
        .ok_or_else(|| ServiceError::Corrupt(format!("tournament {} has an unknown leftover rule", row.id)))?;
    let tables = round.tables.iter().map(|t| t.number).max().unwrap_or(1);
    let carried = match leftover {
        Leftover::Carry => carried_pools(&loaded.leftovers, at - 1, tables)?,
        Leftover::Keep | Leftover::Share | Leftover::Bank => Default::default(),
    };
    store::tournaments::start_round(&mut tx, row.id, at).await?;
    let mut opened = Vec::with_capacity(round.tables.len());
    for table in &round.tables {
        let (members, players): (Vec<Option<Uuid>>, Vec<String>) = table
            .seats
            .iter()
            .map(|e| {
                let (m, name) = loaded.name(*e);
                (Some(m), name)
            })
            .unzip();
        let mut options = row.options.clone();
        if let (Some(pools), Some(fields)) = (carried.get(&table.number), options.as_object_mut()) {
            fields.insert("opening_pools".into(), json!(pools));
        }
        let made = crate::tables::open_in_session(
            &mut tx,
            account.user(),
            row.club_id,
            row.session_id,
            game,
            players,
            members,
            &options,
        )
        .await?;
        // Announced as a move's write announces its entry: a board following the session hears
        // of the table once the round commits.
        let opened_at = store::live::Announcement {
            table: made.id,
            session: made.session_id,
            seq: 0,
        };
        store::live::announce(&mut tx, made.key(), opened_at).await?;
        for (i, e) in table.seats.iter().enumerate() {
            let seating = SeatingRow {
                round: at,
                table_number: stored(table.number)?,
                seat: stored(u32::try_from(i + 1).unwrap_or(u32::MAX))?,
                entrant: stored(e.0)?,
                table_id: made.id,
            };
            store::tournaments::seat(&mut tx, row.id, &seating).await?;
        }
        opened.push(made.id);
    }
    for (pos, e) in round.byes.iter().enumerate() {
        let bye = ByeRow {
            round: at,
            pos: stored(u32::try_from(pos).unwrap_or(u32::MAX))?,
            entrant: stored(e.0)?,
        };
        store::tournaments::bye(&mut tx, row.id, &bye).await?;
    }
    crate::chain::record::link_session(&mut tx, row.session_id).await?;
    let tournament = row.id;
    let (club, session) = (row.club_id, row.session_id);
    let made = load(&mut tx, loaded.row).await?.view()?;
    tell_boards(&mut tx, &made).await?;
    let started = made
        .rounds
        .into_iter()
        .find(|r| r.number == n)
        .ok_or_else(|| ServiceError::Corrupt("a round started without its row".into()))?;
    let now = Utc::now();
    let data = json!({
        "club_id": club,
        "session_id": session,
        "tournament_id": tournament,
        "round": n,
        "tables": started.tables.iter().map(|t| json!({
            "table_id": t.table_id,
            "number": t.number,
            "seats": t.seats.iter().map(|s| json!({"seat": s.seat, "member_id": s.member_id})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "byes": started.byes.iter().map(|(m, _)| m).collect::<Vec<_>>(),
    });
    let event = crate::webhooks::event(crate::webhooks::TOURNAMENT_ROUND_STARTED, now, data);
    store::webhooks::enqueue(&mut tx, club, &[event], now).await?;
    let answer = render(StartedRound {
        tournament,
        round: started,
    })
    .map_err(ServiceError::Encode)?;
    idempotency::keep_and_commit(tx, account.user(), key, answer).await
}

/// A table's score per seat as the standings count it (the game's points; net chips at a game
/// that books chips), the deals it finished, and what each of its pools holds (in account
/// order), as `conn` sees them.
pub(super) async fn table_outcome(
    conn: &mut PgConnection,
    table: TableRow,
) -> Result<(Vec<i64>, u32, Vec<(LedgerAccount, i64)>), ServiceError> {
    let sheet = crate::tables::score_sheet_in(&mut *conn, table.clone()).await?;
    let deals = u32::try_from(sheet.lines.len()).unwrap_or(u32::MAX);
    let seats = table.players.len();
    // A director's rulings adjust a points game's totals beside the sheet (a chip game's are in
    // its ledger already).
    let ruled = sheet.ruled.clone().unwrap_or_default();
    let ledger = crate::ledger::table_ledger_in(conn, table, None).await?;
    let pools = ledger
        .balances
        .iter()
        .filter(|(account, _)| matches!(account, LedgerAccount::Pool(_)))
        .map(|(account, chips)| (*account, chips.get()))
        .collect();
    if sheet.sheet.get("chips").is_none() {
        let totals = sheet.sheet.get("totals").and_then(Value::as_array);
        let scores = (0..seats)
            .map(|i| {
                totals.and_then(|t| t.get(i)).and_then(Value::as_i64).unwrap_or(0) + ruled.get(i).copied().unwrap_or(0)
            })
            .collect();
        return Ok((scores, deals, pools));
    }
    let issued = crate::ledger::issued(&ledger.bookings)?;
    let scores = (0..seats)
        .map(|i| {
            let seat = LedgerAccount::Seat(Seat::new(u8::try_from(i).unwrap_or(u8::MAX)));
            (ledger.balances.of(&seat) - issued.of(&seat)).get()
        })
        .collect();
    Ok((scores, deals, pools))
}

/// Locks round `n`'s tables, in id order, before the session and the tournament are locked:
/// a move at one of them locks its table and then (finishing the session's last table) the
/// session, so taking them in that order too leaves no cycle to deadlock on; and no move lands
/// between a table's result being read and the round closing. None for a round not started.
async fn lock_round_tables(tx: &mut Tx<'_>, id: Uuid, n: i32) -> Result<Vec<TableRow>, ServiceError> {
    let mut ids: Vec<Uuid> = store::tournaments::seatings(tx, id)
        .await?
        .into_iter()
        .filter(|s| s.round == n)
        .map(|s| s.table_id)
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let mut tables = Vec::with_capacity(ids.len());
    for table in ids {
        tables.push(store::tables::lock(tx, table).await?);
    }
    Ok(tables)
}

/// Closes round `n`: takes each table's result (a table short of `deals_per_round` is scored as
/// `unfinished` says), books what its pools hold where the `leftover` rule says, and after the
/// last round finishes the tournament and enqueues `tournament.finished` with the standings.
///
/// # Errors
/// `RoundNotFound` for a round not started; `RoundClosed` for one closed already;
/// `Store(NotFound("tournament"))`; `Forbidden`.
pub async fn close_round(
    pool: &PgPool,
    account: Account,
    id: Uuid,
    n: u32,
    now: DateTime<Utc>,
) -> Result<Tournament, ServiceError> {
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    let row = organised(&mut tx, account, id).await?;
    let mut tables = lock_round_tables(&mut tx, id, stored(n)?).await?;
    let loaded = locked(&mut tx, &row, now).await?;
    let round_row = loaded
        .rounds
        .iter()
        .find(|r| number(r.number) == n)
        .ok_or(ServiceError::RoundNotFound(n))?;
    if round_row.closed_at.is_some() {
        return Err(ServiceError::RoundClosed(n));
    }
    let at = round_row.number;
    let event = event_of(&loaded.row)?;
    let policy = Unfinished::parse(&loaded.row.unfinished)
        .ok_or_else(|| ServiceError::Corrupt(format!("tournament {id} has an unknown unfinished rule")))?;
    let leftover = Leftover::parse(&loaded.row.leftover)
        .ok_or_else(|| ServiceError::Corrupt(format!("tournament {id} has an unknown leftover rule")))?;
    let round = loaded.round(at);
    let mut results = Vec::with_capacity(round.tables.len());
    let mut leftovers = Vec::new();
    for table in &round.tables {
        let table_id = loaded
            .seatings
            .iter()
            .find(|s| s.round == at && number(s.table_number) == table.number)
            .map(|s| s.table_id)
            .ok_or_else(|| ServiceError::Corrupt("a round's table without its seats".into()))?;
        let at_table = tables
            .iter()
            .position(|t| t.id == table_id)
            .ok_or_else(|| ServiceError::Corrupt("a round's table was not locked".into()))?;
        let (mut scores, deals, pools) = table_outcome(&mut tx, tables.swap_remove(at_table)).await?;
        // The pools' leftover goes where the rule says, after the scores are taken: chips
        // nobody won are no one's winnings at the table.
        let transfers = leftover_transfers(leftover, &pools, table.seats.len());
        for (i, (from, to, chips)) in transfers.into_iter().enumerate() {
            leftovers.push(LeftoverRow {
                round: at,
                table_number: stored(table.number)?,
                seq: stored(u32::try_from(i + 1).unwrap_or(u32::MAX))?,
                table_id,
                from_account: from.to_string(),
                to_account: to.to_string(),
                amount: chips,
            });
        }
        let short = loaded
            .row
            .deals_per_round
            .is_some_and(|d| i64::from(deals) < i64::from(d));
        let ruled = short.then_some(policy);
        match ruled {
            Some(Unfinished::Average) => {
                let len = i64::try_from(scores.len()).unwrap_or(1).max(1);
                let mean = scores.iter().sum::<i64>().div_euclid(len);
                scores.iter_mut().for_each(|s| *s = mean);
            }
            Some(Unfinished::Void) => scores.iter_mut().for_each(|s| *s = 0),
            Some(Unfinished::AsPlayed) | None => {}
        }
        results.push(ResultRow {
            round: at,
            table_number: stored(table.number)?,
            scores,
            deals_played: stored(deals)?,
            ruled: ruled.map(|r| r.as_str().to_owned()),
        });
    }
    // The engine reads the results back before anything is written.
    let mut history = loaded.history();
    history.push(PlayedRound {
        round,
        results: results
            .iter()
            .map(|r| TableResult {
                table: number(r.table_number),
                scores: r.scores.clone(),
            })
            .collect(),
    });
    let standings = event.standings(&history)?;
    for result in &results {
        store::tournaments::record_result(&mut tx, id, result).await?;
    }
    for transfer in &leftovers {
        store::tournaments::book_leftover(&mut tx, id, transfer).await?;
    }
    store::tournaments::close_round(&mut tx, id, at).await?;
    let last = n >= event.setup().rounds;
    if last {
        store::tournaments::finish(&mut tx, id).await?;
    }
    let (club, session) = (loaded.row.club_id, loaded.row.session_id);
    crate::chain::record::link_session(&mut tx, session).await?;
    if last {
        let now = Utc::now();
        let data = json!({
            "club_id": club,
            "session_id": session,
            "tournament_id": id,
            "standings": standings.iter().map(|s| json!({
                "place": s.place,
                "member_id": loaded.name(s.entrant).0,
                "total": s.total,
                "rounds_won": s.rounds_won,
            })).collect::<Vec<_>>(),
        });
        let event = crate::webhooks::event(crate::webhooks::TOURNAMENT_FINISHED, now, data);
        store::webhooks::enqueue(&mut tx, club, &[event], now).await?;
    }
    let row = loaded.row;
    let made = load(&mut tx, row).await?.view()?;
    tell_boards(&mut tx, &made).await?;
    tx.commit().await.map_err(StoreError::from)?;
    Ok(made)
}
