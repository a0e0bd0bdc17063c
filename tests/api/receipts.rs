//! Receipts anchor a table's chain outside the database: every answer that extends the chain
//! carries the audit key's signature on its head, and `tablekeeper verify --receipts` finds a
//! chain rolled back or rewritten and hashed again after a receipt, or a table taken out of its
//! session, however consistent the database was left (its superuser did it, triggers off).

use ed25519_dalek::SigningKey;
use serde_json::{json, Value};
use sqlx::PgPool;
use tablekeeper::service::bundle::verify_with;
use tablekeeper::service::chain::hex;
use tablekeeper::service::receipts::{self, Receipt};

use crate::helpers::{accept, assert_audit_consistent, spawn_app, spawn_app_with, TestApp};

fn play(seat: u8, card: &str) -> Value {
    json!({"kind": "play", "seat": seat, "card": card})
}

/// A session with a Newmarket table played a little (bookings, an undo); the receipts every
/// answer gave, oldest first.
struct Evening {
    token: String,
    session: String,
    table: String,
    receipts: Vec<Value>,
}

async fn an_evening(app: &TestApp, email: &str) -> Evening {
    // The rig's reader (its first organiser, issue #25) runs every evening of the test.
    let token = match app.reader() {
        Some(token) => token,
        None => app.organiser(email).await,
    };
    let session = app.session(&token, "Friday").await;
    let body = json!({"game": "newmarket", "players": ["Ann", "Bob", "Cat", "Dan"], "session_id": session});
    let created = app
        .post("/api/v1/tables", &token, body)
        .await
        .assert_status(201)
        .clone();
    let table = created["id"].as_str().expect("id").to_owned();
    let mut receipts = Vec::new();
    let layout = json!({"kind": "layout", "pool_cards": ["JD", "QH", "KC", "AS"], "stakes": ["AS", "KC", "QH", "JD"]});
    receipts.push(accept(app, &table, &token, layout).await["receipt"].clone());
    for (seat, card) in [(1, "QS"), (2, "KS"), (2, "JC"), (3, "QC")] {
        receipts.push(accept(app, &table, &token, play(seat, card)).await["receipt"].clone());
    }
    let undone = app
        .post(&format!("/api/v1/tables/{table}/undo"), &token, json!({}))
        .await
        .assert_status(200)
        .clone();
    receipts.push(undone["receipt"].clone());
    receipts.push(accept(app, &table, &token, play(3, "QC")).await["receipt"].clone());
    Evening {
        token,
        session,
        table,
        receipts,
    }
}

async fn bundle(app: &TestApp, session: &str) -> Vec<u8> {
    let response = app
        .as_reader(
            app.client
                .get(format!("{}/api/v1/sessions/{session}/audit-bundle", app.base)),
        )
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), 200);
    response.bytes().await.expect("body").to_vec()
}

async fn server_key(app: &TestApp) -> ed25519_dalek::VerifyingKey {
    let key = app.get("/api/v1/audit-key").await.assert_status(200).clone();
    receipts::public_key(key["public_key"].as_str().expect("key")).expect("an Ed25519 key")
}

fn kept(receipts: &[Value]) -> Vec<(Receipt, Value)> {
    receipts::read(&Value::Array(receipts.to_vec())).expect("receipts read")
}

#[sqlx::test(migrations = "./migrations")]
async fn every_move_and_undo_answers_with_a_receipt_for_the_head_it_leaves(pool: PgPool) {
    let app = spawn_app(pool).await;
    let evening = an_evening(&app, "ann@club.example").await;
    let key = server_key(&app).await;
    let audit = assert_audit_consistent(&app, &evening.table).await;

    let mut last_position = -1;
    for r in &evening.receipts {
        let receipt: Receipt = serde_json::from_value(r.clone()).expect("a receipt");
        assert_eq!(receipt.table.to_string(), evening.table);
        assert_eq!(receipt.session.map(|s| s.to_string()), Some(evening.session.clone()));
        assert!(receipt.position > last_position, "positions grow: {r}");
        last_position = receipt.position;
        assert_eq!(receipt.key_id, receipts::key_id(&key));
        receipts::check_signature(&receipt, r, &[key]).expect("signed by the server's key");
    }
    let latest = evening.receipts.last().expect("receipts");
    assert_eq!(latest["head"], audit["chain_head"], "the last receipt signs the head");
    assert_eq!(app.state(&evening.table).await["chain_head"], latest["head"]);

    let bytes = bundle(&app, &evening.session).await;
    let summary = verify_with(&bytes, &[key], &kept(&evening.receipts)).expect("the bundle holds every receipt");
    assert!(summary.contains("7 receipts found in the chains"), "{summary}");
}

