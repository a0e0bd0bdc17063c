//! Webhooks: a club's organisers register endpoints for events; each event is written to a
//! transactional outbox (`store::webhooks`) with the entry that caused it, and a worker in each
//! replica delivers it as the Standard Webhooks specification says (<https://www.standardwebhooks.com>):
//! `webhook-id` (the delivery's id, the same on every attempt), `webhook-timestamp` (the
//! attempt's Unix time) and `webhook-signature` (`v1,` + base64 of HMAC-SHA256 over
//! `{id}.{timestamp}.{body}` keyed with the secret's bytes).
//!
//! Invariants:
//! - Delivery is at least once: a row leaves `pending` only when an endpoint answered 2xx or its
//!   retries ran out; a worker that dies mid-delivery leaves its claim to lapse, and another
//!   worker sends it again with the same id.
//! - Endpoints are http(s) only; private, loopback and link-local addresses (IPv6 ones that
//!   carry such an IPv4 address included) are refused unless `WEBHOOKS_ALLOW_PRIVATE` says
//!   otherwise, at registration (literal addresses, `localhost`) and again at delivery, where a
//!   host name is resolved once and the connection made to the addresses checked (no second
//!   lookup, no proxy, no redirects).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use rand::Rng;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use serde_json::{json, Value};
use sha2::Sha256;
use tablekeeper_store::PgPool;
use uuid::Uuid;

use super::access::{require, Account, Capability};
use super::idempotency::{self, CreationKey, Kept, Outcome};
use super::{ensure_user, ServiceError};
use tablekeeper_store::webhooks::{self as store, Claimed, Event, Next};
pub use tablekeeper_store::webhooks::{Attempt, Delivery, Webhook};
use tablekeeper_store::StoreError;

/// The events an endpoint may ask for.
pub const EVENT_TYPES: [&str; 10] = [
    DEAL_FINISHED,
    TABLE_FINISHED,
    DEAL_CORRECTED,
    DEAL_DISPUTED,
    SESSION_SETTLED,
    TOURNAMENT_ROUND_STARTED,
    TOURNAMENT_FINISHED,
    SESSION_CLOSED,
    SESSION_FINAL,
    DEAL_RULED,
];
pub const DEAL_FINISHED: &str = "deal.finished";
pub const TABLE_FINISHED: &str = "table.finished";
pub const DEAL_CORRECTED: &str = "deal.corrected";
pub const DEAL_DISPUTED: &str = "deal.disputed";
/// A director ruled on a deal (issue #42).
pub const DEAL_RULED: &str = "deal.ruled";
pub const SESSION_SETTLED: &str = "session.settled";
/// A tournament's round was seated and its tables opened.
pub const TOURNAMENT_ROUND_STARTED: &str = "tournament.round_started";
/// A tournament's last round closed; the body carries the standings.
pub const TOURNAMENT_FINISHED: &str = "tournament.finished";

/// A session was closed: its correction window runs until `final_at`.
pub const SESSION_CLOSED: &str = "session.closed";
/// A session is final: its final checkpoint was made (sent when it is, the first time it is asked
/// for after the window, or at the close when the window is 0).
pub const SESSION_FINAL: &str = "session.final";

/// The longest URL an endpoint may have.
const URL_MAX: usize = 2000;

/// How deliveries are made: the `WEBHOOK_*` settings as configured, and how endpoints' names are
/// resolved.
#[derive(Debug, Clone)]
pub struct DeliverySettings {
    pub configured: tablekeeper_config::Webhooks,
    /// How endpoints' host names are resolved: the system's resolver unless a test says otherwise.
    pub resolver: Resolver,
}

impl DeliverySettings {
    /// The configured settings, resolving with `resolver`.
    pub fn new(settings: &tablekeeper_config::Webhooks, resolver: Resolver) -> DeliverySettings {
        DeliverySettings {
            configured: settings.clone(),
            resolver,
        }
    }
}

