//! `Idempotency-Key` on the creating `POST`s that came last (issue #26): registering, a
//! scorer's join, joining a club, a password reset and a webhook redelivery. A retry gets the
//! first answer and creates nothing; another body under the key is refused and changes nothing.
//! The two without an account (register, join) hand out a token: a replay hands one only to a
//! caller who sent what the first did, the password checked as a login checks it, and no kept
//! answer holds a token or a password.

use reqwest::Method;
use serde_json::{json, Value};
use sqlx::PgPool;

use crate::clubs::{account, club};
use crate::helpers::{spawn_app, spawn_app_with, Answer, TestApp};
use crate::idempotent_creation::{count, keyed, replayed};

const PASSWORD: &str = "correct horse battery";

/// A sign-in answer less what each answer issues afresh: its token and that token's expiry.
fn without_token(answer: &Value) -> Value {
    let mut rest = answer.clone();
    let fields = rest.as_object_mut().expect("an object");
    fields.remove("token").expect("a token");
    fields.remove("expires_at").expect("an expiry");
    rest
}

/// Every answer kept under a key, by accounts and at tables, as one text.
async fn kept_answers(app: &TestApp) -> String {
    sqlx::query_scalar(
        "select coalesce(string_agg(response_body::text, ' '), '') from
           (select response_body from creation_keys union all select response_body from idempotency_keys) kept",
    )
    .fetch_one(&app.pool)
    .await
    .expect("kept answers")
}

async fn login(app: &TestApp, email: &str, password: &str) -> Answer {
    app.request(
        Method::POST,
        "/api/v1/auth/login",
        None,
        Some(json!({"email": email, "password": password})),
    )
    .await
}

