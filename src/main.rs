//! The `tablekeeper` binary: `serve` (the default), `migrate`, `openapi`.

use anyhow::Context;
use tablekeeper::{app::Application, config::Settings};
use tracing_subscriber::EnvFilter;

const USAGE: &str = "usage: tablekeeper [serve | migrate | openapi]

  serve     run the HTTP server (the default); creates the database and applies migrations
  migrate   create the database if needed, apply migrations and exit
  openapi   print the OpenAPI document (as committed at openapi/openapi.json)

configuration (environment): DATABASE_URL, BIND, JWT_SECRET, TOKEN_TTL_HOURS, AUTH_ATTEMPTS_PER_MINUTE,
DATABASE_MAX_CONNECTIONS, WORKERS, RUST_LOG";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let command = std::env::args().nth(1).unwrap_or_else(|| "serve".into());
    if command == "openapi" {
        print!("{}", tablekeeper::api::openapi::spec_json());
        return Ok(());
    }
    if !matches!(command.as_str(), "serve" | "migrate") {
        println!("{USAGE}");
        if matches!(command.as_str(), "help" | "--help" | "-h") {
            return Ok(());
        }
        anyhow::bail!("unknown command `{command}`");
    }
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")))
        .init();
    let settings = Settings::from_env().context("configuration")?;
    if command == "migrate" {
        let pool = tablekeeper::store::pool(&settings.database_url, 1)?;
        tablekeeper::store::prepare(&settings.database_url, &pool)
            .await
            .context("migrating the database")?;
        tracing::info!("migrations applied");
        return Ok(());
    }
    let app = Application::build(&settings).await.context("starting the server")?;
    tracing::info!(bind = %settings.bind, port = app.port(), "tablekeeper listening; docs at /docs/");
    app.run().await?;
    Ok(())
}
