//! A move's two statements: the read that gives the rules engine the table as it stands (its
//! row, the answer kept under the request's key, what its state folds from, where its chain ends)
//! and the write that appends the move with everything it causes, only if the table is still at
//! the version read. Everything else about tables, their log and snapshots is `super::tables`'.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::PgConnection;
use uuid::Uuid;

use super::binder::Binder;
use super::clubs::ClubRole;
use super::idempotency_keys::REPLACE_EXPIRED;
use super::tables::{recorded_by_stored, StoredResponse, TableRow, EFFECTIVE, IN_PLAY_ORDER};
use super::users::TokenStamp;
use super::{StoreError, TableKey};

/// A move's log entry, its events worked out already.
pub struct NewMove<'a> {
    pub seq: i64,
    pub kind: &'a str,
    pub seat: Option<i16>,
    pub body: &'a Value,
    /// The events as JSON text, kept as they are: as the engine's types write them, so that a
    /// replay that writes the same text has the same events.
    pub events: &'a str,
    pub recorded_by: &'a str,
}

/// What a move reads with its table's lock, in one statement.
pub struct Locked {
    pub row: TableRow,
    /// The row's version in the statement's snapshot. When it is not `row.version`, the lock
    /// waited for a move that committed meanwhile, and everything else read here may be older
    /// than the row: read it again.
    pub seen_version: Option<i64>,
    /// The transaction's time (`now()`), which the rows it writes take.
    pub now: DateTime<Utc>,
    /// The answer kept under the request's idempotency key, if any.
    pub answer: Option<StoredResponse>,
    /// The latest usable snapshot as `(seq, state)`, and the effective moves after it as a JSON
    /// array of `[seq, body]`, oldest first; read only when asked for and the row's version is
    /// not the one whose state the caller already has.
    pub fold: Option<FoldRows>,
    /// The last link of the table's hash chain as `(pos, hash)`, when every entry so far is
    /// linked (the table has a head); the move's links then follow it in the move's own write.
    pub chain_end: Option<(i64, Vec<u8>)>,
    /// The table's tree as kept, `(size, frontier)` (`store::chain::tree`): it may lag behind
    /// the chain.
    pub tree: (i64, Vec<u8>),
    /// False when the scorer asked about is not one of the table's, or was revoked.
    pub scorer_active: bool,
    /// The account asked about, as read with the table.
    pub member: Option<MemberRead>,
    /// Whether the row was read with its lock, in the caller's transaction: then no other entry
    /// can land until it ends, and whatever is read later in it is of `row.version`.
    pub locked: bool,
    /// When the table's session has a close in force, the moment it is (or becomes) final.
    pub session_final_at: Option<DateTime<Utc>>,
}

/// What a fold starts from, as stored.
pub struct FoldRows {
    pub snapshot: Option<(i64, String)>,
    pub moves: String,
}

#[derive(sqlx::FromRow)]
struct LockedExtra {
    seen_version: Option<i64>,
    locked_at: DateTime<Utc>,
    request_hash: Option<String>,
    response_status: Option<i16>,
    response_body: Option<String>,
    snapshot_seq: Option<i64>,
    snapshot_state: Option<String>,
    fold_moves: Option<String>,
    chain_pos: Option<i64>,
    tree_size: i64,
    tree_frontier: Vec<u8>,
    scorer_active: bool,
    member_role: Option<ClubRole>,
    token_stands: Option<bool>,
    session_final_at: Option<DateTime<Utc>>,
}

/// The guard of a move's write to table `table` (an alias or table name) at `now` (an SQL
/// expression): no close in force of the table's session is final by then. A move read before a
/// close committed is written after it only while the close's window is open; one that would
/// land in a final session is written nowhere (and, read again under its table's lock, refused).
pub(crate) fn not_final(table: &str, now: &str) -> String {
    format!(
        "not exists (select 1 from session_closes c
                 where c.session_id = {table}.session_id and c.final_at <= {now}
                   and not exists (select 1 from session_reopenings r where r.session_id = c.session_id and r.n = c.n))"
    )
}

/// When table `t`'s session has a close in force (its latest, not reopened): the moment the
/// session is, or becomes, final (issue #42); null otherwise. Read with the table, so that a move
/// refused for a final session costs no statement of its own.
const SESSION_FINAL_AT: &str = "(select c.final_at from session_closes c
    where c.session_id = t.session_id
      and not exists (select 1 from session_reopenings ro where ro.session_id = c.session_id and ro.n = c.n)
    order by c.n desc limit 1)";

