//! Private by default (issue #25): every read by id takes a token of a member of the club, a
//! scorer token of that very table, or a share link of the session; anyone else is told 401 or
//! 404 and never sees the data.

use reqwest::Method;
use serde_json::{json, Value};
use sqlx::PgPool;
use uuid::Uuid;

use crate::helpers::{spawn_app, Answer, TestApp};

/// Names only the session's own readers may see: none may appear in a refusal.
const SECRETS: [&str; 4] = ["Zebedee", "Ermintrude", "Dougal", "Magic Roundabout Night"];

/// A club's evening: a session with two tables (`table` and `other`), a table of the same club
/// outside the session (`loose`), and a stranger from another club.
struct Evening {
    app: TestApp,
    organiser: String,
    stranger: String,
    session: String,
    table: String,
    other: String,
    loose: String,
}

async fn evening(pool: PgPool) -> Evening {
    let app = spawn_app(pool).await;
    let organiser = app.organiser("ann@example.org").await;
    let stranger = app.organiser("bob@example.org").await;
    let session = app.session(&organiser, "Magic Roundabout Night").await;
    let mut tables = Vec::new();
    for _ in 0..2 {
        let body =
            json!({"game": "nomination-whist", "players": ["Zebedee", "Ermintrude", "Dougal"], "session_id": session});
        let table = app.post("/api/v1/tables", &organiser, body).await.assert_status(201)["id"]
            .as_str()
            .expect("id")
            .to_owned();
        tables.push(table);
    }
    let loose = app
        .table(&organiser, &["Zebedee", "Ermintrude", "Dougal"], json!({}))
        .await;
    Evening {
        session,
        other: tables.pop().expect("two tables"),
        table: tables.pop().expect("two tables"),
        loose,
        organiser,
        stranger,
        app,
    }
}

/// Every read of one table (`{t}`), JSON and CSV.
fn table_reads(t: &str) -> Vec<String> {
    [
        "",
        "/moves",
        "/scores",
        "/scores?format=csv",
        "/deals",
        "/scorers",
        "/ledger",
        "/ledger?format=csv",
        "/audit",
    ]
    .iter()
    .map(|tail| format!("/api/v1/tables/{t}{tail}"))
    .collect()
}

/// Every read of one session (`{s}`).
fn session_reads(s: &str) -> Vec<String> {
    let mut reads: Vec<String> = [
        "",
        "/standings",
        "/settlement",
        "/audit-bundle",
        "/ledger",
        "/ledger?format=csv",
    ]
    .iter()
    .map(|tail| format!("/api/v1/sessions/{s}{tail}"))
    .collect();
    reads.push(format!("/api/v1/tables?session_id={s}"));
    reads
}

fn streams(session: &str, table: &str) -> [String; 2] {
    [
        format!("/api/v1/sessions/{session}/events"),
        format!("/api/v1/tables/{table}/events"),
    ]
}

/// A stream's status and content type, with a token in the header or in the query; the stream
/// itself is dropped unread.
async fn open_stream(app: &TestApp, path: &str, header: Option<&str>, query: Option<&str>) -> (u16, String, String) {
    let url = match query {
        Some(token) => format!("{}{path}?access_token={token}", app.base),
        None => format!("{}{path}", app.base),
    };
    let mut req = app.client.get(url);
    if let Some(token) = header {
        req = req.bearer_auth(token);
    }
    let res = req.send().await.expect("stream request");
    let status = res.status().as_u16();
    let content_type = res
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let body = if status == 200 {
        String::new()
    } else {
        res.text().await.expect("refusal body")
    };
    (status, content_type, body)
}

#[track_caller]
fn assert_no_secrets(path: &str, answer: &str) {
    for secret in SECRETS {
        assert!(!answer.contains(secret), "{path} gave away {secret}: {answer}");
    }
}

#[track_caller]
fn assert_refused(path: &str, answer: &Answer, status: u16, codes: &[&str]) {
    assert_eq!(answer.status.as_u16(), status, "{path}: {}", answer.text);
    let code = answer.body["code"].as_str().unwrap_or_default();
    assert!(codes.contains(&code), "{path} answered `{code}`, not one of {codes:?}");
    answer.assert_problem(status, code);
    assert_no_secrets(path, &answer.text);
}

