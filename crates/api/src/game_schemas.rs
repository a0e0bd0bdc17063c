//! The spec's per-game schemas: a move, an event, options, a view and a score sheet whose shape
//! depends on the table's game, one variant per game of the list of games (never listed here).
//!
//! Kept apart from `openapi` so that the resource modules that name these schemas and the
//! document that lists those modules do not depend on each other.

use serde::Serialize;
use serde_json::{json, Map, Value};
use utoipa::openapi::schema::{OneOfBuilder, Schema};
use utoipa::openapi::{Ref, RefOr};
use utoipa::ToSchema;

use tablekeeper_rules::games;

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

// The spec holds this once per game, its `moves` that game's: see `correction_moves_per_game`.
/// A correction entry's `move` (`PUT /tables/{id}/deals/{n}`): the deal it corrects, the deal's
/// moves as recorded instead, and why.
#[derive(Serialize, ToSchema)]
pub struct CorrectionMove {
    /// The deal corrected, from 1, as numbered on the score sheet.
    #[schema(minimum = 1, example = 3)]
    pub deal: u16,
    /// The deal's moves as corrected, in order; they follow in the log as entries `part_of` the
    /// correction.
    pub moves: Vec<AnyMove>,
    #[schema(example = "that was Bob's 7, not Ann's")]
    pub reason: String,
}

/// The schema of a log entry's `move`: a move of the table's game, or (for a correction entry,
/// and a void that undid one) a correction of it.
pub fn logged_move() -> impl Into<RefOr<Schema>> {
    OneOfBuilder::new()
        .item(Ref::from_schema_name("AnyMove"))
        .item(Ref::from_schema_name("AnyCorrectionMove"))
        .item(Ref::from_schema_name("RulingEntry"))
        .item(Ref::from_schema_name("RulingAnswerEntry"))
        .description(Some(
            "The move as submitted; for a correction entry its correction (`{\"deal\", \"moves\", \"reason\"}`); \
             for a ruling entry the director's ruling, or a phone's answer to one; for a void, the entry it voids.",
        ))
}

/// Replaces the `CorrectionMove` template with one schema per game, whose `moves` are that
/// game's (`TridgeCorrectionMove`), and their per-game union `AnyCorrectionMove`, in the order of
/// `AnyMove`'s members: the list of games, never written out here.
pub fn correction_moves_per_game(spec: &mut Value) {
    const PREFIX: &str = "#/components/schemas/";
    let Some(schemas) = spec.pointer_mut("/components/schemas").and_then(Value::as_object_mut) else {
        return;
    };
    let Some(template) = schemas.remove("CorrectionMove") else {
        return;
    };
    let moves: Vec<String> = schemas
        .get("AnyMove")
        .and_then(|any| any.get("oneOf"))
        .and_then(Value::as_array)
        .map(|members| {
            members
                .iter()
                .filter_map(|m| m.get("$ref")?.as_str()?.strip_prefix(PREFIX).map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let mut members = Vec::with_capacity(moves.len());
    for game_move in moves {
        let name = format!("{}CorrectionMove", game_move.strip_suffix("Move").unwrap_or(&game_move));
        let mut schema = template.clone();
        if let Some(items) = schema.pointer_mut("/properties/moves/items") {
            *items = json!({ "$ref": format!("{PREFIX}{game_move}") });
        }
        schema["title"] = Value::String(name.clone());
        schemas.insert(name.clone(), schema);
        members.push(json!({ "$ref": format!("{PREFIX}{name}") }));
    }
    let mut union = Map::new();
    union.insert(
        "description".into(),
        Value::String("A correction entry's `move`; its moves are of the table's game.".into()),
    );
    union.insert("oneOf".into(), Value::Array(members));
    schemas.insert("AnyCorrectionMove".into(), Value::Object(union));
}
