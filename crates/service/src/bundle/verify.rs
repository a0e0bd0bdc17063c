//! Checking a bundle offline: its form, its signature, every table's chain, the session's record
//! chain, and a replay of every table with the same engine as the audit.

use super::witnesses::{
    check_checkpoint, check_cosignatures, check_cosigned_by, check_receipt, check_receipt_checkpoint,
};
use super::*;

/// Verifies a bundle's bytes, optionally against a public key (hex) the verifier trusts; the
/// one-line summary, or the first discrepancy.
///
/// # Errors
/// A sentence naming the first discrepancy.
pub fn verify(bytes: &[u8], trusted_key: Option<&str>) -> Result<String, String> {
    let trusted = match trusted_key {
        Some(hex) => vec![unhex::<32>(hex.trim())
            .and_then(|k| VerifyingKey::from_bytes(&k).ok())
            .ok_or("the public key is not 64 lower-case hex digits of an Ed25519 key")?],
        None => Vec::new(),
    };
    verify_with(bytes, &trusted, &[])
}

/// Verifies a bundle's bytes against the public keys the verifier trusts (any of them may have
/// signed it, so a bundle from before a key rotation verifies; none: the bundle's own key is
/// taken at its word), and the receipts phones kept (as [`receipts::read`] reads them, each
/// signed by one of the keys, or by the bundle's own when none are given): the bundle must
/// hold, at each receipt's position of its table's chain, the very link the receipt signed.
/// Receipts of other sessions are counted and passed over.
///
/// # Errors
/// A sentence naming the first discrepancy.
pub fn verify_with(bytes: &[u8], trusted: &[VerifyingKey], kept: &[(Receipt, Value)]) -> Result<String, String> {
    verify_checked(bytes, trusted, kept, &[])
}

/// As [`verify_with`], and the final checkpoints an auditor kept (`finals`: each the document
/// `GET /sessions/{id}/final` gives, or its `checkpoint`), with the bundle's own: each must be
/// signed by one of the keys (the bundle's own when none are given) and hold for the bundle
/// (`check_final`). Checkpoints of other sessions are refused.
///
/// # Errors
/// A sentence naming the first discrepancy.
pub fn verify_checked(
    bytes: &[u8],
    trusted: &[VerifyingKey],
    kept: &[(Receipt, Value)],
    finals: &[Value],
) -> Result<String, String> {
    let document: Value = serde_json::from_slice(bytes).map_err(|e| format!("the bundle is not JSON: {e}"))?;
    if chain::canonical(&document).as_bytes() != bytes {
        return Err("the bundle is not in its canonical form: it was changed after it was written".into());
    }
    let Value::Object(mut map) = document else {
        return Err("the bundle is not a JSON object".into());
    };
    let signature: Signature = map
        .remove("signature")
        .ok_or("the bundle is not signed")
        .and_then(|s| serde_json::from_value(s).map_err(|_| "the signature does not read"))?;
    if signature.algorithm != "ed25519" {
        return Err(format!(
            "the signature's algorithm is `{}`, not ed25519",
            signature.algorithm
        ));
    }
    let key = unhex::<32>(&signature.public_key)
        .and_then(|k| VerifyingKey::from_bytes(&k).ok())
        .ok_or("the bundle's public key is not an Ed25519 key")?;
    if !trusted.is_empty() && !trusted.contains(&key) {
        return Err(format!(
            "the bundle is signed with another key than the ones given: key {} ({}), which is not among them",
            receipts::key_id(&key),
            signature.public_key
        ));
    }
    let value = unhex::<64>(&signature.value).ok_or("the signature is not 128 lower-case hex digits")?;
    let payload = Value::Object(map);
    key.verify(
        chain::canonical(&payload).as_bytes(),
        &ed25519_dalek::Signature::from_bytes(&value),
    )
    .map_err(|_| "the signature does not match the bundle's content".to_owned())?;
    let payload: Payload =
        serde_json::from_value(payload).map_err(|e| format!("the bundle's content does not read: {e}"))?;
    if ![FORMAT, FORMAT_3, FORMAT_2, FORMAT_1].contains(&payload.format.as_str()) {
        return Err(format!(
            "the bundle's format is `{}`, not {FORMAT} (nor {FORMAT_3}, {FORMAT_2} or {FORMAT_1})",
            payload.format
        ));
    }
    if payload.format == FORMAT {
        check_session(&payload)?;
    }
    let mut moves = 0;
    let mut bookings = 0;
    for table in &payload.tables {
        check_table(table)?;
        moves += table.log.len();
        bookings += table.ledger.len();
    }
    let receipt_keys = if trusted.is_empty() {
        vec![key]
    } else {
        trusted.to_vec()
    };
    let mut matched = 0;
    let mut elsewhere = 0;
    for (receipt, as_kept) in kept {
        receipts::check_signature(receipt, as_kept, &receipt_keys)?;
        if receipt.session != Some(payload.session.id) {
            elsewhere += 1;
            continue;
        }
        check_receipt(&payload, receipt)?;
        check_receipt_checkpoint(&payload, receipt, &receipt_keys)?;
        matched += 1;
    }
    let mut cosigned = String::new();
    for table in &payload.tables {
        if let Some(note) = &table.checkpoint {
            check_checkpoint(table, note, &receipt_keys)?;
            if let Some(by) = check_cosignatures(table, note)? {
                cosigned.push_str(&format!("; table {}'s last checkpoint cosigned by {by}", table.id));
            }
        }
    }
    let mut checked = 0;
    for document in payload.session.finals.iter().chain(finals) {
        let document = match document.get("checkpoint") {
            Some(inner) if document.get("signature").is_none() => inner,
            _ => document,
        };
        check_final(&payload, document, &receipt_keys)?;
        checked += 1;
    }
    let receipts = if kept.is_empty() {
        String::new()
    } else {
        format!("; {matched} receipts found in the chains ({elsewhere} of other sessions passed over)")
    };
    Ok(format!(
        "ok: session {} ({}), {} tables, {moves} log entries and {bookings} bookings replayed and chained; signed by {} (key {}) with {}{receipts}",
        payload.session.id,
        payload.session.name,
        payload.tables.len(),
        signature.public_key,
        receipts::key_id(&key),
        payload.engine,
    ) + &cosigned
        + &if checked == 0 {
        String::new()
    } else {
        format!("; {checked} final checkpoints hold")
    })
}

