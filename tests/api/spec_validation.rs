//! Every body the tests send and receive, checked against the committed spec under JSON Schema
//! 2020-12, as a validating gateway (Prism, openapi-core) would: `TestApp::send` hands each
//! exchange to `check_exchange`, so the whole suite (every game's moves, events, views, deal
//! views, corrections, problems, sessions, ledgers) is the test. A request is checked when the
//! server accepted it (a test of bad input sends bodies the spec refuses on purpose); an answer is
//! always checked: its status must be documented, and a JSON body must fit the schema documented
//! for that status and media type.
//!
//! The tests below check the checker, and every example the spec gives against its schema.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{accept, spawn_app};
use tablekeeper::rules::games::nomination_whist::{sim, NominationWhist, Options};
use tablekeeper::rules::Game;

/// Bodies checked against a schema so far, by every test of the run.
static CHECKED: AtomicUsize = AtomicUsize::new(0);

const COMMITTED: &str = include_str!("../../openapi/openapi.json");

struct Spec {
    /// The spec with `$schema` set: a JSON Schema document whose `$ref`s into
    /// `#/components/schemas` resolve in place, so any schema in it is validated by pointer.
    document: Value,
    /// Each path template split into segments (`{id}` matches any one segment).
    templates: Vec<(String, Vec<String>)>,
    validators: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| {
        let mut document: Value = serde_json::from_str(COMMITTED).expect("the committed spec is JSON");
        document["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
        let templates = document["paths"]
            .as_object()
            .expect("paths")
            .keys()
            .map(|template| (template.clone(), segments(template)))
            .collect();
        Spec {
            document,
            templates,
            validators: Mutex::new(HashMap::new()),
        }
    })
}

fn segments(path: &str) -> Vec<String> {
    path.split('/').map(str::to_owned).collect()
}

/// A JSON pointer as a URI fragment (RFC 6901 section 6): `{id}` is `%7Bid%7D` there.
fn fragment(pointer: &str) -> String {
    let mut out = String::new();
    for byte in pointer.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/?".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// RFC 6901's escaping of one reference token.
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

impl Spec {
    /// The path template a request path falls under: the one matching with most literal segments
    /// (`/tables/{id}/deals/{n}` over nothing, `/sessions/{id}` under `/sessions/{id}/…` never).
    fn template(&self, path: &str) -> Option<&str> {
        let path = path.split('?').next().unwrap_or(path);
        let wanted = segments(path);
        self.templates
            .iter()
            .filter(|(_, parts)| parts.len() == wanted.len())
            .filter_map(|(template, parts)| {
                let mut literal = 0;
                for (part, seg) in parts.iter().zip(&wanted) {
                    if part.starts_with('{') && part.ends_with('}') {
                        if seg.is_empty() {
                            return None;
                        }
                    } else if part == seg {
                        literal += 1;
                    } else {
                        return None;
                    }
                }
                Some((literal, template.as_str()))
            })
            .max_by_key(|(literal, _)| *literal)
            .map(|(_, template)| template)
    }

    /// Validates `instance` against the schema at `pointer` (a JSON pointer into the spec); the
    /// errors, one line each, or none.
    fn errors(&self, pointer: &str, instance: &Value) -> Vec<String> {
        CHECKED.fetch_add(1, Ordering::Relaxed);
        let cached = self
            .validators
            .lock()
            .expect("the validator cache")
            .get(pointer)
            .cloned();
        let validator = match cached {
            Some(validator) => validator,
            None => {
                let mut root = self.document.clone();
                root["$ref"] = json!(format!("#{}", fragment(pointer)));
                let compiled = jsonschema::draft202012::options()
                    .should_validate_formats(true)
                    .build(&root)
                    .unwrap_or_else(|e| panic!("the schema at {pointer} compiles: {e}"));
                let compiled = Arc::new(compiled);
                self.validators
                    .lock()
                    .expect("the validator cache")
                    .insert(pointer.to_owned(), Arc::clone(&compiled));
                compiled
            }
        };
        validator
            .iter_errors(instance)
            .map(|e| format!("at `{}`: {e}", e.instance_path()))
            .collect()
    }
}

/// The media type without parameters (`application/json; charset=utf-8` → `application/json`).
fn media_type(content_type: &str) -> &str {
    content_type.split(';').next().unwrap_or_default().trim()
}

fn is_json(media: &str) -> bool {
    media == "application/json" || media.ends_with("+json")
}

/// One request and its answer, as the tests' client saw them.
pub struct Exchange<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub request_type: Option<&'a str>,
    pub request: Option<&'a str>,
    pub status: u16,
    pub response_type: &'a str,
    pub response: &'a str,
    /// The names of the answer's headers, lower case.
    pub response_headers: &'a [String],
}

