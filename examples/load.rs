//! A load generator for a running tablekeeper: many phones recording Nomination Whist deals card
//! by card at once, every move a real HTTP request with `expected_version`.
//!
//! `cargo run --release --example load -- [--base URL] [--tables N] [--deals D] [--seconds S] [--follow]`
//! (`scripts/load` starts a release server on a scratch database and runs this against it).
//!
//! Each table is driven by its own task: the moves come from the engine's simulator, so they
//! are legal, and each is sent only after the previous one was answered, like a scorer would.
//! It prints moves per second and latency percentiles. With `--seconds` each scorer keeps
//! going for that long, opening a new table whenever a game ends, so that all N are busy for
//! the whole run (as pgbench's clients are); without, each plays one game of D deals. With
//! `--follow` every table also has a phone following its event stream, so each move is
//! announced (`NOTIFY`) as at a real table. With `--session` the tables belong to one club
//! session (so it has an audit bundle), whose id is printed; `--email` names the organiser it
//! registers (password `load test password`), so that a script can log in again afterwards.
//!
//! `--base` may list several replicas (`http://a:1,http://b:2`): scorer i drives its tables on
//! the i-th, round robin. Every move and table carries an `Idempotency-Key`, and a `503`
//! (or a refused connection) is retried with the same key for up to `--retry-for` seconds (30),
//! as a phone does: a failover is waited out, and a retry never records a move twice. With
//! `--acks FILE` each ACKNOWLEDGED move (a 2xx answer) is written to FILE as
//! `TABLE_ID SEQ ACKNOWLEDGED_MS SENT_MS` (Unix milliseconds; sent: its first try), for
//! `scripts/failover`, which checks that none was lost.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tablekeeper::rules::games::nomination_whist::{sim, NominationWhist, Options};
use tablekeeper::rules::Game;

struct Args {
    base: String,
    tables: usize,
    deals: usize,
    seconds: Option<f64>,
    follow: bool,
    session: bool,
    email: Option<String>,
    acks: Option<String>,
    retry_for: Duration,
}

fn args() -> Args {
    let mut args = Args {
        base: "http://127.0.0.1:8080".into(),
        tables: 32,
        deals: 13,
        seconds: None,
        follow: false,
        session: false,
        email: None,
        acks: None,
        retry_for: Duration::from_secs(30),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--follow" {
            args.follow = true;
            continue;
        }
        if flag == "--session" {
            args.session = true;
            continue;
        }
        let value = it.next().unwrap_or_default();
        match flag.as_str() {
            "--base" => args.base = value,
            "--tables" => args.tables = value.parse().unwrap_or(args.tables),
            "--deals" => args.deals = value.parse().unwrap_or(args.deals),
            "--seconds" => args.seconds = value.parse().ok(),
            "--email" => args.email = Some(value),
            "--acks" => args.acks = Some(value),
            "--retry-for" => {
                args.retry_for = value.parse().map_or(args.retry_for, Duration::from_secs_f64);
            }
            _ => eprintln!("ignoring unknown flag {flag}"),
        }
    }
    args
}

async fn post(client: &reqwest::Client, url: &str, token: Option<&str>, body: Value) -> anyhow::Result<Value> {
    let mut req = client.post(url).json(&body);
    if let Some(token) = token {
        req = req.bearer_auth(token);
    }
    let res = req.send().await?;
    let status = res.status();
    let body: Value = res.json().await?;
    anyhow::ensure!(status.is_success(), "{url} answered {status}: {body}");
    Ok(body)
}

