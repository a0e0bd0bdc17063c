//! Every screen of the page (issue #44) in one headless Chromium window resized between a phone
//! held upright (390×844), a small phone (320×640) and a phone on its side (844×390): the
//! start screen and sign-in, the clubs, members, sessions, the new table and tournament forms,
//! a table of each game with its entry panels and its result form, the tabs, the money screen,
//! the director's, the tournament's and the guide card's screens, and the board. On each,
//! axe-core finds no serious or critical violation and nothing scrolls sideways.

use std::time::Duration;

use fantoccini::wd::WebDriverCompatibleCommand;
use reqwest::Method;
use serde_json::{json, Value};
use sqlx::PgPool;

use crate::browser::{rig, Phone, Rig, ONE_BROWSER, PATIENCE};
use crate::browser_money::an_evening;
use crate::browser_table::axe;
use crate::helpers::accept;

/// The sizes every screen is checked at: upright, small, on its side.
pub(crate) const SIZES: [(u32, u32); 3] = [(390, 844), (320, 640), (844, 390)];

/// A Chrome DevTools command sent through chromedriver (`goog/cdp/execute`).
#[derive(Debug)]
struct Cdp(&'static str, Value);

impl WebDriverCompatibleCommand for Cdp {
    fn endpoint(&self, base: &url::Url, session: Option<&str>) -> Result<url::Url, url::ParseError> {
        base.join(&format!("session/{}/goog/cdp/execute", session.unwrap_or_default()))
    }

    fn method_and_body(&self, _: &url::Url) -> (Method, Option<String>) {
        (Method::POST, Some(json!({"cmd": self.0, "params": self.1}).to_string()))
    }
}

/// Makes the phone's screen `width`×`height` CSS pixels (a touch screen), in the same window:
/// the page is laid out again, nothing reloaded.
pub(crate) async fn resize(phone: &Phone, width: u32, height: u32) {
    phone
        .client
        .issue_cmd(Cdp(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": true}),
        ))
        .await
        .expect("the screen resized");
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let seen = phone
            .client
            .execute(
                "return [document.documentElement.clientWidth, document.documentElement.clientHeight]",
                vec![],
            )
            .await
            .expect("script");
        if seen == json!([width, height]) {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "the screen stayed {seen}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // What the page fits to its screen (the board) settles after a frame or two.
    tokio::time::sleep(Duration::from_millis(150)).await;
}

/// The screen at each size: axe's serious and critical violations, and a page wider than its
/// screen, each named by `screen` and the size. Leaves the phone upright.
async fn check(phone: &Phone, screen: &str, problems: &mut Vec<String>) {
    for (width, height) in SIZES {
        resize(phone, width, height).await;
        let at = format!("{screen} at {width}×{height}");
        let found = axe(phone).await;
        for p in &found {
            eprintln!("{at}: {p}");
        }
        problems.extend(found.into_iter().map(|p| format!("{at}: {p}")));
        let widths = phone
            .client
            .execute(
                "return [document.documentElement.scrollWidth, Math.max(innerWidth, document.documentElement.clientWidth), \
                   [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5 && getComputedStyle(e).position !== 'fixed') \
                     .slice(0, 4).map((e) => e.tagName.toLowerCase() + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))]",
                vec![],
            )
            .await
            .expect("script");
        if widths[0].as_f64() > Some(f64::from(width)) || widths[1].as_f64() > Some(f64::from(width)) {
            eprintln!("{at}: scrolls sideways: {widths}");
            problems.push(format!("{at}: scrolls sideways: {widths}"));
        }
    }
    resize(phone, SIZES[0].0, SIZES[0].1).await;
}

/// Opens `path` afresh (a new page load, not a change of the address's hash) and waits for
/// `text`, and for nothing to be loading any more.
async fn open(phone: &Phone, path: &str, text: &str) {
    phone.client.goto("about:blank").await.expect("a blank page");
    phone.open(path).await;
    phone.wait_for_text(text).await;
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while phone.body_text().await.contains("Loading…") {
        assert!(tokio::time::Instant::now() < deadline, "{path} stayed loading");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn api_get(rig: &Rig, path: &str) -> Value {
    rig.app
        .request(Method::GET, path, Some(&rig.organiser), None)
        .await
        .assert_status(200)
        .clone()
}

#[sqlx::test(migrations = "./migrations")]
async fn every_screen_passes_axe_upright_small_and_on_its_side_and_never_scrolls_sideways(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let (session, club) = an_evening(&rig).await;
    let tournament = api_get(&rig, &format!("/api/v1/sessions/{session}/tournaments")).await["items"][0]["id"]
        .as_str()
        .expect("the tournament")
        .to_owned();
    let members = api_get(&rig, &format!("/api/v1/clubs/{club}/members")).await;
    let member = members["items"]
        .as_array()
        .expect("members")
        .iter()
        .find(|m| m["name"] == "Ann")
        .expect("Ann")["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let token = rig.organiser.clone();
    let mut problems = Vec::new();
    let phone = rig.phone().await;

    // Before signing in: the start screen and the sign-in.
    open(&phone, "/", "Join a table").await;
    check(&phone, "start", &mut problems).await;
    open(&phone, "/#/organiser", "Password").await;
    check(&phone, "sign-in", &mut problems).await;

    // The organiser's screens.
    phone
        .client
        .execute("localStorage.setItem('tk.organiser', arguments[0])", vec![json!(token)])
        .await
        .expect("signed in");
    for (screen, path, text) in [
        ("sessions", "/#/organiser".to_owned(), "Sessions"),
        ("clubs", "/#/clubs".to_owned(), "Clubs"),
        ("club", format!("/#/club/{club}"), "Members"),
        ("members", format!("/#/club/{club}/members"), "members"),
        ("member", format!("/#/club/{club}/member/{member}"), "Ann"),
        ("start a session", format!("/#/club/{club}/start"), "Start a session"),
        ("session", format!("/#/session/{session}"), "Friday"),
        (
            "new table",
            format!("/#/session/{session}/new"),
            "Options (defaults shown)",
        ),
        (
            "new tournament",
            format!("/#/session/{session}/tournament"),
            "New tournament",
        ),
        ("money", format!("/#/session/{session}/money"), "Money: Friday"),
        ("director", format!("/#/session/{session}/director"), "Director: Friday"),
        ("tournament", format!("/#/tournament/{tournament}"), "Pope Joan"),
        (
            "scorer codes",
            format!("/#/tournament/{tournament}/codes"),
            // The codes screen's own heading ("Pope Joan: scorer codes"): the tournament's
            // screen before it has a "Scorer codes" link, which a capital S would find at once.
            ": scorer codes",
        ),
        ("guide cards", format!("/#/guide/{tournament}"), "Pope Joan"),
        ("a guide card", format!("/#/guide/{tournament}/{member}"), "Pope Joan"),
    ] {
        open(&phone, &path, text).await;
        check(&phone, screen, &mut problems).await;
    }

    // A table of each game: its first entry panel, a later one, and its result form.
    let players = ["Ann", "Bob", "Cat", "Dan"];
    let tridge = ["Ann", "Bob", "Cat"];
    for game in [
        "nomination-whist",
        "dividend",
        "tridge",
        "tricky-dick",
        "pope-joan",
        "spin",
        "newmarket",
    ] {
        let seated: &[&str] = if game == "tridge" { &tridge } else { &players };
        let table = rig.app.game_table(&token, game, seated, json!({})).await;
        open(&phone, &format!("/#/table/{table}"), "Nothing to undo yet").await;
        check(&phone, &format!("{game}: first entry"), &mut problems).await;
        // The result form, where the deal can be entered as a result from its start.
        let mut result_seen = false;
        if phone.offers("Result").await {
            phone.tap("Result").await;
            tokio::time::sleep(Duration::from_millis(200)).await;
            check(&phone, &format!("{game}: result form"), &mut problems).await;
            phone.tap("Card by card").await;
            result_seen = true;
        }
        let later = match game {
            "nomination-whist" => (0..4)
                .map(|n| json!({"kind": "nominate", "seat": (n + 1) % 4, "tricks": 0}))
                .collect(),
            "tricky-dick" => vec![json!({"kind": "first_trick", "cards": ["4BC", "1BH", "2RS", "3GT"]})],
            "pope-joan" => vec![json!({"kind": "turn_up", "card": "7H"})],
            "newmarket" => vec![
                json!({"kind": "layout", "pool_cards": ["JD", "QH", "KC", "AS"], "stakes": ["AS", "KC", "QH", "JD"]}),
            ],
            _ => vec![],
        };
        if !later.is_empty() {
            let at = phone.version().await;
            for mv in &later {
                accept(&rig.app, &table, &token, mv.clone()).await;
            }
            phone.wait_for_version(at + later.len() as i64).await;
            check(&phone, &format!("{game}: a later entry"), &mut problems).await;
        }
        if !result_seen {
            phone.tap("Result").await;
            tokio::time::sleep(Duration::from_millis(200)).await;
            check(&phone, &format!("{game}: result form"), &mut problems).await;
        }
        if game == "pope-joan" {
            for (tab, text) in [("Score sheet", "Total"), ("Ledger", "Balances"), ("Deals", "Deal 1")] {
                phone.tap(tab).await;
                phone.wait_for_text(text).await;
                check(&phone, &format!("{game}: {tab}"), &mut problems).await;
            }
        }
    }

    // The board, as the big screen opens it, at a phone's sizes too.
    let share = rig.share_link(&session).await;
    open(&phone, &format!("/?share={share}#/board/{session}"), "Final standings").await;
    check(&phone, "board", &mut problems).await;
    phone.close().await;
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Where the Squares picker's card buttons are, once the picker is scrolled into the middle of
/// the screen as a thumb would: how many there are, and those not wholly on the screen above
/// the tabs (their names), with the page's widths.
async fn squares_on_screen(phone: &Phone) -> Value {
    phone
        .client
        .execute(
            "const p = document.querySelector('.sq-picker'); p.scrollIntoView({ block: 'center' }); \
             const tabs = document.querySelector('.tabs').getBoundingClientRect().top; \
             const cards = [...p.querySelectorAll('button.sq-pick')]; \
             const off = cards.filter((b) => { const r = b.getBoundingClientRect(); \
               return r.top < 0 || r.left < 0 || r.bottom > Math.min(tabs, innerHeight) || r.right > document.documentElement.clientWidth; }) \
               .map((b) => b.getAttribute('aria-label')); \
             const sizes = cards.map((b) => b.getBoundingClientRect()); \
             return { cards: cards.length, off, scroll_width: document.documentElement.scrollWidth, \
               width: document.documentElement.clientWidth, \
               smallest: [Math.min(...sizes.map((r) => r.width)), Math.min(...sizes.map((r) => r.height))] };",
            vec![],
        )
        .await
        .expect("measured")
}

#[sqlx::test(migrations = "./migrations")]
async fn all_sixty_four_tricky_dick_cards_are_on_the_screen_at_once_on_a_phone_on_its_side(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let token = rig.organiser.clone();
    let table = rig
        .app
        .game_table(&token, "tricky-dick", &["Ann", "Bob", "Cat", "Dan"], json!({}))
        .await;
    let first = json!({"kind": "first_trick", "cards": ["4BC", "1BH", "2RS", "3GT"]});
    accept(&rig.app, &table, &token, first).await;
    let phone = rig.phone_sized(844, 390).await;
    phone.open("/").await;
    phone
        .client
        .execute("localStorage.setItem('tk.organiser', arguments[0])", vec![json!(token)])
        .await
        .expect("signed in");
    open(&phone, &format!("/#/table/{table}"), "to lay a card to trick 2").await;
    let seen = squares_on_screen(&phone).await;
    assert_eq!(seen["cards"], 64, "{seen}");
    assert_eq!(seen["off"], json!([]), "every card on the screen at once: {seen}");
    assert!(
        seen["scroll_width"].as_f64() <= seen["width"].as_f64(),
        "no sideways scroll: {seen}"
    );
    let [w, h] = [0, 1].map(|i| seen["smallest"][i].as_f64().expect("a size"));
    assert!(w >= 40.0 && h >= 44.0, "cards of {w}×{h} px: {seen}");
    // The same picker at 320 px: nothing past the screen's edge, every card 44 px tall.
    resize(&phone, 320, 640).await;
    let small = squares_on_screen(&phone).await;
    assert!(
        small["scroll_width"].as_f64() <= small["width"].as_f64(),
        "no sideways scroll at 320 px: {small}"
    );
    assert!(small["smallest"][1].as_f64() >= Some(44.0), "{small}");
    phone.close().await;
}
