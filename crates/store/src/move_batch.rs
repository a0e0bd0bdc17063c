//! Plain moves of many tables written in one statement, and the reads of many moves in one.
//!
//! Most moves at a table book nothing, finish no deal and tell no webhook: a card played, a bid.
//! Written one statement each, every such move costs PostgreSQL a round trip, a plan's set-up and
//! a commit of its own, and with many tables recording at once those costs, not the rows, are
//! most of its time. A [`MoveBatcher`] takes the plain moves that arrive while its last statement
//! runs and writes them together: one round trip and one commit for all of them, each row under
//! the same version check as [`super::move_path::write_move`]'s, so a move that lost a race at
//! its table writes nothing while the others are written.
//!
//! A move's read without the lock ([`super::move_path::read_for_move`]) is gathered the same way:
//! one statement reads for every move waiting, each row as that move's own read would have found
//! it.
//!
//! A move that finds no statement under way and none waiting reads or writes by itself
//! ([`MoveBatcher::write_alone`]): with nobody to gather it with, the hand-over to the gathering
//! task and back would be all the batch added. It counts as under way meanwhile, so that the
//! moves coming then are gathered.
//!
//! Invariants:
//! - A statement holds at most one move per table: two of one table would both pass the version
//!   check they read before either was written. The second waits for the next statement (where
//!   its check fails, and its caller takes the table's lock as for any lost race).
//! - A statement that fails writes nothing (it is a transaction by itself); each of its moves is
//!   then handed back to be written alone, so one bad row cannot refuse another table's move.

use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use sqlx::PgPool;
use tokio::sync::{mpsc, oneshot, Semaphore};

use super::idempotency_keys::REPLACE_EXPIRED;
use super::move_path::{Locked, UnlockedRead};
use super::tables::{recorded_by_stored, StoredResponse};
use super::{StoreError, TableKey};

/// The most moves one statement reads or writes.
const MOST_PER_STATEMENT: usize = 64;

/// How many statements may be under way at once: while one commits the next can be written.
const STATEMENTS_AT_ONCE: usize = 2;

/// A move that books nothing, finishes no deal and causes no webhook event, with its one chain
/// link, the snapshot when one is due and the answer kept under its key: everything its write
/// needs, owned, to wait for a statement.
#[derive(Debug, Clone)]
pub struct PlainMove {
    pub table: TableKey,
    pub seq: i64,
    pub kind: String,
    pub seat: Option<i16>,
    /// The move's body as JSON text.
    pub body: String,
    /// Its events as JSON text, kept as they are (see [`super::move_path::NewMove::events`]).
    pub events: String,
    pub recorded_by: String,
    /// Whether the game is over after it.
    pub finished: bool,
    pub now: DateTime<Utc>,
    /// The move's chain link: it follows `prev_hash`, which must still be the table's head.
    pub link: PlainLink,
    /// The state it leaves as JSON text, when a snapshot is due.
    pub snapshot: Option<String>,
    /// The answer to keep under the request's idempotency key.
    pub answer: Option<(String, StoredResponse)>,
    /// The `NOTIFY` payload announcing it (on [`super::live::CHANNEL`]).
    pub announce: String,
    /// The table's tree with the move's link folded in, `(size, frontier)`, kept with it
    /// (None: the kept one stays behind; see [`super::move_path::MoveWrite::tree`]).
    pub tree: Option<(i64, Vec<u8>)>,
}

/// A move's own link in its table's hash chain.
#[derive(Debug, Clone)]
pub struct PlainLink {
    pub pos: i64,
    pub version: i16,
    pub content_hash: Vec<u8>,
    pub prev_hash: Vec<u8>,
    pub hash: Vec<u8>,
}

/// What became of a move handed to the batcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Batched {
    /// Written and committed.
    Written,
    /// Nothing written: the table's version or chain moved on since it was read.
    Lost,
    /// Nothing written: the statement failed (or the batcher is gone); write it alone.
    Alone,
}

/// What one statement does for many moves.
trait Statement: Sized + Send + Sync + 'static {
    type Done: Send + 'static;

    /// The table whose rows this one writes: a statement holds at most one such per table.
    fn writes(&self) -> Option<uuid::Uuid>;

    /// Each job's outcome, in order.
    fn run(pool: &PgPool, jobs: &[Self]) -> impl std::future::Future<Output = Vec<Self::Done>> + Send;
}

struct Job<S: Statement> {
    what: S,
    done: oneshot::Sender<S::Done>,
}