/// A final checkpoint holds for the bundle: signed by one of `keys`; of this session and of a
/// close its chain holds with this checkpoint's hash; the session's chain and every table's hold
/// the links it signed at their positions; and, unless that close was reopened, nothing was
/// written after it (no table's chain goes further, no table was added) and the standings and
/// settle-up it signed are what the bundle's tables give, worked out again.
fn check_final(payload: &Payload, document: &Value, keys: &[VerifyingKey]) -> Result<(), String> {
    let (checkpoint, hash) = crate::closing::check_checkpoint(document, keys)?;
    let s = &payload.session;
    let n = checkpoint.get("close").and_then(Value::as_i64).unwrap_or_default();
    let of = format!("the final checkpoint of close {n}");
    if checkpoint.get("session").and_then(Value::as_str) != Some(s.id.to_string().as_str()) {
        return Err(format!("{of} is of another session than the bundle's ({})", s.id));
    }
    let close = s.closes.iter().find(|c| i64::from(c.n) == n).ok_or_else(|| {
        format!("session {}: its chain holds no close {n}, which {of} was signed for: the close was taken out of its record", s.id)
    })?;
    if close.checkpoint.as_deref().is_some_and(|h| h != hash) {
        return Err(format!(
            "session {}: its chain holds another final checkpoint for close {n} than {of} kept",
            s.id
        ));
    }
    if let Some(record) = checkpoint.get("record").filter(|r| !r.is_null()) {
        let position = record.get("position").and_then(Value::as_i64).unwrap_or(-1);
        let head = record.get("head").and_then(Value::as_str).unwrap_or_default();
        if !s.chain.iter().any(|l| l.pos == position && l.hash == head) {
            return Err(format!(
                "session {}: its chain does not hold at position {position} the link {of} signed: the session's record was rewritten after it was final",
                s.id
            ));
        }
    }
    let named = checkpoint
        .get("tables")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let reopened = close.reopened.is_some();
    for t in &named {
        let id = t.get("table").and_then(Value::as_str).unwrap_or_default();
        let table = payload.tables.iter().find(|p| p.id.to_string() == id).ok_or_else(|| {
            format!("table {id}, which {of} names, is not in the bundle: it was taken out of the session or removed")
        })?;
        let Some(position) = t.get("position").and_then(Value::as_i64) else {
            continue;
        };
        let head = t.get("head").and_then(Value::as_str).unwrap_or_default();
        match table.chain.iter().find(|l| l.pos == position) {
            Some(link) if link.hash == head => {}
            _ => {
                return Err(format!(
                    "table {id}: the chain does not hold at position {position} the link {of} signed: it was rewritten after the session was final"
                ))
            }
        }
        check_cosigned_by(table, t, position, &of)?;
        if !reopened && table.chain.last().is_some_and(|l| l.pos > position) {
            return Err(format!(
                "table {id}: its chain goes on past position {position}, where {of} signed it: entries were written after the session was final"
            ));
        }
    }
    if !reopened {
        if let Some(added) = payload.tables.iter().find(|p| {
            !named
                .iter()
                .any(|t| t.get("table").and_then(Value::as_str) == Some(p.id.to_string().as_str()))
        }) {
            return Err(format!(
                "table {} is not named by {of}: it was added to the session after it was final",
                added.id
            ));
        }
        // Nothing was written since: the standings and settle-up it signed are what the bundle's
        // tables give, worked out again here.
        let (standings, settlement) = bundle_standings(payload)?;
        for (name, given, worked) in [
            ("standings", checkpoint.get("standings"), standings),
            ("settle-up", checkpoint.get("settlement"), settlement),
        ] {
            if given != Some(&worked) {
                return Err(format!(
                    "session {}: the {name} {of} signed are not what the bundle's tables give ({worked}): the checkpoint's figures were not the record's",
                    s.id
                ));
            }
        }
    }
    Ok(())
}

