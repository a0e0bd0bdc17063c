//! Webhooks (issue #26): registering endpoints, and deliveries from the transactional outbox as
//! Standard Webhooks says, to a receiver running in the test: signed, retried, delivered once
//! per event with a stable id, by another replica when the one that claimed a delivery dies,
//! and again on request; and never to a private address a host name resolves to, however its
//! answers change between lookups.

use std::collections::VecDeque;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use hmac::{Hmac, Mac};
use reqwest::Method;
use serde_json::{json, Value};
use sha2::Sha256;
use sqlx::PgPool;

use crate::clubs::{account, enrol};
use crate::helpers::{spawn_app_resolving, spawn_app_with, TestApp};
use crate::scorers::scorer;

/// A request the receiver got.
#[derive(Debug, Clone)]
struct Received {
    id: String,
    timestamp: String,
    signature: String,
    body: String,
}

/// An HTTP endpoint on a free port that keeps what it is sent and answers with the statuses
/// queued for it (200 once they run out). Only POSTs to its own path count: the port may be
/// one another test's server held a moment ago, and whatever still knocks there for that test
/// (a page reconnecting, say) is not a delivery.
struct Receiver {
    url: String,
    got: Arc<Mutex<Vec<Received>>>,
    answers: Arc<Mutex<VecDeque<u16>>>,
}

impl Receiver {
    async fn start() -> Receiver {
        let got = Arc::new(Mutex::new(Vec::new()));
        let answers = Arc::new(Mutex::new(VecDeque::new()));
        let (g, a) = (got.clone(), answers.clone());
        let path = format!("/hooks/{}", uuid::Uuid::new_v4());
        let own = path.clone();
        let server = actix_web::HttpServer::new(move || {
            let (g, a, own) = (g.clone(), a.clone(), own.clone());
            actix_web::App::new().default_service(actix_web::web::to(
                move |req: actix_web::HttpRequest, body: actix_web::web::Bytes| {
                    let (g, a, own) = (g.clone(), a.clone(), own.clone());
                    async move {
                        if req.method() != actix_web::http::Method::POST || req.path() != own {
                            return actix_web::HttpResponse::NotFound().finish();
                        }
                        let header = |name: &str| {
                            req.headers()
                                .get(name)
                                .and_then(|v| v.to_str().ok())
                                .unwrap_or_default()
                                .to_owned()
                        };
                        g.lock().expect("lock").push(Received {
                            id: header("webhook-id"),
                            timestamp: header("webhook-timestamp"),
                            signature: header("webhook-signature"),
                            body: String::from_utf8_lossy(&body).into_owned(),
                        });
                        let status = a.lock().expect("lock").pop_front().unwrap_or(200);
                        actix_web::HttpResponse::build(actix_web::http::StatusCode::from_u16(status).expect("status"))
                            .finish()
                    }
                },
            ))
        })
        .workers(1)
        .bind(("127.0.0.1", 0))
        .expect("receiver binds");
        let port = server.addrs()[0].port();
        tokio::spawn(server.run());
        Receiver {
            url: format!("http://127.0.0.1:{port}{path}"),
            got,
            answers,
        }
    }

    /// What came, each body checked against the spec's `webhooks` for its type.
    fn received(&self) -> Vec<Received> {
        let got = self.got.lock().expect("lock").clone();
        for r in &got {
            let body: Value = serde_json::from_str(&r.body).expect("a JSON body");
            let errors = crate::spec_validation::webhook_errors(&body);
            assert!(errors.is_empty(), "{body} against the spec: {errors:?}");
        }
        got
    }

