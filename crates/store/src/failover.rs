//! Following the read-write server among `DATABASE_URL`'s hosts (a primary and its standbys),
//! so that a replica keeps working on the promoted standby when its primary dies, without a
//! restart.
//!
//! Invariants: the pool opens new connections only to the host last found to fit
//! `target_session_attrs` (checked again on every new connection); a connection opened before a
//! switch is never handed out again (it may lead to a dead or demoted server), so a statement runs
//! either on the new host or not at all. A commit whose connection died is reported as
//! unavailable (503) by the caller, never as a success.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use sqlx::postgres::PgConnectOptions;
use sqlx::{Connection, PgPool};

use tablekeeper_config::{DatabaseUrl, TargetSessionAttrs};

/// How often the current host is checked while all is well.
pub const CHECK_EVERY: Duration = Duration::from_millis(250);

/// How long a host may take to accept a connection and say what it is when hosts are probed.
const PROBE_TIMEOUT: Duration = Duration::from_millis(1000);

/// How long the pool may take to lend a connection to the current host and have it say what it
/// is; longer (a busy pool, a dead host) and the hosts are probed directly.
const CHECK_TIMEOUT: Duration = Duration::from_millis(500);

/// What a probed server says it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Role {
    pub in_recovery: bool,
    pub read_only: bool,
}

impl Role {
    /// Whether a server in this role fits `target` (`PreferStandby` fits anything; the standby
    /// is preferred by [`Failover::discover`]).
    pub fn fits(self, target: TargetSessionAttrs) -> bool {
        match target {
            TargetSessionAttrs::Any | TargetSessionAttrs::PreferStandby => true,
            TargetSessionAttrs::ReadWrite => !self.read_only,
            TargetSessionAttrs::ReadOnly => self.read_only,
            TargetSessionAttrs::Primary => !self.in_recovery,
            TargetSessionAttrs::Standby => self.in_recovery,
        }
    }
}

/// Asks a connection what its server is.
async fn role(conn: &mut sqlx::PgConnection) -> Result<Role, sqlx::Error> {
    let row = sqlx::query!(
        r#"select pg_is_in_recovery() as "in_recovery!", current_setting('transaction_read_only') as "read_only!""#
    )
    .fetch_one(conn)
    .await?;
    Ok(Role {
        in_recovery: row.in_recovery,
        read_only: row.read_only == "on",
    })
}

/// When connections were last switched to another host, shared with the pool's checks.
#[derive(Debug)]
struct Switches {
    epoch: Instant,
    /// Nanoseconds from `epoch` to the last switch; 0: none yet.
    last: AtomicU64,
}

impl Switches {
    fn mark(&self) {
        let nanos = u64::try_from(self.epoch.elapsed().as_nanos())
            .unwrap_or(u64::MAX)
            .max(1);
        self.last.store(nanos, Ordering::SeqCst);
    }

    /// Whether a connection `age` old was opened before the last switch.
    fn predates_switch(&self, age: Duration) -> bool {
        let last = self.last.load(Ordering::SeqCst);
        if last == 0 {
            return false;
        }
        let opened = self.epoch.elapsed().saturating_sub(age);
        opened < Duration::from_nanos(last)
    }
}

/// The pool of a server given several hosts, and the host it is on.
pub struct Failover {
    pool: PgPool,
    /// Each host's connect options (as the pool's, statement timeout included).
    hosts: Vec<PgConnectOptions>,
    /// `host:port` of each, for logs.
    names: Vec<String>,
    target: TargetSessionAttrs,
    current: AtomicUsize,
    switches: Arc<Switches>,
    failovers: AtomicU64,
    /// Whether a host was found once: the first switch (at start-up) is no failover.
    settled: std::sync::atomic::AtomicBool,
    /// Wakes the watcher at once (a new connection found the wrong kind of server).
    wake: Arc<tokio::sync::Notify>,
    /// One discovery at a time.
    discovering: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for Failover {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Failover")
            .field("hosts", &self.names)
            .field("target", &self.target)
            .field("current", &self.current.load(Ordering::SeqCst))
            .finish_non_exhaustive()
    }
}

