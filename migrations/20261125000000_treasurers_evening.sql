-- Issue #14, the treasurer's evening: the hash chain, the session roster and the chip value.

-- The hash chain (issue #14): a table's set-up, every entry of its move log and every booking
-- of its ledger are linked in one chain. Link `pos` holds the SHA-256 of the entry's canonical
-- content (`content_hash`), the hash of the link before it (`prev_hash`, zeros for the set-up)
-- and the SHA-256 of the two (`hash`); the table's row keeps the last link's hash as its head.
-- The canonical content and the order of entries are defined in src/service/chain.rs, where
-- the audit and the offline verifier recompute them.
--
-- Links are append-only like the entries they cover. Tables stored before this migration have
-- no links and no head: their chain is computed from the set-up with their next recorded entry,
-- in that entry's transaction (until then the audit reports them as not chained yet).
create table chain_links (
    table_id     uuid not null references game_tables (id),
    pos          bigint not null check (pos >= 0),
    entry        text not null check (entry in ('table', 'move', 'booking')),
    ref          bigint not null,
    content_hash bytea not null check (length(content_hash) = 32),
    prev_hash    bytea not null check (length(prev_hash) = 32),
    hash         bytea not null check (length(hash) = 32),
    primary key (table_id, pos),
    constraint chain_links_entry_once unique (table_id, entry, ref)
);

create trigger chain_links_append_only before update or delete on chain_links
    for each row execute function refuse_change();
create trigger chain_links_no_truncate before truncate on chain_links
    for each statement execute function refuse_change();

alter table game_tables add column chain_head bytea check (length(chain_head) = 32);

-- A session's roster: the members who sit at its tables. A table's seats name members, so a
-- player is the same person at every table of the session however the name was typed. Tables
-- stored before the roster (or outside a session) have no members; they are matched by name.
create table session_members (
    session_id uuid not null references club_sessions (id),
    id         uuid not null,
    name       text not null,
    -- The name folded (lower case, white space collapsed): typing it again finds the member.
    name_key   text not null,
    created_at timestamptz not null default now(),
    primary key (session_id, id),
    constraint session_members_name_once unique (session_id, name_key)
);
alter table game_tables add column members uuid[];

-- What a chip is worth at this session, for settling up in money: integer minor units of an
-- ISO 4217 currency (both or neither).
alter table club_sessions add column chip_value bigint;
alter table club_sessions add column currency text;
alter table club_sessions add constraint club_sessions_chip_value_not_negative check (chip_value >= 0);
alter table club_sessions add constraint club_sessions_currency_code check (currency ~ '^[A-Z]{3}$');
alter table club_sessions add constraint club_sessions_chip_value_with_currency
    check ((chip_value is null) = (currency is null));

-- The Ed25519 seed that signs audit bundles when AUDIT_SIGNING_KEY is not configured: made once
-- by the first bundle and kept, so that its public key (GET /api/v1/audit-key) stays the same.
create table audit_signing_key (
    only_one   boolean primary key default true check (only_one),
    seed       bytea not null check (length(seed) = 32),
    created_at timestamptz not null default now()
);
