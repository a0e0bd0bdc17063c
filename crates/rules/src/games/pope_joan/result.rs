//! A whole deal entered at once: checked completely, then settled as card-by-card play would.

use crate::cards::{Card, CardSet};
use crate::error::RuleViolation;
use crate::seat::Seat;
use crate::Events;

use super::specials::honour_division;
use super::{Event, PopeJoan, Recording, POPE};

impl PopeJoan {
    pub(super) fn result(
        &mut self,
        out: Seat,
        cards_left: &[u8],
        specials: &[Vec<Card>],
        pope_cards_left: Option<&[u8]>,
        pope_holder: Option<Seat>,
    ) -> Result<Events<Event>, RuleViolation> {
        self.expect("result")?;
        let players = self.players;
        out.check(self.players)?;
        if let Some(h) = pope_holder {
            h.check(self.players)?;
        }
        for got in [cards_left.len(), specials.len()] {
            if got != players {
                return Err(RuleViolation::WrongNumberOfEntries { got, expected: players });
            }
        }
        let deal = self.deal_ref()?;
        let hand = deal.hand_size;
        let trumps = deal.trumps();
        for (seat, &left) in Seat::all(players).zip(cards_left) {
            if seat == out && left != 0 {
                return Err(RuleViolation::InvalidResult(format!(
                    "{out} went out, so has no cards left"
                )));
            }
            if seat != out && !(1..=hand).contains(&left) {
                return Err(RuleViolation::InvalidResult(format!(
                    "{seat} has {left} cards left: only the seat that went out has none, and a hand has {hand}"
                )));
            }
        }
        let mut seen = CardSet::default();
        for (seat, cards) in Seat::all(players).zip(specials) {
            for &card in cards {
                deal.runs.check_card(card)?;
                if seen.contains(card) {
                    return Err(RuleViolation::CardAlreadyPlayed(card));
                }
                seen.insert(card);
                let special = card == POPE || (Some(card.suit) == trumps && honour_division(card.rank).is_some());
                if !special {
                    return Err(RuleViolation::InvalidResult(format!(
                        "{card} is not a special card (the 9D or the ace, king, queen or knave of trumps)"
                    )));
                }
            }
            let played = usize::from(hand - cards_left[seat.index()]);
            if cards.len() > played {
                return Err(RuleViolation::MoreCardsThanDealt { seat, dealt: hand });
            }
        }
        let pope_played = seen.contains(POPE);
        let pope_cards = match (pope_played, pope_cards_left) {
            (true, Some(counts)) => {
                if counts.len() != players {
                    return Err(RuleViolation::WrongNumberOfEntries {
                        got: counts.len(),
                        expected: players,
                    });
                }
                if let Some((seat, _)) = Seat::all(players)
                    .zip(counts)
                    .find(|(s, &c)| c > hand || c < cards_left[s.index()])
                {
                    return Err(RuleViolation::InvalidResult(format!(
                        "{seat}'s cards when the 9D was played must lie between the cards left at the end and the hand size"
                    )));
                }
                counts.to_vec()
            }
            (true, None) => {
                return Err(RuleViolation::InvalidResult(
                    "the 9D was played: give pope_cards_left".into(),
                ))
            }
            (false, Some(_)) => {
                return Err(RuleViolation::InvalidResult(
                    "pope_cards_left is only given when the 9D was played".into(),
                ))
            }
            (false, None) => Vec::new(),
        };
        if let Some(h) = pope_holder {
            if pope_played || deal.runs.is_set_aside(POPE) || h == out {
                return Err(RuleViolation::InvalidResult(format!("{h} cannot hold an unplayed 9D")));
            }
        }

        // Checked: from here on the state changes.
        let mut events = Events::new();
        for (seat, cards) in Seat::all(players).zip(specials) {
            for &card in cards {
                self.play_special(&mut events, seat, card, &pope_cards)?;
            }
        }
        self.go_out(
            &mut events,
            out,
            pope_holder,
            cards_left.to_vec(),
            Recording::ResultOnly,
        )?;
        Ok(events)
    }
}
