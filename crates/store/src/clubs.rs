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
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, sqlx::Type, serde::Serialize, serde::Deserialize, utoipa::ToSchema,
)]
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

/// A club named `name`, with the account `owner` (named `owner_name`) as its owner.
///
/// # Errors
/// On database failure.
pub async fn insert(conn: &mut PgConnection, name: &str, owner: Uuid, owner_name: &str) -> Result<Club, StoreError> {
    let club = sqlx::query_as!(
        Club,
        "insert into clubs (id, name) values ($1, $2) returning id, name, created_at",
        Uuid::new_v4(),
        name,
    )
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
    Ok(sqlx::query_as!(
        ClubMember,
        r#"insert into club_members (id, club_id, user_id, name, name_key, role, guest)
         values ($1, $2, $3, $4, $5, $6, $7) returning id, club_id, user_id, name, role as "role: ClubRole", guest, created_at, left_at, anonymised_at"#,
        Uuid::new_v4(),
        club,
        account.map(|(user, _)| user),
        name,
        super::name_key(name),
        account.map(|(_, role)| role) as _,
        guest,
    )
    .fetch_one(conn)
    .await?)
}

/// # Errors
/// `NotFound` when there is no such club.
pub async fn fetch(conn: &mut PgConnection, id: Uuid) -> Result<Club, StoreError> {
    sqlx::query_as!(Club, "select id, name, created_at from clubs where id = $1", id)
        .fetch_optional(conn)
        .await?
        .ok_or(StoreError::NotFound("club"))
}

/// The role `user` holds in `club` as a member who has not left, if any.
///
/// # Errors
/// On database failure.
pub async fn role_of(conn: &mut PgConnection, club: Uuid, user: Uuid) -> Result<Option<ClubRole>, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"select role as "role!: ClubRole" from club_members where club_id = $1 and user_id = $2 and left_at is null"#,
        club,
        user,
    )
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
    let account = sqlx::query_scalar!("select name from users where id = $1 for update", user)
        .fetch_optional(&mut *conn)
        .await?
        .ok_or(StoreError::NotFound("user"))?;
    if let Some(club) = owned_club(&mut *conn, user).await? {
        return Ok(club);
    }
    Ok(insert(conn, &format!("{account}'s club"), user, &account).await?.id)
}

async fn owned_club(conn: &mut PgConnection, user: Uuid) -> Result<Option<Uuid>, StoreError> {
    let owned = sqlx::query_scalar!(
        "select club_id from club_members where user_id = $1 and role = 'owner' and left_at is null
         order by created_at, club_id limit 1",
        user,
    )
    .fetch_optional(conn)
    .await?;
    Ok(owned)
}

/// The club's members, in the order they joined.
///
/// # Errors
/// On database failure.
pub async fn members(conn: &mut PgConnection, club: Uuid) -> Result<Vec<ClubMember>, StoreError> {
    Ok(sqlx::query_as!(
        ClubMember,
        r#"select id, club_id, user_id, name, role as "role: ClubRole", guest, created_at, left_at, anonymised_at from club_members where club_id = $1 order by created_at, id"#,
        club,
    )
    .fetch_all(conn)
    .await?)
}

