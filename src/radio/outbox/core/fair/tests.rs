//! Table tests of who sends when: standing, replies under way, round-robin across
//! destinations, a silent destination holding only itself, the bound on held parts in
//! flight, and parts to nodes that never ACKed (sent once, holding nothing), in virtual
//! time with the core's simulated node (`sim`: nodes 2 to 9 have ACKed before, nodes from
//! `FRESH` on never did).

use super::super::sim::*;
use super::super::*;
use crate::node::NodeId;
use crate::node::Standing::{self, Known, New, Proven};

/// Queues each reply at its time with its standing (keys in order; replies with the same
/// time together, before the core decides), answers the texts with `answers`, runs until
/// `secs` and returns the trace.
fn run(script: &[(f64, ReplyRequest, Standing)], answers: &[Answer], secs: f64) -> Vec<String> {
    let mut sim = Sim::new(&cfg(), answers);
    let mut next = 0;
    while let Some(&(at, ..)) = script.get(next) {
        sim.run_until(at);
        while let Some((_, req, standing)) = script.get(next).filter(|s| s.0 == at) {
            sim.core.enqueue(req.clone(), *standing, next as u32);
            next += 1;
        }
        sim.run_until(at);
    }
    sim.run_until(secs);
    sim.trace
}

fn check(script: &[(f64, ReplyRequest, Standing)], answers: &[Answer], secs: f64, expect: &[&str]) {
    let trace = run(script, answers, secs);
    assert_eq!(trace, expect, "trace:\n{}", trace.join("\n"));
}

#[test]
fn higher_standing_goes_first_then_destinations_take_turns() {
    check(
        &[
            (0.0, reply("a", 2, 1), Known),
            (0.0, reply("c", 2, 1), Known),
            (0.0, reply("b", 3, 1), Known),
            (0.0, reply("n", 4, 1), New),
            (0.0, reply("p", 5, 1), Proven),
        ],
        &[ACK; 5],
        60.0,
        &[
            "0.0 send p1 #101",
            "0.5 report 4 [Delivered]",
            "2.0 send a1 #102",
            "2.5 report 0 [Delivered]",
            // Node 3 has waited since before node 2 was served: it goes before node 2's second.
            "4.0 send b1 #103",
            "4.5 report 2 [Delivered]",
            "6.0 send c1 #104",
            "6.5 report 1 [Delivered]",
            "8.0 send n1 #105",
            "8.5 report 3 [Delivered]",
        ],
    );
}

#[test]
fn a_reply_under_way_carries_on_and_a_proven_one_goes_between_its_parts() {
    const SLOW: Answer = &[(1.0, Ev::Ack)];
    check(
        &[
            (0.0, reply("a", 2, 3), Known),
            (0.0, reply("b", 3, 1), Known),
            (1.5, reply("p", 5, 1), Proven),
        ],
        &[SLOW; 5],
        60.0,
        &[
            "0.0 send a1 #101",
            "2.0 send p1 #102",
            "3.0 report 2 [Delivered]",
            "4.0 send a2 #103",
            "6.0 send a3 #104",
            "7.0 report 0 [Delivered, Delivered, Delivered]",
            "8.0 send b1 #105",
            "9.0 report 1 [Delivered]",
        ],
    );
}

#[test]
fn a_part_to_a_node_that_never_acked_is_sent_once_and_holds_nothing() {
    check(
        &[
            (0.0, reply("f", FRESH, 2), New),
            (0.0, reply("g", FRESH + 1, 1), New),
            (0.0, reply("a", 2, 1), Known),
        ],
        &[ACK, SILENT, SILENT, SILENT],
        400.0,
        &[
            "0.0 send a1 #101",
            "0.5 report 2 [Delivered]",
            // No ACK waited for, no retry: the next part goes after the gap. The report comes
            // when the last part's ACK timeout has passed.
            "2.0 send f1 #102",
            "4.0 send f2 #103",
            "6.0 send g1 #104",
            "49.0 report 0 [Sent, Sent]",
            "51.0 report 1 [Sent]",
        ],
    );
}

