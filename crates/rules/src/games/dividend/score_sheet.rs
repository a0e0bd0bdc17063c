//! Scoring: a deal's points from the cards won (the higher partner's count in partnerships)
//! less revoke penalties, the sheet of completed deals, the end of the game and its ties.

use crate::Events;
use serde::{Deserialize, Serialize};
use smallvec::smallvec;
use utoipa::ToSchema;

use crate::cards::Suit;
use crate::seat::{BySeat, Seat};
use crate::trick::Revoke;

use super::{Dividend, Event, GameLength, Recording, PLAYERS};

/// One deal on the score sheet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = DividendDealScore)]
pub struct DealScore {
    /// 1-based.
    pub deal: u16,
    pub dealer: Seat,
    /// Cards each seat won; they add up to 52.
    pub cards_won: Vec<u8>,
    /// Points per seat: the cards won (in partnerships the higher of the partners' counts),
    /// less any revoke penalty.
    pub points: Vec<i32>,
    /// Running totals after this deal.
    pub totals: Vec<i32>,
    pub revokes: Vec<Revoke<Suit>>,
    pub recording: Recording,
    /// True for a deal added to break a tie for first.
    pub tie_break: bool,
}

/// Scores per deal, totals, and the winners once the game is over.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = DividendScoreSheet)]
pub struct ScoreSheet {
    pub deals: Vec<DealScore>,
    pub totals: Vec<i32>,
    pub partnerships: bool,
    pub game_length: GameLength,
    /// True while deals are being added to break a tie for first.
    pub tie_break: bool,
    pub finished: bool,
    /// The winning seat (both partners in partnerships); empty until the game ends.
    pub winners: Vec<Seat>,
}

impl Dividend {
    /// The points of a deal per seat: the cards won (in partnerships, the higher count of the
    /// two partners), less the revoke penalty (in partnerships, for either partner's revokes).
    pub(super) fn deal_points(&self, cards_won: &BySeat<u8>, revokes: &[Revoke<Suit>]) -> Vec<i32> {
        let penalty = i32::from(self.options.revoke_penalty);
        Seat::all(PLAYERS)
            .map(|seat| {
                let mut side = vec![seat];
                if self.options.partnerships {
                    side.push(seat.left(2, PLAYERS));
                }
                let cards = side.iter().map(|&s| i32::from(cards_won[s])).max().unwrap_or(0);
                let revokes = revokes.iter().filter(|r| side.contains(&r.seat)).count() as i32;
                cards - penalty * revokes
            })
            .collect()
    }

    /// Scores the current deal from the cards each seat won, however it was recorded, and moves
    /// on: to the next deal, to a tie-break deal, or to the end of the game.
    pub(super) fn finish_deal(&mut self, recording: Recording, cards_won: BySeat<u8>) -> Events<Event> {
        let Some(deal) = self.deal.take() else {
            return Events::new();
        };
        let points = self.deal_points(&cards_won, &deal.revokes);
        for (seat, p) in Seat::all(PLAYERS).zip(&points) {
            self.totals[seat] += p;
        }
        let totals = self.totals.values().to_vec();
        self.deals_scored = deal.number;
        self.sheet.push(DealScore {
            deal: deal.number,
            dealer: deal.dealer,
            cards_won: cards_won.values().to_vec(),
            points: points.clone(),
            totals: totals.clone(),
            revokes: deal.revokes.clone(),
            recording,
            tie_break: deal.tie_break,
        });
        let mut events = smallvec![Event::DealScored {
            deal: deal.number,
            cards_won: cards_won.into_vec(),
            points,
            totals: totals.clone(),
        }];
        let leaders = self.leaders();
        if !self.end_reached() {
            self.deal = Some(self.start_deal(deal.number.saturating_add(1), false));
        } else if self.is_tie(&leaders) {
            events.push(Event::TieForFirst {
                seats: leaders,
                totals: totals.clone(),
            });
            self.deal = Some(self.start_deal(deal.number.saturating_add(1), true));
        } else {
            events.push(Event::GameFinished {
                winners: leaders,
                totals,
            });
            return events;
        }
        if let Some(next) = &self.deal {
            events.push(Event::DealStarted {
                deal: next.number,
                dealer: next.dealer,
                leader: next.trick.leader(),
                tie_break: next.tie_break,
            });
        }
        events
    }

    /// True when the chosen length of game has been played (a tie may still extend it).
    pub(super) fn end_reached(&self) -> bool {
        match self.options.game_length {
            GameLength::Deals { deals } => self.deals_scored >= deals,
            GameLength::Points { target } => self.totals.values().iter().any(|&t| t >= i32::from(target)),
        }
    }

    /// Every seat on the highest total.
    pub(super) fn leaders(&self) -> Vec<Seat> {
        let best = self.totals.values().iter().copied().max().unwrap_or(0);
        self.totals.iter().filter(|(_, &t)| t == best).map(|(s, _)| s).collect()
    }

    /// True when `leaders` are more than one player, or in partnerships more than one side.
    pub(super) fn is_tie(&self, leaders: &[Seat]) -> bool {
        if self.options.partnerships {
            leaders.iter().any(|s| s.index() % 2 != leaders[0].index() % 2)
        } else {
            leaders.len() > 1
        }
    }

    pub(super) fn winners(&self) -> Vec<Seat> {
        if self.deal.is_some() {
            Vec::new()
        } else {
            self.leaders()
        }
    }

    pub(super) fn tie_break(&self) -> bool {
        self.deal.as_ref().is_some_and(|d| d.tie_break)
    }
}