/// The member `id` of `club`.
///
/// # Errors
/// `NotFound` when the club has no such member.
pub async fn member(conn: &mut PgConnection, club: Uuid, id: Uuid) -> Result<ClubMember, StoreError> {
    sqlx::query_as!(
        ClubMember,
        r#"select id, club_id, user_id, name, role as "role: ClubRole", guest, created_at, left_at, anonymised_at from club_members where club_id = $1 and id = $2"#,
        club,
        id,
    )
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
    // Two tables opened at once with a new player of one name would each add a member of that
    // name, and only one of them could be entered on the session's roster (the other was told
    // `member_not_found`): the first to look a name up holds it until its transaction ends, and
    // the second then finds that member.
    sqlx::query!(
        "select pg_advisory_xact_lock(hashtextextended($1::uuid::text || '/' || $2::text, 0))",
        club,
        super::name_key(name),
    )
    .execute(&mut *conn)
    .await?;
    let found = sqlx::query_as!(
        ClubMember,
        r#"select id, club_id, user_id, name, role as "role: ClubRole", guest, created_at, left_at, anonymised_at from club_members where club_id = $1 and name_key = $2
         order by (left_at is not null), created_at, id limit 1"#,
        club,
        super::name_key(name),
    )
    .fetch_optional(&mut *conn)
    .await?;
    match found {
        Some(member) => Ok(member),
        None => insert_member(conn, club, None, name, false).await,
    }
}

/// A club as one of its members sees it: with the member's role.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct MemberClub {
    pub id: Uuid,
    pub name: String,
    pub created_at: DateTime<Utc>,
    pub role: ClubRole,
}

/// The clubs `user` belongs to (not left), oldest membership first; only the club `only` when
/// given (a personal API token's).
///
/// # Errors
/// On database failure.
pub async fn of_user(
    conn: &mut PgConnection,
    user: Uuid,
    only: Option<Uuid>,
    limit: i64,
    offset: i64,
) -> Result<Vec<MemberClub>, StoreError> {
    // Filtered here, not after the page is read: the page and its next offset count only the
    // clubs the caller may see.
    Ok(sqlx::query_as!(
        MemberClub,
        r#"select c.id, c.name, c.created_at, m.role as "role!: ClubRole" from club_members m join clubs c on c.id = m.club_id
         where m.user_id = $1 and m.left_at is null and ($4::uuid is null or c.id = $4)
         order by m.created_at, c.id limit $2 offset $3"#,
        user,
        limit,
        offset,
        only,
    )
    .fetch_all(conn)
    .await?)
}

/// A page of the club's members, in the order they joined.
///
/// # Errors
/// On database failure.
pub async fn members_page(
    conn: &mut PgConnection,
    club: Uuid,
    limit: i64,
    offset: i64,
) -> Result<Vec<ClubMember>, StoreError> {
    Ok(sqlx::query_as!(
        ClubMember,
        r#"select id, club_id, user_id, name, role as "role: ClubRole", guest, created_at, left_at, anonymised_at from club_members where club_id = $1 order by created_at, id limit $2 offset $3"#,
        club,
        limit,
        offset,
    )
    .fetch_all(conn)
    .await?)
}

/// The member `id` of `club`, its row locked until the transaction ends.
///
/// # Errors
/// `NotFound("member")` when the club has no such member.
pub async fn lock_member(conn: &mut PgConnection, club: Uuid, id: Uuid) -> Result<ClubMember, StoreError> {
    sqlx::query_as!(
        ClubMember,
        r#"select id, club_id, user_id, name, role as "role: ClubRole", guest, created_at, left_at, anonymised_at from club_members where club_id = $1 and id = $2 for update"#,
        club,
        id,
    )
    .fetch_optional(conn)
    .await?
    .ok_or(StoreError::NotFound("member"))
}

/// The club's member who is the account `user` (left or not), if any.
///
/// # Errors
/// On database failure.
pub async fn member_of_user(conn: &mut PgConnection, club: Uuid, user: Uuid) -> Result<Option<ClubMember>, StoreError> {
    Ok(sqlx::query_as!(
        ClubMember,
        r#"select id, club_id, user_id, name, role as "role: ClubRole", guest, created_at, left_at, anonymised_at from club_members where club_id = $1 and user_id = $2"#,
        club,
        user,
    )
    .fetch_optional(conn)
    .await?)
}