#[test]
fn an_unheld_part_waits_one_gap_for_the_nodes_refusals_and_is_never_retried() {
    // RATE_LIMIT: the node never sent it, so it is resent like any part.
    check(
        &[(0.0, reply("f", FRESH, 1), New)],
        &[&[(0.0, Ev::Nak(38))], SILENT],
        400.0,
        &[
            "0.0 send f1 #101",
            "4.0 send f1 #102",
            "49.0 report 0 [Sent]",
        ],
    );
    // A quick ACK from the node itself: delivered, and its next part is held (and retried).
    check(
        &[(0.0, reply("f", FRESH, 2), New)],
        &[ACK, SILENT, SILENT, SILENT],
        400.0,
        &[
            "0.0 send f1 #101",
            "2.0 send f2 #102",
            "52.0 send f2 #103",
            "112.0 send f2 #104",
            "157.0 report 0 [Delivered, Failed(AckTimeout)]",
        ],
    );
    // A retryable NAK is not retried for a node that never ACKed.
    check(
        &[(0.0, reply("f", FRESH, 2), New)],
        &[&[(1.0, Ev::Nak(5))]],
        400.0,
        &[
            "0.0 send f1 #101",
            "1.0 report 0 [Failed(Nak(MaxRetransmit)), Failed(EarlierPartFailed)]",
        ],
    );
}

#[test]
fn a_late_ack_makes_a_node_held_until_it_stops_acking() {
    check(
        &[
            (0.0, reply("f", FRESH, 1), New),
            // Its ACK came at 10 s: held from then on, with its retries.
            (20.0, reply("g", FRESH, 2), Known),
            // Unanswered through three tries: forgotten, sent once again.
            (200.0, reply("h", FRESH, 1), Known),
        ],
        &[&[(10.0, Ev::Ack)], SILENT, SILENT, SILENT, SILENT],
        400.0,
        &[
            // Its ACK still counts: delivered.
            "0.0 send f1 #101",
            "10.0 report 0 [Delivered]",
            "20.0 send g1 #102",
            "70.0 send g1 #103",
            "130.0 send g1 #104",
            "175.0 report 1 [Failed(AckTimeout), Failed(EarlierPartFailed)]",
            "200.0 send h1 #105",
            "245.0 report 2 [Sent]",
        ],
    );
    // A relay heard (an ACK from our own node) proves nothing about the id: still unheld.
    check(
        &[
            (0.0, reply("f", FRESH, 1), New),
            (20.0, reply("g", FRESH, 1), New),
        ],
        &[&[(1.0, Ev::Implicit)], SILENT],
        400.0,
        &[
            "0.0 send f1 #101",
            "1.0 report 0 [Relayed]",
            "20.0 send g1 #102",
            "65.0 report 1 [Sent]",
        ],
    );
}

#[test]
fn a_proven_node_and_the_broadcast_address_are_held_without_an_ack_before() {
    check(
        &[(0.0, reply("p", FRESH, 1), Proven)],
        &[SILENT; 3],
        400.0,
        &[
            "0.0 send p1 #101",
            "50.0 send p1 #102",
            "110.0 send p1 #103",
            "155.0 report 0 [Failed(AckTimeout)]",
        ],
    );
    // Retried like any held part; another destination's part goes meanwhile.
    check(
        &[
            (0.0, reply("m", NodeId::BROADCAST.0, 1), Known),
            (0.0, reply("a", 2, 1), Known),
        ],
        &[SILENT, ACK, &[(1.0, Ev::Implicit)]],
        60.0,
        &[
            "0.0 send m1 #101",
            "2.0 send a1 #102",
            "2.5 report 1 [Delivered]",
            "50.0 send m1 #103",
            "51.0 report 0 [Relayed]",
        ],
    );
}

#[test]
fn a_silent_destination_holds_only_itself_and_its_own_next_reply() {
    // Node 2 stops answering: its part is retried (50 s, 110 s) and answered at last; node 3's
    // whole reply goes meanwhile, and node 2's next reply waits for its first.
    check(
        &[
            (0.0, reply("a", 2, 2), Known),
            (1.0, reply("b", 3, 2), Known),
            (5.0, reply("c", 2, 1), Known),
        ],
        &[SILENT, ACK, ACK, SILENT, ACK, ACK, ACK],
        400.0,
        &[
            "0.0 send a1 #101",
            "2.0 send b1 #102",
            "4.0 send b2 #103",
            "4.5 report 1 [Delivered, Delivered]",
            "50.0 send a1 #104",
            "110.0 send a1 #105",
            "112.0 send a2 #106",
            "112.5 report 0 [Delivered, Delivered]",
            "114.0 send c1 #107",
            "114.5 report 2 [Delivered]",
        ],
    );
}

