//! Answers kept under an `Idempotency-Key`: the shapes a recording keeps per table, and creating
//! something at most once per key (`POST /sessions`, `POST /tables`, join codes, …), as moves are
//! recorded once per key: a retry with the same key and body gets the first answer,
//! marked as replayed, and creates nothing; the same key with another body is refused.
//! What a table's scorers may write besides moves (a correction, a verification) keeps its answer
//! with the table's moves' (`idempotency_keys`), since a scorer is no account.
//!
//! Invariants:
//! - The answer is kept in the transaction that created what it describes: a key names either
//!   nothing or something that exists, and an answer that was never sent is never kept.
//! - Two requests racing with one key create one thing: the second's attempt to keep its answer
//!   waits for the first's transaction, finds the first's answer, and rolls its own work back.
//!   A table's keys are read and kept under the table's lock, which orders such requests.
//! - Keys are the caller's own: one organiser's key never answers another's request. A table's
//!   keys are its recorders' (as for moves): a key names one request at that table; a scorer's
//!   join keeps its answer there too. A registration has no caller yet: its key is kept under
//!   the account it made and found through the email (see `accounts`).
//! - An answer kept holds no credential the database does not hold anyway: a bearer token, a
//!   personal API token's secret and a password are left out of it, and a replay goes without
//!   them (a sign-in's token is issued afresh). A webhook's signing secret is kept with the
//!   webhook to sign with, so its first answer keeps it too.
//! - A move's or an undo's answer answers retries for a window (`IDEMPOTENCY_RETENTION_SECS`, 24
//!   hours by default, as Stripe keeps its keys), then is deleted by each replica's [`prune`]
//!   task; a request under an older key is new (its `expected_version` then refuses a move that
//!   was recorded already). Creation keys are few (one per session or table) and kept.

use serde_json::Value;
use tablekeeper_store::PgConnection;
use uuid::Uuid;

use super::ServiceError;
use sha2::{Digest, Sha256};
use tablekeeper_store::tables::{StoredResponse, TableKey};
use tablekeeper_store::{self as store, StoreError, Tx};

/// How long a move's answer answers a retry under its `Idempotency-Key` unless configured.
pub const DEFAULT_ANSWERS_KEPT_FOR: std::time::Duration = tablekeeper_config::DEFAULT_IDEMPOTENCY_RETENTION;

/// How often the pruner looks for expired answers at most (a shorter window is looked at as
/// often as it is long).
const PRUNE_EVERY: std::time::Duration = std::time::Duration::from_secs(10 * 60);

/// Deletes the moves' answers kept for longer than `kept_for`, now and then periodically, until
/// the process ends. Every replica runs one; deleting what another already deleted is harmless.
pub async fn prune(pool: tablekeeper_store::PgPool, kept_for: std::time::Duration) {
    let mut every = tokio::time::interval(kept_for.min(PRUNE_EVERY));
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        let deleted = match pool.acquire().await {
            Ok(mut conn) => store::tables::prune_idempotent_responses(&mut conn, kept_for).await,
            Err(e) => Err(StoreError::from(e)),
        };
        match deleted {
            Ok(0) => {}
            Ok(n) => tracing::info!(deleted = n, "pruned expired Idempotency-Key answers"),
            Err(e) => tracing::warn!(error = %e, "pruning expired Idempotency-Key answers failed; will retry"),
        }
    }
}

/// An answer as the API wrote it to be kept under an `Idempotency-Key`: stored and given back to
/// a retry as it was written. What it says is the API's: nothing here reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    /// The answer's JSON text, written once: sent, and kept under the idempotency key.
    pub body: String,
}

/// What the API makes of a use case's result, in the use case's transaction: the answer to keep
/// under the key, and beside it whatever the API needs to send it (its `Location`, a secret that
/// is sent once and never kept), so that the API never reads back what it wrote.
pub trait Kept {
    /// The answer to keep.
    fn answer(&self) -> &Answer;
}

impl Kept for Answer {
    fn answer(&self) -> &Answer {
        self
    }
}

/// The answer to a recording or creating request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome<K = Answer> {
    /// Done now: what the API made of it, its answer kept under the key (if one was sent).
    Fresh(K),
    /// A retry: the answer the first request with this key got, as kept; nothing was done.
    Replayed(Answer),
}

impl<K: Kept> Outcome<K> {
    /// The answer sent: the one kept, or the one to keep.
    pub fn answer(&self) -> &Answer {
        match self {
            Outcome::Fresh(made) => made.answer(),
            Outcome::Replayed(kept) => kept,
        }
    }
}

/// What identifies a request for its `Idempotency-Key`: its operation and its body as sent.
pub(super) fn fingerprint(name: &str, sent: &Value) -> String {
    let mut hasher = Sha256::new();
    hasher.update(name.as_bytes());
    hasher.update([0]);
    hasher.update(sent.to_string().as_bytes());
    format!("{:x}", hasher.finalize())
}

