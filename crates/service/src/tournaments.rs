//! Tournaments (events, issue #41): an evening of rounds seated by the movement engine
//! (`tablekeeper_movement`), each round's tables opened in the session as ordinary tables.
//!
//! Invariants:
//! - A tournament's set-up is a valid movement [`Setup`] for its game's seat range (narrowed when
//!   asked), checked before anything is written; its entrants are members of the session's club.
//! - At most one round is open; round `n` is seated from the entrants present in it and the
//!   closed rounds' results, its tables opened, seated and announced in one transaction.
//! - A round's results are each table's score per seat (the game's points, or its net chips),
//!   taken when the round closes; a table short of `deals_per_round` is scored as `unfinished`
//!   says and named as such. Standings are the engine's, over the closed rounds.
//! - Every change links the session's record (tournaments included) into the session's chain in
//!   its own transaction (`chain::record::link_session`); writers lock the session's row, then
//!   the tournament's.
//! - A refusal writes nothing.

use chrono::{DateTime, Utc};
use serde_json::{json, Value};
use tablekeeper_rules::{with_game, Game, GameId, Seat};
pub use tablekeeper_store::tournaments::LeftoverRow;
use tablekeeper_store::tournaments::{ByeRow, EntrantRow, ResultRow, RoundRow, SeatingRow, TournamentRow};
use tablekeeper_store::{self as store, PgConnection, PgPool, StoreError};
use uuid::Uuid;

pub use tablekeeper_movement::{
    ByeScore, Entrant, Event, Format, MovementError, Moves, PlayedRound, Points, Round, ScoreRules, Scoring, SeatRange,
    Standing,
};
use tablekeeper_movement::{Constraints, Setup, Stay, TableResult};

use super::access::{self, Account, Capability, Reader};
use super::idempotency::{self, CreationKey, Kept, Outcome};
use super::{ensure_user, to_json, ServiceError};
use tablekeeper_ledger::Account as LedgerAccount;

/// How a table that has not finished its `deals_per_round` when its round closes is scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unfinished {
    /// The deals it finished count, as played.
    AsPlayed,
    /// Every seat scores the table's average so far (the same for all: nobody wins there).
    Average,
    /// The table's deals are struck out: every seat scores 0.
    Void,
}

impl Unfinished {
    pub fn as_str(self) -> &'static str {
        match self {
            Unfinished::AsPlayed => "as_played",
            Unfinished::Average => "average",
            Unfinished::Void => "void",
        }
    }

    pub fn parse(s: &str) -> Option<Unfinished> {
        match s {
            "as_played" => Some(Unfinished::AsPlayed),
            "average" => Some(Unfinished::Average),
            "void" => Some(Unfinished::Void),
            _ => None,
        }
    }
}

/// Where the chips left in a stops game's pools go when a round closes (Pope Joan, Spin and
/// Newmarket stake pools that a deal may leave unwon).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leftover {
    /// They stay in the table's pools, and the settle-up counts them as the pools' (as before
    /// the rule existed: tournaments stored before it keep this).
    Keep,
    /// Among the table's players: an equal share each, the odd chips one each to seat 1, 2, …
    /// (seat 1 deals first) until none are left.
    Share,
    /// To the bank: the club keeps them.
    Bank,
}

impl Leftover {
    pub fn as_str(self) -> &'static str {
        match self {
            Leftover::Keep => "keep",
            Leftover::Share => "share",
            Leftover::Bank => "bank",
        }
    }

    pub fn parse(s: &str) -> Option<Leftover> {
        match s {
            "keep" => Some(Leftover::Keep),
            "share" => Some(Leftover::Share),
            "bank" => Some(Leftover::Bank),
            _ => None,
        }
    }
}

