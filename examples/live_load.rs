//! Live-tables benchmark: many subscribers spread over replicas while scorers record.
//!
//! `cargo run --release --example live_load -- --base URL --base URL [--subscribers N]
//! [--scorers S] [--deals D] [--connecting C]` (`scripts/bench-live` starts two release
//! replicas on a scratch database and runs this against them).
//!
//! Each scorer records Nomination Whist deals card by card on its own table, alternating between
//! the replicas. First the scorers record with nobody watching (moves/s without subscribers);
//! then, on new tables, the subscribers follow the tables' event streams, spread round-robin
//! over tables and replicas (at most C opening at once; a stream refused with 503 is opened
//! again, as `EventSource` does), and the scorers record the same deals again. For every entry
//! each subscriber receives it prints the delay from the moment the scorer had the move's answer
//! (the move was committed by then) to the receipt, as p50/p99/max (a negative delay, the stream
//! beating the answer, counts as zero), and how many subscribers received every entry of their
//! table exactly once.

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
    connecting: usize,
}

fn args() -> Args {
    let mut args = Args {
        bases: Vec::new(),
        subscribers: 1000,
        scorers: 16,
        deals: 3,
        connecting: 64,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_default();
        match flag.as_str() {
            "--base" => args.bases.push(value),
            "--subscribers" => args.subscribers = value.parse().unwrap_or(args.subscribers),
            "--scorers" => args.scorers = value.parse().unwrap_or(args.scorers),
            "--deals" => args.deals = value.parse().unwrap_or(args.deals),
            "--connecting" => args.connecting = value.parse().unwrap_or(args.connecting).max(1),
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

/// One subscriber: opens its stream (again while the replica answers 503), says so on `ready`,
/// and records each entry's seq and arrival until `stop`.
async fn subscribe(
    client: reqwest::Client,
    url: String,
    token: String,
    opening: Arc<tokio::sync::Semaphore>,
    ready: tokio::sync::mpsc::Sender<()>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> Vec<(i64, Instant)> {
    let mut received = Vec::new();
    let mut res = {
        let Ok(_permit) = opening.acquire().await else {
            return received;
        };
        let mut tries = 0;
        loop {
            tries += 1;
            match client.get(&url).bearer_auth(&token).send().await {
                Ok(res) if res.status().is_success() => break res,
                Ok(res) if tries < 100 && res.status().is_server_error() => {}
                Ok(res) => {
                    eprintln!("a subscriber was refused: {}", res.status());
                    return received;
                }
                Err(e) if tries < 100 => eprintln!("a subscriber could not connect ({e}); again"),
                Err(e) => {
                    eprintln!("a subscriber could not connect: {e}");
                    return received;
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    let _ = ready.send(()).await;
    drop(ready);
    let mut buffer = String::new();
    loop {
        let chunk = tokio::select! {
            chunk = res.chunk() => chunk,
            _ = stop.wait_for(|stop| *stop) => break,
        };
        let Ok(Some(chunk)) = chunk else { break };
        let now = Instant::now();
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            if let Some(id) = block.lines().find_map(|l| l.strip_prefix("id:")) {
                if let Ok(seq) = id.trim().parse::<i64>() {
                    received.push((seq, now));
                }
            }
        }
    }
    received
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
    let tables = open_tables(&client, &base, &token, args.scorers).await?;
    println!("== without subscribers: {} scorers", args.scorers);
    let (alone, _) = record(&args, &token, &tables).await?;

    let tables = open_tables(&client, &base, &token, args.scorers).await?;
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel(args.subscribers.max(1));
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let opening = Arc::new(tokio::sync::Semaphore::new(args.connecting));
    let mut subscribers = Vec::new();
    for i in 0..args.subscribers {
        let table = i % tables.len();
        let replica = &args.bases[(i / tables.len()) % args.bases.len()];
        let url = format!("{replica}/api/v1/tables/{}/events", tables[table]);
        let task = subscribe(
            client.clone(),
            url,
            token.clone(),
            opening.clone(),
            ready_tx.clone(),
            stopped.clone(),
        );
        subscribers.push((table, tokio::spawn(task)));
    }
    drop(ready_tx);
    let mut connected = 0;
    while ready_rx.recv().await.is_some() {
        connected += 1;
    }
    println!(
        "== with subscribers: {connected} connected over {} replicas",
        args.bases.len()
    );
    let (watched, committed) = record(&args, &token, &tables).await?;
    // Let the last entries arrive.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let _ = stop.send(true);

    let committed = committed.lock().map(|c| c.clone()).unwrap_or_default();
    let last: HashMap<usize, i64> = committed.keys().fold(HashMap::new(), |mut last, (table, seq)| {
        let l = last.entry(*table).or_insert(0);
        *l = (*l).max(*seq);
        last
    });
    let mut delays = Vec::new();
    let (mut exactly_once, mut deliveries, mut expected) = (0, 0, 0);
    let (mut missing, mut repeated) = (0, 0);
    for (table, subscriber) in subscribers {
        let received = subscriber.await?;
        let wanted = last.get(&table).copied().unwrap_or(0);
        expected += wanted as usize;
        deliveries += received.len();
        let mut seqs: Vec<i64> = received.iter().map(|(seq, _)| *seq).collect();
        if seqs == (1..=wanted).collect::<Vec<_>>() {
            exactly_once += 1;
        }
        seqs.sort_unstable();
        let before = seqs.len();
        seqs.dedup();
        repeated += before - seqs.len();
        missing += (1..=wanted).filter(|seq| seqs.binary_search(seq).is_err()).count();
        delays.extend(received.iter().filter_map(|(seq, at)| {
            committed
                .get(&(table, *seq))
                .map(|done| at.saturating_duration_since(*done))
        }));
    }
    delays.sort_unstable();
    println!("moves/s without subscribers: {alone:.0}");
    println!("moves/s with {connected} subscribers: {watched:.0}");
    println!("ratio with / without: {:.2} (target >= 0.8)", watched / alone);
    println!("deliveries: {deliveries} of {expected} expected; {missing} missing, {repeated} repeated");
    println!(
        "subscribers that received every entry exactly once, in order: {exactly_once} of {}",
        args.subscribers
    );
    for (name, p) in [("p50", 0.5), ("p99", 0.99), ("max", 1.0)] {
        println!(
            "delivery delay {name}: {:.1} ms",
            percentile(&delays, p).as_secs_f64() * 1000.0
        );
    }
    Ok(())
}

async fn open_tables(client: &reqwest::Client, base: &str, token: &str, n: usize) -> anyhow::Result<Vec<String>> {
    let mut tables = Vec::new();
    for _ in 0..n {
        let table = post(
            client,
            &format!("{base}/api/v1/tables"),
            Some(token),
            json!({"game": "nomination-whist", "players": ["A", "B", "C", "D"]}),
        )
        .await?;
        tables.push(table["id"].as_str().unwrap_or_default().to_owned());
    }
    Ok(tables)
}

/// Every scorer records its deals on its table; returns moves/s and when each move was answered.
async fn record(args: &Args, token: &str, tables: &[String]) -> anyhow::Result<(f64, Committed)> {
    let committed: Committed = Arc::default();
    let started = Instant::now();
    let scorers: Vec<_> = tables
        .iter()
        .enumerate()
        .map(|(i, id)| {
            tokio::spawn(score(
                args.bases.clone(),
                token.to_owned(),
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
    let rate = moves as f64 / elapsed.as_secs_f64();
    println!(
        "scorers: {}, moves: {moves} in {:.1} s ({rate:.0} moves/s)",
        args.scorers,
        elapsed.as_secs_f64(),
    );
    Ok((rate, committed))
}
