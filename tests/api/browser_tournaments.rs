//! A tournament's pages (issue #41) in a real headless Chromium, driven by their labels: the
//! organiser makes a progressive drive from a session's who-came, sees round 1's tables before
//! starting it (the dry run writes nothing), starts it and sees which tables still play; a player
//! picks themself and reads their guide card (and finds it on their own page); the big screen
//! shows the round, its clock counting down and the tables still playing, then where each player
//! goes next once the round closes, and the final standings after the last. The organiser shows
//! a round's scorer codes (the same codes on a second visit), enters a late arrival and withdraws
//! an entrant. Every screen passes axe.

use std::time::Duration;

use fantoccini::Locator;
use reqwest::Method;
use serde_json::{json, Value};
use sqlx::PgPool;

use crate::browser::{lit, rig, Phone, Rig, ONE_BROWSER, PATIENCE};
use crate::browser_table::{axe, scrolls_sideways};

const PLAYERS: [&str; 8] = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"];

async fn api_get(rig: &Rig, path: &str) -> Value {
    rig.app
        .request(Method::GET, path, Some(&rig.organiser), None)
        .await
        .assert_status(200)
        .clone()
}

/// A club of the eight players, and a session they all came to: (club, session, member ids).
async fn club_night(rig: &Rig) -> (String, String, Vec<String>) {
    let club = rig
        .app
        .post("/api/v1/clubs", &rig.organiser, json!({"name": "Drive Club"}))
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("club")
        .to_owned();
    let mut members = Vec::new();
    for name in PLAYERS {
        let made = rig
            .app
            .post(
                &format!("/api/v1/clubs/{club}/members"),
                &rig.organiser,
                json!({"name": name}),
            )
            .await;
        members.push(made.assert_status(201)["id"].as_str().expect("id").to_owned());
    }
    let session = rig
        .app
        .post(
            "/api/v1/sessions",
            &rig.organiser,
            json!({"name": "Drive night", "club_id": club, "members": members}),
        )
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("session")
        .to_owned();
    (club, session, members)
}

/// Picks `option` in the select a label names, as a person taps it.
async fn choose(phone: &Phone, label: &str, option: &str) {
    let xpath = format!(
        "//select[@id=//label[normalize-space()={l}]/@for]/option[normalize-space()={o}]",
        l = lit(label),
        o = lit(option)
    );
    phone
        .client
        .wait()
        .at_most(PATIENCE)
        .for_element(Locator::XPath(&xpath))
        .await
        .unwrap_or_else(|_| panic!("{label}: no {option}"))
        .click()
        .await
        .expect("chosen");
}

/// The screen's serious accessibility problems and a sideways scroll, named by `screen`.
async fn check(phone: &Phone, screen: &str, problems: &mut Vec<String>) {
    problems.extend(axe(phone).await.into_iter().map(|p| format!("{screen}: {p}")));
    if scrolls_sideways(phone).await {
        problems.push(format!("{screen}: scrolls sideways"));
    }
}

/// The round's tables as the page lists them: each table's names in seat order.
async fn tables_shown(phone: &Phone) -> Vec<Vec<String>> {
    let found = phone
        .client
        .execute(
            "return [...document.querySelectorAll('.round-table')].map((t) => \
               [...t.querySelectorAll('.round-seats li')].map((li) => li.firstChild.textContent.trim()))",
            vec![],
        )
        .await
        .expect("script");
    serde_json::from_value(found).expect("names")
}

/// A round's tables (a dry run's or a started round's) as names in seat order.
fn names(round: &Value) -> Vec<Vec<String>> {
    round["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|t| {
            t["seats"]
                .as_array()
                .expect("seats")
                .iter()
                .map(|s| s["name"].as_str().expect("name").to_owned())
                .collect()
        })
        .collect()
}

async fn text_of(phone: &Phone, css: &str) -> String {
    phone
        .client
        .wait()
        .at_most(PATIENCE)
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|_| panic!("no {css}"))
        .text()
        .await
        .expect("text")
}

