-- Where a stops game's leftover pools go when a tournament's round closes, as the club says
-- (issue #41): a tournament that names no `leftover` takes it when it is made, and keeps it.
-- Clubs made before keep their pools with the pools (`keep`), as every tournament did then.
alter table clubs add column leftover text not null default 'keep'
    check (leftover in ('keep', 'share', 'bank', 'carry'));
