//! The link's side of the core: texts go only while the link is Ready, and a part in flight
//! across a link fault or a reboot of the node is counted as sent, waited for a little longer,
//! or resent (the rules are in the module docs of `core`).

use std::time::Instant;

use tracing::{debug, info};

use super::{LastSession, OutboxCore, Part, Phase, ReadyLink, ReplyId};
use crate::radio::{FailReason, LinkState, PartOutcome};

impl<K> OutboxCore<K> {
    /// Follows the link state: texts go out only while it is Ready.
    pub(crate) fn on_link(&mut self, state: &LinkState, now: Instant) {
        match state {
            LinkState::Ready { generation, local } => {
                let previous = self.link.map(|l| l.generation);
                if previous != Some(*generation) {
                    // A new session: its first queueStatus tells the truth about the queue.
                    self.queue_full = None;
                    self.ready_since = Some(now);
                }
                let last = self.last_session.replace(LastSession {
                    generation: *generation,
                    reboot_count: local.reboot_count,
                });
                if let Some(last) = last.filter(|l| l.generation != *generation) {
                    let counted = last.reboot_count != 0 && local.reboot_count != 0;
                    if counted && last.reboot_count != local.reboot_count {
                        info!(
                            before = last.reboot_count,
                            now = local.reboot_count,
                            "the node rebooted while the link was down"
                        );
                        self.node_rebooted(now);
                    }
                }
                self.link_back(*generation, now);
                self.link = Some(ReadyLink {
                    generation: *generation,
                    hop_limit: if local.hop_limit == 0 {
                        3
                    } else {
                        local.hop_limit
                    },
                });
            }
            _ => self.link = None,
        }
    }

    /// The link is Ready as `generation`: each part that waited for it is decided — one
    /// the node confirmed queueing is counted as sent, the others' ACKs get a grace period.
    fn link_back(&mut self, generation: u64, now: Instant) {
        let waiting: Vec<(ReplyId, u32, u64, bool)> = self
            .queue
            .iter()
            .filter_map(|r| match r.part?.phase {
                Phase::AwaitLink {
                    id,
                    generation,
                    queued,
                } => Some((r.id, id, generation, queued)),
                _ => None,
            })
            .collect();
        let grace_until = now + self.grace;
        for (reply, id, sent_on, queued) in waiting {
            if sent_on == generation {
                continue;
            }
            if queued {
                info!(
                    id,
                    "link back without a reboot: the node kept the part, not resending"
                );
                self.finish_part(reply, PartOutcome::Unconfirmed);
            } else if let Some(part) = self.part_mut(reply) {
                debug!(id, "link back: waiting a little for the part's ack");
                part.phase = Phase::InFlight {
                    id,
                    generation: sent_on,
                    deadline: grace_until,
                    queued: false,
                };
            }
        }
    }

    /// The node restarted: whatever it had queued is gone (so every part in flight is sent
    /// again), and so is a full queue.
    pub(super) fn node_rebooted(&mut self, now: Instant) {
        self.queue_full = None;
        let lost: Vec<(ReplyId, u32)> = self
            .queue
            .iter()
            .filter_map(|r| Some((r.id, r.in_flight_id()?)))
            .collect();
        for (reply, id) in lost {
            debug!(id, "the node lost the part in its reboot");
            self.retry(reply, FailReason::AckTimeout, now);
        }
    }

    /// The ACK timeout of packet `id`, reply `reply`'s current part, passed: resend it unless
    /// the node kept it across a link fault (see the module docs).
    pub(super) fn ack_timed_out(
        &mut self,
        reply: ReplyId,
        id: u32,
        sent_on: u64,
        queued: bool,
        now: Instant,
    ) {
        let grace_until = self.ready_since.map(|t| t + self.grace);
        match self.link {
            Some(link) if queued && link.generation != sent_on => {
                info!(
                    id,
                    "no ack/nak; the node queued the part before the link dropped, not resending"
                );
                self.finish_part(reply, PartOutcome::Unconfirmed);
            }
            Some(link) if link.generation != sent_on && grace_until.is_some_and(|t| now < t) => {
                if let (
                    Some(Part {
                        phase: Phase::InFlight { deadline, .. },
                        ..
                    }),
                    Some(until),
                ) = (self.part_mut(reply), grace_until)
                {
                    debug!(
                        id,
                        "link back only now: waiting a little for the part's ack"
                    );
                    *deadline = until;
                }
            }
            None => {
                debug!(id, "no ack/nak and the link is down; waiting for it");
                if let Some(part) = self.part_mut(reply) {
                    part.phase = Phase::AwaitLink {
                        id,
                        generation: sent_on,
                        queued,
                    };
                }
            }
            _ => {
                debug!(id, "no ack/nak within the ack timeout");
                self.retry(reply, FailReason::AckTimeout, now);
            }
        }
    }
}