/// What a move's read is asked for.
pub struct MoveRead<'a> {
    /// The table's id, and its club's number when the caller knows it, which on Citus sends the
    /// statement to the one worker that holds the table, rather than to every worker.
    pub table: (Uuid, Option<i32>),
    /// The request's idempotency key, and how long answers are kept: an older one is not read.
    pub key: Option<(&'a str, Duration)>,
    /// Whether to read what the state folds from (when the row's version is not `kept`).
    pub fold: bool,
    pub kept: Option<i64>,
    /// Lock the row for the rest of the transaction (moves on one table are serial); without,
    /// the read is a snapshot for an optimistic move, whose write then happens only if the
    /// version is still the one read.
    pub lock: bool,
    /// The scorer whose standing at the table to read.
    pub scorer: Option<Uuid>,
    /// The account whose role in the table's club to read, and its token's standing.
    pub member: Option<Member>,
}

/// An account recording, checked in the move's read rather than in statements of its own.
#[derive(Debug, Clone, Copy)]
pub struct Member {
    pub user: Uuid,
    /// The token, when whether it was signed out is still to be read.
    pub token: Option<TokenStamp>,
}

/// What the read found of the account recording.
#[derive(Debug, Clone, Copy)]
pub struct MemberRead {
    /// Its role in the table's club, if it is a member who has not left.
    pub role: Option<ClubRole>,
    /// Whether its token stands (None: no such user), when that was asked.
    pub token_stands: Option<Option<bool>>,
}

/// Where table `t`'s chain ends: a link is in `chain_links`, its move's row or its booking's
/// (`store::chain`), and the chain ends at the latest.
const CHAIN_POS: &str = "greatest(
    (select l.pos from chain_links l where l.table_id = t.id and l.club_no = t.club_no order by l.pos desc limit 1),
    (select m.link_pos from moves m where m.table_id = t.id and m.club_no = t.club_no and m.link_pos is not null
     order by m.seq desc limit 1),
    (select b.link_pos from ledger_bookings b where b.table_id = t.id and b.club_no = t.club_no and b.link_pos is not null
     order by b.id desc limit 1))";

/// What table `t`'s state folds from (`s`: its latest snapshot not voided, `f`: the effective
/// moves after it), read only when its version is not `kept` (an SQL expression).
fn fold_joins(kept: &str) -> String {
    format!(
        " left join lateral (
             select s.seq, s.state from snapshots s
             where t.version is distinct from {kept} and s.table_id = t.id and s.club_no = t.club_no
               and not exists (select 1 from moves v where v.table_id = s.table_id and v.club_no = s.club_no and v.voids_seq = s.seq)
             order by s.seq desc limit 1) s on true
         left join lateral (
             select coalesce(json_agg(json_build_array(m.seq, m.body) order by {IN_PLAY_ORDER}), '[]')::text
                 as fold_moves
             from moves m
             where t.version is distinct from {kept} and m.table_id = t.id and m.club_no = t.club_no
               and m.seq > coalesce(s.seq, 0) and {EFFECTIVE}) f on true"
    )
}

