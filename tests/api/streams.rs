//! What one client address may hold open (issue #39): live streams count against a cap of
//! their own (`MAX_STREAMS_PER_CLIENT`), and connections, idle ones included, against another
//! (`MAX_CONNECTIONS_PER_CLIENT`), so that one address can neither multiply every move's work nor
//! use up the server's file descriptors.

use std::net::{IpAddr, SocketAddr};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::json;
use sqlx::PgPool;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::helpers::{database_url, spawn_app_with, TestApp, TEST_SECRET};

/// Opens a stream as a client at `forwarded_for` behind the trusted proxy 127.0.0.1; the
/// response once its head has arrived.
async fn open_stream(app: &TestApp, path: &str, token: &str, forwarded_for: &str) -> reqwest::Response {
    // A client of its own per stream: each stream holds its connection.
    reqwest::Client::new()
        .get(format!("{}{path}", app.base))
        .bearer_auth(token)
        .header("X-Forwarded-For", forwarded_for)
        .send()
        .await
        .expect("the stream's head arrives")
}

#[sqlx::test(migrations = "./migrations")]
async fn streams_beyond_an_address_cap_are_refused_429_until_one_of_its_streams_closes(pool: PgPool) {
    // Arrange: two streams per address; the test's clients name their addresses as a proxy would.
    let mut app = spawn_app_with(pool, |s| {
        s.max_streams_per_client = 2;
        s.trusted_proxies = vec!["127.0.0.1/32".parse().expect("net")];
    })
    .await;
    // A stream let through would never end: bounded, the test fails instead of hanging.
    app.client = reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .expect("client");
    let token = app.organiser("ann@club.example").await;
    let table = app.table(&token, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let session = app.session(&token, "Thursday").await;
    let table_events = format!("/api/v1/tables/{table}/events");
    let session_events = format!("/api/v1/sessions/{session}/events");
    let flood = "203.0.113.7";
    let first = open_stream(&app, &table_events, &token, flood).await;
    let second = open_stream(&app, &session_events, &token, flood).await;
    assert_eq!((first.status().as_u16(), second.status().as_u16()), (200, 200));

    // Act and assert: a third stream of either kind from that address is refused, with the
    // problem's code and when to retry (`send` checks the answer against the spec, 429 included).
    for path in [&table_events, &session_events] {
        let refused = app
            .send(Method::GET, path, Some(&token), None, &[("X-Forwarded-For", flood)])
            .await;
        refused.assert_problem(429, "too_many_streams");
        let retry: u64 = refused
            .headers
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok())
            .expect("Retry-After in seconds");
        assert!(retry >= 1);
        // The cap as draft-ietf-httpapi-ratelimit-headers-10 says one: streams held at once.
        let said = |name: &str| {
            refused
                .headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        assert_eq!(
            said("ratelimit-policy").as_deref(),
            Some("\"streams\";q=2;qu=\"concurrent-requests\"")
        );
        assert_eq!(said("ratelimit").as_deref(), Some("\"streams\";r=0"));
    }
    // Another address has streams of its own.
    let other = open_stream(&app, &table_events, &token, "198.51.100.2").await;
    assert_eq!(other.status(), 200);

    // Closing one of the address's streams frees its place, promptly.
    drop(first);
    let closed = Instant::now();
    let reopened = loop {
        let again = open_stream(&app, &table_events, &token, flood).await;
        if again.status() == 200 {
            break again;
        }
        assert_eq!(again.status(), 429);
        assert!(
            closed.elapsed() < Duration::from_secs(3),
            "the closed stream's place was still taken after {:?}",
            closed.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let content_type = reopened
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(content_type.starts_with("text/event-stream"), "{content_type}");
    drop((second, other, reopened));
}

/// The open-file limit the server of the next test runs under, soft and hard: what distributions
/// start services with.
const OPEN_FILES: u64 = 1024;

/// How many sockets the flooding address opens in all: more than the server has descriptors.
const FLOOD_SOCKETS: usize = 1100;

/// How many stream requests the flood sends at once: fewer than the requests in flight an
/// address may have (64), so that the streams are refused for being streams, if at all.
const STREAM_BATCH: usize = 32;

/// The real binary under an open-file limit of `OPEN_FILES` (soft and hard, so the server cannot
/// raise it), with default caps; killed when dropped.
struct Limited {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Limited {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn limited_server(pool: &PgPool) -> Limited {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        listener.local_addr().expect("address").port()
    };
    let child = Command::new("prlimit")
        .arg(format!("--nofile={OPEN_FILES}:{OPEN_FILES}"))
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_tablekeeper"))
        .arg("serve")
        .env("DATABASE_URL", database_url(pool))
        .env("BIND", format!("127.0.0.1:{port}"))
        .env("JWT_SECRET", TEST_SECRET)
        .env("WORKERS", "1")
        .env("RUST_LOG", "error")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("prlimit (util-linux) starts the server");
    let server = Limited {
        child,
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
    };
    let client = reqwest::Client::new();
    for _ in 0..300 {
        if let Ok(res) = client
            .get(format!("http://{}/api/v1/healthz", server.addr))
            .send()
            .await
        {
            if res.status().is_success() {
                let limits = std::fs::read_to_string(format!("/proc/{}/limits", server.child.id())).expect("limits");
                let open_files = limits
                    .lines()
                    .find(|l| l.starts_with("Max open files"))
                    .expect("the open-file limit");
                assert_eq!(
                    open_files.split_whitespace().nth(3),
                    Some(OPEN_FILES.to_string().as_str()),
                    "{open_files}"
                );
                return server;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the server on port {port} did not come up");
}

/// A connection from `source` (any 127.0.0.0/8 address reaches loopback on Linux), or None when
/// it is not accepted soon.
async fn connect_from(source: IpAddr, server: SocketAddr) -> Option<TcpStream> {
    let socket = TcpSocket::new_v4().ok()?;
    socket.bind(SocketAddr::new(source, 0)).ok()?;
    tokio::time::timeout(Duration::from_secs(1), socket.connect(server))
        .await
        .ok()?
        .ok()
}

/// Opens a table's stream on a connection from `source`: the connection and the answer's status,
/// or None when the connection was refused, closed or not answered within a second.
async fn stream_from(source: IpAddr, server: SocketAddr, path: &str, token: &str) -> Option<(TcpStream, u16)> {
    let mut stream = connect_from(source, server).await?;
    let head = format!("GET {path} HTTP/1.1\r\nHost: {server}\r\nAuthorization: Bearer {token}\r\n\r\n");
    stream.write_all(head.as_bytes()).await.ok()?;
    let mut status = Vec::new();
    let mut byte = [0u8; 1];
    let read = async {
        while !status.ends_with(b"\r\n") {
            match stream.read(&mut byte).await {
                Ok(1) => status.push(byte[0]),
                _ => return,
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(1), read).await.ok()?;
    let code = String::from_utf8_lossy(&status)
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some((stream, code))
}

#[sqlx::test(migrations = "./migrations")]
async fn one_address_opening_all_the_streams_and_connections_it_can_leaves_another_scoring_within_a_second(
    pool: PgPool,
) {
    // Arrange: the real server with 1,024 descriptors; this process needs more than that.
    let _ = rlimit::increase_nofile_limit(4 * OPEN_FILES);
    let server = limited_server(&pool).await;
    let app = TestApp::at(&format!("http://{}", server.addr), pool.clone());
    let token = app.organiser("ann@club.example").await;
    let table = app.table(&token, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let events = format!("/api/v1/tables/{table}/events");
    let flood: IpAddr = "127.0.0.2".parse().expect("address");

    // Act: from 127.0.0.2, streams (a batch at a time) until one is refused, then bare
    // connections that never send a request, up to more sockets than the server has descriptors.
    let mut held: Vec<TcpStream> = Vec::with_capacity(FLOOD_SOCKETS);
    let (mut streaming, mut refused) = (0, 0);
    while held.len() + STREAM_BATCH <= FLOOD_SOCKETS && refused == 0 {
        let batch =
            futures_util::future::join_all((0..STREAM_BATCH).map(|_| stream_from(flood, server.addr, &events, &token)))
                .await;
        for opened in batch {
            match opened {
                Some((stream, 200)) => {
                    streaming += 1;
                    held.push(stream);
                }
                Some((stream, _)) => {
                    refused += 1;
                    held.push(stream);
                }
                None => refused += 1,
            }
        }
    }
    // A connect can time out on a busy machine: a few misses are not the end of the flood.
    let mut misses = 0;
    while held.len() < FLOOD_SOCKETS && misses < 3 {
        match connect_from(flood, server.addr).await {
            Some(stream) => held.push(stream),
            None => misses += 1,
        }
    }

    let descriptors = std::fs::read_dir(format!("/proc/{}/fd", server.child.id())).map_or(0, |d| d.count());
    let flood_held = format!(
        "{} sockets from one address, {streaming} of them streams; the server holds {descriptors} descriptors",
        held.len()
    );
    // Assert: a scorer at another address (127.0.0.1) records a move within a second.
    let scorer = reqwest::Client::new();
    let started = Instant::now();
    let recorded = tokio::time::timeout(
        Duration::from_secs(1),
        scorer
            .post(format!("http://{}/api/v1/tables/{table}/moves", server.addr))
            .bearer_auth(&token)
            .json(&json!({"move": {"kind": "result", "nominations": [0, 1, 0, 0], "tricks": [0, 1, 0, 0]}}))
            .send(),
    )
    .await;
    let took = started.elapsed();
    let status = match recorded {
        Ok(Ok(answer)) => answer.status().as_u16(),
        Ok(Err(e)) => panic!("the scorer's move failed after {took:?} ({flood_held}): {e}"),
        Err(_) => panic!("the scorer's move was not answered within 1 s ({flood_held})"),
    };
    assert_eq!(status, 201, "after {took:?} ({flood_held})");
    assert!(
        streaming <= 128,
        "{streaming} streams from one address, beyond MAX_STREAMS_PER_CLIENT's default"
    );
    assert!(
        refused >= 1,
        "the flood's streams were never refused ({streaming} held)"
    );
    drop(held);
}

/// Whether the server closed the connection: a read answers end of file or a reset within
/// `wait`, where an open idle connection answers nothing.
async fn closed_by_server(stream: &mut TcpStream, wait: Duration) -> bool {
    let mut byte = [0u8; 1];
    match tokio::time::timeout(wait, stream.read(&mut byte)).await {
        Ok(Ok(0)) | Ok(Err(_)) => true,
        Ok(Ok(_)) | Err(_) => false,
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn connections_beyond_an_address_cap_are_closed_as_accepted_and_a_place_comes_back_when_one_closes(pool: PgPool) {
    let app = spawn_app_with(pool, |s| s.max_connections_per_client = 3).await;
    let server: SocketAddr = app
        .base
        .trim_start_matches("http://")
        .parse()
        .expect("the app's address");
    let flooder: IpAddr = "127.0.0.2".parse().expect("address");
    // Three idle connections from one address are kept open.
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(connect_from(flooder, server).await.expect("accepted"));
    }
    for stream in &mut held {
        assert!(
            !closed_by_server(stream, Duration::from_millis(300)).await,
            "a connection within the cap is kept"
        );
    }
    // The fourth is closed as soon as it is accepted, before it sends anything.
    let mut fourth = connect_from(flooder, server)
        .await
        .expect("the TCP handshake completes");
    assert!(
        closed_by_server(&mut fourth, Duration::from_secs(3)).await,
        "the connection beyond the cap is closed"
    );
    // Another address is not held up by the first one's connections.
    app.get_anonymous("/api/v1/healthz").await.assert_status(200);
    // One of the three closes; its place comes back.
    drop(held.pop());
    let mut again = None;
    for _ in 0..30 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let mut stream = connect_from(flooder, server).await.expect("accepted");
        if !closed_by_server(&mut stream, Duration::from_millis(300)).await {
            again = Some(stream);
            break;
        }
    }
    assert!(again.is_some(), "a place came back after a connection closed");
}
