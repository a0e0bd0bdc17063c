//! Tournaments (issue #41) through HTTP: a progressive Nomination Whist drive and a Pope Joan
//! rotation played to the end, standings worked out by hand; bad input that changes nothing; the
//! event's record in the session's chain, verified offline in the bundle.

use std::collections::BTreeMap;

use reqwest::Method;
use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{accept, forged_refusal, spawn_app, verified_bundle, TestApp};

/// A session of a club of `n` members named P1…Pn: (token, session, club, member ids in order).
pub async fn club_night(app: &TestApp, n: usize) -> (String, String, String, Vec<String>) {
    let token = app.organiser("director@club.example").await;
    let session = app.session(&token, "Drive night").await;
    let club = app.get(&format!("/api/v1/sessions/{session}")).await.assert_status(200)["club_id"]
        .as_str()
        .expect("club")
        .to_owned();
    let mut members = Vec::with_capacity(n);
    for i in 1..=n {
        let made = app
            .post(
                &format!("/api/v1/clubs/{club}/members"),
                &token,
                json!({"name": format!("P{i}"), "guest": i % 5 == 0}),
            )
            .await;
        members.push(made.assert_status(201)["id"].as_str().expect("id").to_owned());
    }
    (token, session, club, members)
}

/// The PDF at `path`, read as text by poppler's `pdftotext` (scripts/browser-env.sh installs it),
/// its first page also rendered by `pdftoppm` and checked to be an A4 page.
pub async fn pdf_text(app: &TestApp, token: &str, path: &str) -> String {
    let answer = app
        .client
        .get(format!("{}{path}", app.base))
        .bearer_auth(token)
        .send()
        .await
        .expect("the PDF answers");
    assert_eq!(answer.status().as_u16(), 200);
    assert_eq!(answer.headers()["content-type"], "application/pdf");
    let bytes = answer.bytes().await.expect("the PDF's bytes");
    assert!(bytes.starts_with(b"%PDF-"));
    let dir = std::env::temp_dir().join(format!("tk-sheet-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let file = dir.join("sheet.pdf");
    std::fs::write(&file, &bytes).expect("the PDF written");
    let text = std::process::Command::new("pdftotext")
        .args(["-layout", "-enc", "UTF-8"])
        .arg(&file)
        .arg("-")
        .output()
        .expect("pdftotext runs (scripts/browser-env.sh installs poppler-utils)");
    assert!(text.status.success(), "pdftotext read the PDF");
    let rendered = std::process::Command::new("pdftoppm")
        .args(["-png", "-r", "30", "-f", "1", "-l", "1", "-singlefile"])
        .arg(&file)
        .arg(dir.join("page"))
        .status()
        .expect("pdftoppm runs");
    assert!(rendered.success(), "pdftoppm rendered the first page");
    let png = std::fs::read(dir.join("page.png")).expect("the page as PNG");
    let width = u32::from_be_bytes([png[16], png[17], png[18], png[19]]);
    let height = u32::from_be_bytes([png[20], png[21], png[22], png[23]]);
    // A4 is 210 by 297 mm: 1.414 high for 1 wide.
    let ratio = f64::from(height) / f64::from(width);
    assert!((ratio - 1.414).abs() < 0.02, "an A4 page, not {width}x{height}");
    std::fs::remove_dir_all(&dir).ok();
    String::from_utf8(text.stdout).expect("UTF-8 text")
}

/// Everything a client reads of the session's tournaments and tables: for "nothing changed".
async fn everything(app: &TestApp, session: &str) -> (Value, Value) {
    let tournaments = app
        .get(&format!("/api/v1/sessions/{session}/tournaments"))
        .await
        .assert_status(200)
        .clone();
    let view = app
        .get(&format!("/api/v1/sessions/{session}"))
        .await
        .assert_status(200)
        .clone();
    (tournaments, view["tables"].clone())
}

/// The player's number (P1 → 1) of a member id.
fn number_of(members: &[String], id: &Value) -> usize {
    members
        .iter()
        .position(|m| Some(m.as_str()) == id.as_str())
        .expect("an entrant")
        + 1
}

/// The players (numbers) at each table of a round, in seat order.
fn tables_of(members: &[String], round: &Value) -> Vec<(String, Vec<usize>)> {
    round["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|t| {
            let seats = t["seats"]
                .as_array()
                .expect("seats")
                .iter()
                .map(|s| number_of(members, &s["member_id"]))
                .collect();
            (t["table_id"].as_str().expect("table id").to_owned(), seats)
        })
        .collect()
}

fn sorted(mut v: Vec<usize>) -> Vec<usize> {
    v.sort_unstable();
    v
}

#[sqlx::test(migrations = "./migrations")]
async fn a_sixteen_entrant_progressive_whist_drive_moves_and_ranks_as_worked_by_hand(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, session, club, members) = club_night(&app, 16).await;
    let body = json!({
        "name": "Whist drive",
        "game": "nomination-whist",
        "options": {"hand_sizes": [3]},
        "format": {"kind": "progressive", "move": "winner"},
        "seats": {"min": 4, "max": 4},
        "rounds": 4,
        "deals_per_round": 1,
        "entrants": members,
        "scoring": {"kind": "points"},
    });
    let created = app
        .post(&format!("/api/v1/sessions/{session}/tournaments"), &token, body)
        .await;
    let tournament = created.assert_status(201)["id"].as_str().expect("id").to_owned();
    assert_eq!(
        created.headers["location"],
        format!("/api/v1/tournaments/{tournament}").as_str()
    );

    // Each table's deal: the lowest-numbered player nominates 2 and takes 2 (12 points), the
    // next nominates 0 and takes none (10), the third nominates 0 and takes 1 (1), the last
    // nominates 1 and takes none (0). So the lowest number wins every table.
    let mut seated = Vec::new();
    for round in 1..=4 {
        let started = app
            .post(&format!("/api/v1/tournaments/{tournament}/rounds"), &token, json!({}))
            .await;
        let started = started.assert_status(201).clone();
        assert_eq!(started["round"], round);
        assert_eq!(started["byes"], json!([]));
        let tables = tables_of(&members, &started);
        for (table, seats) in &tables {
            let ranks: Vec<usize> = seats.iter().map(|p| seats.iter().filter(|q| *q < p).count()).collect();
            let nominations: Vec<u8> = ranks.iter().map(|r| [2, 0, 0, 1][*r]).collect();
            let tricks: Vec<u8> = ranks.iter().map(|r| [2, 0, 1, 0][*r]).collect();
            accept(
                &app,
                table,
                &token,
                json!({"kind": "result", "nominations": nominations, "tricks": tricks}),
            )
            .await;
        }
        seated.push(tables.into_iter().map(|(_, s)| sorted(s)).collect::<Vec<_>>());
        let closed = app
            .post(
                &format!("/api/v1/tournaments/{tournament}/rounds/{round}/close"),
                &token,
                json!({}),
            )
            .await;
        closed.assert_status(200);
    }

    // The movement, by hand: each table's winner up one (table 1's stays), its last-placed down
    // one (the last table's stays): rounds 1 and 3 seat 1-4, 5-8, …; rounds 2 and 4 move 5 up to
    // table 1 and push 4 down to table 2, and so on.
    let odd = vec![
        vec![1, 2, 3, 4],
        vec![5, 6, 7, 8],
        vec![9, 10, 11, 12],
        vec![13, 14, 15, 16],
    ];
    let even = vec![
        vec![1, 2, 3, 5],
        vec![4, 6, 7, 9],
        vec![8, 10, 11, 13],
        vec![12, 14, 15, 16],
    ];
    assert_eq!(seated, vec![odd.clone(), even.clone(), odd, even]);

    // Totals by hand: P1 wins all four (48); second places score 10 a round (40); P4, P5, P8,
    // P9, P12 and P13 win two rounds of four (24); third places 1 a round (4); P16 nothing.
    // Among those on 24 with two rounds won, head to head: P4 beat P9 twice, P5 beat P8 twice,
    // P8 beat P13 twice, P9 beat P12 twice.
    let results = app
        .get(&format!("/api/v1/tournaments/{tournament}/results"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(results["finished"], true);
    let lines: Vec<(u64, usize, i64, u64, i64)> = results["standings"]
        .as_array()
        .expect("standings")
        .iter()
        .map(|s| {
            assert_eq!(s["total"]["denom"], 1, "{s}");
            (
                s["place"].as_u64().expect("place"),
                number_of(&members, &s["member_id"]),
                s["total"]["numer"].as_i64().expect("total"),
                s["rounds_won"].as_u64().expect("won"),
                s["head_to_head"].as_i64().expect("h2h"),
            )
        })
        .collect();
    assert_eq!(
        lines,
        vec![
            (1, 1, 48, 4, 0),
            (2, 2, 40, 0, 0),
            (2, 6, 40, 0, 0),
            (2, 10, 40, 0, 0),
            (2, 14, 40, 0, 0),
            (6, 4, 24, 2, 2),
            (6, 5, 24, 2, 2),
            (8, 8, 24, 2, 0),
            (8, 9, 24, 2, 0),
            (10, 12, 24, 2, -2),
            (10, 13, 24, 2, -2),
            (12, 3, 4, 0, 0),
            (12, 7, 4, 0, 0),
            (12, 11, 4, 0, 0),
            (12, 15, 4, 0, 0),
            (16, 16, 0, 0, 0),
        ]
    );
    let csv = app
        .request(
            Method::GET,
            &format!("/api/v1/tournaments/{tournament}/results.csv"),
            Some(&token),
            None,
        )
        .await;
    assert_eq!(csv.status.as_u16(), 200);
    let mut rows = csv.text.lines();
    assert_eq!(
        rows.next(),
        Some("place,member_id,name,total,rounds_won,head_to_head,played,byes,missed")
    );
    assert_eq!(rows.next(), Some(format!("1,{},P1,48,4,0,4,0,0", members[0]).as_str()));

    // The printed sheet says the same, read back from the PDF as text.
    let sheet = pdf_text(&app, &token, &format!("/api/v1/tournaments/{tournament}/results.pdf")).await;
    assert!(sheet.contains("Final results (4 rounds played)"), "{sheet}");
    let printed: Vec<(u64, String, i64)> = sheet
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("Place"))
        .skip(2)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| {
            let cells: Vec<&str> = l.split_whitespace().collect();
            (
                cells[0].parse().expect("a place"),
                cells[1].to_owned(),
                cells[2].parse().expect("a total"),
            )
        })
        .collect();
    let worked: Vec<(u64, String, i64)> = lines
        .iter()
        .map(|(place, player, total, _, _)| (*place, format!("P{player}"), *total))
        .collect();
    assert_eq!(printed, worked, "{sheet}");
    let first_round = sheet.split("Round 1 (").nth(1).expect("round 1 printed");
    for table in results["rounds"][0]["tables"].as_array().expect("round 1's tables") {
        let seated: Vec<&str> = table["seats"]
            .as_array()
            .expect("seats")
            .iter()
            .map(|s| s["name"].as_str().expect("a name"))
            .collect();
        assert!(first_round.contains(&seated.join(", ")), "{seated:?} in {first_round}");
    }
    assert!(sheet.contains("Round 4 ("), "{sheet}");
    // One player's card: where P6 sat, with whom, and the place.
    let card = pdf_text(
        &app,
        &token,
        &format!("/api/v1/tournaments/{tournament}/results.pdf?member={}", members[5]),
    )
    .await;
    assert!(card.contains("P6: "), "{card}");
    assert!(card.contains("Place 2 of 16, total 40, 0 round(s) won"), "{card}");
    let rounds: Vec<Vec<&str>> = card
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("Round Table"))
        .skip(2)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.split([' ', ',']).filter(|c| !c.is_empty()).collect())
        .collect();
    assert_eq!(rounds.len(), 4, "{card}");
    // Round 1 at table 2 with P5, P7 and P8; second there (10), as every round.
    assert_eq!(&rounds[0][..2], &["1", "2"], "{card}");
    let mut with = rounds[0][3..6].to_vec();
    with.sort_unstable();
    assert_eq!(with, ["P5", "P7", "P8"], "{card}");
    assert!(rounds.iter().all(|r| r.last() == Some(&"10")), "{card}");
    app.request(
        Method::GET,
        &format!("/api/v1/tournaments/{tournament}/results.pdf?member={club}"),
        Some(&token),
        None,
    )
    .await
    .assert_problem(404, "entrant_not_found");

    // Every round was played: a fifth is refused, and changes nothing.
    let before = everything(&app, &session).await;
    app.post(&format!("/api/v1/tournaments/{tournament}/rounds"), &token, json!({}))
        .await
        .assert_problem(409, "tournament_finished");
    assert_eq!(everything(&app, &session).await, before);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_thirteen_entrant_pope_joan_rotation_is_played_to_the_end(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, session, _club, members) = club_night(&app, 13).await;
    let body = json!({
        "name": "Pope Joan night",
        "game": "pope-joan",
        "format": {"kind": "rotation"},
        "rounds": 3,
        "deals_per_round": 1,
        "entrants": members,
        "scoring": {"kind": "places", "points": [3, 2, 1]},
        "unfinished": "void",
    });
    let tournament = app
        .post(&format!("/api/v1/sessions/{session}/tournaments"), &token, body)
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();

    // Each table's deal: the lowest-numbered player goes out; the others keep one card more the
    // higher their number, up to five. In round 3 the last table plays nothing: void.
    let mut met: BTreeMap<(usize, usize), u32> = BTreeMap::new();
    let mut void_table = Vec::new();
    for round in 1..=3 {
        let started = app
            .post(&format!("/api/v1/tournaments/{tournament}/rounds"), &token, json!({}))
            .await
            .assert_status(201)
            .clone();
        let tables = tables_of(&members, &started);
        // 13 at tables of 3 to 8: a table of 7 and one of 6, nobody sits out.
        let mut sizes: Vec<usize> = tables.iter().map(|(_, s)| s.len()).collect();
        sizes.sort_unstable();
        assert_eq!(sizes, vec![6, 7]);
        assert_eq!(started["byes"], json!([]));
        let last = tables.len() - 1;
        for (i, (table, seats)) in tables.iter().enumerate() {
            for a in seats {
                for b in seats.iter().filter(|b| a < *b) {
                    *met.entry((*a, *b)).or_default() += 1;
                }
            }
            if round == 3 && i == last {
                void_table = seats.clone();
                continue;
            }
            let rank = |p: &usize| seats.iter().filter(|q| *q < p).count();
            let out = seats.iter().position(|p| rank(p) == 0).expect("a lowest");
            let cards_left: Vec<usize> = seats.iter().map(|p| rank(p).min(5)).collect();
            accept(&app, table, &token, json!({"kind": "turn_up", "card": "7H"})).await;
            accept(
                &app,
                table,
                &token,
                json!({"kind": "result", "out": out, "cards_left": cards_left,
                       "specials": vec![Vec::<String>::new(); seats.len()]}),
            )
            .await;
        }
        app.post(
            &format!("/api/v1/tournaments/{tournament}/rounds/{round}/close"),
            &token,
            json!({}),
        )
        .await
        .assert_status(200);
    }
    // A rotation spreads the meetings: over three rounds at tables of 6 and 7 no pair can avoid
    // meeting twice, and none meets three times more than the rounds force (F + 1 = 3).
    assert!(met.values().all(|n| *n <= 3), "{met:?}");

    let view = app
        .get(&format!("/api/v1/tournaments/{tournament}"))
        .await
        .assert_status(200)
        .clone();
    assert!(view["finished_at"].is_string());
    let round3 = &view["played_rounds"][2]["tables"];
    let voided = round3
        .as_array()
        .expect("tables")
        .iter()
        .filter(|t| t["result"]["unfinished"] == "void")
        .count();
    assert_eq!(voided, 1, "the table that played nothing is named: {round3}");
    // Places at each table from its net chips, by hand: 3, 2 and 1 for the first three, ties
    // sharing exactly (in 420ths, which every share of up to seven is a whole number of). The
    // void table's seats all score 0 and share 3 + 2 + 1 among them.
    let mut expected: BTreeMap<usize, i64> = BTreeMap::new();
    for round in view["played_rounds"].as_array().expect("rounds") {
        for table in round["tables"].as_array().expect("tables") {
            let seats: Vec<usize> = table["seats"]
                .as_array()
                .expect("seats")
                .iter()
                .map(|s| number_of(&members, &s["member_id"]))
                .collect();
            let scores: Vec<i64> = table["result"]["scores"]
                .as_array()
                .expect("scores")
                .iter()
                .map(|v| v.as_i64().expect("score"))
                .collect();
            assert_eq!(scores.len(), seats.len());
            for (p, score) in seats.iter().zip(&scores) {
                let above = scores.iter().filter(|o| *o > score).count();
                let tied = scores.iter().filter(|o| *o == score).count();
                let share: i64 = (above..above + tied)
                    .map(|i| [3, 2, 1].get(i).copied().unwrap_or(0))
                    .sum();
                *expected.entry(*p).or_default() += share * 420 / i64::try_from(tied).expect("small");
            }
        }
    }
    assert_eq!(void_table.len(), 6);
    let standings = view["standings"].as_array().expect("standings");
    for s in standings {
        let p = number_of(&members, &s["member_id"]);
        let total = &s["total"];
        let (numer, denom) = (
            total["numer"].as_i64().expect("numer"),
            total["denom"].as_i64().expect("denom"),
        );
        assert_eq!(numer * 420, expected[&p] * denom, "P{p}: {s}");
        assert_eq!(s["played"], 3, "{s}");
    }
    // P1 and P2, the lowest numbers, went out at every table they played and met only at the
    // void table: 3 + 3 + 1 each, three rounds won (a void table's tie is everyone's win), even
    // head to head: they share first place.
    for (i, s) in standings.iter().take(2).enumerate() {
        assert_eq!(number_of(&members, &s["member_id"]), i + 1, "{s}");
        assert_eq!(s["place"], 1, "{s}");
        assert_eq!(s["total"], json!({"numer": 7, "denom": 1}), "{s}");
        assert_eq!(s["rounds_won"], 3, "{s}");
    }
    let places: Vec<u64> = view["standings"]
        .as_array()
        .expect("standings")
        .iter()
        .map(|s| s["place"].as_u64().expect("place"))
        .collect();
    assert!(places.windows(2).all(|w| w[0] <= w[1]), "{places:?}");
}

