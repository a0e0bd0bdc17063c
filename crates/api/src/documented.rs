//! What every operation's documentation says that no handler writes out by hand, applied to the
//! finished spec so that an operation added later gets it too:
//!
//! - a public operation declares `security: []` (utoipa writes `[{}]`, "optionally anonymous");
//! - an operation whose doc comment is one paragraph gets its first sentence as the summary and
//!   the paragraph as the description;
//! - the response headers the middleware sends: `X-Request-Id` on every answer
//!   (`middleware::request_context`), `RateLimit-Policy` and `RateLimit` on every answer of an operation that can
//!   answer 429 `too_many_requests` (`limits::rate_limit_headers`), `Retry-After` on 429 and 503 (`ApiError`),
//!   `Content-Disposition` on every CSV answer (`export::respond`) and `Link` on every page of a
//!   list (a 200 whose body has `next_offset` or `next_after`, `input::page`), and a 304 the
//!   `ETag` its 200 documents (`conditional::respond`);
//! - a success answer without an example gets one made from its schema: the examples its
//!   properties give, the first member of a union, the first value of an enum, the least a
//!   number may be (`tests/api/spec_validation.rs` checks every example fits its schema);
//! - a CSV answer (and a PDF one) is a file (`type: string, format: binary`): generators hand back its bytes or
//!   the response itself (openapi-generator's `rust` client reads only JSON and `text/plain` into a
//!   `String`, and fails on `text/csv`);
//! - a `oneOf` of one schema (utoipa's way of describing a `$ref`) becomes the `$ref` itself;
//! - schemas no operation reaches are dropped.
//!
//! `tests/api/spec_validation.rs` checks that every one of these headers the server sends is
//! documented for that answer, and `scripts/lint-openapi` that every operation has them.
//!
//! The unions' `discriminator`s (`contract`) are left as they are, for the generators that pick a
//! member by its tag. openapi-generator's `rust` client (7.26) is given a copy of the spec without
//! them by `scripts/clients`: it turns a discriminator into serde's internal tag while each
//! member's struct declares the property too, so every body it sent would carry the tag twice
//! (`duplicate field`) and none it received could be read (`missing field`).

use std::collections::BTreeSet;

use serde_json::{json, Map, Value};

const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

/// Runs every pass over the spec's JSON.
pub fn apply(spec: &mut Value) {
    header_components(spec);
    let pages = page_schemas(spec);
    if let Some(paths) = spec.get_mut("paths").and_then(Value::as_object_mut) {
        for item in paths.values_mut() {
            for method in METHODS {
                if let Some(operation) = item.get_mut(method).and_then(Value::as_object_mut) {
                    public_security(operation);
                    describe(operation);
                    response_headers(operation, &pages);
                }
            }
        }
    }
    one_member_one_ofs(spec);
    drop_unreached_schemas(spec);
    answer_examples(spec);
}

/// Gives every success answer's JSON an example when neither it nor its schema has one.
fn answer_examples(spec: &mut Value) {
    let schemas = spec.pointer("/components/schemas").cloned().unwrap_or_default();
    let Some(paths) = spec.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for item in paths.values_mut() {
        for method in METHODS {
            let Some(responses) = item
                .pointer_mut(&format!("/{method}/responses"))
                .and_then(Value::as_object_mut)
            else {
                continue;
            };
            for (status, response) in responses.iter_mut() {
                if !status.starts_with('2') {
                    continue;
                }
                let Some(media) = response
                    .pointer_mut("/content/application~1json")
                    .and_then(Value::as_object_mut)
                else {
                    continue;
                };
                if media.contains_key("example") || media.contains_key("examples") {
                    continue;
                }
                if let Some(example) = media.get("schema").and_then(|s| example_of(s, &schemas, 0)) {
                    media.insert("example".into(), example);
                }
            }
        }
    }
}

