//! Ledger rows: bookings and their postings, append-only (the application's role may not update
//! or delete them). A booking's postings sum to zero by the relations' keys (migration
//! `20261207000200_booking_balance_by_keys`): each posting carries its position in its booking,
//! the booking's posting count and the running sum up to it, which every writer fills with
//! [`Chained`]; a booking that does not balance, has no posting or one too many cannot commit.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;

use super::StoreError;
use super::TableKey;
use tablekeeper_ledger::{Account, Balances, Booking, Chips, Posting};

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

/// The columns that chain a booking's postings: per posting, in the order given, its position in
/// its booking (from 1), its booking's posting count and the running sum of its booking's amounts
/// up to and including it; and per booking, its posting count.
///
/// A booking's credits take the first positions and its debits the rest, each in the order given:
/// the running sum then rises and falls back, reaching 0 at the last posting only, as the keys
/// require (migration `20261208000100`: no posting follows one whose running sum is 0). Readers
/// order a booking's postings by account, not by position.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Chained {
    pub n: Vec<i32>,
    pub booking_postings: Vec<i32>,
    pub running: Vec<i64>,
    /// Each booking's posting count, by the booking's index (from 0) in `postings`' numbering.
    pub counts: Vec<i32>,
}

impl Chained {
    /// Chains postings given in order as (booking index from 0, amount), for `bookings` bookings.
    /// An index out of range is counted nowhere, and the database refuses its posting.
    pub fn new(bookings: usize, postings: impl IntoIterator<Item = (usize, i64)> + Clone) -> Chained {
        let mut counts = vec![0i32; bookings];
        let mut credits = vec![0i32; bookings];
        for (b, amount) in postings.clone() {
            if let Some(c) = counts.get_mut(b) {
                *c = c.saturating_add(1);
            }
            if let Some(c) = credits.get_mut(b).filter(|_| amount > 0) {
                *c = c.saturating_add(1);
            }
        }
        // Per booking: the positions taken by its credits and by its debits so far.
        let mut taken = vec![(0i32, 0i32); bookings];
        let mut out = Chained::default();
        let mut placed = Vec::new();
        for (i, (b, amount)) in postings.clone().into_iter().enumerate() {
            let n = match (taken.get_mut(b), credits.get(b)) {
                (Some(t), Some(_)) if amount > 0 => {
                    t.0 = t.0.saturating_add(1);
                    t.0
                }
                (Some(t), Some(c)) => {
                    t.1 = t.1.saturating_add(1);
                    c.saturating_add(t.1)
                }
                _ => 0,
            };
            out.n.push(n);
            out.booking_postings.push(counts.get(b).copied().unwrap_or(0));
            placed.push((b, n, i, amount));
        }
        // Running sums in position order. Past i64 the sum cannot balance anyway: saturating
        // leaves the refusal to the keys.
        placed.sort_unstable_by_key(|&(b, n, i, _)| (b, n, i));
        out.running = vec![0; placed.len()];
        let mut sum = (usize::MAX, 0i64);
        for (b, n, i, amount) in placed {
            sum = if n == 0 {
                (usize::MAX, amount)
            } else if sum.0 == b {
                (b, sum.1.saturating_add(amount))
            } else {
                (b, amount)
            };
            if let Some(r) = out.running.get_mut(i) {
                *r = sum.1;
            }
        }
        out.counts = counts;
        out
    }
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
    let accounts: Vec<String> = booking.postings().iter().map(|p| p.account.to_string()).collect();
    let amounts: Vec<i64> = booking.postings().iter().map(|p| p.amount.get()).collect();
    let chained = Chained::new(1, amounts.iter().map(|a| (0, *a)));
    let id: i64 = sqlx::query_scalar!(
        "insert into ledger_bookings (table_id, move_seq, deal, memo, reverses, posting_count, club_no)
         values ($1, $2, $3, $4, $5, $6, $7) returning id",
        table.id,
        move_seq,
        deal,
        booking.memo(),
        reverses,
        chained.counts.first().copied().unwrap_or(0),
        table.club_no,
    )
    .fetch_one(&mut *conn)
    .await?;
    sqlx::query!(
        "insert into ledger_postings (table_id, booking_id, account, amount, n, booking_postings, running, club_no)
         select $1, $2, p.*, $8 from unnest($3::text[], $4::bigint[], $5::int4[], $6::int4[], $7::bigint[]) as p",
        table.id,
        id,
        &accounts,
        &amounts,
        &chained.n,
        &chained.booking_postings,
        &chained.running,
        table.club_no,
    )
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
    table: TableKey,
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
    table: TableKey,
    after: i64,
) -> Result<Vec<StoredBooking>, StoreError> {
    bookings_where(conn, table, None, after).await
}

