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
/// seasons count it), its roster's club members (whose league points a seat's are) and its
/// tournaments (who sat where in each round, and what the rounds scored).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionRecord {
    pub chip_value: Option<i64>,
    pub club: Uuid,
    pub created_at: DateTime<Utc>,
    pub currency: Option<String>,
    /// In id order.
    pub members: Vec<RosterEntry>,
    pub session: Uuid,
    /// The session's tournaments, oldest first (record version 2; left out when there are none,
    /// so a session without any reads and hashes as version 1 wrote it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tournaments: Vec<TournamentRecord>,
    /// The session's closes, oldest first, each with its reopening and final checkpoint once
    /// there are (record version 3; left out when there are none, so a session never closed
    /// reads and hashes as versions 1 and 2 wrote it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub closes: Vec<CloseRecord>,
}

/// A close of the session as its chain covers it: when and by whom, when it made the session
/// final, why it was forced (tables still being played), its reopening (who, when, why) and the
/// hash of its final checkpoint once made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CloseRecord {
    pub n: i32,
    pub closed_at: DateTime<Utc>,
    pub closed_by: Uuid,
    pub final_at: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forced: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reopened: Option<ReopenRecord>,
    /// Hex SHA-256 of the final checkpoint's canonical form (without its signature).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<String>,
}

/// A close's reopening as the chain covers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReopenRecord {
    pub at: DateTime<Utc>,
    pub by: Uuid,
    pub reason: String,
}

impl CloseRecord {
    /// The closes as stored, with the hashes of the final checkpoints kept.
    pub fn of(closes: &[super::closes::CloseRow], finals: &[super::closes::FinalRow]) -> Vec<CloseRecord> {
        closes
            .iter()
            .map(|c| CloseRecord {
                n: c.n,
                closed_at: c.closed_at,
                closed_by: c.closed_by,
                final_at: c.final_at,
                forced: c.forced.clone(),
                reopened: match (c.reopened_at, c.reopened_by, &c.reopen_reason) {
                    (Some(at), Some(by), Some(reason)) => Some(ReopenRecord {
                        at,
                        by,
                        reason: reason.clone(),
                    }),
                    _ => None,
                },
                checkpoint: finals
                    .iter()
                    .find(|f| f.n == c.n)
                    .map(|f| f.hash.iter().map(|b| format!("{b:02x}")).collect()),
            })
            .collect()
    }
}

/// What a session's chain covers of a tournament: everything that sets its places (the game and
/// options its tables are opened with, the movement's set-up, the rounds' rules, who entered and
/// withdrew, each round's seating, byes, closing and results). Members by id, never by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TournamentRecord {
    pub deals_per_round: Option<i32>,
    pub entrants: Vec<EntrantRecord>,
    pub game: String,
    /// Where what is left in a table's pools goes when its round closes (`keep`, `share`,
    /// `bank`).
    pub leftover: String,
    pub minutes_per_round: Option<i32>,
    pub options: serde_json::Value,
    pub rounds: Vec<RoundRecord>,
    pub setup: serde_json::Value,
    pub tournament: Uuid,
    pub unfinished: String,
}

/// An entrant as the record covers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntrantRecord {
    pub club_member: Uuid,
    pub entrant: i32,
    pub from_round: i32,
    pub until_round: Option<i32>,
}

/// A round as the record covers it: its tables (the table opened, each seat's entrant in seat
/// order), byes, whether it is closed, and its results once it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundRecord {
    pub byes: Vec<i32>,
    pub closed: bool,
    /// The chips its close moved out of its tables' pools, as the `leftover` rule says: they
    /// count in the settle-up, so the chain covers them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub leftovers: Vec<LeftoverRecord>,
    pub number: i32,
    pub results: Vec<ResultRecord>,
    pub tables: Vec<TableRecord>,
}

/// A round's table as the record covers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableRecord {
    pub number: i32,
    pub seats: Vec<i32>,
    pub table: Uuid,
}

/// One transfer of a closed round's leftover chips as the record covers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeftoverRecord {
    pub amount: i64,
    /// `pool:<name>`.
    pub from: String,
    pub seq: i32,
    pub table: i32,
    /// `seat:<n>` or `bank`.
    pub to: String,
}

