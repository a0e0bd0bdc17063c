//! `GET /tables/{id}/trick-plan`: how the deal in hand's tricks are won, as data a phone follows
//! without the service (the phone page's `tricks.js`; the plan's agreement with each game over
//! simulated deals is the rules crate's `trick_plans` test).

use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{accept, spawn_app, TestApp};

async fn plan(app: &TestApp, table: &str) -> Value {
    app.get(&format!("/api/v1/tables/{table}/trick-plan"))
        .await
        .assert_status(200)
        .clone()
}

#[sqlx::test(migrations = "./migrations")]
async fn a_whist_deal_s_plan_names_its_seats_tricks_trumps_and_every_card_and_follows_the_deals(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    // Spades then hearts trump (the rotation); deal 1 of three cards, deal 2 of one.
    let table = app
        .table(&token, &["Ann", "Bob", "Cat", "Dan"], json!({"hand_sizes": [3, 1]}))
        .await;
    let read = plan(&app, &table).await;
    assert_eq!(read["version"], 0);
    let p = &read["plan"];
    assert_eq!(p["deal"], 1);
    assert_eq!(p["seats"], json!([0, 1, 2, 3]));
    assert_eq!(p["tricks"], 3);
    assert_eq!(p["pause_after"], json!([]));
    assert_eq!(p["cards"].as_array().expect("cards").len(), 52);
    let card = |c: &str| {
        p["cards"]
            .as_array()
            .expect("cards")
            .iter()
            .find(|x| x["card"] == c)
            .cloned()
            .expect(c)
    };
    assert_eq!(card("AS"), json!({"card": "AS", "follows": "spades", "strength": 14}));
    assert_eq!(card("2H"), json!({"card": "2H", "follows": "hearts", "strength": 2}));
    let trumps: Vec<&Value> = p["trumps"]
        .as_array()
        .expect("trumps")
        .iter()
        .map(|t| &t["trumps"])
        .collect();
    assert_eq!(trumps, [&json!("spades"); 4], "spades trump every suit led");

    // Deal 1 as a result: the plan is deal 2's, hearts trumps, one trick.
    accept(
        &app,
        &table,
        &token,
        json!({"kind": "result", "nominations": [0, 0, 0, 0], "tricks": [1, 1, 1, 0]}),
    )
    .await;
    let p = plan(&app, &table).await;
    assert_eq!(p["version"], 1);
    assert_eq!(p["plan"]["deal"], 2);
    assert_eq!(p["plan"]["tricks"], 1);
    assert_eq!(p["plan"]["trumps"][0]["trumps"], "hearts");

    // Once the game is over there is no deal in hand.
    accept(
        &app,
        &table,
        &token,
        json!({"kind": "result", "nominations": [0, 0, 0, 0], "tricks": [1, 0, 0, 0]}),
    )
    .await;
    assert_eq!(plan(&app, &table).await["plan"], Value::Null);
}

#[sqlx::test(migrations = "./migrations")]
async fn games_whose_tricks_the_plan_cannot_tell_or_without_tricks_have_none(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let players = ["Ann", "Bob", "Cat", "Dan"];
    // Tricky Dick's tricks are won by the colours laid; Pope Joan has no tricks; Tridge's are
    // not played until its auction and exchanges are done.
    for (game, seated) in [
        ("tricky-dick", &players[..]),
        ("pope-joan", &players[..]),
        ("tridge", &players[..3]),
    ] {
        let table = app.game_table(&token, game, seated, json!({})).await;
        assert_eq!(plan(&app, &table).await["plan"], Value::Null, "{game}");
    }
    // Dividend's cards may be entered one by one from the deal's start: the suit led names its trumps.
    let table = app.game_table(&token, "dividend", &players, json!({})).await;
    let p = plan(&app, &table).await;
    let trumps: Vec<(&str, &str)> = p["plan"]["trumps"]
        .as_array()
        .expect("trumps")
        .iter()
        .map(|t| (t["led"].as_str().expect("led"), t["trumps"].as_str().expect("trumps")))
        .collect();
    assert_eq!(
        trumps,
        [
            ("clubs", "hearts"),
            ("diamonds", "clubs"),
            ("hearts", "spades"),
            ("spades", "diamonds")
        ]
    );
    assert_eq!(p["plan"]["tricks"], 13);
}

#[sqlx::test(migrations = "./migrations")]
async fn no_such_table_is_not_found(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    app.get_as("/api/v1/tables/00000000-0000-4000-8000-000000000000/trick-plan", &token)
        .await
        .assert_problem(404, "table_not_found");
}
