//! Why the engine refused a move or a set-up. Every variant has a stable `code` that the API
//! hands to clients; messages are lowercase sentences.

use super::cards::Card;
use super::seat::Seat;

/// A move the rules do not allow. The state it was offered to is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleViolation {
    #[error("{seat} is not at this table of {players}")]
    NoSuchSeat { seat: Seat, players: usize },
    #[error("it is not {got}'s turn: {expected} is to act")]
    NotYourTurn { expected: Seat, got: Seat },
    #[error("{0} has already been played in this deal")]
    CardAlreadyPlayed(Card),
    #[error("{0} is the turned-up card and is in nobody's hand")]
    CardTurnedUp(Card),
    #[error("a `{kind}` move is not expected now; expected one of: {}", expected.join(", "))]
    MoveNotExpected {
        kind: &'static str,
        expected: Vec<&'static str>,
    },
    #[error("the game has ended; no more moves can be recorded")]
    GameFinished,
    #[error("a nomination of {tricks} is out of range: the hand has {hand_size} cards")]
    NominationOutOfRange { tricks: u8, hand_size: u8 },
    #[error("the hook rule forbids the dealer ({seat}) to nominate {forbidden}: the nominations would add up to the hand size")]
    HookRule { seat: Seat, forbidden: u8 },
    #[error("the tricks entered add up to {total}, but {expected} tricks were played")]
    TricksDoNotAddUp { total: u32, expected: u32 },
    #[error("expected one entry per seat ({expected}), got {got}")]
    WrongNumberOfEntries { got: usize, expected: usize },
    #[error("{0} is not in this game's pack")]
    CardNotInPack(Card),
    #[error("{card} does not continue the run: the next card up is {expected}")]
    NotInSequence { card: Card, expected: Card },
    #[error("the run cannot be declared stopped: every card is dealt, so {next} is in a player's hand")]
    RunContinues { next: Card },
    #[error("{seat} was dealt {dealt} cards and has played them all")]
    MoreCardsThanDealt { seat: Seat, dealt: u8 },
    #[error("{0} is not a pool card laid out in this deal")]
    NotAPoolCard(Card),
    #[error("the result is inconsistent: {0}")]
    InvalidResult(String),
    #[error("the layout is not valid: {0}")]
    InvalidLayout(String),
    #[error("{card} was shown by {holder}, so {seat} cannot hold it")]
    CardHeldByAnother { card: Card, holder: Seat, seat: Seat },
}

impl RuleViolation {
    /// The stable machine-readable code for this violation.
    pub fn code(&self) -> &'static str {
        match self {
            RuleViolation::NoSuchSeat { .. } => "no_such_seat",
            RuleViolation::NotYourTurn { .. } => "not_your_turn",
            RuleViolation::CardAlreadyPlayed(_) => "card_already_played",
            RuleViolation::CardTurnedUp(_) => "card_turned_up",
            RuleViolation::MoveNotExpected { .. } => "move_not_expected",
            RuleViolation::GameFinished => "game_finished",
            RuleViolation::NominationOutOfRange { .. } => "nomination_out_of_range",
            RuleViolation::HookRule { .. } => "hook_rule",
            RuleViolation::TricksDoNotAddUp { .. } => "tricks_do_not_add_up",
            RuleViolation::WrongNumberOfEntries { .. } => "wrong_number_of_entries",
            RuleViolation::CardNotInPack(_) => "card_not_in_pack",
            RuleViolation::NotInSequence { .. } => "not_in_sequence",
            RuleViolation::RunContinues { .. } => "run_continues",
            RuleViolation::MoreCardsThanDealt { .. } => "more_cards_than_dealt",
            RuleViolation::NotAPoolCard(_) => "not_a_pool_card",
            RuleViolation::InvalidResult(_) => "invalid_result",
            RuleViolation::InvalidLayout(_) => "invalid_layout",
            RuleViolation::CardHeldByAnother { .. } => "card_held_by_another",
        }
    }

    /// True when the move conflicts with the table's state rather than being malformed
    /// (the API answers these with 409).
    pub fn is_conflict(&self) -> bool {
        matches!(self, RuleViolation::GameFinished)
    }
}

/// A table that cannot be set up with these players and options.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("this game seats {min} to {max} players, not {got}")]
    PlayerCount { got: usize, min: usize, max: usize },
    #[error("invalid option `{option}`: {reason}")]
    InvalidOption { option: &'static str, reason: String },
}

impl SetupError {
    pub fn code(&self) -> &'static str {
        match self {
            SetupError::PlayerCount { .. } => "invalid_player_count",
            SetupError::InvalidOption { .. } => "invalid_option",
        }
    }
}