impl Failover {
    /// A lazily connecting pool on the first of `url`'s hosts (as [`super::pool`]), which
    /// [`Failover::discover`] and [`Failover::watch`] move to the host that fits.
    ///
    /// # Errors
    /// When a host's URL cannot be parsed.
    pub fn new(
        url: &DatabaseUrl,
        max_connections: u32,
        acquire_timeout: Duration,
        statement_timeout: Option<Duration>,
    ) -> Result<Arc<Failover>, sqlx::Error> {
        let hosts = url
            .hosts()
            .iter()
            .map(|host| super::connect_options(host, statement_timeout))
            .collect::<Result<Vec<_>, _>>()?;
        let names = hosts
            .iter()
            .map(|o| format!("{}:{}", o.get_host(), o.get_port()))
            .collect();
        let switches = Arc::new(Switches {
            epoch: Instant::now(),
            last: AtomicU64::new(0),
        });
        let wake = Arc::new(tokio::sync::Notify::new());
        let target = url.target();
        let first = hosts
            .first()
            .cloned()
            .ok_or_else(|| sqlx::Error::Configuration("DATABASE_URL lists no host".into()))?;
        let wrong_kind = wake.clone();
        let pool = super::pool_options(max_connections, acquire_timeout, Some(stale_check(switches.clone())))
            .after_connect(move |conn, _meta| {
                let wake = wrong_kind.clone();
                Box::pin(async move {
                    if target == TargetSessionAttrs::Any {
                        return super::act_as_application(conn).await;
                    }
                    // The host may have changed role since it was found (a primary demoted): a
                    // connection of the wrong kind is refused and the watcher looks again.
                    let found = role(conn).await?;
                    if found.fits(target) {
                        super::act_as_application(conn).await
                    } else {
                        wake.notify_one();
                        Err(sqlx::Error::Protocol(format!(
                            "the server does not fit target_session_attrs={} ({found:?})",
                            target.as_str()
                        )))
                    }
                })
            })
            .connect_lazy_with(first);
        Ok(Arc::new(Failover {
            pool,
            hosts,
            names,
            target,
            current: AtomicUsize::new(0),
            switches,
            failovers: AtomicU64::new(0),
            settled: std::sync::atomic::AtomicBool::new(false),
            wake,
            discovering: tokio::sync::Mutex::new(()),
        }))
    }

    /// The pool, whose new connections go to the current host.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// How many times connections were moved to another host.
    pub fn failovers(&self) -> u64 {
        self.failovers.load(Ordering::SeqCst)
    }

    /// The index (in `DATABASE_URL`'s list) of the host new connections go to.
    pub fn current(&self) -> usize {
        self.current.load(Ordering::SeqCst)
    }

    /// Asks one host what it is, on a connection of its own.
    async fn probe(&self, index: usize) -> Option<Role> {
        let options = self.hosts.get(index)?;
        let asked = async {
            let mut conn = match sqlx::PgConnection::connect_with(options).await {
                // Not created yet (start-up creates it): the server's own database answers.
                Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some("3D000") => {
                    sqlx::PgConnection::connect_with(&options.clone().database("postgres")).await?
                }
                connected => connected?,
            };
            let found = role(&mut conn).await;
            tokio::spawn(async move { drop(conn.close().await) });
            found
        };
        match tokio::time::timeout(PROBE_TIMEOUT, asked).await {
            Ok(Ok(found)) => Some(found),
            Ok(Err(e)) => {
                tracing::debug!(host = %self.names[index], error = %e, "database host does not answer");
                None
            }
            Err(_) => None,
        }
    }

    /// Looks through the hosts (the current one first, then in the listed order) for one that
    /// fits `target_session_attrs`, and moves the pool there. Returns its index, None when none
    /// fits now (writes then answer 503 until one does).
    pub async fn discover(&self) -> Option<usize> {
        let _one = self.discovering.lock().await;
        let current = self.current.load(Ordering::SeqCst);
        let order = std::iter::once(current).chain((0..self.hosts.len()).filter(|&i| i != current));
        let mut fallback = None;
        for index in order {
            let Some(found) = self.probe(index).await else {
                continue;
            };
            let preferred = match self.target {
                TargetSessionAttrs::PreferStandby => found.in_recovery,
                target => found.fits(target),
            };
            if preferred {
                self.switch_to(index);
                self.settled.store(true, Ordering::SeqCst);
                return Some(index);
            }
            if self.target == TargetSessionAttrs::PreferStandby && fallback.is_none() {
                fallback = Some(index);
            }
        }
        if let Some(index) = fallback {
            self.switch_to(index);
            self.settled.store(true, Ordering::SeqCst);
        }
        fallback
    }

