//! The table screen at a real table (issue #23), in headless Chromium at 390×844 through the
//! rig of `browser.rs`: a tap bound to what the scorer saw, Undo that names and asks, results
//! as fast as a handheld, specials by seat buttons, accessibility (axe-core) and small screens.

use std::time::Duration;

use serde_json::json;
use sqlx::PgPool;

use crate::browser::{rig, Phone, ONE_BROWSER};

/// The top of the controls (Undo and the entry panel), in CSS pixels from the page's top.
async fn controls_top(phone: &Phone) -> f64 {
    phone
        .client
        .execute(
            "const c = document.querySelector('.controls'); \
             return c ? c.getBoundingClientRect().top + window.scrollY : -1",
            vec![],
        )
        .await
        .expect("script")
        .as_f64()
        .expect("a number")
}

#[sqlx::test(migrations = "./migrations")]
async fn a_tap_just_after_another_phones_entry_is_held_and_never_stored_for_the_next_seat(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [1, 2]})).await;
    let first = rig.scorer(&table).await;
    let second = rig.scorer_named(&table, "Bob's phone").await;
    first.wait_for_text("Bob nominates").await;
    let top = controls_top(&first).await;

    // Bob's phone records Bob's nomination; the first phone hears of it while its scorer's
    // finger is on the way to "Nominate 0", meant for Bob.
    rig.proxy.hold_streams(true);
    second.record("Nominate 1").await;
    rig.proxy.hold_streams(false);
    first.wait_for_text("Bob's phone recorded Bob nominated 1").await;
    let late = first.control("Nominate 0").await;
    assert!(
        first.is_held(&late).await.expect("held?"),
        "the controls are held as the entry arrives"
    );
    // The tap lands on held controls: nothing is sent (a click there is swallowed or intercepted).
    let _ = late.click().await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(rig.log_len(&table).await, 1, "the tap was not stored for Cat");
    assert_eq!(controls_top(&first).await, top, "nothing above the controls moved");

    // Then the next choice is offered, and a tap records what the scorer now sees.
    first.wait_for_text("Cat nominates").await;
    first.record("Nominate 0").await;
    let log = rig.app.log(&table).await;
    assert_eq!(
        log[1]["move"],
        json!({"kind": "nominate", "seat": 2, "tricks": 0}),
        "{log}"
    );
    assert_eq!(controls_top(&first).await, top, "nothing above the controls moved");
    first.close().await;
    second.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn undo_names_the_entry_asks_once_and_is_in_reach_during_play(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [13]})).await;
    let phone = rig.scorer(&table).await;
    for n in [3, 3, 3, 3] {
        phone.record(&format!("Nominate {n}")).await;
    }
    phone.wait_for_text("Bob to play").await;
    phone.record("seven of diamonds").await;
    // At 390×844, scrolled to the top, Undo is above the sticky tabs: no scrolling to reach it.
    let reach = phone
        .client
        .execute(
            "window.scrollTo(0, 0); \
             const u = document.querySelector('.undo').getBoundingClientRect(); \
             const t = document.querySelector('.tabs').getBoundingClientRect(); \
             return [u.top, u.bottom, t.top, window.innerHeight]",
            vec![],
        )
        .await
        .expect("script");
    let [top, bottom, tabs, height] = [0, 1, 2, 3].map(|i| reach[i].as_f64().expect("number"));
    assert!(top >= 0.0 && bottom <= tabs.min(height), "Undo in reach: {reach}");

    // Undo names the entry, and asks once: "Keep" keeps it.
    phone.tap("Undo 7♦ for Bob").await;
    phone.wait_for_text("Undo 7♦ for Bob?").await;
    phone.tap("Keep").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(rig.log_len(&table).await, 5, "nothing undone");
    phone.tap("Undo 7♦ for Bob").await;
    phone.record("Yes, undo 7♦ for Bob").await;
    let log = rig.app.log(&table).await;
    assert_eq!(log[4]["voided_by"], 6, "{log}");
    assert_eq!(log[5]["voids"], 5, "{log}");
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_conflict_says_in_words_what_the_other_phone_recorded(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [1, 2]})).await;
    let first = rig.scorer(&table).await;
    let second = rig.scorer_named(&table, "Dan's phone").await;
    rig.proxy.hold_streams(true);
    second.record("Nominate 1").await;
    first.tap("Nominate 0").await;
    first.wait_for_text("Dan's phone recorded Bob nominated 1.").await;
    let body = first.body_text().await;
    assert!(
        !body.contains("version"),
        "no versions in what the scorer reads: {body}"
    );
    assert_eq!(rig.log_len(&table).await, 1);
    rig.proxy.hold_streams(false);
    first.close().await;
    second.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_long_conflict_message_fits_its_box_on_a_small_phone(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [1, 2]})).await;
    let first = rig.scorer_sized(&table, "Ann's phone", 320, 568).await;
    let second = rig.scorer_named(&table, "Bartholomew Fotheringham's phone").await;
    first.wait_for_text("Bob nominates").await;
    let box_before = first
        .client
        .execute(
            "return document.querySelector('.notice').getBoundingClientRect().height",
            vec![],
        )
        .await
        .expect("script");
    rig.proxy.hold_streams(true);
    second.record("Nominate 1").await;
    first.tap("Nominate 0").await;
    first
        .wait_for_text("Bartholomew Fotheringham's phone recorded Bob nominated 1.")
        .await;
    // The whole message shows in the notice, which kept its height: nothing is cut off and
    // nothing below it moved.
    let fit = first
        .client
        .execute(
            "const n = document.querySelector('.notice'); const m = n.querySelector('.msg'); \
             return { text: m.textContent, scroll: n.scrollHeight, client: n.clientHeight, \
               height: n.getBoundingClientRect().height, font: parseFloat(getComputedStyle(m).fontSize) }",
            vec![],
        )
        .await
        .expect("script");
    assert!(
        fit["text"].as_str().is_some_and(|t| t.contains("was not recorded")),
        "{fit}"
    );
    assert!(
        fit["scroll"].as_f64() <= fit["client"].as_f64(),
        "the conflict's words are cut off in their box: {fit}"
    );
    assert_eq!(fit["height"], box_before, "the notice kept its height: {fit}");
    assert!(fit["font"].as_f64() >= Some(11.0), "still readable: {fit}");
    rig.proxy.hold_streams(false);
    first.close().await;
    second.close().await;
}