    /// Waits until `n` requests came (at most 10 s), then a little longer to see none follow.
    async fn wait_for(&self, n: usize) -> Vec<Received> {
        for _ in 0..200 {
            if self.received().len() >= n {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        tokio::time::sleep(Duration::from_millis(400)).await;
        self.received()
    }
}

/// Fast deliveries: a worker looking every 50 ms, retries after 100 ms (three in all).
fn fast(s: &mut tablekeeper::config::Settings) {
    s.webhooks.poll = Duration::from_millis(50);
    s.webhooks.retry_schedule = vec![Duration::from_millis(100); 3];
    s.webhooks.timeout = Duration::from_secs(2);
    s.webhooks.lease = Duration::from_secs(3);
}

/// A club `token`'s account owns: its home club, where its sessions go.
async fn home_club(app: &TestApp, token: &str) -> String {
    crate::clubs::club(app, token, "Thursday club").await
}

async fn register(app: &TestApp, token: &str, club: &str, url: &str, events: &[&str]) -> Value {
    app.post(
        &format!("/api/v1/clubs/{club}/webhooks"),
        token,
        json!({"url": url, "events": events}),
    )
    .await
    .assert_status(201)
    .clone()
}

async fn hooks(app: &TestApp, token: &str, club: &str) -> Value {
    app.get_as(&format!("/api/v1/clubs/{club}/webhooks"), token)
        .await
        .assert_status(200)["items"]
        .clone()
}

async fn deliveries(app: &TestApp, token: &str, club: &str, hook: &str) -> Vec<Value> {
    app.get_as(&format!("/api/v1/clubs/{club}/webhooks/{hook}/deliveries"), token)
        .await
        .assert_status(200)["items"]
        .as_array()
        .expect("items")
        .clone()
}

/// A table of two one-card deals in a session of its own; (session, table).
async fn short_table(app: &TestApp, token: &str) -> (String, String) {
    let session = app.session(token, "Thursday").await;
    let body = json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat", "Dan"],
                      "session_id": session, "options": {"hand_sizes": [1, 1]}});
    let table = app.post("/api/v1/tables", token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    (session, table)
}

fn result(winner: usize) -> Value {
    let mut tricks = [0; 4];
    tricks[winner] = 1;
    json!({"kind": "result", "nominations": [0, 0, 0, 0], "tricks": tricks})
}

/// The Standard Webhooks signature, computed here from the specification.
fn signature(secret: &str, r: &Received) -> String {
    let b64 = base64::engine::general_purpose::STANDARD;
    let key = b64
        .decode(secret.strip_prefix("whsec_").expect("whsec_ prefix"))
        .expect("base64 secret");
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("key");
    mac.update(format!("{}.{}.{}", r.id, r.timestamp, r.body).as_bytes());
    format!("v1,{}", b64.encode(mac.finalize().into_bytes()))
}

#[sqlx::test(migrations = "./migrations")]
async fn organisers_register_list_and_delete_webhooks_and_bad_ones_change_nothing(pool: PgPool) {
    let app = spawn_app_with(pool.clone(), fast).await;
    let ann = app.organiser("ann@club.example").await;
    let club = home_club(&app, &ann).await;
    let path = format!("/api/v1/clubs/{club}/webhooks");

    let made = app
        .send(
            Method::POST,
            &path,
            Some(&ann),
            Some(
                json!({"url": "https://club.example.org/hooks", "events": ["deal.finished", "session.settled"]})
                    .to_string(),
            ),
            &[],
        )
        .await;
    let hook = made.assert_status(201).clone();
    let id = hook["id"].as_str().expect("id");
    assert_eq!(made.headers["location"], format!("{path}/{id}").as_str());
    let secret = hook["secret"].as_str().expect("secret");
    let key = base64::engine::general_purpose::STANDARD
        .decode(secret.strip_prefix("whsec_").expect("whsec_"))
        .expect("base64");
    assert_eq!(key.len(), 32);
    assert_eq!(hook["events"], json!(["deal.finished", "session.settled"]));
    let listed = hooks(&app, &ann, &club).await;
    assert_eq!(listed.as_array().expect("items").len(), 1);
    assert_eq!(listed[0]["id"], id);
    assert!(listed[0].get("secret").is_none(), "the secret is shown once");

    // Bad input, strangers and members who do not organise: refused, nothing registered.
    let bob = app.organiser("bob@club.example").await;
    let viewer = account(&app, "vic@club.example", "Vic").await;
    enrol(&app, &ann, &club, &viewer, "viewer").await;
    for (token, body, status, code) in [
        (
            &ann,
            json!({"url": "ftp://club.example.org/", "events": ["deal.finished"]}),
            422,
            "invalid_url",
        ),
        (
            &ann,
            json!({"url": "not a url", "events": ["deal.finished"]}),
            422,
            "invalid_url",
        ),
        (
            &ann,
            json!({"url": "https://club.example.org/", "events": ["deal.started"]}),
            422,
            "unknown_event",
        ),
        (
            &ann,
            json!({"url": "https://club.example.org/", "events": []}),
            422,
            "no_events",
        ),
        (
            &viewer,
            json!({"url": "https://club.example.org/", "events": ["deal.finished"]}),
            403,
            "forbidden",
        ),
        (
            &bob,
            json!({"url": "https://club.example.org/", "events": ["deal.finished"]}),
            404,
            "club_not_found",
        ),
    ] {
        app.post(&path, token, body).await.assert_problem(status, code);
    }
    app.get_as(&path, &bob).await.assert_problem(404, "club_not_found");
    app.get_as(&path, &viewer).await.assert_problem(403, "forbidden");
    app.request(Method::DELETE, &format!("{path}/{id}"), Some(&bob), None)
        .await
        .assert_problem(404, "club_not_found");
    assert_eq!(hooks(&app, &ann, &club).await, listed);

    // A server beyond loopback refuses private addresses (WEBHOOKS_ALLOW_PRIVATE=false).
    let strict = spawn_app_with(pool, |s| s.webhooks.allow_private = false).await;
    for url in [
        "http://127.0.0.1:9000/",
        "http://localhost/",
        "http://169.254.169.254/",
        "http://[::1]/",
    ] {
        strict
            .post(&path, &ann, json!({"url": url, "events": ["deal.finished"]}))
            .await
            .assert_problem(422, "private_address");
    }
    assert_eq!(hooks(&app, &ann, &club).await, listed);

    // An Idempotency-Key makes a retry register nothing more.
    let body = json!({"url": "https://club.example.org/two", "events": ["deal.finished"]}).to_string();
    let first = app
        .send(
            Method::POST,
            &path,
            Some(&ann),
            Some(body.clone()),
            &[("Idempotency-Key", "hook-2")],
        )
        .await;
    let again = app
        .send(
            Method::POST,
            &path,
            Some(&ann),
            Some(body),
            &[("Idempotency-Key", "hook-2")],
        )
        .await;
    assert_eq!(again.assert_status(201), first.assert_status(201));
    assert_eq!(again.headers["idempotent-replayed"], "true");
    assert_eq!(hooks(&app, &ann, &club).await.as_array().expect("items").len(), 2);

    app.request(Method::DELETE, &format!("{path}/{id}"), Some(&ann), None)
        .await
        .assert_status(204);
    let left = hooks(&app, &ann, &club).await;
    assert_eq!(left.as_array().expect("items").len(), 1);
    assert_ne!(left[0]["id"], id);
    app.request(Method::DELETE, &format!("{path}/{id}"), Some(&ann), None)
        .await
        .assert_problem(404, "webhook_not_found");
}

#[sqlx::test(migrations = "./migrations")]
async fn a_finished_deal_is_delivered_once_signed_and_names_club_session_table_and_deal(pool: PgPool) {
    let receiver = Receiver::start().await;
    let app = spawn_app_with(pool.clone(), fast).await;
    // A second replica on the same database: the two share the outbox, and send each row once.
    let _replica = spawn_app_with(pool, fast).await;
    let ann = app.organiser("ann@club.example").await;
    let club = home_club(&app, &ann).await;
    let hook = register(&app, &ann, &club, &receiver.url, &["deal.finished"]).await;
    let (session, table) = short_table(&app, &ann).await;

    app.submit(&table, &ann, result(1)).await.assert_status(201);
    let got = receiver.wait_for(1).await;
    assert_eq!(got.len(), 1, "{got:?}");
    let delivered = &got[0];
    assert_eq!(
        delivered.signature,
        signature(hook["secret"].as_str().expect("secret"), delivered)
    );
    let now = chrono::Utc::now().timestamp();
    let sent_at: i64 = delivered.timestamp.parse().expect("unix seconds");
    assert!((now - sent_at).abs() < 60);
    let body: Value = serde_json::from_str(&delivered.body).expect("JSON body");
    assert_eq!(body["type"], "deal.finished");
    assert_eq!(body["data"]["club_id"], club.as_str());
    assert_eq!(body["data"]["session_id"], session.as_str());
    assert_eq!(body["data"]["table_id"], table.as_str());
    assert_eq!(body["data"]["deal"], 1);
    assert_eq!(body["data"]["game"], "nomination-whist");

    let listed = deliveries(&app, &ann, &club, hook["id"].as_str().expect("id")).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["id"], delivered.id.as_str());
    assert_eq!(listed[0]["state"], "delivered");
    assert_eq!(listed[0]["payload"], body);
    assert_eq!(listed[0]["attempts"][0]["status"], 200);

