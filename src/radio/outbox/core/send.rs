//! Which part goes out when: the candidates (each destination's first queued reply, its part
//! waiting, a place for it if held), the moment the next may go (its own wait, the gap, a
//! pause, a full node queue), the probe of a full queue, and the writing of the part.

use std::time::{Duration, Instant};

use tracing::debug;

use super::{
    Action, HELD_IN_FLIGHT, OutboxCore, Part, Phase, QUEUE_FULL_MAX_WAIT, QUEUE_PROBE_EVERY, Reply,
    SendAt, fair,
};
use crate::node::{NodeId, Standing};
use crate::radio::packet::DEFAULT_HOP_LIMIT;
use crate::radio::{Outgoing, OutgoingText, hops};

impl<K> OutboxCore<K> {
    /// Whether a part to `r`'s destination is held: it waits for its ACK and is retried (to
    /// the broadcast address, to a proven node, to a node that ACKed before, a delivery whose
    /// sender waits for its receipt). A zero-hop part never is: it goes without `want_ack`,
    /// so no ACK can come.
    fn held(&self, r: &Reply<K>) -> bool {
        self.hop_limit(r) > 0
            && (r.req.to == NodeId::BROADCAST
                || r.standing == Standing::Proven
                || r.req.receipt
                || self.acks.acks(r.req.to))
    }

    /// How far `r`'s parts go: the firmware's rule from the message it answers, our node's
    /// limit and `[radio] reply_hops` (`hops::reply_hop_limit`).
    fn hop_limit(&self, r: &Reply<K>) -> u32 {
        let ours = self.link.map_or(DEFAULT_HOP_LIMIT, |l| l.hop_limit);
        hops::reply_hop_limit(r.req.asked, ours, self.reply_hops)
    }

    /// The replies whose part may go once the pacing allows, with their index in the queue:
    /// each destination's first queued reply (`fair::heads`), its part waiting (not in flight),
    /// and a place for it among the [`HELD_IN_FLIGHT`] if it is held.
    fn candidates(&self) -> impl Iterator<Item = (usize, &Reply<K>)> + '_ {
        let places = self.queue.iter().filter(|r| r.holds_place()).count() < HELD_IN_FLIGHT;
        fair::heads(&self.queue)
            .filter(move |(_, r)| r.waiting() && (places || r.holds_place() || !self.held(r)))
    }

    /// When the next part may be written: the earliest a candidate's own wait allows, and
    /// not before the gap, a pause or a full node queue allow.
    pub(super) fn send_at(&self) -> SendAt {
        if self.link.is_none() {
            return SendAt::Nothing;
        }
        let Some(own) = self.candidates().map(|(_, r)| r.not_before()).min() else {
            return SendAt::Nothing;
        };
        let gap = self.last_text.map(|t| t + self.send_gap);
        let full = self.queue_full.map(|f| f.since + QUEUE_FULL_MAX_WAIT);
        // The latest of the constraints set; with none of them the part may go at once.
        match [own, gap, self.paused_until, full]
            .into_iter()
            .flatten()
            .max()
        {
            Some(at) => SendAt::At(at),
            None => SendAt::Now,
        }
    }

    /// When to probe the node's full queue, if a part is waiting for it.
    pub(super) fn probe_at(&self) -> Option<Instant> {
        self.link?;
        self.candidates().next()?;
        let full = self.queue_full?;
        let at = full.last_probe.unwrap_or(full.since) + QUEUE_PROBE_EVERY;
        (at < full.since + QUEUE_FULL_MAX_WAIT).then_some(at)
    }

    /// Writes the part that goes next at `now`, if any may: of the candidates whose own wait
    /// is over, the one `fair` picks. Returns whether one went.
    pub(super) fn send_part(&mut self, now: Instant) -> bool {
        let Some(link) = self.link else {
            return false;
        };
        let due = self
            .candidates()
            .filter(|(_, r)| r.not_before().is_none_or(|t| t <= now));
        let Some(at) = self.rr.pick(due) else {
            return false;
        };
        let Some((held, hop_limit)) = self
            .queue
            .get(at)
            .map(|r| (self.held(r), self.hop_limit(r)))
        else {
            return false;
        };
        let id = self.ids.next_id();
        let Some(reply) = self.queue.get_mut(at) else {
            return false;
        };
        let index = reply.outcomes.len();
        let Some(body) = reply.req.parts.get(index) else {
            return false;
        };
        let open = reply.open();
        let total = reply.req.parts.len();
        let text = match reply.stream.as_mut() {
            Some(s) => {
                let marker = s.numbering.marker(index, s.complete.then_some(total));
                format!("{body}{marker}")
            }
            None => body.clone(),
        };
        let packet = OutgoingText {
            id,
            to: reply.req.to,
            channel: reply.req.channel,
            hop_limit,
            text,
            reply_id: if index == 0 { reply.req.reply_to } else { None },
            pki: reply.req.pki,
            generation: link.generation,
        };
        let to = packet.to;
        // Never ACKed: wait only for the node's immediate refusals, one send gap.
        let wait = if held {
            self.ack_timeout
        } else {
            self.send_gap
                .min(self.ack_timeout)
                .max(Duration::from_millis(1))
        };
        let part = reply.part.get_or_insert_with(Part::fresh);
        part.unheld = (!held).then_some(now);
        part.no_ack = hop_limit == 0;
        part.phase = Phase::InFlight {
            id,
            generation: link.generation,
            deadline: now + wait,
            queued: false,
        };
        debug!(
            %to,
            id,
            part = index + 1,
            of = total,
            open,
            held,
            bytes = packet.text.len(),
            attempt = part.tries,
            "sending part"
        );
        self.out.push(Action::Write(Outgoing::Text(packet)));
        self.last_text = Some(now);
        self.rr.served(to);
        // This send's own queueStatus says whether the queue filled up again.
        self.queue_full = None;
        true
    }
}