/// The session's chain (format 4): its links follow each other and the last holds the session as
/// bundled (chip value, club, date, roster's club members); every table is the session's.
fn check_session(payload: &Payload) -> Result<(), String> {
    let s = &payload.session;
    let what = format!("session {}", s.id);
    let mut links = Vec::with_capacity(s.chain.len());
    for l in &s.chain {
        let bad = || format!("{what}: link {} of its chain does not read", l.pos);
        links.push(store::records::RecordLink {
            pos: l.pos,
            version: l.content_version,
            content: l.content.clone(),
            content_hash: unhex::<32>(&l.content_hash).ok_or_else(bad)?.to_vec(),
            prev_hash: unhex::<32>(&l.prev_hash).ok_or_else(bad)?.to_vec(),
            hash: unhex::<32>(&l.hash).ok_or_else(bad)?.to_vec(),
        });
    }
    if let Some(t) = payload.tables.iter().find(|t| t.session_id != Some(s.id)) {
        return Err(format!("table {} is not a table of {what}", t.id));
    }
    // A session an earlier release wrote during a rolling upgrade is linked at its next change;
    // until then there is nothing to check it against, as the audit has it.
    if links.is_empty() {
        return Ok(());
    }
    let mut members = Vec::with_capacity(s.members.len());
    for m in &s.members {
        let club_member = m
            .club_member_id
            .ok_or_else(|| format!("{what}: roster entry {} names no club member", m.id))?;
        members.push(store::records::RosterEntry { club_member, id: m.id });
    }
    // In id order, as the record holds them.
    members.sort_by_key(|m| m.id);
    let record = store::records::SessionRecord {
        chip_value: s.chip_value,
        club: s.club_id.ok_or_else(|| format!("{what} names no club"))?,
        created_at: s.created_at,
        currency: s.currency.clone(),
        members,
        session: s.id,
        tournaments: s.tournaments.clone(),
        closes: s.closes.clone(),
    };
    for t in &s.tournaments {
        for round in &t.rounds {
            if let Some(table) = round
                .tables
                .iter()
                .find(|x| !payload.tables.iter().any(|p| p.id == x.table))
            {
                return Err(format!(
                    "{what}: tournament {} opened table {} in round {}, which is not in the bundle",
                    t.tournament, table.table, round.number
                ));
            }
        }
    }
    match chain::record::check(&what, &links, &record) {
        Some(found) => Err(found),
        None => Ok(()),
    }
}

