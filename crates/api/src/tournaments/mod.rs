//! Tournaments (events, issue #41): a session's evening of rounds, seated by the movement
//! engine, each round's tables opened as ordinary tables; guide cards and results.

use super::answers::Made;
use actix_web::{delete, get, post, put, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::auth::{Caller, Reads};
use super::error::{ApiError, Problem};
use super::export::{self, Cell};
use super::reads::ReadPool;
use crate::State;
use tablekeeper_rules::GameId;
use tablekeeper_service::tournaments::{self as service, FormatSpec, Leftover, Moves, Unfinished};

mod views;
pub use views::*;

/// Starts a tournament in the session (organisers only): its entrants, format, rounds and
/// scoring checked by the movement engine against the game's seat range before anything is
/// stored. Send an `Idempotency-Key` to retry safely.
#[utoipa::path(tag = "tournaments", request_body = CreateTournament, security(("bearer" = [])),
    params(
        ("id" = Uuid, Path, description = "the session"),
        ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key and body returns the first answer and creates nothing"),
    ),
    responses(
    (status = 201, body = TournamentView, headers(
        ("Location" = String, description = "the tournament's address"),
        ("Idempotent-Replayed" = Option<String>, description = "`true` when this is the first answer to an earlier request with the same `Idempotency-Key`"),
    )),
    (status = 400, description = "`malformed_json`, `invalid_idempotency_key`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token, or a role in the club that does not run sessions", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`session_not_found`", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`session_final`: the session is final (closed, its correction window run)", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`unknown_variant` (a `leftover`, `unfinished` or other named value not among those listed), `invalid_name`, `unknown_game`, `invalid_options`, `invalid_option`, `invalid_scoring`, `invalid_tournament` (rounds, deals, minutes or seats out of range), `invalid_members` (not a member of the session's club, entered twice, or named in a constraint without being entered), the movement's refusals (`too_few_entrants`: a format the game cannot seat, `apart_unsatisfiable`, `stay_unsatisfiable`, `apart_not_seatable`, `partnerships_not_seatable`, `not_in_a_partnership`, …), `idempotency_key_reused`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/sessions/{id}/tournaments")]
pub async fn create_tournament(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    id: web::Path<Uuid>,
    body: web::Json<CreateTournament>,
) -> Result<HttpResponse, ApiError> {
    let account = who.organiser()?;
    let name = super::input::display_name(&body.name, 200).ok_or_else(|| {
        ApiError::unprocessable(
            "invalid_name",
            "a tournament name is 1 to 200 characters, without control characters",
        )
    })?;
    let game = GameId::parse(&body.game).ok_or_else(|| {
        ApiError::unprocessable(
            "unknown_game",
            format!("there is no game `{}`; see GET /games", body.game),
        )
    })?;
    let scoring = scoring_rules(&body.scoring)?;
    let format = match &body.format {
        TournamentFormat::Progressive { moves } => FormatSpec::Progressive(match moves {
            MoveRule::Winner => Moves::Winner,
            MoveRule::TopTwo => Moves::TopTwo,
            MoveRule::WinnersUpLosersDown => Moves::WinnersUpLosersDown,
        }),
        TournamentFormat::Rotation => FormatSpec::Rotation,
        TournamentFormat::Fixed => FormatSpec::Fixed,
        TournamentFormat::Swiss { partnerships } => FormatSpec::Swiss {
            partnerships: partnerships.clone(),
        },
    };
    let session = *id;
    let key = super::tables::creation_key(&req, "create_tournament", || serde_json::to_value((&*body, session)))?;
    let new = service::NewTournament {
        name: name.to_owned(),
        game,
        options: body.options.clone(),
        format,
        seats: body.seats.map(|s| (s.min, s.max)),
        rounds: body.rounds,
        deals_per_round: body.deals_per_round,
        minutes_per_round: body.minutes_per_round,
        entrants: body.entrants.clone(),
        apart: body.constraints.apart.clone(),
        stay: body.constraints.stay.iter().map(|s| (s.member_id, s.table)).collect(),
        scoring,
        unfinished: match body.unfinished.unwrap_or(UnfinishedRule::AsPlayed) {
            UnfinishedRule::AsPlayed => Unfinished::AsPlayed,
            UnfinishedRule::Average => Unfinished::Average,
            UnfinishedRule::Void => Unfinished::Void,
        },
        leftover: body.leftover.map(leftover_rule),
    };
    let render = |t: service::Tournament| {
        let made = view(&t);
        Ok(Made::created(&made)?.at(format!("/api/v1/tournaments/{}", t.row.id)))
    };
    let outcome = service::create(
        &state.pool,
        account,
        session,
        new,
        state.clock.now(),
        key.as_ref(),
        render,
    )
    .await?;
    super::answers::created(outcome, "/api/v1/tournaments")
}

/// The session's tournaments, oldest first, each with its rounds and standings.
#[utoipa::path(tag = "tournaments", security(("bearer" = [])), params(("id" = Uuid, Path, description = "the session")), responses(
    (status = 200, body = TournamentList),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`session_not_found`: no such session, or the caller may not read it", body = Problem, content_type = "application/problem+json"),
))]
#[get("/sessions/{id}/tournaments")]
pub async fn list_tournaments(
    pool: ReadPool,
    Reads(who): Reads,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    tablekeeper_service::access::readable_session(&pool, who, *id).await?;
    let all = service::of_session(&pool, *id).await?;
    Ok(HttpResponse::Ok().json(TournamentList {
        items: all.iter().map(view).collect(),
    }))
}

/// A tournament with its entrants, rounds (tables, seats, results) and standings.
#[utoipa::path(tag = "tournaments", security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 200, body = TournamentView),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`tournament_not_found`: no such tournament, or the caller may not read its session", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tournaments/{id}")]
pub async fn get_tournament(pool: ReadPool, Reads(who): Reads, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let t = service::get(&pool, who, *id).await?;
    Ok(HttpResponse::Ok().json(view(&t)))
}

/// Starts the next round (organisers only): the movement seats it from the closed rounds'
/// results, and its tables are opened in the session as ordinary tables (the game, its options,
/// seats by member), announced on the session's stream and to `tournament.round_started`
/// webhooks. Send an `Idempotency-Key` to retry safely: a retry with the same key gets the first
/// answer and starts nothing.
#[utoipa::path(tag = "tournaments", security(("bearer" = [])), params(
        ("id" = Uuid, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key returns the first answer and starts nothing"),
    ), responses(
    (status = 201, body = StartedRound, headers(
        ("Location" = String, description = "the tournament's address"),
        ("Idempotent-Replayed" = Option<String>, description = "`true` when this is the first answer to an earlier request with the same `Idempotency-Key`"),
    )),
    (status = 400, description = "`invalid_idempotency_key`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token, or a role that does not run sessions", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`tournament_not_found`", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`round_open`: a round is still open; `tournament_finished`: every round was played; `session_final`: the session is final", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "the movement's refusals: `too_few_entrants`, `apart_not_seatable`, `stay_unsatisfiable`, `partner_absent`, …; `idempotency_key_reused`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/tournaments/{id}/rounds")]
pub async fn start_round(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let account = who.organiser()?;
    let tournament = *id;
    let key = super::tables::creation_key(&req, "start_round", || serde_json::to_value(tournament))?;
    let render = |started: service::StartedRound| {
        let round = round_view(&started.round);
        Ok(Made::created(&StartedRound {
            round: round.round,
            tables: round.tables,
            byes: round.byes,
        })?
        .at(format!("/api/v1/tournaments/{tournament}")))
    };
    let outcome = service::start_round(
        &state.pool,
        account,
        tournament,
        state.clock.now(),
        key.as_ref(),
        render,
    )
    .await?;
    super::answers::respond(outcome, |_| Some(format!("/api/v1/tournaments/{tournament}")))
}

/// Closes round `n` (organisers only): each table's result is taken from its score sheet (the
/// game's points) or ledger (net chips); a table short of `deals_per_round` is scored as the
/// tournament's `unfinished` rule says and named so. After the last round the tournament is
/// finished and `tournament.finished` sent with the standings.
#[utoipa::path(tag = "tournaments", security(("bearer" = [])), params(("id" = Uuid, Path), ("n" = u32, Path, description = "the round")), responses(
    (status = 200, body = TournamentView),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token, or a role that does not run sessions", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`tournament_not_found`, `round_not_found` (not started)", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`round_closed`: closed already; `table_damaged`; `session_final`: the session is final", body = Problem, content_type = "application/problem+json"),
))]
#[post("/tournaments/{id}/rounds/{n}/close")]
pub async fn close_round(
    state: web::Data<State>,
    Caller(who): Caller,
    path: web::Path<(Uuid, u32)>,
) -> Result<HttpResponse, ApiError> {
    let account = who.organiser()?;
    let (id, n) = *path;
    let t = service::close_round(&state.pool, account, id, n, state.clock.now()).await?;
    Ok(HttpResponse::Ok().json(view(&t)))
}

