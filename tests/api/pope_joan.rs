//! Pope Joan through HTTP: a multi-deal session whose board carries over, bad input that
//! changes nothing, undo reversing bookings.

use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{accept, assert_replay_matches_ledger, balance, spawn_app, TestApp};

/// An organiser and a five-player Pope Joan table.
async fn five_player_table(app: &TestApp, options: Value) -> (String, String) {
    let token = app.organiser("ann@club.example").await;
    let table = app
        .game_table(&token, "pope-joan", &["Ann", "Bob", "Cat", "Dan", "Eve"], options)
        .await;
    (token, table)
}

fn play(seat: u8, card: &str) -> Value {
    json!({"kind": "play", "seat": seat, "card": card})
}

/// The rule text's example hand, turn-up first, to seat 1 playing its last card.
fn example_moves() -> Vec<Value> {
    let stop = json!({"kind": "stop"});
    let mut moves = vec![json!({"kind": "turn_up", "card": "7H"})];
    for (seat, card) in [
        (1, "JS"),
        (3, "QS"),
        (1, "KS"),
        (1, "5D"),
        (2, "6D"),
        (1, "7D"),
        (1, "AC"),
        (2, "2C"),
        (3, "3C"),
    ] {
        moves.push(play(seat, card));
    }
    moves.push(stop.clone());
    for (seat, card) in [
        (3, "QH"),
        (3, "KH"),
        (3, "7S"),
        (4, "8S"),
        (2, "9S"),
        (3, "10S"),
        (3, "5C"),
        (4, "6C"),
        (2, "7C"),
        (4, "8C"),
        (2, "9C"),
        (4, "10C"),
        (2, "JC"),
        (1, "QC"),
    ] {
        moves.push(play(seat, card));
    }
    moves.push(stop);
    moves.push(play(1, "JH"));
    moves.push(play(1, "4H"));
    moves
}

/// Submits `mv`, asserts the problem and that state, log, scores and ledger are unchanged.
async fn assert_refused(app: &TestApp, table: &str, token: &str, mv: Value, status: u16, code: &str) {
    let before = app.snapshot(table).await;
    let ledger = app.ledger(table).await;
    app.submit(table, token, mv).await.assert_problem(status, code);
    assert_eq!(app.snapshot(table).await, before, "a refused move changed the table");
    assert_eq!(app.ledger(table).await, ledger, "a refused move changed the ledger");
}

