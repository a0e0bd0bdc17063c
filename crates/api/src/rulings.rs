//! A director's rulings on finished deals (issue #42), and the phones' answers to them.
//!
//! Handlers parse and render; the use case, and what each kind does to the score sheet and the
//! ledger, is `tablekeeper_service::rulings`.

use actix_web::{get, post, web, HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

use super::answers::Made;
use super::auth::{Caller, Reads};
use super::error::{ApiError, Problem};
use super::game_schemas::AnyMove;
use super::reads::ReadPool;
use crate::State;
use tablekeeper_service::receipts::Receipt;
use tablekeeper_service::rulings::{self, Answer, Kind, Ruling, RulingRecord, Rulings};

/// The kind of a ruling.
#[derive(Serialize, Deserialize, ToSchema, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum RulingKind {
    /// The director's result for the deal, given as its moves (`moves`).
    Assigned,
    /// An average for the seats named (`seats`, all when none): `percent` (50 unless given) of
    /// the deal's best score in a points game, 0 net chips in a chip game.
    Average,
    /// A result for each seat named (`results`): points, or net chips summing to 0 in a chip game.
    Split,
    /// The deal does not count.
    Void,
}

/// One seat's result in a split.
#[derive(Serialize, Deserialize, ToSchema, Clone, Copy, Debug)]
#[serde(deny_unknown_fields)]
pub struct RulingSeatResult {
    /// 0-based, in the order the players were named.
    pub seat: u8,
    /// Points in a points game; net chips in a chip game.
    pub result: i64,
}

/// A ruling on a finished deal.
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"kind": "average", "reason": "board fouled at the table", "seats": [0, 2], "percent": 60}))]
pub struct RuleDeal {
    pub kind: RulingKind,
    /// Why, for the log and the players: 1 to 500 characters.
    pub reason: String,
    /// `assigned` only: the deal's moves as the director sets them.
    #[schema(value_type = Option<Vec<AnyMove>>)]
    pub moves: Option<Vec<Value>>,
    /// `average` only: the seats given average (none: every seat).
    pub seats: Option<Vec<u8>>,
    /// `average` only, 0 to 100: the share of the deal's best score an averaged seat gets in a
    /// points game.
    pub percent: Option<i64>,
    /// `split` only: each seat's result.
    pub results: Option<Vec<RulingSeatResult>>,
}

/// A seat's score and chips before and after the ruling.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct SeatDiff {
    pub seat: u8,
    pub player: String,
    /// The running total (as played, with every ruling's adjustment).
    pub score_before: i64,
    pub score_after: i64,
    /// The seat's ledger balance.
    pub chips_before: i64,
    pub chips_after: i64,
}

/// A ledger account whose balance the ruling moved: a seat, a fund, a pool, the bank.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct AccountDiff {
    #[schema(example = "widows_fund")]
    pub account: String,
    pub before: i64,
    pub after: i64,
}

/// A later deal whose score-sheet line the ruling moved (an `assigned` result only: the other
/// kinds change no cards).
#[derive(Serialize, Deserialize, ToSchema)]
pub struct LaterDeal {
    pub deal: u16,
    #[schema(value_type = Object)]
    pub before: Value,
    #[schema(value_type = Object)]
    pub after: Value,
}

/// A player of the session whose standing the ruling moved.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct StandingDiff {
    pub player: String,
    /// Net chips over the session's tables.
    pub chips_before: i64,
    pub chips_after: i64,
    /// Points over the session's tables of this table's game; null in a chip game.
    pub points_before: Option<i64>,
    pub points_after: Option<i64>,
}

/// What the ruling moved.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct RulingDiff {
    pub seats: Vec<SeatDiff>,
    pub accounts: Vec<AccountDiff>,
    pub later_deals: Vec<LaterDeal>,
    /// The session's standings that moved (none for a table outside a session).
    pub standings: Vec<StandingDiff>,
}

/// An answer of a phone (or a member) to a ruling. The ruling stands either way.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct RulingAnswerView {
    /// Its log entry.
    pub seq: i64,
    /// `agree` or `appeal`.
    #[schema(example = "appeal")]
    pub answer: String,
    pub comment: Option<String>,
    pub recorded_by: String,
    pub recorded_by_name: String,
    pub recorded_at: DateTime<Utc>,
}

