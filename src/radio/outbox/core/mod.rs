//! The outbox's sans-IO core: which part goes out when, and what each ACK/NAK means.
//!
//! One queue for the whole radio, and any two texts are at least `send_gap` apart. Which reply
//! sends next (`fair`): the highest standing of its node ([`Standing`]: proven, known, new),
//! then a reply already under way, then round-robin across destinations (the one that waited
//! longest); one node's replies go in order.
//!
//! A part is *held* when its destination has ACKed a part of ours before (`acks`), when its
//! reply answers a proven node (a PKI DM: no forged id), and always to the broadcast address:
//! it waits for its ACK/NAK or its ACK timeout, and is retried, before the next part to the
//! same destination goes — its reply's next part, or that node's next reply. It holds only its
//! destination: other destinations' parts go out while it waits and between its retries, so a
//! node that walked out of range holds nobody else. At most one part per destination is in
//! flight (each reply's parts, and each node's replies, stay in order), and at most
//! [`HELD_IN_FLIGHT`] held parts at once, each from its first send until its outcome: four is
//! enough that a silent node or two never stop the others and that ACKs slower than the gap
//! (several hops, about 8 s) still keep the gap busy, and few enough that unanswered parts'
//! retries take at most 12 of the ~77 texts the 2 s gap allows in the 155 s of a part's three
//! tries (about a sixth of the radio). A held part waiting for a place lets unheld ones go.
//!
//! A part to a node that never ACKed — forged ids never do — is *unheld*: it waits only one
//! send gap (the node's own refusals, RATE_LIMIT or DUTY_CYCLE, come at once and are handled
//! as for any part), then it is [`PartOutcome::Sent`] and the next part to that node may go:
//! no retries, and no place among the held ones. An ACK for it that comes within the ACK
//! timeout still counts: the part is `Delivered` and the node ACKing from then on. A reply
//! with unheld parts is reported once each has its ACK, NAK or ACK timeout; until then it
//! counts as queued ([`OutboxCore::queued`]), and that node's next reply waits. A node whose
//! held part went unanswered through every try is forgotten as ACKing.
//!
//! A streamed reply ([`OutboxCore::open`]) gets its parts while the model still writes
//! ([`OutboxCore::push`]); they are numbered when sent (`chunk::Numbering`: ` i/n` if the
//! reply was complete before its first part went, else ` i/?` and ` n/n` on the last). While
//! such a reply waits for its next part, other nodes' replies may send: parts interleave, and
//! one node's replies still go in order. The core does no I/O and
//! reads no clock: every input carries `now`, and the outputs are [`Action`]s for the task to
//! perform. Invariant: after [`OutboxCore::poll`] at `now`, [`OutboxCore::next_deadline`] is
//! either `None` or later than `now`, so the task never spins.
//!
//! The gap, a duty-cycle pause and a full node TX queue hold every part; a retry's backoff,
//! a RATE_LIMIT resend and the link faults below hold only their own part.
//!
//! A held part is resent only when it may not have gone out. Once the node confirmed queueing it
//! (`queueStatus` with its id and `res == 0`), a link fault before its ACK/NAK does not
//! make it a resend: the node still holds it and sends it, and the ACK was lost with the
//! link. Such a part waits for the link to come back and ends as
//! [`PartOutcome::Unconfirmed`] — unless the node rebooted meanwhile (`rebooted`, or a
//! changed `reboot_count`), which empties its queue, so the part is resent at once.
//! Without that confirmation (the link died before it came), the part may or may not have
//! reached the node; the node keeps packets for its client across a reconnect, so once the
//! link is back its ACK gets [`UNKNOWN_FATE_GRACE`] to arrive before the part is resent.
//!
//! Here: the state (the queue, each reply's current part) and the loop (`poll`, retries, a
//! part's end). `send`: which part may go and when, and writing it; `fair`: the order among
//! them; `events`: the node's answers; `link`: the link's state, faults and reboots; `acks`:
//! who ACKs, and the unheld parts; `streamed`: replies whose parts come over time.

use std::collections::VecDeque;
use std::mem;
use std::time::{Duration, Instant};

use tracing::{debug, info, warn};

use super::ids::PacketIds;
use crate::node::{NodeId, Standing};
use crate::radio::{FailReason, Outgoing, PartOutcome, RadioConfig, ReplyReport, ReplyRequest};

