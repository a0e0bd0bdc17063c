//! PostgreSQL persistence: all SQL lives here, one module per aggregate. Functions take a
//! connection or a transaction; the caller (the application layer) decides the transaction's
//! extent (one per move).
//!
//! Invariants: no game logic (nothing here applies a move or knows a game's types); a row that
//! no longer reads is `Corrupt`, never a panic; named constraints become typed errors.
//!
//! # SQL checked at compile time
//!
//! Every statement written out whole is checked against the schema the migrations make when it
//! is compiled (`sqlx::query!`, `query_as!`, `query_scalar!`), from the offline data committed
//! in `crates/store/.sqlx/` (`scripts/sqlx-prepare` writes it; docs/development.md, "SQL checked
//! at compile time"). A fragment several of them share is written out in each, and
//! `tests::fragments_are_written_out_as_defined` holds every copy to its constant. These are
//! assembled at run time instead, each run by the tests named:
//!
//! - [`move_path::read_for_move`], a move's read: its parts chosen per move (`push_str`: the
//!   answer under the key, the fold, the lock, the scorer, the member and their token). Unlocked
//!   by every move (`tests/api/moves.rs`); locked by undos, corrections and a move that lost its
//!   race (`hot::a_move_an_undo_and_a_correction_racing_on_one_version_are_one_success_and_conflicts`,
//!   `hot::different_moves_racing_on_a_stale_version_on_two_replicas_are_conflicts_never_rule_refusals`).
//! - [`move_path::read_for_moves`], the read for many moves (`format!` of `CHAIN_POS` and
//!   `fold_joins`): `batched::plain_moves_of_many_tables_arriving_together_share_one_commit_and_each_stands`.
//! - [`move_path::write_move`], the move path's statement of up to ten CTEs (`format!` of each
//!   part, which binds its values to a `binder::Binder` and writes the placeholders it gives
//!   back, so no parameter number is written by hand or passed on; the outbox's part is
//!   `webhooks::outbox_sql`'s, bound the same way): every move, with
//!   bookings and lines (`ledger.rs`, `settlement.rs`), webhook rows
//!   (`webhooks::a_finished_deal_is_delivered_once_signed_and_names_club_session_table_and_deal`)
//!   and written apart (`live::a_move_written_apart_leaves_its_announcement_to_the_statements_after_it`,
//!   `live::announced_apart_as_on_citus_every_entry_reaches_followers_once_and_a_refused_one_never`).
//! - `move_batch::write_all`, the batch statement (`format!` of `tables::recorded_by_stored` read
//!   from the batch's rows, and `idempotency_keys::REPLACE_EXPIRED`):
//!   `batched::plain_moves_of_many_tables_arriving_together_share_one_commit_and_each_stands`.
//! - [`webhooks::enqueue`], the outbox insert as `webhooks::outbox_sql` makes it:
//!   `webhooks::tables_sessions_corrections_and_disputes_are_announced` (a correction's and a
//!   dispute's events).
//! - [`begin_alongside`]: `set transaction snapshot '<name>'` (`format!` of the snapshot the
//!   first transaction exported, sent unprepared) after the `begin isolation level repeatable
//!   read, read only` that sqlx's `try_begin_with` sends: every audit of a table when the pool
//!   has a connection idle (`chain::every_entry_and_booking_is_linked_and_the_head_follows_each_move_and_undo`,
//!   through `helpers::assert_audit_consistent`).

pub mod api_tokens;
mod binder;
pub mod chain;
pub mod changes;
pub mod closes;
pub mod clubs;
pub mod cosignatures;
pub mod creations;
pub mod deal_lines;
pub mod deals;
pub mod failover;
pub mod idempotency_keys;
pub mod join_codes;
pub mod ledger;
pub mod live;
pub mod move_batch;
pub mod move_path;
pub mod records;
pub mod rulings;
pub mod scorers;
pub mod seasons;
pub mod sessions;
pub mod share_links;
pub mod tables;
pub mod tournaments;
pub mod users;
pub mod webhooks;
pub mod writer;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};

use tablekeeper_ledger::LedgerError;