#[sqlx::test(migrations = "./migrations")]
async fn a_five_deal_session_books_every_stake_and_carries_unwon_divisions(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = five_player_table(&app, json!({})).await;

    // The opening: 100 chips each from the bank, and deal 1's dressing (the dealer double).
    let ledger = app.ledger(&table).await;
    assert_eq!(balance(&ledger, "bank"), -500);
    assert_eq!(balance(&ledger, "seat:0"), 94);
    assert_eq!(balance(&ledger, "pool:pope"), 6);
    assert_eq!(balance(&ledger, "pool:game"), 4);
    assert_eq!(ledger["total"], 0);

    // Deal 1, card by card: the example hand.
    for mv in example_moves() {
        accept(&app, &table, &token, mv).await;
    }
    let state = app.state(&table).await;
    assert_eq!(state["state"]["phase"], "pope_holder");
    // Who may hold the Pope: seats, and the spare hand as a flag of its own (no null seat).
    assert_eq!(
        state["state"]["legal_moves"],
        json!([{"kind": "pope_holder", "seats": [0, 2, 3, 4], "spare_hand": true}])
    );
    let answer = accept(&app, &table, &token, json!({"kind": "pope_holder", "seat": 2})).await;
    assert_eq!(answer["table"]["state"]["deal"], 2);
    assert_eq!(answer["table"]["state"]["phase"], "turn_up");

    let ledger = app.ledger(&table).await;
    // Pope, Intrigue and Ace were not won: they carry over under deal 2's dressing.
    assert_eq!(balance(&ledger, "pool:pope"), 12);
    assert_eq!(balance(&ledger, "pool:intrigue"), 4);
    assert_eq!(balance(&ledger, "pool:ace"), 2);
    assert_eq!(balance(&ledger, "pool:matrimony"), 2);
    assert_eq!(balance(&ledger, "seat:1"), 109);
    assert_eq!(ledger["total"], 0);
    let deal1 = app
        .get(&format!("/api/v1/tables/{table}/ledger?deal=1"))
        .await
        .assert_status(200)
        .clone();
    let memos: Vec<&str> = deal1["bookings"]
        .as_array()
        .expect("bookings")
        .iter()
        .filter_map(|b| b["memo"].as_str())
        .collect();
    assert!(memos.iter().any(|m| m.contains("Matrimony won by seat 3")), "{memos:?}");
    assert!(memos.iter().any(|m| m.contains("seat 1 went out")), "{memos:?}");

    // Deal 2 as a result: seat 4 plays the Pope with the others holding 5, 4, 6 and 7.
    accept(&app, &table, &token, json!({"kind": "turn_up", "card": "2S"})).await;
    accept(
        &app,
        &table,
        &token,
        json!({
            "kind": "result",
            "out": 0,
            "cards_left": [0, 3, 2, 5, 1],
            "specials": [[], [], [], [], ["9D"]],
            "pope_cards_left": [5, 4, 6, 7, 3]
        }),
    )
    .await;
    let ledger = app.ledger(&table).await;
    assert_eq!(balance(&ledger, "pool:pope"), 6, "won, then redressed");
    assert_eq!(ledger["total"], 0);

    // Deals 3 to 5 as results; the session ends.
    for (deal, out) in [(3, 1), (4, 2), (5, 3)] {
        accept(&app, &table, &token, json!({"kind": "turn_up", "card": "3C"})).await;
        let answer = accept(
            &app,
            &table,
            &token,
            json!({
                "kind": "result",
                "out": out,
                "cards_left": (0..5).map(|s| if s == out { 0 } else { 1 }).collect::<Vec<_>>(),
                "specials": [[], [], [], [], []]
            }),
        )
        .await;
        if deal < 5 {
            assert_eq!(answer["table"]["state"]["deal"], deal + 1);
        }
    }
    let state = app.state(&table).await;
    assert_eq!(state["finished"], true);
    let scores = app.scores(&table).await;
    assert_eq!(scores["sheet"]["deals"].as_array().expect("deals").len(), 5);
    assert_eq!(scores["sheet"]["deals"][0]["recording"], "card_by_card");
    assert_eq!(scores["sheet"]["deals"][1]["recording"], "result_only");
    // Seats and board always hold what the bank issued.
    let ledger = app.ledger(&table).await;
    let on_table: i64 = ledger["balances"]
        .as_array()
        .expect("balances")
        .iter()
        .filter(|b| b["account"] != "bank")
        .map(|b| b["balance"].as_i64().expect("number"))
        .sum();
    assert_eq!(on_table, 500);
    let chips: i64 = scores["sheet"]["chips"]
        .as_array()
        .expect("chips")
        .iter()
        .map(|c| c.as_i64().expect("number"))
        .sum();
    let board: i64 = scores["sheet"]["board"]
        .as_array()
        .expect("board")
        .iter()
        .map(|b| b["chips"].as_i64().expect("number"))
        .sum();
    assert_eq!(chips + board, 500);
    assert_replay_matches_ledger::<tablekeeper::rules::PopeJoan>(&app, &table, 5).await;
}

