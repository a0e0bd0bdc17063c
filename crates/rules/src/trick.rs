//! Trick machinery shared by the trick-taking games: who plays next, who won, and revokes
//! found after the fact; `trick_events!` declares a game's events with the card-play events
//! that trick games record alike.
//!
//! The server usually does not see the hands, so follow-suit cannot be checked when a card is
//! played. What it can see is a player who failed to follow a suit and later plays that suit:
//! that proves an earlier revoke, and `Voids` reports it.

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use super::cards::{Card, Suit};
use super::seat::{BySeat, Seat, MAX_SEATS};

/// A card laid to a trick by a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Play<C> {
    pub seat: Seat,
    pub card: C,
}

/// A finished trick's cards as an event carries them: inline, as the trick holds them, so that
/// ending a trick allocates nothing.
pub type TrickCards<C> = SmallVec<[Play<C>; MAX_SEATS]>;

/// A trick in progress: the leader and the cards laid so far, in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trick<C> {
    leader: Seat,
    /// At most one card per seat, held inline: a trick is copied with every move.
    plays: SmallVec<[Play<C>; MAX_SEATS]>,
}

impl<C: Copy> Trick<C> {
    pub fn new(leader: Seat) -> Trick<C> {
        Trick {
            leader,
            plays: SmallVec::new(),
        }
    }

    pub fn leader(&self) -> Seat {
        self.leader
    }

    pub fn plays(&self) -> &[Play<C>] {
        &self.plays
    }

    /// The cards laid so far, for an event: a copy of the inline array, not an element-wise clone.
    pub fn cards(&self) -> TrickCards<C> {
        SmallVec::from_slice(&self.plays)
    }

    pub fn is_empty(&self) -> bool {
        self.plays.is_empty()
    }

    /// The card led, once there is one.
    pub fn led(&self) -> Option<C> {
        self.plays.first().map(|p| p.card)
    }

    /// The seat due to play next, going left from the leader.
    pub fn next_seat(&self, players: usize) -> Seat {
        self.leader.left(self.plays.len(), players)
    }

    pub fn is_complete(&self, players: usize) -> bool {
        self.plays.len() >= players
    }

    pub fn push(&mut self, seat: Seat, card: C) {
        self.plays.push(Play { seat, card });
    }

    /// The winning play: the one with the highest key, the earliest on equal keys.
    /// Returns its position in the trick (0 = the lead) and the play.
    pub fn winner_by<K: Ord>(&self, key: impl Fn(C) -> K) -> Option<(usize, Play<C>)> {
        highest(&self.plays, key)
    }
}

/// The play of `plays` with the highest key, the earliest on equal keys, and its position.
fn highest<C: Copy, K: Ord>(plays: &[Play<C>], key: impl Fn(C) -> K) -> Option<(usize, Play<C>)> {
    let mut best: Option<(usize, Play<C>, K)> = None;
    for (i, play) in plays.iter().enumerate() {
        let k = key(play.card);
        if best.as_ref().is_none_or(|(_, _, b)| k > *b) {
            best = Some((i, *play, k));
        }
    }
    best.map(|(i, p, _)| (i, p))
}

impl Trick<Card> {
    /// The winning play of a trick of the 52-card pack: the highest card of `trumps` if any
    /// was played, else the highest card of the suit led; other suits are discards.
    pub fn winner_with_trumps(&self, trumps: Option<Suit>) -> Option<(usize, Play<Card>)> {
        let led = self.led()?.suit;
        self.winner_by(|c| (Some(c.suit) == trumps, c.suit == led, c.rank))
    }
}

/// A revoke proven after the fact: `seat` did not follow `suit` in trick `revoked_in_trick`,
/// then played that suit in trick `proven_in_trick` (tricks numbered from 1 in the deal).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Revoke<S> {
    pub seat: Seat,
    pub suit: S,
    pub revoked_in_trick: u8,
    pub proven_in_trick: u8,
}

