//! Hot states: a replica keeps a table's latest state for its next move, and stays correct when
//! other replicas record on the same table.

use serde_json::json;
use sqlx::PgPool;
use tablekeeper::rules::games::nomination_whist::{sim, Move, NominationWhist, Options};
use tablekeeper::rules::{Card, Game, Seat};
use tablekeeper::service::hot::HotStates;

use crate::helpers::{accept, assert_audit_consistent, spawn_app, TestApp};

/// The state `app` keeps for the table, asserted equal to the fold of the log from the
/// database (from snapshots, and from the set-up) and to `engine`.
async fn assert_kept_state_is_the_fold(app: &TestApp, table: &str, engine: &NominationWhist) {
    let id: uuid::Uuid = table.parse().expect("uuid");
    let mut conn = app.pool.acquire().await.expect("connection");
    let row = tablekeeper::store::tables::fetch(&mut conn, id).await.expect("row");
    let (version, kept) = hot(app).peek::<NominationWhist>(id).expect("a kept state");
    assert_eq!(version, row.version, "the kept state is of the table's version");
    let folded: NominationWhist = tablekeeper::service::fold::current(&mut conn, &row)
        .await
        .expect("fold");
    let replayed: NominationWhist = tablekeeper::service::fold::replay(&mut conn, &row)
        .await
        .expect("replay");
    assert_eq!(kept, folded);
    assert_eq!(kept, replayed);
    assert_eq!(&kept, engine);
}

fn hot(app: &TestApp) -> &HotStates {
    app.hot.as_deref().expect("an app in this process")
}

