-- Idempotency-Key on the requests that create something (issue #26): `POST /sessions` and
-- `POST /tables`. A table's moves keep their answers per table (`idempotency_keys`); a creation
-- has no table yet, so its answer is kept per caller and operation. A retry with the same key and
-- body gets this answer again instead of a second session; another body under the key is refused.
create table creation_keys (
    user_id         uuid not null references users (id),
    -- The operation id (`create_session`, `create_table`): one key may serve one of each.
    operation       text not null,
    key             text not null,
    request_hash    text not null,
    response_status smallint not null,
    -- The answer's JSON text, kept as written (as `idempotency_keys` since 20261129000000).
    response_body   json not null,
    created_at      timestamptz not null default now(),
    constraint creation_keys_pkey primary key (user_id, operation, key)
);
