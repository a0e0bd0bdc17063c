//! Webhooks: a club's organisers register endpoints for its events, list and delete them, and
//! see and redeliver what was sent. Deliveries follow the Standard Webhooks specification; see
//! `service::webhooks`.

use super::answers::Made;
use crate::State;
use actix_web::http::StatusCode;
use actix_web::{delete, get, post, web, HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use utoipa::ToSchema;
use uuid::Uuid;

use super::auth::Caller;
use super::clubs::PageQuery;
use super::error::{ApiError, Problem};
use tablekeeper_service::idempotency::CreationKey;
use tablekeeper_service::webhooks as use_case;

#[derive(Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"url": "https://club.example.org/hooks/tablekeeper", "events": ["deal.finished", "session.settled"]}))]
pub struct CreateWebhook {
    /// Where deliveries are POSTed: http:// or https://, at most 2000 characters.
    pub url: String,
    /// What to send: any of `deal.finished`, `table.finished`, `deal.corrected`,
    /// `deal.disputed`, `session.settled`, `tournament.round_started`, `tournament.finished`; at
    /// least one.
    pub events: Vec<String>,
}

/// A club's webhook endpoint.
#[derive(Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "id": "6f1c2b4e-8d1a-4a51-9a57-3f2a3e0c1b2d",
    "club_id": "0b9e8f5a-55c1-4c1e-a3c2-6a9a3e2f4d10",
    "url": "https://club.example.org/hooks/tablekeeper",
    "events": ["deal.finished", "session.settled"],
    "created_at": "2026-12-02T19:30:00Z"
}))]
pub struct Webhook {
    pub id: Uuid,
    pub club_id: Uuid,
    pub url: String,
    pub events: Vec<String>,
    pub created_at: DateTime<Utc>,
}

impl From<tablekeeper_service::webhooks::Webhook> for Webhook {
    fn from(w: tablekeeper_service::webhooks::Webhook) -> Webhook {
        Webhook {
            id: w.id,
            club_id: w.club_id,
            url: w.url,
            events: w.events,
            created_at: w.created_at,
        }
    }
}

/// A webhook endpoint as registered, with its signing secret: shown this once.
#[derive(Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "id": "6f1c2b4e-8d1a-4a51-9a57-3f2a3e0c1b2d",
    "club_id": "0b9e8f5a-55c1-4c1e-a3c2-6a9a3e2f4d10",
    "url": "https://club.example.org/hooks/tablekeeper",
    "events": ["deal.finished", "session.settled"],
    "created_at": "2026-12-02T19:30:00Z",
    "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYo="
}))]
pub struct CreatedWebhook {
    pub id: Uuid,
    pub club_id: Uuid,
    pub url: String,
    pub events: Vec<String>,
    pub created_at: DateTime<Utc>,
    /// `whsec_` + base64 of 32 random bytes: the key of the deliveries' `webhook-signature`
    /// (Standard Webhooks). Keep it; it is not shown again.
    pub secret: String,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct WebhookPage {
    pub items: Vec<Webhook>,
    /// The offset of the next page; null on the last page.
    pub next_offset: Option<i64>,
}

/// What became of a delivery.
#[derive(Serialize, Deserialize, ToSchema, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryState {
    /// Due at `next_attempt_at` (first sending, or retrying).
    Pending,
    /// The endpoint answered 2xx.
    Delivered,
    /// Every retry failed; `POST …/redeliver` sends it again.
    Failed,
}

/// One attempt at a delivery.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct DeliveryAttempt {
    /// 1 for the first; a number missing was claimed by a replica that stopped before it could
    /// record the outcome (sent again later).
    pub attempt: i32,
    pub attempted_at: DateTime<Utc>,
    /// The endpoint's status code; null when no answer came.
    pub status: Option<i16>,
    /// Why it failed: a status other than 2xx, a refused connection, a timeout; null when it
    /// was delivered.
    pub error: Option<String>,
    pub duration_ms: i32,
}

