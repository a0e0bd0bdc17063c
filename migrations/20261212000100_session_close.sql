-- Issue #42: a session closes, its club's correction window runs, then it is final. A session
-- without a row here is open, as every session stored before this migration is.
--
-- The club's correction window, in seconds (the API speaks ISO 8601 durations: PT30M). 0: a
-- session is final the moment it closes.
alter table clubs add column correction_window_secs integer not null default 1800;
alter table clubs add constraint clubs_correction_window_not_negative check (correction_window_secs >= 0);

-- Each close of a session, numbered from 1. The session is `closing` from `closed_at` and
-- `final` from `final_at` unless a reopening of this close follows; then it is open again and
-- a later close takes the next number. Written once, never changed.
create table session_closes (
    session_id  uuid not null,
    n           integer not null,
    closed_at   timestamptz not null,
    closed_by   uuid not null,
    final_at    timestamptz not null,
    -- Why it was closed with tables still being played (`force`); null when none were.
    forced      text,
    primary key (session_id, n),
    constraint session_closes_n_positive check (n > 0),
    constraint session_closes_window check (final_at >= closed_at),
    constraint session_closes_forced_reason check (forced is null or length(btrim(forced)) > 0)
);

-- A close reopened (owners only), with who, when and why: shown beside the result ever after.
create table session_reopenings (
    session_id  uuid not null,
    n           integer not null,
    reopened_at timestamptz not null,
    reopened_by uuid not null,
    reason      text not null,
    primary key (session_id, n),
    foreign key (session_id, n) references session_closes (session_id, n),
    constraint session_reopenings_reason_not_blank check (length(btrim(reason)) > 0)
);

-- The signed final checkpoint of a close: made once, when first needed after its window (at the
-- close when the window is 0), and kept, so that it is the same every time it is asked for.
-- `checkpoint` is the signed document (JSON) as handed out; `hash` SHA-256 of its canonical
-- form without the signature.
create table session_finals (
    session_id  uuid not null,
    n           integer not null,
    made_at     timestamptz not null,
    checkpoint  text not null,
    hash        bytea not null,
    primary key (session_id, n),
    foreign key (session_id, n) references session_closes (session_id, n)
);

revoke update, delete, truncate on session_closes, session_reopenings, session_finals from tablekeeper_app, public;

alter table webhooks drop constraint webhooks_events_known;
alter table webhooks add constraint webhooks_events_known check (
    cardinality(events) > 0
    and events <@ array['deal.finished', 'table.finished', 'deal.corrected', 'deal.disputed', 'session.settled',
                        'tournament.round_started', 'tournament.finished', 'session.closed', 'session.final']
);
