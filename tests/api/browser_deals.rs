//! The phone page's Deals tab in a real headless Chromium, driven by labels as a person would
//! (the rig is `browser.rs`'s): a past deal corrected with a reason and verified from a second
//! phone, the big screen, the organiser's form and the join code. The outbox is
//! `browser_offline.rs`'s.

use serde_json::{json, Value};
use sqlx::PgPool;

use crate::browser::{rig, Phone, ONE_BROWSER};

/// Scrolls the page so that the element `css` selects starts at the top of the screen, for a
/// screenshot of it.
async fn show(phone: &Phone, css: &str) {
    phone
        .client
        .execute(
            "document.querySelector(arguments[0])?.scrollIntoView({block: 'start'})",
            vec![json!(css)],
        )
        .await
        .expect("scrolled");
}

/// Fills a Nomination Whist result form: nominations and tricks per seat (fields left at 0
/// stay 0), then records it.
pub(crate) async fn whist_result(phone: &Phone, nominations: [u8; 4], tricks: [u8; 4]) {
    // Number buttons; the last seat's tricks follow from the others'.
    for (seat, name) in ["Ann", "Bob", "Cat", "Dan"].iter().enumerate() {
        phone
            .fill(&format!("{name} nominations"), &nominations[seat].to_string())
            .await;
        if seat < 3 {
            phone.fill(&format!("{name} tricks"), &tricks[seat].to_string()).await;
        }
    }
    phone.wait_for_text("Adds up.").await;
    phone.tap("Record result").await;
}

pub(crate) fn results(log: &Value) -> Vec<(Value, Value)> {
    log.as_array()
        .expect("log")
        .iter()
        .filter(|e| e["voided_by"].is_null() && e["entry"] == "move")
        .map(|e| (e["move"]["nominations"].clone(), e["move"]["tricks"].clone()))
        .collect()
}

