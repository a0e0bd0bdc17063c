-- Each table keeps its Merkle tree as it grows (issue #43): the tree's size and its frontier,
-- the roots of its perfect subtrees, one 32-byte hash per set bit of the size, highest first
-- (tablekeeper_service::witness::frontier). A write that extends the chain then has the new
-- root with a few hashes, and its receipt carries the signed checkpoint of it.
--
-- Tables written before start at size 0, the empty tree: the first write or receipt that needs
-- a table's root reads the links after the stored size and folds them in (for these, all of
-- them, once), then keeps the result. A frontier whose bytes do not fit its size is built again
-- from the links, so a stale or damaged one never gives a wrong root.
alter table game_tables
    add column tree_size bigint not null default 0 check (tree_size >= 0),
    add column tree_frontier bytea not null default ''::bytea check (octet_length(tree_frontier) % 32 = 0);
