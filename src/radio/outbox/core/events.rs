//! What the node says back, matched to the part in flight by its packet id: `queueStatus`
//! (queued, refused, the TX queue full or not), the routing ACK/NAK and what each reason means
//! (delivered, relayed, resend later, pause all sending, retry, give up), and `rebooted`.

use std::time::Instant;

use tracing::{debug, info, warn};

use super::{Action, MAX_RATE_LIMIT_RESENDS, OutboxCore, Part, Phase, QueueFull, ReplyId};
use crate::node::{NodeId, PublicKey};
use crate::radio::{FailReason, LinkEvent, NakReason, Outgoing, OutgoingContact, PartOutcome};

/// Maps a raw `Routing.Error` number to the reasons the outbox branches on; `None` is an ACK.
pub(crate) fn nak_reason(error: i32) -> Option<NakReason> {
    Some(match error {
        0 => return None,
        5 => NakReason::MaxRetransmit,
        6 => NakReason::NoChannel,
        7 => NakReason::TooLarge,
        9 => NakReason::DutyCycleLimit,
        34 => NakReason::PkiFailed,
        35 => NakReason::PkiUnknownPubkey,
        38 => NakReason::RateLimitExceeded,
        39 => NakReason::PkiSendFailPublicKey,
        other => NakReason::Other(other),
    })
}

/// What a PKI NAK says, for the log.
fn pki_meaning(reason: NakReason) -> &'static str {
    match reason {
        NakReason::PkiUnknownPubkey => {
            "it knows no public key for that node: the node has to share its node info again"
        }
        NakReason::PkiSendFailPublicKey => "the node's public key changed or is not the one given",
        _ => "the encryption failed; the node's keys may have changed",
    }
}

impl<K> OutboxCore<K> {
    /// Takes the node's answers: queue status and ACK/NAKs.
    pub(crate) fn on_event(&mut self, event: LinkEvent, now: Instant) {
        match event {
            LinkEvent::QueueStatus {
                res,
                free,
                mesh_packet_id,
                ..
            } => {
                if free == 0 {
                    self.queue_full.get_or_insert(QueueFull {
                        since: now,
                        last_probe: None,
                    });
                } else {
                    self.queue_full = None;
                }
                let Some(reply) = self.in_flight(mesh_packet_id) else {
                    return;
                };
                if res == 0 {
                    if let Some(Part {
                        phase: Phase::InFlight { queued, .. },
                        ..
                    }) = self.part_mut(reply)
                    {
                        *queued = true;
                    }
                } else {
                    warn!(id = mesh_packet_id, res, "node did not queue the part");
                    let reason = FailReason::Nak(nak_reason(res).unwrap_or(NakReason::Other(res)));
                    self.retry(reply, reason, now);
                }
            }
            LinkEvent::Rebooted => {
                info!("the node rebooted");
                self.node_rebooted(now);
            }
            LinkEvent::Routing {
                request_id,
                from,
                error,
            } => {
                if let Some(reply) = self.in_flight(request_id) {
                    self.on_routing(reply, request_id, from, error, now);
                } else if let Some(part) = self.acks.take(request_id) {
                    self.on_late_routing(part, from, error, now);
                } else {
                    debug!(
                        id = request_id,
                        error, "ignoring ack/nak for a packet not pending"
                    );
                }
            }
        }
    }

    /// The ACK/NAK for packet `id`, the current part of reply `reply`.
    fn on_routing(&mut self, reply: ReplyId, id: u32, from: NodeId, error: i32, now: Instant) {
        let Some(r) = self.reply(reply) else {
            return;
        };
        let to = r.req.to;
        let unheld = r.part.is_some_and(|p| p.unheld.is_some());
        // The key to hand back on PKI_UNKNOWN_PUBKEY, and the link it goes on.
        let rekey = (r.req.pki && !r.rekeyed)
            .then_some(r.req.pinned)
            .flatten()
            .zip(self.link.map(|l| l.generation));
        let Some(reason) = nak_reason(error) else {
            // Only the destination's ACK proves delivery; an ACK from our own node (or from
            // anyone else) only says that a relay was heard.
            let outcome = if from == to {
                self.acks.acked(to);
                PartOutcome::Delivered
            } else {
                PartOutcome::Relayed
            };
            debug!(%to, id, ?outcome, "part acknowledged");
            self.finish_part(reply, outcome);
            return;
        };
        match reason {
            NakReason::RateLimitExceeded => {
                let resend_at = now + self.send_gap * 2;
                let Some(part) = self.part_mut(reply) else {
                    return;
                };
                part.rate_limit_resends += 1;
                if part.rate_limit_resends > MAX_RATE_LIMIT_RESENDS {
                    self.fail_reply(reply, FailReason::Nak(reason));
                } else {
                    debug!(%to, id, "rate limited by the node, resending later");
                    part.phase = Phase::Waiting {
                        not_before: Some(resend_at),
                    };
                }
            }
            NakReason::DutyCycleLimit => {
                warn!(pause = ?self.duty_cycle_pause, "duty cycle limit reached, pausing all sending");
                self.paused_until = Some(now + self.duty_cycle_pause);
                if let Some(part) = self.part_mut(reply) {
                    part.phase = Phase::Waiting { not_before: None };
                }
            }
            NakReason::TooLarge | NakReason::NoChannel => {
                self.fail_reply(reply, FailReason::Nak(reason))
            }
            // Our node lost the key (firmware 2.8 evicts it from a full node list): the one
            // we pinned goes back as a contact, and the part is resent once after a gap.
            NakReason::PkiUnknownPubkey if rekey.is_some() => {
                if let Some((key, generation)) = rekey {
                    self.rekey(reply, key, generation, now);
                }
            }
            // Never resent without PKI: the part was to go PKI or not at all.
            NakReason::PkiFailed
            | NakReason::PkiUnknownPubkey
            | NakReason::PkiSendFailPublicKey => {
                warn!(
                    %to,
                    id,
                    ?reason,
                    "our node could not PKI-encrypt the part ({}); not sent with the channel key",
                    pki_meaning(reason)
                );
                self.fail_reply(reply, FailReason::Nak(reason))
            }
            // MAX_RETRANSMIT, and every reason we do not know, may well pass on another try:
            // retrying a few times with backoff is cheap and bounded.
            NakReason::MaxRetransmit | NakReason::Other(_) if unheld => {
                self.fail_reply(reply, FailReason::Nak(reason))
            }
            NakReason::MaxRetransmit | NakReason::Other(_) => {
                self.retry(reply, FailReason::Nak(reason), now)
            }
        }
    }

    /// Hands `key` to our node as reply `reply`'s destination's contact, and resends the part
    /// it refused one send gap later (the contact is written first).
    fn rekey(&mut self, reply: ReplyId, key: PublicKey, generation: u64, now: Instant) {
        let resend_at = now + self.send_gap;
        let Some(r) = self.reply_mut(reply) else {
            return;
        };
        r.rekeyed = true;
        let node = r.req.to;
        let Some(part) = r.part.as_mut() else {
            return;
        };
        part.phase = Phase::Waiting {
            not_before: Some(resend_at),
        };
        info!(%node, "our node has no key for it: handing it the pinned key, then resending");
        self.out
            .push(Action::Write(Outgoing::Contact(OutgoingContact {
                node,
                key,
                generation,
            })));
    }
}
