//! Clubs (issue #25): making one, invitations, members, roles, leaving.

use reqwest::Method;
use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{spawn_app, TestApp};

/// Registers an account named `name` and returns its token; the rig's first account becomes its
/// default reader, as `TestApp::organiser` makes it.
pub async fn account(app: &TestApp, email: &str, name: &str) -> String {
    let body = json!({"email": email, "name": name, "password": "correct horse battery"});
    let token = app
        .request(Method::POST, "/api/v1/auth/register", None, Some(body))
        .await
        .assert_status(201)["token"]
        .as_str()
        .expect("token")
        .to_owned();
    app.default_reader
        .lock()
        .expect("reader lock")
        .get_or_insert_with(|| token.clone());
    token
}

/// Makes a club owned by `token`'s account; its id.
pub async fn club(app: &TestApp, token: &str, name: &str) -> String {
    app.post("/api/v1/clubs", token, json!({"name": name}))
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned()
}

/// Makes `token`'s account a member of `club` with `role` through an invitation by `owner`.
pub async fn enrol(app: &TestApp, owner: &str, club: &str, token: &str, role: &str) -> Value {
    let invitation = app
        .post(
            &format!("/api/v1/clubs/{club}/invitations"),
            owner,
            json!({"role": role}),
        )
        .await
        .assert_status(201)
        .clone();
    app.post("/api/v1/clubs/join", token, json!({"code": invitation["code"]}))
        .await
        .assert_status(200)
        .clone()
}

pub async fn get(app: &TestApp, path: &str, token: &str) -> crate::helpers::Answer {
    app.request(Method::GET, path, Some(token), None).await
}

pub async fn patch(app: &TestApp, path: &str, token: &str, body: Value) -> crate::helpers::Answer {
    app.request(Method::PATCH, path, Some(token), Some(body)).await
}

async fn members(app: &TestApp, club: &str, token: &str) -> Vec<Value> {
    get(app, &format!("/api/v1/clubs/{club}/members"), token)
        .await
        .assert_status(200)["items"]
        .as_array()
        .expect("items")
        .clone()
}

async fn count(app: &TestApp, sql: &str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(&app.pool).await.expect("count")
}