#[sqlx::test(migrations = "./migrations")]
async fn two_replicas_alternating_moves_on_one_table_stay_correct(pool: PgPool) {
    // Arrange: two replicas on one database, a table, and a game the engine plays alone.
    let a = spawn_app(pool.clone()).await;
    let b = spawn_app(pool).await;
    let token = a.organiser("ann@club.example").await;
    *b.default_reader.lock().expect("reader") = Some(token.clone());
    let table = a.table(&token, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let mut engine = NominationWhist::new(4, Options::default()).expect("game");
    let deals = sim::random_game(&mut engine, 7).expect("simulated game");
    let moves: Vec<_> = sim::moves(&deals).into_iter().take(400).collect();
    let mut expected = NominationWhist::new(4, Options::default()).expect("game");

    // Act: runs of moves of different lengths on either replica, so each keeps a state the
    // other has since moved past.
    for (i, mv) in moves.iter().enumerate() {
        let app = if (i / 3 + i / 7) % 2 == 0 { &a } else { &b };
        let answer = accept(app, &table, &token, serde_json::to_value(mv).expect("json")).await;
        expected.apply(mv).expect("a legal move");
        assert_eq!(answer["move"]["seq"], i as i64 + 1);
        assert_eq!(answer["table"]["version"], i as i64 + 1);
        if i % 50 == 49 {
            assert_kept_state_is_the_fold(app, &table, &expected).await;
        }
    }

    // Assert: both replicas used their kept states and moved on when the other had moved.
    for app in [&a, &b] {
        let (hits, misses) = hot(app).hits_and_misses();
        assert!(hits > 0, "hits {hits}");
        assert!(misses > 0, "misses {misses}");
    }
    let state = a.state(&table).await;
    assert_eq!(state["state"], serde_json::to_value(expected.view()).expect("json"));
    assert_audit_consistent(&a, &table).await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_refused_move_or_a_cleared_cache_leaves_the_kept_state_right(pool: PgPool) {
    // Arrange
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let table = app.table(&token, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let mut engine = NominationWhist::new(4, Options::default()).expect("game");
    let deals = sim::random_game(&mut engine, 11).expect("simulated game");
    let moves: Vec<_> = sim::moves(&deals).into_iter().take(120).collect();
    let mut expected = NominationWhist::new(4, Options::default()).expect("game");

    // Act: every move is also sent again (refused: a card played twice, a bid out of turn),
    // and now and then the replica forgets everything, as a restarted one would.
    for (i, mv) in moves.iter().enumerate() {
        let body = serde_json::to_value(mv).expect("json");
        accept(&app, &table, &token, body.clone()).await;
        expected.apply(mv).expect("a legal move");
        let again = app.submit(&table, &token, body).await;
        assert!(again.status.is_client_error(), "{}", again.body);
        if i % 17 == 16 {
            hot(&app).clear();
        }
    }
    // One more legal move, so the last refusal is followed by a move that uses what is kept.
    let undo = app
        .post(&format!("/api/v1/tables/{table}/undo"), &token, json!({}))
        .await;
    undo.assert_status(200);
    let last = moves.last().expect("a move");
    accept(&app, &table, &token, serde_json::to_value(last).expect("json")).await;

    // Assert
    assert_kept_state_is_the_fold(&app, &table, &expected).await;
    assert_audit_consistent(&app, &table).await;
}

#[sqlx::test(migrations = "./migrations")]
async fn undoing_a_deal_ending_move_takes_its_line_off_the_sheet_and_keeps_the_row(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let table = app
        .game_table(&token, "dividend", &["Ann", "Bob", "Cat", "Dan"], json!({}))
        .await;
    accept(
        &app,
        &table,
        &token,
        json!({"kind": "result", "cards_won": [17, 12, 11, 12]}),
    )
    .await;
    accept(
        &app,
        &table,
        &token,
        json!({"kind": "result", "cards_won": [13, 13, 13, 13]}),
    )
    .await;
    let deals = |sheet: &serde_json::Value| sheet["sheet"]["deals"].as_array().expect("deals").len();
    let lines = |app: &TestApp| {
        let pool = app.pool.clone();
        let id: uuid::Uuid = table.parse().expect("uuid");
        async move {
            sqlx::query_scalar::<_, i64>("select count(*) from deal_lines where table_id = $1")
                .bind(id)
                .fetch_one(&pool)
                .await
                .expect("count")
        }
    };
    assert_eq!(deals(&app.scores(&table).await), 2);
    assert_eq!(lines(&app).await, 2);

    app.post(&format!("/api/v1/tables/{table}/undo"), &token, json!({}))
        .await
        .assert_status(200);
    let sheet = app.scores(&table).await;
    assert_eq!(deals(&sheet), 1, "the undone deal is off the sheet");
    assert_eq!(sheet["sheet"]["totals"], json!([17, 12, 11, 12]));
    assert_eq!(
        lines(&app).await,
        2,
        "its line is passed over through the void, not deleted"
    );

    // Entered again, differently: the sheet shows the new line only.
    accept(
        &app,
        &table,
        &token,
        json!({"kind": "result", "cards_won": [17, 11, 17, 7]}),
    )
    .await;
    let sheet = app.scores(&table).await;
    assert_eq!(deals(&sheet), 2);
    assert_eq!(sheet["sheet"]["deals"][1]["cards_won"], json!([17, 11, 17, 7]));
    assert_eq!(lines(&app).await, 3);
    assert_audit_consistent(&app, &table).await;
}

#[sqlx::test(migrations = "./migrations")]
async fn the_same_move_racing_on_two_replicas_is_recorded_once(pool: PgPool) {
    // Arrange: two replicas, a table, and the moves of a game the engine plays alone.
    let a = spawn_app(pool.clone()).await;
    let b = spawn_app(pool).await;
    let token = a.organiser("ann@club.example").await;
    *b.default_reader.lock().expect("reader") = Some(token.clone());
    let table = a.table(&token, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let mut engine = NominationWhist::new(4, Options::default()).expect("game");
    let deals = sim::random_game(&mut engine, 11).expect("simulated game");
    let moves: Vec<_> = sim::moves(&deals).into_iter().take(60).collect();
    let mut expected = NominationWhist::new(4, Options::default()).expect("game");
    let path = format!("/api/v1/tables/{table}/moves");

    for (i, mv) in moves.iter().enumerate() {
        // Act: both phones send the next move at once, with no expected version and keys of
        // their own: each replica reads the table without its lock and writes only if no one
        // wrote in between.
        let body = json!({ "move": mv }).to_string();
        let (key_a, key_b) = (format!("a-{i}"), format!("b-{i}"));
        let (header_a, header_b) = (
            [("Idempotency-Key", key_a.as_str())],
            [("Idempotency-Key", key_b.as_str())],
        );
        let (first, second) = tokio::join!(
            a.send(
                reqwest::Method::POST,
                &path,
                Some(&token),
                Some(body.clone()),
                &header_a
            ),
            b.send(
                reqwest::Method::POST,
                &path,
                Some(&token),
                Some(body.clone()),
                &header_b
            ),
        );
        expected.apply(mv).expect("a legal move");

        // Assert: one is recorded; the other is judged on the table it left and refused.
        let mut statuses = [first.status.as_u16(), second.status.as_u16()];
        statuses.sort_unstable();
        assert_eq!(statuses, [201, 422], "move {i}: {:?} {:?}", first.body, second.body);
        let recorded = if first.status.as_u16() == 201 { &first } else { &second };
        assert_eq!(recorded.body["move"]["seq"], i as i64 + 1);
        assert_eq!(a.log(&table).await.as_array().expect("log").len(), i + 1);
    }
    // A state a replica kept for the final version is the fold.
    for app in [&a, &b] {
        if let Some((version, kept)) = hot(app).peek::<NominationWhist>(table.parse().expect("uuid")) {
            if version == moves.len() as i64 {
                assert_eq!(kept, expected);
            }
        }
    }
    let state = b.state(&table).await;
    assert_eq!(state["state"], serde_json::to_value(expected.view()).expect("json"));
    assert_audit_consistent(&a, &table).await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_retry_racing_its_first_try_on_another_replica_gets_the_same_answer(pool: PgPool) {
    // Arrange: two replicas and a table.
    let a = spawn_app(pool.clone()).await;
    let b = spawn_app(pool).await;
    let token = a.organiser("ann@club.example").await;
    *b.default_reader.lock().expect("reader") = Some(token.clone());
    let table = a.table(&token, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let path = format!("/api/v1/tables/{table}/moves");
    let body = json!({"move": {"kind": "nominate", "seat": 1, "tricks": 0}}).to_string();
    let key = [("Idempotency-Key", "phone-1-move-1")];

    // Act: the phone's first try and its retry arrive at once, on different replicas.
    let (first, second) = tokio::join!(
        a.send(reqwest::Method::POST, &path, Some(&token), Some(body.clone()), &key),
        b.send(reqwest::Method::POST, &path, Some(&token), Some(body.clone()), &key),
    );

    // Assert: both get the one answer, and the move is stored once.
    assert_eq!((first.status.as_u16(), second.status.as_u16()), (201, 201));
    assert_eq!(first.body, second.body);
    let replayed = [&first, &second]
        .iter()
        .filter(|r| r.headers.get("idempotent-replayed").is_some())
        .count();
    assert_eq!(replayed, 1);
    assert_eq!(a.log(&table).await.as_array().expect("log").len(), 1);
    assert_audit_consistent(&a, &table).await;
}

/// Up to `n` different moves the engine accepts at `game`'s state (nominations of different
/// numbers, different cards, by whoever may move), spread over all it accepts.
fn different_legal_moves(game: &NominationWhist, n: usize) -> Vec<Move> {
    let seats = || (0..4).map(Seat::new);
    let candidates = seats()
        .flat_map(|seat| (0..=13).map(move |tricks| Move::Nominate { seat, tricks }))
        .chain(seats().flat_map(|seat| Card::deck().map(move |card| Move::Play { seat, card })))
        .chain(Card::deck().map(|card| Move::TurnUp { card }));
    let legal: Vec<Move> = candidates.filter(|mv| game.clone().apply(mv).is_ok()).collect();
    let step = legal.len().div_ceil(n).max(1);
    legal.into_iter().step_by(step).take(n).collect()
}

#[sqlx::test(migrations = "./migrations")]
async fn different_moves_racing_on_a_stale_version_on_two_replicas_are_conflicts_never_rule_refusals(pool: PgPool) {
    // Arrange: two replicas on one database, a table, and eight phones, four on each replica.
    let a = spawn_app(pool.clone()).await;
    let b = spawn_app(pool.clone()).await;
    let token = a.organiser("ann@club.example").await;
    *b.default_reader.lock().expect("reader") = Some(token.clone());
    let table = a.table(&token, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let path = format!("/api/v1/tables/{table}/moves");
    let phones: Vec<std::sync::Arc<TestApp>> = (0..8)
        .map(|i| {
            let replica = if i % 2 == 0 { &a } else { &b };
            let phone = TestApp::at(&replica.base, pool.clone());
            *phone.default_reader.lock().expect("reader") = Some(token.clone());
            std::sync::Arc::new(phone)
        })
        .collect();
    let mut expected = NominationWhist::new(4, Options::default()).expect("game");
    let mut rule_refusals = Vec::new();

    for version in 0..120_i64 {
        // Now and then a replica loses what it keeps (restarted, or the table evicted); most
        // rounds the replica that recorded the last move keeps its state and four of the racing
        // requests find it kept, one takes it and the others must do without.
        if version % 5 == 4 {
            hot(&a).clear();
        }
        if version % 7 == 6 {
            hot(&b).clear();
        }
        let moves = different_legal_moves(&expected, phones.len());
        assert!(moves.len() >= 2, "version {version}: something to race");

        // Act: every phone sends a different move, each legal at the version they all saw.
        let mut sent = Vec::new();
        for (phone, mv) in phones.iter().zip(&moves) {
            let phone = std::sync::Arc::clone(phone);
            let (path, token) = (path.clone(), token.clone());
            let body = json!({"move": mv, "expected_version": version}).to_string();
            sent.push(tokio::spawn(async move {
                phone
                    .send(reqwest::Method::POST, &path, Some(&token), Some(body), &[])
                    .await
            }));
        }
        let mut answers = Vec::new();
        for task in sent {
            answers.push(task.await.expect("request task"));
        }

        // Assert: one is recorded, as the next entry; every other is a version conflict.
        let won: Vec<usize> = (0..answers.len())
            .filter(|&i| answers[i].status.as_u16() == 201)
            .collect();
        assert_eq!(won.len(), 1, "version {version}: {answers:?}");
        for (i, answer) in answers.iter().enumerate() {
            if i == won[0] {
                assert_eq!(answer.body["move"]["seq"], version + 1);
            } else if answer.body["code"] != "version_conflict" {
                rule_refusals.push(format!("version {version}: {}", answer.body));
            } else {
                answer.assert_problem(409, "version_conflict");
            }
        }
        expected.apply(&moves[won[0]]).expect("the recorded move is legal");
        assert_eq!(
            a.log(&table).await.as_array().expect("log").len() as i64,
            version + 1,
            "one entry per version"
        );
    }

    assert!(
        rule_refusals.is_empty(),
        "{} stale requests got another answer than version_conflict: {rule_refusals:#?}",
        rule_refusals.len()
    );
    let state = b.state(&table).await;
    assert_eq!(state["state"], serde_json::to_value(expected.view()).expect("json"));
    assert_audit_consistent(&a, &table).await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_move_an_undo_and_a_correction_racing_on_one_version_are_one_success_and_conflicts(pool: PgPool) {
    // Arrange: two replicas, a table of one-card deals entered as results, two deals in.
    let a = spawn_app(pool.clone()).await;
    let b = spawn_app(pool).await;
    let token = a.organiser("ann@club.example").await;
    *b.default_reader.lock().expect("reader") = Some(token.clone());
    let table = a
        .table(
            &token,
            &["Ann", "Bob", "Cat", "Dan"],
            json!({"hand_sizes": vec![1; 40]}),
        )
        .await;
    let result = |winner: usize| {
        let tricks: Vec<u8> = (0..4).map(|s| u8::from(s == winner)).collect();
        json!({"kind": "result", "nominations": [0, 1, 0, 0], "tricks": tricks})
    };

    for round in 0..30_usize {
        // Keep two deals at least, so that an undo and a correction of deal 1 are both possible.
        while a.scores(&table).await["sheet"]["deals"].as_array().map_or(0, Vec::len) < 2 {
            accept(&a, &table, &token, result(round % 4)).await;
        }
        hot(&a).clear();
        let version = a.state(&table).await["version"].as_i64().expect("version");
        let log = a.log(&table).await.as_array().expect("log").len();

        // Act: a move on one replica, an undo and a correction of deal 1 on the other, all
        // sent having seen the same version, all fine at it.
        let (moves, undo, deal_1) = (
            format!("/api/v1/tables/{table}/moves"),
            format!("/api/v1/tables/{table}/undo"),
            format!("/api/v1/tables/{table}/deals/1"),
        );
        let correction = json!({"moves": [result((round + 1) % 4)], "expected_version": version, "reason": "slip"});
        let (moved, undone, corrected) = tokio::join!(
            a.post(
                &moves,
                &token,
                json!({"move": result(round % 4), "expected_version": version})
            ),
            b.post(&undo, &token, json!({"expected_version": version})),
            b.request(reqwest::Method::PUT, &deal_1, Some(&token), Some(correction)),
        );

        // Assert: one succeeds; the others are conflicts; only the winner's entries are added
        // (a correction's: its move and the correction itself).
        let answers = [&moved, &undone, &corrected];
        let won = answers.iter().filter(|a| a.status.is_success()).count();
        assert_eq!(won, 1, "round {round}: {answers:?}");
        for answer in answers.iter().filter(|a| !a.status.is_success()) {
            answer.assert_problem(409, "version_conflict");
        }
        let added = if corrected.status.is_success() { 2 } else { 1 };
        assert_eq!(a.log(&table).await.as_array().expect("log").len(), log + added);
    }
    assert_audit_consistent(&b, &table).await;
}
