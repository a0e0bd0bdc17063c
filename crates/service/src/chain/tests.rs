use chrono::TimeZone;
use serde_json::json;

use super::*;
use tablekeeper_ledger::{Account, Chips, Posting};
use tablekeeper_rules::Seat;
use tablekeeper_store::chain::JsonText;

fn table() -> TableRow {
    TableRow {
        id: Uuid::from_u128(0x1234),
        owner_id: Uuid::from_u128(0x5678),
        club_id: Uuid::from_u128(0xc1),
        club_no: 1,
        session_id: Some(Uuid::from_u128(0x9abc)),
        game: "tridge".into(),
        players: vec!["Ann".into(), "Bö \"B\"".into(), "Cat\n".into()],
        options: json!({"opening_chips": 1000, "z": [1.5, null, {"b": 1, "a": "é"}], "a": true}),
        version: 4,
        finished: false,
        deal_lines_kept: true,
        chain_head: None,
        members: None,
        created_at: Utc
            .timestamp_opt(1_700_000_000, 123_456_000)
            .single()
            .unwrap_or_default(),
        updated_at: Utc.timestamp_opt(1_700_000_100, 0).single().expect("a time"),
    }
}

fn logged(seq: i64, entry: &str) -> LoggedEntry {
    LoggedEntry {
        seq,
        entry: entry.into(),
        kind: "result".into(),
        seat: (seq % 2 == 0).then_some(1),
        body: json!({"kind": "result", "tricks": [3, 3, 3], "contract": {"trumps": "hearts", "contract": "play"},
                     "note": "a \"quote\", a tab\t and ü", "top": null, "ratio": -0.25}),
        events: json!([{"event": "deal_scored", "deal": 1}, {"event": "chips_moved", "transfers": []}]),
        voids_seq: (entry == "void").then_some(seq - 1),
        part_of: (seq == 4).then_some(3),
        position: (seq == 4).then(|| "1.50".to_owned()),
        recorded_by: "user:abc".into(),
        recorded_at: Utc
            .timestamp_opt(1_700_000_000 + seq, 7_000)
            .single()
            .unwrap_or_default(),
    }
}

fn correction() -> CorrectionRow {
    CorrectionRow {
        seq: 3,
        deal: 1,
        reason: "wrong trumps — \"hearts\"".into(),
        first_booking: Some(7),
        last_booking: None,
        events: json!({"2": [{"event": "deal_started", "dealer": 1}]}),
        recorded_by: "user:abc".into(),
        recorded_at: Utc.timestamp_opt(1_700_000_003, 0).single().expect("a time"),
        voided_by: None,
        supersedes: vec![1, 2],
    }
}

fn booking(reverses: Option<i64>) -> StoredBooking {
    StoredBooking {
        id: 9,
        move_seq: 2,
        deal: reverses.is_none().then_some(1),
        memo: "deal 1: \"play\" drawn".into(),
        reverses,
        created_at: Utc
            .timestamp_opt(1_700_000_002, 999_999_000)
            .single()
            .unwrap_or_default(),
        postings: vec![
            Posting {
                account: Account::Seat(Seat::new(0)),
                amount: Chips::new(-15),
            },
            Posting {
                account: Account::GameFund,
                amount: Chips::new(15),
            },
            Posting {
                account: Account::Reserve(12),
                amount: Chips::new(0),
            },
        ],
    }
}

// The content as it was built before it was written straight from the rows: these are the
// bytes every stored link hashed.
fn table_value(row: &TableRow, version: i16) -> Value {
    if version >= 3 {
        return json!({
            "table": row.id,
            "owner": row.owner_id,
            "session": row.session_id,
            "game": row.game,
            "members": row.members,
            "players": if row.members.is_some() { json!(null) } else { json!(row.players) },
            "options": row.options,
            "created_at": timestamp(&row.created_at),
        });
    }
    json!({
        "table": row.id,
        "owner": row.owner_id,
        "session": row.session_id,
        "game": row.game,
        "players": row.players,
        "options": row.options,
        "created_at": timestamp(&row.created_at),
    })
}

