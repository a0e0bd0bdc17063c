//! Dividend through HTTP: whole games in each recording mode, and every bad input the issue
//! names refused with a clear error and nothing changed.

use serde_json::{json, Value};
use sqlx::PgPool;
use tablekeeper::rules::games::dividend::{sim, Dividend, Options};
use tablekeeper::rules::Game;

use crate::helpers::{accept, assert_audit_consistent, spawn_app, TestApp};

/// An organiser, and a Dividend table with the given options.
async fn dividend_table(app: &TestApp, options: Value) -> (String, String) {
    let token = app.organiser("ann@club.example").await;
    let table = app
        .game_table(&token, "dividend", &["Ann", "Bob", "Cat", "Dan"], options)
        .await;
    (token, table)
}

async fn sheet(app: &TestApp, table: &str) -> Value {
    app.get(&format!("/api/v1/tables/{table}/scores"))
        .await
        .assert_status(200)["sheet"]
        .clone()
}

/// The sheet's deals with `recording` dropped: what every recording of the same deals shares.
fn scores_only(sheet: &Value) -> Vec<Value> {
    sheet["deals"]
        .as_array()
        .expect("deals")
        .iter()
        .map(|deal| {
            let mut deal = deal.clone();
            deal.as_object_mut().expect("deal").remove("recording");
            deal
        })
        .collect()
}

/// A game simulated card by card on the engine, with the options a table was opened with.
fn simulated(options: Value, seed: u64) -> (Dividend, Vec<sim::DealRecord>) {
    let options: Options = serde_json::from_value(options).expect("options");
    let mut engine = Dividend::new(4, options).expect("game");
    let deals = sim::random_game(&mut engine, seed).expect("simulated game");
    (engine, deals)
}

