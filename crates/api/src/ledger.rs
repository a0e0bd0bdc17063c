//! The chip ledger of a table, for treasurers and auditors.

use actix_web::{get, web, HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use tablekeeper_service::PgPool;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::auth::{Reader, Reads};
use super::error::{ApiError, Problem};
use super::export::{self, Cell, Format, FormatQuery};
use super::reads::ReadPool;
use tablekeeper_ledger::{Balances, Chips};
use tablekeeper_service as service;

/// Chips into (positive) or out of (negative) one account.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct PostingView {
    /// `bank`, `seat:<n>`, `game_fund`, `widows_fund`, `reserve:<n>` or `pool:<name>`.
    #[schema(example = "seat:0")]
    pub account: String,
    pub amount: Chips,
}

/// A balanced set of postings and the move that caused it.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct BookingView {
    pub id: i64,
    /// The log entry that caused it (0: the table's opening).
    pub move_seq: i64,
    pub deal: Option<i32>,
    pub memo: String,
    /// The booking this one reverses (an undo).
    pub reverses: Option<i64>,
    pub created_at: DateTime<Utc>,
    pub postings: Vec<PostingView>,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct BalanceView {
    pub account: String,
    pub balance: Chips,
}

/// Bookings and balances; `total` over every account (the bank included) is always zero.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct TableLedger {
    pub table_id: Uuid,
    /// The table's version these bookings are as of (also the answer's `ETag`).
    pub version: i64,
    pub bookings: Vec<BookingView>,
    /// Over all bookings, whatever the deal filter.
    pub balances: Vec<BalanceView>,
    pub total: Chips,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct LedgerQuery {
    /// Only the bookings of this deal (1-based).
    pub deal: Option<i32>,
    /// Kept for links made before `get_table_ledger_csv`: `csv` answers CSV.
    #[param(ignore)]
    pub format: Option<Format>,
}

/// The table's chip ledger: every booking with the move that caused it, and the balances.
///
/// The same ledger as CSV is `get_table_ledger_csv` (`…/ledger.csv`). (`Accept: text/csv` or
/// `?format=csv` here still answer CSV, for links made before that operation existed.)
#[utoipa::path(tag = "tables", security(("bearer" = [])), params(("id" = Uuid, Path), LedgerQuery, ("If-None-Match" = Option<String>, Header, description = "the `ETag` of a copy the client holds")), responses(
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 200, description = "the ledger", body = TableLedger, headers(("ETag" = String, description = "the table's version, quoted"))),
    (status = 304, description = "not modified: `If-None-Match` names the current `ETag`"),
    (status = 404, description = "`table_not_found`: no such table, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tables/{id}/ledger")]
pub async fn get_table_ledger(
    pool: ReadPool,
    Reads(who): Reads,
    req: HttpRequest,
    id: web::Path<Uuid>,
    query: web::Query<LedgerQuery>,
) -> Result<HttpResponse, ApiError> {
    let csv = export::wants_csv(&req, query.format);
    table_ledger(&pool, who, &req, *id, query.deal, csv).await
}

/// Only the bookings of one deal, in the CSV download.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct LedgerCsvQuery {
    /// Only the bookings of this deal (1-based).
    pub deal: Option<i32>,
}

/// The table's chip ledger as CSV: one row per posting (booking, move, deal, memo, account,
/// amount), so a sheet can sum each account's column.
#[utoipa::path(tag = "tables", security(("bearer" = [])), params(("id" = Uuid, Path), LedgerCsvQuery), responses(
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 200, description = "a header row, then a row per posting", content((String = "text/csv", example = "booking,move_seq,deal,memo,reverses,created_at,account,amount\r\n1,7,1,pay the pot,,2026-11-27T20:15:00+00:00,seat:0,-5\r\n"))),
    (status = 404, description = "`table_not_found`: no such table, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tables/{id}/ledger.csv")]
