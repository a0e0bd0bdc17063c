//! The environment variables the server reads, with their defaults, as `--help` and the
//! README list them.

use super::{DEFAULT_DATABASE_URL, DEFAULT_WEBHOOK_RETRY_SCHEDULE};

/// Every variable the server reads, with its default, for `--help` and the README.
pub const VARIABLES: &[(&str, &str, &str)] = &[
    (
        "DATABASE_URL",
        DEFAULT_DATABASE_URL,
        "the database (created if missing); several hosts as libpq lists them (postgres://h1:5432,h2:5433/db?target_session_attrs=read-write): the server follows the one that takes writes, without a restart",
    ),
    (
        "DATABASE_READ_URL",
        "none",
        "a streaming standby of DATABASE_URL: boards, session pages, standings, exports, audits and bundles are read there; moves, and a caller's reads just after its own write, stay on the primary",
    ),
    (
        "DATABASE_READ_AFTER_WRITE_SECS",
        "5",
        "with DATABASE_READ_URL: a token that wrote reads from the primary for this long (read-your-writes); keep it above the standby's lag",
    ),
    ("BIND", "127.0.0.1:8080", "the API's listen address"),
    (
        "JWT_SECRET",
        "none",
        "HS256 signing key, 32+ bytes; without it: loopback only, random per-process key",
    ),
    ("TOKEN_TTL_HOURS", "12", "lifetime of bearer tokens"),
    ("DATABASE_MAX_CONNECTIONS", "10", "database pool size"),
    (
        "DATABASE_ACQUIRE_TIMEOUT_MS",
        "2000",
        "wait for a pooled connection before answering 503 database_unavailable; a database silent this long (frozen) is answered the same",
    ),
    (
        "DATABASE_STATEMENT_TIMEOUT_MS",
        "5000",
        "each statement's limit; a write still running after this plus the acquire wait is answered 503 database_unavailable",
    ),
    (
        "REQUEST_BODY_TIMEOUT_MS",
        "10000",
        "a request body must arrive within this, else 408 body_timeout and the connection is closed",
    ),
    (
        "MAX_REQUESTS_PER_CLIENT",
        "64",
        "requests one client address (see TRUSTED_PROXIES) may have in flight, bodies on their way included; beyond: 429 at once, connection closed",
    ),
    (
        "MAX_STREAMS_PER_CLIENT",
        "128",
        "live streams one client address (see TRUSTED_PROXIES) may hold open (a club night: 12 tables' phones and boards behind one router is ~72); beyond: 429 too_many_streams with Retry-After",
    ),
    (
        "MAX_CONNECTIONS_PER_CLIENT",
        "256",
        "connections, idle ones included, one peer address may hold open (trusted proxies are not counted); one beyond is closed as it is accepted. Keep it well below the open-file limit",
    ),
    ("WORKERS", "one per core", "HTTP worker threads"),
    (
        "AUTH_ATTEMPTS_PER_MINUTE",
        "20",
        "register/login/join attempts per client address per minute",
    ),
    (
        "TRUSTED_PROXIES",
        "none",
        "comma-separated IPs/CIDRs whose X-Forwarded-For names the client",
    ),
    (
        "CORS_ALLOWED_ORIGINS",
        "none",
        "comma-separated browser origins allowed cross-origin, or *",
    ),
    (
        "METRICS_BIND",
        "none",
        "serve /metrics on this address instead of the API's",
    ),
    (
        "HOT_TABLES",
        "10000",
        "tables whose latest state a replica keeps in memory for the next move",
    ),
    (
        "BATCH_MOVES",
        "true",
        "write the plain moves (no chips, no deal finished) of many tables that arrive together in one statement: a round trip and a commit for all",
    ),
    (
        "ANNOUNCE_APART",
        "auto",
        "announce a move and queue its webhooks in statements of their own, in its transaction (what Citus needs); auto: when the database has the citus extension",
    ),
    (
        "LIVE_LEASE_SECS",
        "60",
        "how long a replica's lease on a followed table lasts (renewed every third); moves of tables nobody follows are not announced",
    ),
    (
        "IDEMPOTENCY_RETENTION_SECS",
        "86400",
        "how long a move's answer kept under its Idempotency-Key answers a retry; older ones are pruned",
    ),
    (
        "SHUTDOWN_GRACE_SECS",
        "3",
        "on SIGTERM/SIGINT: live streams end at once, requests in flight get this long to finish",
    ),
    ("LOG_FORMAT", "text", "text, or json (one object per line)"),
    (
        "AUDIT_SIGNING_KEY",
        "none",
        "Ed25519 seed (64 hex digits) signing audit bundles and receipts; required beyond loopback; without it (local use only) one is kept in the database",
    ),
    (
        "AUDIT_SIGNING_KEY_FILE",
        "none",
        "a file holding that seed (64 hex digits), instead of AUDIT_SIGNING_KEY (a mounted secret)",
    ),
    (
        "AUDIT_PREVIOUS_KEYS",
        "none",
        "comma-separated public keys (64 hex digits) of earlier signing keys: after a rotation, old bundles and receipts still verify",
    ),
    (
        "PUBLIC_URL",
        "none",
        "the address phones open, e.g. https://cards.example.org (join QR codes use it)",
    ),
    (
        "WEBHOOKS_ALLOW_PRIVATE",
        "true on loopback, else false",
        "whether webhook endpoints may be on private, loopback or link-local addresses (checked at registration and at each delivery)",
    ),
    (
        "WEBHOOK_RETRY_SCHEDULE",
        DEFAULT_WEBHOOK_RETRY_SCHEDULE,
        "waits before each retry of a failed webhook delivery (ms, s, m, h; each stretched by up to a fifth at random); after the last, the delivery has failed",
    ),
    (
        "WEBHOOK_TIMEOUT_MS",
        "10000",
        "how long a webhook endpoint has to answer",
    ),
    (
        "WEBHOOK_POLL_MS",
        "1000",
        "how often each replica's delivery worker looks for due webhook deliveries",
    ),
    (
        "WEBHOOK_LEASE_MS",
        "60000",
        "how long a replica holds a delivery it claimed; one that dies mid-delivery leaves it to another after this (more than WEBHOOK_TIMEOUT_MS)",
    ),
    (
        "WEBHOOK_WORKER",
        "true",
        "false: this replica delivers no webhooks (others sharing the database do)",
    ),
    ("RUST_LOG", "info", "log filter (tracing EnvFilter syntax)"),
];
