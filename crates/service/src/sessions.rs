//! Club sessions: starting one, its standings across its tables and the settle-up.
//!
//! Invariants: only an organiser who still exists owns a session; a player's chips in the
//! standings are net of what the bank issued to their seats (their buy-in,
//! `ledger::issued`), so stakes on a board or in a fund are theirs until someone wins them;
//! the players' nets and the chips in the tables' pools sum to zero (checked, not assumed); and
//! the settle-up's payments bring every party, the pools included, exactly to zero.

use tablekeeper_store::PgPool;
use uuid::Uuid;

use super::idempotency::{self, CreationKey, Kept, Outcome};
use super::roster::Identity;
use super::{ensure_user, ServiceError};
use tablekeeper_ledger::{Account, Balances};
use tablekeeper_rules::Seat;
pub use tablekeeper_store::sessions::{ClubSession, Member};
use tablekeeper_store::tables::TableRow;
use tablekeeper_store::tournaments::LeftoverRow;
use tablekeeper_store::{self as store, StoreError};

/// A session to start: its club (the owner's home club when None), its name (already checked),
/// what a chip is worth, and who came (club member ids).
pub struct NewSession<'a> {
    pub club: Option<Uuid>,
    pub name: &'a str,
    pub chip_value: Option<(i64, &'a str)>,
    pub members: &'a [Uuid],
}

/// Starts a session named `name` (already checked) for `owner` in `club` (the owner's home club
/// when None), with `members` (club member ids: who came) entered on its roster, once per `key`:
/// `render` gives the answer, kept under the key; a retry with the key gets the first answer and
/// starts nothing.
///
/// # Errors
/// `UnknownUser`; `IdempotencyKeyReused`; `Encode` when `render` fails; `Store(NotFound("club"))`
/// for a stranger to the club; `Forbidden` for a role that does not run sessions;
/// `InvalidMembers` for an id that is not a member of the club.
pub async fn create<K: Kept>(
    pool: &PgPool,
    account: super::access::Account,
    new: NewSession<'_>,
    key: Option<&CreationKey>,
    render: impl FnOnce(ClubSession) -> Result<K, serde_json::Error>,
) -> Result<Outcome<K>, ServiceError> {
    let owner = account.user();
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    ensure_user(&mut tx, owner).await?;
    if let Some(first) = idempotency::first_answer(&mut tx, owner, key).await? {
        return Ok(first);
    }
    let club = match new.club {
        Some(club) => club,
        None => store::clubs::home_club(&mut tx, owner).await?,
    };
    super::access::require(&mut tx, account, club, super::access::Capability::Organise, "club").await?;
    let session = store::sessions::insert(&mut tx, owner, club, new.name, new.chip_value).await?;
    for id in new.members {
        let member = match store::clubs::member(&mut tx, club, *id).await {
            Ok(member) if member.anonymised_at.is_none() => member,
            Ok(_) | Err(StoreError::NotFound(_)) => {
                return Err(ServiceError::InvalidMembers(format!(
                    "{id} is not a member of this club"
                )))
            }
            Err(e) => return Err(e.into()),
        };
        store::sessions::enter(&mut tx, session.id, &member).await?;
    }
    super::chain::record::link_session(&mut tx, session.id).await?;
    let answer = render(session).map_err(ServiceError::Encode)?;
    idempotency::keep_and_commit(tx, owner, key, answer).await
}

