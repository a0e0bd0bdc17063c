//! The phones as their table's witnesses (issue #43), in a real headless Chromium: two phones at
//! one table each make a key, register it and cosign the table's checkpoints as the table grows,
//! each after checking the consistency proof itself. Then the stored history is rewritten while
//! one phone is away: the phone that comes back is shown a tree that did not grow from the one it
//! cosigned, refuses to cosign, and tells the players, with the two checkpoints; and the two
//! phones' checkpoints of one size, compared offline, name the fork.

use std::time::Duration;

use serde_json::{json, Value};
use sqlx::PgPool;
use tablekeeper::service::witness;

use crate::browser::{rig, Phone, ONE_BROWSER, PATIENCE};

/// What `count` (SQL counting rows of `$1`, the table, and `$2`, a size) says, waited for until
/// it is `want` (or the patience runs out).
async fn counted(pool: &PgPool, count: &str, table: &str, size: i64, want: i64) -> i64 {
    let table: uuid::Uuid = table.parse().expect("uuid");
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let n: i64 = sqlx::query_scalar(count)
            .bind(table)
            .bind(size)
            .fetch_one(pool)
            .await
            .expect("count");
        if n >= want || tokio::time::Instant::now() > deadline {
            return n;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// How many of the table's phones have cosigned its checkpoint of `size`, waited for until it is
/// `want`.
async fn cosigners(pool: &PgPool, table: &str, size: i64, want: i64) -> i64 {
    let count = "select count(distinct scorer_id) from cosignatures where table_id = $1 and size = $2";
    counted(pool, count, table, size, want).await
}

/// What a phone keeps in its browser under `key` (localStorage), as JSON.
async fn kept(phone: &Phone, key: &str) -> Value {
    let text = phone
        .client
        .execute("return window.localStorage.getItem(arguments[0])", vec![json!(key)])
        .await
        .expect("read");
    text.as_str()
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or(Value::Null)
}

/// The checkpoint a phone keeps as cosigned for `table`, waited for until it is of `size`: the
/// phone keeps it once the service's answer to its cosignature is in, a moment after the
/// cosignature is stored.
async fn kept_cosigned(phone: &Phone, table: &str, size: i64) -> Value {
    let key = format!("tk.cosigned.{table}");
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let mut kept_now = kept(phone, &key).await;
    while kept_now["size"] != size && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
        kept_now = kept(phone, &key).await;
    }
    assert_eq!(kept_now["size"], size, "the checkpoint kept as cosigned");
    kept_now
}

fn size_of(note: &str) -> i64 {
    note.lines().nth(1).and_then(|l| l.parse().ok()).expect("a size line")
}

#[sqlx::test(migrations = "./migrations")]
async fn a_history_rewritten_between_two_phones_reads_is_refused_shown_and_named_as_a_fork(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let session = rig.app.session(&rig.organiser, "Thursday").await;
    let table = rig
        .session_whist(
            &session,
            ["Ann", "Bob", "Cat", "Dan"],
            json!({"hand_sizes": [1, 1, 1, 1]}),
        )
        .await;
    let record = |deal: u8| json!({"move": {"kind": "result", "nominations": [1, 0, 0, 1], "tricks": [1, 0, 0, 0]}, "deal": deal});
    rig.app
        .post(&format!("/api/v1/tables/{table}/moves"), &rig.organiser, record(1))
        .await
        .assert_status(201);

    // Two phones join (each cosigns the table's checkpoint as it first sees it); a deal is
    // recorded, and each checks the consistency proof from what it cosigned and cosigns again.
    let ann = rig.scorer_named(&table, "Ann's phone").await;
    let bob = rig.scorer_named(&table, "Bob's phone").await;
    rig.app
        .post(&format!("/api/v1/tables/{table}/moves"), &rig.organiser, record(2))
        .await
        .assert_status(201);
    let first = size_of(&rig.app.get(&format!("/api/v1/tables/{table}/checkpoint")).await.text);
    assert_eq!(
        cosigners(&rig.app.pool, &table, first, 2).await,
        2,
        "both phones cosigned size {first}"
    );

    kept_cosigned(&bob, &table, first).await;

    // Bob's phone goes away; a deal is recorded; Ann's phone sees it, checks the consistency
    // proof from what it cosigned and cosigns the new checkpoint.
    let bobs_page = bob.client.current_url().await.expect("url");
    bob.client.goto("about:blank").await.expect("away");
    rig.app
        .post(&format!("/api/v1/tables/{table}/moves"), &rig.organiser, record(3))
        .await
        .assert_status(201);
    let grown = size_of(&rig.app.get(&format!("/api/v1/tables/{table}/checkpoint")).await.text);
    assert!(grown > first);
    assert_eq!(
        cosigners(&rig.app.pool, &table, grown, 1).await,
        1,
        "Ann's phone cosigned size {grown}"
    );
    let anns = kept_cosigned(&ann, &table, grown).await;
    ann.wait_for_text("Deal 4").await;
    // One move checked against the phone's download (its receipts and the checkpoint it cosigned,
    // as the Deals tab saves them), offline, as the treasurers' guide says.
    let download = json!({"table_id": table, "receipts": [], "checkpoint": anns});
    let note = witness::note_in(&download.to_string()).expect("the download carries a checkpoint");
    let proof: witness::InclusionProof = serde_json::from_value(
        rig.app
            .get(&format!("/api/v1/tables/{table}/moves/1/proof?size={grown}"))
            .await
            .assert_status(200)
            .clone(),
    )
    .expect("a proof");
    let key = crate::evidence::server_key(&rig.app).await;
    let said = witness::verify_inclusion(&proof, &note, &[key]).expect("the move is in what Ann's phone cosigned");
    assert!(said.starts_with("yes: log entry 1"), "{said}");
    assert!(
        !ann.body_text().await.contains("history was rewritten"),
        "an honest table shows nothing new"
    );

    // The stored history is rewritten (the set-up's link), and Bob's phone comes back.
    sqlx::raw_sql(&format!(
        "update chain_links set hash = sha256(hash) where table_id = '{table}' and pos = 0;
         update moves set link_hash = sha256(link_hash) where table_id = '{table}' and link_pos = 0;
         update ledger_bookings set link_hash = sha256(link_hash) where table_id = '{table}' and link_pos = 0"
    ))
    .execute(&rig.app.pool)
    .await
    .expect("tampered");
    bob.client.goto(bobs_page.as_str()).await.expect("back");

    // Bob's phone refuses: it warns the players, with the two checkpoints, and cosigns nothing.
    bob.wait_for_text("This table's history was rewritten: this phone stopped cosigning it.")
        .await;
    bob.screenshot("witness-rewritten-table").await;
    bob.tap("Deals").await;
    bob.wait_for_text("Cosigned by this phone").await;
    let warning = kept(&bob, &format!("tk.rewritten.{table}")).await;
    let (kept_root, shown_root) = (
        warning["kept"]["root"].as_str().expect("kept root").to_owned(),
        warning["shown"]["root"].as_str().expect("shown root").to_owned(),
    );
    assert_eq!(warning["kept"]["size"], first);
    assert_eq!(warning["shown"]["size"], first);
    assert_ne!(kept_root, shown_root);
    let text = bob.body_text().await;
    assert!(text.contains(&kept_root) && text.contains(&shown_root), "{text}");
    bob.screenshot("witness-rewritten").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        cosigners(&rig.app.pool, &table, grown, 1).await,
        1,
        "Bob's phone cosigned nothing"
    );

    // The two phones' checkpoints of one size, compared offline, name the fork: what Ann's phone
    // cosigned, and what the service now serves at that size.
    let served = rig
        .app
        .get(&format!("/api/v1/tables/{table}/checkpoint?size={grown}"))
        .await
        .text;
    let anns_note = anns["note"].as_str().expect("note").to_owned();
    let fork = witness::compare_checkpoints(&[anns_note.clone(), served], &[key]).expect_err("a fork");
    assert!(
        fork.starts_with("fork:") && fork.contains(&format!("two different trees of {grown} entries")),
        "{fork}"
    );
    // Bob's phone alone holds one too: what it cosigned and what it was shown at that size.
    let bobs = [
        warning["kept"]["note"].as_str().expect("note").to_owned(),
        warning["shown"]["note"].as_str().expect("note").to_owned(),
    ];
    let fork = witness::compare_checkpoints(&bobs, &[key]).expect_err("a fork");
    assert!(fork.contains(&kept_root) && fork.contains(&shown_root), "{fork}");
    // Ann's checkpoint and an honest one of another size show no fork.
    witness::compare_checkpoints(&[anns_note, bobs[0].clone()], &[key]).expect("no fork between sizes");
    // And the service lists Ann's cosignature of size `grown` as contradicting its tree now.
    let listed = rig
        .app
        .get(&format!("/api/v1/tables/{table}/checkpoints/{grown}"))
        .await;
    let listed = listed.assert_status(200);
    assert_eq!(listed["cosignatures"], json!([]));
    assert_eq!(listed["contradicted_by"][0]["name"], "Ann's phone");
}