/// An instance of `schema` made of the examples it and its parts give (see the module's doc);
/// None when a part has neither an example nor a type to make one of.
fn example_of(schema: &Value, schemas: &Value, depth: usize) -> Option<Value> {
    if depth > 12 {
        return None;
    }
    let schema = schema.as_object()?;
    if let Some(example) = schema.get("example") {
        return Some(example.clone());
    }
    if let Some(first) = schema.get("examples").and_then(Value::as_array).and_then(|e| e.first()) {
        return Some(first.clone());
    }
    if let Some(value) = schema.get("const") {
        return Some(value.clone());
    }
    if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|e| e.first()) {
        return Some(first.clone());
    }
    if let Some(name) = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/components/schemas/"))
    {
        return example_of(schemas.get(name)?, schemas, depth + 1);
    }
    for union in ["oneOf", "anyOf"] {
        if let Some(members) = schema.get(union).and_then(Value::as_array) {
            return members.iter().find_map(|m| example_of(m, schemas, depth + 1));
        }
    }
    if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
        let mut merged = Map::new();
        for part in parts {
            match example_of(part, schemas, depth + 1)? {
                Value::Object(fields) => merged.extend(fields),
                _ => return None,
            }
        }
        return Some(Value::Object(merged));
    }
    let kind = match schema.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null")
            .unwrap_or("null"),
        _ if schema.contains_key("properties") => "object",
        _ => return None,
    };
    let bound = |key: &str| schema.get(key).and_then(Value::as_i64);
    Some(match kind {
        "null" => Value::Null,
        "boolean" => Value::Bool(false),
        "integer" | "number" => json!(bound("minimum")
            .unwrap_or(0)
            .max(0)
            .min(bound("maximum").unwrap_or(i64::MAX))),
        "string" if schema.contains_key("pattern") => return None,
        "string" => match schema.get("format").and_then(Value::as_str) {
            Some("uuid") => json!("0b6f4a2e-2d6f-4f0e-9f57-3c1f7f2d9a11"),
            Some("date-time") => json!("2026-11-27T20:15:00Z"),
            Some("date") => json!("2026-11-27"),
            _ => json!("x".repeat(usize::try_from(bound("minLength").unwrap_or(1).max(1)).unwrap_or(1))),
        },
        "array" => {
            let least = usize::try_from(bound("minItems").unwrap_or(0)).unwrap_or(0);
            if least == 0 && bound("maxItems") == Some(0) {
                json!([])
            } else {
                let item = example_of(schema.get("items")?, schemas, depth + 1)?;
                Value::Array(vec![item; least.max(1)])
            }
        }
        "object" => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let required = schema.get("required").and_then(Value::as_array);
            let mut object = Map::new();
            for name in required.into_iter().flatten().filter_map(Value::as_str) {
                let property = properties.and_then(|p| p.get(name))?;
                object.insert(name.to_owned(), example_of(property, schemas, depth + 1)?);
            }
            Value::Object(object)
        }
        _ => return None,
    })
}

fn header(description: &str, schema: Value) -> Value {
    json!({ "description": description, "schema": schema })
}

fn header_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/headers/{name}") })
}