/// A table's bundled bookings as the ledger stores them; each must sum to zero.
fn stored_bookings(t: &TablePart) -> Result<Vec<StoredBooking>, String> {
    let at = |what: String| format!("table {}: {what}", t.id);
    let mut stored = Vec::with_capacity(t.ledger.len());
    for b in &t.ledger {
        let mut postings = Vec::with_capacity(b.postings.len());
        for (account, amount) in &b.postings {
            let account = Account::parse(account).map_err(|e| at(format!("booking {}: {e}", b.id)))?;
            postings.push(Posting {
                account,
                amount: Chips::new(*amount),
            });
        }
        if postings.iter().map(|p| i128::from(p.amount.get())).sum::<i128>() != 0 {
            return Err(at(format!("booking {} does not sum to zero", b.id)));
        }
        stored.push(StoredBooking {
            id: b.id,
            move_seq: b.move_seq,
            deal: b.deal,
            memo: b.memo.clone(),
            reverses: b.reverses,
            created_at: b.created_at,
            postings,
        });
    }
    Ok(stored)
}

/// The session's standings and settle-up worked out from the bundle (its tables' bookings, score
/// sheets and rulings, its roster and its tournaments' leftover transfers) by the code the
/// service makes a final checkpoint's with: `(standings, settlement)` as a checkpoint has them.
fn bundle_standings(payload: &Payload) -> Result<(Value, Value), String> {
    let s = &payload.session;
    let session = store::sessions::ClubSession {
        id: s.id,
        owner_id: s.owner_id,
        club_id: s.club_id.unwrap_or_default(),
        name: s.name.clone(),
        created_at: s.created_at,
        chip_value: s.chip_value,
        currency: s.currency.clone(),
    };
    let roster: Vec<store::sessions::Member> = s
        .members
        .iter()
        .map(|m| store::sessions::Member {
            id: m.id,
            name: m.name.clone(),
            club_member_id: m.club_member_id.unwrap_or(m.id),
        })
        .collect();
    let mut tables = Vec::with_capacity(payload.tables.len());
    for t in &payload.tables {
        let rulings: Vec<store::rulings::RulingEntry> = t
            .log
            .iter()
            .filter(|e| e.entry == "ruling")
            .map(|e| store::rulings::RulingEntry {
                seq: e.seq,
                kind: e.kind.clone(),
                body: e.body.clone(),
                events: e.events.clone(),
                recorded_by: e.recorded_by.clone(),
                recorded_at: e.recorded_at,
            })
            .collect();
        tables.push(crate::sessions::TableFigures {
            id: t.id,
            game: t.game.clone(),
            players: t.players.clone(),
            members: t.members.clone(),
            options: t.options.clone(),
            bookings: stored_bookings(t)?,
            sheet: t.scores.clone(),
            ruled: crate::ruled::adjusted(&rulings, t.players.len(), None),
        });
    }
    let mut leftovers = Vec::new();
    for tournament in &s.tournaments {
        for round in &tournament.rounds {
            for l in &round.leftovers {
                let table = round.tables.iter().find(|t| t.number == l.table).ok_or_else(|| {
                    format!(
                        "tournament {}: round {}'s leftover names table {}, which the round does not hold",
                        tournament.tournament, round.number, l.table
                    )
                })?;
                leftovers.push((
                    tournament.tournament,
                    store::tournaments::LeftoverRow {
                        round: round.number,
                        table_number: l.table,
                        seq: l.seq,
                        table_id: table.table,
                        from_account: l.from.clone(),
                        to_account: l.to.clone(),
                        amount: l.amount,
                    },
                ));
            }
        }
    }
    let standings = crate::sessions::standings_of(session, &roster, &tables, leftovers)
        .map_err(|e| format!("session {}: the standings do not add up from the bundle: {e}", s.id))?;
    crate::closing::standings_and_settlement(&standings)
        .map_err(|e| format!("session {}: the settle-up does not add up from the bundle: {e}", s.id))
}

