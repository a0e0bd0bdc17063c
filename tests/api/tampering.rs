//! The trial's tamper kinds as one table (issue #24): each a rewrite that a superuser of the
//! database could make (triggers off), applied to a fresh finished table whose receipts were
//! kept, and each found: by the audit (`GET /tables/{id}/audit`) as the database was left, or,
//! when the rewrite was hidden by hashing the chain again (or by removing links with the
//! entries), by `tablekeeper verify --key --receipts` with the latest receipt. A kind that
//! changes no evidence is named too, with why it is harmless, and shown to be so.

use serde_json::Value;
use sqlx::PgPool;
use tablekeeper::service::bundle::verify_with;

use crate::evidence::{a_finished_evening, bundle, hash_again, kept, server_key, tamper, Evening};
use crate::helpers::{assert_audit_consistent, assert_audits_alike, spawn_app_with, TestApp};

/// How a kind is found.
enum Found {
    /// By the audit as the rewrite left the database: inconsistent, with a finding containing
    /// this.
    Audit(&'static str),
    /// As `Audit`, by the chain alone: the replay's events, ledger and state all match, so
    /// without the chain nothing would show.
    Chain(&'static str),
    /// Hidden from the audit by hashing the chain again (or removing the links too): by
    /// `verify --receipts` with the latest receipt, its finding containing this.
    Receipt(&'static str),
    /// It changes no evidence, for the reason given: the audit and `verify --receipts` pass.
    Harmless(&'static str),
}

struct Kind {
    name: &'static str,
    sql: &'static str,
    /// The chain hashed again after the rewrite.
    hash_again: bool,
    found: Found,
}

const fn audit(name: &'static str, sql: &'static str, finding: &'static str) -> Kind {
    Kind {
        name,
        sql,
        hash_again: false,
        found: Found::Audit(finding),
    }
}

const fn chain(name: &'static str, sql: &'static str, finding: &'static str) -> Kind {
    Kind {
        name,
        sql,
        hash_again: false,
        found: Found::Chain(finding),
    }
}

const fn hidden(name: &'static str, sql: &'static str, finding: &'static str) -> Kind {
    Kind {
        name,
        sql,
        hash_again: true,
        found: Found::Receipt(finding),
    }
}

/// What a receipt finds of a link rewritten and the chain hashed again.
const REWRITTEN: &str = "rewritten and hashed again";

/// The last entry (8, the settlement) removed with its bookings and its links, the version,
/// `finished` and the head set back: the log, the ledger and the chain agree again.
const ROLL_BACK: &str = concat!("delete from ledger_postings where table_id = $1 and booking_id in (select id from ledger_bookings where table_id = $1 and move_seq = 8);
    delete from chain_links where table_id = $1 and (entry = 'move' and ref = 8 or entry = 'booking' and ref in (select id from ledger_bookings where table_id = $1 and move_seq = 8));
    delete from ledger_bookings where table_id = $1 and move_seq = 8;
    delete from snapshots where table_id = $1 and seq = 8;
    delete from deal_lines where table_id = $1 and seq = 8;
    delete from moves where table_id = $1 and seq = 8;
    update game_tables set version = 7, finished = false, chain_head = (select hash from ", links_of_table!(), " order by pos desc limit 1) where id = $1");

fn kinds() -> Vec<Kind> {
    vec![
        // The log.
        audit(
            "a move's body edited",
            "update moves set body = jsonb_set(body::jsonb, '{honours}', '1')::json where table_id = $1 and seq = 2",
            "log entry 2 was changed after it was recorded",
        ),
        chain(
            "a move's stored events edited",
            "update moves set events = '[]' where table_id = $1 and seq = 2",
            "log entry 2 was changed after it was recorded",
        ),
        chain(
            "who recorded a move rewritten",
            "update moves set recorded_by = 'organiser:00000000-0000-0000-0000-000000000000', recorded_by_organiser = null, recorded_by_scorer = null where table_id = $1 and seq = 3",
            "log entry 3 was changed after it was recorded",
        ),
        chain(
            "when a move was recorded rewritten",
            "update moves set recorded_at = recorded_at - interval '1 hour' where table_id = $1 and seq = 3",
            "log entry 3 was changed after it was recorded",
        ),
        // A move's link is kept in its row (issue #27) and travels with it: the chain breaks
        // where the renumbered rows' links no longer follow in seq order.
        audit(
            "two entries reordered",
            "update moves set seq = 1000 where table_id = $1 and seq = 2;
             update moves set seq = 2 where table_id = $1 and seq = 3;
             update moves set seq = 3 where table_id = $1 and seq = 1000",
            "log entry 3 was changed after it was recorded",
        ),
        // The move's own link goes with its row (issue #27), and its bookings' with theirs: the
        // chain read ends before them, and the head, left, does not follow it.
        chain(
            "the last move deleted with its bookings, lines and snapshot, the version set back",
            "delete from deal_lines where table_id = $1 and seq = 8;
             delete from ledger_postings where table_id = $1 and booking_id in (select id from ledger_bookings where table_id = $1 and move_seq = 8);
             delete from ledger_bookings where table_id = $1 and move_seq = 8;
             delete from snapshots where table_id = $1 and seq = 8;
             delete from moves where table_id = $1 and seq = 8;
             update game_tables set version = 7, finished = false where id = $1",
            "the table's head hash is not the hash of the chain's last entry",
        ),
        chain(
            "the last move deleted with its bookings and links, the head left",
            concat!(unlink_from!(move_8_pos!()), ";
             delete from deal_lines where table_id = $1 and seq = 8;
             delete from ledger_postings where table_id = $1 and booking_id in (select id from ledger_bookings where table_id = $1 and move_seq = 8);
             delete from ledger_bookings where table_id = $1 and move_seq = 8;
             delete from snapshots where table_id = $1 and seq = 8;
             delete from moves where table_id = $1 and seq = 8;
             update game_tables set version = 7, finished = false where id = $1"),
            "the table's head hash is not the hash of the chain's last entry",
        ),
        chain(
            "the last move's links deleted, the move and the head left",
            unlink_from!(move_8_pos!()),
            "log entry 8 is not in the chain",
        ),
        // Undo.
        audit(
            "an undo deleted with its reversals, the undone deal in force again",
            "delete from ledger_postings where table_id = $1 and booking_id in (select id from ledger_bookings where table_id = $1 and move_seq = 7);
             delete from ledger_bookings where table_id = $1 and move_seq = 7;
             delete from moves where table_id = $1 and seq = 7",
            "it was made for log entry 7 but log entry 8 is there now",
        ),
        audit(
            "an undo pointed at another move",
            "update moves set voids_seq = 3 where table_id = $1 and seq = 7",
            "log entry 7 was changed after it was recorded",
        ),
        // Corrections.
        audit(
            "the corrected deal moved in play order",
            "update moves set position = 2.5 where table_id = $1 and seq = 4",
            "log entry 4 was changed after it was recorded",
        ),
        chain(
            "the corrected move re-parented as a move of its own",
            "update moves set part_of = null where table_id = $1 and seq = 4",
            "log entry 4 was changed after it was recorded",
        ),
        audit(
            "a correction's supersession lifted",
            "delete from superseded_moves where table_id = $1 and seq = 1",
            "log entry 5 was changed after it was recorded",
        ),
        chain(
            "a correction's reason rewritten",
            "update corrections set reason = 'Ann asked for it' where table_id = $1",
            "log entry 5 was changed after it was recorded",
        ),
        // The ledger.
        audit(
            "a posting edited, the booking still balanced",
            // The running sums that chain the postings rewritten with them, so that the
            // ledger's keys hold again (checks apply even with triggers off).
            "update ledger_postings p set amount = x.amount, running = x.running
             from (select n, amount + case account when 'seat:0' then 1 when 'bank' then -1 else 0 end as amount,
                          sum(amount + case account when 'seat:0' then 1 when 'bank' then -1 else 0 end)
                              over (order by n) as running
                   from ledger_postings
                   where table_id = $1 and booking_id = (select min(id) from ledger_bookings where table_id = $1)) x
             where p.table_id = $1 and p.booking_id = (select min(id) from ledger_bookings where table_id = $1)
               and p.n = x.n",
            "the chain breaks at link 1: booking",
        ),
        audit(
            "a booking's memo rewritten",
            "update ledger_bookings set memo = 'a gift' where table_id = $1 and id = (select min(id) from ledger_bookings where table_id = $1)",
            "the chain breaks at link 1: booking",
        ),
        audit(
            "a booking moved to another move",
            "update ledger_bookings set move_seq = 3 where table_id = $1 and move_seq = 2",
            "was changed after it was recorded",
        ),
        audit(
            "a booking deleted with its postings",
            "delete from ledger_postings where table_id = $1 and booking_id = (select max(id) from ledger_bookings where table_id = $1 and move_seq = 2);
             delete from ledger_bookings where table_id = $1 and id = (select max(id) from ledger_bookings where table_id = $1 and move_seq = 2)",
            "(entries removed, added or reordered)",
        ),
        audit(
            "a balanced booking added",
            "insert into ledger_bookings (table_id, club_no, move_seq, deal, memo, posting_count)
                 select $1, club_no, 3, 3, 'a gift', 2 from game_tables where id = $1;
             insert into ledger_postings (table_id, club_no, booking_id, account, amount, n, booking_postings, running)
                 select $1, club_no, (select max(id) from ledger_bookings where table_id = $1), p.*
                 from game_tables, (values ('seat:0', 50, 1, 2, 50), ('seat:1', -50, 2, 2, 0)) as p where id = $1",
            "is not in the chain",
        ),
        // The set-up and the roster.
        audit(
            "the table's options rewritten",
            "update game_tables set options = jsonb_set(options, '{widows_stake}', '5') where id = $1",
            "the table's set-up was changed after it was recorded",
        ),
        chain(
            "two seats' members swapped",
            "update game_tables set members = array[members[2], members[1], members[3]] where id = $1",
            "the table's set-up was changed after it was recorded",
        ),
        chain(
            "the table taken out of its session",
            "update game_tables set session_id = null where id = $1",
            "the table's set-up was changed after it was recorded",
        ),
        // Scorers and verifications.
        chain(
            "a scorer renamed",
            "update scorers set name = 'Eve''s phone' where table_id = $1",
            "(who joined) was changed after it was recorded",
        ),
        chain(
            "when a scorer joined rewritten",
            "update scorers set created_at = created_at - interval '1 day' where table_id = $1",
            "(who joined) was changed after it was recorded",
        ),
        chain(
            "an agreement turned into a dispute",
            "update verifications set agree = false, differs = '{/0/tricks/1}' where table_id = $1",
            "was changed after it was recorded",
        ),
        chain(
            "a verification moved to another deal",
            "update verifications set deal = 3 where table_id = $1",
            "was changed after it was recorded",
        ),
        chain(
            "who gave a verification rewritten",
            "update verifications set verified_by = 'organiser:00000000-0000-0000-0000-000000000000' where table_id = $1",
            "was changed after it was recorded",
        ),
        chain(
            "a verification removed",
            "delete from verifications where table_id = $1",
            "it was made for verification",
        ),
        // The chain itself.
        chain(
            "a link's hash rewritten",
            "update chain_links set hash = sha256(hash) where table_id = $1 and pos = 2;
             update moves set link_hash = sha256(link_hash) where table_id = $1 and link_pos = 2;
             update ledger_bookings set link_hash = sha256(link_hash) where table_id = $1 and link_pos = 2",
            "the stored link does not follow the link before it",
        ),
        chain(
            "a link removed from the middle",
            "delete from chain_links where table_id = $1 and pos = 2;
             update moves set link_pos = null, link_version = null, link_content_hash = null, link_hash = null
             where table_id = $1 and link_pos = 2;
             update ledger_bookings set link_pos = null, link_version = null, link_content_hash = null, link_hash = null
             where table_id = $1 and link_pos = 2",
            "the stored link does not follow the link before it",
        ),
        chain(
            "the head set to another hash",
            "update game_tables set chain_head = sha256(chain_head) where id = $1",
            "the table's head hash is not the hash of the chain's last entry",
        ),
        // Each hidden by hashing the chain again, or by removing what the receipts signed.
        Kind {
            name: "the last entry deleted with its bookings and links, the version and head set back",
            sql: ROLL_BACK,
            hash_again: false,
            found: Found::Receipt("entries after it were removed and its head set back"),
        },
        hidden(
            "who recorded a move and when rewritten, the chain hashed again",
            "update moves set recorded_by = 'organiser:00000000-0000-0000-0000-000000000000', recorded_by_organiser = null, recorded_by_scorer = null, recorded_at = recorded_at - interval '1 hour' where table_id = $1 and seq = 2",
            REWRITTEN,
        ),
        hidden(
            "the table taken out of its session, the chain hashed again",
            "update game_tables set session_id = null where id = $1",
            "taken out of the session",
        ),
        hidden(
            "two seats' members swapped, the chain hashed again",
            "update game_tables set members = array[members[2], members[1], members[3]] where id = $1",
            REWRITTEN,
        ),
        hidden(
            "a correction's reason rewritten, the chain hashed again",
            "update corrections set reason = 'Ann asked for it' where table_id = $1",
            REWRITTEN,
        ),
        hidden(
            "a booking's memo rewritten, the chain hashed again",
            "update ledger_bookings set memo = 'a gift' where table_id = $1 and id = (select min(id) from ledger_bookings where table_id = $1)",
            "the ledger differs from the replay's bookings",
        ),
        hidden(
            "a scorer renamed, the chain hashed again",
            "update scorers set name = 'Eve''s phone' where table_id = $1",
            REWRITTEN,
        ),
        hidden(
            "an agreement turned into a dispute, the chain hashed again",
            "update verifications set agree = false, differs = '{/0/tricks/1}' where table_id = $1",
            REWRITTEN,
        ),
        hidden(
            "a verification removed with its link, the chain hashed again",
            "delete from verifications where table_id = $1; delete from chain_links where table_id = $1 and entry = 'verification'",
            "entries after it were removed and its head set back",
        ),
        // What is not evidence.
        Kind {
            name: "a member's name rewritten",
            sql: "update session_members set name = 'Anonymous', name_key = 'anonymous' where id = (select members[1] from game_tables where id = $1)",
            hash_again: false,
            found: Found::Harmless(
                "the chain and the bundle hash member ids, never names, so that a member can be \
                 anonymised; who owes what follows the ids, and the roster's name is only how they are shown",
            ),
        },
        Kind {
            name: "the table's snapshots deleted",
            sql: "delete from snapshots where table_id = $1 and seq > 0",
            hash_again: false,
            found: Found::Harmless(
                "snapshots are derived from the log, which alone is evidence: a fold without them \
                 replays from the set-up, and the audit compares both with a full replay",
            ),
        },
    ]
}

/// Whether the audit found the table inconsistent, with a problem containing `finding`.
fn audit_finds(audit: &Value, finding: &str) -> Result<(), String> {
    let problems: Vec<&str> = audit["problems"]
        .as_array()
        .map(|p| p.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if audit["consistent"] == false && problems.iter().any(|p| p.contains(finding)) {
        Ok(())
    } else {
        Err(format!("the audit did not find `{finding}`: {audit}"))
    }
}

/// What `verify --receipts` with `receipts` says of the session's bundle: Ok when it passes.
async fn verified(
    app: &TestApp,
    evening: &Evening,
    key: ed25519_dalek::VerifyingKey,
    receipts: &[Value],
) -> Result<String, String> {
    let bytes = bundle(app, &evening.session).await;
    verify_with(&bytes, &[key], &kept(receipts))
}

/// How `kind`, applied to a fresh finished evening, is found; Err saying what was not.
async fn check(app: &TestApp, key: ed25519_dalek::VerifyingKey, i: usize, kind: &Kind) -> Result<(), String> {
    let evening = a_finished_evening(app, &format!("organiser{i}@club.example")).await;
    assert_audit_consistent(app, &evening.table).await;
    let latest = &evening.receipts[evening.receipts.len() - 1..];

    tamper(&app.pool, &evening.table, kind.sql).await;
    if kind.hash_again {
        hash_again(&app.pool, &evening.table).await;
    }

    let audit = app
        .get(&format!("/api/v1/tables/{}/audit", evening.table))
        .await
        .assert_status(200)
        .clone();
    // Read on one connection or two, the audit finds the same.
    assert_audits_alike(&app.pool, &evening.table).await;
    match kind.found {
        Found::Audit(finding) => audit_finds(&audit, finding),
        Found::Chain(finding) => {
            audit_finds(&audit, finding)?;
            match ["events_match", "ledger_matches", "state_matches"]
                .into_iter()
                .find(|replay| audit[replay] != true)
            {
                None => Ok(()),
                Some(replay) => Err(format!("the replay found it too ({replay}): {audit}")),
            }
        }
        Found::Receipt(finding) => match verified(app, &evening, key, latest).await {
            Err(found) if found.contains(finding) && found.contains(&evening.table) => Ok(()),
            Err(found) => Err(format!("verify did not find `{finding}` naming the table: {found}")),
            Ok(summary) => Err(format!("verify passed: {summary}")),
        },
        Found::Harmless(why) if audit["consistent"] != true => {
            Err(format!("harmless ({why}), yet the audit is not consistent: {audit}"))
        }
        Found::Harmless(why) => verified(app, &evening, key, &evening.receipts)
            .await
            .map(drop)
            .map_err(|e| format!("harmless ({why}), yet a receipt no longer holds: {e}")),
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn every_tamper_kind_is_found_by_the_audit_or_by_a_later_receipt(pool: PgPool) {
    // Arrange: every kind named once, and more of them than the 25 the issue asks for.
    let app = spawn_app_with(pool, |s| s.auth_attempts_per_minute = 10_000).await;
    let key = server_key(&app).await;
    let kinds = kinds();
    let mut names: Vec<&str> = kinds.iter().map(|k| k.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), kinds.len(), "each kind is named once");
    assert!(kinds.len() >= 25, "{} kinds", kinds.len());

    // Act: each kind on an evening of its own.
    let mut missed = Vec::new();
    for (i, kind) in kinds.iter().enumerate() {
        if let Err(why) = check(&app, key, i, kind).await {
            missed.push(format!("{}: {why}", kind.name));
        }
    }

    // Assert: none missed.
    assert!(
        missed.is_empty(),
        "{} kinds not found as expected:\n{}",
        missed.len(),
        missed.join("\n")
    );
}