/// An event sent (or to be sent) to an endpoint. Its `id` is the `webhook-id` header of every
/// attempt: receivers drop a repeat they have seen (delivery is at least once).
#[derive(Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "id": "1d5e0f3c-2b7a-4c8e-9f10-6a2b3c4d5e6f",
    "webhook_id": "6f1c2b4e-8d1a-4a51-9a57-3f2a3e0c1b2d",
    "event_type": "deal.finished",
    "payload": {"type": "deal.finished", "timestamp": "2026-12-02T20:14:03.120Z", "data": {
        "club_id": "0b9e8f5a-55c1-4c1e-a3c2-6a9a3e2f4d10", "session_id": "5a0c7e2d-9b1f-4f3e-8a6d-2c1b0e9f8a7d",
        "table_id": "7c3d2e1f-0a9b-4c8d-8e7f-6a5b4c3d2e1f", "game": "nomination-whist", "deal": 3, "table_version": 41}},
    "state": "delivered",
    "created_at": "2026-12-02T20:14:03.120Z",
    "next_attempt_at": "2026-12-02T20:14:03.350Z",
    "delivered_at": "2026-12-02T20:14:03.350Z",
    "attempts": [{"attempt": 1, "attempted_at": "2026-12-02T20:14:03.300Z", "status": 200, "error": null, "duration_ms": 48}]
}))]
pub struct WebhookDelivery {
    pub id: Uuid,
    pub webhook_id: Uuid,
    pub event_type: String,
    /// The body sent: `{"type", "timestamp", "data"}`; `data` names the club, session, table and
    /// (for deal events) the deal.
    pub payload: serde_json::Value,
    pub state: DeliveryState,
    pub created_at: DateTime<Utc>,
    /// When it is next sent, while pending.
    pub next_attempt_at: DateTime<Utc>,
    pub delivered_at: Option<DateTime<Utc>>,
    pub attempts: Vec<DeliveryAttempt>,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct WebhookDeliveryPage {
    pub items: Vec<WebhookDelivery>,
    /// The offset of the next page; null on the last page.
    pub next_offset: Option<i64>,
}

fn delivery(
    d: tablekeeper_service::webhooks::Delivery,
    attempts: Vec<tablekeeper_service::webhooks::Attempt>,
) -> WebhookDelivery {
    WebhookDelivery {
        payload: serde_json::from_str(&d.body).unwrap_or(serde_json::Value::Null),
        state: match d.state.as_str() {
            "delivered" => DeliveryState::Delivered,
            "failed" => DeliveryState::Failed,
            _ => DeliveryState::Pending,
        },
        id: d.id,
        webhook_id: d.webhook_id,
        event_type: d.event_type,
        created_at: d.created_at,
        next_attempt_at: d.next_attempt_at,
        delivered_at: d.delivered_at,
        attempts: attempts
            .into_iter()
            .map(|a| DeliveryAttempt {
                attempt: a.attempt,
                attempted_at: a.attempted_at,
                status: a.status,
                error: a.error,
                duration_ms: a.duration_ms,
            })
            .collect(),
    }
}

const ORGANISE_403: &str = "`forbidden`: a scorer token, or a member of the club who does not organise";

/// Registers a webhook endpoint for the club's events (organisers and owners).
///
/// Each event the endpoint asks for is then POSTed to it as JSON, signed as the Standard
/// Webhooks specification says: headers `webhook-id` (the delivery's id, the same on every
/// retry), `webhook-timestamp` (Unix seconds) and `webhook-signature` (`v1,` + base64 of
/// HMAC-SHA256 of `{id}.{timestamp}.{body}`, keyed with the base64-decoded part of the secret
/// after `whsec_`). The secret is in this answer only. A delivery not answered 2xx is retried
/// with growing waits for about a day. Send an `Idempotency-Key` to retry safely: a retry with
/// the same key and body gets the first answer (marked `Idempotent-Replayed: true`).
#[utoipa::path(tag = "webhooks", params(
        ("id" = Uuid, Path, description = "the club"),
        ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key and body returns the first answer and registers nothing"),
    ),
    request_body = CreateWebhook, security(("bearer" = [])), responses(
    (status = 201, body = CreatedWebhook, headers(
        ("Location" = String, description = "the endpoint's address"),
        ("Idempotent-Replayed" = Option<String>, description = "`true` when this is the first answer to an earlier request with the same `Idempotency-Key`"),
    )),
    (status = 400, description = "`malformed_json`, `invalid_idempotency_key`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = ORGANISE_403, body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found`: no such club, or the caller is not a member of it", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`invalid_url` (not http(s), no host, credentials in it, too long), `private_address` (a private, loopback or link-local address where the server does not allow them), `unknown_event`, `no_events`, `unknown_field`, `invalid_body`, `idempotency_key_reused`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/clubs/{id}/webhooks")]
pub async fn create_webhook(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    id: web::Path<Uuid>,
    body: web::Json<CreateWebhook>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let settings = &state.webhooks;
    let user = who.organiser()?;
    let key = super::answers::idempotency_key(&req)?
        .map(|key| serde_json::to_value(&*body).map(|sent| CreationKey::new("create_webhook", key, &sent)))
        .transpose()
        .map_err(|_| ApiError::internal())?;
    let url = use_case::checked_url(body.url.trim(), settings.configured.allow_private)?;
    let events = use_case::checked_events(&body.events)?;
    let render = |hook: tablekeeper_service::webhooks::Webhook| {
        let location = format!("/api/v1/clubs/{id}/webhooks/{}", hook.id);
        Ok(Made::created(&CreatedWebhook {
            id: hook.id,
            club_id: hook.club_id,
            url: hook.url,
            events: hook.events,
            created_at: hook.created_at,
            secret: hook.secret,
        })?
        .at(location))
    };
    let outcome = use_case::register(pool, user, *id, url.as_str(), &events, key.as_ref(), render).await?;
    super::answers::created(outcome, &format!("/api/v1/clubs/{id}/webhooks"))
}

/// The club's webhook endpoints (organisers and owners), oldest first, without their secrets.
#[utoipa::path(tag = "webhooks", params(("id" = Uuid, Path, description = "the club"), PageQuery), security(("bearer" = [])), responses(
    (status = 200, body = WebhookPage),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = ORGANISE_403, body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found`", body = Problem, content_type = "application/problem+json"),
    (status = 400, description = "`invalid_query`: a limit outside 1 to 500, or an unknown parameter", body = Problem, content_type = "application/problem+json"),
))]
#[get("/clubs/{id}/webhooks")]
pub async fn list_webhooks(
    state: web::Data<State>,
    Caller(who): Caller,
    id: web::Path<Uuid>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let user = who.organiser()?;
    let limit = super::input::page_limit(query.limit)?;
    let offset = query.offset.unwrap_or(0).max(0);
    let rows = use_case::list(pool, user, *id, limit + 1, offset).await?;
    let more = rows.len() as i64 > limit;
    let items = rows.into_iter().take(limit as usize).map(Webhook::from).collect();
    Ok(HttpResponse::Ok().json(WebhookPage {
        items,
        next_offset: more.then_some(offset + limit),
    }))
}

/// Deletes a webhook endpoint (organisers and owners): nothing more is sent to it, deliveries
/// still pending included, and its deliveries are no longer listed.
#[utoipa::path(tag = "webhooks", params(("id" = Uuid, Path, description = "the club"), ("webhook_id" = Uuid, Path)), security(("bearer" = [])), responses(
    (status = 204, description = "deleted"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = ORGANISE_403, body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found`, `webhook_not_found`", body = Problem, content_type = "application/problem+json"),
))]
#[delete("/clubs/{id}/webhooks/{webhook_id}")]
pub async fn delete_webhook(
    state: web::Data<State>,
    Caller(who): Caller,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let user = who.organiser()?;
    let (club, id) = path.into_inner();
    use_case::delete(pool, user, club, id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// The endpoint's deliveries (organisers and owners), newest first, each with its body, state
/// and every attempt (status code, error, duration).
#[utoipa::path(tag = "webhooks", params(("id" = Uuid, Path, description = "the club"), ("webhook_id" = Uuid, Path), PageQuery), security(("bearer" = [])), responses(
    (status = 200, body = WebhookDeliveryPage),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = ORGANISE_403, body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found`, `webhook_not_found`", body = Problem, content_type = "application/problem+json"),
    (status = 400, description = "`invalid_query`: a limit outside 1 to 500, or an unknown parameter", body = Problem, content_type = "application/problem+json"),
))]
#[get("/clubs/{id}/webhooks/{webhook_id}/deliveries")]
pub async fn list_webhook_deliveries(
    state: web::Data<State>,
    Caller(who): Caller,
    path: web::Path<(Uuid, Uuid)>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let user = who.organiser()?;
    let (club, id) = path.into_inner();
    let limit = super::input::page_limit(query.limit)?;
    let offset = query.offset.unwrap_or(0).max(0);
    let rows = use_case::deliveries(pool, user, club, id, limit + 1, offset).await?;
    let more = rows.len() as i64 > limit;
    let items = rows
        .into_iter()
        .take(limit as usize)
        .map(|(d, a)| delivery(d, a))
        .collect();
    Ok(HttpResponse::Ok().json(WebhookDeliveryPage {
        items,
        next_offset: more.then_some(offset + limit),
    }))
}

/// Sends a delivery again (organisers and owners), with the same `webhook-id` and body.
///
/// The delivery is due at once, whether it was delivered, failed or is still being retried;
/// its retries start over.
///
/// Send an `Idempotency-Key` to retry safely: a retry with the same key for the same delivery
/// gets the first answer (marked `Idempotent-Replayed: true`) and sends nothing again.
#[utoipa::path(tag = "webhooks", params(
        ("id" = Uuid, Path, description = "the club"),
        ("webhook_id" = Uuid, Path),
        ("delivery_id" = Uuid, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key and path returns the first answer and makes the delivery due no second time"),
    ),
    security(("bearer" = [])), responses(
    (status = 202, description = "due again; its attempts follow in the deliveries list", body = WebhookDelivery, headers(
        ("Idempotent-Replayed" = Option<String>, description = "`true` when this is the first answer to an earlier request with the same `Idempotency-Key`"),
    )),
    (status = 400, description = "`invalid_idempotency_key`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = ORGANISE_403, body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found`, `webhook_not_found`, `delivery_not_found`", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`idempotency_key_reused`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/clubs/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver")]
pub async fn redeliver_webhook_delivery(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    path: web::Path<(Uuid, Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let user = who.organiser()?;
    let (club, id, delivery_id) = path.into_inner();
    let key = super::tables::creation_key(&req, "redeliver_webhook_delivery", || {
        serde_json::to_value((club, id, delivery_id))
    })?;
    let render = |row| Made::new(StatusCode::ACCEPTED, &delivery(row, Vec::new()));
    let outcome = use_case::redeliver(pool, user, club, id, delivery_id, key.as_ref(), render).await?;
    super::answers::respond(outcome, |_| None)
}
