//! Verification of finished deals by a second phone, as clubs do it with Bridgemate: another
//! scorer (or the organiser) confirms the deal, or disputes it with their own result.
//!
//! Invariants: a verification is a row of its own, never a change to the log or the ledger; a
//! dispute is checked by the engine from the deal's start (its result must make up the deal) and
//! stored with the fields of the score-sheet line it changes; whoever recorded one of the deal's
//! moves cannot verify it. A verification is about the deal as it stands (the correction in
//! force), so a correction leaves the deal unverified until someone verifies it again.

use serde_json::Value;
use tablekeeper_store::{PgConnection, PgPool};
use uuid::Uuid;

use super::corrections::{self, correction_in_force, played, record_of, replay_deal, DealRecord};
use super::idempotency::{self, CreationKey, Kept, Outcome};
use super::receipts::{AuditKeys, Receipt};
use super::{game_of, to_json, Principal, ServiceError};
use tablekeeper_rules::with_game;
use tablekeeper_rules::Game;
use tablekeeper_store::deals::NewVerification;
use tablekeeper_store::tables::TableRow;
use tablekeeper_store::{self as store, StoreError};

/// A verification asked for.
#[derive(Debug, Clone)]
pub struct Request {
    pub table: Uuid,
    pub by: Principal,
    pub deal: u16,
    pub agree: bool,
    /// A dispute's own recording of the deal (usually one result entry).
    pub moves: Option<Vec<Value>>,
    /// The time now (the application's clock): a table of a session final by then is refused.
    pub now: chrono::DateTime<chrono::Utc>,
}

/// Verifies a finished deal, linking the verification into the table's hash chain; the answer
/// `render` makes of the deal as it stands now and the receipt `keys` sign for the chain as it
/// leaves it, kept under `key` when given. A retry with the key gets that first answer and
/// verifies nothing.
///
/// # Errors
/// `Store(NotFound)`, `Forbidden` (another table's scorer), `IdempotencyKeyReused`,
/// `DealNotFound`, `DealNotFinished`, `OwnDeal`, `InvalidVerification`, and for a dispute
/// `InvalidMove`, `Rule` or `NotTheDeal`; `Encode` when `render` fails.
pub async fn verify<K: Kept>(
    pool: &PgPool,
    keys: &AuditKeys,
    request: Request,
    key: Option<&CreationKey>,
    render: impl FnOnce(DealRecord, Receipt) -> Result<K, serde_json::Error>,
) -> Result<Outcome<K>, ServiceError> {
    // The signing key is read (the first time, from the database) before the transaction: read
    // inside it, it would want a second connection while this one holds locks others queue on.
    keys.signing(pool).await?;
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    let row = store::tables::lock(&mut tx, request.table).await?;
    super::access::require_table(&mut tx, request.by, &row, super::access::Capability::Verify).await?;
    if let Some(session) = row.session_id {
        super::finality::refuse_if_final(&mut tx, session, request.now).await?;
    }
    if let Some(first) = idempotency::first_answer_at_table(&mut tx, row.key(), key).await? {
        return Ok(first);
    }
    let record: Result<DealRecord, ServiceError> = async {
        Ok(with_game!(game_of(&row)?, G => {
            verify_as::<G>(&mut tx, &row, &request).await?;
            record_of::<G>(&mut tx, &row, request.deal).await?
        }))
    }
    .await;
    let record = record.map_err(|e| e.at_table(row.id))?;
    // A verification or dispute decides whether a deal stands: linked like a move, under the
    // table's lock, so that changing or removing it afterwards breaks the chain.
    super::chain::extend(&mut tx, &row).await?;
    let now = chrono::Utc::now();
    if !request.agree {
        super::webhooks::enqueue_deal_event(&mut tx, super::webhooks::DEAL_DISPUTED, &row, request.deal, now).await?;
    }
    let receipt = keys.receipt_for(pool, &mut tx, row.key(), row.session_id, now).await?;
    let answer = render(record, receipt).map_err(ServiceError::Encode)?;
    let answer = idempotency::keep_at_table(&mut tx, row.key(), key, answer).await?;
    tx.commit().await.map_err(StoreError::from)?;
    Ok(Outcome::Fresh(answer))
}

