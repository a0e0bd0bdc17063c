//! Why the engine refused a move or a set-up. Every variant has a stable `code` that the API
//! hands to clients; messages are lowercase sentences. A `seat::NoSuchSeat` (a seat checked
//! against the table) becomes `RuleViolation::NoSuchSeat` by `?`.

use super::cards::Card;
use super::seat::{NoSuchSeat, Seat};
use super::squares::SquaresCard;

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
    #[error("the stock has already been counted in this deal")]
    StockAlreadyCounted,
    #[error("a nomination of {tricks} is out of range: the hand has {hand_size} cards")]
    NominationOutOfRange { tricks: u8, hand_size: u8 },
    #[error("the hook rule forbids the dealer ({seat}) to nominate {forbidden}: the nominations would add up to the hand size")]
    HookRule { seat: Seat, forbidden: u8 },
    #[error("the tricks entered add up to {total}, but {expected} tricks were played")]
    TricksDoNotAddUp { total: u32, expected: u32 },
    #[error("expected one entry per seat ({expected}), got {got}")]
    WrongNumberOfEntries { got: usize, expected: usize },
    #[error("the cards won add up to {total}, but a deal has {expected} cards")]
    CardsDoNotAddUp { total: u32, expected: u32 },
    #[error("no 13 tricks with {leader} leading the first can share the cards out as {cards_won:?}")]
    ImpossibleResult { cards_won: Vec<u8>, leader: Seat },
    #[error("there is no trick {number}: a deal has {tricks} tricks")]
    NoSuchTrick { number: u8, tricks: u8 },
    #[error("trick {got} is not the one being recorded: trick {expected} is next")]
    TrickOutOfOrder { expected: u8, got: u8 },
    #[error("{0} has already been played in this deal")]
    SquaresCardAlreadyPlayed(SquaresCard),
    #[error("trick {trick} is complete: it already has a card from every seat (the current trick is {current})")]
    TrickComplete { trick: u8, current: u8 },
    #[error("trick {trick} has not started: the current trick is {current}")]
    TrickNotStarted { trick: u8, current: u8 },
    #[error("{seat} is sitting out this deal (the dealer of four) and cannot act in it")]
    SeatSittingOut { seat: Seat },
    #[error("a bid of {bid} does not beat the standing bid of {standing}")]
    BidTooLow { bid: String, standing: String },
    #[error("No Tricks may only be bid once everyone has passed")]
    NoTricksBeforeAllPassed,
    #[error("a Fixed Trick bid must name trumps")]
    TrumpsRequired,
    #[error("{seat} cannot exchange {cards} cards: at most {max} may be taken now")]
    ExchangeCount { seat: Seat, cards: u8, max: u8 },
    #[error("impossible honours: {reason}")]
    HonoursImpossible { reason: String },
    #[error("invalid contract: {reason}")]
    InvalidContract { reason: String },
    #[error("a contract of {contract} is below the winning bid of {bid}")]
    ContractBelowBid { contract: String, bid: String },
    #[error("{seat} is not a defender of this deal")]
    NotADefender { seat: Seat },
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
    #[error("the chips this move would move take an account beyond what the ledger can hold")]
    ChipsOutOfRange,
    #[error("the table has played the most deals one table can record ({max})")]
    DealLimit { max: u16 },
    #[error("{seat}'s trick chips of {chips} are out of range: a hand's tricks hold {max} circles and {max} squares, so a player's trick chips are −{max} to {max}")]
    TrickChipsOutOfRange { seat: Seat, chips: i32, max: i32 },
    #[error("the trick chips add up to {total}, which no hand can give: a trick's value reaches one to four players and a hand's trick values add up to nothing, so the players' trick chips add up to −{max} to {max}")]
    TrickChipsDoNotAddUp { total: i64, max: i64 },
    #[error("{seat}'s {penalties} penalties are out of range: one lay per trick after the first may be penalised, so 0 to {max}")]
    PenaltiesOutOfRange { seat: Seat, penalties: u8, max: u8 },
}

