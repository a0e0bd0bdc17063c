//! Clubs: making one, inviting accounts into it, its members and their roles.
//!
//! Invariants: a club always has an owner who has not left (the last one cannot step down or
//! leave); only an owner gives or takes the owner's role; members are never deleted (chains,
//! bundles and history name their ids): they leave, come back, or are anonymised once left.

use chrono::{DateTime, Duration, Utc};
use rand::Rng;
use tablekeeper_store::PgPool;
use uuid::Uuid;

use super::access::{self, Account, Capability};
use super::idempotency::{self, CreationKey, Kept, Outcome};
use super::{ensure_user, ServiceError};
pub use tablekeeper_store::clubs::{ClubMember, ClubRole, Invitation, MemberClub};
use tablekeeper_store::{self as store, StoreError};

/// Letters and digits that cannot be mistaken for one another when read out or typed.
const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const CODE_LENGTH: usize = 10;

/// How long an invitation stands when its maker does not say, and at most.
pub const INVITATION_HOURS_DEFAULT: i64 = 7 * 24;
pub const INVITATION_HOURS_MAX: i64 = 30 * 24;

/// Makes a club named `name` (already checked) with `user` as its owner, once per `key`:
/// `render` gives the answer, kept under the key.
///
/// # Errors
/// `TokenScope` for a personal API token; `UnknownUser`; `IdempotencyKeyReused`; on database failure.
pub async fn create<K: Kept>(
    pool: &PgPool,
    account: Account,
    name: &str,
    key: Option<&CreationKey>,
    render: impl FnOnce(MemberClub) -> Result<K, serde_json::Error>,
) -> Result<Outcome<K>, ServiceError> {
    let user = account.user();
    account.password_only("make clubs")?;
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    if let Some(first) = idempotency::first_answer(&mut tx, user, key).await? {
        return Ok(first);
    }
    let account = store::users::by_id(&mut tx, user)
        .await?
        .ok_or(ServiceError::UnknownUser)?;
    let club = store::clubs::insert(&mut tx, name, user, &account.name).await?;
    let answer = render(MemberClub {
        id: club.id,
        name: club.name,
        created_at: club.created_at,
        role: ClubRole::Owner,
    })
    .map_err(ServiceError::Encode)?;
    idempotency::keep_and_commit(tx, user, key, answer).await
}

/// The club as the caller, one of its members, sees it.
///
/// # Errors
/// `Store(NotFound("club"))` for an unknown club or one the caller is not a member of.
pub async fn fetch(pool: &PgPool, account: Account, id: Uuid) -> Result<MemberClub, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let role = access::require(&mut conn, account, id, Capability::Read, "club").await?;
    let club = store::clubs::fetch(&mut conn, id).await?;
    Ok(MemberClub {
        id: club.id,
        name: club.name,
        created_at: club.created_at,
        role,
    })
}

/// A page of the club's members (any member may see them).
///
/// # Errors
/// `Store(NotFound("club"))` for a stranger to the club.
pub async fn members(
    pool: &PgPool,
    account: Account,
    club: Uuid,
    limit: i64,
    offset: i64,
) -> Result<Vec<ClubMember>, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    access::require(&mut conn, account, club, Capability::Read, "club").await?;
    Ok(store::clubs::members_page(&mut conn, club, limit, offset).await?)
}

/// Adds a player without an account (a guest when `guest`), named `name` (already checked).
///
/// # Errors
/// `Store(NotFound("club"))` for a stranger; `Forbidden` for a role that does not manage
/// members; `MemberNameTaken` when a member already goes by that name.
pub async fn add_member<K: Kept>(
    pool: &PgPool,
    account: Account,
    club: Uuid,
    name: &str,
    guest: bool,
    key: Option<&CreationKey>,
    render: impl FnOnce(ClubMember) -> Result<K, serde_json::Error>,
) -> Result<Outcome<K>, ServiceError> {
    let user = account.user();
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    if let Some(first) = idempotency::first_answer(&mut tx, user, key).await? {
        return Ok(first);
    }
    access::require(&mut tx, account, club, Capability::Manage, "club").await?;
    // Locks the club's row: two organisers adding the same name at once make one member.
    store::clubs::owners(&mut tx, club).await?;
    if store::clubs::name_taken(&mut tx, club, name).await? {
        return Err(ServiceError::MemberNameTaken);
    }
    let member = store::clubs::insert_member(&mut tx, club, None, name, guest).await?;
    let answer = render(member).map_err(ServiceError::Encode)?;
    idempotency::keep_and_commit(tx, user, key, answer).await
}

