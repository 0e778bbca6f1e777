//! The test harness for the outbox core: a virtual clock and a scripted node.
//!
//! A scripted node answers each text the core writes (in order) with the events of one
//! [`Answer`]; everything the core does is recorded as trace lines like `2.0 send a2 #102`
//! (and the texts and reports as values), and after every poll the bounds on parts in flight
//! are checked. Nodes 2 to 9 have ACKed before (their parts are held, as every part was before forged ids
//! were considered); nodes from [`FRESH`] on never did.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::*;
use crate::node::NodeId;
use crate::radio::{LinkEvent, LinkState, LocalNode, NodeNames, Outgoing, OutgoingText, Transport};

pub(super) const LOCAL: NodeId = NodeId(1);
/// The first node number that has never ACKed the simulated core.
pub(super) const FRESH: u32 = 100;

/// How the simulated node answers one text, relative to the moment it was written.
#[derive(Clone, Copy, Debug)]
pub(super) enum Ev {
    /// ACK from the destination.
    Ack,
    /// ACK from our own node: a relay was heard.
    Implicit,
    /// NAK with this `Routing.Error` number.
    Nak(i32),
    /// `queueStatus` for this packet.
    Status { res: i32, free: u32 },
}

pub(super) type Answer = &'static [(f64, Ev)];

pub(super) const ACK: Answer = &[(0.5, Ev::Ack)];
pub(super) const SILENT: Answer = &[];
/// The node confirms queueing the text, and no ACK/NAK ever comes.
pub(super) const QUEUED: Answer = &[(0.0, Ev::Status { res: 0, free: 15 })];

pub(super) fn cfg() -> RadioConfig {
    RadioConfig::new(Transport::tcp("127.0.0.1", 0))
}

pub(super) fn ready(generation: u64) -> LinkState {
    ready_booted(generation, 0)
}

/// A Ready link whose handshake reported `reboot_count`.
pub(super) fn ready_booted(generation: u64, reboot_count: u32) -> LinkState {
    LinkState::Ready {
        generation,
        local: Arc::new(LocalNode {
            num: LOCAL,
            names: NodeNames::default(),
            firmware_version: "2.7.26".into(),
            hop_limit: 5,
            channels: vec![(0, String::new())],
            known_nodes: 1,
            reboot_count,
            licensed: false,
        }),
    }
}

/// A reply to node `to` whose parts are named `{name}1`, `{name}2`, ...
pub(super) fn reply(name: &str, to: u32, parts: usize) -> ReplyRequest {
    ReplyRequest {
        to: NodeId(to),
        channel: 0,
        reply_to: Some(7),
        parts: (1..=parts).map(|i| format!("{name}{i}")).collect(),
        pki: false,
        asked: Default::default(),
        receipt: false,
        pinned: None,
    }
}

/// The core plus a virtual clock, a scripted node and a trace of everything the core did.
pub(super) struct Sim {
    pub(super) core: OutboxCore<u32>,
    t0: Instant,
    pub(super) now: Instant,
    answers: Vec<Answer>,
    /// Answers to probes, in order; an empty list is a node that never answers them.
    pub(super) probe_answers: Vec<u32>,
    /// Events the node will deliver, by time.
    scheduled: BTreeMap<(Instant, u64), LinkEvent>,
    seq: u64,
    pub(super) trace: Vec<String>,
    pub(super) texts: Vec<OutgoingText>,
    /// When each of `texts` was written, in seconds.
    pub(super) sent_at: Vec<f64>,
    /// Every report, by key.
    pub(super) reports: Vec<(u32, ReplyReport)>,
}