/// A director's ruling: what was ruled, why, what it adjusted and moved, and the answers.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct RulingView {
    /// Its log entry: the ruling's id.
    pub id: i64,
    pub table_id: Uuid,
    pub deal: u16,
    pub kind: RulingKind,
    pub reason: String,
    /// `average`: the seats given average (empty: every seat).
    pub seats: Option<Vec<u8>>,
    pub percent: Option<i64>,
    pub results: Option<Vec<RulingSeatResult>>,
    #[schema(value_type = Option<Vec<AnyMove>>)]
    pub moves: Option<Vec<Value>>,
    /// `assigned`: the correction (log entry) that entered the director's moves.
    pub correction: Option<i64>,
    /// Per seat, the points the ruling moved the deal's result by (in a chip game, its chips).
    pub scores: Vec<i64>,
    /// The booking the ruling made (a chip game, when chips moved): memo and postings.
    #[schema(value_type = Option<Object>)]
    pub booking: Option<Value>,
    pub diff: RulingDiff,
    pub answers: Vec<RulingAnswerView>,
    pub recorded_by: String,
    pub recorded_by_name: String,
    pub recorded_at: DateTime<Utc>,
}

fn kind_of(name: &str) -> RulingKind {
    match name {
        "assigned" => RulingKind::Assigned,
        "average" => RulingKind::Average,
        "split" => RulingKind::Split,
        _ => RulingKind::Void,
    }
}

/// A stored ruling as answered.
///
/// # Errors
/// When what is stored does not read (a fault: the use case wrote it).
pub fn view(
    table: Uuid,
    r: RulingRecord,
    names: &std::collections::HashMap<String, String>,
) -> Result<RulingView, serde_json::Error> {
    let field = |name: &str| r.body.get(name).filter(|v| !v.is_null()).cloned();
    let read = |e: serde_json::Error| e;
    Ok(RulingView {
        id: r.seq,
        table_id: table,
        deal: r.deal,
        kind: kind_of(&r.kind),
        seats: field("seats").map(serde_json::from_value).transpose().map_err(read)?,
        percent: field("percent").and_then(|v| v.as_i64()),
        results: field("results").map(serde_json::from_value).transpose().map_err(read)?,
        moves: field("assigned_moves")
            .map(serde_json::from_value)
            .transpose()
            .map_err(read)?,
        correction: field("correction").and_then(|v| v.as_i64()),
        scores: field("scores")
            .map(serde_json::from_value)
            .transpose()
            .map_err(read)?
            .unwrap_or_default(),
        booking: field("booking"),
        diff: serde_json::from_value(r.diff).map_err(read)?,
        answers: r
            .answers
            .into_iter()
            .map(|a| RulingAnswerView {
                recorded_by_name: super::names::name(names, &a.recorded_by),
                seq: a.seq,
                answer: if a.agree { "agree" } else { "appeal" }.to_owned(),
                comment: a.comment,
                recorded_by: a.recorded_by,
                recorded_at: a.recorded_at,
            })
            .collect(),
        recorded_by_name: super::names::name(names, &r.recorded_by),
        reason: r.reason,
        recorded_by: r.recorded_by,
        recorded_at: r.recorded_at,
    })
}

/// A ruling's log entry's `move` (entry `ruling`): the ruling as entered, what it adjusted and
/// its diff.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct RulingEntry {
    pub deal: u16,
    pub kind: RulingKind,
    pub reason: String,
    pub seats: Option<Vec<u8>>,
    pub percent: Option<i64>,
    pub results: Option<Vec<RulingSeatResult>>,
    /// `assigned`: the director's moves.
    #[schema(value_type = Option<Vec<AnyMove>>)]
    pub assigned_moves: Option<Vec<Value>>,
    pub correction: Option<i64>,
    pub scores: Vec<i64>,
    #[schema(value_type = Option<Object>)]
    pub booking: Option<Value>,
    pub diff: RulingDiff,
}

