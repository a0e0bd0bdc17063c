//! Leftover chips in a stops game's pools when a tournament's round closes (issue #41): `keep`
//! leaves them in the pools, `share` gives them to the table's players, `bank` to the bank,
//! `carry` onto the next round's table's pools (and to the bank after the last round); the
//! moves booked as transfers that sum to zero, counted in the standings and the settle-up; a bad
//! rule refused and nothing stored.
//!
//! One table of three at Pope Joan, a board of 20 dressed by the dealer alone (`dealer_alone`,
//! `board_total: 20`): Pope 6, Matrimony 2, Intrigue 2, Ace, King, Queen and Knave 1 each, and
//! Game the rest, 6. Seat 0 deals and dresses (100 - 20 = 80); the 7♥ is turned up (no honour);
//! seat 1 goes out and wins Game (6) and a chip a card from the others (2 from seat 0, 3 from
//! seat 2): 78, 111, 97. The next deal starts at once, seat 1 dressing it (111 - 20 = 91). By hand
//! when the round closes after that one deal: seats 78, 91, 97; the pools 34 (Pope 12, Matrimony
//! 4, Intrigue 4, Ace, King, Queen and Knave 2 each, Game 6); 78 + 91 + 97 + 34 = 300, the
//! 3 × 100 issued. Net chips: -22, -9, -3.

use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{accept, assert_audit_consistent, forged_refusal, spawn_app, verified_bundle, TestApp};

/// An organiser's session whose club has P1, P2 and P3: (token, session, member ids).
async fn three_of_a_club(app: &TestApp) -> (String, String, Vec<String>) {
    let token = app.organiser("director@club.example").await;
    let session = app.session(&token, "Pope Joan night").await;
    let club = app.get(&format!("/api/v1/sessions/{session}")).await.assert_status(200)["club_id"]
        .as_str()
        .expect("club")
        .to_owned();
    let mut members = Vec::new();
    for i in 1..=3 {
        let made = app
            .post(
                &format!("/api/v1/clubs/{club}/members"),
                &token,
                json!({"name": format!("P{i}")}),
            )
            .await;
        members.push(made.assert_status(201)["id"].as_str().expect("id").to_owned());
    }
    (token, session, members)
}

/// A session whose club has P1, P2 and P3, and a one-round Pope Joan tournament of the three
/// with `leftover` (left out when None): (token, session, tournament, member ids).
pub(crate) async fn pope_joan_night(app: &TestApp, leftover: Option<&str>) -> (String, String, String, Vec<String>) {
    pope_joan_rounds(app, leftover, 1).await
}

/// As `pope_joan_night`, of `rounds` rounds.
async fn pope_joan_rounds(app: &TestApp, leftover: Option<&str>, rounds: u32) -> (String, String, String, Vec<String>) {
    let (token, session, members) = three_of_a_club(app).await;
    let mut body = json!({
        "name": "Pope Joan",
        "game": "pope-joan",
        "options": {"dressing": "dealer_alone", "board_total": 20},
        "format": {"kind": "fixed"},
        "rounds": rounds,
        "deals_per_round": 1,
        "entrants": members,
        "scoring": {"kind": "chips"},
    });
    if let Some(rule) = leftover {
        body["leftover"] = json!(rule);
    }
    let made = app
        .post(&format!("/api/v1/sessions/{session}/tournaments"), &token, body)
        .await
        .assert_status(201)
        .clone();
    assert_eq!(made["leftover"], leftover.unwrap_or("keep"));
    let tournament = made["id"].as_str().expect("id").to_owned();
    (token, session, tournament, members)
}

