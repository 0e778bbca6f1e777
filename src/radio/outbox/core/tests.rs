//! Table-driven tests of the outbox core in virtual time (harness in `sim`): pacing, ACK/NAK
//! paths, retries, a full node queue, link faults and reboots, shutdown, streamed replies.

use std::time::Duration;

use super::sim::*;
use super::*;
use crate::node::NodeId;
use crate::radio::{LinkEvent, LinkState, NakReason};

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
    // Node 3's reply goes while node 2's part waits for its retry.
    check(
        &[reply("a", 2, 3), reply("b", 3, 1)],
        &[LOST, ACK, LOST, LOST],
        60.0,
        &[
            "0.0 send a1 #101",
            "2.0 send b1 #102",
            "2.5 report 1 [Delivered]",
            "6.0 send a1 #103",
            "22.0 send a1 #104",
            "23.0 report 0 [Failed(Nak(MaxRetransmit)), Failed(EarlierPartFailed), \
             Failed(EarlierPartFailed)]",
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
fn every_part_of_a_pki_reply_goes_pki_and_a_pki_nak_is_never_resent() {
    let pki = |r: ReplyRequest| ReplyRequest { pki: true, ..r };
    let mut sim = Sim::new(&cfg(), &[ACK, ACK, &[(1.0, Ev::Nak(35))], ACK]);
    sim.enqueue(pki(reply("a", 2, 2)), 0);
    sim.enqueue(pki(reply("b", 3, 2)), 1);
    sim.enqueue(reply("c", 4, 1), 2);
    sim.run_until(60.0);
    let sent: Vec<(String, bool)> = sim.texts.iter().map(|t| (t.text.clone(), t.pki)).collect();
    assert_eq!(
        sent,
        [
            ("a1".to_string(), true),
            ("a2".to_string(), true),
            ("b1".to_string(), true),
            ("c1".to_string(), false),
        ],
        "b1's PKI NAK gives the reply up: nothing goes without PKI"
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
fn a_lost_key_is_handed_back_once_and_the_part_resent() {
    // PKI_UNKNOWN_PUBKEY on a PKI reply with a pinned key: the key goes to our node as a
    // contact, the part is resent a gap later. Once per reply: a second such NAK ends it.
    let pinned = |r: ReplyRequest| ReplyRequest {
        pki: true,
        pinned: Some(crate::node::PublicKey([7; 32])),
        ..r
    };
    let cases: [(ReplyRequest, &[Answer], &[&str]); 3] = [
        (
            pinned(reply("a", 2, 1)),
            &[&[(1.0, Ev::Nak(35))], ACK],
            &[
                "0.0 send a1 #101",
                "1.0 contact 2",
                "3.0 send a1 #102",
                "3.5 report 0 [Delivered]",
            ],
        ),
        (
            pinned(reply("a", 2, 1)),
            &[&[(1.0, Ev::Nak(35))], &[(1.0, Ev::Nak(35))]],
            &[
                "0.0 send a1 #101",
                "1.0 contact 2",
                "3.0 send a1 #102",
                "4.0 report 0 [Failed(Nak(PkiUnknownPubkey))]",
            ],
        ),
        // Another PKI reason is not a lost key: no contact mends it.
        (
            pinned(reply("a", 2, 1)),
            &[&[(1.0, Ev::Nak(39))]],
            &[
                "0.0 send a1 #101",
                "1.0 report 0 [Failed(Nak(PkiSendFailPublicKey))]",
            ],
        ),
    ];
    for (req, answers, expect) in cases {
        check(&[req], answers, 60.0, expect);
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
fn stale_full_queue_neither_delays_nor_probes() {
    let mut sim = Sim::new(&cfg(), &[ACK]);
    let full = LinkEvent::QueueStatus {
        res: 0,
        free: 0,
        maxlen: 16,
        mesh_packet_id: 0,
    };
    sim.core.on_event(full, sim.now);
    sim.run_until(100.0);
    sim.enqueue(reply("a", 2, 1), 0);
    sim.run_until(200.0);
    assert_eq!(
        sim.trace,
        ["100.0 send a1 #101", "100.5 report 0 [Delivered]"]
    );
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

/// A reply to node `to` answering a message that came with these hop fields.
fn answering(to: u32, parts: usize, hop_start: u32, hop_limit: u32) -> ReplyRequest {
    ReplyRequest {
        asked: crate::radio::HopFields {
            hop_start,
            hop_limit,
            bitfield: true,
        },
        ..reply(if hop_start == 0 { "z" } else { "a" }, to, parts)
    }
}

#[test]
fn replies_go_as_far_as_the_asker_came_and_a_zero_hop_one_waits_for_no_ack() {
    // Our node's limit is 5. One hop away: at 3, held (proven) until its ACK. Zero-hop: at
    // 0, without want_ack, so nothing waits for an ACK — not even for a proven node: each
    // part goes after the gap and ends `Sent`, and its reply is reported at once.
    let mut sim = Sim::new(&cfg(), &[&[(10.0, Ev::Ack)], SILENT, SILENT]);
    sim.enqueue_as(answering(2, 1, 3, 2), Standing::Proven, 0);
    sim.enqueue_as(answering(3, 2, 0, 0), Standing::Proven, 1);
    sim.run_until(60.0);
    assert_eq!(
        sim.trace,
        [
            "0.0 send a1 #101",
            "2.0 send z1 #102",
            "4.0 send z2 #103",
            "6.0 report 1 [Sent, Sent]",
            "10.0 report 0 [Delivered]",
        ],
        "trace:\n{}",
        sim.trace.join("\n")
    );
    let hops: Vec<_> = sim.texts.iter().map(|t| (t.to.0, t.hop_limit)).collect();
    assert_eq!(hops, [(2, 3), (3, 0), (3, 0)]);
    // `[radio] reply_hops` caps it further; unknown hops go at the cap, not the limit.
    let capped = RadioConfig {
        reply_hops: Some(2),
        ..cfg()
    };
    let mut sim = Sim::new(&capped, &[ACK, ACK]);
    sim.enqueue(answering(2, 1, 7, 1), 0);
    sim.enqueue(reply("u", 3, 1), 1);
    sim.run_until(60.0);
    let hops: Vec<_> = sim.texts.iter().map(|t| (t.to.0, t.hop_limit)).collect();
    assert_eq!(hops, [(2, 2), (3, 2)]);
}

#[test]
fn a_delivery_whose_sender_waits_for_a_receipt_is_held_for_a_new_node() {
    // Nodes that never ACKed: a reply to one goes once, nothing waits for it (reported
    // `Sent` at its ACK timeout). A `!tell` delivery (`receipt`) waits for its ACK and is
    // retried like a proven node's reply.
    let mut sim = Sim::new(&cfg(), &[SILENT, SILENT, &[(3.0, Ev::Ack)]]);
    sim.enqueue_as(reply("n", 20, 1), Standing::New, 0);
    let receipt = ReplyRequest {
        receipt: true,
        pinned: None,
        ..reply("r", 30, 1)
    };
    sim.enqueue_as(receipt, Standing::New, 1);
    sim.run_until(200.0);
    assert_eq!(
        sim.trace,
        [
            "0.0 send n1 #101",
            "2.0 send r1 #102",
            "45.0 report 0 [Sent]",
            "52.0 send r1 #103",
            "55.0 report 1 [Delivered]",
        ],
        "trace:\n{}",
        sim.trace.join("\n")
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
    // In flight when the link drops (not confirmed by the node): the timeout passes while
    // the link is down; once it is back, the ACK gets 10 s, then the retry (+5 s).
    sim.enqueue(reply("b", 3, 1), 1);
    sim.run_until(33.0);
    sim.link(LinkState::Down {
        reason: crate::radio::DownReason::Silent,
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
            "215.0 send b1 #103",
            "215.5 report 1 [Delivered]",
        ]
    );
    let generations: Vec<u64> = sim.texts.iter().map(|t| t.generation).collect();
    assert_eq!(generations, [2, 2, 3]);
}

fn down() -> LinkState {
    LinkState::Down {
        reason: crate::radio::DownReason::Silent,
        retry_in: Duration::from_secs(1),
    }
}

/// Sends `a1` (answered with `first`) then, while it waits, `b1` (ACKed at 2.5 s); between
/// 5 s and `up_at` the link is down, then Ready as generation 2 with `reboot_count` `after` (1 had `before`); `rebooted`
/// says whether the node sent `rebooted` at 6 s. Returns the trace.
fn across_a_link_fault(
    first: Answer,
    up_at: f64,
    (before, after): (u32, u32),
    rebooted: bool,
) -> Vec<String> {
    let mut sim = Sim::new(&cfg(), &[first, ACK, ACK]);
    sim.link(ready_booted(1, before));
    sim.enqueue(reply("a", 2, 1), 0);
    sim.enqueue(reply("b", 3, 1), 1);
    sim.run_until(5.0);
    if rebooted {
        sim.run_until(6.0);
        sim.event(LinkEvent::Rebooted);
    }
    sim.link(down());
    sim.run_until(up_at);
    sim.link(ready_booted(2, after));
    sim.run_until(200.0);
    sim.trace
}

#[test]
fn a_part_the_node_queued_is_not_resent_after_a_link_fault() {
    // The ACK timeout (45 s) passes after the link is back: counted as sent, not resent.
    assert_eq!(
        across_a_link_fault(QUEUED, 20.0, (3, 3), false),
        ended_at("45.0 report 0 [Unconfirmed]")
    );
    // It passes while the link is still down: decided when the link is back.
    assert_eq!(
        across_a_link_fault(QUEUED, 60.0, (0, 0), false),
        ended_at("60.0 report 0 [Unconfirmed]")
    );
    // Its ACK still arrives on the new link: delivered.
    assert_eq!(
        across_a_link_fault(
            &[(0.0, Ev::Status { res: 0, free: 15 }), (30.0, Ev::Ack)],
            20.0,
            (3, 3),
            false
        ),
        ended_at("30.0 report 0 [Delivered]")
    );
}

/// The trace of `a1` and `b1` (delivered at once), then `a1`'s end.
fn ended_at(end: &str) -> Vec<String> {
    vec![
        "0.0 send a1 #101".to_string(),
        "2.0 send b1 #102".to_string(),
        "2.5 report 1 [Delivered]".to_string(),
        end.to_string(),
    ]
}

/// The trace of a part resent at `t` (then ACKed), with `b1` delivered meanwhile.
fn resent_at(t: f64) -> Vec<String> {
    let mut trace = ended_at(&format!("{t:.1} send a1 #103"));
    trace.push(format!("{:.1} report 0 [Delivered]", t + 0.5));
    trace
}

#[test]
fn a_part_the_node_never_confirmed_waits_for_its_ack_after_a_link_fault() {
    // The link is back at 20 s, before the 45 s ACK timeout: resent after it (+5 s backoff).
    assert_eq!(
        across_a_link_fault(SILENT, 20.0, (3, 3), false),
        resent_at(50.0)
    );
    // Back only at 60 s: its ACK gets 10 s on the new link, then the resend (+5 s).
    assert_eq!(
        across_a_link_fault(SILENT, 60.0, (3, 3), false),
        resent_at(75.0)
    );
    // The node kept its ACK for us across the fault: delivered, not resent.
    assert_eq!(
        across_a_link_fault(&[(62.0, Ev::Ack)], 60.0, (3, 3), false),
        ended_at("62.0 report 0 [Delivered]")
    );
}

#[test]
fn a_part_is_resent_when_the_node_rebooted() {
    // The node said `rebooted` at 6 s: the part is lost, resent once the link is back.
    assert_eq!(
        across_a_link_fault(QUEUED, 20.0, (3, 3), true),
        resent_at(20.0)
    );
    // Its boot count changed in the next handshake (20 s): resent after the 5 s backoff.
    assert_eq!(
        across_a_link_fault(QUEUED, 20.0, (3, 4), false),
        resent_at(25.0)
    );
    // The reboot shows only after the ACK timeout, when the link is back.
    assert_eq!(
        across_a_link_fault(QUEUED, 60.0, (3, 4), false),
        resent_at(65.0)
    );
    // Queued, and no link fault: the usual ACK timeout resend.
    let mut sim = Sim::new(&cfg(), &[QUEUED, ACK]);
    sim.enqueue(reply("a", 2, 1), 0);
    sim.run_until(100.0);
    assert_eq!(
        sim.trace,
        [
            "0.0 send a1 #101",
            "50.0 send a1 #102",
            "50.5 report 0 [Delivered]",
        ]
    );
}

#[test]
fn parts_in_flight_to_different_nodes_are_each_decided_on_their_own() {
    // Across a link fault: a1 was queued by the node (counted as sent), b1 was not (its ACK
    // gets the grace period on the new link, then it is resent).
    let mut sim = Sim::new(&cfg(), &[QUEUED, SILENT, ACK]);
    sim.enqueue(reply("a", 2, 1), 0);
    sim.enqueue(reply("b", 3, 1), 1);
    sim.run_until(5.0);
    sim.link(down());
    sim.run_until(60.0);
    sim.link(ready(2));
    sim.run_until(200.0);
    assert_eq!(
        sim.trace,
        [
            "0.0 send a1 #101",
            "2.0 send b1 #102",
            "60.0 report 0 [Unconfirmed]",
            "75.0 send b1 #103",
            "75.5 report 1 [Delivered]",
        ]
    );
    // A reboot takes both from the node's queue: both are resent, in the order they went.
    let mut sim = Sim::new(&cfg(), &[SILENT, SILENT, ACK, ACK]);
    sim.enqueue(reply("a", 2, 1), 0);
    sim.enqueue(reply("b", 3, 1), 1);
    sim.run_until(3.0);
    sim.event(LinkEvent::Rebooted);
    sim.run_until(100.0);
    assert_eq!(
        sim.trace,
        [
            "0.0 send a1 #101",
            "2.0 send b1 #102",
            "8.0 send a1 #103",
            "8.5 report 0 [Delivered]",
            "10.0 send b1 #104",
            "10.5 report 1 [Delivered]",
        ]
    );
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

mod streamed {
    use super::*;
    use Step::*;

    #[test]
    fn parts_go_as_they_come_numbered_open_then_closed() {
        check_stream(
            &[
                (0.0, Open(0, 2)),
                (1.0, Part(0, "one")),
                (9.0, Part(0, "two")),
                (9.5, Last(0, "three")),
            ],
            &[ACK, ACK, ACK],
            60.0,
            &[
                "1.0 send one 1/? #101",
                "9.0 send two 2/? #102",
                "11.0 send three 3/3 #103",
                "11.5 report 0 [Delivered, Delivered, Delivered]",
            ],
        );
    }

    #[test]
    fn a_reply_complete_before_its_first_part_goes_is_numbered_as_usual() {
        // The link's 2 s gap holds part 1 back (a text went at 0.0); the reply completes
        // meanwhile, so every part knows the total.
        check_stream(
            &[
                (0.0, Open(0, 3)),
                (0.0, Open(1, 2)),
                (0.0, Last(0, "x")),
                (0.5, Part(1, "one")),
                (1.0, Last(1, "two")),
            ],
            &[ACK, ACK, ACK],
            60.0,
            &[
                "0.0 send x #101",
                "0.5 report 0 [Delivered]",
                "2.0 send one 1/2 #102",
                "4.0 send two 2/2 #103",
                "4.5 report 1 [Delivered, Delivered]",
            ],
        );
        // One part only: no marker at all.
        check_stream(
            &[(0.0, Open(0, 2)), (3.0, Last(0, "short"))],
            &[ACK],
            60.0,
            &["3.0 send short #101", "3.5 report 0 [Delivered]"],
        );
    }

    #[test]
    fn other_nodes_parts_go_while_a_stream_waits_and_one_nodes_replies_keep_their_order() {
        check_stream(
            &[
                (0.0, Open(0, 2)),
                (0.0, Part(0, "a1")),
                // Node 3's whole reply, and a later reply to node 2, queue behind it.
                (0.1, Open(1, 3)),
                (0.1, Last(1, "b1")),
                (0.2, Open(2, 2)),
                (0.2, Last(2, "c1")),
                (10.0, Last(0, "a2")),
            ],
            &[ACK, ACK, ACK, ACK],
            60.0,
            &[
                "0.0 send a1 1/? #101",
                "2.0 send b1 #102",
                "2.5 report 1 [Delivered]",
                "10.0 send a2 2/2 #103",
                "10.5 report 0 [Delivered, Delivered]",
                "12.0 send c1 #104",
                "12.5 report 2 [Delivered]",
            ],
        );
    }

    #[test]
    fn each_part_still_waits_for_the_ack_of_the_one_before() {
        const SLOW: Answer = &[(10.0, Ev::Ack)];
        check_stream(
            &[
                (0.0, Open(0, 2)),
                (0.0, Part(0, "a1")),
                (1.0, Part(0, "a2")),
                (2.0, Last(0, "a3")),
            ],
            &[SLOW, SLOW, ACK],
            60.0,
            &[
                "0.0 send a1 1/? #101",
                "10.0 send a2 2/? #102",
                "20.0 send a3 3/3 #103",
                "20.5 report 0 [Delivered, Delivered, Delivered]",
            ],
        );
    }

    #[test]
    fn retract_works_only_before_the_first_part_is_written() {
        check_stream(
            &[
                (0.0, Open(0, 2)),
                (0.0, Last(0, "busy")),
                // Held behind the 2 s gap: not written yet, so it can be taken back.
                (0.5, Open(1, 3)),
                (0.5, Part(1, "p1")),
                (1.0, Retract(1)),
                (1.0, Open(2, 3)),
                (1.0, Part(2, "q1")),
                (3.0, Retract(2)),
                (3.0, Last(2, "sorry")),
            ],
            &[ACK, ACK, ACK],
            60.0,
            &[
                "0.0 send busy #101",
                "0.5 report 0 [Delivered]",
                "1.0 retract 1 true",
                "1.0 report 1 []",
                "2.0 send q1 1/? #102",
                "3.0 retract 2 false",
                "4.0 send sorry 2/2 #103",
                "4.5 report 2 [Delivered, Delivered]",
            ],
        );
    }

    #[test]
    fn a_stream_whose_producer_left_ends_with_the_parts_it_has() {
        check_stream(
            &[
                (0.0, Open(0, 2)),
                (0.0, Part(0, "a1")),
                (1.0, Part(0, "a2")),
                (1.5, Close(0)),
                (1.6, Part(0, "late")),
            ],
            &[ACK, ACK],
            60.0,
            &[
                "0.0 send a1 1/? #101",
                "2.0 send a2 2/? #102",
                "2.5 report 0 [Delivered, Delivered]",
            ],
        );
        // Closed with nothing sent at all: reported empty at once.
        check_stream(
            &[(0.0, Open(0, 2)), (1.0, Close(0))],
            &[],
            60.0,
            &["1.0 report 0 []"],
        );
    }

    #[test]
    fn a_failed_stream_drops_the_parts_still_coming() {
        const HOPELESS: Answer = &[(1.0, Ev::Nak(7))];
        check_stream(
            &[
                (0.0, Open(0, 2)),
                (0.0, Part(0, "a1")),
                (0.5, Part(0, "a2")),
                (5.0, Last(0, "a3")),
            ],
            &[HOPELESS],
            60.0,
            &[
                "0.0 send a1 1/? #101",
                "1.0 report 0 [Failed(Nak(TooLarge)), Failed(EarlierPartFailed)]",
            ],
        );
    }

    #[test]
    fn shutdown_reports_an_open_stream() {
        let mut sim = Sim::new(&cfg(), &[ACK]);
        let mut ids = std::collections::BTreeMap::new();
        sim.step(&mut ids, &Open(0, 2));
        sim.step(&mut ids, &Part(0, "a1"));
        sim.run_until(1.0);
        sim.step(&mut ids, &Part(0, "a2"));
        assert!(!sim.core.is_idle());
        let reports = sim.core.shutdown();
        assert_eq!(
            reports,
            [Action::Report(
                0,
                ReplyReport {
                    parts: vec![
                        PartOutcome::Delivered,
                        PartOutcome::Failed(FailReason::Shutdown)
                    ]
                }
            )]
        );
    }
}

mod props;