/// The transfers that move a table's leftover chips, in booking order: each `(pool, to, chips)`,
/// out of one pool (those holding chips, in account order) into a seat or the bank. Together they
/// empty the pools and, with `share`, give seat `i` of `seats` `total / seats` chips and one more
/// for each `i < total % seats`. Nothing for `keep`, or when the pools hold nothing.
pub fn leftover_transfers(
    rule: Leftover,
    pools: &[(LedgerAccount, i64)],
    seats: usize,
) -> Vec<(LedgerAccount, LedgerAccount, i64)> {
    let pools: Vec<(LedgerAccount, i64)> = pools.iter().copied().filter(|(_, c)| *c > 0).collect();
    let total: i64 = pools.iter().map(|(_, c)| c).sum();
    let wanted: Vec<(LedgerAccount, i64)> = match rule {
        Leftover::Keep => return Vec::new(),
        Leftover::Bank => vec![(LedgerAccount::Bank, total)],
        Leftover::Share => {
            let Ok(n) = i64::try_from(seats) else { return Vec::new() };
            if n == 0 {
                return Vec::new();
            }
            (0..seats)
                .map(|i| {
                    let odd = i64::try_from(i).map_or(0, |i| i64::from(i < total.rem_euclid(n)));
                    let seat = LedgerAccount::Seat(Seat::new(u8::try_from(i).unwrap_or(u8::MAX)));
                    (seat, total.div_euclid(n) + odd)
                })
                .collect()
        }
    };
    // Walk the pools and the recipients together, each transfer the most both have left.
    let mut out = Vec::new();
    let (mut p, mut w) = (0, 0);
    let mut from_left = pools.first().map_or(0, |x| x.1);
    let mut to_left = wanted.first().map_or(0, |x| x.1);
    while p < pools.len() && w < wanted.len() {
        let chips = from_left.min(to_left);
        if chips > 0 {
            out.push((pools[p].0, wanted[w].0, chips));
        }
        from_left -= chips;
        to_left -= chips;
        if from_left == 0 {
            p += 1;
            from_left = pools.get(p).map_or(0, |x| x.1);
        }
        if to_left == 0 {
            w += 1;
            to_left = wanted.get(w).map_or(0, |x| x.1);
        }
    }
    out
}

/// A format as asked for: partnerships by club member id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormatSpec {
    Progressive(Moves),
    Rotation,
    Swiss { partnerships: Option<Vec<[Uuid; 2]>> },
    Fixed,
}

/// A tournament to create (its name already checked).
#[derive(Debug, Clone)]
pub struct NewTournament {
    pub name: String,
    pub game: GameId,
    /// The game's options as sent; None takes every default.
    pub options: Option<Value>,
    pub format: FormatSpec,
    /// A narrower seat range than the game's, when asked for.
    pub seats: Option<(u8, u8)>,
    pub rounds: u32,
    pub deals_per_round: Option<u32>,
    pub minutes_per_round: Option<u32>,
    /// Club member ids, in seeding order.
    pub entrants: Vec<Uuid>,
    /// Pairs never at one table.
    pub apart: Vec<[Uuid; 2]>,
    /// Entrants who keep one table (numbered from 1) all night.
    pub stay: Vec<(Uuid, u32)>,
    pub scoring: ScoreRules,
    pub unfinished: Unfinished,
    pub leftover: Leftover,
}

/// An entrant as shown: the club member, their number in the movement, and their rounds.
pub type EntrantLine = EntrantRow;

/// A seat of a round's table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatLine {
    /// From 1; seat 1 deals first.
    pub seat: u32,
    pub member_id: Uuid,
    pub name: String,
}

/// A table's result once its round is closed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableOutcome {
    /// A score per seat, in seat order, as the standings count it.
    pub scores: Vec<i64>,
    pub deals_played: u32,
    /// The `unfinished` rule applied, when the table had not finished its deals.
    pub ruled: Option<Unfinished>,
}

/// A round's table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableLine {
    pub number: u32,
    pub table_id: Uuid,
    pub seats: Vec<SeatLine>,
    pub outcome: Option<TableOutcome>,
    /// What the round's close moved out of the table's pools (its `leftover` rule): transfers
    /// in booking order.
    pub leftover: Vec<LeftoverRow>,
}

/// A round as shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundLine {
    pub number: u32,
    pub started_at: DateTime<Utc>,
    pub closed_at: Option<DateTime<Utc>>,
    pub tables: Vec<TableLine>,
    /// Who sat this round out (club member ids and names).
    pub byes: Vec<(Uuid, String)>,
}

/// A line of the standings, with the club member it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StandingLine {
    pub standing: Standing,
    pub member_id: Uuid,
    pub name: String,
}

/// A tournament with its entrants, rounds and standings (over its closed rounds).
#[derive(Debug, Clone)]
pub struct Tournament {
    pub row: TournamentRow,
    pub setup: Setup,
    pub entrants: Vec<EntrantLine>,
    pub rounds: Vec<RoundLine>,
    pub standings: Vec<StandingLine>,
}

impl Tournament {
    /// The club member an entrant number is.
    pub fn member_of(&self, entrant: Entrant) -> Option<Uuid> {
        member_of(&self.entrants, entrant).map(|e| e.club_member_id)
    }

    /// Whether its last round is closed.
    pub fn finished(&self) -> bool {
        self.row.finished_at.is_some()
    }
}