impl Sim {
    pub(super) fn new(cfg: &RadioConfig, answers: &[Answer]) -> Sim {
        let mut next = 100;
        let ids = PacketIds::new(Box::new(move || {
            next += 1;
            next
        }));
        let t0 = Instant::now();
        let mut core = OutboxCore::new(cfg, ids);
        core.on_link(&ready(1), t0);
        for n in 2..10 {
            core.acks.acked(NodeId(n));
        }
        Sim {
            core,
            t0,
            now: t0,
            answers: answers.iter().rev().copied().collect(),
            probe_answers: Vec::new(),
            scheduled: BTreeMap::new(),
            seq: 0,
            trace: Vec::new(),
            texts: Vec::new(),
            sent_at: Vec::new(),
            reports: Vec::new(),
        }
    }

    fn at(&self, secs: f64) -> Instant {
        self.t0 + Duration::from_secs_f64(secs)
    }

    fn schedule(&mut self, at: Instant, ev: LinkEvent) {
        self.seq += 1;
        self.scheduled.insert((at, self.seq), ev);
    }

    fn poll(&mut self) {
        let now = self.now;
        let t = now.duration_since(self.t0).as_secs_f64();
        for action in self.core.poll(now) {
            match action {
                Action::Write(Outgoing::Text(text)) => {
                    self.trace
                        .push(format!("{t:.1} send {} #{}", text.text, text.id));
                    let answer = self.answers.pop().unwrap_or(SILENT);
                    for (delay, ev) in answer {
                        let (request_id, id) = (text.id, text.id);
                        let event = match *ev {
                            Ev::Ack => LinkEvent::Routing {
                                request_id,
                                from: text.to,
                                error: 0,
                            },
                            Ev::Implicit => LinkEvent::Routing {
                                request_id,
                                from: LOCAL,
                                error: 0,
                            },
                            Ev::Nak(error) => LinkEvent::Routing {
                                request_id,
                                from: LOCAL,
                                error,
                            },
                            Ev::Status { res, free } => LinkEvent::QueueStatus {
                                res,
                                free,
                                maxlen: 16,
                                mesh_packet_id: id,
                            },
                        };
                        self.schedule(now + Duration::from_secs_f64(*delay), event);
                    }
                    self.texts.push(text);
                    self.sent_at.push(t);
                }
                Action::Write(Outgoing::Contact(c)) => {
                    self.trace.push(format!("{t:.1} contact {}", c.node.0));
                }
                Action::Write(Outgoing::Probe) => {
                    self.trace.push(format!("{t:.1} probe"));
                    if !self.probe_answers.is_empty() {
                        let free = self.probe_answers.remove(0);
                        let event = LinkEvent::QueueStatus {
                            res: 0,
                            free,
                            maxlen: 16,
                            mesh_packet_id: 0,
                        };
                        self.schedule(now + Duration::from_millis(100), event);
                    }
                }
                Action::Report(key, report) => {
                    let parts: Vec<String> =
                        report.parts.iter().map(|p| format!("{p:?}")).collect();
                    self.trace
                        .push(format!("{t:.1} report {key} [{}]", parts.join(", ")));
                    self.reports.push((key, report));
                }
            }
        }
        if let Some(deadline) = self.core.next_deadline() {
            assert!(
                deadline > now,
                "deadline {deadline:?} not after now {now:?}"
            );
        }
        self.check_in_flight(t);
    }

    /// The bounds on parts in flight hold: one per destination, [`HELD_IN_FLIGHT`] places.
    fn check_in_flight(&self, t: f64) {
        let mut flying = std::collections::HashSet::new();
        for r in self
            .core
            .queue
            .iter()
            .filter(|r| r.in_flight_id().is_some())
        {
            assert!(
                flying.insert(r.req.to),
                "{t:.1}: two parts in flight to {}",
                r.req.to
            );
        }
        let places = self.core.queue.iter().filter(|r| r.holds_place()).count();
        assert!(places <= HELD_IN_FLIGHT, "{t:.1}: {places} places held");
    }