#[sqlx::test(migrations = "./migrations")]
async fn a_registration_retried_with_its_key_makes_one_account_and_a_new_token(pool: PgPool) {
    let app = spawn_app(pool).await;
    let body = json!({"email": "ann@club.example", "name": "Ann", "password": PASSWORD});

    let first = keyed(&app, "/api/v1/auth/register", None, "signup-1", body.clone()).await;
    let retry = keyed(&app, "/api/v1/auth/register", None, "signup-1", body).await;

    first.assert_status(201);
    retry.assert_status(201);
    assert_eq!(replayed(&first), None);
    assert_eq!(replayed(&retry), Some("true"));
    assert_eq!(without_token(&retry.body), without_token(&first.body));
    assert_eq!(retry.body["subject"], first.body["subject"]);
    assert_ne!(retry.body["token"], first.body["token"], "a token of its own");
    assert_eq!(count(&app, "select count(*) from users").await, 1);
    for token in [&first.body["token"], &retry.body["token"]] {
        let token = token.as_str().expect("token");
        app.get_as("/api/v1/clubs", token).await.assert_status(200);
    }
    let kept = kept_answers(&app).await;
    assert!(
        kept.contains(first.body["subject"].as_str().expect("subject")),
        "{kept}"
    );
    for secret in [&first.body["token"], &retry.body["token"]] {
        assert!(!kept.contains(secret.as_str().expect("token")), "no token kept: {kept}");
    }
    assert!(!kept.contains(PASSWORD), "no password kept: {kept}");
    let hashes: Vec<String> = sqlx::query_scalar("select request_hash from creation_keys")
        .fetch_all(&app.pool)
        .await
        .expect("hashes");
    assert_eq!(hashes.len(), 1);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_registration_key_hands_no_token_to_another_body_and_is_the_emails_own(pool: PgPool) {
    let app = spawn_app(pool).await;
    let body = json!({"email": "ann@club.example", "name": "Ann", "password": PASSWORD});
    let first = keyed(&app, "/api/v1/auth/register", None, "signup", body).await;
    first.assert_status(201);

    // Someone who knows the email and the key but not the password, or sends another name:
    // refused, no token, nothing changed, Ann's password stands.
    for other in [
        json!({"email": "ann@club.example", "name": "Ann", "password": "a guess at it"}),
        json!({"email": "ANN@club.example", "name": "Ann", "password": "a guess at it"}),
        json!({"email": "ann@club.example", "name": "Mallory", "password": PASSWORD}),
    ] {
        let refused = keyed(&app, "/api/v1/auth/register", None, "signup", other).await;
        refused.assert_problem(422, "idempotency_key_reused");
        assert!(refused.body.get("token").is_none(), "{}", refused.body);
    }
    assert_eq!(count(&app, "select count(*) from users").await, 1);
    login(&app, "ann@club.example", PASSWORD).await.assert_status(200);

    // The same key with another email is another registration: keys of strangers never meet.
    let bob = json!({"email": "bob@club.example", "name": "Bob", "password": "battery staple horse"});
    let bobs = keyed(&app, "/api/v1/auth/register", None, "signup", bob).await;
    bobs.assert_status(201);
    assert_eq!(replayed(&bobs), None);
    assert_ne!(bobs.body["subject"], first.body["subject"]);
    assert_eq!(count(&app, "select count(*) from users").await, 2);

    // Without the key, the email is taken as before.
    let again = json!({"email": "ann@club.example", "name": "Ann", "password": PASSWORD});
    app.request(Method::POST, "/api/v1/auth/register", None, Some(again))
        .await
        .assert_problem(409, "email_taken");
    assert_eq!(count(&app, "select count(*) from users").await, 2);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_registration_retried_after_its_password_changed_hands_no_token(pool: PgPool) {
    let app = spawn_app(pool).await;
    let body = json!({"email": "ann@club.example", "name": "Ann", "password": PASSWORD});
    let first = keyed(&app, "/api/v1/auth/register", None, "signup", body.clone()).await;
    let token = first.assert_status(201)["token"].as_str().expect("token").to_owned();
    app.request(
        Method::POST,
        "/api/v1/auth/password",
        Some(&token),
        Some(json!({"old_password": PASSWORD, "new_password": "battery staple horse"})),
    )
    .await
    .assert_status(200);

    // The old password no longer signs in, so a replay under it gets no token either.
    let retry = keyed(&app, "/api/v1/auth/register", None, "signup", body).await;
    retry.assert_problem(422, "idempotency_key_reused");
    assert_eq!(count(&app, "select count(*) from users").await, 1);
    login(&app, "ann@club.example", "battery staple horse")
        .await
        .assert_status(200);
}

#[sqlx::test(migrations = "./migrations")]
async fn two_registrations_racing_with_one_key_make_one_account(pool: PgPool) {
    let app = spawn_app(pool).await;
    let body = json!({"email": "ann@club.example", "name": "Ann", "password": PASSWORD});

    let (one, two) = tokio::join!(
        keyed(&app, "/api/v1/auth/register", None, "race", body.clone()),
        keyed(&app, "/api/v1/auth/register", None, "race", body),
    );

    one.assert_status(201);
    two.assert_status(201);
    assert_eq!(one.body["subject"], two.body["subject"]);
    let marked = [replayed(&one), replayed(&two)].iter().filter(|r| r.is_some()).count();
    assert_eq!(marked, 1, "one answer is fresh, the other the first one replayed");
    assert_eq!(count(&app, "select count(*) from users").await, 1);
}

/// A table of Ann's with a join code; (Ann's token, table, code).
async fn table_with_code(app: &TestApp) -> (String, String, String) {
    let ann = app.organiser("ann@club.example").await;
    let table = app.table(&ann, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let code = app
        .post(&format!("/api/v1/tables/{table}/join-codes"), &ann, json!({}))
        .await
        .assert_status(201)["code"]
        .as_str()
        .expect("code")
        .to_owned();
    (ann, table, code)
}

#[sqlx::test(migrations = "./migrations")]
async fn a_join_retried_with_its_key_makes_one_scorer_and_answers_alike(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (_, table, code) = table_with_code(&app).await;
    let body = json!({"code": code, "name": "Ann's phone"});
    let links = count(&app, "select count(*) from chain_links").await;

    let first = keyed(&app, "/api/v1/auth/join", None, "join-1", body.clone()).await;
    let retry = keyed(&app, "/api/v1/auth/join", None, "join-1", body).await;

    first.assert_status(200);
    retry.assert_status(200);
    assert_eq!(replayed(&first), None);
    assert_eq!(replayed(&retry), Some("true"));
    assert_eq!(
        without_token(&retry.body),
        without_token(&first.body),
        "the same scorer and receipt"
    );
    assert_ne!(retry.body["token"], first.body["token"], "a token of its own");
    assert_eq!(count(&app, "select count(*) from scorers").await, 1);
    assert_eq!(count(&app, "select count(*) from chain_links").await, links + 1);
    for token in [&first.body["token"], &retry.body["token"]] {
        let token = token.as_str().expect("token");
        app.get_as(&format!("/api/v1/tables/{table}"), token)
            .await
            .assert_status(200);
    }
    let kept = kept_answers(&app).await;
    assert!(
        kept.contains(first.body["scorer_id"].as_str().expect("scorer")),
        "{kept}"
    );
    for secret in [&first.body["token"], &retry.body["token"]] {
        assert!(!kept.contains(secret.as_str().expect("token")), "no token kept: {kept}");
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn a_join_key_hands_no_token_to_another_body_and_is_the_tables_own(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (ann, table, code) = table_with_code(&app).await;
    let first = keyed(
        &app,
        "/api/v1/auth/join",
        None,
        "phone-key",
        json!({"code": code, "name": "Ann's phone"}),
    )
    .await;
    first.assert_status(200);
    // A key a move used at the table is the table's too.
    let mv = json!({"move": {"kind": "result", "nominations": [0, 1, 0, 0], "tricks": [0, 1, 0, 0]}});
    keyed(
        &app,
        &format!("/api/v1/tables/{table}/moves"),
        Some(&ann),
        "move-key",
        mv,
    )
    .await
    .assert_status(201);
    let before = (
        count(&app, "select count(*) from scorers").await,
        count(&app, "select count(*) from chain_links").await,
    );

    // The code and the key with another name, or with none, or the move's key: refused, no
    // token, no scorer.
    for (key, other) in [
        ("phone-key", json!({"code": code, "name": "Mallory"})),
        ("phone-key", json!({"code": code})),
        ("move-key", json!({"code": code, "name": "Bob's phone"})),
    ] {
        let refused = keyed(&app, "/api/v1/auth/join", None, key, other).await;
        refused.assert_problem(422, "idempotency_key_reused");
        assert!(refused.body.get("token").is_none(), "{}", refused.body);
    }
    let after = (
        count(&app, "select count(*) from scorers").await,
        count(&app, "select count(*) from chain_links").await,
    );
    assert_eq!(after, before);

    // Another table's code with the same key is another join.
    let other = app.table(&ann, &["Dot", "Eve", "Fay", "Gus"], json!({})).await;
    let other_code = app
        .post(&format!("/api/v1/tables/{other}/join-codes"), &ann, json!({}))
        .await
        .assert_status(201)["code"]
        .as_str()
        .expect("code")
        .to_owned();
    let elsewhere = keyed(
        &app,
        "/api/v1/auth/join",
        None,
        "phone-key",
        json!({"code": other_code, "name": "Ann's phone"}),
    )
    .await;
    elsewhere.assert_status(200);
    assert_eq!(replayed(&elsewhere), None);
    assert_ne!(elsewhere.body["scorer_id"], first.body["scorer_id"]);
}

#[sqlx::test(migrations = "./migrations")]
async fn joining_a_club_retried_with_its_key_joins_once(pool: PgPool) {
    let app = spawn_app(pool).await;
    let ann = account(&app, "ann@club.example", "Ann").await;
    let bob = account(&app, "bob@club.example", "Bob").await;
    let id = club(&app, &ann, "Thursday whist").await;
    let invite = |role: &'static str| {
        let app = &app;
        let ann = ann.clone();
        let id = id.clone();
        async move {
            app.post(&format!("/api/v1/clubs/{id}/invitations"), &ann, json!({"role": role}))
                .await
                .assert_status(201)["code"]
                .as_str()
                .expect("code")
                .to_owned()
        }
    };
    let code = invite("scorer").await;
    let other = invite("viewer").await;
    let members = count(&app, "select count(*) from club_members").await;

    let first = keyed(&app, "/api/v1/clubs/join", Some(&bob), "join", json!({"code": code})).await;
    // Withdrawn since: the retry still gets the first answer.
    app.request(
        Method::DELETE,
        &format!("/api/v1/clubs/{id}/invitations/{code}"),
        Some(&ann),
        None,
    )
    .await
    .assert_status(204);
    let retry = keyed(&app, "/api/v1/clubs/join", Some(&bob), "join", json!({"code": code})).await;

    first.assert_status(200);
    retry.assert_status(200);
    assert_eq!(replayed(&first), None);
    assert_eq!(replayed(&retry), Some("true"));
    assert_eq!(retry.text, first.text, "the first answer, byte for byte");
    assert_eq!(count(&app, "select count(*) from club_members").await, members + 1);

    keyed(&app, "/api/v1/clubs/join", Some(&bob), "join", json!({"code": other}))
        .await
        .assert_problem(422, "idempotency_key_reused");
    assert_eq!(count(&app, "select count(*) from club_members").await, members + 1);
    let role: String = sqlx::query_scalar("select role from club_members where name = 'Bob'")
        .fetch_one(&app.pool)
        .await
        .expect("Bob's role");
    assert_eq!(role, "scorer");
}

#[sqlx::test(migrations = "./migrations")]
async fn a_password_reset_retried_with_its_key_resets_once_and_keeps_no_password(pool: PgPool) {
    let app = spawn_app(pool).await;
    let ann = account(&app, "ann@club.example", "Ann").await;
    let cat = account(&app, "cat@club.example", "Cat").await;
    let dan = account(&app, "dan@club.example", "Dan").await;
    let id = club(&app, &ann, "Thursday whist").await;
    crate::clubs::enrol(&app, &ann, &id, &cat, "viewer").await;
    crate::clubs::enrol(&app, &ann, &id, &dan, "viewer").await;
    let member = |name: &'static str| {
        let app = &app;
        async move {
            sqlx::query_scalar::<_, uuid::Uuid>("select id from club_members where name = $1")
                .bind(name)
                .fetch_one(&app.pool)
                .await
                .expect("member")
        }
    };
    let reset = format!("/api/v1/clubs/{id}/members/{}/password-reset", member("Cat").await);

    let first = keyed(&app, &reset, Some(&ann), "reset-cat", json!({})).await;
    let retry = keyed(&app, &reset, Some(&ann), "reset-cat", json!({})).await;

    first.assert_status(200);
    retry.assert_status(200);
    assert_eq!(replayed(&first), None);
    assert_eq!(replayed(&retry), Some("true"));
    let temporary = first.body["temporary_password"].as_str().expect("password").to_owned();
    let mut without = first.body.clone();
    without["temporary_password"] = Value::Null;
    assert_eq!(retry.body, without, "the first answer, less the password");
    // Nothing was reset again: the first password stands.
    login(&app, "cat@club.example", &temporary).await.assert_status(200);
    let kept = kept_answers(&app).await;
    assert!(!kept.contains(&temporary), "no password kept: {kept}");

    // The key for another member: refused, Dan's password stands.
    let dans = format!("/api/v1/clubs/{id}/members/{}/password-reset", member("Dan").await);
    keyed(&app, &dans, Some(&ann), "reset-cat", json!({}))
        .await
        .assert_problem(422, "idempotency_key_reused");
    login(&app, "dan@club.example", PASSWORD).await.assert_status(200);
    app.get_as("/api/v1/clubs", &dan).await.assert_status(200);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_redelivery_retried_with_its_key_makes_the_delivery_due_once(pool: PgPool) {
    // No worker: what the requests do to a delivery stays as they left it.
    let app = spawn_app_with(pool, |s| s.webhooks.worker = false).await;
    let ann = app.organiser("ann@club.example").await;
    let id = club(&app, &ann, "Thursday whist").await;
    let hook = app
        .post(
            &format!("/api/v1/clubs/{id}/webhooks"),
            &ann,
            json!({"url": "http://127.0.0.1:9/hooks", "events": ["deal.finished"]}),
        )
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .parse::<uuid::Uuid>()
        .expect("uuid");
    let mut deliveries = Vec::new();
    for _ in 0..2 {
        let delivery = uuid::Uuid::new_v4();
        sqlx::query(
            "insert into webhook_deliveries (id, webhook_id, event_type, body, created_at, state, attempts, next_attempt_at)
             values ($1, $2, 'deal.finished', '{\"type\":\"deal.finished\",\"data\":{}}', now(), 'failed', 4, now())",
        )
        .bind(delivery)
        .bind(hook)
        .execute(&app.pool)
        .await
        .expect("a delivery");
        deliveries.push(delivery);
    }
    let path = |delivery: uuid::Uuid| format!("/api/v1/clubs/{id}/webhooks/{hook}/deliveries/{delivery}/redeliver");
    let state = |delivery: uuid::Uuid| {
        let app = &app;
        async move {
            sqlx::query_scalar::<_, String>("select state from webhook_deliveries where id = $1")
                .bind(delivery)
                .fetch_one(&app.pool)
                .await
                .expect("state")
        }
    };

    let first = keyed(&app, &path(deliveries[0]), Some(&ann), "again", Value::Null).await;
    assert_eq!(first.assert_status(202)["state"], "pending");
    // Delivered since: a replay does not make it due again.
    sqlx::query("update webhook_deliveries set state = 'delivered', delivered_at = now() where id = $1")
        .bind(deliveries[0])
        .execute(&app.pool)
        .await
        .expect("delivered");
    let retry = keyed(&app, &path(deliveries[0]), Some(&ann), "again", Value::Null).await;

    retry.assert_status(202);
    assert_eq!(replayed(&first), None);
    assert_eq!(replayed(&retry), Some("true"));
    assert_eq!(retry.text, first.text, "the first answer, byte for byte");
    assert_eq!(state(deliveries[0]).await, "delivered");
    assert_eq!(count(&app, "select count(*) from webhook_deliveries").await, 2);

    // The key for another delivery: refused, that delivery untouched.
    keyed(&app, &path(deliveries[1]), Some(&ann), "again", Value::Null)
        .await
        .assert_problem(422, "idempotency_key_reused");
    assert_eq!(state(deliveries[1]).await, "failed");
}
