//! Personal API tokens: made, listed (the secret shown once) and revoked by an account signed in
//! with its password; kept hashed; each limited to one club and its scopes, and to its account's
//! role there at the time of use.

use reqwest::Method;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use tablekeeper::store::clubs::ClubRole;
use uuid::Uuid;

use crate::helpers::{spawn_app, Answer, TestApp};

async fn count(app: &TestApp, sql: &str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(&app.pool).await.expect("a count")
}

/// A club the account makes and owns.
async fn home_club(app: &TestApp, token: &str) -> String {
    app.post("/api/v1/clubs", token, json!({"name": "Thursday whist"}))
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("a club")
        .to_owned()
}

async fn make(app: &TestApp, token: &str, club: &str, scopes: &[&str]) -> Answer {
    app.post(
        "/api/v1/tokens",
        token,
        json!({"name": "Club website", "club_id": club, "scopes": scopes}),
    )
    .await
}

/// A token's secret, made with `scopes` in `club`.
async fn secret(app: &TestApp, token: &str, club: &str, scopes: &[&str]) -> String {
    make(app, token, club, scopes).await.assert_status(201)["secret"]
        .as_str()
        .expect("the secret")
        .to_owned()
}

/// A move from a legal move's choices: the first of each.
fn concrete(legal: &Value) -> Value {
    let mut mv = legal.clone();
    for value in mv.as_object_mut().expect("a move").values_mut() {
        if let Some(first) = value.as_array().and_then(|choices| choices.first()) {
            *value = first.clone();
        }
    }
    mv
}

fn refused_for_scope(answer: &Answer, scope: &str) {
    answer.assert_problem(403, "token_scope");
    let detail = answer.body["detail"].as_str().expect("detail");
    assert!(
        detail.contains(&format!("`{scope}`")),
        "names the `{scope}` scope: {detail}"
    );
}

/// An account with a login of its own, a member of `club` with `role`; its password token.
async fn member(app: &TestApp, club: &str, email: &str, role: ClubRole) -> String {
    let token = app.organiser(email).await;
    let user: Uuid = sqlx::query_scalar("select id from users where email = $1")
        .bind(email)
        .fetch_one(&app.pool)
        .await
        .expect("user");
    let mut conn = app.pool.acquire().await.expect("connection");
    tablekeeper::store::clubs::insert_member(&mut conn, club.parse().expect("uuid"), Some((user, role)), email, false)
        .await
        .expect("member");
    token
}