/// A table's result as the record covers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultRecord {
    /// Rulings and corrections made after the close that moved the result, in order (left out
    /// when there are none, so a result never amended reads and hashes as before).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub amendments: Vec<AmendmentRecord>,
    pub deals_played: i32,
    pub ruled: Option<String>,
    pub scores: Vec<i64>,
    pub table: i32,
}

/// An amendment of a closed round's result as the record covers it: the scores after it and
/// the entry of the table's log that made it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AmendmentRecord {
    pub scores: Vec<i64>,
    pub seq: i32,
    pub table_seq: i64,
}

/// The tournament's record as stored now.
///
/// # Errors
/// On database failure.
pub async fn tournament_record(
    conn: &mut PgConnection,
    row: &super::tournaments::TournamentRow,
) -> Result<TournamentRecord, StoreError> {
    use super::tournaments as t;
    let entrants = t::entrants(&mut *conn, row.id).await?;
    let rounds = t::rounds(&mut *conn, row.id).await?;
    let seatings = t::seatings(&mut *conn, row.id).await?;
    let byes = t::byes(&mut *conn, row.id).await?;
    let results = t::results(&mut *conn, row.id).await?;
    let amendments = t::amendments(&mut *conn, row.id).await?;
    let leftovers = t::leftovers(&mut *conn, row.id).await?;
    let rounds = rounds
        .iter()
        .map(|r| {
            let mut tables: Vec<TableRecord> = Vec::new();
            for s in seatings.iter().filter(|s| s.round == r.number) {
                match tables.last_mut() {
                    Some(last) if last.number == s.table_number => last.seats.push(s.entrant),
                    _ => tables.push(TableRecord {
                        number: s.table_number,
                        seats: vec![s.entrant],
                        table: s.table_id,
                    }),
                }
            }
            RoundRecord {
                byes: byes.iter().filter(|b| b.round == r.number).map(|b| b.entrant).collect(),
                closed: r.closed_at.is_some(),
                leftovers: leftovers
                    .iter()
                    .filter(|l| l.round == r.number)
                    .map(|l| LeftoverRecord {
                        amount: l.amount,
                        from: l.from_account.clone(),
                        seq: l.seq,
                        table: l.table_number,
                        to: l.to_account.clone(),
                    })
                    .collect(),
                number: r.number,
                results: results
                    .iter()
                    .filter(|x| x.round == r.number)
                    .map(|x| ResultRecord {
                        amendments: amendments
                            .iter()
                            .filter(|a| a.round == x.round && a.table_number == x.table_number)
                            .map(|a| AmendmentRecord {
                                scores: a.scores.clone(),
                                seq: a.seq,
                                table_seq: a.table_seq,
                            })
                            .collect(),
                        deals_played: x.deals_played,
                        ruled: x.ruled.clone(),
                        scores: x.scores.clone(),
                        table: x.table_number,
                    })
                    .collect(),
                tables,
            }
        })
        .collect();
    Ok(TournamentRecord {
        deals_per_round: row.deals_per_round,
        entrants: entrants
            .into_iter()
            .map(|e| EntrantRecord {
                club_member: e.club_member_id,
                entrant: e.entrant,
                from_round: e.from_round,
                until_round: e.until_round,
            })
            .collect(),
        game: row.game.clone(),
        leftover: row.leftover.clone(),
        minutes_per_round: row.minutes_per_round,
        options: row.options.clone(),
        rounds,
        setup: row.setup.clone(),
        tournament: row.id,
        unfinished: row.unfinished.clone(),
    })
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
    .fetch_all(&mut *conn)
    .await?;
    let mut tournaments = Vec::new();
    for t in super::tournaments::of_session(&mut *conn, session).await? {
        tournaments.push(tournament_record(&mut *conn, &t).await?);
    }
    let closes = super::closes::closes(&mut *conn, session).await?;
    let finals = super::closes::finals(&mut *conn, session).await?;
    Ok(SessionRecord {
        closes: CloseRecord::of(&closes, &finals),
        chip_value: row.chip_value,
        club: row.club_id,
        created_at: row.created_at,
        currency: row.currency,
        members,
        session: row.id,
        tournaments,
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
