//! Conditional requests: a table's version is the entity tag of the table, its score sheet and
//! its ledger (each changes only with a new log entry); `If-None-Match` saves a reader the body,
//! `If-Match` keeps a writer from recording on a table that changed since it looked.

use actix_web::http::header::{HeaderMap, ETAG, IF_MATCH, IF_NONE_MATCH};
use actix_web::{HttpRequest, HttpResponse};

/// The entity tag of a table at `version`.
pub fn etag(version: i64) -> String {
    format!("\"{version}\"")
}

/// The tags listed in a header, without weakness marks; None when the header is absent, and a
/// list holding `*` for "any".
fn tags(headers: &HeaderMap, name: actix_web::http::header::HeaderName) -> Option<Vec<String>> {
    let values: Vec<&str> = headers.get_all(name).filter_map(|v| v.to_str().ok()).collect();
    if values.is_empty() {
        return None;
    }
    Some(
        values
            .iter()
            .flat_map(|v| v.split(','))
            .map(|t| t.trim().trim_start_matches("W/").to_owned())
            .filter(|t| !t.is_empty())
            .collect(),
    )
}

/// A 200 with `body` and `version`'s tag, or a bodiless 304 when the client's `If-None-Match`
/// already names that tag.
pub fn respond(req: &HttpRequest, version: i64, body: &impl serde::Serialize) -> HttpResponse {
    let tag = etag(version);
    if let Some(tags) = tags(req.headers(), IF_NONE_MATCH) {
        if tags.iter().any(|t| *t == tag || t == "*") {
            return HttpResponse::NotModified().insert_header((ETAG, tag)).finish();
        }
    }
    HttpResponse::Ok().insert_header((ETAG, tag)).json(body)
}

/// The newest version an `If-None-Match` header names: the client has seen the table at least
/// that far (a read served by a lagging standby must not answer with less).
pub fn seen(req: &HttpRequest) -> Option<i64> {
    tags(req.headers(), IF_NONE_MATCH)?
        .iter()
        .filter_map(|t| t.strip_prefix('"')?.strip_suffix('"')?.parse().ok())
        .max()
}

/// The versions an `If-Match` header accepts: None when any will do (no header, or `*`); an
/// empty list when it names only tags that are no version (they can never match).
pub fn if_match(req: &HttpRequest) -> Option<Vec<i64>> {
    let tags = tags(req.headers(), IF_MATCH)?;
    if tags.iter().any(|t| t == "*") {
        return None;
    }
    Some(
        tags.iter()
            .filter_map(|t| t.strip_prefix('"')?.strip_suffix('"')?.parse().ok())
            .collect(),
    )
}
