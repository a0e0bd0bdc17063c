//! Scoring: a deal's points by the table's scoring rule less revoke penalties, the sheet of
//! completed deals with running totals, and the winners once the schedule is done.

use crate::Events;
use serde::{Deserialize, Serialize};
use smallvec::smallvec;
use utoipa::ToSchema;

use crate::cards::Suit;
use crate::seat::Seat;
use crate::trick::Revoke;

use super::{Event, NominationWhist, Recording, Trumps};

/// How a deal is scored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Scoring {
    /// 1 per trick won, plus 10 when the tricks equal the nomination.
    #[default]
    TricksPlusTenForExact,
    /// 10 plus the nomination when exact; nothing otherwise.
    ExactOnly,
    /// 10 plus the nomination when exact; minus the nomination otherwise.
    MinusNominationForMiss,
}

impl Scoring {
    pub(super) fn points(self, nominated: u8, won: u8) -> i32 {
        let (n, w) = (i32::from(nominated), i32::from(won));
        let exact = nominated == won;
        match self {
            Scoring::TricksPlusTenForExact => w + if exact { 10 } else { 0 },
            Scoring::ExactOnly => {
                if exact {
                    10 + n
                } else {
                    0
                }
            }
            Scoring::MinusNominationForMiss => {
                if exact {
                    10 + n
                } else {
                    -n
                }
            }
        }
    }
}

/// One deal on the score sheet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = NominationWhistDealScore)]
pub struct DealScore {
    /// 1-based.
    pub deal: u16,
    pub dealer: Seat,
    pub hand_size: u8,
    /// Null when a result-only deal under the turned-up rule did not say.
    pub trumps: Option<Trumps>,
    pub nominations: Vec<u8>,
    pub tricks: Vec<u8>,
    pub points: Vec<i32>,
    /// Running totals after this deal.
    pub totals: Vec<i32>,
    pub revokes: Vec<Revoke<Suit>>,
    pub recording: Recording,
}

/// Scores per deal, totals, and the winners once the schedule is done.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = NominationWhistScoreSheet)]
pub struct ScoreSheet {
    pub deals: Vec<DealScore>,
    pub totals: Vec<i32>,
    pub deals_in_game: u16,
    pub finished: bool,
    /// Everyone on the highest total (ties share the win); empty until the game ends.
    pub winners: Vec<Seat>,
}

impl NominationWhist {
    /// Scores the current deal (whose tricks are all accounted for) and moves on.
    pub(super) fn finish_deal(&mut self, recording: Recording) -> Events<Event> {
        let Some(deal) = self.deal.take() else {
            return Events::new();
        };
        let penalty = i32::from(self.options.revoke_penalty);
        let points: Vec<i32> = Seat::all(self.players)
            .map(|seat| {
                let nominated = deal.nominations[seat].unwrap_or(0);
                let revokes = deal.revokes.iter().filter(|r| r.seat == seat).count() as i32;
                self.options.scoring.points(nominated, deal.tricks_won[seat]) - penalty * revokes
            })
            .collect();
        for (seat, p) in Seat::all(self.players).zip(&points) {
            self.totals[seat] += p;
        }
        let number = deal.index + 1;
        self.sheet.push(DealScore {
            deal: number,
            dealer: deal.dealer,
            hand_size: deal.hand_size,
            trumps: deal.trumps,
            nominations: deal.nominations.values().iter().map(|n| n.unwrap_or(0)).collect(),
            tricks: deal.tricks_won.values().to_vec(),
            points: points.clone(),
            totals: self.totals.values().to_vec(),
            revokes: deal.revokes.clone(),
            recording,
        });
        let mut events = smallvec![Event::DealScored {
            deal: number,
            points,
            totals: self.totals.values().to_vec(),
        }];
        self.deal = self.start_deal(number);
        match &self.deal {
            Some(next) => events.push(Event::DealStarted {
                deal: next.index + 1,
                dealer: next.dealer,
                hand_size: next.hand_size,
                trumps: next.trumps,
            }),
            None => events.push(Event::GameFinished {
                winners: self.winners(),
                totals: self.totals.values().to_vec(),
            }),
        }
        events
    }

    pub(super) fn winners(&self) -> Vec<Seat> {
        if self.deal.is_some() {
            return Vec::new();
        }
        let best = self.totals.values().iter().copied().max().unwrap_or(0);
        self.totals.iter().filter(|(_, &t)| t == best).map(|(s, _)| s).collect()
    }
}