/// Everything stored of a tournament, read in one transaction.
struct Loaded {
    row: TournamentRow,
    entrants: Vec<EntrantRow>,
    rounds: Vec<RoundRow>,
    seatings: Vec<SeatingRow>,
    byes: Vec<ByeRow>,
    results: Vec<ResultRow>,
    leftovers: Vec<LeftoverRow>,
}

fn member_of(entrants: &[EntrantRow], entrant: Entrant) -> Option<&EntrantRow> {
    entrants.iter().find(|e| i64::from(e.entrant) == i64::from(entrant.0))
}

fn number(n: i32) -> u32 {
    u32::try_from(n).unwrap_or(0)
}

fn stored(n: u32) -> Result<i32, ServiceError> {
    i32::try_from(n).map_err(|_| ServiceError::Corrupt(format!("{n} does not fit a stored number")))
}

fn entrant_of(n: i32) -> Entrant {
    Entrant(number(n))
}

async fn load(conn: &mut PgConnection, row: TournamentRow) -> Result<Loaded, ServiceError> {
    let id = row.id;
    Ok(Loaded {
        entrants: store::tournaments::entrants(&mut *conn, id).await?,
        rounds: store::tournaments::rounds(&mut *conn, id).await?,
        seatings: store::tournaments::seatings(&mut *conn, id).await?,
        byes: store::tournaments::byes(&mut *conn, id).await?,
        results: store::tournaments::results(&mut *conn, id).await?,
        leftovers: store::tournaments::leftovers(&mut *conn, id).await?,
        row,
    })
}

fn event_of(row: &TournamentRow) -> Result<Event, ServiceError> {
    serde_json::from_value(row.setup.clone())
        .map_err(|e| ServiceError::Corrupt(format!("tournament {}'s set-up does not read: {e}", row.id)))
}

impl Loaded {
    fn round(&self, n: i32) -> Round {
        let mut tables: Vec<tablekeeper_movement::TableSeating> = Vec::new();
        for s in self.seatings.iter().filter(|s| s.round == n) {
            match tables.last_mut() {
                Some(t) if i64::from(t.number) == i64::from(s.table_number) => t.seats.push(entrant_of(s.entrant)),
                _ => tables.push(tablekeeper_movement::TableSeating {
                    number: number(s.table_number),
                    seats: vec![entrant_of(s.entrant)],
                }),
            }
        }
        Round {
            number: number(n),
            tables,
            byes: self
                .byes
                .iter()
                .filter(|b| b.round == n)
                .map(|b| entrant_of(b.entrant))
                .collect(),
        }
    }

    /// The closed rounds with their results, in order.
    fn history(&self) -> Vec<PlayedRound> {
        self.rounds
            .iter()
            .filter(|r| r.closed_at.is_some())
            .map(|r| PlayedRound {
                round: self.round(r.number),
                results: self
                    .results
                    .iter()
                    .filter(|x| x.round == r.number)
                    .map(|x| TableResult {
                        table: number(x.table_number),
                        scores: x.scores.clone(),
                    })
                    .collect(),
            })
            .collect()
    }

    fn open_round(&self) -> Option<&RoundRow> {
        self.rounds.iter().find(|r| r.closed_at.is_none())
    }

    /// Entrants present in round `n`: entered by then and not withdrawn before it.
    fn present(&self, n: u32) -> Vec<Entrant> {
        self.entrants
            .iter()
            .filter(|e| number(e.from_round) <= n && e.until_round.is_none_or(|u| number(u) >= n))
            .map(|e| entrant_of(e.entrant))
            .collect()
    }

    fn name(&self, e: Entrant) -> (Uuid, String) {
        member_of(&self.entrants, e).map_or((Uuid::nil(), String::new()), |m| (m.club_member_id, m.name.clone()))
    }

