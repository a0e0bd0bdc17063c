-- Append-only by privilege, not by trigger (issue #27, the distributed plan in deploy/README.md).
--
-- Citus does not run a trigger created on a distributed table on its shards unless
-- `citus.enable_unsafe_triggers` is on, and then only per shard placement: the guard that kept the
-- log and the ledger append-only would silently stop guarding the rows that matter. Privileges are
-- checked on every node. The application's statements run as `tablekeeper_app` (a role with no
-- login: grant it to the role the service signs in with, see deploy/README.md), which may read and
-- insert the append-only relations but never update, delete or truncate them; the relations' owner
-- (the role that runs the migrations) keeps the right to change them, as it could drop the
-- triggers before.
--
-- Nothing stored changes. The deferred check that a booking's postings sum to zero stays for now
-- (a constraint trigger, which Citus does not support on a distributed table): it is the one
-- construct deploy/distribution.tsv names as still to be replaced before distributing.

-- Roles belong to the cluster, not the database: several databases of one cluster migrate at
-- once (the tests make one per test), so a role another made meanwhile is not an error.
do $$
begin
    if not exists (select 1 from pg_roles where rolname = 'tablekeeper_app') then
        create role tablekeeper_app nologin;
    end if;
exception when duplicate_object or unique_violation then
    null;
end
$$;

grant usage on schema public to tablekeeper_app;
grant select, insert, update, delete on all tables in schema public to tablekeeper_app;
grant usage, select on all sequences in schema public to tablekeeper_app;
-- Relations made by later migrations (run by the same owner) are the application's too; one
-- that is append-only revokes what it must, and deploy/distribution.tsv's test checks it did.
alter default privileges in schema public grant select, insert, update, delete on tables to tablekeeper_app;
alter default privileges in schema public grant usage, select on sequences to tablekeeper_app;

-- The move log, the ledger and what hangs off them: read and appended, never changed.
revoke update, delete, truncate on
    moves, superseded_moves, corrections, verifications, deal_lines, chain_links,
    ledger_bookings, ledger_postings
from tablekeeper_app, public;

drop trigger moves_append_only on moves;
drop trigger moves_no_truncate on moves;
drop trigger ledger_bookings_append_only on ledger_bookings;
drop trigger ledger_bookings_no_truncate on ledger_bookings;
drop trigger ledger_postings_append_only on ledger_postings;
drop trigger ledger_postings_no_truncate on ledger_postings;
drop trigger chain_links_append_only on chain_links;
drop trigger chain_links_no_truncate on chain_links;
drop trigger deal_lines_append_only on deal_lines;
drop trigger superseded_moves_append_only on superseded_moves;
drop trigger corrections_append_only on corrections;
drop trigger verifications_append_only on verifications;
drop function refuse_change();

-- A unique constraint on a distributed table must include its distribution column: a scorer's
-- number is unique within its table (chain links name a scorer by number within the table's
-- chain). The sequence still hands out numbers no other scorer has.
alter table scorers add constraint scorers_number_once_per_table unique (table_id, number);
alter table scorers drop constraint scorers_number_once;

-- A reference table (a copy on every node) cannot hold a foreign key to a distributed table. Join
-- codes are looked up by the code alone, so they are a reference table; the table a code opens is
-- one the service has just read when it makes the code, and tables are never deleted.
alter table join_codes drop constraint join_codes_table_id_fkey;
