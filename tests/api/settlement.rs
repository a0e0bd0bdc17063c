//! Session standings (net of opening chips, points games included, players matched by roster
//! member) and the settle-up (fewest payments, summing to zero, in money when a chip is priced).

use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{accept, balance, spawn_app, TestApp};

async fn session(app: &TestApp, token: &str, body: Value) -> String {
    app.post("/api/v1/sessions", token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned()
}

async fn table(app: &TestApp, token: &str, body: Value) -> String {
    app.post("/api/v1/tables", token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned()
}

/// A Newmarket deal entered as a result: seat `out` went out, the others hold two cards each.
async fn newmarket_deal(app: &TestApp, token: &str, table: &str, out: usize) {
    let layout = json!({"kind": "layout", "pool_cards": ["JD", "QH", "KC", "AS"], "stakes": ["AS", "KC", "QH", "JD"]});
    accept(app, table, token, layout).await;
    let cards_left: Vec<u8> = (0..4).map(|s| if s == out { 0 } else { 2 }).collect();
    let result = json!({"kind": "result", "out": out, "cards_left": cards_left, "pool_winners": [{"pool_card": "KC", "seat": 3}]});
    accept(app, table, token, result).await;
}

/// A session with two Newmarket tables (Bob is "Robert" at the second, tied by his member id;
/// Ann is " ann ", found by her name) and a Nomination Whist table.
async fn an_evening(app: &TestApp, token: &str, chip_value: Value) -> (String, Vec<String>) {
    let session = session(app, token, json!({"name": "Friday", "chip_value": chip_value})).await;
    let first = table(
        app,
        token,
        json!({"game": "newmarket", "players": ["Ann", "Bob", "Cat", "Dan"], "session_id": session}),
    )
    .await;
    let roster = app.get(&format!("/api/v1/sessions/{session}")).await.assert_status(200)["members"].clone();
    let id_of = |name: &str| {
        roster
            .as_array()
            .expect("roster")
            .iter()
            .find(|m| m["name"] == name)
            .expect(name)["id"]
            .clone()
    };
    // Robert is Bob by his member id; the others are found by name (" ann " is Ann).
    let second = table(
        app,
        token,
        json!({"game": "newmarket", "players": ["Robert", " ann ", "Eve", "Fay"], "session_id": session,
               "members": [{"seat": 0, "member": id_of("Bob")}]}),
    )
    .await;
    let whist = table(
        app,
        token,
        json!({"game": "nomination-whist", "players": ["Cat", "Eve", "Bob"], "session_id": session, "options": {"hand_sizes": [1, 2]}}),
    )
    .await;
    newmarket_deal(app, token, &first, 0).await;
    newmarket_deal(app, token, &second, 2).await;
    let result = json!({"kind": "result", "nominations": [1, 0, 1], "tricks": [1, 0, 0]});
    accept(app, &whist, token, result).await;
    (session, vec![first, second, whist])
}

fn player<'a>(standings: &'a Value, name: &str) -> &'a Value {
    standings["players"]
        .as_array()
        .expect("players")
        .iter()
        .find(|p| p["player"] == name)
        .unwrap_or_else(|| panic!("{name} in {standings}"))
}

