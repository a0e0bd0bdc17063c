//! The phone page's assets: served from the binary with their types, a CSP of 'self' only,
//! and revalidation by ETag.

use sqlx::PgPool;

use crate::helpers::spawn_app;

async fn fetch(base: &str, path: &str, etag: Option<&str>) -> reqwest::Response {
    let mut req = reqwest::Client::new().get(format!("{base}{path}"));
    if let Some(tag) = etag {
        req = req.header("If-None-Match", tag);
    }
    req.send().await.expect("answer")
}

#[sqlx::test(migrations = "./migrations")]
async fn the_page_and_its_assets_are_served_with_types_and_a_self_only_policy(pool: PgPool) {
    let app = spawn_app(pool).await;
    for (path, kind) in [
        ("/", "text/html"),
        ("/app/main.js", "text/javascript"),
        ("/app/legal.js", "text/javascript"),
        ("/app/style.css", "text/css"),
        ("/manifest.webmanifest", "application/manifest+json"),
        ("/app/icon-192.png", "image/png"),
        ("/sw.js", "text/javascript"),
    ] {
        let res = fetch(&app.base, path, None).await;
        assert_eq!(res.status(), 200, "{path}");
        let header = |name: &str| res.headers()[name].to_str().expect("ascii").to_owned();
        assert!(header("content-type").starts_with(kind), "{path}");
        let csp = header("content-security-policy");
        assert!(
            csp.contains("default-src 'self'") && !csp.contains("http"),
            "{path}: {csp}"
        );
        assert_eq!(header("cache-control"), "no-cache");
    }
    let worker = fetch(&app.base, "/sw.js", None).await.text().await.expect("text");
    for path in tablekeeper::web::asset_paths().filter(|p| *p != "/sw.js") {
        assert!(worker.contains(&format!("\"{path}\"")), "the worker caches {path}");
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn an_asset_that_did_not_change_answers_304(pool: PgPool) {
    let app = spawn_app(pool).await;
    let first = fetch(&app.base, "/app/main.js", None).await;
    let etag = first.headers()["etag"].to_str().expect("etag").to_owned();
    let again = fetch(&app.base, "/app/main.js", Some(&etag)).await;
    assert_eq!(again.status(), 304);
    let unknown = fetch(&app.base, "/app/nothing.js", None).await;
    assert_eq!(unknown.status(), 404);
}

#[sqlx::test(migrations = "./migrations")]
async fn every_catalogue_game_has_a_served_page_module_that_the_worker_keeps(pool: PgPool) {
    let app = spawn_app(pool).await;
    let catalogue: serde_json::Value = fetch(&app.base, "/api/v1/games", None)
        .await
        .json()
        .await
        .expect("catalogue");
    let ids: Vec<&str> = catalogue
        .as_array()
        .expect("a list")
        .iter()
        .map(|g| g["id"].as_str().expect("an id"))
        .collect();
    assert!(ids.len() >= 7, "{catalogue}");
    let worker = fetch(&app.base, "/sw.js", None).await.text().await.expect("text");
    for id in ids {
        let path = format!("/app/games/{id}.js");
        let res = fetch(&app.base, &path, None).await;
        assert_eq!(res.status(), 200, "{path}");
        let kind = res.headers()["content-type"].to_str().expect("ascii").to_owned();
        assert!(kind.starts_with("text/javascript"), "{path}: {kind}");
        let body = res.text().await.expect("text");
        for export in [
            "export const deck",
            "export const kinds",
            "export function panel",
            "export function result",
        ] {
            assert!(body.contains(export), "{path} has `{export}`");
        }
        assert!(worker.contains(&format!("\"{path}\"")), "the worker keeps {path}");
    }
    // Shared page code names no game: the games are found by their id.
    for shared in [
        "/app/panels.js",
        "/app/legal.js",
        "/app/table.js",
        "/app/controls.js",
        "/app/stops.js",
    ] {
        let body = fetch(&app.base, shared, None).await.text().await.expect("text");
        for id in [
            "nomination-whist",
            "dividend",
            "tridge",
            "tricky-dick",
            "pope-joan",
            "'spin'",
            "newmarket",
        ] {
            assert!(!body.contains(id), "{shared} names {id}");
        }
    }
}
