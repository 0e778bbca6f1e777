//! `!watch` end to end (issue 42): one DM naming the node and the reading when a report below
//! the value comes, none for a report above it, none for the next low one, again after it has
//! been high; `back` when a node silent for hours is heard; from known senders only; listed
//! and stopped with `!unwatch`; what held survives a restart. In paused time
//! (`harness::paced`) but for the battery watch.

use std::sync::Arc;

use crate::harness::{Daemon, SOON, db_dir, know_before, paced, sim_config, view_settled};
use crate::support::fake_llm::FakeLlm;
use crate::support::sim_node::{SentText, SimConfig, SimNode, SimPeer};
use crate::trust::joined;

const ANN: u32 = 0x0a22_0001;
const HILLTOP: u32 = 0x0a22_0002;
const CAROL: u32 = 0x0a22_0003;
const STRANGER: u32 = 0x0a22_0009;
const THREE_HOURS: u32 = 3 * 3600;

fn node_28() -> SimConfig {
    SimConfig {
        peers: vec![
            SimPeer::new(ANN, "Ann Smith", "ANN").heard(60, 1, 5.0),
            SimPeer::new(HILLTOP, "Hilltop Relay", "HILL")
                .heard(60, 2, -6.5)
                .battery(87, 3.92),
            SimPeer::new(CAROL, "Carol Jones", "CARO").heard(THREE_HOURS, 1, 2.0),
        ],
        firmware_28: true,
        ..sim_config()
    }
}

async fn daemon() -> Daemon {
    daemon_on(node_28()).await
}

async fn daemon_on(sim: SimConfig) -> Daemon {
    let dir = db_dir();
    know_before(&dir.path().join("meshai.db"), [ANN]).await;
    let sim = Arc::new(SimNode::start(sim).await);
    let d = Daemon::start_with(sim, FakeLlm::start_echo().await, dir, "").await;
    view_settled(&d.sim).await;
    d
}

/// Ann's texts that are watch alerts.
fn alerts(texts: &[SentText]) -> Vec<String> {
    texts
        .iter()
        .filter(|t| t.to == ANN && t.text.starts_with("Watch: "))
        .map(|t| t.text.clone())
        .collect()
}

/// A battery report from Hilltop, in the view once this returns.
async fn battery(d: &Daemon, level: u32) {
    d.sim.inject_battery(HILLTOP, level, 3.7);
    view_settled(&d.sim).await;
}

/// Ann's watch alerts once there are `n`; panics without them.
async fn alerts_at_least(d: &Daemon, n: usize) -> Vec<String> {
    let came = d.sim.wait_for(SOON, |l| alerts(&l.texts).len() >= n).await;
    assert!(came, "no {n} alerts: {:#?}", d.sim.texts());
    alerts(&d.sim.texts())
}

