-- Webhooks (issue #26): a club's endpoints, and a transactional outbox of their deliveries.
--
-- The outbox holds one row per (event, endpoint), written in the same statement or transaction as
-- the entry that caused the event (the move that finishes a deal or a table, a correction, a
-- dispute). Fanning out at write time rather than at delivery makes each row one unit of work
-- with its own schedule, lease and outcome: a slow or dead endpoint never holds back another's,
-- the delivery worker claims rows from one table with `FOR UPDATE SKIP LOCKED`, and the set of
-- endpoints an event goes to is the one that stood when it happened. Clubs without a webhook
-- for an event write nothing.
create table webhooks (
    id         uuid primary key,
    club_id    uuid not null references clubs (id),
    url        text not null,
    events     text[] not null,
    -- `whsec_` + base64 of 32 random bytes (Standard Webhooks); shown once, at creation.
    secret     text not null,
    created_by uuid not null references users (id),
    created_at timestamptz not null default now(),
    constraint webhooks_url_http check (url ~ '^https?://'),
    constraint webhooks_events_known check (
        cardinality(events) > 0
        and events <@ array['deal.finished', 'table.finished', 'deal.corrected', 'deal.disputed', 'session.settled']
    )
);
create index webhooks_by_club on webhooks (club_id, created_at, id);

create table webhook_deliveries (
    -- Sent as `webhook-id`: the same on every attempt and redelivery.
    id              uuid primary key,
    webhook_id      uuid not null references webhooks (id) on delete cascade,
    event_type      text not null,
    -- The body exactly as signed and sent.
    body            text not null,
    created_at      timestamptz not null,
    -- pending: due at `next_attempt_at`; delivered: a 2xx came back; failed: retries ran out.
    state           text not null default 'pending',
    attempts        integer not null default 0,
    -- When a pending row is due; while a worker holds it, when its lease ends.
    next_attempt_at timestamptz not null,
    -- The claim of the worker holding it: only that claim may record the attempt's outcome.
    lease           uuid,
    delivered_at    timestamptz,
    constraint webhook_deliveries_state check (state in ('pending', 'delivered', 'failed'))
);
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where state = 'pending';
create index webhook_deliveries_by_webhook on webhook_deliveries (webhook_id, created_at desc, id);

create table webhook_attempts (
    delivery_id  uuid not null references webhook_deliveries (id) on delete cascade,
    attempt      integer not null,
    attempted_at timestamptz not null,
    -- The endpoint's status code; null when no answer came (refused, timed out).
    status       smallint,
    error        text,
    duration_ms  integer not null,
    constraint webhook_attempts_pkey primary key (delivery_id, attempt)
);
