//! Recording at the table from the phone page in a real headless Chromium (the rig is
//! `browser.rs`'s): a game of each kind, undo, two phones at one table, a move made offline, the
//! organiser's session and join code, and the big screen.

use fantoccini::Locator;
use serde_json::json;
use sqlx::PgPool;

use crate::browser::{rig, seat_name, DOWN, LOSE_ANSWERS, ONE_BROWSER, PATIENCE, UP};

#[sqlx::test(migrations = "./migrations")]
async fn a_scorer_joins_by_code_and_records_a_two_deal_nomination_whist_game_card_by_card(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [1, 2]})).await;
    let phone = rig.scorer(&table).await;
    phone.wait_for_text("Deal 1 of 2").await;
    phone.wait_for_text("Trumps ♠ spades").await;

    // Deal 1, one card each: Bob, Cat, Dan, then Ann (the dealer) nominate; Bob leads.
    for (seat, n) in [(1, 1), (2, 0), (3, 0), (0, 1)] {
        phone.wait_for_text(&format!("{} nominates", seat_name(seat))).await;
        phone.record(&format!("Nominate {n}")).await;
    }
    phone.screenshot("table-nomination-whist").await;
    for card in ["ace of spades", "two of spades", "three of hearts", "four of diamonds"] {
        phone.record(card).await;
    }
    // Deal 2, two cards each, hearts trumps; Cat leads.
    phone.wait_for_text("Deal 2 of 2").await;
    phone.wait_for_text("Trumps ♥ hearts").await;
    for n in [1, 0, 1, 0] {
        phone.record(&format!("Nominate {n}")).await;
    }
    phone.wait_for_text("Cat to play").await;
    // Cat ♥K wins the first trick, then leads ♣2; Ann's ♥A trumps it.
    for card in ["king of hearts", "two of hearts", "three of hearts", "four of hearts"] {
        phone.record(card).await;
    }
    // An illegal tap is impossible: the cards played this deal are disabled.
    assert!(
        !phone.enabled("king of hearts").await,
        "a card played this deal is not tappable"
    );
    assert!(!phone.enabled("three of hearts").await);
    for card in ["two of clubs", "five of clubs", "ace of hearts", "six of clubs"] {
        phone.record(card).await;
    }
    phone.wait_for_text("Game over").await;
    phone.wait_for_text("The game is over").await;

    // The page's totals are the server's.
    let server = rig.totals(&table).await;
    assert_eq!(phone.totals().await, server);
    assert_eq!(server, vec![11, 21, 21, 20]);
    phone.tap("Score sheet").await;
    phone.wait_for_text("Total").await;
    phone.screenshot("score-sheet").await;
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn undo_takes_back_the_last_entry_and_a_refusal_shows_its_sentence(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let options = json!({"hand_sizes": [1, 2], "hook_from_hand_size": 1});
    let table = rig
        .app
        .table(&rig.organiser, &["Ann", "Bob", "Cat", "Dan"], options)
        .await;
    let phone = rig.scorer(&table).await;
    phone.record("Nominate 1").await;
    phone.wait_for_text("Cat nominates").await;
    // Undo names the entry it voids and asks once.
    phone.tap("Undo Bob nominated 1").await;
    assert_eq!(rig.log_len(&table).await, 1, "nothing undone before the answer");
    phone.record("Yes, undo Bob nominated 1").await;
    phone.wait_for_text("Bob nominates").await;
    let log = rig.app.log(&table).await;
    assert_eq!(log[0]["voided_by"], 2, "{log}");
    assert_eq!(
        rig.app.state(&table).await["state"]["nominations"],
        json!([]),
        "Bob's nomination undone"
    );

    // The result form checks the tricks as you go; the server's refusal (here the hook rule:
    // the dealer's nomination makes them add up to the hand size) is shown in words.
    phone.tap("Result").await;
    for who in ["Bob", "Cat", "Dan"] {
        phone.fill(&format!("{who} nominations"), "0").await;
    }
    phone.fill("Ann tricks", "1").await;
    phone.wait_for_text("nominations still to choose: Ann").await;
    phone.fill("Ann nominations", "0").await;
    phone.wait_for_text("Adds up.").await;
    phone.fill("Ann nominations", "1").await;
    let before = rig.app.snapshot(&table).await;
    phone.tap("Record result").await;
    phone.wait_for_text("the hook rule forbids the dealer").await;
    let body = phone.body_text().await;
    assert!(!body.contains("hook_rule"), "no raw codes: {body}");
    assert_eq!(rig.app.snapshot(&table).await, before, "nothing changed");
    // Nothing typed is lost: corrected, the same form records the deal.
    phone.fill("Ann nominations", "0").await;
    phone.record("Record result").await;
    phone.wait_for_text("Deal 2 of 2").await;
    assert_eq!(phone.totals().await, rig.totals(&table).await);
    assert_eq!(rig.totals(&table).await, vec![1, 10, 10, 10]);
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_second_phone_records_first_and_the_first_phone_is_told_what_it_recorded(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [1, 2]})).await;
    let first = rig.scorer(&table).await;
    let second = rig.scorer_named(&table, "Bob's phone").await;
    // The two phones tap at once: the first has not heard of the second's entry yet.
    rig.proxy.hold_streams(true);
    second.record("Nominate 1").await;
    // The first phone still shows Bob to nominate; its entry meets the other phone's.
    first.tap("Nominate 0").await;
    first.wait_for_text("Bob's phone recorded Bob nominated 1.").await;
    first
        .wait_for_text("Your entry (Bob nominated 0) was not recorded")
        .await;
    // The refused entry stays, to be dealt with before Cat's nomination is offered: never
    // entered again for Cat.
    first
        .wait_for_text("Bob nominated 0 — not recorded, another phone was first")
        .await;
    assert_eq!(rig.log_len(&table).await, 1, "only the second phone's entry is stored");
    assert!(
        !first.body_text().await.contains("Cat nominates"),
        "Cat's nomination is held back"
    );
    first.tap("Discard Bob nominated 0").await;
    first.wait_for_text("live").await;
    first.wait_for_text("Cat nominates").await;
    assert_eq!(rig.log_len(&table).await, 1, "the discarded entry is never sent");
    rig.proxy.hold_streams(false);
    first.close().await;
    second.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_phone_follows_the_table_live_when_another_phone_records(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [1, 2]})).await;
    let watching = rig.scorer(&table).await;
    let recording = rig.scorer_named(&table, "Cat's phone").await;
    recording.record("Nominate 1").await;
    // No tap, no reload: the stream brings the other phone's entry, named by who recorded it.
    watching.wait_for_text("Cat's phone recorded Bob nominated 1").await;
    watching.wait_for_text("Cat nominates").await;
    // And an entry recorded through the API by anyone else arrives the same way.
    rig.app
        .post(
            &format!("/api/v1/tables/{table}/moves"),
            &rig.organiser,
            json!({"move": {"kind": "nominate", "seat": 2, "tricks": 0}}),
        )
        .await
        .assert_status(201);
    watching.wait_for_text("The organiser recorded Cat nominated 0").await;
    watching.wait_for_text("Dan nominates").await;
    recording.wait_for_text("Dan nominates").await;
    // The watching phone recorded nothing, yet kept a receipt for each entry the stream brought.
    let kept = watching
        .client
        .execute(
            "return JSON.parse(localStorage.getItem(arguments[0]))",
            vec![json!(format!("tk.receipts.{table}"))],
        )
        .await
        .expect("the phone's receipts");
    let kept = kept.as_array().expect("receipts kept");
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert!(
        kept.iter()
            .all(|r| r["table"] == table.as_str() && r["signature"].is_string()),
        "{kept:?}"
    );
    assert!(kept[0]["position"].as_i64() < kept[1]["position"].as_i64(), "{kept:?}");
    watching.close().await;
    recording.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_move_made_while_the_server_is_unreachable_is_queued_and_stored_once(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [1, 2]})).await;
    let phone = rig.scorer(&table).await;

    // The request reaches the server but its answer is lost: the phone keeps the entry.
    rig.proxy.set(LOSE_ANSWERS);
    phone.tap("Nominate 1").await;
    phone.wait_for_text("offline · 1 pending").await;
    phone.wait_for_text("Bob nominated 1 — pending").await;
    phone.screenshot("offline-pending").await;
    assert_eq!(rig.log_len(&table).await, 1, "stored by the server, unanswered");
    // The connection returns: the retry with the same key is answered, not stored again.
    rig.proxy.set(UP);
    phone.wait_for_text("Cat nominates").await;
    phone.wait_for_text("live").await;

    // Unreachable altogether: nothing arrives until the server is back.
    rig.proxy.set(DOWN);
    phone.tap("Nominate 0").await;
    phone.wait_for_text("offline · 1 pending").await;
    assert_eq!(rig.log_len(&table).await, 1);
    // Every move the page sends names the deal it was entered for (the server's deal guard).
    let queued = phone.queued(&table).await;
    assert_eq!(queued[0]["body"]["deal"], 1, "{queued}");
    // Reopened without a signal: the service worker has the page, the phone its table and queue.
    phone.client.refresh().await.expect("reload");
    phone.wait_for_text("offline · 1 pending").await;
    phone.wait_for_text("Cat nominated 0 — pending").await;
    rig.proxy.set(UP);
    phone.tap("Retry now").await;
    phone.wait_for_text("Dan nominates").await;
    let log = rig.app.log(&table).await;
    assert_eq!(log.as_array().expect("log").len(), 2, "each entry stored once: {log}");
    assert_eq!(log[0]["move"], json!({"kind": "nominate", "seat": 1, "tricks": 1}));
    assert_eq!(log[1]["move"], json!({"kind": "nominate", "seat": 2, "tricks": 0}));
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_pope_joan_deal_is_turned_up_and_entered_as_a_result_and_a_run_is_played(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let players = ["Ann", "Bob", "Cat", "Dan"];
    let table = rig
        .app
        .game_table(&rig.organiser, "pope-joan", &players, json!({}))
        .await;
    let phone = rig.scorer(&table).await;
    phone.wait_for_text("Turn-up card").await;
    phone.record("five of clubs").await;
    phone.wait_for_text("Trumps ♣ clubs").await;
    phone.tap("Result").await;
    phone.fill("Went out", "Bob").await;
    for (who, left) in [("Ann", "3"), ("Cat", "4"), ("Dan", "5")] {
        phone.fill(&format!("{who} cards left"), left).await;
    }
    // Every special is said, even when nobody played it: never "nothing" by omission.
    for card in ["9♦", "A♣", "K♣", "Q♣", "J♣"] {
        phone.fill(&format!("{card} played by"), "not played").await;
    }
    phone
        .fill("The Pope (9♦) still held by", "nobody / the spare hand")
        .await;
    phone.record("Record result").await;
    phone.wait_for_text("Deal 2 of 4").await;
    assert_eq!(phone.totals().await, rig.totals(&table).await);
    assert_eq!(rig.totals(&table).await, vec![88, 104, 90, 89]);
    phone.tap("Ledger").await;
    phone.wait_for_text("Balances").await;
    // The treasurer's download: the link names the export, which the page fetches with its
    // reading token (issue #25: a plain follow without one is refused).
    let link = phone.client.find(Locator::Css("a.csv")).await.expect("a CSV link");
    let href = link.attr("href").await.expect("href").expect("an href");
    assert_eq!(href, format!("/api/v1/tables/{table}/ledger?format=csv"));
    rig.app.get_anonymous(&href).await.assert_problem(401, "missing_token");
    let download = rig
        .app
        .client
        .get(format!("{}{href}", rig.app.base))
        .bearer_auth(&rig.organiser)
        .send()
        .await
        .expect("download");
    assert!(download.headers()["content-type"]
        .to_str()
        .expect("type")
        .starts_with("text/csv"));
    phone.close().await;

    // Card by card: Bob leads, the run's next card is offered to every seat, then a stop.
    let table = rig
        .app
        .game_table(&rig.organiser, "pope-joan", &players, json!({}))
        .await;
    let phone = rig.scorer(&table).await;
    phone.record("five of clubs").await;
    phone.wait_for_text("Bob to play").await;
    phone.record("seven of hearts").await;
    phone.wait_for_text("Next card: 8♥").await;
    phone.record("Cat plays 8♥").await;
    phone.screenshot("table-pope-joan").await;
    phone.record("Stop (nobody can go on)").await;
    phone.wait_for_text("Cat to play").await;
    assert!(!phone.enabled("seven of hearts").await, "a played card is not tappable");
    assert!(phone.enabled("nine of hearts").await);
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_tridge_deal_is_entered_as_a_result(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig
        .app
        .game_table(&rig.organiser, "tridge", &["Ann", "Bob", "Cat"], json!({}))
        .await;
    let phone = rig.scorer(&table).await;
    phone.wait_for_text("Game Fund").await;
    phone.tap("Result").await;
    let form = |id: &'static str| phone.client.find(Locator::Id(id));
    form("r-player")
        .await
        .expect("player")
        .select_by_label("Bob")
        .await
        .expect("Bob");
    form("r-contract")
        .await
        .expect("contract")
        .select_by_label("play")
        .await
        .expect("play");
    form("r-trumps")
        .await
        .expect("trumps")
        .select_by_label("♥ hearts")
        .await
        .expect("hearts");
    for (who, tricks) in [("Ann", "2"), ("Bob", "5"), ("Cat", "2")] {
        phone.fill(&format!("{who} tricks"), tricks).await;
    }
    phone.record("Record result").await;
    assert_eq!(phone.totals().await, rig.totals(&table).await);
    assert_eq!(rig.totals(&table).await, vec![465, 480, 465]);

    // Deal 2 card by card: Cat (the dealer's left) wins the auction and declares, the
    // exchanges and the defence are tapped, then the first card.
    phone.tap("Card by card").await;
    phone.wait_for_text("Cat to bid").await;
    phone.record("play").await;
    phone.record("Pass").await;
    phone.record("Pass").await;
    phone.wait_for_text("Cat declares").await;
    phone.record("play ♥ hearts").await;
    phone.record("Exchange 3").await;
    phone.wait_for_text("Who is 1st Defender?").await;
    phone.record("Ann").await;
    phone.record("Exchange 3").await;
    phone.record("Exchange 2").await;
    phone.wait_for_text("Cat to play").await;
    phone.record("ace of hearts").await;
    phone.wait_for_text("Ann to play").await;
    assert!(!phone.enabled("ace of hearts").await, "a played card is not tappable");
    phone.screenshot("table-tridge-play").await;
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_tridge_deal_everyone_passes_is_passed_out_from_the_page(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig
        .app
        .game_table(&rig.organiser, "tridge", &["Ann", "Bob", "Cat"], json!({}))
        .await;
    let phone = rig.scorer(&table).await;
    phone.wait_for_text("Bob to bid").await;
    for who in ["Bob", "Cat", "Ann"] {
        phone.wait_for_text(&format!("{who} to bid")).await;
        phone.record("Pass").await;
    }
    // Everyone passed: No Tricks for each seat, the Fixed Trick auction from the dealer's left
    // (a bid or a pass), or pass out.
    phone.wait_for_text("Everyone passed").await;
    for who in ["Ann", "Bob", "Cat"] {
        assert!(phone.enabled(&format!("{who}: no tricks")).await);
    }
    assert!(phone.enabled("Bob passes").await);
    phone.wait_for_text("Bob: Fixed Trick bid").await;
    let state = rig.app.state(&table).await;
    assert_eq!(state["state"]["phase"], "all_passed");
    phone.record("Pass out").await;
    phone.wait_for_text("Deal 2").await;
    let state = rig.app.state(&table).await;
    assert_eq!(state["state"]["deal"], 2);
    assert_eq!(phone.totals().await, rig.totals(&table).await);
    let log = rig.app.log(&table).await;
    let kinds: Vec<&str> = log
        .as_array()
        .expect("log")
        .iter()
        .map(|e| e["move"]["kind"].as_str().expect("kind"))
        .collect();
    assert_eq!(kinds, ["pass", "pass", "pass", "pass_out"]);
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_dividend_deal_is_recorded_trick_by_trick(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig
        .app
        .game_table(&rig.organiser, "dividend", &["Ann", "Bob", "Cat", "Dan"], json!({}))
        .await;
    let phone = rig.scorer(&table).await;
    let winners = [1, 1, 2, 3, 0, 0, 1, 2, 2, 3, 0, 1, 1];
    for (i, seat) in winners.iter().enumerate() {
        phone.record(&format!("{} won trick {}", seat_name(*seat), i + 1)).await;
    }
    phone.wait_for_text("Deal 2").await;
    assert_eq!(phone.totals().await, rig.totals(&table).await);
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_newmarket_deal_is_laid_out_and_entered_as_a_result_and_the_next_is_played_from_the_legal_cards(
    pool: PgPool,
) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig
        .app
        .game_table(&rig.organiser, "newmarket", &["Ann", "Bob", "Cat", "Dan"], json!({}))
        .await;
    let phone = rig.scorer(&table).await;
    // The layout form starts on four pool cards of different suits, one stake on each.
    phone.wait_for_text("The layout").await;
    phone.record("Record layout").await;
    let pools = rig.app.state(&table).await["state"]["pool_cards"].clone();
    assert_eq!(pools, json!(["AC", "KD", "QH", "JS"]));

    phone.tap("Result").await;
    phone.fill("Went out", "Bob").await;
    for (who, left) in [("Ann", "3"), ("Cat", "2"), ("Dan", "4")] {
        phone.fill(&format!("{who} cards left"), left).await;
    }
    phone.fill("A♣ pool won by", "Bob").await;
    for pool in ["K♦", "Q♥", "J♠"] {
        phone.fill(&format!("{pool} pool won by"), "nobody").await;
    }
    phone.record("Record result").await;
    phone.wait_for_text("Deal 2").await;
    assert_eq!(phone.totals().await, rig.totals(&table).await);
    let log = rig.app.log(&table).await;
    assert_eq!(
        log[1]["move"]["pool_winners"],
        json!([{"pool_card": "AC", "seat": 1}]),
        "only the pool won, by its card: {log}"
    );

    // Deal 2 card by card. The sevens are out of the pack: the server does not list them, so
    // the picker does not offer them although nobody has played them.
    phone.record("Record layout").await;
    phone.tap("Card by card").await;
    let state = rig.app.state(&table).await;
    let leader = state["state"]["to_act"].as_u64().expect("a seat leads") as usize;
    phone.wait_for_text(&format!("{} to play", seat_name(leader))).await;
    let legal = &state["state"]["legal_moves"][0];
    assert_eq!(legal["kind"], "play");
    assert!(!legal["cards"].as_array().expect("cards").contains(&json!("7S")));
    assert!(
        !phone.enabled("seven of spades").await,
        "a card not in legal_moves cannot be tapped"
    );
    phone.record("two of clubs").await;
    phone.wait_for_text("Next card: 3♣").await;
    phone.record("Cat plays 3♣").await;
    phone.wait_for_text("Next card: 4♣").await;
    phone.screenshot("table-newmarket").await;
    assert_eq!(rig.app.state(&table).await["state"]["played"], json!(["2C", "3C"]));
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_spin_run_is_played_and_stopped_with_spin_beside_a_card(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig
        .app
        .game_table(&rig.organiser, "spin", &["Ann", "Bob", "Cat", "Dan"], json!({}))
        .await;
    let phone = rig.scorer(&table).await;
    phone.wait_for_text("Bob to play").await;
    // The 8♦ and 2♥ are out of Spin's pack: not offered, though unplayed.
    assert!(
        !phone.enabled("eight of diamonds").await,
        "a card not in legal_moves cannot be tapped"
    );
    assert!(!phone.enabled("two of hearts").await);
    phone.record("five of clubs").await;
    phone.wait_for_text("Next card: 6♣").await;
    phone.record("Dan plays 6♣").await;
    // The holder of the seven and Spin says "seven and Spin": a stop, and three from each.
    phone.record("Cat plays 7♣ with Spin").await;
    phone.wait_for_text("Cat to play").await;
    let state = rig.app.state(&table).await;
    assert_eq!(state["state"]["cards_left"], json!([12, 12, 11, 11]));
    assert_eq!(state["state"]["chips"], json!([94, 96, 108, 96]));
    assert_eq!(phone.totals().await, rig.totals(&table).await);
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_tricky_dick_first_trick_and_a_lay_are_tapped_on_the_squares_deck(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig
        .app
        .game_table(&rig.organiser, "tricky-dick", &["Ann", "Bob", "Cat", "Dan"], json!({}))
        .await;
    let phone = rig.scorer(&table).await;
    phone.wait_for_text("Trick 1: Ann's face-up card").await;
    for card in ["3 blue square", "1 red circle", "4 green heart"] {
        phone.tap(card).await;
    }
    phone.wait_for_text("Trick 1: Dan's face-up card").await;
    assert!(
        !phone.enabled("3 blue square").await,
        "a card already chosen cannot be tapped again"
    );
    phone.record("2 yellow triangle").await;
    let state = rig.app.state(&table).await;
    assert_eq!(
        state["state"]["last_trick"]["cards"].as_array().expect("trick 1").len(),
        4
    );
    let next = state["state"]["to_act"].as_u64().expect("the winner leads") as usize;
    phone
        .wait_for_text(&format!("{} to lay a card to trick 2", seat_name(next)))
        .await;
    assert!(
        !phone.enabled("4 green heart").await,
        "a card laid this hand is not listed"
    );
    phone.record("4 blue square").await;
    phone.screenshot("table-tricky-dick").await;
    assert_eq!(phone.totals().await, rig.totals(&table).await);
    // Cards show as a number and a coloured shape, never in their notation: in the trick, the
    // last trick and the log.
    phone
        .client
        .find(Locator::Css(".trick .sq.sq-blue[aria-label='4 blue square']"))
        .await
        .expect("the card laid shows in the trick");
    phone
        .client
        .find(Locator::Css(
            ".last-trick .sq.sq-yellow[aria-label='2 yellow triangle']",
        ))
        .await
        .expect("trick 1 shows as the last trick");
    phone.tap("Deals").await;
    phone.wait_for_text("trick 1: Ann").await;
    let log = phone.client.find_all(Locator::Css(".log .sq")).await.expect("faces");
    assert_eq!(log.len(), 5, "trick 1's four cards and the lay");
    let text = phone.body_text().await;
    for raw in ["3BS", "1RC", "4GH", "2YT", "4BS"] {
        assert!(!text.contains(raw), "{raw} shown raw:\n{text}");
    }
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_tricky_dick_hand_is_entered_as_a_result_and_the_page_totals_are_the_servers(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig
        .app
        .game_table(
            &rig.organiser,
            "tricky-dick",
            &["Ann", "Bob", "Cat", "Dan"],
            json!({"hands": 2}),
        )
        .await;
    let phone = rig.scorer(&table).await;
    phone.wait_for_text("Hand 1 of 2").await;
    phone.tap("Result").await;
    // Trick chips no hand can give are not sent: four players at +16 add up to more than 48.
    for who in ["Ann", "Bob", "Cat", "Dan"] {
        phone.fill(&format!("{who} trick chips"), "16").await;
    }
    phone.wait_for_text("the trick chips add up to 64").await;
    phone.screenshot("table-tricky-dick-result").await;
    assert!(
        !phone.enabled("Record result").await,
        "an impossible result cannot be sent"
    );
    for (who, chips, penalties) in [
        ("Ann", "5", "2"),
        ("Bob", "-3", "0"),
        ("Cat", "0", "1"),
        ("Dan", "2", "0"),
    ] {
        phone.fill(&format!("{who} trick chips"), chips).await;
        phone.fill(&format!("{who} penalties"), penalties).await;
    }
    // Entered without a signal, so that what the page will send can be read from its queue:
    // the result carries the hand it was entered for, which the server guards.
    let before = phone.version().await;
    rig.proxy.set(DOWN);
    phone.tap("Record result").await;
    phone.wait_for_text("offline · 1 pending").await;
    let queued = phone.queued(&table).await;
    assert_eq!(queued[0]["body"]["deal"], 1, "{queued}");
    assert_eq!(queued[0]["body"]["move"]["kind"], "result");
    rig.proxy.set(UP);
    phone.tap("Retry now").await;
    phone.wait_for_version(before + 1).await;
    phone.wait_for_text("Hand 2 of 2").await;
    assert_eq!(rig.totals(&table).await, vec![3, -3, -1, 2]);
    assert_eq!(phone.totals().await, rig.totals(&table).await);
    let log = rig.app.log(&table).await;
    assert_eq!(
        log[0]["move"],
        json!({"kind": "result", "trick_chips": [5, -3, 0, 2], "penalties": [2, 0, 1, 0]})
    );
    // The next hand starts from trick 1 again, and the score sheet lists the hand.
    phone.tap("Card by card").await;
    phone.wait_for_text("Trick 1: Ann's face-up card").await;
    phone.tap("Score sheet").await;
    phone.wait_for_text("Total").await;
    let sheet_totals = phone
        .client
        .find_all(Locator::Css(".sheet tfoot td"))
        .await
        .expect("totals row");
    let mut shown = Vec::new();
    for cell in sheet_totals {
        shown.push(cell.text().await.expect("text").parse::<i64>().expect("a number"));
    }
    assert_eq!(shown, rig.totals(&table).await);
    assert_eq!(
        phone
            .client
            .find_all(Locator::Css(".sheet tbody tr"))
            .await
            .expect("rows")
            .len(),
        1
    );
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn an_organiser_opens_a_session_and_a_table_and_shows_its_join_code(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let phone = rig.phone().await;
    phone.open("/").await;
    phone.wait_for_text("Join a table").await;
    phone.screenshot("start").await;
    phone.tap("Sign in / register").await;
    phone.fill("Email", "org@example.com").await;
    phone.fill("Password", "correct horse battery").await;
    phone.tap("Log in").await;
    phone.tap("Your sessions").await;
    phone.fill("New session", "Tuesday club night").await;
    phone.tap("Create session").await;
    phone.tap("New table").await;
    phone.fill("Hand sizes (numbers separated by commas)", "1, 2").await;
    phone.tap("Open the table").await;
    let code = phone
        .client
        .wait()
        .at_most(PATIENCE)
        .for_element(Locator::Css("[data-code]"))
        .await
        .expect("code");
    let code = code.attr("data-code").await.expect("attr").expect("a code");
    assert_eq!(code.len(), 8);
    assert!(phone.client.find(Locator::Css("svg.qr")).await.is_ok(), "a QR code");
    phone.screenshot("join-code").await;
    phone.tap("Back to the session").await;
    phone.wait_for_text("Table 1: Nomination Whist").await;
    phone.screenshot("session").await;
    // The QR link opens the start screen with the code filled in.
    phone.open(&format!("/?join={code}")).await;
    phone.fill("This phone's name", "Bob's phone").await;
    phone.tap("Join").await;
    phone.wait_for_text("Deal 1 of 2").await;
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn the_big_screen_shows_every_table_of_a_session_and_follows_each_move(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let session = rig.app.session(&rig.organiser, "Thursday").await;
    let mut tables = Vec::new();
    for game in ["nomination-whist", "pope-joan"] {
        let body = json!({"game": game, "players": ["Ann", "Bob", "Cat", "Dan"], "session_id": session,
            "options": if game == "nomination-whist" { json!({"hand_sizes": [1, 2]}) } else { json!({}) }});
        let id = rig
            .app
            .post("/api/v1/tables", &rig.organiser, body)
            .await
            .assert_status(201)["id"]
            .as_str()
            .expect("id")
            .to_owned();
        tables.push(id);
    }
    // The organiser's Big screen makes a share link and opens the board with it: the board reads
    // the session with the link's token, not the organiser's.
    let board = rig.phone().await;
    board.open("/").await;
    board
        .client
        .execute(
            "localStorage.setItem('tk.organiser', arguments[0])",
            vec![json!(rig.organiser)],
        )
        .await
        .expect("signed in");
    board.open(&format!("/#/session/{session}")).await;
    board.tap("Big screen").await;
    // The session page names the tables too: the board is up once the address carries the link.
    board
        .wait_for_address("the board's, with a share link", |a| {
            a.query().is_some_and(|q| q.starts_with("share="))
        })
        .await;
    board.wait_for_text("Table 1: Nomination Whist").await;
    let links = rig
        .app
        .get_as(&format!("/api/v1/sessions/{session}/share-links"), &rig.organiser)
        .await;
    assert_eq!(links.assert_status(200)["items"][0]["label"], "Big screen");
    board.wait_for_text("Table 2: Pope Joan").await;
    board.wait_for_text("Bob to act").await;
    board.wait_for_text("live").await;

    // A move recorded elsewhere reaches the screen through the session's stream.
    let result = json!({"move": {"kind": "result", "nominations": [0, 1, 0, 0], "tricks": [0, 1, 0, 0]}});
    let answer = rig
        .app
        .post(&format!("/api/v1/tables/{}/moves", tables[0]), &rig.organiser, result)
        .await
        .assert_status(201)
        .clone();
    board.wait_for_text("Deal 2 of 2").await;
    // The board kept each table's receipts from the stream, as a phone keeps its answers'.
    board.wait_for_text("Receipts (3)").await;
    let kept = board
        .client
        .execute(
            "return JSON.parse(localStorage.getItem(arguments[0]))",
            vec![json!(format!("tk.receipts.{}", tables[0]))],
        )
        .await
        .expect("the board's receipts");
    let last = kept.as_array().and_then(|k| k.last()).expect("receipts kept");
    assert_eq!(last["position"], answer["receipt"]["position"], "{kept}");
    assert_eq!(last["head"], answer["receipt"]["head"], "{kept}");
    // Its download, as the page makes it, verifies against the session's bundle.
    let downloaded = board
        .client
        .execute(
            "const a = document.querySelector('a.receipts');
             const made = URL.createObjectURL;
             let file = null;
             URL.createObjectURL = (blob) => { file = blob; return made.call(URL, blob); };
             a.addEventListener('click', (e) => e.preventDefault(), { once: true });
             a.click();
             URL.createObjectURL = made;
             return file.text().then(JSON.parse);",
            vec![],
        )
        .await
        .expect("the board's download");
    let receipts = tablekeeper::service::receipts::read(&downloaded).expect("the download reads");
    assert_eq!(receipts.len(), 3, "{downloaded}");
    let key = rig.app.get("/api/v1/audit-key").await.assert_status(200)["public_key"]
        .as_str()
        .map(tablekeeper::service::receipts::public_key)
        .expect("a key")
        .expect("an Ed25519 key");
    let bundle = rig
        .app
        .as_reader(
            rig.app
                .client
                .get(format!("{}/api/v1/sessions/{session}/audit-bundle", rig.app.base)),
        )
        .send()
        .await
        .expect("bundle")
        .bytes()
        .await
        .expect("bundle body");
    let summary = tablekeeper::service::bundle::verify_with(&bundle, &[key], &receipts).expect("verified");
    assert!(summary.contains("3 receipts found in the chains"), "{summary}");
    let totals = rig.totals(&tables[0]).await;
    assert_eq!(totals, [10, 11, 10, 10]);
    board.wait_for_text("Cat to act").await;
    let shown = board
        .client
        .find(Locator::Css("[data-table] .seat-total"))
        .await
        .expect("totals shown");
    assert!(!shown.text().await.expect("text").is_empty());
    board.screenshot("board").await;
    board.close().await;
}
