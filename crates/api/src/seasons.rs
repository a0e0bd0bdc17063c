//! A club's seasons, their league tables (JSON or CSV) and a member's history.
//!
//! League points are exact inside (see `service::seasons`); a share of tied places that is not
//! a whole number is shown rounded to two decimal places (1.5, 0.33), in JSON and CSV alike.

use crate::State;
use std::collections::BTreeMap;

use actix_web::{get, post, web, HttpRequest, HttpResponse};
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use tablekeeper_service::PgPool;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::auth::{Caller, Principal};
use super::error::{ApiError, Problem};
use super::export::{self, Cell, Format};
use super::reads::ReadPool;
use tablekeeper_rules::GameId;
use tablekeeper_service::clubs::ClubRole;
use tablekeeper_service::seasons::SeasonRow;
use tablekeeper_service::seasons::{self as service, GameFigures, Scoring, SeatResult, StandingRow, LEAGUE_UNIT};

/// Most places a table has (the largest tables seat eight).
const MOST_PLACES: usize = 8;
/// Most league points a place may give.
const MOST_LEAGUE_POINTS: i64 = 1000;

/// How a season ranks its members.
#[derive(Serialize, Deserialize, ToSchema, Clone, Debug, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SeasonScoring {
    /// League points by place at each table: `points[0]` for first, `points[1]` for second, …;
    /// none for a place beyond the list. Tied seats share their places' points equally.
    LeaguePoints {
        /// 1 to 8 whole numbers from 0 to 1000, none greater than the one before.
        #[schema(example = json!([3, 2, 1, 0]))]
        points: Vec<i64>,
    },
    /// The sum of the score sheets' points at the season's points games.
    Points,
    /// The sum of the chips won or lost at the season's chips games.
    NetChips,
}

impl SeasonScoring {
    fn of(scoring: &Scoring) -> SeasonScoring {
        match scoring {
            Scoring::LeaguePoints(points) => SeasonScoring::LeaguePoints {
                points: points.iter().map(|p| i64::from(*p)).collect(),
            },
            Scoring::Points => SeasonScoring::Points,
            Scoring::NetChips => SeasonScoring::NetChips,
        }
    }

    /// # Errors
    /// `invalid_scoring` for league points that are not 1 to 8 whole numbers from 0 to 1000,
    /// none greater than the one before.
    fn checked(&self) -> Result<Scoring, ApiError> {
        match self {
            SeasonScoring::LeaguePoints { points } => {
                let sane = (1..=MOST_PLACES).contains(&points.len())
                    && points.iter().all(|p| (0..=MOST_LEAGUE_POINTS).contains(p))
                    && points.windows(2).all(|w| w[0] >= w[1]);
                let points: Option<Vec<i32>> = points.iter().map(|p| i32::try_from(*p).ok()).collect();
                match points {
                    Some(points) if sane => Ok(Scoring::LeaguePoints(points)),
                    _ => Err(ApiError::unprocessable(
                        "invalid_scoring",
                        "league points are 1 to 8 whole numbers from 0 to 1000, first place's first, none greater than the one before",
                    )),
                }
            }
            SeasonScoring::Points => Ok(Scoring::Points),
            SeasonScoring::NetChips => Ok(Scoring::NetChips),
        }
    }
}

#[derive(Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "Winter 2026", "starts": "2026-10-01", "ends": "2027-03-31",
    "games": ["nomination-whist", "newmarket"], "scoring": {"kind": "league_points", "points": [3, 2, 1, 0]}}))]
pub struct CreateSeason {
    pub name: String,
    /// The first day (UTC) whose sessions count.
    pub starts: NaiveDate,
    /// The last day (UTC) whose sessions count; not before `starts`.
    pub ends: NaiveDate,
    /// The games whose tables count: game ids from `GET /games`, at least one.
    pub games: Vec<String>,
    pub scoring: SeasonScoring,
}

/// A season: the club's sessions started from `starts` to `ends` (UTC dates), their finished
/// tables of `games`, ranked by `scoring`.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct Season {
    pub id: Uuid,
    pub club_id: Uuid,
    pub name: String,
    pub starts: NaiveDate,
    pub ends: NaiveDate,
    pub games: Vec<String>,
    pub scoring: SeasonScoring,
    pub created_at: DateTime<Utc>,
}

