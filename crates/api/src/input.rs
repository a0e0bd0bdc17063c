//! Checks on input shared by the resources: page sizes, typed names and join codes.

use super::error::ApiError;

/// Page size bounds shared by the list endpoints.
pub(crate) fn page_limit(limit: Option<i64>) -> Result<i64, ApiError> {
    match limit {
        None => Ok(100),
        Some(n) if (1..=500).contains(&n) => Ok(n),
        Some(n) => Err(ApiError::bad_request(
            "invalid_query",
            format!("limit must be 1 to 500, not {n}"),
        )),
    }
}

/// A name as typed: trimmed, 1 to `max` characters, no control characters (PostgreSQL text
/// cannot hold NUL, and a name has no use for the others).
pub(crate) fn display_name(text: &str, max: usize) -> Option<&str> {
    let name = text.trim();
    let length = name.chars().count();
    ((1..=max).contains(&length) && !name.contains(char::is_control)).then_some(name)
}

/// Normalises a typed join code: letters upper-cased, anything but letters and digits (dashes,
/// spaces) dropped.
pub fn normalise_code(code: &str) -> String {
    code.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// A page of a list, with `Link: <…>; rel="next"` (RFC 8288) when there is a next page: the
/// request's own path and query with `param` (`offset`, `after`) set to `next`. The target is
/// relative, resolved against the request's URI as RFC 8288 says, so it holds behind a proxy.
pub(crate) fn page(
    req: &actix_web::HttpRequest,
    param: &str,
    next: Option<i64>,
    body: &impl serde::Serialize,
) -> actix_web::HttpResponse {
    let mut response = actix_web::HttpResponse::Ok();
    if let Some(next) = next {
        response.insert_header((actix_web::http::header::LINK, next_link(req, param, next)));
    }
    response.json(body)
}

/// `<path?query>; rel="next"` with `param=next` in place of the query's own `param`: the
/// `Link` header of a page that is not JSON (a CSV page) as of one that is.
pub(crate) fn next_link(req: &actix_web::HttpRequest, param: &str, next: i64) -> String {
    let mut pairs: Vec<String> = req
        .query_string()
        .split('&')
        .filter(|pair| !pair.is_empty() && pair.split('=').next() != Some(param))
        .map(str::to_owned)
        .collect();
    pairs.push(format!("{param}={next}"));
    format!("<{}?{}>; rel=\"next\"", req.path(), pairs.join("&"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_link_keeps_the_query_and_replaces_the_offset() {
        let req = actix_web::test::TestRequest::get()
            .uri("/api/v1/tables?limit=2&offset=2&session_id=x")
            .to_http_request();
        assert_eq!(
            next_link(&req, "offset", 4),
            "</api/v1/tables?limit=2&session_id=x&offset=4>; rel=\"next\""
        );
        let req = actix_web::test::TestRequest::get()
            .uri("/api/v1/clubs")
            .to_http_request();
        assert_eq!(
            next_link(&req, "offset", 100),
            "</api/v1/clubs?offset=100>; rel=\"next\""
        );
    }
}
