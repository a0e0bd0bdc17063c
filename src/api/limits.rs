//! Rate limits on the endpoints that check secrets (passwords, join codes), per client address,
//! so that guessing them is slow.

use std::net::IpAddr;
use std::num::NonZeroU32;

use actix_web::http::StatusCode;
use actix_web::HttpRequest;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use super::error::ApiError;

/// Attempts per minute per client address on `/auth/*`.
pub struct AuthLimiter {
    limiter: DefaultKeyedRateLimiter<IpAddr>,
}

impl AuthLimiter {
    pub fn per_minute(attempts: NonZeroU32) -> AuthLimiter {
        AuthLimiter {
            limiter: RateLimiter::keyed(Quota::per_minute(attempts)),
        }
    }

    /// Counts an attempt from the request's peer address.
    ///
    /// # Errors
    /// 429 `too_many_requests` with `Retry-After` when the address is over its quota.
    pub fn check(&self, req: &HttpRequest) -> Result<(), ApiError> {
        // The peer address, not X-Forwarded-For: a client could forge that to dodge the limit.
        let Some(peer) = req.peer_addr() else { return Ok(()) };
        self.limiter.check_key(&peer.ip()).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            let mut error = ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_requests",
                "too many attempts from this address; wait and try again",
            );
            error.retry_after = Some(wait.as_secs().max(1));
            error
        })
    }
}
