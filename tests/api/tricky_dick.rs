//! Tricky Dick through HTTP: whole hands in each mode, the chip ledger trick by trick, undo,
//! and every bad input the issue names refused with nothing changed, the ledger included.

use serde_json::{json, Value};
use sqlx::PgPool;
use tablekeeper::rules::games::tricky_dick::{sim, Mode, Options, TrickyDick};
use tablekeeper::rules::Game;

use crate::helpers::{accept, assert_audit_consistent, balance, spawn_app, TestApp};

async fn tricky_table(app: &TestApp, options: Value) -> (String, String) {
    let token = app.organiser("ann@club.example").await;
    let table = app
        .game_table(&token, "tricky-dick", &["Ann", "Bob", "Cat", "Dan"], options)
        .await;
    (token, table)
}

/// Everything a client can read about a table, the ledger included.
async fn everything(app: &TestApp, table: &str) -> (Value, Value, Value, Value) {
    let (state, log, scores) = app.snapshot(table).await;
    (state, log, scores, app.ledger(table).await)
}

/// Plays one simulated hand through HTTP and checks the table against the engine: score
/// sheet, state and a ledger whose every booking is one settlement of the engine's.
async fn full_hand(pool: PgPool, mode: Mode, mode_name: &str) -> (TestApp, String, TrickyDick) {
    let app = spawn_app(pool).await;
    let (token, table) = tricky_table(&app, json!({"mode": mode_name, "hands": 1})).await;
    let mut engine = TrickyDick::new(
        4,
        Options {
            mode,
            hands: 1,
            ..Options::default()
        },
    )
    .expect("game");
    let hand = sim::random_hand(&mut engine, 2026 + mode as u64).expect("simulated hand");
    let mut settlements = Vec::new();
    for (mv, events) in hand.moves.iter().zip(&hand.events) {
        let answer = accept(&app, &table, &token, serde_json::to_value(mv).expect("json")).await;
        assert_eq!(answer["move"]["events"], serde_json::to_value(events).expect("json"));
        settlements.extend(TrickyDick::settlements(events));
    }
    assert_eq!(hand.moves.len(), 61, "trick 1 in one move, then 15 × 4 cards");

    let scores = app.scores(&table).await;
    assert_eq!(
        scores["sheet"],
        serde_json::to_value(engine.score_sheet()).expect("json")
    );
    assert_eq!(scores["sheet"]["finished"], true);
    let state = app.state(&table).await;
    assert_eq!(state["finished"], true);
    assert_eq!(state["state"]["phase"], "finished");
    assert_eq!(state["state"], serde_json::to_value(engine.view()).expect("json"));

    let ledger = app.ledger(&table).await;
    assert_eq!(ledger["total"], 0);
    let bookings = ledger["bookings"].as_array().expect("bookings");
    assert_eq!(bookings.len(), settlements.len());
    for (booking, settlement) in bookings.iter().zip(&settlements) {
        assert_eq!(booking["memo"], settlement.memo);
        assert_eq!(booking["deal"], 1);
        assert!(
            booking["memo"]
                .as_str()
                .is_some_and(|m| m.contains("trick value") || m.contains("penalty")),
            "{booking}"
        );
    }
    let totals = engine.score_sheet().totals;
    for (seat, total) in totals.iter().enumerate() {
        assert_eq!(balance(&ledger, &format!("seat:{seat}")), i64::from(*total));
        let chips = &state["state"]["chips"][seat];
        assert_eq!(
            chips["white"].as_i64().expect("white") - chips["coloured"].as_i64().expect("coloured"),
            i64::from(*total)
        );
    }
    assert_eq!(
        balance(&ledger, "bank"),
        -totals.iter().map(|&t| i64::from(t)).sum::<i64>()
    );
    assert_audit_consistent(&app, &table).await;
    (app, table, engine)
}

