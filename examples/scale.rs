//! The scorers of `scripts/bench-scale`: phones recording Nomination Whist card by card as the
//! phone page does, every move with `expected_version` and an `Idempotency-Key`, so that the rows
//! a move writes (its answer kept under the key included) have their real shape and size.
//!
//! `cargo run --release --example scale -- --base URL [--tables N] [--deals D] [--seconds S] [--session]`
//!
//! Each of N scorers opens a table and plays up to D deals on it (table i plays `1 + i % D`
//! deals, so table lengths are mixed), or with `--seconds` keeps opening tables and playing until
//! the time is up. With `--session` the tables belong to one club session. Prints the number of
//! moves and the latency percentiles (`latency p50: … ms`), which the script reads.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tablekeeper::rules::games::nomination_whist::{sim, NominationWhist, Options};
use tablekeeper::rules::Game;

struct Args {
    base: String,
    tables: usize,
    deals: usize,
    seconds: Option<f64>,
    session: bool,
}

fn args() -> Args {
    let mut args = Args {
        base: "http://127.0.0.1:8080".into(),
        tables: 8,
        deals: 3,
        seconds: None,
        session: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--session" {
            args.session = true;
            continue;
        }
        let value = it.next().unwrap_or_default();
        match flag.as_str() {
            "--base" => args.base = value,
            "--tables" => args.tables = value.parse().unwrap_or(args.tables),
            "--deals" => args.deals = value.parse::<usize>().unwrap_or(args.deals).max(1),
            "--seconds" => args.seconds = value.parse().ok(),
            _ => eprintln!("ignoring unknown flag {flag}"),
        }
    }
    args
}

async fn post(
    client: &reqwest::Client,
    url: &str,
    token: Option<&str>,
    key: Option<&str>,
    body: Value,
) -> anyhow::Result<Value> {
    let mut req = client.post(url).json(&body);
    if let Some(token) = token {
        req = req.bearer_auth(token);
    }
    if let Some(key) = key {
        req = req.header("Idempotency-Key", key);
    }
    let res = req.send().await?;
    let status = res.status();
    let body: Value = res.json().await?;
    anyhow::ensure!(status.is_success(), "{url} answered {status}: {body}");
    Ok(body)
}

/// Plays `deals` deals on a new table (fewer if `until` passes first); returns each move's
/// latency.
async fn play(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    session: Option<&str>,
    seed: u64,
    deals: usize,
    until: Option<Instant>,
) -> anyhow::Result<Vec<Duration>> {
    let players: Vec<String> = ["A", "B", "C", "D"].iter().map(|p| format!("{p}{seed}")).collect();
    let table = post(
        client,
        &format!("{base}/api/v1/tables"),
        Some(token),
        None,
        json!({"game": "nomination-whist", "players": players, "session_id": session}),
    )
    .await?;
    let id = table["id"].as_str().unwrap_or_default().to_owned();
    let mut game = NominationWhist::new(4, Options::default()).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut latencies = Vec::new();
    let mut version = 0;
    for deal in 0..deals {
        let record = sim::random_deal(&mut game, seed.wrapping_mul(1000).wrapping_add(deal as u64))?;
        for mv in &record.moves {
            if until.is_some_and(|until| Instant::now() >= until) {
                return Ok(latencies);
            }
            // The phone page's key: one per entry it sends, kept across its retries.
            let key = uuid::Uuid::new_v4().to_string();
            let started = Instant::now();
            let body = json!({"move": mv, "expected_version": version});
            post(
                client,
                &format!("{base}/api/v1/tables/{id}/moves"),
                Some(token),
                Some(&key),
                body,
            )
            .await?;
            latencies.push(started.elapsed());
            version += 1;
        }
        if game.is_finished() {
            break;
        }
    }
    Ok(latencies)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(i).copied().unwrap_or_default()
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = args();
    let client = reqwest::Client::new();
    let email = format!("scale-{}-{}@bench.invalid", std::process::id(), uuid::Uuid::new_v4());
    let registered = post(
        &client,
        &format!("{}/api/v1/auth/register", args.base),
        None,
        None,
        json!({"email": email, "name": "Scale", "password": "scale test password"}),
    )
    .await?;
    let token = registered["token"].as_str().unwrap_or_default().to_owned();
    let session = if args.session {
        let session = post(
            &client,
            &format!("{}/api/v1/sessions", args.base),
            Some(&token),
            None,
            json!({"name": "Scale"}),
        )
        .await?;
        Some(session["id"].as_str().unwrap_or_default().to_owned())
    } else {
        None
    };

    let started = Instant::now();
    let until = args.seconds.map(|s| started + Duration::from_secs_f64(s));
    let tasks: Vec<_> = (0..args.tables)
        .map(|i| {
            let (client, base, token, session) = (client.clone(), args.base.clone(), token.clone(), session.clone());
            let deals = if until.is_some() {
                args.deals
            } else {
                1 + i % args.deals
            };
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                for game in 0u64.. {
                    let seed = (i as u64 + 1) + game * 1_000_003;
                    latencies.extend(play(&client, &base, &token, session.as_deref(), seed, deals, until).await?);
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
        "moves: {} in {:.2} s = {:.0} moves/s",
        latencies.len(),
        elapsed.as_secs_f64(),
        latencies.len() as f64 / elapsed.as_secs_f64()
    );
    for (name, p) in [("p50", 0.5), ("p99", 0.99), ("max", 1.0)] {
        println!(
            "latency {name}: {:.3} ms",
            percentile(&latencies, p).as_secs_f64() * 1000.0
        );
    }
    Ok(())
}
