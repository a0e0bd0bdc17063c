//! Deals of a table as the score sheet numbers them: reading one, correcting a finished one,
//! verifying one; and the table's scorers, whom the organiser can revoke.
//!
//! Handlers parse and render; the use cases are `tablekeeper_service::corrections` and
//! `tablekeeper_service::verification`.

use super::answers::Made;
use crate::State;
use actix_web::http::StatusCode;
use actix_web::{delete, get, post, put, web, HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use utoipa::ToSchema;
use uuid::Uuid;

use super::auth::{Caller, Reads};
use super::error::{ApiError, Problem};
use super::game_schemas::{AnyEvent, AnyMove, AnyView};
use super::names::name;
use super::reads::ReadPool;
use tablekeeper_rules::GameId;
use tablekeeper_service::corrections::{self, Correction, DealRecord, Verification};
use tablekeeper_service::corrections::{CorrectionRow, VerificationRow};
use tablekeeper_service::flags::Flag;
use tablekeeper_service::receipts::Receipt;
use tablekeeper_service::tables::{MoveRow, ScorerRow};
use tablekeeper_service::verification;

/// A deal's move, with who recorded it.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct DealMove {
    pub seq: i64,
    #[schema(example = "result")]
    pub kind: String,
    pub seat: Option<i16>,
    #[serde(rename = "move")]
    #[schema(value_type = AnyMove)]
    pub mv: Value,
    #[schema(value_type = Vec<AnyEvent>)]
    pub events: Value,
    /// For a move a correction brought: the correction's seq.
    pub part_of: Option<i64>,
    #[schema(example = "scorer:0b8e2c1a-3f4d-4e5f-8a9b-1c2d3e4f5a6b")]
    pub recorded_by: String,
    /// The scorer's name, or `organiser`.
    #[schema(example = "Ann's phone")]
    pub recorded_by_name: String,
    pub recorded_at: DateTime<Utc>,
}

/// A correction of the deal.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct DealCorrection {
    /// Its log entry.
    pub seq: i64,
    pub reason: String,
    /// The moves it replaced (they stay in the log).
    pub supersedes: Vec<i64>,
    /// The void that undid it, if it was undone.
    pub voided_by: Option<i64>,
    pub recorded_by: String,
    pub recorded_by_name: String,
    pub recorded_at: DateTime<Utc>,
}

/// A verification of the deal.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct DealVerification {
    pub id: i64,
    pub agree: bool,
    /// A dispute's own recording of the deal.
    #[schema(value_type = Option<Vec<AnyMove>>)]
    pub moves: Option<Value>,
    /// For a dispute: JSON pointers into `lines` of the fields its result changes.
    #[schema(example = json!(["/0/tricks/1", "/0/tricks/2"]))]
    pub differs: Vec<String>,
    /// The correction in force when it was given (0: the deal as first recorded); only those
    /// given about the deal as it stands count.
    pub correction: i64,
    /// Whether it is about the deal as it stands.
    pub current: bool,
    pub verified_by: String,
    pub verified_by_name: String,
    pub verified_at: DateTime<Utc>,
}

/// `verified`, `unverified` or `disputed`.
#[derive(Serialize, Deserialize, ToSchema, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum DealStatus {
    Verified,
    Unverified,
    Disputed,
}

/// Why a finished deal is flagged: its result is far outside what the deal and the field make
/// likely. The session does not close until a second phone has verified the deal as it stands,
/// or the director ruled on it (`GET /sessions/{id}/flags` lists them).
#[derive(Serialize, Deserialize, ToSchema, Clone, Debug, PartialEq, Eq)]
pub struct DealFlag {
    /// The rule's stable code: `all_nominations_met`, `out_first_streak`, `score_outlier` or
    /// `player_usual`.
    #[schema(example = "all_nominations_met")]
    pub rule: String,
    /// Why, with the values.
    #[schema(
        example = "every nomination was met exactly at 13 cards (Ann 4, Bob 3, Cat 5, Dan 1): all 4 players right at the largest hand"
    )]
    pub reason: String,
}

impl From<Flag> for DealFlag {
    fn from(f: Flag) -> DealFlag {
        DealFlag {
            rule: f.rule.to_owned(),
            reason: f.reason,
        }
    }
}

