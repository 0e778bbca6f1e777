//! Our node in licensed (ham) mode, on purpose: PKI is off, so no DM can be proven. The daemon
//! reads it at the handshake and says so (the log, an admin's `!status`, `meshai check`); a
//! user who talked over PKI is answered without memory and in the clear (a PKI-only reply
//! would be refused), nothing stored, commands refused with one line saying why; a node that
//! never used PKI (as a ham's licensed node) keeps its memory by number.

use crate::harness::{Daemon, config_text, paced, parse_config, replies};
use crate::support::sim_node::MeshPacketSpec;
use crate::trust::{ask_with, joined, said, stored};

const ALICE: u32 = 0xa1c1_0001;
const BOB: u32 = 0xb0b0_0002;
const ADMIN: u32 = 0xad00_0009;
const K1: [u8; 32] = [0x11; 32];
const CONFIG: &str = "[access]\nadmins = [\"!ad000009\"]\n";

#[tokio::test(start_paused = true)]
async fn a_licensed_bot_node_is_named_and_pinned_users_get_no_memory() {
    let _pace = paced();
    let d = Daemon::start(CONFIG).await;
    ask_with(
        &d,
        ALICE,
        MeshPacketSpec::pki(ALICE, "My door code is 4711.", K1),
    )
    .await;
    ask_with(
        &d,
        BOB,
        MeshPacketSpec::text(BOB, "My boat is the Blue Heron."),
    )
    .await;
    let status = joined(&ask_with(&d, ADMIN, MeshPacketSpec::text(ADMIN, "!status")).await);
    assert!(!status.contains("licensed"), "{status}");
    let (result, sim, llm, dir) = d.stop().await;
    result.expect("a clean stop");
    sim.set_licensed(true);
    let d = Daemon::start_with(sim, llm, dir, CONFIG).await;
    let alice_before = stored(&d, ALICE).await;

    // Alice can only send in the clear now: answered, without her memory, in the clear.
    let reply = ask_with(
        &d,
        ALICE,
        MeshPacketSpec::text(ALICE, "what is my door code?"),
    )
    .await;
    assert_eq!(joined(&reply), "echo: what is my door code?");
    assert!(reply.iter().all(|t| !t.pki_encrypted), "{reply:?}");
    let req = replies(&d.llm).pop().expect("request");
    assert!(!said(&req).contains("4711"), "{}", said(&req));
    // Issue 39: a PKI DM reaching a licensed node (queued from before the switch, or handed
    // over by its API) got her memory, sent in the clear. Answered as any DM now: without.
    let reply = ask_with(
        &d,
        ALICE,
        MeshPacketSpec::pki(ALICE, "and my door code, please?", K1),
    )
    .await;
    assert!(reply.iter().all(|t| !t.pki_encrypted), "{reply:?}");
    let req = replies(&d.llm).pop().expect("request");
    assert!(
        !said(&req).contains("4711"),
        "her memory went out in the clear: {}",
        said(&req)
    );
    for command in ["!summary", "!reset", "!status"] {
        let refused = joined(&ask_with(&d, ALICE, MeshPacketSpec::text(ALICE, command)).await);
        assert!(
            refused.starts_with("My node is in licensed (ham) mode"),
            "{command}: {refused}"
        );
    }
    let help = joined(&ask_with(&d, ALICE, MeshPacketSpec::text(ALICE, "!help")).await);
    assert!(help.starts_with("Ask me anything."), "{help}");
    assert_eq!(
        stored(&d, ALICE).await,
        alice_before,
        "nothing stored, nothing reset"
    );

    // A node that never used PKI is known by its number, as before.
    ask_with(
        &d,
        BOB,
        MeshPacketSpec::text(BOB, "what is my boat called?"),
    )
    .await;
    let req = replies(&d.llm).pop().expect("request");
    assert!(said(&req).contains("Blue Heron"), "{}", said(&req));

    // The admin's `!status` names it.
    let status = joined(&ask_with(&d, ADMIN, MeshPacketSpec::text(ADMIN, "!status")).await);
    assert!(
        status.contains("Node in licensed mode: PKI off"),
        "{status}"
    );

    // And `meshai check`, connecting to the node itself.
    let config = parse_config(&config_text(
        &d.sim,
        &d.llm.base_url(),
        &d.dir.path().join("meshai.db"),
        CONFIG,
    ));
    let (result, _sim, _llm, _dir) = d.stop().await;
    result.expect("a clean stop");
    let outcome = meshai::cli::check::radio(&config).await.render();
    assert!(
        outcome.contains("licensed (ham) mode") && outcome.contains("turn licensed mode off"),
        "{outcome}"
    );
}

/// The binary warns at connect that our node is licensed, with what it means.
#[tokio::test]
async fn the_log_names_a_licensed_node_at_connect() {
    use std::process::Stdio;

    use crate::harness::{SOON, sim_config, spawn_meshai};
    use crate::support::fake_llm::FakeLlm;
    use crate::support::sim_node::{SimConfig, SimNode};

    let sim = SimNode::start(SimConfig {
        licensed: true,
        ..sim_config()
    })
    .await;
    let llm = FakeLlm::start_echo().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("meshai.db");
    let config = dir.path().join("config.toml");
    std::fs::write(&config, config_text(&sim, &llm.base_url(), &db, "")).expect("config");
    let log_path = dir.path().join("meshai.log");
    let log = std::fs::File::create(&log_path).expect("log file");
    let mut child = spawn_meshai(&config, "info", Stdio::from(log));
    sim.wait_handshakes(1, SOON).await;
    // A DM answered: the link was ready, and the warning written before it.
    let before = sim.texts().len();
    sim.inject_dm(0xb0b0_0002, "hello", None);
    sim.wait_texts(before + 1, SOON).await;
    child.start_kill().expect("kill");
    let _ = child.wait().await;
    let log = std::fs::read_to_string(&log_path).expect("log");
    assert!(
        log.contains("our node is in licensed (ham) mode: PKI is off on it"),
        "{log}"
    );
}
