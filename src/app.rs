//! Builds the HTTP server from settings; tests bind port 0 and read the port back.

use std::net::TcpListener;
use std::sync::Arc;

use actix_cors::Cors;
use actix_web::dev::Server;
use actix_web::http::{header, Method};
use actix_web::middleware::{from_fn, Compress, Condition};
use actix_web::{web, App, HttpResponse, HttpServer};
use anyhow::Context;
use sqlx::PgPool;
use utoipa_swagger_ui::{Config as SwaggerConfig, SwaggerUi};

use crate::api::metrics::Metrics;
use crate::api::{self, auth::Tokens};
use crate::config::{CorsOrigins, Settings};
use crate::service::hot::HotStates;
use crate::service::webhooks::Resolver;
use crate::store::failover::Failover;

/// A bound, not yet running server (and its metrics server when `METRICS_BIND` is set).
pub struct Application {
    port: u16,
    metrics_port: Option<u16>,
    server: Server,
    metrics_server: Option<Server>,
    hot: Arc<HotStates>,
    batcher: Option<crate::store::move_batch::MoveBatcher>,
    hub: Arc<crate::service::live::Hub>,
    /// The clock the use cases compare against; a test moves it on.
    clock: crate::service::clock::Clock,
    /// Tells this replica's webhook delivery worker to stop.
    webhooks_stop: tokio::sync::watch::Sender<bool>,
}

/// Headers a browser client may send cross-origin.
const CORS_REQUEST_HEADERS: [&str; 6] = [
    "authorization",
    "content-type",
    "idempotency-key",
    "if-match",
    "if-none-match",
    "last-event-id",
];

/// Headers a browser client may read cross-origin.
const CORS_EXPOSED_HEADERS: [&str; 7] = [
    "etag",
    "location",
    "retry-after",
    "x-request-id",
    "idempotent-replayed",
    "ratelimit",
    "ratelimit-policy",
];

/// The CORS middleware for the configured origins (unused when there are none).
fn cors(origins: &CorsOrigins) -> Cors {
    let mut cors = Cors::default()
        .allowed_methods([Method::GET, Method::POST, Method::PUT, Method::PATCH, Method::DELETE])
        .allowed_headers(CORS_REQUEST_HEADERS.map(header::HeaderName::from_static))
        .expose_headers(CORS_EXPOSED_HEADERS.map(header::HeaderName::from_static))
        .max_age(3600)
        // A same-origin page also sends `Origin`: let it through, just without CORS headers.
        .block_on_origin_mismatch(false);
    match origins {
        CorsOrigins::None => {}
        CorsOrigins::Any => cors = cors.allow_any_origin(),
        CorsOrigins::Some(list) => {
            for origin in list {
                cors = cors.allowed_origin(origin);
            }
        }
    }
    cors
}

/// Where the spec is served, and where the docs page reads it.
const OPENAPI_PATH: &str = "/api/v1/openapi.json";

/// Serves the spec as rendered at start-up.
fn serve_spec(spec: web::Bytes) -> impl Fn() -> std::future::Ready<HttpResponse> + Clone + 'static {
    move || {
        std::future::ready(
            HttpResponse::Ok()
                .content_type(header::ContentType::json())
                .body(spec.clone()),
        )
    }
}

