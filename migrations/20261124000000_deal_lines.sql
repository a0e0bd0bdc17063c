-- Score-sheet lines as rows: history leaves the engine state (issue #10).
--
-- One row per deal a move finished (`idx` orders the lines of one move, which may finish more
-- than one). A line is in force while the move `seq` is not voided: an undo voids it through
-- the log, as it passes over a snapshot; nothing here is ever updated or deleted.
create table deal_lines (
    table_id uuid not null references game_tables (id),
    seq      bigint not null check (seq > 0),
    idx      smallint not null check (idx >= 0),
    line     jsonb not null,
    primary key (table_id, seq, idx),
    foreign key (table_id, seq) references moves (table_id, seq)
);

create trigger deal_lines_append_only before update or delete on deal_lines
    for each row execute function refuse_change();

-- Tables stored before this migration have moves but no line rows: their lines are still in
-- their old snapshots only. `deal_lines_kept` is false for them until the application layer
-- rebuilds their lines by replaying the log from the set-up (with the next move recorded there,
-- in that move's transaction; reads replay in memory until then). New tables keep their lines
-- from the first move.
alter table game_tables add column deal_lines_kept boolean not null default true;
update game_tables set deal_lines_kept = false where version > 0;