    fn view(self) -> Result<Tournament, ServiceError> {
        let event = event_of(&self.row)?;
        let standings = event.standings(&self.history())?;
        let rounds = self
            .rounds
            .iter()
            .map(|r| {
                let round = self.round(r.number);
                RoundLine {
                    number: number(r.number),
                    started_at: r.started_at,
                    closed_at: r.closed_at,
                    tables: round
                        .tables
                        .iter()
                        .map(|t| TableLine {
                            number: t.number,
                            table_id: self
                                .seatings
                                .iter()
                                .find(|s| s.round == r.number && number(s.table_number) == t.number)
                                .map_or(Uuid::nil(), |s| s.table_id),
                            seats: t
                                .seats
                                .iter()
                                .enumerate()
                                .map(|(i, e)| {
                                    let (member_id, name) = self.name(*e);
                                    SeatLine {
                                        seat: u32::try_from(i + 1).unwrap_or(u32::MAX),
                                        member_id,
                                        name,
                                    }
                                })
                                .collect(),
                            outcome: self
                                .results
                                .iter()
                                .find(|x| x.round == r.number && number(x.table_number) == t.number)
                                .map(|x| TableOutcome {
                                    scores: x.scores.clone(),
                                    deals_played: number(x.deals_played),
                                    ruled: x.ruled.as_deref().and_then(Unfinished::parse),
                                }),
                            leftover: self
                                .leftovers
                                .iter()
                                .filter(|l| l.round == r.number && number(l.table_number) == t.number)
                                .cloned()
                                .collect(),
                        })
                        .collect(),
                    byes: round.byes.iter().map(|e| self.name(*e)).collect(),
                }
            })
            .collect();
        let standings = standings
            .into_iter()
            .map(|standing| {
                let (member_id, name) = self.name(standing.entrant);
                StandingLine {
                    standing,
                    member_id,
                    name,
                }
            })
            .collect();
        Ok(Tournament {
            setup: event.setup().clone(),
            row: self.row,
            entrants: self.entrants,
            rounds,
            standings,
        })
    }
}

/// The game's seat range, narrowed to `seats` when given.
fn seat_range(game: GameId, seats: Option<(u8, u8)>) -> Result<SeatRange, ServiceError> {
    let (min, max) = with_game!(game, G => (*G::SEATS.start(), *G::SEATS.end()));
    let clamp = |n: usize| u8::try_from(n).unwrap_or(u8::MAX);
    let (game_min, game_max) = (clamp(min), clamp(max));
    let (min, max) = seats.unwrap_or((game_min, game_max));
    if min < game_min || max > game_max || min > max {
        return Err(ServiceError::InvalidTournament(format!(
            "tables of {min} to {max} seats are not within {}'s {game_min} to {game_max}",
            game.as_str()
        )));
    }
    Ok(SeatRange::new(min, max)?)
}

/// The game's options, complete, checked against every table size of `round`.
fn options_for(game: GameId, options: Option<&Value>, round: &Round) -> Result<Value, ServiceError> {
    with_game!(game, G => {
        let parsed: <G as Game>::Options = match options {
            None => Default::default(),
            Some(value) => serde_json::from_value(value.clone()).map_err(ServiceError::InvalidOptions)?,
        };
        let mut complete = None;
        for table in &round.tables {
            let made = G::new(table.seats.len(), parsed.clone())?;
            complete = Some(to_json(&made.options())?);
        }
        complete.ok_or_else(|| ServiceError::InvalidTournament("the first round seats nobody".into()))
    })
}

