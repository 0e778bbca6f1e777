//! Issue 40: `[radio] node_status` advertises the bot through firmware 2.8's status message
//! (NODE_STATUS_APP, broadcast by the node itself) instead of any text. The daemon writes it
//! only when the node reports a different one, never to a node before 2.8 (no status
//! reported: one from before the status message would take the unknown module config for one
//! that needs a reboot), and
//! leaves the node's own alone when the setting is absent.

use std::sync::Arc;

use crate::harness::{Daemon, SOON, config_text_with, db_dir, sim_config};
use crate::support::fake_llm::FakeLlm;
use crate::support::sim_node::{SimConfig, SimNode};
use crate::trust::joined;

const ASKER: u32 = 0x0c0c_0001;
const STATUS: &str = "AI bot here: DM me, !help";

/// A daemon with `radio` in `[radio]`, on a node that runs 2.8 (reporting `status`) or 2.7.
async fn daemon(firmware_28: bool, status: &str, radio: &str) -> Daemon {
    let sim = Arc::new(
        SimNode::start(SimConfig {
            firmware_28,
            node_status: status.to_string(),
            ..sim_config()
        })
        .await,
    );
    let llm = FakeLlm::start_echo().await;
    let dir = db_dir();
    let text = config_text_with(
        &sim,
        &llm.base_url(),
        &dir.path().join("meshai.db"),
        "",
        "timeout_secs = 3",
    )
    .replace("[radio]\n", &format!("[radio]\n{radio}"));
    Daemon::start_with_text(sim, llm, dir, &text).await
}

/// The statuses the client set so far, once a DM was answered (the status goes before the
/// link is ready, so an answer means it is in the log if it was sent at all).
async fn statuses_after_an_answer(d: &Daemon, text: &str) -> Vec<(String, bool)> {
    let reply = joined(&d.ask(ASKER, text, SOON).await);
    assert_eq!(reply, format!("echo: {text}"));
    d.sim.log().node_statuses
}

#[tokio::test]
async fn the_status_is_written_when_it_differs_and_only_on_firmware_28() {
    let line = format!("node_status = \"{STATUS}\"\n");
    let d = daemon(true, "old status", &line).await;
    let once = vec![(STATUS.to_string(), true)];
    assert_eq!(statuses_after_an_answer(&d, "one").await, once);
    // The next handshake finds it set: nothing is written again.
    d.sim.drop_connection();
    let again = d.sim.wait_for(SOON, |l| l.handshakes() >= 2).await;
    assert!(again, "reconnected");
    assert_eq!(statuses_after_an_answer(&d, "two").await, once);

    // Firmware 2.7 reports no status: it is never written to.
    let d = daemon(false, "", &line).await;
    assert_eq!(statuses_after_an_answer(&d, "three").await, []);

    // No setting: the operator's own status stays.
    let d = daemon(true, "the operator's own", "").await;
    assert_eq!(statuses_after_an_answer(&d, "four").await, []);

    // "" clears one.
    let d = daemon(true, "the operator's own", "node_status = \"\"\n").await;
    let cleared = vec![(String::new(), true)];
    assert_eq!(statuses_after_an_answer(&d, "five").await, cleared);
}