/// Held parts in flight at once, each to its own destination (see the module docs for why 4).
const HELD_IN_FLIGHT: usize = 4;
/// Counted tries per part: the first send plus two retries.
const MAX_TRIES: u32 = 3;
/// Wait before the 2nd and the 3rd try of a part.
const RETRY_BACKOFF: [Duration; 2] = [Duration::from_secs(5), Duration::from_secs(15)];
/// RATE_LIMIT_EXCEEDED resends per part (not counted as tries) before the part fails.
const MAX_RATE_LIMIT_RESENDS: u32 = 5;
/// While the node's TX queue is full: how often to probe it with a heartbeat.
const QUEUE_PROBE_EVERY: Duration = Duration::from_secs(5);
/// While the node's TX queue is full: how long to wait at most before sending anyway, because
/// older firmware never answers the probe.
const QUEUE_FULL_MAX_WAIT: Duration = Duration::from_secs(60);

/// After a link fault, how long a part the node never confirmed queueing waits, once the link
/// is Ready again, for an ACK the node kept for its client (at most `ack_timeout`).
pub(crate) const UNKNOWN_FATE_GRACE: Duration = Duration::from_secs(10);

/// Caps the configured waits so that `Instant` arithmetic cannot overflow, whatever the
/// config says.
const MAX_CONFIGURED_WAIT: Duration = Duration::from_secs(24 * 3600);

/// What the task must do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Action<K> {
    /// Hand this to the link.
    Write(Outgoing),
    /// The reply queued with this key is done: deliver the report.
    Report(K, ReplyReport),
}

/// The parts of the link state the outbox needs while the link is Ready.
#[derive(Debug, Clone, Copy)]
struct ReadyLink {
    generation: u64,
    hop_limit: u32,
}

/// The node's boot count seen by the latest handshake, and the generation it was seen on.
#[derive(Debug, Clone, Copy)]
struct LastSession {
    generation: u64,
    reboot_count: u32,
}

/// Names a streamed reply while it is queued.
pub(crate) type ReplyId = u64;

/// A queued reply and the outcomes of its parts so far.
struct Reply<K> {
    id: ReplyId,
    key: K,
    req: ReplyRequest,
    /// One entry per finished part; its length is the index of the current part.
    outcomes: Vec<PartOutcome>,
    /// For a streamed reply: its parts are bodies, numbered when sent.
    stream: Option<Streamed>,
    /// The standing of the node it answers: higher goes first.
    standing: Standing,
    /// The round-robin tick at which it was queued.
    queued_at: u64,
    /// Parts sent without waiting whose ACK may still come.
    unacked: usize,
    /// The current part's tries and phase, from its first send until its outcome; `None`
    /// while it has not been sent.
    part: Option<Part>,
    /// Its pinned key was handed to our node after a PKI_UNKNOWN_PUBKEY: once per reply, so
    /// a node that keeps refusing the key ends the reply instead of looping.
    rekeyed: bool,
}

impl<K> Reply<K> {
    /// Parts may still come.
    fn open(&self) -> bool {
        self.stream.is_some_and(|s| s.open)
    }

    /// A part is waiting to be sent.
    fn ready(&self) -> bool {
        self.outcomes.len() < self.req.parts.len()
    }

    /// Every part is known and has its final outcome.
    fn finished(&self) -> bool {
        !self.open() && !self.ready() && self.unacked == 0
    }

    /// A part of it was written: it carries on before replies not begun (`fair`).
    fn begun(&self) -> bool {
        !self.outcomes.is_empty() || self.part.is_some()
    }

    /// Its current part waits to be written: it exists and is not in flight.
    fn waiting(&self) -> bool {
        self.ready()
            && self
                .part
                .is_none_or(|p| matches!(p.phase, Phase::Waiting { .. }))
    }

    /// The moment before which its waiting part may not go (a retry's backoff), if any.
    fn not_before(&self) -> Option<Instant> {
        match self.part?.phase {
            Phase::Waiting { not_before } => not_before,
            Phase::InFlight { .. } | Phase::AwaitLink { .. } => None,
        }
    }

    /// The packet id of its current part while an ACK/NAK for it can still come.
    fn in_flight_id(&self) -> Option<u32> {
        match self.part?.phase {
            Phase::InFlight { id, .. } | Phase::AwaitLink { id, .. } => Some(id),
            Phase::Waiting { .. } => None,
        }
    }

    /// Its current part was last sent held: it takes one of the [`HELD_IN_FLIGHT`] places
    /// until its outcome, retries included.
    fn holds_place(&self) -> bool {
        self.part.is_some_and(|p| p.unheld.is_none())
    }
}

