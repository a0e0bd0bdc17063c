//! A director's rulings on finished deals (issue #42): every kind on a points game (Nomination
//! Whist) and a chip game (Tridge), each diff worked out by hand; the phones' answers; and every
//! bad ruling or answer refused with nothing changed.

use chrono::Duration;
use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{accept, assert_audit_consistent, balance, spawn_app, verified_bundle, TestApp};
use crate::scorers::scorer;

/// A Nomination Whist deal of one card, by its result.
fn whist(nominations: [u8; 4], tricks: [u8; 4]) -> Value {
    json!({"kind": "result", "nominations": nominations, "tricks": tricks})
}

fn draw(player: u8) -> Value {
    json!({"kind": "result", "player": player, "contract": {"contract": "play", "trumps": "hearts"},
           "honours": 0, "tricks": [3, 3, 3]})
}

fn cat_wins() -> Value {
    json!({"kind": "result", "player": 2, "contract": {"contract": "play_diamonds"},
           "honours": 2, "tricks": [2, 2, 5]})
}

/// A table of `game` in `session`.
async fn table(app: &TestApp, token: &str, session: &str, game: &str, players: &[&str], options: Value) -> String {
    let body = json!({"game": game, "players": players, "options": options, "session_id": session});
    app.post("/api/v1/tables", token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned()
}

async fn rule(app: &TestApp, token: &str, table: &str, deal: u16, body: Value) -> crate::helpers::Answer {
    app.post(&format!("/api/v1/tables/{table}/deals/{deal}/rulings"), token, body)
        .await
}

/// Each seat's `[score_before, score_after, chips_before, chips_after]` in a ruling's diff.
fn seats(ruling: &Value) -> Vec<[i64; 4]> {
    ruling["diff"]["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|s| {
            let n = |k: &str| s[k].as_i64().expect("number");
            [n("score_before"), n("score_after"), n("chips_before"), n("chips_after")]
        })
        .collect()
}

/// The accounts a ruling's diff says moved, as `(account, before, after)`.
fn accounts(ruling: &Value) -> Vec<(String, i64, i64)> {
    ruling["diff"]["accounts"]
        .as_array()
        .expect("accounts")
        .iter()
        .map(|a| {
            (
                a["account"].as_str().expect("account").to_owned(),
                a["before"].as_i64().expect("before"),
                a["after"].as_i64().expect("after"),
            )
        })
        .collect()
}

/// A player's standing in a diff: `(player, chips before, after, points before, after)`.
type Moved = (String, i64, i64, Option<i64>, Option<i64>);

/// The standings a ruling's diff says moved.
fn standings(ruling: &Value) -> Vec<Moved> {
    ruling["diff"]["standings"]
        .as_array()
        .expect("standings")
        .iter()
        .map(|p| {
            (
                p["player"].as_str().expect("player").to_owned(),
                p["chips_before"].as_i64().expect("chips"),
                p["chips_after"].as_i64().expect("chips"),
                p["points_before"].as_i64(),
                p["points_after"].as_i64(),
            )
        })
        .collect()
}

fn later_deals(ruling: &Value) -> Vec<i64> {
    ruling["diff"]["later_deals"]
        .as_array()
        .expect("later deals")
        .iter()
        .map(|d| d["deal"].as_i64().expect("deal"))
        .collect()
}

/// What a refused write could have changed: the table's log, its ledger, its score sheet.
async fn footprint(app: &TestApp, table: &str) -> (Value, Value, Value) {
    (app.log(table).await, app.ledger(table).await, app.scores(table).await)
}

