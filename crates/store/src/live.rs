//! Announcing committed log entries to every replica (`NOTIFY`, read by `crate::live`).

use std::time::Duration;

use sqlx::PgConnection;
use uuid::Uuid;

use super::tables::MoveRow;
use super::TableKey;
use super::{StoreError, Tx};

/// PostgreSQL refuses a payload of 8000 bytes or more; an entry that would not fit is left out
/// of its announcement and read from the log instead.
const MAX_PAYLOAD: usize = 7900;

/// The channel every replica listens on.
pub const CHANNEL: &str = "tablekeeper_log";

/// A log entry was committed: the table, its session and the entry's sequence number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Announcement {
    pub table: Uuid,
    pub session: Option<Uuid>,
    pub seq: i64,
}

impl Announcement {
    /// The payload as sent: `<table> <session or -> <seq>`.
    pub fn payload(&self) -> String {
        let session = self.session.map_or_else(|| "-".to_owned(), |s| s.to_string());
        format!("{} {session} {}", self.table, self.seq)
    }

    /// The payload carrying the entry itself (`<table> <session or -> <seq> <entry as JSON>`)
    /// when it fits, so that a replica fans it out without reading it back; else `payload()`.
    /// A move's write puts what it knew of the chain beside the entry's fields (`chain`): a
    /// replica that does not know the field reads the entry and passes over it.
    pub fn payload_with(&self, entry: &MoveRow, chain: Option<&ChainNews>) -> String {
        /// [`Heard`] as written, borrowing what it writes.
        #[derive(serde::Serialize)]
        struct Written<'a> {
            #[serde(flatten)]
            entry: &'a MoveRow,
            #[serde(skip_serializing_if = "Option::is_none")]
            chain: Option<&'a ChainNews>,
        }
        let bare = self.payload();
        match serde_json::to_string(&Written { entry, chain }) {
            Ok(json) if entry.seq == self.seq && bare.len() + 1 + json.len() < MAX_PAYLOAD => format!("{bare} {json}"),
            _ => bare,
        }
    }

    /// Reads a payload back, with the entry when it carries one; None for anything else.
    pub fn parse(payload: &str) -> Option<(Announcement, Option<Heard>)> {
        let mut parts = payload.splitn(4, ' ');
        let table = parts.next()?.parse().ok()?;
        let session = match parts.next()? {
            "-" => None,
            s => Some(s.parse().ok()?),
        };
        let seq = parts.next()?.parse().ok()?;
        let heard = match parts.next() {
            None => None,
            Some(json) => Some(
                serde_json::from_str::<Heard>(json)
                    .ok()
                    .filter(|h| h.entry.seq == seq)?,
            ),
        };
        Some((Announcement { table, session, seq }, heard))
    }
}

/// An announced entry, and what its move's write knew of the table's chain.
#[derive(Clone, Debug, serde::Deserialize)]
pub struct Heard {
    #[serde(flatten)]
    pub entry: MoveRow,
    /// Absent from an announcement of anything but a move (a void, a correction, a ruling) and
    /// from one sent by an earlier version.
    #[serde(default)]
    pub chain: Option<ChainNews>,
}

/// What a move's write knew of its table's chain as the move left it: with it, a replica signs
/// the entry's receipt and a board's line without reading the chain back (issue #46).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ChainNews {
    /// The entry's own link, the first of the move's links.
    pub link: AnnouncedLink,
    /// The chain's last link as the move leaves it (the move's bookings' links follow the
    /// entry's).
    pub end: AnnouncedLink,
    /// The root of the table's tree at `end`; None for a table that keeps no tree.
    #[serde(default)]
    pub root: Option<AnnouncedRoot>,
}

/// A tree's root (hex in the payload).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct AnnouncedRoot(#[serde(with = "hex::serde")] pub [u8; 32]);

/// A link of a table's chain: its position and hash (hex in the payload).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AnnouncedLink {
    pub pos: i64,
    #[serde(with = "hex::serde")]
    pub hash: Vec<u8>,
}

/// A tournament of a session changed: a round started or closed, an entrant came or went. A
/// board following the session reads the tournament again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TournamentNotice {
    pub session: Uuid,
    pub tournament: Uuid,
    /// The last round started (0 before the first).
    pub round: u32,
    /// Whether that round is closed.
    pub closed: bool,
}

