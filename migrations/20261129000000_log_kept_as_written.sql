-- The log's JSON is kept as the text the service wrote (`json`) rather than parsed (`jsonb`)
-- (issue #10). Nothing queries inside a move, its events, a score-sheet line or a kept answer:
-- they are written once and read back whole, as text. `jsonb` parsed each on the way in and
-- rendered it again on the way out, which was most of the database's work in reading a long
-- table's log (its audit, its export); `json` only checks the text on the way in and gives it
-- back as it is, so a kept answer is now replayed byte for byte.
--
-- Rows written before keep the same values, in jsonb's rendering of them; the hash chain covers
-- a value's canonical form, not its text, so their links still verify. This rewrites the tables
-- (under an exclusive lock, once).
alter table moves
    alter column body type json using body::json,
    alter column events type json using events::json;
alter table deal_lines alter column line type json using line::json;
alter table idempotency_keys alter column response_body type json using response_body::json;