/// The database's handles, as the floors above pass them around: they name these, never sqlx
/// (which only this crate depends on).
pub use sqlx::{PgConnection, PgPool};

/// A transaction on the database.
pub type Tx<'a> = sqlx::Transaction<'a, sqlx::Postgres>;

/// A connection taken from a pool, given back when dropped.
pub type PooledConnection = sqlx::pool::PoolConnection<sqlx::Postgres>;

/// Begins a transaction on a connection the caller holds.
///
/// # Errors
/// On database failure.
pub async fn begin(conn: &mut PgConnection) -> Result<Tx<'_>, StoreError> {
    Ok(sqlx::Connection::begin(conn).await?)
}

/// Where a table's rows are: its id and its club's number, which every row of the table's log,
/// ledger and chain carries (on Citus, the column they are distributed by).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableKey {
    pub id: uuid::Uuid,
    pub club_no: i32,
}

/// Who recorded log entry `m`, as the log names them (`organiser:<id>`, `scorer:<id>`, or any
/// other text stored before): a row keeps the text or, since migration `20261207000300`, just the
/// id, which reads back as the text it was written from (`move_path::write_move`).
pub const RECORDED_BY: &str =
    "coalesce(m.recorded_by, 'organiser:' || m.recorded_by_organiser, 'scorer:' || m.recorded_by_scorer)";

/// Everything the store can fail with.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("that email address is already registered")]
    EmailTaken,
    #[error("stored data could not be read back: {0}")]
    Corrupt(String),
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    /// The database cannot be reached, or no connection freed up in time: worth retrying.
    #[error("the database is unavailable: {0}")]
    Unavailable(sqlx::Error),
    #[error(transparent)]
    Database(sqlx::Error),
}

impl StoreError {
    /// The database's pool was closed: the process is shutting down.
    pub fn closed() -> StoreError {
        StoreError::Unavailable(sqlx::Error::PoolClosed)
    }

    /// Whether the database refused text holding a NUL character (which PostgreSQL text cannot
    /// hold), whatever field it came in.
    pub fn is_nul_in_text(&self) -> bool {
        matches!(self, StoreError::Database(sqlx::Error::Database(db)) if db.code().as_deref() == Some("22021"))
    }
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> StoreError {
        if unavailable(&e) {
            StoreError::Unavailable(e)
        } else {
            StoreError::Database(e)
        }
    }
}

/// Whether an error says the database cannot do this now (rather than that a query is wrong), so
/// that the same request, retried shortly, may well succeed: no connection within the acquire
/// timeout, a refused or broken connection, a server that is shutting down, starting up or out
/// of connections, a transaction the server rolled back to let another through, or a statement
/// that waited longer than the timeouts allow.
pub fn unavailable(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) | sqlx::Error::Tls(_) => true,
        sqlx::Error::Database(db) => db.code().is_some_and(|code| {
            // Class 08: connection exceptions; 57P01–57P03: admin shutdown, crash shutdown,
            // cannot connect now; 53300: too many connections; 25006: a read-only server (a
            // standby, or a primary demoted under a connection opened before a failover);
            // 40001 and 40P01: a serialization failure or a deadlock, whose victim wrote nothing
            // (two writers locking rows in different orders: a client's retry goes through);
            // 57014 and 55P03: a statement cut by the statement or lock timeout, most often
            // while it queued for a row behind slow commits (a failover's new leader): its
            // transaction is rolled back, so it too wrote nothing.
            code.starts_with("08")
                || matches!(
                    code.as_ref(),
                    "57P01" | "57P02" | "57P03" | "53300" | "25006" | "40001" | "40P01" | "57014" | "55P03"
                )
        }),
        _ => false,
    }
}

impl StoreError {
    fn corrupt(e: impl std::fmt::Display) -> StoreError {
        StoreError::Corrupt(e.to_string())
    }
}

/// How long a pooled connection may sit idle before it is checked again on being handed out.
const CHECK_IDLE_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