/// How many owners the club has who have not left; the club's row is locked first, so that two
/// owners stepping down at once cannot both see the other still there.
///
/// # Errors
/// On database failure.
pub async fn owners(conn: &mut PgConnection, club: Uuid) -> Result<i64, StoreError> {
    sqlx::query!(r#"select 1 as "locked" from clubs where id = $1 for update"#, club)
        .fetch_optional(&mut *conn)
        .await?;
    Ok(sqlx::query_scalar!(
        r#"select count(*) as "count!" from club_members where club_id = $1 and role = 'owner' and left_at is null"#,
        club,
    )
    .fetch_one(conn)
    .await?)
}

/// Writes a member's role, guest mark and whether they have left (`left`: the time they left, or
/// None for a member who is in).
///
/// # Errors
/// `NotFound("member")` when the club has no such member.
pub async fn update_member(
    conn: &mut PgConnection,
    club: Uuid,
    id: Uuid,
    role: Option<ClubRole>,
    guest: bool,
    left: Option<DateTime<Utc>>,
) -> Result<ClubMember, StoreError> {
    sqlx::query_as!(
        ClubMember,
        r#"update club_members set role = $3, guest = $4, left_at = $5 where club_id = $1 and id = $2
         returning id, club_id, user_id, name, role as "role: ClubRole", guest, created_at, left_at, anonymised_at"#,
        club,
        id,
        role as _,
        guest,
        left,
    )
    .fetch_optional(conn)
    .await?
    .ok_or(StoreError::NotFound("member"))
}

/// Makes the account a member with `role` through invitation `code`: a new member, or one who
/// had left coming back (under the same id, so their history stays theirs).
///
/// # Errors
/// On database failure.
pub async fn join(
    conn: &mut PgConnection,
    club: Uuid,
    user: Uuid,
    name: &str,
    role: ClubRole,
    code: &str,
) -> Result<ClubMember, StoreError> {
    Ok(sqlx::query_as!(
        ClubMember,
        r#"insert into club_members (id, club_id, user_id, name, name_key, role, invitation)
         values ($1, $2, $3, $4, $5, $6, $7)
         on conflict on constraint club_members_user_once
         do update set role = excluded.role, left_at = null, invitation = excluded.invitation
         returning id, club_id, user_id, name, role as "role: ClubRole", guest, created_at, left_at, anonymised_at"#,
        Uuid::new_v4(),
        club,
        user,
        name,
        super::name_key(name),
        role as _,
        code,
    )
    .fetch_one(conn)
    .await?)
}

/// Whether the club has a member, with or without an account, of that name (folded), other
/// than those anonymised.
///
/// # Errors
/// On database failure.
pub async fn name_taken(conn: &mut PgConnection, club: Uuid, name: &str) -> Result<bool, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"select exists (select 1 from club_members where club_id = $1 and name_key = $2 and anonymised_at is null) as "exists!""#,
        club,
        super::name_key(name),
    )
    .fetch_one(conn)
    .await?)
}

/// An invitation to a club as stored.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Invitation {
    pub code: String,
    pub club_id: Uuid,
    pub role: ClubRole,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub withdrawn_at: Option<DateTime<Utc>>,
}

/// Stores an invitation; None when the code is taken already (the caller draws another).
///
/// # Errors
/// On database failure.
pub async fn insert_invitation(
    conn: &mut PgConnection,
    code: &str,
    club: Uuid,
    role: ClubRole,
    created_by: Uuid,
    expires_at: DateTime<Utc>,
) -> Result<Option<Invitation>, StoreError> {
    Ok(sqlx::query_as!(
        Invitation,
        r#"insert into club_invitations (code, club_id, role, created_by, expires_at) values ($1, $2, $3, $4, $5)
         on conflict (code) do nothing returning code, club_id, role as "role: ClubRole", created_at, expires_at, withdrawn_at"#,
        code,
        club,
        role as _,
        created_by,
        expires_at,
    )
    .fetch_optional(conn)
    .await?)
}