impl Application {
    /// Connects to the database, creates it and applies migrations when needed, and binds.
    ///
    /// # Errors
    /// When the database cannot be prepared or the address cannot be bound.
    pub async fn build(settings: &Settings) -> anyhow::Result<Application> {
        let database = &settings.database_url;
        // With several hosts, the one that fits `target_session_attrs` is found first, and
        // followed afterwards (a promoted standby) without a restart.
        let failover = if database.has_several_hosts() {
            let failover = Failover::new(
                database,
                settings.database_max_connections,
                settings.database_acquire_timeout,
                Some(settings.database_statement_timeout),
            )
            .context("DATABASE_URL lists a host that is not a PostgreSQL URL")?;
            if failover.discover().await.is_none() {
                anyhow::bail!(
                    "no host of DATABASE_URL ({}) answers as target_session_attrs={} asks; start PostgreSQL or fix DATABASE_URL",
                    database.hosts().iter().map(|h| crate::store::redacted(h)).collect::<Vec<_>>().join(", "),
                    database.target().as_str()
                );
            }
            Some(failover)
        } else {
            None
        };
        let host = database
            .hosts()
            .get(failover.as_ref().map_or(0, |f| f.current()))
            .map_or(database.first(), String::as_str);
        let url = crate::store::redacted(host);
        let pool = match &failover {
            Some(failover) => failover.pool().clone(),
            None => crate::store::application_pool(
                host,
                settings.database_max_connections,
                settings.database_acquire_timeout,
                Some(settings.database_statement_timeout),
            )
            .with_context(|| format!("DATABASE_URL `{url}` is not a PostgreSQL URL"))?,
        };
        // Migrations run on a connection of their own, free of the statement timeout.
        let migrating = crate::store::pool(host, 1, settings.database_acquire_timeout, None)
            .with_context(|| format!("DATABASE_URL `{url}` is not a PostgreSQL URL"))?;
        let prepared = crate::store::prepare(host, &migrating).await;
        let citus = match prepared {
            Ok(()) => crate::store::is_citus(&migrating).await.unwrap_or(false),
            Err(_) => false,
        };
        migrating.close().await;
        prepared.map_err(|e| {
            if crate::store::unavailable(&e) {
                anyhow::anyhow!("cannot reach the database at {url} ({e}); start PostgreSQL or set DATABASE_URL")
            } else {
                anyhow::anyhow!("cannot prepare the database at {url}: {e}")
            }
        })?;
        Application::build_on(settings, pool, failover, citus, Resolver::default())
    }

    /// Binds a server on an already prepared pool.
    ///
    /// # Errors
    /// When an address cannot be bound.
    pub fn build_with_pool(settings: &Settings, pool: PgPool) -> anyhow::Result<Application> {
        Application::build_on(settings, pool, None, false, Resolver::default())
    }

    /// Binds a server on an already prepared pool that resolves webhook endpoints' names with
    /// `resolver` (tests: a name that answers what the test says).
    ///
    /// # Errors
    /// When an address cannot be bound.
    pub fn build_resolving(settings: &Settings, pool: PgPool, resolver: Resolver) -> anyhow::Result<Application> {
        Application::build_on(settings, pool, None, false, resolver)
    }