#[sqlx::test(migrations = "./migrations")]
async fn a_club_is_made_with_its_maker_as_owner_and_only_its_members_see_it(pool: PgPool) {
    let app = spawn_app(pool).await;
    let ann = account(&app, "ann@club.example", "Ann").await;
    let bob = account(&app, "bob@club.example", "Bob").await;
    let made = app
        .post("/api/v1/clubs", &ann, json!({"name": "  Thursday whist  "}))
        .await;
    let made = made.assert_status(201).clone();
    assert_eq!(made["name"], "Thursday whist");
    assert_eq!(made["role"], "owner");
    let id = made["id"].as_str().expect("id");

    let mine = get(&app, "/api/v1/clubs", &ann).await.assert_status(200).clone();
    let names: Vec<&str> = mine["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|c| c["name"].as_str().expect("name"))
        .collect();
    assert!(names.contains(&"Thursday whist"), "{mine}");
    assert_eq!(mine["next_offset"], Value::Null);
    let one = get(&app, &format!("/api/v1/clubs/{id}"), &ann).await;
    assert_eq!(one.assert_status(200)["role"], "owner");

    // Bob is no member: the club is not found for him, and not in his list.
    get(&app, &format!("/api/v1/clubs/{id}"), &bob)
        .await
        .assert_problem(404, "club_not_found");
    get(&app, &format!("/api/v1/clubs/{id}/members"), &bob)
        .await
        .assert_problem(404, "club_not_found");
    let his = get(&app, "/api/v1/clubs", &bob).await.assert_status(200).clone();
    assert!(his["items"].as_array().expect("items").iter().all(|c| c["id"] != id));

    let owners = members(&app, id, &ann).await;
    assert_eq!(owners.len(), 1);
    assert_eq!(owners[0]["name"], "Ann");
    assert_eq!(owners[0]["role"], "owner");
    assert_eq!(owners[0]["active"], true);
    assert_eq!(owners[0]["guest"], false);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_bad_club_name_is_refused_and_makes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let ann = account(&app, "ann@club.example", "Ann").await;
    let before = count(&app, "select count(*) from clubs").await;
    for name in ["", "   ", "a\u{7}b", &"x".repeat(201)] {
        app.post("/api/v1/clubs", &ann, json!({"name": name}))
            .await
            .assert_problem(422, "invalid_name");
    }
    app.post("/api/v1/clubs", &ann, json!({"name": "A", "colour": "red"}))
        .await
        .assert_problem(422, "unknown_field");
    app.request(Method::POST, "/api/v1/clubs", None, Some(json!({"name": "A"})))
        .await
        .assert_problem(401, "missing_token");
    assert_eq!(count(&app, "select count(*) from clubs").await, before);
}

#[sqlx::test(migrations = "./migrations")]
async fn an_invitation_makes_a_member_with_its_role_until_withdrawn(pool: PgPool) {
    let app = spawn_app(pool).await;
    let ann = account(&app, "ann@club.example", "Ann").await;
    let bob = account(&app, "bob@club.example", "Bob").await;
    let cat = account(&app, "cat@club.example", "Cat").await;
    let dan = account(&app, "dan@club.example", "Dan").await;
    let id = club(&app, &ann, "Thursday whist").await;
    let invitations = format!("/api/v1/clubs/{id}/invitations");

    let invitation = app
        .post(&invitations, &ann, json!({"role": "treasurer", "expires_in_hours": 2}))
        .await
        .assert_status(201)
        .clone();
    assert_eq!(invitation["role"], "treasurer");
    let code = invitation["code"].as_str().expect("code").to_owned();
    assert_eq!(code.len(), 10);
    let lifetime = chrono::DateTime::parse_from_rfc3339(invitation["expires_at"].as_str().expect("expires"))
        .expect("time")
        - chrono::DateTime::parse_from_rfc3339(invitation["created_at"].as_str().expect("created")).expect("time");
    assert!((lifetime.num_minutes() - 120).abs() <= 1, "{lifetime}");

    // Typed in lower case with a dash, it still works.
    let typed = format!("{}-{}", &code[..5], &code[5..]).to_lowercase();
    let joined = app.post("/api/v1/clubs/join", &bob, json!({"code": typed})).await;
    let joined = joined.assert_status(200).clone();
    assert_eq!(joined["id"], id.as_str());
    assert_eq!(joined["role"], "treasurer");
    assert_eq!(joined["name"], "Thursday whist");
    let bobs = get(&app, "/api/v1/clubs", &bob).await.assert_status(200).clone();
    assert_eq!(bobs["items"][0]["role"], "treasurer", "{bobs}");
    app.post("/api/v1/clubs/join", &bob, json!({"code": code}))
        .await
        .assert_problem(409, "already_member");

    // Several accounts may join with one code; a withdrawn code lets nobody else in.
    app.post("/api/v1/clubs/join", &cat, json!({"code": code}))
        .await
        .assert_status(200);
    let withdrawn = app
        .request(Method::DELETE, &format!("{invitations}/{code}"), Some(&ann), None)
        .await;
    assert_eq!(withdrawn.status.as_u16(), 204);
    app.post("/api/v1/clubs/join", &dan, json!({"code": code}))
        .await
        .assert_problem(404, "invitation_not_found");
    let listed = get(&app, &invitations, &ann).await.assert_status(200).clone();
    assert_eq!(listed["items"][0]["code"], code.as_str());
    assert!(listed["items"][0]["withdrawn_at"].is_string());

    // An expired code lets nobody in either.
    let second = app.post(&invitations, &ann, json!({"role": "viewer"})).await;
    let second = second.assert_status(201)["code"].as_str().expect("code").to_owned();
    sqlx::query("update club_invitations set expires_at = now() - interval '1 second' where code = $1")
        .bind(&second)
        .execute(&app.pool)
        .await
        .expect("expire");
    app.post("/api/v1/clubs/join", &dan, json!({"code": second}))
        .await
        .assert_problem(404, "invitation_not_found");
    app.post("/api/v1/clubs/join", &dan, json!({"code": "NOSUCHCODE"}))
        .await
        .assert_problem(404, "invitation_not_found");

    let roles: Vec<(String, String)> = members(&app, &id, &ann)
        .await
        .iter()
        .map(|m| {
            (
                m["name"].as_str().expect("name").to_owned(),
                m["role"].as_str().expect("role").to_owned(),
            )
        })
        .collect();
    assert_eq!(
        roles,
        [("Ann", "owner"), ("Bob", "treasurer"), ("Cat", "treasurer")].map(|(n, r)| (n.to_owned(), r.to_owned()))
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn bad_invitations_are_refused_and_make_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let ann = account(&app, "ann@club.example", "Ann").await;
    let vic = account(&app, "vic@club.example", "Vic").await;
    let eve = account(&app, "eve@club.example", "Eve").await;
    let id = club(&app, &ann, "Thursday whist").await;
    enrol(&app, &ann, &id, &vic, "viewer").await;
    let invitations = format!("/api/v1/clubs/{id}/invitations");
    let before = count(&app, "select count(*) from club_invitations").await;

    app.post(&invitations, &ann, json!({"role": "owner"}))
        .await
        .assert_problem(422, "invalid_role");
    app.post(&invitations, &ann, json!({"role": "king"}))
        .await
        .assert_problem(422, "unknown_variant");
    for hours in [0, -1, 721] {
        app.post(&invitations, &ann, json!({"role": "viewer", "expires_in_hours": hours}))
            .await
            .assert_problem(422, "invalid_expiry");
    }
    // A viewer neither invites nor sees the invitations; a stranger is told there is no club.
    app.post(&invitations, &vic, json!({"role": "viewer"}))
        .await
        .assert_problem(403, "forbidden");
    get(&app, &invitations, &vic).await.assert_problem(403, "forbidden");
    app.post(&invitations, &eve, json!({"role": "viewer"}))
        .await
        .assert_problem(404, "club_not_found");
    app.request(Method::DELETE, &format!("{invitations}/NOSUCHCODE"), Some(&ann), None)
        .await
        .assert_problem(404, "invitation_not_found");
    assert_eq!(count(&app, "select count(*) from club_invitations").await, before);
}

#[sqlx::test(migrations = "./migrations")]
async fn organisers_add_players_without_accounts_and_mark_guests(pool: PgPool) {
    let app = spawn_app(pool).await;
    let ann = account(&app, "ann@club.example", "Ann").await;
    let olga = account(&app, "olga@club.example", "Olga").await;
    let tom = account(&app, "tom@club.example", "Tom").await;
    let id = club(&app, &ann, "Thursday whist").await;
    enrol(&app, &ann, &id, &olga, "organiser").await;
    enrol(&app, &ann, &id, &tom, "treasurer").await;
    let path = format!("/api/v1/clubs/{id}/members");

    let pat = app
        .post(&path, &olga, json!({"name": "Pat"}))
        .await
        .assert_status(201)
        .clone();
    assert_eq!(pat["role"], Value::Null);
    assert_eq!(pat["user_id"], Value::Null);
    assert_eq!(pat["guest"], false);
    let guest = app
        .post(&path, &ann, json!({"name": "Quentin", "guest": true}))
        .await
        .assert_status(201)
        .clone();
    assert_eq!(guest["guest"], true);

    let before = count(&app, "select count(*) from club_members").await;
    app.post(&path, &ann, json!({"name": "  PAT "}))
        .await
        .assert_problem(409, "member_name_taken");
    app.post(&path, &ann, json!({"name": ""}))
        .await
        .assert_problem(422, "invalid_name");
    app.post(&path, &tom, json!({"name": "Rita"}))
        .await
        .assert_problem(403, "forbidden");
    assert_eq!(count(&app, "select count(*) from club_members").await, before);

    // A player without an account has no role to give; a guest can be made a member.
    let pat_path = format!("{path}/{}", pat["id"].as_str().expect("id"));
    patch(&app, &pat_path, &olga, json!({"role": "viewer"}))
        .await
        .assert_problem(422, "invalid_role");
    let quentin = format!("{path}/{}", guest["id"].as_str().expect("id"));
    let changed = patch(&app, &quentin, &olga, json!({"guest": false})).await;
    assert_eq!(changed.assert_status(200)["guest"], false);
    patch(&app, &quentin, &tom, json!({"guest": true}))
        .await
        .assert_problem(403, "forbidden");
    patch(
        &app,
        &format!("{path}/{}", uuid::Uuid::new_v4()),
        &olga,
        json!({"guest": true}),
    )
    .await
    .assert_problem(404, "member_not_found");
    let listed = members(&app, &id, &tom).await;
    assert_eq!(listed.len(), 5);
    assert_eq!(listed[4]["guest"], false);
}

#[sqlx::test(migrations = "./migrations")]
async fn roles_change_but_only_an_owner_touches_the_owners_role_and_one_owner_stays(pool: PgPool) {
    let app = spawn_app(pool).await;
    let ann = account(&app, "ann@club.example", "Ann").await;
    let olga = account(&app, "olga@club.example", "Olga").await;
    let vic = account(&app, "vic@club.example", "Vic").await;
    let id = club(&app, &ann, "Thursday whist").await;
    enrol(&app, &ann, &id, &olga, "organiser").await;
    enrol(&app, &ann, &id, &vic, "viewer").await;
    let listed = members(&app, &id, &ann).await;
    let member = |name: &str| {
        let found = listed.iter().find(|m| m["name"] == name).expect("member");
        format!("/api/v1/clubs/{id}/members/{}", found["id"].as_str().expect("id"))
    };
    let (ann_m, olga_m, vic_m) = (member("Ann"), member("Olga"), member("Vic"));

    // An organiser makes a viewer a scorer, but cannot make anyone owner or demote the owner.
    let scorer = patch(&app, &vic_m, &olga, json!({"role": "scorer"})).await;
    assert_eq!(scorer.assert_status(200)["role"], "scorer");
    patch(&app, &vic_m, &olga, json!({"role": "owner"}))
        .await
        .assert_problem(403, "forbidden");
    patch(&app, &ann_m, &olga, json!({"role": "viewer"}))
        .await
        .assert_problem(403, "forbidden");
    patch(&app, &ann_m, &olga, json!({"active": false}))
        .await
        .assert_problem(403, "forbidden");
    // The last owner can neither step down nor leave.
    patch(&app, &ann_m, &ann, json!({"role": "organiser"}))
        .await
        .assert_problem(409, "last_owner");
    patch(&app, &ann_m, &ann, json!({"active": false}))
        .await
        .assert_problem(409, "last_owner");
    let owner = get(&app, &format!("/api/v1/clubs/{id}"), &ann).await;
    assert_eq!(owner.assert_status(200)["role"], "owner");

    // With a second owner, the first may step down.
    let made = patch(&app, &olga_m, &ann, json!({"role": "owner"})).await;
    assert_eq!(made.assert_status(200)["role"], "owner");
    let down = patch(&app, &ann_m, &ann, json!({"role": "organiser"})).await;
    assert_eq!(down.assert_status(200)["role"], "organiser");
    let mine = get(&app, &format!("/api/v1/clubs/{id}"), &ann).await;
    assert_eq!(mine.assert_status(200)["role"], "organiser");
}

#[sqlx::test(migrations = "./migrations")]
async fn a_member_leaves_and_comes_back_as_the_same_member(pool: PgPool) {
    let app = spawn_app(pool).await;
    let ann = account(&app, "ann@club.example", "Ann").await;
    let vic = account(&app, "vic@club.example", "Vic").await;
    let id = club(&app, &ann, "Thursday whist").await;
    enrol(&app, &ann, &id, &vic, "viewer").await;
    let vic_id = members(&app, &id, &ann).await[1]["id"].as_str().expect("id").to_owned();
    let path = format!("/api/v1/clubs/{id}/members/{vic_id}");

    // A viewer may leave, but not change anything else about themselves.
    patch(&app, &path, &vic, json!({"role": "organiser"}))
        .await
        .assert_problem(403, "forbidden");
    patch(&app, &path, &vic, json!({"active": false, "guest": true}))
        .await
        .assert_problem(403, "forbidden");
    let left = patch(&app, &path, &vic, json!({"active": false})).await;
    assert_eq!(left.assert_status(200)["active"], false);
    get(&app, &format!("/api/v1/clubs/{id}"), &vic)
        .await
        .assert_problem(404, "club_not_found");
    let listed = members(&app, &id, &ann).await;
    assert_eq!(listed[1]["active"], false, "who left stays on the list");

    let back = enrol(&app, &ann, &id, &vic, "scorer").await;
    assert_eq!(back["role"], "scorer");
    let listed = members(&app, &id, &ann).await;
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[1]["id"], vic_id.as_str());
    assert_eq!(listed[1]["active"], true);
    assert_eq!(listed[1]["role"], "scorer");
}

fn result(tricks: [u8; 4]) -> Value {
    json!({"kind": "result", "nominations": [0, 1, 0, 0], "tricks": tricks})
}

/// A club of Ann (owner) with Olga (organiser), Tom (treasurer), Sam (scorer) and Vic (viewer);
/// a session Ann started in it and a table of four in that session with one deal recorded.
struct Club {
    id: String,
    ann: String,
    olga: String,
    tom: String,
    sam: String,
    vic: String,
    session: String,
    table: String,
}

async fn club_night(app: &TestApp) -> Club {
    let ann = account(app, "ann@club.example", "Ann").await;
    let id = club(app, &ann, "Thursday whist").await;
    let mut tokens = Vec::new();
    for (email, name, role) in [
        ("olga@club.example", "Olga", "organiser"),
        ("tom@club.example", "Tom", "treasurer"),
        ("sam@club.example", "Sam", "scorer"),
        ("vic@club.example", "Vic", "viewer"),
    ] {
        let token = account(app, email, name).await;
        enrol(app, &ann, &id, &token, role).await;
        tokens.push(token);
    }
    let session = app
        .post("/api/v1/sessions", &ann, json!({"name": "Thursday", "club_id": id}))
        .await
        .assert_status(201)
        .clone();
    assert_eq!(session["club_id"], id.as_str());
    let session = session["id"].as_str().expect("id").to_owned();
    let body = json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat", "Dan"],
                      "options": {"hand_sizes": [1, 1, 1, 1, 1, 1]}, "session_id": session});
    let table = app.post("/api/v1/tables", &ann, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    app.submit(&table, &ann, result([0, 1, 0, 0])).await.assert_status(201);
    let [olga, tom, sam, vic] = <[String; 4]>::try_from(tokens).expect("four");
    Club {
        id,
        ann,
        olga,
        tom,
        sam,
        vic,
        session,
        table,
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn each_role_writes_what_it_may_and_nothing_else(pool: PgPool) {
    let app = spawn_app(pool).await;
    let c = club_night(&app).await;
    let table = &c.table;
    let roles = [
        ("organiser", &c.olga),
        ("treasurer", &c.tom),
        ("scorer", &c.sam),
        ("viewer", &c.vic),
    ];
    for (role, token) in roles {
        let may_organise = role == "organiser";
        let may_record = matches!(role, "organiser" | "scorer");
        let may_audit = matches!(role, "organiser" | "treasurer");
        let expect = |allowed: bool, ok: u16, answer: crate::helpers::Answer, what: &str| {
            if allowed {
                assert_eq!(answer.status.as_u16(), ok, "{role} {what}: {}", answer.body);
            } else {
                answer.assert_problem(403, "forbidden");
            }
        };
        let versions_before: i64 = sqlx::query_scalar("select version from game_tables where id = $1::uuid")
            .bind(table)
            .fetch_one(&app.pool)
            .await
            .expect("version");

        let started = app
            .post("/api/v1/sessions", token, json!({"name": "Friday", "club_id": c.id}))
            .await;
        expect(may_organise, 201, started, "starts a session");
        let body = json!({"game": "nomination-whist", "players": ["E", "F", "G"], "session_id": c.session});
        expect(
            may_organise,
            201,
            app.post("/api/v1/tables", token, body).await,
            "opens a table",
        );
        let code = app
            .post(&format!("/api/v1/tables/{table}/join-codes"), token, json!({}))
            .await;
        expect(may_organise, 201, code, "hands out a join code");
        let value = patch(
            &app,
            &format!("/api/v1/sessions/{}", c.session),
            token,
            json!({"chip_value": {"minor_units": 5, "currency": "GBP"}}),
        )
        .await;
        expect(may_audit, 200, value, "sets the chip value");
        let verified = app
            .post(
                &format!("/api/v1/tables/{table}/deals/1/verification"),
                token,
                json!({"agree": true}),
            )
            .await;
        expect(role != "viewer", 201, verified, "verifies a deal");
        let moved = app.submit(table, token, result([1, 0, 0, 0])).await;
        expect(may_record, 201, moved, "records a move");
        if may_record {
            let undone = app
                .post(&format!("/api/v1/tables/{table}/undo"), token, json!({}))
                .await;
            expect(true, 200, undone, "undoes a move");
        } else {
            let undone = app
                .post(&format!("/api/v1/tables/{table}/undo"), token, json!({}))
                .await;
            undone.assert_problem(403, "forbidden");
            let version: i64 = sqlx::query_scalar("select version from game_tables where id = $1::uuid")
                .bind(table)
                .fetch_one(&app.pool)
                .await
                .expect("version");
            // A verification extends the chain, but no refused write moved the table.
            assert_eq!(version, versions_before, "{role}: the table did not move");
        }
        let invite = app
            .post(
                &format!("/api/v1/clubs/{}/invitations", c.id),
                token,
                json!({"role": "viewer"}),
            )
            .await;
        expect(may_organise, 201, invite, "invites");
    }
    // The owner does everything an organiser does.
    let started = app
        .post("/api/v1/sessions", &c.ann, json!({"name": "Saturday", "club_id": c.id}))
        .await;
    started.assert_status(201);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_second_organiser_runs_the_first_ones_session(pool: PgPool) {
    let app = spawn_app(pool).await;
    let c = club_night(&app).await;
    let body = json!({"game": "nomination-whist", "players": ["Eve", "Fay", "Gus", "Hal"],
                      "options": {"hand_sizes": [1, 1]}, "session_id": c.session});
    let second = app.post("/api/v1/tables", &c.olga, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    for table in [&c.table, &second] {
        app.submit(table, &c.olga, result([0, 0, 1, 0]))
            .await
            .assert_status(201);
    }
    app.post(&format!("/api/v1/tables/{}/undo", c.table), &c.olga, json!({}))
        .await
        .assert_status(200);
    let correction = json!({"moves": [result([0, 0, 0, 1])], "expected_version": 0, "reason": "Dan won it"});
    let version = app.state(&c.table).await["version"].clone();
    let mut correction = correction;
    correction["expected_version"] = version;
    app.request(
        Method::PUT,
        &format!("/api/v1/tables/{}/deals/1", c.table),
        Some(&c.olga),
        Some(correction),
    )
    .await
    .assert_status(200);
    let code = app
        .post(&format!("/api/v1/tables/{}/join-codes", c.table), &c.olga, json!({}))
        .await;
    code.assert_status(201);
    get(&app, &format!("/api/v1/tables/{}/join-codes", c.table), &c.olga)
        .await
        .assert_status(200);
    let sessions = get(&app, &format!("/api/v1/sessions?club_id={}", c.id), &c.olga).await;
    let sessions = sessions.assert_status(200).clone();
    assert_eq!(sessions["items"][0]["id"], c.session.as_str(), "{sessions}");
    assert_eq!(sessions["items"][0]["club_id"], c.id.as_str());
}

#[sqlx::test(migrations = "./migrations")]
async fn a_member_of_another_club_writes_nothing_of_this_one(pool: PgPool) {
    let app = spawn_app(pool).await;
    let c = club_night(&app).await;
    let bob = account(&app, "bob@club.example", "Bob").await;
    let other = club(&app, &bob, "Friday bridge").await;
    let t = &c.table;
    let before = app.snapshot(t).await;
    let counts = "select (select count(*) from club_sessions) + (select count(*) from game_tables)
                  + (select count(*) from join_codes) + (select count(*) from club_invitations)
                  + (select count(*) from club_members) + (select count(*) from verifications)";
    let counted = count(&app, counts).await;

    app.post("/api/v1/sessions", &bob, json!({"name": "x", "club_id": c.id}))
        .await
        .assert_problem(404, "club_not_found");
    let body = json!({"game": "nomination-whist", "players": ["E", "F", "G"], "session_id": c.session});
    app.post("/api/v1/tables", &bob, body)
        .await
        .assert_problem(404, "session_not_found");
    app.submit(t, &bob, result([1, 0, 0, 0]))
        .await
        .assert_problem(404, "table_not_found");
    app.post(&format!("/api/v1/tables/{t}/undo"), &bob, json!({}))
        .await
        .assert_problem(404, "table_not_found");
    let correction = json!({"moves": [result([0, 0, 0, 1])], "expected_version": 1, "reason": "mine"});
    app.request(
        Method::PUT,
        &format!("/api/v1/tables/{t}/deals/1"),
        Some(&bob),
        Some(correction),
    )
    .await
    .assert_problem(404, "table_not_found");
    app.post(
        &format!("/api/v1/tables/{t}/deals/1/verification"),
        &bob,
        json!({"agree": true}),
    )
    .await
    .assert_problem(404, "table_not_found");
    app.post(&format!("/api/v1/tables/{t}/join-codes"), &bob, json!({}))
        .await
        .assert_problem(404, "table_not_found");
    get(&app, &format!("/api/v1/tables/{t}/join-codes"), &bob)
        .await
        .assert_problem(404, "table_not_found");
    app.request(
        Method::DELETE,
        &format!("/api/v1/tables/{t}/join-codes/ABCDEFGH"),
        Some(&bob),
        None,
    )
    .await
    .assert_problem(404, "table_not_found");
    app.request(
        Method::DELETE,
        &format!("/api/v1/tables/{t}/scorers/{}", uuid::Uuid::new_v4()),
        Some(&bob),
        None,
    )
    .await
    .assert_problem(404, "table_not_found");
    patch(
        &app,
        &format!("/api/v1/sessions/{}", c.session),
        &bob,
        json!({"chip_value": null}),
    )
    .await
    .assert_problem(404, "session_not_found");
    app.post(
        &format!("/api/v1/clubs/{}/invitations", c.id),
        &bob,
        json!({"role": "owner"}),
    )
    .await
    .assert_problem(404, "club_not_found");
    app.post(
        &format!("/api/v1/clubs/{}/members", c.id),
        &bob,
        json!({"name": "Mole"}),
    )
    .await
    .assert_problem(404, "club_not_found");
    let ann_member = members(&app, &c.id, &c.ann).await[0]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    patch(
        &app,
        &format!("/api/v1/clubs/{}/members/{ann_member}", c.id),
        &bob,
        json!({"active": false}),
    )
    .await
    .assert_problem(404, "club_not_found");
    // Nor does a member id of this club seat anyone at the other club's tables.
    let own = app
        .post(
            "/api/v1/sessions",
            &bob,
            json!({"name": "Bob's", "club_id": other, "members": [ann_member]}),
        )
        .await;
    own.assert_problem(422, "invalid_members");
    let theirs = get(&app, &format!("/api/v1/sessions?club_id={}", c.id), &bob).await;
    assert_eq!(theirs.assert_status(200)["items"], json!([]));

    assert_eq!(app.snapshot(t).await, before);
    assert_eq!(count(&app, counts).await, counted);
}

#[sqlx::test(migrations = "./migrations")]
async fn seats_name_club_members_who_are_entered_on_the_roster(pool: PgPool) {
    let app = spawn_app(pool).await;
    let c = club_night(&app).await;
    let path = format!("/api/v1/clubs/{}/members", c.id);
    let pat = app.post(&path, &c.ann, json!({"name": "Pat"})).await.assert_status(201)["id"].clone();
    let quin = app
        .post(&path, &c.ann, json!({"name": "Quin", "guest": true}))
        .await
        .assert_status(201)["id"]
        .clone();
    let session = app
        .post(
            "/api/v1/sessions",
            &c.olga,
            json!({"name": "Friday", "club_id": c.id, "members": [pat]}),
        )
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let body = json!({"game": "nomination-whist", "players": ["Pat", "Quin", "Rex"], "session_id": session,
                      "members": [{"seat": 0, "member": pat}, {"seat": 1, "member": quin}]});
    app.post("/api/v1/tables", &c.olga, body).await.assert_status(201);
    let view = app
        .get(&format!("/api/v1/sessions/{session}"))
        .await
        .assert_status(200)
        .clone();
    let roster: Vec<&Value> = view["members"]
        .as_array()
        .expect("members")
        .iter()
        .map(|m| &m["id"])
        .collect();
    assert_eq!(roster.len(), 3, "{view}");
    assert_eq!(roster[0], &pat);
    assert_eq!(roster[1], &quin);
    let bad = json!({"game": "nomination-whist", "players": ["A", "B", "C"], "session_id": session,
                     "members": [{"seat": 0, "member": uuid::Uuid::new_v4()}]});
    app.post("/api/v1/tables", &c.olga, bad)
        .await
        .assert_problem(422, "invalid_members");
}

async fn login(app: &TestApp, email: &str, password: &str) -> crate::helpers::Answer {
    let body = json!({"email": email, "password": password});
    app.request(Method::POST, "/api/v1/auth/login", None, Some(body)).await
}

fn member_id(members: &[Value], name: &str) -> String {
    members
        .iter()
        .find(|m| m["name"] == name)
        .and_then(|m| m["id"].as_str())
        .expect("member")
        .to_owned()
}

#[sqlx::test(migrations = "./migrations")]
async fn an_owner_resets_a_members_password_and_the_old_tokens_stop(pool: PgPool) {
    // Arrange: Ann owns the club; Bob (organiser) and Cat (viewer) joined it; Pat has no account;
    // Dan is a member here and also of Eve's club.
    let app = spawn_app(pool).await;
    let ann = account(&app, "ann@club.example", "Ann").await;
    let bob = account(&app, "bob@club.example", "Bob").await;
    let cat = account(&app, "cat@club.example", "Cat").await;
    let dan = account(&app, "dan@club.example", "Dan").await;
    let eve = account(&app, "eve@club.example", "Eve").await;
    let id = club(&app, &ann, "Thursday whist").await;
    let elsewhere = club(&app, &eve, "Friday whist").await;
    enrol(&app, &ann, &id, &bob, "organiser").await;
    enrol(&app, &ann, &id, &cat, "viewer").await;
    enrol(&app, &ann, &id, &dan, "viewer").await;
    enrol(&app, &eve, &elsewhere, &dan, "viewer").await;
    app.post(&format!("/api/v1/clubs/{id}/members"), &ann, json!({"name": "Pat"}))
        .await
        .assert_status(201);
    let all = members(&app, &id, &ann).await;
    let reset = |who: String| format!("/api/v1/clubs/{id}/members/{who}/password-reset");

    // Refused, changing nothing: an organiser; a stranger's club; a player without an account;
    // an account another club (not Ann's) relies on.
    app.post(&reset(member_id(&all, "Cat")), &bob, json!({}))
        .await
        .assert_problem(403, "forbidden");
    app.post(
        &format!(
            "/api/v1/clubs/{elsewhere}/members/{}/password-reset",
            member_id(&all, "Cat")
        ),
        &ann,
        json!({}),
    )
    .await
    .assert_problem(404, "club_not_found");
    app.post(&reset(member_id(&all, "Pat")), &ann, json!({}))
        .await
        .assert_problem(422, "invalid_role");
    app.post(&reset(member_id(&all, "Dan")), &ann, json!({}))
        .await
        .assert_problem(403, "forbidden");
    login(&app, "cat@club.example", "correct horse battery")
        .await
        .assert_status(200);
    login(&app, "dan@club.example", "correct horse battery")
        .await
        .assert_status(200);
    get(&app, "/api/v1/clubs", &cat).await.assert_status(200);

    // Act: Ann resets Cat's password.
    let answer = app
        .post(&reset(member_id(&all, "Cat")), &ann, json!({}))
        .await
        .assert_status(200)
        .clone();

    // Assert: the new password logs in, the old one does not, Cat's old token is refused.
    let temporary = answer["temporary_password"].as_str().expect("password");
    assert!(temporary.len() >= 16, "{answer}");
    assert_eq!(answer["member"]["name"], "Cat");
    login(&app, "cat@club.example", temporary).await.assert_status(200);
    login(&app, "cat@club.example", "correct horse battery")
        .await
        .assert_problem(401, "invalid_credentials");
    get(&app, "/api/v1/clubs", &cat)
        .await
        .assert_problem(401, "token_revoked");
    // Bob's token and password were not touched.
    get(&app, "/api/v1/clubs", &bob).await.assert_status(200);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_table_outside_a_session_opens_in_the_club_it_names_for_its_organisers_only(pool: PgPool) {
    let app = spawn_app(pool).await;
    let c = club_night(&app).await;
    let sue = account(&app, "sue@other.example", "Sue").await;
    let other = club(&app, &sue, "Other club").await;
    let body = |club: &str| json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat"], "club_id": club});
    let counts = "select (select count(*) from game_tables) + (select count(*) from clubs)";
    let counted = count(&app, counts).await;

    app.post("/api/v1/tables", &c.vic, body(&c.id))
        .await
        .assert_problem(403, "forbidden");
    app.post("/api/v1/tables", &c.tom, body(&c.id))
        .await
        .assert_problem(403, "forbidden");
    app.post("/api/v1/tables", &c.olga, body(&other))
        .await
        .assert_problem(404, "club_not_found");
    app.post("/api/v1/tables", &c.olga, body(&uuid::Uuid::new_v4().to_string()))
        .await
        .assert_problem(404, "club_not_found");
    let mut mismatched = body(&other);
    mismatched["session_id"] = json!(c.session);
    app.post("/api/v1/tables", &sue, mismatched.clone())
        .await
        .assert_problem(404, "session_not_found");
    mismatched["club_id"] = json!(uuid::Uuid::new_v4());
    app.post("/api/v1/tables", &c.olga, mismatched)
        .await
        .assert_problem(422, "club_mismatch");
    assert_eq!(count(&app, counts).await, counted, "nothing made");

    let table = app
        .post("/api/v1/tables", &c.olga, body(&c.id))
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let club_of: uuid::Uuid = sqlx::query_scalar("select club_id from game_tables where id = $1::uuid")
        .bind(&table)
        .fetch_one(&app.pool)
        .await
        .expect("club");
    assert_eq!(club_of.to_string(), c.id);
    get(&app, &format!("/api/v1/tables/{table}"), &c.vic)
        .await
        .assert_status(200);
    get(&app, &format!("/api/v1/tables/{table}"), &sue)
        .await
        .assert_problem(404, "table_not_found");
    assert_eq!(
        count(&app, counts).await,
        counted + 1,
        "one table, and no club of Olga's own"
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn the_tables_list_without_a_session_gives_the_tables_of_the_callers_clubs_page_by_page(pool: PgPool) {
    let app = spawn_app(pool).await;
    let c = club_night(&app).await;
    let sue = account(&app, "sue@other.example", "Sue").await;
    let other = club(&app, &sue, "Other club").await;
    let theirs = app
        .post(
            "/api/v1/tables",
            &sue,
            json!({"game": "nomination-whist", "players": ["X", "Y", "Z"], "club_id": other}),
        )
        .await
        .assert_status(201)["id"]
        .clone();
    let olgas = app
        .post(
            "/api/v1/tables",
            &c.olga,
            json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat"], "club_id": c.id}),
        )
        .await
        .assert_status(201)["id"]
        .clone();
    let ids = |page: &Value| -> Vec<Value> {
        page["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|t| t["id"].clone())
            .collect()
    };
    // Ann's table and Olga's, for every role of the club, whoever opened them.
    for token in [&c.ann, &c.olga, &c.tom, &c.sam, &c.vic] {
        let page = get(&app, "/api/v1/tables", token).await;
        assert_eq!(ids(page.assert_status(200)), vec![json!(c.table), olgas.clone()]);
    }
    let first = get(&app, "/api/v1/tables?limit=1", &c.vic).await;
    assert_eq!(ids(first.assert_status(200)), vec![json!(c.table)]);
    assert_eq!(first.body["next_offset"], 1);
    let second = get(&app, "/api/v1/tables?limit=1&offset=1", &c.vic).await;
    assert_eq!(ids(second.assert_status(200)), vec![olgas]);
    assert_eq!(second.body["next_offset"], Value::Null);
    assert_eq!(
        ids(get(&app, "/api/v1/tables", &sue).await.assert_status(200)),
        vec![theirs]
    );
    // A member who left sees the club's tables no more.
    let vic = member_id(&members(&app, &c.id, &c.ann).await, "Vic");
    patch(
        &app,
        &format!("/api/v1/clubs/{}/members/{vic}", c.id),
        &c.vic,
        json!({"active": false}),
    )
    .await
    .assert_status(200);
    assert_eq!(
        ids(get(&app, "/api/v1/tables", &c.vic).await.assert_status(200)),
        Vec::<Value>::new()
    );
}
