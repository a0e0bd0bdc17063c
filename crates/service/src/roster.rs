//! Who sits where across a session: a seat's [`Identity`], which the standings, the session's
//! ledger and the settle-up all match players by, so that the three agree.

use uuid::Uuid;

use tablekeeper_store as store;
use tablekeeper_store::sessions::Member;
use tablekeeper_store::tables::TableRow;

/// Who a seat is across the session: a roster member, or (for a table stored before the
/// roster) the name folded, matched to the member of that name when there is one.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Identity {
    Member(Uuid),
    Name(String),
}

impl Identity {
    /// Who sits in seat `index` of `table`: the member its seat names, else the roster member of
    /// that name (case and spacing aside), else the name.
    pub fn of_seat(table: &TableRow, index: usize, roster: &[Member]) -> Identity {
        Identity::of(&table.players, table.members.as_deref(), index, roster)
    }

    /// As [`Identity::of_seat`], from a table's players and seat members.
    pub fn of(players: &[String], members: Option<&[Uuid]>, index: usize, roster: &[Member]) -> Identity {
        if let Some(member) = members.and_then(|m| m.get(index)) {
            return Identity::Member(*member);
        }
        let key = players
            .get(index)
            .map(|name| store::sessions::name_key(name))
            .unwrap_or_default();
        match roster.iter().find(|m| store::sessions::name_key(&m.name) == key) {
            Some(member) => Identity::Member(member.id),
            None => Identity::Name(key),
        }
    }

    /// The member's name on the roster, or `typed` (the name at the seat).
    pub fn name<'a>(&self, typed: &'a str, roster: &'a [Member]) -> &'a str {
        match self {
            Identity::Member(m) => roster.iter().find(|r| r.id == *m).map_or(typed, |r| &r.name),
            Identity::Name(_) => typed,
        }
    }

    /// The roster member, if it is one.
    pub fn member(&self) -> Option<Uuid> {
        match self {
            Identity::Member(id) => Some(*id),
            Identity::Name(_) => None,
        }
    }
}
