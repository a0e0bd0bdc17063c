-- Seasons (issue #25): a club's league over a span of dates. A season's sessions are the club's
-- sessions started within [starts, ends] (UTC dates); only its games' tables count.

create table seasons (
    id            uuid primary key,
    club_id       uuid not null references clubs (id),
    name          text not null,
    starts        date not null,
    ends          date not null,
    -- Game ids (the catalogue's), at least one.
    games         text[] not null,
    -- How members are ranked: league points by place per table, or the sum of points or of net chips.
    scoring       text not null,
    -- League points for first, second, … place at a table; only with league-points scoring.
    league_points integer[],
    created_at    timestamptz not null default now(),
    constraint seasons_name_not_blank check (length(btrim(name)) > 0),
    constraint seasons_dates_in_order check (ends >= starts),
    constraint seasons_some_games check (cardinality(games) > 0),
    constraint seasons_scoring_known check (scoring in ('league_points', 'points', 'net_chips')),
    constraint seasons_league_points_with_scoring
        check ((scoring = 'league_points') = (league_points is not null))
);
create index seasons_club_idx on seasons (club_id, starts desc);