#[sqlx::test(migrations = "./migrations")]
async fn a_full_individual_hand_matches_the_engine_and_books_every_trick(pool: PgPool) {
    let (app, table, engine) = full_hand(pool, Mode::Individual, "individual").await;
    let state = app.state(&table).await;
    assert_eq!(state["state"]["team_totals"], Value::Null);
    let totals = engine.score_sheet().totals;
    let best = totals.iter().max().copied();
    let winners: Vec<usize> = (0..4).filter(|&s| Some(totals[s]) == best).collect();
    assert_eq!(state["state"]["winners"], json!(winners));
}

#[sqlx::test(migrations = "./migrations")]
async fn a_full_two_on_two_hand_scores_partners_opposite_as_teams(pool: PgPool) {
    let (app, table, engine) = full_hand(pool, Mode::Partnerships, "partnerships").await;
    let totals = engine.score_sheet().totals;
    let teams = [totals[0] + totals[2], totals[1] + totals[3]];
    let scores = app.scores(&table).await;
    assert_eq!(scores["sheet"]["team_totals"], json!(teams));
    assert_eq!(app.state(&table).await["state"]["team_totals"], json!(teams));
}

#[sqlx::test(migrations = "./migrations")]
async fn a_full_cooperative_hand_scores_the_total_over_the_hands_played(pool: PgPool) {
    let (app, table, engine) = full_hand(pool, Mode::Cooperative, "cooperative").await;
    let total: i32 = engine.score_sheet().totals.iter().sum();
    let scores = app.scores(&table).await;
    let cooperative = &scores["sheet"]["cooperative"];
    assert_eq!(cooperative["total"], total);
    assert_eq!(cooperative["hands_played"], 1);
    assert_eq!(cooperative["average"], format!("{total}.00"));
    assert_eq!(scores["sheet"]["winners"], json!([]));
}