/// Headers the API documents where it sends them; one sent but not documented for that
/// operation and status is a violation.
const DOCUMENTED_HEADERS: [&str; 11] = [
    "x-request-id",
    "www-authenticate",
    "etag",
    "location",
    "idempotent-replayed",
    "ratelimit",
    "ratelimit-policy",
    "retry-after",
    "content-disposition",
    "link",
    "allow",
];

/// What in an exchange does not fit the spec, one line each; nothing for a path the spec does
/// not describe (the page's assets, `/metrics`, `/docs/`, an unknown path).
pub fn violations(exchange: &Exchange<'_>) -> Vec<String> {
    let spec = spec();
    let Some(template) = spec.template(exchange.path) else {
        return Vec::new();
    };
    let method = exchange.method.to_ascii_lowercase();
    let operation = &spec.document["paths"][template][&method];
    if !operation.is_object() {
        return Vec::new();
    }
    let base = format!("/paths/{}/{method}", escape(template));
    let mut found = Vec::new();

    let accepted = (200..300).contains(&exchange.status);
    if let (true, Some(body), Some(sent_type)) = (accepted, exchange.request, exchange.request_type) {
        let media = media_type(sent_type);
        if is_json(media) {
            if let Ok(instance) = serde_json::from_str::<Value>(body) {
                // A body sent to an operation that takes none (`null` to `POST …/join-codes`) is
                // ignored by the server and by gateways alike.
                if operation["requestBody"]["content"][media]["schema"].is_object() {
                    let pointer = format!("{base}/requestBody/content/{}/schema", escape(media));
                    found.extend(
                        spec.errors(&pointer, &instance)
                            .into_iter()
                            .map(|e| format!("request {e}")),
                    );
                } else if operation["requestBody"].is_object() {
                    found.push(format!("request: the operation takes no {media} body"));
                }
            }
        }
    }

    let status = exchange.status.to_string();
    let responses = &operation["responses"];
    let key = if responses.get(&status).is_some() {
        status.clone()
    } else if responses.get("default").is_some() {
        "default".to_owned()
    } else {
        found.push(format!("answer {status} is not documented"));
        return found;
    };
    // A representation the spec does not describe (CSV from a JSON operation's old URL, kept for
    // links made before the CSV operations) is not held to the JSON answer's headers.
    let media = media_type(exchange.response_type);
    let described = media.is_empty() || responses[&key]["content"].get(media).is_some();
    let documented: Vec<String> = responses[&key]["headers"]
        .as_object()
        .map(|h| h.keys().map(|k| k.to_ascii_lowercase()).collect())
        .unwrap_or_default();
    for sent in exchange.response_headers {
        if described && DOCUMENTED_HEADERS.contains(&sent.as_str()) && !documented.contains(sent) {
            found.push(format!(
                "answer {status}: the `{sent}` header is sent but not documented"
            ));
        }
    }
    if exchange.response.is_empty() || !is_json(media) {
        return found;
    }
    let content = &responses[&key]["content"];
    if !content[media]["schema"].is_object() {
        found.push(format!("answer {status}: {media} is not documented for it"));
        return found;
    }
    match serde_json::from_str::<Value>(exchange.response) {
        Ok(instance) => {
            let pointer = format!("{base}/responses/{key}/content/{}/schema", escape(media));
            found.extend(
                spec.errors(&pointer, &instance)
                    .into_iter()
                    .map(|e| format!("answer {status} {e}")),
            );
        }
        Err(e) => found.push(format!("answer {status}: {media} that is not JSON ({e})")),
    }
    found
}