/// A phone's answer's log entry's `move` (entry `ruling`, kind `response`).
#[derive(Serialize, Deserialize, ToSchema)]
pub struct RulingAnswerEntry {
    pub deal: u16,
    /// The ruling answered.
    pub ruling: i64,
    pub answer: RulingAnswerKind,
    pub comment: Option<String>,
}

/// A ruling as a write leaves it, with the write's receipt.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct RulingAnswer {
    #[serde(flatten)]
    pub ruling: RulingView,
    /// The audit key's signature on the table's chain as the write leaves it.
    pub receipt: Receipt,
}

/// A stored ruling that does not read: a fault, logged.
fn unreadable(e: &serde_json::Error) -> ApiError {
    tracing::error!(error = %e, "a ruling does not read");
    ApiError::internal()
}

fn one(rulings: Rulings, id: i64) -> Result<(RulingView, Option<Receipt>), ApiError> {
    let Rulings {
        table,
        rulings,
        names,
        receipt,
    } = rulings;
    let found = rulings
        .into_iter()
        .find(|r| r.seq == id)
        .ok_or_else(|| ApiError::not_found("ruling_not_found", format!("there is no ruling {id} of this deal")))?;
    Ok((view(table.id, found, &names).map_err(|e| unreadable(&e))?, receipt))
}

/// The answer to a write: ruling `id` (the deal's last when none) with the write's receipt,
/// made at `{base}/{id}`.
fn written(rulings: Rulings, id: Option<i64>, base: &str) -> Result<Made, serde_json::Error> {
    use serde::de::Error;
    let Rulings {
        table,
        rulings,
        names,
        receipt,
    } = rulings;
    let id = id.or_else(|| rulings.last().map(|r| r.seq));
    let found = rulings
        .into_iter()
        .find(|r| Some(r.seq) == id)
        .ok_or_else(|| serde_json::Error::custom("the ruling written is not among the deal's"))?;
    let receipt = receipt.ok_or_else(|| serde_json::Error::custom("a write has a receipt"))?;
    let ruling = view(table.id, found, &names)?;
    let location = format!("{base}/{}", ruling.id);
    Ok(Made::created(&RulingAnswer { ruling, receipt })?.at(location))
}

fn deal_number(n: i64) -> Result<u16, ApiError> {
    u16::try_from(n)
        .ok()
        .filter(|n| *n >= 1)
        .ok_or_else(|| ApiError::not_found("deal_not_found", format!("there is no deal {n}: deals count from 1")))
}

fn reason(text: &str, what: &str) -> Result<String, ApiError> {
    super::input::display_name(text, 500).map(str::to_owned).ok_or_else(|| {
        ApiError::unprocessable(
            "invalid_text",
            format!("a {what} is 1 to 500 characters, without control characters"),
        )
    })
}

fn invalid(detail: &str) -> ApiError {
    ApiError::unprocessable("invalid_ruling", detail.to_owned())
}

/// The ruling asked for, each kind with its own fields and no other's.
fn kind(body: RuleDeal) -> Result<Kind, ApiError> {
    let RuleDeal {
        kind,
        moves,
        seats,
        percent,
        results,
        ..
    } = body;
    match kind {
        RulingKind::Assigned => {
            if seats.is_some() || percent.is_some() || results.is_some() {
                return Err(invalid("an assigned ruling gives `moves` only"));
            }
            let moves = moves.ok_or_else(|| invalid("an assigned ruling gives the deal's `moves`"))?;
            Ok(Kind::Assigned { moves })
        }
        RulingKind::Average => {
            if moves.is_some() || results.is_some() {
                return Err(invalid("an average gives `seats` and `percent` only"));
            }
            Ok(Kind::Average {
                seats: seats.unwrap_or_default(),
                percent: percent.unwrap_or(50),
            })
        }
        RulingKind::Split => {
            if moves.is_some() || seats.is_some() || percent.is_some() {
                return Err(invalid("a split gives `results` only"));
            }
            let results = results.ok_or_else(|| invalid("a split gives each seat's result: `results`"))?;
            Ok(Kind::Split {
                results: results.iter().map(|r| (r.seat, r.result)).collect(),
            })
        }
        RulingKind::Void => {
            if moves.is_some() || seats.is_some() || percent.is_some() || results.is_some() {
                return Err(invalid("a void gives no result: only `kind` and `reason`"));
            }
            Ok(Kind::Void)
        }
    }
}

