use reqwest::Method;
use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::spawn_app;

#[sqlx::test(migrations = "./migrations")]
async fn a_session_groups_its_tables(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Thursday club night").await;
    for players in [["A", "B", "C", "D"], ["E", "F", "G", "H"]] {
        let body = json!({"game": "nomination-whist", "players": players, "session_id": session});
        app.post("/api/v1/tables", &token, body).await.assert_status(201);
    }
    app.table(&token, &["X", "Y", "Z"], json!({})).await;

    let view = app
        .get(&format!("/api/v1/sessions/{session}"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(view["name"], "Thursday club night");
    assert_eq!(view["tables"].as_array().expect("tables").len(), 2);
    let listed = app
        .get(&format!("/api/v1/tables?session_id={session}"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(listed["items"].as_array().expect("items").len(), 2);
    assert_eq!(listed["items"][0]["players"][0], "A");

    let mine = app
        .request(Method::GET, "/api/v1/tables?limit=2", Some(&token), None)
        .await;
    let mine = mine.assert_status(200);
    assert_eq!(mine["items"].as_array().expect("items").len(), 2);
    assert_eq!(mine["next_offset"], 2);

    let sessions = app.request(Method::GET, "/api/v1/sessions", Some(&token), None).await;
    assert_eq!(sessions.assert_status(200)["items"].as_array().expect("items").len(), 1);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_table_cannot_join_another_organisers_session(pool: PgPool) {
    let app = spawn_app(pool).await;
    let ann = app.organiser("ann@club.example").await;
    let bob = app.organiser("bob@club.example").await;
    let session = app.post("/api/v1/sessions", &ann, json!({"name": "Ann's night"})).await;
    let session = session.assert_status(201)["id"].as_str().expect("id").to_owned();
    let body = json!({"game": "nomination-whist", "players": ["A", "B", "C"], "session_id": session});
    app.post("/api/v1/tables", &bob, body)
        .await
        .assert_problem(404, "session_not_found");
    let unknown = json!({"game": "nomination-whist", "players": ["A", "B", "C"], "session_id": uuid::Uuid::new_v4()});
    app.post("/api/v1/tables", &bob, unknown)
        .await
        .assert_problem(404, "session_not_found");
    let tables: i64 = sqlx::query_scalar("select count(*) from game_tables")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(tables, 0);
}

#[sqlx::test(migrations = "./migrations")]
async fn an_unknown_session_is_404(pool: PgPool) {
    let app = spawn_app(pool).await;
    // Reads need a token (issue #25): the rig reads with its first organiser's.
    app.organiser("reader@example.org").await;
    app.get(&format!("/api/v1/sessions/{}", uuid::Uuid::new_v4()))
        .await
        .assert_problem(404, "session_not_found");
    app.get(&format!("/api/v1/tables?session={}", uuid::Uuid::new_v4()))
        .await
        .assert_problem(404, "session_not_found");
}

#[sqlx::test(migrations = "./migrations")]
async fn tables_filter_by_session_id_and_still_by_the_old_session_name(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Thursday").await;
    let body = json!({"game": "nomination-whist", "players": ["A", "B", "C"], "session_id": session});
    app.post("/api/v1/tables", &token, body).await.assert_status(201);
    app.table(&token, &["D", "E", "F"], json!({})).await;

    for name in ["session_id", "session"] {
        let listed = app.get(&format!("/api/v1/tables?{name}={session}")).await;
        assert_eq!(
            listed.assert_status(200)["items"].as_array().expect("items").len(),
            1,
            "{name}"
        );
    }
    let other = uuid::Uuid::new_v4();
    app.get(&format!("/api/v1/tables?session_id={session}&session={other}"))
        .await
        .assert_problem(400, "invalid_query");
}

#[sqlx::test(migrations = "./migrations")]
async fn control_characters_in_names_are_refused_not_a_server_error(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    app.post("/api/v1/sessions", &token, json!({"name": "Thurs\u{0}day"}))
        .await
        .assert_problem(422, "invalid_name");
    let body = json!({"game": "nomination-whist", "players": ["A\u{0}", "B", "C"]});
    app.post("/api/v1/tables", &token, body)
        .await
        .assert_problem(422, "invalid_player_name");
    let register = json!({"email": "bob@club.example", "name": "B\u{7}ob", "password": "long enough pw"});
    app.request(Method::POST, "/api/v1/auth/register", None, Some(register))
        .await
        .assert_problem(422, "invalid_name");
    let login = json!({"email": "ann\u{0}@club.example", "password": "long enough pw"});
    app.request(Method::POST, "/api/v1/auth/login", None, Some(login))
        .await
        .assert_problem(422, "invalid_text");
    let join = json!({"code": "AB\u{0}CD"});
    app.request(Method::POST, "/api/v1/auth/join", None, Some(join))
        .await
        .assert_problem(401, "invalid_join_code");
    let count = |table: &'static str| {
        let pool = app.pool.clone();
        async move {
            sqlx::query_scalar::<_, i64>(&format!("select count(*) from {table}"))
                .fetch_one(&pool)
                .await
                .expect("count")
        }
    };
    assert_eq!(
        (
            count("club_sessions").await,
            count("game_tables").await,
            count("users").await
        ),
        (0, 0, 1)
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn tables_opened_at_once_with_the_same_new_players_share_one_member_each(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Thursday club night").await;
    let open = || {
        let body = json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat"], "session_id": session});
        app.post("/api/v1/tables", &token, body)
    };
    let (a, b, c, d) = tokio::join!(open(), open(), open(), open());
    for answer in [a, b, c, d] {
        answer.assert_status(201);
    }
    let view = app
        .get(&format!("/api/v1/sessions/{session}"))
        .await
        .assert_status(200)
        .clone();
    let roster: Vec<&str> = view["members"]
        .as_array()
        .expect("roster")
        .iter()
        .map(|m| m["name"].as_str().expect("name"))
        .collect();
    assert_eq!(roster, ["Ann", "Bob", "Cat"], "{view}");
    let club = view["club_id"].as_str().expect("the session's club");
    let members = app
        .get(&format!("/api/v1/clubs/{club}/members"))
        .await
        .assert_status(200)
        .clone();
    let anns = members["items"]
        .as_array()
        .expect("members")
        .iter()
        .filter(|m| m["name"] == "Ann")
        .count();
    assert_eq!(anns, 1, "one Ann in the club: {members}");
}

#[sqlx::test(migrations = "./migrations")]
async fn members_name_only_the_seats_they_fill_and_the_earlier_per_seat_form_still_seats_them(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Thursday club night").await;
    let open = |players: Value, members: Value| {
        let body = json!({"game": "nomination-whist", "players": players, "session_id": session, "members": members});
        app.post("/api/v1/tables", &token, body)
    };
    let first = open(json!(["Ann", "Bob", "Cat"]), json!([]))
        .await
        .assert_status(201)
        .clone();
    let bob = first["members"][1].clone();
    let roster = app
        .get(&format!("/api/v1/sessions/{session}"))
        .await
        .assert_status(200)
        .clone();
    let bob_in_club = roster["members"]
        .as_array()
        .expect("roster")
        .iter()
        .find(|m| m["name"] == "Bob")
        .expect("Bob")["id"]
        .clone();

    // Robert at seat 0 is Bob by his member id; the seats not listed are found by name.
    let second = open(
        json!(["Robert", "Cat", "Ann"]),
        json!([{"seat": 0, "member": bob_in_club}]),
    )
    .await
    .assert_status(201)
    .clone();
    let seated = [&first["members"][1], &first["members"][2], &first["members"][0]];
    assert_eq!(second["members"], json!(seated), "{second}");

    // A client written before `{seat, member}` sends one entry per seat, null where the name
    // decides: still accepted (the spec no longer describes it, so it is not checked).
    app.stop_checking_spec();
    let earlier = open(json!(["Cat", "Robert", "Ann"]), json!([null, bob_in_club, null]))
        .await
        .assert_status(201)
        .clone();
    assert_eq!(earlier["members"][1], bob, "{earlier}");
    assert_eq!(earlier["members"][0], first["members"][2], "{earlier}");
}

/// Opening a table links the session's roster into its record chain under the session's row
/// lock; tables opened at once in one session each took a share lock on that row first (their
/// writes refer to it) and deadlocked wanting it (a 500 found by `scripts/restore-check`).
#[sqlx::test(migrations = "./migrations")]
async fn tables_opened_at_once_in_one_session_are_all_opened(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@example.org").await;
    let session = app.session(&token, "Thursday").await;
    let opened = futures_util::future::join_all((0..8).map(|n| {
        let players = [
            format!("Ann {n}"),
            format!("Bob {n}"),
            format!("Cat {n}"),
            format!("Dan {n}"),
        ];
        app.post(
            "/api/v1/tables",
            &token,
            json!({"game": "nomination-whist", "players": players, "session_id": session}),
        )
    }))
    .await;
    for answer in &opened {
        answer.assert_status(201);
    }
    let tables = app
        .get_as(&format!("/api/v1/tables?session_id={session}&limit=50"), &token)
        .await;
    assert_eq!(tables.assert_status(200)["items"].as_array().map(Vec::len), Some(8));
    for answer in &opened {
        let table = answer.body["id"].as_str().expect("id");
        let audit = app.get_as(&format!("/api/v1/tables/{table}/audit"), &token).await;
        assert_eq!(audit.assert_status(200)["consistent"], true, "{}", audit.body);
    }
}