#[track_caller]
fn assert_read(path: &str, answer: &Answer) {
    assert_eq!(answer.status.as_u16(), 200, "{path}: {}", answer.text);
}

async fn club_of(app: &TestApp, session: &str) -> Uuid {
    sqlx::query_scalar("select club_id from club_sessions where id = $1")
        .bind(Uuid::parse_str(session).expect("uuid"))
        .fetch_one(&app.pool)
        .await
        .expect("club")
}

async fn user_of(app: &TestApp, email: &str) -> Uuid {
    sqlx::query_scalar("select id from users where email = $1")
        .bind(email)
        .fetch_one(&app.pool)
        .await
        .expect("user")
}

/// Makes the stranger a member of the evening's club with `role`.
async fn join_club(e: &Evening, role: tablekeeper::store::clubs::ClubRole) {
    let club = club_of(&e.app, &e.session).await;
    let user = user_of(&e.app, "bob@example.org").await;
    let mut conn = e.app.pool.acquire().await.expect("connection");
    tablekeeper::store::clubs::insert_member(&mut conn, club, Some((user, role)), "Bob", false)
        .await
        .expect("member");
}

async fn share_link(e: &Evening, body: Value) -> Value {
    e.app
        .post(
            &format!("/api/v1/sessions/{}/share-links", e.session),
            &e.organiser,
            body,
        )
        .await
        .assert_status(201)
        .clone()
}

fn every_read(e: &Evening) -> Vec<String> {
    let mut reads = table_reads(&e.table);
    reads.extend(session_reads(&e.session));
    reads.push(format!("/api/v1/tables/{}/deals/1", e.table));
    reads
}

