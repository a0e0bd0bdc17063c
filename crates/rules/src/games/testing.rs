//! Helpers shared by the games' rules tests: apply a move that must be accepted, offer one that
//! must be refused without changing anything, check the legal moves and the simulators.

use crate::games::sim::SimError;
use crate::{Game, RuleViolation};

/// Applies a move that the test expects to be accepted, and returns its events.
#[track_caller]
pub fn apply<G: Game>(game: &mut G, mv: G::Move) -> Vec<G::Event> {
    game.apply(&mv)
        .unwrap_or_else(|e| panic!("{mv:?} was refused: {e}"))
        .into_vec()
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

/// Replays `moves` on `game` and, before each, checks the view's legal moves against `apply`:
/// `expand` turns them into the concrete moves they list and a sample of moves they leave out;
/// every listed move is accepted, every left-out one refused (on copies), and the move about to
/// be made is listed when its kind is one of `exact`. Returns how many listed moves were tried.
#[track_caller]
pub fn assert_legal_moves_along<G: Game>(
    mut game: G,
    moves: &[G::Move],
    exact: &[&str],
    expand: impl Fn(&G) -> (Vec<G::Move>, Vec<G::Move>),
) -> usize
where
    G::Move: PartialEq,
{
    let mut tried = 0;
    for mv in moves {
        let (listed, unlisted) = expand(&game);
        for ok in &listed {
            assert!(crate::legal::accepts(&game, ok), "listed but refused: {ok:?}");
        }
        for refused in &unlisted {
            assert!(
                !crate::legal::accepts(&game, refused),
                "not listed but accepted: {refused:?}"
            );
        }
        if exact.contains(&G::move_kind(mv)) {
            assert!(listed.contains(mv), "made but not listed: {mv:?} (listed {listed:?})");
        }
        tried += listed.len();
        apply(&mut game, mv.clone());
    }
    tried
}

/// Checks a game's simulator (`<game>::sim`) from `start`, a game at the start of a deal:
/// `random_game` plays it to its end, the same seed plays the same moves, those moves replay
/// through `apply` to the same game, and `random_deal` refuses a finished game and the middle
/// of a deal.
#[track_caller]
pub fn assert_simulator_plays_whole_games<G: Game>(
    start: G,
    random_deal: impl Fn(&mut G, u64) -> Result<Vec<G::Move>, SimError<G::Move>>,
    random_game: impl Fn(&mut G, u64) -> Result<Vec<Vec<G::Move>>, SimError<G::Move>>,
) where
    G::Move: PartialEq,
{
    let mut played = start.clone();
    let deals = random_game(&mut played, 7).unwrap_or_else(|e| panic!("{} simulated: {e}", G::NAME));
    assert!(played.is_finished());
    assert!(!deals.is_empty() && deals.iter().all(|d| !d.is_empty()));
    assert_eq!(
        random_game(&mut start.clone(), 7).ok(),
        Some(deals.clone()),
        "the same seed"
    );
    assert_eq!(
        random_game(&mut played.clone(), 7).ok(),
        Some(Vec::new()),
        "nothing left to play"
    );
    assert_eq!(random_deal(&mut played.clone(), 7), Err(SimError::GameFinished));

    let mut replayed = start.clone();
    for mv in deals.concat() {
        apply(&mut replayed, mv);
    }
    assert_eq!(replayed, played);

    let mut mid_deal = start;
    apply(&mut mid_deal, deals[0][0].clone());
    assert_eq!(random_deal(&mut mid_deal, 7), Err(SimError::MidDeal));
}