    fn switch_to(&self, index: usize) {
        let before = self.current.swap(index, Ordering::SeqCst);
        if before == index {
            return;
        }
        self.pool.set_connect_options(self.hosts[index].clone());
        self.switches.mark();
        if !self.settled.load(Ordering::SeqCst) {
            tracing::info!(host = %self.names[index], "database host found");
            return;
        }
        self.failovers.fetch_add(1, Ordering::SeqCst);
        tracing::warn!(
            from = %self.names[before],
            to = %self.names[index],
            target_session_attrs = self.target.as_str(),
            "database failover: new connections go to another host; connections to the old one are closed"
        );
    }

    /// Whether the current host still fits, asked on one of the pool's connections.
    async fn current_fits(&self) -> bool {
        let asked = async {
            let mut conn = self.pool.acquire().await?;
            role(&mut conn).await
        };
        match tokio::time::timeout(CHECK_TIMEOUT, asked).await {
            Ok(Ok(found)) => found.fits(self.target),
            _ => false,
        }
    }

    /// Checks the current host every [`CHECK_EVERY`] (and at once when a new connection found
    /// the wrong kind of server); when it no longer answers or no longer fits, looks for the host
    /// that does. Runs until the pool is closed.
    pub async fn watch(self: Arc<Failover>) {
        let mut found = true;
        while !self.pool.is_closed() {
            tokio::select! {
                () = self.wake.notified() => {}
                () = tokio::time::sleep(CHECK_EVERY) => {}
            }
            // While no host fits, the hosts are asked directly (a dead one refuses at once)
            // rather than through the pool, which would wait out its connect retries.
            if found && self.current_fits().await {
                continue;
            }
            let was_found = found;
            found = self.discover().await.is_some();
            if was_found && !found {
                tracing::warn!(
                    hosts = ?self.names,
                    target_session_attrs = self.target.as_str(),
                    "no database host fits; writes are answered 503 until one does"
                );
            }
        }
    }
}

/// The URL of the host a one-off command (`migrate`, `reset-password`) should use: the only one,
/// or the first that fits `target_session_attrs` (with a standby for `prefer-standby`). None when
/// several are listed and none fits now.
pub async fn host_for_command(url: &DatabaseUrl) -> Option<String> {
    if !url.has_several_hosts() {
        return Some(url.first().to_owned());
    }
    let failover = Failover::new(url, 1, PROBE_TIMEOUT, None).ok()?;
    let found = failover.discover().await;
    failover.pool.close().await;
    found.and_then(|index| url.hosts().get(index).cloned())
}

/// The pool's check that a connection opened before the last switch is not handed out.
fn stale_check(switches: Arc<Switches>) -> super::StaleCheck {
    Arc::new(move |age| switches.predates_switch(age))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_primary_fits_read_write_and_a_standby_read_only() {
        let primary = Role {
            in_recovery: false,
            read_only: false,
        };
        let standby = Role {
            in_recovery: true,
            read_only: true,
        };
        assert!(primary.fits(TargetSessionAttrs::ReadWrite) && primary.fits(TargetSessionAttrs::Primary));
        assert!(!standby.fits(TargetSessionAttrs::ReadWrite) && !standby.fits(TargetSessionAttrs::Primary));
        assert!(standby.fits(TargetSessionAttrs::Standby) && standby.fits(TargetSessionAttrs::ReadOnly));
        assert!(!primary.fits(TargetSessionAttrs::Standby));
        assert!(primary.fits(TargetSessionAttrs::Any) && standby.fits(TargetSessionAttrs::Any));
    }

    #[test]
    fn only_connections_opened_before_a_switch_are_stale() {
        let switches = Switches {
            epoch: Instant::now(),
            last: AtomicU64::new(0),
        };
        assert!(!switches.predates_switch(Duration::from_secs(3600)), "no switch yet");
        std::thread::sleep(Duration::from_millis(5));
        switches.mark();
        assert!(
            switches.predates_switch(Duration::from_millis(10)),
            "opened before the switch"
        );
        assert!(!switches.predates_switch(Duration::ZERO), "opened just now");
    }
}
