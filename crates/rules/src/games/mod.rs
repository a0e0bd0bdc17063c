//! Every game, declared once.
//!
//! `all_games!` below is THE list of games. Everything that enumerates games is derived from
//! it: the modules, the flat re-exports, `GameId`, the dispatch from an id to an engine type
//! (`with_game!`), the spec's per-game schemas and the per-game set-up tests. Adding a game is
//! one folder here and one line in the list.

/// Calls `$callback! { {extra tokens} module::Type = "id", … }` with every game, in catalogue
/// order. The one list of games.
#[macro_export]
macro_rules! all_games {
    ($callback:ident { $($extra:tt)* }) => {
        $callback! {
            { $($extra)* }
            nomination_whist::NominationWhist = "nomination-whist",
            dividend::Dividend = "dividend",
            tricky_dick::TrickyDick = "tricky-dick",
            tridge::Tridge = "tridge",
            pope_joan::PopeJoan = "pope-joan",
            spin::Spin = "spin",
            newmarket::Newmarket = "newmarket",
        }
    };
}
pub use crate::all_games;

macro_rules! declare_games {
    ({ $d:tt } $($module:ident :: $game:ident = $id:literal),+ $(,)?) => {
        $(pub mod $module;)+
        $(pub use $module::$game;)+

        /// The games the service can run, by their stable ids.
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, utoipa::ToSchema,
        )]
        // The ids are the kebab-case of the type names (checked by `game_ids_round_trip`);
        // rename_all, not a rename per variant, because the spec generator reads only the former.
        #[serde(rename_all = "kebab-case")]
        pub enum GameId {
            $($game,)+
        }

        impl GameId {
            pub const ALL: &'static [GameId] = &[$(GameId::$game),+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $(GameId::$game => $id,)+
                }
            }
        }

        /// Runs `$body` with `$g` bound to the engine type of game `$id`: the one place a game
        /// id becomes a type.
        #[macro_export]
        macro_rules! with_game {
            ($d id:expr, $d g:ident => $d body:expr) => {
                match $d id {
                    $(
                        $crate::GameId::$game => {
                            type $d g = $crate::games::$module::$game;
                            $d body
                        }
                    )+
                }
            };
        }

        #[cfg(test)]
        mod every_game {
            $(
                #[test]
                #[allow(non_snake_case)]
                fn $game() {
                    super::testing::set_up_again::<super::$game>();
                    assert_eq!(<super::$game as crate::Game>::ID.as_str(), $id);
                }
            )+
        }
    };
}

all_games!(declare_games { $ });

impl GameId {
    /// The game's `Options::default()` as JSON: what a table gets for options left out.
    pub fn default_options(self) -> serde_json::Value {
        with_game!(self, G => serde_json::to_value(<G as crate::Game>::Options::default()).unwrap_or_default())
    }

    pub fn parse(id: &str) -> Option<GameId> {
        GameId::ALL.iter().copied().find(|g| g.as_str() == id)
    }
}

impl std::fmt::Display for GameId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

pub mod sim;
#[cfg(test)]
mod testing;
#[cfg(test)]
mod trick_plans;

#[cfg(test)]
mod tests {
    use super::GameId;

    #[test]
    fn game_ids_round_trip() {
        for &id in GameId::ALL {
            assert_eq!(GameId::parse(id.as_str()), Some(id));
            assert_eq!(serde_json::to_value(id).expect("json"), serde_json::json!(id.as_str()));
        }
        assert_eq!(GameId::parse("snap"), None);
    }
}
