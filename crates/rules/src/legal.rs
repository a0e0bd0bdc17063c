//! Concrete legal moves: what a scorer's phone may offer next, built from the rules themselves.
//!
//! Each game lists its legal moves in its `View` as a `LegalMove` enum tagged by `kind` (the
//! same `kind` as the move it stands for), with the concrete choices: the cards, nominations,
//! bids, contracts or seats open now, the trick number, a result form's bounds.
//!
//! Invariant: every choice listed is one `Game::apply` accepts now. The choices are worked out
//! the way a chess engine filters pseudo-legal moves: a game proposes candidates (the cards not
//! yet seen this deal, every bid, every seat) and keeps those its own `play_move` accepts on a
//! copy of the state, so the list and the rules cannot disagree.

use super::cards::Card;
use super::game::Game;
use super::seat::Seat;

/// A legal move's kind, as `Game::move_kind` names the move it stands for.
pub trait LegalKind {
    fn kind(&self) -> &'static str;
}

/// The kinds of a list of legal moves, in order and without repeats.
pub fn kinds<M: LegalKind>(moves: &[M]) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for m in moves {
        if !out.contains(&m.kind()) {
            out.push(m.kind());
        }
    }
    out
}

/// True when `apply` would accept `mv` now; the state is left untouched.
pub fn accepts<G: Game>(game: &G, mv: &G::Move) -> bool {
    !game.is_finished() && game.clone().play_move(mv).is_ok()
}

/// The candidates whose move `apply` would accept now, in order.
pub fn accepted<G: Game, T: Clone>(
    game: &G,
    candidates: impl IntoIterator<Item = T>,
    mv: impl Fn(&T) -> G::Move,
) -> Vec<T> {
    candidates.into_iter().filter(|c| accepts(game, &mv(c))).collect()
}

/// Per seat of `seats`, the cards among `candidates` that seat may play now (seats with none
/// are left out).
pub fn cards_by_seat<G: Game>(
    game: &G,
    seats: impl IntoIterator<Item = Seat>,
    candidates: &[Card],
    mv: impl Fn(Seat, Card) -> G::Move,
) -> Vec<(Seat, Vec<Card>)> {
    seats
        .into_iter()
        .map(|seat| (seat, accepted(game, candidates.iter().copied(), |&card| mv(seat, card))))
        .filter(|(_, cards)| !cards.is_empty())
        .collect()
}