/// A resolver of host names for deliveries (the system's by default), and what it counts as a
/// public address ([`is_public`] by default).
#[derive(Clone)]
pub struct Resolver {
    inner: Arc<dyn Resolve>,
    public: fn(IpAddr) -> bool,
}

impl Resolver {
    /// Resolves with `resolver`.
    pub fn new(resolver: impl Resolve + 'static) -> Resolver {
        Resolver {
            inner: Arc::new(resolver),
            public: is_public,
        }
    }

    /// Resolves with `resolver` and counts as public what `public` says: for tests, which may
    /// send nothing beyond this machine and so stand a loopback address in for a public one.
    pub fn judging(resolver: impl Resolve + 'static, public: fn(IpAddr) -> bool) -> Resolver {
        Resolver {
            inner: Arc::new(resolver),
            public,
        }
    }
}

impl Default for Resolver {
    fn default() -> Resolver {
        Resolver::new(SystemResolver)
    }
}

impl std::fmt::Debug for Resolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Resolver")
    }
}

/// The operating system's resolver (`getaddrinfo` on a blocking thread).
struct SystemResolver;

impl Resolve for SystemResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

/// An endpoint's URL checked: http(s), a host, and (unless allowed) not a private address.
///
/// # Errors
/// `InvalidWebhook` naming what is wrong.
pub fn checked_url(url: &str, allow_private: bool) -> Result<reqwest::Url, ServiceError> {
    let invalid = |detail: String| ServiceError::InvalidWebhook {
        code: "invalid_url",
        detail,
    };
    if url.len() > URL_MAX {
        return Err(invalid(format!("a webhook URL is at most {URL_MAX} characters")));
    }
    let parsed = reqwest::Url::parse(url).map_err(|e| invalid(format!("`{url}` is not a URL ({e})")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(invalid(format!(
            "a webhook URL is http:// or https://, not {}://",
            parsed.scheme()
        )));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(invalid("a webhook URL carries no user name or password".into()));
    }
    let private = match parsed.host() {
        None => return Err(invalid("a webhook URL names a host".into())),
        Some(url::Host::Domain(d)) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
        Some(url::Host::Ipv4(ip)) => !is_public(IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) => !is_public(IpAddr::V6(ip)),
    };
    if private && !allow_private {
        return Err(ServiceError::InvalidWebhook {
            code: "private_address",
            detail:
                "this server does not deliver to private, loopback or link-local addresses (WEBHOOKS_ALLOW_PRIVATE)"
                    .into(),
        });
    }
    Ok(parsed)
}

/// Whether an address is on the public internet: not loopback, private, link-local, shared
/// (carrier-grade NAT), unspecified, multicast or documentation space. An IPv6 address that
/// carries an IPv4 address (IPv4-mapped or -compatible, NAT64, 6to4, Teredo) is judged by the
/// IPv4 address it leads to; the local-use NAT64 prefix is never public.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || a == 0
                || (a == 100 && (64..128).contains(&b)))
        }
        IpAddr::V6(v6) => {
            let s = v6.segments();
            let v4 = |high: u16, low: u16| IpAddr::V4(Ipv4Addr::from((u32::from(high) << 16) | u32::from(low)));
            match s {
                // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d, RFC 4291 §2.5.5.1;
                // `::` and `::1` land on 0.0.0.0 and 0.0.0.1, not public either).
                [0, 0, 0, 0, 0, 0xffff | 0, high, low] => return is_public(v4(high, low)),
                // NAT64 well-known prefix 64:ff9b::/96 (RFC 6052).
                [0x64, 0xff9b, 0, 0, 0, 0, high, low] => return is_public(v4(high, low)),
                // Local-use NAT64 64:ff9b:1::/48 (RFC 8215): not globally reachable, and where the
                // IPv4 address sits depends on a prefix length the address does not show.
                [0x64, 0xff9b, 1, ..] => return false,
                // 6to4 2002::/16 (RFC 3056): the IPv4 address in bits 16..48.
                [0x2002, high, low, ..] => return is_public(v4(high, low)),
                // Teredo 2001::/32 (RFC 4380): the server in bits 32..64, the client's address
                // inverted in the last 32 bits; packets reach both.
                [0x2001, 0, server_high, server_low, _, _, client_high, client_low] => {
                    return is_public(v4(server_high, server_low)) && is_public(v4(!client_high, !client_low))
                }
                _ => {}
            }
            let first = s[0];
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80)
        }
    }
}