/// Panics with every way the exchange departs from the spec.
#[track_caller]
pub fn check_exchange(exchange: &Exchange<'_>) {
    let found = violations(exchange);
    assert!(
        found.is_empty(),
        "{} {} does not fit the committed spec:\n  {}\nrequest: {}\nanswer: {}",
        exchange.method,
        exchange.path,
        found.join("\n  "),
        exchange.request.unwrap_or("(none)"),
        exchange.response.chars().take(2000).collect::<String>(),
    );
}

/// Where the spec gives an example (`example`, `examples`), with the pointer of the schema it is
/// an example of.
fn examples(value: &Value, pointer: &str, in_properties: bool, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map) => {
            if !in_properties {
                // A media type, parameter or header gives examples of its `schema`; a schema of
                // itself.
                let of = if map.contains_key("schema") {
                    format!("{pointer}/schema")
                } else {
                    pointer.to_owned()
                };
                if let Some(example) = map.get("example") {
                    out.push((of.clone(), example.clone()));
                }
                match map.get("examples") {
                    Some(Value::Array(list)) => out.extend(list.iter().map(|e| (of.clone(), e.clone()))),
                    Some(Value::Object(named)) => out.extend(
                        named
                            .values()
                            .filter_map(|e| e.get("value"))
                            .map(|e| (of.clone(), e.clone())),
                    ),
                    _ => {}
                }
            }
            for (key, child) in map {
                if !in_properties && (key == "example" || key == "examples") {
                    continue;
                }
                examples(
                    child,
                    &format!("{pointer}/{}", escape(key)),
                    key == "properties" && !in_properties,
                    out,
                );
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                examples(child, &format!("{pointer}/{index}"), false, out);
            }
        }
        _ => {}
    }
}

/// `SubmitMove`'s own example (a card played) was invalid under `oneOf`; every example must fit.
#[test]
fn every_example_in_the_spec_fits_its_schema() {
    let spec = spec();
    let mut found = Vec::new();
    examples(&spec.document["paths"], "/paths", false, &mut found);
    examples(&spec.document["components"], "/components", false, &mut found);
    assert!(found.len() > 50, "the spec gives examples: {}", found.len());
    assert!(
        found.iter().any(|(at, _)| at == "/components/schemas/SubmitMove"),
        "SubmitMove's example is among them"
    );
    let wrong: Vec<String> = found
        .iter()
        .flat_map(|(at, example)| {
            spec.errors(at, example)
                .into_iter()
                .map(move |e| format!("{at}: {example} {e}"))
        })
        .collect();
    assert!(wrong.is_empty(), "examples that do not fit:\n{}", wrong.join("\n"));
}

