-- Distributable by club, the tenant (issue #27; deploy/README.md, "Past one PostgreSQL").
--
-- On Citus every relation that holds a table's rows is to be hash-distributed by the club the
-- table belongs to, so that a club's evening (its tables, logs, ledgers and chains) lives on one
-- worker. Citus needs the distribution column in every row, in every primary key and unique
-- constraint (a shard checks only its own rows), and in every foreign key between distributed
-- relations. A club's uuid would cost 16 bytes in each row and each index item of the log; its
-- number costs 4, mostly taken from alignment padding. So each club gets a number, and every
-- per-table relation carries the number of its table's club as `club_no`.
--
-- The previous release (0.1.0) does not write `club_no`: upgrading from it is not rolling
-- (tests/fixtures/previous-release/breaks.tsv), as it already was not.

alter table clubs add column number integer generated always as identity;
alter table clubs add constraint clubs_number_once unique (number);

alter table game_tables add column club_no integer;
update game_tables t set club_no = c.number from clubs c where c.id = t.club_id;
alter table game_tables alter column club_no set not null;
-- A club's number is its uuid's, for good: a table's rows are placed by it.
alter table clubs add constraint clubs_id_number unique (id, number);
alter table game_tables add constraint game_tables_club_number
    foreign key (club_id, club_no) references clubs (id, number);

-- The foreign keys among per-table relations go first: they hang on the keys rebuilt below.
alter table moves drop constraint moves_part_of_a_correction;
alter table moves drop constraint moves_table_id_fkey;
alter table snapshots drop constraint snapshots_table_id_fkey;
alter table idempotency_keys drop constraint idempotency_keys_table_id_fkey;
alter table ledger_bookings drop constraint ledger_bookings_reverses_fkey;
alter table ledger_bookings drop constraint ledger_bookings_table_id_fkey;
alter table ledger_postings drop constraint ledger_postings_booking_fkey;
alter table ledger_postings drop constraint ledger_postings_table_fkey;
alter table deal_lines drop constraint deal_lines_table_id_fkey;
alter table deal_lines drop constraint deal_lines_table_id_seq_fkey;
alter table chain_links drop constraint chain_links_table_id_fkey;
alter table scorers drop constraint scorers_table_id_fkey;
alter table superseded_moves drop constraint superseded_moves_table_id_correction_seq_fkey;
alter table superseded_moves drop constraint superseded_moves_table_id_seq_fkey;
alter table corrections drop constraint corrections_table_id_seq_fkey;
alter table verifications drop constraint verifications_table_id_fkey;

-- The number of the table's club, in every row it holds. The migration runs as the owner: the
-- append-only relations refuse updates to the application's role only.
alter table moves add column club_no integer;
alter table snapshots add column club_no integer;
alter table idempotency_keys add column club_no integer;
alter table ledger_bookings add column club_no integer;
alter table ledger_postings add column club_no integer;
alter table deal_lines add column club_no integer;
alter table chain_links add column club_no integer;
alter table scorers add column club_no integer;
alter table superseded_moves add column club_no integer;
alter table corrections add column club_no integer;
alter table verifications add column club_no integer;

update moves r set club_no = t.club_no from game_tables t where t.id = r.table_id;
update snapshots r set club_no = t.club_no from game_tables t where t.id = r.table_id;
update idempotency_keys r set club_no = t.club_no from game_tables t where t.id = r.table_id;
update ledger_bookings r set club_no = t.club_no from game_tables t where t.id = r.table_id;
update ledger_postings r set club_no = t.club_no from game_tables t where t.id = r.table_id;
update deal_lines r set club_no = t.club_no from game_tables t where t.id = r.table_id;
update chain_links r set club_no = t.club_no from game_tables t where t.id = r.table_id;
update scorers r set club_no = t.club_no from game_tables t where t.id = r.table_id;
update superseded_moves r set club_no = t.club_no from game_tables t where t.id = r.table_id;
update corrections r set club_no = t.club_no from game_tables t where t.id = r.table_id;
update verifications r set club_no = t.club_no from game_tables t where t.id = r.table_id;

alter table moves alter column club_no set not null;
alter table snapshots alter column club_no set not null;
alter table idempotency_keys alter column club_no set not null;
alter table ledger_bookings alter column club_no set not null;
alter table ledger_postings alter column club_no set not null;
alter table deal_lines alter column club_no set not null;
alter table chain_links alter column club_no set not null;
alter table scorers alter column club_no set not null;
alter table superseded_moves alter column club_no set not null;
alter table corrections alter column club_no set not null;
alter table verifications alter column club_no set not null;

-- Keys with the distribution column last, so that every lookup by a table's id (and position)
-- still finds its rows by the index's leading columns. A table id is a random uuid the service
-- draws: it is unique in practice, and a row's club number is its table's (the foreign keys).
alter table game_tables drop constraint game_tables_pkey;
alter table game_tables add constraint game_tables_pkey primary key (id, club_no);

alter table moves drop constraint moves_pkey;
alter table moves add constraint moves_pkey primary key (table_id, seq, club_no);
drop index moves_voided_once;
create unique index moves_voided_once on moves (table_id, voids_seq, club_no) where voids_seq is not null;

alter table snapshots drop constraint snapshots_pkey;
alter table snapshots add constraint snapshots_pkey primary key (table_id, seq, club_no);

alter table idempotency_keys drop constraint idempotency_keys_pkey;
alter table idempotency_keys add constraint idempotency_keys_pkey primary key (table_id, key, club_no);

alter table ledger_bookings drop constraint ledger_bookings_reversed_once;
alter table ledger_bookings drop constraint ledger_bookings_pkey;
alter table ledger_bookings add constraint ledger_bookings_pkey primary key (table_id, id, club_no);
-- Only a reversal names a booking: an index item for reversals alone (most bookings reverse none).
create unique index ledger_bookings_reversed_once on ledger_bookings (table_id, reverses, club_no)
    where reverses is not null;

alter table ledger_postings drop constraint ledger_postings_pkey;
alter table ledger_postings add constraint ledger_postings_pkey primary key (table_id, booking_id, account, club_no);

alter table deal_lines drop constraint deal_lines_pkey;
alter table deal_lines add constraint deal_lines_pkey primary key (table_id, seq, idx, club_no);

alter table chain_links drop constraint chain_links_entry_once;
alter table chain_links drop constraint chain_links_pkey;
alter table chain_links add constraint chain_links_pkey primary key (table_id, pos, club_no);
alter table chain_links add constraint chain_links_entry_once unique (table_id, entry, ref, club_no);

alter table scorers drop constraint scorers_number_once_per_table;
alter table scorers drop constraint scorers_pkey;
alter table scorers add constraint scorers_pkey primary key (table_id, id, club_no);
alter table scorers add constraint scorers_number_once_per_table unique (table_id, number, club_no);

alter table superseded_moves drop constraint superseded_moves_pkey;
alter table superseded_moves add constraint superseded_moves_pkey primary key (table_id, seq, correction_seq, club_no);

alter table corrections drop constraint corrections_pkey;
alter table corrections add constraint corrections_pkey primary key (table_id, seq, club_no);

alter table verifications drop constraint verifications_pkey;
alter table verifications add constraint verifications_pkey primary key (table_id, id, club_no);

-- The foreign keys again, each with the club's number beside the table's id.
alter table moves add constraint moves_table_fkey
    foreign key (table_id, club_no) references game_tables (id, club_no);
alter table moves add constraint moves_part_of_a_correction
    foreign key (table_id, part_of, club_no) references moves (table_id, seq, club_no) deferrable initially deferred;
alter table snapshots add constraint snapshots_table_fkey
    foreign key (table_id, club_no) references game_tables (id, club_no);
alter table idempotency_keys add constraint idempotency_keys_table_fkey
    foreign key (table_id, club_no) references game_tables (id, club_no);
alter table ledger_bookings add constraint ledger_bookings_table_fkey
    foreign key (table_id, club_no) references game_tables (id, club_no);
alter table ledger_bookings add constraint ledger_bookings_reverses_fkey
    foreign key (table_id, reverses, club_no) references ledger_bookings (table_id, id, club_no);
alter table ledger_postings add constraint ledger_postings_table_fkey
    foreign key (table_id, club_no) references game_tables (id, club_no);
alter table ledger_postings add constraint ledger_postings_booking_fkey
    foreign key (table_id, booking_id, club_no) references ledger_bookings (table_id, id, club_no);
alter table deal_lines add constraint deal_lines_table_fkey
    foreign key (table_id, club_no) references game_tables (id, club_no);
alter table deal_lines add constraint deal_lines_move_fkey
    foreign key (table_id, seq, club_no) references moves (table_id, seq, club_no);
alter table chain_links add constraint chain_links_table_fkey
    foreign key (table_id, club_no) references game_tables (id, club_no);
alter table scorers add constraint scorers_table_fkey
    foreign key (table_id, club_no) references game_tables (id, club_no);
alter table superseded_moves add constraint superseded_moves_move_fkey
    foreign key (table_id, seq, club_no) references moves (table_id, seq, club_no);
alter table superseded_moves add constraint superseded_moves_correction_fkey
    foreign key (table_id, correction_seq, club_no) references moves (table_id, seq, club_no);
alter table corrections add constraint corrections_move_fkey
    foreign key (table_id, seq, club_no) references moves (table_id, seq, club_no);
alter table verifications add constraint verifications_table_fkey
    foreign key (table_id, club_no) references game_tables (id, club_no);