/// Enters a club member late (organisers only): they play from the next round to be started,
/// scored before it as the scoring's `late` says.
#[utoipa::path(tag = "tournaments", security(("bearer" = [])), params(("id" = Uuid, Path)), request_body = AddEntrant, responses(
    (status = 201, body = TournamentView, headers(("Location" = String, description = "the tournament's address"))),
    (status = 400, description = "`malformed_json`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token, or a role that does not run sessions", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`tournament_not_found`", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`already_entered`, `tournament_finished`, `session_final`", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`invalid_members`: not a member of the session's club; `invalid_body`, `unknown_field`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/tournaments/{id}/entrants")]
pub async fn add_entrant(
    state: web::Data<State>,
    Caller(who): Caller,
    id: web::Path<Uuid>,
    body: web::Json<AddEntrant>,
) -> Result<HttpResponse, ApiError> {
    let account = who.organiser()?;
    let t = service::enter(&state.pool, account, *id, body.member_id, state.clock.now()).await?;
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/api/v1/tournaments/{}", t.row.id)))
        .json(view(&t)))
}

/// Withdraws an entrant (organisers only) from the next round to be started on; an open round
/// they sit in is theirs to finish, and rounds after score nothing.
#[utoipa::path(tag = "tournaments", security(("bearer" = [])), params(("id" = Uuid, Path), ("member_id" = Uuid, Path)), responses(
    (status = 200, body = TournamentView),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token, or a role that does not run sessions", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`tournament_not_found`, `entrant_not_found` (not entered, or withdrawn already)", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`tournament_finished`, `session_final`", body = Problem, content_type = "application/problem+json"),
))]
#[delete("/tournaments/{id}/entrants/{member_id}")]
pub async fn withdraw_entrant(
    state: web::Data<State>,
    Caller(who): Caller,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let account = who.organiser()?;
    let (id, member) = *path;
    let t = service::withdraw(&state.pool, account, id, member, state.clock.now()).await?;
    Ok(HttpResponse::Ok().json(view(&t)))
}

