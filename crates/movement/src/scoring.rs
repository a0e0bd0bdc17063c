//! Scoring a round and ranking the standings.
//!
//! A seated entrant's round points come from their table's result: the score itself
//! ([`Scoring::Points`], [`Scoring::Chips`]), or points by place at the table
//! ([`Scoring::Places`]), where entrants tied on score share the points of the places they span
//! exactly (two tied for first of `[4, 2, 1, 0]` get 3 each; three tied for second get 1 each).
//! A bye scores [`ByeScore`]; a round played before a late arrival's first round scores the
//! late score the same way; a round after a withdrawal scores nothing.
//!
//! Standings rank by, in order: total points; rounds won (the top score at one's table, ties
//! included); head to head among those still tied (for each pair of them, each round they shared
//! a table, +1 to the higher score, −1 to the lower); and then the place is shared (listed in
//! roster order).

use super::entrant::{Entrant, Map};
use super::points::Points;
use super::round::PlayedRound;
use serde::{Deserialize, Serialize};

/// What a table's result counts for. Serialised with a `kind` tag: `{"kind": "points"}`,
/// `{"kind": "chips"}`, `{"kind": "places", "points": [4, 2, 1, 0]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Scoring {
    /// The game's own score.
    Points,
    /// Net chips won or lost at the table.
    Chips,
    /// Points by place at the table, first place first; places beyond the list score 0. Ties
    /// on score share the places they span exactly.
    Places {
        /// Points for first, second, … place.
        points: Vec<i64>,
    },
}

/// What a round without a seat scores. Serialised with a `kind` tag: `{"kind": "average"}`
/// (the mean round points of everyone seated that round, exactly), `{"kind": "zero"}`,
/// `{"kind": "fixed", "points": 2}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ByeScore {
    /// The mean of the round's points over everyone seated in it.
    Average,
    /// Nothing.
    Zero,
    /// A fixed number of points.
    Fixed {
        /// The points.
        points: i64,
    },
}

/// How an event is scored: the table scoring, a bye's score and a late arrival's score for each
/// round missed. Serialised flat, the table scoring's fields first:
/// `{"kind": "places", "points": [4, 2, 1, 0], "bye": {"kind": "average"}, "late": {"kind": "zero"}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoreRules {
    /// What a table's result counts for.
    #[serde(flatten)]
    pub kind: Scoring,
    /// What a bye scores.
    pub bye: ByeScore,
    /// What each round before a late arrival's first scores.
    pub late: ByeScore,
}

impl Default for ScoreRules {
    fn default() -> Self {
        Self {
            kind: Scoring::Points,
            bye: ByeScore::Average,
            late: ByeScore::Zero,
        }
    }
}

/// One line of the standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    /// The place, from 1; tied entrants share it and the next place is skipped (1, 1, 3).
    pub place: u32,
    /// Who.
    pub entrant: Entrant,
    /// Total points over the rounds, exactly.
    pub total: Points,
    /// Rounds with the top score at one's table (ties included).
    pub rounds_won: u32,
    /// The head-to-head count among those tied on total and rounds won (0 when nobody was).
    pub head_to_head: i64,
    /// Rounds seated.
    pub played: u32,
    /// Rounds with a bye.
    pub byes: u32,
    /// Rounds before the entrant's first (scored as late).
    pub missed: u32,
}

/// The round points of each seat of a table with these scores.
pub(crate) fn table_points(kind: &Scoring, scores: &[i64]) -> Vec<Points> {
    match kind {
        Scoring::Points | Scoring::Chips => scores.iter().map(|s| Points::whole(*s)).collect(),
        Scoring::Places { points } => scores
            .iter()
            .map(|s| {
                // Places from `above` to `above + tied - 1` (0-based) share their points.
                let above = scores.iter().filter(|o| *o > s).count();
                let tied = scores.iter().filter(|o| *o == s).count();
                let share: Points = (above..above + tied)
                    .map(|p| Points::whole(points.get(p).copied().unwrap_or(0)))
                    .sum();
                share.divided_by(i64::try_from(tied).unwrap_or(1))
            })
            .collect(),
    }
}