fn check_table(t: &TablePart) -> Result<(), String> {
    let at = |what: String| format!("table {}: {what}", t.id);
    let row = TableRow {
        id: t.id,
        owner_id: t.owner_id,
        // A bundle's evidence does not name the club: it is the tenant, not the record.
        club_id: Uuid::nil(),
        club_no: 0,
        session_id: t.session_id,
        game: t.game.clone(),
        players: t.players.clone(),
        options: t.options.clone(),
        version: t.version,
        finished: t.finished,
        deal_lines_kept: true,
        chain_head: None,
        members: t.members.clone(),
        created_at: t.created_at,
        updated_at: t.updated_at,
    };
    let stored = stored_bookings(t)?;
    if t.log.len() as i64 != t.version || t.log.iter().enumerate().any(|(i, m)| m.seq != i as i64 + 1) {
        return Err(at(format!("the log is not entries 1 to {} in order", t.version)));
    }
    let logged: Vec<LoggedEntry> = t
        .log
        .iter()
        .map(|m| LoggedEntry {
            seq: m.seq,
            entry: m.entry.clone(),
            kind: m.kind.clone(),
            seat: m.seat,
            body: m.body.clone(),
            events: m.events.clone(),
            voids_seq: m.voids_seq,
            part_of: m.part_of,
            position: m.position.clone(),
            recorded_by: m.recorded_by.clone(),
            recorded_at: m.recorded_at,
        })
        .collect();
    let corrections = corrections_of(t).map_err(at)?;
    // The chain first: it names the entry that was changed.
    let mut stored_links = Vec::with_capacity(t.chain.len());
    for l in &t.chain {
        let bad = || at(format!("link {} does not read", l.pos));
        stored_links.push(LinkRow {
            pos: l.pos,
            entry: l.entry.clone(),
            reference: l.reference,
            version: l.content_version,
            content_hash: unhex::<32>(&l.content_hash).ok_or_else(bad)?.to_vec(),
            prev_hash: unhex::<32>(&l.prev_hash).ok_or_else(bad)?.to_vec(),
            hash: unhex::<32>(&l.hash).ok_or_else(bad)?.to_vec(),
        });
    }
    let scorers: Vec<ChainedScorer> = t
        .scorers
        .iter()
        .map(|s| ChainedScorer {
            number: s.number,
            id: s.id,
            name: s.name.clone(),
            created_at: s.joined_at,
        })
        .collect();
    let verifications: Vec<VerificationRow> = t
        .verifications
        .iter()
        .map(|v| VerificationRow {
            id: v.id,
            deal: v.deal,
            correction_seq: v.correction_seq,
            agree: v.agree,
            moves: v.moves.clone(),
            differs: v.differs.clone(),
            verified_by: v.verified_by.clone(),
            verified_at: v.verified_at,
        })
        .collect();
    let roster = chain::Roster {
        scorers: &scorers,
        verifications: &verifications,
    };
    let links = chain::link(
        None,
        &chain::in_link_order(
            chain::entries(&row, &logged, &corrections, &stored, roster),
            &stored_links,
        ),
    );
    let head = match &t.chain_head {
        Some(head) => Some(unhex::<32>(head).ok_or_else(|| at("the chain head is not 64 hex digits".into()))?),
        None if stored_links.is_empty() => None,
        None => return Err(at("the table has chain links but no head".into())),
    };
    if let Some(head) = head {
        if let Some(found) = chain::first_break(&links, Some(&stored_links), Some(&head)) {
            return Err(at(found));
        }
    }
    derived_fields_follow(t, &corrections).map_err(at)?;
    let order = audit::play_order(&logged, &corrections).map_err(at)?;
    let effective: Vec<&LoggedEntry> = order
        .iter()
        .filter_map(|seq| logged.get(usize::try_from(seq - 1).ok()?))
        .collect();
    if let Some(found) = audit::reversal_problem(&stored, &logged) {
        return Err(at(found));
    }
    let game = GameId::parse(&t.game).ok_or_else(|| at(format!("this engine has no game `{}`", t.game)))?;
    with_game!(game, G => replay_and_compare::<G>(&row, t, &effective, &corrections, &stored).map_err(at))
}

