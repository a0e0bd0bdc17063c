//! The page's layout in a real headless Chromium (the rig is `browser.rs`'s): the big screen
//! fits 1 to 12 tables at 1920×1080 and 1280×720 with nothing off the screen or cut; nothing
//! above the phone's controls or its tab bar moves when a switch, a summary or a notice comes
//! or goes; a deal entered from the keyboard alone, focus staying where the entries are made.

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::key::Key;
use serde_json::{json, Value};
use sqlx::PgPool;

use crate::browser::{is_stale, rig, Phone, Rig, ONE_BROWSER};
use crate::browser_table::axe;

/// Saves a screenshot to `$LAYOUT_SHOTS/<name>.png` when that is set (for looking at a layout).
async fn shot(phone: &Phone, name: &str) {
    let Some(dir) = std::env::var_os("LAYOUT_SHOTS") else {
        return;
    };
    let png = phone.client.screenshot().await.expect("screenshot");
    std::fs::write(std::path::Path::new(&dir).join(format!("{name}.png")), png).expect("saved");
}

/// Names as clubs have them: short, long, hyphenated, two words.
const NAMES: [&str; 12] = [
    "Bartholomew",
    "Ann",
    "Annabel-Marguerite",
    "Bob",
    "Christopher",
    "Cat",
    "Wilhelmina",
    "Dan",
    "Mary Ellen",
    "Jo",
    "Maximilian",
    "Evangeline",
];

/// A session of `count` Nomination Whist tables, each at its first nomination (the seat after
/// the dealer to act), the last one a nomination further on.
async fn session_of(rig: &Rig, count: usize) -> String {
    let session = rig.app.session(&rig.organiser, &format!("{count} tables")).await;
    let mut last = String::new();
    for n in 0..count {
        let players: Vec<&str> = (0..4).map(|s| NAMES[(n * 4 + s) % NAMES.len()]).collect();
        let body = json!({"game": "nomination-whist", "players": players, "session_id": session,
            "options": {"hand_sizes": [3, 2]}});
        last = rig
            .app
            .post("/api/v1/tables", &rig.organiser, body)
            .await
            .assert_status(201)["id"]
            .as_str()
            .expect("id")
            .to_owned();
    }
    rig.app
        .post(
            &format!("/api/v1/tables/{last}/moves"),
            &rig.organiser,
            json!({"move": {"kind": "nominate", "seat": 1, "tricks": 2}}),
        )
        .await
        .assert_status(201);
    session
}

