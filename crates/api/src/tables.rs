//! Tables: creation, state, the move log, undo and scores (join codes: `join_codes`).
//!
//! Handlers parse and render; opening, reading and recording are `tablekeeper_service` use cases.

use super::answers::Made;
use crate::State;
use actix_web::http::StatusCode;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tablekeeper_service::PgPool;
use tracing::Instrument;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::auth::{Caller, Claimed, Reader, Reads};
use super::error::{ApiError, Problem};
use super::game_schemas::{AnyEvent, AnyMove, AnyOptions, AnyScoreSheet, AnyView};
use super::reads::ReadPool;
use super::seating::{Members, SeatMember};
use tablekeeper_rules::GameId;
use tablekeeper_service::idempotency::CreationKey;
use tablekeeper_service::receipts::Receipt;
use tablekeeper_service::recording::{self, Recorded, Recording};
use tablekeeper_service::tables::{self as use_case, NewTable, ScoreSheet, TableState};
use tablekeeper_service::tables::{MoveRow, TableRow};

#[derive(Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTable {
    /// A game id from `GET /games`.
    #[schema(example = "nomination-whist")]
    pub game: String,
    /// Player names in seat order: seat 0 first, play passing to the next seat (the left).
    #[schema(example = json!(["Ann", "Bob", "Cat", "Dan"]))]
    pub players: Vec<String>,
    /// The game's options; anything left out takes its default.
    #[schema(value_type = Option<AnyOptions>)]
    pub options: Option<Value>,
    /// The session the table belongs to, if any (it must be the caller's).
    pub session_id: Option<Uuid>,
    /// The session's member (`GET /sessions/{id}`) at a seat, for the seats whose member is
    /// named, so that a player is the same person at every table however the name is typed.
    /// At a seat not listed (or with `members` left out), the player's name finds the member of
    /// that name (case and spacing aside), or joins the roster as a new one.
    #[schema(value_type = Option<Vec<SeatMember>>)]
    pub members: Option<Members>,
    /// The club the table belongs to, for a table outside a session: the caller must be one of
    /// its organisers or owners. Left out, the caller's own club (the oldest they own; made for
    /// them when they own none). With a session, the session's club: naming another is refused.
    pub club_id: Option<Uuid>,
}

/// A table with its state as a scorer's phone needs it.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct TableView {
    pub id: Uuid,
    pub game: GameId,
    pub session_id: Option<Uuid>,
    pub players: Vec<String>,
    /// The options in force, defaults filled in.
    #[schema(value_type = AnyOptions)]
    pub options: Value,
    /// Bumped by every entry in the move log; send it back as `expected_version`.
    pub version: i64,
    pub finished: bool,
    /// The hash (hex SHA-256) of the last link of the table's hash chain over its set-up, log
    /// and ledger; null for a table stored before the chain until its next entry. See
    /// `GET /tables/{id}/audit`, and the `receipt` of an answer that extends the chain.
    pub chain_head: Option<String>,
    /// The session's members in seat order (null outside a session, or for a table stored
    /// before the roster).
    pub members: Option<Vec<Uuid>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// The game's state: whose turn, what is legal next, running scores.
    #[schema(value_type = AnyView)]
    pub state: Value,
    /// In the answer that opens the table: the audit key's signature on its chain's set-up
    /// (the session and each seat's member); keep it, see `tablekeeper verify --receipts`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt: Option<Receipt>,
}

impl From<TableState> for TableView {
    fn from(t: TableState) -> TableView {
        let TableState { row, game, view } = t;
        TableView {
            id: row.id,
            game,
            session_id: row.session_id,
            players: row.players,
            options: row.options,
            version: row.version,
            finished: row.finished,
            chain_head: row.chain_head.as_deref().map(tablekeeper_service::chain::hex),
            members: row.members,
            created_at: row.created_at,
            updated_at: row.updated_at,
            state: view,
            receipt: None,
        }
    }
}

/// A table in a list.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct TableSummary {
    pub id: Uuid,
    pub game: String,
    pub session_id: Option<Uuid>,
    pub players: Vec<String>,
    pub version: i64,
    pub finished: bool,
    pub created_at: DateTime<Utc>,
}

