//! The chains of a session's and a season's records: rows in, rows out (the hashing is
//! `tablekeeper_service::chain::record`'s).
//!
//! Invariants: links are append-only (the application's role may not change them), numbered
//! from 0 without gaps per subject, and each holds the record's content as it was linked. The
//! record types here are what those chains cover, read from the rows the settle-up, standings,
//! seasons and member history read.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use sqlx::PgConnection;
use uuid::Uuid;

use super::StoreError;

/// A link of a record's chain as stored.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct RecordLink {
    pub pos: i64,
    /// The version of the record's content (`tablekeeper_service::chain::record::RECORD_VERSION`).
    #[sqlx(rename = "content_version")]
    pub version: i16,
    /// The record as linked: JSON.
    pub content: String,
    pub content_hash: Vec<u8>,
    pub prev_hash: Vec<u8>,
    pub hash: Vec<u8>,
}

/// A roster entry as the session's record covers it: the seat's member and the club member it
/// is (the name is left out, so that a member can be anonymised).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, sqlx::FromRow)]
#[serde(deny_unknown_fields)]
pub struct RosterEntry {
    pub club_member: Uuid,
    pub id: Uuid,
}

/// What a session's chain covers: what a chip is worth (the settle-up), its club and date (which
/// seasons count it) and its roster's club members (whose league points a seat's are).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionRecord {
    pub chip_value: Option<i64>,
    pub club: Uuid,
    pub created_at: DateTime<Utc>,
    pub currency: Option<String>,
    /// In id order.
    pub members: Vec<RosterEntry>,
    pub session: Uuid,
}

/// What a season's chain covers: all of it (a season is not changed once started).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeasonRecord {
    pub club: Uuid,
    pub created_at: DateTime<Utc>,
    pub ends: NaiveDate,
    pub games: Vec<String>,
    pub league_points: Option<Vec<i32>>,
    pub name: String,
    pub scoring: String,
    pub season: Uuid,
    pub starts: NaiveDate,
}

impl SeasonRecord {
    /// The season's row as its record.
    pub fn of(row: &super::seasons::SeasonRow) -> SeasonRecord {
        SeasonRecord {
            club: row.club_id,
            created_at: row.created_at,
            ends: row.ends,
            games: row.games.clone(),
            league_points: row.league_points.clone(),
            name: row.name.clone(),
            scoring: row.scoring.clone(),
            season: row.id,
            starts: row.starts,
        }
    }
}

/// The session's record as stored now.
///
/// # Errors
/// `NotFound` when there is no such session.
pub async fn session_record(conn: &mut PgConnection, session: Uuid) -> Result<SessionRecord, StoreError> {
    let row = super::sessions::fetch(&mut *conn, session).await?;
    let members = sqlx::query_as!(
        RosterEntry,
        "select club_member_id as club_member, id from session_members where session_id = $1 order by id",
        session,
    )
    .fetch_all(conn)
    .await?;
    Ok(SessionRecord {
        chip_value: row.chip_value,
        club: row.club_id,
        created_at: row.created_at,
        currency: row.currency,
        members,
        session: row.id,
    })
}

/// The links of a subject's chain, in order.
///
/// # Errors
/// On database failure.
pub async fn links(conn: &mut PgConnection, subject: Uuid) -> Result<Vec<RecordLink>, StoreError> {
    Ok(sqlx::query_as!(
        RecordLink,
        "select pos, content_version as version, content, content_hash, prev_hash, hash
         from record_links where subject = $1 order by pos",
        subject,
    )
    .fetch_all(conn)
    .await?)
}

/// Appends a link to the chain of `subject` (a `session` or a `season`).
///
/// # Errors
/// On database failure (a link at that position already: a conflict).
pub async fn append(conn: &mut PgConnection, kind: &str, subject: Uuid, link: &RecordLink) -> Result<(), StoreError> {
    sqlx::query!(
        "insert into record_links (subject, kind, pos, content_version, content, content_hash, prev_hash, hash)
         values ($1, $2, $3, $4, $5, $6, $7, $8)",
        subject,
        kind,
        link.pos,
        link.version,
        &link.content,
        &link.content_hash,
        &link.prev_hash,
        &link.hash,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// The sessions of `club` now, and those a link of theirs once named it for (a session moved to
/// another club is still checked with the club it was in), oldest first.
///
/// # Errors
/// On database failure.
pub async fn sessions_of_club(conn: &mut PgConnection, club: Uuid) -> Result<Vec<Uuid>, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"select id as "id!" from club_sessions where club_id = $1
         union
         select subject from record_links
         where kind = 'session' and (content::jsonb ->> 'club') = $1::text"#,
        club,
    )
    .fetch_all(conn)
    .await?)
}