// Bookings and postings are read as two range scans and merged here: a join probes the postings
// once per booking, which costs several times as much on a long table whose statistics lag.
async fn bookings_where(
    conn: &mut PgConnection,
    table: TableKey,
    deal: Option<i32>,
    after: i64,
) -> Result<Vec<StoredBooking>, StoreError> {
    let bookings = sqlx::query_as!(
        BookingRow,
        "select b.id, b.move_seq, b.deal, b.memo, b.reverses, b.created_at from ledger_bookings b
         where b.table_id = $1 and b.club_no = $4 and ($2::integer is null or b.deal = $2) and b.id > $3
         order by b.id",
        table.id,
        deal,
        after,
        table.club_no,
    )
    .fetch_all(&mut *conn)
    .await?;
    let postings = sqlx::query_as!(
        PostingRow,
        "select p.booking_id, p.account, p.amount from ledger_postings p
         where p.table_id = $1 and p.club_no = $4 and p.booking_id > $3
           and ($2::integer is null
                or p.booking_id in (select b.id from ledger_bookings b
                                    where b.table_id = $1 and b.club_no = $4 and b.deal = $2))
         order by p.booking_id",
        table.id,
        deal,
        after,
        table.club_no,
    )
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
pub async fn balances(conn: &mut PgConnection, table: TableKey) -> Result<Balances, StoreError> {
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
    let all = bookings(&mut *conn, table, None).await?;
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
    let mut ids: Vec<i64> = sqlx::query_scalar!(
        r#"select nextval(pg_get_serial_sequence('ledger_bookings', 'id')) as "id!" from generate_series(1, $1)"#,
        // Sent as a bigint, as the statement was written for: generate_series(bigint, bigint).
        n as _,
    )
    .fetch_all(&mut *conn)
    .await?;
    ids.sort_unstable();
    let seqs: Vec<i64> = new.iter().map(|b| b.move_seq).collect();
    let deals: Vec<Option<i32>> = new.iter().map(|b| b.deal).collect();
    let memos: Vec<&str> = new.iter().map(|b| b.booking.memo()).collect();
    let reverses: Vec<Option<i64>> = new.iter().map(|b| b.reverses).collect();
    let (mut booking_ids, mut accounts, mut amounts, mut places) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (place, (id, b)) in ids.iter().zip(new).enumerate() {
        for p in b.booking.postings() {
            booking_ids.push(*id);
            accounts.push(p.account.to_string());
            amounts.push(p.amount.get());
            places.push(place);
        }
    }
    let chained = Chained::new(new.len(), places.iter().copied().zip(amounts.iter().copied()));
    sqlx::query!(
        "insert into ledger_bookings (id, table_id, move_seq, deal, memo, reverses, posting_count, club_no)
         overriding system value
         select t.id, $1, t.s, t.d, t.m, t.r, t.c, $8
         from unnest($2::bigint[], $3::bigint[], $4::integer[], $5::text[], $6::bigint[], $7::int4[])
              as t(id, s, d, m, r, c)",
        table.id,
        &ids,
        &seqs,
        &deals as _,
        &memos as _,
        &reverses as _,
        &chained.counts,
        table.club_no,
    )
    .execute(&mut *conn)
    .await?;
    sqlx::query!(
        "insert into ledger_postings (table_id, booking_id, account, amount, n, booking_postings, running, club_no)
         select $1, p.*, $8 from unnest($2::bigint[], $3::text[], $4::bigint[], $5::int4[], $6::int4[], $7::bigint[]) as p",
        table.id,
        &booking_ids,
        &accounts,
        &amounts,
        &chained.n,
        &chained.booking_postings,
        &chained.running,
        table.club_no,
    )
    .execute(conn)
    .await?;
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::Chained;

    #[test]
    fn postings_are_numbered_credits_first_and_summed_per_booking() {
        // Two bookings, their postings interleaved as a writer may list them.
        let chained = Chained::new(2, [(0, -5), (1, 7), (0, 2), (1, -7), (0, 3)]);
        assert_eq!(chained.n, [3, 1, 1, 2, 2]);
        assert_eq!(chained.booking_postings, [3, 2, 3, 2, 3]);
        assert_eq!(chained.running, [0, 7, 2, 0, 5]);
        assert_eq!(chained.counts, [3, 2]);
    }

    #[test]
    fn a_balanced_booking_sums_to_zero_at_its_last_position_only() {
        // In the order given its sum would be 0 after the second posting.
        let chained = Chained::new(1, [(0, 5), (0, -5), (0, 3), (0, -3)]);
        let mut by_position: Vec<(i32, i64)> = chained.n.iter().copied().zip(chained.running.iter().copied()).collect();
        by_position.sort_unstable();
        assert_eq!(by_position, [(1, 5), (2, 8), (3, 3), (4, 0)]);
    }

    #[test]
    fn a_posting_of_no_booking_is_chained_to_none() {
        let chained = Chained::new(1, [(0, -1), (4, 1)]);
        assert_eq!(chained.n, [1, 0]);
        assert_eq!(chained.booking_postings, [1, 0]);
        assert_eq!(chained.counts, [1]);
    }
}
