//! The game catalogue: every game with its seat range and a description of each table option
//! that is enough to build the organiser's form (label, one sentence, kind of control, default).

use actix_web::{get, HttpResponse};
use serde::Serialize;
use serde_json::{json, Value};
use utoipa::ToSchema;

use tablekeeper_rules::with_game;
use tablekeeper_rules::{Choice, Game, GameId, OptionDoc, OptionKind, RuleChoice};

/// One value an option may take, with its label in plain words.
#[derive(Serialize, ToSchema)]
pub struct ChoiceInfo {
    #[schema(example = "dealer_alone")]
    pub value: &'static str,
    #[schema(example = "The dealer alone")]
    pub label: &'static str,
}

/// What sort of control an option needs.
#[derive(Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum OptionKindInfo {
    /// One of `choices` (send its `value`).
    Choice { choices: Vec<ChoiceInfo> },
    /// `true` or `false`.
    Toggle,
    /// A whole number from `min` to `max`. A default of `null` means the game works it out
    /// when the option is left out.
    Number { min: i64, max: i64 },
    /// A list of whole numbers, each from `min` to `max`, at most `max_items` of them.
    Numbers { min: i64, max: i64, max_items: usize },
    /// A seat, 0-based: show it as the name of the player sitting there.
    Seat,
    /// An ordered list of `entries` values, each at most once, at least one.
    SuitOrder { entries: Vec<ChoiceInfo> },
    /// An object `{"rule": value}` naming one of `rules`, plus that rule's own field, if any.
    Rule { rules: Vec<RuleInfo> },
}

/// One rule of a `rule` option.
#[derive(Serialize, ToSchema)]
pub struct RuleInfo {
    #[schema(example = "deals")]
    pub value: &'static str,
    #[schema(example = "After a number of deals")]
    pub label: &'static str,
    /// The field this rule carries beside `rule`, if any.
    pub field: Option<RuleFieldInfo>,
}

/// The field a rule carries: its name, label, kind and the value the game uses when it is
/// left out.
#[derive(Serialize, ToSchema)]
pub struct RuleFieldInfo {
    #[schema(example = "deals")]
    pub name: &'static str,
    #[schema(example = "Deals")]
    pub label: &'static str,
    #[schema(no_recursion)]
    pub kind: Box<OptionKindInfo>,
    pub default: Value,
}

/// One table option, described so that a form can offer it as a control.
#[derive(Serialize, ToSchema)]
pub struct OptionInfo {
    /// The field's name in the table's `options`.
    #[schema(example = "dressing")]
    pub name: &'static str,
    #[schema(example = "Who dresses the board")]
    pub label: &'static str,
    /// One sentence in the club's words.
    pub description: &'static str,
    pub kind: OptionKindInfo,
    /// The value used when the option is left out (null: worked out from the players and the
    /// other options).
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

fn choices(list: &[Choice]) -> Vec<ChoiceInfo> {
    list.iter()
        .map(|c| ChoiceInfo {
            value: c.value,
            label: c.label,
        })
        .collect()
}

/// The default of a rule's own field, read from the game's options type: the options with only
/// `{"rule": value}` given, serialised back, so the catalogue cannot disagree with serde's
/// defaults.
fn rule_field_default<G: Game>(option: &str, rule: &str, field: &str) -> Value {
    serde_json::from_value::<G::Options>(json!({ option: { "rule": rule } }))
        .ok()
        .and_then(|options| serde_json::to_value(options).ok())
        .and_then(|options| options.get(option)?.get(field).cloned())
        .unwrap_or(Value::Null)
}

fn kind<G: Game>(option: &str, kind: &OptionKind) -> OptionKindInfo {
    match *kind {
        OptionKind::Choice(list) => OptionKindInfo::Choice { choices: choices(list) },
        OptionKind::Toggle => OptionKindInfo::Toggle,
        OptionKind::Number { min, max } => OptionKindInfo::Number { min, max },
        OptionKind::Numbers { min, max, max_items } => OptionKindInfo::Numbers { min, max, max_items },
        OptionKind::Seat => OptionKindInfo::Seat,
        OptionKind::SuitOrder(list) => OptionKindInfo::SuitOrder { entries: choices(list) },
        OptionKind::Rule(rules) => OptionKindInfo::Rule {
            rules: rules.iter().map(|rule| rule_info::<G>(option, rule)).collect(),
        },
    }
}

fn rule_info<G: Game>(option: &str, rule: &RuleChoice) -> RuleInfo {
    RuleInfo {
        value: rule.value,
        label: rule.label,
        field: rule.field.map(|(name, label, field_kind)| RuleFieldInfo {
            name,
            label,
            kind: Box::new(kind::<G>(option, field_kind)),
            default: rule_field_default::<G>(option, rule.value, name),
        }),
    }
}

fn option_info<G: Game>(doc: &OptionDoc, defaults: &Value) -> OptionInfo {
    OptionInfo {
        name: doc.name,
        label: doc.label,
        description: doc.description,
        kind: kind::<G>(doc.name, &doc.kind),
        default: defaults.get(doc.name).cloned().unwrap_or(Value::Null),
    }
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
            .map(|doc| option_info::<G>(doc, &defaults))
            .collect(),
    }
}

/// The catalogue: every game with its seat range and each table option's label, description,
/// kind of control and default.
#[utoipa::path(tag = "games", security(()), responses((status = 200, body = Vec<GameInfo>, example = json!(catalogue_example()))))]
#[get("/games")]
pub async fn list_games() -> HttpResponse {
    HttpResponse::Ok().json(catalogue())
}

fn catalogue() -> Vec<GameInfo> {
    GameId::ALL.iter().map(|&id| with_game!(id, G => info::<G>())).collect()
}

/// The spec's example of the catalogue: its first game, as `list_games` answers it.
fn catalogue_example() -> Vec<GameInfo> {
    catalogue().into_iter().take(1).collect()
}
