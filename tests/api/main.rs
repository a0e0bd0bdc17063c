//! HTTP integration tests against a real PostgreSQL: every test gets its own database
//! (`#[sqlx::test]`, from DATABASE_URL) and its own server on a free port.

/// Every link of table `$1` as stored, wherever the store keeps it (`chain_links`, or the row of
/// the move or booking it covers: `src/store/chain.rs`), as a FROM item named `l`; for `concat!`.
macro_rules! links_of_table {
    () => {
        "(select pos, entry, ref, content_version, content_hash, prev_hash, hash
            from chain_links where table_id = $1
          union all
          select link_pos, 'move', seq, link_version, link_content_hash, ''::bytea, link_hash
            from moves where table_id = $1 and link_pos is not null
          union all
          select link_pos, 'booking', id, link_version, link_content_hash, ''::bytea, link_hash
            from ledger_bookings where table_id = $1 and link_pos is not null) l"
    };
}

/// One statement removing the links of table `$1` from position `from` (a SQL expression, read
/// before anything is removed) on, wherever they are kept.
macro_rules! unlink_from {
    ($from:expr) => {
        concat!(
            "with f as (select ",
            $from,
            " as pos),
                  d as (delete from chain_links where table_id = $1 and pos >= (select pos from f)),
                  b as (update ledger_bookings set link_pos = null, link_version = null, link_content_hash = null,
                            link_hash = null
                        where table_id = $1 and link_pos >= (select pos from f))
             update moves set link_pos = null, link_version = null, link_content_hash = null, link_hash = null
             where table_id = $1 and link_pos >= (select pos from f)"
        )
    };
}

/// The position of move 8's link, wherever it is kept.
macro_rules! move_8_pos {
    () => {
        "coalesce((select pos from chain_links where table_id = $1 and entry = 'move' and ref = 8),
                  (select link_pos from moves where table_id = $1 and seq = 8))"
    };
}

mod api_tokens;
mod auth;
mod authorization;
mod batched;
mod browser;
mod browser_clubs;
mod browser_deals;
mod browser_games;
mod browser_layout;
mod browser_money;
mod browser_offline;
mod browser_refusals;
mod browser_rulings;
mod browser_screens;
mod browser_table;
mod browser_tournaments;
mod browser_witness;
mod bundle;
mod chain;
mod changes;
mod club;
mod club_erasure;
mod clubs;
mod conditional;
mod corrections;
mod cosign;
mod distribution;
mod dividend;
mod evidence;
mod exports;
mod failover;
mod final_result;
mod flags;
mod games;
mod health;
mod helpers;
mod hostile;
mod hot;
mod house;
mod idempotency_retention;
mod idempotent_auth;
mod idempotent_creation;
mod idempotent_writes;
mod layers;
mod ledger;
mod leftover;
mod live;
mod money_columns;
mod moves;
mod newmarket;
mod openapi;
mod ops;
mod pope_joan;
mod privacy;
mod receipts;
mod release;
mod revocation;
mod rolling_upgrade;
mod routed;
mod rulings;
mod scorers;
mod seasons;
mod sessions;
mod settlement;
mod spec_validation;
mod spin;
mod standby;
mod streams;
mod tables;
mod tampering;
mod tournaments;
mod transport;
mod trick_plan;
mod tricky_dick;
mod tridge;
mod upgrade;
mod verification;
mod watchdog;
mod web;
mod webhooks;
mod witness;