    // Verified with the Standard Webhooks reference library as well.
    let check = json!({
        "secret": hook["secret"],
        "headers": {"webhook-id": delivered.id, "webhook-timestamp": delivered.timestamp,
                    "webhook-signature": delivered.signature},
        "body": delivered.body,
    });
    let mut child = tokio::process::Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/webhook-check"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("scripts/webhook-check runs");
    {
        use tokio::io::AsyncWriteExt;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(check.to_string().as_bytes()).await.expect("written");
    }
    let out = child.wait_with_output().await.expect("finished");
    assert!(
        out.status.success(),
        "standardwebhooks refused the delivery: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn a_failing_endpoint_is_retried_with_the_same_id_and_redelivered_on_request(pool: PgPool) {
    let receiver = Receiver::start().await;
    let app = spawn_app_with(pool, fast).await;
    let ann = app.organiser("ann@club.example").await;
    let club = home_club(&app, &ann).await;
    let hook = register(&app, &ann, &club, &receiver.url, &["deal.finished"]).await;
    let hook_id = hook["id"].as_str().expect("id");
    let (_, table) = short_table(&app, &ann).await;

    // 500 twice, then 200: delivered on the third attempt, with one id throughout.
    receiver.answers.lock().expect("lock").extend([500, 500]);
    app.submit(&table, &ann, result(0)).await.assert_status(201);
    let got = receiver.wait_for(3).await;
    assert_eq!(got.len(), 3, "{got:?}");
    assert!(got.iter().all(|r| r.id == got[0].id && r.body == got[0].body));
    let listed = deliveries(&app, &ann, &club, hook_id).await;
    assert_eq!(listed[0]["state"], "delivered");
    let statuses: Vec<&Value> = listed[0]["attempts"]
        .as_array()
        .expect("attempts")
        .iter()
        .map(|a| &a["status"])
        .collect();
    assert_eq!(statuses, [&json!(500), &json!(500), &json!(200)]);
    assert_eq!(listed[0]["attempts"][0]["error"], "the endpoint answered 500");

    // An endpoint that always fails: four attempts (the schedule's three retries), then failed.
    receiver.answers.lock().expect("lock").extend([503; 4]);
    app.submit(&table, &ann, result(2)).await.assert_status(201);
    let got = receiver.wait_for(7).await;
    assert_eq!(got.len(), 7, "{got:?}");
    let listed = deliveries(&app, &ann, &club, hook_id).await;
    let failed = &listed[0];
    assert_eq!(failed["state"], "failed");
    assert_eq!(failed["attempts"].as_array().expect("attempts").len(), 4);
    let failed_id = failed["id"].as_str().expect("id");
    assert_eq!(got[3].id, failed_id);

    // Redelivered: the same id and body, delivered now.
    let path = format!("/api/v1/clubs/{club}/webhooks/{hook_id}/deliveries/{failed_id}/redeliver");
    let due = app.post(&path, &ann, json!(null)).await;
    assert_eq!(due.assert_status(202)["state"], "pending");
    let got = receiver.wait_for(8).await;
    assert_eq!(got.len(), 8, "{got:?}");
    assert_eq!(got[7].id, failed_id);
    assert_eq!(got[7].body, got[6].body);
    assert_eq!(deliveries(&app, &ann, &club, hook_id).await[0]["state"], "delivered");

    // Someone else's delivery, or none: not found, nothing changed.
    let bob = app.organiser("bob@club.example").await;
    app.post(&path, &bob, json!(null))
        .await
        .assert_problem(404, "club_not_found");
    let unknown = format!(
        "/api/v1/clubs/{club}/webhooks/{hook_id}/deliveries/{}/redeliver",
        uuid::Uuid::new_v4()
    );
    app.post(&unknown, &ann, json!(null))
        .await
        .assert_problem(404, "delivery_not_found");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(receiver.received().len(), 8);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_delivery_claimed_by_a_replica_that_dies_is_delivered_by_another(pool: PgPool) {
    let receiver = Receiver::start().await;
    // The replica serving the requests delivers nothing itself: the "dying replica" is this test.
    let app = spawn_app_with(pool.clone(), |s| {
        fast(s);
        s.webhooks.worker = false;
    })
    .await;
    let ann = app.organiser("ann@club.example").await;
    let club = home_club(&app, &ann).await;
    let hook = register(&app, &ann, &club, &receiver.url, &["deal.finished"]).await;
    let (_, table) = short_table(&app, &ann).await;
    app.submit(&table, &ann, result(3)).await.assert_status(201);

    // A replica claims the delivery for 2 s and dies before sending it.
    let claimed_at = chrono::Utc::now();
    let mut conn = pool.acquire().await.expect("connection");
    let claimed = tablekeeper::store::webhooks::claim(&mut conn, 10, Duration::from_secs(2))
        .await
        .expect("claimed");
    assert_eq!(claimed.len(), 1);
    drop(conn);

    // Another replica starts: it leaves the claimed row alone until the claim lapses, then
    // delivers it with the same id.
    let _other = spawn_app_with(pool, fast).await;
    let got = receiver.wait_for(1).await;
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].id, claimed[0].id.to_string());
    let listed = deliveries(&app, &ann, &club, hook["id"].as_str().expect("id")).await;
    assert_eq!(listed[0]["state"], "delivered");
    // The dead replica's attempt left no outcome; the second is the one recorded, made once the
    // claim had lapsed.
    assert_eq!(listed[0]["attempts"].as_array().expect("attempts").len(), 1);
    assert_eq!(listed[0]["attempts"][0]["attempt"], 2);
    let attempted: chrono::DateTime<chrono::Utc> =
        serde_json::from_value(listed[0]["attempts"][0]["attempted_at"].clone()).expect("time");
    assert!(
        attempted >= claimed_at + chrono::Duration::seconds(2),
        "sent at {attempted} while claimed from {claimed_at} for 2 s"
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn tables_sessions_corrections_and_disputes_are_announced(pool: PgPool) {
    let receiver = Receiver::start().await;
    let app = spawn_app_with(pool, fast).await;
    let ann = app.organiser("ann@club.example").await;
    let club = home_club(&app, &ann).await;
    register(
        &app,
        &ann,
        &club,
        &receiver.url,
        &["table.finished", "session.settled", "deal.corrected", "deal.disputed"],
    )
    .await;
    let (session, table) = short_table(&app, &ann).await;
    let (phone, _) = scorer(&app, &ann, &table, "Bob's phone").await;
    app.submit(&table, &phone, result(0)).await.assert_status(201);
    app.submit(&table, &phone, result(1)).await.assert_status(201);
    let kinds = |got: &[Received]| -> Vec<(String, Value)> {
        got.iter()
            .map(|r| {
                let body: Value = serde_json::from_str(&r.body).expect("JSON");
                (body["type"].as_str().expect("type").to_owned(), body["data"].clone())
            })
            .collect()
    };
    let got = kinds(&receiver.wait_for(2).await);
    let mut types: Vec<&str> = got.iter().map(|(t, _)| t.as_str()).collect();
    types.sort_unstable();
    assert_eq!(types, ["session.settled", "table.finished"]);
    assert!(got
        .iter()
        .all(|(_, d)| d["session_id"] == session.as_str() && d["table_id"] == table.as_str()));

    // The organiser disputes deal 1 as the phone recorded it, then corrects deal 2.
    app.post(
        &format!("/api/v1/tables/{table}/deals/1/verification"),
        &ann,
        json!({"agree": false, "moves": [result(2)]}),
    )
    .await
    .assert_status(201);
    let version = app.state(&table).await["version"].as_i64().expect("version");
    app.request(
        Method::PUT,
        &format!("/api/v1/tables/{table}/deals/2"),
        Some(&ann),
        Some(json!({"moves": [result(3)], "expected_version": version, "reason": "Dan took it"})),
    )
    .await
    .assert_status(200);
    let got = kinds(&receiver.wait_for(4).await);
    assert_eq!(got.len(), 4, "{got:?}");
    assert_eq!(got[2].0, "deal.disputed");
    assert_eq!(got[2].1["deal"], 1);
    assert_eq!(got[3].0, "deal.corrected");
    assert_eq!(got[3].1["deal"], 2);
}

/// A DNS-rebinding name: each lookup answers the next address of `answers` (the last one once
/// they run out), and `lookups` counts them.
struct Rebinding {
    answers: Vec<IpAddr>,
    lookups: Arc<AtomicUsize>,
}

impl reqwest::dns::Resolve for Rebinding {
    fn resolve(&self, _: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let n = self.lookups.fetch_add(1, Ordering::SeqCst);
        let ip = self.answers[n.min(self.answers.len() - 1)];
        let addrs: reqwest::dns::Addrs = Box::new(std::iter::once(SocketAddr::new(ip, 0)));
        Box::pin(std::future::ready(Ok(addrs)))
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn a_name_that_rebinds_to_a_private_address_after_its_check_is_never_connected_to(pool: PgPool) {
    // Nothing may leave this machine, so 127.0.0.2 stands in for a public address (the
    // resolver's judge says so) and 127.0.0.1 is the private one. An endpoint on each, on one
    // port, counting the connections it accepts and dropping them.
    let (public_endpoint, private_endpoint) = loop {
        let public = tokio::net::TcpListener::bind(("127.0.0.2", 0)).await.expect("binds");
        let port = public.local_addr().expect("address").port();
        if let Ok(private) = tokio::net::TcpListener::bind(("127.0.0.1", port)).await {
            break (public, private);
        }
    };
    let port = private_endpoint.local_addr().expect("address").port();
    let count = |listener: tokio::net::TcpListener| {
        let connections = Arc::new(AtomicUsize::new(0));
        let accepted = connections.clone();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                accepted.fetch_add(1, Ordering::SeqCst);
                drop(socket);
            }
        });
        connections
    };
    let public_connections = count(public_endpoint);
    let connections = count(private_endpoint);
    // The name answers the "public" address once, then 127.0.0.1: a server that checks one
    // answer and connects to the next is fooled.
    let lookups = Arc::new(AtomicUsize::new(0));
    let rebinding = Rebinding {
        answers: vec![IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2)), IpAddr::V4(Ipv4Addr::LOCALHOST)],
        lookups: lookups.clone(),
    };
    let app = spawn_app_resolving(
        pool,
        move |s| {
            fast(s);
            s.webhooks.timeout = Duration::from_secs(1);
            s.webhooks.allow_private = false;
        },
        tablekeeper::service::webhooks::Resolver::judging(rebinding, |ip| {
            ip == IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2)) || tablekeeper::service::webhooks::is_public(ip)
        }),
    )
    .await;
    let ann = app.organiser("ann@club.example").await;
    let club = home_club(&app, &ann).await;
    let url = format!("http://hooks.club.example:{port}/hooks");
    let hook = register(&app, &ann, &club, &url, &["deal.finished"]).await;
    let hook_id = hook["id"].as_str().expect("id");
    let (_, table) = short_table(&app, &ann).await;

    app.submit(&table, &ann, result(1)).await.assert_status(201);
    let mut listed = Vec::new();
    for _ in 0..200 {
        listed = deliveries(&app, &ann, &club, hook_id).await;
        if listed.first().is_some_and(|d| d["state"] != "pending") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    assert_eq!(
        connections.load(Ordering::SeqCst),
        0,
        "the private endpoint was connected to"
    );
    assert_eq!(
        public_connections.load(Ordering::SeqCst),
        1,
        "the first attempt went to the address its lookup checked"
    );
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["state"], "failed", "{listed:?}");
    let attempts = listed[0]["attempts"].as_array().expect("attempts");
    assert_eq!(attempts.len(), 4);
    // One lookup an attempt: the address checked is the address connected to.
    assert_eq!(lookups.load(Ordering::SeqCst), attempts.len());
    for later in &attempts[1..] {
        assert_eq!(
            later["error"],
            "hooks.club.example resolves to 127.0.0.1, a private address (WEBHOOKS_ALLOW_PRIVATE is false)"
        );
    }
}

