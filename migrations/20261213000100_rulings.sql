-- Issue #42: director rulings. A ruling is an entry of the table's log (`entry = 'ruling'`, its
-- `kind` the ruling's: `assigned`, `average`, `split`, `void`), and so is a phone's answer to one
-- (`kind = 'response'`): both are in the table's hash chain and its bundle like any entry, and
-- neither is ever changed. No move is a ruling, so the effective moves (`entry = 'move'`) and
-- every table stored before are as they were. What a ruling books is caused by its entry.
alter table moves drop constraint moves_entry_kind;
alter table moves add constraint moves_entry_kind check (entry in ('move', 'void', 'correction', 'ruling'));

alter table webhooks drop constraint webhooks_events_known;
alter table webhooks add constraint webhooks_events_known check (
    cardinality(events) > 0
    and events <@ array['deal.finished', 'table.finished', 'deal.corrected', 'deal.disputed', 'session.settled',
                        'tournament.round_started', 'tournament.finished', 'session.closed', 'session.final',
                        'deal.ruled']
);
