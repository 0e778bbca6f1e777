//! The link's life: dropped connections, reboots, keep-alive heartbeats, and the serial
//! transport over a pty (the one real-time test here).

use std::time::Duration;

use meshai::node::NodeId;
use meshai::radio::{PartOutcome, RadioConfig, Transport};
use meshtastic::protobufs::to_radio;
use tokio::time::Instant;

use super::{ALICE, BOB, ME, Rig, WAIT, reply, report, sim_config, within};
use crate::support::sim_node::{SimConfig, SimNode};

#[tokio::test(start_paused = true)]
async fn a_link_dropped_twice_reconnects_each_time_and_dms_flow_again() {
    let mut rig = Rig::start(sim_config()).await;
    assert_eq!(rig.sim.handshakes(), 1);
    rig.dm_round_trip(ALICE, "before any drop").await;

    for generation in [2, 3] {
        rig.sim.drop_connection();
        let reason = rig.down().await;
        assert!(reason.contains("closed"), "{reason}");
        let local = rig.ready(generation).await;
        assert_eq!(local.num, NodeId(ME));
        assert_eq!(rig.sim.handshakes(), usize::try_from(generation).unwrap());
        rig.dm_round_trip(ALICE, &format!("after drop {}", generation - 1))
            .await;
    }
    assert_eq!(rig.sim.connections(), 3);
}

#[tokio::test(start_paused = true)]
async fn a_reboot_triggers_a_new_handshake_and_dms_flow_after_it() {
    let mut rig = Rig::start(sim_config()).await;
    rig.dm_round_trip(BOB, "before the reboot").await;

    assert!(rig.sim.send_rebooted());
    let reason = rig.down().await;
    assert!(reason.contains("rebooted"), "{reason}");
    rig.ready(2).await;
    assert_eq!(rig.sim.handshakes(), 2);
    rig.dm_round_trip(BOB, "after the reboot").await;
    // The rebooted node forgot its rate limiter; a reply still goes out and is delivered.
    let r = report(rig.send(reply(BOB, &["welcome back"])).await).await;
    assert_eq!(r.parts, [PartOutcome::Delivered]);
}

#[tokio::test(start_paused = true)]
async fn an_idle_link_sends_a_heartbeat_every_300_s_and_stays_up() {
    let mut rig = Rig::start(sim_config()).await;
    let ready_at = Instant::now();
    assert_eq!(rig.sim.heartbeats(), 0);

    rig.sim.wait_heartbeats(1, WAIT).await;
    let beats: Vec<Instant> = rig
        .sim
        .to_radio()
        .into_iter()
        .filter(|r| {
            matches!(
                r.msg.payload_variant,
                Some(to_radio::PayloadVariant::Heartbeat(ref h)) if h.nonce == 0
            )
        })
        .map(|r| r.at)
        .collect();
    let first = beats[0].duration_since(ready_at);
    assert!(
        first >= Duration::from_secs(300) && first < Duration::from_secs(301),
        "first heartbeat after {first:?}"
    );

    // Twenty quiet minutes later: still the first session, kept alive by heartbeats that
    // never used the NodeInfo-broadcasting nonce 1.
    rig.sim.wait_heartbeats(4, WAIT).await;
    assert!(Instant::now().duration_since(ready_at) >= Duration::from_secs(1200));
    let log = rig.sim.log();
    assert_eq!((log.handshakes(), log.connections), (1, 1));
    assert_eq!(log.nodeinfo_pings, 0);
    assert!(matches!(
        *rig.state.borrow(),
        meshai::radio::LinkState::Ready { generation: 1, .. }
    ));
    rig.dm_round_trip(ALICE, "still there?").await;
}

/// Real time: pty I/O is not seen by the paused clock. Short gaps keep it quick.
#[tokio::test]
async fn the_serial_transport_works_over_a_pty() {
    let (sim, pty) = SimNode::start_pty(SimConfig {
        log_text: true,
        ack_delay: Duration::from_millis(20),
        min_text_gap: Duration::from_millis(50),
        ..sim_config()
    });
    let mut cfg = RadioConfig::new(Transport::serial(pty.path.clone(), 115_200));
    cfg.send_gap = Duration::from_millis(100);
    cfg.ack_timeout = Duration::from_secs(5);
    let mut rig = Rig::attach(sim, cfg);
    let real = Duration::from_secs(20);
    within(real, "the handshake over the pty", rig.ready(1)).await;
    assert_eq!(rig.sim.handshakes(), 1);
    assert!(
        rig.sim.log().stray_bytes >= 32,
        "the serial wake-up bytes came first"
    );

    let m = within(
        real,
        "a DM over the pty",
        rig.dm_round_trip(ALICE, "over serial \u{2014}\u{e9}"),
    )
    .await;
    let rx = rig
        .send(meshai::radio::ReplyRequest {
            reply_to: Some(m.packet_id),
            ..reply(ALICE, &["serial answer 1/2", "serial answer 2/2"])
        })
        .await;
    let r = within(real, "the reply report", rx)
        .await
        .expect("a report");
    assert_eq!(r.parts, [PartOutcome::Delivered, PartOutcome::Delivered]);
    let texts = rig.sim.texts();
    let got: Vec<(&str, Option<u32>)> = texts
        .iter()
        .map(|t| (t.text.as_str(), t.reply_id))
        .collect();
    assert_eq!(
        got,
        [
            ("serial answer 1/2", Some(m.packet_id)),
            ("serial answer 2/2", None)
        ]
    );
    assert_eq!(rig.sim.rate_limit_refusals(), 0);
    // Keeps the pty open until the end: without the slave the master sees a hang-up.
    drop(pty.slave);
}
