//! Settings from the environment, with safe defaults for local use. A bad value stops start-up
//! with the variable's name.

use std::net::SocketAddr;
use std::time::Duration;

use ipnet::IpNet;

/// Everything the server needs to start.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The database's server, or several (a primary and its standbys) of which the one that
    /// fits `target_session_attrs` is followed.
    pub database_url: DatabaseUrl,
    /// A streaming standby for reads that tolerate a little lag (`DATABASE_READ_URL`); None:
    /// every read on `database_url`.
    pub database_read_url: Option<String>,
    /// How long after a caller's write its reads stay on the primary (read-your-writes).
    pub read_after_write: Duration,
    pub bind: SocketAddr,
    /// None: local use only, with a random per-process secret.
    pub jwt_secret: Option<String>,
    pub token_ttl_hours: i64,
    pub database_max_connections: u32,
    pub workers: Option<usize>,
    /// Attempts per minute per client address on `/auth/*` (password and join-code checks).
    pub auth_attempts_per_minute: u32,
    /// How long a request waits for a database connection before answering 503, and how long a
    /// database may be silent (frozen) before a request waiting on it is answered 503.
    pub database_acquire_timeout: Duration,
    /// Each connection's `statement_timeout`; a write's handler gets the acquire timeout plus
    /// this before it is answered 503 (reads run while the database answers).
    pub database_statement_timeout: Duration,
    /// How long a request's body may take to arrive before it is answered 408.
    pub request_body_timeout: Duration,
    /// Requests one client address may have in flight; beyond: 429 at once.
    pub max_requests_per_client: u32,
    /// Live streams one client address may hold open; beyond: 429 `too_many_streams`.
    pub max_streams_per_client: u32,
    /// Connections (idle ones included) one peer address that is not a trusted proxy may hold
    /// open; one beyond is closed as it is accepted.
    pub max_connections_per_client: u32,
    /// Browser origins allowed to call the API cross-origin (CORS); empty: none.
    pub cors_allowed_origins: CorsOrigins,
    /// Where `/metrics` is served; None: on the API's own address.
    pub metrics_bind: Option<SocketAddr>,
    /// Peers whose `X-Forwarded-For` is believed (reverse proxies, load balancers).
    pub trusted_proxies: Vec<IpNet>,
    pub log_format: LogFormat,
    /// The Ed25519 seed that signs audit bundles and receipts (`AUDIT_SIGNING_KEY` or the file
    /// `AUDIT_SIGNING_KEY_FILE` names); None, for local use only: one made once and kept in the
    /// database, which a superuser of that database could then use.
    pub audit_signing_key: Option<[u8; 32]>,
    /// The public keys of earlier signing keys (`AUDIT_PREVIOUS_KEYS`): listed by
    /// `GET /audit-key`, so that bundles and receipts signed before a rotation still verify.
    pub audit_previous_keys: Vec<ed25519_dalek::VerifyingKey>,
    /// How many tables' latest states a replica keeps in memory for their next move.
    pub hot_tables: usize,
    /// Whether plain moves of many tables are written together, one statement for all that
    /// arrive while the last one runs (`BATCH_MOVES`, on by default; see `store::move_batch`).
    pub batch_moves: bool,
    /// Whether a move's announcement and webhook outbox rows are statements of their own in the
    /// move's transaction rather than parts of its one write (`ANNOUNCE_APART`); None: so when
    /// the database is Citus, whose workers run the write while replicas listen on the
    /// coordinator.
    pub announce_apart: Option<bool>,
    /// How long a replica's lease on a followed table lasts; renewed every third of it.
    pub live_lease: Duration,
    /// How long a move's answer kept under its `Idempotency-Key` answers a retry; older ones are
    /// pruned.
    pub idempotency_retention: Duration,
    /// The address phones open (`scheme://host[:port][/path]`, no trailing slash), for join QR
    /// codes; None: not configured.
    pub public_url: Option<String>,
    /// How long requests in flight may take to finish once SIGTERM or SIGINT arrives (live
    /// streams end at once); connections still open then are closed.
    pub shutdown_grace: Duration,
    /// How webhooks are delivered (`WEBHOOK_*`, `WEBHOOKS_ALLOW_PRIVATE`).
    pub webhooks: Webhooks,
}

