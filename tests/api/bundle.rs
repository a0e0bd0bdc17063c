//! The signed audit bundle: downloaded from the server, checked offline by `tablekeeper verify`
//! (no database, no network), which fails on any changed byte and names the first discrepancy.

use std::process::Command;

use ed25519_dalek::{Signer, SigningKey};
use serde_json::{json, Value};
use sqlx::PgPool;
use tablekeeper::service::bundle::verify;
use tablekeeper::service::chain::{canonical, hex};

use crate::helpers::{accept, spawn_app, spawn_app_with, TestApp};

/// A session with a Newmarket table (an undo in its log) and a Nomination Whist table.
async fn an_evening(app: &TestApp) -> String {
    let token = app.organiser("ann@club.example").await;
    let session = app
        .post(
            "/api/v1/sessions",
            &token,
            json!({"name": "Friday", "chip_value": {"minor_units": 10, "currency": "EUR"}}),
        )
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let body = json!({"game": "newmarket", "players": ["Ann", "Bob", "Cat", "Dan"], "session_id": session});
    let newmarket = app.post("/api/v1/tables", &token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let layout = json!({"kind": "layout", "pool_cards": ["JD", "QH", "KC", "AS"], "stakes": ["AS", "KC", "QH", "JD"]});
    accept(app, &newmarket, &token, layout).await;
    for (seat, card) in [(1, "QS"), (2, "KS"), (2, "JC"), (3, "QC")] {
        accept(
            app,
            &newmarket,
            &token,
            json!({"kind": "play", "seat": seat, "card": card}),
        )
        .await;
    }
    app.post(&format!("/api/v1/tables/{newmarket}/undo"), &token, json!({}))
        .await
        .assert_status(200);
    let body = json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Eve"], "session_id": session, "options": {"hand_sizes": [1, 2]}});
    let whist = app.post("/api/v1/tables", &token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    accept(
        app,
        &whist,
        &token,
        json!({"kind": "result", "nominations": [1, 0, 1], "tricks": [1, 0, 0]}),
    )
    .await;
    session
}

async fn download(app: &TestApp, session: &str) -> Vec<u8> {
    let response = app
        .client
        .get(format!("{}/api/v1/sessions/{session}/audit-bundle", app.base))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-disposition"]
        .to_str()
        .expect("header")
        .starts_with("attachment"));
    response.bytes().await.expect("body").to_vec()
}

async fn public_key(app: &TestApp) -> String {
    app.get("/api/v1/audit-key").await.assert_status(200)["public_key"]
        .as_str()
        .expect("key")
        .to_owned()
}

/// The bundle changed by `change` and signed again with another key, in canonical form.
fn forged(bytes: &[u8], change: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut document: Value = serde_json::from_slice(bytes).expect("json");
    let map = document.as_object_mut().expect("object");
    map.remove("signature");
    change(&mut document);
    let key = SigningKey::from_bytes(&[7; 32]);
    let signature = key.sign(canonical(&document).as_bytes());
    document.as_object_mut().expect("object").insert(
        "signature".into(),
        json!({"algorithm": "ed25519", "public_key": hex(key.verifying_key().as_bytes()), "value": hex(&signature.to_bytes())}),
    );
    canonical(&document).into_bytes()
}

#[sqlx::test(migrations = "./migrations")]
async fn a_bundle_holds_the_whole_session_and_verifies_offline_with_the_servers_key(pool: PgPool) {
    let app = spawn_app(pool).await;
    let session = an_evening(&app).await;
    let key = public_key(&app).await;

    let bytes = download(&app, &session).await;

    let document: Value = serde_json::from_slice(&bytes).expect("json");
    assert_eq!(document["format"], "tablekeeper-audit-bundle/1");
    assert!(document["engine"]
        .as_str()
        .is_some_and(|e| e.starts_with("tablekeeper ")));
    assert_eq!(document["session"]["chip_value"], 10);
    assert_eq!(document["signature"]["public_key"], key.as_str());
    let tables = document["tables"].as_array().expect("tables");
    assert_eq!(tables.len(), 2);
    let newmarket = &tables[0];
    assert!(
        newmarket["log"]
            .as_array()
            .expect("log")
            .iter()
            .any(|m| m["entry"] == "void"),
        "voids included"
    );
    assert!(
        newmarket["ledger"]
            .as_array()
            .expect("ledger")
            .iter()
            .any(|b| !b["reverses"].is_null()),
        "reversals included"
    );
    assert_eq!(
        newmarket["chain_head"],
        app.state(newmarket["id"].as_str().expect("id")).await["chain_head"]
    );
    let summary = verify(&bytes, Some(&key)).expect("the bundle verifies");
    assert!(summary.starts_with("ok: "), "{summary}");
    assert_eq!(public_key(&app).await, key, "the key is made once and kept");

    // The binary, as a member runs it at home: one line and status 0.
    let file = std::env::temp_dir().join(format!("tk-bundle-{session}.json"));
    std::fs::write(&file, &bytes).expect("write");
    let run = Command::new(env!("CARGO_BIN_EXE_tablekeeper"))
        .args(["verify", file.to_str().expect("path"), "--key", &key])
        .env_remove("DATABASE_URL")
        .output()
        .expect("run");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(stdout.lines().count(), 1, "{stdout}");

    // One changed byte: status 1 and the discrepancy named.
    let mut changed = bytes.clone();
    let at = changed.iter().position(|&b| b == b'Q').expect("a card");
    changed[at] = b'K';
    std::fs::write(&file, &changed).expect("write");
    let run = Command::new(env!("CARGO_BIN_EXE_tablekeeper"))
        .args(["verify", file.to_str().expect("path"), "--key", &key])
        .output()
        .expect("run");
    std::fs::remove_file(&file).expect("remove");
    assert_eq!(run.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&run.stderr).contains("signature"),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn a_change_of_one_byte_anywhere_fails_verification(pool: PgPool) {
    let app = spawn_app(pool).await;
    let session = an_evening(&app).await;
    let key = public_key(&app).await;
    let bytes = download(&app, &session).await;

    // Every byte would do; a stride through the whole file keeps the test quick.
    let stride = (bytes.len() / 400).max(1);
    for at in (0..bytes.len()).step_by(stride).chain([bytes.len() - 1]) {
        let mut changed = bytes.clone();
        changed[at] ^= 0x01;
        assert!(
            verify(&changed, Some(&key)).is_err(),
            "byte {at} changed and still verified"
        );
        assert!(
            verify(&changed, None).is_err(),
            "byte {at} changed and still verified without a key"
        );
    }
    let mut longer = bytes.clone();
    longer.push(b' ');
    assert!(verify(&longer, Some(&key)).is_err(), "white space added");
}

#[sqlx::test(migrations = "./migrations")]
async fn a_bundle_altered_and_signed_again_is_caught_by_the_key_the_chain_and_the_replay(pool: PgPool) {
    let app = spawn_app(pool).await;
    let session = an_evening(&app).await;
    let key = public_key(&app).await;
    let bytes = download(&app, &session).await;

    // A chip moved in a booking and the bundle signed again by someone else.
    let moved_chip = forged(&bytes, |d| {
        let postings = &mut d["tables"][0]["ledger"][0]["postings"];
        let first = postings[0][1].as_i64().expect("chips");
        let second = postings[1][1].as_i64().expect("chips");
        postings[0][1] = json!(first + 1);
        postings[1][1] = json!(second - 1);
    });
    let booking = serde_json::from_slice::<Value>(&bytes).expect("json")["tables"][0]["ledger"][0]["id"].clone();
    assert!(verify(&moved_chip, Some(&key))
        .expect_err("another key")
        .contains("another key"));
    let found = verify(&moved_chip, None).expect_err("the chain");
    assert!(found.contains(&format!("booking {booking}")), "{found}");

    // Events rewritten where no chain vouches for the table: the replay finds them.
    let rewritten = forged(&bytes, |d| {
        let table = &mut d["tables"][1];
        table["chain_head"] = Value::Null;
        table["chain"] = json!([]);
        table["log"][0]["events"] = json!([]);
    });
    let found = verify(&rewritten, None).expect_err("the replay");
    assert!(found.contains("move 1: the stored events differ"), "{found}");

    // A score sheet that is not what the cards said.
    let rescored = forged(&bytes, |d| d["tables"][1]["scores"]["totals"][0] = json!(99));
    let found = verify(&rescored, None).expect_err("the score sheet");
    assert!(found.contains("score sheet"), "{found}");
}

#[sqlx::test(migrations = "./migrations")]
async fn bad_inputs_are_named_and_an_unknown_session_is_not_found(pool: PgPool) {
    let app = spawn_app(pool).await;
    let session = an_evening(&app).await;
    let bytes = download(&app, &session).await;

    assert!(verify(b"{not json", None).expect_err("not JSON").contains("not JSON"));
    assert!(verify(&bytes, Some("abcd"))
        .expect_err("short key")
        .contains("public key"));
    assert!(verify(&bytes, Some(&"0".repeat(66)))
        .expect_err("long key")
        .contains("public key"));
    app.get(&format!("/api/v1/sessions/{}/audit-bundle", uuid::Uuid::new_v4()))
        .await
        .assert_problem(404, "session_not_found");

    let wrong =
        tablekeeper::config::Settings::from_lookup(|name| (name == "AUDIT_SIGNING_KEY").then(|| "abc".to_owned()));
    assert!(wrong
        .expect_err("a short key")
        .to_string()
        .contains("AUDIT_SIGNING_KEY"));
}

#[sqlx::test(migrations = "./migrations")]
async fn a_configured_signing_key_signs_the_bundles(pool: PgPool) {
    let seed = [3u8; 32];
    let app = spawn_app_with(pool, |s| s.audit_signing_key = Some(seed)).await;
    let session = an_evening(&app).await;
    let expected = hex(SigningKey::from_bytes(&seed).verifying_key().as_bytes());

    assert_eq!(public_key(&app).await, expected);
    let bytes = download(&app, &session).await;
    verify(&bytes, Some(&expected)).expect("verifies with the configured key");
}
