-- Personal API tokens (issue #26): a signed-in user's long-lived bearer tokens for integrations,
-- each limited to one club and to some scopes, with an optional expiry. The secret is shown once,
-- when the token is made; only its SHA-256 is kept (the secret is 32 random bytes, so a fast
-- hash is enough), found by the token's public prefix and compared in constant time.
create table api_tokens (
    id           uuid primary key,
    user_id      uuid not null references users (id),
    club_id      uuid not null references clubs (id),
    name         text not null,
    -- The token's first characters after `tk_`: public, shown in lists, the lookup key.
    prefix       text not null,
    secret_hash  bytea not null,
    scopes       text[] not null,
    created_at   timestamptz not null default now(),
    last_used_at timestamptz,
    expires_at   timestamptz,
    revoked_at   timestamptz,
    constraint api_tokens_prefix_key unique (prefix),
    constraint api_tokens_name_length check (char_length(name) between 1 and 100),
    constraint api_tokens_known_scopes check (
        cardinality(scopes) > 0 and scopes <@ array['read', 'record', 'organise', 'treasury']::text[]),
    constraint api_tokens_expire_after_made check (expires_at is null or expires_at > created_at)
);
create index api_tokens_user_idx on api_tokens (user_id, created_at desc);