#[sqlx::test(migrations = "./migrations")]
async fn the_ledger_books_each_trick_and_undo_reverses_it(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = tricky_table(&app, json!({})).await;
    assert_eq!(app.ledger(&table).await["bookings"], json!([]));

    // 4BC wins trick 1: three circles, one square, +2 to seat 0 and to seat 1 (also blue).
    let answer = accept(
        &app,
        &table,
        &token,
        json!({"kind": "first_trick", "cards": ["4BC", "1bc", "2RS", "3GC"]}),
    )
    .await;
    let state = &answer["table"]["state"];
    assert_eq!(state["totals"], json!([2, 2, 0, 0]));
    assert_eq!(
        state["chips"],
        json!([
            {"white": 2, "coloured": 0}, {"white": 2, "coloured": 0},
            {"white": 0, "coloured": 0}, {"white": 0, "coloured": 0}
        ])
    );
    assert_eq!(state["to_act"], 0);
    let ledger = app.ledger(&table).await;
    assert_eq!(ledger["total"], 0);
    let bookings = ledger["bookings"].as_array().expect("bookings").clone();
    assert_eq!(bookings.len(), 1);
    assert_eq!(bookings[0]["move_seq"], 1);
    assert_eq!(bookings[0]["deal"], 1);
    assert_eq!(
        bookings[0]["memo"],
        "hand 1, trick 1: trick value +2 (3 circles − 1 squares) to seat 0, seat 1"
    );
    assert_eq!(
        bookings[0]["postings"],
        json!([
            {"account": "bank", "amount": -4},
            {"account": "seat:0", "amount": 2},
            {"account": "seat:1", "amount": 2}
        ])
    );
    assert_eq!(balance(&ledger, "seat:0"), 2);
    assert_eq!(balance(&ledger, "bank"), -4);

    // Trick 2: seat 0 (had 4BC) lays 1RS and seat 1 (had 1BC) lays 3YT, sharing nothing. The
    // threes tie; red occurs twice, so 3RT wins with one square: −1 to the red seats 0 and 3.
    for (seat, card) in [(0, "1RS"), (1, "3YT"), (2, "2GH")] {
        accept(
            &app,
            &table,
            &token,
            json!({"kind": "play", "seat": seat, "card": card}),
        )
        .await;
    }
    let answer = accept(&app, &table, &token, json!({"kind": "play", "seat": 3, "card": "3RT"})).await;
    assert_eq!(answer["move"]["events"][1]["winner"], 3);
    assert_eq!(answer["table"]["state"]["totals"], json!([0, 1, 0, -1]));
    assert_eq!(answer["table"]["state"]["chips"][3], json!({"white": 0, "coloured": 1}));
    let ledger = app.ledger(&table).await;
    let bookings = ledger["bookings"].as_array().expect("bookings").clone();
    assert_eq!(bookings.len(), 3);
    assert_eq!(
        (bookings[1]["move_seq"].clone(), bookings[2]["move_seq"].clone()),
        (json!(5), json!(5))
    );
    assert!(bookings[1]["memo"]
        .as_str()
        .expect("memo")
        .contains("trick 2: trick value -1"));
    assert!(bookings[2]["memo"].as_str().expect("memo").contains("trick 2: penalty"));
    assert_eq!(
        bookings[2]["postings"],
        json!([
            {"account": "bank", "amount": 2},
            {"account": "seat:0", "amount": -1},
            {"account": "seat:1", "amount": -1}
        ])
    );
    assert_eq!(ledger["total"], 0);
    assert_eq!(balance(&ledger, "seat:0"), 0);
    assert_eq!(balance(&ledger, "seat:1"), 1);
    assert_eq!(balance(&ledger, "seat:3"), -1);

    // Undo the trick's last card: both of its bookings are reversed, balances restored.
    let undo = app
        .post(&format!("/api/v1/tables/{table}/undo"), &token, json!({}))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(undo["table"]["state"]["totals"], json!([2, 2, 0, 0]));
    let ledger = app.ledger(&table).await;
    let after = ledger["bookings"].as_array().expect("bookings").clone();
    assert_eq!(after.len(), 5);
    for (reversal, original) in after[3..].iter().zip(&bookings[1..]) {
        assert_eq!(reversal["reverses"], original["id"]);
        assert_eq!(reversal["move_seq"], 6, "booked by the void");
        assert_eq!(
            reversal["memo"],
            format!("reversal: {}", original["memo"].as_str().expect("memo"))
        );
    }
    assert_eq!(ledger["total"], 0);
    assert_eq!(balance(&ledger, "seat:0"), 2);
    assert_eq!(balance(&ledger, "seat:1"), 2);
    assert_eq!(balance(&ledger, "seat:3"), 0);
    assert_eq!(balance(&ledger, "bank"), -4);

    // Undo back to the empty table: everything booked is reversed.
    for _ in 0..4 {
        app.post(&format!("/api/v1/tables/{table}/undo"), &token, json!({}))
            .await
            .assert_status(200);
    }
    let ledger = app.ledger(&table).await;
    assert_eq!(ledger["total"], 0);
    for account in ["bank", "seat:0", "seat:1", "seat:2", "seat:3"] {
        assert_eq!(balance(&ledger, account), 0, "{account}");
    }
    let state = app.state(&table).await;
    assert_eq!(state["state"]["phase"], "first_trick");
    assert_eq!(state["state"]["totals"], json!([0, 0, 0, 0]));
    // The reversals leave exactly what a replay of the (now empty) effective log books: nothing.
    let audit = assert_audit_consistent(&app, &table).await;
    assert_eq!(audit["ledger_matches"], true);
}