/// An `Idempotency-Key` sent with a creating request.
#[derive(Debug, Clone)]
pub struct CreationKey {
    /// The operation id (`create_session`): a key serves one request of each operation.
    operation: &'static str,
    key: String,
    /// The request as sent, hashed: a retry must send the same.
    request_hash: String,
    /// How long an answer kept with a table's moves (a correction's, a verification's) answers
    /// a retry: as long as a move's, since the pruner deletes them alike.
    kept_for: std::time::Duration,
}

impl CreationKey {
    /// The key `key` sent with `sent` to `operation`.
    pub fn new(operation: &'static str, key: String, sent: &Value) -> CreationKey {
        CreationKey {
            operation,
            request_hash: fingerprint(operation, sent),
            key,
            kept_for: DEFAULT_ANSWERS_KEPT_FOR,
        }
    }

    /// The same key, answered at a table for `kept_for` (`IDEMPOTENCY_RETENTION_SECS`).
    #[must_use]
    pub fn kept_for(self, kept_for: std::time::Duration) -> CreationKey {
        CreationKey { kept_for, ..self }
    }
}

fn replayed<K>(key: &CreationKey, first: StoredResponse) -> Result<Outcome<K>, ServiceError> {
    if first.request_hash != key.request_hash {
        return Err(ServiceError::IdempotencyKeyReused);
    }
    Ok(Outcome::Replayed(Answer {
        status: first.status,
        body: first.body,
    }))
}

/// The first answer under the key, when a request with it has created already.
///
/// # Errors
/// `IdempotencyKeyReused` when that request sent another body; on database failure.
pub(super) async fn first_answer<K>(
    conn: &mut PgConnection,
    owner: Uuid,
    key: Option<&CreationKey>,
) -> Result<Option<Outcome<K>>, ServiceError> {
    let Some(key) = key else { return Ok(None) };
    match store::creations::kept(conn, owner, key.operation, &key.key).await? {
        Some(first) => replayed(key, first).map(Some),
        None => Ok(None),
    }
}

/// Keeps `made`'s answer under the key in `tx` and commits; when a request with the same key
/// kept its answer first, rolls back what `tx` created and gives that answer instead.
///
/// # Errors
/// `IdempotencyKeyReused` when the request that won sent another body; on database failure.
pub(super) async fn keep_and_commit<K: Kept>(
    mut tx: Tx<'_>,
    owner: Uuid,
    key: Option<&CreationKey>,
    made: K,
) -> Result<Outcome<K>, ServiceError> {
    if let Some(key) = key {
        let stored = stored(key, made.answer());
        if !store::creations::keep(&mut tx, owner, key.operation, &key.key, &stored).await? {
            let first = store::creations::kept(&mut tx, owner, key.operation, &key.key).await?;
            tx.rollback().await.map_err(StoreError::from)?;
            let first = first.ok_or_else(|| {
                ServiceError::Corrupt(format!("the answer kept under Idempotency-Key {:?} vanished", key.key))
            })?;
            return replayed(key, first);
        }
    }
    tx.commit().await.map_err(StoreError::from)?;
    Ok(Outcome::Fresh(made))
}

/// `answer` as kept under `key`.
fn stored(key: &CreationKey, answer: &Answer) -> StoredResponse {
    StoredResponse {
        request_hash: key.request_hash.clone(),
        status: answer.status,
        body: answer.body.clone(),
    }
}

/// The first answer under the key at `table`, when a request with it wrote there already (a
/// move, a correction, a verification: one key names one of them). Read under the table's lock.
///
/// # Errors
/// `IdempotencyKeyReused` when that request was another; on database failure.
pub(super) async fn first_answer_at_table<K>(
    tx: &mut Tx<'_>,
    table: TableKey,
    key: Option<&CreationKey>,
) -> Result<Option<Outcome<K>>, ServiceError> {
    let Some(key) = key else { return Ok(None) };
    match store::tables::idempotent_response(tx, table, &key.key, key.kept_for).await? {
        Some(first) => replayed(key, first).map(Some),
        None => Ok(None),
    }
}

/// Keeps `made`'s answer under the key at `table`, in `tx`, which holds the table's lock.
///
/// # Errors
/// On database failure.
pub(super) async fn keep_at_table<K: Kept>(
    tx: &mut Tx<'_>,
    table: TableKey,
    key: Option<&CreationKey>,
    made: K,
) -> Result<K, ServiceError> {
    if let Some(key) = key {
        store::tables::save_idempotent_response(tx, table, &key.key, &stored(key, made.answer())).await?;
    }
    Ok(made)
}
