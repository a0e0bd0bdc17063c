//! The links of a table's hash chain: rows in, rows out (the hashing is `tablekeeper_service::chain`'s).
//!
//! Invariants: links are append-only (the application's role may not change them) and numbered
//! from 0 without gaps; the table's `chain_head` is the hash of its last link; a link keeps the
//! version of the canonical content its `content_hash` was made from.
//!
//! A link's `prev_hash` is the `hash` of the link before it, so it is stored once: links written
//! since issue #27 keep an empty `prev_hash` (the set-up's keeps its zeros) and every read fills
//! it from the link at `pos - 1` (older links keep theirs, and it is read as stored). A link whose
//! predecessor is missing reads with an empty `prev_hash`, which follows no link: the audit finds
//! the gap as it found a wrong stored hash before.
//!
//! Where links are kept: the link a move writes with itself lives in the move's row (`moves`'
//! `link_*` columns, since migration `20261207000300`), and the links of the bookings it writes
//! with itself in theirs (`ledger_bookings`' `link_*` columns, since `20261208000100`); every
//! other link (the set-up, scorers, verifications, voids, corrections and their bookings, links of
//! older entries) in `chain_links`; every read here takes all three (`LINKS`). A row holds one
//! link, so an entry linked in its row is linked once, as `chain_links_entry_once` keeps it within
//! `chain_links`; links follow seq order, and a table's booking ids the order of its bookings'
//! links (drawn after the move read the chain's end), so the linked row with the greatest seq (or
//! id) holds the last of those rows' links.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::PgConnection;
use uuid::Uuid;

use super::StoreError;
use super::TableKey;

/// A link as stored.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct LinkRow {
    pub pos: i64,
    /// `table`, `move`, `booking`, `scorer` or `verification`.
    pub entry: String,
    /// The move's seq or the booking's id (0 for the table's set-up).
    #[sqlx(rename = "ref")]
    pub reference: i64,
    /// The version of the canonical content hashed (`tablekeeper_service::chain::CONTENT_VERSION`).
    #[sqlx(rename = "content_version")]
    pub version: i16,
    pub content_hash: Vec<u8>,
    pub prev_hash: Vec<u8>,
    pub hash: Vec<u8>,
}

/// Where the chain of a table ends: its last link, and the last move seq, booking id, scorer
/// number and verification id linked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChainEnd {
    pub last: Option<LinkRow>,
    pub last_move: i64,
    pub last_booking: i64,
    pub last_scorer: i64,
    pub last_verification: i64,
}

/// A scorer as the chain covers it: the number it was linked by, who it is, its name and when
/// it joined (a revocation is not evidence of who owes what, and is left out).
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct ChainedScorer {
    pub number: i64,
    pub id: Uuid,
    pub name: String,
    pub created_at: DateTime<Utc>,
}