/// How webhooks are delivered (`WEBHOOK_*`, `WEBHOOKS_ALLOW_PRIVATE`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Webhooks {
    /// Whether endpoints may be on private, loopback or link-local addresses.
    pub allow_private: bool,
    /// How often a worker looks for due deliveries.
    pub poll: Duration,
    /// The waits before the second, third, … attempt; after the last, a delivery has failed.
    pub retry_schedule: Vec<Duration>,
    /// How long an endpoint has to answer.
    pub timeout: Duration,
    /// How long a claimed delivery is held by its worker before another may take it.
    pub lease: Duration,
    /// Whether this replica runs a delivery worker at all.
    pub worker: bool,
}

/// How many tables' latest states a replica keeps in memory by default (`HOT_TABLES`).
pub const DEFAULT_HOT_TABLES: usize = 10_000;
/// How long a replica's lease on a followed table lasts by default (`LIVE_LEASE_SECS`).
pub const DEFAULT_LIVE_LEASE: Duration = Duration::from_secs(60);
/// How long a move's answer kept under its `Idempotency-Key` answers a retry by default
/// (`IDEMPOTENCY_RETENTION_SECS`).
pub const DEFAULT_IDEMPOTENCY_RETENTION: Duration = Duration::from_secs(24 * 60 * 60);

/// `N` bytes from exactly `2N` lower-case hex digits.
pub fn unhex<const N: usize>(text: &str) -> Option<[u8; N]> {
    if text.len() != 2 * N || !text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return None;
    }
    let mut out = [0u8; N];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// An Ed25519 public key from its 64 lower-case hex digits.
///
/// # Errors
/// A sentence naming the text when it is not one.
pub fn public_key(hex: &str) -> Result<ed25519_dalek::VerifyingKey, String> {
    unhex::<32>(hex.trim())
        .and_then(|k| ed25519_dalek::VerifyingKey::from_bytes(&k).ok())
        .ok_or_else(|| {
            format!(
                "`{}` is not 64 lower-case hex digits of an Ed25519 public key",
                hex.trim()
            )
        })
}

/// The origins CORS allows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum CorsOrigins {
    /// No CORS headers at all: browsers on other origins cannot call the API.
    #[default]
    None,
    /// `*`: any origin (the API takes bearer tokens, never cookies, so no credentials are involved).
    Any,
    /// Exactly these origins (`https://app.example.org`).
    Some(Vec<String>),
}

/// How log lines are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// Human-readable text, coloured only on a terminal.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

mod variables;
pub use variables::VARIABLES;

/// About 26 hours in all, as Standard Webhooks senders retry for a day or more.
pub const DEFAULT_WEBHOOK_RETRY_SCHEDULE: &str = "5s,30s,2m,10m,1h,3h,6h,8h,8h";

/// A list of waits such as `5s,30s,2m,1h,250ms`.
fn durations(text: &str) -> Option<Vec<Duration>> {
    text.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| {
            let split = t.find(|c: char| !c.is_ascii_digit())?;
            let (n, unit) = t.split_at(split);
            let n: u64 = n.parse().ok()?;
            let ms = match unit.trim() {
                "ms" => n,
                "s" => n.checked_mul(1000)?,
                "m" => n.checked_mul(60_000)?,
                "h" => n.checked_mul(3_600_000)?,
                _ => return None,
            };
            Some(Duration::from_millis(ms))
        })
        .collect()
}

/// Well inside the 30 s a Kubernetes pod gets between SIGTERM and SIGKILL, and the 5 s a client
/// waits to resume a stream elsewhere.
pub const DEFAULT_SHUTDOWN_GRACE_SECS: u64 = 3;

/// A club night behind one router: a dozen tables, each followed by its four phones and a board
/// or two, is some 72 streams from one address; twice that leaves room for phones that
/// reconnected before the server noticed their old streams were gone, and an organiser's
/// screens, while a flood from one address is cut at a few dozen times one table's followers.
pub const DEFAULT_MAX_STREAMS_PER_CLIENT: u32 = 128;

