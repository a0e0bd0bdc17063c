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
    assert!(schemas["TridgeMove"]["discriminator"]["mapping"].get(kind).is_some());
}

fn schema_named<'a>(schemas: &'a Value, reference: &Value) -> (&'a str, &'a Value) {
    let name = reference
        .as_str()
        .expect("a reference")
        .trim_start_matches("#/components/schemas/");
    let (name, schema) = schemas
        .as_object()
        .expect("schemas")
        .get_key_value(name)
        .expect("a schema of that name");
    (name.as_str(), schema)
}

/// The property `tag` of `member`, itself or in one of its `allOf` parts.
fn tag_property<'a>(member: &'a Value, tag: &str) -> Option<&'a Value> {
    member.pointer(&format!("/properties/{tag}")).or_else(|| {
        member["allOf"]
            .as_array()?
            .iter()
            .find_map(|part| part.pointer(&format!("/properties/{tag}")))
    })
}

/// Every union whose members each pin one property to a value of their own carries a
/// `discriminator` with a mapping of every value to its member (issue #45), and each member
/// pins its value by a pattern too, which openapi-generator's `go` client checks (`contract`).
#[test]
fn every_tagged_union_is_discriminated_with_a_mapping() {
    let spec: Value = serde_json::from_str(COMMITTED).expect("json");
    let schemas = &spec["components"]["schemas"];
    let mut discriminated = 0;
    for (name, union) in schemas.as_object().expect("schemas") {
        let Some(members) = union["oneOf"].as_array() else {
            continue;
        };
        if members.iter().any(|m| m.get("$ref").is_none()) {
            continue;
        }
        let members: Vec<(&str, &Value)> = members.iter().map(|m| schema_named(schemas, &m["$ref"])).collect();
        let Some(tag) = union.pointer("/discriminator/propertyName").and_then(Value::as_str) else {
            // Then no property is pinned to a value of its own in every member.
            for tag in ["kind", "game", "entry", "type"] {
                let values: Vec<&Value> = members
                    .iter()
                    .filter_map(|(_, m)| tag_property(m, tag))
                    .filter_map(|p| p["enum"].as_array().filter(|e| e.len() == 1).map(|e| &e[0]))
                    .collect();
                let distinct: std::collections::BTreeSet<String> = values.iter().map(ToString::to_string).collect();
                assert!(
                    values.len() < members.len() || distinct.len() < values.len(),
                    "{name}: tagged by `{tag}` without a discriminator"
                );
            }
            continue;
        };
        discriminated += 1;
        let mapping = union["discriminator"]["mapping"].as_object().expect("a mapping");
        assert_eq!(mapping.len(), members.len(), "{name}: a value per member");
        for (value, target) in mapping {
            let (member, schema) = schema_named(schemas, target);
            assert!(
                members.iter().any(|(m, _)| *m == member),
                "{name}: {member} is a member"
            );
            let property = tag_property(schema, tag).expect("the tag");
            assert_eq!(property["enum"], serde_json::json!([value]), "{member}.{tag}");
            assert_eq!(property["pattern"], format!("^{value}$"), "{member}.{tag}");
        }
    }
    assert!(discriminated > 30, "{discriminated} discriminated unions");
}

/// Every named enum names its values `<Enum><Value>` (`x-enum-varnames`), and no name is used
/// twice in the spec: openapi-generator's `go` client puts every enum's values in one package
/// (`contract`).
#[test]
fn every_named_enum_names_its_values_after_itself() {
    let spec: Value = serde_json::from_str(COMMITTED).expect("json");
    let mut seen = std::collections::BTreeSet::new();
    let mut enums = 0;
    for (name, schema) in spec["components"]["schemas"].as_object().expect("schemas") {
        let Some(values) = schema["enum"].as_array() else {
            continue;
        };
        enums += 1;
        let names = schema["x-enum-varnames"].as_array().expect("x-enum-varnames");
        assert_eq!(names.len(), values.len(), "{name}");
        for var in names {
            let var = var.as_str().expect("a name");
            assert!(var.starts_with(name.as_str()), "{name}: {var}");
            assert!(var.chars().all(|c| c.is_ascii_alphanumeric()), "{name}: {var}");
            assert!(seen.insert(var.to_owned()), "{var} twice");
        }
    }
    assert!(enums > 20, "{enums} named enums");
    let phase = &spec["components"]["schemas"]["DividendPhase"];
    assert_eq!(
        phase["x-enum-varnames"],
        serde_json::json!(["DividendPhasePlaying", "DividendPhaseFinished"])
    );
}

/// No schema is named `New<X>` beside a schema `<X>`: openapi-generator's `go` client makes a
/// constructor `New<X>()` for every model, which the model `New<X>` would declare twice
/// (`NewPhoneKey` beside `PhoneKey` failed the Go client's build).
#[test]
fn no_schema_is_named_after_another_s_go_constructor() {
    let spec: Value = serde_json::from_str(COMMITTED).expect("json");
    let schemas = spec["components"]["schemas"].as_object().expect("schemas");
    let clashes: Vec<&String> = schemas
        .keys()
        .filter(|name| name.strip_prefix("New").is_some_and(|rest| schemas.contains_key(rest)))
        .collect();
    assert!(clashes.is_empty(), "a Go constructor declared twice: {clashes:?}");
    assert!(schemas.contains_key("PhoneKey") && !schemas.contains_key("NewPhoneKey"));
}

/// No nullable string carries a `pattern`, itself or through the string it may be: the `go`
/// client's validator cannot read one on a nullable field (`contract`).
#[test]
fn no_nullable_string_carries_a_pattern() {
    fn walk(value: &Value, schemas: &Value, at: &str, found: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                let nullable_string = map.get("type").and_then(Value::as_array).is_some_and(|types| {
                    types.contains(&Value::from("null")) && types.contains(&Value::from("string"))
                });
                if nullable_string && map.contains_key("pattern") {
                    found.push(at.to_owned());
                }
                for union in ["oneOf", "anyOf"] {
                    let Some(members) = map.get(union).and_then(Value::as_array) else {
                        continue;
                    };
                    if !members.iter().any(|m| m["type"] == "null") {
                        continue;
                    }
                    for member in members {
                        let member = match member.get("$ref") {
                            Some(reference) => schema_named(schemas, reference).1,
                            None => member,
                        };
                        if member.get("pattern").is_some() {
                            found.push(at.to_owned());
                        }
                    }
                }
                for (key, v) in map {
                    walk(v, schemas, &format!("{at}/{key}"), found);
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    walk(v, schemas, &format!("{at}/{i}"), found);
                }
            }
            _ => {}
        }
    }
    let spec: Value = serde_json::from_str(COMMITTED).expect("json");
    let mut found = Vec::new();
    walk(&spec, &spec["components"]["schemas"], "", &mut found);
    assert!(found.is_empty(), "nullable strings with a pattern: {found:?}");
    // A card that may be missing is still described as a card.
    let turn_up = &spec["components"]["schemas"]["NominationWhistView"]["properties"]["turn_up"];
    assert!(turn_up.to_string().contains("A card of the 52-card pack"), "{turn_up}");
}
