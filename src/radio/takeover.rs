//! Whether another client keeps taking the node's TCP API, and how long to leave it alone.
//!
//! A node's TCP API serves one client: when a new one connects, the firmware force-closes the
//! previous connection (`APIServerPort::runOnce`, `MESHTASTIC_TCP_API_MAX_CLIENTS` = 1), and
//! the old client reads a clean end of stream. That happens once when meshtasticd or the node
//! restarts; the same thing again within [`WINDOW`] means another client (the phone app over
//! WiFi, a status page, a second meshai) keeps taking the node. Taking it straight back would
//! kick that client, which takes it back in turn: two clients fighting over one slot. So the
//! second clean close within the window makes the link yield: it waits [`YIELD_MIN`], doubling
//! up to [`YIELD_MAX`], before connecting again, and so on for every clean close after it. A
//! link that then stays ready for [`CALM`] ends the episode: the next single close is quick
//! again.
//!
//! Only a clean close counts, and only over TCP (the caller decides that with `enabled`):
//! network failures show as errors or silence, a reboot as `rebooted`, and they keep the
//! usual quick backoff ([`super::backoff`]). A close during the handshake counts too: a
//! client that reconnects the moment it is kicked often takes the node back before our
//! handshake is done.
//!
//! Sans-IO: [`Takeover`] is told when the link became ready and how each connection ended,
//! with `now` as an input, and answers with a [`Retry`].

use std::time::{Duration, Instant};

use super::DownReason;

/// Two clean closes this close together mean another client keeps taking the node.
pub(crate) const WINDOW: Duration = Duration::from_secs(600);
/// The first wait when yielding; doubles with each further takeover.
pub(crate) const YIELD_MIN: Duration = Duration::from_secs(60);
/// The longest wait when yielding.
pub(crate) const YIELD_MAX: Duration = Duration::from_secs(600);
/// A link ready this long held the node: the takeover episode is over.
pub(crate) const CALM: Duration = Duration::from_secs(600);

/// What to do after a connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Retry {
    /// Reconnect after the usual backoff.
    Backoff,
    /// Another client keeps taking the node: wait `delay` before taking it back. `first` is
    /// the first yield of an episode (the one the log explains).
    Yield { delay: Duration, first: bool },
}

/// The takeover detector's state across connections.
#[derive(Debug, Clone)]
pub(crate) struct Takeover {
    /// False: never yield (serial links, or `[radio] yield_to_other_clients = false`).
    enabled: bool,
    /// When the node last closed the connection cleanly.
    last_close: Option<Instant>,
    /// The wait for the next yield.
    next: Duration,
    /// True from the first yield until a link stays ready for `CALM`.
    yielding: bool,
    /// When the current link became ready, if it is ready.
    ready_since: Option<Instant>,
}

impl Takeover {
    pub fn new(enabled: bool) -> Self {
        Takeover {
            enabled,
            last_close: None,
            next: YIELD_MIN,
            yielding: false,
            ready_since: None,
        }
    }

    /// The link is ready (handshake done).
    pub(crate) fn on_ready(&mut self, now: Instant) {
        self.ready_since = Some(now);
    }