#[sqlx::test(migrations = "./migrations")]
async fn deal_1_is_corrected_after_deal_3_from_the_page_and_verified_from_a_second_phone(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let session = rig.app.session(&rig.organiser, "Thursday").await;
    let table = rig
        .session_whist(
            &session,
            ["Ann", "Bob", "Cat", "Dan"],
            json!({"hand_sizes": [1, 1, 1, 1]}),
        )
        .await;
    // Three deals recorded; deal 1 says Ann took the trick, but it was Dan.
    for (deal, tricks) in [(1, [1, 0, 0, 0]), (2, [0, 1, 0, 0]), (3, [0, 0, 1, 0])] {
        rig.app
            .post(
                &format!("/api/v1/tables/{table}/moves"),
                &rig.organiser,
                json!({"move": {"kind": "result", "nominations": [1, 0, 0, 1], "tricks": tricks}, "deal": deal}),
            )
            .await
            .assert_status(201);
    }
    let before = rig.totals(&table).await;
    let scorer = rig.scorer(&table).await;
    scorer.wait_for_text("Deal 4 of 4").await;
    scorer.tap("Deals").await;
    scorer.tap("Open deal 1").await;
    scorer.wait_for_text("Deal 1 is unverified").await;
    scorer.tap("Correct deal 1").await;
    scorer
        .fill("Reason for the correction", "Dan took the trick, not Ann")
        .await;
    whist_result(&scorer, [1, 0, 0, 1], [0, 0, 0, 1]).await;
    scorer.wait_for_text("Entered: Result of deal 1.").await;
    show(&scorer, ".correction").await;
    scorer.screenshot("deals-correction").await;
    scorer.tap("Send the correction of deal 1").await;
    scorer
        .wait_for_text("Corrected by Ann's phone: “Dan took the trick, not Ann”")
        .await;

    let deal = rig.app.get(&format!("/api/v1/tables/{table}/deals/1")).await;
    let deal = deal.assert_status(200);
    assert_eq!(deal["lines"][0]["tricks"], json!([0, 0, 0, 1]), "{deal}");
    assert_eq!(deal["corrections"][0]["reason"], "Dan took the trick, not Ann");
    assert_eq!(deal["status"], "unverified");
    let after = rig.totals(&table).await;
    assert_ne!(after, before, "the correction changed the totals");
    // Deals 2 and 3 stand as they were recorded.
    for (n, tricks) in [(2, [0, 1, 0, 0]), (3, [0, 0, 1, 0])] {
        let deal = rig.app.get(&format!("/api/v1/tables/{table}/deals/{n}")).await;
        assert_eq!(deal.assert_status(200)["lines"][0]["tricks"], json!(tricks));
    }
    scorer.tap("Table").await;
    scorer.wait_for_version(4).await;
    assert_eq!(scorer.totals().await, after, "the page shows the corrected totals");

    // A second phone agrees with deal 1 as it stands now.
    let checker = rig.scorer(&table).await;
    checker.tap("Deals").await;
    checker.tap("Open deal 1").await;
    checker.wait_for_text("Deal 1 is unverified").await;
    checker.tap("Agree with deal 1").await;
    checker.wait_for_text("You agreed with deal 1.").await;
    checker.wait_for_text("Deal 1 is verified.").await;
    checker.screenshot("deals-verified").await;
    let deal = rig.app.get(&format!("/api/v1/tables/{table}/deals/1")).await;
    assert_eq!(deal.assert_status(200)["status"], "verified");
    // It disputes deal 2 with its own entry: Ann took that trick, not Bob.
    checker.tap("Open deal 2").await;
    checker.tap("Dispute deal 2").await;
    whist_result(&checker, [1, 0, 0, 1], [1, 0, 0, 0]).await;
    checker.tap("Send the dispute of deal 2").await;
    checker.wait_for_text("Deal 2 is disputed").await;
    checker.wait_for_text("Ann's tricks").await;
    let deal = rig.app.get(&format!("/api/v1/tables/{table}/deals/2")).await;
    assert_eq!(deal.assert_status(200)["status"], "disputed");
    // The score sheet marks each deal.
    checker.tap("Score sheet").await;
    checker.wait_for_text("1 verified").await;
    checker.wait_for_text("2 disputed").await;
    checker.wait_for_text("3 unverified").await;
    // The phone that made the correction cannot verify it: said in words, nothing changes.
    scorer.tap("Deals").await;
    scorer.tap("Open deal 2").await;
    scorer.tap("Open deal 1").await;
    scorer.tap("Agree with deal 1").await;
    scorer.wait_for_text("not by whoever recorded it").await;
    let body = scorer.body_text().await;
    assert!(!body.contains("own_deal"), "no raw codes: {body}");

    // The organiser's session page counts what is left to verify, per table.
    checker
        .client
        .execute(
            "localStorage.setItem('tk.organiser', arguments[0])",
            vec![json!(rig.organiser)],
        )
        .await
        .expect("signed in");
    checker.open(&format!("/#/session/{session}")).await;
    checker.wait_for_text("1 unverified · 1 disputed of 3 finished").await;
    scorer.close().await;
    checker.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn the_big_screen_at_1920_by_1080_and_1280_by_720_fills_the_screen_with_twelve_tables_in_big_unclipped_figures(
    pool: PgPool,
) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let session = rig.app.session(&rig.organiser, "Thursday").await;
    let mut tables = Vec::new();
    for n in 0..12 {
        // Long names too: they wrap between words, or end in an ellipsis when they must.
        let players = if n == 0 {
            json!(["Annabel-Marguerite", "Bob", "Cat", "Dan"])
        } else {
            json!(["Ann", "Bob", "Cat", "Dan"])
        };
        let body = json!({"game": "nomination-whist", "players": players, "session_id": session,
            "options": {"hand_sizes": [3, 2]}});
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
    rig.app
        .post(
            &format!("/api/v1/tables/{}/moves", tables[0]),
            &rig.organiser,
            json!({"move": {"kind": "nominate", "seat": 1, "tricks": 2}}),
        )
        .await
        .assert_status(201);
    let base = format!("http://{}", rig.proxy.addr);
    let link = rig.share_link(&session).await;
    for (width, height) in [(1920, 1080), (1280, 720)] {
        let board = rig.driver.window(&base, width, height, false).await;
        board.open(&format!("/?share={link}#/board/{session}")).await;
        board.wait_for_text("Table 12: Nomination Whist").await;
        board.wait_for_text("nom. 2").await;
        board.wait_for_text("Cat to act").await;
        board.screenshot(&format!("board-{width}")).await;
        let measured = measure_board(&board).await;
        assert_eq!(measured["tiles"], 12, "{measured}");
        assert!(measured["smallest_total"].as_f64().expect("px") >= 48.0, "{measured}");
        assert_eq!(measured["clipped"], json!([]), "{measured}");
        let (vw, vh) = (
            measured["viewport"][0].as_f64().expect("w"),
            measured["viewport"][1].as_f64().expect("h"),
        );
        assert!(
            measured["width"].as_f64().expect("w") >= 0.95 * vw,
            "the tiles span the screen: {measured}"
        );
        assert!(
            measured["bottom"].as_f64().expect("b") >= 0.85 * vh,
            "the tiles fill it down: {measured}"
        );
        assert!(
            measured["page_width"].as_f64().expect("w") <= vw,
            "no sideways scroll: {measured}"
        );
        assert!(
            measured["page_height"].as_f64().expect("h") <= vh + 1.0,
            "all on one screen: {measured}"
        );
        board.close().await;
    }
}

/// The board's tiles, the smallest total's font size, the names and totals that are cut off
/// or stick out of their tile, and how far the page reaches.
async fn measure_board(board: &Phone) -> Value {
    board
        .client
        .execute(
            r#"
            const px = (el) => parseFloat(getComputedStyle(el).fontSize);
            const tiles = [...document.querySelectorAll('.board-tile')];
            const totals = [...document.querySelectorAll('.board-tile .tile-total')];
            const names = [...document.querySelectorAll('.board-tile .tile-name')];
            const inside = (el) => {
              const r = el.getBoundingClientRect();
              const t = el.closest('.board-tile').getBoundingClientRect();
              return r.left >= t.left - 0.5 && r.right <= t.right + 0.5 && r.top >= t.top - 0.5 && r.bottom <= t.bottom + 0.5;
            };
            const board = document.querySelector('.board').getBoundingClientRect();
            return {
              tiles: tiles.length,
              smallest_total: Math.min(...totals.map(px)),
              // A name may end in an ellipsis when nothing else fits (its full text in a tooltip).
              clipped: [...names, ...totals].filter((el) => (el.scrollWidth > el.clientWidth + 0.5 && el.title !== el.textContent) || !inside(el)).map((el) => el.textContent),
              width: board.width,
              bottom: board.bottom,
              viewport: [innerWidth, innerHeight],
              page_width: document.documentElement.scrollWidth,
              page_height: document.documentElement.scrollHeight,
            };
            "#,
            vec![],
        )
        .await
        .expect("measured")
}

/// Picks `option` in the select a label names, as a person taps it.
async fn choose(phone: &Phone, label: &str, option: &str) {
    let xpath = format!(
        "//select[@id=//label[normalize-space()={l}]/@for]/option[normalize-space()={o}]",
        l = crate::browser::lit(label),
        o = crate::browser::lit(option)
    );
    // The form may be drawn again between finding the option and choosing it (the game's
    // options arrive): find it again then, as a person's second look would.
    let deadline = tokio::time::Instant::now() + crate::browser::PATIENCE;
    loop {
        let chosen = phone
            .client
            .wait()
            .at_most(crate::browser::PATIENCE)
            .for_element(fantoccini::Locator::XPath(&xpath))
            .await
            .unwrap_or_else(|_| panic!("no {option:?} in {label:?}"))
            .click()
            .await;
        match chosen {
            Ok(()) => return,
            Err(e) if crate::browser::is_stale(&e) && tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            Err(e) => panic!("choosing {option:?} in {label:?}: {e}"),
        }
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn the_organisers_form_creates_a_table_with_options_chosen_through_controls(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let session = rig.app.session(&rig.organiser, "Thursday").await;
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
    phone.open(&format!("/#/session/{session}/new")).await;
    phone.wait_for_text("Options (defaults shown)").await;
    phone.wait_for_text("First dealer").await;
    let body = phone.body_text().await;
    for raw in ["{\"", "tricks_plus_ten_for_exact", "rotation\","] {
        assert!(!body.contains(raw), "no raw JSON or code words ({raw}): {body}");
    }
    // The catalogue's words: labels, descriptions and choices in plain words.
    for shown in [
        "Hand sizes",
        "How a player's nomination and tricks become points.",
        "In turn, deal by deal",
    ] {
        assert!(body.contains(shown), "{shown:?} shown: {body}");
    }
    choose(&phone, "Scoring", "10 plus the nomination when exact, else nothing").await;
    phone.fill("Hook from hands of", "1").await;
    phone.fill("Revoke penalty", "2").await;
    phone.fill("Hand sizes (numbers separated by commas)", "1, 2, 3").await;
    // Seats by name: Bob deals first.
    choose(&phone, "First dealer", "Bob").await;
    // Hearts before spades in the trump rotation. The first suit has nowhere higher to go: its
    // ↑ is disabled, not a button that does nothing.
    assert!(
        !phone.enabled("Move ♠ Spades up").await,
        "the first suit cannot move up"
    );
    phone.tap("Move ♥ Hearts up").await;
    assert!(!phone.enabled("Move ♥ Hearts up").await, "hearts is first now");
    assert!(phone.enabled("Move ♠ Spades up").await, "spades is second now");
    phone.screenshot("new-table").await;
    phone.tap("Open the table").await;
    phone.wait_for_text("join code").await;

    let s = rig.app.get(&format!("/api/v1/sessions/{session}")).await;
    let s = s.assert_status(200);
    let table = s["tables"][0]["id"].as_str().expect("a table").to_owned();
    let options = &rig.app.state(&table).await["options"];
    assert_eq!(options["scoring"], "exact_only", "{options}");
    assert_eq!(options["hook_from_hand_size"], 1);
    assert_eq!(options["revoke_penalty"], 2);
    assert_eq!(options["hand_sizes"], json!([1, 2, 3]));
    assert_eq!(options["first_dealer"], 1);
    assert_eq!(
        options["trumps"],
        json!({"rule": "rotation", "order": ["hearts", "spades", "clubs", "diamonds", "no_trumps"]})
    );

    // A Pope Joan table: a choice and a toggle, both in the catalogue's words.
    phone.open(&format!("/#/session/{session}/new")).await;
    phone.wait_for_text("Options (defaults shown)").await;
    choose(&phone, "Game", "Pope Joan (3–8)").await;
    phone.wait_for_text("Who dresses the board").await;
    let body = phone.body_text().await;
    for raw in ["all_players", "dealer_alone", "{\"", "losers_pay_board"] {
        assert!(!body.contains(raw), "no raw JSON or code words ({raw}): {body}");
    }
    choose(&phone, "Who dresses the board", "The dealer alone").await;
    phone
        .client
        .find(fantoccini::Locator::Css("#opt-losers_pay_board"))
        .await
        .expect("the Losers pay the board switch")
        .click()
        .await
        .expect("switched on");
    phone.tap("Open the table").await;
    phone.wait_for_text("join code").await;
    let s = rig.app.get(&format!("/api/v1/sessions/{session}")).await;
    let tables = s.assert_status(200)["tables"].as_array().expect("tables").clone();
    let pope_joan = tables
        .iter()
        .find(|t| t["game"] == "pope-joan")
        .expect("a Pope Joan table");
    let options = &rig.app.state(pope_joan["id"].as_str().expect("id")).await["options"];
    assert_eq!(options["dressing"], "dealer_alone", "{options}");
    assert_eq!(options["losers_pay_board"], true, "{options}");
    assert_eq!(options["five_divisions"], false, "{options}");
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn the_join_qr_code_encodes_the_servers_public_address_not_the_one_the_organiser_used(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = crate::browser::rig_with(pool, |s| s.public_url = Some("https://cards.club.example".into())).await;
    let table = rig
        .app
        .table(&rig.organiser, &["Ann", "Bob", "Cat", "Dan"], json!({}))
        .await;
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
    // The organiser's browser is on 127.0.0.1 (the proxy); phones are told the public address.
    phone.open(&format!("/#/code/{table}")).await;
    phone.wait_for_text("type the code at cards.club.example").await;
    let qr = phone
        .client
        .wait()
        .at_most(crate::browser::PATIENCE)
        .for_element(fantoccini::Locator::Css("svg.qr"))
        .await
        .expect("a QR code");
    let label = qr.attr("aria-label").await.expect("attr").expect("a label");
    assert!(
        label.starts_with("QR code for https://cards.club.example/?join="),
        "{label}"
    );
    assert!(!label.contains("127.0.0.1") && !label.contains("localhost"), "{label}");
    let body = phone.body_text().await;
    assert!(!body.contains("Phones cannot open this address"), "{body}");
    phone.close().await;
}

/// A one-card Nomination Whist deal card by card: the seats after the dealer nominate
/// `nominations` (by seat) in turn, then play `cards` in turn from the seat after the dealer.
fn whist_deal(dealer: u8, nominations: [u8; 4], cards: [&str; 4]) -> Vec<Value> {
    let order: Vec<u8> = (1..=4).map(|i| (dealer + i) % 4).collect();
    let mut moves: Vec<Value> = order
        .iter()
        .map(|&s| json!({"kind": "nominate", "seat": s, "tricks": nominations[usize::from(s)]}))
        .collect();
    moves.extend(
        order
            .iter()
            .zip(cards)
            .map(|(&s, card)| json!({"kind": "play", "seat": s, "card": card})),
    );
    moves
}

#[sqlx::test(migrations = "./migrations")]
async fn deal_1_of_a_card_by_card_table_is_corrected_card_by_card_after_deal_3_and_verified_from_a_second_phone(
    pool: PgPool,
) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let options = json!({"hand_sizes": [1, 1, 1, 1]});
    let table = rig.whist(options.clone()).await;
    // Deal 1 as recorded: Bob led A♠ and took the trick. It was Cat who held the A♠ and
    // took it over Bob's 2♠. Deals 2 and 3 stand.
    let recorded = whist_deal(0, [1, 0, 0, 1], ["AS", "2S", "3H", "4D"]);
    let right = whist_deal(0, [1, 0, 0, 1], ["2S", "AS", "3H", "4D"]);
    let later = [
        whist_deal(1, [0, 0, 0, 0], ["AC", "2C", "3C", "4C"]),
        whist_deal(2, [0, 1, 0, 0], ["AD", "2D", "3D", "4D"]),
    ];
    // What the table should read: the same game recorded right the first time.
    let reference = rig.whist(options).await;
    for (table, first) in [(&table, &recorded), (&reference, &right)] {
        for mv in first.iter().chain(later.iter().flatten()) {
            rig.app
                .submit(table, &rig.organiser, mv.clone())
                .await
                .assert_status(201);
        }
    }
    let before = rig.totals(&table).await;
    let should = rig.totals(&reference).await;
    assert_ne!(before, should, "the slip changed the scores");
    let ledger = rig.app.ledger(&table).await;

    let scorer = rig.scorer(&table).await;
    scorer.wait_for_text("Deal 4 of 4").await;
    scorer.tap("Deals").await;
    scorer.tap("Open deal 1").await;
    scorer.wait_for_text("Deal 1 is unverified").await;
    scorer.tap("Correct deal 1").await;
    scorer
        .fill("Reason for the correction", "Cat held the A♠, not Bob")
        .await;
    // Card by card, as the deal was recorded: each choice waits for the engine's next turn.
    for (seat, n) in [("Bob", 0), ("Cat", 0), ("Dan", 1), ("Ann", 1)] {
        scorer.wait_for_text(&format!("{seat} nominates")).await;
        scorer.tap(&format!("Nominate {n}")).await;
        if seat == "Bob" {
            // A slip while re-entering is taken back before anything is sent.
            scorer.tap("Take back Bob nominated 0").await;
            scorer.wait_for_text("Bob nominates").await;
            scorer.tap("Nominate 0").await;
        }
    }
    scorer.wait_for_text("Bob to play").await;
    scorer.tap("two of spades").await;
    scorer.wait_for_text("Cat to play").await;
    // The card just entered is played: it cannot be entered again.
    assert!(!scorer.enabled("two of spades").await);
    scorer.tap("ace of spades").await;
    scorer.wait_for_text("Dan to play").await;
    show(&scorer, ".correction").await;
    scorer.screenshot("deals-correction-cards").await;
    scorer.tap("three of hearts").await;
    scorer.wait_for_text("Ann to play").await;
    scorer.tap("four of diamonds").await;
    // The engine's conclusion before anything is sent.
    scorer.wait_for_text("Trick 1 won by Cat").await;
    scorer.wait_for_text("Entered: 8 entries.").await;
    scorer.wait_for_text("As entered, deal 1 scores:").await;
    assert_eq!(rig.totals(&table).await, before, "nothing stored while entering");
    scorer.tap("Send the correction of deal 1").await;
    scorer
        .wait_for_text("Corrected by Ann's phone: “Cat held the A♠, not Bob”")
        .await;

    // The deal is the corrected cards, the scores are the game as it should have been.
    let deal = rig.app.get(&format!("/api/v1/tables/{table}/deals/1")).await;
    let deal = deal.assert_status(200).clone();
    let played: Vec<&Value> = deal["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| &m["move"])
        .collect();
    assert_eq!(played, right.iter().collect::<Vec<_>>(), "{deal}");
    assert_eq!(deal["lines"][0]["tricks"], json!([0, 0, 1, 0]));
    assert_eq!(rig.totals(&table).await, should);
    assert_eq!(
        rig.app.scores(&table).await["sheet"],
        rig.app.scores(&reference).await["sheet"]
    );
    // Points, not chips: the ledger has nothing to reverse, and the audit replays the log.
    assert_eq!(rig.app.ledger(&table).await["bookings"], ledger["bookings"]);
    crate::helpers::assert_audit_consistent(&rig.app, &table).await;
    scorer.tap("Table").await;
    assert_eq!(scorer.totals().await, should, "the page shows the corrected totals");

    // A second phone sees the corrected cards and agrees with them.
    let checker = rig.scorer_named(&table, "Bob's phone").await;
    checker.tap("Deals").await;
    checker.tap("Open deal 1").await;
    checker.wait_for_text("Trick 1 won by Cat").await;
    checker.wait_for_text("Corrected by Ann's phone").await;
    checker.tap("Agree with deal 1").await;
    checker.wait_for_text("Deal 1 is verified.").await;
    let deal = rig.app.get(&format!("/api/v1/tables/{table}/deals/1")).await;
    assert_eq!(deal.assert_status(200)["status"], "verified");
    scorer.close().await;
    checker.close().await;
}

/// The rows of the table a label names, each row's cells' text.
async fn rows(phone: &Phone, label: &str) -> Value {
    let deadline = tokio::time::Instant::now() + crate::browser::PATIENCE;
    loop {
        let rows = phone
            .client
            .execute(
                "const t = document.querySelector(`table[aria-label=\"${arguments[0]}\"]`); \
                 return t ? [...t.tBodies[0].rows].map((r) => [...r.cells].map((c) => c.textContent.trim())) : null",
                vec![json!(label)],
            )
            .await
            .expect("script");
        // "…" stands in a cell until the server's dry run of the dispute answers.
        if rows.as_array().is_some_and(|r| !r.is_empty()) && !rows.to_string().contains('…') {
            return rows;
        }
        assert!(tokio::time::Instant::now() < deadline, "no rows in {label:?}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// The text of the section a label names.
async fn section(phone: &Phone, label: &str) -> String {
    phone
        .client
        .execute(
            "return document.querySelector(`section[aria-label=\"${arguments[0]}\"]`)?.innerText ?? ''",
            vec![json!(label)],
        )
        .await
        .expect("script")
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[sqlx::test(migrations = "./migrations")]
async fn a_correction_made_while_deal_5_is_recorded_stays_out_of_deal_5_undo_names_and_voids_it_and_a_dispute_shows_both_phones_values(
    pool: PgPool,
) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [1, 1, 1, 1, 1, 1]})).await;
    for (deal, tricks) in [
        (1, [1, 0, 0, 0]),
        (2, [0, 1, 0, 0]),
        (3, [0, 0, 1, 0]),
        (4, [0, 0, 0, 1]),
    ] {
        rig.app
            .post(
                &format!("/api/v1/tables/{table}/moves"),
                &rig.organiser,
                json!({"move": {"kind": "result", "nominations": [1, 0, 0, 1], "tricks": tricks}, "deal": deal}),
            )
            .await
            .assert_status(201);
    }
    let scorer = rig.scorer(&table).await;
    scorer.wait_for_text("Deal 5 of 6").await;
    // Deal 5 card by card: Bob and Cat nominate.
    scorer.record("Nominate 0").await;
    scorer.record("Nominate 1").await;
    let before = rig.app.get(&format!("/api/v1/tables/{table}/deals/2")).await;
    let before = before.assert_status(200)["lines"].clone();

    // Deal 2 corrected from the page: Ann took the trick.
    scorer.tap("Deals").await;
    scorer.tap("Open deal 2").await;
    scorer.tap("Correct deal 2").await;
    scorer.fill("Reason for the correction", "Ann took it, not Bob").await;
    whist_result(&scorer, [1, 0, 0, 1], [1, 0, 0, 0]).await;
    scorer.tap("Send the correction of deal 2").await;
    scorer
        .wait_for_text("Corrected by Ann's phone: “Ann took it, not Bob”")
        .await;
    // Deal 5 lists its own two nominations, not deal 2's re-entered result.
    let now = section(&scorer, "Deal 5, being recorded").await;
    assert!(
        now.contains("Bob nominated 0") && now.contains("Cat nominated 1"),
        "{now}"
    );
    assert!(!now.contains("result"), "deal 2's entries are not deal 5's: {now}");

    // Undo names what it voids, the whole correction, and voids that.
    scorer.tap("Table").await;
    scorer.tap("Undo the correction of deal 2").await;
    scorer.record("Yes, undo the correction of deal 2").await;
    let log = rig.app.log(&table).await;
    let last = log.as_array().expect("log").last().expect("an entry").clone();
    assert_eq!(last["entry"], "void", "{last}");
    let correction = log
        .as_array()
        .expect("log")
        .iter()
        .find(|e| e["entry"] == "correction")
        .expect("the correction");
    assert_eq!(last["voids"], correction["seq"], "the correction was undone: {log}");
    let after = rig.app.get(&format!("/api/v1/tables/{table}/deals/2")).await;
    assert_eq!(after.assert_status(200)["lines"], before, "deal 2 as first recorded");
    // Next, Undo names deal 5's last entry, and the deal still lists its own.
    scorer.wait_for_text("Undo Cat nominated 1").await;
    assert_eq!(rig.totals(&table).await, scorer.totals().await);

    // A second phone disputes deal 3: Cat took no trick, Dan did.
    let checker = rig.scorer_named(&table, "Bob's phone").await;
    checker.tap("Deals").await;
    checker.tap("Open deal 3").await;
    checker.tap("Dispute deal 3").await;
    whist_result(&checker, [1, 0, 0, 1], [0, 0, 0, 1]).await;
    checker.tap("Send the dispute of deal 3").await;
    checker.wait_for_text("Deal 3 is disputed").await;
    // Either phone sees both phones' values side by side, not only the fields' names.
    scorer.tap("Deals").await;
    scorer.tap("Open deal 3").await;
    scorer.wait_for_text("Bob's phone disputes it").await;
    let got = rows(&scorer, "Dispute by Bob's phone").await;
    let got = got.as_array().expect("rows");
    let row = |field: &str| {
        got.iter()
            .find(|r| r[0] == field)
            .unwrap_or_else(|| panic!("no row for {field}: {got:?}"))
            .clone()
    };
    assert_eq!(row("Cat's tricks"), json!(["Cat's tricks", "1", "0"]));
    assert_eq!(row("Dan's tricks"), json!(["Dan's tricks", "0", "1"]));
    scorer.screenshot("deals-dispute").await;
    scorer.close().await;
    checker.close().await;
}