/// The table's corrections as the audit reads them, each the row of a correction entry of the
/// log and every such entry with its row; who recorded it, when, and the void that undid it
/// taken from the log.
fn corrections_of(t: &TablePart) -> Result<Vec<CorrectionRow>, String> {
    let mut rows: Vec<CorrectionRow> = Vec::with_capacity(t.corrections.len());
    for c in &t.corrections {
        let entry = usize::try_from(c.seq - 1)
            .ok()
            .and_then(|i| t.log.get(i))
            .filter(|m| m.entry == "correction")
            .ok_or_else(|| format!("correction {} is not a correction entry of the log", c.seq))?;
        if rows.iter().any(|r| r.seq == c.seq) {
            return Err(format!("correction {} is given twice", c.seq));
        }
        rows.push(CorrectionRow {
            seq: c.seq,
            deal: c.deal,
            reason: c.reason.clone(),
            first_booking: c.first_booking,
            last_booking: c.last_booking,
            events: c.events.clone(),
            recorded_by: entry.recorded_by.clone(),
            recorded_at: entry.recorded_at,
            voided_by: t.log.iter().find(|v| v.voids_seq == Some(c.seq)).map(|v| v.seq),
            supersedes: c.supersedes.clone(),
        });
    }
    if let Some(m) = t
        .log
        .iter()
        .find(|m| m.entry == "correction" && !rows.iter().any(|r| r.seq == m.seq))
    {
        return Err(format!(
            "log entry {} is a correction the bundle gives no row for (the bundle's format is older than corrections, or it was cut)",
            m.seq
        ));
    }
    rows.sort_by_key(|r| r.seq);
    Ok(rows)
}

/// The log's derived fields (`voided_by`, `superseded_by`, `part_of`) say what its entries and
/// corrections say, so that a reader of the bundle is not misled by them.
fn derived_fields_follow(t: &TablePart, corrections: &[CorrectionRow]) -> Result<(), String> {
    for m in &t.log {
        let voided_by = t.log.iter().find(|v| v.voids_seq == Some(m.seq)).map(|v| v.seq);
        let superseded_by = corrections
            .iter()
            .filter(|c| c.supersedes.contains(&m.seq))
            .map(|c| c.seq)
            .max();
        let part_of_a_correction = m.part_of.is_none_or(|c| corrections.iter().any(|r| r.seq == c));
        if m.voided_by != voided_by {
            return Err(format!("log entry {}: `voided_by` does not follow from the log", m.seq));
        }
        if m.superseded_by != superseded_by {
            return Err(format!(
                "log entry {}: `superseded_by` does not follow from the corrections",
                m.seq
            ));
        }
        if !part_of_a_correction {
            return Err(format!("log entry {}: `part_of` names no correction", m.seq));
        }
    }
    Ok(())
}

fn replay_and_compare<G: Game>(
    row: &TableRow,
    t: &TablePart,
    effective: &[&LoggedEntry],
    corrections: &[CorrectionRow],
    stored: &[StoredBooking],
) -> Result<(), String> {
    let Replayed {
        game,
        replayed,
        mut expected,
        lines,
        problems,
        ..
    } = audit::replay_log::<G>(row, effective, corrections).map_err(|e| e.to_string())?;
    expected.extend(audit::ruled(t.log.iter().map(|m| {
        (
            m.seq,
            m.entry.as_str(),
            m.kind.as_str(),
            crate::chain::Json::Value(&m.body),
        )
    })));
    expected.sort();
    if let Some(first) = problems.into_iter().next() {
        return Err(first);
    }
    debug_assert_eq!(replayed, effective.len());
    let in_force = audit::in_force(stored);
    if let Some(i) = (0..in_force.len().max(expected.len())).find(|&i| in_force.get(i) != expected.get(i)) {
        let named = in_force.get(i).or(expected.get(i)).map_or(0, |k| k.0);
        return Err(format!(
            "the ledger differs from the replay's bookings at those of log entry {named} ({} in force, {} replayed)",
            in_force.len(),
            expected.len()
        ));
    }
    if t.finished != game.is_finished() {
        return Err(audit::finished_problem(t.finished));
    }
    let sheet = serde_json::to_value(game.score_sheet_of(&lines)).map_err(|e| e.to_string())?;
    if sheet != t.scores {
        return Err("the score sheet differs from the replay's".into());
    }
    Ok(())
}
