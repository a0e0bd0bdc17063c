//! Newmarket's table options.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::stops::{self, OpeningPools};
use crate::{OptionDoc, OptionKind};

/// Table options for Newmarket. Every field may be left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(as = NewmarketOptions)]
pub struct Options {
    /// Chips each player receives from the bank when the table opens.
    pub opening_chips: u32,
    pub first_dealer: u8,
    /// Rounds of deals: each round every player deals once.
    pub rounds: u8,
    /// What the dealer adds to the pools each deal.
    pub dealer_extra: u8,
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
            dealer_extra: 1,
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
        name: "dealer_extra",
        label: "Dealer's extra",
        description: "Chips the dealer adds to the pools each deal, besides the stake everyone puts in (at least 1 at a table of three).",
        kind: OptionKind::Number { min: 0, max: 255 },
    },
];