#[sqlx::test(migrations = "./migrations")]
async fn a_retried_move_gets_the_same_receipt(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let table = app
        .table(&token, &["Ann", "Bob", "Cat"], json!({"hand_sizes": [1]}))
        .await;
    let body = json!({"move": {"kind": "result", "nominations": [1, 0, 1], "tricks": [1, 0, 0]}}).to_string();
    let path = format!("/api/v1/tables/{table}/moves");
    let headers = [("Idempotency-Key", "r-1")];
    let first = app
        .send(reqwest::Method::POST, &path, Some(&token), Some(body.clone()), &headers)
        .await;
    let again = app
        .send(reqwest::Method::POST, &path, Some(&token), Some(body), &headers)
        .await;
    assert_eq!(first.status, 201, "{}", first.body);
    assert!(first.body["receipt"]["signature"].is_string());
    assert_eq!(first.body["receipt"], again.body["receipt"]);
}

/// The evening's last move (7) deleted with its bookings and links, the version and the head set
/// back: the chain and the log agree again.
const ROLL_BACK: &str = "delete from ledger_postings where table_id = $1 and booking_id in (select id from ledger_bookings where table_id = $1 and move_seq = 7);
    delete from chain_links where table_id = $1 and (entry = 'move' and ref = 7 or entry = 'booking' and ref in (select id from ledger_bookings where table_id = $1 and move_seq = 7));
    delete from ledger_bookings where table_id = $1 and move_seq = 7;
    delete from snapshots where table_id = $1 and seq = 7;
    delete from deal_lines where table_id = $1 and seq = 7;
    delete from moves where table_id = $1 and seq = 7;
    update game_tables set version = 6, chain_head = (select hash from chain_links where table_id = $1 order by pos desc limit 1) where id = $1";

/// Runs `sql` (with `$1` the table) as the database's superuser could: triggers off.
async fn tamper(pool: &PgPool, table: &str, sql: &str) {
    let id: uuid::Uuid = table.parse().expect("uuid");
    let mut tx = pool.begin().await.expect("tx");
    sqlx::query("set local session_replication_role = replica")
        .execute(&mut *tx)
        .await
        .expect("triggers off");
    for statement in sql.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let query = sqlx::query(statement);
        let query = if statement.contains("$1") {
            query.bind(id)
        } else {
            query
        };
        query.execute(&mut *tx).await.expect(statement);
    }
    tx.commit().await.expect("commit");
}

/// Hashes the table's chain again from its entries as they are now, as someone with the source
/// and the database would after rewriting entries: the stored chain then agrees with them.
async fn hash_again(pool: &PgPool, table: &str) {
    tamper(
        pool,
        table,
        "delete from chain_links where table_id = $1; update game_tables set chain_head = null where id = $1",
    )
    .await;
    let id: uuid::Uuid = table.parse().expect("uuid");
    let mut tx = pool.begin().await.expect("tx");
    let row = tablekeeper::store::tables::fetch(&mut tx, id).await.expect("table");
    tablekeeper::service::chain::extend(&mut tx, &row)
        .await
        .expect("chained again");
    tx.commit().await.expect("commit");
}

