//! Sans-IO health of one LLM server in the failover chain: consecutive failures, how long
//! the server is skipped, and when it is due for a background probe.
//!
//! A server that failed [`FAILS_TO_SKIP`] answers in a row is skipped for `[llm] skip_secs`
//! (60 s by default), then probed; a good probe puts it back on probation (one more failure
//! skips it again, for twice as long, up to [`SKIP_MAX`]), a good answer makes it healthy
//! again (the wait starts over). Only failures that another server could avoid count (see
//! [`fails_over`]); a 400 or a bad key is the config's fault and counts for nothing.

use std::time::Duration;

use tokio::time::Instant;

use super::LlmError;

/// Failed answers in a row before a server is skipped.
pub(crate) const FAILS_TO_SKIP: u32 = 3;

/// The longest skip: the wait doubles on every failed probe up to this.
pub(crate) const SKIP_MAX: Duration = Duration::from_secs(600);

/// Whether `error` is the server's fault, so the next server in the chain may do better:
/// it could not be reached, timed out, was overloaded (408, 429) or broke (5xx). A 4xx such
/// as 400 (bad request), 401 (bad key) or 404 (no such model), a malformed or empty answer,
/// and a client that cannot be built are not: every server would be asked the same way.
pub(crate) fn fails_over(error: &LlmError) -> bool {
    match error {
        LlmError::Timeout | LlmError::Connect(_) => true,
        LlmError::Status { status, .. } => matches!(status, 408 | 429 | 500..=599),
        LlmError::BadResponse(_) | LlmError::Empty | LlmError::Setup(_) => false,
    }
}

/// One server's health.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Health {
    /// Failed answers since the last good one (or the last good probe, see `probation`).
    failures: u32,
    /// Skipped until the probe succeeds; the probe is due at this instant.
    skipped_until: Option<Instant>,
    /// The next skip's length: the first one, doubled after each failed probe.
    next_skip: Duration,
    first_skip: Duration,
}

impl Health {
    pub fn new(first_skip: Duration) -> Health {
        Health {
            failures: 0,
            skipped_until: None,
            next_skip: first_skip,
            first_skip,
        }
    }

    /// Whether answers may go to this server now.
    pub(crate) fn usable(&self) -> bool {
        self.skipped_until.is_none()
    }

    /// When the probe is due, if the server is skipped.
    pub(crate) fn probe_at(&self) -> Option<Instant> {
        self.skipped_until
    }

    /// A good answer: healthy again, and the next skip starts from the first length.
    pub(crate) fn succeeded(&mut self) {
        *self = Health::new(self.first_skip);
    }

    /// A failed answer. Returns true when this failure made the server skipped.
    pub(crate) fn failed(&mut self, error: &LlmError, now: Instant) -> bool {
        if !fails_over(error) || self.skipped_until.is_some() {
            return false;
        }
        self.failures += 1;
        if self.failures < FAILS_TO_SKIP {
            return false;
        }
        self.skip(now);
        true
    }

    /// The probe's outcome. A good probe lifts the skip but leaves the server on probation:
    /// one failed answer skips it again, for twice as long.
    pub(crate) fn probed(&mut self, ok: bool, now: Instant) {
        if self.skipped_until.is_none() {
            return;
        }
        if ok {
            self.skipped_until = None;
            self.failures = FAILS_TO_SKIP - 1;
        } else {
            self.skip(now);
        }
    }

    fn skip(&mut self, now: Instant) {
        self.skipped_until = Some(now + self.next_skip);
        self.next_skip = (self.next_skip * 2).min(SKIP_MAX.max(self.first_skip));
    }
}

#[cfg(test)]
mod tests;
