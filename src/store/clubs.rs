//! Clubs and their members: the tenant every session and table belongs to.
//!
//! Invariants the SQL keeps: a member with an account has a role, one without has none; an
//! account is a member of a club at most once; members are never deleted (chains and history
//! name their ids), they leave (`left_at`) or are anonymised (their name replaced).

use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

use super::StoreError;

/// What a member with an account may do in a club, from most to least.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, sqlx::Type, serde::Serialize, serde::Deserialize)]
#[sqlx(type_name = "text", rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum ClubRole {
    Owner,
    Organiser,
    Treasurer,
    Scorer,
    Viewer,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Club {
    pub id: Uuid,
    pub name: String,
    pub created_at: DateTime<Utc>,
}

/// A club's member: with an account (`user_id`, `role`) or a player without one.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ClubMember {
    pub id: Uuid,
    pub club_id: Uuid,
    pub user_id: Option<Uuid>,
    pub name: String,
    pub role: Option<ClubRole>,
    pub guest: bool,
    pub created_at: DateTime<Utc>,
    pub left_at: Option<DateTime<Utc>>,
    pub anonymised_at: Option<DateTime<Utc>>,
}

const MEMBER_COLUMNS: &str = "id, club_id, user_id, name, role, guest, created_at, left_at, anonymised_at";

/// A club named `name`, with the account `owner` (named `owner_name`) as its owner.
///
/// # Errors
/// On database failure.
pub async fn insert(conn: &mut PgConnection, name: &str, owner: Uuid, owner_name: &str) -> Result<Club, StoreError> {
    let club = sqlx::query_as::<_, Club>("insert into clubs (id, name) values ($1, $2) returning id, name, created_at")
        .bind(Uuid::new_v4())
        .bind(name)
        .fetch_one(&mut *conn)
        .await?;
    insert_member(&mut *conn, club.id, Some((owner, ClubRole::Owner)), owner_name, false).await?;
    Ok(club)
}

/// Adds a member: with an account and its role, or (None) a player without one.
///
/// # Errors
/// On database failure (an account already a member breaks `club_members_user_once`).
pub async fn insert_member(
    conn: &mut PgConnection,
    club: Uuid,
    account: Option<(Uuid, ClubRole)>,
    name: &str,
    guest: bool,
) -> Result<ClubMember, StoreError> {
    Ok(sqlx::query_as::<_, ClubMember>(&format!(
        "insert into club_members (id, club_id, user_id, name, name_key, role, guest)
         values ($1, $2, $3, $4, $5, $6, $7) returning {MEMBER_COLUMNS}"
    ))
    .bind(Uuid::new_v4())
    .bind(club)
    .bind(account.map(|(user, _)| user))
    .bind(name)
    .bind(super::sessions::name_key(name))
    .bind(account.map(|(_, role)| role))
    .bind(guest)
    .fetch_one(conn)
    .await?)
}

/// # Errors
/// `NotFound` when there is no such club.
pub async fn fetch(conn: &mut PgConnection, id: Uuid) -> Result<Club, StoreError> {
    sqlx::query_as::<_, Club>("select id, name, created_at from clubs where id = $1")
        .bind(id)
        .fetch_optional(conn)
        .await?
        .ok_or(StoreError::NotFound("club"))
}

/// The role `user` holds in `club` as a member who has not left, if any.
///
/// # Errors
/// On database failure.
pub async fn role_of(conn: &mut PgConnection, club: Uuid, user: Uuid) -> Result<Option<ClubRole>, StoreError> {
    Ok(sqlx::query_scalar::<_, ClubRole>(
        "select role from club_members where club_id = $1 and user_id = $2 and left_at is null",
    )
    .bind(club)
    .bind(user)
    .fetch_optional(conn)
    .await?)
}

/// The user's home club: the oldest club they own, made (named after them) when they own none,
/// so that an organiser who never named a club still has one for their sessions and tables.
///
/// # Errors
/// `NotFound` for an unknown user; on database failure.
pub async fn home_club(conn: &mut PgConnection, user: Uuid) -> Result<Uuid, StoreError> {
    let owned = owned_club(&mut *conn, user).await?;
    if let Some(club) = owned {
        return Ok(club);
    }
    // Two first sessions at once make one club: the account's row is locked (until the caller's
    // transaction ends) and the question asked again.
    let account = sqlx::query_as::<_, (String,)>("select name from users where id = $1 for update")
        .bind(user)
        .fetch_optional(&mut *conn)
        .await?
        .ok_or(StoreError::NotFound("user"))?;
    if let Some(club) = owned_club(&mut *conn, user).await? {
        return Ok(club);
    }
    Ok(insert(conn, &format!("{}'s club", account.0), user, &account.0)
        .await?
        .id)
}

async fn owned_club(conn: &mut PgConnection, user: Uuid) -> Result<Option<Uuid>, StoreError> {
    let owned = sqlx::query_scalar::<_, Uuid>(
        "select club_id from club_members where user_id = $1 and role = 'owner' and left_at is null
         order by created_at, club_id limit 1",
    )
    .bind(user)
    .fetch_optional(conn)
    .await?;
    Ok(owned)
}

/// The club's members, in the order they joined.
///
/// # Errors
/// On database failure.
pub async fn members(conn: &mut PgConnection, club: Uuid) -> Result<Vec<ClubMember>, StoreError> {
    Ok(sqlx::query_as::<_, ClubMember>(&format!(
        "select {MEMBER_COLUMNS} from club_members where club_id = $1 order by created_at, id"
    ))
    .bind(club)
    .fetch_all(conn)
    .await?)
}

/// The member `id` of `club`.
///
/// # Errors
/// `NotFound` when the club has no such member.
pub async fn member(conn: &mut PgConnection, club: Uuid, id: Uuid) -> Result<ClubMember, StoreError> {
    sqlx::query_as::<_, ClubMember>(&format!(
        "select {MEMBER_COLUMNS} from club_members where club_id = $1 and id = $2"
    ))
    .bind(club)
    .bind(id)
    .fetch_optional(conn)
    .await?
    .ok_or(StoreError::NotFound("member"))
}

/// The club's member a name finds (its folded form; the earliest when several share it), added
/// as a player without an account when there is none.
///
/// # Errors
/// On database failure.
pub async fn member_named(conn: &mut PgConnection, club: Uuid, name: &str) -> Result<ClubMember, StoreError> {
    let found = sqlx::query_as::<_, ClubMember>(&format!(
        "select {MEMBER_COLUMNS} from club_members where club_id = $1 and name_key = $2
         order by (left_at is not null), created_at, id limit 1"
    ))
    .bind(club)
    .bind(super::sessions::name_key(name))
    .fetch_optional(&mut *conn)
    .await?;
    match found {
        Some(member) => Ok(member),
        None => insert_member(conn, club, None, name, false).await,
    }
}
