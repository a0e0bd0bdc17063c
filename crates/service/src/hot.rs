//! Hot states: each replica keeps the latest engine state of the tables it recorded on lately, so
//! a move on a hot table does not read and fold snapshots and moves again.
//!
//! Invariants:
//! - An entry is the fold of its table's log at exactly the version it is keyed by; it is used
//!   only when the row locked for a move has that version, so another replica's moves (which bump
//!   the version) make it unused, never wrong: the database stays the one source of truth.
//! - A move takes its table's state out while it works on it, and a state goes back in only after
//!   its transaction committed: a refused, failed or rolled-back move leaves nothing behind.
//! - A state never replaces one of a later version, and at most `capacity` tables are kept; the
//!   least recently used goes first.

use std::any::Any;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use uuid::Uuid;

/// The default number of tables whose state a replica keeps.
pub const DEFAULT_CAPACITY: usize = tablekeeper_config::DEFAULT_HOT_TABLES;

/// A replica's latest states, per table, keyed by the table's version.
pub struct HotStates {
    capacity: usize,
    inner: Mutex<Inner>,
    hits: AtomicU64,
    misses: AtomicU64,
}

/// A table's state as left by the entry that took its table to `version`.
pub struct Hot<G> {
    pub version: i64,
    /// The table's club's number: a move's read names it, so that on Citus it goes to the one
    /// worker holding the table (a table never changes club).
    pub club_no: i32,
    pub game: G,
    /// Effective moves folded since the latest snapshot kept (when the next one is due).
    pub since_snapshot: usize,
}

struct Entry {
    version: i64,
    club_no: i32,
    since_snapshot: usize,
    game: Box<dyn Any + Send + Sync>,
    used: u64,
}

#[derive(Default)]
struct Inner {
    entries: HashMap<Uuid, Entry>,
    /// Tables by when they were last put, oldest first.
    by_use: BTreeMap<u64, Uuid>,
    clock: u64,
}

impl HotStates {
    /// Keeps at most `capacity` tables (0 keeps none).
    pub fn new(capacity: usize) -> HotStates {
        HotStates {
            capacity,
            inner: Mutex::new(Inner::default()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        // Each operation leaves the maps consistent before it can panic: still usable.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The version of the state kept for `table`, and the number of its club, if any.
    pub fn kept(&self, table: Uuid) -> Option<(i64, i32)> {
        self.inner().entries.get(&table).map(|e| (e.version, e.club_no))
    }

    /// Takes out `table`'s state when it is kept at exactly `version` (and is a `G`); a kept state
    /// of another version is dropped, as it can no longer be used.
    pub fn take<G: Send + Sync + 'static>(&self, table: Uuid, version: i64) -> Option<Hot<G>> {
        let taken = {
            let mut inner = self.inner();
            let entry = inner.entries.remove(&table);
            if let Some(entry) = &entry {
                inner.by_use.remove(&entry.used);
            }
            entry
        };
        let hot = taken.filter(|e| e.version == version).and_then(|e| {
            let since_snapshot = e.since_snapshot;
            let club_no = e.club_no;
            e.game.downcast::<G>().ok().map(|game| Hot {
                version,
                club_no,
                game: *game,
                since_snapshot,
            })
        });
        let counter = if hot.is_some() { &self.hits } else { &self.misses };
        counter.fetch_add(1, Ordering::Relaxed);
        hot
    }

    /// Keeps `hot` as `table`'s state, unless a state of a later version is kept already. Call
    /// only once the transaction that took the table to `hot.version` has committed.
    pub fn put<G: Send + Sync + 'static>(&self, table: Uuid, hot: Hot<G>) {
        if self.capacity == 0 {
            return;
        }
        let mut inner = self.inner();
        if let Some(kept) = inner.entries.get(&table) {
            if kept.version > hot.version {
                return;
            }
            let used = kept.used;
            inner.by_use.remove(&used);
        }
        inner.clock += 1;
        let used = inner.clock;
        inner.by_use.insert(used, table);
        inner.entries.insert(
            table,
            Entry {
                version: hot.version,
                club_no: hot.club_no,
                since_snapshot: hot.since_snapshot,
                game: Box::new(hot.game),
                used,
            },
        );
        while inner.entries.len() > self.capacity {
            let Some((_, oldest)) = inner.by_use.pop_first() else {
                break;
            };
            inner.entries.remove(&oldest);
        }
    }

    /// Forgets every state (as a restarted replica would).
    pub fn clear(&self) {
        let mut inner = self.inner();
        inner.entries.clear();
        inner.by_use.clear();
    }

    /// How many tables are kept.
    pub fn len(&self) -> usize {
        self.inner().entries.len()
    }

    /// Whether no table is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Moves that found their table's state kept, and moves that did not.
    pub fn hits_and_misses(&self) -> (u64, u64) {
        (self.hits.load(Ordering::Relaxed), self.misses.load(Ordering::Relaxed))
    }

    /// A copy of `table`'s kept state, for comparing it with the fold from the database.
    pub fn peek<G: Clone + Send + Sync + 'static>(&self, table: Uuid) -> Option<(i64, G)> {
        let inner = self.inner();
        let entry = inner.entries.get(&table)?;
        let game = entry.game.downcast_ref::<G>()?;
        Some((entry.version, game.clone()))
    }
}

impl Default for HotStates {
    fn default() -> HotStates {
        HotStates::new(DEFAULT_CAPACITY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hot(version: i64, game: u32) -> Hot<u32> {
        Hot {
            version,
            club_no: 1,
            game,
            since_snapshot: 0,
        }
    }

    #[test]
    fn a_state_is_used_only_at_its_version_and_only_once() {
        let states = HotStates::new(4);
        let table = Uuid::new_v4();
        states.put(table, hot(3, 30));
        assert!(states.take::<u32>(table, 4).is_none());
        // The mismatch dropped it: it can never be used again.
        assert!(states.is_empty());
        states.put(table, hot(3, 30));
        assert_eq!(states.take::<u32>(table, 3).map(|h| h.game), Some(30));
        assert!(states.take::<u32>(table, 3).is_none());
        assert_eq!(states.hits_and_misses(), (1, 2));
    }

    #[test]
    fn an_older_state_never_replaces_a_newer_one() {
        let states = HotStates::new(4);
        let table = Uuid::new_v4();
        states.put(table, hot(5, 50));
        states.put(table, hot(4, 40));
        assert_eq!(states.kept(table), Some((5, 1)));
    }

    #[test]
    fn the_least_recently_put_table_goes_first_when_full() {
        let states = HotStates::new(2);
        let [a, b, c] = [Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4()];
        states.put(a, hot(1, 1));
        states.put(b, hot(1, 2));
        states.put(a, hot(2, 3));
        states.put(c, hot(1, 4));
        assert_eq!(states.len(), 2);
        assert_eq!(states.kept(b), None);
        assert_eq!(states.kept(a), Some((2, 1)));
        assert_eq!(states.kept(c), Some((1, 1)));
    }

    #[test]
    fn a_state_of_another_type_is_not_used() {
        let states = HotStates::new(2);
        let table = Uuid::new_v4();
        states.put(table, hot(1, 1));
        assert!(states.take::<String>(table, 1).is_none());
    }

    #[test]
    fn capacity_zero_keeps_nothing() {
        let states = HotStates::new(0);
        states.put(Uuid::new_v4(), hot(1, 1));
        assert!(states.is_empty());
    }
}
