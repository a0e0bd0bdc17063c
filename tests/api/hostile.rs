//! Slow and hostile clients, and a frozen database (issue #24): nothing holds the service.
//! A request body that never arrives is answered 408 and its connection closed; a database that
//! accepts connections and never answers gives 503 within the deadlines, and `/readyz` says so.

use std::net::SocketAddr;
use std::time::Duration;

use reqwest::Method;
use serde_json::json;
use sqlx::PgPool;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use crate::helpers::{database_url, spawn_app_with};

/// A TCP proxy in front of PostgreSQL that can freeze: while frozen it accepts connections and
/// bytes but forwards nothing, as a postmaster stopped with SIGSTOP would behave.
struct FreezingProxy {
    addr: SocketAddr,
    frozen: watch::Sender<bool>,
}

impl FreezingProxy {
    async fn start(upstream: String) -> FreezingProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("proxy binds");
        let addr = listener.local_addr().expect("proxy address");
        let frozen = watch::Sender::new(false);
        let subscribe = frozen.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let Ok(server) = TcpStream::connect(&upstream).await else {
                    continue;
                };
                let (client_read, client_write) = client.into_split();
                let (server_read, server_write) = server.into_split();
                tokio::spawn(forward(client_read, server_write, subscribe.subscribe()));
                tokio::spawn(forward(server_read, client_write, subscribe.subscribe()));
            }
        });
        FreezingProxy { addr, frozen }
    }

    fn freeze(&self, frozen: bool) {
        self.frozen.send_replace(frozen);
    }
}

/// Copies bytes one way, holding them (never losing them) while frozen.
async fn forward(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    mut frozen: watch::Receiver<bool>,
) {
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        let read = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if frozen.wait_for(|frozen| !*frozen).await.is_err() {
            return;
        }
        if to.write_all(&buffer[..read]).await.is_err() {
            return;
        }
    }
}

/// `url` with its host and port replaced by `addr`, and the host and port it named.
fn through(url: &str, addr: SocketAddr) -> (String, String) {
    let authority_start = url
        .find('@')
        .map_or_else(|| url.find("://").map_or(0, |i| i + 3), |i| i + 1);
    let authority_end = url[authority_start..]
        .find('/')
        .map_or(url.len(), |i| authority_start + i);
    let upstream = url[authority_start..authority_end].to_owned();
    let upstream = if upstream.contains(':') {
        upstream
    } else {
        format!("{upstream}:5432")
    };
    (
        format!("{}{addr}{}", &url[..authority_start], &url[authority_end..]),
        upstream,
    )
}

/// The acquire timeout the frozen-database test configures, and how much later than it a 503 may
/// arrive: timers on a busy machine, the request's own way through the server.
const ACQUIRE: Duration = Duration::from_millis(1000);
const MARGIN: Duration = Duration::from_millis(1000);

