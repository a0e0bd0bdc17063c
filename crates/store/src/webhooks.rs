//! Webhooks: a club's endpoints, the outbox of their deliveries, and each delivery's attempts.
//!
//! Invariants: a delivery row is written in the transaction (or the one statement) that wrote
//! the entry causing its event, so an event is delivered exactly when its entry committed; a
//! pending row is held by at most one worker at a time (claimed with `FOR UPDATE SKIP LOCKED`,
//! under a lease that lapses if the worker dies), and only the claim that holds it records its
//! outcome.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

use super::binder::{Binder, Param};
use super::StoreError;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Webhook {
    pub id: Uuid,
    pub club_id: Uuid,
    pub url: String,
    pub events: Vec<String>,
    pub secret: String,
    pub created_by: Uuid,
    pub created_at: DateTime<Utc>,
}

/// An event for the club's endpoints that asked for its type: `(type, body)`.
#[derive(Debug, Clone)]
pub struct Event {
    pub kind: &'static str,
    pub body: String,
}

/// A delivery as listed.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Delivery {
    pub id: Uuid,
    pub webhook_id: Uuid,
    pub event_type: String,
    pub body: String,
    pub created_at: DateTime<Utc>,
    pub state: String,
    pub attempts: i32,
    pub next_attempt_at: DateTime<Utc>,
    pub delivered_at: Option<DateTime<Utc>>,
}

/// One attempt at a delivery.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Attempt {
    pub delivery_id: Uuid,
    pub attempt: i32,
    pub attempted_at: DateTime<Utc>,
    pub status: Option<i16>,
    pub error: Option<String>,
    pub duration_ms: i32,
}

/// A delivery a worker holds: what it sends, and the claim that records the outcome.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Claimed {
    pub id: Uuid,
    pub lease: Uuid,
    pub attempts: i32,
    pub body: String,
    pub url: String,
    pub secret: String,
}

/// # Errors
/// On database failure.
pub async fn insert(
    conn: &mut PgConnection,
    club: Uuid,
    url: &str,
    events: &[String],
    secret: &str,
    by: Uuid,
) -> Result<Webhook, StoreError> {
    Ok(sqlx::query_as!(
        Webhook,
        "insert into webhooks (id, club_id, url, events, secret, created_by)
         values ($1, $2, $3, $4, $5, $6) returning *",
        Uuid::new_v4(),
        club,
        url,
        events,
        secret,
        by,
    )
    .fetch_one(conn)
    .await?)
}

/// The club's endpoint.
///
/// # Errors
/// `NotFound("webhook")` when the club has no such endpoint; on database failure.
pub async fn fetch(conn: &mut PgConnection, club: Uuid, id: Uuid) -> Result<Webhook, StoreError> {
    sqlx::query_as!(
        Webhook,
        "select * from webhooks where club_id = $1 and id = $2",
        club,
        id
    )
    .fetch_optional(conn)
    .await?
    .ok_or(StoreError::NotFound("webhook"))
}

/// The club's endpoints, oldest first.
///
/// # Errors
/// On database failure.
pub async fn list(conn: &mut PgConnection, club: Uuid, limit: i64, offset: i64) -> Result<Vec<Webhook>, StoreError> {
    Ok(sqlx::query_as!(
        Webhook,
        "select * from webhooks where club_id = $1 order by created_at, id limit $2 offset $3",
        club,
        limit,
        offset,
    )
    .fetch_all(conn)
    .await?)
}

/// Deletes the club's endpoint with its deliveries (pending ones are not sent).
///
/// # Errors
/// `NotFound("webhook")` when the club has no such endpoint; on database failure.
pub async fn delete(conn: &mut PgConnection, club: Uuid, id: Uuid) -> Result<(), StoreError> {
    let done = sqlx::query!("delete from webhooks where club_id = $1 and id = $2", club, id)
        .execute(conn)
        .await?;
    if done.rows_affected() == 0 {
        return Err(StoreError::NotFound("webhook"));
    }
    Ok(())
}

/// The SQL that writes `events` of the club `club` to the outbox, one row per endpoint that
/// asked for the type, due at `now` (a value bound already); `after` names a CTE that must yield
/// a row for anything to be written (the move's version check), or none. The values are bound
/// to `binder` as the SQL names them.
pub(crate) fn outbox_sql(
    binder: &mut Binder,
    club: Uuid,
    events: &[Event],
    now: &Param,
    after: Option<&str>,
) -> String {
    let join = after.map(|cte| format!(" cross join {cte}")).unwrap_or_default();
    let (kinds, bodies): (Vec<&str>, Vec<&str>) = events.iter().map(|e| (e.kind, e.body.as_str())).unzip();
    let (types, bodies) = (binder.bind(kinds), binder.bind(bodies));
    let club = binder.bind(club);
    format!(
        "insert into webhook_deliveries (id, webhook_id, event_type, body, created_at, next_attempt_at)
         select gen_random_uuid(), w.id, e.kind, e.body, {now}, {now}
         from unnest({types}::text[], {bodies}::text[]) as e(kind, body)
         join webhooks w on w.club_id = {club} and e.kind = any(w.events){join}"
    )
}

