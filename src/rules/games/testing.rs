//! Helpers shared by the games' rules tests: apply a move that must be accepted, and offer one
//! that must be refused without changing anything.

use crate::rules::{Game, RuleViolation};

/// Applies a move that the test expects to be accepted, and returns its events.
#[track_caller]
pub fn apply<G: Game>(game: &mut G, mv: G::Move) -> Vec<G::Event> {
    game.apply(&mv).unwrap_or_else(|e| panic!("{mv:?} was refused: {e}"))
}

/// Offers `mv` to a copy of `game` and checks that it is refused with `expected` and that the
/// copy is exactly as it was.
#[track_caller]
pub fn assert_refused<G: Game>(game: &G, mv: G::Move, expected: RuleViolation) {
    let mut after = game.clone();
    assert_eq!(after.apply(&mv), Err(expected), "{mv:?}");
    assert_eq!(&after, game, "a refused {mv:?} changed the state");
}

/// The refusal of a move of `kind` when only `expected` kinds are accepted.
pub fn not_expected(kind: &'static str, expected: &[&'static str]) -> RuleViolation {
    RuleViolation::MoveNotExpected {
        kind,
        expected: expected.to_vec(),
    }
}

/// The audit rebuilds a table's game from its stored options, so they must set it up again
/// exactly as it was.
pub fn set_up_again<G: Game>() {
    for players in G::SEATS {
        let game = G::new(players, G::Options::default()).expect("default set-up");
        assert_eq!(
            G::new(players, game.options()).expect("set up again"),
            game,
            "{} with {players}",
            G::NAME
        );
    }
}
