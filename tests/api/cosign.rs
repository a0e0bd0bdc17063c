//! Phones cosign their table's checkpoints (issue #43): a phone registers its Ed25519 key and
//! sends C2SP `cosignature/v1` lines; the service keeps only those of checkpoints it signed for
//! that table that verify under the phone's key, lists them with the checkpoint, carries them in
//! the bundle (whose verifier counts who cosigned the last checkpoint) and names the cosigners
//! in the session's final checkpoint. Every refusal is a problem that changes nothing.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::SigningKey;
use reqwest::Method;
use serde_json::{json, Value};
use sqlx::PgPool;
use tablekeeper::service::witness::cosign::{self, Cosignature};

use crate::helpers::{accept, finalised_and_verified, spawn_app, verified_bundle, TestApp};
use crate::scorers::join;

fn play(seat: u8, card: &str) -> Value {
    json!({"kind": "play", "seat": seat, "card": card})
}

/// A phone at a table: its token, its scorer id and its key.
struct Phone {
    token: String,
    scorer: String,
    key: SigningKey,
}

/// A Newmarket table in a session with its layout recorded; the organiser's token, the
/// session's id and the table's id.
async fn a_table(app: &TestApp) -> (String, String, String) {
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Friday").await;
    let body = json!({"game": "newmarket", "players": ["Ann", "Bob", "Cat", "Dan"], "session_id": session});
    let table = app.post("/api/v1/tables", &token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let layout = json!({"kind": "layout", "pool_cards": ["JD", "QH", "KC", "AS"], "stakes": ["AS", "KC", "QH", "JD"]});
    accept(app, &table, &token, layout).await;
    (token, session, table)
}

/// A phone that joined `table` as `name` and registered a key made from `seed`.
async fn a_phone(app: &TestApp, organiser: &str, table: &str, name: &str, seed: u8) -> Phone {
    let joined = join(app, organiser, table, Some(name)).await;
    let phone = Phone {
        token: joined["token"].as_str().expect("token").to_owned(),
        scorer: joined["scorer_id"].as_str().expect("scorer id").to_owned(),
        key: SigningKey::from_bytes(&[seed; 32]),
    };
    let public_key = STANDARD.encode(phone.key.verifying_key().as_bytes());
    let registered = app
        .post(
            &format!("/api/v1/tables/{table}/phone-key"),
            &phone.token,
            json!({"public_key": public_key}),
        )
        .await
        .assert_status(201)
        .clone();
    assert_eq!(registered["public_key"], public_key);
    assert_eq!(registered["name"], name);
    phone
}

/// A phone joins `table`, registers a key and cosigns the table's checkpoint now.
pub async fn a_cosigning_phone(app: &TestApp, organiser: &str, table: &str) {
    let phone = a_phone(app, organiser, table, "Witness", 42).await;
    let note = checkpoint_note(app, table).await;
    submit(
        app,
        table,
        &phone.token,
        &note,
        &cosign_line(&phone, &note, 1_767_225_600),
    )
    .await
    .assert_status(201);
}

/// The session's board (opened with a share link) registers a key and cosigns `table`'s
/// checkpoint now.
pub async fn a_cosigning_board(app: &TestApp, organiser: &str, session: &str, table: &str) {
    let share = share_link(app, organiser, session).await;
    let (board, key) = a_board(app, session, &share, "Board", 43).await;
    let note = checkpoint_note(app, table).await;
    submit_as_board(
        app,
        table,
        &share,
        &note,
        &board_line(&board, &key, &note, 1_767_225_600),
    )
    .await
    .assert_status(201);
}

async fn checkpoint_note(app: &TestApp, table: &str) -> String {
    app.get(&format!("/api/v1/tables/{table}/checkpoint"))
        .await
        .assert_status(200);
    app.get(&format!("/api/v1/tables/{table}/checkpoint")).await.text
}

/// `phone`'s cosignature line of `note` at `time`, as the phone page makes it.
fn cosign_line(phone: &Phone, note: &str, time: u64) -> String {
    let name = cosign::phone_name("tablekeeper", phone.scorer.parse().expect("uuid"));
    Cosignature::sign(cosign::body_of(note), &name, &phone.key, time).line()
}

async fn submit(app: &TestApp, table: &str, token: &str, note: &str, line: &str) -> crate::helpers::Answer {
    app.post(
        &format!("/api/v1/tables/{table}/cosignatures"),
        token,
        json!({"checkpoint": note, "cosignature": line}),
    )
    .await
}

fn size_of(note: &str) -> u64 {
    note.lines().nth(1).and_then(|l| l.parse().ok()).expect("a size line")
}

async fn kept_cosignatures(pool: &PgPool) -> (i64, i64) {
    let cosignatures: i64 = sqlx::query_scalar("select count(*) from cosignatures")
        .fetch_one(pool)
        .await
        .expect("count");
    let keys: i64 = sqlx::query_scalar("select count(*) from phone_keys")
        .fetch_one(pool)
        .await
        .expect("count");
    (cosignatures, keys)
}

#[sqlx::test(migrations = "./migrations")]
async fn phones_cosign_the_checkpoint_and_the_bundle_and_final_checkpoint_name_them(pool: PgPool) {
    // Arrange: three phones with keys at a table played a little.
    let app = spawn_app(pool).await;
    let (organiser, session, table) = a_table(&app).await;
    let ann = a_phone(&app, &organiser, &table, "Ann's phone", 1).await;
    let bob = a_phone(&app, &organiser, &table, "Bob's phone", 2).await;
    let _cat = a_phone(&app, &organiser, &table, "Cat's phone", 3).await;
    for (seat, card) in [(1, "QS"), (2, "KS")] {
        accept(&app, &table, &organiser, play(seat, card)).await;
    }
    let note = checkpoint_note(&app, &table).await;
    let size = size_of(&note);

    // Act: two of them cosign it (Ann twice, which counts once).
    let first = submit(
        &app,
        &table,
        &ann.token,
        &note,
        &cosign_line(&ann, &note, 1_767_225_600),
    )
    .await;
    first.assert_status(201);
    assert_eq!(
        first.headers["location"],
        format!("/api/v1/tables/{table}/checkpoints/{size}").as_str(),
        "the checkpoint's address"
    );
    submit(
        &app,
        &table,
        &ann.token,
        &note,
        &cosign_line(&ann, &note, 1_767_225_601),
    )
    .await
    .assert_status(201);
    submit(
        &app,
        &table,
        &bob.token,
        &note,
        &cosign_line(&bob, &note, 1_767_225_602),
    )
    .await
    .assert_status(201);
    let listed = app
        .get(&format!("/api/v1/tables/{table}/checkpoints/{size}"))
        .await
        .assert_status(200)
        .clone();

    // Assert: the checkpoint lists who cosigned, with which key and when, and its note carries
    // the lines after the service's own signature, each one verifying.
    assert_eq!(listed["phones"], 3);
    assert_eq!(listed["checkpoint"]["note"], note.as_str());
    let cosignatures = listed["cosignatures"].as_array().expect("list");
    let names: Vec<&str> = cosignatures.iter().map(|c| c["name"].as_str().expect("name")).collect();
    assert_eq!(names, ["Ann's phone", "Ann's phone", "Bob's phone"]);
    assert_eq!(cosignatures[2]["time"], 1_767_225_602);
    assert_eq!(cosignatures[2]["scorer_id"], bob.scorer.as_str());
    assert_eq!(listed["contradicted_by"], json!([]));
    let carried = listed["note"].as_str().expect("note");
    assert_eq!(carried.lines().filter(|l| l.starts_with('\u{2014}')).count(), 4);
    let body = cosign::body_of(carried);
    for line in carried.lines().filter(|l| l.contains("/phones/")) {
        let c = Cosignature::parse(line).expect("a cosignature line");
        let key = if line.contains(&ann.scorer) { &ann.key } else { &bob.key };
        c.check(body, &key.verifying_key()).expect("verifies");
    }

    // The bundle carries them and its verifier counts who cosigned the last checkpoint.
    let (bytes, _) = verified_bundle(&app, &session).await;
    let said = tablekeeper::service::bundle::verify(&bytes, None).expect("verifies");
    assert!(
        said.contains(&format!("table {table}'s last checkpoint cosigned by 2 of 3 phones")),
        "{said}"
    );

    // The final checkpoint names who cosigned each table's last checkpoint.
    let kept = finalised_and_verified(&app, &organiser, &session).await;
    let cosigned_by = kept["checkpoint"]["tables"][0]["cosigned_by"].clone();
    let named: Vec<&str> = cosigned_by
        .as_array()
        .expect("cosigned_by")
        .iter()
        .map(|c| c["name"].as_str().expect("name"))
        .collect();
    assert_eq!(named, ["Ann's phone", "Bob's phone"]);

    // Bob's cosignature taken out of the bundle, signed again with the service's own key: the
    // final checkpoint names him, and the verifier says his cosignature is missing.
    use ed25519_dalek::Signer as _;
    use tablekeeper::service::chain::{canonical, hex};
    let (_, document) = verified_bundle(&app, &session).await;
    let key = tablekeeper::service::keys::signing_key(&app.pool, None)
        .await
        .expect("the kept key");
    let mut forged = document.clone();
    forged.as_object_mut().expect("object").remove("signature");
    forged["tables"][0]["cosignatures"]
        .as_array_mut()
        .expect("cosignatures")
        .retain(|c| c["scorer_id"] != bob.scorer.as_str());
    let signature = key.sign(canonical(&forged).as_bytes());
    forged["signature"] = json!({"algorithm": "ed25519", "public_key": hex(key.verifying_key().as_bytes()),
                                 "value": hex(&signature.to_bytes())});
    let found = tablekeeper::service::bundle::verify_checked(
        canonical(&forged).as_bytes(),
        &[key.verifying_key()],
        &[],
        std::slice::from_ref(&kept),
    )
    .expect_err("a named cosigner's cosignature taken out");
    assert!(
        found.contains("no such cosignature") && found.contains(&bob.scorer),
        "{found}"
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn a_refused_cosignature_is_a_problem_that_keeps_nothing(pool: PgPool) {
    // Arrange: a phone with a key, one without, a phone of another table.
    let app = spawn_app(pool.clone()).await;
    let (organiser, session, table) = a_table(&app).await;
    let ann = a_phone(&app, &organiser, &table, "Ann's phone", 1).await;
    let keyless = join(&app, &organiser, &table, Some("No key")).await["token"]
        .as_str()
        .expect("token")
        .to_owned();
    let other_table = app
        .post(
            "/api/v1/tables",
            &organiser,
            json!({"game": "newmarket", "players": ["Eve", "Fay", "Gus", "Hal"], "session_id": session}),
        )
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let stranger = a_phone(&app, &organiser, &other_table, "Eve's phone", 9).await;
    accept(&app, &table, &organiser, play(1, "QS")).await;
    let note = checkpoint_note(&app, &table).await;
    let size = size_of(&note);
    let good = cosign_line(&ann, &note, 100);
    let before = kept_cosignatures(&pool).await;

    // Act and assert: each refusal by its code.
    let mut forged = STANDARD
        .decode(good.rsplit_once(' ').expect("fields").1)
        .expect("base64");
    forged[20] ^= 1;
    let forged = format!(
        "{} {}",
        good.rsplit_once(' ').expect("fields").0,
        STANDARD.encode(forged)
    );
    submit(&app, &table, &ann.token, &note, &forged)
        .await
        .assert_problem(422, "cosignature_invalid");
    // Signed by another phone's key under Ann's name.
    let other_key = Phone {
        token: String::new(),
        scorer: ann.scorer.clone(),
        key: SigningKey::from_bytes(&[5; 32]),
    };
    submit(&app, &table, &ann.token, &note, &cosign_line(&other_key, &note, 100))
        .await
        .assert_problem(422, "cosignature_invalid");
    // A checkpoint of a size the tree does not have yet.
    let beyond = note.replacen(&format!("\n{size}\n"), &format!("\n{}\n", size + 5), 1);
    submit(&app, &table, &ann.token, &beyond, &cosign_line(&ann, &beyond, 100))
        .await
        .assert_problem(404, "checkpoint_not_found");
    // A checkpoint of that size with a root the service never signed (a fork's).
    let root = note.lines().nth(2).expect("root");
    let other_root = STANDARD.encode([7u8; 32]);
    let forked = note.replacen(root, &other_root, 1);
    submit(&app, &table, &ann.token, &forked, &cosign_line(&ann, &forked, 100))
        .await
        .assert_problem(422, "checkpoint_not_signed");
    submit(&app, &table, &ann.token, &note, "a cosignature")
        .await
        .assert_problem(422, "cosignature_malformed");
    // Dated more than five minutes ahead of the service's clock; five minutes ahead is a
    // phone's drift (kept below, with the good line).
    let ahead = chrono::Utc::now().timestamp() as u64 + 3_600;
    submit(&app, &table, &ann.token, &note, &cosign_line(&ann, &note, ahead))
        .await
        .assert_problem(422, "cosignature_from_the_future");
    // The phone of another table, the phone without a key, the organiser, a second key.
    submit(
        &app,
        &table,
        &stranger.token,
        &note,
        &cosign_line(&stranger, &note, 100),
    )
    .await
    .assert_problem(403, "phone_of_another_table");
    submit(&app, &table, &keyless, &note, &good)
        .await
        .assert_problem(409, "phone_key_missing");
    submit(&app, &table, &organiser, &note, &good)
        .await
        .assert_problem(403, "not_a_phone");
    app.post(
        &format!("/api/v1/tables/{table}/phone-key"),
        &ann.token,
        json!({"public_key": STANDARD.encode(SigningKey::from_bytes(&[6; 32]).verifying_key().as_bytes())}),
    )
    .await
    .assert_problem(409, "phone_key_taken");
    app.post(
        &format!("/api/v1/tables/{table}/phone-key"),
        &keyless,
        json!({"public_key": "c2hvcnQ="}),
    )
    .await
    .assert_problem(422, "invalid_phone_key");
    app.get(&format!("/api/v1/tables/{table}/checkpoints/{}", size + 1))
        .await
        .assert_problem(404, "checkpoint_not_found");
    app.get(&format!("/api/v1/tables/{table}/checkpoints/0"))
        .await
        .assert_problem(404, "checkpoint_not_found");

    // Nothing was kept; the same key again is answered as registered; the good line is kept.
    assert_eq!(kept_cosignatures(&pool).await, before);
    app.request(
        Method::POST,
        &format!("/api/v1/tables/{table}/phone-key"),
        Some(&ann.token),
        Some(json!({"public_key": STANDARD.encode(ann.key.verifying_key().as_bytes())})),
    )
    .await
    .assert_status(200);
    submit(&app, &table, &ann.token, &note, &good).await.assert_status(201);
    assert_eq!(kept_cosignatures(&pool).await, (before.0 + 1, before.1));
    let drifted = chrono::Utc::now().timestamp() as u64 + 240;
    submit(&app, &table, &ann.token, &note, &cosign_line(&ann, &note, drifted))
        .await
        .assert_status(201);
    assert_eq!(kept_cosignatures(&pool).await, (before.0 + 2, before.1));
}

#[sqlx::test(migrations = "./migrations")]
async fn a_bundle_carrying_a_phones_cosignature_of_another_tree_is_refused_as_a_fork(pool: PgPool) {
    // Arrange: a phone's cosignature, then rewritten in the database into one (by the phone's
    // own key) of another tree of the same size: what a phone shown another history would hold.
    let app = spawn_app(pool.clone()).await;
    let (organiser, session, table) = a_table(&app).await;
    let ann = a_phone(&app, &organiser, &table, "Ann's phone", 1).await;
    accept(&app, &table, &organiser, play(1, "QS")).await;
    let note = checkpoint_note(&app, &table).await;
    submit(&app, &table, &ann.token, &note, &cosign_line(&ann, &note, 100))
        .await
        .assert_status(201);
    let (bytes, _) = verified_bundle(&app, &session).await;
    assert!(tablekeeper::service::bundle::verify(&bytes, None)
        .expect("verifies")
        .contains("cosigned by 1 of 1 phones"));
    let root = note.lines().nth(2).expect("root").to_owned();
    let other = [9u8; 32];
    let forked = note.replacen(&root, &STANDARD.encode(other), 1);
    let line = Cosignature::parse(&cosign_line(&ann, &forked, 200)).expect("a line");
    sqlx::query("update cosignatures set root_hash = $1, signed_time = 200, signature = $2 where scorer_id = $3")
        .bind(other.to_vec())
        .bind(line.signature.to_vec())
        .bind(ann.scorer.parse::<uuid::Uuid>().expect("uuid"))
        .execute(&pool)
        .await
        .expect("rewritten");

    // Act: the bundle as served now, checked offline.
    let bytes = app
        .as_reader(
            app.client
                .get(format!("{}/api/v1/sessions/{session}/audit-bundle", app.base)),
        )
        .send()
        .await
        .expect("request")
        .bytes()
        .await
        .expect("body");
    let refused = tablekeeper::service::bundle::verify(&bytes, None).expect_err("a fork");

    // Assert: the verifier names the phone and the fork; the service lists the cosignature apart.
    assert!(
        refused.contains("Ann's phone") && refused.contains("(a fork)"),
        "{refused}"
    );
    let size = size_of(&note);
    let listed = app.get(&format!("/api/v1/tables/{table}/checkpoints/{size}")).await;
    let listed = listed.assert_status(200);
    assert_eq!(listed["cosignatures"], json!([]));
    assert_eq!(listed["contradicted_by"][0]["root_hash"], STANDARD.encode(other));
}

/// A share link of `session`, as the board is opened with: its token.
async fn share_link(app: &TestApp, organiser: &str, session: &str) -> String {
    app.post(&format!("/api/v1/sessions/{session}/share-links"), organiser, json!({}))
        .await
        .assert_status(201)["token"]
        .as_str()
        .expect("token")
        .to_owned()
}

/// A board of `session` (opened with `token`: a share link's or a member's) with a key made
/// from `seed`: its id as its cosignatures name it, and its key.
async fn a_board(app: &TestApp, session: &str, token: &str, name: &str, seed: u8) -> (String, SigningKey) {
    let key = SigningKey::from_bytes(&[seed; 32]);
    let public_key = STANDARD.encode(key.verifying_key().as_bytes());
    let registered = app
        .post(
            &format!("/api/v1/sessions/{session}/board-key"),
            token,
            json!({"public_key": public_key, "name": name}),
        )
        .await
        .assert_status(201)
        .clone();
    assert_eq!(registered["public_key"], public_key);
    assert_eq!(registered["session_id"], session);
    let board = registered["board_id"].as_str().expect("board id").to_owned();
    assert_eq!(registered["cosigner"], format!("tablekeeper/boards/{board}"));
    (board, key)
}

fn board_line(board: &str, key: &SigningKey, note: &str, time: u64) -> String {
    let name = cosign::board_name("tablekeeper", board.parse().expect("uuid"));
    Cosignature::sign(cosign::body_of(note), &name, key, time).line()
}

async fn submit_as_board(app: &TestApp, table: &str, token: &str, note: &str, line: &str) -> crate::helpers::Answer {
    app.post(
        &format!("/api/v1/tables/{table}/board-cosignatures"),
        token,
        json!({"checkpoint": note, "cosignature": line}),
    )
    .await
}

async fn kept_of_boards(pool: &PgPool) -> (i64, i64) {
    let count = |relation: &str| format!("select count(*) from {relation}");
    let cosignatures: i64 = sqlx::query_scalar(&count("board_cosignatures"))
        .fetch_one(pool)
        .await
        .expect("count");
    let keys: i64 = sqlx::query_scalar(&count("board_keys"))
        .fetch_one(pool)
        .await
        .expect("count");
    (cosignatures, keys)
}

#[sqlx::test(migrations = "./migrations")]
async fn the_board_cosigns_every_table_of_its_session_beside_the_phones(pool: PgPool) {
    // Arrange: a table with a phone, played a little; the session's share link opens the board.
    let app = spawn_app(pool).await;
    let (organiser, session, table) = a_table(&app).await;
    let ann = a_phone(&app, &organiser, &table, "Ann's phone", 1).await;
    accept(&app, &table, &organiser, play(1, "QS")).await;
    let share = share_link(&app, &organiser, &session).await;
    let note = checkpoint_note(&app, &table).await;
    let size = size_of(&note);

    // Act: the board registers its key (and again: the same board), and it and Ann cosign.
    let (board, key) = a_board(&app, &session, &share, "Room 2 board", 7).await;
    let again = app
        .post(
            &format!("/api/v1/sessions/{session}/board-key"),
            &share,
            json!({"public_key": STANDARD.encode(key.verifying_key().as_bytes())}),
        )
        .await
        .assert_status(200)
        .clone();
    assert_eq!(again["board_id"], board.as_str(), "a board is known by its key");
    submit(
        &app,
        &table,
        &ann.token,
        &note,
        &cosign_line(&ann, &note, 1_767_225_600),
    )
    .await
    .assert_status(201);
    let kept = submit_as_board(
        &app,
        &table,
        &share,
        &note,
        &board_line(&board, &key, &note, 1_767_225_601),
    )
    .await;
    kept.assert_status(201);
    assert_eq!(
        kept.headers["location"],
        format!("/api/v1/tables/{table}/checkpoints/{size}").as_str()
    );

    // Assert: the checkpoint lists the board beside the phone, and its note carries both lines.
    let listed = app
        .get(&format!("/api/v1/tables/{table}/checkpoints/{size}"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(
        (listed["phones"].clone(), listed["boards"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(listed["board_cosignatures"][0]["board_id"], board.as_str());
    assert_eq!(listed["board_cosignatures"][0]["name"], "Room 2 board");
    assert_eq!(listed["board_cosignatures"][0]["time"], 1_767_225_601);
    assert_eq!(listed["contradicted_by_boards"], json!([]));
    let carried = listed["note"].as_str().expect("note");
    let line = carried
        .lines()
        .find(|l| l.contains("/boards/"))
        .expect("the board's line in the note");
    Cosignature::parse(line)
        .expect("a cosignature line")
        .check(cosign::body_of(carried), &key.verifying_key())
        .expect("verifies");

    // The bundle's verifier counts the board, and the final checkpoint names it.
    let (bytes, _) = verified_bundle(&app, &session).await;
    let said = tablekeeper::service::bundle::verify(&bytes, None).expect("verifies");
    assert!(
        said.contains(&format!(
            "table {table}'s last checkpoint cosigned by 1 of 1 phones and 1 of 1 boards"
        )),
        "{said}"
    );
    let closed = finalised_and_verified(&app, &organiser, &session).await;
    let named: Vec<String> = closed["checkpoint"]["tables"][0]["cosigned_by"]
        .as_array()
        .expect("cosigned_by")
        .iter()
        .map(|c| format!("{}:{}", c["name"].as_str().unwrap_or("?"), c.get("board").is_some()))
        .collect();
    assert_eq!(named, ["Ann's phone:false", "Room 2 board:true"]);

    // A board's cosignature taken out of the bundle, signed again: the final checkpoint names
    // the board, and the verifier says its cosignature is missing.
    use ed25519_dalek::Signer as _;
    use tablekeeper::service::chain::{canonical, hex};
    let (_, document) = verified_bundle(&app, &session).await;
    let service = tablekeeper::service::keys::signing_key(&app.pool, None)
        .await
        .expect("the kept key");
    let mut forged = document.clone();
    forged.as_object_mut().expect("object").remove("signature");
    forged["tables"][0]
        .as_object_mut()
        .expect("table")
        .remove("board_cosignatures");
    let signature = service.sign(canonical(&forged).as_bytes());
    forged["signature"] = json!({"algorithm": "ed25519", "public_key": hex(service.verifying_key().as_bytes()),
                                 "value": hex(&signature.to_bytes())});
    let found = tablekeeper::service::bundle::verify_checked(
        canonical(&forged).as_bytes(),
        &[service.verifying_key()],
        &[],
        std::slice::from_ref(&closed),
    )
    .expect_err("a named board's cosignature taken out");
    assert!(
        found.contains(&format!("board {board}")) && found.contains("no such cosignature"),
        "{found}"
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn a_refused_board_key_or_board_cosignature_is_a_problem_that_keeps_nothing(pool: PgPool) {
    // Arrange: a table of a session, its share link, a board registered, a phone at the table,
    // and another session's share link.
    let app = spawn_app(pool).await;
    let (organiser, session, table) = a_table(&app).await;
    let share = share_link(&app, &organiser, &session).await;
    let other_session = app.session(&organiser, "Saturday").await;
    let other_share = share_link(&app, &organiser, &other_session).await;
    let (board, key) = a_board(&app, &session, &share, "Board", 7).await;
    let (stranger, stranger_key) = a_board(&app, &other_session, &other_share, "Board", 8).await;
    let phone = a_phone(&app, &organiser, &table, "Ann's phone", 1).await;
    let note = checkpoint_note(&app, &table).await;
    let before = kept_of_boards(&app.pool).await;
    let key_of = |seed: u8| STANDARD.encode(SigningKey::from_bytes(&[seed; 32]).verifying_key().as_bytes());
    let board_key = format!("/api/v1/sessions/{session}/board-key");

    // Act and assert: each refusal is a problem with its code.
    let refusals = [
        (
            app.post(&board_key, &share, json!({"public_key": "bm90IGEga2V5"}))
                .await,
            422,
            "invalid_board_key",
        ),
        (
            app.post(&board_key, &share, json!({"public_key": key_of(9), "name": "  "}))
                .await,
            422,
            "invalid_board_name",
        ),
        (
            app.post(
                &board_key,
                &share,
                json!({"public_key": key_of(9), "name": "x".repeat(61)}),
            )
            .await,
            422,
            "invalid_board_name",
        ),
        // A phone reads its table, not the evening around it; another session's link, nothing.
        (
            app.post(&board_key, &phone.token, json!({"public_key": key_of(9)}))
                .await,
            404,
            "session_not_found",
        ),
        (
            app.post(&board_key, &other_share, json!({"public_key": key_of(9)}))
                .await,
            404,
            "session_not_found",
        ),
        // A board of another session, signing this table's checkpoint.
        (
            submit_as_board(
                &app,
                &table,
                &share,
                &note,
                &board_line(&stranger, &stranger_key, &note, 1_767_225_600),
            )
            .await,
            422,
            "cosignature_invalid",
        ),
        // Signed as this session's board, with another key.
        (
            submit_as_board(
                &app,
                &table,
                &share,
                &note,
                &board_line(&board, &stranger_key, &note, 1_767_225_600),
            )
            .await,
            422,
            "cosignature_invalid",
        ),
        // Signed as a phone, sent as a board's.
        (
            submit_as_board(&app, &table, &share, &note, &cosign_line(&phone, &note, 1_767_225_600)).await,
            422,
            "cosignature_invalid",
        ),
        (
            submit_as_board(
                &app,
                &table,
                &other_share,
                &note,
                &board_line(&board, &key, &note, 1_767_225_600),
            )
            .await,
            404,
            "table_not_found",
        ),
        (
            submit_as_board(
                &app,
                &table,
                &share,
                &note,
                &board_line(&board, &key, &note, 4_000_000_000),
            )
            .await,
            422,
            "cosignature_from_the_future",
        ),
    ];
    for (i, (answer, status, code)) in refusals.iter().enumerate() {
        answer.assert_status(*status);
        assert_eq!(answer.body["code"], *code, "refusal {i}: {}", answer.text);
    }
    assert_eq!(kept_of_boards(&app.pool).await, before, "a refusal keeps nothing");

    // A session takes 16 boards at most; the 17th is refused and nothing is kept.
    for seed in 20..35 {
        a_board(&app, &session, &share, "Board", seed).await;
    }
    let before = kept_of_boards(&app.pool).await;
    assert_eq!(before.1, 17, "16 boards of this session and the other session's one");
    let seventeenth = app.post(&board_key, &share, json!({"public_key": key_of(40)})).await;
    seventeenth.assert_status(409);
    assert_eq!(seventeenth.body["code"], "too_many_boards");
    assert_eq!(kept_of_boards(&app.pool).await, before);
    // A board already registered is still answered as registered.
    app.post(&board_key, &share, json!({"public_key": key_of(7)}))
        .await
        .assert_status(200);
}
