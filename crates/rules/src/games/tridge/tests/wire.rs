//! The JSON of moves and events: stored logs are replayed and compared byte for byte.

use super::*;

#[test]
fn moves_and_events_serialise_in_the_documented_shapes() {
    let mv: Move = serde_json::from_value(serde_json::json!({
        "kind": "declare", "seat": 1, "contract": {"contract": "play", "trumps": "hearts"}
    }))
    .expect("move");
    assert_eq!(
        mv,
        Move::Declare {
            seat: seat(1),
            contract: hearts()
        }
    );
    let mv: Move = serde_json::from_value(serde_json::json!({
        "kind": "result", "player": 1, "contract": {"contract": "play_diamonds"}, "honours": 2, "tricks": [2, 5, 2]
    }))
    .expect("move");
    assert!(matches!(mv, Move::Result { honours: Some(2), .. }));
    let t = serde_json::to_value(Transfer {
        from: Account::Seat(seat(1)),
        to: Account::Reserve(2),
        amount: chips(5),
    })
    .expect("json");
    assert_eq!(
        t,
        serde_json::json!({"from": {"seat": 1}, "to": {"reserve": 2}, "amount": 5})
    );
}

#[test]
fn a_chips_moved_event_keeps_its_wire_format() {
    let event = Event::ChipsMoved {
        deal: 7,
        reason: "pin".into(),
        transfers: vec![
            Transfer::new(Account::Seat(seat(1)), Account::GameFund, chips(15)),
            Transfer::new(Account::Seat(seat(2)), Account::Reserve(2), chips(5)),
            Transfer::new(Account::WidowsFund, Account::Seat(seat(0)), chips(75)),
            Transfer::new(Account::Bank, Account::Seat(seat(3)), chips(500)),
        ],
    };
    // Serialised by the engine before Tridge booked on `rules::Account` (with its own `Party`
    // and `Transfer`): the audit compares stored events to the replay's byte for byte.
    let wire = r#"{"event":"chips_moved","deal":7,"reason":"pin","transfers":[{"from":{"seat":1},"to":"game_fund","amount":15},{"from":{"seat":2},"to":{"reserve":2},"amount":5},{"from":"widows_fund","to":{"seat":0},"amount":75},{"from":"bank","to":{"seat":3},"amount":500}]}"#;
    assert_eq!(serde_json::to_string(&event).expect("json"), wire);
    assert_eq!(serde_json::from_str::<Event>(wire).expect("event"), event);
}