fn place_view(p: &service::Place) -> GuidePlace {
    let with: Vec<SeatmateView> = p
        .with
        .iter()
        .map(|(m, name)| SeatmateView {
            member_id: *m,
            name: name.clone(),
        })
        .collect();
    let names: Vec<&str> = with.iter().map(|w| w.name.as_str()).collect();
    let text = match (p.table, p.seat) {
        (Some((table, _)), Some(seat)) => format!(
            "Round {}: table {table}, seat {seat}{}, with {}",
            p.round,
            if seat == 1 { " (dealer first)" } else { "" },
            names.join(", ")
        ),
        _ => format!("Round {}: a bye", p.round),
    };
    GuidePlace {
        round: p.round,
        table: p.table.map(|(n, _)| n),
        table_id: p.table.map(|(_, id)| id),
        seat: p.seat,
        bye: p.table.is_none(),
        with,
        text,
    }
}

/// A member's guide card: where they sit now (the open round, else the last started) and next,
/// when the next round is known.
#[utoipa::path(tag = "tournaments", security(("bearer" = [])), params(("id" = Uuid, Path), ("member_id" = Uuid, Path)), responses(
    (status = 200, body = GuideCard),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`tournament_not_found`, `entrant_not_found`", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tournaments/{id}/guide/{member_id}")]
pub async fn get_guide_card(
    pool: ReadPool,
    Reads(who): Reads,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let (id, member) = *path;
    let g = service::guide(&pool, who, id, member).await?;
    Ok(HttpResponse::Ok().json(GuideCard {
        member_id: g.member_id,
        name: g.name,
        now: g.now.as_ref().map(place_view),
        next: g.next.as_ref().map(place_view),
        next_pending: g.next_pending,
    }))
}

/// The tournament's results: the standings (ties broken by rounds won, then head to head, then
/// shared) and every round's tables and scores, unfinished tables named.
#[utoipa::path(tag = "tournaments", security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 200, body = TournamentResults),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`tournament_not_found`", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tournaments/{id}/results")]
pub async fn get_tournament_results(
    pool: ReadPool,
    Reads(who): Reads,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let t = service::get(&pool, who, *id).await?;
    Ok(HttpResponse::Ok().json(TournamentResults {
        tournament_id: t.row.id,
        name: t.row.name.clone(),
        finished: t.finished(),
        standings: standings_view(&t),
        rounds: t.rounds.iter().map(round_view).collect(),
        reopenings: crate::sessions::reopenings(
            &tablekeeper_service::closing::reopenings(&pool, t.row.session_id).await?,
        ),
    }))
}

