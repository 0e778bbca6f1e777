//! A reading counts from when our radio heard it (`rx_time`), not from when the daemon got
//! it: firmware 2.7's packets queued while no client was attached, and firmware 2.8's
//! thin node infos followed by the replayed positions and telemetry, never make a node
//! "heard in the last hour" that was heard three hours ago; a fresh packet does. In paused
//! time (`harness::paced`): the waits for the view are virtual.

use std::sync::Arc;

use crate::harness::{Daemon, SOON, db_dir, paced, sim_config, view_settled};
use crate::support::fake_llm::FakeLlm;
use crate::support::sim_node::{MeshPacketSpec, SimConfig, SimNode, SimPeer};
use crate::trust::{ask_with, joined};

const ASKER: u32 = 0x0a5c_0001;
const HILLTOP: u32 = 0x0a5c_0002;
const LAKESIDE: u32 = 0x0a5c_0003;
const THREE_HOURS: u32 = 3 * 3600;

/// Two nodes our node last heard three hours ago, with a position and a battery.
fn peers() -> Vec<SimPeer> {
    vec![
        SimPeer::new(HILLTOP, "Hilltop Relay", "HILL")
            .heard(THREE_HOURS, 2, -6.5)
            .battery(87, 3.92)
            .at(474_100_000, 85_500_000),
        SimPeer::new(LAKESIDE, "Lakeside Node", "LAKE")
            .heard(THREE_HOURS, 1, 3.0)
            .battery(64, 3.8)
            .at(473_600_000, 85_400_000),
    ]
}

/// A node on firmware 2.8 with these other nodes in its DB.
async fn node_28(peers: Vec<SimPeer>) -> SimNode {
    SimNode::start(SimConfig {
        peers,
        firmware_28: true,
        ..sim_config()
    })
    .await
}

async fn daemon(sim: SimNode) -> Daemon {
    let llm = FakeLlm::start_echo().await;
    Daemon::start_with(Arc::new(sim), llm, db_dir(), "").await
}

/// `!nodes`'s answer (no model).
async fn nodes(d: &Daemon) -> String {
    view_settled(&d.sim).await;
    let calls = d.llm.requests().len();
    let reply = d.ask(ASKER, "!nodes", SOON).await;
    assert_eq!(d.llm.requests().len(), calls, "!nodes asked the model");
    reply
        .into_iter()
        .map(|t| t.text)
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::test(start_paused = true)]
async fn packets_queued_while_no_client_was_attached_keep_their_time() {
    let _pace = paced();
    // Firmware 2.7: the node heard Hilltop's position three hours ago and Lakeside's just
    // now while no client was attached; it hands both over after the handshake.
    let sim = SimNode::start(SimConfig {
        peers: peers(),
        ..sim_config()
    })
    .await;
    sim.inject_position_heard(HILLTOP, 474_100_000, 85_500_000, THREE_HOURS);
    sim.inject_position_heard(LAKESIDE, 473_600_000, 85_400_000, 0);
    let d = daemon(sim).await;
    let listed = nodes(&d).await;
    assert!(listed.contains("Lakeside Node now"), "{listed}");
    assert!(!listed.contains("Hilltop"), "{listed}");
}

#[tokio::test(start_paused = true)]
async fn firmware_28s_replayed_readings_keep_their_time() {
    let _pace = paced();
    // Firmware 2.8: thin node infos, then both nodes' positions and batteries replayed with
    // their three-hour-old rx_time; later a fresh position from Lakeside.
    let d = daemon(node_28(peers()).await).await;
    let listed = nodes(&d).await;
    assert!(!listed.contains("Hilltop"), "{listed}");
    assert!(!listed.contains("Lakeside"), "{listed}");
    // The replayed readings are there, told with their age.
    let hill = joined(&d.ask(ASKER, "!nodes hilltop", SOON).await);
    assert!(hill.contains("87"), "{hill}");
    assert!(hill.contains("3 h"), "{hill}");
    d.sim
        .inject_position_heard(LAKESIDE, 473_600_000, 85_400_000, 0);
    let listed = nodes(&d).await;
    assert!(listed.contains("Lakeside Node now"), "{listed}");
    assert!(!listed.contains("Hilltop"), "{listed}");
}

#[tokio::test(start_paused = true)]
async fn a_nodes_last_reading_survives_a_restart_with_its_age() {
    let _pace = paced();
    // Firmware 2.8 hands over Hilltop's battery once, replayed; the daemon stops.
    let d = daemon(node_28(peers()).await).await;
    view_settled(&d.sim).await;
    let before = joined(&d.ask(ASKER, "!nodes hilltop", SOON).await);
    assert!(before.contains("87"), "{before}");
    let (result, _, llm, dir) = d.stop().await;
    result.unwrap();
    // Restarted on a node whose cache lost the readings: thin node infos, nothing replayed.
    let bare: Vec<SimPeer> = [
        SimPeer::new(HILLTOP, "Hilltop Relay", "HILL"),
        SimPeer::new(LAKESIDE, "Lakeside Node", "LAKE"),
    ]
    .into_iter()
    .map(|p| p.heard(THREE_HOURS, 2, -6.5))
    .collect();
    let d = Daemon::start_with(Arc::new(node_28(bare).await), llm, dir, "").await;
    view_settled(&d.sim).await;
    // Another id than the first run's command (a new sim numbers from the same start, and a
    // command counts once across restarts).
    let asked = |text: &str, id: u32| MeshPacketSpec {
        id: Some(id),
        ..MeshPacketSpec::text(ASKER, text)
    };
    let after = joined(&ask_with(&d, ASKER, asked("!nodes hilltop", 0x0a5c_1001)).await);
    assert!(after.contains("87"), "the kept reading: {after}");
    assert!(after.contains("3 h"), "told with its age: {after}");
    let listed = joined(&ask_with(&d, ASKER, asked("!nodes", 0x0a5c_1002)).await);
    assert!(!listed.contains("Hilltop"), "{listed}");
}