impl Season {
    fn of(row: &SeasonRow) -> Result<Season, ApiError> {
        let scoring = Scoring::of(row)?;
        Ok(Season {
            id: row.id,
            club_id: row.club_id,
            name: row.name.clone(),
            starts: row.starts,
            ends: row.ends,
            games: row.games.clone(),
            scoring: SeasonScoring::of(&scoring),
            created_at: row.created_at,
        })
    }
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct SeasonPage {
    pub items: Vec<Season>,
    /// The offset of the next page; null on the last page.
    pub next_offset: Option<i64>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct SeasonPageQuery {
    /// 1 to 500; default 100.
    pub limit: Option<i64>,
    pub offset: Option<i64>,
}

/// A member's figures over some tables.
#[derive(Serialize, Deserialize, ToSchema, Clone, Debug, PartialEq)]
pub struct Figures {
    pub tables: u32,
    /// Tables where the member came first, a shared first included.
    pub wins: u32,
    /// Over the points games' tables; null when there were none.
    pub points: Option<i64>,
    /// Chips won (positive) or lost over the chips games' tables; null when there were none.
    pub net_chips: Option<i64>,
    /// Under league-points scoring: the places' points, a share of tied places shown to two
    /// decimal places; null otherwise.
    pub league_points: Option<f64>,
}

/// League points in `LEAGUE_UNIT`ths as shown: to two decimal places.
fn shown(units: i64) -> f64 {
    // Whole hundredths, rounded half away from zero; exact for every value a season reaches.
    let hundredths = (units * 100 * 2 + LEAGUE_UNIT * units.signum()) / (LEAGUE_UNIT * 2);
    hundredths as f64 / 100.0
}

impl Figures {
    fn of(f: &GameFigures) -> Figures {
        Figures {
            tables: f.tables,
            wins: f.wins,
            points: f.points,
            net_chips: f.chips,
            league_points: f.league_units.map(shown),
        }
    }
}

/// A member's line in the season's table.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct SeasonStandingRow {
    pub member_id: Uuid,
    /// As the club has it now.
    pub name: String,
    /// 1 is first; members ranking equal share the best of their places (1, 2, 2, 4).
    pub place: u32,
    /// Sessions at which the member sat at a counted table.
    pub nights: u32,
    /// Counted tables: finished, of the season's games.
    pub tables: u32,
    pub wins: u32,
    /// Under league-points scoring (shown to two decimal places); null otherwise.
    pub league_points: Option<f64>,
    /// Over the points games' tables; null when the member sat at none.
    pub points: Option<i64>,
    /// Chips won or lost over the chips games' tables; null when the member sat at none.
    pub net_chips: Option<i64>,
    /// Per game id.
    pub by_game: BTreeMap<String, Figures>,
}

impl SeasonStandingRow {
    fn of(row: &StandingRow) -> SeasonStandingRow {
        let total = Figures::of(&row.total);
        SeasonStandingRow {
            member_id: row.member,
            name: row.name.clone(),
            place: row.place,
            nights: row.nights,
            tables: total.tables,
            wins: total.wins,
            league_points: total.league_points,
            points: total.points,
            net_chips: total.net_chips,
            by_game: row.by_game.iter().map(|(g, f)| (g.clone(), Figures::of(f))).collect(),
        }
    }
}

/// A season's league table.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct SeasonStandings {
    pub season: Season,
    /// The club's sessions the season takes in, oldest first.
    pub session_ids: Vec<Uuid>,
    /// Every member who sat at a counted table, best first.
    pub rows: Vec<SeasonStandingRow>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct StandingsQuery {
    /// Kept for links made before `get_season_standings_csv`: `csv` answers CSV.
    pub format: Option<Format>,
}

/// Starts a season of the club (its organisers and owners).
///
/// Send an `Idempotency-Key` to retry safely: a retry with the same key and body gets the first
/// answer (marked `Idempotent-Replayed: true`) and starts no second season.
#[utoipa::path(tag = "seasons", params(("id" = Uuid, Path, description = "the club"), ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key and body returns the first answer and creates nothing")), request_body = CreateSeason, security(("bearer" = [])), responses(
    (status = 201, description = "the season", body = Season, headers(
        ("Location" = String, description = "the season's standings"),
        ("Idempotent-Replayed" = Option<String>, description = "`true` when this is the first answer to an earlier request with the same `Idempotency-Key`"),
    )),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a member who does not organise, or a scorer token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found`: no such club, or not one of the caller's", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`invalid_name`, `invalid_season_dates` (ends before it starts), `invalid_games` (none), `unknown_game`, `invalid_scoring`, `unknown_variant` (a scoring kind), `invalid_body` (a date that is not YYYY-MM-DD), `unknown_field`, `idempotency_key_reused`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/clubs/{id}/seasons")]
pub async fn create_season(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    club: web::Path<Uuid>,
    body: web::Json<CreateSeason>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let user = who.organiser()?;
    let name = super::input::display_name(&body.name, 200).ok_or_else(|| {
        ApiError::unprocessable(
            "invalid_name",
            "a season name is 1 to 200 characters, without control characters",
        )
    })?;
    if body.ends < body.starts {
        return Err(ApiError::unprocessable(
            "invalid_season_dates",
            format!("the season ends ({}) before it starts ({})", body.ends, body.starts),
        ));
    }
    let mut games: Vec<String> = Vec::new();
    for game in &body.games {
        let id = GameId::parse(game).ok_or_else(|| {
            ApiError::unprocessable("unknown_game", format!("there is no game `{game}`: see GET /games"))
        })?;
        if !games.iter().any(|g| g == id.as_str()) {
            games.push(id.as_str().to_owned());
        }
    }
    if games.is_empty() {
        return Err(ApiError::unprocessable(
            "invalid_games",
            "a season counts the tables of at least one game",
        ));
    }
    let scoring = body.scoring.checked()?;
    let plan = service::SeasonPlan {
        name,
        starts: body.starts,
        ends: body.ends,
        games: &games,
        scoring: &scoring,
    };
    let key = super::tables::creation_key(&req, "create_season", || serde_json::to_value((*club, &*body)))?;
    let render = |season: SeasonRow| {
        let season = Season::of(&season).map_err(|e| <serde_json::Error as serde::ser::Error>::custom(e.detail))?;
        let location = format!("/api/v1/clubs/{club}/seasons/{}/standings", season.id);
        Ok(super::answers::Made::created(&season)?.at(location))
    };
    let outcome = service::create(pool, user, *club, plan, key.as_ref(), render).await?;
    let club = *club;
    super::answers::respond(outcome, |body| {
        body.get("id")
            .and_then(serde_json::Value::as_str)
            .map(|id| format!("/api/v1/clubs/{club}/seasons/{id}/standings"))
    })
}

/// The club's seasons, the latest to start first (its members).
#[utoipa::path(tag = "seasons", params(("id" = Uuid, Path, description = "the club"), SeasonPageQuery), security(("bearer" = [])), responses(
    (status = 200, body = SeasonPage),
    (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found`: no such club, or not one of the caller's", body = Problem, content_type = "application/problem+json"),
))]
#[get("/clubs/{id}/seasons")]
pub async fn list_seasons(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    club: web::Path<Uuid>,
    query: web::Query<SeasonPageQuery>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let user = who.organiser()?;
    let limit = super::input::page_limit(query.limit)?;
    let offset = query.offset.unwrap_or(0).max(0);
    let rows = service::list(pool, user, *club, limit + 1, offset).await?;
    let more = rows.len() as i64 > limit;
    let items = rows
        .iter()
        .take(limit as usize)
        .map(Season::of)
        .collect::<Result<Vec<_>, _>>()?;
    let next_offset = more.then_some(offset + limit);
    Ok(super::input::page(
        &req,
        "offset",
        next_offset,
        &SeasonPage { items, next_offset },
    ))
}

