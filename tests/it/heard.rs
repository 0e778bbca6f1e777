//! A reading counts from when our radio heard it (`rx_time`), not from when the daemon got
//! it: firmware 2.7's packets queued while no client was attached, and firmware 2.8's
//! thin node infos followed by the replayed positions and telemetry, never make a node
//! "heard in the last hour" that was heard three hours ago; a fresh packet does.

use std::sync::Arc;
use std::time::Duration;

use crate::harness::{Daemon, SOON, db_dir, sim_config};
use crate::support::fake_llm::FakeLlm;
use crate::support::sim_node::{SimConfig, SimNode, SimPeer};

const ASKER: u32 = 0x0a5c_0001;
const HILLTOP: u32 = 0x0a5c_0002;
const LAKESIDE: u32 = 0x0a5c_0003;
const THREE_HOURS: u32 = 3 * 3600;
/// Longer than the link's 2 s between two publications of the view.
const VIEW_SETTLES: Duration = Duration::from_millis(2500);

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

async fn daemon(sim: SimNode) -> Daemon {
    let llm = FakeLlm::start_echo().await;
    Daemon::start_with(Arc::new(sim), llm, db_dir(), "").await
}

/// `!nodes`'s answer (no model).
async fn nodes(d: &Daemon) -> String {
    tokio::time::sleep(VIEW_SETTLES).await;
    let calls = d.llm.requests().len();
    let reply = d.ask(ASKER, "!nodes", SOON).await;
    assert_eq!(d.llm.requests().len(), calls, "!nodes asked the model");
    reply
        .into_iter()
        .map(|t| t.text)
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::test]
async fn packets_queued_while_no_client_was_attached_keep_their_time() {
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

#[tokio::test]
async fn firmware_28s_replayed_readings_keep_their_time() {
    // Firmware 2.8: thin node infos, then both nodes' positions and batteries replayed with
    // their three-hour-old rx_time; later a fresh position from Lakeside.
    let sim = SimNode::start(SimConfig {
        peers: peers(),
        firmware_28: true,
        ..sim_config()
    })
    .await;
    let d = daemon(sim).await;
    let listed = nodes(&d).await;
    assert!(!listed.contains("Hilltop"), "{listed}");
    assert!(!listed.contains("Lakeside"), "{listed}");
    // The replayed readings are there, told with their age.
    let hill = d.ask(ASKER, "!nodes hilltop", SOON).await;
    let hill: String = hill.into_iter().map(|t| t.text).collect();
    assert!(hill.contains("87"), "{hill}");
    assert!(hill.contains("3 h"), "{hill}");
    d.sim
        .inject_position_heard(LAKESIDE, 473_600_000, 85_400_000, 0);
    let listed = nodes(&d).await;
    assert!(listed.contains("Lakeside Node now"), "{listed}");
    assert!(!listed.contains("Hilltop"), "{listed}");
}
