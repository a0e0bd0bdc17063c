//! A club's seasons: spans of dates over which its members are ranked.
//!
//! Invariants the SQL keeps: a season ends on or after the day it starts, names at least one
//! game, and has league points by place exactly when it is scored by league points.

use chrono::{DateTime, NaiveDate, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

use super::sessions::ClubSession;
use super::StoreError;

/// A season as stored.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct SeasonRow {
    pub id: Uuid,
    pub club_id: Uuid,
    pub name: String,
    pub starts: NaiveDate,
    pub ends: NaiveDate,
    pub games: Vec<String>,
    /// `league_points`, `points` or `net_chips`.
    pub scoring: String,
    /// Points for first, second, … place at a table, with `league_points` scoring.
    pub league_points: Option<Vec<i32>>,
    pub created_at: DateTime<Utc>,
}

/// A new season's data, already checked.
pub struct NewSeason<'a> {
    pub club: Uuid,
    pub name: &'a str,
    pub starts: NaiveDate,
    pub ends: NaiveDate,
    pub games: &'a [String],
    pub scoring: &'a str,
    pub league_points: Option<&'a [i32]>,
}

/// # Errors
/// On database failure.
pub async fn insert(conn: &mut PgConnection, new: NewSeason<'_>) -> Result<SeasonRow, StoreError> {
    Ok(sqlx::query_as!(
        SeasonRow,
        "insert into seasons (id, club_id, name, starts, ends, games, scoring, league_points)
         values ($1, $2, $3, $4, $5, $6, $7, $8) returning *",
        Uuid::new_v4(),
        new.club,
        new.name,
        new.starts,
        new.ends,
        new.games,
        new.scoring,
        new.league_points,
    )
    .fetch_one(conn)
    .await?)
}

/// The season `id` of `club`.
///
/// # Errors
/// `NotFound` when the club has no such season.
pub async fn fetch(conn: &mut PgConnection, club: Uuid, id: Uuid) -> Result<SeasonRow, StoreError> {
    sqlx::query_as!(
        SeasonRow,
        "select * from seasons where club_id = $1 and id = $2",
        club,
        id
    )
    .fetch_optional(conn)
    .await?
    .ok_or(StoreError::NotFound("season"))
}

/// The club's seasons, the latest to start first.
///
/// # Errors
/// On database failure.
pub async fn list(conn: &mut PgConnection, club: Uuid, limit: i64, offset: i64) -> Result<Vec<SeasonRow>, StoreError> {
    Ok(sqlx::query_as!(
        SeasonRow,
        "select * from seasons where club_id = $1 order by starts desc, created_at desc, id limit $2 offset $3",
        club,
        limit,
        offset,
    )
    .fetch_all(conn)
    .await?)
}

/// The club's season under way on `day`: the one that started last, when several are.
///
/// # Errors
/// On database failure.
pub async fn current(conn: &mut PgConnection, club: Uuid, day: NaiveDate) -> Result<Option<SeasonRow>, StoreError> {
    Ok(sqlx::query_as!(
        SeasonRow,
        "select * from seasons where club_id = $1 and starts <= $2 and ends >= $2
         order by starts desc, created_at desc, id limit 1",
        club,
        day,
    )
    .fetch_optional(conn)
    .await?)
}

/// The club's sessions started (a UTC date) from `starts` to `ends`, oldest first.
///
/// # Errors
/// On database failure.
pub async fn sessions_between(
    conn: &mut PgConnection,
    club: Uuid,
    starts: NaiveDate,
    ends: NaiveDate,
) -> Result<Vec<ClubSession>, StoreError> {
    Ok(sqlx::query_as!(
        ClubSession,
        "select id, owner_id, club_id, name, created_at, chip_value, currency from club_sessions where club_id = $1
           and (created_at at time zone 'UTC')::date between $2 and $3
         order by created_at, id",
        club,
        starts,
        ends,
    )
    .fetch_all(conn)
    .await?)
}

/// The club's sessions on whose roster the club member `member` is, oldest first.
///
/// # Errors
/// On database failure.
pub async fn sessions_of_member(
    conn: &mut PgConnection,
    club: Uuid,
    member: Uuid,
) -> Result<Vec<ClubSession>, StoreError> {
    Ok(sqlx::query_as!(
        ClubSession,
        "select s.id, s.owner_id, s.club_id, s.name, s.created_at, s.chip_value, s.currency from club_sessions s where s.club_id = $1
           and exists (select 1 from session_members m where m.session_id = s.id and m.club_member_id = $2)
         order by s.created_at, s.id",
        club,
        member,
    )
    .fetch_all(conn)
    .await?)
}
