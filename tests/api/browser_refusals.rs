//! An entry another phone beat to the table (issue #44), in headless Chromium through the rig of
//! `browser.rs`: the phone is told what the other phone recorded and what it tried, and offered
//! only what it can do (enter it again for the same seat while the table still takes it, undo
//! the other phone's entry and enter its own, discard it); the next seat's controls are held back
//! until then, so the refused entry is never stored for another seat. A nomination and a card
//! online, a Tridge bid online, a result from the offline queue after reconnecting.

use std::time::Duration;

use serde_json::{json, Value};
use sqlx::PgPool;

use crate::browser::{rig, Phone, Rig, DOWN, ONE_BROWSER, UP};
use crate::browser_deals::{results, whist_result};

/// The moves stored and not undone, in order.
async fn stored(rig: &Rig, table: &str) -> Vec<Value> {
    let log = rig.app.log(table).await;
    log.as_array()
        .expect("log")
        .iter()
        .filter(|e| e["entry"] == "move" && e["voided_by"].is_null())
        .map(|e| e["move"].clone())
        .collect()
}

/// While the refusal stands, none of `next` (the next seat's controls) can be tapped, and a
/// moment later nothing more is stored.
async fn held(rig: &Rig, table: &str, phone: &Phone, next: &[&str]) {
    let before = rig.log_len(table).await;
    for name in next {
        assert!(
            !phone.offers(name).await,
            "{name:?} is offered while the refusal stands:\n{}",
            phone.body_text().await
        );
    }
    tokio::time::sleep(Duration::from_millis(600)).await;
    for name in next {
        assert!(
            !phone.offers(name).await,
            "{name:?} is offered while the refusal stands"
        );
    }
    assert_eq!(rig.log_len(table).await, before, "nothing stored meanwhile");
}