/// A lazily connecting pool. A request waits at most `acquire_timeout` for a connection, so an
/// outage answers quickly instead of piling requests up; with a `statement_timeout`, the server
/// cancels any statement that runs longer (migrations are run without one).
///
/// # Errors
/// When the URL cannot be parsed.
pub fn pool(
    database_url: &str,
    max_connections: u32,
    acquire_timeout: std::time::Duration,
    statement_timeout: Option<std::time::Duration>,
) -> Result<PgPool, sqlx::Error> {
    let options = connect_options(database_url, statement_timeout)?;
    Ok(pool_options(max_connections, acquire_timeout, None).connect_lazy_with(options))
}

/// The role the log and the ledger let append but never change (migration
/// `20261203000300_append_only_by_privilege.sql`).
pub const APPLICATION_ROLE: &str = "tablekeeper_app";

/// As [`pool`], for the service's own statements: each connection takes on [`APPLICATION_ROLE`]
/// when its login may (a member of it, or a superuser, as a local install signs in), so the
/// database refuses an `UPDATE` or `DELETE` of the log and the ledger from the service itself,
/// whoever it signs in as. A login that is neither keeps its own rights (deploy/README.md).
///
/// # Errors
/// When the URL cannot be parsed.
pub fn application_pool(
    database_url: &str,
    max_connections: u32,
    acquire_timeout: std::time::Duration,
    statement_timeout: Option<std::time::Duration>,
) -> Result<PgPool, sqlx::Error> {
    let options = connect_options(database_url, statement_timeout)?;
    Ok(pool_options(max_connections, acquire_timeout, None)
        .after_connect(|conn, _meta| Box::pin(async move { act_as_application(conn).await }))
        .connect_lazy_with(options))
}

/// Takes on [`APPLICATION_ROLE`] for the rest of the connection's life, when the login may.
/// One round trip per new connection.
///
/// # Errors
/// On database failure.
pub async fn act_as_application(conn: &mut sqlx::PgConnection) -> Result<(), sqlx::Error> {
    sqlx::query!(
        "select set_config('role', $1, false) from pg_roles
         where rolname = $1 and pg_has_role(current_user, rolname, 'MEMBER')",
        APPLICATION_ROLE,
    )
    .fetch_optional(conn)
    .await?;
    Ok(())
}

/// A single-host URL's connect options, with the statement timeout when there is one.
fn connect_options(
    database_url: &str,
    statement_timeout: Option<std::time::Duration>,
) -> Result<PgConnectOptions, sqlx::Error> {
    let mut options: PgConnectOptions = database_url.parse()?;
    if let Some(limit) = statement_timeout {
        options = options.options([("statement_timeout", format!("{}ms", limit.as_millis()))]);
    }
    Ok(options)
}

/// Whether a pooled connection of this age must not be handed out again (it was opened before a
/// failover, to a host the pool has left).
type StaleCheck = std::sync::Arc<dyn Fn(std::time::Duration) -> bool + Send + Sync>;

/// The pool's settings, shared by a one-host pool and a [`failover::Failover`]'s.
fn pool_options(
    max_connections: u32,
    acquire_timeout: std::time::Duration,
    stale: Option<StaleCheck>,
) -> PgPoolOptions {
    PgPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(acquire_timeout)
        // A connection is checked (a round trip) before it is handed out only when it has sat
        // idle long enough for the server to have gone away (a restart, a dropped link): under
        // load, checking every one cost each move a third round trip.
        .test_before_acquire(false)
        .before_acquire(move |conn, meta| {
            let stale = stale.as_ref().is_some_and(|stale| stale(meta.age));
            Box::pin(async move {
                if stale {
                    // Closed by the pool, which opens one to the current host instead.
                    return Ok(false);
                }
                if meta.idle_for >= CHECK_IDLE_AFTER {
                    sqlx::Connection::ping(conn).await?;
                }
                Ok(true)
            })
        })
}

/// The name a standby's read connections carry (`application_name`), so that they can be told
/// apart in `pg_stat_activity`.
pub const READ_APPLICATION_NAME: &str = "tablekeeper-reads";