/// Reads what a move needs in one statement: the table's row and, in the same snapshot, the
/// answer kept under the request's key, what its state folds from, where its chain ends, and
/// the standing of whoever records (a scorer's at the table, or an account's role in the club
/// and its token's), each a round trip fewer on every move.
///
/// # Errors
/// `NotFound` when there is no such table.
pub async fn read_for_move(conn: &mut PgConnection, asked: MoveRead<'_>) -> Result<Locked, StoreError> {
    let MoveRead {
        table: (id, club),
        key,
        fold,
        kept,
        lock,
        scorer,
        member,
    } = asked;
    // Only the parts a move needs are in the statement: the executor sets up every node of a
    // plan whether it reads anything or not, which is most of this statement's cost.
    let mut sql = String::from("select t.*, now() as locked_at");
    sql.push_str(if lock {
        ", seen.version as seen_version"
    } else {
        ", t.version as seen_version"
    });
    sql.push_str(if key.is_some() {
        ", k.request_hash, k.response_status, k.response_body::text as response_body"
    } else {
        ", null::text as request_hash, null::int2 as response_status, null::text as response_body"
    });
    sql.push_str(if fold {
        ", s.seq as snapshot_seq, s.state::text as snapshot_state, f.fold_moves"
    } else {
        ", null::int8 as snapshot_seq, null::text as snapshot_state, null::text as fold_moves"
    });
    sql.push_str(&format!(
        ", {CHAIN_POS} as chain_pos, {SESSION_FINAL_AT} as session_final_at"
    ));
    sql.push_str(if scorer.is_some() {
        ", exists (select 1 from scorers sc where sc.table_id = t.id and sc.club_no = t.club_no and sc.id = $4 and sc.revoked_at is null)
             as scorer_active"
    } else {
        ", true as scorer_active"
    });
    sql.push_str(if member.is_some() {
        ", (select cm.role from club_members cm where cm.club_id = t.club_id and cm.user_id = $7 and cm.left_at is null)
             as member_role"
    } else {
        ", null::text as member_role"
    });
    sql.push_str(if member.is_some_and(|m| m.token.is_some()) {
        ", (select u.token_generation = $8 and not exists (select 1 from revoked_tokens r where r.jti = $9)
             from users u where u.id = $7) as token_stands"
    } else {
        ", null::bool as token_stands"
    });
    let of_club = if club.is_some() { " and club_no = $6" } else { "" };
    sql.push_str(&if lock {
        format!(" from (select * from game_tables where id = $1{of_club} for update) t
         left join lateral (select g.version from game_tables g where g.id = t.id and g.club_no = t.club_no) seen on true")
    } else {
        " from game_tables t".to_owned()
    });
    if key.is_some() {
        sql.push_str(
            " left join idempotency_keys k on k.table_id = t.id and k.club_no = t.club_no and k.key = $2 and k.created_at > now() - make_interval(secs => $5)",
        );
    }
    if fold {
        sql.push_str(&fold_joins("$3"));
    }
    if !lock {
        sql.push_str(" where t.id = $1");
        if club.is_some() {
            sql.push_str(" and t.club_no = $6");
        }
    }
    let row = sqlx::query(&sql)
        .bind(id)
        .bind(key.map(|(key, _)| key))
        .bind(kept)
        .bind(scorer)
        .bind(key.map(|(_, kept_for)| kept_for.as_secs_f64()))
        .bind(club)
        .bind(member.map(|m| m.user))
        .bind(member.and_then(|m| m.token).map(|t| t.generation))
        .bind(member.and_then(|m| m.token).and_then(|t| t.jti))
        .fetch_optional(conn)
        .await?
        .ok_or(StoreError::NotFound("table"))?;
    locked_from_row(&row, fold, kept, member, lock)
}

/// What a move's read found, from the row its statement returned.
fn locked_from_row(
    row: &sqlx::postgres::PgRow,
    fold: bool,
    kept: Option<i64>,
    member: Option<Member>,
    lock: bool,
) -> Result<Locked, StoreError> {
    use sqlx::FromRow;
    let table = TableRow::from_row(row)?;
    let extra = LockedExtra::from_row(row)?;
    let loaded = fold && kept != Some(table.version);
    let answer = match (extra.request_hash, extra.response_status, extra.response_body) {
        (Some(request_hash), Some(status), Some(body)) => Some(StoredResponse {
            request_hash,
            status: u16::try_from(status).unwrap_or(200),
            body,
        }),
        _ => None,
    };
    let chain_end = extra.chain_pos.zip(table.chain_head.clone());
    Ok(Locked {
        chain_end,
        tree: (extra.tree_size, extra.tree_frontier),
        scorer_active: extra.scorer_active,
        member: member.map(|m| MemberRead {
            role: extra.member_role,
            token_stands: m.token.map(|_| extra.token_stands),
        }),
        locked: lock,
        session_final_at: extra.session_final_at,
        seen_version: extra.seen_version,
        now: extra.locked_at,
        answer,
        fold: loaded.then(|| FoldRows {
            snapshot: extra.snapshot_seq.zip(extra.snapshot_state),
            moves: extra.fold_moves.unwrap_or_else(|| "[]".to_owned()),
        }),
        row: table,
    })
}

/// A move's read without the lock, owned, to wait for a statement that reads for many moves
/// ([`read_for_moves`]); what it reads is [`read_for_move`]'s with `fold` and without `lock`.
#[derive(Debug, Clone)]
pub struct UnlockedRead {
    pub table: (Uuid, Option<i32>),
    pub key: Option<(String, Duration)>,
    pub kept: Option<i64>,
    pub scorer: Option<Uuid>,
    pub member: Option<Member>,
}