/// A card `play` is one object in six games: the move union takes it once (by `kind`, not by
/// game: nothing in the body names the game), and a move no game has is still refused. No union is
/// an `anyOf` (the Rust generator has none), and where a body names its game it is discriminated by
/// it, down to the moves inside (`DealView`).
#[test]
fn a_card_played_fits_the_move_union_once_and_a_move_no_game_has_does_not() {
    let spec = spec();
    let schemas = &spec.document["components"]["schemas"];
    assert!(
        !serde_json::to_string(&spec.document)
            .expect("JSON")
            .contains("\"anyOf\""),
        "no anyOf in the spec"
    );
    for union in [
        "AnyEvent",
        "AnyView",
        "AnyOptions",
        "AnyScoreSheet",
        "AnyCorrectionMove",
    ] {
        assert!(
            schemas.get(union).is_none(),
            "{union} is discriminated by game where it is used"
        );
    }
    assert_eq!(
        schemas["DealView"]["oneOf"][0]["$ref"],
        "#/components/schemas/NominationWhistDealView"
    );
    assert_eq!(
        schemas["NominationWhistDealView"]["properties"]["moves"]["items"]["$ref"],
        "#/components/schemas/NominationWhistDealMove"
    );
    for played in [
        json!({"move": {"kind": "play", "seat": 1, "card": "QS"}, "expected_version": 7}),
        json!({"move": {"kind": "play", "seat": 1, "card": "3BS", "trick": 2}}),
        json!({"move": {"kind": "result", "nominations": [1, 2, 0], "tricks": [1, 2, 4]}}),
        json!({"move": {"kind": "stop"}}),
    ] {
        assert_eq!(
            spec.errors("/components/schemas/SubmitMove", &played),
            Vec::<String>::new(),
            "{played}"
        );
    }
    for wrong in [
        json!({"move": {"kind": "shuffle", "seat": 1}}),
        json!({"move": {"kind": "play", "seat": 1, "card": "Joker"}}),
        json!({"move": {"kind": "play", "card": "QS"}}),
    ] {
        assert!(
            !spec.errors("/components/schemas/SubmitMove", &wrong).is_empty(),
            "{wrong}"
        );
    }
}

/// Whether a schema admits `null` (`"type": [.., "null"]` or a `{"type": "null"}` member).
fn admits_null(schema: &Value) -> bool {
    let typed = schema["type"].as_array().is_some_and(|t| t.iter().any(|k| k == "null"));
    let member = ["oneOf", "anyOf"]
        .iter()
        .filter_map(|k| schema[*k].as_array())
        .flatten()
        .any(|m| m["type"] == "null");
    typed || member
}

/// openapi-generator's `rust` client reads an array of items that may be null as `Vec<T>` and
/// fails on the first null: no array in the spec has such items.
#[test]
fn no_array_in_the_spec_has_items_that_may_be_null() {
    fn walk(node: &Value, at: &str, found: &mut Vec<String>) {
        match node {
            Value::Object(map) => {
                if map.get("items").is_some_and(admits_null) {
                    found.push(at.to_owned());
                }
                for (key, value) in map {
                    walk(value, &format!("{at}/{key}"), found);
                }
            }
            Value::Array(items) => {
                for (i, value) in items.iter().enumerate() {
                    walk(value, &format!("{at}/{i}"), found);
                }
            }
            _ => {}
        }
    }
    let mut found = Vec::new();
    walk(&spec().document, "", &mut found);
    assert!(found.is_empty(), "arrays whose items may be null: {found:?}");
    // The check itself finds one.
    let mut planted = Vec::new();
    walk(
        &json!({"a": {"type": "array", "items": {"type": ["integer", "null"]}}}),
        "",
        &mut planted,
    );
    assert_eq!(planted, ["/a"]);
}

fn exchange<'a>(
    method: &'a str,
    path: &'a str,
    request: Option<&'a str>,
    status: u16,
    response: &'a str,
) -> Exchange<'a> {
    Exchange {
        method,
        path,
        request_type: request.map(|_| "application/json"),
        request,
        status,
        response_type: if status < 400 {
            "application/json"
        } else {
            "application/problem+json"
        },
        response,
        response_headers: &[],
    }
}