/// Where the current part stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Ready to go out once the link, pacing and pauses allow, and not before `not_before`.
    Waiting { not_before: Option<Instant> },
    /// Handed to the link as packet `id` while link `generation` was Ready; waits for its
    /// ACK/NAK until `deadline`. `queued` once the node confirmed queueing it.
    InFlight {
        id: u32,
        generation: u64,
        deadline: Instant,
        queued: bool,
    },
    /// No ACK/NAK by the deadline, and the link is down: the next session decides. `queued`:
    /// counted as sent unless the node rebooted; not `queued`: its ACK gets a grace period.
    AwaitLink {
        id: u32,
        generation: u64,
        queued: bool,
    },
}

/// Retry bookkeeping for a reply's current part (its first unfinished one) once it was sent.
#[derive(Debug, Clone, Copy)]
struct Part {
    /// Counted tries including the pending one; resends after RATE_LIMIT or DUTY_CYCLE do not
    /// count, because the packet never went on air.
    tries: u32,
    /// RATE_LIMIT_EXCEEDED resends so far, capped so a misbehaving node cannot stall us forever.
    rate_limit_resends: u32,
    phase: Phase,
    /// When it was last sent unheld (its destination never ACKed, or it went zero-hop): its
    /// deadline is one send gap, after which it is released as `Sent` instead of resent.
    unheld: Option<Instant>,
    /// It went zero-hop, without `want_ack`: no ACK can come, so nothing waits for one.
    no_ack: bool,
}

impl Part {
    fn fresh() -> Self {
        Part {
            tries: 1,
            rate_limit_resends: 0,
            phase: Phase::Waiting { not_before: None },
            unheld: None,
            no_ack: false,
        }
    }
}

/// When the next part may be written to the link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SendAt {
    /// No part may go (none waits, or none has a place), or the link is not Ready.
    Nothing,
    /// Nothing holds the part back.
    Now,
    /// Not before then (the gap, a retry's backoff, a pause, a full node queue).
    At(Instant),
}

impl SendAt {
    /// The part may be written at `now`.
    fn is_due(self, now: Instant) -> bool {
        match self {
            SendAt::Nothing => false,
            SendAt::Now => true,
            SendAt::At(at) => now >= at,
        }
    }

    /// The moment `poll` must run to write the part, if one is waiting for a moment.
    fn deadline(self) -> Option<Instant> {
        match self {
            SendAt::At(at) => Some(at),
            SendAt::Nothing | SendAt::Now => None,
        }
    }
}

/// The node reported a full TX queue (`queueStatus.free == 0`).
#[derive(Debug, Clone, Copy)]
struct QueueFull {
    since: Instant,
    last_probe: Option<Instant>,
}

/// The paced, ACK-driven send queue as a state machine. `K` identifies whoever queued a reply
/// (the task uses the reply's oneshot sender, tests use numbers).
pub(crate) struct OutboxCore<K> {
    send_gap: Duration,
    ack_timeout: Duration,
    duty_cycle_pause: Duration,
    /// `[radio] reply_hops`: the furthest any part goes.
    reply_hops: Option<u32>,
    ids: PacketIds,
    /// `Some` only while the link is Ready: texts go out only then.
    link: Option<ReadyLink>,
    /// Survives link drops, to notice a reboot across them.
    last_session: Option<LastSession>,
    /// When the current Ready session began.
    ready_since: Option<Instant>,
    /// `UNKNOWN_FATE_GRACE`, at most the ACK timeout.
    grace: Duration,
    queue: VecDeque<Reply<K>>,
    /// The next [`ReplyId`].
    next_id: ReplyId,
    /// When the previous text was handed to the link, for pacing across all replies.
    last_text: Option<Instant>,
    /// All sending pauses until then after a DUTY_CYCLE_LIMIT NAK.
    paused_until: Option<Instant>,
    queue_full: Option<QueueFull>,
    /// Actions produced by inputs, handed out by the next `poll`.
    out: Vec<Action<K>>,
    /// Who sends next among the queued replies.
    rr: RoundRobin,
    /// Which nodes ACK, and the parts sent without waiting.
    acks: Acks,
}

impl<K> OutboxCore<K> {
    /// An empty outbox with the link not yet Ready.
    pub fn new(cfg: &RadioConfig, ids: PacketIds) -> Self {
        OutboxCore {
            send_gap: cfg.send_gap.min(MAX_CONFIGURED_WAIT),
            ack_timeout: cfg.ack_timeout.min(MAX_CONFIGURED_WAIT),
            duty_cycle_pause: cfg.duty_cycle_pause.min(MAX_CONFIGURED_WAIT),
            reply_hops: cfg.reply_hops,
            ids,
            link: None,
            last_session: None,
            ready_since: None,
            grace: UNKNOWN_FATE_GRACE.min(cfg.ack_timeout),
            queue: VecDeque::new(),
            next_id: 1,
            last_text: None,
            paused_until: None,
            queue_full: None,
            out: Vec::new(),
            rr: RoundRobin::default(),
            acks: Acks::default(),
        }
    }

