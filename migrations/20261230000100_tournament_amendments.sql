-- A closed round's result amended (issue #42): a director's ruling or a scorer's correction of a
-- deal the round counted, made after the round closed, moves that table's result by what it moved
-- the table's scores. The result as closed is kept (tournament_results is written once); each
-- amendment is a row here, the table's scores per seat after it, with the entry of the table's log
-- that made it. The latest amendment is the result in force. Written once, never changed.
create table tournament_result_amendments (
    tournament_id uuid not null,
    round         integer not null,
    table_number  integer not null,
    -- In order, from 1.
    seq           integer not null,
    scores        bigint[] not null,
    -- The table and the entry of its log (a ruling's or a correction's) that moved the result.
    table_id      uuid not null,
    table_seq     bigint not null,
    made_at       timestamptz not null default now(),
    primary key (tournament_id, round, table_number, seq),
    foreign key (tournament_id, round, table_number)
        references tournament_results (tournament_id, round, table_number),
    constraint tournament_result_amendments_seq_positive check (seq > 0)
);

revoke update, delete, truncate on tournament_result_amendments from tablekeeper_app, public;

-- A ruling or a correction finds the round that counted its table by the table.
create index tournament_seatings_table_idx on tournament_seatings (table_id);
