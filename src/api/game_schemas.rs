//! The spec's per-game schemas: a move, an event, options, a view and a score sheet whose shape
//! depends on the table's game, one variant per game of the list of games (never listed here).
//!
//! Kept apart from `openapi` so that the resource modules that name these schemas and the
//! document that lists those modules do not depend on each other.

use serde::Serialize;
use utoipa::ToSchema;

use crate::rules::games;

/// The spec's per-game schemas, one variant per game of the list of games.
macro_rules! any_schemas {
    ({} $($module:ident :: $game:ident = $id:literal),+ $(,)?) => {
        /// A move; its shape depends on the table's game.
        #[derive(Serialize, ToSchema)]
        #[serde(untagged)]
        pub enum AnyMove {
            $($game(games::$module::Move),)+
        }

        /// What a move caused; its shape depends on the table's game.
        #[derive(Serialize, ToSchema)]
        #[serde(untagged)]
        pub enum AnyEvent {
            $($game(games::$module::Event),)+
        }

        /// Table options; their shape depends on the table's game.
        #[derive(Serialize, ToSchema)]
        #[serde(untagged)]
        pub enum AnyOptions {
            $($game(games::$module::Options),)+
        }

        /// A table's state; its shape depends on the table's game.
        #[derive(Serialize, ToSchema)]
        #[serde(untagged)]
        pub enum AnyView {
            $($game(games::$module::View),)+
        }

        /// A score sheet; its shape depends on the table's game.
        #[derive(Serialize, ToSchema)]
        #[serde(untagged)]
        pub enum AnyScoreSheet {
            $($game(games::$module::ScoreSheet),)+
        }
    };
}

games::all_games!(any_schemas {});
