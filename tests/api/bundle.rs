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
        .as_reader(
            app.client
                .get(format!("{}/api/v1/sessions/{session}/audit-bundle", app.base)),
        )
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
    assert_eq!(document["format"], "tablekeeper-audit-bundle/4");
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

fn draw(player: u8) -> Value {
    json!({"kind": "result", "player": player, "contract": {"contract": "play", "trumps": "hearts"},
           "honours": 0, "tricks": [3, 3, 3]})
}

fn cat_wins() -> Value {
    json!({"kind": "result", "player": 2, "contract": {"contract": "play_diamonds"},
           "honours": 2, "tricks": [2, 2, 5]})
}

async fn correct(app: &TestApp, table: &str, token: &str, deal: u16, mv: Value, version: i64) {
    app.request(
        reqwest::Method::PUT,
        &format!("/api/v1/tables/{table}/deals/{deal}"),
        Some(token),
        Some(json!({"moves": [mv], "expected_version": version, "reason": "Cat won that one"})),
    )
    .await
    .assert_status(200);
}

/// A session of two Tridge tables: the first with deal 1 of three corrected (log entries 1–3
/// the draws, 4 the deal as corrected, 5 the correction) and a deal recorded after (6); the
/// second with a correction that was undone (its void is entry 6), then a deal recorded (7).
async fn a_corrected_evening(app: &TestApp) -> (String, String, String) {
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Friday").await;
    let mut tables = Vec::new();
    for _ in 0..2 {
        let body = json!({"game": "tridge", "players": ["Ann", "Bob", "Cat"], "session_id": session});
        let table = app.post("/api/v1/tables", &token, body).await.assert_status(201)["id"]
            .as_str()
            .expect("id")
            .to_owned();
        for player in [1, 0, 1] {
            accept(app, &table, &token, draw(player)).await;
        }
        correct(app, &table, &token, 1, cat_wins(), 3).await;
        tables.push(table);
    }
    accept(app, &tables[0], &token, draw(2)).await;
    app.post(
        &format!("/api/v1/tables/{}/undo", tables[1]),
        &token,
        json!({"expected_version": 5}),
    )
    .await
    .assert_status(200);
    accept(app, &tables[1], &token, draw(2)).await;
    let undone = tables.pop().expect("second");
    let corrected = tables.pop().expect("first");
    (session, corrected, undone)
}

