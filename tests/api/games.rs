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