/// One deal: its effective moves, its score-sheet line, and its correction and verification
/// history.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct DealView {
    pub table_id: Uuid,
    pub game: GameId,
    /// 1-based, as on the score sheet.
    pub deal: u16,
    /// The table's version: send it as `expected_version` to correct the deal.
    pub version: i64,
    /// False for the deal being recorded.
    pub finished: bool,
    pub moves: Vec<DealMove>,
    /// The score-sheet line(s) the deal finished (the game's `DealLine`).
    #[schema(value_type = Vec<Object>)]
    pub lines: Vec<Value>,
    pub status: DealStatus,
    /// For a disputed deal: the fields of `lines` the dispute changes.
    pub differs: Vec<String>,
    pub corrections: Vec<DealCorrection>,
    pub verifications: Vec<DealVerification>,
    /// The director's rulings of the deal, oldest first (`GET …/rulings/{ruling}` has one).
    pub rulings: Vec<super::rulings::RulingView>,
    /// What is improbable about the deal as it stands; left out when nothing is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<DealFlag>,
    /// In the answer to a correction or a verification: the audit key's signature on the
    /// table's chain as it leaves it (keep it; see `tablekeeper verify --receipts`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt: Option<Receipt>,
}

impl From<DealRecord> for DealView {
    fn from(r: DealRecord) -> DealView {
        let names = &r.names;
        let (status, differs) = match r.verification {
            Verification::Verified => (DealStatus::Verified, Vec::new()),
            Verification::Unverified => (DealStatus::Unverified, Vec::new()),
            Verification::Disputed { differs } => (DealStatus::Disputed, differs),
        };
        let moves = r
            .moves
            .into_iter()
            .map(|m: MoveRow| DealMove {
                recorded_by_name: name(names, &m.recorded_by),
                seq: m.seq,
                kind: m.kind,
                seat: m.seat,
                mv: m.body,
                events: m.events,
                part_of: m.part_of,
                recorded_by: m.recorded_by,
                recorded_at: m.recorded_at,
            })
            .collect();
        let corrections = r
            .corrections
            .into_iter()
            .map(|c: CorrectionRow| DealCorrection {
                recorded_by_name: name(names, &c.recorded_by),
                seq: c.seq,
                reason: c.reason,
                supersedes: c.supersedes,
                voided_by: c.voided_by,
                recorded_by: c.recorded_by,
                recorded_at: c.recorded_at,
            })
            .collect();
        let in_force = r.correction_in_force;
        let verifications = r
            .verifications
            .into_iter()
            .map(|v: VerificationRow| DealVerification {
                verified_by_name: name(names, &v.verified_by),
                id: v.id,
                agree: v.agree,
                moves: v.moves,
                differs: v.differs,
                correction: v.correction_seq,
                current: v.correction_seq == in_force,
                verified_by: v.verified_by,
                verified_at: v.verified_at,
            })
            .collect();
        // A ruling that does not read is left out rather than failing the deal's view; it was
        // logged as the fault it is.
        let rulings = r
            .rulings
            .into_iter()
            .filter_map(|ruling| super::rulings::view(r.table.id, ruling, names).ok())
            .collect();
        DealView {
            rulings,
            flags: r.flags.into_iter().map(DealFlag::from).collect(),
            table_id: r.table.id,
            game: r.game,
            deal: r.deal,
            version: r.table.version,
            finished: r.finished,
            moves,
            lines: r.lines,
            status,
            differs,
            corrections,
            verifications,
            receipt: None,
        }
    }
}

/// A correction of a finished deal.
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"moves": [{"kind": "result", "nominations": [3, 4, 2, 3], "tricks": [3, 4, 3, 3]}], "expected_version": 12, "reason": "that was Bob's 4, not Cat's"}))]
pub struct CorrectDeal {
    /// The deal's moves as they should have been recorded: card by card or a result, as for any
    /// deal of the game.
    #[schema(value_type = Vec<AnyMove>)]
    pub moves: Vec<Value>,
    /// The table version the client saw.
    pub expected_version: i64,
    /// Why, for the log: 1 to 500 characters.
    #[schema(example = "that was Bob's 7, not Ann's")]
    pub reason: String,
}

/// A verification: an agreement, or a dispute with the verifier's own result.
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"agree": true}))]
pub struct VerifyDeal {
    pub agree: bool,
    /// A dispute's recording of the deal (usually one result entry); none with an agreement.
    #[schema(value_type = Option<Vec<AnyMove>>)]
    pub moves: Option<Vec<Value>>,
}

fn deal_number(n: i64) -> Result<u16, ApiError> {
    u16::try_from(n)
        .ok()
        .filter(|n| *n >= 1)
        .ok_or_else(|| ApiError::not_found("deal_not_found", format!("there is no deal {n}: deals count from 1")))
}

