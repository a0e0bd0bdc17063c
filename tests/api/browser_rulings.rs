//! The result as it becomes final (issue #42), on the page, in headless Chromium through the rig
//! of `browser.rs`: the director rules on finished deals from the organiser's screens and sees
//! what each ruling moved, seat by seat, as the API's answer says; the table's phone agrees with
//! a ruling (once); the Deals tab marks a corrected, a ruled and a flagged deal; the score sheet's
//! totals count the rulings; and the correction window counts down on the table and the big
//! screen until the session is final.

use serde_json::{json, Value};
use sqlx::PgPool;

use crate::browser::{rig, Phone, Rig, ONE_BROWSER};
use crate::browser_table::axe;

fn whist(nominations: [u8; 4], tricks: [u8; 4]) -> Value {
    json!({"kind": "result", "nominations": nominations, "tricks": tricks})
}

/// A Nomination Whist table of Ann, Bob, Cat and Dan in `session`.
async fn table(rig: &Rig, session: &str, options: Value) -> String {
    let body = json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat", "Dan"],
        "session_id": session, "options": options});
    rig.app
        .post("/api/v1/tables", &rig.organiser, body)
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned()
}

/// A browser with the organiser signed in, on `path`.
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

/// The diff table the page shows under `css`: per seat, `[score before, score after]`.
async fn shown_diff(phone: &Phone, css: &str) -> Vec<[i64; 2]> {
    let rows = phone
        .client
        .execute(
            "const t = document.querySelector(arguments[0]); if (!t) return []; \
             return [...t.querySelectorAll('.diff-table tbody tr')].map((tr) => [ \
               Number(tr.querySelector('[data-what=score][data-before]').dataset.before), \
               Number(tr.querySelector('[data-what=score][data-after]').dataset.after)])",
            vec![json!(css)],
        )
        .await
        .expect("the diff");
    serde_json::from_value(rows).expect("rows")
}

/// Each seat's `[score before, score after]` in a ruling as the API answers it.
fn api_diff(ruling: &Value) -> Vec<[i64; 2]> {
    ruling["diff"]["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|s| {
            [
                s["score_before"].as_i64().expect("before"),
                s["score_after"].as_i64().expect("after"),
            ]
        })
        .collect()
}

async fn rulings(rig: &Rig, table: &str, deal: u16) -> Value {
    rig.app
        .get(&format!("/api/v1/tables/{table}/deals/{deal}/rulings"))
        .await
        .assert_status(200)
        .clone()
}

