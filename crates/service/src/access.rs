//! Who may do what in a club: the one place a caller's standing in a club is decided.
//!
//! A club is the tenant. An account acts in a club through its member role; a scorer token acts
//! on its one table only. Someone with no standing in a club is told the thing is not found, so
//! that ids of another club's sessions and tables are neither confirmed nor denied.
//!
//! A personal API token narrows its account: it acts in its one club only (anything of another
//! club is not found) and only as far as its scopes go ([`Grant`]), and never further than the
//! account's role there allows when it is used, so a demoted member's tokens shrink with them.
//! The grant travels in the caller's own type ([`Account`]), which every check here takes:
//! there is no way to ask what an account may do without it. Members, roles, guests and
//! passwords are a password's session's alone ([`password_role`]).

use tablekeeper_store::{PgConnection, PgPool};
use uuid::Uuid;

use super::{Principal, ServiceError};
use tablekeeper_store::clubs::ClubRole;
use tablekeeper_store::sessions::ClubSession;
use tablekeeper_store::tables::TableRow;
pub use tablekeeper_store::users::TokenStamp;
use tablekeeper_store::{self as store, StoreError};

/// What a caller asks to do in a club.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capability {
    /// See the club's sessions, tables, moves, ledgers, standings, settlements, bundles, streams.
    Read,
    /// Record at a table: moves, undos, corrections.
    Record,
    /// Confirm or dispute a finished deal: whoever records or audits.
    Verify,
    /// What a treasurer does: export, settle up, set what a chip is worth, verify deals.
    Audit,
    /// Run the club's evenings: start sessions, open tables, hand out join codes, revoke scorers,
    /// make share links.
    Organise,
    /// Run the club itself: members, invitations and roles.
    Manage,
}

/// What a personal API token may be given: each scope stands for some capabilities, in the
/// token's one club, and never more than its user's role there allows at the time of use.
/// `Manage` (members, invitations, roles) is no scope's: a token never manages a club.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `Read`: see the club's sessions, tables, scores, ledgers, standings, streams.
    Read,
    /// `Record` and `Verify`: record moves, undo, correct and verify deals.
    Record,
    /// `Organise`: start sessions, open tables, hand out join codes and share links.
    Organise,
    /// `Audit` and `Verify`: what a treasurer does (export, settle, verify).
    Treasury,
}

impl Scope {
    pub const ALL: [Scope; 4] = [Scope::Read, Scope::Record, Scope::Organise, Scope::Treasury];

    /// The scope of this name (`read`, `record`, `organise`, `treasury`).
    pub fn parse(name: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|s| s.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::Record => "record",
            Scope::Organise => "organise",
            Scope::Treasury => "treasury",
        }
    }

    /// The capabilities the scope stands for.
    pub fn capabilities(self) -> &'static [Capability] {
        match self {
            Scope::Read => &[Capability::Read],
            Scope::Record => &[Capability::Record, Capability::Verify],
            Scope::Organise => &[Capability::Organise],
            Scope::Treasury => &[Capability::Audit, Capability::Verify],
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// A set of scopes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Scopes(u8);

impl Scopes {
    pub fn of(scopes: impl IntoIterator<Item = Scope>) -> Scopes {
        Scopes(scopes.into_iter().fold(0, |bits, s| bits | s.bit()))
    }

    pub fn contains(self, scope: Scope) -> bool {
        self.0 & scope.bit() != 0
    }

    /// Whether one of the scopes stands for `capability`.
    pub fn allow(self, capability: Capability) -> bool {
        Scope::ALL
            .into_iter()
            .any(|s| self.contains(s) && s.capabilities().contains(&capability))
    }
}

/// What the request's personal API token allows: its one club and its scopes. A request made
/// with a password's (JWT) token has none, and its account acts by role alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grant {
    pub token: Uuid,
    pub club: Uuid,
    pub scopes: Scopes,
}

/// An account acting: by its password's session (no grant: its role alone decides) or through a
/// personal API token (the token's [`Grant`]: its one club and its scopes, never more than the
/// role allows). Only the bearer's extractor makes one, and every check below takes it, so no
/// use case can ask what an account may do without the token's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Account {
    user: Uuid,
    grant: Option<Grant>,
}

impl Account {
    /// An account signed in with its password.
    pub fn by_password(user: Uuid) -> Account {
        Account { user, grant: None }
    }

    /// An account acting through a personal API token.
    pub fn by_token(user: Uuid, grant: Grant) -> Account {
        Account {
            user,
            grant: Some(grant),
        }
    }

    /// The account's user id (whose role is read; under whom creations are kept).
    pub fn user(self) -> Uuid {
        self.user
    }

    /// The token's grant, when the account acts through a personal API token.
    pub fn grant(self) -> Option<Grant> {
        self.grant
    }

    /// Refuses a personal API token for what acts on the account rather than in one club
    /// (making clubs or tokens, joining clubs, signing out, passwords): `doing` says what, as
    /// "make tokens".
    ///
    /// # Errors
    /// `TokenScope` when the account acts through a personal API token.
    pub fn password_only(self, doing: &str) -> Result<Uuid, ServiceError> {
        match self.grant {
            Some(_) => Err(ServiceError::TokenScope(format!(
                "an API token acts in its one club and cannot {doing}; sign in with a password"
            ))),
            None => Ok(self.user),
        }
    }