/// Sets (or, with None, clears) what a chip is worth at the session, in minor units (already
/// checked: zero or more) of a currency; only the organiser who owns the session may.
///
/// # Errors
/// `Store(NotFound)` for an unknown session; `Forbidden` for another organiser; `UnknownUser`;
/// `SessionFinal` once the session is final at `now`.
pub async fn set_chip_value(
    pool: &PgPool,
    who: super::access::Account,
    id: Uuid,
    chip_value: Option<(i64, &str)>,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<ClubSession, ServiceError> {
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    ensure_user(&mut tx, who.user()).await?;
    let session = store::sessions::lock(&mut tx, id).await?;
    super::access::require(
        &mut tx,
        who,
        session.club_id,
        super::access::Capability::Audit,
        "session",
    )
    .await?;
    // The settle-up a final checkpoint signed is in chips and money: a final session's chip
    // value stays as it was signed.
    super::finality::refuse_if_final(&mut tx, id, now).await?;
    let session = store::sessions::set_chip_value(&mut tx, id, chip_value).await?;
    super::chain::record::link_session(&mut tx, id).await?;
    tx.commit().await.map_err(StoreError::from)?;
    Ok(session)
}

/// One seat's part in the standings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatStanding {
    pub table: Uuid,
    pub game: String,
    pub seat: u8,
    /// As typed at that table.
    pub name: String,
    /// Chips won or lost there: the seat's balance less what the bank issued to it; None at a
    /// table that books no chips to seats.
    pub chips: Option<i64>,
    /// The score sheet's total for the seat at a points game; None at a chips game.
    pub points: Option<i64>,
}

/// A player across the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standing {
    pub identity: Identity,
    pub name: String,
    /// Net of the chips the bank issued, over every table.
    pub chips: i64,
    /// Points per game id, over that game's tables.
    pub points: Vec<(String, i64)>,
    pub seats: Vec<SeatStanding>,
}

/// A session's standings: every player's net chips and points, in order of first seat.
#[derive(Debug, Clone)]
pub struct Standings {
    pub session: ClubSession,
    pub players: Vec<Standing>,
    /// What the tables' pools and funds hold, and what a game played against the bank (Tricky
    /// Dick) has taken into it beyond what it issued: the chips no player holds. With the
    /// players' chips it sums to zero.
    pub pools: i64,
    /// What tournaments' rounds, closing, moved out of their tables' pools into the bank (the
    /// `bank` and `carry` leftover rules), less what a carry put on later rounds' boards: the
    /// club's. Players, pools and this sum to zero.
    pub banked: i64,
    /// Those moves and the `share` rule's, each transfer with the tournament it is of: a
    /// pool's chips into a seat (counted in that seat's `chips`) or the bank.
    pub leftovers: Vec<(Uuid, LeftoverRow)>,
}

/// The session's standings.
///
/// # Errors
/// `Store(NotFound)` for an unknown session; `Corrupt` when a table's log no longer replays.
pub async fn standings(pool: &PgPool, id: Uuid) -> Result<Standings, ServiceError> {
    let mut tx = store::begin_read_only(pool).await?;
    let standings = standings_in(&mut tx, id).await?;
    tx.commit().await.map_err(StoreError::from)?;
    Ok(standings)
}

/// The session's standings as `tx` sees it (every table read in its one snapshot).
///
/// # Errors
/// As [`standings`].
pub async fn standings_in(tx: &mut store::PgConnection, id: Uuid) -> Result<Standings, ServiceError> {
    let session = store::sessions::fetch(&mut *tx, id).await?;
    let roster = store::sessions::members(&mut *tx, session.id).await?;
    let tables = store::tables::list(&mut *tx, None, Some(session.id), 1000, 0).await?;
    let leftovers = store::tournaments::session_leftovers(&mut *tx, session.id).await?;
    let mut figures = Vec::with_capacity(tables.len());
    for row in tables {
        // Every table read in the one snapshot, so the standings add up as of one moment.
        let ledger = super::ledger::table_ledger_in(&mut *tx, row.clone(), None).await?;
        let scored = super::tables::score_sheet_in(&mut *tx, row.clone()).await?;
        figures.push(TableFigures {
            id: row.id,
            game: row.game,
            players: row.players,
            members: row.members,
            options: row.options,
            bookings: ledger.bookings,
            sheet: scored.sheet,
            ruled: scored.ruled.unwrap_or_default(),
        });
    }
    standings_of(session, &roster, &figures, leftovers)
}

/// What the standings read of one of the session's tables: its seats and options, its bookings,
/// its score sheet and what the director's rulings add to it. The service reads them from the
/// database; `tablekeeper verify` from a bundle, so that a final checkpoint's standings are
/// worked out again offline by this same code.
#[derive(Debug, Clone)]
pub struct TableFigures {
    pub id: Uuid,
    pub game: String,
    pub players: Vec<String>,
    pub members: Option<Vec<Uuid>>,
    pub options: serde_json::Value,
    /// Every booking, reversals included.
    pub bookings: Vec<store::ledger::StoredBooking>,
    /// The score sheet (the deals as played).
    pub sheet: serde_json::Value,
    /// At a points game, what the rulings add to each seat (empty when nothing).
    pub ruled: Vec<i64>,
}