fn header_components(spec: &mut Value) {
    let Some(components) = spec.get_mut("components").and_then(Value::as_object_mut) else {
        return;
    };
    let headers = components.entry("headers").or_insert_with(|| json!({})).as_object_mut();
    let Some(headers) = headers else { return };
    let integer = json!({ "type": "integer", "minimum": 0 });
    for (name, value) in [
        (
            "X-Request-Id",
            header(
                "The request's id: the client's own `X-Request-Id` when it is 1 to 200 visible ASCII \
                 characters, a UUID made by the server otherwise; the server's log line of the request \
                 carries it too.",
                json!({ "type": "string", "example": "0b6f4a2e-2d6f-4f0e-9f57-3c1f7f2d9a11" }),
            ),
        ),
        (
            "RateLimit-Policy",
            header(
                "The client address's quota (draft-ietf-httpapi-ratelimit-headers-10, a structured \
                 list): the policy's name, `q` the quota and `w` its window in seconds (`auth`: \
                 attempts at a password or a join code), or `qu=\"concurrent-requests\"` for a \
                 cap on what is held at once (`in_flight`: requests, `streams`: live streams).",
                json!({ "type": "string", "example": "\"auth\";q=10;w=60" }),
            ),
        ),
        (
            "RateLimit",
            header(
                "Where the client's address stands (draft-ietf-httpapi-ratelimit-headers-10): the \
                 policy's name, `r` what is left of the quota and `t` the seconds until it is whole \
                 again (left out for a cap on what is held at once).",
                json!({ "type": "string", "example": "\"auth\";r=9;t=6" }),
            ),
        ),
        (
            "Retry-After",
            header("Seconds to wait before retrying.", integer.clone()),
        ),
        (
            "Content-Disposition",
            header(
                "`attachment` with the download's file name.",
                json!({ "type": "string", "example": "attachment; filename=\"table-0b6f4a2e-2d6f-4f0e-9f57-3c1f7f2d9a11-scores.csv\"" }),
            ),
        ),
        (
            "Link",
            header(
                "RFC 8288: `<…>; rel=\"next\"`, the next page (this request with `offset` or `after` \
                 moved on); absent on the last page.",
                json!({ "type": "string", "example": "</api/v1/tables?limit=100&offset=100>; rel=\"next\"" }),
            ),
        ),
    ] {
        headers.insert(name.to_owned(), value);
    }
}

fn public_security(operation: &mut Map<String, Value>) {
    if operation.get("security") == Some(&json!([{}])) {
        operation.insert("security".into(), json!([]));
    }
}

/// The end of the first sentence of `text`: a `.` followed by a space or the end, outside
/// backticks and brackets.
fn first_sentence(text: &str) -> &str {
    let mut depth = 0i32;
    let mut quoted = false;
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'`' => quoted = !quoted,
            b'(' | b'[' if !quoted => depth += 1,
            b')' | b']' if !quoted => depth -= 1,
            b'.' if !quoted && depth <= 0 && bytes.get(i + 1).is_none_or(u8::is_ascii_whitespace) => {
                return &text[..=i];
            }
            _ => {}
        }
    }
    text
}

fn describe(operation: &mut Map<String, Value>) {
    let has_description = operation
        .get("description")
        .and_then(Value::as_str)
        .is_some_and(|d| !d.trim().is_empty());
    if has_description {
        return;
    }
    let Some(summary) = operation.get("summary").and_then(Value::as_str) else {
        return;
    };
    let paragraph = summary.split_whitespace().collect::<Vec<_>>().join(" ");
    let short = first_sentence(&paragraph).to_owned();
    operation.insert("summary".into(), Value::String(short));
    operation.insert("description".into(), Value::String(paragraph));
}

/// The schemas of a page of a list: those with a `next_offset` or `next_after` property.
fn page_schemas(spec: &Value) -> BTreeSet<String> {
    let Some(schemas) = spec.pointer("/components/schemas").and_then(Value::as_object) else {
        return BTreeSet::new();
    };
    schemas
        .iter()
        .filter(|(_, schema)| {
            ["next_offset", "next_after"]
                .iter()
                .any(|p| schema.pointer(&format!("/properties/{p}")).is_some())
        })
        .map(|(name, _)| format!("#/components/schemas/{name}"))
        .collect()
}

/// Whether a response's JSON body is a page of a list.
fn is_page(response: &Map<String, Value>, pages: &BTreeSet<String>) -> bool {
    response
        .get("content")
        .and_then(|c| c.pointer("/application~1json/schema/$ref"))
        .and_then(Value::as_str)
        .is_some_and(|r| pages.contains(r))
}

