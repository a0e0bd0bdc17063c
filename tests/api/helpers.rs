//! Spawning the app and talking to it.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use sqlx::PgPool;
use tablekeeper::app::Application;
use tablekeeper::config::Settings;

pub const TEST_SECRET: &str = "test-secret-test-secret-test-secret-0123456789";

pub struct TestApp {
    pub base: String,
    /// The separate metrics server's address, when the app was given METRICS_BIND.
    pub metrics_base: Option<String>,
    pub client: reqwest::Client,
    pub pool: PgPool,
    /// The app's hot states (none for a server in another process).
    pub hot: Option<std::sync::Arc<tablekeeper::service::hot::HotStates>>,
    /// The app's move batcher, when it runs in this process with `BATCH_MOVES` on.
    pub batcher: Option<tablekeeper::store::move_batch::MoveBatcher>,
    /// The app's live-tables hub (none for a server in another process).
    pub hub: Option<std::sync::Arc<tablekeeper::service::live::Hub>>,
    /// The app's clock (the system's until a test moves it on; none for a server in another
    /// process).
    pub clock: Option<tablekeeper::service::clock::Clock>,
    /// The token `get` reads with: the first organiser this rig registers (`organiser`), so that
    /// a test reading its own club's tables need not pass a token each time. Reads are private
    /// (issue #25): `get_anonymous` sends none, `get_as` a given one.
    pub default_reader: std::sync::Mutex<Option<String>>,
    /// Whether what is sent and received is checked against the spec (see `spec_validation`).
    checks_spec: std::sync::atomic::AtomicBool,
    _watched: crate::watchdog::Watched,
}

/// A response: status, content type and JSON body (Null when there is none).
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub content_type: String,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
    /// The body as sent, byte for byte.
    pub text: String,
}

impl Answer {
    /// Asserts a problem+json error with this status and code.
    #[track_caller]
    pub fn assert_problem(&self, status: u16, code: &str) {
        assert_eq!(self.status.as_u16(), status, "status; body: {}", self.body);
        assert_eq!(
            self.content_type, "application/problem+json",
            "content type; body: {}",
            self.body
        );
        assert_eq!(self.body["code"], code, "code; body: {}", self.body);
        assert!(
            tablekeeper::api::error::ApiError::all_codes().contains(&code),
            "`{code}` is answered but missing from the spec's Problem.code enum"
        );
        assert_eq!(self.body["status"], status);
        assert!(self.body["detail"].as_str().is_some_and(|d| !d.is_empty()), "detail");
        assert_eq!(self.body["type"], format!("/problems/{code}"));
    }

    #[track_caller]
    pub fn assert_status(&self, status: u16) -> &Value {
        assert_eq!(self.status.as_u16(), status, "body: {}", self.body);
        &self.body
    }
}

/// The URL of the test's own database: DATABASE_URL with the database name replaced.
pub fn database_url(pool: &PgPool) -> String {
    let base = std::env::var("DATABASE_URL").expect("DATABASE_URL");
    let name = pool
        .connect_options()
        .get_database()
        .expect("a database name")
        .to_owned();
    let (head, query) = base
        .split_once('?')
        .map_or((base.as_str(), None), |(h, q)| (h, Some(q)));
    let authority = head.find("://").map_or(0, |i| i + 3);
    let path = head[authority..].find('/').map_or(head.len(), |i| authority + i);
    let mut url = format!("{}/{name}", &head[..path]);
    if let Some(query) = query {
        url = format!("{url}?{query}");
    }
    url
}

pub async fn spawn_app(pool: PgPool) -> TestApp {
    spawn_app_with(pool, |_| {}).await
}

/// A test app with adjusted settings.
pub async fn spawn_app_with(pool: PgPool, adjust: impl FnOnce(&mut Settings)) -> TestApp {
    spawn_app_resolving(pool, adjust, tablekeeper::service::webhooks::Resolver::default()).await
}

/// A test app with adjusted settings whose webhook endpoints' names `resolver` resolves.
pub async fn spawn_app_resolving(
    pool: PgPool,
    adjust: impl FnOnce(&mut Settings),
    resolver: tablekeeper::service::webhooks::Resolver,
) -> TestApp {
    let mut settings = Settings::from_lookup(|name| {
        match name {
            "BIND" => Some("127.0.0.1:0"),
            "JWT_SECRET" => Some(TEST_SECRET),
            "TOKEN_TTL_HOURS" => Some("1"),
            "DATABASE_MAX_CONNECTIONS" => Some("5"),
            "WORKERS" => Some("1"),
            "AUTH_ATTEMPTS_PER_MINUTE" => Some("1000"),
            _ => None,
        }
        .map(str::to_owned)
    })
    .expect("test settings");
    adjust(&mut settings);
    let app = Application::build_resolving(&settings, pool.clone(), resolver).expect("app builds");
    let base = format!("http://127.0.0.1:{}", app.port());
    let metrics_base = app.metrics_port().map(|port| format!("http://127.0.0.1:{port}"));
    let hot = Some(app.hot_states());
    let batcher = app.move_batcher();
    let hub = Some(app.hub());
    let clock = Some(app.clock());
    tokio::spawn(app.run());
    TestApp {
        base,
        metrics_base,
        client: test_client(),
        pool,
        hot,
        batcher,
        hub,
        clock,
        default_reader: std::sync::Mutex::new(None),
        checks_spec: true.into(),
        _watched: crate::watchdog::Watched::current_test(),
    }
}

