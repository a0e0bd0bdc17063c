//! The tournaments' shapes in the spec, and the views made from the service's types.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::ApiError;
use crate::export::Cell;
use crate::game_schemas::AnyOptions;
use tablekeeper_service::tournaments::{self as service, ByeScore, Leftover, Moves, ScoreRules, Scoring, Unfinished};

/// Who moves after a progressive round.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MoveRule {
    /// Each table's winner moves up one table (table 1's stays).
    Winner,
    /// The top two (a partnership game's winning pair) move up one table.
    TopTwo,
    /// The top half moves up one table, the bottom half down one.
    WinnersUpLosersDown,
}

/// How entrants are seated round by round (see docs/movements.md).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[schema(example = json!({"kind": "progressive", "move": "winner"}))]
pub enum TournamentFormat {
    /// A whist drive: winners move up, seats rotate so partners change.
    Progressive {
        #[serde(rename = "move")]
        moves: MoveRule,
    },
    /// All meet all, as evenly as can be found; the schedule is fixed from the start.
    Rotation,
    /// Tables by standings, no repeated meeting while one can be avoided; fixed partnerships by
    /// club member id when given.
    Swiss {
        #[serde(default)]
        partnerships: Option<Vec<[Uuid; 2]>>,
    },
    /// The same tables all night.
    Fixed,
}

/// What an entrant scores for a round they did not play (a bye, or before arriving late).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[schema(example = json!({"kind": "average"}))]
pub enum MissedScore {
    /// The mean of the round's points over everyone seated, exactly.
    Average,
    Zero,
    Fixed {
        points: i64,
    },
}

/// What standings count at each table.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ScoringKind {
    /// The game's own score.
    Points,
    /// Net chips.
    Chips,
    /// Points by place at the table (`points`: for 1st, 2nd, …), ties shared exactly.
    Places,
}

/// How rounds are scored and standings summed.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"kind": "places", "points": [4, 2, 1, 0], "bye": {"kind": "average"}, "late": {"kind": "zero"}}))]
pub struct TournamentScoring {
    pub kind: ScoringKind,
    /// For `places`: the points for 1st, 2nd, …; places beyond the list score 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<Vec<i64>>,
    /// A bye's score; left out, `average`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bye: Option<MissedScore>,
    /// A round before a late arrival's first; left out, `zero`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late: Option<MissedScore>,
}

/// How a table that has not finished `deals_per_round` when its round closes is scored.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum UnfinishedRule {
    /// The deals it finished count.
    AsPlayed,
    /// Every seat scores the table's average so far.
    Average,
    /// Every seat scores 0.
    Void,
}

/// Where the chips left in a stops game's pools (Pope Joan, Spin, Newmarket) go when a round
/// closes.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum LeftoverRule {
    /// They stay in the table's pools (the settle-up's `pools` party).
    Keep,
    /// Shared among the table's players: an equal share each, the odd chips one each to seat 1,
    /// 2, … in seat order.
    Share,
    /// To the bank (the settle-up's `bank` party): the club keeps them.
    Bank,
    /// Carried to the next round's table of the same number (the last table when the next
    /// round has fewer): booked out of the pools to the bank at the close, and issued by the bank
    /// onto the same pools when the next round opens that table (its options'
    /// `opening_pools`, its ledger's "chips carried onto the board"). After the last round
    /// the bank keeps them.
    Carry,
}

/// Chips moved out of a table's pools at its round's close.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct LeftoverMove {
    /// The pool's ledger account.
    #[schema(example = "pool:pope")]
    pub from: String,
    /// `seat:<n>` (seat numbers of the ledger, from 0) or `bank` (a carry too: the bank holds
    /// it until the next round's table opens with it).
    #[schema(example = "seat:0")]
    pub to: String,
    /// Positive.
    pub chips: i64,
}

/// An entrant who keeps one table all night.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StayAt {
    pub member_id: Uuid,
    /// From 1.
    #[schema(minimum = 1, example = 1)]
    pub table: u32,
}

/// Seating constraints, by club member id.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TournamentConstraints {
    /// Pairs never seated at one table.
    #[serde(default)]
    pub apart: Vec<[Uuid; 2]>,
    #[serde(default)]
    pub stay: Vec<StayAt>,
}

/// Table sizes narrower than the game's seat range.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"min": 4, "max": 5}))]
pub struct SeatBounds {
    pub min: u8,
    pub max: u8,
}

