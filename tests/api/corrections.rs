//! Correcting a finished deal (issue #13): the log keeps the original and appends the
//! correction, later deals are replayed, changed bookings are reversed and booked anew, a
//! correction can be undone, and every bad correction is refused and changes nothing.

use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{accept, assert_audit_consistent, balance, spawn_app, TestApp};

fn draw(player: u8) -> Value {
    json!({"kind": "result", "player": player, "contract": {"contract": "play", "trumps": "hearts"},
           "honours": 0, "tricks": [3, 3, 3]})
}

fn cat_wins() -> Value {
    json!({"kind": "result", "player": 2, "contract": {"contract": "play_diamonds"},
           "honours": 2, "tricks": [2, 2, 5]})
}

async fn tridge(app: &TestApp, token: &str) -> String {
    app.game_table(token, "tridge", &["Ann", "Bob", "Cat"], json!({})).await
}

pub(crate) async fn correct(app: &TestApp, table: &str, token: &str, deal: u16, body: Value) -> crate::helpers::Answer {
    app.request(
        reqwest::Method::PUT,
        &format!("/api/v1/tables/{table}/deals/{deal}"),
        Some(token),
        Some(body),
    )
    .await
}

async fn version(app: &TestApp, table: &str) -> i64 {
    app.state(table).await["version"].as_i64().expect("version")
}

/// Everything a client reads about a table's chips and scores, without its log.
async fn outcome(app: &TestApp, table: &str) -> (Value, Value, Value) {
    let state = app.state(table).await["state"].clone();
    let scores = app.scores(table).await["sheet"].clone();
    // An account that moved and came back to nothing reads as none at all.
    let balances: Vec<Value> = app.ledger(table).await["balances"]
        .as_array()
        .expect("balances")
        .iter()
        .filter(|b| b["balance"] != 0)
        .cloned()
        .collect();
    (state, scores, Value::Array(balances))
}

