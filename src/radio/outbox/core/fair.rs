//! Which of the replies whose part may go now sends next: the highest standing first; within
//! one standing, a reply already under way carries on, then the destination that has waited
//! longest — served least recently, or, never served since its reply was queued, queued
//! earliest — so destinations take turns (round-robin) instead of first come, first served.
//! A node's replies keep their order: only its first queued reply competes (`heads`), so a
//! destination never has more than one part in flight.

use std::cmp::Reverse;
use std::collections::{HashMap, HashSet, VecDeque};

use super::Reply;
use crate::node::NodeId;

/// The round-robin clock: one tick per reply queued and per part sent, and the tick at which
/// each destination that still has replies queued last got a part.
#[derive(Debug, Default)]
pub(super) struct RoundRobin {
    tick: u64,
    served: HashMap<NodeId, u64>,
}

impl RoundRobin {
    /// A fresh tick, for a reply being queued.
    pub(super) fn tick(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }

    /// `to` got a part now.
    pub(super) fn served(&mut self, to: NodeId) {
        let t = self.tick();
        self.served.insert(to, t);
    }

    /// Nothing is queued for `to` any more: a reply it gets later waits from when it is queued.
    pub(super) fn forget(&mut self, to: NodeId) {
        self.served.remove(&to);
    }

    /// Forgets every destination (the queue was emptied).
    pub(super) fn clear(&mut self) {
        self.served.clear();
    }

    /// Of `candidates` (replies whose part may go now, with their index in the queue), the
    /// one whose part goes next.
    pub(super) fn pick<'a, K: 'a>(
        &self,
        candidates: impl Iterator<Item = (usize, &'a Reply<K>)>,
    ) -> Option<usize> {
        candidates
            .max_by_key(|(i, r)| {
                let waiting_since = self
                    .served
                    .get(&r.req.to)
                    .map_or(r.queued_at, |&s| s.max(r.queued_at));
                (r.standing, r.begun(), Reverse(waiting_since), Reverse(*i))
            })
            .map(|(i, _)| i)
    }
}

/// Each destination's first queued reply, with its index: only it competes, ready or not, so
/// a node's replies keep their order, and a destination has at most one part in flight.
pub(super) fn heads<K>(queue: &VecDeque<Reply<K>>) -> impl Iterator<Item = (usize, &Reply<K>)> {
    let mut seen = HashSet::new();
    queue
        .iter()
        .enumerate()
        .filter(move |(_, r)| seen.insert(r.req.to))
}

#[cfg(test)]
mod tests;