/// The session's standings from what was read of it: its roster, its tables' figures (in the
/// order the session lists them) and the tournaments' leftover transfers.
///
/// # Errors
/// `Ledger` when a booking does not balance; `Corrupt` when a stored account does not read.
pub fn standings_of(
    session: ClubSession,
    roster: &[Member],
    tables: &[TableFigures],
    leftovers: Vec<(Uuid, LeftoverRow)>,
) -> Result<Standings, ServiceError> {
    let mut players: Vec<Standing> = Vec::new();
    let mut pools = 0;
    let mut banked = 0;
    for table in tables {
        let mut balances = Balances::default();
        for b in &table.bookings {
            balances.apply(&tablekeeper_ledger::Booking::new(b.memo.clone(), b.postings.clone())?);
        }
        let issued = super::ledger::issued(&table.bookings)?;
        pools += balances
            .iter()
            .filter(|(account, _)| !matches!(account, Account::Seat(_)))
            .map(|(account, balance)| (balance - issued.of(account)).get())
            .sum::<i64>();
        // A round's close moved these out of the table's pools (the tournament's leftover rule).
        let mut moved = Balances::default();
        for (_, l) in leftovers.iter().filter(|(_, l)| l.table_id == table.id) {
            moved.apply(&super::ledger::leftover_booking(l)?);
        }
        pools += moved
            .iter()
            .filter(|(account, _)| !matches!(account, Account::Seat(_) | Account::Bank))
            .map(|(_, chips)| chips.get())
            .sum::<i64>();
        banked += moved.of(&Account::Bank).get();
        // Chips a tournament's carry put on the table's pools came from the bank, which held
        // them since the round before closed: the club's until a deal wins them, not the pools'
        // debt (the table's opening counts them as issued to the pools).
        let carried = super::ledger::carried_in_options(&table.options);
        pools += carried;
        banked -= carried;
        let moved_to = |account: &Account| moved.of(account).get();
        let points_game = table.sheet.get("chips").is_none();
        let totals = table.sheet.get("totals").and_then(serde_json::Value::as_array);
        // The score sheet is the deals as played; a director's rulings adjust it beside them.
        let ruled = &table.ruled;
        for (index, name) in table.players.iter().enumerate() {
            let Ok(number) = u8::try_from(index) else { continue };
            let seat = Account::Seat(Seat::new(number));
            let booked = table
                .bookings
                .iter()
                .any(|b| b.postings.iter().any(|p| p.account == seat));
            let points = if points_game {
                totals
                    .and_then(|t| t.get(index))
                    .and_then(serde_json::Value::as_i64)
                    .map(|p| p + ruled.get(index).copied().unwrap_or(0))
            } else {
                None
            };
            let identity = Identity::of(&table.players, table.members.as_deref(), index, roster);
            let part = SeatStanding {
                table: table.id,
                game: table.game.clone(),
                seat: number,
                name: name.clone(),
                chips: booked.then(|| (balances.of(&seat) - issued.of(&seat)).get() + moved_to(&seat)),
                points,
            };
            let at = match players.iter().position(|p| p.identity == identity) {
                Some(at) => at,
                None => {
                    let shown = identity.name(name, roster).to_owned();
                    players.push(Standing {
                        identity,
                        name: shown,
                        chips: 0,
                        points: Vec::new(),
                        seats: Vec::new(),
                    });
                    players.len() - 1
                }
            };
            let player = &mut players[at];
            player.chips += part.chips.unwrap_or(0);
            if let Some(p) = part.points {
                match player.points.iter_mut().find(|(g, _)| *g == table.game) {
                    Some((_, total)) => *total += p,
                    None => player.points.push((table.game.clone(), p)),
                }
            }
            player.seats.push(part);
        }
    }
    Ok(Standings {
        session,
        players,
        pools,
        banked,
        leftovers,
    })
}