#[sqlx::test(migrations = "./migrations")]
async fn bad_tournaments_and_rounds_are_clear_problems_that_change_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, session, _club, members) = club_night(&app, 6).await;
    let create = |body: Value| {
        let app = &app;
        let token = token.clone();
        let session = session.clone();
        async move {
            app.post(&format!("/api/v1/sessions/{session}/tournaments"), &token, body)
                .await
        }
    };
    let base = json!({
        "name": "Drive", "game": "nomination-whist", "format": {"kind": "progressive", "move": "winner"},
        "rounds": 2, "entrants": members, "scoring": {"kind": "points"},
    });
    let with = |change: Value| {
        let mut body = base.clone();
        for (k, v) in change.as_object().expect("object") {
            body[k] = v.clone();
        }
        body
    };
    let before = everything(&app, &session).await;

    // A format the game cannot seat: a rotation of two for a game of three or more.
    create(with(json!({"format": {"kind": "rotation"}, "entrants": &members[..2]})))
        .await
        .assert_problem(422, "too_few_entrants");
    // Constraints that cannot be satisfied: a pair kept apart who must both stay at table 1.
    create(with(json!({"constraints": {
        "apart": [[members[0], members[1]]],
        "stay": [{"member_id": members[0], "table": 1}, {"member_id": members[1], "table": 1}],
    }})))
    .await
    .assert_problem(422, "apart_unsatisfiable");
    // One table only (six at tables of up to seven): an apart pair cannot be seated.
    create(with(json!({"constraints": {"apart": [[members[0], members[1]]]}})))
        .await
        .assert_problem(422, "apart_not_seatable");
    // A stay at a table the rounds never have.
    create(with(
        json!({"constraints": {"stay": [{"member_id": members[0], "table": 3}]}}),
    ))
    .await
    .assert_problem(422, "stay_unsatisfiable");
    // A member of another club.
    let other = app.organiser("other@club.example").await;
    let other_session = app.session(&other, "Elsewhere").await;
    let other_club = app.get_as(&format!("/api/v1/sessions/{other_session}"), &other).await;
    let other_club = other_club.assert_status(200)["club_id"]
        .as_str()
        .expect("club")
        .to_owned();
    let stranger = app
        .post(
            &format!("/api/v1/clubs/{other_club}/members"),
            &other,
            json!({"name": "Stranger"}),
        )
        .await
        .assert_status(201)["id"]
        .clone();
    let mut entrants = members.clone();
    entrants[5] = stranger.as_str().expect("id").to_owned();
    create(with(json!({"entrants": entrants})))
        .await
        .assert_problem(422, "invalid_members");
    // Tables outside the game's seat range, scoring without its points, an unknown game.
    create(with(json!({"seats": {"min": 2, "max": 9}})))
        .await
        .assert_problem(422, "invalid_tournament");
    create(with(json!({"scoring": {"kind": "places"}})))
        .await
        .assert_problem(422, "invalid_scoring");
    create(with(json!({"game": "snap"})))
        .await
        .assert_problem(422, "unknown_game");
    assert_eq!(everything(&app, &session).await, before, "nothing was made");

    // A round started while one is open; a round closed twice; a round never started.
    let tournament = create(base.clone()).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    app.post(&format!("/api/v1/tournaments/{tournament}/rounds"), &token, json!({}))
        .await
        .assert_status(201);
    let open = everything(&app, &session).await;
    app.post(&format!("/api/v1/tournaments/{tournament}/rounds"), &token, json!({}))
        .await
        .assert_problem(409, "round_open");
    app.post(
        &format!("/api/v1/tournaments/{tournament}/rounds/2/close"),
        &token,
        json!({}),
    )
    .await
    .assert_problem(404, "round_not_found");
    assert_eq!(everything(&app, &session).await, open);
    app.post(
        &format!("/api/v1/tournaments/{tournament}/rounds/1/close"),
        &token,
        json!({}),
    )
    .await
    .assert_status(200);
    let closed = everything(&app, &session).await;
    app.post(
        &format!("/api/v1/tournaments/{tournament}/rounds/1/close"),
        &token,
        json!({}),
    )
    .await
    .assert_problem(409, "round_closed");
    // An entrant twice, a stranger late, a withdrawal of someone never entered.
    app.post(
        &format!("/api/v1/tournaments/{tournament}/entrants"),
        &token,
        json!({"member_id": members[0]}),
    )
    .await
    .assert_problem(409, "already_entered");
    app.post(
        &format!("/api/v1/tournaments/{tournament}/entrants"),
        &token,
        json!({"member_id": stranger}),
    )
    .await
    .assert_problem(422, "invalid_members");
    app.request(
        Method::DELETE,
        &format!(
            "/api/v1/tournaments/{tournament}/entrants/{}",
            stranger.as_str().expect("id")
        ),
        Some(&token),
        None,
    )
    .await
    .assert_problem(404, "entrant_not_found");
    assert_eq!(everything(&app, &session).await, closed);
    // Another club's organiser does not see it.
    app.get_as(&format!("/api/v1/tournaments/{tournament}"), &other)
        .await
        .assert_problem(404, "tournament_not_found");
}

