//! Live tables: every committed log entry reaches the phones and boards that follow its table,
//! whichever replica they are connected to.
//!
//! A move's transaction announces its entry with `NOTIFY` (`store::live::announce`), so only
//! committed entries are announced, and only while some replica follows its table: a replica
//! takes a lease on a table (or a session) before its first follower there reads the log, and
//! renews it while anyone follows, since PostgreSQL serialises the commits of notifying
//! transactions and a table nobody watches should not pay for that. Each replica keeps one
//! `LISTEN` connection and, for the tables and sessions someone follows on it, fans each new
//! entry out to its local subscribers. The log stays the source of truth: a subscriber that sees a gap in the
//! sequence numbers, falls behind its buffer, or hears that the listener reconnected (and so may
//! have missed notifications) reads what it missed from the log itself, so nothing is lost or
//! repeated, and a client resuming with `Last-Event-ID` starts from the log too. Each renewal
//! also compares every followed table's version with the last entry fanned out, so a lease that
//! lapsed (a replica stalled past it) costs a delay, never an entry.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tablekeeper_store::PgPool;
use tokio::sync::{broadcast, mpsc};
use uuid::Uuid;

use super::receipts::{self, AuditKeys, Receipt};
use super::{fold, game_of, ServiceError};
use tablekeeper_rules::with_game;
use tablekeeper_rules::{Game, GameId};
use tablekeeper_store as store;
use tablekeeper_store::tables::{MoveRow, TableRow};

use crate::tables::TableState;

mod folded;
mod signer;
use folded::{Folded, Moved};
use signer::{Signer, Unsigned};

/// How many entries a subscriber may fall behind before it reads from the log instead.
const BUFFER: usize = 256;

/// What a table's followers hear.
#[derive(Clone, Debug)]
pub enum TableSignal {
    /// A committed log entry.
    Entry(Arc<LiveRow>),
    /// Notifications may have been missed: read the log from where you are.
    CatchUp,
}

/// A committed log entry as fanned out to every follower of its table: its receipt read and
/// signed once per replica (by the table's signer, before any follower hears of it), and room
/// for the frame its streams write, rendered by the first follower to send it and shared by
/// the others. No follower waits on the database for a live entry.
#[derive(Debug)]
pub struct LiveRow {
    pub row: MoveRow,
    /// The receipt for the entry's link; None for an entry the chain does not cover, or when
    /// signing failed (the next entry's receipt covers this one too).
    pub receipt: Option<Receipt>,
    /// The table as this entry left it, folded or read once per replica, so that a follower
    /// redraws from the stream without reading the table (issue #46); None when the table had
    /// moved on by the time it was read (a later entry carries it) or the read failed.
    pub table: Option<Arc<TableState>>,
    pub rendered: std::sync::OnceLock<Option<bytes::Bytes>>,
}

impl std::ops::Deref for LiveRow {
    type Target = MoveRow;
    fn deref(&self) -> &MoveRow {
        &self.row
    }
}

/// A line of a session's stream: one table changed.
#[derive(Clone, Debug, serde::Serialize, utoipa::ToSchema)]
pub struct TableChange {
    pub table_id: Uuid,
    pub game: GameId,
    /// The table's version after the change (its number of log entries).
    pub version: i64,
    pub finished: bool,
    /// Each seat's running total, in seat order: points in a points game, chips held in a chip
    /// game.
    pub totals: Vec<i64>,
    /// The audit key's receipt for the table's chain as this change leaves it, signed as an
    /// answer's receipt is (the same table, session, position and head as the answer that made
    /// the change carried; `at` is when this line was signed). A board keeps them as a phone does,
    /// for `tablekeeper verify --receipts`. Null for a table with no chain yet.
    pub receipt: Option<Receipt>,
    /// The table as it is at `version`, read with it: the stream renders it as the table reads.
    #[serde(skip)]
    pub table: Option<Arc<TableState>>,
}

