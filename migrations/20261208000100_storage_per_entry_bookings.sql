-- Storage per log entry (issue #27): a booking's link of the hash chain is kept in the booking's
-- own row, as a move's is in its row since `20261207000300`.
--
-- On the mixed template a booking's link in `chain_links` cost about 520 bytes as played: a row of
-- its own (header, table id, club number, entry kind, ref, an empty `prev_hash`) and two index
-- items, `(table_id, pos, club_no)` and `chain_links_entry_once` `(table_id, entry, ref,
-- club_no)`, whose leaves half fill as tables interleave. In the booking's row it is four columns
-- (about 76 bytes) and needs no index: its entry and ref are the row's own (`booking`, `id`), and
-- a row holds one link, so a booking linked in its row is linked once by construction, as
-- `chain_links_entry_once` keeps it for the links that stay in `chain_links`.
--
-- Only the links of the bookings a move writes with itself (`store::move_path::write_move`, every
-- move played) are kept so; the bookings of voids and corrections (booked, then linked, into rows
-- that are append-only) and every link stored before stay in `chain_links`. Readers take every
-- place (`src/store/chain.rs`). Nothing hashed changes: the same link, content version and two
-- hashes, stored elsewhere; the row's `prev_hash` is filled in on reading, as for every link since
-- `20261204000100`.
--
-- Expand only: four nullable columns, null for every booking stored before and for one linked in
-- `chain_links`; the checks are NOT VALID because no row stored before has a link to check. The
-- columns follow the row's last 8-byte column, so they take no padding before them. The previous
-- release reads links from `chain_links` only: already it does not find the links kept in moves'
-- rows (tests/fixtures/previous-release/breaks.tsv), and now neither its bookings'.
alter table ledger_bookings
    add column link_pos bigint,
    add column link_version smallint,
    add column link_content_hash bytea,
    add column link_hash bytea;

alter table ledger_bookings add constraint ledger_bookings_link_whole check (
    (link_pos is null) = (link_version is null)
    and (link_pos is null) = (link_content_hash is null)
    and (link_pos is null) = (link_hash is null)) not valid;
-- Position 0 is the table's set-up, which is never a booking.
alter table ledger_bookings add constraint ledger_bookings_link_shape check (
    link_pos > 0 and link_version >= 1 and length(link_content_hash) = 32 and length(link_hash) = 32) not valid;

-- A booking's postings balance with one unique index on each relation fewer (issue #27).
--
-- Since `20261207000200` a posting names its booking's posting count through a foreign key to
-- `ledger_bookings_posting_count_key` `(table_id, id, posting_count, club_no)`, an index item for
-- every booking beside its primary key's, to bound its position: no posting past the booking's
-- last. The bound is kept instead by a check on the posting alone: no posting follows one whose
-- running sum is 0. For a booking of count c, the booking names its posting c with running sum 0
-- (`ledger_bookings_last_posting_fkey`); positions are unique (the primary key) and each posting
-- past the first names its predecessor with its running sum (`ledger_postings_predecessor_fkey`);
-- so a posting c + 1 would follow posting c, whose running sum is 0, and none past it can exist
-- without it. Together with `20261207000200`'s keys: exactly postings 1..c, summing to zero.
--
-- Writers place a booking's credits before its debits (`store::ledger::Chained`): every amount is
-- non-zero, so its running sum rises, then falls back to 0 at its last posting only. Postings
-- stored before are in account order, where a sum may reach 0 earlier: the check is NOT VALID,
-- for the rows written from now on. The previous release (0.1.0) writes no positions at all
-- (tests/fixtures/previous-release/breaks.tsv); a binary of this release from before this
-- migration numbers postings in account order, and its bookings whose sum is 0 before their last
-- posting are refused until it is replaced.
alter table ledger_postings add constraint ledger_postings_none_after_the_close
    check (n = 1 or prev_running <> 0) not valid;
alter table ledger_postings drop constraint ledger_postings_booking_count_fkey;
alter table ledger_bookings drop constraint ledger_bookings_posting_count_key;
