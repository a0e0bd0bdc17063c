//! Live tables across replicas: two server processes of the real binary on one database.

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{assert_audit_consistent, database_url, spawn_app, TestApp, TEST_SECRET};

/// A server process of the real binary, killed when dropped.
struct Replica {
    child: Child,
    base: String,
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn replica(pool: &PgPool) -> Replica {
    replica_with(pool, &[]).await
}

/// A replica with more settings in its environment.
async fn replica_with(pool: &PgPool, env: &[(&str, &str)]) -> Replica {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        listener.local_addr().expect("address").port()
    };
    let child = Command::new(env!("CARGO_BIN_EXE_tablekeeper"))
        .arg("serve")
        .env("DATABASE_URL", database_url(pool))
        .env("BIND", format!("127.0.0.1:{port}"))
        .env("JWT_SECRET", TEST_SECRET)
        .env("WORKERS", "1")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .envs(env.iter().copied())
        .spawn()
        .expect("the server starts");
    let replica = Replica {
        child,
        base: format!("http://127.0.0.1:{port}"),
    };
    let client = reqwest::Client::new();
    for _ in 0..300 {
        if let Ok(res) = client.get(format!("{}/api/v1/healthz", replica.base)).send().await {
            if res.status().is_success() {
                return replica;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the replica on port {port} did not come up");
}

/// One Server-Sent Event as received.
#[derive(Debug, Clone)]
struct Received {
    id: Option<String>,
    event: Option<String>,
    data: Value,
}

/// An open event stream, read event by event.
struct Stream {
    response: reqwest::Response,
    buffer: String,
}

impl Stream {
    /// Opens the stream reading with `token` (reads are private, issue #25).
    async fn open(url: &str, token: &str, last_event_id: Option<i64>) -> Stream {
        let mut req = reqwest::Client::new().get(url).bearer_auth(token);
        if let Some(id) = last_event_id {
            req = req.header("Last-Event-ID", id.to_string());
        }
        let response = req.send().await.expect("stream opens");
        assert_eq!(response.status(), 200);
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        assert!(content_type.starts_with("text/event-stream"), "{content_type}");
        assert_eq!(
            response
                .headers()
                .get("x-accel-buffering")
                .and_then(|v| v.to_str().ok()),
            Some("no"),
            "proxies are told not to buffer the stream"
        );
        Stream {
            response,
            buffer: String::new(),
        }
    }

    /// The next event (comments skipped), or None when none comes within `wait`.
    async fn next(&mut self, wait: Duration) -> Option<Received> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            while let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut event = Received {
                    id: None,
                    event: None,
                    data: Value::Null,
                };
                let mut data = String::new();
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("id:") {
                        event.id = Some(v.trim().to_owned());
                    } else if let Some(v) = line.strip_prefix("event:") {
                        event.event = Some(v.trim().to_owned());
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push_str(v.trim_start());
                    }
                }
                if !data.is_empty() {
                    event.data = serde_json::from_str(&data).expect("JSON data");
                    return Some(event);
                }
            }
            let chunk = tokio::time::timeout_at(deadline, self.response.chunk()).await.ok()?;
            let bytes = chunk.expect("stream readable")?;
            self.buffer
                .push_str(&String::from_utf8_lossy(&bytes).replace("\r\n", "\n"));
        }
    }
}

const WAIT: Duration = Duration::from_secs(10);

/// Opens a one-card-deal Nomination Whist table through `app` and returns (token, table).
async fn one_card_table(app: &TestApp, session: Option<&str>) -> (String, String) {
    let token = app.organiser("live@example.com").await;
    let mut body = json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat", "Dan"],
        "options": {"hand_sizes": [1, 1, 1], "hook_from_hand_size": 9}});
    if let Some(session) = session {
        body["session_id"] = json!(session);
    }
    let table = app.post("/api/v1/tables", &token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    (token, table)
}

/// The moves of a one-card deal: nominations from the dealer's left (seat 1), then the plays.
fn one_card_deal(cards: [&str; 4]) -> Vec<Value> {
    let mut moves: Vec<Value> = [1, 2, 3, 0]
        .iter()
        .map(|seat| json!({"kind": "nominate", "seat": seat, "tricks": 0}))
        .collect();
    moves.extend(
        [1, 2, 3, 0]
            .iter()
            .zip(cards)
            .map(|(seat, card)| json!({"kind": "play", "seat": seat, "card": card})),
    );
    moves
}

#[sqlx::test(migrations = "./migrations")]
async fn a_move_on_one_replica_reaches_a_subscriber_on_the_other(pool: PgPool) {
    let (a, b) = (replica(&pool).await, replica(&pool).await);
    let app = TestApp::at(&a.base, pool.clone());
    let (token, table) = one_card_table(&app, None).await;
    let mut stream = Stream::open(&format!("{}/api/v1/tables/{table}/events", b.base), &token, None).await;

    let first = &one_card_deal(["2C", "3C", "4C", "5C"])[0];
    app.submit(&table, &token, first.clone()).await.assert_status(201);

    let event = stream.next(WAIT).await.expect("the entry arrives on the other replica");
    assert_eq!(event.id.as_deref(), Some("1"));
    assert_eq!(event.event.as_deref(), Some("entry"));
    assert_eq!(event.data["version"], 1);
    assert_eq!(event.data["entry"]["seq"], 1);
    assert_eq!(event.data["entry"]["entry"], "move");
    assert_eq!(event.data["entry"]["move"], *first);
    assert!(event.data["entry"]["events"].as_array().is_some_and(|e| !e.is_empty()));
}

