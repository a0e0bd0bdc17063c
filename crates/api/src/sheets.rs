//! Printed results: a tournament's sheet for the noticeboard (its standings, every round's
//! tables and scores, unfinished tables and byes named) and one player's card, as A4 PDFs set by
//! `tablekeeper-print` from the same views the JSON results answer with.

use actix_web::http::header::{ContentDisposition, DispositionParam, DispositionType};
use actix_web::{get, web, HttpResponse};
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

use super::auth::Reads;
use super::error::{ApiError, Problem};
use super::reads::ReadPool;
use super::tournaments::{
    round_view, standings_view, total_text, RoundTable, RoundView, StandingView, TournamentFormat, UnfinishedRule,
};
use std::collections::HashMap;
use tablekeeper_print::{Block, Column, Sheet, Table};
use tablekeeper_rules::{with_game, Game, GameId};
use tablekeeper_service::ruled::Marked;
use tablekeeper_service::tournaments as service;

/// Whose card to print.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SheetQuery {
    /// A member entered in the tournament: that player's card (where they sat each round, with
    /// whom, and what they scored) instead of the whole sheet.
    pub member: Option<Uuid>,
}

/// The tournament's results as a PDF for A4 paper (and a phone's screen): the standings, each
/// round's tables with their players in seat order and their scores, unfinished tables with
/// the rule that scored them, a director's rulings at its tables (`ruling: <kind> — <reason>`),
/// and byes, under a line for each reopening of the session (when, and why); `?member=` prints
/// one player's card instead, with the same lines.
#[utoipa::path(tag = "tournaments", security(("bearer" = [])), params(("id" = Uuid, Path), SheetQuery), responses(
    (status = 200, description = "the results sheet, A4", content((String = "application/pdf", example = "%PDF-1.7 … (an A4 page of standings and rounds)")), headers(("Content-Disposition" = String, description = "`inline; filename=\"tournament-<id>-results.pdf\"` (`tournament-<id>-card-<member>.pdf` for a card)"))),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`tournament_not_found`, `entrant_not_found` (the `member` is not entered)", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tournaments/{id}/results.pdf")]
pub async fn get_tournament_results_pdf(
    pool: ReadPool,
    Reads(who): Reads,
    id: web::Path<Uuid>,
    query: web::Query<SheetQuery>,
) -> Result<HttpResponse, ApiError> {
    let t = service::get(&pool, who, *id).await?;
    let reopened: Vec<String> =
        crate::sessions::reopenings(&tablekeeper_service::closing::reopenings(&pool, t.row.session_id).await?)
            .iter()
            .map(crate::sessions::Reopening::line)
            .collect();
    let mut sheet = match query.member {
        None => {
            let tables: Vec<Uuid> = t
                .rounds
                .iter()
                .map(round_view)
                .flat_map(|r| r.tables.into_iter().map(|table| table.table_id))
                .collect();
            let rulings = tablekeeper_service::ruled::of_tables(&pool, &tables).await?;
            results_sheet(&t, &rulings)
        }
        Some(member) => player_card(&t, member)?,
    };
    // Beside the result, at the top: the session was reopened after a close, and why.
    sheet.lines.extend(reopened);
    let bytes = tablekeeper_print::pdf(&sheet).map_err(|e| {
        tracing::error!(error = %e, "a results sheet did not print");
        ApiError::internal()
    })?;
    let name = match query.member {
        None => format!("tournament-{}-results.pdf", t.row.id),
        Some(member) => format!("tournament-{}-card-{member}.pdf", t.row.id),
    };
    Ok(HttpResponse::Ok()
        .content_type("application/pdf")
        .insert_header(ContentDisposition {
            disposition: DispositionType::Inline,
            parameters: vec![DispositionParam::Filename(name)],
        })
        .body(bytes))
}

/// The game's name, as the catalogue gives it.
fn game_name(game: &str) -> String {
    match GameId::parse(game) {
        Some(game) => with_game!(game, G => G::NAME).to_owned(),
        None => game.to_owned(),
    }
}

