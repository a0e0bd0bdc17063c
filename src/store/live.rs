//! Announcing committed log entries to every replica (`NOTIFY`, read by `crate::live`).

use uuid::Uuid;

use super::{StoreError, Tx};

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

    /// Reads a payload back; None for anything else.
    pub fn parse(payload: &str) -> Option<Announcement> {
        let mut parts = payload.split(' ');
        let table = parts.next()?.parse().ok()?;
        let session = match parts.next()? {
            "-" => None,
            s => Some(s.parse().ok()?),
        };
        let seq = parts.next()?.parse().ok()?;
        parts.next().is_none().then_some(Announcement { table, session, seq })
    }
}

/// Announces an entry inside its transaction: PostgreSQL delivers it only if the transaction
/// commits, so a refused or rolled-back move announces nothing.
///
/// # Errors
/// On database failure.
pub async fn announce(tx: &mut Tx<'_>, announcement: Announcement) -> Result<(), StoreError> {
    sqlx::query("select pg_notify($1, $2)")
        .bind(CHANNEL)
        .bind(announcement.payload())
        .execute(&mut **tx)
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_announcement_reads_back_as_sent() {
        for session in [None, Some(Uuid::new_v4())] {
            let a = Announcement {
                table: Uuid::new_v4(),
                session,
                seq: 42,
            };
            assert_eq!(Announcement::parse(&a.payload()), Some(a));
        }
        for bad in [
            "",
            "x - 1",
            "00000000-0000-0000-0000-000000000000 - x",
            "00000000-0000-0000-0000-000000000000 - 1 2",
        ] {
            assert_eq!(Announcement::parse(bad), None, "{bad}");
        }
    }
}
