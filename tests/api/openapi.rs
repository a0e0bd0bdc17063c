use serde_json::Value;
use sqlx::PgPool;

use crate::helpers::spawn_app;

const COMMITTED: &str = include_str!("../../openapi/openapi.json");

/// Fails when the code's spec and the committed file drift. To update the file:
/// `cargo run --bin tablekeeper -- openapi > openapi/openapi.json`.
#[test]
fn the_committed_spec_matches_the_code() {
    let generated = tablekeeper::api::openapi::spec_json();
    if generated != COMMITTED {
        if std::env::var_os("UPDATE_OPENAPI").is_some() {
            std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json"), &generated).expect("write");
        }
        panic!(
            "openapi/openapi.json is out of date: run `cargo run --bin tablekeeper -- openapi > openapi/openapi.json` \
             (or rerun this test with UPDATE_OPENAPI=1) and commit it"
        );
    }
}

/// Every `$ref` names a schema the spec holds: a dangling one makes client generators drop the
/// operation that uses it.
#[test]
fn every_reference_resolves() {
    fn refs<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(r)) = map.get("$ref") {
                    out.push(r);
                }
                map.values().for_each(|v| refs(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }
    let spec: Value = serde_json::from_str(COMMITTED).expect("json");
    let mut found = Vec::new();
    refs(&spec, &mut found);
    assert!(found.len() > 100, "the spec uses references");
    let dangling: Vec<&str> = found
        .into_iter()
        .filter(|r| spec.pointer(r.trim_start_matches('#')).is_none())
        .collect();
    assert!(dangling.is_empty(), "references to nothing: {dangling:?}");
}

