//! The clock, passed in so that every stage is deterministic under test: wall time for
//! timestamps, monotonic time for durations.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

pub trait Clock {
    /// Wall-clock time, for timestamps.
    fn now(&self) -> DateTime<Utc>;
    /// Time elapsed since the run started, for durations and budgets.
    fn elapsed(&self) -> Duration;
    /// A mark to measure a span from (`elapsed() - mark`), e.g. the time budget from the moment
    /// the payload has been read. A fixed clock marks zero, so its whole `elapsed` counts as spent
    /// after the mark.
    fn mark(&self) -> Duration {
        self.elapsed()
    }
}

/// The real clock; `elapsed` counts from its creation.
pub struct SystemClock {
    start: Instant,
}

impl SystemClock {
    pub fn start() -> SystemClock {
        SystemClock {
            start: Instant::now(),
        }
    }
}

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }

    fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }
}

/// A clock that always reads the same time, for tests and snapshots.
#[derive(Debug, Clone, Copy)]
pub struct FixedClock {
    pub now: DateTime<Utc>,
    pub elapsed: Duration,
}

impl Clock for FixedClock {
    fn now(&self) -> DateTime<Utc> {
        self.now
    }

    fn elapsed(&self) -> Duration {
        self.elapsed
    }

    fn mark(&self) -> Duration {
        Duration::ZERO
    }
}
