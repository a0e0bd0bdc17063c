use reqwest::Method;
use serde_json::{json, Value};
use sqlx::PgPool;
use tablekeeper::rules::games::nomination_whist::{sim, NominationWhist, Options};
use tablekeeper::rules::Game;

use crate::helpers::{accept, assert_audit_consistent, assert_audits_alike, spawn_app, TestApp};

/// An organiser, and a four-player table with the given options.
async fn four_player_table(app: &TestApp, options: Value) -> (String, String) {
    let token = app.organiser("ann@club.example").await;
    let table = app.table(&token, &["Ann", "Bob", "Cat", "Dan"], options).await;
    (token, table)
}

#[sqlx::test(migrations = "./migrations")]
async fn a_whole_four_player_game_card_by_card_matches_the_engine(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = four_player_table(&app, json!({})).await;
    let mut engine = NominationWhist::new(4, Options::default()).expect("game");
    let deals = sim::random_game(&mut engine, 2026).expect("simulated game");
    let moves = sim::moves(&deals);

    for (i, mv) in moves.iter().enumerate() {
        let answer = accept(&app, &table, &token, serde_json::to_value(mv).expect("json")).await;
        assert_eq!(answer["move"]["seq"], i as i64 + 1);
        assert_eq!(answer["table"]["version"], i as i64 + 1);
    }

    let scores = app.scores(&table).await;
    assert_eq!(
        scores["sheet"],
        serde_json::to_value(engine.score_sheet()).expect("json")
    );
    assert_eq!(scores["sheet"]["deals"].as_array().expect("deals").len(), 25);
    assert_eq!(scores["sheet"]["finished"], true);
    assert!(!scores["sheet"]["winners"].as_array().expect("winners").is_empty());
    let state = app.state(&table).await;
    assert_eq!(state["finished"], true);
    assert_eq!(state["state"]["phase"], "finished");
    assert_eq!(state["state"]["legal_moves"], json!([]));

    // A snapshot every 64 moves, and only then (not at each deal's end too): no move replays
    // more than 63 others, and no move writes the whole state more often, however long the
    // table's history.
    let seqs: Vec<i64> = sqlx::query_scalar("select seq from snapshots order by seq")
        .fetch_all(&app.pool)
        .await
        .expect("snapshots");
    // The set-up's snapshot, then one every 64 moves.
    let every: i64 = tablekeeper::service::fold::SNAPSHOT_EVERY as i64;
    assert_eq!(every, 64);
    let every_64: Vec<i64> = (0..=moves.len() as i64 / every).map(|k| k * every).collect();
    assert!(every_64.len() > 3, "the game is long enough to keep several");
    assert_eq!(seqs, every_64);

    // Replaying the whole log from the start gives the same state as the snapshots do.
    let id: uuid::Uuid = table.parse().expect("uuid");
    let mut conn = app.pool.acquire().await.expect("connection");
    let row = tablekeeper::store::tables::fetch(&mut conn, id).await.expect("row");
    let replayed: NominationWhist = tablekeeper::service::fold::replay(&mut conn, &row)
        .await
        .expect("replay");
    let incremental: NominationWhist = tablekeeper::service::fold::current(&mut conn, &row)
        .await
        .expect("state");
    assert_eq!(replayed, incremental);
    assert_eq!(replayed, engine);
    let audit = assert_audit_consistent(&app, &table).await;
    assert_eq!(audit["moves_replayed"], moves.len());
}

#[sqlx::test(migrations = "./migrations")]
async fn a_whole_four_player_game_result_only(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = four_player_table(&app, json!({})).await;
    let mut engine = NominationWhist::new(4, Options::default()).expect("game");
    let mut seed = 7;
    while !engine.is_finished() {
        let deal = sim::random_result(&mut engine, seed).expect("simulated result");
        for mv in &deal.moves {
            accept(&app, &table, &token, serde_json::to_value(mv).expect("json")).await;
        }
        seed += 1;
    }
    let scores = app.scores(&table).await;
    assert_eq!(
        scores["sheet"],
        serde_json::to_value(engine.score_sheet()).expect("json")
    );
    let sheet = &scores["sheet"]["deals"];
    assert_eq!(sheet.as_array().expect("deals").len(), 25);
    assert!(sheet
        .as_array()
        .expect("deals")
        .iter()
        .all(|d| d["recording"] == "result_only"));
    assert_eq!(app.log(&table).await.as_array().expect("log").len(), 25);
}

