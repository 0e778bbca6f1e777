//! What the outbox remembers of who ACKs, in RAM and bounded: the nodes whose own ACK came
//! back for a part of ours, and the parts sent to the others without waiting for an ACK.
//!
//! A node id is free to forge, and a forged id never ACKs: waiting for its ACK would take one
//! of the few places for held parts (`HELD_IN_FLIGHT`) for `ack_timeout` per try, three tries,
//! and a handful of forged ids would take them all. So a part is held — it waits for its
//! ACK/NAK and is resent — only when its destination has ACKed before (or the reply
//! answers a proven node, or goes to the broadcast address, whose relay ACK always comes from
//! our own node). A part to any other node is sent once and nothing waits for it; its ACK still
//! counts within the ACK timeout: it makes the part `Delivered` and the node an ACKing one. Its
//! reply is reported once every such part has its ACK, NAK or timeout. A node whose held part
//! went unanswered through every try is forgotten.
//!
//! `Acks` is the memory; the `impl OutboxCore` below is the core's side of an unheld part:
//! released after its gap, settled by its late ACK/NAK or its timeout.

use std::collections::{HashMap, VecDeque};
use std::time::Instant;

use tracing::{debug, info, warn};

use super::{OutboxCore, ReplyId, nak_reason};
use crate::node::NodeId;
use crate::radio::{FailReason, NakReason, PartOutcome};

/// Nodes remembered as ACKing; beyond it the one whose last ACK is oldest is forgotten (its
/// next part is sent once, and its ACK brings it back).
pub(super) const ACKING_MAX: usize = 4096;
/// Parts sent without waiting whose ACK is still looked for; beyond it the oldest is given up
/// (as if its ACK timeout had passed).
pub(super) const UNHELD_MAX: usize = 256;

/// A part sent once without waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Unheld {
    /// Its packet id.
    pub(super) id: u32,
    pub(super) to: NodeId,
    /// Its reply, and its index there.
    pub(super) reply: ReplyId,
    pub(super) part: usize,
    /// Its ACK counts until then (the ACK timeout).
    pub(super) until: Instant,
}

#[derive(Debug, Default)]
pub(super) struct Acks {
    /// ACKing nodes, with the tick of their last ACK.
    acking: HashMap<NodeId, u64>,
    tick: u64,
    /// In the order sent, so by `until`.
    unheld: VecDeque<Unheld>,
}

impl Acks {
    /// Whether `to` has ACKed a part of ours (and was not forgotten since).
    pub(super) fn acks(&self, to: NodeId) -> bool {
        self.acking.contains_key(&to)
    }

    /// `to` itself ACKed a part: from now on its parts are held.
    pub(super) fn acked(&mut self, to: NodeId) {
        self.tick += 1;
        if !self.acking.contains_key(&to) && self.acking.len() >= ACKING_MAX {
            let stalest = self.acking.iter().min_by_key(|(_, t)| **t).map(|(n, _)| *n);
            if let Some(n) = stalest {
                self.acking.remove(&n);
            }
        }
        self.acking.insert(to, self.tick);
    }

    /// A held part to `to` went unanswered through every try: its next parts go unheld.
    pub(super) fn forget(&mut self, to: NodeId) {
        self.acking.remove(&to);
    }

    /// A part went without waiting; returns the part given up to make room, if any.
    pub(super) fn sent(&mut self, part: Unheld) -> Option<Unheld> {
        let evicted = if self.unheld.len() >= UNHELD_MAX {
            self.unheld.pop_front()
        } else {
            None
        };
        self.unheld.push_back(part);
        evicted
    }

    /// The unheld part with packet `id`, whose ACK/NAK just came; looked for once.
    pub(super) fn take(&mut self, id: u32) -> Option<Unheld> {
        let at = self.unheld.iter().position(|u| u.id == id)?;
        self.unheld.remove(at)
    }

    /// The unheld parts whose ACK timeout passed at `now`.
    pub(super) fn expired(&mut self, now: Instant) -> Vec<Unheld> {
        let n = self.unheld.iter().take_while(|u| u.until <= now).count();
        self.unheld.drain(..n).collect()
    }

    /// When the next unheld part's ACK timeout passes.
    pub(super) fn next_expiry(&self) -> Option<Instant> {
        self.unheld.front().map(|u| u.until)
    }

    /// Forgets every unheld part (the outbox shut down).
    pub(super) fn clear_unheld(&mut self) {
        self.unheld.clear();
    }

    /// How many nodes are remembered as ACKing.
    #[cfg(test)]
    pub(super) fn acking_len(&self) -> usize {
        self.acking.len()
    }
}