#[sqlx::test(migrations = "./migrations")]
async fn correcting_deal_one_of_three_gives_the_table_as_if_it_had_been_recorded_right(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    // What the table should have been: Cat won deal 1, then two draws.
    let right = tridge(&app, &token).await;
    for mv in [cat_wins(), draw(0), draw(1)] {
        accept(&app, &right, &token, mv).await;
    }
    // What was recorded: three draws.
    let table = tridge(&app, &token).await;
    for mv in [draw(1), draw(0), draw(1)] {
        accept(&app, &table, &token, mv).await;
    }
    let wrong = outcome(&app, &table).await;
    let bookings_before = app.ledger(&table).await["bookings"].clone();
    let deal = app
        .get(&format!("/api/v1/tables/{table}/deals/1"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(deal["moves"].as_array().expect("moves").len(), 1);
    assert_eq!(deal["moves"][0]["move"]["player"], 1);
    assert_eq!(deal["status"], "unverified");
    assert_eq!(deal["finished"], true);

    let corrected = correct(
        &app,
        &table,
        &token,
        1,
        json!({"moves": [cat_wins()], "expected_version": 3, "reason": "Cat won that one"}),
    )
    .await
    .assert_status(200)
    .clone();
    assert_eq!(corrected["version"], 5);
    assert_eq!(corrected["moves"][0]["move"]["player"], 2);
    assert_eq!(corrected["moves"][0]["move"]["tricks"], json!([2, 2, 5]));
    assert_eq!(corrected["moves"][0]["part_of"], 5);
    assert_eq!(corrected["corrections"][0]["supersedes"], json!([1]));
    assert_eq!(corrected["corrections"][0]["reason"], "Cat won that one");
    assert_eq!(corrected["corrections"][0]["recorded_by_name"], "organiser");

    // The table is as if deal 1 had been recorded right; the later deals followed.
    assert_eq!(outcome(&app, &table).await, outcome(&app, &right).await);
    assert_ne!(outcome(&app, &table).await, wrong);
    // The log keeps the original and appends the correction.
    let log = app.log(&table).await;
    let entries: Vec<&str> = log
        .as_array()
        .expect("log")
        .iter()
        .map(|e| e["entry"].as_str().expect("entry"))
        .collect();
    assert_eq!(entries, ["move", "move", "move", "move", "correction"]);
    assert_eq!(log[0]["move"]["player"], 1);
    assert_eq!(log[0]["superseded_by"], 5);
    assert_eq!(log[3]["part_of"], 5);
    // Nothing in the ledger was edited: the bookings before are still there as they were,
    // and every new one balances.
    let ledger = app.ledger(&table).await;
    let bookings = ledger["bookings"].as_array().expect("bookings");
    assert_eq!(
        &bookings[..bookings_before.as_array().expect("before").len()],
        bookings_before.as_array().expect("before").as_slice()
    );
    assert!(bookings.iter().any(|b| !b["reverses"].is_null()));
    assert_eq!(ledger["total"], 0);
    assert_audit_consistent(&app, &table).await;

    // Recording goes on after the correction.
    accept(&app, &table, &token, draw(2)).await;
    accept(&app, &right, &token, draw(2)).await;
    assert_eq!(outcome(&app, &table).await, outcome(&app, &right).await);
    assert_audit_consistent(&app, &table).await;

    // Undo takes back the deal after it, then the whole correction.
    let undo = |v: i64| json!({"expected_version": v});
    let v = version(&app, &table).await;
    app.post(&format!("/api/v1/tables/{table}/undo"), &token, undo(v))
        .await
        .assert_status(200);
    let undone = app
        .post(&format!("/api/v1/tables/{table}/undo"), &token, undo(v + 1))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(undone["undone"]["entry"], "correction");
    assert_eq!(outcome(&app, &table).await, wrong);
    assert_audit_consistent(&app, &table).await;
    let deal = app
        .get(&format!("/api/v1/tables/{table}/deals/1"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(deal["moves"][0]["move"]["player"], 1);
    assert_eq!(deal["corrections"][0]["voided_by"], v + 2);
    // And recording goes on from there too.
    accept(&app, &table, &token, draw(2)).await;
    assert_audit_consistent(&app, &table).await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_deal_corrected_twice_and_a_later_deal_corrected_stay_consistent(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let right = tridge(&app, &token).await;
    for mv in [draw(0), cat_wins(), draw(1)] {
        accept(&app, &right, &token, mv).await;
    }
    let table = tridge(&app, &token).await;
    for mv in [draw(1), draw(0), draw(1)] {
        accept(&app, &table, &token, mv).await;
    }
    let body = |mv: Value, v: i64| json!({"moves": [mv], "expected_version": v, "reason": "slip"});
    correct(&app, &table, &token, 2, body(cat_wins(), 3))
        .await
        .assert_status(200);
    correct(&app, &table, &token, 1, body(draw(2), 5))
        .await
        .assert_status(200);
    correct(&app, &table, &token, 1, body(draw(0), 7))
        .await
        .assert_status(200);
    assert_eq!(outcome(&app, &table).await, outcome(&app, &right).await);
    assert_audit_consistent(&app, &table).await;
    let deal = app
        .get(&format!("/api/v1/tables/{table}/deals/1"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(deal["corrections"].as_array().expect("corrections").len(), 2);
    assert_eq!(deal["moves"][0]["move"]["player"], 0);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_correction_a_later_deal_no_longer_fits_is_refused_whole(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let table = tridge(&app, &token).await;
    // Every failed No Tricks doubles the Widow's Fund, until it would overflow: with deal 1 a
    // draw, the last loss recorded is the last that fits.
    let lost = json!({"kind": "result", "player": 1, "contract": {"contract": "no_tricks", "trumps": "clubs"},
                      "honours": 0, "tricks": [4, 1, 4]});
    accept(&app, &table, &token, draw(1)).await;
    while app.submit(&table, &token, lost.clone()).await.status == 201 {}
    let v = version(&app, &table).await;
    let before = app.snapshot(&table).await;
    let ledger = app.ledger(&table).await;

    let answer = correct(
        &app,
        &table,
        &token,
        1,
        json!({"moves": [lost], "expected_version": v, "reason": "Bob lost that one too"}),
    )
    .await;
    answer.assert_problem(409, "correction_conflicts");
    // A dry run of the same moves says so before the correction is sent.
    preview(&app, &table, Some(&token), 1, json!([lost]))
        .await
        .assert_problem(409, "correction_conflicts");
    assert!(
        answer.body["detail"]
            .as_str()
            .expect("detail")
            .contains(&format!("move {v}")),
        "{}",
        answer.body
    );
    assert_eq!(app.snapshot(&table).await, before);
    assert_eq!(app.ledger(&table).await, ledger);
}

#[sqlx::test(migrations = "./migrations")]
async fn every_bad_correction_is_refused_and_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let table = tridge(&app, &token).await;
    accept(&app, &table, &token, draw(1)).await;
    accept(&app, &table, &token, draw(0)).await;
    // Deal 3 is being recorded card by card.
    let seat = app.state(&table).await["state"]["to_act"].clone();
    accept(
        &app,
        &table,
        &token,
        json!({"kind": "bid", "seat": seat, "bid": "play"}),
    )
    .await;
    let before = app.snapshot(&table).await;
    let ledger = app.ledger(&table).await;
    let good = |v: i64| json!({"moves": [cat_wins()], "expected_version": v, "reason": "slip"});

    // A move that breaks a rule answers with the rule's code, as it would when recorded.
    let short = json!({"kind": "result", "player": 1, "contract": {"contract": "play", "trumps": "hearts"},
                       "honours": 0, "tricks": [3, 3, 2]});
    let fresh = tridge(&app, &token).await;
    let refused = app.submit(&fresh, &token, short.clone()).await;
    assert_eq!(refused.status.as_u16(), 422, "{}", refused.body);
    let code = refused.body["code"].as_str().expect("code").to_owned();
    let cases: Vec<(u16, Value, u16, &str)> = vec![
        (3, good(3), 409, "deal_not_finished"),
        (4, good(3), 404, "deal_not_found"),
        (0, good(3), 404, "deal_not_found"),
        (1, good(2), 409, "version_conflict"),
        (
            1,
            json!({"moves": [short], "expected_version": 3, "reason": "slip"}),
            422,
            &code,
        ),
        (
            1,
            json!({"moves": [cat_wins(), draw(0)], "expected_version": 3, "reason": "slip"}),
            422,
            "not_the_deal",
        ),
        (
            1,
            json!({"moves": [], "expected_version": 3, "reason": "slip"}),
            422,
            "not_the_deal",
        ),
        (
            1,
            json!({"moves": [{"kind": "bid", "seat": 1, "bid": "play"}], "expected_version": 3, "reason": "slip"}),
            422,
            "not_the_deal",
        ),
        (
            1,
            json!({"moves": [{"kind": "fly"}], "expected_version": 3, "reason": "slip"}),
            422,
            "unknown_variant",
        ),
        (
            1,
            json!({"moves": [cat_wins()], "expected_version": 3, "reason": " "}),
            422,
            "invalid_text",
        ),
        (
            1,
            json!({"moves": [cat_wins()], "expected_version": 3}),
            422,
            "unknown_field",
        ),
    ];
    for (deal, body, status, code) in cases {
        let answer = correct(&app, &table, &token, deal, body.clone()).await;
        if code == "unknown_field" {
            // A missing field is reported as a bad body by the JSON extractor.
            assert_eq!(answer.status.as_u16(), 422, "{body}: {}", answer.body);
        } else {
            answer.assert_problem(status, code);
        }
        assert_eq!(app.snapshot(&table).await, before, "{body}");
        assert_eq!(app.ledger(&table).await, ledger, "{body}");
    }
    // Another table's scorer, and nobody at all.
    let other = tridge(&app, &token).await;
    let (stranger, _) = crate::scorers::scorer(&app, &token, &other, "Eve's phone").await;
    correct(&app, &table, &stranger, 1, good(3))
        .await
        .assert_problem(404, "table_not_found");
    app.request(
        reqwest::Method::PUT,
        &format!("/api/v1/tables/{table}/deals/1"),
        None,
        Some(good(3)),
    )
    .await
    .assert_problem(401, "missing_token");
    assert_eq!(app.snapshot(&table).await, before);
    assert_eq!(balance(&app.ledger(&table).await, "bank"), balance(&ledger, "bank"));
}

#[sqlx::test(migrations = "./migrations")]
async fn a_deal_of_which_nothing_is_recorded_is_not_found(pool: PgPool) {
    // Arrange: a fresh table, and one with deal 1 recorded.
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let fresh = tridge(&app, &token).await;
    let played = tridge(&app, &token).await;
    accept(&app, &played, &token, cat_wins()).await;
    let before = (app.snapshot(&fresh).await, app.snapshot(&played).await);

    // Act and assert: no deal on a fresh table (not "still being recorded"); beyond the last
    // deal, the next one included while nothing of it is recorded, and before the first.
    for (table, deal) in [(&fresh, 1), (&fresh, 2), (&played, 2), (&played, 9), (&played, 0)] {
        app.get(&format!("/api/v1/tables/{table}/deals/{deal}"))
            .await
            .assert_problem(404, "deal_not_found");
    }
    let first = app
        .get(&format!("/api/v1/tables/{played}/deals/1"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(first["deal"], 1);
    assert_eq!(
        (app.snapshot(&fresh).await, app.snapshot(&played).await),
        before,
        "reads change nothing"
    );
}

async fn preview(app: &TestApp, table: &str, token: Option<&str>, deal: u16, moves: Value) -> crate::helpers::Answer {
    app.request(
        reqwest::Method::POST,
        &format!("/api/v1/tables/{table}/deals/{deal}/preview"),
        token,
        Some(json!({"moves": moves})),
    )
    .await
}

/// Deal 1 of a one-card Nomination Whist deal as it should have been recorded: Bob, Cat, Dan and
/// Ann nominate, Bob leads ♠2, Cat's ♠A (spades are trumps) takes the trick.
fn whist_deal_1() -> Vec<Value> {
    vec![
        json!({"kind": "nominate", "seat": 1, "tricks": 0}),
        json!({"kind": "nominate", "seat": 2, "tricks": 1}),
        json!({"kind": "nominate", "seat": 3, "tricks": 0}),
        json!({"kind": "nominate", "seat": 0, "tricks": 1}),
        json!({"kind": "play", "seat": 1, "card": "2S"}),
        json!({"kind": "play", "seat": 2, "card": "AS"}),
        json!({"kind": "play", "seat": 3, "card": "3H"}),
        json!({"kind": "play", "seat": 0, "card": "4D"}),
    ]
}

#[sqlx::test(migrations = "./migrations")]
async fn a_correction_entered_card_by_card_is_previewed_move_by_move_and_nothing_is_stored(pool: PgPool) {
    // Arrange: three one-card deals recorded as results (Ann took deal 1's trick), deal 4 begun.
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let table = app
        .table(
            &token,
            &["Ann", "Bob", "Cat", "Dan"],
            json!({"hand_sizes": [1, 1, 1, 1]}),
        )
        .await;
    for tricks in [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]] {
        accept(
            &app,
            &table,
            &token,
            json!({"kind": "result", "nominations": [1, 0, 0, 1], "tricks": tricks}),
        )
        .await;
    }
    let (scorer, _) = crate::scorers::scorer(&app, &token, &table, "Bob's phone").await;
    let before = app.snapshot(&table).await;
    let ledger = app.ledger(&table).await;
    let moves = whist_deal_1();

    // Act and assert: the deal's start, then each move's state, whose turn and what is legal.
    let start = preview(&app, &table, Some(&scorer), 1, json!([])).await;
    let start = start.assert_status(200);
    assert_eq!(start["complete"], false);
    assert_eq!(start["deal"], 1);
    assert_eq!(start["version"], 3);
    assert_eq!(start["state"]["deal"], 1);
    assert_eq!(start["state"]["to_act"], 1, "{start}");
    assert!(
        start["state"]["legal_moves"]
            .as_array()
            .expect("legal moves")
            .iter()
            .any(|m| m["kind"] == "nominate" && m["seat"] == 1),
        "{start}"
    );
    let half = preview(&app, &table, Some(&scorer), 1, json!(moves[..5])).await;
    let half = half.assert_status(200);
    assert_eq!(half["complete"], false);
    assert_eq!(half["state"]["to_act"], 2, "Cat plays after Bob's lead: {half}");
    assert_eq!(half["state"]["current_trick"]["plays"][0]["card"], "2S", "{half}");
    assert_eq!(half["events"].as_array().expect("events").len(), 5);
    let playable = half["state"]["legal_moves"]
        .as_array()
        .expect("legal moves")
        .iter()
        .find(|m| m["kind"] == "play")
        .expect("a play is legal")["cards"]
        .clone();
    assert!(
        !playable.as_array().expect("cards").contains(&json!("2S")),
        "{playable}"
    );
    let whole = preview(&app, &table, Some(&token), 1, json!(moves)).await;
    let whole = whole.assert_status(200).clone();
    assert_eq!(whole["complete"], true, "{whole}");
    assert_eq!(whole["lines"][0]["tricks"], json!([0, 0, 1, 0]), "{whole}");
    assert!(
        whole["events"][7]
            .as_array()
            .expect("events")
            .iter()
            .any(|e| e["event"] == "trick_won" && e["winner"] == 2),
        "{whole}"
    );

    // Bad moves are refused as the correction would refuse them.
    let mut out_of_turn = moves[..1].to_vec();
    out_of_turn[0]["seat"] = json!(2);
    let mut twice = moves[..6].to_vec();
    twice[5]["card"] = json!("2S");
    let mut beyond = moves.clone();
    beyond.push(json!({"kind": "nominate", "seat": 2, "tricks": 0}));
    let cases: Vec<(u16, Value, u16, &str)> = vec![
        (1, json!(out_of_turn), 422, "not_your_turn"),
        (1, json!(twice), 422, "card_already_played"),
        (1, json!(beyond), 422, "not_the_deal"),
        (1, json!([{"kind": "fly"}]), 422, "unknown_variant"),
        (4, json!([]), 404, "deal_not_found"),
        (0, json!([]), 404, "deal_not_found"),
    ];
    for (deal, moves, status, code) in cases {
        preview(&app, &table, Some(&scorer), deal, moves.clone())
            .await
            .assert_problem(status, code);
    }
    app.request(
        reqwest::Method::POST,
        &format!("/api/v1/tables/{table}/deals/1/preview"),
        Some(&token),
        Some(json!({"moves": [], "expected_version": 3})),
    )
    .await
    .assert_problem(422, "unknown_field");
    // Nobody, and another table's scorer, may not ask.
    preview(&app, &table, None, 1, json!([]))
        .await
        .assert_problem(401, "missing_token");
    let other = app.table(&token, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let (stranger, _) = crate::scorers::scorer(&app, &token, &other, "Eve's phone").await;
    preview(&app, &table, Some(&stranger), 1, json!([]))
        .await
        .assert_problem(404, "table_not_found");
    // Nothing was stored by any of it.
    assert_eq!(app.snapshot(&table).await, before);
    assert_eq!(app.ledger(&table).await, ledger);

    // The deal being recorded is undone, not corrected.
    accept(
        &app,
        &table,
        &token,
        json!({"kind": "nominate", "seat": 0, "tricks": 0}),
    )
    .await;
    preview(&app, &table, Some(&scorer), 4, json!([]))
        .await
        .assert_problem(409, "deal_not_finished");

    // The moves previewed whole are a correction the table takes, with the previewed line.
    let corrected = correct(
        &app,
        &table,
        &scorer,
        1,
        json!({"moves": moves, "expected_version": 4, "reason": "Cat took the trick"}),
    )
    .await;
    assert_eq!(corrected.assert_status(200)["lines"], whole["lines"]);
    assert_audit_consistent(&app, &table).await;
}
