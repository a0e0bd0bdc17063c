//! The audit: the whole log replayed from the set-up and checked against what was stored.
//!
//! Invariants: read-only, in one consistent snapshot of the database; a discrepancy is a
//! finding (a sentence in `problems`), never an error, so an auditor always gets a report.
//! What the ledger should hold is worked out from the replay's events alone, since settlements
//! are a pure function of the events. The score-sheet lines stored with the moves are checked
//! against the lines the replay finishes, as part of the state.

use std::collections::HashSet;
use std::sync::Arc;

use serde::Serialize;
use tablekeeper_store::{PgConnection, PgPool};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use uuid::Uuid;

use super::booking_key::{key, Key};
use super::canonical;
use super::chain::{self, AsJson, Json};
use super::fold::{self, move_of};
use super::{game_of, read_table, ServiceError};
use tablekeeper_rules::with_game;
use tablekeeper_rules::{Game, Settlement};
use tablekeeper_store::chain::{JsonText, LinkRow, LoggedEntry};
use tablekeeper_store::deals::CorrectionRow;
use tablekeeper_store::ledger::StoredBooking;
use tablekeeper_store::tables::TableRow;
use tablekeeper_store::{self as store, StoreError, Tx};

/// What a full replay of a table's log found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Audit {
    pub moves_replayed: usize,
    /// The replayed state equals the state read through snapshots.
    pub state_matches: bool,
    /// Every stored move's events equal the events the engine gives on replay.
    pub events_match: bool,
    /// The bookings in force (not reversed) equal the settlements the replay produces.
    pub ledger_matches: bool,
    /// The hash chain recomputed from the set-up, the log and the ledger equals the links
    /// stored and ends at the table's head (true, with `chained` false, for a table stored
    /// before the chain that has not been linked yet).
    pub chain_intact: bool,
    /// Whether the table has a chain yet.
    pub chained: bool,
    /// The head of the chain recomputed from the entries, hex.
    pub chain_head: String,
    /// A sentence per discrepancy.
    pub problems: Vec<String>,
}

/// Audits a table; returns its row (as of the audit) and the findings.
///
/// # Errors
/// `Store(NotFound)` when there is no such table; on database failure.
pub async fn audit(pool: &PgPool, id: Uuid) -> Result<(TableRow, Audit), ServiceError> {
    let (mut tx, row) = read_table(pool, id).await?;
    let alongside = store::begin_alongside(pool, &mut tx).await?;
    let mut audit =
        with_game!(game_of(&row)?, G => audit_as::<G>(&mut tx, alongside, &row).await.map_err(|e| e.at_table(id))?);
    // What the table reads from its session is under the session's chain.
    let found = session_problems(&mut tx, &row).await?;
    if !found.is_empty() {
        audit.chain_intact = false;
    }
    audit.problems.extend(found);
    Ok((row, audit))
}

/// What is wrong with what the table reads from its session: the session's chain and record
/// (its chip value, club, date and roster), and the table's club, which is its session's.
///
/// # Errors
/// On database failure.
pub async fn session_problems(conn: &mut PgConnection, table: &TableRow) -> Result<Vec<String>, ServiceError> {
    let Some(session) = table.session_id else {
        return Ok(Vec::new());
    };
    let mut problems = Vec::new();
    match chain::record::check_session(&mut *conn, session).await {
        Ok(found) => problems.extend(found),
        Err(StoreError::NotFound(_)) => problems.push(format!("the table's session {session} is missing")),
        Err(e) => return Err(e.into()),
    }
    if let Ok(found) = store::sessions::fetch(&mut *conn, session).await {
        if found.club_id != table.club_id {
            problems.push(format!(
                "the table belongs to club {} but its session {session} to club {}",
                table.club_id, found.club_id
            ));
        }
    }
    Ok(problems)
}

