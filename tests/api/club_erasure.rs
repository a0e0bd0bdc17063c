//! Anonymising a member who left (issue #25, "Evidence and erasure"): the name goes from every
//! read, the chains of the tables they sat at stay intact, and bundles made before and after
//! both verify.

use reqwest::Method;
use serde_json::{json, Value};
use sqlx::PgPool;
use tablekeeper::service::bundle::verify;

use crate::clubs::{account, club, enrol, get, patch};
use crate::helpers::{assert_audit_consistent, spawn_app, TestApp};

const NAME: &str = "Bob Brown";

fn result(tricks: [u8; 4]) -> Value {
    json!({"kind": "result", "nominations": [0, 1, 0, 0], "tricks": tricks})
}

struct Evening {
    club: String,
    ann: String,
    vic: String,
    bob: String,
    session: String,
    tables: Vec<String>,
    season: String,
}

/// Ann's club with Vic (viewer) and Bob Brown (a player without an account); a session in it
/// with two tables Bob sat at (one found by name, one by member id), a deal played at each, and
/// a season that covers them.
async fn an_evening(app: &TestApp) -> Evening {
    let ann = account(app, "ann@club.example", "Ann").await;
    let id = club(app, &ann, "Thursday whist").await;
    let vic = account(app, "vic@club.example", "Vic").await;
    enrol(app, &ann, &id, &vic, "viewer").await;
    let bob = app
        .post(&format!("/api/v1/clubs/{id}/members"), &ann, json!({"name": NAME}))
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let session = app
        .post("/api/v1/sessions", &ann, json!({"name": "Thursday", "club_id": id}))
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let mut tables = Vec::new();
    for members in [json!(null), json!([{"seat": 1, "member": bob}])] {
        let mut body = json!({"game": "nomination-whist", "players": ["Ann", NAME, "Cat", "Dan"],
                              "options": {"hand_sizes": [1]}, "session_id": session});
        if !members.is_null() {
            body["members"] = members;
        }
        // Sent with an Idempotency-Key: the answer kept for a retry names the players too.
        let key = uuid::Uuid::new_v4().to_string();
        let answer = app
            .send(
                Method::POST,
                "/api/v1/tables",
                Some(&ann),
                Some(body.to_string()),
                &[("Idempotency-Key", &key)],
            )
            .await;
        let table = answer.assert_status(201)["id"].as_str().expect("id").to_owned();
        app.submit(&table, &ann, result([0, 1, 0, 0])).await.assert_status(201);
        tables.push(table);
    }
    let season = app
        .post(
            &format!("/api/v1/clubs/{id}/seasons"),
            &ann,
            json!({"name": "All", "starts": "2000-01-01", "ends": "2999-12-31", "games": ["nomination-whist"],
                   "scoring": {"kind": "league_points", "points": [3, 2, 1, 0]}}),
        )
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    Evening {
        club: id,
        ann,
        vic,
        bob,
        session,
        tables,
        season,
    }
}

impl Evening {
    /// Every read that shows the member's name.
    fn reads(&self) -> Vec<String> {
        let (club, session, season, bob) = (&self.club, &self.session, &self.season, &self.bob);
        let mut reads = vec![
            format!("/api/v1/clubs/{club}/members"),
            format!("/api/v1/clubs/{club}/members/{bob}"),
            format!("/api/v1/clubs/{club}/seasons/{season}/standings"),
            format!("/api/v1/clubs/{club}/seasons/{season}/standings?format=csv"),
            format!("/api/v1/sessions/{session}"),
            format!("/api/v1/sessions/{session}/standings"),
            format!("/api/v1/sessions/{session}/ledger"),
            format!("/api/v1/sessions/{session}/settlement"),
            format!("/api/v1/sessions/{session}/audit-bundle"),
        ];
        for table in &self.tables {
            for tail in ["", "/scores", "/ledger", "/moves", "/deals", "/scores?format=csv"] {
                reads.push(format!("/api/v1/tables/{table}{tail}"));
            }
        }
        reads
    }

    /// The reads (as Ann) that contain `text`.
    async fn showing(&self, app: &TestApp, text: &str) -> Vec<String> {
        let mut found = Vec::new();
        for path in self.reads() {
            let answer = get(app, &path, &self.ann).await;
            assert_eq!(answer.status.as_u16(), 200, "{path}: {}", answer.text);
            if answer.text.contains(text) {
                found.push(path);
            }
        }
        found
    }

    fn anonymise(&self, member: &str) -> String {
        format!("/api/v1/clubs/{}/members/{member}/anonymise", self.club)
    }
}

