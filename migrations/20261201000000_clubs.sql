-- Clubs (issue #25): the tenant. A club has members, with an account (a user and a role) or
-- without one (players the organiser adds, guests marked); sessions and tables belong to one.

create table clubs (
    id         uuid primary key,
    name       text not null,
    created_at timestamptz not null default now(),
    constraint clubs_name_not_blank check (length(btrim(name)) > 0)
);

-- A member who leaves keeps the row: chains, bundles and history name member ids. A member with
-- an account has a role; a player without one has none. Anonymising replaces the name.
create table club_members (
    id            uuid primary key,
    club_id       uuid not null references clubs (id),
    user_id       uuid references users (id),
    name          text not null,
    -- The name folded (lower case, white space collapsed), for finding a member by name.
    name_key      text not null,
    role          text,
    guest         boolean not null default false,
    created_at    timestamptz not null default now(),
    left_at       timestamptz,
    anonymised_at timestamptz,
    constraint club_members_in_club unique (club_id, id),
    constraint club_members_user_once unique (club_id, user_id),
    constraint club_members_role_known
        check (role in ('owner', 'organiser', 'treasurer', 'scorer', 'viewer')),
    constraint club_members_role_with_account check ((role is null) = (user_id is null))
);
create index club_members_user_idx on club_members (user_id) where user_id is not null;
create index club_members_name_idx on club_members (club_id, name_key);

alter table club_sessions add column club_id uuid references clubs (id);
alter table game_tables add column club_id uuid references clubs (id);

-- The session roster's entry for a club member. Sessions started with clubs enter members under
-- their club member id (club_member_id = id); rosters written before clubs keep their own ids,
-- which chains and bundles already name, and point to the club member here.
alter table session_members add column club_member_id uuid references club_members (id);

-- Every account had its own sessions and tables: each gets a club of its own, with the account
-- as its owner, and its sessions and tables move into it.
do $$
declare
    u record;
    club uuid;
begin
    for u in select id, name, created_at from users order by created_at, id loop
        club := gen_random_uuid();
        insert into clubs (id, name, created_at) values (club, u.name || '''s club', u.created_at);
        insert into club_members (id, club_id, user_id, name, name_key, role, created_at)
        values (gen_random_uuid(), club, u.id, u.name,
                lower(regexp_replace(btrim(u.name), '\s+', ' ', 'g')), 'owner', u.created_at);
        update club_sessions set club_id = club where owner_id = u.id;
        update game_tables set club_id = club where owner_id = u.id;
    end loop;
end $$;

-- A table in a session belongs to the session's club, whoever opened it.
update game_tables t set club_id = s.club_id
from club_sessions s where s.id = t.session_id and t.club_id is distinct from s.club_id;

-- Each name on the rosters of a club's sessions becomes one club member (the account of that
-- name when there is one), so Ann on Thursday is Ann the Thursday before.
insert into club_members (id, club_id, name, name_key, created_at)
select gen_random_uuid(), s.club_id, (array_agg(m.name order by m.created_at, m.id))[1], m.name_key,
       min(m.created_at)
from session_members m
join club_sessions s on s.id = m.session_id
where not exists (select 1 from club_members c where c.club_id = s.club_id and c.name_key = m.name_key)
group by s.club_id, m.name_key;

update session_members m set club_member_id = (
    select c.id from club_members c join club_sessions s on s.club_id = c.club_id
    where s.id = m.session_id and c.name_key = m.name_key
    order by c.created_at, c.id limit 1);

alter table club_sessions alter column club_id set not null;
alter table game_tables alter column club_id set not null;
alter table session_members alter column club_member_id set not null;
create index club_sessions_club_idx on club_sessions (club_id, created_at desc);
create index game_tables_club_idx on game_tables (club_id, created_at desc);