/// Each way of changing the evidence in the database that leaves it consistent (the audit and
/// `verify --key` pass), and what `verify --receipts` says with the latest receipt.
#[sqlx::test(migrations = "./migrations")]
async fn each_tampering_that_passes_the_audit_is_found_with_a_later_receipt(pool: PgPool) {
    struct Kind {
        name: &'static str,
        sql: &'static str,
        hash_again: bool,
        found: &'static str,
    }
    let kinds = [
        Kind {
            name: "the last move deleted with its bookings and links, the head and version set back",
            sql: ROLL_BACK,
            hash_again: false,
            found: "entries after it were removed and its head set back",
        },
        Kind {
            name: "who recorded a move and when rewritten, the chain hashed again",
            sql: "update moves set recorded_by = 'organiser:00000000-0000-0000-0000-000000000000', recorded_at = recorded_at - interval '1 hour' where table_id = $1 and seq = 2",
            hash_again: true,
            found: "rewritten and hashed again",
        },
        Kind {
            name: "the table taken out of its session",
            sql: "update game_tables set session_id = null where id = $1",
            hash_again: true,
            found: "taken out of the session",
        },
    ];
    let app = spawn_app(pool).await;
    for (i, kind) in kinds.into_iter().enumerate() {
        // Every tampering on an evening of its own.
        let evening = an_evening(&app, &format!("organiser{i}@club.example")).await;
        let key = server_key(&app).await;
        let latest = kept(&evening.receipts[evening.receipts.len() - 1..]);
        tamper(&app.pool, &evening.table, kind.sql).await;
        if kind.hash_again {
            hash_again(&app.pool, &evening.table).await;
        }
        if kind.name != "the table taken out of its session" {
            assert_audit_consistent(&app, &evening.table).await;
        }
        let bytes = bundle(&app, &evening.session).await;
        verify_with(&bytes, &[key], &[]).unwrap_or_else(|e| panic!("{}: verify --key alone passes: {e}", kind.name));
        let found = verify_with(&bytes, &[key], &latest).expect_err(kind.name);
        assert!(found.contains(kind.found), "{}: {found}", kind.name);
        assert!(
            found.contains(&evening.table),
            "{}: names the table: {found}",
            kind.name
        );
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn a_forged_or_foreign_receipt_is_refused_and_other_sessions_receipts_are_passed_over(pool: PgPool) {
    let app = spawn_app(pool).await;
    let evening = an_evening(&app, "ann@club.example").await;
    let key = server_key(&app).await;
    let bytes = bundle(&app, &evening.session).await;
    let latest = evening.receipts.last().expect("receipt").clone();

    let mut moved_on = latest.clone();
    moved_on["position"] = json!(moved_on["position"].as_i64().expect("position") + 1);
    let found = verify_with(&bytes, &[key], &kept(&[moved_on])).expect_err("an altered receipt");
    assert!(found.contains("a signature that does not match"), "{found}");

    let stranger = SigningKey::from_bytes(&[5; 32]);
    let receipt: Receipt = serde_json::from_value(latest.clone()).expect("receipt");
    let head = tablekeeper::service::bundle::unhex::<32>(&receipt.head).expect("hex");
    let at = chrono::Utc::now();
    let forged = receipts::sign(
        &stranger,
        receipt.table,
        receipt.session,
        receipt.position + 5,
        &head,
        at,
    )
    .expect("signed");
    let forged = serde_json::to_value(&forged).expect("json");
    let found = verify_with(&bytes, &[key], &kept(&[forged])).expect_err("another key");
    assert!(found.contains("not among the keys given"), "{found}");

    let mut elsewhere =
        receipts::sign(&stranger, receipt.table, Some(uuid::Uuid::nil()), 0, &head, at).expect("signed");
    elsewhere.key_id = receipts::key_id(&stranger.verifying_key());
    let elsewhere = serde_json::to_value(&elsewhere).expect("json");
    let summary = verify_with(&bytes, &[key, stranger.verifying_key()], &kept(&[latest, elsewhere]))
        .expect("a receipt of another session is passed over");
    assert!(
        summary.contains("1 receipts found in the chains (1 of other sessions passed over)"),
        "{summary}"
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn after_a_rotation_old_bundles_and_receipts_verify_with_the_previous_key(pool: PgPool) {
    let old_seed = [1u8; 32];
    let new_seed = [2u8; 32];
    let old = SigningKey::from_bytes(&old_seed).verifying_key();
    let new = SigningKey::from_bytes(&new_seed).verifying_key();
    let app = spawn_app_with(pool.clone(), |s| s.audit_signing_key = Some(old_seed)).await;
    let evening = an_evening(&app, "ann@club.example").await;
    let old_bundle = bundle(&app, &evening.session).await;

    let rotated = spawn_app_with(pool, |s| {
        s.audit_signing_key = Some(new_seed);
        s.audit_previous_keys = vec![old];
    })
    .await;
    *rotated.default_reader.lock().expect("reader") = app.reader();
    let listed = rotated.get("/api/v1/audit-key").await.assert_status(200).clone();
    assert_eq!(listed["public_key"], hex(new.as_bytes()));
    assert_eq!(listed["key_id"], receipts::key_id(&new));
    assert_eq!(
        listed["keys"],
        json!([
            {"key_id": receipts::key_id(&new), "algorithm": "ed25519", "public_key": hex(new.as_bytes()), "current": true},
            {"key_id": receipts::key_id(&old), "algorithm": "ed25519", "public_key": hex(old.as_bytes()), "current": false},
        ])
    );
    let mut receipts = evening.receipts.clone();
    let undone = rotated
        .post(
            &format!("/api/v1/tables/{}/undo", evening.table),
            &evening.token,
            json!({}),
        )
        .await
        .assert_status(200)
        .clone();
    receipts.push(undone["receipt"].clone());
    assert_eq!(receipts.last().expect("receipt")["key_id"], receipts::key_id(&new));
    let new_bundle = bundle(&rotated, &evening.session).await;

    let both = [new, old];
    verify_with(&old_bundle, &both, &kept(&evening.receipts)).expect("the old bundle with the old key");
    verify_with(&new_bundle, &both, &kept(&receipts)).expect("the new bundle with old and new receipts");
    let found = verify_with(&new_bundle, &[new], &kept(&receipts)).expect_err("old receipts need the old key");
    assert!(found.contains("not among the keys given"), "{found}");
    let found = verify_with(&old_bundle, &[new], &[]).expect_err("the old bundle needs the old key");
    assert!(found.contains("another key than the ones given"), "{found}");
}

/// A session's Nomination Whist table whose deal 1 was recorded by the organiser, joined by
/// Bob's phone and verified by it: the receipts of the opening, the move, the join and the
/// verification.
async fn a_verified_evening(app: &TestApp, email: &str) -> Evening {
    // The rig's reader (its first organiser, issue #25) runs every evening of the test.
    let token = match app.reader() {
        Some(token) => token,
        None => app.organiser(email).await,
    };
    let session = app.session(&token, "Thursday").await;
    let body = json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat"], "session_id": session, "options": {"hand_sizes": [1, 2]}});
    let created = app
        .post("/api/v1/tables", &token, body)
        .await
        .assert_status(201)
        .clone();
    let table = created["id"].as_str().expect("id").to_owned();
    assert_eq!(
        created["members"].as_array().map(Vec::len),
        Some(3),
        "seats name members"
    );
    let mut receipts = vec![created["receipt"].clone()];
    let result = json!({"kind": "result", "nominations": [1, 0, 1], "tricks": [1, 0, 0]});
    receipts.push(accept(app, &table, &token, result).await["receipt"].clone());
    let joined = crate::scorers::join(app, &token, &table, Some("Bob's phone")).await;
    receipts.push(joined["receipt"].clone());
    let phone = joined["token"].as_str().expect("token");
    let verified = app
        .post(
            &format!("/api/v1/tables/{table}/deals/1/verification"),
            phone,
            json!({"agree": true}),
        )
        .await
        .assert_status(201)
        .clone();
    receipts.push(verified["receipt"].clone());
    Evening {
        token,
        session,
        table,
        receipts,
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn opening_a_table_a_join_and_a_verification_answer_with_receipts_the_bundle_holds(pool: PgPool) {
    let app = spawn_app(pool).await;
    let evening = a_verified_evening(&app, "ann@club.example").await;
    let key = server_key(&app).await;
    let positions: Vec<i64> = evening
        .receipts
        .iter()
        .map(|r| r["position"].as_i64().expect("a receipt"))
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
    let audit = assert_audit_consistent(&app, &evening.table).await;
    assert_eq!(evening.receipts.last().expect("receipt")["head"], audit["chain_head"]);

    let bytes = bundle(&app, &evening.session).await;
    let summary = verify_with(&bytes, &[key], &kept(&evening.receipts)).expect("every receipt is in the chain");
    assert!(summary.contains("4 receipts found in the chains"), "{summary}");
    let document: Value = serde_json::from_slice(&bytes).expect("json");
    let bundled = &document["tables"][0];
    assert_eq!(bundled["scorers"][0]["name"], "Bob's phone");
    assert_eq!(bundled["verifications"][0]["agree"], true);
    let kinds: Vec<&str> = bundled["chain"]
        .as_array()
        .expect("chain")
        .iter()
        .filter_map(|l| l["entry"].as_str())
        .collect();
    assert!(
        kinds.contains(&"scorer") && kinds.contains(&"verification"),
        "{kinds:?}"
    );
}

/// What changes who owes what beyond the log: each change is found by the audit as it is, and,
/// once the chain is hashed again to hide it, by `verify --receipts` with the latest receipt.
#[sqlx::test(migrations = "./migrations")]
async fn a_roster_swap_a_renamed_scorer_and_a_changed_or_removed_verification_are_each_found(pool: PgPool) {
    let kinds = [
        (
            "two seats' members swapped",
            "update game_tables set members = array[members[2], members[1], members[3]] where id = $1",
        ),
        (
            "a scorer renamed",
            "update scorers set name = 'Eve''s phone' where table_id = $1",
        ),
        (
            "an agreement turned into a dispute",
            "update verifications set agree = false, differs = '{/0/tricks/1}' where table_id = $1",
        ),
        (
            "a verification removed",
            "delete from verifications where table_id = $1",
        ),
    ];
    let app = spawn_app(pool).await;
    let key = server_key(&app).await;
    for (i, (name, sql)) in kinds.into_iter().enumerate() {
        // As it is: the audit names the chain broken.
        let evening = a_verified_evening(&app, &format!("as-is{i}@club.example")).await;
        tamper(&app.pool, &evening.table, sql).await;
        let audit = app
            .get(&format!("/api/v1/tables/{}/audit", evening.table))
            .await
            .assert_status(200)
            .clone();
        assert_eq!(audit["chain_intact"], false, "{name}: {audit}");
        assert_eq!(audit["consistent"], false, "{name}: {audit}");

        // Hidden by hashing the chain again: the latest receipt finds it.
        let evening = a_verified_evening(&app, &format!("hidden{i}@club.example")).await;
        let latest = kept(&evening.receipts[evening.receipts.len() - 1..]);
        tamper(&app.pool, &evening.table, sql).await;
        if name == "a verification removed" {
            tamper(
                &app.pool,
                &evening.table,
                "delete from chain_links where table_id = $1 and entry = 'verification'",
            )
            .await;
        }
        hash_again(&app.pool, &evening.table).await;
        assert_audit_consistent(&app, &evening.table).await;
        let bytes = bundle(&app, &evening.session).await;
        verify_with(&bytes, &[key], &[]).unwrap_or_else(|e| panic!("{name}: verify --key alone passes: {e}"));
        let found = verify_with(&bytes, &[key], &latest).expect_err(name);
        assert!(
            found.contains("rewritten and hashed again") || found.contains("entries after it were removed"),
            "{name}: {found}"
        );
        assert!(found.contains(&evening.table), "{name}: {found}");
    }
}

/// `tablekeeper verify FILE --key KEY --receipts FILE…` as a treasurer runs it at home.
#[sqlx::test(migrations = "./migrations")]
async fn the_binary_checks_receipt_files_and_fails_on_a_rolled_back_chain(pool: PgPool) {
    let app = spawn_app(pool).await;
    let evening = an_evening(&app, "ann@club.example").await;
    let key = hex(server_key(&app).await.as_bytes());
    let dir = std::env::temp_dir();
    let bundle_file = dir.join(format!("tk-receipts-bundle-{}.json", evening.session));
    let receipts_file = dir.join(format!("tk-receipts-{}.json", evening.session));
    // One file of all the receipts, and one of a single answer that carried its receipt.
    std::fs::write(&receipts_file, Value::Array(evening.receipts.clone()).to_string()).expect("write");
    let answer_file = dir.join(format!("tk-receipts-answer-{}.json", evening.session));
    let answer = json!({"move": {"seq": 7}, "receipt": evening.receipts.last().expect("receipt")});
    std::fs::write(&answer_file, answer.to_string()).expect("write");
    let path = |p: &std::path::PathBuf| p.to_str().expect("path").to_owned();
    let run = |bundle: &[u8]| {
        std::fs::write(&bundle_file, bundle).expect("write");
        std::process::Command::new(env!("CARGO_BIN_EXE_tablekeeper"))
            .args([
                "verify",
                &path(&bundle_file),
                "--key",
                &key,
                "--receipts",
                &path(&receipts_file),
                &path(&answer_file),
            ])
            .env_remove("DATABASE_URL")
            .output()
            .expect("run")
    };

    let good = run(&bundle(&app, &evening.session).await);
    let stdout = String::from_utf8_lossy(&good.stdout);
    assert!(
        good.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&good.stderr)
    );
    assert!(stdout.contains("8 receipts found in the chains"), "{stdout}");

    tamper(&app.pool, &evening.table, ROLL_BACK).await;
    let bad = run(&bundle(&app, &evening.session).await);
    for file in [&bundle_file, &receipts_file, &answer_file] {
        std::fs::remove_file(file).ok();
    }
    assert_eq!(bad.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(stderr.contains("FAILED") && stderr.contains("set back"), "{stderr}");
}
