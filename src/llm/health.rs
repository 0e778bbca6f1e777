//! Sans-IO health of one LLM server in the failover chain: consecutive failures, how long
//! the server is skipped, and when it is due for a background probe.
//!
//! A server that failed [`FAILS_TO_SKIP`] answers in a row is skipped for [`SKIP_FIRST`]
//! (configurable), then probed; a good probe puts it back on probation (one more failure
//! skips it again, for twice as long, up to [`SKIP_MAX`]), a good answer makes it healthy
//! again (the wait starts over). Only failures that another server could avoid count (see
//! [`fails_over`]); a 400 or a bad key is the config's fault and counts for nothing.

use std::time::Duration;

use tokio::time::Instant;

use super::LlmError;

/// Failed answers in a row before a server is skipped.
pub const FAILS_TO_SKIP: u32 = 3;

/// The first skip, unless the config says otherwise (`[llm] skip_secs`).
pub const SKIP_FIRST: Duration = Duration::from_secs(60);

/// The longest skip: the wait doubles on every failed probe up to this.
pub const SKIP_MAX: Duration = Duration::from_secs(600);

/// Whether `error` is the server's fault, so the next server in the chain may do better:
/// it could not be reached, timed out, was overloaded (408, 429) or broke (5xx). A 4xx such
/// as 400 (bad request), 401 (bad key) or 404 (no such model), a malformed or empty answer,
/// and a client that cannot be built are not: every server would be asked the same way.
pub fn fails_over(error: &LlmError) -> bool {
    match error {
        LlmError::Timeout | LlmError::Connect(_) => true,
        LlmError::Status { status, .. } => matches!(status, 408 | 429 | 500..=599),
        LlmError::BadResponse(_) | LlmError::Empty | LlmError::Setup(_) => false,
    }
}

/// One server's health.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Health {
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
    pub fn usable(&self) -> bool {
        self.skipped_until.is_none()
    }

    /// When the probe is due, if the server is skipped.
    pub fn probe_at(&self) -> Option<Instant> {
        self.skipped_until
    }

    /// A good answer: healthy again, and the next skip starts from the first length.
    pub fn succeeded(&mut self) {
        *self = Health::new(self.first_skip);
    }

    /// A failed answer. Returns true when this failure made the server skipped.
    pub fn failed(&mut self, error: &LlmError, now: Instant) -> bool {
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
    pub fn probed(&mut self, ok: bool, now: Instant) {
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
mod tests {
    use super::*;

    fn s(secs: u64) -> Duration {
        Duration::from_secs(secs)
    }

    fn status(code: u16) -> LlmError {
        LlmError::Status {
            status: code,
            body: String::new(),
            retry_after: None,
        }
    }

    #[test]
    fn which_errors_fail_over() {
        let cases = [
            (LlmError::Timeout, true),
            (LlmError::Connect("refused".into()), true),
            (status(500), true),
            (status(503), true),
            (status(429), true),
            (status(408), true),
            (status(400), false),
            (status(401), false),
            (status(404), false),
            (LlmError::BadResponse("x".into()), false),
            (LlmError::Empty, false),
            (LlmError::Setup("x".into()), false),
        ];
        for (error, expect) in cases {
            assert_eq!(fails_over(&error), expect, "{error}");
        }
    }

    /// One step of a health table test.
    enum Step {
        Fail(LlmError),
        Ok,
        Probe(bool),
    }

    /// Runs `steps` one second apart; after each, whether the server is usable and when its
    /// probe is due (seconds after the start).
    fn check(steps: Vec<Step>, expect: &[(bool, Option<u64>)]) {
        let t0 = Instant::now();
        let mut h = Health::new(s(60));
        let mut got = Vec::new();
        for (i, step) in steps.into_iter().enumerate() {
            let now = t0 + s(i as u64);
            match step {
                Step::Fail(e) => {
                    h.failed(&e, now);
                }
                Step::Ok => h.succeeded(),
                Step::Probe(ok) => h.probed(ok, now),
            }
            got.push((h.usable(), h.probe_at().map(|at| (at - t0).as_secs())));
        }
        assert_eq!(got, expect);
    }

    fn fail() -> Step {
        Step::Fail(status(500))
    }

    #[test]
    fn three_failures_in_a_row_skip_the_server() {
        check(
            vec![fail(), fail(), fail()],
            &[(true, None), (true, None), (false, Some(62))],
        );
    }

    #[test]
    fn a_good_answer_resets_the_count() {
        check(
            vec![fail(), fail(), Step::Ok, fail(), fail()],
            &[
                (true, None),
                (true, None),
                (true, None),
                (true, None),
                (true, None),
            ],
        );
    }

    #[test]
    fn config_errors_never_skip() {
        check(
            vec![
                Step::Fail(status(400)),
                Step::Fail(status(401)),
                Step::Fail(status(400)),
                Step::Fail(LlmError::Empty),
            ],
            &[(true, None), (true, None), (true, None), (true, None)],
        );
    }

    #[test]
    fn failed_probes_double_the_skip_up_to_the_cap() {
        let mut steps = vec![fail(), fail(), fail()];
        steps.extend((0..6).map(|_| Step::Probe(false)));
        check(
            steps,
            &[
                (true, None),
                (true, None),
                (false, Some(2 + 60)),
                (false, Some(3 + 120)),
                (false, Some(4 + 240)),
                (false, Some(5 + 480)),
                (false, Some(6 + 600)),
                (false, Some(7 + 600)),
                (false, Some(8 + 600)),
            ],
        );
    }

    #[test]
    fn a_good_probe_leaves_the_server_on_probation() {
        check(
            vec![fail(), fail(), fail(), Step::Probe(true), fail()],
            &[
                (true, None),
                (true, None),
                (false, Some(62)),
                (true, None),
                // One failure after the probe: skipped again, twice as long.
                (false, Some(4 + 120)),
            ],
        );
    }

    #[test]
    fn a_good_answer_after_probation_starts_the_wait_over() {
        check(
            vec![
                fail(),
                fail(),
                fail(),
                Step::Probe(true),
                Step::Ok,
                fail(),
                fail(),
                fail(),
            ],
            &[
                (true, None),
                (true, None),
                (false, Some(62)),
                (true, None),
                (true, None),
                (true, None),
                (true, None),
                (false, Some(7 + 60)),
            ],
        );
    }

    #[test]
    fn failures_while_skipped_and_probes_while_healthy_change_nothing() {
        check(
            vec![fail(), fail(), fail(), fail(), Step::Ok, Step::Probe(false)],
            &[
                (true, None),
                (true, None),
                (false, Some(62)),
                (false, Some(62)),
                (true, None),
                (true, None),
            ],
        );
    }
}
