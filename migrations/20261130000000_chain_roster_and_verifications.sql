-- Issue #24: everything that changes who owes what is covered by the hash chain (content
-- version 3, see src/service/chain/mod.rs, `CONTENT_VERSION`): the set-up names the session's
-- member at each seat, and two new kinds of entry are linked as they happen, a scorer who joined
-- (with the name it gave) and a verification or dispute of a deal.
--
-- Chains written before keep verifying as they are: every link keeps the content version it
-- hashed. Scorers who joined and verifications given before this migration were never linked and
-- are not now (nobody can vouch for them after the fact); the rows given from now on are.
alter table chain_links drop constraint chain_links_entry_check;
alter table chain_links add constraint chain_links_entry_kind
    check (entry in ('table', 'move', 'booking', 'scorer', 'verification'));

-- A scorer's link names it by a number (links name entries by bigint); existing scorers keep
-- none: the column is added before its default, so only rows inserted from now on get one.
create sequence scorers_number_seq;
alter table scorers add column number bigint;
alter table scorers alter column number set default nextval('scorers_number_seq');
alter table scorers add constraint scorers_number_once unique (number);

-- Likewise: verifications given from now on are chained, earlier ones are not. A chained row
-- whose flag is cleared afterwards is still found: its link remains and names it missing.
alter table verifications add column chained boolean not null default false;
alter table verifications alter column chained set default true;

-- The version the code writes from now on.
alter table chain_links alter column content_version set default 3;