    /// A connection ended with `reason`: reconnect as usual, or yield.
    pub(crate) fn on_end(&mut self, reason: &DownReason, now: Instant) -> Retry {
        if let Some(since) = self.ready_since.take()
            && now.saturating_duration_since(since) >= CALM
        {
            self.last_close = None;
            self.next = YIELD_MIN;
            self.yielding = false;
        }
        if !self.enabled || *reason != DownReason::ClosedByNode {
            return Retry::Backoff;
        }
        // Within an episode every clean close is another takeover: the last one may be
        // longer ago than the window, since we waited out a yield in between.
        let again = self.yielding
            || self
                .last_close
                .is_some_and(|at| now.saturating_duration_since(at) < WINDOW);
        self.last_close = Some(now);
        if !again {
            return Retry::Backoff;
        }
        let delay = self.next;
        self.next = delay.saturating_mul(2).min(YIELD_MAX);
        let first = !self.yielding;
        self.yielding = true;
        Retry::Yield { delay, first }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One step of a link's life: how long after the previous step, and what happened.
    enum Step {
        /// The link became ready.
        Ready(u64),
        /// The node closed the connection cleanly.
        Closed(u64),
        /// The connection ended for another reason.
        Lost(u64, DownReason),
    }

    /// Runs `steps` (seconds after the previous one) and compares each end's answer, as
    /// `0` for the backoff or the yield's seconds, `!` marking the first of an episode.
    fn check(enabled: bool, steps: &[Step], want: &[&str]) {
        let mut t = Takeover::new(enabled);
        let mut now = Instant::now();
        let mut got = Vec::new();
        let answer = |retry: Retry| match retry {
            Retry::Backoff => "0".to_string(),
            Retry::Yield { delay, first } => {
                format!("{}{}", delay.as_secs(), if first { "!" } else { "" })
            }
        };
        for step in steps {
            match step {
                Step::Ready(after) => {
                    now += Duration::from_secs(*after);
                    t.on_ready(now);
                }
                Step::Closed(after) => {
                    now += Duration::from_secs(*after);
                    got.push(answer(t.on_end(&DownReason::ClosedByNode, now)));
                }
                Step::Lost(after, reason) => {
                    now += Duration::from_secs(*after);
                    got.push(answer(t.on_end(reason, now)));
                }
            }
        }
        assert_eq!(got, want);
    }

    #[test]
    fn when_to_yield() {
        use Step::*;
        let refused = || {
            Lost(
                1,
                DownReason::Connect {
                    serial: false,
                    kind: std::io::ErrorKind::ConnectionRefused,
                    message: "refused".into(),
                },
            )
        };
        // One clean close (meshtasticd restarted): the usual quick reconnect.
        check(true, &[Ready(0), Closed(3600), Ready(1)], &["0"]);
        // Kicked again and again: yield 60 s, doubling to 10 min; explained once.
        check(
            true,
            &[
                Ready(0),
                Closed(5),
                Ready(1),
                Closed(1),
                Ready(60),
                Closed(1),
                Ready(120),
                Closed(1),
                Ready(240),
                Closed(1),
                Ready(480),
                Closed(1),
                Ready(600),
                Closed(1),
            ],
            &["0", "60!", "120", "240", "480", "600", "600"],
        );
        // Kicked during the handshake counts the same.
        check(true, &[Ready(0), Closed(5), Closed(1)], &["0", "60!"]);
        // Two closes more than ten minutes apart are two single closes.
        check(
            true,
            &[Ready(0), Closed(5), Ready(1), Closed(600)],
            &["0", "0"],
        );
        // Held for ten minutes: the episode is over, the next single close is quick and a
        // new episode starts again at 60 s, explained again.
        check(
            true,
            &[
                Ready(0),
                Closed(5),
                Ready(1),
                Closed(1),
                Ready(60),
                Closed(1),
                Ready(120),
                Closed(600),
                Ready(1),
                Closed(1),
            ],
            &["0", "60!", "120", "0", "60!"],
        );
        // Network failures, timeouts and reboots never yield, and do not end an episode.
        check(
            true,
            &[
                Ready(0),
                Lost(5, DownReason::Silent),
                refused(),
                Lost(1, DownReason::Rebooted),
                Lost(1, DownReason::HandshakeTimeout),
                Closed(1),
                Closed(1),
                refused(),
                Closed(1),
            ],
            &["0", "0", "0", "0", "0", "60!", "0", "120"],
        );
        // Never yield when told so (serial, or `yield_to_other_clients = false`).
        check(
            false,
            &[Ready(0), Closed(5), Ready(1), Closed(1), Closed(1)],
            &["0", "0", "0"],
        );
    }
}