/// The streams above (each holds a connection), the requests in flight
/// (`MAX_REQUESTS_PER_CLIENT`, 64) and 64 idle keep-alive connections: a quarter of the 1,024
/// descriptors a service is often started with, so that one address cannot take them all.
pub const DEFAULT_MAX_CONNECTIONS_PER_CLIENT: u32 = 256;

mod database_url;
pub use database_url::{DatabaseUrl, TargetSessionAttrs};

pub const DEFAULT_DATABASE_URL: &str = "postgres://postgres@127.0.0.1:5432/tablekeeper";

#[derive(Debug, thiserror::Error)]
#[error("{variable}: {reason}")]
pub struct ConfigError {
    pub variable: &'static str,
    pub reason: String,
}

impl Settings {
    /// Reads the environment.
    ///
    /// # Errors
    /// Names the variable that is malformed, or `JWT_SECRET` when it is missing for a server that
    /// listens beyond this machine.
    pub fn from_env() -> Result<Settings, ConfigError> {
        Settings::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads settings through `lookup` (the environment, or a map in tests).
    ///
    /// # Errors
    /// As `from_env`.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Settings, ConfigError> {
        let var = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let bind: SocketAddr = var("BIND")
            .unwrap_or_else(|| "127.0.0.1:8080".into())
            .parse()
            .map_err(|e| ConfigError {
                variable: "BIND",
                reason: format!("not a socket address ({e})"),
            })?;
        let jwt_secret = var("JWT_SECRET");
        match &jwt_secret {
            Some(secret) if secret.len() < 32 => {
                return Err(ConfigError {
                    variable: "JWT_SECRET",
                    reason: "use at least 32 bytes".into(),
                })
            }
            None if !bind.ip().is_loopback() => {
                return Err(ConfigError {
                    variable: "JWT_SECRET",
                    reason: format!("required when listening on {bind}; without it the server runs on loopback only"),
                })
            }
            _ => {}
        }
        let number = |name: &'static str, default: u64| -> Result<u64, ConfigError> {
            var(name).map_or(Ok(default), |v| {
                v.parse::<u64>().ok().filter(|&n| n > 0).ok_or_else(|| ConfigError {
                    variable: name,
                    reason: format!("`{v}` is not a positive whole number"),
                })
            })
        };
        let count = |name: &'static str, default: u32| -> Result<u32, ConfigError> {
            u32::try_from(number(name, u64::from(default))?).map_err(|_| ConfigError {
                variable: name,
                reason: "at most 4294967295".into(),
            })
        };
        let cors_allowed_origins = match var("CORS_ALLOWED_ORIGINS") {
            None => CorsOrigins::None,
            Some(list) if list.trim() == "*" => CorsOrigins::Any,
            Some(list) => CorsOrigins::Some(
                list.split(',')
                    .map(str::trim)
                    .filter(|o| !o.is_empty())
                    .map(|o| {
                        origin(o).ok_or_else(|| ConfigError {
                            variable: "CORS_ALLOWED_ORIGINS",
                            reason: format!("`{o}` is not an origin like https://app.example.org (scheme, host, optional port; no path)"),
                        })
                    })
                    .collect::<Result<_, _>>()?,
            ),
        };
        let metrics_bind = var("METRICS_BIND")
            .map(|v| {
                v.parse::<SocketAddr>().map_err(|e| ConfigError {
                    variable: "METRICS_BIND",
                    reason: format!("not a socket address ({e})"),
                })
            })
            .transpose()?;
        let trusted_proxies = var("TRUSTED_PROXIES")
            .map(|list| {
                list.split(',')
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .map(|p| {
                        p.parse::<IpNet>()
                            .or_else(|_| p.parse::<std::net::IpAddr>().map(IpNet::from))
                            .map_err(|_| ConfigError {
                                variable: "TRUSTED_PROXIES",
                                reason: format!("`{p}` is neither an IP address nor a CIDR block"),
                            })
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?
            .unwrap_or_default();
        let log_format = match var("LOG_FORMAT").map(|v| v.trim().to_ascii_lowercase()).as_deref() {
            None | Some("text") => LogFormat::Text,
            Some("json") => LogFormat::Json,
            Some(other) => {
                return Err(ConfigError {
                    variable: "LOG_FORMAT",
                    reason: format!("`{other}` is neither `text` nor `json`"),
                })
            }
        };
        let audit_signing_key = audit_signing_key(&var, bind)?;
        let audit_previous_keys = var("AUDIT_PREVIOUS_KEYS")
            .map(|list| {
                list.split(',')
                    .map(str::trim)
                    .filter(|k| !k.is_empty())
                    .map(|k| {
                        public_key(k).map_err(|reason| ConfigError {
                            variable: "AUDIT_PREVIOUS_KEYS",
                            reason,
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?
            .unwrap_or_default();
        let public_url = var("PUBLIC_URL")
            .map(|v| {
                public_url(v.trim()).ok_or_else(|| ConfigError {
                    variable: "PUBLIC_URL",
                    reason: format!("`{v}` is not an http:// or https:// address such as https://cards.example.org"),
                })
            })
            .transpose()?;
        let webhook_timeout = Duration::from_millis(number("WEBHOOK_TIMEOUT_MS", 10_000)?);
        let webhook_lease = Duration::from_millis(number("WEBHOOK_LEASE_MS", 60_000)?);
        if webhook_lease <= webhook_timeout {
            return Err(ConfigError {
                variable: "WEBHOOK_LEASE_MS",
                reason:
                    "must be longer than WEBHOOK_TIMEOUT_MS, or a delivery still waiting for its answer is sent again"
                        .into(),
            });
        }
        let flag = |name: &'static str, default: bool| -> Result<bool, ConfigError> {
            match var(name).map(|v| v.trim().to_ascii_lowercase()).as_deref() {
                None => Ok(default),
                Some("true" | "1" | "yes") => Ok(true),
                Some("false" | "0" | "no") => Ok(false),
                Some(other) => Err(ConfigError {
                    variable: name,
                    reason: format!("`{other}` is neither true nor false"),
                }),
            }
        };
        let webhooks = Webhooks {
            allow_private: flag("WEBHOOKS_ALLOW_PRIVATE", bind.ip().is_loopback())?,
            poll: Duration::from_millis(number("WEBHOOK_POLL_MS", 1000)?),
            retry_schedule: durations(
                &var("WEBHOOK_RETRY_SCHEDULE").unwrap_or_else(|| DEFAULT_WEBHOOK_RETRY_SCHEDULE.into()),
            )
            .ok_or_else(|| ConfigError {
                variable: "WEBHOOK_RETRY_SCHEDULE",
                reason: "not a comma-separated list of waits such as 5s,30s,2m,1h (units ms, s, m, h)".into(),
            })?,
            timeout: webhook_timeout,
            lease: webhook_lease,
            worker: flag("WEBHOOK_WORKER", true)?,
        };
        let database_url = DatabaseUrl::parse(&var("DATABASE_URL").unwrap_or_else(|| DEFAULT_DATABASE_URL.into()))
            .map_err(|reason| ConfigError {
                variable: "DATABASE_URL",
                reason,
            })?;
        Ok(Settings {
            webhooks,
            public_url,
            database_url,
            database_read_url: var("DATABASE_READ_URL").map(|v| v.trim().to_owned()),
            read_after_write: Duration::from_secs(number("DATABASE_READ_AFTER_WRITE_SECS", 5)?),
            bind,
            jwt_secret,
            token_ttl_hours: number("TOKEN_TTL_HOURS", 12)? as i64,
            database_max_connections: number("DATABASE_MAX_CONNECTIONS", 10)? as u32,
            workers: var("WORKERS")
                .map(|_| number("WORKERS", 1))
                .transpose()?
                .map(|n| n as usize),
            auth_attempts_per_minute: u32::try_from(number("AUTH_ATTEMPTS_PER_MINUTE", 20)?).map_err(|_| {
                ConfigError {
                    variable: "AUTH_ATTEMPTS_PER_MINUTE",
                    reason: "at most 4294967295".into(),
                }
            })?,
            database_acquire_timeout: Duration::from_millis(number("DATABASE_ACQUIRE_TIMEOUT_MS", 2000)?),
            database_statement_timeout: Duration::from_millis(number("DATABASE_STATEMENT_TIMEOUT_MS", 5000)?),
            request_body_timeout: Duration::from_millis(number("REQUEST_BODY_TIMEOUT_MS", 10_000)?),
            max_requests_per_client: u32::try_from(number("MAX_REQUESTS_PER_CLIENT", 64)?).map_err(|_| {
                ConfigError {
                    variable: "MAX_REQUESTS_PER_CLIENT",
                    reason: "at most 4294967295".into(),
                }
            })?,
            max_streams_per_client: count("MAX_STREAMS_PER_CLIENT", DEFAULT_MAX_STREAMS_PER_CLIENT)?,
            max_connections_per_client: count("MAX_CONNECTIONS_PER_CLIENT", DEFAULT_MAX_CONNECTIONS_PER_CLIENT)?,
            cors_allowed_origins,
            metrics_bind,
            trusted_proxies,
            log_format,
            audit_signing_key,
            audit_previous_keys,
            hot_tables: usize::try_from(number("HOT_TABLES", DEFAULT_HOT_TABLES as u64)?).map_err(|_| ConfigError {
                variable: "HOT_TABLES",
                reason: "too large for this machine".into(),
            })?,
            batch_moves: flag("BATCH_MOVES", true)?,
            announce_apart: match var("ANNOUNCE_APART").map(|v| v.trim().to_ascii_lowercase()).as_deref() {
                None | Some("auto") => None,
                Some(_) => Some(flag("ANNOUNCE_APART", false)?),
            },
            live_lease: match number("LIVE_LEASE_SECS", DEFAULT_LIVE_LEASE.as_secs())? {
                0 => {
                    return Err(ConfigError {
                        variable: "LIVE_LEASE_SECS",
                        reason: "at least 1 second".into(),
                    })
                }
                secs => Duration::from_secs(secs),
            },
            idempotency_retention: match number("IDEMPOTENCY_RETENTION_SECS", DEFAULT_IDEMPOTENCY_RETENTION.as_secs())?
            {
                0 => {
                    return Err(ConfigError {
                        variable: "IDEMPOTENCY_RETENTION_SECS",
                        reason: "at least 1 second".into(),
                    })
                }
                secs => Duration::from_secs(secs),
            },
            shutdown_grace: Duration::from_secs(number("SHUTDOWN_GRACE_SECS", DEFAULT_SHUTDOWN_GRACE_SECS)?),
        })
    }
}

/// `u` without its trailing slashes when it is an http(s) address with a host (a path is kept:
/// a reverse proxy may serve the app under one).
fn public_url(u: &str) -> Option<String> {
    let (scheme, rest) = u.split_once("://")?;
    let host = rest.split('/').next().unwrap_or_default();
    let host_ok = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'));
    let clean = !u.chars().any(|c| c.is_whitespace() || matches!(c, '?' | '#'));
    (matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https") && host_ok && clean)
        .then(|| u.trim_end_matches('/').to_owned())
}

/// The audit signing seed from `AUDIT_SIGNING_KEY` or the file `AUDIT_SIGNING_KEY_FILE` names.
/// Beyond loopback one of them is required, as `JWT_SECRET` is: the key kept in the database
/// otherwise would sign whatever a superuser of that database wrote, and the receipts and
/// bundles that are to hold against them would prove nothing.
fn audit_signing_key(var: &impl Fn(&str) -> Option<String>, bind: SocketAddr) -> Result<Option<[u8; 32]>, ConfigError> {
    let seed = |variable: &'static str, text: &str| {
        unhex::<32>(text.trim()).ok_or_else(|| ConfigError {
            variable,
            reason: "not 64 lower-case hex digits (a 32-byte Ed25519 seed)".into(),
        })
    };
    match (var("AUDIT_SIGNING_KEY"), var("AUDIT_SIGNING_KEY_FILE")) {
        (Some(_), Some(_)) => Err(ConfigError {
            variable: "AUDIT_SIGNING_KEY_FILE",
            reason: "set AUDIT_SIGNING_KEY or AUDIT_SIGNING_KEY_FILE, not both".into(),
        }),
        (Some(text), None) => seed("AUDIT_SIGNING_KEY", &text).map(Some),
        (None, Some(path)) => {
            let text = std::fs::read_to_string(path.trim()).map_err(|e| ConfigError {
                variable: "AUDIT_SIGNING_KEY_FILE",
                reason: format!("cannot read `{}` ({e})", path.trim()),
            })?;
            seed("AUDIT_SIGNING_KEY_FILE", &text).map(Some)
        }
        (None, None) if !bind.ip().is_loopback() => Err(ConfigError {
            variable: "AUDIT_SIGNING_KEY",
            reason: format!(
                "required when listening on {bind} (or AUDIT_SIGNING_KEY_FILE): the key that signs audit bundles and receipts must not live in the database it vouches for"
            ),
        }),
        (None, None) => Ok(None),
    }
}

/// `o` when it is a serialised origin (`scheme://host[:port]`), as browsers send in `Origin`.
fn origin(o: &str) -> Option<String> {
    let (scheme, rest) = o.split_once("://")?;
    let host_ok = !rest.is_empty()
        && rest
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'));
    (matches!(scheme, "http" | "https") && host_ok).then(|| o.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn settings(vars: &[(&str, &str)]) -> Result<Settings, ConfigError> {
        let map: HashMap<String, String> = vars.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect();
        Settings::from_lookup(|name| map.get(name).cloned())
    }

    #[test]
    fn defaults_are_for_local_use() {
        let s = settings(&[]).expect("defaults");
        assert_eq!(s.bind.to_string(), "127.0.0.1:8080");
        assert_eq!(s.database_url.hosts(), [DEFAULT_DATABASE_URL]);
        assert!(!s.database_url.has_several_hosts());
        assert!(s.jwt_secret.is_none());
        assert_eq!(
            (s.max_streams_per_client, s.max_connections_per_client),
            (DEFAULT_MAX_STREAMS_PER_CLIENT, DEFAULT_MAX_CONNECTIONS_PER_CLIENT)
        );
    }

    #[test]
    fn the_documented_defaults_of_the_per_address_caps_are_the_ones_in_force() {
        let documented = |name: &str| {
            VARIABLES
                .iter()
                .find(|(n, _, _)| *n == name)
                .map(|(_, default, _)| default.parse::<u32>().expect("a number"))
        };
        assert_eq!(
            documented("MAX_STREAMS_PER_CLIENT"),
            Some(DEFAULT_MAX_STREAMS_PER_CLIENT)
        );
        assert_eq!(
            documented("MAX_CONNECTIONS_PER_CLIENT"),
            Some(DEFAULT_MAX_CONNECTIONS_PER_CLIENT)
        );
        let s = settings(&[("MAX_STREAMS_PER_CLIENT", "12"), ("MAX_CONNECTIONS_PER_CLIENT", "40")]).expect("settings");
        assert_eq!((s.max_streams_per_client, s.max_connections_per_client), (12, 40));
    }

    #[test]
    fn listening_beyond_loopback_needs_a_secret() {
        let err = settings(&[("BIND", "0.0.0.0:8080")]).expect_err("no secret");
        assert_eq!(err.variable, "JWT_SECRET");
        let secret = "x".repeat(32);
        let seed = "ab".repeat(32);
        assert!(settings(&[
            ("BIND", "0.0.0.0:8080"),
            ("JWT_SECRET", &secret),
            ("AUDIT_SIGNING_KEY", &seed)
        ])
        .is_ok());
    }

    #[test]
    fn listening_beyond_loopback_needs_an_audit_key_not_kept_in_the_database() {
        let secret = "x".repeat(32);
        let err = settings(&[("BIND", "0.0.0.0:8080"), ("JWT_SECRET", &secret)]).expect_err("no audit key");
        assert_eq!(err.variable, "AUDIT_SIGNING_KEY");
        let file = std::env::temp_dir().join(format!("tablekeeper-audit-key-{}", std::process::id()));
        std::fs::write(&file, format!("{}\n", "cd".repeat(32))).expect("key file written");
        let path = file.to_string_lossy().into_owned();
        let s = settings(&[
            ("BIND", "0.0.0.0:8080"),
            ("JWT_SECRET", &secret),
            ("AUDIT_SIGNING_KEY_FILE", &path),
        ])
        .expect("key from the file");
        assert_eq!(s.audit_signing_key, Some([0xcd; 32]));
        let both = settings(&[
            ("AUDIT_SIGNING_KEY", &"cd".repeat(32)),
            ("AUDIT_SIGNING_KEY_FILE", &path),
        ]);
        assert_eq!(both.expect_err("both").variable, "AUDIT_SIGNING_KEY_FILE");
        std::fs::remove_file(&file).ok();
        assert_eq!(
            settings(&[("AUDIT_SIGNING_KEY_FILE", "/nonexistent/key")])
                .expect_err("missing file")
                .variable,
            "AUDIT_SIGNING_KEY_FILE"
        );
        // Locally the database's key stands in.
        assert!(settings(&[]).expect("local").audit_signing_key.is_none());
    }

    #[test]
    fn previous_audit_keys_are_public_keys() {
        let public = hex::encode(
            ed25519_dalek::SigningKey::from_bytes(&[9; 32])
                .verifying_key()
                .as_bytes(),
        );
        let s = settings(&[("AUDIT_PREVIOUS_KEYS", &format!("{public}, {public}"))]).expect("keys");
        assert_eq!(s.audit_previous_keys.len(), 2);
        assert_eq!(
            settings(&[("AUDIT_PREVIOUS_KEYS", "nothex")])
                .expect_err("bad")
                .variable,
            "AUDIT_PREVIOUS_KEYS"
        );
    }

    #[test]
    fn bad_values_name_their_variable() {
        assert_eq!(settings(&[("BIND", "nowhere")]).expect_err("bad bind").variable, "BIND");
        assert_eq!(
            settings(&[("JWT_SECRET", "short")]).expect_err("short").variable,
            "JWT_SECRET"
        );
        assert_eq!(
            settings(&[("TOKEN_TTL_HOURS", "-1")]).expect_err("ttl").variable,
            "TOKEN_TTL_HOURS"
        );
        for (variable, value) in [
            ("CORS_ALLOWED_ORIGINS", "https://app.example.org/path"),
            ("CORS_ALLOWED_ORIGINS", "app.example.org"),
            ("METRICS_BIND", "9090"),
            ("TRUSTED_PROXIES", "10.0.0.0/33"),
            ("LOG_FORMAT", "yaml"),
            ("DATABASE_ACQUIRE_TIMEOUT_MS", "0"),
            ("MAX_STREAMS_PER_CLIENT", "0"),
            ("MAX_CONNECTIONS_PER_CLIENT", "4294967296"),
        ] {
            assert_eq!(settings(&[(variable, value)]).expect_err(value).variable, variable);
        }
    }

    #[test]
    fn operations_settings_parse() {
        let s = settings(&[
            ("CORS_ALLOWED_ORIGINS", "https://App.example.org, http://localhost:5173"),
            ("METRICS_BIND", "127.0.0.1:9090"),
            ("TRUSTED_PROXIES", "10.0.0.0/8, 192.168.1.7 ,::1"),
            ("LOG_FORMAT", "JSON"),
            ("DATABASE_ACQUIRE_TIMEOUT_MS", "750"),
        ])
        .expect("settings");
        assert_eq!(
            s.cors_allowed_origins,
            CorsOrigins::Some(vec!["https://app.example.org".into(), "http://localhost:5173".into()])
        );
        assert_eq!(s.metrics_bind, Some("127.0.0.1:9090".parse().expect("addr")));
        assert_eq!(s.trusted_proxies.len(), 3);
        assert_eq!(s.log_format, LogFormat::Json);
        assert_eq!(s.database_acquire_timeout, Duration::from_millis(750));
        assert_eq!(
            settings(&[("CORS_ALLOWED_ORIGINS", "*")])
                .expect("any")
                .cors_allowed_origins,
            CorsOrigins::Any
        );
        let defaults = settings(&[]).expect("defaults");
        assert_eq!(defaults.cors_allowed_origins, CorsOrigins::None);
        assert!(defaults.trusted_proxies.is_empty() && defaults.metrics_bind.is_none());
    }

    #[test]
    fn webhook_settings_parse_and_private_addresses_follow_the_bind() {
        let s = settings(&[("WEBHOOK_RETRY_SCHEDULE", "250ms, 5s,2m,1h")]).expect("settings");
        assert_eq!(
            s.webhooks.retry_schedule,
            vec![
                Duration::from_millis(250),
                Duration::from_secs(5),
                Duration::from_secs(120),
                Duration::from_secs(3600)
            ]
        );
        assert!(s.webhooks.allow_private && s.webhooks.worker);
        let total: Duration = settings(&[]).expect("defaults").webhooks.retry_schedule.iter().sum();
        assert!(total >= Duration::from_secs(24 * 3600), "{total:?}");
        let secret = "x".repeat(32);
        let seed = "ab".repeat(32);
        let public = settings(&[
            ("BIND", "0.0.0.0:8080"),
            ("JWT_SECRET", &secret),
            ("AUDIT_SIGNING_KEY", &seed),
        ])
        .expect("public");
        assert!(!public.webhooks.allow_private);
        for (variable, value) in [
            ("WEBHOOK_RETRY_SCHEDULE", "5 parsecs"),
            ("WEBHOOKS_ALLOW_PRIVATE", "maybe"),
            ("WEBHOOK_LEASE_MS", "100"),
        ] {
            assert_eq!(settings(&[(variable, value)]).expect_err(value).variable, variable);
        }
    }

    #[test]
    fn the_public_url_is_an_http_address_kept_without_its_trailing_slash() {
        let s = settings(&[("PUBLIC_URL", "https://cards.example.org/club/")]).expect("settings");
        assert_eq!(s.public_url.as_deref(), Some("https://cards.example.org/club"));
        assert_eq!(settings(&[]).expect("defaults").public_url, None);
        for bad in [
            "cards.example.org",
            "ftp://x.org",
            "https://",
            "http://a b.org",
            "http://x.org/?q",
        ] {
            match settings(&[("PUBLIC_URL", bad)]) {
                Err(err) => assert_eq!(err.variable, "PUBLIC_URL", "{bad}"),
                Ok(_) => panic!("{bad} was taken for an address"),
            }
        }
    }

    #[test]
    fn several_hosts_become_one_url_each_in_order() {
        let s = settings(&[(
            "DATABASE_URL",
            "postgresql://postgres@h1:5432,h2,[::1]:5433/tk?sslmode=disable&target_session_attrs=read-write",
        )])
        .expect("multi-host url");
        let url = &s.database_url;
        assert_eq!(
            url.hosts(),
            [
                "postgresql://postgres@h1:5432/tk?sslmode=disable",
                "postgresql://postgres@h2:5432/tk?sslmode=disable",
                "postgresql://postgres@[::1]:5433/tk?sslmode=disable",
            ]
        );
        assert_eq!(url.target(), TargetSessionAttrs::ReadWrite);
        assert!(url.has_several_hosts());
        assert_eq!(url.first(), "postgresql://postgres@h1:5432/tk?sslmode=disable");
        // Every sqlx can connect to.
        for host in url.hosts() {
            assert!(host.parse::<sqlx::postgres::PgConnectOptions>().is_ok(), "{host}");
        }
    }

    #[test]
    fn a_bad_database_url_names_the_variable() {
        for bad in [
            "mysql://db/tk",
            "not a url",
            "postgres://h1:5432,,h2:5433/tk",
            "postgres://h1:99999/tk",
            "postgres://h1:port/tk",
            "postgres://[::1/tk",
            "postgres://h1,h2/tk?target_session_attrs=writable",
        ] {
            let err = settings(&[("DATABASE_URL", bad)]).expect_err(bad);
            assert_eq!(err.variable, "DATABASE_URL", "{bad}");
            assert!(!err.reason.is_empty());
        }
    }
}