impl TournamentNotice {
    /// The payload as sent: `tournament <session> <tournament> <round> <open|closed>`. A replica
    /// that does not know the form reads no announcement in it and passes over it.
    pub fn payload(&self) -> String {
        let state = if self.closed { "closed" } else { "open" };
        format!("tournament {} {} {} {state}", self.session, self.tournament, self.round)
    }

    /// Reads a payload back; None for anything else.
    pub fn parse(payload: &str) -> Option<TournamentNotice> {
        let mut parts = payload.split(' ');
        if parts.next()? != "tournament" {
            return None;
        }
        let notice = TournamentNotice {
            session: parts.next()?.parse().ok()?,
            tournament: parts.next()?.parse().ok()?,
            round: parts.next()?.parse().ok()?,
            closed: match parts.next()? {
                "open" => false,
                "closed" => true,
                _ => return None,
            },
        };
        parts.next().is_none().then_some(notice)
    }
}

/// A table's row changed with no entry in its log (a member anonymised renames a seat): a
/// replica that keeps the table's state to fold its next move onto reads it again instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Renamed {
    pub table: Uuid,
}

impl Renamed {
    /// The payload as sent: `renamed <table>`. A replica that does not know the form reads no
    /// announcement in it and passes over it.
    pub fn payload(&self) -> String {
        format!("renamed {}", self.table)
    }

    /// Reads a payload back; None for anything else.
    pub fn parse(payload: &str) -> Option<Renamed> {
        let table = payload.strip_prefix("renamed ")?.parse().ok()?;
        Some(Renamed { table })
    }
}

/// Tells every replica, inside the caller's transaction (delivered only if it commits), that
/// `tables`' rows changed with no entry, for those some replica follows.
///
/// # Errors
/// On database failure.
pub async fn renamed(conn: &mut PgConnection, tables: &[Uuid]) -> Result<(), StoreError> {
    // The followed ones read in a statement of their own and each `NOTIFY` in another, as
    // `announce` does, for Citus.
    let followed: Vec<Uuid> = sqlx::query_scalar!(
        "select id from game_tables where id = any ($1) and followed_until > now()",
        tables,
    )
    .fetch_all(&mut *conn)
    .await?;
    for table in followed {
        notify(conn, &Renamed { table }.payload()).await?;
    }
    Ok(())
}

/// Sends a tournament's notice inside the caller's transaction (delivered only if it commits),
/// while some replica follows its session.
///
/// # Errors
/// On database failure.
pub async fn notice(conn: &mut PgConnection, notice: TournamentNotice) -> Result<(), StoreError> {
    let followed: Option<bool> = sqlx::query_scalar!(
        r#"select followed_until > now() as "followed?" from club_sessions where id = $1"#,
        notice.session,
    )
    .fetch_optional(&mut *conn)
    .await?
    .flatten();
    if followed == Some(true) {
        notify(conn, &notice.payload()).await?;
    }
    Ok(())
}

/// Renews the leases of tables followed already, for `lease` from now, and gives each renewed
/// one's version. Writers first: a table whose row a move holds is passed over this time (its
/// lease, renewed well before it runs out, is renewed at the next round; were it to lapse, its
/// entries would be late, never lost), and the tables go a hundred at a time, each statement on
/// its own, so that no move waits for a renewal of thousands of rows, and none deadlocks with
/// one (a batch of moves takes its tables' rows in its own order).
///
/// # Errors
/// On database failure.
pub async fn renew_tables(
    conn: &mut PgConnection,
    tables: &[Uuid],
    lease: Duration,
) -> Result<Vec<(Uuid, i64)>, StoreError> {
    let mut renewed = Vec::with_capacity(tables.len());
    for chunk in tables.chunks(100) {
        renewed.extend(
            sqlx::query!(
                "update game_tables t set followed_until = greatest(t.followed_until, now() + make_interval(secs => $2))
                 from (select id from game_tables where id = any($1) order by id for no key update skip locked) l
                 where t.id = l.id
                 returning t.id, t.version",
                chunk,
                lease.as_secs_f64(),
            )
            .fetch_all(&mut *conn)
            .await?
            .into_iter()
            .map(|row| (row.id, row.version)),
        );
    }
    Ok(renewed)
}

/// Follows tables for `lease` from now (a lease already longer is kept), and gives each one's
/// version as of the lease: every move that commits after it is announced. Rows are locked in
/// one order, so replicas renewing at once cannot deadlock.
///
/// # Errors
/// On database failure.
pub async fn follow_tables(
    conn: &mut PgConnection,
    tables: &[Uuid],
    lease: Duration,
) -> Result<Vec<(Uuid, i64)>, StoreError> {
    Ok(sqlx::query!(
        "update game_tables t set followed_until = greatest(t.followed_until, now() + make_interval(secs => $2))
         from (select id from game_tables where id = any($1) order by id for no key update) l
         where t.id = l.id
         returning t.id, t.version",
        tables,
        lease.as_secs_f64(),
    )
    .fetch_all(conn)
    .await?
    .into_iter()
    .map(|row| (row.id, row.version))
    .collect())
}