fn settled(seq: i64, settlements: Vec<Settlement>, into: &mut Vec<Key>) {
    for s in settlements {
        let postings = s.postings.iter().map(|(a, c)| (a.to_string(), c.get()));
        into.push(key(seq, s.deal.map(i32::from), &s.memo, postings));
    }
}

/// What replaying a table's effective moves from its set-up gives; pure, so that the offline
/// verifier runs it on a bundle as the audit runs it on the database.
pub struct Replayed<G: Game> {
    pub game: G,
    pub replayed: usize,
    pub events_match: bool,
    /// The bookings the replay's settlements make, sorted.
    pub expected: Vec<Key>,
    /// The score-sheet lines the replay finishes.
    pub lines: Vec<G::DealLine>,
    pub problems: Vec<String>,
}

/// Replays `effective` (the moves not voided nor superseded, in play order) from the table's
/// set-up, comparing each move's events in force (as stored, or as the latest correction of an
/// earlier deal re-derived them) with the engine's.
///
/// # Errors
/// `Corrupt` when the stored options no longer set up the game; `Encode` on a fault.
pub fn replay_log<G: Game>(
    table: &TableRow,
    effective: &[&LoggedEntry<impl AsJson>],
    corrections: &[CorrectionRow],
) -> Result<Replayed<G>, ServiceError> {
    let mut problems = Vec::new();
    let mut game: G = fold::initial(table)?;
    let mut expected: Vec<Key> = Vec::new();
    settled(0, game.opening_settlements(), &mut expected);
    let mut events_match = true;
    let mut replayed = 0;
    let mut lines: Vec<G::DealLine> = Vec::new();
    let mut deal = None;
    for row in effective {
        deal = game.deal_number().or(deal);
        let mv = match move_of::<G>(row.body.as_json()) {
            Ok(mv) => mv,
            Err(e) => {
                problems.push(format!("move {} no longer reads: {e}", row.seq));
                break;
            }
        };
        match game.replay(&mv) {
            Ok(events) => {
                replayed += 1;
                let in_force = super::corrections::events_in_force(corrections, row.seq, deal, row.events.as_json());
                if !same_json(&events, in_force)? {
                    events_match = false;
                    problems.push(format!("move {}: the stored events differ from the replay's", row.seq));
                }
                settled(row.seq, G::settlements(&events), &mut expected);
                lines.extend(game.take_deal_lines());
            }
            Err(v) => {
                problems.push(fold::no_longer_replays(row.seq, &v));
                break;
            }
        }
    }
    expected.sort();
    Ok(Replayed {
        game,
        replayed,
        events_match,
        expected,
        lines,
        problems,
    })
}

/// Whether `value` is `stored`: whether their canonical forms are the same bytes.
///
/// # Errors
/// `Encode` when `value` does not serialise.
fn same_json<T: Serialize + ?Sized>(value: &T, stored: Json<'_>) -> Result<bool, ServiceError> {
    let written = serde_json::to_string(value).map_err(ServiceError::Encode)?;
    // The move path keeps events as the engine's types write them: the same text is the same
    // value, without working out either's canonical form.
    if let Json::Text(text) | Json::Canonical { text, .. } = stored {
        if text == written {
            return Ok(true);
        }
    }
    let mut replayed = Vec::new();
    canonical::canonicalize(&written, &mut replayed).map_err(ServiceError::Encode)?;
    if let Json::Canonical { canonical, .. } = stored {
        return Ok(canonical == replayed.as_slice());
    }
    let mut kept = Vec::new();
    // Stored text that is not JSON is not the value either.
    Ok(stored.write_canonical(&mut kept).is_ok() && kept == replayed)
}

/// A stored `position` (a non-negative `numeric` as PostgreSQL writes it) in a form that orders
/// as the number does: the integer digits without leading zeros, the fraction's without
/// trailing ones.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Place {
    digits: usize,
    whole: String,
    fraction: String,
}

