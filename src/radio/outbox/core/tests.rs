//! Table-driven tests of the outbox core in virtual time.
//!
//! A scripted node answers each text the core writes (in order) with the events of one
//! [`Answer`]; the trace of what the core did is compared line by line with the expectation.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::*;
use crate::radio::{LocalNode, NodeNames, Transport};

const LOCAL: NodeId = NodeId(1);

/// How the simulated node answers one text, relative to the moment it was written.
#[derive(Clone, Copy, Debug)]
enum Ev {
    /// ACK from the destination.
    Ack,
    /// ACK from our own node: a relay was heard.
    Implicit,
    /// NAK with this `Routing.Error` number.
    Nak(i32),
    /// `queueStatus` for this packet.
    Status { res: i32, free: u32 },
}

type Answer = &'static [(f64, Ev)];

const ACK: Answer = &[(0.5, Ev::Ack)];
const SILENT: Answer = &[];

fn cfg() -> RadioConfig {
    RadioConfig::new(Transport::Tcp {
        host: "127.0.0.1".into(),
        port: 0,
    })
}

fn ready(generation: u64) -> LinkState {
    LinkState::Ready {
        generation,
        local: Arc::new(LocalNode {
            num: LOCAL,
            names: NodeNames::default(),
            firmware_version: "2.7.26".into(),
            hop_limit: 5,
            channels: vec![(0, String::new())],
            known_nodes: 1,
        }),
    }
}

/// A reply to node `to` whose parts are named `{name}1`, `{name}2`, ...
fn reply(name: &str, to: u32, parts: usize) -> ReplyRequest {
    ReplyRequest {
        to: NodeId(to),
        channel: 0,
        reply_to: Some(7),
        parts: (1..=parts).map(|i| format!("{name}{i}")).collect(),
    }
}

/// The core plus a virtual clock, a scripted node and a trace of everything the core did.
struct Sim {
    core: OutboxCore<u32>,
    t0: Instant,
    now: Instant,
    answers: Vec<Answer>,
    /// Answers to probes, in order; an empty list is a node that never answers them.
    probe_answers: Vec<u32>,
    /// Events the node will deliver, by time.
    scheduled: BTreeMap<(Instant, u64), LinkEvent>,
    seq: u64,
    trace: Vec<String>,
    texts: Vec<OutgoingText>,
}

impl Sim {
    fn new(cfg: &RadioConfig, answers: &[Answer]) -> Sim {
        let mut next = 100;
        let ids = PacketIds::new(Box::new(move || {
            next += 1;
            next
        }));
        let t0 = Instant::now();
        let mut core = OutboxCore::new(cfg, ids);
        core.on_link(&ready(1));
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
                }
            }
        }
        if let Some(deadline) = self.core.next_deadline() {
            assert!(
                deadline > now,
                "deadline {deadline:?} not after now {now:?}"
            );
        }
    }

    /// Runs virtual time forward to `secs`, delivering scheduled events and deadlines.
    fn run_until(&mut self, secs: f64) {
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

    fn enqueue(&mut self, req: ReplyRequest, key: u32) {
        self.core.enqueue(req, key);
        self.poll();
    }

    fn link(&mut self, state: LinkState) {
        self.core.on_link(&state);
        self.poll();
    }
}

/// Queues `replies` at time 0, answers the texts with `answers`, runs for `secs` and compares
/// the trace with `expect`.
fn check(replies: &[ReplyRequest], answers: &[Answer], secs: f64, expect: &[&str]) {
    let mut sim = Sim::new(&cfg(), answers);
    for (key, req) in replies.iter().enumerate() {
        sim.enqueue(req.clone(), key as u32);
    }
    sim.run_until(secs);
    assert_eq!(sim.trace, expect, "trace:\n{}", sim.trace.join("\n"));
}

#[test]
fn paces_across_replies_to_different_nodes() {
    check(
        &[reply("a", 2, 2), reply("b", 3, 1)],
        &[ACK, ACK, ACK],
        60.0,
        &[
            "0.0 send a1 #101",
            "2.0 send a2 #102",
            "2.5 report 0 [Delivered, Delivered]",
            "4.0 send b1 #103",
            "4.5 report 1 [Delivered]",
        ],
    );
}

#[test]
fn each_part_waits_for_its_ack() {
    const SLOW: Answer = &[(10.0, Ev::Ack)];
    check(
        &[reply("a", 2, 3)],
        &[SLOW, SLOW, &[(1.0, Ev::Implicit)]],
        60.0,
        &[
            "0.0 send a1 #101",
            "10.0 send a2 #102",
            "20.0 send a3 #103",
            "21.0 report 0 [Delivered, Delivered, Relayed]",
        ],
    );
}

