//! A table as its own witness: its Merkle tree's checkpoint, and proofs that an entry is in it
//! or that it only grew (`service::witness`). Read as the table's log is read.

use actix_web::http::header::CONTENT_TYPE;
use actix_web::{get, web, HttpResponse};
use serde::Deserialize;
use tablekeeper_service::witness::{self, note, ConsistencyProof, InclusionProof, Witness};
use utoipa::IntoParams;
use uuid::Uuid;

use super::auth::Reads;
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