/// The invitation a code names, when it has neither expired nor been withdrawn.
///
/// # Errors
/// On database failure.
pub async fn open_invitation(
    conn: &mut PgConnection,
    code: &str,
    now: DateTime<Utc>,
) -> Result<Option<Invitation>, StoreError> {
    Ok(sqlx::query_as!(
        Invitation,
        r#"select code, club_id, role as "role: ClubRole", created_at, expires_at, withdrawn_at from club_invitations where code = $1 and expires_at > $2 and withdrawn_at is null"#,
        code,
        now,
    )
    .fetch_optional(conn)
    .await?)
}

/// A page of the club's invitations, newest first, expired and withdrawn ones included.
///
/// # Errors
/// On database failure.
pub async fn invitations(
    conn: &mut PgConnection,
    club: Uuid,
    limit: i64,
    offset: i64,
) -> Result<Vec<Invitation>, StoreError> {
    Ok(sqlx::query_as!(
        Invitation,
        r#"select code, club_id, role as "role: ClubRole", created_at, expires_at, withdrawn_at from club_invitations where club_id = $1
         order by created_at desc, code limit $2 offset $3"#,
        club,
        limit,
        offset,
    )
    .fetch_all(conn)
    .await?)
}

/// Withdraws one of the club's invitations (a second withdrawal keeps the first time).
///
/// # Errors
/// `NotFound("invitation")` when the club has no such invitation.
pub async fn withdraw_invitation(conn: &mut PgConnection, club: Uuid, code: &str) -> Result<Invitation, StoreError> {
    sqlx::query_as!(
        Invitation,
        r#"update club_invitations set withdrawn_at = coalesce(withdrawn_at, now()) where club_id = $1 and code = $2
         returning code, club_id, role as "role: ClubRole", created_at, expires_at, withdrawn_at"#,
        club,
        code,
    )
    .fetch_optional(conn)
    .await?
    .ok_or(StoreError::NotFound("invitation"))
}

/// Whether `account` is an active member of a club other than `club` that `owner` does not own:
/// an owner of one club must not take over an account another club also relies on.
///
/// # Errors
/// On database failure.
pub async fn belongs_beyond(
    conn: &mut PgConnection,
    account: Uuid,
    club: Uuid,
    owner: Uuid,
) -> Result<bool, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"select exists (
             select 1 from club_members m
             where m.user_id = $1 and m.left_at is null and m.club_id <> $2
               and not exists (select 1 from club_members o where o.club_id = m.club_id and o.user_id = $3
                               and o.role = 'owner' and o.left_at is null)) as "exists!""#,
        account,
        club,
        owner,
    )
    .fetch_one(conn)
    .await?)
}

