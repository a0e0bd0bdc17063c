//! The HTTP side of read routing (`tablekeeper_service::reads`): the pool a lag-tolerant read takes,
//! and the middleware that notes each caller's writes so that its next reads see them.
//!
//! A handler that may read from the standby takes a [`ReadPool`] instead of the primary's
//! pool (`State::pool`); the caller is named by its bearer credential (the `Authorization` header,
//! or a stream's `access_token`), so read-your-writes holds per token.

use std::ops::Deref;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::{header, Method};
use actix_web::middleware::Next;
use actix_web::{web, FromRequest, HttpRequest};
use tablekeeper_service::PgPool;

use super::error::ApiError;
use tablekeeper_service::reads::Served;

/// The pool a read that tolerates a little lag runs on: the standby's, or the primary's for a
/// caller that wrote lately (and always when no standby is configured).
pub struct ReadPool {
    pool: PgPool,
    /// The primary's pool, when `pool` is the standby's.
    behind: Option<PgPool>,
}

impl ReadPool {
    /// The primary's pool when this read runs on the standby (to read again there when the
    /// standby turns out to be behind what the client has already seen); None on the primary.
    pub fn primary_if_on_standby(&self) -> Option<&PgPool> {
        self.behind.as_ref()
    }
}

impl Deref for ReadPool {
    type Target = PgPool;

    fn deref(&self) -> &PgPool {
        &self.pool
    }
}

/// The caller's credential as sent, if any.
fn credential(req: &HttpRequest) -> Option<String> {
    if let Some(value) = req.headers().get(header::AUTHORIZATION) {
        return value.to_str().ok().map(|v| v.trim().to_owned());
    }
    // A stream's token may come in the address (EventSource sends no headers).
    web::Query::<Vec<(String, String)>>::from_query(req.query_string())
        .ok()
        .and_then(|q| {
            q.into_inner()
                .into_iter()
                .find(|(name, _)| name == "access_token")
                .map(|(_, token)| format!("Bearer {}", token.trim()))
        })
}

impl FromRequest for ReadPool {
    type Error = ApiError;
    type Future = std::future::Ready<Result<ReadPool, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        std::future::ready(crate::State::of(req).map(|state| {
            let reads = &state.reads;
            match (reads.route(credential(req).as_deref()), reads.standby()) {
                (Served::Standby, Some(standby)) => ReadPool {
                    pool: standby.clone(),
                    behind: Some(reads.primary().clone()),
                },
                _ => ReadPool {
                    pool: reads.primary().clone(),
                    behind: None,
                },
            }
        }))
    }
}

/// Notes, once a request that may change something has been answered, that its caller wrote:
/// its reads go to the primary for `DATABASE_READ_AFTER_WRITE_SECS`.
///
/// # Errors
/// Never of its own: what is below answers.
pub async fn note_writes(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let writes = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    let noted = if writes {
        req.app_data::<web::Data<crate::State>>()
            .filter(|state| state.reads.standby().is_some())
            .cloned()
            .zip(credential(req.request()))
    } else {
        None
    };
    let res = next.call(req).await?;
    if let Some((state, caller)) = noted {
        state.reads.wrote(&caller);
    }
    Ok(res)
}
