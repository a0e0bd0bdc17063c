-- The deferred check that a booking's postings sum to zero looked its postings up by booking id
-- alone, which the postings' key (table_id, booking_id, account) cannot serve since postings
-- were keyed by table: every posting written scanned all postings. A correction writes hundreds
-- of bookings at once (issue #13), so look them up by table and booking.
create or replace function ledger_booking_balances() returns trigger language plpgsql as $$
declare
    total numeric;
begin
    select coalesce(sum(amount), 0) into total from ledger_postings
        where table_id = new.table_id and booking_id = new.booking_id;
    if total <> 0 then
        raise exception 'booking % does not balance: postings sum to %', new.booking_id, total
            using errcode = '23514', constraint = 'ledger_booking_balances';
    end if;
    return null;
end
$$;
