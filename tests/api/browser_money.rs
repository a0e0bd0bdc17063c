//! The money screen (issue #44) in a real headless Chromium at 390×844: an evening of two tables
//! played, a Pope Joan tournament's table whose round closed with the `bank` leftover rule and a
//! Newmarket table whose pools keep what nobody won. The screen's payments, nets, pools and
//! bank are `GET /sessions/{id}/settlement`'s, read from both; it says where the pools' chips
//! go; a chip value refused by the server is shown in its words and changes nothing; one set on
//! the page prices the payments (read back from the API); a treasurer reads the screen and
//! clears the value; axe finds nothing serious and nothing scrolls sideways.

use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};
use sqlx::PgPool;

use crate::browser::{rig, Phone, Rig, ONE_BROWSER, PATIENCE};
use crate::browser_table::{axe, scrolls_sideways};
use crate::clubs::enrol;
use crate::helpers::accept;

async fn api_get(rig: &Rig, path: &str) -> Value {
    rig.app
        .request(Method::GET, path, Some(&rig.organiser), None)
        .await
        .assert_status(200)
        .clone()
}

/// The organiser's session with Ann, Bob and Cat of its club: a one-round, one-deal Pope Joan
/// tournament with `leftover: bank` (its round closed, its pools' 34 chips moved to the bank;
/// tests/api/leftover.rs works the deal out), and a Newmarket table of Ann, Bob, Cat and Dan
/// whose deal leaves the unwon pool cards' chips in its pools: (session, club).
pub(crate) async fn an_evening(rig: &Rig) -> (String, String) {
    let (app, token) = (&rig.app, rig.organiser.as_str());
    let session = app.session(token, "Friday").await;
    let club = api_get(rig, &format!("/api/v1/sessions/{session}")).await["club_id"]
        .as_str()
        .expect("club")
        .to_owned();
    let mut members = Vec::new();
    for name in ["Ann", "Bob", "Cat"] {
        let made = app
            .post(&format!("/api/v1/clubs/{club}/members"), token, json!({"name": name}))
            .await;
        members.push(made.assert_status(201)["id"].as_str().expect("id").to_owned());
    }
    let tournament = app
        .post(
            &format!("/api/v1/sessions/{session}/tournaments"),
            token,
            json!({"name": "Pope Joan", "game": "pope-joan", "options": {"dressing": "dealer_alone", "board_total": 20},
                   "format": {"kind": "fixed"}, "rounds": 1, "deals_per_round": 1, "entrants": members,
                   "scoring": {"kind": "chips"}, "leftover": "bank"}),
        )
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("tournament")
        .to_owned();
    let started = app
        .post(&format!("/api/v1/tournaments/{tournament}/rounds"), token, json!({}))
        .await
        .assert_status(201)
        .clone();
    let pope = started["tables"][0]["table_id"].as_str().expect("table").to_owned();
    accept(app, &pope, token, json!({"kind": "turn_up", "card": "7H"})).await;
    let result = json!({"kind": "result", "out": 1, "cards_left": [2, 0, 3], "specials": [[], [], []]});
    accept(app, &pope, token, result).await;
    app.post(
        &format!("/api/v1/tournaments/{tournament}/rounds/1/close"),
        token,
        json!({}),
    )
    .await
    .assert_status(200);

    let newmarket = app
        .post(
            "/api/v1/tables",
            token,
            json!({"game": "newmarket", "players": ["Ann", "Bob", "Cat", "Dan"], "session_id": session}),
        )
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("table")
        .to_owned();
    let layout = json!({"kind": "layout", "pool_cards": ["JD", "QH", "KC", "AS"], "stakes": ["AS", "KC", "QH", "JD"]});
    accept(app, &newmarket, token, layout).await;
    let result = json!({"kind": "result", "out": 0, "cards_left": [0, 2, 2, 2], "pool_winners": [{"pool_card": "KC", "seat": 3}]});
    accept(app, &newmarket, token, result).await;
    (session, club)
}

/// A party as the page keys it (settle.js `partyKey`).
fn key(party: &Value) -> String {
    if party["bank"] == true {
        "bank".into()
    } else if party["pools"] == true {
        "pools".into()
    } else if let Some(member) = party["member_id"].as_str() {
        format!("member:{member}")
    } else {
        format!("player:{}", party["player"].as_str().expect("player"))
    }
}

/// A number the page wrote in a data attribute, None when it wrote none.
fn number(v: &Value) -> Option<i64> {
    v.as_str().and_then(|s| s.parse().ok())
}

/// A payment: from, to, chips, and minor units when priced.
type Payment = (String, String, i64, Option<i64>);
/// A net: the party, chips, and minor units when priced.
type Net = (String, i64, Option<i64>);

/// What the money screen shows: payments (from, to, chips, minor units), nets (party, chips,
/// minor units), what the pools and the bank hold, the chip value's minor units, and the words.
#[derive(Debug, PartialEq)]
struct Shown {
    payments: Vec<Payment>,
    nets: Vec<Net>,
    pools: i64,
    bank: i64,
    chip_value: Option<i64>,
    text: String,
}