#[sqlx::test(migrations = "./migrations")]
async fn standings_are_net_of_opening_chips_include_points_and_follow_the_member_not_the_spelling(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let (session, tables) = an_evening(&app, &token, Value::Null).await;
    let (first, second) = (app.ledger(&tables[0]).await, app.ledger(&tables[1]).await);
    let whist = app.scores(&tables[2]).await;

    let standings = app
        .get(&format!("/api/v1/sessions/{session}/standings"))
        .await
        .assert_status(200)
        .clone();

    let bob = player(&standings, "Bob");
    assert_eq!(
        bob["seats"].as_array().map(Vec::len),
        Some(3),
        "Bob, Robert and Bob again: {bob}"
    );
    assert_eq!(
        bob["chips"].as_i64(),
        Some(balance(&first, "seat:1") - 100 + balance(&second, "seat:0") - 100),
        "net of the 100 chips each seat opened with"
    );
    assert_eq!(
        bob["points"],
        json!([{"game": "nomination-whist", "points": whist["sheet"]["totals"][2]}])
    );
    let ann = player(&standings, "Ann");
    assert_eq!(ann["seats"].as_array().map(Vec::len), Some(2), "` ann ` is Ann: {ann}");
    assert_eq!(
        ann["chips"].as_i64(),
        Some(balance(&first, "seat:0") - 100 + balance(&second, "seat:1") - 100)
    );
    assert_eq!(
        standings["players"].as_array().map(Vec::len),
        Some(6),
        "Ann, Bob, Cat, Dan, Eve, Fay"
    );
    let pools: i64 = [&first, &second]
        .iter()
        .flat_map(|l| l["balances"].as_array().expect("balances").iter())
        .filter(|b| b["account"].as_str().is_some_and(|a| a.starts_with("pool:")))
        .map(|b| b["balance"].as_i64().expect("chips"))
        .sum();
    assert_eq!(
        standings["total_chips"].as_i64(),
        Some(-pools),
        "what the players lost is in the pools"
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn the_settle_up_squares_everyone_in_few_payments_and_in_money_at_the_chip_value(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let (session, _) = an_evening(&app, &token, json!({"minor_units": 5, "currency": "GBP"})).await;
    let standings = app
        .get(&format!("/api/v1/sessions/{session}/standings"))
        .await
        .assert_status(200)
        .clone();

    let settlement = app
        .get(&format!("/api/v1/sessions/{session}/settlement"))
        .await
        .assert_status(200)
        .clone();

    assert_eq!(settlement["chip_value"], json!({"minor_units": 5, "currency": "GBP"}));
    let payments = settlement["payments"].as_array().expect("payments");
    let parties = standings["players"]
        .as_array()
        .expect("players")
        .iter()
        .filter(|p| p["chips"] != 0)
        .count()
        + 1;
    assert!(payments.len() < parties, "fewer payments than parties: {settlement}");
    for p in payments {
        let chips = p["chips"].as_i64().expect("chips");
        assert!(chips > 0);
        assert_eq!(p["minor_units"].as_i64(), Some(chips * 5));
        assert_eq!(p["currency"], "GBP");
    }
    let mut pools = 0;
    for party in standings["players"].as_array().expect("players") {
        let name = &party["player"];
        let paid: i64 = payments
            .iter()
            .filter(|p| p["from"]["player"] == *name)
            .map(|p| p["chips"].as_i64().expect("chips"))
            .sum();
        let got: i64 = payments
            .iter()
            .filter(|p| p["to"]["player"] == *name)
            .map(|p| p["chips"].as_i64().expect("chips"))
            .sum();
        assert_eq!(
            party["chips"].as_i64().expect("chips") + paid - got,
            0,
            "{name} is square: {settlement}"
        );
        pools += party["chips"].as_i64().expect("chips");
    }
    let to_pools: i64 = payments
        .iter()
        .filter(|p| p["to"]["pools"] == true)
        .map(|p| p["chips"].as_i64().expect("chips"))
        .sum();
    let from_pools: i64 = payments
        .iter()
        .filter(|p| p["from"]["pools"] == true)
        .map(|p| p["chips"].as_i64().expect("chips"))
        .sum();
    assert_eq!(to_pools - from_pools, -pools, "the pools are squared too");
}

#[sqlx::test(migrations = "./migrations")]
async fn a_session_without_a_chip_value_settles_in_chips_only(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let (session, _) = an_evening(&app, &token, Value::Null).await;

    let settlement = app
        .get(&format!("/api/v1/sessions/{session}/settlement"))
        .await
        .assert_status(200)
        .clone();

    assert_eq!(settlement["chip_value"], Value::Null);
    let payments = settlement["payments"].as_array().expect("payments");
    assert!(!payments.is_empty());
    assert!(payments
        .iter()
        .all(|p| p["minor_units"].is_null() && p["currency"].is_null()));
}

#[sqlx::test(migrations = "./migrations")]
async fn bad_chip_values_members_and_sessions_are_refused_and_change_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let count = || async {
        let sessions = app
            .request(reqwest::Method::GET, "/api/v1/sessions", Some(&token), None)
            .await;
        sessions.assert_status(200)["items"].as_array().map(Vec::len)
    };
    let before = count().await;

    for (value, status, code) in [
        (json!({"minor_units": -5, "currency": "GBP"}), 422, "invalid_chip_value"),
        (json!({"minor_units": 5, "currency": "gbp"}), 422, "invalid_chip_value"),
        (
            json!({"minor_units": 5, "currency": "POUNDS"}),
            422,
            "invalid_chip_value",
        ),
    ] {
        app.post(
            "/api/v1/sessions",
            &token,
            json!({"name": "Friday", "chip_value": value}),
        )
        .await
        .assert_problem(status, code);
    }
    app.post(
        "/api/v1/sessions",
        &token,
        json!({"name": "Friday", "chip_value": {"minor_units": 2.5, "currency": "GBP"}}),
    )
    .await
    .assert_problem(422, "invalid_body");
    assert_eq!(count().await, before, "no session was started");

    let session = session(&app, &token, json!({"name": "Friday"})).await;
    let tables =
        || async { app.get(&format!("/api/v1/sessions/{session}")).await.assert_status(200)["tables"].clone() };
    let stranger = uuid::Uuid::new_v4();
    // Not a member; a seat beyond the table; one seat named twice.
    for members in [
        json!([{"seat": 0, "member": stranger}]),
        json!([{"seat": 4, "member": stranger}]),
        json!([{"seat": 1, "member": stranger}, {"seat": 1, "member": stranger}]),
    ] {
        app.post(
            "/api/v1/tables",
            &token,
            json!({"game": "newmarket", "players": ["Ann", "Bob", "Cat", "Dan"], "session_id": session, "members": members}),
        )
        .await
        .assert_problem(422, "invalid_members");
    }
    app.post(
        "/api/v1/tables",
        &token,
        json!({"game": "newmarket", "players": ["Ann", "Bob", "Cat", "Dan"], "members": [{"seat": 0, "member": stranger}]}),
    )
    .await
    .assert_problem(422, "invalid_members");
    assert_eq!(tables().await, json!([]));
    assert_eq!(
        app.get(&format!("/api/v1/sessions/{session}")).await.body["members"],
        json!([])
    );

    let unknown = uuid::Uuid::new_v4();
    for what in ["standings", "settlement"] {
        app.get(&format!("/api/v1/sessions/{unknown}/{what}"))
            .await
            .assert_problem(404, "session_not_found");
    }
}

async fn patch_session(app: &TestApp, session: &str, token: Option<&str>, body: Value) -> crate::helpers::Answer {
    app.request(
        reqwest::Method::PATCH,
        &format!("/api/v1/sessions/{session}"),
        token,
        Some(body),
    )
    .await
}

#[sqlx::test(migrations = "./migrations")]
async fn the_organiser_sets_changes_and_clears_the_chip_value_and_the_settle_up_follows(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let (session, _) = an_evening(&app, &token, Value::Null).await;
    let settlement = || async {
        app.get(&format!("/api/v1/sessions/{session}/settlement"))
            .await
            .assert_status(200)
            .clone()
    };
    let in_chips = settlement().await;
    assert!(in_chips["payments"]
        .as_array()
        .expect("payments")
        .iter()
        .all(|p| p["minor_units"].is_null()));

    // Set after the session started.
    let view = patch_session(
        &app,
        &session,
        Some(&token),
        json!({"chip_value": {"minor_units": 10, "currency": "EUR"}}),
    )
    .await
    .assert_status(200)
    .clone();
    assert_eq!(view["chip_value"], json!({"minor_units": 10, "currency": "EUR"}));
    assert_eq!(view["id"], session.as_str());
    assert_eq!(view["tables"].as_array().map(Vec::len), Some(3));
    let in_euros = settlement().await;
    assert_eq!(in_euros["chip_value"], json!({"minor_units": 10, "currency": "EUR"}));
    let payments = in_euros["payments"].as_array().expect("payments");
    assert_eq!(payments.len(), in_chips["payments"].as_array().map_or(0, Vec::len));
    for (p, chips_only) in payments.iter().zip(in_chips["payments"].as_array().expect("payments")) {
        assert_eq!(p["chips"], chips_only["chips"], "the chips do not move");
        assert_eq!(p["minor_units"].as_i64(), p["chips"].as_i64().map(|c| c * 10));
        assert_eq!(p["currency"], "EUR");
    }

    // Changed: a free chip is worth nothing, in pounds.
    patch_session(
        &app,
        &session,
        Some(&token),
        json!({"chip_value": {"minor_units": 0, "currency": "GBP"}}),
    )
    .await
    .assert_status(200);
    let free = settlement().await;
    assert!(free["payments"]
        .as_array()
        .expect("payments")
        .iter()
        .all(|p| p["minor_units"] == 0 && p["currency"] == "GBP"));

    // Cleared: chips only again.
    let view = patch_session(&app, &session, Some(&token), json!({"chip_value": null}))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(view["chip_value"], Value::Null);
    assert_eq!(settlement().await, in_chips);
}

#[sqlx::test(migrations = "./migrations")]
async fn every_bad_chip_value_change_is_refused_and_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let (session, tables) = an_evening(&app, &token, json!({"minor_units": 5, "currency": "GBP"})).await;
    let view = || async {
        app.get(&format!("/api/v1/sessions/{session}"))
            .await
            .assert_status(200)
            .clone()
    };
    let settlement = || async {
        app.get(&format!("/api/v1/sessions/{session}/settlement"))
            .await
            .assert_status(200)
            .clone()
    };
    let (view_before, settlement_before) = (view().await, settlement().await);
    let other = app.organiser("bob@club.example").await;
    let scorer = crate::scorers::join(&app, &token, &tables[0], Some("Ann's phone")).await["token"]
        .as_str()
        .expect("scorer token")
        .to_owned();

    let value = |v: Value| json!({"chip_value": v});
    for (body, status, code) in [
        (
            value(json!({"minor_units": -1, "currency": "GBP"})),
            422,
            "invalid_chip_value",
        ),
        (
            value(json!({"minor_units": 5, "currency": "gbp"})),
            422,
            "invalid_chip_value",
        ),
        (
            value(json!({"minor_units": 5, "currency": "POUNDS"})),
            422,
            "invalid_chip_value",
        ),
        (
            value(json!({"minor_units": 5, "currency": ""})),
            422,
            "invalid_chip_value",
        ),
        (
            value(json!({"minor_units": 2.5, "currency": "GBP"})),
            422,
            "invalid_body",
        ),
        (
            value(json!({"minor_units": "5", "currency": "GBP"})),
            422,
            "invalid_body",
        ),
        (
            value(json!({"minor_units": 1e30, "currency": "GBP"})),
            422,
            "invalid_body",
        ),
        (value(json!({"currency": "GBP"})), 422, "invalid_body"),
        (value(json!(5)), 422, "invalid_body"),
        (json!({}), 422, "invalid_body"),
        (json!({"chip_value": null, "name": "Saturday"}), 422, "unknown_field"),
    ] {
        patch_session(&app, &session, Some(&token), body.clone())
            .await
            .assert_problem(status, code);
    }
    let fine = value(json!({"minor_units": 7, "currency": "EUR"}));
    patch_session(&app, &uuid::Uuid::new_v4().to_string(), Some(&token), fine.clone())
        .await
        .assert_problem(404, "session_not_found");
    patch_session(&app, &session, Some(&other), fine.clone())
        .await
        .assert_problem(404, "session_not_found");
    patch_session(&app, &session, Some(&scorer), fine.clone())
        .await
        .assert_problem(403, "forbidden");
    patch_session(&app, &session, None, fine.clone())
        .await
        .assert_problem(401, "missing_token");

    assert_eq!(view().await, view_before);
    assert_eq!(settlement().await, settlement_before);
}