impl Place {
    fn parse(text: &str) -> Option<Place> {
        let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
        if whole.is_empty() || !whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_digit()) {
            return None;
        }
        let whole = whole.trim_start_matches('0').to_owned();
        Some(Place {
            digits: whole.len(),
            whole,
            fraction: fraction.trim_end_matches('0').to_owned(),
        })
    }

    fn of_seq(seq: i64) -> Place {
        let whole = seq.to_string();
        Place {
            digits: whole.len(),
            whole,
            fraction: String::new(),
        }
    }
}

/// The seqs of the moves in force of a whole log, in play order: what the store's
/// `effective_moves` gives (`EFFECTIVE` and `IN_PLAY_ORDER` in `tablekeeper_store::tables`), worked
/// out from the entries alone so that the offline verifier orders a bundle's log as the server
/// does. A move is in force when no void names it, the correction it is `part_of` (if any) is
/// not voided, and no correction in force supersedes it; the order is by `position` (the seq
/// when none), then seq.
///
/// # Errors
/// A sentence naming an entry whose position is not a non-negative decimal.
pub fn play_order<J>(log: &[LoggedEntry<J>], corrections: &[CorrectionRow]) -> Result<Vec<i64>, String> {
    let voided: HashSet<i64> = log.iter().filter_map(|m| m.voids_seq).collect();
    let superseded: HashSet<i64> = corrections
        .iter()
        .filter(|c| !voided.contains(&c.seq))
        .flat_map(|c| c.supersedes.iter().copied())
        .collect();
    let mut order = Vec::new();
    for m in log {
        let in_force = m.entry == "move"
            && !voided.contains(&m.seq)
            && m.part_of.is_none_or(|c| !voided.contains(&c))
            && !superseded.contains(&m.seq);
        if !in_force {
            continue;
        }
        let place = match &m.position {
            Some(text) => Place::parse(text).ok_or_else(|| {
                format!(
                    "log entry {}: its position `{text}` is not a non-negative decimal",
                    m.seq
                )
            })?,
            None => Place::of_seq(m.seq),
        };
        order.push((place, m.seq));
    }
    order.sort();
    Ok(order.into_iter().map(|(_, seq)| seq).collect())
}

/// The first reversal that is not the exact undoing of the booking it names (same deal, memo
/// `reversal: …`, every posting negated), caused by a void or a correction, and the only one
/// of that booking; a sentence naming it.
pub fn reversal_problem<J>(stored: &[StoredBooking], log: &[LoggedEntry<J>]) -> Option<String> {
    let by_id: std::collections::HashMap<i64, &StoredBooking> = stored.iter().map(|b| (b.id, b)).collect();
    let mut reversed = HashSet::new();
    for b in stored {
        let Some(original) = b.reverses else { continue };
        let cause = log.iter().find(|m| m.seq == b.move_seq).map(|m| m.entry.as_str());
        let Some(o) = by_id.get(&original).filter(|o| o.id < b.id && o.reverses.is_none()) else {
            return Some(format!(
                "booking {} reverses booking {original}, which is not an earlier booking in force",
                b.id
            ));
        };
        let negated = key(
            b.move_seq,
            o.deal,
            &format!("reversal: {}", o.memo),
            o.postings.iter().map(|p| (p.account.to_string(), -p.amount.get())),
        );
        let as_booked = key(
            b.move_seq,
            b.deal,
            &b.memo,
            b.postings.iter().map(|p| (p.account.to_string(), p.amount.get())),
        );
        if negated != as_booked {
            return Some(format!("booking {} is not the reversal of booking {original}", b.id));
        }
        if !matches!(cause, Some("void" | "correction")) {
            return Some(format!(
                "booking {} reverses booking {original} but log entry {} is neither an undo nor a correction",
                b.id, b.move_seq
            ));
        }
        if !reversed.insert(original) {
            return Some(format!(
                "booking {original} is reversed twice (again by booking {})",
                b.id
            ));
        }
    }
    None
}

