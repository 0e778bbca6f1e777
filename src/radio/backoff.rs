//! Reconnect delays: capped exponential backoff with jitter.
//!
//! Sans-IO: [`Backoff`] is told when the link became ready and asked for the next delay
//! with `now` and a jitter value as inputs. A link that stayed ready for
//! [`STABLE_AFTER`] counts as healthy, so its next failure starts again from the minimum;
//! a link that flaps (ready, then down within seconds) keeps backing off.

use std::time::{Duration, Instant};

/// How long a link must stay ready before the backoff starts over.
pub(crate) const STABLE_AFTER: Duration = Duration::from_secs(60);
/// The jitter range: each delay is scaled by a factor in `1 ± JITTER`.
pub(crate) const JITTER: f64 = 0.2;

#[derive(Debug, Clone)]
pub(crate) struct Backoff {
    min: Duration,
    max: Duration,
    /// The delay before jitter for the next failure; doubles after each one, up to `max`.
    next: Duration,
    /// When the current link became ready, if it is ready.
    ready_since: Option<Instant>,
}

impl Backoff {
    pub fn new(min: Duration, max: Duration) -> Self {
        let max = max.max(min);
        Backoff {
            min,
            max,
            next: min,
            ready_since: None,
        }
    }

    /// The link is ready; if it stays so for `STABLE_AFTER`, the next failure starts over.
    pub(crate) fn on_ready(&mut self, now: Instant) {
        self.ready_since = Some(now);
    }

    /// Starts over from the minimum delay (after a reboot, which is not the link's fault).
    pub(crate) fn reset(&mut self) {
        self.next = self.min;
        self.ready_since = None;
    }

    /// The delay before the next attempt. `jitter` in `[-1, 1]` (clamped) scales the delay
    /// by `1 + jitter * JITTER`; the result never exceeds `max`.
    pub(crate) fn next_delay(&mut self, now: Instant, jitter: f64) -> Duration {
        if let Some(since) = self.ready_since.take() {
            if now.saturating_duration_since(since) >= STABLE_AFTER {
                self.next = self.min;
            }
        }
        let base = self.next;
        self.next = base.saturating_mul(2).min(self.max);
        let factor = 1.0 + jitter.clamp(-1.0, 1.0) * JITTER;
        base.mul_f64(factor).min(self.max)
    }

    /// [`Backoff::next_delay`] with a random jitter.
    pub(crate) fn next_delay_random<R: rand::Rng + ?Sized>(
        &mut self,
        now: Instant,
        rng: &mut R,
    ) -> Duration {
        let jitter = rng.random_range(-1.0..=1.0);
        self.next_delay(now, jitter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What happens before asking for a delay.
    enum Step {
        /// Fail right away, with this jitter.
        Fail(f64),
        /// Become ready, stay ready this many seconds, then fail (jitter 0).
        ReadyFor(u64),
        Reset,
    }

    fn check(steps: &[Step], want_ms: &[u64]) {
        let mut b = Backoff::new(Duration::from_secs(1), Duration::from_secs(60));
        let mut now = Instant::now();
        let mut got = Vec::new();
        let ms = |d: Duration| (d.as_secs_f64() * 1000.0).round() as u64;
        for step in steps {
            match step {
                Step::Fail(j) => got.push(ms(b.next_delay(now, *j))),
                Step::ReadyFor(secs) => {
                    b.on_ready(now);
                    now += Duration::from_secs(*secs);
                    got.push(ms(b.next_delay(now, 0.0)));
                }
                Step::Reset => b.reset(),
            }
        }
        assert_eq!(got, want_ms);
    }

    #[test]
    fn delays_table() {
        use Step::*;
        let doubling: Vec<Step> = (0..9).map(|_| Fail(0.0)).collect();
        check(
            &doubling,
            &[1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000],
        );
        check(
            &[Fail(1.0), Fail(-1.0), Fail(0.5), Fail(5.0)],
            &[1200, 1600, 4400, 9600],
        );
        let capped: Vec<Step> = (0..7).map(|_| Fail(1.0)).collect();
        check(&capped, &[1200, 2400, 4800, 9600, 19200, 38400, 60000]);
        check(
            &[Fail(0.0), Fail(0.0), Fail(0.0), ReadyFor(60), Fail(0.0)],
            &[1000, 2000, 4000, 1000, 2000],
        );
        check(
            &[Fail(0.0), Fail(0.0), Fail(0.0), ReadyFor(5), ReadyFor(59)],
            &[1000, 2000, 4000, 8000, 16000],
        );
        check(
            &[Fail(0.0), Fail(0.0), Reset, Fail(0.0)],
            &[1000, 2000, 1000],
        );
    }

    #[test]
    fn random_jitter_stays_in_bounds() {
        let mut b = Backoff::new(Duration::from_secs(1), Duration::from_secs(60));
        let mut rng = rand::rng();
        let now = Instant::now();
        let mut base = 1.0f64;
        for _ in 0..20 {
            let d = b.next_delay_random(now, &mut rng).as_secs_f64();
            assert!(
                d >= base * 0.8 - 1e-9 && d <= (base * 1.2).min(60.0) + 1e-9,
                "{d} vs {base}"
            );
            base = (base * 2.0).min(60.0);
        }
    }
}
