//! CSV exports (RFC 4180, a header row) of what treasurers take home: a table's ledger and score
//! sheet and a session's ledger. A client asks by `Accept: text/csv`, or a browser link by
//! `?format=csv`; JSON otherwise.
//!
//! Invariants: every cell is a [`Cell`], text or a number. A text cell that a spreadsheet would
//! read as a formula (it starts with `=`, `+`, `-`, `@`, a tab or a carriage return) is written
//! behind a single quote, as OWASP advises against CSV injection: a player named
//! `=HYPERLINK(…)` or `-1` is shown as typed and never run. A number cell is written as the
//! numeral, so chip columns stay numbers a sheet can sum, negative ones included; only what is a
//! number in the data (an integer, never text that looks like one) is a number cell.

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

/// One cell of an export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// Written as is unless a spreadsheet would read it as a formula (see the module's doc).
    Text(String),
    /// A number in the data, written as its numeral.
    Number(serde_json::Number),
}

impl Cell {
    /// A text cell; empty text for nothing.
    pub fn text(text: impl Into<String>) -> Cell {
        Cell::Text(text.into())
    }

    /// A whole number.
    pub fn int(n: i64) -> Cell {
        Cell::Number(n.into())
    }

    /// An optional whole number, empty when there is none.
    pub fn opt_int(n: Option<i64>) -> Cell {
        n.map_or_else(|| Cell::text(""), Cell::int)
    }

    /// A cell for a JSON value: a number as a number, text as text, null as empty, anything
    /// else as its compact JSON (text).
    pub fn of_json(value: &Value) -> Cell {
        match value {
            Value::Null => Cell::text(""),
            Value::Number(n) => Cell::Number(n.clone()),
            Value::String(s) => Cell::text(s.clone()),
            other => Cell::text(other.to_string()),
        }
    }

    /// What is written for the cell.
    fn written(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Cell::Number(n) => n.to_string().into(),
            Cell::Text(text) if text.starts_with(['=', '+', '-', '@', '\t', '\r']) => format!("'{text}").into(),
            Cell::Text(text) => text.as_str().into(),
        }
    }
}

/// A CSV download named `filename`: `header` then `rows`. Header cells are text, and neutralised
/// as text cells are (a column may be named after a player).
///
/// # Errors
/// When the CSV cannot be written (it is written to memory, so only on a fault).
pub fn respond(filename: &str, header: &[String], rows: &[Vec<Cell>]) -> Result<HttpResponse, ApiError> {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::new());
    let fault = |e: csv::Error| {
        tracing::error!(error = %e, "writing CSV");
        ApiError::internal()
    };
    let header: Vec<Cell> = header.iter().map(|h| Cell::text(h.clone())).collect();
    for row in std::iter::once(&header).chain(rows) {
        writer
            .write_record(row.iter().map(|c| c.written().into_owned()))
            .map_err(fault)?;
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

/// The fields that number a score sheet's line, in the club's words: the first column.
const LINE_NUMBER: [&str; 2] = ["deal", "hand"];

/// A score sheet's lines (each a deal, or a hand at Tricky Dick) as a table: one row per line,
/// one column per field, and a field that holds one value per seat split into a column per
/// player (`points Ann`).
pub fn sheet_rows(players: &[String], lines: &[Value]) -> (Vec<String>, Vec<Vec<Cell>>) {
    let lines: Vec<&serde_json::Map<String, Value>> = lines.iter().filter_map(Value::as_object).collect();
    // Columns: the line's number first, then every field in the order first seen.
    let mut fields: Vec<(String, bool)> = Vec::new();
    for line in &lines {
        for (key, value) in line.iter() {
            let per_seat = value
                .as_array()
                .is_some_and(|a| a.len() == players.len() && a.iter().all(|v| !v.is_object() && !v.is_array()));
            if !fields.iter().any(|(k, _)| k == key) {
                fields.push((key.clone(), per_seat));
            }
        }
    }
    fields.sort_by_key(|(k, _)| !LINE_NUMBER.contains(&k.as_str()));
    let mut header = Vec::new();
    for (key, per_seat) in &fields {
        if *per_seat {
            header.extend(players.iter().map(|p| format!("{key} {p}")));
        } else {
            header.push(key.clone());
        }
    }
    let rows = lines
        .iter()
        .map(|line| {
            let mut row = Vec::with_capacity(header.len());
            for (key, per_seat) in &fields {
                let value = line.get(key).unwrap_or(&Value::Null);
                if *per_seat {
                    for i in 0..players.len() {
                        row.push(value.get(i).map(Cell::of_json).unwrap_or_else(|| Cell::text("")));
                    }
                } else {
                    row.push(Cell::of_json(value));
                }
            }
            row
        })
        .collect();
    (header, rows)
}

/// A points game's sheet with the director's rulings beside the deals as played: a column per
/// player for what the rulings add (`rulings <player>`) and for the total with them (`total with
/// rulings <player>`), filled on one last row whose line number is `rulings`. The deals' rows
/// stay as played, as the sheet's JSON keeps them.
pub fn with_rulings(
    players: &[String],
    (mut header, mut rows): (Vec<String>, Vec<Vec<Cell>>),
    adjustments: &[i64],
    totals: &[i64],
) -> (Vec<String>, Vec<Vec<Cell>>) {
    let width = header.len();
    header.extend(players.iter().map(|p| format!("rulings {p}")));
    header.extend(players.iter().map(|p| format!("total with rulings {p}")));
    let blank = |n: usize| std::iter::repeat_with(|| Cell::text("")).take(n);
    for row in &mut rows {
        row.extend(blank(2 * players.len()));
    }
    let mut last: Vec<Cell> = std::iter::once(Cell::text("rulings"))
        .chain(blank(width.saturating_sub(1)))
        .collect();
    last.extend((0..players.len()).map(|i| Cell::int(adjustments.get(i).copied().unwrap_or(0))));
    last.extend((0..players.len()).map(|i| Cell::int(totals.get(i).copied().unwrap_or(0))));
    rows.push(last);
    (header, rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_that_a_spreadsheet_would_run_is_quoted_and_numbers_stay_numbers() {
        for (text, written) in [
            ("=HYPERLINK(\"http://x\",\"y\")", "'=HYPERLINK(\"http://x\",\"y\")"),
            ("-1", "'-1"),
            ("+1", "'+1"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\tx", "'\tx"),
            ("\rx", "'\rx"),
            ("Ann", "Ann"),
            ("", ""),
            ("a=b", "a=b"),
        ] {
            assert_eq!(Cell::text(text).written(), written, "{text:?}");
        }
        assert_eq!(Cell::int(-16).written(), "-16");
        assert_eq!(Cell::of_json(&serde_json::json!(-3)).written(), "-3");
        assert_eq!(Cell::of_json(&serde_json::json!("-3")).written(), "'-3");
        assert_eq!(Cell::opt_int(None).written(), "");
    }
}
