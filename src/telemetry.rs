//! Log output: plain text (coloured only on a terminal) or one JSON object per line; and, when
//! `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, traces to an
//! OpenTelemetry collector over OTLP/HTTP (`OTEL_EXPORTER_OTLP_PROTOCOL`: `http/protobuf`, the
//! default, or `http/json`; the other `OTEL_*` variables as the OTLP exporter reads them). A
//! move's trace is the request's span, the handler's, the use case's, and each SQL statement
//! (sqlx's events, at `debug`, kept for the trace whatever `RUST_LOG` says of the log).

use std::io::IsTerminal;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

use crate::config::LogFormat;

/// What the trace keeps: the service's spans and each statement.
const TRACE_FILTER: &str = "info,sqlx::query=debug";

/// Holds the trace exporter, if any: dropped (or [`Telemetry::shutdown`]) at exit, it sends what
/// is still batched.
#[must_use = "traces are sent until this is dropped"]
pub struct Telemetry {
    provider: Option<SdkTracerProvider>,
}

impl Telemetry {
    /// Sends what is still batched and stops the exporter.
    pub fn shutdown(&mut self) {
        if let Some(provider) = self.provider.take() {
            if let Err(e) = provider.shutdown() {
                eprintln!("traces: the exporter did not shut down cleanly: {e}");
            }
        }
    }

    /// Whether traces are being sent.
    pub fn tracing(&self) -> bool {
        self.provider.is_some()
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn endpoint_set() -> bool {
    ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]
        .iter()
        .any(|v| std::env::var(v).is_ok_and(|e| !e.trim().is_empty()))
}

/// Installs the process's subscriber, its log filtered by `RUST_LOG` (default `info`), and the
/// trace exporter when an OTLP endpoint is configured.
///
/// # Errors
/// When a subscriber is already installed, or the exporter cannot be made.
pub fn init(format: LogFormat) -> Result<Telemetry, Box<dyn std::error::Error + Send + Sync>> {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let log = match format {
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .with_filter(filter)
            .boxed(),
        LogFormat::Text => {
            let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            tracing_subscriber::fmt::layer()
                .with_ansi(colour)
                .with_filter(filter)
                .boxed()
        }
    };
    let provider = if endpoint_set() {
        let exporter = opentelemetry_otlp::SpanExporter::builder().with_http().build()?;
        let mut resource = Resource::builder();
        if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
            resource = resource.with_service_name("tablekeeper");
        }
        Some(
            SdkTracerProvider::builder()
                .with_batch_exporter(exporter)
                .with_resource(resource.build())
                .build(),
        )
    } else {
        None
    };
    let trace = provider.as_ref().map(|p| {
        tracing_opentelemetry::layer()
            .with_tracer(p.tracer("tablekeeper"))
            .with_filter(EnvFilter::new(TRACE_FILTER))
    });
    tracing_subscriber::registry().with(log).with(trace).try_init()?;
    Ok(Telemetry { provider })
}
