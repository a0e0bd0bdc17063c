//! Prometheus metrics: requests and latencies per route pattern, database-pool gauges read at
//! scrape time, moves per game and result, the build (`tablekeeper_build_info`) and the
//! process (`process_*`).
//!
//! Every label takes its values from a set fixed by the code, never from what a client sent:
//! routes are patterns (`/api/v1/tables/{id}`), a path no route matches is `unmatched`, games
//! and problem codes are the service's own.

use actix_web::{HttpMessage, HttpRequest, HttpResponse};
use prometheus::core::{Collector, Desc};
use prometheus::proto::MetricFamily;
use prometheus::{IntCounterVec, IntGauge, IntGaugeVec, Opts, Registry};
use tablekeeper_service::PgPool;

use super::error::ApiError;
use tablekeeper_rules::GameId;

/// The running build, for `tablekeeper_build_info`: the binary names it (its build script
/// knows the commit).
#[derive(Debug, Clone, Copy)]
pub struct Build {
    pub version: &'static str,
    pub commit: &'static str,
}

/// The label every path that matches no route shares.
pub const UNMATCHED: &str = "unmatched";

const NAMESPACE: &str = "tablekeeper";

/// The registry the service's metrics live in, one per application.
#[derive(Clone)]
pub struct Metrics {
    registry: Registry,
    moves: IntCounterVec,
}

impl Metrics {
    /// Registers `tablekeeper_database_failovers_total`, read from `failover` at each scrape:
    /// how many times this replica moved to another of `DATABASE_URL`'s hosts.
    ///
    /// # Errors
    /// When it is registered twice.
    pub fn count_failovers(
        &self,
        failover: std::sync::Arc<tablekeeper_service::database::Failover>,
    ) -> Result<(), prometheus::Error> {
        let counter = prometheus::IntCounter::with_opts(
            Opts::new(
                "database_failovers_total",
                "Times this replica moved its database connections to another of DATABASE_URL's hosts (a promoted standby)",
            )
            .namespace(NAMESPACE),
        )?;
        self.registry
            .register(Box::new(FailoverCollector { failover, counter }))
    }

    /// Adds `live_entries_total{from}`: the entries this replica's table streams sent on, by
    /// where their table and link came from (`announcement`: the link announced with the move,
    /// the table folded here from the state its last entry left; `database`: read back, as the
    /// first entry after a table is followed, any entry but a move, and one after a gap are).
    ///
    /// # Errors
    /// When it is registered twice.
    pub fn count_live_entries(
        &self,
        sent: std::sync::Arc<tablekeeper_service::live::Sent>,
    ) -> Result<(), prometheus::Error> {
        let counter = IntCounterVec::new(
            Opts::new(
                "live_entries_total",
                "Entries this replica's table streams sent on, by where their table and receipt's link came from: the move's announcement, or the database",
            )
            .namespace(NAMESPACE),
            &["from"],
        )?;
        self.registry.register(Box::new(LiveCollector { sent, counter }))
    }

    /// Registers the pool gauges and the move counter.
    ///
    /// # Errors
    /// When a metric is registered twice, which would be a bug.
    pub fn new(pool: PgPool, running: Build) -> Result<Metrics, prometheus::Error> {
        let registry = Registry::new();
        registry.register(Box::new(PoolCollector::new(pool)?))?;
        // The standard `process_*` metrics (CPU seconds, resident and virtual memory, open and
        // most file descriptors, threads, start time), read from /proc at scrape time.
        registry.register(Box::new(prometheus::process_collector::ProcessCollector::for_self()))?;
        let build = IntGaugeVec::new(
            Opts::new(
                "build_info",
                "Always 1; the labels name the running build: its version and the commit it was built from",
            )
            .namespace(NAMESPACE),
            &["version", "commit"],
        )?;
        build.with_label_values(&[running.version, running.commit]).set(1);
        registry.register(Box::new(build))?;
        let moves = IntCounterVec::new(
            Opts::new(
                "moves_total",
                "Moves submitted, by game, result (accepted, replayed, refused, rejected, failed) and problem code",
            )
            .namespace(NAMESPACE),
            &["game", "result", "code"],
        )?;
        registry.register(Box::new(moves.clone()))?;
        Ok(Metrics { registry, moves })
    }

    /// The HTTP middleware counting requests into this registry; it serves `/metrics` itself
    /// when `endpoint` is given.
    ///
    /// # Errors
    /// When the middleware's metrics cannot be registered.
    pub fn http(
        &self,
        endpoint: Option<&str>,
    ) -> Result<actix_web_prom::PrometheusMetrics, Box<dyn std::error::Error + Send + Sync>> {
        let mut builder = actix_web_prom::PrometheusMetricsBuilder::new(NAMESPACE)
            .registry(self.registry.clone())
            .mask_unmatched_patterns(UNMATCHED);
        if let Some(endpoint) = endpoint {
            builder = builder.endpoint(endpoint);
        }
        builder.build()
    }

    /// The text exposition of every metric.
    pub fn render(&self) -> String {
        let mut text = String::new();
        if let Err(e) = prometheus::TextEncoder::new().encode_utf8(&self.registry.gather(), &mut text) {
            tracing::error!(error = %e, "rendering metrics failed");
        }
        text
    }