/// Writes `events` of `club` to the outbox (in the caller's transaction).
///
/// # Errors
/// On database failure.
pub async fn enqueue(
    conn: &mut PgConnection,
    club: Uuid,
    events: &[Event],
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    if events.is_empty() {
        return Ok(());
    }
    let mut binder = Binder::new();
    let at = binder.bind(now);
    let sql = outbox_sql(&mut binder, club, events, &at, None);
    sqlx::query_with(&sql, binder.into_arguments()?).execute(conn).await?;
    Ok(())
}

/// Claims up to `limit` due deliveries for `lease`: each is held (not due) until then, and its
/// attempt counted. Rows another worker is claiming are skipped, not waited for.
///
/// # Errors
/// On database failure.
pub async fn claim(
    conn: &mut PgConnection,
    limit: i64,
    lease: std::time::Duration,
) -> Result<Vec<Claimed>, StoreError> {
    Ok(sqlx::query_as!(
        Claimed,
        r#"with due as (
             select id from webhook_deliveries
             where state = 'pending' and next_attempt_at <= now()
             order by next_attempt_at
             limit $1
             for update skip locked),
         held as (
             update webhook_deliveries d
             set lease = gen_random_uuid(), attempts = d.attempts + 1,
                 next_attempt_at = now() + make_interval(secs => $2)
             from due where d.id = due.id
             returning d.id, d.lease, d.attempts, d.body, d.webhook_id)
         select held.id as "id!", held.lease as "lease!", held.attempts as "attempts!", held.body as "body!", w.url, w.secret
         from held join webhooks w on w.id = held.webhook_id"#,
        limit,
        lease.as_secs_f64(),
    )
    .fetch_all(conn)
    .await?)
}

/// What became of an attempt.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub attempted_at: DateTime<Utc>,
    pub status: Option<u16>,
    pub error: Option<String>,
    pub duration_ms: i32,
    /// Delivered (a 2xx), or else the next attempt's time; None: no more attempts (failed).
    pub next: Next,
}

#[derive(Debug, Clone, Copy)]
pub enum Next {
    Delivered,
    RetryAt(DateTime<Utc>),
    Failed,
}

/// Records the attempt of the claim `claimed` and what follows; false (nothing written) when the
/// claim no longer holds the row (its lease lapsed and another worker took it, or it was
/// redelivered meanwhile).
///
/// # Errors
/// On database failure.
pub async fn finish(conn: &mut PgConnection, claimed: &Claimed, outcome: &Outcome) -> Result<bool, StoreError> {
    let (state, next, delivered) = match outcome.next {
        Next::Delivered => ("delivered", outcome.attempted_at, Some(outcome.attempted_at)),
        Next::RetryAt(at) => ("pending", at, None),
        Next::Failed => ("failed", outcome.attempted_at, None),
    };
    Ok(sqlx::query_scalar!(
        r#"with up as (
             update webhook_deliveries set state = $3, next_attempt_at = $4, delivered_at = $5, lease = null
             where id = $1 and lease = $2
             returning id, attempts),
         at as (
             insert into webhook_attempts (delivery_id, attempt, attempted_at, status, error, duration_ms)
             select id, attempts, $6, $7, $8, $9 from up
             on conflict do nothing)
         select exists (select 1 from up) as "held!""#,
        claimed.id,
        claimed.lease,
        state,
        next,
        delivered,
        outcome.attempted_at,
        outcome.status.map(|s| i16::try_from(s).unwrap_or(i16::MAX)),
        outcome.error.as_deref(),
        outcome.duration_ms,
    )
    .fetch_one(conn)
    .await?)
}

/// The endpoint's deliveries, newest first.
///
/// # Errors
/// On database failure.
pub async fn deliveries(
    conn: &mut PgConnection,
    webhook: Uuid,
    limit: i64,
    offset: i64,
) -> Result<Vec<Delivery>, StoreError> {
    Ok(sqlx::query_as!(
        Delivery,
        "select id, webhook_id, event_type, body, created_at, state, attempts, next_attempt_at, delivered_at
         from webhook_deliveries where webhook_id = $1
         order by created_at desc, id limit $2 offset $3",
        webhook,
        limit,
        offset,
    )
    .fetch_all(conn)
    .await?)
}

/// The attempts at `deliveries`, oldest first.
///
/// # Errors
/// On database failure.
pub async fn attempts(conn: &mut PgConnection, deliveries: &[Uuid]) -> Result<Vec<Attempt>, StoreError> {
    Ok(sqlx::query_as!(
        Attempt,
        "select * from webhook_attempts where delivery_id = any($1) order by delivery_id, attempt",
        deliveries,
    )
    .fetch_all(conn)
    .await?)
}

/// Makes the endpoint's delivery due again now, with the same id and body, whatever became of it;
/// a worker holding it loses its claim (its outcome is not recorded).
///
/// # Errors
/// `NotFound("delivery")` when the endpoint has no such delivery; on database failure.
pub async fn redeliver(conn: &mut PgConnection, webhook: Uuid, id: Uuid) -> Result<Delivery, StoreError> {
    sqlx::query_as!(
        Delivery,
        "update webhook_deliveries set state = 'pending', next_attempt_at = now(), lease = null
         where webhook_id = $1 and id = $2
         returning id, webhook_id, event_type, body, created_at, state, attempts, next_attempt_at, delivered_at",
        webhook,
        id,
    )
    .fetch_optional(conn)
    .await?
    .ok_or(StoreError::NotFound("delivery"))
}