#[test]
fn rate_limit_resends_with_a_new_id() {
    const RATE: Answer = &[(0.5, Ev::Nak(38))];
    check(
        &[reply("a", 2, 1)],
        &[RATE, ACK],
        60.0,
        &[
            "0.0 send a1 #101",
            "4.5 send a1 #102",
            "5.0 report 0 [Delivered]",
        ],
    );
    check(
        &[reply("a", 2, 2)],
        &[RATE; 6],
        60.0,
        &[
            "0.0 send a1 #101",
            "4.5 send a1 #102",
            "9.0 send a1 #103",
            "13.5 send a1 #104",
            "18.0 send a1 #105",
            "22.5 send a1 #106",
            "23.0 report 0 [Failed(Nak(RateLimitExceeded)), Failed(EarlierPartFailed)]",
        ],
    );
}

#[test]
fn max_retransmit_retries_twice_then_gives_up_the_rest() {
    const LOST: Answer = &[(1.0, Ev::Nak(5))];
    check(
        &[reply("a", 2, 3), reply("b", 3, 1)],
        &[LOST, LOST, LOST, ACK],
        60.0,
        &[
            "0.0 send a1 #101",
            "6.0 send a1 #102",
            "22.0 send a1 #103",
            "23.0 report 0 [Failed(Nak(MaxRetransmit)), Failed(EarlierPartFailed), \
             Failed(EarlierPartFailed)]",
            "24.0 send b1 #104",
            "24.5 report 1 [Delivered]",
        ],
    );
    // A retry that gets through lets the reply carry on; unknown reasons are retryable too.
    check(
        &[reply("a", 2, 2)],
        &[LOST, &[(1.0, Ev::Nak(99))], ACK, ACK],
        60.0,
        &[
            "0.0 send a1 #101",
            "6.0 send a1 #102",
            "22.0 send a1 #103",
            "24.0 send a2 #104",
            "24.5 report 0 [Delivered, Delivered]",
        ],
    );
}

#[test]
fn ack_timeout_retries_twice_then_gives_up() {
    check(
        &[reply("a", 2, 2)],
        &[SILENT, SILENT, SILENT],
        400.0,
        &[
            "0.0 send a1 #101",
            "50.0 send a1 #102",
            "110.0 send a1 #103",
            "155.0 report 0 [Failed(AckTimeout), Failed(EarlierPartFailed)]",
        ],
    );
}

#[test]
fn duty_cycle_pauses_all_sending() {
    check(
        &[reply("a", 2, 1), reply("b", 3, 1)],
        &[&[(1.0, Ev::Nak(9))], ACK, ACK],
        400.0,
        &[
            "0.0 send a1 #101",
            "301.0 send a1 #102",
            "301.5 report 0 [Delivered]",
            "303.0 send b1 #103",
            "303.5 report 1 [Delivered]",
        ],
    );
}

#[test]
fn hopeless_naks_give_up_at_once() {
    let cases: [(Answer, &str); 5] = [
        (&[(1.0, Ev::Nak(7))], "TooLarge"),
        (&[(1.0, Ev::Nak(6))], "NoChannel"),
        (&[(1.0, Ev::Nak(34))], "PkiFailed"),
        (&[(1.0, Ev::Nak(35))], "PkiUnknownPubkey"),
        (&[(1.0, Ev::Nak(39))], "PkiSendFailPublicKey"),
    ];
    for (nak, reason) in cases {
        let report = format!("1.0 report 0 [Failed(Nak({reason})), Failed(EarlierPartFailed)]");
        check(
            &[reply("a", 2, 2), reply("b", 3, 1)],
            &[nak, ACK],
            60.0,
            &[
                "0.0 send a1 #101",
                &report,
                "2.0 send b1 #102",
                "2.5 report 1 [Delivered]",
            ],
        );
    }
}

#[test]
fn late_acks_and_naks_are_ignored() {
    // The first try's ACK and a NAK arrive after its timeout, while the second try is pending.
    check(
        &[reply("a", 2, 1)],
        &[&[(52.0, Ev::Nak(7)), (53.0, Ev::Ack)], &[(10.0, Ev::Ack)]],
        100.0,
        &[
            "0.0 send a1 #101",
            "50.0 send a1 #102",
            "60.0 report 0 [Delivered]",
        ],
    );
}

#[test]
fn full_node_queue_waits_and_probes() {
    const FULL: Answer = &[(0.0, Ev::Status { res: 0, free: 0 }), (0.5, Ev::Ack)];
    // Newer firmware answers the probe; the next part goes when the queue has room.
    let mut sim = Sim::new(&cfg(), &[FULL, ACK]);
    sim.probe_answers = vec![0, 4];
    sim.enqueue(reply("a", 2, 2), 0);
    sim.run_until(60.0);
    assert_eq!(
        sim.trace,
        [
            "0.0 send a1 #101",
            "5.0 probe",
            "10.0 probe",
            "10.1 send a2 #102",
            "10.6 report 0 [Delivered, Delivered]",
        ]
    );
    // Older firmware never answers: probe every 5 s, then send anyway after 60 s.
    let mut want = vec!["0.0 send a1 #101".to_string()];
    want.extend((1..12).map(|i| format!("{}.0 probe", i * 5)));
    want.push("60.0 send a2 #102".into());
    want.push("60.5 report 0 [Delivered, Delivered]".into());
    let want: Vec<&str> = want.iter().map(String::as_str).collect();
    check(&[reply("a", 2, 2)], &[FULL, ACK], 100.0, &want);
}