/// How many of the session's boards cosigned `table`'s checkpoint of `size`, waited for until it
/// is `want`.
async fn board_cosignatures(pool: &PgPool, table: &str, size: i64, want: i64) -> i64 {
    let count = "select count(distinct board_id) from board_cosignatures where table_id = $1 and size = $2";
    counted(pool, count, table, size, want).await
}

#[sqlx::test(migrations = "./migrations")]
async fn the_board_cosigns_each_table_it_shows_and_names_one_whose_history_was_rewritten(pool: PgPool) {
    let _one = ONE_BROWSER.lock().await;
    let mut rig = rig(pool).await;
    let session = rig.app.session(&rig.organiser, "Thursday").await;
    let record = |deal: u8| json!({"move": {"kind": "result", "nominations": [1, 0, 0, 1], "tricks": [1, 0, 0, 0]}, "deal": deal});
    let mut tables = Vec::new();
    for players in [["Ann", "Bob", "Cat", "Dan"], ["Eve", "Fay", "Gus", "Hal"]] {
        let table = rig
            .session_whist(&session, players, json!({"hand_sizes": [1, 1, 1, 1]}))
            .await;
        rig.app
            .post(&format!("/api/v1/tables/{table}/moves"), &rig.organiser, record(1))
            .await
            .assert_status(201);
        tables.push(table);
    }
    let size = |table: &str| {
        let path = format!("/api/v1/tables/{table}/checkpoint");
        let app = &rig.app;
        async move { size_of(&app.get(&path).await.text) }
    };

    // The board, opened with the session's share link, registers its key once and cosigns both
    // tables' trees as it first sees them.
    let base = format!("http://{}", rig.proxy.addr);
    let link = rig.share_link(&session).await;
    let board = rig.driver.window(&base, 1280, 720, false).await;
    board.open(&format!("/?share={link}#/board/{session}")).await;
    board.wait_for_text("Table 2: Nomination Whist").await;
    for table in &tables {
        let at = size(table).await;
        assert_eq!(
            board_cosignatures(&rig.app.pool, table, at, 1).await,
            1,
            "the board cosigned table {table} at size {at}"
        );
    }
    let boards: i64 = sqlx::query_scalar("select count(*) from board_keys")
        .fetch_one(&rig.app.pool)
        .await
        .expect("count");
    assert_eq!(boards, 1, "one key for the board, whatever the number of its tables");

    // From here on, every read of a table the board makes is counted.
    board.count_table_reads().await;

    // A deal recorded at the first table: the stream's receipt names the grown tree, and the
    // board checks the consistency proof from what it cosigned and cosigns the new checkpoint.
    let answer = rig
        .app
        .post(
            &format!("/api/v1/tables/{}/moves", tables[0]),
            &rig.organiser,
            record(2),
        )
        .await
        .assert_status(201)
        .clone();
    let grown = size(&tables[0]).await;
    assert_eq!(board_cosignatures(&rig.app.pool, &tables[0], grown, 1).await, 1);
    // The tile was drawn from the stream's event, which carries the table: no read of it.
    let version = answer["table"]["version"].as_i64().expect("the table's version");
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let tile = format!("[data-table='{}']", tables[0]);
    loop {
        let shown = board
            .client
            .execute(
                "return document.querySelector(arguments[0])?.dataset.version",
                vec![json!(tile)],
            )
            .await
            .expect("the tile");
        if shown == json!(version.to_string()) || tokio::time::Instant::now() > deadline {
            assert_eq!(shown, json!(version.to_string()), "the tile shows the new version");
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        board.table_reads().await,
        0,
        "the board drew the change from the stream"
    );
    let listed = rig
        .app
        .get(&format!("/api/v1/tables/{}/checkpoints/{grown}", tables[0]))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(listed["boards"], 1);
    assert_eq!(listed["board_cosignatures"][0]["name"], "Board");
    assert!(
        !board.body_text().await.contains("History rewritten"),
        "an honest evening shows nothing new"
    );

    // The second table's stored history is rewritten, and the board is opened again: it is shown
    // a tree that did not grow from the one it cosigned, cosigns nothing, and names the table.
    let second = &tables[1];
    let before = size(second).await;
    sqlx::raw_sql(&format!(
        "update chain_links set hash = sha256(hash) where table_id = '{second}' and pos = 0;
         update moves set link_hash = sha256(link_hash) where table_id = '{second}' and link_pos = 0;
         update ledger_bookings set link_hash = sha256(link_hash) where table_id = '{second}' and link_pos = 0"
    ))
    .execute(&rig.app.pool)
    .await
    .expect("tampered");
    // (By way of a blank page: the same address again would only be a move to its fragment.)
    board.client.goto("about:blank").await.expect("away");
    board.open(&format!("/?share={link}#/board/{session}")).await;
    board
        .wait_for_text("History rewritten: this board stopped cosigning this table.")
        .await;
    board.screenshot("board-witness-rewritten").await;
    // With the two checkpoints' roots: what the board cosigned, what it was shown at that size.
    let found = kept(&board, &format!("tk.screen-rewritten.{second}")).await;
    let (kept_root, shown_root) = (
        found["kept"]["root"].as_str().expect("kept root").to_owned(),
        found["shown"]["root"].as_str().expect("shown root").to_owned(),
    );
    assert_ne!(kept_root, shown_root);
    let text = board.body_text().await;
    assert!(text.contains(&kept_root) && text.contains(&shown_root), "{text}");
    let tiles = board
        .client
        .execute(
            "return [...document.querySelectorAll('.board-tile')].map((t) => [t.dataset.table, Boolean(t.querySelector('.tile-rewritten'))])",
            vec![],
        )
        .await
        .expect("tiles");
    assert_eq!(
        tiles,
        json!([[tables[0], false], [second, true]]),
        "the rewritten table is named, and only it"
    );
    let cosigned: i64 = sqlx::query_scalar("select count(*) from board_cosignatures where table_id = $1::uuid")
        .bind(second)
        .fetch_one(&rig.app.pool)
        .await
        .expect("count");
    assert_eq!(
        cosigned, 1,
        "the board cosigned nothing of table {second} after size {before}"
    );
}
