//! Builds the HTTP server from settings; tests bind port 0 and read the port back.

use std::net::TcpListener;

use actix_web::dev::Server;
use actix_web::{web, App, HttpResponse, HttpServer};
use sqlx::PgPool;
use tracing_actix_web::TracingLogger;
use utoipa::OpenApi;
use utoipa_swagger_ui::SwaggerUi;

use crate::api::{self, auth::Tokens, openapi::ApiDoc};
use crate::config::Settings;

/// A bound, not yet running server.
pub struct Application {
    port: u16,
    server: Server,
}

impl Application {
    /// Connects to the database, creates it and applies migrations when needed, and binds.
    ///
    /// # Errors
    /// When the database cannot be prepared or the address cannot be bound.
    pub async fn build(settings: &Settings) -> anyhow::Result<Application> {
        let pool = crate::store::pool(&settings.database_url, settings.database_max_connections)?;
        crate::store::prepare(&settings.database_url, &pool).await?;
        Application::build_with_pool(settings, pool)
    }

    /// Binds a server on an already prepared pool.
    ///
    /// # Errors
    /// When the address cannot be bound.
    pub fn build_with_pool(settings: &Settings, pool: PgPool) -> anyhow::Result<Application> {
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
        let tokens = web::Data::new(Tokens::new(&secret, chrono::Duration::hours(settings.token_ttl_hours)));
        let pool = web::Data::new(pool);
        let attempts =
            std::num::NonZeroU32::new(settings.auth_attempts_per_minute).unwrap_or(std::num::NonZeroU32::MIN);
        let limiter = web::Data::new(api::limits::AuthLimiter::per_minute(attempts));
        let listener = TcpListener::bind(settings.bind)?;
        let port = listener.local_addr()?.port();
        let openapi = ApiDoc::openapi();
        // Prometheus metrics (request counts and latencies per route) at /metrics.
        let metrics = actix_web_prom::PrometheusMetricsBuilder::new("tablekeeper")
            .endpoint("/metrics")
            .build()
            .map_err(|e| anyhow::anyhow!("metrics: {e}"))?;
        let mut server = HttpServer::new(move || {
            App::new()
                .wrap(metrics.clone())
                .wrap(TracingLogger::default())
                .app_data(pool.clone())
                .app_data(tokens.clone())
                .app_data(limiter.clone())
                .app_data(api::error::json_config())
                .app_data(api::error::query_config())
                .app_data(api::error::path_config())
                // Before the /api/v1 scope, which would otherwise answer the spec's path with 404.
                .service(SwaggerUi::new("/docs/{_:.*}").url("/api/v1/openapi.json", openapi.clone()))
                .configure(api::routes)
                .configure(crate::web::routes)
                .route(
                    "/docs",
                    web::get().to(|| async { HttpResponse::Found().insert_header(("Location", "/docs/")).finish() }),
                )
                .default_service(web::to(api::error::no_route))
        })
        .listen(listener)?;
        if let Some(workers) = settings.workers {
            server = server.workers(workers);
        }
        Ok(Application {
            port,
            server: server.run(),
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Serves until the process is told to stop (SIGINT/SIGTERM shut down gracefully).
    ///
    /// # Errors
    /// When the server fails.
    pub async fn run(self) -> std::io::Result<()> {
        self.server.await
    }
}
