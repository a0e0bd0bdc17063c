-- Leftover chips in a stops game's pools when a tournament's round closes (issue #41): where
-- they go is the tournament's `leftover` rule, `keep` (they stay in the table's pools, as before
-- this migration: every tournament stored before it keeps that rule), `share` (among the table's
-- players) or `bank`.
--
-- What a round's close moves is booked here, not in the table's own ledger: a table's ledger is
-- what its moves book (the audit and `tablekeeper verify` replay the log and compare the bookings
-- in force with the replay's), so a booking there that no move made would be named by every
-- audit. Each row is one transfer, out of one pool of the table into one account (a seat or the
-- bank): two postings, -amount and +amount, so every booking here sums to zero by its shape, and
-- a table's leftover booking is the set of its rows. Written once, never changed.
alter table tournaments add column leftover text not null default 'keep';
alter table tournaments add constraint tournaments_leftover_known check (leftover in ('keep', 'share', 'bank'));

create table tournament_leftovers (
    tournament_id uuid not null,
    round         integer not null,
    table_number  integer not null,
    -- In booking order, from 1.
    seq           integer not null,
    -- The table the chips were in (a round's table: tournament_seatings.table_id).
    table_id      uuid not null,
    -- The ledger account the chips leave (`pool:<name>`) and the one they go to (`seat:<n>`, `bank`).
    from_account  text not null,
    to_account    text not null,
    amount        bigint not null,
    primary key (tournament_id, round, table_number, seq),
    foreign key (tournament_id, round) references tournament_rounds (tournament_id, number),
    constraint tournament_leftovers_amount_positive check (amount > 0),
    constraint tournament_leftovers_from_pool check (from_account like 'pool:%'),
    constraint tournament_leftovers_to_known check (to_account = 'bank' or to_account like 'seat:%')
);
create index tournament_leftovers_table_idx on tournament_leftovers (table_id);

revoke update, delete, truncate on tournament_leftovers from tablekeeper_app, public;
