-- Phones cosign their table's checkpoints (issue #43). A phone that joined a table (a scorer)
-- registers one Ed25519 public key on first use; with it, it cosigns the checkpoints of the
-- table's Merkle tree it has seen grow consistently (C2SP tlog-cosignature, `cosignature/v1`).
-- A key, once registered, is the phone's for good, and a cosignature is kept as it came: both
-- are written once, never changed.
create table phone_keys (
    table_id      uuid not null,
    scorer_id     uuid not null,
    club_no       integer not null,
    public_key    bytea not null,
    registered_at timestamptz not null default now(),
    constraint phone_keys_pkey primary key (table_id, scorer_id, club_no),
    constraint phone_keys_scorer_fkey foreign key (table_id, scorer_id, club_no)
        references scorers (table_id, id, club_no),
    constraint phone_keys_public_key_length check (length(public_key) = 32)
);

create table cosignatures (
    table_id    uuid not null,
    club_no     integer not null,
    scorer_id   uuid not null,
    -- The checkpoint cosigned: the tree's size and root hash, as the service's tree had them.
    size        bigint not null,
    root_hash   bytea not null,
    -- The cosignature's own time (POSIX seconds, as signed) and its Ed25519 signature.
    signed_time bigint not null,
    signature   bytea not null,
    received_at timestamptz not null default now(),
    constraint cosignatures_pkey primary key (table_id, size, scorer_id, signed_time, club_no),
    constraint cosignatures_phone_key_fkey foreign key (table_id, scorer_id, club_no)
        references phone_keys (table_id, scorer_id, club_no),
    constraint cosignatures_size_positive check (size > 0),
    constraint cosignatures_root_hash_length check (length(root_hash) = 32),
    constraint cosignatures_signature_length check (length(signature) = 64),
    constraint cosignatures_time_positive check (signed_time >= 0)
);

revoke update, delete, truncate on phone_keys, cosignatures from tablekeeper_app, public;