/// The bookings the log's rulings make (issue #42: `service::rulings`), each caused by its
/// ruling's entry: what the ledger holds beside the replay's. A ruling's entry that does not
/// read makes none, so the ledger then differs and says so.
/// The log is given as `(seq, entry, kind, body)`, so that a bundle's log reads as the
/// database's.
pub fn ruled<'a>(log: impl IntoIterator<Item = (i64, &'a str, &'a str, Json<'a>)>) -> Vec<Key> {
    let mut keys = Vec::new();
    for (seq, _, _, body) in log.into_iter().filter(|m| m.1 == "ruling" && m.2 != "response") {
        let Ok(body) = body.decode::<serde_json::Value>() else {
            continue;
        };
        let Some(booking) = body.get("booking").filter(|b| !b.is_null()) else {
            continue;
        };
        let deal = body
            .get("deal")
            .and_then(serde_json::Value::as_i64)
            .and_then(|d| i32::try_from(d).ok());
        let memo = booking
            .get("memo")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default();
        let postings = booking
            .get("postings")
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|p| Some((p.get(0)?.as_str()?.to_owned(), p.get(1)?.as_i64()?)));
        keys.push(key(seq, deal, memo, postings));
    }
    keys
}

/// The bookings in force (neither a reversal nor reversed), as compared, sorted.
pub fn in_force(stored: &[StoredBooking]) -> Vec<Key> {
    let reversed: HashSet<i64> = stored.iter().filter_map(|b| b.reverses).collect();
    let mut keys: Vec<Key> = stored
        .iter()
        .filter(|b| b.reverses.is_none() && !reversed.contains(&b.id))
        .map(|b| {
            key(
                b.move_seq,
                b.deal,
                &b.memo,
                b.postings.iter().map(|p| (p.account.to_string(), p.amount.get())),
            )
        })
        .collect();
    keys.sort();
    keys
}

/// What the audit reads with the log, and the work on it under way on blocking threads.
struct LogRead<G: Game> {
    logged: Arc<Vec<LoggedEntry<JsonText>>>,
    corrections: Arc<Vec<CorrectionRow>>,
    /// The play order worked out from the entries, or why it cannot be.
    derived: Result<Vec<i64>, String>,
    /// The replay in that order; None (nothing replayed) when it cannot be worked out.
    replay: JoinHandle<Option<Result<Replayed<G>, ServiceError>>>,
    stored: Arc<Vec<StoredBooking>>,
    links: Arc<Vec<LinkRow>>,
    /// The chain recomputed.
    recomputed: JoinHandle<Vec<LinkRow>>,
}

/// Reads the log, the corrections, the ledger and the chain's links (or takes the links `links`
/// brings from the second connection), and sets the replay and the chain's hashing going on
/// blocking threads as soon as what each needs is read: they need nothing more from the
/// database, and the connection reads on meanwhile.
async fn read_log<G: Game>(
    conn: &mut PgConnection,
    table: &TableRow,
    links: Option<oneshot::Receiver<Result<Vec<LinkRow>, StoreError>>>,
) -> Result<LogRead<G>, ServiceError> {
    // The log is read once, whole: the replay, the chain and the fold through snapshots all work
    // from these rows.
    let logged = Arc::new(store::chain::log_as_text(&mut *conn, table.key()).await?);
    let corrections = Arc::new(store::deals::corrections(&mut *conn, table.key(), None).await?);
    // The replay follows the play order worked out from the entries, as the offline verifier
    // does (the store's when it cannot be, once that is read); the store's own order (which the
    // move path folds) must be the same.
    let derived = play_order(&logged, &corrections);
    // The replay compares a move's events with the stored text first (the move path keeps them
    // as the engine writes them), so it starts at once; the chain hashes canonical forms, worked
    // out meanwhile on a thread of their own.
    let replay = tokio::task::spawn_blocking({
        let (table, logged, corrections) = (table.clone(), Arc::clone(&logged), Arc::clone(&corrections));
        let order = derived.clone().ok();
        move || order.map(|order| replay_log::<G>(&table, &in_order(&logged, &order), &corrections))
    });
    let canonical = tokio::task::spawn_blocking({
        let logged = Arc::clone(&logged);
        move || chain::canonicalized(logged.to_vec())
    });
    let stored = Arc::new(store::ledger::bookings(&mut *conn, table.key(), None).await?);
    let scorers = store::chain::scorers_after(&mut *conn, table.key(), 0).await?;
    let verifications = store::chain::verifications_after(&mut *conn, table.key(), 0).await?;
    let links = Arc::new(match links {
        // Read on the second connection; when that read failed, its error is the one reported.
        Some(coming) => coming.await.map_err(|_| cancelled())??,
        None => store::chain::links(&mut *conn, table.key()).await?,
    });
    let canonical = joined(canonical).await?;
    let recomputed = tokio::task::spawn_blocking({
        let (table, corrections, stored, links) = (
            table.clone(),
            Arc::clone(&corrections),
            Arc::clone(&stored),
            Arc::clone(&links),
        );
        move || {
            let roster = chain::Roster {
                scorers: &scorers,
                verifications: &verifications,
            };
            chain::link(
                None,
                &chain::in_link_order(
                    chain::entries(&table, &canonical, &corrections, &stored, roster),
                    &links,
                ),
            )
        }
    });
    Ok(LogRead {
        logged,
        corrections,
        derived,
        replay,
        stored,
        links,
        recomputed,
    })
}

