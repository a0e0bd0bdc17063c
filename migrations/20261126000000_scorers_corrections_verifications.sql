-- Scorer identities, corrections of finished deals and their verification (issue #13).

-- Each join makes a scorer of its own: the log names it (`scorer:<scorer id>`), the organiser can
-- revoke it, and a revoked scorer's token is refused. Tokens minted before scorers had ids carry
-- none and keep naming the table (`scorer:<table id>`).
create table scorers (
    table_id   uuid not null references game_tables (id),
    id         uuid not null,
    name       text not null,
    created_at timestamptz not null default now(),
    revoked_at timestamptz,
    -- Keyed by table first like every per-table relation; a token names both.
    primary key (table_id, id)
);

-- A correction is a log entry too. It comes after the moves it brings (the deal's moves as
-- corrected, `part_of` the correction) and supersedes the deal's moves it replaces, which stay in
-- the log. The effective moves are then ordered by `position` (null: the seq), so the corrected
-- deal's moves take the place of the moves they replace. Voiding the correction (undo) voids
-- the moves it brought and lifts its supersession: nothing is ever updated or deleted.
alter table moves drop constraint moves_entry_check;
alter table moves add constraint moves_entry_kind check (entry in ('move', 'void', 'correction'));
alter table moves add column position numeric;
alter table moves add column part_of bigint;
-- Deferred: the correction's entry is written after the moves it brings, in one transaction.
alter table moves add constraint moves_part_of_a_correction
    foreign key (table_id, part_of) references moves (table_id, seq) deferrable initially deferred;

create table superseded_moves (
    table_id       uuid not null,
    seq            bigint not null,
    correction_seq bigint not null,
    primary key (table_id, seq, correction_seq),
    foreign key (table_id, seq) references moves (table_id, seq),
    foreign key (table_id, correction_seq) references moves (table_id, seq)
);
create trigger superseded_moves_append_only before update or delete on superseded_moves
    for each row execute function refuse_change();

-- What a correction did to the ledger: the bookings it made are ids first_booking..last_booking
-- of the table (null: none), so that its undo can reverse exactly those.
create table corrections (
    table_id      uuid not null,
    seq           bigint not null,
    deal          integer not null check (deal > 0),
    reason        text not null,
    first_booking bigint,
    last_booking  bigint,
    -- The events of the later moves it replayed whose events changed, by seq: a log entry is
    -- never edited, so the audit reads a move's events in force here.
    events        jsonb not null default '{}',
    primary key (table_id, seq),
    foreign key (table_id, seq) references moves (table_id, seq)
);
create trigger corrections_append_only before update or delete on corrections
    for each row execute function refuse_change();

-- A second phone's (or the organiser's) confirmation or dispute of a finished deal. It is about
-- the deal as recorded when it was given: `correction_seq` names the deal's correction then in
-- force (0: the deal as first recorded), so a correction leaves the deal unverified again and
-- undoing the correction brings the earlier verifications back.
create table verifications (
    table_id       uuid not null references game_tables (id),
    id             bigint generated always as identity,
    deal           integer not null check (deal > 0),
    correction_seq bigint not null,
    agree          boolean not null,
    moves          jsonb,
    differs        text[] not null default '{}',
    verified_by    text not null,
    verified_at    timestamptz not null default now(),
    primary key (table_id, id)
);
create index verifications_deal_idx on verifications (table_id, deal, id);
create trigger verifications_append_only before update or delete on verifications
    for each row execute function refuse_change();