/// The check the whole suite goes through finds what a validating gateway would.
#[test]
fn the_check_finds_answers_and_accepted_requests_that_do_not_fit() {
    let table = "/api/v1/tables/6a0d2b1e-6a4b-4a45-9a43-0d3b5f1c9e11";
    let session = r#"{"id": "6a0d2b1e-6a4b-4a45-9a43-0d3b5f1c9e11", "name": "Thursday", "owner_id": "6a0d2b1e-6a4b-4a45-9a43-0d3b5f1c9e12", "club_id": "6a0d2b1e-6a4b-4a45-9a43-0d3b5f1c9e13", "created_at": "2026-11-26T20:00:00Z"}"#;

    let fits = exchange(
        "POST",
        "/api/v1/sessions",
        Some(r#"{"name": "Thursday"}"#),
        201,
        session,
    );
    assert_eq!(violations(&fits), Vec::<String>::new());

    let missing = exchange(
        "GET",
        table,
        None,
        200,
        r#"{"id": "6a0d2b1e-6a4b-4a45-9a43-0d3b5f1c9e11"}"#,
    );
    assert!(
        violations(&missing).iter().any(|v| v.starts_with("answer 200")),
        "{:?}",
        violations(&missing)
    );

    let undocumented = exchange("GET", table, None, 418, "");
    assert_eq!(violations(&undocumented), ["answer 418 is not documented"]);

    let extra = exchange(
        "POST",
        "/api/v1/sessions",
        Some(r#"{"name": "Thursday", "colour": "red"}"#),
        201,
        session,
    );
    assert!(
        violations(&extra).iter().any(|v| v.starts_with("request")),
        "{:?}",
        violations(&extra)
    );

    // A test of bad input sends what the spec refuses, on purpose: the refusal is what is checked.
    let refused = exchange(
        "POST",
        "/api/v1/sessions",
        Some(r#"{"name": 5}"#),
        422,
        r#"{"type": "/problems/invalid_body", "title": "Unprocessable Entity", "status": 422, "detail": "name: not a string", "code": "invalid_body"}"#,
    );
    assert_eq!(violations(&refused), Vec::<String>::new());

    let bad_problem = exchange(
        "POST",
        "/api/v1/sessions",
        Some("{}"),
        422,
        r#"{"code": "no_such_code"}"#,
    );
    assert!(!violations(&bad_problem).is_empty());

    let elsewhere = exchange("GET", "/metrics", None, 200, "{}");
    assert_eq!(violations(&elsewhere), Vec::<String>::new());
}

/// The suite's client checks what it sends and receives: a deal played card by card, its deal
/// view, log, scores and ledger are all checked against the spec on their way.
#[sqlx::test(migrations = "./migrations")]
async fn the_suites_client_checks_every_body_it_sends_and_receives(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let table = app.table(&token, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let mut engine = NominationWhist::new(4, Options::default()).expect("a game");
    let deals = sim::random_game(&mut engine, 26).expect("a simulated game");
    let moves = sim::moves(&deals);
    let before = CHECKED.load(Ordering::Relaxed);

    let mut sent = 0;
    for mv in moves.iter().take(20) {
        accept(&app, &table, &token, serde_json::to_value(mv).expect("json")).await;
        sent += 1;
    }
    for path in [
        format!("/api/v1/tables/{table}/deals/1"),
        format!("/api/v1/tables/{table}"),
        format!("/api/v1/tables/{table}/moves"),
        format!("/api/v1/tables/{table}/scores"),
        format!("/api/v1/tables/{table}/ledger"),
    ] {
        app.get(&path).await.assert_status(200);
        sent += 1;
    }

    // Each accepted move is two bodies (the move and its answer), each read one; other tests
    // running meanwhile only add to the count.
    let checked = CHECKED.load(Ordering::Relaxed) - before;
    assert!(checked >= sent + 20, "{checked} bodies checked for {sent} requests");
}

/// What is wrong with a webhook delivery's body against the spec's `webhooks` entry for its
/// `type` (issue #45): none when it fits.
pub fn webhook_errors(body: &Value) -> Vec<String> {
    let Some(kind) = body["type"].as_str() else {
        return vec!["no `type`".to_owned()];
    };
    if spec().document["webhooks"].get(kind).is_none() {
        return vec![format!("`{kind}` is not in the spec's webhooks")];
    }
    let pointer = format!(
        "/webhooks/{}/post/requestBody/content/application~1json/schema",
        escape(kind)
    );
    spec().errors(&pointer, body)
}
