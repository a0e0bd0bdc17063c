//! Each trick game's `TrickPlan` against the game itself: over simulated games, every card
//! played is by the seat the plan names next (after the trick's first), and every trick is won
//! by the seat the plan names. The phone page follows the plan without the service
//! (crates/web/page/app/tricks.js), so a plan that disagrees with the game would send its
//! queued cards to the wrong seats; its unit tests read the vectors written here.

use serde_json::{json, Value};

use crate::games::{dividend, nomination_whist, tridge};
use crate::trick::{Play, TrickPlan};
use crate::{Card, Game, Seat};

/// A trick as the plan saw it, and the winner the game named.
struct Checked {
    plan: TrickPlan,
    tricks: Vec<(Vec<Play<Card>>, Seat)>,
}

/// Applies `moves` to `game`, checking each card and each trick won against the plan the game
/// gave before the move; answers the first deal of five tricks or more, its plan and tricks (for the page's vectors).
fn follow<G: Game>(game: &mut G, moves: &[G::Move]) -> (usize, Option<Checked>) {
    let mut trick: Vec<Play<Card>> = Vec::new();
    let mut checked = 0;
    let mut first: Option<Checked> = None;
    for mv in moves {
        let plan = game.trick_plan();
        let deal = game.deal_number();
        let events = game.apply(mv).unwrap_or_else(|e| panic!("{mv:?} refused: {e}"));
        for event in events.into_vec() {
            let event = serde_json::to_value(&event).expect("json");
            match event["event"].as_str() {
                Some("card_played") => {
                    let plan = plan.as_ref().expect("a card played while the game gave no plan");
                    let play: Play<Card> = serde_json::from_value(event.clone()).expect("a play");
                    if let Some(last) = trick.last() {
                        assert_eq!(plan.after(last.seat), Some(play.seat), "the seat after {last:?}");
                    }
                    assert!(
                        plan.cards.iter().any(|c| c.card == play.card),
                        "{play:?} not in the plan"
                    );
                    trick.push(play);
                }
                Some("trick_won") => {
                    let plan = plan.as_ref().expect("a trick won while the game gave no plan");
                    let winner: Seat = serde_json::from_value(event["winner"].clone()).expect("a seat");
                    let cards: Vec<Play<Card>> = serde_json::from_value(event["cards"].clone()).expect("plays");
                    assert_eq!(cards, trick, "the trick's cards");
                    assert_eq!(plan.winner(&trick), Some(winner), "the winner of {trick:?}");
                    assert_eq!(Some(plan.deal), deal, "the plan's deal");
                    checked += 1;
                    match &mut first {
                        // A deal of five tricks or more, for the vectors.
                        None if plan.tricks >= 5 => {
                            first = Some(Checked {
                                plan: plan.clone(),
                                tricks: vec![(trick.clone(), winner)],
                            })
                        }
                        Some(f) if f.plan.deal == plan.deal => f.tricks.push((trick.clone(), winner)),
                        _ => {}
                    }
                    trick.clear();
                }
                _ => {}
            }
        }
    }
    (checked, first)
}

fn vector(game: &str, c: &Checked) -> Value {
    json!({
        "game": game,
        "plan": c.plan,
        "tricks": c.tricks.iter().map(|(plays, winner)| json!({"plays": plays, "winner": winner})).collect::<Vec<_>>(),
    })
}

fn nomination_whist(seed: u64, players: usize) -> (usize, Option<Checked>) {
    let mut game = nomination_whist::NominationWhist::new(players, Default::default()).expect("set up");
    let deals = nomination_whist::sim::random_game(&mut game.clone(), seed).expect("simulated");
    follow(&mut game, &nomination_whist::sim::moves(&deals))
}

fn dividend(seed: u64) -> (usize, Option<Checked>) {
    let mut game = dividend::Dividend::new(dividend::PLAYERS, Default::default()).expect("set up");
    let deals = dividend::sim::random_game(&mut game.clone(), seed).expect("simulated");
    follow(&mut game, &dividend::sim::moves(&deals))
}

fn tridge(seed: u64, players: usize) -> (usize, Option<Checked>) {
    let mut game = tridge::Tridge::new(players, Default::default()).expect("set up");
    let mut sim = game.clone();
    let mut moves = Vec::new();
    let mut seeds = crate::deck::SplitMix64::new(seed);
    for _ in 0..12 {
        if sim.is_finished() {
            break;
        }
        moves.extend(tridge::sim::random_deal(&mut sim, seeds.next_u64()).expect("simulated"));
    }
    follow(&mut game, &moves)
}

#[test]
fn every_trick_is_won_and_played_in_turn_as_the_plan_says() {
    let mut tricks = 0;
    for seed in 0..6 {
        for players in [3, 4, 5, 7] {
            tricks += nomination_whist(seed, players).0;
        }
        tricks += dividend(seed).0;
        for players in [3, 4] {
            tricks += tridge(seed, players).0;
        }
    }
    assert!(tricks > 2_000, "only {tricks} tricks checked");
}

/// The vectors the page's unit tests follow (crates/web/tests/vectors/tricks.json): a deal of
/// each trick game, its plan and its tricks as the game won them.
#[test]
fn the_page_follows_the_vectors_the_games_make() {
    let mut vectors = Vec::new();
    for (name, checked) in [
        ("nomination_whist", nomination_whist(1, 4).1),
        ("dividend", dividend(2).1),
        ("tridge", tridge(3, 4).1),
    ] {
        vectors.push(vector(name, checked.as_ref().expect("a deal played card by card")));
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/tests/vectors/tricks.json");
    let made = serde_json::to_string_pretty(&vectors).expect("json") + "\n";
    if std::env::var_os("TK_WRITE_VECTORS").is_some() {
        std::fs::write(&path, &made).expect("written");
    }
    let kept = std::fs::read_to_string(&path).expect("the vectors file (TK_WRITE_VECTORS=1 makes it)");
    assert_eq!(
        kept, made,
        "the page's trick vectors are stale: run this test with TK_WRITE_VECTORS=1"
    );
}
