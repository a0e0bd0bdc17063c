-- Storage per log entry (issue #27): a move's link of the hash chain is kept in the move's own row.
--
-- A link in `chain_links` cost about 300 bytes an entry as played: a row of its own (header,
-- table id, entry kind, ref) and two index items, `(table_id, pos)` and `chain_links_entry_once`
-- `(table_id, entry, ref)`, whose leaves half fill as tables interleave. Kept beside the move it
-- covers, the link is four columns of the row that is written anyway (about 76 bytes), and it
-- needs no index: its entry and ref are the row's own (`move`, `seq`), and its position is found
-- from the row's place in the log (links follow seq order). A row holds one link, so an entry
-- linked in its row is linked once by construction, as `chain_links_entry_once` keeps for the
-- links that stay in `chain_links`.
--
-- Only the links a move writes with itself (`store::tables::write_move`, every move played) are
-- kept so. The table's set-up, bookings, scorers, verifications, voids, corrections and the links
-- of a table stored before the chain (linked afterwards, into rows that are append-only) stay in
-- `chain_links`; links stored before stay where they are. Readers take both
-- (`src/store/chain.rs`). Nothing hashed changes: the same link, the same content version and
-- the same two hashes, stored elsewhere; the row's `prev_hash` is filled in on reading as for a
-- link in `chain_links` since `20261204000100`.
--
-- Expand only: four nullable columns, null for every row stored before and for an entry linked in
-- `chain_links`. The checks are NOT VALID because no row stored before has a link to check (the
-- columns are new); they hold for every row written from now on. The previous release reads links
-- from `chain_links` only: during a rolling upgrade its audit and bundles of a table a new replica
-- extended miss the new links (the chain reads broken) and its moves on such a table find the
-- chain moved on and are refused (the head check), until it is replaced; upgrading from 0.1.0 is
-- not rolling anyway (tests/fixtures/previous-release/breaks.tsv).
alter table moves
    add column link_pos bigint,
    add column link_version smallint,
    add column link_content_hash bytea,
    add column link_hash bytea;

alter table moves add constraint moves_link_whole check (
    (link_pos is null) = (link_version is null)
    and (link_pos is null) = (link_content_hash is null)
    and (link_pos is null) = (link_hash is null)) not valid;
-- Position 0 is the table's set-up, which is never a move.
alter table moves add constraint moves_link_shape check (
    link_pos > 0 and link_version >= 1 and length(link_content_hash) = 32 and length(link_hash) = 32) not valid;

-- Who recorded a move, as an id (16 bytes) instead of the text `organiser:<id>` or `scorer:<id>`
-- (47 or 44 bytes). The store writes the id when the text reads back exactly from it
-- (`'organiser:' || id`, PostgreSQL's lower-case form, as the service writes it) and the text
-- otherwise (entries stored before keep theirs; voids and corrections, rare, still write it), and
-- reads `coalesce(recorded_by, 'organiser:' || recorded_by_organiser, 'scorer:' || recorded_by_scorer)`:
-- the same text, which is what the hash chain covers. Exactly one of the three is set.
--
-- The text column becomes nullable: the previous release reads it as not null, so its reads of
-- a log a new replica extended fail, until it is replaced (listed in
-- tests/fixtures/previous-release/breaks.tsv). Its inserts still name the text, which the check
-- allows.
alter table moves
    add column recorded_by_organiser uuid,
    add column recorded_by_scorer uuid;
alter table moves alter column recorded_by drop not null;
alter table moves add constraint moves_recorded_by_once
    check (num_nonnulls(recorded_by, recorded_by_organiser, recorded_by_scorer) = 1) not valid;
