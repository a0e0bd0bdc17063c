//! The one thing the engine knows about a person: an opaque, ordered id. The service maps its
//! members and guests to these (e.g. their position in the event's roster).

use serde::{Deserialize, Serialize};

/// An entrant of an event: an opaque id chosen by the caller. Serialised as a bare number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Entrant(pub u32);

impl std::fmt::Display for Entrant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "entrant {}", self.0)
    }
}