#[sqlx::test(migrations = "./migrations")]
async fn a_token_is_made_listed_and_revoked_and_its_secret_is_shown_once(pool: PgPool) {
    let app = spawn_app(pool).await;
    let ann = app.organiser("ann@club.example").await;
    let club = home_club(&app, &ann).await;

    let made = make(&app, &ann, &club, &["read"]).await;
    let body = made.assert_status(201).clone();
    let secret = body["secret"].as_str().expect("secret").to_owned();
    assert!(
        secret.starts_with("tk_") && secret.len() == 67,
        "tk_ and 64 hex: {secret}"
    );
    assert!(secret.starts_with(body["prefix"].as_str().expect("prefix")));
    assert_eq!(
        made.headers["location"].to_str().expect("ascii"),
        format!("/api/v1/tokens/{}", body["id"].as_str().expect("id"))
    );
    assert_eq!(body["scopes"], json!(["read"]));
    assert_eq!(body["club_id"], club.as_str());
    assert_eq!(body["expires_at"], Value::Null);

    // Stored hashed: the row holds SHA-256 of the secret, never the secret.
    let (hash, prefix): (Vec<u8>, String) = sqlx::query_as("select secret_hash, prefix from api_tokens")
        .fetch_one(&app.pool)
        .await
        .expect("row");
    assert_eq!(hash, Sha256::digest(secret.as_bytes()).to_vec());
    assert_ne!(hash, secret.as_bytes().to_vec());
    assert_eq!(format!("tk_{prefix}"), body["prefix"].as_str().expect("prefix"));
    let row: String = sqlx::query_scalar("select row_to_json(t)::text from api_tokens t")
        .fetch_one(&app.pool)
        .await
        .expect("row");
    assert!(
        !row.contains(&secret[15..]),
        "no part of the secret past the prefix is kept: {row}"
    );

    // The token reads its club, and its use is noted.
    app.get_as(&format!("/api/v1/clubs/{club}"), &secret)
        .await
        .assert_status(200);
    let listed = app.get_as("/api/v1/tokens", &ann).await;
    let items = listed.assert_status(200)["items"].as_array().expect("items").clone();
    assert_eq!(items.len(), 1);
    assert!(
        items[0].get("secret").is_none(),
        "a list never has the secret: {}",
        items[0]
    );
    assert!(!listed.text.contains(&secret[3..]), "nor any of it");
    assert!(items[0]["last_used_at"].is_string(), "last used: {}", items[0]);

    // Revoked: refused from then on; listed with its revocation.
    let id = body["id"].as_str().expect("id");
    app.request(Method::DELETE, &format!("/api/v1/tokens/{id}"), Some(&ann), None)
        .await
        .assert_status(204);
    app.get_as(&format!("/api/v1/clubs/{club}"), &secret)
        .await
        .assert_problem(401, "token_revoked");
    let listed = app.get_as("/api/v1/tokens", &ann).await;
    assert!(listed.assert_status(200)["items"][0]["revoked_at"].is_string());
    // Paged as every list is: the next page's link (RFC 8288) while there is one.
    make(&app, &ann, &club, &["read"]).await.assert_status(201);
    let first = app.get_as("/api/v1/tokens?limit=1", &ann).await;
    assert_eq!(first.assert_status(200)["next_offset"], 1);
    assert_eq!(
        first.headers.get("link").and_then(|v| v.to_str().ok()),
        Some(r#"</api/v1/tokens?limit=1&offset=1>; rel="next""#)
    );
    let last = app.get_as("/api/v1/tokens?limit=1&offset=1", &ann).await;
    assert_eq!(last.assert_status(200)["items"].as_array().map(Vec::len), Some(1));
    assert!(last.headers.get("link").is_none(), "no page after the last");
    // Another account's token is not found, and nothing changes.
    let bob = app.organiser("bob@club.example").await;
    app.request(Method::DELETE, &format!("/api/v1/tokens/{id}"), Some(&bob), None)
        .await
        .assert_problem(404, "api_token_not_found");
}

#[sqlx::test(migrations = "./migrations")]
async fn each_scope_allows_what_it_should_and_refuses_the_rest_naming_the_scope(pool: PgPool) {
    let app = spawn_app(pool).await;
    let ann = app.organiser("ann@club.example").await;
    let club = home_club(&app, &ann).await;
    let session = app.session(&ann, "Thursday").await;
    let table_body = json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat"], "session_id": session});
    let table = app
        .post("/api/v1/tables", &ann, table_body.clone())
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let read = secret(&app, &ann, &club, &["read"]).await;
    let record = secret(&app, &ann, &club, &["record"]).await;
    let organise = secret(&app, &ann, &club, &["organise"]).await;
    let treasury = secret(&app, &ann, &club, &["treasury"]).await;

    // read: reads, writes nothing.
    app.get_as(&format!("/api/v1/sessions/{session}"), &read)
        .await
        .assert_status(200);
    app.get_as(&format!("/api/v1/tables/{table}"), &read)
        .await
        .assert_status(200);
    refused_for_scope(
        &app.post("/api/v1/sessions", &read, json!({"name": "Friday"})).await,
        "organise",
    );
    let mv = app.state(&table).await["state"]["legal_moves"][0].clone();
    let mv = concrete(&mv);
    refused_for_scope(&app.submit(&table, &read, mv.clone()).await, "record");

    // record: records, does not read or organise.
    refused_for_scope(&app.get_as(&format!("/api/v1/tables/{table}"), &record).await, "read");
    app.submit(&table, &record, mv).await.assert_status(201);
    refused_for_scope(
        &app.post("/api/v1/tables", &record, table_body.clone()).await,
        "organise",
    );

    // organise: opens sessions and tables, records nothing.
    app.post("/api/v1/sessions", &organise, json!({"name": "Friday"}))
        .await
        .assert_status(201);
    app.post("/api/v1/tables", &organise, table_body)
        .await
        .assert_status(201);
    let mv = app.state(&table).await["state"]["legal_moves"][0].clone();
    let mv = concrete(&mv);
    refused_for_scope(&app.submit(&table, &organise, mv).await, "record");

    // treasury: sets what a chip is worth (Audit), opens nothing.
    app.request(
        Method::PATCH,
        &format!("/api/v1/sessions/{session}"),
        Some(&treasury),
        Some(json!({"chip_value": {"minor_units": 5, "currency": "GBP"}})),
    )
    .await
    .assert_status(200);
    refused_for_scope(
        &app.post("/api/v1/sessions", &treasury, json!({"name": "Sat"})).await,
        "organise",
    );
    refused_for_scope(
        &app.request(
            Method::PATCH,
            &format!("/api/v1/sessions/{session}"),
            Some(&read),
            Some(json!({"chip_value": null})),
        )
        .await,
        "treasury",
    );

    // No scope manages members, makes clubs or tokens, signs out or changes a password.
    let everything = secret(&app, &ann, &club, &["read", "record", "organise", "treasury"]).await;
    let invitation = app
        .post(
            &format!("/api/v1/clubs/{club}/invitations"),
            &everything,
            json!({"role": "scorer"}),
        )
        .await;
    invitation.assert_problem(403, "token_scope");
    app.post("/api/v1/clubs", &everything, json!({"name": "Another"}))
        .await
        .assert_problem(403, "token_scope");
    make(&app, &everything, &club, &["read"])
        .await
        .assert_problem(403, "token_scope");
    app.get_as("/api/v1/tokens", &everything)
        .await
        .assert_problem(403, "token_scope");
    app.post(
        "/api/v1/auth/password",
        &everything,
        json!({"old_password": "correct horse battery", "new_password": "another horse battery"}),
    )
    .await
    .assert_problem(403, "token_scope");
    app.request(Method::POST, "/api/v1/auth/logout", Some(&everything), None)
        .await
        .assert_problem(403, "token_scope");
    assert_eq!(count(&app, "select count(*) from club_invitations").await, 0);
    assert_eq!(count(&app, "select count(*) from clubs").await, 1);
    assert_eq!(count(&app, "select count(*) from api_tokens").await, 5);
    // The password still works.
    app.request(
        Method::POST,
        "/api/v1/auth/login",
        None,
        Some(json!({"email": "ann@club.example", "password": "correct horse battery"})),
    )
    .await
    .assert_status(200);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_token_of_one_club_sees_nothing_of_another(pool: PgPool) {
    let app = spawn_app(pool).await;
    let ann = app.organiser("ann@club.example").await;
    let home = home_club(&app, &ann).await;
    let other = app.post("/api/v1/clubs", &ann, json!({"name": "Tuesday bridge"})).await;
    let other = other.assert_status(201)["id"].as_str().expect("id").to_owned();
    let theirs = app
        .post("/api/v1/sessions", &ann, json!({"name": "Tuesday", "club_id": other}))
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let table = app
        .post(
            "/api/v1/tables",
            &ann,
            json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat"], "session_id": theirs}),
        )
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let ours = app
        .post("/api/v1/sessions", &ann, json!({"name": "Thursday", "club_id": home}))
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let token = secret(&app, &ann, &home, &["read", "record", "organise", "treasury"]).await;

    app.get_as(&format!("/api/v1/clubs/{other}"), &token)
        .await
        .assert_problem(404, "club_not_found");
    app.get_as(&format!("/api/v1/sessions/{theirs}"), &token)
        .await
        .assert_problem(404, "session_not_found");
    app.get_as(&format!("/api/v1/tables/{table}"), &token)
        .await
        .assert_problem(404, "table_not_found");
    app.get_as(&format!("/api/v1/tables/{table}/ledger"), &token)
        .await
        .assert_problem(404, "table_not_found");
    let mv = app
        .get_as(&format!("/api/v1/tables/{table}"), &ann)
        .await
        .assert_status(200)["state"]["legal_moves"][0]
        .clone();
    let mv = concrete(&mv);
    app.submit(&table, &token, mv)
        .await
        .assert_problem(404, "table_not_found");
    app.post("/api/v1/sessions", &token, json!({"name": "Sneaky", "club_id": other}))
        .await
        .assert_problem(404, "club_not_found");
    app.get_as(&format!("/api/v1/clubs/{other}/members"), &token)
        .await
        .assert_problem(404, "club_not_found");

    // Lists show the token's club alone.
    let clubs = app.get_as("/api/v1/clubs", &token).await;
    assert_eq!(clubs.assert_status(200)["items"].as_array().expect("items").len(), 1);
    assert_eq!(clubs.body["items"][0]["id"], home.as_str());
    let sessions = app.get_as("/api/v1/sessions", &token).await;
    let items = sessions.assert_status(200)["items"].as_array().expect("items").clone();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["id"], ours.as_str());
    let asked = app.get_as(&format!("/api/v1/sessions?club_id={other}"), &token).await;
    assert_eq!(asked.assert_status(200)["items"], json!([]));
    let tables = app.get_as("/api/v1/tables", &token).await;
    assert_eq!(tables.assert_status(200)["items"], json!([]));
    assert_eq!(count(&app, "select count(*) from club_sessions").await, 2);
}

#[sqlx::test(migrations = "./migrations")]
async fn revoked_and_expired_tokens_are_refused(pool: PgPool) {
    let app = spawn_app(pool).await;
    let ann = app.organiser("ann@club.example").await;
    let club = home_club(&app, &ann).await;
    let made = app
        .post(
            "/api/v1/tokens",
            &ann,
            json!({"name": "Scoreboard", "club_id": club, "scopes": ["read"], "expires_in_days": 30}),
        )
        .await;
    let token = made.assert_status(201)["secret"].as_str().expect("secret").to_owned();
    assert!(made.body["expires_at"].is_string());
    app.get_as(&format!("/api/v1/clubs/{club}"), &token)
        .await
        .assert_status(200);

    sqlx::query("update api_tokens set created_at = now() - interval '31 days', expires_at = now() - interval '1 day'")
        .execute(&app.pool)
        .await
        .expect("aged");
    app.get_as(&format!("/api/v1/clubs/{club}"), &token)
        .await
        .assert_problem(401, "token_expired");

    // A token this service never made, or one with a secret off by one character.
    let mut forged = secret(&app, &ann, &club, &["read"]).await;
    let last = if forged.ends_with('0') { "1" } else { "0" };
    forged.replace_range(forged.len() - 1.., last);
    app.get_as(&format!("/api/v1/clubs/{club}"), &forged)
        .await
        .assert_problem(401, "invalid_token");
    app.get_as(&format!("/api/v1/clubs/{club}"), "tk_short")
        .await
        .assert_problem(401, "invalid_token");
}

#[sqlx::test(migrations = "./migrations")]
async fn a_demoted_members_token_shrinks_with_the_role(pool: PgPool) {
    let app = spawn_app(pool).await;
    let ann = app.organiser("ann@club.example").await;
    let club = home_club(&app, &ann).await;
    let bob = member(&app, &club, "bob@club.example", ClubRole::Organiser).await;
    let token = secret(&app, &bob, &club, &["read", "organise"]).await;
    app.post(
        "/api/v1/sessions",
        &token,
        json!({"name": "Bob's night", "club_id": club}),
    )
    .await
    .assert_status(201);

    sqlx::query("update club_members set role = 'viewer' where name = 'bob@club.example'")
        .execute(&app.pool)
        .await
        .expect("demoted");
    app.post("/api/v1/sessions", &token, json!({"name": "Again", "club_id": club}))
        .await
        .assert_problem(403, "forbidden");
    let listed = app.get_as("/api/v1/sessions", &token).await;
    assert_eq!(listed.assert_status(200)["items"].as_array().expect("items").len(), 1);
    assert_eq!(count(&app, "select count(*) from club_sessions").await, 1);

    // Left the club: the token reads nothing of it.
    sqlx::query("update club_members set left_at = now() where name = 'bob@club.example'")
        .execute(&app.pool)
        .await
        .expect("left");
    app.get_as(&format!("/api/v1/clubs/{club}"), &token)
        .await
        .assert_problem(404, "club_not_found");
}

#[sqlx::test(migrations = "./migrations")]
async fn bad_requests_for_tokens_are_refused_and_make_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let ann = app.organiser("ann@club.example").await;
    let club = home_club(&app, &ann).await;
    let bob = app.organiser("bob@club.example").await;
    let bobs = home_club(&app, &bob).await;
    let viewer = member(&app, &club, "vic@club.example", ClubRole::Viewer).await;

    let ask = |body: Value| {
        let app = &app;
        let ann = ann.clone();
        async move { app.post("/api/v1/tokens", &ann, body).await }
    };
    ask(json!({"name": "x", "club_id": club, "scopes": ["read", "admin"]}))
        .await
        .assert_problem(422, "unknown_scope");
    ask(json!({"name": "x", "club_id": club, "scopes": []}))
        .await
        .assert_problem(422, "invalid_scopes");
    ask(json!({"name": "  ", "club_id": club, "scopes": ["read"]}))
        .await
        .assert_problem(422, "invalid_name");
    ask(json!({"name": "x", "club_id": club, "scopes": ["read"], "expires_in_days": 0}))
        .await
        .assert_problem(422, "invalid_expiry");
    ask(json!({"name": "x", "club_id": bobs, "scopes": ["read"]}))
        .await
        .assert_problem(404, "club_not_found");
    ask(json!({"name": "x", "club_id": club, "scopes": ["read"], "admin": true}))
        .await
        .assert_problem(422, "unknown_field");
    app.post(
        "/api/v1/tokens",
        &viewer,
        json!({"name": "x", "club_id": club, "scopes": ["record"]}),
    )
    .await
    .assert_problem(422, "scope_beyond_role");
    app.request(
        Method::POST,
        "/api/v1/tokens",
        None,
        Some(json!({"name": "x", "club_id": club, "scopes": ["read"]})),
    )
    .await
    .assert_problem(401, "missing_token");
    assert_eq!(count(&app, "select count(*) from api_tokens").await, 0);
    // A viewer may have a read token.
    app.post(
        "/api/v1/tokens",
        &viewer,
        json!({"name": "x", "club_id": club, "scopes": ["read"]}),
    )
    .await
    .assert_status(201);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_tokens_page_of_clubs_counts_only_its_club_however_many_the_account_has(pool: PgPool) {
    let app = spawn_app(pool).await;
    let ann = app.organiser("ann@club.example").await;
    // More clubs than a page before the token's own, so a page read before filtering would hold
    // none of it.
    for name in ["Monday", "Tuesday", "Wednesday"] {
        app.post("/api/v1/clubs", &ann, json!({"name": name}))
            .await
            .assert_status(201);
    }
    let home = home_club(&app, &ann).await;
    let token = secret(&app, &ann, &home, &["read"]).await;

    let page = app.get_as("/api/v1/clubs?limit=2", &token).await;
    let items = page.assert_status(200)["items"].as_array().expect("items").clone();
    assert_eq!(items.len(), 1, "the token's club on the first page: {items:?}");
    assert_eq!(items[0]["id"], home.as_str());
    assert_eq!(page.body["next_offset"], Value::Null, "no further page");
    let beyond = app.get_as("/api/v1/clubs?limit=2&offset=1", &token).await;
    assert_eq!(beyond.assert_status(200)["items"], json!([]));
    assert_eq!(beyond.body["next_offset"], Value::Null);

    // The account itself still pages through all four.
    let first = app.get_as("/api/v1/clubs?limit=2", &ann).await;
    assert_eq!(first.assert_status(200)["items"].as_array().expect("items").len(), 2);
    assert_eq!(first.body["next_offset"], 2);
    let second = app.get_as("/api/v1/clubs?limit=2&offset=2", &ann).await;
    let last = second.assert_status(200)["items"].as_array().expect("items").clone();
    assert_eq!(last.len(), 2);
    assert_eq!(last[1]["id"], home.as_str());
    assert_eq!(second.body["next_offset"], Value::Null);
}

/// Issue #39: a token of any scope, even `read`, could make a member owner, mark them a guest
/// and reset their password, in its club and in every other club its account owns.
#[sqlx::test(migrations = "./migrations")]
async fn no_token_of_any_scope_changes_members_or_resets_their_passwords_in_any_club(pool: PgPool) {
    let app = spawn_app(pool).await;
    let owner = app.organiser("owner@example.org").await;
    let own = home_club(&app, &owner).await;
    let other = home_club(&app, &owner).await;
    let all = ["read", "record", "organise", "treasury"];
    let mut tokens: Vec<(String, &str)> = all.iter().map(|s| (String::new(), *s)).collect();
    for (token, scope) in &mut tokens {
        *token = secret(&app, &owner, &own, &[scope]).await;
    }
    let every = secret(&app, &owner, &own, &all).await;
    for club in [&own, &other] {
        let victim = member(&app, club, &format!("victim-{club}@example.org"), ClubRole::Viewer).await;
        let member_id: String = sqlx::query_scalar(
            "select id::text from club_members where club_id = $1::uuid and user_id is not null and role = 'viewer'",
        )
        .bind(club)
        .fetch_one(&app.pool)
        .await
        .expect("member");
        let before = count(&app, "select count(*) from club_members where role = 'owner' or guest").await;
        let hash_before: String = sqlx::query_scalar(
            "select password_hash || token_generation from users where id = (select user_id from club_members where id = $1::uuid)",
        )
        .bind(&member_id)
        .fetch_one(&app.pool)
        .await
        .expect("hash");
        for (token, _) in tokens
            .iter()
            .map(|(t, s)| (t.as_str(), *s))
            .chain([(every.as_str(), "all")])
        {
            let path = format!("/api/v1/clubs/{club}/members/{member_id}");
            for body in [
                json!({"role": "owner"}),
                json!({"guest": true}),
                json!({"active": false}),
            ] {
                let answer = app.request(Method::PATCH, &path, Some(token), Some(body)).await;
                if club == &own {
                    answer.assert_problem(403, "token_scope");
                } else {
                    answer.assert_problem(404, "club_not_found");
                }
            }
            let reset = app
                .request(Method::POST, &format!("{path}/password-reset"), Some(token), None)
                .await;
            if club == &own {
                reset.assert_problem(403, "token_scope");
            } else {
                reset.assert_problem(404, "club_not_found");
            }
        }
        assert_eq!(
            count(&app, "select count(*) from club_members where role = 'owner' or guest").await,
            before,
            "no member became owner or guest"
        );
        let hash_after: String = sqlx::query_scalar(
            "select password_hash || token_generation from users where id = (select user_id from club_members where id = $1::uuid)",
        )
        .bind(&member_id)
        .fetch_one(&app.pool)
        .await
        .expect("hash");
        assert_eq!(hash_after, hash_before, "no password was reset");
        // The victim's own sign-in still stands.
        app.get_as(&format!("/api/v1/clubs/{club}"), &victim)
            .await
            .assert_status(200);
        // The owner's password session still does both.
        app.request(
            Method::PATCH,
            &format!("/api/v1/clubs/{club}/members/{member_id}"),
            Some(&owner),
            Some(json!({"guest": true})),
        )
        .await
        .assert_status(200);
    }
}
