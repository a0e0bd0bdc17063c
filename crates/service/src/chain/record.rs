//! The chains of a session's and a season's records: what a table's chain reads from elsewhere
//! and that sets money, places or membership (issue #39).
//!
//! Invariants:
//! - A record's chain is its links in order from 0, each holding the record as it was linked
//!   (compact JSON, [`RECORD_VERSION`] of its content); a link's `content_hash` is SHA-256 of
//!   that content and its `hash` SHA-256(`prev_hash` ‖ `content_hash`), the first `prev_hash`
//!   32 zero bytes, as a table's chain.
//! - Every change the service makes to a record links the record as it is after the change, in
//!   the change's transaction, with the record's row locked ([`link_session`], [`link_season`]),
//!   so the last link is the record as stored; a change made around the service is found
//!   ([`check`]): the record differs from the last link, or the links no longer follow.
//! - Each link keeps the version its content was written with, so a later version of the
//!   content leaves the chains stored before it checkable.
//! - Everything but the linking is pure, so the offline verifier checks a bundle's session
//!   chain without a database.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use tablekeeper_store::PgConnection;
use uuid::Uuid;

use super::{sha256, Hash};
use crate::ServiceError;
use tablekeeper_store::records::{self, RecordLink, SeasonRecord, SessionRecord};
use tablekeeper_store::StoreError;

/// The latest version of a record's content.
///
/// 1. A session: its chip value and currency, club, date (`created_at`) and roster (each entry's
///    id and club member). A season: its club, name, dates, games, scoring, league points and
///    when it was made.
/// 2. A session as in 1, and its tournaments (issue #41: `tournaments`, each with its set-up,
///    entrants, rounds, seatings, byes and results). A session without tournaments is still
///    linked at version 1, its content unchanged, so that what earlier releases linked and what
///    this one links of such a session read and hash alike.
/// 3. A session as in 2, and its closes (issue #42: `closes`, each with when and by whom, when
///    it is final, why it was forced, its reopening and its final checkpoint's hash). A session
///    never closed is still linked at version 1 or 2, its content unchanged.
pub const RECORD_VERSION: i16 = 3;

/// The link after `last` (the first when there is none) holding `content`, written with record
/// version `version`.
pub fn next(last: Option<&RecordLink>, content: String, version: i16) -> RecordLink {
    let prev_hash = last.map_or_else(|| vec![0; 32], |l| l.hash.clone());
    let content_hash = sha256(content.as_bytes());
    let hash: Hash = sha256(&[prev_hash.as_slice(), content_hash.as_slice()].concat());
    RecordLink {
        pos: last.map_or(0, |l| l.pos + 1),
        version,
        content,
        content_hash: content_hash.to_vec(),
        prev_hash,
        hash: hash.to_vec(),
    }
}

/// The first discrepancy of `what`'s chain (`links`, in order), or between the record as stored
/// (`now`) and the last link's; `None` when they agree, or when there are no links (a record an
/// earlier release wrote, linked at its next change).
pub fn check<T: Serialize + DeserializeOwned>(what: &str, links: &[RecordLink], now: &T) -> Option<String> {
    let mut prev: Vec<u8> = vec![0; 32];
    for (i, link) in links.iter().enumerate() {
        let at = format!("{what}'s chain breaks at link {i}");
        if link.pos != i as i64 {
            return Some(format!("{at}: links are missing or out of order"));
        }
        if !(1..=RECORD_VERSION).contains(&link.version) {
            return Some(format!(
                "{at}: it was linked with record version {}, which this engine does not know",
                link.version
            ));
        }
        if sha256(link.content.as_bytes()).as_slice() != link.content_hash.as_slice() {
            return Some(format!("{at}: the record it holds was changed after it was linked"));
        }
        let hash = sha256(&[prev.as_slice(), link.content_hash.as_slice()].concat());
        if link.prev_hash != prev || link.hash.as_slice() != hash.as_slice() {
            return Some(format!("{at}: the link does not follow the link before it"));
        }
        prev = link.hash.clone();
    }
    let last = links.last()?;
    let linked: Value = match serde_json::from_str::<T>(&last.content).and_then(serde_json::to_value) {
        Ok(linked) => linked,
        Err(e) => return Some(format!("{what}'s last link does not read: {e}")),
    };
    let now = match serde_json::to_value(now) {
        Ok(now) => now,
        Err(e) => return Some(format!("{what} does not encode: {e}")),
    };
    let differ: Vec<&str> = match (&linked, &now) {
        (Value::Object(then), Value::Object(now)) => now
            .iter()
            .filter(|(key, value)| then.get(key.as_str()) != Some(value))
            .map(|(key, _)| key.as_str())
            .collect(),
        _ => vec!["the record"],
    };
    (!differ.is_empty()).then(|| {
        format!(
            "{what} was changed outside the service: its {} not what was last linked",
            match differ.as_slice() {
                [one] => format!("`{one}` is"),
                many => format!(
                    "{} are",
                    many.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
                ),
            }
        )
    })
}