/// Creates a tournament in `session` (organisers), once per `key`: `render` gives the answer,
/// kept under the key.
///
/// # Errors
/// `InvalidTournament` for rounds, deals or seats out of range; `Movement` for a set-up the
/// engine refuses (a format the game cannot seat, unsatisfiable constraints); `InvalidOptions` or
/// `Setup` for options the game refuses; `InvalidMembers` for an entrant who is not a member of
/// the session's club, listed twice, or a constraint naming someone not entered;
/// `Store(NotFound("session"))`; `Forbidden`; `IdempotencyKeyReused`.
pub async fn create<K: Kept>(
    pool: &PgPool,
    account: Account,
    session: Uuid,
    new: NewTournament,
    key: Option<&CreationKey>,
    render: impl FnOnce(Tournament) -> Result<K, serde_json::Error>,
) -> Result<Outcome<K>, ServiceError> {
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    ensure_user(&mut tx, account.user()).await?;
    if let Some(first) = idempotency::first_answer(&mut tx, account.user(), key).await? {
        return Ok(first);
    }
    let found = store::sessions::fetch(&mut tx, session).await?;
    access::require(&mut tx, account, found.club_id, Capability::Organise, "session").await?;
    store::sessions::lock(&mut tx, session).await?;
    if new.rounds == 0 || new.rounds > 100 {
        return Err(ServiceError::InvalidTournament(
            "a tournament has 1 to 100 rounds".into(),
        ));
    }
    if new.deals_per_round.is_some_and(|d| d == 0 || d > 1000) {
        return Err(ServiceError::InvalidTournament("deals_per_round is 1 to 1000".into()));
    }
    if new.minutes_per_round.is_some_and(|m| m == 0 || m > 24 * 60) {
        return Err(ServiceError::InvalidTournament("minutes_per_round is 1 to 1440".into()));
    }
    // Entrants are numbered from 1 in the order given.
    let mut numbers: Vec<(Uuid, Entrant)> = Vec::with_capacity(new.entrants.len());
    for (i, id) in new.entrants.iter().enumerate() {
        if numbers.iter().any(|(m, _)| m == id) {
            return Err(ServiceError::InvalidMembers(format!("{id} is entered twice")));
        }
        numbers.push((*id, Entrant(u32::try_from(i + 1).unwrap_or(u32::MAX))));
    }
    let entrant = |id: &Uuid| {
        numbers
            .iter()
            .find(|(m, _)| m == id)
            .map(|(_, e)| *e)
            .ok_or_else(|| ServiceError::InvalidMembers(format!("{id} is named in the tournament but not entered")))
    };
    let format = match &new.format {
        FormatSpec::Progressive(moves) => Format::Progressive { moves: *moves },
        FormatSpec::Rotation => Format::Rotation,
        FormatSpec::Fixed => Format::Fixed,
        FormatSpec::Swiss { partnerships } => Format::Swiss {
            partnerships: match partnerships {
                None => None,
                Some(pairs) => Some(
                    pairs
                        .iter()
                        .map(|[a, b]| Ok([entrant(a)?, entrant(b)?]))
                        .collect::<Result<Vec<_>, ServiceError>>()?,
                ),
            },
        },
    };
    let constraints = Constraints {
        apart: new
            .apart
            .iter()
            .map(|[a, b]| Ok([entrant(a)?, entrant(b)?]))
            .collect::<Result<Vec<_>, ServiceError>>()?,
        stay: new
            .stay
            .iter()
            .map(|(id, table)| {
                Ok(Stay {
                    entrant: entrant(id)?,
                    table: *table,
                })
            })
            .collect::<Result<Vec<_>, ServiceError>>()?,
    };
    let everyone: Vec<Entrant> = numbers.iter().map(|(_, e)| *e).collect();
    let setup = Setup {
        format,
        seats: seat_range(new.game, new.seats)?,
        rounds: new.rounds,
        entrants: everyone.clone(),
        constraints,
        scoring: new.scoring.clone(),
    };
    let event = Event::new(setup)?;
    let first = event.seat_round(1, &everyone, &[])?;
    let options = options_for(new.game, new.options.as_ref(), &first)?;
    let setup_json = to_json(&event)?;

    for (id, _) in &numbers {
        match store::clubs::member(&mut tx, found.club_id, *id).await {
            Ok(member) if member.anonymised_at.is_none() => {}
            Ok(_) | Err(StoreError::NotFound(_)) => {
                return Err(ServiceError::InvalidMembers(format!(
                    "{id} is not a member of this session's club"
                )))
            }
            Err(e) => return Err(e.into()),
        }
    }
    let row = store::tournaments::insert(
        &mut tx,
        store::tournaments::NewTournament {
            session,
            club: found.club_id,
            name: &new.name,
            game: new.game.as_str(),
            options: &options,
            setup: &setup_json,
            deals_per_round: new.deals_per_round.map(stored).transpose()?,
            minutes_per_round: new.minutes_per_round.map(stored).transpose()?,
            unfinished: new.unfinished.as_str(),
            leftover: new.leftover.as_str(),
        },
    )
    .await?;
    for (id, e) in &numbers {
        store::tournaments::enter(&mut tx, row.id, stored(e.0)?, *id, 1).await?;
    }
    super::chain::record::link_session(&mut tx, session).await?;
    let made = load(&mut tx, row).await?.view()?;
    let answer = render(made).map_err(ServiceError::Encode)?;
    idempotency::keep_and_commit(tx, account.user(), key, answer).await
}

/// Reads a tournament `who` may read (a member of its club, a share link of its session).
async fn readable(conn: &mut PgConnection, who: Reader, id: Uuid) -> Result<TournamentRow, ServiceError> {
    let row = store::tournaments::fetch(&mut *conn, id).await?;
    let session = store::sessions::fetch(&mut *conn, row.session_id).await?;
    match access::read_session(&mut *conn, who, &session).await {
        Err(ServiceError::Store(StoreError::NotFound(_))) => Err(StoreError::NotFound("tournament").into()),
        other => other.map(|()| row),
    }
}

/// The tournament with its rounds and standings.
///
/// # Errors
/// `Store(NotFound("tournament"))` when there is none or `who` may not read it.
pub async fn get(pool: &PgPool, who: Reader, id: Uuid) -> Result<Tournament, ServiceError> {
    let mut tx = store::begin_read_only(pool).await?;
    let row = readable(&mut tx, who, id).await?;
    let loaded = load(&mut tx, row).await?;
    tx.commit().await.map_err(StoreError::from)?;
    loaded.view()
}