/// What to change about a member; None leaves it as it is.
#[derive(Debug, Clone, Copy, Default)]
pub struct MemberChange {
    pub role: Option<ClubRole>,
    pub guest: Option<bool>,
    pub active: Option<bool>,
}

/// Changes a member's role, guest mark, or whether they are in the club. Organisers and owners
/// manage members; anyone may leave (`active: false` on their own member, nothing else).
///
/// # Errors
/// `Store(NotFound("club"))` for a stranger; `TokenScope` for a personal API token;
/// `Store(NotFound("member"))` for no such member;
/// `Forbidden` for a role that does not manage members, or an organiser touching the owner's
/// role; `InvalidRole` for a role given to a player without an account; `LastOwner` when the
/// club would be left without an owner.
pub async fn change_member(
    pool: &PgPool,
    account: Account,
    club: Uuid,
    id: Uuid,
    change: MemberChange,
) -> Result<ClubMember, ServiceError> {
    let user = account.user();
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    // Roles, guests and who is in the club are a password's session's: no API token's, whatever
    // its scopes (it could otherwise make its account's way up to owner).
    let caller = access::password_role(&mut tx, account, club).await?;
    let owners = store::clubs::owners(&mut tx, club).await?;
    let member = store::clubs::lock_member(&mut tx, club, id).await?;
    let leaving_alone =
        member.user_id == Some(user) && change.active == Some(false) && change.role.is_none() && change.guest.is_none();
    if !leaving_alone && !access::allows(caller, Capability::Manage) {
        return Err(ServiceError::Forbidden(
            "only the club's organiser and owners manage its members",
        ));
    }
    if change.role.is_some() && member.user_id.is_none() {
        return Err(ServiceError::InvalidRole(
            "a player without an account has no role: invite them to make one",
        ));
    }
    let touches_owner = change.role == Some(ClubRole::Owner) || member.role == Some(ClubRole::Owner);
    if touches_owner && !leaving_alone && caller != ClubRole::Owner {
        return Err(ServiceError::Forbidden(
            "only an owner gives or takes the owner's role, or changes an owner",
        ));
    }
    if member.anonymised_at.is_some() && change.active == Some(true) {
        return Err(ServiceError::MemberAnonymised);
    }
    let role = change.role.or(member.role);
    let left = match change.active {
        Some(true) => None,
        Some(false) => Some(member.left_at.unwrap_or_else(Utc::now)),
        None => member.left_at,
    };
    let was_owner = member.role == Some(ClubRole::Owner) && member.left_at.is_none();
    let stays_owner = role == Some(ClubRole::Owner) && left.is_none();
    if was_owner && !stays_owner && owners <= 1 {
        return Err(ServiceError::LastOwner);
    }
    let member =
        store::clubs::update_member(&mut tx, club, id, role, change.guest.unwrap_or(member.guest), left).await?;
    tx.commit().await.map_err(StoreError::from)?;
    Ok(member)
}

