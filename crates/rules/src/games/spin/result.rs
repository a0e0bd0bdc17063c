//! A whole deal entered at once: checked completely, then settled as card-by-card play would.

use crate::cards::{Card, CardSet, Rank};
use crate::error::RuleViolation;
use crate::seat::Seat;
use crate::Events;

use super::{Combination, Event, Recording, Spin, SPIN};

impl Spin {
    pub(super) fn result(
        &mut self,
        out: Seat,
        cards_left: &[u8],
        specials: &[Vec<Card>],
        shown: [Option<Seat>; 2],
        spin_holder: Option<Seat>,
    ) -> Result<Events<Event>, RuleViolation> {
        self.expect("result")?;
        let players = self.players;
        for s in [Some(out), shown[0], shown[1], spin_holder].into_iter().flatten() {
            s.check(self.players)?;
        }
        for got in [cards_left.len(), specials.len()] {
            if got != players {
                return Err(RuleViolation::WrongNumberOfEntries { got, expected: players });
            }
        }
        self.check_cards_left(out, cards_left)?;
        let deal = self.deal_ref()?;
        let mut seen = CardSet::default();
        for (seat, cards) in Seat::all(players).zip(specials) {
            for &card in cards {
                deal.runs.check_card(card)?;
                if seen.contains(card) {
                    return Err(RuleViolation::CardAlreadyPlayed(card));
                }
                seen.insert(card);
                if card != SPIN && card.rank != Rank::King {
                    return Err(RuleViolation::InvalidResult(format!(
                        "{card} is neither a king nor Spin"
                    )));
                }
            }
            let dealt = deal.runs.dealt(seat);
            if cards.len() > usize::from(dealt - cards_left[seat.index()]) {
                return Err(RuleViolation::MoreCardsThanDealt { seat, dealt });
            }
        }
        match (seen.contains(SPIN), spin_holder) {
            (true, Some(h)) => {
                return Err(RuleViolation::InvalidResult(format!(
                    "Spin was played, so {h} cannot hold it"
                )));
            }
            (false, None) => {
                return Err(RuleViolation::InvalidResult(
                    "every card is dealt: name the spin_holder when Spin was not played".into(),
                ));
            }
            (false, Some(h)) if h == out => {
                return Err(RuleViolation::InvalidResult(format!(
                    "{h} went out, so cannot hold Spin"
                )));
            }
            _ => {}
        }

        let mut events = Events::new();
        for (seat, cards) in Seat::all(players).zip(specials) {
            for &card in cards {
                if card == SPIN {
                    self.collect(&mut events, seat, self.options.spin_stake, "Spin played")?;
                } else {
                    self.collect(&mut events, seat, self.options.king_payment, &format!("{card} played"))?;
                }
            }
        }
        for (combination, seat) in [Combination::Matrimony, Combination::Intrigue].into_iter().zip(shown) {
            if let Some(seat) = seat {
                self.win_pool(&mut events, combination, seat)?;
            }
        }
        self.go_out(
            &mut events,
            out,
            cards_left.to_vec(),
            spin_holder,
            Recording::ResultOnly,
        )?;
        Ok(events)
    }
}