/// Every event the service sends is in the spec's `webhooks` (issue #45), and what a receiver
/// gets fits it (`Receiver::received` checks each body): a tournament's round and end, a
/// ruling, a session's close and its final checkpoint, besides the table's own events.
#[sqlx::test(migrations = "./migrations")]
async fn tournaments_rulings_and_closes_are_announced_as_the_spec_describes(pool: PgPool) {
    let receiver = Receiver::start().await;
    let app = spawn_app_with(pool, fast).await;
    let (token, session, tournament, members) = crate::leftover::pope_joan_night(&app, Some("bank")).await;
    let club = app.get(&format!("/api/v1/sessions/{session}")).await.assert_status(200)["club_id"]
        .as_str()
        .expect("club")
        .to_owned();
    let every: Vec<&str> = tablekeeper::service::webhooks::EVENT_TYPES.to_vec();
    register(&app, &token, &club, &receiver.url, &every).await;
    let (table, _) = crate::leftover::play_and_close(&app, &token, &tournament, &members).await;
    app.post(
        &format!("/api/v1/tables/{table}/deals/1/rulings"),
        &token,
        json!({"kind": "void", "reason": "the pack was short"}),
    )
    .await
    .assert_status(201);
    app.post(
        &format!("/api/v1/sessions/{session}/close"),
        &token,
        json!({"correction_window": "PT0S", "force": true, "reason": "the hall closes"}),
    )
    .await
    .assert_status(200);
    let got = receiver.wait_for(6).await;
    let mut kinds: Vec<String> = got
        .iter()
        .map(|r| {
            let body: Value = serde_json::from_str(&r.body).expect("JSON");
            body["type"].as_str().expect("type").to_owned()
        })
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    for kind in [
        "tournament.round_started",
        "deal.finished",
        "tournament.finished",
        "deal.ruled",
        "session.closed",
        "session.final",
    ] {
        assert!(kinds.iter().any(|k| k == kind), "{kind} in {kinds:?}");
    }
    let described: Vec<String> = tablekeeper::api::webhook_payloads::kinds()
        .iter()
        .map(|k| (*k).to_owned())
        .collect();
    assert!(kinds.iter().all(|k| described.contains(k)), "{kinds:?}");
}
