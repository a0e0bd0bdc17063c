//! Operations: CORS, request ids, logs, metrics, database outages, rate-limit headers, proxies,
//! and the binary's start-up.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{spawn_app, spawn_app_with, TestApp, TEST_SECRET};

const ORIGIN: &str = "https://scores.club.example";

fn header<'a>(headers: &'a reqwest::header::HeaderMap, name: &str) -> &'a str {
    headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("")
}

async fn preflight(app: &TestApp, origin: &str) -> reqwest::Response {
    app.client
        .request(Method::OPTIONS, format!("{}/api/v1/tables", app.base))
        .header("Origin", origin)
        .header("Access-Control-Request-Method", "POST")
        .header(
            "Access-Control-Request-Headers",
            "authorization, content-type, idempotency-key, if-match, last-event-id",
        )
        .send()
        .await
        .expect("preflight")
}

#[sqlx::test(migrations = "./migrations")]
async fn a_preflight_from_an_allowed_origin_is_answered(pool: PgPool) {
    let app = spawn_app_with(pool, |s| {
        s.cors_allowed_origins = tablekeeper::config::CorsOrigins::Some(vec![ORIGIN.into()]);
    })
    .await;

    let answer = preflight(&app, ORIGIN).await;

    assert_eq!(answer.status(), 200);
    let headers = answer.headers();
    assert_eq!(header(headers, "access-control-allow-origin"), ORIGIN);
    assert!(header(headers, "access-control-allow-methods").contains("POST"));
    let allowed = header(headers, "access-control-allow-headers").to_lowercase();
    for name in [
        "authorization",
        "content-type",
        "idempotency-key",
        "if-match",
        "if-none-match",
        "last-event-id",
    ] {
        assert!(allowed.contains(name), "{name} not in {allowed}");
    }
    // The actual request then carries the CORS headers, and exposes what a client reads.
    let games = app
        .send(Method::GET, "/api/v1/games", None, None, &[("Origin", ORIGIN)])
        .await;
    assert_eq!(header(&games.headers, "access-control-allow-origin"), ORIGIN);
    let exposed = header(&games.headers, "access-control-expose-headers").to_lowercase();
    for name in [
        "etag",
        "location",
        "retry-after",
        "x-request-id",
        "idempotent-replayed",
        "ratelimit",
        "ratelimit-policy",
    ] {
        assert!(exposed.contains(name), "{name} not in {exposed}");
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn a_preflight_from_another_origin_is_refused_without_cors_headers(pool: PgPool) {
    let app = spawn_app_with(pool, |s| {
        s.cors_allowed_origins = tablekeeper::config::CorsOrigins::Some(vec![ORIGIN.into()]);
    })
    .await;

    let answer = preflight(&app, "https://evil.example").await;

    assert_eq!(answer.status(), 403);
    assert!(answer.headers().get("access-control-allow-origin").is_none());
    assert_eq!(header(answer.headers(), "content-type"), "application/problem+json");
    let body: Value = answer.json().await.expect("problem");
    assert_eq!(body["code"], "cors_refused");
    // A same-origin page also sends Origin: it is served, just without CORS headers.
    let games = app
        .send(
            Method::GET,
            "/api/v1/games",
            None,
            None,
            &[("Origin", "https://evil.example")],
        )
        .await;
    games.assert_status(200);
    assert!(games.headers.get("access-control-allow-origin").is_none());
}

#[sqlx::test(migrations = "./migrations")]
async fn without_allowed_origins_there_are_no_cors_headers_and_no_server_error(pool: PgPool) {
    let app = spawn_app(pool).await;

    let answer = preflight(&app, ORIGIN).await;

    // No CORS layer: OPTIONS is then a method the route lacks.
    assert_eq!(answer.status(), 405);
    assert!(answer.headers().get("access-control-allow-origin").is_none());
    let games = app
        .send(Method::GET, "/api/v1/games", None, None, &[("Origin", ORIGIN)])
        .await;
    games.assert_status(200);
    assert!(games.headers.get("access-control-allow-origin").is_none());
}

#[sqlx::test(migrations = "./migrations")]
async fn the_request_id_is_echoed_when_sane_and_made_otherwise(pool: PgPool) {
    let app = spawn_app(pool).await;

    let echoed = app
        .send(
            Method::GET,
            "/api/v1/games",
            None,
            None,
            &[("X-Request-Id", "phone-7f3a.42")],
        )
        .await;
    assert_eq!(header(&echoed.headers, "x-request-id"), "phone-7f3a.42");

    let made = app.get("/api/v1/games").await;
    let id = header(&made.headers, "x-request-id");
    assert!(uuid::Uuid::parse_str(id).is_ok(), "{id}");

    let too_long = "x".repeat(201);
    let replaced = app
        .send(Method::GET, "/api/v1/games", None, None, &[("X-Request-Id", &too_long)])
        .await;
    assert!(uuid::Uuid::parse_str(header(&replaced.headers, "x-request-id")).is_ok());

    // Errors carry it too: a missing route, a refused write, a malformed body.
    let missing = app
        .send(Method::GET, "/nowhere", None, None, &[("X-Request-Id", "err-1")])
        .await;
    missing.assert_problem(404, "no_route");
    assert_eq!(header(&missing.headers, "x-request-id"), "err-1");
    let refused = app
        .send(
            Method::POST,
            "/api/v1/tables",
            None,
            Some("{}".into()),
            &[("X-Request-Id", "err-2")],
        )
        .await;
    refused.assert_problem(401, "missing_token");
    assert_eq!(header(&refused.headers, "x-request-id"), "err-2");
}

#[sqlx::test(migrations = "./migrations")]
async fn a_method_http_does_not_define_is_refused(pool: PgPool) {
    let app = spawn_app(pool).await;
    let method = Method::from_bytes(b"BREW").expect("method");

    let answer = app.request(method, "/api/v1/games", None, None).await;

    answer.assert_problem(501, "method_not_implemented");
    assert!(!metrics(&app).await.contains("BREW"));
}

async fn metrics(app: &TestApp) -> String {
    let base = app.metrics_base.as_deref().unwrap_or(&app.base);
    let answer = app.client.get(format!("{base}/metrics")).send().await.expect("metrics");
    assert_eq!(answer.status(), 200);
    answer.text().await.expect("text")
}

fn series(text: &str, name: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with(&format!("{name}{{")))
        .map(|l| l.rsplit_once(' ').map_or(l, |(labels, _)| labels).to_owned())
        .collect()
}

/// The value of the one series of `name` whose labels include all of `labels`.
fn value(text: &str, name: &str, labels: &[&str]) -> f64 {
    text.lines()
        .filter(|l| l.starts_with(&format!("{name}{{")) || l.starts_with(&format!("{name} ")))
        .find(|l| labels.iter().all(|label| l.contains(label)))
        .and_then(|l| l.rsplit_once(' '))
        .map_or(0.0, |(_, v)| v.parse().expect("number"))
}

#[sqlx::test(migrations = "./migrations")]
async fn paths_no_route_matches_share_one_metric_label(pool: PgPool) {
    let app = spawn_app(pool).await;
    app.organiser("reader@example.org").await;
    app.get("/first-unknown").await.assert_problem(404, "no_route");
    metrics(&app).await; // the scrape's own series
    let before = series(&metrics(&app).await, "tablekeeper_http_requests_total");

    for path in [
        format!("/{}", uuid::Uuid::new_v4()),
        format!("/api/v1/{}", uuid::Uuid::new_v4()),
        format!(
            "/api/v1/tables/{}/nothing/{}",
            uuid::Uuid::new_v4(),
            uuid::Uuid::new_v4()
        ),
    ] {
        app.get(&path).await.assert_problem(404, "no_route");
    }

    let text = metrics(&app).await;
    let after = series(&text, "tablekeeper_http_requests_total");
    assert_eq!(before, after, "{text}");
    assert!(text.contains("endpoint=\"unmatched\""), "{text}");
    // Matched routes are labelled with their pattern, not the path.
    let id = uuid::Uuid::new_v4();
    app.get(&format!("/api/v1/tables/{id}"))
        .await
        .assert_problem(404, "table_not_found");
    let text = metrics(&app).await;
    assert!(text.contains("endpoint=\"/api/v1/tables/{id}\""), "{text}");
    assert!(!text.contains(&id.to_string()));
}

#[sqlx::test(migrations = "./migrations")]
async fn the_database_pool_has_gauges(pool: PgPool) {
    let app = spawn_app(pool).await;
    app.get("/api/v1/readyz").await.assert_status(200);

    let text = metrics(&app).await;

    assert!(value(&text, "tablekeeper_db_pool_connections", &[]) >= 1.0, "{text}");
    assert!(text.contains("tablekeeper_db_pool_idle_connections "), "{text}");
    assert!(text.contains("tablekeeper_db_pool_in_use_connections "), "{text}");
    assert_eq!(value(&text, "tablekeeper_db_pool_max_connections", &[]), 5.0, "{text}");
}

#[sqlx::test(migrations = "./migrations")]
async fn moves_are_counted_per_game_and_result(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let whist = app.table(&token, &["A", "B", "C", "D"], json!({})).await;
    let dividend = app
        .game_table(&token, "dividend", &["A", "B", "C", "D"], json!({}))
        .await;

    app.submit(&whist, &token, json!({"kind": "nominate", "seat": 1, "tricks": 0}))
        .await
        .assert_status(201);
    app.submit(&whist, &token, json!({"kind": "nominate", "seat": 3, "tricks": 0}))
        .await
        .assert_problem(422, "not_your_turn");
    app.submit(&dividend, &token, json!({"kind": "trick", "winner": 2}))
        .await
        .assert_status(201);
    app.submit(
        &uuid::Uuid::new_v4().to_string(),
        &token,
        json!({"kind": "trick", "winner": 2}),
    )
    .await
    .assert_problem(404, "table_not_found");

    let text = metrics(&app).await;
    let moves = |labels: &[&str]| value(&text, "tablekeeper_moves_total", labels);
    assert_eq!(
        moves(&["game=\"nomination-whist\"", "result=\"accepted\""]),
        1.0,
        "{text}"
    );
    assert_eq!(
        moves(&[
            "game=\"nomination-whist\"",
            "result=\"refused\"",
            "code=\"not_your_turn\""
        ]),
        1.0,
        "{text}"
    );
    assert_eq!(moves(&["game=\"dividend\"", "result=\"accepted\""]), 1.0, "{text}");
    assert_eq!(moves(&["game=\"dividend\"", "result=\"refused\""]), 0.0, "{text}");
    assert_eq!(
        moves(&["game=\"unknown\"", "result=\"rejected\"", "code=\"table_not_found\""]),
        1.0,
        "{text}"
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn metrics_bind_serves_metrics_on_their_own_address_only(pool: PgPool) {
    let app = spawn_app_with(pool, |s| s.metrics_bind = Some("127.0.0.1:0".parse().expect("address"))).await;
    assert!(app.metrics_base.is_some());
    app.get("/api/v1/games").await.assert_status(200);

    app.get("/metrics").await.assert_problem(404, "no_route");
    let text = metrics(&app).await;
    assert!(text.contains("endpoint=\"/api/v1/games\""), "{text}");
    assert!(text.contains("tablekeeper_db_pool_connections"), "{text}");
}

/// A port nothing listens on.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("address").port()
}

#[tokio::test]
async fn a_database_outage_answers_503_with_retry_after_quickly() {
    let url = format!("postgres://postgres@127.0.0.1:{}/gone", closed_port());
    let pool = tablekeeper::store::pool(&url, 2, Duration::from_millis(300), None).expect("pool");
    let app = spawn_app(pool).await;
    // A well-signed token: whether it still stands is asked of the database, which is gone.
    let tokens =
        tablekeeper::api::auth::Tokens::new(crate::helpers::TEST_SECRET.as_bytes(), chrono::Duration::hours(1));
    let (token, _) = tokens.issue(uuid::Uuid::new_v4(), 0).expect("token");

    for (method, path, body) in [
        (Method::GET, "/api/v1/readyz".to_owned(), None),
        (Method::GET, format!("/api/v1/tables/{}", uuid::Uuid::new_v4()), None),
        (Method::GET, format!("/api/v1/sessions/{}", uuid::Uuid::new_v4()), None),
        (
            Method::POST,
            "/api/v1/auth/login".to_owned(),
            Some(json!({"email": "ann@club.example", "password": "whatever1"})),
        ),
    ] {
        let started = Instant::now();
        let answer = app.request(method, &path, Some(&token), body).await;
        // Not a timing benchmark: the bound only shows the acquire timeout is used, where
        // requests used to hang for 5 s.
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{path}: {:?}",
            started.elapsed()
        );
        answer.assert_problem(503, "database_unavailable");
        let retry: u64 = header(&answer.headers, "retry-after").parse().expect("Retry-After");
        assert!(retry >= 1, "{path}");
    }
}

/// The binary, started with `env` on top of a clean environment.
fn binary(args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tablekeeper"));
    command
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

#[test]
fn a_missing_database_at_start_up_is_one_sentence_and_a_failure() {
    let url = format!("postgres://postgres:secret@127.0.0.1:{}/tablekeeper", closed_port());
    let output = binary(
        &["serve"],
        &[
            ("DATABASE_URL", &url),
            ("RUST_BACKTRACE", "1"),
            ("DATABASE_ACQUIRE_TIMEOUT_MS", "300"),
        ],
    )
    .output()
    .expect("runs");

    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("cannot reach the database at postgres://postgres:***@127.0.0.1:"),
        "{stderr}"
    );
    assert!(!stderr.contains("secret"), "{stderr}");
    assert!(
        !stderr.contains("backtrace") && !stderr.contains("panicked"),
        "{stderr}"
    );
}

/// The URL of the test's own database, for the binary.
fn database_url(pool: &PgPool) -> String {
    let base = std::env::var("DATABASE_URL").expect("DATABASE_URL (scripts/test sets it)");
    let database = pool.connect_options().get_database().expect("a database").to_owned();
    let (server, _) = base.rsplit_once('/').expect("a path");
    format!("{server}/{database}")
}

/// A running binary and the lines it writes to stdout.
struct Running {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Running {
    fn start(pool: &PgPool, env: &[(&str, &str)]) -> Running {
        let url = database_url(pool);
        let mut all = vec![
            ("DATABASE_URL", url.as_str()),
            ("BIND", "127.0.0.1:0"),
            ("JWT_SECRET", TEST_SECRET),
            ("WORKERS", "1"),
        ];
        all.extend_from_slice(env);
        let mut child = binary(&["serve"], &all).spawn().expect("starts");
        let stdout = child.stdout.take().expect("stdout");
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Running { child, lines }
    }

    /// The first line (within 20 s) that satisfies `wanted`.
    fn line(&self, wanted: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(line) if wanted(&line) => return line,
                Ok(_) => {}
                Err(_) => break,
            }
        }
        panic!("no such line on the server's stdout");
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn json_logs_have_one_line_per_request(pool: PgPool) {
    let server = Running::start(&pool, &[("LOG_FORMAT", "json")]);
    let listening: Value = serde_json::from_str(&server.line(|l| l.contains("listening"))).expect("a JSON line");
    let port = listening["port"].as_u64().expect("port");

    let answer = reqwest::Client::new()
        .get(format!(
            "http://127.0.0.1:{port}/api/v1/tables/{}",
            uuid::Uuid::new_v4()
        ))
        .header("X-Request-Id", "json-log-1")
        .send()
        .await
        .expect("request");
    assert_eq!(answer.status(), 401, "reads need a token");

    let line: Value = serde_json::from_str(&server.line(|l| l.contains("json-log-1"))).expect("a JSON line");
    assert_eq!(line["message"], "request", "{line}");
    assert_eq!(line["method"], "GET", "{line}");
    assert_eq!(line["route"], "/api/v1/tables/{id}", "{line}");
    assert_eq!(line["status"], 401, "{line}");
    assert_eq!(line["request_id"], "json-log-1", "{line}");
    assert!(line["latency_ms"].as_f64().is_some(), "{line}");
}

#[sqlx::test(migrations = "./migrations")]
async fn text_logs_are_uncoloured_off_a_terminal_and_log_successes(pool: PgPool) {
    let server = Running::start(&pool, &[]);
    // At start-up the server raises its open-file limit to the hard limit and says so.
    let limit = server.line(|l| l.contains("open-file limit"));
    let field = |name: &str| {
        limit
            .split(&format!("{name}="))
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("{name} in {limit}"))
    };
    assert_eq!(field("open_files"), field("hard_limit"), "{limit}");
    assert!(field("open_files") >= field("was"), "{limit}");
    let listening = server.line(|l| l.contains("listening"));
    assert!(!listening.contains('\u{1b}'), "{listening:?}");
    let port: u16 = listening
        .split("port=")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|p| p.parse().ok())
        .expect("port");

    reqwest::Client::new()
        .get(format!("http://127.0.0.1:{port}/api/v1/games"))
        .header("X-Request-Id", "text-log-1")
        .send()
        .await
        .expect("request");

    let line = server.line(|l| l.contains("text-log-1"));
    assert!(!line.contains('\u{1b}'), "{line:?}");
    assert!(
        line.contains("status=200") && line.contains("route=/api/v1/games"),
        "{line}"
    );
}