#[sqlx::test(migrations = "./migrations")]
async fn a_session_with_a_corrected_deal_and_an_undone_correction_verifies_offline(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (session, corrected, undone) = a_corrected_evening(&app).await;
    let key = public_key(&app).await;
    for table in [&corrected, &undone] {
        crate::helpers::assert_audit_consistent(&app, table).await;
    }

    let bytes = download(&app, &session).await;

    let summary = verify(&bytes, Some(&key)).expect("the bundle verifies");
    assert!(summary.starts_with("ok: "), "{summary}");
    let document: Value = serde_json::from_slice(&bytes).expect("json");
    assert_eq!(document["format"], "tablekeeper-audit-bundle/4");
    let table = &document["tables"][0];
    assert_eq!(table["id"], corrected.as_str());
    let correction = &table["corrections"][0];
    assert_eq!(correction["seq"], 5);
    assert_eq!(correction["deal"], 1);
    assert_eq!(correction["supersedes"], json!([1]));
    assert_eq!(correction["reason"], "Cat won that one");
    assert!(correction["first_booking"].is_i64(), "{correction}");
    assert_eq!(table["log"][3]["part_of"], 5);
    assert!(table["log"][3]["position"].is_string(), "{}", table["log"][3]);
    assert!(table["log"][0]["position"].is_null());
    assert_eq!(table["log"][4]["entry"], "correction");
    assert!(
        table["ledger"]
            .as_array()
            .expect("ledger")
            .iter()
            .any(|b| !b["reverses"].is_null()),
        "the correction's reversals are bundled"
    );
    assert!(table["chain"]
        .as_array()
        .expect("chain")
        .iter()
        .all(|l| l["content_version"] == tablekeeper::service::chain::CONTENT_VERSION));
    let other = &document["tables"][1];
    assert_eq!(other["corrections"][0]["seq"], 5);
    assert_eq!(other["log"][5]["voids_seq"], 5);

    // The binary, as a member runs it at home.
    let file = std::env::temp_dir().join(format!("tk-bundle-corrected-{session}.json"));
    std::fs::write(&file, &bytes).expect("write");
    let run = Command::new(env!("CARGO_BIN_EXE_tablekeeper"))
        .args(["verify", file.to_str().expect("path"), "--key", &key])
        .env_remove("DATABASE_URL")
        .output()
        .expect("run");
    std::fs::remove_file(&file).expect("remove");
    assert!(
        run.status.success(),
        "{} {}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn a_corrections_moves_or_place_altered_in_the_bundle_are_caught_naming_the_table_and_entry(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (session, corrected, _) = a_corrected_evening(&app).await;
    let bytes = download(&app, &session).await;
    let named = |found: &str, entry: &str| {
        assert!(found.contains(&format!("table {corrected}")), "{found}");
        assert!(found.contains(entry), "{found}");
    };

    // The correction's own moves rewritten (Bob won, not Cat), signed again: the chain.
    let rewritten = forged(&bytes, |d| {
        d["tables"][0]["log"][4]["body"]["moves"][0]["player"] = json!(1);
    });
    named(
        &verify(&rewritten, None).expect_err("the chain"),
        "log entry 5 was changed",
    );

    // The same with the move it brought, and no chain to vouch for the table: the replay.
    let unchained = |d: &mut Value| {
        d["tables"][0]["chain_head"] = Value::Null;
        d["tables"][0]["chain"] = json!([]);
    };
    let rewritten = forged(&bytes, |d| {
        unchained(d);
        d["tables"][0]["log"][3]["body"]["player"] = json!(1);
    });
    named(&verify(&rewritten, None).expect_err("the replay"), "move 4");

    // The correction's supersession dropped: the first recording is in play again.
    let un_superseded = forged(&bytes, |d| {
        unchained(d);
        d["tables"][0]["corrections"][0]["supersedes"] = json!([]);
        d["tables"][0]["log"][0]["superseded_by"] = Value::Null;
    });
    assert!(verify(&un_superseded, None).is_err(), "supersession dropped");
    let with_chain = forged(&bytes, |d| {
        d["tables"][0]["corrections"][0]["supersedes"] = json!([]);
        d["tables"][0]["log"][0]["superseded_by"] = Value::Null;
    });
    named(
        &verify(&with_chain, None).expect_err("the chain"),
        "log entry 5 was changed",
    );

    // The corrected deal moved after deal 2 in play order.
    let moved = forged(&bytes, |d| d["tables"][0]["log"][3]["position"] = json!("2.5"));
    named(&verify(&moved, None).expect_err("the chain"), "log entry 4 was changed");
    let moved = forged(&bytes, |d| {
        unchained(d);
        d["tables"][0]["log"][3]["position"] = json!("2.5");
    });
    assert!(verify(&moved, None).is_err(), "a deal out of play order");

    // A derived field that misleads a reader.
    let misleading = forged(&bytes, |d| d["tables"][0]["log"][0]["superseded_by"] = Value::Null);
    named(
        &verify(&misleading, None).expect_err("derived"),
        "log entry 1: `superseded_by`",
    );

    // The correction's row left out.
    let cut = forged(&bytes, |d| d["tables"][0]["corrections"] = json!([]));
    named(&verify(&cut, None).expect_err("cut"), "log entry 5");

    // A reversal that does not undo what it names.
    let reversal = forged(&bytes, |d| {
        unchained(d);
        let ledger = d["tables"][0]["ledger"].as_array_mut().expect("ledger");
        let b = ledger
            .iter_mut()
            .find(|b| !b["reverses"].is_null())
            .expect("a reversal");
        b["memo"] = json!("reversal: something else");
    });
    named(
        &verify(&reversal, None).expect_err("reversal"),
        "is not the reversal of booking",
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn a_change_of_one_byte_anywhere_in_a_corrected_sessions_bundle_fails_verification(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (session, _, _) = a_corrected_evening(&app).await;
    let key = public_key(&app).await;
    let bytes = download(&app, &session).await;
    verify(&bytes, Some(&key)).expect("verifies as downloaded");

    let stride = (bytes.len() / 300).max(1);
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
}

#[sqlx::test(migrations = "./migrations")]
async fn a_bundle_of_format_3_verifies_and_a_chip_value_changed_in_a_format_4_one_is_caught_by_the_session_s_chain(
    pool: PgPool,
) {
    let app = spawn_app(pool).await;
    let session = an_evening(&app).await;
    let bytes = download(&app, &session).await;

    // As an earlier release wrote it: no club, no session chain, no roster club members.
    let older = forged(&bytes, |document| {
        document["format"] = json!("tablekeeper-audit-bundle/3");
        let part = document["session"].as_object_mut().expect("session");
        part.remove("club_id");
        part.remove("chain");
        for member in part["members"].as_array_mut().expect("members") {
            member.as_object_mut().expect("member").remove("club_member_id");
        }
        // Nor the tables' checkpoints.
        for table in document["tables"].as_array_mut().expect("tables") {
            table.as_object_mut().expect("table").remove("checkpoint");
        }
    });
    let summary = verify(&older, None).expect("a bundle of format 3 verifies");
    assert!(summary.starts_with("ok: "), "{summary}");

    // 10 cents a chip made a euro, the bundle signed again.
    let altered = forged(&bytes, |document| document["session"]["chip_value"] = json!(100));
    let found = verify(&altered, None).expect_err("caught");
    assert!(found.contains("`chip_value`"), "{found}");
}