/// The standings as CSV: a row per entrant, best first.
#[utoipa::path(tag = "tournaments", security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 200, description = "a header row, then a row per entrant", content((String = "text/csv", example = "place,member_id,name,total,rounds_won,head_to_head,played,byes,missed\r\n1,5d0c…,Ann,41,3,0,4,0,0\r\n"))),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`tournament_not_found`", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tournaments/{id}/results.csv")]
pub async fn get_tournament_results_csv(
    pool: ReadPool,
    Reads(who): Reads,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let t = service::get(&pool, who, *id).await?;
    let header: Vec<String> = [
        "place",
        "member_id",
        "name",
        "total",
        "rounds_won",
        "head_to_head",
        "played",
        "byes",
        "missed",
    ]
    .map(String::from)
    .to_vec();
    let rows: Vec<Vec<Cell>> = standings_view(&t)
        .into_iter()
        .map(|s| {
            vec![
                Cell::int(i64::from(s.place)),
                Cell::text(s.member_id.to_string()),
                Cell::text(s.name),
                total_cell(s.total),
                Cell::int(i64::from(s.rounds_won)),
                Cell::int(s.head_to_head),
                Cell::int(i64::from(s.played)),
                Cell::int(i64::from(s.byes)),
                Cell::int(i64::from(s.missed)),
            ]
        })
        .collect();
    export::respond(&format!("tournament-{}-results.csv", t.row.id), &header, &rows)
}

/// The next round's tables as starting it now would seat them (a dry run of
/// `POST /tournaments/{id}/rounds`): nothing is opened or stored, so the organiser can look
/// before starting.
#[utoipa::path(tag = "tournaments", security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 200, body = PlannedRound),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`tournament_not_found`: no such tournament, or the caller may not read its session", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`round_open`: a round is still open; `tournament_finished`: every round was played; `session_final`: the session is final", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "the movement's refusals: `too_few_entrants`, `apart_not_seatable`, `stay_unsatisfiable`, `partner_absent`, …", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tournaments/{id}/rounds/next")]
pub async fn get_next_round(pool: ReadPool, Reads(who): Reads, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let planned = service::planned_round(&pool, who, *id).await?;
    Ok(HttpResponse::Ok().json(PlannedRound {
        round: planned.number,
        tables: planned
            .tables
            .iter()
            .map(|t| PlannedTable {
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
            })
            .collect(),
        byes: planned.byes.iter().map(|(m, _)| *m).collect(),
    }))
}

/// The service's rule for the one named.
pub(crate) fn leftover_rule(rule: LeftoverRule) -> Leftover {
    match rule {
        LeftoverRule::Keep => Leftover::Keep,
        LeftoverRule::Share => Leftover::Share,
        LeftoverRule::Bank => Leftover::Bank,
        LeftoverRule::Carry => Leftover::Carry,
    }
}

/// The club's rule for the chips a stops game's pools hold when a tournament's round closes,
/// which a tournament naming no `leftover` takes as it is made.
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"leftover": "carry"}))]
pub struct ClubLeftover {
    pub leftover: LeftoverRule,
}

/// The club's leftover rule (any member): `keep` until the club sets another.
#[utoipa::path(tag = "clubs", params(("id" = Uuid, Path)), security(("bearer" = [])), responses(
    (status = 200, body = ClubLeftover),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found`: no such club, or the caller is not a member", body = Problem, content_type = "application/problem+json"),
))]
#[get("/clubs/{id}/leftover")]
pub async fn get_club_leftover(
    state: web::Data<State>,
    Caller(who): Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let rule = service::leftover(&state.pool, who.organiser()?, *id).await?;
    Ok(HttpResponse::Ok().json(ClubLeftover {
        leftover: leftover_view(rule),
    }))
}

/// Sets the club's leftover rule (whoever runs the club: owners and those who manage its
/// members; not a personal API token): tournaments made later that name none take it, those
/// made already keep theirs.
#[utoipa::path(tag = "clubs", params(("id" = Uuid, Path)), request_body = ClubLeftover, security(("bearer" = [])), responses(
    (status = 200, body = ClubLeftover),
    (status = 400, description = "`malformed_json`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a role that does not run the club, a personal API token or a scorer token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`club_not_found`", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`unknown_variant` (not `keep`, `share`, `bank` or `carry`), `invalid_body`, `unknown_field`", body = Problem, content_type = "application/problem+json"),
))]
#[put("/clubs/{id}/leftover")]
pub async fn set_club_leftover(
    state: web::Data<State>,
    Caller(who): Caller,
    id: web::Path<Uuid>,
    body: web::Json<ClubLeftover>,
) -> Result<HttpResponse, ApiError> {
    let rule = service::set_leftover(&state.pool, who.organiser()?, *id, leftover_rule(body.leftover)).await?;
    Ok(HttpResponse::Ok().json(ClubLeftover {
        leftover: leftover_view(rule),
    }))
}