impl RuleViolation {
    /// Every code `code` can return, sorted (for the API's documentation).
    pub const CODES: &'static [&'static str] = &[
        "bid_too_low",
        "card_already_played",
        "card_held_by_another",
        "card_not_in_pack",
        "card_turned_up",
        "cards_do_not_add_up",
        "chips_out_of_range",
        "contract_below_bid",
        "deal_limit",
        "exchange_count",
        "game_finished",
        "honours_impossible",
        "hook_rule",
        "impossible_result",
        "invalid_contract",
        "invalid_layout",
        "invalid_result",
        "more_cards_than_dealt",
        "move_not_expected",
        "no_such_seat",
        "no_such_trick",
        "no_tricks_before_all_passed",
        "nomination_out_of_range",
        "not_a_defender",
        "not_a_pool_card",
        "not_in_sequence",
        "not_your_turn",
        "penalties_out_of_range",
        "run_continues",
        "seat_sitting_out",
        "stock_already_counted",
        "trick_chips_do_not_add_up",
        "trick_chips_out_of_range",
        "trick_complete",
        "trick_not_started",
        "trick_out_of_order",
        "tricks_do_not_add_up",
        "trumps_required",
        "wrong_number_of_entries",
    ];

    /// The stable machine-readable code for this violation.
    pub fn code(&self) -> &'static str {
        match self {
            RuleViolation::NoSuchSeat { .. } => "no_such_seat",
            RuleViolation::NotYourTurn { .. } => "not_your_turn",
            RuleViolation::CardAlreadyPlayed(_) => "card_already_played",
            RuleViolation::CardTurnedUp(_) => "card_turned_up",
            RuleViolation::MoveNotExpected { .. } => "move_not_expected",
            RuleViolation::GameFinished => "game_finished",
            RuleViolation::StockAlreadyCounted => "stock_already_counted",
            RuleViolation::NominationOutOfRange { .. } => "nomination_out_of_range",
            RuleViolation::HookRule { .. } => "hook_rule",
            RuleViolation::TricksDoNotAddUp { .. } => "tricks_do_not_add_up",
            RuleViolation::WrongNumberOfEntries { .. } => "wrong_number_of_entries",
            RuleViolation::CardsDoNotAddUp { .. } => "cards_do_not_add_up",
            RuleViolation::ImpossibleResult { .. } => "impossible_result",
            RuleViolation::NoSuchTrick { .. } => "no_such_trick",
            RuleViolation::TrickOutOfOrder { .. } => "trick_out_of_order",
            RuleViolation::SquaresCardAlreadyPlayed(_) => "card_already_played",
            RuleViolation::TrickComplete { .. } => "trick_complete",
            RuleViolation::TrickNotStarted { .. } => "trick_not_started",
            RuleViolation::SeatSittingOut { .. } => "seat_sitting_out",
            RuleViolation::BidTooLow { .. } => "bid_too_low",
            RuleViolation::NoTricksBeforeAllPassed => "no_tricks_before_all_passed",
            RuleViolation::TrumpsRequired => "trumps_required",
            RuleViolation::ExchangeCount { .. } => "exchange_count",
            RuleViolation::HonoursImpossible { .. } => "honours_impossible",
            RuleViolation::InvalidContract { .. } => "invalid_contract",
            RuleViolation::ContractBelowBid { .. } => "contract_below_bid",
            RuleViolation::NotADefender { .. } => "not_a_defender",
            RuleViolation::CardNotInPack(_) => "card_not_in_pack",
            RuleViolation::NotInSequence { .. } => "not_in_sequence",
            RuleViolation::RunContinues { .. } => "run_continues",
            RuleViolation::MoreCardsThanDealt { .. } => "more_cards_than_dealt",
            RuleViolation::NotAPoolCard(_) => "not_a_pool_card",
            RuleViolation::InvalidResult(_) => "invalid_result",
            RuleViolation::InvalidLayout(_) => "invalid_layout",
            RuleViolation::CardHeldByAnother { .. } => "card_held_by_another",
            RuleViolation::ChipsOutOfRange => "chips_out_of_range",
            RuleViolation::DealLimit { .. } => "deal_limit",
            RuleViolation::TrickChipsOutOfRange { .. } => "trick_chips_out_of_range",
            RuleViolation::TrickChipsDoNotAddUp { .. } => "trick_chips_do_not_add_up",
            RuleViolation::PenaltiesOutOfRange { .. } => "penalties_out_of_range",
        }
    }

    /// True when the move conflicts with the table's state rather than being malformed
    /// (the API answers these with 409).
    pub fn is_conflict(&self) -> bool {
        matches!(
            self,
            RuleViolation::GameFinished
                | RuleViolation::TrickOutOfOrder { .. }
                | RuleViolation::ChipsOutOfRange
                | RuleViolation::DealLimit { .. }
        )
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

impl From<NoSuchSeat> for RuleViolation {
    fn from(NoSuchSeat { seat, players }: NoSuchSeat) -> RuleViolation {
        RuleViolation::NoSuchSeat { seat, players }
    }
}

impl SetupError {
    /// Refuses a player count outside the game's seat range.
    ///
    /// # Errors
    /// `PlayerCount` naming the range.
    pub fn check_players(players: usize, seats: &std::ops::RangeInclusive<usize>) -> Result<(), SetupError> {
        if seats.contains(&players) {
            Ok(())
        } else {
            Err(SetupError::PlayerCount {
                got: players,
                min: *seats.start(),
                max: *seats.end(),
            })
        }
    }

    /// The first dealer's seat, checked with `Seat::check` like every seat of a move.
    ///
    /// # Errors
    /// `InvalidOption` on `first_dealer` when that seat is not at a table of `players`.
    pub fn check_first_dealer(first_dealer: u8, players: usize) -> Result<Seat, SetupError> {
        Seat::new(first_dealer)
            .check(players)
            .map_err(|_| SetupError::InvalidOption {
                option: "first_dealer",
                reason: format!("there is no seat {first_dealer} at a table of {players}"),
            })
    }

    pub fn code(&self) -> &'static str {
        match self {
            SetupError::PlayerCount { .. } => "invalid_player_count",
            SetupError::InvalidOption { .. } => "invalid_option",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_of_codes_is_every_code_a_violation_can_have() {
        let source = include_str!("error.rs");
        let start = source.find("pub fn code(&self)").expect("code()");
        let end = source.find("pub fn is_conflict").expect("is_conflict()");
        let mut codes: Vec<&str> = source[start..end]
            .split("=> \"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes, RuleViolation::CODES);
    }
}
