-- Revocation that sticks (issue #24): join codes can be withdrawn, a revoked scorer's code stops
-- opening the table, and organisers can sign out one token or all of them.

-- A withdrawn code opens nothing, however long it had to run; the row stays so that the
-- organiser's list says when it was withdrawn.
alter table join_codes add column withdrawn_at timestamptz;

-- The code a scorer joined with, so that revoking the scorer withdraws it: otherwise the phone
-- would rejoin at once with the code it still holds. Null for scorers who joined before this.
alter table scorers add column join_code text references join_codes (code);

-- Signing out everywhere (and a password change or reset) bumps the user's generation: a token
-- names the generation it was issued in and is refused once the user's has moved on. Tokens
-- issued before this carry none and count as generation 0, the default, so they keep working
-- until their user's first sign-out-everywhere.
alter table users add column token_generation integer not null default 0;

-- Tokens signed out one by one, by their id (`jti`), until they would have expired anyway.
create table revoked_tokens (
    jti        uuid primary key,
    user_id    uuid not null references users (id),
    expires_at timestamptz not null,
    revoked_at timestamptz not null default now()
);
create index revoked_tokens_expiry_idx on revoked_tokens (expires_at);