/// The end of the table's chain (all zeros and no link when it has none yet).
///
/// # Errors
/// On database failure.
pub async fn end(conn: &mut PgConnection, table: TableKey) -> Result<ChainEnd, StoreError> {
    // The last link is the latest of `chain_links`' last and the last linked rows'; the one
    // before it, whose hash is its `prev_hash`, is in any of them too.
    let last = sqlx::query_as!(
        LinkRow,
        r#"with l as (
             select * from (
                 (select pos, entry, ref, content_version, content_hash, prev_hash, hash
                  from chain_links where table_id = $1 and club_no = $2 order by pos desc limit 1)
                 union all
                 (select link_pos, 'move', seq, link_version, link_content_hash, ''::bytea, link_hash
                  from moves where table_id = $1 and club_no = $2 and link_pos is not null order by seq desc limit 1)
                 union all
                 (select link_pos, 'booking', id, link_version, link_content_hash, ''::bytea, link_hash
                  from ledger_bookings where table_id = $1 and club_no = $2 and link_pos is not null order by id desc limit 1)) l
             order by pos desc limit 1)
         select l.pos as "pos!", l.entry as "entry!", l.ref as "reference!", l.content_version as "version!",
                l.content_hash as "content_hash!",
                case when octet_length(l.prev_hash) = 0
                     then coalesce((select p.hash from chain_links p where p.table_id = $1 and p.club_no = $2 and p.pos = l.pos - 1),
                                   case when m.link_pos = l.pos - 1 then m.link_hash end,
                                   case when b.link_pos = l.pos - 1 then b.link_hash end,
                                   l.prev_hash)
                     else l.prev_hash end as "prev_hash!",
                l.hash as "hash!"
         from l left join lateral (
             select m.link_pos, m.link_hash from moves m
             where m.table_id = $1 and m.club_no = $2 and m.link_pos < l.pos order by m.seq desc limit 1) m on true
         left join lateral (
             select b.link_pos, b.link_hash from ledger_bookings b
             where b.table_id = $1 and b.club_no = $2 and b.link_pos < l.pos order by b.id desc limit 1) b on true"#,
        table.id,
        table.club_no,
    )
    .fetch_optional(&mut *conn)
    .await?;
    let lasts = sqlx::query!(
        r#"select greatest(max(ref) filter (where entry = 'move'),
                         (select seq from moves where table_id = $1 and club_no = $2 and link_pos is not null
                          order by seq desc limit 1)) as "last_move?",
                greatest(max(ref) filter (where entry = 'booking'),
                         (select id from ledger_bookings where table_id = $1 and club_no = $2 and link_pos is not null
                          order by id desc limit 1)) as "last_booking?",
                max(ref) filter (where entry = 'scorer') as "last_scorer?",
                max(ref) filter (where entry = 'verification') as "last_verification?"
         from chain_links where table_id = $1 and club_no = $2"#,
        table.id,
        table.club_no,
    )
    .fetch_one(conn)
    .await?;
    Ok(ChainEnd {
        last,
        last_move: lasts.last_move.unwrap_or(0),
        last_booking: lasts.last_booking.unwrap_or(0),
        last_scorer: lasts.last_scorer.unwrap_or(0),
        last_verification: lasts.last_verification.unwrap_or(0),
    })
}

/// The table's chained scorers numbered after `after` (all: 0), in order. Scorers who joined
/// before the chain covered them have no number and are not chained.
///
/// # Errors
/// On database failure.
pub async fn scorers_after(
    conn: &mut PgConnection,
    table: TableKey,
    after: i64,
) -> Result<Vec<ChainedScorer>, StoreError> {
    Ok(sqlx::query_as!(
        ChainedScorer,
        r#"select number as "number!", id, name, created_at from scorers
         where table_id = $1 and club_no = $3 and number > $2 order by number"#,
        table.id,
        after,
        table.club_no,
    )
    .fetch_all(conn)
    .await?)
}

/// The table's chained verifications after id `after` (all: 0), in order. Verifications given
/// before the chain covered them are not chained.
///
/// # Errors
/// On database failure.
pub async fn verifications_after(
    conn: &mut PgConnection,
    table: TableKey,
    after: i64,
) -> Result<Vec<crate::deals::VerificationRow>, StoreError> {
    Ok(sqlx::query_as!(
        crate::deals::VerificationRow,
        "select id, deal, correction_seq, agree, moves, differs, verified_by, verified_at from verifications
         where table_id = $1 and club_no = $3 and chained and id > $2 order by id",
        table.id,
        after,
        table.club_no,
    )
    .fetch_all(conn)
    .await?)
}

/// Every link of the table, in order.
///
/// # Errors
/// On database failure.
pub async fn links(conn: &mut PgConnection, table: TableKey) -> Result<Vec<LinkRow>, StoreError> {
    // From every link of table `$1` of club number `$2`, wherever it is kept (see the module's
    // invariants), as stored: a link in a move's or a booking's row has an empty `prev_hash`.
    Ok(sqlx::query_as!(
        LinkRow,
        r#"select pos as "pos!", entry as "entry!", ref as "reference!", content_version as "version!", content_hash as "content_hash!",
                    case when octet_length(prev_hash) = 0 and lag(pos) over w = pos - 1 then lag(hash) over w
                         else prev_hash end as "prev_hash!",
                    hash as "hash!"
             from (select pos, entry, ref, content_version, content_hash, prev_hash, hash
                        from chain_links where table_id = $1 and club_no = $2
                      union all
                      select link_pos, 'move', seq, link_version, link_content_hash, ''::bytea, link_hash
                        from moves where table_id = $1 and club_no = $2 and link_pos is not null
                      union all
                      select link_pos, 'booking', id, link_version, link_content_hash, ''::bytea, link_hash
                        from ledger_bookings where table_id = $1 and club_no = $2 and link_pos is not null) l window w as (order by pos) order by pos"#,
        table.id,
        table.club_no,
    )
    .fetch_all(conn)
    .await?)
}