/// The event types asked for, checked and without repeats, in the order given.
///
/// # Errors
/// `InvalidWebhook` (`unknown_event`, `no_events`).
pub fn checked_events(events: &[String]) -> Result<Vec<String>, ServiceError> {
    let mut out: Vec<String> = Vec::with_capacity(events.len());
    for e in events {
        if !EVENT_TYPES.contains(&e.as_str()) {
            return Err(ServiceError::InvalidWebhook {
                code: "unknown_event",
                detail: format!("there is no event `{e}`; there are {}", EVENT_TYPES.join(", ")),
            });
        }
        if !out.contains(e) {
            out.push(e.clone());
        }
    }
    if out.is_empty() {
        return Err(ServiceError::InvalidWebhook {
            code: "no_events",
            detail: "name at least one event".into(),
        });
    }
    Ok(out)
}

/// A new endpoint secret: `whsec_` + base64 of 32 random bytes.
fn new_secret() -> String {
    let mut key = [0u8; 32];
    rand::thread_rng().fill(&mut key);
    format!("whsec_{}", BASE64.encode(key))
}

/// The Standard Webhooks signature (`v1,<base64>`) of `body` sent as message `id` at `timestamp`.
///
/// # Errors
/// `Corrupt` when the secret is not `whsec_` + base64.
pub fn sign(secret: &str, id: &str, timestamp: i64, body: &str) -> Result<String, ServiceError> {
    let key = secret
        .strip_prefix("whsec_")
        .and_then(|k| BASE64.decode(k).ok())
        .ok_or_else(|| ServiceError::Corrupt("a webhook secret is not whsec_ and base64".into()))?;
    let mut mac = Hmac::<Sha256>::new_from_slice(&key)
        .map_err(|_| ServiceError::Corrupt("a webhook secret is not a usable key".into()))?;
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(body.as_bytes());
    Ok(format!("v1,{}", BASE64.encode(mac.finalize().into_bytes())))
}

/// An event's body: `{"type", "timestamp", "data"}`, as Standard Webhooks suggests.
pub fn event(kind: &'static str, at: DateTime<Utc>, data: Value) -> Event {
    let body = json!({
        "type": kind,
        "timestamp": at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        "data": data,
    });
    Event {
        kind,
        body: body.to_string(),
    }
}

/// Writes a deal's event (`deal.corrected`, `deal.disputed`) to the outbox in `conn`'s
/// transaction, the one that records the correction or dispute.
///
/// # Errors
/// On database failure.
pub async fn enqueue_deal_event(
    conn: &mut tablekeeper_store::PgConnection,
    kind: &'static str,
    table: &tablekeeper_store::tables::TableRow,
    deal: u16,
    now: DateTime<Utc>,
) -> Result<(), ServiceError> {
    Ok(store::enqueue(conn, table.club_id, &[deal_event(kind, table, deal, now)], now).await?)
}

/// A deal's event (`deal.corrected`, `deal.disputed`) at `now`.
pub fn deal_event(
    kind: &'static str,
    table: &tablekeeper_store::tables::TableRow,
    deal: u16,
    now: DateTime<Utc>,
) -> tablekeeper_store::webhooks::Event {
    let data = json!({
        "club_id": table.club_id,
        "session_id": table.session_id,
        "table_id": table.id,
        "game": table.game,
        "deal": deal,
    });
    event(kind, now, data)
}