/// The tests' HTTP client. It forgets an idle connection after 2 s, well before the server's
/// keep-alive (5 s) closes it: a request sent on a pooled connection at the very moment the
/// server closes it fails with `IncompleteMessage` (seen under CI's load).
fn test_client() -> reqwest::Client {
    reqwest::Client::builder()
        .pool_idle_timeout(std::time::Duration::from_secs(2))
        .build()
        .expect("an HTTP client")
}

impl TestApp {
    /// A client of a server already running at `base` (a server process, say).
    pub fn at(base: &str, pool: PgPool) -> TestApp {
        TestApp {
            base: base.to_owned(),
            client: test_client(),
            pool,
            metrics_base: None,
            hot: None,
            batcher: None,
            hub: None,
            clock: None,
            default_reader: std::sync::Mutex::new(None),
            checks_spec: true.into(),
            _watched: crate::watchdog::Watched::current_test(),
        }
    }

    /// For a test that edits stored rows behind the server's back: what the server reads back
    /// from them is no longer what the spec describes, by the test's design.
    pub fn stop_checking_spec(&self) {
        self.checks_spec.store(false, std::sync::atomic::Ordering::Relaxed);
    }

    pub async fn request(&self, method: Method, path: &str, token: Option<&str>, body: Option<Value>) -> Answer {
        self.send(method, path, token, body.map(|b| b.to_string()), &[]).await
    }