    /// Runs virtual time forward to `secs`, delivering scheduled events and deadlines.
    pub(super) fn run_until(&mut self, secs: f64) {
        let end = self.at(secs);
        loop {
            let event_at = self.scheduled.keys().next().map(|(at, _)| *at);
            let next = [event_at, self.core.next_deadline()]
                .into_iter()
                .flatten()
                .min();
            match next {
                Some(next) if next <= end => {
                    self.now = next.max(self.now);
                    if event_at == Some(next) {
                        if let Some((_, event)) = self.scheduled.pop_first() {
                            self.core.on_event(event, self.now);
                        }
                    }
                    self.poll();
                }
                _ => break,
            }
        }
        self.now = end.max(self.now);
        self.poll();
    }

    pub(super) fn enqueue(&mut self, req: ReplyRequest, key: u32) {
        self.enqueue_as(req, Standing::Known, key);
    }

    /// Queues a reply to a node of `standing` now.
    pub(super) fn enqueue_as(&mut self, req: ReplyRequest, standing: Standing, key: u32) {
        self.core.enqueue(req, standing, key);
        self.poll();
    }

    /// Performs one step of a streamed reply now.
    pub(super) fn step(&mut self, ids: &mut BTreeMap<u32, ReplyId>, step: &Step) {
        let t = self.now.duration_since(self.t0).as_secs_f64();
        match *step {
            Step::Open(key, to) => {
                let req = ReplyRequest {
                    to: NodeId(to),
                    channel: 0,
                    reply_to: Some(7),
                    parts: Vec::new(),
                    pki: false,
                    asked: Default::default(),
                    receipt: false,
                    pinned: None,
                };
                ids.insert(key, self.core.open(req, Standing::Known, key));
            }
            Step::Part(key, body) | Step::Last(key, body) => {
                let last = matches!(step, Step::Last(..));
                if let Some(&id) = ids.get(&key) {
                    self.core.push(id, vec![body.to_string()], last);
                }
            }
            Step::Close(key) => {
                if let Some(&id) = ids.get(&key) {
                    self.core.close(id);
                }
            }
            Step::Retract(key) => {
                let done = ids.get(&key).is_some_and(|&id| self.core.retract(id));
                self.trace.push(format!("{t:.1} retract {key} {done}"));
            }
        }
        self.poll();
    }

    /// Delivers `event` now, as the link would.
    pub(super) fn event(&mut self, event: LinkEvent) {
        self.core.on_event(event, self.now);
        self.poll();
    }

    pub(super) fn link(&mut self, state: LinkState) {
        self.core.on_link(&state, self.now);
        self.poll();
    }
}

/// One step of a streamed reply in a script: `key` names the reply in the trace.
#[derive(Debug, Clone, Copy)]
pub(super) enum Step {
    /// Opens reply `key` to node `to`.
    Open(u32, u32),
    Part(u32, &'static str),
    Last(u32, &'static str),
    Close(u32),
    /// Tries to take the reply back; the trace says whether it worked.
    Retract(u32),
}

/// Runs `script` (each step at its time, in virtual time), answers the texts with `answers`
/// until `secs` and compares the trace with `expect`.
pub(super) fn check_stream(script: &[(f64, Step)], answers: &[Answer], secs: f64, expect: &[&str]) {
    let mut sim = Sim::new(&cfg(), answers);
    let mut ids = BTreeMap::new();
    for (at, step) in script {
        sim.run_until(*at);
        sim.step(&mut ids, step);
    }
    sim.run_until(secs);
    assert_eq!(sim.trace, expect, "trace:\n{}", sim.trace.join("\n"));
}

/// Queues `replies` at time 0 (to known nodes), answers the texts with `answers`, runs for
/// `secs` and compares the trace with `expect`.
pub(super) fn check(replies: &[ReplyRequest], answers: &[Answer], secs: f64, expect: &[&str]) {
    let mut sim = Sim::new(&cfg(), answers);
    for (key, req) in replies.iter().enumerate() {
        sim.enqueue(req.clone(), key as u32);
    }
    sim.run_until(secs);
    assert_eq!(sim.trace, expect, "trace:\n{}", sim.trace.join("\n"));
}