#[sqlx::test(migrations = "./migrations")]
async fn a_whole_game_card_by_card_matches_the_engine(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = dividend_table(&app, json!({})).await;
    let state = app.state(&table).await;
    assert_eq!(
        crate::helpers::legal_kinds(&state["state"]),
        json!(["play", "trick", "result"])
    );
    assert_eq!(state["state"]["to_act"], 1, "the dealer's left leads");

    let (engine, deals) = simulated(json!({}), 52);
    assert_eq!(deals.len(), 4);
    let moves = sim::moves(&deals);
    assert_eq!(moves.len(), 4 * 52);
    let mut last = Value::Null;
    for mv in &moves {
        last = accept(&app, &table, &token, serde_json::to_value(mv).expect("json")).await;
    }
    // The engine found the winners and shared the cards: the last move ended the game.
    let kinds: Vec<&str> = last["move"]["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| e["event"].as_str().expect("event"))
        .collect();
    assert_eq!(kinds, ["card_played", "trick_won", "deal_scored", "game_finished"]);

    let sheet = sheet(&app, &table).await;
    assert_eq!(sheet, serde_json::to_value(engine.score_sheet()).expect("json"));
    for deal in sheet["deals"].as_array().expect("deals") {
        assert_eq!(deal["recording"], "card_by_card");
        let cards: u64 = deal["cards_won"]
            .as_array()
            .expect("cards")
            .iter()
            .filter_map(Value::as_u64)
            .sum();
        assert_eq!(cards, 52);
    }
    assert_eq!(sheet["finished"], true);
    assert_eq!(sheet["winners"].as_array().expect("winners").len(), 1);
    let state = app.state(&table).await;
    assert_eq!(state["finished"], true);
    assert_eq!(state["state"]["phase"], "finished");

    let id: uuid::Uuid = table.parse().expect("uuid");
    let mut conn = app.pool.acquire().await.expect("connection");
    let row = tablekeeper::store::tables::fetch(&mut conn, id).await.expect("row");
    let replayed: Dividend = tablekeeper::service::fold::replay(&mut conn, &row)
        .await
        .expect("replay");
    assert_eq!(replayed, engine);
    assert_audit_consistent(&app, &table).await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_whole_game_trick_by_trick_scores_the_same_as_card_by_card(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = dividend_table(&app, json!({})).await;
    let (engine, deals) = simulated(json!({}), 7);
    for (i, record) in deals.iter().enumerate() {
        // Alternate deals with and without the trick numbers.
        for mv in sim::trick_moves(record, i % 2 == 0) {
            let answer = accept(&app, &table, &token, serde_json::to_value(&mv).expect("json")).await;
            assert!(answer["move"]["events"][0]["shares"].is_array());
        }
    }
    let sheet = sheet(&app, &table).await;
    let by_card = serde_json::to_value(engine.score_sheet()).expect("json");
    assert_eq!(scores_only(&sheet), scores_only(&by_card));
    assert_eq!(sheet["winners"], by_card["winners"]);
    assert!(sheet["deals"]
        .as_array()
        .expect("deals")
        .iter()
        .all(|d| d["recording"] == "trick_by_trick"));
    assert_eq!(app.log(&table).await.as_array().expect("log").len(), 4 * 13);
    assert_audit_consistent(&app, &table).await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_partnership_game_to_52_points_recorded_as_results(pool: PgPool) {
    let app = spawn_app(pool).await;
    let options = json!({"partnerships": true, "game_length": {"rule": "points", "target": 52}, "first_dealer": 3});
    let (token, table) = dividend_table(&app, options.clone()).await;
    let (engine, deals) = simulated(options, 11);
    for record in &deals {
        let mv = sim::result_move(record).expect("a scored deal");
        accept(&app, &table, &token, serde_json::to_value(&mv).expect("json")).await;
    }
    let sheet = sheet(&app, &table).await;
    let by_card = serde_json::to_value(engine.score_sheet()).expect("json");
    assert_eq!(scores_only(&sheet), scores_only(&by_card));
    assert_eq!(sheet["finished"], true);
    // Partners score alike, and the winners are one side.
    let totals: Vec<i64> = sheet["totals"]
        .as_array()
        .expect("totals")
        .iter()
        .filter_map(Value::as_i64)
        .collect();
    assert_eq!((totals[0], totals[1]), (totals[2], totals[3]));
    assert!(totals.iter().any(|&t| t >= 52));
    let winners = sheet["winners"].as_array().expect("winners");
    assert_eq!(winners.len(), 2);
    assert_eq!(
        winners[0].as_u64().expect("seat") % 2,
        winners[1].as_u64().expect("seat") % 2
    );
    assert_eq!(sheet["deals"][0]["dealer"], 3);
    assert_audit_consistent(&app, &table).await;
}

#[sqlx::test(migrations = "./migrations")]
async fn the_seed_example_partners_with_17_and_11_score_17(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = dividend_table(&app, json!({"partnerships": true})).await;
    let answer = accept(
        &app,
        &table,
        &token,
        json!({"kind": "result", "cards_won": [17, 12, 11, 12]}),
    )
    .await;
    let scored = &answer["move"]["events"][0];
    assert_eq!(scored["event"], "deal_scored");
    assert_eq!(scored["points"], json!([17, 12, 17, 12]));
    assert_eq!(answer["table"]["state"]["totals"], json!([17, 12, 17, 12]));
}

#[sqlx::test(migrations = "./migrations")]
async fn a_trick_entered_by_its_winner_is_shared_by_position_and_the_winner_leads(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = dividend_table(&app, json!({})).await;
    // Seat 1 leads; seat 3 wins from third place: 3 cards to seat 3, 1 to the leader.
    let answer = accept(&app, &table, &token, json!({"kind": "trick", "winner": 3, "number": 1})).await;
    let won = &answer["move"]["events"][0];
    assert_eq!(won["event"], "trick_won");
    assert_eq!(won["position"], 3);
    assert_eq!(won["shares"], json!([0, 1, 0, 3]));
    let state = &answer["table"]["state"];
    assert_eq!(state["cards_won"], json!([0, 1, 0, 3]));
    assert_eq!(state["current_trick"]["leader"], 3);
    assert_eq!(state["current_trick"]["number"], 2);
    assert_eq!(state["recording"], "trick_by_trick");
    assert_eq!(crate::helpers::legal_kinds(state), json!(["trick"]));
}

#[sqlx::test(migrations = "./migrations")]
async fn a_trick_winner_not_at_the_table_is_refused_and_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = dividend_table(&app, json!({})).await;
    accept(&app, &table, &token, json!({"kind": "trick", "winner": 2})).await;
    let before = app.snapshot(&table).await;
    app.submit(&table, &token, json!({"kind": "trick", "winner": 4}))
        .await
        .assert_problem(422, "no_such_seat");
    app.submit(&table, &token, json!({"kind": "trick", "winner": 200}))
        .await
        .assert_problem(422, "no_such_seat");
    app.submit(&table, &token, json!({"kind": "trick", "winner": -1}))
        .await
        .assert_problem(422, "invalid_body");
    assert_eq!(app.snapshot(&table).await, before);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_result_that_does_not_total_52_is_refused_and_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = dividend_table(&app, json!({})).await;
    let before = app.snapshot(&table).await;
    let answer = app
        .submit(&table, &token, json!({"kind": "result", "cards_won": [17, 11, 14, 9]}))
        .await;
    answer.assert_problem(422, "cards_do_not_add_up");
    assert!(answer.body["detail"].as_str().expect("detail").contains("51"));
    // 52 cards, but no 13 tricks share them so: opposite seats always win an even number.
    let answer = app
        .submit(&table, &token, json!({"kind": "result", "cards_won": [17, 11, 14, 10]}))
        .await;
    answer.assert_problem(422, "impossible_result");
    assert!(answer.body["detail"].as_str().expect("detail").contains("seat 1"));
    app.submit(&table, &token, json!({"kind": "result", "cards_won": [52, 0, 0, 0]}))
        .await
        .assert_problem(422, "impossible_result");
    app.submit(&table, &token, json!({"kind": "result", "cards_won": [20, 20, 12]}))
        .await
        .assert_problem(422, "wrong_number_of_entries");
    app.submit(
        &table,
        &token,
        json!({"kind": "result", "cards_won": [13, 13, 13, 13], "tricks": 13}),
    )
    .await
    .assert_problem(422, "unknown_field");
    assert_eq!(app.snapshot(&table).await, before);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_fourteenth_trick_is_refused_and_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = dividend_table(&app, json!({"game_length": {"rule": "deals", "deals": 2}})).await;
    // Deal 1: thirteen tricks, each won by its leader (seat 1 leads throughout).
    for n in 1..=13 {
        accept(&app, &table, &token, json!({"kind": "trick", "winner": 1, "number": n})).await;
    }
    let state = app.state(&table).await;
    assert_eq!(state["state"]["deal"], 2);
    let before = app.snapshot(&table).await;
    app.submit(&table, &token, json!({"kind": "trick", "winner": 1, "number": 14}))
        .await
        .assert_problem(422, "no_such_trick");
    // A repeated tap of an earlier trick is a conflict with what is recorded. (Seat 2 leads
    // deal 2; seat 3 wins from second place, and is the only one ahead at the end.)
    accept(&app, &table, &token, json!({"kind": "trick", "winner": 3, "number": 1})).await;
    let mid = app.snapshot(&table).await;
    app.submit(&table, &token, json!({"kind": "trick", "winner": 3, "number": 1}))
        .await
        .assert_problem(409, "trick_out_of_order");
    assert_eq!(app.snapshot(&table).await, mid);
    assert_ne!(mid, before);

    // Deal 2 is the last: after its 13th trick a 14th finds the game over.
    for n in 2..=13 {
        let leader = app.state(&table).await["state"]["current_trick"]["leader"].clone();
        accept(
            &app,
            &table,
            &token,
            json!({"kind": "trick", "winner": leader, "number": n}),
        )
        .await;
    }
    let done = app.state(&table).await;
    assert_eq!(done["finished"], true);
    assert_eq!(done["state"]["winners"], json!([3]));
    let before = app.snapshot(&table).await;
    app.submit(&table, &token, json!({"kind": "trick", "winner": 1}))
        .await
        .assert_problem(409, "game_finished");
    app.submit(&table, &token, json!({"kind": "trick", "winner": 1, "number": 14}))
        .await
        .assert_problem(409, "game_finished");
    assert_eq!(app.snapshot(&table).await, before);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_card_already_played_is_refused_and_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = dividend_table(&app, json!({})).await;
    for (seat, card) in [(1, "AH"), (2, "2S"), (3, "KH"), (0, "AD")] {
        accept(
            &app,
            &table,
            &token,
            json!({"kind": "play", "seat": seat, "card": card}),
        )
        .await;
    }
    // The 2♠ trumped the heart lead: seat 2 won from second place and leads.
    let state = app.state(&table).await;
    assert_eq!(state["state"]["cards_won"], json!([0, 1, 2, 1]));
    assert_eq!(state["state"]["to_act"], 2);
    let before = app.snapshot(&table).await;
    app.submit(&table, &token, json!({"kind": "play", "seat": 2, "card": "KH"}))
        .await
        .assert_problem(422, "card_already_played");
    app.submit(&table, &token, json!({"kind": "play", "seat": 3, "card": "QH"}))
        .await
        .assert_problem(422, "not_your_turn");
    // The deal is recorded card by card: a trick or a result cannot be mixed in.
    app.submit(&table, &token, json!({"kind": "trick", "winner": 2}))
        .await
        .assert_problem(422, "move_not_expected");
    app.submit(&table, &token, json!({"kind": "result", "cards_won": [13, 13, 13, 13]}))
        .await
        .assert_problem(422, "move_not_expected");
    assert_eq!(app.snapshot(&table).await, before);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_move_after_the_game_ended_is_refused_and_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = dividend_table(&app, json!({"game_length": {"rule": "deals", "deals": 1}})).await;
    let done = accept(
        &app,
        &table,
        &token,
        json!({"kind": "result", "cards_won": [20, 12, 10, 10]}),
    )
    .await;
    assert_eq!(done["table"]["finished"], true);
    assert_eq!(done["table"]["state"]["winners"], json!([0]));
    let before = app.snapshot(&table).await;
    for mv in [
        json!({"kind": "result", "cards_won": [13, 13, 13, 13]}),
        json!({"kind": "trick", "winner": 1}),
        json!({"kind": "play", "seat": 1, "card": "2C"}),
    ] {
        app.submit(&table, &token, mv)
            .await
            .assert_problem(409, "game_finished");
    }
    assert_eq!(app.snapshot(&table).await, before);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_tie_for_first_adds_a_deal_and_the_state_says_so(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = dividend_table(&app, json!({"game_length": {"rule": "deals", "deals": 1}})).await;
    let answer = accept(
        &app,
        &table,
        &token,
        json!({"kind": "result", "cards_won": [16, 16, 10, 10]}),
    )
    .await;
    let events = answer["move"]["events"].as_array().expect("events");
    assert!(events
        .iter()
        .any(|e| e["event"] == "tie_for_first" && e["seats"] == json!([0, 1])));
    let state = &answer["table"]["state"];
    assert_eq!(answer["table"]["finished"], false);
    assert_eq!(state["tie_break"], true);
    assert_eq!(state["tied_for_first"], json!([0, 1]));
    assert_eq!(state["deal"], 2);
    let answer = accept(
        &app,
        &table,
        &token,
        json!({"kind": "result", "cards_won": [14, 12, 12, 14]}),
    )
    .await;
    assert_eq!(answer["table"]["finished"], true);
    assert_eq!(answer["table"]["state"]["winners"], json!([0]));
    assert_eq!(sheet(&app, &table).await["deals"][1]["tie_break"], true);
    assert_audit_consistent(&app, &table).await;
}

#[sqlx::test(migrations = "./migrations")]
async fn bad_options_and_player_counts_are_refused(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let create = |players: Value, options: Value| json!({"game": "dividend", "players": players, "options": options});
    let four = json!(["Ann", "Bob", "Cat", "Dan"]);
    app.post(
        "/api/v1/tables",
        &token,
        create(json!(["Ann", "Bob", "Cat"]), json!({})),
    )
    .await
    .assert_problem(422, "invalid_player_count");
    app.post(
        "/api/v1/tables",
        &token,
        create(four.clone(), json!({"first_dealer": 4})),
    )
    .await
    .assert_problem(422, "invalid_option");
    app.post(
        "/api/v1/tables",
        &token,
        create(four.clone(), json!({"game_length": {"rule": "points", "target": 0}})),
    )
    .await
    .assert_problem(422, "invalid_option");
    app.post("/api/v1/tables", &token, create(four, json!({"trumps": "spades"})))
        .await
        .assert_problem(422, "invalid_options");
}

#[sqlx::test(migrations = "./migrations")]
async fn undo_takes_back_a_trick_entry(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = dividend_table(&app, json!({})).await;
    let fresh = app.state(&table).await["state"].clone();
    accept(&app, &table, &token, json!({"kind": "trick", "winner": 0})).await;
    let undo = app
        .post(&format!("/api/v1/tables/{table}/undo"), &token, json!({}))
        .await;
    assert_eq!(undo.assert_status(200)["table"]["state"], fresh);
    // With the deal fresh again, it may be recorded another way.
    accept(
        &app,
        &table,
        &token,
        json!({"kind": "result", "cards_won": [13, 13, 13, 13]}),
    )
    .await;
}

#[sqlx::test(migrations = "./migrations")]
async fn the_catalogue_lists_dividend_for_four_with_its_options(pool: PgPool) {
    let app = spawn_app(pool).await;
    let games = app.get("/api/v1/games").await.assert_status(200).clone();
    let dividend = games
        .as_array()
        .expect("array")
        .iter()
        .find(|g| g["id"] == "dividend")
        .expect("listed");
    assert_eq!(
        (dividend["min_players"].clone(), dividend["max_players"].clone()),
        (json!(4), json!(4))
    );
    let default = |name: &str| {
        dividend["options"]
            .as_array()
            .expect("options")
            .iter()
            .find(|o| o["name"] == name)
            .map(|o| o["default"].clone())
    };
    assert_eq!(default("partnerships"), Some(json!(false)));
    assert_eq!(default("game_length"), Some(json!({"rule": "deals", "deals": 4})));
    assert_eq!(default("first_dealer"), Some(json!(0)));
}

#[test]
fn the_spec_documents_the_dividend_moves_with_examples() {
    let spec: Value = serde_json::from_str(include_str!("../../openapi/openapi.json")).expect("json");
    let schemas = &spec["components"]["schemas"];
    // The moves are named members of a union discriminated by `kind`.
    let member = |v: &Value| {
        let name = v["$ref"]
            .as_str()
            .expect("a named member")
            .trim_start_matches("#/components/schemas/");
        schemas[name].clone()
    };
    let members: Vec<Value> = schemas["DividendMove"]["oneOf"]
        .as_array()
        .expect("one of")
        .iter()
        .map(member)
        .collect();
    // Each member pins `kind` to a value of its own, and the discriminator maps each value to it.
    let kinds: Vec<&Value> = members.iter().map(|m| &m["properties"]["kind"]["enum"][0]).collect();
    assert_eq!(kinds, ["play", "trick", "result"]);
    let discriminator = &schemas["DividendMove"]["discriminator"];
    assert_eq!(discriminator["propertyName"], "kind");
    assert_eq!(
        discriminator["mapping"]["trick"],
        "#/components/schemas/DividendMoveTrick"
    );
    assert!(members
        .iter()
        .all(|m| m["required"].as_array().expect("required").contains(&"kind".into())));
    let text = Value::Array(members.clone()).to_string();
    for kind in ["play", "trick", "result"] {
        assert!(text.contains(&format!("\"{kind}\"")), "{kind} missing");
    }
    let examples = members
        .iter()
        .map(|v| v["examples"].as_array().map_or(0, Vec::len))
        .collect::<Vec<_>>();
    assert_eq!(examples, [1, 2, 1]);
    for schema in ["DividendOptions", "DividendView", "DividendScoreSheet", "DividendEvent"] {
        assert!(schemas.get(schema).is_some(), "{schema} missing");
    }
}
