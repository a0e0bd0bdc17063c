//! Who may do what in a club: the one place a caller's standing in a club is decided.
//!
//! A club is the tenant. An account acts in a club through its member role; a scorer token acts
//! on its one table only. Someone with no standing in a club is told the thing is not found, so
//! that ids of another club's sessions and tables are neither confirmed nor denied.

use sqlx::PgConnection;
use uuid::Uuid;

use super::{Principal, ServiceError};
use crate::store::clubs::ClubRole;
use crate::store::tables::TableRow;
use crate::store::{self, StoreError};

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
    user: Uuid,
    club: Uuid,
    capability: Capability,
    what: &'static str,
) -> Result<ClubRole, ServiceError> {
    let role = store::clubs::role_of(conn, club, user)
        .await?
        .ok_or(ServiceError::Store(StoreError::NotFound(what)))?;
    if allows(role, capability) {
        Ok(role)
    } else {
        Err(ServiceError::Forbidden(refusal(capability)))
    }
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
        Principal::Organiser { user } => require(conn, user, table.club_id, capability, "table")
            .await
            .map(|_| ()),
    }
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
