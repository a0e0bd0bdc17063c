//! Which session member sits at which seat of a new table (`CreateTable.members`).
//!
//! The documented form lists only the seats whose member is named, as `{seat, member}`: an
//! array whose items may be null cannot be read by some generated clients (openapi-generator's
//! Rust client has no `Vec<Option<T>>`). The earlier form, one member id or null per seat, is
//! still accepted so that existing clients keep working; the spec no longer describes it.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::error::ApiError;
use tablekeeper_rules::Seat;

/// The session member (`GET /sessions/{id}`) who sits at `seat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatMember {
    pub seat: Seat,
    /// The member's id on the session's roster, or their id in the club.
    pub member: Uuid,
}

/// `CreateTable.members` in either form; `{seat, member}` items are tried first, so an empty
/// list names no member (every seat is found by name).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Members {
    Named(Vec<SeatMember>),
    /// The form before issue #26: one entry per seat, null for a seat found by name.
    PerSeat(Vec<Option<Uuid>>),
}

impl Members {
    /// The member named at each of `players` seats (None: found by the player's name), the form
    /// the use case takes. The per-seat form is passed on as sent: the use case checks its length.
    ///
    /// # Errors
    /// `invalid_members` for a seat beyond the table or a seat named twice.
    pub fn per_seat(self, players: usize) -> Result<Vec<Option<Uuid>>, ApiError> {
        let named = match self {
            Members::PerSeat(per_seat) => return Ok(per_seat),
            Members::Named(named) => named,
        };
        let mut out = vec![None; players];
        for SeatMember { seat, member } in named {
            let slot = out.get_mut(seat.index()).ok_or_else(|| {
                ApiError::unprocessable(
                    "invalid_members",
                    format!("seat {seat} is not at this table of {players} players"),
                )
            })?;
            if slot.replace(member).is_some() {
                return Err(ApiError::unprocessable(
                    "invalid_members",
                    format!("seat {seat} is given a member twice"),
                ));
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(json: &str) -> Members {
        serde_json::from_str(json).expect("a members list")
    }

    #[test]
    fn named_seats_fill_their_places_and_the_rest_are_found_by_name() {
        let id = Uuid::from_u128(7);
        let members = parsed(&format!(r#"[{{"seat": 2, "member": "{id}"}}]"#));
        assert_eq!(members.per_seat(4).ok(), Some(vec![None, None, Some(id), None]));
    }

    #[test]
    fn the_earlier_per_seat_form_with_nulls_is_still_read() {
        let id = Uuid::from_u128(7);
        let members = parsed(&format!(r#"[null, "{id}", null]"#));
        assert_eq!(members, Members::PerSeat(vec![None, Some(id), None]));
        assert_eq!(members.per_seat(3).ok(), Some(vec![None, Some(id), None]));
    }

    #[test]
    fn a_seat_beyond_the_table_or_named_twice_is_refused() {
        let id = Uuid::from_u128(7);
        let beyond = parsed(&format!(r#"[{{"seat": 4, "member": "{id}"}}]"#));
        assert!(beyond.per_seat(4).is_err());
        let twice = parsed(&format!(
            r#"[{{"seat": 1, "member": "{id}"}}, {{"seat": 1, "member": "{id}"}}]"#
        ));
        assert!(twice.per_seat(4).is_err());
    }
}
