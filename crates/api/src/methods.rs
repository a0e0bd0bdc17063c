//! `405 Method Not Allowed` with `Allow` for a path the API has but not with the method asked,
//! and `404 no_route` for a path it does not have.
//!
//! The routes and their methods are read from the spec (`openapi::spec`), which lists every
//! handler once, so a new operation is known here without a second list. A path template of the
//! spec (`/api/v1/tables/{id}`) is an actix `ResourceDef` as it stands. `GET` brings `HEAD`
//! (answered by `middleware::request_context`).

use std::sync::OnceLock;

use actix_web::dev::ResourceDef;
use actix_web::http::header::ALLOW;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, ResponseError};

use super::error::ApiError;

/// Each documented path and the methods it answers, in the spec's order.
fn routes() -> &'static [(ResourceDef, Vec<&'static str>)] {
    static ROUTES: OnceLock<Vec<(ResourceDef, Vec<&'static str>)>> = OnceLock::new();
    ROUTES.get_or_init(|| {
        let spec = super::openapi::spec();
        let Some(paths) = spec.get("paths").and_then(serde_json::Value::as_object) else {
            return Vec::new();
        };
        paths
            .iter()
            .map(|(template, item)| {
                let mut methods = Vec::new();
                for (name, method) in [
                    ("get", "GET"),
                    ("get", "HEAD"),
                    ("post", "POST"),
                    ("put", "PUT"),
                    ("patch", "PATCH"),
                    ("delete", "DELETE"),
                ] {
                    if item.get(name).is_some() {
                        methods.push(method);
                    }
                }
                (ResourceDef::new(template.as_str()), methods)
            })
            .collect()
    })
}

/// The methods `path` answers, or None when no documented route has that path.
pub fn allowed(path: &str) -> Option<&'static [&'static str]> {
    routes()
        .iter()
        .find(|(def, _)| def.is_match(path))
        .map(|(_, methods)| methods.as_slice())
}

/// The answer when no route took the request: 405 with `Allow` when the path is a route's,
/// 404 `no_route` otherwise; problem+json either way.
pub async fn no_route(req: HttpRequest) -> HttpResponse {
    match allowed(req.path()) {
        Some(methods) => {
            let refusal = ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                format!(
                    "{} is not a method of this path; it takes {}",
                    req.method(),
                    methods.join(", ")
                ),
            );
            let mut response = refusal.error_response();
            if let Ok(value) = methods.join(", ").parse() {
                response.headers_mut().insert(ALLOW, value);
            }
            response
        }
        None => super::error::no_route().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_documented_path_knows_its_methods_and_an_unknown_one_has_none() {
        let methods = allowed("/api/v1/tables/0b6f4a2e-2d6f-4f0e-9f57-3c1f7f2d9a11/moves").expect("a route");
        assert_eq!(methods, ["GET", "HEAD", "POST"]);
        assert_eq!(allowed("/api/v1/tables").expect("a route"), ["GET", "HEAD", "POST"]);
        assert_eq!(allowed("/api/v1/nothing-here"), None);
    }
}