pub async fn get_table_ledger_csv(
    pool: ReadPool,
    Reads(who): Reads,
    req: HttpRequest,
    id: web::Path<Uuid>,
    query: web::Query<LedgerCsvQuery>,
) -> Result<HttpResponse, ApiError> {
    table_ledger(&pool, who, &req, *id, query.deal, true).await
}

async fn table_ledger(
    pool: &PgPool,
    who: Reader,
    req: &HttpRequest,
    id: Uuid,
    deal: Option<i32>,
    csv: bool,
) -> Result<HttpResponse, ApiError> {
    tablekeeper_service::access::readable_table(pool, who, id).await?;
    let ledger = service::ledger::table_ledger(pool, id, deal).await?;
    if csv {
        let header = [
            "booking",
            "move_seq",
            "deal",
            "memo",
            "reverses",
            "created_at",
            "account",
            "amount",
        ]
        .map(String::from);
        let mut rows = Vec::new();
        for b in &ledger.bookings {
            for p in &b.postings {
                rows.push(vec![
                    Cell::int(b.id),
                    Cell::int(b.move_seq),
                    Cell::opt_int(b.deal.map(i64::from)),
                    Cell::text(b.memo.clone()),
                    Cell::opt_int(b.reverses),
                    Cell::text(b.created_at.to_rfc3339()),
                    Cell::text(p.account.to_string()),
                    Cell::int(p.amount.get()),
                ]);
            }
        }
        return export::respond(&format!("table-{}-ledger.csv", ledger.table.id), &header, &rows);
    }
    let bookings = ledger
        .bookings
        .into_iter()
        .map(|b| BookingView {
            id: b.id,
            move_seq: b.move_seq,
            deal: b.deal,
            memo: b.memo,
            reverses: b.reverses,
            created_at: b.created_at,
            postings: b
                .postings
                .into_iter()
                .map(|p| PostingView {
                    account: p.account.to_string(),
                    amount: p.amount,
                })
                .collect(),
        })
        .collect();
    let body = TableLedger {
        table_id: ledger.table.id,
        version: ledger.table.version,
        bookings,
        total: ledger.balances.total(),
        balances: balance_views(&ledger.balances),
    };
    Ok(super::conditional::respond(req, body.version, &body))
}

fn balance_views(balances: &Balances) -> Vec<BalanceView> {
    balances
        .iter()
        .map(|(a, c)| BalanceView {
            account: a.to_string(),
            balance: c,
        })
        .collect()
}

/// The result of replaying a table's whole log.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct AuditReport {
    pub table_id: Uuid,
    pub version: i64,
    /// True when everything below matches.
    pub consistent: bool,
    pub moves_replayed: usize,
    /// The state read through snapshots equals a replay from the first move.
    pub state_matches: bool,
    /// Each move's stored events equal the replay's.
    pub events_match: bool,
    /// The bookings in force (not reversed) are exactly those the replay produces.
    pub ledger_matches: bool,
    /// The hash chain recomputed from the set-up, the log and the ledger equals the links
    /// stored and ends at the table's head (true, with `chained` false, for a table stored
    /// before the chain that no entry has linked yet).
    pub chain_intact: bool,
    pub chained: bool,
    /// The head of the chain recomputed from the entries (hex SHA-256).
    pub chain_head: String,
    /// A sentence per discrepancy; a broken chain names the first entry that breaks it.
    pub problems: Vec<String>,
}

/// Audits the table: replays the whole move log through the engine from a fresh game and checks
/// the stored events, snapshots and ledger against it.
#[utoipa::path(tag = "tables", security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 200, body = AuditReport),
    (status = 404, description = "`table_not_found`: no such table, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
))]
#[get("/tables/{id}/audit")]
pub async fn audit_table(pool: ReadPool, Reads(who): Reads, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    tablekeeper_service::access::readable_table(&pool, who, *id).await?;
    let (row, audit) = service::audit::audit(&pool, *id).await?;
    Ok(HttpResponse::Ok().json(AuditReport {
        table_id: row.id,
        version: row.version,
        consistent: audit.problems.is_empty(),
        moves_replayed: audit.moves_replayed,
        state_matches: audit.state_matches,
        events_match: audit.events_match,
        ledger_matches: audit.ledger_matches,
        chain_intact: audit.chain_intact,
        chained: audit.chained,
        chain_head: audit.chain_head,
        problems: audit.problems,
    }))
}

