-- A deal flagged as beyond a player's usual (issue #42) reads the club's earlier tables at which
-- any of its members sat (`members && …`): an inverted index on the seated members finds them
-- without reading every table of the club's game.
create index game_tables_members on game_tables using gin (members);