/// A tournament to run in the session.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTournament {
    #[schema(example = "Whist drive")]
    pub name: String,
    /// A game id from `GET /games`.
    #[schema(example = "nomination-whist")]
    pub game: String,
    /// The game's options for every table; anything left out takes its default.
    #[schema(value_type = Option<AnyOptions>)]
    pub options: Option<Value>,
    pub format: TournamentFormat,
    /// Table sizes, inside the game's seat range; left out, the game's whole range.
    pub seats: Option<SeatBounds>,
    #[schema(minimum = 1, maximum = 100, example = 4)]
    pub rounds: u32,
    /// Deals each table plays per round; a table short of them at the close is scored as
    /// `unfinished` says.
    #[schema(minimum = 1, example = 2)]
    pub deals_per_round: Option<u32>,
    /// The round's clock, for the board.
    #[schema(minimum = 1, example = 20)]
    pub minutes_per_round: Option<u32>,
    /// Club member ids (guests included), in seeding order.
    #[schema(example = json!(["5d0c6a8e-8c9b-4d3e-9f61-0a1b2c3d4e5f", "6e1d7b9f-9d0c-4e4f-8a72-1b2c3d4e5f60", "7f2e8c0a-0e1d-4f5a-9b83-2c3d4e5f6071"]))]
    pub entrants: Vec<Uuid>,
    #[serde(default)]
    pub constraints: TournamentConstraints,
    pub scoring: TournamentScoring,
    /// Left out, `as_played`.
    pub unfinished: Option<UnfinishedRule>,
    /// Where a stops game's pools go when a round closes; left out, the club's
    /// (`GET /clubs/{id}/leftover`: `keep` until the club sets another).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leftover: Option<LeftoverRule>,
}

/// A late arrival.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"member_id": "5d0c6a8e-8c9b-4d3e-9f61-0a1b2c3d4e5f"}))]
pub struct AddEntrant {
    /// A club member (a guest included).
    pub member_id: Uuid,
}

/// An exact fraction of points.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"numer": 29, "denom": 2}))]
pub struct Fraction {
    pub numer: i64,
    /// 1 or more.
    pub denom: i64,
}

/// An entrant.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct EntrantView {
    pub member_id: Uuid,
    pub name: String,
    pub guest: bool,
    /// The first round they play.
    pub from_round: u32,
    /// The last round they play, once withdrawn.
    pub until_round: Option<u32>,
}

/// A seat at a round's table.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SeatView {
    /// From 1; seat 1 deals first.
    #[schema(example = 1)]
    pub seat: u32,
    pub member_id: Uuid,
    pub name: String,
}

/// A table's result, once its round is closed.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TableResultView {
    /// A score per seat, in seat order, as the standings count it.
    pub scores: Vec<i64>,
    pub deals_played: u32,
    /// The `unfinished` rule applied, when the table had not finished its deals.
    pub unfinished: Option<UnfinishedRule>,
    /// Rulings and corrections made after the round closed that moved this result, in order;
    /// `scores` is the last one's `after`. Left out when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub amendments: Vec<ResultAmendment>,
}

/// A closed round's table result moved by a ruling or a correction of a deal the round counted,
/// made after the round closed.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ResultAmendment {
    /// The scores per seat before it.
    pub before: Vec<i64>,
    /// The scores per seat after it.
    pub after: Vec<i64>,
    /// The entry of the table's log (`GET /tables/{id}/moves`) that moved it: the ruling or the
    /// correction.
    #[schema(example = 31)]
    pub table_seq: u64,
}

/// A round's table: an ordinary table of the session.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct RoundTable {
    pub table_id: Uuid,
    #[schema(example = 1)]
    pub number: u32,
    pub seats: Vec<SeatView>,
    pub result: Option<TableResultView>,
    /// What the round's close moved out of the table's pools (the `leftover` rule), in booking
    /// order; empty while the round is open, or when nothing was left or the rule is `keep`.
    #[serde(default)]
    pub leftover: Vec<LeftoverMove>,
}

