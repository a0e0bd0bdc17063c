-- tablekeeper: users, sessions, tables, the move log, snapshots, idempotency, join codes
-- and the double-entry chip ledger.

create table users (
    id            uuid primary key,
    email         text not null,
    name          text not null,
    password_hash text not null,
    created_at    timestamptz not null default now(),
    constraint users_email_key unique (email),
    constraint users_email_lowercase check (email = lower(email))
);

create table club_sessions (
    id         uuid primary key,
    owner_id   uuid not null references users (id),
    name       text not null,
    created_at timestamptz not null default now()
);
create index club_sessions_owner_idx on club_sessions (owner_id, created_at desc);

create table game_tables (
    id         uuid primary key,
    owner_id   uuid not null references users (id),
    session_id uuid references club_sessions (id),
    game       text not null,
    players    text[] not null,
    options    jsonb not null,
    -- One more for every entry in the move log (moves and voids): the optimistic-concurrency guard.
    version    bigint not null default 0 check (version >= 0),
    finished   boolean not null default false,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
);
create index game_tables_session_idx on game_tables (session_id, created_at);
create index game_tables_owner_idx on game_tables (owner_id, created_at desc);

-- The move log, the source of truth. Append-only: an undo is a `void` entry naming the move it voids.
create table moves (
    table_id    uuid not null references game_tables (id),
    seq         bigint not null check (seq > 0),
    entry       text not null check (entry in ('move', 'void')),
    kind        text not null,
    seat        smallint,
    body        jsonb not null,
    events      jsonb not null,
    voids_seq   bigint,
    recorded_by text not null,
    recorded_at timestamptz not null default now(),
    primary key (table_id, seq),
    constraint moves_void_names_a_move check ((entry = 'void') = (voids_seq is not null)),
    constraint moves_voided_once unique (table_id, voids_seq)
);

-- Engine state after move `seq` (0 = the new table), kept at deal boundaries so that a move is
-- checked against a bounded replay. Derived data: always reproducible from the log.
create table snapshots (
    table_id uuid not null references game_tables (id),
    seq      bigint not null check (seq >= 0),
    state    jsonb not null,
    primary key (table_id, seq)
);

create table idempotency_keys (
    table_id        uuid not null references game_tables (id),
    key             text not null,
    request_hash    text not null,
    response_status smallint not null,
    response_body   jsonb not null,
    created_at      timestamptz not null default now(),
    primary key (table_id, key)
);

create table join_codes (
    code       text primary key,
    table_id   uuid not null references game_tables (id),
    created_by uuid not null references users (id),
    expires_at timestamptz not null,
    created_at timestamptz not null default now()
);

-- The chip ledger: a booking is a set of postings summing to zero, written in the transaction of the
-- move that caused it. Rows are never updated or deleted; a correction is a reversing booking.
create table ledger_bookings (
    id         bigint generated always as identity primary key,
    table_id   uuid not null references game_tables (id),
    move_seq   bigint not null,
    deal       integer,
    memo       text not null,
    reverses   bigint references ledger_bookings (id),
    created_at timestamptz not null default now(),
    constraint ledger_bookings_reversed_once unique (reverses)
);
create index ledger_bookings_table_idx on ledger_bookings (table_id, id);

create table ledger_postings (
    booking_id bigint not null references ledger_bookings (id),
    account    text not null,
    amount     bigint not null check (amount <> 0),
    primary key (booking_id, account)
);

create function ledger_booking_balances() returns trigger language plpgsql as $$
declare
    total numeric;
begin
    select coalesce(sum(amount), 0) into total from ledger_postings where booking_id = new.booking_id;
    if total <> 0 then
        raise exception 'booking % does not balance: postings sum to %', new.booking_id, total
            using errcode = '23514', constraint = 'ledger_booking_balances';
    end if;
    return null;
end
$$;

-- Deferred, so a booking's postings can be inserted one by one within the transaction.
create constraint trigger ledger_booking_balances
    after insert on ledger_postings
    deferrable initially deferred
    for each row execute function ledger_booking_balances();

create function refuse_change() returns trigger language plpgsql as $$
begin
    raise exception '% is append-only: % refused', tg_table_name, tg_op
        using errcode = '42501';
end
$$;

create trigger ledger_bookings_append_only before update or delete on ledger_bookings
    for each row execute function refuse_change();
create trigger ledger_postings_append_only before update or delete on ledger_postings
    for each row execute function refuse_change();
create trigger moves_append_only before update or delete on moves
    for each row execute function refuse_change();
create trigger ledger_bookings_no_truncate before truncate on ledger_bookings
    for each statement execute function refuse_change();
create trigger ledger_postings_no_truncate before truncate on ledger_postings
    for each statement execute function refuse_change();
create trigger moves_no_truncate before truncate on moves
    for each statement execute function refuse_change();
