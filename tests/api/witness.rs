//! A table is its own witness (issue #43, first slice): its chain links are the leaves of a
//! Merkle tree whose checkpoints the audit key signs in the C2SP signed-note format; one move's
//! inclusion proof and a consistency proof between two sizes are checked with the verifier
//! `tablekeeper verify --inclusion` runs, offline; bad sizes are problems that change nothing;
//! tables written before the tree existed have one, with no migration.

use std::process::Command;

use ed25519_dalek::SigningKey;
use reqwest::Method;
use serde::Deserialize;
use serde_json::{json, Value};
use sqlx::PgPool;
use tablekeeper::service::witness::{self, ConsistencyProof, InclusionProof};

use crate::evidence::server_key;
use crate::helpers::{accept, spawn_app, Answer, TestApp};

fn play(seat: u8, card: &str) -> Value {
    json!({"kind": "play", "seat": seat, "card": card})
}

/// A Newmarket table in a session, its layout and four plays recorded (log entries 1 to 5); the
/// organiser's token and the table's id.
async fn a_table(app: &TestApp) -> (String, String) {
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Friday").await;
    let body = json!({"game": "newmarket", "players": ["Ann", "Bob", "Cat", "Dan"], "session_id": session});
    let created = app
        .post("/api/v1/tables", &token, body)
        .await
        .assert_status(201)
        .clone();
    let table = created["id"].as_str().expect("id").to_owned();
    let layout = json!({"kind": "layout", "pool_cards": ["JD", "QH", "KC", "AS"], "stakes": ["AS", "KC", "QH", "JD"]});
    accept(app, &table, &token, layout).await;
    for (seat, card) in [(1, "QS"), (2, "KS"), (2, "JC"), (3, "QC")] {
        accept(app, &table, &token, play(seat, card)).await;
    }
    (token, table)
}

async fn checkpoint(app: &TestApp, table: &str, query: &str) -> String {
    let answer = app.get(&format!("/api/v1/tables/{table}/checkpoint{query}")).await;
    answer.assert_status(200);
    assert!(answer.content_type.starts_with("text/plain"), "{}", answer.content_type);
    answer.text
}

async fn proof(app: &TestApp, table: &str, seq: i64, query: &str) -> InclusionProof {
    let answer = app
        .get(&format!("/api/v1/tables/{table}/moves/{seq}/proof{query}"))
        .await;
    serde_json::from_value(answer.assert_status(200).clone()).expect("an inclusion proof")
}

async fn consistency(app: &TestApp, table: &str, query: &str) -> ConsistencyProof {
    let answer = app.get(&format!("/api/v1/tables/{table}/consistency{query}")).await;
    serde_json::from_value(answer.assert_status(200).clone()).expect("a consistency proof")
}

/// The size a checkpoint states (its second line).
fn size_of(note: &str) -> u64 {
    note.lines().nth(1).and_then(|l| l.parse().ok()).expect("a size line")
}

