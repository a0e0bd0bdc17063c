//! Revocation that sticks (issue #24): join codes are listed and withdrawn, a revoked scorer's
//! code stops opening the table, organisers sign out one token or all of them and change their
//! password, and an operator resets a password with the binary.

use std::io::Write;
use std::process::{Command, Stdio};

use jsonwebtoken::{encode, EncodingKey, Header};
use reqwest::Method;
use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{database_url, spawn_app, TestApp, TEST_SECRET};

const PASSWORD: &str = "correct horse battery";

async fn login(app: &TestApp, email: &str, password: &str) -> crate::helpers::Answer {
    app.request(
        Method::POST,
        "/api/v1/auth/login",
        None,
        Some(json!({"email": email, "password": password})),
    )
    .await
}

/// Opens a session with the token: what an organiser's token is for.
async fn open_session(app: &TestApp, token: &str) -> crate::helpers::Answer {
    app.post("/api/v1/sessions", token, json!({"name": "Friday"})).await
}

async fn sessions_stored(app: &TestApp) -> i64 {
    sqlx::query_scalar("select count(*) from club_sessions")
        .fetch_one(&app.pool)
        .await
        .expect("count")
}

async fn new_code(app: &TestApp, organiser: &str, table: &str) -> String {
    app.post(&format!("/api/v1/tables/{table}/join-codes"), organiser, json!({}))
        .await
        .assert_status(201)["code"]
        .as_str()
        .expect("code")
        .to_owned()
}

async fn join(app: &TestApp, code: &str) -> crate::helpers::Answer {
    app.request(Method::POST, "/api/v1/auth/join", None, Some(json!({"code": code})))
        .await
}

async fn scorers_stored(app: &TestApp) -> i64 {
    sqlx::query_scalar("select count(*) from scorers")
        .fetch_one(&app.pool)
        .await
        .expect("count")
}

#[sqlx::test(migrations = "./migrations")]
async fn a_signed_out_token_is_refused_with_token_revoked_and_the_others_stand(pool: PgPool) {
    let app = spawn_app(pool).await;
    let signed_out = app.organiser("ann@club.example").await;
    let other = login(&app, "ann@club.example", PASSWORD).await.assert_status(200)["token"]
        .as_str()
        .expect("token")
        .to_owned();

    app.request(Method::POST, "/api/v1/auth/logout", Some(&signed_out), None)
        .await
        .assert_status(204);

    open_session(&app, &signed_out)
        .await
        .assert_problem(401, "token_revoked");
    assert_eq!(sessions_stored(&app).await, 0, "a signed-out token changed nothing");
    app.request(Method::POST, "/api/v1/auth/logout", Some(&signed_out), None)
        .await
        .assert_problem(401, "token_revoked");
    open_session(&app, &other).await.assert_status(201);
}

