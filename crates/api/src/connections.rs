//! What one client address may hold open: its live streams and its connections, so that a
//! flood from one address (a share link handed around, a script) can neither multiply the work
//! of every move by the streams that follow it nor use up the process's file descriptors.
//!
//! - A live stream (`GET /tables/{id}/events`, `GET /sessions/{id}/events`) takes a place among
//!   its client's `MAX_STREAMS_PER_CLIENT` before anything else is done for it, and holds it
//!   until its body is dropped: the client went away, its share link lapsed, or the replica is
//!   stopping. Beyond the cap it is answered `429 too_many_streams` with `Retry-After`. The
//!   client address is the one the other per-address limits use (`limits::client_address`: the
//!   peer, or the address a trusted proxy forwards).
//! - A connection takes a place among its peer's `MAX_CONNECTIONS_PER_CLIENT` as it is accepted
//!   and holds it until it is closed, idle or not; one beyond the cap is closed at once, before
//!   it is read. Only the peer is known then, so connections from a trusted proxy are not
//!   counted here (the proxy keeps its own limits, and the streams through it are still counted
//!   per forwarded address).
//!
//! A place is freed when what holds it is dropped, so the counts cannot outlive what they
//! count; the server aborts a connection as soon as its client closes it (no half-closed
//! connections), so a stream's place is freed as promptly as the client leaves.

use std::any::Any;
use std::collections::HashMap;
use std::future::{ready, Ready};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};

use actix_web::dev::Extensions;
use actix_web::http::StatusCode;
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use ipnet::IpNet;

use super::error::ApiError;
use super::limits::client_address;

/// How long a client refused a stream is told to wait: a place frees when one of its streams
/// ends, which a client sees before the server does.
const STREAM_RETRY_AFTER_SECS: u64 = 5;

/// Places held per client address, at most `max` each.
pub struct Tally {
    pub(crate) max: u32,
    held: Arc<Mutex<HashMap<IpAddr, u32>>>,
}

/// One place held by a client; freed when dropped.
#[must_use = "the place is freed when this is dropped"]
pub struct Place {
    client: IpAddr,
    held: Arc<Mutex<HashMap<IpAddr, u32>>>,
}

impl Tally {
    /// At most `max` places per address.
    pub fn new(max: u32) -> Tally {
        Tally {
            max,
            held: Arc::default(),
        }
    }

    /// A place for `client`, or None when it holds `max` already.
    pub fn take(&self, client: IpAddr) -> Option<Place> {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let count = held.entry(client).or_insert(0);
        if *count >= self.max {
            if *count == 0 {
                held.remove(&client);
            }
            return None;
        }
        *count += 1;
        Some(Place {
            client,
            held: self.held.clone(),
        })
    }

    /// How many places `client` holds.
    pub fn held_by(&self, client: IpAddr) -> u32 {
        self.held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&client)
            .copied()
            .unwrap_or(0)
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        // A panic while the lock was held leaves only counts behind: still usable.
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = held.get_mut(&self.client) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                held.remove(&self.client);
            }
        }
    }
}

/// Live streams per client address (`MAX_STREAMS_PER_CLIENT`).
pub struct StreamCap {
    tally: Tally,
    trusted_proxies: Vec<IpNet>,
}

impl StreamCap {
    pub fn new(max: u32, trusted_proxies: Vec<IpNet>) -> StreamCap {
        StreamCap {
            tally: Tally::new(max),
            trusted_proxies,
        }
    }

    /// A place for the request's client; None when there is no cap or no peer to count against.
    ///
    /// # Errors
    /// 429 `too_many_streams` with `Retry-After` when the client holds its cap of streams.
    fn admit(&self, req: &HttpRequest) -> Result<Option<Place>, ApiError> {
        let Some(peer) = req.peer_addr() else {
            return Ok(None);
        };
        let client = client_address(peer.ip(), req.headers().get("x-forwarded-for"), &self.trusted_proxies);
        match self.tally.take(client) {
            Some(place) => Ok(Some(place)),
            None => {
                req.extensions_mut()
                    .insert(super::limits::RateLimitStatus::at_cap("streams", self.tally.max));
                let mut refusal = ApiError::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    "too_many_streams",
                    format!(
                        "this address has {} live streams open, as many as it may; close one and try again",
                        self.tally.max
                    ),
                );
                refusal.retry_after = Some(STREAM_RETRY_AFTER_SECS);
                Err(refusal)
            }
        }
    }
}

/// A live stream's place among its client's streams, taken before the stream does anything;
/// the stream's body holds it until it is dropped.
pub struct StreamPlace(#[expect(dead_code, reason = "held for its Drop, which frees the place")] Option<Place>);

impl FromRequest for StreamPlace {
    type Error = ApiError;
    type Future = Ready<Result<StreamPlace, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        ready(crate::State::of(req).and_then(|state| state.stream_cap.admit(req).map(StreamPlace)))
    }
}

/// Connections per peer address (`MAX_CONNECTIONS_PER_CLIENT`), trusted proxies aside.
pub struct ConnectionCap {
    tally: Tally,
    trusted_proxies: Vec<IpNet>,
}

/// A connection's place, kept in the connection's data: dropped (freed) with the connection.
struct ConnectionPlace(#[expect(dead_code, reason = "held for its Drop, which frees the place")] Place);

impl ConnectionCap {
    pub fn new(max: u32, trusted_proxies: Vec<IpNet>) -> ConnectionCap {
        ConnectionCap {
            tally: Tally::new(max),
            trusted_proxies,
        }
    }

    /// For `HttpServer::on_connect`: counts a new connection against its peer, or closes it at
    /// once when the peer holds its cap (the server then reads its end and lets it go).
    pub fn on_connect(&self, io: &dyn Any, data: &mut Extensions) {
        let Some(stream) = io.downcast_ref::<actix_web::rt::net::TcpStream>() else {
            return;
        };
        let Ok(peer) = stream.peer_addr() else {
            return;
        };
        let peer = peer.ip();
        if self.trusted_proxies.iter().any(|net| net.contains(&peer)) {
            return;
        }
        match self.tally.take(peer) {
            Some(place) => {
                data.insert(ConnectionPlace(place));
            }
            None => {
                tracing::debug!(%peer, "connection refused: the address holds its cap of connections");
                // Both halves: the server reads the end of it and drops the connection, and the
                // client sees it closed.
                let _ = socket2::SockRef::from(stream).shutdown(std::net::Shutdown::Both);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("ip")
    }

    #[test]
    fn an_address_holds_at_most_its_cap_and_a_dropped_place_is_free_again() {
        let tally = Tally::new(2);
        let first = tally.take(ip("203.0.113.7"));
        let second = tally.take(ip("203.0.113.7"));
        assert!(first.is_some() && second.is_some());
        assert!(tally.take(ip("203.0.113.7")).is_none());
        assert!(tally.take(ip("198.51.100.2")).is_some(), "another address has its own");

        drop(first);

        assert_eq!(tally.held_by(ip("203.0.113.7")), 1);
        assert!(tally.take(ip("203.0.113.7")).is_some());
    }

    #[test]
    fn an_address_holding_nothing_is_forgotten() {
        let tally = Tally::new(1);
        drop(tally.take(ip("203.0.113.7")));
        assert!(tally.held.lock().expect("lock").is_empty());
        let none = Tally::new(0);
        assert!(none.take(ip("203.0.113.7")).is_none());
        assert!(none.held.lock().expect("lock").is_empty());
    }
}