/// Whether a clock's face reads minutes and seconds (e.g. "19:58").
fn is_clock(face: &str) -> Option<u32> {
    let (m, s) = face.split_once(':')?;
    let (m, s): (u32, u32) = (m.parse().ok()?, s.parse().ok()?);
    (s < 60).then_some(m * 60 + s)
}

#[sqlx::test(migrations = "./migrations")]
async fn browser_an_organiser_makes_a_drive_sees_round_one_starts_it_and_players_and_the_board_follow(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let (club, session, members) = club_night(&rig).await;
    let mut problems = Vec::new();

    // The organiser, signed in on the phone, makes the tournament from the session.
    let phone = rig.phone().await;
    phone.open("/").await;
    phone
        .client
        .execute(
            "localStorage.setItem('tk.organiser', arguments[0])",
            vec![json!(rig.organiser)],
        )
        .await
        .expect("signed in");
    phone.open(&format!("/#/session/{session}")).await;
    phone.wait_for_text("Tournaments").await;
    phone.tap("New tournament").await;
    phone.wait_for_text("8 entrants").await;
    check(&phone, "new tournament", &mut problems).await;
    phone.fill("Name", "Whist drive").await;
    choose(&phone, "Game", "Nomination Whist (3–7 a table)").await;
    phone
        .client
        .find(Locator::XPath(
            "//summary[normalize-space()='Game options (defaults unless changed)']",
        ))
        .await
        .expect("the game's options")
        .click()
        .await
        .expect("opened");
    phone.fill("Hand sizes (numbers separated by commas)", "1").await;
    choose(&phone, "Format", "Progressive (a whist drive: winners move up)").await;
    choose(&phone, "Who moves after a round", "Winner moves up").await;
    phone.fill("Rounds", "3").await;
    phone.fill("Fewest at a table", "4").await;
    phone.fill("Most at a table", "4").await;
    phone
        .fill("Deals per round (leave empty to play by the clock)", "1")
        .await;
    phone.fill("Minutes per round (the board's clock)", "20").await;
    choose(&phone, "Scoring", "Points by place at the table").await;
    phone
        .fill("Points for 1st, 2nd, … (separated by commas)", "4, 2, 1, 0")
        .await;
    phone.tap("Make the tournament").await;

    // Round 1's tables, before anything is started.
    phone.wait_for_text("Round 1 of 3: the tables before starting").await;
    let list = api_get(&rig, &format!("/api/v1/sessions/{session}/tournaments")).await;
    let made = list["items"][0].clone();
    let tournament = made["id"].as_str().expect("id").to_owned();
    assert_eq!(made["name"], "Whist drive");
    assert_eq!(made["format"], json!({"kind": "progressive", "move": "winner"}));
    assert_eq!(made["seats"], json!({"min": 4, "max": 4}));
    assert_eq!(made["rounds"], 3);
    assert_eq!(made["deals_per_round"], 1);
    assert_eq!(made["minutes_per_round"], 20);
    assert_eq!(made["scoring"]["kind"], "places");
    assert_eq!(made["scoring"]["points"], json!([4, 2, 1, 0]));
    assert_eq!(made["options"]["hand_sizes"], json!([1]));
    assert_eq!(made["entrants"].as_array().expect("entrants").len(), 8);
    assert_eq!(made["played_rounds"], json!([]), "looking started nothing");
    let planned = api_get(&rig, &format!("/api/v1/tournaments/{tournament}/rounds/next")).await;
    let shown = tables_shown(&phone).await;
    assert_eq!(shown, names(&planned));
    assert_eq!(shown.len(), 2, "eight at tables of four: {shown:?}");
    let tables_before = api_get(&rig, &format!("/api/v1/sessions/{session}")).await["tables"].clone();
    assert_eq!(tables_before, json!([]), "no table opened by looking");
    check(&phone, "round 1 before starting", &mut problems).await;
    phone.screenshot("tournament-next-round").await;

    // Started: the tables are the ones shown, and both still play.
    phone.tap("Start round 1").await;
    phone.wait_for_text("Round 1 of 3: playing").await;
    phone.wait_for_text("Still playing: table 1, table 2").await;
    let t = api_get(&rig, &format!("/api/v1/tournaments/{tournament}")).await;
    let round = t["played_rounds"][0].clone();
    assert_eq!(names(&round), shown, "the round started is the one shown");
    let clock = text_of(&phone, ".round-clock").await;
    assert!(
        clock.starts_with("Clock: 20:00") || clock.starts_with("Clock: 19:"),
        "{clock}"
    );
    check(&phone, "round 1 playing", &mut problems).await;
    phone.screenshot("tournament-round").await;

    // The big screen, by the session's share link: the round, its clock, the tables playing.
    let link = rig.share_link(&session).await;
    let base = format!("http://{}", rig.proxy.addr);
    let board = rig.driver.window(&base, 1280, 720, false).await;
    board.open(&format!("/?share={link}#/board/{session}")).await;
    board.wait_for_text("Whist drive: round 1 of 3").await;
    board.wait_for_text("Still playing: table 1, table 2").await;
    board.wait_for_text("Round 2 is seated from this round's results").await;
    board.wait_for_text("Table 2: Nomination Whist").await;
    // A share link may travel beyond the room: its board shows no scorer code.
    let codes_here = board
        .client
        .execute(
            "return document.querySelectorAll('.board-code, .join-code').length",
            vec![],
        )
        .await
        .expect("script");
    assert_eq!(codes_here, json!(0));
    let first = text_of(&board, ".round-clock").await;
    let first_s = is_clock(&first).unwrap_or_else(|| panic!("a clock: {first}"));
    assert!((19 * 60..=20 * 60).contains(&first_s), "{first}");
    tokio::time::sleep(Duration::from_millis(2200)).await;
    let later = text_of(&board, ".round-clock").await;
    let later_s = is_clock(&later).unwrap_or_else(|| panic!("a clock: {later}"));
    assert!(later_s < first_s, "the clock counts down: {first} then {later}");
    let tiles = board
        .client
        .execute("return document.querySelectorAll('.board-tile').length", vec![])
        .await
        .expect("tiles");
    assert_eq!(tiles, 2, "the round's two tables");
    // Readable across a room: the clock's figures are big.
    let size = board
        .client
        .execute(
            "return parseFloat(getComputedStyle(document.querySelector('.round-clock')).fontSize)",
            vec![],
        )
        .await
        .expect("size")
        .as_f64()
        .expect("px");
    assert!(size >= 64.0, "the clock is {size}px");
    check(&board, "board", &mut problems).await;
    board.screenshot("board-tournament").await;

    // Table 1 plays its one deal: the board and the organiser see only table 2 still playing.
    let table1 = round["tables"][0]["table_id"].as_str().expect("table").to_owned();
    crate::helpers::accept(
        &rig.app,
        &table1,
        &rig.organiser,
        json!({"kind": "result", "nominations": [0, 0, 0, 0], "tricks": [1, 0, 0, 0]}),
    )
    .await;
    board.wait_for_text("Still playing: table 2").await;
    phone.tap("Refresh").await;
    phone.wait_for_text("Still playing: table 2").await;

    // A player's guide card from the organiser's list of entrants.
    let ann = &members[0];
    let card = api_get(&rig, &format!("/api/v1/tournaments/{tournament}/guide/{ann}")).await;
    let ann_now = card["now"]["text"].as_str().expect("text").to_owned();
    assert!(ann_now.starts_with("Round 1: table "), "{ann_now}");
    phone.tap("Ann's guide card").await;
    phone.wait_for_text(&ann_now).await;
    check(&phone, "guide card", &mut problems).await;
    phone.screenshot("guide-card").await;

    // On Ann's own page in the club, the same card.
    phone.open(&format!("/#/club/{club}/member/{ann}")).await;
    phone.wait_for_text("Tonight").await;
    phone.wait_for_text(&ann_now).await;
    check(&phone, "member's page", &mut problems).await;

    // A player without an account: the link from the board's share, pick yourself, your card.
    let player = rig.phone().await;
    player.open(&format!("/?share={link}#/guide/{tournament}")).await;
    player.wait_for_text("Who are you?").await;
    check(&player, "pick yourself", &mut problems).await;
    player.tap("Bob").await;
    let bob = &members[1];
    let card = api_get(&rig, &format!("/api/v1/tournaments/{tournament}/guide/{bob}")).await;
    let bob_now = card["now"]["text"].as_str().expect("text").to_owned();
    player.wait_for_text(&bob_now).await;
    assert!(
        player
            .client
            .current_url()
            .await
            .expect("url")
            .fragment()
            .expect("a route")
            .ends_with(&format!("/guide/{tournament}/{bob}")),
        "the card has its own address"
    );
    player.close().await;

    // Closing the round with a table still playing asks first; then round 2 is shown before
    // it starts, and the standings so far.
    phone.open(&format!("/#/tournament/{tournament}")).await;
    phone.tap("Close round 1").await;
    phone.client.accept_alert().await.expect("asked, and confirmed");
    phone.wait_for_text("Round 2 of 3: the tables before starting").await;
    phone.wait_for_text("Standings so far").await;
    let t = api_get(&rig, &format!("/api/v1/tournaments/{tournament}")).await;
    assert!(t["played_rounds"][0]["closed_at"].is_string(), "{t}");
    let planned = api_get(&rig, &format!("/api/v1/tournaments/{tournament}/rounds/next")).await;
    assert_eq!(tables_shown(&phone).await, names(&planned));
    check(&phone, "round 2 before starting", &mut problems).await;

    // The board, still open, follows: where each player goes in round 2, in place of the tiles,
    // readable across the room.
    board.wait_for_text("Round 2: where to sit").await;
    let someone = names(&planned)[1][2].clone();
    board.wait_for_text(&someone).await;
    assert_eq!(movement_shown(&board).await, names(&planned));
    fits_the_screen(&board, "board between rounds", 40.0, &mut problems).await;
    check(&board, "board between rounds", &mut problems).await;
    board.screenshot("board-movement").await;

    assert!(problems.is_empty(), "{problems:#?}");
    board.close().await;
    phone.close().await;
}