#[sqlx::test(migrations = "./migrations")]
async fn late_arrivals_withdrawals_and_guide_cards_follow_the_rounds(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, session, club, members) = club_night(&app, 8).await;
    let body = json!({
        "name": "Rotation", "game": "nomination-whist", "options": {"hand_sizes": [1]},
        "format": {"kind": "rotation"}, "seats": {"min": 4, "max": 4}, "rounds": 3,
        "entrants": &members[..7], "scoring": {"kind": "points", "bye": {"kind": "zero"}},
    });
    let tournament = app
        .post(&format!("/api/v1/sessions/{session}/tournaments"), &token, body)
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    // Before the first round: nothing now, round 1 next.
    let card = app
        .get(&format!("/api/v1/tournaments/{tournament}/guide/{}", members[0]))
        .await
        .assert_status(200)
        .clone();
    assert!(card["now"].is_null(), "{card}");
    assert_eq!(card["next"]["round"], 1, "{card}");
    // Seven at four-seat tables: one table of four, three byes.
    let first = app
        .post(&format!("/api/v1/tournaments/{tournament}/rounds"), &token, json!({}))
        .await
        .assert_status(201)
        .clone();
    assert_eq!(first["tables"].as_array().expect("tables").len(), 1);
    assert_eq!(first["byes"].as_array().expect("byes").len(), 3);
    let seat1 = first["tables"][0]["seats"][0]["member_id"]
        .as_str()
        .expect("id")
        .to_owned();
    let card = app
        .get(&format!("/api/v1/tournaments/{tournament}/guide/{seat1}"))
        .await
        .assert_status(200)
        .clone();
    let text = card["now"]["text"].as_str().expect("text");
    assert!(
        text.starts_with("Round 1: table 1, seat 1 (dealer first), with "),
        "{text}"
    );
    // The eighth member arrives late (from round 2); the first withdraws after round 1.
    let late = app
        .post(
            &format!("/api/v1/tournaments/{tournament}/entrants"),
            &token,
            json!({"member_id": members[7]}),
        )
        .await
        .assert_status(201)
        .clone();
    let entrant = late["entrants"]
        .as_array()
        .expect("entrants")
        .iter()
        .find(|e| e["member_id"] == members[7].as_str())
        .expect("entered")
        .clone();
    assert_eq!(entrant["from_round"], 2);
    let gone = app
        .request(
            Method::DELETE,
            &format!("/api/v1/tournaments/{tournament}/entrants/{}", members[0]),
            Some(&token),
            None,
        )
        .await
        .assert_status(200)
        .clone();
    assert!(gone["entrants"]
        .as_array()
        .expect("entrants")
        .iter()
        .any(|e| e["member_id"] == members[0].as_str() && e["until_round"] == 1));
    for (table, seats) in tables_of(&members, &first) {
        let tricks: Vec<u8> = (0..seats.len()).map(|i| u8::from(i == 0)).collect();
        accept(
            &app,
            &table,
            &token,
            json!({"kind": "result", "nominations": tricks, "tricks": tricks}),
        )
        .await;
    }
    app.post(
        &format!("/api/v1/tournaments/{tournament}/rounds/1/close"),
        &token,
        json!({}),
    )
    .await
    .assert_status(200);
    let second = app
        .post(&format!("/api/v1/tournaments/{tournament}/rounds"), &token, json!({}))
        .await
        .assert_status(201)
        .clone();
    let seated: Vec<usize> = tables_of(&members, &second)
        .into_iter()
        .flat_map(|(_, s)| s)
        .chain(
            second["byes"]
                .as_array()
                .expect("byes")
                .iter()
                .map(|b| number_of(&members, b)),
        )
        .collect();
    assert_eq!(
        sorted(seated),
        vec![2, 3, 4, 5, 6, 7, 8],
        "the late one in, the withdrawn out"
    );
    // Round 2 played and closed: a round played scores 11 from seat 1 (the trick it named) and
    // 10 from the others (none named, none taken); a bye (`bye: zero`) and a round before a late
    // arrival (`late` left out: zero) score nothing.
    for (table, seats) in tables_of(&members, &second) {
        let tricks: Vec<u8> = (0..seats.len()).map(|i| u8::from(i == 0)).collect();
        accept(
            &app,
            &table,
            &token,
            json!({"kind": "result", "nominations": tricks, "tricks": tricks}),
        )
        .await;
    }
    app.post(
        &format!("/api/v1/tournaments/{tournament}/rounds/2/close"),
        &token,
        json!({}),
    )
    .await
    .assert_status(200);
    let mut expected = [0_i64; 9];
    let mut byes = [0_u64; 9];
    for round in [&first, &second] {
        for (_, seats) in tables_of(&members, round) {
            for (i, p) in seats.iter().enumerate() {
                expected[*p] += if i == 0 { 11 } else { 10 };
            }
        }
        for b in round["byes"].as_array().expect("byes") {
            byes[number_of(&members, b)] += 1;
        }
    }
    let standings = app
        .get(&format!("/api/v1/tournaments/{tournament}"))
        .await
        .assert_status(200)["standings"]
        .clone();
    for s in standings.as_array().expect("standings") {
        let p = number_of(&members, &s["member_id"]);
        assert_eq!(s["total"]["numer"], json!(expected[p]), "P{p}: {s}");
        assert_eq!(s["total"]["denom"], 1, "P{p}: {s}");
        assert_eq!(s["byes"], json!(byes[p]), "P{p}: {s}");
        if p == 8 {
            assert_eq!(s["missed"], 1, "the late arrival missed round 1: {s}");
            assert_eq!(s["played"].as_u64().expect("played") + byes[8], 1, "{s}");
        }
    }
    // The printed results name each round's byes.
    let printed = pdf_text(&app, &token, &format!("/api/v1/tournaments/{tournament}/results.pdf")).await;
    let mut named: Vec<String> = first["byes"]
        .as_array()
        .expect("byes")
        .iter()
        .map(|b| format!("P{}", number_of(&members, b)))
        .collect();
    named.sort();
    let line = printed
        .lines()
        .find(|l| l.trim_start().starts_with("Byes: "))
        .unwrap_or_else(|| panic!("a line of byes: {printed}"));
    let mut listed: Vec<String> = line
        .trim()
        .trim_start_matches("Byes: ")
        .trim_end_matches('.')
        .split(", ")
        .map(str::to_owned)
        .collect();
    listed.sort();
    assert_eq!(listed, named, "{printed}");
    // The session's club is the tournament's; the tables are the session's.
    let view = app
        .get(&format!("/api/v1/tournaments/{tournament}"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(view["club_id"], club.as_str());
    assert_eq!(view["session_id"], session.as_str());
}

#[sqlx::test(migrations = "./migrations")]
async fn the_session_bundle_verifies_with_the_tournament_in_its_chain(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, session, club, members) = club_night(&app, 8).await;
    app.post(
        &format!("/api/v1/clubs/{club}/webhooks"),
        &token,
        json!({"url": "https://club.example.org/hooks", "events": ["tournament.round_started", "tournament.finished"]}),
    )
    .await
    .assert_status(201);
    let body = json!({
        "name": "Drive", "game": "nomination-whist", "options": {"hand_sizes": [1]},
        "format": {"kind": "progressive", "move": "winner"}, "seats": {"min": 4, "max": 4}, "rounds": 1,
        "deals_per_round": 1, "entrants": members, "scoring": {"kind": "points"}, "unfinished": "average",
    });
    // Made once under an Idempotency-Key: the retry gets the first answer and makes nothing.
    let path = format!("/api/v1/sessions/{session}/tournaments");
    let auth = format!("Bearer {token}");
    let headers = [("Authorization", auth.as_str()), ("Idempotency-Key", "drive-1")];
    let first = app
        .send(Method::POST, &path, None, Some(body.to_string()), &headers)
        .await;
    let tournament = first.assert_status(201)["id"].as_str().expect("id").to_owned();
    let again = app
        .send(Method::POST, &path, None, Some(body.to_string()), &headers)
        .await;
    assert_eq!(again.assert_status(201)["id"], tournament.as_str());
    assert_eq!(again.headers["idempotent-replayed"], "true");
    let listed = app.get(&path).await.assert_status(200).clone();
    assert_eq!(listed["items"].as_array().expect("items").len(), 1);
    // Started under an Idempotency-Key: the retry gets the same round and opens nothing more.
    let rounds = format!("/api/v1/tournaments/{tournament}/rounds");
    let headers = [("Authorization", auth.as_str()), ("Idempotency-Key", "round-1")];
    let started = app
        .send(Method::POST, &rounds, None, Some("{}".into()), &headers)
        .await
        .assert_status(201)
        .clone();
    let again = app.send(Method::POST, &rounds, None, Some("{}".into()), &headers).await;
    assert_eq!(again.assert_status(201), &started);
    assert_eq!(again.headers["idempotent-replayed"], "true");
    let view = app
        .get(&format!("/api/v1/sessions/{session}"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(view["tables"].as_array().expect("tables").len(), 2, "two tables, once");
    // One table plays its deal, the other does not: scored at its average.
    let tables = tables_of(&members, &started);
    accept(
        &app,
        &tables[0].0,
        &token,
        json!({"kind": "result", "nominations": [1, 0, 0, 0], "tricks": [1, 0, 0, 0]}),
    )
    .await;
    let closed = app
        .post(
            &format!("/api/v1/tournaments/{tournament}/rounds/1/close"),
            &token,
            json!({}),
        )
        .await
        .assert_status(200)
        .clone();
    assert_eq!(
        closed["played_rounds"][0]["tables"][1]["result"]["unfinished"],
        "average"
    );
    assert_eq!(
        closed["played_rounds"][0]["tables"][0]["result"]["scores"],
        json!([11, 10, 10, 10])
    );

    // The printed results say which table did not finish and how it was scored.
    let printed = pdf_text(&app, &token, &format!("/api/v1/tournaments/{tournament}/results.pdf")).await;
    assert!(
        printed.contains("Table 2 did not finish its deals (0 played)"),
        "{printed}"
    );

    let (bytes, document) = verified_bundle(&app, &session).await;
    // The binary, as a member runs it at home, checks the tournament's record in it too.
    let key = app.get("/api/v1/audit-key").await.assert_status(200)["public_key"]
        .as_str()
        .expect("key")
        .to_owned();
    let file = std::env::temp_dir().join(format!("tk-bundle-tournament-{session}.json"));
    std::fs::write(&file, &bytes).expect("write");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_tablekeeper"))
        .args(["verify", file.to_str().expect("path"), "--key", &key])
        .env_remove("DATABASE_URL")
        .output()
        .expect("run");
    std::fs::remove_file(&file).expect("remove");
    assert!(
        run.status.success(),
        "{} {}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let chain = document["session"]["chain"].as_array().expect("chain");
    let last = chain.last().expect("a link");
    assert_eq!(last["content_version"], 2);
    let record: Value = serde_json::from_str(last["content"].as_str().expect("content")).expect("record");
    assert_eq!(record["tournaments"][0]["rounds"][0]["closed"], true);
    assert_eq!(record["tournaments"][0]["tournament"], tournament.as_str());
    // The record as bundled is what the chain holds: a result changed and the bundle signed
    // again (by another key) is found by the chain.
    let found = forged_refusal(&document, |d| {
        d["session"]["tournaments"][0]["rounds"][0]["results"][0]["scores"][0] = json!(99)
    });
    assert!(found.contains("tournaments"), "{found}");
    // The round's start and the tournament's end went to the club's webhook, from the outbox.
    let sent: Vec<(String, String)> =
        sqlx::query_as("select event_type, body from webhook_deliveries order by created_at, event_type")
            .fetch_all(&app.pool)
            .await
            .expect("deliveries");
    let kinds: Vec<&str> = sent.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(kinds, ["tournament.round_started", "tournament.finished"]);
    let started: Value = serde_json::from_str(&sent[0].1).expect("json");
    assert_eq!(started["data"]["tournament_id"], tournament.as_str());
    assert_eq!(started["data"]["tables"].as_array().expect("tables").len(), 2);
    let finished: Value = serde_json::from_str(&sent[1].1).expect("json");
    assert_eq!(finished["data"]["standings"][0]["place"], 1);
    // The audit of the session's chain in the database agrees.
    let mut conn = app.pool.acquire().await.expect("connection");
    let found = tablekeeper::service::chain::record::check_session(&mut conn, session.parse().expect("uuid"))
        .await
        .expect("check");
    assert_eq!(found, None);
}

/// The tables of a round (a started one or a dry run) by number: each seat's club member, in
/// seat order.
fn seating(round: &Value) -> Vec<(u64, Vec<String>)> {
    round["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|t| {
            let seats = t["seats"]
                .as_array()
                .expect("seats")
                .iter()
                .map(|s| s["member_id"].as_str().expect("member").to_owned())
                .collect();
            (t["number"].as_u64().expect("number"), seats)
        })
        .collect()
}

#[sqlx::test(migrations = "./migrations")]
async fn the_next_round_is_shown_before_it_starts_writing_nothing_and_is_the_round_then_started(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, session, _club, members) = club_night(&app, 9).await;
    let body = json!({
        "name": "Drive", "game": "nomination-whist", "options": {"hand_sizes": [1]},
        "format": {"kind": "progressive", "move": "winner"}, "seats": {"min": 4, "max": 4}, "rounds": 2,
        "entrants": members, "scoring": {"kind": "points"}, "minutes_per_round": 20,
    });
    let tournament = app
        .post(&format!("/api/v1/sessions/{session}/tournaments"), &token, body)
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let next = format!("/api/v1/tournaments/{tournament}/rounds/next");

    for round in 1..=2 {
        // Looked at twice, the dry run answers the same and changes nothing anyone reads.
        let before = everything(&app, &session).await;
        let planned = app.get(&next).await.assert_status(200).clone();
        let again = app.get(&next).await.assert_status(200).clone();
        assert_eq!(planned, again);
        assert_eq!(everything(&app, &session).await, before, "a dry run wrote something");
        assert_eq!(planned["round"], round, "{planned}");
        // Nine at tables of four: two tables and a bye.
        assert_eq!(seating(&planned).len(), 2, "{planned}");
        assert_eq!(planned["byes"].as_array().expect("byes").len(), 1, "{planned}");

        let started = app
            .post(&format!("/api/v1/tournaments/{tournament}/rounds"), &token, json!({}))
            .await
            .assert_status(201)
            .clone();
        assert_eq!(started["round"], round);
        assert_eq!(
            seating(&started),
            seating(&planned),
            "round {round} is not the one shown"
        );
        assert_eq!(started["byes"], planned["byes"]);
        // While it is open there is no next round to show yet.
        let open = app.get(&next).await;
        assert_eq!(open.status, 409);
        assert_eq!(open.body["code"], "round_open");
        app.post(
            &format!("/api/v1/tournaments/{tournament}/rounds/{round}/close"),
            &token,
            json!({}),
        )
        .await
        .assert_status(200);
    }
    // After the last round: nothing to show.
    let done = app.get(&next).await;
    assert_eq!(done.status, 409);
    assert_eq!(done.body["code"], "tournament_finished");
    // A stranger to the club hears of no such tournament.
    let stranger = app.organiser_named("stranger@elsewhere.example", "Stranger").await;
    let refused = app.request(Method::GET, &next, Some(&stranger), None).await;
    assert_eq!(refused.status, 404);
    assert_eq!(refused.body["code"], "tournament_not_found");
}

/// A Swiss of fixed partnerships through HTTP, with a couple kept apart and one member who keeps
/// a table (a wheelchair user's table, say): partners sit opposite, the couple never share a
/// table, the member stays put, and no two partnerships meet twice in three rounds of six.
#[sqlx::test(migrations = "./migrations")]
async fn a_swiss_of_partnerships_keeps_partners_opposite_couples_apart_and_a_table_kept(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, session, _, members) = club_night(&app, 12).await;
    let m = |n: usize| members[n - 1].clone();
    let partnerships: Vec<[String; 2]> = (0..6).map(|i| [m(2 * i + 1), m(2 * i + 2)]).collect();
    let body = json!({
        "name": "Pairs Swiss", "game": "nomination-whist", "options": {"hand_sizes": [1]},
        "format": {"kind": "swiss", "partnerships": partnerships}, "seats": {"min": 4, "max": 4},
        "rounds": 3, "entrants": &members,
        // P1 and P3 are a couple in different partnerships; P5 keeps table 2.
        "constraints": {"apart": [[m(1), m(3)]], "stay": [{"member_id": m(5), "table": 2}]},
        "scoring": {"kind": "points"},
    });
    let tournament = app
        .post(&format!("/api/v1/sessions/{session}/tournaments"), &token, body)
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let partner_of = |p: usize| if p % 2 == 1 { p + 1 } else { p - 1 };
    let mut met: BTreeMap<(usize, usize), u32> = BTreeMap::new();
    for round in 1..=3 {
        let started = app
            .post(&format!("/api/v1/tournaments/{tournament}/rounds"), &token, json!({}))
            .await
            .assert_status(201)
            .clone();
        assert!(started["byes"].as_array().expect("byes").is_empty(), "{started}");
        let tables = tables_of(&members, &started);
        assert_eq!(tables.len(), 3, "round {round}: {tables:?}");
        for (number, (table, seats)) in tables.iter().enumerate() {
            assert_eq!(seats.len(), 4, "round {round}: {seats:?}");
            // Partners opposite: seats 1 and 3, seats 2 and 4.
            assert_eq!(seats[2], partner_of(seats[0]), "round {round}: {seats:?}");
            assert_eq!(seats[3], partner_of(seats[1]), "round {round}: {seats:?}");
            assert!(
                !(seats.contains(&1) && seats.contains(&3)),
                "round {round}: the couple apart: {seats:?}"
            );
            if seats.contains(&5) {
                assert_eq!(number, 1, "round {round}: P5 keeps table 2: {tables:?}");
            }
            let (a, b) = (seats[0].min(seats[2]), seats[1].min(seats[3]));
            *met.entry((a.min(b), a.max(b))).or_default() += 1;
            // Seat 1 takes the trick it nominated; the others nominate and take none.
            accept(
                &app,
                table,
                &token,
                json!({"kind": "result", "nominations": [1, 0, 0, 0], "tricks": [1, 0, 0, 0]}),
            )
            .await;
        }
        app.post(
            &format!("/api/v1/tournaments/{tournament}/rounds/{round}/close"),
            &token,
            json!({}),
        )
        .await
        .assert_status(200);
    }
    assert!(
        met.values().all(|n| *n == 1),
        "no partnership met another twice: {met:?}"
    );
    assert_eq!(met.len(), 9, "three rounds of three tables: {met:?}");
    let view = app
        .get(&format!("/api/v1/tournaments/{tournament}"))
        .await
        .assert_status(200)
        .clone();
    let standings = view["standings"].as_array().expect("standings");
    assert_eq!(standings.len(), 12);
    assert!(
        standings.iter().all(|s| s["played"] == 3 && s["byes"] == 0),
        "{standings:?}"
    );
}

