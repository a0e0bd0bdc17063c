-- A tournament's `leftover` rule may be `carry` (issue #41): a round's leftover goes out of the
-- table's pools to the bank (rows of tournament_leftovers as for `bank`), and the next round's
-- table of the same number opens with it on the same pools (its options' `opening_pools`).
-- Tournaments stored before keep their rule.
alter table tournaments drop constraint tournaments_leftover_known;
alter table tournaments add constraint tournaments_leftover_known
    check (leftover in ('keep', 'share', 'bank', 'carry'));