/// Taps counted as a person makes them: every click on the page, from now on.
async fn count_taps(phone: &Phone) {
    phone
        .client
        .execute(
            "window.__taps = 0; document.addEventListener('click', () => { window.__taps += 1; }, true);",
            vec![],
        )
        .await
        .expect("script");
}

async fn taps(phone: &Phone) -> i64 {
    phone
        .client
        .execute("return window.__taps", vec![])
        .await
        .expect("script")
        .as_i64()
        .expect("a count")
}

#[sqlx::test(migrations = "./migrations")]
async fn a_thirteen_card_nomination_whist_result_takes_at_most_ten_taps(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [13, 12]})).await;
    let phone = rig.scorer(&table).await;
    phone.tap("Result").await;
    phone.wait_for_text("nominations still to choose").await;
    count_taps(&phone).await;
    // Number buttons, one tap each: four nominations, three seats' tricks (Dan's follow).
    for (who, nom, won) in [("Ann", "4", "5"), ("Bob", "3", "3"), ("Cat", "2", "1")] {
        phone.fill(&format!("{who} nominations"), nom).await;
        phone.fill(&format!("{who} tricks"), won).await;
    }
    phone.fill("Dan nominations", "3").await;
    phone.wait_for_text("Adds up.").await;
    phone.record("Record result").await;
    let used = taps(&phone).await;
    assert!(used <= 10, "{used} taps");
    let log = rig.app.log(&table).await;
    assert_eq!(
        log[0]["move"],
        json!({"kind": "result", "nominations": [4, 3, 2, 3], "tricks": [5, 3, 1, 4]}),
        "{log}"
    );
    // The deal's summary before the next deal's panel: made or missed, and the points.
    phone.wait_for_text("Deal 1 scored").await;
    phone.wait_for_text("Bob: made 3, +13 points").await;
    phone.wait_for_text("Ann: missed 4 (won 5), +5 points").await;
    assert_eq!(phone.totals().await, rig.totals(&table).await);
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_result_the_server_would_refuse_says_why_before_it_is_sent(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [13]})).await;
    let phone = rig.scorer(&table).await;
    phone.tap("Result").await;
    phone
        .wait_for_text("nominations still to choose: Ann, Bob, Cat, Dan")
        .await;
    assert!(
        !phone.enabled("Record result").await,
        "an incomplete result cannot be sent"
    );
    for who in ["Ann", "Bob", "Cat", "Dan"] {
        phone.fill(&format!("{who} nominations"), "3").await;
    }
    for who in ["Ann", "Bob", "Cat"] {
        phone.fill(&format!("{who} tricks"), "5").await;
    }
    phone.wait_for_text("tricks add up to 15, more than 13").await;
    assert!(!phone.enabled("Record result").await);
    assert_eq!(rig.log_len(&table).await, 0, "nothing was sent");
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_pope_joan_result_with_the_pope_played_and_specials_by_seat_buttons_pays_matrimony(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig
        .app
        .game_table(&rig.organiser, "pope-joan", &["Ann", "Bob", "Cat", "Dan"], json!({}))
        .await;
    let phone = rig.scorer(&table).await;
    phone.record("five of clubs").await;
    phone.wait_for_text("Trumps ♣ clubs").await;
    phone.tap("Result").await;
    phone.fill("Went out", "Bob").await;
    for (who, left) in [("Ann", "3"), ("Cat", "4"), ("Dan", "5")] {
        phone.fill(&format!("{who} cards left"), left).await;
    }
    // Ann played the king and queen of trumps (Matrimony), Cat the Pope, Dan the ace.
    for (card, by) in [
        ("9♦", "Cat"),
        ("A♣", "Dan"),
        ("K♣", "Ann"),
        ("Q♣", "Ann"),
        ("J♣", "not played"),
    ] {
        phone.fill(&format!("{card} played by"), by).await;
    }
    // The 9♦ was played: the form asks what the server will, each hand's cards at that moment.
    phone
        .wait_for_text("cards when the 9♦ was played still to choose")
        .await;
    assert!(!phone.enabled("Record result").await);
    for (who, n) in [("Ann", "5"), ("Bob", "4"), ("Cat", "6"), ("Dan", "7")] {
        phone.fill(&format!("{who} cards when the 9♦ was played"), n).await;
    }
    phone.wait_for_text("Adds up.").await;
    phone.record("Record result").await;
    let log = rig.app.log(&table).await;
    let result = &log[1]["move"];
    assert_eq!(result["out"], 1, "{log}");
    assert_eq!(result["cards_left"], json!([3, 0, 4, 5]));
    assert_eq!(result["specials"], json!([["KC", "QC"], [], ["9D"], ["AC"]]));
    assert_eq!(result["pope_cards_left"], json!([5, 4, 6, 7]));
    // The server paid what the specials won: Matrimony to Ann, among them.
    let ledger = rig
        .app
        .get(&format!("/api/v1/tables/{table}/ledger?deal=1"))
        .await
        .assert_status(200)
        .clone();
    let memos: Vec<String> = ledger["bookings"]
        .as_array()
        .expect("bookings")
        .iter()
        .filter_map(|b| b["memo"].as_str().map(str::to_owned))
        .collect();
    assert!(memos.iter().any(|m| m.contains("Matrimony won by seat 0")), "{memos:?}");
    assert!(memos.iter().any(|m| m.contains("Pope")), "{memos:?}");
    assert_eq!(phone.totals().await, rig.totals(&table).await);
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_pope_joan_result_with_the_pope_and_two_specials_played_takes_at_most_twelve_taps(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig
        .app
        .game_table(&rig.organiser, "pope-joan", &["Ann", "Bob", "Cat", "Dan"], json!({}))
        .await;
    let phone = rig.scorer(&table).await;
    phone.record("five of clubs").await;
    phone.tap("Result").await;
    phone.wait_for_text("who went out?").await;
    count_taps(&phone).await;
    phone.fill("Went out", "Bob").await;
    for (who, left) in [("Ann", "3"), ("Cat", "4"), ("Dan", "5")] {
        phone.fill(&format!("{who} cards left"), left).await;
    }
    // Cat played the Pope, Dan the ace of trumps, Ann the king; the other specials were not
    // played, which the form says until a seat is tapped for one.
    for (card, by) in [("9♦", "Cat"), ("A♣", "Dan"), ("K♣", "Ann")] {
        phone.fill(&format!("{card} played by"), by).await;
    }
    for (who, n) in [("Ann", "5"), ("Bob", "4"), ("Cat", "6"), ("Dan", "7")] {
        phone.fill(&format!("{who} cards when the 9♦ was played"), n).await;
    }
    phone.wait_for_text("Adds up.").await;
    phone.record("Record result").await;
    let used = taps(&phone).await;
    assert!(used <= 12, "{used} taps");
    let log = rig.app.log(&table).await;
    let result = &log[1]["move"];
    assert_eq!(result["specials"], json!([["KC"], [], ["9D"], ["AC"]]), "{log}");
    assert_eq!(result["cards_left"], json!([3, 0, 4, 5]));
    assert_eq!(result["pope_cards_left"], json!([5, 4, 6, 7]));
    assert_eq!(phone.totals().await, rig.totals(&table).await);
    phone.close().await;
}

/// axe-core (vendored, MPL-2.0) run on the page as it is: the serious and critical violations.
pub(crate) async fn axe(phone: &Phone) -> Vec<String> {
    const AXE: &str = include_str!("../vendor/axe-core/axe.min.js");
    phone
        .client
        .execute(&format!("{AXE}\n;return true;"), vec![])
        .await
        .expect("axe loads");
    let found = phone
        .client
        .execute_async(
            "const done = arguments[arguments.length - 1]; \
             axe.run(document, { resultTypes: ['violations'] }).then((r) => done(r.violations \
               .filter((v) => v.impact === 'serious' || v.impact === 'critical') \
               .map((v) => `${v.impact} ${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ') + ' — ' + n.failureSummary).join(' | ')}`)), \
               (e) => done([`axe failed: ${e}`]));",
            vec![],
        )
        .await
        .expect("axe runs");
    found
        .as_array()
        .expect("a list")
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_owned())
        .collect()
}