/// A lazy pool on a streaming standby, for reads that tolerate a little lag: as [`pool`], its
/// connections named [`READ_APPLICATION_NAME`].
///
/// # Errors
/// When the URL is not a PostgreSQL URL.
pub fn read_pool(
    database_url: &str,
    max_connections: u32,
    acquire_timeout: std::time::Duration,
    statement_timeout: Option<std::time::Duration>,
) -> Result<PgPool, sqlx::Error> {
    let pool = pool(database_url, max_connections, acquire_timeout, statement_timeout)?;
    let options = pool
        .connect_options()
        .as_ref()
        .clone()
        .application_name(READ_APPLICATION_NAME);
    pool.set_connect_options(options);
    Ok(pool)
}

/// The URL with its password masked, for messages.
pub fn redacted(database_url: &str) -> String {
    match database_url.split_once("://") {
        Some((scheme, rest)) => match rest.rsplit_once('@') {
            Some((userinfo, host)) => {
                let user = userinfo.split_once(':').map_or(userinfo, |(user, _)| user);
                let masked = if userinfo.contains(':') { ":***" } else { "" };
                format!("{scheme}://{user}{masked}@{host}")
            }
            None => database_url.to_owned(),
        },
        None => "(unparsable URL)".to_owned(),
    }
}

/// Creates the database when it does not exist yet, then applies pending migrations.
///
/// # Errors
/// When the server cannot be reached or a migration fails.
pub async fn prepare(database_url: &str, pool: &PgPool) -> Result<(), sqlx::Error> {
    use sqlx::migrate::MigrateDatabase;
    if !sqlx::Postgres::database_exists(database_url).await? {
        sqlx::Postgres::create_database(database_url).await?;
    }
    migrate(pool).await
}

/// The migrations this build applies: each one's version and its checksum (SHA-384 of its
/// SQL), oldest first. What a release's stored shapes are (`tablekeeper::release`).
pub fn migrations() -> Vec<(i64, Vec<u8>)> {
    sqlx::migrate!("../../migrations")
        .iter()
        .map(|m| (m.version, m.checksum.to_vec()))
        .collect()
}

/// Applies pending migrations.
///
/// Migrations a later release applied are no error: while replicas are replaced (a rolling
/// upgrade, deploy/README.md) a server of the previous release restarts on the schema the new
/// one migrated to, which only ever expands. A server signed in as the application's role may
/// not create in the schema, so it only checks that the owner applied every migration it knows.
///
/// # Errors
/// When a migration fails, or one is pending and this role may not apply it.
pub async fn migrate(pool: &PgPool) -> Result<(), sqlx::Error> {
    let mut migrator = sqlx::migrate!("../../migrations");
    migrator.set_ignore_missing(true);
    let may_create: bool =
        sqlx::query_scalar!(r#"select has_schema_privilege(current_schema(), 'CREATE') as "may_create!""#)
            .fetch_one(pool)
            .await?;
    if !may_create {
        let applied: Vec<i64> = sqlx::query_scalar!("select version from _sqlx_migrations where success")
            .fetch_all(pool)
            .await?;
        let pending: Vec<String> = migrator
            .iter()
            .filter(|m| !applied.contains(&m.version))
            .map(|m| m.version.to_string())
            .collect();
        if pending.is_empty() {
            return Ok(());
        }
        return Err(sqlx::Error::Configuration(
            format!(
                "migrations {} are not applied and this role may not apply them: run `tablekeeper migrate` as the schema's owner",
                pending.join(", ")
            )
            .into(),
        ));
    }
    migrator.run(pool).await?;
    Ok(())
}

/// A read-only transaction that sees one consistent snapshot of the database (a table's row,
/// snapshots and moves read together agree on its version).
///
/// # Errors
/// When no connection can be had.
pub async fn begin_read_only(pool: &PgPool) -> Result<Tx<'static>, StoreError> {
    let mut tx = pool.begin().await?;
    sqlx::query!("set transaction isolation level repeatable read, read only")
        .execute(&mut *tx)
        .await?;
    Ok(tx)
}

