//! Where a member sits now and next, and the next round's seating as a dry run.

use tablekeeper_store::{self as store, PgPool, StoreError};
use uuid::Uuid;

use super::loaded::{event_of, load, Loaded};
use super::{entrant_of, next_round, number, readable, Entrant, Round, SeatLine};
use crate::access::Reader;
use crate::ServiceError;

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