impl From<TableRow> for TableSummary {
    fn from(t: TableRow) -> TableSummary {
        TableSummary {
            id: t.id,
            game: t.game,
            session_id: t.session_id,
            players: t.players,
            version: t.version,
            finished: t.finished,
            created_at: t.created_at,
        }
    }
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct TablePage {
    pub items: Vec<TableSummary>,
    pub next_offset: Option<i64>,
}

/// One move, as recorded at the table.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"move": {"kind": "play", "seat": 1, "card": "QS"}, "expected_version": 7}))]
pub struct SubmitMove {
    /// The move; its shape depends on the table's game.
    #[serde(rename = "move")]
    #[schema(value_type = AnyMove)]
    pub mv: Value,
    /// The table version the client saw; when it is stale the move is refused with 409.
    pub expected_version: Option<i64>,
    /// The deal (1-based, as on the score sheet) the move is meant for; when another deal is
    /// being recorded the move is refused with `409 deal_mismatch`. Send it with a result entry
    /// and the first move of a deal, so a result posted twice is not booked as the next deal.
    #[schema(minimum = 1, example = 3)]
    pub deal: Option<u16>,
}

#[derive(Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct UndoRequest {
    pub expected_version: Option<i64>,
}

/// An entry of the move log.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct MoveRecord {
    /// The table's game: what `move` and `events` are shaped by.
    pub game: GameId,
    /// Position in the log, from 1.
    pub seq: i64,
    /// `move`, `void` for an undo, `correction` (of a finished deal: its `move` is
    /// `{"deal", "moves", "reason"}`; the moves it brought come just before it), or `ruling`
    /// (a director's ruling, its `kind` the ruling's, or a phone's answer to one, `kind`
    /// `response`; neither is a move of the game).
    #[schema(example = "move")]
    pub entry: String,
    #[schema(example = "play")]
    pub kind: String,
    pub seat: Option<i16>,
    /// The move as submitted; for a correction entry its correction; for a void, the entry it
    /// voids.
    #[serde(rename = "move")]
    #[schema(schema_with = super::game_schemas::logged_move)]
    pub mv: Value,
    /// What the move caused, in order.
    #[schema(value_type = Vec<AnyEvent>)]
    pub events: Value,
    /// For a void: the seq of the move it voids.
    pub voids: Option<i64>,
    /// For a move that was undone: the seq of the void.
    pub voided_by: Option<i64>,
    /// For a move a correction brought: the correction's seq.
    pub part_of: Option<i64>,
    /// For a move a correction replaced: the latest correction that did (see its `voided_by`
    /// for whether that still holds).
    pub superseded_by: Option<i64>,
    #[schema(example = "organiser:6f1c0d1e-5b1a-4f55-9d6e-0a4c4f6d2b11")]
    pub recorded_by: String,
    pub recorded_at: DateTime<Utc>,
}

