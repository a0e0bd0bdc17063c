//! Live-tables benchmark: many subscribers spread over replicas while scorers record.
//!
//! `cargo run --release --example live_load -- --base URL --base URL [--subscribers N]
//! [--scorers S] [--deals D] [--connecting C] [--tables T --watchers-per-table W --pace SECONDS
//! --tables-per-board B]` (`scripts/bench-live` starts two release replicas on a scratch
//! database and runs this against them).
//!
//! Two shapes. The harsh one (the default): S scorers each record as fast as their answers come,
//! N subscribers spread over their tables. The club night (`--tables`, issue #46): T tables, each
//! with its scorer posting its next move every `--pace` seconds (jittered, each table starting at
//! a random moment of the first pace), W watchers a table, and one session board (a session
//! stream) for every B tables (10 by default), the tables opened in sessions of B.
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
    /// The club night's shape: how many tables, watchers a table, seconds between a table's moves
    /// and tables a board.
    tables: Option<usize>,
    watchers_per_table: Option<usize>,
    pace: f64,
    tables_per_board: usize,
}

impl Args {
    /// How many tables are recorded on (one scorer each).
    fn tables(&self) -> usize {
        self.tables.unwrap_or(self.scorers)
    }

    /// How many table streams follow them.
    fn subscribers(&self) -> usize {
        self.watchers_per_table.map_or(self.subscribers, |w| w * self.tables())
    }

    /// Tables a session board follows: none in the harsh shape.
    fn tables_per_board(&self) -> Option<usize> {
        self.tables.map(|_| self.tables_per_board.max(1))
    }
}

fn args() -> Args {
    let mut args = Args {
        bases: Vec::new(),
        subscribers: 1000,
        scorers: 16,
        deals: 3,
        connecting: 64,
        tables: None,
        watchers_per_table: None,
        pace: 0.0,
        tables_per_board: 10,
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
            "--tables" => args.tables = value.parse().ok(),
            "--watchers-per-table" => args.watchers_per_table = value.parse().ok(),
            "--pace" => args.pace = value.parse().unwrap_or(0.0_f64).max(0.0),
            "--tables-per-board" => args.tables_per_board = value.parse().unwrap_or(args.tables_per_board),
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

/// Posts a move under an idempotency key, sent again (as the phone page does) when the
/// connection fails under it: at a person's pace a kept-alive connection may be closed by the
/// server just as the next move goes out on it.
async fn record_move(
    client: &reqwest::Client,
    url: &str,
    token: &str,
    body: Value,
    key: &str,
) -> anyhow::Result<Value> {
    let mut tries = 0;
    loop {
        tries += 1;
        let sent = client
            .post(url)
            .bearer_auth(token)
            .header("Idempotency-Key", key)
            .json(&body)
            .send()
            .await;
        let res = match sent {
            Ok(res) => res,
            Err(e) if tries < 3 && (e.is_connect() || e.is_request()) => continue,
            Err(e) => return Err(e.into()),
        };
        let status = res.status();
        let answer: Value = res.json().await?;
        anyhow::ensure!(status.is_success(), "{url} answered {status}: {answer}");
        return Ok(answer);
    }
}

/// When each (table, seq) was answered to its scorer.
type Committed = Arc<Mutex<HashMap<(usize, i64), Instant>>>;

/// What a stream brought: a table stream's entry (its seq), or a session stream's table line
/// (the table's id and version).
enum Heard {
    Entry(i64),
    Table(String, i64),
}

/// One subscriber: opens its stream (again while the replica answers 503), says so on `ready`,
/// and records what each event brought and when until `stop`.
async fn subscribe(
    client: reqwest::Client,
    url: String,
    token: String,
    opening: Arc<tokio::sync::Semaphore>,
    ready: tokio::sync::mpsc::Sender<()>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> Vec<(Heard, Instant)> {
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
                    received.push((Heard::Entry(seq), now));
                }
            } else if block.lines().any(|l| l.trim() == "event: table") {
                let data = block.lines().find_map(|l| l.strip_prefix("data:")).unwrap_or_default();
                if let Ok(line) = serde_json::from_str::<Value>(data.trim()) {
                    if let (Some(table), Some(version)) = (line["table_id"].as_str(), line["version"].as_i64()) {
                        received.push((Heard::Table(table.to_owned(), version), now));
                    }
                }
            }
        }
    }
    received
}

