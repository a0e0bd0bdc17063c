use base64::Engine as _;
use jsonwebtoken::{encode, EncodingKey, Header};
use reqwest::Method;
use serde_json::json;
use sqlx::PgPool;

use crate::helpers::{spawn_app, spawn_app_with, TEST_SECRET};

fn claims(sub: &str, role: &str, exp_offset: i64) -> serde_json::Value {
    let now = chrono::Utc::now().timestamp();
    json!({"sub": sub, "role": role, "iat": now, "exp": now + exp_offset})
}

#[sqlx::test(migrations = "./migrations")]
async fn registering_then_logging_in_gives_a_working_token(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("Ann@Club.example").await;
    assert!(app
        .post("/api/v1/sessions", &token, json!({"name": "Thursday"}))
        .await
        .status
        .is_success());

    let login = app
        .request(
            Method::POST,
            "/api/v1/auth/login",
            None,
            Some(json!({"email": "ann@club.example", "password": "correct horse battery"})),
        )
        .await;
    let body = login.assert_status(200);
    assert_eq!(body["token_type"], "Bearer");
    assert_eq!(body["role"], "organiser");
    let token = body["token"].as_str().expect("token");
    assert!(app
        .post("/api/v1/sessions", token, json!({"name": "Friday"}))
        .await
        .status
        .is_success());
}

#[sqlx::test(migrations = "./migrations")]
async fn a_second_registration_with_the_same_email_is_refused(pool: PgPool) {
    let app = spawn_app(pool).await;
    app.organiser("ann@club.example").await;
    let again = app
        .request(
            Method::POST,
            "/api/v1/auth/register",
            None,
            Some(json!({"email": "ANN@club.example", "name": "Impostor", "password": "another password"})),
        )
        .await;
    again.assert_problem(409, "email_taken");
    let users: i64 = sqlx::query_scalar("select count(*) from users")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(users, 1);
}

