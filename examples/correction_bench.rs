//! Correction benchmark (issue #13): correcting deal 1 of a 100-deal Tridge table.
//!
//! `cargo run --release --example correction_bench -- [--deals N] [--runs R]` against
//! `DATABASE_URL` (migrated). Through the application layer (the use case the HTTP handler
//! calls, without HTTP): one Tridge table gets N deals as results (draws, which carry the Game
//! Fund from deal to deal), then deal 1 is corrected R times, alternately to a win (which
//! changes the funds, and so the bookings, of every later deal) and back to a draw. Prints each
//! correction's time and their median; every run is checked by the audit afterwards.

use std::time::Instant;

use serde_json::{json, Value};
use tablekeeper::rules::GameId;
use tablekeeper::service::access::Account;
use tablekeeper::service::corrections::{self, Correction};
use tablekeeper::service::recording::{self, Answer, Recording, Request};
use tablekeeper::service::{audit, tables, Principal};
use uuid::Uuid;

fn arg(name: &str, default: usize) -> usize {
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == name {
            return it.next().and_then(|v| v.parse().ok()).unwrap_or(default);
        }
    }
    default
}

fn draw(player: usize) -> Value {
    json!({"kind": "result", "player": player, "contract": {"contract": "play", "trumps": "hearts"},
           "honours": 0, "tricks": [3, 3, 3]})
}

fn win() -> Value {
    json!({"kind": "result", "player": 0, "contract": {"contract": "play_diamonds"},
           "honours": 2, "tricks": [5, 2, 2]})
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let deals = arg("--deals", 100);
    let runs = arg("--runs", 7);
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
    let by = Principal::Account(Account::by_password(owner));
    // The key kept in the database, as a local server would use.
    let keys = tablekeeper::service::receipts::AuditKeys::new(None, &[], "tablekeeper".to_owned());
    let table = tables::create(
        &pool,
        &keys,
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
    for deal in 0..deals {
        let mv = draw(deal % 3);
        let request = Request {
            table,
            by,
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
        let render = |_| {
            Ok(Answer {
                status: 201,
                body: String::new(),
            })
        };
        recording::record(&pool, None, None, &keys, request, render, |_| {}).await?;
    }
    let mut times = Vec::new();
    for run in 0..runs {
        let version = tables::state(&pool, table).await?.row.version;
        let moves = vec![if run % 2 == 0 { win() } else { draw(0) }];
        let correction = Correction {
            table,
            by,
            deal: 1,
            moves,
            expected_version: version,
            reason: "benchmark".into(),
            now: chrono::Utc::now(),
        };
        let started = Instant::now();
        // The answer is not what is measured: rendered as nothing, kept under no key.
        let render = |_, _| {
            Ok(Answer {
                status: 200,
                body: String::new(),
            })
        };
        corrections::correct(&pool, &keys, correction, None, render).await?;
        let ms = started.elapsed().as_secs_f64() * 1e3;
        println!("correction {}: {ms:.1} ms", run + 1);
        times.push(ms);
    }
    let (_, found) = audit::audit(&pool, table).await?;
    anyhow::ensure!(found.problems.is_empty(), "audit problems: {:?}", found.problems);
    times.sort_by(f64::total_cmp);
    println!(
        "correcting deal 1 of a {deals}-deal Tridge table: median {:.1} ms over {runs} runs (audit consistent)",
        times[times.len() / 2]
    );
    Ok(())
}
