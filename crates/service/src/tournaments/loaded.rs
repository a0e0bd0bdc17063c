//! A tournament as stored, read in one transaction, and the views made from it.

use tablekeeper_store::tournaments::{
    AmendmentRow, ByeRow, EntrantRow, LeftoverRow, ResultRow, RoundRow, SeatingRow, TournamentRow,
};
use tablekeeper_store::{self as store, PgConnection};
use uuid::Uuid;

use super::{
    entrant_of, member_of, number, Amendment, Entrant, Event, PlayedRound, Round, RoundLine, SeatLine, StandingLine,
    TableLine, TableOutcome, Tournament, Unfinished,
};
use crate::ServiceError;
use tablekeeper_movement::TableResult;

/// Everything stored of a tournament, read in one transaction.
pub(super) struct Loaded {
    pub(super) row: TournamentRow,
    pub(super) entrants: Vec<EntrantRow>,
    pub(super) rounds: Vec<RoundRow>,
    pub(super) seatings: Vec<SeatingRow>,
    pub(super) byes: Vec<ByeRow>,
    pub(super) results: Vec<ResultRow>,
    pub(super) leftovers: Vec<LeftoverRow>,
    pub(super) amendments: Vec<AmendmentRow>,
}

pub(super) async fn load(conn: &mut PgConnection, row: TournamentRow) -> Result<Loaded, ServiceError> {
    let id = row.id;
    Ok(Loaded {
        entrants: store::tournaments::entrants(&mut *conn, id).await?,
        rounds: store::tournaments::rounds(&mut *conn, id).await?,
        seatings: store::tournaments::seatings(&mut *conn, id).await?,
        byes: store::tournaments::byes(&mut *conn, id).await?,
        results: store::tournaments::results(&mut *conn, id).await?,
        leftovers: store::tournaments::leftovers(&mut *conn, id).await?,
        amendments: store::tournaments::amendments(&mut *conn, id).await?,
        row,
    })
}

pub(super) fn event_of(row: &TournamentRow) -> Result<Event, ServiceError> {
    serde_json::from_value(row.setup.clone())
        .map_err(|e| ServiceError::Corrupt(format!("tournament {}'s set-up does not read: {e}", row.id)))
}

impl Loaded {
    pub(super) fn round(&self, n: i32) -> Round {
        let mut tables: Vec<tablekeeper_movement::TableSeating> = Vec::new();
        for s in self.seatings.iter().filter(|s| s.round == n) {
            match tables.last_mut() {
                Some(t) if i64::from(t.number) == i64::from(s.table_number) => t.seats.push(entrant_of(s.entrant)),
                _ => tables.push(tablekeeper_movement::TableSeating {
                    number: number(s.table_number),
                    seats: vec![entrant_of(s.entrant)],
                }),
            }
        }
        Round {
            number: number(n),
            tables,
            byes: self
                .byes
                .iter()
                .filter(|b| b.round == n)
                .map(|b| entrant_of(b.entrant))
                .collect(),
        }
    }

    /// A result's amendments, in order.
    fn amendments_of<'a>(&'a self, x: &'a ResultRow) -> impl Iterator<Item = &'a AmendmentRow> {
        self.amendments
            .iter()
            .filter(move |a| a.round == x.round && a.table_number == x.table_number)
    }

    /// A result's scores in force: its last amendment's, else as closed.
    fn scores_of(&self, x: &ResultRow) -> Vec<i64> {
        self.amendments_of(x)
            .last()
            .map_or_else(|| x.scores.clone(), |a| a.scores.clone())
    }

    /// The closed rounds with their results (as amended), in order.
    pub(super) fn history(&self) -> Vec<PlayedRound> {
        self.rounds
            .iter()
            .filter(|r| r.closed_at.is_some())
            .map(|r| PlayedRound {
                round: self.round(r.number),
                results: self
                    .results
                    .iter()
                    .filter(|x| x.round == r.number)
                    .map(|x| TableResult {
                        table: number(x.table_number),
                        scores: self.scores_of(x),
                    })
                    .collect(),
            })
            .collect()
    }

    pub(super) fn open_round(&self) -> Option<&RoundRow> {
        self.rounds.iter().find(|r| r.closed_at.is_none())
    }

    /// Entrants present in round `n`: entered by then and not withdrawn before it.
    pub(super) fn present(&self, n: u32) -> Vec<Entrant> {
        self.entrants
            .iter()
            .filter(|e| number(e.from_round) <= n && e.until_round.is_none_or(|u| number(u) >= n))
            .map(|e| entrant_of(e.entrant))
            .collect()
    }

    pub(super) fn name(&self, e: Entrant) -> (Uuid, String) {
        member_of(&self.entrants, e).map_or((Uuid::nil(), String::new()), |m| (m.club_member_id, m.name.clone()))
    }

    pub(super) fn view(self) -> Result<Tournament, ServiceError> {
        let event = event_of(&self.row)?;
        let standings = event.standings(&self.history())?;
        let rounds = self
            .rounds
            .iter()
            .map(|r| {
                let round = self.round(r.number);
                RoundLine {
                    number: number(r.number),
                    started_at: r.started_at,
                    closed_at: r.closed_at,
                    tables: round
                        .tables
                        .iter()
                        .map(|t| TableLine {
                            number: t.number,
                            table_id: self
                                .seatings
                                .iter()
                                .find(|s| s.round == r.number && number(s.table_number) == t.number)
                                .map_or(Uuid::nil(), |s| s.table_id),
                            seats: t
                                .seats
                                .iter()
                                .enumerate()
                                .map(|(i, e)| {
                                    let (member_id, name) = self.name(*e);
                                    SeatLine {
                                        seat: u32::try_from(i + 1).unwrap_or(u32::MAX),
                                        member_id,
                                        name,
                                    }
                                })
                                .collect(),
                            outcome: self
                                .results
                                .iter()
                                .find(|x| x.round == r.number && number(x.table_number) == t.number)
                                .map(|x| TableOutcome {
                                    scores: self.scores_of(x),
                                    deals_played: number(x.deals_played),
                                    ruled: x.ruled.as_deref().and_then(Unfinished::parse),
                                    amendments: self
                                        .amendments_of(x)
                                        .scan(x.scores.clone(), |before, a| {
                                            let line = Amendment {
                                                before: std::mem::replace(before, a.scores.clone()),
                                                after: a.scores.clone(),
                                                table_seq: u64::try_from(a.table_seq).unwrap_or(0),
                                            };
                                            Some(line)
                                        })
                                        .collect(),
                                }),
                            leftover: self
                                .leftovers
                                .iter()
                                .filter(|l| l.round == r.number && number(l.table_number) == t.number)
                                .cloned()
                                .collect(),
                        })
                        .collect(),
                    byes: round.byes.iter().map(|e| self.name(*e)).collect(),
                }
            })
            .collect();
        let standings = standings
            .into_iter()
            .map(|standing| {
                let (member_id, name) = self.name(standing.entrant);
                StandingLine {
                    standing,
                    member_id,
                    name,
                }
            })
            .collect();
        Ok(Tournament {
            setup: event.setup().clone(),
            row: self.row,
            entrants: self.entrants,
            rounds,
            standings,
        })
    }
}