/// A line of a session's stream: a tournament of the session changed (a round started or
/// closed, an entrant came or went). A board reads the tournament again.
#[derive(Clone, Copy, Debug, serde::Serialize, utoipa::ToSchema)]
pub struct TournamentChange {
    pub tournament_id: Uuid,
    /// The last round started (0 before the first).
    pub round: u32,
    /// Whether that round is closed.
    pub round_closed: bool,
}

/// What a session's followers hear.
#[derive(Clone, Debug)]
pub enum SessionChange {
    Table(Arc<TableChange>),
    Tournament(TournamentChange),
}

/// How long a replica's lease on a table lasts unless renewed.
pub const DEFAULT_LEASE: Duration = tablekeeper_config::DEFAULT_LIVE_LEASE;

#[derive(Default)]
struct Feeds {
    tables: HashMap<Uuid, TableFeed>,
    sessions: HashMap<Uuid, SessionFeed>,
}

struct TableFeed {
    sender: broadcast::Sender<TableSignal>,
    /// The entries for the table's signer to sign and send on, in order.
    signing: mpsc::UnboundedSender<Unsigned>,
    /// The last entry fanned out; the next notification reads the log after it.
    last_seq: i64,
    /// Where the table's log is, so that reading it names the club's number (one shard).
    key: store::TableKey,
    /// Until when this replica's lease surely runs (the database's runs a little longer).
    leased_until: Instant,
}

struct SessionFeed {
    sender: broadcast::Sender<SessionChange>,
    /// The latest version heard of each of its tables, to see at a renewal what was missed.
    versions: HashMap<Uuid, i64>,
    leased_until: Instant,
}

/// One per replica: its LISTEN connection's fan-out.
pub struct Hub {
    pool: PgPool,
    /// Signs the receipts that session streams carry.
    keys: Arc<AuditKeys>,
    feeds: Mutex<Feeds>,
    lease: Duration,
    /// True once the replica is stopping: every stream ends, so that its clients resume on
    /// another replica (with `Last-Event-ID`) instead of holding this one's shutdown open.
    closing: tokio::sync::watch::Sender<bool>,
    /// The database connections the fan-out may use at once (a quarter of the pool, at least
    /// one): writers first. Without a bound, a thousand followed tables moving at once would
    /// each read their receipt and state while the scorers' moves waited for a connection, and
    /// timed out (issue #46); bounded, the fan-out is late instead, its entries signed and read
    /// together.
    live_reads: Arc<tokio::sync::Semaphore>,
    /// The tables whose session line is waiting for its read: a change heard meanwhile is in it.
    changes_pending: Arc<Mutex<std::collections::HashSet<Uuid>>>,
    /// Entries sent on to table streams: folded here from their announcement, and read back.
    sent: Arc<Sent>,
    /// The followed tables' states as their last entry heard here left them.
    folded: Arc<folded::States>,
}

/// How table streams' entries were signed and sent on by a replica, counted since it started.
#[derive(Debug, Default)]
pub struct Sent {
    /// With the link their announcement carried and the table folded here, in memory.
    pub from_announcement: std::sync::atomic::AtomicU64,
    /// With the link and the table read back from the database.
    pub read_back: std::sync::atomic::AtomicU64,
}

impl Hub {
    /// A hub on `pool` whose leases last `lease`; `listen` must run for it to hear anything, and
    /// `renew` to keep following past the first lease.
    pub fn new(pool: PgPool, lease: Duration, keys: Arc<AuditKeys>) -> Arc<Hub> {
        let live_reads = (pool.options().get_max_connections() / 4).max(1) as usize;
        Arc::new(Hub {
            pool,
            keys,
            feeds: Mutex::new(Feeds::default()),
            lease,
            closing: tokio::sync::watch::Sender::new(false),
            live_reads: Arc::new(tokio::sync::Semaphore::new(live_reads)),
            changes_pending: Arc::default(),
            sent: Arc::default(),
            folded: Arc::default(),
        })
    }

    /// How this replica's table streams' entries were sent on so far (its metrics read it).
    pub fn sent(&self) -> Arc<Sent> {
        Arc::clone(&self.sent)
    }

