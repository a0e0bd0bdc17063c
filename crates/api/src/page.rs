//! Serves the phone page's assets (the `tablekeeper-web` crate). Every answer carries a
//! `Content-Security-Policy` that allows only this origin, so the page can make no request to
//! any other host.

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};

async fn serve(req: HttpRequest) -> HttpResponse {
    let Some(asset) = tablekeeper_web::asset(req.path()) else {
        return crate::error::no_route().await;
    };
    let fresh = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == asset.etag));
    let mut answer = if fresh {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    answer
        .insert_header((header::CONTENT_SECURITY_POLICY, tablekeeper_web::CSP))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        // Not fingerprinted: always revalidate (cheap, thanks to the ETag); the service
        // worker keeps the shell for offline use.
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::ETAG, asset.etag));
    if fresh {
        return answer.finish();
    }
    answer.content_type(asset.content_type).body(asset.body)
}

/// Registers the page's routes (before the API's catch-all).
pub fn routes(cfg: &mut web::ServiceConfig) {
    for path in tablekeeper_web::asset_paths() {
        cfg.route(path, web::get().to(serve));
    }
}
