//! A session that closes and becomes final (issue #42, first slice): the correction window,
//! writes refused once final, the signed final checkpoint and its offline check, reopening, and
//! every bad close or reopening refused without changing anything. The window is crossed by
//! moving the application's clock, never by sleeping.

use chrono::Duration;
use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{spawn_app, verified_bundle, TestApp};

fn result() -> Value {
    json!({"kind": "result", "nominations": [0, 1, 0, 0], "tricks": [0, 1, 0, 0]})
}

/// Where `table`'s session stands, as the phone `token` reads it.
async fn closing(app: &TestApp, token: &str, table: &str) -> Value {
    app.request(
        reqwest::Method::GET,
        &format!("/api/v1/tables/{table}/closing"),
        Some(token),
        None,
    )
    .await
    .assert_status(200)
    .clone()
}

/// A one-deal Nomination Whist table in the session; played to its end when `finish`.
async fn table(app: &TestApp, token: &str, session: &str, finish: bool) -> String {
    let body = json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat", "Dan"],
                      "options": {"hand_sizes": [1]}, "session_id": session});
    let table = app.post("/api/v1/tables", token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    if finish {
        app.submit(&table, token, result()).await.assert_status(201);
    }
    table
}

async fn close(app: &TestApp, token: &str, session: &str, body: Value) -> crate::helpers::Answer {
    app.post(&format!("/api/v1/sessions/{session}/close"), token, body)
        .await
}

async fn reopen(app: &TestApp, token: &str, session: &str, body: Value) -> crate::helpers::Answer {
    app.post(&format!("/api/v1/sessions/{session}/reopen"), token, body)
        .await
}

async fn correct(app: &TestApp, token: &str, table: &str) -> crate::helpers::Answer {
    let version = app.state(table).await["version"].as_i64().expect("version");
    app.request(
        reqwest::Method::PUT,
        &format!("/api/v1/tables/{table}/deals/1"),
        Some(token),
        Some(json!({"moves": [result()], "expected_version": version, "reason": "re-entered"})),
    )
    .await
}

