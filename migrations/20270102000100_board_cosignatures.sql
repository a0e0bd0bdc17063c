-- The session's boards cosign its tables' checkpoints too (issue #43): the big screen a club
-- puts up, opened with the session's share link or by a member, makes an Ed25519 key on first
-- use and registers it for the session; with it, it cosigns each table's checkpoints it has seen
-- grow consistently, as a phone cosigns its own table's. A board is known by its key (the same
-- key registered again is the same board); keys and cosignatures are written once, never changed.
create table board_keys (
    session_id    uuid not null references club_sessions (id),
    board_id      uuid not null,
    -- What the board called itself ("Board", "Room 2"), for the players reading who cosigned.
    name          text not null,
    public_key    bytea not null,
    registered_at timestamptz not null default now(),
    constraint board_keys_pkey primary key (session_id, board_id),
    constraint board_keys_public_key_unique unique (session_id, public_key),
    constraint board_keys_public_key_length check (length(public_key) = 32),
    constraint board_keys_name_length check (length(name) between 1 and 60)
);

create table board_cosignatures (
    table_id    uuid not null,
    club_no     integer not null,
    session_id  uuid not null,
    board_id    uuid not null,
    size        bigint not null,
    root_hash   bytea not null,
    signed_time bigint not null,
    signature   bytea not null,
    received_at timestamptz not null default now(),
    constraint board_cosignatures_pkey primary key (table_id, size, board_id, signed_time, club_no),
    constraint board_cosignatures_table_fkey foreign key (table_id, club_no)
        references game_tables (id, club_no),
    constraint board_cosignatures_board_fkey foreign key (session_id, board_id)
        references board_keys (session_id, board_id),
    constraint board_cosignatures_size_positive check (size > 0),
    constraint board_cosignatures_root_hash_length check (length(root_hash) = 32),
    constraint board_cosignatures_signature_length check (length(signature) = 64),
    constraint board_cosignatures_time_positive check (signed_time >= 0)
);

revoke update, delete, truncate on board_keys, board_cosignatures from tablekeeper_app, public;
