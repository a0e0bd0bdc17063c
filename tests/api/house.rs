//! The house moved nothing (issue #40): a database written by commit ca8aac8, the last before
//! the service was split into floors, reads the same through the current code, its bundle holds
//! the same, and the same further writes store the same rows.
//!
//! The fixture (`tests/fixtures/house-ca8aac8.sql`), what that server answered for every read of
//! it and what it stored for the further writes (`.expected.json`), and its session's bundle
//! (`.bundle.json`) were written by `tests/fixtures/make-house-fixture.py` against that commit.
//! What cannot be the same is left out by name: the times of the further writes, and the hashes,
//! chain heads, receipts and signatures that cover those times (the audit checks those).

use serde::Deserialize;
use serde_json::{json, Map, Value};
use sqlx::PgPool;

use crate::helpers::{assert_audit_consistent, spawn_app, TestApp};
use crate::upgrade::load_database;

/// The newest migration at ca8aac8 (the house added none).
const LAST_MIGRATION: i64 = 20261209000100;
const FIXTURE: &str = include_str!("../fixtures/house-ca8aac8.sql");
const EXPECTED: &str = include_str!("../fixtures/house-ca8aac8.expected.json");
const BUNDLE: &[u8] = include_bytes!("../fixtures/house-ca8aac8.bundle.json");

#[derive(Deserialize)]
struct Expected {
    organiser: Login,
    session: String,
    session_reads: Map<String, Value>,
    tables: Vec<Table>,
    after_queries: Map<String, Value>,
    after: Map<String, Value>,
    after_reads: Map<String, Value>,
}

#[derive(Deserialize)]
struct Login {
    email: String,
    password: String,
}

#[derive(Deserialize)]
struct Table {
    id: String,
    game: String,
    reads: Map<String, Value>,
    next_move: Option<Value>,
    version: i64,
}

/// Fields that hold the time a write was made, or a hash or signature over it.
fn is_of_its_time(key: &str) -> bool {
    key.ends_with("_at") || key.ends_with("hash") || matches!(key, "chain_head" | "receipt" | "signature" | "head")
}

/// `value` with every field of its time set to null, at any depth.
fn timeless(value: &Value) -> Value {
    match value {
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), if is_of_its_time(k) { Value::Null } else { timeless(v) }))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(timeless).collect()),
        other => other.clone(),
    }
}

/// Each read as the current code answers it, against what ca8aac8 answered.
async fn assert_reads(app: &TestApp, reads: &Map<String, Value>, what: &str, compare: fn(&Value) -> Value) {
    for (path, then) in reads {
        let now = app.get(&format!("/api/v1{path}")).await;
        let now = now.assert_status(200);
        assert_eq!(
            compare(now),
            compare(then),
            "{what}: GET {path} answers as it did before the house"
        );
    }
}

async fn log_in(app: &TestApp, login: &Login) -> String {
    let body = json!({"email": login.email, "password": login.password});
    let token = app
        .request(reqwest::Method::POST, "/api/v1/auth/login", None, Some(body))
        .await
        .assert_status(200)["token"]
        .as_str()
        .expect("token")
        .to_owned();
    *app.default_reader.lock().expect("reader") = Some(token.clone());
    token
}

