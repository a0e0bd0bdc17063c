-- A booking's postings sum to zero, enforced by keys rather than by the deferred constraint
-- trigger `ledger_booking_balances` (issue #27): Citus runs no triggers on shards, but keeps
-- checks, unique constraints and foreign keys between co-located relations on their distribution
-- column (every key here carries the club's number, migration 20261207000100).
--
-- Each posting carries its position `n` (1-based) in its booking, its booking's posting count
-- (`booking_postings`) and the running sum of the booking's amounts up to and including it
-- (`running`); each booking carries its posting count. Then, for a booking of count c:
--   * every posting has 1 <= n <= c (a check, and a foreign key to the booking's (id, count)),
--     and no two share an n (the primary key): at most c postings;
--   * the booking names its posting n = c with running = 0 (a deferred foreign key): it exists;
--   * every posting n > 1 names its predecessor n - 1 with running = its running - its amount
--     (a deferred foreign key), and posting 1's running is its amount (a check): so postings
--     1..c all exist, and the running sum of posting c is the sum of all c amounts.
-- Hence a committed booking has at least one posting, exactly c of them, summing to zero. The
-- foreign keys are deferred to the commit, as the trigger was: the writers insert a booking
-- before its postings.
--
-- The previous release's inserts do not fill the new columns, and they are required: upgrading
-- from it was not rolling already (tests/fixtures/previous-release/breaks.tsv).

drop trigger ledger_booking_balances on ledger_postings;
drop function ledger_booking_balances();

alter table ledger_bookings add column posting_count integer;
-- The running sum at a booking's last posting: what its foreign key to that posting names.
alter table ledger_bookings add column closing_sum bigint generated always as (0) stored;

alter table ledger_postings
    add column n integer,
    add column booking_postings integer,
    add column running bigint,
    -- The key of the posting before: none for the first (a null skips its foreign key).
    add column prev_n integer generated always as (nullif(n - 1, 0)) stored,
    add column prev_running bigint generated always as (running - amount) stored;

-- What is stored already: positions in account order (readers order postings by account, so
-- any order serves). The relations are append-only for the application's role only; this runs
-- as their owner.
update ledger_postings p
set n = x.n, booking_postings = x.c, running = x.running
from (select table_id, booking_id, account,
             row_number() over w as n,
             count(*) over (partition by table_id, booking_id) as c,
             sum(amount) over w as running
      from ledger_postings
      window w as (partition by table_id, booking_id order by account rows unbounded preceding)) x
where p.table_id = x.table_id and p.booking_id = x.booking_id and p.account = x.account;
update ledger_bookings b
set posting_count = x.c
from (select table_id, booking_id, count(*) as c from ledger_postings group by table_id, booking_id) x
where b.table_id = x.table_id and b.id = x.booking_id;

alter table ledger_bookings alter column posting_count set not null;
alter table ledger_postings
    alter column n set not null,
    alter column booking_postings set not null,
    alter column running set not null;

alter table ledger_bookings
    add constraint ledger_bookings_posting_count_check check (posting_count >= 1),
    add constraint ledger_bookings_posting_count_key unique (table_id, id, posting_count, club_no);
-- A posting is keyed by its position in its booking (two postings cannot share one), no longer by
-- its account: the ledger layer merges a booking's postings by account before it is written
-- (`ledger::Booking::new`), and the audit compares every booking's postings with the replay's.
-- One index fewer on the relation that takes most rows per booking.
alter table ledger_postings drop constraint ledger_postings_pkey;
alter table ledger_postings add constraint ledger_postings_pkey primary key (table_id, booking_id, n, club_no);
alter table ledger_postings
    add constraint ledger_postings_position_check check (n >= 1 and n <= booking_postings),
    add constraint ledger_postings_first_running_check check (n > 1 or running = amount),
    add constraint ledger_postings_running_key unique (table_id, booking_id, n, running, club_no),
    add constraint ledger_postings_booking_count_fkey foreign key (table_id, booking_id, booking_postings, club_no)
        references ledger_bookings (table_id, id, posting_count, club_no),
    add constraint ledger_postings_predecessor_fkey foreign key (table_id, booking_id, prev_n, prev_running, club_no)
        references ledger_postings (table_id, booking_id, n, running, club_no)
        deferrable initially deferred;
alter table ledger_bookings
    add constraint ledger_bookings_last_posting_fkey foreign key (table_id, id, posting_count, closing_sum, club_no)
        references ledger_postings (table_id, booking_id, n, running, club_no)
        deferrable initially deferred;
