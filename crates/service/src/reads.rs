//! Where a read runs: on the primary, or on a streaming standby (`DATABASE_READ_URL`).
//!
//! Reads that tolerate a little lag (boards, session pages, standings, exports, audits, bundles)
//! ask [`Reads::pool`] for their pool; writes, and everything a write reads, use the primary's
//! pool directly and never come here.
//!
//! Invariants:
//! - Without a standby every read runs on the primary, exactly as before.
//! - Read-your-writes: a caller (named by its bearer credential) that wrote through this replica
//!   within the last `window` reads from the primary, so it sees its own write whatever the
//!   standby's lag. The window is this replica's memory: a load balancer that sends a client's
//!   read to another replica than its write should keep clients on one replica (as the live
//!   streams already want), or the window should exceed the standby's worst lag.
//! - Credentials are kept only as keyed hashes, and only for `window`: the map is pruned as it
//!   grows.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tablekeeper_store::PgPool;

/// How many writers are remembered before the expired ones are pruned.
const PRUNE_AT: usize = 4096;

/// Which pool each read runs on.
pub struct Reads {
    primary: PgPool,
    standby: Option<PgPool>,
    window: Duration,
    hasher: std::collections::hash_map::RandomState,
    writers: Mutex<HashMap<u64, Instant>>,
}

/// Where a read was sent (for metrics and tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Served {
    Primary,
    Standby,
}

impl Reads {
    /// Reads on `standby` when there is one, except a caller's for `window` after its write.
    pub fn new(primary: PgPool, standby: Option<PgPool>, window: Duration) -> Reads {
        Reads {
            primary,
            standby,
            window,
            hasher: std::collections::hash_map::RandomState::new(),
            writers: Mutex::new(HashMap::new()),
        }
    }

    /// Every read on the primary.
    pub fn primary_only(primary: PgPool) -> Reads {
        Reads::new(primary, None, Duration::ZERO)
    }

    /// The primary's pool (writes, and reads that must see the latest commit).
    pub fn primary(&self) -> &PgPool {
        &self.primary
    }

    /// The standby's pool, when one is configured.
    pub fn standby(&self) -> Option<&PgPool> {
        self.standby.as_ref()
    }

    /// Notes that `caller` (its bearer credential) has just written: its reads go to the primary
    /// for the window.
    pub fn wrote(&self, caller: &str) {
        if self.standby.is_none() {
            return;
        }
        let key = self.hasher.hash_one(caller);
        let now = Instant::now();
        let mut writers = self.writers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if writers.len() >= PRUNE_AT {
            let window = self.window;
            writers.retain(|_, at| now.duration_since(*at) < window);
        }
        writers.insert(key, now);
    }

    /// Where a lag-tolerant read by `caller` (None: anonymous) runs.
    pub fn route(&self, caller: Option<&str>) -> Served {
        if self.standby.is_none() {
            return Served::Primary;
        }
        let Some(caller) = caller else {
            return Served::Standby;
        };
        let key = self.hasher.hash_one(caller);
        let writers = self.writers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match writers.get(&key) {
            Some(at) if at.elapsed() < self.window => Served::Primary,
            _ => Served::Standby,
        }
    }

    /// The pool a lag-tolerant read by `caller` runs on.
    pub fn pool(&self, caller: Option<&str>) -> &PgPool {
        match (self.route(caller), &self.standby) {
            (Served::Standby, Some(standby)) => standby,
            _ => &self.primary,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lazy_pool(database: &str) -> PgPool {
        let url = format!("postgres://postgres@127.0.0.1:1/{database}");
        tablekeeper_store::pool(&url, 1, Duration::from_millis(10), None).expect("a URL")
    }

    #[tokio::test]
    async fn without_a_standby_every_read_is_the_primarys() {
        let reads = Reads::primary_only(lazy_pool("primary"));
        reads.wrote("token");
        assert_eq!(reads.route(Some("token")), Served::Primary);
        assert_eq!(reads.route(Some("other")), Served::Primary);
        assert_eq!(reads.route(None), Served::Primary);
    }

    #[tokio::test]
    async fn a_writer_reads_from_the_primary_for_the_window_and_others_from_the_standby() {
        let reads = Reads::new(
            lazy_pool("primary"),
            Some(lazy_pool("standby")),
            Duration::from_millis(200),
        );
        assert_eq!(reads.route(Some("writer")), Served::Standby);
        reads.wrote("writer");
        assert_eq!(reads.route(Some("writer")), Served::Primary);
        assert_eq!(reads.route(Some("reader")), Served::Standby);
        assert_eq!(reads.route(None), Served::Standby);
        tokio::time::sleep(Duration::from_millis(250)).await;
        assert_eq!(reads.route(Some("writer")), Served::Standby);
    }

    #[tokio::test]
    async fn expired_writers_are_forgotten_as_the_map_grows() {
        let reads = Reads::new(lazy_pool("primary"), Some(lazy_pool("standby")), Duration::ZERO);
        for i in 0..(PRUNE_AT * 2) {
            reads.wrote(&format!("token {i}"));
        }
        let kept = reads.writers.lock().expect("lock").len();
        assert!(kept <= PRUNE_AT, "{kept} writers kept");
    }
}
