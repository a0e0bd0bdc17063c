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

/// `/metrics` names the build (version and commit) and the process: CPU, memory, open file
/// descriptors, start time.
#[sqlx::test(migrations = "./migrations")]
async fn metrics_name_the_build_and_the_process(pool: PgPool) {
    let app = spawn_app(pool).await;
    let text = app.metrics().await;

    let build = format!(
        "tablekeeper_build_info{{commit=\"{}\",version=\"{}\"}} 1",
        tablekeeper::COMMIT,
        tablekeeper::VERSION
    );
    assert!(text.lines().any(|l| l == build), "{build} in:\n{text}");
    for name in [
        "process_cpu_seconds_total",
        "process_resident_memory_bytes",
        "process_open_fds",
        "process_max_fds",
        "process_start_time_seconds",
    ] {
        let value: f64 = text
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} in:\n{text}"))
            .parse()
            .expect("a number");
        assert!(value >= 0.0, "{name} {value}");
    }
    let resident: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("process_resident_memory_bytes "))
        .and_then(|v| v.parse().ok())
        .unwrap_or_default();
    assert!(resident > 1_000_000.0, "a running server holds more than a megabyte");
}

/// Builds can be told apart without anyone setting anything (issue #45): the build names the
/// commit its tree is at (`--version` says it: `ops::the_binary_says_its_version`).
#[test]
fn the_build_names_its_version_and_commit() {
    let head = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    match (std::env::var("TABLEKEEPER_COMMIT").ok().filter(|c| !c.is_empty()), head) {
        (Some(given), _) => assert_eq!(tablekeeper::COMMIT, given),
        (None, Some(head)) => assert_eq!(tablekeeper::COMMIT, head, "the work tree's HEAD"),
        (None, None) => assert_eq!(tablekeeper::COMMIT, "unknown"),
    }
    assert_eq!(tablekeeper::VERSION, env!("CARGO_PKG_VERSION"));
}
