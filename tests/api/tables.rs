use serde_json::json;
use sqlx::PgPool;

use crate::helpers::spawn_app;

#[sqlx::test(migrations = "./migrations")]
async fn a_new_table_shows_what_the_phone_needs(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let created = app
        .post(
            "/api/v1/tables",
            &token,
            json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat", "Dan"], "options": {"first_dealer": 2}}),
        )
        .await;
    let body = created.assert_status(201).clone();
    let id = body["id"].as_str().expect("id");
    assert_eq!(created.headers["location"], format!("/api/v1/tables/{id}").as_str());
    assert_eq!(body["version"], 0);
    assert_eq!(body["options"]["hand_sizes"].as_array().expect("schedule").len(), 25);
    let state = &body["state"];
    assert_eq!(state["dealer"], 2);
    assert_eq!(state["to_act"], 3, "the dealer's left nominates first");
    assert_eq!(state["hand_size"], 1);
    assert_eq!(state["trumps"], "spades");
    assert_eq!(state["phase"], "nominating");
    assert_eq!(
        state["legal_moves"],
        json!([
            {"kind": "nominate", "seat": 3, "tricks": [0, 1]},
            {"kind": "result", "hand_size": 1, "turn_up_required": false},
        ]),
        "the concrete choices, as the spec's NominationWhistLegalMove has them"
    );
    assert_eq!(state["totals"], json!([0, 0, 0, 0]));
    // The state read later is the answer, but for the receipt only the opening carries.
    assert_eq!(
        body["receipt"]["position"], 0,
        "the set-up: a points game books no opening chips"
    );
    let mut opened = body.clone();
    opened.as_object_mut().expect("object").remove("receipt");
    assert_eq!(app.state(id).await, opened);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_table_with_a_bad_game_players_or_options_is_refused(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let create = |body: serde_json::Value| app.post("/api/v1/tables", &token, body);
    create(json!({"game": "snap", "players": ["A", "B", "C"]}))
        .await
        .assert_problem(422, "unknown_game");
    create(json!({"game": "nomination-whist", "players": ["A", "B"]}))
        .await
        .assert_problem(422, "invalid_player_count");
    let eight = ["A", "B", "C", "D", "E", "F", "G", "H"];
    create(json!({"game": "nomination-whist", "players": eight}))
        .await
        .assert_problem(422, "invalid_player_count");
    create(json!({"game": "nomination-whist", "players": ["A", " ", "C"]}))
        .await
        .assert_problem(422, "invalid_player_name");
    create(json!({"game": "nomination-whist", "players": ["A", "B", "C"], "options": {"hook": 2}}))
        .await
        .assert_problem(422, "invalid_options");
    create(json!({"game": "nomination-whist", "players": ["A", "B", "C"], "options": {"hand_sizes": [18]}}))
        .await
        .assert_problem(422, "invalid_option");
    create(json!({"game": "nomination-whist", "players": ["A", "B", "C"], "colour": "red"}))
        .await
        .assert_problem(422, "unknown_field");
    let tables: i64 = sqlx::query_scalar("select count(*) from game_tables")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(tables, 0);
}

#[sqlx::test(migrations = "./migrations")]
async fn an_unknown_table_is_404_everywhere(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let id = uuid::Uuid::new_v4();
    app.get(&format!("/api/v1/tables/{id}"))
        .await
        .assert_problem(404, "table_not_found");
    app.get(&format!("/api/v1/tables/{id}/moves"))
        .await
        .assert_problem(404, "table_not_found");
    app.get(&format!("/api/v1/tables/{id}/scores"))
        .await
        .assert_problem(404, "table_not_found");
    app.submit(
        &id.to_string(),
        &token,
        json!({"kind": "nominate", "seat": 1, "tricks": 0}),
    )
    .await
    .assert_problem(404, "table_not_found");
    app.post(&format!("/api/v1/tables/{id}/undo"), &token, json!({}))
        .await
        .assert_problem(404, "table_not_found");
    app.get("/api/v1/tables/not-a-uuid")
        .await
        .assert_problem(404, "not_found");
}
