//! Who changed what, when (issue #42): `GET /sessions/{id}/changes` lists a session's
//! corrections, undos, rulings, answers, closes and reopenings in order, each with who, when,
//! why and its diff worked out by hand; its CSV; its pages; and its refusals.

use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{accept, spawn_app, TestApp};
use crate::scorers::scorer;

/// A Nomination Whist deal of one card, by its result.
fn whist(nominations: [u8; 4], tricks: [u8; 4]) -> Value {
    json!({"kind": "result", "nominations": nominations, "tricks": tricks})
}

/// A Nomination Whist table of one-card deals in the session.
async fn table(app: &TestApp, token: &str, session: &str, deals: usize) -> String {
    let body = json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat", "Dan"],
                      "options": {"hand_sizes": vec![1; deals]}, "session_id": session});
    app.post("/api/v1/tables", token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned()
}

/// What a read could have changed: every log entry, booking and close of the database.
async fn footprint(app: &TestApp) -> Vec<i64> {
    let mut out = Vec::new();
    for sql in [
        "select count(*) from moves",
        "select count(*) from ledger_bookings",
        "select count(*) from session_closes",
        "select count(*) from session_reopenings",
    ] {
        out.push(sqlx::query_scalar(sql).fetch_one(&app.pool).await.expect(sql));
    }
    out
}

fn kinds(items: &Value) -> Vec<&str> {
    items
        .as_array()
        .expect("items")
        .iter()
        .map(|c| c["kind"].as_str().expect("kind"))
        .collect()
}