#[sqlx::test(migrations = "./migrations")]
async fn every_kind_of_ruling_on_a_points_game_moves_the_scores_as_worked_out_by_hand(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Thursday").await;
    let t = table(
        &app,
        &token,
        &session,
        "nomination-whist",
        &["Ann", "Bob", "Cat", "Dan"],
        json!({"hand_sizes": [1, 1, 1]}),
    )
    .await;
    // 1 a trick, 10 more for a nomination met:
    // deal 1: [10, 11, 10, 10], totals [10, 11, 10, 10]
    // deal 2: Ann nominated 1 and lost, Bob won an unbid trick: [0, 1, 10, 10], totals [10, 12, 20, 20]
    // deal 3: [10, 10, 11, 10], totals [20, 22, 31, 30]
    accept(&app, &t, &token, whist([0, 1, 0, 0], [0, 1, 0, 0])).await;
    accept(&app, &t, &token, whist([1, 0, 0, 0], [0, 1, 0, 0])).await;
    accept(&app, &t, &token, whist([0, 0, 1, 0], [0, 0, 1, 0])).await;
    let totals = |sheet: &Value| sheet["sheet"]["totals"].clone();
    assert_eq!(totals(&app.scores(&t).await), json!([20, 22, 31, 30]));
    let club = app.get(&format!("/api/v1/sessions/{session}")).await.assert_status(200)["club_id"]
        .as_str()
        .expect("club")
        .to_owned();
    app.post(
        &format!("/api/v1/clubs/{club}/webhooks"),
        &token,
        json!({"url": "https://club.example.org/hooks", "events": ["deal.ruled"]}),
    )
    .await
    .assert_status(201);
    let log_before = app.log(&t).await.as_array().expect("log").len();

    // Void deal 2: its points go, [0, -1, -10, -10].
    let void = rule(
        &app,
        &token,
        &t,
        2,
        json!({"kind": "void", "reason": "the board was fouled"}),
    )
    .await
    .assert_status(201)
    .clone();
    assert_eq!(void["kind"], "void");
    assert_eq!(void["reason"], "the board was fouled");
    assert_eq!(void["scores"], json!([0, -1, -10, -10]));
    assert_eq!(
        seats(&void),
        [[20, 20, 0, 0], [22, 21, 0, 0], [31, 21, 0, 0], [30, 20, 0, 0]]
    );
    assert!(accounts(&void).is_empty(), "a points game books nothing");
    assert_eq!(
        standings(&void),
        [
            ("Bob".to_owned(), 0, 0, Some(22), Some(21)),
            ("Cat".to_owned(), 0, 0, Some(31), Some(21)),
            ("Dan".to_owned(), 0, 0, Some(30), Some(20))
        ]
    );
    assert!(later_deals(&void).is_empty(), "a void changes no cards");
    assert!(void["booking"].is_null());
    assert!(void["receipt"]["signature"].is_string());

    // Average 60 for Bob on deal 1: 60 % of the deal's best (11) is 6.6, 7; Bob had 11.
    let average = rule(
        &app,
        &token,
        &t,
        1,
        json!({"kind": "average", "reason": "Bob was given the wrong hand", "seats": [1], "percent": 60}),
    )
    .await
    .assert_status(201)
    .clone();
    assert_eq!(average["scores"], json!([0, -4, 0, 0]));
    assert_eq!(
        seats(&average),
        [[20, 20, 0, 0], [21, 17, 0, 0], [21, 21, 0, 0], [20, 20, 0, 0]]
    );

    // Split deal 3: Ann 5, Cat 3 (they had 10 and 11); Bob and Dan keep theirs.
    let split = rule(
        &app,
        &token,
        &t,
        3,
        json!({"kind": "split", "reason": "a claim disputed", "results": [{"seat": 0, "result": 5}, {"seat": 2, "result": 3}]}),
    )
    .await
    .assert_status(201)
    .clone();
    assert_eq!(split["scores"], json!([-5, 0, -8, 0]));
    assert_eq!(
        seats(&split),
        [[20, 15, 0, 0], [17, 17, 0, 0], [21, 13, 0, 0], [20, 20, 0, 0]]
    );

    // Assigned on deal 1: Ann took Bob's trick. As played deal 1 becomes [1, 0, 10, 10]
    // (Ann -9, Bob -11), and the average given Bob on it is taken back (+4): Bob 17 - 11 + 4.
    // The later deals' lines carry running totals, so deals 2 and 3 moved.
    let assigned = rule(
        &app,
        &token,
        &t,
        1,
        json!({"kind": "assigned", "reason": "Ann's trick, on the director's reading",
               "moves": [whist([0, 1, 0, 0], [1, 0, 0, 0])]}),
    )
    .await
    .assert_status(201)
    .clone();
    assert_eq!(assigned["scores"], json!([0, 4, 0, 0]));
    assert_eq!(
        seats(&assigned),
        [[15, 6, 0, 0], [17, 10, 0, 0], [13, 13, 0, 0], [20, 20, 0, 0]]
    );
    assert_eq!(later_deals(&assigned), [2, 3]);
    assert_eq!(
        assigned["diff"]["later_deals"][0]["before"]["totals"],
        json!([10, 12, 20, 20])
    );
    assert_eq!(
        assigned["diff"]["later_deals"][0]["after"]["totals"],
        json!([1, 1, 20, 20])
    );
    let correction = assigned["correction"].as_i64().expect("its correction");

    // The score sheet is the deals as played (the assigned deal 1 as corrected); the rulings
    // are beside it, and the session's standings count them.
    let sheet = app.scores(&t).await;
    assert_eq!(totals(&sheet), json!([11, 11, 31, 30]));
    // The sheet's answer says what the rulings change, and the totals they make are the
    // standings' below.
    assert_eq!(sheet["rulings"]["adjustments"], json!([-5, -1, -18, -10]), "{sheet}");
    assert_eq!(sheet["rulings"]["totals"], json!([6, 10, 13, 20]));
    // So does the sheet as CSV: the deals as played, then a row of the rulings and the totals.
    let answer = app.get(&format!("/api/v1/tables/{t}/scores.csv")).await;
    answer.assert_status(200);
    let rows: Vec<Vec<&str>> = answer.text.lines().map(|l| l.split(',').collect()).collect();
    let (header, last) = (&rows[0], rows.last().expect("rows"));
    assert_eq!(rows.len(), 5, "a header, three deals and the rulings: {}", answer.text);
    assert_eq!(header.len(), last.len(), "{}", answer.text);
    assert_eq!(last[0], "rulings", "{}", answer.text);
    let at = header
        .iter()
        .position(|h| h.starts_with("rulings "))
        .expect("rulings columns");
    assert_eq!(
        &last[at..],
        ["-5", "-1", "-18", "-10", "6", "10", "13", "20"],
        "{}",
        answer.text
    );
    assert!(header[at + 4].starts_with("total with rulings "), "{header:?}");
    assert!(rows[1][at..].iter().all(|c| c.is_empty()), "{}", answer.text);
    let table_standings = app
        .get(&format!("/api/v1/sessions/{session}/standings"))
        .await
        .assert_status(200)
        .clone();
    let points: Vec<i64> = table_standings["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| p["points"][0]["points"].as_i64().expect("points"))
        .collect();
    assert_eq!(points, [6, 10, 13, 20]);
    // The log: the three deals, the three rulings, the correction's move and entry, its ruling.
    let log = app.log(&t).await;
    let entries: Vec<&str> = log
        .as_array()
        .expect("log")
        .iter()
        .map(|e| e["entry"].as_str().expect("entry"))
        .collect();
    assert_eq!(log_before, 3);
    assert_eq!(
        entries,
        [
            "move",
            "move",
            "move",
            "ruling",
            "ruling",
            "ruling",
            "move",
            "correction",
            "ruling"
        ]
    );
    assert_eq!(log[7]["seq"], correction);
    assert!(log[7]["move"]["reason"]
        .as_str()
        .expect("reason")
        .starts_with("ruling: "));

    // The deal lists its rulings; each reads back as answered.
    let deal = app
        .get(&format!("/api/v1/tables/{t}/deals/1"))
        .await
        .assert_status(200)
        .clone();
    let kinds: Vec<&str> = deal["rulings"]
        .as_array()
        .expect("rulings")
        .iter()
        .map(|r| r["kind"].as_str().expect("kind"))
        .collect();
    assert_eq!(kinds, ["average", "assigned"]);
    let id = void["id"].as_i64().expect("id");
    let one = app
        .get(&format!("/api/v1/tables/{t}/deals/2/rulings/{id}"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(one["diff"], void["diff"]);
    let listed = app
        .get(&format!("/api/v1/tables/{t}/deals/3/rulings"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(listed.as_array().expect("list").len(), 1);
    assert_eq!(
        listed[0]["results"],
        json!([{"seat": 0, "result": 5}, {"seat": 2, "result": 3}])
    );

    // A scorer's correction of a ruled deal is refused: the director rules again.
    let before = footprint(&app, &t).await;
    let version = app.state(&t).await["version"].as_i64().expect("version");
    app.request(
        reqwest::Method::PUT,
        &format!("/api/v1/tables/{t}/deals/2"),
        Some(&token),
        Some(json!({"moves": [whist([1, 0, 0, 0], [1, 0, 0, 0])], "expected_version": version, "reason": "slip"})),
    )
    .await
    .assert_problem(409, "deal_ruled");
    assert_eq!(footprint(&app, &t).await, before);

    // Each ruling told the club's webhook, with its deal.
    let told: Vec<String> = sqlx::query_scalar(
        "select body from webhook_deliveries where event_type = 'deal.ruled' order by created_at, id",
    )
    .fetch_all(&app.pool)
    .await
    .expect("deliveries");
    assert_eq!(told.len(), 4);
    let mut deals: Vec<i64> = told
        .iter()
        .map(|b| {
            serde_json::from_str::<Value>(b).expect("json")["data"]["deal"]
                .as_i64()
                .expect("deal")
        })
        .collect();
    deals.sort_unstable();
    assert_eq!(deals, [1, 1, 2, 3]);

    assert_audit_consistent(&app, &t).await;
    let (_, bundle) = verified_bundle(&app, &session).await;
    assert!(bundle.to_string().contains("Bob was given the wrong hand"));
}

#[sqlx::test(migrations = "./migrations")]
async fn every_kind_of_ruling_on_a_chip_game_books_what_was_worked_out_by_hand(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Thursday").await;
    let t = table(&app, &token, &session, "tridge", &["Ann", "Bob", "Cat"], json!({})).await;
    // Tridge: 500 chips each; deal 1 starts with 25 each in the Widow's Fund and 5 each in the
    // Game Fund. Deal 1: Cat wins the Game Fund (15) and 2 honours from each. The fund is
    // re-seeded for deal 2 (5 each); Ann draws and matches it (15); Bob draws deal 3 and
    // matches it (30). What each deal moved:
    //   deal 1: Ann -34, Bob -34, Cat -7, Widow's Fund +75
    //   deal 2: Ann -20, Bob -5, Cat -5, Game Fund +30
    //   deal 3: Bob -30, Game Fund +30
    for mv in [cat_wins(), draw(0), draw(1)] {
        accept(&app, &t, &token, mv).await;
    }
    let ledger = app.ledger(&t).await;
    assert_eq!(
        ["seat:0", "seat:1", "seat:2", "game_fund", "widows_fund"].map(|a| balance(&ledger, a)),
        [446, 431, 488, 60, 75]
    );

    // Void deal 3: Bob's 30 back from the Game Fund.
    let void = rule(
        &app,
        &token,
        &t,
        3,
        json!({"kind": "void", "reason": "cards exposed in the deal"}),
    )
    .await
    .assert_status(201)
    .clone();
    assert_eq!(
        seats(&void),
        [[446, 446, 446, 446], [431, 461, 431, 461], [488, 488, 488, 488]]
    );
    assert_eq!(
        accounts(&void),
        [("game_fund".to_owned(), 60, 30), ("seat:1".to_owned(), 431, 461)]
    );
    assert_eq!(void["booking"]["memo"], "ruling: void of deal 3");
    // Net of the 500 each was issued: Bob -69, now -39.
    assert_eq!(standings(&void), [("Bob".to_owned(), -69, -39, None, None)]);
    assert_eq!(void["booking"]["postings"], json!([["game_fund", -30], ["seat:1", 30]]));
    // A chip game's rulings are in its ledger: its score sheet has nothing beside the deals.
    let sheet = app.scores(&t).await;
    assert!(sheet.get("rulings").is_none(), "{sheet}");

    // Average for Ann on deal 1: she nets 0 (+34); the 34 she lost is shared by Bob and Cat.
    let average = rule(
        &app,
        &token,
        &t,
        1,
        json!({"kind": "average", "reason": "Ann was misinformed", "seats": [0]}),
    )
    .await
    .assert_status(201)
    .clone();
    assert_eq!(average["scores"], json!([34, -17, -17]));
    assert_eq!(
        seats(&average),
        [[446, 480, 446, 480], [461, 444, 461, 444], [488, 471, 488, 471]]
    );
    assert_eq!(
        accounts(&average),
        [
            ("seat:0".to_owned(), 446, 480),
            ("seat:1".to_owned(), 461, 444),
            ("seat:2".to_owned(), 488, 471)
        ]
    );

    // Split deal 2: Ann -10, Bob +4, Cat +6; the Game Fund's 30 from it go back.
    let split = rule(
        &app,
        &token,
        &t,
        2,
        json!({"kind": "split", "reason": "a lead out of turn",
               "results": [{"seat": 0, "result": -10}, {"seat": 1, "result": 4}, {"seat": 2, "result": 6}]}),
    )
    .await
    .assert_status(201)
    .clone();
    assert_eq!(split["scores"], json!([10, 9, 11]));
    assert_eq!(
        accounts(&split),
        [
            ("game_fund".to_owned(), 30, 0),
            ("seat:0".to_owned(), 480, 490),
            ("seat:1".to_owned(), 444, 453),
            ("seat:2".to_owned(), 471, 482)
        ]
    );

    // Assigned on deal 3: Cat drew, not Bob. The correction moves Bob's 30 to Cat; the void
    // of deal 3 is taken back (Bob -30, the Game Fund +30): Bob as he was, Cat 30 down, the
    // Game Fund holding Cat's 30.
    let assigned = rule(
        &app,
        &token,
        &t,
        3,
        json!({"kind": "assigned", "reason": "Cat was the player", "moves": [draw(2)]}),
    )
    .await
    .assert_status(201)
    .clone();
    assert_eq!(assigned["scores"], json!([0, -30, 0]));
    assert_eq!(
        seats(&assigned),
        [[490, 490, 490, 490], [453, 453, 453, 453], [482, 452, 482, 452]]
    );
    assert_eq!(
        accounts(&assigned),
        [("game_fund".to_owned(), 0, 30), ("seat:2".to_owned(), 482, 452)]
    );
    assert!(later_deals(&assigned).is_empty());

    // The ledger: appended to, never edited; every booking balances; the audit and the bundle
    // expect what the rulings booked.
    let ledger = app.ledger(&t).await;
    assert_eq!(ledger["total"], 0);
    assert_eq!(
        ["seat:0", "seat:1", "seat:2", "game_fund", "widows_fund"].map(|a| balance(&ledger, a)),
        [490, 453, 452, 30, 75]
    );
    for b in ledger["bookings"].as_array().expect("bookings") {
        let sum: i64 = b["postings"]
            .as_array()
            .expect("postings")
            .iter()
            .map(|p| p["amount"].as_i64().expect("amount"))
            .sum();
        assert_eq!(sum, 0, "{b}");
    }
    assert_audit_consistent(&app, &t).await;
    verified_bundle(&app, &session).await;

    // Recording goes on after the rulings.
    accept(&app, &t, &token, draw(0)).await;
    assert_audit_consistent(&app, &t).await;
    // The final checkpoint's chips, rulings' bookings included, are the bundle's.
    crate::helpers::finalised_and_verified(&app, &token, &session).await;

    // A ruling is in the table's chain: its reason changed after the fact is found, named.
    let id: uuid::Uuid = t.parse().expect("uuid");
    let seq = assigned["id"].as_i64().expect("id");
    sqlx::query(
        "update moves set body = replace(body::text, 'Cat was the player', 'Bob was the player')::json
         where table_id = $1 and seq = $2",
    )
    .bind(id)
    .bind(seq)
    .execute(&app.pool)
    .await
    .expect("tampered");
    let audit = app
        .get(&format!("/api/v1/tables/{t}/audit"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(audit["consistent"], false, "{audit}");
    assert!(audit.to_string().contains(&format!("log entry {seq}")), "{audit}");
}

#[sqlx::test(migrations = "./migrations")]
async fn the_tables_phones_agree_or_appeal_and_the_ruling_stands_either_way(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Thursday").await;
    let options = json!({"hand_sizes": [1, 1]});
    let players = ["Ann", "Bob", "Cat", "Dan"];
    let t = table(&app, &token, &session, "nomination-whist", &players, options.clone()).await;
    let other = table(&app, &token, &session, "nomination-whist", &players, options).await;
    accept(&app, &t, &token, whist([0, 1, 0, 0], [0, 1, 0, 0])).await;
    let (phone, _) = scorer(&app, &token, &t, "Bob's phone").await;
    let (stranger, _) = scorer(&app, &token, &other, "Next table").await;
    // Ruled once under an Idempotency-Key: the retry gets the first answer and rules nothing.
    let path = format!("/api/v1/tables/{t}/deals/1/rulings");
    let auth = format!("Bearer {token}");
    let headers = [("Authorization", auth.as_str()), ("Idempotency-Key", "ruling-1")];
    let body = json!({"kind": "void", "reason": "fouled"}).to_string();
    let ruled = app
        .send(reqwest::Method::POST, &path, None, Some(body.clone()), &headers)
        .await
        .assert_status(201)
        .clone();
    let id = ruled["id"].as_i64().expect("id");
    let log_length = app.log(&t).await.as_array().expect("log").len();
    let again = app.send(reqwest::Method::POST, &path, None, Some(body), &headers).await;
    assert_eq!(again.assert_status(201)["id"], id);
    assert_eq!(again.headers["idempotent-replayed"], "true");
    assert_eq!(again.headers["location"], format!("{path}/{id}").as_str());
    assert_eq!(app.log(&t).await.as_array().expect("log").len(), log_length);
    let answers = format!("/api/v1/tables/{t}/deals/1/rulings/{id}/answers");

    let appealed = app
        .post(
            &answers,
            &phone,
            json!({"answer": "appeal", "comment": "Dan had not seen the card"}),
        )
        .await
        .assert_status(201)
        .clone();
    assert_eq!(appealed["answers"][0]["answer"], "appeal");
    assert_eq!(appealed["answers"][0]["comment"], "Dan had not seen the card");
    assert_eq!(appealed["answers"][0]["recorded_by_name"], "Bob's phone");
    // The ruling stands.
    assert_eq!(appealed["diff"], ruled["diff"]);
    assert_eq!(appealed["scores"], ruled["scores"]);
    app.post(&answers, &token, json!({"answer": "agree"}))
        .await
        .assert_status(201);
    let read = app
        .get(&format!("/api/v1/tables/{t}/deals/1/rulings/{id}"))
        .await
        .assert_status(200)
        .clone();
    let said: Vec<&str> = read["answers"]
        .as_array()
        .expect("answers")
        .iter()
        .map(|a| a["answer"].as_str().expect("answer"))
        .collect();
    assert_eq!(said, ["appeal", "agree"]);
    // Answers are in the log (and so the chain).
    let log = app.log(&t).await;
    assert_eq!(log[2]["entry"], "ruling");
    assert_eq!(log[2]["kind"], "response");

    // Refused, and nothing changed: a phone of another table, a phone ruling, an answer to no
    // ruling, a bad answer, a comment too long, an undo that would take the ruled deal back.
    let before = footprint(&app, &t).await;
    app.post(&format!("/api/v1/tables/{t}/undo"), &phone, json!({}))
        .await
        .assert_problem(409, "deal_ruled");
    app.post(&answers, &stranger, json!({"answer": "agree"}))
        .await
        .assert_problem(404, "table_not_found");
    rule(&app, &phone, &t, 1, json!({"kind": "void", "reason": "mine"}))
        .await
        .assert_problem(403, "forbidden");
    app.post(
        &format!("/api/v1/tables/{t}/deals/1/rulings/{}/answers", id + 100),
        &phone,
        json!({"answer": "agree"}),
    )
    .await
    .assert_problem(404, "ruling_not_found");
    app.post(&answers, &phone, json!({"answer": "maybe"}))
        .await
        .assert_problem(422, "unknown_variant");
    app.post(&answers, &phone, json!({"answer": "agree", "comment": "x".repeat(501)}))
        .await
        .assert_problem(422, "invalid_text");
    assert_eq!(footprint(&app, &t).await, before);
    assert_audit_consistent(&app, &t).await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_bad_ruling_is_refused_with_its_problem_and_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Thursday").await;
    let t = table(
        &app,
        &token,
        &session,
        "nomination-whist",
        &["Ann", "Bob", "Cat", "Dan"],
        json!({"hand_sizes": [2, 1]}),
    )
    .await;
    let chips = table(&app, &token, &session, "tridge", &["Ann", "Bob", "Cat"], json!({})).await;
    accept(&app, &chips, &token, cat_wins()).await;
    accept(&app, &t, &token, whist([0, 2, 0, 0], [0, 2, 0, 0])).await;
    // Deal 2 is under way: a nomination made, no result yet.
    accept(&app, &t, &token, json!({"kind": "nominate", "seat": 2, "tricks": 1})).await;
    let before = footprint(&app, &t).await;
    let chips_before = footprint(&app, &chips).await;
    for (deal, body, status, code) in [
        (2, json!({"kind": "void", "reason": "r"}), 409, "deal_not_finished"),
        (3, json!({"kind": "void", "reason": "r"}), 404, "deal_not_found"),
        (1, json!({"kind": "voided", "reason": "r"}), 422, "unknown_variant"),
        (1, json!({"kind": "void"}), 422, "invalid_body"),
        (1, json!({"kind": "void", "reason": " "}), 422, "invalid_text"),
        (
            1,
            json!({"kind": "void", "reason": "r", "seats": [1]}),
            422,
            "invalid_ruling",
        ),
        (
            1,
            json!({"kind": "average", "reason": "r", "seats": [4]}),
            422,
            "invalid_ruling",
        ),
        (
            1,
            json!({"kind": "average", "reason": "r", "seats": [1, 1]}),
            422,
            "invalid_ruling",
        ),
        (
            1,
            json!({"kind": "average", "reason": "r", "percent": 101}),
            422,
            "invalid_ruling",
        ),
        (1, json!({"kind": "split", "reason": "r"}), 422, "invalid_ruling"),
        (
            1,
            json!({"kind": "split", "reason": "r", "results": []}),
            422,
            "invalid_ruling",
        ),
        (1, json!({"kind": "assigned", "reason": "r"}), 422, "invalid_ruling"),
        (
            1,
            json!({"kind": "assigned", "reason": "r", "moves": [whist([0, 2, 0, 0], [0, 3, 0, 0])]}),
            422,
            "tricks_do_not_add_up",
        ),
        (
            1,
            json!({"kind": "void", "reason": "r", "colour": "red"}),
            422,
            "unknown_field",
        ),
    ] {
        let answer = rule(&app, &token, &t, deal, body.clone()).await;
        assert_eq!(
            (answer.status.as_u16(), answer.body["code"].as_str().unwrap_or_default()),
            (status, code),
            "{body}: {}",
            answer.text
        );
        assert_eq!(footprint(&app, &t).await, before, "{body}");
    }
    // A chip game's split names every seat, and what one wins another pays.
    for body in [
        json!({"kind": "split", "reason": "r", "results": [{"seat": 0, "result": 5}, {"seat": 1, "result": -5}]}),
        json!({"kind": "split", "reason": "r", "results": [{"seat": 0, "result": 5}, {"seat": 1, "result": -5}, {"seat": 2, "result": 1}]}),
    ] {
        rule(&app, &token, &chips, 1, body)
            .await
            .assert_problem(422, "invalid_ruling");
    }
    assert_eq!(footprint(&app, &chips).await, chips_before);

    // Once the session is final, a ruling and an answer are refused.
    let ruled = rule(&app, &token, &chips, 1, json!({"kind": "void", "reason": "r"}))
        .await
        .assert_status(201)
        .clone();
    let id = ruled["id"].as_i64().expect("id");
    app.post(
        &format!("/api/v1/sessions/{session}/close"),
        &token,
        json!({"correction_window": "PT10M", "force": true, "reason": "late"}),
    )
    .await
    .assert_status(200);
    app.clock.as_ref().expect("clock").advance(Duration::minutes(11));
    let chips_before = footprint(&app, &chips).await;
    rule(&app, &token, &chips, 1, json!({"kind": "void", "reason": "again"}))
        .await
        .assert_problem(409, "session_final");
    app.post(
        &format!("/api/v1/tables/{chips}/deals/1/rulings/{id}/answers"),
        &token,
        json!({"answer": "agree"}),
    )
    .await
    .assert_problem(409, "session_final");
    assert_eq!(footprint(&app, &chips).await, chips_before);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_ruling_counts_in_a_tournaments_round_and_is_marked_on_its_printed_results(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, session, _, members) = crate::tournaments::club_night(&app, 4).await;
    let body = json!({
        "name": "Drive", "game": "nomination-whist", "options": {"hand_sizes": [1]},
        "format": {"kind": "fixed"}, "seats": {"min": 4, "max": 4}, "rounds": 1,
        "deals_per_round": 1, "entrants": members, "scoring": {"kind": "points"},
    });
    let tournament = app
        .post(&format!("/api/v1/sessions/{session}/tournaments"), &token, body)
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let started = app
        .post(&format!("/api/v1/tournaments/{tournament}/rounds"), &token, json!({}))
        .await
        .assert_status(201)
        .clone();
    let t = started["tables"][0]["table_id"].as_str().expect("table").to_owned();
    // Seat 1 makes its 1: [11, 10, 10, 10]; the director gives it 1 for an established revoke.
    accept(&app, &t, &token, whist([1, 0, 0, 0], [1, 0, 0, 0])).await;
    let ruled = rule(
        &app,
        &token,
        &t,
        1,
        json!({"kind": "split", "reason": "a revoke established", "results": [{"seat": 0, "result": 1}]}),
    )
    .await
    .assert_status(201)
    .clone();
    assert_eq!(ruled["scores"], json!([-10, 0, 0, 0]));
    let closed = app
        .post(
            &format!("/api/v1/tournaments/{tournament}/rounds/1/close"),
            &token,
            json!({}),
        )
        .await
        .assert_status(200)
        .clone();
    assert_eq!(
        closed["played_rounds"][0]["tables"][0]["result"]["scores"],
        json!([1, 10, 10, 10])
    );
    let sheet =
        crate::tournaments::pdf_text(&app, &token, &format!("/api/v1/tournaments/{tournament}/results.pdf")).await;
    assert!(
        sheet.contains("Table 1, deal 1: ruling: split — a revoke established"),
        "{sheet}"
    );

    // Closed and reopened by an owner: the reason stands beside every result of the session.
    app.post(
        &format!("/api/v1/sessions/{session}/close"),
        &token,
        json!({"correction_window": "PT0S"}),
    )
    .await
    .assert_status(200);
    let reason = "table 1's seats were entered the wrong way round";
    app.post(
        &format!("/api/v1/sessions/{session}/reopen"),
        &token,
        json!({ "reason": reason }),
    )
    .await
    .assert_status(200);
    for path in [
        format!("/api/v1/sessions/{session}/standings"),
        format!("/api/v1/sessions/{session}/settlement"),
        format!("/api/v1/tournaments/{tournament}/results"),
    ] {
        let read = app.get(&path).await.assert_status(200).clone();
        assert_eq!(read["reopenings"][0]["reason"], reason, "{path}: {read}");
        assert_eq!(read["reopenings"][0]["close"], 1, "{path}: {read}");
    }
    let sheet =
        crate::tournaments::pdf_text(&app, &token, &format!("/api/v1/tournaments/{tournament}/results.pdf")).await;
    let flat = sheet.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("Reopened ") && flat.contains(reason), "{sheet}");
}

/// The tournament as `GET /tournaments/{id}` answers it.
async fn tournament_view(app: &TestApp, tournament: &str) -> Value {
    app.get(&format!("/api/v1/tournaments/{tournament}"))
        .await
        .assert_status(200)
        .clone()
}

/// A scorer's correction of `deal` to the one-card result `mv`, at the table's version now.
async fn correct_to(app: &TestApp, token: &str, table: &str, deal: u16, mv: Value, reason: &str) {
    let version = app.state(table).await["version"].as_i64().expect("version");
    let body = json!({"moves": [mv], "expected_version": version, "reason": reason});
    crate::corrections::correct(app, table, token, deal, body)
        .await
        .assert_status(200);
}

/// Each entrant's total in the tournament's standings, by member id.
async fn totals_by_member(app: &TestApp, tournament: &str) -> std::collections::BTreeMap<String, i64> {
    let view = tournament_view(app, tournament).await;
    view["standings"]
        .as_array()
        .expect("standings")
        .iter()
        .map(|s| {
            assert_eq!(s["total"]["denom"], 1, "{s}");
            (
                s["member_id"].as_str().expect("member").to_owned(),
                s["total"]["numer"].as_i64().expect("total"),
            )
        })
        .collect()
}

#[sqlx::test(migrations = "./migrations")]
async fn a_ruling_or_a_correction_after_the_round_closed_amends_its_result_and_its_standings(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, session, _, members) = crate::tournaments::club_night(&app, 4).await;
    let body = json!({
        "name": "Drive", "game": "nomination-whist", "options": {"hand_sizes": [1, 1, 1]},
        "format": {"kind": "fixed"}, "seats": {"min": 4, "max": 4}, "rounds": 1,
        "deals_per_round": 2, "entrants": members, "scoring": {"kind": "points"},
    });
    let tournament = app
        .post(&format!("/api/v1/sessions/{session}/tournaments"), &token, body)
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let started = app
        .post(&format!("/api/v1/tournaments/{tournament}/rounds"), &token, json!({}))
        .await
        .assert_status(201)
        .clone();
    let t = started["tables"][0]["table_id"].as_str().expect("table").to_owned();
    let seat_member: Vec<String> = started["tables"][0]["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|s| s["member_id"].as_str().expect("member").to_owned())
        .collect();
    // Deal 1: seat 1 makes its 1 (11, 10, 10, 10); deal 2: seat 2 makes its 1 (10, 11, 10, 10).
    accept(&app, &t, &token, whist([1, 0, 0, 0], [1, 0, 0, 0])).await;
    accept(&app, &t, &token, whist([0, 1, 0, 0], [0, 1, 0, 0])).await;
    let closed = app
        .post(
            &format!("/api/v1/tournaments/{tournament}/rounds/1/close"),
            &token,
            json!({}),
        )
        .await
        .assert_status(200)
        .clone();
    let result = |view: &Value| view["played_rounds"][0]["tables"][0]["result"].clone();
    assert_eq!(result(&closed)["scores"], json!([21, 21, 20, 20]));
    assert!(result(&closed).get("amendments").is_none(), "{closed}");
    // Deal 3 is played after the close: it is the table's, not the round's.
    accept(&app, &t, &token, whist([0, 0, 1, 0], [0, 0, 1, 0])).await;
    let before = totals_by_member(&app, &tournament).await;
    assert_eq!(before[&seat_member[0]], 21);
    assert_eq!(before[&seat_member[2]], 20);

    // The director finds seat 1 revoked in deal 1 and gives it 1 (10 less): the round follows.
    let ruled = rule(
        &app,
        &token,
        &t,
        1,
        json!({"kind": "split", "reason": "a revoke established", "results": [{"seat": 0, "result": 1}]}),
    )
    .await
    .assert_status(201)
    .clone();
    let ruling_seq = ruled["id"].as_i64().expect("id");
    let view = tournament_view(&app, &tournament).await;
    assert_eq!(result(&view)["scores"], json!([11, 21, 20, 20]), "{view}");
    assert_eq!(
        result(&view)["amendments"],
        json!([{"before": [21, 21, 20, 20], "after": [11, 21, 20, 20], "table_seq": ruling_seq}])
    );
    let after = totals_by_member(&app, &tournament).await;
    assert_eq!(after[&seat_member[0]], 11);
    assert_eq!(after[&seat_member[1]], 21);

    // A scorer corrects deal 2 (seat 3 made the 1, not seat 2): the round follows again.
    correct_to(&app, &token, &t, 2, whist([0, 0, 1, 0], [0, 0, 1, 0]), "seat 3 took it").await;
    let view = tournament_view(&app, &tournament).await;
    assert_eq!(result(&view)["scores"], json!([11, 20, 21, 20]), "{view}");
    let amendments = result(&view)["amendments"].as_array().expect("amendments").clone();
    assert_eq!(amendments.len(), 2, "{view}");
    assert_eq!(amendments[1]["before"], json!([11, 21, 20, 20]));
    assert_eq!(amendments[1]["after"], json!([11, 20, 21, 20]));

    // A correction of deal 3, played after the close, leaves the round alone.
    correct_to(&app, &token, &t, 3, whist([0, 0, 0, 1], [0, 0, 0, 1]), "seat 4 took it").await;
    let unmoved = tournament_view(&app, &tournament).await;
    assert_eq!(result(&unmoved), result(&view));

    // The amendments are in the session's chain: the bundle verifies, the audit is consistent.
    verified_bundle(&app, &session).await;
    assert_audit_consistent(&app, &t).await;
    // The final checkpoint's points, the ruling's adjustment included, are the bundle's.
    let kept = crate::helpers::finalised_and_verified(&app, &token, &session).await;
    let points = |member: &str| {
        kept["checkpoint"]["standings"]["players"]
            .as_array()
            .expect("players")
            .iter()
            .find(|p| p["member_id"] == member)
            .map(|p| p["points"][0]["points"].clone())
    };
    // Deals 1 (ruled: 1), 2 (corrected: 10) and 3 (corrected, after the close: 10).
    assert_eq!(points(&seat_member[0]), Some(json!(21)), "{kept}");
}
