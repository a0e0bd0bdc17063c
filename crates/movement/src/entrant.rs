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

/// A map keyed by entrants (or pairs of them). Their ids are small numbers the caller chose, so
/// a multiplicative hash serves (std's SipHash made up half of a round's time unoptimised).
pub(crate) type Map<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<IdHasher>>;

/// A set of entrants (or pairs of them); see [`Map`].
pub(crate) type Set<K> = std::collections::HashSet<K, std::hash::BuildHasherDefault<IdHasher>>;

/// The hasher of [`Map`] and [`Set`] (FxHash's step).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

impl IdHasher {
    fn add(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl std::hash::Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.add(u64::from(*b));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}
