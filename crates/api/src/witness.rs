//! A table as its own witness: its Merkle tree's checkpoint, and proofs that an entry is in it
//! or that it only grew (`service::witness`). Read as the table's log is read.

use actix_web::http::header::CONTENT_TYPE;
use actix_web::{get, post, web, HttpResponse};
use serde::{Deserialize, Serialize};
use tablekeeper_service::cosigning::{self, BoardKey, CosignatureSubmission, CosignedCheckpoint, PhoneKey};
use tablekeeper_service::witness::{self, note, ConsistencyProof, InclusionProof, Witness};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::auth::{Caller, Reads};
use super::error::{ApiError, Problem};
use super::reads::ReadPool;
use super::State;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct SizeQuery {
    /// The tree's size (how many chain entries it covers); default: the table's size now.
    pub size: Option<u64>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ConsistencyQuery {
    /// The earlier size, at least 1.
    pub from: u64,
    /// The later size; default: the table's size now.
    pub to: Option<u64>,
}

/// The table's checkpoint: a signed statement of its Merkle tree's size and root hash, in the
/// C2SP signed-note format (origin `<host>/tables/<id>`, the size, the base64 root hash, a blank
/// line and the audit key's signature line), which any transparency-log tool reads; keep it to
/// check proofs against later with `tablekeeper verify --inclusion`.
#[utoipa::path(tag = "tables", security(("bearer" = [])), params(("id" = Uuid, Path), SizeQuery), responses(
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 400, description = "`invalid_query`: an unknown query parameter, or a size that is not a whole number", body = Problem, content_type = "application/problem+json"),
    (status = 200, description = "the signed note", content((String = "text/plain", example = "tablekeeper/tables/0d5c6a1e-8f4b-4b6e-9a2d-3c1f0e9b8a70\n9\nUNhY4JhezH9gQYqvDMWrWH9CwlcKiECVqejMrND2VFw=\n\n\u{2014} tablekeeper OrlJ5/RcUm6krsK7k0uL51xUoCX26ZgRpPhs8ED6cHbfIZy6gP3l2gACXd8Yy6M6nHlxPGjtmrBjOUGkWgSwwoaN1Q0=\n"))),
    (status = 404, description = "`table_not_found`: no such table, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`table_damaged`: the table's chain has a gap; the audit names it", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`size_beyond_tree`: the tree is not that big yet", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tables/{id}/checkpoint")]
pub async fn get_table_checkpoint(
    state: web::Data<State>,
    pool: ReadPool,
    Reads(who): Reads,
    id: web::Path<Uuid>,
    query: web::Query<SizeQuery>,
) -> Result<HttpResponse, ApiError> {
    tablekeeper_service::access::readable_table(&pool, who, *id).await?;
    let key = state.keys.signing(&state.pool).await?;
    let name = note::log_name(state.public_url.as_deref());
    let tree = witness::read(&pool, *id).await?;
    let checkpoint = tree.checkpoint(Witness { name: &name, key }, query.size)?;
    Ok(HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, "text/plain; charset=utf-8"))
        .body(checkpoint.note))
}

/// The proof that one log entry (a move, a void, a correction) is in the table's Merkle tree of
/// a size (the current one by default): the entry's place among the tree's leaves, its chain
/// link (the leaf's data is the link's hash), the proof's hashes (RFC 9162) and the signed
/// checkpoint of that size. A few hundred bytes that `tablekeeper verify --inclusion` checks
/// offline, years later, against a checkpoint kept then.
#[utoipa::path(tag = "tables", security(("bearer" = [])), params(("id" = Uuid, Path), ("seq" = i64, Path, description = "the log entry's seq"), SizeQuery), responses(
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 400, description = "`invalid_query`: an unknown query parameter, or a size that is not a whole number", body = Problem, content_type = "application/problem+json"),
    (status = 200, body = InclusionProof),
    (status = 404, description = "`table_not_found`: no such table, or the caller may not read it (another club's, another table's scorer, another session's share link); `entry_not_linked`: the table's chain holds no log entry of that seq", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`table_damaged`: the table's chain has a gap; the audit names it", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`size_beyond_tree`: the tree is not that big yet; `entry_beyond_size`: the entry was linked after the tree of that size", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tables/{id}/moves/{seq}/proof")]
pub async fn get_move_proof(
    state: web::Data<State>,
    pool: ReadPool,
    Reads(who): Reads,
    path: web::Path<(Uuid, i64)>,
    query: web::Query<SizeQuery>,
) -> Result<HttpResponse, ApiError> {
    let (id, seq) = path.into_inner();
    tablekeeper_service::access::readable_table(&pool, who, id).await?;
    let key = state.keys.signing(&state.pool).await?;
    let name = note::log_name(state.public_url.as_deref());
    let tree = witness::read(&pool, id).await?;
    let mut proof: InclusionProof = tree.inclusion(Witness { name: &name, key }, seq, query.size)?;
    proof.content = witness::entry_content(&pool, id, seq, proof.link.content_version).await?;
    Ok(HttpResponse::Ok().json(proof))
}

/// The proof that the table's Merkle tree at one size is the start of its tree at a later size
/// (the current one by default): nothing recorded by then was changed, removed or reordered
/// since, only entries added. With the signed checkpoints of both sizes.
#[utoipa::path(tag = "tables", security(("bearer" = [])), params(("id" = Uuid, Path), ConsistencyQuery), responses(
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 400, description = "`invalid_query`: an unknown query parameter, `from` missing, or a size that is not a whole number", body = Problem, content_type = "application/problem+json"),
    (status = 200, body = ConsistencyProof),
    (status = 404, description = "`table_not_found`: no such table, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`table_damaged`: the table's chain has a gap; the audit names it", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`size_zero`: `from` is 0; `sizes_reversed`: `from` is beyond `to`; `size_beyond_tree`: the tree is not that big yet", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tables/{id}/consistency")]