/// Anonymises a member who has left (organisers and owners): their name becomes "Former member
/// N" (N counting the club's anonymised members) in the roster, the sessions' rosters and the
/// seats they sat in, so that no read shows it again. Chains and bundles name members by id, so
/// every table they sat at still audits consistent. Anonymising again changes nothing.
///
/// # Errors
/// `Store(NotFound("club"))` for a stranger; `Forbidden` for a role that does not manage
/// members; `Store(NotFound("member"))` for no such member; `MemberActive` for a member who
/// has not left.
pub async fn anonymise(pool: &PgPool, account: Account, club: Uuid, id: Uuid) -> Result<ClubMember, ServiceError> {
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    access::require(&mut tx, account, club, Capability::Manage, "club").await?;
    // Locks the club's row: two members anonymised at once get different numbers.
    store::clubs::owners(&mut tx, club).await?;
    let member = store::clubs::lock_member(&mut tx, club, id).await?;
    if member.anonymised_at.is_some() {
        return Ok(member);
    }
    if member.left_at.is_none() {
        return Err(ServiceError::MemberActive);
    }
    let number = store::clubs::anonymised(&mut tx, club).await? + 1;
    let member = store::clubs::anonymise(&mut tx, club, id, &format!("Former member {number}")).await?;
    tx.commit().await.map_err(StoreError::from)?;
    Ok(member)
}

/// Hands out an invitation that makes an account a member with `role` (not owner) for
/// `hours` hours.
///
/// # Errors
/// `Store(NotFound("club"))` for a stranger; `Forbidden` for a role that does not manage
/// members; `InvalidRole` for the owner's role.
pub async fn invite<K: Kept>(
    pool: &PgPool,
    account: Account,
    club: Uuid,
    role: ClubRole,
    hours: i64,
    key: Option<&CreationKey>,
    render: impl FnOnce(Invitation) -> Result<K, serde_json::Error>,
) -> Result<Outcome<K>, ServiceError> {
    let user = account.user();
    let mut conn = pool.begin().await.map_err(StoreError::from)?;
    if let Some(first) = idempotency::first_answer(&mut conn, user, key).await? {
        return Ok(first);
    }
    access::require(&mut conn, account, club, Capability::Manage, "club").await?;
    if role == ClubRole::Owner {
        return Err(ServiceError::InvalidRole(
            "an invitation cannot make an owner: invite an organiser, then an owner gives them the owner's role",
        ));
    }
    let expires_at = Utc::now() + Duration::hours(hours);
    for _ in 0..5 {
        let code: String = {
            let mut rng = rand::thread_rng();
            (0..CODE_LENGTH)
                .map(|_| char::from(CODE_ALPHABET[rng.gen_range(0..CODE_ALPHABET.len())]))
                .collect()
        };
        if let Some(invitation) =
            store::clubs::insert_invitation(&mut conn, &code, club, role, user, expires_at).await?
        {
            let answer = render(invitation).map_err(ServiceError::Encode)?;
            return idempotency::keep_and_commit(conn, user, key, answer).await;
        }
    }
    Err(ServiceError::Corrupt(
        "five invitation codes drawn in a row were taken".into(),
    ))
}

/// A page of the club's invitations (for those who manage its members).
///
/// # Errors
/// `Store(NotFound("club"))` for a stranger; `Forbidden` for a role that does not manage members.
pub async fn invitations(
    pool: &PgPool,
    account: Account,
    club: Uuid,
    limit: i64,
    offset: i64,
) -> Result<Vec<Invitation>, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    access::require(&mut conn, account, club, Capability::Manage, "club").await?;
    Ok(store::clubs::invitations(&mut conn, club, limit, offset).await?)
}

/// Withdraws an invitation: nobody joins with it from now on; who joined stays.
///
/// # Errors
/// As `invitations`; `Store(NotFound("invitation"))` for no such invitation of the club.
pub async fn withdraw(pool: &PgPool, account: Account, club: Uuid, code: &str) -> Result<Invitation, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    access::require(&mut conn, account, club, Capability::Manage, "club").await?;
    Ok(store::clubs::withdraw_invitation(&mut conn, club, code).await?)
}