/// The money screen once it shows a chip value of `minor_units` (None: none set).
async fn shown(phone: &Phone, minor_units: Option<i64>) -> Shown {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let found = phone
            .client
            .execute(
                "const all = (css) => [...document.querySelectorAll(css)]; \
                 const value = document.querySelector('.chip-value'); \
                 const held = document.querySelector('.held'); \
                 if (!value || !held) return null; \
                 return { \
                   payments: all('.payments li').map((li) => [li.dataset.from, li.dataset.to, li.dataset.chips, li.dataset.minorUnits]), \
                   nets: all('.nets li').map((li) => [li.dataset.party, li.dataset.chips, li.dataset.minorUnits]), \
                   pools: held.dataset.pools, bank: held.dataset.bank, chip_value: value.dataset.minorUnits, \
                   text: document.body.innerText };",
                vec![],
            )
            .await
            .expect("script");
        if !found.is_null() && number(&found["chip_value"]) == minor_units {
            let rows = |name: &str| found[name].as_array().expect("rows").clone();
            return Shown {
                payments: rows("payments")
                    .iter()
                    .map(|p| {
                        (
                            p[0].as_str().expect("from").to_owned(),
                            p[1].as_str().expect("to").to_owned(),
                            number(&p[2]).expect("chips"),
                            number(&p[3]),
                        )
                    })
                    .collect(),
                nets: rows("nets")
                    .iter()
                    .map(|n| {
                        (
                            n[0].as_str().expect("party").to_owned(),
                            number(&n[1]).expect("chips"),
                            number(&n[2]),
                        )
                    })
                    .collect(),
                pools: number(&found["pools"]).expect("pools"),
                bank: number(&found["bank"]).expect("bank"),
                chip_value: number(&found["chip_value"]),
                text: found["text"].as_str().unwrap_or_default().to_owned(),
            };
        }
        if tokio::time::Instant::now() > deadline {
            panic!(
                "the money screen never showed a chip value of {minor_units:?}:\n{}",
                phone.body_text().await
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The settle-up as the screen must show it at `chip` minor units a chip (None: no chip value).
fn expected(settlement: &Value, chip: Option<i64>) -> (Vec<Payment>, Vec<Net>) {
    let payments = settlement["payments"]
        .as_array()
        .expect("payments")
        .iter()
        .map(|p| {
            (
                key(&p["from"]),
                key(&p["to"]),
                p["chips"].as_i64().expect("chips"),
                p["minor_units"].as_i64(),
            )
        })
        .collect();
    let nets = settlement["nets"]
        .as_array()
        .expect("nets")
        .iter()
        .map(|n| {
            let chips = n["chips"].as_i64().expect("chips");
            (key(&n["party"]), chips, chip.map(|c| c * chips))
        })
        .collect();
    (payments, nets)
}

fn net_of(settlement: &Value, party: &str) -> i64 {
    settlement["nets"]
        .as_array()
        .expect("nets")
        .iter()
        .find(|n| key(&n["party"]) == party)
        .map_or(0, |n| n["chips"].as_i64().expect("chips"))
}

/// Types a chip value into the form and sets it.
async fn submit(phone: &Phone, amount: &str, currency: &str) {
    phone.fill("Value of a chip", amount).await;
    phone.fill("Currency", currency).await;
    phone.tap("Set the chip value").await;
}

#[sqlx::test(migrations = "./migrations")]
async fn the_money_screen_shows_the_settle_up_and_sets_the_chip_value_refusing_a_bad_one(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let (session, club) = an_evening(&rig).await;
    let settlement = api_get(&rig, &format!("/api/v1/sessions/{session}/settlement")).await;
    assert!(
        net_of(&settlement, "pools") > 0,
        "the Newmarket pools hold chips: {settlement}"
    );
    assert_eq!(
        net_of(&settlement, "bank"),
        34,
        "the Pope Joan pools went to the bank: {settlement}"
    );
    assert!(!settlement["payments"].as_array().expect("payments").is_empty());

    // The organiser signs in and goes from the session to its money.
    let phone = rig.phone().await;
    phone.open("/#/organiser").await;
    phone.fill("Email", "org@example.com").await;
    phone.fill("Password", "correct horse battery").await;
    phone.tap("Log in").await;
    phone.wait_for_text("Sessions").await;
    phone.open(&format!("/#/session/{session}")).await;
    phone.tap("Money").await;

    // In chips: the settle-up's payments in its order, its nets, the pools and the bank.
    let before = shown(&phone, None).await;
    let (payments, nets) = expected(&settlement, None);
    assert_eq!(before.payments, payments, "{}", before.text);
    assert_eq!(before.nets[..nets.len()], nets[..], "{}", before.text);
    assert!(
        before.nets[nets.len()..].iter().all(|n| n.1 == 0),
        "only players who came out square are added: {:?}",
        before.nets
    );
    assert_eq!((before.pools, before.bank), (net_of(&settlement, "pools"), 34));
    let first = &settlement["payments"][0];
    let line = format!(
        "pays {}",
        if first["to"]["pools"] == true {
            "the pools".to_owned()
        } else if first["to"]["bank"] == true {
            "the bank".to_owned()
        } else {
            first["to"]["player"].as_str().expect("player").to_owned()
        }
    );
    assert!(before.text.contains(&line), "{line:?} in:\n{}", before.text);
    assert!(before.text.contains("No chip value is set"), "{}", before.text);
    let moved = settlement["leftovers"].as_array().map_or(0, Vec::len);
    assert!(moved > 0, "the round's close moved the pools: {settlement}");
    let heading = format!("Moved out of pools as rounds closed ({moved})");
    assert!(before.text.contains(&heading), "{heading:?} in:\n{}", before.text);
    assert!(
        before
            .text
            .contains("Chips left in the pools of Pope Joan's tables go to the bank"),
        "the tournament's rule: {}",
        before.text
    );
    assert!(
        before.text.contains(
            "Chips left in the pools of the other table stay in the pools: the settle-up counts them as the pools'"
        ),
        "the Newmarket table's pools: {}",
        before.text
    );

    // A negative value goes to the server, which refuses it: its words shown, nothing changed.
    submit(&phone, "-0.05", "GBP").await;
    phone
        .wait_for_text("a chip value is a whole number of minor units, zero or more")
        .await;
    let unchanged = api_get(&rig, &format!("/api/v1/sessions/{session}")).await;
    assert_eq!(unchanged["chip_value"], Value::Null, "{unchanged}");
    assert_eq!(
        api_get(&rig, &format!("/api/v1/sessions/{session}/settlement")).await,
        settlement
    );
    assert_eq!(
        shown(&phone, None).await.payments,
        payments,
        "the screen keeps the settle-up"
    );
    // What cannot be whole pence is said on the page and never sent.
    submit(&phone, "0.055", "GBP").await;
    phone.wait_for_text("\"0.055\" is not an amount of GBP").await;
    assert_eq!(
        api_get(&rig, &format!("/api/v1/sessions/{session}")).await["chip_value"],
        Value::Null
    );

    // 5p a chip, set on the page: the session has it, and the payments are priced as the API
    // prices them.
    submit(&phone, "0.05", "gbp").await;
    let after = shown(&phone, Some(5)).await;
    let set = api_get(&rig, &format!("/api/v1/sessions/{session}")).await;
    assert_eq!(set["chip_value"], json!({"minor_units": 5, "currency": "GBP"}), "{set}");
    let priced = api_get(&rig, &format!("/api/v1/sessions/{session}/settlement")).await;
    let (payments, nets) = expected(&priced, Some(5));
    assert!(payments.iter().all(|p| p.3 == Some(p.2 * 5)), "{priced}");
    assert_eq!(after.payments, payments, "{}", after.text);
    assert_eq!(after.nets[..nets.len()], nets[..], "{}", after.text);
    assert!(after.text.contains("A chip is worth £0.05."), "{}", after.text);
    let pounds = format!("{} chips (£{:.2})", payments[0].2, payments[0].2 as f64 * 0.05);
    assert!(after.text.contains(&pounds), "{pounds:?} in:\n{}", after.text);

    phone.screenshot("money").await;

    // The screen at 390 px: nothing serious for axe, nothing sideways.
    let mut problems = axe(&phone).await;
    if scrolls_sideways(&phone).await {
        problems.push("the money screen scrolls sideways".into());
    }
    assert!(problems.is_empty(), "{problems:#?}");

    // A treasurer of the club signs in as an organiser does, reads the same screen and clears
    // the chip value.
    let treasurer = rig.app.organiser_named("tess@example.com", "Tess").await;
    enrol(&rig.app, &rig.organiser, &club, &treasurer, "treasurer").await;
    phone
        .client
        .execute(
            "localStorage.setItem('tk.organiser', arguments[0])",
            vec![json!(treasurer)],
        )
        .await
        .expect("token");
    phone.client.refresh().await.expect("reload");
    assert_eq!(shown(&phone, Some(5)).await.payments, payments);
    phone.tap("Clear the chip value").await;
    let cleared = shown(&phone, None).await;
    assert!(cleared.payments.iter().all(|p| p.3.is_none()), "{cleared:?}");
    assert_eq!(
        api_get(&rig, &format!("/api/v1/sessions/{session}")).await["chip_value"],
        Value::Null
    );

    // Closed at once and reopened by the owner: the screen says so, with the reason, beside the
    // settle-up.
    let reason = "Dan's table was scored against the wrong seats";
    for (path, body) in [
        (
            "close",
            json!({"correction_window": "PT0S", "force": true, "reason": "the night is over"}),
        ),
        ("reopen", json!({ "reason": reason })),
    ] {
        rig.app
            .post(&format!("/api/v1/sessions/{session}/{path}"), &rig.organiser, body)
            .await
            .assert_status(200);
    }
    phone.client.refresh().await.expect("reload");
    phone.wait_for_text(reason).await;
    let line = phone
        .client
        .find(fantoccini::Locator::Css(".card-box.reopened li"))
        .await
        .expect("the reopening beside the settle-up")
        .text()
        .await
        .expect("its text");
    assert!(line.starts_with("Reopened ") && line.ends_with(reason), "{line}");
    phone.close().await;
}
