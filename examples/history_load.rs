//! History benchmark: does a move cost the same on deal 1,000 as on deal 1 (issue #10)?
//!
//! `cargo run --release --example history_load -- [--deals N]` against `DATABASE_URL` (migrated;
//! `scripts/bench-history` makes a scratch database). Through the application layer (the use
//! cases the HTTP handlers call, without HTTP): one Tridge table gets N deals as results, one
//! Pope Joan table (8 players) as many as its longest session allows (50 rounds: 400 deals);
//! prints the move latency of the last ten deals ÷ the first ten (their means and their medians),
//! and the audit time of the Tridge table at 100 deals and at N deals (median of 5) with their
//! ratio.

// The rules engine and the service allocate many small, short-lived values (events, plays,
// JSON); mimalloc serves them markedly faster than the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tablekeeper::rules::GameId;
use tablekeeper::service::access::Account;
use tablekeeper::service::recording::{self, Answer, Recording, Request};
use tablekeeper::service::{audit, tables, Principal};
use uuid::Uuid;

fn deals_arg() -> usize {
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--deals" {
            return it.next().and_then(|v| v.parse().ok()).unwrap_or(1000);
        }
    }
    1000
}

async fn record(pool: &sqlx::PgPool, owner: Uuid, table: Uuid, mv: Value) -> anyhow::Result<Duration> {
    let request = Request {
        table,
        by: Principal::Account(Account::by_password(owner)),
        what: Recording::Move(mv.clone(), None),
        expected_version: None,
        if_match: None,
        idempotency_key: None,
        answers_kept_for: tablekeeper::service::idempotency::DEFAULT_ANSWERS_KEPT_FOR,
        sent: mv,
        announce_apart: false,
        token_unread: None,
        now: chrono::Utc::now(),
    };
    let started = Instant::now();
    // No hot states: every move folds its state from the database, the path whose cost grew
    // with the history.
    recording::record(
        pool,
        None,
        None,
        keys(),
        request,
        |_| {
            Ok(Answer {
                status: 201,
                body: String::new(),
            })
        },
        |_| {},
    )
    .await?;
    Ok(started.elapsed())
}

async fn audit_ms(pool: &sqlx::PgPool, table: Uuid) -> anyhow::Result<f64> {
    let mut times = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        let (_, found) = audit::audit(pool, table).await?;
        times.push(started.elapsed().as_secs_f64() * 1e3);
        anyhow::ensure!(found.problems.is_empty(), "audit problems: {:?}", found.problems);
    }
    times.sort_by(f64::total_cmp);
    Ok(times[2])
}

fn mean_ms(per_deal: &[Duration]) -> f64 {
    per_deal.iter().map(Duration::as_secs_f64).sum::<f64>() * 1e3 / per_deal.len() as f64
}

/// The median: one move that meets a checkpoint or autovacuum moves a ten-deal mean by a
/// tenth of its delay, but leaves the median alone.
fn median_ms(per_deal: &[Duration]) -> f64 {
    let mut ms: Vec<f64> = per_deal.iter().map(|d| d.as_secs_f64() * 1e3).collect();
    ms.sort_by(f64::total_cmp);
    let mid = ms.len() / 2;
    if ms.len() % 2 == 0 {
        (ms[mid - 1] + ms[mid]) / 2.0
    } else {
        ms[mid]
    }
}

fn report(game: &str, per_deal: &[Duration]) {
    let n = per_deal.len();
    let (first, last) = (&per_deal[..10], &per_deal[n - 10..]);
    println!(
        "{game}: {n} deals; move latency deals 1-10 {:.2} ms, deals {}-{n} {:.2} ms, ratio {:.2} (means); \
         medians {:.2} and {:.2} ms, ratio {:.2}",
        mean_ms(first),
        n - 9,
        mean_ms(last),
        mean_ms(last) / mean_ms(first),
        median_ms(first),
        median_ms(last),
        median_ms(last) / median_ms(first),
    );
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let deals = deals_arg();
    let url = std::env::var("DATABASE_URL")?;
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(4)
        .connect(&url)
        .await?;
    let mut conn = pool.acquire().await?;
    let email = format!("bench-{}@club.example", Uuid::new_v4());
    let owner = tablekeeper::store::users::insert(&mut conn, &email, "Bench", "x")
        .await?
        .id;
    drop(conn);

    // Tridge: one result per deal, a draw by each player in turn.
    let tridge = tables::create(
        &pool,
        keys(),
        Account::by_password(owner),
        tables::NewTable {
            game: GameId::Tridge,
            players: vec!["Ann".into(), "Bob".into(), "Cat".into()],
            options: Some(json!({"opening_chips": 1_000_000})),
            session: None,
            members: None,
            club: None,
            now: chrono::Utc::now(),
        },
    )
    .await?
    .0
    .row
    .id;
    let mut per_deal = Vec::new();
    let mut audit_100 = None;
    for deal in 0..deals {
        let mv = json!({"kind": "result", "player": deal % 3, "contract": {"contract": "play", "trumps": "hearts"},
                        "honours": 0, "tricks": [3, 3, 3]});
        per_deal.push(record(&pool, owner, tridge, mv).await?);
        if deal + 1 == 100 {
            audit_100 = Some(audit_ms(&pool, tridge).await?);
        }
    }
    report("tridge", &per_deal);
    let audit_n = audit_ms(&pool, tridge).await?;
    let audit_100 = audit_100.unwrap_or(f64::NAN);
    println!(
        "tridge audit: 100 deals {audit_100:.2} ms, {deals} deals {audit_n:.2} ms, ratio {:.2}",
        audit_n / audit_100
    );

    // Pope Joan at 8 players: a turn-up and a result per deal, seat `deal % 8` going out.
    let players: Vec<String> = (1..=8).map(|i| format!("P{i}")).collect();
    let pope_deals = deals.min(8 * 50);
    let pope = tables::create(
        &pool,
        keys(),
        Account::by_password(owner),
        tables::NewTable {
            game: GameId::PopeJoan,
            players,
            options: Some(json!({"opening_chips": 1_000_000, "rounds": 50})),
            session: None,
            members: None,
            club: None,
            now: chrono::Utc::now(),
        },
    )
    .await?
    .0
    .row
    .id;
    let mut per_deal = Vec::new();
    for deal in 0..pope_deals {
        let out = deal % 8;
        let turn_up = record(&pool, owner, pope, json!({"kind": "turn_up", "card": "3C"})).await?;
        let cards_left: Vec<u8> = (0..8).map(|s| u8::from(s != out)).collect();
        let result = json!({"kind": "result", "out": out, "cards_left": cards_left,
                            "specials": vec![Vec::<String>::new(); 8]});
        per_deal.push((turn_up + record(&pool, owner, pope, result).await?) / 2);
    }
    report("pope-joan", &per_deal);
    pool.close().await;
    Ok(())
}

/// A fixed audit key: the bench measures the move path, receipts included, not key handling.
fn keys() -> &'static tablekeeper::service::receipts::AuditKeys {
    static KEYS: std::sync::OnceLock<tablekeeper::service::receipts::AuditKeys> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| tablekeeper::service::receipts::AuditKeys::new(Some([7; 32]), &[], "tablekeeper".to_owned()))
}