#[sqlx::test(migrations = "./migrations")]
async fn a_move_is_proven_in_its_tables_tree_and_the_tree_only_grows(pool: PgPool) {
    // Arrange: a table played a little, and its checkpoint then.
    let app = spawn_app(pool).await;
    let (token, table) = a_table(&app).await;
    let key = server_key(&app).await;
    let then = checkpoint(&app, &table, "").await;
    let before = size_of(&then);
    let receipt = accept(&app, &table, &token, play(3, "KD")).await["receipt"].clone();

    // Act: the checkpoint now, a proof of the layout (entry 1) at the current size, and the
    // consistency of the earlier tree with the current one.
    let now = checkpoint(&app, &table, "").await;
    let proven = proof(&app, &table, 1, "").await;
    let grown = consistency(&app, &table, &format!("?from={before}")).await;

    // Assert: the checkpoint is a signed note of this table's tree, as long as its chain.
    let lines: Vec<&str> = now.lines().collect();
    assert_eq!(lines[0], format!("tablekeeper/tables/{table}"));
    assert_eq!(lines[3], "", "a blank line before the signature");
    assert!(lines[4].starts_with("\u{2014} tablekeeper "), "{now}");
    let size = size_of(&now);
    assert_eq!(
        size,
        receipt["position"].as_u64().expect("position") + 1,
        "a leaf per link"
    );
    assert!(size > before);
    assert_eq!(proven.tree_size, size);
    assert_eq!((proven.link.entry.as_str(), proven.link.reference), ("move", 1));
    assert_eq!(
        proven.checkpoint.note, now,
        "the proof carries the checkpoint of its size"
    );
    let said = witness::verify_inclusion(&proven, &now, &[key]).expect("the move is in the tree");
    assert!(said.starts_with("yes: "), "{said}");
    assert_eq!(
        grown.from_checkpoint.note, then,
        "the earlier checkpoint as it was signed then"
    );
    assert_eq!(grown.to_checkpoint.note, now);
    witness::verify_consistency(&grown, &[key]).expect("the earlier tree is the start of the current one");

    // An earlier size's proof verifies against the earlier checkpoint.
    let old_proof = proof(&app, &table, 1, &format!("?size={before}")).await;
    witness::verify_inclusion(&old_proof, &then, &[key]).expect("proven in the earlier tree");
    assert_eq!(checkpoint(&app, &table, &format!("?size={before}")).await, then);

    // The last link is the chain's head: the newest move's leaf is the receipt's head.
    let newest = proof(&app, &table, 6, "").await;
    assert_eq!(Some(newest.link.hash.as_str()), receipt["head"].as_str());
    assert_eq!(newest.leaf_index + 1, size);
}

/// A scratch folder for files handed to the binary, and a function writing one there (its path).
fn scratch(name: &str) -> (std::path::PathBuf, impl Fn(&str, &str) -> String) {
    let dir = std::env::temp_dir().join(name);
    std::fs::create_dir_all(&dir).expect("dir");
    let at = dir.clone();
    (dir, move |file: &str, content: &str| {
        let path = at.join(file);
        std::fs::write(&path, content).expect("write");
        path.to_str().expect("path").to_owned()
    })
}

