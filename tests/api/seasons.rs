//! Seasons and league tables (issue #25): standings over three sessions worked out by hand, a
//! member's history, bad input that changes nothing, and who may read and write.

use reqwest::Method;
use serde_json::{json, Value};
use sqlx::PgPool;
use uuid::Uuid;

use crate::helpers::{accept, spawn_app, Answer, TestApp};

const PLAYERS: [&str; 4] = ["Ann", "Bob", "Cat", "Dan"];

async fn get(app: &TestApp, path: &str, token: &str) -> Answer {
    app.request(Method::GET, path, Some(token), None).await
}

async fn session_at(app: &TestApp, token: &str, name: &str, started: &str) -> String {
    let session = app.session(token, name).await;
    let at: chrono::DateTime<chrono::Utc> = started.parse().expect("time");
    sqlx::query("update club_sessions set created_at = $2 where id = $1")
        .bind(session.parse::<Uuid>().expect("uuid"))
        .bind(at)
        .execute(&app.pool)
        .await
        .expect("dated");
    session
}

async fn table(app: &TestApp, token: &str, session: &str, game: &str, players: &[&str], options: Value) -> String {
    let body = json!({"game": game, "players": players, "session_id": session, "options": options});
    app.post("/api/v1/tables", token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned()
}

/// A one-deal Nomination Whist table: a seat scores its tricks, plus 10 when it made exactly
/// its nomination.
async fn whist(app: &TestApp, token: &str, session: &str, players: &[&str], nominations: Value, tricks: Value) {
    let t = table(
        app,
        token,
        session,
        "nomination-whist",
        players,
        json!({"hand_sizes": [1]}),
    )
    .await;
    let done = accept(
        app,
        &t,
        token,
        json!({"kind": "result", "nominations": nominations, "tricks": tricks}),
    )
    .await;
    assert_eq!(done["table"]["finished"], true, "one deal of one card: {done}");
}

/// A Newmarket deal as a result: everyone stakes one chip on a pool card of their own (the
/// dealer adds nothing), `out` goes out and wins all four pools, and is paid a chip a card by
/// the others. So `out` gains 3 + the others' cards, each other loses 1 + their cards.
async fn newmarket_deal(app: &TestApp, token: &str, table: &str, out: usize, cards_left: [u8; 4]) -> Value {
    let cards = ["AS", "KC", "QH", "JD"];
    accept(
        app,
        table,
        token,
        json!({"kind": "layout", "pool_cards": cards, "stakes": cards}),
    )
    .await;
    accept(
        app,
        table,
        token,
        json!({"kind": "result", "out": out, "cards_left": cards_left, "pool_winners": cards.map(|c| json!({"pool_card": c, "seat": out}))}),
    )
    .await
}

struct Club {
    id: String,
    token: String,
    /// Club member ids by name.
    members: Vec<(String, String)>,
}

impl Club {
    fn member(&self, name: &str) -> &str {
        &self.members.iter().find(|(n, _)| n == name).expect(name).1
    }
}

/// Four sessions of the organiser's club, three in March 2026 and one in April:
///
/// | session | table | result |
/// | --- | --- | --- |
/// | 5 March | whist Ann Bob Cat Dan | 11, 10, 10, 0: Ann 1st, Bob and Cat share 2nd-3rd, Dan 4th |
/// | 12 March | Newmarket Ann Bob Cat Dan, 4 deals | net chips +9, +1, -1, -9 |
/// | 19 March | whist Ann Bob Cat Eve | 10, 11, 0, 10: Bob 1st, Ann and Eve share 2nd-3rd, Cat 4th |
/// | 19 March | Newmarket Ann Bob Cat Dan, 1 deal of 4 | unfinished: +9, -3, -3, -3 |
/// | 2 April | whist Ann Bob Cat Dan | 0, 10, 10, 11: Dan 1st, Bob and Cat share 2nd-3rd, Ann 4th |
async fn a_spring(app: &TestApp) -> Club {
    let token = app.organiser("ann@club.example").await;
    let first = session_at(app, &token, "5 March", "2026-03-05T19:00:00Z").await;
    whist(app, &token, &first, &PLAYERS, json!([1, 0, 0, 1]), json!([1, 0, 0, 0])).await;

    let second = session_at(app, &token, "12 March", "2026-03-12T19:00:00Z").await;
    let market = table(app, &token, &second, "newmarket", &PLAYERS, json!({"dealer_extra": 0})).await;
    // Deal by deal (Ann, Bob, Cat, Dan): +9 -3 -3 -3; +6 -2 -2 -2; -4 +8 -2 -2; -2 -2 +6 -2.
    newmarket_deal(app, &token, &market, 0, [0, 2, 2, 2]).await;
    newmarket_deal(app, &token, &market, 0, [0, 1, 1, 1]).await;
    newmarket_deal(app, &token, &market, 1, [3, 0, 1, 1]).await;
    let done = newmarket_deal(app, &token, &market, 2, [1, 1, 0, 1]).await;
    assert_eq!(done["table"]["finished"], true, "a round of four deals: {done}");

    // Late in the evening of the 19th by the clock of a club west of Greenwich, but still the
    // 19th in UTC.
    let third = session_at(app, &token, "19 March", "2026-03-19T23:30:00Z").await;
    whist(
        app,
        &token,
        &third,
        &["Ann", "Bob", "Cat", "Eve"],
        json!([0, 1, 1, 0]),
        json!([0, 1, 0, 0]),
    )
    .await;
    let unfinished = table(app, &token, &third, "newmarket", &PLAYERS, json!({"dealer_extra": 0})).await;
    let one = newmarket_deal(app, &token, &unfinished, 0, [0, 2, 2, 2]).await;
    assert_eq!(one["table"]["finished"], false);

    let fourth = session_at(app, &token, "2 April", "2026-04-02T19:00:00Z").await;
    whist(app, &token, &fourth, &PLAYERS, json!([1, 0, 0, 1]), json!([0, 0, 0, 1])).await;

    let id: Uuid = sqlx::query_scalar("select club_id from club_sessions where id = $1")
        .bind(first.parse::<Uuid>().expect("uuid"))
        .fetch_one(&app.pool)
        .await
        .expect("club");
    let members: Vec<(String, Uuid)> = sqlx::query_as("select name, id from club_members where club_id = $1")
        .bind(id)
        .fetch_all(&app.pool)
        .await
        .expect("members");
    Club {
        id: id.to_string(),
        token,
        members: members.into_iter().map(|(n, id)| (n, id.to_string())).collect(),
    }
}

async fn season(app: &TestApp, club: &Club, body: Value) -> Value {
    app.post(&format!("/api/v1/clubs/{}/seasons", club.id), &club.token, body)
        .await
        .assert_status(201)
        .clone()
}

async fn standings(app: &TestApp, club: &Club, season: &Value) -> Value {
    get(
        app,
        &format!(
            "/api/v1/clubs/{}/seasons/{}/standings",
            club.id,
            season["id"].as_str().expect("id")
        ),
        &club.token,
    )
    .await
    .assert_status(200)
    .clone()
}

fn row<'a>(standings: &'a Value, name: &str) -> &'a Value {
    standings["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {standings}"))
}