/// `unfinished: as_played`: a table short of its deals at the close counts the deals it
/// finished, named so in the results; a table that finished counts them all.
#[sqlx::test(migrations = "./migrations")]
async fn a_table_short_of_its_deals_counts_the_deals_it_played_when_as_played(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, session, _, members) = club_night(&app, 8).await;
    let body = json!({
        "name": "Fixed", "game": "nomination-whist", "options": {"hand_sizes": [1, 1]},
        "format": {"kind": "fixed"}, "seats": {"min": 4, "max": 4}, "rounds": 1, "deals_per_round": 2,
        "entrants": &members, "scoring": {"kind": "points"}, "unfinished": "as_played",
    });
    let tournament = app
        .post(&format!("/api/v1/sessions/{session}/tournaments"), &token, body)
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let started = app
        .post(&format!("/api/v1/tournaments/{tournament}/rounds"), &token, json!({}))
        .await
        .assert_status(201)
        .clone();
    let tables = tables_of(&members, &started);
    let deal = json!({"kind": "result", "nominations": [1, 0, 0, 0], "tricks": [1, 0, 0, 0]});
    // Table 1 plays both deals; table 2 only the first.
    accept(&app, &tables[0].0, &token, deal.clone()).await;
    accept(&app, &tables[0].0, &token, deal.clone()).await;
    accept(&app, &tables[1].0, &token, deal).await;
    let closed = app
        .post(
            &format!("/api/v1/tournaments/{tournament}/rounds/1/close"),
            &token,
            json!({}),
        )
        .await
        .assert_status(200)
        .clone();
    let results = &closed["played_rounds"][0]["tables"];
    assert_eq!(results[0]["result"]["scores"], json!([22, 20, 20, 20]), "{closed}");
    assert_eq!(results[0]["result"]["deals_played"], 2);
    assert!(results[0]["result"]["unfinished"].is_null(), "{closed}");
    assert_eq!(results[1]["result"]["scores"], json!([11, 10, 10, 10]), "{closed}");
    assert_eq!(results[1]["result"]["deals_played"], 1);
    assert_eq!(results[1]["result"]["unfinished"], "as_played");
}