/// One seat a player held: what it holds, what the bank issued to it, and the difference.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct PlayerSeatBalance {
    pub table_id: Uuid,
    pub seat: u8,
    /// The name as typed at that table.
    pub name: String,
    pub balance: Chips,
    /// What the bank issued to the seat when the table opened (its buy-in); stakes the opening
    /// put on the board or into a fund are not taken off it, as they are still the seat's chips.
    pub opening: Chips,
    /// Won (positive) or lost there: `balance` less `opening`.
    pub net: Chips,
}

/// A player's chips across the session's tables: a roster member, whatever the spelling of the
/// name at each table (as in the standings).
#[derive(Serialize, Deserialize, ToSchema)]
pub struct PlayerBalance {
    /// The roster member; null for a player of a table stored before the roster whose name
    /// matches no member.
    pub member_id: Option<Uuid>,
    /// The roster's name.
    #[schema(example = "Ann")]
    pub player: String,
    /// What the player's seats hold: the sum over `seats`.
    pub balance: Chips,
    /// What the bank issued to the seats (their buy-ins).
    pub opening: Chips,
    /// Won (positive) or lost over the session: `balance` less `opening`; the standings' `chips`.
    pub net: Chips,
    pub seats: Vec<PlayerSeatBalance>,
}

/// One account of a table within a session.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct SessionBalanceView {
    pub account: String,
    pub balance: Chips,
    /// What the bank issued to it when the table opened: a seat's buy-in, the bank's side of
    /// them (negative), 0 for a pool or fund (nothing is issued to it).
    pub opening: Chips,
    /// `balance` less `opening`; a pool's or fund's is what it holds. Over a table's accounts
    /// the nets sum to zero.
    pub net: Chips,
}

/// One table's balances within a session.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct SessionTableBalances {
    pub table_id: Uuid,
    pub game: String,
    pub balances: Vec<SessionBalanceView>,
    pub total: Chips,
}

/// Chips per player across a session's tables, and each table's accounts (funds, pools, bank).
/// `total` over every table's accounts is always zero. What a tournament's round, closing, moved
/// out of a table's pools (its `leftover` rule: to the table's seats or the bank) is counted
/// here, as in the standings and the settle-up, though the table's own ledger does not hold it.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct SessionLedger {
    pub session_id: Uuid,
    /// By roster member, in order of first seat; at tables that book chips to seats.
    pub players: Vec<PlayerBalance>,
    /// Oldest first.
    pub tables: Vec<SessionTableBalances>,
    pub total: Chips,
}

/// A session's chip ledger: each player's chips across its tables (what the seats hold, what
/// the bank issued to them, and the net won or lost, per roster member as in the standings), and every
/// table's accounts.
///
/// The same ledger as CSV is `get_session_ledger_csv` (`…/ledger.csv`). (`Accept: text/csv` or
/// `?format=csv` here still answer CSV, for links made before that operation existed.)
#[utoipa::path(tag = "sessions", security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 400, description = "`invalid_query`: an unknown query parameter, or a `format` (kept for links made before the CSV operation) that is not `json` or `csv`", body = Problem, content_type = "application/problem+json"),
    (status = 200, description = "the session's ledger", body = SessionLedger),
    (status = 404, description = "`session_not_found`: no such session, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
))]
#[get("/sessions/{id}/ledger")]
pub async fn get_session_ledger(
    pool: ReadPool,
    Reads(who): Reads,
    req: HttpRequest,
    id: web::Path<Uuid>,
    query: web::Query<FormatQuery>,
) -> Result<HttpResponse, ApiError> {
    session_ledger(&pool, who, *id, export::wants_csv(&req, query.format)).await
}

