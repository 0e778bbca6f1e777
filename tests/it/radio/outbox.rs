//! What goes out when all goes well: pacing, one part in flight per destination (others' parts
//! go while it waits for its ACK), replies that outlive a reconnect, and the fields of each
//! sent packet. The NAK paths are in `naks`.

use std::time::Duration;

use meshai::node::NodeId;
use meshai::radio::{PartOutcome, ReplyReport, ReplyRequest};
use meshtastic::protobufs::mesh_packet::Priority;
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::{ALICE, BOB, CAROL, DAVE, ERIN, HELD, Rig, WAIT, reply, report, sim_config};
use crate::support::sim_node::{AckPlan, MeshPacketSpec, SentText, SimConfig};

/// The time between consecutive accepted texts.
fn gaps(texts: &[SentText]) -> Vec<Duration> {
    texts
        .windows(2)
        .map(|w| w[1].at.duration_since(w[0].at))
        .collect()
}

/// `(to, text)` of each accepted text.
fn sent(texts: &[SentText]) -> Vec<(u32, String)> {
    texts.iter().map(|t| (t.to, t.text.clone())).collect()
}

#[tokio::test(start_paused = true)]
async fn replies_queued_at_once_are_paced_and_never_refused_for_the_gap() {
    let rig = Rig::start(sim_config()).await;
    let replies = [
        (ALICE, vec!["a1"]),
        (BOB, vec!["b1", "b2"]),
        (CAROL, vec!["c1", "c2", "c3"]),
        (DAVE, vec!["d1"]),
        (ERIN, vec!["e1", "e2"]),
    ];
    let mut pending = Vec::new();
    for (to, parts) in &replies {
        pending.push(rig.send(reply(*to, parts)).await);
    }
    for (rx, (_, parts)) in pending.into_iter().zip(&replies) {
        let r = report(rx).await;
        assert_eq!(r.parts, vec![PartOutcome::Delivered; parts.len()]);
    }

    let texts = rig.sim.texts();
    let want: Vec<(u32, String)> = replies
        .iter()
        .flat_map(|(to, parts)| parts.iter().map(|p| (*to, p.to_string())))
        .collect();
    assert_eq!(sent(&texts), want, "FIFO, every part once");
    assert_eq!(rig.sim.rate_limit_refusals(), 0);
    for gap in gaps(&texts) {
        assert!(gap >= Duration::from_secs(2), "texts {gap:?} apart");
    }
}