#[test]
fn refused_by_the_node_counts_as_a_try() {
    const REFUSED: Answer = &[(0.0, Ev::Status { res: 32, free: 3 })];
    check(
        &[reply("a", 2, 1)],
        &[REFUSED, ACK],
        60.0,
        &[
            "0.0 send a1 #101",
            "5.0 send a1 #102",
            "5.5 report 0 [Delivered]",
        ],
    );
    check(
        &[reply("a", 2, 1)],
        &[REFUSED; 3],
        60.0,
        &[
            "0.0 send a1 #101",
            "5.0 send a1 #102",
            "20.0 send a1 #103",
            "20.0 report 0 [Failed(Nak(Other(32)))]",
        ],
    );
}

#[test]
fn packets_carry_link_and_reply_fields() {
    let mut sim = Sim::new(&cfg(), &[ACK, ACK]);
    let mut req = reply("a", 2, 2);
    req.channel = 2;
    sim.enqueue(req, 0);
    sim.run_until(10.0);
    let fields: Vec<_> = sim
        .texts
        .iter()
        .map(|t| (t.to, t.channel, t.hop_limit, t.reply_id, t.generation))
        .collect();
    assert_eq!(
        fields,
        [(NodeId(2), 2, 5, Some(7), 1), (NodeId(2), 2, 5, None, 1)]
    );
}

#[test]
fn replies_wait_for_the_link_and_survive_reconnects() {
    let mut sim = Sim::new(&cfg(), &[ACK, SILENT, ACK]);
    sim.link(LinkState::Connecting);
    sim.enqueue(reply("a", 2, 1), 0);
    sim.run_until(30.0);
    assert!(sim.trace.is_empty(), "sent while down: {:?}", sim.trace);
    sim.link(ready(2));
    // In flight when the link drops: waits for the timeout, retries once the link is back.
    sim.enqueue(reply("b", 3, 1), 1);
    sim.run_until(33.0);
    sim.link(LinkState::Down {
        reason: "test".into(),
        retry_in: Duration::from_secs(1),
    });
    sim.run_until(200.0);
    sim.link(ready(3));
    sim.run_until(300.0);
    assert_eq!(
        sim.trace,
        [
            "30.0 send a1 #101",
            "30.5 report 0 [Delivered]",
            "32.0 send b1 #102",
            "200.0 send b1 #103",
            "200.5 report 1 [Delivered]",
        ]
    );
    let generations: Vec<u64> = sim.texts.iter().map(|t| t.generation).collect();
    assert_eq!(generations, [2, 2, 3]);
}

#[test]
fn shutdown_reports_everything_left() {
    let mut sim = Sim::new(&cfg(), &[ACK, SILENT]);
    sim.enqueue(reply("a", 2, 3), 0);
    sim.enqueue(reply("b", 3, 1), 1);
    sim.enqueue(reply("c", 3, 0), 2);
    sim.run_until(3.0);
    assert!(!sim.core.is_idle());
    let reports: Vec<_> = sim.core.shutdown();
    assert!(sim.core.is_idle());
    let shutdown = PartOutcome::Failed(FailReason::Shutdown);
    assert_eq!(
        reports,
        [
            Action::Report(
                0,
                ReplyReport {
                    parts: vec![PartOutcome::Delivered, shutdown.clone(), shutdown.clone()]
                }
            ),
            Action::Report(
                1,
                ReplyReport {
                    parts: vec![shutdown]
                }
            ),
        ]
    );
    assert_eq!(
        sim.trace,
        ["0.0 send a1 #101", "0.0 report 2 []", "2.0 send a2 #102"]
    );
}

#[test]
fn maps_routing_errors() {
    let cases = [
        (0, None),
        (5, Some(NakReason::MaxRetransmit)),
        (6, Some(NakReason::NoChannel)),
        (7, Some(NakReason::TooLarge)),
        (9, Some(NakReason::DutyCycleLimit)),
        (34, Some(NakReason::PkiFailed)),
        (35, Some(NakReason::PkiUnknownPubkey)),
        (38, Some(NakReason::RateLimitExceeded)),
        (39, Some(NakReason::PkiSendFailPublicKey)),
        (3, Some(NakReason::Other(3))),
    ];
    for (error, want) in cases {
        assert_eq!(nak_reason(error), want, "error {error}");
    }
}