/// The table's tree as kept (`game_tables.tree_size`, `tree_frontier`): its size and frontier
/// bytes, which may lag behind its chain (the links after `size` are not folded in yet).
///
/// # Errors
/// `NotFound` for an unknown table; on database failure.
pub async fn tree(conn: &mut PgConnection, table: TableKey) -> Result<(i64, Vec<u8>), StoreError> {
    let row = sqlx::query!(
        "select tree_size, tree_frontier from game_tables where id = $1 and club_no = $2",
        table.id,
        table.club_no,
    )
    .fetch_optional(conn)
    .await?
    .ok_or(StoreError::NotFound("table"))?;
    Ok((row.tree_size, row.tree_frontier))
}

/// The hashes of the table's links from position `from` on, as (position, hash), in order:
/// what a kept tree of `from` leaves has still to fold in.
///
/// # Errors
/// On database failure.
pub async fn link_hashes_from(
    conn: &mut PgConnection,
    table: TableKey,
    from: i64,
) -> Result<Vec<(i64, Vec<u8>)>, StoreError> {
    Ok(sqlx::query!(
        r#"select pos as "pos!", hash as "hash!" from (
             select pos, hash from chain_links where table_id = $1 and club_no = $2 and pos >= $3
             union all
             select link_pos, link_hash from moves
             where table_id = $1 and club_no = $2 and link_pos is not null and link_pos >= $3
             union all
             select link_pos, link_hash from ledger_bookings
             where table_id = $1 and club_no = $2 and link_pos is not null and link_pos >= $3) l
         order by pos"#,
        table.id,
        table.club_no,
        from,
    )
    .fetch_all(conn)
    .await?
    .into_iter()
    .map(|row| (row.pos, row.hash))
    .collect())
}