async fn bundle(app: &TestApp, session: &str, token: &str) -> Vec<u8> {
    let answer = get(app, &format!("/api/v1/sessions/{session}/audit-bundle"), token).await;
    assert_eq!(answer.status.as_u16(), 200, "{}", answer.text);
    answer.text.into_bytes()
}

async fn public_key(app: &TestApp) -> String {
    app.get("/api/v1/audit-key").await.assert_status(200)["public_key"]
        .as_str()
        .expect("key")
        .to_owned()
}

/// Rows anywhere in the database that still hold the name, by table.
async fn rows_naming(app: &TestApp) -> i64 {
    sqlx::query_scalar(
        "select (select count(*) from club_members where name ilike '%' || $1 || '%')
              + (select count(*) from session_members where name ilike '%' || $1 || '%')
              + (select count(*) from game_tables where array_to_string(players, '|') ilike '%' || $1 || '%')
              + (select count(*) from creation_keys where response_body::text ilike '%' || $1 || '%')
              + (select count(*) from idempotency_keys where response_body::text ilike '%' || $1 || '%')",
    )
    .bind(NAME)
    .fetch_one(&app.pool)
    .await
    .expect("count")
}

async fn post(app: &TestApp, path: &str, token: &str) -> crate::helpers::Answer {
    app.request(Method::POST, path, Some(token), None).await
}

#[sqlx::test(migrations = "./migrations")]
async fn a_member_who_left_is_anonymised_everywhere_and_every_chain_and_bundle_still_verifies(pool: PgPool) {
    let app = spawn_app(pool).await;
    let e = an_evening(&app).await;
    let naming = e.showing(&app, NAME).await;
    for read in [
        "/members",
        "/standings",
        "format=csv",
        "/audit-bundle",
        &e.session,
        &e.tables[0],
        &e.tables[1],
    ] {
        assert!(
            naming.iter().any(|path| path.contains(read)),
            "{read} shows the name: {naming:?}"
        );
    }
    let key = public_key(&app).await;
    assert!(
        rows_naming(&app).await >= 6,
        "the member, the roster, two seats, two kept answers"
    );
    let before = bundle(&app, &e.session, &e.ann).await;
    verify(&before, Some(&key)).expect("the bundle made before verifies");
    let heads: Vec<Value> = {
        let mut heads = Vec::new();
        for table in &e.tables {
            heads.push(assert_audit_consistent(&app, table).await["chain_head"].clone());
        }
        heads
    };

    patch(
        &app,
        &format!("/api/v1/clubs/{}/members/{}", e.club, e.bob),
        &e.ann,
        json!({"active": false}),
    )
    .await
    .assert_status(200);
    let member = post(&app, &e.anonymise(&e.bob), &e.ann)
        .await
        .assert_status(200)
        .clone();
    assert_eq!(member["name"], "Former member 1");
    assert_eq!(member["anonymised"], true);
    assert_eq!(member["active"], false);

    assert_eq!(
        e.showing(&app, NAME).await,
        Vec::<String>::new(),
        "no read shows the name"
    );
    assert_eq!(rows_naming(&app).await, 0, "no row keeps the name");
    let shown = e.showing(&app, "Former member 1").await;
    assert_eq!(shown, naming, "the label shows instead");
    for (table, head) in e.tables.iter().zip(&heads) {
        let audit = assert_audit_consistent(&app, table).await;
        assert_eq!(audit["chain_intact"], true);
        assert_eq!(&audit["chain_head"], head, "the chain is the one vouched for before");
    }
    let after = bundle(&app, &e.session, &e.ann).await;
    verify(&before, Some(&key)).expect("the bundle made before still verifies");
    let summary = verify(&after, Some(&key)).expect("the bundle made after verifies");
    assert!(!String::from_utf8_lossy(&after).contains(NAME));
    assert!(!summary.is_empty());

    // Twice is harmless; an anonymised member does not come back.
    let again = post(&app, &e.anonymise(&e.bob), &e.ann)
        .await
        .assert_status(200)
        .clone();
    assert_eq!(again, member);
    patch(
        &app,
        &format!("/api/v1/clubs/{}/members/{}", e.club, e.bob),
        &e.ann,
        json!({"active": true}),
    )
    .await
    .assert_problem(409, "member_anonymised");
    // The table still takes a seat for a new player of the old name: a new member.
    let body = json!({"game": "nomination-whist", "players": ["Ann", NAME, "Cat"], "session_id": e.session});
    app.post("/api/v1/tables", &e.ann, body).await.assert_status(201);
    let members = get(&app, &format!("/api/v1/clubs/{}/members", e.club), &e.ann).await;
    let named: Vec<&Value> = members.assert_status(200)["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|m| m["name"] == NAME)
        .collect();
    assert_eq!(named.len(), 1);
    assert_ne!(named[0]["id"], e.bob.as_str());
}

#[sqlx::test(migrations = "./migrations")]
async fn only_a_manager_anonymises_only_a_member_who_left_and_a_refusal_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let e = an_evening(&app).await;
    let stranger = account(&app, "sue@other.example", "Sue").await;
    club(&app, &stranger, "Other club").await;
    let rows = "select count(*) from club_members where anonymised_at is not null or name like 'Former member%'";
    let unchanged = |app: &TestApp| {
        let pool = app.pool.clone();
        async move {
            let anonymised: i64 = sqlx::query_scalar(rows).fetch_one(&pool).await.expect("count");
            assert_eq!(anonymised, 0);
            assert_eq!(
                rows_naming_in(&pool).await,
                4,
                "Bob's member row, roster entry and two seats"
            );
        }
    };

    post(&app, &e.anonymise(&e.bob), &e.ann)
        .await
        .assert_problem(409, "member_active");
    unchanged(&app).await;

    patch(
        &app,
        &format!("/api/v1/clubs/{}/members/{}", e.club, e.bob),
        &e.ann,
        json!({"active": false}),
    )
    .await
    .assert_status(200);
    post(&app, &e.anonymise(&e.bob), &e.vic)
        .await
        .assert_problem(403, "forbidden");
    post(&app, &e.anonymise(&e.bob), &stranger)
        .await
        .assert_problem(404, "club_not_found");
    app.request(Method::POST, &e.anonymise(&e.bob), None, None)
        .await
        .assert_problem(401, "missing_token");
    post(&app, &e.anonymise(&uuid::Uuid::new_v4().to_string()), &e.ann)
        .await
        .assert_problem(404, "member_not_found");
    post(&app, &e.anonymise("not-a-uuid"), &e.ann)
        .await
        .assert_problem(404, "not_found");
    unchanged(&app).await;
}

