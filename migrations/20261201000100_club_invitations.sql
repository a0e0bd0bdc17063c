-- Invitations to a club (issue #25): a code that makes the account that sends it a member with
-- the role it names, until it expires or is withdrawn. A code may be used by several accounts
-- (a club hands one out to its viewers at once); who joined with it is on their member row.

create table club_invitations (
    code         text primary key,
    club_id      uuid not null references clubs (id),
    role         text not null,
    created_by   uuid not null references users (id),
    created_at   timestamptz not null default now(),
    expires_at   timestamptz not null,
    withdrawn_at timestamptz,
    constraint club_invitations_role_known check (role in ('organiser', 'treasurer', 'scorer', 'viewer'))
);
create index club_invitations_club_idx on club_invitations (club_id, created_at desc);

alter table club_members add column invitation text references club_invitations (code);