/// Renews the leases of sessions followed already, as [`follow_sessions`] takes them, writers
/// first as [`renew_tables`]: ten sessions a statement, a table whose row a move holds passed
/// over this time.
///
/// # Errors
/// On database failure.
pub async fn renew_sessions(
    conn: &mut PgConnection,
    sessions: &[Uuid],
    lease: Duration,
) -> Result<Vec<(Uuid, Uuid, i64)>, StoreError> {
    let mut renewed = Vec::new();
    for chunk in sessions.chunks(10) {
        sqlx::query!(
            "update club_sessions set followed_until = greatest(followed_until, now() + make_interval(secs => $2))
             where id = any($1)",
            chunk,
            lease.as_secs_f64(),
        )
        .execute(&mut *conn)
        .await?;
        renewed.extend(
            sqlx::query!(
                r#"update game_tables t set followed_until = greatest(t.followed_until, now() + make_interval(secs => $2))
                 from (select id from game_tables where session_id = any($1) order by id for no key update skip locked) l
                 where t.id = l.id
                 returning t.session_id as "session_id!", t.id, t.version"#,
                chunk,
                lease.as_secs_f64(),
            )
            .fetch_all(&mut *conn)
            .await?
            .into_iter()
            .map(|row| (row.session_id, row.id, row.version)),
        );
    }
    Ok(renewed)
}

/// Follows sessions for `lease` from now: the sessions, so that a table opened in one later is
/// followed from the start, and each of their tables; gives `(session, table, version)` per
/// table.
///
/// # Errors
/// On database failure.
pub async fn follow_sessions(
    conn: &mut PgConnection,
    sessions: &[Uuid],
    lease: Duration,
) -> Result<Vec<(Uuid, Uuid, i64)>, StoreError> {
    // The session first: a table being opened in it holds the session's row for share, so this
    // waits for it, and the tables' update below (a statement of its own) then sees it.
    sqlx::query!(
        "update club_sessions set followed_until = greatest(followed_until, now() + make_interval(secs => $2))
         where id = any($1)",
        sessions,
        lease.as_secs_f64(),
    )
    .execute(&mut *conn)
    .await?;
    Ok(sqlx::query!(
        r#"update game_tables t set followed_until = greatest(t.followed_until, now() + make_interval(secs => $2))
         from (select id from game_tables where session_id = any($1) order by id for no key update) l
         where t.id = l.id
         returning t.session_id as "session_id!", t.id, t.version"#,
        sessions,
        lease.as_secs_f64(),
    )
    .fetch_all(conn)
    .await?
    .into_iter()
    .map(|row| (row.session_id, row.id, row.version))
    .collect())
}

/// Announces an entry inside its transaction: PostgreSQL delivers it only if the transaction
/// commits, so a refused or rolled-back move announces nothing.
///
/// # Errors
/// On database failure.
pub async fn announce(tx: &mut Tx<'_>, table: TableKey, announcement: Announcement) -> Result<(), StoreError> {
    // Only while some replica follows the table, as a move's own write does: the caller holds
    // the table's row lock, so a lease either committed before this reads it or waits for this
    // transaction, and its follower then reads the entry from the log. The lease is read in a
    // statement of its own and the `NOTIFY` has no relation in it: on Citus the first goes to
    // the worker holding the table, the second runs on the coordinator, where replicas listen.
    let followed: Option<bool> = sqlx::query_scalar!(
        r#"select followed_until > now() as "followed?" from game_tables where id = $1 and club_no = $2"#,
        table.id,
        table.club_no,
    )
    .fetch_optional(&mut **tx)
    .await?
    .flatten();
    if followed == Some(true) {
        notify(tx, &announcement.payload()).await?;
    }
    Ok(())
}

/// Sends the announcement of an entry written in the caller's transaction (delivered only if it
/// commits), in a statement that reads no relation: on Citus it runs on the coordinator.
///
/// # Errors
/// On database failure.
pub async fn notify(conn: &mut PgConnection, payload: &str) -> Result<(), StoreError> {
    sqlx::query!("select pg_notify($1, $2)", CHANNEL, payload)
        .fetch_one(conn)
        .await?;
    Ok(())
}