pub async fn get_table_consistency(
    state: web::Data<State>,
    pool: ReadPool,
    Reads(who): Reads,
    id: web::Path<Uuid>,
    query: web::Query<ConsistencyQuery>,
) -> Result<HttpResponse, ApiError> {
    tablekeeper_service::access::readable_table(&pool, who, *id).await?;
    let key = state.keys.signing(&state.pool).await?;
    let name = note::log_name(state.public_url.as_deref());
    let tree = witness::read(&pool, *id).await?;
    let proof: ConsistencyProof = tree.consistency(Witness { name: &name, key }, query.from, query.to)?;
    Ok(HttpResponse::Ok().json(proof))
}

/// A phone's Ed25519 public key, to cosign its table's checkpoints with.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PhoneKeyRegistration {
    /// The raw 32-byte Ed25519 public key, base64 (WebCrypto's `exportKey("raw", …)`).
    #[schema(example = "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=")]
    pub public_key: String,
}

/// Registers the calling phone's Ed25519 public key, made on the phone on its first use: with
/// it the phone cosigns the table's checkpoints it has seen grow consistently. A phone keeps
/// its first key for good (the same key again is answered as registered).
#[utoipa::path(tag = "tables", request_body = PhoneKeyRegistration, security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 201, body = PhoneKey, description = "the key, registered now"),
    (status = 200, body = PhoneKey, description = "the same key, registered before"),
    (status = 400, description = "`malformed_json`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`not_a_phone`: only a phone that joined the table cosigns; `phone_of_another_table`; `share_link_read_only`", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`table_not_found`", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`phone_key_taken`: the phone registered another key", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`invalid_phone_key`: not 32 bytes of base64 of an Ed25519 key; `invalid_body`, `unknown_field`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/tables/{id}/phone-key")]
pub async fn register_phone_key(
    state: web::Data<State>,
    Caller(who): Caller,
    id: web::Path<Uuid>,
    body: web::Json<PhoneKeyRegistration>,
) -> Result<HttpResponse, ApiError> {
    let name = note::log_name(state.public_url.as_deref());
    let (key, new) = cosigning::register_key(&state.pool, who, *id, &body.public_key, &name).await?;
    Ok(if new {
        HttpResponse::Created().json(key)
    } else {
        HttpResponse::Ok().json(key)
    })
}

/// A phone's cosignature of one of its table's checkpoints, in the C2SP tlog-cosignature shape
/// (`cosignature/v1`): the phone says it saw the table's tree grow consistently to this
/// checkpoint. Kept only if the checkpoint is the service's own for the table (same size and
/// root hash as its tree of that size) and the signature verifies under the phone's key.
#[utoipa::path(tag = "tables", request_body = CosignatureSubmission, security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 201, body = CosignedCheckpoint, description = "kept: the checkpoint and its cosignatures now", headers(
        ("Location" = String, description = "the checkpoint's address (`GET` lists its cosignatures)"),
    )),
    (status = 400, description = "`malformed_json`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`not_a_phone`: only a phone that joined the table cosigns; `phone_of_another_table`; `share_link_read_only`", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`table_not_found`; `checkpoint_not_found`: the table's tree has no checkpoint of that size", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`phone_key_missing`: register the phone's key first; `table_damaged`", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`cosignature_malformed`: not a cosignature line or not a checkpoint; `checkpoint_not_signed`: the service never signed that checkpoint (another root hash at that size, or another log); `cosignature_invalid`: the signature does not verify under the phone's key; `cosignature_from_the_future`: signed at a time more than five minutes ahead of the service's clock; `invalid_body`, `unknown_field`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/tables/{id}/cosignatures")]
pub async fn submit_cosignature(
    state: web::Data<State>,
    Caller(who): Caller,
    id: web::Path<Uuid>,
    body: web::Json<CosignatureSubmission>,
) -> Result<HttpResponse, ApiError> {
    let key = state.keys.signing(&state.pool).await?;
    let name = note::log_name(state.public_url.as_deref());
    let witness = Witness { name: &name, key };
    let cosigned = cosigning::submit(&state.pool, witness, who, *id, &body, state.clock.now()).await?;
    let location = format!("/api/v1/tables/{}/checkpoints/{}", *id, cosigned.checkpoint.size);
    Ok(HttpResponse::Created()
        .insert_header(("Location", location))
        .json(cosigned))
}

