//! A club's pages in a real headless Chromium, driven by their labels as an organiser would:
//! make a club, add players (one a guest), hand out an invitation, start a session by ticking
//! who came, open a table from them, and find it on the club's home. Every club screen passes
//! axe and fits a 320×568 phone without a sideways scroll.

use fantoccini::Locator;
use reqwest::Method;
use serde_json::{json, Value};
use sqlx::PgPool;

use crate::browser::{lit, rig, Phone, ONE_BROWSER, PATIENCE};
use crate::browser_table::{axe, scrolls_sideways};

/// Ticks the checkbox a label names (a member in "Who came").
async fn tick(phone: &Phone, name: &str) {
    let xpath = format!(
        "//label[contains(@class, 'tick') and ./span[normalize-space()={n}]]//input[@type='checkbox']",
        n = lit(name)
    );
    let boxed = phone
        .client
        .wait()
        .at_most(PATIENCE)
        .for_element(Locator::XPath(&xpath))
        .await
        .unwrap_or_else(|_| panic!("no box for {name}"));
    assert!(phone.try_tap(&boxed).await.expect("tap"), "{name}'s box is disabled");
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

/// The screen's serious accessibility problems and whether it scrolls sideways, named by `screen`.
async fn check(phone: &Phone, screen: &str, problems: &mut Vec<String>) {
    problems.extend(axe(phone).await.into_iter().map(|p| format!("{screen}: {p}")));
    if scrolls_sideways(phone).await {
        problems.push(format!("{screen}: scrolls sideways"));
    }
}

async fn api_get(rig: &crate::browser::Rig, path: &str) -> Value {
    rig.app
        .request(Method::GET, path, Some(&rig.organiser), None)
        .await
        .assert_status(200)
        .clone()
}

#[sqlx::test(migrations = "./migrations")]
async fn an_organiser_makes_a_club_starts_a_session_from_who_came_and_finds_its_table_on_the_club_home(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let phone = rig.phone().await;
    phone.open("/#/clubs").await;
    phone.fill("Email", "org@example.com").await;
    phone.fill("Password", "correct horse battery").await;
    phone.tap("Log in").await;

    // A club of the organiser's own.
    phone.fill("New club", "Thursday Whist Club").await;
    phone.tap("Create club").await;
    phone.wait_for_text("You are its owner.").await;
    let clubs = api_get(&rig, "/api/v1/clubs").await;
    let club = clubs["items"]
        .as_array()
        .expect("clubs")
        .iter()
        .find(|c| c["name"] == "Thursday Whist Club")
        .expect("the club is the organiser's")["id"]
        .as_str()
        .expect("id")
        .to_owned();

    // Four players without accounts, Dan a guest.
    phone.tap("Members and invitations").await;
    for name in ["Ann", "Bob", "Cat", "Dan"] {
        phone.fill("Player's name", name).await;
        if name == "Dan" {
            tick(&phone, "A guest").await;
        }
        phone.tap("Add the player").await;
        phone.wait_for_text(&format!("{name} added")).await;
    }
    phone.wait_for_text("Dan added as a guest.").await;
    let members = api_get(&rig, &format!("/api/v1/clubs/{club}/members")).await;
    let dan = members["items"]
        .as_array()
        .expect("members")
        .iter()
        .find(|m| m["name"] == "Dan")
        .expect("Dan");
    assert_eq!(dan["guest"], true, "{dan}");
    assert_eq!(dan["role"], Value::Null, "no account, no role: {dan}");

    // An invitation's code, shown on the page, makes another account a scorer of the club.
    choose(&phone, "Role", "scorer").await;
    phone.tap("Make an invitation").await;
    let code = phone
        .client
        .wait()
        .at_most(PATIENCE)
        .for_element(Locator::Css(".invitation [data-code]"))
        .await
        .expect("the invitation is listed")
        .attr("data-code")
        .await
        .expect("attr")
        .expect("a code");
    let eve = rig.app.organiser_named("eve@example.com", "Eve").await;
    let joined = rig.app.post("/api/v1/clubs/join", &eve, json!({"code": code})).await;
    assert_eq!(joined.assert_status(200)["role"], "scorer");

    // Three of the four came.
    phone.tap("Back").await;
    phone.tap("Start a session").await;
    for name in ["Ann", "Bob", "Cat"] {
        tick(&phone, name).await;
    }
    phone.wait_for_text("3 ticked").await;
    phone.fill("Session name", "Whist night").await;
    phone.tap("Start the session").await;
    phone.wait_for_text("Who came: Ann, Bob, Cat").await;

    // A table seated from them: the seats are those members, not names matched.
    phone.tap("New table").await;
    phone.wait_for_text("From who came: Ann, Bob, Cat").await;
    phone.tap("Open the table").await;
    let table = phone
        .client
        .wait()
        .at_most(PATIENCE)
        .for_element(Locator::Css("[data-code]"))
        .await
        .expect("the table's join code");
    assert!(table.attr("data-code").await.expect("attr").is_some());
    let url = phone.client.current_url().await.expect("url");
    let table_id = url.fragment().expect("a route").trim_start_matches("/code/").to_owned();
    let view = api_get(&rig, &format!("/api/v1/tables/{table_id}")).await;
    assert_eq!(view["players"], json!(["Ann", "Bob", "Cat"]));
    let sessions = api_get(&rig, &format!("/api/v1/sessions?club_id={club}")).await;
    assert_eq!(sessions["items"].as_array().expect("sessions").len(), 1, "{sessions}");
    let session = api_get(
        &rig,
        &format!("/api/v1/sessions/{}", sessions["items"][0]["id"].as_str().expect("id")),
    )
    .await;
    let roster: Vec<&str> = session["members"]
        .as_array()
        .expect("roster")
        .iter()
        .map(|m| m["name"].as_str().expect("name"))
        .collect();
    assert_eq!(roster, ["Ann", "Bob", "Cat"], "Dan did not come");
    // The seats are the roster's entries of who came (the page sent their ids), and no one was
    // entered in the club or on the roster by a name match.
    let roster_ids: Vec<Value> = session["members"]
        .as_array()
        .expect("roster")
        .iter()
        .map(|m| m["id"].clone())
        .collect();
    assert_eq!(view["members"], Value::from(roster_ids));
    let after = api_get(&rig, &format!("/api/v1/clubs/{club}/members")).await;
    let names: Vec<&str> = after["items"]
        .as_array()
        .expect("members")
        .iter()
        .map(|m| m["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names.len(), 6, "the owner, four players and Eve, nobody new: {names:?}");
    // The club's home shows the session and its table.
    phone.tap("Back to the session").await;
    phone.wait_for_text("Table 1: Nomination Whist").await;
    phone.tap("Back").await;
    phone.wait_for_text("Next session").await;
    phone.wait_for_text("Whist night").await;
    phone.wait_for_text("Table 1: Nomination Whist").await;
    phone.wait_for_text("Ann · Bob · Cat").await;
    phone.wait_for_text("Members (6)").await;
    phone.screenshot("club-home").await;

    // Tapping a member opens their history: the session they came to and their seat in it.
    phone.tap("Ann's history").await;
    phone.wait_for_text("Results per game").await;
    phone.wait_for_text("No season under way.").await;
    phone.wait_for_text("Whist night").await;
    phone.wait_for_text("Nomination Whist: 0 points, not finished").await;
    phone.wait_for_text("0 chips won or lost over every table").await;
    phone.screenshot("member-history").await;
    phone.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn every_club_screen_passes_axe_and_fits_a_small_phone(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let club = rig
        .app
        .post(
            "/api/v1/clubs",
            &rig.organiser,
            json!({"name": "The Long-Named Thursday Evening Whist and Tridge Society"}),
        )
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    for (name, guest) in [("Annabel Fotheringham-Smythe", false), ("Bob", false), ("Cat", true)] {
        rig.app
            .post(
                &format!("/api/v1/clubs/{club}/members"),
                &rig.organiser,
                json!({"name": name, "guest": guest}),
            )
            .await
            .assert_status(201);
    }
    rig.app
        .post(
            &format!("/api/v1/clubs/{club}/invitations"),
            &rig.organiser,
            json!({"role": "organiser"}),
        )
        .await
        .assert_status(201);
    rig.app
        .post(
            &format!("/api/v1/clubs/{club}/seasons"),
            &rig.organiser,
            json!({"name": "Winter 2026", "starts": "2026-01-01", "ends": "2099-12-31",
                "games": ["nomination-whist"], "scoring": {"kind": "league_points", "points": [3, 2, 1, 0]}}),
        )
        .await
        .assert_status(201);
    let mut problems = Vec::new();
    for (width, height) in [(390, 844), (320, 568)] {
        let phone = rig.phone_sized(width, height).await;
        phone.open("/#/clubs").await;
        phone.fill("Email", "org@example.com").await;
        phone.fill("Password", "correct horse battery").await;
        phone.tap("Log in").await;
        phone.wait_for_text("Create club").await;
        check(&phone, &format!("clubs at {width}"), &mut problems).await;
        phone.open(&format!("/#/club/{club}")).await;
        phone.wait_for_text("Members (4)").await;
        phone.wait_for_text("Season: Winter 2026").await;
        check(&phone, &format!("club home at {width}"), &mut problems).await;
        phone.open(&format!("/#/club/{club}/members")).await;
        phone.wait_for_text("Annabel Fotheringham-Smythe").await;
        phone.wait_for_text("Make an invitation").await;
        check(&phone, &format!("members at {width}"), &mut problems).await;
        // Nothing said yet, so the status line takes no room between the header and the forms.
        let status_height = phone
            .client
            .execute(
                "return document.querySelector('.screen-status').getBoundingClientRect().height",
                vec![],
            )
            .await
            .expect("the status line");
        assert_eq!(
            status_height.as_f64(),
            Some(0.0),
            "members at {width}: an empty status takes room"
        );
        if width == 390 {
            phone.screenshot("club-members").await;
        }
        phone.tap("Bob's history").await;
        phone.wait_for_text("Results per game").await;
        check(&phone, &format!("member history at {width}"), &mut problems).await;
        phone.open(&format!("/#/club/{club}/start")).await;
        phone.wait_for_text("Who came").await;
        check(&phone, &format!("start a session at {width}"), &mut problems).await;
        phone.close().await;
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[sqlx::test(migrations = "./migrations")]
async fn a_club_member_registers_from_the_start_screen_without_an_organisers_sign_in(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let phone = rig.phone().await;
    phone.open("/").await;
    phone.wait_for_text("Join a table").await;
    let start = phone.body_text().await;
    assert!(
        !start.contains("Organiser sign-in"),
        "a member is not sent to an organiser's sign-in:\n{start}"
    );
    phone.tap("Sign in / register").await;
    phone.wait_for_text("Sign in or register").await;
    phone.fill("Email", "cat@example.org").await;
    phone.fill("Password", "correct horse battery").await;
    phone
        .client
        .wait()
        .at_most(PATIENCE)
        .for_element(Locator::XPath("//summary[normalize-space()='New here? Register']"))
        .await
        .expect("the register fold")
        .click()
        .await
        .expect("opened");
    phone.fill("Your name", "Cat").await;
    phone.tap("Register").await;
    // Registered and signed in: back at the start, the member's clubs a tap away, where an
    // invitation's code joins one.
    phone.tap("Your clubs").await;
    phone.wait_for_text("Join the club").await;
    phone.fill("Invitation code", "NOSUCH12").await;
    let me = rig
        .app
        .request(
            Method::POST,
            "/api/v1/auth/login",
            None,
            Some(json!({"email": "cat@example.org", "password": "correct horse battery"})),
        )
        .await
        .assert_status(200)
        .clone();
    assert!(me["token"].is_string(), "the member's account exists: {me}");
    let mut problems = Vec::new();
    check(&phone, "a member's clubs", &mut problems).await;
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    phone.close().await;
}
