//! The responder's counters since start, for an admin's `!status`: a leaf every room may
//! count into (the intake, the answer, the summaries, the notices). Also [`Tally`]: the info
//! line that says messages were combined or not answered, at most once a minute per cause.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::time::Instant;
use tracing::info;

use crate::node::Standing;

/// Counters for an admin's `!status`.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) dms: AtomicU64,
    pub(crate) replies: AtomicU64,
    pub(crate) notices: AtomicU64,
    pub(crate) llm_failures: AtomicU64,
    pub(crate) llm_ms_total: AtomicU64,
    pub(crate) llm_calls: AtomicU64,
    /// Summary calls started, saved, cancelled by a reply, and failed (LLM error or refused).
    pub(crate) summaries_started: AtomicU64,
    pub(crate) summaries: AtomicU64,
    pub(crate) summaries_cancelled: AtomicU64,
    pub(crate) summary_failures: AtomicU64,
    /// Prompts read into the server's cache after a fold (`fold::warm`).
    pub(crate) warm_ups: AtomicU64,
    /// Folds run before a reply because the backlog reached its hard cap.
    pub(crate) folds_at_cap: AtomicU64,
    /// Messages answered together with an earlier one of their node (in the same model call),
    /// by standing ([`Standing::index`]).
    pub(crate) combined: [AtomicU64; 3],
    /// Texts not answered because no place was free for their standing, by standing.
    pub(crate) refused: [AtomicU64; 3],
    /// New nodes' turns that gave way to a message of higher standing.
    pub(crate) turns_displaced: AtomicU64,
    /// Turns not given the LLM within `[limits] max_turn_wait_secs`.
    pub(crate) turns_expired: AtomicU64,
    /// The info lines about combined and unanswered messages.
    pub(crate) tally: Tally,
}

impl Counters {
    /// Counts `n` messages of `standing` answered together with an earlier one.
    pub(crate) fn combined(&self, standing: Standing, n: u64) {
        self.combined[standing.index()].fetch_add(n, Ordering::Relaxed);
        self.tally.note(Cause::Combined, n);
    }

    /// Counts a text of `standing` that found no place.
    pub(crate) fn refused(&self, standing: Standing) {
        self.refused[standing.index()].fetch_add(1, Ordering::Relaxed);
        self.tally.note(Cause::NoRoom, 1);
    }

    /// The counts by standing, for `!status`.
    pub(crate) fn by_standing(counts: &[AtomicU64; 3]) -> [u64; 3] {
        [0, 1, 2].map(|i| counts[i].load(Ordering::Relaxed))
    }
}

/// Why messages were combined or not answered, for the info line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cause {
    /// Answered together with an earlier message of their node.
    Combined,
    /// No place was free for their standing.
    NoRoom,
    /// A message of higher standing took their turn's place.
    Displaced,
    /// Their turn waited past `[limits] max_turn_wait_secs`.
    Late,
    /// Their node's queue was full.
    QueueFull,
    /// Their node sent faster than its rate limit.
    RateLimited,
    /// Mentions over their channel's limit for their standing.
    MentionLimit,
    /// New ids' workers were all busy: a fresh id's message got no worker.
    NoWorker,
}

impl Cause {
    const ALL: [Cause; 8] = [
        Cause::Combined,
        Cause::NoRoom,
        Cause::Displaced,
        Cause::Late,
        Cause::QueueFull,
        Cause::RateLimited,
        Cause::MentionLimit,
        Cause::NoWorker,
    ];

    fn index(self) -> usize {
        Cause::ALL.iter().position(|c| *c == self).unwrap_or(0)
    }

    fn line(self) -> &'static str {
        match self {
            Cause::Combined => "messages answered together with an earlier one of their node",
            Cause::NoRoom => {
                "messages stored, not answered: no place for their standing (a flood?)"
            }
            Cause::Displaced => {
                "messages stored, not answered: a message of higher standing took their place"
            }
            Cause::Late => "messages stored, not answered: their turn waited too long",
            Cause::QueueFull => "messages stored, not answered: their node's queue was full",
            Cause::RateLimited => "messages stored, not answered: their node's rate limit",
            Cause::MentionLimit => {
                "mentions not answered: their channel's limit for their standing"
            }
            Cause::NoWorker => {
                "messages of new ids not answered (texts stored): as many new ids as allowed \
                 were being served (a flood of fresh ids?)"
            }
        }
    }
}

/// How often at most each cause's info line is logged.
pub(crate) const TALLY_EVERY: Duration = Duration::from_secs(60);

/// Counts each cause's messages and logs them at info at most once per [`TALLY_EVERY`], with
/// how many since the last line.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    /// Per cause: when it last logged, and the messages since.
    state: Mutex<[(Option<Instant>, u64); Cause::ALL.len()]>,
}

impl Tally {
    /// Counts `n` messages of `cause`; logs the line when one is due.
    pub(crate) fn note(&self, cause: Cause, n: u64) {
        let now = Instant::now();
        let due = {
            let mut state = match self.state.lock() {
                Ok(s) => s,
                Err(poisoned) => poisoned.into_inner(),
            };
            let (last, count) = &mut state[cause.index()];
            *count += n;
            if last.is_none_or(|at| now >= at + TALLY_EVERY) {
                *last = Some(now);
                Some(std::mem::take(count))
            } else {
                None
            }
        };
        if let Some(messages) = due {
            info!(messages, "{}", cause.line());
        }
    }
}
