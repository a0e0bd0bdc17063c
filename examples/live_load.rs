//! Live-tables benchmark: many subscribers spread over replicas while scorers record.
//!
//! `cargo run --release --example live_load -- --base URL --base URL [--subscribers N]
//! [--scorers S] [--deals D]` (`scripts/bench-live` starts two release replicas on a scratch
//! database and runs this against them).
//!
//! Each scorer records Nomination Whist deals card by card on its own table, alternating between
//! the replicas; the subscribers follow the tables' event streams, spread round-robin over tables
//! and replicas. For every entry each subscriber receives it prints the delay from the moment the
//! scorer had the move's answer (the move was committed by then) to the receipt, as p50/p99/max;
//! a negative delay (the stream beat the answer) counts as zero.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tablekeeper::rules::games::nomination_whist::{sim, NominationWhist, Options};
use tablekeeper::rules::Game;

struct Args {
    bases: Vec<String>,
    subscribers: usize,
    scorers: usize,
    deals: usize,
}

fn args() -> Args {
    let mut args = Args {
        bases: Vec::new(),
        subscribers: 1000,
        scorers: 16,
        deals: 3,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_default();
        match flag.as_str() {
            "--base" => args.bases.push(value),
            "--subscribers" => args.subscribers = value.parse().unwrap_or(args.subscribers),
            "--scorers" => args.scorers = value.parse().unwrap_or(args.scorers),
            "--deals" => args.deals = value.parse().unwrap_or(args.deals),
            _ => eprintln!("ignoring unknown flag {flag}"),
        }
    }
    if args.bases.is_empty() {
        args.bases.push("http://127.0.0.1:8080".into());
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

/// When each (table, seq) was answered to its scorer.
type Committed = Arc<Mutex<HashMap<(usize, i64), Instant>>>;
/// When each subscriber received each (table, seq).
type Received = Arc<Mutex<Vec<(usize, i64, Instant)>>>;

async fn subscribe(url: String, table: usize, received: Received, ready: tokio::sync::mpsc::Sender<()>) {
    let client = reqwest::Client::new();
    let Ok(mut res) = client.get(&url).send().await else {
        eprintln!("a subscriber could not connect");
        return;
    };
    let _ = ready.send(()).await;
    drop(ready);
    let mut buffer = String::new();
    while let Ok(Some(chunk)) = res.chunk().await {
        let now = Instant::now();
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            if let Some(id) = block.lines().find_map(|l| l.strip_prefix("id:")) {
                if let Ok(seq) = id.trim().parse::<i64>() {
                    received.lock().map(|mut r| r.push((table, seq, now))).ok();
                }
            }
        }
    }
}

async fn score(
    bases: Vec<String>,
    token: String,
    table: usize,
    id: String,
    deals: usize,
    committed: Committed,
) -> anyhow::Result<usize> {
    let client = reqwest::Client::new();
    let mut game = NominationWhist::new(4, Options::default()).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut version = 0i64;
    for deal in 0..deals {
        let record = sim::random_deal(&mut game, (table as u64 + 1) * 1000 + deal as u64)?;
        for mv in &record.moves {
            let base = &bases[version as usize % bases.len()];
            let body = json!({"move": mv, "expected_version": version});
            post(&client, &format!("{base}/api/v1/tables/{id}/moves"), Some(&token), body).await?;
            version += 1;
            committed
                .lock()
                .map(|mut c| c.insert((table, version), Instant::now()))
                .ok();
        }
        if game.is_finished() {
            break;
        }
    }
    Ok(version as usize)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(i).copied().unwrap_or_default()
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = args();
    let client = reqwest::Client::new();
    let base = args.bases[0].clone();
    let email = format!("live-{}@bench.invalid", std::process::id());
    let registered = post(
        &client,
        &format!("{base}/api/v1/auth/register"),
        None,
        json!({"email": email, "name": "Live", "password": "live bench password"}),
    )
    .await?;
    let token = registered["token"].as_str().unwrap_or_default().to_owned();
    let mut tables = Vec::new();
    for _ in 0..args.scorers {
        let table = post(
            &client,
            &format!("{base}/api/v1/tables"),
            Some(&token),
            json!({"game": "nomination-whist", "players": ["A", "B", "C", "D"]}),
        )
        .await?;
        tables.push(table["id"].as_str().unwrap_or_default().to_owned());
    }

    let received: Received = Arc::default();
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel(args.subscribers.max(1));
    for i in 0..args.subscribers {
        let table = i % tables.len();
        let replica = &args.bases[(i / tables.len()) % args.bases.len()];
        let url = format!("{replica}/api/v1/tables/{}/events", tables[table]);
        tokio::spawn(subscribe(url, table, received.clone(), ready_tx.clone()));
    }
    drop(ready_tx);
    let mut connected = 0;
    while ready_rx.recv().await.is_some() {
        connected += 1;
    }
    println!("subscribers connected: {connected} over {} replicas", args.bases.len());

    let committed: Committed = Arc::default();
    let started = Instant::now();
    let scorers: Vec<_> = tables
        .iter()
        .enumerate()
        .map(|(i, id)| {
            tokio::spawn(score(
                args.bases.clone(),
                token.clone(),
                i,
                id.clone(),
                args.deals,
                committed.clone(),
            ))
        })
        .collect();
    let mut moves = 0;
    for scorer in scorers {
        moves += scorer.await??;
    }
    let elapsed = started.elapsed();
    // Let the last entries arrive.
    tokio::time::sleep(Duration::from_secs(2)).await;

    let committed = committed.lock().map(|c| c.clone()).unwrap_or_default();
    let received = received.lock().map(|r| r.clone()).unwrap_or_default();
    let mut delays: Vec<Duration> = received
        .iter()
        .filter_map(|(table, seq, at)| {
            committed
                .get(&(*table, *seq))
                .map(|done| at.saturating_duration_since(*done))
        })
        .collect();
    delays.sort_unstable();
    let expected = moves * args.subscribers / args.scorers.max(1);
    println!(
        "scorers: {}, moves: {moves} in {:.1} s ({:.0} moves/s)",
        args.scorers,
        elapsed.as_secs_f64(),
        moves as f64 / elapsed.as_secs_f64()
    );
    println!("deliveries: {} of about {expected} expected", received.len());
    for (name, p) in [("p50", 0.5), ("p99", 0.99), ("max", 1.0)] {
        println!(
            "delivery delay {name}: {:.1} ms",
            percentile(&delays, p).as_secs_f64() * 1000.0
        );
    }
    Ok(())
}
