-- The hash chain's canonical content gets a version, so that what a link covers can grow without
-- breaking chains stored before (see src/service/chain.rs, `CONTENT_VERSION`).
--
-- Version 1: a log entry's stored fields (kind, seat, body, events, voids, who and when).
-- Version 2 adds what decides play order after a correction: the entry's `position` and
-- `part_of`, and for a correction entry the moves it supersedes and its own row (the events it
-- re-derived, the bookings it made). A link is recomputed with the content of its version, so
-- links written before this migration (version 1) still verify, and every link written after
-- it covers a corrected entry's place.
alter table chain_links add column content_version smallint not null default 1
    constraint chain_links_content_version_known check (content_version >= 1);
-- From now on: the version the code writes. The move path's one statement inserts its links
-- without naming the column, so this default is the version that statement hashes; a migration
-- that brings a new content version moves it on.
alter table chain_links alter column content_version set default 2;
