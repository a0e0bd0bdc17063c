//! Rate limits on the endpoints that check secrets (passwords, join codes), per client address,
//! so that guessing them is slow.
//!
//! The client address is the peer's, unless the peer is a trusted proxy (`TRUSTED_PROXIES`):
//! then it is the right-most address in `X-Forwarded-For` that is not itself a trusted proxy.
//! A client can put anything at the left of that header, so nothing it wrote is believed.
//!
//! Every answer of a limited endpoint carries `RateLimit-Policy` and `RateLimit`
//! (draft-ietf-httpapi-ratelimit-headers-10: `"auth";q=10;w=60` and `"auth";r=9;t=6`), added on
//! the way out by [`rate_limit_headers`] from what [`AuthLimiter::check`] left in the request;
//! so does a refusal by the caps on requests in flight and on live streams per address (a quota
//! of `concurrent-requests`, `deadlines::ClientCap`, `connections::StreamCap`).

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
use actix_web::{HttpMessage, HttpRequest};
use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use ipnet::IpNet;

use super::error::ApiError;

/// Attempts per minute per client address on `/auth/*`.
pub struct AuthLimiter {
    limiter: DefaultKeyedRateLimiter<IpAddr, StateInformationMiddleware>,
    quota: Quota,
    trusted_proxies: Vec<IpNet>,
}

/// Where a client stands against a quota, for the `RateLimit-Policy` and `RateLimit` headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimitStatus {
    /// The policy's name: `auth` (attempts at secrets), `in_flight`, `streams`.
    pub policy: &'static str,
    pub limit: u32,
    pub remaining: u32,
    /// Seconds until the quota is whole again (or, when refused, until the next attempt is let
    /// through); None for a quota of things held at once, which come back as they end.
    pub reset: Option<u64>,
    /// The window the limit counts over, in seconds; None for a quota of things held at once
    /// (`qu="concurrent-requests"`).
    pub window: Option<u64>,
}

impl RateLimitStatus {
    /// At a cap of `limit` requests (or streams) held at once, all held.
    pub fn at_cap(policy: &'static str, limit: u32) -> RateLimitStatus {
        RateLimitStatus {
            policy,
            limit,
            remaining: 0,
            reset: None,
            window: None,
        }
    }

    /// `RateLimit-Policy`: the quota, its window or its unit.
    pub fn policy_field(&self) -> String {
        match self.window {
            Some(w) => format!("\"{}\";q={};w={w}", self.policy, self.limit),
            None => format!("\"{}\";q={};qu=\"concurrent-requests\"", self.policy, self.limit),
        }
    }

    /// `RateLimit`: what is left, and when it is whole again.
    pub fn limit_field(&self) -> String {
        match self.reset {
            Some(t) => format!("\"{}\";r={};t={t}", self.policy, self.remaining),
            None => format!("\"{}\";r={}", self.policy, self.remaining),
        }
    }
}

impl AuthLimiter {
    pub fn per_minute(attempts: NonZeroU32, trusted_proxies: Vec<IpNet>) -> AuthLimiter {
        let quota = Quota::per_minute(attempts);
        AuthLimiter {
            limiter: RateLimiter::keyed(quota).with_middleware::<StateInformationMiddleware>(),
            quota,
            trusted_proxies,
        }
    }

    /// Counts an attempt from the request's client address, and notes the client's standing for
    /// the `RateLimit-*` headers.
    ///
    /// # Errors
    /// 429 `too_many_requests` with `Retry-After` when the address is over its quota.
    pub fn check(&self, req: &HttpRequest) -> Result<(), ApiError> {
        let Some(peer) = req.peer_addr() else { return Ok(()) };
        let client = client_address(peer.ip(), req.headers().get("x-forwarded-for"), &self.trusted_proxies);
        let limit = self.quota.burst_size().get();
        let window = Some(self.quota.burst_size_replenished_in().as_secs().max(1));
        match self.limiter.check_key(&client) {
            Ok(snapshot) => {
                let remaining = snapshot.remaining_burst_capacity();
                let refill = self.quota.replenish_interval() * (limit - remaining);
                req.extensions_mut().insert(RateLimitStatus {
                    policy: "auth",
                    limit,
                    remaining,
                    reset: Some(seconds_up(refill)),
                    window,
                });
                Ok(())
            }
            Err(not_until) => {
                let wait = seconds_up(not_until.wait_time_from(DefaultClock::default().now())).max(1);
                req.extensions_mut().insert(RateLimitStatus {
                    policy: "auth",
                    limit,
                    remaining: 0,
                    reset: Some(wait),
                    window,
                });
                let mut error = ApiError::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    "too_many_requests",
                    "too many attempts from this address; wait and try again",
                );
                error.retry_after = Some(wait);
                Err(error)
            }
        }
    }
}