/// What is wrong with the board as drawn: a tile, seat, name or total outside the screen or its
/// tile, cut (wider or taller than its box), a name broken inside a word or on more than two
/// lines, a name cut without an ellipsis and its full text, a total under 48 px, a name under
/// `name_px`, a sideways scroll; with the sizes found.
async fn board_problems(board: &Phone, name_px: f64) -> Value {
    board
        .client
        .execute(
            r#"
            const minName = arguments[0];
            const px = (el) => parseFloat(getComputedStyle(el).fontSize);
            const problems = [];
            const [vw, vh] = [innerWidth, innerHeight];
            const onScreen = (el, what) => {
              const r = el.getBoundingClientRect();
              if (r.left < -0.5 || r.top < -0.5 || r.right > vw + 0.5 || r.bottom > vh + 0.5)
                problems.push(`${what} off the screen: ${JSON.stringify(r)}`);
            };
            const inside = (el, box, what) => {
              const r = el.getBoundingClientRect();
              const t = box.getBoundingClientRect();
              if (r.left < t.left - 0.5 || r.right > t.right + 0.5 || r.top < t.top - 0.5 || r.bottom > t.bottom + 0.5)
                problems.push(`${what} sticks out of its tile`);
            };
            const tiles = [...document.querySelectorAll('.board-tile')];
            for (const tile of tiles) {
              const label = tile.getAttribute('aria-label');
              onScreen(tile, label);
              // By the boxes, not the ink: a big figure's ink reaches past its line box into
              // blank space (a digit has no descent), which the tile's edge may clip.
              if (tile.scrollWidth > tile.clientWidth + 1) problems.push(`${label}: its content is cut sideways`);
              for (const el of tile.querySelectorAll('h2, .tile-facts, .tile-turn, .tile-seats')) inside(el, tile, `${label}: ${el.textContent}`);
              for (const seat of tile.querySelectorAll('.tile-seat')) {
                const who = `${label}, ${seat.querySelector('.tile-name').textContent}`;
                onScreen(seat, who);
                inside(seat, tile, who);
                const name = seat.querySelector('.tile-name');
                const total = seat.querySelector('.tile-total');
                inside(name, seat, `${who}'s name`);
                inside(total, seat, `${who}'s total`);
                if (px(total) < 48) problems.push(`${who}: total ${px(total)}px`);
                if (px(name) < minName) problems.push(`${who}: name ${px(name)}px`);
                if (total.scrollWidth > total.clientWidth + 0.5) problems.push(`${who}: total cut`);
                // A word is broken when its letters fall on more than one line (a double-barrelled
                // name may break after its hyphen, as print does).
                const text = name.firstChild;
                const range = document.createRange();
                let at = 0;
                for (const word of text.data.split(/(?<=[ -])/)) {
                  const letters = word.replace(/[ -]$/, '');
                  range.setStart(text, at);
                  range.setEnd(text, at + letters.length);
                  const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
                  if (tops.size > 1) problems.push(`${who}: "${letters}" broken over ${tops.size} lines`);
                  at += word.length;
                }
                const line = parseFloat(getComputedStyle(name).lineHeight);
                if (name.getBoundingClientRect().height > 2 * line + 1) problems.push(`${who}: name on more than two lines`);
                const cut = name.scrollWidth > name.clientWidth + 0.5 || name.scrollHeight > name.clientHeight + 1;
                const style = getComputedStyle(name);
                const ellipsis = style.textOverflow === 'ellipsis' || style.webkitLineClamp !== 'none';
                if (cut && !(ellipsis && name.title === text.data)) problems.push(`${who}: name cut without an ellipsis and its full text`);
              }
            }
            const acting = document.querySelectorAll('.tile-seat.acting');
            if (acting.length !== tiles.length) problems.push(`${acting.length} seats to act shown for ${tiles.length} tables`);
            const root = document.documentElement;
            if (root.scrollWidth > root.clientWidth) problems.push(`a sideways scroll: ${root.scrollWidth}`);
            if (root.scrollHeight > root.clientHeight + 1) problems.push(`a scroll down: ${root.scrollHeight}`);
            const sizes = (css) => [...document.querySelectorAll(css)].map(px);
            const cut = [...document.querySelectorAll('.tile-name')].filter((n) => n.scrollWidth > n.clientWidth + 0.5 || n.scrollHeight > n.clientHeight + 1).length;
            const board = document.querySelector('.board').getBoundingClientRect();
            return { problems, tiles: tiles.length, names_cut: cut,
              name_px: Math.min(...sizes('.tile-name')), total_px: Math.min(...sizes('.tile-total')),
              width: board.width, bottom: board.bottom, viewport: [vw, vh] };
            "#,
            vec![json!(name_px)],
        )
        .await
        .expect("measured")
}

