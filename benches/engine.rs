//! Throughput of the rules engine: random legal Nomination Whist deals applied move by move.
//!
//! The move lists come from the seeded simulator and are generated before timing; the timed
//! part is `Game::apply` for every move of a deal (or game), starting from a fresh copy of the
//! state at the deal's start. Run with `cargo bench --bench engine`; throughput is in deals.

// The rules engine and the service allocate many small, short-lived values (events, plays,
// JSON); mimalloc serves them markedly faster than the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use tablekeeper::rules::games::nomination_whist::{sim, Move, NominationWhist, Options};
use tablekeeper::rules::Game;

/// Deals (or games) generated per benchmark; cycled through so that no single deal dominates.
const SAMPLES: u64 = 64;

fn new_game(players: usize, options: Options) -> NominationWhist {
    NominationWhist::new(players, options).expect("a valid set-up")
}

/// `SAMPLES` random card-by-card games from `start`, as move lists.
fn move_lists(start: &NominationWhist) -> Vec<Vec<Move>> {
    (0..SAMPLES)
        .map(|seed| {
            let mut game = start.clone();
            let deals = sim::random_game(&mut game, seed).expect("the simulator plays legal moves");
            sim::moves(&deals)
        })
        .collect()
}

fn apply_all(mut game: NominationWhist, moves: &[Move]) -> NominationWhist {
    for mv in moves {
        black_box(game.apply(black_box(mv)).expect("a legal move"));
    }
    game
}

/// Benchmarks applying each move list from a fresh copy of `start`, `deals_each` deals per list.
fn bench_lists(c: &mut Criterion, name: &str, start: &NominationWhist, deals_each: u64) {
    let lists = move_lists(start);
    let mut group = c.benchmark_group("nomination_whist");
    group.throughput(Throughput::Elements(deals_each));
    let mut next = 0;
    group.bench_function(name, |b| {
        b.iter_batched(
            || {
                next = (next + 1) % lists.len();
                (start.clone(), &lists[next])
            },
            |(game, moves)| apply_all(game, moves),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

/// One 13-card deal at 4 players: 4 nominations and 52 cards.
fn thirteen_card_deal(c: &mut Criterion) {
    let start = new_game(
        4,
        Options {
            hand_sizes: Some(vec![13]),
            ..Options::default()
        },
    );
    bench_lists(c, "deal_13_cards_4_players", &start, 1);
}

/// A whole default game at 4 players: 25 deals, 1 card up to 13 and back.
fn whole_game(c: &mut Criterion) {
    let start = new_game(4, Options::default());
    let deals = start.score_sheet().deals_in_game;
    bench_lists(c, "game_25_deals_4_players", &start, u64::from(deals));
}

/// The simulator itself (shuffle, deal, choose and apply), for comparison: one 13-card deal.
fn simulated_deal(c: &mut Criterion) {
    let start = new_game(
        4,
        Options {
            hand_sizes: Some(vec![13]),
            ..Options::default()
        },
    );
    let mut group = c.benchmark_group("nomination_whist");
    group.throughput(Throughput::Elements(1));
    let mut seed = 0;
    group.bench_function("simulate_deal_13_cards_4_players", |b| {
        b.iter_batched(
            || {
                seed += 1;
                (start.clone(), seed)
            },
            |(mut game, seed)| sim::random_deal(&mut game, seed).expect("the simulator plays legal moves"),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, thirteen_card_deal, whole_game, simulated_deal);
criterion_main!(benches);