fn content<T: Serialize>(record: &T) -> Result<String, ServiceError> {
    serde_json::to_string(record).map_err(ServiceError::Encode)
}

/// Links `record` (at record version `version`) after `links` unless the last link holds it
/// already.
async fn link<T: Serialize + DeserializeOwned + PartialEq>(
    conn: &mut PgConnection,
    kind: &str,
    subject: Uuid,
    links: &[RecordLink],
    record: &T,
    version: i16,
) -> Result<(), ServiceError> {
    let last = links.last();
    if last.is_some_and(|l| serde_json::from_str::<T>(&l.content).is_ok_and(|then| then == *record)) {
        return Ok(());
    }
    records::append(conn, kind, subject, &next(last, content(record)?, version)).await?;
    Ok(())
}

/// Links the session's record as it is now, unless its last link holds it already; in the
/// transaction that changed it. Locks the session's row until the transaction ends.
///
/// # Errors
/// `Store(NotFound)` for an unknown session; on database failure.
pub async fn link_session(conn: &mut PgConnection, session: Uuid) -> Result<(), ServiceError> {
    tablekeeper_store::sessions::lock(&mut *conn, session).await?;
    let record = records::session_record(&mut *conn, session).await?;
    let links = records::links(&mut *conn, session).await?;
    let version = if !record.closes.is_empty() {
        3
    } else if !record.tournaments.is_empty() {
        2
    } else {
        1
    };
    link(conn, "session", session, &links, &record, version).await
}

/// Links a season's record as it is now, unless its last link holds it already; in the
/// transaction that made or changed it.
///
/// # Errors
/// On database failure.
pub async fn link_season(
    conn: &mut PgConnection,
    season: &tablekeeper_store::seasons::SeasonRow,
) -> Result<(), ServiceError> {
    let links = records::links(&mut *conn, season.id).await?;
    link(conn, "season", season.id, &links, &SeasonRecord::of(season), 1).await
}

/// What is wrong with the session's chain or its record now, if anything.
///
/// # Errors
/// `Store(NotFound)` for an unknown session; on database failure.
pub async fn check_session(conn: &mut PgConnection, session: Uuid) -> Result<Option<String>, StoreError> {
    let record: SessionRecord = records::session_record(&mut *conn, session).await?;
    let links = records::links(&mut *conn, session).await?;
    Ok(check(&format!("session {session}"), &links, &record))
}

/// What is wrong with the season's chain or its row now, if anything.
///
/// # Errors
/// On database failure.
pub async fn check_season(
    conn: &mut PgConnection,
    season: &tablekeeper_store::seasons::SeasonRow,
) -> Result<Option<String>, StoreError> {
    let links = records::links(&mut *conn, season.id).await?;
    Ok(check(
        &format!("season {}", season.id),
        &links,
        &SeasonRecord::of(season),
    ))
}

#[cfg(test)]
mod tests {
    use chrono::Utc;

    use super::*;
    use tablekeeper_store::records::RosterEntry;

    fn session() -> SessionRecord {
        SessionRecord {
            chip_value: Some(5),
            club: Uuid::new_v4(),
            created_at: Utc::now(),
            currency: Some("GBP".into()),
            members: vec![RosterEntry {
                club_member: Uuid::new_v4(),
                id: Uuid::new_v4(),
            }],
            session: Uuid::new_v4(),
            tournaments: Vec::new(),
            closes: Vec::new(),
        }
    }

    fn chain_of(records: &[&SessionRecord]) -> Vec<RecordLink> {
        let mut links: Vec<RecordLink> = Vec::new();
        for r in records {
            let link = next(links.last(), serde_json::to_string(r).expect("encodes"), 1);
            links.push(link);
        }
        links
    }

    #[test]
    fn a_record_as_last_linked_checks_and_its_history_stays_checkable() {
        let first = session();
        let mut now = first.clone();
        now.chip_value = Some(50);
        let links = chain_of(&[&first, &now]);
        assert_eq!(check("s", &links, &now), None);
        assert_eq!(check("s", &[], &now), None, "unlinked: an earlier release's");
    }