#[tokio::test(start_paused = true)]
async fn a_three_part_reply_waits_for_each_ack() {
    let mut rig = Rig::start(SimConfig {
        ack_delay: Duration::from_secs(10),
        ..sim_config()
    })
    .await;
    let dm = rig.dm_round_trip(ALICE, "tell me three things").await;
    let r = report(
        rig.send(ReplyRequest {
            reply_to: Some(dm.packet_id),
            ..reply(ALICE, &["one", "two", "three"])
        })
        .await,
    )
    .await;
    assert_eq!(r.parts, vec![PartOutcome::Delivered; 3]);

    let texts = rig.sim.texts();
    let reply_ids: Vec<Option<u32>> = texts.iter().map(|t| t.reply_id).collect();
    assert_eq!(reply_ids, [Some(dm.packet_id), None, None]);
    for gap in gaps(&texts) {
        // The next part goes as soon as the ACK is in: 10 s, not the 45 s timeout.
        assert!(
            gap >= Duration::from_secs(10) && gap < Duration::from_secs(11),
            "parts {gap:?} apart"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn replies_in_flight_when_the_link_drops_go_out_once_each_after_it_is_back() {
    // A long ACK delay: the first part is in flight when the link drops, its ACK comes on the
    // new connection, and the other replies' parts go on it while it waits.
    let mut rig = Rig::start(SimConfig {
        ack_delay: Duration::from_secs(20),
        ..sim_config()
    })
    .await;
    let mut pending = Vec::new();
    for to in [ALICE, BOB, CAROL] {
        pending.push(rig.send(reply(to, &["held", "back"])).await);
    }
    rig.sim.wait_texts(1, WAIT).await;
    rig.sim.drop_connection();
    rig.down().await;
    rig.ready(2).await;
    let back_at = Instant::now();
    for rx in pending {
        assert_eq!(report(rx).await.parts, vec![PartOutcome::Delivered; 2]);
    }
    let texts = rig.sim.texts();
    let to: Vec<u32> = texts.iter().map(|t| t.to).collect();
    assert_eq!(
        to,
        [ALICE, BOB, CAROL, ALICE, BOB, CAROL],
        "each part once, each one after its own reply's part before"
    );
    assert_eq!(
        texts.iter().map(|t| t.text.as_str()).collect::<Vec<_>>(),
        ["held", "held", "held", "back", "back", "back"]
    );
    assert!(texts[1].at >= back_at, "the rest went out on the new link");
    for gap in gaps(&texts) {
        assert!(gap >= Duration::from_secs(2), "texts {gap:?} apart");
    }
    assert_eq!(rig.sim.log().duplicate_drops, 0);
}

#[tokio::test(start_paused = true)]
async fn a_part_the_node_queued_whose_ack_is_lost_with_the_link_goes_out_once() {
    // The node takes the first part (queueStatus for its id) and never answers: its ACK is
    // lost with the connection. Resending it would put it on air twice.
    let mut rig = Rig::start(sim_config()).await;
    rig.sim.push_ack_plan(AckPlan::Silent);
    let first = rig.send(reply(ALICE, &["only once"])).await;
    let second = rig.send(reply(BOB, &["next"])).await;
    rig.sim.wait_texts(1, WAIT).await;
    rig.sim.drop_connection();
    once_each_across_the_fault(&mut rig, first, second, PartOutcome::Unconfirmed).await;
}

/// After the link fault that is under way: ALICE's reply (`first`) ends as `first_ends`,
/// BOB's (`second`) is delivered on the new link, and each went on air once — still so ten
/// minutes later, past every timeout.
async fn once_each_across_the_fault(
    rig: &mut Rig,
    first: oneshot::Receiver<ReplyReport>,
    second: oneshot::Receiver<ReplyReport>,
    first_ends: PartOutcome,
) {
    rig.down().await;
    rig.ready(2).await;
    assert_eq!(report(first).await.parts, [first_ends]);
    assert_eq!(report(second).await.parts, [PartOutcome::Delivered]);
    tokio::time::sleep(Duration::from_secs(600)).await;
    let to: Vec<u32> = rig.sim.texts().iter().map(|t| t.to).collect();
    assert_eq!(to, [ALICE, BOB], "each part once");
}

#[tokio::test(start_paused = true)]
async fn a_part_cut_off_before_its_queue_status_waits_for_the_ack_the_node_kept() {
    // The connection dies as the node takes the part, before it can say so, and coming back
    // takes longer than the ACK timeout (0.5 s here against a ~1 s reconnect). The node kept
    // the ACK for its next client: the part is delivered, not sent a second time.
    let mut rig =
        Rig::start_with(sim_config(), |c| c.ack_timeout = Duration::from_millis(500)).await;
    rig.sim.cut_after_next_text();
    let first = rig.send(reply(ALICE, &["kept"])).await;
    let second = rig.send(reply(BOB, &["next"])).await;
    once_each_across_the_fault(&mut rig, first, second, PartOutcome::Delivered).await;
}

#[tokio::test(start_paused = true)]
async fn a_part_a_reboot_took_from_the_node_queue_is_sent_again() {
    // The ACK is 20 s away when the node reboots: the part never went out. Once it says
    // `rebooted`, or silently (only the boot count in the next handshake shows it).
    for silent in [false, true] {
        let mut rig = Rig::start(SimConfig {
            ack_delay: Duration::from_secs(20),
            ..sim_config()
        })
        .await;
        let pending = rig.send(reply(ALICE, &["after the reboot"])).await;
        rig.sim.wait_texts(1, WAIT).await;
        if silent {
            rig.sim.reboot_silently();
        } else {
            assert!(rig.sim.send_rebooted());
        }
        rig.down().await;
        rig.ready(2).await;
        assert_eq!(report(pending).await.parts, [PartOutcome::Delivered]);
        assert_eq!(rig.sim.lost_in_reboot().len(), 1, "silent: {silent}");
        let texts = rig.sim.texts();
        assert_eq!(sent(&texts), [(ALICE, "after the reboot".to_string())]);
    }
}

#[tokio::test(start_paused = true)]
async fn replies_queued_while_the_link_is_down_go_out_once_each_after_it_is_back() {
    let mut rig = Rig::start(sim_config()).await;
    rig.sim.drop_connection();
    rig.down().await;
    let mut pending = Vec::new();
    for to in [ALICE, BOB, CAROL] {
        pending.push(rig.send(reply(to, &["queued while down"])).await);
    }
    rig.ready(2).await;
    let back_at = Instant::now();
    for rx in pending {
        assert_eq!(report(rx).await.parts, [PartOutcome::Delivered]);
    }
    let texts = rig.sim.texts();
    let to: Vec<u32> = texts.iter().map(|t| t.to).collect();
    assert_eq!(to, [ALICE, BOB, CAROL], "each reply once");
    assert!(texts.iter().all(|t| t.at >= back_at));
    assert_eq!(rig.sim.rate_limit_refusals(), 0);
}

#[tokio::test(start_paused = true)]
async fn sent_packets_carry_the_reply_hop_limit_want_ack_reliable_and_the_dm_channel() {
    // (hop limit the node reports, hop limit expected on the packet): the DM came one hop,
    // so its answer goes at 3 (hops used + 2), or the node's limit when that is not above 3
    // (3 when the node reports none).
    let cases = [(5, 3), (7, 3), (1, 1), (3, 3), (0, 3)];
    for (node_hops, want_hops) in cases {
        let mut rig = Rig::start(SimConfig {
            hop_limit: node_hops,
            ..sim_config()
        })
        .await;
        let id = rig.sim.inject_text(MeshPacketSpec {
            channel: 2,
            ..MeshPacketSpec::text(BOB, "on the second secondary")
        });
        let dm = rig.dm().await;
        assert_eq!((dm.packet_id, dm.channel), (id, 2));
        let r = report(
            rig.send(ReplyRequest {
                to: dm.from,
                channel: dm.channel,
                reply_to: Some(dm.packet_id),
                parts: vec!["answer \u{2014}\u{e9}".into()],
                pki: false,
                asked: dm.hop_fields,
                receipt: false,
                pinned: None,
            })
            .await,
        )
        .await;
        assert_eq!(r.parts, [PartOutcome::Delivered]);

        let texts = rig.sim.texts();
        let [t] = texts.as_slice() else {
            panic!("one text expected: {texts:?}");
        };
        assert_eq!(
            (t.to, t.channel, t.hop_limit, t.want_ack, t.priority),
            (BOB, 2, want_hops, true, Priority::Reliable as i32),
            "node hop limit {node_hops}"
        );
        assert_eq!(t.priority, 70);
        assert_eq!(t.reply_id, Some(id));
        assert_eq!(t.payload, "answer \u{2014}\u{e9}".as_bytes());
        assert_ne!(t.id, 0);
        assert_eq!(NodeId(t.to), dm.from);
    }
}

/// A streamed reply whose parts come while the model writes (every 7 s here, slower than the
/// 5 s ACKs): each part waits for its ACK and the 2 s gap; another node's reply goes out while
/// the stream waits for its ACK; the numbering is ` i/?` then ` n/n`.
#[tokio::test(start_paused = true)]
async fn a_streamed_reply_keeps_the_gap_and_the_ack_waits_and_lets_others_in() {
    let rig = Rig::start(SimConfig {
        ack_delay: Duration::from_secs(5),
        ..sim_config()
    })
    .await;
    let outbox = rig.radio.outbox();
    let head = reply(ALICE, &[]);
    let (stream, alice) = outbox
        .open(head, HELD)
        .await
        .expect("the outbox takes replies");
    stream.parts(vec!["a1".into()]).await.expect("queued");
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Part 1 went at once; Bob's reply queues behind Alice's open one.
    let bob = rig.send(reply(BOB, &["b1"])).await;
    tokio::time::sleep(Duration::from_secs(7)).await;
    stream.parts(vec!["a2".into()]).await.expect("queued");
    tokio::time::sleep(Duration::from_secs(1)).await;
    stream
        .finish(vec!["a3".into(), "a4".into()])
        .await
        .expect("queued");
    assert_eq!(report(bob).await.parts, [PartOutcome::Delivered]);
    assert_eq!(report(alice).await.parts, vec![PartOutcome::Delivered; 4]);

    let texts = rig.sim.texts();
    assert_eq!(
        sent(&texts),
        [
            (ALICE, "a1 1/?".to_string()),
            (BOB, "b1".to_string()),
            (ALICE, "a2 2/?".to_string()),
            (ALICE, "a3 3/?".to_string()),
            (ALICE, "a4 4/4".to_string()),
        ]
    );
    // b1 went one gap after a1, without waiting for a1's ACK; each of Alice's parts went
    // after the ACK of the one before (5 s).
    for gap in gaps(&texts) {
        assert!(gap >= Duration::from_secs(2), "texts {gap:?} apart");
    }
    let b1_after = texts[1].at.duration_since(texts[0].at);
    assert!(
        b1_after < Duration::from_secs(5),
        "b1 {b1_after:?} after a1"
    );
    let alice: Vec<SentText> = texts.iter().filter(|t| t.to == ALICE).cloned().collect();
    for gap in gaps(&alice) {
        assert!(gap >= Duration::from_secs(5), "Alice's parts {gap:?} apart");
    }
    assert_eq!(rig.sim.rate_limit_refusals(), 0);
    assert_eq!(rig.sim.log().duplicate_drops, 0);
}

/// A streamed reply taken back before its first part went: nothing goes on air.
#[tokio::test(start_paused = true)]
async fn a_streamed_reply_taken_back_in_time_sends_nothing() {
    let rig = Rig::start(SimConfig {
        ack_delay: Duration::from_secs(5),
        ..sim_config()
    })
    .await;
    let first = rig.send(reply(BOB, &["b1"])).await;
    let (stream, alice) = rig
        .radio
        .outbox()
        .open(reply(ALICE, &[]), HELD)
        .await
        .expect("the outbox takes replies");
    stream.parts(vec!["a1".into()]).await.expect("queued");
    // The 2 s gap after b1: a1 has not gone yet.
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(stream.retract().await);
    assert_eq!(report(alice).await.parts, []);
    assert_eq!(report(first).await.parts, [PartOutcome::Delivered]);
    tokio::time::sleep(Duration::from_secs(30)).await;
    assert_eq!(sent(&rig.sim.texts()), [(BOB, "b1".to_string())]);
}
