//! Pope Joan's table options.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::stops::{self, OpeningPools};
use crate::{Choice, OptionDoc, OptionKind};

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
    /// Chips already on the board's pools when the table opens, by pool (left out: none): a
    /// club's carry from an earlier table, such as a tournament round's leftover
    /// (`leftover: carry`). The bank issues them; a deal wins them as any pool's chips.
    #[serde(skip_serializing_if = "OpeningPools::is_empty")]
    #[schema(value_type = std::collections::BTreeMap<String, u32>)]
    pub opening_pools: OpeningPools,
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
            opening_pools: OpeningPools::new(),
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
        label: "Who dresses the board",
        description: "Who pays the stakes onto the board at the start of each deal.",
        kind: OptionKind::Choice(&[
            Choice {
                value: "all_players",
                label: "Every player, the dealer paying double",
            },
            Choice {
                value: "dealer_alone",
                label: "The dealer alone",
            },
        ]),
    },
    OptionDoc {
        name: "board_total",
        label: "Board total",
        description: "The least chips the board is dressed with each deal; left empty, 15 (12 with five divisions).",
        kind: OptionKind::Number { min: 12, max: 255 },
    },
    OptionDoc {
        name: "five_divisions",
        label: "Five divisions",
        description: "The board has Pope, Matrimony, Intrigue, Ace and Game only.",
        kind: OptionKind::Toggle,
    },
    OptionDoc {
        name: "pope_turn_up_cap",
        label: "Most a Pope turn-up collects",
        description: "The most a Pope turned up collects from each player; left empty, one chip a card dealt.",
        kind: OptionKind::Number { min: 1, max: 255 },
    },
    OptionDoc {
        name: "pope_turn_up_wins_game",
        label: "Pope turned up wins Game",
        description: "A Pope turned up also wins Game and ends the deal.",
        kind: OptionKind::Toggle,
    },
    OptionDoc {
        name: "split_matrimony_and_intrigue",
        label: "Split Matrimony and Intrigue",
        description: "Matrimony or Intrigue played by two players is shared between them.",
        kind: OptionKind::Toggle,
    },
    OptionDoc {
        name: "losers_pay_board",
        label: "Losers pay the board",
        description: "The winner takes Game only; the others pay their cards left onto the board.",
        kind: OptionKind::Toggle,
    },
    OptionDoc {
        name: "pope_in_lieu_of_stop",
        label: "Pope in lieu of a stop",
        description: "The 9♦ may be played after a stop in place of the card the run needed.",
        kind: OptionKind::Toggle,
    },
];
