//! Why the engine refused a set-up, a round or a history. Every variant has a stable
//! snake_case [`code`](MovementError::code) that the API hands to clients; messages are lowercase
//! sentences. A refusal changes nothing: the engine holds no state between calls.

use super::entrant::Entrant;

/// A set-up the engine cannot run, a round it cannot seat, or a history it cannot read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MovementError {
    #[error("a seat range of {min}..={max} is not usable: it needs 1 <= min <= max <= {limit}")]
    InvalidSeatRange { min: u8, max: u8, limit: u8 },
    #[error("an event needs at least one round")]
    NoRounds,
    #[error("{0} is listed twice")]
    DuplicateEntrant(Entrant),
    #[error("{entrants} entrants cannot fill a table of at least {min}")]
    TooFewEntrants { entrants: usize, min: u8 },
    #[error("{0} is not an entrant of this event")]
    UnknownEntrant(Entrant),
    #[error("{first} and {second} cannot be kept apart: {reason}")]
    ApartUnsatisfiable {
        first: Entrant,
        second: Entrant,
        reason: &'static str,
    },
    #[error("{entrant} cannot stay at table {table}: {reason}")]
    StayUnsatisfiable {
        entrant: Entrant,
        table: u32,
        reason: &'static str,
    },
    #[error("round {round} cannot be seated with every apart pair at different tables")]
    ApartNotSeatable { round: u32 },
    #[error("partnerships need tables of two or more pairs within {min}..={max} seats")]
    PartnershipsNotSeatable { min: u8, max: u8 },
    #[error("{0} is not in any partnership")]
    NotInAPartnership(Entrant),
    #[error("{entrant} is present but their partner {partner} is not")]
    PartnerAbsent { entrant: Entrant, partner: Entrant },
    #[error("round {requested} cannot be seated now: round {expected} is next")]
    RoundOutOfOrder { requested: u32, expected: u32 },
    #[error("there is no round {requested}: the event has {rounds} rounds")]
    NoSuchRound { requested: u32, rounds: u32 },
    #[error("the history of round {round} is not a seating of this event: {reason}")]
    HistoryMismatch { round: u32, reason: &'static str },
    #[error("the results of round {round} do not match its tables: {reason}")]
    ResultsMismatch { round: u32, reason: &'static str },
    #[error("this format seats each round by the results of the last, so it has no schedule ahead")]
    DependsOnResults,
}

impl MovementError {
    /// The stable, machine-readable name of this refusal.
    pub const fn code(&self) -> &'static str {
        match self {
            Self::InvalidSeatRange { .. } => "invalid_seat_range",
            Self::NoRounds => "no_rounds",
            Self::DuplicateEntrant(_) => "duplicate_entrant",
            Self::TooFewEntrants { .. } => "too_few_entrants",
            Self::UnknownEntrant(_) => "unknown_entrant",
            Self::ApartUnsatisfiable { .. } => "apart_unsatisfiable",
            Self::StayUnsatisfiable { .. } => "stay_unsatisfiable",
            Self::ApartNotSeatable { .. } => "apart_not_seatable",
            Self::PartnershipsNotSeatable { .. } => "partnerships_not_seatable",
            Self::NotInAPartnership(_) => "not_in_a_partnership",
            Self::PartnerAbsent { .. } => "partner_absent",
            Self::RoundOutOfOrder { .. } => "round_out_of_order",
            Self::NoSuchRound { .. } => "no_such_round",
            Self::HistoryMismatch { .. } => "history_mismatch",
            Self::ResultsMismatch { .. } => "results_mismatch",
            Self::DependsOnResults => "depends_on_results",
        }
    }
}
