use sqlx::PgPool;

use crate::helpers::spawn_app;

#[sqlx::test(migrations = "./migrations")]
async fn liveness_and_readiness_answer(pool: PgPool) {
    let app = spawn_app(pool).await;
    assert_eq!(app.get("/api/v1/healthz").await.assert_status(200)["status"], "ok");
    assert_eq!(app.get("/api/v1/readyz").await.assert_status(200)["status"], "ready");
}

#[sqlx::test(migrations = "./migrations")]
async fn readiness_fails_when_the_database_is_gone(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    pool.close().await;
    app.get("/api/v1/readyz")
        .await
        .assert_problem(503, "database_unavailable");
}

#[sqlx::test(migrations = "./migrations")]
async fn unknown_routes_answer_problem_json(pool: PgPool) {
    let app = spawn_app(pool).await;
    app.get("/api/v1/nothing-here").await.assert_problem(404, "no_route");
}

#[sqlx::test(migrations = "./migrations")]
async fn prometheus_metrics_count_requests(pool: PgPool) {
    let app = spawn_app(pool).await;
    app.get("/api/v1/games").await.assert_status(200);
    let metrics = app
        .client
        .get(format!("{}/metrics", app.base))
        .send()
        .await
        .expect("metrics");
    assert_eq!(metrics.status(), 200);
    let text = metrics.text().await.expect("text");
    assert!(text.contains("tablekeeper_http_requests_total"), "{text}");
    assert!(text.contains("endpoint=\"/api/v1/games\""), "{text}");
}