/// A table after trick 1 (4BC 1BH 2RS 3GT, seat 0 leads) and a complete trick 2
/// (1RS 3YT 2YH 4RT, seat 3 leads trick 3).
async fn table_at_trick_three(app: &TestApp, options: Value) -> (String, String) {
    let (token, table) = tricky_table(app, options).await;
    accept(
        app,
        &table,
        &token,
        json!({"kind": "first_trick", "cards": ["4BC", "1BH", "2RS", "3GT"]}),
    )
    .await;
    for (seat, card) in [(0, "1RS"), (1, "3YT"), (2, "2YH"), (3, "4RT")] {
        accept(app, &table, &token, json!({"kind": "play", "seat": seat, "card": card})).await;
    }
    (token, table)
}

#[sqlx::test(migrations = "./migrations")]
async fn bad_cards_and_tricks_get_a_clear_error_and_change_nothing_not_even_the_ledger(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = table_at_trick_three(&app, json!({})).await;
    let before = everything(&app, &table).await;
    assert!(!before.3["bookings"].as_array().expect("bookings").is_empty());
    assert_eq!(before.0["state"]["to_act"], 3);

    // An attribute value that does not exist: number, colour, shape.
    for bad in ["5BS", "3KS", "3BX", "0RC", "3B", "10BS"] {
        let answer = app
            .submit(&table, &token, json!({"kind": "play", "seat": 3, "card": bad}))
            .await;
        answer.assert_problem(422, "unknown_card");
        assert!(
            answer.body["detail"].as_str().expect("detail").contains(bad),
            "{}",
            answer.body
        );
    }
    let answer = app
        .submit(&table, &token, json!({"kind": "play", "seat": 3, "card": "3KS"}))
        .await;
    assert!(answer.body["detail"]
        .as_str()
        .expect("detail")
        .contains("there is no colour `K`"));
    // A card already played: in trick 1, and in trick 2.
    app.submit(&table, &token, json!({"kind": "play", "seat": 3, "card": "4BC"}))
        .await
        .assert_problem(422, "card_already_played");
    app.submit(&table, &token, json!({"kind": "play", "seat": 3, "card": "4rt"}))
        .await
        .assert_problem(422, "card_already_played");
    // A fifth card for trick 2, which is complete; and a card for a trick not yet started.
    app.submit(
        &table,
        &token,
        json!({"kind": "play", "seat": 3, "card": "2BC", "trick": 2}),
    )
    .await
    .assert_problem(422, "trick_complete");
    app.submit(
        &table,
        &token,
        json!({"kind": "play", "seat": 3, "card": "2BC", "trick": 4}),
    )
    .await
    .assert_problem(422, "trick_not_started");
    // Out of turn, and a first trick in the middle of the hand.
    app.submit(&table, &token, json!({"kind": "play", "seat": 0, "card": "2BC"}))
        .await
        .assert_problem(422, "not_your_turn");
    app.submit(
        &table,
        &token,
        json!({"kind": "first_trick", "cards": ["1YS", "1YT", "1YH", "1YC"]}),
    )
    .await
    .assert_problem(422, "move_not_expected");

    assert_eq!(everything(&app, &table).await, before);
    // The right trick number is accepted.
    accept(
        &app,
        &table,
        &token,
        json!({"kind": "play", "seat": 3, "card": "2BC", "trick": 3}),
    )
    .await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_first_trick_that_is_not_four_cards_is_refused_and_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = tricky_table(&app, json!({})).await;
    let before = everything(&app, &table).await;
    for cards in [
        json!(["4BC", "1BH", "2RS"]),
        json!(["4BC", "1BH", "2RS", "3GT", "3GS"]),
        json!([]),
    ] {
        app.submit(&table, &token, json!({"kind": "first_trick", "cards": cards}))
            .await
            .assert_problem(422, "wrong_number_of_entries");
    }
    app.submit(
        &table,
        &token,
        json!({"kind": "first_trick", "cards": ["4BC", "1BH", "4bc", "3GT"]}),
    )
    .await
    .assert_problem(422, "card_already_played");
    app.submit(
        &table,
        &token,
        json!({"kind": "first_trick", "cards": ["4BC", "1BH", "2RP", "3GT"]}),
    )
    .await
    .assert_problem(422, "unknown_card");
    app.submit(&table, &token, json!({"kind": "play", "seat": 1, "card": "4BC"}))
        .await
        .assert_problem(422, "move_not_expected");
    assert_eq!(everything(&app, &table).await, before);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_move_after_the_hand_ended_is_refused_and_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = tricky_table(&app, json!({"hands": 2})).await;
    let mut engine = TrickyDick::new(
        4,
        Options {
            hands: 2,
            ..Options::default()
        },
    )
    .expect("game");
    let hands = sim::random_game(&mut engine, 99).expect("simulated game");

    // Hand 1 over: the next hand waits for its first trick.
    for mv in &hands[0].moves {
        accept(&app, &table, &token, serde_json::to_value(mv).expect("json")).await;
    }
    let state = app.state(&table).await;
    assert_eq!(
        (state["state"]["hand"].clone(), state["state"]["dealer"].clone()),
        (json!(2), json!(1))
    );
    let before = everything(&app, &table).await;
    let Some(tablekeeper::rules::games::tricky_dick::Move::Play { seat, card, .. }) = hands[0].moves.last() else {
        panic!("a hand ends with a play");
    };
    app.submit(
        &table,
        &token,
        json!({"kind": "play", "seat": seat, "card": card, "trick": 16}),
    )
    .await
    .assert_problem(422, "move_not_expected");
    assert_eq!(everything(&app, &table).await, before);

    // The last hand over: the game has ended.
    for mv in &hands[1].moves {
        accept(&app, &table, &token, serde_json::to_value(mv).expect("json")).await;
    }
    let before = everything(&app, &table).await;
    assert_eq!(before.0["finished"], true);
    app.submit(
        &table,
        &token,
        json!({"kind": "first_trick", "cards": ["4BC", "1BH", "2RS", "3GT"]}),
    )
    .await
    .assert_problem(409, "game_finished");
    app.submit(&table, &token, json!({"kind": "play", "seat": 0, "card": "4BC"}))
        .await
        .assert_problem(409, "game_finished");
    assert_eq!(everything(&app, &table).await, before);
    assert_eq!(before.3["total"], 0);
    let scores = &before.2["sheet"];
    assert_eq!(scores, &serde_json::to_value(engine.score_sheet()).expect("json"));
    assert_eq!(scores["hands"].as_array().expect("hands").len(), 2);
    assert_audit_consistent(&app, &table).await;
}