/// Until `n` statements of the test's database wait for a lock.
async fn wait_for_locks(app: &TestApp, n: i64) {
    while sqlx::query_scalar::<_, i64>(
        "select count(*) from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
    )
    .fetch_one(&app.pool)
    .await
    .expect("waiting")
        < n
    {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// Another writer's transaction holding `table`'s row, as a write under way does.
async fn hold(app: &TestApp, table: &str) -> sqlx::Transaction<'static, sqlx::Postgres> {
    let mut held = app.pool.begin().await.expect("begin");
    sqlx::query("select 1 from game_tables where id = $1::uuid for update")
        .bind(table)
        .execute(&mut *held)
        .await
        .expect("lock");
    held
}

/// Once a write waits behind `held`, the window (of 10 minutes) ends and the session's final
/// checkpoint is asked for; `held` is let go once that waits too: the checkpoint made.
async fn checkpoint_behind(app: &TestApp, session: &str, held: sqlx::Transaction<'static, sqlx::Postgres>) -> Value {
    wait_for_locks(app, 1).await;
    clock(app).advance(Duration::minutes(11));
    let release = async {
        wait_for_locks(app, 2).await;
        held.rollback().await.expect("rollback");
    };
    let path = format!("/api/v1/sessions/{session}/final");
    let (kept, ()) = tokio::join!(app.get(&path), release);
    kept.assert_status(200).clone()
}

fn clock(app: &TestApp) -> &tablekeeper::service::clock::Clock {
    app.clock.as_ref().expect("the app's clock")
}

/// What a close, a reopening or a refused write could have changed: the session's closes,
/// reopenings, checkpoints and record links, and its tables' versions.
async fn footprint(app: &TestApp, session: &str) -> Vec<i64> {
    let id: uuid::Uuid = session.parse().expect("uuid");
    let mut out = Vec::new();
    for sql in [
        "select count(*) from session_closes where session_id = $1",
        "select count(*) from session_reopenings where session_id = $1",
        "select count(*) from session_finals where session_id = $1",
        "select count(*) from record_links where subject = $1",
        "select coalesce(sum(version), 0)::bigint from game_tables where session_id = $1",
        "select count(*) from game_tables where session_id = $1",
        "select count(*) from tournaments where session_id = $1",
    ] {
        out.push(sqlx::query_scalar(sql).bind(id).fetch_one(&app.pool).await.expect(sql));
    }
    out
}

#[sqlx::test(migrations = "./migrations")]
async fn a_closed_session_takes_corrections_inside_its_window_and_refuses_every_write_after_it(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Thursday").await;
    let done = table(&app, &token, &session, true).await;
    let playing = table(&app, &token, &session, false).await;
    // The phone at a table may not read the session; it reads where its session stands.
    let (phone, _) = crate::scorers::scorer(&app, &token, &done, "Bob").await;
    let open = closing(&app, &phone, &done).await;
    assert_eq!(open["status"], "open", "{open}");
    assert_eq!(open["session_id"], session.as_str());
    assert_eq!(open["final_at"], Value::Null);

    // A table still being played stops the close, named; nothing is written.
    let before = footprint(&app, &session).await;
    let refused = close(&app, &token, &session, json!({})).await;
    refused.assert_problem(409, "tables_playing");
    assert!(
        refused.body["detail"].as_str().expect("detail").contains(&playing),
        "{}",
        refused.body
    );
    assert_eq!(footprint(&app, &session).await, before);

    // Forced, with a reason, and a window of its own.
    let closed = close(
        &app,
        &token,
        &session,
        json!({"correction_window": "PT10M", "force": true, "reason": "Dan's table left early"}),
    )
    .await
    .assert_status(200)
    .clone();
    assert_eq!(closed["status"], "closing");
    let closed_at: chrono::DateTime<chrono::Utc> =
        closed["closed_at"].as_str().expect("closed_at").parse().expect("time");
    let final_at: chrono::DateTime<chrono::Utc> = closed["final_at"].as_str().expect("final_at").parse().expect("time");
    assert_eq!(final_at - closed_at, Duration::minutes(10));
    let seen = closing(&app, &phone, &done).await;
    assert_eq!(seen["status"], "closing", "{seen}");
    assert_eq!(seen["final_at"], closed["final_at"]);
    assert_eq!(seen["closed_at"], closed["closed_at"]);
    close(&app, &token, &session, json!({"force": true, "reason": "again"}))
        .await
        .assert_problem(409, "session_closed");
    app.get(&format!("/api/v1/sessions/{session}/final"))
        .await
        .assert_problem(409, "session_not_final");

    // Just inside the window a correction is taken.
    clock(&app).advance(Duration::minutes(10) - Duration::seconds(1));
    correct(&app, &token, &done).await.assert_status(200);

    // Just outside it, every write is refused and changes nothing.
    clock(&app).advance(Duration::seconds(2));
    assert_eq!(closing(&app, &phone, &done).await["status"], "final");
    let before = footprint(&app, &session).await;
    correct(&app, &token, &done).await.assert_problem(409, "session_final");
    app.submit(&playing, &token, result())
        .await
        .assert_problem(409, "session_final");
    app.request(
        reqwest::Method::POST,
        &format!("/api/v1/tables/{playing}/undo"),
        Some(&token),
        Some(json!({})),
    )
    .await
    .assert_problem(409, "session_final");
    app.post(
        "/api/v1/tables",
        &token,
        json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat", "Dan"], "session_id": session}),
    )
    .await
    .assert_problem(409, "session_final");
    app.post(
        &format!("/api/v1/sessions/{session}/tournaments"),
        &token,
        json!({"name": "Drive", "game": "nomination-whist", "format": {"kind": "fixed"},
               "rounds": 1, "entrants": [], "scoring": {"kind": "points"}}),
    )
    .await
    .assert_problem(409, "session_final");
    // A phone's verification of a deal, and the chip value (the signed settle-up is in money).
    app.post(
        &format!("/api/v1/tables/{done}/deals/1/verification"),
        &phone,
        json!({"agree": true}),
    )
    .await
    .assert_problem(409, "session_final");
    let chip_value = app.get(&format!("/api/v1/sessions/{session}")).await.assert_status(200)["chip_value"].clone();
    app.request(
        reqwest::Method::PATCH,
        &format!("/api/v1/sessions/{session}"),
        Some(&token),
        Some(json!({"chip_value": {"minor_units": 50, "currency": "GBP"}})),
    )
    .await
    .assert_problem(409, "session_final");
    assert_eq!(footprint(&app, &session).await, before);
    assert_eq!(
        app.get(&format!("/api/v1/sessions/{session}")).await.assert_status(200)["chip_value"],
        chip_value
    );

    // The session says so, and its final checkpoint is made once and kept.
    let view = app
        .get(&format!("/api/v1/sessions/{session}"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(view["status"], "final");
    let first = app
        .get(&format!("/api/v1/sessions/{session}/final"))
        .await
        .assert_status(200)
        .clone();
    clock(&app).advance(Duration::hours(1));
    let again = app
        .get(&format!("/api/v1/sessions/{session}/final"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(first, again, "the checkpoint is stable");
    let tables = first["checkpoint"]["tables"].as_array().expect("tables");
    assert_eq!(tables.len(), 2);
    assert!(first["checkpoint"]["standings"]["players"].is_array());
    assert!(first["checkpoint"]["settlement"]["payments"].is_array());

    // Its bundle carries it and verifies, and so does the checkpoint the auditor kept.
    let (bytes, document) = verified_bundle(&app, &session).await;
    assert_eq!(document["session"]["finals"].as_array().map(Vec::len), Some(1));
    let summary =
        tablekeeper::service::bundle::verify_checked(&bytes, &[], &[], std::slice::from_ref(&first)).expect("verifies");
    assert!(summary.contains("2 final checkpoints hold"), "{summary}");
    // The session's record links its close and its checkpoint at version 3.
    let versions: Vec<i16> =
        sqlx::query_scalar("select content_version from record_links where subject = $1::uuid order by pos")
            .bind(&session)
            .fetch_all(&app.pool)
            .await
            .expect("links");
    // Before the close, version 1 as ever (the session, then its roster as the tables named it).
    let (before, after) = versions.split_at(versions.len() - 2);
    assert!(before.iter().all(|v| *v == 1), "{versions:?}");
    assert_eq!(after, [3, 3], "{versions:?}");
}

#[sqlx::test(migrations = "./migrations")]
async fn a_reopened_session_takes_writes_again_and_closing_again_makes_a_new_checkpoint_keeping_the_first(
    pool: PgPool,
) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Thursday").await;
    let done = table(&app, &token, &session, true).await;
    let club = app.get(&format!("/api/v1/sessions/{session}")).await.assert_status(200)["club_id"]
        .as_str()
        .expect("club")
        .to_owned();
    app.post(
        &format!("/api/v1/clubs/{club}/webhooks"),
        &token,
        json!({"url": "https://club.example.org/hooks", "events": ["session.closed", "session.final"]}),
    )
    .await
    .assert_status(201);

    // A window of 0: final at once, its checkpoint made at the close.
    let closed = close(&app, &token, &session, json!({"correction_window": "PT0S"}))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(closed["status"], "final");
    assert_eq!(closed["finals"].as_array().map(Vec::len), Some(1));
    let first = app
        .get(&format!("/api/v1/sessions/{session}/final"))
        .await
        .assert_status(200)
        .clone();
    correct(&app, &token, &done).await.assert_problem(409, "session_final");

    // The owner reopens it, with a reason shown ever after.
    let reopened = reopen(
        &app,
        &token,
        &session,
        json!({"reason": "table 1's result was entered against the wrong seats"}),
    )
    .await
    .assert_status(200)
    .clone();
    assert_eq!(reopened["status"], "open");
    assert_eq!(reopened["closed_at"], Value::Null);
    assert_eq!(
        reopened["reopenings"][0]["reason"],
        "table 1's result was entered against the wrong seats"
    );
    assert_eq!(reopened["reopenings"][0]["close"], 1);
    reopen(&app, &token, &session, json!({"reason": "again"}))
        .await
        .assert_problem(409, "session_not_closed");
    app.get(&format!("/api/v1/sessions/{session}/final"))
        .await
        .assert_problem(409, "session_not_final");
    correct(&app, &token, &done).await.assert_status(200);

    // Closed again: a new checkpoint, the first kept and listed.
    close(&app, &token, &session, json!({"correction_window": "PT1M"}))
        .await
        .assert_status(200);
    clock(&app).advance(Duration::minutes(1));
    let second = app
        .get(&format!("/api/v1/sessions/{session}/final"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(second["close"], 2);
    assert_ne!(first["hash"], second["hash"]);
    let view = app
        .get(&format!("/api/v1/sessions/{session}"))
        .await
        .assert_status(200)
        .clone();
    let hashes: Vec<&Value> = view["finals"]
        .as_array()
        .expect("finals")
        .iter()
        .map(|f| &f["hash"])
        .collect();
    assert_eq!(hashes, [&first["hash"], &second["hash"]]);
    assert_eq!(view["reopenings"].as_array().map(Vec::len), Some(1));

    // Both checkpoints hold for the bundle: the first's tables went on only after its reopening.
    let (bytes, _) = verified_bundle(&app, &session).await;
    tablekeeper::service::bundle::verify_checked(&bytes, &[], &[], &[first, second]).expect("verifies");

    // Webhooks: a close each time, and a final each time a checkpoint was made.
    let kinds: Vec<String> = sqlx::query_scalar(
        "select event_type from webhook_deliveries where event_type like 'session.%' order by created_at, event_type",
    )
    .fetch_all(&app.pool)
    .await
    .expect("deliveries");
    assert_eq!(
        kinds,
        ["session.closed", "session.final", "session.closed", "session.final"]
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn a_change_after_the_session_was_final_is_found_by_the_checkpoint_kept(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Thursday").await;
    table(&app, &token, &session, true).await;
    let other = table(&app, &token, &session, true).await;
    close(&app, &token, &session, json!({"correction_window": "PT0S"}))
        .await
        .assert_status(200);
    let kept = app
        .get(&format!("/api/v1/sessions/{session}/final"))
        .await
        .assert_status(200)
        .clone();
    let (_, document) = verified_bundle(&app, &session).await;

    // Someone holding the database (and the key kept in it, as locally) takes a table out of
    // the session, drops the checkpoints from the bundle and signs it again: it verifies alone.
    use ed25519_dalek::Signer;
    use tablekeeper::service::chain::{canonical, hex};
    let key = tablekeeper::service::bundle::signing_key(&app.pool, None)
        .await
        .expect("key");
    let mut forged = document.clone();
    let map = forged.as_object_mut().expect("object");
    map.remove("signature");
    map["tables"]
        .as_array_mut()
        .expect("tables")
        .retain(|t| t["id"] != other.as_str());
    map["session"].as_object_mut().expect("session").remove("finals");
    let signature = key.sign(canonical(&forged).as_bytes());
    forged.as_object_mut().expect("object").insert(
        "signature".into(),
        json!({"algorithm": "ed25519", "public_key": hex(key.verifying_key().as_bytes()),
               "value": hex(&signature.to_bytes())}),
    );
    let bytes = canonical(&forged).into_bytes();
    let trusted = [key.verifying_key()];
    tablekeeper::service::bundle::verify_with(&bytes, &trusted, &[]).expect("the forgery alone verifies");

    // The checkpoint the auditor kept finds it.
    let found = tablekeeper::service::bundle::verify_checked(&bytes, &trusted, &[], std::slice::from_ref(&kept))
        .expect_err("the checkpoint finds the change");
    assert!(found.contains(&other) && found.contains("not in the bundle"), "{found}");

    // And a checkpoint changed by a byte no longer verifies.
    let mut changed = kept.clone();
    changed["checkpoint"]["standings"]["pools_chips"] = json!(1);
    let (bytes, _) = verified_bundle(&app, &session).await;
    let found = tablekeeper::service::bundle::verify_checked(&bytes, &trusted, &[], &[changed])
        .expect_err("a changed checkpoint");
    assert!(found.contains("signature does not match"), "{found}");

    // The one kept holds.
    tablekeeper::service::bundle::verify_checked(&bytes, &trusted, &[], std::slice::from_ref(&kept))
        .expect("the checkpoint kept holds");
}

#[sqlx::test(migrations = "./migrations")]
async fn bad_closes_and_reopenings_are_refused_clearly_and_change_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let owner = app.organiser("ann@club.example").await;
    let session = app.session(&owner, "Thursday").await;
    let done = table(&app, &owner, &session, true).await;
    let club = app.get(&format!("/api/v1/sessions/{session}")).await.assert_status(200)["club_id"]
        .as_str()
        .expect("club")
        .to_owned();
    let organiser = app.organiser("bob@club.example").await;
    crate::clubs::enrol(&app, &owner, &club, &organiser, "organiser").await;
    let (phone, _) = crate::scorers::scorer(&app, &owner, &done, "Ann's phone").await;

    let before = footprint(&app, &session).await;
    for (body, code) in [
        (json!({"correction_window": "30 minutes"}), "invalid_window"),
        (json!({"correction_window": "-PT5M"}), "invalid_window"),
        (json!({"correction_window": "PT-5M"}), "invalid_window"),
        (json!({"correction_window": "P"}), "invalid_window"),
        (json!({"correction_window": "PT"}), "invalid_window"),
        (json!({"correction_window": "P8D"}), "invalid_window"),
        (json!({"correction_window": "PT5M30H"}), "invalid_window"),
        (json!({"force": true}), "reason_required"),
        (json!({"force": true, "reason": "  "}), "reason_required"),
        (json!({"window": "PT5M"}), "unknown_field"),
    ] {
        close(&app, &owner, &session, body.clone())
            .await
            .assert_problem(422, code);
    }
    close(&app, &phone, &session, json!({}))
        .await
        .assert_problem(403, "forbidden");
    reopen(&app, &owner, &session, json!({"reason": "nothing to reopen"}))
        .await
        .assert_problem(409, "session_not_closed");
    assert_eq!(footprint(&app, &session).await, before, "nothing changed");

    close(&app, &organiser, &session, json!({})).await.assert_status(200);
    let before = footprint(&app, &session).await;
    reopen(&app, &owner, &session, json!({}))
        .await
        .assert_problem(422, "reason_required");
    reopen(&app, &owner, &session, json!({"reason": " "}))
        .await
        .assert_problem(422, "reason_required");
    reopen(&app, &organiser, &session, json!({"reason": "I am no owner"}))
        .await
        .assert_problem(403, "forbidden");
    reopen(&app, &phone, &session, json!({"reason": "a phone"}))
        .await
        .assert_problem(403, "forbidden");
    assert_eq!(footprint(&app, &session).await, before, "nothing changed");
}

#[sqlx::test(migrations = "./migrations")]
async fn a_session_never_closed_is_open_as_before_takes_moves_and_verifies(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Thursday").await;
    let playing = table(&app, &token, &session, false).await;
    // Long after, with no close, it is as it was: open, writable, linked at version 1.
    clock(&app).advance(Duration::days(30));
    app.submit(&playing, &token, result()).await.assert_status(201);
    let view = app
        .get(&format!("/api/v1/sessions/{session}"))
        .await
        .assert_status(200)
        .clone();
    // Read as before closes were: no status, no times, no reopenings or checkpoints.
    for field in ["status", "closed_at", "final_at", "reopenings", "finals"] {
        assert!(view.get(field).is_none(), "{field}: {view}");
    }
    let (_, document) = verified_bundle(&app, &session).await;
    let session_part = document["session"].as_object().expect("session");
    assert!(!session_part.contains_key("closes") && !session_part.contains_key("finals"));
    let versions: Vec<i16> = sqlx::query_scalar("select content_version from record_links where subject = $1::uuid")
        .bind(&session)
        .fetch_all(&app.pool)
        .await
        .expect("links");
    assert!(versions.iter().all(|v| *v == 1), "{versions:?}");
}

#[sqlx::test(migrations = "./migrations")]
async fn the_club_s_correction_window_is_what_a_close_naming_none_takes(pool: PgPool) {
    let app = spawn_app(pool).await;
    let owner = app.organiser("owner@club.example").await;
    let session = app.session(&owner, "Friday").await;
    let club = app.get(&format!("/api/v1/sessions/{session}")).await.assert_status(200)["club_id"]
        .as_str()
        .expect("club")
        .to_owned();
    let path = format!("/api/v1/clubs/{club}/correction-window");
    let put = |body: Value| app.request(reqwest::Method::PUT, &path, Some(&owner), Some(body));
    assert_eq!(
        app.get_as(&path, &owner).await.assert_status(200)["correction_window"],
        "PT30M"
    );

    // Bad windows are refused and change nothing.
    for bad in ["PT-5M", "P8D", "30 minutes", "PT", "P"] {
        put(json!({"correction_window": bad}))
            .await
            .assert_problem(422, "invalid_window");
    }
    assert_eq!(
        app.get_as(&path, &owner).await.assert_status(200)["correction_window"],
        "PT30M"
    );

    // Set, it is read back in its shortest form, and a close naming none takes it.
    let set = put(json!({"correction_window": "PT90M"})).await;
    assert_eq!(set.assert_status(200)["correction_window"], "PT1H30M");
    assert_eq!(
        app.get_as(&path, &owner).await.assert_status(200)["correction_window"],
        "PT1H30M"
    );
    let closed = close(&app, &owner, &session, json!({}))
        .await
        .assert_status(200)
        .clone();
    let at =
        |field: &str| chrono::DateTime::parse_from_rfc3339(closed[field].as_str().expect("a time")).expect("rfc 3339");
    assert_eq!(at("final_at") - at("closed_at"), Duration::minutes(90), "{closed}");
}

/// The race at the window's end: a move that passed the clock's check while the window ran and
/// waits for its table when the window ends is written before the final checkpoint (which waits
/// for the session's tables), never after the chain head the checkpoint signed.
#[sqlx::test(migrations = "./migrations")]
async fn a_move_under_way_when_the_window_ends_is_in_the_final_checkpoint_and_none_after_it(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Thursday").await;
    table(&app, &token, &session, true).await;
    let playing = table(&app, &token, &session, false).await;
    close(
        &app,
        &token,
        &session,
        json!({"correction_window": "PT10M", "force": true, "reason": "last table late"}),
    )
    .await
    .assert_status(200);
    let before = footprint(&app, &session).await;

    // Another writer holds the table: the move reads the clock inside the window, then waits.
    let held = hold(&app, &playing).await;
    let moved = app.submit(&playing, &token, result());
    // The window ends while the move still waits; the checkpoint waits for the tables too,
    // behind the move, which finds the window over once it has its table.
    let checkpoint = checkpoint_behind(&app, &session, held);
    let (moved, kept) = tokio::join!(moved, checkpoint);
    // The move was asked for inside the window and had its table before the checkpoint did: it
    // is taken, and the checkpoint, made after it, holds it.
    moved.assert_status(201);
    let after = footprint(&app, &session).await;
    assert_eq!(after[4], before[4] + 1, "one move: {before:?} {after:?}");
    let (bytes, _) = verified_bundle(&app, &session).await;
    tablekeeper::service::bundle::verify_checked(&bytes, &[], &[], std::slice::from_ref(&kept))
        .expect("the checkpoint holds the tables as they are");
    app.request(
        reqwest::Method::POST,
        &format!("/api/v1/tables/{playing}/undo"),
        Some(&token),
        Some(json!({})),
    )
    .await
    .assert_problem(409, "session_final");
}

/// A writer whose clock is behind the one that made the final checkpoint (another replica's)
/// is refused all the same: once made, the checkpoint is what makes the session final.
#[sqlx::test(migrations = "./migrations")]
async fn once_the_final_checkpoint_is_made_a_writer_with_an_earlier_clock_is_refused(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Thursday").await;
    let done = table(&app, &token, &session, true).await;
    let playing = table(&app, &token, &session, false).await;
    close(
        &app,
        &token,
        &session,
        json!({"correction_window": "PT10M", "force": true, "reason": "last table late"}),
    )
    .await
    .assert_status(200);
    clock(&app).advance(Duration::minutes(11));
    app.get(&format!("/api/v1/sessions/{session}/final"))
        .await
        .assert_status(200);

    clock(&app).advance(Duration::minutes(-2));
    let view = app
        .get(&format!("/api/v1/sessions/{session}"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(view["status"], "final", "{view}");
    let before = footprint(&app, &session).await;
    app.submit(&playing, &token, result())
        .await
        .assert_problem(409, "session_final");
    correct(&app, &token, &done).await.assert_problem(409, "session_final");
    assert_eq!(footprint(&app, &session).await, before);
}

/// A correction under way when the window ends (waiting for its table) is taken, and the final
/// checkpoint, which waits for every write under way to the session's tables, holds it: no write
/// is committed after the chain heads it signed.
#[sqlx::test(migrations = "./migrations")]
async fn a_correction_under_way_when_the_window_ends_is_in_the_final_checkpoint(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Thursday").await;
    let done = table(&app, &token, &session, true).await;
    close(&app, &token, &session, json!({"correction_window": "PT10M"}))
        .await
        .assert_status(200);
    let version = app.state(&done).await["version"].as_i64().expect("version");

    let held = hold(&app, &done).await;
    let corrected = correct(&app, &token, &done);
    let checkpoint = checkpoint_behind(&app, &session, held);
    let (corrected, kept) = tokio::join!(corrected, checkpoint);
    corrected.assert_status(200);
    assert!(app.state(&done).await["version"].as_i64().expect("version") > version);
    let (bytes, _) = verified_bundle(&app, &session).await;
    tablekeeper::service::bundle::verify_checked(&bytes, &[], &[], std::slice::from_ref(&kept))
        .expect("the checkpoint holds the correction");
    correct(&app, &token, &done).await.assert_problem(409, "session_final");
}

/// A close with no window is final at once; its checkpoint is made after the writes under way
/// to the session's tables, so that none of them is committed after it.
#[sqlx::test(migrations = "./migrations")]
async fn a_close_at_once_makes_its_checkpoint_after_the_writes_under_way(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Thursday").await;
    let done = table(&app, &token, &session, true).await;
    let held = hold(&app, &done).await;
    let closed = close(&app, &token, &session, json!({"correction_window": "PT0S"}));
    let watch = async {
        wait_for_locks(&app, 1).await;
        // The close is in force, its checkpoint not yet made: it waits for the table.
        let counts: (i64, i64) = sqlx::query_as(
            "select (select count(*) from session_closes where session_id = $1::uuid),
                    (select count(*) from session_finals where session_id = $1::uuid)",
        )
        .bind(&session)
        .fetch_one(&app.pool)
        .await
        .expect("counts");
        held.rollback().await.expect("rollback");
        counts
    };
    let (closed, counts) = tokio::join!(closed, watch);
    assert_eq!(counts, (1, 0));
    assert_eq!(closed.assert_status(200)["status"], "final", "{}", closed.body);
    let kept = app
        .get(&format!("/api/v1/sessions/{session}/final"))
        .await
        .assert_status(200)
        .clone();
    let (bytes, _) = verified_bundle(&app, &session).await;
    tablekeeper::service::bundle::verify_checked(&bytes, &[], &[], std::slice::from_ref(&kept))
        .expect("the checkpoint holds the tables as they are");
    app.submit(&done, &token, result())
        .await
        .assert_problem(409, "session_final");
}
