//! Club sessions: a sitting that groups tables.

use actix_web::{get, post, web, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::auth::Principal;
use super::error::{ApiError, Problem};
use super::tables::TableSummary;
use crate::store::{self, StoreError};

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateSession {
    #[schema(example = "Thursday club night")]
    pub name: String,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct SessionSummary {
    pub id: Uuid,
    pub name: String,
    pub owner_id: Uuid,
    pub created_at: DateTime<Utc>,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct SessionView {
    pub id: Uuid,
    pub name: String,
    pub owner_id: Uuid,
    pub created_at: DateTime<Utc>,
    /// The session's tables, oldest first.
    pub tables: Vec<TableSummary>,
    /// Per table (in the order of `tables`), its finished deals and how many of them no second
    /// phone has verified yet, or are disputed.
    pub verification: Vec<TableVerification>,
}

/// How far a table's finished deals are verified.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct TableVerification {
    pub table_id: Uuid,
    pub deals: usize,
    pub unverified: usize,
    pub disputed: usize,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct SessionPage {
    pub items: Vec<SessionSummary>,
    /// The offset of the next page; null on the last page.
    pub next_offset: Option<i64>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PageQuery {
    /// 1 to 500; default 100.
    pub limit: Option<i64>,
    pub offset: Option<i64>,
}

impl From<store::sessions::ClubSession> for SessionSummary {
    fn from(s: store::sessions::ClubSession) -> SessionSummary {
        SessionSummary {
            id: s.id,
            name: s.name,
            owner_id: s.owner_id,
            created_at: s.created_at,
        }
    }
}

/// Starts a session (organisers only).
#[utoipa::path(tag = "sessions", request_body = CreateSession, security(("bearer" = [])), responses(
    (status = 201, body = SessionSummary),
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "`forbidden`: a scorer token", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`invalid_name`", body = Problem, content_type = "application/problem+json"),
))]
#[post("/sessions")]
pub async fn create_session(
    pool: web::Data<PgPool>,
    who: Principal,
    body: web::Json<CreateSession>,
) -> Result<HttpResponse, ApiError> {
    let owner = who.organiser()?;
    let name = super::input::display_name(&body.name, 200).ok_or_else(|| {
        ApiError::unprocessable(
            "invalid_name",
            "a session name is 1 to 200 characters, without control characters",
        )
    })?;
    let session = crate::service::sessions::create(&pool, owner, name).await?;
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/api/v1/sessions/{}", session.id)))
        .json(SessionSummary::from(session)))
}

/// The caller's sessions, newest first.
#[utoipa::path(tag = "sessions", params(PageQuery), security(("bearer" = [])), responses(
    (status = 200, body = SessionPage),
    (status = 401, description = "`missing_token`, `invalid_token`", body = Problem, content_type = "application/problem+json"),
))]
#[get("/sessions")]
pub async fn list_sessions(
    pool: web::Data<PgPool>,
    who: Principal,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let owner = who.organiser()?;
    let limit = super::input::page_limit(query.limit)?;
    let offset = query.offset.unwrap_or(0).max(0);
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let rows = store::sessions::list(&mut conn, owner, limit + 1, offset).await?;
    let more = rows.len() as i64 > limit;
    let items: Vec<SessionSummary> = rows.into_iter().take(limit as usize).map(Into::into).collect();
    Ok(HttpResponse::Ok().json(SessionPage {
        items,
        next_offset: more.then_some(offset + limit),
    }))
}

/// A session with its tables.
#[utoipa::path(tag = "sessions", params(("id" = Uuid, Path)), responses(
    (status = 200, body = SessionView),
    (status = 404, description = "`session_not_found`", body = Problem, content_type = "application/problem+json"),
))]
#[get("/sessions/{id}")]
pub async fn get_session(pool: web::Data<PgPool>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let session = store::sessions::fetch(&mut conn, *id).await?;
    let tables = store::tables::list(&mut conn, None, Some(session.id), 1000, 0).await?;
    let mut verification = Vec::with_capacity(tables.len());
    for table in &tables {
        let (deals, unverified, disputed) = crate::service::verification::counts(&mut conn, table).await?;
        verification.push(TableVerification {
            table_id: table.id,
            deals,
            unverified,
            disputed,
        });
    }
    Ok(HttpResponse::Ok().json(SessionView {
        id: session.id,
        name: session.name,
        owner_id: session.owner_id,
        created_at: session.created_at,
        tables: tables.into_iter().map(TableSummary::from).collect(),
        verification,
    }))
}