/// The session's tournaments, oldest first (the caller's right to read the session is checked
/// before).
///
/// # Errors
/// On database failure.
pub async fn of_session(pool: &PgPool, session: Uuid) -> Result<Vec<Tournament>, ServiceError> {
    let mut tx = store::begin_read_only(pool).await?;
    let mut all = Vec::new();
    for row in store::tournaments::of_session(&mut tx, session).await? {
        all.push(load(&mut tx, row).await?);
    }
    tx.commit().await.map_err(StoreError::from)?;
    all.into_iter().map(Loaded::view).collect()
}

/// Opens a write on the tournament: the session's row and then the tournament's locked, the
/// caller's right to organise checked.
async fn write(tx: &mut PgConnection, account: Account, id: Uuid) -> Result<Loaded, ServiceError> {
    ensure_user(&mut *tx, account.user()).await?;
    let row = store::tournaments::fetch(&mut *tx, id).await?;
    access::require(&mut *tx, account, row.club_id, Capability::Organise, "tournament").await?;
    store::sessions::lock(&mut *tx, row.session_id).await?;
    let row = store::tournaments::lock(&mut *tx, id).await?;
    load(tx, row).await
}

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
    key: Option<&CreationKey>,
    render: impl FnOnce(StartedRound) -> Result<K, serde_json::Error>,
) -> Result<Outcome<K>, ServiceError> {
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    ensure_user(&mut tx, account.user()).await?;
    if let Some(first) = idempotency::first_answer(&mut tx, account.user(), key).await? {
        return Ok(first);
    }
    let loaded = write(&mut tx, account, id).await?;
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
        let made = super::tables::open_in_session(
            &mut tx,
            account.user(),
            row.club_id,
            row.session_id,
            game,
            players,
            members,
            &row.options,
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
    super::chain::record::link_session(&mut tx, row.session_id).await?;
    let tournament = row.id;
    let (club, session) = (row.club_id, row.session_id);
    let loaded = load(&mut tx, loaded.row).await?;
    let started = loaded
        .view()?
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
    let event = super::webhooks::event(super::webhooks::TOURNAMENT_ROUND_STARTED, now, data);
    store::webhooks::enqueue(&mut tx, club, &[event], now).await?;
    let answer = render(StartedRound {
        tournament,
        round: started,
    })
    .map_err(ServiceError::Encode)?;
    idempotency::keep_and_commit(tx, account.user(), key, answer).await
}

/// A table's score per seat as the standings count it (the game's points; net chips at a game
/// that books chips) and the deals it finished.
async fn table_scores(pool: &PgPool, table: Uuid) -> Result<(Vec<i64>, u32), ServiceError> {
    let sheet = super::tables::score_sheet(pool, table).await?;
    let deals = u32::try_from(sheet.lines.len()).unwrap_or(u32::MAX);
    let seats = sheet.row.players.len();
    if sheet.sheet.get("chips").is_none() {
        let totals = sheet.sheet.get("totals").and_then(Value::as_array);
        let scores = (0..seats)
            .map(|i| totals.and_then(|t| t.get(i)).and_then(Value::as_i64).unwrap_or(0))
            .collect();
        return Ok((scores, deals));
    }
    let ledger = super::ledger::table_ledger(pool, table, None).await?;
    let issued = super::ledger::issued(&ledger.bookings)?;
    let scores = (0..seats)
        .map(|i| {
            let seat = LedgerAccount::Seat(Seat::new(u8::try_from(i).unwrap_or(u8::MAX)));
            (ledger.balances.of(&seat) - issued.of(&seat)).get()
        })
        .collect();
    Ok((scores, deals))
}

/// What each pool of the table holds, in account order.
async fn pool_balances(pool: &PgPool, table: Uuid) -> Result<Vec<(LedgerAccount, i64)>, ServiceError> {
    let ledger = super::ledger::table_ledger(pool, table, None).await?;
    Ok(ledger
        .balances
        .iter()
        .filter(|(account, _)| matches!(account, LedgerAccount::Pool(_)))
        .map(|(account, chips)| (*account, chips.get()))
        .collect())
}

/// Closes round `n`: takes each table's result (a table short of `deals_per_round` is scored as
/// `unfinished` says), books what its pools hold where the `leftover` rule says, and after the
/// last round finishes the tournament and enqueues `tournament.finished` with the standings.
///
/// # Errors
/// `RoundNotFound` for a round not started; `RoundClosed` for one closed already;
/// `Store(NotFound("tournament"))`; `Forbidden`.
pub async fn close_round(pool: &PgPool, account: Account, id: Uuid, n: u32) -> Result<Tournament, ServiceError> {
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    let loaded = write(&mut tx, account, id).await?;
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
        let (mut scores, deals) = table_scores(pool, table_id).await?;
        // The pools' leftover goes where the rule says, after the scores are taken: chips
        // nobody won are no one's winnings at the table.
        let transfers = leftover_transfers(leftover, &pool_balances(pool, table_id).await?, table.seats.len());
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
    super::chain::record::link_session(&mut tx, session).await?;
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
        let event = super::webhooks::event(super::webhooks::TOURNAMENT_FINISHED, now, data);
        store::webhooks::enqueue(&mut tx, club, &[event], now).await?;
    }
    let row = loaded.row;
    let made = load(&mut tx, row).await?.view()?;
    tx.commit().await.map_err(StoreError::from)?;
    Ok(made)
}

