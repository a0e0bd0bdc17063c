-- A table's row is updated by every move (its version, chain head and time) and, while someone
-- follows it, by each lease renewal (`followed_until`, every third of LIVE_LEASE_SECS for every
-- followed table). None of those columns is indexed, so each update can be HOT (a new version of
-- the row on the same page, no new entries in the table's four indexes, the old version pruned
-- in place) — but only if the page has room. Packed full (the default fillfactor of 100), each
-- update moved the row to another page and wrote an entry into every index, which left the
-- indexes to grow with the number of updates rather than of tables (issue #27). Pages written
-- from now on keep 30 % free; existing pages get their room as their rows move once.
alter table game_tables set (fillfactor = 70);
alter table club_sessions set (fillfactor = 70);