/// A tournament of `members` in `session` made by the API: Nomination Whist of one card, one
/// deal a round, tables of `seats`, scored by place; its id.
async fn drive(rig: &Rig, session: &str, members: &[String], format: Value, rounds: u32, seats: (u32, u32)) -> String {
    let body = json!({
        "name": "Whist drive", "game": "nomination-whist", "options": {"hand_sizes": [1]},
        "format": format, "seats": {"min": seats.0, "max": seats.1}, "rounds": rounds,
        "deals_per_round": 1, "entrants": members,
        "scoring": {"kind": "places", "points": [4, 2, 1, 0]},
    });
    rig.app
        .post(&format!("/api/v1/sessions/{session}/tournaments"), &rig.organiser, body)
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned()
}

/// Starts the tournament's next round by the API: the round as started.
async fn start_round(rig: &Rig, tournament: &str) -> Value {
    rig.app
        .post(
            &format!("/api/v1/tournaments/{tournament}/rounds"),
            &rig.organiser,
            json!({}),
        )
        .await
        .assert_status(201)
        .clone()
}

async fn close_round(rig: &Rig, tournament: &str, round: u32) {
    rig.app
        .post(
            &format!("/api/v1/tournaments/{tournament}/rounds/{round}/close"),
            &rig.organiser,
            json!({}),
        )
        .await
        .assert_status(200);
}

