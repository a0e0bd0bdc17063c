-- Storage per log entry (issue #27): two things every move wrote and nothing needs.
--
-- `moves_voided_once` (only a void names a move) was a unique constraint over every entry, so its
-- index held a (table_id, null) item for each move that voids nothing: most of the log. A partial
-- unique index keeps the same rule, under the same name, with an item for each void only.
alter table moves drop constraint moves_voided_once;
create unique index moves_voided_once on moves (table_id, voids_seq) where voids_seq is not null;

-- A link's `prev_hash` is the `hash` of the link at `pos - 1`: links written from now on keep it
-- empty (the set-up's keeps its 32 zeros) and the store fills it in when it reads them
-- (src/store/chain.rs). Links stored before keep their 32 bytes, and are read as stored. Nothing
-- hashed changes. The previous release still writes 32 bytes, which this check allows, but it
-- reads a new link's `prev_hash` as stored: during a rolling upgrade its audit and bundles of a
-- table a new replica extended find the chain broken, until it is replaced (upgrading from 0.1.0
-- is not rolling anyway, tests/fixtures/previous-release/breaks.tsv). A later release may drop
-- the column once no binary reads it.
alter table chain_links drop constraint chain_links_prev_hash_check;
alter table chain_links add constraint chain_links_prev_hash_kept
    check (length(prev_hash) = 32 or (length(prev_hash) = 0 and pos > 0));