#[test]
fn serve_help_prints_usage_instead_of_starting() {
    let output = Command::new("bash")
        .args([concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/serve"), "--help"])
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.starts_with("usage: scripts/serve"), "{text}");
    for (name, _, _) in tablekeeper::config::VARIABLES {
        assert!(text.contains(name), "{name} missing from:\n{text}");
    }
    let binary = binary(&["--help"], &[]).output().expect("runs");
    assert!(binary.status.success());
    let text = String::from_utf8_lossy(&binary.stdout);
    for (name, _, _) in tablekeeper::config::VARIABLES {
        assert!(text.contains(name), "{name} missing from:\n{text}");
    }
}

#[test]
fn the_operators_guide_lists_exactly_the_servers_variables_with_their_defaults() {
    let guide = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/operators.md")).expect("guide");
    // The table's rows: | `NAME` | default | meaning |, the default written as code.
    let listed: std::collections::BTreeMap<String, String> = guide
        .lines()
        .filter_map(|line| {
            let mut cells = line.strip_prefix("| `")?.splitn(3, '|');
            let name = cells.next()?.trim().strip_suffix('`')?;
            if !name
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            {
                return None;
            }
            Some((name.to_owned(), cells.next()?.trim().replace('`', "")))
        })
        .collect();
    let server: std::collections::BTreeMap<String, String> = tablekeeper::config::VARIABLES
        .iter()
        .map(|(name, default, _)| ((*name).to_owned(), (*default).to_owned()))
        .collect();
    assert_eq!(
        listed, server,
        "docs/operators.md's table against config::VARIABLES (name: default)"
    );
}

async fn login_attempt(app: &TestApp, forwarded_for: Option<&str>) -> crate::helpers::Answer {
    let mut headers = vec![];
    if let Some(xff) = forwarded_for {
        headers.push(("X-Forwarded-For", xff));
    }
    let body = json!({"email": "nobody@club.example", "password": "whatever1"}).to_string();
    app.send(Method::POST, "/api/v1/auth/login", None, Some(body), &headers)
        .await
}

#[sqlx::test(migrations = "./migrations")]
async fn rate_limited_endpoints_send_ratelimit_headers(pool: PgPool) {
    let app = spawn_app_with(pool, |s| s.auth_attempts_per_minute = 2).await;

    let first = login_attempt(&app, None).await;
    first.assert_problem(401, "invalid_credentials");
    // draft-ietf-httpapi-ratelimit-headers-10: the policy, and where the address stands.
    assert_eq!(header(&first.headers, "ratelimit-policy"), "\"auth\";q=2;w=60");
    let standing = |headers: &reqwest::header::HeaderMap| -> (u64, u64) {
        let value = header(headers, "ratelimit");
        let rest = value.strip_prefix("\"auth\";r=").unwrap_or_else(|| panic!("{value}"));
        let (r, t) = rest.split_once(";t=").unwrap_or_else(|| panic!("{value}"));
        (r.parse().expect("r"), t.parse().expect("t"))
    };
    let (left, reset) = standing(&first.headers);
    assert_eq!(left, 1);
    assert!((1..=60).contains(&reset), "{reset}");
    for old in ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"] {
        assert!(first.headers.get(old).is_none(), "{old}: the expired draft's");
    }
    let second = login_attempt(&app, None).await;
    assert_eq!(standing(&second.headers).0, 0);

    let refused = login_attempt(&app, None).await;
    refused.assert_problem(429, "too_many_requests");
    let (left, reset) = standing(&refused.headers);
    assert_eq!(left, 0);
    assert!(reset >= 1);
    assert!(header(&refused.headers, "retry-after").parse::<u64>().expect("retry") >= 1);

    // Endpoints without a limit say nothing about one.
    let games = app.get("/api/v1/games").await;
    assert!(games.headers.get("ratelimit").is_none());
    assert!(games.headers.get("ratelimit-policy").is_none());
}