/// A session's chip ledger as CSV: one row per account of each of its tables (table, game,
/// account, player, balance, member, opening, net).
#[utoipa::path(tag = "sessions", security(("bearer" = [])), params(("id" = Uuid, Path)), responses(
    (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `scorer_revoked`, `share_link_revoked`, `share_link_expired`", body = Problem, content_type = "application/problem+json"),
    (status = 200, description = "a header row, then a row per account of each table", content((String = "text/csv", example = "table_id,game,account,player,balance,member_id,opening,net\r\n0b6f…,nomination-whist,seat:0,Ann,12,,0,12\r\n"))),
    (status = 404, description = "`session_not_found`: no such session, or the caller may not read it (another club's, another table's scorer, another session's share link)", body = Problem, content_type = "application/problem+json"),
))]
#[get("/sessions/{id}/ledger.csv")]
pub async fn get_session_ledger_csv(
    pool: ReadPool,
    Reads(who): Reads,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    session_ledger(&pool, who, *id, true).await
}

async fn session_ledger(pool: &PgPool, who: Reader, id: Uuid, csv: bool) -> Result<HttpResponse, ApiError> {
    tablekeeper_service::access::readable_session(pool, who, id).await?;
    let ledger = service::ledger::session_ledger(pool, id).await?;
    if csv {
        // Columns are only ever added at the end, so that a sheet reading them by place still works.
        let header = [
            "table_id",
            "game",
            "account",
            "player",
            "balance",
            "member_id",
            "opening",
            "net",
        ]
        .map(String::from);
        let mut rows = Vec::new();
        for part in &ledger.tables {
            for (account, balance) in part.balances.iter() {
                let seat = part.seat_of(account);
                let member = seat.and_then(|(seat, _)| {
                    ledger
                        .players
                        .iter()
                        .find(|p| p.seats.iter().any(|s| s.table == part.table.id && s.seat == seat))
                        .and_then(|p| p.identity.member())
                });
                let opening = part.opening.of(account);
                rows.push(vec![
                    Cell::text(part.table.id.to_string()),
                    Cell::text(part.table.game.clone()),
                    Cell::text(account.to_string()),
                    Cell::text(seat.map(|(_, name)| name.to_owned()).unwrap_or_default()),
                    Cell::int(balance.get()),
                    Cell::text(member.map(|m| m.to_string()).unwrap_or_default()),
                    Cell::int(opening.get()),
                    Cell::int((balance - opening).get()),
                ]);
            }
        }
        return export::respond(&format!("session-{}-ledger.csv", ledger.session.id), &header, &rows);
    }
    let players = ledger
        .players
        .iter()
        .map(|p| PlayerBalance {
            member_id: p.identity.member(),
            player: p.name.clone(),
            balance: p.balance(),
            opening: p.opening(),
            net: p.balance() - p.opening(),
            seats: p
                .seats
                .iter()
                .map(|s| PlayerSeatBalance {
                    table_id: s.table,
                    seat: s.seat,
                    name: s.name.clone(),
                    balance: s.balance,
                    opening: s.opening,
                    net: s.balance - s.opening,
                })
                .collect(),
        })
        .collect();
    let mut tables = Vec::new();
    let mut total = Chips::ZERO;
    for part in &ledger.tables {
        total += part.balances.total();
        tables.push(SessionTableBalances {
            table_id: part.table.id,
            game: part.table.game.clone(),
            total: part.balances.total(),
            balances: part
                .balances
                .iter()
                .map(|(account, balance)| {
                    let opening = part.opening.of(account);
                    SessionBalanceView {
                        account: account.to_string(),
                        balance,
                        opening,
                        net: balance - opening,
                    }
                })
                .collect(),
        });
    }
    Ok(HttpResponse::Ok().json(SessionLedger {
        session_id: ledger.session.id,
        players,
        tables,
        total,
    }))
}