#[sqlx::test(migrations = "./migrations")]
async fn the_catalogue_lists_tricky_dick_for_four_players_with_its_options(pool: PgPool) {
    let app = spawn_app(pool).await;
    let games = app.get("/api/v1/games").await.assert_status(200).clone();
    let game = games
        .as_array()
        .expect("array")
        .iter()
        .find(|g| g["id"] == "tricky-dick")
        .expect("listed")
        .clone();
    assert_eq!(
        (game["min_players"].clone(), game["max_players"].clone()),
        (json!(4), json!(4))
    );
    let defaults: Vec<(String, Value)> = game["options"]
        .as_array()
        .expect("options")
        .iter()
        .map(|o| (o["name"].as_str().expect("name").to_owned(), o["default"].clone()))
        .collect();
    assert_eq!(
        defaults,
        [
            ("mode".to_owned(), json!("individual")),
            ("hands".to_owned(), json!(4)),
            ("first_dealer".to_owned(), json!(0)),
        ]
    );
    let token = app.organiser("bob@club.example").await;
    let create = |body: Value| app.post("/api/v1/tables", &token, body);
    create(json!({"game": "tricky-dick", "players": ["A", "B", "C"]}))
        .await
        .assert_problem(422, "invalid_player_count");
    create(json!({"game": "tricky-dick", "players": ["A", "B", "C", "D"], "options": {"mode": "teams"}}))
        .await
        .assert_problem(422, "invalid_options");
    create(json!({"game": "tricky-dick", "players": ["A", "B", "C", "D"], "options": {"hands": 0}}))
        .await
        .assert_problem(422, "invalid_option");
}