#[sqlx::test(migrations = "./migrations")]
async fn forwarded_for_is_believed_only_from_a_trusted_proxy(pool: PgPool) {
    // Untrusted peer: the header is ignored, so both "clients" share the peer's quota.
    let direct = spawn_app_with(pool.clone(), |s| s.auth_attempts_per_minute = 1).await;
    login_attempt(&direct, Some("203.0.113.1"))
        .await
        .assert_problem(401, "invalid_credentials");
    login_attempt(&direct, Some("203.0.113.2"))
        .await
        .assert_problem(429, "too_many_requests");

    // Behind a trusted proxy (the test client's loopback), each forwarded client has its own.
    let proxied = spawn_app_with(pool, |s| {
        s.auth_attempts_per_minute = 1;
        s.trusted_proxies = vec!["127.0.0.0/8".parse().expect("net")];
    })
    .await;
    login_attempt(&proxied, Some("203.0.113.1"))
        .await
        .assert_problem(401, "invalid_credentials");
    login_attempt(&proxied, Some("203.0.113.2"))
        .await
        .assert_problem(401, "invalid_credentials");
    login_attempt(&proxied, Some("203.0.113.1"))
        .await
        .assert_problem(429, "too_many_requests");
    // A client cannot dodge its quota by prepending a made-up hop.
    login_attempt(&proxied, Some("198.51.100.7, 203.0.113.2"))
        .await
        .assert_problem(429, "too_many_requests");
}