/// Registers an endpoint for the club's events (organisers and owners), once per `key`; `render`
/// gives the answer (with the secret, shown this once).
///
/// # Errors
/// `Store(NotFound("club"))` for a stranger to the club; `Forbidden` for a role that does not
/// organise; `IdempotencyKeyReused`; `Encode` when `render` fails.
pub async fn register<K: Kept>(
    pool: &PgPool,
    account: Account,
    club: Uuid,
    url: &str,
    events: &[String],
    key: Option<&CreationKey>,
    render: impl FnOnce(Webhook) -> Result<K, serde_json::Error>,
) -> Result<Outcome<K>, ServiceError> {
    let user = account.user();
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    ensure_user(&mut tx, user).await?;
    if let Some(first) = idempotency::first_answer(&mut tx, user, key).await? {
        return Ok(first);
    }
    require(&mut tx, account, club, Capability::Organise, "club").await?;
    let hook = store::insert(&mut tx, club, url, events, &new_secret(), user).await?;
    let answer = render(hook).map_err(ServiceError::Encode)?;
    idempotency::keep_and_commit(tx, user, key, answer).await
}

/// The club's endpoints (organisers and owners), oldest first.
///
/// # Errors
/// As [`register`].
pub async fn list(
    pool: &PgPool,
    account: Account,
    club: Uuid,
    limit: i64,
    offset: i64,
) -> Result<Vec<Webhook>, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    require(&mut conn, account, club, Capability::Organise, "club").await?;
    Ok(store::list(&mut conn, club, limit, offset).await?)
}

/// Deletes the club's endpoint (organisers and owners): nothing more is sent to it, pending
/// deliveries included.
///
/// # Errors
/// As [`register`]; `Store(NotFound("webhook"))`.
pub async fn delete(pool: &PgPool, account: Account, club: Uuid, id: Uuid) -> Result<(), ServiceError> {
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    require(&mut tx, account, club, Capability::Organise, "club").await?;
    store::delete(&mut tx, club, id).await?;
    tx.commit().await.map_err(StoreError::from)?;
    Ok(())
}

/// The endpoint's deliveries, newest first, each with its attempts.
///
/// # Errors
/// As [`delete`].
pub async fn deliveries(
    pool: &PgPool,
    account: Account,
    club: Uuid,
    id: Uuid,
    limit: i64,
    offset: i64,
) -> Result<Vec<(Delivery, Vec<Attempt>)>, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    require(&mut conn, account, club, Capability::Organise, "club").await?;
    store::fetch(&mut conn, club, id).await?;
    let rows = store::deliveries(&mut conn, id, limit, offset).await?;
    let ids: Vec<Uuid> = rows.iter().map(|d| d.id).collect();
    let mut attempts = store::attempts(&mut conn, &ids).await?;
    Ok(rows
        .into_iter()
        .map(|d| {
            let (mine, rest): (Vec<_>, Vec<_>) = attempts.drain(..).partition(|a| a.delivery_id == d.id);
            attempts = rest;
            (d, mine)
        })
        .collect())
}

/// Sends the endpoint's delivery again, with the same id and body: due now, whatever became of
/// it (delivered, failed or still retrying). Once per `key`: `render` gives the answer, kept
/// under the key; a retry with the key gets that answer and makes the delivery due no second
/// time (its retries do not start over again).
///
/// # Errors
/// As [`delete`]; `Store(NotFound("delivery"))`; `IdempotencyKeyReused`.
pub async fn redeliver<K: Kept>(
    pool: &PgPool,
    account: Account,
    club: Uuid,
    id: Uuid,
    delivery: Uuid,
    key: Option<&CreationKey>,
    render: impl FnOnce(Delivery) -> Result<K, serde_json::Error>,
) -> Result<Outcome<K>, ServiceError> {
    let user = account.user();
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    if let Some(first) = idempotency::first_answer(&mut tx, user, key).await? {
        return Ok(first);
    }
    require(&mut tx, account, club, Capability::Organise, "club").await?;
    store::fetch(&mut tx, club, id).await?;
    let row = store::redeliver(&mut tx, id, delivery).await?;
    let answer = render(row).map_err(ServiceError::Encode)?;
    idempotency::keep_and_commit(tx, user, key, answer).await
}

/// A replica's delivery worker: claims due deliveries, sends them, records each attempt.
pub struct Worker {
    pool: PgPool,
    client: reqwest::Client,
    settings: DeliverySettings,
}