fn response_headers(operation: &mut Map<String, Value>, pages: &BTreeSet<String>) {
    let Some(responses) = operation.get_mut("responses").and_then(Value::as_object_mut) else {
        return;
    };
    // The rate limiter's 429 (`limits`) comes with `RateLimit-*` on every answer; a live stream's
    // `too_many_streams` (a cap on streams held at once) on its refusal.
    let limited = responses.get("429").is_some_and(|r| {
        r.get("description")
            .and_then(Value::as_str)
            .is_some_and(|d| d.contains("too_many_requests"))
    });
    let capped = responses.get("429").is_some_and(|r| {
        r.get("description")
            .and_then(Value::as_str)
            .is_some_and(|d| d.contains("too_many_streams"))
    });
    // A 304 names the `ETag` the client holds, as the 200 does.
    let etag = responses.get("200").and_then(|r| r.pointer("/headers/ETag")).cloned();
    for (status, response) in responses.iter_mut() {
        let Some(response) = response.as_object_mut() else {
            continue;
        };
        let paged = status == "200" && is_page(response, pages);
        let csv = match response.get_mut("content").and_then(|c| c.get_mut("text/csv")) {
            Some(content) => {
                content["schema"] = json!({ "type": "string", "format": "binary" });
                true
            }
            None => false,
        };
        // A printed sheet is a file too.
        if let Some(content) = response.get_mut("content").and_then(|c| c.get_mut("application/pdf")) {
            content["schema"] = json!({ "type": "string", "format": "binary" });
        }
        let Some(headers) = response.entry("headers").or_insert_with(|| json!({})).as_object_mut() else {
            continue;
        };
        let mut names = vec!["X-Request-Id"];
        if limited || (capped && status == "429") {
            names.extend(["RateLimit-Policy", "RateLimit"]);
        }
        if status == "429" || status == "503" {
            names.push("Retry-After");
        }
        if csv {
            names.push("Content-Disposition");
        }
        if paged {
            names.push("Link");
        }
        for name in names {
            headers.insert(name.to_owned(), header_ref(name));
        }
        if let (Some(etag), "304") = (&etag, status.as_str()) {
            headers.insert("ETag".into(), etag.clone());
        }
    }
}

/// `{"oneOf": [{"$ref": …, "description": …}], "description": …}` → `{"$ref": …, "description": …}`.
fn one_member_one_ofs(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let single = map
                .get("oneOf")
                .and_then(Value::as_array)
                .filter(|members| members.len() == 1)
                .and_then(|members| members[0].as_object())
                .filter(|member| member.contains_key("$ref"))
                .cloned();
            if let Some(member) = single {
                map.remove("oneOf");
                for (key, value) in member {
                    if key == "description" && map.contains_key("description") {
                        let outer = map["description"].as_str().unwrap_or_default().to_owned();
                        let inner = value.as_str().unwrap_or_default();
                        map.insert(key, Value::String(format!("{inner}\n\n{outer}")));
                    } else {
                        map.entry(key).or_insert(value);
                    }
                }
            }
            map.values_mut().for_each(one_member_one_ofs);
        }
        Value::Array(items) => items.iter_mut().for_each(one_member_one_ofs),
        _ => {}
    }
}

fn refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                out.push(name.to_owned());
            }
            map.values().for_each(|v| refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

/// Drops the schemas that nothing outside `components/schemas` reaches (the per-game unions
/// that `contract` replaced by discriminated ones).
fn drop_unreached_schemas(spec: &mut Value) {
    let mut todo = Vec::new();
    if let Some(document) = spec.as_object() {
        for (key, value) in document {
            if key != "components" {
                refs(value, &mut todo);
            }
        }
        if let Some(components) = document.get("components").and_then(Value::as_object) {
            for (key, value) in components {
                if key != "schemas" {
                    refs(value, &mut todo);
                }
            }
        }
    }
    let Some(schemas) = spec.pointer_mut("/components/schemas").and_then(Value::as_object_mut) else {
        return;
    };
    let mut reached = BTreeSet::new();
    while let Some(name) = todo.pop() {
        if reached.insert(name.clone()) {
            if let Some(schema) = schemas.get(&name) {
                refs(schema, &mut todo);
            }
        }
    }
    schemas.retain(|name, _| reached.contains(name));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_sentence_ends_at_a_full_stop_outside_code_and_brackets() {
        assert_eq!(first_sentence("Makes a club. The caller owns it."), "Makes a club.");
        assert_eq!(
            first_sentence("Reads `a. b` (e.g. this). Then."),
            "Reads `a. b` (e.g. this)."
        );
        assert_eq!(first_sentence("No full stop"), "No full stop");
    }
}