/// Posts with an `Idempotency-Key`, retrying with the same key on 503 or a failed connection
/// until `retry_for` has passed: an answer whose fate was unknown is asked again, and the
/// server's answer to the retry is the first one's if the first was recorded.
async fn post_retried(
    client: &reqwest::Client,
    url: &str,
    token: &str,
    body: Value,
    retry_for: Duration,
) -> anyhow::Result<Value> {
    let key = uuid::Uuid::new_v4().to_string();
    let deadline = Instant::now() + retry_for;
    loop {
        let sent = client
            .post(url)
            .bearer_auth(token)
            .header("Idempotency-Key", &key)
            .json(&body)
            .send()
            .await;
        let retry = match sent {
            Ok(res) if res.status() == reqwest::StatusCode::SERVICE_UNAVAILABLE => "503".to_owned(),
            Ok(res) => {
                let status = res.status();
                let answer: Value = res.json().await?;
                anyhow::ensure!(status.is_success(), "{url} answered {status}: {answer}");
                return Ok(answer);
            }
            Err(e) if e.is_connect() || e.is_request() => e.to_string(),
            Err(e) => return Err(e.into()),
        };
        anyhow::ensure!(
            Instant::now() < deadline,
            "{url} still failing after {retry_for:?}: {retry}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Where acknowledged moves are written, one line each: `TABLE_ID SEQ ACKNOWLEDGED_MS SENT_MS`.
type Acks = Option<std::sync::Arc<std::sync::Mutex<std::fs::File>>>;

fn unix_ms() -> anyhow::Result<u128> {
    Ok(std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_millis())
}

fn acknowledged(acks: &Acks, table: &str, answer: &Value, sent_ms: u128) -> anyhow::Result<()> {
    let Some(file) = acks else { return Ok(()) };
    let seq = answer["move"]["seq"]
        .as_i64()
        .ok_or_else(|| anyhow::anyhow!("a move answer without move.seq: {answer}"))?;
    let ms = unix_ms()?;
    let mut file = file
        .lock()
        .map_err(|_| anyhow::anyhow!("the acks file's lock is poisoned"))?;
    use std::io::Write;
    writeln!(file, "{table} {seq} {ms} {sent_ms}")?;
    Ok(())
}

/// Plays `deals` deals on a new table, or fewer if `until` passes first; returns each move's
/// latency.
#[expect(
    clippy::too_many_arguments,
    reason = "a benchmark driver: each argument is one knob of the run"
)]
async fn play(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    session: Option<&str>,
    seed: u64,
    deals: usize,
    follow: bool,
    until: Option<Instant>,
    acks: &Acks,
    retry_for: Duration,
) -> anyhow::Result<Vec<Duration>> {
    let (client, token) = (client.clone(), token.to_owned());
    let table = post_retried(
        &client,
        &format!("{base}/api/v1/tables"),
        &token,
        // In a session the players join its roster: each table has its own four, as tables
        // opened at once with the same new names race to add them (issue #27's notes).
        json!({"game": "nomination-whist", "players": players(seed, session.is_some()), "session_id": session}),
        retry_for,
    )
    .await?;
    let id = table["id"].as_str().unwrap_or_default().to_owned();
    // A phone following the table: its stream is read to the end and dropped with the task.
    let follower = if follow {
        let mut stream = client
            .get(format!("{base}/api/v1/tables/{id}/events"))
            // Streams are read with a token since reads became private (issue #25).
            .bearer_auth(&token)
            .send()
            .await?
            .error_for_status()?;
        Some(tokio::spawn(async move {
            let mut bytes = 0usize;
            while let Ok(Some(chunk)) = stream.chunk().await {
                bytes += chunk.len();
            }
            bytes
        }))
    } else {
        None
    };
    let mut game = NominationWhist::new(4, Options::default()).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut latencies = Vec::new();
    let mut version = 0;
    for deal in 0..deals {
        let record = sim::random_deal(&mut game, seed.wrapping_mul(1000).wrapping_add(deal as u64))?;
        for mv in &record.moves {
            if until.is_some_and(|until| Instant::now() >= until) {
                break;
            }
            let started = Instant::now();
            let sent_ms = unix_ms()?;
            let body = json!({"move": mv, "expected_version": version});
            let answer = post_retried(
                &client,
                &format!("{base}/api/v1/tables/{id}/moves"),
                &token,
                body,
                retry_for,
            )
            .await?;
            latencies.push(started.elapsed());
            acknowledged(acks, &id, &answer, sent_ms)?;
            version += 1;
        }
        if game.is_finished() || until.is_some_and(|until| Instant::now() >= until) {
            break;
        }
    }
    if let Some(follower) = follower {
        follower.abort();
    }
    Ok(latencies)
}

/// The four players of a table: A to D, or in a session names of the table's own.
fn players(seed: u64, in_session: bool) -> Vec<String> {
    ["A", "B", "C", "D"]
        .iter()
        .map(|p| {
            if in_session {
                format!("{p}{seed}")
            } else {
                (*p).to_owned()
            }
        })
        .collect()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(i).copied().unwrap_or_default()
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = args();
    let client = reqwest::Client::new();
    let bases: Vec<String> = args.base.split(',').map(|b| b.trim().to_owned()).collect();
    let acks: Acks = match &args.acks {
        Some(path) => Some(std::sync::Arc::new(std::sync::Mutex::new(
            std::fs::OpenOptions::new().create(true).append(true).open(path)?,
        ))),
        None => None,
    };
    let email = args
        .email
        .clone()
        .unwrap_or_else(|| format!("load-{}@bench.invalid", std::process::id()));
    let registered = post(
        &client,
        &format!("{}/api/v1/auth/register", bases[0]),
        None,
        json!({"email": email, "name": "Load", "password": "load test password"}),
    )
    .await?;
    let token = registered["token"].as_str().unwrap_or_default().to_owned();
    let session = if args.session {
        let session = post(
            &client,
            &format!("{}/api/v1/sessions", bases[0]),
            Some(&token),
            json!({"name": "Load"}),
        )
        .await?;
        let id = session["id"].as_str().unwrap_or_default().to_owned();
        println!("session: {id}");
        Some(id)
    } else {
        None
    };

    let started = Instant::now();
    let until = args.seconds.map(|s| started + Duration::from_secs_f64(s));
    let tasks: Vec<_> = (0..args.tables)
        .map(|i| {
            let base = bases[i % bases.len()].clone();
            let (client, token, session, acks) = (client.clone(), token.clone(), session.clone(), acks.clone());
            let (deals, follow, retry_for) = (args.deals, args.follow, args.retry_for);
            tokio::spawn(async move {
                // One game, or games one after another until the time is up.
                let mut latencies = Vec::new();
                for game in 0u64.. {
                    let seed = (i as u64 + 1) + game * 1_000_003;
                    latencies.extend(
                        play(
                            &client,
                            &base,
                            &token,
                            session.as_deref(),
                            seed,
                            deals,
                            follow,
                            until,
                            &acks,
                            retry_for,
                        )
                        .await?,
                    );
                    if until.is_none_or(|until| Instant::now() >= until) {
                        break;
                    }
                }
                anyhow::Ok(latencies)
            })
        })
        .collect();
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await??);
    }
    let elapsed = started.elapsed();
    latencies.sort_unstable();
    println!(
        "tables (concurrent scorers): {}{}",
        args.tables,
        if args.follow { ", each followed" } else { "" }
    );
    println!(
        "moves: {} in {:.2} s = {:.0} moves/s",
        latencies.len(),
        elapsed.as_secs_f64(),
        latencies.len() as f64 / elapsed.as_secs_f64()
    );
    for (name, p) in [("p50", 0.5), ("p95", 0.95), ("p99", 0.99), ("max", 1.0)] {
        println!(
            "latency {name}: {:.2} ms",
            percentile(&latencies, p).as_secs_f64() * 1000.0
        );
    }
    Ok(())
}