/// The season's league table (the club's members): each member who sat at a counted table
/// (finished, of the season's games, at a session started within the season) with their place,
/// nights, tables and per-game figures.
///
/// The same table as CSV is `get_season_standings_csv` (`…/standings.csv`). (`Accept: text/csv`
/// or `?format=csv` here still answer CSV, for links made before that operation existed.)
#[utoipa::path(tag = "seasons", params(("id" = Uuid, Path, description = "the club"), ("season_id" = Uuid, Path)), security(("bearer" = [])), responses(
    (status = 400, description = "`invalid_query`: an unknown query parameter, or a `format` (kept for links made before the CSV operation) that is not `json` or `csv`", body = Problem, content_type = "application/problem+json"),
    (status = 200, description = "the league table", body = SeasonStandings),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found` (no such club, or not one of the caller's), `season_not_found` (not a season of this club)", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`table_damaged`: what is stored of a table no longer reads; the problem names it", body = Problem, content_type = "application/problem+json"),
))]
#[get("/clubs/{id}/seasons/{season_id}/standings")]
pub async fn get_season_standings(
    pool: ReadPool,
    req: HttpRequest,
    Caller(who): Caller,
    path: web::Path<(Uuid, Uuid)>,
    query: web::Query<StandingsQuery>,
) -> Result<HttpResponse, ApiError> {
    season_standings(&pool, who, *path, export::wants_csv(&req, query.format)).await
}

/// The season's league table as CSV: one row per member, with their place, nights, tables and
/// per-game figures.
#[utoipa::path(tag = "seasons", params(("id" = Uuid, Path, description = "the club"), ("season_id" = Uuid, Path)), security(("bearer" = [])), responses(
    (status = 200, description = "a header row, then a row per member", content((String = "text/csv", example = "place,member_id,name,nights,tables,points\r\n1,5d0c…,Ann,3,6,41\r\n"))),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found` (no such club, or not one of the caller's), `season_not_found` (not a season of this club)", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`table_damaged`: what is stored of a table no longer reads; the problem names it", body = Problem, content_type = "application/problem+json"),
))]
#[get("/clubs/{id}/seasons/{season_id}/standings.csv")]
pub async fn get_season_standings_csv(
    pool: ReadPool,
    Caller(who): Caller,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    season_standings(&pool, who, *path, true).await
}