#[sqlx::test(migrations = "./migrations")]
async fn sigterm_with_a_live_stream_open_ends_the_stream_and_the_process_promptly(pool: PgPool) {
    let mut server = Running::start(&pool, &[("SHUTDOWN_GRACE_SECS", "3")]);
    let listening = server.line(|l| l.contains("listening"));
    let port: u16 = listening
        .split("port=")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|p| p.parse().ok())
        .expect("port");
    let base = format!("http://127.0.0.1:{port}");
    let app = TestApp::at(&base, pool.clone());
    let organiser = app.organiser("ann@club.example").await;
    let table = app.table(&organiser, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let result = json!({"kind": "result", "nominations": [0, 1, 0, 0], "tricks": [0, 1, 0, 0]});
    app.submit(&table, &organiser, result).await.assert_status(201);

    let mut stream = reqwest::Client::new()
        .get(format!("{base}/api/v1/tables/{table}/events"))
        .bearer_auth(&organiser)
        .send()
        .await
        .expect("stream opens");
    assert_eq!(stream.status(), 200);
    // The backlog's entry arrives: the stream is live before the signal.
    let mut received = String::new();
    while !received.contains("event: entry") {
        let chunk = tokio::time::timeout(Duration::from_secs(10), stream.chunk())
            .await
            .expect("the backlog arrives")
            .expect("a chunk")
            .expect("the stream is open");
        received.push_str(&String::from_utf8_lossy(&chunk));
    }

    let pid = server.child.id().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().expect("kill runs");
    assert!(killed.success());

    // Not a timing benchmark: generous bounds that the old 30 s shutdown could not meet.
    let ended = tokio::time::timeout(Duration::from_secs(10), async {
        // Until the stream ends, cleanly or not.
        while let Ok(Some(_)) = stream.chunk().await {}
    })
    .await;
    assert!(ended.is_ok(), "the stream was still open 10 s after SIGTERM");
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = server.child.try_wait().expect("waits") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "the process was still running 10 s after SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(status.success(), "{status:?}");
    server.line(|l| l.contains("stopping"));
}