fn log_value(table: &TableRow, m: &LoggedEntry, correction: Option<&CorrectionRow>, version: i16) -> Value {
    let mut content = json!({
        "table": table.id,
        "seq": m.seq,
        "entry": m.entry,
        "kind": m.kind,
        "seat": m.seat,
        "body": m.body,
        "events": m.events,
        "voids_seq": m.voids_seq,
        "recorded_by": m.recorded_by,
        "recorded_at": timestamp(&m.recorded_at),
    });
    if version >= 2 {
        if let Value::Object(fields) = &mut content {
            fields.insert("position".into(), json!(m.position));
            fields.insert("part_of".into(), json!(m.part_of));
            fields.insert(
                "correction".into(),
                correction.map_or(Value::Null, |c| {
                    json!({
                        "deal": c.deal,
                        "reason": c.reason,
                        "supersedes": c.supersedes,
                        "events": c.events,
                        "first_booking": c.first_booking,
                        "last_booking": c.last_booking,
                    })
                }),
            );
        }
    }
    content
}

fn booking_value(table: &TableRow, b: &StoredBooking) -> Value {
    let mut postings: Vec<(String, i64)> = b
        .postings
        .iter()
        .map(|p| (p.account.to_string(), p.amount.get()))
        .collect();
    postings.sort();
    json!({
        "table": table.id,
        "id": b.id,
        "move_seq": b.move_seq,
        "deal": b.deal,
        "memo": b.memo,
        "reverses": b.reverses,
        "created_at": timestamp(&b.created_at),
        "postings": postings,
    })
}

fn written(entry: &Entry<'_>, version: i16) -> String {
    let mut out = Vec::new();
    assert!(entry.write_content(version, &mut out));
    String::from_utf8(out).expect("UTF-8")
}

#[test]
fn the_content_written_from_the_rows_is_the_canonical_form_of_every_kind_and_version() {
    let row = table();
    let fix = correction();
    let entries = [
        logged(1, "move"),
        logged(2, "move"),
        logged(3, "correction"),
        logged(4, "move"),
        logged(5, "void"),
    ];
    let bookings = [booking(None), booking(Some(8))];
    for version in 1..=CONTENT_VERSION {
        assert_eq!(
            written(&Entry::table(&row), version),
            canonical(&table_value(&row, version))
        );
        let seated = TableRow {
            members: Some(vec![Uuid::from_u128(1), Uuid::from_u128(2)]),
            ..row.clone()
        };
        assert_eq!(
            written(&Entry::table(&seated), version),
            canonical(&table_value(&seated, version)),
            "a set-up with members at version {version}"
        );
        for m in &entries {
            let correction = (m.entry == "correction").then_some(&fix);
            assert_eq!(
                written(&Entry::log(&row, m, correction), version),
                canonical(&log_value(&row, m, correction, version)),
                "log entry {} at version {version}",
                m.seq
            );
        }
        for b in &bookings {
            assert_eq!(
                written(&Entry::booking(&row, b), version),
                canonical(&booking_value(&row, b))
            );
        }
    }
}

#[test]
fn a_log_entry_read_as_json_text_has_the_content_of_its_values() {
    let row = table();
    let fix = correction();
    // Spaced and ordered as the database writes JSON, not as the canonical form has it.
    let as_text = |value: &Value| JsonText(serde_json::to_string_pretty(value).expect("a value writes"));
    for m in [logged(2, "move"), logged(3, "correction"), logged(4, "move")] {
        let text = LoggedEntry {
            seq: m.seq,
            entry: m.entry.clone(),
            kind: m.kind.clone(),
            seat: m.seat,
            body: as_text(&m.body),
            events: as_text(&m.events),
            voids_seq: m.voids_seq,
            part_of: m.part_of,
            position: m.position.clone(),
            recorded_by: m.recorded_by.clone(),
            recorded_at: m.recorded_at,
        };
        assert_ne!(text.body.0, canonical(&m.body));
        let correction = (m.entry == "correction").then_some(&fix);
        let worked_out = canonicalized(vec![text.clone()]);
        assert!(matches!(worked_out[0].events.as_json(), Json::Canonical { .. }));
        for version in 1..=CONTENT_VERSION {
            let from_values = written(&Entry::log(&row, &m, correction), version);
            assert_eq!(written(&Entry::log(&row, &text, correction), version), from_values);
            assert_eq!(
                written(&Entry::log(&row, &worked_out[0], correction), version),
                from_values
            );
        }
    }
}