    /// Ends every stream of this replica, now and from now on (the replica is stopping).
    pub fn close(&self) {
        self.closing.send_replace(true);
    }

    /// Resolves once the replica is stopping (at once if it is already).
    pub fn closed(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut closing = self.closing.subscribe();
        async move {
            // An error means the hub is gone, which ends its streams as well.
            let _ = closing.wait_for(|closing| *closing).await;
        }
    }

    /// Whether a lease taken at `now` still has more than a renewal period to run: a follower
    /// may then rely on it without taking one.
    fn still_leased(&self, leased_until: Instant, now: Instant) -> bool {
        leased_until > now + self.renew_every()
    }

    fn renew_every(&self) -> Duration {
        self.lease / 3
    }

    fn feeds(&self) -> std::sync::MutexGuard<'_, Feeds> {
        // A panic while holding the lock leaves only a map of senders behind: still usable.
        self.feeds.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Follows a table: leases it (unless this replica holds a lease already) and then reads
    /// its row, so that every entry after the row's version is announced; the caller reads its
    /// backlog after this.
    ///
    /// # Errors
    /// `NotFound` when there is no such table; on database failure.
    pub async fn follow_table(
        &self,
        table: Uuid,
    ) -> Result<(broadcast::Receiver<TableSignal>, TableRow), ServiceError> {
        let asked = Instant::now();
        let leased = self
            .feeds()
            .tables
            .get(&table)
            .is_some_and(|f| self.still_leased(f.leased_until, asked));
        let mut conn = self.pool.acquire().await.map_err(store::StoreError::from)?;
        if !leased {
            store::live::follow_tables(&mut conn, &[table], self.lease).await?;
        }
        let row = store::tables::fetch(&mut conn, table).await?;
        drop(conn);
        // The first follower here folds the table, read after the lease (so every entry after
        // it is announced) and kept, so that its first move is folded in memory too: a room of
        // phones opening at the start of an evening would otherwise have every table's first
        // move read back at once.
        if folded::kept_version(&self.folded, table).is_none() {
            match state_folded(&self.pool, table).await {
                Ok((_, kept)) => folded::keep(&self.folded, kept),
                // Its first move is read back then, as any other entry can be.
                Err(e) => tracing::warn!(error = %e, %table, "folding a followed table failed"),
            }
        }
        let mut feeds = self.feeds();
        let feed = feeds.tables.entry(table).or_insert_with(|| {
            let sender = broadcast::channel(BUFFER).0;
            let (signing, unsigned) = mpsc::unbounded_channel();
            let signer = Signer {
                pool: self.pool.clone(),
                keys: self.keys.clone(),
                table: row.clone(),
                sender: sender.clone(),
                reads: self.live_reads.clone(),
                folded: Arc::clone(&self.folded),
                sent: Arc::clone(&self.sent),
            };
            tokio::spawn(signer.run(unsigned));
            TableFeed {
                sender,
                signing,
                last_seq: row.version,
                key: row.key(),
                leased_until: asked,
            }
        });
        if !leased {
            feed.leased_until = feed.leased_until.max(asked + self.lease);
        }
        Ok((feed.sender.subscribe(), row))
    }

    /// Follows every table of a session: leases the session and its tables (unless this
    /// replica holds a lease already); the caller reads the tables after this.
    ///
    /// # Errors
    /// On database failure.
    pub async fn follow_session(&self, session: Uuid) -> Result<broadcast::Receiver<SessionChange>, ServiceError> {
        let asked = Instant::now();
        let leased = self
            .feeds()
            .sessions
            .get(&session)
            .is_some_and(|f| self.still_leased(f.leased_until, asked));
        let mut versions = HashMap::new();
        if !leased {
            let mut conn = self.pool.acquire().await.map_err(store::StoreError::from)?;
            for (_, table, version) in store::live::follow_sessions(&mut conn, &[session], self.lease).await? {
                versions.insert(table, version);
            }
        }
        let mut feeds = self.feeds();
        let feed = feeds.sessions.entry(session).or_insert_with(|| SessionFeed {
            sender: broadcast::channel(BUFFER).0,
            versions: HashMap::new(),
            leased_until: asked,
        });
        if !leased {
            feed.leased_until = feed.leased_until.max(asked + self.lease);
            for (table, version) in versions {
                let seen = feed.versions.entry(table).or_insert(version);
                *seen = (*seen).max(version);
            }
        }
        Ok(feed.sender.subscribe())
    }