/// A finished deal's standing: whether a second phone verified it, as the score sheet marks it.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct DealStanding {
    /// 1-based, as on the score sheet.
    pub deal: u16,
    pub status: DealStatus,
    /// What is improbable about the deal; left out when nothing is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<DealFlag>,
}

impl From<&Verification> for DealStatus {
    fn from(v: &Verification) -> DealStatus {
        match v {
            Verification::Verified => DealStatus::Verified,
            Verification::Unverified => DealStatus::Unverified,
            Verification::Disputed { .. } => DealStatus::Disputed,
        }
    }
}

/// Every finished deal of the table with its status (verified, unverified or disputed) and its
/// flags, if any, deal 1 first: what the score sheet marks beside each line. `GET /tables/{id}/deals/{n}` has a deal's
/// moves, corrections and verifications.
#[utoipa::path(tag = "deals", security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 200, body = Vec<DealStanding>),
    (status = 404, description = "`table_not_found`: no such table, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tables/{id}/deals")]
pub async fn list_deals(pool: ReadPool, Reads(who): Reads, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let table = tablekeeper_service::access::readable_table(&pool, who, *id).await?;
    let statuses = verification::deal_statuses(&pool, &table).await?;
    let mut flags = tablekeeper_service::flags::of_table_in(&pool, &table)
        .await?
        .into_iter();
    let out: Vec<DealStanding> = (1u16..)
        .zip(statuses.iter())
        .map(|(deal, v)| DealStanding {
            deal,
            status: v.into(),
            flags: flags
                .next()
                .unwrap_or_default()
                .into_iter()
                .map(DealFlag::from)
                .collect(),
        })
        .collect();
    Ok(HttpResponse::Ok().json(out))
}

/// One deal: its effective moves in order with who recorded each, its score-sheet line, its
/// corrections and verifications, whether it is verified, unverified or disputed, and its
/// flags, if any.
#[utoipa::path(tag = "deals", security(("bearer" = [])), params(("id" = Uuid, Path), ("n" = i64, Path, description = "the deal, from 1, as on the score sheet")), responses(
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 200, body = DealView),
    (status = 404, description = "`table_not_found`, `deal_not_found`", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`table_damaged`: what is stored of a table no longer reads; the problem names it", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tables/{id}/deals/{n}")]
pub async fn get_deal(
    pool: ReadPool,
    Reads(who): Reads,
    path: web::Path<(Uuid, i64)>,
) -> Result<HttpResponse, ApiError> {
    let (id, n) = path.into_inner();
    tablekeeper_service::access::readable_table(&pool, who, id).await?;
    let record = corrections::deal(&pool, id, deal_number(n)?).await?;
    Ok(HttpResponse::Ok().json(DealView::from(record)))
}