/// What one scorer recorded: its moves, and how long each took to be answered.
struct Scored {
    moves: usize,
    latencies: Vec<Duration>,
}

#[allow(clippy::too_many_arguments)]
async fn score(
    client: reqwest::Client,
    bases: Vec<String>,
    token: String,
    table: usize,
    id: String,
    deals: usize,
    pace: f64,
    committed: Committed,
) -> anyhow::Result<Scored> {
    let mut game = NominationWhist::new(4, Options::default()).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut version = 0i64;
    let mut latencies = Vec::new();
    // A person's pace, jittered (half to one and a half of it), each table starting at its own
    // moment of the first pace so that the tables do not move in step.
    let mut jitter = (table as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut next_jitter = move || {
        jitter ^= jitter << 13;
        jitter ^= jitter >> 7;
        jitter ^= jitter << 17;
        (jitter % 1000) as f64 / 1000.0
    };
    if pace > 0.0 {
        tokio::time::sleep(Duration::from_secs_f64(pace * next_jitter())).await;
    }
    for deal in 0..deals {
        let record = sim::random_deal(&mut game, (table as u64 + 1) * 1000 + deal as u64)?;
        for mv in &record.moves {
            if pace > 0.0 && version > 0 {
                tokio::time::sleep(Duration::from_secs_f64(pace * (0.5 + next_jitter()))).await;
            }
            let base = &bases[version as usize % bases.len()];
            let body = json!({"move": mv, "expected_version": version});
            let sent = Instant::now();
            record_move(
                &client,
                &format!("{base}/api/v1/tables/{id}/moves"),
                &token,
                body,
                &format!("{id}-{version}"),
            )
            .await?;
            let answered = Instant::now();
            latencies.push(answered - sent);
            version += 1;
            committed.lock().map(|mut c| c.insert((table, version), answered)).ok();
        }
        if game.is_finished() {
            break;
        }
    }
    Ok(Scored {
        moves: version as usize,
        latencies,
    })
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
    let per_board = args.tables_per_board();
    let (tables, _) = open_tables(&client, &base, &token, args.tables(), per_board).await?;
    println!("== without subscribers: {} scorers", tables.len());
    let (alone, alone_latencies, _) = record(&args, &token, &tables).await?;

    let (tables, sessions) = open_tables(&client, &base, &token, args.tables(), per_board).await?;
    let subscribers_n = args.subscribers();
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel((subscribers_n + sessions.len()).max(1));
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let opening = Arc::new(tokio::sync::Semaphore::new(args.connecting));
    let mut subscribers = Vec::new();
    for i in 0..subscribers_n {
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
    // One board a session, on the replicas in turn.
    let mut boards = Vec::new();
    for (i, session) in sessions.iter().enumerate() {
        let replica = &args.bases[i % args.bases.len()];
        let url = format!("{replica}/api/v1/sessions/{session}/events");
        let task = subscribe(
            client.clone(),
            url,
            token.clone(),
            opening.clone(),
            ready_tx.clone(),
            stopped.clone(),
        );
        boards.push(tokio::spawn(task));
    }
    drop(ready_tx);
    let mut connected = 0;
    while ready_rx.recv().await.is_some() {
        connected += 1;
    }
    println!(
        "== with subscribers: {connected} connected over {} replicas ({} boards)",
        args.bases.len(),
        boards.len()
    );
    let (watched, watched_latencies, committed) = record(&args, &token, &tables).await?;
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
        let received: Vec<(i64, Instant)> = subscriber
            .await?
            .into_iter()
            .filter_map(|(heard, at)| match heard {
                Heard::Entry(seq) => Some((seq, at)),
                Heard::Table(..) => None,
            })
            .collect();
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
    // The boards: each change's delay, and whether every board saw each of its tables' last entry.
    let index: HashMap<&str, usize> = tables.iter().enumerate().map(|(i, t)| (t.as_str(), i)).collect();
    let mut board_delays = Vec::new();
    let mut boards_complete = 0;
    let boards_n = boards.len();
    for board in boards {
        let mut seen: HashMap<usize, i64> = HashMap::new();
        for (heard, at) in board.await? {
            let Heard::Table(id, version) = heard else { continue };
            let Some(&table) = index.get(id.as_str()) else { continue };
            let best = seen.entry(table).or_insert(0);
            *best = (*best).max(version);
            if let Some(done) = committed.get(&(table, version)) {
                board_delays.push(at.saturating_duration_since(*done));
            }
        }
        if seen.iter().all(|(table, v)| last.get(table).is_none_or(|l| v >= l)) && !seen.is_empty() {
            boards_complete += 1;
        }
    }
    board_delays.sort_unstable();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!("moves/s without subscribers: {alone:.0}");
    println!("moves/s with {connected} subscribers: {watched:.0}");
    println!("ratio with / without: {:.2} (target >= 0.8)", watched / alone);
    for (name, p) in [("p50", 0.5), ("p99", 0.99)] {
        let (a, w) = (percentile(&alone_latencies, p), percentile(&watched_latencies, p));
        println!(
            "move latency {name}: {:.1} ms unwatched, {:.1} ms watched ({:.2}x)",
            ms(a),
            ms(w),
            ms(w) / ms(a).max(1e-9)
        );
    }
    println!("deliveries: {deliveries} of {expected} expected; {missing} missing, {repeated} repeated");
    println!("subscribers that received every entry exactly once, in order: {exactly_once} of {subscribers_n}");
    for (name, p) in [("p50", 0.5), ("p99", 0.99), ("max", 1.0)] {
        println!("delivery delay {name}: {:.1} ms", ms(percentile(&delays, p)));
    }
    if boards_n > 0 {
        println!(
            "boards: {boards_complete} of {boards_n} saw every table's last entry; change delay p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            ms(percentile(&board_delays, 0.5)),
            ms(percentile(&board_delays, 0.99)),
            ms(percentile(&board_delays, 1.0)),
        );
    }
    Ok(())
}

/// Opens `n` tables (in sessions of `per_session` when given: each table's players named apart,
/// as a session's roster seats a member at one table); the tables' and the sessions' ids.
async fn open_tables(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    n: usize,
    per_session: Option<usize>,
) -> anyhow::Result<(Vec<String>, Vec<String>)> {
    let mut tables = Vec::new();
    let mut sessions = Vec::new();
    for i in 0..n {
        let mut body = json!({"game": "nomination-whist", "players": ["A", "B", "C", "D"]});
        if let Some(per) = per_session {
            if i % per == 0 {
                let made = post(
                    client,
                    &format!("{base}/api/v1/sessions"),
                    Some(token),
                    json!({"name": format!("Night {}", i / per + 1)}),
                )
                .await?;
                sessions.push(made["id"].as_str().unwrap_or_default().to_owned());
            }
            body["session_id"] = json!(sessions.last());
            body["players"] = json!((0..4).map(|s| format!("P{i}-{s}")).collect::<Vec<_>>());
        }
        let table = post(client, &format!("{base}/api/v1/tables"), Some(token), body).await?;
        tables.push(table["id"].as_str().unwrap_or_default().to_owned());
    }
    Ok((tables, sessions))
}

/// Every scorer records its deals on its table; returns moves/s, each move's latency (sorted)
/// and when each move was answered.
async fn record(args: &Args, token: &str, tables: &[String]) -> anyhow::Result<(f64, Vec<Duration>, Committed)> {
    let committed: Committed = Arc::default();
    let client = reqwest::Client::new();
    let started = Instant::now();
    let scorers: Vec<_> = tables
        .iter()
        .enumerate()
        .map(|(i, id)| {
            tokio::spawn(score(
                client.clone(),
                args.bases.clone(),
                token.to_owned(),
                i,
                id.clone(),
                args.deals,
                args.pace,
                committed.clone(),
            ))
        })
        .collect();
    let mut moves = 0;
    let mut latencies = Vec::new();
    for scorer in scorers {
        let scored = scorer.await??;
        moves += scored.moves;
        latencies.extend(scored.latencies);
    }
    latencies.sort_unstable();
    let elapsed = started.elapsed();
    let rate = moves as f64 / elapsed.as_secs_f64();
    println!(
        "scorers: {}, moves: {moves} in {:.1} s ({rate:.0} moves/s); move latency p50 {:.1} ms, p99 {:.1} ms",
        tables.len(),
        elapsed.as_secs_f64(),
        percentile(&latencies, 0.5).as_secs_f64() * 1000.0,
        percentile(&latencies, 0.99).as_secs_f64() * 1000.0,
    );
    Ok((rate, latencies, committed))
}
