//! Ledger rows: bookings and their postings, append-only (the application's role may not update
//! or delete them, and a deferred trigger refuses a booking whose postings do not sum to zero).

use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

use super::tables::TableKey;
use super::StoreError;
use crate::ledger::{Account, Balances, Booking, Chips, Posting};

/// A booking as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredBooking {
    pub id: i64,
    pub move_seq: i64,
    pub deal: Option<i32>,
    pub memo: String,
    pub reverses: Option<i64>,
    pub created_at: DateTime<Utc>,
    pub postings: Vec<Posting>,
}

/// Books `booking`, caused by move `move_seq` of the table, in the caller's transaction.
///
/// # Errors
/// On database failure.
pub async fn book(
    conn: &mut PgConnection,
    table: TableKey,
    move_seq: i64,
    deal: Option<i32>,
    booking: &Booking,
    reverses: Option<i64>,
) -> Result<i64, StoreError> {
    let id: i64 = sqlx::query_scalar(
        "insert into ledger_bookings (table_id, move_seq, deal, memo, reverses, club_no)
         values ($1, $2, $3, $4, $5, $6) returning id",
    )
    .bind(table.id)
    .bind(move_seq)
    .bind(deal)
    .bind(booking.memo())
    .bind(reverses)
    .bind(table.club_no)
    .fetch_one(&mut *conn)
    .await?;
    let accounts: Vec<String> = booking.postings().iter().map(|p| p.account.to_string()).collect();
    let amounts: Vec<i64> = booking.postings().iter().map(|p| p.amount.get()).collect();
    sqlx::query(
        "insert into ledger_postings (table_id, booking_id, account, amount, club_no)
         select $1, $2, p.*, $5 from unnest($3::text[], $4::bigint[]) as p",
    )
    .bind(table.id)
    .bind(id)
    .bind(&accounts)
    .bind(&amounts)
    .bind(table.club_no)
    .execute(conn)
    .await?;
    Ok(id)
}

#[derive(sqlx::FromRow)]
struct BookingRow {
    id: i64,
    move_seq: i64,
    deal: Option<i32>,
    memo: String,
    reverses: Option<i64>,
    created_at: DateTime<Utc>,
}

#[derive(sqlx::FromRow)]
struct PostingRow {
    booking_id: i64,
    account: String,
    amount: i64,
}

/// The table's bookings in order, optionally those of one deal.
///
/// # Errors
/// On database failure, or an account name that does not parse.
pub async fn bookings(
    conn: &mut PgConnection,
    table: Uuid,
    deal: Option<i32>,
) -> Result<Vec<StoredBooking>, StoreError> {
    bookings_where(conn, table, deal, 0).await
}

/// The table's bookings after booking `after`, in order.
///
/// # Errors
/// On database failure, or an account name that does not parse.
pub async fn bookings_after(
    conn: &mut PgConnection,
    table: Uuid,
    after: i64,
) -> Result<Vec<StoredBooking>, StoreError> {
    bookings_where(conn, table, None, after).await
}

// Bookings and postings are read as two range scans and merged here: a join probes the postings
// once per booking, which costs several times as much on a long table whose statistics lag.
async fn bookings_where(
    conn: &mut PgConnection,
    table: Uuid,
    deal: Option<i32>,
    after: i64,
) -> Result<Vec<StoredBooking>, StoreError> {
    let bookings = sqlx::query_as::<_, BookingRow>(
        "select b.id, b.move_seq, b.deal, b.memo, b.reverses, b.created_at from ledger_bookings b
         where b.table_id = $1 and ($2::integer is null or b.deal = $2) and b.id > $3
         order by b.id",
    )
    .bind(table)
    .bind(deal)
    .bind(after)
    .fetch_all(&mut *conn)
    .await?;
    let postings = sqlx::query_as::<_, PostingRow>(
        "select p.booking_id, p.account, p.amount from ledger_postings p
         where p.table_id = $1 and p.booking_id > $3
           and ($2::integer is null
                or p.booking_id in (select b.id from ledger_bookings b where b.table_id = $1 and b.deal = $2))
         order by p.booking_id",
    )
    .bind(table)
    .bind(deal)
    .bind(after)
    .fetch_all(conn)
    .await?;
    let mut postings = postings.into_iter().peekable();
    let mut out: Vec<StoredBooking> = Vec::with_capacity(bookings.len());
    for row in bookings {
        let mut booking = StoredBooking {
            id: row.id,
            move_seq: row.move_seq,
            deal: row.deal,
            memo: row.memo,
            reverses: row.reverses,
            created_at: row.created_at,
            postings: Vec::new(),
        };
        // Both are in booking order; a posting of no booking read cannot be (a foreign key).
        while let Some(p) = postings.next_if(|p| p.booking_id <= booking.id) {
            if p.booking_id == booking.id {
                booking.postings.push(Posting {
                    account: Account::parse(&p.account).map_err(StoreError::corrupt)?,
                    amount: Chips::new(p.amount),
                });
            }
        }
        // As the join read them: a booking is listed with its postings, and so not without.
        if !booking.postings.is_empty() {
            booking.postings.sort_by_key(|p| p.account);
            out.push(booking);
        }
    }
    Ok(out)
}