/// Corrects a finished deal: its moves are replaced by those sent, the log keeps both, the
/// engine replays every later move on the corrected history, and each booking that changes is
/// reversed and booked anew. Refused whole (`409 correction_conflicts`, naming the move) when a
/// later move no longer fits. `POST /undo` undoes a correction like a move. Send an
/// `Idempotency-Key` to retry safely: a retry with the same key and body gets the first answer
/// (marked `Idempotent-Replayed: true`) and corrects nothing, even though its `expected_version`
/// is now behind; the table's moves, corrections and verifications share one set of keys.
#[utoipa::path(tag = "deals", request_body = CorrectDeal, security(("bearer" = [])),
    params(
        ("id" = Uuid, Path),
        ("n" = i64, Path, description = "the deal, from 1, as on the score sheet"),
        ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key and body returns the first answer and corrects nothing"),
    ),
    responses(
        (status = 200, body = DealView, headers(
            ("Idempotent-Replayed" = Option<String>, description = "`true` when this is the first answer to an earlier request with the same `Idempotency-Key`"),
        )),
        (status = 400, description = "`malformed_json`, `invalid_idempotency_key`", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `scorer_revoked`", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`forbidden`: not this table's organiser or scorer", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`table_not_found`, `deal_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`version_conflict`, `deal_not_finished` (undo instead), `correction_conflicts`, `deal_ruled` (a director ruled on the deal: the director rules again), `table_damaged` (what is stored of the table no longer reads); `session_final`: the table's session is final", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "a rule violation of the correction's own moves (`tricks_do_not_add_up`, …), `not_the_deal`, `invalid_text`, `unknown_field`, `unknown_variant`, `idempotency_key_reused`", body = Problem, content_type = "application/problem+json"),
    ))]
#[put("/tables/{id}/deals/{n}")]
pub async fn correct_deal(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    path: web::Path<(Uuid, i64)>,
    body: web::Json<CorrectDeal>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let keys = &state.keys;
    let (id, n) = path.into_inner();
    let key = super::tables::creation_key(&req, "correct_deal", || serde_json::to_value((n, &*body)))?;
    let body = body.into_inner();
    let reason = super::input::display_name(&body.reason, 500)
        .ok_or_else(|| {
            ApiError::unprocessable(
                "invalid_text",
                "a correction's reason is 1 to 500 characters, without control characters",
            )
        })?
        .to_owned();
    let correction = Correction {
        table: id,
        by: who,
        deal: deal_number(n)?,
        moves: body.moves,
        expected_version: body.expected_version,
        reason,
        now: state.clock.now(),
    };
    let render = |record, receipt| deal_answer(StatusCode::OK, record, receipt);
    let outcome = corrections::correct(pool, keys, correction, key.as_ref(), render).await?;
    super::answers::respond(outcome, |_| None)
}

/// The deal as a write left it, with the write's receipt: the answer kept under an
/// `Idempotency-Key`.
fn deal_answer(status: StatusCode, record: DealRecord, receipt: Receipt) -> Result<Made, serde_json::Error> {
    Made::new(
        status,
        &DealView {
            receipt: Some(receipt),
            ..DealView::from(record)
        },
    )
}

/// A correction being entered: the deal's moves so far.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"moves": [{"kind": "turn_up", "card": "7D"}, {"kind": "nominate", "seat": 1, "tricks": 2}]}))]
pub struct PreviewCorrection {
    /// The deal's moves entered so far, from its first (none: the deal's start).
    #[schema(value_type = Vec<AnyMove>)]
    pub moves: Vec<Value>,
}

/// What a correction's moves so far make of the deal; nothing is stored.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct DealPreview {
    pub table_id: Uuid,
    pub game: GameId,
    /// 1-based, as on the score sheet.
    pub deal: u16,
    /// The table's version the dry run read: send it as the correction's `expected_version`.
    pub version: i64,
    /// Whether the moves make up the whole deal and every later move still replays after them:
    /// the correction would then be accepted as it stands.
    pub complete: bool,
    /// The game's view after the moves: whose turn, what is legal next (`legal_moves`). Once
    /// complete, the table as the correction would leave it at the next deal's start.
    #[schema(value_type = AnyView)]
    pub state: Value,
    /// Each move's events, in order (a trick's winner, a deal's score).
    #[schema(value_type = Vec<Vec<AnyEvent>>)]
    pub events: Vec<Value>,
    /// The score-sheet line(s) the moves finished.
    #[schema(value_type = Vec<Object>)]
    pub lines: Vec<Value>,
}

/// A dry run of a correction being entered: the deal replayed from its start with the moves
/// given so far, answering the game's view after them (whose turn, what is legal next), so that
/// a phone can re-enter a deal card by card with the game's own panels. Nothing is stored; the
/// same people may ask as may correct, and a move the correction would refuse is refused here
/// with the same problem.
#[utoipa::path(tag = "deals", request_body = PreviewCorrection, security(("bearer" = [])),
    params(("id" = Uuid, Path), ("n" = i64, Path, description = "the deal, from 1, as on the score sheet")),
    responses(
        (status = 200, body = DealPreview),
        (status = 400, description = "`malformed_json`", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `scorer_revoked`", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`forbidden`: not this table's organiser or scorer", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`table_not_found`, `deal_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`deal_not_finished`, `correction_conflicts` (the moves finish the deal and a later move no longer fits), `table_damaged`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "a rule violation of a move given (`card_already_played`, `not_your_turn`, …), `not_the_deal`, `unknown_field`, `unknown_variant`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/tables/{id}/deals/{n}/preview")]
pub async fn preview_correction(
    state: web::Data<State>,
    Caller(who): Caller,
    path: web::Path<(Uuid, i64)>,
    body: web::Json<PreviewCorrection>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let (id, n) = path.into_inner();
    let preview = corrections::preview(pool, id, who, deal_number(n)?, &body.moves).await?;
    Ok(HttpResponse::Ok().json(DealPreview {
        table_id: preview.table.id,
        game: preview.game,
        deal: preview.deal,
        version: preview.table.version,
        complete: preview.complete,
        state: preview.view,
        events: preview.events,
        lines: preview.lines,
    }))
}