/// What kind of evening it was, in a line: game, format, rounds, deals.
fn description(t: &service::Tournament) -> String {
    let view = super::tournaments::view(t);
    let format = match view.format {
        TournamentFormat::Progressive { .. } => "progressive",
        TournamentFormat::Rotation => "rotation",
        TournamentFormat::Swiss { .. } => "Swiss",
        TournamentFormat::Fixed => "fixed tables",
    };
    let deals = match (view.deals_per_round, view.minutes_per_round) {
        (Some(deals), _) => format!(" of {deals} deals"),
        (None, Some(minutes)) => format!(" of {minutes} minutes"),
        (None, None) => String::new(),
    };
    format!("{}, {format}, {} rounds{deals}", game_name(&t.row.game), view.rounds)
}

/// How far the evening is: finished, or after which round.
fn status(t: &service::Tournament, rounds: &[RoundView]) -> String {
    let closed = rounds.iter().filter(|r| r.closed_at.is_some()).count();
    if t.finished() {
        format!("Final results ({closed} rounds played)")
    } else {
        format!("Standings after {closed} closed round(s): not final")
    }
}

fn unfinished_words(rule: UnfinishedRule) -> &'static str {
    match rule {
        UnfinishedRule::AsPlayed => "scored as played",
        UnfinishedRule::Average => "each seat given the table's average",
        UnfinishedRule::Void => "void, every seat 0",
    }
}

fn standings_table(standings: &[StandingView]) -> Table {
    Table {
        columns: vec![
            Column::right("Place"),
            Column::left("Player"),
            Column::right("Total"),
            Column::right("Rounds won"),
            Column::right("Played"),
            Column::right("Byes"),
        ],
        rows: standings
            .iter()
            .map(|s| {
                vec![
                    s.place.to_string(),
                    s.name.clone(),
                    total_text(s.total),
                    s.rounds_won.to_string(),
                    s.played.to_string(),
                    s.byes.to_string(),
                ]
            })
            .collect(),
    }
}

fn scores_text(table: &RoundTable) -> String {
    match &table.result {
        Some(result) => result.scores.iter().map(i64::to_string).collect::<Vec<_>>().join(" · "),
        None => "playing".to_owned(),
    }
}

/// The round's tables, then what needs saying about them (unfinished tables, byes).
fn round_blocks(round: &RoundView, names: impl Fn(Uuid) -> String) -> Vec<Block> {
    let when = match round.closed_at {
        Some(closed) => format!("closed {}", closed.format("%H:%M")),
        None => "still open".to_owned(),
    };
    let mut blocks = vec![
        Block::Heading(format!(
            "Round {} (started {}, {when})",
            round.round,
            round.started_at.format("%H:%M")
        )),
        Block::Table(Table {
            columns: vec![
                Column::right("Table"),
                Column::left("Players, seat 1 first"),
                Column::right("Scores"),
                Column::right("Deals"),
            ],
            rows: round
                .tables
                .iter()
                .map(|table| {
                    let players: Vec<&str> = table.seats.iter().map(|s| s.name.as_str()).collect();
                    vec![
                        table.number.to_string(),
                        players.join(", "),
                        scores_text(table),
                        table
                            .result
                            .as_ref()
                            .map_or_else(String::new, |r| r.deals_played.to_string()),
                    ]
                })
                .collect(),
        }),
    ];
    for table in &round.tables {
        if let Some(rule) = table.result.as_ref().and_then(|r| r.unfinished) {
            let played = table.result.as_ref().map_or(0, |r| r.deals_played);
            blocks.push(Block::Paragraph(format!(
                "Table {} did not finish its deals ({played} played): {}.",
                table.number,
                unfinished_words(rule)
            )));
        }
    }
    if !round.byes.is_empty() {
        let byes: Vec<String> = round.byes.iter().map(|m| names(*m)).collect();
        blocks.push(Block::Paragraph(format!("Byes: {}.", byes.join(", "))));
    }
    blocks
}

