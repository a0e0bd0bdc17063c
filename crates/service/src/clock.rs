//! The service's clock: what time it is for the use cases that compare against a time (a
//! session's correction window). One per application state, so that a test moves its own
//! server's time, never another's, and never sleeps.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use chrono::{DateTime, Duration, DurationRound, Utc};

/// The time now, as the system's clock has it plus however far it was moved on.
#[derive(Debug, Clone, Default)]
pub struct Clock {
    /// Microseconds added to the system's time.
    ahead: Arc<AtomicI64>,
}

impl Clock {
    /// The system's time.
    pub fn system() -> Clock {
        Clock::default()
    }

    /// The time now, in whole microseconds (what PostgreSQL keeps).
    pub fn now(&self) -> DateTime<Utc> {
        let now = Utc::now() + Duration::microseconds(self.ahead.load(Ordering::Relaxed));
        now.duration_trunc(Duration::microseconds(1)).unwrap_or(now)
    }

    /// Moves this clock (and every copy of it) on by `by` (back, when negative).
    pub fn advance(&self, by: Duration) {
        self.ahead
            .fetch_add(by.num_microseconds().unwrap_or(i64::MAX), Ordering::Relaxed);
    }
}
