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

/// A page of a list that has a next one says where it is in `Link` (RFC 8288); following it
/// gives the next page; the last page has no `Link`.
#[sqlx::test(migrations = "./migrations")]
async fn a_page_with_a_next_one_links_to_it_and_the_last_page_does_not(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    for _ in 0..3 {
        app.table(&token, &["Ann", "Bob", "Cat"], json!({})).await;
    }

    let first = app.get("/api/v1/tables?limit=2").await;
    first.assert_status(200);
    let link = first.headers["link"].to_str().expect("ascii").to_owned();
    assert_eq!(link, "</api/v1/tables?limit=2&offset=2>; rel=\"next\"");
    let next = link.trim_start_matches('<').split('>').next().expect("target");
    let second = app.get(next).await;
    assert_eq!(second.assert_status(200)["items"].as_array().expect("items").len(), 1);
    assert!(second.headers.get("link").is_none(), "the last page has no next");

    let table = app.table(&token, &["Ann", "Bob", "Cat"], json!({})).await;
    for seat in [1, 2] {
        app.submit(&table, &token, json!({"kind": "nominate", "seat": seat, "tricks": 0}))
            .await
            .assert_status(201);
    }
    let moves = app.get(&format!("/api/v1/tables/{table}/moves?limit=1")).await;
    let after = moves.assert_status(200)["next_after"].as_i64().expect("a next page");
    assert_eq!(
        moves.headers["link"],
        format!("</api/v1/tables/{table}/moves?limit=1&after={after}>; rel=\"next\"").as_str()
    );
}

/// A method a path does not take is 405 with `Allow` naming those it does (problem+json,
/// `method_not_allowed`), changes nothing, and a path no route has is still 404.
#[sqlx::test(migrations = "./migrations")]
async fn a_method_the_route_lacks_is_405_with_allow(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let table = app.table(&token, &["Ann", "Bob", "Cat"], json!({})).await;
    let before = app.snapshot(&table).await;

    for (method, path, allow) in [
        (reqwest::Method::DELETE, format!("/api/v1/tables/{table}"), "GET, HEAD"),
        (
            reqwest::Method::PUT,
            format!("/api/v1/tables/{table}/moves"),
            "GET, HEAD, POST",
        ),
        (reqwest::Method::POST, "/api/v1/games".to_owned(), "GET, HEAD"),
    ] {
        let answer = app.request(method.clone(), &path, Some(&token), None).await;
        answer.assert_problem(405, "method_not_allowed");
        assert_eq!(answer.headers["allow"], allow, "{method} {path}");
        assert!(answer.headers.contains_key("x-request-id"));
    }
    app.request(reqwest::Method::DELETE, "/api/v1/nothing-here", Some(&token), None)
        .await
        .assert_problem(404, "no_route");
    assert_eq!(app.snapshot(&table).await, before);
}

/// `HEAD` of an answer `GET` would compress says what `GET` says: the same encoding and no
/// length of its own (a compressed body's is known only as it is sent), never `content-length:
/// 0`, which would tell a cache the answer is empty.
#[sqlx::test(migrations = "./migrations")]
async fn head_of_a_compressed_answer_has_get_s_headers(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let table = app.table(&token, &["Ann", "Bob", "Cat"], json!({})).await;
    let client = reqwest::Client::builder()
        .no_gzip()
        .no_brotli()
        .no_zstd()
        .no_deflate()
        .build()
        .expect("client");
    for path in ["/api/v1/openapi.json".to_owned(), format!("/api/v1/tables/{table}")] {
        for encoding in ["gzip", "br", "zstd"] {
            let url = format!("{}{path}", app.base);
            let get = client
                .get(&url)
                .bearer_auth(&token)
                .header("accept-encoding", encoding)
                .send()
                .await
                .expect("GET");
            let head = client
                .head(&url)
                .bearer_auth(&token)
                .header("accept-encoding", encoding)
                .send()
                .await
                .expect("HEAD");
            for name in ["content-encoding", "content-length", "content-type", "vary", "etag"] {
                assert_eq!(
                    head.headers().get(name),
                    get.headers().get(name),
                    "{path} {encoding}: {name} (GET {:?}, HEAD {:?})",
                    get.headers(),
                    head.headers()
                );
            }
            assert!(!get.bytes().await.expect("body").is_empty());
            assert!(head.bytes().await.expect("no body").is_empty());
        }
    }
}

/// A problem's `type` is a page the server answers (issue #45): what the code means and where it
/// is answered; a code no problem has is 404.
#[sqlx::test(migrations = "./migrations")]
async fn a_problem_s_type_is_a_page_that_says_what_its_code_means(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let missing = app
        .get_as(&format!("/api/v1/tables/{}", uuid::Uuid::new_v4()), &token)
        .await;
    missing.assert_problem(404, "table_not_found");
    let kind = missing.body["type"].as_str().expect("type");
    let page = reqwest::get(format!("{}{kind}", app.base)).await.expect("page");
    assert_eq!(page.status(), 200);
    assert_eq!(page.headers()["content-type"], "text/html; charset=utf-8");
    let text = page.text().await.expect("html");
    assert!(text.contains("<h1><code>table_not_found</code></h1>"), "{text}");
    assert!(
        text.contains("<code>GET /api/v1/tables/{id}</code> answers <strong>404</strong>"),
        "{text}"
    );
    for code in tablekeeper::api::error::ApiError::all_codes() {
        let page = reqwest::get(format!("{}/problems/{code}", app.base))
            .await
            .expect("page");
        assert_eq!(page.status(), 200, "{code}");
    }
    let unknown = reqwest::get(format!("{}/problems/no_such_code", app.base))
        .await
        .expect("page");
    assert_eq!(unknown.status(), 404);
    let spec: Value = serde_json::from_str(COMMITTED).expect("spec");
    let said = spec["components"]["schemas"]["Problem"]["properties"]["type"]["description"]
        .as_str()
        .expect("described");
    assert!(said.contains("/problems/<code>"), "the spec says where: {said}");
}