fn seconds_up(d: Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0)
}

/// The address a request is counted against: the peer, or when the peer is a trusted proxy the
/// right-most untrusted hop of `X-Forwarded-For` (each proxy appends the address it saw).
pub fn client_address(peer: IpAddr, forwarded_for: Option<&HeaderValue>, trusted: &[IpNet]) -> IpAddr {
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|net| net.contains(ip));
    if !is_trusted(&peer) {
        return peer;
    }
    let Some(list) = forwarded_for.and_then(|v| v.to_str().ok()) else {
        return peer;
    };
    let mut client = peer;
    for hop in list.rsplit(',') {
        // Anything unreadable was not written by a proxy we trust: stop at the last good hop.
        let Ok(ip) = hop.trim().parse::<IpAddr>() else {
            return client;
        };
        client = ip;
        if !is_trusted(&ip) {
            return ip;
        }
    }
    client
}

/// Copies the standing [`AuthLimiter::check`] noted onto the response, errors included.
///
/// # Errors
/// Those of the service it wraps.
pub async fn rate_limit_headers(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let mut res = next.call(req).await?;
    let status = res.request().extensions().get::<RateLimitStatus>().copied();
    if let Some(status) = status {
        let headers = res.headers_mut();
        let mut set = |name: &'static str, value: String| {
            if let Ok(value) = HeaderValue::from_str(&value) {
                headers.insert(HeaderName::from_static(name), value);
            }
        };
        set("ratelimit-policy", status.policy_field());
        set("ratelimit", status.limit_field());
    }
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nets(list: &[&str]) -> Vec<IpNet> {
        list.iter().map(|n| n.parse().expect("net")).collect()
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("ip")
    }

    #[test]
    fn the_fields_are_the_drafts_structured_lists() {
        let auth = RateLimitStatus {
            policy: "auth",
            limit: 10,
            remaining: 9,
            reset: Some(6),
            window: Some(60),
        };
        assert_eq!(auth.policy_field(), "\"auth\";q=10;w=60");
        assert_eq!(auth.limit_field(), "\"auth\";r=9;t=6");
        let streams = RateLimitStatus::at_cap("streams", 4);
        assert_eq!(streams.policy_field(), "\"streams\";q=4;qu=\"concurrent-requests\"");
        assert_eq!(streams.limit_field(), "\"streams\";r=0");
    }

    #[test]
    fn the_peer_is_the_client_unless_it_is_a_trusted_proxy() {
        let xff = HeaderValue::from_static("203.0.113.9");
        assert_eq!(client_address(ip("198.51.100.1"), Some(&xff), &[]), ip("198.51.100.1"));
        assert_eq!(
            client_address(ip("198.51.100.1"), Some(&xff), &nets(&["10.0.0.0/8"])),
            ip("198.51.100.1")
        );
        assert_eq!(
            client_address(ip("10.1.2.3"), Some(&xff), &nets(&["10.0.0.0/8"])),
            ip("203.0.113.9")
        );
    }

    #[test]
    fn forged_hops_at_the_left_are_not_believed() {
        let xff = HeaderValue::from_static("1.2.3.4, 203.0.113.9, 10.0.0.2");
        assert_eq!(
            client_address(ip("10.0.0.1"), Some(&xff), &nets(&["10.0.0.0/8"])),
            ip("203.0.113.9")
        );
        let garbage = HeaderValue::from_static("203.0.113.9, not-an-ip");
        assert_eq!(
            client_address(ip("10.0.0.1"), Some(&garbage), &nets(&["10.0.0.0/8"])),
            ip("10.0.0.1")
        );
        assert_eq!(
            client_address(ip("10.0.0.1"), None, &nets(&["10.0.0.0/8"])),
            ip("10.0.0.1")
        );
    }
}
