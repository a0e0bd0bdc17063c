//! Club sessions: a sitting that groups tables.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

use super::StoreError;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ClubSession {
    pub id: Uuid,
    pub owner_id: Uuid,
    /// The club the session belongs to.
    pub club_id: Uuid,
    pub name: String,
    pub created_at: DateTime<Utc>,
    /// What a chip is worth, in minor units of `currency` (both or neither).
    pub chip_value: Option<i64>,
    pub currency: Option<String>,
}

/// A member of a session's roster.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Member {
    pub id: Uuid,
    pub name: String,
    /// The club member this roster entry is: its own id for sessions started with clubs, another
    /// for rosters written before them (whose ids chains and bundles already name).
    pub club_member_id: Uuid,
}

pub use super::name_key;

/// The session's roster, in the order members joined.
///
/// # Errors
/// On database failure.
pub async fn members(conn: &mut PgConnection, session: Uuid) -> Result<Vec<Member>, StoreError> {
    Ok(sqlx::query_as!(
        Member,
        "select id, name, club_member_id from session_members where session_id = $1 order by created_at, name_key",
        session,
    )
    .fetch_all(conn)
    .await?)
}

/// The roster's member a name finds (its folded form), else the club's member of that name
/// (a new player without an account when there is none), entered on the roster.
///
/// # Errors
/// On database failure.
pub async fn member_named(
    conn: &mut PgConnection,
    session: Uuid,
    club: Uuid,
    name: &str,
) -> Result<Member, StoreError> {
    let found = sqlx::query_as!(
        Member,
        "select id, name, club_member_id from session_members where session_id = $1 and name_key = $2",
        session,
        name_key(name),
    )
    .fetch_optional(&mut *conn)
    .await?;
    if let Some(member) = found {
        return Ok(member);
    }
    let member = super::clubs::member_named(&mut *conn, club, name).await?;
    enter(conn, session, &member).await
}

/// Enters a club member on the session's roster (once: entering again finds the entry).
///
/// # Errors
/// `NotFound` when the roster already has another member of that name; on database failure.
pub async fn enter(
    conn: &mut PgConnection,
    session: Uuid,
    member: &super::clubs::ClubMember,
) -> Result<Member, StoreError> {
    sqlx::query!(
        "insert into session_members (session_id, id, name, name_key, club_member_id) values ($1, $2, $3, $4, $2)
         on conflict do nothing",
        session,
        member.id,
        &member.name,
        name_key(&member.name),
    )
    .execute(&mut *conn)
    .await?;
    sqlx::query_as!(
        Member,
        "select id, name, club_member_id from session_members where session_id = $1 and club_member_id = $2
         order by (id = $2) desc limit 1",
        session,
        member.id,
    )
    .fetch_optional(conn)
    .await?
    .ok_or(StoreError::NotFound("member"))
}

/// # Errors
/// On database failure.
pub async fn insert(
    conn: &mut PgConnection,
    owner: Uuid,
    club: Uuid,
    name: &str,
    chip_value: Option<(i64, &str)>,
) -> Result<ClubSession, StoreError> {
    Ok(sqlx::query_as!(
        ClubSession,
        "insert into club_sessions (id, owner_id, club_id, name, chip_value, currency)
         values ($1, $2, $3, $4, $5, $6) returning id, owner_id, club_id, name, created_at, chip_value, currency",
        Uuid::new_v4(),
        owner,
        club,
        name,
        chip_value.map(|(v, _)| v),
        chip_value.map(|(_, c)| c),
    )
    .fetch_one(conn)
    .await?)
}

/// # Errors
/// `NotFound` when there is no such session.
pub async fn fetch(conn: &mut PgConnection, id: Uuid) -> Result<ClubSession, StoreError> {
    sqlx::query_as!(
        ClubSession,
        "select id, owner_id, club_id, name, created_at, chip_value, currency from club_sessions where id = $1",
        id
    )
    .fetch_optional(conn)
    .await?
    .ok_or(StoreError::NotFound("session"))
}

/// The session, its row locked until the transaction ends.
///
/// # Errors
/// `NotFound` when there is no such session.
pub async fn lock(conn: &mut PgConnection, id: Uuid) -> Result<ClubSession, StoreError> {
    sqlx::query_as!(ClubSession, "select id, owner_id, club_id, name, created_at, chip_value, currency from club_sessions where id = $1 for update", id)
        .fetch_optional(conn)
        .await?
        .ok_or(StoreError::NotFound("session"))
}

/// Sets what a chip is worth at the session (minor units and currency), or clears it.
///
/// # Errors
/// `NotFound` when there is no such session.
pub async fn set_chip_value(
    conn: &mut PgConnection,
    id: Uuid,
    chip_value: Option<(i64, &str)>,
) -> Result<ClubSession, StoreError> {
    sqlx::query_as!(
        ClubSession,
        "update club_sessions set chip_value = $2, currency = $3 where id = $1 returning id, owner_id, club_id, name, created_at, chip_value, currency",
        id,
        chip_value.map(|(v, _)| v),
        chip_value.map(|(_, c)| c),
    )
    .fetch_optional(conn)
    .await?
    .ok_or(StoreError::NotFound("session"))
}

/// The sessions of the clubs `user` is a member of (not left), or of `club` alone, newest first.
///
/// # Errors
/// On database failure.
pub async fn list(
    conn: &mut PgConnection,
    user: Uuid,
    club: Option<Uuid>,
    limit: i64,
    offset: i64,
) -> Result<Vec<ClubSession>, StoreError> {
    Ok(sqlx::query_as!(
        ClubSession,
        "select s.id, s.owner_id, s.club_id, s.name, s.created_at, s.chip_value, s.currency from club_sessions s
         where s.club_id in (select club_id from club_members where user_id = $1 and left_at is null)
           and ($4::uuid is null or s.club_id = $4)
         order by s.created_at desc, s.id limit $2 offset $3",
        user,
        limit,
        offset,
        club,
    )
    .fetch_all(conn)
    .await?)
}

/// The signing key's seed kept for a server given none: `fresh` the first time, the same ever
/// after.
///
/// # Errors
/// On database failure.
pub async fn local_signing_seed(conn: &mut PgConnection, fresh: [u8; 32]) -> Result<Vec<u8>, StoreError> {
    sqlx::query!(
        "insert into audit_signing_key (seed) values ($1) on conflict (only_one) do nothing",
        fresh.as_slice(),
    )
    .execute(&mut *conn)
    .await?;
    Ok(sqlx::query_scalar!("select seed from audit_signing_key")
        .fetch_one(conn)
        .await?)
}