#[test]
fn text_canonicalised_once_reads_and_writes_as_the_text_does() {
    for text in [
        r#"{"b": [1, 2.50], "a": {"d": null, "c": "\u00e9"}}"#,
        "{\"a\": 1, \"a\": 2}",
        "[1,",
        "",
    ] {
        let once = CanonicalText::new(JsonText(text.to_owned()));
        let (mut kept, mut again) = (Vec::new(), Vec::new());
        let kept_ok = once.as_json().write_canonical(&mut kept).is_ok();
        assert_eq!(kept_ok, Json::Text(text).write_canonical(&mut again).is_ok(), "{text}");
        if kept_ok {
            assert_eq!(kept, again, "{text}");
        }
        assert_eq!(
            format!("{:?}", once.as_json().decode::<Value>()),
            format!("{:?}", Json::Text(text).decode::<Value>()),
            "{text}"
        );
    }
}

#[test]
fn a_version_this_engine_does_not_know_writes_nothing() {
    let row = table();
    let mut out = Vec::new();
    assert!(!Entry::table(&row).write_content(CONTENT_VERSION + 1, &mut out));
    assert!(!Entry::table(&row).write_content(0, &mut out));
    assert!(out.is_empty());
}

#[test]
fn links_hash_the_canonical_form_chained_from_zero() {
    let row = table();
    let m = logged(1, "move");
    let b = booking(None);
    let links = link(
        None,
        &[
            (Entry::table(&row), 2),
            (Entry::log(&row, &m, None), 1),
            (Entry::booking(&row, &b), 2),
        ],
    );
    let contents = [
        canonical(&table_value(&row, 2)),
        canonical(&log_value(&row, &m, None, 1)),
        canonical(&booking_value(&row, &b)),
    ];
    let mut prev = vec![0u8; 32];
    for (l, content) in links.iter().zip(contents) {
        let content_hash = sha256(content.as_bytes());
        let mut joined = prev.clone();
        joined.extend_from_slice(&content_hash);
        assert_eq!(l.content_hash, content_hash);
        assert_eq!(l.prev_hash, prev);
        assert_eq!(l.hash, sha256(&joined));
        prev = l.hash.clone();
    }
}

// The fast form writes nested values in the map's own order: it is the canonical form only
// while serde_json's map is sorted (built without `preserve_order`, a `BTreeMap`).
#[test]
fn serde_json_objects_keep_their_keys_sorted() {
    let mut map = serde_json::Map::new();
    for key in ["zeta", "b", "Z", "a", "ab", "é", "10", "9"] {
        map.insert(key.to_owned(), Value::from(key.len()));
    }
    let keys: Vec<&str> = map.keys().map(String::as_str).collect();
    assert_eq!(keys, ["10", "9", "Z", "a", "ab", "b", "zeta", "é"]);
    let value: Value = serde_json::from_str(r#"{"b": {"y": 1, "x": [{"d": 0, "c": 0}]}, "a": 2}"#).unwrap_or_default();
    assert_eq!(serde_json::to_string(&value).unwrap_or_default(), canonical(&value));
    assert_eq!(canonical(&value), r#"{"a":2,"b":{"x":[{"c":0,"d":0}],"y":1}}"#);
}

#[test]
fn scorers_and_verifications_are_written_in_canonical_form_from_version_3() {
    let row = table();
    let scorer = ChainedScorer {
        number: 4,
        id: Uuid::from_u128(9),
        name: "Ann's phone".into(),
        created_at: chrono::Utc
            .with_ymd_and_hms(2026, 11, 26, 20, 0, 0)
            .single()
            .expect("time"),
    };
    assert_eq!(
        written(&Entry::scorer(&row, &scorer), 3),
        canonical(&json!({
            "table": row.id,
            "number": 4,
            "scorer": scorer.id,
            "name": "Ann's phone",
            "created_at": timestamp(&scorer.created_at),
        }))
    );
    let verification = VerificationRow {
        id: 7,
        deal: 2,
        correction_seq: 0,
        agree: false,
        moves: Some(json!([{"kind": "result", "tricks": [1, 0]}])),
        differs: vec!["/0/tricks/1".into()],
        verified_by: "scorer:x".into(),
        verified_at: scorer.created_at,
    };
    assert_eq!(
        written(&Entry::verification(&row, &verification), 3),
        canonical(&json!({
            "table": row.id,
            "id": 7,
            "deal": 2,
            "correction_seq": 0,
            "agree": false,
            "moves": verification.moves,
            "differs": verification.differs,
            "verified_by": "scorer:x",
            "verified_at": timestamp(&verification.verified_at),
        }))
    );
}
