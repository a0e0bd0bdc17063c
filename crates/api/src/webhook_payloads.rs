//! What each webhook event's body holds, as the spec's OpenAPI 3.1 `webhooks` (issue #45): one
//! entry per event type the service sends, its body `{type, timestamp, data}` with the event's
//! own `data`. The bodies are made in the service (`service::webhooks::event` and its callers);
//! the tests check every body a receiver gets against these schemas, so the two cannot drift.

use serde_json::{json, Map, Value};

fn uuid() -> Value {
    json!({"type": "string", "format": "uuid"})
}

fn nullable_uuid() -> Value {
    json!({"type": ["string", "null"], "format": "uuid"})
}

fn integer() -> Value {
    json!({"type": "integer", "format": "int64"})
}

fn object(description: &str, properties: &[(&str, Value)]) -> Value {
    let required: Vec<&str> = properties.iter().map(|(name, _)| *name).collect();
    let properties: Map<String, Value> = properties.iter().map(|(n, s)| ((*n).to_owned(), s.clone())).collect();
    json!({
        "type": "object",
        "description": description,
        "required": required,
        "properties": properties,
    })
}

/// `(event type, summary, the data's schema)` for every event the service sends.
fn events() -> Vec<(&'static str, &'static str, Value)> {
    let table = |extra: &[(&str, Value)], description: &str| {
        let mut fields = vec![
            ("club_id", uuid()),
            ("session_id", nullable_uuid()),
            ("table_id", uuid()),
            ("game", json!({"type": "string", "example": "nomination-whist"})),
        ];
        fields.extend(extra.iter().cloned());
        object(description, &fields)
    };
    let version = (
        "table_version",
        json!({"type": "integer", "format": "int64", "description": "The table's version after the move that caused the event."}),
    );
    let deal = (
        "deal",
        json!({"type": "integer", "minimum": 1, "description": "The deal, from 1."}),
    );
    let played_deal = (
        "deal",
        json!({"type": ["integer", "null"], "minimum": 1, "description": "The deal the move finished, from 1."}),
    );
    let session = |extra: &[(&str, Value)], description: &str| {
        let mut fields = vec![("club_id", uuid()), ("session_id", uuid())];
        fields.extend(extra.iter().cloned());
        object(description, &fields)
    };
    let time = json!({"type": "string", "format": "date-time"});
    let fraction = object(
        "An exact fraction (shared places split points exactly).",
        &[
            ("numer", integer()),
            ("denom", json!({"type": "integer", "format": "int64", "minimum": 1})),
        ],
    );
    vec![
        (
            "deal.finished",
            "A deal finished at a table",
            table(&[version.clone(), played_deal], "The table and the deal."),
        ),
        (
            "table.finished",
            "A table's game finished",
            table(std::slice::from_ref(&version), "The table."),
        ),
        (
            "session.settled",
            "A session's last unfinished table finished",
            table(&[version], "The table that finished last."),
        ),
        (
            "deal.corrected",
            "A finished deal was corrected",
            table(std::slice::from_ref(&deal), "The table and the deal."),
        ),
        (
            "deal.disputed",
            "A second phone disputed a finished deal",
            table(std::slice::from_ref(&deal), "The table and the deal."),
        ),
        (
            "deal.ruled",
            "A director ruled on a finished deal",
            table(&[deal], "The table and the deal."),
        ),
        (
            "session.closed",
            "A session closed: its correction window runs",
            session(
                &[
                    (
                        "close",
                        json!({"type": "integer", "minimum": 1, "description": "The close's number, from 1."}),
                    ),
                    ("closed_at", time.clone()),
                    ("final_at", time.clone()),
                ],
                "The session and its close.",
            ),
        ),
        (
            "session.final",
            "A session became final: its final checkpoint is signed",
            session(
                &[
                    ("close", json!({"type": "integer", "minimum": 1})),
                    ("final_at", time),
                    (
                        "checkpoint",
                        json!({"type": "string", "pattern": "^[0-9a-f]{64}$", "description": "The final checkpoint's SHA-256, hex (`GET /sessions/{id}/final`)."}),
                    ),
                ],
                "The session and its final checkpoint.",
            ),
        ),
        (
            "tournament.round_started",
            "A tournament's round started: its tables are open",
            session(
                &[
                    ("tournament_id", uuid()),
                    ("round", json!({"type": "integer", "minimum": 1})),
                    (
                        "tables",
                        json!({"type": "array", "items": object("A table of the round.", &[
                            ("table_id", uuid()),
                            ("number", json!({"type": "integer", "minimum": 1})),
                            ("seats", json!({"type": "array", "items": object("Who sits where.", &[
                                ("seat", json!({"type": "integer", "minimum": 1})),
                                ("member_id", uuid()),
                            ])})),
                        ])}),
                    ),
                    ("byes", json!({"type": "array", "items": uuid()})),
                ],
                "The round's tables and byes.",
            ),
        ),
        (
            "tournament.finished",
            "A tournament's last round closed",
            session(
                &[
                    ("tournament_id", uuid()),
                    (
                        "standings",
                        json!({"type": "array", "items": object("An entrant's place.", &[
                            ("place", json!({"type": "integer", "minimum": 1})),
                            ("member_id", uuid()),
                            ("total", fraction),
                            ("rounds_won", json!({"type": "integer", "minimum": 0})),
                        ])}),
                    ),
                ],
                "The final standings.",
            ),
        ),
    ]
}