#[sqlx::test(migrations = "./migrations")]
async fn the_engine_works_out_tricks_and_scores_a_deal(pool: PgPool) {
    let app = spawn_app(pool).await;
    // Deal 1: one card each, spades trumps, dealer seat 0, seat 1 leads.
    let (token, table) = four_player_table(&app, json!({"hand_sizes": [1, 2]})).await;
    for (seat, tricks) in [(1, 1), (2, 0), (3, 0), (0, 1)] {
        accept(
            &app,
            &table,
            &token,
            json!({"kind": "nominate", "seat": seat, "tricks": tricks}),
        )
        .await;
    }
    let state = app.state(&table).await;
    assert_eq!(state["state"]["phase"], "playing");
    assert_eq!(state["state"]["to_act"], 1);
    accept(&app, &table, &token, json!({"kind": "play", "seat": 1, "card": "AH"})).await;
    accept(&app, &table, &token, json!({"kind": "play", "seat": 2, "card": "KH"})).await;
    let state = app.state(&table).await;
    assert_eq!(
        state["state"]["current_trick"]["plays"],
        json!([{"seat": 1, "card": "AH"}, {"seat": 2, "card": "KH"}])
    );
    accept(&app, &table, &token, json!({"kind": "play", "seat": 3, "card": "2S"})).await;
    let last = accept(&app, &table, &token, json!({"kind": "play", "seat": 0, "card": "QH"})).await;

    let events = last["move"]["events"].as_array().expect("events").clone();
    let kinds: Vec<&str> = events.iter().map(|e| e["event"].as_str().expect("event")).collect();
    assert_eq!(kinds, ["card_played", "trick_won", "deal_scored", "deal_started"]);
    assert_eq!(events[1]["winner"], 3, "the two of trumps wins");
    // Seat 2 was exact (0 of 0); seat 3 won 1 of 0; seats 0 and 1 won nothing of 1.
    assert_eq!(events[2]["points"], json!([0, 0, 10, 1]));
    let state = &last["table"]["state"];
    assert_eq!(state["deal"], 2);
    assert_eq!(state["dealer"], 1);
    assert_eq!(state["trumps"], "hearts");
    assert_eq!(state["to_act"], 2);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_revoke_is_reported_and_flagged_on_the_score_sheet(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = four_player_table(&app, json!({"hand_sizes": [2], "trumps": {"rule": "no_trumps"}})).await;
    for (seat, tricks) in [(1, 0), (2, 0), (3, 0), (0, 1)] {
        accept(
            &app,
            &table,
            &token,
            json!({"kind": "nominate", "seat": seat, "tricks": tricks}),
        )
        .await;
    }
    // Seat 2 shows void in hearts, then leads... no: plays a heart in trick 2.
    for (seat, card) in [(1, "AH"), (2, "2C"), (3, "3H"), (0, "4H")] {
        accept(
            &app,
            &table,
            &token,
            json!({"kind": "play", "seat": seat, "card": card}),
        )
        .await;
    }
    accept(&app, &table, &token, json!({"kind": "play", "seat": 1, "card": "5D"})).await;
    let revoke = accept(&app, &table, &token, json!({"kind": "play", "seat": 2, "card": "KH"})).await;
    let events = revoke["move"]["events"].as_array().expect("events");
    let detected = events
        .iter()
        .find(|e| e["event"] == "revoke_detected")
        .expect("revoke event");
    assert_eq!(detected["seat"], 2);
    assert_eq!(detected["suit"], "hearts");
    assert_eq!(detected["revoked_in_trick"], 1);
    assert_eq!(detected["proven_in_trick"], 2);
    for (seat, card) in [(3, "6D"), (0, "7D")] {
        accept(
            &app,
            &table,
            &token,
            json!({"kind": "play", "seat": seat, "card": card}),
        )
        .await;
    }
    let scores = app.scores(&table).await;
    assert_eq!(scores["sheet"]["deals"][0]["revokes"][0]["seat"], 2);
}

#[sqlx::test(migrations = "./migrations")]
async fn the_turned_up_trump_rule_asks_for_the_turn_up(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = four_player_table(&app, json!({"trumps": {"rule": "turned_up"}})).await;
    let state = app.state(&table).await;
    assert_eq!(state["state"]["phase"], "turn_up");
    assert_eq!(
        crate::helpers::legal_kinds(&state["state"]),
        json!(["turn_up", "result"])
    );
    let before = app.snapshot(&table).await;
    app.submit(&table, &token, json!({"kind": "nominate", "seat": 1, "tricks": 0}))
        .await
        .assert_problem(422, "move_not_expected");
    assert_eq!(app.snapshot(&table).await, before);
    let answer = accept(&app, &table, &token, json!({"kind": "turn_up", "card": "7D"})).await;
    assert_eq!(answer["table"]["state"]["trumps"], "diamonds");
    for (seat, tricks) in [(1, 0), (2, 0), (3, 0), (0, 0)] {
        accept(
            &app,
            &table,
            &token,
            json!({"kind": "nominate", "seat": seat, "tricks": tricks}),
        )
        .await;
    }
    let before = app.snapshot(&table).await;
    app.submit(&table, &token, json!({"kind": "play", "seat": 1, "card": "7D"}))
        .await
        .assert_problem(422, "card_turned_up");
    assert_eq!(app.snapshot(&table).await, before);
}

/// A table part-way through deal 2 (two cards each): the nominations made and one card played.
async fn table_mid_deal(app: &TestApp) -> (String, String) {
    let (token, table) = four_player_table(app, json!({"hand_sizes": [1, 4, 4]})).await;
    let result = json!({"kind": "result", "nominations": [0, 1, 0, 1], "tricks": [0, 1, 0, 0]});
    accept(app, &table, &token, result).await;
    // Deal 2: dealer seat 1, four cards each, hook rule applies; seat 2 leads.
    for (seat, tricks) in [(2, 1), (3, 1), (0, 0)] {
        accept(
            app,
            &table,
            &token,
            json!({"kind": "nominate", "seat": seat, "tricks": tricks}),
        )
        .await;
    }
    (token, table)
}

#[sqlx::test(migrations = "./migrations")]
async fn bad_moves_get_a_clear_error_and_change_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = table_mid_deal(&app).await;
    let path = format!("/api/v1/tables/{table}/moves");
    let before = app.snapshot(&table).await;
    assert_eq!(before.0["state"]["forbidden_nomination"], 2);

    // The hook rule: 1 + 1 + 0 + 2 would make 4.
    app.submit(&table, &token, json!({"kind": "nominate", "seat": 1, "tricks": 2}))
        .await
        .assert_problem(422, "hook_rule");
    // Out of turn, a seat that does not exist, a nomination beyond the hand.
    app.submit(&table, &token, json!({"kind": "nominate", "seat": 3, "tricks": 0}))
        .await
        .assert_problem(422, "not_your_turn");
    app.submit(&table, &token, json!({"kind": "nominate", "seat": 4, "tricks": 0}))
        .await
        .assert_problem(422, "no_such_seat");
    app.submit(&table, &token, json!({"kind": "nominate", "seat": 1, "tricks": 5}))
        .await
        .assert_problem(422, "nomination_out_of_range");
    // Playing before the nominations are done; a result mid-deal.
    app.submit(&table, &token, json!({"kind": "play", "seat": 2, "card": "AS"}))
        .await
        .assert_problem(422, "move_not_expected");
    app.submit(
        &table,
        &token,
        json!({"kind": "result", "nominations": [0, 0, 0, 0], "tricks": [1, 1, 1, 1]}),
    )
    .await
    .assert_problem(422, "move_not_expected");
    // Malformed JSON, unknown fields, an unknown move kind, a card that does not exist.
    app.send(Method::POST, &path, Some(&token), Some("{\"move\": {".into()), &[])
        .await
        .assert_problem(400, "malformed_json");
    app.post(
        &path,
        &token,
        json!({"move": {"kind": "nominate", "seat": 1, "tricks": 1}, "colour": "red"}),
    )
    .await
    .assert_problem(422, "unknown_field");
    app.submit(
        &table,
        &token,
        json!({"kind": "nominate", "seat": 1, "tricks": 1, "confident": true}),
    )
    .await
    .assert_problem(422, "unknown_field");
    app.submit(&table, &token, json!({"kind": "bid", "seat": 1}))
        .await
        .assert_problem(422, "unknown_variant");
    app.submit(&table, &token, json!({"kind": "play", "seat": 2, "card": "1X"}))
        .await
        .assert_problem(422, "unknown_card");
    app.submit(&table, &token, json!({"kind": "nominate", "seat": 1}))
        .await
        .assert_problem(422, "invalid_body");
    app.send(
        Method::POST,
        &path,
        Some(&token),
        Some("[]".into()),
        &[("content-type", "text/plain")],
    )
    .await
    .assert_problem(415, "unsupported_media_type");

    assert_eq!(app.snapshot(&table).await, before);
}

