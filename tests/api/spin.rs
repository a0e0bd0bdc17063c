//! Spin through HTTP: a multi-deal session with kings, Spin, shows, a caught Spin holder, the
//! winner's exemption and pools carried over; bad input that changes nothing.

use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{accept, assert_replay_matches_ledger, balance, spawn_app, TestApp};

async fn four_player_table(app: &TestApp) -> (String, String) {
    let token = app.organiser("ann@club.example").await;
    let table = app
        .game_table(&token, "spin", &["Ann", "Bob", "Cat", "Dan"], json!({}))
        .await;
    (token, table)
}

fn play(seat: u8, card: &str) -> Value {
    json!({"kind": "play", "seat": seat, "card": card})
}

async fn assert_refused(app: &TestApp, table: &str, token: &str, mv: Value, code: &str) {
    let before = app.snapshot(table).await;
    let ledger = app.ledger(table).await;
    app.submit(table, token, mv).await.assert_problem(422, code);
    assert_eq!(app.snapshot(table).await, before, "a refused move changed the table");
    assert_eq!(app.ledger(table).await, ledger, "a refused move changed the ledger");
}

#[sqlx::test(migrations = "./migrations")]
async fn a_four_deal_session_books_kings_spin_shows_and_a_caught_spin(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = four_player_table(&app).await;
    let ledger = app.ledger(&table).await;
    assert_eq!(balance(&ledger, "bank"), -400);
    assert_eq!(balance(&ledger, "pool:game"), 3);
    assert_eq!(balance(&ledger, "pool:matrimony"), 2);
    assert_eq!(balance(&ledger, "pool:intrigue"), 1);

    // Deal 1 card by card: a king, "seven and Spin", a show of Matrimony.
    accept(&app, &table, &token, play(1, "QS")).await;
    accept(&app, &table, &token, play(2, "KS")).await;
    assert_eq!(balance(&app.ledger(&table).await, "seat:2"), 99 + 3);
    accept(&app, &table, &token, play(2, "5C")).await;
    accept(&app, &table, &token, play(3, "6C")).await;
    let answer = accept(
        &app,
        &table,
        &token,
        json!({"kind": "play", "seat": 0, "card": "7C", "spin": true}),
    )
    .await;
    assert_eq!(answer["table"]["state"]["to_act"], 0);
    let ledger = app.ledger(&table).await;
    assert_eq!(balance(&ledger, "seat:0"), 97 - 1 + 9);
    accept(
        &app,
        &table,
        &token,
        json!({"kind": "show", "seat": 0, "combination": "matrimony"}),
    )
    .await;
    let ledger = app.ledger(&table).await;
    assert_eq!(balance(&ledger, "pool:matrimony"), 0);
    assert_eq!(balance(&ledger, "seat:0"), 97 - 1 + 9 + 2);

    // Undo the show: its booking is reversed; show again.
    app.post(&format!("/api/v1/tables/{table}/undo"), &token, json!({}))
        .await
        .assert_status(200);
    assert_eq!(balance(&app.ledger(&table).await, "pool:matrimony"), 2);
    accept(
        &app,
        &table,
        &token,
        json!({"kind": "show", "seat": 0, "combination": "matrimony"}),
    )
    .await;

    // Seat 0 then clears its hand: it has played 7C and Spin, ten more cards to go.
    for card in ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS"] {
        accept(&app, &table, &token, play(0, card)).await;
    }
    let state = app.state(&table).await;
    assert_eq!(state["state"]["deal"], 2);
    let ledger = app.ledger(&table).await;
    // Intrigue was not shown: it carries over under the new dealer's stake.
    assert_eq!(balance(&ledger, "pool:intrigue"), 2);
    assert_eq!(ledger["total"], 0);

    // Deal 2 (seat 1 deals; seat 0, the winner, pays no Game stake): a result with Spin caught.
    assert_eq!(balance(&ledger, "pool:game"), 2);
    accept(
        &app,
        &table,
        &token,
        json!({"kind": "result", "out": 2, "cards_left": [3, 1, 0, 4], "specials": [["KH"], [], [], []], "spin_holder": 3}),
    )
    .await;
    let scores = app.scores(&table).await;
    // Seat 3: Game stake 1, the king 1, then caught with Spin: 2 × 4.
    assert_eq!(scores["sheet"]["deals"][1]["net"][3], -1 - 1 - 8);
    assert_eq!(scores["sheet"]["deals"][1]["spin_holder"], 3);

    // Deals 3 and 4 as results; Intrigue is finally shown in deal 4.
    for (deal, out) in [(3, 0), (4, 1)] {
        let intrigue = if deal == 4 { json!(3) } else { Value::Null };
        accept(
            &app,
            &table,
            &token,
            json!({"kind": "result", "out": out, "cards_left": (0..4).map(|s| u8::from(s != out)).collect::<Vec<_>>(),
                   "specials": [[], [], [], []], "spin_holder": (out + 1) % 4, "intrigue": intrigue}),
        )
        .await;
    }
    let ledger = app.ledger(&table).await;
    assert_eq!(balance(&ledger, "pool:intrigue"), 0);
    assert_eq!(app.state(&table).await["finished"], true);
    let on_table: i64 = ledger["balances"]
        .as_array()
        .expect("balances")
        .iter()
        .filter(|b| b["account"] != "bank")
        .map(|b| b["balance"].as_i64().expect("number"))
        .sum();
    assert_eq!(on_table, 400);
    assert_replay_matches_ledger::<tablekeeper::rules::Spin>(&app, &table, 4).await;
}

#[sqlx::test(migrations = "./migrations")]
async fn bad_cards_shows_and_results_are_refused_and_change_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = four_player_table(&app).await;
    assert_refused(&app, &table, &token, play(1, "2H"), "card_not_in_pack").await;
    assert_refused(&app, &table, &token, play(1, "8D"), "card_not_in_pack").await;
    assert_refused(&app, &table, &token, play(5, "2S"), "no_such_seat").await;
    assert_refused(&app, &table, &token, play(2, "2S"), "not_your_turn").await;
    let too_many = json!({"kind": "result", "out": 1, "cards_left": [12, 0, 2, 2], "specials": [["KS"], [], [], []], "spin_holder": 2});
    assert_refused(&app, &table, &token, too_many, "more_cards_than_dealt").await;
    accept(&app, &table, &token, play(1, "2S")).await;
    assert_refused(&app, &table, &token, play(2, "4S"), "not_in_sequence").await;
    assert_refused(&app, &table, &token, play(2, "2S"), "card_already_played").await;
    // Only the player of a stop shows.
    assert_refused(
        &app,
        &table,
        &token,
        json!({"kind": "show", "seat": 1, "combination": "intrigue"}),
        "move_not_expected",
    )
    .await;
    // Every card is dealt: a run cannot be declared stopped.
    assert_refused(&app, &table, &token, json!({"kind": "stop"}), "unknown_variant").await;
}