/// Verifies a finished deal, by a scorer who did not record it or by the organiser:
/// `{"agree": true}`, or a dispute with the verifier's own result, which is checked by the
/// engine and kept with the fields that differ (the deal is not changed). `Location` is the
/// deal, which lists its verifications. Send an `Idempotency-Key` to retry safely: a retry with
/// the same key and body gets the first answer (marked `Idempotent-Replayed: true`) and verifies
/// nothing; the table's moves, corrections and verifications share one set of keys.
#[utoipa::path(tag = "deals", request_body = VerifyDeal, security(("bearer" = [])),
    params(
        ("id" = Uuid, Path),
        ("n" = i64, Path, description = "the deal, from 1, as on the score sheet"),
        ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key and body returns the first answer and verifies nothing"),
    ),
    responses(
        (status = 201, body = DealView, headers(
            ("Location" = String, description = "the deal verified"),
            ("Idempotent-Replayed" = Option<String>, description = "`true` when this is the first answer to an earlier request with the same `Idempotency-Key`"),
        )),
        (status = 400, description = "`malformed_json`, `invalid_idempotency_key`", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `scorer_revoked`", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`forbidden`: another table's scorer; `own_deal`: the verifier recorded the deal", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`table_not_found`, `deal_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`deal_not_finished`, `table_damaged` (what is stored of the table no longer reads); `session_final`: the table's session is final", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_verification`, `dispute_matches_record`, `not_the_deal`, a rule violation of the dispute's result, `unknown_field`, `idempotency_key_reused`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/tables/{id}/deals/{n}/verification")]
pub async fn verify_deal(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    path: web::Path<(Uuid, i64)>,
    body: web::Json<VerifyDeal>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let keys = &state.keys;
    let (id, n) = path.into_inner();
    let key = super::tables::creation_key(&req, "verify_deal", || serde_json::to_value((n, &*body)))?;
    let body = body.into_inner();
    let request = verification::Request {
        table: id,
        by: who,
        deal: deal_number(n)?,
        agree: body.agree,
        moves: body.moves,
        now: state.clock.now(),
    };
    let location = format!("/api/v1/tables/{id}/deals/{n}");
    let render = |record, receipt| Ok(deal_answer(StatusCode::CREATED, record, receipt)?.at(location.clone()));
    let outcome = verification::verify(pool, keys, request, key.as_ref(), render).await?;
    super::answers::respond(outcome, |_| Some(location.clone()))
}

/// A scorer of a table: one phone that joined it.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct Scorer {
    pub id: Uuid,
    /// What the log's `recorded_by` says for it.
    #[schema(example = "scorer:0b8e2c1a-3f4d-4e5f-8a9b-1c2d3e4f5a6b")]
    pub recorded_by: String,
    #[schema(example = "Ann's phone")]
    pub name: String,
    pub joined_at: DateTime<Utc>,
    /// Set once the organiser revoked it: its token is refused from then on.
    pub revoked_at: Option<DateTime<Utc>>,
}

impl From<ScorerRow> for Scorer {
    fn from(s: ScorerRow) -> Scorer {
        Scorer {
            recorded_by: format!("scorer:{}", s.id),
            id: s.id,
            name: s.name,
            joined_at: s.created_at,
            revoked_at: s.revoked_at,
        }
    }
}

/// The table's scorers, oldest first, revoked ones included: the names behind `recorded_by`.
#[utoipa::path(tag = "deals", security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 200, body = Vec<Scorer>),
    (status = 404, description = "`table_not_found`: no such table, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tables/{id}/scorers")]
pub async fn list_scorers(
    state: web::Data<State>,
    Reads(who): Reads,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let table = tablekeeper_service::access::readable_table(pool, who, *id).await?;
    let scorers: Vec<Scorer> = tablekeeper_service::tables::scorers(pool, &table)
        .await?
        .into_iter()
        .map(Scorer::from)
        .collect();
    Ok(HttpResponse::Ok().json(scorers))
}

/// Revokes a scorer (the table's organiser only): its token is refused from now on with
/// `401 scorer_revoked`; what it recorded stays, under its name.
#[utoipa::path(tag = "deals", params(("id" = Uuid, Path), ("scorer_id" = Uuid, Path)), security(("bearer" = [])), responses(
    (status = 200, body = Scorer),
    (status = 401, description = "`missing_token`, `invalid_token`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: not the table's organiser", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`table_not_found`, `scorer_not_found`", body = Problem, content_type = "application/problem+json"),
))]
#[delete("/tables/{id}/scorers/{scorer_id}")]
pub async fn revoke_scorer(
    state: web::Data<State>,
    Caller(who): Caller,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let pool = &state.pool;
    let (id, scorer) = path.into_inner();
    let revoked = tablekeeper_service::tables::revoke_scorer(pool, who, id, scorer).await?;
    Ok(HttpResponse::Ok().json(Scorer::from(revoked)))
}