/// Plays the round's one deal as the module's header says and closes the round: the table's id
/// and the closed tournament.
pub(crate) async fn play_and_close(
    app: &TestApp,
    token: &str,
    tournament: &str,
    members: &[String],
) -> (String, Value) {
    let started = app
        .post(&format!("/api/v1/tournaments/{tournament}/rounds"), token, json!({}))
        .await
        .assert_status(201)
        .clone();
    let table = &started["tables"][0];
    let seated: Vec<&str> = table["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|s| s["member_id"].as_str().expect("member"))
        .collect();
    assert_eq!(
        seated,
        members.iter().map(String::as_str).collect::<Vec<_>>(),
        "fixed: seeding order"
    );
    let table = table["table_id"].as_str().expect("table").to_owned();
    accept(app, &table, token, json!({"kind": "turn_up", "card": "7H"})).await;
    accept(
        app,
        &table,
        token,
        json!({"kind": "result", "out": 1, "cards_left": [2, 0, 3], "specials": [[], [], []]}),
    )
    .await;
    let ledger = app
        .get(&format!("/api/v1/tables/{table}/ledger"))
        .await
        .assert_status(200)
        .clone();
    let balances = ledger["balances"].to_string();
    for (account, chips) in [
        ("seat:0", 78),
        ("seat:1", 91),
        ("seat:2", 97),
        ("pool:pope", 12),
        ("pool:game", 6),
    ] {
        assert!(
            ledger["balances"]
                .as_array()
                .is_some_and(|b| b.iter().any(|x| x["account"] == account && x["balance"] == chips))
                || ledger["balances"][account] == chips,
            "{account} holds {chips}: {balances}"
        );
    }
    let closed = app
        .post(
            &format!("/api/v1/tournaments/{tournament}/rounds/1/close"),
            token,
            json!({}),
        )
        .await
        .assert_status(200)
        .clone();
    (table, closed)
}

fn moves(closed: &Value) -> Vec<(String, String, i64)> {
    closed["played_rounds"][0]["tables"][0]["leftover"]
        .as_array()
        .expect("leftover")
        .iter()
        .map(|m| {
            (
                m["from"].as_str().expect("from").to_owned(),
                m["to"].as_str().expect("to").to_owned(),
                m["chips"].as_i64().expect("chips"),
            )
        })
        .collect()
}

/// The settle-up's nets as (member id, or "pools" / "bank", chips), and its leftovers.
async fn settle_up(app: &TestApp, session: &str) -> (Vec<(String, i64)>, Value) {
    let settlement = app
        .get(&format!("/api/v1/sessions/{session}/settlement"))
        .await
        .assert_status(200)
        .clone();
    let nets: Vec<(String, i64)> = settlement["nets"]
        .as_array()
        .expect("nets")
        .iter()
        .map(|n| {
            let party = &n["party"];
            let who = if party["pools"] == true {
                "pools".to_owned()
            } else if party["bank"] == true {
                "bank".to_owned()
            } else {
                party["member_id"].as_str().expect("member").to_owned()
            };
            (who, n["chips"].as_i64().expect("chips"))
        })
        .collect();
    // Every party's payments bring it to zero.
    let mut owed: Vec<(String, i64)> = Vec::new();
    for p in settlement["payments"].as_array().expect("payments") {
        let name = |party: &Value| {
            if party["pools"] == true {
                "pools".to_owned()
            } else if party["bank"] == true {
                "bank".to_owned()
            } else {
                party["member_id"].as_str().expect("member").to_owned()
            }
        };
        let chips = p["chips"].as_i64().expect("chips");
        for (who, sign) in [(name(&p["from"]), 1), (name(&p["to"]), -1)] {
            match owed.iter_mut().find(|(w, _)| *w == who) {
                Some((_, c)) => *c += sign * chips,
                None => owed.push((who, sign * chips)),
            }
        }
    }
    for (who, net) in &nets {
        let paid = owed.iter().find(|(w, _)| w == who).map_or(0, |(_, c)| *c);
        assert_eq!(paid, -net, "{who}'s payments: {settlement}");
    }
    (nets, settlement["leftovers"].clone())
}

/// The session's chip ledger as a treasurer reads it: each player's net, and the table's pools'
/// and bank's nets (summed over its `pool:` accounts), which must agree with the settle-up.
async fn ledger_nets(app: &TestApp, session: &str) -> (Vec<i64>, i64, i64) {
    let ledger = app
        .get(&format!("/api/v1/sessions/{session}/ledger"))
        .await
        .assert_status(200)
        .clone();
    let players = ledger["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| p["net"].as_i64().expect("net"))
        .collect();
    let accounts = ledger["tables"][0]["balances"].as_array().expect("balances");
    let net_of = |wanted: &dyn Fn(&str) -> bool| -> i64 {
        accounts
            .iter()
            .filter(|a| wanted(a["account"].as_str().expect("account")))
            .map(|a| a["net"].as_i64().expect("net"))
            .sum()
    };
    let pools = net_of(&|a| a.starts_with("pool:"));
    let bank = net_of(&|a| a == "bank");
    assert_eq!(ledger["total"], 0, "{ledger}");
    (players, pools, bank)
}

#[sqlx::test(migrations = "./migrations")]
async fn share_gives_the_pools_to_the_table_s_players_the_odd_chips_by_seat_order(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, session, tournament, members) = pope_joan_night(&app, Some("share")).await;
    let (table, closed) = play_and_close(&app, &token, &tournament, &members).await;

    // 34 among three: 11 each and 1 over, to seat 0: 12, 11, 11. The pools in account order
    // (Pope, Matrimony, Intrigue, Ace, King, Queen, Knave, Game) fill the seats in seat order.
    let to = |s: &str| s.to_owned();
    assert_eq!(
        moves(&closed),
        vec![
            (to("pool:pope"), to("seat:0"), 12),
            (to("pool:matrimony"), to("seat:1"), 4),
            (to("pool:intrigue"), to("seat:1"), 4),
            (to("pool:ace"), to("seat:1"), 2),
            (to("pool:king"), to("seat:1"), 1),
            (to("pool:king"), to("seat:2"), 1),
            (to("pool:queen"), to("seat:2"), 2),
            (to("pool:knave"), to("seat:2"), 2),
            (to("pool:game"), to("seat:2"), 6),
        ]
    );
    // The round's scores are the net chips before the share.
    assert_eq!(
        closed["played_rounds"][0]["tables"][0]["result"]["scores"],
        json!([-22, -9, -3])
    );

    // Standings and settle-up: 78 + 12 - 100 = -10, 91 + 11 - 100 = +2, 97 + 11 - 100 = +8;
    // the pools hold nothing of the players' now.
    let standings = app
        .get(&format!("/api/v1/sessions/{session}/standings"))
        .await
        .assert_status(200)
        .clone();
    let chips: Vec<i64> = standings["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| p["chips"].as_i64().expect("chips"))
        .collect();
    assert_eq!(chips, vec![-10, 2, 8]);
    assert_eq!(standings["pools_chips"], 0);
    assert!(standings["banked_chips"].is_null(), "0, left out");
    assert_eq!(standings["total_chips"], 0);
    let (nets, leftovers) = settle_up(&app, &session).await;
    assert_eq!(
        nets,
        vec![
            (members[0].clone(), -10),
            (members[1].clone(), 2),
            (members[2].clone(), 8)
        ]
    );
    assert_eq!(leftovers.as_array().map(Vec::len), Some(9), "{leftovers}");
    assert_eq!(leftovers[0]["table_id"], table.as_str());
    let moved: i64 = leftovers
        .as_array()
        .expect("leftovers")
        .iter()
        .map(|l| l["chips"].as_i64().expect("chips"))
        .sum();
    assert_eq!(moved, 34);
    // The session's ledger counts them as the settle-up does: the pools hold nothing now.
    assert_eq!(ledger_nets(&app, &session).await, (vec![-10, 2, 8], 0, 0));

    // The table's own ledger and record are as its moves left them: its audit still agrees.
    assert_audit_consistent(&app, &table).await;

    // The transfers count in the settle-up, so the session's chain covers them: the bundle
    // carries them in the round's record and verifies; one moved to another seat and the
    // bundle signed again is found by the chain.
    let (_, document) = verified_bundle(&app, &session).await;
    let round = &document["session"]["tournaments"][0]["rounds"][0];
    assert_eq!(round["leftovers"].as_array().map(Vec::len), Some(9), "{round}");
    assert_eq!(
        round["leftovers"][0],
        json!({"amount": 12, "from": "pool:pope", "seq": 1, "table": 1, "to": "seat:0"})
    );
    assert_eq!(document["session"]["tournaments"][0]["leftover"], "share");
    let found = forged_refusal(&document, |d| {
        d["session"]["tournaments"][0]["rounds"][0]["leftovers"][0]["to"] = json!("seat:1")
    });
    assert!(found.contains("tournaments"), "{found}");
}

#[sqlx::test(migrations = "./migrations")]
async fn bank_moves_the_pools_to_the_bank_which_the_settle_up_pays(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, session, tournament, members) = pope_joan_night(&app, Some("bank")).await;
    let (table, closed) = play_and_close(&app, &token, &tournament, &members).await;

    let moved = moves(&closed);
    assert_eq!(moved.len(), 8, "one transfer per division that holds chips: {moved:?}");
    assert!(moved
        .iter()
        .all(|(from, to, _)| from.starts_with("pool:") && to == "bank"));
    assert_eq!(moved.iter().map(|m| m.2).sum::<i64>(), 34);

    // The players' nets are as played (-22, -9, -3); the bank holds the 34.
    let (nets, _) = settle_up(&app, &session).await;
    assert_eq!(
        nets,
        vec![
            (members[0].clone(), -22),
            (members[1].clone(), -9),
            (members[2].clone(), -3),
            ("bank".to_owned(), 34),
        ]
    );
    let standings = app
        .get(&format!("/api/v1/sessions/{session}/standings"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(standings["pools_chips"], 0);
    assert_eq!(standings["banked_chips"], 34);
    assert_eq!(standings["total_chips"], -34);
    assert_eq!(ledger_nets(&app, &session).await, (vec![-22, -9, -3], 0, 34));
    assert_audit_consistent(&app, &table).await;
}

#[sqlx::test(migrations = "./migrations")]
async fn keep_the_default_leaves_the_pools_as_they_were(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, session, tournament, members) = pope_joan_night(&app, None).await;
    let (_table, closed) = play_and_close(&app, &token, &tournament, &members).await;
    assert!(moves(&closed).is_empty());
    let (nets, leftovers) = settle_up(&app, &session).await;
    assert_eq!(
        nets,
        vec![
            (members[0].clone(), -22),
            (members[1].clone(), -9),
            (members[2].clone(), -3),
            ("pools".to_owned(), 34),
        ]
    );
    assert!(leftovers.is_null(), "none: {leftovers}");
    assert_eq!(ledger_nets(&app, &session).await, (vec![-22, -9, -3], 34, 0));
}

#[sqlx::test(migrations = "./migrations")]
async fn an_unknown_leftover_rule_is_refused_and_nothing_is_stored(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, session, members) = three_of_a_club(&app).await;
    for rule in ["carry_on", "Share", "pot"] {
        let refused = app
            .post(
                &format!("/api/v1/sessions/{session}/tournaments"),
                &token,
                json!({"name": "Pope Joan", "game": "pope-joan", "format": {"kind": "fixed"}, "rounds": 1,
                       "entrants": members, "scoring": {"kind": "chips"}, "leftover": rule}),
            )
            .await;
        let problem = refused.assert_status(422);
        assert!(
            problem["code"] == "unknown_variant" || problem["code"] == "invalid_body",
            "{problem}"
        );
        assert!(
            problem["detail"]
                .as_str()
                .is_some_and(|d| d.contains("keep") || d.contains("leftover")),
            "{problem}"
        );
    }
    let listed = app
        .get(&format!("/api/v1/sessions/{session}/tournaments"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(listed["items"], json!([]));
}

/// Round 1 as the module's header says leaves 34 in the pools; `carry` books them to the bank
/// and round 2's table opens with them on the same divisions. By hand, round 2: the carry (Pope
/// 12, Matrimony 4, Intrigue 4, Ace, King, Queen, Knave 2 each, Game 6) and seat 0's dressing of
/// 20 (80, 100, 100) make the board 54: Pope 18, Matrimony 6, Intrigue 6, the honours 3 each,
/// Game 12. The 7♥ turned up; seat 1 goes out and wins Game (12) and 2 + 3 a card: 78, 117, 97.
/// Seat 1 dresses deal 2: 78, 97, 97, the board 62 (Pope 24, Matrimony 8, Intrigue 8, the
/// honours 4 each, Game 6). 272 + 62 = 334, the 300 issued and the 34 carried. Round 2 is the
/// last: its 62 go to the bank. The evening: P1 -22 - 22 = -44, P2 -9 - 3 = -12, P3 -3 - 3 =
/// -6; the bank 62 (34 in, 34 out onto round 2's board, 62 in).
#[sqlx::test(migrations = "./migrations")]
async fn carry_puts_the_pools_on_the_next_round_s_table_and_the_last_round_s_in_the_bank(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, session, tournament, members) = pope_joan_rounds(&app, Some("carry"), 2).await;
    let (first, closed) = play_and_close(&app, &token, &tournament, &members).await;
    let moved = moves(&closed);
    assert_eq!(moved.len(), 8, "{moved:?}");
    assert!(moved
        .iter()
        .all(|(from, to, _)| from.starts_with("pool:") && to == "bank"));
    assert_eq!(moved.iter().map(|m| m.2).sum::<i64>(), 34);

    let started = app
        .post(&format!("/api/v1/tournaments/{tournament}/rounds"), &token, json!({}))
        .await
        .assert_status(201)
        .clone();
    let second = started["tables"][0]["table_id"].as_str().expect("table").to_owned();
    let opened = app
        .get(&format!("/api/v1/tables/{second}"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(
        opened["options"]["opening_pools"],
        json!({"pope": 12, "matrimony": 4, "intrigue": 4, "ace": 2, "king": 2, "queen": 2, "knave": 2, "game": 6}),
        "{opened}"
    );
    let ledger = app
        .get(&format!("/api/v1/tables/{second}/ledger"))
        .await
        .assert_status(200)
        .clone();
    let carried: Vec<&Value> = ledger["bookings"]
        .as_array()
        .expect("bookings")
        .iter()
        .filter(|b| b["memo"] == "chips carried onto the board")
        .collect();
    assert_eq!(carried.len(), 1, "{ledger}");
    accept(&app, &second, &token, json!({"kind": "turn_up", "card": "7H"})).await;
    accept(
        &app,
        &second,
        &token,
        json!({"kind": "result", "out": 1, "cards_left": [2, 0, 3], "specials": [[], [], []]}),
    )
    .await;
    let ledger = app
        .get(&format!("/api/v1/tables/{second}/ledger"))
        .await
        .assert_status(200)
        .clone();
    let balance = |account: &str| {
        ledger["balances"]
            .as_array()
            .and_then(|b| b.iter().find(|x| x["account"] == account))
            .map_or_else(
                || ledger["balances"][account].as_i64().unwrap_or(0),
                |x| x["balance"].as_i64().unwrap_or(0),
            )
    };
    assert_eq!(
        [
            "seat:0",
            "seat:1",
            "seat:2",
            "pool:pope",
            "pool:matrimony",
            "pool:ace",
            "pool:game"
        ]
        .map(balance),
        [78, 97, 97, 24, 8, 4, 6],
        "{ledger}"
    );
    let closed = app
        .post(
            &format!("/api/v1/tournaments/{tournament}/rounds/2/close"),
            &token,
            json!({}),
        )
        .await
        .assert_status(200)
        .clone();
    let last: i64 = closed["played_rounds"][1]["tables"][0]["leftover"]
        .as_array()
        .expect("leftover")
        .iter()
        .inspect(|m| assert_eq!(m["to"], "bank", "{m}"))
        .map(|m| m["chips"].as_i64().expect("chips"))
        .sum();
    assert_eq!(last, 62);
    assert_eq!(
        closed["played_rounds"][1]["tables"][0]["result"]["scores"],
        json!([-22, -3, -3])
    );

    let (nets, _) = settle_up(&app, &session).await;
    assert_eq!(
        nets,
        vec![
            (members[0].clone(), -44),
            (members[1].clone(), -12),
            (members[2].clone(), -6),
            ("bank".to_owned(), 62),
        ]
    );
    let standings = app
        .get(&format!("/api/v1/sessions/{session}/standings"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(
        (standings["pools_chips"].clone(), standings["banked_chips"].clone()),
        (json!(0), json!(62))
    );
    for table in [&first, &second] {
        assert_audit_consistent(&app, table).await;
    }
    // The carry is in the chain: the next table's options (its record) and the round's moves.
    let (_, document) = verified_bundle(&app, &session).await;
    assert_eq!(document["session"]["tournaments"][0]["leftover"], "carry");
    // The final checkpoint's standings, bank and pools included, are the bundle's.
    let kept = crate::helpers::finalised_and_verified(&app, &token, &session).await;
    assert_eq!(kept["checkpoint"]["standings"]["banked_chips"], 62, "{kept}");
}

/// A tournament's tables open with what its carry carries, and nothing else: `opening_pools` in
/// its options would put chips on every round's boards.
#[sqlx::test(migrations = "./migrations")]
async fn a_tournament_with_opening_pools_is_refused_and_nothing_is_stored(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, session, members) = three_of_a_club(&app).await;
    let refused = app
        .post(
            &format!("/api/v1/sessions/{session}/tournaments"),
            &token,
            json!({"name": "Pope Joan", "game": "pope-joan", "format": {"kind": "fixed"}, "rounds": 2,
                   "entrants": members, "scoring": {"kind": "chips"}, "leftover": "carry",
                   "options": {"opening_pools": {"pope": 10}}}),
        )
        .await;
    let problem = refused.assert_status(422);
    assert_eq!(problem["code"], "invalid_option", "{problem}");
    assert!(
        problem["detail"].as_str().is_some_and(|d| d.contains("opening_pools")),
        "{problem}"
    );
    let listed = app
        .get(&format!("/api/v1/sessions/{session}/tournaments"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(listed["items"], json!([]));
}

/// The club says where leftover pools go (`keep` until it says otherwise): a tournament naming
/// no `leftover` takes the club's rule as it is made, and keeps it; one naming its own keeps
/// that. A rule that is not one of the four is refused and changes nothing.
#[sqlx::test(migrations = "./migrations")]
async fn a_tournament_naming_no_leftover_takes_the_club_s_rule(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, session, members) = three_of_a_club(&app).await;
    let club = app.get(&format!("/api/v1/sessions/{session}")).await.assert_status(200)["club_id"]
        .as_str()
        .expect("club")
        .to_owned();
    let path = format!("/api/v1/clubs/{club}/leftover");
    assert_eq!(
        app.get(&path).await.assert_status(200).clone(),
        json!({"leftover": "keep"})
    );
    let set = |rule: Value| {
        app.request(
            reqwest::Method::PUT,
            &path,
            Some(&token),
            Some(json!({ "leftover": rule })),
        )
    };
    assert_eq!(
        set(json!("bank")).await.assert_status(200).clone(),
        json!({"leftover": "bank"})
    );
    for bad in [json!("pot"), json!("Bank"), json!("carry_on")] {
        let problem = set(bad).await.assert_status(422).clone();
        assert!(
            problem["code"] == "unknown_variant" || problem["code"] == "invalid_body",
            "{problem}"
        );
    }
    assert_eq!(app.get(&path).await.assert_status(200)["leftover"], "bank");

    let made_at = format!("/api/v1/sessions/{session}/tournaments");
    let make = |leftover: Option<&str>| {
        let mut body = json!({
            "name": "Pope Joan", "game": "pope-joan",
            "options": {"dressing": "dealer_alone", "board_total": 20},
            "format": {"kind": "fixed"}, "rounds": 1, "deals_per_round": 1,
            "entrants": members, "scoring": {"kind": "chips"},
        });
        if let Some(rule) = leftover {
            body["leftover"] = json!(rule);
        }
        app.post(&made_at, &token, body)
    };
    let own = make(Some("keep")).await.assert_status(201).clone();
    assert_eq!(own["leftover"], "keep");
    let made = make(None).await.assert_status(201).clone();
    assert_eq!(made["leftover"], "bank");
    // The club changing its mind later changes nothing made already.
    set(json!("share")).await.assert_status(200);
    let tournament = made["id"].as_str().expect("id").to_owned();
    assert_eq!(
        app.get(&format!("/api/v1/tournaments/{tournament}"))
            .await
            .assert_status(200)["leftover"],
        "bank"
    );
    let (_, closed) = play_and_close(&app, &token, &tournament, &members).await;
    let moved = moves(&closed);
    assert_eq!(moved.iter().map(|m| m.2).sum::<i64>(), 34, "{moved:?}");
    assert!(moved.iter().all(|(_, to, _)| to == "bank"), "{moved:?}");
}
