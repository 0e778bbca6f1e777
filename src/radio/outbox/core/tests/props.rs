//! Property tests: whatever the replies and whatever the node answers, the outbox keeps the
//! gap between any two texts, each reply's parts and each node's replies in order, its tries
//! bounded, and reports every reply once; the bounds on parts in flight are checked by the
//! simulation after every poll (`Sim::check_in_flight`).

use std::collections::HashMap;

use proptest::prelude::*;

use super::super::sim::*;
use super::super::*;
use crate::node::NodeId;

/// The answers a text may get: quick, slow and late ACKs, a relay, silence, a confirmed queue
/// without an ACK, and NAKs that retry, resend, pause or give up.
const ANSWERS: [Answer; 11] = [
    ACK,
    &[(5.0, Ev::Ack)],
    &[(30.0, Ev::Ack)],
    &[(60.0, Ev::Ack)],
    &[(1.0, Ev::Implicit)],
    SILENT,
    QUEUED,
    &[(1.0, Ev::Nak(5))],
    &[(0.5, Ev::Nak(38))],
    &[(1.0, Ev::Nak(7))],
    &[(1.0, Ev::Nak(9))],
];
const DUTY_CYCLE: usize = 10;

/// Destinations: nodes that ACKed before (held), nodes that never did (unheld), the broadcast
/// address (held).
const DESTINATIONS: [u32; 6] = [2, 3, 4, FRESH, FRESH + 1, NodeId::BROADCAST.0];

/// One reply: its destination, standing, number of parts and the second it is queued at.
type Script = Vec<(usize, usize, usize, u32)>;

fn script() -> impl Strategy<Value = Script> {
    prop::collection::vec(
        (0..DESTINATIONS.len(), 0..3usize, 1..4usize, 0..60u32),
        1..10,
    )
}

fn answers() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0..ANSWERS.len(), 0..60)
}

/// Runs `script`, the texts answered by `ANSWERS[answers[i]]` in order (then silence), until
/// everything is reported (or 100,000 s passed); returns the simulation.
fn run(script: &Script, answers: &[usize]) -> Sim {
    let chosen: Vec<Answer> = answers.iter().map(|&a| ANSWERS[a]).collect();
    let mut sim = Sim::new(&cfg(), &chosen);
    let mut order: Vec<usize> = (0..script.len()).collect();
    order.sort_by_key(|&k| script[k].3);
    for k in order {
        let (to, standing, parts, at) = script[k];
        sim.run_until(f64::from(at));
        let req = reply(&format!("r{k}."), DESTINATIONS[to], parts);
        sim.enqueue_as(req, Standing::ALL[standing], k as u32);
    }
    // Past every timeout, pause and backoff the answers cause.
    let mut until = 1_000.0;
    while !sim.core.is_idle() && until < 100_000.0 {
        sim.run_until(until);
        until += 1_000.0;
    }
    sim
}

/// Reply `k` and part `i` (from 1) of a text named `r{k}.{i}`.
fn named(text: &str) -> (usize, usize) {
    let (k, i) = text
        .trim_start_matches('r')
        .split_once('.')
        .expect("a scripted part name");
    (k.parse().expect("reply"), i.parse().expect("part"))
}

proptest! {
    #[test]
    fn the_gap_order_and_tries_hold_whatever_the_node_answers(
        script in script(),
        answers in answers(),
    ) {
        let sim = run(&script, &answers);
        let gap = cfg().send_gap.as_secs_f64();
        for w in sim.sent_at.windows(2) {
            prop_assert!(w[1] - w[0] >= gap - 1e-9, "texts at {w:?}");
        }
        // Per reply: its parts in order; per destination: its replies in the order queued
        // (ties in time queue in script order).
        let mut last_part: HashMap<usize, usize> = HashMap::new();
        let mut last_reply: HashMap<NodeId, usize> = HashMap::new();
        let queued_rank = |k: usize| (script[k].3, k);
        let mut sends: HashMap<(usize, usize), usize> = HashMap::new();
        let mut pauses: HashMap<(usize, usize), usize> = HashMap::new();
        for (j, text) in sim.texts.iter().enumerate() {
            let (k, i) = named(&text.text);
            prop_assert_eq!(text.to, NodeId(DESTINATIONS[script[k].0]));
            let before = last_part.insert(k, i).unwrap_or(0);
            prop_assert!(i == before || i == before + 1, "reply {k}: part {i} after {before}");
            if let Some(prev) = last_reply.insert(text.to, k) {
                prop_assert!(queued_rank(prev) <= queued_rank(k), "reply {k} after {prev}");
            }
            *sends.entry((k, i)).or_default() += 1;
            if answers.get(j) == Some(&DUTY_CYCLE) {
                *pauses.entry((k, i)).or_default() += 1;
            }
        }
        // Tries, plus the resends that do not count: RATE_LIMIT's (capped) and a pause's.
        for (part, n) in &sends {
            let bound = MAX_TRIES + MAX_RATE_LIMIT_RESENDS;
            let bound = bound as usize + pauses.get(part).copied().unwrap_or(0);
            prop_assert!(*n <= bound, "part {part:?} sent {n} times");
        }
        prop_assert!(sim.core.is_idle(), "left: {:?}", sim.trace);
        let mut reported: Vec<u32> = sim.reports.iter().map(|(k, _)| *k).collect();
        reported.sort_unstable();
        let all: Vec<u32> = (0..script.len() as u32).collect();
        prop_assert_eq!(reported, all, "each reply reported once");
        for (k, report) in &sim.reports {
            prop_assert_eq!(report.parts.len(), script[*k as usize].2);
        }
    }
}