#[sqlx::test(migrations = "./migrations")]
async fn a_dropped_subscriber_resumes_with_last_event_id_missing_and_repeating_nothing(pool: PgPool) {
    let (a, b) = (replica(&pool).await, replica(&pool).await);
    let app = TestApp::at(&a.base, pool.clone());
    let (token, table) = one_card_table(&app, None).await;
    let moves = one_card_deal(["2C", "3C", "4C", "5C"]);
    let url = format!("{}/api/v1/tables/{table}/events", b.base);

    let mut stream = Stream::open(&url, &token, None).await;
    for mv in &moves[..2] {
        app.submit(&table, &token, mv.clone()).await.assert_status(201);
    }
    let mut seen = Vec::new();
    for _ in 0..2 {
        seen.push(stream.next(WAIT).await.expect("entry").id.expect("id"));
    }
    drop(stream);
    for mv in &moves[2..5] {
        app.submit(&table, &token, mv.clone()).await.assert_status(201);
    }
    app.request(
        reqwest::Method::POST,
        &format!("/api/v1/tables/{table}/undo"),
        Some(&token),
        None,
    )
    .await
    .assert_status(200);

    let mut resumed = Stream::open(&url, &token, Some(2)).await;
    while let Some(event) = resumed.next(Duration::from_millis(1500)).await {
        seen.push(event.id.expect("id"));
    }
    assert_eq!(seen, ["1", "2", "3", "4", "5", "6"]);

    // The query parameter resumes the same way, for EventSource's first connection.
    let mut by_query = Stream::open(&format!("{url}?last_event_id=5"), &token, None).await;
    let void = by_query.next(WAIT).await.expect("the void");
    assert_eq!(void.id.as_deref(), Some("6"));
    assert_eq!(void.data["entry"]["entry"], "void");
    assert_eq!(void.data["entry"]["voids"], 5);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_refused_move_announces_nothing(pool: PgPool) {
    let (a, b) = (replica(&pool).await, replica(&pool).await);
    let app = TestApp::at(&a.base, pool.clone());
    let (token, table) = one_card_table(&app, None).await;
    let mut stream = Stream::open(&format!("{}/api/v1/tables/{table}/events", b.base), &token, None).await;

    let out_of_turn = json!({"kind": "nominate", "seat": 3, "tricks": 0});
    app.submit(&table, &token, out_of_turn)
        .await
        .assert_problem(422, "not_your_turn");
    assert!(
        stream.next(Duration::from_millis(1500)).await.is_none(),
        "nothing was announced"
    );

    let legal = one_card_deal(["2C", "3C", "4C", "5C"])[0].clone();
    app.submit(&table, &token, legal).await.assert_status(201);
    let event = stream.next(WAIT).await.expect("the legal move");
    assert_eq!(event.id.as_deref(), Some("1"));
}

#[sqlx::test(migrations = "./migrations")]
async fn a_session_stream_shows_each_table_and_each_change(pool: PgPool) {
    let (a, b) = (replica(&pool).await, replica(&pool).await);
    let app = TestApp::at(&a.base, pool.clone());
    let token = app.organiser("board@example.com").await;
    let session = app.session(&token, "Thursday").await;
    let body = json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat", "Dan"], "session_id": session,
        "options": {"hand_sizes": [1], "hook_from_hand_size": 9}});
    let table = app.post("/api/v1/tables", &token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let body = json!({"game": "pope-joan", "players": ["Eve", "Fay", "Gus"], "session_id": session});
    let chip_table = app.post("/api/v1/tables", &token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();

    let mut board = Stream::open(&format!("{}/api/v1/sessions/{session}/events", b.base), &token, None).await;
    let mut openings = vec![
        board.next(WAIT).await.expect("a table as it is"),
        board.next(WAIT).await.expect("a table as it is"),
    ];
    openings.sort_by_key(|o| o.data["table_id"] != table.as_str());
    let [opening, chips_opening] = <[_; 2]>::try_from(openings).expect("two tables");
    assert_eq!(opening.event.as_deref(), Some("table"));
    assert_eq!(opening.data["table_id"], table);
    assert_eq!(opening.data["version"], 0);
    assert_eq!(opening.data["game"], "nomination-whist");
    assert_eq!(opening.data["totals"], json!([0, 0, 0, 0]));
    // A chip game's totals are the chips each seat holds, as its table shows them.
    assert_eq!(chips_opening.data["table_id"], chip_table);
    let held = app.state(&chip_table).await["state"]["chips"].clone();
    assert_eq!(held.as_array().map(Vec::len), Some(3));
    assert_eq!(chips_opening.data["totals"], held);

    for mv in one_card_deal(["2C", "3C", "4C", "5C"]) {
        app.submit(&table, &token, mv).await.assert_status(201);
    }
    let mut last = opening;
    while last.data["version"] != 8 {
        last = board.next(WAIT).await.expect("a change");
        assert_eq!(last.data["table_id"], table);
    }
    assert_eq!(last.data["finished"], true);
    let scores = app.scores(&table).await;
    assert_eq!(last.data["totals"], scores["sheet"]["totals"]);
    // Each line carries the table as the change left it, as the table reads (issue #46): a
    // board draws its tile from it rather than reading the table.
    assert_eq!(last.data["table"], app.state(&table).await, "the table as it reads");
    assert_eq!(chips_opening.data["table"], app.state(&chip_table).await);
}

#[sqlx::test(migrations = "./migrations")]
async fn an_entry_heard_live_carries_the_table_as_it_left_it_and_one_read_from_the_log_does_not(pool: PgPool) {
    // Arrange: a subscriber on one replica, moves recorded on the other.
    let (a, b) = (replica(&pool).await, replica(&pool).await);
    let app = TestApp::at(&a.base, pool.clone());
    let (token, table) = one_card_table(&app, None).await;
    let url = format!("{}/api/v1/tables/{table}/events", b.base);
    let mut stream = Stream::open(&url, &token, None).await;

    // Act and assert: each entry, recorded and heard one at a time, carries the table at its
    // own version, exactly as `GET /tables/{id}` then answers it.
    for (i, mv) in one_card_deal(["2C", "3C", "4C", "5C"]).into_iter().enumerate() {
        app.submit(&table, &token, mv).await.assert_status(201);
        let event = stream.next(WAIT).await.expect("the entry");
        let seq = i as i64 + 1;
        assert_eq!(event.data["version"], seq);
        if seq == 1 && event.data.get("table").is_none() {
            // The stream answers before it reads its backlog: the first move may be committed
            // before that read, and then comes from the log, without the table, as documented.
            continue;
        }
        assert_eq!(event.data["table"]["version"], seq, "entry {seq}");
        assert_eq!(
            event.data["table"],
            app.state(&table).await,
            "entry {seq}: the table as it reads"
        );
    }

    // Resumed from the log, an entry has no table: its version is not the table's now.
    let mut resumed = Stream::open(&url, &token, Some(6)).await;
    let event = resumed.next(WAIT).await.expect("entry 7 from the log");
    assert_eq!(event.id.as_deref(), Some("7"));
    assert!(event.data.get("table").is_none(), "{}", event.data);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_stream_of_a_missing_table_or_with_a_bad_last_event_id_is_refused(pool: PgPool) {
    let app = spawn_app(pool).await;
    let missing = uuid::Uuid::new_v4();
    let (token, table) = one_card_table(&app, None).await;
    app.get(&format!("/api/v1/tables/{missing}/events"))
        .await
        .assert_problem(404, "table_not_found");
    let answer = app
        .send(
            reqwest::Method::GET,
            &format!("/api/v1/tables/{table}/events"),
            Some(&token),
            None,
            &[("Last-Event-ID", "yesterday")],
        )
        .await;
    answer.assert_problem(400, "invalid_last_event_id");
    app.get(&format!("/api/v1/sessions/{missing}/events"))
        .await
        .assert_problem(404, "session_not_found");
}

#[sqlx::test(migrations = "./migrations")]
async fn a_replica_whose_listener_was_cut_catches_its_subscribers_up_from_the_log(pool: PgPool) {
    let (a, b) = (replica(&pool).await, replica(&pool).await);
    let app = TestApp::at(&a.base, pool.clone());
    let (token, table) = one_card_table(&app, None).await;
    let moves = one_card_deal(["2C", "3C", "4C", "5C"]);
    let mut stream = Stream::open(&format!("{}/api/v1/tables/{table}/events", b.base), &token, None).await;
    app.submit(&table, &token, moves[0].clone()).await.assert_status(201);
    assert_eq!(stream.next(WAIT).await.expect("entry").id.as_deref(), Some("1"));

    // Cut every LISTEN connection (both replicas'): notifications sent meanwhile are lost.
    let cut: Vec<i32> = sqlx::query_scalar(
        "select pg_terminate_backend(pid)::int from pg_stat_activity
         where datname = current_database() and query ilike 'listen%'",
    )
    .fetch_all(&pool)
    .await
    .expect("listeners cut");
    assert!(!cut.is_empty(), "the replicas were listening");
    for mv in &moves[1..4] {
        app.submit(&table, &token, mv.clone()).await.assert_status(201);
    }

    // The replica reconnects and catches its subscribers up from the log: nothing missed or repeated.
    let mut seen = Vec::new();
    while seen.len() < 3 {
        seen.push(stream.next(WAIT).await.expect("caught up").id.expect("id"));
    }
    assert_eq!(seen, ["2", "3", "4"]);
    app.submit(&table, &token, moves[4].clone()).await.assert_status(201);
    assert_eq!(stream.next(WAIT).await.expect("live again").id.as_deref(), Some("5"));
    assert!(
        stream.next(Duration::from_millis(1000)).await.is_none(),
        "nothing repeated"
    );
}

/// The notifications heard on the announcement channel within `wait`, as `(table, seq)`.
async fn heard(listener: &mut sqlx::postgres::PgListener, wait: Duration) -> Vec<(String, i64)> {
    let mut out = Vec::new();
    while let Ok(Ok(notification)) = tokio::time::timeout(wait, listener.recv()).await {
        let (announced, _) =
            tablekeeper::store::live::Announcement::parse(notification.payload()).expect("a readable announcement");
        out.push((announced.table.to_string(), announced.seq));
    }
    out
}

/// An ear on the channel that moves are announced on.
async fn announcements(pool: &PgPool) -> sqlx::postgres::PgListener {
    let mut listener = sqlx::postgres::PgListener::connect_with(pool).await.expect("listener");
    listener
        .listen(tablekeeper::store::live::CHANNEL)
        .await
        .expect("listening");
    listener
}

async fn followed_until_is_ahead(pool: &PgPool, table: &str) -> Option<bool> {
    sqlx::query_scalar("select followed_until > now() from game_tables where id = $1::uuid")
        .bind(table)
        .fetch_one(pool)
        .await
        .expect("lease read")
}

#[sqlx::test(migrations = "./migrations")]
async fn a_move_is_announced_only_once_some_replica_follows_its_table(pool: PgPool) {
    // Arrange: two replicas, a table nobody follows, and an ear on the announcement channel.
    let (a, b) = (replica(&pool).await, replica(&pool).await);
    let app = TestApp::at(&a.base, pool.clone());
    let (token, table) = one_card_table(&app, None).await;
    let mut listener = announcements(&pool).await;
    let moves = one_card_deal(["2C", "3C", "4C", "5C"]);

    // Act and assert: unfollowed, a move is recorded and not announced.
    app.submit(&table, &token, moves[0].clone()).await.assert_status(201);
    assert_eq!(heard(&mut listener, Duration::from_millis(1000)).await, []);
    assert_eq!(followed_until_is_ahead(&pool, &table).await, None);

    // Followed on the other replica: the stream has the backlog, and every later move is
    // announced.
    let mut stream = Stream::open(&format!("{}/api/v1/tables/{table}/events", b.base), &token, None).await;
    assert_eq!(followed_until_is_ahead(&pool, &table).await, Some(true));
    assert_eq!(stream.next(WAIT).await.expect("the backlog").id.as_deref(), Some("1"));
    app.submit(&table, &token, moves[1].clone()).await.assert_status(201);
    assert_eq!(
        heard(&mut listener, Duration::from_millis(1000)).await,
        [(table.clone(), 2)]
    );
    assert_eq!(
        stream.next(WAIT).await.expect("the live entry").id.as_deref(),
        Some("2")
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn an_undo_is_announced_only_while_some_replica_follows_its_table(pool: PgPool) {
    // Arrange: a table nobody follows, a move on it, and an ear on the announcement channel.
    let replica = replica(&pool).await;
    let app = TestApp::at(&replica.base, pool.clone());
    let (token, table) = one_card_table(&app, None).await;
    let mut listener = announcements(&pool).await;
    let moves = one_card_deal(["2C", "3C", "4C", "5C"]);
    let undo = format!("/api/v1/tables/{table}/undo");
    app.submit(&table, &token, moves[0].clone()).await.assert_status(201);

    // Act and assert: unfollowed, the undo is recorded and not announced.
    app.post(&undo, &token, json!({})).await.assert_status(200);
    assert_eq!(heard(&mut listener, Duration::from_millis(1000)).await, []);

    // Followed: the move and its undo are both announced.
    let mut stream = Stream::open(&format!("{}/api/v1/tables/{table}/events", replica.base), &token, None).await;
    assert_eq!(stream.next(WAIT).await.expect("the backlog").id.as_deref(), Some("1"));
    app.submit(&table, &token, moves[0].clone()).await.assert_status(201);
    app.post(&undo, &token, json!({})).await.assert_status(200);
    assert_eq!(
        heard(&mut listener, Duration::from_millis(1000)).await,
        [(table.clone(), 3), (table.clone(), 4)]
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn a_lapsed_lease_delays_an_entry_until_the_renewal_and_loses_nothing(pool: PgPool) {
    // Arrange: a replica whose own renewals are far off, so the test renews by hand; a
    // follower of a table.
    let app = crate::helpers::spawn_app_with(pool.clone(), |s| s.live_lease = Duration::from_secs(3600)).await;
    let hub = app.hub.clone().expect("an app in this process");
    let (token, table) = one_card_table(&app, None).await;
    let moves = one_card_deal(["2C", "3C", "4C", "5C"]);
    let mut stream = Stream::open(&format!("{}/api/v1/tables/{table}/events", app.base), &token, None).await;
    app.submit(&table, &token, moves[0].clone()).await.assert_status(201);
    assert_eq!(stream.next(WAIT).await.expect("announced").id.as_deref(), Some("1"));

    // Act: the lease lapses (as if the replica had stalled past it), and a move lands.
    sqlx::query("update game_tables set followed_until = now() - interval '1 second' where id = $1::uuid")
        .bind(&table)
        .execute(&pool)
        .await
        .expect("lease lapsed");
    app.submit(&table, &token, moves[1].clone()).await.assert_status(201);
    assert!(
        stream.next(Duration::from_millis(1000)).await.is_none(),
        "not announced while nobody held a lease"
    );

    // Assert: the renewal leases the table again and catches the follower up from the log.
    hub.renew_once().await;
    assert_eq!(followed_until_is_ahead(&pool, &table).await, Some(true));
    assert_eq!(stream.next(WAIT).await.expect("caught up").id.as_deref(), Some("2"));
    app.submit(&table, &token, moves[2].clone()).await.assert_status(201);
    assert_eq!(
        stream.next(WAIT).await.expect("announced again").id.as_deref(),
        Some("3")
    );
    assert!(
        stream.next(Duration::from_millis(500)).await.is_none(),
        "nothing repeated"
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn a_table_opened_in_a_followed_session_is_followed_from_the_start(pool: PgPool) {
    // Arrange: a board follows a session that has no tables yet.
    let (a, b) = (replica(&pool).await, replica(&pool).await);
    let app = TestApp::at(&a.base, pool.clone());
    let token = app.organiser("board@example.com").await;
    let session = app.session(&token, "Friday").await;
    let mut board = Stream::open(&format!("{}/api/v1/sessions/{session}/events", b.base), &token, None).await;

    // Act: a table is opened in it, and a move recorded there.
    let body = json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat", "Dan"], "session_id": session,
        "options": {"hand_sizes": [1], "hook_from_hand_size": 9}});
    let table = app.post("/api/v1/tables", &token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    assert_eq!(followed_until_is_ahead(&pool, &table).await, Some(true));
    app.submit(&table, &token, one_card_deal(["2C", "3C", "4C", "5C"])[0].clone())
        .await
        .assert_status(201);

    // Assert: the board hears of it.
    let change = board.next(WAIT).await.expect("the new table's change");
    assert_eq!(change.data["table_id"], table);
    assert_eq!(change.data["version"], 1);
}

#[sqlx::test(migrations = "./migrations")]
async fn each_session_stream_change_carries_a_receipt_for_the_head_the_answer_signed(pool: PgPool) {
    let app = spawn_app(pool).await;
    let key = app.get("/api/v1/audit-key").await.assert_status(200)["public_key"]
        .as_str()
        .map(tablekeeper::service::receipts::public_key)
        .expect("a key")
        .expect("an Ed25519 key");
    let token = app.organiser("board@example.com").await;
    let session = app.session(&token, "Thursday").await;
    let body = json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat", "Dan"], "session_id": session,
        "options": {"hand_sizes": [1], "hook_from_hand_size": 9}});
    let created = app
        .post("/api/v1/tables", &token, body)
        .await
        .assert_status(201)
        .clone();
    let table = created["id"].as_str().expect("id").to_owned();
    let mut board = Stream::open(&format!("{}/api/v1/sessions/{session}/events", app.base), &token, None).await;

    // The streamed receipt is the answer's but for when it was issued: the same table, session,
    // chain position, head and key, and its own valid signature.
    let same_head = |streamed: &Value, answered: &Value, version: i64| {
        let receipt = &streamed["receipt"];
        for member in ["table", "session", "position", "head", "key_id", "checkpoint"] {
            assert_eq!(receipt[member], answered[member], "version {version}: {member}");
        }
        let read: tablekeeper::service::receipts::Receipt = serde_json::from_value(receipt.clone()).expect("a receipt");
        tablekeeper::service::receipts::check_signature(&read, receipt, &[key])
            .unwrap_or_else(|e| panic!("version {version}: {e}"));
    };
    let opening = board.next(WAIT).await.expect("the table as it is");
    assert_eq!(opening.data["version"], 0);
    same_head(&opening.data, &created["receipt"], 0);

    for (i, mv) in one_card_deal(["2C", "3C", "4C", "5C"]).into_iter().enumerate() {
        let version = i as i64 + 1;
        let answer = app.submit(&table, &token, mv).await;
        answer.assert_status(201);
        let mut change = board.next(WAIT).await.expect("a change");
        while change.data["version"].as_i64() < Some(version) {
            change = board.next(WAIT).await.expect("a change");
        }
        same_head(&change.data, &answer.body["receipt"], version);
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn each_table_stream_entry_carries_a_receipt_for_its_link_live_and_from_the_log_alike(pool: PgPool) {
    let app = spawn_app(pool).await;
    let key = crate::evidence::server_key(&app).await;
    let token = app.organiser("ann@example.com").await;
    let session = app.session(&token, "Thursday").await;
    let body = json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat", "Dan"], "session_id": session,
        "options": {"hand_sizes": [1], "hook_from_hand_size": 9}});
    let table = app.post("/api/v1/tables", &token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let mut live = Stream::open(&format!("{}/api/v1/tables/{table}/events", app.base), &token, None).await;

    let mut answered = Vec::new();
    for mv in one_card_deal(["2C", "3C", "4C", "5C"]) {
        answered.push(app.submit(&table, &token, mv).await.assert_status(201)["receipt"].clone());
    }
    let mut streamed = Vec::new();
    for (i, answer) in answered.iter().enumerate() {
        let event = live.next(WAIT).await.expect("an entry");
        let receipt = event.data["receipt"].clone();
        assert_eq!(receipt["table"], table.as_str(), "entry {}", i + 1);
        assert_eq!(receipt["session"], session.as_str(), "entry {}", i + 1);
        // The entry's own link: the answer's receipt signs it, or the bookings after it.
        let (at, of_answer) = (receipt["position"].as_i64(), answer["position"].as_i64());
        assert!(at.is_some() && at <= of_answer, "entry {}: {receipt} {answer}", i + 1);
        if at == of_answer {
            assert_eq!(receipt["head"], answer["head"], "entry {}", i + 1);
        }
        streamed.push(receipt);
    }
    // From the log, on resuming: the same receipts to the byte (issued at each entry's time).
    let mut resumed = Stream::open(&format!("{}/api/v1/tables/{table}/events", app.base), &token, Some(0)).await;
    for receipt in &streamed {
        assert_eq!(resumed.next(WAIT).await.expect("an entry").data["receipt"], *receipt);
    }
    // Each is signed by the server's key and names a link the session's bundle holds.
    let bytes = crate::evidence::bundle(&app, &session).await;
    let summary = tablekeeper::service::bundle::verify_with(&bytes, &[key], &crate::evidence::kept(&streamed))
        .expect("every streamed receipt is in the chain");
    assert!(summary.contains("8 receipts found in the chains"), "{summary}");
}

/// The seqs of the `entry` events in `buffer`'s complete blocks, which are drained from it.
fn entry_ids(buffer: &mut String) -> Vec<i64> {
    let mut ids = Vec::new();
    while let Some(end) = buffer.find("\n\n") {
        let block: String = buffer.drain(..end + 2).collect();
        if let Some(id) = block.lines().find_map(|l| l.strip_prefix("id:")) {
            ids.push(id.trim().parse().expect("an entry's id is its seq"));
        }
    }
    ids
}

/// One subscriber of a stopping replica: follows `url_a` until that stream ends, then resumes
/// on `url_b` with `Last-Event-ID` (again, as `EventSource` does, when a replica is busy and
/// answers 503) until it has entry `last`. Returns the seqs from each replica.
async fn follow_then_resume(
    client: reqwest::Client,
    token: String,
    [url_a, url_b]: [String; 2],
    last: i64,
    (opening, opened): (Arc<tokio::sync::Semaphore>, tokio::sync::mpsc::Sender<()>),
) -> (Vec<i64>, Vec<i64>) {
    let mut first = Vec::new();
    let mut response = {
        // A few open at once; a busy replica's 503 is retried, as `EventSource` does.
        let _turn = opening.acquire().await.expect("the semaphore stays open");
        let mut attempts = 0;
        loop {
            // Bounded, so that a replica that never answers fails the test instead of hanging it.
            let response = tokio::time::timeout(Duration::from_secs(60), client.get(&url_a).bearer_auth(&token).send())
                .await
                .expect("the stopping replica answers within a minute")
                .expect("stream opens");
            attempts += 1;
            if response.status() != 503 || attempts == 50 {
                break response;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    };
    assert_eq!(response.status(), 200);
    drop(opened);
    let mut buffer = String::new();
    // Until the stopping replica ends the stream (cleanly or not).
    while let Ok(Ok(Some(chunk))) = tokio::time::timeout(Duration::from_secs(60), response.chunk()).await {
        buffer.push_str(&String::from_utf8_lossy(&chunk).replace("\r\n", "\n"));
        first.extend(entry_ids(&mut buffer));
    }
    let mut resumed = Vec::new();
    let mut attempts = 0;
    while resumed.last().or(first.last()).copied().unwrap_or(0) < last {
        attempts += 1;
        assert!(attempts <= 50, "could not resume on the other replica");
        let after = resumed.last().or(first.last()).copied().unwrap_or(0);
        let answer = client
            .get(&url_b)
            .bearer_auth(&token)
            .header("Last-Event-ID", after.to_string())
            .send()
            .await;
        let Ok(mut response) = answer.and_then(reqwest::Response::error_for_status) else {
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        };
        let mut buffer = String::new();
        'stream: while let Ok(Ok(Some(chunk))) = tokio::time::timeout(Duration::from_secs(60), response.chunk()).await {
            buffer.push_str(&String::from_utf8_lossy(&chunk).replace("\r\n", "\n"));
            resumed.extend(entry_ids(&mut buffer));
            if resumed.last().is_some_and(|seq| *seq >= last) {
                break 'stream;
            }
        }
    }
    (first, resumed)
}

/// One result (a one-card deal) at each table, in turn.
async fn record_round(app: &TestApp, token: &str, tables: &[String]) {
    let result = json!({"kind": "result", "nominations": [0, 1, 0, 0], "tricks": [0, 1, 0, 0]});
    for table in tables {
        app.submit(table, token, result.clone()).await.assert_status(201);
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn a_replica_stopped_with_hundreds_of_streams_open_exits_within_its_grace_and_its_subscribers_resume_on_the_other(
    pool: PgPool,
) {
    // Arrange: replica `a` holds 300 streams of four tables; the scorers record through `b`.
    const TABLES: usize = 4;
    const STREAMS: usize = 300;
    const DEALS: i64 = 20;
    // Every stream comes from this one address: lift the caps on a client's requests in flight,
    // streams and connections.
    let uncapped = [
        ("MAX_REQUESTS_PER_CLIENT", "100000"),
        ("MAX_STREAMS_PER_CLIENT", "100000"),
        ("MAX_CONNECTIONS_PER_CLIENT", "100000"),
    ];
    let mut a = replica_with(&pool, &[&[("SHUTDOWN_GRACE_SECS", "3")][..], &uncapped].concat()).await;
    let b = replica_with(&pool, &uncapped).await;
    let app = TestApp::at(&b.base, pool.clone());
    let token = app.organiser("stop@example.com").await;
    let mut tables = Vec::new();
    for _ in 0..TABLES {
        tables.push(
            app.table(
                &token,
                &["Ann", "Bob", "Cat", "Dan"],
                json!({"hand_sizes": vec![1; DEALS as usize]}),
            )
            .await,
        );
    }
    for _ in 0..5 {
        record_round(&app, &token, &tables).await;
    }
    let client = reqwest::Client::new();
    let (opened, mut all_open) = tokio::sync::mpsc::channel::<()>(1);
    let opening = Arc::new(tokio::sync::Semaphore::new(8));
    let mut subscribers = Vec::new();
    for i in 0..STREAMS {
        let table = &tables[i % TABLES];
        let urls = [&a.base, &b.base].map(|base| format!("{base}/api/v1/tables/{table}/events"));
        subscribers.push(tokio::spawn(follow_then_resume(
            client.clone(),
            token.clone(),
            urls,
            DEALS,
            (opening.clone(), opened.clone()),
        )));
    }
    drop(opened);
    // Every stream is open (each sender is dropped once its stream answered 200).
    let opened = tokio::time::timeout(Duration::from_secs(180), all_open.recv()).await;
    assert!(opened.expect("all 300 streams open within 3 minutes").is_none());

    // Act: SIGTERM while the scorers go on recording, then record the rest once `a` is gone.
    let signalled = std::time::Instant::now();
    let killed = Command::new("kill")
        .args(["-TERM", &a.child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    for _ in 0..5 {
        record_round(&app, &token, &tables).await;
    }
    let exited = loop {
        if let Some(status) = a.child.try_wait().expect("waits") {
            break Some(status);
        }
        if signalled.elapsed() > Duration::from_secs(5) {
            break None;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let status = exited.expect("replica a exited within 5 s of SIGTERM (its grace is 3 s)");
    assert!(status.success(), "{status:?}");
    for _ in 10..DEALS {
        record_round(&app, &token, &tables).await;
    }

    // Assert: every subscriber has every entry exactly once, in order, part of them from `b`.
    let every: Vec<i64> = (1..=DEALS).collect();
    for subscriber in subscribers {
        let (first, resumed) = tokio::time::timeout(Duration::from_secs(120), subscriber)
            .await
            .expect("every subscriber catches up")
            .expect("the subscriber ran");
        assert!(!resumed.is_empty(), "the subscriber resumed on the other replica");
        let got: Vec<i64> = first.iter().chain(&resumed).copied().collect();
        assert_eq!(got, every, "from a: {first:?}, resumed on b: {resumed:?}");
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn announced_apart_as_on_citus_every_entry_reaches_followers_once_and_a_refused_one_never(pool: PgPool) {
    // Arrange: two replicas that announce a move and queue its webhooks in statements of their
    // own (what Citus needs: its workers run the write, replicas listen on the coordinator), a
    // table with a webhook for finished deals, and an ear on the announcement channel.
    let apart = [("ANNOUNCE_APART", "true")];
    let (a, b) = (replica_with(&pool, &apart).await, replica_with(&pool, &apart).await);
    let app = TestApp::at(&a.base, pool.clone());
    let (token, table) = one_card_table(&app, None).await;
    let club: uuid::Uuid = sqlx::query_scalar("select club_id from game_tables where id = $1::uuid")
        .bind(&table)
        .fetch_one(&pool)
        .await
        .expect("the table's club");
    app.post(
        &format!("/api/v1/clubs/{club}/webhooks"),
        &token,
        json!({"url": "http://127.0.0.1:9/hooks", "events": ["deal.finished"]}),
    )
    .await
    .assert_status(201);
    let mut listener = announcements(&pool).await;
    let moves = one_card_deal(["2C", "3C", "4C", "5C"]);

    // Act and assert: unfollowed, a move is recorded and not announced.
    app.submit(&table, &token, moves[0].clone()).await.assert_status(201);
    assert_eq!(heard(&mut listener, Duration::from_millis(1000)).await, []);

    // Followed on the other replica: every later entry, an undo and the move that finishes the
    // deal among them, is announced once and reaches the follower once, in order; a refused
    // move announces nothing.
    let mut stream = Stream::open(&format!("{}/api/v1/tables/{table}/events", b.base), &token, None).await;
    assert_eq!(stream.next(WAIT).await.expect("the backlog").id.as_deref(), Some("1"));
    app.submit(&table, &token, json!({"kind": "nominate", "seat": 3, "tricks": 0}))
        .await
        .assert_problem(422, "not_your_turn");
    app.submit(&table, &token, moves[1].clone()).await.assert_status(201);
    app.post(&format!("/api/v1/tables/{table}/undo"), &token, json!({}))
        .await
        .assert_status(200);
    for mv in &moves[1..] {
        app.submit(&table, &token, mv.clone()).await.assert_status(201);
    }
    let announced: Vec<i64> = heard(&mut listener, Duration::from_millis(1500))
        .await
        .into_iter()
        .map(|(t, seq)| {
            assert_eq!(t, table);
            seq
        })
        .collect();
    assert_eq!(announced, (2..=10).collect::<Vec<i64>>());
    let mut received = Vec::new();
    while let Some(event) = stream.next(Duration::from_millis(1500)).await {
        received.push(event.id.expect("an id"));
    }
    assert_eq!(received, (2..=10).map(|n| n.to_string()).collect::<Vec<_>>());

    // The deal's end queued its webhook in the move's transaction, once.
    let queued: i64 = sqlx::query_scalar("select count(*) from webhook_deliveries where event_type = 'deal.finished'")
        .fetch_one(&pool)
        .await
        .expect("the outbox");
    assert_eq!(queued, 1);
    assert_audit_consistent(&app, &table).await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_move_written_apart_leaves_its_announcement_to_the_statements_after_it(pool: PgPool) {
    use tablekeeper::store::move_path::{write_move, MoveWrite, NewMove};
    // Arrange: a table some replica follows (its lease ahead), and an ear on the channel.
    let app = spawn_app(pool.clone()).await;
    let (_, table) = one_card_table(&app, None).await;
    sqlx::query("update game_tables set followed_until = now() + interval '1 hour' where id = $1::uuid")
        .bind(&table)
        .execute(&pool)
        .await
        .expect("a lease");
    let mut conn = pool.acquire().await.expect("conn");
    let row = tablekeeper::store::tables::fetch(&mut conn, table.parse().expect("an id"))
        .await
        .expect("the table");
    let mut listener = announcements(&pool).await;
    let by = format!("organiser:{}", row.owner_id);
    let body = json!({"kind": "nominate", "seat": 1, "tricks": 0});
    let write = |seq: i64, payload: &'static str, apart: bool| MoveWrite::<Value> {
        new: NewMove {
            seq,
            kind: "nominate",
            seat: Some(1),
            body: &body,
            events: "[]",
            recorded_by: &by,
        },
        finished: false,
        bookings: Vec::new(),
        booking_ids: &[],
        postings: Vec::new(),
        lines: &[],
        snapshot: None,
        announce: (tablekeeper::store::live::CHANNEL, payload),
        answer: None,
        links: &[],
        tree: None,
        now: chrono::Utc::now(),
        events: &[],
        club: row.club_id,
        apart,
    };

    // Act and assert: written apart, the statement announces nothing itself and says the table
    // is followed, for the caller's own `NOTIFY` (on Citus, the coordinator's).
    let followed = write_move(&mut conn, row.key(), write(1, "apart", true))
        .await
        .expect("written");
    assert_eq!(followed, Some(true));
    assert!(heard_payloads(&mut listener).await.is_empty());
    // In its one write (plain PostgreSQL), the statement announces the move itself.
    let followed = write_move(&mut conn, row.key(), write(2, "in the write", false))
        .await
        .expect("written");
    assert_eq!(followed, Some(false));
    assert_eq!(heard_payloads(&mut listener).await, ["in the write"]);
    // A write at a version already taken writes and announces nothing, either way.
    assert_eq!(
        write_move(&mut conn, row.key(), write(2, "lost", false))
            .await
            .expect("ran"),
        None
    );
    assert_eq!(
        write_move(&mut conn, row.key(), write(2, "lost apart", true))
            .await
            .expect("ran"),
        None
    );
    assert!(heard_payloads(&mut listener).await.is_empty());
}

/// The payloads heard on the channel within a second.
async fn heard_payloads(listener: &mut sqlx::postgres::PgListener) -> Vec<String> {
    let mut out = Vec::new();
    while let Ok(Ok(notification)) = tokio::time::timeout(Duration::from_millis(1000), listener.recv()).await {
        out.push(notification.payload().to_owned());
    }
    out
}

#[sqlx::test(migrations = "./migrations")]
async fn a_followed_session_hears_each_table_a_tournament_round_opens_and_the_round_s_start_and_close(pool: PgPool) {
    // Arrange: a board follows a session with a tournament of eight at four-seat tables.
    let app = spawn_app(pool).await;
    let token = app.organiser("board@example.com").await;
    let session = app.session(&token, "Drive night").await;
    let club = app.get(&format!("/api/v1/sessions/{session}")).await.assert_status(200)["club_id"].clone();
    let club = club.as_str().expect("club");
    let mut entrants = Vec::new();
    for i in 1..=8 {
        let made = app
            .post(
                &format!("/api/v1/clubs/{club}/members"),
                &token,
                json!({"name": format!("P{i}")}),
            )
            .await;
        entrants.push(made.assert_status(201)["id"].clone());
    }
    let body = json!({"name": "Drive", "game": "nomination-whist", "format": {"kind": "progressive", "move": "winner"},
        "seats": {"min": 4, "max": 4}, "rounds": 2, "entrants": entrants, "scoring": {"kind": "points"}});
    let tournament = app
        .post(&format!("/api/v1/sessions/{session}/tournaments"), &token, body)
        .await
        .assert_status(201)["id"]
        .clone();
    let tournament = tournament.as_str().expect("id");
    let mut board = Stream::open(&format!("{}/api/v1/sessions/{session}/events", app.base), &token, None).await;

    // Act: the first round starts.
    let started = app
        .post(&format!("/api/v1/tournaments/{tournament}/rounds"), &token, json!({}))
        .await
        .assert_status(201)
        .clone();

    // Assert: the board hears of both tables as they were opened, and of the round's start.
    let mut opened: Vec<String> = started["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|t| t["table_id"].as_str().expect("id").to_owned())
        .collect();
    opened.sort();
    let mut heard = Vec::new();
    let mut rounds = Vec::new();
    for _ in 0..3 {
        let change = board.next(WAIT).await.expect("a new table or the round");
        if change.event.as_deref() == Some("tournament") {
            rounds.push(change.data);
            continue;
        }
        assert_eq!(change.event.as_deref(), Some("table"));
        assert_eq!(change.data["version"], 0, "{:?}", change.data);
        heard.push(change.data["table_id"].as_str().expect("id").to_owned());
    }
    heard.sort();
    assert_eq!(heard, opened);
    assert_eq!(
        rounds,
        [json!({"tournament_id": tournament, "round": 1, "round_closed": false})]
    );

    // Closing the round, which changes no table, is heard too; a refused close is not.
    app.post(
        &format!("/api/v1/tournaments/{tournament}/rounds/1/close"),
        &token,
        json!({}),
    )
    .await
    .assert_status(200);
    let closed = board.next(WAIT).await.expect("the round's close");
    assert_eq!(closed.event.as_deref(), Some("tournament"));
    assert_eq!(
        closed.data,
        json!({"tournament_id": tournament, "round": 1, "round_closed": true})
    );
    app.post(
        &format!("/api/v1/tournaments/{tournament}/rounds/1/close"),
        &token,
        json!({}),
    )
    .await
    .assert_problem(409, "round_closed");
    assert!(board.next(Duration::from_millis(500)).await.is_none(), "nothing more");
}

#[sqlx::test(migrations = "./migrations")]
async fn a_lease_renewal_passes_over_a_table_a_move_holds_and_renews_it_at_the_next_round(pool: PgPool) {
    // Arrange: two followed tables, one of whose rows a move's transaction holds.
    let app = spawn_app(pool.clone()).await;
    let (token, held) = one_card_table(&app, None).await;
    let body = json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat", "Dan"]});
    let free = app.post("/api/v1/tables", &token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let ids: Vec<uuid::Uuid> = [&held, &free].iter().map(|t| t.parse().expect("uuid")).collect();
    let lease = Duration::from_secs(30);
    let mut conn = pool.acquire().await.expect("a connection");
    tablekeeper::store::live::follow_tables(&mut conn, &ids, lease)
        .await
        .expect("followed");
    let mut moving = pool.begin().await.expect("a transaction");
    sqlx::query("select version from game_tables where id = $1::uuid for no key update")
        .bind(&held)
        .execute(&mut *moving)
        .await
        .expect("the row held");

    // Act: a renewal while the row is held (bounded, so that a renewal that waited for the
    // move fails the test instead of hanging it).
    let renewed = tokio::time::timeout(WAIT, tablekeeper::store::live::renew_tables(&mut conn, &ids, lease))
        .await
        .expect("the renewal waits for no move")
        .expect("renewed");

    // Assert: the free table was renewed, the held one passed over; once the move ends, the
    // next round renews it.
    assert_eq!(
        renewed.iter().map(|(id, _)| id.to_string()).collect::<Vec<_>>(),
        std::slice::from_ref(&free)
    );
    moving.rollback().await.expect("released");
    let renewed = tablekeeper::store::live::renew_tables(&mut conn, &ids, lease)
        .await
        .expect("renewed");
    let mut names: Vec<String> = renewed.iter().map(|(id, _)| id.to_string()).collect();
    names.sort();
    let mut both = vec![held, free];
    both.sort();
    assert_eq!(names, both);
}

/// The `live_entries_total` count of this replica's metrics, `from` the announcement or the
/// database.
async fn live_entries(app: &TestApp, from: &str) -> u64 {
    let text = app.metrics().await;
    let line = format!("tablekeeper_live_entries_total{{from=\"{from}\"}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(line.as_str()))
        .map_or(0, |n| n.trim().parse().expect("a count"))
}

/// A session line as a board draws it, without what differs between two signings of the same
/// head (when it was issued, and so its signature).
fn line_drawn(line: &Value) -> Value {
    let mut line = line.clone();
    if let Some(receipt) = line["receipt"].as_object_mut() {
        receipt.remove("at");
        receipt.remove("signature");
    }
    line
}

#[sqlx::test(migrations = "./migrations")]
async fn a_move_is_folded_from_its_announcement_on_every_replica_and_sent_on_as_if_read(pool: PgPool) {
    // Arrange: one replica streams a chip table (a move books chips: the entry's link is not the
    // answer's last), a points table in a session, and the session's board; the chip table's
    // moves are recorded on it, the points table's on another replica.
    let app = spawn_app(pool.clone()).await;
    let other = spawn_app(pool).await;
    let token = app.organiser("ann@example.com").await;
    let body = json!({"game": "pope-joan", "players": ["Eve", "Fay", "Gus", "Hal", "Ida"]});
    let chips = app.post("/api/v1/tables", &token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let whist_token = token.clone();
    let session = app.session(&token, "Thursday").await;
    let body = json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat", "Dan"], "session_id": session,
        "options": {"hand_sizes": [1, 1, 1], "hook_from_hand_size": 9}});
    let whist = app.post("/api/v1/tables", &token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let url = |table: &str| format!("{}/api/v1/tables/{table}/events", app.base);
    let board_url = format!("{}/api/v1/sessions/{session}/events", app.base);
    let mut chip_stream = Stream::open(&url(&chips), &token, None).await;
    let mut whist_stream = Stream::open(&url(&whist), &whist_token, None).await;
    let mut board = Stream::open(&board_url, &whist_token, None).await;
    assert_eq!(board.next(WAIT).await.expect("the table as it is").data["version"], 0);
    let (announced, read_back) = (
        live_entries(&app, "announcement").await,
        live_entries(&app, "database").await,
    );

    // Act: moves, each heard before the next.
    app.submit(&chips, &token, json!({"kind": "turn_up", "card": "2S"}))
        .await
        .assert_status(201);
    let mut heard = vec![chip_stream.next(WAIT).await.expect("the turn-up").data];
    let result = json!({"kind": "result", "out": 0, "cards_left": [0, 3, 2, 5, 1],
        "specials": [[], [], [], [], ["9D"]], "pope_cards_left": [5, 4, 6, 7, 3]});
    let answer = app.submit(&chips, &token, result).await.assert_status(201).clone();
    let event = chip_stream.next(WAIT).await.expect("the result");
    heard.push(event.data.clone());
    // Assert: the entry's receipt is for its own link, the bookings' links after it.
    let receipt = &event.data["receipt"];
    assert!(
        receipt["position"].as_i64() < answer["receipt"]["position"].as_i64(),
        "{receipt} {}",
        answer["receipt"]
    );
    assert_eq!(event.data["table"], app.state(&chips).await, "the table as it reads");
    // The points table's deal, recorded on the other replica, with an undo after the second
    // nomination (a void is read back, and the move after it folded onto what was read).
    let mut moves: Vec<Option<Value>> = one_card_deal(["2C", "3C", "4C", "5C"]).into_iter().map(Some).collect();
    moves.insert(2, None);
    moves.insert(3, Some(json!({"kind": "nominate", "seat": 2, "tricks": 0})));
    for (i, mv) in moves.into_iter().enumerate() {
        let version = i + 1;
        match mv {
            Some(mv) => other.submit(&whist, &whist_token, mv).await.assert_status(201),
            None => other
                .post(&format!("/api/v1/tables/{whist}/undo"), &whist_token, json!({}))
                .await
                .assert_status(200),
        };
        let event = whist_stream.next(WAIT).await.expect("the entry");
        assert_eq!(event.data["version"], version);
        let reads = app.get_as(&format!("/api/v1/tables/{whist}"), &whist_token).await;
        assert_eq!(
            event.data["table"],
            *reads.assert_status(200),
            "entry {version}: the table as it reads"
        );
        heard.push(event.data.clone());
        // The board's line is the one a board opened now reads, to its receipt's checkpoint.
        let mut line = board.next(WAIT).await.expect("a change");
        while line.data["version"].as_i64() < Some(version as i64) {
            line = board.next(WAIT).await.expect("a change");
        }
        let mut fresh = Stream::open(&board_url, &whist_token, None).await;
        let read = fresh.next(WAIT).await.expect("the table as it is");
        assert_eq!(line_drawn(&line.data), line_drawn(&read.data), "entry {version}");
    }

    // Only the void was read back: every move was folded here from its announcement, the first
    // of each table onto the state kept when the table was first followed. Each is, to the byte,
    // the entry and receipt a stream resumed from the log reads.
    assert_eq!(live_entries(&app, "announcement").await - announced, 2 + 9);
    assert_eq!(live_entries(&app, "database").await - read_back, 1);
    let mut resumed = Stream::open(&url(&chips), &token, Some(0)).await;
    for live in &heard[..2] {
        let again = resumed.next(WAIT).await.expect("a chip table's entry from the log");
        assert_eq!(again.data["receipt"], live["receipt"]);
        assert_eq!(again.data["entry"], live["entry"]);
    }
    let mut resumed = Stream::open(&url(&whist), &whist_token, Some(0)).await;
    for live in &heard[2..] {
        let again = resumed.next(WAIT).await.expect("an entry from the log");
        assert_eq!(again.data["receipt"], live["receipt"]);
        // But for the undone nomination, voided since it was heard.
        let mut entry = again.data["entry"].clone();
        if entry["seq"] == 2 {
            assert_eq!(entry["voided_by"], 3);
            entry["voided_by"] = Value::Null;
        }
        assert_eq!(entry, live["entry"]);
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn a_member_anonymised_at_a_followed_table_is_streamed_by_the_new_name_with_its_next_move(pool: PgPool) {
    // Arrange: Bob, a member with no account, seated at a club table whose state this replica
    // keeps after streaming its first deal.
    let app = spawn_app(pool).await;
    let ann = crate::clubs::account(&app, "ann@club.example", "Ann").await;
    let club = crate::clubs::club(&app, &ann, "Thursday whist").await;
    let bob = app
        .post(
            &format!("/api/v1/clubs/{club}/members"),
            &ann,
            json!({"name": "Bob Brown"}),
        )
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let session = app
        .post("/api/v1/sessions", &ann, json!({"name": "Thursday", "club_id": club}))
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let body = json!({"game": "nomination-whist", "players": ["Ann", "Bob Brown", "Cat", "Dan"],
        "members": [{"seat": 1, "member": bob}], "options": {"hand_sizes": [1, 1]}, "session_id": session});
    let table = app.post("/api/v1/tables", &ann, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let mut stream = Stream::open(&format!("{}/api/v1/tables/{table}/events", app.base), &ann, None).await;
    let deal = json!({"kind": "result", "nominations": [0, 1, 0, 0], "tricks": [0, 1, 0, 0]});
    app.submit(&table, &ann, deal.clone()).await.assert_status(201);
    let first = stream.next(WAIT).await.expect("deal 1");
    assert_eq!(first.data["table"]["players"][1], "Bob Brown");
    let read_back = live_entries(&app, "database").await;

    // Act: Bob leaves and is anonymised (no entry in the table's log), then deal 2 is played.
    crate::clubs::patch(
        &app,
        &format!("/api/v1/clubs/{club}/members/{bob}"),
        &ann,
        json!({"active": false}),
    )
    .await
    .assert_status(200);
    app.request(
        reqwest::Method::POST,
        &format!("/api/v1/clubs/{club}/members/{bob}/anonymise"),
        Some(&ann),
        None,
    )
    .await
    .assert_status(200);
    app.submit(&table, &ann, deal).await.assert_status(201);

    // Assert: the kept state was forgotten, and the entry carries the table as it now reads.
    let second = stream.next(WAIT).await.expect("deal 2");
    assert_eq!(second.data["version"], 2);
    assert_eq!(second.data["table"]["players"][1], "Former member 1");
    assert_eq!(second.data["table"], app.state(&table).await, "the table as it reads");
    assert_eq!(
        live_entries(&app, "database").await - read_back,
        1,
        "read back, not folded"
    );
}