    /// Sends a raw body with extra headers.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<String>,
        headers: &[(&str, &str)],
    ) -> Answer {
        let request_type = body.as_ref().map(|_| {
            headers
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case("content-type"))
                .map_or("application/json", |(_, value)| *value)
                .to_owned()
        });
        let sent = body.clone();
        let method_name = method.as_str().to_owned();
        let mut req = self.client.request(method, format!("{}{path}", self.base));
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        if let Some(body) = body {
            if !headers
                .iter()
                .any(|(name, _)| name.eq_ignore_ascii_case("content-type"))
            {
                req = req.header("content-type", "application/json");
            }
            req = req.body(body);
        }
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        let res = req.send().await.expect("request sent");
        let status = res.status();
        let headers = res.headers().clone();
        let content_type = headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let text = res.text().await.expect("body");
        let body = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or_else(|_| Value::String(text.clone()))
        };
        let header_names: Vec<String> = headers.keys().map(|k| k.as_str().to_owned()).collect();
        let exchange = crate::spec_validation::Exchange {
            method: &method_name,
            path,
            request_type: request_type.as_deref(),
            request: sent.as_deref(),
            status: status.as_u16(),
            response_type: &content_type,
            response: &text,
            response_headers: &header_names,
        };
        if self.checks_spec.load(std::sync::atomic::Ordering::Relaxed) {
            crate::spec_validation::check_exchange(&exchange);
        }
        Answer {
            status,
            content_type,
            headers,
            body,
            text,
        }
    }

    /// A read with the rig's default reader's token (see `default_reader`), or none before an
    /// organiser was registered.
    pub async fn get(&self, path: &str) -> Answer {
        let token = self.reader();
        self.request(Method::GET, path, token.as_deref(), None).await
    }

    /// A read without a token.
    pub async fn get_anonymous(&self, path: &str) -> Answer {
        self.request(Method::GET, path, None, None).await
    }

    /// A read with this token.
    pub async fn get_as(&self, path: &str, token: &str) -> Answer {
        self.request(Method::GET, path, Some(token), None).await
    }

    /// A request built by hand, with the default reader's token (streams, raw bodies).
    pub fn as_reader(&self, req: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match self.reader() {
            Some(token) => req.bearer_auth(token),
            None => req,
        }
    }

    /// The default reader's token, if any.
    pub fn reader(&self) -> Option<String> {
        self.default_reader.lock().expect("reader lock").clone()
    }

    pub async fn post(&self, path: &str, token: &str, body: Value) -> Answer {
        self.request(Method::POST, path, Some(token), Some(body)).await
    }

    /// Registers an organiser and returns the token; the first one becomes the default reader.
    pub async fn organiser(&self, email: &str) -> String {
        self.organiser_named(email, "Organiser").await
    }

    /// As `organiser`, with the account's name.
    pub async fn organiser_named(&self, email: &str, name: &str) -> String {
        let answer = self
            .request(
                Method::POST,
                "/api/v1/auth/register",
                None,
                Some(json!({"email": email, "name": name, "password": "correct horse battery"})),
            )
            .await;
        let token = answer.assert_status(201)["token"].as_str().expect("token").to_owned();
        self.default_reader
            .lock()
            .expect("reader lock")
            .get_or_insert_with(|| token.clone());
        token
    }

    /// Opens a session named `name` and returns its id.
    pub async fn session(&self, token: &str, name: &str) -> String {
        self.post("/api/v1/sessions", token, json!({"name": name}))
            .await
            .assert_status(201)["id"]
            .as_str()
            .expect("id")
            .to_owned()
    }

    /// Opens a Nomination Whist table and returns its id.
    pub async fn table(&self, token: &str, players: &[&str], options: Value) -> String {
        self.game_table(token, "nomination-whist", players, options).await
    }

    /// Opens a table for `game` and returns its id.
    pub async fn game_table(&self, token: &str, game: &str, players: &[&str], options: Value) -> String {
        let body = json!({"game": game, "players": players, "options": options});
        self.post("/api/v1/tables", token, body).await.assert_status(201)["id"]
            .as_str()
            .expect("id")
            .to_owned()
    }

    /// The table's score sheet.
    pub async fn scores(&self, table: &str) -> Value {
        self.get(&format!("/api/v1/tables/{table}/scores"))
            .await
            .assert_status(200)
            .clone()
    }

    /// The table's ledger.
    pub async fn ledger(&self, table: &str) -> Value {
        self.get(&format!("/api/v1/tables/{table}/ledger"))
            .await
            .assert_status(200)
            .clone()
    }

    /// The app's `/metrics`, as text.
    pub async fn metrics(&self) -> String {
        self.client
            .get(format!("{}/metrics", self.base))
            .send()
            .await
            .expect("metrics")
            .text()
            .await
            .expect("text")
    }

    pub async fn state(&self, table: &str) -> Value {
        self.get(&format!("/api/v1/tables/{table}"))
            .await
            .assert_status(200)
            .clone()
    }

    pub async fn log(&self, table: &str) -> Value {
        self.get(&format!("/api/v1/tables/{table}/moves?limit=500"))
            .await
            .assert_status(200)["items"]
            .clone()
    }

    /// Submits a move (no version, no key).
    pub async fn submit(&self, table: &str, token: &str, mv: Value) -> Answer {
        self.post(&format!("/api/v1/tables/{table}/moves"), token, json!({"move": mv}))
            .await
    }

    /// Everything a client can read about a table: for "nothing changed" assertions.
    pub async fn snapshot(&self, table: &str) -> (Value, Value, Value) {
        let state = self.state(table).await;
        let log = self.log(table).await;
        let scores = self.scores(table).await;
        (state, log, scores)
    }
}

/// An account's balance in a ledger answer (0 when the account never moved).
pub fn balance(ledger: &Value, account: &str) -> i64 {
    ledger["balances"]
        .as_array()
        .expect("balances")
        .iter()
        .find(|b| b["account"] == account)
        .map_or(0, |b| b["balance"].as_i64().expect("a number"))
}

/// Replaying the log gives the stored state, the ledger's seat balances are the chips the
/// engine's score sheet holds for each seat, and the audit endpoint finds the table consistent.
pub async fn assert_replay_matches_ledger<G: tablekeeper::rules::Game>(app: &TestApp, table: &str, players: usize) {
    let id: uuid::Uuid = table.parse().expect("uuid");
    let mut conn = app.pool.acquire().await.expect("connection");
    let row = tablekeeper::store::tables::fetch(&mut conn, id).await.expect("row");
    let replayed: G = tablekeeper::service::fold::replay(&mut conn, &row)
        .await
        .expect("replay");
    let incremental: G = tablekeeper::service::fold::current(&mut conn, &row)
        .await
        .expect("state");
    assert_eq!(replayed, incremental);
    let sheet = serde_json::to_value(incremental.score_sheet()).expect("json");
    let ledger = app.ledger(table).await;
    for seat in 0..players {
        assert_eq!(
            Some(balance(&ledger, &format!("seat:{seat}"))),
            sheet["chips"][seat].as_i64(),
            "seat {seat}"
        );
    }
    assert_audit_consistent(app, table).await;
}

