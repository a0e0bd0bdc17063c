//! Deadlines that keep a slow or hostile client, or a frozen database, from holding the
//! service: a request body must arrive within `REQUEST_BODY_TIMEOUT_MS` (else `408
//! body_timeout` and the connection is closed), and a request whose database stops answering
//! is answered `503 database_unavailable` (with `Retry-After`) within
//! `DATABASE_ACQUIRE_TIMEOUT_MS`.
//!
//! A frozen database (a stopped postmaster, a link that drops packets) accepts connections and
//! never answers, and PostgreSQL's own `statement_timeout` cannot fire in a server that does not
//! run. Slowness alone does not tell a frozen database from a long read (the bundle of a big
//! session), so a request still running after half the acquire timeout asks the
//! [`DatabaseWatch`] whether the database answers at all: a connection of its own knocks, and
//! no answer within the other half is a frozen database, whatever the request was doing. While
//! the database answers, a read runs as long as its work takes (each statement within
//! `DATABASE_STATEMENT_TIMEOUT_MS`); a write, which holds its table's row lock, is still cut at
//! the acquire timeout plus the statement timeout. A transaction dropped before its commit
//! rolls back; one whose commit was already sent may still commit when the database wakes, so
//! a client retries with the same `Idempotency-Key`, as after any lost answer.
//!
//! A client address (the peer's, or the one `X-Forwarded-For` names when the peer is a trusted
//! proxy) may have at most `MAX_REQUESTS_PER_CLIENT` requests in flight, a body still on its way
//! included; beyond that it is answered `429 too_many_requests` at once and the connection
//! closed, so a flood from one address holds no more than that much of the server. (HTTP/1.1
//! carries one request at a time per connection, so this caps the connections that are doing
//! anything; idle ones are closed by the keep-alive timeout, and `connections` caps how many an
//! address may hold meanwhile. A live stream is in flight only until its handler answers:
//! `connections` counts the streams themselves.)
//!
//! The body is read in full here, before the handler runs, so that the handler's deadline
//! measures the server's work, never the client's upload; the JSON extractor then reads it from
//! memory and still applies its own size limit.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use ipnet::IpNet;
use tablekeeper_service::PgPool;

use crate::State;
use actix_web::body::{self, BodyStream, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::{header, StatusCode};
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage, ResponseError};

use super::connections::{Place, Tally};
use super::error::ApiError;

/// The largest body any endpoint takes (the JSON extractor's limit is lower).
pub const MAX_BODY_BYTES: usize = 256 * 1024;

/// The deadlines in force, shared by every worker.
#[derive(Clone, Copy, Debug)]
pub struct Deadlines {
    /// For the whole body to arrive.
    pub body: Duration,
    /// The pool's acquire timeout: a database silent this long is answered 503.
    pub database: Duration,
    /// For a write's handler, database work included: the acquire timeout plus the statement
    /// timeout each connection has.
    pub write: Duration,
}

/// Whether the database answers at all, asked only by requests that have run a while; one
/// knock at a time per replica, and a knock sent after a request asked answers for it too.
pub struct DatabaseWatch {
    pool: PgPool,
    /// When the last knock that was answered was sent.
    answered: Mutex<Option<Instant>>,
    /// Held by the knock under way.
    knocking: tokio::sync::Mutex<()>,
}

impl DatabaseWatch {
    pub fn new(pool: PgPool) -> DatabaseWatch {
        DatabaseWatch {
            pool,
            answered: Mutex::new(None),
            knocking: tokio::sync::Mutex::new(()),
        }
    }

    fn answered_since(&self, asked: Instant) -> bool {
        self.answered
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some_and(|sent| sent >= asked)
    }

    /// Whether the database answered a knock sent since this was asked, within `within`.
    pub async fn answers_within(&self, within: Duration) -> bool {
        let asked = Instant::now();
        let answered = async {
            let _knocking = self.knocking.lock().await;
            // Another request's knock, sent after this one asked, answered while it waited.
            if self.answered_since(asked) {
                return;
            }
            let sent = Instant::now();
            tablekeeper_service::database::knock(&self.pool).await;
            let mut answered = self.answered.lock().unwrap_or_else(PoisonError::into_inner);
            *answered = Some(answered.map_or(sent, |before| before.max(sent)));
        };
        tokio::time::timeout(within, answered).await.is_ok()
    }

    /// Resolves once the database has gone silent: from half `silence` on, every half `silence`,
    /// a knock that is not answered within the other half.
    async fn silent(&self, silence: Duration) {
        let half = silence / 2;
        loop {
            tokio::time::sleep(half).await;
            if !self.answers_within(half).await {
                return;
            }
        }
    }
}