/// A party to the settle-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Party {
    Player(Standing),
    /// The tables' pools and funds, which hold chips that belong to no player yet.
    Pools,
    /// The bank (the club), holding what tournaments' `bank` leftover rule moved into it.
    Bank,
}

/// One payment of the settle-up, between players, or with the pools or the bank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payment {
    pub from: Party,
    pub to: Party,
    pub chips: i64,
    /// In minor units of the session's currency, when it sets a chip value.
    pub money: Option<i64>,
}

/// Who pays whom at the end of the night: each player's net chips and what the pools hold,
/// settled in the fewest transfers; the payments bring every party exactly to zero.
///
/// # Errors
/// `Store(NotFound)` for an unknown session; `Corrupt` when the players' nets and the pools do
/// not sum to zero (the ledger does not square) or a sum in money does not fit.
pub async fn settlement(pool: &PgPool, id: Uuid) -> Result<(Standings, Vec<Payment>), ServiceError> {
    let standings = standings(pool, id).await?;
    let payments = payments(&standings)?;
    Ok((standings, payments))
}

/// The settle-up's payments of `standings`, as [`settlement`] gives them.
///
/// # Errors
/// As [`settlement`].
pub fn payments(standings: &Standings) -> Result<Vec<Payment>, ServiceError> {
    let mut balances: Vec<(usize, i64)> = standings.players.iter().map(|p| p.chips).enumerate().collect();
    // The pools as a party, measured from the ledger, not as what makes the sum zero: a ledger
    // that does not square is refused rather than settled.
    balances.push((standings.players.len(), standings.pools));
    balances.push((standings.players.len() + 1, standings.banked));
    let transfers =
        tablekeeper_ledger::settle::settle_up(&balances).map_err(|e| ServiceError::Corrupt(e.to_string()))?;
    let mut payments = Vec::with_capacity(transfers.len());
    for t in transfers {
        let money = match standings.session.chip_value {
            Some(value) => Some(
                t.amount
                    .checked_mul(value)
                    .ok_or_else(|| ServiceError::Corrupt("a payment in money does not fit in 64 bits".into()))?,
            ),
            None => None,
        };
        let party = |i: usize| match standings.players.get(i) {
            Some(p) => Party::Player(p.clone()),
            None if i == standings.players.len() => Party::Pools,
            None => Party::Bank,
        };
        payments.push(Payment {
            from: party(t.from),
            to: party(t.to),
            chips: t.amount,
            money,
        });
    }
    Ok(payments)
}

/// A page of the sessions `user` may see (of `club` only, when given), newest first: `limit`
/// of them after `offset`.
///
/// # Errors
/// On database failure.
pub async fn page(
    pool: &PgPool,
    user: Uuid,
    club: Option<Uuid>,
    limit: i64,
    offset: i64,
) -> Result<Vec<ClubSession>, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    Ok(store::sessions::list(&mut conn, user, club, limit, offset).await?)
}

/// A session as its page shows it: the session, who came, and each table with its deals'
/// verification counts.
pub struct Overview {
    pub session: ClubSession,
    pub members: Vec<Member>,
    pub tables: Vec<(TableRow, TableVerification)>,
}

/// How many of a table's finished deals there are, and how many of them no second phone has
/// verified yet or one disputes.
pub struct TableVerification {
    pub deals: usize,
    pub unverified: usize,
    pub disputed: usize,
}

/// The session's overview (the caller's right to read it is checked before).
///
/// # Errors
/// `Store(NotFound)` for an unknown session; on database failure.
pub async fn overview(pool: &PgPool, id: Uuid) -> Result<Overview, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let session = store::sessions::fetch(&mut conn, id).await?;
    let tables = store::tables::list(&mut conn, None, Some(session.id), 1000, 0).await?;
    let members = store::sessions::members(&mut conn, session.id).await?;
    let mut verified = Vec::with_capacity(tables.len());
    for table in tables {
        let (deals, unverified, disputed) = super::verification::counts(&mut conn, &table).await?;
        verified.push((
            table,
            TableVerification {
                deals,
                unverified,
                disputed,
            },
        ));
    }
    Ok(Overview {
        session,
        members,
        tables: verified,
    })
}