/// The store's play order of the moves in force, and the score-sheet lines in force.
async fn read_order_and_lines<G: Game>(
    conn: &mut PgConnection,
    table: &TableRow,
) -> Result<(Vec<i64>, Result<Vec<G::DealLine>, ServiceError>), ServiceError> {
    let order = store::tables::effective_seqs(&mut *conn, table.key()).await?;
    let lines = super::history::in_force::<G>(conn, table).await;
    Ok((order, lines))
}

/// The audit on `conn`, and on `alongside` (a second transaction in the same snapshot) when
/// there is one: the chain's links, the store's order and the lines are read there while `conn`
/// reads the log.
async fn audit_as<G: Game>(
    conn: &mut PgConnection,
    alongside: Option<Tx<'static>>,
    table: &TableRow,
) -> Result<Audit, ServiceError> {
    let (read, order_and_lines) = match alongside {
        Some(mut second) => {
            // The chain's hashing waits for the links, so they are read first on the second
            // connection while the first reads the log: the two reads are then about even.
            let (links_sent, links) = oneshot::channel();
            let on_second = async move {
                let _ = links_sent.send(store::chain::links(&mut second, table.key()).await);
                let read = read_order_and_lines::<G>(&mut second, table).await;
                // Back to the pool as soon as it is done with, for the next reader to have.
                drop(second);
                read
            };
            tokio::join!(read_log::<G>(&mut *conn, table, Some(links)), on_second)
        }
        None => {
            let read = read_log::<G>(&mut *conn, table, None).await?;
            (Ok(read), read_order_and_lines::<G>(&mut *conn, table).await)
        }
    };
    let LogRead {
        logged,
        corrections,
        derived,
        replay,
        stored,
        links,
        recomputed,
    } = read?;
    let (store_order, stored_lines) = order_and_lines?;
    let mut problems = Vec::new();
    let orders_agree = match &derived {
        Ok(order) => {
            let agree = *order == store_order;
            if !agree {
                problems.push("the moves in force, in play order, differ from those the store reads".to_owned());
            }
            agree
        }
        Err(found) => {
            problems.push(found.clone());
            false
        }
    };
    let order = derived.as_ref().unwrap_or(&store_order);
    // The fold through snapshots replays the moves after the latest snapshot from the rows read
    // above when the store orders them as the replay does; else it reads them as the move path
    // does.
    let in_play_order = in_order(&logged, order);
    let incremental = if orders_agree {
        fold::current_over::<G>(&mut *conn, table, &in_play_order).await
    } else {
        fold::current::<G>(&mut *conn, table).await
    };
    let replayed = match joined(replay).await? {
        Some(replayed) => replayed,
        None => {
            let (table, logged, order) = (table.clone(), Arc::clone(&logged), order.clone());
            joined(tokio::task::spawn_blocking(move || {
                replay_log::<G>(&table, &in_order(&logged, &order), &corrections)
            }))
            .await?
        }
    };
    let Replayed {
        game,
        replayed,
        events_match,
        mut expected,
        lines,
        problems: found,
    } = replayed?;
    expected.extend(ruled(
        logged
            .iter()
            .map(|m| (m.seq, m.entry.as_str(), m.kind.as_str(), m.body.as_json())),
    ));
    expected.sort();
    problems.extend(found);
    let recomputed = joined(recomputed).await?;
    let chained = !links.is_empty() || table.chain_head.is_some();
    let mut chain_intact = true;
    if chained {
        if let Some(found) = chain::first_break(&recomputed, Some(&links), table.chain_head.as_deref()) {
            chain_intact = false;
            problems.push(found);
        }
    }
    let in_force = in_force(&stored);
    let mut ledger_matches = in_force == expected;
    if !ledger_matches {
        problems.push(format!(
            "the ledger holds {} bookings in force where the replay books {}, or they differ",
            in_force.len(),
            expected.len()
        ));
    }
    if let Some(found) = reversal_problem(&stored, &logged) {
        ledger_matches = false;
        problems.push(found);
    }
    let mut finished_matches = true;
    if table.finished != game.is_finished() {
        finished_matches = false;
        problems.push(finished_problem(table.finished));
    }
    // A log that no longer replays is a finding here, not a failure: the auditor gets a report.
    let mut state_matches = match incremental {
        Ok(incremental) if incremental == game => true,
        Ok(_) => {
            problems.push("the state read through snapshots differs from the full replay".into());
            false
        }
        Err(ServiceError::Corrupt(why)) => {
            problems.push(format!("the state cannot be read through snapshots: {why}"));
            false
        }
        Err(e) => return Err(e),
    } && finished_matches;
    match stored_lines {
        Ok(stored_lines) if stored_lines == lines => {}
        Ok(_) => {
            state_matches = false;
            problems.push("the score-sheet lines stored differ from the full replay's".into());
        }
        Err(ServiceError::Corrupt(why)) => {
            state_matches = false;
            problems.push(format!("the score-sheet lines cannot be read: {why}"));
        }
        Err(e) => return Err(e),
    }
    Ok(Audit {
        moves_replayed: replayed,
        state_matches,
        events_match,
        ledger_matches,
        chain_intact,
        chained,
        chain_head: recomputed.last().map(|l| chain::hex(&l.hash)).unwrap_or_default(),
        problems,
    })
}

/// The finding when a table's stored `finished` is not what its log replays to.
pub fn finished_problem(stored: bool) -> String {
    if stored {
        "the table is stored as finished but its log replays to a game still under way".to_owned()
    } else {
        "the table is stored as not finished but its log replays to a finished game".to_owned()
    }
}

/// The entries of `logged` (in seq order) with the seqs `order` names, in that order.
fn in_order<'a, J>(logged: &'a [LoggedEntry<J>], order: &[i64]) -> Vec<&'a LoggedEntry<J>> {
    order
        .iter()
        .filter_map(|seq| logged.get(logged.binary_search_by_key(seq, |m| m.seq).ok()?))
        .collect()
}

/// What work on a blocking thread gave; its panic goes on in the caller.
async fn joined<T>(work: JoinHandle<T>) -> Result<T, ServiceError> {
    match work.await {
        Ok(done) => Ok(done),
        Err(e) => match e.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            Err(_) => Err(cancelled()),
        },
    }
}

/// Blocking work cancelled: only a runtime shutting down cancels it, as it closes the pool, so
/// answered as any request that finds the database gone then.
fn cancelled() -> ServiceError {
    StoreError::closed().into()
}
