//! Example answers for the spec, as the server gave them: a three-player Nomination Whist table's
//! first nomination (`submit_move`), and its undo (`undo_move`). Kept as the JSON the server sent,
//! so that they stay valid answers; the linters check them against the schemas.

use serde_json::Value;

fn parsed(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

/// `POST /tables/{id}/moves`: the move, the table after it, and its receipt.
pub fn submit_move() -> Value {
    parsed(include_str!("examples/submit_move.json"))
}

/// `POST /tables/{id}/undo`: the void, the move it voided, the table after it, and its receipt.
pub fn undo_move() -> Value {
    parsed(include_str!("examples/undo_move.json"))
}
