//! The score sheet: each completed hand's points and penalties with running totals, team
//! totals in partnerships, the cooperative average, and the winners once the last hand is played.

use crate::Events;
use serde::{Deserialize, Serialize};
use smallvec::smallvec;
use utoipa::ToSchema;

use crate::seat::Seat;

use super::{Event, Mode, TrickyDick, PLAYERS};

/// The cooperative score: the four players' points over the completed hands, and that total
/// divided by the hands played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = TrickyDickCooperativeScore)]
pub struct CooperativeScore {
    /// All four players' points over the completed hands.
    pub total: i32,
    pub hands_played: u16,
    /// `total ÷ hands_played` to two decimal places, rounded half away from zero, as a decimal
    /// string (`"2.33"`, `"-0.50"`) so that no client-side float rounding creeps in; the exact
    /// value is `total / hands_played`. Null before the first hand is complete.
    #[schema(example = "2.33")]
    pub average: Option<String>,
}

impl CooperativeScore {
    pub(super) fn new(total: i32, hands_played: u16) -> CooperativeScore {
        CooperativeScore {
            total,
            hands_played,
            average: average(total, hands_played),
        }
    }
}

/// `total ÷ hands` to two decimals, half away from zero; None for no hands.
pub(super) fn average(total: i32, hands: u16) -> Option<String> {
    if hands == 0 {
        return None;
    }
    let (num, den) = (i64::from(total).abs() * 100, i64::from(hands));
    let hundredths = (2 * num + den) / (2 * den);
    let sign = if total < 0 && hundredths != 0 { "-" } else { "" };
    Some(format!("{sign}{}.{:02}", hundredths / 100, hundredths % 100))
}

/// One hand on the score sheet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = TrickyDickHandScore)]
pub struct HandScore {
    /// 1-based.
    pub hand: u16,
    pub dealer: Seat,
    /// Per seat: trick values scored minus penalties.
    pub points: Vec<i32>,
    /// Per seat: how many lays were penalised.
    pub penalties: Vec<u8>,
    /// Running totals after this hand.
    pub totals: Vec<i32>,
}

/// Scores per hand, totals, and the result once the last hand is played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = TrickyDickScoreSheet)]
pub struct ScoreSheet {
    pub mode: Mode,
    pub hands: Vec<HandScore>,
    /// Per seat, over the completed hands.
    pub totals: Vec<i32>,
    /// Partnerships only: [seats 0 + 2, seats 1 + 3] over the completed hands.
    pub team_totals: Option<Vec<i32>>,
    /// Cooperative only.
    pub cooperative: Option<CooperativeScore>,
    pub hands_in_game: u16,
    pub finished: bool,
    /// Once finished: individual, everyone on the highest total; partnerships, both seats of
    /// the team (or teams) on the highest team total; cooperative, nobody (there is no
    /// opponent: the score is the average). Empty until the game ends.
    pub winners: Vec<Seat>,
}

impl TrickyDick {
    /// Puts the completed hand on the sheet and deals the next, or ends the game.
    pub(super) fn finish_hand(&mut self) -> Events<Event> {
        let Some(hand) = self.hand.take() else {
            return Events::new();
        };
        let number = hand.number();
        let points = hand.points.values().to_vec();
        self.completed_totals = self.totals.values().to_vec();
        self.hands_completed += 1;
        self.sheet.push(HandScore {
            hand: number,
            dealer: hand.dealer,
            points: points.clone(),
            penalties: hand.penalties.values().to_vec(),
            totals: self.totals.values().to_vec(),
        });
        let mut events = smallvec![Event::HandScored {
            hand: number,
            points,
            totals: self.totals.values().to_vec(),
        }];
        self.hand = self.start_hand(number);
        match &self.hand {
            Some(next) => events.push(Event::HandStarted {
                hand: next.number(),
                dealer: next.dealer,
            }),
            None => events.push(Event::GameFinished {
                winners: self.winners(),
                totals: self.totals.values().to_vec(),
            }),
        }
        events
    }

    /// Totals over the completed hands.
    pub(super) fn sheet_totals(&self) -> Vec<i32> {
        self.completed_totals.clone()
    }

    pub(super) fn team_totals(&self, totals: &[i32]) -> Option<Vec<i32>> {
        (self.options.mode == Mode::Partnerships).then(|| vec![totals[0] + totals[2], totals[1] + totals[3]])
    }

    pub(super) fn cooperative(&self) -> Option<CooperativeScore> {
        (self.options.mode == Mode::Cooperative).then(|| {
            let total = self.sheet_totals().iter().sum();
            CooperativeScore::new(total, self.hands_completed)
        })
    }

    pub(super) fn winners(&self) -> Vec<Seat> {
        if self.hand.is_some() {
            return Vec::new();
        }
        let totals = self.totals.values();
        match self.options.mode {
            Mode::Cooperative => Vec::new(),
            Mode::Individual => {
                let best = totals.iter().copied().max().unwrap_or(0);
                self.totals.iter().filter(|(_, &t)| t == best).map(|(s, _)| s).collect()
            }
            Mode::Partnerships => {
                let teams = [totals[0] + totals[2], totals[1] + totals[3]];
                let best = teams[0].max(teams[1]);
                Seat::all(PLAYERS).filter(|s| teams[s.index() % 2] == best).collect()
            }
        }
    }
}