#[sqlx::test(migrations = "./migrations")]
async fn the_board_fits_one_six_and_twelve_tables_at_1080p_and_720p_with_nothing_off_the_screen_or_cut(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let sessions = [
        (1, session_of(&rig, 1).await),
        (6, session_of(&rig, 6).await),
        (12, session_of(&rig, 12).await),
    ];
    let mut links = Vec::new();
    for (count, session) in &sessions {
        links.push((*count, session.clone(), rig.share_link(session).await));
    }
    let base = format!("http://{}", rig.proxy.addr);
    let mut problems = Vec::new();
    for (width, height) in [(1920, 1080), (1280, 720)] {
        let board = rig.driver.window(&base, width, height, false).await;
        for (count, session, token) in &links {
            board.open(&format!("/?share={token}#/board/{session}")).await;
            board.wait_for_text(&format!("Table {count}: Nomination Whist")).await;
            board.wait_for_text("nom. 2").await;
            // The fitting settles after the last table is drawn.
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            shot(&board, &format!("board-{count}-{width}")).await;
            let found = board_problems(&board, 24.0).await;
            let screen = format!("{count} tables at {width}×{height}");
            assert_eq!(found["tiles"], *count, "{screen}: {found}");
            for p in found["problems"].as_array().expect("problems") {
                problems.push(format!("{screen}: {}", p.as_str().unwrap_or_default()));
            }
            // The tiles fill the screen.
            let number = |k: &str| found[k].as_f64().unwrap_or(f64::NAN);
            if number("width") < 0.95 * f64::from(width) || number("bottom") < f64::from(height) - 16.0 {
                problems.push(format!("{screen}: the tiles do not fill the screen: {found}"));
            }
            eprintln!("{screen}: {found}");
            if *count == 12 {
                problems.extend(axe(&board).await.into_iter().map(|p| format!("{screen}: {p}")));
            }
        }
        board.close().await;
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// Where the tab bar, the entry panel and the panel's first line (its prompt, or a deal's
/// summary) are on the screen: [top, bottom] in CSS pixels from the screen's top.
async fn places(phone: &Phone) -> Value {
    phone
        .client
        .execute(
            "const at = (css) => { const el = document.querySelector(css); if (!el) return null; \
               const r = el.getBoundingClientRect(); return [r.top, r.bottom]; }; \
             return { tabs: at('.tabs'), entry: at('.entry'), first: at('.entry .prompt, .entry .summary'), \
               notice: document.querySelector('.notice')?.textContent ?? '', scrolled: scrollY }",
            vec![],
        )
        .await
        .expect("measured")
}

/// The places that must not move: the tab bar, the entry panel's top and, unless `first` is
/// false (the panel gave way to another), its first line's top.
fn moved(what: &str, before: &Value, after: &Value, first: bool, problems: &mut Vec<String>) {
    let keys: &[(&str, usize)] = if first {
        &[("tabs", 0), ("tabs", 1), ("entry", 0), ("first", 0)]
    } else {
        &[("tabs", 0), ("tabs", 1), ("entry", 0)]
    };
    for (key, i) in keys {
        let (b, a) = (before[key][*i].as_f64(), after[key][*i].as_f64());
        match (b, a) {
            (Some(b), Some(a)) if (b - a).abs() < 1.0 => {}
            _ => problems.push(format!(
                "{what}: {key} moved from {b:?} to {a:?}: {before} then {after}"
            )),
        }
    }
}

/// Taps the control `name` as a thumb would (scrolled into the middle of the screen first), and
/// answers where things were just before the tap and once the table moved on.
/// Measures that must agree before the page is taken as settled: two seconds' worth.
const AGREEING: u32 = 8;

async fn tap_measured(phone: &Phone, name: &str) -> (Value, Value) {
    tap_measured_settling(phone, name, AGREEING).await
}

/// [`tap_measured`], the page taken as settled after `agreeing` measures that agree.
async fn tap_measured_settling(phone: &Phone, name: &str, agreeing: u32) -> (Value, Value) {
    // A person waits while the controls are held (another phone's entry just arrived).
    let deadline = tokio::time::Instant::now() + crate::browser::PATIENCE;
    loop {
        let held = phone
            .client
            .execute("return Boolean(document.querySelector('.controls[inert]'))", vec![])
            .await
            .expect("held");
        if held == false {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "the controls stayed held");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let version = phone.version().await;
    // The page may draw the control anew between finding and tapping it (a trick's winner
    // giving way): find it again then, as a second look would.
    let before = loop {
        let el = phone.control(name).await;
        let scrolled = phone
            .client
            .execute(
                "arguments[0].scrollIntoView({block: 'center'})",
                vec![serde_json::to_value(&el).expect("element")],
            )
            .await;
        let before = places(phone).await;
        match scrolled.and(el.click().await) {
            Ok(()) => break before,
            Err(e) if is_stale(&e) => tokio::time::sleep(std::time::Duration::from_millis(50)).await,
            Err(e) => panic!("tapping {name:?}: {e}"),
        }
    };
    phone.wait_for_version(version + 1).await;
    (before, settled(phone, agreeing).await)
}

/// Where things are once the page has drawn what the answer brought: on a loaded machine (CI) a
/// measure taken as soon as the new version showed found the entry panel 48 px below where it
/// settled, between two drawings, and once a measure that had stood for a quarter of a second
/// did too; neither is where a finger lands. Measures a quarter of a second apart that agree for
/// longer than a hold of the controls lasts (`HOLD_MS`, 1.5 s): what the page settles on
/// ([`AGREEING`] of them; fewer where what is measured gives way by itself sooner).
async fn settled(phone: &Phone, agreeing: u32) -> Value {
    let deadline = tokio::time::Instant::now() + crate::browser::PATIENCE;
    let mut last = places(phone).await;
    let mut agreed = 0;
    loop {
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        let now = places(phone).await;
        let same = ["tabs", "entry", "first"].iter().all(|k| now[k] == last[k]);
        agreed = if same { agreed + 1 } else { 0 };
        if agreed >= agreeing || tokio::time::Instant::now() >= deadline {
            return now;
        }
        last = now;
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn nothing_moves_under_a_finger_when_a_deals_first_entry_a_notice_or_a_summary_comes_or_goes(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [1, 1]})).await;
    let phone = rig.scorer(&table).await;
    phone.wait_for_text("Bob nominates").await;
    let mut problems = Vec::new();

    // The deal's first entry: the Card-by-card/Result switch stays (Result disabled), the
    // notice says what was recorded in its fixed room.
    let (before, after) = tap_measured(&phone, "Nominate 1").await;
    moved("the deal's first entry", &before, &after, true, &mut problems);
    assert!(
        !phone.enabled("Result").await,
        "a deal under way is entered card by card"
    );
    phone.wait_for_text("Recorded: Bob nominated 1").await;

    // Another phone's entry: the notice says what arrived.
    let before = places(&phone).await;
    rig.app
        .post(
            &format!("/api/v1/tables/{table}/moves"),
            &rig.organiser,
            json!({"move": {"kind": "nominate", "seat": 2, "tricks": 0}}),
        )
        .await
        .assert_status(201);
    phone.wait_for_text("recorded Cat nominated 0").await;
    moved(
        "another phone's entry and its notice",
        &before,
        &places(&phone).await,
        true,
        &mut problems,
    );

    let (before, after) = tap_measured(&phone, "Nominate 0").await;
    moved("a nomination", &before, &after, true, &mut problems);
    let (before, after) = tap_measured(&phone, "Nominate 1").await;
    moved(
        "the last nomination gives way to the cards",
        &before,
        &after,
        true,
        &mut problems,
    );
    for card in ["ace of spades", "two of spades", "three of hearts"] {
        let (before, after) = tap_measured(&phone, card).await;
        moved(card, &before, &after, true, &mut problems);
    }

    // The deal ends: its summary takes the panel's place, then gives way by itself.
    // The summary stands 3 s: measured as soon as two measures agree, while it is there.
    let (before, after) = tap_measured_settling(&phone, "four of diamonds", 1).await;
    phone.wait_for_text("Deal 1 scored").await;
    let summary = places(&phone).await;
    moved("the deal's summary comes", &before, &summary, false, &mut problems);
    moved(
        "the deal's summary comes (after the answer)",
        &after,
        &summary,
        false,
        &mut problems,
    );
    phone.wait_for_text("Cat nominates").await;
    moved(
        "the summary gives way",
        &summary,
        &places(&phone).await,
        false,
        &mut problems,
    );
    assert!(problems.is_empty(), "{problems:#?}");
    phone.close().await;
}

/// Presses `key` on the keyboard, as a person does: it goes to whatever has focus.
async fn press(phone: &Phone, key: char) {
    let keys = KeyActions::new("keyboard".to_owned())
        .then(KeyAction::Down { value: key })
        .then(KeyAction::Up { value: key });
    phone.client.perform_actions(keys).await.expect("a key pressed");
}

/// What has focus: its name (aria-label, else text) and whether it is in the entry panel.
async fn focused(phone: &Phone) -> (String, bool) {
    let found = phone
        .client
        .execute(
            "const el = document.activeElement; \
             return [el ? (el.getAttribute('aria-label') || el.textContent || el.tagName) : '', Boolean(el?.closest('.entry'))]",
            vec![],
        )
        .await
        .expect("focus");
    (found[0].as_str().unwrap_or_default().to_owned(), found[1] == true)
}

/// Presses `keys` then Enter, and waits for the entry to be recorded; answers how many keys.
async fn enter(phone: &Phone, keys: &str) -> usize {
    let version = phone.version().await;
    for key in keys.chars() {
        press(phone, key).await;
    }
    press(phone, Key::Enter.into()).await;
    phone.wait_for_version(version + 1).await;
    // The stream can bring the entry before the page's own request is answered (under load it
    // does): the page holds the panel until that answer, so focus is asked after it.
    let deadline = tokio::time::Instant::now() + crate::browser::PATIENCE;
    while phone
        .client
        .execute("return document.querySelector('section.queue') !== null", vec![])
        .await
        .expect("the queue")
        == true
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the page's own entry was never answered:\n{}",
            phone.body_text().await
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    keys.chars().count() + 1
}

#[sqlx::test(migrations = "./migrations")]
async fn a_six_card_deal_is_entered_from_the_keyboard_in_at_most_four_keys_a_card_focus_staying_at_the_entry(
    pool: PgPool,
) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let table = rig.whist(json!({"hand_sizes": [6, 1]})).await;
    let phone = rig.scorer(&table).await;
    phone.wait_for_text("Bob nominates").await;
    // From the top of the page to the first nomination: Tab, as a keyboard does.
    let mut keys = 0;
    loop {
        press(&phone, Key::Tab.into()).await;
        keys += 1;
        if focused(&phone).await.0.starts_with("Nominate") {
            break;
        }
        assert!(
            keys < 12,
            "the nominations are near the top: {:?}",
            focused(&phone).await
        );
    }
    // A nomination: its number, then Enter.
    for n in ["1", "2", "1", "1"] {
        keys += enter(&phone, n).await;
        let (name, inside) = focused(&phone).await;
        assert!(inside, "after a nomination focus stays in the entry panel: {name}");
    }
    phone.wait_for_text("Bob to play").await;
    // A card: its rank, its suit, Enter; a ten as "1 0" (four keys).
    let tricks = [
        ["as", "ks", "qs", "js"],
        ["ah", "kh", "qh", "jh"],
        ["ad", "kd", "qd", "jd"],
        ["ac", "kc", "qc", "jc"],
        ["10s", "9s", "8s", "7s"],
        ["10h", "9h", "8h", "7h"],
    ];
    let mut cards = 0;
    for trick in tricks {
        for card in trick {
            keys += enter(&phone, card).await;
            cards += 1;
            let (name, inside) = focused(&phone).await;
            assert!(
                inside,
                "after card {cards} ({card}) focus stays in the entry panel: {name}"
            );
        }
    }
    phone.wait_for_text("Deal 1 scored").await;
    eprintln!("{keys} keys for {cards} cards and 4 nominations");
    assert_eq!(
        focused(&phone).await.0,
        "Next deal",
        "the summary's one choice has focus"
    );
    assert!(
        keys <= 4 * cards,
        "{keys} keys for a deal of {cards} cards and its nominations"
    );
    let log = rig.app.log(&table).await;
    let plays: Vec<&Value> = log
        .as_array()
        .expect("log")
        .iter()
        .filter(|e| e["move"]["kind"] == "play")
        .collect();
    assert_eq!(plays.len(), 24, "{log}");
    assert_eq!(plays[16]["move"]["card"], "10S", "{log}");
    assert_eq!(phone.totals().await, rig.totals(&table).await);

    // Enter takes the summary's Next deal; focus goes on to the next deal's nominations.
    press(&phone, Key::Enter.into()).await;
    phone.wait_for_text("Cat nominates").await;
    let (name, inside) = focused(&phone).await;
    assert!(inside && name.starts_with("Nominate"), "{name}");
    phone.close().await;
}

/// With the result form open: the page's height against the screen's, and where each part of
/// the table screen ends (for a message that says what took the room).
async fn result_form_fit(phone: &Phone) -> Value {
    phone
        .client
        .execute(
            "const h = (css) => { const el = document.querySelector(css); if (!el) return null; \
               const r = el.getBoundingClientRect(); return Math.round(r.height); }; \
             return { page: document.scrollingElement.scrollHeight, screen: innerHeight, \
               head: h('.table-head'), seats: h('.seats'), centre: h('.centre'), notice: h('.notice'), \
               undo: h('.undo-bar'), modes: h('.modes'), form: h('form.result'), tabs: h('.tabs') }",
            vec![],
        )
        .await
        .expect("measured")
}

#[sqlx::test(migrations = "./migrations")]
async fn result_forms_fit_a_390_by_844_screen_without_scrolling(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let four = ["Ann", "Bob", "Cat", "Dan"];
    let tables = [
        (
            "Nomination Whist, 13 cards",
            rig.whist(json!({"hand_sizes": [13]})).await,
        ),
        (
            "Dividend",
            rig.app.game_table(&rig.organiser, "dividend", &four, json!({})).await,
        ),
        (
            "Tricky Dick",
            rig.app
                .game_table(&rig.organiser, "tricky-dick", &four, json!({}))
                .await,
        ),
        (
            "Tridge",
            rig.app
                .game_table(&rig.organiser, "tridge", &["Ann", "Bob", "Cat"], json!({}))
                .await,
        ),
    ];
    let mut problems = Vec::new();
    for (game, table) in &tables {
        let phone = rig.scorer(table).await;
        phone.wait_for_text("Result").await;
        // Tapped where it is, at the top of the page, as a thumb would: no scroll first.
        let at = phone
            .client
            .execute(
                "scrollTo(0, 0); const b = [...document.querySelectorAll('.modes button')].find((x) => x.textContent === 'Result'); \
                 const r = b.getBoundingClientRect(); b.click(); return r.bottom <= innerHeight",
                vec![],
            )
            .await
            .expect("tapped");
        assert_eq!(at, json!(true), "{game}: Result is on the screen");
        phone.wait_for_text("Record result").await;
        shot(&phone, &format!("result-{game}")).await;
        let fit = result_form_fit(&phone).await;
        let (page, screen) = (fit["page"].as_f64(), fit["screen"].as_f64());
        if !matches!((page, screen), (Some(p), Some(s)) if p <= s) {
            problems.push(format!("{game}: the page is taller than the screen: {fit}"));
        }
        phone.close().await;
    }
    assert!(problems.is_empty(), "{problems:#?}");
}
