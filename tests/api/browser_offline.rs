//! The phone page's outbox in a real headless Chromium, driven by labels as a person would (the
//! rig is `browser.rs`'s): entries recorded offline and delivered in order, a refusal or a
//! conflict in the middle of the queue, a hung request.

use serde_json::{json, Value};
use sqlx::PgPool;

use crate::browser::{rig, DOWN, HANG, ONE_BROWSER, UP};
use crate::browser_deals::{results, whist_result};

#[sqlx::test(migrations = "./migrations")]
async fn five_results_entered_offline_are_queued_in_order_and_delivered_when_the_connection_returns(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [1, 1, 2, 1, 1, 1]})).await;
    let phone = rig.scorer(&table).await;
    rig.proxy.set(DOWN);
    phone.tap("Result").await;
    let entered: [([u8; 4], [u8; 4]); 5] = [
        ([1, 0, 0, 0], [1, 0, 0, 0]),
        ([0, 1, 0, 0], [0, 1, 0, 0]),
        // Deal 3 is of two cards: the page knows it from the table's options.
        ([0, 0, 1, 1], [0, 0, 1, 1]),
        ([0, 0, 0, 0], [0, 0, 0, 1]),
        ([1, 1, 0, 0], [1, 0, 0, 0]),
    ];
    for (n, (nominations, tricks)) in entered.iter().enumerate() {
        if n > 0 {
            // The page cannot know what is legal card by card without the server: the next
            // deal is offered as a result.
            phone
                .wait_for_text(&format!("Deal {}: enter it as a result", n + 1))
                .await;
        }
        whist_result(&phone, *nominations, *tricks).await;
        phone.wait_for_text(&format!("{} pending", n + 1)).await;
    }
    phone.wait_for_text("offline · 5 pending").await;
    phone.screenshot("offline-queue").await;
    assert_eq!(rig.log_len(&table).await, 0, "nothing reached the server");
    // Each waits with its own key and the deal it was entered for, in order.
    let queued = phone.queued(&table).await;
    let queued = queued.as_array().expect("queue");
    assert_eq!(queued.len(), 5);
    let deals: Vec<&Value> = queued.iter().map(|q| &q["body"]["deal"]).collect();
    assert_eq!(deals, [1, 2, 3, 4, 5]);
    let mut keys: Vec<&str> = queued.iter().map(|q| q["key"].as_str().expect("key")).collect();
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(keys.len(), 5, "a key each");

    rig.proxy.set(UP);
    // The page also retries by itself when the connection returns: it may be first.
    phone.tap_if_offered("Retry now").await;
    phone.wait_for_text("Deal 6 of 6").await;
    phone.wait_for_text("live").await;
    let stored = results(&rig.app.log(&table).await);
    let expected: Vec<(Value, Value)> = entered.iter().map(|(n, t)| (json!(n), json!(t))).collect();
    assert_eq!(stored, expected, "stored once each, in the order entered");
    assert_eq!(phone.totals().await, rig.totals(&table).await);
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_refused_entry_in_the_middle_of_the_queue_stops_it_and_the_rest_are_kept_and_sent_once_it_is_fixed(
    pool: PgPool,
) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    // The hook rule from one card: the dealer may not make the nominations add up to 1.
    let table = rig
        .whist(json!({"hand_sizes": [1, 1, 1, 1], "hook_from_hand_size": 1}))
        .await;
    let phone = rig.scorer(&table).await;
    rig.proxy.set(DOWN);
    phone.tap("Result").await;
    whist_result(&phone, [0, 0, 0, 0], [1, 0, 0, 0]).await;
    // Deal 2: Bob deals and his nomination of 1 makes them add up: the server will refuse it.
    phone.wait_for_text("Deal 2: enter it as a result").await;
    whist_result(&phone, [0, 1, 0, 0], [0, 1, 0, 0]).await;
    phone.wait_for_text("Deal 3: enter it as a result").await;
    whist_result(&phone, [0, 0, 0, 0], [0, 0, 1, 0]).await;
    phone.wait_for_text("offline · 3 pending").await;

    rig.proxy.set(UP);
    // The page also retries by itself when the connection returns: it may be first.
    phone.tap_if_offered("Retry now").await;
    phone
        .wait_for_text("Result of deal 2 — refused: the hook rule forbids the dealer")
        .await;
    assert_eq!(
        rig.log_len(&table).await,
        1,
        "deal 1 stored, the queue stopped at deal 2"
    );
    let queued = phone.queued(&table).await;
    let deals: Vec<&Value> = queued
        .as_array()
        .expect("queue")
        .iter()
        .map(|q| &q["body"]["deal"])
        .collect();
    assert_eq!(deals, [2, 3], "nothing after the refusal is lost");
    phone.wait_for_text("2 pending").await;

    // Fixed on the same form (what was typed is still there): Bob nominated nothing.
    phone.fill("Bob nominations", "0").await;
    phone.wait_for_text("Adds up.").await;
    phone.tap("Record result").await;
    phone.wait_for_text("Deal 4 of 4").await;
    let stored = results(&rig.app.log(&table).await);
    assert_eq!(
        stored,
        [
            (json!([0, 0, 0, 0]), json!([1, 0, 0, 0])),
            (json!([0, 0, 0, 0]), json!([0, 1, 0, 0])),
            (json!([0, 0, 0, 0]), json!([0, 0, 1, 0])),
        ]
    );
    assert_eq!(phone.totals().await, rig.totals(&table).await);
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_conflict_in_the_offline_queue_is_shown_for_fixing_and_the_later_deals_are_kept_and_delivered(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [1, 1, 1, 1]})).await;
    let first = rig.scorer(&table).await;
    // Bob's phone reaches the server directly: only the first phone's Wi-Fi drops.
    let code = rig.join_code(&table).await;
    let second = rig.driver.phone(&rig.app.base).await;
    second.open("/").await;
    second.fill("Join code", &code).await;
    second.fill("This phone's name", "Bob's phone").await;
    second.tap("Join").await;
    second.version().await;

    rig.proxy.set(DOWN);
    first.tap("Result").await;
    whist_result(&first, [1, 0, 0, 0], [1, 0, 0, 0]).await;
    first.wait_for_text("Deal 2: enter it as a result").await;
    whist_result(&first, [0, 1, 0, 0], [0, 1, 0, 0]).await;
    first.wait_for_text("Deal 3: enter it as a result").await;
    whist_result(&first, [0, 0, 0, 0], [0, 0, 1, 0]).await;
    first.wait_for_text("offline · 3 pending").await;
    // Meanwhile Bob's phone records deal 1 as it saw it.
    second.tap("Result").await;
    whist_result(&second, [0, 0, 0, 0], [0, 0, 0, 1]).await;
    second.wait_for_text("Deal 2 of 4").await;
    assert_eq!(rig.log_len(&table).await, 1);

    rig.proxy.set(UP);
    // The page also retries by itself when the connection returns: it may be first.
    first.tap_if_offered("Retry now").await;
    // The deal-1 entry stops the queue, in words; nothing after it is lost or sent past it.
    first
        .wait_for_text("Result of deal 1 — not recorded, another phone was first: Bob's phone recorded a deal result.")
        .await;
    first
        .wait_for_text("Your entry (Result of deal 1) was not recorded: deal 1 is recorded already")
        .await;
    let body = first.body_text().await;
    assert!(
        !body.contains("version"),
        "no versions in what the scorer reads: {body}"
    );
    assert_eq!(rig.log_len(&table).await, 1, "only Bob's phone's deal 1 is stored");
    let queued = first.queued(&table).await;
    let deals: Vec<&Value> = queued
        .as_array()
        .expect("queue")
        .iter()
        .map(|q| &q["body"]["deal"])
        .collect();
    assert_eq!(deals, [1, 2, 3], "the conflicting entry and everything after it kept");

    first.tap("Discard the result of deal 1").await;
    first.wait_for_text("Deal 4 of 4").await;
    let stored = results(&rig.app.log(&table).await);
    assert_eq!(
        stored,
        [
            (json!([0, 0, 0, 0]), json!([0, 0, 0, 1])),
            (json!([0, 1, 0, 0]), json!([0, 1, 0, 0])),
            (json!([0, 0, 0, 0]), json!([0, 0, 1, 0])),
        ],
        "Bob's deal 1, then this phone's deals 2 and 3, each once"
    );
    assert_eq!(first.totals().await, rig.totals(&table).await);
    second.wait_for_text("Deal 4 of 4").await;
    first.close().await;
    second.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_result_that_met_a_conflict_is_sent_again_while_its_deal_is_still_the_one_the_table_waits_for(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [1, 1]})).await;
    let phone = rig.scorer(&table).await;
    rig.proxy.set(DOWN);
    phone.tap("Result").await;
    whist_result(&phone, [1, 0, 0, 0], [1, 0, 0, 0]).await;
    phone.wait_for_text("offline · 1 pending").await;
    // Another phone nominates for Bob and undoes it: the table moved on, deal 1 still waits.
    for path in ["moves", "undo"] {
        let body = if path == "moves" {
            json!({"move": {"kind": "nominate", "seat": 1, "tricks": 0}})
        } else {
            json!({})
        };
        rig.app
            .post(&format!("/api/v1/tables/{table}/{path}"), &rig.organiser, body)
            .await
            .assert_status(if path == "moves" { 201 } else { 200 });
    }
    rig.proxy.set(UP);
    // The page also retries by itself when the connection returns: it may be first.
    phone.tap_if_offered("Retry now").await;
    phone.wait_for_text("Deal 2 of 2").await;
    let stored = results(&rig.app.log(&table).await);
    assert_eq!(stored, [(json!([1, 0, 0, 0]), json!([1, 0, 0, 0]))]);
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_hung_request_times_out_becomes_offline_and_is_retried_with_its_key(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [1, 2]})).await;
    let phone = rig.scorer(&table).await;
    phone
        .client
        .execute("localStorage.setItem('tk.timeoutMs', '1500')", vec![])
        .await
        .expect("a shorter timeout");
    phone.client.refresh().await.expect("reload");
    phone.wait_for_text("Bob nominates").await;

    // The request reaches the server; its answer never comes back, the connection stays open.
    rig.proxy.set(HANG);
    phone.tap("Nominate 1").await;
    phone.wait_for_text("offline · 1 pending").await;
    assert_eq!(rig.log_len(&table).await, 1, "stored by the server, unanswered");
    // Retry works while it is hung (never stuck on "1 pending"): it times out again.
    phone.tap("Retry now").await;
    phone.wait_for_text("offline · 1 pending").await;
    // The connection returns: the next try (by itself, or a tap on Retry now) is answered.
    rig.proxy.set(UP);
    phone.wait_for_text("Cat nominates").await;
    phone.wait_for_text("live").await;
    let log = rig.app.log(&table).await;
    assert_eq!(
        log.as_array().expect("log").len(),
        1,
        "the retry with the same key is not stored again: {log}"
    );
    assert_eq!(log[0]["move"], json!({"kind": "nominate", "seat": 1, "tricks": 1}));
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn offline_mid_deal_the_rest_of_the_deal_is_recorded_as_a_result_and_stored_once_in_order_when_the_server_is_back(
    pool: PgPool,
) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [2, 1]})).await;
    let phone = rig.scorer(&table).await;
    // Deal 1 card by card, online: the nominations and Bob's lead.
    for n in [1, 1, 1, 0] {
        phone.record(&format!("Nominate {n}")).await;
    }
    phone.record("seven of diamonds").await;
    assert_eq!(rig.log_len(&table).await, 5);

    // The Wi-Fi drops: Cat's card waits, and Dan's is offered next (the trick plan); the scorer
    // chooses to finish the deal as a result instead.
    rig.proxy.set(DOWN);
    phone.tap("eight of diamonds").await;
    phone.wait_for_text("offline · 1 pending").await;
    phone.wait_for_text("Dan to play").await;
    // The rest of the deal as a result: the entries so far are set aside.
    phone.tap("Result").await;
    phone
        .wait_for_text("after undoing the 6 entries of deal 1 made so far")
        .await;
    whist_result(&phone, [0, 1, 1, 1], [0, 1, 1, 0]).await;
    phone.wait_for_text("Deal 2: enter it as a result").await;
    whist_result(&phone, [1, 0, 0, 1], [1, 0, 0, 0]).await;
    // The card, six undos (it and the five before it, the latest first), two results.
    phone.wait_for_text("offline · 9 pending").await;
    assert_eq!(rig.log_len(&table).await, 5, "nothing more reached the server");
    let queued = phone.queued(&table).await;
    let paths: Vec<&str> = queued
        .as_array()
        .expect("queue")
        .iter()
        .map(|q| q["path"].as_str().expect("path"))
        .collect();
    assert_eq!(
        paths,
        ["moves", "undo", "undo", "undo", "undo", "undo", "undo", "moves", "moves"]
    );

    rig.proxy.set(UP);
    phone.tap_if_offered("Retry now").await;
    phone.wait_for_text("Game over").await;
    phone.wait_for_text("live").await;
    let log = rig.app.log(&table).await;
    assert_eq!(
        log.as_array().expect("log").len(),
        5 + 1 + 6 + 2,
        "each stored once: {log}"
    );
    assert_eq!(
        results(&log),
        [
            (json!([0, 1, 1, 1]), json!([0, 1, 1, 0])),
            (json!([1, 0, 0, 1]), json!([1, 0, 0, 0])),
        ],
        "the cards set aside (undone), the two results in force"
    );
    // The page's log and totals are the server's.
    assert_eq!(phone.totals().await, rig.totals(&table).await);
    phone.tap("Deals").await;
    phone.wait_for_text("Deal 2").await;
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn offline_mid_trick_the_rest_of_the_deal_is_entered_card_by_card_and_stored_once_in_order_when_the_server_is_back(
    pool: PgPool,
) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    // Deal 1: three cards each, spades trumps (the rotation), Ann deals, Bob leads.
    let table = rig.whist(json!({"hand_sizes": [3, 1]})).await;
    let phone = rig.scorer(&table).await;
    for n in [1, 1, 0, 0] {
        phone.record(&format!("Nominate {n}")).await;
    }
    phone.record("ace of hearts").await;
    assert_eq!(rig.log_len(&table).await, 5);

    // The server cannot be reached from the second card of the first trick to the deal's end.
    rig.proxy.set(DOWN);
    let tricks: [(&[&str], &str, &str); 3] = [
        // Ann trumps Bob's ace; she leads the next.
        (
            &["two of hearts", "three of hearts", "two of spades"],
            "Trick 1 won by Ann",
            "Ann to play",
        ),
        (
            &["king of clubs", "queen of clubs", "ace of clubs", "four of diamonds"],
            "Trick 2 won by Cat",
            "Cat to play",
        ),
        (
            &[
                "five of hearts",
                "six of hearts",
                "seven of diamonds",
                "eight of hearts",
            ],
            "Trick 3 won by Bob",
            "",
        ),
    ];
    let mut queued = 0;
    for (cards, won, next) in tricks {
        for card in cards {
            phone.tap(card).await;
            queued += 1;
            phone.wait_for_text(&format!("offline · {queued} pending")).await;
        }
        phone.wait_for_text(won).await;
        if !next.is_empty() {
            phone.wait_for_text(next).await;
        }
        if queued == 3 {
            phone.screenshot("offline-cards").await;
            // A card tapped by mistake is taken back (it was never sent), the right one entered.
            phone.tap("ten of clubs").await;
            phone.wait_for_text("offline · 4 pending").await;
            phone.tap("Take back 10♣ for Ann").await;
            phone.wait_for_text("Taken back: 10♣ for Ann (it was not sent).").await;
            phone.wait_for_text("offline · 3 pending").await;
            phone.wait_for_text("Ann to play").await;
        }
    }
    // The deal played out, the next is offered as a result (its cards need the server).
    phone.wait_for_text("Deal 2: enter it as a result").await;
    whist_result(&phone, [0, 0, 0, 0], [1, 0, 0, 0]).await;
    phone.wait_for_text("offline · 12 pending").await;
    assert_eq!(rig.log_len(&table).await, 5, "nothing more reached the server");
    let queue = phone.queued(&table).await;
    let plays: Vec<(i64, String)> = queue
        .as_array()
        .expect("queue")
        .iter()
        .filter(|q| q["body"]["move"]["kind"] == "play")
        .map(|q| {
            let m = &q["body"]["move"];
            (
                m["seat"].as_i64().expect("seat"),
                m["card"].as_str().expect("card").to_owned(),
            )
        })
        .collect();
    let seats: Vec<i64> = plays.iter().map(|(s, _)| *s).collect();
    // Each card for the seat whose turn it was: the winner of each trick leading the next.
    assert_eq!(seats, [2, 3, 0, 0, 1, 2, 3, 2, 3, 0, 1], "{queue}");

    rig.proxy.set(UP);
    phone.tap_if_offered("Retry now").await;
    phone.wait_for_text("Game over").await;
    phone.wait_for_text("live").await;
    let log = rig.app.log(&table).await;
    let moves = log.as_array().expect("log");
    assert_eq!(moves.len(), 5 + 11 + 1, "each stored once: {log}");
    let stored: Vec<(i64, String)> = moves[5..16]
        .iter()
        .map(|e| {
            (
                e["move"]["seat"].as_i64().expect("seat"),
                e["move"]["card"].as_str().expect("card").to_owned(),
            )
        })
        .collect();
    assert_eq!(stored, plays, "stored in the order entered");
    // The server's tricks are the page's: Ann, Cat and Bob won one each.
    let won: Vec<i64> = moves
        .iter()
        .flat_map(|e| e["events"].as_array().cloned().unwrap_or_default())
        .filter(|ev| ev["event"] == "trick_won")
        .map(|ev| ev["winner"].as_i64().expect("winner"))
        .collect();
    assert_eq!(won, [0, 2, 1]);
    assert_eq!(phone.totals().await, rig.totals(&table).await);
    phone.close().await;
}
