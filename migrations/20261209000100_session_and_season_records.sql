-- Issue #39: everything that sets money, places or membership is under a hash chain. A table's
-- chain covers its set-up, log, ledger, scorers and verifications; what it read from elsewhere
-- (the session's chip value, date, club and the roster's link from a seat's member to the club
-- member; a season's settings, which with the sessions' dates and clubs decide the sessions it
-- counts) is chained here, a chain per session and per season (src/service/chain/record.rs).
--
-- Each link holds the record as it was linked (its content, canonical JSON written by the
-- service), so the history of legitimate changes (a chip value set again) stays checkable; the
-- audit checks the links follow each other and that the record as stored now is the last one
-- linked. A record's content is versioned like a table's (`content_version`).
create table record_links (
    subject         uuid not null,
    kind            text not null,
    pos             bigint not null,
    content_version smallint not null,
    content         text not null,
    content_hash    bytea not null,
    prev_hash       bytea not null,
    hash            bytea not null,
    linked_at       timestamptz not null default now(),
    primary key (subject, pos),
    constraint record_links_kind_known check (kind in ('session', 'season'))
);
create index record_links_kind_idx on record_links (kind, subject);
revoke update, delete, truncate on record_links from tablekeeper_app, public;

-- Sessions and seasons stored before are linked as they stand now: nobody can vouch for them
-- before this, and from now on a change outside the service is found. Session rows an earlier
-- release writes during a rolling upgrade are linked at their next change.
insert into record_links (subject, kind, pos, content_version, content, content_hash, prev_hash, hash)
select subject, kind, 0, 1, content,
       sha256(convert_to(content, 'UTF8')),
       decode(repeat('00', 32), 'hex'),
       sha256(decode(repeat('00', 32), 'hex') || sha256(convert_to(content, 'UTF8')))
from (
    select s.id as subject, 'session' as kind, jsonb_build_object(
        'session', s.id,
        'club', s.club_id,
        'created_at', s.created_at,
        'chip_value', s.chip_value,
        'currency', s.currency,
        'members', coalesce((select jsonb_agg(jsonb_build_object('id', m.id, 'club_member', m.club_member_id)
                                              order by m.id)
                             from session_members m where m.session_id = s.id), '[]'::jsonb)
    )::text as content
    from club_sessions s
    union all
    select z.id, 'season', jsonb_build_object(
        'season', z.id,
        'club', z.club_id,
        'name', z.name,
        'starts', z.starts,
        'ends', z.ends,
        'games', to_jsonb(z.games),
        'scoring', z.scoring,
        'league_points', to_jsonb(z.league_points),
        'created_at', z.created_at
    )::text
    from seasons z
) as records;
