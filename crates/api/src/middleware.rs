//! What wraps every request: its id, its log line, problem+json for what the layers below
//! answer on their own (CORS refusals, methods HTTP does not define), `HEAD` wherever `GET` is,
//! and live streams kept out of compression.
//!
//! `HEAD` is answered as `GET` with the body left out (the connection's codec, which saw the
//! request's own method, sends the headers only); a streamed body, which would never end for a
//! live stream, is dropped at once.
//!
//! `X-Request-Id` is taken from the request when it is sane (1 to 200 visible ASCII characters)
//! and made (a UUID) otherwise; it is on every response, errors included, on the log line of the
//! request and on the span every log event inside the request belongs to.

use std::time::Instant;

use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, ResponseError};
use tracing::Instrument;

use super::error::ApiError;
use super::metrics::UNMATCHED;

pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The request's id, in its extensions for handlers that want it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestId(pub String);

/// The client's id when it is one we can log and echo safely; None otherwise.
pub fn sane_request_id(value: Option<&HeaderValue>) -> Option<String> {
    let id = value?.to_str().ok()?;
    ((1..=200).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_graphic())).then(|| id.to_owned())
}

/// Methods HTTP defines that a route might answer; anything else is refused before it can
/// reach the metrics as a label.
fn known_method(method: &Method) -> bool {
    [
        Method::GET,
        Method::HEAD,
        Method::POST,
        Method::PUT,
        Method::PATCH,
        Method::DELETE,
        Method::OPTIONS,
    ]
    .contains(method)
}

/// Ids, logs and problem+json for every request (the outermost middleware).
///
/// # Errors
/// Never: an error from below becomes its response, with the request id.
pub async fn request_context(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let started = Instant::now();
    let id = sane_request_id(req.headers().get(REQUEST_ID)).unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let method = req.method().clone();
    if method == Method::HEAD {
        req.head_mut().method = Method::GET;
    }
    req.extensions_mut().insert(RequestId(id.clone()));
    let span = tracing::info_span!("request", request_id = %id);
    let outcome = if known_method(&method) {
        next.call(req)
            .instrument(span.clone())
            .await
            .map(ServiceResponse::map_into_boxed_body)
    } else {
        let refusal = ApiError::new(
            StatusCode::NOT_IMPLEMENTED,
            "method_not_implemented",
            format!("the method {method} is not one this API uses"),
        );
        Ok(req.into_response(refusal.error_response()))
    };
    let outcome = outcome.map(cors_refusal_as_problem);
    let value = HeaderValue::from_str(&id).unwrap_or_else(|_| HeaderValue::from_static("invalid"));
    let (status, route) = match &outcome {
        Ok(res) => (res.status(), res.request().match_pattern()),
        Err(e) => (e.as_response_error().status_code(), None),
    };
    let route = route.unwrap_or_else(|| UNMATCHED.to_owned());
    let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    if status.is_server_error() {
        tracing::warn!(target: "tablekeeper::http", method = %method, route = %route, status = status.as_u16(), latency_ms, request_id = %id, "request");
    } else {
        tracing::info!(target: "tablekeeper::http", method = %method, route = %route, status = status.as_u16(), latency_ms, request_id = %id, "request");
    }
    match outcome {
        Ok(mut res) => {
            res.headers_mut().insert(REQUEST_ID, value);
            if res.headers().get(header::CONTENT_ENCODING) == Some(&IDENTITY) {
                res.headers_mut().remove(header::CONTENT_ENCODING);
            }
            if method == Method::HEAD {
                // A streamed body (compressed, or a live stream) has no length before it is
                // sent: HEAD says so as GET does (no `content-length`), and ends at once.
                res = res.map_body(|_, body| match body.size() {
                    BodySize::Stream => BoxBody::new(NoBodyYet),
                    _ => body,
                });
            }
            Ok(res)
        }
        Err(e) => {
            // Rare: the layers below answer their errors themselves. Keep the id on this one too.
            let mut response = e.error_response();
            response.headers_mut().insert(REQUEST_ID, value);
            Err(actix_web::error::InternalError::from_response(e.to_string(), response).into())
        }
    }
}

/// The body of a HEAD answer to what GET streams: of unknown length, like GET's, and empty.
struct NoBodyYet;

impl MessageBody for NoBodyYet {
    type Error = std::convert::Infallible;

    fn size(&self) -> BodySize {
        BodySize::Stream
    }

    fn poll_next(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<actix_web::web::Bytes, Self::Error>>> {
        std::task::Poll::Ready(None)
    }
}

const IDENTITY: HeaderValue = HeaderValue::from_static("identity");

/// Marks a live stream (`text/event-stream`) as not to be compressed: a compressor holds back
/// what it has not filled a block with, so events would reach the client late or never.
/// actix's `Compress` leaves alone a response that names its encoding; `request_context` takes
/// the mark off again.
///
/// # Errors
/// Those of the layers below, unchanged.
pub async fn streams_uncompressed(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let mut res = next.call(req).await?;
    let streamed = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if streamed {
        res.headers_mut().insert(header::CONTENT_ENCODING, IDENTITY);
    }
    Ok(res)
}

/// actix-cors refuses a preflight with a plain-text 400; say it in problem+json.
fn cors_refusal_as_problem(res: ServiceResponse<BoxBody>) -> ServiceResponse<BoxBody> {
    let detail = match res
        .response()
        .error()
        .and_then(|e| e.as_error::<actix_cors::CorsError>())
    {
        Some(cors) => format!("cross-origin request refused: {}", cors.to_string().to_lowercase()),
        None => return res,
    };
    let (req, _) = res.into_parts();
    let refusal = ApiError::new(StatusCode::FORBIDDEN, "cors_refused", detail);
    ServiceResponse::new(req, refusal.error_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_short_visible_ids_are_taken() {
        let id = |s: &'static str| sane_request_id(Some(&HeaderValue::from_static(s)));
        assert_eq!(id("abc-123_x.y"), Some("abc-123_x.y".into()));
        assert_eq!(id(""), None);
        assert_eq!(id("has space"), None);
        let long = "x".repeat(201);
        assert_eq!(
            sane_request_id(Some(&HeaderValue::from_str(&long).expect("value"))),
            None
        );
        assert_eq!(sane_request_id(None), None);
    }
}