#[sqlx::test(migrations = "./migrations")]
async fn bad_cards_are_refused_and_change_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = five_player_table(&app, json!({})).await;
    accept(&app, &table, &token, json!({"kind": "turn_up", "card": "7H"})).await;
    accept(&app, &table, &token, play(1, "5C")).await;

    // Neither continuing the run nor a legal lead.
    assert_refused(&app, &table, &token, play(2, "7C"), 422, "not_in_sequence").await;
    // Already played, out of the pack, turned up.
    assert_refused(&app, &table, &token, play(2, "5C"), 422, "card_already_played").await;
    assert_refused(&app, &table, &token, play(2, "8D"), 422, "card_not_in_pack").await;
    assert_refused(&app, &table, &token, play(2, "7H"), 422, "card_turned_up").await;
    // A seat beyond the table.
    assert_refused(&app, &table, &token, play(5, "6C"), 422, "no_such_seat").await;

    // After a stop only its player leads.
    accept(&app, &table, &token, json!({"kind": "stop"})).await;
    assert_refused(&app, &table, &token, play(3, "2S"), 422, "not_your_turn").await;
    // A result once cards are played.
    let result = json!({"kind": "result", "out": 0, "cards_left": [0, 1, 1, 1, 1], "specials": [[], [], [], [], []]});
    assert_refused(&app, &table, &token, result, 422, "move_not_expected").await;
}

#[sqlx::test(migrations = "./migrations")]
async fn an_inconsistent_result_is_refused_and_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = five_player_table(&app, json!({})).await;
    accept(&app, &table, &token, json!({"kind": "turn_up", "card": "7H"})).await;
    // More specials from seat 0 than it played (it still holds all eight).
    let too_many = json!({
        "kind": "result", "out": 1, "cards_left": [8, 0, 2, 2, 2],
        "specials": [["AH"], [], [], [], []]
    });
    assert_refused(&app, &table, &token, too_many, 422, "more_cards_than_dealt").await;
    let two_out = json!({
        "kind": "result", "out": 1, "cards_left": [0, 0, 2, 2, 2],
        "specials": [[], [], [], [], []]
    });
    assert_refused(&app, &table, &token, two_out, 422, "invalid_result").await;
    let short = json!({"kind": "result", "out": 1, "cards_left": [1, 0], "specials": [[], []]});
    assert_refused(&app, &table, &token, short, 422, "wrong_number_of_entries").await;
    let unknown = json!({"kind": "play", "seat": 1, "card": "ZZ"});
    let before = app.snapshot(&table).await;
    assert!(app.submit(&table, &token, unknown).await.status.is_client_error());
    assert_eq!(app.snapshot(&table).await, before);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_missed_play_is_flagged_and_undo_reverses_the_pope_s_bookings(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = five_player_table(&app, json!({})).await;
    accept(&app, &table, &token, json!({"kind": "turn_up", "card": "7H"})).await;
    accept(&app, &table, &token, play(1, "2C")).await;
    accept(&app, &table, &token, play(2, "3C")).await;
    accept(&app, &table, &token, json!({"kind": "stop"})).await;
    let answer = accept(&app, &table, &token, play(2, "4C")).await;
    assert_eq!(
        answer["table"]["state"]["missed_plays"],
        json!([{"seat": 2, "card": "4C", "stopped_after": "3C"}])
    );
    let events = app.log(&table).await;
    let last = events.as_array().expect("log").last().expect("a move").clone();
    assert!(last["events"]
        .as_array()
        .expect("events")
        .iter()
        .any(|e| e["event"] == "missed_play_detected"));

    // The run from 4♣ is declared stopped too; its player leads the Pope.
    accept(&app, &table, &token, json!({"kind": "stop"})).await;
    let before = app.ledger(&table).await;
    accept(&app, &table, &token, play(2, "9D")).await;
    let after = app.ledger(&table).await;
    assert_eq!(balance(&after, "pool:pope"), 0);
    // Seat 2 had played 3 of 8: the others pay 8, 7 (seat 1 played one), 8 and 8.
    assert_eq!(
        balance(&after, "seat:2") - balance(&before, "seat:2"),
        6 + 8 + 7 + 8 + 8
    );

    app.post(&format!("/api/v1/tables/{table}/undo"), &token, json!({}))
        .await
        .assert_status(200);
    let undone = app.ledger(&table).await;
    assert_eq!(undone["balances"], before["balances"]);
    assert!(undone["bookings"]
        .as_array()
        .expect("bookings")
        .iter()
        .any(|b| !b["reverses"].is_null()));
}