#[sqlx::test(migrations = "./migrations")]
async fn browser_a_nomination_and_a_card_beaten_by_another_phone_are_undone_theirs_or_entered_again_never_for_the_next_seat(
    pool: PgPool,
) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [1, 2]})).await;
    let first = rig.scorer(&table).await;
    let second = rig.scorer_named(&table, "Dan's phone").await;
    first.wait_for_text("Bob nominates").await;

    // A nomination: Dan's phone records Bob's first; this phone's "0 for Bob" is refused.
    rig.proxy.hold_streams(true);
    second.record("Nominate 1").await;
    first.tap("Nominate 0").await;
    first
        .wait_for_text("Dan's phone recorded Bob nominated 1. Your entry (Bob nominated 0) was not recorded.")
        .await;
    rig.proxy.hold_streams(false);
    // Cat nominates next: the refused entry cannot be entered again, and Cat's buttons are held.
    assert!(!first.offers("Enter Bob nominated 0 again").await);
    held(&rig, &table, &first, &["Nominate 0", "Nominate 1"]).await;
    assert_eq!(
        stored(&rig, &table).await,
        [json!({"kind": "nominate", "seat": 1, "tricks": 1})]
    );
    // Undo theirs and enter mine: Dan's phone's nomination voided, this phone's stored for Bob.
    first.tap("Undo Bob nominated 1, then enter Bob nominated 0").await;
    first.wait_for_version(3).await;
    first.wait_for_text("Cat nominates").await;
    let log = rig.app.log(&table).await;
    assert_eq!(log[0]["voided_by"], 2, "{log}");
    assert_eq!(log[1]["voids"], 1, "{log}");
    assert_eq!(
        stored(&rig, &table).await,
        [json!({"kind": "nominate", "seat": 1, "tricks": 0})]
    );
    for _ in 0..3 {
        first.record("Nominate 0").await;
    }
    first.wait_for_text("Bob to play").await;
    second.wait_for_text("Bob to play").await;

    // A card: Dan's phone lays 7♦ for Bob first; this phone's K♠ for Bob is refused, and Cat's
    // picker is held back.
    rig.proxy.hold_streams(true);
    second.record("seven of diamonds").await;
    first.tap("king of spades").await;
    first
        .wait_for_text("Dan's phone recorded 7♦ for Bob. Your entry (K♠ for Bob) was not recorded.")
        .await;
    rig.proxy.hold_streams(false);
    first.control("Undo 7♦ for Bob, then enter K♠ for Bob").await;
    assert!(!first.offers("Enter K♠ for Bob again").await, "Cat plays next");
    held(&rig, &table, &first, &["king of spades", "queen of hearts"]).await;
    // Dan's phone undoes its card: Bob is to play again, so K♠ for Bob may be entered again,
    // and there is nothing of theirs left to undo.
    second.tap("Undo 7♦ for Bob").await;
    second.record("Yes, undo 7♦ for Bob").await;
    first.tap("Enter K♠ for Bob again").await;
    first.wait_for_text("Cat to play").await;
    let moves = stored(&rig, &table).await;
    assert_eq!(
        moves.last(),
        Some(&json!({"kind": "play", "seat": 1, "card": "KS"})),
        "{moves:?}"
    );
    assert!(
        !moves.iter().any(|m| m["kind"] == "play" && m["seat"] != 1),
        "nothing stored for Cat: {moves:?}"
    );
    first.close().await;
    second.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn browser_a_tridge_bid_beaten_by_another_phone_is_discarded_and_only_then_is_the_next_seat_offered(
    pool: PgPool,
) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig
        .app
        .game_table(&rig.organiser, "tridge", &["Ann", "Bob", "Cat"], json!({}))
        .await;
    let first = rig.scorer(&table).await;
    let second = rig.scorer_named(&table, "Cat's phone").await;
    first.wait_for_text("Bob to bid").await;

    rig.proxy.hold_streams(true);
    second.record("Pass").await;
    first.tap("play").await;
    first
        .wait_for_text("Cat's phone recorded Bob passed. Your entry (Bob bid play) was not recorded.")
        .await;
    rig.proxy.hold_streams(false);
    // Cat bids next: Cat's bids are held, and "play" is never offered as the place to fix it.
    assert!(!first.offers("Enter Bob bid play again").await);
    first.control("Undo Bob passed, then enter Bob bid play").await;
    held(&rig, &table, &first, &["play", "Pass"]).await;
    first.tap("Discard Bob bid play").await;
    first.wait_for_text("Cat to bid").await;
    // Only now is Cat's Pass offered.
    first.control("Pass").await;
    assert_eq!(first.queued(&table).await, json!([]), "discarded");
    assert_eq!(stored(&rig, &table).await, [json!({"kind": "pass", "seat": 1})]);
    first.close().await;
    second.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn browser_a_result_queued_offline_and_beaten_by_another_phone_is_entered_after_undoing_theirs_once_reconnected(
    pool: PgPool,
) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [1, 1, 1]})).await;
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
    first.wait_for_text("offline · 2 pending").await;
    second.tap("Result").await;
    whist_result(&second, [0, 0, 0, 0], [0, 0, 0, 1]).await;
    second.wait_for_text("Deal 2 of 3").await;

    rig.proxy.set(UP);
    first.tap_if_offered("Retry now").await;
    first
        .wait_for_text(
            "Bob's phone recorded a deal result. Your entry (Result of deal 1) was not recorded: deal 1 is recorded already",
        )
        .await;
    first.wait_for_text("The 1 after it waits.").await;
    // Deal 2's form (the table as the server has it) is not offered for it.
    assert!(!first.offers("Enter the result of deal 1 again").await);
    held(&rig, &table, &first, &["Record result", "Result", "Card by card"]).await;
    assert_eq!(rig.log_len(&table).await, 1, "only Bob's phone's deal 1 is stored");

    first.tap("Undo a deal result, then enter the result of deal 1").await;
    first.wait_for_text("Deal 3 of 3").await;
    let log = rig.app.log(&table).await;
    assert_eq!(log[0]["voided_by"], 2, "{log}");
    assert_eq!(
        results(&log),
        [
            (json!([1, 0, 0, 0]), json!([1, 0, 0, 0])),
            (json!([0, 1, 0, 0]), json!([0, 1, 0, 0])),
        ],
        "this phone's deals 1 and 2, each once, deal 1 never stored as deal 2"
    );
    assert_eq!(first.totals().await, rig.totals(&table).await);
    first.close().await;
    second.close().await;
}