#[test]
fn the_spec_documents_the_squares_card_notation() {
    let spec: Value = serde_json::from_str(include_str!("../../openapi/openapi.json")).expect("json");
    let schema = &spec["components"]["schemas"]["SquaresCard"];
    assert_eq!(schema["type"], "string");
    assert_eq!(schema["pattern"], "^[1-4][RYGBrygb][STHCsthc]$");
    assert_eq!(schema["examples"], json!(["3BS"]));
    assert!(schema["description"].as_str().expect("description").contains("B blue"));
    // The moves are named members (`TrickyDickMovePlay`, …) of the union `TrickyDickMove`.
    let moves: Vec<&Value> = spec["components"]["schemas"]
        .as_object()
        .expect("schemas")
        .iter()
        .filter(|(name, _)| name.starts_with("TrickyDickMove"))
        .map(|(_, schema)| schema)
        .collect();
    assert!(moves
        .iter()
        .any(|m| m.to_string().contains("#/components/schemas/SquaresCard")));
}

// ---------------------------------------------------------------------------------------------
// A hand entered as its result

fn result(trick_chips: [i32; 4], penalties: [u8; 4]) -> Value {
    json!({"kind": "result", "trick_chips": trick_chips, "penalties": penalties})
}

/// Posts a move guarded by the deal (hand) it is meant for.
async fn submit_for(app: &TestApp, table: &str, token: &str, mv: Value, deal: u16) -> crate::helpers::Answer {
    app.post(
        &format!("/api/v1/tables/{table}/moves"),
        token,
        json!({"move": mv, "deal": deal}),
    )
    .await
}

#[sqlx::test(migrations = "./migrations")]
async fn a_hand_entered_as_a_result_is_scored_and_booked_as_the_engine_books_it(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = tricky_table(&app, json!({"mode": "partnerships", "hands": 2})).await;
    let state = app.state(&table).await;
    let form = state["state"]["legal_moves"]
        .as_array()
        .expect("legal moves")
        .iter()
        .find(|m| m["kind"] == "result")
        .cloned()
        .expect("the result form is offered at the start of a hand");
    assert_eq!(
        form,
        json!({"kind": "result", "trick_chips_min": -16, "trick_chips_max": 16,
               "trick_chips_total_min": -48, "trick_chips_total_max": 48, "penalties_max": 15})
    );

    let mv = result([5, -3, 0, 2], [2, 0, 1, 0]);
    let answer = submit_for(&app, &table, &token, mv.clone(), 1)
        .await
        .assert_status(201)
        .clone();
    let mut engine = TrickyDick::new(
        4,
        Options {
            mode: Mode::Partnerships,
            hands: 2,
            ..Options::default()
        },
    )
    .expect("game");
    let events = engine
        .apply(&serde_json::from_value(mv).expect("a move"))
        .expect("accepted");
    assert_eq!(answer["move"]["events"], serde_json::to_value(&events).expect("json"));
    assert_eq!(
        answer["table"]["state"],
        serde_json::to_value(engine.view()).expect("json")
    );
    assert_eq!(answer["table"]["state"]["hand"], 2);
    assert_eq!(answer["table"]["state"]["totals"], json!([3, -3, -1, 2]));
    let scores = app.scores(&table).await;
    assert_eq!(
        scores["sheet"],
        serde_json::to_value(engine.score_sheet()).expect("json")
    );
    assert_eq!(
        scores["sheet"]["hands"][0],
        json!({"hand": 1, "dealer": 0, "points": [3, -3, -1, 2], "penalties": [2, 0, 1, 0],
               "totals": [3, -3, -1, 2]})
    );
    assert_eq!(scores["sheet"]["team_totals"], json!([2, -1]));

    // Two bookings, each balanced: the trick chips, then the penalties.
    let ledger = app.ledger(&table).await;
    let bookings = ledger["bookings"].as_array().expect("bookings");
    let settlements = TrickyDick::settlements(&events);
    assert_eq!(bookings.len(), 2);
    for (booking, settlement) in bookings.iter().zip(&settlements) {
        assert_eq!(booking["memo"], settlement.memo);
        assert_eq!(booking["deal"], 1);
        let sum: i64 = booking["postings"]
            .as_array()
            .expect("postings")
            .iter()
            .map(|p| p["amount"].as_i64().expect("amount"))
            .sum();
        assert_eq!(sum, 0, "{booking}");
    }
    assert_eq!(ledger["total"], 0);
    for (seat, total) in [3, -3, -1, 2].into_iter().enumerate() {
        assert_eq!(balance(&ledger, &format!("seat:{seat}")), total);
    }
    assert_eq!(balance(&ledger, "bank"), -1);
    assert_audit_consistent(&app, &table).await;

    // The last hand by result ends the game.
    let answer = submit_for(&app, &table, &token, result([0, 4, 0, 4], [0; 4]), 2)
        .await
        .assert_status(201)
        .clone();
    assert_eq!(answer["table"]["finished"], true);
    assert_eq!(answer["table"]["state"]["winners"], json!([1, 3]));
    assert_audit_consistent(&app, &table).await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_result_posted_twice_is_refused_by_the_deal_guard_and_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = tricky_table(&app, json!({})).await;
    let mv = result([2, 2, 0, -1], [1, 0, 0, 3]);
    submit_for(&app, &table, &token, mv.clone(), 1).await.assert_status(201);
    let before = everything(&app, &table).await;
    let again = submit_for(&app, &table, &token, mv, 1).await;
    again.assert_problem(409, "deal_mismatch");
    assert_eq!(everything(&app, &table).await, before);
}