/// What the audit of a season found.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct SeasonAuditReport {
    pub season_id: Uuid,
    /// True when nothing below was found.
    pub consistent: bool,
    /// The club's sessions whose chains and records were checked.
    pub sessions_checked: usize,
    /// The tables of the club's sessions opened within the season (of any game, so that a
    /// table whose game was changed is audited too), each as `GET /tables/{id}/audit` does.
    pub tables_audited: usize,
    /// A sentence per discrepancy: a season or session changed outside the service names the
    /// fields, a table's findings are prefixed with the table.
    pub problems: Vec<String>,
}

/// Audits what the season's league table rests on: the season's settings against its hash
/// chain, the chain and record (chip value, club, date, roster) of each session of the club, and
/// every table of the club's sessions opened within it, replayed in full.
#[utoipa::path(tag = "seasons", params(("id" = Uuid, Path, description = "the club"), ("season_id" = Uuid, Path)), security(("bearer" = [])), responses(
    (status = 200, description = "the findings", body = SeasonAuditReport),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found` (no such club, or not one of the caller's), `season_not_found` (not a season of this club)", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`table_damaged`: what is stored of a table no longer reads; the problem names it", body = Problem, content_type = "application/problem+json"),
))]
#[get("/clubs/{id}/seasons/{season_id}/audit")]
pub async fn audit_season(
    pool: ReadPool,
    Caller(who): Caller,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let user = who.organiser()?;
    let (club, season) = *path;
    let found = service::audit(&pool, user, club, season).await?;
    Ok(HttpResponse::Ok().json(SeasonAuditReport {
        season_id: found.season.id,
        consistent: found.problems.is_empty(),
        sessions_checked: found.sessions_checked,
        tables_audited: found.tables_audited,
        problems: found.problems,
    }))
}

async fn season_standings(
    pool: &PgPool,
    who: Principal,
    (club, season): (Uuid, Uuid),
    csv: bool,
) -> Result<HttpResponse, ApiError> {
    let user = who.organiser()?;
    let standings = service::standings(pool, user, club, season).await?;
    let rows: Vec<SeasonStandingRow> = standings.rows.iter().map(SeasonStandingRow::of).collect();
    if csv {
        return standings_csv(&standings.season, &rows);
    }
    Ok(HttpResponse::Ok().json(SeasonStandings {
        season: Season::of(&standings.season)?,
        session_ids: standings.sessions.iter().map(|s| s.id).collect(),
        rows,
    }))
}

fn league_cell(points: Option<f64>) -> Cell {
    points
        .and_then(serde_json::Number::from_f64)
        .map_or_else(|| Cell::text(""), Cell::Number)
}

/// One row per member; after the totals, five columns per game of the season, in its order.
fn standings_csv(season: &SeasonRow, rows: &[SeasonStandingRow]) -> Result<HttpResponse, ApiError> {
    let mut header: Vec<String> = [
        "place",
        "member_id",
        "name",
        "nights",
        "tables",
        "wins",
        "league_points",
        "points",
        "net_chips",
    ]
    .map(String::from)
    .to_vec();
    for game in &season.games {
        for column in ["tables", "wins", "league_points", "points", "net_chips"] {
            header.push(format!("{game} {column}"));
        }
    }
    let lines: Vec<Vec<Cell>> = rows
        .iter()
        .map(|r| {
            let mut line = vec![
                Cell::int(i64::from(r.place)),
                Cell::text(r.member_id.to_string()),
                Cell::text(r.name.clone()),
                Cell::int(i64::from(r.nights)),
                Cell::int(i64::from(r.tables)),
                Cell::int(i64::from(r.wins)),
                league_cell(r.league_points),
                Cell::opt_int(r.points),
                Cell::opt_int(r.net_chips),
            ];
            for game in &season.games {
                match r.by_game.get(game) {
                    Some(f) => line.extend([
                        Cell::int(i64::from(f.tables)),
                        Cell::int(i64::from(f.wins)),
                        league_cell(f.league_points),
                        Cell::opt_int(f.points),
                        Cell::opt_int(f.net_chips),
                    ]),
                    None => line.extend([
                        Cell::int(0),
                        Cell::int(0),
                        Cell::text(""),
                        Cell::text(""),
                        Cell::text(""),
                    ]),
                }
            }
            line
        })
        .collect();
    export::respond(&format!("season-{}-standings.csv", season.id), &header, &lines)
}

/// A club member as their history shows them.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct HistoryMember {
    pub id: Uuid,
    pub name: String,
    /// `owner`, `organiser`, `treasurer`, `scorer` or `viewer`; null for a player without an
    /// account.
    #[schema(example = "organiser")]
    pub role: Option<String>,
    pub guest: bool,
    /// False once the member has left.
    pub active: bool,
    pub joined_at: DateTime<Utc>,
}

fn role_name(role: ClubRole) -> String {
    match role {
        ClubRole::Owner => "owner",
        ClubRole::Organiser => "organiser",
        ClubRole::Treasurer => "treasurer",
        ClubRole::Scorer => "scorer",
        ClubRole::Viewer => "viewer",
    }
    .to_owned()
}

/// One seat the member held.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct HistorySeat {
    pub table_id: Uuid,
    pub game: String,
    pub seat: u8,
    pub finished: bool,
    /// The score sheet's total at a points game; null at a chips game.
    pub points: Option<i64>,
    /// Chips won (positive) or lost, net of what the bank issued to the seat; null at a points
    /// game.
    pub net_chips: Option<i64>,
    /// Place at the table once it is finished (1 is first; tied seats share the best of their
    /// places); null before.
    pub place: Option<u32>,
    /// How many seats share that place.
    pub tied: u32,
}

impl HistorySeat {
    fn of(s: &SeatResult) -> HistorySeat {
        HistorySeat {
            table_id: s.table,
            game: s.game.clone(),
            seat: s.seat,
            finished: s.finished,
            points: s.points,
            net_chips: s.chips,
            place: s.place,
            tied: s.tied,
        }
    }
}

/// A session the member was on the roster of.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct HistorySession {
    pub session_id: Uuid,
    pub name: String,
    pub started_at: DateTime<Utc>,
    /// Chips won or lost there, over every table.
    pub net_chips: i64,
    pub seats: Vec<HistorySeat>,
}

/// Where the member stands in the season under way.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct HistorySeason {
    pub season: Season,
    /// Null until the member sits at a counted table.
    pub place: Option<u32>,
    /// How many members the season's table ranks.
    pub ranked: usize,
    pub nights: u32,
    pub tables: u32,
    pub league_points: Option<f64>,
    pub points: Option<i64>,
    pub net_chips: Option<i64>,
}

/// A member's history.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct MemberHistory {
    pub member: HistoryMember,
    /// Oldest first.
    pub sessions: Vec<HistorySession>,
    /// Per game id, over every table the member sat at, finished or not (places and wins only
    /// at finished ones).
    pub by_game: BTreeMap<String, Figures>,
    /// Chips won (positive) or lost over every table.
    pub net_chips: i64,
    /// The season under way today (UTC), the latest to start when several are; null when none is.
    pub season: Option<HistorySeason>,
}

/// A member's history (the club's members): sessions, results per game, chips won or lost, and
/// place in the season under way.
#[utoipa::path(tag = "seasons", params(("id" = Uuid, Path, description = "the club"), ("member_id" = Uuid, Path)), security(("bearer" = [])), responses(
    (status = 200, body = MemberHistory),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found` (no such club, or not one of the caller's), `member_not_found` (not a member of this club)", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`table_damaged`: what is stored of a table no longer reads; the problem names it", body = Problem, content_type = "application/problem+json"),
))]
#[get("/clubs/{id}/members/{member_id}")]
pub async fn get_member_history(
    pool: ReadPool,
    Caller(who): Caller,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let user = who.organiser()?;
    let (club, member) = *path;
    let history = service::member_history(&pool, user, club, member).await?;
    let m = &history.member;
    let season = match &history.season {
        Some(place) => {
            let row = place.row.as_ref().map(SeasonStandingRow::of);
            Some(HistorySeason {
                season: Season::of(&place.season)?,
                place: row.as_ref().map(|r| r.place),
                ranked: place.ranked,
                nights: row.as_ref().map_or(0, |r| r.nights),
                tables: row.as_ref().map_or(0, |r| r.tables),
                league_points: row.as_ref().and_then(|r| r.league_points),
                points: row.as_ref().and_then(|r| r.points),
                net_chips: row.as_ref().and_then(|r| r.net_chips),
            })
        }
        None => None,
    };
    Ok(HttpResponse::Ok().json(MemberHistory {
        member: HistoryMember {
            id: m.id,
            name: m.name.clone(),
            role: m.role.map(role_name),
            guest: m.guest,
            active: m.left_at.is_none(),
            joined_at: m.created_at,
        },
        sessions: history
            .sessions
            .iter()
            .map(|s| HistorySession {
                session_id: s.session.id,
                name: s.session.name.clone(),
                started_at: s.session.created_at,
                net_chips: s.seats.iter().filter_map(|seat| seat.chips).sum(),
                seats: s.seats.iter().map(HistorySeat::of).collect(),
            })
            .collect(),
        by_game: history
            .by_game
            .iter()
            .map(|(g, f)| (g.clone(), Figures::of(f)))
            .collect(),
        net_chips: history.total.chips.unwrap_or(0),
        season,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn league_points_are_shown_to_two_decimal_places() {
        for (units, shown_as) in [
            (0, 0.0),
            (LEAGUE_UNIT * 3 / 2, 1.5),
            (LEAGUE_UNIT / 3, 0.33),
            (LEAGUE_UNIT * 2 / 3, 0.67),
            (LEAGUE_UNIT * 15 / 2, 7.5),
            (LEAGUE_UNIT / 8, 0.13),
        ] {
            assert_eq!(shown(units), shown_as, "{units}");
        }
    }
}