fn march(scoring: Value, games: Value) -> Value {
    json!({"name": "March", "starts": "2026-03-01", "ends": "2026-03-31", "games": games, "scoring": scoring})
}

#[sqlx::test(migrations = "./migrations")]
async fn league_points_over_three_sessions_share_tied_places_and_leave_out_unfinished_tables(pool: PgPool) {
    let app = spawn_app(pool).await;
    let club = a_spring(&app).await;
    let created = season(
        &app,
        &club,
        march(
            json!({"kind": "league_points", "points": [3, 2, 1, 0]}),
            json!(["nomination-whist", "newmarket"]),
        ),
    )
    .await;
    assert_eq!(
        created["scoring"],
        json!({"kind": "league_points", "points": [3, 2, 1, 0]})
    );
    assert_eq!(created["club_id"], club.id.as_str());

    let table = standings(&app, &club, &created).await;
    assert_eq!(
        table["session_ids"].as_array().map(Vec::len),
        Some(3),
        "April is not March"
    );
    // By hand, 3-2-1-0 by place, a tie for 2nd-3rd giving (2 + 1) / 2 = 1.5 each:
    //   Ann 3 + 3 + 1.5 = 7.5; Bob 1.5 + 2 + 3 = 6.5; Cat 1.5 + 1 + 0 = 2.5; Eve 1.5; Dan 0 + 0.
    let order: Vec<(&str, u64, f64)> = table["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                r["name"].as_str().expect("name"),
                r["place"].as_u64().expect("place"),
                r["league_points"].as_f64().expect("league points"),
            )
        })
        .collect();
    assert_eq!(
        order,
        [
            ("Ann", 1, 7.5),
            ("Bob", 2, 6.5),
            ("Cat", 3, 2.5),
            ("Eve", 4, 1.5),
            ("Dan", 5, 0.0)
        ]
    );
    let ann = row(&table, "Ann");
    assert_eq!(ann["member_id"], club.member("Ann"));
    assert_eq!(
        (&ann["nights"], &ann["tables"], &ann["wins"]),
        (&json!(3), &json!(3), &json!(2))
    );
    assert_eq!(ann["points"], 21, "11 on the 5th, 10 on the 19th");
    assert_eq!(
        ann["net_chips"], 9,
        "the finished Newmarket only: the unfinished one's +9 is left out"
    );
    assert_eq!(
        ann["by_game"]["nomination-whist"],
        json!({"tables": 2, "wins": 1, "points": 21, "net_chips": null, "league_points": 4.5})
    );
    assert_eq!(
        ann["by_game"]["newmarket"],
        json!({"tables": 1, "wins": 1, "points": null, "net_chips": 9, "league_points": 3.0})
    );
    let dan = row(&table, "Dan");
    assert_eq!(
        (&dan["nights"], &dan["tables"], &dan["net_chips"], &dan["points"]),
        (&json!(2), &json!(2), &json!(-9), &json!(0)),
        "the 19th's unfinished table is not a night: {dan}"
    );
    let eve = row(&table, "Eve");
    assert_eq!((&eve["nights"], &eve["net_chips"]), (&json!(1), &Value::Null));

    // Only the chips game, ranked by net chips; only the points game, ranked by points, ties
    // sharing the best place.
    let chips = season(&app, &club, march(json!({"kind": "net_chips"}), json!(["newmarket"]))).await;
    let chips = standings(&app, &club, &chips).await;
    let ranked: Vec<(&str, u64, i64)> = chips["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                r["name"].as_str().expect("name"),
                r["place"].as_u64().expect("place"),
                r["net_chips"].as_i64().expect("chips"),
            )
        })
        .collect();
    assert_eq!(ranked, [("Ann", 1, 9), ("Bob", 2, 1), ("Cat", 3, -1), ("Dan", 4, -9)]);
    assert_eq!(row(&chips, "Ann")["league_points"], Value::Null);

    let points = season(
        &app,
        &club,
        march(json!({"kind": "points"}), json!(["nomination-whist"])),
    )
    .await;
    let points = standings(&app, &club, &points).await;
    let ranked: Vec<(&str, u64, i64)> = points["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                r["name"].as_str().expect("name"),
                r["place"].as_u64().expect("place"),
                r["points"].as_i64().expect("points"),
            )
        })
        .collect();
    assert_eq!(
        ranked,
        [
            ("Ann", 1, 21),
            ("Bob", 1, 21),
            ("Cat", 3, 10),
            ("Eve", 3, 10),
            ("Dan", 5, 0)
        ]
    );

    let list = get(&app, &format!("/api/v1/clubs/{}/seasons", club.id), &club.token).await;
    assert_eq!(list.assert_status(200)["items"].as_array().map(Vec::len), Some(3));
    assert_eq!(list.body["next_offset"], Value::Null);
}

