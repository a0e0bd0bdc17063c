//! Pope Joan's table options.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::rules::stops;
use crate::rules::OptionDoc;

/// Who dresses the board at the start of each deal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Dressing {
    /// Every player, the dealer paying double.
    #[default]
    AllPlayers,
    /// The dealer alone pays the whole board.
    DealerAlone,
}

/// Table options for Pope Joan. Every field may be left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(as = PopeJoanOptions)]
pub struct Options {
    /// Chips each player receives from the bank when the table opens.
    pub opening_chips: u32,
    /// The first dealer, as a seat.
    pub first_dealer: u8,
    /// Rounds of deals: each round every player deals once.
    pub rounds: u8,
    pub dressing: Dressing,
    /// The least the board is dressed with each deal (left out: 15, or 12 on a five-division
    /// board). Fixed stakes: Pope 6, Matrimony 2, Intrigue 2, Ace, King, Queen, Knave 1; Game
    /// takes the rest.
    pub board_total: Option<u8>,
    /// Pope, Matrimony, Intrigue, Ace and Game only.
    pub five_divisions: bool,
    /// The most a Pope turn-up collects from each player (left out: one a card dealt).
    pub pope_turn_up_cap: Option<u8>,
    /// A Pope turn-up also wins Game and ends the deal.
    pub pope_turn_up_wins_game: bool,
    /// Matrimony or Intrigue played by two players is split between them (the odd chip stays).
    pub split_matrimony_and_intrigue: bool,
    /// "The most popular variation": the winner takes Game only; the others pay their cards
    /// onto the board (emptiest division first), and the dealer alone dresses it with 1 chip.
    pub losers_pay_board: bool,
    /// The 9♦ may be played after a stop in place of the card the run needed, from any seat;
    /// the run goes on from there (`pope_in_lieu` move).
    pub pope_in_lieu_of_stop: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            opening_chips: 100,
            first_dealer: 0,
            rounds: 1,
            dressing: Dressing::AllPlayers,
            board_total: None,
            five_divisions: false,
            pope_turn_up_cap: None,
            pope_turn_up_wins_game: false,
            split_matrimony_and_intrigue: false,
            losers_pay_board: false,
            pope_in_lieu_of_stop: false,
        }
    }
}

stops::impl_table_options!(Options);

pub(super) const OPTION_DOCS: &[OptionDoc] = &[
    stops::OPENING_CHIPS_DOC,
    stops::FIRST_DEALER_DOC,
    stops::ROUNDS_DOC,
    OptionDoc {
        name: "dressing",
        description: "all_players (the dealer paying double; default) or dealer_alone",
    },
    OptionDoc {
        name: "board_total",
        description: "least chips dressing the board each deal (default 15; 12 with five divisions)",
    },
    OptionDoc {
        name: "five_divisions",
        description: "board of Pope, Matrimony, Intrigue, Ace and Game only",
    },
    OptionDoc {
        name: "pope_turn_up_cap",
        description: "most a Pope turn-up collects from each player (default: one a card dealt)",
    },
    OptionDoc {
        name: "pope_turn_up_wins_game",
        description: "a Pope turn-up also wins Game and ends the deal",
    },
    OptionDoc {
        name: "split_matrimony_and_intrigue",
        description: "Matrimony or Intrigue played by two players is split between them",
    },
    OptionDoc {
        name: "losers_pay_board",
        description: "the winner takes Game only; the others pay their cards onto the board",
    },
    OptionDoc {
        name: "pope_in_lieu_of_stop",
        description: "the 9♦ may be played after a stop in place of the card the run needed",
    },
];