#[sqlx::test(migrations = "./migrations")]
async fn a_frozen_database_is_answered_503_within_the_acquire_timeout_and_readyz_says_so(pool: PgPool) {
    let direct = database_url(&pool);
    let (_, upstream) = through(&direct, "127.0.0.1:1".parse().expect("address"));
    let proxy = FreezingProxy::start(upstream).await;
    let (proxied_url, _) = through(&direct, proxy.addr);
    // A statement timeout far beyond the acquire timeout: it cannot be what answers in time.
    let statement = Duration::from_secs(30);
    let proxied = tablekeeper::store::pool(&proxied_url, 4, ACQUIRE, Some(statement)).expect("pool");
    let mut app = spawn_app_with(proxied.clone(), |s| {
        s.database_acquire_timeout = ACQUIRE;
        s.database_statement_timeout = statement;
    })
    .await;
    app.client = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .expect("client");
    let organiser = app.organiser("ann@club.example").await;
    let table = app.table(&organiser, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let result = json!({"kind": "result", "nominations": [0, 1, 0, 0], "tricks": [0, 1, 0, 0]});
    app.submit(&table, &organiser, result.clone()).await.assert_status(201);
    app.get("/api/v1/readyz").await.assert_status(200);

    proxy.freeze(true);

    // Each answer below must arrive within the acquire timeout and the margin.
    let in_time = |what: &str, started: std::time::Instant| {
        let took = started.elapsed();
        assert!(
            took < ACQUIRE + MARGIN,
            "{what}: 503 after {took:?}, beyond the acquire timeout {ACQUIRE:?} and {MARGIN:?}"
        );
    };
    let started = std::time::Instant::now();
    let ready = app.get("/api/v1/readyz").await;
    ready.assert_problem(503, "database_unavailable");
    assert!(ready.headers.contains_key("retry-after"));
    in_time("readyz", started);
    app.get("/api/v1/healthz").await.assert_status(200);
    let started = std::time::Instant::now();
    let refused = app.submit(&table, &organiser, result.clone()).await;
    refused.assert_problem(503, "database_unavailable");
    assert!(refused.headers.contains_key("retry-after"));
    in_time("a move", started);
    let started = std::time::Instant::now();
    app.get(&format!("/api/v1/tables/{table}"))
        .await
        .assert_problem(503, "database_unavailable");
    in_time("a read", started);
    let started = std::time::Instant::now();
    app.request(
        Method::POST,
        "/api/v1/auth/login",
        None,
        Some(json!({"email": "ann@club.example", "password": "correct horse battery"})),
    )
    .await
    .assert_problem(503, "database_unavailable");
    in_time("a login", started);

    proxy.freeze(false);

    let mut recovered = false;
    for _ in 0..100 {
        if app.get("/api/v1/readyz").await.status == 200 {
            recovered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(recovered, "ready again once the database answers");
    // The refused move was never recorded: one entry in the log, as before the freeze.
    let version: i64 = sqlx::query_scalar("select version from game_tables where id = $1::uuid")
        .bind(&table)
        .fetch_one(&pool)
        .await
        .expect("version");
    assert_eq!(version, 1);
    proxied.close().await;
}

#[sqlx::test(migrations = "./migrations")]
async fn a_read_held_up_past_the_acquire_timeout_is_answered_not_cut_while_the_database_answers(pool: PgPool) {
    // Each knock has half of this to be answered: 150 ms of 300 was too little for a new
    // connection on CI's two loaded cores (the read was answered 503, the database declared
    // silent while it answered).
    let acquire = Duration::from_secs(1);
    let app = spawn_app_with(pool.clone(), |s| {
        s.database_acquire_timeout = acquire;
        s.database_statement_timeout = Duration::from_secs(30);
    })
    .await;
    let organiser = app.organiser("ann@club.example").await;
    let table = app.table(&organiser, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    // Another transaction holds every table row out of reach for three acquire timeouts (six
    // knocks): the read waits on it, while the database itself answers every knock.
    let mut holder = pool.begin().await.expect("tx");
    sqlx::query("lock table game_tables in access exclusive mode")
        .execute(&mut *holder)
        .await
        .expect("lock");
    let held = acquire * 3;
    let release = async {
        tokio::time::sleep(held).await;
        holder.rollback().await.expect("released");
    };
    let path = format!("/api/v1/tables/{table}");
    let started = std::time::Instant::now();
    let (read, ()) = tokio::join!(app.get(&path), release);
    read.assert_status(200);
    assert!(started.elapsed() >= held, "the read waited for the lock");
}

/// How many body-less requests the flood sends. Each is a socket in this process and a request
/// in flight on the server until its deadline; 1,000 as issue #24 names.
const FLOOD: usize = 1000;

/// Sends a request head announcing a body that never comes.
async fn bodiless(addr: &str, path: &str, forwarded_for: &str) -> Option<TcpStream> {
    let mut stream = TcpStream::connect(addr).await.ok()?;
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: 100\r\nX-Forwarded-For: {forwarded_for}\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.ok()?;
    Some(stream)
}

/// The status line's code of what the server answered on the stream, or None when it closed the
/// connection without an answer.
async fn answer_status(stream: &mut TcpStream) -> Option<(u16, String)> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte).await {
            Ok(1) => head.push(byte[0]),
            _ => break,
        }
    }
    let head = String::from_utf8_lossy(&head).to_lowercase();
    let status = head.split_whitespace().nth(1).and_then(|code| code.parse().ok())?;
    Some((status, head))
}

#[sqlx::test(migrations = "./migrations")]
async fn a_flood_of_bodiless_requests_from_one_address_holds_nothing(pool: PgPool) {
    let mut app = spawn_app_with(pool, |s| {
        s.request_body_timeout = Duration::from_millis(1000);
        s.max_requests_per_client = 64;
        // The test's clients all connect from 127.0.0.1: they name their addresses as a proxy
        // would, and 127.0.0.1 is trusted to.
        s.trusted_proxies = vec!["127.0.0.1/32".parse().expect("net")];
    })
    .await;
    app.client = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .expect("client");
    let organiser = app.organiser("ann@club.example").await;
    let table = app.table(&organiser, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let addr = app.base.trim_start_matches("http://").to_owned();
    let moves = format!("/api/v1/tables/{table}/moves");

    let mut flood = Vec::with_capacity(FLOOD);
    for _ in 0..FLOOD {
        if let Some(stream) = bodiless(&addr, &moves, "203.0.113.7").await {
            flood.push(stream);
        }
    }
    assert!(
        flood.len() >= FLOOD * 9 / 10,
        "only {} of the flood connected",
        flood.len()
    );

    // Another client, and the probe, are answered while the flood is held.
    let other = [("X-Forwarded-For", "198.51.100.2")];
    app.send(Method::GET, "/api/v1/healthz", None, None, &other)
        .await
        .assert_status(200);
    let result = json!({"kind": "result", "nominations": [0, 1, 0, 0], "tricks": [0, 1, 0, 0]});
    app.send(
        Method::POST,
        &moves,
        Some(&organiser),
        Some(json!({"move": result, "expected_version": 0}).to_string()),
        &other,
    )
    .await
    .assert_status(201);

    // Every flood request is answered, 408 once its deadline passes or 429 at once beyond the
    // address's cap, or its connection closed; none is left hanging.
    let (mut timed_out, mut refused, mut closed) = (0, 0, 0);
    for stream in &mut flood {
        match tokio::time::timeout(Duration::from_secs(10), answer_status(stream))
            .await
            .expect("answered or closed within 10 s")
        {
            Some((408, _)) => timed_out += 1,
            Some((429, head)) => {
                // The cap as draft-ietf-httpapi-ratelimit-headers-10 says one.
                assert!(
                    head.contains("\r\nratelimit-policy: \"in_flight\";q=64;qu=\"concurrent-requests\"\r\n")
                        && head.contains("\r\nratelimit: \"in_flight\";r=0\r\n"),
                    "{head}"
                );
                refused += 1;
            }
            None => closed += 1,
            Some((other, _)) => panic!("a body-less request was answered {other}"),
        }
    }
    // At most 64 wait at a time; more than 64 may time out in all when the flood took longer to
    // send than a deadline (a slow machine), as the first ones free their places.
    assert!(timed_out >= 1, "408s: {timed_out}");
    assert!(refused >= 1, "429s: {refused} (408s: {timed_out}, closed: {closed})");
    assert_eq!(timed_out + refused + closed, flood.len());
    // Nothing the flood sent was recorded.
    let version: i64 = sqlx::query_scalar("select version from game_tables where id = $1::uuid")
        .bind(&table)
        .fetch_one(&app.pool)
        .await
        .expect("version");
    assert_eq!(version, 1);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_body_that_stops_halfway_is_answered_408_and_changes_nothing(pool: PgPool) {
    let app = spawn_app_with(pool, |s| s.request_body_timeout = Duration::from_millis(500)).await;
    let organiser = app.organiser("ann@club.example").await;
    let table = app.table(&organiser, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let addr = app.base.trim_start_matches("http://").to_owned();

    let mut stream = TcpStream::connect(&addr).await.expect("connects");
    let body = json!({"move": {"kind": "result", "nominations": [0, 1, 0, 0], "tricks": [0, 1, 0, 0]}}).to_string();
    let head = format!(
        "POST /api/v1/tables/{table}/moves HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {organiser}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.expect("head sent");
    stream
        .write_all(&body.as_bytes()[..body.len() / 2])
        .await
        .expect("half the body sent");

    let mut answer = String::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_string(&mut answer))
        .await
        .expect("answered and closed within 10 s")
        .expect("read");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("application/problem+json"), "{answer}");
    assert!(answer.contains("\"code\":\"body_timeout\""), "{answer}");
    assert_eq!(app.state(&table).await["version"], 0);
}