#[test]
fn the_spec_is_openapi_3_1_with_every_endpoint_and_the_bearer_scheme() {
    let spec: Value = serde_json::from_str(COMMITTED).expect("json");
    assert!(spec["openapi"].as_str().expect("version").starts_with("3.1"));
    assert_eq!(spec["components"]["securitySchemes"]["bearer"]["scheme"], "bearer");
    let paths = spec["paths"].as_object().expect("paths");
    for (path, method) in [
        ("/api/v1/auth/register", "post"),
        ("/api/v1/auth/login", "post"),
        ("/api/v1/auth/join", "post"),
        ("/api/v1/games", "get"),
        ("/api/v1/sessions", "post"),
        ("/api/v1/sessions", "get"),
        ("/api/v1/sessions/{id}", "get"),
        ("/api/v1/tables", "post"),
        ("/api/v1/tables", "get"),
        ("/api/v1/tables/{id}", "get"),
        ("/api/v1/tables/{id}/moves", "post"),
        ("/api/v1/tables/{id}/moves", "get"),
        ("/api/v1/tables/{id}/undo", "post"),
        ("/api/v1/tables/{id}/scores", "get"),
        ("/api/v1/tables/{id}/join-codes", "post"),
        ("/api/v1/tables/{id}/ledger", "get"),
        ("/api/v1/tables/{id}/audit", "get"),
        ("/api/v1/healthz", "get"),
        ("/api/v1/readyz", "get"),
    ] {
        let operation = &paths.get(path).unwrap_or_else(|| panic!("{path} missing"))[method];
        assert!(operation.is_object(), "{method} {path} missing");
        assert!(
            operation["operationId"].is_string(),
            "{method} {path} has no operation id"
        );
        assert!(!operation["responses"].as_object().expect("responses").is_empty());
    }
    let writes = [
        ("/api/v1/tables", "post"),
        ("/api/v1/tables/{id}/moves", "post"),
        ("/api/v1/sessions", "post"),
    ];
    for (path, method) in writes {
        assert!(
            paths[path][method]["security"].to_string().contains("bearer"),
            "{method} {path} declares no bearer"
        );
    }
    let schemas = spec["components"]["schemas"].as_object().expect("schemas");
    for schema in [
        "Problem",
        "NominationWhistMove",
        "NominationWhistView",
        "Card",
        "SubmitMove",
    ] {
        assert!(schemas.contains_key(schema), "{schema} missing");
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn the_server_serves_the_committed_spec_and_a_docs_page(pool: PgPool) {
    let app = spawn_app(pool).await;
    let served = app.get("/api/v1/openapi.json").await.assert_status(200).clone();
    let committed: Value = serde_json::from_str(COMMITTED).expect("json");
    assert_eq!(served, committed);
    let docs = app
        .client
        .get(format!("{}/docs/", app.base))
        .send()
        .await
        .expect("docs");
    assert_eq!(docs.status(), 200);
    assert!(docs.text().await.expect("html").contains("swagger"));
}

#[test]
fn the_move_endpoint_documents_every_rule_violation_code() {
    let spec: Value = serde_json::from_str(COMMITTED).expect("json");
    let description = spec["paths"]["/api/v1/tables/{id}/moves"]["post"]["responses"]["422"]["description"]
        .as_str()
        .expect("422 description");
    for code in tablekeeper::rules::RuleViolation::CODES {
        assert!(description.contains(&format!("`{code}`")), "{code} is not documented");
    }
}

/// A log entry's `move` is a move of the table's game or, for a correction entry, that game's
/// correction (or for a ruling entry, a ruling with that game's moves, or an answer to one):
/// every game's record says so, and a real correction entry has exactly the shape its schema
/// gives.
#[sqlx::test(migrations = "./migrations")]
async fn a_correction_entrys_move_is_described_by_its_games_correction_schema(pool: PgPool) {
    let spec: Value = serde_json::from_str(COMMITTED).expect("json");
    let schemas = &spec["components"]["schemas"];
    let games: Vec<&str> = schemas["GameId"]["enum"]
        .as_array()
        .expect("games")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for game in &games {
        let name: String = game.split('-').map(|w| w[..1].to_uppercase() + &w[1..]).collect();
        let members = &schemas[format!("{name}MoveRecord")]["properties"]["move"]["oneOf"];
        assert_eq!(
            members,
            &serde_json::json!([
                {"$ref": format!("#/components/schemas/{name}Move")},
                {"$ref": format!("#/components/schemas/{name}CorrectionMove")},
                {"$ref": format!("#/components/schemas/{name}RulingEntry")},
                {"$ref": "#/components/schemas/RulingAnswerEntry"},
            ]),
            "{game}"
        );
        assert_eq!(
            schemas[format!("{name}CorrectionMove")]["properties"]["moves"]["items"]["$ref"],
            format!("#/components/schemas/{name}Move"),
            "{game}"
        );
    }

    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let table = app
        .game_table(&token, "tridge", &["Ann", "Bob", "Cat"], serde_json::json!({}))
        .await;
    let draw = serde_json::json!({"kind": "result", "player": 1, "contract": {"contract": "play", "trumps": "hearts"},
                                  "honours": 0, "tricks": [3, 3, 3]});
    crate::helpers::accept(&app, &table, &token, draw.clone()).await;
    crate::helpers::accept(&app, &table, &token, draw.clone()).await;
    app.request(
        reqwest::Method::PUT,
        &format!("/api/v1/tables/{table}/deals/1"),
        Some(&token),
        Some(serde_json::json!({"moves": [draw], "expected_version": 2, "reason": "the same, for the record"})),
    )
    .await
    .assert_status(200);
    let log = app.log(&table).await;
    let correction = log
        .as_array()
        .expect("log")
        .iter()
        .find(|e| e["entry"] == "correction")
        .expect("a correction entry");
    let schema = &schemas["TridgeCorrectionMove"];
    let mut sent: Vec<&str> = correction["move"]
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    sent.sort_unstable();
    let mut described: Vec<&str> = schema["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .map(String::as_str)
        .collect();
    described.sort_unstable();
    assert_eq!(sent, described);
    for required in schema["required"].as_array().expect("required") {
        assert!(correction["move"].get(required.as_str().expect("name")).is_some());
    }
    let kind = correction["move"]["moves"][0]["kind"].as_str().expect("kind");
    let tridge_kinds: Vec<&Value> = schemas["TridgeMove"]["oneOf"]
        .as_array()
        .expect("one of")
        .iter()
        .map(|m| {
            let name = m["$ref"]
                .as_str()
                .expect("a named member")
                .trim_start_matches("#/components/schemas/");
            &schemas[name]["properties"]["kind"]["enum"][0]
        })
        .collect();
    assert!(tridge_kinds.contains(&&Value::from(kind)));
}