/// How many deliveries one claim takes.
const BATCH: i64 = 16;

impl Worker {
    /// # Errors
    /// When the HTTP client cannot be built.
    pub fn new(pool: PgPool, settings: DeliverySettings) -> Result<Arc<Worker>, reqwest::Error> {
        let client = reqwest::Client::builder()
            .timeout(settings.configured.timeout)
            // A redirect could lead anywhere, a private address included: an endpoint answers itself.
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("tablekeeper-webhooks/", env!("CARGO_PKG_VERSION")))
            // The addresses a host name is checked on are the ones connected to: one lookup.
            .dns_resolver(Arc::new(Checked {
                inner: settings.resolver.inner.clone(),
                public: settings.resolver.public,
                allow_private: settings.configured.allow_private,
            }))
            // A proxy would look the name up again, out of the resolver's sight.
            .no_proxy()
            .build()?;
        Ok(Arc::new(Worker { pool, client, settings }))
    }

    /// Delivers until `stop` says so; deliveries in flight then are finished first (they are
    /// bounded by the timeout), and whatever is left stays due for another replica.
    pub async fn run(self: Arc<Self>, mut stop: tokio::sync::watch::Receiver<bool>) {
        loop {
            if *stop.borrow() {
                return;
            }
            let sent = match self.round().await {
                Ok(n) => n,
                Err(e) => {
                    tracing::warn!(error = %e, "webhook deliveries: claiming failed");
                    0
                }
            };
            // A full batch suggests more are due: look again at once.
            if sent as i64 >= BATCH {
                continue;
            }
            tokio::select! {
                _ = tokio::time::sleep(self.settings.configured.poll) => {}
                _ = stop.changed() => {}
            }
        }
    }

    /// Claims what is due and delivers it; how many were claimed.
    ///
    /// # Errors
    /// When the claim fails.
    pub async fn round(&self) -> Result<usize, ServiceError> {
        let claimed = {
            let mut conn = self.pool.acquire().await.map_err(StoreError::from)?;
            store::claim(&mut conn, BATCH, self.settings.configured.lease).await?
        };
        let n = claimed.len();
        let mut sending = tokio::task::JoinSet::new();
        for c in claimed {
            let me = Worker {
                pool: self.pool.clone(),
                client: self.client.clone(),
                settings: self.settings.clone(),
            };
            sending.spawn(async move { me.deliver(c).await });
        }
        while let Some(done) = sending.join_next().await {
            if let Ok(Err(e)) = done {
                tracing::warn!(error = %e, "webhook delivery: recording the attempt failed");
            }
        }
        Ok(n)
    }

    async fn deliver(&self, claimed: Claimed) -> Result<(), ServiceError> {
        let attempted_at = Utc::now();
        let started = Instant::now();
        let (status, error) = match self.send(&claimed, attempted_at).await {
            Ok(status) if (200..300).contains(&status) => (Some(status), None),
            Ok(status) => (Some(status), Some(format!("the endpoint answered {status}"))),
            Err(e) => (None, Some(e)),
        };
        let duration_ms = i32::try_from(started.elapsed().as_millis()).unwrap_or(i32::MAX);
        let next = if error.is_none() {
            Next::Delivered
        } else {
            match usize::try_from(claimed.attempts - 1)
                .ok()
                .and_then(|i| self.settings.configured.retry_schedule.get(i))
            {
                Some(wait) => Next::RetryAt(Utc::now() + jittered(*wait)),
                None => Next::Failed,
            }
        };
        let outcome = store::Outcome {
            attempted_at,
            status,
            error,
            duration_ms,
            next,
        };
        let mut conn = self.pool.acquire().await.map_err(StoreError::from)?;
        if !store::finish(&mut conn, &claimed, &outcome).await? {
            tracing::info!(delivery = %claimed.id, "webhook delivery: the claim lapsed before its outcome was recorded");
        }
        Ok(())
    }

    /// One attempt: the endpoint's status code, or why none came.
    async fn send(&self, claimed: &Claimed, at: DateTime<Utc>) -> Result<u16, String> {
        // A literal address is checked here; a host name by the client's resolver (`Checked`).
        let url = checked_url(&claimed.url, self.settings.configured.allow_private).map_err(|e| e.to_string())?;
        let id = claimed.id.to_string();
        let timestamp = at.timestamp();
        let signature = sign(&claimed.secret, &id, timestamp, &claimed.body).map_err(|e| e.to_string())?;
        let response = self
            .client
            .post(url)
            .header("content-type", "application/json")
            .header("webhook-id", &id)
            .header("webhook-timestamp", timestamp.to_string())
            .header("webhook-signature", signature)
            .body(claimed.body.clone())
            .send()
            .await
            .map_err(|e| {
                if e.is_timeout() {
                    format!("no answer within {} ms", self.settings.configured.timeout.as_millis())
                } else if let Some(unresolved) = unresolved(&e) {
                    unresolved.to_string()
                } else {
                    format!("{e}")
                }
            })?;
        Ok(response.status().as_u16())
    }
}

