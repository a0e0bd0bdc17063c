-- Events (issue #41; a "tournament" in the API, since `/events` names the live streams). A
-- tournament belongs to a session and so to its club; it seats its rounds with the movement
-- engine (crates/movement) and opens each round's tables in the session as ordinary tables.
--
-- Like sessions and their rosters these are a club's small, session-wide rows: reference
-- relations on Citus (deploy/distribution.tsv). A seating names the table it opened by id alone:
-- `game_tables` is distributed by club, and a reference relation cannot hold a foreign key to it.
--
-- What sets places here (the set-up, the entrants, each round's seating, byes and results) is
-- covered by the session's record chain (record_links, record version 2): the service links the
-- session's record, tournaments included, in the transaction of every change.
create table tournaments (
    id                uuid primary key,
    session_id        uuid not null references club_sessions (id),
    club_id           uuid not null references clubs (id),
    name              text not null,
    game              text not null,
    -- The game's options as a table of it is opened with (complete: every default filled in).
    options           jsonb not null,
    -- The movement's set-up (tablekeeper_movement::Setup): format, seat range, rounds, entrants
    -- (numbers, see tournament_entrants), constraints and scoring. Remade when an entrant comes late.
    setup             jsonb not null,
    deals_per_round   integer,
    minutes_per_round integer,
    -- How a table that has not finished its deals when its round closes is scored.
    unfinished        text not null,
    created_at        timestamptz not null default now(),
    finished_at       timestamptz,
    constraint tournaments_name_not_blank check (length(btrim(name)) > 0),
    constraint tournaments_unfinished_known check (unfinished in ('as_played', 'average', 'void')),
    constraint tournaments_deals_positive check (deals_per_round is null or deals_per_round > 0),
    constraint tournaments_minutes_positive check (minutes_per_round is null or minutes_per_round > 0)
);
create index tournaments_session_idx on tournaments (session_id, created_at);

-- An entrant: a club member (guests are club members marked so) under the number the movement
-- knows them by, playing from `from_round` and, once withdrawn, up to `until_round` (the last
-- round they were in).
create table tournament_entrants (
    tournament_id  uuid not null references tournaments (id),
    entrant        integer not null,
    club_member_id uuid not null references club_members (id),
    from_round     integer not null,
    until_round    integer,
    primary key (tournament_id, entrant),
    constraint tournament_entrants_member_once unique (tournament_id, club_member_id),
    constraint tournament_entrants_entrant_positive check (entrant > 0),
    constraint tournament_entrants_rounds_in_order check (until_round is null or until_round >= from_round - 1)
);

-- A round: started when its tables were opened, closed when its results were taken.
create table tournament_rounds (
    tournament_id uuid not null references tournaments (id),
    number        integer not null,
    started_at    timestamptz not null default now(),
    closed_at     timestamptz,
    primary key (tournament_id, number),
    constraint tournament_rounds_number_positive check (number > 0)
);
-- At most one round of a tournament open at a time.
create unique index tournament_rounds_one_open on tournament_rounds (tournament_id) where closed_at is null;

-- Who sits where: a seat (from 1; seat 1 deals first) of a round's table, and the table opened.
create table tournament_seatings (
    tournament_id uuid not null,
    round         integer not null,
    table_number  integer not null,
    seat          integer not null,
    entrant       integer not null,
    table_id      uuid not null,
    primary key (tournament_id, round, table_number, seat),
    constraint tournament_seatings_entrant_once unique (tournament_id, round, entrant),
    foreign key (tournament_id, round) references tournament_rounds (tournament_id, number),
    foreign key (tournament_id, entrant) references tournament_entrants (tournament_id, entrant)
);

-- Who sits a round out, in the movement's order.
create table tournament_byes (
    tournament_id uuid not null,
    round         integer not null,
    pos           integer not null,
    entrant       integer not null,
    primary key (tournament_id, round, pos),
    constraint tournament_byes_entrant_once unique (tournament_id, round, entrant),
    foreign key (tournament_id, round) references tournament_rounds (tournament_id, number),
    foreign key (tournament_id, entrant) references tournament_entrants (tournament_id, entrant)
);

-- A closed round's result at one table: a score per seat (in seat order, higher is better: the
-- game's points, net chips or the table's scores for places), the deals it finished, and the
-- `unfinished` rule applied when it had not finished `deals_per_round` (null when it had).
create table tournament_results (
    tournament_id uuid not null,
    round         integer not null,
    table_number  integer not null,
    scores        bigint[] not null,
    deals_played  integer not null,
    ruled         text,
    primary key (tournament_id, round, table_number),
    foreign key (tournament_id, round) references tournament_rounds (tournament_id, number),
    constraint tournament_results_ruled_known check (ruled in ('as_played', 'average', 'void'))
);

-- Seatings, byes and results are written once, never changed.
revoke update, delete, truncate on tournament_seatings, tournament_byes, tournament_results
from tablekeeper_app, public;

-- Webhooks may ask for the tournaments' events.
alter table webhooks drop constraint webhooks_events_known;
alter table webhooks add constraint webhooks_events_known check (
    cardinality(events) > 0
    and events <@ array['deal.finished', 'table.finished', 'deal.corrected', 'deal.disputed', 'session.settled',
                        'tournament.round_started', 'tournament.finished']
);