/// Makes the caller a member of the invitation's club with its role (one who had left comes
/// back under their old member id), once per `key`: `render` gives the answer, kept under the
/// key. A retry with the key gets that answer although the invitation has expired since.
///
/// # Errors
/// `Store(NotFound("invitation"))` for a code unknown, expired or withdrawn; `AlreadyMember`
/// for a member who has not left; `UnknownUser`; `IdempotencyKeyReused`.
pub async fn join<K: Kept>(
    pool: &PgPool,
    account: Account,
    code: &str,
    now: DateTime<Utc>,
    key: Option<&CreationKey>,
    render: impl FnOnce(MemberClub) -> Result<K, serde_json::Error>,
) -> Result<Outcome<K>, ServiceError> {
    let user = account.user();
    account.password_only("join clubs")?;
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    ensure_user(&mut tx, user).await?;
    if let Some(first) = idempotency::first_answer(&mut tx, user, key).await? {
        return Ok(first);
    }
    let invitation = store::clubs::open_invitation(&mut tx, code, now)
        .await?
        .ok_or(ServiceError::Store(StoreError::NotFound("invitation")))?;
    let account = store::users::by_id(&mut tx, user)
        .await?
        .ok_or(ServiceError::UnknownUser)?;
    store::clubs::owners(&mut tx, invitation.club_id).await?;
    if let Some(member) = store::clubs::member_of_user(&mut tx, invitation.club_id, user).await? {
        if member.left_at.is_none() {
            return Err(ServiceError::AlreadyMember);
        }
    }
    let member = store::clubs::join(&mut tx, invitation.club_id, user, &account.name, invitation.role, code).await?;
    let club = store::clubs::fetch(&mut tx, invitation.club_id).await?;
    let answer = render(MemberClub {
        id: club.id,
        name: club.name,
        created_at: club.created_at,
        role: member.role.unwrap_or(invitation.role),
    })
    .map_err(ServiceError::Encode)?;
    idempotency::keep_and_commit(tx, user, key, answer).await
}

/// The caller's clubs, a page of them (a personal API token's: its one club).
///
/// # Errors
/// On database failure.
pub async fn of_user(
    pool: &PgPool,
    account: Account,
    limit: i64,
    offset: i64,
) -> Result<Vec<MemberClub>, ServiceError> {
    let user = account.user();
    let Some(only) = account.narrowed(None)? else {
        return Ok(Vec::new());
    };
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    // A personal API token sees its one club (of which the account has at most one row).
    Ok(store::clubs::of_user(&mut conn, user, only, limit, offset).await?)
}

/// An owner sets a new password (`hash`, already hashed) for a member's account, for a member
/// who forgot theirs: every token of that account stops working (its generation moves on).
/// Once per `key`: `render` gives the answer, kept under the key; a retry with the key gets
/// that answer and sets nothing.
///
/// # Errors
/// `Store(NotFound("club"))` for a stranger; `TokenScope` for a personal API token;
/// `Store(NotFound("member"))` for no such member; `Forbidden` for anyone but an owner, or for an account that is also a member of a club the
/// caller does not own; `InvalidRole` for a player without an account; `IdempotencyKeyReused`.
pub async fn reset_password<K: Kept>(
    pool: &PgPool,
    account: Account,
    club: Uuid,
    id: Uuid,
    hash: &str,
    key: Option<&CreationKey>,
    render: impl FnOnce(ClubMember) -> Result<K, serde_json::Error>,
) -> Result<Outcome<K>, ServiceError> {
    let user = account.user();
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    // Before the kept answer: a token never reads what a password's session kept.
    let caller = access::password_role(&mut tx, account, club).await?;
    if let Some(first) = idempotency::first_answer(&mut tx, user, key).await? {
        return Ok(first);
    }
    if caller != ClubRole::Owner {
        return Err(ServiceError::Forbidden(
            "only an owner of the club resets a member's password",
        ));
    }
    let member = store::clubs::lock_member(&mut tx, club, id).await?;
    let Some(account) = member.user_id else {
        return Err(ServiceError::InvalidRole(
            "a player without an account has no password: invite them to make one",
        ));
    };
    if store::clubs::belongs_beyond(&mut tx, account, club, user).await? {
        return Err(ServiceError::Forbidden(
            "this account is also a member of a club you do not own: it resets its password there or by `tablekeeper reset-password`",
        ));
    }
    store::users::new_generation(&mut tx, account, Some(hash)).await?;
    let answer = render(member).map_err(ServiceError::Encode)?;
    idempotency::keep_and_commit(tx, user, key, answer).await
}