/// `tablekeeper ARGS` run offline (no database): its exit status, stdout and stderr.
fn run_binary(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tablekeeper"))
        .args(args)
        .env_remove("DATABASE_URL")
        .output()
        .expect("run");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[sqlx::test(migrations = "./migrations")]
async fn the_binary_says_yes_to_a_kept_proof_and_no_to_a_forged_one(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (_token, table) = a_table(&app).await;
    let key = server_key(&app).await;
    let key_hex = tablekeeper::service::chain::hex(key.as_bytes());
    let note = checkpoint(&app, &table, "").await;
    let answer = app.get(&format!("/api/v1/tables/{table}/moves/3/proof")).await;
    let saved = answer.text.clone();
    answer.assert_status(200);

    let (dir, file) = scratch(&format!("tk-witness-{table}"));
    let run = |proof: &str, checkpoint: &str, key: Option<&str>| {
        let mut args = vec!["verify", "--inclusion", proof, "--checkpoint", checkpoint];
        if let Some(key) = key {
            args.extend(["--key", key]);
        }
        run_binary(&args)
    };
    let proof_file = file("proof.json", &saved);
    let note_file = file("checkpoint.txt", &note);

    // Yes, with the key given, with none (the proof's own, said so), and with the checkpoint
    // as the proof answer carries it.
    let (status, out, err) = run(&proof_file, &note_file, Some(&key_hex));
    assert_eq!(status, Some(0), "{out} {err}");
    // The proof carries what the entry was, and the verifier says it: Cat's K♠.
    assert!(out.starts_with("yes: log entry 3 (play "), "{out}");
    assert!(out.contains("\"KS\""), "{out}");
    assert_eq!(out.lines().count(), 1);
    let (status, out, _) = run(&proof_file, &note_file, None);
    assert_eq!(status, Some(0));
    assert!(out.contains("taken at its word"), "{out}");
    assert_eq!(
        run(&proof_file, &proof_file, Some(&key_hex)).0,
        Some(0),
        "the proof's own checkpoint"
    );

    // No: each forgery, one sentence, status 1.
    let document: Value = serde_json::from_str(&saved).expect("json");
    let mut truncated = document.clone();
    truncated["hashes"].as_array_mut().expect("hashes").pop();
    let mut extra = document.clone();
    extra["hashes"]
        .as_array_mut()
        .expect("hashes")
        .push(json!(document["checkpoint"]["root_hash"]));
    // Another entry's content shown with this entry's proof.
    let mut shown_wrong = document.clone();
    shown_wrong["content"] = json!(document["content"]
        .as_str()
        .expect("the proof carries the entry's content")
        .replace("\"KS\"", "\"AS\""));
    let other_entry = app
        .get(&format!("/api/v1/tables/{table}/moves/4/proof"))
        .await
        .assert_status(200)
        .clone();
    let mut another = document.clone();
    another["seq"] = other_entry["seq"].clone();
    another["link"] = other_entry["link"].clone();
    another["leaf_data"] = other_entry["leaf_data"].clone();
    another["content"] = other_entry["content"].clone();
    let stranger = SigningKey::from_bytes(&[5; 32]);
    let stranger_hex = tablekeeper::service::chain::hex(stranger.verifying_key().as_bytes());
    // The server's key is the one kept in the database (no seed configured): the test signs
    // with it what the server never would.
    let audit_key = tablekeeper::service::keys::signing_key(&app.pool, None)
        .await
        .expect("the kept key");
    assert_eq!(audit_key.verifying_key(), key);
    let (honest, _) = witness::Checkpoint::open(&note, &[key]).expect("the server's checkpoint");
    let size = honest.size;
    let forged_root = witness::Checkpoint {
        root: [0; 32],
        ..honest.clone()
    }
    .sign("tablekeeper", &audit_key);
    let elsewhere = witness::Checkpoint {
        origin: format!("tablekeeper/tables/{}", uuid::Uuid::nil()),
        ..honest.clone()
    }
    .sign("tablekeeper", &audit_key);
    let by_stranger = honest.sign("tablekeeper", &stranger);
    let smaller = checkpoint(&app, &table, &format!("?size={}", size - 1)).await;
    let cases = [
        (
            "a truncated proof",
            file("truncated.json", &truncated.to_string()),
            note_file.clone(),
            key_hex.clone(),
        ),
        (
            "a hash too many",
            file("extra.json", &extra.to_string()),
            note_file.clone(),
            key_hex.clone(),
        ),
        (
            "another card shown",
            file("shown-wrong.json", &shown_wrong.to_string()),
            note_file.clone(),
            key_hex.clone(),
        ),
        (
            "another entry",
            file("another.json", &another.to_string()),
            note_file.clone(),
            key_hex.clone(),
        ),
        (
            "a forged root",
            proof_file.clone(),
            file("forged.txt", &forged_root),
            key_hex.clone(),
        ),
        ("another key given", proof_file.clone(), note_file.clone(), stranger_hex),
        (
            "another key's signature",
            proof_file.clone(),
            file("stranger.txt", &by_stranger),
            key_hex.clone(),
        ),
        (
            "a size mismatch",
            proof_file.clone(),
            file("smaller.txt", &smaller),
            key_hex.clone(),
        ),
        (
            "another origin",
            proof_file.clone(),
            file("elsewhere.txt", &elsewhere),
            key_hex.clone(),
        ),
        ("not a proof", note_file.clone(), note_file.clone(), key_hex.clone()),
    ];
    for (what, proof, checkpoint, key) in cases {
        let (status, out, err) = run(&proof, &checkpoint, Some(&key));
        assert_eq!(status, Some(1), "{what}: {out} {err}");
        assert!(err.starts_with("tablekeeper verify: no: "), "{what}: {err}");
        assert_eq!(err.lines().count(), 1, "{what}: {err}");
    }
    // An empty checkpoint file is no checkpoint.
    let (status, _, _) = run(&proof_file, &file("empty.txt", ""), None);
    assert_eq!(status, Some(1));
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[sqlx::test(migrations = "./migrations")]
async fn the_binary_says_yes_when_the_log_grew_from_the_checkpoint_kept_and_no_when_it_did_not(pool: PgPool) {
    // A phone keeps the checkpoint of the table as it saw it; later the table has grown.
    let app = spawn_app(pool).await;
    let (token, table) = a_table(&app).await;
    let key_hex = tablekeeper::service::chain::hex(server_key(&app).await.as_bytes());
    let kept = checkpoint(&app, &table, "").await;
    let before = size_of(&kept);
    let earlier = checkpoint(&app, &table, &format!("?size={}", before - 1)).await;
    accept(&app, &table, &token, play(3, "KD")).await;
    let answer = app
        .get(&format!("/api/v1/tables/{table}/consistency?from={before}"))
        .await;
    let saved = answer.text.clone();
    answer.assert_status(200);
    let body = json!({"game": "newmarket", "players": ["Ann", "Bob", "Cat", "Dan"]});
    let other = app.post("/api/v1/tables", &token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let elsewhere = checkpoint(&app, &other, "").await;

    let (dir, file) = scratch(&format!("tk-grown-{table}"));
    let run = |proof: &str, checkpoint: Option<&str>| {
        let mut args = vec!["verify", "--consistency", proof, "--key", &key_hex];
        if let Some(checkpoint) = checkpoint {
            args.extend(["--checkpoint", checkpoint]);
        }
        run_binary(&args)
    };
    let proof_file = file("grown.json", &saved);

    // Yes: the proof alone, and with the checkpoint kept (the tree it starts from).
    let (status, out, err) = run(&proof_file, None);
    assert_eq!(status, Some(0), "{out} {err}");
    assert!(out.starts_with("yes: table "), "{out}");
    let (status, out, err) = run(&proof_file, Some(&file("kept.txt", &kept)));
    assert_eq!(status, Some(0), "{out} {err}");
    assert!(out.contains("which the checkpoint kept signed"), "{out}");

    // No: a checkpoint of another size, of another table, or a proof whose hashes were cut.
    let mut cut: Value = serde_json::from_str(&saved).expect("json");
    cut["hashes"].as_array_mut().expect("hashes").clear();
    for (what, proof, checkpoint) in [
        (
            "an earlier checkpoint",
            proof_file.clone(),
            file("earlier.txt", &earlier),
        ),
        ("another table's", proof_file.clone(), file("elsewhere.txt", &elsewhere)),
        (
            "a cut proof",
            file("cut.json", &cut.to_string()),
            file("kept2.txt", &kept),
        ),
    ] {
        let (status, out, err) = run(&proof, Some(&checkpoint));
        assert_eq!(status, Some(1), "{what}: {out} {err}");
        assert!(err.starts_with("tablekeeper verify: no: "), "{what}: {err}");
        assert_eq!(err.lines().count(), 1, "{what}: {err}");
    }
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[sqlx::test(migrations = "./migrations")]
async fn bad_sizes_and_entries_are_problems_that_change_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (_token, table) = a_table(&app).await;
    let before = app.snapshot(&table).await;
    let note = checkpoint(&app, &table, "").await;
    let size = size_of(&note);
    let get = |path: String| {
        let app = &app;
        async move { app.get(&path).await }
    };
    let base = format!("/api/v1/tables/{table}");
    let cases: Vec<(String, u16, &str)> = vec![
        (format!("{base}/checkpoint?size={}", size + 1), 422, "size_beyond_tree"),
        (
            format!("{base}/moves/1/proof?size={}", size + 1),
            422,
            "size_beyond_tree",
        ),
        (format!("{base}/moves/5/proof?size=2"), 422, "entry_beyond_size"),
        (format!("{base}/moves/99/proof"), 404, "entry_not_linked"),
        (format!("{base}/moves/0/proof"), 404, "entry_not_linked"),
        (format!("{base}/consistency?from=0"), 422, "size_zero"),
        (format!("{base}/consistency?from=4&to=3"), 422, "sizes_reversed"),
        (
            format!("{base}/consistency?from=1&to={}", size + 1),
            422,
            "size_beyond_tree",
        ),
        (format!("{base}/consistency"), 400, "invalid_query"),
        (format!("{base}/checkpoint?size=-1"), 400, "invalid_query"),
        (format!("{base}/checkpoint?at=3"), 400, "invalid_query"),
        (
            format!("/api/v1/tables/{}/checkpoint", uuid::Uuid::nil()),
            404,
            "table_not_found",
        ),
    ];
    for (path, status, code) in cases {
        let answer: Answer = get(path.clone()).await;
        answer.assert_problem(status, code);
    }
    // Another club's organiser reads nothing of the table.
    let stranger = app.organiser("eve@other.example").await;
    for path in [
        format!("{base}/checkpoint"),
        format!("{base}/moves/1/proof"),
        format!("{base}/consistency?from=1"),
    ] {
        app.get_as(&path, &stranger)
            .await
            .assert_problem(404, "table_not_found");
    }
    assert_eq!(app.snapshot(&table).await, before, "nothing changed");
    assert_eq!(checkpoint(&app, &table, "").await, note);
}

#[derive(Deserialize)]
struct Login {
    email: String,
    password: String,
}

#[derive(Deserialize)]
struct ChainV1Table {
    id: String,
    version: i64,
    chain_head: String,
    next_move: Value,
}

#[derive(Deserialize)]
struct ChainV1 {
    organiser: Login,
    public_key: String,
    tables: Vec<ChainV1Table>,
}

/// Tables chained by a server of commit 4d581aa (links of content version 1), long before the
/// tree: each has a tree at once, with no migration, whose last leaf is its chain head; a
/// further move grows it, and the old tree is proven the start of the new one.
#[sqlx::test(migrations = false)]
async fn tables_stored_before_the_tree_have_one_without_a_migration(pool: PgPool) {
    let expected: ChainV1 =
        serde_json::from_str(include_str!("../fixtures/chain-v1-4d581aa.expected.json")).expect("expected");
    crate::upgrade::load_database(&pool, 20261126000001, include_str!("../fixtures/chain-v1-4d581aa.sql")).await;
    let app = spawn_app(pool).await;
    let login = json!({"email": expected.organiser.email, "password": expected.organiser.password});
    let token = app
        .request(Method::POST, "/api/v1/auth/login", None, Some(login))
        .await
        .assert_status(200)["token"]
        .as_str()
        .expect("token")
        .to_owned();
    *app.default_reader.lock().expect("reader") = Some(token.clone());
    let key = tablekeeper::service::receipts::public_key(&expected.public_key).expect("the kept key");
    assert!(!expected.tables.is_empty());

    for table in &expected.tables {
        let id = table.id.as_str();
        let then = checkpoint(&app, id, "").await;
        let size = size_of(&then);
        assert!(size > 1, "{id}: {then}");
        let first = proof(&app, id, 1, "").await;
        witness::verify_inclusion(&first, &then, &[key]).expect("an old move is proven");
        assert_eq!(first.link.content_version, 1, "linked by the old server");
        assert_eq!(size_of(&checkpoint(&app, id, "?size=1").await), 1, "the set-up alone");
        // The tree's last leaf is the chain's head as the old server answered it, when the
        // last entry linked is the last move (and not one of its bookings).
        let newest = proof(&app, id, table.version, "").await;
        if newest.leaf_index + 1 == size {
            assert_eq!(newest.link.hash, table.chain_head, "{id}");
        }

        app.post(
            &format!("/api/v1/tables/{id}/moves"),
            &token,
            json!({"move": table.next_move, "expected_version": table.version}),
        )
        .await
        .assert_status(201);
        let grown = consistency(&app, id, &format!("?from={size}")).await;
        assert_eq!(grown.from_checkpoint.note, then, "{id}");
        witness::verify_consistency(&grown, &[key]).expect("the old tree is the start of the new");
        let added = proof(&app, id, table.version + 1, "").await;
        assert_eq!(added.link.content_version, 3);
        witness::verify_inclusion(&added, &grown.to_checkpoint.note, &[key]).expect("the new move is proven");
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn the_bundle_carries_each_tables_checkpoint_and_a_swapped_one_is_found(pool: PgPool) {
    use ed25519_dalek::Signer;
    use tablekeeper::service::chain::{canonical, hex};
    let app = spawn_app(pool).await;
    let (token, table) = a_table(&app).await;
    let session = app.state(&table).await["session_id"]
        .as_str()
        .expect("session")
        .to_owned();
    let now = checkpoint(&app, &table, "").await;
    let (_, document) = crate::helpers::verified_bundle(&app, &session).await;
    let bundled = document["tables"][0]["checkpoint"].as_str().expect("a checkpoint");
    assert_eq!(bundled, now, "the checkpoint a phone would have been given now");

    // Someone with the key swaps the table's checkpoint for an earlier one (a shorter log) and
    // signs the bundle again: the checkpoint no longer is the tree of the chain bundled.
    let earlier = checkpoint(&app, &table, &format!("?size={}", size_of(&now) - 1)).await;
    let key = tablekeeper::service::keys::signing_key(&app.pool, None)
        .await
        .expect("the kept key");
    let mut forged = document.clone();
    let map = forged.as_object_mut().expect("object");
    map.remove("signature");
    map["tables"][0]["checkpoint"] = json!(earlier);
    let signature = key.sign(canonical(&forged).as_bytes());
    forged["signature"] = json!({"algorithm": "ed25519", "public_key": hex(key.verifying_key().as_bytes()),
                                 "value": hex(&signature.to_bytes())});
    let found = tablekeeper::service::bundle::verify_with(canonical(&forged).as_bytes(), &[key.verifying_key()], &[])
        .expect_err("the swapped checkpoint is found");
    assert!(
        found.contains(&table) && found.contains("is not the tree of the"),
        "{found}"
    );
    // A table played on after the bundle: its checkpoint then is the start of today's tree.
    accept(&app, &table, &token, play(3, "KD")).await;
    let grown = consistency(&app, &table, &format!("?from={}", size_of(bundled))).await;
    let said = witness::verify_grown(&grown, Some(bundled), &[key.verifying_key()]).expect("grown from the bundle's");
    assert!(said.contains("which the checkpoint kept signed"), "{said}");
}

#[sqlx::test(migrations = "./migrations")]
async fn the_binary_names_a_fork_between_two_checkpoints_of_one_size_and_no_other(pool: PgPool) {
    // Arrange: the table's checkpoint of one size, a later one, and (after the stored history
    // is rewritten) the service's checkpoint of the first size again.
    let app = spawn_app(pool).await;
    let (token, table) = a_table(&app).await;
    let key = tablekeeper::service::chain::hex(server_key(&app).await.as_bytes());
    let before = checkpoint(&app, &table, "").await;
    let size = size_of(&before);
    accept(&app, &table, &token, play(3, "KD")).await;
    let now = size_of(&checkpoint(&app, &table, "").await);
    let later = app.get(&format!("/api/v1/tables/{table}/checkpoints/{now}")).await.text;
    sqlx::raw_sql(&format!(
        "update chain_links set hash = sha256(hash) where table_id = '{table}' and pos = 0;
         update moves set link_hash = sha256(link_hash) where table_id = '{table}' and link_pos = 0"
    ))
    .execute(&app.pool)
    .await
    .expect("tampered");
    let rewritten = checkpoint(&app, &table, &format!("?size={size}")).await;
    let (dir, file) = scratch(&format!("tk-fork-{table}"));
    let (before, later, rewritten) = (
        file("before.txt", &before),
        file("later.json", &later),
        file("rewritten.txt", &rewritten),
    );

    // Act and assert: two sizes are no fork (a cosigned checkpoint's answer reads as one); one
    // size with two roots is, named with both.
    let (status, out, err) = run_binary(&["verify", "--checkpoints", &before, &later, "--key", &key]);
    assert_eq!(status, Some(0), "{out} {err}");
    assert!(out.starts_with("yes: the 2 checkpoints show no fork"), "{out}");
    let (status, out, err) = run_binary(&["verify", "--checkpoints", &before, &later, &rewritten, "--key", &key]);
    assert_eq!(status, Some(1), "{out}");
    assert!(
        err.contains(&format!(
            "fork: `tablekeeper/tables/{table}` has two different trees of {size} entries"
        )),
        "{err}"
    );
    assert!(
        err.contains("(checkpoint 1)") && err.contains("(checkpoint 3)"),
        "{err}"
    );
    // A checkpoint signed by another key is refused as such, not compared.
    let other = tablekeeper::service::chain::hex(SigningKey::from_bytes(&[3; 32]).verifying_key().as_bytes());
    let (status, _, err) = run_binary(&["verify", "--checkpoints", &before, &rewritten, "--key", &other]);
    assert_eq!(status, Some(1));
    assert!(err.contains("checkpoint 1: "), "{err}");
    std::fs::remove_dir_all(dir).expect("clean up");
}