    /// Queues a reply to a node of `standing`; `key` comes back with its report.
    pub(crate) fn enqueue(&mut self, req: ReplyRequest, standing: Standing, key: K) {
        if req.parts.is_empty() {
            self.out
                .push(Action::Report(key, ReplyReport { parts: Vec::new() }));
            return;
        }
        self.add(req, standing, key, None);
    }

    fn add(
        &mut self,
        req: ReplyRequest,
        standing: Standing,
        key: K,
        stream: Option<Streamed>,
    ) -> ReplyId {
        let id = self.next_id;
        self.next_id += 1;
        let queued_at = self.rr.tick();
        self.queue.push_back(Reply {
            id,
            key,
            req,
            outcomes: Vec::new(),
            stream,
            standing,
            queued_at,
            unacked: 0,
            part: None,
            rekeyed: false,
        });
        id
    }

    /// Replies queued (not yet reported), by the standing of their node ([`Standing::index`]).
    pub(crate) fn queued(&self) -> [usize; 3] {
        let mut n = [0; 3];
        for r in &self.queue {
            n[r.standing.index()] += 1;
        }
        n
    }

    /// The nodes the queued replies go to, each once, with the highest standing of its
    /// replies.
    pub(crate) fn holders(&self) -> Vec<(NodeId, Standing)> {
        let mut held: Vec<(NodeId, Standing)> = Vec::new();
        for r in &self.queue {
            match held.iter_mut().find(|(n, _)| *n == r.req.to) {
                Some((_, s)) => *s = (*s).max(r.standing),
                None => held.push((r.req.to, r.standing)),
            }
        }
        held
    }

    /// The reply `id`, while it is queued.
    fn reply(&self, id: ReplyId) -> Option<&Reply<K>> {
        self.queue.iter().find(|r| r.id == id)
    }

    fn reply_mut(&mut self, id: ReplyId) -> Option<&mut Reply<K>> {
        self.queue.iter_mut().find(|r| r.id == id)
    }

    /// The current part of reply `id`, once it was sent.
    fn part_mut(&mut self, id: ReplyId) -> Option<&mut Part> {
        self.reply_mut(id)?.part.as_mut()
    }

    /// The reply whose current part is packet `packet`, while its ACK/NAK can still come.
    fn in_flight(&self, packet: u32) -> Option<ReplyId> {
        if packet == 0 {
            return None;
        }
        let reply = self
            .queue
            .iter()
            .find(|r| r.in_flight_id() == Some(packet))?;
        Some(reply.id)
    }

    /// Removes the reply at `at`, forgetting its destination's turn when nothing else is queued
    /// for it.
    fn remove(&mut self, at: usize) -> Option<Reply<K>> {
        let reply = self.queue.remove(at)?;
        let to = reply.req.to;
        if !self.queue.iter().any(|r| r.req.to == to) {
            self.rr.forget(to);
        }
        Some(reply)
    }

    /// Reports and removes reply `id` if it is complete.
    fn report_finished(&mut self, id: ReplyId) {
        let Some(at) = self.queue.iter().position(|r| r.id == id && r.finished()) else {
            return;
        };
        if let Some(reply) = self.remove(at) {
            self.out.push(Action::Report(
                reply.key,
                ReplyReport {
                    parts: reply.outcomes,
                },
            ));
        }
    }

    /// Runs the timers and decides what to send at `now`; returns everything to do.
    pub(crate) fn poll(&mut self, now: Instant) -> Vec<Action<K>> {
        for part in self.acks.expired(now) {
            self.settle(part, None);
        }
        let due: Vec<(ReplyId, Part)> = self
            .queue
            .iter()
            .filter_map(|r| Some((r.id, r.part?)))
            .filter(|(_, p)| matches!(p.phase, Phase::InFlight { deadline, .. } if now >= deadline))
            .collect();
        for (reply, part) in due {
            if let Phase::InFlight {
                id,
                generation,
                queued,
                ..
            } = part.phase
            {
                match part.unheld {
                    Some(sent) => self.release(reply, id, sent, part.no_ack),
                    None => self.ack_timed_out(reply, id, generation, queued, now),
                }
            }
        }
        // One part per poll unless the gap is shorter than the time between polls; each send
        // takes a reply's part out of the waiting ones, so this ends.
        while self.send_at().is_due(now) && self.send_part(now) {}
        if self.probe_at().is_some_and(|at| now >= at) {
            if let Some(full) = self.queue_full.as_mut() {
                full.last_probe = Some(now);
            }
            debug!("node queue full, probing");
            self.out.push(Action::Write(Outgoing::Probe));
        }
        mem::take(&mut self.out)
    }

