//! Answers to requests a client may retry under an `Idempotency-Key`.
//!
//! A use case hands its typed result to the handler's closure, in its transaction; the closure
//! makes a [`Made`]: the answer to keep under the key (status and JSON text, kept and replayed
//! byte for byte) and what the response adds beside it (its `Location`; a secret sent once and
//! never kept). The use case keeps the answer and hands the `Made` back, or, to a retry, the
//! answer kept; [`respond`] turns either into the HTTP response. Only a replay reads a kept
//! answer, for the `Location` of what the first request made.

use actix_web::http::header::ContentType;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use serde::Serialize;
use serde_json::Value;
use tablekeeper_service::idempotency::{Answer, Kept, Outcome};

use super::error::ApiError;

/// What a handler made of a use case's result: the answer to keep, and what is sent beside it.
pub struct Made {
    kept: Answer,
    /// The `Location` of what the request made.
    location: Option<String>,
    /// The body sent now when it is not the one kept (a secret in it, which nothing keeps).
    sent: Option<String>,
}

impl Kept for Made {
    fn answer(&self) -> &Answer {
        &self.kept
    }
}

impl Made {
    /// `body` answered with `status`, kept as sent.
    ///
    /// # Errors
    /// When `body` cannot be written as JSON.
    pub fn new(status: StatusCode, body: &impl Serialize) -> Result<Made, serde_json::Error> {
        Ok(Made {
            kept: Answer {
                status: status.as_u16(),
                body: serde_json::to_string(body)?,
            },
            location: None,
            sent: None,
        })
    }

    /// `body` answered with 201 Created, kept as sent.
    ///
    /// # Errors
    /// When `body` cannot be written as JSON.
    pub fn created(body: &impl Serialize) -> Result<Made, serde_json::Error> {
        Made::new(StatusCode::CREATED, body)
    }

    /// The same answer, sent with `Location: location`.
    #[must_use]
    pub fn at(self, location: impl Into<String>) -> Made {
        Made {
            location: Some(location.into()),
            ..self
        }
    }

    /// The same answer kept, but `body` sent this once (the kept answer without a secret that
    /// `body` holds).
    ///
    /// # Errors
    /// When `body` cannot be written as JSON.
    pub fn sending(self, body: &impl Serialize) -> Result<Made, serde_json::Error> {
        Ok(Made {
            sent: Some(serde_json::to_string(body)?),
            ..self
        })
    }
}

/// The response to `outcome`: what was made now, or the kept answer marked
/// `Idempotent-Replayed`, whose `Location` `replayed_at` finds in its body again.
///
/// # Errors
/// A kept answer that is not JSON (500).
pub fn respond(
    outcome: Outcome<Made>,
    replayed_at: impl FnOnce(&Value) -> Option<String>,
) -> Result<HttpResponse, ApiError> {
    Ok(match outcome {
        Outcome::Fresh(made) => reply(
            made.kept.status,
            made.sent.unwrap_or(made.kept.body),
            made.location,
            false,
        ),
        Outcome::Replayed(kept) => {
            let body = serde_json::from_str::<Value>(&kept.body).map_err(|_| ApiError::internal())?;
            let location = replayed_at(&body);
            reply(kept.status, kept.body, location, true)
        }
    })
}

/// The response with `status` and `body` (JSON text), marked `Idempotent-Replayed` when
/// `replayed` (a kept answer, or `body` made from one).
pub fn reply(status: u16, body: String, location: Option<String>, replayed: bool) -> HttpResponse {
    let mut response = HttpResponse::build(StatusCode::from_u16(status).unwrap_or(StatusCode::OK));
    if let Some(location) = location {
        response.insert_header(("Location", location));
    }
    if replayed {
        response.insert_header(("Idempotent-Replayed", "true"));
    }
    response.content_type(ContentType::json()).body(body)
}

/// The response to `outcome`, which made something whose address is `under/{id}`, `id` being
/// its body's.
///
/// # Errors
/// As [`respond`].
pub fn created(outcome: Outcome<Made>, under: &str) -> Result<HttpResponse, ApiError> {
    respond(outcome, |body| {
        body.get("id").and_then(Value::as_str).map(|id| format!("{under}/{id}"))
    })
}

/// The idempotency key of a request, if it sent one.
pub(crate) fn idempotency_key(req: &HttpRequest) -> Result<Option<String>, ApiError> {
    let Some(value) = req.headers().get("Idempotency-Key") else {
        return Ok(None);
    };
    let key = value.to_str().map(str::trim).unwrap_or("");
    if key.is_empty() || key.len() > 200 {
        return Err(ApiError::bad_request(
            "invalid_idempotency_key",
            "an Idempotency-Key is 1 to 200 visible characters",
        ));
    }
    Ok(Some(key.to_owned()))
}