#[sqlx::test(migrations = "./migrations")]
async fn the_league_table_downloads_as_csv(pool: PgPool) {
    let app = spawn_app(pool).await;
    let club = a_spring(&app).await;
    let created = season(
        &app,
        &club,
        march(
            json!({"kind": "league_points", "points": [3, 2, 1, 0]}),
            json!(["nomination-whist", "newmarket"]),
        ),
    )
    .await;
    let csv = get(
        &app,
        &format!(
            "/api/v1/clubs/{}/seasons/{}/standings?format=csv",
            club.id,
            created["id"].as_str().expect("id")
        ),
        &club.token,
    )
    .await;
    assert_eq!(csv.status.as_u16(), 200);
    assert!(csv.content_type.starts_with("text/csv"), "{}", csv.content_type);
    let lines: Vec<&str> = csv.text.split("\r\n").collect();
    assert_eq!(
        lines[0],
        "place,member_id,name,nights,tables,wins,league_points,points,net_chips,\
         nomination-whist tables,nomination-whist wins,nomination-whist league_points,nomination-whist points,nomination-whist net_chips,\
         newmarket tables,newmarket wins,newmarket league_points,newmarket points,newmarket net_chips"
    );
    assert_eq!(
        lines[1],
        format!("1,{},Ann,3,3,2,7.5,21,9,2,1,4.5,21,,1,1,3.0,,9", club.member("Ann"))
    );
    assert_eq!(
        lines[5],
        format!("5,{},Dan,2,2,0,0.0,0,-9,1,0,0.0,0,,1,0,0.0,,-9", club.member("Dan")),
        "numbers stay numbers, negative ones included"
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn a_members_history_gives_sessions_results_per_game_chips_and_place_this_season(pool: PgPool) {
    let app = spawn_app(pool).await;
    let club = a_spring(&app).await;
    let path = format!("/api/v1/clubs/{}/members/{}", club.id, club.member("Ann"));
    let before = get(&app, &path, &club.token).await.assert_status(200).clone();
    assert_eq!(before["season"], Value::Null, "no season under way yet");

    // A season under way today that takes in all four sessions. By hand: Ann 3 + 3 + 1.5 + 0 =
    // 7.5; Bob 1.5 + 2 + 3 + 1.5 = 8; Cat 1.5 + 1 + 0 + 1.5 = 4; Dan 0 + 0 + 3 = 3; Eve 1.5.
    season(
        &app,
        &club,
        json!({"name": "Always", "starts": "2000-01-01", "ends": "2999-12-31", "games": ["nomination-whist", "newmarket"],
               "scoring": {"kind": "league_points", "points": [3, 2, 1, 0]}}),
    )
    .await;
    let history = get(&app, &path, &club.token).await.assert_status(200).clone();
    assert_eq!(history["member"]["name"], "Ann");
    let sessions: Vec<&str> = history["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .map(|s| s["name"].as_str().expect("name"))
        .collect();
    assert_eq!(sessions, ["5 March", "12 March", "19 March", "2 April"]);
    let third = &history["sessions"][2];
    assert_eq!(third["net_chips"], 9, "an unfinished table's chips are still won");
    let seats = third["seats"].as_array().expect("seats");
    assert_eq!(seats.len(), 2);
    assert_eq!(
        (&seats[0]["place"], &seats[0]["tied"]),
        (&json!(2), &json!(2)),
        "shared with Eve"
    );
    assert_eq!(
        (&seats[1]["finished"], &seats[1]["place"]),
        (&json!(false), &Value::Null)
    );
    assert_eq!(
        history["by_game"]["nomination-whist"],
        json!({"tables": 3, "wins": 1, "points": 21, "net_chips": null, "league_points": null})
    );
    assert_eq!(
        history["by_game"]["newmarket"],
        json!({"tables": 2, "wins": 1, "points": null, "net_chips": 18, "league_points": null})
    );
    assert_eq!(history["net_chips"], 18);
    let place = &history["season"];
    assert_eq!(place["season"]["name"], "Always");
    assert_eq!(
        (&place["place"], &place["ranked"]),
        (&json!(2), &json!(5)),
        "Bob's 8 beats Ann's 7.5"
    );
    assert_eq!((&place["league_points"], &place["nights"]), (&json!(7.5), &json!(4)));

    let eve = format!("/api/v1/clubs/{}/members/{}", club.id, club.member("Eve"));
    let eve = get(&app, &eve, &club.token).await.assert_status(200).clone();
    assert_eq!(eve["sessions"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        (&eve["season"]["place"], &eve["season"]["league_points"]),
        (&json!(5), &json!(1.5))
    );
}

async fn seasons_stored(app: &TestApp) -> i64 {
    sqlx::query_scalar("select count(*) from seasons")
        .fetch_one(&app.pool)
        .await
        .expect("count")
}

#[sqlx::test(migrations = "./migrations")]
async fn bad_seasons_are_refused_and_change_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let club = a_spring(&app).await;
    let good = march(json!({"kind": "points"}), json!(["nomination-whist"]));
    let with = |field: &str, value: Value| {
        let mut body = good.clone();
        body[field] = value;
        body
    };
    let path = format!("/api/v1/clubs/{}/seasons", club.id);
    for (body, code) in [
        (with("ends", json!("2026-02-28")), "invalid_season_dates"),
        (with("games", json!(["snap"])), "unknown_game"),
        (with("games", json!([])), "invalid_games"),
        (with("name", json!("  ")), "invalid_name"),
        (with("starts", json!("1 March")), "invalid_body"),
        (
            with("scoring", json!({"kind": "league_points", "points": [1, 2]})),
            "invalid_scoring",
        ),
        (
            with("scoring", json!({"kind": "league_points", "points": []})),
            "invalid_scoring",
        ),
        (
            with("scoring", json!({"kind": "league_points", "points": [3, -1]})),
            "invalid_scoring",
        ),
        (
            with(
                "scoring",
                json!({"kind": "league_points", "points": [9, 8, 7, 6, 5, 4, 3, 2, 1]}),
            ),
            "invalid_scoring",
        ),
        (with("scoring", json!({"kind": "goals"})), "unknown_variant"),
        (with("colour", json!("red")), "unknown_field"),
    ] {
        app.post(&path, &club.token, body.clone())
            .await
            .assert_problem(422, code);
    }
    assert_eq!(seasons_stored(&app).await, 0);

    // Another club's season is not found through this club, nor is its club to this organiser.
    let other = app.organiser("zed@elsewhere.example").await;
    let their_club = app
        .post("/api/v1/clubs", &other, json!({"name": "Elsewhere"}))
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let their_season = app
        .post(&format!("/api/v1/clubs/{their_club}/seasons"), &other, good.clone())
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    get(
        &app,
        &format!("/api/v1/clubs/{}/seasons/{their_season}/standings", club.id),
        &club.token,
    )
    .await
    .assert_problem(404, "season_not_found");
    app.post(
        &format!("/api/v1/clubs/{their_club}/seasons"),
        &club.token,
        good.clone(),
    )
    .await
    .assert_problem(404, "club_not_found");
    get(
        &app,
        &format!("/api/v1/clubs/{}/members/{}", their_club, club.member("Ann")),
        &other,
    )
    .await
    .assert_problem(404, "member_not_found");
    get(
        &app,
        &format!("/api/v1/clubs/{}/seasons/{}/standings", club.id, Uuid::new_v4()),
        &club.token,
    )
    .await
    .assert_problem(404, "season_not_found");
    assert_eq!(seasons_stored(&app).await, 1, "only their own season");
}

#[sqlx::test(migrations = "./migrations")]
async fn a_viewer_reads_the_league_a_stranger_finds_nothing_and_only_organisers_start_seasons(pool: PgPool) {
    let app = spawn_app(pool).await;
    let club = a_spring(&app).await;
    let created = season(&app, &club, march(json!({"kind": "net_chips"}), json!(["newmarket"]))).await;
    let standings_path = format!(
        "/api/v1/clubs/{}/seasons/{}/standings",
        club.id,
        created["id"].as_str().expect("id")
    );
    let list_path = format!("/api/v1/clubs/{}/seasons", club.id);
    let history_path = format!("/api/v1/clubs/{}/members/{}", club.id, club.member("Bob"));

    let viewer = app.organiser("viewer@club.example").await;
    let stranger = app.organiser("stranger@elsewhere.example").await;
    let invitation = app
        .post(
            &format!("/api/v1/clubs/{}/invitations", club.id),
            &club.token,
            json!({"role": "viewer"}),
        )
        .await
        .assert_status(201)
        .clone();
    let joined = app
        .post("/api/v1/clubs/join", &viewer, json!({"code": invitation["code"]}))
        .await;
    assert_eq!(joined.assert_status(200)["role"], "viewer");

    let owners = get(&app, &standings_path, &club.token).await.assert_status(200).clone();
    assert_eq!(get(&app, &standings_path, &viewer).await.assert_status(200), &owners);
    assert_eq!(
        get(&app, &list_path, &viewer).await.assert_status(200)["items"][0]["id"],
        created["id"]
    );
    assert_eq!(
        get(&app, &history_path, &viewer).await.assert_status(200)["member"]["name"],
        "Bob"
    );

    for path in [&standings_path, &list_path, &history_path] {
        get(&app, path, &stranger).await.assert_problem(404, "club_not_found");
        app.request(Method::GET, path, None, None)
            .await
            .assert_problem(401, "missing_token");
    }
    let body = march(json!({"kind": "points"}), json!(["nomination-whist"]));
    app.post(&list_path, &viewer, body.clone())
        .await
        .assert_problem(403, "forbidden");
    app.post(&list_path, &stranger, body)
        .await
        .assert_problem(404, "club_not_found");
    assert_eq!(seasons_stored(&app).await, 1);
}

#[sqlx::test(migrations = "./migrations")]
async fn the_database_refuses_a_season_that_ends_before_it_starts_or_names_no_game(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Any night").await;
    let club: Uuid = sqlx::query_scalar("select club_id from club_sessions where id = $1")
        .bind(session.parse::<Uuid>().expect("uuid"))
        .fetch_one(&app.pool)
        .await
        .expect("club");
    let day = |d: &str| d.parse::<chrono::NaiveDate>().expect("date");
    let whist = ["nomination-whist".to_owned()];
    let mut conn = app.pool.acquire().await.expect("connection");
    for (starts, ends, games, scoring, points) in [
        ("2026-03-02", "2026-03-01", &whist[..], "points", None),
        ("2026-03-01", "2026-03-31", &[][..], "points", None),
        ("2026-03-01", "2026-03-31", &whist[..], "league_points", None),
        ("2026-03-01", "2026-03-31", &whist[..], "points", Some(&[3, 1][..])),
    ] {
        let refused = tablekeeper::store::seasons::insert(
            &mut conn,
            tablekeeper::store::seasons::NewSeason {
                club,
                name: "March",
                starts: day(starts),
                ends: day(ends),
                games,
                scoring,
                league_points: points,
            },
        )
        .await;
        assert!(refused.is_err(), "{starts} {ends} {games:?} {scoring} {points:?}");
    }
    assert_eq!(seasons_stored(&app).await, 0);
}