#[sqlx::test(migrations = "./migrations")]
async fn results_no_hand_can_give_are_refused_with_their_code_and_change_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = tricky_table(&app, json!({"hands": 2})).await;
    // Hand 1 is booked, so "nothing changed" covers a ledger with bookings in it.
    accept(&app, &table, &token, result([3, 0, -1, 0], [0, 2, 0, 0])).await;
    let before = everything(&app, &table).await;
    let refusals = [
        (
            json!({"kind": "result", "trick_chips": [0, 0, 0], "penalties": [0, 0, 0, 0]}),
            422,
            "wrong_number_of_entries",
        ),
        (
            json!({"kind": "result", "trick_chips": [0, 0, 0, 0], "penalties": [0, 0, 0, 0, 0]}),
            422,
            "wrong_number_of_entries",
        ),
        (result([0, 17, 0, 0], [0; 4]), 422, "trick_chips_out_of_range"),
        (result([-17, 0, 0, 0], [0; 4]), 422, "trick_chips_out_of_range"),
        (result([16, 16, 16, 1], [0; 4]), 422, "trick_chips_do_not_add_up"),
        (result([-16, -16, -16, -16], [0; 4]), 422, "trick_chips_do_not_add_up"),
        (result([0; 4], [0, 0, 0, 16]), 422, "penalties_out_of_range"),
        (
            json!({"kind": "result", "trick_chips": [0, 0, 0, 0]}),
            422,
            "invalid_body",
        ),
        (
            json!({"kind": "result", "trick_chips": [0, 0, 0, 0], "penalties": [0, -1, 0, 0]}),
            422,
            "invalid_body",
        ),
    ];
    for (mv, status, code) in refusals {
        let answer = app.submit(&table, &token, mv.clone()).await;
        answer.assert_problem(status, code);
        assert!(!answer.body["detail"].as_str().unwrap_or("").is_empty(), "{mv}");
    }
    let answer = app.submit(&table, &token, result([0, 17, 0, 0], [0; 4])).await;
    assert_eq!(
        answer.body["detail"],
        "seat 1's trick chips of 17 are out of range: a hand's tricks hold 16 circles and 16 squares, so a player's trick chips are −16 to 16"
    );
    // A result guarded for another hand, and one after trick 1 was played.
    submit_for(&app, &table, &token, result([0; 4], [0; 4]), 1)
        .await
        .assert_problem(409, "deal_mismatch");
    assert_eq!(everything(&app, &table).await, before);
    accept(
        &app,
        &table,
        &token,
        json!({"kind": "first_trick", "cards": ["4BC", "1BH", "2RS", "3GT"]}),
    )
    .await;
    let before = everything(&app, &table).await;
    app.submit(&table, &token, result([0; 4], [0; 4]))
        .await
        .assert_problem(422, "move_not_expected");
    assert_eq!(everything(&app, &table).await, before);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_hand_played_card_by_card_is_corrected_by_its_result(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = tricky_table(&app, json!({"hands": 2})).await;
    // Recorded: hand 1 card by card, hand 2 as a result.
    let mut engine = TrickyDick::new(
        4,
        Options {
            hands: 2,
            ..Options::default()
        },
    )
    .expect("game");
    let hand = sim::random_hand(&mut engine, 31).expect("a simulated hand");
    for mv in &hand.moves {
        accept(&app, &table, &token, serde_json::to_value(mv).expect("json")).await;
    }
    let later = result([1, 1, -2, 0], [0, 3, 0, 1]);
    accept(&app, &table, &token, later.clone()).await;
    let bookings_before = app.ledger(&table).await["bookings"]
        .as_array()
        .expect("bookings")
        .clone();

    // What it should have been: hand 1 was this result.
    let right_hand = result([4, -4, 0, 2], [1, 1, 0, 5]);
    let right = app
        .game_table(
            &token,
            "tricky-dick",
            &["Ann", "Bob", "Cat", "Dan"],
            json!({"hands": 2}),
        )
        .await;
    accept(&app, &right, &token, right_hand.clone()).await;
    accept(&app, &right, &token, later).await;

    let version = app.state(&table).await["version"].as_i64().expect("version");
    let corrected = app
        .request(
            reqwest::Method::PUT,
            &format!("/api/v1/tables/{table}/deals/1"),
            Some(&token),
            Some(json!({"moves": [right_hand], "expected_version": version, "reason": "entered from the slip"})),
        )
        .await
        .assert_status(200)
        .clone();
    assert_eq!(corrected["moves"].as_array().expect("moves").len(), 1);
    assert_eq!(corrected["moves"][0]["move"]["kind"], "result");
    assert_eq!(
        corrected["corrections"][0]["supersedes"]
            .as_array()
            .expect("superseded")
            .len(),
        61
    );

    // The table, its sheet and its balances are as if hand 1 had been entered right.
    let state = app.state(&table).await["state"].clone();
    assert_eq!(state, app.state(&right).await["state"]);
    assert_eq!(app.scores(&table).await["sheet"], app.scores(&right).await["sheet"]);
    assert_eq!(state["totals"], json!([4, -7, -2, -4]));
    let ledger = app.ledger(&table).await;
    let right_ledger = app.ledger(&right).await;
    for account in ["bank", "seat:0", "seat:1", "seat:2", "seat:3"] {
        assert_eq!(balance(&ledger, account), balance(&right_ledger, account), "{account}");
    }
    // Nothing booked before was edited; the changed bookings are reversed and booked anew.
    let bookings = ledger["bookings"].as_array().expect("bookings");
    assert_eq!(&bookings[..bookings_before.len()], bookings_before.as_slice());
    assert!(bookings[bookings_before.len()..]
        .iter()
        .any(|b| !b["reverses"].is_null()));
    assert_eq!(ledger["total"], 0);
    assert_audit_consistent(&app, &table).await;
}
