-- Every per-table relation keyed by its table id first, so that each can be distributed by it
-- (Citus, see deploy/README.md): a move's transaction then stays on one node. The move log,
-- snapshots and idempotency keys were keyed so from the start; the ledger now follows.

-- Postings carry their table, filled in from their booking for what is stored already. The
-- append-only guard is lifted for this one backfill of a new column, nothing else is touched.
alter table ledger_postings add column table_id uuid;
alter table ledger_postings disable trigger ledger_postings_append_only;
update ledger_postings p set table_id = b.table_id from ledger_bookings b where b.id = p.booking_id;
alter table ledger_postings enable trigger ledger_postings_append_only;
alter table ledger_postings alter column table_id set not null;

alter table ledger_postings drop constraint ledger_postings_booking_id_fkey;
alter table ledger_postings drop constraint ledger_postings_pkey;
alter table ledger_bookings drop constraint ledger_bookings_reverses_fkey;
alter table ledger_bookings drop constraint ledger_bookings_reversed_once;
alter table ledger_bookings drop constraint ledger_bookings_pkey;

alter table ledger_bookings add constraint ledger_bookings_pkey primary key (table_id, id);
alter table ledger_bookings add constraint ledger_bookings_reversed_once unique (table_id, reverses);
alter table ledger_bookings add constraint ledger_bookings_reverses_fkey
    foreign key (table_id, reverses) references ledger_bookings (table_id, id);
alter table ledger_postings add constraint ledger_postings_pkey primary key (table_id, booking_id, account);
alter table ledger_postings add constraint ledger_postings_booking_fkey
    foreign key (table_id, booking_id) references ledger_bookings (table_id, id);
alter table ledger_postings add constraint ledger_postings_table_fkey
    foreign key (table_id) references game_tables (id);
drop index if exists ledger_bookings_table_idx;