/// A round.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "round": 1, "started_at": "2026-11-27T20:15:00Z", "closed_at": "2026-11-27T20:45:00Z",
    "tables": [{"table_id": "0b6f4a2e-2d6f-4f0e-9f57-3c1f7f2d9a11", "number": 1,
                "seats": [{"seat": 1, "member_id": "5d0c6a8e-8c9b-4d3e-9f61-0a1b2c3d4e5f", "name": "Ann"},
                          {"seat": 2, "member_id": "6e1d7b9f-9d0c-4e4f-8a72-1b2c3d4e5f60", "name": "Bob"},
                          {"seat": 3, "member_id": "7f2e8c0a-0e1d-4f5a-9b83-2c3d4e5f6071", "name": "Cat"}],
                "result": {"scores": [12, 10, 1], "deals_played": 2, "unfinished": null}}],
    "byes": []
}))]
pub struct RoundView {
    #[schema(example = 1)]
    pub round: u32,
    pub started_at: DateTime<Utc>,
    pub closed_at: Option<DateTime<Utc>>,
    pub tables: Vec<RoundTable>,
    /// Club members who sit this round out.
    pub byes: Vec<Uuid>,
}

/// A line of the standings; ranked by total, then rounds won, then head to head, then shared.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct StandingView {
    #[schema(example = 1)]
    pub place: u32,
    pub member_id: Uuid,
    pub name: String,
    pub total: Fraction,
    pub rounds_won: u32,
    pub head_to_head: i64,
    pub played: u32,
    pub byes: u32,
    pub missed: u32,
}

/// A tournament with its rounds and standings (over its closed rounds).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TournamentView {
    pub id: Uuid,
    pub session_id: Uuid,
    pub club_id: Uuid,
    pub name: String,
    #[schema(example = "nomination-whist")]
    pub game: String,
    /// The game's options, complete.
    #[schema(value_type = AnyOptions)]
    pub options: Value,
    pub format: TournamentFormat,
    pub seats: SeatBounds,
    pub rounds: u32,
    pub deals_per_round: Option<u32>,
    pub minutes_per_round: Option<u32>,
    pub scoring: TournamentScoring,
    pub unfinished: UnfinishedRule,
    pub leftover: LeftoverRule,
    pub constraints: TournamentConstraints,
    pub entrants: Vec<EntrantView>,
    pub created_at: DateTime<Utc>,
    /// When its last round closed.
    pub finished_at: Option<DateTime<Utc>>,
    pub played_rounds: Vec<RoundView>,
    pub standings: Vec<StandingView>,
}

/// The session's tournaments.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TournamentList {
    pub items: Vec<TournamentView>,
}

/// A round just started.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct StartedRound {
    #[schema(example = 1)]
    pub round: u32,
    pub tables: Vec<RoundTable>,
    /// Club members who sit this round out.
    pub byes: Vec<Uuid>,
}

/// Where a member sits in one round.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct GuidePlace {
    #[schema(example = 3)]
    pub round: u32,
    /// None for a bye.
    pub table: Option<u32>,
    pub table_id: Option<Uuid>,
    /// From 1; seat 1 deals first.
    pub seat: Option<u32>,
    pub bye: bool,
    /// Who else sits there, in seat order.
    pub with: Vec<SeatmateView>,
    /// The card's sentence: "Round 3: table 2, seat 1 (dealer first), with Bob, Cat, Dan".
    pub text: String,
}

/// Someone at the same table.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SeatmateView {
    pub member_id: Uuid,
    pub name: String,
}

/// A member's guide card: where to sit now and next.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct GuideCard {
    pub member_id: Uuid,
    pub name: String,
    /// The open round, else the last started; none before the first.
    pub now: Option<GuidePlace>,
    /// The next round, when it is known already.
    pub next: Option<GuidePlace>,
    /// True when the next round waits on results not in yet.
    pub next_pending: bool,
}

/// A tournament's results: the standings and every round's tables and scores.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TournamentResults {
    pub tournament_id: Uuid,
    pub name: String,
    pub finished: bool,
    pub standings: Vec<StandingView>,
    pub rounds: Vec<RoundView>,
    /// Every reopening of the tournament's session, oldest first, shown beside its result ever
    /// after; left out when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reopenings: Vec<crate::sessions::Reopening>,
}

pub(super) fn leftover_view(l: Leftover) -> LeftoverRule {
    match l {
        Leftover::Keep => LeftoverRule::Keep,
        Leftover::Share => LeftoverRule::Share,
        Leftover::Bank => LeftoverRule::Bank,
        Leftover::Carry => LeftoverRule::Carry,
    }
}

