//! Flags on the improbable (issue #42): a deal far outside what the deal and the field make
//! likely is flagged on its view and in the session's list for the director, holds up the
//! session's close until a second phone verifies it (or the director rules on it), and an
//! honest deal carries nothing extra. Each rule is tripped by a deal played through the API.

use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{spawn_app, Answer, TestApp};
use crate::scorers::scorer;

const PLAYERS: [&str; 4] = ["Ann", "Bob", "Cat", "Dan"];

fn whist(nominations: [u8; 4], tricks: [u8; 4]) -> Value {
    json!({"kind": "result", "nominations": nominations, "tricks": tricks})
}

/// A table of `game` in `session`.
async fn table(app: &TestApp, token: &str, session: &str, game: &str, options: Value) -> String {
    let body = json!({"game": game, "players": PLAYERS, "options": options, "session_id": session});
    app.post("/api/v1/tables", token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned()
}

async fn deal(app: &TestApp, table: &str, n: u16) -> Value {
    app.get(&format!("/api/v1/tables/{table}/deals/{n}"))
        .await
        .assert_status(200)
        .clone()
}

async fn deals(app: &TestApp, table: &str) -> Value {
    app.get(&format!("/api/v1/tables/{table}/deals"))
        .await
        .assert_status(200)
        .clone()
}

async fn flagged(app: &TestApp, session: &str) -> Value {
    app.get(&format!("/api/v1/sessions/{session}/flags"))
        .await
        .assert_status(200)
        .clone()
}

async fn close(app: &TestApp, token: &str, session: &str, body: Value) -> Answer {
    app.post(&format!("/api/v1/sessions/{session}/close"), token, body)
        .await
}

async fn verify(app: &TestApp, table: &str, token: &str, n: u16) -> Answer {
    app.post(
        &format!("/api/v1/tables/{table}/deals/{n}/verification"),
        token,
        json!({"agree": true}),
    )
    .await
}

fn rules(flags: &Value) -> Vec<&str> {
    flags
        .as_array()
        .unwrap_or_else(|| panic!("flags: {flags}"))
        .iter()
        .map(|f| f["rule"].as_str().expect("rule"))
        .collect()
}

/// What a refused close could have changed: the session's closes and record links, and its
/// tables' versions and verifications.
async fn footprint(app: &TestApp, session: &str) -> Vec<i64> {
    let id: uuid::Uuid = session.parse().expect("uuid");
    let mut out = Vec::new();
    for sql in [
        "select count(*) from session_closes where session_id = $1",
        "select count(*) from session_finals where session_id = $1",
        "select count(*) from record_links where subject = $1",
        "select coalesce(sum(version), 0)::bigint from game_tables where session_id = $1",
        "select count(*) from verifications v join game_tables t on t.id = v.table_id where t.session_id = $1",
    ] {
        out.push(sqlx::query_scalar(sql).bind(id).fetch_one(&app.pool).await.expect(sql));
    }
    out
}

#[sqlx::test(migrations = "./migrations")]
async fn every_nomination_met_at_thirteen_cards_is_flagged_holds_up_the_close_until_a_second_phone_verifies_it(
    pool: PgPool,
) {
    let app = spawn_app(pool).await;
    let organiser = app.organiser("ann@club.example").await;
    let session = app.session(&organiser, "Whist drive").await;
    // Thirteen cards without the hook rule, as some clubs play the top hand.
    let options = json!({"hand_sizes": [13], "hook_from_hand_size": 14});
    let honest = table(&app, &organiser, &session, "nomination-whist", options.clone()).await;
    let lucky = table(&app, &organiser, &session, "nomination-whist", options).await;
    let (ann, _) = scorer(&app, &organiser, &lucky, "Ann's phone").await;
    let (bob, _) = scorer(&app, &organiser, &lucky, "Bob's phone").await;

    // Honest: Dan made one trick of his none. Nothing is flagged, and the JSON is as before.
    app.submit(&honest, &organiser, whist([4, 3, 5, 0], [4, 3, 5, 1]))
        .await
        .assert_status(201);
    assert!(deal(&app, &honest, 1).await.get("flags").is_none());
    assert_eq!(deals(&app, &honest).await, json!([{"deal": 1, "status": "unverified"}]));
    assert_eq!(flagged(&app, &session).await, json!([]));

    // Everyone made exactly what they nominated at thirteen cards.
    app.submit(&lucky, &ann, whist([4, 3, 5, 1], [4, 3, 5, 1]))
        .await
        .assert_status(201);
    let shown = deal(&app, &lucky, 1).await;
    assert_eq!(rules(&shown["flags"]), ["all_nominations_met"]);
    let reason = shown["flags"][0]["reason"].as_str().expect("reason");
    assert!(reason.contains("13 cards") && reason.contains("Cat 5"), "{reason}");
    assert_eq!(deals(&app, &lucky).await[0]["flags"], shown["flags"]);
    let listed = flagged(&app, &session).await;
    assert_eq!(
        listed,
        json!([{"table_id": lucky, "deal": 1, "flags": shown["flags"], "verified": false, "ruled": false, "cleared": false}])
    );

    // The close is refused, naming the deal, and changes nothing.
    let before = footprint(&app, &session).await;
    let refused = close(&app, &organiser, &session, json!({})).await;
    refused.assert_problem(409, "flags_unverified");
    let detail = refused.body["detail"].as_str().expect("detail");
    assert!(detail.contains(&format!("table {lucky} deal 1")), "{detail}");
    assert_eq!(footprint(&app, &session).await, before);
    assert!(
        app.get(&format!("/api/v1/sessions/{session}"))
            .await
            .assert_status(200)
            .get("closed_at")
            .is_none(),
        "still open"
    );

    // Bob's phone agrees: cleared. A correction asks for it again; Bob agrees again.
    verify(&app, &lucky, &bob, 1).await.assert_status(201);
    assert_eq!(flagged(&app, &session).await[0]["cleared"], true);
    let version = app.state(&lucky).await["version"].as_i64().expect("version");
    app.request(
        reqwest::Method::PUT,
        &format!("/api/v1/tables/{lucky}/deals/1"),
        Some(&organiser),
        Some(json!({"moves": [whist([4, 3, 5, 1], [4, 3, 5, 1])], "expected_version": version, "reason": "re-entered from the sheet"})),
    )
    .await
    .assert_status(200);
    assert_eq!(flagged(&app, &session).await[0]["verified"], false);
    close(&app, &organiser, &session, json!({}))
        .await
        .assert_problem(409, "flags_unverified");
    let verified = verify(&app, &lucky, &bob, 1).await.assert_status(201).clone();
    assert_eq!(
        rules(&verified["flags"]),
        ["all_nominations_met"],
        "the flag stays, cleared"
    );
    assert_eq!(flagged(&app, &session).await[0]["cleared"], true);

    let closed = close(&app, &organiser, &session, json!({}))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(closed["status"], "closing");
}

fn spin_out(out: u8) -> Value {
    let cards_left: Vec<u8> = (0..4).map(|s| u8::from(s != out)).collect();
    json!({"kind": "result", "out": out, "cards_left": cards_left, "specials": [[], [], [], []], "spin_holder": (out + 1) % 4})
}

#[sqlx::test(migrations = "./migrations")]
async fn one_seat_out_first_six_deals_running_is_flagged_and_a_ruling_or_a_forced_close_lets_the_session_close(
    pool: PgPool,
) {
    let app = spawn_app(pool).await;
    let organiser = app.organiser("ann@club.example").await;
    let session = app.session(&organiser, "Spin night").await;
    let t = table(&app, &organiser, &session, "spin", json!({"rounds": 2})).await;
    // Cat goes out first in deals 1 to 7; Dan breaks the run in deal 8.
    for out in [2, 2, 2, 2, 2, 2, 2, 3] {
        app.submit(&t, &organiser, spin_out(out)).await.assert_status(201);
    }
    assert_eq!(app.state(&t).await["finished"], true);
    let listed = deals(&app, &t).await;
    let flagged_deals: Vec<u64> = listed
        .as_array()
        .expect("deals")
        .iter()
        .filter(|d| d.get("flags").is_some())
        .map(|d| d["deal"].as_u64().expect("deal"))
        .collect();
    assert_eq!(
        flagged_deals,
        [6, 7],
        "runs of six and seven; five is not yet, and deal 8 broke it"
    );
    let shown = deal(&app, &t, 7).await;
    assert_eq!(rules(&shown["flags"]), ["out_first_streak"]);
    let reason = shown["flags"][0]["reason"].as_str().expect("reason");
    assert!(
        reason.contains("Cat (seat 2) went out first 7 deals running, deals 1 to 7"),
        "{reason}"
    );

    // The director rules on deal 7: cleared. Deal 6 still holds up the close.
    app.post(
        &format!("/api/v1/tables/{t}/deals/7/rulings"),
        &organiser,
        json!({"kind": "void", "reason": "dealt from an unshuffled pack"}),
    )
    .await
    .assert_status(201);
    let list = flagged(&app, &session).await;
    assert_eq!(list[0]["deal"], 6);
    assert_eq!(list[0]["cleared"], false);
    assert_eq!(list[1]["deal"], 7);
    assert_eq!(list[1]["ruled"], true);
    assert_eq!(list[1]["cleared"], true);

    let before = footprint(&app, &session).await;
    let refused = close(&app, &organiser, &session, json!({})).await;
    refused.assert_problem(409, "flags_unverified");
    assert!(
        refused.body["detail"]
            .as_str()
            .expect("detail")
            .contains(&format!("table {t} deal 6")),
        "{}",
        refused.body
    );
    close(&app, &organiser, &session, json!({"force": true}))
        .await
        .assert_problem(422, "reason_required");
    assert_eq!(footprint(&app, &session).await, before);

    // Forced, with a reason: the director has looked.
    close(
        &app,
        &organiser,
        &session,
        json!({"force": true, "reason": "deal 6 checked with the players"}),
    )
    .await
    .assert_status(200);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_score_far_outside_the_same_deal_at_the_tables_finished_before_is_flagged_and_later_tables_change_nothing(
    pool: PgPool,
) {
    let app = spawn_app(pool).await;
    let organiser = app.organiser("ann@club.example").await;
    let session = app.session(&organiser, "Whist drive").await;
    let options = json!({"hand_sizes": [7]});
    let mut field = Vec::new();
    for _ in 0..5 {
        field.push(table(&app, &organiser, &session, "nomination-whist", options.clone()).await);
    }
    let early = table(&app, &organiser, &session, "nomination-whist", options.clone()).await;
    let late = table(&app, &organiser, &session, "nomination-whist", options).await;
    // Seven cards, every player at every table a trick or so off their nomination.
    let ordinary = [
        ([1, 1, 1, 2], [2, 2, 2, 1]),
        ([2, 2, 1, 0], [3, 1, 2, 1]),
        ([2, 1, 2, 0], [1, 2, 3, 1]),
        ([1, 2, 2, 0], [2, 3, 1, 1]),
        ([1, 2, 1, 1], [2, 1, 2, 2]),
    ];
    // Ann nominated and made all seven; Bob and Cat their nothing: 17, 10, 10 and 0.
    let all_seven = whist([7, 0, 0, 1], [7, 0, 0, 0]);
    for (t, (n, k)) in field.iter().zip(ordinary).take(4) {
        app.submit(t, &organiser, whist(n, k)).await.assert_status(201);
    }
    // Only four tables had finished the deal: too few to say what is usual.
    app.submit(&early, &organiser, all_seven.clone())
        .await
        .assert_status(201);
    let (n, k) = ordinary[4];
    app.submit(&field[4], &organiser, whist(n, k)).await.assert_status(201);
    assert!(
        deal(&app, &early, 1).await.get("flags").is_none(),
        "a later table flags nothing earlier"
    );

    // After five ordinary tables (and the early one), the same result stands out.
    app.submit(&late, &organiser, all_seven).await.assert_status(201);
    let shown = deal(&app, &late, 1).await;
    assert_eq!(rules(&shown["flags"]), ["score_outlier"], "{shown}");
    let reason = shown["flags"][0]["reason"].as_str().expect("reason");
    assert!(
        reason.contains("Ann 17") && reason.contains("at 6 other tables"),
        "{reason}"
    );
    assert!(
        !reason.contains("Bob"),
        "10 is within three deviations of this field: {reason}"
    );
    let list = flagged(&app, &session).await;
    assert_eq!(list.as_array().map(Vec::len), Some(1));
    assert_eq!(list[0]["table_id"], late.as_str());
    for t in &field {
        assert!(deal(&app, t, 1).await.get("flags").is_none());
    }

    // The organiser verifies it (nobody else recorded it): the session closes.
    close(&app, &organiser, &session, json!({}))
        .await
        .assert_problem(409, "flags_unverified");
    let (bob, _) = scorer(&app, &organiser, &late, "Bob's phone").await;
    verify(&app, &late, &bob, 1).await.assert_status(201);
    close(&app, &organiser, &session, json!({})).await.assert_status(200);
}

/// Rule `player_usual`: Ann's seven-card deal at twelve earlier Thursdays of the club was a
/// trick or so short of her nomination but once (her two met: 12). Her two met again tonight is
/// nothing new for her; all seven nominated and made (17) is beyond anything she has scored.
#[sqlx::test(migrations = "./migrations")]
async fn a_score_beyond_a_members_own_usual_for_the_deal_is_flagged_and_one_they_made_before_is_not(pool: PgPool) {
    let app = spawn_app(pool).await;
    let organiser = app.organiser("ann@club.example").await;
    let options = json!({"hand_sizes": [7]});
    for (week, tricks) in [2u8, 1, 3, 2, 1, 2, 2, 3, 1, 2, 2, 1].into_iter().enumerate() {
        let session = app.session(&organiser, &format!("Thursday {}", week + 1)).await;
        let t = table(&app, &organiser, &session, "nomination-whist", options.clone()).await;
        let nominated = if week == 5 { tricks } else { tricks + 1 };
        app.submit(&t, &organiser, whist([nominated, 0, 1, 0], [tricks, 7 - tricks, 0, 0]))
            .await
            .assert_status(201);
    }

    let again = app.session(&organiser, "Thursday 13").await;
    let honest = table(&app, &organiser, &again, "nomination-whist", options.clone()).await;
    app.submit(&honest, &organiser, whist([2, 0, 3, 1], [2, 5, 0, 0]))
        .await
        .assert_status(201);
    let shown = deal(&app, &honest, 1).await;
    assert_eq!(shown["lines"][0]["points"][0], 12, "{shown}");
    assert!(shown.get("flags").is_none(), "{shown}");
    assert_eq!(flagged(&app, &again).await, json!([]));

    let tonight = app.session(&organiser, "Thursday 14").await;
    let t = table(&app, &organiser, &tonight, "nomination-whist", options).await;
    app.submit(&t, &organiser, whist([7, 0, 0, 1], [7, 0, 0, 0]))
        .await
        .assert_status(201);
    let shown = deal(&app, &t, 1).await;
    assert_eq!(rules(&shown["flags"]), ["player_usual"], "{shown}");
    let reason = shown["flags"][0]["reason"].as_str().expect("reason");
    assert!(
        reason.contains("Ann 17 (+") && reason.contains("over 13 earlier deals, 1 to 12"),
        "{reason}"
    );
    let listed = flagged(&app, &tonight).await;
    assert_eq!(rules(&listed[0]["flags"]), ["player_usual"], "{listed}");
    // It holds up the close like any flag.
    close(&app, &organiser, &tonight, json!({}))
        .await
        .assert_problem(409, "flags_unverified");
}