/// The next round to be started (the last started + 1).
fn next_round(loaded: &Loaded) -> u32 {
    u32::try_from(loaded.rounds.len() + 1).unwrap_or(u32::MAX)
}

/// Enters a club member late: they play from the next round to be started (scored before it as
/// the scoring's `late` says).
///
/// # Errors
/// `TournamentFinished`; `AlreadyEntered`; `InvalidMembers` for someone not a member of the club;
/// `Movement` when the roster with them is refused; `Store(NotFound("tournament"))`; `Forbidden`.
pub async fn enter(pool: &PgPool, account: Account, id: Uuid, member: Uuid) -> Result<Tournament, ServiceError> {
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    let loaded = write(&mut tx, account, id).await?;
    let event = event_of(&loaded.row)?;
    let from = next_round(&loaded);
    if loaded.row.finished_at.is_some() || from > event.setup().rounds {
        return Err(ServiceError::TournamentFinished);
    }
    if loaded.entrants.iter().any(|e| e.club_member_id == member) {
        return Err(ServiceError::AlreadyEntered);
    }
    match store::clubs::member(&mut tx, loaded.row.club_id, member).await {
        Ok(m) if m.anonymised_at.is_none() => {}
        Ok(_) | Err(StoreError::NotFound(_)) => {
            return Err(ServiceError::InvalidMembers(format!(
                "{member} is not a member of this session's club"
            )))
        }
        Err(e) => return Err(e.into()),
    }
    let next = loaded.entrants.iter().map(|e| e.entrant).max().unwrap_or(0) + 1;
    let mut setup = event.setup().clone();
    setup.entrants.push(entrant_of(next));
    let event = Event::new(setup)?;
    store::tournaments::set_setup(&mut tx, id, &to_json(&event)?).await?;
    store::tournaments::enter(&mut tx, id, next, member, stored(from)?).await?;
    super::chain::record::link_session(&mut tx, loaded.row.session_id).await?;
    let made = load(&mut tx, loaded.row).await?.view()?;
    tx.commit().await.map_err(StoreError::from)?;
    Ok(made)
}

/// Withdraws an entrant from the next round to be started on (an open round they sit in is
/// theirs to finish).
///
/// # Errors
/// `NotAnEntrant`; `TournamentFinished`; `Store(NotFound("tournament"))`; `Forbidden`.
pub async fn withdraw(pool: &PgPool, account: Account, id: Uuid, member: Uuid) -> Result<Tournament, ServiceError> {
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    let loaded = write(&mut tx, account, id).await?;
    if loaded.row.finished_at.is_some() {
        return Err(ServiceError::TournamentFinished);
    }
    let entrant = loaded
        .entrants
        .iter()
        .find(|e| e.club_member_id == member && e.until_round.is_none())
        .ok_or(ServiceError::NotAnEntrant)?;
    let last = stored(next_round(&loaded))? - 1;
    store::tournaments::withdraw(&mut tx, id, entrant.entrant, last.max(entrant.from_round - 1)).await?;
    super::chain::record::link_session(&mut tx, loaded.row.session_id).await?;
    let made = load(&mut tx, loaded.row).await?.view()?;
    tx.commit().await.map_err(StoreError::from)?;
    Ok(made)
}

/// Where a member sits in one round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub round: u32,
    /// None for a bye.
    pub table: Option<(u32, Uuid)>,
    /// From 1; seat 1 deals first.
    pub seat: Option<u32>,
    /// Who else sits at the table, in seat order.
    pub with: Vec<(Uuid, String)>,
}

/// A member's guide card: where they sit now (the open round, else the last started) and next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guide {
    pub member_id: Uuid,
    pub name: String,
    pub now: Option<Place>,
    /// The next round's place when it is known already: the round after a closed one is seated
    /// from the results; a rotation or fixed event's schedule is known ahead.
    pub next: Option<Place>,
    /// The next round exists but depends on results not in yet.
    pub next_pending: bool,
}