    /// Binds a server on a prepared pool, which `failover` (when `DATABASE_URL` lists several
    /// hosts) keeps on the host that fits; `citus` when the database is Citus.
    fn build_on(
        settings: &Settings,
        pool: PgPool,
        failover: Option<Arc<Failover>>,
        citus: bool,
        resolver: Resolver,
    ) -> anyhow::Result<Application> {
        let webhook_settings = crate::service::webhooks::DeliverySettings::new(&settings.webhooks, resolver);
        let secret = match &settings.jwt_secret {
            Some(secret) => secret.clone().into_bytes(),
            None => {
                tracing::warn!(
                    "JWT_SECRET is not set: LOCAL USE ONLY. Tokens are signed with a random key that dies with this process, \
                     and the server refuses to listen beyond loopback. Set JWT_SECRET (32+ bytes) for any real deployment."
                );
                use rand::RngCore;
                let mut key = vec![0u8; 32];
                rand::thread_rng().fill_bytes(&mut key);
                key
            }
        };
        let tokens = Tokens::new(&secret, chrono::Duration::hours(settings.token_ttl_hours));
        let signing = Arc::new(crate::service::receipts::AuditKeys::new(
            settings.audit_signing_key,
            &settings.audit_previous_keys,
            crate::service::witness::note::log_name(settings.public_url.as_deref()),
        ));
        tokio::spawn(crate::service::idempotency::prune(
            pool.clone(),
            settings.idempotency_retention,
        ));
        let announce_apart = settings.announce_apart.unwrap_or(citus);
        let hub = crate::service::live::Hub::new(pool.clone(), settings.live_lease, signing.clone());
        tokio::spawn(hub.clone().listen());
        tokio::spawn(hub.clone().renew());
        // Each replica delivers webhooks from the shared outbox; claims keep them from sending
        // one delivery twice at once.
        let (webhooks_stop, stopped) = tokio::sync::watch::channel(false);
        if settings.webhooks.worker {
            let worker = crate::service::webhooks::Worker::new(pool.clone(), webhook_settings.clone())
                .context("the webhook delivery client")?;
            tokio::spawn(worker.run(stopped));
        }
        let running = api::metrics::Build {
            version: crate::VERSION,
            commit: crate::COMMIT,
        };
        let metrics = Metrics::new(pool.clone(), running).context("metrics")?;
        metrics.count_live_entries(hub.sent()).context("metrics")?;
        if let Some(failover) = failover {
            metrics.count_failovers(failover.clone()).context("metrics")?;
            tokio::spawn(failover.watch());
        }
        let standby = match &settings.database_read_url {
            Some(read_url) => Some(
                crate::store::read_pool(
                    read_url,
                    settings.database_max_connections,
                    settings.database_acquire_timeout,
                    Some(settings.database_statement_timeout),
                )
                .with_context(|| {
                    format!(
                        "DATABASE_READ_URL `{}` is not a PostgreSQL URL",
                        crate::store::redacted(read_url)
                    )
                })?,
            ),
            None => None,
        };
        let reads = crate::service::reads::Reads::new(pool.clone(), standby, settings.read_after_write);
        if settings.audit_signing_key.is_none() {
            tracing::warn!(
                "AUDIT_SIGNING_KEY is not set: LOCAL USE ONLY. Audit bundles and receipts are signed with a key kept in \
                 the database they vouch for, so a superuser of that database could forge them. Set AUDIT_SIGNING_KEY \
                 (or AUDIT_SIGNING_KEY_FILE) for any real deployment."
            );
        }
        let hot = Arc::new(HotStates::new(settings.hot_tables));
        // Not on Citus, where one statement over many tables' rows is not one worker's.
        let batcher = (settings.batch_moves && !announce_apart)
            .then(|| crate::store::move_batch::MoveBatcher::start(pool.clone()));
        let connection_cap = Arc::new(api::connections::ConnectionCap::new(
            settings.max_connections_per_client,
            settings.trusted_proxies.clone(),
        ));
        let attempts =
            std::num::NonZeroU32::new(settings.auth_attempts_per_minute).unwrap_or(std::num::NonZeroU32::MIN);
        let limiter = api::limits::AuthLimiter::per_minute(attempts, settings.trusted_proxies.clone());
        let listener = TcpListener::bind(settings.bind).with_context(|| format!("BIND {}", settings.bind))?;
        let port = listener.local_addr()?.port();
        // Rendered once and shared by every worker: a copy of the spec per worker, rendered per
        // request, cost each replica megabytes.
        let openapi = web::Bytes::from(serde_json::to_vec(&serde_json::to_value(api::openapi::spec())?)?);
        // Requests and latencies per route pattern; /metrics on the API's port unless METRICS_BIND moves it.
        let endpoint = settings.metrics_bind.is_none().then_some("/metrics");
        let http_metrics = metrics.http(endpoint).map_err(|e| anyhow::anyhow!("metrics: {e}"))?;
        let cors_enabled = settings.cors_allowed_origins != CorsOrigins::None;
        let origins = settings.cors_allowed_origins.clone();
        let clock = crate::service::clock::Clock::system();
        let state = web::Data::new(api::State {
            pool: pool.clone(),
            reads,
            tokens,
            keys: signing,
            hub: hub.clone(),
            hot: hot.clone(),
            batcher: batcher.clone(),
            answers_kept_for: settings.idempotency_retention,
            announce_apart,
            public_url: settings.public_url.clone(),
            webhooks: webhook_settings,
            limiter,
            deadlines: api::deadlines::Deadlines {
                body: settings.request_body_timeout,
                database: settings.database_acquire_timeout,
                write: settings.database_acquire_timeout + settings.database_statement_timeout,
            },
            database_watch: api::deadlines::DatabaseWatch::new(pool.clone()),
            client_cap: api::deadlines::ClientCap::new(
                settings.max_requests_per_client,
                settings.trusted_proxies.clone(),
            ),
            stream_cap: api::connections::StreamCap::new(
                settings.max_streams_per_client,
                settings.trusted_proxies.clone(),
            ),
            metrics,
            clock: clock.clone(),
        });
        let metrics_state = state.clone();
        let mut server = HttpServer::new(move || {
            App::new()
                .wrap(from_fn(api::reads::note_writes))
                .wrap(from_fn(api::deadlines::within_deadlines))
                .wrap(from_fn(api::limits::rate_limit_headers))
                .wrap(Condition::new(cors_enabled, cors(&origins)))
                .wrap(http_metrics.clone())
                .wrap(from_fn(api::middleware::streams_uncompressed))
                // gzip, brotli or zstd as the client accepts: the spec alone is 250 KB as JSON.
                .wrap(Compress::default())
                .wrap(from_fn(api::middleware::request_context))
                .app_data(api::error::json_config())
                .app_data(api::error::query_config())
                .app_data(api::error::path_config())
                // Before the /api/v1 scope, which would otherwise answer the spec's path with 404.
                .service(SwaggerUi::new("/docs/{_:.*}").config(SwaggerConfig::from(OPENAPI_PATH)))
                .route(OPENAPI_PATH, web::get().to(serve_spec(openapi.clone())))
                .configure(api::routes(state.clone()))
                .configure(api::page::routes)
                .configure(api::problems::routes)
                .route(
                    "/docs",
                    web::get().to(|| async { HttpResponse::Found().insert_header(("Location", "/docs/")).finish() }),
                )
                .default_service(web::to(api::methods::no_route))
        })
        // Before `listen`, which takes the callback as it is then.
        .on_connect(move |io, data| connection_cap.on_connect(io, data))
        // A client that closes its side is gone (browsers never half-close): the connection and
        // its live stream end at once and free their places, rather than at the next heartbeat.
        .h1_allow_half_closed(false)
        .listen(listener)?;
        // Stopping is `run_until_stopped`'s: it ends the live streams first, which would
        // otherwise hold the shutdown open for its whole timeout.
        server = server
            .disable_signals()
            .shutdown_timeout(settings.shutdown_grace.as_secs());
        if let Some(workers) = settings.workers {
            server = server.workers(workers);
        }
        let (metrics_server, metrics_port) = match settings.metrics_bind {
            Some(address) => {
                let listener = TcpListener::bind(address).with_context(|| format!("METRICS_BIND {address}"))?;
                let port = listener.local_addr()?.port();
                let server = HttpServer::new(move || {
                    App::new()
                        .app_data(metrics_state.clone())
                        .route("/metrics", web::get().to(render_metrics))
                        .default_service(web::to(api::error::no_route))
                })
                .workers(1)
                .disable_signals()
                .shutdown_timeout(settings.shutdown_grace.as_secs())
                .listen(listener)?
                .run();
                (Some(server), Some(port))
            }
            None => (None, None),
        };
        Ok(Application {
            port,
            metrics_port,
            server: server.run(),
            metrics_server,
            hot,
            batcher,
            hub,
            clock,
            webhooks_stop,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// This replica's move batcher, unless `BATCH_MOVES` is off.
    pub fn move_batcher(&self) -> Option<crate::store::move_batch::MoveBatcher> {
        self.batcher.clone()
    }

    /// This replica's hot states (the latest state of tables recorded on lately).
    pub fn hot_states(&self) -> std::sync::Arc<HotStates> {
        self.hot.clone()
    }

    /// The replica's clock, for a test to move on (a session's correction window) without
    /// sleeping.
    pub fn clock(&self) -> crate::service::clock::Clock {
        self.clock.clone()
    }

    /// The replica's live-tables hub.
    pub fn hub(&self) -> std::sync::Arc<crate::service::live::Hub> {
        self.hub.clone()
    }

    /// Stops this replica's webhook delivery worker (as shutting down does): deliveries in flight
    /// finish, and what is due is left to other replicas.
    pub fn webhook_stopper(&self) -> tokio::sync::watch::Sender<bool> {
        self.webhooks_stop.clone()
    }

    /// The port of the separate metrics server, when `METRICS_BIND` is set.
    pub fn metrics_port(&self) -> Option<u16> {
        self.metrics_port
    }

    /// Serves until SIGTERM or SIGINT, then stops: live streams end at once (their clients
    /// resume elsewhere with `Last-Event-ID`), no new connection is accepted, and requests in
    /// flight get `SHUTDOWN_GRACE_SECS` to finish.
    ///
    /// # Errors
    /// When a server fails, or the signals cannot be listened for.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let stopping = stop_signal()?;
        let hub = self.hub.clone();
        let handles: Vec<_> = std::iter::once(self.server.handle())
            .chain(self.metrics_server.as_ref().map(Server::handle))
            .collect();
        let webhooks = self.webhooks_stop.clone();
        tokio::spawn(async move {
            stopping.await;
            tracing::info!("stopping: live streams ended, finishing requests in flight");
            hub.close();
            let _ = webhooks.send(true);
            for handle in handles {
                handle.stop(true).await;
            }
        });
        self.run().await
    }

    /// Serves until stopped through the servers' handles (tests: until the runtime ends).
    ///
    /// # Errors
    /// When a server fails.
    pub async fn run(self) -> std::io::Result<()> {
        let served = match self.metrics_server {
            Some(metrics) => tokio::try_join!(self.server, metrics).map(|_| ()),
            None => self.server.await,
        };
        let _ = self.webhooks_stop.send(true);
        served
    }
}

/// The open-file (descriptor) limit the process runs under, after `raise_descriptor_limit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DescriptorLimit {
    /// The soft limit: how many descriptors the process may hold now.
    pub soft: u64,
    /// The hard limit, as far as an unprivileged process may raise its soft limit.
    pub hard: u64,
    /// The soft limit before it was raised.
    pub was: u64,
}

/// Raises the soft open-file limit to the hard limit. Every live stream holds a socket, and
/// distributions start services with a soft limit of 1,024 however high the hard limit is.
///
/// # Errors
/// When the limit cannot be read; a limit that cannot be raised is reported as it stands.
#[cfg(unix)]
pub fn raise_descriptor_limit() -> std::io::Result<DescriptorLimit> {
    let (was, hard) = rlimit::Resource::NOFILE.get()?;
    // Up to the hard limit (macOS caps it lower still; the crate knows by how much).
    let soft = rlimit::increase_nofile_limit(hard).unwrap_or(was);
    Ok(DescriptorLimit { soft, hard, was })
}

/// Elsewhere the limit is left as it is.
///
/// # Errors
/// Always: the limit is not known.
#[cfg(not(unix))]
pub fn raise_descriptor_limit() -> std::io::Result<DescriptorLimit> {
    Err(std::io::Error::other("the open-file limit is only read on Unix"))
}

/// Resolves at the first SIGTERM or SIGINT (Ctrl-C).
fn stop_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut terminate = signal(SignalKind::terminate())?;
        let mut interrupt = signal(SignalKind::interrupt())?;
        Ok(async move {
            tokio::select! {
                _ = terminate.recv() => {}
                _ = interrupt.recv() => {}
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}

async fn render_metrics(state: web::Data<api::State>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(prometheus::TEXT_FORMAT)
        .body(state.metrics.render())
}
