//! Making a tournament: its set-up checked by the movement engine before anything is written.

use chrono::{DateTime, Utc};
use serde_json::Value;
use tablekeeper_movement::{Constraints, Setup, Stay};
use tablekeeper_rules::{with_game, Game, GameId};
use tablekeeper_store::{self as store, PgPool, StoreError};
use uuid::Uuid;

use super::loaded::load;
use super::{
    stored, tell_boards, Entrant, Event, Format, FormatSpec, Leftover, NewTournament, Round, SeatRange, Tournament,
};
use crate::access::{self, Account, Capability};
use crate::idempotency::{self, CreationKey, Kept, Outcome};
use crate::{ensure_user, to_json, ServiceError};

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
    if options.is_some_and(|o| o.get("opening_pools").is_some()) {
        // Every round's tables would open with them: a tournament's tables open with what its
        // `leftover: carry` rule carries, and nothing else.
        return Err(ServiceError::Setup(tablekeeper_rules::SetupError::InvalidOption {
            option: "opening_pools",
            reason: "a tournament's tables open with the chips its `leftover: carry` rule carries".into(),
        }));
    }
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
    now: DateTime<Utc>,
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
    crate::finality::lock_writable(&mut tx, session, now).await?;
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
    let leftover = match new.leftover {
        Some(rule) => rule,
        None => club_leftover(&mut tx, found.club_id).await?,
    };
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
            leftover: leftover.as_str(),
        },
    )
    .await?;
    for (id, e) in &numbers {
        store::tournaments::enter(&mut tx, row.id, stored(e.0)?, *id, 1).await?;
    }
    crate::chain::record::link_session(&mut tx, session).await?;
    let made = load(&mut tx, row).await?.view()?;
    tell_boards(&mut tx, &made).await?;
    let answer = render(made).map_err(ServiceError::Encode)?;
    idempotency::keep_and_commit(tx, account.user(), key, answer).await
}

/// The club's leftover rule, which a tournament naming none takes when it is made.
///
/// # Errors
/// `Store(NotFound("club"))`; `Corrupt` for a stored rule that is not one of the four.
pub(crate) async fn club_leftover(conn: &mut store::PgConnection, club: Uuid) -> Result<Leftover, ServiceError> {
    let stored = store::clubs::leftover_of(conn, club).await?;
    Leftover::parse(&stored).ok_or_else(|| ServiceError::Corrupt(format!("a club's leftover rule {stored:?}")))
}

/// The club's leftover rule (any member reads it).
///
/// # Errors
/// `Store(NotFound("club"))` for a stranger; `Forbidden`.
pub async fn leftover(pool: &PgPool, account: Account, club: Uuid) -> Result<Leftover, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    ensure_user(&mut conn, account.user()).await?;
    access::require(&mut conn, account, club, Capability::Read, "club").await?;
    club_leftover(&mut conn, club).await
}

/// Sets the club's leftover rule (whoever runs the club): tournaments made later that name none
/// take it; those made already keep theirs.
///
/// # Errors
/// `Store(NotFound("club"))`; `Forbidden`.
pub async fn set_leftover(
    pool: &PgPool,
    account: Account,
    club: Uuid,
    rule: Leftover,
) -> Result<Leftover, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    ensure_user(&mut conn, account.user()).await?;
    access::require(&mut conn, account, club, Capability::Manage, "club").await?;
    store::clubs::set_leftover(&mut conn, club, rule.as_str()).await?;
    Ok(rule)
}