impl MoveRead<'_> {
    /// This read, owned, when it is one [`read_for_moves`] can make (no lock).
    #[must_use]
    pub fn unlocked(&self) -> Option<UnlockedRead> {
        (!self.lock && self.fold).then(|| UnlockedRead {
            table: self.table,
            key: self.key.map(|(key, kept_for)| (key.to_owned(), kept_for)),
            kept: self.kept,
            scorer: self.scorer,
            member: self.member,
        })
    }
}

/// [`read_for_move`] for many moves in one statement, each as its own read would have found
/// it (`NotFound`: no such table), in order. Each table is looked up by its key (`any ($1)`, and
/// its answer laterally), whatever the planner's statistics say: joined on the list alone, a
/// database not yet analysed scanned all of `game_tables` for every statement.
///
/// # Errors
/// On database failure.
pub async fn read_for_moves(
    conn: &mut PgConnection,
    reads: &[UnlockedRead],
) -> Result<Vec<Result<Locked, StoreError>>, StoreError> {
    use sqlx::Row;
    let sql = format!(
        "select r.i as read_no, t.*, now() as locked_at, t.version as seen_version,
             k.request_hash, k.response_status, k.response_body::text as response_body,
             s.seq as snapshot_seq, s.state::text as snapshot_state, f.fold_moves,
             {CHAIN_POS} as chain_pos, {SESSION_FINAL_AT} as session_final_at,
             (r.scorer is null or exists (select 1 from scorers sc where sc.table_id = t.id and sc.club_no = t.club_no
                                           and sc.id = r.scorer and sc.revoked_at is null)) as scorer_active,
             (select cm.role from club_members cm
              where r.member is not null and cm.club_id = t.club_id and cm.user_id = r.member and cm.left_at is null)
                 as member_role,
             (select u.token_generation = r.generation and not exists (select 1 from revoked_tokens rt where rt.jti = r.jti)
              from users u where r.generation is not null and u.id = r.member) as token_stands
         from unnest($1::uuid[], $2::int4[], $3::text[], $4::float8[], $5::int8[], $6::uuid[], $7::uuid[], $8::int4[],
                     $9::uuid[]) with ordinality as r(id, club, key, kept_for, kept, scorer, member, generation, jti, i)
         join game_tables t on t.id = any ($1::uuid[]) and t.id = r.id and (r.club is null or t.club_no = r.club)
         left join lateral (
             select k.request_hash, k.response_status, k.response_body from idempotency_keys k
             where r.key is not null and k.table_id = t.id and k.club_no = t.club_no and k.key = r.key
               and k.created_at > now() - make_interval(secs => r.kept_for)) k on true
         {folds}",
        folds = fold_joins("r.kept")
    );
    let token = |r: &UnlockedRead| r.member.and_then(|m| m.token);
    let rows = sqlx::query(&sql)
        .bind(reads.iter().map(|r| r.table.0).collect::<Vec<_>>())
        .bind(reads.iter().map(|r| r.table.1).collect::<Vec<_>>())
        .bind(
            reads
                .iter()
                .map(|r| r.key.as_ref().map(|(key, _)| key.as_str()))
                .collect::<Vec<_>>(),
        )
        .bind(
            reads
                .iter()
                .map(|r| r.key.as_ref().map(|(_, kept_for)| kept_for.as_secs_f64()))
                .collect::<Vec<_>>(),
        )
        .bind(reads.iter().map(|r| r.kept).collect::<Vec<_>>())
        .bind(reads.iter().map(|r| r.scorer).collect::<Vec<_>>())
        .bind(reads.iter().map(|r| r.member.map(|m| m.user)).collect::<Vec<_>>())
        .bind(reads.iter().map(|r| token(r).map(|t| t.generation)).collect::<Vec<_>>())
        .bind(reads.iter().map(|r| token(r).and_then(|t| t.jti)).collect::<Vec<_>>())
        .fetch_all(conn)
        .await?;
    let mut found: Vec<Result<Locked, StoreError>> = reads.iter().map(|_| Err(StoreError::NotFound("table"))).collect();
    for row in rows {
        let no: i64 = row.try_get("read_no")?;
        let Some(read) = usize::try_from(no - 1).ok().and_then(|i| reads.get(i).map(|r| (i, r))) else {
            continue;
        };
        found[read.0] = locked_from_row(&row, true, read.1.kept, read.1.member, false);
    }
    Ok(found)
}