pub(super) fn unfinished_view(u: Unfinished) -> UnfinishedRule {
    match u {
        Unfinished::AsPlayed => UnfinishedRule::AsPlayed,
        Unfinished::Average => UnfinishedRule::Average,
        Unfinished::Void => UnfinishedRule::Void,
    }
}

pub(super) fn missed_view(b: ByeScore) -> MissedScore {
    match b {
        ByeScore::Average => MissedScore::Average,
        ByeScore::Zero => MissedScore::Zero,
        ByeScore::Fixed { points } => MissedScore::Fixed { points },
    }
}

pub(super) fn missed_rule(b: MissedScore) -> ByeScore {
    match b {
        MissedScore::Average => ByeScore::Average,
        MissedScore::Zero => ByeScore::Zero,
        MissedScore::Fixed { points } => ByeScore::Fixed { points },
    }
}

pub(super) fn moves_view(m: Moves) -> MoveRule {
    match m {
        Moves::Winner => MoveRule::Winner,
        Moves::TopTwo => MoveRule::TopTwo,
        Moves::WinnersUpLosersDown => MoveRule::WinnersUpLosersDown,
    }
}

pub(crate) fn round_view(r: &service::RoundLine) -> RoundView {
    RoundView {
        round: r.number,
        started_at: r.started_at,
        closed_at: r.closed_at,
        tables: r.tables.iter().map(table_view).collect(),
        byes: r.byes.iter().map(|(m, _)| *m).collect(),
    }
}

pub(super) fn table_view(t: &service::TableLine) -> RoundTable {
    RoundTable {
        table_id: t.table_id,
        number: t.number,
        seats: t
            .seats
            .iter()
            .map(|s| SeatView {
                seat: s.seat,
                member_id: s.member_id,
                name: s.name.clone(),
            })
            .collect(),
        result: t.outcome.as_ref().map(|o| TableResultView {
            scores: o.scores.clone(),
            deals_played: o.deals_played,
            unfinished: o.ruled.map(unfinished_view),
            amendments: o
                .amendments
                .iter()
                .map(|a| ResultAmendment {
                    before: a.before.clone(),
                    after: a.after.clone(),
                    table_seq: a.table_seq,
                })
                .collect(),
        }),
        leftover: t
            .leftover
            .iter()
            .map(|l| LeftoverMove {
                from: l.from_account.clone(),
                to: l.to_account.clone(),
                chips: l.amount,
            })
            .collect(),
    }
}

pub(crate) fn standings_view(t: &service::Tournament) -> Vec<StandingView> {
    t.standings
        .iter()
        .map(|s| StandingView {
            place: s.standing.place,
            member_id: s.member_id,
            name: s.name.clone(),
            total: Fraction {
                numer: s.standing.total.numer(),
                denom: s.standing.total.denom(),
            },
            rounds_won: s.standing.rounds_won,
            head_to_head: s.standing.head_to_head,
            played: s.standing.played,
            byes: s.standing.byes,
            missed: s.standing.missed,
        })
        .collect()
}