#[sqlx::test(migrations = "./migrations")]
async fn browser_the_director_rules_void_and_average_from_the_page_sees_the_diff_and_the_tables_phone_agrees_once(
    pool: PgPool,
) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let session = rig.app.session(&rig.organiser, "Thursday").await;
    // Three one-card deals, then thirteen cards without the hook rule (where every nomination
    // met is improbable enough to be flagged).
    let t = table(
        &rig,
        &session,
        json!({"hand_sizes": [1, 1, 1, 13], "hook_from_hand_size": 14}),
    )
    .await;
    let bob = rig.scorer_named(&t, "Bob's phone").await;
    // 1 a trick, 10 more for a nomination met:
    // deal 1 [10, 11, 10, 10]; deal 2 [0, 1, 10, 10]; deal 3 as corrected [10, 10, 10, 11];
    // deal 4 [14, 13, 15, 11]: totals [34, 35, 45, 42].
    for mv in [
        whist([0, 1, 0, 0], [0, 1, 0, 0]),
        whist([1, 0, 0, 0], [0, 1, 0, 0]),
        whist([0, 0, 1, 0], [0, 0, 1, 0]),
    ] {
        rig.app.submit(&t, &rig.organiser, mv).await.assert_status(201);
    }
    let version = rig.app.state(&t).await["version"].as_i64().expect("version");
    rig.app
        .request(
            reqwest::Method::PUT,
            &format!("/api/v1/tables/{t}/deals/3"),
            Some(&rig.organiser),
            Some(
                json!({"moves": [whist([0, 0, 0, 1], [0, 0, 0, 1])], "expected_version": version,
                        "reason": "Dan's trick, not Cat's"}),
            ),
        )
        .await
        .assert_status(200);
    rig.app
        .submit(&t, &rig.organiser, whist([4, 3, 5, 1], [4, 3, 5, 1]))
        .await
        .assert_status(201);
    assert_eq!(rig.totals(&t).await, [34, 35, 45, 42]);

    // The director's screen, from the session's: the flagged deal listed with a link to it.
    let director = organiser_phone(&mut rig, &format!("/#/session/{session}")).await;
    director.tap("Director: rulings and flags").await;
    director.wait_for_text("Flagged deals").await;
    director.wait_for_text("Table 1, deal 4:").await;
    director.wait_for_text("needs a second phone's check or a ruling").await;
    assert!(director.offers("Rule on table 1, deal 4").await);

    // Void deal 2: its points go, [0, -1, -10, -10].
    director.fill("Deal", "2").await;
    director.fill("Kind", "Void").await;
    // No reason yet: refused on the page, and the refusal stays in the form until it is sent.
    director.tap("Make the ruling").await;
    director
        .wait_for_text("Say why: the players see the reason with the ruling.")
        .await;
    director.fill("Reason for the ruling", "the board was fouled").await;
    director.tap("Make the ruling").await;
    director.wait_for_text("Ruled: void of deal 2 at table 1.").await;
    let void = rulings(&rig, &t, 2).await[0].clone();
    assert_eq!(void["kind"], "void");
    assert_eq!(void["reason"], "the board was fouled");
    let by_hand = [[34, 34], [35, 34], [45, 35], [42, 32]];
    assert_eq!(api_diff(&void), by_hand);
    assert_eq!(shown_diff(&director, ".ruling-made").await, by_hand);
    let problems = axe(&director).await;
    assert!(problems.is_empty(), "the director's screen: {problems:#?}");

    // Average 60 % for Bob on deal 1: 60 % of the deal's best (11) is 6.6, so 7; Bob had 11.
    director.fill("Deal", "1").await;
    director.fill("Kind", "Average").await;
    director.tap("Average for Bob").await;
    director.fill("Percentage", "60 %").await;
    director
        .fill("Reason for the ruling", "Bob was given the wrong hand")
        .await;
    // Each choice draws the form again after a read: under load the drawing of the last one may
    // still be on its way. A director taps once the form shows what was chosen.
    let deadline = tokio::time::Instant::now() + crate::browser::PATIENCE;
    loop {
        let drawn = director
            .client
            .execute(
                "const bob = document.querySelector('[aria-label=\"Average for Bob\"]'); \
                 const sixty = [...document.querySelectorAll('[role=radio]')].find((b) => b.textContent.trim() === '60 %'); \
                 return Boolean(bob && bob.getAttribute('aria-pressed') === 'true' && sixty && sixty.getAttribute('aria-checked') === 'true' \
                   && document.getElementById('ruling-reason')?.value === 'Bob was given the wrong hand')",
                vec![],
            )
            .await
            .expect("script");
        if drawn == json!(true) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the form never showed the choices made"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    director.tap("Make the ruling").await;
    director.wait_for_text("Ruled: average of deal 1 at table 1.").await;
    let average = rulings(&rig, &t, 1).await[0].clone();
    assert_eq!(average["seats"], json!([1]));
    assert_eq!(average["percent"], 60);
    let by_hand = [[34, 34], [34, 30], [35, 35], [32, 32]];
    assert_eq!(api_diff(&average), by_hand);
    assert_eq!(shown_diff(&director, ".ruling-made").await, by_hand);
    director.wait_for_text("no answer yet").await;

    // Bob's phone was at the table all along: both rulings are offered to it, each with what it
    // moved. It agrees with the void, with a word.
    bob.wait_for_text("The director ruled on deal 2: void").await;
    bob.wait_for_text("The director ruled on deal 1: average").await;
    assert_eq!(
        shown_diff(&bob, "[aria-label='Ruling on deal 2']").await,
        [[34, 34], [35, 34], [45, 35], [42, 32]]
    );
    let problems = axe(&bob).await;
    assert!(problems.is_empty(), "the phone's ruling panel: {problems:#?}");
    bob.fill("Comment (optional)", "we saw the fouled board").await;
    bob.tap("Agree with the ruling on deal 2").await;
    bob.wait_for_text("You agreed with the ruling on deal 2.").await;
    let answers = &rulings(&rig, &t, 2).await[0]["answers"];
    assert_eq!(answers.as_array().map(Vec::len), Some(1), "{answers}");
    assert_eq!(answers[0]["answer"], "agree");
    assert_eq!(answers[0]["comment"], "we saw the fouled board");
    assert_eq!(answers[0]["recorded_by_name"], "Bob's phone");
    // Once: the answered ruling is not offered again, even after a reload; the other still is.
    assert!(!bob.offers("Agree with the ruling on deal 2").await);
    bob.client.refresh().await.expect("reloaded");
    bob.wait_for_text("The director ruled on deal 1: average").await;
    // The other is offered once the page has read the table again (its controls are held
    // until then).
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(15);
    while !bob.offers("Appeal the ruling on deal 1").await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the ruling on deal 1 is offered again"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(!bob.offers("Agree with the ruling on deal 2").await);

    // The Deals tab marks what changed and what is flagged.
    bob.tap("Deals").await;
    bob.wait_for_text("ruled: void").await;
    let marks = bob
        .client
        .execute(
            "return [...document.querySelectorAll('.deal-line')].map((li) => [Number(li.dataset.deal), \
               li.querySelector('.changed')?.textContent ?? '', li.querySelector('.flag')?.textContent ?? ''])",
            vec![],
        )
        .await
        .expect("marks");
    let marks: Vec<(u16, String, String)> = serde_json::from_value(marks).expect("marks");
    assert_eq!(marks.len(), 4, "{marks:?}");
    let of = |n: u16| marks.iter().find(|m| m.0 == n).cloned().expect("the deal's line");
    assert_eq!(of(1).1, "ruled: average");
    assert_eq!(of(2).1, "ruled: void");
    assert_eq!(of(3).1, "corrected");
    assert_eq!(of(4).1, "");
    let flag = of(4).2;
    assert!(
        flag.contains("every nomination was met") && flag.contains("needs a second phone's check"),
        "{flag}"
    );
    assert!(of(1).2.is_empty() && of(3).2.is_empty(), "{marks:?}");

    // The score sheet's totals count the rulings, and say so.
    bob.tap("Score sheet").await;
    bob.wait_for_text("Total with rulings").await;
    let ruled = rig.app.scores(&t).await["rulings"]["totals"].clone();
    assert_eq!(ruled, json!([34, 30, 35, 32]));
    let shown = bob
        .client
        .execute(
            "return [...document.querySelectorAll('table.sheet tfoot td')].map((td) => Number(td.dataset.total))",
            vec![],
        )
        .await
        .expect("totals");
    assert_eq!(shown, ruled);
    bob.wait_for_text("The totals include the director's rulings").await;
    director.close().await;
    bob.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn browser_the_correction_window_counts_down_on_the_table_and_the_big_screen_then_says_final(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let session = rig.app.session(&rig.organiser, "Thursday").await;
    let t = table(&rig, &session, json!({"hand_sizes": [1]})).await;
    // The phone at the table, which may not read the session: it reads where the session stands.
    let scorer = rig.scorer(&t).await;
    rig.app
        .submit(&t, &rig.organiser, whist([0, 1, 0, 0], [0, 1, 0, 0]))
        .await
        .assert_status(201);
    scorer.wait_for_text("Game over").await;
    let head = "return document.querySelector('.table-head').getBoundingClientRect().height";
    let open_head = scorer.client.execute(head, vec![]).await.expect("height");
    let link = rig.share_link(&session).await;
    // An open session shows no countdown.
    let page = organiser_phone(&mut rig, &format!("/#/table/{t}")).await;
    page.wait_for_text("Game over").await;
    assert!(!page.body_text().await.contains("Final in"));
    assert!(!scorer.body_text().await.contains("Final in"));

    // The big screen's browser is started first: a window of seconds is short.
    let base = format!("http://{}", rig.proxy.addr);
    let board = rig.driver.window(&base, 1280, 720, false).await;
    // A window of seconds (never slept on: the pages are watched until they say Final).
    let closed = rig
        .app
        .post(
            &format!("/api/v1/sessions/{session}/close"),
            &rig.organiser,
            json!({"correction_window": "PT10S"}),
        )
        .await
        .assert_status(200)
        .clone();
    assert_eq!(closed["status"], "closing");
    page.client.refresh().await.expect("reloaded");
    page.wait_for_text("Final in 0:0").await;
    scorer.client.refresh().await.expect("reloaded");
    scorer.wait_for_text("Final in 0:0").await;
    // In the header's one line: the header is as tall as before the close.
    let closing_head = scorer.client.execute(head, vec![]).await.expect("height");
    assert_eq!(closing_head, open_head);
    board.open(&format!("/?share={link}#/board/{session}")).await;
    board.wait_for_text("Corrections close in 0:0").await;
    let problems = axe(&page).await;
    assert!(problems.is_empty(), "the table with its countdown: {problems:#?}");

    // "Final in 0:03" says Final too: the countdown is over when it says Final alone.
    for phone in [&page, &board, &scorer] {
        phone.wait_for_text("Final").await;
        let deadline = tokio::time::Instant::now() + crate::browser::PATIENCE;
        while phone.body_text().await.contains("Final in") {
            assert!(tokio::time::Instant::now() < deadline, "the countdown never ended");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }
    assert!(!page.body_text().await.contains("Final in"));
    assert!(!scorer.body_text().await.contains("Final in"));
    // The server agrees: the session is final.
    let read = rig
        .app
        .get(&format!("/api/v1/sessions/{session}"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(read["status"], "final");
    page.close().await;
    board.close().await;
    scorer.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn browser_the_big_screen_marks_a_table_whose_result_was_corrected_or_ruled(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let session = rig.app.session(&rig.organiser, "Thursday").await;
    let t = table(&rig, &session, json!({"hand_sizes": [1, 1, 1]})).await;
    let other = table(&rig, &session, json!({"hand_sizes": [1, 1, 1]})).await;
    for table in [&t, &other] {
        for deal in [whist([0, 1, 0, 0], [0, 1, 0, 0]), whist([1, 0, 0, 0], [1, 0, 0, 0])] {
            rig.app.submit(table, &rig.organiser, deal).await.assert_status(201);
        }
    }
    let link = rig.share_link(&session).await;
    let base = format!("http://{}", rig.proxy.addr);
    let board = rig.driver.window(&base, 1280, 720, false).await;
    board.open(&format!("/?share={link}#/board/{session}")).await;
    board.wait_for_text("Table 2").await;
    assert!(!board.body_text().await.contains("Changed"));
    // What a tile says of its changes, by table.
    let said = |id: &str| {
        format!(
            "const tile = document.querySelector('[data-table=\"{id}\"] .tile-changed'); \
             return tile ? tile.textContent : null"
        )
    };

    // A scorer's correction of deal 1 while the board watches: the tile says so, live.
    let version = rig.app.state(&t).await["version"].as_i64().expect("version");
    rig.app
        .request(
            reqwest::Method::PUT,
            &format!("/api/v1/tables/{t}/deals/1"),
            Some(&rig.organiser),
            Some(
                json!({"moves": [whist([0, 0, 1, 0], [0, 0, 1, 0])], "expected_version": version,
                        "reason": "Cat took it"}),
            ),
        )
        .await
        .assert_status(200);
    board.wait_for_text("Changed: deal 1 corrected").await;
    // Then the director's ruling on deal 2.
    rig.app
        .post(
            &format!("/api/v1/tables/{t}/deals/2/rulings"),
            &rig.organiser,
            json!({"kind": "void", "reason": "a misdeal found late"}),
        )
        .await
        .assert_status(201);
    board.wait_for_text("Changed: deal 1 corrected, deal 2 ruled").await;
    let on = board.client.execute(&said(&t), vec![]).await.expect("tile");
    assert_eq!(on, json!("Changed: deal 1 corrected, deal 2 ruled"));
    // The other table, unchanged, says nothing.
    let off = board.client.execute(&said(&other), vec![]).await.expect("tile");
    assert_eq!(off, Value::Null);
    let problems = axe(&board).await;
    assert!(problems.is_empty(), "the board with a changed table: {problems:#?}");
    board.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn browser_the_director_assigns_a_deal_s_result_from_the_page_and_it_stands_as_an_assigned_ruling(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let session = rig.app.session(&rig.organiser, "Thursday").await;
    let t = table(&rig, &session, json!({"hand_sizes": [1, 1]})).await;
    // Deal 1 as recorded: Ann took the trick; the director finds Dan did, after a claim.
    for deal in [whist([1, 0, 0, 0], [1, 0, 0, 0]), whist([0, 1, 0, 0], [0, 1, 0, 0])] {
        rig.app.submit(&t, &rig.organiser, deal).await.assert_status(201);
    }
    let before = rig.totals(&t).await;
    let director = organiser_phone(&mut rig, &format!("/#/session/{session}")).await;
    director.tap("Director: rulings and flags").await;
    director.fill("Deal", "1").await;
    director.fill("Kind", "Assigned").await;
    director.tap("Enter deal 1 of table 1").await;
    // The table's Deals tab, deal 1 open to be entered as it should have been.
    director.wait_for_text("Rule on deal 1: the result assigned").await;
    director.fill("Reason for the ruling", "the claim was Dan's").await;
    crate::browser_deals::whist_result(&director, [1, 0, 0, 1], [0, 0, 0, 1]).await;
    director.wait_for_text("Entered: Result of deal 1.").await;
    director.tap("Make the ruling on deal 1").await;
    director.wait_for_text("Ruled: deal 1 assigned as entered.").await;

    // The API has it as the director's assigned ruling, with its reason and the deal as assigned.
    let rulings = rig
        .app
        .get(&format!("/api/v1/tables/{t}/deals/1/rulings"))
        .await
        .assert_status(200)
        .clone();
    let list = rulings.as_array().expect("rulings");
    assert_eq!(list.len(), 1, "{rulings}");
    assert_eq!(list[0]["kind"], "assigned", "{rulings}");
    assert_eq!(list[0]["reason"], "the claim was Dan's");
    let deal = rig
        .app
        .get(&format!("/api/v1/tables/{t}/deals/1"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(deal["lines"][0]["tricks"], json!([0, 0, 0, 1]), "{deal}");
    assert_ne!(rig.totals(&t).await, before, "the ruling moved the totals");
    let problems = axe(&director).await;
    assert!(
        problems.is_empty(),
        "the ruling entered on the Deals tab: {problems:#?}"
    );
    director.close().await;
}