#[sqlx::test(migrations = "./migrations")]
async fn the_session_ledger_is_net_of_opening_chips_and_keyed_by_roster_member_as_the_standings_are(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let (session, tables) = an_evening(&app, &token, Value::Null).await;
    let standings = app
        .get(&format!("/api/v1/sessions/{session}/standings"))
        .await
        .assert_status(200)
        .clone();

    let ledger = app
        .get(&format!("/api/v1/sessions/{session}/ledger"))
        .await
        .assert_status(200)
        .clone();

    let players = ledger["players"].as_array().expect("players");
    assert_eq!(players.len(), 6, "Ann, Bob, Cat, Dan, Eve, Fay: {ledger}");
    for p in players {
        let standing = player(&standings, p["player"].as_str().expect("name"));
        assert_eq!(p["member_id"], standing["member_id"], "{p}");
        assert!(p["member_id"].is_string(), "every player is a roster member: {p}");
        assert_eq!(p["net"], standing["chips"], "net as the standings: {p}");
        assert_eq!(
            p["net"].as_i64(),
            Some(p["balance"].as_i64().expect("balance") - p["opening"].as_i64().expect("opening"))
        );
        for s in p["seats"].as_array().expect("seats") {
            assert_eq!(s["opening"], 100, "each Newmarket seat opened with 100: {s}");
        }
    }
    let bob = players.iter().find(|p| p["player"] == "Bob").expect("Bob");
    let names: Vec<&str> = bob["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["Bob", "Robert"], "Robert is Bob, by his member id");
    let ann = players.iter().find(|p| p["player"] == "Ann").expect("Ann");
    assert_eq!(
        ann["balance"].as_i64(),
        Some(balance(&app.ledger(&tables[0]).await, "seat:0") + balance(&app.ledger(&tables[1]).await, "seat:1")),
        "` ann ` is Ann: {ann}"
    );
    assert_eq!(ledger["total"], 0);
    for t in ledger["tables"].as_array().expect("tables") {
        let sum = |field: &str| -> i64 {
            t["balances"]
                .as_array()
                .expect("balances")
                .iter()
                .map(|b| b[field].as_i64().expect("chips"))
                .sum()
        };
        assert_eq!((sum("balance"), sum("opening"), sum("net")), (0, 0, 0), "{t}");
    }
}

/// Asserts that the standings, the session ledger and the settle-up of `session` square with its
/// tables' ledgers, each seat having bought in `buy_in` chips from the bank: a player's net is
/// what their seats hold less what they bought in; the pools hold the rest; the nets and the
/// pools sum to zero; the payments bring every party, the pools included, exactly to zero.
/// Returns each player's net by name, and the pools'.
async fn assert_the_settle_up_squares_with_the_ledger(
    app: &TestApp,
    session: &str,
    tables: &[&str],
    buy_in: i64,
) -> (Vec<(String, i64)>, i64) {
    let standings = app
        .get(&format!("/api/v1/sessions/{session}/standings"))
        .await
        .assert_status(200)
        .clone();
    let settlement = app
        .get(&format!("/api/v1/sessions/{session}/settlement"))
        .await
        .assert_status(200)
        .clone();
    let ledger = app
        .get(&format!("/api/v1/sessions/{session}/ledger"))
        .await
        .assert_status(200)
        .clone();

    // From the tables' own ledgers: what each named seat holds, and what the pools and funds
    // hold (everything but the seats and the bank, which only issued).
    let mut held: Vec<(String, i64)> = Vec::new();
    let mut in_pools = 0;
    for table in tables {
        let table_ledger = app.ledger(table).await;
        let players = app.state(table).await["players"].clone();
        assert_eq!(
            balance(&table_ledger, "bank"),
            -buy_in * players.as_array().expect("players").len() as i64,
            "the bank issued only the buy-ins"
        );
        for b in table_ledger["balances"].as_array().expect("balances") {
            let account = b["account"].as_str().expect("account");
            let chips = b["balance"].as_i64().expect("chips");
            match account.strip_prefix("seat:") {
                Some(seat) => {
                    let name = players[seat.parse::<usize>().expect("seat")].as_str().expect("name");
                    match held.iter_mut().find(|(n, _)| n == name) {
                        Some((_, total)) => *total += chips - buy_in,
                        None => held.push((name.to_owned(), chips - buy_in)),
                    }
                }
                None if account != "bank" => in_pools += chips,
                None => {}
            }
        }
    }
    assert!(in_pools > 0, "stakes are on the board: {ledger}");

    // The standings: net of the buy-in, and the pools beside them.
    for (name, net) in &held {
        assert_eq!(player(&standings, name)["chips"], *net, "{name}'s net: {standings}");
    }
    assert_eq!(standings["pools_chips"], in_pools, "{standings}");
    assert_eq!(standings["total_chips"], -in_pools, "{standings}");

    // The session ledger agrees with the standings.
    for p in ledger["players"].as_array().expect("players") {
        let standing = player(&standings, p["player"].as_str().expect("name"));
        assert_eq!(p["net"], standing["chips"], "{p}");
        let seats = p["seats"].as_array().expect("seats").len() as i64;
        assert_eq!(p["opening"], buy_in * seats, "what they bought in: {p}");
    }
    for t in ledger["tables"].as_array().expect("tables") {
        let mut nets = 0;
        for b in t["balances"].as_array().expect("balances") {
            let account = b["account"].as_str().expect("account");
            if !account.starts_with("seat:") && account != "bank" {
                assert_eq!(b["opening"], 0, "nothing is issued to a pool: {b}");
                assert_eq!(b["net"], b["balance"], "{b}");
            }
            nets += b["net"].as_i64().expect("net");
        }
        assert_eq!(nets, 0, "a table's nets, pools included, sum to zero: {t}");
    }

    // The settle-up: every party's figure, and payments that net to exactly that.
    let nets = settlement["nets"].as_array().expect("nets");
    let mut figures: Vec<(Value, i64)> = held
        .iter()
        .filter(|(_, net)| *net != 0)
        .map(|(name, net)| (json!(name), *net))
        .collect();
    figures.push((json!(null), in_pools));
    assert_eq!(nets.len(), figures.len(), "{settlement}");
    let payments = settlement["payments"].as_array().expect("payments");
    for (who, figure) in &figures {
        let is = |party: &Value| match who {
            Value::Null => party["pools"] == true,
            name => party["pools"] == false && party["player"] == *name,
        };
        let stated = nets.iter().find(|n| is(&n["party"])).expect("a party's net");
        assert_eq!(stated["chips"], *figure, "{who}: {settlement}");
        let paid: i64 = payments
            .iter()
            .filter(|p| is(&p["from"]))
            .map(|p| p["chips"].as_i64().expect("chips"))
            .sum();
        let got: i64 = payments
            .iter()
            .filter(|p| is(&p["to"]))
            .map(|p| p["chips"].as_i64().expect("chips"))
            .sum();
        assert_eq!(got - paid, *figure, "{who} is paid exactly their net: {settlement}");
    }
    assert_eq!(figures.iter().map(|(_, f)| f).sum::<i64>(), 0);
    (held, in_pools)
}

#[sqlx::test(migrations = "./migrations")]
async fn a_pope_joan_session_with_stakes_on_the_board_settles_from_what_each_player_bought_in(pool: PgPool) {
    // Arrange: a Pope Joan table in a session; the opening dresses the board from the seats.
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = session(&app, &token, json!({"name": "Pope Joan night"})).await;
    let table = table(
        &app,
        &token,
        json!({"game": "pope-joan", "players": ["Ann", "Bob", "Cat", "Dan"], "session_id": session}),
    )
    .await;
    // Deal 1 as a result: Bob goes out, the others are caught with cards; the 9♦ is not played,
    // so the Pope division carries over with the rest that nobody won.
    accept(&app, &table, &token, json!({"kind": "turn_up", "card": "3C"})).await;
    accept(
        &app,
        &table,
        &token,
        json!({"kind": "result", "out": 1, "cards_left": [2, 0, 1, 3], "specials": [[], [], [], []]}),
    )
    .await;

    // Act and assert
    let (nets, pools) = assert_the_settle_up_squares_with_the_ledger(&app, &session, &[&table], 100).await;
    assert_eq!(nets.iter().map(|(_, n)| n).sum::<i64>(), -pools);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_tridge_session_with_funds_seeded_settles_from_what_each_player_bought_in(pool: PgPool) {
    // Arrange: a Tridge table in a session; the opening seeds the Game Fund from the seats.
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = session(&app, &token, json!({"name": "Tridge night"})).await;
    let table = table(
        &app,
        &token,
        json!({"game": "tridge", "players": ["Ann", "Bob", "Cat"], "session_id": session}),
    )
    .await;
    // Cat wins a deal with honours; then a drawn deal leaves a Reserve Fund on the table.
    let cat_wins = json!({"kind": "result", "player": 2, "contract": {"contract": "play_diamonds"},
                          "honours": 2, "tricks": [2, 2, 5]});
    let draw = json!({"kind": "result", "player": 0, "contract": {"contract": "play", "trumps": "hearts"},
                      "honours": 0, "tricks": [3, 3, 3]});
    accept(&app, &table, &token, cat_wins).await;
    accept(&app, &table, &token, draw).await;

    // Act and assert
    let (nets, pools) = assert_the_settle_up_squares_with_the_ledger(&app, &session, &[&table], 500).await;
    // As the ledger has it: what each paid into the funds and to Cat, and what the funds hold.
    let nets: Vec<(&str, i64)> = nets.iter().map(|(n, c)| (n.as_str(), *c)).collect();
    assert_eq!(nets, [("Ann", -54), ("Bob", -39), ("Cat", -12)]);
    assert_eq!(pools, 105);
}