/// Posts a move and asserts it was accepted; the answer's body.
pub async fn accept(app: &TestApp, table: &str, token: &str, mv: Value) -> Value {
    app.submit(table, token, mv).await.assert_status(201).clone()
}

/// The audit of a table (its whole log replayed and checked against the stored events,
/// snapshots and ledger), asserted consistent.
pub async fn assert_audit_consistent(app: &TestApp, table: &str) -> Value {
    let audit = app
        .get(&format!("/api/v1/tables/{table}/audit"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(audit["consistent"], true, "{audit}");
    assert_audits_alike(&app.pool, table).await;
    audit
}

/// The audit reads on two connections (the second in the same snapshot) when the pool has one
/// idle, and on one when it has not: asserts that both find the same.
pub async fn assert_audits_alike(pool: &PgPool, table: &str) {
    let id: uuid::Uuid = table.parse().expect("a table id");
    let idle = (
        pool.acquire().await.expect("a connection"),
        pool.acquire().await.expect("a second connection"),
    );
    drop(idle);
    let (_, on_two) = tablekeeper::service::audit::audit(pool, id).await.expect("an audit");
    let one = sqlx::postgres::PgPoolOptions::new()
        .max_connections(1)
        .connect_with((*pool.connect_options()).clone())
        .await
        .expect("a pool of one connection");
    let (_, on_one) = tablekeeper::service::audit::audit(&one, id).await.expect("an audit");
    one.close().await;
    assert_eq!(on_two, on_one, "the audit on two connections and on one");
}

/// The kinds of a view's `legal_moves` (concrete moves tagged by `kind`), in order, without
/// repeats: what a test compares when it does not look at the choices.
pub fn legal_kinds(view: &Value) -> Value {
    let mut kinds: Vec<Value> = Vec::new();
    for m in view["legal_moves"].as_array().expect("legal_moves is a list") {
        let kind = m["kind"].clone();
        assert!(kind.is_string(), "every legal move has a kind: {m}");
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    Value::Array(kinds)
}

/// Closes the session at once (forced, should a table still be playing), and checks its final
/// checkpoint against its bundle: among them, that the standings and settle-up it signed are
/// what the bundle's tables give, worked out again offline. The checkpoint.
pub async fn finalised_and_verified(app: &TestApp, token: &str, session: &str) -> Value {
    app.post(
        &format!("/api/v1/sessions/{session}/close"),
        token,
        serde_json::json!({"correction_window": "PT0S", "force": true, "reason": "the evening is over"}),
    )
    .await
    .assert_status(200);
    let kept = app
        .get(&format!("/api/v1/sessions/{session}/final"))
        .await
        .assert_status(200)
        .clone();
    let (bytes, _) = verified_bundle(app, session).await;
    tablekeeper::service::bundle::verify_checked(&bytes, &[], &[], std::slice::from_ref(&kept))
        .expect("the final checkpoint holds for the bundle");
    kept
}

/// The session's audit bundle as served to a reader, checked to verify against the service's
/// audit key: its bytes and its document.
pub async fn verified_bundle(app: &TestApp, session: &str) -> (Vec<u8>, Value) {
    let key = app.get("/api/v1/audit-key").await.assert_status(200)["public_key"]
        .as_str()
        .expect("key")
        .to_owned();
    let bytes = app
        .as_reader(
            app.client
                .get(format!("{}/api/v1/sessions/{session}/audit-bundle", app.base)),
        )
        .send()
        .await
        .expect("request")
        .bytes()
        .await
        .expect("body")
        .to_vec();
    tablekeeper::service::bundle::verify(&bytes, Some(&key)).expect("the bundle verifies");
    let document = serde_json::from_slice(&bytes).expect("json");
    (bytes, document)
}

/// What the offline verifier says of `document` changed by `change` and signed again by another
/// key (so only the chain can find the change): it must refuse it.
pub fn forged_refusal(document: &Value, change: impl FnOnce(&mut Value)) -> String {
    use ed25519_dalek::{Signer, SigningKey};
    use tablekeeper::service::chain::{canonical, hex};
    let mut changed = document.clone();
    changed.as_object_mut().expect("object").remove("signature");
    change(&mut changed);
    let forger = SigningKey::from_bytes(&[7; 32]);
    let signature = forger.sign(canonical(&changed).as_bytes());
    changed.as_object_mut().expect("object").insert(
        "signature".into(),
        serde_json::json!({"algorithm": "ed25519", "public_key": hex(forger.verifying_key().as_bytes()),
               "value": hex(&signature.to_bytes())}),
    );
    tablekeeper::service::bundle::verify(canonical(&changed).as_bytes(), None).expect_err("the chain finds the change")
}