/// True when the page is wider than the screen (a horizontal scroll).
pub(crate) async fn scrolls_sideways(phone: &Phone) -> bool {
    phone
        .client
        .execute(
            "return document.documentElement.scrollWidth > document.documentElement.clientWidth",
            vec![],
        )
        .await
        .expect("script")
        .as_bool()
        .expect("a flag")
}

#[sqlx::test(migrations = "./migrations")]
async fn no_serious_accessibility_violation_on_any_screen(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let mut problems = Vec::new();
    // The start screen and the organiser's.
    let phone = rig.phone().await;
    phone.open("/").await;
    phone.wait_for_text("Join a table").await;
    problems.extend(axe(&phone).await.into_iter().map(|p| format!("start: {p}")));
    phone.open("/#/organiser").await;
    phone.wait_for_text("Sign in or register").await;
    problems.extend(axe(&phone).await.into_iter().map(|p| format!("organiser: {p}")));
    // The new-table form, built from the catalogue, with each game's options as controls.
    let session = rig.app.session(&rig.organiser, "Thursday").await;
    phone
        .client
        .execute(
            "localStorage.setItem('tk.organiser', arguments[0])",
            vec![json!(rig.organiser)],
        )
        .await
        .expect("signed in");
    phone.open(&format!("/#/session/{session}/new")).await;
    phone.wait_for_text("Options (defaults shown)").await;
    let games = rig.app.get("/api/v1/games").await;
    for game in games.assert_status(200).as_array().expect("games") {
        let id = game["id"].as_str().expect("id");
        let shown = phone
            .client
            .execute(
                "const s = document.getElementById('game'); s.value = arguments[0]; \
                 s.dispatchEvent(new Event('change')); return document.querySelectorAll('[data-option]').length",
                vec![json!(id)],
            )
            .await
            .expect("game chosen");
        assert!(shown.as_u64().expect("a count") > 0, "{id}'s options are shown");
        problems.extend(axe(&phone).await.into_iter().map(|p| format!("new {id} table: {p}")));
    }
    phone.close().await;
    // A table of each game, and the tabs of one.
    for game in [
        "nomination-whist",
        "dividend",
        "tridge",
        "tricky-dick",
        "pope-joan",
        "spin",
        "newmarket",
    ] {
        let table = rig
            .app
            .game_table(&rig.organiser, game, &["Ann", "Bob", "Cat", "Dan"], json!({}))
            .await;
        let phone = rig.scorer(&table).await;
        phone.wait_for_text("Nothing to undo yet").await;
        problems.extend(axe(&phone).await.into_iter().map(|p| format!("{game} table: {p}")));
        if game == "pope-joan" {
            phone.record("five of clubs").await;
            phone.tap("Result").await;
            phone.wait_for_text("Went out").await;
            problems.extend(axe(&phone).await.into_iter().map(|p| format!("{game} result: {p}")));
            for (tab, text) in [("Score sheet", "Total"), ("Ledger", "Balances"), ("Deals", "Deal 1")] {
                phone.tap(tab).await;
                phone.wait_for_text(text).await;
                problems.extend(axe(&phone).await.into_iter().map(|p| format!("{tab}: {p}")));
            }
        }
        phone.close().await;
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[sqlx::test(migrations = "./migrations")]
async fn a_dividend_result_is_tapped_in_tens_and_units_and_the_last_seat_follows_from_the_pack(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig
        .app
        .game_table(&rig.organiser, "dividend", &["Ann", "Bob", "Cat", "Dan"], json!({}))
        .await;
    let phone = rig.scorer_sized(&table, "Ann's phone", 320, 568).await;
    phone.tap("Result").await;
    phone
        .wait_for_text("cards won still to choose: Ann, Bob, Cat, Dan")
        .await;
    assert!(!scrolls_sideways(&phone).await, "the tens and units at 320 px");
    let smallest = phone
        .client
        .execute(
            "return Math.min(...[...document.querySelectorAll('.keypad button, .keycell')].map((b) => { \
             const r = b.getBoundingClientRect(); return Math.min(r.width, r.height); }))",
            vec![],
        )
        .await
        .expect("script")
        .as_f64()
        .expect("a size");
    assert!(smallest >= 44.0, "keys of {smallest} px");
    // Two taps a seat at most, in order (each figure done, the next seat is chosen); Dan's
    // figure follows from the pack of 52.
    count_taps(&phone).await;
    phone.fill("Ann cards won", "20").await;
    phone.fill("Bob cards won", "12").await;
    phone.fill("Cat cards won", "8").await;
    phone.wait_for_text("Adds up.").await;
    let used = taps(&phone).await;
    assert!(used <= 6, "{used} taps");
    let dan = phone
        .client
        .execute(
            "return document.querySelector('[data-cell][aria-label$=\", Dan cards won\"]').textContent",
            vec![],
        )
        .await
        .expect("script");
    assert_eq!(dan, json!("12"), "Dan's 12 filled in");
    // Tricks are of four cards: a count the server would refuse is named before sending.
    phone.fill("Bob cards won", "13").await;
    phone.wait_for_text("Bob's 13 cards are not whole tricks of four").await;
    // Past the pack is never offered: with 50 chosen, only 0, 1 and 2 are open in the units.
    phone.fill("Ann cards won", "50").await;
    phone.wait_for_text("more than 52").await;
    assert!(!phone.enabled("Record result").await);
    phone.tap("Ann cards won").await;
    let open_units = phone
        .client
        .execute(
            "return [...document.querySelectorAll('.keypad [data-units]:not([disabled])')].map((b) => b.textContent)",
            vec![],
        )
        .await
        .expect("script");
    assert_eq!(open_units, json!(["0", "1", "2"]));
    assert_eq!(rig.log_len(&table).await, 0, "nothing sent while it does not add up");
    phone.fill("Ann cards won", "20").await;
    phone.fill("Bob cards won", "12").await;
    phone.wait_for_text("Adds up.").await;
    phone.record("Record result").await;
    let log = rig.app.log(&table).await;
    assert_eq!(
        log[0]["move"],
        json!({"kind": "result", "cards_won": [20, 12, 8, 12]}),
        "{log}"
    );
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_small_phone_never_scrolls_sideways_and_the_picker_fits_in_landscape(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [13]})).await;
    let small = rig.scorer_sized(&table, "Ann's phone", 320, 568).await;
    small.wait_for_text("Bob nominates").await;
    assert!(!scrolls_sideways(&small).await, "nominations at 320 px");
    small.tap("Result").await;
    small.wait_for_text("nominations still to choose").await;
    assert!(!scrolls_sideways(&small).await, "the result form at 320 px");
    small.tap("Card by card").await;
    for n in ["3", "3", "3", "3"] {
        small.record(&format!("Nominate {n}")).await;
    }
    small.wait_for_text("Bob to play").await;
    assert!(!scrolls_sideways(&small).await, "the card picker at 320 px");
    small.close().await;

    // Landscape: every card of the picker is on the screen at once, clear of the tabs.
    let wide = rig.scorer_sized(&table, "Bob's phone", 844, 390).await;
    wide.wait_for_text("Bob to play").await;
    let fits = wide
        .client
        .execute(
            "const p = document.querySelector('.picker'); p.scrollIntoView({ block: 'center' }); \
             const r = p.getBoundingClientRect(); const t = document.querySelector('.tabs').getBoundingClientRect(); \
             const head = Math.max(0, document.querySelector('.table-head').getBoundingClientRect().bottom); \
             return [r.top - head, r.bottom, t.top, document.documentElement.scrollWidth > document.documentElement.clientWidth]",
            vec![],
        )
        .await
        .expect("script");
    let (top, bottom, tabs) = (
        fits[0].as_f64().expect("top"),
        fits[1].as_f64().expect("bottom"),
        fits[2].as_f64().expect("tabs"),
    );
    assert!(
        top >= 0.0 && bottom <= tabs,
        "the picker fits between the header and the tabs in landscape: {fits}"
    );
    assert_eq!(fits[3], false, "no sideways scroll in landscape");
    wide.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn tridge_contracts_fit_at_390_px_and_pass_out_stands_apart_from_pass(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig
        .app
        .game_table(&rig.organiser, "tridge", &["Ann", "Bob", "Cat"], json!({}))
        .await;
    let phone = rig.scorer(&table).await;
    phone.wait_for_text("Bob to bid").await;
    phone.record("play").await;
    phone.record("Pass").await;
    phone.record("Pass").await;
    phone.wait_for_text("Bob declares").await;
    // Every contract's label is inside its button, and no button reaches past the screen.
    let overflowing = phone
        .client
        .execute(
            "return [...document.querySelectorAll('.contracts button')] \
               .filter((b) => b.scrollWidth > b.clientWidth + 1 || b.getBoundingClientRect().right > window.innerWidth) \
               .map((b) => b.textContent)",
            vec![],
        )
        .await
        .expect("script");
    assert_eq!(overflowing, json!([]), "contracts overflowing at 390 px");
    let count = phone
        .client
        .execute("return document.querySelectorAll('.contracts button').length", vec![])
        .await
        .expect("script");
    assert!(
        count.as_u64().expect("a count") >= 10,
        "the contracts are offered: {count}"
    );
    phone.close().await;

    // Everyone passes: Pass out is set apart, well below any Pass.
    let other = rig
        .app
        .game_table(&rig.organiser, "tridge", &["Ann", "Bob", "Cat"], json!({}))
        .await;
    let phone = rig.scorer(&other).await;
    for who in ["Bob", "Cat", "Ann"] {
        phone.wait_for_text(&format!("{who} to bid")).await;
        phone.record("Pass").await;
    }
    phone.wait_for_text("Everyone passed").await;
    phone.control("Pass out").await;
    let gap = phone
        .client
        .execute(
            "const out = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Pass out'); \
             const passes = [...document.querySelectorAll('button')].filter((b) => / passes$|^Pass$/.test(b.textContent)); \
             const lowest = Math.max(...passes.map((b) => b.getBoundingClientRect().bottom)); \
             return [out.getBoundingClientRect().top - lowest, out.closest('[role=group]') === null]",
            vec![],
        )
        .await
        .expect("script");
    assert!(
        gap[0].as_f64().expect("a gap") >= 24.0,
        "Pass out apart from Pass: {gap}"
    );
    assert_eq!(gap[1], true, "Pass out is not among the bids: {gap}");
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn the_last_card_of_a_trick_shows_its_winner_and_a_deal_ends_with_its_summary(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [1, 2]})).await;
    let phone = rig.scorer(&table).await;
    for n in [1, 0, 0, 1] {
        phone.record(&format!("Nominate {n}")).await;
    }
    for card in ["ace of spades", "two of spades", "three of hearts"] {
        phone.record(card).await;
    }
    phone.record("four of diamonds").await;
    // The engine's conclusions, before the next deal's panel: Bob's ace of trumps won.
    phone.wait_for_text("Trick 1 won by Bob").await;
    phone.wait_for_text("Deal 1 scored").await;
    phone.wait_for_text("Bob: made 1, +11 points").await;
    phone.wait_for_text("Ann: missed 1 (won 0), 0 points").await;
    // Then the next deal's panel.
    phone.tap("Next deal").await;
    phone.wait_for_text("Cat nominates").await;
    assert_eq!(phone.totals().await, rig.totals(&table).await);
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_result_with_a_turned_up_trump_takes_the_card_from_the_picker_never_typed(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let options = json!({"hand_sizes": [2], "trumps": {"rule": "turned_up"}});
    let table = rig
        .app
        .table(&rig.organiser, &["Ann", "Bob", "Cat", "Dan"], options)
        .await;
    let phone = rig.scorer(&table).await;
    phone.tap("Result").await;
    for who in ["Ann", "Bob", "Cat", "Dan"] {
        phone.fill(&format!("{who} nominations"), "0").await;
    }
    for who in ["Ann", "Bob"] {
        phone.fill(&format!("{who} tricks"), "1").await;
    }
    phone.wait_for_text("which card was turned up?").await;
    assert!(!phone.enabled("Record result").await);
    phone.tap("seven of diamonds").await;
    phone.wait_for_text("Turned up: 7♦").await;
    phone.record("Record result").await;
    let log = rig.app.log(&table).await;
    assert_eq!(
        log[0]["move"],
        json!({"kind": "result", "nominations": [0, 0, 0, 0], "tricks": [1, 1, 0, 0], "turn_up": "7D"}),
        "{log}"
    );
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_spin_result_names_every_holder_and_show_by_seat_buttons(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig
        .app
        .game_table(&rig.organiser, "spin", &["Ann", "Bob", "Cat", "Dan"], json!({}))
        .await;
    let phone = rig.scorer(&table).await;
    phone.tap("Result").await;
    phone.fill("Went out", "Bob").await;
    for (who, left) in [("Ann", "3"), ("Cat", "4"), ("Dan", "5")] {
        phone.fill(&format!("{who} cards left"), left).await;
    }
    // Cat played the king of hearts; no other special was played (each is "not played" until
    // a seat is tapped for it; tapping "not played" again changes nothing).
    phone.fill("K♥ played by", "Cat").await;
    let specials = phone
        .client
        .execute(
            "const groups = [...document.querySelectorAll('[role=radiogroup]')] \
               .filter((g) => / played by$/.test(g.getAttribute('aria-label'))); \
             return groups.map((g) => g.getAttribute('aria-label'))",
            vec![],
        )
        .await
        .expect("script");
    for label in specials.as_array().expect("labels") {
        let label = label.as_str().expect("a label");
        if label != "K♥ played by" {
            phone.fill(label, "not played").await;
        }
    }
    phone.wait_for_text("who showed Matrimony? (or nobody)").await;
    assert!(!phone.enabled("Record result").await);
    phone.fill("Matrimony shown by", "nobody").await;
    phone.fill("Intrigue shown by", "nobody").await;
    phone.wait_for_text("who still holds Spin (A♦)? (or nobody)").await;
    phone.fill("Spin (A♦) still held by", "Ann").await;
    phone.wait_for_text("Adds up.").await;
    phone.record("Record result").await;
    let log = rig.app.log(&table).await;
    let result = &log[0]["move"];
    assert_eq!(result["out"], 1, "{log}");
    assert_eq!(result["cards_left"], json!([3, 0, 4, 5]));
    assert_eq!(result["specials"], json!([[], [], ["KH"], []]));
    assert_eq!(result["spin_holder"], 0);
    assert!(result.get("matrimony").is_none_or(|m| m.is_null()), "{result}");
    assert_eq!(phone.totals().await, rig.totals(&table).await);
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn when_a_deals_summary_gives_way_by_itself_the_controls_hold_still_and_take_no_tap_at_once(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [1, 2]})).await;
    let phone = rig.scorer(&table).await;
    for n in [1, 0, 0, 1] {
        phone.record(&format!("Nominate {n}")).await;
    }
    for card in ["ace of spades", "two of spades", "three of hearts", "four of diamonds"] {
        phone.record(card).await;
    }
    phone.wait_for_text("Deal 1 scored").await;
    // The scorer's thumb goes down to "Next deal"; the summary gives way before it lands. The
    // page notes where the controls were on the screen, and how they stood the moment the next
    // deal's panel was drawn.
    phone
        .client
        .execute(
            "window.scrollTo(0, document.documentElement.scrollHeight); \
             window.tkBefore = document.querySelector('.controls').getBoundingClientRect().top; window.tkParts = { parts: [...document.querySelector('.tab-body').children].map((e) => e.className + ':' + e.getBoundingClientRect().height), head: document.querySelector('header').getBoundingClientRect().height, y: window.scrollY, h: document.documentElement.scrollHeight }; \
             new MutationObserver((_, o) => { \
               const nominate = [...document.querySelectorAll('button')].some((b) => (b.getAttribute('aria-label') || b.textContent).startsWith('Nominate')); \
               const c = document.querySelector('.controls'); \
               if (!nominate || !c) return; \
               window.tkSwap = { inert: c.inert, top: c.getBoundingClientRect().top, parts: [...document.querySelector('.tab-body').children].map((e) => e.className + ':' + e.getBoundingClientRect().height), head: document.querySelector('header').getBoundingClientRect().height, y: window.scrollY }; \
               o.disconnect(); \
             }).observe(document.body, { childList: true, subtree: true });",
            vec![],
        )
        .await
        .expect("script");
    phone.control("Nominate 1").await;
    let seen = phone
        .client
        .execute("return [window.tkBefore, window.tkSwap, window.tkParts]", vec![])
        .await
        .expect("script");
    let before = seen[0].as_f64().expect("where the controls were");
    let swap = &seen[1];
    assert_eq!(
        swap["inert"], true,
        "a tap on its way is not taken by the new panel: {seen}"
    );
    let top = swap["top"].as_f64().expect("where the controls are");
    assert!(
        (top - before).abs() < 1.0,
        "the controls kept their place on the screen: {seen}"
    );
    // Then the next choice is offered and a tap records what the scorer sees.
    phone.record("Nominate 1").await;
    let log = rig.app.log(&table).await;
    assert_eq!(
        log[8]["move"],
        json!({"kind": "nominate", "seat": 2, "tricks": 1}),
        "{log}"
    );
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_phone_draws_another_phones_entries_from_the_stream_without_reading_the_table(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [1, 2]})).await;
    let watcher = rig.scorer(&table).await;
    let other = rig.scorer_named(&table, "Bob's phone").await;
    watcher.wait_for_text("Bob nominates").await;
    // From here on, every read of the table the page makes is counted (its log, scores and
    // proofs are other addresses).
    watcher.count_table_reads().await;

    // The other phone records three nominations; the watching phone shows each as it comes.
    let turns = [
        ("Bob nominates", "Nominate 1", "Cat nominates"),
        ("Cat nominates", "Nominate 0", "Dan nominates"),
        ("Dan nominates", "Nominate 0", "Ann nominates"),
    ];
    for (now, tap, next) in turns {
        other.wait_for_text(now).await;
        other.record(tap).await;
        watcher.wait_for_text(next).await;
    }
    watcher.wait_for_version(3).await;
    assert_eq!(
        watcher.table_reads().await,
        0,
        "each entry was drawn from the stream's event, not read again"
    );
    watcher.close().await;
    other.close().await;
}
