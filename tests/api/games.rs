use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::spawn_app;

#[sqlx::test(migrations = "./migrations")]
async fn the_catalogue_lists_nomination_whist_with_its_options_and_defaults(pool: PgPool) {
    let app = spawn_app(pool).await;
    let games = app.get("/api/v1/games").await.assert_status(200).clone();
    let whist = games
        .as_array()
        .expect("array")
        .iter()
        .find(|g| g["id"] == "nomination-whist")
        .expect("listed");
    assert_eq!(whist["min_players"], 3);
    assert_eq!(whist["max_players"], 7);
    let option = |name: &str| {
        whist["options"]
            .as_array()
            .expect("options")
            .iter()
            .find(|o| o["name"] == name)
            .cloned()
    };
    assert_eq!(option("hook_from_hand_size").expect("hook")["default"], 4);
    assert_eq!(option("trumps").expect("trumps")["default"]["rule"], "rotation");
    assert_eq!(
        option("scoring").expect("scoring")["default"],
        "tricks_plus_ten_for_exact"
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn the_catalogue_lists_the_three_stops_games_with_their_defaults(pool: PgPool) {
    let app = spawn_app(pool).await;
    let games = app.get("/api/v1/games").await.assert_status(200).clone();
    let game = |id: &str| {
        games
            .as_array()
            .expect("array")
            .iter()
            .find(|g| g["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("{id} listed"))
    };
    let default = |g: &serde_json::Value, name: &str| {
        g["options"]
            .as_array()
            .expect("options")
            .iter()
            .find(|o| o["name"] == name)
            .map(|o| o["default"].clone())
            .unwrap_or_else(|| panic!("option {name}"))
    };
    for id in ["pope-joan", "spin", "newmarket"] {
        let g = game(id);
        assert_eq!(
            (g["min_players"].as_u64(), g["max_players"].as_u64()),
            (Some(3), Some(8)),
            "{id}"
        );
        assert_eq!(default(&g, "opening_chips"), 100, "{id}");
    }
    let pope_joan = game("pope-joan");
    assert_eq!(default(&pope_joan, "dressing"), "all_players");
    assert_eq!(default(&pope_joan, "losers_pay_board"), false);
    assert_eq!(default(&game("spin"), "spin_stake"), 3);
    assert_eq!(default(&game("newmarket"), "dealer_extra"), 1);
}

/// Every game of the engine's one list is in the catalogue, in the list's order, and a table of
/// it opens with its defaults at each end of its seat range and audits consistent.
#[sqlx::test(migrations = "./migrations")]
async fn every_game_of_the_list_is_in_the_catalogue_and_opens_with_its_defaults(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("list@example.com").await;
    let games = app.get("/api/v1/games").await.assert_status(200).clone();
    let listed: Vec<&str> = games
        .as_array()
        .expect("array")
        .iter()
        .map(|g| g["id"].as_str().expect("id"))
        .collect();
    let engine: Vec<&str> = tablekeeper::rules::GameId::ALL.iter().map(|g| g.as_str()).collect();
    assert_eq!(listed, engine);
    let names = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"];
    for game in games.as_array().expect("array") {
        let id = game["id"].as_str().expect("id");
        for players in [&game["min_players"], &game["max_players"]] {
            let players = usize::try_from(players.as_u64().expect("count")).expect("small");
            let table = app
                .game_table(&token, id, &names[..players], serde_json::json!({}))
                .await;
            let view = app
                .get(&format!("/api/v1/tables/{table}"))
                .await
                .assert_status(200)
                .clone();
            assert_eq!(view["game"], id);
            assert_eq!(view["players"].as_array().map(Vec::len), Some(players));
            crate::helpers::assert_audit_consistent(&app, &table).await;
        }
    }
}

/// A value the catalogue allows for an option that is not its default: what an organiser could
/// pick in the form; every other rule of a `rule` option and every other choice of a `choice`.
fn other_value(option: &Value, players: usize) -> Vec<Value> {
    let kind = &option["kind"];
    let default = &option["default"];
    let int = |v: &Value| v.as_i64().expect("bound");
    let number = |kind: &Value, default: &Value| match default.as_i64() {
        Some(d) if d < int(&kind["max"]) => json!(d + 1),
        Some(_) => kind["min"].clone(),
        None => kind["max"].clone(),
    };
    let reversed = |kind: &Value| {
        let mut entries: Vec<Value> = kind["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .map(|e| e["value"].clone())
            .collect();
        entries.reverse();
        Value::Array(entries)
    };
    match kind["type"].as_str().expect("kind type") {
        "choice" => kind["choices"]
            .as_array()
            .expect("choices")
            .iter()
            .map(|c| c["value"].clone())
            .filter(|v| v != default)
            .collect(),
        "toggle" => vec![json!(!default.as_bool().expect("a toggle's default is a bool"))],
        "number" => vec![number(kind, default)],
        "numbers" => vec![json!([kind["min"], kind["max"], kind["min"]])],
        "seat" => vec![json!((default.as_u64().expect("seat") as usize + 1) % players)],
        "suit_order" => vec![reversed(kind)],
        "rule" => kind["rules"]
            .as_array()
            .expect("rules")
            .iter()
            .filter(|r| r["value"] != default["rule"])
            .map(|r| {
                let mut value = json!({"rule": r["value"]});
                if let Some(field) = r["field"].as_object() {
                    let name = field["name"].as_str().expect("field name");
                    value[name] = match field["kind"]["type"].as_str() {
                        Some("number") => number(&field["kind"], &field["default"]),
                        Some("suit_order") => reversed(&field["kind"]),
                        other => panic!("a rule's field of kind {other:?}"),
                    };
                }
                value
            })
            .collect(),
        other => panic!("unknown kind {other}"),
    }
}

/// Issue #23: the catalogue describes every option of every game, its defaults are the game's
/// `Options::default()`, and every value it offers is one the server accepts, so a form built
/// from it alone opens the table the organiser chose.
#[sqlx::test(migrations = "./migrations")]
async fn every_option_in_the_catalogue_round_trips_through_a_new_table(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("catalogue@example.com").await;
    let games = app.get("/api/v1/games").await.assert_status(200).clone();
    let names = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"];
    let mut tried = 0;
    for game in games.as_array().expect("array") {
        let id = game["id"].as_str().expect("id");
        let options = game["options"].as_array().expect("options");
        let defaults: serde_json::Map<String, Value> = options
            .iter()
            .map(|o| (o["name"].as_str().expect("name").to_owned(), o["default"].clone()))
            .collect();
        let engine = tablekeeper::rules::GameId::parse(id)
            .expect("known id")
            .default_options();
        assert_eq!(
            Value::Object(defaults),
            engine,
            "{id}: the catalogue's defaults are Options::default()"
        );
        let players = usize::try_from(game["min_players"].as_u64().expect("min")).expect("small");
        for option in options {
            let name = option["name"].as_str().expect("name");
            for label in [&option["label"], &option["description"]] {
                assert!(label.as_str().is_some_and(|l| !l.is_empty()), "{id} {name}: words");
            }
            let values = other_value(option, players);
            assert!(!values.is_empty(), "{id} {name}: the catalogue offers another value");
            for value in values {
                let body = json!({"game": id, "players": &names[..players], "options": {name: value}});
                let table = app.post("/api/v1/tables", &token, body).await;
                let table = table.assert_status(201);
                assert_eq!(table["options"][name], value, "{id} {name}: in force as chosen");
                tried += 1;
            }
            // A number just outside the catalogue's bounds is refused, so the bounds are honest.
            if option["kind"]["type"] == "number" {
                for outside in [
                    option["kind"]["min"].as_i64().expect("min") - 1,
                    option["kind"]["max"].as_i64().expect("max") + 1,
                ] {
                    let body = json!({"game": id, "players": &names[..players], "options": {name: outside}});
                    let answer = app.post("/api/v1/tables", &token, body).await;
                    assert_eq!(answer.status.as_u16(), 422, "{id} {name} = {outside}: {}", answer.body);
                    assert!(
                        ["invalid_option", "invalid_options"].contains(&answer.body["code"].as_str().unwrap_or("")),
                        "{id} {name} = {outside}: {}",
                        answer.body
                    );
                }
            }
        }
    }
    assert!(tried > 40, "{tried} values tried");
}