/// A phone with the organiser signed in, on `path`.
async fn organiser_phone(rig: &mut Rig, path: &str) -> Phone {
    let phone = rig.phone().await;
    phone.open("/").await;
    phone
        .client
        .execute(
            "localStorage.setItem('tk.organiser', arguments[0])",
            vec![json!(rig.organiser)],
        )
        .await
        .expect("signed in");
    phone.open(path).await;
    phone
}

/// The board's next round as it lists it: each table's names in seat order.
async fn movement_shown(board: &Phone) -> Vec<Vec<String>> {
    let found = board
        .client
        .execute(
            "return [...document.querySelectorAll('.movement-table')].map((t) => \
               [...t.querySelectorAll('.movement-names li')].map((li) => li.textContent.trim()))",
            vec![],
        )
        .await
        .expect("script");
    serde_json::from_value(found).expect("names")
}

/// What the board shows between rounds or at the end fills no more than the screen: no line
/// wider than its column (names are never broken, so one too wide would stick out), nothing
/// below the bottom, and its type at least `px` high.
async fn fits_the_screen(board: &Phone, screen: &str, px: f64, problems: &mut Vec<String>) {
    let found = board
        .client
        .execute(
            "const box = document.querySelector('.after-round'); \
             const wide = [...box.querySelectorAll('.fit-line')].filter((el) => el.scrollWidth > el.clientWidth + 1).length; \
             return { wide, bottom: box.getBoundingClientRect().bottom, height: window.innerHeight, \
               size: parseFloat(getComputedStyle(box).fontSize) }",
            vec![],
        )
        .await
        .expect("script");
    if found["wide"] != 0 {
        problems.push(format!("{screen}: a line is wider than its column: {found}"));
    }
    let number = |k: &str| found[k].as_f64().unwrap_or(f64::NAN);
    if number("bottom") > number("height") {
        problems.push(format!("{screen}: runs below the screen: {found}"));
    }
    if number("size") < px {
        problems.push(format!("{screen}: type smaller than {px}px: {found}"));
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn browser_after_the_last_round_the_board_shows_the_final_standings(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let (_, session, members) = club_night(&rig).await;
    let tournament = drive(&rig, &session, &members, json!({"kind": "fixed"}), 1, (4, 4)).await;
    let round = start_round(&rig, &tournament).await;
    for table in round["tables"].as_array().expect("tables") {
        crate::helpers::accept(
            &rig.app,
            table["table_id"].as_str().expect("table"),
            &rig.organiser,
            json!({"kind": "result", "nominations": [1, 0, 0, 0], "tricks": [1, 0, 0, 0]}),
        )
        .await;
    }
    close_round(&rig, &tournament, 1).await;
    let t = api_get(&rig, &format!("/api/v1/tournaments/{tournament}")).await;
    assert!(t["finished_at"].is_string(), "{t}");
    let winners: Vec<String> = t["standings"]
        .as_array()
        .expect("standings")
        .iter()
        .filter(|s| s["place"] == 1)
        .map(|s| s["name"].as_str().expect("name").to_owned())
        .collect();
    assert_eq!(winners, ["Ann", "Eve"], "each table's first dealer made their one: {t}");

    let link = rig.share_link(&session).await;
    let base = format!("http://{}", rig.proxy.addr);
    let board = rig.driver.window(&base, 1920, 1080, false).await;
    board.open(&format!("/?share={link}#/board/{session}")).await;
    board.wait_for_text("Whist drive: finished after 1 round").await;
    board.wait_for_text("Final standings").await;
    let shown = board
        .client
        .execute(
            "return [...document.querySelectorAll('.final-standings tr.winner th')].map((th) => th.textContent)",
            vec![],
        )
        .await
        .expect("script");
    assert_eq!(shown, json!(winners));
    let tiles = board
        .client
        .execute("return document.querySelector('.board').hidden", vec![])
        .await
        .expect("script");
    assert_eq!(tiles, true, "the standings take the tiles' place");
    let mut problems = Vec::new();
    fits_the_screen(&board, "final standings", 40.0, &mut problems).await;
    check(&board, "final standings", &mut problems).await;
    board.screenshot("board-standings").await;
    assert!(problems.is_empty(), "{problems:#?}");
    board.close().await;
}

/// The scorer codes the page shows, table by table: (table id, code).
async fn codes_shown(phone: &Phone) -> Vec<(String, String)> {
    let found = phone
        .client
        .execute(
            "return [...document.querySelectorAll('.code-sheet')].map((s) => \
               [s.dataset.table, s.querySelector('.join-code').dataset.code])",
            vec![],
        )
        .await
        .expect("script");
    serde_json::from_value(found).expect("codes")
}

#[sqlx::test(migrations = "./migrations")]
async fn browser_the_organiser_shows_each_tables_scorer_code_and_a_second_visit_shows_the_same(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let (_, session, members) = club_night(&rig).await;
    let format = json!({"kind": "progressive", "move": "winner"});
    let tournament = drive(&rig, &session, &members, format, 2, (4, 4)).await;
    let round = start_round(&rig, &tournament).await;
    let tables: Vec<String> = round["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|t| t["table_id"].as_str().expect("id").to_owned())
        .collect();
    let mut problems = Vec::new();

    let phone = organiser_phone(&mut rig, &format!("/#/tournament/{tournament}")).await;
    phone.wait_for_text("Round 1 of 2: playing").await;
    phone.tap("Scorer codes").await;
    phone.wait_for_text("Whist drive: scorer codes").await;
    phone.wait_for_text("Table 2").await;
    let first = codes_shown(&phone).await;
    assert_eq!(
        first.iter().map(|(t, _)| t.clone()).collect::<Vec<_>>(),
        tables,
        "a code per table of the round, in order"
    );
    for (table, code) in &first {
        let issued = api_get(&rig, &format!("/api/v1/tables/{table}/join-codes")).await;
        assert_eq!(issued.as_array().expect("codes").len(), 1, "{issued}");
        assert_eq!(issued[0]["code"], code.as_str());
        phone.wait_for_text(code).await;
    }
    // Each QR code is big enough to scan from the table, and named.
    let qr = phone
        .client
        .execute(
            "return [...document.querySelectorAll('.code-sheet svg.qr')].map((q) => \
               [Math.round(q.getBoundingClientRect().width), q.getAttribute('aria-label')])",
            vec![],
        )
        .await
        .expect("script");
    assert_eq!(qr[0][1], "QR code to score table 1", "{qr}");
    for q in qr.as_array().expect("qr codes") {
        assert!(q[0].as_f64().expect("width") >= 300.0, "{qr}");
    }
    check(&phone, "scorer codes", &mut problems).await;
    phone.screenshot("scorer-codes").await;

    // A second visit: the same codes, none made.
    phone.tap("Back to the tournament").await;
    phone.wait_for_text("Round 1 of 2: playing").await;
    phone.tap("Scorer codes").await;
    phone.wait_for_text("Whist drive: scorer codes").await;
    phone.wait_for_text(&first[1].1).await;
    assert_eq!(codes_shown(&phone).await, first);
    for table in &tables {
        let issued = api_get(&rig, &format!("/api/v1/tables/{table}/join-codes")).await;
        assert_eq!(issued.as_array().expect("codes").len(), 1, "still one: {issued}");
    }

    // The board the organiser opens with their own sign-in shows the same codes in its round
    // band, a QR code a table; none is made anew.
    phone.open(&format!("/#/board/{session}")).await;
    phone.wait_for_text(&first[1].1).await;
    let on_board = phone
        .client
        .execute(
            "return [...document.querySelectorAll('.board-code')].map((f) => \
               [f.querySelector('svg.qr').getAttribute('aria-label'), f.querySelector('.join-code').dataset.code])",
            vec![],
        )
        .await
        .expect("script");
    let expected: Vec<(String, String)> = first
        .iter()
        .enumerate()
        .map(|(i, (_, code))| (format!("QR code to score table {}", i + 1), code.clone()))
        .collect();
    assert_eq!(
        serde_json::from_value::<Vec<(String, String)>>(on_board.clone()).expect("codes"),
        expected,
        "{on_board}"
    );
    check(&phone, "the organiser's board with scorer codes", &mut problems).await;
    for table in &tables {
        let issued = api_get(&rig, &format!("/api/v1/tables/{table}/join-codes")).await;
        assert_eq!(issued.as_array().expect("codes").len(), 1, "still one: {issued}");
    }
    if std::env::var_os("SCREENSHOTS").is_some() {
        let base = format!("http://{}", rig.proxy.addr);
        let screen = rig.driver.window(&base, 1280, 720, false).await;
        screen.open("/").await;
        screen
            .client
            .execute(
                "localStorage.setItem('tk.organiser', arguments[0])",
                vec![json!(rig.organiser)],
            )
            .await
            .expect("signed in");
        screen.open(&format!("/#/tournament/{tournament}/codes")).await;
        screen.wait_for_text(&first[1].1).await;
        screen.screenshot("scorer-codes-screen").await;
        screen.close().await;
    }
    assert!(problems.is_empty(), "{problems:#?}");
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn browser_a_late_arrival_and_a_withdrawal_change_the_next_rounds_tables(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let (club, session, members) = club_night(&rig).await;
    // Ivy is a member of the club who did not come at the start.
    let ivy = rig
        .app
        .post(
            &format!("/api/v1/clubs/{club}/members"),
            &rig.organiser,
            json!({"name": "Ivy"}),
        )
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let format = json!({"kind": "progressive", "move": "winner"});
    let tournament = drive(&rig, &session, &members, format, 2, (3, 4)).await;
    start_round(&rig, &tournament).await;
    close_round(&rig, &tournament, 1).await;
    let mut problems = Vec::new();
    let phone = organiser_phone(&mut rig, &format!("/#/tournament/{tournament}")).await;
    phone.wait_for_text("Round 2 of 2: the tables before starting").await;
    let seated = |tables: &[Vec<String>], name: &str| tables.iter().flatten().any(|n| n == name);

    // Ivy arrives: entered from round 2, round 2's tables seat her.
    choose(&phone, "Late arrival", "Ivy").await;
    phone.tap("Enter from round 2").await;
    phone.wait_for_text("Ivy plays from round 2.").await;
    let t = api_get(&rig, &format!("/api/v1/tournaments/{tournament}")).await;
    let entered = t["entrants"]
        .as_array()
        .expect("entrants")
        .iter()
        .find(|e| e["member_id"] == ivy.as_str())
        .cloned();
    assert_eq!(entered.expect("Ivy entered")["from_round"], 2);
    let planned = names(&api_get(&rig, &format!("/api/v1/tournaments/{tournament}/rounds/next")).await);
    let shown = tables_shown(&phone).await;
    assert_eq!(shown, planned);
    assert!(seated(&shown, "Ivy"), "{shown:?}");
    check(&phone, "late arrival entered", &mut problems).await;

    // Bob leaves: asked first, then round 2 is seated without him.
    choose(&phone, "Withdraw", "Bob").await;
    phone.tap("Withdraw from round 2").await;
    phone
        .wait_for_text("Withdraw Bob? They sit at no table from round 2 on.")
        .await;
    check(&phone, "withdrawal asked", &mut problems).await;
    phone.screenshot("tournament-entrants").await;
    phone.tap("Yes, withdraw Bob").await;
    phone.wait_for_text("Bob is withdrawn from round 2.").await;
    let planned = names(&api_get(&rig, &format!("/api/v1/tournaments/{tournament}/rounds/next")).await);
    let shown = tables_shown(&phone).await;
    assert_eq!(shown, planned);
    assert!(!seated(&shown, "Bob") && seated(&shown, "Ivy"), "{shown:?}");
    phone.wait_for_text("Withdrawn: Bob (played to round 1)").await;

    // Cat is withdrawn elsewhere meanwhile: withdrawing her here again is refused in the
    // server's words, and the screen changes nothing.
    let cat = &members[2];
    let path = format!("/api/v1/tournaments/{tournament}/entrants/{cat}");
    rig.app
        .request(Method::DELETE, &path, Some(&rig.organiser), None)
        .await
        .assert_status(200);
    choose(&phone, "Withdraw", "Cat").await;
    phone.tap("Withdraw from round 2").await;
    phone.tap("Yes, withdraw Cat").await;
    let again = rig.app.request(Method::DELETE, &path, Some(&rig.organiser), None).await;
    let detail = again.assert_status(404)["detail"].as_str().expect("detail").to_owned();
    phone.wait_for_text(&detail).await;
    assert_eq!(tables_shown(&phone).await, shown, "nothing redrawn");
    assert!(phone.enabled("Yes, withdraw Cat").await, "offered again");
    assert!(problems.is_empty(), "{problems:#?}");
    phone.close().await;
}

/// Whether the form's control labelled `label` is shown (its row not hidden).
async fn shown(phone: &Phone, label: &str) -> bool {
    let found = phone
        .client
        .execute(
            "const l = [...document.querySelectorAll('label')].find((l) => l.textContent.trim() === arguments[0]);
             return !!l && l.offsetParent !== null;",
            vec![json!(label)],
        )
        .await
        .expect("script");
    found.as_bool().expect("a boolean")
}

#[sqlx::test(migrations = "./migrations")]
async fn browser_the_organiser_says_where_leftover_chips_go_and_what_byes_and_late_arrivals_score(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let (_, session, _) = club_night(&rig).await;
    // The club's own rule is where the form starts.
    let club = api_get(&rig, &format!("/api/v1/sessions/{session}")).await["club_id"]
        .as_str()
        .expect("club")
        .to_owned();
    rig.app
        .request(
            Method::PUT,
            &format!("/api/v1/clubs/{club}/leftover"),
            Some(&rig.organiser),
            Some(json!({"leftover": "share"})),
        )
        .await
        .assert_status(200);
    let mut problems = Vec::new();
    let phone = rig.phone().await;
    phone.open("/").await;
    phone
        .client
        .execute(
            "localStorage.setItem('tk.organiser', arguments[0])",
            vec![json!(rig.organiser)],
        )
        .await
        .expect("signed in");
    phone.open(&format!("/#/session/{session}")).await;
    phone.wait_for_text("Tournaments").await;
    phone.tap("New tournament").await;
    phone.wait_for_text("8 entrants").await;
    let leftover = "Chips left in the pools when a round closes";

    // A game without pools asks nothing about them; a stops game does.
    choose(&phone, "Game", "Nomination Whist (3–7 a table)").await;
    assert!(!shown(&phone, leftover).await, "no pools in whist");
    let games = api_get(&rig, "/api/v1/games").await;
    let pope = games
        .as_array()
        .expect("games")
        .iter()
        .find(|g| g["id"] == "pope-joan")
        .expect("Pope Joan");
    let label = format!(
        "{} ({}–{} a table)",
        pope["name"].as_str().expect("name"),
        pope["min_players"],
        pope["max_players"]
    );
    choose(&phone, "Game", &label).await;
    let deadline = std::time::Instant::now() + PATIENCE;
    while !shown(&phone, leftover).await {
        assert!(std::time::Instant::now() < deadline, "the leftover rule for Pope Joan");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let chosen = phone
        .client
        .execute("return document.getElementById('tournament-leftover').value", vec![])
        .await
        .expect("the leftover rule chosen");
    assert_eq!(chosen, json!("share"), "the club's rule first");
    choose(&phone, leftover, "Carried to the next round's table of the same number").await;
    choose(&phone, "A bye (sitting a round out) scores", "Nothing").await;
    choose(&phone, "A late arrival, for each round missed, scores", "A fixed score").await;
    let points = phone
        .client
        .find(Locator::Id("tournament-late-points"))
        .await
        .expect("the fixed score");
    points.clear().await.expect("cleared");
    points.send_keys("5").await.expect("typed");
    check(&phone, "new tournament with its scoring rules", &mut problems).await;
    phone.tap("Make the tournament").await;
    phone.wait_for_text("Round 1 of").await;

    let made = api_get(&rig, &format!("/api/v1/sessions/{session}/tournaments")).await["items"][0].clone();
    assert_eq!(made["game"], "pope-joan", "{made}");
    assert_eq!(made["leftover"], "carry", "{made}");
    assert_eq!(made["scoring"]["bye"], json!({"kind": "zero"}), "{made}");
    assert_eq!(made["scoring"]["late"], json!({"kind": "fixed", "points": 5}), "{made}");
    assert!(problems.is_empty(), "{problems:#?}");
}