/// Replaces the name of a member who left with `label` wherever a read finds it: the member's
/// row, the session rosters that enter them, and the seats they sat in at tables whose chained
/// set-up names members rather than names (content version 3 on, or not chained yet). A set-up
/// chained earlier hashed the typed names: its seats keep them, since the chain vouches for them.
/// The account is let go as well: the label is no one's, and a person who comes back by
/// invitation comes back as a new member under their own name, not as the label with the
/// results they asked to have forgotten.
/// Returns the member as anonymised; one anonymised already is returned as it is.
///
/// # Errors
/// `NotFound("member")` when the club has no such member.
pub async fn anonymise(conn: &mut PgConnection, club: Uuid, id: Uuid, label: &str) -> Result<ClubMember, StoreError> {
    let member = lock_member(&mut *conn, club, id).await?;
    if member.anonymised_at.is_some() {
        return Ok(member);
    }
    let key = super::name_key(label);
    let names: Vec<String> = sqlx::query_scalar!(
        r#"select name as "name!" from club_members where id = $1 union select name from session_members where club_member_id = $1"#,
        id,
    )
    .fetch_all(&mut *conn)
    .await?;
    let tables: Vec<Uuid> = sqlx::query_scalar!(
        "update game_tables t set players = (
             select array_agg(case when m.club_member_id = $1 then $2 else u.player end order by u.seat)
             from unnest(t.players, t.members) with ordinality as u(player, member, seat)
             left join session_members m on m.session_id = t.session_id and m.id = u.member)
         where t.club_id = $3 and t.members is not null
           and exists (select 1 from session_members m
                       where m.session_id = t.session_id and m.club_member_id = $1 and m.id = any (t.members))
           and not exists (select 1 from chain_links l
                           where l.table_id = t.id and l.club_no = t.club_no and l.entry = 'table' and l.content_version < 3)
         returning t.id",
        id,
        label,
        club,
    )
    .fetch_all(&mut *conn)
    .await?;
    // The answers kept for retries (Idempotency-Key) of those tables' moves and creation, and of
    // the sessions' creation, show the name as it was: each JSON string of it is replaced.
    let replacement = serde_json::Value::from(label).to_string();
    for name in &names {
        let old = serde_json::Value::from(name.as_str()).to_string();
        sqlx::query!(
            "update idempotency_keys set response_body = replace(response_body::text, $2, $3)::json
             where table_id = any ($1) and strpos(response_body::text, $2) > 0",
            &tables,
            &old,
            &replacement,
        )
        .execute(&mut *conn)
        .await?;
        sqlx::query!(
            "update creation_keys set response_body = replace(response_body::text, $3, $4)::json
             where strpos(response_body::text, $3) > 0
               and ((operation = 'create_table' and response_body->>'id' = any ($1::uuid[]::text[]))
                 or (operation = 'create_session' and response_body->>'id' in
                       (select session_id::text from session_members where club_member_id = $2)))",
            &tables,
            id,
            &old,
            &replacement,
        )
        .execute(&mut *conn)
        .await?;
    }
    // Replicas folding these tables' moves in memory take the new name from a read.
    super::live::renamed(&mut *conn, &tables).await?;
    sqlx::query!(
        "update session_members set name = $2, name_key = $3 where club_member_id = $1",
        id,
        label,
        &key,
    )
    .execute(&mut *conn)
    .await?;
    sqlx::query_as!(
        ClubMember,
        r#"update club_members set name = $3, name_key = $4, anonymised_at = now(), user_id = null, role = null
         where club_id = $1 and id = $2
         returning id, club_id, user_id, name, role as "role: ClubRole", guest, created_at, left_at, anonymised_at"#,
        club,
        id,
        label,
        &key,
    )
    .fetch_optional(conn)
    .await?
    .ok_or(StoreError::NotFound("member"))
}

/// How many of the club's members have been anonymised.
///
/// # Errors
/// On database failure.
pub async fn anonymised(conn: &mut PgConnection, club: Uuid) -> Result<i64, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"select count(*) as "count!" from club_members where club_id = $1 and anonymised_at is not null"#,
        club,
    )
    .fetch_one(conn)
    .await?)
}

/// Where the club's stops games' leftover pools go when a tournament's round closes, unless the
/// tournament says: `keep`, `share`, `bank` or `carry`.
///
/// # Errors
/// `NotFound("club")`; on database failure.
pub async fn leftover_of(conn: &mut PgConnection, club: Uuid) -> Result<String, StoreError> {
    sqlx::query_scalar!("select leftover from clubs where id = $1", club)
        .fetch_optional(conn)
        .await?
        .ok_or(StoreError::NotFound("club"))
}

/// Sets the club's leftover rule (one of the four, checked).
///
/// # Errors
/// `NotFound("club")`; on database failure.
pub async fn set_leftover(conn: &mut PgConnection, club: Uuid, leftover: &str) -> Result<(), StoreError> {
    let done = sqlx::query!("update clubs set leftover = $2 where id = $1", club, leftover)
        .execute(conn)
        .await?;
    if done.rows_affected() == 0 {
        return Err(StoreError::NotFound("club"));
    }
    Ok(())
}