    /// The club a listing across the account's clubs is narrowed to: `requested` (None: every
    /// club), or a token's one club. None when a token asks for another club's, of which it
    /// sees nothing.
    ///
    /// # Errors
    /// `TokenScope` for a token without the `read` scope.
    pub fn narrowed(self, requested: Option<Uuid>) -> Result<Option<Option<Uuid>>, ServiceError> {
        Ok(match (requested, self.grant) {
            (requested, None) => Some(requested),
            (_, Some(g)) if !g.scopes.allow(Capability::Read) => return Err(lacks(Capability::Read)),
            (None, Some(g)) => Some(Some(g.club)),
            (Some(club), Some(g)) => (club == g.club).then_some(Some(club)),
        })
    }
}

/// The refusal of a token whose scopes do not stand for `capability`, naming the scope it lacks.
fn lacks(capability: Capability) -> ServiceError {
    let needed: Vec<String> = Scope::ALL
        .into_iter()
        .filter(|s| s.capabilities().contains(&capability))
        .map(|s| format!("`{}`", s.name()))
        .collect();
    ServiceError::TokenScope(if needed.is_empty() {
        "no API token manages a club's members, invitations or roles; sign in with a password".to_owned()
    } else {
        format!("this token lacks the {} scope", needed.join(" or "))
    })
}

/// Whether a role allows a capability. Which roles an organiser may give (not owner) is
/// checked where roles are given: `Manage` alone does not say.
pub fn allows(role: ClubRole, capability: Capability) -> bool {
    use Capability::{Audit, Read, Record, Verify};
    match role {
        ClubRole::Owner | ClubRole::Organiser => true,
        ClubRole::Treasurer => matches!(capability, Read | Audit | Verify),
        ClubRole::Scorer => matches!(capability, Read | Record | Verify),
        ClubRole::Viewer => capability == Read,
    }
}

/// The role an account holds in `club`, or the refusal: `NotFound(what)` for a stranger to the
/// club, `Forbidden` for a member whose role does not allow `capability`.
///
/// # Errors
/// As above; on database failure.
pub async fn require(
    conn: &mut PgConnection,
    account: Account,
    club: Uuid,
    capability: Capability,
    what: &'static str,
) -> Result<ClubRole, ServiceError> {
    if account.grant.is_some_and(|g| g.club != club) {
        return Err(ServiceError::Store(StoreError::NotFound(what)));
    }
    let role = store::clubs::role_of(conn, club, account.user).await?;
    role_allows(account, role, club, capability, what)
}

/// The role a password's session holds in `club`, for what no API token does whatever its
/// scopes (members, roles, guests, passwords): a token is refused (`TokenScope`; `NotFound` in
/// another club than its own, as everywhere), a stranger is told the club is not found. What
/// the role may then do is the caller's to decide (an organiser changes members, an owner
/// resets passwords).
///
/// # Errors
/// As above; on database failure.
pub async fn password_role(conn: &mut PgConnection, account: Account, club: Uuid) -> Result<ClubRole, ServiceError> {
    match account.grant {
        Some(g) if g.club != club => Err(ServiceError::Store(StoreError::NotFound("club"))),
        Some(_) => Err(lacks(Capability::Manage)),
        None => store::clubs::role_of(conn, club, account.user)
            .await?
            .ok_or(ServiceError::Store(StoreError::NotFound("club"))),
    }
}

/// `require` on a role read already (None: not a member, or one who has left), as a move reads
/// it with its table.
///
/// # Errors
/// As `require`.
pub fn role_allows(
    account: Account,
    role: Option<ClubRole>,
    club: Uuid,
    capability: Capability,
    what: &'static str,
) -> Result<ClubRole, ServiceError> {
    let grant = account.grant;
    if grant.is_some_and(|g| g.club != club) {
        return Err(ServiceError::Store(StoreError::NotFound(what)));
    }
    let role = role.ok_or(ServiceError::Store(StoreError::NotFound(what)))?;
    if grant.is_some_and(|g| !g.scopes.allow(capability)) {
        return Err(lacks(capability));
    }
    if allows(role, capability) {
        Ok(role)
    } else {
        Err(ServiceError::Forbidden(refusal(capability)))
    }
}

/// Whether `account` is a club member seated at `table` (a tournament's table seats members):
/// such a member records at their own table with their own account, whatever their role (a
/// viewer included), as a scorer would; nowhere else. Asked only once the role has refused, so
/// a scorer's or an organiser's move costs nothing more.
///
/// # Errors
/// On database failure.
pub async fn seated(conn: &mut PgConnection, account: Account, table: &TableRow) -> Result<bool, ServiceError> {
    let Some(seats) = table.members.as_deref() else {
        return Ok(false);
    };
    let member = store::clubs::member_of_user(conn, table.club_id, account.user).await?;
    Ok(member.is_some_and(|m| m.left_at.is_none() && seats.contains(&m.id)))
}

