//! Late arrivals and withdrawals, from the next round to be started.

use chrono::{DateTime, Utc};
use tablekeeper_store::{self as store, PgPool, StoreError};
use uuid::Uuid;

use super::loaded::{event_of, load};
use super::{entrant_of, next_round, stored, tell_boards, write, Event, Tournament};
use crate::access::Account;
use crate::{to_json, ServiceError};

/// Enters a club member late: they play from the next round to be started (scored before it as
/// the scoring's `late` says).
///
/// # Errors
/// `TournamentFinished`; `AlreadyEntered`; `InvalidMembers` for someone not a member of the club;
/// `Movement` when the roster with them is refused; `Store(NotFound("tournament"))`; `Forbidden`.
pub async fn enter(
    pool: &PgPool,
    account: Account,
    id: Uuid,
    member: Uuid,
    now: DateTime<Utc>,
) -> Result<Tournament, ServiceError> {
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    let loaded = write(&mut tx, account, id, now).await?;
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
    crate::chain::record::link_session(&mut tx, loaded.row.session_id).await?;
    let made = load(&mut tx, loaded.row).await?.view()?;
    tell_boards(&mut tx, &made).await?;
    tx.commit().await.map_err(StoreError::from)?;
    Ok(made)
}

/// Withdraws an entrant from the next round to be started on (an open round they sit in is
/// theirs to finish).
///
/// # Errors
/// `NotAnEntrant`; `TournamentFinished`; `Store(NotFound("tournament"))`; `Forbidden`.
pub async fn withdraw(
    pool: &PgPool,
    account: Account,
    id: Uuid,
    member: Uuid,
    now: DateTime<Utc>,
) -> Result<Tournament, ServiceError> {
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    let loaded = write(&mut tx, account, id, now).await?;
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
    crate::chain::record::link_session(&mut tx, loaded.row.session_id).await?;
    let made = load(&mut tx, loaded.row).await?.view()?;
    tell_boards(&mut tx, &made).await?;
    tx.commit().await.map_err(StoreError::from)?;
    Ok(made)
}