// On the wall clock: each report must reach the watch (the courier reads the store first)
// before the next is published 2 s later; paused time could run those 2 s meanwhile.
#[tokio::test]
async fn a_battery_watch_tells_once_when_a_low_report_comes() {
    let d = daemon().await;
    let set = joined(&d.ask(ANN, "!watch Hilltop Relay battery 20", SOON).await);
    assert_eq!(
        set,
        "Watching Hilltop Relay: battery < 20. I tell you once when it happens. !watch lists them."
    );
    battery(&d, 50).await;
    assert!(
        alerts(&d.sim.texts()).is_empty(),
        "a report above the value"
    );
    d.sim.inject_battery(HILLTOP, 12, 3.7);
    assert_eq!(
        alerts_at_least(&d, 1).await,
        ["Watch: Hilltop Relay reports battery 12 % (< 20)."]
    );
    battery(&d, 11).await;
    assert_eq!(alerts(&d.sim.texts()).len(), 1, "the next low report");
    // After a restart it is still the same run of low reports.
    let (result, _, llm, dir) = d.stop().await;
    result.unwrap();
    let sim = Arc::new(SimNode::start(node_28()).await);
    let d = Daemon::start_with(sim, llm, dir, "").await;
    view_settled(&d.sim).await;
    battery(&d, 10).await;
    assert!(
        alerts(&d.sim.texts()).is_empty(),
        "told again after a restart"
    );
    // High, then low again: told again.
    battery(&d, 60).await;
    d.sim.inject_battery(HILLTOP, 15, 3.7);
    assert_eq!(
        alerts_at_least(&d, 1).await,
        ["Watch: Hilltop Relay reports battery 15 % (< 20)."]
    );
    // No model was asked for any of it.
    assert!(d.llm.requests().is_empty(), "the model was asked");
    d.stop().await.0.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_node_silent_for_hours_is_told_back_once_heard() {
    let _pace = paced();
    let d = daemon().await;
    let set = joined(&d.ask(ANN, "!watch carol jones back", SOON).await);
    assert!(set.starts_with("Watching Carol Jones: back."), "{set}");
    // A replay of her old position is not her being back.
    d.sim
        .inject_position_heard(CAROL, 474_000_000, 85_000_000, THREE_HOURS);
    view_settled(&d.sim).await;
    assert!(alerts(&d.sim.texts()).is_empty(), "{:?}", d.sim.texts());
    d.sim
        .inject_position_heard(CAROL, 474_000_000, 85_000_000, 0);
    assert_eq!(
        alerts_at_least(&d, 1).await,
        ["Watch: Carol Jones is heard again."]
    );
    d.stop().await.0.unwrap();
}

#[tokio::test(start_paused = true)]
async fn watches_are_listed_stopped_bounded_and_kept_from_strangers() {
    let _pace = paced();
    let d = daemon().await;
    let refused = joined(
        &d.ask(STRANGER, "!watch Hilltop Relay battery 20", SOON)
            .await,
    );
    assert!(
        refused.starts_with("I pass on messages only for people I know"),
        "{refused}"
    );
    let usage = joined(&d.ask(ANN, "!watch Hilltop Relay sometimes", SOON).await);
    assert!(usage.starts_with("!watch NAME quiet 2h | back"), "{usage}");
    for c in [
        "battery 20",
        "back",
        "quiet 2h",
        "temperature < 0",
        "wind > 50",
    ] {
        let set = joined(&d.ask(ANN, &format!("!watch HILL {c}"), SOON).await);
        assert!(set.starts_with("Watching Hilltop Relay: "), "{set}");
    }
    let again = joined(&d.ask(ANN, "!watch HILL back", SOON).await);
    assert!(
        again.starts_with("You watch Hilltop Relay for that already."),
        "{again}"
    );
    let full = joined(&d.ask(ANN, "!watch carol jones back", SOON).await);
    assert_eq!(full, "You have 5 watches already. !unwatch N stops one.");
    let listed = joined(&d.ask(ANN, "!watch", SOON).await);
    assert!(
        listed.starts_with(
            "5 watches (!unwatch N): 1 Hilltop Relay battery < 20, 2 Hilltop Relay back"
        ),
        "{listed}"
    );
    let stopped = joined(&d.ask(ANN, "!unwatch 1", SOON).await);
    assert_eq!(stopped, "Stopped watching Hilltop Relay.");
    let none = joined(&d.ask(ANN, "!unwatch 9", SOON).await);
    assert_eq!(none, "No watch 9 of yours. !watch lists them.");
    let listed = joined(&d.ask(ANN, "!watch", SOON).await);
    assert!(
        listed.starts_with("4 watches (!unwatch N): 1 Hilltop Relay back"),
        "{listed}"
    );
    d.stop().await.0.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_busy_channel_holds_the_alert_until_it_calms_down() {
    let _pace = paced();
    let d = daemon_on(SimConfig {
        device_metrics: Some((45.0, 1.0)),
        ..node_28()
    })
    .await;
    let set = joined(&d.ask(ANN, "!watch Hilltop Relay battery 20", SOON).await);
    assert!(
        set.starts_with("Watching Hilltop Relay"),
        "commands are never held: {set}"
    );
    battery(&d, 12).await;
    assert!(
        alerts(&d.sim.texts()).is_empty(),
        "an alert on a busy channel"
    );
    d.sim.inject_telemetry(15.0, 1.0);
    assert_eq!(
        alerts_at_least(&d, 1).await,
        ["Watch: Hilltop Relay reports battery 12 % (< 20)."]
    );
    d.stop().await.0.unwrap();
}