/// Balances per account over all of the table's bookings.
///
/// # Errors
/// On database failure.
pub async fn balances(conn: &mut PgConnection, table: Uuid) -> Result<Balances, StoreError> {
    let mut balances = Balances::default();
    for stored in bookings(conn, table, None).await? {
        balances.apply(&Booking::new(stored.memo, stored.postings)?);
    }
    Ok(balances)
}

/// Books the reversal of every booking move `move_seq` caused and that is still in force, as
/// caused by the void `void_seq`.
///
/// # Errors
/// On database failure.
pub async fn reverse_move(
    conn: &mut PgConnection,
    table: TableKey,
    move_seq: i64,
    void_seq: i64,
) -> Result<usize, StoreError> {
    let all = bookings(&mut *conn, table.id, None).await?;
    // A correction may have reversed some already (and re-booked them anew).
    let reversed: std::collections::HashSet<i64> = all.iter().filter_map(|b| b.reverses).collect();
    let caused: Vec<StoredBooking> = all
        .into_iter()
        .filter(|b| b.move_seq == move_seq && b.reverses.is_none() && !reversed.contains(&b.id))
        .collect();
    for original in &caused {
        let booking = Booking::new(original.memo.clone(), original.postings.clone())?.reversal();
        book(&mut *conn, table, void_seq, original.deal, &booking, Some(original.id)).await?;
    }
    Ok(caused.len())
}

/// A booking to write with others at once.
pub struct NewBooking {
    pub move_seq: i64,
    pub deal: Option<i32>,
    pub booking: Booking,
    pub reverses: Option<i64>,
}

/// Books many bookings in three statements, in order (ids ascending); their ids.
///
/// # Errors
/// On database failure.
pub async fn book_many(conn: &mut PgConnection, table: TableKey, new: &[NewBooking]) -> Result<Vec<i64>, StoreError> {
    if new.is_empty() {
        return Ok(Vec::new());
    }
    let n = i64::try_from(new.len()).unwrap_or(i64::MAX);
    let mut ids: Vec<i64> = sqlx::query_scalar(
        "select nextval(pg_get_serial_sequence('ledger_bookings', 'id')) from generate_series(1, $1)",
    )
    .bind(n)
    .fetch_all(&mut *conn)
    .await?;
    ids.sort_unstable();
    let seqs: Vec<i64> = new.iter().map(|b| b.move_seq).collect();
    let deals: Vec<Option<i32>> = new.iter().map(|b| b.deal).collect();
    let memos: Vec<&str> = new.iter().map(|b| b.booking.memo()).collect();
    let reverses: Vec<Option<i64>> = new.iter().map(|b| b.reverses).collect();
    sqlx::query(
        "insert into ledger_bookings (id, table_id, move_seq, deal, memo, reverses, club_no) overriding system value
         select t.id, $1, t.s, t.d, t.m, t.r, $7
         from unnest($2::bigint[], $3::bigint[], $4::integer[], $5::text[], $6::bigint[]) as t(id, s, d, m, r)",
    )
    .bind(table.id)
    .bind(&ids)
    .bind(&seqs)
    .bind(&deals)
    .bind(&memos)
    .bind(&reverses)
    .bind(table.club_no)
    .execute(&mut *conn)
    .await?;
    let (mut booking_ids, mut accounts, mut amounts) = (Vec::new(), Vec::new(), Vec::new());
    for (id, b) in ids.iter().zip(new) {
        for p in b.booking.postings() {
            booking_ids.push(*id);
            accounts.push(p.account.to_string());
            amounts.push(p.amount.get());
        }
    }
    sqlx::query(
        "insert into ledger_postings (table_id, booking_id, account, amount, club_no)
         select $1, p.*, $5 from unnest($2::bigint[], $3::text[], $4::bigint[]) as p",
    )
    .bind(table.id)
    .bind(&booking_ids)
    .bind(&accounts)
    .bind(&amounts)
    .bind(table.club_no)
    .execute(conn)
    .await?;
    Ok(ids)
}