fn name_of(t: &service::Tournament, member: Uuid) -> String {
    t.standings
        .iter()
        .find(|s| s.member_id == member)
        .map_or_else(|| member.to_string(), |s| s.name.clone())
}

/// The whole evening: standings first, then each round.
fn results_sheet(t: &service::Tournament, rulings: &HashMap<Uuid, Vec<Marked>>) -> Sheet {
    let rounds: Vec<RoundView> = t.rounds.iter().map(round_view).collect();
    let mut blocks = vec![
        Block::Heading("Standings".to_owned()),
        Block::Table(standings_table(&standings_view(t))),
        Block::Paragraph(
            "Ranked by total, then rounds won, then head to head; a place still equal is shared.".to_owned(),
        ),
    ];
    for round in &rounds {
        blocks.extend(round_blocks(round, |m| name_of(t, m)));
        // A director's rulings at the round's tables, each on a line of its own.
        for table in &round.tables {
            for r in rulings.get(&table.table_id).into_iter().flatten() {
                blocks.push(Block::Paragraph(format!(
                    "Table {}, deal {}: ruling: {} — {}",
                    table.number, r.deal, r.kind, r.reason
                )));
            }
        }
    }
    Sheet {
        title: format!("{}: results", t.row.name),
        lines: vec![description(t), status(t, &rounds)],
        blocks,
        footer: format!("tablekeeper · tournament {}", t.row.id),
    }
}

/// One player's card: their place, then where they sat each round, with whom, and their score.
///
/// # Errors
/// 404 `entrant_not_found` when `member` is not entered.
fn player_card(t: &service::Tournament, member: Uuid) -> Result<Sheet, ApiError> {
    let standings = standings_view(t);
    let Some(standing) = standings.iter().find(|s| s.member_id == member) else {
        return Err(ApiError::not_found(
            "entrant_not_found",
            "that member is not entered in this tournament",
        ));
    };
    let rounds: Vec<RoundView> = t.rounds.iter().map(round_view).collect();
    let mut rows = Vec::new();
    for round in &rounds {
        let sat = round
            .tables
            .iter()
            .find_map(|table| Some((table, table.seats.iter().position(|s| s.member_id == member)?)));
        rows.push(match sat {
            Some((table, at)) => {
                let with: Vec<&str> = table
                    .seats
                    .iter()
                    .filter(|s| s.member_id != member)
                    .map(|s| s.name.as_str())
                    .collect();
                let score = table
                    .result
                    .as_ref()
                    .and_then(|r| r.scores.get(at))
                    .map_or_else(|| "playing".to_owned(), i64::to_string);
                vec![
                    round.round.to_string(),
                    table.number.to_string(),
                    table.seats.get(at).map_or(0, |s| s.seat).to_string(),
                    with.join(", "),
                    score,
                ]
            }
            None if round.byes.contains(&member) => {
                vec![
                    round.round.to_string(),
                    "bye".to_owned(),
                    String::new(),
                    String::new(),
                    String::new(),
                ]
            }
            None => vec![
                round.round.to_string(),
                "absent".to_owned(),
                String::new(),
                String::new(),
                String::new(),
            ],
        });
    }
    Ok(Sheet {
        title: format!("{}: {}", standing.name, t.row.name),
        lines: vec![
            description(t),
            format!(
                "Place {} of {}, total {}, {} round(s) won",
                standing.place,
                standings.len(),
                total_text(standing.total),
                standing.rounds_won
            ),
            status(t, &rounds),
        ],
        blocks: vec![
            Block::Heading("Round by round".to_owned()),
            Block::Table(Table {
                columns: vec![
                    Column::right("Round"),
                    Column::right("Table"),
                    Column::right("Seat"),
                    Column::left("With"),
                    Column::right("Score"),
                ],
                rows,
            }),
        ],
        footer: format!("tablekeeper · tournament {} · {}", t.row.id, standing.name),
    })
}