    /// When `poll` must run next, if no input comes first. The caller polls after every input,
    /// so a part that may go at once is never left waiting for a deadline.
    pub(crate) fn next_deadline(&self) -> Option<Instant> {
        let in_flight = self
            .queue
            .iter()
            .filter_map(|r| match r.part?.phase {
                Phase::InFlight { deadline, .. } => Some(deadline),
                _ => None,
            })
            .min();
        [
            in_flight,
            self.probe_at(),
            self.send_at().deadline(),
            self.acks.next_expiry(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Nothing queued and nothing left to report.
    pub(crate) fn is_idle(&self) -> bool {
        self.queue.is_empty() && self.out.is_empty()
    }

    /// Gives up: every part not finished yet (in flight or waiting) is reported as
    /// `Failed(Shutdown)`, together with anything not yet handed out.
    pub(crate) fn shutdown(&mut self) -> Vec<Action<K>> {
        let left = self.queue.len();
        if left > 0 {
            info!(replies = left, "outbox shut down with replies unsent");
        }
        while let Some(mut reply) = self.queue.pop_front() {
            // An open streamed reply is reported with the parts it has so far.
            let n = reply.req.parts.len().max(reply.outcomes.len());
            reply
                .outcomes
                .resize(n, PartOutcome::Failed(FailReason::Shutdown));
            self.out.push(Action::Report(
                reply.key,
                ReplyReport {
                    parts: reply.outcomes,
                },
            ));
        }
        self.rr.clear();
        self.acks.clear_unheld();
        mem::take(&mut self.out)
    }

    /// Reply `reply`'s current part failed in a way another try may fix: retry with backoff,
    /// or give up the reply once the tries are used up.
    fn retry(&mut self, reply: ReplyId, reason: FailReason, now: Instant) {
        let Some(part) = self.part_mut(reply) else {
            return;
        };
        let backoff = usize::try_from(part.tries - 1)
            .ok()
            .and_then(|i| RETRY_BACKOFF.get(i));
        match backoff {
            Some(backoff) if part.tries < MAX_TRIES => {
                debug!(?reason, tries = part.tries, "retrying part");
                part.tries += 1;
                part.phase = Phase::Waiting {
                    not_before: Some(now + *backoff),
                };
            }
            _ => self.fail_reply(reply, reason),
        }
    }

    /// Reply `reply`'s current part ended as `outcome`; its next part (or its report) follows.
    fn finish_part(&mut self, reply: ReplyId, outcome: PartOutcome) {
        let Some(r) = self.reply_mut(reply) else {
            return;
        };
        r.outcomes.push(outcome);
        r.part = None;
        self.report_finished(reply);
    }

    /// Gives up the rest of reply `reply`: its current part fails with `reason`, the later
    /// ones are not sent (a streamed reply's parts still to come are dropped).
    fn fail_reply(&mut self, reply: ReplyId, reason: FailReason) {
        let Some(r) = self.reply_mut(reply) else {
            return;
        };
        if let Some(s) = r.stream.as_mut() {
            s.open = false;
        }
        let n = r.req.parts.len();
        warn!(
            to = %r.req.to,
            part = r.outcomes.len() + 1,
            of = n,
            ?reason,
            "giving up the rest of the reply"
        );
        let unanswered = reason == FailReason::AckTimeout;
        r.outcomes.push(PartOutcome::Failed(reason));
        r.outcomes
            .resize(n, PartOutcome::Failed(FailReason::EarlierPartFailed));
        r.part = None;
        let to = r.req.to;
        if unanswered {
            // Unanswered through every try: maybe a forged id that ACKed once, maybe a node
            // gone. Its next parts no longer hold a place until it ACKs again.
            self.acks.forget(to);
        }
        self.report_finished(reply);
    }
}

mod acks;
mod events;
mod fair;
mod link;
mod send;
mod streamed;

use acks::Acks;
pub(crate) use events::nak_reason;
use fair::RoundRobin;
use streamed::Streamed;

#[cfg(test)]
mod sim;
#[cfg(test)]
mod tests;