    /// Renews this replica's leases every third of a lease until the process ends.
    pub async fn renew(self: Arc<Hub>) {
        loop {
            tokio::time::sleep(self.renew_every()).await;
            self.renew_once().await;
        }
    }

    /// Renews the leases of everything followed here, and catches up what a lapsed lease let
    /// through unannounced: a table whose version is past the last entry fanned out, a session
    /// table past the version last heard.
    pub async fn renew_once(&self) {
        self.drop_unfollowed();
        let (tables, sessions): (Vec<Uuid>, Vec<Uuid>) = {
            let feeds = self.feeds();
            let watched: std::collections::HashSet<Uuid> = feeds
                .sessions
                .values()
                .flat_map(|feed| feed.versions.keys().copied())
                .chain(feeds.tables.keys().copied())
                .collect();
            folded::forget_all_but(&self.folded, &watched);
            (
                feeds.tables.keys().copied().collect(),
                feeds.sessions.keys().copied().collect(),
            )
        };
        if tables.is_empty() && sessions.is_empty() {
            return;
        }
        let asked = Instant::now();
        let mut conn = match self.pool.acquire().await {
            Ok(conn) => conn,
            Err(e) => {
                tracing::warn!(error = %e, "renewing live-table leases failed");
                return;
            }
        };
        let mut behind = Vec::new();
        if !tables.is_empty() {
            match store::live::renew_tables(&mut conn, &tables, self.lease).await {
                Ok(versions) => {
                    let mut feeds = self.feeds();
                    for (table, version) in versions {
                        if let Some(feed) = feeds.tables.get_mut(&table) {
                            feed.leased_until = asked + self.lease;
                            if version > feed.last_seq {
                                behind.push(table);
                            }
                        }
                    }
                }
                Err(e) => tracing::warn!(error = %e, "renewing live-table leases failed"),
            }
        }
        let mut changed = Vec::new();
        if !sessions.is_empty() {
            match store::live::renew_sessions(&mut conn, &sessions, self.lease).await {
                Ok(rows) => {
                    let mut feeds = self.feeds();
                    for session in &sessions {
                        if let Some(feed) = feeds.sessions.get_mut(session) {
                            feed.leased_until = asked + self.lease;
                        }
                    }
                    for (session, table, version) in rows {
                        if let Some(feed) = feeds.sessions.get_mut(&session) {
                            let seen = feed.versions.entry(table).or_insert(version);
                            if version > *seen {
                                *seen = version;
                                changed.push((feed.sender.clone(), table));
                            }
                        }
                    }
                }
                Err(e) => tracing::warn!(error = %e, "renewing live-session leases failed"),
            }
        }
        drop(conn);
        for table in behind {
            self.fan_out(table, None).await;
        }
        for (sender, table) in changed {
            self.send_change(sender, table);
        }
    }