/// The client's resolver: resolves a host name once and hands the connector only addresses that
/// passed the check, so a name cannot answer a public address to a check and a private one to
/// the connection (DNS rebinding).
struct Checked {
    inner: Arc<dyn Resolve>,
    public: fn(IpAddr) -> bool,
    allow_private: bool,
}

impl Resolve for Checked {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        let lookup = self.inner.resolve(name);
        let allow_private = self.allow_private;
        let public = self.public;
        Box::pin(async move {
            let addrs: Vec<SocketAddr> = match lookup.await {
                Ok(addrs) => addrs.collect(),
                Err(e) => {
                    return Err(Unresolved::Failed {
                        host,
                        reason: e.to_string(),
                    }
                    .into())
                }
            };
            if !allow_private {
                if let Some(private) = addrs.iter().find(|a| !public(a.ip())) {
                    return Err(Unresolved::Private { host, ip: private.ip() }.into());
                }
            }
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

/// Why a delivery's host name gave no address to connect to.
#[derive(Debug, thiserror::Error)]
enum Unresolved {
    #[error("{host} resolves to {ip}, a private address (WEBHOOKS_ALLOW_PRIVATE is false)")]
    Private { host: String, ip: IpAddr },
    #[error("cannot resolve {host}: {reason}")]
    Failed { host: String, reason: String },
}

/// The resolver's refusal behind a client's error (which names only the URL), if that is why.
fn unresolved(e: &reqwest::Error) -> Option<&Unresolved> {
    std::iter::successors(Some(e as &(dyn std::error::Error + 'static)), |e| e.source())
        .find_map(|e| e.downcast_ref::<Unresolved>())
}

/// `wait` stretched by up to a fifth at random, so that deliveries failing together do not all
/// come back together.
fn jittered(wait: Duration) -> chrono::Duration {
    let factor = 1.0 + rand::thread_rng().gen_range(0.0..0.2);
    chrono::Duration::from_std(wait.mul_f64(factor)).unwrap_or(chrono::Duration::days(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_is_the_standard_webhooks_example() {
        // The example of the Standard Webhooks specification's reference libraries.
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let body = r#"{"test": 2432232314}"#;
        let signature = sign(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body).expect("signs");
        assert_eq!(signature, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    #[test]
    fn urls_are_http_with_a_host_and_public_unless_allowed() {
        assert!(checked_url("https://example.org/hook", false).is_ok());
        for bad in [
            "ftp://example.org/",
            "example.org",
            "https://u:p@example.org/",
            "file:///etc/passwd",
        ] {
            assert!(checked_url(bad, true).is_err(), "{bad}");
        }
        for private in [
            "http://127.0.0.1:9000/",
            "http://localhost/",
            "http://10.1.2.3/",
            "http://[::1]/",
            "http://169.254.169.254/latest",
            "http://[::ffff:192.168.0.1]/",
        ] {
            assert!(
                matches!(
                    checked_url(private, false),
                    Err(ServiceError::InvalidWebhook {
                        code: "private_address",
                        ..
                    })
                ),
                "{private}"
            );
            assert!(checked_url(private, true).is_ok(), "{private}");
        }
    }

    /// Whether `ip` (text) is public, for the tables below.
    fn public(ip: &str) -> bool {
        is_public(ip.parse().expect("an address"))
    }

    #[test]
    fn ipv6_addresses_that_embed_ipv4_are_judged_by_the_ipv4_inside() {
        // (form, the address with a public IPv4 inside, the address with a private one inside)
        for (form, outside, inside) in [
            ("IPv4-mapped", "::ffff:93.184.215.14", "::ffff:127.0.0.1"),
            ("IPv4-compatible", "::93.184.215.14", "::10.0.0.1"),
            ("IPv4-compatible", "::93.184.215.14", "::169.254.169.254"),
            (
                "NAT64 well-known prefix",
                "64:ff9b::93.184.215.14",
                "64:ff9b::127.0.0.1",
            ),
            ("NAT64 well-known prefix", "64:ff9b::5db8:d70e", "64:ff9b::a9fe:a9fe"),
            ("6to4", "2002:5db8:d70e::1", "2002:7f00:1::1"),
            ("6to4", "2002:5db8:d70e:1:2:3:4:5", "2002:c0a8:101:1:2:3:4:5"),
            // Teredo: server 65.54.227.120 in bits 32..64; the client's address is the last 32
            // bits inverted (a2b7:28f1 is 93.72.215.14; 80ff:fffe is 127.0.0.1).
            (
                "Teredo client",
                "2001:0:4136:e378:8000:63bf:a2b7:28f1",
                "2001:0:4136:e378:8000:63bf:80ff:fffe",
            ),
            (
                "Teredo server",
                "2001:0:4136:e378:8000:63bf:a2b7:28f1",
                "2001:0:a00:1:8000:63bf:a2b7:28f1",
            ),
        ] {
            assert!(public(outside), "{form}: {outside} is public");
            assert!(!public(inside), "{form}: {inside} is not public");
        }
        // The local-use NAT64 prefix (RFC 8215) is never public: where it puts the IPv4 address
        // depends on a prefix length the address does not show, and the prefix is local anyway.
        assert!(!public("64:ff9b:1::127.0.0.1"));
        assert!(!public("64:ff9b:1::93.184.215.14"));
        // Public IPv6 outside those prefixes stays public; the unspecified and loopback
        // addresses (which look IPv4-compatible) stay private.
        for ip in [
            "2606:2800:21f:cb07:6820:80da:af6b:8b2c",
            "2001:4860:4860::8888",
            "64:ff9c::1",
        ] {
            assert!(public(ip), "{ip}");
        }
        for ip in ["::", "::1", "fd00::1", "fe80::1"] {
            assert!(!public(ip), "{ip}");
        }
    }

    #[test]
    fn urls_with_ipv6_literals_that_embed_private_ipv4_are_refused() {
        for url in [
            "http://[::127.0.0.1]/",
            "http://[64:ff9b::10.0.0.1]/",
            "http://[2002:a9fe:a9fe::1]/latest",
            "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
        ] {
            assert!(
                matches!(
                    checked_url(url, false),
                    Err(ServiceError::InvalidWebhook {
                        code: "private_address",
                        ..
                    })
                ),
                "{url}"
            );
        }
    }

    #[test]
    fn events_are_known_and_kept_once() {
        let events = checked_events(&["deal.finished".into(), "deal.finished".into(), "session.settled".into()]);
        assert_eq!(events.expect("known"), vec!["deal.finished", "session.settled"]);
        assert!(checked_events(&["deal.started".into()]).is_err());
        assert!(checked_events(&[]).is_err());
    }

    #[test]
    fn jitter_stretches_by_at_most_a_fifth() {
        for _ in 0..100 {
            let j = jittered(Duration::from_secs(100)).num_milliseconds();
            assert!((100_000..120_000).contains(&j), "{j}");
        }
    }
}