#[sqlx::test(migrations = "./migrations")]
async fn no_token_reads_nothing(pool: PgPool) {
    let e = evening(pool).await;
    for path in every_read(&e) {
        let answer = e.app.get_anonymous(&path).await;
        assert_refused(&path, &answer, 401, &["missing_token"]);
    }
    for path in streams(&e.session, &e.table) {
        let (status, _, body) = open_stream(&e.app, &path, None, None).await;
        assert_eq!(status, 401, "{path}: {body}");
        assert_no_secrets(&path, &body);
        let (status, _, body) = open_stream(&e.app, &path, None, Some("not-a-token")).await;
        assert_eq!(status, 401, "{path} with a bad access_token: {body}");
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn a_member_of_another_club_is_told_not_found(pool: PgPool) {
    let e = evening(pool).await;
    for path in every_read(&e) {
        let answer = e.app.get_as(&path, &e.stranger).await;
        assert_refused(&path, &answer, 404, &["table_not_found", "session_not_found"]);
    }
    // The same answer as for an id that does not exist: the id is neither confirmed nor denied.
    let unknown = e
        .app
        .get_as(&format!("/api/v1/tables/{}", Uuid::new_v4()), &e.stranger)
        .await;
    let known = e.app.get_as(&format!("/api/v1/tables/{}", e.table), &e.stranger).await;
    assert_eq!(unknown.body["code"], known.body["code"]);
    assert_eq!(unknown.body["detail"], known.body["detail"]);
    for path in streams(&e.session, &e.table) {
        let (status, _, body) = open_stream(&e.app, &path, Some(&e.stranger), None).await;
        assert_eq!(status, 404, "{path}: {body}");
        assert_no_secrets(&path, &body);
        let (status, _, body) = open_stream(&e.app, &path, None, Some(&e.stranger)).await;
        assert_eq!(status, 404, "{path}: {body}");
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn a_viewer_of_the_club_reads_every_session_and_table(pool: PgPool) {
    let e = evening(pool).await;
    join_club(&e, tablekeeper::store::clubs::ClubRole::Viewer).await;
    let mut reads = table_reads(&e.table);
    reads.extend(session_reads(&e.session));
    reads.extend(table_reads(&e.loose));
    for path in reads {
        let answer = e.app.get_as(&path, &e.stranger).await;
        assert_read(&path, &answer);
    }
    let session = e
        .app
        .get_as(&format!("/api/v1/sessions/{}", e.session), &e.stranger)
        .await;
    assert_eq!(session.body["name"], "Magic Roundabout Night");
    for path in streams(&e.session, &e.table) {
        let (status, content_type, body) = open_stream(&e.app, &path, Some(&e.stranger), None).await;
        assert_eq!(status, 200, "{path}: {body}");
        assert!(content_type.starts_with("text/event-stream"));
    }
    // A viewer reads but does not hand out share links.
    let refused = e
        .app
        .post(
            &format!("/api/v1/sessions/{}/share-links", e.session),
            &e.stranger,
            json!({}),
        )
        .await;
    refused.assert_problem(403, "forbidden");
}

#[sqlx::test(migrations = "./migrations")]
async fn a_scorer_token_reads_its_own_table_only(pool: PgPool) {
    let e = evening(pool).await;
    let (scorer, _) = crate::scorers::scorer(&e.app, &e.organiser, &e.table, "Ann's phone").await;
    for path in table_reads(&e.table) {
        assert_read(&path, &e.app.get_as(&path, &scorer).await);
    }
    for path in table_reads(&e.other) {
        let answer = e.app.get_as(&path, &scorer).await;
        assert_refused(&path, &answer, 404, &["table_not_found"]);
    }
    // The evening around the table is the club's business, not the phone's.
    for path in session_reads(&e.session) {
        let answer = e.app.get_as(&path, &scorer).await;
        assert_refused(&path, &answer, 404, &["session_not_found"]);
    }
    let (status, _, _) = open_stream(
        &e.app,
        &format!("/api/v1/tables/{}/events", e.table),
        None,
        Some(&scorer),
    )
    .await;
    assert_eq!(status, 200);
    let (status, _, body) = open_stream(
        &e.app,
        &format!("/api/v1/tables/{}/events", e.other),
        None,
        Some(&scorer),
    )
    .await;
    assert_eq!(status, 404, "{body}");
}

#[sqlx::test(migrations = "./migrations")]
async fn a_share_link_reads_the_session_its_tables_and_their_streams(pool: PgPool) {
    let e = evening(pool).await;
    let link = share_link(&e, json!({"label": "Big screen", "expires_in_hours": 6})).await;
    let token = link["token"].as_str().expect("token").to_owned();
    assert_eq!(link["label"], "Big screen");
    assert_eq!(link["session_id"], e.session.as_str());
    assert!(link["revoked_at"].is_null());
    let url = link["url"].as_str().expect("url");
    assert!(url.ends_with(&format!("/?share={token}#/board/{}", e.session)), "{url}");
    let expires = chrono::DateTime::parse_from_rfc3339(link["expires_at"].as_str().expect("expiry")).expect("time");
    let hours = (expires.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_minutes();
    assert!((5 * 60..=6 * 60).contains(&hours), "expires in {hours} minutes");

    let mut reads = session_reads(&e.session);
    reads.extend(table_reads(&e.table));
    reads.extend(table_reads(&e.other));
    for path in reads {
        assert_read(&path, &e.app.get_as(&path, &token).await);
    }
    let tables = e.app.get_as("/api/v1/tables", &token).await;
    assert_eq!(
        tables.assert_status(200)["items"].as_array().map(Vec::len),
        Some(2),
        "the session's tables"
    );
    for path in streams(&e.session, &e.table) {
        let (status, content_type, body) = open_stream(&e.app, &path, None, Some(&token)).await;
        assert_eq!(status, 200, "{path}: {body}");
        assert!(content_type.starts_with("text/event-stream"));
    }
    // Nothing beyond the session: a table of the club outside it, another session of the club.
    for path in table_reads(&e.loose) {
        assert_refused(&path, &e.app.get_as(&path, &token).await, 404, &["table_not_found"]);
    }
    let later = e.app.session(&e.organiser, "Another night").await;
    for path in session_reads(&later) {
        assert_refused(&path, &e.app.get_as(&path, &token).await, 404, &["session_not_found"]);
    }
    let (status, _, _) = open_stream(&e.app, &format!("/api/v1/sessions/{later}/events"), None, Some(&token)).await;
    assert_eq!(status, 404);
    // Listing the links gives the same token again.
    let listed = e
        .app
        .get_as(&format!("/api/v1/sessions/{}/share-links", e.session), &e.organiser)
        .await;
    assert_eq!(listed.assert_status(200)["items"][0]["token"], token.as_str());
    assert_eq!(listed.body["items"][0]["id"], link["id"]);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_share_link_writes_nothing(pool: PgPool) {
    let e = evening(pool).await;
    let token = share_link(&e, json!({})).await["token"]
        .as_str()
        .expect("token")
        .to_owned();
    let before = e.app.state(&e.table).await;
    let writes: [(Method, String, Option<Value>); 7] = [
        (
            Method::POST,
            format!("/api/v1/tables/{}/moves", e.table),
            Some(json!({"move": {"type": "nominate", "tricks": 1}})),
        ),
        (Method::POST, format!("/api/v1/tables/{}/undo", e.table), None),
        (
            Method::POST,
            format!("/api/v1/tables/{}/join-codes", e.table),
            Some(json!({})),
        ),
        (
            Method::POST,
            "/api/v1/sessions".to_owned(),
            Some(json!({"name": "Mine now"})),
        ),
        (
            Method::PATCH,
            format!("/api/v1/sessions/{}", e.session),
            Some(json!({"chip_value": null})),
        ),
        (
            Method::POST,
            format!("/api/v1/sessions/{}/share-links", e.session),
            Some(json!({})),
        ),
        (
            Method::POST,
            "/api/v1/tables".to_owned(),
            Some(json!({"game": "nomination-whist", "players": ["A", "B", "C"], "session_id": e.session})),
        ),
    ];
    for (method, path, body) in writes {
        let answer = e.app.request(method.clone(), &path, Some(&token), body).await;
        answer.assert_problem(403, "share_link_read_only");
    }
    let listed = e
        .app
        .get_as(&format!("/api/v1/sessions/{}/share-links", e.session), &token)
        .await;
    listed.assert_problem(403, "share_link_read_only");
    assert_eq!(e.app.state(&e.table).await, before, "the table is as it was");
    let session = e.app.get(&format!("/api/v1/sessions/{}", e.session)).await;
    assert_eq!(session.assert_status(200)["tables"].as_array().map(Vec::len), Some(2));
    let links = e
        .app
        .get_as(&format!("/api/v1/sessions/{}/share-links", e.session), &e.organiser)
        .await;
    assert_eq!(links.assert_status(200)["items"].as_array().map(Vec::len), Some(1));
}

#[sqlx::test(migrations = "./migrations")]
async fn a_revoked_share_link_is_refused(pool: PgPool) {
    let e = evening(pool).await;
    let link = share_link(&e, json!({})).await;
    let token = link["token"].as_str().expect("token").to_owned();
    let keep = share_link(&e, json!({"label": "players"})).await;
    let path = format!(
        "/api/v1/sessions/{}/share-links/{}",
        e.session,
        link["id"].as_str().expect("id")
    );
    // Only the club's organisers revoke: a stranger is told there is no such session.
    let refused = e.app.request(Method::DELETE, &path, Some(&e.stranger), None).await;
    refused.assert_problem(404, "session_not_found");
    assert_read(
        "before",
        &e.app.get_as(&format!("/api/v1/sessions/{}", e.session), &token).await,
    );

    e.app
        .request(Method::DELETE, &path, Some(&e.organiser), None)
        .await
        .assert_status(204);
    for read in every_read(&e) {
        assert_refused(&read, &e.app.get_as(&read, &token).await, 401, &["share_link_revoked"]);
    }
    for stream in streams(&e.session, &e.table) {
        let (status, _, body) = open_stream(&e.app, &stream, None, Some(&token)).await;
        assert_eq!(status, 401, "{stream}: {body}");
        assert!(body.contains("share_link_revoked"), "{body}");
    }
    // Revoking again changes nothing; the other link still reads.
    e.app
        .request(Method::DELETE, &path, Some(&e.organiser), None)
        .await
        .assert_status(204);
    let listed = e
        .app
        .get_as(&format!("/api/v1/sessions/{}/share-links", e.session), &e.organiser)
        .await;
    let items = listed.assert_status(200)["items"].as_array().expect("items").clone();
    let revoked = items.iter().find(|l| l["id"] == link["id"]).expect("listed");
    assert!(revoked["revoked_at"].is_string());
    let kept = keep["token"].as_str().expect("token");
    assert_read(
        "kept",
        &e.app.get_as(&format!("/api/v1/sessions/{}", e.session), kept).await,
    );
    let unknown = format!("/api/v1/sessions/{}/share-links/{}", e.session, Uuid::new_v4());
    e.app
        .request(Method::DELETE, &unknown, Some(&e.organiser), None)
        .await
        .assert_problem(404, "share_link_not_found");
}

#[sqlx::test(migrations = "./migrations")]
async fn an_expired_share_link_is_refused(pool: PgPool) {
    let e = evening(pool).await;
    let link = share_link(&e, json!({"expires_in_hours": 1})).await;
    let token = link["token"].as_str().expect("token").to_owned();
    assert_read(
        "fresh",
        &e.app.get_as(&format!("/api/v1/tables/{}", e.table), &token).await,
    );
    // An hour later, as the database sees it.
    sqlx::query(
        "update share_links set created_at = created_at - interval '2 hours', expires_at = now() - interval '1 minute'
         where id = $1",
    )
    .bind(Uuid::parse_str(link["id"].as_str().expect("id")).expect("uuid"))
    .execute(&e.app.pool)
    .await
    .expect("expired");
    for read in every_read(&e) {
        assert_refused(&read, &e.app.get_as(&read, &token).await, 401, &["share_link_expired"]);
    }
    let (status, _, body) = open_stream(
        &e.app,
        &format!("/api/v1/sessions/{}/events", e.session),
        None,
        Some(&token),
    )
    .await;
    assert_eq!(status, 401, "{body}");
}

#[sqlx::test(migrations = "./migrations")]
async fn a_bad_share_link_request_makes_nothing(pool: PgPool) {
    let e = evening(pool).await;
    let path = format!("/api/v1/sessions/{}/share-links", e.session);
    for (body, code) in [
        (json!({"expires_in_hours": 0}), "invalid_expiry"),
        (json!({"expires_in_hours": -3}), "invalid_expiry"),
        (json!({"expires_in_hours": 24 * 367}), "invalid_expiry"),
        (json!({"label": "   "}), "invalid_label"),
        (json!({"label": "a".repeat(101)}), "invalid_label"),
        (json!({"label": "bell\u{7}"}), "invalid_label"),
        (json!({"expires": 3}), "unknown_field"),
    ] {
        e.app.post(&path, &e.organiser, body).await.assert_problem(422, code);
    }
    e.app
        .post(
            &format!("/api/v1/sessions/{}/share-links", Uuid::new_v4()),
            &e.organiser,
            json!({}),
        )
        .await
        .assert_problem(404, "session_not_found");
    e.app
        .post(&path, &e.stranger, json!({}))
        .await
        .assert_problem(404, "session_not_found");
    let (scorer, _) = crate::scorers::scorer(&e.app, &e.organiser, &e.table, "Ann's phone").await;
    e.app
        .post(&path, &scorer, json!({}))
        .await
        .assert_problem(403, "forbidden");
    let stored: i64 = sqlx::query_scalar("select count(*) from share_links")
        .fetch_one(&e.app.pool)
        .await
        .expect("count");
    assert_eq!(stored, 0, "no refused request made a link");
}

/// The spec says how each operation is authorised: the public ones say so (an empty
/// requirement), every other one names the bearer, and the streams the query token too.
#[test]
fn the_spec_declares_the_security_of_every_operation() {
    let spec = tablekeeper::api::openapi::spec();
    let public = [
        ("/api/v1/auth/register", "post"),
        ("/api/v1/auth/login", "post"),
        ("/api/v1/auth/join", "post"),
        ("/api/v1/games", "get"),
        ("/api/v1/audit-key", "get"),
        ("/api/v1/healthz", "get"),
        ("/api/v1/readyz", "get"),
        ("/api/v1/info", "get"),
    ];
    let mut seen_public = Vec::new();
    for (path, item) in spec["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("operations") {
            let Some(security) = operation.get("security").and_then(Value::as_array) else {
                panic!("{method} {path} declares no security");
            };
            if public.contains(&(path.as_str(), method.as_str())) {
                assert!(security.is_empty(), "{method} {path} is public: `security: []`");
                seen_public.push((path.clone(), method.clone()));
            } else {
                assert!(
                    security.iter().any(|s| s.get("bearer").is_some()),
                    "{method} {path} must need a bearer token"
                );
                assert!(!security.contains(&json!({})), "{method} {path} must not be public");
            }
            if path.ends_with("/events") {
                assert!(security.iter().any(|s| s.get("access_token").is_some()), "{path}");
            }
        }
    }
    assert_eq!(seen_public.len(), public.len(), "{seen_public:?}");
    assert_eq!(spec["components"]["securitySchemes"]["access_token"]["in"], "query");
}