/// Which suits each seat has shown void in this deal, and in which trick.
///
/// Suits are small indices (`S: Into<usize>`), so games whose "suits" are not the four of the
/// pack (Tridge counts all trumps as one suit) can use it too.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Voids {
    /// Per seat, per suit index: the trick in which the seat showed void, or 0.
    shown: BySeat<[u8; 5]>,
}

impl Voids {
    pub fn new(players: usize) -> Voids {
        Voids {
            shown: BySeat::filled(players, [0; 5]),
        }
    }

    /// The revoke that playing a card of `suit` in trick `trick` by `seat` proves, if any.
    pub fn revoke_proven<S: Copy + Into<usize>>(&self, seat: Seat, suit: S, trick: u8) -> Option<Revoke<S>> {
        let revoked_in_trick = self.shown[seat][suit.into()];
        (revoked_in_trick != 0).then_some(Revoke {
            seat,
            suit,
            revoked_in_trick,
            proven_in_trick: trick,
        })
    }

    /// Records a play: a card off the led suit shows a void; a proven revoke is cleared so that
    /// it is reported once.
    pub fn record<S: Copy + Into<usize> + PartialEq>(&mut self, seat: Seat, suit: S, led: Option<S>, trick: u8) {
        self.shown[seat][suit.into()] = 0;
        if let Some(led) = led {
            if led != suit && self.shown[seat][led.into()] == 0 {
                self.shown[seat][led.into()] = trick;
            }
        }
    }
}

impl Voids {
    /// Lays `card` for `seat` to `trick`, the `trick_no`-th trick of the deal (from 1): the
    /// revoke that playing this suit proves is returned (and reported once), and a card off the
    /// suit led is recorded as a void.
    pub fn lay(&mut self, trick: &mut Trick<Card>, seat: Seat, card: Card, trick_no: u8) -> Option<Revoke<Suit>> {
        let revoke = self.revoke_proven(seat, card.suit, trick_no);
        self.record(seat, card.suit, trick.led().map(|c| c.suit), trick_no);
        trick.push(seat, card);
        revoke
    }
}

impl From<Suit> for usize {
    fn from(suit: Suit) -> usize {
        suit.index()
    }
}