    /// Counts one answer of the move endpoint.
    pub fn count_move(&self, game: Option<GameId>, outcome: MoveOutcome) {
        let game = game.map_or("unknown", GameId::as_str);
        let (result, code) = outcome.labels();
        self.moves.with_label_values(&[game, result, code]).inc();
    }
}

/// How the move endpoint answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveOutcome {
    /// Recorded.
    Accepted,
    /// A retry answered from its `Idempotency-Key`.
    Replayed,
    /// Refused by the rules or the table's state (409, 422): the problem's code.
    Refused(&'static str),
    /// Refused before the game was consulted (400, 401, 403, 404, 429): the problem's code.
    Rejected(&'static str),
    /// The service failed (5xx): the problem's code.
    Failed(&'static str),
}

impl MoveOutcome {
    /// Classifies the endpoint's answer.
    pub fn of(answer: &Result<HttpResponse, ApiError>) -> MoveOutcome {
        match answer {
            Ok(response) if response.headers().contains_key("idempotent-replayed") => MoveOutcome::Replayed,
            Ok(_) => MoveOutcome::Accepted,
            Err(e) if e.status.is_server_error() => MoveOutcome::Failed(e.code),
            Err(e) if matches!(e.status.as_u16(), 409 | 422) => MoveOutcome::Refused(e.code),
            Err(e) => MoveOutcome::Rejected(e.code),
        }
    }

    fn labels(self) -> (&'static str, &'static str) {
        match self {
            MoveOutcome::Accepted => ("accepted", ""),
            MoveOutcome::Replayed => ("replayed", ""),
            MoveOutcome::Refused(code) => ("refused", code),
            MoveOutcome::Rejected(code) => ("rejected", code),
            MoveOutcome::Failed(code) => ("failed", code),
        }
    }
}

/// Notes which game the request's table plays, once the table is loaded, for [`count_move`].
pub fn note_game(req: &HttpRequest, game: GameId) {
    req.extensions_mut().insert(game);
}

/// The move endpoint's hook: counts its answer under the table's game (`unknown` when the
/// request was refused before the table was read).
pub fn count_move(req: &HttpRequest, answer: &Result<HttpResponse, ApiError>) {
    if let Ok(state) = crate::State::of(req) {
        let game = req.extensions().get::<GameId>().copied();
        state.metrics.count_move(game, MoveOutcome::of(answer));
    }
}

/// The pool's gauges, read from the pool each time metrics are gathered.
struct PoolCollector {
    pool: PgPool,
    size: IntGauge,
    idle: IntGauge,
    in_use: IntGauge,
    max: IntGauge,
}

impl PoolCollector {
    fn new(pool: PgPool) -> Result<PoolCollector, prometheus::Error> {
        let gauge = |name: &str, help: &str| IntGauge::with_opts(Opts::new(name, help).namespace(NAMESPACE));
        Ok(PoolCollector {
            pool,
            size: gauge("db_pool_connections", "Open database connections (idle and in use)")?,
            idle: gauge(
                "db_pool_idle_connections",
                "Open database connections waiting in the pool",
            )?,
            in_use: gauge(
                "db_pool_in_use_connections",
                "Database connections lent out to requests",
            )?,
            max: gauge("db_pool_max_connections", "The most connections the pool opens")?,
        })
    }

    fn gauges(&self) -> [&IntGauge; 4] {
        [&self.size, &self.idle, &self.in_use, &self.max]
    }
}

impl Collector for PoolCollector {
    fn desc(&self) -> Vec<&Desc> {
        self.gauges().into_iter().flat_map(Collector::desc).collect()
    }

    fn collect(&self) -> Vec<MetricFamily> {
        let size = i64::from(self.pool.size());
        let idle = i64::try_from(self.pool.num_idle()).unwrap_or(i64::MAX);
        self.size.set(size);
        self.idle.set(idle);
        self.in_use.set((size - idle).max(0));
        self.max.set(i64::from(self.pool.options().get_max_connections()));
        self.gauges().into_iter().flat_map(Collector::collect).collect()
    }
}

/// The failover counter, read from the failover each time metrics are gathered.
struct LiveCollector {
    sent: std::sync::Arc<tablekeeper_service::live::Sent>,
    counter: IntCounterVec,
}

impl Collector for LiveCollector {
    fn desc(&self) -> Vec<&Desc> {
        self.counter.desc()
    }

    fn collect(&self) -> Vec<MetricFamily> {
        use std::sync::atomic::Ordering::Relaxed;
        for (from, seen) in [
            ("announcement", self.sent.from_announcement.load(Relaxed)),
            ("database", self.sent.read_back.load(Relaxed)),
        ] {
            let counter = self.counter.with_label_values(&[from]);
            let counted = counter.get();
            if seen > counted {
                counter.inc_by(seen - counted);
            }
        }
        self.counter.collect()
    }
}

struct FailoverCollector {
    failover: std::sync::Arc<tablekeeper_service::database::Failover>,
    counter: prometheus::IntCounter,
}

impl Collector for FailoverCollector {
    fn desc(&self) -> Vec<&Desc> {
        self.counter.desc()
    }

    fn collect(&self) -> Vec<MetricFamily> {
        let seen = self.failover.failovers();
        let counted = self.counter.get();
        if seen > counted {
            self.counter.inc_by(seen - counted);
        }
        self.counter.collect()
    }
}