/// A listener of the tables' announcements (`LISTEN` on [`CHANNEL`]), on a connection of its
/// own.
pub struct Listener(sqlx::postgres::PgListener);

impl Listener {
    /// Connects and listens.
    ///
    /// # Errors
    /// On database failure.
    pub async fn connect(pool: &sqlx::PgPool) -> Result<Listener, StoreError> {
        let mut listener = sqlx::postgres::PgListener::connect_with(pool).await?;
        listener.listen(CHANNEL).await?;
        Ok(Listener(listener))
    }

    /// The next announcement's payload; None when the connection dropped: it reconnects on the
    /// next call, but what was announced in between is gone.
    ///
    /// # Errors
    /// On database failure.
    pub async fn next(&mut self) -> Result<Option<String>, StoreError> {
        Ok(self.0.try_recv().await?.map(|n| n.payload().to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_renamed_table_reads_back_as_sent_and_is_no_announcement() {
        let renamed = Renamed { table: Uuid::new_v4() };
        assert_eq!(Renamed::parse(&renamed.payload()), Some(renamed));
        assert!(Announcement::parse(&renamed.payload()).is_none());
        assert!(TournamentNotice::parse(&renamed.payload()).is_none());
        assert!(Renamed::parse("renamed x").is_none());
        assert!(Renamed::parse(&format!("{} - 1", renamed.table)).is_none());
    }

    #[test]
    fn an_announcement_reads_back_as_sent() {
        for session in [None, Some(Uuid::new_v4())] {
            let a = Announcement {
                table: Uuid::new_v4(),
                session,
                seq: 42,
            };
            assert_eq!(
                Announcement::parse(&a.payload()).map(|(a, e)| (a, e.is_none())),
                Some((a, true))
            );
            let entry = MoveRow {
                seq: 42,
                entry: "move".into(),
                kind: "play".into(),
                seat: Some(1),
                body: serde_json::json!({"kind": "play", "seat": 1, "card": "QH"}),
                events: serde_json::json!([{"kind": "card_played", "note": "a b"}]),
                voids_seq: None,
                voided_by: None,
                part_of: None,
                superseded_by: None,
                recorded_by: "scorer:Ann's phone".into(),
                recorded_at: chrono::Utc::now(),
            };
            let (back, carried) = Announcement::parse(&a.payload_with(&entry, None)).expect("reads back");
            assert_eq!(back, a);
            let carried = carried.expect("the entry travels with it");
            assert_eq!(carried.chain, None);
            let carried = carried.entry;
            assert_eq!(
                (carried.seq, &carried.body, &carried.recorded_by),
                (42, &entry.body, &entry.recorded_by)
            );
            assert_eq!(carried.recorded_at, entry.recorded_at);
            // A move's: with what its write knew of the chain.
            let chain = ChainNews {
                link: AnnouncedLink {
                    pos: 7,
                    hash: vec![0xab; 32],
                },
                end: AnnouncedLink {
                    pos: 9,
                    hash: vec![0x01; 32],
                },
                root: Some(AnnouncedRoot([0xfe; 32])),
            };
            let payload = a.payload_with(&entry, Some(&chain));
            let (_, heard) = Announcement::parse(&payload).expect("reads back");
            let heard = heard.expect("the entry travels with it");
            assert_eq!(heard.chain.as_ref(), Some(&chain));
            assert_eq!(heard.entry.body, entry.body);
            // An earlier version reads the entry in it and passes over the chain.
            let json = payload.splitn(4, ' ').nth(3).expect("the entry");
            let entry_alone: MoveRow = serde_json::from_str(json).expect("an entry as before");
            assert_eq!((entry_alone.seq, entry_alone.body), (42, entry.body.clone()));
            // Too big to travel: announced bare, read from the log.
            let big = MoveRow {
                events: serde_json::json!("x".repeat(MAX_PAYLOAD)),
                ..entry
            };
            assert!(Announcement::parse(&a.payload_with(&big, Some(&chain)))
                .expect("reads back")
                .1
                .is_none());
        }
        for bad in [
            "",
            "x - 1",
            "00000000-0000-0000-0000-000000000000 - x",
            "00000000-0000-0000-0000-000000000000 - 1 2",
            "00000000-0000-0000-0000-000000000000 - 1 {\"seq\": 2}",
        ] {
            assert!(Announcement::parse(bad).is_none(), "{bad}");
        }
    }
}