fn bye_points(bye: ByeScore, average: Points) -> Points {
    match bye {
        ByeScore::Average => average,
        ByeScore::Zero => Points::ZERO,
        ByeScore::Fixed { points } => Points::whole(points),
    }
}

/// The standings over `history` (checked by the caller) for everyone in `roster`, best first.
pub(crate) fn standings(roster: &[Entrant], history: &[PlayedRound], rules: &ScoreRules) -> Vec<Standing> {
    let n = roster.len();
    let order: Map<Entrant, usize> = roster.iter().enumerate().map(|(i, e)| (*e, i)).collect();
    let at = |e: &Entrant| order.get(e).copied();
    let mut lines: Vec<Standing> = roster
        .iter()
        .map(|e| Standing {
            place: 0,
            entrant: *e,
            total: Points::ZERO,
            rounds_won: 0,
            head_to_head: 0,
            played: 0,
            byes: 0,
            missed: 0,
        })
        .collect();
    // The first round each entrant appears in (seated or bye).
    let mut first: Vec<Option<usize>> = vec![None; n];
    for (i, played) in history.iter().enumerate() {
        for e in played.round.entrants() {
            if let Some(p) = at(&e) {
                first[p].get_or_insert(i);
            }
        }
    }
    // [a * n + b]: rounds a scored above b at one table.
    let mut beat = vec![0i64; n * n];
    for (i, played) in history.iter().enumerate() {
        let mut seated_points = Vec::new();
        for table in &played.round.tables {
            let Some(result) = played.results.iter().find(|r| r.table == table.number) else {
                continue;
            };
            let points = table_points(&rules.kind, &result.scores);
            let top = result.scores.iter().copied().max();
            let seats: Vec<Option<usize>> = table.seats.iter().map(at).collect();
            for (seat, p) in seats.iter().enumerate() {
                let (Some(p), Some(points), Some(score)) = (p, points.get(seat), result.scores.get(seat)) else {
                    continue;
                };
                seated_points.push(*points);
                let line = &mut lines[*p];
                line.total += *points;
                line.played += 1;
                if Some(*score) == top {
                    line.rounds_won += 1;
                }
                for (other_seat, other) in seats.iter().enumerate() {
                    if let (Some(o), Some(other_score)) = (other, result.scores.get(other_seat)) {
                        if score > other_score {
                            beat[p * n + o] += 1;
                        }
                    }
                }
            }
        }
        let seated = i64::try_from(seated_points.len()).unwrap_or(1);
        let average = seated_points.into_iter().sum::<Points>().divided_by(seated);
        for p in played.round.byes.iter().filter_map(at) {
            lines[p].total += bye_points(rules.bye, average);
            lines[p].byes += 1;
        }
        for (p, line) in lines.iter_mut().enumerate() {
            if first[p].is_none_or(|f| f > i) {
                line.total += bye_points(rules.late, average);
                line.missed += 1;
            }
        }
    }
    let key = |s: &Standing| (std::cmp::Reverse(s.total), std::cmp::Reverse(s.rounds_won));
    let position = |s: &Standing| order.get(&s.entrant).copied().unwrap_or(usize::MAX);
    lines.sort_by_key(|s| (key(s), position(s)));
    // Head to head inside each group tied on total and rounds won.
    let mut start = 0;
    while start < lines.len() {
        let end = (start..lines.len())
            .find(|j| key(&lines[*j]) != key(&lines[start]))
            .unwrap_or(lines.len());
        if end - start > 1 {
            let group: Vec<usize> = lines[start..end].iter().map(position).collect();
            for line in &mut lines[start..end] {
                let me = position(line);
                line.head_to_head = group.iter().map(|o| beat[me * n + o] - beat[o * n + me]).sum();
            }
            lines[start..end].sort_by_key(|s| (std::cmp::Reverse(s.head_to_head), position(s)));
        }
        start = end;
    }
    let full = |s: &Standing| (key(s), std::cmp::Reverse(s.head_to_head));
    for i in 0..lines.len() {
        lines[i].place = if i > 0 && full(&lines[i]) == full(&lines[i - 1]) {
            lines[i - 1].place
        } else {
            u32::try_from(i + 1).unwrap_or(u32::MAX)
        };
    }
    lines
}