/// Keeps the table's tree at `size` with `frontier`, in the caller's transaction, which holds
/// the table's row (as every write that extends its chain does).
///
/// # Errors
/// On database failure.
pub async fn keep_tree(conn: &mut PgConnection, table: TableKey, size: i64, frontier: &[u8]) -> Result<(), StoreError> {
    sqlx::query!(
        "update game_tables set tree_size = $3, tree_frontier = $4 where id = $1 and club_no = $2",
        table.id,
        table.club_no,
        size,
        frontier,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// The links of the table's log entries `from..=to` (their own links, not their bookings'), as
/// (seq, position, hash); an entry the chain does not cover (written before it) has none.
///
/// # Errors
/// On database failure.
pub async fn entry_links(
    conn: &mut PgConnection,
    table: TableKey,
    from: i64,
    to: i64,
) -> Result<Vec<(i64, i64, Vec<u8>)>, StoreError> {
    Ok(sqlx::query!(
        r#"select ref as "seq!", pos as "pos!", hash as "hash!" from chain_links
         where table_id = $1 and club_no = $4 and entry = 'move' and ref between $2 and $3
         union all
         select seq, link_pos, link_hash from moves
         where table_id = $1 and club_no = $4 and link_pos is not null and seq between $2 and $3"#,
        table.id,
        from,
        to,
        table.club_no,
    )
    .fetch_all(conn)
    .await?
    .into_iter()
    .map(|row| (row.seq, row.pos, row.hash))
    .collect())
}

/// What a link keeps of its `prev_hash`: nothing but the set-up's zeros, the rest being the
/// hash of the link before it (see the module's invariants).
pub(crate) fn stored_prev_hash(link: &LinkRow) -> &[u8] {
    if link.pos == 0 {
        &link.prev_hash
    } else {
        &[]
    }
}

/// Appends links to `chain_links` and sets the table's head to the last one's hash, in the
/// caller's transaction (a move's own link is written with the move instead: `write_move`).
///
/// # Errors
/// On database failure (a position taken already breaks the primary key).
pub async fn append(conn: &mut PgConnection, table: TableKey, new: &[LinkRow]) -> Result<(), StoreError> {
    let Some(head) = new.last() else {
        return Ok(());
    };
    let positions: Vec<i64> = new.iter().map(|l| l.pos).collect();
    let entries: Vec<&str> = new.iter().map(|l| l.entry.as_str()).collect();
    let references: Vec<i64> = new.iter().map(|l| l.reference).collect();
    let versions: Vec<i16> = new.iter().map(|l| l.version).collect();
    let contents: Vec<&[u8]> = new.iter().map(|l| l.content_hash.as_slice()).collect();
    let prevs: Vec<&[u8]> = new.iter().map(stored_prev_hash).collect();
    let hashes: Vec<&[u8]> = new.iter().map(|l| l.hash.as_slice()).collect();
    sqlx::query!(
        "insert into chain_links (table_id, pos, entry, ref, content_hash, prev_hash, hash, content_version, club_no)
         select $1, l.*, $9 from unnest($2::bigint[], $3::text[], $4::bigint[], $5::bytea[], $6::bytea[], $7::bytea[],
                                        $8::smallint[]) as l",
        table.id,
        &positions,
        &entries as _,
        &references,
        &contents as _,
        &prevs as _,
        &hashes as _,
        &versions,
        table.club_no,
    )
    .execute(&mut *conn)
    .await?;
    sqlx::query!(
        "update game_tables set chain_head = $2 where id = $1 and club_no = $3",
        table.id,
        &head.hash,
        table.club_no,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// A log entry as the chain covers it: its stored fields, with its place in play order (which
/// `crate::tables::MoveRow` leaves out); its move and events decoded (`J` a `Value`), or
/// as the JSON text the database writes them ([`JsonText`]).
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct LoggedEntry<J = Value> {
    pub seq: i64,
    pub entry: String,
    pub kind: String,
    pub seat: Option<i16>,
    pub body: J,
    pub events: J,
    pub voids_seq: Option<i64>,
    pub part_of: Option<i64>,
    /// The stored `numeric` as PostgreSQL writes it (exact, scale included); null for a move
    /// that keeps its seq's place.
    pub position: Option<String>,
    pub recorded_by: String,
    pub recorded_at: DateTime<Utc>,
}

/// A stored JSON value as the text the database writes it (not canonical: its own spacing and
/// key order).
#[derive(Debug, Clone, PartialEq, Eq, sqlx::Type)]
#[sqlx(transparent)]
pub struct JsonText(pub String);

/// A log entry with its move and events as JSON text (a name `query_as!` can build).
type TextEntry = LoggedEntry<JsonText>;

/// The table's whole log, in seq order, as the chain covers it, moves and events as JSON text:
/// for a reader of every entry that decodes each once, into its own types.
///
/// # Errors
/// On database failure.
pub async fn log_as_text(conn: &mut PgConnection, table: TableKey) -> Result<Vec<LoggedEntry<JsonText>>, StoreError> {
    // `recorded_by` as `super::RECORDED_BY` reads it (both statements).
    Ok(sqlx::query_as!(
        TextEntry,
        r#"select seq, entry, kind, seat, body::text as "body!: JsonText", events::text as "events!: JsonText", voids_seq, part_of,
                    position::text as position, coalesce(m.recorded_by, 'organiser:' || m.recorded_by_organiser, 'scorer:' || m.recorded_by_scorer) as "recorded_by!", recorded_at
             from moves m where table_id = $1 and club_no = $2 order by seq"#,
        table.id,
        table.club_no,
    )
    .fetch_all(conn)
    .await?)
}

/// The table's log entries after `after`, in seq order, as the chain covers them.
///
/// # Errors
/// On database failure.
pub async fn log_after(conn: &mut PgConnection, table: TableKey, after: i64) -> Result<Vec<LoggedEntry>, StoreError> {
    Ok(sqlx::query_as!(
        LoggedEntry,
        r#"select seq, entry, kind, seat, body, events, voids_seq, part_of, position::text as position,
                    coalesce(m.recorded_by, 'organiser:' || m.recorded_by_organiser, 'scorer:' || m.recorded_by_scorer) as "recorded_by!", recorded_at
             from moves m where table_id = $1 and club_no = $3 and seq > $2 order by seq"#,
        table.id,
        after,
        table.club_no,
    )
    .fetch_all(conn)
    .await?)
}