fn place_in(loaded: &Loaded, round: &Round, e: Entrant) -> Option<Place> {
    if let Some((table, seat)) = round.seat_of(e) {
        let seats = round.tables.iter().find(|t| t.number == table)?;
        let table_id = loaded
            .seatings
            .iter()
            .find(|s| number(s.round) == round.number && number(s.table_number) == table)
            .map_or(Uuid::nil(), |s| s.table_id);
        return Some(Place {
            round: round.number,
            table: Some((table, table_id)),
            seat: u32::try_from(seat).ok(),
            with: seats
                .seats
                .iter()
                .filter(|o| **o != e)
                .map(|o| loaded.name(*o))
                .collect(),
        });
    }
    round.byes.contains(&e).then(|| Place {
        round: round.number,
        table: None,
        seat: None,
        with: Vec::new(),
    })
}

/// The member's guide card.
///
/// # Errors
/// `NotAnEntrant`; `Store(NotFound("tournament"))` when there is none or `who` may not read it.
pub async fn guide(pool: &PgPool, who: Reader, id: Uuid, member: Uuid) -> Result<Guide, ServiceError> {
    let mut tx = store::begin_read_only(pool).await?;
    let row = readable(&mut tx, who, id).await?;
    let loaded = load(&mut tx, row).await?;
    tx.commit().await.map_err(StoreError::from)?;
    let entrant = loaded
        .entrants
        .iter()
        .find(|e| e.club_member_id == member)
        .ok_or(ServiceError::NotAnEntrant)?;
    let e = entrant_of(entrant.entrant);
    let event = event_of(&loaded.row)?;
    let now_round = loaded.open_round().or(loaded.rounds.last());
    let now = now_round.and_then(|r| place_in(&loaded, &loaded.round(r.number), e));
    let n = next_round(&loaded);
    let mut next = None;
    let mut next_pending = false;
    if n <= event.setup().rounds {
        let present = loaded.present(n);
        if loaded.open_round().is_none() {
            let round = event.seat_round(n, &present, &loaded.history())?;
            next = place_in(&loaded, &round, e);
        } else if let Ok(schedule) = event.schedule(&present) {
            // Ahead only while the rounds so far are the schedule's (the same entrants present).
            let same = loaded
                .rounds
                .iter()
                .all(|r| schedule.get(number(r.number) as usize - 1) == Some(&loaded.round(r.number)));
            if same {
                next = schedule.get(n as usize - 1).and_then(|r| place_in(&loaded, r, e));
            } else {
                next_pending = true;
            }
        } else {
            next_pending = true;
        }
    }
    Ok(Guide {
        member_id: member,
        name: entrant.name.clone(),
        now,
        next,
        next_pending,
    })
}

/// A table the next round would seat (nothing opened yet).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedTable {
    pub number: u32,
    pub seats: Vec<SeatLine>,
}

/// The seating the next round would get if it were started now: a dry run of `start_round`,
/// from the same entrants present and closed rounds' results, writing nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedRound {
    pub number: u32,
    pub tables: Vec<PlannedTable>,
    /// Who would sit it out (club member ids and names).
    pub byes: Vec<(Uuid, String)>,
}

/// The next round's seating, as `start_round` would seat it now; nothing is written.
///
/// # Errors
/// `RoundOpen` while a round is open; `TournamentFinished` after the last round; `Movement` when
/// the engine cannot seat the round; `Store(NotFound("tournament"))` when there is none or `who`
/// may not read it.
pub async fn planned_round(pool: &PgPool, who: Reader, id: Uuid) -> Result<PlannedRound, ServiceError> {
    let mut tx = store::begin_read_only(pool).await?;
    let row = readable(&mut tx, who, id).await?;
    let loaded = load(&mut tx, row).await?;
    tx.commit().await.map_err(StoreError::from)?;
    if let Some(open) = loaded.open_round() {
        return Err(ServiceError::RoundOpen(number(open.number)));
    }
    let event = event_of(&loaded.row)?;
    let n = next_round(&loaded);
    if n > event.setup().rounds {
        return Err(ServiceError::TournamentFinished);
    }
    let round = event.seat_round(n, &loaded.present(n), &loaded.history())?;
    let tables = round
        .tables
        .iter()
        .map(|t| PlannedTable {
            number: t.number,
            seats: t
                .seats
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let (member_id, name) = loaded.name(*e);
                    SeatLine {
                        seat: u32::try_from(i + 1).unwrap_or(u32::MAX),
                        member_id,
                        name,
                    }
                })
                .collect(),
        })
        .collect();
    Ok(PlannedRound {
        number: n,
        tables,
        byes: round.byes.iter().map(|e| loaded.name(*e)).collect(),
    })
}
