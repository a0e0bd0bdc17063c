//! CSV exports (RFC 4180, a header row) of what treasurers take home: a table's ledger and score
//! sheet and a session's ledger. A client asks by `Accept: text/csv`, or a browser link by
//! `?format=csv`; JSON otherwise.

use actix_web::http::header::{ACCEPT, CONTENT_DISPOSITION, CONTENT_TYPE};
use actix_web::{HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

use super::error::ApiError;

/// The representation asked for by `?format=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Json,
    Csv,
}

/// `?format=csv` for a CSV download, as `Accept: text/csv` asks too.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct FormatQuery {
    pub format: Option<Format>,
}

/// Whether the caller wants CSV: `?format=csv`, or an `Accept` naming `text/csv` (and no
/// `?format=json`).
pub fn wants_csv(req: &HttpRequest, format: Option<Format>) -> bool {
    match format {
        Some(format) => format == Format::Csv,
        None => req
            .headers()
            .get_all(ACCEPT)
            .filter_map(|v| v.to_str().ok())
            .any(|v| v.split(',').any(|t| t.trim().starts_with("text/csv"))),
    }
}

/// A CSV download named `filename`: `header` then `rows`.
///
/// # Errors
/// When the CSV cannot be written (it is written to memory, so only on a fault).
pub fn respond(filename: &str, header: &[String], rows: &[Vec<String>]) -> Result<HttpResponse, ApiError> {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::new());
    let fault = |e: csv::Error| {
        tracing::error!(error = %e, "writing CSV");
        ApiError::internal()
    };
    writer.write_record(header).map_err(fault)?;
    for row in rows {
        writer.write_record(row).map_err(fault)?;
    }
    let body = writer.into_inner().map_err(|e| {
        tracing::error!(error = %e, "writing CSV");
        ApiError::internal()
    })?;
    Ok(HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, "text/csv; charset=utf-8; header=present"))
        .insert_header((CONTENT_DISPOSITION, format!("attachment; filename=\"{filename}\"")))
        .body(body))
}

/// A cell for a JSON value: text as is, null as empty, anything else as compact JSON.
pub fn cell(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A score sheet's deal lines as a table: one row per deal, one column per field, and a field
/// that holds one value per seat split into a column per player (`points Ann`).
pub fn sheet_rows(players: &[String], sheet: &Value) -> (Vec<String>, Vec<Vec<String>>) {
    let deals: Vec<&serde_json::Map<String, Value>> = sheet
        .get("deals")
        .and_then(Value::as_array)
        .map(|d| d.iter().filter_map(Value::as_object).collect())
        .unwrap_or_default();
    // Columns: `deal` first, then every field in the order first seen.
    let mut fields: Vec<(String, bool)> = Vec::new();
    for deal in &deals {
        for (key, value) in deal.iter() {
            let per_seat = value
                .as_array()
                .is_some_and(|a| a.len() == players.len() && a.iter().all(|v| !v.is_object() && !v.is_array()));
            if !fields.iter().any(|(k, _)| k == key) {
                fields.push((key.clone(), per_seat));
            }
        }
    }
    fields.sort_by_key(|(k, _)| k != "deal");
    let mut header = Vec::new();
    for (key, per_seat) in &fields {
        if *per_seat {
            header.extend(players.iter().map(|p| format!("{key} {p}")));
        } else {
            header.push(key.clone());
        }
    }
    let rows = deals
        .iter()
        .map(|deal| {
            let mut row = Vec::with_capacity(header.len());
            for (key, per_seat) in &fields {
                let value = deal.get(key).unwrap_or(&Value::Null);
                if *per_seat {
                    for i in 0..players.len() {
                        row.push(value.get(i).map(cell).unwrap_or_default());
                    }
                } else {
                    row.push(cell(value));
                }
            }
            row
        })
        .collect();
    (header, rows)
}