async fn verify_as<G: Game>(conn: &mut PgConnection, table: &TableRow, request: &Request) -> Result<(), ServiceError> {
    let played = played::<G>(&mut *conn, table, request.deal).await?;
    if !played.finished {
        return Err(ServiceError::DealNotFinished(request.deal));
    }
    let by = request.by.recorded_by();
    if played.moves[played.range.clone()].iter().any(|m| m.recorded_by == by) {
        return Err(ServiceError::OwnDeal);
    }
    let differs = match (request.agree, &request.moves) {
        (true, None) => Vec::new(),
        (true, Some(_)) => {
            return Err(ServiceError::InvalidVerification(
                "an agreement carries no moves: send {\"agree\": true}, or a dispute with your result",
            ))
        }
        (false, None) => {
            return Err(ServiceError::InvalidVerification(
                "a dispute carries the deal as you saw it: {\"agree\": false, \"moves\": [...]}",
            ))
        }
        (false, Some(moves)) => {
            let mut game = played.start.clone();
            let (_, theirs) = replay_deal(&mut game, request.deal, moves)?;
            let recorded = to_json(&played.lines)?;
            let theirs = to_json(&theirs)?;
            let mut differs = Vec::new();
            differences(&recorded, &theirs, "", &mut differs);
            if differs.is_empty() {
                return Err(ServiceError::DisputeMatchesRecord);
            }
            differs
        }
    };
    let corrections = store::deals::corrections(&mut *conn, table.key(), Some(i32::from(request.deal))).await?;
    let moves = request.moves.clone().map(Value::Array);
    let new = NewVerification {
        deal: i32::from(request.deal),
        correction_seq: correction_in_force(&corrections, request.deal),
        agree: request.agree,
        moves: moves.as_ref(),
        differs: &differs,
        verified_by: &by,
    };
    store::deals::append_verification(&mut *conn, table.key(), &new).await?;
    Ok(())
}

/// The JSON pointers (RFC 6901) at which two score-sheet line lists differ; a deal's one line
/// is `/0`, so its fields read `/0/tricks/2`.
fn differences(a: &Value, b: &Value, at: &str, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let path = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                differences(
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                    &path,
                    out,
                );
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                differences(p, q, &format!("{at}/{i}"), out);
            }
        }
        _ if a != b => out.push(if at.is_empty() { "/".into() } else { at.into() }),
        _ => {}
    }
}

/// How many of a table's finished deals are unverified and disputed: `(deals, unverified,
/// disputed)`.
///
/// # Errors
/// On database failure, or a log that no longer replays.
pub async fn counts(conn: &mut PgConnection, table: &TableRow) -> Result<(usize, usize, usize), ServiceError> {
    let statuses = statuses(conn, table).await?;
    let (mut unverified, mut disputed) = (0, 0);
    for status in &statuses {
        match status {
            corrections::Verification::Unverified => unverified += 1,
            corrections::Verification::Disputed { .. } => disputed += 1,
            corrections::Verification::Verified => {}
        }
    }
    Ok((statuses.len(), unverified, disputed))
}

/// Each finished deal's verification, deal 1 first, read on a connection of `pool`: see
/// [`statuses`].
///
/// # Errors
/// As [`statuses`].
pub async fn deal_statuses(
    pool: &tablekeeper_store::PgPool,
    table: &TableRow,
) -> Result<Vec<corrections::Verification>, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    statuses(&mut conn, table).await
}

/// Each finished deal's verification, deal 1 first, about the deal as it stands (the
/// correction in force).
///
/// # Errors
/// `Store` when the database fails, `Rule` when the stored log no longer replays.
pub async fn statuses(
    conn: &mut PgConnection,
    table: &TableRow,
) -> Result<Vec<corrections::Verification>, ServiceError> {
    let deals = with_game!(game_of(table)?, G => super::history::in_force::<G>(&mut *conn, table)
        .await
        .map_err(|e| e.at_table(table.id))?
        .len());
    let all_corrections = store::deals::corrections(&mut *conn, table.key(), None).await?;
    let verifications = store::deals::verifications(&mut *conn, table.key(), None).await?;
    Ok((1..=u16::try_from(deals).unwrap_or(u16::MAX))
        .map(|deal| {
            let correction = correction_in_force(&all_corrections, deal);
            corrections::verification_of(&verifications, deal, correction)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn differences_name_the_fields_that_differ() {
        let mut out = Vec::new();
        super::differences(
            &json!([{"tricks": [3, 4, 6], "dealer": 1, "a/b": 1}]),
            &json!([{"tricks": [3, 5, 5], "dealer": 1, "a/b": 2}]),
            "",
            &mut out,
        );
        assert_eq!(out, ["/0/a~1b", "/0/tricks/1", "/0/tricks/2"]);
    }
}