/// A director's ruling on a finished deal (organisers only; a phone never rules): `assigned`
/// (the director's result, entered as the deal's moves and replayed like a correction, later
/// deals following), `average` (a percentage of the deal's best for the seats named, 0 net
/// chips in a chip game), `split` (each seat's own result) or `void` (the deal does not
/// count), with a reason. `average`, `split` and `void` change no cards: the deal's result is
/// adjusted beside its score-sheet line, and in a chip game one booking brings the deal's
/// accounts to the ruling. The answer holds the diff: each seat's score and chips before and
/// after, every account and later deal that moved. The ruling is an entry of the table's log,
/// in its chain and its bundle. Send an `Idempotency-Key` to retry safely: a retry with the
/// same key and body gets the first answer (marked `Idempotent-Replayed: true`) and rules
/// nothing; the table's moves, corrections, verifications and rulings share one set of keys.
#[utoipa::path(tag = "deals", request_body = RuleDeal, security(("bearer" = [])),
    params(
        ("id" = Uuid, Path),
        ("n" = i64, Path, description = "the deal, from 1, as on the score sheet"),
        ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key and body returns the first answer and rules nothing"),
    ),
    responses(
        (status = 201, body = RulingAnswer, headers(
            ("Location" = String, description = "the ruling"),
            ("Idempotent-Replayed" = Option<String>, description = "`true` when this is the first answer to an earlier request with the same `Idempotency-Key`"),
        )),
        (status = 400, description = "`malformed_json`, `invalid_idempotency_key`", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `scorer_revoked`", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`forbidden`: not one who organises the table's club (a phone never rules)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`table_not_found`, `deal_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`deal_not_finished`: a ruling is on a finished deal; `session_final`: the table's session is final; `correction_conflicts` (an assigned result a later move no longer fits), `table_damaged`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_ruling` (a field of another kind, a seat not at the table, a split that does not balance, a percent out of 0 to 100), `invalid_text` (the reason), `unknown_variant` (the kind), `invalid_body` (a field missing), `unknown_field`, `idempotency_key_reused`, and for `assigned` a rule violation of its moves or `not_the_deal`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/tables/{id}/deals/{n}/rulings")]
pub async fn create_ruling(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    path: web::Path<(Uuid, i64)>,
    body: web::Json<RuleDeal>,
) -> Result<HttpResponse, ApiError> {
    let (id, n) = path.into_inner();
    let deal = deal_number(n)?;
    let key = super::tables::creation_key(&req, "create_ruling", || serde_json::to_value((n, &*body)))?;
    let body = body.into_inner();
    let reason = reason(&body.reason, "ruling's reason")?;
    let ruling = Ruling {
        table: id,
        by: who,
        deal,
        kind: kind(body)?,
        reason,
        now: state.clock.now(),
    };
    let base = format!("/api/v1/tables/{id}/deals/{deal}/rulings");
    let render = |done| written(done, None, &base);
    let outcome = rulings::rule(&state.pool, &state.keys, ruling, key.as_ref(), render).await?;
    super::answers::respond(outcome, |kept| Some(format!("{base}/{}", kept["id"])))
}

/// The deal's rulings, oldest first, each with its diff and the answers given to it.
#[utoipa::path(tag = "deals", security(("bearer" = [])),
    params(("id" = Uuid, Path), ("n" = i64, Path, description = "the deal, from 1, as on the score sheet")),
    responses(
        (status = 200, body = Vec<RulingView>),
        (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`table_not_found`, `deal_not_found`", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/tables/{id}/deals/{n}/rulings")]
pub async fn list_rulings(
    pool: ReadPool,
    Reads(who): Reads,
    path: web::Path<(Uuid, i64)>,
) -> Result<HttpResponse, ApiError> {
    let (id, n) = path.into_inner();
    let deal = deal_number(n)?;
    tablekeeper_service::access::readable_table(&pool, who, id).await?;
    let Rulings {
        table, rulings, names, ..
    } = rulings::list(&pool, id, deal).await?;
    let out = rulings
        .into_iter()
        .map(|r| view(table.id, r, &names))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| unreadable(&e))?;
    Ok(HttpResponse::Ok().json(out))
}