#[sqlx::test(migrations = "./migrations")]
async fn playing_a_card_twice_or_out_of_turn_is_refused_and_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = table_mid_deal(&app).await;
    accept(
        &app,
        &table,
        &token,
        json!({"kind": "nominate", "seat": 1, "tricks": 1}),
    )
    .await;
    accept(&app, &table, &token, json!({"kind": "play", "seat": 2, "card": "AS"})).await;
    let before = app.snapshot(&table).await;

    app.submit(&table, &token, json!({"kind": "play", "seat": 3, "card": "AS"}))
        .await
        .assert_problem(422, "card_already_played");
    app.submit(&table, &token, json!({"kind": "play", "seat": 0, "card": "KS"}))
        .await
        .assert_problem(422, "not_your_turn");
    app.submit(&table, &token, json!({"kind": "play", "seat": 9, "card": "KS"}))
        .await
        .assert_problem(422, "no_such_seat");
    app.submit(&table, &token, json!({"kind": "nominate", "seat": 3, "tricks": 1}))
        .await
        .assert_problem(422, "move_not_expected");
    assert_eq!(app.snapshot(&table).await, before);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_result_that_does_not_add_up_is_refused_and_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = four_player_table(&app, json!({"hand_sizes": [5]})).await;
    let before = app.snapshot(&table).await;
    let result =
        |nominations: Value, tricks: Value| json!({"kind": "result", "nominations": nominations, "tricks": tricks});
    app.submit(&table, &token, result(json!([1, 1, 1, 1]), json!([1, 1, 1, 1])))
        .await
        .assert_problem(422, "tricks_do_not_add_up");
    app.submit(&table, &token, result(json!([2, 1, 1, 1]), json!([2, 1, 1, 1])))
        .await
        .assert_problem(422, "hook_rule");
    app.submit(&table, &token, result(json!([1, 1, 1]), json!([2, 1, 2])))
        .await
        .assert_problem(422, "wrong_number_of_entries");
    app.submit(&table, &token, result(json!([6, 1, 1, 1]), json!([2, 1, 1, 1])))
        .await
        .assert_problem(422, "nomination_out_of_range");
    assert_eq!(app.snapshot(&table).await, before);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_move_after_the_game_ended_is_refused_and_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = four_player_table(&app, json!({"hand_sizes": [1]})).await;
    let done = accept(
        &app,
        &table,
        &token,
        json!({"kind": "result", "nominations": [0, 1, 0, 1], "tricks": [0, 1, 0, 0]}),
    )
    .await;
    assert_eq!(done["table"]["finished"], true);
    assert_eq!(done["table"]["state"]["winners"], json!([1]));
    let before = app.snapshot(&table).await;
    app.submit(&table, &token, json!({"kind": "nominate", "seat": 1, "tricks": 0}))
        .await
        .assert_problem(409, "game_finished");
    app.submit(
        &table,
        &token,
        json!({"kind": "result", "nominations": [0, 1, 0, 1], "tricks": [0, 1, 0, 0]}),
    )
    .await
    .assert_problem(409, "game_finished");
    assert_eq!(app.snapshot(&table).await, before);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_stale_version_is_a_conflict_and_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = four_player_table(&app, json!({})).await;
    let path = format!("/api/v1/tables/{table}/moves");
    let first = app
        .post(
            &path,
            &token,
            json!({"move": {"kind": "nominate", "seat": 1, "tricks": 0}, "expected_version": 0}),
        )
        .await;
    first.assert_status(201);
    let before = app.snapshot(&table).await;
    // A second phone that also saw version 0.
    let stale = app
        .post(
            &path,
            &token,
            json!({"move": {"kind": "nominate", "seat": 2, "tricks": 0}, "expected_version": 0}),
        )
        .await;
    stale.assert_problem(409, "version_conflict");
    assert_eq!(app.snapshot(&table).await, before);
    let fresh = app
        .post(
            &path,
            &token,
            json!({"move": {"kind": "nominate", "seat": 2, "tricks": 0}, "expected_version": 1}),
        )
        .await;
    fresh.assert_status(201);
}

