//! Spin's table options.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::stops::{self, OpeningPools};
use crate::{OptionDoc, OptionKind};

/// Table options for Spin. Every field may be left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(as = SpinOptions)]
pub struct Options {
    /// Chips each player receives from the bank when the table opens.
    pub opening_chips: u32,
    pub first_dealer: u8,
    /// Rounds of deals: each round every player deals once.
    pub rounds: u8,
    /// What Spin collects from each other player.
    pub spin_stake: u8,
    /// What each king played collects from each other player.
    pub king_payment: u8,
    /// The dealer also stakes on Game (the text calls it a disproportionate tax).
    pub dealer_pays_game: bool,
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
            spin_stake: 3,
            king_payment: 1,
            dealer_pays_game: false,
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
        name: "spin_stake",
        label: "Spin pays",
        description: "What Spin (the A♦) collects from each other player.",
        kind: OptionKind::Number { min: 0, max: 255 },
    },
    OptionDoc {
        name: "king_payment",
        label: "Each king pays",
        description: "What each king played collects from each other player.",
        kind: OptionKind::Number { min: 0, max: 255 },
    },
    OptionDoc {
        name: "dealer_pays_game",
        label: "Dealer stakes on Game",
        description: "The dealer puts a stake on Game too.",
        kind: OptionKind::Toggle,
    },
];