async fn rows_naming_in(pool: &PgPool) -> i64 {
    sqlx::query_scalar(
        "select (select count(*) from club_members where name = $1)
              + (select count(*) from session_members where name = $1)
              + (select count(*) from game_tables where $1 = any (players))",
    )
    .bind(NAME)
    .fetch_one(pool)
    .await
    .expect("count")
}

#[sqlx::test(migrations = "./migrations")]
async fn a_member_with_an_account_who_is_anonymised_and_rejoins_is_a_new_member_under_their_own_name(pool: PgPool) {
    let app = spawn_app(pool).await;
    let e = an_evening(&app).await;
    let vic_member = |members: &Value| -> Vec<Value> {
        members["items"]
            .as_array()
            .expect("members")
            .iter()
            .filter(|m| m["name"] == "Vic" || m["anonymised"] == true)
            .cloned()
            .collect()
    };
    let listed = get(&app, &format!("/api/v1/clubs/{}/members", e.club), &e.ann).await;
    let before = vic_member(&listed.body);
    assert_eq!(before.len(), 1, "{before:?}");
    let old_id = before[0]["id"].as_str().expect("id").to_owned();

    patch(
        &app,
        &format!("/api/v1/clubs/{}/members/{old_id}", e.club),
        &e.ann,
        json!({"active": false}),
    )
    .await
    .assert_status(200);
    let anonymised = post(&app, &e.anonymise(&old_id), &e.ann).await;
    let anonymised = anonymised.assert_status(200);
    assert_eq!(anonymised["user_id"], Value::Null, "{anonymised}");
    assert_eq!(anonymised["role"], Value::Null, "{anonymised}");
    // Let go of the account: Vic's token no longer reads the club.
    get(&app, &format!("/api/v1/clubs/{}", e.club), &e.vic)
        .await
        .assert_problem(404, "club_not_found");

    // Back by invitation: a new member, under Vic's own name; the label stays the label's.
    let joined = enrol(&app, &e.ann, &e.club, &e.vic, "viewer").await;
    assert_eq!(joined["role"], "viewer");
    let listed = get(&app, &format!("/api/v1/clubs/{}/members", e.club), &e.ann).await;
    let after = vic_member(&listed.body);
    assert_eq!(after.len(), 2, "{after:?}");
    let old = after
        .iter()
        .find(|m| m["id"] == old_id.as_str())
        .expect("the anonymised row");
    assert_eq!(old["anonymised"], true);
    assert_ne!(old["name"], "Vic");
    let new = after
        .iter()
        .find(|m| m["id"] != old_id.as_str())
        .expect("the new member");
    assert_eq!(new["name"], "Vic");
    assert_eq!(new["role"], "viewer");
    assert_eq!(new["active"], true);
    get(&app, &format!("/api/v1/clubs/{}", e.club), &e.vic)
        .await
        .assert_status(200);
}