/// The schema's name for `kind`'s body: `deal.finished` is `WebhookDealFinished`.
pub fn schema_name(kind: &str) -> String {
    let mut name = String::from("Webhook");
    for part in kind.split(['.', '_']) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            name.extend(first.to_uppercase());
            name.push_str(chars.as_str());
        }
    }
    name
}

/// Adds `webhooks` (one `post` per event type) and their bodies' schemas to `spec`.
pub fn add(spec: &mut Value) {
    let mut hooks = Map::new();
    for (kind, summary, data) in events() {
        let name = schema_name(kind);
        let body = json!({
            "type": "object",
            "description": format!("The body of a `{kind}` delivery (Standard Webhooks: signed in `webhook-signature`)."),
            "required": ["type", "timestamp", "data"],
            "properties": {
                "type": {"type": "string", "const": kind},
                "timestamp": {"type": "string", "format": "date-time", "description": "When the event happened (RFC 3339, milliseconds)."},
                "data": data,
            },
        });
        if let Some(schemas) = spec.pointer_mut("/components/schemas").and_then(Value::as_object_mut) {
            schemas.insert(name.clone(), body);
        }
        hooks.insert(
            kind.to_owned(),
            json!({"post": {
                "operationId": format!("webhook_{}", kind.replace('.', "_")),
                "summary": summary,
                "description": format!(
                    "Sent to each of the club's endpoints registered for `{kind}` (`POST /clubs/{{id}}/webhooks`), \
                     signed as Standard Webhooks says (`webhook-id`, `webhook-timestamp`, `webhook-signature`); \
                     retried until the endpoint answers 2xx."
                ),
                "tags": ["webhooks"],
                "security": [],
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{name}")}}}},
                "responses": {"200": {"description": "Received: any 2xx ends the retries."}},
            }}),
        );
    }
    spec["webhooks"] = Value::Object(hooks);
}

/// Every event type the spec describes.
pub fn kinds() -> Vec<&'static str> {
    events().into_iter().map(|(kind, _, _)| kind).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_event_the_service_sends_is_described() {
        let mut described = super::kinds();
        described.sort_unstable();
        let mut sent = tablekeeper_service::webhooks::EVENT_TYPES.to_vec();
        sent.sort_unstable();
        assert_eq!(described, sent);
        assert_eq!(
            super::schema_name("tournament.round_started"),
            "WebhookTournamentRoundStarted"
        );
    }
}