#[test]
fn at_most_four_held_parts_are_in_flight_and_unheld_ones_go_meanwhile() {
    const LATE: Answer = &[(20.0, Ev::Ack)];
    const LATER: Answer = &[(30.0, Ev::Ack)];
    check(
        &[
            (0.0, reply("a", 2, 1), Known),
            (0.0, reply("b", 3, 1), Known),
            (0.0, reply("c", 4, 1), Known),
            (0.0, reply("d", 5, 1), Known),
            (0.0, reply("e", 6, 1), Known),
            (0.0, reply("f", FRESH, 1), New),
        ],
        &[LATE, LATER, LATER, LATER, SILENT, ACK],
        100.0,
        &[
            "0.0 send a1 #101",
            "2.0 send b1 #102",
            "4.0 send c1 #103",
            "6.0 send d1 #104",
            // Node 6's part has no place; the new node's, unheld, needs none.
            "8.0 send f1 #105",
            "20.0 report 0 [Delivered]",
            "20.0 send e1 #106",
            "20.5 report 4 [Delivered]",
            "32.0 report 1 [Delivered]",
            "34.0 report 2 [Delivered]",
            "36.0 report 3 [Delivered]",
            "53.0 report 5 [Sent]",
        ],
    );
}

#[test]
fn a_proven_node_is_not_queued_behind_a_flood_of_never_acking_ids() {
    // 20 new ids, two parts each, queued at once; a proven node's reply comes at 5 s.
    let mut script: Vec<(f64, ReplyRequest, Standing)> = (0..20)
        .map(|i| (0.0, reply(&format!("x{i}."), FRESH + i, 2), New))
        .collect();
    script.push((5.0, reply("p", 2, 1), Proven));
    let mut answers = vec![SILENT; 3];
    answers.push(ACK);
    answers.extend([SILENT; 37]);
    let trace = run(&script, &answers, 400.0);
    let sends: Vec<&String> = trace.iter().filter(|l| l.contains(" send ")).collect();
    assert_eq!(sends.len(), 41, "every part once: {trace:#?}");
    assert!(sends[3].starts_with("6.0 send p1 "), "{trace:#?}");
    assert_eq!(
        sends.last().map(|l| l.split(' ').next()),
        Some(Some("80.0")),
        "the flood never holds the radio: a text every 2 s"
    );
}

#[test]
fn a_streamed_reply_to_a_node_that_never_acked_sends_its_parts_as_they_come() {
    let mut sim = Sim::new(&cfg(), &[SILENT; 3]);
    let mut ids = std::collections::BTreeMap::new();
    let req = |to: u32| ReplyRequest {
        to: NodeId(to),
        channel: 0,
        reply_to: Some(7),
        parts: Vec::new(),
        pki: false,
        asked: Default::default(),
        receipt: false,
        pinned: None,
    };
    ids.insert(0, sim.core.open(req(FRESH), New, 0));
    sim.step(&mut ids, &Step::Part(0, "one"));
    sim.run_until(1.0);
    sim.step(&mut ids, &Step::Part(0, "two"));
    sim.run_until(9.0);
    sim.step(&mut ids, &Step::Last(0, "three"));
    sim.run_until(100.0);
    assert_eq!(
        sim.trace,
        [
            "0.0 send one 1/? #101",
            "2.0 send two 2/? #102",
            "9.0 send three 3/3 #103",
            "54.0 report 0 [Sent, Sent, Sent]",
        ]
    );
}

#[test]
fn queued_replies_are_counted_by_standing() {
    let mut sim = Sim::new(&cfg(), &[ACK; 4]);
    sim.core.enqueue(reply("a", 2, 1), Known, 0);
    sim.core.enqueue(reply("n", 3, 2), New, 1);
    sim.core.enqueue(reply("p", 4, 1), Proven, 2);
    assert_eq!(sim.core.queued(), [1, 1, 1]);
    sim.run_until(0.0);
    sim.run_until(1.0);
    assert_eq!(sim.core.queued(), [1, 1, 0], "{:?}", sim.trace);
    sim.run_until(60.0);
    assert_eq!(sim.core.queued(), [0, 0, 0]);
}
