//! The game catalogue.

use actix_web::{get, HttpResponse};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::rules::games::with_game;
use crate::rules::{Game, GameId};

/// One table option with its default.
#[derive(Serialize, ToSchema)]
pub struct OptionInfo {
    pub name: &'static str,
    pub description: &'static str,
    /// The value used when the option is left out (null: worked out from the player count).
    pub default: Value,
}

/// A game the service can run.
#[derive(Serialize, ToSchema)]
pub struct GameInfo {
    pub id: GameId,
    #[schema(example = "Nomination Whist")]
    pub name: &'static str,
    #[schema(example = 3)]
    pub min_players: usize,
    #[schema(example = 7)]
    pub max_players: usize,
    pub options: Vec<OptionInfo>,
}

fn info<G: Game>() -> GameInfo {
    let defaults = serde_json::to_value(G::Options::default()).unwrap_or(Value::Null);
    GameInfo {
        id: G::ID,
        name: G::NAME,
        min_players: *G::SEATS.start(),
        max_players: *G::SEATS.end(),
        options: G::option_docs()
            .iter()
            .map(|doc| OptionInfo {
                name: doc.name,
                description: doc.description,
                default: defaults.get(doc.name).cloned().unwrap_or(Value::Null),
            })
            .collect(),
    }
}

/// The catalogue: every game with its seat range and options.
#[utoipa::path(tag = "games", responses((status = 200, body = Vec<GameInfo>)))]
#[get("/games")]
pub async fn list_games() -> HttpResponse {
    let catalogue: Vec<GameInfo> = GameId::ALL.iter().map(|&id| with_game!(id, G => info::<G>())).collect();
    HttpResponse::Ok().json(catalogue)
}