#[sqlx::test(migrations = "./migrations")]
async fn registration_checks_email_and_password(pool: PgPool) {
    let app = spawn_app(pool).await;
    let register = |email: &'static str, password: &'static str| {
        app.request(
            Method::POST,
            "/api/v1/auth/register",
            None,
            Some(json!({"email": email, "name": "X", "password": password})),
        )
    };
    register("not-an-email", "long enough pw")
        .await
        .assert_problem(422, "invalid_email");
    register("ann@club.example", "short")
        .await
        .assert_problem(422, "weak_password");
    let users: i64 = sqlx::query_scalar("select count(*) from users")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(users, 0);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_wrong_password_or_unknown_email_is_refused_alike(pool: PgPool) {
    let app = spawn_app(pool).await;
    app.organiser("ann@club.example").await;
    for (email, password) in [
        ("ann@club.example", "wrong password"),
        ("nobody@club.example", "whatever1"),
    ] {
        let answer = app
            .request(
                Method::POST,
                "/api/v1/auth/login",
                None,
                Some(json!({"email": email, "password": password})),
            )
            .await;
        answer.assert_problem(401, "invalid_credentials");
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn writes_without_a_token_are_refused(pool: PgPool) {
    let app = spawn_app(pool).await;
    let answer = app
        .request(
            Method::POST,
            "/api/v1/tables",
            None,
            Some(json!({"game": "nomination-whist", "players": ["a", "b", "c"]})),
        )
        .await;
    answer.assert_problem(401, "missing_token");
    // RFC 9110: a 401 names the scheme that lets the caller in; no token, so no error.
    assert_eq!(
        answer.headers.get("www-authenticate").and_then(|v| v.to_str().ok()),
        Some(r#"Bearer realm="tablekeeper""#)
    );
    let tables: i64 = sqlx::query_scalar("select count(*) from game_tables")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(tables, 0);
}

#[sqlx::test(migrations = "./migrations")]
async fn expired_forged_and_unsigned_tokens_are_refused_and_change_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let table = app.table(&token, &["A", "B", "C", "D"], json!({})).await;
    let before = app.snapshot(&table).await;
    let user: uuid::Uuid = sqlx::query_scalar("select id from users")
        .fetch_one(&app.pool)
        .await
        .expect("user");
    let sub = user.to_string();

    let expired = encode(
        &Header::default(),
        &claims(&sub, "organiser", -600),
        &EncodingKey::from_secret(TEST_SECRET.as_bytes()),
    )
    .expect("token");
    let forged = encode(
        &Header::default(),
        &claims(&sub, "organiser", 600),
        &EncodingKey::from_secret(b"some-other-secret-some-other-secret-0123"),
    )
    .expect("token");
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let unsigned = format!(
        "{}.{}.",
        b64.encode(r#"{"alg":"none","typ":"JWT"}"#),
        b64.encode(claims(&sub, "organiser", 600).to_string())
    );

    let mv = json!({"move": {"kind": "nominate", "seat": 1, "tricks": 0}});
    let path = format!("/api/v1/tables/{table}/moves");
    let refused = app.post(&path, &expired, mv.clone()).await;
    refused.assert_problem(401, "token_expired");
    // RFC 6750 section 3.1: a token sent but not good is `invalid_token`.
    assert_eq!(
        refused.headers.get("www-authenticate").and_then(|v| v.to_str().ok()),
        Some(r#"Bearer realm="tablekeeper", error="invalid_token""#)
    );
    app.post(&path, &forged, mv.clone())
        .await
        .assert_problem(401, "invalid_token");
    app.post(&path, &unsigned, mv.clone())
        .await
        .assert_problem(401, "invalid_token");
    app.post(&path, "not.a.token", mv.clone())
        .await
        .assert_problem(401, "invalid_token");
    assert_eq!(app.snapshot(&table).await, before);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_join_code_gives_a_scorer_token_for_that_table_only(pool: PgPool) {
    let app = spawn_app(pool).await;
    let organiser = app.organiser("ann@club.example").await;
    let table = app.table(&organiser, &["A", "B", "C", "D"], json!({})).await;
    let other = app.table(&organiser, &["E", "F", "G", "H"], json!({})).await;

    let code = app
        .post(&format!("/api/v1/tables/{table}/join-codes"), &organiser, json!(null))
        .await;
    let code = code.assert_status(201)["code"].as_str().expect("code").to_owned();
    assert_eq!(code.len(), 8);
    let typed = format!("{}-{}", code[..4].to_lowercase(), &code[4..]);
    let joined = app
        .request(Method::POST, "/api/v1/auth/join", None, Some(json!({"code": typed})))
        .await;
    let body = joined.assert_status(200);
    assert_eq!(body["role"], "scorer");
    let scorer = body["token"].as_str().expect("token").to_owned();

    let nominate = json!({"kind": "nominate", "seat": 1, "tricks": 0});
    app.submit(&table, &scorer, nominate.clone()).await.assert_status(201);

    let before = app.snapshot(&other).await;
    app.submit(&other, &scorer, nominate)
        .await
        .assert_problem(404, "table_not_found");
    assert_eq!(app.snapshot(&other).await, before);

    let answer = app
        .post(
            "/api/v1/tables",
            &scorer,
            json!({"game": "nomination-whist", "players": ["a", "b", "c"]}),
        )
        .await;
    answer.assert_problem(403, "forbidden");
    app.post(&format!("/api/v1/tables/{table}/join-codes"), &scorer, json!(null))
        .await
        .assert_problem(403, "forbidden");
}

#[sqlx::test(migrations = "./migrations")]
async fn an_unknown_join_code_is_refused(pool: PgPool) {
    let app = spawn_app(pool).await;
    let answer = app
        .request(
            Method::POST,
            "/api/v1/auth/join",
            None,
            Some(json!({"code": "ABCDEFGH"})),
        )
        .await;
    answer.assert_problem(401, "invalid_join_code");
}

#[sqlx::test(migrations = "./migrations")]
async fn another_organiser_cannot_record_on_my_table(pool: PgPool) {
    let app = spawn_app(pool).await;
    let mine = app.organiser("ann@club.example").await;
    let theirs = app.organiser("bob@club.example").await;
    let table = app.table(&mine, &["A", "B", "C"], json!({})).await;
    let before = app.snapshot(&table).await;
    app.submit(&table, &theirs, json!({"kind": "nominate", "seat": 1, "tricks": 0}))
        .await
        .assert_problem(404, "table_not_found");
    app.post(&format!("/api/v1/tables/{table}/undo"), &theirs, json!({}))
        .await
        .assert_problem(404, "table_not_found");
    assert_eq!(app.snapshot(&table).await, before);
}

#[sqlx::test(migrations = "./migrations")]
async fn guessing_passwords_or_join_codes_is_rate_limited(pool: PgPool) {
    let app = spawn_app_with(pool, |s| s.auth_attempts_per_minute = 3).await;
    let login = json!({"email": "ann@club.example", "password": "wrong password"});
    for _ in 0..3 {
        let answer = app
            .request(Method::POST, "/api/v1/auth/login", None, Some(login.clone()))
            .await;
        answer.assert_problem(401, "invalid_credentials");
    }
    let limited = app.request(Method::POST, "/api/v1/auth/login", None, Some(login)).await;
    limited.assert_problem(429, "too_many_requests");
    let wait: u64 = limited.headers["retry-after"]
        .to_str()
        .expect("header")
        .parse()
        .expect("seconds");
    assert!((1..=60).contains(&wait), "{wait}");
    let join = json!({"code": "ABCDEFGH"});
    app.request(Method::POST, "/api/v1/auth/join", None, Some(join))
        .await
        .assert_problem(429, "too_many_requests");
    // Reads and other writes are not limited.
    app.get("/api/v1/games").await.assert_status(200);
}

#[sqlx::test(migrations = "./migrations")]
async fn tokens_issued_or_valid_only_in_the_future_are_refused_and_change_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let table = app.table(&token, &["A", "B", "C", "D"], json!({})).await;
    let before = app.snapshot(&table).await;
    let user: uuid::Uuid = sqlx::query_scalar("select id from users")
        .fetch_one(&app.pool)
        .await
        .expect("user");
    let now = chrono::Utc::now().timestamp();
    let sign = |claims: serde_json::Value| {
        encode(
            &Header::default(),
            &claims,
            &EncodingKey::from_secret(TEST_SECRET.as_bytes()),
        )
        .expect("token")
    };
    let day = 24 * 3600;
    let not_yet = sign(json!({"sub": user, "role": "organiser", "iat": now, "nbf": now + day, "exp": now + 2 * day}));
    let from_the_future = sign(json!({"sub": user, "role": "organiser", "iat": now + day, "exp": now + 2 * day}));
    let skewed = sign(json!({"sub": user, "role": "organiser", "iat": now + 30, "nbf": now + 30, "exp": now + 600}));

    let mv = json!({"kind": "nominate", "seat": 1, "tricks": 0});
    app.submit(&table, &not_yet, mv.clone())
        .await
        .assert_problem(401, "invalid_token");
    app.submit(&table, &from_the_future, mv.clone())
        .await
        .assert_problem(401, "invalid_token");
    app.post("/api/v1/sessions", &not_yet, json!({"name": "Later"}))
        .await
        .assert_problem(401, "invalid_token");
    assert_eq!(app.snapshot(&table).await, before);
    let sessions: i64 = sqlx::query_scalar("select count(*) from club_sessions")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(sessions, 0);

    // Within the clock-skew leeway a token is still good.
    app.submit(&table, &skewed, mv).await.assert_status(201);
}
