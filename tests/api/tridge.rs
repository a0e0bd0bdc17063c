//! Tridge through HTTP: a multi-deal session with reserves, both recording modes, the session
//! ledger, the end-of-session Widow's Fund, and every bad input of the issue.

use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{accept, assert_audit_consistent, balance, spawn_app, TestApp};

fn draw(player: u8) -> Value {
    json!({"kind": "result", "player": player, "contract": {"contract": "play", "trumps": "hearts"},
           "honours": 0, "tricks": [3, 3, 3]})
}

async fn session(app: &TestApp, token: &str) -> String {
    app.post("/api/v1/sessions", token, json!({"name": "Tridge night"}))
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned()
}

async fn tridge_table(app: &TestApp, token: &str, session: &str, players: &[&str]) -> String {
    let body = json!({"game": "tridge", "players": players, "session_id": session, "options": {}});
    app.post("/api/v1/tables", token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned()
}

#[sqlx::test(migrations = "./migrations")]
async fn a_multi_deal_session_with_reserves_books_every_chip_and_settles_the_widows_fund(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = session(&app, &token).await;
    let table = tridge_table(&app, &token, &session, &["Ann", "Bob", "Cat"]).await;

    // Opening: 500 each from the bank, 25 to W and 5 to F each.
    let ledger = app.ledger(&table).await;
    assert_eq!(balance(&ledger, "bank"), -1500);
    assert_eq!(balance(&ledger, "game_fund"), 15);
    assert_eq!(balance(&ledger, "widows_fund"), 75);
    assert_eq!(balance(&ledger, "seat:0"), 470);

    // Deal 1, card by card: Bob (seat 1, the Lead) plays hearts and stops after five.
    for mv in [
        json!({"kind": "bid", "seat": 1, "bid": "play"}),
        json!({"kind": "pass", "seat": 2}),
        json!({"kind": "pass", "seat": 0}),
        json!({"kind": "declare", "seat": 1, "contract": {"contract": "play", "trumps": "hearts"}}),
        json!({"kind": "exchange", "seat": 1, "cards": 3}),
        json!({"kind": "defence", "first_defender": 2}),
        json!({"kind": "exchange", "seat": 2, "cards": 6}),
        json!({"kind": "exchange", "seat": 0, "cards": 4}),
        json!({"kind": "count_stock", "discards": 13, "stock": 0}),
    ] {
        accept(&app, &table, &token, mv).await;
    }
    let tricks = [
        ["AS", "2H", "KS"],
        ["7H", "3H", "QS"],
        ["AC", "4H", "JS"],
        ["AH", "5H", "7S"],
        ["KH", "6H", "6S"],
    ];
    for (n, trick) in tricks.iter().enumerate() {
        for (i, card) in trick.iter().enumerate() {
            let seat = [1, 2, 0][i];
            let answer = accept(
                &app,
                &table,
                &token,
                json!({"kind": "play", "seat": seat, "card": card}),
            )
            .await;
            if i == 2 {
                assert_eq!(answer["move"]["events"][1]["event"], "trick_won", "trick {}", n + 1);
                assert_eq!(answer["move"]["events"][1]["winner"], 1, "trick {}", n + 1);
            }
        }
    }
    assert_eq!(app.state(&table).await["state"]["may_stop"], true);
    accept(
        &app,
        &table,
        &token,
        json!({"kind": "stop", "seat": 1, "top_trumps": []}),
    )
    .await;
    // Bob: +15 fund, +4 honours from each; then 5 each re-seeds the fund.
    let ledger = app.ledger(&table).await;
    assert_eq!(balance(&ledger, "seat:1"), 470 + 15 + 8 - 5);
    assert_eq!(balance(&ledger, "seat:0"), 470 - 4 - 5);
    assert_eq!(balance(&ledger, "game_fund"), 15);
    let deal1 = app
        .get(&format!("/api/v1/tables/{table}/ledger?deal=1"))
        .await
        .assert_status(200)
        .clone();
    assert!(deal1["bookings"]
        .as_array()
        .expect("bookings")
        .iter()
        .any(|b| b["memo"].as_str().is_some_and(|m| m.contains("honours: 4 × 1"))));

    // Deals 2-5, result only: three draws raise the fund 15 → 30 → 60, then overflow to Reserve 1.
    for player in [2, 0, 1] {
        accept(&app, &table, &token, draw(player)).await;
    }
    let ledger = app.ledger(&table).await;
    assert_eq!(balance(&ledger, "game_fund"), 60);
    assert_eq!(balance(&ledger, "reserve:1"), 60);
    assert_eq!(ledger["total"], 0);
    // A pass-out adds nothing while a Reserve waits.
    let before = app.ledger(&table).await["balances"].clone();
    accept(&app, &table, &token, json!({"kind": "pass_out"})).await;
    assert_eq!(app.ledger(&table).await["balances"], before);

    // Deal 6: Cat wins; Reserve 1 comes into play as the Game Fund.
    let win = json!({"kind": "result", "player": 2, "contract": {"contract": "play_diamonds"},
                     "top_trumps": ["AS", "7D"], "tricks": [2, 2, 5]});
    accept(&app, &table, &token, win).await;
    let ledger = app.ledger(&table).await;
    assert_eq!(balance(&ledger, "game_fund"), 60);
    assert_eq!(balance(&ledger, "reserve:1"), 0);
    let view = app.state(&table).await;
    assert_eq!(view["state"]["funds"]["reserves"], json!([]));

    // Undo of the settled deal: reversing bookings, the reserve waits again.
    let version = view["version"].as_i64().expect("version");
    app.post(
        &format!("/api/v1/tables/{table}/undo"),
        &token,
        json!({"expected_version": version}),
    )
    .await
    .assert_status(200);
    let ledger = app.ledger(&table).await;
    assert_eq!(balance(&ledger, "reserve:1"), 60);
    assert!(ledger["bookings"]
        .as_array()
        .expect("bookings")
        .iter()
        .any(|b| !b["reverses"].is_null()));
    let win = json!({"kind": "result", "player": 2, "contract": {"contract": "play_diamonds"},
                     "honours": 2, "tricks": [2, 2, 5]});
    accept(&app, &table, &token, win).await;

    // A second table of the session, Ann again with two others.
    let other = tridge_table(&app, &token, &session, &["Dan", "Ann", "Eve"]).await;
    accept(&app, &other, &token, draw(1)).await;

    let sl = app
        .get(&format!("/api/v1/sessions/{session}/ledger"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(sl["total"], 0);
    let ann = sl["players"]
        .as_array()
        .expect("players")
        .iter()
        .find(|p| p["player"] == "Ann")
        .expect("Ann")
        .clone();
    assert_eq!(ann["seats"].as_array().expect("seats").len(), 2);
    let first = balance(&app.ledger(&table).await, "seat:0");
    let second = balance(&app.ledger(&other).await, "seat:1");
    assert_eq!(ann["balance"].as_i64(), Some(first + second));
    assert_eq!(sl["tables"].as_array().expect("tables").len(), 2);

    // The end of the session: the Widow's Fund split, the remainder stated.
    let widows = balance(&app.ledger(&table).await, "widows_fund");
    let answer = accept(
        &app,
        &table,
        &token,
        json!({"kind": "settle_widows_fund", "choice": "split"}),
    )
    .await;
    let settled = answer["move"]["events"]
        .as_array()
        .expect("events")
        .iter()
        .find(|e| e["event"] == "widows_fund_settled")
        .expect("settled")
        .clone();
    assert_eq!(settled["share"].as_i64(), Some(widows / 3));
    assert_eq!(settled["remainder"].as_i64(), Some(widows % 3));
    assert_eq!(balance(&app.ledger(&table).await, "widows_fund"), widows % 3);
    assert_eq!(app.state(&table).await["finished"], true);
    app.submit(&table, &token, json!({"kind": "pass_out"}))
        .await
        .assert_problem(409, "game_finished");
    for id in [&table, &other] {
        assert_audit_consistent(&app, id).await;
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn an_unknown_sessions_ledger_is_404(pool: PgPool) {
    let app = spawn_app(pool).await;
    // Reads need a token (issue #25): the rig reads with its first organiser's.
    app.organiser("reader@example.org").await;
    app.get(&format!("/api/v1/sessions/{}/ledger", uuid::Uuid::new_v4()))
        .await
        .assert_problem(404, "session_not_found");
}

/// Submits a bad move and asserts the problem and that nothing changed, ledger included.
async fn refused(app: &TestApp, table: &str, token: &str, mv: Value, code: &str) {
    let before = app.snapshot(table).await;
    let ledger = app.ledger(table).await;
    app.submit(table, token, mv).await.assert_problem(422, code);
    assert_eq!(app.snapshot(table).await, before);
    assert_eq!(app.ledger(table).await, ledger);
}

#[sqlx::test(migrations = "./migrations")]
async fn every_bad_input_of_the_issue_is_refused_and_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let table = app
        .game_table(&token, "tridge", &["Ann", "Bob", "Cat"], json!({}))
        .await;

    // A trick split that does not total 9.
    let short = json!({"kind": "result", "player": 1, "contract": {"contract": "play", "trumps": "hearts"},
                       "honours": 0, "tricks": [3, 3, 2]});
    refused(&app, &table, &token, short, "tricks_do_not_add_up").await;
    // Honours the stated trumps cannot give (spades give at most 3).
    let honours = json!({"kind": "result", "player": 1, "contract": {"contract": "no_change", "trumps": "spades"},
                         "honours": 4, "tricks": [2, 5, 2]});
    refused(&app, &table, &token, honours, "honours_impossible").await;
    // No Tricks before everyone passed.
    refused(
        &app,
        &table,
        &token,
        json!({"kind": "bid", "seat": 1, "bid": "no_tricks"}),
        "no_tricks_before_all_passed",
    )
    .await;
    // A bid lower than the standing one.
    accept(
        &app,
        &table,
        &token,
        json!({"kind": "bid", "seat": 1, "bid": "play_more"}),
    )
    .await;
    refused(
        &app,
        &table,
        &token,
        json!({"kind": "bid", "seat": 2, "bid": "play"}),
        "bid_too_low",
    )
    .await;
    // An exchange that breaks the counts.
    accept(&app, &table, &token, json!({"kind": "pass", "seat": 2})).await;
    accept(&app, &table, &token, json!({"kind": "pass", "seat": 0})).await;
    accept(
        &app,
        &table,
        &token,
        json!({"kind": "declare", "seat": 1, "contract": {"contract": "play_diamonds"}}),
    )
    .await;
    refused(
        &app,
        &table,
        &token,
        json!({"kind": "exchange", "seat": 1, "cards": 10}),
        "exchange_count",
    )
    .await;
    accept(&app, &table, &token, json!({"kind": "exchange", "seat": 1, "cards": 5})).await;
    accept(&app, &table, &token, json!({"kind": "defence", "first_defender": 0})).await;
    refused(
        &app,
        &table,
        &token,
        json!({"kind": "exchange", "seat": 0, "cards": 9}),
        "exchange_count",
    )
    .await;

    // A Fixed Trick bidder with no trump declared (after everyone passed).
    let fixed = app
        .game_table(&token, "tridge", &["Ann", "Bob", "Cat"], json!({}))
        .await;
    for seat in [1, 2, 0] {
        accept(&app, &fixed, &token, json!({"kind": "pass", "seat": seat})).await;
    }
    refused(
        &app,
        &fixed,
        &token,
        json!({"kind": "fixed_bid", "seat": 1, "tricks": 2}),
        "trumps_required",
    )
    .await;

    // A move for a seat that is sitting out (the dealer of four).
    let four = app
        .game_table(&token, "tridge", &["Ann", "Bob", "Cat", "Dan"], json!({}))
        .await;
    assert_eq!(app.state(&four).await["state"]["sitting_out"], 0);
    refused(
        &app,
        &four,
        &token,
        json!({"kind": "bid", "seat": 0, "bid": "play"}),
        "seat_sitting_out",
    )
    .await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_fixed_trick_deal_card_by_card_settles_through_the_ledger(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let table = app
        .game_table(&token, "tridge", &["Ann", "Bob", "Cat"], json!({"opening_chips": 400}))
        .await;
    for seat in [1, 2, 0] {
        accept(&app, &table, &token, json!({"kind": "pass", "seat": seat})).await;
    }
    accept(
        &app,
        &table,
        &token,
        json!({"kind": "fixed_bid", "seat": 1, "tricks": 3, "trumps": "spades"}),
    )
    .await;
    accept(&app, &table, &token, json!({"kind": "pass", "seat": 2})).await;
    accept(&app, &table, &token, json!({"kind": "pass", "seat": 0})).await;
    let state = app.state(&table).await;
    assert_eq!(state["state"]["phase"], "playing");
    assert_eq!(
        state["state"]["contract"],
        json!({"contract": "fixed_trick", "tricks": 3, "trumps": "spades"})
    );
    // Bob takes exactly three: the first three, then loses six.
    let tricks = [
        ["AS", "3S", "4S"],
        ["2S", "5S", "6S"],
        ["AC", "7S", "KH"],
        ["2D", "KD", "3D"],
        ["QD", "4D", "JD"],
        ["5D", "6D", "7D"],
        ["QH", "JH", "3H"],
        ["2H", "4H", "KC"],
        ["5H", "QC", "JC"],
    ];
    // Leaders: Bob, Bob, Bob, Bob→Cat wins K♦, Cat, Cat, …: play in the order the view asks.
    for trick in tricks {
        for card in trick {
            let seat = app.state(&table).await["state"]["to_act"].clone();
            accept(
                &app,
                &table,
                &token,
                json!({"kind": "play", "seat": seat, "card": card}),
            )
            .await;
        }
    }
    let sheet = app.scores(&table).await;
    let line = &sheet["sheet"]["deals"][0];
    assert_eq!(line["tricks"][1], 3);
    assert_eq!(line["outcome"]["outcome"], "exact");
    // Exact three: the fund (15), honours 3 (A♠, 2♠, A♣) and 5 from each; then 5 each re-seeds.
    let ledger = app.ledger(&table).await;
    assert_eq!(balance(&ledger, "seat:1"), 370 + 15 + 2 * (3 + 5) - 5);
    assert_eq!(balance(&ledger, "seat:0"), 370 - 8 - 5);
    assert_eq!(ledger["total"], 0);
}

#[sqlx::test(migrations = "./migrations")]
async fn four_participants_rotate_the_sitting_out_dealer_and_the_in_comer_pays_a_quarter(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let table = app
        .game_table(&token, "tridge", &["Ann", "Bob", "Cat", "Dan"], json!({}))
        .await;
    let ledger = app.ledger(&table).await;
    assert_eq!(balance(&ledger, "game_fund"), 20);
    assert_eq!(balance(&ledger, "widows_fund"), 100);

    // Deal 1: Ann deals and sits out; everyone passes; Ann comes in.
    for seat in [1, 2, 3] {
        accept(&app, &table, &token, json!({"kind": "pass", "seat": seat})).await;
    }
    accept(&app, &table, &token, json!({"kind": "in_come", "seat": 0})).await;
    assert_eq!(balance(&app.ledger(&table).await, "game_fund"), 25);
    let state = app.state(&table).await;
    assert_eq!(state["state"]["active"], json!([1, 2, 3, 0]));
    assert_eq!(
        crate::helpers::legal_kinds(&state["state"]),
        json!(["declare", "give_up"])
    );
    accept(&app, &table, &token, json!({"kind": "give_up", "seat": 0})).await;
    // The quarter stays; deal 2: Bob deals and sits out.
    let state = app.state(&table).await;
    assert_eq!(state["state"]["sitting_out"], 1);
    assert_eq!(balance(&app.ledger(&table).await, "game_fund"), 25);
    refused(
        &app,
        &table,
        &token,
        json!({"kind": "pass", "seat": 1}),
        "seat_sitting_out",
    )
    .await;

    // Deal 2, result only: Cat wins Play in diamonds with two honours; Bob, sitting out, pays too.
    let win = json!({"kind": "result", "player": 2, "contract": {"contract": "play_diamonds"},
                     "honours": 2, "tricks": [2, 0, 5, 2]});
    accept(&app, &table, &token, win).await;
    let ledger = app.ledger(&table).await;
    assert_eq!(balance(&ledger, "seat:1"), 470 - 4 - 5);
    assert_eq!(balance(&ledger, "seat:2"), 470 + 25 + 12 - 5);
    assert_eq!(
        balance(&ledger, "seat:0"),
        470 - 5 - 4 - 5,
        "the quarter, honours, the new stake"
    );
    assert_eq!(balance(&ledger, "game_fund"), 20);
    assert_eq!(ledger["total"], 0);
}

#[sqlx::test(migrations = "./migrations")]
async fn simulated_deals_through_http_book_exactly_the_engines_chips(pool: PgPool) {
    use tablekeeper::rules::games::tridge::{sim, Options, Tridge};
    use tablekeeper::rules::Game;

    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let table = app
        .game_table(&token, "tridge", &["Ann", "Bob", "Cat", "Dan"], json!({}))
        .await;
    let mut engine = Tridge::new(4, Options::default()).expect("game");
    for seed in 0..6u64 {
        for mv in sim::random_deal(&mut engine, 7_000 + seed).expect("legal deal") {
            accept(&app, &table, &token, serde_json::to_value(&mv).expect("json")).await;
        }
    }
    let view = engine.view();
    let ledger = app.ledger(&table).await;
    assert_eq!(ledger["total"], 0);
    for (seat, chips) in view.chips.iter().enumerate() {
        assert_eq!(balance(&ledger, &format!("seat:{seat}")), chips.get(), "seat {seat}");
    }
    assert_eq!(balance(&ledger, "game_fund"), view.funds.game_fund.get());
    assert_eq!(balance(&ledger, "widows_fund"), view.funds.widows_fund.get());
    for reserve in &view.funds.reserves {
        assert_eq!(
            balance(&ledger, &format!("reserve:{}", reserve.number)),
            reserve.chips.get()
        );
    }
    assert_eq!(
        app.state(&table).await["state"],
        serde_json::to_value(&view).expect("json")
    );
    assert_audit_consistent(&app, &table).await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_widows_fund_doubled_past_what_the_ledger_holds_is_refused_and_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let table = app
        .game_table(&token, "tridge", &["Ann", "Bob", "Cat"], json!({}))
        .await;
    // Every failed No Tricks pays the Widow's Fund into itself: it doubles each deal.
    let lost = json!({"kind": "result", "player": 1, "contract": {"contract": "no_tricks", "trumps": "clubs"},
                      "honours": 0, "tricks": [4, 1, 4]});
    let mut losses = 0;
    while app.submit(&table, &token, lost.clone()).await.status == 201 {
        losses += 1;
        assert!(losses < 80, "the Widow's Fund never stopped doubling");
    }
    assert!(losses > 50, "refused after only {losses} losses");
    let before = app.snapshot(&table).await;
    let ledger = app.ledger(&table).await;
    app.submit(&table, &token, lost)
        .await
        .assert_problem(409, "chips_out_of_range");
    assert_eq!(app.snapshot(&table).await, before);
    assert_eq!(app.ledger(&table).await, ledger);
    assert_eq!(ledger["total"], 0);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_log_stored_with_the_dealers_count_repeated_reads_audits_consistent_and_takes_the_next_move(pool: PgPool) {
    // Arrange: deal 1 up to the first card, the dealer's count recorded once.
    let app = spawn_app(pool.clone()).await;
    let token = app.organiser("ann@club.example").await;
    let session = session(&app, &token).await;
    let table = tridge_table(&app, &token, &session, &["Ann", "Bob", "Cat"]).await;
    for mv in [
        json!({"kind": "bid", "seat": 1, "bid": "play"}),
        json!({"kind": "pass", "seat": 2}),
        json!({"kind": "pass", "seat": 0}),
        json!({"kind": "declare", "seat": 1, "contract": {"contract": "play", "trumps": "hearts"}}),
        json!({"kind": "exchange", "seat": 1, "cards": 3}),
        json!({"kind": "defence", "first_defender": 2}),
        json!({"kind": "exchange", "seat": 2, "cards": 6}),
        json!({"kind": "exchange", "seat": 0, "cards": 4}),
        json!({"kind": "count_stock", "discards": 13, "stock": 0}),
    ] {
        accept(&app, &table, &token, mv).await;
    }
    // As a server from before the count was asked once stored it: the same count three times
    // more, each a move with the event it caused then, linked into the table's chain.
    let log = app.log(&table).await;
    let counted = log.as_array().expect("log").last().expect("the count").clone();
    assert_eq!(counted["move"]["kind"], "count_stock");
    let id: uuid::Uuid = table.parse().expect("a table id");
    let mut conn = pool.acquire().await.expect("a connection");
    for seq in 10..=12i64 {
        sqlx::query(
            "insert into moves (table_id, club_no, seq, entry, kind, seat, body, events, recorded_by)
             select $1, club_no, $2, 'move', 'count_stock', null, $3::json, $4::json, $5 from game_tables where id = $1",
        )
        .bind(id)
        .bind(seq)
        .bind(counted["move"].to_string())
        .bind(counted["events"].to_string())
        .bind(counted["recorded_by"].as_str().expect("recorded by"))
        .execute(&mut *conn)
        .await
        .expect("an old entry stored");
        sqlx::query("update game_tables set version = $2 where id = $1")
            .bind(id)
            .bind(seq)
            .execute(&mut *conn)
            .await
            .expect("the version moved");
    }
    let row = tablekeeper::store::tables::fetch(&mut conn, id)
        .await
        .expect("the table");
    tablekeeper::service::chain::extend(&mut conn, &row)
        .await
        .expect("the old entries chained");
    drop(conn);

    // Act and assert: the table reads at the first card, the count no longer offered.
    let state = app.state(&table).await;
    assert_eq!(state["version"], 12, "{state}");
    assert_eq!(crate::helpers::legal_kinds(&state["state"]), json!(["play"]), "{state}");
    assert_audit_consistent(&app, &table).await;
    // A count recorded now is refused as ever, and changes nothing.
    refused(
        &app,
        &table,
        &token,
        json!({"kind": "count_stock", "discards": 13, "stock": 0}),
        "stock_already_counted",
    )
    .await;
    // The next move is taken, and the audit still replays the whole log.
    accept(&app, &table, &token, json!({"kind": "play", "seat": 1, "card": "AS"})).await;
    assert_eq!(app.state(&table).await["version"], 13);
    assert_audit_consistent(&app, &table).await;
}