#[test]
fn the_binary_says_its_version() {
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_tablekeeper"))
        .arg("--version")
        .output()
        .expect("the binary runs");
    assert!(run.status.success());
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        format!(
            "tablekeeper {} (commit {})\n",
            tablekeeper::VERSION,
            tablekeeper::COMMIT
        )
    );
}

/// `scripts/tools --check` names each tool the scripts need that is not on `PATH`, with its
/// Debian package, and fails; with all of them there it passes (CI runs it installing).
#[test]
fn the_tools_check_names_a_missing_tool_and_its_package() {
    let which = |tool: &str| {
        // python3 may be a shim (pyenv) that needs more than this PATH: link the interpreter.
        let ask = if tool == "python3" {
            "python3 -c 'import sys; print(sys.executable)'".to_owned()
        } else {
            format!("command -v {tool}")
        };
        let out = Command::new("bash").args(["-c", &ask]).output().expect("bash");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    let bin = std::env::temp_dir().join(format!("tk-tools-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&bin).expect("folder");
    // Everything the script and the tools it looks for need, but jq.
    for tool in [
        "bash", "node", "npm", "python3", "curl", "cc", "patroni", "etcd", "id", "env", "mktemp", "tail",
    ] {
        let path = which(tool);
        assert!(
            !path.is_empty(),
            "{tool} is on this machine (scripts/tools installs it)"
        );
        std::os::unix::fs::symlink(&path, bin.join(tool)).expect("link");
    }
    let run = || {
        Command::new(bin.join("bash"))
            .args([concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/tools"), "--check"])
            .env("PATH", &bin)
            .stdin(Stdio::null())
            .output()
            .expect("runs")
    };
    let without = run();
    let said = String::from_utf8_lossy(&without.stderr);
    assert!(!without.status.success(), "{said}");
    assert!(said.contains("missing: jq (jq:"), "{said}");
    assert!(said.contains("install the Debian packages jq"), "{said}");
    std::os::unix::fs::symlink(which("jq"), bin.join("jq")).expect("link");
    let with = run();
    assert!(with.status.success(), "{}", String::from_utf8_lossy(&with.stderr));
    let _ = std::fs::remove_dir_all(&bin);
}

/// `scripts/serve` keeps the checkout's secret and audit key in `.tablekeeper/` in both its modes
/// (issue #45: the README's recipe behind Caddy ran without the key file, so bundles were signed
/// with a key kept in the database they vouch for); `--dry-run` says what it would start with.
#[test]
fn scripts_serve_starts_with_the_checkout_s_secret_and_audit_key_file_in_both_modes() {
    let root = env!("CARGO_MANIFEST_DIR");
    let key_file = format!("{root}/.tablekeeper/audit_signing_key");
    for (args, public) in [
        (&["--dry-run"][..], "https://cards.club.example"),
        (&["--lan", "--dry-run"][..], "http://192.0.2.7:8080"),
    ] {
        let mut command = std::process::Command::new(format!("{root}/scripts/serve"));
        command
            .args(args)
            .env("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/tablekeeper_dry_run")
            .env("LAN_ADDRESS", "192.0.2.7")
            .env_remove("JWT_SECRET")
            .env_remove("AUDIT_SIGNING_KEY")
            .env_remove("AUDIT_SIGNING_KEY_FILE")
            .env_remove("PUBLIC_URL");
        if args.len() == 1 {
            command.env("PUBLIC_URL", public).env("TRUSTED_PROXIES", "127.0.0.1");
        }
        let run = command.output().expect("scripts/serve runs");
        let said = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success(),
            "{args:?}: {said}{}",
            String::from_utf8_lossy(&run.stderr)
        );
        for line in [
            "JWT_SECRET=set".to_owned(),
            format!("AUDIT_SIGNING_KEY_FILE={key_file}"),
            format!("PUBLIC_URL={public}"),
        ] {
            assert!(said.lines().any(|l| l == line), "{args:?}: {line} in\n{said}");
        }
    }
    let seed = std::fs::read_to_string(&key_file).expect("the key file");
    assert!(
        seed.len() == 64 && seed.bytes().all(|b| b.is_ascii_hexdigit()),
        "a seed: {seed}"
    );
}

/// `scripts/backup` and `scripts/restore` find the database as `scripts/serve` does when no
/// `DATABASE_URL` is given (issue #45: a laptop's backup needed a URL the README never gave).
#[test]
fn backup_and_restore_find_the_database_scripts_serve_uses() {
    let root = env!("CARGO_MANIFEST_DIR");
    for script in ["backup", "restore"] {
        let run = std::process::Command::new(format!("{root}/scripts/{script}"))
            .arg(std::env::temp_dir().join("tablekeeper-no-such.dump"))
            .env_remove("DATABASE_URL")
            .output()
            .expect("the script runs");
        let said = String::from_utf8_lossy(&run.stderr);
        assert!(
            said.contains(&format!(
                "scripts/{script}: DATABASE_URL is not set; using postgres://postgres@127.0.0.1:5432/tablekeeper, as scripts/serve does"
            )),
            "{script}: {said}"
        );
    }
    let _ = std::fs::remove_file(std::env::temp_dir().join("tablekeeper-no-such.dump"));
}

/// A collector on loopback: every OTLP/HTTP JSON export it is sent.
async fn collector() -> (String, std::sync::Arc<std::sync::Mutex<Vec<Value>>>) {
    let got = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = got.clone();
    let server = actix_web::HttpServer::new(move || {
        let kept = kept.clone();
        actix_web::App::new().route(
            "/v1/traces",
            actix_web::web::post().to(move |body: actix_web::web::Bytes| {
                let kept = kept.clone();
                async move {
                    if let Ok(export) = serde_json::from_slice::<Value>(&body) {
                        kept.lock().expect("lock").push(export);
                    }
                    actix_web::HttpResponse::Ok().json(json!({}))
                }
            }),
        )
    })
    .workers(1)
    .bind(("127.0.0.1", 0))
    .expect("the collector binds");
    let url = format!("http://127.0.0.1:{}", server.addrs()[0].port());
    tokio::spawn(server.run());
    (url, got)
}

/// Every span of every export, as `(trace id, span id, parent span id, name, event names and
/// attribute keys)`.
fn spans(exports: &[Value]) -> Vec<(String, String, String, String, Vec<String>)> {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    exports
        .iter()
        .flat_map(|e| e["resourceSpans"].as_array().cloned().unwrap_or_default())
        .flat_map(|r| r["scopeSpans"].as_array().cloned().unwrap_or_default())
        .flat_map(|s| s["spans"].as_array().cloned().unwrap_or_default())
        .map(|s| {
            let events = s["events"]
                .as_array()
                .map(|events| {
                    events
                        .iter()
                        .flat_map(|e| e["attributes"].as_array().cloned().unwrap_or_default())
                        .map(|a| text(&a["key"]))
                        .collect()
                })
                .unwrap_or_default();
            (
                text(&s["traceId"]),
                text(&s["spanId"]),
                text(&s["parentSpanId"]),
                text(&s["name"]),
                events,
            )
        })
        .collect()
}

/// Traces (issue #45): with `OTEL_EXPORTER_OTLP_ENDPOINT` set, a move's trace reaches the
/// collector: the request, the handler and the use case as nested spans of one trace, with the
/// move's SQL statements in it; at SIGTERM what is batched is sent before the process ends.
#[sqlx::test(migrations = "./migrations")]
async fn a_moves_trace_reaches_an_otlp_collector_with_its_handler_use_case_and_statements(pool: PgPool) {
    let (endpoint, got) = collector().await;
    let mut server = Running::start(
        &pool,
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
            ("OTEL_BSP_SCHEDULE_DELAY", "200"),
            ("SHUTDOWN_GRACE_SECS", "1"),
        ],
    );
    let listening = server.line(|l| l.contains("listening"));
    let port: u16 = listening
        .split("port=")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|p| p.parse().ok())
        .expect("port");
    server.line(|l| l.contains("traces go to the OTLP endpoint"));
    let app = TestApp::at(&format!("http://127.0.0.1:{port}"), pool.clone());
    let organiser = app.organiser("ann@club.example").await;
    let table = app.table(&organiser, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let result = json!({"kind": "result", "nominations": [0, 1, 0, 0], "tricks": [0, 1, 0, 0]});
    app.submit(&table, &organiser, result).await.assert_status(201);

    let pid = server.child.id().to_string();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill")
        .success());
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.child.try_wait().expect("waits").is_none() {
        assert!(Instant::now() < deadline, "still running 10 s after SIGTERM");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let exports = got.lock().expect("lock").clone();
    let all = spans(&exports);
    let handler = all
        .iter()
        .find(|s| s.3 == "submit_move")
        .unwrap_or_else(|| panic!("the handler's span: {:?}", all.iter().map(|s| &s.3).collect::<Vec<_>>()));
    let request = all.iter().find(|s| s.1 == handler.2).expect("the handler's parent");
    assert_eq!(request.3, "request", "the handler is inside the request's span");
    let use_case = all
        .iter()
        .find(|s| s.3 == "recording::record" && s.2 == handler.1)
        .expect("the use case inside the handler");
    assert_eq!(use_case.0, handler.0, "one trace");
    let statements = all
        .iter()
        .filter(|s| s.0 == handler.0)
        .flat_map(|s| s.4.iter())
        .filter(|key| *key == "db.statement")
        .count();
    assert!(statements >= 1, "the move's statements are in its trace");
}