/// A second read-only transaction that sees exactly what `tx` (begun by [`begin_read_only`])
/// sees, so that a long read can run two statements at once; None, having waited for nothing,
/// when the pool has no connection idle (a reader holding one connection never waits for
/// another), and None on Citus: a snapshot exported there is the coordinator's, not the one
/// the worker holding the table's rows reads in, so the read stays on `tx` alone (one
/// repeatable-read transaction, which Citus keeps on that worker's one connection, see
/// deploy/README.md).
///
/// # Errors
/// On database failure.
pub async fn begin_alongside(pool: &PgPool, tx: &mut Tx<'_>) -> Result<Option<Tx<'static>>, StoreError> {
    let Some(mut second) = pool
        .try_begin_with("begin isolation level repeatable read, read only")
        .await?
    else {
        return Ok(None);
    };
    let snapshot: String = sqlx::query_scalar!(
        r#"select case when exists (select 1 from pg_extension where extname = 'citus') then ''
                     else pg_export_snapshot() end as "snapshot!""#,
    )
    .fetch_one(&mut **tx)
    .await?;
    // The statement takes no parameters: the name is written in, and so only a name as
    // PostgreSQL makes them (hex digits and dashes); sent unprepared, so that each name does not
    // take a place in the statement cache.
    if snapshot.is_empty() || !snapshot.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-') {
        return Ok(None);
    }
    let set = format!("set transaction snapshot '{snapshot}'");
    sqlx::raw_sql(&set).execute(&mut *second).await?;
    Ok(Some(second))
}

/// Whether the database is Citus (has the `citus` extension).
///
/// # Errors
/// On database failure.
pub async fn is_citus(pool: &PgPool) -> Result<bool, StoreError> {
    Ok(
        sqlx::query_scalar!(r#"select exists (select 1 from pg_extension where extname = 'citus') as "citus!""#)
            .fetch_one(pool)
            .await?,
    )
}

/// Whether the database answers.
///
/// # Errors
/// When it does not.
pub async fn ping(pool: &PgPool) -> Result<(), StoreError> {
    sqlx::query!("select 1 as one").fetch_one(pool).await?;
    Ok(())
}

/// Completes once the database answers anything: a connection of its own (never one of the
/// pool's, which may all be busy with slow but healthy work) is opened and asked `select 1`. A
/// refusal (too many connections, shutting down, nothing listening) is an answer too: only a
/// frozen server keeps this waiting, and the caller bounds how long it waits.
pub async fn knock(pool: &PgPool) {
    use sqlx::Connection;
    let options = pool.connect_options();
    if let Ok(mut conn) = sqlx::PgConnection::connect_with(&options).await {
        // Either outcome is an answer; the goodbye is not waited for.
        drop(sqlx::query!("select 1 as one").fetch_one(&mut conn).await);
        tokio::spawn(async move { drop(conn.close().await) });
    }
}

/// The name of the constraint a database error broke, if any.
fn constraint(e: &sqlx::Error) -> Option<&str> {
    match e {
        sqlx::Error::Database(db) => db.constraint(),
        _ => None,
    }
}

/// A name folded for matching: lower case, white space collapsed.
pub fn name_key(name: &str) -> String {
    name.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

#[cfg(test)]
mod tests {
    /// A checked statement is one literal, so the fragments several statements share are written
    /// out in each: each copy is exactly the constant that defines it (the constant's own
    /// definition is one of the matches where it is defined in that file).
    #[test]
    fn fragments_are_written_out_as_defined() {
        let tables = include_str!("tables.rs");
        assert_eq!(tables.matches(super::tables::EFFECTIVE).count(), 1 + 3);
        assert_eq!(tables.matches(super::tables::IN_PLAY_ORDER).count(), 1 + 2);
        assert_eq!(tables.matches(super::RECORDED_BY).count(), 3);
        assert_eq!(include_str!("chain.rs").matches(super::RECORDED_BY).count(), 2);
        assert_eq!(include_str!("deals.rs").matches(super::RECORDED_BY).count(), 2);
        assert_eq!(include_str!("changes.rs").matches(super::RECORDED_BY).count(), 1);
        let idempotency_keys = include_str!("idempotency_keys.rs");
        assert_eq!(
            idempotency_keys
                .matches(super::idempotency_keys::REPLACE_EXPIRED)
                .count(),
            1 + 1
        );
    }
}