pub(crate) fn view(t: &service::Tournament) -> TournamentView {
    let member = |e: service::Entrant| t.member_of(e).unwrap_or_default();
    let setup = &t.setup;
    let format = match &setup.format {
        service::Format::Progressive { moves } => TournamentFormat::Progressive {
            moves: moves_view(*moves),
        },
        service::Format::Rotation => TournamentFormat::Rotation,
        service::Format::Fixed => TournamentFormat::Fixed,
        service::Format::Swiss { partnerships } => TournamentFormat::Swiss {
            partnerships: partnerships
                .as_ref()
                .map(|pairs| pairs.iter().map(|[a, b]| [member(*a), member(*b)]).collect()),
        },
    };
    let (kind, points) = match &setup.scoring.kind {
        Scoring::Points => (ScoringKind::Points, None),
        Scoring::Chips => (ScoringKind::Chips, None),
        Scoring::Places { points } => (ScoringKind::Places, Some(points.clone())),
    };
    let row = &t.row;
    TournamentView {
        id: row.id,
        session_id: row.session_id,
        club_id: row.club_id,
        name: row.name.clone(),
        game: row.game.clone(),
        options: row.options.clone(),
        format,
        seats: SeatBounds {
            min: setup.seats.min,
            max: setup.seats.max,
        },
        rounds: setup.rounds,
        deals_per_round: row.deals_per_round.and_then(|d| u32::try_from(d).ok()),
        minutes_per_round: row.minutes_per_round.and_then(|m| u32::try_from(m).ok()),
        scoring: TournamentScoring {
            kind,
            points,
            bye: Some(missed_view(setup.scoring.bye)),
            late: Some(missed_view(setup.scoring.late)),
        },
        unfinished: Unfinished::parse(&row.unfinished).map_or(UnfinishedRule::AsPlayed, unfinished_view),
        leftover: Leftover::parse(&row.leftover).map_or(LeftoverRule::Keep, leftover_view),
        constraints: TournamentConstraints {
            apart: setup
                .constraints
                .apart
                .iter()
                .map(|[a, b]| [member(*a), member(*b)])
                .collect(),
            stay: setup
                .constraints
                .stay
                .iter()
                .map(|s| StayAt {
                    member_id: member(s.entrant),
                    table: s.table,
                })
                .collect(),
        },
        entrants: t
            .entrants
            .iter()
            .map(|e| EntrantView {
                member_id: e.club_member_id,
                name: e.name.clone(),
                guest: e.guest,
                from_round: u32::try_from(e.from_round).unwrap_or(1),
                until_round: e.until_round.and_then(|u| u32::try_from(u).ok()),
            })
            .collect(),
        created_at: row.created_at,
        finished_at: row.finished_at,
        played_rounds: t.rounds.iter().map(round_view).collect(),
        standings: standings_view(t),
    }
}

pub(super) fn scoring_rules(s: &TournamentScoring) -> Result<ScoreRules, ApiError> {
    let kind =
        match (s.kind, &s.points) {
            (ScoringKind::Points, None) => Scoring::Points,
            (ScoringKind::Chips, None) => Scoring::Chips,
            (ScoringKind::Places, Some(points)) if !points.is_empty() && points.len() <= 16 => {
                Scoring::Places { points: points.clone() }
            }
            _ => return Err(ApiError::unprocessable(
                "invalid_scoring",
                "scoring by `places` takes `points` (1 to 16 numbers, for 1st, 2nd, …); `points` and `chips` take none",
            )),
        };
    Ok(ScoreRules {
        kind,
        bye: s.bye.map_or(ByeScore::Average, missed_rule),
        late: s.late.map_or(ByeScore::Zero, missed_rule),
    })
}

/// A total as a spreadsheet reads it: a whole number, or a decimal when exact in three places,
/// else the fraction.
pub(super) fn total_cell(f: Fraction) -> Cell {
    if f.denom == 1 {
        return Cell::int(f.numer);
    }
    Cell::text(total_text(f))
}

/// A total as people read it: a whole number, or a decimal when exact in three places, else the
/// fraction.
pub(crate) fn total_text(f: Fraction) -> String {
    if f.denom == 1 {
        return f.numer.to_string();
    }
    let thousandths = f.numer * 1000;
    if thousandths % f.denom == 0 {
        let v = thousandths / f.denom;
        let sign = if v < 0 { "-" } else { "" };
        let v = v.abs();
        let text = format!("{sign}{}.{:03}", v / 1000, v % 1000);
        return text.trim_end_matches('0').to_owned();
    }
    format!("{}/{}", f.numer, f.denom)
}

/// A table the next round would seat: its number and seats (no table is opened).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PlannedTable {
    #[schema(example = 1)]
    pub number: u32,
    pub seats: Vec<SeatView>,
}

/// The seating the next round would get if it were started now.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "round": 1,
    "tables": [{"number": 1,
                "seats": [{"seat": 1, "member_id": "5d0c6a8e-8c9b-4d3e-9f61-0a1b2c3d4e5f", "name": "Ann"},
                          {"seat": 2, "member_id": "6e1d7b9f-9d0c-4e4f-8a72-1b2c3d4e5f60", "name": "Bob"},
                          {"seat": 3, "member_id": "7f2e8c0a-0e1d-4f5a-9b83-2c3d4e5f6071", "name": "Cat"}]}],
    "byes": []
}))]
pub struct PlannedRound {
    #[schema(example = 1)]
    pub round: u32,
    pub tables: Vec<PlannedTable>,
    /// Club members who would sit it out.
    pub byes: Vec<Uuid>,
}
