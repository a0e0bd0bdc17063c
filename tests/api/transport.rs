//! HTTP itself: `HEAD` wherever `GET` is, and compression for what is worth compressing but
//! never for live streams.

use std::io::Read;
use std::time::Duration;

use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{accept, spawn_app};

const COMMITTED: &str = include_str!("../../openapi/openapi.json");

#[sqlx::test(migrations = "./migrations")]
async fn head_is_answered_wherever_get_is_with_the_same_headers_and_no_body(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let table = app.table(&token, &["Ann", "Bob", "Cat"], json!({})).await;
    let client = reqwest::Client::new();

    for path in [
        format!("/api/v1/tables/{table}"),
        format!("/api/v1/tables/{table}/scores"),
        "/api/v1/games".to_owned(),
        "/api/v1/openapi.json".to_owned(),
    ] {
        let url = format!("{}{path}", app.base);
        let got = client.get(&url).bearer_auth(&token).send().await.expect("GET");
        let got_etag = got.headers().get("etag").cloned();
        let got_type = got.headers().get("content-type").cloned();
        let got_len = got.bytes().await.expect("body").len();
        let head = client.head(&url).bearer_auth(&token).send().await.expect("HEAD");

        assert_eq!(head.status(), 200, "{path}");
        assert_eq!(head.headers().get("etag").cloned(), got_etag, "{path}");
        assert_eq!(head.headers().get("content-type").cloned(), got_type, "{path}");
        assert_eq!(
            head.headers()
                .get("content-length")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<usize>().ok()),
            Some(got_len),
            "{path}: the length GET's body has"
        );
        assert!(head.headers().contains_key("x-request-id"), "{path}");
        assert!(head.bytes().await.expect("no body").is_empty(), "{path}");
    }
    let missing = client
        .head(format!("{}/api/v1/tables/{}", app.base, uuid::Uuid::new_v4()))
        .bearer_auth(&token)
        .send()
        .await
        .expect("HEAD");
    assert_eq!(missing.status(), 404);
}

/// A live stream answers `HEAD` with its headers at once rather than holding the request open.
#[sqlx::test(migrations = "./migrations")]
async fn head_on_a_live_stream_ends_at_once(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let table = app.table(&token, &["Ann", "Bob", "Cat"], json!({})).await;
    let head = reqwest::Client::new()
        .head(format!("{}/api/v1/tables/{table}/events", app.base))
        .bearer_auth(&token)
        .send();
    let head = tokio::time::timeout(Duration::from_secs(10), head)
        .await
        .expect("answered within 10 s")
        .expect("HEAD");
    assert_eq!(head.status(), 200);
    let body = tokio::time::timeout(Duration::from_secs(10), head.bytes())
        .await
        .expect("ended within 10 s");
    assert!(body.expect("no body").is_empty());
}

#[sqlx::test(migrations = "./migrations")]
async fn the_spec_and_json_answers_are_gzipped_for_a_client_that_accepts_it(pool: PgPool) {
    let app = spawn_app(pool).await;
    let client = reqwest::Client::new();

    let spec = client
        .get(format!("{}/api/v1/openapi.json", app.base))
        .header("Accept-Encoding", "gzip")
        .send()
        .await
        .expect("spec");
    assert_eq!(spec.status(), 200);
    assert_eq!(spec.headers()["content-encoding"], "gzip");
    let zipped = spec.bytes().await.expect("body");
    assert!(
        zipped.len() * 4 < COMMITTED.len(),
        "{} bytes for {}",
        zipped.len(),
        COMMITTED.len()
    );
    let mut text = String::new();
    flate2::read::GzDecoder::new(&zipped[..])
        .read_to_string(&mut text)
        .expect("gzip");
    let served: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(served, serde_json::from_str::<Value>(COMMITTED).expect("JSON"));

    let plain = client
        .get(format!("{}/api/v1/openapi.json", app.base))
        .send()
        .await
        .expect("spec");
    assert!(
        plain.headers().get("content-encoding").is_none(),
        "not without Accept-Encoding"
    );
    let plain: Value = serde_json::from_slice(&plain.bytes().await.expect("body")).expect("JSON");
    assert_eq!(plain, served);

    let games = client
        .get(format!("{}/api/v1/games", app.base))
        .header("Accept-Encoding", "br")
        .send()
        .await
        .expect("games");
    assert_eq!(games.headers()["content-encoding"], "br");
}

/// A compressor holds back what has not filled a block: a live stream is sent as it is, and its
/// events arrive as they happen, whatever the client accepts.
#[sqlx::test(migrations = "./migrations")]
async fn a_live_stream_is_never_compressed_and_its_events_arrive(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let options = json!({"hand_sizes": [1, 1, 1], "hook_from_hand_size": 9});
    let table = app.table(&token, &["Ann", "Bob", "Cat", "Dan"], options).await;
    let mut stream = reqwest::Client::new()
        .get(format!("{}/api/v1/tables/{table}/events", app.base))
        .bearer_auth(&token)
        .header("Accept-Encoding", "gzip, br")
        .send()
        .await
        .expect("stream opens");
    assert_eq!(stream.status(), 200);
    assert!(
        stream.headers().get("content-encoding").is_none(),
        "{:?}",
        stream.headers()
    );

    accept(
        &app,
        &table,
        &token,
        json!({"kind": "nominate", "seat": 1, "tricks": 0}),
    )
    .await;

    let mut seen = String::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !seen.contains("\"nominate\"") {
        let chunk = tokio::time::timeout_at(deadline, stream.chunk())
            .await
            .expect("the move's event within 10 s")
            .expect("readable")
            .expect("the stream stays open");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(seen.contains("event: entry"), "{seen}");
}