/// A move and everything it causes, written in one statement.
pub struct MoveWrite<'a, S: serde::Serialize> {
    pub new: NewMove<'a>,
    /// Whether the game is over after it.
    pub finished: bool,
    /// Its bookings, in order: memo and deal.
    pub bookings: Vec<(&'a str, Option<i32>)>,
    /// Their ids, drawn beforehand ([`draw_booking_ids`]) so that their links can be hashed.
    pub booking_ids: &'a [i64],
    /// Their postings: the booking's place in `bookings` (from 1), account, amount.
    pub postings: Vec<(i64, String, i64)>,
    /// The score-sheet lines it finished, in order.
    pub lines: &'a [Value],
    /// The state it leaves, when a snapshot is due.
    pub snapshot: Option<&'a S>,
    /// The `NOTIFY` channel and payload announcing it.
    pub announce: (&'a str, &'a str),
    /// The answer to keep under the request's idempotency key.
    pub answer: Option<(&'a str, &'a StoredResponse)>,
    /// The hash-chain links of the move and its bookings, following the table's last link; empty
    /// when the caller links them afterwards. The move's own link is kept in its row.
    pub links: &'a [crate::chain::LinkRow],
    /// The table's tree with the links folded in, `(size, frontier)`, to keep with them; None
    /// leaves the kept one as it is (behind, to be caught up by whoever next needs a root).
    pub tree: Option<(i64, &'a [u8])>,
    /// When it is recorded: the rows it writes and the table's `updated_at` take this time.
    pub now: DateTime<Utc>,
    /// The webhook events it causes (a deal or the table finished), for the table's club's
    /// endpoints: written to the outbox in the same statement.
    pub events: &'a [crate::webhooks::Event],
    /// The table's club.
    pub club: Uuid,
    /// Leave the announcement and the webhook outbox rows out, for statements of the caller's
    /// own in the same transaction ([`super::webhooks::enqueue`], [`super::live::notify`]). On
    /// Citus the write runs on the worker that holds the table: a `NOTIFY` there reaches no
    /// replica (they listen on the coordinator), and the outbox is the coordinator's.
    pub apart: bool,
}

/// `n` booking ids, increasing, so that bookings get ids in the order the game settled them.
///
/// # Errors
/// On database failure.
pub async fn draw_booking_ids(conn: &mut PgConnection, n: usize) -> Result<Vec<i64>, StoreError> {
    if n == 0 {
        return Ok(Vec::new());
    }
    Ok(sqlx::query_scalar!(
        r#"select nextval(pg_get_serial_sequence('ledger_bookings', 'id')) as "id!" from generate_series(1, $1) order by 1"#,
        i32::try_from(n).unwrap_or(i32::MAX),
    )
    .fetch_all(conn)
    .await?)
}

/// Appends the move, books its bookings, links them into the hash chain, keeps the lines it
/// finished and the snapshot when one is due, counts the entry in the table's version,
/// announces it and keeps the idempotent answer: one round trip, and all of it only if the
/// table's version is still the one before the move (`write.new.seq - 1`) and its chain still
/// ends where the move's links follow (a verification or a scorer's join links without moving
/// the version). Returns None when it wrote nothing, else whether the caller must still announce
/// it (written `apart`, on a table some replica follows); outside a transaction the statement
/// is one by itself, so an optimistic move that lost a race writes nothing. The postings' balance
/// is checked at commit by the ledger's keys, which it fills ([`crate::ledger::Chained`]).
///
/// # Errors
/// On database failure.
pub async fn write_move<S: serde::Serialize + Sync>(
    conn: &mut PgConnection,
    table: TableKey,
    write: MoveWrite<'_, S>,
) -> Result<Option<bool>, StoreError> {
    use sqlx::types::Json;
    let (memos, deals): (Vec<&str>, Vec<Option<i32>>) = write.bookings.iter().copied().unzip();
    let mut places = Vec::with_capacity(write.postings.len());
    let mut accounts = Vec::with_capacity(write.postings.len());
    let mut amounts = Vec::with_capacity(write.postings.len());
    for (place, account, amount) in write.postings {
        places.push(place);
        accounts.push(account);
        amounts.push(amount);
    }
    // A place outside `bookings` is chained to no booking; the keys then refuse the posting.
    let chained = crate::ledger::Chained::new(
        write.bookings.len(),
        places
            .iter()
            .zip(&amounts)
            .map(|(place, amount)| (usize::try_from(*place - 1).unwrap_or(usize::MAX), *amount)),
    );
    let (key, answer) = match write.answer {
        Some((key, answer)) => (Some(key), Some(answer)),
        None => (None, None),
    };
    // Only the parts this move needs: the executor sets up every part of a plan, used or not.
    // Every insert waits on the version check (`up`), so a lost race inserts nothing. Each part
    // binds what it needs as it is written; a value more than one part names is bound once.
    let mut b = Binder::new();
    let (table_id, club_no, seq) = (b.bind(table.id), b.bind(table.club_no), b.bind(write.new.seq));
    let now = b.bind(write.now);
    let links = write.links;
    let link_pos = b.bind(links.iter().map(|l| l.pos).collect::<Vec<_>>());
    let link_entry = b.bind(links.iter().map(|l| l.entry.as_str()).collect::<Vec<_>>());
    let link_ref = b.bind(links.iter().map(|l| l.reference).collect::<Vec<_>>());
    let link_content = b.bind(links.iter().map(|l| l.content_hash.as_slice()).collect::<Vec<_>>());
    let link_hash = b.bind(links.iter().map(|l| l.hash.as_slice()).collect::<Vec<_>>());
    let link_version = b.bind(links.iter().map(|l| l.version).collect::<Vec<_>>());
    // The links as the parts that keep them read them.
    let stored_links = format!(
        "unnest({link_pos}::int8[], {link_entry}::text[], {link_ref}::int8[], {link_content}::bytea[], \
         {link_hash}::bytea[], {link_version}::int2[]) as l(pos, entry, ref, content_hash, hash, version)"
    );
    let mut sql = format!(
        "with up as (
             update game_tables set version = version + 1, finished = {finished}, updated_at = {now},
                 chain_head = coalesce({head}::bytea, chain_head),
                 tree_size = coalesce({tree_size}::int8, tree_size),
                 tree_frontier = coalesce({tree_frontier}::bytea, tree_frontier)
             where id = {table_id} and club_no = {club_no} and version = {seq} - 1
               and ({follows}::bytea is null or chain_head = {follows})
               and {not_final}
             returning id, club_no, followed_until),
         mv as (
             insert into moves (table_id, club_no, seq, entry, kind, seat, body, events,
                                recorded_by, recorded_by_organiser, recorded_by_scorer, recorded_at,
                                link_pos, link_version, link_content_hash, link_hash)
             select {table_id}, {club_no}, {seq}, 'move', {kind}, {seat}, {body}::json, {events}::json, {recorded_by}, {now},
                    l.pos, l.version, l.content_hash, l.hash
             from up left join (
                 select * from {stored_links}
                 where l.entry = 'move' and l.ref = {seq}) l on true)",
        finished = b.bind(write.finished),
        not_final = not_final("game_tables", &now.to_string()),
        head = b.bind(links.last().map(|l| l.hash.as_slice())),
        tree_size = b.bind(write.tree.map(|(size, _)| size)),
        tree_frontier = b.bind(write.tree.map(|(_, frontier)| frontier)),
        follows = b.bind(links.first().map(|l| l.prev_hash.as_slice())),
        kind = b.bind(write.new.kind),
        seat = b.bind(write.new.seat),
        body = b.bind(write.new.body.to_string()),
        events = b.bind(write.new.events),
        recorded_by = recorded_by_stored(&b.bind(write.new.recorded_by).to_string()),
    );
    if !write.bookings.is_empty() {
        let booking_ids = b.bind(write.booking_ids);
        sql.push_str(&format!(
            ",
         ids as (select id, place from unnest({booking_ids}::int8[]) with ordinality as i(id, place)),
         bk as (
             insert into ledger_bookings (id, table_id, club_no, move_seq, deal, memo, created_at, posting_count,
                                          link_pos, link_version, link_content_hash, link_hash)
             overriding system value
             select ids.id, {table_id}, {club_no}, {seq}, b.deal, b.memo, {now}, b.postings,
                    l.pos, l.version, l.content_hash, l.hash
             from unnest({memos}::text[], {deals}::int4[], {counts}::int4[]) with ordinality as b(memo, deal, postings, place)
             join ids using (place) cross join up
             left join (
                 select * from {stored_links}
                 where l.entry = 'booking') l on l.ref = ids.id
             order by ids.id),
         ps as (
             insert into ledger_postings (table_id, club_no, booking_id, account, amount, n, booking_postings, running)
             select {table_id}, {club_no}, ids.id, p.account, p.amount, p.n, p.cnt, p.running
             from unnest({places}::int8[], {accounts}::text[], {amounts}::int8[], {n}::int4[], {cnt}::int4[],
                         {running}::int8[])
                  as p(place, account, amount, n, cnt, running)
             join ids using (place) cross join up)",
            memos = b.bind(memos),
            deals = b.bind(deals),
            counts = b.bind(chained.counts),
            places = b.bind(places),
            accounts = b.bind(accounts),
            amounts = b.bind(amounts),
            n = b.bind(chained.n),
            cnt = b.bind(chained.booking_postings),
            running = b.bind(chained.running),
        ));
    }
    if let Some(state) = write.snapshot {
        sql.push_str(&format!(
            ",
         sn as (insert into snapshots (table_id, club_no, seq, state)
                select {table_id}, {club_no}, {seq}, {state}::jsonb from up)",
            state = b.bind(Json(state)),
        ));
    }
    // The move's own link is kept in its row (`mv`, see `store::chain`), its bookings' in theirs
    // (`bk`); any other in `chain_links`.
    if links.iter().any(|l| {
        !(l.entry == "move" && l.reference == write.new.seq
            || l.entry == "booking" && write.booking_ids.contains(&l.reference))
    }) {
        sql.push_str(&format!(
            ",
         ln as (
             insert into chain_links (table_id, club_no, pos, entry, ref, content_hash, prev_hash, hash, content_version)
             select {table_id}, {club_no}, l.* from unnest({link_pos}::int8[], {link_entry}::text[], {link_ref}::int8[],
                                        {link_content}::bytea[], {prev}::bytea[], {link_hash}::bytea[], {link_version}::int2[])
                 as l(pos, entry, ref, content_hash, prev_hash, hash, version) cross join up
             where not (l.entry = 'move' and l.ref = {seq})
               and not (l.entry = 'booking' and l.ref = any ({booking_ids}::int8[])))",
            prev = b.bind(links.iter().map(crate::chain::stored_prev_hash).collect::<Vec<_>>()),
            booking_ids = b.bind(write.booking_ids),
        ));
    }
    if let (Some(key), Some(answer)) = (key, answer) {
        sql.push_str(&format!(
            ",
         ik as (
             insert into idempotency_keys (table_id, club_no, key, request_hash, response_status, response_body)
             select {table_id}, {club_no}, {key}::text, {hash}::text, {status}::int2, {body}::json from up {REPLACE_EXPIRED})",
            key = b.bind(key),
            hash = b.bind(answer.request_hash.as_str()),
            status = b.bind(i16::try_from(answer.status).unwrap_or(200)),
            body = b.bind(answer.body.as_str()),
        ));
    }
    if !write.lines.is_empty() {
        sql.push_str(&format!(
            ",
         dl as (
             insert into deal_lines (table_id, club_no, seq, idx, line)
             select {table_id}, {club_no}, {seq}, (i - 1)::smallint, l::json
             from unnest({lines}::text[]) with ordinality as t(l, i) cross join up)",
            lines = b.bind(write.lines.iter().map(Value::to_string).collect::<Vec<_>>()),
        ));
    }
    if !write.events.is_empty() && !write.apart {
        let outbox = crate::webhooks::outbox_sql(&mut b, write.club, write.events, &now, Some("up"));
        sql.push_str(&format!(
            ",
         wh as ({outbox})"
        ));
    }
    // Announced only while some replica follows the table: the lease is read from the row this
    // statement updates, so a follower whose lease committed first always hears the move.
    if write.apart {
        sql.push_str(
            " select exists (select 1 from up) as written,
                 coalesce((select up.followed_until > now() from up), false) as followed",
        );
    } else {
        sql.push_str(&format!(
            " select exists (select 1 from up) as written, false as followed,
                 (select pg_notify({channel}, {payload}) from up where up.followed_until > now())",
            channel = b.bind(write.announce.0),
            payload = b.bind(write.announce.1),
        ));
    }
    let written = sqlx::query_with(&sql, b.into_arguments()?).fetch_one(conn).await?;
    let followed: bool = sqlx::Row::try_get(&written, 1)?;
    Ok(sqlx::Row::try_get::<bool, _>(&written, 0)?.then_some(followed))
}
