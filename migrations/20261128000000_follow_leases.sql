-- A move is announced (NOTIFY) only while some replica follows its table: PostgreSQL serialises
-- the commits of notifying transactions, so a table nobody watches should not pay for it.
-- A replica that follows a table (or a session, and so each of its tables) sets followed_until
-- ahead and renews it; a move reads it from the row it updates, so every move that commits after
-- a lease was taken is announced. Null: nobody has followed it.
alter table game_tables add column followed_until timestamptz;
alter table club_sessions add column followed_until timestamptz;