/// Jobs waiting for a statement, and the task that gathers them into statements.
struct Queue<S: Statement> {
    jobs: mpsc::UnboundedSender<Job<S>>,
    waiting: Arc<AtomicIsize>,
    /// Statements under way: the gatherer's, and those their callers run alone ([`UnderWay`]).
    under_way: Arc<AtomicUsize>,
}

impl<S: Statement> Clone for Queue<S> {
    fn clone(&self) -> Self {
        Queue {
            jobs: self.jobs.clone(),
            waiting: self.waiting.clone(),
            under_way: self.under_way.clone(),
        }
    }
}

impl<S: Statement> Queue<S> {
    fn start(pool: PgPool) -> Queue<S> {
        let (jobs, queue) = mpsc::unbounded_channel();
        let waiting = Arc::new(AtomicIsize::new(0));
        let under_way = Arc::new(AtomicUsize::new(0));
        tokio::spawn(gather(pool, queue, waiting.clone(), under_way.clone()));
        Queue {
            jobs,
            waiting,
            under_way,
        }
    }

    /// Leave to run one statement alone when none is under way and none waits.
    fn alone(&self) -> Option<UnderWay> {
        if self.waiting.load(Ordering::Relaxed) > 0 {
            return None;
        }
        self.under_way
            .compare_exchange(0, 1, Ordering::AcqRel, Ordering::Relaxed)
            .ok()?;
        Some(UnderWay(self.under_way.clone()))
    }

    /// `what`'s outcome; None when the task is gone.
    async fn submit(&self, what: S) -> Option<S::Done> {
        let (done, answer) = oneshot::channel();
        self.jobs.send(Job { what, done }).ok()?;
        // Counted once sent, so that a count seen is of jobs in the queue; the gatherer may
        // take it first, and the count then dips below zero for a moment.
        self.waiting.fetch_add(1, Ordering::Relaxed);
        answer.await.ok()
    }
}

/// A statement counted as under way while this is held: one of the gatherer's, or one its caller
/// runs outside any batch.
#[must_use]
pub struct UnderWay(Arc<AtomicUsize>);

impl Drop for UnderWay {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Writes plain moves of many tables together, and reads for many moves together (see the
/// module's documentation). Cheap to share: every worker hands its moves to the same tasks.
#[derive(Clone)]
pub struct MoveBatcher {
    writes: Queue<PlainMove>,
    reads: Queue<UnlockedRead>,
}

impl MoveBatcher {
    /// Starts the tasks that write and read, on the current runtime, with connections from
    /// `pool`; they end when the last handle is dropped.
    #[must_use]
    pub fn start(pool: PgPool) -> MoveBatcher {
        MoveBatcher {
            writes: Queue::start(pool.clone()),
            reads: Queue::start(pool),
        }
    }

    /// How many moves wait for a write statement that has not started yet.
    #[must_use]
    pub fn waiting(&self) -> usize {
        usize::try_from(self.writes.waiting.load(Ordering::Relaxed)).unwrap_or(0)
    }

    /// Leave for the caller to write its move itself, as if there were no batcher, when no write
    /// statement is under way and no move waits for one: with nothing to gather it with, the
    /// hand-over to the batcher's task and back would be all the batch added. Moves that come
    /// while the caller holds it are gathered into a statement of their own.
    #[must_use]
    pub fn write_alone(&self) -> Option<UnderWay> {
        self.writes.alone()
    }

    /// As [`MoveBatcher::write_alone`], for a move's read.
    #[must_use]
    pub fn read_alone(&self) -> Option<UnderWay> {
        self.reads.alone()
    }

    /// Writes `mv` in the next statement with room for its table.
    pub async fn write(&self, mv: PlainMove) -> Batched {
        // A statement dropped unanswered (its task ended) wrote nothing it told of.
        self.writes.submit(mv).await.unwrap_or(Batched::Alone)
    }

    /// What `read` finds, read in the next statement; None when that statement failed (the
    /// caller reads alone).
    pub async fn read(&self, read: UnlockedRead) -> Option<Result<Locked, StoreError>> {
        self.reads.submit(read).await.flatten()
    }
}

async fn gather<S: Statement>(
    pool: PgPool,
    mut queue: mpsc::UnboundedReceiver<Job<S>>,
    count: Arc<AtomicIsize>,
    under_way: Arc<AtomicUsize>,
) {
    let slots = Arc::new(Semaphore::new(STATEMENTS_AT_ONCE));
    // Jobs writing a table already in the statement being gathered wait here for the next.
    let mut waiting: VecDeque<Job<S>> = VecDeque::new();
    loop {
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return;
        };
        let first = match waiting.pop_front() {
            Some(job) => job,
            None => match queue.recv().await {
                Some(job) => job,
                None => return,
            },
        };
        let mut tables: HashSet<uuid::Uuid> = first.what.writes().into_iter().collect();
        let mut batch = vec![first];
        let mut fits =
            |job: &Job<S>, len: usize| len < MOST_PER_STATEMENT && job.what.writes().is_none_or(|t| tables.insert(t));
        let mut still_waiting = VecDeque::new();
        while let Some(job) = waiting.pop_front() {
            if fits(&job, batch.len()) {
                batch.push(job);
            } else {
                still_waiting.push_back(job);
            }
        }
        waiting = still_waiting;
        while batch.len() < MOST_PER_STATEMENT {
            match queue.try_recv() {
                Ok(job) if fits(&job, batch.len()) => batch.push(job),
                Ok(job) => waiting.push_back(job),
                Err(_) => break,
            }
        }
        count.fetch_sub(isize::try_from(batch.len()).unwrap_or(isize::MAX), Ordering::Relaxed);
        let pool = pool.clone();
        under_way.fetch_add(1, Ordering::AcqRel);
        let statement = UnderWay(under_way.clone());
        tokio::spawn(async move {
            let (whats, dones): (Vec<S>, Vec<_>) = batch.into_iter().map(|job| (job.what, job.done)).unzip();
            let outcomes = S::run(&pool, &whats).await;
            for (done, outcome) in dones.into_iter().zip(outcomes) {
                // A caller that went away needs no answer.
                let _ = done.send(outcome);
            }
            drop((statement, slot));
        });
    }
}

impl Statement for PlainMove {
    type Done = Batched;