/// One ruling of the deal, with its diff and the answers given to it.
#[utoipa::path(tag = "deals", security(("bearer" = [])),
    params(("id" = Uuid, Path), ("n" = i64, Path, description = "the deal, from 1, as on the score sheet"), ("ruling" = i64, Path, description = "the ruling's id (its log entry)")),
    responses(
        (status = 200, body = RulingView),
        (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`table_not_found`, `deal_not_found`, `ruling_not_found`", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/tables/{id}/deals/{n}/rulings/{ruling}")]
pub async fn get_ruling(
    pool: ReadPool,
    Reads(who): Reads,
    path: web::Path<(Uuid, i64, i64)>,
) -> Result<HttpResponse, ApiError> {
    let (id, n, ruling) = path.into_inner();
    let deal = deal_number(n)?;
    tablekeeper_service::access::readable_table(&pool, who, id).await?;
    let (view, _) = one(rulings::list(&pool, id, deal).await?, ruling)?;
    Ok(HttpResponse::Ok().json(view))
}

/// `agree` or `appeal`.
#[derive(Serialize, Deserialize, ToSchema, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum RulingAnswerKind {
    Agree,
    Appeal,
}

/// A phone's answer to a ruling.
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"answer": "appeal", "comment": "East had shown out of hearts"}))]
pub struct AnswerRuling {
    pub answer: RulingAnswerKind,
    /// 1 to 500 characters.
    pub comment: Option<String>,
}

/// A phone's (or a member's) answer to a ruling of its table: `agree` or `appeal`, with a
/// comment. The ruling stands either way; the answer is an entry of the table's log (in its
/// chain and bundle), with who and when, shown with the ruling.
#[utoipa::path(tag = "deals", request_body = AnswerRuling, security(("bearer" = [])),
    params(
        ("id" = Uuid, Path),
        ("n" = i64, Path, description = "the deal, from 1, as on the score sheet"),
        ("ruling" = i64, Path, description = "the ruling's id (its log entry)"),
        ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key and body returns the first answer and records nothing"),
    ),
    responses(
        (status = 201, body = RulingAnswer, headers(
            ("Location" = String, description = "the ruling"),
            ("Idempotent-Replayed" = Option<String>, description = "`true` when this is the first answer to an earlier request with the same `Idempotency-Key`"),
        )),
        (status = 400, description = "`malformed_json`, `invalid_idempotency_key`", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `scorer_revoked`", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`forbidden`: a role that neither records nor audits", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`table_not_found` (a phone of another table among them), `deal_not_found`, `ruling_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`session_final`: the table's session is final; `table_damaged`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_text` (the comment), `unknown_variant` (the answer), `invalid_body` (a field missing), `unknown_field`, `idempotency_key_reused`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/tables/{id}/deals/{n}/rulings/{ruling}/answers")]
pub async fn answer_ruling(
    state: web::Data<State>,
    req: HttpRequest,
    Caller(who): Caller,
    path: web::Path<(Uuid, i64, i64)>,
    body: web::Json<AnswerRuling>,
) -> Result<HttpResponse, ApiError> {
    let (id, n, ruling) = path.into_inner();
    let deal = deal_number(n)?;
    let key = super::tables::creation_key(&req, "answer_ruling", || serde_json::to_value((n, ruling, &*body)))?;
    let body = body.into_inner();
    let comment = body.comment.as_deref().map(|c| reason(c, "comment")).transpose()?;
    let a = Answer {
        table: id,
        by: who,
        deal,
        ruling,
        agree: body.answer == RulingAnswerKind::Agree,
        comment,
        now: state.clock.now(),
    };
    let base = format!("/api/v1/tables/{id}/deals/{deal}/rulings");
    let render = |done| written(done, Some(ruling), &base);
    let outcome = rulings::answer_ruling(&state.pool, &state.keys, a, key.as_ref(), render).await?;
    super::answers::respond(outcome, |_| Some(format!("{base}/{ruling}")))
}
