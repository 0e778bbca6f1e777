//! Per-node rate limit, sans-IO: a sliding window of answered messages per node (or per
//! any other key: mentions are limited per channel).
//!
//! When a node goes over the limit it gets one short notice, then silence until the window
//! has room again.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::time::Duration;

use tokio::time::Instant;

use crate::node::NodeId;

/// What to do with a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decision {
    Answer,
    /// Over the limit for the first time in this stretch: send one notice.
    Notify {
        retry_in: Duration,
    },
    /// Over the limit and already told: stay silent.
    Silent,
}

#[derive(Debug, Default)]
struct NodeWindow {
    answered: VecDeque<Instant>,
    notified: bool,
}

/// Sliding-window limiter, bounded by the number of nodes (keys) it tracks.
#[derive(Debug)]
pub(crate) struct RateLimiter<K = NodeId> {
    limit: u32,
    window: Duration,
    nodes: HashMap<K, NodeWindow>,
}

/// More than this many tracked nodes triggers a sweep of idle ones.
const SWEEP_AT: usize = 4096;

impl<K: Hash + Eq> RateLimiter<K> {
    pub fn new(limit: u32, window: Duration) -> Self {
        RateLimiter {
            limit: limit.max(1),
            window,
            nodes: HashMap::new(),
        }
    }

    pub(crate) fn check(&mut self, node: K, now: Instant) -> Decision {
        if self.nodes.len() >= SWEEP_AT {
            let window = self.window;
            self.nodes.retain(|_, w| {
                w.answered
                    .back()
                    .is_some_and(|t| now.duration_since(*t) < window)
            });
        }
        let w = self.nodes.entry(node).or_default();
        while w
            .answered
            .front()
            .is_some_and(|t| now.duration_since(*t) >= self.window)
        {
            w.answered.pop_front();
        }
        if (w.answered.len() as u64) < u64::from(self.limit) {
            w.answered.push_back(now);
            w.notified = false;
            return Decision::Answer;
        }
        if w.notified {
            return Decision::Silent;
        }
        w.notified = true;
        let retry_in = w
            .answered
            .front()
            .map(|t| self.window.saturating_sub(now.duration_since(*t)))
            .unwrap_or(self.window);
        Decision::Notify { retry_in }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_then_one_notice_then_silence_until_it_clears() {
        let t0 = Instant::now();
        let mut rl = RateLimiter::new(3, Duration::from_secs(60));
        let a = NodeId(1);
        let s = Duration::from_secs;
        let steps: &[(u64, NodeId, Decision)] = &[
            (0, a, Decision::Answer),
            (1, a, Decision::Answer),
            (2, a, Decision::Answer),
            (3, a, Decision::Notify { retry_in: s(57) }),
            (4, a, Decision::Silent),
            (4, NodeId(2), Decision::Answer),
            (59, a, Decision::Silent),
            (60, a, Decision::Answer),
            (61, a, Decision::Answer),
            (62, a, Decision::Answer),
            (63, a, Decision::Notify { retry_in: s(57) }),
        ];
        for (at, node, want) in steps {
            assert_eq!(rl.check(*node, t0 + s(*at)), *want, "t={at} node={node}");
        }
    }
}