#[sqlx::test(migrations = "./migrations")]
async fn racing_phones_get_one_success_and_one_conflict(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = four_player_table(&app, json!({})).await;
    let path = format!("/api/v1/tables/{table}/moves");
    let body = |tricks: u8| json!({"move": {"kind": "nominate", "seat": 1, "tricks": tricks}, "expected_version": 0});
    let (a, b) = tokio::join!(app.post(&path, &token, body(0)), app.post(&path, &token, body(1)));
    let mut statuses = [a.status.as_u16(), b.status.as_u16()];
    statuses.sort_unstable();
    assert_eq!(statuses, [201, 409]);
    assert_eq!(app.log(&table).await.as_array().expect("log").len(), 1);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_retry_with_the_same_idempotency_key_returns_the_first_answer(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = four_player_table(&app, json!({})).await;
    let path = format!("/api/v1/tables/{table}/moves");
    let body = r#"{"move": {"kind": "nominate", "seat": 1, "tricks": 0}, "expected_version": 0}"#;
    let reordered = r#"{"expected_version": 0, "move": {"tricks": 0, "seat": 1, "kind": "nominate"}}"#;
    let key = [("Idempotency-Key", "phone-1-move-1")];
    let first = app
        .send(Method::POST, &path, Some(&token), Some(body.into()), &key)
        .await;
    first.assert_status(201);
    let retry = app
        .send(Method::POST, &path, Some(&token), Some(reordered.into()), &key)
        .await;
    retry.assert_status(201);
    // The kept answer is the text sent the first time, not a re-rendering of it.
    assert_eq!(retry.text, first.text);
    assert_eq!(retry.headers["idempotent-replayed"], "true");
    assert_eq!(app.log(&table).await.as_array().expect("log").len(), 1);

    let before = app.snapshot(&table).await;
    let other = r#"{"move": {"kind": "nominate", "seat": 2, "tricks": 0}}"#;
    app.send(Method::POST, &path, Some(&token), Some(other.into()), &key)
        .await
        .assert_problem(422, "idempotency_key_reused");
    assert_eq!(app.snapshot(&table).await, before);
}

#[sqlx::test(migrations = "./migrations")]
async fn undo_voids_the_latest_move_and_the_log_keeps_both(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = four_player_table(&app, json!({"hand_sizes": [1, 2]})).await;
    let result = json!({"kind": "result", "nominations": [0, 1, 0, 1], "tricks": [0, 1, 0, 0]});
    let after_deal_1 = accept(&app, &table, &token, result).await["table"]["state"].clone();
    accept(
        &app,
        &table,
        &token,
        json!({"kind": "nominate", "seat": 2, "tricks": 1}),
    )
    .await;

    let undo = app
        .post(
            &format!("/api/v1/tables/{table}/undo"),
            &token,
            json!({"expected_version": 2}),
        )
        .await;
    let undo = undo.assert_status(200).clone();
    assert_eq!(undo["void"]["entry"], "void");
    assert_eq!(undo["void"]["voids"], 2);
    assert_eq!(undo["undone"]["voided_by"], 3);
    assert_eq!(undo["table"]["version"], 3);
    assert_eq!(undo["table"]["state"], after_deal_1);

    // Undo again, across the deal boundary, back to the empty table.
    let undo = app
        .post(&format!("/api/v1/tables/{table}/undo"), &token, json!({}))
        .await;
    let state = &undo.assert_status(200)["table"]["state"];
    assert_eq!(state["deal"], 1);
    assert_eq!(state["totals"], json!([0, 0, 0, 0]));
    let scores = app.scores(&table).await;
    assert_eq!(scores["sheet"]["deals"], json!([]));

    let log = app.log(&table).await;
    let entries: Vec<(&str, Option<i64>)> = log
        .as_array()
        .expect("log")
        .iter()
        .map(|e| (e["entry"].as_str().expect("entry"), e["voids"].as_i64()))
        .collect();
    assert_eq!(
        entries,
        [("move", None), ("move", None), ("void", Some(2)), ("void", Some(1))]
    );

    let before = app.snapshot(&table).await;
    app.post(&format!("/api/v1/tables/{table}/undo"), &token, json!({}))
        .await
        .assert_problem(409, "nothing_to_undo");
    app.post(
        &format!("/api/v1/tables/{table}/undo"),
        &token,
        json!({"expected_version": 1}),
    )
    .await
    .assert_problem(409, "version_conflict");
    let undo_path = format!("/api/v1/tables/{table}/undo");
    let oops = Some("{oops".to_owned());
    app.send(Method::POST, &undo_path, Some(&token), oops, &[])
        .await
        .assert_problem(400, "malformed_json");
    app.post(&undo_path, &token, json!({"steps": 2}))
        .await
        .assert_problem(422, "unknown_field");
    assert_eq!(app.snapshot(&table).await, before);

    // Recording goes on after an undo.
    accept(
        &app,
        &table,
        &token,
        json!({"kind": "nominate", "seat": 1, "tricks": 1}),
    )
    .await;
}

#[sqlx::test(migrations = "./migrations")]
async fn the_log_is_paginated(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = four_player_table(&app, json!({})).await;
    for (seat, tricks) in [(1, 0), (2, 0), (3, 0)] {
        accept(
            &app,
            &table,
            &token,
            json!({"kind": "nominate", "seat": seat, "tricks": tricks}),
        )
        .await;
    }
    let page = app
        .get(&format!("/api/v1/tables/{table}/moves?limit=2"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(page["items"].as_array().expect("items").len(), 2);
    assert_eq!(page["next_after"], 2);
    let rest = app
        .get(&format!("/api/v1/tables/{table}/moves?after=2&limit=2"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(rest["items"][0]["seq"], 3);
    assert_eq!(rest["next_after"], Value::Null);
    app.get(&format!("/api/v1/tables/{table}/moves?limit=0"))
        .await
        .assert_problem(400, "invalid_query");
    app.get(&format!("/api/v1/tables/{table}/moves?limit=ten"))
        .await
        .assert_problem(400, "invalid_query");
}

#[sqlx::test(migrations = "./migrations")]
async fn an_audit_finds_a_tampered_snapshot_and_tampered_events(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = four_player_table(&app, json!({"hand_sizes": [1, 2]})).await;
    accept(
        &app,
        &table,
        &token,
        json!({"kind": "result", "nominations": [0, 1, 0, 1], "tricks": [0, 1, 0, 0]}),
    )
    .await;
    accept(
        &app,
        &table,
        &token,
        json!({"kind": "nominate", "seat": 2, "tricks": 0}),
    )
    .await;
    let id: uuid::Uuid = table.parse().expect("uuid");
    assert_audit_consistent(&app, &table).await;

    sqlx::query(
        // The set-up's snapshot: the latest, two moves in.
        "update snapshots set state = jsonb_set(state, '{totals}', '[99, 0, 0, 0]') where table_id = $1 and seq = 0",
    )
    .bind(id)
    .execute(&app.pool)
    .await
    .expect("tamper with the snapshot");
    let audit = app
        .get(&format!("/api/v1/tables/{table}/audit"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(audit["consistent"], false);
    assert_eq!(audit["state_matches"], false);
    assert_eq!(audit["events_match"], true);
    assert_audits_alike(&app.pool, &table).await;

    // The application's role cannot edit the log; its owner (here the superuser) can.
    sqlx::query("update moves set events = '[]' where table_id = $1 and seq = 2")
        .bind(id)
        .execute(&app.pool)
        .await
        .expect("tamper with the events");
    let audit = app
        .get(&format!("/api/v1/tables/{table}/audit"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(audit["events_match"], false);
    assert!(audit["problems"].as_array().expect("problems").len() >= 2);
    assert_audits_alike(&app.pool, &table).await;
}