/// Declares a trick game's event enum: its own variants `{ … }` before, then the three events
/// of card play that trick games record alike, `CardPlayed { seat, card, trick }`,
/// `TrickWon { trick, winner, cards }` and `RevokeDetected { revoke }` (the revoke's fields
/// inline), then its own variants `{ … }` after. The attributes written before
/// `RevokeDetected(…)` are the game's docs for it (they are in the spec); the module names
/// `Seat`, `Card`, `Play` and `TrickCards`.
macro_rules! trick_events {
    (
        $(#[$attr:meta])*
        $vis:vis enum $event:ident {
            $($before:tt)*
        }
        $(#[$revoke_doc:meta])*
        RevokeDetected($($revoke:tt)+),
        {
            $($after:tt)*
        }
    ) => {
        $(#[$attr])*
        $vis enum $event {
            $($before)*
            CardPlayed {
                seat: Seat,
                card: Card,
                trick: u8,
            },
            TrickWon {
                trick: u8,
                winner: Seat,
                #[schema(value_type = Vec<Play<Card>>)]
                cards: TrickCards<Card>,
            },
            $(#[$revoke_doc])*
            RevokeDetected {
                #[serde(flatten)]
                revoke: $($revoke)+,
            },
            $($after)*
        }
    };
}
pub(crate) use trick_events;

#[cfg(test)]
mod tests {
    use super::*;

    fn card(s: &str) -> Card {
        s.parse().expect("card")
    }

    #[test]
    fn next_seat_goes_left_from_the_leader() {
        let mut trick = Trick::new(Seat::new(3));
        assert_eq!(trick.next_seat(4), Seat::new(3));
        trick.push(Seat::new(3), card("2C"));
        assert_eq!(trick.next_seat(4), Seat::new(0));
        assert!(!trick.is_complete(4));
    }

    #[test]
    fn winner_is_the_highest_key_and_the_first_on_ties() {
        let mut trick = Trick::new(Seat::new(0));
        for (i, c) in ["5H", "KH", "2S", "AH"].iter().enumerate() {
            trick.push(Seat::new(i as u8), card(c));
        }
        let (pos, play) = trick.winner_by(|c| c.rank).expect("winner");
        assert_eq!((pos, play.seat), (3, Seat::new(3)));
        let (pos, _) = trick.winner_by(|_| 0).expect("winner");
        assert_eq!(pos, 0);
    }

    #[test]
    fn a_void_then_a_play_of_that_suit_is_a_revoke_reported_once() {
        let mut voids = Voids::new(4);
        let seat = Seat::new(2);
        voids.record(seat, Suit::Spades, Some(Suit::Hearts), 1);
        assert_eq!(voids.revoke_proven(seat, Suit::Clubs, 2), None);
        let revoke = voids.revoke_proven(seat, Suit::Hearts, 3).expect("revoke");
        assert_eq!((revoke.revoked_in_trick, revoke.proven_in_trick), (1, 3));
        voids.record(seat, Suit::Hearts, None, 3);
        assert_eq!(voids.revoke_proven(seat, Suit::Hearts, 4), None);
    }

    #[test]
    fn the_highest_trump_wins_else_the_highest_card_of_the_suit_led() {
        let mut trick = Trick::new(Seat::new(0));
        for (i, c) in ["5H", "KH", "2S", "AD"].iter().enumerate() {
            trick.push(Seat::new(i as u8), card(c));
        }
        let seat_of = |trumps| trick.winner_with_trumps(trumps).map(|(_, p)| p.seat);
        assert_eq!(seat_of(Some(Suit::Spades)), Some(Seat::new(2)));
        assert_eq!(seat_of(Some(Suit::Diamonds)), Some(Seat::new(3)));
        assert_eq!(
            seat_of(Some(Suit::Clubs)),
            Some(Seat::new(1)),
            "no club: the suit led decides"
        );
        assert_eq!(seat_of(None), Some(Seat::new(1)));
        assert_eq!(Trick::<Card>::new(Seat::new(0)).winner_with_trumps(None), None);
    }

    #[test]
    fn laying_a_card_records_voids_and_reports_the_revoke_it_proves() {
        let mut voids = Voids::new(4);
        let mut first = Trick::new(Seat::new(0));
        assert_eq!(voids.lay(&mut first, Seat::new(0), card("5H"), 1), None);
        assert_eq!(
            voids.lay(&mut first, Seat::new(1), card("2S"), 1),
            None,
            "a void in hearts, not a revoke"
        );
        assert_eq!(first.plays().len(), 2);
        let mut second = Trick::new(Seat::new(1));
        let revoke = voids.lay(&mut second, Seat::new(1), card("9H"), 2).expect("a revoke");
        assert_eq!(
            (
                revoke.seat,
                revoke.suit,
                revoke.revoked_in_trick,
                revoke.proven_in_trick
            ),
            (Seat::new(1), Suit::Hearts, 1, 2)
        );
        assert_eq!(voids.lay(&mut second, Seat::new(2), card("TH"), 2), None);
        assert_eq!(second.led(), Some(card("9H")));
    }
}

/// How the tricks of the deal in hand are won, told as data: enough for a phone that has lost
/// the service to go on entering cards in turn and to tell who leads the next trick, without a
/// copy of the game's rules (`Game::trick_plan` makes it; the phone page's queue reads it). The
/// service still checks every card when it hears of it.
///
/// A trick's winner is the card with the highest key `(follows the suit that trumps the suit
/// led, follows the suit led, strength)`, the earliest on equal keys: the shape every game here
/// whose tricks follow suit shares (Nomination Whist's turn-up, Dividend's trumps that change
/// with the lead, Tridge's black aces that are always trumps).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct TrickPlan {
    /// The deal the plan is for.
    pub deal: u16,
    /// The seats that play the deal's tricks, in the order they play (going left); after the
    /// last comes the first.
    pub seats: Vec<Seat>,
    /// Tricks in the deal: after the last, the deal is over.
    pub tricks: u8,
    /// Tricks after which the game may be asked something other than a card (Tridge's Player
    /// may stop after five): a phone without the service stops entering cards there.
    pub pause_after: Vec<u8>,
    /// Every card of the pack: the suit it follows as and its strength within that suit.
    pub cards: Vec<CardStrength>,
    /// Per suit led, the suit that trumps it; a suit led that is not listed has no trumps.
    pub trumps: Vec<TrumpsFor>,
}

/// A card as a trick reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct CardStrength {
    pub card: Card,
    /// The suit the card follows as (Tridge's black aces follow trumps).
    pub follows: Suit,
    /// Higher beats lower within the suit it follows as.
    pub strength: u8,
}

/// The suit that trumps a trick whose lead follows `led`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct TrumpsFor {
    pub led: Suit,
    pub trumps: Suit,
}

impl TrickPlan {
    /// A plan where every suit led is trumped by `trumps` (none: no trumps), each card following
    /// its own suit or trumps as `follows` says, with the strength `strength` gives.
    pub fn new(
        deal: u16,
        seats: Vec<Seat>,
        tricks: u8,
        trumps: impl Fn(Suit) -> Option<Suit>,
        cards: impl Iterator<Item = Card>,
        follows: impl Fn(Card) -> Suit,
        strength: impl Fn(Card) -> u8,
    ) -> TrickPlan {
        TrickPlan {
            deal,
            seats,
            tricks,
            pause_after: Vec::new(),
            cards: cards
                .map(|card| CardStrength {
                    card,
                    follows: follows(card),
                    strength: strength(card),
                })
                .collect(),
            trumps: Suit::ALL
                .into_iter()
                .filter_map(|led| trumps(led).map(|t| TrumpsFor { led, trumps: t }))
                .collect(),
        }
    }

    fn of(&self, card: Card) -> Option<&CardStrength> {
        self.cards.iter().find(|c| c.card == card)
    }

    /// The seat whose card wins `plays` (the lead first), as the plan reads them; None for no
    /// plays or a card the plan does not know.
    ///
    /// ```
    /// use tablekeeper_rules::{Card, Game, NominationWhist, Play, Seat};
    ///
    /// // Deal 1: spades are trumps (the default rotation), Bob (seat 1) leads.
    /// let game = NominationWhist::new(4, Default::default()).unwrap();
    /// let plan = game.trick_plan().expect("the first deal's trumps are known");
    /// let play = |seat: u8, card: &str| Play { seat: Seat::new(seat), card: card.parse::<Card>().unwrap() };
    /// // Cat's two of spades trumps Bob's ace of hearts; Dan plays after Cat, Ann after Dan.
    /// assert_eq!(plan.winner(&[play(1, "AH"), play(2, "2S"), play(3, "KH")]), Some(Seat::new(2)));
    /// assert_eq!(plan.after(Seat::new(2)), Some(Seat::new(3)));
    /// assert_eq!(plan.after(Seat::new(3)), Some(Seat::new(0)));
    /// ```
    pub fn winner(&self, plays: &[Play<Card>]) -> Option<Seat> {
        let led = self.of(plays.first()?.card)?.follows;
        let trumps = self.trumps.iter().find(|t| t.led == led).map(|t| t.trumps);
        let known: Vec<Play<&CardStrength>> = plays
            .iter()
            .map(|p| self.of(p.card).map(|card| Play { seat: p.seat, card }))
            .collect::<Option<_>>()?;
        highest(&known, |c| (Some(c.follows) == trumps, c.follows == led, c.strength)).map(|(_, p)| p.seat)
    }

    /// The seat that plays after `seat`.
    pub fn after(&self, seat: Seat) -> Option<Seat> {
        let i = self.seats.iter().position(|s| *s == seat)?;
        self.seats.get((i + 1) % self.seats.len()).copied()
    }
}