impl MoveRecord {
    /// A log entry of a table that plays `game`.
    pub fn new(game: GameId, m: MoveRow) -> MoveRecord {
        MoveRecord {
            game,
            seq: m.seq,
            entry: m.entry,
            kind: m.kind,
            seat: m.seat,
            mv: m.body,
            events: m.events,
            voids: m.voids_seq,
            voided_by: m.voided_by,
            part_of: m.part_of,
            superseded_by: m.superseded_by,
            recorded_by: m.recorded_by,
            recorded_at: m.recorded_at,
        }
    }
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct MoveResponse {
    #[serde(rename = "move")]
    pub mv: MoveRecord,
    pub table: TableView,
    /// The audit key's signature on the table's chain as this move leaves it: keep it (the
    /// phone page does) and give it to `tablekeeper verify --receipts`, which finds a chain
    /// rolled back or rewritten after it.
    pub receipt: Receipt,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct UndoResponse {
    /// The new log entry.
    pub void: MoveRecord,
    /// The move it voided, now marked `voided_by`.
    pub undone: MoveRecord,
    pub table: TableView,
    /// The audit key's signature on the table's chain as the void leaves it.
    pub receipt: Receipt,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct MovePage {
    pub items: Vec<MoveRecord>,
    /// Pass as `after` for the next page; null on the last page.
    pub next_after: Option<i64>,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct Scores {
    pub table_id: Uuid,
    pub game: GameId,
    pub players: Vec<String>,
    pub version: i64,
    #[schema(value_type = AnyScoreSheet)]
    pub sheet: Value,
    /// At a points game with a director's rulings, what they change: the sheet is the deals as
    /// played, these are the totals the standings count. Left out when the rulings change
    /// nothing, and at a chip game (its rulings are booked in its ledger).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rulings: Option<RuledTotals>,
}

/// A points game's totals after its director's rulings.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct RuledTotals {
    /// What the rulings add to each seat's total (negative: take away), in seat order.
    pub adjustments: Vec<i64>,
    /// Each seat's total as played plus its adjustment: what the session's standings count.
    pub totals: Vec<i64>,
}

impl RuledTotals {
    /// A points game's sheet's totals after its rulings; None without any.
    fn of(s: &ScoreSheet) -> Option<RuledTotals> {
        let adjustments = s.ruled.clone()?;
        let played = s.sheet.get("totals").and_then(Value::as_array);
        let totals = adjustments
            .iter()
            .enumerate()
            .map(|(i, a)| played.and_then(|t| t.get(i)).and_then(Value::as_i64).unwrap_or(0) + a)
            .collect();
        Some(RuledTotals { adjustments, totals })
    }
}

impl From<ScoreSheet> for Scores {
    fn from(s: ScoreSheet) -> Scores {
        let rulings = RuledTotals::of(&s);
        Scores {
            table_id: s.row.id,
            game: s.game,
            players: s.row.players,
            version: s.row.version,
            sheet: s.sheet,
            rulings,
        }
    }
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct TableQuery {
    /// Only this session's tables (no token needed).
    pub session_id: Option<Uuid>,
    /// Deprecated: the old name of `session_id`, still accepted.
    #[deprecated(note = "use session_id")]
    pub session: Option<Uuid>,
    pub limit: Option<i64>,
    pub offset: Option<i64>,
}

impl TableQuery {
    /// The session filter under either name; 400 `invalid_query` when the two disagree.
    fn session_filter(&self) -> Result<Option<Uuid>, ApiError> {
        #[expect(deprecated, reason = "the old name is still accepted")]
        let old = self.session;
        match (self.session_id, old) {
            (Some(new), Some(old)) if new != old => Err(ApiError::bad_request(
                "invalid_query",
                "session and session_id name different sessions; send session_id only",
            )),
            (new, old) => Ok(new.or(old)),
        }
    }
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct LogQuery {
    /// Entries after this seq (default 0: from the start).
    pub after: Option<i64>,
    /// 1 to 500; default 100.
    pub limit: Option<i64>,
}

fn validate_players(players: &[String]) -> Result<Vec<String>, ApiError> {
    players
        .iter()
        .map(|name| {
            super::input::display_name(name, 60).map(str::to_owned).ok_or_else(|| {
                ApiError::unprocessable(
                    "invalid_player_name",
                    "a player name is 1 to 60 characters, without control characters",
                )
            })
        })
        .collect()
}

/// Opens a table for a game. Send an `Idempotency-Key` to retry safely: a retry with the same key
/// and body gets the first answer (marked `Idempotent-Replayed: true`) and opens no second table.
#[utoipa::path(tag = "tables", request_body = CreateTable, security(("bearer" = [])),
    params(
        ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key and body returns the first answer and opens nothing"),
    ),
    responses(
    (status = 201, body = TableView, headers(
        ("Location" = String, description = "the table's address"),
        ("Idempotent-Replayed" = Option<String>, description = "`true` when this is the first answer to an earlier request with the same `Idempotency-Key`"),
    )),
    (status = 400, description = "`malformed_json`, `invalid_idempotency_key`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token, or a role in the session's (or `club_id`'s) club that does not run its tables", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`session_not_found`; `club_not_found`: no such club, or the caller is not its member", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`session_final`: the session is final", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`unknown_game`, `invalid_player_count`, `invalid_player_name`, `invalid_options`, `invalid_option`, `invalid_members`, `club_mismatch` (a `club_id` other than the session's), `idempotency_key_reused`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/tables")]
pub async fn create_table(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    body: web::Json<CreateTable>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let keys = &state.keys;
    let owner = who.organiser()?;
    let key = super::answers::idempotency_key(&req)?
        .map(|key| serde_json::to_value(&*body).map(|sent| CreationKey::new("create_table", key, &sent)))
        .transpose()
        .map_err(|_| ApiError::internal())?;
    let req = body.into_inner();
    let game = GameId::parse(&req.game).ok_or_else(|| {
        ApiError::unprocessable(
            "unknown_game",
            format!("there is no game `{}`; see GET /api/v1/games", req.game),
        )
    })?;
    let new = NewTable {
        game,
        players: validate_players(&req.players)?,
        options: req.options,
        session: req.session_id,
        members: req.members.map(|m| m.per_seat(req.players.len())).transpose()?,
        club: req.club_id,
        now: state.clock.now(),
    };
    let render = |table, receipt| {
        let view = TableView {
            receipt: Some(receipt),
            ..TableView::from(table)
        };
        Ok(Made::created(&view)?.at(format!("/api/v1/tables/{}", view.id)))
    };
    let outcome = use_case::create_once(pool, keys, owner, new, key.as_ref(), render).await?;
    super::answers::created(outcome, "/api/v1/tables")
}

/// How long this server keeps a table's answers for retries (`IDEMPOTENCY_RETENTION_SECS`).
fn answers_kept_for(req: &HttpRequest) -> std::time::Duration {
    State::of(req).map_or(tablekeeper_service::idempotency::DEFAULT_ANSWERS_KEPT_FOR, |state| {
        state.answers_kept_for
    })
}

/// The `Idempotency-Key` of a request creating something by `operation`, with what it sent:
/// `sent` holds the body and the path's ids, so that the key names one request.
pub(super) fn creation_key(
    req: &HttpRequest,
    operation: &'static str,
    sent: impl FnOnce() -> Result<Value, serde_json::Error>,
) -> Result<Option<CreationKey>, ApiError> {
    let Some(key) = super::answers::idempotency_key(req)? else {
        return Ok(None);
    };
    let sent = sent().map_err(|_| ApiError::internal())?;
    Ok(Some(
        CreationKey::new(operation, key, &sent).kept_for(answers_kept_for(req)),
    ))
}

/// Tables of a session (for whoever may read it), or of every club the caller belongs to; a
/// share link's session's tables; a scorer token's table.
///
/// Without `session_id`, an account sees the tables of the clubs where it is a member who has
/// not left, whatever its role (every role reads), oldest first, whoever opened them.
#[utoipa::path(tag = "tables", params(TableQuery), security(("bearer" = [])), responses(
    (status = 200, body = TablePage),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`session_not_found`: no such session, or the caller may not read it", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tables")]
pub async fn list_tables(
    pool: ReadPool,
    req: HttpRequest,
    Reads(who): Reads,
    query: web::Query<TableQuery>,
) -> Result<HttpResponse, ApiError> {
    let limit = super::input::page_limit(query.limit)?;
    let offset = query.offset.unwrap_or(0).max(0);
    let session = query.session_filter()?;
    let rows = use_case::page(&pool, who, session, limit + 1, offset).await?;
    let more = rows.len() as i64 > limit;
    let items = rows.into_iter().take(limit as usize).map(TableSummary::from).collect();
    let next_offset = more.then_some(offset + limit);
    Ok(super::input::page(
        &req,
        "offset",
        next_offset,
        &TablePage { items, next_offset },
    ))
}

/// The table's state: dealer, trumps, nominations, the trick, whose turn, legal moves, scores.
#[utoipa::path(tag = "tables", security(("bearer" = [])), params(("id" = Uuid, Path), ("If-None-Match" = Option<String>, Header, description = "the `ETag` of a copy the client holds")), responses(
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 200, body = TableView, headers(("ETag" = String, description = "the table's version, quoted"))),
    (status = 304, description = "not modified: `If-None-Match` names the current `ETag`"),
    (status = 404, description = "`table_not_found`: no such table, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`table_damaged`: what is stored of a table no longer reads; the problem names it", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tables/{id}")]
pub async fn get_table(
    pool: ReadPool,
    Reads(who): Reads,
    req: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    tablekeeper_service::access::readable_table(&pool, who, *id).await?;
    let mut view = TableView::from(use_case::state(&pool, *id).await?);
    // A standby behind the copy the client holds reads again on the primary: a client never
    // sees a table go back in time.
    if let (Some(primary), Some(seen)) = (pool.primary_if_on_standby(), super::conditional::seen(&req)) {
        if seen > view.version {
            view = TableView::from(use_case::state(primary, *id).await?);
        }
    }
    Ok(super::conditional::respond(&req, view.version, &view))
}

/// How the deal in hand's tricks are won, for a phone that loses the service mid-deal.
#[derive(Serialize, ToSchema)]
pub struct TrickPlanView {
    /// The table's version the plan was read at.
    pub version: i64,
    /// Null when the table is not at a deal whose cards are being entered one by one, or its
    /// game's tricks are not won by suit and strength alone (Tricky Dick counts the colours
    /// laid; Pope Joan, Spin and Newmarket have no tricks).
    pub plan: Option<tablekeeper_rules::TrickPlan>,
}

/// How the tricks of the deal in hand are won, as data: the seats in the order they play, every
/// card's suit as it follows and its strength, the suit that trumps each suit led, and the
/// tricks after which a card is not the only move the game may ask for. A trick is won by the
/// card with the highest `(follows the suit that trumps the suit led, follows the suit led,
/// strength)`, the earliest on equal keys; its winner leads the next. A phone reads it as a
/// deal's play begins, so that without the service it can go on entering cards in turn and
/// queue them; the service checks each card as it arrives. The plan does not change within a
/// deal unless its bidding or turn-up is undone.
#[utoipa::path(tag = "tables", security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 200, body = TrickPlanView),
    (status = 404, description = "`table_not_found`: no such table, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`table_damaged`: what is stored of a table no longer reads; the problem names it", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tables/{id}/trick-plan")]
pub async fn get_trick_plan(pool: ReadPool, Reads(who): Reads, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    tablekeeper_service::access::readable_table(&pool, who, *id).await?;
    let (version, plan) = use_case::trick_plan(&pool, *id).await?;
    Ok(HttpResponse::Ok().json(TrickPlanView { version, plan }))
}

/// The answer to what was recorded; its status comes from what it was. A move's address is
/// the one-entry page of the log that holds it.
fn render(recorded: Recorded) -> Result<Made, serde_json::Error> {
    match recorded {
        Recorded::Move {
            entry, table, receipt, ..
        } => {
            let location = move_location(table.row.id, entry.seq);
            Ok(Made::created(&MoveResponse {
                mv: MoveRecord::new(table.game, entry),
                table: table.into(),
                receipt,
            })?
            .at(location))
        }
        Recorded::Undo {
            void,
            undone,
            table,
            receipt,
        } => Made::new(
            StatusCode::OK,
            &UndoResponse {
                void: MoveRecord::new(table.game, void),
                undone: MoveRecord::new(table.game, undone),
                table: table.into(),
                receipt,
            },
        ),
    }
}

/// The address of move `seq` at `table`: the one-entry page of the log that holds it.
fn move_location(table: Uuid, seq: i64) -> String {
    format!("/api/v1/tables/{table}/moves?after={}&limit=1", seq - 1)
}

/// Records at a table and answers; a retry is answered as the first request was, marked.
async fn record(
    state: &State,
    req: &HttpRequest,
    table: Uuid,
    Claimed(by, token_unread): Claimed,
    what: Recording,
    expected_version: Option<i64>,
    sent: Value,
) -> Result<HttpResponse, ApiError> {
    let request = recording::Request {
        table,
        by,
        token_unread,
        what,
        expected_version,
        if_match: super::conditional::if_match(req),
        idempotency_key: super::answers::idempotency_key(req)?,
        answers_kept_for: answers_kept_for(req),
        announce_apart: state.announce_apart,
        sent,
        now: state.clock.now(),
    };
    let noted = |game| super::metrics::note_game(req, game);
    let outcome = recording::record(
        &state.pool,
        Some(&state.hot),
        state.batcher.as_ref(),
        &state.keys,
        request,
        render,
        noted,
    )
    .await?;
    // A retry of a move (201) finds its address in the move it was first answered with.
    super::answers::respond(outcome, |kept| {
        let seq = kept.get("move")?.get("seq")?.as_i64()?;
        Some(move_location(table, seq))
    })
}

/// Records one move. The engine checks it against the rules and works out its consequences
/// (trick winners, next leader, scores). Send `expected_version` to be refused with 409 rather
/// than apply a move to a table that changed, and an `Idempotency-Key` to retry safely.
#[utoipa::path(tag = "tables", request_body = SubmitMove, security(("bearer" = [])),
    params(
        ("id" = Uuid, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key and body returns the first answer, for 24 hours (the server's `IDEMPOTENCY_RETENTION_SECS`); after that the key is forgotten and a request under it is new"),
        ("If-Match" = Option<String>, Header, description = "the `ETag` of the table as the client saw it: a table that changed since is refused with 412"),
    ),
    responses(
        (status = 201, body = MoveResponse, headers(
            ("Location" = String, description = "the move's entry in the log: the one-entry page of `GET /tables/{id}/moves` that holds it"),
            ("Idempotent-Replayed" = Option<String>, description = "`true` when this is the first answer to an earlier request with the same `Idempotency-Key`"),
        ), example = json!(super::examples::submit_move())),
        (status = 400, description = "`malformed_json`, `invalid_idempotency_key`", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`forbidden`: not this table's organiser or scorer", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`table_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "`precondition_failed`: the table's `ETag` is not one `If-Match` names", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`version_conflict`, `deal_mismatch`, `game_finished`, `trick_out_of_order`, `chips_out_of_range`, `deal_limit`, `table_damaged` (what is stored of the table no longer reads); `session_final`: the table's session is final", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "a rule violation (`not_your_turn`, `card_already_played`, `hook_rule`, `tricks_do_not_add_up`, `no_such_seat`, `move_not_expected`, …), `unknown_card`, `unknown_field`, `unknown_variant`, `idempotency_key_reused`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/tables/{id}/moves")]
pub async fn submit_move(
    state: web::Data<State>,
    req: HttpRequest,
    Claimed(who, token_unread): Claimed,
    id: web::Path<Uuid>,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let span = tracing::info_span!("submit_move", table = %id);
    async move {
        let body = body.into_inner();
        let submitted: SubmitMove = serde_json::from_value(body.clone()).map_err(|e| ApiError::from_json(&e))?;
        let what = Recording::Move(submitted.mv, submitted.deal);
        let by = Claimed(who, token_unread);
        let answer = record(&state, &req, *id, by, what, submitted.expected_version, body).await;
        super::metrics::count_move(&req, &answer);
        answer
    }
    .instrument(span)
    .await
}

/// Voids the latest move that is not voided yet, by appending a void to the log; the log keeps
/// both. Repeat to go further back.
#[utoipa::path(tag = "tables", request_body(content = Option<UndoRequest>), security(("bearer" = [])),
    params(
        ("id" = Uuid, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key returns the first answer, for 24 hours (the server's `IDEMPOTENCY_RETENTION_SECS`); after that the key is forgotten and a request under it is new"),
        ("If-Match" = Option<String>, Header, description = "the `ETag` of the table as the client saw it: a table that changed since is refused with 412"),
    ),
    responses(
        (status = 200, body = UndoResponse, headers(
            ("Idempotent-Replayed" = Option<String>, description = "`true` when this is the first answer to an earlier request with the same `Idempotency-Key`"),
        ), example = json!(super::examples::undo_move())),
        (status = 401, description = "`missing_token`, `invalid_token`", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`forbidden`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`table_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`version_conflict`, `nothing_to_undo`, `deal_ruled` (the entry is of a deal a director ruled on), `table_damaged` (what is stored of the table no longer reads); `session_final`: the table's session is final", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "`precondition_failed`: the table's `ETag` is not one `If-Match` names", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/tables/{id}/undo")]
pub async fn undo_move(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    id: web::Path<Uuid>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    // The body is optional, but when there is one it must be good JSON.
    let body: Value = if body.iter().all(u8::is_ascii_whitespace) {
        Value::Object(Default::default())
    } else {
        serde_json::from_slice(&body).map_err(|e| ApiError::from_json(&e))?
    };
    let undo: UndoRequest = serde_json::from_value(body.clone()).map_err(|e| ApiError::from_json(&e))?;
    record(
        &state,
        &req,
        *id,
        Claimed(who, None),
        Recording::Undo,
        undo.expected_version,
        body,
    )
    .await
}

/// The move log, oldest first, with voids and what each move caused.
#[utoipa::path(tag = "tables", security(("bearer" = [])), params(("id" = Uuid, Path), LogQuery), responses(
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 200, body = MovePage),
    (status = 404, description = "`table_not_found`: no such table, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tables/{id}/moves")]
pub async fn list_moves(
    pool: ReadPool,
    req: HttpRequest,
    Reads(who): Reads,
    id: web::Path<Uuid>,
    query: web::Query<LogQuery>,
) -> Result<HttpResponse, ApiError> {
    tablekeeper_service::access::readable_table(&pool, who, *id).await?;
    let limit = super::input::page_limit(query.limit)?;
    let after = query.after.unwrap_or(0).max(0);
    let (game, rows) = use_case::log_page(&pool, *id, after, limit + 1).await?;
    let more = rows.len() as i64 > limit;
    let items: Vec<MoveRecord> = rows
        .into_iter()
        .take(limit as usize)
        .map(|row| MoveRecord::new(game, row))
        .collect();
    let next_after = if more { items.last().map(|m| m.seq) } else { None };
    Ok(super::input::page(
        &req,
        "after",
        next_after,
        &MovePage { items, next_after },
    ))
}

/// The score sheet: every deal's nominations, tricks and points, running totals, and the
/// winners once the game is over.
///
/// The same sheet as CSV is `get_scores_csv` (`…/scores.csv`). (`Accept: text/csv` or
/// `?format=csv` here still answer CSV, for links made before that operation existed.)
#[utoipa::path(tag = "tables", security(("bearer" = [])), params(("id" = Uuid, Path), ("If-None-Match" = Option<String>, Header, description = "the `ETag` of a copy the client holds")), responses(
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 400, description = "`invalid_query`: an unknown query parameter, or a `format` (kept for links made before the CSV operation) that is not `json` or `csv`", body = Problem, content_type = "application/problem+json"),
    (status = 200, description = "the score sheet", body = Scores, headers(("ETag" = String, description = "the table's version, quoted"))),
    (status = 304, description = "not modified: `If-None-Match` names the current `ETag`"),
    (status = 404, description = "`table_not_found`: no such table, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`table_damaged`: what is stored of a table no longer reads; the problem names it", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tables/{id}/scores")]
pub async fn get_scores(
    pool: ReadPool,
    Reads(who): Reads,
    req: HttpRequest,
    id: web::Path<Uuid>,
    query: web::Query<super::export::FormatQuery>,
) -> Result<HttpResponse, ApiError> {
    let csv = super::export::wants_csv(&req, query.format);
    scores(&pool, who, &req, *id, csv).await
}

/// The score sheet as CSV: one row per deal (per hand at Tricky Dick), a column per player for
/// per-seat figures; at a points game with director's rulings, a last row `rulings` with what
/// they add (`rulings <player>`) and the totals with them (`total with rulings <player>`); text
/// that a spreadsheet would run as a formula is written behind a `'`.
#[utoipa::path(tag = "tables", security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 200, description = "the score sheet, a header row then a row per deal", content((String = "text/csv", example = "deal,dealer,points Ann,points Bob,points Cy\r\n1,0,12,2,0\r\n"))),
    (status = 404, description = "`table_not_found`: no such table, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`table_damaged`: what is stored of a table no longer reads; the problem names it", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tables/{id}/scores.csv")]
pub async fn get_scores_csv(
    pool: ReadPool,
    Reads(who): Reads,
    req: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    scores(&pool, who, &req, *id, true).await
}

async fn scores(pool: &PgPool, who: Reader, req: &HttpRequest, id: Uuid, csv: bool) -> Result<HttpResponse, ApiError> {
    tablekeeper_service::access::readable_table(pool, who, id).await?;
    let sheet = use_case::score_sheet(pool, id).await?;
    if csv {
        let players = &sheet.row.players;
        let mut made = super::export::sheet_rows(players, &sheet.lines);
        if let Some(ruled) = RuledTotals::of(&sheet) {
            made = super::export::with_rulings(players, made, &ruled.adjustments, &ruled.totals);
        }
        let (header, rows) = made;
        return super::export::respond(&format!("table-{}-scores.csv", sheet.row.id), &header, &rows);
    }
    let scores = Scores::from(sheet);
    Ok(super::conditional::respond(req, scores.version, &scores))
}