    #[test]
    fn a_record_changed_around_the_service_is_named_by_its_field() {
        let first = session();
        let links = chain_of(&[&first]);
        let mut now = first.clone();
        now.chip_value = Some(50);
        now.members[0].club_member = Uuid::new_v4();
        let found = check("session x", &links, &now).expect("found");
        assert!(found.contains("`chip_value`, `members`"), "{found}");
    }

    #[test]
    fn a_link_rewritten_or_removed_breaks_the_chain() {
        let first = session();
        let mut second = first.clone();
        second.chip_value = Some(50);
        let mut links = chain_of(&[&first, &second]);
        let mut rewritten = links.clone();
        rewritten[0].content = rewritten[0].content.replace("\"chip_value\":5", "\"chip_value\":7");
        assert!(check("s", &rewritten, &second).expect("found").contains("link 0"));
        links.remove(0);
        assert!(check("s", &links, &second).expect("found").contains("link 0"));
    }

    #[test]
    fn a_session_s_tournaments_link_at_version_2_after_links_of_version_1() {
        use tablekeeper_store::records::{
            EntrantRecord, LeftoverRecord, ResultRecord, RoundRecord, TableRecord, TournamentRecord,
        };
        let first = session();
        let mut now = first.clone();
        now.tournaments.push(TournamentRecord {
            deals_per_round: Some(2),
            entrants: vec![EntrantRecord {
                club_member: Uuid::new_v4(),
                entrant: 1,
                from_round: 1,
                until_round: None,
            }],
            game: "nomination-whist".into(),
            leftover: "share".into(),
            minutes_per_round: None,
            options: serde_json::json!({"hand_sizes": [1]}),
            rounds: vec![RoundRecord {
                byes: vec![],
                closed: true,
                leftovers: vec![LeftoverRecord {
                    amount: 3,
                    from: "pool:pope".into(),
                    seq: 1,
                    table: 1,
                    to: "seat:1".into(),
                }],
                number: 1,
                results: vec![ResultRecord {
                    amendments: vec![],
                    deals_played: 2,
                    ruled: None,
                    scores: vec![11, 10, 0],
                    table: 1,
                }],
                tables: vec![TableRecord {
                    number: 1,
                    seats: vec![1, 2, 3],
                    table: Uuid::new_v4(),
                }],
            }],
            setup: serde_json::json!({"rounds": 1}),
            tournament: Uuid::new_v4(),
            unfinished: "as_played".into(),
        });
        // A session without tournaments reads and hashes as version 1 wrote it.
        let v1 = serde_json::to_string(&first).expect("encodes");
        assert!(!v1.contains("tournaments"), "{v1}");
        let mut links = vec![next(None, v1, 1)];
        links.push(next(links.last(), serde_json::to_string(&now).expect("encodes"), 2));
        assert_eq!(check("s", &links, &now), None);
        let mut changed = now.clone();
        changed.tournaments[0].rounds[0].results[0].scores[0] = 12;
        let found = check("s", &links, &changed).expect("found");
        assert!(found.contains("`tournaments`"), "{found}");
        // So is a leftover's transfer changed after it was linked: it counts in the settle-up.
        let mut moved = now.clone();
        moved.tournaments[0].rounds[0].leftovers[0].to = "seat:2".into();
        let found = check("s", &links, &moved).expect("found");
        assert!(found.contains("`tournaments`"), "{found}");
        // A result never amended hashes as before amendments existed; one amended and not
        // linked since is found.
        assert!(!serde_json::to_string(&now).expect("encodes").contains("amendments"));
        let mut amended = now.clone();
        amended.tournaments[0].rounds[0].results[0]
            .amendments
            .push(tablekeeper_store::records::AmendmentRecord {
                scores: vec![21, 0, 0],
                seq: 1,
                table_seq: 30,
            });
        let found = check("s", &links, &amended).expect("found");
        assert!(found.contains("`tournaments`"), "{found}");
    }

    #[test]
    fn content_written_by_the_database_reads_as_the_service_s() {
        // As the migration links records stored before it: jsonb's text, an offset for UTC.
        let first = session();
        let text = serde_json::to_value(&first)
            .expect("encodes")
            .to_string()
            .replace('Z', "+00:00");
        let links = vec![next(None, text, 1)];
        assert_eq!(check("s", &links, &first), None);
    }
}
