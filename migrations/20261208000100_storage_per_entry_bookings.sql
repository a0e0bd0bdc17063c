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
