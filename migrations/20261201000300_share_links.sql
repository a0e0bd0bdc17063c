-- Share links (issue #25): a session's reads for someone without an account, such as the big
-- screen or the players of the evening. The token is signed, not stored: it names the link by
-- id, and the link's row says whether it still stands (revoked, or past its expiry).

create table share_links (
    id         uuid primary key,
    session_id uuid not null references club_sessions (id),
    created_by uuid not null references users (id),
    label      text,
    created_at timestamptz not null default now(),
    expires_at timestamptz not null,
    revoked_at timestamptz,
    constraint share_links_expire_after_made check (expires_at > created_at)
);
create index share_links_session_idx on share_links (session_id, created_at desc);