    /// Hears committed entries until the process ends, reconnecting when the connection drops.
    pub async fn listen(self: Arc<Hub>) {
        loop {
            match store::live::Listener::connect(&self.pool).await {
                Ok(mut listener) => {
                    // Whatever was committed while nobody listened is in the log.
                    self.catch_up_all().await;
                    self.hear(&mut listener).await;
                }
                Err(e) => tracing::warn!(error = %e, "the live-tables listener cannot connect or LISTEN; retrying"),
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }

    async fn hear(&self, listener: &mut store::live::Listener) {
        loop {
            match listener.next().await {
                Ok(Some(payload)) => match store::live::Announcement::parse(&payload) {
                    Some((announced, heard)) => self.announced(announced, heard).await,
                    None => match store::live::TournamentNotice::parse(&payload) {
                        Some(notice) => self.noticed(notice),
                        None => match store::live::Renamed::parse(&payload) {
                            Some(renamed) => folded::forget(&self.folded, renamed.table),
                            None => tracing::warn!(payload, "an unreadable announcement"),
                        },
                    },
                },
                // The connection dropped: sqlx reconnects on the next call, but what was
                // announced in between is gone, so everyone catches up from the log.
                Ok(None) => self.catch_up_all().await,
                Err(e) => {
                    tracing::warn!(error = %e, "the live-tables listener failed");
                    return;
                }
            }
        }
    }

    async fn announced(&self, announced: store::live::Announcement, heard: Option<store::live::Heard>) {
        self.drop_unfollowed();
        let followed = self.feeds().tables.contains_key(&announced.table);
        let watched = announced.session.and_then(|session| {
            let mut feeds = self.feeds();
            let feed = feeds.sessions.get_mut(&session)?;
            let seen = feed.versions.entry(announced.table).or_insert(announced.seq);
            *seen = (*seen).max(announced.seq);
            Some(feed.sender.clone())
        });
        if !followed && watched.is_none() {
            return;
        }
        // Folded here once, for the table's streams and its session's boards alike.
        let moved = heard
            .as_ref()
            .and_then(|heard| folded::fold_heard(&self.folded, announced.table, heard));
        if followed {
            self.fan_out(announced.table, heard.map(|h| (h.entry, moved.clone())))
                .await;
        }
        if let Some(sender) = watched {
            match moved {
                Some(moved) => self.send_moved(sender, moved),
                None => self.send_change(sender, announced.table),
            }
        }
    }

    fn noticed(&self, notice: store::live::TournamentNotice) {
        self.drop_unfollowed();
        if let Some(feed) = self.feeds().sessions.get(&notice.session) {
            // No receiver left is not an error: the feed goes at the next tidy-up.
            drop(feed.sender.send(SessionChange::Tournament(TournamentChange {
                tournament_id: notice.tournament,
                round: notice.round,
                round_closed: notice.closed,
            })));
        }
    }

    /// Sends a session's followers the table's line as it is now. Worked out beside the
    /// listening task, which must not wait on the database: a board's changes may then arrive
    /// out of order, and it keeps the latest version.
    fn send_change(&self, sender: broadcast::Sender<SessionChange>, table: Uuid) {
        let pending = self.changes_pending.clone();
        // A line already waiting for its read will show this change too.
        if !pending.lock().unwrap_or_else(PoisonError::into_inner).insert(table) {
            return;
        }
        let (pool, keys, reads) = (self.pool.clone(), self.keys.clone(), self.live_reads.clone());
        let folded = Arc::clone(&self.folded);
        tokio::spawn(async move {
            let Ok(_permit) = reads.acquire().await else { return };
            // From here a change heard is read by a line of its own.
            pending.lock().unwrap_or_else(PoisonError::into_inner).remove(&table);
            match table_change_folded(&pool, &keys, table).await {
                Ok((change, state)) => {
                    // The next move announced is folded onto this one.
                    folded::keep(&folded, state);
                    // No receiver left is not an error: the feed goes at the next tidy-up.
                    drop(sender.send(SessionChange::Table(Arc::new(change))));
                }
                Err(e) => tracing::warn!(error = %e, %table, "reading a table change failed"),
            }
        });
    }

    /// Sends a session's followers the line of a table as a move folded here left it: signed
    /// beside the listening task, with no read.
    fn send_moved(&self, sender: broadcast::Sender<SessionChange>, moved: Arc<Moved>) {
        let (pool, keys) = (self.pool.clone(), self.keys.clone());
        tokio::spawn(async move {
            match moved.change(&pool, &keys).await {
                // No receiver left is not an error: the feed goes at the next tidy-up.
                Ok(change) => drop(sender.send(SessionChange::Table(Arc::new(change)))),
                Err(e) => tracing::warn!(error = %e, table = %moved.table.row.id, "signing a table change failed"),
            }
        });
    }

    /// Sends on the table's entries after the last one fanned out: `heard`, the entry the
    /// announcement carried (with what it left, when folded here), when it is the next one;
    /// else those read from the log.
    async fn fan_out(&self, table: Uuid, heard: Option<(MoveRow, Option<Arc<Moved>>)>) {
        let Some((after, key)) = self.feeds().tables.get(&table).map(|f| (f.last_seq, f.key)) else {
            return;
        };
        let rows = match heard {
            // The common case, with no read: each replica would otherwise read every announced
            // entry back, one read after another, on its one listening task.
            Some((row, moved)) if row.seq == after + 1 => vec![Unsigned { row, moved }],
            _ => match read_log(&self.pool, key, after).await {
                Ok(rows) => rows.into_iter().map(|row| Unsigned { row, moved: None }).collect(),
                Err(e) => {
                    tracing::warn!(error = %e, %table, "reading announced entries failed");
                    return;
                }
            },
        };
        let mut feeds = self.feeds();
        if let Some(feed) = feeds.tables.get_mut(&table) {
            for unsigned in rows {
                if unsigned.row.seq > feed.last_seq {
                    feed.last_seq = unsigned.row.seq;
                    // The signer lives as long as the feed: a send fails only once both go.
                    let _ = feed.signing.send(unsigned);
                }
            }
        }
    }

    async fn catch_up_all(&self) {
        // A table renamed meanwhile would not be heard of.
        folded::forget_all(&self.folded);
        let tables: Vec<Uuid> = self.feeds().tables.keys().copied().collect();
        for table in tables {
            self.fan_out(table, None).await;
            if let Some(feed) = self.feeds().tables.get(&table) {
                let _ = feed.sender.send(TableSignal::CatchUp);
            }
        }
    }

    fn drop_unfollowed(&self) {
        let mut feeds = self.feeds();
        feeds.tables.retain(|_, feed| feed.sender.receiver_count() > 0);
        feeds.sessions.retain(|_, feed| feed.sender.receiver_count() > 0);
    }
}

/// The most a stream reads from the log at once.
pub const LOG_PAGE: i64 = 500;

/// The table's entries after `after`, oldest first, at most `LOG_PAGE`.
///
/// # Errors
/// On database failure.
pub async fn read_log(pool: &PgPool, table: store::TableKey, after: i64) -> Result<Vec<MoveRow>, ServiceError> {
    let mut conn = pool.acquire().await.map_err(store::StoreError::from)?;
    Ok(store::tables::log(&mut conn, table, after, LOG_PAGE).await?)
}

/// The table, for a stream about to follow it.
///
/// # Errors
/// `NotFound` when there is no such table.
pub async fn table(pool: &PgPool, table: Uuid) -> Result<TableRow, ServiceError> {
    let mut conn = pool.acquire().await.map_err(store::StoreError::from)?;
    Ok(store::tables::fetch(&mut conn, table).await?)
}

/// The ids of a session's tables, for a board about to follow it.
///
/// # Errors
/// `NotFound` when there is no such session.
pub async fn session_tables(pool: &PgPool, session: Uuid) -> Result<Vec<Uuid>, ServiceError> {
    let mut conn = pool.acquire().await.map_err(store::StoreError::from)?;
    store::sessions::fetch(&mut conn, session).await?;
    let rows = store::tables::list(&mut conn, None, Some(session), 10_000, 0).await?;
    Ok(rows.into_iter().map(|r| r.id).collect())
}

impl Hub {
    /// The keys that sign the receipts its streams carry.
    pub fn keys(&self) -> &Arc<AuditKeys> {
        &self.keys
    }
}

/// The receipts for the table's log entries `rows` (in order), each for the entry's own link
/// and issued at the time the entry was recorded, so that every replica and every resend gives
/// the same; None for an entry the chain does not cover.
///
/// # Errors
/// On database failure.
pub async fn entry_receipts(
    pool: &PgPool,
    keys: &AuditKeys,
    table: &TableRow,
    rows: &[&MoveRow],
) -> Result<Vec<Option<Receipt>>, ServiceError> {
    let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
        return Ok(Vec::new());
    };
    let links = {
        let mut conn = pool.acquire().await.map_err(store::StoreError::from)?;
        store::chain::entry_links(&mut conn, table.key(), first.seq, last.seq).await?
    };
    let links: HashMap<i64, (i64, Vec<u8>)> = links.into_iter().map(|(seq, pos, hash)| (seq, (pos, hash))).collect();
    if links.is_empty() {
        return Ok(vec![None; rows.len()]);
    }
    let key = keys.signing(pool).await?;
    rows.iter()
        .map(|row| match links.get(&row.seq) {
            // The checkpoint at an older entry's size is not kept: its answer carried it.
            Some((pos, hash)) => {
                receipts::sign(key, table.id, table.session_id, *pos, hash, row.recorded_at, None).map(Some)
            }
            None => Ok(None),
        })
        .collect()
}

/// The session line of a table as it is now, with the receipt for its chain's end, read in the
/// same snapshot as its version.
///
/// # Errors
/// On database failure or an unreadable table.
pub async fn table_change(pool: &PgPool, keys: &AuditKeys, table: Uuid) -> Result<TableChange, ServiceError> {
    Ok(table_change_folded(pool, keys, table).await?.0)
}

impl Hub {
    /// [`table_change`] read on the primary, its fold kept for the table's next move to be
    /// folded onto: a board opening would otherwise have every table's next move read back at
    /// once.
    ///
    /// # Errors
    /// As [`table_change`].
    pub async fn table_line(&self, table: Uuid) -> Result<TableChange, ServiceError> {
        let (change, kept) = table_change_folded(&self.pool, &self.keys, table).await?;
        folded::keep(&self.folded, kept);
        Ok(change)
    }
}

/// [`table_change`], and the state it folded, for the next move announced to be folded onto.
async fn table_change_folded(
    pool: &PgPool,
    keys: &AuditKeys,
    table: Uuid,
) -> Result<(TableChange, Folded), ServiceError> {
    let mut tx = store::begin_read_only(pool).await?;
    let row = store::tables::fetch(&mut tx, table).await?;
    let game = game_of(&row)?;
    let (totals, state, folded) =
        with_game!(game, G => totals::<G>(&mut tx, &row).await.map_err(|e| e.at_table(row.id))?);
    let end = store::chain::end(&mut tx, row.key()).await?;
    let root = match &end.last {
        Some(last) => crate::witness::frontier_at(&mut tx, row.key(), last.pos, false)
            .await?
            .map(|tree| tree.root()),
        None => None,
    };
    drop(tx);
    let receipt = match end.last {
        Some(last) => {
            let signer = keys.signer(pool).await?;
            Some(signer.sign(
                row.id,
                row.session_id,
                last.pos,
                &last.hash,
                chrono::Utc::now(),
                root.as_ref(),
            )?)
        }
        None => None,
    };
    let change = TableChange {
        table_id: row.id,
        game,
        version: row.version,
        finished: row.finished,
        totals,
        receipt,
        table: Some(Arc::new(state)),
    };
    Ok((change, folded))
}

/// The table's running totals and its state, from one fold, and the fold kept.
async fn totals<G: Game>(
    conn: &mut tablekeeper_store::PgConnection,
    table: &TableRow,
) -> Result<(Vec<i64>, TableState, Folded), ServiceError> {
    let game: G = fold::current(conn, table).await?;
    Ok((
        game.running_totals(),
        TableState::new(table.clone(), &game)?,
        Folded::new(table.clone(), Box::new(game)),
    ))
}

/// The table as it is now, and the fold kept, for a stream's entries read back.
async fn state_folded(pool: &PgPool, table: Uuid) -> Result<(TableState, Folded), ServiceError> {
    let (mut tx, row) = crate::read_table(pool, table).await?;
    let read: Result<(TableState, Folded), ServiceError> = async {
        with_game!(game_of(&row)?, G => {
            let game: G = fold::current(&mut tx, &row).await?;
            Ok((TableState::new(row.clone(), &game)?, Folded::new(row.clone(), Box::new(game))))
        })
    }
    .await;
    read.map_err(|e| e.at_table(table))
}