    fn writes(&self) -> Option<uuid::Uuid> {
        Some(self.table.id)
    }

    async fn run(pool: &PgPool, batch: &[PlainMove]) -> Vec<Batched> {
        match write_all(pool, batch).await {
            Ok(written) => batch
                .iter()
                .map(|mv| {
                    if written.contains(&mv.table.id) {
                        Batched::Written
                    } else {
                        Batched::Lost
                    }
                })
                .collect(),
            Err(error) => {
                tracing::warn!(moves = batch.len(), %error, "a batch of moves failed; each is written alone");
                vec![Batched::Alone; batch.len()]
            }
        }
    }
}

impl Statement for UnlockedRead {
    /// None: the statement failed.
    type Done = Option<Result<Locked, StoreError>>;

    fn writes(&self) -> Option<uuid::Uuid> {
        None
    }

    async fn run(pool: &PgPool, batch: &[UnlockedRead]) -> Vec<Self::Done> {
        let read = async {
            let mut conn = pool.acquire().await?;
            super::move_path::read_for_moves(&mut conn, batch).await
        };
        match read.await {
            Ok(found) => found.into_iter().map(Some).collect(),
            Err(error) => {
                tracing::warn!(moves = batch.len(), %error, "a read for many moves failed; each reads alone");
                batch.iter().map(|_| None).collect()
            }
        }
    }
}

/// The statement: each row of `w` is one move, written (as `super::move_path::write_move`
/// writes one) only where its table's `update` found the version and chain head it was read at.
/// The tables are also named as `any ($1)`: the planner then looks each up by its key even
/// before the first `analyze`, where a join on `w` alone scanned every row of `game_tables`.
/// Returns the tables whose move was written.
async fn write_all(pool: &PgPool, batch: &[PlainMove]) -> Result<HashSet<uuid::Uuid>, sqlx::Error> {
    let recorded_by = recorded_by_stored("w.recorded_by");
    let not_final = super::move_path::not_final("g", "w.at");
    let sql = format!(
        "with w as (
             select * from unnest($1::uuid[], $2::int4[], $3::int8[], $4::text[], $5::int2[], $6::text[], $7::text[],
                                  $8::text[], $9::bool[], $10::timestamptz[], $11::bytea[], $12::int8[], $13::int2[],
                                  $14::bytea[], $15::bytea[], $16::text[], $17::text[], $18::text[], $19::int2[],
                                  $20::text[], $21::text[], $23::int8[], $24::bytea[])
                 as w(id, club_no, seq, kind, seat, body, events, recorded_by, finished, at, prev_hash, link_pos,
                      link_version, content_hash, hash, snapshot, key, request_hash, status, response, announce,
                      tree_size, tree_frontier)),
         up as (
             update game_tables g set version = g.version + 1, finished = w.finished, updated_at = w.at,
                 chain_head = w.hash, tree_size = coalesce(w.tree_size, g.tree_size),
                 tree_frontier = coalesce(w.tree_frontier, g.tree_frontier)
             from w
             where g.id = any ($1::uuid[]) and g.id = w.id and g.club_no = w.club_no and g.version = w.seq - 1
               and g.chain_head = w.prev_hash and {not_final}
             returning g.id, g.club_no, g.followed_until),
         mv as (
             insert into moves (table_id, club_no, seq, entry, kind, seat, body, events,
                                recorded_by, recorded_by_organiser, recorded_by_scorer, recorded_at,
                                link_pos, link_version, link_content_hash, link_hash)
             select w.id, w.club_no, w.seq, 'move', w.kind, w.seat, w.body::json, w.events::json, {recorded_by}, w.at,
                    w.link_pos, w.link_version, w.content_hash, w.hash
             from w join up using (id, club_no)),
         sn as (
             insert into snapshots (table_id, club_no, seq, state)
             select w.id, w.club_no, w.seq, w.snapshot::jsonb from w join up using (id, club_no)
             where w.snapshot is not null),
         ik as (
             insert into idempotency_keys (table_id, club_no, key, request_hash, response_status, response_body)
             select w.id, w.club_no, w.key, w.request_hash, w.status, w.response::json from w join up using (id, club_no)
             where w.key is not null {REPLACE_EXPIRED})
         select up.id, (select pg_notify($22, w.announce) where up.followed_until > now())::text as announced
         from w join up using (id, club_no)"
    );
    let moves = || batch.iter();
    let rows: Vec<(uuid::Uuid, Option<String>)> = sqlx::query_as(&sql)
        .bind(moves().map(|m| m.table.id).collect::<Vec<_>>())
        .bind(moves().map(|m| m.table.club_no).collect::<Vec<_>>())
        .bind(moves().map(|m| m.seq).collect::<Vec<_>>())
        .bind(moves().map(|m| m.kind.as_str()).collect::<Vec<_>>())
        .bind(moves().map(|m| m.seat).collect::<Vec<_>>())
        .bind(moves().map(|m| m.body.as_str()).collect::<Vec<_>>())
        .bind(moves().map(|m| m.events.as_str()).collect::<Vec<_>>())
        .bind(moves().map(|m| m.recorded_by.as_str()).collect::<Vec<_>>())
        .bind(moves().map(|m| m.finished).collect::<Vec<_>>())
        .bind(moves().map(|m| m.now).collect::<Vec<_>>())
        .bind(moves().map(|m| m.link.prev_hash.as_slice()).collect::<Vec<_>>())
        .bind(moves().map(|m| m.link.pos).collect::<Vec<_>>())
        .bind(moves().map(|m| m.link.version).collect::<Vec<_>>())
        .bind(moves().map(|m| m.link.content_hash.as_slice()).collect::<Vec<_>>())
        .bind(moves().map(|m| m.link.hash.as_slice()).collect::<Vec<_>>())
        .bind(moves().map(|m| m.snapshot.as_deref()).collect::<Vec<_>>())
        .bind(
            moves()
                .map(|m| m.answer.as_ref().map(|(key, _)| key.as_str()))
                .collect::<Vec<_>>(),
        )
        .bind(
            moves()
                .map(|m| m.answer.as_ref().map(|(_, a)| a.request_hash.as_str()))
                .collect::<Vec<_>>(),
        )
        .bind(
            moves()
                .map(|m| m.answer.as_ref().map(|(_, a)| i16::try_from(a.status).unwrap_or(200)))
                .collect::<Vec<_>>(),
        )
        .bind(
            moves()
                .map(|m| m.answer.as_ref().map(|(_, a)| a.body.as_str()))
                .collect::<Vec<_>>(),
        )
        .bind(moves().map(|m| m.announce.as_str()).collect::<Vec<_>>())
        .bind(super::live::CHANNEL)
        .bind(
            moves()
                .map(|m| m.tree.as_ref().map(|(size, _)| *size))
                .collect::<Vec<_>>(),
        )
        .bind(
            moves()
                .map(|m| m.tree.as_ref().map(|(_, frontier)| frontier.as_slice()))
                .collect::<Vec<_>>(),
        )
        .fetch_all(pool)
        .await?;
    Ok(rows.into_iter().map(|(id, _)| id).collect())
}