#[sqlx::test(migrations = "./migrations")]
async fn signing_out_everywhere_refuses_every_token_until_the_next_login(pool: PgPool) {
    let app = spawn_app(pool).await;
    let first = app.organiser("ann@club.example").await;
    let second = login(&app, "ann@club.example", PASSWORD).await.assert_status(200)["token"]
        .as_str()
        .expect("token")
        .to_owned();
    let bob = app.organiser("bob@club.example").await;

    app.request(Method::POST, "/api/v1/auth/logout-everywhere", Some(&second), None)
        .await
        .assert_status(204);

    open_session(&app, &first).await.assert_problem(401, "token_revoked");
    open_session(&app, &second).await.assert_problem(401, "token_revoked");
    assert_eq!(sessions_stored(&app).await, 0);
    open_session(&app, &bob).await.assert_status(201);
    let fresh = login(&app, "ann@club.example", PASSWORD).await.assert_status(200)["token"]
        .as_str()
        .expect("token")
        .to_owned();
    open_session(&app, &fresh).await.assert_status(201);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_token_from_before_sign_out_works_and_signing_it_out_signs_out_all(pool: PgPool) {
    let app = spawn_app(pool).await;
    let current = app.organiser("ann@club.example").await;
    let user: uuid::Uuid = sqlx::query_scalar("select id from users")
        .fetch_one(&app.pool)
        .await
        .expect("user");
    // As issued before tokens had an id and a generation.
    let now = chrono::Utc::now().timestamp();
    let old = encode(
        &Header::default(),
        &json!({"sub": user, "role": "organiser", "iat": now, "exp": now + 600}),
        &EncodingKey::from_secret(TEST_SECRET.as_bytes()),
    )
    .expect("token");
    open_session(&app, &old).await.assert_status(201);

    app.request(Method::POST, "/api/v1/auth/logout", Some(&old), None)
        .await
        .assert_status(204);

    open_session(&app, &old).await.assert_problem(401, "token_revoked");
    open_session(&app, &current).await.assert_problem(401, "token_revoked");
}

#[sqlx::test(migrations = "./migrations")]
async fn a_scorer_token_cannot_sign_out_an_organiser_or_change_a_password(pool: PgPool) {
    let app = spawn_app(pool).await;
    let organiser = app.organiser("ann@club.example").await;
    let table = app.table(&organiser, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let code = new_code(&app, &organiser, &table).await;
    let scorer = join(&app, &code).await.assert_status(200)["token"]
        .as_str()
        .expect("token")
        .to_owned();

    app.request(Method::POST, "/api/v1/auth/logout", Some(&scorer), None)
        .await
        .assert_problem(403, "forbidden");
    app.request(
        Method::POST,
        "/api/v1/auth/password",
        Some(&scorer),
        Some(json!({"old_password": PASSWORD, "new_password": "battery staple horse"})),
    )
    .await
    .assert_problem(403, "forbidden");
    open_session(&app, &organiser).await.assert_status(201);
}

#[sqlx::test(migrations = "./migrations")]
async fn after_a_password_change_the_old_password_and_old_tokens_are_refused(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let elsewhere = login(&app, "ann@club.example", PASSWORD).await.assert_status(200)["token"]
        .as_str()
        .expect("token")
        .to_owned();
    let change = |old: &str, new: &str| json!({"old_password": old, "new_password": new});

    // Refusals change nothing: the old password and every token still stand.
    app.request(
        Method::POST,
        "/api/v1/auth/password",
        Some(&token),
        Some(change("guess guess", "battery staple horse")),
    )
    .await
    .assert_problem(403, "wrong_password");
    app.request(
        Method::POST,
        "/api/v1/auth/password",
        Some(&token),
        Some(change(PASSWORD, "short")),
    )
    .await
    .assert_problem(422, "weak_password");
    app.request(
        Method::POST,
        "/api/v1/auth/password",
        Some(&token),
        Some(json!({"old_password": PASSWORD, "new_password": "battery staple horse", "admin": true})),
    )
    .await
    .assert_problem(422, "unknown_field");
    login(&app, "ann@club.example", PASSWORD).await.assert_status(200);
    open_session(&app, &elsewhere).await.assert_status(201);

    let changed = app
        .request(
            Method::POST,
            "/api/v1/auth/password",
            Some(&token),
            Some(change(PASSWORD, "battery staple horse")),
        )
        .await;
    let fresh = changed.assert_status(200)["token"].as_str().expect("token").to_owned();

    login(&app, "ann@club.example", PASSWORD)
        .await
        .assert_problem(401, "invalid_credentials");
    login(&app, "ann@club.example", "battery staple horse")
        .await
        .assert_status(200);
    open_session(&app, &token).await.assert_problem(401, "token_revoked");
    open_session(&app, &elsewhere)
        .await
        .assert_problem(401, "token_revoked");
    open_session(&app, &fresh).await.assert_status(201);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_withdrawn_join_code_cannot_join_and_the_list_says_so(pool: PgPool) {
    let app = spawn_app(pool).await;
    let organiser = app.organiser("ann@club.example").await;
    let table = app.table(&organiser, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let withdrawn = new_code(&app, &organiser, &table).await;
    let kept = new_code(&app, &organiser, &table).await;
    let early = join(&app, &withdrawn).await.assert_status(200)["token"]
        .as_str()
        .expect("token")
        .to_owned();

    // Typed as a phone would, with a dash and in lower case.
    let typed = format!("{}-{}", &withdrawn[..4], &withdrawn[4..]).to_lowercase();
    let answer = app
        .request(
            Method::DELETE,
            &format!("/api/v1/tables/{table}/join-codes/{typed}"),
            Some(&organiser),
            None,
        )
        .await;
    let body = answer.assert_status(200);
    assert_eq!(body["code"], withdrawn.as_str());
    assert_eq!(body["active"], false);
    assert!(body["withdrawn_at"].is_string());

    let scorers = scorers_stored(&app).await;
    join(&app, &withdrawn).await.assert_problem(401, "invalid_join_code");
    assert_eq!(scorers_stored(&app).await, scorers, "a refused join makes no scorer");
    join(&app, &kept).await.assert_status(200);
    // A phone that joined before keeps recording until its scorer is revoked.
    let result = json!({"kind": "result", "nominations": [0, 1, 0, 0], "tricks": [0, 1, 0, 0]});
    app.submit(&table, &early, result).await.assert_status(201);

    let list = app
        .request(
            Method::GET,
            &format!("/api/v1/tables/{table}/join-codes"),
            Some(&organiser),
            None,
        )
        .await
        .assert_status(200)
        .clone();
    let by_code = |code: &str| -> Value {
        list.as_array()
            .expect("codes")
            .iter()
            .find(|c| c["code"] == code)
            .cloned()
            .expect("listed")
    };
    assert_eq!(list.as_array().expect("codes").len(), 2);
    assert_eq!(by_code(&withdrawn)["active"], false);
    assert_eq!(by_code(&withdrawn)["joins"], 1);
    assert_eq!(by_code(&kept)["active"], true);
    assert!(by_code(&kept)["withdrawn_at"].is_null());
    assert_eq!(by_code(&kept)["joins"], 1);
}

#[sqlx::test(migrations = "./migrations")]
async fn only_the_tables_organiser_lists_or_withdraws_its_codes(pool: PgPool) {
    let app = spawn_app(pool).await;
    let organiser = app.organiser("ann@club.example").await;
    let stranger = app.organiser("bob@club.example").await;
    let table = app.table(&organiser, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let code = new_code(&app, &organiser, &table).await;
    let scorer = join(&app, &code).await.assert_status(200)["token"]
        .as_str()
        .expect("token")
        .to_owned();
    let codes = format!("/api/v1/tables/{table}/join-codes");
    let one = format!("{codes}/{code}");

    app.request(Method::GET, &codes, Some(&stranger), None)
        .await
        .assert_problem(404, "table_not_found");
    app.request(Method::GET, &codes, Some(&scorer), None)
        .await
        .assert_problem(403, "forbidden");
    app.request(Method::GET, &codes, None, None)
        .await
        .assert_problem(401, "missing_token");
    app.request(Method::DELETE, &one, Some(&stranger), None)
        .await
        .assert_problem(404, "table_not_found");
    app.request(Method::DELETE, &one, Some(&scorer), None)
        .await
        .assert_problem(403, "forbidden");
    app.request(Method::DELETE, &format!("{codes}/ZZZZ2222"), Some(&organiser), None)
        .await
        .assert_problem(404, "join_code_not_found");
    let unknown_table = uuid::Uuid::new_v4();
    app.request(
        Method::DELETE,
        &format!("/api/v1/tables/{unknown_table}/join-codes/{code}"),
        Some(&organiser),
        None,
    )
    .await
    .assert_problem(404, "table_not_found");

    // None of the refusals withdrew it.
    join(&app, &code).await.assert_status(200);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_revoked_scorer_cannot_rejoin_with_the_code_it_used(pool: PgPool) {
    let app = spawn_app(pool).await;
    let organiser = app.organiser("ann@club.example").await;
    let table = app.table(&organiser, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let code = new_code(&app, &organiser, &table).await;
    let joined = join(&app, &code).await.assert_status(200).clone();
    let scorer_id = joined["scorer_id"].as_str().expect("scorer id");

    app.request(
        Method::DELETE,
        &format!("/api/v1/tables/{table}/scorers/{scorer_id}"),
        Some(&organiser),
        None,
    )
    .await
    .assert_status(200);

    let scorers = scorers_stored(&app).await;
    join(&app, &code).await.assert_problem(401, "invalid_join_code");
    assert_eq!(scorers_stored(&app).await, scorers, "no scorer was made");
    let list = app
        .request(
            Method::GET,
            &format!("/api/v1/tables/{table}/join-codes"),
            Some(&organiser),
            None,
        )
        .await
        .assert_status(200)
        .clone();
    assert_eq!(list[0]["active"], false, "{list}");
    // A fresh code is the organiser's to hand out again.
    let fresh = new_code(&app, &organiser, &table).await;
    join(&app, &fresh).await.assert_status(200);
}

/// Runs `tablekeeper reset-password WHO` on the test's database with `stdin`.
fn reset_password(pool: &PgPool, who: &str, stdin: &str) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tablekeeper"))
        .args(["reset-password", who])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("DATABASE_URL", database_url(pool))
        .env("JWT_SECRET", TEST_SECRET)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("password written");
    child.wait_with_output().expect("finishes")
}

#[sqlx::test(migrations = "./migrations")]
async fn the_binary_resets_a_password_and_signs_out_every_token(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let token = app.organiser("ann@club.example").await;
    app.organiser("bob@club.example").await;

    let unknown = reset_password(&pool, "nobody@club.example", "battery staple horse\n");
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("nothing was changed"));
    // Both registered as "Organiser": a name that is not one person is refused.
    let ambiguous = reset_password(&pool, "Organiser", "battery staple horse\n");
    assert!(!ambiguous.status.success());
    assert!(String::from_utf8_lossy(&ambiguous.stderr).contains("name one by email"));
    let weak = reset_password(&pool, "ann@club.example", "short\n");
    assert!(!weak.status.success());
    login(&app, "ann@club.example", PASSWORD).await.assert_status(200);
    open_session(&app, &token).await.assert_status(201);

    let reset = reset_password(&pool, "ANN@club.example", "battery staple horse\n");
    assert!(reset.status.success(), "{}", String::from_utf8_lossy(&reset.stderr));

    login(&app, "ann@club.example", PASSWORD)
        .await
        .assert_problem(401, "invalid_credentials");
    login(&app, "ann@club.example", "battery staple horse")
        .await
        .assert_status(200);
    open_session(&app, &token).await.assert_problem(401, "token_revoked");
    login(&app, "bob@club.example", PASSWORD).await.assert_status(200);
}

/// A move reads who records with the table (issue #28): an account's token's standing and its
/// role in the club come back with the table's row, and each refusal is the one a check of its
/// own would give, with nothing written.
#[sqlx::test(migrations = "./migrations")]
async fn a_move_reads_the_accounts_token_and_role_with_the_table_and_refuses_as_before(pool: PgPool) {
    let app = spawn_app(pool).await;
    let ann = app.organiser("ann@club.example").await;
    let table = app.table(&ann, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let other = login(&app, "ann@club.example", PASSWORD).await.assert_status(200)["token"]
        .as_str()
        .expect("token")
        .to_owned();
    let nominate = |seat: u8| json!({"kind": "nominate", "seat": seat, "tricks": 0});
    app.submit(&table, &ann, nominate(1)).await.assert_status(201);
    let before = seen(&app, &table, &other).await;
    let nowhere = uuid::Uuid::new_v4();
    let set_role = |sql: &'static str| {
        let pool = app.pool.clone();
        async move { sqlx::query(sql).execute(&pool).await.expect("member changed") }
    };

    // A role that does not record, and a member who has left: as require() answers them.
    set_role("update club_members set role = 'viewer'").await;
    app.submit(&table, &ann, nominate(2))
        .await
        .assert_problem(403, "forbidden");
    set_role("update club_members set role = 'owner', left_at = now()").await;
    app.submit(&table, &ann, nominate(2))
        .await
        .assert_problem(404, "table_not_found");
    set_role("update club_members set left_at = null").await;
    assert_eq!(seen(&app, &table, &other).await, before, "a refused move wrote nothing");

    // Signed out: refused as such, at a table that exists and at one that does not (the token is
    // refused before the table is looked for, as when it was checked on its own).
    app.request(Method::POST, "/api/v1/auth/logout", Some(&ann), None)
        .await
        .assert_status(204);
    app.submit(&table, &ann, nominate(2))
        .await
        .assert_problem(401, "token_revoked");
    app.submit(&nowhere.to_string(), &ann, nominate(2))
        .await
        .assert_problem(401, "token_revoked");
    assert_eq!(
        seen(&app, &table, &other).await,
        before,
        "a signed-out token wrote nothing"
    );
    app.submit(&nowhere.to_string(), &other, nominate(2))
        .await
        .assert_problem(404, "table_not_found");

    // Everywhere: every token of an older generation, a move with the table's current version
    // (which would be written on the first read) included.
    app.submit(&table, &other, nominate(2)).await.assert_status(201);
    app.request(Method::POST, "/api/v1/auth/logout-everywhere", Some(&other), None)
        .await
        .assert_status(204);
    let fresh = login(&app, "ann@club.example", PASSWORD).await.assert_status(200)["token"]
        .as_str()
        .expect("token")
        .to_owned();
    let after = seen(&app, &table, &fresh).await;
    let body = json!({"move": nominate(3), "expected_version": after.0["version"]});
    app.post(&format!("/api/v1/tables/{table}/moves"), &other, body)
        .await
        .assert_problem(401, "token_revoked");
    assert_eq!(seen(&app, &table, &fresh).await, after, "nothing written");
    app.submit(&table, &fresh, nominate(3)).await.assert_status(201);
}

/// The table and its log as `token` reads them.
async fn seen(app: &TestApp, table: &str, token: &str) -> (Value, Value) {
    let state = app
        .get_as(&format!("/api/v1/tables/{table}"), token)
        .await
        .assert_status(200)
        .clone();
    let log = app
        .get_as(&format!("/api/v1/tables/{table}/moves?limit=500"), token)
        .await
        .assert_status(200)
        .clone();
    (state, log)
}