#[sqlx::test(migrations = false)]
async fn what_was_stored_before_the_house_reads_bundles_and_grows_as_it_did(pool: PgPool) {
    use tablekeeper::service::bundle::verify;

    // Arrange
    let expected: Expected = serde_json::from_str(EXPECTED).expect("expected answers");
    load_database(&pool, LAST_MIGRATION, FIXTURE).await;
    let app = spawn_app(pool).await;
    // Answers are compared with the answers of then, to the byte; a few of the fixture's entries
    // are of the older per-pool form of a Newmarket result, which the spec no longer offers.
    app.stop_checking_spec();
    let token = log_in(&app, &expected.organiser).await;

    // Act and assert: every read answers as before, to the byte of its JSON.
    for table in &expected.tables {
        assert_reads(&app, &table.reads, &table.game, Value::clone).await;
    }
    assert_reads(&app, &expected.session_reads, "the session", Value::clone).await;

    // The session's bundle holds the same, but for when it was made and so its signature; and
    // the one made now verifies with the same key.
    let bundle = app
        .as_reader(app.client.get(format!(
            "{}/api/v1/sessions/{}/audit-bundle",
            app.base, expected.session
        )))
        .send()
        .await
        .expect("bundle");
    assert_eq!(bundle.status(), 200);
    let now = bundle.bytes().await.expect("bundle bytes");
    let (now_json, then_json): (Value, Value) = (
        serde_json::from_slice(&now).expect("bundle JSON"),
        serde_json::from_slice(BUNDLE).expect("fixture bundle JSON"),
    );
    assert_eq!(
        now_json["signature"]["public_key"], then_json["signature"]["public_key"],
        "signed with the same key"
    );
    // Not what it holds: when it was made, its signature, and which release made it (`engine`
    // names the version, which moves on).
    let untimed = |b: &Value| {
        let mut b = b.clone();
        b["created_at"] = Value::Null;
        b["signature"]["value"] = Value::Null;
        assert!(
            b["engine"].as_str().is_some_and(|e| e.starts_with("tablekeeper ")),
            "{}",
            b["engine"]
        );
        b["engine"] = Value::Null;
        // Each table's checkpoint came later (issue #43): a signed head of the very links the
        // bundle holds, which `verify` below checks against them.
        for table in b["tables"].as_array_mut().into_iter().flatten() {
            if let Some(table) = table.as_object_mut() {
                table.remove("checkpoint");
            }
        }
        b
    };
    assert!(
        now_json["tables"]
            .as_array()
            .expect("tables")
            .iter()
            .all(|t| t["checkpoint"].is_string()),
        "a bundle made now carries each table's checkpoint"
    );
    assert_eq!(untimed(&now_json), untimed(&then_json), "the bundle holds what it did");
    let key = then_json["signature"]["public_key"].as_str().expect("key").to_owned();
    let summary = verify(&now, Some(&key)).expect("the bundle made now verifies");
    assert!(summary.starts_with("ok: "), "{summary}");
    verify(BUNDLE, Some(&key)).expect("the bundle made then still verifies");

    // The same further writes: each table's next move, an undo on the first, a correction.
    for table in &expected.tables {
        if let Some(mv) = &table.next_move {
            let body = json!({"move": mv, "expected_version": table.version});
            app.post(&format!("/api/v1/tables/{}/moves", table.id), &token, body)
                .await
                .assert_status(201);
        }
    }
    let first = &expected.tables[0];
    app.post(&format!("/api/v1/tables/{}/undo", first.id), &token, json!({}))
        .await
        .assert_status(200);
    let corrected = &expected.tables[expected.tables.len() - 2];
    let version = app
        .get(&format!("/api/v1/tables/{}", corrected.id))
        .await
        .assert_status(200)["version"]
        .as_i64()
        .expect("version");
    let cat_wins = json!({"kind": "result", "player": 2, "contract": {"contract": "play_diamonds"}, "honours": 2, "tricks": [2, 2, 5]});
    app.request(
        reqwest::Method::PUT,
        &format!("/api/v1/tables/{}/deals/2", corrected.id),
        Some(&token),
        Some(json!({"moves": [cat_wins], "expected_version": version, "reason": "and the second"})),
    )
    .await
    .assert_status(200);

    // They stored what ca8aac8 stored, and read as it read, but for their times.
    let ids: Vec<uuid::Uuid> = expected.tables.iter().map(|t| t.id.parse().expect("uuid")).collect();
    for (name, query) in &expected.after_queries {
        let query = query.as_str().expect("query");
        let rows: Value = sqlx::query_scalar(&format!("select coalesce(json_agg(r), '[]') from ({query}) r"))
            .bind(&ids)
            .fetch_one(&app.pool)
            .await
            .expect("rows");
        assert_eq!(
            timeless(&rows),
            timeless(&expected.after[name]),
            "{name}: the further writes stored what they did before the house"
        );
    }
    for table in &expected.tables {
        let reads = expected.after_reads[&table.id].as_object().expect("reads");
        assert_reads(&app, reads, &table.game, timeless).await;
        let audit = assert_audit_consistent(&app, &table.id).await;
        assert_eq!(audit["chain_intact"], true, "{}: {audit}", table.game);
    }

    // The session of then closes as one of now does (issue #42): final at once, its checkpoint
    // made, and the bundle of its tables as they are verifies against it offline.
    app.post(
        &format!("/api/v1/sessions/{}/close", expected.session),
        &token,
        json!({"correction_window": "PT0S", "force": true, "reason": "the evening of then, closed now"}),
    )
    .await
    .assert_status(200);
    let kept = app
        .get(&format!("/api/v1/sessions/{}/final", expected.session))
        .await
        .assert_status(200)
        .clone();
    let (bytes, _) = crate::helpers::verified_bundle(&app, &expected.session).await;
    let summary = tablekeeper::service::bundle::verify_checked(&bytes, &[], &[], std::slice::from_ref(&kept))
        .expect("the session of then verifies against its final checkpoint");
    assert!(summary.contains("final checkpoint"), "{summary}");
    app.post(&format!("/api/v1/tables/{}/undo", first.id), &token, json!({}))
        .await
        .assert_problem(409, "session_final");
}