impl<K> OutboxCore<K> {
    /// The unheld part `id` of reply `reply`, sent at `sent`, had no answer within its send
    /// gap: it is `Sent`, and its ACK counts until the ACK timeout — unless it went without
    /// `want_ack` (`no_ack`, zero-hop): then no ACK can come and nothing waits for one.
    pub(super) fn release(&mut self, reply: ReplyId, id: u32, sent: Instant, no_ack: bool) {
        if no_ack {
            self.finish_part(reply, PartOutcome::Sent);
            return;
        }
        let until = sent + self.ack_timeout;
        let Some(reply) = self.reply_mut(reply) else {
            return;
        };
        reply.unacked += 1;
        let unheld = Unheld {
            id,
            to: reply.req.to,
            reply: reply.id,
            part: reply.outcomes.len(),
            until,
        };
        let reply = reply.id;
        if let Some(dropped) = self.acks.sent(unheld) {
            self.settle(dropped, None);
        }
        self.finish_part(reply, PartOutcome::Sent);
    }

    /// The answer to a part sent without waiting: the node's own ACK delivers it and makes the
    /// node an ACKing one; a duty-cycle NAK still pauses all sending.
    pub(super) fn on_late_routing(&mut self, part: Unheld, from: NodeId, error: i32, now: Instant) {
        let (id, to) = (part.id, part.to);
        let outcome = match nak_reason(error) {
            None if from == to => {
                if !self.acks.acks(to) {
                    info!(%to, id, "ack from a node that had not acked before: its parts are held from now on");
                }
                self.acks.acked(to);
                PartOutcome::Delivered
            }
            None => PartOutcome::Relayed,
            Some(reason) => {
                if reason == NakReason::DutyCycleLimit {
                    warn!(pause = ?self.duty_cycle_pause, "duty cycle limit reached, pausing all sending");
                    self.paused_until = Some(now + self.duty_cycle_pause);
                }
                debug!(%to, id, ?reason, "nak for a part sent without waiting; not resent");
                PartOutcome::Failed(FailReason::Nak(reason))
            }
        };
        self.settle(part, Some(outcome));
    }

    /// An unheld part's wait is over: with `outcome` when its ACK/NAK came (else it stays
    /// `Sent`); its reply is reported once nothing else is missing.
    pub(super) fn settle(&mut self, part: Unheld, outcome: Option<PartOutcome>) {
        let Some(reply) = self.reply_mut(part.reply) else {
            return;
        };
        if let (Some(outcome), Some(slot)) = (outcome, reply.outcomes.get_mut(part.part)) {
            *slot = outcome;
        }
        reply.unacked = reply.unacked.saturating_sub(1);
        self.report_finished(part.reply);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn part(id: u32, until: Instant) -> Unheld {
        Unheld {
            id,
            to: NodeId(id),
            reply: 1,
            part: 0,
            until,
        }
    }

    #[test]
    fn only_an_ack_from_the_node_itself_makes_it_acking() {
        let mut acks = Acks::default();
        let (a, b) = (NodeId(2), NodeId(3));
        assert!(!acks.acks(a));
        acks.acked(a);
        assert!(acks.acks(a) && !acks.acks(b));
        acks.forget(a);
        assert!(!acks.acks(a));
    }

    #[test]
    fn an_unheld_part_is_found_once_or_expires_in_order() {
        let t0 = Instant::now();
        let s = |n| t0 + Duration::from_secs(n);
        let mut acks = Acks::default();
        acks.sent(part(101, s(45)));
        acks.sent(part(102, s(47)));
        acks.sent(part(103, s(49)));
        assert_eq!(acks.take(102).map(|u| u.id), Some(102));
        assert_eq!(acks.take(102), None, "looked for once");
        assert_eq!(acks.next_expiry(), Some(s(45)));
        assert_eq!(acks.expired(s(44)), []);
        let gone: Vec<u32> = acks.expired(s(49)).iter().map(|u| u.id).collect();
        assert_eq!(gone, [101, 103]);
        assert_eq!(acks.next_expiry(), None);
    }

    #[test]
    fn the_memory_is_bounded() {
        let t0 = Instant::now();
        let mut acks = Acks::default();
        for n in 0..(ACKING_MAX as u32 + 10) {
            acks.acked(NodeId(n));
        }
        assert_eq!(acks.acking_len(), ACKING_MAX);
        // The first ones, whose ACKs are the oldest, were forgotten; the newest are kept.
        assert!(!acks.acks(NodeId(0)));
        assert!(acks.acks(NodeId(ACKING_MAX as u32 + 9)));
        for id in 0..UNHELD_MAX as u32 {
            assert_eq!(acks.sent(part(id, t0)), None);
        }
        assert_eq!(acks.sent(part(999, t0)).map(|u| u.id), Some(0));
        assert_eq!(acks.take(0), None, "given up");
    }
}