#[sqlx::test(migrations = "./migrations")]
async fn a_session_s_changes_are_listed_in_order_with_who_when_why_and_what_they_changed(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Thursday").await;
    let owner = app.get(&format!("/api/v1/sessions/{session}")).await.assert_status(200)["owner_id"]
        .as_str()
        .expect("owner")
        .to_owned();
    let organiser = format!("organiser:{owner}");
    let first = table(&app, &token, &session, 2).await;
    let second = table(&app, &token, &session, 2).await;
    let (phone, phone_id) = scorer(&app, &token, &second, "Bob's phone").await;

    // Nothing changed yet: an empty list.
    let empty = app
        .get(&format!("/api/v1/sessions/{session}/changes"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(empty, json!({"session_id": session, "items": [], "next_offset": null}));

    // The first table: deals 1 and 2 (seqs 1, 2); deal 1 corrected (its move 3, its entry 4).
    // 1 a trick and 10 more for a nomination met: deal 1 as played scores [10, 11, 10, 10];
    // as corrected (Ann nominated and took the trick) [11, 10, 10, 10].
    accept(&app, &first, &token, whist([0, 1, 0, 0], [0, 1, 0, 0])).await;
    accept(&app, &first, &token, whist([0, 0, 1, 0], [0, 0, 1, 0])).await;
    let version = app.state(&first).await["version"].as_i64().expect("version");
    app.request(
        reqwest::Method::PUT,
        &format!("/api/v1/tables/{first}/deals/1"),
        Some(&token),
        Some(
            json!({"moves": [whist([1, 0, 0, 0], [1, 0, 0, 0])], "expected_version": version,
                    "reason": "Ann took the trick, not Bob"}),
        ),
    )
    .await
    .assert_status(200);

    // The second table, by its phone: deal 1 recorded (seq 1), undone (2), recorded again (3);
    // then the director voids it (4) and the phone appeals (5).
    accept(&app, &second, &phone, whist([0, 0, 0, 1], [0, 0, 0, 1])).await;
    app.post(&format!("/api/v1/tables/{second}/undo"), &phone, json!({}))
        .await
        .assert_status(200);
    accept(&app, &second, &phone, whist([0, 1, 0, 0], [0, 1, 0, 0])).await;
    let ruling = app
        .post(
            &format!("/api/v1/tables/{second}/deals/1/rulings"),
            &token,
            json!({"kind": "void", "reason": "the board was fouled"}),
        )
        .await
        .assert_status(201)
        .clone();
    assert_eq!(ruling["id"], 4);
    app.post(
        &format!("/api/v1/tables/{second}/deals/1/rulings/4/answers"),
        &phone,
        json!({"answer": "appeal", "comment": "Dan had not seen the card"}),
    )
    .await
    .assert_status(201);

    // Closed (final at once) and reopened by the owner.
    app.post(
        &format!("/api/v1/sessions/{session}/close"),
        &token,
        json!({"correction_window": "PT0S", "force": true, "reason": "table 2 stopped after a deal"}),
    )
    .await
    .assert_status(200);
    app.post(
        &format!("/api/v1/sessions/{session}/reopen"),
        &token,
        json!({"reason": "table 2's ruling is appealed"}),
    )
    .await
    .assert_status(200);
    let view = app
        .get(&format!("/api/v1/sessions/{session}"))
        .await
        .assert_status(200)
        .clone();
    let reopening = &view["reopenings"][0];

    let before = footprint(&app).await;
    let all = app
        .get(&format!("/api/v1/sessions/{session}/changes"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(all["session_id"], session);
    assert_eq!(all["next_offset"], Value::Null);
    let items = &all["items"];
    assert_eq!(
        kinds(items),
        ["correction", "undo", "ruling", "ruling_answer", "close", "reopen"]
    );
    let times: Vec<&str> = items
        .as_array()
        .expect("items")
        .iter()
        .map(|c| c["at"].as_str().expect("at"))
        .collect();
    let mut sorted: Vec<chrono::DateTime<chrono::Utc>> = times.iter().map(|t| t.parse().expect("a time")).collect();
    let as_listed = sorted.clone();
    sorted.sort();
    assert_eq!(as_listed, sorted, "in time order");

    // The correction: the deal's moves and line before and after, nothing booked (a points
    // game books no chips).
    let correction = &items[0];
    assert_eq!(correction["table_id"], first);
    assert_eq!(correction["deal"], 1);
    assert_eq!(correction["seq"], 4);
    assert_eq!(correction["by"], organiser.as_str());
    assert_eq!(correction["by_name"], "organiser");
    assert_eq!(correction["reason"], "Ann took the trick, not Bob");
    assert_eq!(correction["summary"], "corrected deal 1");
    let diff = &correction["diff"];
    assert_eq!(diff["moves_before"].as_array().map(Vec::len), Some(1));
    assert_eq!(diff["moves_before"][0]["seq"], 1);
    assert_eq!(diff["moves_before"][0]["kind"], "result");
    assert_eq!(diff["moves_before"][0]["move"], whist([0, 1, 0, 0], [0, 1, 0, 0]));
    assert_eq!(diff["moves_after"], json!([whist([1, 0, 0, 0], [1, 0, 0, 0])]));
    assert_eq!(diff["lines_before"].as_array().map(Vec::len), Some(1));
    assert_eq!(diff["lines_before"][0]["deal"], 1);
    assert_eq!(diff["lines_before"][0]["points"], json!([10, 11, 10, 10]));
    assert_eq!(diff["lines_before"][0]["totals"], json!([10, 11, 10, 10]));
    assert_eq!(diff["lines_after"].as_array().map(Vec::len), Some(1));
    assert_eq!(diff["lines_after"][0]["points"], json!([11, 10, 10, 10]));
    assert_eq!(diff["lines_after"][0]["nominations"], json!([1, 0, 0, 0]));
    assert_eq!(diff["bookings"], json!([]));
    // The line after is the deal's line on the score sheet now.
    let sheet = app.scores(&first).await;
    assert_eq!(diff["lines_after"][0], sheet["sheet"]["deals"][0]);

    // The undo: the phone's, naming the move it voided and the deal that move finished.
    let undo = &items[1];
    assert_eq!(undo["table_id"], second);
    assert_eq!(undo["deal"], 1);
    assert_eq!(undo["seq"], 2);
    assert_eq!(undo["by"], format!("scorer:{phone_id}").as_str());
    assert_eq!(undo["by_name"], "Bob's phone");
    assert_eq!(undo["reason"], Value::Null);
    assert_eq!(undo["summary"], "undid move 1 (result) of deal 1");
    assert_eq!(
        undo["diff"],
        json!({"undone": {"seq": 1, "entry": "move", "kind": "result", "move": whist([0, 0, 0, 1], [0, 0, 0, 1])},
               "bookings": []})
    );

    // The ruling, with the diff it was made with; the phone's answer to it.
    let ruled = &items[2];
    assert_eq!(ruled["table_id"], second);
    assert_eq!(ruled["deal"], 1);
    assert_eq!(ruled["seq"], 4);
    assert_eq!(ruled["by"], organiser.as_str());
    assert_eq!(ruled["reason"], "the board was fouled");
    assert_eq!(ruled["summary"], "void ruling of deal 1");
    assert_eq!(ruled["diff"], ruling["diff"]);
    // Bob's 11 for the deal goes: his score 11 before, 0 after.
    assert_eq!(ruled["diff"]["seats"][1]["score_before"], 11);
    assert_eq!(ruled["diff"]["seats"][1]["score_after"], 0);
    let answer = &items[3];
    assert_eq!(answer["table_id"], second);
    assert_eq!(answer["deal"], 1);
    assert_eq!(answer["seq"], 5);
    assert_eq!(answer["by_name"], "Bob's phone");
    assert_eq!(answer["reason"], "Dan had not seen the card");
    assert_eq!(answer["summary"], "appealed ruling 4 of deal 1");
    assert_eq!(
        answer["diff"],
        json!({"ruling": 4, "answer": "appeal", "comment": "Dan had not seen the card"})
    );

    // The close (forced, as the second table had a deal to go; a window of 0: final when made)
    // and the reopening, with their times.
    let close = &items[4];
    assert_eq!(close["table_id"], Value::Null);
    assert_eq!(close["deal"], Value::Null);
    assert_eq!(close["seq"], 1);
    assert_eq!(close["by"], organiser.as_str());
    assert_eq!(close["reason"], "table 2 stopped after a deal");
    assert_eq!(close["summary"], "closed (close 1)");
    assert_eq!(close["at"], reopening["closed_at"]);
    assert_eq!(
        close["diff"],
        json!({"close": 1, "closed_at": reopening["closed_at"], "final_at": reopening["closed_at"]})
    );
    let reopen = &items[5];
    assert_eq!(reopen["seq"], 1);
    assert_eq!(reopen["by"], organiser.as_str());
    assert_eq!(reopen["reason"], "table 2's ruling is appealed");
    assert_eq!(reopen["summary"], "reopened close 1");
    assert_eq!(reopen["at"], reopening["reopened_at"]);
    assert_eq!(
        reopen["diff"],
        json!({"close": 1, "closed_at": reopening["closed_at"], "final_at": reopening["closed_at"],
               "reopened_at": reopening["reopened_at"]})
    );

    // Pages of two: a `Link` to the next while more follow.
    let path = format!("/api/v1/sessions/{session}/changes");
    let page = app.get(&format!("{path}?limit=2")).await;
    assert_eq!(page.assert_status(200)["next_offset"], 2);
    assert_eq!(kinds(&page.body["items"]), ["correction", "undo"]);
    assert_eq!(
        page.headers["link"],
        format!("<{path}?limit=2&offset=2>; rel=\"next\"").as_str()
    );
    let last = app.get(&format!("{path}?limit=2&offset=4")).await;
    assert_eq!(kinds(&last.assert_status(200)["items"]), ["close", "reopen"]);
    assert_eq!(last.body["next_offset"], Value::Null);
    assert!(last.headers.get("link").is_none());

    // The CSV: a header row and a row per change, the same facts.
    let download = app.get(&format!("{path}.csv")).await;
    assert_eq!(download.status.as_u16(), 200);
    assert!(
        download.content_type.starts_with("text/csv"),
        "{}",
        download.content_type
    );
    let mut reader = csv::ReaderBuilder::new().from_reader(download.text.as_bytes());
    let header: Vec<String> = reader.headers().expect("header").iter().map(str::to_owned).collect();
    assert_eq!(
        header,
        ["at", "kind", "table_id", "deal", "seq", "by", "by_name", "reason", "summary", "diff"]
    );
    let rows: Vec<Vec<String>> = reader
        .records()
        .map(|r| r.expect("row").iter().map(str::to_owned).collect())
        .collect();
    assert_eq!(rows.len(), 6);
    for (row, item) in rows.iter().zip(items.as_array().expect("items")) {
        assert_eq!(
            row[0].parse::<chrono::DateTime<chrono::Utc>>().ok(),
            item["at"].as_str().and_then(|t| t.parse().ok())
        );
        assert_eq!(row[1], item["kind"].as_str().expect("kind"));
        assert_eq!(row[2], item["table_id"].as_str().unwrap_or_default());
        assert_eq!(row[3], item["deal"].as_i64().map(|d| d.to_string()).unwrap_or_default());
        assert_eq!(row[4], item["seq"].to_string());
        assert_eq!(row[5], item["by"].as_str().expect("by"));
        assert_eq!(row[6], item["by_name"].as_str().expect("by name"));
        assert_eq!(row[7], item["reason"].as_str().unwrap_or_default());
        assert_eq!(row[8], item["summary"].as_str().expect("summary"));
        assert_eq!(serde_json::from_str::<Value>(&row[9]).expect("diff"), item["diff"]);
    }
    assert_eq!(
        rows[0][1..9],
        [
            "correction".to_owned(),
            first.clone(),
            "1".into(),
            "4".into(),
            organiser.clone(),
            "organiser".into(),
            "Ann took the trick, not Bob".into(),
            "corrected deal 1".into()
        ]
    );
    // By `Accept`, the page asked for, as CSV, with the same `Link`.
    let auth = format!("Bearer {token}");
    let by_accept = app
        .send(
            reqwest::Method::GET,
            &format!("{path}?limit=2"),
            None,
            None,
            &[("Authorization", auth.as_str()), ("Accept", "text/csv")],
        )
        .await;
    assert_eq!(by_accept.status.as_u16(), 200);
    assert!(by_accept.content_type.starts_with("text/csv"));
    assert_eq!(by_accept.text.lines().count(), 3, "{}", by_accept.text);
    assert_eq!(
        by_accept.headers["link"],
        format!("<{path}?limit=2&offset=2>; rel=\"next\"").as_str()
    );

    // Reading changed nothing.
    assert_eq!(footprint(&app).await, before);
}

#[sqlx::test(migrations = "./migrations")]
async fn only_those_who_read_the_session_read_its_changes_and_bad_pages_are_refused(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Thursday").await;
    let own = table(&app, &token, &session, 1).await;
    let (own_phone, _) = scorer(&app, &token, &own, "Ann's phone").await;
    let path = format!("/api/v1/sessions/{session}/changes");
    app.get_as(&path, &token).await.assert_status(200);

    // Another club's organiser and its phone; even a phone of the session's own table.
    let stranger = app.organiser("zed@other.example").await;
    let theirs = app.session(&stranger, "Elsewhere").await;
    let their_table = table(&app, &stranger, &theirs, 1).await;
    let (their_phone, _) = scorer(&app, &stranger, &their_table, "Zed's phone").await;
    for who in [&stranger, &their_phone, &own_phone] {
        app.get_as(&path, who).await.assert_problem(404, "session_not_found");
        app.get_as(&format!("{path}.csv"), who)
            .await
            .assert_problem(404, "session_not_found");
    }
    app.get_anonymous(&path).await.assert_problem(401, "missing_token");

    // A session that does not exist; pages out of bounds; an unknown parameter.
    let none = uuid::Uuid::new_v4();
    app.get_as(&format!("/api/v1/sessions/{none}/changes"), &token)
        .await
        .assert_problem(404, "session_not_found");
    for query in ["limit=0", "limit=501", "limit=two", "offset=x", "deal=1"] {
        app.get_as(&format!("{path}?{query}"), &token)
            .await
            .assert_problem(400, "invalid_query");
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn an_undone_move_in_the_middle_of_a_deal_names_the_deal_in_play(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Thursday").await;
    let t = table(&app, &token, &session, 3).await;
    // Deal 1 as a result; deal 2 begins card by card with Cat's nomination, which is undone.
    accept(&app, &t, &token, whist([0, 1, 0, 0], [0, 1, 0, 0])).await;
    accept(&app, &t, &token, json!({"kind": "nominate", "seat": 2, "tricks": 0})).await;
    app.post(&format!("/api/v1/tables/{t}/undo"), &token, json!({}))
        .await
        .assert_status(200);
    let changes = app
        .get(&format!("/api/v1/sessions/{session}/changes"))
        .await
        .assert_status(200)
        .clone();
    let items = changes["items"].as_array().expect("items");
    assert_eq!(items.len(), 1, "{changes}");
    assert_eq!(items[0]["kind"], "undo");
    assert_eq!(
        items[0]["deal"], 2,
        "the deal the undone nomination was made in: {changes}"
    );
    assert_eq!(items[0]["diff"]["undone"]["kind"], "nominate", "{changes}");
}