/// Requests in flight per client address.
pub struct ClientCap {
    tally: Tally,
    trusted_proxies: Vec<IpNet>,
}

impl ClientCap {
    pub fn new(max: u32, trusted_proxies: Vec<IpNet>) -> ClientCap {
        ClientCap {
            tally: Tally::new(max),
            trusted_proxies,
        }
    }

    /// Counts the request against its client (uncounted when the place is dropped: answered or
    /// abandoned), or None when the client is at its cap.
    /// The most requests an address may have in flight.
    pub fn max(&self) -> u32 {
        self.tally.max
    }

    fn admit(&self, req: &ServiceRequest) -> Option<Option<Place>> {
        let Some(peer) = req.peer_addr() else {
            return Some(None);
        };
        let client =
            super::limits::client_address(peer.ip(), req.headers().get("x-forwarded-for"), &self.trusted_proxies);
        self.tally.take(client).map(Some)
    }
}

/// An answer after which the connection is closed: what is left of the request may still be on
/// its way (or never come), so the connection cannot carry another.
fn closing(req: ServiceRequest, refusal: &ApiError) -> ServiceResponse<body::BoxBody> {
    let mut response = refusal.error_response();
    response
        .head_mut()
        .set_connection_type(actix_web::http::ConnectionType::Close);
    req.into_response(response)
}

/// Whether the request says a body follows.
fn has_body(req: &ServiceRequest) -> bool {
    let headers = req.headers();
    headers.contains_key(header::TRANSFER_ENCODING)
        || headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .is_some_and(|length| length > 0)
}

/// Counts the request against its client's cap, reads the body within the deadline, then runs
/// the handler within its deadline.
///
/// # Errors
/// A late handler is 503 `database_unavailable` (a late body is answered 408 here).
pub async fn within_deadlines(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<body::BoxBody>, actix_web::Error> {
    // Outside the routes (the page's assets, the spec) there is no state and nothing to cut.
    let Some(state) = req.app_data::<web::Data<State>>().cloned() else {
        return next.call(req).await.map(ServiceResponse::map_into_boxed_body);
    };
    let deadlines = state.deadlines;
    let _counted = match state.client_cap.admit(&req) {
        Some(counted) => counted,
        None => {
            req.extensions_mut().insert(super::limits::RateLimitStatus::at_cap(
                "in_flight",
                state.client_cap.max(),
            ));
            let mut refusal = ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_requests",
                "this address has too many requests in flight; wait for them to be answered",
            );
            refusal.retry_after = Some(1);
            return Ok(closing(req, &refusal));
        }
    };
    if has_body(&req) {
        let stream = BodyStream::new(req.take_payload());
        let refusal = match tokio::time::timeout(deadlines.body, body::to_bytes_limited(stream, MAX_BODY_BYTES)).await {
            Ok(Ok(Ok(bytes))) => {
                req.set_payload(Payload::from(bytes));
                None
            }
            Ok(Ok(Err(e))) => Some(ApiError::bad_request(
                "malformed_json",
                format!("the body could not be read: {e}"),
            )),
            Ok(Err(_)) => Some(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "body_too_large",
                format!("the body is larger than {} KiB", MAX_BODY_BYTES / 1024),
            )),
            Err(_) => Some(ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                "body_timeout",
                format!(
                    "the request's body did not arrive within {} ms; nothing was changed",
                    deadlines.body.as_millis()
                ),
            )),
        };
        if let Some(refusal) = refusal {
            return Ok(closing(req, &refusal));
        }
    }
    // Reads are cut only by a silent database; a write holds its table's lock, and is cut when
    // it has taken longer than any healthy write could.
    let write = !matches!(
        *req.method(),
        actix_web::http::Method::GET | actix_web::http::Method::HEAD
    );
    let handler = next.call(req);
    let silent = state.database_watch.silent(deadlines.database);
    let late = async {
        if write {
            tokio::time::sleep(deadlines.write).await;
        } else {
            std::future::pending::<()>().await;
        }
    };
    let why = tokio::select! {
        outcome = handler => return outcome.map(ServiceResponse::map_into_boxed_body),
        () = silent => "the database does not answer",
        () = late => "a write outran its deadline: the database is overloaded",
    };
    tracing::warn!(
        database_ms = deadlines.database.as_millis() as u64,
        write_ms = deadlines.write.as_millis() as u64,
        "{why}; answered 503"
    );
    // The request went to the handler: answered as an error, which the outer middleware
    // renders (problem+json, Retry-After, the request id).
    Err(ApiError::database_unavailable().into())
}