/// A seated member scores their own table with their own account, whatever their role (a
/// viewer here), and no other; a viewer not seated there scores nothing.
#[sqlx::test(migrations = "./migrations")]
async fn a_member_seated_at_a_round_s_table_records_there_with_their_own_account(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, session, club, mut members) = club_night(&app, 7).await;
    let eve = crate::clubs::account(&app, "eve@club.example", "Eve").await;
    let fay = crate::clubs::account(&app, "fay@club.example", "Fay").await;
    crate::clubs::enrol(&app, &token, &club, &eve, "viewer").await;
    crate::clubs::enrol(&app, &token, &club, &fay, "viewer").await;
    let listed = app
        .request(
            Method::GET,
            &format!("/api/v1/clubs/{club}/members"),
            Some(&token),
            None,
        )
        .await
        .assert_status(200)["items"]
        .clone();
    let eve_member = listed
        .as_array()
        .expect("items")
        .iter()
        .find(|m| m["name"] == "Eve")
        .expect("Eve a member")["id"]
        .as_str()
        .expect("id")
        .to_owned();
    members.push(eve_member.clone());
    let body = json!({
        "name": "Fixed", "game": "nomination-whist", "options": {"hand_sizes": [1]},
        "format": {"kind": "fixed"}, "seats": {"min": 4, "max": 4}, "rounds": 1,
        "entrants": &members, "scoring": {"kind": "points"},
    });
    let tournament = app
        .post(&format!("/api/v1/sessions/{session}/tournaments"), &token, body)
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let started = app
        .post(&format!("/api/v1/tournaments/{tournament}/rounds"), &token, json!({}))
        .await
        .assert_status(201)
        .clone();
    let tables = tables_of(&members, &started);
    let (own, other): (Vec<_>, Vec<_>) = tables.iter().partition(|(_, seats)| seats.contains(&8));
    let (own, other) = (&own[0].0, &other[0].0);
    let result = json!({"kind": "result", "nominations": [1, 0, 0, 0], "tricks": [1, 0, 0, 0]});

    // Not at her table, and Fay at none: refused, nothing written.
    let before = (app.snapshot(own).await, app.snapshot(other).await);
    app.submit(other, &eve, result.clone())
        .await
        .assert_problem(403, "forbidden");
    app.submit(own, &fay, result.clone())
        .await
        .assert_problem(403, "forbidden");
    assert_eq!((app.snapshot(own).await, app.snapshot(other).await), before);

    // At her own table: recorded, and undone, as a scorer would.
    accept(&app, own, &eve, result).await;
    app.request(
        Method::POST,
        &format!("/api/v1/tables/{own}/undo"),
        Some(&eve),
        Some(json!({})),
    )
    .await
    .assert_status(200);
}
