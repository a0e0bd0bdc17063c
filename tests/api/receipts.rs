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
use tablekeeper::service::witness::Checkpoint;

use crate::evidence::{a_finished_evening, bundle, kept, server_key, tamper, Evening};
use crate::helpers::{accept, assert_audit_consistent, spawn_app, spawn_app_with, TestApp};

fn play(seat: u8, card: &str) -> Value {
    json!({"kind": "play", "seat": seat, "card": card})
}

/// A session with a Newmarket table played a little (bookings, an undo); the receipts every
/// answer gave, oldest first.
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
    // Each is also the checkpoint of the table's tree at its size, the very note the table's
    // checkpoint endpoint gives for that size (issue #43: receipts are checkpoints).
    for r in &evening.receipts {
        let receipt: Receipt = serde_json::from_value(r.clone()).expect("a receipt");
        let note = receipt.checkpoint.as_deref().expect("a checkpoint in the receipt");
        let (checkpoint, _) = Checkpoint::open(note, &[key]).expect("signed by the server's key");
        assert_eq!(checkpoint.size as i64, receipt.position + 1, "{r}");
        assert!(checkpoint.origin.ends_with(&evening.table), "{r}");
        let at_size = app
            .get(&format!(
                "/api/v1/tables/{}/checkpoint?size={}",
                evening.table, checkpoint.size
            ))
            .await;
        assert_eq!(
            at_size.text, note,
            "the receipt's checkpoint is the table's at its size"
        );
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
const ROLL_BACK: &str = concat!("delete from ledger_postings where table_id = $1 and booking_id in (select id from ledger_bookings where table_id = $1 and move_seq = 7);
    delete from chain_links where table_id = $1 and (entry = 'move' and ref = 7 or entry = 'booking' and ref in (select id from ledger_bookings where table_id = $1 and move_seq = 7));
    delete from ledger_bookings where table_id = $1 and move_seq = 7;
    delete from snapshots where table_id = $1 and seq = 7;
    delete from deal_lines where table_id = $1 and seq = 7;
    delete from moves where table_id = $1 and seq = 7;
    update game_tables set version = 6, chain_head = (select hash from ", links_of_table!(), " order by pos desc limit 1) where id = $1");

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
        None,
    )
    .expect("signed");
    let forged = serde_json::to_value(&forged).expect("json");
    let found = verify_with(&bytes, &[key], &kept(&[forged])).expect_err("another key");
    assert!(found.contains("not among the keys given"), "{found}");

    let mut elsewhere =
        receipts::sign(&stranger, receipt.table, Some(uuid::Uuid::nil()), 0, &head, at, None).expect("signed");
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

#[sqlx::test(migrations = "./migrations")]
async fn opening_a_table_a_correction_a_join_and_a_verification_answer_with_receipts_the_bundle_holds(pool: PgPool) {
    let app = spawn_app(pool).await;
    let evening = a_finished_evening(&app, "ann@club.example").await;
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
    assert!(summary.contains("10 receipts found in the chains"), "{summary}");
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

/// `tablekeeper verify FILE --key KEY --receipts FILE…` as a treasurer runs it at home.
#[sqlx::test(migrations = "./migrations")]
async fn the_binary_checks_receipt_files_and_fails_on_a_rolled_back_chain(pool: PgPool) {
    let app = spawn_app(pool).await;
    let evening = an_evening(&app, "ann@club.example").await;
    let key = hex(server_key(&app).await.as_bytes());
    let dir = std::env::temp_dir();
    let bundle_file = dir.join(format!("tk-receipts-bundle-{}.json", evening.session));
    let receipts_file = dir.join(format!("tk-receipts-{}.json", evening.session));
    // One file of all the receipts as the page downloads them (a phone's Deals tab, the board),
    // and one of a single answer that carried its receipt.
    let download = json!({"table_id": evening.table, "receipts": evening.receipts});
    std::fs::write(&receipts_file, download.to_string()).expect("write");
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

#[sqlx::test(migrations = "./migrations")]
async fn a_table_whose_kept_tree_is_missing_behind_or_damaged_still_answers_the_right_checkpoint(pool: PgPool) {
    // A table written before trees were kept has the empty one (size 0), and one a write left
    // behind is caught up by the next: either way the receipt's checkpoint is the tree of the
    // whole chain, and the table keeps it caught up. Bytes that do not fit their size, or a size
    // beyond the chain, are built again, never read as a wrong root.
    let app = spawn_app(pool.clone()).await;
    let token = app.organiser("ann@club.example").await;
    let table = app
        .table(&token, &["Ann", "Bob", "Cat"], json!({"hand_sizes": [1, 1, 1, 1, 1]}))
        .await;
    let key = server_key(&app).await;
    let result = json!({"kind": "result", "nominations": [1, 0, 1], "tricks": [1, 0, 0]});
    let kept = || async {
        sqlx::query_as::<_, (i64, i32)>(
            "select tree_size, octet_length(tree_frontier) from game_tables where id = $1::uuid",
        )
        .bind(&table)
        .fetch_one(&pool)
        .await
        .expect("the kept tree")
    };
    let first: Receipt =
        serde_json::from_value(accept(&app, &table, &token, result.clone()).await["receipt"].clone()).expect("receipt");
    assert_eq!(kept().await.0, first.position + 1, "kept with the move");

    for broken in [
        "update game_tables set tree_size = 0, tree_frontier = ''::bytea where id = $1::uuid",
        "update game_tables set tree_size = 3, tree_frontier = ''::bytea where id = $1::uuid",
        "update game_tables set tree_size = tree_size + 40 where id = $1::uuid",
    ] {
        sqlx::query(broken)
            .bind(&table)
            .execute(&pool)
            .await
            .expect("the kept tree set back");
        let answer = accept(&app, &table, &token, result.clone()).await;
        let receipt: Receipt = serde_json::from_value(answer["receipt"].clone()).expect("receipt");
        let note = receipt.checkpoint.expect("a checkpoint");
        let (checkpoint, _) = Checkpoint::open(&note, &[key]).expect("signed");
        assert_eq!(checkpoint.size as i64, receipt.position + 1, "{broken}");
        let computed = app.get(&format!("/api/v1/tables/{table}/checkpoint")).await.text;
        assert_eq!(note, computed, "{broken}: the tree of the links as stored");
        let (size, bytes) = kept().await;
        assert_eq!(size, receipt.position + 1, "{broken}: caught up and kept");
        assert_eq!(bytes as u32, 32 * (size as u64).count_ones(), "{broken}");
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn a_receipt_whose_checkpoint_is_not_the_bundled_chains_tree_is_refused(pool: PgPool) {
    // Someone with the signing key issues a receipt whose head is the stored link's but whose
    // checkpoint is of another tree, or of another size: `verify` finds both.
    let app = spawn_app(pool).await;
    let evening = an_evening(&app, "ann@club.example").await;
    let bytes = bundle(&app, &evening.session).await;
    let signing = tablekeeper::service::keys::signing_key(&app.pool, None)
        .await
        .expect("the kept key");
    let key = signing.verifying_key();
    let latest: Receipt = serde_json::from_value(evening.receipts.last().expect("receipt").clone()).expect("receipt");
    let head = tablekeeper::service::bundle::unhex::<32>(&latest.head).expect("hex");
    let at = chrono::Utc::now();
    // The latest receipt issued again, with the checkpoint of the tree whose root is given.
    let issued = |root: Option<&[u8; 32]>| {
        let signer = receipts::ReceiptSigner {
            key: &signing,
            name: "tablekeeper",
        };
        signer
            .sign(latest.table, latest.session, latest.position, &head, at, root)
            .expect("signed")
    };
    let honest_root = {
        let note = latest.checkpoint.as_deref().expect("a checkpoint");
        Checkpoint::open(note, &[key]).expect("opens").0.root
    };
    let same = issued(Some(&honest_root));
    verify_with(&bytes, &[key], &kept(&[serde_json::to_value(&same).expect("json")]))
        .expect("the honest tree verifies");
    verify_with(
        &bytes,
        &[key],
        &kept(&[serde_json::to_value(issued(None)).expect("json")]),
    )
    .expect("a receipt without a checkpoint (issued before trees) verifies as before");

    let forged = issued(Some(&[7; 32]));
    let found =
        verify_with(&bytes, &[key], &kept(&[serde_json::to_value(&forged).expect("json")])).expect_err("another tree");
    assert!(
        found.contains("is not the one") && found.contains("rewritten"),
        "{found}"
    );

    // The honest checkpoint of an earlier size, lifted into a receipt for the latest position.
    let earlier: Receipt = serde_json::from_value(evening.receipts[0].clone()).expect("receipt");
    let mut lifted = serde_json::to_value(&same).expect("json");
    lifted["checkpoint"] = json!(earlier.checkpoint.expect("a checkpoint"));
    lifted.as_object_mut().expect("object").remove("signature");
    let form = {
        let mut out = receipts::DOMAIN.as_bytes().to_vec();
        out.extend_from_slice(tablekeeper::service::chain::canonical(&lifted).as_bytes());
        out
    };
    use ed25519_dalek::Signer;
    lifted["signature"] = json!(hex(&signing.sign(&form).to_bytes()));
    let found = verify_with(&bytes, &[key], &kept(&[lifted])).expect_err("a checkpoint of another size");
    assert!(found.contains("not of table"), "{found}");
}