/// Refuses an account's token that was signed out (`TokenSignedOut`) or whose user is gone
/// (`UnknownUser`), from what was read of it: `stands` is None for no such user.
///
/// # Errors
/// As said.
pub fn token_stood(stands: Option<bool>) -> Result<(), ServiceError> {
    match stands {
        Some(true) => Ok(()),
        Some(false) => Err(ServiceError::TokenSignedOut),
        None => Err(ServiceError::UnknownUser),
    }
}

/// Whether an account's token still stands.
///
/// # Errors
/// As `token_stood`; on database failure.
pub async fn token_stands(conn: &mut PgConnection, user: Uuid, token: TokenStamp) -> Result<(), ServiceError> {
    token_stood(store::users::token_stands(conn, user, token).await?)
}

/// Whether `who` may do `capability` at `table`: a member of its club by role, or a scorer
/// token of this very table for reading and recording.
///
/// # Errors
/// `Store(NotFound("table"))` for a stranger to the table's club (a scorer of another table
/// included); `Forbidden` for a role that does not allow it.
pub async fn require_table(
    conn: &mut PgConnection,
    who: Principal,
    table: &TableRow,
    capability: Capability,
) -> Result<(), ServiceError> {
    match who {
        Principal::Scorer { table: t, .. } if t == table.id => {
            if matches!(capability, Capability::Read | Capability::Record | Capability::Verify) {
                Ok(())
            } else {
                Err(ServiceError::Forbidden(refusal(capability)))
            }
        }
        Principal::Scorer { .. } => Err(ServiceError::Store(StoreError::NotFound("table"))),
        Principal::Account(account) => require(conn, account, table.club_id, capability, "table")
            .await
            .map(|_| ()),
    }
}

/// Who reads: an account or a scorer token, or the holder of a session's share link, which
/// reads that session, its tables and their streams, and nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    Principal(Principal),
    Share { session: Uuid, link: Uuid },
}

/// Whether `who` may read the table: a member of its club, its own scorer, or a share link of
/// its session.
///
/// # Errors
/// `Store(NotFound("table"))` for anyone else, so that another club's ids are neither
/// confirmed nor denied.
pub async fn read_table(conn: &mut PgConnection, who: Reader, table: &TableRow) -> Result<(), ServiceError> {
    match who {
        Reader::Principal(p) => require_table(conn, p, table, Capability::Read).await,
        Reader::Share { session, .. } if table.session_id == Some(session) => Ok(()),
        Reader::Share { .. } => Err(ServiceError::Store(StoreError::NotFound("table"))),
    }
}

/// Whether `who` may read the session: a member of its club or a share link of it. A scorer
/// token reads its own table, not the evening around it.
///
/// # Errors
/// `Store(NotFound("session"))` for anyone else.
pub async fn read_session(conn: &mut PgConnection, who: Reader, session: &ClubSession) -> Result<(), ServiceError> {
    let not_found = || ServiceError::Store(StoreError::NotFound("session"));
    match who {
        Reader::Principal(Principal::Account(account)) => {
            require(conn, account, session.club_id, Capability::Read, "session")
                .await
                .map(|_| ())
        }
        Reader::Principal(Principal::Scorer { .. }) => Err(not_found()),
        Reader::Share { session: s, .. } if s == session.id => Ok(()),
        Reader::Share { .. } => Err(not_found()),
    }
}

/// The table, when `who` may read it (see [`read_table`]).
///
/// # Errors
/// `Store(NotFound("table"))` when there is no such table or `who` may not read it.
pub async fn readable_table(pool: &PgPool, who: Reader, id: Uuid) -> Result<TableRow, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let table = store::tables::fetch(&mut conn, id).await?;
    read_table(&mut conn, who, &table).await?;
    Ok(table)
}

/// The session, when `who` may read it (see [`read_session`]).
///
/// # Errors
/// `Store(NotFound("session"))` when there is no such session or `who` may not read it.
pub async fn readable_session(pool: &PgPool, who: Reader, id: Uuid) -> Result<ClubSession, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let session = store::sessions::fetch(&mut conn, id).await?;
    read_session(&mut conn, who, &session).await?;
    Ok(session)
}

fn refusal(capability: Capability) -> &'static str {
    match capability {
        Capability::Read => "your role in this club does not let you see this",
        Capability::Record => "your role in this club does not let you record at its tables",
        Capability::Verify => "your role in this club does not let you verify its deals",
        Capability::Audit => "only the club's treasurers, organisers and owners export, settle and verify",
        Capability::Organise => "only the club's organisers and owners run its sessions and tables",
        Capability::Manage => "only the club's organisers and owners manage its members",
    }
}

/// Whether the table's scorer `id` still stands (its organiser has not revoked it).
///
/// # Errors
/// On database failure.
pub async fn scorer_stands(pool: &tablekeeper_store::PgPool, table: Uuid, id: Uuid) -> Result<bool, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    Ok(store::scorers::is_active(&mut conn, table, id).await?)
}