/// The table's checkpoint of one size and the phones' and its session's boards' cosignatures
/// of it (who, with which key, when), with the note carrying them all; and cosignatures of that
/// size over another root hash, if a phone or board ever saw another history.
#[utoipa::path(tag = "tables", security(("bearer" = [])), params(("id" = Uuid, Path), ("size" = u64, Path, description = "the tree's size")), responses(
    (status = 200, body = CosignedCheckpoint),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`table_not_found`: no such table, or the caller may not read it; `checkpoint_not_found`: the table's tree has no checkpoint of that size", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`table_damaged`: the table's chain has a gap; the audit names it", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tables/{id}/checkpoints/{size}")]
pub async fn get_cosigned_checkpoint(
    state: web::Data<State>,
    pool: ReadPool,
    Reads(who): Reads,
    path: web::Path<(Uuid, u64)>,
) -> Result<HttpResponse, ApiError> {
    let (id, size) = path.into_inner();
    tablekeeper_service::access::readable_table(&pool, who, id).await?;
    let key = state.keys.signing(&state.pool).await?;
    let name = note::log_name(state.public_url.as_deref());
    let cosigned = cosigning::cosigned(&pool, Witness { name: &name, key }, id, size).await?;
    Ok(HttpResponse::Ok().json(cosigned))
}

/// A board's Ed25519 public key, to cosign its session's tables' checkpoints with.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BoardKeyRegistration {
    /// The raw 32-byte Ed25519 public key, base64 (WebCrypto's `exportKey("raw", …)`).
    #[schema(example = "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=")]
    pub public_key: String,
    /// What the players read as who cosigned (1 to 60 characters); "Board" when left out.
    #[schema(example = "Room 2 board")]
    pub name: Option<String>,
}

/// Registers a board's Ed25519 public key for the session, made on the board (the club's big
/// screen, opened with the session's share link or by a member) on its first use: with it the
/// board cosigns each of the session's tables' checkpoints it has seen grow consistently, as
/// the tables' phones do. A board is known by its key: the same key again is the same board,
/// answered as registered. At most 16 boards a session.
#[utoipa::path(tag = "sessions", request_body = BoardKeyRegistration, security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 201, body = BoardKey, description = "the board, registered now"),
    (status = 200, body = BoardKey, description = "the same key, registered before: the same board"),
    (status = 400, description = "`malformed_json`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`session_not_found`: no such session, or the caller may not read it (another club's, a phone, another session's share link)", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`too_many_boards`: the session has 16 boards already", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`invalid_board_key`: not 32 bytes of base64 of an Ed25519 key; `invalid_board_name`: blank, over 60 characters or with control characters; `invalid_body`, `unknown_field`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/sessions/{id}/board-key")]
pub async fn register_board_key(
    state: web::Data<State>,
    Reads(who): Reads,
    id: web::Path<Uuid>,
    body: web::Json<BoardKeyRegistration>,
) -> Result<HttpResponse, ApiError> {
    let name = note::log_name(state.public_url.as_deref());
    let (key, new) =
        cosigning::register_board(&state.pool, who, *id, &body.public_key, body.name.as_deref(), &name).await?;
    Ok(if new {
        HttpResponse::Created().json(key)
    } else {
        HttpResponse::Ok().json(key)
    })
}

/// A board's cosignature of one of its session's tables' checkpoints, in the C2SP
/// tlog-cosignature shape, signed as `<log name>/boards/<board id>`: the board says it saw the
/// table's tree grow consistently to this checkpoint. Kept only if the board is registered for
/// the table's session, the checkpoint is the service's own for the table and the signature
/// verifies under the board's key.
#[utoipa::path(tag = "tables", request_body = CosignatureSubmission, security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 201, body = CosignedCheckpoint, description = "kept: the checkpoint and its cosignatures now", headers(
        ("Location" = String, description = "the checkpoint's address (`GET` lists its cosignatures)"),
    )),
    (status = 400, description = "`malformed_json`", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "`table_not_found`: no such table, or the caller may not read it; `checkpoint_not_found`: the table's tree has no checkpoint of that size", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "`table_damaged`", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`cosignature_malformed`: not a cosignature line or not a checkpoint; `checkpoint_not_signed`: the service never signed that checkpoint; `cosignature_invalid`: not signed as a board of the table's session, or the signature does not verify under the board's key; `cosignature_from_the_future`; `invalid_body`, `unknown_field`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/tables/{id}/board-cosignatures")]
pub async fn submit_board_cosignature(
    state: web::Data<State>,
    Reads(who): Reads,
    id: web::Path<Uuid>,
    body: web::Json<CosignatureSubmission>,
) -> Result<HttpResponse, ApiError> {
    let key = state.keys.signing(&state.pool).await?;
    let name = note::log_name(state.public_url.as_deref());
    let witness = Witness { name: &name, key };
    let cosigned = cosigning::submit_board(&state.pool, witness, who, *id, &body, state.clock.now()).await?;
    let location = format!("/api/v1/tables/{}/checkpoints/{}", *id, cosigned.checkpoint.size);
    Ok(HttpResponse::Created()
        .insert_header(("Location", location))
        .json(cosigned))
}
